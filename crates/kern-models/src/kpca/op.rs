//! Gram-matrix operators for the Krylov eigensolver: dense (GEMM) and sparse (one pass over the CSC
//! pattern per block), and the feature-space centring applied implicitly so that the sparse path
//! never forms the dense centred matrix.
//!
//! With `H = I − 11ᵀ/n`, the centred Gram matrix is `K̃ = HKH`, and for a block `V`
//!
//! ```text
//! K̃V = KV − 1 (1ᵀKV)/n − (K1)(1ᵀV)/n + 1 (1ᵀK1)(1ᵀV)/n²
//! ```
//!
//! where `1ᵀKV = (K1)ᵀV` by symmetry, so with `k1 = K1` and `g = 1ᵀK1` precomputed, centring costs
//! `O(n b)` on top of the product `KV`.

use super::eigen::SymOp;
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef};
use kern_sparse::GramMatrix;
use nalgebra_sparse::CscMatrix;
use rayon::prelude::*;

/// `K` as an operator (dense or sparse, full symmetric storage).
pub struct GramOp<'a>(pub &'a GramMatrix);

impl SymOp for GramOp<'_> {
    fn n(&self) -> usize {
        self.0.n()
    }
    fn apply(&self, x: MatRef<'_, f64>, out: MatMut<'_, f64>) {
        match self.0 {
            GramMatrix::Dense(k) => dense_times(k.as_ref(), x, out),
            GramMatrix::Sparse(k) => sparse_sym_times(k, x, out),
        }
    }
}

/// Rows of the output computed by one parallel task of [`dense_times`].
const DENSE_ROWS: usize = 256;

/// `out = K x` for a dense `K` (`n × n`) and a thin block `x` (`n × b`): parallel over row blocks of
/// `K`, each a sequential GEMM (faer's parallel GEMM synchronises too often on this skinny shape).
fn dense_times(k: MatRef<'_, f64>, x: MatRef<'_, f64>, out: MatMut<'_, f64>) {
    let n = k.nrows();
    if rayon::current_num_threads() == 1 || n <= DENSE_ROWS {
        matmul(out, Accum::Replace, k, x, 1.0, faer::Par::Seq);
        return;
    }
    out.par_row_chunks_mut(DENSE_ROWS).enumerate().for_each(|(t, o)| {
        let r0 = t * DENSE_ROWS;
        let h = o.nrows();
        matmul(o, Accum::Replace, k.subrows(r0, h), x, 1.0, faer::Par::Seq);
    });
}

/// Rows of the output computed by one parallel task of [`sparse_sym_times`].
const SPMM_ROWS: usize = 512;

/// `out = K x` for a CSC `K` with full symmetric storage: row `j` of `K` is column `j`, so output row
/// `j` reads one column and the rows of `x` it names. `x` is transposed to row-major once so that
/// each stored entry touches one contiguous run of `b` values.
pub(crate) fn sparse_sym_times(k: &CscMatrix<f64>, x: MatRef<'_, f64>, mut out: MatMut<'_, f64>) {
    let (n, b) = (x.nrows(), x.ncols());
    let mut xt = vec![0.0; n * b];
    for c in 0..b {
        let col = x.col(c);
        for i in 0..n {
            xt[i * b + c] = col[i];
        }
    }
    let mut ot = vec![0.0; n * b];
    let (cp, ri, vals) = k.csc_data();
    ot.par_chunks_mut(SPMM_ROWS * b).enumerate().for_each(|(t, chunk)| {
        let j0 = t * SPMM_ROWS;
        for (jj, o) in chunk.chunks_exact_mut(b).enumerate() {
            let j = j0 + jj;
            for p in cp[j]..cp[j + 1] {
                let v = vals[p];
                let xi = &xt[ri[p] * b..ri[p] * b + b];
                for (oc, &xc) in o.iter_mut().zip(xi) {
                    *oc += v * xc;
                }
            }
        }
    });
    for c in 0..b {
        for i in 0..n {
            out[(i, c)] = ot[i * b + c];
        }
    }
}

/// The centred operator `K̃ = HKH` applied implicitly (module docs).
pub struct Centred<O> {
    inner: O,
    /// `K1`.
    k1: Vec<f64>,
    /// `1ᵀK1`.
    g: f64,
}

impl<O: SymOp> Centred<O> {
    /// Wraps `inner`, computing `K1` with one product.
    pub fn new(inner: O) -> Self {
        let n = inner.n();
        let ones = Mat::<f64>::from_fn(n, 1, |_, _| 1.0);
        let mut k1 = Mat::<f64>::zeros(n, 1);
        inner.apply(ones.as_ref(), k1.as_mut());
        let k1: Vec<f64> = (0..n).map(|i| k1[(i, 0)]).collect();
        let g = k1.iter().sum();
        Centred { inner, k1, g }
    }

    /// `K1` (row sums of `K`).
    pub fn k1(&self) -> &[f64] {
        &self.k1
    }

    /// `1ᵀK1`.
    pub fn grand_sum(&self) -> f64 {
        self.g
    }
}

impl<O: SymOp> SymOp for Centred<O> {
    fn n(&self) -> usize {
        self.inner.n()
    }
    fn apply(&self, x: MatRef<'_, f64>, mut out: MatMut<'_, f64>) {
        self.inner.apply(x, out.as_mut());
        let n = x.nrows();
        let nf = n as f64;
        for c in 0..x.ncols() {
            let col = x.col(c);
            let (mut s, mut r) = (0.0, 0.0);
            for i in 0..n {
                s += col[i];
                r += self.k1[i] * col[i];
            }
            // KV − 1 r/n − k1 s/n + 1 g s/n²
            let shift = -r / nf + self.g * s / (nf * nf);
            let f = s / nf;
            for i in 0..n {
                out[(i, c)] += shift - self.k1[i] * f;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implicit_centring_equals_explicit() {
        let n = 37;
        let k = Mat::from_fn(n, n, |i, j| 1.0 / (1.0 + (i as f64 - j as f64).abs()));
        let kc = {
            let h = Mat::from_fn(n, n, |i, j| if i == j { 1.0 } else { 0.0 } - 1.0 / n as f64);
            &h * &k * &h
        };
        let x = Mat::from_fn(n, 3, |i, j| ((i * 5 + j * 11) % 7) as f64 - 3.0);
        let g = GramMatrix::Dense(k.clone());
        let mut out = Mat::zeros(n, 3);
        Centred::new(GramOp(&g)).apply(x.as_ref(), out.as_mut());
        let want = &kc * &x;
        for i in 0..n {
            for j in 0..3 {
                assert!((out[(i, j)] - want[(i, j)]).abs() < 1e-12);
            }
        }
        // Sparse product equals dense.
        let dm =
            nalgebra::DMatrix::from_fn(
                n,
                n,
                |i, j| if (i as i64 - j as i64).abs() < 4 { k[(i, j)] } else { 0.0 },
            );
        let csc = CscMatrix::from(&dm);
        let mut o2 = Mat::zeros(n, 3);
        sparse_sym_times(&csc, x.as_ref(), o2.as_mut());
        for i in 0..n {
            for j in 0..3 {
                let w: f64 = (0..n).map(|t| dm[(i, t)] * x[(t, j)]).sum();
                assert!((o2[(i, j)] - w).abs() < 1e-12);
            }
        }
    }
}
