//! Training of one binary dual problem: kernel dispatch, the Gram precomputation policy and the solver.

use super::params::SolverParams;
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
    /// Whether the Gram matrix was precomputed (else columns were computed on demand).
    pub dense_gram: bool,
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
}

struct SolveVisitor<'a> {
    dual: Dual<'a>,
    alpha: Option<Vec<f64>>,
    opts: SolverOptions,
}

impl KernelVisitor for SolveVisitor<'_> {
    type Output = Solution;
    fn visit<K: Kernel>(self, k: &K) -> Solution {
        let Dual { x, sample, sign, p, c, pre } = self.dual;
        let l = sign.len();
        let y = sign.clone();
        let q = SignedColumns::new(k, x, sample, sign, pre);
        Solver::solve(q, p, y, c, self.alpha.unwrap_or_else(|| vec![0.0; l]), self.opts)
    }
}

/// Solves a dual from the feasible start `alpha` (`None`: zero), by the ν variant of the solver when
/// `nu` (see `solver::nu`).
pub(crate) fn solve_from(
    kernel: &KernelSpec,
    dual: Dual<'_>,
    alpha: Option<Vec<f64>>,
    nu: bool,
    solver: &SolverParams,
    cache_bytes: usize,
) -> Solution {
    // The blocked solver holds as many full columns as the cache budget allows (at least a block).
    let l = dual.sign.len();
    let block = solver.block.working_set(l).map(|q| (q, (cache_bytes / (8 * l.max(1))).max(q)));
    let opts = SolverOptions {
        eps: solver.tol,
        shrinking: solver.shrinking,
        cache_bytes,
        max_iter: solver.max_iter,
        nu,
        block,
        report: true,
        sparse: sparse_override(),
    };
    kernel.visit(SolveVisitor { dual, alpha, opts })
}

#[cfg(test)]
thread_local! {
    /// Tests force the pair solver's column choice (`Some(true)`: sparse columns wherever `K_C` is
    /// sparse, `Some(false)`: dense columns) to compare the two on the same fits.
    pub(crate) static SPARSE_COLUMNS: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

#[cfg(test)]
thread_local! {
    /// Tests force the source of a compact kernel's columns (`Some(true)`: on demand, `Some(false)`:
    /// the precomputed `K_C`) to compare the two on the same fits.
    pub(crate) static ON_DEMAND: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

#[cfg(test)]
thread_local! {
    /// Tests force the spatial order of a compact kernel's problem (`Some(true)`: at any size,
    /// `Some(false)`: never) to compare the two orders on the same fits.
    pub(crate) static SPATIAL: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

#[cfg(test)]
fn spatial_override() -> Option<bool> {
    SPATIAL.with(|c| c.get())
}

#[cfg(not(test))]
fn spatial_override() -> Option<bool> {
    None
}

#[cfg(test)]
fn on_demand_override() -> Option<bool> {
    ON_DEMAND.with(|c| c.get())
}

#[cfg(not(test))]
fn on_demand_override() -> Option<bool> {
    None
}

#[cfg(test)]
fn sparse_override() -> Option<bool> {
    SPARSE_COLUMNS.with(|c| c.get())
}

#[cfg(not(test))]
fn sparse_override() -> Option<bool> {
    None
}

/// Whether an `n × n` Gram matrix is precomputed under a cache budget: when it takes at most half of
/// it. A precomputed Gram is one blocked, parallel GEMM (for radial and dot-product kernels) instead of
/// column-by-column evaluations; columns then become gathers. The other half of the budget holds the
/// solver's column cache.
pub(crate) fn precompute_fits(n: usize, cache_bytes: usize) -> bool {
    (n as u128) * (n as u128) * 8 <= cache_bytes as u128 / 2
}

/// Whether columns on `x` are cheaper to compute on demand than to precompute and gather: the kernel's
/// fast vectorized column ([`Kernel::fast_sq_dist`]) on a dense store in dimension ≤
/// [`ON_DEMAND_MAX_DIM`].
///
/// **The rule, measured** (preliminary, loaded machine; `bench/svm_small_fits.py`, per-fit medians of
/// in-process fits, best of 3 alternating rounds, C = 0.1 … 1000, Gaussian γ = 1/d). A precomputed Gram
/// costs `n²/2` entries however few columns the solver reads, plus the rayon pool's hand-offs of its
/// parallel blocks; a column on demand costs `n` entries of a `d`-term distance and the vectorized exp
/// ([`Kernel::apply_sq_dist`]), serially, and is computed once (the solver keeps whole columns). So the
/// precompute pays where each entry is much cheaper by GEMM than by its own distance (large `d`) and
/// most columns are read; on demand pays where few are (small and moderate C). Measured time on demand
/// over time precomputed: wisconsin (n = 683, d = 9) 0.18–0.69 at every C; statlog heart and cleveland
/// (n ≈ 280, d = 13) 0.39–1.8, about even overall; a sonar-shaped problem (n = 208, d = 60) 2.1–2.8.
/// Hence on demand up to `d = 12`, where the distance costs at most a few multiply-adds more than the
/// exp; the precompute above it (when it fits, [`precompute_fits`]).
pub(crate) fn cheap_columns(kernel: &KernelSpec, x: &Samples) -> bool {
    kernel.fast_sq_dist() && !x.is_sparse() && x.d() <= ON_DEMAND_MAX_DIM
}

/// See [`cheap_columns`]; at least the dimension up to which the column source computes distances
/// directly ([`kmatrix::NORMS_MIN_DIM`]), where a column on demand was already the cheaper source.
pub(crate) const ON_DEMAND_MAX_DIM: usize = 12;

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

/// Whether the precomputed `K_C` of a compactly supported kernel fits: its predicted bytes
/// ([`SparseOnDemand::predicted_gram_bytes`], from the neighbour counts of a sample of the points) take
/// at most half of the memory this process may still use (`kern_core::memory::budget`; the other
/// half is the margin for the prediction's error, the solver's state and the rest of the program).
/// An unknown budget keeps the precomputed matrix.
pub(crate) fn kc_fits(predicted_bytes: u64, budget: Option<u64>) -> bool {
    budget.is_none_or(|b| predicted_bytes <= b / 2)
}

/// Bytes of solver state per training sample when the columns are computed on demand: the solver's
/// vectors (about 12 doubles per variable, the two selection trees and the position maps), counted
/// for the two variables per sample of ε-SVR.
pub(crate) const ON_DEMAND_BYTES_PER_SAMPLE: u64 = 2 * 192;

/// The source of a compactly supported kernel's columns on `x`: the precomputed sparse `K_C` when it
/// fits ([`kc_fits`]), else its columns computed on demand through the same neighbour index, with
/// values bit-identical to the precomputed matrix's (so the same iterates and model), recent columns
/// held in a cache of the remaining column budget (`cache_bytes` less the index). When even that
/// cannot run (the cache's bookkeeping and the solver's state do not fit in the memory left), the
/// problem is refused with what it needs.
pub(crate) fn compact_source(
    kernel: &KernelSpec,
    x: &Samples,
    cache_bytes: usize,
) -> crate::Result<Precomputed> {
    struct V<'a>(&'a Samples, usize);
    impl KernelVisitor for V<'_> {
        type Output = crate::Result<Precomputed>;
        fn visit<K: Kernel>(self, k: &K) -> Self::Output {
            let (x, cache_bytes) = (self.0, self.1);
            let gram_err = |e| crate::ModelsError::Numerical(format!("Gram matrix: {e}"));
            let od = SparseOnDemand::new(k, x).map_err(gram_err)?;
            let budget = kern_core::memory::budget().bytes;
            let on_demand =
                on_demand_override().unwrap_or_else(|| !kc_fits(od.predicted_gram_bytes(), budget));
            if !on_demand {
                return Ok(Precomputed::Sparse(Arc::new(od.gram(k).map_err(gram_err)?)));
            }
            check_on_demand(x.n(), od.predicted_gram_bytes(), kern_core::memory::budget())?;
            let cache_bytes = cache_bytes.saturating_sub(od.bytes());
            Ok(Precomputed::OnDemand { kc: Arc::new(od), cache_bytes })
        }
    }
    kernel.visit(V(x, cache_bytes))
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

/// Samples from which a compactly supported kernel's problem is solved in [`spatial_order`].
///
/// **The rule.** The solver's per-variable state (gradient, bounds, labels, position maps, the two
/// selection trees: about 100 bytes per variable) is visited at the neighbours of the two variables
/// of every step. In the data's own order those are scattered over the whole state, so each visit is
/// a cache miss once the state outgrows the core's cache (a few MiB: from about 16k samples); in
/// cell order they are a few contiguous runs. Below, the state is cache-resident, the order brings
/// nothing, and the iterates stay those of the data's order (LIBSVM's, tie for tie).
pub(crate) const SPATIAL_MIN_N: usize = 16_384;

/// The order in which an SVM problem on `x` (C-SVC, ν-SVC, ε-SVR, ν-SVR, one-class) is solved, as
/// indices of `x`, when it is not the data's own: for a compactly supported kernel on at least [`SPATIAL_MIN_N`] samples, the order
/// of the cells of the neighbour grid ([`kern_sparse::neighbors::cell_order`]), so that the
/// neighbours of every variable (the entries of its column of `K_C`) sit in a few runs of
/// consecutive positions. The dual is the same problem in any order; only ties in the working-set
/// selection (which go to the last position) can make the iterates differ. `None` for other kernels,
/// smaller problems, and data the grid does not index (sparse stores, `d > GRID_MAX_DIM`).
pub(crate) fn spatial_order(kernel: &KernelSpec, x: &Samples) -> Option<Vec<usize>> {
    let radius = kernel.support_radius()?;
    if !spatial_override().unwrap_or(x.n() >= SPATIAL_MIN_N) {
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
    pub(crate) fn of(kernel: &KernelSpec, x: &Samples) -> crate::Result<Option<Self>> {
        match spatial_order(kernel, x) {
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
/// the same iterates. Returns the solution and whether a dense Gram was used.
pub(crate) fn solve_samples(
    kernel: &KernelSpec,
    x: &Samples,
    dual: SampleDual,
    solver: &SolverParams,
    user: Option<&super::KernelMatrix>,
) -> crate::Result<(Solution, bool)> {
    let cells = if user.is_none() { CellOrder::of(kernel, x)? } else { None };
    let xs = cells.as_ref().map_or(x, |o| &o.x);
    let mut budget = solver.cache_bytes();
    let pre = precompute(kernel, xs, budget, user)?;
    if let Some(g) = &pre {
        budget = budget.saturating_sub(g.bytes());
    }
    let dense = matches!(pre, Some(Precomputed::Dense(_)));
    let n = x.n();
    let SampleDual { sign, p, c, alpha, nu } = dual;
    let sample = (0..sign.len()).map(|t| t % n).collect();
    let to = |v: Vec<f64>| match &cells {
        Some(o) => o.permute(&v),
        None => v,
    };
    let dual = Dual { x: xs, sample, sign: to(sign), p: to(p), c: to(c), pre };
    let mut sol = solve_from(kernel, dual, alpha.map(to), nu, solver, budget);
    if let Some(o) = &cells {
        sol.alpha = o.unpermute(&sol.alpha);
    }
    Ok((sol, dense))
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

/// The precomputation policy for a problem on `x`: the user's kernel matrix restricted to `x`'s serial
/// numbers when the kernel is precomputed (`user`), for compactly supported kernels the sparse Gram
/// or its columns on demand ([`compact_source`]), nothing for cheap columns, the dense Gram when it fits in half the cache budget, else nothing
/// (columns on demand).
pub(crate) fn precompute(
    kernel: &KernelSpec,
    x: &Samples,
    cache_bytes: usize,
    user: Option<&super::KernelMatrix>,
) -> crate::Result<Option<Precomputed>> {
    if !precomputes(kernel, x, x.n(), cache_bytes, user.is_some()) {
        return Ok(None);
    }
    if let Some(k) = user {
        return Ok(Some(k.restrict(x)));
    }
    if kernel.support_radius().is_some() {
        return compact_source(kernel, x, cache_bytes).map(Some);
    }
    Ok(Some(Precomputed::Dense(dense_gram(kernel, x)?)))
}

/// Whether [`precompute`] computes a kernel matrix for a problem of `n` samples of `x`'s store (`user`:
/// the kernel is the user's precomputed matrix). When it does not, the solver reads the samples
/// themselves, so a caller can hand it the full sample set with a position-to-sample map instead of a
/// copy of the problem's rows.
pub(crate) fn precomputes(
    kernel: &KernelSpec,
    x: &Samples,
    n: usize,
    cache_bytes: usize,
    user: bool,
) -> bool {
    user || kernel.support_radius().is_some()
        || (!cheap_columns(kernel, x) && precompute_fits(n, cache_bytes))
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
    solve_svc_at(kernel, Rows::all(x), y, c, solver, pre)
}

/// [`solve_svc`] on `rows`; `pre` (if any) must be the Gram matrix of `rows.x`.
pub(crate) fn solve_svc_at(
    kernel: &KernelSpec,
    rows: Rows<'_>,
    y: &[f64],
    c: Vec<f64>,
    solver: &SolverParams,
    pre: Option<Precomputed>,
) -> BinaryFit {
    let n = y.len();
    let mut cache = solver.cache_bytes();
    let dense_used = matches!(pre, Some(Precomputed::Dense(_)));
    if let Some(g) = &pre {
        cache = cache.saturating_sub(g.bytes());
    }
    let seeded = if pre.is_none() { seed(kernel, &rows, y, &c, solver) } else { None };
    let (start, sub_iterations) = seeded.map_or((None, 0), |(a, it)| (Some(a), it));
    let sol = solve_from(
        kernel,
        Dual { x: rows.x, sample: rows.sample, sign: y.to_vec(), p: vec![-1.0; n], c: c.clone(), pre },
        start,
        false,
        solver,
        cache,
    );
    let mut stats = stats_of(&sol, &c, n, dense_used);
    stats.iterations += sub_iterations;
    BinaryFit { alpha: sol.alpha, stats }
}

/// From this many samples a C-SVC whose kernel columns are computed on demand starts from a seed
/// ([`seed`]); below it, from `α = 0` as LIBSVM.
pub(crate) const SEED_MIN_N: usize = 65_536;

/// The seed's sub-problem takes every `SEED_STRIDE`-th sample of each class.
const SEED_STRIDE: usize = 8;

/// A feasible start for a large C-SVC, by alpha seeding (DeCoste & Wagstaff 2000): the problem on
/// every [`SEED_STRIDE`]-th sample of each class (in the data's order) with the bounds scaled by the
/// stride, so that each of its samples carries the loss of the `SEED_STRIDE` samples it stands for, is
/// solved first (itself seeded when still large); its decision function `f` then marks the samples
/// it leaves inside the margin (`y f(x) < 1`), which start at their bound `C`, the others at 0. The
/// class with the larger `Σ C` gives back its bounds from the sample nearest the margin on until
/// `Σ y α = 0`. From `α = 0` the first passes of SMO run over every variable while the support
/// vectors are found two by two; from the seed, the gradient is close to the solution's and shrinking
/// takes most variables out early. The dual, the stopping rule and the tolerance are the unseeded
/// ones. Returns the start and the sub-problem's iterations, or `None` where the rule [`seeds`] does
/// not apply, where the columns do not split evenly, or when the seed is all zero.
pub(crate) fn seed(
    kernel: &KernelSpec,
    rows: &Rows<'_>,
    y: &[f64],
    c: &[f64],
    solver: &SolverParams,
) -> Option<(Vec<f64>, u64)> {
    let n = y.len();
    if !seeds(kernel, rows.x, n, solver) {
        return None;
    }
    let (mut n_pos, mut n_neg) = (0usize, 0usize);
    let idx: Vec<usize> = (0..n)
        .filter(|&t| {
            let k = if y[t] > 0.0 { &mut n_pos } else { &mut n_neg };
            *k += 1;
            (*k - 1) % SEED_STRIDE == 0
        })
        .collect();
    if idx.len() >= n {
        return None;
    }
    let sub_rows = Rows { x: rows.x, sample: idx.iter().map(|&t| rows.sample[t]).collect() };
    let sub_y: Vec<f64> = idx.iter().map(|&t| y[t]).collect();
    let sub_c: Vec<f64> = idx.iter().map(|&t| c[t] * SEED_STRIDE as f64).collect();
    let sub = solve_svc_at(kernel, sub_rows, &sub_y, sub_c, solver, None);
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

/// The rule of [`seed`]: a C-SVC with shrinking on at least [`SEED_MIN_N`] samples whose kernel columns
/// are the cheap ones — a radial kernel through the vectorized exp on a dense store in dimension up to
/// [`kmatrix::NORMS_MIN_DIM`], where the solver recomputes columns rather than caching them and the
/// first passes of SMO from zero are bound by computing them over every variable. Measured (two
/// cores): green-red n = 200,000 (d = 2) 45.8–47.8 s from zero against 28.5–34 s seeded; twonorm
/// n = 100,000 (d = 20, columns by norms) 7.8 s from zero against 9.8 s seeded, where the seed's
/// gradient (its bounded columns over every sample) cost more than it saved.
pub(crate) fn seeds(kernel: &KernelSpec, x: &Samples, n: usize, solver: &SolverParams) -> bool {
    let cheap = kernel.fast_sq_dist() && !x.is_sparse() && x.d() <= kmatrix::NORMS_MIN_DIM;
    let rule = n >= SEED_MIN_N && solver.shrinking && kernel.support_radius().is_none() && cheap;
    seed_override().unwrap_or(rule)
}

#[cfg(test)]
thread_local! {
    /// Tests force the seeded start of C-SVC (`Some(true)`: at any size and for any kernel whose
    /// columns split evenly, `Some(false)`: never) to compare it with the start from zero.
    pub(crate) static SEED: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

#[cfg(test)]
fn seed_override() -> Option<bool> {
    SEED.with(|c| c.get())
}

#[cfg(not(test))]
fn seed_override() -> Option<bool> {
    None
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

pub(crate) fn stats_of(sol: &Solution, c: &[f64], n: usize, dense: bool) -> MachineStats {
    MachineStats {
        n,
        n_sv: sol.alpha.iter().filter(|&&a| a > 0.0).count(),
        n_bounded: sol.alpha.iter().zip(c).filter(|&(&a, &c)| a >= c).count(),
        objective: sol.objective,
        rho: sol.rho,
        iterations: sol.iterations,
        violation: sol.violation,
        hit_cap: sol.hit_cap,
        dense_gram: dense,
    }
}
