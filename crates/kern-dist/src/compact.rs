//! Distributed compact-kernel LS-SVM and kernel ridge: preconditioned conjugate gradients on the
//! sparse `K_C + λI` (the ridge penalty λ of both: the LS-SVM of CS-RBF paper eq. 14, whose `γ` is `1/λ`, and kernel ridge) with
//! the rows spread over the ranks by a spatial partition.
//!
//! **Partition.** A k-d split of the samples into `P` cells: every rank gathers the same sample of
//! at most `S` = 4,096 rows (rows `⌊k·n/S⌋`, one allgather) and builds the same tree from it —
//! the widest coordinate of the cell's sample, cut at the quantile that gives each side its share of
//! ranks. Each rank then sends every row it read to the rank whose cell holds it (`P − 1` shifts of
//! [`Comm::exchange_bytes`]), with its global row index and targets.
//!
//! **Halo.** Rank `p` needs, besides its own rows, every row closer than the support radius `C` to
//! one of them. The ranks allgather the bounding boxes of their rows; a row goes to rank `q` when its
//! distance to `q`'s box is below `C` (a point farther than `C` from the box is farther than `C` from
//! every point in it). [`Comm::exchange_bytes`] is a ring shift (`MPI_Sendrecv`: send to `p + δ`,
//! receive from `p − δ`), so the halo exchange runs one shift per distance `δ` that carries rows for
//! some rank — in low dimension only the few neighbouring cells do, but in high dimension the
//! `C`-neighbourhood of a box touches most other boxes, the exchange becomes an all-to-all and the
//! halo approaches the whole data set (the cost model in docs/benchmarks.md). Each rank then builds
//! its columns of `K_C` over its own and halo rows (kern-sparse's exact radius search); every column
//! lists its entries in the order of the global row index, as the one-process `K_C` does.
//!
//! **Solve.** kern-sparse's conjugate-gradient loop ([`cg_columns_with`]), all right-hand sides at
//! once (`[1 | Y]` for the LS-SVM, `Y` for kernel ridge; each column runs its own recurrence, as the
//! one-process solves do one after the other). Each product `(K_C + sI)v` first exchanges the halo
//! rows' entries of `v` (the same shifts), then applies the rank's columns in the one-process order,
//! so each entry is the one-process product's bytes. Each step's dot products are sums of one term
//! per row added exactly (kern-models' `ExactSums`: one allreduce-max and one allreduce-sum per step,
//! for all columns): they depend on the multiset of terms only, not on which rank holds a row. So
//! every rank takes the same steps, and **the model has the same bytes for any number of ranks**; it
//! differs from the one-process iterative model only by the rounding of the latter's dot products.
//!
//! **Preconditioner: none** (`M = I`), the default of the one-process iterative path: `K_C + sI` with
//! `s > 0` is well conditioned (kern-sparse's `pcg` module docs measure it). Block Jacobi over
//! nested-dissection blocks (the one-process alternative) would need the global ordering, and block
//! Jacobi over the ranks' blocks would make the iterates depend on the number of ranks; both refused.
//!
//! ```
//! use kern_dist::compact::{fit_compact, model_bytes, CompactParams, Dual};
//! use kern_dist::{rows::read_part, threads::run_threads, Comm, SingleProcess};
//! let p = std::env::temp_dir().join(format!("kern-doc-compact-mod-{}.svm", std::process::id()));
//! std::fs::write(&p, (0..40).map(|i| format!("{} 1:{}\n", (i as f64 * 0.3).sin(), i as f64 * 0.1)).collect::<String>()).unwrap();
//! let params = CompactParams::new(Dual::Krr, "cs-gaussian:sigma=0.3,c=0.9".parse()?, 0.5);
//! let bytes = |c: &dyn Comm| {
//!     let part = read_part(c, &p, &Default::default()).unwrap();
//!     model_bytes(c, &part, &fit_compact(c, &part, &params, true).unwrap(), &params).unwrap()
//! };
//! // Two ranks, each solving for its cell of the k-d split, save the one-process model's bytes.
//! let one = bytes(&SingleProcess).unwrap();
//! assert_eq!(run_threads(2, &bytes)[0].as_deref(), Some(&one[..]));
//! # std::fs::remove_file(&p).unwrap();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::comm::{Comm, agree};
use crate::error::{DistError, Result};
use crate::landmark::{Row, build_samples, read_row, targets_part, write_row};
use crate::rows::DistRows;
use crate::wire::{Reader, Writer};
use kern_core::{Kernel, KernelSpec, SampleRef, Samples, Targets};
use kern_models::exact_sum::ExactSums;
use kern_models::kern_sparse::csc_ops::shifted_column_dots;
use kern_models::kern_sparse::pcg::cg_columns_with;
use kern_models::kern_sparse::{PcgOptions, PcgReport, Preconditioner, Solver, sparse_cross_gram};
use kern_models::kmat::SolvePath;
use kern_models::krr::KernelRidge;
use kern_models::lssvm::LsSvm;
use kern_models::persist;
use kern_models::ridge::{DualParts, Task};

/// Rows of the sample every rank builds the k-d split from.
const SPLIT_SAMPLE: usize = 4096;
/// Relative slack of the halo test (rounding of the box distance).
const HALO_SLACK: f64 = 1e-9;

/// Which dual model.
///
/// ```
/// assert_ne!(kern_dist::compact::Dual::LsSvm, kern_dist::compact::Dual::Krr);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dual {
    /// LS-SVM with an intercept: `K_C + λI` (eq. 14 with `γ = 1/λ`), bordered solve.
    LsSvm,
    /// Kernel ridge regression: `K_C + λI`, no intercept.
    Krr,
}

/// Settings of [`fit_compact`]: the settings of the one-process iterative solve.
///
/// ```
/// use kern_dist::compact::{CompactParams, Dual};
/// let p = CompactParams::new(Dual::Krr, "cs-gaussian:sigma=1,c=2".parse()?, 0.5);
/// assert_eq!(p.pcg, kern_models::kern_sparse::PcgOptions::default());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CompactParams {
    /// LS-SVM or kernel ridge.
    pub dual: Dual,
    /// A compactly supported kernel.
    pub kernel: KernelSpec,
    /// λ, the ridge penalty of both models: `K_C + λI`.
    pub lambda: f64,
    /// Tolerance, iteration cap and preconditioner (only `none`).
    pub pcg: PcgOptions,
}

impl CompactParams {
    /// The default conjugate-gradient settings (`tol` 1e-6, at most 10,000 iterations, no preconditioner).
    pub fn new(dual: Dual, kernel: KernelSpec, lambda: f64) -> Self {
        CompactParams { dual, kernel, lambda, pcg: PcgOptions::default() }
    }

    /// The shift `s` of `K_C + sI`, after checking λ.
    fn shift(&self) -> Result<f64> {
        if !(self.lambda.is_finite() && self.lambda > 0.0) {
            return Err(DistError::Invalid(format!("lambda must be finite and > 0, not {}", self.lambda)));
        }
        Ok(self.lambda)
    }

    /// Checks everything that does not need the data; returns the support radius and the shift.
    fn check(&self, d: usize) -> Result<(f64, f64)> {
        let shift = self.shift()?;
        self.pcg.validate().map_err(|e| DistError::Invalid(e.to_string()))?;
        if self.pcg.preconditioner != Preconditioner::None {
            return Err(DistError::Invalid(
                "the distributed iterative solver has no preconditioner (use none): block Jacobi needs \
                 the global nested-dissection order"
                    .into(),
            ));
        }
        let c = match self.kernel.support_radius() {
            Some(c) if c.is_finite() && c > 0.0 => c,
            _ => {
                return Err(DistError::Invalid(format!(
                    "the iterative solver needs a compactly supported (cs-) kernel, not {}",
                    self.kernel
                )));
            }
        };
        self.kernel.check_dim(d)?;
        Ok((c, shift))
    }
}

/// What [`fit_compact`] computed on this rank.
///
/// ```
/// use kern_dist::compact::{fit_compact, CompactParams, Dual};
/// use kern_dist::{rows::read_part, SingleProcess};
/// let p = std::env::temp_dir().join(format!("kern-doc-compact-fit-{}.svm", std::process::id()));
/// let text: String = (0..30).map(|i| format!("{} 1:{}\n", (i as f64 * 0.2).cos(), i as f64 * 0.1)).collect();
/// std::fs::write(&p, text).unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// let params = CompactParams::new(Dual::Krr, "cs-gaussian:sigma=0.3,c=0.9".parse()?, 0.5);
/// let fit = fit_compact(&SingleProcess, &part, &params, true)?;
/// // One process owns every row, needs no halo, and kernel ridge has no intercept.
/// assert_eq!((fit.rows.len(), fit.alpha.len(), fit.halo), (30, 30, 0));
/// assert_eq!(fit.bias, vec![0.0]);
/// // K_C has its 30 diagonal entries and, with radius 0.9 on points 0.1 apart, some off the diagonal.
/// assert!(fit.nnz > 30 && fit.nnz < 30 * 30);
/// assert!(fit.report.converged);
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CompactFit {
    /// Global row indices of the rows this rank solved for, ascending.
    pub rows: Vec<usize>,
    /// Their coefficients, `rows.len() × r` column-major (`r` outputs).
    pub alpha: Vec<f64>,
    /// The `r` intercepts (zeros for kernel ridge), the same on every rank.
    pub bias: Vec<f64>,
    /// What the model predicts.
    pub task: Task,
    /// The worst conjugate-gradient report over the right-hand sides (the same on every rank).
    pub report: PcgReport,
    /// Halo rows this rank received.
    pub halo: usize,
    /// Stored entries of this rank's columns of `K_C`.
    pub nnz: usize,
    /// How far the training decision values stray from the intercepts, relative to the targets
    /// (kern-models' `relative_spread` of the ridge models, over all ranks; the same on every rank).
    pub relative_spread: f64,
}

/// A k-d split of the samples into `size` cells (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct KdSplit {
    size: usize,
    /// Preorder: the node of a range of `s ≥ 2` ranks cuts `dim` at `t`; its left child (the first
    /// `s/2` ranks, coordinates below `t`) follows it, its right child `s/2` nodes later.
    nodes: Vec<(usize, f64)>,
}

impl KdSplit {
    /// The split of `sample` into `size` cells of about equal counts.
    ///
    /// ```
    /// use kern_dist::compact::KdSplit;
    /// let x = kern_core::Samples::from_rows(&[[0.0, 5.0], [1.0, 5.0], [2.0, 5.0], [3.0, 5.0]])?;
    /// let s = KdSplit::build(&x, 2);
    /// assert_eq!((0..4).map(|i| s.rank_of(x.sample(i))).collect::<Vec<_>>(), vec![0, 0, 1, 1]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn build(sample: &Samples, size: usize) -> Self {
        let size = size.max(1);
        let mut nodes = Vec::with_capacity(size - 1);
        let mut pts: Vec<usize> = (0..sample.n()).collect();
        split_node(sample, &mut pts, size, &mut nodes);
        KdSplit { size, nodes }
    }

    /// The cell (rank) of a sample.
    pub fn rank_of(&self, x: SampleRef<'_>) -> usize {
        let (mut r0, mut r1, mut pos) = (0, self.size, 0);
        while r1 - r0 > 1 {
            let k = (r1 - r0) / 2;
            let (dim, t) = self.nodes[pos];
            if coord(x, dim) < t {
                r1 = r0 + k;
                pos += 1;
            } else {
                r0 += k;
                pos += k;
            }
        }
        r0
    }
}

fn split_node(x: &Samples, pts: &mut [usize], ranks: usize, nodes: &mut Vec<(usize, f64)>) {
    if ranks < 2 {
        return;
    }
    let k = ranks / 2;
    let ext = extent(x, pts);
    let mut dim = 0;
    for (j, &(lo, hi)) in ext.iter().enumerate() {
        if hi - lo > ext[dim].1 - ext[dim].0 {
            dim = j;
        }
    }
    pts.sort_by(|&a, &b| coord(x.sample(a), dim).total_cmp(&coord(x.sample(b), dim)).then(a.cmp(&b)));
    let cut = pts.len() * k / ranks;
    let t = pts.get(cut).map_or(0.0, |&i| coord(x.sample(i), dim));
    nodes.push((dim, t));
    let (left, right) = pts.split_at_mut(cut);
    split_node(x, left, k, nodes);
    split_node(x, right, ranks - k, nodes);
}

/// Coordinate `k` of a sample.
fn coord(x: SampleRef<'_>, k: usize) -> f64 {
    match x {
        SampleRef::Dense(v) => v.get(k).copied().unwrap_or(0.0),
        SampleRef::Sparse { indices, values } => indices.binary_search(&k).map_or(0.0, |p| values[p]),
    }
}

/// Per coordinate, the smallest and largest value over the rows `pts` (an empty set: `(+∞, −∞)`).
fn extent(x: &Samples, pts: &[usize]) -> Vec<(f64, f64)> {
    let mut ext = vec![(f64::INFINITY, f64::NEG_INFINITY); x.d()];
    let mut stored = vec![0usize; x.d()];
    for &i in pts {
        match x.sample(i) {
            SampleRef::Dense(v) => {
                for (e, &c) in ext.iter_mut().zip(v) {
                    *e = (e.0.min(c), e.1.max(c));
                }
            }
            SampleRef::Sparse { indices, values } => {
                for (&k, &c) in indices.iter().zip(values) {
                    ext[k] = (ext[k].0.min(c), ext[k].1.max(c));
                    stored[k] += 1;
                }
            }
        }
    }
    if x.is_sparse() {
        // Coordinates a row does not store are zeros.
        for (e, &s) in ext.iter_mut().zip(&stored) {
            if s < pts.len() {
                *e = (e.0.min(0.0), e.1.max(0.0));
            }
        }
    }
    ext
}

/// The same k-d split on every rank, built from rows `⌊k·n/S⌋` (`S` = min(n, 4,096))
/// gathered by one allgather. Collective.
///
/// ```
/// use kern_dist::{compact::spatial_split, rows::read_part, SingleProcess};
/// let p = std::env::temp_dir().join("kern-doc-split.svm");
/// std::fs::write(&p, "1 1:0\n1 1:1\n-1 1:2\n").unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// let s = spatial_split(&SingleProcess, &part)?;
/// assert_eq!(s.rank_of(part.samples.unwrap().sample(2)), 0);
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_dist::DistError>(())
/// ```
pub fn spatial_split(comm: &dyn Comm, rows: &DistRows) -> Result<KdSplit> {
    let n = rows.n_total;
    let s = n.min(SPLIT_SAMPLE);
    let idx: Vec<usize> = (0..s).map(|k| k * n / s).collect();
    let sample = crate::landmark::gather_rows(comm, rows, &idx)?;
    Ok(KdSplit::build(&sample, comm.size()))
}

/// Rows of one rank after the partition: global indices (ascending), samples, targets (`w` per row).
struct Owned {
    gid: Vec<usize>,
    x: Vec<Row>,
    y: Vec<f64>,
}

const NONE: u64 = 0;
const DENSE: u64 = 1;
const SPARSE: u64 = 2;

/// Whether the rows are stored sparse (agreed: ranks without rows take the others' store).
pub(crate) fn agreed_sparse(comm: &dyn Comm, rows: &DistRows) -> bool {
    let mut f = [match &rows.samples {
        None => NONE,
        Some(x) if x.is_sparse() => SPARSE,
        Some(_) => DENSE,
    }];
    comm.allreduce_max_u64(&mut f);
    f[0] == SPARSE
}

fn own_row(x: SampleRef<'_>) -> Row {
    match x {
        SampleRef::Dense(v) => (Vec::new(), v.to_vec()),
        SampleRef::Sparse { indices, values } => (indices.to_vec(), values.to_vec()),
    }
}

fn row_ref(r: &Row, sparse: bool) -> SampleRef<'_> {
    if sparse { SampleRef::Sparse { indices: &r.0, values: &r.1 } } else { SampleRef::Dense(&r.1) }
}

/// Sends every row to its cell's rank (`P − 1` ring shifts), with its global index and `w` targets.
fn redistribute(comm: &dyn Comm, rows: &DistRows, y: &[f64], w: usize, split: &KdSplit) -> Result<Owned> {
    let (p, size) = (comm.rank(), comm.size());
    let sparse = agreed_sparse(comm, rows);
    let dest: Vec<usize> = rows
        .samples
        .as_ref()
        .map_or_else(Vec::new, |x| (0..x.n()).map(|i| split.rank_of(x.sample(i))).collect());
    let mut got: Vec<(usize, Row, Vec<f64>)> = Vec::new();
    let mut failure: Option<DistError> = None;
    let take =
        |i: usize, x: &Samples| (rows.row_offset + i, own_row(x.sample(i)), y[i * w..(i + 1) * w].to_vec());
    if let Some(x) = &rows.samples {
        for i in (0..x.n()).filter(|&i| dest[i] == p) {
            got.push(take(i, x));
        }
    }
    for delta in 1..size {
        let to = (p + delta) % size;
        let mut msg = Writer::default();
        if let Some(x) = &rows.samples {
            for i in (0..x.n()).filter(|&i| dest[i] == to) {
                msg.u64((rows.row_offset + i) as u64).f64s(&y[i * w..(i + 1) * w]);
                write_row(&mut msg, x.sample(i));
            }
        }
        let back = comm.exchange_bytes(to, &msg.0, (p + size - delta) % size);
        let mut r = Reader(&back);
        let mut receive = || -> Result<()> {
            while !r.is_empty() {
                let g = r.u64()? as usize;
                let t = r.f64s()?;
                let row = read_row(&mut r, sparse)?;
                if t.len() != w {
                    return Err(DistError::Message(format!("{} targets for a row, {w} expected", t.len())));
                }
                got.push((g, row, t));
            }
            Ok(())
        };
        // Kept while this rank takes part in the remaining shifts; the caller agrees on it.
        if let Err(e) = receive() {
            failure.get_or_insert(e);
        }
    }
    if let Some(e) = failure {
        return Err(e);
    }
    got.sort_by_key(|r| r.0);
    let mut o = Owned { gid: Vec::with_capacity(got.len()), x: Vec::with_capacity(got.len()), y: Vec::new() };
    for (g, row, t) in got {
        o.gid.push(g);
        o.x.push(row);
        o.y.extend(t);
    }
    Ok(o)
}

/// Squared distance of a sample to a box (`lo`, `hi` per coordinate) and an upper bound on its
/// rounding error; `base` is the squared distance of the origin (for sparse rows).
fn box_dist2(x: SampleRef<'_>, lo: &[f64], hi: &[f64], base: f64) -> (f64, f64) {
    let g = |k: usize, v: f64| gap2(v, lo[k], hi[k]);
    match x {
        SampleRef::Dense(v) => {
            let s: f64 = v.iter().enumerate().map(|(k, &c)| g(k, c)).sum();
            (s, 4.0 * v.len() as f64 * f64::EPSILON * s)
        }
        SampleRef::Sparse { indices, values } => {
            let mut s = base;
            for (&k, &c) in indices.iter().zip(values) {
                s += g(k, c) - g(k, 0.0);
            }
            (s, 4.0 * (lo.len() + 2 * indices.len()) as f64 * f64::EPSILON * (base + s.abs()))
        }
    }
}

/// The squared distance of `v` to the interval `[lo, hi]`.
fn gap2(v: f64, lo: f64, hi: f64) -> f64 {
    let e = if v < lo {
        lo - v
    } else if v > hi {
        v - hi
    } else {
        0.0
    };
    e * e
}

/// The rank's operator: its columns of `K_C` over its own rows followed by the halo rows, and the
/// shifts that bring the halo rows' entries of a vector.
struct Operator {
    n_own: usize,
    n_halo: usize,
    shift: f64,
    col_ptr: Vec<usize>,
    idx: Vec<usize>,
    val: Vec<f64>,
    /// Per shift distance δ carrying data for some rank: δ, this rank's rows it sends to `p + δ`,
    /// and where the rows received from `p − δ` start among the halo rows and how many.
    rounds: Vec<(usize, Vec<usize>, usize, usize)>,
}

/// Builds the halo (module docs) and the rank's columns of `K_C`. Collective.
fn operator(
    comm: &dyn Comm,
    own: &Owned,
    kernel: &KernelSpec,
    c: f64,
    shift: f64,
    d: usize,
    sparse: bool,
) -> Result<Operator> {
    let (p, size) = (comm.rank(), comm.size());
    let n_own = own.gid.len();
    // Bounding boxes of all ranks (lo then hi).
    let mut lo = vec![f64::INFINITY; d];
    let mut hi = vec![f64::NEG_INFINITY; d];
    let mut stored = vec![0usize; d];
    for r in &own.x {
        match row_ref(r, sparse) {
            SampleRef::Dense(v) => {
                for ((l, h), &value) in lo.iter_mut().zip(hi.iter_mut()).zip(v) {
                    *l = l.min(value);
                    *h = h.max(value);
                }
            }
            SampleRef::Sparse { indices, values } => {
                for (&k, &v) in indices.iter().zip(values) {
                    lo[k] = lo[k].min(v);
                    hi[k] = hi[k].max(v);
                    stored[k] += 1;
                }
            }
        }
    }
    if sparse {
        // Coordinates a row does not store are zeros.
        for ((l, h), &s) in lo.iter_mut().zip(hi.iter_mut()).zip(&stored) {
            if s < n_own {
                *l = l.min(0.0);
                *h = h.max(0.0);
            }
        }
    }
    let mut msg = Writer::default();
    msg.f64s(&lo).f64s(&hi);
    let boxes = comm.allgather_bytes(&msg.0);
    let boxes: Vec<(Vec<f64>, Vec<f64>)> = boxes
        .iter()
        .map(|b| {
            let mut r = Reader(b);
            Ok((r.f64s()?, r.f64s()?))
        })
        .collect::<Result<_>>()?;
    if boxes.iter().any(|(l, h)| l.len() != d || h.len() != d) {
        return Err(DistError::Message("a bounding box of the wrong dimension".into()));
    }
    let c2 = (c * (1.0 + HALO_SLACK)).powi(2);
    // The rows each other rank needs, by shift distance.
    let sends: Vec<Vec<usize>> = (0..size)
        .map(|delta| {
            if delta == 0 {
                return Vec::new();
            }
            let (blo, bhi) = &boxes[(p + delta) % size];
            if blo.iter().zip(bhi).any(|(l, h)| l > h) {
                return Vec::new(); // a rank without rows
            }
            let base: f64 = (0..d).map(|k| gap2(0.0, blo[k], bhi[k])).sum();
            (0..n_own)
                .filter(|&i| {
                    let (s, err) = box_dist2(row_ref(&own.x[i], sparse), blo, bhi, base);
                    s - err < c2
                })
                .collect()
        })
        .collect();
    let mut used: Vec<u64> = sends.iter().map(|s| u64::from(!s.is_empty())).collect();
    comm.allreduce_max_u64(&mut used);
    let mut halo_rows: Vec<Row> = Vec::new();
    let mut halo_gid: Vec<usize> = Vec::new();
    let mut failure: Option<DistError> = None;
    let mut rounds = Vec::new();
    for delta in (1..size).filter(|&delta| used[delta] != 0) {
        let mut msg = Writer::default();
        for &i in &sends[delta] {
            msg.u64(own.gid[i] as u64);
            write_row(&mut msg, row_ref(&own.x[i], sparse));
        }
        let back = comm.exchange_bytes((p + delta) % size, &msg.0, (p + size - delta) % size);
        let mut r = Reader(&back);
        let start = halo_rows.len();
        let mut receive = || -> Result<()> {
            while !r.is_empty() {
                halo_gid.push(r.u64()? as usize);
                halo_rows.push(read_row(&mut r, sparse)?);
            }
            Ok(())
        };
        // Kept while this rank takes part in the remaining shifts; the caller agrees on it.
        if let Err(e) = receive() {
            failure.get_or_insert(e);
        }
        rounds.push((delta, sends[delta].clone(), start, halo_rows.len() - start));
    }
    if let Some(e) = failure {
        return Err(e);
    }
    let n_halo = halo_rows.len();
    let mut gid: Vec<usize> = own.gid.clone();
    gid.extend(&halo_gid);
    let mut op = Operator {
        n_own,
        n_halo,
        shift,
        col_ptr: vec![0; n_own + 1],
        idx: Vec::new(),
        val: Vec::new(),
        rounds,
    };
    if n_own == 0 {
        return Ok(op);
    }
    let points: Vec<Row> = own.x.iter().chain(&halo_rows).cloned().collect();
    let points = build_samples(points, d, sparse)?;
    let queries = build_samples(own.x.clone(), d, sparse)?;
    // Column j: the neighbours of own row j among own and halo rows, k(x_i, x_j) as the one-process K_C.
    let (col_ptr, mut idx, mut val) = sparse_cross_gram(kernel, &points, &queries)?.disassemble();
    // The one-process order: by global row index.
    for w in col_ptr.windows(2) {
        let (a, b) = (w[0], w[1]);
        let mut e: Vec<(usize, usize, f64)> = (a..b).map(|t| (gid[idx[t]], idx[t], val[t])).collect();
        e.sort_unstable_by_key(|t| t.0);
        for (t, (_, i, v)) in (a..b).zip(e) {
            idx[t] = i;
            val[t] = v;
        }
    }
    op.col_ptr = col_ptr;
    op.idx = idx;
    op.val = val;
    Ok(op)
}

impl Operator {
    /// `out = (K_C + sI) v` on this rank's rows for every column of `v` (`n_own × cols`), after the
    /// halo exchange. Collective.
    fn apply(&self, comm: &dyn Comm, v: &[f64], out: &mut [f64], full: &mut Vec<f64>) -> Result<()> {
        let (p, size) = (comm.rank(), comm.size());
        let (n, nh) = (self.n_own, self.n_halo);
        // A rank without rows still takes part in the exchanges (it sends and receives nothing).
        let cols = v.len().checked_div(n).unwrap_or(0);
        let width = n + nh;
        full.clear();
        full.resize(width * cols, 0.0);
        let mut failure: Option<DistError> = None;
        for t in 0..cols {
            full[t * width..t * width + n].copy_from_slice(&v[t * n..(t + 1) * n]);
        }
        for (delta, send, start, count) in &self.rounds {
            let mut msg = Writer::default();
            for t in 0..cols {
                for &i in send {
                    msg.f64(v[t * n + i]);
                }
            }
            let back = comm.exchange_bytes((p + delta) % size, &msg.0, (p + size - delta) % size);
            if back.len() != 8 * count * cols {
                // Kept while this rank takes part in the remaining shifts.
                failure.get_or_insert(DistError::Message(format!(
                    "{} bytes of halo values, {} expected",
                    back.len(),
                    8 * count * cols
                )));
                continue;
            }
            let mut r = Reader(&back);
            for t in 0..cols {
                for h in 0..*count {
                    full[t * width + n + start + h] = r.f64()?;
                }
            }
        }
        if let Some(e) = failure {
            return Err(e);
        }
        for t in 0..cols {
            let vt = &full[t * width..(t + 1) * width];
            shifted_column_dots(
                &self.col_ptr,
                &self.idx,
                &self.val,
                self.shift,
                vt,
                &mut out[t * n..(t + 1) * n],
            )?;
        }
        Ok(())
    }
}

/// Targets of this rank's rows as the dual system's right-hand sides, row-major `n_local × r`, as
/// the one-process encoding (±1; one-vs-rest ±1 columns above two classes; values).
fn encode(t: Option<&Targets>, n_local: usize, task: &Task) -> Vec<f64> {
    let r = task.outputs();
    let mut y = vec![0.0; n_local * r];
    match t {
        None => {}
        Some(Targets::Binary(b)) => y.copy_from_slice(b.y()),
        Some(Targets::Real(v)) => y.copy_from_slice(v.values()),
        Some(Targets::Classes(c)) => {
            for (i, &k) in c.classes().iter().enumerate() {
                if r == 1 {
                    y[i] = if k == 1 { 1.0 } else { -1.0 };
                } else {
                    for t in 0..r {
                        y[i * r + t] = if k == t { 1.0 } else { -1.0 };
                    }
                }
            }
        }
    }
    y
}

/// Fits a compact-kernel LS-SVM or kernel ridge model by distributed conjugate gradients (collective;
/// module docs). `regression`: real targets for the LS-SVM (kernel ridge always regresses). Every rank
/// gets its rows' coefficients and the common intercepts; [`model_bytes`] assembles the model file.
///
/// ```
/// use kern_dist::compact::{fit_compact, CompactParams, Dual};
/// use kern_dist::{rows::read_part, SingleProcess};
/// let p = std::env::temp_dir().join("kern-doc-fit-compact.svm");
/// let text: String = (0..50).map(|i| format!("{} 1:{}\n", if i % 7 < 3 { 1 } else { -1 }, i as f64 * 0.1)).collect();
/// std::fs::write(&p, text).unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// let params = CompactParams::new(Dual::LsSvm, "cs-gaussian:sigma=0.3,c=0.9".parse()?, 2.0);
/// let fit = fit_compact(&SingleProcess, &part, &params, false)?;
/// assert!(fit.report.converged && fit.rows == (0..50).collect::<Vec<_>>());
/// assert!(fit.alpha.iter().sum::<f64>().abs() < 1e-6); // first row of eq. 14
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn fit_compact(
    comm: &dyn Comm,
    rows: &DistRows,
    params: &CompactParams,
    regression: bool,
) -> Result<CompactFit> {
    let (c, shift) = params.check(rows.d)?;
    let bias = params.dual == Dual::LsSvm;
    let (targets, task) = targets_part(comm, rows, regression || !bias)?;
    let r = task.outputs();
    let y = encode(targets.as_ref(), rows.n_local(), &task);
    let split = spatial_split(comm, rows)?;
    let sparse = agreed_sparse(comm, rows);
    let own = agree(comm, redistribute(comm, rows, &y, r, &split))?;
    let op = agree(comm, operator(comm, &own, &params.kernel, c, shift, rows.d, sparse))?;
    let n = own.gid.len();
    // Right-hand sides, column-major n × cols: [1 | Y] (LS-SVM) or Y.
    let cols = r + usize::from(bias);
    let mut b = vec![0.0; n * cols];
    if bias {
        b[..n].fill(1.0);
    }
    for (i, yi) in own.y.chunks_exact(r.max(1)).enumerate() {
        for (t, &v) in yi.iter().enumerate() {
            b[(t + usize::from(bias)) * n + i] = v;
        }
    }
    let terms = (n as u64).saturating_mul(cols as u64);
    agree(
        comm,
        if terms >= 1 << 30 {
            Err(DistError::Invalid(format!(
                "{n} rows on one rank: too many for the exact sums; use more ranks"
            )))
        } else {
            Ok(())
        },
    )?;
    let max = |v: &mut [u64]| comm.allreduce_max_u64(v);
    let sum = |v: &mut [f64]| comm.allreduce_sum(v);
    let dots = |pairs: &[(&[f64], &[f64])]| -> Vec<f64> {
        let mut acc = ExactSums::new(pairs.len());
        for (k, (u, v)) in pairs.iter().enumerate() {
            for (a, b) in u.iter().zip(*v) {
                acc.add(k, a * b);
            }
        }
        // The term count was checked above, so finishing cannot fail.
        acc.finish(&max, &sum).unwrap_or_else(|_| vec![f64::NAN; pairs.len()])
    };
    let mut full = Vec::new();
    // A product that fails on this rank (a halo message that does not decode) leaves NaN in its rows
    // instead of returning early: every rank then sees the same (NaN) sums and takes the same steps,
    // and the error is agreed on after the solve.
    let apply_error: std::cell::RefCell<Option<DistError>> = std::cell::RefCell::new(None);
    let apply = |v: &[f64], out: &mut [f64]| -> Result<()> {
        if let Err(e) = op.apply(comm, v, out, &mut full) {
            out.fill(f64::NAN);
            apply_error.borrow_mut().get_or_insert(e);
        }
        Ok(())
    };
    let solved = cg_columns_with::<_, _, _, DistError>(
        &b,
        n,
        cols,
        &params.pcg,
        apply,
        |r, z| z.copy_from_slice(r),
        dots,
    );
    let solved = match apply_error.into_inner() {
        Some(e) => Err(e),
        None => solved,
    };
    let (x, reports) = agree(comm, solved)?;
    let report = reports.iter().skip(1).fold(reports[0], |w, &rep| w.worst(rep));
    let (alpha, bias_v) = if bias {
        // The bordered elimination of eq. 14: b = 1ᵀη / 1ᵀν, α = η − b ν (sums exact over rows).
        let mut acc = ExactSums::new(cols);
        for (t, xt) in x.chunks_exact(n.max(1)).enumerate() {
            xt.iter().for_each(|&v| acc.add(t, v));
        }
        let s = acc.finish(&max, &sum)?;
        let sum_nu = s[0];
        if !(sum_nu.is_finite() && sum_nu > 0.0) {
            return Err(DistError::Invalid(format!(
                "1ᵀ(K + λI)⁻¹1 = {sum_nu:e} is not positive: the solver is not usable"
            )));
        }
        let bv: Vec<f64> = (0..r).map(|t| s[t + 1] / sum_nu).collect();
        let nu = &x[..n];
        let alpha: Vec<f64> = (0..r)
            .flat_map(|t| {
                let bt = bv[t];
                x[(t + 1) * n..(t + 2) * n].iter().zip(nu).map(move |(&e, &v)| e - bt * v)
            })
            .collect();
        (alpha, bv)
    } else {
        (x, vec![0.0; r])
    };
    // The relative spread of the training decision values: f − b = y − b − λα on every row (as
    // kern-models' ridge models compute it), the maxima over all ranks.
    let mut spread = kern_models::ridge::Spread::default();
    for (i, yi) in own.y.chunks_exact(r.max(1)).enumerate() {
        for (t, (&v, &bt)) in yi.iter().zip(&bias_v).enumerate() {
            spread.add(v - bt - params.lambda * alpha[t * n + i], v - bt);
        }
    }
    let mut m = [spread.fit, spread.target];
    comm.allreduce_max_f64(&mut m);
    let relative_spread = kern_models::ridge::Spread { fit: m[0], target: m[1] }.ratio();
    Ok(CompactFit {
        rows: own.gid,
        alpha,
        bias: bias_v,
        task,
        report,
        halo: op.n_halo,
        nnz: op.val.len(),
        relative_spread,
    })
}

/// The model file of a distributed fit, on rank 0 (`None` on the others): the rows read in parts
/// (`rows`, file order) and every rank's coefficients are gathered there, and the file is the one
/// `kern train --solver iterative` writes (`kern predict` reads it), built by kern-models'
/// `from_parts` constructors (which check it as a model file is checked). Collective.
///
/// ```
/// use kern_dist::compact::{fit_compact, model_bytes, CompactParams, Dual};
/// use kern_dist::{rows::read_part, SingleProcess};
/// use kern_models::{krr::KernelRidge, persist};
/// let p = std::env::temp_dir().join("kern-doc-compact-bytes.svm");
/// let text: String = (0..40).map(|i| format!("{} 1:{}\n", (i as f64 * 0.3).sin(), i as f64 * 0.1)).collect();
/// std::fs::write(&p, text).unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// let params = CompactParams::new(Dual::Krr, "cs-gaussian:sigma=0.3,c=0.9".parse()?, 0.5);
/// let fit = fit_compact(&SingleProcess, &part, &params, true)?;
/// let bytes = model_bytes(&SingleProcess, &part, &fit, &params)?.unwrap();
/// let model: KernelRidge = persist::from_bytes(&bytes, "<bytes>")?;
/// assert_eq!(model.alpha(0), &fit.alpha[..]);
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn model_bytes(
    comm: &dyn Comm,
    rows: &DistRows,
    fit: &CompactFit,
    params: &CompactParams,
) -> Result<Option<Vec<u8>>> {
    let r = fit.bias.len();
    let n_own = fit.rows.len();
    let mut msg = Writer::default();
    for (i, &g) in fit.rows.iter().enumerate() {
        msg.u64(g as u64);
        for t in 0..r {
            msg.f64(fit.alpha[t * n_own + i]);
        }
    }
    let coefs = comm.gather_bytes(0, &msg.0);
    let mut msg = Writer::default();
    if let Some(x) = &rows.samples {
        for i in 0..x.n() {
            write_row(&mut msg, x.sample(i));
        }
    }
    let sparse = agreed_sparse(comm, rows);
    let samples = comm.gather_bytes(0, &msg.0);
    let (Some(coefs), Some(samples)) = (coefs, samples) else { return agree(comm, Ok(None)) };
    let local = || -> Result<Vec<u8>> {
        let n = rows.n_total;
        let mut alpha = vec![f64::NAN; n * r];
        let mut seen = 0usize;
        for m in &coefs {
            let mut rd = Reader(m);
            while !rd.is_empty() {
                let g = rd.u64()? as usize;
                if g >= n {
                    return Err(DistError::Message(format!("row {g} of {n}")));
                }
                for t in 0..r {
                    alpha[t * n + g] = rd.f64()?;
                }
                seen += 1;
            }
        }
        if seen != n {
            return Err(DistError::Message(format!("{seen} coefficients gathered for {n} rows")));
        }
        let mut all: Vec<Row> = Vec::with_capacity(n);
        for m in &samples {
            let mut rd = Reader(m);
            while !rd.is_empty() {
                all.push(read_row(&mut rd, sparse)?);
            }
        }
        let parts = DualParts {
            kernel: params.kernel.clone(),
            train: build_samples(all, rows.d, sparse)?,
            alpha,
            bias: fit.bias.clone(),
            task: fit.task.clone(),
            lambda: params.lambda,
            path: SolvePath::Sparse,
            solver: Solver::Iterative,
            pcg: Some(fit.report),
        };
        let bytes = match params.dual {
            Dual::LsSvm => persist::to_bytes(&LsSvm::from_parts(parts)?)?,
            Dual::Krr => persist::to_bytes(&KernelRidge::from_parts(parts)?)?,
        };
        Ok(bytes)
    };
    agree(comm, local().map(Some))
}
