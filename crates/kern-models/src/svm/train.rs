//! Training of one binary dual problem: kernel dispatch, the Gram precomputation policy and the solver.

use super::params::SolverParams;
use super::plan::{self, Columns, Order, Plan, Start};
use super::solver::{Solution, Solver, SolverOptions};
use kern_core::{Kernel, KernelSpec, KernelVisitor, Samples};
use kern_sparse::kmatrix::{
    self, GramMatrix, LRU_BYTES_PER_SAMPLE, Precomputed, SignedColumns, SparseOnDemand,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Figures of one trained binary machine (one per pair in one-vs-one, one per class in one-vs-rest).
///
/// ```
/// use kern_models::svm::{SvcParams, MachineStats};
/// use kern_core::{Samples, BinaryTargets, learner::Fit};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.0]])?;
/// let y = BinaryTargets::from_f64(&[-1.0, -1.0, 1.0, 1.0])?;
/// let m = SvcParams::new("linear".parse()?).fit(&x, &y)?;
/// let s: &MachineStats = &m.stats()[0];
/// assert!(s.violation < 1e-3 && !s.hit_cap && s.n_sv >= 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineStats {
    /// Samples in the problem.
    pub n: usize,
    /// Support vectors (`α > 0`).
    pub n_sv: usize,
    /// Support vectors at their upper bound.
    pub n_bounded: usize,
    /// Final dual objective `½ αᵀQα + pᵀα` (LIBSVM's `obj`, a minimization).
    pub objective: f64,
    /// `ρ`: decision value is `Σ coef·k − ρ`.
    pub rho: f64,
    /// SMO iterations (with those of the sub-problem that seeded a large problem's start).
    pub iterations: u64,
    /// Maximal KKT violation at exit.
    pub violation: f64,
    /// True when the iteration cap stopped the solver before the tolerance.
    pub hit_cap: bool,
    /// The path the machine's solve took ([`super::plan`]).
    pub plan: Plan,
}

impl MachineStats {
    /// A warning when the iteration cap was reached.
    pub fn warning(&self) -> Option<String> {
        self.hit_cap.then(|| {
            format!(
                "SMO reached the iteration cap ({} iterations) with KKT violation {:.3e}; the solution is \
                 approximate (raise max_iter or the tolerance)",
                self.iterations, self.violation
            )
        })
    }
}

/// A solved binary problem.
pub(crate) struct BinaryFit {
    pub(crate) alpha: Vec<f64>,
    pub(crate) stats: MachineStats,
}

/// The dual problem handed to [`solve`]: samples with signs `s`, linear term `p`, bounds `c`.
pub(crate) struct Dual<'a> {
    pub(crate) x: &'a Samples,
    /// Sample index of each variable.
    pub(crate) sample: Vec<usize>,
    pub(crate) sign: Vec<f64>,
    pub(crate) p: Vec<f64>,
    pub(crate) c: Vec<f64>,
    pub(crate) pre: Option<Precomputed>,
    /// The plan's source part ([`plan`]'s order, start, columns and machine threading).
    pub(crate) plan: Plan,
}

struct SolveVisitor<'a> {
    dual: Dual<'a>,
    alpha: Option<Vec<f64>>,
    opts: SolverOptions,
}

impl KernelVisitor for SolveVisitor<'_> {
    type Output = Solution;
    fn visit<K: Kernel>(self, k: &K) -> Solution {
        let Dual { x, sample, sign, p, c, pre, .. } = self.dual;
        let l = sign.len();
        let y = sign.clone();
        let q = SignedColumns::new(k, x, sample, sign, pre);
        Solver::solve(q, p, y, c, self.alpha.unwrap_or_else(|| vec![0.0; l]), self.opts)
    }
}

/// Solves a dual from the feasible start `alpha` (`None`: zero), by the ν variant of the solver when
/// `nu` (see `solver::nu`), with `cache_bytes` left for the solver's columns; the solver completes
/// and follows the dual's plan ([`plan::solve`]).
pub(crate) fn solve_from(
    kernel: &KernelSpec,
    dual: Dual<'_>,
    alpha: Option<Vec<f64>>,
    nu: bool,
    solver: &SolverParams,
    cache_bytes: usize,
) -> Solution {
    let mut source = dual.plan;
    if alpha.is_some() && source.start == Start::Zero {
        source.start = Start::Given;
    }
    let opts = SolverOptions {
        eps: solver.tol,
        shrinking: solver.shrinking,
        cache_bytes,
        max_iter: solver.max_iter,
        nu,
        report: true,
        plan: source,
        tuning: solver.tuning,
    };
    kernel.visit(SolveVisitor { dual, alpha, opts })
}

/// The plan's source part for a problem whose columns are `pre` (as [`precompute`] built it, or a
/// caller's shared matrix: `shared`), in `order`, a machine of `machines`.
pub(crate) fn source_plan(
    pre: Option<&Precomputed>,
    shared: bool,
    user: bool,
    order: Order,
    machines: usize,
) -> Plan {
    let columns = match pre {
        _ if user => Columns::UserMatrix,
        None => Columns::OnDemand,
        Some(Precomputed::Dense(_)) if shared => Columns::ClassBlocks,
        Some(Precomputed::Dense(_)) => Columns::Precomputed,
        Some(Precomputed::Sparse(_)) => Columns::SparseKc,
        Some(Precomputed::OnDemand { .. }) => Columns::SparseOnDemand,
    };
    Plan { order, columns, threading: plan::machine_threading(machines), ..Plan::default() }
}

/// The dense Gram matrix of `x`, monomorphized through the kernel visitor.
pub(crate) fn dense_gram(kernel: &KernelSpec, x: &Samples) -> crate::Result<Arc<faer::Mat<f64>>> {
    Ok(Arc::new(kernel_gram(kernel, x, false)?.into_dense()))
}

/// `K(X, X)` from the kernel-matrix layer: dense, or sparse `K_C` for a compactly supported kernel.
fn kernel_gram(kernel: &KernelSpec, x: &Samples, sparse: bool) -> crate::Result<GramMatrix> {
    struct V<'a>(&'a Samples, bool);
    impl KernelVisitor for V<'_> {
        type Output = kern_sparse::Result<GramMatrix>;
        fn visit<K: Kernel>(self, k: &K) -> Self::Output {
            if self.1 { GramMatrix::sparse(k, self.0) } else { GramMatrix::dense(k, self.0) }
        }
    }
    kernel.visit(V(x, sparse)).map_err(|e| crate::ModelsError::Numerical(format!("Gram matrix: {e}")))
}

/// The cross Gram matrix `K(Y, X)`, monomorphized.
pub(crate) fn cross(kernel: &KernelSpec, y: &Samples, x: &Samples) -> crate::Result<faer::Mat<f64>> {
    struct V<'a>(&'a Samples, &'a Samples);
    impl KernelVisitor for V<'_> {
        type Output = kern_sparse::Result<faer::Mat<f64>>;
        fn visit<K: Kernel>(self, k: &K) -> Self::Output {
            kmatrix::cross_gram(k, self.0, self.1)
        }
    }
    kernel.visit(V(y, x)).map_err(|e| crate::ModelsError::Numerical(format!("cross Gram matrix: {e}")))
}

/// Bytes of solver state per training sample when the columns are computed on demand: the solver's
/// vectors (about 12 doubles per variable, the two selection trees and the position maps), counted
/// for the two variables per sample of ε-SVR.
pub(crate) const ON_DEMAND_BYTES_PER_SAMPLE: u64 = 2 * 192;

/// The source of a compactly supported kernel's columns on `x`: the precomputed sparse `K_C` when it
/// fits ([`plan::kc_on_demand`]), else its columns computed on demand through the same neighbour index, with
/// values bit-identical to the precomputed matrix's (so the same iterates and model), recent columns
/// held in a cache of the remaining column budget (`cache_bytes` less the index). When even that
/// cannot run (the cache's bookkeeping and the solver's state do not fit in the memory left), the
/// problem is refused with what it needs.
pub(crate) fn compact_source(
    kernel: &KernelSpec,
    x: &Samples,
    cache_bytes: usize,
    tuning: &plan::Tuning,
) -> crate::Result<Precomputed> {
    struct V<'a>(&'a Samples, usize, &'a plan::Tuning);
    impl KernelVisitor for V<'_> {
        type Output = crate::Result<Precomputed>;
        fn visit<K: Kernel>(self, k: &K) -> Self::Output {
            let (x, cache_bytes) = (self.0, self.1);
            let gram_err = |e| crate::ModelsError::Numerical(format!("Gram matrix: {e}"));
            let od = SparseOnDemand::new(k, x).map_err(gram_err)?;
            let budget = kern_core::memory::budget().bytes;
            let on_demand = plan::kc_on_demand(od.predicted_gram_bytes(), budget, self.2);
            if !on_demand {
                return Ok(Precomputed::Sparse(Arc::new(od.gram(k).map_err(gram_err)?)));
            }
            check_on_demand(x.n(), od.predicted_gram_bytes(), kern_core::memory::budget())?;
            let cache_bytes = cache_bytes.saturating_sub(od.bytes());
            Ok(Precomputed::OnDemand { kc: Arc::new(od), cache_bytes })
        }
    }
    kernel.visit(V(x, cache_bytes, tuning))
}

/// Refuses columns on demand for `n` samples when the cache's bookkeeping and the solver's state
/// ([`LRU_BYTES_PER_SAMPLE`] + [`ON_DEMAND_BYTES_PER_SAMPLE`] per sample) do not fit in `budget`: the
/// error says what that needs, what the precomputed `K_C` would have needed, and how many samples
/// would fit.
pub(crate) fn check_on_demand(
    n: usize,
    gram_bytes: u64,
    budget: kern_core::memory::Budget,
) -> crate::Result<()> {
    let per = LRU_BYTES_PER_SAMPLE as u64 + ON_DEMAND_BYTES_PER_SAMPLE;
    let needed = (n as u64).saturating_mul(per);
    match budget.bytes {
        Some(available) if needed > available => Err(kern_core::CoreError::Memory {
            what: format!(
                "training on {n} samples with the kernel columns computed on demand (the precomputed \
                 sparse kernel matrix would need {})",
                kern_core::memory::human(gram_bytes)
            ),
            needed,
            available,
            source_name: budget.source,
            instead: format!("train on a subsample of at most {} samples", available / per),
        }
        .into()),
        _ => Ok(()),
    }
}

/// The order in which an SVM problem on `x` (C-SVC, ν-SVC, ε-SVR, ν-SVR, one-class) is solved, as
/// indices of `x`, when it is not the data's own: for a compactly supported kernel on at least
/// [`plan::Tuning::spatial_min_n`] samples ([`plan::cells_order`]), the order
/// of the cells of the neighbour grid ([`kern_sparse::neighbors::cell_order`]), so that the
/// neighbours of every variable (the entries of its column of `K_C`) sit in a few runs of
/// consecutive positions. The dual is the same problem in any order; only ties in the working-set
/// selection (which go to the last position) can make the iterates differ. `None` for other kernels,
/// smaller problems, and data the grid does not index (sparse stores, `d > GRID_MAX_DIM`).
pub(crate) fn spatial_order(kernel: &KernelSpec, x: &Samples, tuning: &plan::Tuning) -> Option<Vec<usize>> {
    let radius = kernel.support_radius()?;
    if !plan::cells_order(x.n(), tuning) {
        return None;
    }
    kern_sparse::neighbors::cell_order(x, radius)
}

/// A problem on the samples of `x` moved into the cells' order ([`spatial_order`]): the samples in
/// that order, and the map of per-variable vectors there ([`CellOrder::permute`]) and back
/// ([`CellOrder::unpermute`]). Every problem solved in the cells' order (C-SVC and ν-SVC in
/// `svc.rs`, the duals of [`solve_samples`]) goes through it.
pub(crate) struct CellOrder {
    /// `order[t]`: the data index of the sample at position `t`.
    order: Vec<usize>,
    /// The samples in the cells' order.
    pub(crate) x: Samples,
}

impl CellOrder {
    /// The cells' order of a problem on `x` ([`spatial_order`]) with the samples in it; `None` where
    /// the problem stays in the data's order.
    pub(crate) fn of(kernel: &KernelSpec, x: &Samples, tuning: &plan::Tuning) -> crate::Result<Option<Self>> {
        match spatial_order(kernel, x, tuning) {
            Some(order) => Ok(Some(CellOrder { x: x.select(&order)?, order })),
            None => Ok(None),
        }
    }

    /// `v` in the cells' order. `v` holds one entry per sample, or several blocks of one entry per
    /// sample (the `(α, α*)` of regression), each block permuted alike.
    pub(crate) fn permute<T: Copy>(&self, v: &[T]) -> Vec<T> {
        let n = self.order.len();
        debug_assert_eq!(v.len() % n, 0, "one entry per sample, in whole blocks");
        v.chunks(n).flat_map(|b| self.order.iter().map(move |&i| b[i])).collect()
    }

    /// `v` in the data's order from `v` in the cells' order (the inverse of [`Self::permute`]).
    pub(crate) fn unpermute<T: Copy + Default>(&self, v: &[T]) -> Vec<T> {
        let n = self.order.len();
        debug_assert_eq!(v.len() % n, 0, "one entry per sample, in whole blocks");
        let mut out = vec![T::default(); v.len()];
        for (o, b) in out.chunks_mut(n).zip(v.chunks(n)) {
            for (&i, &a) in self.order.iter().zip(b) {
                o[i] = a;
            }
        }
        out
    }
}

/// A dual over the samples of a problem, given in the data's order: variable `t` is sample `t mod n`
/// (one variable per sample — one-class —, or the `2n` variables `(α, α*)` of regression), with its
/// sign, linear term, bound and (`Some`) feasible start.
pub(crate) struct SampleDual {
    pub(crate) sign: Vec<f64>,
    pub(crate) p: Vec<f64>,
    pub(crate) c: Vec<f64>,
    pub(crate) alpha: Option<Vec<f64>>,
    /// The ν variant of the solver (see `solver::nu`).
    pub(crate) nu: bool,
}

/// Solves `dual` over the samples of `x` (or the serial numbers of a user's kernel matrix, `user`)
/// with the kernel matrix of [`precompute`]; for a compactly supported kernel's large problem in the
/// cells' order ([`CellOrder`]; never with a user's matrix), `α` mapped back to the data's order.
/// The start is permuted with the rest, so on data already in the cells' order both orders give
/// the same iterates.
pub(crate) fn solve_samples(
    kernel: &KernelSpec,
    x: &Samples,
    dual: SampleDual,
    solver: &SolverParams,
    user: Option<&super::KernelMatrix>,
) -> crate::Result<Solution> {
    let cells = if user.is_none() { CellOrder::of(kernel, x, &solver.tuning)? } else { None };
    let xs = cells.as_ref().map_or(x, |o| &o.x);
    let mut budget = solver.cache_bytes();
    let pre = precompute(kernel, xs, budget, user, &solver.tuning)?;
    if let Some(g) = &pre {
        budget = budget.saturating_sub(g.bytes());
    }
    let order = if cells.is_some() { Order::Cells } else { Order::Data };
    let source = source_plan(pre.as_ref(), false, user.is_some(), order, 1);
    let n = x.n();
    let SampleDual { sign, p, c, alpha, nu } = dual;
    let sample = (0..sign.len()).map(|t| t % n).collect();
    let to = |v: Vec<f64>| match &cells {
        Some(o) => o.permute(&v),
        None => v,
    };
    let dual = Dual { x: xs, sample, sign: to(sign), p: to(p), c: to(c), pre, plan: source };
    let mut sol = solve_from(kernel, dual, alpha.map(to), nu, solver, budget);
    if let Some(o) = &cells {
        sol.alpha = o.unpermute(&sol.alpha);
    }
    Ok(sol)
}

/// The sparse Gram matrix of a compactly supported kernel (kern-sparse's neighbour index).
#[cfg(test)]
pub(crate) fn sparse_gram(
    kernel: &KernelSpec,
    x: &Samples,
) -> crate::Result<Arc<nalgebra_sparse::CscMatrix<f64>>> {
    match kernel_gram(kernel, x, true)? {
        GramMatrix::Sparse(m) => Ok(Arc::new(m)),
        GramMatrix::Dense(_) => unreachable!("a sparse Gram was asked for"),
    }
}

/// The kernel matrix of a problem on `x` as [`plan::columns`] chooses it: the user's matrix restricted
/// to `x`'s serial numbers (`user`), a compactly supported kernel's sparse `K_C` or its columns on
/// demand ([`compact_source`]), the dense Gram, or nothing (columns on demand).
pub(crate) fn precompute(
    kernel: &KernelSpec,
    x: &Samples,
    cache_bytes: usize,
    user: Option<&super::KernelMatrix>,
    tuning: &plan::Tuning,
) -> crate::Result<Option<Precomputed>> {
    match plan::columns(kernel, x, x.n(), cache_bytes, user.is_some(), tuning) {
        Columns::OnDemand => Ok(None),
        Columns::UserMatrix => Ok(user.map(|k| k.restrict(x))),
        Columns::SparseKc | Columns::SparseOnDemand => {
            compact_source(kernel, x, cache_bytes, tuning).map(Some)
        }
        Columns::Precomputed | Columns::ClassBlocks => Ok(Some(Precomputed::Dense(dense_gram(kernel, x)?))),
    }
}

/// The samples of a binary problem: variable `p` is sample `sample[p]` of `x`.
pub(crate) struct Rows<'a> {
    pub(crate) x: &'a Samples,
    pub(crate) sample: Vec<usize>,
}

impl<'a> Rows<'a> {
    /// Every sample of `x`, in order.
    pub(crate) fn all(x: &'a Samples) -> Self {
        Rows { x, sample: (0..x.n()).collect() }
    }
}

/// Solves a C-SVC problem on `x` with labels `y` (±1) and per-sample bounds `c`.
#[cfg(test)]
pub(crate) fn solve_svc(
    kernel: &KernelSpec,
    x: &Samples,
    y: &[f64],
    c: Vec<f64>,
    solver: &SolverParams,
    pre: Option<Precomputed>,
) -> BinaryFit {
    let source = source_plan(pre.as_ref(), false, false, Order::Data, 1);
    solve_svc_at(kernel, Rows::all(x), y, c, solver, pre, source)
}

/// [`solve_svc`] on `rows`; `pre` (if any) must be the Gram matrix of `rows.x`, and `source` the
/// plan's source part ([`source_plan`]).
pub(crate) fn solve_svc_at(
    kernel: &KernelSpec,
    rows: Rows<'_>,
    y: &[f64],
    c: Vec<f64>,
    solver: &SolverParams,
    pre: Option<Precomputed>,
    mut source: Plan,
) -> BinaryFit {
    let n = y.len();
    let mut cache = solver.cache_bytes();
    if let Some(g) = &pre {
        cache = cache.saturating_sub(g.bytes());
    }
    let seeded = if pre.is_none() { seed(kernel, &rows, y, &c, solver) } else { None };
    let (start, sub_iterations) = seeded.map_or((None, 0), |(a, it)| (Some(a), it));
    if start.is_some() {
        source.start = Start::Seeded;
    }
    let sol = solve_from(
        kernel,
        Dual {
            x: rows.x,
            sample: rows.sample,
            sign: y.to_vec(),
            p: vec![-1.0; n],
            c: c.clone(),
            pre,
            plan: source,
        },
        start,
        false,
        solver,
        cache,
    );
    let mut stats = stats_of(&sol, &c, n);
    stats.iterations += sub_iterations;
    BinaryFit { alpha: sol.alpha, stats }
}

/// A feasible start for a large C-SVC, by alpha seeding (DeCoste & Wagstaff 2000): the problem on
/// every [`plan::Tuning::seed_stride`]-th sample of each class (in the data's order) with the bounds scaled by the
/// stride, so that each of its samples carries the loss of the `seed_stride` samples it stands for, is
/// solved first (itself seeded when still large); its decision function `f` then marks the samples
/// it leaves inside the margin (`y f(x) < 1`), which start at their bound `C`, the others at 0. The
/// class with the larger `Σ C` gives back its bounds from the sample nearest the margin on until
/// `Σ y α = 0`. From `α = 0` the first passes of SMO run over every variable while the support
/// vectors are found two by two; from the seed, the gradient is close to the solution's and shrinking
/// takes most variables out early. The dual, the stopping rule and the tolerance are the unseeded
/// ones. Returns the start and the sub-problem's iterations, or `None` where the rule [`plan::seeds`] does
/// not apply, where the columns do not split evenly, or when the seed is all zero.
pub(crate) fn seed(
    kernel: &KernelSpec,
    rows: &Rows<'_>,
    y: &[f64],
    c: &[f64],
    solver: &SolverParams,
) -> Option<(Vec<f64>, u64)> {
    let n = y.len();
    if !plan::seeds(kernel, rows.x, n, solver.shrinking, &solver.tuning) {
        return None;
    }
    let stride = solver.tuning.seed_stride.max(2);
    let (mut n_pos, mut n_neg) = (0usize, 0usize);
    let idx: Vec<usize> = (0..n)
        .filter(|&t| {
            let k = if y[t] > 0.0 { &mut n_pos } else { &mut n_neg };
            *k += 1;
            (*k - 1) % stride == 0
        })
        .collect();
    if idx.len() >= n {
        return None;
    }
    let sub_rows = Rows { x: rows.x, sample: idx.iter().map(|&t| rows.sample[t]).collect() };
    let sub_y: Vec<f64> = idx.iter().map(|&t| y[t]).collect();
    let sub_c: Vec<f64> = idx.iter().map(|&t| c[t] * stride as f64).collect();
    let sub = solve_svc_at(kernel, sub_rows, &sub_y, sub_c, solver, None, Plan::default());
    // `v = Q α_sub` over every sample: `v_t = y_t (f(x_t) + ρ)`.
    let cols: Vec<(usize, f64, Option<f64>)> =
        idx.iter().zip(&sub.alpha).filter(|&(_, &a)| a > 0.0).map(|(&t, &a)| (t, a, None)).collect();
    let v =
        kernel.visit(ProductVisitor { x: rows.x, sample: rows.sample.clone(), sign: y.to_vec(), cols })?;
    let margin: Vec<f64> = (0..n).map(|t| v[t] - y[t] * sub.stats.rho).collect();
    let mut alpha: Vec<f64> = (0..n).map(|t| if margin[t] < 1.0 { c[t] } else { 0.0 }).collect();
    let surplus: f64 = (0..n).map(|t| y[t] * alpha[t]).sum();
    let side = if surplus > 0.0 { 1.0 } else { -1.0 };
    let mut back: Vec<usize> = (0..n).filter(|&t| alpha[t] > 0.0 && y[t] == side).collect();
    back.sort_by(|&a, &b| margin[b].total_cmp(&margin[a]));
    let mut rest = surplus * side;
    for t in back {
        if rest <= 0.0 {
            break;
        }
        let take = alpha[t].min(rest);
        alpha[t] -= take;
        rest -= take;
    }
    alpha.iter().any(|&a| a > 0.0).then_some((alpha, sub.stats.iterations))
}

/// `Σ_j a_j Q_{:,j}` over the columns `cols = (j, a_j, _)` of a dual's `Q`, by blocks of positions
/// ([`super::solver::add_columns`]); `None` when the columns do not split evenly.
struct ProductVisitor<'a> {
    x: &'a Samples,
    sample: Vec<usize>,
    sign: Vec<f64>,
    cols: Vec<(usize, f64, Option<f64>)>,
}

impl KernelVisitor for ProductVisitor<'_> {
    type Output = Option<Vec<f64>>;
    fn visit<K: Kernel>(self, k: &K) -> Option<Vec<f64>> {
        let q = SignedColumns::new(k, self.x, self.sample, self.sign, None);
        if !q.splits_evenly() {
            return None;
        }
        let (mut v, mut unused) = (vec![0.0; q.l()], vec![0.0; q.l()]);
        super::solver::add_columns(&q, &self.cols, &mut v, &mut unused);
        Some(v)
    }
}

pub(crate) fn stats_of(sol: &Solution, c: &[f64], n: usize) -> MachineStats {
    MachineStats {
        n,
        n_sv: sol.alpha.iter().filter(|&&a| a > 0.0).count(),
        n_bounded: sol.alpha.iter().zip(c).filter(|&(&a, &c)| a >= c).count(),
        objective: sol.objective,
        rho: sol.rho,
        iterations: sol.iterations,
        violation: sol.violation,
        hit_cap: sol.hit_cap,
        plan: sol.plan,
    }
}
