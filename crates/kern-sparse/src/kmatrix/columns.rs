//! Signed kernel columns over a permutation: `Q_pq = s_p s_q k(x_{σ(p)}, x_{σ(q)})`, the column source
//! of the SMO solvers (C-SVC: `s` is the label; ε-SVR: the sign of the half, whose `2n` variables refer
//! to `n` samples).
//!
//! Columns are computed in the solver's (permuted) order over a contiguous range of positions, in
//! parallel once a column is long enough to pay for the split. Three sources:
//!
//! - **evaluation** on the samples. A dense store is copied once in permuted order (row-major, or
//!   feature-major when the kernel's [`Kernel::fast_sq_dist`] says its vectorized
//!   [`Kernel::apply_sq_dist`] makes columns cheap in low dimension) so the active positions stay
//!   contiguous. A sparse store is indexed once by feature ([`InvertedIndex`], 12 bytes per
//!   nonzero): a column of a dot-product kernel, or of a radial kernel by norms, is then one pass over
//!   the posting lists of the column's sample — the pairs that share a feature, not a merge of every
//!   pair's index lists — and takes the merged sparse products ([`kern_core::SampleRef::dot`]) only
//!   for short column pieces, where that is cheaper. Both give the same sums, bit for bit.
//! - **gathers** from a precomputed dense Gram matrix (a faer `Mat`, shared, never copied).
//! - **scatters** from a precomputed sparse Gram matrix (compact support: only the neighbours within
//!   the support radius are non-zero).

use super::on_demand::{ColumnLru, KcColumn, SparseOnDemand};
use faer::Mat;
use kern_core::{InvertedIndex, Kernel, Profile, Samples, dot, sq_dist};
use nalgebra_sparse::CscMatrix;
use rayon::prelude::*;
use std::sync::{Arc, Mutex};

/// A precomputed Gram matrix over sample indices, shared (never copied) by every problem built on it.
///
/// ```
/// use kern_sparse::kmatrix::Precomputed;
/// let p = Precomputed::Dense(std::sync::Arc::new(faer::Mat::<f64>::identity(3, 3)));
/// assert_eq!(p.bytes(), 72);
/// ```
#[derive(Clone, Debug)]
pub enum Precomputed {
    /// Dense symmetric `K(X, X)`.
    Dense(Arc<Mat<f64>>),
    /// Sparse symmetric `K_C(X, X)` (full symmetric pattern) of a compactly supported kernel.
    Sparse(Arc<CscMatrix<f64>>),
    /// The columns of `K_C(X, X)` computed on demand ([`SparseOnDemand`]), each problem's recent
    /// columns held in a cache of at most `cache_bytes` bytes: for a `K_C` that would not fit.
    OnDemand {
        /// The neighbour index of `X` (shared).
        kc: Arc<SparseOnDemand>,
        /// The column cache's budget, per problem built on it.
        cache_bytes: usize,
    },
}

impl Precomputed {
    /// Bytes held (charged to a column-cache budget).
    pub fn bytes(&self) -> usize {
        match self {
            Precomputed::Dense(g) => g.nrows() * g.ncols() * 8,
            Precomputed::Sparse(g) => g.nnz() * 16 + (g.ncols() + 1) * 8,
            Precomputed::OnDemand { kc, .. } => kc.bytes(),
        }
    }
}

/// How the values of one column are obtained.
enum Source {
    /// Evaluate the kernel on the samples.
    Eval,
    /// Gather from a precomputed dense Gram matrix.
    Dense(Arc<Mat<f64>>),
    /// Scatter the neighbours of the column's sample (zeros elsewhere). `pos[v]` is the position of
    /// variable `v`; variable `v` refers to sample `v mod n`. `ordered`: no positions were swapped, so
    /// `pos` is the identity and positions increase with rows.
    Sparse { kc: Kc, pos: Vec<usize>, var: Vec<usize>, ordered: bool },
}

/// Where the columns of a sparse `K_C` come from.
enum Kc {
    /// The precomputed matrix.
    Stored(Arc<CscMatrix<f64>>),
    /// Computed on demand, recent columns cached.
    /// The cache is boxed: it is large beside the other sources, and built once per solver.
    OnDemand { od: Arc<SparseOnDemand>, lru: Box<Mutex<ColumnLru>> },
}

impl Kc {
    /// Samples `n` (columns of `K_C`).
    fn n(&self) -> usize {
        match self {
            Kc::Stored(g) => g.ncols(),
            Kc::OnDemand { od, .. } => od.n(),
        }
    }

    /// Stored entries of `K_C` (predicted when on demand).
    fn nnz(&self) -> usize {
        match self {
            Kc::Stored(g) => g.nnz(),
            Kc::OnDemand { od, .. } => od.predicted_nnz(),
        }
    }
}

/// Entries per parallel task when a column is split across threads.
const PAR_CHUNK: usize = 1024;

/// Work (in multiply-adds) from which [`SignedColumns::fill_column`] splits a column across the
/// pool's threads, and from which a sparse store's inverted index computes a column's inner
/// products in parallel: below, the hand-off to another worker costs more than it saves.
///
/// ```
/// assert_eq!(kern_sparse::kmatrix::COLUMN_SPLIT_WORK, 1 << 15);
/// ```
pub const COLUMN_SPLIT_WORK: usize = 1 << 15;

/// The work a column entry of a kernel evaluated on `x` is counted at when deciding whether to
/// split the column: twice the mean stored entries of a sample plus 8 on a sparse store, `d` on a
/// dense one.
fn entry_cost(x: &Samples) -> usize {
    if x.is_sparse() { x.nnz() / x.n().max(1) * 2 + 8 } else { x.d() }
}

/// Whether every column over at most `l` variables of `x` is filled on the calling thread, whatever
/// the kernel and the pool: [`SignedColumns::fill_column`] counts at most `l · (entry cost + 8)` work
/// for such a column, and a sparse store's inverted index scans at most its `nnz` stored entries,
/// both below [`COLUMN_SPLIT_WORK`]. A fit whose columns all stay serial, and whose solver does not
/// split its passes, uses no thread but the one it runs on.
///
/// ```
/// use kern_core::Samples;
/// use kern_sparse::kmatrix::columns_stay_serial;
/// let x = Samples::from_flat(vec![0.5; 100 * 13], 100, 13)?;
/// assert!(columns_stay_serial(&x, 100)); // 100 · (13 + 8) multiply-adds
/// assert!(!columns_stay_serial(&x, 10_000));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn columns_stay_serial(x: &Samples, l: usize) -> bool {
    let scan = if x.is_sparse() { x.nnz() } else { 0 };
    l.saturating_mul(entry_cost(x) + 8) < COLUMN_SPLIT_WORK && scan < COLUMN_SPLIT_WORK
}

/// Entries per block of the column passes on the feature-major and panel copies (8 KB: the block stays
/// in L1 across its passes).
const XT_BLOCK: usize = 1024;

/// `out[k] = Σ_f (xt[f·l + at + k] − xt[f·l + j])²`: squared distances of positions `at..` to `j` on
/// the feature-major copy, compiled for the CPU's SIMD level (`pulp`).
struct SqDists<'a> {
    xt: &'a [f64],
    l: usize,
    d: usize,
    j: usize,
    at: usize,
    out: &'a mut [f64],
}

impl pulp::WithSimd for SqDists<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        let SqDists { xt, l, d, j, at, out } = self;
        let len = out.len();
        for f in 0..d {
            let c = xt[f * l + j];
            let col = &xt[f * l + at..f * l + at + len];
            if f == 0 {
                for (o, &v) in out.iter_mut().zip(col) {
                    let t = v - c;
                    *o = t * t;
                }
            } else {
                for (o, &v) in out.iter_mut().zip(col) {
                    let t = v - c;
                    *o += t * t;
                }
            }
        }
    }
}

/// Positions per panel of the by-norms copy (one 256-bit vector of `f64`).
const PANEL: usize = 4;

/// Where position `p`'s first feature sits in a panel copy of `d` features (feature `k` is `PANEL`
/// entries further per feature; see [`NormDists`]).
#[inline]
fn panel_base(p: usize, d: usize) -> usize {
    p / PANEL * PANEL * d + p % PANEL
}

/// `out[k] = max(0, ‖x_{at+k}‖² + ‖x_j‖² − 2⟨x_{at+k}, x_j⟩)` on the panel copy (radial kernels by
/// norms), compiled for the CPU's SIMD level. The copy holds [`PANEL`] positions' samples feature by
/// feature (`xp[(p / PANEL)·PANEL·d + f·PANEL + p % PANEL]`), so a column is one sequential sweep and
/// each panel's inner products stay in registers. They are summed exactly as [`dot`] sums them
/// (eight accumulators over the features, combined in its order, then the tail), so the values are
/// bit for bit those of the row-major evaluation; here each lane is one position.
struct NormDists<'a> {
    /// The panel copy as rows of `PANEL` lanes: panel `P` is rows `P·d .. (P + 1)·d`.
    xp: &'a [[f64; PANEL]],
    /// The sample of position `j`, row-major.
    xj: &'a [f64],
    at: usize,
    norms: &'a [f64],
    nj: f64,
    out: &'a mut [f64],
}

impl NormDists<'_> {
    /// The inner products of a panel's positions (its `d` rows) with `xj`, each lane summed as [`dot`]
    /// sums.
    #[inline(always)]
    fn panel_dots(rows: &[[f64; PANEL]], xj: &[f64]) -> [f64; PANEL] {
        let chunks = xj.len() / 8;
        let (head, tail) = rows.split_at(chunks * 8);
        let (xh, xt) = xj.split_at(chunks * 8);
        let (head, xh) = (head.as_chunks::<8>().0, xh.as_chunks::<8>().0);
        let mut s = [0.0f64; PANEL];
        if let Some((first, rest)) = head.split_first() {
            // `dot` starts its accumulators at 0: 0 + v·x_f is v·x_f except for the sign of a zero,
            // which the `max(0, …)` of the caller removes.
            let mut acc = [[0.0f64; PANEL]; 8];
            for ((a, r), &x) in acc.iter_mut().zip(first).zip(&xh[0]) {
                for k in 0..PANEL {
                    a[k] = r[k] * x;
                }
            }
            for (block, x8) in rest.iter().zip(&xh[1..]) {
                for ((a, r), &x) in acc.iter_mut().zip(block).zip(x8) {
                    for k in 0..PANEL {
                        a[k] += r[k] * x;
                    }
                }
            }
            for (k, s) in s.iter_mut().enumerate() {
                let a = |t: usize| acc[t][k];
                *s = ((a(0) + a(4)) + (a(1) + a(5))) + ((a(2) + a(6)) + (a(3) + a(7)));
            }
        }
        for (r, &x) in tail.iter().zip(xt) {
            for k in 0..PANEL {
                s[k] += r[k] * x;
            }
        }
        s
    }
}

impl pulp::WithSimd for NormDists<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        let NormDists { xp, xj, at, norms, nj, out } = self;
        let d = xj.len();
        let panel = |p: usize| &xp[p * d..(p + 1) * d];
        let value = |dot: f64, np: f64| (np + nj - 2.0 * dot).max(0.0);
        // A partial panel at either end: its positions in range, one by one.
        let partial = |p: usize, lanes: std::ops::Range<usize>, out: &mut [f64], norms: &[f64]| {
            let dots = Self::panel_dots(panel(p), xj);
            for ((o, &np), &dot) in out.iter_mut().zip(norms).zip(&dots[lanes]) {
                *o = value(dot, np);
            }
        };
        let head = ((PANEL - at % PANEL) % PANEL).min(out.len());
        let (out_head, out) = out.split_at_mut(head);
        let (norms_head, norms) = norms.split_at(head);
        if head > 0 {
            partial(at / PANEL, at % PANEL..at % PANEL + head, out_head, norms_head);
        }
        let first = (at + head) / PANEL;
        let (full, out_tail) = out.as_chunks_mut::<PANEL>();
        let (norms_full, norms_tail) = norms.as_chunks::<PANEL>();
        for (b, (o, np)) in full.iter_mut().zip(norms_full).enumerate() {
            let dots = Self::panel_dots(panel(first + b), xj);
            for k in 0..PANEL {
                o[k] = value(dots[k], np[k]);
            }
        }
        if !out_tail.is_empty() {
            partial(first + full.len(), 0..out_tail.len(), out_tail, norms_tail);
        }
    }
}

/// `out[k] ← out[k] · (sign[k] · sj)`, compiled for the CPU's SIMD level.
struct Signs<'a> {
    sign: &'a [f64],
    sj: f64,
    out: &'a mut [f64],
}

impl pulp::WithSimd for Signs<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        for (o, &s) in self.out.iter_mut().zip(self.sign) {
            *o *= s * self.sj;
        }
    }
}

/// [`Signs`] when every sign is ±1, from one byte per position (`neg[k]`: 1 where `sign[k] = −1`):
/// a product with ±1 is the value with its sign bit flipped or kept, so flipping the bit gives the
/// same bits as the product while reading an eighth of the memory.
struct SignBits<'a> {
    neg: &'a [u8],
    /// The sign bit of `sj`, in place.
    flip: u64,
    out: &'a mut [f64],
}

impl pulp::WithSimd for SignBits<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        for (o, &n) in self.out.iter_mut().zip(self.neg) {
            *o = f64::from_bits(o.to_bits() ^ (((n as u64) << 63) ^ self.flip));
        }
    }
}

/// Dimension above which radial kernels use the norms formulation `‖x‖² + ‖y‖² − 2⟨x, y⟩` (a dot
/// product vectorizes better than differences).
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_sparse::kmatrix::{NORMS_MIN_DIM, SignedColumns};
/// let k = Gaussian::with_sigma(1.0)?;
/// let points = |d: usize| Samples::from_flat((0..3 * d).map(|v| v as f64 * 0.1).collect(), 3, d);
/// let (low, high) = (points(NORMS_MIN_DIM)?, points(NORMS_MIN_DIM + 1)?);
/// // Up to this dimension a column is the cheap direct sweep (worth recomputing, not caching).
/// assert!(SignedColumns::new(&k, &low, vec![0, 1, 2], vec![1.0; 3], None).cheap_columns());
/// assert!(!SignedColumns::new(&k, &high, vec![0, 1, 2], vec![1.0; 3], None).cheap_columns());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const NORMS_MIN_DIM: usize = 8;

/// Signed kernel columns over a permutation of (possibly repeated) samples.
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_sparse::kmatrix::SignedColumns;
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?;
/// let k = Gaussian::with_sigma(1.0)?;
/// let mut q = SignedColumns::new(&k, &x, vec![0, 1, 2], vec![1.0, -1.0, 1.0], None);
/// q.swap_index(0, 2);                                  // positions now refer to samples 2, 1, 0
/// let mut col = [0.0; 3];
/// q.fill_column(0, 0, &mut col);                       // Q[p][0] = s_p s_0 k(x_σ(p), x_2)
/// assert!((col[1] + (-4.0f64).exp()).abs() < 1e-15); // −k(x_1, x_2) = −exp(−(3 − 1)²/σ²)
/// assert_eq!(q.diag(), vec![1.0, 1.0, 1.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SignedColumns<'a, K: Kernel> {
    kernel: &'a K,
    samples: &'a Samples,
    d: usize,
    /// Permuted dense samples, row-major `l × d` (dense store, general evaluation).
    x: Vec<f64>,
    /// Feature-major permuted dense samples (`xt[k·l + p]`), for radial kernels with a fast vectorized
    /// profile in low dimension: a column's squared distances are then contiguous sweeps across
    /// positions.
    xt: Vec<f64>,
    /// The same samples in panels of [`PANEL`] positions, feature-major within a panel (see
    /// [`NormDists`]), for radial kernels with a fast profile by norms: a column is one sweep.
    xp: Vec<f64>,
    /// Squared norms of the permuted samples (radial kernels by norms).
    norms: Vec<f64>,
    sign: Vec<f64>,
    /// `1` where `sign` is −1, `0` where it is +1 ([`SignBits`]); empty when some sign is neither.
    neg: Vec<u8>,
    /// Sample index of each position.
    sample: Vec<usize>,
    source: Source,
    profile: Profile,
    /// Use `‖x‖² + ‖y‖² − 2⟨x, y⟩` instead of direct differences (high dimension).
    by_norms: bool,
    /// Sparse store, dot-product or radial-by-norms kernel: the feature index of the variables (the
    /// positions at construction) and the column pieces it computes.
    inverted: Option<Inverted>,
    /// The SIMD level of this CPU, for the column passes (elementwise: the same values at any level).
    arch: pulp::Arch,
}

/// The inverted-index column source of a sparse store (see the module documentation).
struct Inverted {
    index: InvertedIndex,
    /// Variable (index row) of each position.
    var: Vec<usize>,
    /// `Σ_{f ∈ x_v} df(f)` for each variable `v`: the postings a column of `v` visits.
    scan: Vec<usize>,
    /// Mean stored nonzeros per variable (the cost of one merged product's walk).
    mean_nnz: usize,
    /// Variable-order column buffers, reused across columns (one per concurrent column).
    scratch: Mutex<Vec<Vec<f64>>>,
}

impl<'a, K: Kernel> SignedColumns<'a, K> {
    /// Columns for positions `p` that refer to samples `sample[p]` of `x` with signs `sign[p]`; `pre`
    /// (if any) must be the Gram matrix of `x`.
    pub fn new(
        kernel: &'a K,
        x: &'a Samples,
        sample: Vec<usize>,
        sign: Vec<f64>,
        pre: Option<Precomputed>,
    ) -> Self {
        let d = x.d();
        let profile = kernel.profile();
        let l = sample.len();
        let source = match pre {
            Some(Precomputed::Dense(g)) => Source::Dense(g),
            Some(Precomputed::Sparse(g)) => Source::Sparse {
                kc: Kc::Stored(g),
                pos: (0..l).collect(),
                var: (0..l).collect(),
                ordered: true,
            },
            Some(Precomputed::OnDemand { kc, cache_bytes }) => {
                let lru = Box::new(Mutex::new(ColumnLru::new(kc.n(), cache_bytes)));
                Source::Sparse {
                    kc: Kc::OnDemand { od: kc, lru },
                    pos: (0..l).collect(),
                    var: (0..l).collect(),
                    ordered: true,
                }
            }
            None => Source::Eval,
        };
        let eval = matches!(source, Source::Eval);
        let by_norms = profile == Profile::SqDist && d > NORMS_MIN_DIM;
        // For a kernel whose profile is applied to whole slices: a feature-major copy for direct
        // differences in low dimension, a panel copy for inner products (by norms) above.
        let fast = eval && !x.is_sparse() && kernel.fast_sq_dist() && profile == Profile::SqDist;
        let (mut xs, mut xt, mut xp) = (Vec::new(), Vec::new(), Vec::new());
        if fast && by_norms {
            // The last panel is padded with zeros (positions past `l` are never written out).
            xp = vec![0.0; l.div_ceil(PANEL) * PANEL * d];
            for (p, &s) in sample.iter().enumerate() {
                let base = panel_base(p, d);
                for (k, &v) in x.row(s).iter().enumerate() {
                    xp[base + k * PANEL] = v;
                }
            }
        } else if fast {
            xt = vec![0.0; l * d];
            for (p, &s) in sample.iter().enumerate() {
                for (k, &v) in x.row(s).iter().enumerate() {
                    xt[k * l + p] = v;
                }
            }
        } else if eval && !x.is_sparse() {
            xs.reserve(l * d);
            for &s in &sample {
                xs.extend_from_slice(x.row(s));
            }
        }
        let norms = if eval && by_norms {
            sample.iter().map(|&s| x.sample(s).sq_norm()).collect()
        } else {
            Vec::new()
        };
        let inverted = if eval && x.is_sparse() && (profile == Profile::Dot || by_norms) {
            InvertedIndex::new(x, &sample).map(|index| {
                let scan: Vec<usize> = sample.iter().map(|&s| index.scan_len(x.sample(s))).collect();
                let mean_nnz = index.nnz() / l.max(1);
                Inverted { index, var: (0..l).collect(), scan, mean_nnz, scratch: Mutex::new(Vec::new()) }
            })
        } else {
            None
        };
        let neg = if sign.iter().all(|&s| s == 1.0 || s == -1.0) {
            sign.iter().map(|&s| u8::from(s < 0.0)).collect()
        } else {
            Vec::new()
        };
        SignedColumns {
            kernel,
            samples: x,
            d,
            x: xs,
            xt,
            xp,
            norms,
            sign,
            neg,
            sample,
            source,
            profile,
            by_norms,
            inverted,
            arch: pulp::Arch::new(),
        }
    }

    /// Number of positions `l`.
    pub fn l(&self) -> usize {
        self.sign.len()
    }

    #[inline]
    fn row(&self, p: usize) -> &[f64] {
        &self.x[p * self.d..(p + 1) * self.d]
    }

    /// Kernel value between positions `p` and `q` (evaluation source, not the fast path).
    #[inline]
    fn k_eval(&self, p: usize, q: usize) -> f64 {
        if self.x.is_empty() {
            let (a, b) = (self.samples.sample(self.sample[p]), self.samples.sample(self.sample[q]));
            return match self.profile {
                Profile::SqDist if self.by_norms => {
                    self.kernel.of_sq_dist((self.norms[p] + self.norms[q] - 2.0 * a.dot(b)).max(0.0))
                }
                Profile::SqDist => self.kernel.of_sq_dist(a.sq_dist(b)),
                Profile::Dot => self.kernel.of_dot(a.dot(b)),
                Profile::General => self.kernel.eval_ref(a, b),
            };
        }
        let (a, b) = (self.row(p), self.row(q));
        match self.profile {
            Profile::SqDist if self.by_norms => {
                let r2 = (self.norms[p] + self.norms[q] - 2.0 * dot(a, b)).max(0.0);
                self.kernel.of_sq_dist(r2)
            }
            Profile::SqDist => self.kernel.of_sq_dist(sq_dist(a, b)),
            Profile::Dot => self.kernel.of_dot(dot(a, b)),
            Profile::General => self.kernel.eval(a, b),
        }
    }

    fn fill_serial(&self, j: usize, from: usize, out: &mut [f64]) {
        let sj = self.sign[j];
        let len = out.len();
        match &self.source {
            Source::Dense(g) => {
                let col =
                    g.col(self.sample[j]).try_as_col_major().expect("owned Mat is column-major").as_slice();
                for (k, o) in out.iter_mut().enumerate() {
                    let p = from + k;
                    *o = self.sign[p] * sj * col[self.sample[p]];
                }
            }
            Source::Eval if !self.xt.is_empty() => {
                // In blocks that stay in L1 while the squared distances, the kernel and the signs
                // pass over them.
                let (l, d, xt) = (self.sign.len(), self.d, &self.xt[..]);
                for (b, block) in out.chunks_mut(XT_BLOCK).enumerate() {
                    let at = from + b * XT_BLOCK;
                    self.arch.dispatch(SqDists { xt, l, d, j, at, out: &mut *block });
                    self.signed_of_sq_dist(block, at, sj);
                }
            }
            Source::Eval if !self.xp.is_empty() => {
                let (xp, nj) = (self.xp.as_chunks::<PANEL>().0, self.norms[j]);
                let xj = self.samples.row(self.sample[j]);
                for (b, block) in out.chunks_mut(XT_BLOCK).enumerate() {
                    let at = from + b * XT_BLOCK;
                    let norms = &self.norms[at..at + block.len()];
                    self.arch.dispatch(NormDists { xp, xj, at, norms, nj, out: &mut *block });
                    self.signed_of_sq_dist(block, at, sj);
                }
            }
            Source::Eval if self.profile == Profile::SqDist && self.kernel.fast_sq_dist() => {
                for (k, o) in out.iter_mut().enumerate() {
                    *o = self.sq_dist_at(from + k, j);
                }
                self.signed_of_sq_dist(out, from, sj);
            }
            Source::Eval => {
                for (k, o) in out.iter_mut().enumerate() {
                    let p = from + k;
                    *o = self.sign[p] * sj * self.k_eval(p, j);
                }
            }
            Source::Sparse { kc, pos, .. } => {
                out.fill(0.0);
                let n = kc.n();
                let s = self.sample[j];
                let copies = self.sign.len() / n;
                let to = from + len;
                let col = self.kc_column(kc, s, false);
                for (&r, &v) in col.rows().iter().zip(col.vals()) {
                    for c in 0..copies {
                        let p = pos[r + c * n];
                        if p >= from && p < to {
                            out[p - from] = self.sign[p] * sj * v;
                        }
                    }
                }
            }
        }
    }

    /// Squared distance between positions `p` and `q` (evaluation source).
    #[inline]
    fn sq_dist_at(&self, p: usize, q: usize) -> f64 {
        // Only a sparse store gets here: a dense one with a fast profile sweeps the feature-major copy.
        let (a, b) = (self.samples.sample(self.sample[p]), self.samples.sample(self.sample[q]));
        if self.by_norms { (self.norms[p] + self.norms[q] - 2.0 * a.dot(b)).max(0.0) } else { a.sq_dist(b) }
    }

    /// `out[k] ← s_{from+k} s_j k(r²)` for the squared distances in `out`, through the kernel's
    /// vectorized [`Kernel::apply_sq_dist`].
    #[inline]
    fn signed_of_sq_dist(&self, out: &mut [f64], from: usize, sj: f64) {
        self.kernel.apply_sq_dist(out);
        let len = out.len();
        // `sj` is a position's sign, so ±1 too whenever `neg` is kept.
        if self.neg.is_empty() {
            self.arch.dispatch(Signs { sign: &self.sign[from..from + len], sj, out });
        } else {
            let flip = sj.to_bits() & (1 << 63);
            self.arch.dispatch(SignBits { neg: &self.neg[from..from + len], flip, out });
        }
    }

    /// The diagonal `Q_pp` in position order.
    pub fn diag(&self) -> Vec<f64> {
        (0..self.l())
            .map(|p| match &self.source {
                Source::Dense(g) => g[(self.sample[p], self.sample[p])],
                Source::Sparse { .. } | Source::Eval => match self.profile {
                    Profile::SqDist => self.kernel.of_sq_dist(0.0),
                    _ => self.k_eval(p, p),
                },
            })
            .collect()
    }

    /// Whether the inverted index computes column `j` over `len` positions in fewer steps than
    /// `len` merged products: its pass visits the column's postings plus every variable once (the
    /// buffer), a merge walks both samples' index lists per entry (and branches unpredictably, so
    /// counting one step each is in the merge's favour).
    fn inverted_pays(&self, inv: &Inverted, j: usize, len: usize) -> bool {
        let nnz_j = self.samples.sample(self.sample[j]).stored();
        inv.scan[inv.var[j]] + self.l() <= len * (inv.mean_nnz + nnz_j)
    }

    /// `out[k] = Q[from + k][j]` through the inverted index: the inner products of sample `j` with
    /// every variable (the same sums as the merged products), then the kernel and the signs exactly
    /// as the evaluation paths apply them.
    fn fill_inverted(&self, inv: &Inverted, j: usize, from: usize, out: &mut [f64]) {
        let mut buf = inv.scratch.lock().map(|mut s| s.pop()).unwrap_or(None).unwrap_or_default();
        buf.resize(self.l(), 0.0);
        let pivot = self.samples.sample(self.sample[j]);
        if inv.scan[inv.var[j]] >= COLUMN_SPLIT_WORK {
            inv.index.dots_par(pivot, &mut buf);
        } else {
            inv.index.dots(pivot, 0, &mut buf);
        }
        let sj = self.sign[j];
        let var = &inv.var[from..from + out.len()];
        match self.profile {
            Profile::SqDist => {
                let nj = self.norms[j];
                let norms = &self.norms[from..from + out.len()];
                if self.kernel.fast_sq_dist() {
                    for ((o, &v), &np) in out.iter_mut().zip(var).zip(norms) {
                        *o = (np + nj - 2.0 * buf[v]).max(0.0);
                    }
                    self.signed_of_sq_dist(out, from, sj);
                } else {
                    let signs = &self.sign[from..from + out.len()];
                    for (((o, &v), &np), &sp) in out.iter_mut().zip(var).zip(norms).zip(signs) {
                        *o = sp * sj * self.kernel.of_sq_dist((np + nj - 2.0 * buf[v]).max(0.0));
                    }
                }
            }
            _ => {
                let signs = &self.sign[from..from + out.len()];
                for ((o, &v), &sp) in out.iter_mut().zip(var).zip(signs) {
                    *o = sp * sj * self.kernel.of_dot(buf[v]);
                }
            }
        }
        if let Ok(mut s) = inv.scratch.lock() {
            s.push(buf);
        }
    }

    /// `out[k] = Q[from + k][j]`, split across the rayon pool when long enough.
    pub fn fill_column(&self, j: usize, from: usize, out: &mut [f64]) {
        if self.inverted.as_ref().is_some_and(|inv| self.inverted_pays(inv, j, out.len())) {
            return self.fill_column_seq(j, from, out);
        }
        let cost = entry_cost(self.samples);
        let work = match self.source {
            Source::Dense(_) => out.len() / 16,
            Source::Sparse { .. } => 0,
            Source::Eval if self.kernel.fast_sq_dist() => out.len() * (cost + 4),
            Source::Eval => out.len() * (cost + 8),
        };
        let threads = rayon::current_num_threads();
        if work < COLUMN_SPLIT_WORK || threads < 2 {
            self.fill_serial(j, from, out);
        } else {
            // One piece per thread (at least `PAR_CHUNK` entries): the pieces cost the same, so finer
            // pieces would only add scheduling.
            let chunk = out.len().div_ceil(threads).max(PAR_CHUNK);
            out.par_chunks_mut(chunk)
                .enumerate()
                .for_each(|(c, piece)| self.fill_serial(j, from + c * chunk, piece));
        }
    }

    /// `out[k] = Q[from + k][j]` on the calling thread (for callers that split the positions across
    /// threads themselves; see [`SignedColumns::splits_evenly`]). The values are those of
    /// [`SignedColumns::fill_column`].
    ///
    /// ```
    /// use kern_core::{Gaussian, Samples};
    /// use kern_sparse::kmatrix::SignedColumns;
    /// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?;
    /// let k = Gaussian::with_sigma(1.0)?;
    /// let q = SignedColumns::new(&k, &x, vec![0, 1, 2], vec![1.0, -1.0, 1.0], None);
    /// let (mut whole, mut tail) = (vec![0.0; 3], vec![0.0; 2]);
    /// q.fill_column(0, 0, &mut whole);
    /// q.fill_column_seq(0, 1, &mut tail);
    /// assert_eq!(&whole[1..], &tail[..]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fill_column_seq(&self, j: usize, from: usize, out: &mut [f64]) {
        if let Some(inv) = &self.inverted
            && self.inverted_pays(inv, j, out.len())
        {
            return self.fill_inverted(inv, j, from, out);
        }
        self.fill_serial(j, from, out);
    }

    /// True when any range of a column costs in proportion to its length (evaluation without the
    /// inverted index, gathers from a dense Gram), so that a caller may compute the ranges of one
    /// column on different threads at no extra cost; false for the inverted index and for scatters
    /// from a sparse `K_C`, which pay for the whole column whatever the range.
    ///
    /// ```
    /// use kern_core::{Gaussian, Samples};
    /// use kern_sparse::kmatrix::SignedColumns;
    /// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?;
    /// let k = Gaussian::with_sigma(1.0)?;
    /// assert!(SignedColumns::new(&k, &x, vec![0, 1, 2], vec![1.0; 3], None).splits_evenly());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn splits_evenly(&self) -> bool {
        match self.source {
            Source::Eval => self.inverted.is_none(),
            Source::Dense(_) => true,
            Source::Sparse { .. } => false,
        }
    }

    /// Column `j` as its nonzeros ([`SparseColumn`]) when the columns come from a precomputed sparse
    /// `K_C`, else `None`.
    pub fn sparse_column(&self, j: usize) -> Option<SparseColumn<'_>> {
        let Source::Sparse { kc, pos, var, ordered } = &self.source else {
            return None;
        };
        let n = kc.n();
        let entries = self.kc_column(kc, self.sample[j], true);
        let hi = entries.rows().len();
        let copies = self.sign.len() / n.max(1);
        Some(SparseColumn {
            entries,
            lo: 0,
            hi,
            pos,
            var,
            sign: &self.sign,
            sj: self.sign[j],
            n,
            copies,
            ordered: *ordered && copies == 1,
        })
    }

    /// From now on, sparse columns computed on demand compute the values of each wide column (at
    /// least 512 neighbours) in two halves on two threads of the rayon pool (`on`), or on the calling
    /// thread only (the default). The columns are the same either way; the halves pay when another
    /// worker of the pool is waiting for work, as in a solver that splits its own steps.
    /// Other sources ignore it.
    ///
    /// ```
    /// use kern_core::{CompactlySupported, Gaussian, Samples};
    /// use kern_sparse::kmatrix::{Precomputed, SignedColumns, SparseOnDemand};
    /// let rows: Vec<[f64; 1]> = (0..2000).map(|t| [t as f64 * 1e-4]).collect();
    /// let x = Samples::from_rows(&rows)?;
    /// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
    /// let od = std::sync::Arc::new(SparseOnDemand::new(&k, &x)?);
    /// let pre = || Some(Precomputed::OnDemand { kc: od.clone(), cache_bytes: 0 });
    /// let (one, two) = (
    ///     SignedColumns::new(&k, &x, (0..2000).collect(), vec![1.0; 2000], pre()),
    ///     SignedColumns::new(&k, &x, (0..2000).collect(), vec![1.0; 2000], pre()),
    /// );
    /// two.split_columns(true);
    /// let (mut a, mut b) = (Vec::new(), Vec::new());
    /// one.sparse_column(7).unwrap().for_each(|p, v| a.push((p, v.to_bits())));
    /// two.sparse_column(7).unwrap().for_each(|p, v| b.push((p, v.to_bits())));
    /// assert_eq!(a.len(), 2000);
    /// assert_eq!(a, b);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn split_columns(&self, on: bool) {
        if let Source::Sparse { kc: Kc::OnDemand { lru, .. }, .. } = &self.source {
            lru.lock().unwrap_or_else(|e| e.into_inner()).set_halves(on);
        }
    }

    /// Structural nonzeros of the whole `Q` when the columns come from a precomputed sparse `K_C`
    /// (each sample's copies count), else `None`.
    pub fn sparse_nnz(&self) -> Option<usize> {
        let Source::Sparse { kc, .. } = &self.source else {
            return None;
        };
        let copies = self.sign.len() / kc.n().max(1);
        Some(kc.nnz() * copies * copies)
    }

    /// Column `s` of `K_C`: a view of the precomputed matrix, or the cached column, or the column
    /// computed now (and cached when `keep`). The values are the same whichever way.
    fn kc_column<'s>(&'s self, kc: &'s Kc, s: usize, keep: bool) -> Entries<'s> {
        match kc {
            Kc::Stored(g) => {
                let (a, b) = (g.col_offsets()[s], g.col_offsets()[s + 1]);
                Entries::View(&g.row_indices()[a..b], &g.values()[a..b])
            }
            Kc::OnDemand { od, lru } => {
                let mut lru = lru.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(col) = lru.get(s) {
                    return Entries::Shared(col);
                }
                let col = lru.compute(od, self.kernel, s);
                if keep {
                    lru.insert(s, &col);
                }
                Entries::Shared(col)
            }
        }
    }

    /// True when a column entry is cheaper to recompute than to keep (the kernel's fast vectorized
    /// column on the feature-major copy): a solver then caps its cache.
    pub fn cheap_columns(&self) -> bool {
        !self.xt.is_empty()
    }

    /// Swaps positions `i` and `j`.
    pub fn swap_index(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        self.sign.swap(i, j);
        if !self.neg.is_empty() {
            self.neg.swap(i, j);
        }
        self.sample.swap(i, j);
        if let Some(inv) = &mut self.inverted {
            inv.var.swap(i, j);
        }
        if let Source::Sparse { pos, var, ordered, .. } = &mut self.source {
            *ordered = false;
            var.swap(i, j);
            pos[var[i]] = i;
            pos[var[j]] = j;
        }
        if !self.norms.is_empty() {
            self.norms.swap(i, j);
        }
        if !self.xt.is_empty() {
            let l = self.sign.len();
            for k in 0..self.d {
                self.xt.swap(k * l + i, k * l + j);
            }
        }
        if !self.xp.is_empty() {
            let d = self.d;
            let (bi, bj) = (panel_base(i, d), panel_base(j, d));
            for k in 0..d {
                self.xp.swap(bi + k * PANEL, bj + k * PANEL);
            }
        }
        if !self.x.is_empty() {
            let d = self.d;
            let (lo, hi) = (i.min(j), i.max(j));
            let (a, b) = self.x.split_at_mut(hi * d);
            a[lo * d..(lo + 1) * d].swap_with_slice(&mut b[..d]);
        }
    }
}

/// The calling thread's share, in sixteenths, of work split in two parts between it and another
/// worker of the pool ([`SparseColumn::parts`], and the halves of a column computed on demand
/// ([`SignedColumns::split_columns`])). More than half: the other part waits to be taken by the other
/// worker, and a caller that finishes first waits for it. With equal halves, the solver's calling
/// thread on green-red n = 1,000,000 with a compact kernel spent about 16 % of its samples in the
/// scheduler and `sched_yield` (waiting for the other half); 9/16 was chosen from that, not tuned.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// use kern_sparse::kmatrix::{CALLER_SIXTEENTHS, Precomputed, SignedColumns};
/// use kern_sparse::GramMatrix;
/// let rows: Vec<[f64; 1]> = (0..16).map(|i| [0.01 * i as f64]).collect();
/// let x = Samples::from_rows(&rows)?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
/// let GramMatrix::Sparse(kc) = GramMatrix::sparse(&k, &x)? else { unreachable!() };
/// let pre = Some(Precomputed::Sparse(kc.into()));
/// let q = SignedColumns::new(&k, &x, (0..16).collect(), vec![1.0; 16], pre);
/// let col = q.sparse_column(0).unwrap();
/// let (mine, other) = col.parts();
/// assert_eq!(col.nnz(), 16); // every point is a neighbour
/// assert_eq!((mine.nnz(), other.nnz()), (CALLER_SIXTEENTHS, 16 - CALLER_SIXTEENTHS));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const CALLER_SIXTEENTHS: usize = 9;

/// The calling thread's part of `n` items ([`CALLER_SIXTEENTHS`], rounded down).
#[inline]
pub(crate) fn caller_share(n: usize) -> usize {
    n * CALLER_SIXTEENTHS / 16
}

/// One column of `Q` from a sparse `K_C` (compact support), as its nonzeros: the neighbours of the
/// column's sample within the support radius, in the row order of `K_C`, mapped to solver positions.
/// Memory is `O(nnz)` of the column (a view into the shared `K_C`, nothing copied, or a shared column
/// computed on demand); every value is `s_p s_j K_C[r, s_j]`, the same product the dense scatter of
/// [`SignedColumns::fill_column`] writes.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// use kern_sparse::kmatrix::{Precomputed, SignedColumns};
/// use kern_sparse::GramMatrix;
/// let x = Samples::from_rows(&[[0.0], [0.5], [3.0]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
/// let GramMatrix::Sparse(kc) = GramMatrix::sparse(&k, &x)? else { unreachable!() };
/// let pre = Precomputed::Sparse(std::sync::Arc::new(kc));
/// let q = SignedColumns::new(&k, &x, vec![0, 1, 2], vec![1.0, -1.0, 1.0], Some(pre));
/// let col = q.sparse_column(0).expect("a sparse source");
/// let mut dense = [0.0; 3];
/// q.fill_column(0, 0, &mut dense);
/// assert_eq!(col.nnz(), 2);                         // x_2 is beyond the radius of x_0
/// col.for_each(|p, v| assert_eq!(v, dense[p]));
/// assert_eq!(col.at(1), dense[1]);
/// assert_eq!(col.at(2), 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct SparseColumn<'c> {
    entries: Entries<'c>,
    /// The part of `entries` this column holds (all of them, or a part from
    /// [`SparseColumn::parts`] or [`SparseColumn::split_at_position`]).
    lo: usize,
    hi: usize,
    pos: &'c [usize],
    var: &'c [usize],
    sign: &'c [f64],
    sj: f64,
    /// Samples (rows of `K_C`); variable `v` refers to sample `v mod n` (copy `v / n`).
    n: usize,
    copies: usize,
    /// Positions increase with rows: one copy of each sample, no positions swapped.
    ordered: bool,
}

/// The rows and values of a column of `K_C`.
#[derive(Clone)]
enum Entries<'c> {
    /// A view of the precomputed matrix.
    View(&'c [usize], &'c [f64]),
    /// A column computed on demand.
    Shared(Arc<KcColumn>),
}

impl Entries<'_> {
    #[inline]
    fn rows(&self) -> &[usize] {
        match self {
            Entries::View(r, _) => r,
            Entries::Shared(c) => &c.rows,
        }
    }

    #[inline]
    fn vals(&self) -> &[f64] {
        match self {
            Entries::View(_, v) => v,
            Entries::Shared(c) => &c.vals,
        }
    }
}

impl SparseColumn<'_> {
    /// The rows of the column's part, increasing.
    #[inline]
    fn rows(&self) -> &[usize] {
        &self.entries.rows()[self.lo..self.hi]
    }

    /// The `K_C` values at [`SparseColumn::rows`].
    #[inline]
    fn vals(&self) -> &[f64] {
        &self.entries.vals()[self.lo..self.hi]
    }

    /// Entries `lo..hi` of this column's part, as a column of their own.
    fn part(&self, lo: usize, hi: usize) -> Self {
        Self { lo: self.lo + lo, hi: self.lo + hi, ..self.clone() }
    }

    /// Structural nonzeros of the column (over every copy of the samples).
    pub fn nnz(&self) -> usize {
        self.rows().len() * self.copies
    }

    /// The position of the first nonzero of the second of the column's [`SparseColumn::parts`] (its
    /// first copy, in row order), `None` when that part is empty: where work over the column splits.
    pub fn part_position(&self) -> Option<usize> {
        let rows = self.rows();
        rows.get(caller_share(rows.len())).map(|&r| self.position(r, 0))
    }

    /// The column's nonzeros in two parts, the first with [`CALLER_SIXTEENTHS`] sixteenths of them
    /// (rounded down), the rows of the first before those of the second; together they hold every
    /// nonzero once. Work over a column's nonzeros can run on its parts on two threads, the first on
    /// the calling thread (which starts at once, while the other part waits to be taken by another
    /// worker).
    ///
    /// ```
    /// use kern_core::{CompactlySupported, Gaussian, Samples};
    /// use kern_sparse::kmatrix::{Precomputed, SignedColumns};
    /// use kern_sparse::GramMatrix;
    /// let x = Samples::from_rows(&[[0.0], [0.3], [0.6], [3.0]])?;
    /// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
    /// let GramMatrix::Sparse(kc) = GramMatrix::sparse(&k, &x)? else { unreachable!() };
    /// let pre = Precomputed::Sparse(std::sync::Arc::new(kc));
    /// let q = SignedColumns::new(&k, &x, vec![0, 1, 2, 3], vec![1.0; 4], Some(pre));
    /// let col = q.sparse_column(1).unwrap();
    /// let (a, b) = col.parts();
    /// let (mut whole, mut parts) = (Vec::new(), Vec::new());
    /// col.for_each(|p, v| whole.push((p, v)));
    /// a.for_each(|p, v| parts.push((p, v)));
    /// b.for_each(|p, v| parts.push((p, v)));
    /// assert_eq!(whole, parts);
    /// assert_eq!((a.nnz(), b.nnz()), (1, 2));
    /// assert_eq!(col.part_position(), Some(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parts(&self) -> (Self, Self) {
        let k = self.rows().len();
        (self.part(0, caller_share(k)), self.part(caller_share(k), k))
    }

    /// The column's nonzeros at positions below `m` and at or above `m`, when positions increase with
    /// the column's rows (each sample has one variable and no positions were swapped since the
    /// columns were built); `None` otherwise. Updates of the two parts then write disjoint ranges of
    /// positions, so they can run on two threads ([`SparseColumn::add_pair_then_from`]).
    ///
    /// ```
    /// use kern_core::{CompactlySupported, Gaussian, Samples};
    /// use kern_sparse::kmatrix::{Precomputed, SignedColumns};
    /// use kern_sparse::GramMatrix;
    /// let x = Samples::from_rows(&[[0.0], [0.3], [0.6], [3.0]])?;
    /// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
    /// let GramMatrix::Sparse(kc) = GramMatrix::sparse(&k, &x)? else { unreachable!() };
    /// let pre = Precomputed::Sparse(std::sync::Arc::new(kc));
    /// let q = SignedColumns::new(&k, &x, vec![0, 1, 2, 3], vec![1.0; 4], Some(pre));
    /// let (below, above) = q.sparse_column(1).unwrap().split_at_position(2).expect("ordered");
    /// let mut seen = Vec::new();
    /// below.for_each(|p, _| seen.push(p));
    /// above.for_each(|p, _| seen.push(p));
    /// assert_eq!(seen, vec![0, 1, 2]);
    /// assert_eq!(below.nnz(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn split_at_position(&self, m: usize) -> Option<(Self, Self)> {
        if !self.ordered {
            return None;
        }
        // `pos` is the identity: the rows are the positions.
        let k = self.rows().partition_point(|&r| r < m);
        Some((self.part(0, k), self.part(k, self.rows().len())))
    }

    /// Calls `f(p, Q[p][j])` for every nonzero, in the row order of `K_C` (copies innermost).
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(usize, f64)) {
        for (&r, &v) in self.rows().iter().zip(self.vals()) {
            for c in 0..self.copies {
                let p = self.position(r, c);
                f(p, self.sign[p] * self.sj * v);
            }
        }
    }

    /// The position of copy `c` of row `r`: the row itself when the column is
    /// [`ordered`](SparseColumn::split_at_position) (no load from the position map).
    #[inline(always)]
    fn position(&self, r: usize, c: usize) -> usize {
        if self.ordered { r } else { self.pos[r + c * self.n] }
    }

    /// `Q[p][j]` (zero outside the support, or outside this part of the column), by binary search in
    /// the column's rows.
    pub fn at(&self, p: usize) -> f64 {
        let r = self.var[p] % self.n;
        match self.rows().binary_search(&r) {
            Ok(k) => self.sign[p] * self.sj * self.vals()[k],
            Err(_) => 0.0,
        }
    }

    /// `g[p] += a[p]·da + b[p]·db` for the positions `p < g.len()` where `a` or `b` is nonzero; the
    /// other entries of `g` are left alone. The two columns are merged by row, so a position in both
    /// gets one update with the same sum as the dense update `g += a·da + b·db` (a position in one
    /// column only adds `x·da + 0·db`, as the dense loop does with the other column's zero). Both
    /// columns must come from the same [`SignedColumns`].
    pub fn add_pair(a: &Self, da: f64, b: &Self, db: f64, g: &mut [f64]) {
        Self::add_pair_then(a, da, b, db, g, |_, _| {});
    }

    /// [`SparseColumn::add_pair`], calling `then(p, g[p])` right after each position's update (every
    /// `p < g.len()` where `a` or `b` is nonzero, once, in increasing row order): a caller that keeps
    /// something derived from `g` at the updated positions brings it up to date in the same pass,
    /// while the entry is at hand.
    ///
    /// ```
    /// use kern_core::{CompactlySupported, Gaussian, Samples};
    /// use kern_sparse::kmatrix::{Precomputed, SignedColumns, SparseColumn};
    /// use kern_sparse::GramMatrix;
    /// let x = Samples::from_rows(&[[0.0], [0.5], [3.0], [3.4]])?;
    /// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
    /// let GramMatrix::Sparse(kc) = GramMatrix::sparse(&k, &x)? else { unreachable!() };
    /// let pre = Precomputed::Sparse(std::sync::Arc::new(kc));
    /// let q = SignedColumns::new(&k, &x, vec![0, 1, 2, 3], vec![1.0, -1.0, 1.0, 1.0], Some(pre));
    /// let (a, b) = (q.sparse_column(0).unwrap(), q.sparse_column(3).unwrap());
    /// let (mut g, mut h) = ([1.0; 4], [1.0; 4]);
    /// let mut seen = Vec::new();
    /// SparseColumn::add_pair_then(&a, 0.5, &b, -2.0, &mut g, |p, gp| seen.push((p, gp)));
    /// SparseColumn::add_pair(&a, 0.5, &b, -2.0, &mut h);
    /// assert_eq!(g, h);
    /// // Every position of either column, once, with its updated entry.
    /// assert_eq!(seen, vec![(0, g[0]), (1, g[1]), (2, g[2]), (3, g[3])]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_pair_then(a: &Self, da: f64, b: &Self, db: f64, g: &mut [f64], then: impl FnMut(usize, f64)) {
        Self::add_pair_then_from(a, da, b, db, g, 0, then);
    }

    /// [`SparseColumn::add_pair_then`] on the piece of the gradient that starts at position `base`:
    /// `g[p − base] += a[p]·da + b[p]·db` for the positions `base ≤ p < base + g.len()` of either
    /// column, then `then(p, g[p − base])`; positions outside the piece are left alone. With the
    /// parts of [`SparseColumn::split_at_position`] at `m`, the pieces `g[..m]` (base 0) and `g[m..]`
    /// (base `m`) are updated on two threads with the same sums as one [`SparseColumn::add_pair`].
    ///
    /// ```
    /// use kern_core::{CompactlySupported, Gaussian, Samples};
    /// use kern_sparse::kmatrix::{Precomputed, SignedColumns, SparseColumn};
    /// use kern_sparse::GramMatrix;
    /// let x = Samples::from_rows(&[[0.0], [0.3], [0.6], [0.9]])?;
    /// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
    /// let GramMatrix::Sparse(kc) = GramMatrix::sparse(&k, &x)? else { unreachable!() };
    /// let pre = Precomputed::Sparse(std::sync::Arc::new(kc));
    /// let q = SignedColumns::new(&k, &x, vec![0, 1, 2, 3], vec![1.0, -1.0, 1.0, -1.0], Some(pre));
    /// let (a, b) = (q.sparse_column(0).unwrap(), q.sparse_column(3).unwrap());
    /// let (mut g, mut h) = ([1.0; 4], [1.0; 4]);
    /// SparseColumn::add_pair(&a, 0.5, &b, -2.0, &mut g);
    /// let ((a0, a1), (b0, b1)) = (a.split_at_position(2).unwrap(), b.split_at_position(2).unwrap());
    /// let (h0, h1) = h.split_at_mut(2);
    /// SparseColumn::add_pair_then_from(&a0, 0.5, &b0, -2.0, h0, 0, |_, _| {});
    /// SparseColumn::add_pair_then_from(&a1, 0.5, &b1, -2.0, h1, 2, |_, _| {});
    /// assert_eq!(g, h);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_pair_then_from(
        a: &Self,
        da: f64,
        b: &Self,
        db: f64,
        g: &mut [f64],
        base: usize,
        mut then: impl FnMut(usize, f64),
    ) {
        let len = g.len();
        let (ar, av, br, bv) = (a.rows(), a.vals(), b.rows(), b.vals());
        let (mut s, mut t) = (0, 0);
        // One merge step per row of either column, with one update site (so that `then` is inlined)
        // and the choice between the columns made by selects rather than branches: in the rows where
        // the columns overlap, which of them holds a row follows no pattern the branch predictor could
        // learn. A column without the row contributes the dense column's zero (`0·db`), as before.
        loop {
            let ra = ar.get(s).copied().unwrap_or(usize::MAX);
            let rb = br.get(t).copied().unwrap_or(usize::MAX);
            let r = ra.min(rb);
            if r == usize::MAX {
                break;
            }
            let (in_a, in_b) = (ra == r, rb == r);
            let (x, y) = (av.get(s).copied().unwrap_or(0.0), bv.get(t).copied().unwrap_or(0.0));
            s += usize::from(in_a);
            t += usize::from(in_b);
            for c in 0..a.copies {
                let p = a.position(r, c);
                let Some(k) = p.checked_sub(base).filter(|&k| k < len) else { continue };
                let sp = a.sign[p];
                let (qa, qb) = (sp * a.sj * x, sp * b.sj * y);
                let qa = if in_a { qa } else { 0.0 };
                let qb = if in_b { qb } else { 0.0 };
                g[k] += qa * da + qb * db;
                then(p, g[k]);
            }
        }
    }
}
