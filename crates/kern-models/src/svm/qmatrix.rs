//! The `Q` matrix of the SVM duals, column by column: `Q_pq = s_p s_q k(x_p, x_q)` where `s` is the label
//! (C-SVC) or the sign of the half (ε-SVR, whose `2n` variables refer to `n` samples).
//!
//! Columns are computed on demand in the solver's (permuted) order, over a contiguous range of positions,
//! in parallel once a column is long enough to pay for the split. The samples are kept in a permuted
//! copy so that the active positions stay contiguous in memory. When the whole Gram matrix of the
//! samples fits in a share of the cache budget it is computed up front by blocked GEMM (kern-core's
//! [`kern_core::gram`]) and columns become gathers; for compactly supported kernels the samples are
//! bucketed on a grid and a column visits only the positions within the support radius.

use kern_core::{Kernel, Profile, Samples};
use rayon::prelude::*;
use std::sync::Arc;

/// Access to the columns of `Q` in solver order.
pub(crate) trait QMatrix: Sync {
    /// Number of variables.
    fn l(&self) -> usize;
    /// The diagonal `Q_pp` in solver order.
    fn diag(&self) -> Vec<f64>;
    /// Computes `out[k] = Q[from + k][j]`.
    fn fill_column(&self, j: usize, from: usize, out: &mut [f64]);
    /// Swaps positions `i` and `j`.
    fn swap_index(&mut self, i: usize, j: usize);
    /// True when a column entry is cheaper to recompute than to keep: the solver then caps its cache
    /// (see [`CHEAP_CACHE_BYTES`]).
    fn cheap_columns(&self) -> bool {
        false
    }
}

/// Cache cap for cheap columns (Gaussian kernel in dimension ≤ 8 through the vectorized exp): there a
/// column entry costs about 1.5 ns to recompute, while first-touching fresh cache memory costs about
/// 4 ns per entry in page faults, so a cache larger than the working set of recent columns only
/// loses time (measured on green-red n = 5000: CPU time 0.07 s at 16 MB against 0.09–0.11 s at 100 MB,
/// same iterations). The user's budget stays the upper bound.
pub(crate) const CHEAP_CACHE_BYTES: usize = 16 << 20;

/// A dense, symmetric, precomputed Gram matrix over sample indices (column-major `n × n`).
#[derive(Clone)]
pub(crate) struct DenseGram {
    pub(crate) n: usize,
    pub(crate) data: Arc<Vec<f64>>,
}

impl DenseGram {
    /// From a faer matrix (copied into a packed column-major buffer).
    pub(crate) fn from_faer(m: &faer::Mat<f64>) -> Self {
        let n = m.nrows();
        let mut data = Vec::with_capacity(n * n);
        for j in 0..n {
            data.extend((0..n).map(|i| m[(i, j)]));
        }
        DenseGram { n, data: Arc::new(data) }
    }

    #[inline]
    fn col(&self, j: usize) -> &[f64] {
        &self.data[j * self.n..(j + 1) * self.n]
    }
}

/// A sparse Gram matrix of a compactly supported kernel over sample indices (CSC, full symmetric
/// pattern, from kern-sparse's neighbour index).
#[derive(Clone)]
pub(crate) struct SparseGram {
    pub(crate) offsets: Arc<Vec<usize>>,
    pub(crate) rows: Arc<Vec<usize>>,
    pub(crate) vals: Arc<Vec<f64>>,
}

/// Precomputed kernel values handed to [`KernelQ`].
#[derive(Clone)]
pub(crate) enum Precomputed {
    /// Dense Gram over the samples.
    Dense(DenseGram),
    /// Sparse Gram over the samples (compact support).
    Sparse(SparseGram),
}

/// How the values of one column are obtained.
enum Source {
    /// Evaluate the kernel on the permuted samples.
    Eval,
    /// Gather from a precomputed Gram matrix.
    Dense(DenseGram),
    /// Scatter the neighbours of the column's sample (zeros elsewhere). `pos[v]` is the position of
    /// variable `v`; variable `v` refers to sample `v mod n`.
    Sparse { g: SparseGram, n: usize, pos: Vec<usize>, var: Vec<usize> },
}

/// Entries per parallel task when a column is split across threads.
const PAR_CHUNK: usize = 1024;

/// `Q` for a kernel on samples with per-position signs.
pub(crate) struct KernelQ<'k, K: Kernel> {
    kernel: &'k K,
    d: usize,
    /// Permuted samples, row-major `l × d`.
    x: Vec<f64>,
    /// Squared norms of the permuted samples (used in high dimension, radial kernels).
    norms: Vec<f64>,
    sign: Vec<f64>,
    /// Sample index of each position.
    sample: Vec<usize>,
    source: Source,
    profile: Profile,
    /// Use `‖x‖² + ‖y‖² − 2⟨x, y⟩` instead of direct differences (high dimension).
    by_norms: bool,
    /// Work (in multiply-adds) from which a column is split across threads.
    par_min: usize,
    /// `Some(β)` when the kernel is exactly `exp(−β r²)`: columns then use the vectorized exp.
    gauss_beta: Option<f64>,
    /// Feature-major copy of the permuted samples (`xt[k·l + p]`) for the Gaussian path in low
    /// dimension: a column's squared distances are then contiguous, vectorizable sweeps.
    xt: Vec<f64>,
}

/// Dimension above which radial kernels use the norms formulation (a dot product vectorizes better).
pub(crate) const NORMS_MIN_DIM: usize = 8;

impl<'k, K: Kernel> KernelQ<'k, K> {
    /// `Q` for positions `p` that refer to samples `sample[p]` with signs `sign[p]`.
    pub(crate) fn new(
        kernel: &'k K,
        x: &Samples,
        sample: Vec<usize>,
        sign: Vec<f64>,
        pre: Option<Precomputed>,
        gauss_beta: Option<f64>,
    ) -> Self {
        let d = x.d();
        let profile = kernel.profile();
        let l = sample.len();
        let source = match pre {
            Some(Precomputed::Dense(g)) => Source::Dense(g),
            Some(Precomputed::Sparse(g)) => {
                Source::Sparse { g, n: x.n(), pos: (0..l).collect(), var: (0..l).collect() }
            }
            None => Source::Eval,
        };
        let mut xs = Vec::new();
        if matches!(source, Source::Eval) {
            xs.reserve(sample.len() * d);
            for &s in &sample {
                xs.extend_from_slice(x.row(s));
            }
        }
        let by_norms = profile == Profile::SqDist && d > NORMS_MIN_DIM;
        let norms = if by_norms { xs.chunks_exact(d).map(|r| dot(r, r)).collect() } else { Vec::new() };
        let xt = if gauss_beta.is_some() && !by_norms && !xs.is_empty() {
            let mut t = vec![0.0; l * d];
            for p in 0..l {
                for k in 0..d {
                    t[k * l + p] = xs[p * d + k];
                }
            }
            t
        } else {
            Vec::new()
        };
        KernelQ {
            kernel,
            d,
            x: xs,
            norms,
            sign,
            sample,
            source,
            profile,
            by_norms,
            par_min: 1 << 15,
            gauss_beta,
            xt,
        }
    }

    #[inline]
    fn row(&self, p: usize) -> &[f64] {
        &self.x[p * self.d..(p + 1) * self.d]
    }

    /// Kernel value between positions `p` and `q` (evaluation source).
    #[inline]
    fn k_eval(&self, p: usize, q: usize) -> f64 {
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
        match &self.source {
            Source::Dense(g) => {
                let col = g.col(self.sample[j]);
                for (k, o) in out.iter_mut().enumerate() {
                    let p = from + k;
                    *o = self.sign[p] * sj * col[self.sample[p]];
                }
            }
            Source::Eval if self.gauss_beta.is_some() && !self.xt.is_empty() => {
                let beta = self.gauss_beta.expect("checked");
                let (l, len) = (self.sign.len(), out.len());
                let xj = self.row(j);
                out.fill(0.0);
                for (k, &c) in xj.iter().enumerate() {
                    let col = &self.xt[k * l + from..k * l + from + len];
                    for (o, &v) in out.iter_mut().zip(col) {
                        let t = v - c;
                        *o += t * t;
                    }
                }
                super::fastexp::gaussian_in_place(out, beta, &self.sign[from..from + len], sj);
            }
            Source::Eval if self.gauss_beta.is_some() => {
                let beta = self.gauss_beta.expect("checked");
                let xj = self.row(j);
                for (k, o) in out.iter_mut().enumerate() {
                    let p = from + k;
                    *o = if self.by_norms {
                        (self.norms[p] + self.norms[j] - 2.0 * dot(self.row(p), xj)).max(0.0)
                    } else {
                        sq_dist(self.row(p), xj)
                    };
                }
                super::fastexp::gaussian_in_place(out, beta, &self.sign[from..from + out.len()], sj);
            }
            Source::Eval => {
                for (k, o) in out.iter_mut().enumerate() {
                    let p = from + k;
                    *o = self.sign[p] * sj * self.k_eval(p, j);
                }
            }
            Source::Sparse { g, n, pos, .. } => {
                out.fill(0.0);
                let s = self.sample[j];
                let copies = self.sign.len() / n;
                let to = from + out.len();
                for t in g.offsets[s]..g.offsets[s + 1] {
                    let (r, v) = (g.rows[t], g.vals[t]);
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
}

impl<K: Kernel> QMatrix for KernelQ<'_, K> {
    fn l(&self) -> usize {
        self.sign.len()
    }

    fn diag(&self) -> Vec<f64> {
        (0..self.l())
            .map(|p| match &self.source {
                Source::Dense(g) => g.col(self.sample[p])[self.sample[p]],
                Source::Sparse { .. } | Source::Eval => match self.profile {
                    Profile::SqDist => self.kernel.of_sq_dist(0.0),
                    _ => self.k_eval(p, p),
                },
            })
            .collect()
    }

    fn fill_column(&self, j: usize, from: usize, out: &mut [f64]) {
        let work = match self.source {
            Source::Dense(_) => out.len() / 16,
            Source::Sparse { .. } => 0,
            Source::Eval if self.gauss_beta.is_some() => out.len() * (self.d + 4),
            Source::Eval => out.len() * (self.d + 8),
        };
        if work < self.par_min || rayon::current_num_threads() < 2 {
            self.fill_serial(j, from, out);
        } else {
            out.par_chunks_mut(PAR_CHUNK)
                .enumerate()
                .for_each(|(c, chunk)| self.fill_serial(j, from + c * PAR_CHUNK, chunk));
        }
    }

    fn cheap_columns(&self) -> bool {
        matches!(self.source, Source::Eval) && !self.xt.is_empty()
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        self.sign.swap(i, j);
        self.sample.swap(i, j);
        if let Source::Sparse { pos, var, .. } = &mut self.source {
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
        if !self.x.is_empty() {
            let d = self.d;
            let (lo, hi) = (i.min(j), i.max(j));
            let (a, b) = self.x.split_at_mut(hi * d);
            a[lo * d..(lo + 1) * d].swap_with_slice(&mut b[..d]);
        }
    }
}

/// Dot product with eight independent accumulators (vectorizes without reassociation flags).
#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 8];
    let chunks = n / 8;
    for c in 0..chunks {
        let (x, y) = (&a[c * 8..c * 8 + 8], &b[c * 8..c * 8 + 8]);
        for t in 0..8 {
            acc[t] += x[t] * y[t];
        }
    }
    let mut s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for t in chunks * 8..n {
        s += a[t] * b[t];
    }
    s
}

/// Squared distance (direct differences: exact for nearby points).
#[inline]
pub(crate) fn sq_dist(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 4];
    let chunks = n / 4;
    for c in 0..chunks {
        for t in 0..4 {
            let v = a[c * 4 + t] - b[c * 4 + t];
            acc[t] += v * v;
        }
    }
    let mut s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
    for t in chunks * 4..n {
        let v = a[t] - b[t];
        s += v * v;
    }
    s
}
