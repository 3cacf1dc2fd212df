//! Preconditioned conjugate gradients (Hestenes & Stiefel 1952; Saad, *Iterative Methods for Sparse
//! Linear Systems*, 2nd ed., Algorithm 9.1) for `(A + s·I) x = b` with a sparse symmetric `A` — the
//! kernel ridge system `K_C + λI` and the LS-SVM system `K_C + I/λ` (CS-RBF paper eq. 14) when no
//! direct factor fits in memory.
//!
//! **Preconditioner: none by default, measured.** `K_C + sI` with a positive shift is well conditioned
//! (its spectrum lies in `[s, s + max_i Σ_j |K_ij|]`), and plain CG converges fast: green-red n = 20,000,
//! `cs-gaussian:sigma=0.6,c=0.12,nu=3` (80 neighbours per row), tol 1e-6: 32 iterations at λ = 1 (s = 1)
//! and 221 at λ = 100 (s = 0.01). The alternative kept here, [`Preconditioner::BlockJacobi`], permutes
//! the matrix by nested dissection (METIS, [`nd_order`](crate::nd_order)), whose order lists compact
//! subdomains one after the other, cuts that order into consecutive blocks of `b` points and factors each
//! diagonal block of `P(A + sI)Pᵀ` (dense Cholesky, `O(n b²)` flops, `8 n b` bytes). With `b = 256` it
//! took 30 and 106 iterations in the same two cases, but each application costs `4 n b` flops (about 6
//! mat-vecs at 80 neighbours per row) and the ordering seconds up front, so it lost in time in both;
//! with `b = 64` it took 39 iterations at λ = 1, more than plain CG. Incomplete Cholesky IC(0) was not
//! built: on `K_C` its factorization costs about `Σ_j nnz(col j)²` flops (≈ `n · 80²` here, and
//! `n · 545²` for green-red at 200,000 points and `c = 0.12`), and its triangular solves are sequential.
//!
//! **Stopping.** On the relative residual `‖b − (A + sI)x‖ / ‖b‖ ≤ tol` or after `max_iter`
//! iterations. When the recurrence's residual meets `tol`, the true residual is computed; if rounding
//! has let the two drift apart, the iteration restarts from the true residual (residual replacement),
//! so the reported [`PcgReport::residual`] is always the true one.
//!
//! **Several right-hand sides in lockstep** ([`Pcg::solve_many`]; the LS-SVM's `ν = H⁻¹1` and every
//! class's `η = H⁻¹y`, kernel ridge's target columns): each column runs its own recurrence, the one
//! [`Pcg::solve`] runs on it alone, but each iteration's product reads every stored entry once for
//! all the columns still iterating (an interleaved copy of the vectors, `v[i·k + t]`, so that the `k`
//! values at a row are adjacent). The solve is memory-bound (one pass over the matrix per
//! iteration), so `k` solves cost about one solve's matrix traffic.
//!
//! **Storage.** [`Pcg::new`] takes the full symmetric storage (needed by the block-Jacobi
//! preconditioner and by callers that already hold it); [`Pcg::from_lower`] takes the lower triangle
//! with 32-bit row indices ([`SymLower`]), 12 bytes per stored entry of one triangle instead of 16 for
//! both: about 2.7 times less memory and matrix traffic.
//!
//! **Determinism.** The mat-vec computes each output entry in a fixed order of operations that
//! depends on the matrix only (full storage: one task per entry in the matrix's storage order; lower
//! storage: see [`crate::sym_lower`]); dot products sum fixed chunks of 4096 entries and then
//! the chunk sums in order. So the iterates are the same bytes at any thread count.
//!
//! ```
//! use kern_core::{CompactlySupported, Gaussian, Samples};
//! use kern_sparse::{GramMatrix, Pcg, PcgOptions, sparse_gram};
//! let x = Samples::from_rows(&[[0.0], [0.3], [0.7], [1.2], [4.0]])?;
//! let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
//! let a = sparse_gram(&k, &x)?.into_matrix();
//! let opts = PcgOptions { tol: 1e-12, ..PcgOptions::default() };
//! let b = [1.0, -1.0, 2.0, 0.5, 3.0];
//! let (sol, report) = Pcg::new(a.clone(), 0.5, &opts)?.solve(&b)?; // (K_C + 0.5 I) x = b
//! assert!(report.converged && report.iterations <= 5);
//! let r = GramMatrix::Sparse(a).mul_vec(&sol)?;
//! assert!((0..5).all(|i| (r[i] + 0.5 * sol[i] - b[i]).abs() < 1e-10));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{Result, SparseError};
use crate::ordering::{Ordering, Permutation, check_square, order, permute_symmetric};
use crate::sym_lower::SymLower;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt;
use faer::linalg::triangular_solve::{solve_lower_triangular_in_place, solve_upper_triangular_in_place};
use faer::{Mat, MatMut, Par};
use nalgebra_sparse::CscMatrix;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Entries per partial sum of the deterministic dot product.
pub(crate) const DOT_CHUNK: usize = 4096;
/// Block size of `block-jacobi` without a size.
pub(crate) const DEFAULT_BLOCK: usize = 256;

/// The preconditioner `M ≈ A + sI` of [`Pcg`].
///
/// ```
/// use kern_sparse::Preconditioner;
/// assert_eq!("block-jacobi:128".parse::<Preconditioner>()?, Preconditioner::BlockJacobi { block: 128 });
/// assert_eq!("block-jacobi".parse::<Preconditioner>()?, Preconditioner::BlockJacobi { block: 256 });
/// assert_eq!("none".parse::<Preconditioner>()?, Preconditioner::None);
/// assert_eq!(Preconditioner::default(), Preconditioner::None);
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Preconditioner {
    /// Plain conjugate gradients (`M = I`): the default (module docs).
    #[default]
    None,
    /// Block Jacobi over consecutive blocks of `block` points of the nested-dissection order (module
    /// docs). `block = 1` is plain Jacobi (diagonal scaling); `block-jacobi` without a size is 256.
    BlockJacobi {
        /// Points per block (the last block may be smaller).
        block: usize,
    },
}

impl std::str::FromStr for Preconditioner {
    type Err = SparseError;
    fn from_str(s: &str) -> Result<Self> {
        let bad = || {
            SparseError::Matrix(format!(
                "unknown preconditioner {s:?}; valid: none, block-jacobi, block-jacobi:SIZE (SIZE ≥ 1)"
            ))
        };
        match s.split_once(':') {
            None if s == "none" => Ok(Preconditioner::None),
            None if s == "block-jacobi" => Ok(Preconditioner::BlockJacobi { block: DEFAULT_BLOCK }),
            Some(("block-jacobi", b)) => match b.parse::<usize>() {
                Ok(block) if block >= 1 => Ok(Preconditioner::BlockJacobi { block }),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }
}

/// Settings of [`Pcg`].
///
/// ```
/// let o = kern_sparse::PcgOptions::default();
/// assert_eq!((o.tol, o.max_iter), (1e-6, 10_000));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PcgOptions {
    /// Stop when `‖b − (A + sI)x‖ / ‖b‖ ≤ tol` (`0 < tol < 1`).
    pub tol: f64,
    /// At most this many iterations (≥ 1).
    pub max_iter: usize,
    /// The preconditioner.
    pub preconditioner: Preconditioner,
}

impl Default for PcgOptions {
    fn default() -> Self {
        PcgOptions { tol: 1e-6, max_iter: 10_000, preconditioner: Preconditioner::default() }
    }
}

impl PcgOptions {
    /// Checks the ranges (`0 < tol < 1`, `max_iter ≥ 1`, block size ≥ 1).
    ///
    /// ```
    /// let mut o = kern_sparse::PcgOptions::default();
    /// o.tol = 0.0;
    /// assert!(o.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<Self> {
        if !(self.tol.is_finite() && self.tol > 0.0 && self.tol < 1.0) {
            return Err(SparseError::Param { name: "tol", value: self.tol, reason: "must be in (0, 1)" });
        }
        if self.max_iter == 0 {
            return Err(SparseError::Param { name: "max_iter", value: 0.0, reason: "must be ≥ 1" });
        }
        if self.preconditioner == (Preconditioner::BlockJacobi { block: 0 }) {
            return Err(SparseError::Param { name: "block", value: 0.0, reason: "must be ≥ 1" });
        }
        Ok(*self)
    }
}

/// What one conjugate-gradient solve did.
///
/// ```
/// let r = kern_sparse::PcgReport { iterations: 12, residual: 3e-7, converged: true };
/// assert!(r.converged && r.residual < 1e-6);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PcgReport {
    /// Iterations done (mat-vecs with `A + sI`, not counting the final residual check).
    pub iterations: usize,
    /// The true relative residual `‖b − (A + sI)x‖ / ‖b‖` of the returned `x` (0 for `b = 0`).
    pub residual: f64,
    /// Whether `residual ≤ tol`.
    pub converged: bool,
}

impl PcgReport {
    /// The worse of two reports (more iterations, larger residual, converged only if both did): the
    /// summary of several solves.
    ///
    /// ```
    /// use kern_sparse::PcgReport;
    /// let a = PcgReport { iterations: 5, residual: 1e-8, converged: true };
    /// let b = PcgReport { iterations: 9, residual: 1e-3, converged: false };
    /// assert_eq!(a.worst(b), PcgReport { iterations: 9, residual: 1e-3, converged: false });
    /// ```
    pub fn worst(self, other: PcgReport) -> PcgReport {
        PcgReport {
            iterations: self.iterations.max(other.iterations),
            residual: self.residual.max(other.residual),
            converged: self.converged && other.converged,
        }
    }
}

/// Conjugate gradients for `(A + s·I) x = b` (module docs): the permuted matrix, the shift and the
/// factored preconditioner, built once and reused for every right-hand side. Several right-hand sides
/// are solved in lockstep by [`Pcg::solve_many`].
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// use kern_sparse::{sparse_gram, CholeskyPlan, GramMatrix, Ordering, Pcg, PcgOptions};
/// let x = Samples::from_flat((0..400).map(|v| ((v * 37) % 101) as f64 / 25.0).collect(), 200, 2)?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(0.6)?, 0.8, 3.0)?;
/// let a = sparse_gram(&k, &x)?.into_matrix();
/// let b: Vec<f64> = (0..200).map(|i| (i % 7) as f64 - 3.0).collect();
/// let opts = PcgOptions { tol: 1e-10, ..PcgOptions::default() };
/// let pcg = Pcg::new(a.clone(), 0.5, &opts)?;
/// let (xi, report) = pcg.solve(&b)?;
/// assert!(report.converged && report.residual <= 1e-10);
/// let xd = CholeskyPlan::new(GramMatrix::Sparse(a), Ordering::Amd)?.factor(0.5)?.solve(&b)?;
/// for (u, v) in xi.iter().zip(&xd) { assert!((u - v).abs() < 1e-8 * v.abs().max(1.0)); }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Pcg {
    /// `P A Pᵀ` and the permutation.
    op: Operator,
    perm: Permutation,
    shift: f64,
    opts: PcgOptions,
    /// Cholesky factors of the diagonal blocks of `P(A + sI)Pᵀ` (block Jacobi), in order.
    blocks: Vec<Mat<f64>>,
    block: usize,
}

/// The stored matrix of [`Pcg`].
#[derive(Clone, Debug)]
enum Operator {
    /// Full symmetric storage (both triangles).
    Full(CscMatrix<f64>),
    /// The lower triangle ([`SymLower`], already in its cell order).
    Lower(SymLower),
}

/// Scratch of the products of one solve (allocated once per solve, not per iteration).
struct Workspace {
    /// Whether each vector of the product is non-zero (zero vectors are skipped).
    active: Vec<bool>,
    /// The interleaved input and output (`k > 1`).
    vi: Vec<f64>,
    qi: Vec<f64>,
    /// The symmetric product's bands.
    scratch: Vec<f64>,
}

impl Pcg {
    /// Validates `opts`, permutes `a` (structurally symmetric, full storage) by nested dissection when
    /// a block-Jacobi preconditioner is asked for, and factors the preconditioner's blocks.
    pub fn new(a: CscMatrix<f64>, shift: f64, opts: &PcgOptions) -> Result<Self> {
        let opts = opts.validate()?;
        let n = check_square(&a)?;
        check_shift(shift)?;
        let (b, perm, block) = match opts.preconditioner {
            Preconditioner::None => (a, Permutation::identity(n), 0),
            Preconditioner::BlockJacobi { block } => {
                // Nested dissection keeps the blocks' couplings in the separators; without METIS, AMD.
                let by = if crate::ordering::HAS_NESTED_DISSECTION {
                    Ordering::NestedDissection
                } else {
                    Ordering::Amd
                };
                let perm = if block > 1 { order(&a, by)? } else { Permutation::identity(n) };
                let b = permute_symmetric(&a, &perm)?;
                (b, perm, block)
            }
        };
        let blocks = if block > 0 { factor_blocks(&b, shift, block)? } else { Vec::new() };
        Ok(Pcg { op: Operator::Full(b), perm, shift, opts, blocks, block })
    }

    /// Conjugate gradients on a matrix stored by its lower triangle ([`SymLower`]: half the memory of
    /// the full storage; its products are the same bytes at any thread count but differ from the full
    /// storage's by rounding). Plain CG only: a block-Jacobi preconditioner needs the full storage
    /// ([`Pcg::new`]) and is refused here.
    ///
    /// ```
    /// use kern_core::{CompactlySupported, Gaussian, Samples};
    /// use kern_sparse::{sparse_gram, sparse_gram_lower, Pcg, PcgOptions};
    /// let x = Samples::from_flat((0..400).map(|v| ((v * 37) % 101) as f64 / 25.0).collect(), 200, 2)?;
    /// let k = CompactlySupported::new(Gaussian::with_sigma(0.6)?, 0.8, 3.0)?;
    /// let opts = PcgOptions { tol: 1e-10, ..PcgOptions::default() };
    /// let b: Vec<f64> = (0..200).map(|i| (i % 7) as f64 - 3.0).collect();
    /// let (xl, rl) = Pcg::from_lower(sparse_gram_lower(&k, &x)?, 0.5, &opts)?.solve(&b)?;
    /// let (xf, _) = Pcg::new(sparse_gram(&k, &x)?.into_matrix(), 0.5, &opts)?.solve(&b)?;
    /// assert!(rl.converged);
    /// for (u, v) in xl.iter().zip(&xf) { assert!((u - v).abs() < 1e-8 * v.abs().max(1.0)); }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_lower(a: SymLower, shift: f64, opts: &PcgOptions) -> Result<Self> {
        let opts = opts.validate()?;
        check_shift(shift)?;
        if opts.preconditioner != Preconditioner::None {
            return Err(SparseError::Matrix(
                "the block-Jacobi preconditioner needs the full storage of the matrix; use no \
                 preconditioner with the lower-triangle storage"
                    .into(),
            ));
        }
        let perm = a.permutation().clone();
        Ok(Pcg { op: Operator::Lower(a), perm, shift, opts, blocks: Vec::new(), block: 0 })
    }

    /// Matrix size `n`.
    pub fn n(&self) -> usize {
        match &self.op {
            Operator::Full(b) => b.ncols(),
            Operator::Lower(l) => l.n(),
        }
    }

    /// The shift `s`.
    pub fn shift(&self) -> f64 {
        self.shift
    }

    /// The settings.
    pub fn options(&self) -> &PcgOptions {
        &self.opts
    }

    /// Bytes of the stored matrix (full storage: `16·nnz + 8(n + 1)`; lower: [`SymLower::bytes`]).
    ///
    /// ```
    /// let a = nalgebra_sparse::CscMatrix::<f64>::identity(3);
    /// let pcg = kern_sparse::Pcg::new(a, 1.0, &Default::default())?;
    /// assert_eq!(pcg.matrix_bytes(), 16 * 3 + 8 * 4);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn matrix_bytes(&self) -> usize {
        match &self.op {
            Operator::Full(b) => crate::SparsityStats::of(b).bytes_csc,
            Operator::Lower(l) => l.bytes(),
        }
    }

    /// Solves `(A + s·I) x = b` from `x₀ = 0`. Not reaching the tolerance within `max_iter` is not an
    /// error: the report says so ([`PcgReport::converged`]) and gives the true residual.
    pub fn solve(&self, rhs: &[f64]) -> Result<(Vec<f64>, PcgReport)> {
        let n = self.n();
        if rhs.len() != n {
            return Err(SparseError::Dimension { what: "right-hand side", expected: n, found: rhs.len() });
        }
        if n == 0 {
            return Ok((Vec::new(), PcgReport { iterations: 0, residual: 0.0, converged: true }));
        }
        let (x, reports) = self.solve_many(rhs)?;
        Ok((x, reports[0]))
    }

    /// Solves `(A + s·I) X = B` for `k = rhs.len() / n` right-hand sides (column-major `n × k`) in
    /// lockstep: each column runs exactly the recurrence [`Pcg::solve`] runs on it alone (the same
    /// operations in the same order, so the same bytes and the same report), but every iteration
    /// reads the stored matrix once for all the columns still iterating ([`cg_columns`]). Returns `X`
    /// (column-major) and one report per column.
    ///
    /// ```
    /// use kern_core::{CompactlySupported, Gaussian, Samples};
    /// use kern_sparse::{sparse_gram, Pcg, PcgOptions};
    /// let x = Samples::from_flat((0..400).map(|v| ((v * 37) % 101) as f64 / 25.0).collect(), 200, 2)?;
    /// let k = CompactlySupported::new(Gaussian::with_sigma(0.6)?, 0.8, 3.0)?;
    /// let pcg = Pcg::new(sparse_gram(&k, &x)?.into_matrix(), 0.5, &PcgOptions::default())?;
    /// let b1: Vec<f64> = (0..200).map(|i| (i % 7) as f64 - 3.0).collect();
    /// let b2 = vec![1.0; 200];
    /// let (xs, reports) = pcg.solve_many(&[b1.clone(), b2.clone()].concat())?;
    /// assert_eq!((&xs[..200], reports[0]), (&pcg.solve(&b1)?.0[..], pcg.solve(&b1)?.1));
    /// assert_eq!(&xs[200..], &pcg.solve(&b2)?.0[..]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn solve_many(&self, rhs: &[f64]) -> Result<(Vec<f64>, Vec<PcgReport>)> {
        let n = self.n();
        if n == 0 || !rhs.len().is_multiple_of(n) {
            return Err(SparseError::Dimension {
                what: "right-hand sides (a multiple of the matrix size)",
                expected: n,
                found: rhs.len(),
            });
        }
        if let Some(i) = rhs.iter().position(|v| !v.is_finite()) {
            return Err(SparseError::Param {
                name: "b",
                value: rhs[i],
                reason: "right-hand side must be finite",
            });
        }
        let k = rhs.len() / n;
        let (perm, inv) = (self.perm.perm(), self.perm.inv());
        let mut bp = vec![0.0; n * k];
        for (bt, rt) in bp.chunks_exact_mut(n).zip(rhs.chunks_exact(n)) {
            for (b, &old) in bt.iter_mut().zip(perm) {
                *b = rt[old];
            }
        }
        let (xp, reports) = self.cg(&bp, k)?;
        let mut x = vec![0.0; n * k];
        for (xt, pt) in x.chunks_exact_mut(n).zip(xp.chunks_exact(n)) {
            for (xo, &new) in xt.iter_mut().zip(inv) {
                *xo = pt[new];
            }
        }
        Ok((x, reports))
    }

    /// The conjugate-gradient loop in the permuted numbering: [`cg_columns`] on the `k` columns.
    fn cg(&self, b: &[f64], k: usize) -> Result<(Vec<f64>, Vec<PcgReport>)> {
        let n = self.n();
        let interleaved = if k > 1 { n * k } else { 0 };
        let mut ws = Workspace {
            active: vec![false; k],
            vi: vec![0.0; interleaved],
            qi: vec![0.0; interleaved],
            scratch: match &self.op {
                Operator::Full(_) => Vec::new(),
                Operator::Lower(l) => vec![0.0; l.scratch_len(k)],
            },
        };
        cg_columns::<_, _, SparseError>(
            b,
            n,
            &self.opts,
            |v, out| self.matvec(v, out, k, &mut ws),
            |r, z| self.precondition(r, z),
        )
    }

    /// `out = (B + sI) v` for the `k` columns of `v` (column-major), one read of the matrix for all
    /// of them (through an interleaved copy when `k > 1`); all-zero columns (converged) are skipped.
    fn matvec(&self, v: &[f64], out: &mut [f64], k: usize, ws: &mut Workspace) -> Result<()> {
        let n = self.n();
        for (t, a) in ws.active.iter_mut().enumerate() {
            *a = v[t * n..(t + 1) * n].iter().any(|&x| x != 0.0);
        }
        if k == 1 {
            return self.product(v, out, 1, &ws.active, &mut ws.scratch);
        }
        ws.vi.par_chunks_mut(k).enumerate().for_each(|(i, vi)| {
            for (t, x) in vi.iter_mut().enumerate() {
                *x = v[t * n + i];
            }
        });
        self.product(&ws.vi, &mut ws.qi, k, &ws.active, &mut ws.scratch)?;
        let qi = &ws.qi;
        for (t, ot) in out.chunks_exact_mut(n).enumerate() {
            ot.par_iter_mut().enumerate().for_each(|(i, o)| *o = qi[i * k + t]);
        }
        Ok(())
    }

    /// The interleaved product of the stored operator with `k` vectors.
    fn product(
        &self,
        v: &[f64],
        out: &mut [f64],
        k: usize,
        active: &[bool],
        scratch: &mut [f64],
    ) -> Result<()> {
        match &self.op {
            Operator::Full(b) => crate::csc_ops::shifted_column_dots_k(
                b.col_offsets(),
                b.row_indices(),
                b.values(),
                self.shift,
                v,
                out,
                k,
                active,
            ),
            Operator::Lower(l) => {
                l.shifted_product(self.shift, v, out, k, active, scratch);
                Ok(())
            }
        }
    }

    /// `z = M⁻¹ r`, column by column.
    fn precondition(&self, r: &[f64], z: &mut [f64]) {
        z.copy_from_slice(r);
        if self.blocks.is_empty() {
            return;
        }
        for zc in z.chunks_exact_mut(self.n()) {
            zc.par_chunks_mut(self.block).zip(self.blocks.par_iter()).for_each(|(zb, l)| {
                let m = zb.len();
                let mut col = MatMut::from_column_major_slice_mut(zb, m, 1);
                solve_lower_triangular_in_place(l.as_ref(), col.as_mut(), Par::Seq);
                solve_upper_triangular_in_place(l.transpose(), col.as_mut(), Par::Seq);
            });
        }
    }
}

/// The shift must be finite and `≥ 0`.
fn check_shift(shift: f64) -> Result<()> {
    if !shift.is_finite() || shift < 0.0 {
        return Err(SparseError::Param { name: "shift", value: shift, reason: "must be finite and ≥ 0" });
    }
    Ok(())
}

/// Preconditioned conjugate gradients (Saad, Algorithm 9.1) for `A X = B` with `c` right-hand sides at
/// once, for any symmetric positive definite operator: `b` holds `B` column-major (`n × c`, `c =
/// b.len() / n`), `apply(v, out)` sets `out = A v` and `precondition(r, z)` sets `z = M⁻¹ r` on whole
/// `n × c` blocks (so an operator that streams a large matrix reads it once per iteration for all
/// columns). `apply`'s errors (any type an [`SparseError`] converts into) end the solve. Only [`PcgOptions::tol`] and [`PcgOptions::max_iter`] are read.
///
/// Each column runs its own recurrence (its own step lengths) and stops on its own relative residual,
/// with the residual replacement of the module docs; a converged column's direction is set to zero, so
/// it no longer moves. Dot products are the deterministic chunked sums of the module docs. Returns `X`
/// (column-major) and one report per column. [`cg_columns_with`] is the same loop with the caller's
/// dot products (e.g. completed over processes), [`cg_columns_until`] the same loop with a test that may
/// end it early.
///
/// ```
/// use kern_sparse::{PcgOptions, pcg::cg_columns};
/// // A = diag(1, 2, 3), two right-hand sides, no preconditioner.
/// let d = [1.0, 2.0, 3.0];
/// let b = [1.0, 1.0, 1.0, 2.0, 4.0, 6.0];
/// let apply = |v: &[f64], out: &mut [f64]| {
///     for (i, (o, x)) in out.iter_mut().zip(v).enumerate() { *o = d[i % 3] * x; }
///     Ok(())
/// };
/// let opts = PcgOptions { tol: 1e-12, ..PcgOptions::default() };
/// let (x, reports) = cg_columns::<_, _, kern_sparse::SparseError>(&b, 3, &opts, apply, |r, z| z.copy_from_slice(r))?;
/// assert!(reports.iter().all(|r| r.converged && r.iterations <= 3));
/// for (xi, want) in x.iter().zip([1.0, 0.5, 1.0 / 3.0, 2.0, 2.0, 2.0]) { assert!((xi - want).abs() < 1e-12); }
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
pub fn cg_columns<A, M, E>(
    b: &[f64],
    n: usize,
    opts: &PcgOptions,
    apply: A,
    precondition: M,
) -> std::result::Result<(Vec<f64>, Vec<PcgReport>), E>
where
    A: FnMut(&[f64], &mut [f64]) -> std::result::Result<(), E>,
    M: FnMut(&[f64], &mut [f64]),
    E: From<SparseError>,
{
    cg_columns_until(b, n, opts, apply, precondition, |_, _| false)
}

/// [`cg_columns`] with the caller's dot products: `dots(pairs)` returns `Σ_i u_i v_i` for every pair
/// `(u, v)` it is given, all the columns of one step of the recurrence in one call. This is the hook of
/// a distributed solve: each process holds `n` rows of the `c` columns (`b.len() = n·c`, `n` may be 0),
/// `apply` and `precondition` act on its rows, and `dots` completes the sums over all processes, so
/// every process takes the same steps and stops at the same iteration. The loop is [`cg_columns`]'s
/// (which calls this with its chunked local sums): the same arithmetic per column, so the same bytes.
/// A right-hand side that is not finite is an error on every process (its norm is not finite).
///
/// ```
/// use kern_sparse::{PcgOptions, pcg::cg_columns_with};
/// // A = diag(1, 2, 3) with one right-hand side; plain left-to-right dot products.
/// let d = [1.0, 2.0, 3.0];
/// let apply = |v: &[f64], out: &mut [f64]| {
///     for (i, (o, x)) in out.iter_mut().zip(v).enumerate() { *o = d[i] * x; }
///     Ok(())
/// };
/// let dots = |pairs: &[(&[f64], &[f64])]| -> Vec<f64> {
///     pairs.iter().map(|(u, v)| u.iter().zip(*v).map(|(a, b)| a * b).sum()).collect()
/// };
/// let opts = PcgOptions { tol: 1e-12, ..PcgOptions::default() };
/// let (x, r) = cg_columns_with::<_, _, _, kern_sparse::SparseError>(&[1.0, 1.0, 1.0], 3, 1, &opts, apply, |r, z| z.copy_from_slice(r), dots)?;
/// assert!(r[0].converged);
/// for (xi, want) in x.iter().zip([1.0, 0.5, 1.0 / 3.0]) { assert!((xi - want).abs() < 1e-12); }
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
pub fn cg_columns_with<A, M, D, E>(
    b: &[f64],
    n: usize,
    c: usize,
    opts: &PcgOptions,
    apply: A,
    precondition: M,
    dots: D,
) -> std::result::Result<(Vec<f64>, Vec<PcgReport>), E>
where
    A: FnMut(&[f64], &mut [f64]) -> std::result::Result<(), E>,
    M: FnMut(&[f64], &mut [f64]),
    D: FnMut(&[(&[f64], &[f64])]) -> Vec<f64>,
    E: From<SparseError>,
{
    cg_loop(b, n, c, opts, apply, precondition, dots, |_, _| false)
}

/// [`cg_columns`] that may give up: after every iteration that leaves a column unconverged,
/// `give_up(iterations, reports)` is asked (the reports hold each column's relative residual of the
/// recurrence, or the true one where it was just checked); `true` ends the solve there and returns the
/// iterate with those reports (`converged = false` for the unconverged columns, whose `residual` is
/// then the recurrence's: no further product with `A` is spent on it). A caller with a cheaper
/// alternative uses it to stop when the convergence rate seen so far predicts too many iterations.
/// With a `give_up` that never says `true` it is [`cg_columns`], the same bytes.
///
/// ```
/// use kern_sparse::{PcgOptions, pcg::cg_columns_until};
/// // A = diag(1, …, 50): plain CG needs many iterations for 1e-12; give up after 5.
/// let apply = |v: &[f64], out: &mut [f64]| {
///     for (i, (o, x)) in out.iter_mut().zip(v).enumerate() { *o = (i + 1) as f64 * x; }
///     Ok(())
/// };
/// let opts = PcgOptions { tol: 1e-12, ..PcgOptions::default() };
/// let b = vec![1.0; 50];
/// let (_, r) = cg_columns_until::<_, _, _, kern_sparse::SparseError>(
///     &b, 50, &opts, apply, |r, z| z.copy_from_slice(r), |it, _| it >= 5)?;
/// assert_eq!((r[0].iterations, r[0].converged), (5, false));
/// assert!(r[0].residual > 1e-12 && r[0].residual < 1.0);
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
pub fn cg_columns_until<A, M, G, E>(
    b: &[f64],
    n: usize,
    opts: &PcgOptions,
    apply: A,
    precondition: M,
    give_up: G,
) -> std::result::Result<(Vec<f64>, Vec<PcgReport>), E>
where
    A: FnMut(&[f64], &mut [f64]) -> std::result::Result<(), E>,
    M: FnMut(&[f64], &mut [f64]),
    G: FnMut(usize, &[PcgReport]) -> bool,
    E: From<SparseError>,
{
    opts.validate()?;
    if n == 0 || !b.len().is_multiple_of(n) {
        return Err(SparseError::Dimension { what: "right-hand sides", expected: n, found: b.len() }.into());
    }
    if let Some(i) = b.iter().position(|v| !v.is_finite()) {
        return Err(
            SparseError::Param { name: "b", value: b[i], reason: "right-hand side must be finite" }.into()
        );
    }
    let mut partials = vec![0.0; n.div_ceil(DOT_CHUNK)];
    let dots = |pairs: &[(&[f64], &[f64])]| -> Vec<f64> {
        pairs.iter().map(|(u, v)| dot(u, v, &mut partials)).collect()
    };
    cg_loop(b, n, b.len() / n, opts, apply, precondition, dots, give_up)
}

/// The conjugate-gradient loop of [`cg_columns_with`] and [`cg_columns_until`].
#[allow(clippy::too_many_arguments)]
fn cg_loop<A, M, D, G, E>(
    b: &[f64],
    n: usize,
    c: usize,
    opts: &PcgOptions,
    mut apply: A,
    mut precondition: M,
    mut dots: D,
    mut give_up: G,
) -> std::result::Result<(Vec<f64>, Vec<PcgReport>), E>
where
    A: FnMut(&[f64], &mut [f64]) -> std::result::Result<(), E>,
    M: FnMut(&[f64], &mut [f64]),
    D: FnMut(&[(&[f64], &[f64])]) -> Vec<f64>,
    G: FnMut(usize, &[PcgReport]) -> bool,
    E: From<SparseError>,
{
    let opts = opts.validate()?;
    let tol = opts.tol;
    if b.len() != n * c {
        return Err(
            SparseError::Dimension { what: "right-hand sides", expected: n * c, found: b.len() }.into()
        );
    }
    let col = |j: usize| j * n..(j + 1) * n;
    let all: Vec<usize> = (0..c).collect();
    let bnorm: Vec<f64> = dots(&all.iter().map(|&j| (&b[col(j)], &b[col(j)])).collect::<Vec<_>>())
        .into_iter()
        .map(f64::sqrt)
        .collect();
    if let Some(&v) = bnorm.iter().find(|v| !v.is_finite()) {
        return Err(
            SparseError::Param { name: "b", value: v, reason: "right-hand side must be finite" }.into()
        );
    }
    let mut x = vec![0.0; n * c];
    let mut reports = vec![PcgReport { iterations: 0, residual: 0.0, converged: true }; c];
    let mut active: Vec<bool> = bnorm.iter().map(|&v| v > 0.0).collect();
    if !active.iter().any(|&a| a) {
        return Ok((x, reports));
    }
    let mut r = b.to_vec();
    let mut z = vec![0.0; n * c];
    let mut q = vec![0.0; n * c];
    precondition(&r, &mut z);
    let mut p = z.clone();
    let mut rz: Vec<f64> = dots(&all.iter().map(|&j| (&r[col(j)], &z[col(j)])).collect::<Vec<_>>());
    for j in (0..c).filter(|&j| !active[j]) {
        p[col(j)].fill(0.0);
    }
    let mut iterations = 0;
    while iterations < opts.max_iter && active.iter().any(|&a| a) {
        apply(&p, &mut q)?;
        iterations += 1;
        let live: Vec<usize> = (0..c).filter(|&j| active[j]).collect();
        let pq = dots(&live.iter().map(|&j| (&p[col(j)], &q[col(j)])).collect::<Vec<_>>());
        for (&j, &pq) in live.iter().zip(&pq) {
            if !(pq.is_finite() && pq > 0.0) {
                return Err(SparseError::Matrix(format!(
                    "conjugate gradients broke down at iteration {}: pᵀAp = {pq:e}; the operator is not \
                     positive definite",
                    iterations - 1
                ))
                .into());
            }
            let alpha = rz[j] / pq;
            axpy2(alpha, &p[col(j)], &mut x[col(j)], &q[col(j)], &mut r[col(j)]);
        }
        let rr = dots(&live.iter().map(|&j| (&r[col(j)], &r[col(j)])).collect::<Vec<_>>());
        let mut check = vec![false; c];
        for (&j, &rr) in live.iter().zip(&rr) {
            let res = rr.sqrt() / bnorm[j];
            reports[j] = PcgReport { iterations, residual: res, converged: false };
            check[j] = res <= tol;
        }
        let mut restart = vec![false; c];
        if check.iter().any(|&v| v) {
            // Residual replacement: trust only the true residual.
            apply(&x, &mut q)?;
            let checked: Vec<usize> = (0..c).filter(|&j| check[j]).collect();
            for (j, res) in true_residuals(&checked, b, &q, &mut r, n, bnorm.as_slice(), &mut dots) {
                reports[j].residual = res;
                if res <= tol {
                    reports[j].converged = true;
                    active[j] = false;
                    p[col(j)].fill(0.0);
                } else {
                    restart[j] = true;
                }
            }
        }
        if !active.iter().any(|&a| a) {
            break;
        }
        if give_up(iterations, &reports) {
            return Ok((x, reports));
        }
        precondition(&r, &mut z);
        let live: Vec<usize> = (0..c).filter(|&j| active[j]).collect();
        let rz_new = dots(&live.iter().map(|&j| (&r[col(j)], &z[col(j)])).collect::<Vec<_>>());
        for (&j, &rz_new) in live.iter().zip(&rz_new) {
            let beta = if restart[j] { 0.0 } else { rz_new / rz[j] };
            rz[j] = rz_new;
            p[col(j)].par_iter_mut().zip(z[col(j)].par_iter()).for_each(|(pi, &zi)| *pi = zi + beta * *pi);
        }
    }
    if active.iter().any(|&a| a) {
        // The true residual of the returned x (the recurrence's may have drifted).
        apply(&x, &mut q)?;
        let live: Vec<usize> = (0..c).filter(|&j| active[j]).collect();
        for (j, res) in true_residuals(&live, b, &q, &mut r, n, bnorm.as_slice(), &mut dots) {
            reports[j] = PcgReport { iterations, residual: res, converged: res <= tol };
        }
    }
    Ok((x, reports))
}

/// For each column `j` of `cols`: `r_j = b_j − q_j` and the relative residual `‖r_j‖ / ‖b_j‖` (one
/// call of `dots` for all of them).
fn true_residuals<D: FnMut(&[(&[f64], &[f64])]) -> Vec<f64>>(
    cols: &[usize],
    b: &[f64],
    q: &[f64],
    r: &mut [f64],
    n: usize,
    bnorm: &[f64],
    dots: &mut D,
) -> Vec<(usize, f64)> {
    let col = |j: usize| j * n..(j + 1) * n;
    for &j in cols {
        r[col(j)]
            .par_iter_mut()
            .zip(b[col(j)].par_iter())
            .zip(q[col(j)].par_iter())
            .for_each(|((ri, &bi), &qi)| *ri = bi - qi);
    }
    let rr = dots(&cols.iter().map(|&j| (&r[col(j)], &r[col(j)])).collect::<Vec<_>>());
    cols.iter().zip(rr).map(|(&j, rr)| (j, rr.sqrt() / bnorm[j])).collect()
}

/// Dense Cholesky factors of the consecutive `block × block` diagonal blocks of `b + sI`.
fn factor_blocks(b: &CscMatrix<f64>, shift: f64, block: usize) -> Result<Vec<Mat<f64>>> {
    let n = b.ncols();
    let starts: Vec<usize> = (0..n).step_by(block).collect();
    starts
        .into_par_iter()
        .map(|j0| {
            let j1 = (j0 + block).min(n);
            let m = j1 - j0;
            let mut l = Mat::<f64>::zeros(m, m);
            for j in j0..j1 {
                let col = b.col(j);
                for (&i, &v) in col.row_indices().iter().zip(col.values()) {
                    if (j0..j1).contains(&i) {
                        l[(i - j0, j - j0)] = v;
                    }
                }
                l[(j - j0, j - j0)] += shift;
            }
            let req = llt::factor::cholesky_in_place_scratch::<f64>(m, Par::Seq, Default::default());
            let mut mem = MemBuffer::try_new(req).map_err(|_| SparseError::Faer("out of memory".into()))?;
            llt::factor::cholesky_in_place(
                l.as_mut(),
                Default::default(),
                Par::Seq,
                MemStack::new(&mut mem),
                Default::default(),
            )
            .map_err(|e| {
                let llt::factor::LltError::NonPositivePivot { index } = e;
                SparseError::NotPositiveDefinite {
                    pivot: j0 + index,
                    step: j0 + index,
                    shift,
                    pivot_value: None,
                }
            })?;
            for j in 1..m {
                for i in 0..j {
                    l[(i, j)] = 0.0;
                }
            }
            Ok(l)
        })
        .collect()
}

/// `Σ u_i v_i`, deterministic: fixed chunks of [`DOT_CHUNK`], chunk sums added in order.
fn dot(u: &[f64], v: &[f64], partials: &mut [f64]) -> f64 {
    partials.par_iter_mut().enumerate().for_each(|(c, s)| {
        let lo = c * DOT_CHUNK;
        let hi = (lo + DOT_CHUNK).min(u.len());
        *s = u[lo..hi].iter().zip(&v[lo..hi]).map(|(a, b)| a * b).sum();
    });
    partials.iter().sum()
}

/// `x += α p`, `r −= α q`.
fn axpy2(alpha: f64, p: &[f64], x: &mut [f64], q: &[f64], r: &mut [f64]) {
    x.par_iter_mut().zip(p.par_iter()).for_each(|(xi, &pi)| *xi += alpha * pi);
    r.par_iter_mut().zip(q.par_iter()).for_each(|(ri, &qi)| *ri -= alpha * qi);
}
