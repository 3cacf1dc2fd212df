//! Nyström kernel ridge regression and LS-SVM by FALKON's preconditioned conjugate gradients.
//!
//! **Model** (Rudi et al. 2017, eq. 8): `f_t(x) = b_t + Σ_j α_jt k(x, c_j)` over the `m` centres. With
//! `K_nm = K(X, C)`, `K_mm = K(C, C)`, the shift `s = λ` of the exact models (the ridge penalty of
//! both kernel ridge and the LS-SVM, as in [`crate::krr`] and [`crate::lssvm`]) and `P = I − 11ᵀ/n` with a bias
//! (`P = I` without), `α` solves the normal equations
//!
//! ```text
//! H α = K_nmᵀ P y,    H = K_nmᵀ P K_nm + s K_mm                           (FALKON eq. 8, λ_F n = s)
//! b   = 1ᵀ(y − K_nm α) / n
//! ```
//!
//! the minimiser of `‖P(y − K_nm α)‖² + s αᵀK_mm α` (the bias eliminated). With `m = n` centres (all
//! the training points) `H = K(PK + sI)`, so `α` is exactly the kernel ridge solution `(K + sI)⁻¹y`,
//! resp. the LS-SVM's (`(PK + sI)α = Py` is eq. 14's system with `b` eliminated, and implies `1ᵀα = 0`).
//!
//! **Preconditioner** (Rudi et al. 2017, Sect. 3 and Algorithm 1): with `T` upper triangular,
//! `TᵀT = K_mm + εI` (the jitter of [`factor_kmm`](super::factor_kmm)) and `A` upper triangular,
//! `AᵀA = TTᵀ/m + (s/n) I`, the matrix `B = T⁻¹A⁻¹/√n` satisfies `BBᵀ = ((n/m) K_mm² + s K_mm)⁻¹`: the
//! inverse of `H` with `K_nmᵀK_nm` replaced by its Nyström estimate `(n/m) K_mm²`. Conjugate gradients
//! run on `BᵀHB β = BᵀK_nmᵀPy` (a well-conditioned system: typically 10–30 iterations), then `α = Bβ`;
//! the reported residual is that system's relative residual. [`NystromPreconditioner::None`] runs plain
//! CG on `H α = K_nmᵀPy` (for comparison: `H`'s condition number is `K_mm`'s squared).
//!
//! **Solve.** The same system can be solved two ways; both read `K_nm` in row blocks of kern-core's
//! cross Gram (a GEMM on the norms formulation for radial and dot-product kernels in `d > 8`).
//! - *Iterative*: conjugate gradients; each iteration is one pass `K_nmᵀ(K_nm U)`. When the `n × m`
//!   blocks fit in half the memory budget they are computed once and kept (no kernel value is computed
//!   twice); otherwise every pass recomputes them.
//! - *Direct*: one pass, beside the right-hand side, turns each block into FALKON's preconditioned
//!   features `Z_b = K_b R⁻ᵀ` (`R = L L_A`, so `K_b B = Z_b/√n`; one triangular solve per row, `m²`
//!   flops) and accumulates the lower triangle of `Σ Z_bᵀZ_b = n·BᵀK_nmᵀK_nmB` (`m(m+1)` flops per
//!   row); then `M = BᵀK_nmᵀPK_nmB + (s/n)L_A⁻¹L_A⁻ᵀ` — the matrix CG iterates with — is factored
//!   (Cholesky). Forming `K_nmᵀK_nm` first and applying `B` to it afterwards would be cheaper by half
//!   but is not stable: `B` amplifies that product's rounding by its condition number, and `M` came
//!   out indefinite on a test set (600 centres, σ = 0.2 in the unit square). Without the preconditioner
//!   the direct solve factors `H` itself. Memory `O(m²)`, never `n × m`.
//!
//! [`NystromSolve::Auto`] counts both ([`solve_flops`]) in flop-equivalents. One iteration that
//! recomputes `K_nm` costs `n·m·(2d + 150 + 4r)` (the kernel block's inner products, 150 for the norms
//! formula and the exponential — measured, see `PROFILE_FLOPS` —, two products with `r` columns); one
//! that reads kept blocks costs
//! `n·m·(4r + 64)` — the two products stream the kept values from memory, which
//! [`KEPT_READ_FLOPS`] = 64 prices against the arithmetic rate of the direct solve's matrix products
//! (measured; see the constant). The direct solve costs `n·m(2m + 1) + 13m³/3` beyond the pass both need
//! for the right-hand side. Blocks count as kept only when every part of the fit keeps them: each part
//! says whether its own blocks fit ([`RowPart::max`], one number), so the choice is the same on every
//! part. With `k* = ⌈direct / iteration⌉`: if `k* ≤` [`EXPECTED_ITERATIONS`] (64, the fewest
//! iterations FALKON's CG needed at tol 1e-6 on any of our sets: 64–152 measured) the direct solve is
//! taken at once; otherwise CG runs at most `k*` iterations and, not converged by then, the direct
//! solve finishes — so Auto never costs more than about twice the better of the two. From iteration
//! [`RATE_WARMUP`] (8) on, CG is also given up as soon as its average rate so far predicts more than
//! `k*` iterations in all, which brings that worst case down to about the direct solve plus a few
//! iterations when CG is slow. Without the preconditioner (`none`, kept for comparison) Auto is CG.
//!
//! **Agreement.** Both solve `Mβ = b` (`b = Bᵀ K_nmᵀPy`); CG stops at the true relative residual
//! `ρ_cg ≤ tol`, the direct solve reports its own `ρ_d` (rounding only). Then
//! `‖β_cg − β_d‖ ≤ (ρ_cg + ρ_d)‖b‖ / μ_min(M)`, and since `BᵀĤB = I` for `Ĥ = (BBᵀ)⁻¹ = (n/m)K̃² + sK̃`
//! (`K̃ = K_mm + εI`), `‖α_cg − α_d‖_Ĥ = ‖β_cg − β_d‖` and `μ_min(M)` is the smallest eigenvalue of the
//! pencil `(H, Ĥ)`, `‖b‖ = ‖K_nmᵀPy‖_{Ĥ⁻¹}` — all independent of how `B` is factored (the test
//! `direct_and_iterative_solves_agree_within_the_cg_bound` checks this bound).
//!
//! **Sums over rows.** Every sum over the training rows — the right-hand side `K_nmᵀ[Y, 1]`, `1ᵀY`,
//! each CG product `K_nmᵀ(K_nm U)` and the direct solve's `Σ_b Z_bᵀZ_b` — is a sum of one term per
//! fixed block of rows ([`RowPart::block`], counted from the first row of all parts), each term one
//! sequential computation on its block, added exactly ([`ExactSums`]): the model is the same bytes at
//! any thread count and for any split of the blocks over processes, kept blocks or recomputed ones.

use super::stream::{KnmBlocks, block_rows, expand};
use super::{Landmarks, factor_kmm, select_landmarks};
use crate::error::{ModelsError, Result};
use crate::exact_sum::ExactSums;
use crate::fvs::Strategy;
use crate::persist::Persist;
use crate::ridge::{Encoded, Task};
use crate::validate;
use faer::linalg::matmul::matmul;
use faer::linalg::matmul::triangular::{self, BlockStructure};
use faer::linalg::solvers::Solve;
use faer::linalg::triangular_solve::{solve_lower_triangular_in_place, solve_upper_triangular_in_place};
use faer::{Accum, Col, Mat, MatMut, MatRef, Par, Side};
use kern_core::{KernelSpec, Samples, Targets, memory, parallel::faer_par};
use kern_sparse::pcg::cg_columns_until;
use kern_sparse::{PcgOptions, PcgReport};
use serde::{Deserialize, Serialize};

/// The preconditioner of the conjugate-gradient solve (module docs).
///
/// ```
/// use kern_models::landmark::NystromPreconditioner;
/// assert_eq!("falkon".parse::<NystromPreconditioner>()?, NystromPreconditioner::Falkon);
/// assert_eq!(NystromPreconditioner::default(), NystromPreconditioner::Falkon);
/// assert!("jacobi".parse::<NystromPreconditioner>().is_err());
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum NystromPreconditioner {
    /// FALKON's `B = T⁻¹A⁻¹/√n` (the default).
    #[default]
    Falkon,
    /// Plain conjugate gradients on the normal equations.
    None,
}

impl NystromPreconditioner {
    /// `falkon` or `none`.
    ///
    /// ```
    /// assert_eq!(kern_models::landmark::NystromPreconditioner::None.name(), "none");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            NystromPreconditioner::Falkon => "falkon",
            NystromPreconditioner::None => "none",
        }
    }
}

impl std::str::FromStr for NystromPreconditioner {
    type Err = ModelsError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "falkon" => Ok(NystromPreconditioner::Falkon),
            "none" => Ok(NystromPreconditioner::None),
            _ => Err(ModelsError::Input(format!(
                "unknown preconditioner {s:?} for a landmark model; valid: falkon, none"
            ))),
        }
    }
}

/// How the normal equations are solved (module docs, "Solve").
///
/// ```
/// use kern_models::landmark::NystromSolve;
/// assert_eq!("direct".parse::<NystromSolve>()?, NystromSolve::Direct);
/// assert_eq!("iterative".parse::<NystromSolve>()?, NystromSolve::Iterative);
/// assert_eq!(NystromSolve::default().name(), "auto");
/// assert!("lu".parse::<NystromSolve>().is_err());
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum NystromSolve {
    /// The cheaper of the two by the flop counts of [`solve_flops`] (module docs).
    #[default]
    Auto,
    /// Conjugate gradients only.
    Iterative,
    /// Factor the `m × m` system once (one pass over the data).
    Direct,
}

impl NystromSolve {
    /// `auto`, `iterative` or `direct`.
    ///
    /// ```
    /// assert_eq!(kern_models::landmark::NystromSolve::Direct.name(), "direct");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            NystromSolve::Auto => "auto",
            NystromSolve::Iterative => "iterative",
            NystromSolve::Direct => "direct",
        }
    }
}

impl std::str::FromStr for NystromSolve {
    type Err = ModelsError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(NystromSolve::Auto),
            "iterative" | "cg" => Ok(NystromSolve::Iterative),
            "direct" => Ok(NystromSolve::Direct),
            _ => Err(ModelsError::Input(format!(
                "unknown solver {s:?} for a landmark model; valid: auto, direct, iterative"
            ))),
        }
    }
}

/// One process's part of the training rows when they are spread over processes (kern-dist), for
/// [`NystromRidgeParams::fit_part`].
///
/// Every sum over rows is a sum of per-block terms (blocks of `block` rows, counted from the first
/// row of all parts) added exactly ([`ExactSums`]), so the model does not depend on how the blocks
/// are spread over the parts — provided each part starts at a multiple of `block`.
///
/// ```
/// use kern_models::landmark::RowPart;
/// use kern_models::ridge::Task;
/// // A process that holds none of the 1,000 rows; `sum` and `max` would be an allreduce-sum and
/// // an allreduce-max over processes.
/// let part = RowPart { rows: None, n: 1000, task: Task::Regression, block: None, sum: &|_| {}, max: &|_| {} };
/// assert_eq!(part.n, 1000);
/// ```
pub struct RowPart<'a> {
    /// This part's rows and their targets (`None`: no rows on this part).
    pub rows: Option<(&'a Samples, &'a Targets)>,
    /// The number of rows over all parts.
    pub n: usize,
    /// The task of all the targets (class names agreed over all parts); the part's targets must
    /// encode to it.
    pub task: Task,
    /// Rows per block of the sums over rows (`None`: [`block_rows`] of the number of centres). The
    /// part's first row must be a multiple of it among all rows; the model depends on it (through
    /// the rounding of each block's term), not on the parts.
    pub block: Option<usize>,
    /// Adds a vector over all parts, in place, leaving the total on every part (an allreduce-sum;
    /// nothing to do for a single part).
    pub sum: &'a dyn Fn(&mut [f64]),
    /// The elementwise maximum over all parts, in place, on every part (an allreduce-max; nothing to
    /// do for a single part).
    pub max: &'a dyn Fn(&mut [u64]),
}

impl<'a> RowPart<'a> {
    /// All the rows `x` with targets `y` in one part (one process: nothing to add over parts).
    pub(crate) fn whole(x: &'a Samples, y: &'a Targets) -> Self {
        const NOTHING_TO_ADD: &dyn Fn(&mut [f64]) = &|_| {};
        const NOTHING_TO_MAX: &dyn Fn(&mut [u64]) = &|_| {};
        RowPart {
            rows: Some((x, y)),
            n: x.n(),
            task: Encoded::any(y).task,
            block: None,
            sum: NOTHING_TO_ADD,
            max: NOTHING_TO_MAX,
        }
    }

    /// This part's rows and their encoded targets (`None` without rows); an error when the targets
    /// are not one per row or do not encode to the task of all parts.
    pub(crate) fn local(&self) -> Result<Option<(&'a Samples, Encoded)>> {
        let Some((x, y)) = self.rows else { return Ok(None) };
        y.check_len(x.n())?;
        let enc = Encoded::any(y);
        if enc.task != self.task {
            return Err(ModelsError::Input(format!(
                "this part's targets ({:?}) do not match the task of all parts ({:?})",
                enc.task, self.task
            )));
        }
        Ok(Some((x, enc)))
    }
}

/// Parameters of a Nyström kernel ridge / LS-SVM fit.
///
/// ```
/// use kern_models::landmark::{Landmarks, NystromRidgeParams};
/// let p = NystromRidgeParams::lssvm("gaussian:sigma=1".parse()?, 0.1, Landmarks::Random { m: 50 }).seed(3);
/// assert!(p.bias && p.seed == 3);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct NystromRidgeParams {
    /// The kernel.
    pub kernel: KernelSpec,
    /// λ, the ridge penalty (`s = λ`) of kernel ridge and, with [`NystromRidgeParams::bias`], of the
    /// LS-SVM (whose `γ` of `K + I/γ` is `1/λ`).
    pub lambda: f64,
    /// LS-SVM (with an intercept) instead of kernel ridge.
    pub bias: bool,
    /// How the centres are chosen.
    pub landmarks: Landmarks,
    /// Seed of the random centres or of the FVS pool.
    pub seed: u64,
    /// FVS candidate scoring (for [`Landmarks::Fvs`]).
    pub fvs_strategy: Strategy,
    /// Stopping tolerance (relative residual) and iteration cap; the preconditioner field is unused.
    pub pcg: PcgOptions,
    /// The preconditioner.
    pub preconditioner: NystromPreconditioner,
    /// How the normal equations are solved.
    pub solve: NystromSolve,
}

impl NystromRidgeParams {
    /// Kernel ridge regression (`s = λ`, no intercept), tolerance `1e-6`, at most 1,000 iterations.
    pub fn krr(kernel: KernelSpec, lambda: f64, landmarks: Landmarks) -> Self {
        NystromRidgeParams {
            kernel,
            lambda,
            bias: false,
            landmarks,
            seed: 0,
            fvs_strategy: Strategy::Auto,
            pcg: PcgOptions { tol: 1e-6, max_iter: 1000, ..PcgOptions::default() },
            preconditioner: NystromPreconditioner::Falkon,
            solve: NystromSolve::Auto,
        }
    }

    /// The LS-SVM (`s = λ`, with an intercept); otherwise as [`NystromRidgeParams::krr`].
    pub fn lssvm(kernel: KernelSpec, lambda: f64, landmarks: Landmarks) -> Self {
        NystromRidgeParams { bias: true, ..Self::krr(kernel, lambda, landmarks) }
    }

    /// Sets the seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets the stopping tolerance and iteration cap.
    pub fn tol(mut self, tol: f64, max_iter: usize) -> Self {
        self.pcg.tol = tol;
        self.pcg.max_iter = max_iter;
        self
    }

    /// Sets the preconditioner.
    pub fn preconditioner(mut self, p: NystromPreconditioner) -> Self {
        self.preconditioner = p;
        self
    }

    /// Sets how the normal equations are solved.
    pub fn solve(mut self, solve: NystromSolve) -> Self {
        self.solve = solve;
        self
    }

    /// Sets the FVS strategy.
    pub fn fvs_strategy(mut self, s: Strategy) -> Self {
        self.fvs_strategy = s;
        self
    }

    /// The shift `s` of the normal equations.
    fn shift(&self) -> Result<f64> {
        let l = self.lambda;
        if !(l.is_finite() && l > 0.0) {
            return Err(ModelsError::Param { name: "lambda", value: l, reason: "must be finite and > 0" });
        }
        Ok(l)
    }

    /// Chooses the centres ([`select_landmarks`]) and fits.
    pub fn fit_targets(&self, x: &Samples, y: &Targets) -> Result<NystromRidge> {
        self.shift()?;
        self.pcg.validate()?;
        y.check_len(x.n())?;
        let idx = select_landmarks(&self.kernel, x, self.landmarks, self.seed, self.fvs_strategy)?;
        self.fit_with_centres(x, y, &idx)
    }

    /// Fits on the given centres (indices into `x`, distinct): e.g. all of them, to compare with the
    /// exact model.
    pub fn fit_with_centres(&self, x: &Samples, y: &Targets, centres: &[usize]) -> Result<NystromRidge> {
        y.check_len(x.n())?;
        if centres.is_empty() {
            return Err(ModelsError::Input("no centres".into()));
        }
        self.fit_part(&RowPart::whole(x, y), x.select(centres)?, centres)
    }

    /// Fits on one part of training rows spread over processes (the distributed fit of kern-dist; one
    /// part holding every row is [`NystromRidgeParams::fit_with_centres`]): `centres` are the centre
    /// samples and `indices` their indices among all the rows, the same on every part. Every sum over
    /// rows (the right-hand side, each product with `K_nm` — `m·r` numbers per CG iteration — and the
    /// direct solve's feature Gram, `m(m+1)/2` numbers once) is a sum of per-block terms over the
    /// part's rows, added exactly and completed over the parts by `part.max` and `part.sum`
    /// ([`ExactSums::finish`]: one integer and six numbers per sum); everything else, the choice of
    /// the solve included, is computed alike on every part. So every part returns the same model, and
    /// the same bytes for any split of the blocks over parts (one part included).
    ///
    /// ```
    /// use kern_core::{RealTargets, Samples, Targets};
    /// use kern_models::landmark::{Landmarks, NystromRidgeParams, RowPart};
    /// use kern_models::ridge::Task;
    /// let x = Samples::from_flat((0..80).map(|i| (i as f64 * 0.37).sin()).collect(), 40, 2)?;
    /// let y = Targets::Real(RealTargets::new(x.rows().map(|r| r[0] * r[1]).collect())?);
    /// let p = NystromRidgeParams::krr("gaussian:sigma=1".parse()?, 1e-3, Landmarks::Random { m: 8 });
    /// let idx = [3, 9, 14, 20, 27, 31, 35, 38];
    /// let part = RowPart { rows: Some((&x, &y)), n: 40, task: Task::Regression, block: None, sum: &|_| {}, max: &|_| {} };
    /// assert_eq!(p.fit_part(&part, x.select(&idx)?, &idx)?, p.fit_with_centres(&x, &y, &idx)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_part(&self, part: &RowPart<'_>, centres: Samples, indices: &[usize]) -> Result<NystromRidge> {
        self.fit_part_with(part, centres, indices, true)
    }

    /// [`NystromRidgeParams::fit_part`]; `keep` allows keeping the blocks of `K_nm` in memory (the
    /// tests compare both ways).
    pub(crate) fn fit_part_with(
        &self,
        part: &RowPart<'_>,
        centres: Samples,
        indices: &[usize],
        keep: bool,
    ) -> Result<NystromRidge> {
        let s = self.shift()?;
        let pcg = self.pcg.validate()?;
        let local = part.local()?;
        if centres.n() == 0 || centres.n() != indices.len() {
            return Err(ModelsError::Input(format!(
                "{} centres with {} indices: need at least one, with one index each",
                centres.n(),
                indices.len()
            )));
        }
        let (n, m) = (part.n, centres.n());
        let n_local = local.as_ref().map_or(0, |(x, _)| x.n());
        if n_local > n {
            return Err(ModelsError::Input(format!("a part of {n_local} rows among {n} in all")));
        }
        let r = part.task.outputs();
        let k = &self.kernel;
        let c = centres;
        let block = part.block.unwrap_or_else(|| block_rows(m)).max(1);
        // Whether this part could keep its blocks of K_nm (its own memory; a part without rows keeps
        // nothing and costs nothing), then whether every part can: one maximum over the parts, so
        // that the plan — global sizes and this agreed flag — is the same on every part.
        let can_keep = keep
            && self.solve != NystromSolve::Direct
            && local.as_ref().is_none_or(|(x, _)| KnmBlocks::fit_in_memory(x.n(), m, m + r + 1));
        let mut not_kept = [u64::from(!can_keep)];
        (part.max)(&mut not_kept);
        let kept_everywhere = not_kept[0] == 0;
        let plan =
            SolvePlan::choose(self.solve, self.preconditioner, n, m, c.d(), r, pcg.max_iter, kept_everywhere);
        let may_go_direct = !matches!(plan, SolvePlan::Cg { then_direct: false, .. });
        let width = if may_go_direct { m + r + 1 } else { r + 1 };
        let keep = can_keep && !matches!(plan, SolvePlan::Direct);
        // A part whose blocks cannot be set up (its memory check) keeps its error and fails the first
        // sum over rows on every part (`ExactSums::failed`), then reports it: no part waits for it.
        let (blocks, setup_error) = part_blocks(k, local.as_ref().map(|(x, _)| *x), &c, width, keep, block);
        let setup_error = std::cell::RefCell::new(setup_error);
        // Σ over the blocks of this part of their `m × width` terms written by `g` (the first `tri`
        // columns: lower triangles only), plus `extra` (further terms, one vector per block), added
        // exactly and completed over all parts (module docs, "Sums over rows").
        #[allow(clippy::type_complexity)]
        let sum_fold = |width: usize,
                        tri: usize,
                        g: &(dyn Fn(usize, MatRef<'_, f64>, MatMut<'_, f64>) + Sync),
                        extra: &[Vec<f64>]|
         -> Result<(Mat<f64>, Vec<f64>)> {
            let len = packed_len(m, width, tri);
            let e = extra.first().map_or(0, Vec::len);
            let mut v = sum_over_parts(part, len + e, setup_error.borrow_mut().take(), |acc| {
                if let Some(b) = &blocks {
                    let mut packed = Vec::with_capacity(len);
                    b.each(width, g, |_, p| {
                        pack_into(&mut packed, p, tri);
                        acc.add_at(0, &packed)
                    })?;
                }
                extra.iter().for_each(|t| acc.add_at(len, t));
                Ok(())
            })?;
            let tail = v.split_off(len);
            Ok((unpack(&v, m, width, tri), tail))
        };
        let (l, jitter) = factor_kmm(k, &c)?;
        let falkon = match self.preconditioner {
            NystromPreconditioner::Falkon => Some(Falkon::new(&l, s, n)?),
            NystromPreconditioner::None => None,
        };
        // 1ᵀY per block (each block's sums in row order); a part without rows still sends its (zero) share.
        let ysum_local: Vec<Vec<f64>> = match &local {
            Some((_, enc)) => block_column_sums(enc.y.as_ref(), block),
            None => Vec::new(),
        };
        let ysum_local = if ysum_local.is_empty() { vec![vec![0.0; r]] } else { ysum_local };
        // [Y, 1] of a block's rows.
        let targets = |i0: usize, h: usize| {
            let enc = &local.as_ref().expect("a block means rows").1;
            Mat::from_fn(h, r + 1, |i, t| if t < r { enc.y[(i0 + i, t)] } else { 1.0 })
        };
        // The lower triangle of Z_bᵀZ_b (FALKON's features) or K_bᵀK_b into `out`.
        let feature_gram = |kb: MatRef<'_, f64>, out: MatMut<'_, f64>| match &falkon {
            Some(f) => f.feature_gram(kb, out),
            None => lower_gram(kb, out),
        };
        // The feature Gram into the first m columns of `out`, K_bᵀ[Y_b, 1] after them.
        let gram_and_rhs = |i0: usize, kb: MatRef<'_, f64>, out: MatMut<'_, f64>| {
            let (gram, rest) = out.split_at_col_mut(m);
            feature_gram(kb, gram);
            matmul(rest, Accum::Replace, kb.transpose(), targets(i0, kb.nrows()).as_ref(), 1.0, Par::Seq);
        };
        let rhs_only = |i0: usize, kb: MatRef<'_, f64>, out: MatMut<'_, f64>| {
            matmul(out, Accum::Replace, kb.transpose(), targets(i0, kb.nrows()).as_ref(), 1.0, Par::Seq);
        };
        // One pass: K_nmᵀ [Y, 1], 1ᵀY, and with a direct plan the lower triangle of the feature Gram.
        let mut passes = 1usize;
        let (mut gram, g, ysum) = if matches!(plan, SolvePlan::Direct) {
            let (all, ysum) = sum_fold(m + r + 1, m, &gram_and_rhs, &ysum_local)?;
            (Some(all.subcols(0, m).to_owned()), all.subcols(m, r + 1).to_owned(), ysum)
        } else {
            let (g, ysum) = sum_fold(r + 1, 0, &rhs_only, &ysum_local)?;
            (None, g, ysum)
        };
        let svec = g.col(r).to_owned();
        let mut rhs = g.subcols(0, r).to_owned();
        if self.bias {
            for t in 0..r {
                for j in 0..m {
                    rhs[(j, t)] -= svec[j] * ysum[t] / n as f64;
                }
            }
        }
        // The CG attempt (unless the plan is direct); `None` when it must be finished directly.
        let mut done: Option<(Mat<f64>, Vec<PcgReport>)> = None;
        let mut cg_iterations = 0usize;
        if let SolvePlan::Cg { cap, then_direct } = plan {
            let opts = PcgOptions { max_iter: cap, ..pcg };
            // D U = K_nmᵀ P K_nm U (the data term of H; H = D + s(K_mm + εI) = D + s L Lᵀ).
            let mut d_apply = |u: MatRef<'_, f64>| -> Result<Mat<f64>> {
                passes += 1;
                let (mut out, _) = sum_fold(
                    u.ncols(),
                    0,
                    &|_, kb, out| {
                        let mut v = Mat::<f64>::zeros(kb.nrows(), u.ncols());
                        matmul(v.as_mut(), Accum::Replace, kb, u, 1.0, Par::Seq);
                        matmul(out, Accum::Replace, kb.transpose(), v.as_ref(), 1.0, Par::Seq);
                    },
                    &[],
                )?;
                if self.bias {
                    for t in 0..u.ncols() {
                        let su: f64 = (0..m).map(|j| svec[j] * u[(j, t)]).sum();
                        for j in 0..m {
                            out[(j, t)] -= svec[j] * su / n as f64;
                        }
                    }
                }
                Ok(out)
            };
            // Auto (`then_direct`) gives CG up as soon as its rate predicts more than `cap` iterations.
            let mut give_up = |it: usize, reps: &[PcgReport]| {
                then_direct && rate_predicts_more_than(cap, pcg.tol, it, reps)
            };
            let (alpha, reports) = cg_solve(&l, s, falkon.as_ref(), &rhs, &opts, &mut d_apply, &mut give_up)?;
            let converged = reports.iter().all(|rep| rep.converged);
            cg_iterations = reports.iter().map(|rep| rep.iterations).max().unwrap_or(0);
            if converged || !then_direct {
                done = Some((alpha, reports));
            }
        }
        let solve = if done.is_some() { NystromSolve::Iterative } else { NystromSolve::Direct };
        let (alpha, reports) = match done {
            Some(d) => d,
            None => {
                let gram = match gram.take() {
                    Some(gm) => gm,
                    None => {
                        passes += 1;
                        sum_fold(m, m, &|_, kb, out| feature_gram(kb, out), &[])?.0
                    }
                };
                let (alpha, mut reports) =
                    direct_solve(gram, &svec, self.bias, n, &l, s, falkon.as_ref(), &rhs, pcg.tol)?;
                for rep in &mut reports {
                    rep.iterations = cg_iterations;
                }
                (alpha, reports)
            }
        };
        let report = reports.iter().copied().reduce(PcgReport::worst).unwrap_or_default();
        let kept = blocks.as_ref().is_some_and(|b| b.is_kept());
        drop(blocks);
        let bias: Vec<f64> = (0..r)
            .map(|t| {
                if self.bias {
                    let sa: f64 = (0..m).map(|j| svec[j] * alpha[(j, t)]).sum();
                    (ysum[t] - sa) / n as f64
                } else {
                    0.0
                }
            })
            .collect();
        validate::trained(NystromRidge {
            kernel: k.clone(),
            centres: c,
            indices: indices.to_vec(),
            landmarks: self.landmarks,
            seed: self.seed,
            coef: flat(alpha.as_ref()),
            bias,
            with_bias: self.bias,
            lambda: self.lambda,
            task: part.task.clone(),
            preconditioner: self.preconditioner,
            report,
            passes,
            jitter,
            run: FitRun { solved: Some(solve), kept },
        })
    }
}

/// Flop-equivalents of one kernel value beyond its inner product (the norms formulation and the
/// kernel profile, an exponential), on the scale of the direct solve's matrix products: a fixed
/// number, so that every process of a distributed fit makes the same choice. Measured (preliminary,
/// loaded machine; `bench/auto_calibrate.py`): one recomputing iteration cost as much time
/// as `1/5.0` of the direct solve on HIGGS-like n = 50,000, m = 500, d = 28 (`n·m·206` of its flops,
/// i.e. 146 beyond `2d + 4r`) and `1/5.3` on green-red n = 50,000, m = 1,000, d = 2 (`n·m·397`: 389
/// beyond; below 9 features the kernel takes the pairwise-distance path, not a matrix product). The
/// smaller, 150, is taken for all `d` (an earlier model had 24; one run measured `n·m·299` at
/// d = 28). With it a fit whose blocks are recomputed solves directly at once up to about m = 4,900
/// centres (`k* ≤` [`EXPECTED_ITERATIONS`]), as every measurement says it should.
pub(crate) const PROFILE_FLOPS: f64 = 150.0;

/// Flop-equivalents of reading one kept kernel value in a conjugate-gradient iteration, beyond its
/// `4r` flops: the two products `K_b U`, `K_bᵀV` with few columns stream the kept `n × m` values from
/// memory (bandwidth-bound, a few flops per 8 bytes), where the direct solve's triangular solve and
/// Gram run at the arithmetic rate of matrix products. Measured (HIGGS-like, n = 100,000,
/// m = 1,000, r = 1): one kept iteration cost as much time as `1/31` of the direct solve, i.e.
/// `n·m·66` of its flops; `bench/auto_calibrate.py` (same loaded machine) measured
/// `n·m·40.5` (HIGGS-like n = 50,000, m = 500: `1/25.3`) and `n·m·33` (green-red n = 50,000, m = 1,000,
/// d = 2: `1/63`). Left at 64 (the measurements spread by 2×; a smaller value would make Auto try CG,
/// then give it up by its rate, more often). A fixed number, so that every process makes the same
/// choice (module docs, "Solve").
///
/// ```
/// use kern_models::landmark::{solve_flops, KEPT_READ_FLOPS};
/// // An iteration that reads kept blocks costs n·m·(4r + KEPT_READ_FLOPS), whatever the dimension.
/// for d in [2, 28, 500] {
///     assert_eq!(solve_flops(1000, 50, d, 2, true).0, 1000.0 * 50.0 * (8.0 + KEPT_READ_FLOPS));
/// }
/// ```
pub const KEPT_READ_FLOPS: f64 = 64.0;

/// The fewest conjugate-gradient iterations [`NystromSolve::Auto`] expects: when the direct solve costs
/// no more than this many iterations it is taken at once (module docs, "Solve").
///
/// Measured: FALKON's CG at tol 1e-6 on every set we ran needed more than this many iterations
/// (LS-SVM, `r = 1`, random centres; "> k" = not converged when stopped at `k`):
///
/// | data | n | m | d | iterations to 1e-6 |
/// |---|---|---|---|---|
/// | green-red, `gaussian:sigma=0.6`, λ = 1 | 200,000 | 1,000 | 2 | > 64 |
/// | green-red, `gaussian:sigma=0.6`, λ = 1 | 50,000 | 1,000 | 2 | > 66 |
/// | HIGGS-like, `gaussian:sigma=8.1`, λ = 1000 | 50,000 | 500 | 28 | 101–102 |
/// | HIGGS-like, `gaussian:sigma=8.1`, λ = 1000 | 200,000 | 2,000 | 28 | 152 |
///
/// So a direct solve that costs at most 64 iterations is never slower than CG on these sets. Above
/// that, CG runs and is given up as soon as its rate predicts more iterations than the direct solve
/// costs ([`RATE_WARMUP`]).
///
/// ```
/// use kern_models::landmark::{solve_flops, EXPECTED_ITERATIONS};
/// // Few centres: the direct solve costs fewer iterations than expected, so Auto takes it at once;
/// // many centres: it costs more, and CG runs first.
/// let k_star = |m| { let (it, direct) = solve_flops(100_000, m, 2, 1, false); (direct / it).ceil() as usize };
/// assert!(k_star(200) <= EXPECTED_ITERATIONS && k_star(20_000) > EXPECTED_ITERATIONS);
/// ```
pub const EXPECTED_ITERATIONS: usize = 64;

/// Conjugate-gradient iterations [`NystromSolve::Auto`] runs before it judges their rate: from then
/// on, after every iteration, the average rate `q = ρ_k^{1/k}` of the relative residual `ρ_k` predicts
/// `k·ln(tol)/ln(ρ_k)` iterations in all; when that exceeds the direct solve's cost in iterations
/// (`k*`, module docs "Solve") CG is given up and the direct solve finishes. A residual still at or
/// above 1 predicts no convergence. The prediction is not a bound (CG's residual need not fall at one
/// rate): a pessimistic one gives up a CG that would have converged before `k*` (cost: the iterations
/// run plus the direct solve), an optimistic one lets CG run on to `k*` at most (cost: at most about
/// twice the direct solve, the rule without the prediction). Every part of a distributed fit sees the
/// same residuals, so every part gives up at the same iteration.
///
/// ```
/// use kern_models::landmark::{EXPECTED_ITERATIONS, RATE_WARMUP};
/// assert!(RATE_WARMUP < EXPECTED_ITERATIONS);
/// ```
pub const RATE_WARMUP: usize = 8;

/// Whether CG after `iterations` iterations, with these reports, predicts more than `cap` iterations
/// to reach `tol` in some column ([`RATE_WARMUP`]); never before `RATE_WARMUP` iterations.
pub(crate) fn rate_predicts_more_than(
    cap: usize,
    tol: f64,
    iterations: usize,
    reports: &[PcgReport],
) -> bool {
    iterations >= RATE_WARMUP
        && reports
            .iter()
            .filter(|r| !r.converged)
            .any(|r| predicted_iterations(iterations, r.residual, tol) > cap as f64)
}

/// `k·ln(tol)/ln(ρ)`: the iterations at which the average rate of the first `k` reaches `tol`
/// (`∞` when `ρ ≥ 1` or is not a number).
pub(crate) fn predicted_iterations(k: usize, rho: f64, tol: f64) -> f64 {
    if rho <= tol {
        k as f64
    } else if rho < 1.0 {
        k as f64 * tol.ln() / rho.ln()
    } else {
        f64::INFINITY
    }
}

/// The costs [`NystromSolve::Auto`] compares, in flop-equivalents, for `n` rows, `m` centres, `d`
/// features and `r` outputs: `(one CG iteration, the direct solve)` (module docs, "Solve"). With
/// `kept` (the blocks of `K_nm` kept in memory on every part) an iteration reads them,
/// `n·m·(4r + KEPT_READ_FLOPS)`; otherwise it computes them again, `n·m·(2d + 150 + 4r)`.
///
/// ```
/// use kern_models::landmark::{solve_flops, KEPT_READ_FLOPS};
/// let (it, direct) = solve_flops(200_000, 2000, 28, 1, false);
/// assert_eq!(it, 200_000.0 * 2000.0 * (2.0 * 28.0 + 150.0 + 4.0));
/// assert!(direct / it > 19.0 && direct / it < 20.0);
/// let (kept, same) = solve_flops(200_000, 2000, 28, 1, true);
/// assert_eq!((kept, same), (200_000.0 * 2000.0 * (4.0 + KEPT_READ_FLOPS), direct));
/// ```
pub fn solve_flops(n: usize, m: usize, d: usize, r: usize, kept: bool) -> (f64, f64) {
    let (n, m, d, r) = (n as f64, m as f64, d as f64, r as f64);
    let per_value = if kept { KEPT_READ_FLOPS } else { 2.0 * d + PROFILE_FLOPS };
    let iteration = n * m * (per_value + 4.0 * r);
    let direct = n * m * (2.0 * m + 1.0) + 13.0 / 3.0 * m * m * m;
    (iteration, direct)
}

/// What a fit will do: the direct solve, or CG up to `cap` iterations and then (`then_direct`) the
/// direct solve if CG has not converged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SolvePlan {
    Direct,
    Cg { cap: usize, then_direct: bool },
}

impl SolvePlan {
    /// The plan of `solve` for these global sizes, `kept` when every part keeps its blocks.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn choose(
        solve: NystromSolve,
        pre: NystromPreconditioner,
        n: usize,
        m: usize,
        d: usize,
        r: usize,
        max_iter: usize,
        kept: bool,
    ) -> SolvePlan {
        let (it, direct) = solve_flops(n, m, d, r, kept);
        let break_even = (direct / it).ceil().max(1.0);
        match solve {
            NystromSolve::Direct => SolvePlan::Direct,
            NystromSolve::Iterative => SolvePlan::Cg { cap: max_iter, then_direct: false },
            NystromSolve::Auto if pre == NystromPreconditioner::None => {
                SolvePlan::Cg { cap: max_iter, then_direct: false }
            }
            NystromSolve::Auto if break_even <= EXPECTED_ITERATIONS as f64 => SolvePlan::Direct,
            NystromSolve::Auto => {
                let b = break_even as usize;
                SolvePlan::Cg { cap: b.min(max_iter), then_direct: b < max_iter }
            }
        }
    }
}

/// Columns of `R⁻ᵀ` per matrix product of [`Falkon::feature_gram`]: each panel of the features is one
/// dense product `K_b[:, ..a₁] · R⁻ᵀ[..a₁, a₀..a₁]`, whose zeros below the diagonal cost at most
/// `PANEL/m` of the triangular product's flops (6 % at `m = 2000`) and keep every product large.
const PANEL: usize = 128;

/// FALKON's preconditioner factors: `L` (`LLᵀ = K_mm + εI`), `L_A` (`L_A L_Aᵀ = LᵀL/m + (s/n)I`) and
/// the inverse of their product `R = L L_A` (lower triangular, `B = R⁻ᵀ/√n`), kept transposed:
/// `R⁻ᵀ`, upper triangular, computed once by solving `Rᵀ Y = I` (see [`Falkon::feature_gram`]).
pub(crate) struct Falkon<'a> {
    l: &'a Mat<f64>,
    la: Mat<f64>,
    rinv_t: Mat<f64>,
    scale: f64,
    pen: f64,
}

impl<'a> Falkon<'a> {
    pub(crate) fn new(l: &'a Mat<f64>, s: f64, n: usize) -> Result<Self> {
        let m = l.nrows();
        let mut ta = Mat::<f64>::zeros(m, m);
        matmul(ta.as_mut(), Accum::Replace, l.transpose(), l.as_ref(), 1.0 / m as f64, faer_par());
        for j in 0..m {
            ta[(j, j)] += s / n as f64;
        }
        let la = ta
            .llt(Side::Lower)
            .map_err(|e| {
                ModelsError::Numerical(format!(
                    "FALKON's preconditioner factor: {}",
                    kern_core::faer_errors::llt(e)
                ))
            })?
            .L()
            .to_owned();
        let mut r = Mat::<f64>::zeros(m, m);
        matmul(r.as_mut(), Accum::Replace, l.as_ref(), la.as_ref(), 1.0, faer_par());
        // R⁻ᵀ column by column: Rᵀ y_j = e_j by (blocked) back substitution. Each column is backward
        // stable, (Rᵀ + Δ_j) y_j = e_j with |Δ_j| ≤ γ_{m+2}|Rᵀ| (Higham 2002, Thm 8.5), so the rows of
        // W = Yᵀ ≈ R⁻¹ have the *left* residual |W R − I| ≤ γ_{m+2}|W||R| (Higham 2002, §14.2).
        let mut rinv_t = Mat::<f64>::identity(m, m);
        solve_upper_triangular_in_place(r.transpose(), rinv_t.as_mut(), faer_par());
        for j in 0..m {
            for i in j + 1..m {
                rinv_t[(i, j)] = 0.0;
            }
        }
        Ok(Falkon { l, la, rinv_t, scale: 1.0 / (n as f64).sqrt(), pen: s / n as f64 })
    }

    /// `v ← B v = L⁻ᵀ L_A⁻ᵀ v / √n`.
    fn b(&self, mut v: MatMut<'_, f64>) {
        solve_upper_triangular_in_place(self.la.transpose(), v.as_mut(), faer_par());
        solve_upper_triangular_in_place(self.l.transpose(), v.as_mut(), faer_par());
        scale_in_place(v, self.scale);
    }

    /// `w ← Bᵀ w = L_A⁻¹ L⁻¹ w / √n`.
    fn bt(&self, mut w: MatMut<'_, f64>) {
        solve_lower_triangular_in_place(self.l.as_ref(), w.as_mut(), faer_par());
        solve_lower_triangular_in_place(self.la.as_ref(), w.as_mut(), faer_par());
        scale_in_place(w, self.scale);
    }

    /// The lower triangle of `Z_bᵀZ_b` into `out` for the block's preconditioned features
    /// `Z_b = K_b R⁻ᵀ = √n K_b B`, then the Gram of the features: `Σ_b Z_bᵀZ_b = n BᵀK_nmᵀK_nmB`
    /// without forming `K_nmᵀK_nm`, whose rounding `B` would amplify by its condition number.
    ///
    /// Each row `z = R⁻¹k` of the features is computed as the product `W k` with the kept inverse
    /// `W = R⁻¹` (panels of [`PANEL`] columns, dense matrix products) instead of a triangular solve
    /// per row: the same flops, at the rate of the matrix product. It is as accurate as the solve:
    /// with the left residual of `W` ([`Falkon::new`]) and `k = Rz`,
    /// `|fl(Wk) − z| ≤ |WR − I||z| + γ_m|W||k| ≤ 2γ_{m+2}|W||R||z|`, the bound `γ_{m+2}|R⁻¹||R||z|` of
    /// the substitution up to the factor 2 (Higham 2002, §8.1 and §14.2); the test
    /// `inverse_features_agree_with_substitution_within_the_rounding_bound` checks it on
    /// ill-conditioned centres.
    pub(crate) fn feature_gram(&self, kb: MatRef<'_, f64>, out: MatMut<'_, f64>) {
        let z = self.features(kb);
        lower_gram(z.as_ref(), out);
    }

    /// `R = L L_A` (as [`Falkon::new`] forms it) and the kept `R⁻ᵀ`: the tests' reference.
    #[cfg(test)]
    pub(crate) fn r_and_inverse(&self) -> (Mat<f64>, &Mat<f64>) {
        let m = self.l.nrows();
        let mut r = Mat::<f64>::zeros(m, m);
        matmul(r.as_mut(), Accum::Replace, self.l.as_ref(), self.la.as_ref(), 1.0, faer_par());
        (r, &self.rinv_t)
    }

    /// The block's features `Z_b = K_b R⁻ᵀ` (`h × m`), panel by panel ([`Falkon::feature_gram`]).
    pub(crate) fn features(&self, kb: MatRef<'_, f64>) -> Mat<f64> {
        let (h, m) = (kb.nrows(), kb.ncols());
        let mut z = Mat::<f64>::zeros(h, m);
        let mut a0 = 0;
        while a0 < m {
            let a1 = (a0 + PANEL).min(m);
            matmul(
                z.as_mut().subcols_mut(a0, a1 - a0),
                Accum::Replace,
                kb.subcols(0, a1),
                self.rinv_t.as_ref().submatrix(0, a0, a1, a1 - a0),
                1.0,
                Par::Seq,
            );
            a0 = a1;
        }
        z
    }

    /// `(s/n) L_A⁻¹ L_A⁻ᵀ v`: the penalty term of `BᵀHB` in closed form (`TᵀT = K_mm + εI` cancels,
    /// which avoids amplifying its rounding by `T⁻¹`).
    fn penalty(&self, v: MatRef<'_, f64>) -> Mat<f64> {
        let mut p = v.to_owned();
        solve_upper_triangular_in_place(self.la.transpose(), p.as_mut(), faer_par());
        solve_lower_triangular_in_place(self.la.as_ref(), p.as_mut(), faer_par());
        p * self.pen
    }
}

/// Conjugate gradients on `H α = rhs` (plain) or `BᵀHB β = Bᵀrhs`, `α = Bβ` (FALKON), `d_apply`
/// applying the data term `D = K_nmᵀPK_nm` (one pass over the data).
fn cg_solve(
    l: &Mat<f64>,
    s: f64,
    falkon: Option<&Falkon<'_>>,
    rhs: &Mat<f64>,
    opts: &PcgOptions,
    d_apply: &mut dyn FnMut(MatRef<'_, f64>) -> Result<Mat<f64>>,
    give_up: &mut dyn FnMut(usize, &[PcgReport]) -> bool,
) -> Result<(Mat<f64>, Vec<PcgReport>)> {
    let (m, r) = (rhs.nrows(), rhs.ncols());
    let identity = |r: &[f64], z: &mut [f64]| z.copy_from_slice(r);
    match falkon {
        None => {
            let (a, reports) = cg_columns_until::<_, _, _, ModelsError>(
                flat(rhs.as_ref()).as_slice(),
                m,
                opts,
                |v, out| {
                    let u = MatRef::from_column_major_slice(v, m, r);
                    let mut hv = d_apply(u)?;
                    let mut lt_u = Mat::<f64>::zeros(m, r);
                    matmul(lt_u.as_mut(), Accum::Replace, l.transpose(), u, 1.0, faer_par());
                    matmul(hv.as_mut(), Accum::Add, l.as_ref(), lt_u.as_ref(), s, faer_par());
                    out.copy_from_slice(&flat(hv.as_ref()));
                    Ok(())
                },
                identity,
                &mut *give_up,
            )?;
            Ok((Mat::from_fn(m, r, |j, t| a[t * m + j]), reports))
        }
        Some(f) => {
            let mut brhs = rhs.clone();
            f.bt(brhs.as_mut());
            let (beta, reports) = cg_columns_until::<_, _, _, ModelsError>(
                flat(brhs.as_ref()).as_slice(),
                m,
                opts,
                |v, out| {
                    let v = MatRef::from_column_major_slice(v, m, r);
                    let mut u = v.to_owned();
                    f.b(u.as_mut());
                    let mut hv = d_apply(u.as_ref())?;
                    f.bt(hv.as_mut());
                    hv += f.penalty(v);
                    out.copy_from_slice(&flat(hv.as_ref()));
                    Ok(())
                },
                identity,
                &mut *give_up,
            )?;
            let mut a = Mat::from_fn(m, r, |j, t| beta[t * m + j]);
            f.b(a.as_mut());
            Ok((a, reports))
        }
    }
}

/// The lower triangle (with the diagonal) of `K_bᵀK_b` into `out` (`m × m`, zeroed): half the flops of
/// the full product.
pub(super) fn lower_gram(kb: MatRef<'_, f64>, out: MatMut<'_, f64>) {
    triangular::matmul(
        out,
        BlockStructure::TriangularLower,
        Accum::Replace,
        kb.transpose(),
        BlockStructure::Rectangular,
        kb,
        BlockStructure::Rectangular,
        1.0,
        Par::Seq,
    );
}

/// The direct solve (module docs, "Solve"): from the lower triangle of `g` — `Σ_b Z_bᵀZ_b = n BᵀGB`
/// with FALKON's `B` ([`Falkon::feature_gram`]), `G = K_nmᵀK_nm` without — forms the matrix conjugate
/// gradients would iterate with — `M = Bᵀ(G − ssᵀ/n)B + (s/n)L_A⁻¹L_A⁻ᵀ`, or `H = G − ssᵀ/n + s LLᵀ`
/// without the preconditioner — factors it (Cholesky) and solves; the reports carry each
/// column's true relative residual `‖b − Mβ‖/‖b‖` in that system, as CG's do.
#[allow(clippy::too_many_arguments)]
fn direct_solve(
    mut g: Mat<f64>,
    svec: &Col<f64>,
    bias: bool,
    n: usize,
    l: &Mat<f64>,
    s: f64,
    falkon: Option<&Falkon<'_>>,
    rhs: &Mat<f64>,
    tol: f64,
) -> Result<(Mat<f64>, Vec<PcgReport>)> {
    let (m, r) = (rhs.nrows(), rhs.ncols());
    for j in 0..m {
        for i in j + 1..m {
            g[(j, i)] = g[(i, j)];
        }
    }
    let (mut a, b) = match falkon {
        Some(f) => {
            // g = Σ Z_bᵀZ_b = n BᵀGB: M = g/n − (Bᵀs)(Bᵀs)ᵀ/n + (s/n)L_A⁻¹L_A⁻ᵀ.
            let mut w = g * (1.0 / n as f64);
            if bias {
                let mut bs = Mat::from_fn(m, 1, |j, _| svec[j]);
                f.bt(bs.as_mut());
                for j in 0..m {
                    for i in 0..m {
                        w[(i, j)] -= bs[(i, 0)] * bs[(j, 0)] / n as f64;
                    }
                }
            }
            w += f.penalty(Mat::<f64>::identity(m, m).as_ref());
            let mut b = rhs.clone();
            f.bt(b.as_mut());
            (w, b)
        }
        None => {
            if bias {
                for j in 0..m {
                    for i in 0..m {
                        g[(i, j)] -= svec[i] * svec[j] / n as f64;
                    }
                }
            }
            matmul(g.as_mut(), Accum::Add, l.as_ref(), l.transpose(), s, faer_par());
            (g, rhs.clone())
        }
    };
    for j in 0..m {
        for i in j + 1..m {
            let v = 0.5 * (a[(i, j)] + a[(j, i)]);
            a[(i, j)] = v;
            a[(j, i)] = v;
        }
    }
    let llt = a.llt(Side::Lower).map_err(|e| {
        ModelsError::Numerical(format!(
            "the landmark model's {m} × {m} normal equations are {}; \
             use the iterative solver",
            kern_core::faer_errors::llt(e)
        ))
    })?;
    let mut x = b.clone();
    llt.solve_in_place(x.as_mut());
    let mut res = b.clone();
    matmul(res.as_mut(), Accum::Add, a.as_ref(), x.as_ref(), -1.0, faer_par());
    let reports = (0..r)
        .map(|t| {
            let nb = b.col(t).norm_l2();
            let residual = if nb > 0.0 { res.col(t).norm_l2() / nb } else { 0.0 };
            PcgReport { iterations: 0, residual, converged: residual <= tol }
        })
        .collect();
    if let Some(f) = falkon {
        f.b(x.as_mut());
    }
    Ok((x, reports))
}

/// This part's blocks of `K(x, c)` for sums over rows ([`KnmBlocks::new`]; none without rows), or the
/// error setting them up met: the part keeps it for its first sum ([`sum_over_parts`]), which then
/// fails on every part instead of leaving the others waiting.
pub(super) fn part_blocks<'a>(
    k: &'a KernelSpec,
    x: Option<&'a Samples>,
    c: &'a Samples,
    width: usize,
    keep: bool,
    block: usize,
) -> (Option<KnmBlocks<'a>>, Option<ModelsError>) {
    match x.map(|x| KnmBlocks::new(k, x, c, width, keep, block)) {
        Some(Ok(b)) => (Some(b), None),
        Some(Err(e)) => (None, Some(e)),
        None => (None, None),
    }
}

/// This part's exact sums of `len` entries, which `fill` adds after the memory check, completed over
/// all parts (`part.max` and `part.sum`, [`ExactSums::finish`]). A local failure — `pending` (met
/// before, such as setting up the blocks), the memory check or `fill` — still takes part in the
/// collectives, which then fail on every part ([`ExactSums::failed`]), and is returned by this part.
pub(super) fn sum_over_parts(
    part: &RowPart<'_>,
    len: usize,
    pending: Option<ModelsError>,
    fill: impl FnOnce(&mut ExactSums) -> Result<()>,
) -> Result<Vec<f64>> {
    let local = || -> Result<ExactSums> {
        if let Some(err) = pending {
            return Err(err);
        }
        memory::check_bytes(
            ExactSums::bytes(len).map_or(u64::MAX, |b| b as u64),
            "the exact sums over the rows",
            "use fewer centres",
        )?;
        let mut acc = ExactSums::new(len);
        fill(&mut acc)?;
        Ok(acc)
    };
    let (acc, own_error) = match local() {
        Ok(acc) => (acc, None),
        Err(err) => (ExactSums::failed(len), Some(err)),
    };
    let v = acc.finish(part.max, part.sum);
    match own_error {
        Some(err) => Err(err),
        None => v,
    }
}

/// The sums of `y`'s columns over each block of `block` rows (each in row order): the per-block terms
/// of `1ᵀY`.
pub(super) fn block_column_sums(y: MatRef<'_, f64>, block: usize) -> Vec<Vec<f64>> {
    let n = y.nrows();
    (0..n)
        .step_by(block)
        .map(|i0| (0..y.ncols()).map(|t| (i0..(i0 + block).min(n)).map(|i| y[(i, t)]).sum()).collect())
        .collect()
}

/// The number of entries [`pack`] keeps of an `m × width` matrix: the lower triangles (with the
/// diagonal) of its first `tri ≤ m` columns, all of the others.
pub(super) fn packed_len(m: usize, width: usize, tri: usize) -> usize {
    (0..tri).map(|t| m - t).sum::<usize>() + (width - tri) * m
}

/// The entries of `a` column by column into `v` (cleared first; its room is reused), the first `tri`
/// columns from the diagonal down (the sums of lower triangles need no room for their upper parts,
/// which are never read: half the exact accumulators).
pub(super) fn pack_into(v: &mut Vec<f64>, a: MatRef<'_, f64>, tri: usize) {
    let m = a.nrows();
    v.clear();
    for t in 0..a.ncols() {
        let j0 = if t < tri { t } else { 0 };
        v.extend_from_slice(
            &a.col(t).try_as_col_major().expect("owned matrices are column-major").as_slice()[j0..m],
        );
    }
}

/// The `m × width` matrix of [`pack`]'s entries (zero above the diagonal of the first `tri` columns).
pub(super) fn unpack(v: &[f64], m: usize, width: usize, tri: usize) -> Mat<f64> {
    let mut a = Mat::<f64>::zeros(m, width);
    let mut k = 0;
    for t in 0..width {
        let j0 = if t < tri { t } else { 0 };
        for j in j0..m {
            a[(j, t)] = v[k];
            k += 1;
        }
    }
    a
}

/// `m × r` column-major entries of a matrix.
fn flat(a: MatRef<'_, f64>) -> Vec<f64> {
    (0..a.ncols()).flat_map(|t| (0..a.nrows()).map(move |j| a[(j, t)])).collect()
}

fn scale_in_place(mut v: MatMut<'_, f64>, s: f64) {
    for t in 0..v.ncols() {
        for j in 0..v.nrows() {
            v[(j, t)] *= s;
        }
    }
}

/// A trained Nyström kernel ridge or LS-SVM model: `f_t(x) = b_t + Σ_j α_jt k(x, c_j)` (module docs).
/// Stores the centres and coefficients only.
///
/// ```
/// use kern_core::{RealTargets, Samples, Targets};
/// use kern_models::landmark::{Landmarks, NystromRidge, NystromRidgeParams};
/// use kern_models::persist::{from_bytes, to_bytes};
/// let x = Samples::from_flat((0..60).map(|i| (i as f64 * 0.37).sin()).collect(), 30, 2)?;
/// let y = Targets::Real(RealTargets::new(x.rows().map(|r| r[0] + r[1]).collect())?);
/// let m = NystromRidgeParams::krr("gaussian:sigma=1".parse()?, 0.1, Landmarks::Random { m: 6 }).fit_targets(&x, &y)?;
/// assert_eq!(m.centres().n(), 6);
/// let back: NystromRidge = from_bytes(&to_bytes(&m)?, "<bytes>")?;
/// assert_eq!(back, m); // the whole model survives a save and load
/// assert_eq!(back.predict(&x)?, m.predict(&x)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NystromRidge {
    kernel: KernelSpec,
    centres: Samples,
    indices: Vec<usize>,
    landmarks: Landmarks,
    seed: u64,
    /// `m × r`, column-major.
    coef: Vec<f64>,
    bias: Vec<f64>,
    with_bias: bool,
    lambda: f64,
    task: Task,
    preconditioner: NystromPreconditioner,
    report: PcgReport,
    passes: usize,
    jitter: f64,
    /// Facts of the fit run (not saved, not compared).
    #[serde(skip)]
    run: FitRun,
}

/// How a fit ran: which solve finished it and whether `K_nm` was kept in memory. Not part of the
/// model: not saved (a loaded model has the default, `None`/false) and equal to any other, so models
/// compare by what they predict with.
#[derive(Clone, Copy, Debug, Default)]
struct FitRun {
    solved: Option<NystromSolve>,
    kept: bool,
}

impl PartialEq for FitRun {
    fn eq(&self, _: &FitRun) -> bool {
        true
    }
}

impl Persist for NystromRidge {
    const KIND: &'static str = "nystrom";
    fn validate(&self) -> std::result::Result<(), String> {
        validate::kernel(&self.kernel, self.centres.d())?;
        match &self.task {
            Task::Binary { names } => validate::names(names)?,
            Task::Classes { names } => validate::names(names)?,
            Task::Regression => {}
        }
        let (m, r) = (self.centres.n(), self.task.outputs());
        validate::len("bias", self.bias.len(), r)?;
        validate::len(
            "coefficients",
            self.coef.len(),
            m.checked_mul(r).ok_or("coefficient size overflows")?,
        )?;
        validate::len("centre indices", self.indices.len(), m)?;
        validate::finite("coefficients", &self.coef)?;
        validate::finite("bias", &self.bias)?;
        validate::finite("lambda", &[self.lambda])?;
        if !self.with_bias && self.bias.iter().any(|&b| b != 0.0) {
            return Err("a kernel ridge model has no intercept, but this payload has one".into());
        }
        if m == 0 {
            return Err("no centres".into());
        }
        Ok(())
    }
}

impl NystromRidge {
    /// The kernel.
    pub fn kernel(&self) -> &KernelSpec {
        &self.kernel
    }
    /// The `m` centres.
    pub fn centres(&self) -> &Samples {
        &self.centres
    }
    /// Indices of the centres among the training samples.
    pub fn centre_indices(&self) -> &[usize] {
        &self.indices
    }
    /// How the centres were chosen.
    pub fn landmarks(&self) -> Landmarks {
        self.landmarks
    }
    /// The seed of the centre choice.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// λ.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }
    /// Whether the model has intercepts (LS-SVM).
    pub fn has_bias(&self) -> bool {
        self.with_bias
    }
    /// The task (binary, classes, regression).
    pub fn task(&self) -> &Task {
        &self.task
    }
    /// Number of outputs `r`.
    pub fn outputs(&self) -> usize {
        self.bias.len()
    }
    /// Coefficients `α_·t` of output `t` (one per centre).
    pub fn coef(&self, t: usize) -> &[f64] {
        let m = self.centres.n();
        &self.coef[t * m..(t + 1) * m]
    }
    /// Intercept of output `t` (0 for kernel ridge).
    pub fn bias(&self, t: usize) -> f64 {
        self.bias[t]
    }
    /// The preconditioner used.
    pub fn preconditioner(&self) -> NystromPreconditioner {
        self.preconditioner
    }
    /// The conjugate-gradient report (the worst over the outputs).
    pub fn report(&self) -> PcgReport {
        self.report
    }
    /// Passes over `K_nm` (one per iteration, one per residual check, one for the right-hand side).
    pub fn passes(&self) -> usize {
        self.passes
    }
    /// The jitter `ε` added to `K_mm`'s diagonal.
    pub fn jitter(&self) -> f64 {
        self.jitter
    }
    /// How the fit solved the normal equations ([`NystromSolve::Iterative`] or
    /// [`NystromSolve::Direct`]); `None` for a model loaded from a file (not saved).
    pub fn solved(&self) -> Option<NystromSolve> {
        self.run.solved
    }
    /// Whether the fit kept the kernel matrix against the centres in memory (false for a loaded model).
    pub fn kept_kernel_matrix(&self) -> bool {
        self.run.kept
    }

    /// Decision values (`n × r`).
    pub fn decision_function(&self, x: &Samples) -> Result<Mat<f64>> {
        let (m, r) = (self.centres.n(), self.outputs());
        let coef = MatRef::from_column_major_slice(&self.coef, m, r);
        let mut f = expand(&self.kernel, x, &self.centres, coef)?;
        for t in 0..r {
            for i in 0..x.n() {
                f[(i, t)] += self.bias[t];
            }
        }
        crate::finite_output::mat(f.as_ref(), "decision values")?;
        Ok(f)
    }

    /// Predictions: ±1 (binary), class index, or value (regression).
    pub fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        Ok(self.task.decode(self.decision_function(x)?.as_ref()))
    }
}

impl crate::widen::WidenFeatures for NystromRidge {
    fn n_features(&self) -> usize {
        self.centres.d()
    }
    fn widen_features(&mut self, d: usize) -> Result<()> {
        crate::widen::widen_store(&mut self.centres, d)
    }
}
