//! The SVM's execution plan: which path a fit takes, as a value ([`Plan`]), chosen by the rules of
//! this module from the problem and the [`Tuning`] constants, and reported in every machine's
//! [`MachineStats`](super::MachineStats).
//!
//! Every SVM solve (C-SVC, ν-SVC, ε-SVR, ν-SVR, one-class, the regularization path) goes through two
//! choices, both by the rules here:
//!
//! 1. before any kernel value is computed: the order of the problem (the data's, or the cells of a
//!    compact kernel's neighbour grid), its start (zero, given, or seeded by a sub-problem) and the
//!    column source (a precomputed Gram matrix, shared one-vs-one class blocks, columns on demand
//!    through an LRU cache, a compact kernel's sparse `K_C` stored or on demand, or the user's
//!    matrix), and how the machines of a multi-class fit share the threads;
//! 2. once the source exists and the number of nonzeros of `Q` is known: the solver's loop — sparse
//!    or dense columns, scans or tournament trees for the working-set selection, passes split
//!    across two threads or not, shrinking, and the column cache's size.
//!
//! The second completes the [`Plan`] the first began, and the solver follows it without deciding
//! anything itself. The constants behind the rules are the fields of [`Tuning`], whose [`Default`]
//! holds the measured values; its `force_*` fields pin a choice (tests compare the paths on the same
//! fits; the pins travel in [`SolverParams`](super::SolverParams) to every worker thread).
//!
//! ```
//! use kern_models::svm::{SvcParams, plan::{Columns, Threading}};
//! use kern_core::{Samples, ClassTargets, learner::Fit};
//! let x = Samples::from_rows(&[[0.0], [0.1], [5.0], [5.1], [9.0], [9.1]])?;
//! let y = ClassTargets::from_labels(&["a", "a", "b", "b", "c", "c"])?;
//! let m = SvcParams::new("gaussian:sigma=1".parse()?).fit(&x, &y)?;
//! let plan = &m.stats()[0].plan;
//! assert_eq!(plan.columns, Columns::OnDemand);                 // one-dimensional Gaussian: cheap columns
//! assert_eq!(plan.threading, Threading::Machines);             // three small machines share the threads
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use kern_core::{Kernel, KernelSpec, Samples};
use serde::{Deserialize, Serialize};

/// The order in which the solver sees the variables.
///
/// ```
/// use kern_models::svm::plan::Order;
/// use kern_models::svm::SvcParams;
/// use kern_models::{BinaryTargets, Fit, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.0]])?;
/// let y = BinaryTargets::from_labels(&["a", "a", "b", "b"])?;
/// let plan = SvcParams::new("gaussian:sigma=1".parse()?).fit(&x, &y)?.stats()[0].plan;
/// assert_eq!(plan.order, Order::Data); // cells only for a compact kernel on many samples
/// assert_eq!(Order::Cells.name(), "cells");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// The data's own order (LIBSVM's; one-vs-one pairs: class `a`'s samples, then class `b`'s).
    #[default]
    Data,
    /// The cells of a compact kernel's neighbour grid, so that each column's neighbours are a few runs
    /// of consecutive positions ([`Tuning::spatial_min_n`]); `α` is mapped back to the data's order.
    Cells,
}

/// Where the solver starts.
///
/// ```
/// use kern_models::svm::{plan::Start, NuSvcParams};
/// use kern_models::svm::SvcParams;
/// use kern_models::{BinaryTargets, Fit, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.0]])?;
/// let y = BinaryTargets::from_labels(&["a", "a", "b", "b"])?;
/// let plan = SvcParams::new("gaussian:sigma=1".parse()?).fit(&x, &y)?.stats()[0].plan;
/// assert_eq!(plan.start, Start::Zero); // a small C-SVC: LIBSVM's start
/// let nu = NuSvcParams::new("gaussian:sigma=1".parse()?).fit(&x, &y)?;
/// assert_eq!(nu.stats()[0].plan.start, Start::Given); // the ν-SVC's feasible start
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Start {
    /// `α = 0` (C-SVC, ε-SVR; LIBSVM's).
    #[default]
    Zero,
    /// A feasible start the model defines (ν-SVC, ν-SVR, one-class; a path's previous solution).
    Given,
    /// Alpha seeding from the problem on every `seed_stride`-th sample ([`Tuning::seed_min_n`]).
    Seeded,
}

/// Where the kernel columns come from.
///
/// ```
/// use kern_models::svm::plan::Columns;
/// use kern_models::svm::SvcParams;
/// use kern_models::{BinaryTargets, Fit, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.0]])?;
/// let y = BinaryTargets::from_labels(&["a", "a", "b", "b"])?;
/// let plan = SvcParams::new("gaussian:sigma=1".parse()?).fit(&x, &y)?.stats()[0].plan;
/// assert_eq!(plan.columns, Columns::OnDemand); // a radial kernel's columns are cheap
/// assert_eq!(Columns::SparseKc.name(), "sparse-kc");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Columns {
    /// Computed when the solver asks, kept in the LRU cache (LIBSVM's).
    #[default]
    OnDemand,
    /// The machine's whole Gram matrix, computed up front by a blocked GEMM; columns are gathers.
    Precomputed,
    /// One-vs-one: the per-class Gram blocks computed once and assembled for each pair.
    ClassBlocks,
    /// A compactly supported kernel's sparse `K_C`, precomputed.
    SparseKc,
    /// A compactly supported kernel's `K_C` columns computed on demand through its neighbour index
    /// (the precomputed matrix would not fit the memory budget).
    SparseOnDemand,
    /// The user's precomputed kernel matrix.
    UserMatrix,
}

/// How the working pair is selected.
///
/// ```
/// use kern_models::svm::plan::Selection;
/// use kern_models::svm::SvcParams;
/// use kern_models::{BinaryTargets, Fit, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.0]])?;
/// let y = BinaryTargets::from_labels(&["a", "a", "b", "b"])?;
/// let plan = SvcParams::new("gaussian:sigma=1".parse()?).fit(&x, &y)?.stats()[0].plan;
/// assert_eq!(plan.selection, Selection::Scan); // trees only on sparse columns
/// assert_eq!(Selection::Trees.name(), "trees");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Selection {
    /// WSS 2's two vectorized scans over the active set (LIBSVM's rule).
    #[default]
    Scan,
    /// Tournament trees over the gradient (sparse columns; the scans' pair, bit for bit).
    Trees,
}

/// How a machine uses the threads.
///
/// ```
/// use kern_models::svm::plan::Threading;
/// use kern_models::svm::SvcParams;
/// use kern_models::{BinaryTargets, Fit, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.0]])?;
/// let y = BinaryTargets::from_labels(&["a", "a", "b", "b"])?;
/// let plan = SvcParams::new("gaussian:sigma=1".parse()?).fit(&x, &y)?.stats()[0].plan;
/// assert_eq!(plan.threading, Threading::Serial); // one small machine: no split passes
/// assert_eq!(Threading::Machines.name(), "machines");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Threading {
    /// The solver's loop on one thread.
    #[default]
    Serial,
    /// Each iteration's passes split across two threads (one large machine).
    Split,
    /// One of several machines trained side by side, one per thread, each serial.
    Machines,
}

/// The path one SVM machine took: see the [module documentation](self).
///
/// ```
/// use kern_models::svm::SvcParams;
/// use kern_models::{BinaryTargets, Fit, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.0]])?;
/// let y = BinaryTargets::from_labels(&["a", "a", "b", "b"])?;
/// let plan = SvcParams::new("gaussian:sigma=1".parse()?).fit(&x, &y)?.stats()[0].plan;
/// assert!(plan.summary().starts_with("order=data start=zero"));
/// assert!(plan.shrinking); // LIBSVM's default
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Variable order.
    pub order: Order,
    /// Start.
    pub start: Start,
    /// Column source.
    pub columns: Columns,
    /// The solver's column cache in MB: what the budget leaves after a precomputed matrix (capped for
    /// cheap columns), or, when every column fits at full length and the cache is resident (see
    /// [`Tuning::resident_min_bytes`]), the `l²` values that hold them all.
    pub cache_mb: f64,
    /// Columns read as their nonzeros (a sparse `K_C`) instead of dense cached columns.
    pub sparse_columns: bool,
    /// Working-set selection.
    pub selection: Selection,
    /// Threads.
    pub threading: Threading,
    /// Shrinking (LIBSVM's heuristic), as run.
    pub shrinking: bool,
}

impl Plan {
    /// One line for logs: `columns=on-demand cache=16MB selection=scan threading=machines …`.
    ///
    /// ```
    /// let p = kern_models::svm::plan::Plan::default();
    /// assert!(p.summary().starts_with("order=data start=zero columns=on-demand"));
    /// ```
    pub fn summary(&self) -> String {
        format!(
            "order={} start={} columns={} cache={:.0}MB sparse-columns={} selection={} threading={} shrinking={}",
            self.order.name(),
            self.start.name(),
            self.columns.name(),
            self.cache_mb,
            self.sparse_columns,
            self.selection.name(),
            self.threading.name(),
            self.shrinking
        )
    }
}

/// `name()`: a plan enum's variant as it is serialized.
macro_rules! names {
    ($($t:ty { $($v:ident => $s:literal),* })*) => {$(
        impl $t {
            /// The variant's name, as serialized.
            pub fn name(&self) -> &'static str {
                match self { $(Self::$v => $s),* }
            }
        }
    )*};
}

names! {
    Order { Data => "data", Cells => "cells" }
    Start { Zero => "zero", Given => "given", Seeded => "seeded" }
    Columns {
        OnDemand => "on-demand", Precomputed => "precomputed", ClassBlocks => "class-blocks",
        SparseKc => "sparse-kc", SparseOnDemand => "sparse-on-demand", UserMatrix => "user-matrix"
    }
    Selection { Scan => "scan", Trees => "trees" }
    Threading { Serial => "serial", Split => "split", Machines => "machines" }
    Placement { Caller => "caller", Pool => "pool" }
}

/// Where a fit runs: decided before it starts ([`placement`]), by the caller that hands work to the
/// thread pool (`kern train` reports it as `"placement"` in its summary).
///
/// ```
/// use kern_models::svm::{SvcParams, plan::Placement};
/// let x = kern_models::Samples::from_flat(vec![0.5; 100 * 13], 100, 13)?;
/// let p = SvcParams::new("gaussian:gamma=0.08".parse()?);
/// assert_eq!(p.placement(&x, 2), Placement::Caller); // one small machine
/// assert_eq!(p.placement(&x, 3), Placement::Pool);   // three machines share the threads
/// assert_eq!(Placement::Caller.name(), "caller");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// On the calling thread: the fit uses no other thread, so handing it to a pool worker and back
    /// would only add two thread wake-ups and the worker's cold heap and caches.
    Caller,
    /// On a worker of the thread pool: its machines share the threads, or its work splits.
    Pool,
}

/// Where a fit of `machines` machines, the largest on `l` variables, on the samples `x` runs: on
/// the calling thread when it is a single machine whose work never splits across threads — fewer
/// variables than [`Tuning::split_min`] (serial passes), columns on demand (no Gram matrix computed
/// in parallel first) and each column filled serially
/// ([`columns_stay_serial`](kern_sparse::kmatrix::columns_stay_serial)); else on the pool. The fit
/// is the same either way, bit for bit. Measured on the 100-point fits of `bench/svm_small_fits.py
/// --fresh` (a fresh `kern train` process each; decision 0047): on the calling thread they took
/// 0.36–0.71 of kern's reported seconds on the pool (median of 30), the suite's small binary sets
/// 0.64–0.91.
pub fn placement(kernel: &KernelSpec, x: &Samples, machines: usize, l: usize, t: &Tuning) -> Placement {
    let alone = machines == 1
        && l < t.split_min
        && columns(kernel, x, l, usize::MAX, false, t) == Columns::OnDemand
        && kern_sparse::kmatrix::columns_stay_serial(x, l);
    if alone { Placement::Caller } else { Placement::Pool }
}

/// The constants of the SVM's plan rules, each with the measurement behind it. [`Default`] holds the
/// measured values; a field changes a rule for one fit (in [`SolverParams`](super::SolverParams)).
/// The `force_*` fields pin a choice where the rule would decide (`None`: the rule).
///
/// ```
/// let t = kern_models::svm::plan::Tuning::default();
/// assert_eq!((t.precompute_min_dim, t.split_min), (512, 3072));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    /// A dense-store radial kernel's machine has its Gram matrix precomputed only from this many
    /// features (and [`Tuning::precompute_min_n`] samples, when it fits half the cache). Below, a column
    /// on demand (a panel sweep of `n·d` multiply-adds and the vectorized exp) costs little more per
    /// entry than the GEMM's, and the solver reads few columns: an SMO machine of a one-vs-one fit
    /// typically converges in a few hundred iterations with tens to hundreds of support vectors, so a
    /// precomputed Gram pays `n²` entries for a few hundred columns, and the first touch of its fresh
    /// memory (page faults: 30 % of chess's samples in a profile). Measured (`bench/suite.py`'s
    /// data sets, γ = 1/d and scale, C ∈ {1, 10}, training seconds on demand over precomputed, best
    /// of 5, both binaries in turn): chess (d = 73) 0.54–0.78, splice (d = 286, class blocks)
    /// 0.77–0.99; at large `d` the GEMM's blocking wins: MNIST-5k (d = 657, class blocks) 0.87–1.27
    /// (three of four settings above 1.1). Between 286 and 657 the threshold is not measured. Below
    /// 64 features on demand won before (penbased, d = 16, 0.08; satimage 0.19–0.21; letter
    /// 0.31–0.40; texture 0.20–0.40; optdigits 0.26–0.30; spambase 0.93–0.98; ring 1.02–1.13).
    pub precompute_min_dim: usize,
    /// See [`Tuning::precompute_min_dim`]: machines below this many samples stay on demand whatever
    /// `d` (movement_libras, d = 90, 15 classes, machines of about 38 samples: 0.40–0.43 on demand
    /// over precomputed; MNIST-5k's machines of about 800 samples precompute). Between 40 and 800
    /// samples the threshold is not measured.
    pub precompute_min_n: usize,
    /// Cache cap for cheap columns (Gaussian in dimension ≤ 8 through the vectorized exp): a column
    /// entry costs about 1.5 ns to recompute, while first-touching fresh cache memory costs about 4 ns
    /// per entry in page faults (green-red n = 5000: CPU 0.07 s at 16 MB against 0.09–0.11 s at
    /// 100 MB, same iterations). The user's budget stays the upper bound.
    pub cheap_cache_bytes: usize,
    /// From this many samples a C-SVC with shrinking, on cheap columns (a radial kernel through the
    /// vectorized exp on a dense store in dimension ≤ 8), starts from a seed: green-red n = 200,000
    /// (d = 2) 45.8–47.8 s from zero against 28.5–34 s seeded; twonorm n = 100,000 (d = 20, columns
    /// by norms) 7.8 s from zero against 9.8 s seeded, hence the dimension limit.
    pub seed_min_n: usize,
    /// The seed's sub-problem takes every `seed_stride`-th sample of each class.
    pub seed_stride: usize,
    /// From this many samples a compact kernel's problem is solved in the cells' order: the solver's
    /// per-variable state (about 100 bytes per variable) outgrows the core's cache from about 16k
    /// samples, after which the neighbours of each step are cache misses in the data's order.
    pub spatial_min_n: usize,
    /// Active-set length from which a single machine's dense passes split across two threads: a
    /// hand-off to the other worker costs a few microseconds, a pass (a column's fill fused with a
    /// scan) over a few thousand positions tens. Measured (`bench/suite.py`'s binary sets, γ = 1/d
    /// and scale, C ∈ {1, 10}, best of 3, training seconds split from 2,048 over split from 8,192):
    /// chess (l = 2,556, d = 73) 0.80–1.12, spambase (3,677) 0.69–0.80, banana (4,240, d = 2)
    /// 0.90–1.12, phoneme (4,323) 0.52–0.55, ring and twonorm (5,920, d = 20) 0.68–0.83, mushroom
    /// (6,499) 0.65–0.76, magic (15,216: split either way) 0.93–1.04; hence from 3,072, above chess.
    pub split_min: usize,
    /// Sparse columns when `Q` has at most `l²/sparse_max_inv_density` nonzeros: a sparse entry costs
    /// an index load, a position lookup and a scattered update, several times a dense entry.
    pub sparse_max_inv_density: u64,
    /// Tree selection when the average column has at most `l/tree_max_inv_density` nonzeros (green-red
    /// n = 50,000 at radius 0.1: 95 neighbours per column, trees 2.4 s of CPU against the scans' 13.7 s).
    pub tree_max_inv_density: u64,
    /// Tree updates split across two threads from this many neighbours per column (n = 1,000,000,
    /// ≈ 1,900 neighbours: 116–144 s against 150–159 s serial; n = 200,000, ≈ 380: slower split).
    pub tree_split_min_neighbours: u64,
    /// Pin the compact kernel's column source: `Some(true)` on demand, `Some(false)` the stored `K_C`.
    pub force_kc_on_demand: Option<bool>,
    /// Pin sparse columns (where `K_C` is sparse) or dense ones.
    pub force_sparse_columns: Option<bool>,
    /// Pin the tree selection (where it gives the scan's pair) or the scans.
    pub force_trees: Option<bool>,
    /// Pin the split passes (`Some(true)`: at any length and thread count) or the serial ones.
    pub force_split: Option<bool>,
    /// Pin the cells' order (`Some(true)`: at any size) or the data's.
    pub force_cells: Option<bool>,
    /// Pin the seeded start (`Some(true)`: at any size, where the columns split evenly) or zero.
    pub force_seed: Option<bool>,
    /// Pin the precomputed Gram matrix of a dense kernel's machine (where it fits) or columns on demand.
    pub force_precompute: Option<bool>,
    /// The smallest resident column cache, in bytes. The cache is resident (one block of `l²` values,
    /// faulted in as columns are computed, on huge pages from 1 MiB: `kern_core::pages::ZeroedBlock`)
    /// when every column fits it at full length and the block takes at least this; below, the
    /// columns keep a buffer each. The block's mapping costs system calls (and, with several workers, the lock on the
    /// address space they share) that a few dozen 4 KiB faults do not repay. Measured (`kern train`'s
    /// own seconds, best of 5, the two binaries in turn, every suite data set in its four settings):
    /// the three-class sets of 80–100-sample machines (iris, wine, tae, hayes-roth; blocks of 50–80
    /// KiB) took 1.2–1.9× the per-column buffers' time, led7digit (machines of 80) 1.1–1.2×; from
    /// sonar's 166 samples (216 KiB) on, 0.6–1.0 (pima 0.44–0.63, german 0.60–0.75, chess 0.71–0.82).
    pub resident_min_bytes: usize,
    /// Pin the resident column cache (`Some(true)`: wherever every column fits) or per-column buffers.
    pub force_resident_cache: Option<bool>,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            precompute_min_dim: 512,
            precompute_min_n: 512,
            cheap_cache_bytes: 16 << 20,
            seed_min_n: 65_536,
            seed_stride: 8,
            spatial_min_n: 16_384,
            split_min: 3072,
            sparse_max_inv_density: 16,
            tree_max_inv_density: 32,
            tree_split_min_neighbours: 1024,
            force_kc_on_demand: None,
            force_sparse_columns: None,
            force_trees: None,
            force_split: None,
            force_cells: None,
            force_seed: None,
            force_precompute: None,
            resident_min_bytes: 128 << 10,
            force_resident_cache: None,
        }
    }
}

/// Dimension above which radial kernels' columns are computed by norms (re-exported from
/// kern-sparse's column source); up to it a column is the cheap direct sweep.
pub(crate) use kern_sparse::kmatrix::NORMS_MIN_DIM;

/// Whether a radial kernel's columns on `x` are the cheapest kind: the vectorized profile on a dense
/// store in dimension up to [`NORMS_MIN_DIM`] (the solver then caps its cache, and large C-SVCs seed).
pub(crate) fn cheap_columns(kernel: &KernelSpec, x: &Samples) -> bool {
    kernel.fast_sq_dist() && !x.is_sparse() && x.d() <= NORMS_MIN_DIM
}

/// Whether an `n × n` Gram matrix takes at most half of a cache budget (the other half holds the
/// solver's column cache).
pub(crate) fn gram_fits(n: usize, cache_bytes: usize) -> bool {
    (n as u128) * (n as u128) * 8 <= cache_bytes as u128 / 2
}

/// The column source of a machine of `n` samples of `x` (not a compact kernel's, see
/// [`kc_on_demand`]): the user's matrix; else the precomputed Gram where it fits half the cache and
/// the kernel's entries are dear — not a radial kernel's fast profile on a dense store, or one in at
/// least [`Tuning::precompute_min_dim`] dimensions on a machine of at least
/// [`Tuning::precompute_min_n`] samples; else columns on demand.
pub(crate) fn dense_columns(
    kernel: &KernelSpec,
    x: &Samples,
    n: usize,
    cache_bytes: usize,
    t: &Tuning,
) -> Columns {
    let fast = kernel.fast_sq_dist() && !x.is_sparse();
    let dear = !fast || (x.d() >= t.precompute_min_dim && n >= t.precompute_min_n);
    let pre = t.force_precompute.unwrap_or(dear) && gram_fits(n, cache_bytes);
    if pre { Columns::Precomputed } else { Columns::OnDemand }
}

/// The columns of a problem of `n` samples of `x`: the user's matrix, a compact kernel's `K_C`
/// (stored or on demand, decided on the index by [`kc_on_demand`]), or [`dense_columns`].
pub(crate) fn columns(
    kernel: &KernelSpec,
    x: &Samples,
    n: usize,
    cache_bytes: usize,
    user: bool,
    t: &Tuning,
) -> Columns {
    if user {
        Columns::UserMatrix
    } else if kernel.support_radius().is_some() {
        Columns::SparseKc
    } else {
        dense_columns(kernel, x, n, cache_bytes, t)
    }
}

/// Whether a compact kernel's `K_C` is computed on demand: when its predicted bytes take more than
/// half of the memory this process may still use (`budget`; the other half is the margin for the
/// prediction's error, the solver's state and the rest of the program). An unknown budget keeps the
/// precomputed matrix.
pub(crate) fn kc_on_demand(predicted_bytes: u64, budget: Option<u64>, t: &Tuning) -> bool {
    t.force_kc_on_demand.unwrap_or_else(|| budget.is_some_and(|b| predicted_bytes > b / 2))
}

/// Whether a compact kernel's problem on `n` samples is solved in the cells' order.
pub(crate) fn cells_order(n: usize, t: &Tuning) -> bool {
    t.force_cells.unwrap_or(n >= t.spatial_min_n)
}

/// Whether a C-SVC on `n` samples of `x` starts from a seed: with shrinking, on at least
/// [`Tuning::seed_min_n`] samples, on cheap columns, not a compact kernel.
pub(crate) fn seeds(kernel: &KernelSpec, x: &Samples, n: usize, shrinking: bool, t: &Tuning) -> bool {
    let rule =
        n >= t.seed_min_n && shrinking && kernel.support_radius().is_none() && cheap_columns(kernel, x);
    t.force_seed.unwrap_or(rule)
}

/// How the machines of a fit share the threads: several machines run side by side, one per thread
/// (each solver serial); a single machine may split its passes ([`solve`]).
pub(crate) fn machine_threading(machines: usize) -> Threading {
    if machines > 1 { Threading::Machines } else { Threading::Serial }
}

/// Whether a one-vs-one fit computes per-class Gram blocks once and assembles each pair's Gram from
/// them: at least three classes (so that blocks are shared), and every pair's machine precomputes.
pub(crate) fn class_blocks(
    kernel: &KernelSpec,
    x: &Samples,
    classes: usize,
    machine_sizes: impl IntoIterator<Item = usize>,
    cache_bytes: usize,
    t: &Tuning,
) -> bool {
    classes >= 3
        && kernel.support_radius().is_none()
        && machine_sizes
            .into_iter()
            .all(|n| dense_columns(kernel, x, n, cache_bytes, t) == Columns::Precomputed)
}

/// What the solver knows of its problem when it completes the plan ([`solve`]).
pub(crate) struct SolveProblem {
    /// Variables.
    pub(crate) l: usize,
    /// Structural nonzeros of `Q` when its columns come from a sparse `K_C`.
    pub(crate) sparse_nnz: Option<usize>,
    /// Whether the columns are the cheap kind (the cache is capped).
    pub(crate) cheap: bool,
    /// The ν variant (dense columns, scans).
    pub(crate) nu: bool,
    /// Threads of the pool the solver runs in.
    pub(crate) threads: usize,
    /// The cache budget left for the solver's columns.
    pub(crate) cache_bytes: usize,
    /// Shrinking as asked.
    pub(crate) shrinking: bool,
}

/// Completes `plan` (whose order, start, columns and machine threading [`source`]'s rules set) with
/// the solver's choices for `p`, and returns it with the cache in bytes:
/// - sparse columns where `Q` comes from a sparse `K_C` with at most `l²/`[`Tuning::sparse_max_inv_density`]
///   nonzeros (never for the ν variant);
/// - on sparse columns, the tree selection with at most `l/`[`Tuning::tree_max_inv_density`] neighbours
///   per column, and then no shrinking (an iteration costs the pair's neighbours, not the active length);
/// - split passes for a single machine (not one of several side by side) with two threads: dense
///   columns from [`Tuning::split_min`] variables, trees from [`Tuning::tree_split_min_neighbours`];
/// - the cache capped at [`Tuning::cheap_cache_bytes`] for cheap columns;
/// - the cache resident ([`resident_cache`]) when every dense column fits at full length and the
///   `l²` values take at least [`Tuning::resident_min_bytes`]: the cache is then exactly the `l²`
///   values, and the third value is `true`.
pub(crate) fn solve(mut plan: Plan, p: &SolveProblem, t: &Tuning) -> (Plan, usize, bool) {
    let (l, nnz) = (p.l as u128, p.sparse_nnz.map(|n| n as u128));
    let sparse = !p.nu
        && nnz.is_some_and(|nnz| {
            t.force_sparse_columns.unwrap_or(nnz * t.sparse_max_inv_density as u128 <= l * l)
        });
    let trees = sparse
        && nnz.is_some_and(|nnz| t.force_trees.unwrap_or(nnz * t.tree_max_inv_density as u128 <= l * l));
    let alone = plan.threading != Threading::Machines;
    let split_rule = alone
        && p.threads >= 2
        && if trees {
            nnz.is_some_and(|nnz| nnz >= t.tree_split_min_neighbours as u128 * l)
        } else {
            !sparse && !p.nu && p.l >= t.split_min
        };
    let split = t.force_split.unwrap_or(split_rule) && (trees || (!sparse && !p.nu));
    let cache = if p.cheap { p.cache_bytes.min(t.cheap_cache_bytes) } else { p.cache_bytes };
    let fits = resident_cache(p.l, cache);
    let rule = block_bytes(p.l) >= t.resident_min_bytes as u128;
    let resident = !sparse && fits && t.force_resident_cache.unwrap_or(rule);
    // A resident block fits `cache`, a `usize`, so its size does too.
    let cache = if resident { block_bytes(p.l) as usize } else { cache };
    plan.sparse_columns = sparse;
    plan.selection = if trees { Selection::Trees } else { Selection::Scan };
    plan.threading = match (split, plan.threading) {
        (true, _) => Threading::Split,
        (false, Threading::Machines) => Threading::Machines,
        (false, _) => Threading::Serial,
    };
    plan.shrinking = p.shrinking && !trees;
    plan.cache_mb = if sparse { 0.0 } else { cache as f64 / (1024.0 * 1024.0) };
    (plan, cache, resident)
}

/// Whether the `l` columns of a dense `Q` all fit at full length in `cache_bytes`: the solver's
/// cache then holds them in one block whose pages are faulted in as the columns are first computed,
/// on transparent huge pages where the system allows (`kern_core::pages::ZeroedBlock`), instead of
/// one buffer per column, each faulted in 4 KiB at a time. Nothing is ever evicted in either layout,
/// so the columns computed and the fit are the same.
pub(crate) fn resident_cache(l: usize, cache_bytes: usize) -> bool {
    block_bytes(l) <= cache_bytes as u128
}

/// Bytes of the `l²` values of a resident column cache.
fn block_bytes(l: usize) -> u128 {
    (l as u128) * (l as u128) * std::mem::size_of::<f64>() as u128
}
