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
//! `H = VᵀW` by its new columns, and solves the small eigenproblem `H = Y Θ Yᵀ`. Every step estimates
//! the Ritz residuals from the part of the new image outside the basis, `R = AX − V VᵀAX`: a Krylov
//! basis (thick-restarted or not) satisfies `AV = VH + R Eᵀ`, so `‖AVy − θVy‖ = ‖R y_last‖` with
//! `y_last` the last `b` entries of `y` (a Krylov decomposition in the sense of Stewart, "A
//! Krylov–Schur algorithm for large eigenproblems", SIAM J. Matrix Anal. Appl. 23, 2001), a `b × b`
//! quadratic form in `RᵀR`. When the
//! estimate says converged, the residuals `‖W y − θ V y‖` are computed explicitly, and only they
//! decide. The next block is `R` orthogonalised against `V` once more (classical Gram–Schmidt by GEMM,
//! "twice is enough") and within itself (modified Gram–Schmidt, twice); a column that vanishes (an
//! invariant subspace was found) is replaced by a random vector. When the basis would exceed its
//! maximum size, it is restarted from its best Ritz vectors (`V ← V Y_p`, `W ← W Y_p` in place, row
//! chunk by row chunk, `H ← Θ_p`), keeping the pending block, which is orthogonal to the old basis and
//! so to the new one. All tall products run over fixed row chunks: the same bits at any thread count.
//!
//! Stopping rule: every wanted pair has `‖A v − θ v‖ ≤ tol · |θ_1|`. The eigenvalue error is then of
//! order `‖r‖² / gap`, far below `tol` (see the KPCA test against a full dense eigendecomposition).
//!
//! ```
//! use faer::linalg::matmul::matmul;
//! use faer::{Accum, Mat, MatMut, MatRef, Par};
//! use kern_models::kpca::eigen::{KrylovOptions, SymOp, top_eigenpairs};
//! struct Dense(Mat<f64>);
//! impl SymOp for Dense {
//!     fn n(&self) -> usize { self.0.nrows() }
//!     fn apply(&self, x: MatRef<'_, f64>, out: MatMut<'_, f64>) {
//!         matmul(out, Accum::Replace, self.0.as_ref(), x, 1.0, Par::Seq);
//!     }
//! }
//! let x = kern_core::Samples::from_flat((0..40).map(f64::from).collect(), 40, 1)?;
//! let a = Dense(kern_core::gram(&kern_core::Gaussian::with_sigma(4.0)?, &x)?);
//! let r = top_eigenpairs(&a, 2, &KrylovOptions::for_k(40, 2))?;
//! assert!(r.values[0] >= r.values[1] && r.values[1] > 0.0);
//! let (v, av) = (&r.vectors, &a.0 * &r.vectors); // A v = θ v
//! assert!((0..40).all(|i| (av[(i, 0)] - r.values[0] * v[(i, 0)]).abs() < 1e-8 * r.values[0]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{ModelsError, Result};
use faer::linalg::matmul::matmul;
use faer::prelude::IntoConst;
use faer::{Accum, Mat, MatMut, MatRef, Par, Side};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

/// A symmetric linear operator `A` applied to blocks of vectors.
///
/// ```
/// use kern_models::kpca::eigen::SymOp;
/// use faer::{MatMut, MatRef};
/// struct Diag(Vec<f64>);
/// impl SymOp for Diag {
///     fn n(&self) -> usize { self.0.len() }
///     fn apply(&self, x: MatRef<'_, f64>, mut out: MatMut<'_, f64>) {
///         for j in 0..x.ncols() { for i in 0..x.nrows() { out[(i, j)] = self.0[i] * x[(i, j)]; } }
///     }
/// }
/// let op = Diag((0..100).map(|i| 1.0 / (1.0 + i as f64)).collect());
/// let x = faer::Mat::from_fn(100, 1, |_, _| 1.0);
/// let mut out = faer::Mat::zeros(100, 1);
/// op.apply(x.as_ref(), out.as_mut());
/// assert_eq!((op.n(), out[(1, 0)]), (100, 0.5));
/// ```
pub trait SymOp: Sync {
    /// The dimension `n`.
    fn n(&self) -> usize;
    /// `out = A x` for an `n × b` block `x`.
    fn apply(&self, x: MatRef<'_, f64>, out: MatMut<'_, f64>);
}

/// Options of [`top_eigenpairs`].
///
/// ```
/// use kern_models::kpca::eigen::KrylovOptions;
/// let o = KrylovOptions::for_k(1_000, 3);
/// assert_eq!((o.block, o.max_dim, o.tol), (8, 96, 1e-10)); // block max(k, 8), basis max(6(k + b), 96)
/// assert_eq!(KrylovOptions::for_k(50, 3).max_dim, 50); // never above n
/// ```
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
///
/// ```
/// use kern_models::kpca::eigen::{top_eigenpairs, KrylovOptions, SymOp};
/// use faer::{MatMut, MatRef};
/// struct Diag(Vec<f64>);
/// impl SymOp for Diag {
///     fn n(&self) -> usize { self.0.len() }
///     fn apply(&self, x: MatRef<'_, f64>, mut out: MatMut<'_, f64>) {
///         for j in 0..x.ncols() { for i in 0..x.nrows() { out[(i, j)] = self.0[i] * x[(i, j)]; } }
///     }
/// }
/// let op = Diag((0..100).map(|i| 1.0 / (1.0 + i as f64)).collect());
/// let r = top_eigenpairs(&op, 2, &KrylovOptions::for_k(100, 2))?;
/// assert!((r.values[1] - 0.5).abs() < 1e-12); // the second largest, 1/2
/// assert!(r.vectors[(1, 1)].abs() > 1.0 - 1e-9); // its eigenvector is the second unit vector
/// assert!(r.residual <= 1e-10 && r.matvecs > 0);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
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
    let mut x = Mat::from_fn(n, b, |_, _| rng.random::<f64>() - 0.5);
    orthonormalize(v.as_ref().subcols(0, 0), x.as_mut(), &mut rng, 2);
    let mut cur = 0usize;
    let mut matvecs = 0usize;
    let mut restarts = 0usize;
    let mut hnew = Mat::<f64>::zeros(m, b);
    let mut rtr = Mat::<f64>::zeros(b, b);
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
        cur = c1;
        // The part of AX outside the basis, R = AX − V(VᵀAX) (one Gram–Schmidt pass reusing
        // VᵀAX = hn): the next block once orthonormalised, and the Ritz residuals' only source.
        x.copy_from(w.as_ref().subcols(cur - b, b));
        gemm_nn(x.as_mut(), Accum::Add, v.as_ref().subcols(0, cur), hnew.as_ref().subrows(0, cur), -1.0);
        gemm_tn(rtr.as_mut(), x.as_ref(), x.as_ref());
        // Rayleigh–Ritz.
        let evd = h.as_ref().submatrix(0, 0, cur, cur).self_adjoint_eigen(Side::Lower).map_err(|e| {
            ModelsError::Numerical(format!("projected eigenproblem: {}", kern_core::faer_errors::evd(e)))
        })?;
        let s = evd.S().column_vector();
        let u = evd.U();
        // Descending order.
        let order: Vec<usize> = (0..cur).rev().collect();
        let theta: Vec<f64> = order.iter().map(|&j| s[j]).collect();
        let scale = theta.iter().map(|t| t.abs()).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
        let mut worst = f64::INFINITY;
        // Residual estimates: AV = VH + R Eᵀ (E the last b columns of the identity) for a Krylov
        // basis, thick-restarted or not, so ‖AVy − θVy‖ = ‖R y_last‖ with y_last the last b entries
        // of y, i.e. √(y_lastᵀ RᵀR y_last). Exact up to rounding; the explicit residuals below decide.
        let estimate = if cur >= k {
            (0..k)
                .map(|j| {
                    let yl = |i: usize| u[(cur - b + i, order[j])];
                    let mut q = 0.0;
                    for c in 0..b {
                        for r in 0..b {
                            q += yl(r) * rtr[(r, c)] * yl(c);
                        }
                    }
                    q.max(0.0).sqrt() / scale
                })
                .fold(0.0, f64::max)
        } else {
            f64::INFINITY
        };
        if cur >= k && estimate <= opts.tol.max(1e-12) {
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
        // Thick restart when the basis is full: V ← V Y_p, W ← W Y_p in place (row chunk by row
        // chunk, so no second n × p copy), H ← Θ_p. It comes before the next block is
        // orthonormalised: with `m = n` a full basis spans ℝⁿ and leaves no room for the block.
        if cur + b > m {
            let p = (cur - b).min((k + b).max(m / 2)).max(k);
            let y = Mat::from_fn(cur, p, |i, j| u[(i, order[j])]);
            times_small_in_place(v.as_mut(), cur, y.as_ref());
            times_small_in_place(w.as_mut(), cur, y.as_ref());
            h.fill(0.0);
            for j in 0..p {
                h[(j, j)] = theta[j];
            }
            cur = p;
            restarts += 1;
            // The pending block is orthogonal to the old basis, hence to the new one; a second pass
            // guards against the rounding of the restart products.
            orthonormalize(v.as_ref().subcols(0, cur), x.as_mut(), &mut rng, 2);
        } else {
            // Next block: R orthogonalised once more against the basis and within itself.
            orthonormalize(v.as_ref().subcols(0, cur), x.as_mut(), &mut rng, 1);
        }
    }
}

/// Orthonormalises the columns of `x` against the orthonormal columns of `basis` (`passes` block
/// Gram–Schmidt passes; the caller may have done one already) and among themselves (modified
/// Gram–Schmidt, two passes, each dot product and update parallel over row chunks); a column that
/// vanishes is replaced by a random one (projected twice).
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
                    let (xi, xj) = x.as_mut().two_cols_mut(i, j);
                    let xi = col_slice(xi.into_const());
                    let xj = col_slice_mut(xj);
                    let d = par_dot(xi, xj);
                    xj.par_chunks_mut(ROW_CHUNK).zip(xi.par_chunks(ROW_CHUNK)).for_each(|(yj, yi)| {
                        for (a, &e) in yj.iter_mut().zip(yi) {
                            *a -= d * e;
                        }
                    });
                }
            }
            let nrm = par_dot(col_slice(x.as_ref().col(j)), col_slice(x.as_ref().col(j))).sqrt();
            if nrm > 1e-8 * before && nrm > 0.0 && nrm.is_finite() {
                let inv = nrm.recip();
                col_slice_mut(x.as_mut().col_mut(j)).par_chunks_mut(ROW_CHUNK).for_each(|yj| {
                    for a in yj {
                        *a *= inv;
                    }
                });
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

/// A column of a column-major matrix as a slice (the columns of every matrix here are contiguous).
pub(super) fn col_slice(c: faer::ColRef<'_, f64>) -> &[f64] {
    c.try_as_col_major().expect("columns of a column-major matrix are contiguous").as_slice()
}

/// [`col_slice`], mutable.
pub(super) fn col_slice_mut(c: faer::ColMut<'_, f64>) -> &mut [f64] {
    c.try_as_col_major_mut().expect("columns of a column-major matrix are contiguous").as_slice_mut()
}

/// `aᵀb`: partial sums over row chunks in parallel, added in chunk order (the same bits at any
/// thread count).
fn par_dot(a: &[f64], b: &[f64]) -> f64 {
    let parts: Vec<f64> = a
        .par_chunks(ROW_CHUNK)
        .zip(b.par_chunks(ROW_CHUNK))
        .map(|(a, b)| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>())
        .collect();
    parts.iter().sum()
}

/// Rows per parallel task of the tall-skinny products below.
const ROW_CHUNK: usize = 4096;

/// `out (=|+=) alpha · A B` for a tall `A` (`n × c`) and a small `B` (`c × b`): parallel over row
/// chunks, each a sequential GEMM written straight into its rows of `out` (faer's own parallel GEMM
/// spends its time in barriers on these skinny shapes). The chunks are fixed, so the bits do not
/// depend on the thread count.
fn gemm_nn(out: MatMut<'_, f64>, accum: Accum, a: MatRef<'_, f64>, b: MatRef<'_, f64>, alpha: f64) {
    let bc = b.ncols();
    out.par_row_chunks_mut(ROW_CHUNK).enumerate().for_each_init(
        || Mat::<f64>::zeros(ROW_CHUNK, bc),
        |tmp, (t, mut o)| {
            let (r0, rows) = (t * ROW_CHUNK, o.nrows());
            match accum {
                Accum::Replace => matmul(o, Accum::Replace, a.subrows(r0, rows), b, alpha, Par::Seq),
                Accum::Add => {
                    let mut p = tmp.as_mut().subrows_mut(0, rows);
                    matmul(p.as_mut(), Accum::Replace, a.subrows(r0, rows), b, alpha, Par::Seq);
                    for j in 0..bc {
                        for i in 0..rows {
                            o[(i, j)] += p[(i, j)];
                        }
                    }
                }
            }
        },
    );
}

/// `A[:, ..p] = A[:, ..c] Y` in place for a tall `A` and a small `Y` (`c × p`, `p ≤ c`): each row
/// chunk reads only its own rows, so the chunk's product goes through a chunk-sized buffer instead
/// of a second `n × p` matrix (the thick restart's memory peak).
fn times_small_in_place(a: MatMut<'_, f64>, c: usize, y: MatRef<'_, f64>) {
    let p = y.ncols();
    a.par_row_chunks_mut(ROW_CHUNK).for_each_init(
        || Mat::<f64>::zeros(ROW_CHUNK, p),
        |tmp, o| {
            let rows = o.nrows();
            let mut t = tmp.as_mut().subrows_mut(0, rows);
            matmul(t.as_mut(), Accum::Replace, o.as_ref().subcols(0, c), y, 1.0, Par::Seq);
            o.subcols_mut(0, p).copy_from(&t);
        },
    );
}

/// `out = Aᵀ B` for tall `A` (`n × c`) and `B` (`n × b`): partial products over row chunks in
/// parallel, summed in chunk order (deterministic at any thread count).
fn gemm_tn(mut out: MatMut<'_, f64>, a: MatRef<'_, f64>, b: MatRef<'_, f64>) {
    let n = a.nrows();
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

    /// A banded symmetric operator of size `n` (bandwidth 5): diagonal `1/(1 + i)` (a separated top
    /// of the spectrum) plus a small coupling `0.01/(1 + |i − j|)`.
    struct Band(usize);
    impl SymOp for Band {
        fn n(&self) -> usize {
            self.0
        }
        fn apply(&self, x: MatRef<'_, f64>, mut out: MatMut<'_, f64>) {
            let n = self.0;
            for c in 0..x.ncols() {
                for i in 0..n {
                    let mut acc = 0.0;
                    for j in i.saturating_sub(5)..(i + 6).min(n) {
                        let a =
                            if i == j { 1.0 / (1.0 + i as f64) } else { 0.01 / (1.0 + i.abs_diff(j) as f64) };
                        acc += a * x[(j, c)];
                    }
                    out[(i, c)] = acc;
                }
            }
        }
    }

    #[test]
    fn same_bits_at_any_thread_count_across_row_chunks() {
        // n spans several row chunks, so every tall product is split; restarts are forced.
        let n = 3 * ROW_CHUNK + 123;
        let mut opts = KrylovOptions::for_k(n, 4);
        opts.block = 4;
        opts.max_dim = 16;
        opts.tol = 1e-8;
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| top_eigenpairs(&Band(n), 4, &opts).unwrap())
        };
        let (a, b) = (run(1), run(2));
        assert!(a.restarts > 0);
        assert_eq!(a.values, b.values);
        assert_eq!(a.vectors, b.vectors);
        assert_eq!((a.matvecs, a.residual.to_bits()), (b.matvecs, b.residual.to_bits()));
    }

    #[test]
    fn in_place_restart_product_equals_the_out_of_place_one() {
        let (n, c, p) = (2 * ROW_CHUNK + 77, 20, 12);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let a = Mat::from_fn(n, c, |_, _| rng.random::<f64>() - 0.5);
        let y = Mat::from_fn(c, p, |_, _| rng.random::<f64>() - 0.5);
        let mut want = Mat::<f64>::zeros(n, p);
        gemm_nn(want.as_mut(), Accum::Replace, a.as_ref(), y.as_ref(), 1.0);
        let mut got = a.clone();
        times_small_in_place(got.as_mut(), c, y.as_ref());
        assert_eq!(got.as_ref().subcols(0, p), want.as_ref());
        // Columns past p are untouched.
        assert_eq!(got.as_ref().subcols(p, c - p), a.as_ref().subcols(p, c - p));
        // And both agree with faer's own product to rounding.
        let r = &a * &y;
        for j in 0..p {
            for i in 0..n {
                assert!((want[(i, j)] - r[(i, j)]).abs() < 1e-12);
            }
        }
    }
}
