//! The largest eigenpairs of a symmetric operator by a block Krylov (block Lanczos) method with full
//! reorthogonalisation, exact Rayleigh–Ritz and thick restarts.
//!
//! Why not faer's `partial_self_adjoint_eigen`: it applies the operator to one vector at a time and
//! reorthogonalises vector by vector, so a dense `n × n` matrix is streamed from memory once per
//! Krylov vector. A block of `b` vectors turns every product into a GEMM (dense) or one pass over the
//! sparse pattern (sparse) for `b` vectors at once, and all orthogonalisation is done by GEMMs.
//!
//! The method keeps the basis `V` (orthonormal, `n × m`) **and** `W = A V`. Each step applies `A` to
//! the newest block `X`, appends `X` to `V` and `AX` to `W`, extends the projected matrix
//! `H = VᵀW` by its new columns, and solves the small eigenproblem `H = Y Θ Yᵀ`. The Ritz residuals
//! `‖W y − θ V y‖` of the wanted pairs are computed explicitly (not from the three-term recurrence),
//! so convergence is judged on the true residual. The next block is `AX` orthogonalised against `V`
//! twice (classical Gram–Schmidt by GEMM, "twice is enough") and within itself (modified Gram–Schmidt,
//! twice); a column that vanishes (an invariant subspace was found) is replaced by a random vector.
//! When the basis would exceed its maximum size, it is restarted from its best Ritz vectors
//! (`V ← V Y_p`, `W ← W Y_p`, `H ← Θ_p`), keeping the pending block, which is orthogonal to the old
//! basis and so to the new one.
//!
//! Stopping rule: every wanted pair has `‖A v − θ v‖ ≤ tol · |θ_1|`. The eigenvalue error is then of
//! order `‖r‖² / gap`, far below `tol` (see the KPCA test against a full dense eigendecomposition).

use crate::error::{ModelsError, Result};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Par, Side};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

/// A symmetric linear operator `A` applied to blocks of vectors.
pub trait SymOp: Sync {
    /// The dimension `n`.
    fn n(&self) -> usize;
    /// `out = A x` for an `n × b` block `x`.
    fn apply(&self, x: MatRef<'_, f64>, out: MatMut<'_, f64>);
}

/// Options of [`top_eigenpairs`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KrylovOptions {
    /// Block size `b` (vectors per operator application).
    pub block: usize,
    /// Maximum basis size before a thick restart.
    pub max_dim: usize,
    /// Relative residual tolerance: stop when `‖A v − θ v‖ ≤ tol · |θ_1|` for every wanted pair.
    pub tol: f64,
    /// Cap on operator applications (counted per vector); an error when reached.
    pub max_matvecs: usize,
    /// Seed of the random start block.
    pub seed: u64,
}

impl KrylovOptions {
    /// Defaults for `k` wanted pairs of an `n × n` operator: block `max(k, 8)` (at most 32), basis
    /// `max(6(k + b), 96)` (a large basis pays on the flat spectra of very local kernels), tolerance
    /// 1e-10, at most `max(200 k, 5000)` vector applications.
    pub fn for_k(n: usize, k: usize) -> Self {
        let block = k.clamp(8, 32).min(n.max(1));
        KrylovOptions {
            block,
            max_dim: (6 * (k + block)).max(96).min(n),
            tol: 1e-10,
            max_matvecs: (200 * k).max(5000),
            seed: 0x4b50_4341,
        }
    }
}

/// Result of [`top_eigenpairs`].
#[derive(Clone, Debug)]
pub struct EigenPairs {
    /// The `k` largest eigenvalues, descending.
    pub values: Vec<f64>,
    /// Orthonormal eigenvectors (`n × k`), column `j` for `values[j]`.
    pub vectors: Mat<f64>,
    /// Operator applications (vectors).
    pub matvecs: usize,
    /// Thick restarts performed.
    pub restarts: usize,
    /// Largest relative residual `‖A v − θ v‖ / |θ_1|` at exit.
    pub residual: f64,
}

/// The `k` algebraically largest eigenpairs of the symmetric operator `op` (module docs).
///
/// Needs `k + 2·block ≤ max_dim ≤ n`; for tiny problems use a dense eigendecomposition instead.
///
/// ```
/// use kern_models::kpca::eigen::{top_eigenpairs, KrylovOptions, SymOp};
/// use faer::{Mat, MatMut, MatRef};
/// struct Diag(Vec<f64>);
/// impl SymOp for Diag {
///     fn n(&self) -> usize { self.0.len() }
///     fn apply(&self, x: MatRef<'_, f64>, mut out: MatMut<'_, f64>) {
///         for j in 0..x.ncols() { for i in 0..x.nrows() { out[(i, j)] = self.0[i] * x[(i, j)]; } }
///     }
/// }
/// let op = Diag((0..300).map(|i| 1.0 / (1.0 + i as f64)).collect());
/// let r = top_eigenpairs(&op, 3, &KrylovOptions::for_k(300, 3))?;
/// assert!((r.values[0] - 1.0).abs() < 1e-12 && (r.values[2] - 1.0 / 3.0).abs() < 1e-12);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub fn top_eigenpairs(op: &dyn SymOp, k: usize, opts: &KrylovOptions) -> Result<EigenPairs> {
    let n = op.n();
    let b = opts.block.max(1);
    let m = opts.max_dim.min(n);
    if k == 0 || k + 2 * b > m {
        return Err(ModelsError::Input(format!(
            "Krylov eigensolver needs 1 <= k and k + 2*block <= max_dim <= n (k = {k}, block = {b}, \
             max_dim = {m}, n = {n}); use the dense eigensolver for small problems"
        )));
    }
    if !(opts.tol.is_finite() && opts.tol > 0.0) {
        return Err(ModelsError::Param { name: "tol", value: opts.tol, reason: "must be finite and > 0" });
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(opts.seed);
    let mut v = Mat::<f64>::zeros(n, m);
    let mut w = Mat::<f64>::zeros(n, m);
    let mut h = Mat::<f64>::zeros(m, m);
    // G = WᵀW, for cheap residual estimates ‖Wy − θVy‖² = yᵀGy − θ² (VᵀV = I, VᵀWy = θy).
    let mut gm = Mat::<f64>::zeros(m, m);
    let mut gnew = Mat::<f64>::zeros(m, b);
    let mut x = Mat::from_fn(n, b, |_, _| rng.random::<f64>() - 0.5);
    orthonormalize(v.as_ref().subcols(0, 0), x.as_mut(), &mut rng, 2);
    let mut cur = 0usize;
    let mut matvecs = 0usize;
    let mut restarts = 0usize;
    let mut hnew = Mat::<f64>::zeros(m, b);
    loop {
        op.apply(x.as_ref(), w.as_mut().subcols_mut(cur, b));
        matvecs += b;
        v.as_mut().subcols_mut(cur, b).copy_from(&x);
        let c1 = cur + b;
        // New columns of H = VᵀW.
        let mut hn = hnew.as_mut().subrows_mut(0, c1);
        gemm_tn(hn.as_mut(), v.as_ref().subcols(0, c1), w.as_ref().subcols(cur, b));
        for jb in 0..b {
            for i in 0..c1 {
                h[(i, cur + jb)] = hn[(i, jb)];
            }
        }
        for jb in 0..b {
            for i in 0..cur {
                h[(cur + jb, i)] = hn[(i, jb)];
            }
            for ib in 0..=jb {
                let s = 0.5 * (hn[(cur + ib, jb)] + hn[(cur + jb, ib)]);
                h[(cur + ib, cur + jb)] = s;
                h[(cur + jb, cur + ib)] = s;
            }
        }
        let mut gn = gnew.as_mut().subrows_mut(0, c1);
        gemm_tn(gn.as_mut(), w.as_ref().subcols(0, c1), w.as_ref().subcols(cur, b));
        for jb in 0..b {
            for i in 0..c1 {
                gm[(i, cur + jb)] = gn[(i, jb)];
                gm[(cur + jb, i)] = gn[(i, jb)];
            }
        }
        cur = c1;
        // Rayleigh–Ritz.
        let evd = h
            .as_ref()
            .submatrix(0, 0, cur, cur)
            .self_adjoint_eigen(Side::Lower)
            .map_err(|e| ModelsError::Numerical(format!("projected eigenproblem: {e:?}")))?;
        let s = evd.S().column_vector();
        let u = evd.U();
        // Descending order.
        let order: Vec<usize> = (0..cur).rev().collect();
        let theta: Vec<f64> = order.iter().map(|&j| s[j]).collect();
        let scale = theta.iter().map(|t| t.abs()).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
        let mut converged_all = false;
        let mut worst = f64::INFINITY;
        let estimate = if cur >= k {
            // Residual estimates from G; accurate down to about 1e-8 relative (cancellation), enough
            // to skip the explicit residuals while far from convergence.
            let y = Mat::from_fn(cur, k, |i, j| u[(i, order[j])]);
            let gy = gm.as_ref().submatrix(0, 0, cur, cur) * &y;
            (0..k)
                .map(|j| {
                    let ygy: f64 = (0..cur).map(|i| y[(i, j)] * gy[(i, j)]).sum();
                    (ygy - theta[j] * theta[j]).max(0.0).sqrt() / scale
                })
                .fold(0.0, f64::max)
        } else {
            f64::INFINITY
        };
        if cur >= k && estimate <= opts.tol.max(1e-6) {
            let y = Mat::from_fn(cur, k, |i, j| u[(i, order[j])]);
            let mut vy = Mat::<f64>::zeros(n, k);
            let mut wy = Mat::<f64>::zeros(n, k);
            gemm_nn(vy.as_mut(), Accum::Replace, v.as_ref().subcols(0, cur), y.as_ref(), 1.0);
            gemm_nn(wy.as_mut(), Accum::Replace, w.as_ref().subcols(0, cur), y.as_ref(), 1.0);
            worst = 0.0;
            for j in 0..k {
                let mut r2 = 0.0;
                for i in 0..n {
                    let r = wy[(i, j)] - theta[j] * vy[(i, j)];
                    r2 += r * r;
                }
                worst = f64::max(worst, r2.sqrt() / scale);
            }
            if worst <= opts.tol {
                converged_all = true;
            }
            if converged_all {
                return Ok(EigenPairs {
                    values: theta[..k].to_vec(),
                    vectors: vy,
                    matvecs,
                    restarts,
                    residual: worst,
                });
            }
        }
        if !worst.is_finite() {
            worst = estimate;
        }
        if matvecs + b > opts.max_matvecs {
            return Err(ModelsError::Numerical(format!(
                "Krylov eigensolver did not converge in {matvecs} operator applications (relative residual \
                 {worst:e} > tol {:e}); raise the tolerance or the basis size",
                opts.tol
            )));
        }
        // Next block: AX orthogonalised against the basis (first pass reuses VᵀAX = hn).
        x.copy_from(w.as_ref().subcols(cur - b, b));
        gemm_nn(x.as_mut(), Accum::Add, v.as_ref().subcols(0, cur), hnew.as_ref().subrows(0, cur), -1.0);
        orthonormalize(v.as_ref().subcols(0, cur), x.as_mut(), &mut rng, 1);
        // Thick restart when the basis is full.
        if cur + b > m {
            let p = (cur - b).min((k + b).max(m / 2)).max(k);
            let y = Mat::from_fn(cur, p, |i, j| u[(i, order[j])]);
            let mut nv = Mat::<f64>::zeros(n, p);
            let mut nw = Mat::<f64>::zeros(n, p);
            gemm_nn(nv.as_mut(), Accum::Replace, v.as_ref().subcols(0, cur), y.as_ref(), 1.0);
            gemm_nn(nw.as_mut(), Accum::Replace, w.as_ref().subcols(0, cur), y.as_ref(), 1.0);
            v.as_mut().subcols_mut(0, p).copy_from(&nv);
            w.as_mut().subcols_mut(0, p).copy_from(&nw);
            h.fill(0.0);
            for j in 0..p {
                h[(j, j)] = theta[j];
            }
            let gy = gm.as_ref().submatrix(0, 0, cur, cur) * &y;
            let g2 = y.transpose() * &gy;
            gm.fill(0.0);
            gm.as_mut().submatrix_mut(0, 0, p, p).copy_from(&g2);
            cur = p;
            restarts += 1;
            // The pending block is orthogonal to the old basis, hence to the new one; one more
            // pass guards against the rounding of the restart products.
            orthonormalize(v.as_ref().subcols(0, cur), x.as_mut(), &mut rng, 1);
        }
    }
}

/// Orthonormalises the columns of `x` against the orthonormal columns of `basis` (`passes` block
/// Gram–Schmidt passes; the caller may have done one already) and among themselves (two passes); a
/// column that vanishes is replaced by a random one (projected twice).
fn orthonormalize(
    basis: MatRef<'_, f64>,
    mut x: MatMut<'_, f64>,
    rng: &mut Xoshiro256PlusPlus,
    passes: usize,
) {
    let (n, b) = (x.nrows(), x.ncols());
    let c = basis.ncols();
    let mut coef = Mat::<f64>::zeros(c, b);
    let project = |mut col: MatMut<'_, f64>, coef: &mut Mat<f64>, passes: usize| {
        if c > 0 {
            let mut cf = coef.as_mut().subcols_mut(0, col.ncols());
            for _ in 0..passes {
                gemm_tn(cf.as_mut(), basis, col.as_ref());
                gemm_nn(col.as_mut(), Accum::Add, basis, cf.as_ref(), -1.0);
            }
        }
    };
    let norms0: Vec<f64> = (0..b).map(|j| x.as_ref().col(j).norm_l2()).collect();
    project(x.as_mut(), &mut coef, passes);
    for j in 0..b {
        let mut before = norms0[j];
        let mut attempts = 0;
        loop {
            for _ in 0..2 {
                for i in 0..j {
                    let d = dot_cols(x.as_ref(), i, j);
                    for r in 0..n {
                        let xi = x[(r, i)];
                        x[(r, j)] -= d * xi;
                    }
                }
            }
            let nrm = x.as_ref().col(j).norm_l2();
            if nrm > 1e-8 * before && nrm > 0.0 && nrm.is_finite() {
                let inv = nrm.recip();
                for r in 0..n {
                    x[(r, j)] *= inv;
                }
                break;
            }
            // The column lies (numerically) in the span: replace it by a random vector.
            attempts += 1;
            assert!(attempts < 20, "could not extend an orthonormal basis of dimension {} in R^{n}", c + j);
            for r in 0..n {
                x[(r, j)] = rng.random::<f64>() - 0.5;
            }
            before = x.as_ref().col(j).norm_l2();
            project(x.as_mut().subcols_mut(j, 1), &mut coef, 2);
        }
    }
}

/// Rows per parallel task of the tall-skinny products below.
const ROW_CHUNK: usize = 4096;

/// `out (=|+=) alpha · A B` for a tall `A` (`n × c`) and a small `B` (`c × b`): parallel over row
/// chunks, each a sequential GEMM (faer's own parallel GEMM spends its time in barriers on these
/// skinny shapes).
fn gemm_nn(mut out: MatMut<'_, f64>, accum: Accum, a: MatRef<'_, f64>, b: MatRef<'_, f64>, alpha: f64) {
    let n = a.nrows();
    if n <= ROW_CHUNK || rayon::current_num_threads() == 1 {
        matmul(out, accum, a, b, alpha, Par::Seq);
        return;
    }
    let chunks: Vec<(usize, usize)> =
        (0..n.div_ceil(ROW_CHUNK)).map(|t| (t * ROW_CHUNK, ((t + 1) * ROW_CHUNK).min(n))).collect();
    let parts: Vec<Mat<f64>> = chunks
        .par_iter()
        .map(|&(r0, r1)| {
            let mut o = Mat::<f64>::zeros(r1 - r0, b.ncols());
            matmul(o.as_mut(), Accum::Replace, a.subrows(r0, r1 - r0), b, alpha, Par::Seq);
            o
        })
        .collect();
    for (&(r0, r1), p) in chunks.iter().zip(&parts) {
        let mut dst = out.as_mut().subrows_mut(r0, r1 - r0);
        match accum {
            Accum::Replace => dst.copy_from(p),
            Accum::Add => {
                for j in 0..p.ncols() {
                    for i in 0..p.nrows() {
                        dst[(i, j)] += p[(i, j)];
                    }
                }
            }
        }
    }
}

/// `out = Aᵀ B` for tall `A` (`n × c`) and `B` (`n × b`): partial products over row chunks in
/// parallel, summed in chunk order (deterministic at any thread count).
fn gemm_tn(mut out: MatMut<'_, f64>, a: MatRef<'_, f64>, b: MatRef<'_, f64>) {
    let n = a.nrows();
    if n <= ROW_CHUNK || rayon::current_num_threads() == 1 {
        matmul(out, Accum::Replace, a.transpose(), b, 1.0, Par::Seq);
        return;
    }
    let chunks: Vec<(usize, usize)> =
        (0..n.div_ceil(ROW_CHUNK)).map(|t| (t * ROW_CHUNK, ((t + 1) * ROW_CHUNK).min(n))).collect();
    let parts: Vec<Mat<f64>> = chunks
        .par_iter()
        .map(|&(r0, r1)| {
            let mut o = Mat::<f64>::zeros(a.ncols(), b.ncols());
            matmul(
                o.as_mut(),
                Accum::Replace,
                a.subrows(r0, r1 - r0).transpose(),
                b.subrows(r0, r1 - r0),
                1.0,
                Par::Seq,
            );
            o
        })
        .collect();
    out.fill(0.0);
    for p in &parts {
        for j in 0..p.ncols() {
            for i in 0..p.nrows() {
                out[(i, j)] += p[(i, j)];
            }
        }
    }
}

fn dot_cols(x: MatRef<'_, f64>, i: usize, j: usize) -> f64 {
    let (a, b) = (x.col(i), x.col(j));
    (0..x.nrows()).map(|r| a[r] * b[r]).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Dense(Mat<f64>);
    impl SymOp for Dense {
        fn n(&self) -> usize {
            self.0.nrows()
        }
        fn apply(&self, x: MatRef<'_, f64>, out: MatMut<'_, f64>) {
            matmul(out, Accum::Replace, self.0.as_ref(), x, 1.0, faer::Par::Seq);
        }
    }

    #[test]
    fn matches_dense_eig_with_clusters_and_restarts() {
        let n = 400;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let g = Mat::from_fn(n, n, |_, _| rng.random::<f64>() - 0.5);
        let q = g.qr().compute_thin_Q();
        // Spectrum with a double eigenvalue and a near-degenerate pair at the top.
        let lam: Vec<f64> = (0..n)
            .map(|i| match i {
                0 | 1 => 10.0,
                2 => 9.0,
                3 => 9.0 - 1e-7,
                _ => 5.0 / (1.0 + i as f64),
            })
            .collect();
        let a = Mat::from_fn(n, n, |i, j| (0..n).map(|t| q[(i, t)] * lam[t] * q[(j, t)]).sum::<f64>());
        let mut opts = KrylovOptions::for_k(n, 6);
        opts.block = 4;
        opts.max_dim = 24; // force restarts
        let r = top_eigenpairs(&Dense(a.clone()), 6, &opts).unwrap();
        let mut sorted = lam.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        for (j, want) in sorted.iter().enumerate().take(6) {
            assert!((r.values[j] - want).abs() < 1e-9, "{j}: {} vs {want}", r.values[j]);
        }
        assert!(r.restarts > 0);
        // Orthonormal vectors, residuals small.
        let vtv = r.vectors.transpose() * &r.vectors;
        for i in 0..6 {
            for j in 0..6 {
                let e = if i == j { 1.0 } else { 0.0 };
                assert!((vtv[(i, j)] - e).abs() < 1e-12);
            }
        }
    }
}
