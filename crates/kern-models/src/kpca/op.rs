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

use super::eigen::{SymOp, col_slice, col_slice_mut};
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
/// each stored entry touches one contiguous run of `b` values; each task accumulates its rows in a
/// task-sized row-major buffer and writes them into `out` (no second `n × b` copy).
pub(crate) fn sparse_sym_times(k: &CscMatrix<f64>, x: MatRef<'_, f64>, out: MatMut<'_, f64>) {
    let (n, b) = (x.nrows(), x.ncols());
    if b == 0 {
        return;
    }
    let mut xt = vec![0.0; n * b];
    xt.par_chunks_mut(SPMM_ROWS * b).enumerate().for_each(|(t, chunk)| {
        let i0 = t * SPMM_ROWS;
        for (ii, row) in chunk.chunks_exact_mut(b).enumerate() {
            for (c, r) in row.iter_mut().enumerate() {
                *r = x[(i0 + ii, c)];
            }
        }
    });
    let (cp, ri, vals) = k.csc_data();
    out.par_row_chunks_mut(SPMM_ROWS).enumerate().for_each_init(
        || vec![0.0; SPMM_ROWS * b],
        |buf, (t, mut o)| {
            let j0 = t * SPMM_ROWS;
            let rows = o.nrows();
            let buf = &mut buf[..rows * b];
            buf.fill(0.0);
            for (jj, acc) in buf.chunks_exact_mut(b).enumerate() {
                let j = j0 + jj;
                for p in cp[j]..cp[j + 1] {
                    let v = vals[p];
                    let xi = &xt[ri[p] * b..ri[p] * b + b];
                    for (oc, &xc) in acc.iter_mut().zip(xi) {
                        *oc += v * xc;
                    }
                }
            }
            for (jj, acc) in buf.chunks_exact(b).enumerate() {
                for (c, &a) in acc.iter().enumerate() {
                    o[(jj, c)] = a;
                }
            }
        },
    );
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
        let nf = x.nrows() as f64;
        let k1 = self.k1.as_slice();
        for c in 0..x.ncols() {
            let col = col_slice(x.col(c));
            // s = 1ᵀv and r = k1ᵀv: partial sums over fixed row chunks, added in chunk order.
            let parts: Vec<(f64, f64)> = col
                .par_chunks(CENTRE_ROWS)
                .zip(k1.par_chunks(CENTRE_ROWS))
                .map(|(v, k)| v.iter().zip(k).fold((0.0, 0.0), |(s, r), (&v, &k)| (s + v, r + k * v)))
                .collect();
            let (s, r) = parts.iter().fold((0.0, 0.0), |(s, r), &(a, b)| (s + a, r + b));
            // KV − 1 r/n − k1 s/n + 1 g s/n²
            let shift = -r / nf + self.g * s / (nf * nf);
            let f = s / nf;
            col_slice_mut(out.as_mut().col_mut(c))
                .par_chunks_mut(CENTRE_ROWS)
                .zip(k1.par_chunks(CENTRE_ROWS))
                .for_each(|(o, k)| {
                    for (o, &k) in o.iter_mut().zip(k) {
                        *o += shift - k * f;
                    }
                });
        }
    }
}

/// Rows per parallel task of the centring sums and update.
const CENTRE_ROWS: usize = 4096;

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

    proptest::proptest! {
        #![proptest_config(kern_testkit::proptest_config(24))]

        /// The block product equals the dense product column by column, bit for bit with the
        /// single-column product (each output entry adds the same terms in the same order), across
        /// several output chunks.
        #[test]
        fn block_product_equals_dense_and_single_columns(
            n in 1usize..1300, b in 1usize..6, band in 0usize..9, seed in 0u64..1000,
        ) {
            let f = |i: usize, j: usize| ((i * 31 + j * 17 + seed as usize) % 13) as f64 / 13.0 - 0.4;
            let dm = nalgebra::DMatrix::from_fn(n, n, |i, j| {
                if i.abs_diff(j) <= band { f(i.min(j), i.max(j)) } else { 0.0 }
            });
            let csc = CscMatrix::from(&dm);
            let x = Mat::from_fn(n, b, |i, j| ((i * 7 + j * 3 + seed as usize) % 11) as f64 - 5.0);
            let mut out = Mat::zeros(n, b);
            sparse_sym_times(&csc, x.as_ref(), out.as_mut());
            for c in 0..b {
                let mut one = Mat::zeros(n, 1);
                sparse_sym_times(&csc, x.as_ref().subcols(c, 1), one.as_mut());
                for i in 0..n {
                    proptest::prop_assert_eq!(out[(i, c)].to_bits(), one[(i, 0)].to_bits());
                    let w: f64 = (0..n).map(|t| dm[(i, t)] * x[(t, c)]).sum();
                    proptest::prop_assert!((out[(i, c)] - w).abs() <= 1e-12 * (1.0 + w.abs()));
                }
            }
        }
    }
}
