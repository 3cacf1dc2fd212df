//! Inner products of sparse samples (most coordinates zero, e.g. MNIST pixels or bag-of-words LIBSVM
//! files) against contiguous ranges of samples, in `O(nnz)` multiply-adds per entry instead of `O(d)`.
//!
//! The samples are held twice: as sparse rows (the nonzeros of each sample) and as a dense transposed
//! copy restricted to the features that are nonzero somewhere (`d' × n`, feature-major, so that one
//! feature's values over a range of samples are contiguous). The inner products of sample `i` with the
//! samples `r₀..r₁` are then `Σ_{k ∈ nz(i)} x_ik · Xᵀ[k, r₀..r₁]`: a sum of `nnz(i)` contiguous AXPYs,
//! vectorized four features at a time. On MNIST (19 % nonzeros, 121 of 784 pixels always zero) this does
//! a fifth of a dense GEMM's multiply-adds; the Gram and pairwise-distance routines use it automatically
//! below [`SparseDots::MAX_DENSITY`].
//!
//! A single AXPY is bound by loading the transposed copy (one load per multiply-add). A
//! [`SampleGroup`] of four samples with similar nonzero patterns ([`SparseDots::groups`]) shares those
//! loads: [`SparseDots::group_dots`] walks the union of their features once, each loaded value feeding
//! the multiply-adds of every group member that is nonzero there (about 2.7 per load on MNIST), which
//! halves the time of the symmetric Gram matrix's inner products.
//!
//! ```
//! use kern_core::Samples;
//! use kern_core::sparse_dots::{SparseDots, density};
//! let x = Samples::from_rows(&[[1.0, 0.0, 0.0, 2.0], [0.0, 0.0, 3.0, 1.0], [2.0, 0.0, 0.0, 4.0]])?;
//! assert_eq!(density(&x), 0.5);
//! let s = SparseDots::new(&x);
//! let mut dots = [0.0; 3];
//! s.dots(0, 0..3, &mut dots); // ⟨x₀, x_j⟩ from x₀'s two nonzeros
//! assert_eq!(dots, [5.0, 2.0, 10.0]);
//! let mut grouped = [0.0; 6];
//! s.group_dots(&s.group(&[0, 2]), 0..3, &mut grouped); // two samples in one pass
//! assert_eq!(grouped, [5.0, 2.0, 10.0, 10.0, 4.0, 20.0]);
//! # Ok::<(), kern_core::CoreError>(())
//! ```

use crate::parallel::prelude::*;
use crate::samples::{SampleRef, Samples};
use std::ops::Range;

/// Features per task when building the transposed copy.
const XT_BAND: usize = 16;

/// Sparse rows plus a dense transposed copy of a sample set (see the module docs).
///
/// ```
/// use kern_core::{Samples, sparse_dots::SparseDots};
/// let x = Samples::from_rows(&[[1.0, 0.0, 0.0, 2.0], [0.0, 0.0, 3.0, 1.0], [4.0, 0.0, 0.0, 0.0]])?;
/// let s = SparseDots::new(&x);
/// let mut out = [0.0; 3];
/// s.dots(0, 0..3, &mut out);
/// assert_eq!(out, [5.0, 2.0, 4.0]);
/// assert_eq!(s.active_features(), 3); // feature 1 is zero everywhere
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug)]
pub struct SparseDots {
    n: usize,
    d: usize,
    indptr: Vec<usize>,
    idx: Vec<u32>,
    val: Vec<f64>,
    /// `active × n`, feature-major.
    xt: Vec<f64>,
    active: usize,
    /// `‖x_i‖²`.
    norms: Vec<f64>,
}

impl SparseDots {
    /// Fraction of nonzero coordinates up to which the sparse path is chosen automatically: above it a
    /// dense GEMM (about twice the multiply-add rate of the AXPY form) is faster.
    pub const MAX_DENSITY: f64 = 0.3;

    /// Largest transposed copy (`active features × n` values, 2 GiB) that [`SparseDots::fits`]
    /// accepts; beyond it (high-dimensional sparse data such as bag-of-words files) the Gram paths
    /// take sparse × sparse inner products sample by sample instead.
    pub const MAX_TRANSPOSED: usize = 1 << 28;

    /// Whether the transposed copy of `x` stays within [`SparseDots::MAX_TRANSPOSED`] values.
    ///
    /// ```
    /// use kern_core::{Samples, sparse_dots::SparseDots};
    /// let x = Samples::from_triplets(2, 1 << 40, &[(0, 5, 1.0), (1, 1 << 39, 2.0)])?;
    /// assert!(SparseDots::fits(&x));
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn fits(x: &Samples) -> bool {
        (active_features(x).len() as u128) * (x.n() as u128) <= Self::MAX_TRANSPOSED as u128
    }

    /// Builds both copies from a store of either kind (`O(n·d)` for a dense store, `O(nnz log nnz)`
    /// for a sparse one, plus the `active × n` transposed copy; the dense store's copy is gathered in
    /// parallel). Callers check [`SparseDots::fits`] first for data of unknown shape.
    pub fn new(x: &Samples) -> Self {
        let (n, d) = (x.n(), x.d());
        let orig = active_features(x);
        let active = orig.len();
        // Feature k's row in the transposed copy: a lookup table for a dense store (d is moderate),
        // a binary search in the sorted active features for a sparse one (d may be huge).
        let table: Vec<u32> = match x.as_dense() {
            Some(_) => {
                let mut t = vec![u32::MAX; d];
                for (m, &k) in orig.iter().enumerate() {
                    t[k] = m as u32;
                }
                t
            }
            None => Vec::new(),
        };
        let remap = |k: usize| -> u32 {
            if table.is_empty() { orig.binary_search(&k).expect("active feature") as u32 } else { table[k] }
        };
        let mut indptr = Vec::with_capacity(n + 1);
        let (mut idx, mut val) = (Vec::new(), Vec::new());
        indptr.push(0);
        for r in x.samples() {
            match r {
                SampleRef::Dense(r) => {
                    for (k, &v) in r.iter().enumerate().filter(|(_, v)| **v != 0.0) {
                        idx.push(remap(k));
                        val.push(v);
                    }
                }
                SampleRef::Sparse { indices, values } => {
                    for (&k, &v) in indices.iter().zip(values).filter(|(_, v)| **v != 0.0) {
                        idx.push(remap(k));
                        val.push(v);
                    }
                }
            }
            indptr.push(idx.len());
        }
        let mut xt = vec![0.0; active * n];
        if n > 0 {
            match x.as_dense() {
                // One task per few features (a contiguous band of `xt`), reading the samples row by
                // row: the reads of a band touch one or two cache lines per sample instead of one per
                // element.
                Some(_) => {
                    xt.par_chunks_mut(n * XT_BAND).zip(orig.par_chunks(XT_BAND)).for_each(|(band, ks)| {
                        for (t, r) in x.rows().enumerate() {
                            for (f, &k) in ks.iter().enumerate() {
                                band[f * n + t] = r[k];
                            }
                        }
                    })
                }
                // A sparse store scatters its (remapped) nonzeros: O(nnz).
                None => {
                    for t in 0..n {
                        for p in indptr[t]..indptr[t + 1] {
                            xt[idx[p] as usize * n + t] = val[p];
                        }
                    }
                }
            }
        }
        SparseDots { n, d, indptr, idx, val, xt, active, norms: x.sq_norms() }
    }

    /// Builds the sparse form only when the data are sparse enough for it to pay
    /// (density ≤ [`SparseDots::MAX_DENSITY`]) and its transposed copy fits
    /// ([`SparseDots::fits`]); the density is counted first, without allocating.
    ///
    /// ```
    /// use kern_core::{Samples, sparse_dots::SparseDots};
    /// let dense = Samples::from_rows(&[[1.0, 2.0], [3.0, 4.0]])?;
    /// assert!(SparseDots::if_sparse(&dense).is_none());
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn if_sparse(x: &Samples) -> Option<Self> {
        (density(x) <= Self::MAX_DENSITY && x.n() > 0 && Self::fits(x)).then(|| Self::new(x))
    }

    /// Number of samples.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Fraction of nonzero coordinates (over all `n · d`).
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[1.0, 0.0], [0.0, 0.0]])?;
    /// assert_eq!(kern_core::sparse_dots::SparseDots::new(&x).density(), 0.25);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn density(&self) -> f64 {
        self.idx.len() as f64 / (self.n * self.d).max(1) as f64
    }

    /// Features that are nonzero in at least one sample (the rows of the transposed copy).
    pub fn active_features(&self) -> usize {
        self.active
    }

    /// `out[t] = ⟨x_i, x_{r₀+t}⟩` for the samples `rows = r₀..r₁` (`out.len() == r₁ − r₀`).
    ///
    /// # Panics
    /// If `i` or `rows` is out of range or `out` has the wrong length (internal callers only pass
    /// ranges they derived from `n`).
    pub fn dots(&self, i: usize, rows: Range<usize>, out: &mut [f64]) {
        assert!(rows.end <= self.n && rows.len() == out.len() && i < self.n);
        let nz = self.indptr[i]..self.indptr[i + 1];
        let (ks, vs) = (&self.idx[nz.clone()], &self.val[nz]);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: AVX-512F was detected at run time just above; it is the only requirement of the
            // `target_feature` function.
            #[allow(unsafe_code)]
            unsafe {
                accumulate_avx512(&self.xt, self.n, ks, vs, rows.start, out)
            };
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: AVX2 and FMA were detected at run time just above; they are the only requirements
            // of the `target_feature` function.
            #[allow(unsafe_code)]
            unsafe {
                accumulate_avx2(&self.xt, self.n, ks, vs, rows.start, out)
            };
            return;
        }
        accumulate(&self.xt, self.n, ks, vs, rows.start, out)
    }
}

impl SparseDots {
    /// `out[t] = ‖x_i − x_{r₀+t}‖²` by the norms formulation `‖x_i‖² + ‖x_j‖² − 2⟨x_i, x_j⟩`, exactly 0 at
    /// `j = i`, and recomputed from the coordinates of `x` (the samples this was built from) where
    /// cancellation has eaten the digits (near-duplicates; the rule of the dense Gram path).
    ///
    /// ```
    /// use kern_core::{Samples, sparse_dots::SparseDots};
    /// let x = Samples::from_rows(&[[3.0, 0.0, 0.0], [0.0, 0.0, 4.0], [3.0, 0.0, 0.0]])?;
    /// let mut out = [f64::NAN; 3];
    /// SparseDots::new(&x).sq_dists(&x, 0, 0..3, &mut out);
    /// assert_eq!(out, [0.0, 25.0, 0.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Panics
    /// As [`SparseDots::dots`].
    pub fn sq_dists(&self, x: &Samples, i: usize, rows: Range<usize>, out: &mut [f64]) {
        let r0 = rows.start;
        self.dots(i, rows, out);
        self.dots_to_sq_dists(x, i, r0, out);
    }

    /// Turns `out[t] = ⟨x_i, x_{r₀+t}⟩` into `‖x_i − x_{r₀+t}‖²` in place (the rule of
    /// [`SparseDots::sq_dists`]).
    ///
    /// The rule of `gram::exact_when_cancelling` (one predicate, `gram::cancelled`), split into a
    /// vectorizable pass and, only when some entry cancelled or `i` is in range, a second pass over those
    /// entries.
    pub(crate) fn dots_to_sq_dists(&self, x: &Samples, i: usize, r0: usize, out: &mut [f64]) {
        use crate::gram::cancelled;
        let ni = self.norms[i];
        let nj = &self.norms[r0..r0 + out.len()];
        let mut any = false;
        for (v, &nj) in out.iter_mut().zip(nj) {
            let r2 = ni + nj - 2.0 * *v;
            any |= cancelled(r2, ni, nj);
            *v = r2;
        }
        if !any && !(r0..r0 + out.len()).contains(&i) {
            return;
        }
        for ((t, v), &nj) in out.iter_mut().enumerate().zip(nj) {
            let j = r0 + t;
            if j == i {
                *v = 0.0;
            } else if cancelled(*v, ni, nj) {
                *v = x.sample(j).sq_dist(x.sample(i));
            }
        }
    }
}

/// Samples per [`SampleGroup`]: their inner products with a range of samples are computed together, so
/// that every loaded value of the transposed copy feeds up to four multiply-adds instead of one.
///
/// ```
/// use kern_core::{Samples, sparse_dots::{GROUP, SparseDots}};
/// let x = Samples::from_rows(&[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [0.0, 2.0], [3.0, 3.0]])?;
/// let s = SparseDots::new(&x);
/// assert!(std::panic::catch_unwind(|| s.group(&[0; GROUP + 1])).is_err()); // at most GROUP samples
/// let groups = s.groups(0..6);
/// assert!(groups.iter().all(|g| g.samples().len() <= GROUP));
/// assert_eq!(groups.len(), 6usize.div_ceil(GROUP));
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub const GROUP: usize = 4;

/// Up to [`GROUP`] samples prepared for [`SparseDots::group_dots`]: the union of their nonzero features,
/// ordered by which of the samples are nonzero there (each feature then costs a multiply-add only for
/// those samples), with the samples' values side by side (0 where a sample is zero).
///
/// Built by [`SparseDots::group`] (given samples) or [`SparseDots::groups`] (a range split into groups
/// of samples with similar nonzero patterns, which keeps the unions small).
///
/// ```
/// use kern_core::{Samples, sparse_dots::SparseDots};
/// let x = Samples::from_rows(&[[1.0, 0.0, 2.0], [0.0, 3.0, 0.0], [1.0, 1.0, 1.0]])?;
/// let s = SparseDots::new(&x);
/// let g = s.group(&[1, 2]);
/// let mut out = [0.0; 6];
/// s.group_dots(&g, 0..3, &mut out);
/// // Row by row of the group: the same inner products as one sample at a time.
/// let mut one = [0.0; 3];
/// for (t, &i) in g.samples().iter().enumerate() {
///     s.dots(i, 0..3, &mut one);
///     assert_eq!(out[3 * t..3 * t + 3], one);
/// }
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug)]
pub struct SampleGroup {
    samples: Vec<usize>,
    feats: Vec<u32>,
    vals: Vec<[f64; GROUP]>,
    /// The features whose membership mask (bit `c` set when sample `c` is nonzero) is `m` are
    /// `ends[m − 1]..ends[m]`; mask 0 does not occur, so `ends[0] = 0`.
    ends: [u32; 1 << GROUP],
}

impl SampleGroup {
    /// The samples of the group, in the order of [`SparseDots::group_dots`]'s output.
    ///
    /// ```
    /// use kern_core::{Samples, sparse_dots::SparseDots};
    /// let x = Samples::from_rows(&[[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]])?;
    /// assert_eq!(SparseDots::new(&x).group(&[2, 0]).samples(), &[2, 0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn samples(&self) -> &[usize] {
        &self.samples
    }

    /// Features nonzero in at least one sample of the group (the multiply-adds per row are at most
    /// [`GROUP`] times this, and exactly the samples' nonzeros in the AVX-512 kernel).
    ///
    /// ```
    /// use kern_core::{Samples, sparse_dots::SparseDots};
    /// let x = Samples::from_rows(&[[1.0, 0.0, 5.0], [0.0, 2.0, 5.0]])?;
    /// assert_eq!(SparseDots::new(&x).group(&[0, 1]).union_len(), 3);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn union_len(&self) -> usize {
        self.feats.len()
    }
}

/// Work space of [`SparseDots::group`]: a membership mask and the group's values per active feature.
struct GroupScratch {
    mask: Vec<u8>,
    vals: Vec<[f64; GROUP]>,
    union: Vec<u32>,
}

impl GroupScratch {
    fn new(active: usize) -> Self {
        GroupScratch { mask: vec![0; active], vals: vec![[0.0; GROUP]; active], union: Vec::new() }
    }
}

/// Samples over which [`SparseDots::groups`] searches for similar partners (the search is quadratic in
/// it; larger windows gave unions only a few per cent smaller on MNIST).
const GROUPING_WINDOW: usize = 128;

impl SparseDots {
    /// Prepares the samples `samples` (one to [`GROUP`] of them, any order, repeats allowed) for
    /// [`SparseDots::group_dots`]: merges their nonzero features (`O(Σ nnz)`).
    ///
    /// ```
    /// use kern_core::{Samples, sparse_dots::SparseDots};
    /// let x = Samples::from_rows(&[[1.0, 0.0, 0.0, 2.0], [0.0, 0.0, 3.0, 1.0], [4.0, 0.0, 0.0, 0.0]])?;
    /// let s = SparseDots::new(&x);
    /// let g = s.group(&[0, 2]);
    /// let mut out = [0.0; 6];
    /// s.group_dots(&g, 0..3, &mut out);
    /// assert_eq!(out, [5.0, 2.0, 4.0, 4.0, 0.0, 16.0]); // ⟨x₀, x_j⟩ then ⟨x₂, x_j⟩
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Panics
    /// If `samples` is empty, longer than [`GROUP`], or holds an index `≥ n`.
    pub fn group(&self, samples: &[usize]) -> SampleGroup {
        self.group_with(samples, &mut GroupScratch::new(self.active))
    }

    /// [`SparseDots::group`] with reusable work space (left all zero again on return).
    fn group_with(&self, samples: &[usize], s: &mut GroupScratch) -> SampleGroup {
        assert!(!samples.is_empty() && samples.len() <= GROUP && samples.iter().all(|&i| i < self.n));
        // Scatter the samples' nonzeros into per-feature masks and values, then collect the union in
        // feature order.
        for (c, &i) in samples.iter().enumerate() {
            for t in self.indptr[i]..self.indptr[i + 1] {
                let k = self.idx[t] as usize;
                s.mask[k] |= 1 << c;
                s.vals[k][c] = self.val[t];
            }
        }
        let mut ends = [0u32; 1 << GROUP];
        s.union.clear();
        for (k, &m) in s.mask.iter().enumerate() {
            if m != 0 {
                s.union.push(k as u32);
                ends[m as usize] += 1;
            }
        }
        for m in 1..ends.len() {
            ends[m] += ends[m - 1];
        }
        // Counting sort by mask (stable: feature order within a mask, for locality).
        let mut next = [0u32; 1 << GROUP];
        next[1..].copy_from_slice(&ends[..(1 << GROUP) - 1]);
        let mut feats = vec![0u32; s.union.len()];
        let mut vals = vec![[0.0; GROUP]; s.union.len()];
        for &k in &s.union {
            let m = std::mem::take(&mut s.mask[k as usize]) as usize;
            let at = next[m] as usize;
            (feats[at], vals[at]) = (k, std::mem::take(&mut s.vals[k as usize]));
            next[m] += 1;
        }
        SampleGroup { samples: samples.to_vec(), feats, vals, ends }
    }

    /// Splits the samples `samples` into [`SampleGroup`]s of [`GROUP`] (the last one possibly fewer), each
    /// built greedily from samples of the same window of 128 whose nonzero features overlap most: the
    /// sample with the most nonzeros left opens a group, and the sample adding the fewest new features
    /// to its union joins it, until it is full. Every sample of the range is in exactly one group.
    ///
    /// ```
    /// use kern_core::{Samples, sparse_dots::{GROUP, SparseDots}};
    /// let x = Samples::from_rows(&[[1.0, 0.0], [0.0, 1.0], [2.0, 0.0], [0.0, 3.0], [1.0, 1.0]])?;
    /// let s = SparseDots::new(&x);
    /// let gs = s.groups(0..5);
    /// let mut all: Vec<usize> = gs.iter().flat_map(|g| g.samples().to_vec()).collect();
    /// all.sort();
    /// assert_eq!(all, [0, 1, 2, 3, 4]);
    /// assert!(gs.iter().all(|g| g.samples().len() <= GROUP));
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Panics
    /// If `samples.end > n`.
    pub fn groups(&self, samples: Range<usize>) -> Vec<SampleGroup> {
        assert!(samples.end <= self.n);
        let words = self.active.div_ceil(64).max(1);
        let mut out = Vec::with_capacity(samples.len().div_ceil(GROUP));
        let mut start = samples.start;
        while start < samples.end {
            let end = (start + GROUPING_WINDOW).min(samples.end);
            let mut bits = vec![0u64; (end - start) * words];
            for (b, i) in bits.chunks_exact_mut(words).zip(start..end) {
                for &k in &self.idx[self.indptr[i]..self.indptr[i + 1]] {
                    b[k as usize / 64] |= 1 << (k % 64);
                }
            }
            let nnz = |i: usize| self.indptr[i + 1] - self.indptr[i];
            let scratch = &mut GroupScratch::new(self.active);
            let mut left: Vec<usize> = (start..end).collect();
            while !left.is_empty() {
                let seed = (0..left.len()).max_by_key(|&t| (nnz(left[t]), std::cmp::Reverse(t))).unwrap_or(0);
                let first = left.remove(seed);
                let mut union = bits[(first - start) * words..][..words].to_vec();
                let mut members = vec![first];
                while members.len() < GROUP && !left.is_empty() {
                    let growth = |i: usize| -> u32 {
                        let b = &bits[(i - start) * words..][..words];
                        b.iter().zip(&union).map(|(b, u)| (b & !u).count_ones()).sum()
                    };
                    let best = (0..left.len()).min_by_key(|&t| (growth(left[t]), t)).unwrap_or(0);
                    let i = left.remove(best);
                    for (u, b) in union.iter_mut().zip(&bits[(i - start) * words..][..words]) {
                        *u |= b;
                    }
                    members.push(i);
                }
                out.push(self.group_with(&members, scratch));
            }
            start = end;
        }
        out
    }

    /// `out[c·m + t] = ⟨x_{s_c}, x_{r₀+t}⟩` for the samples `s_c` of `group` and the samples
    /// `rows = r₀..r₁` (`m = r₁ − r₀`, `out.len() == group.samples().len() · m`): the products of
    /// [`SparseDots::dots`] for all samples of the group in one pass over the transposed copy. Blocks of
    /// 32 rows (12 without AVX-512) keep `GROUP × 32` sums in registers, each loaded value feeding the
    /// multiply-adds of every sample of the group that is nonzero at its feature; the last `< 32` rows
    /// go through [`SparseDots::dots`].
    ///
    /// ```
    /// use kern_core::{Samples, sparse_dots::SparseDots};
    /// let x = Samples::from_rows(&[[1.0, 2.0], [0.0, 3.0], [4.0, 0.0]])?;
    /// let s = SparseDots::new(&x);
    /// let mut out = [0.0; 4];
    /// s.group_dots(&s.group(&[1, 2]), 1..3, &mut out);
    /// assert_eq!(out, [9.0, 0.0, 0.0, 16.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Panics
    /// If `rows` is out of range, `out` has the wrong length, or `group` holds a sample `≥ n` (it was
    /// built by another, larger `SparseDots`).
    pub fn group_dots(&self, group: &SampleGroup, rows: Range<usize>, out: &mut [f64]) {
        let m = rows.len();
        assert!(rows.end <= self.n && out.len() == group.samples.len() * m);
        assert!(group.samples.iter().all(|&i| i < self.n));
        #[cfg(target_arch = "x86_64")]
        let full = if std::arch::is_x86_feature_detected!("avx512f") {
            let full = m / WIDE_LANES * WIDE_LANES;
            // SAFETY: AVX-512F was detected at run time just above; it is the only requirement of the
            // `target_feature` function.
            #[allow(unsafe_code)]
            unsafe {
                group_blocks_avx512(&self.xt, self.n, group, rows.start, full, out)
            };
            full
        } else if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            let full = m / NARROW_LANES * NARROW_LANES;
            // SAFETY: AVX2 and FMA were detected at run time just above; they are the only requirements
            // of the `target_feature` function.
            #[allow(unsafe_code)]
            unsafe {
                group_blocks_avx2(&self.xt, self.n, group, rows.start, full, out)
            };
            full
        } else {
            let full = m / NARROW_LANES * NARROW_LANES;
            group_blocks::<NARROW_LANES, false>(&self.xt, self.n, group, rows.start, full, out);
            full
        };
        #[cfg(not(target_arch = "x86_64"))]
        let full = {
            let full = m / NARROW_LANES * NARROW_LANES;
            group_blocks::<NARROW_LANES, false>(&self.xt, self.n, group, rows.start, full, out);
            full
        };
        if full < m {
            for (&i, o) in group.samples.iter().zip(out.chunks_exact_mut(m)) {
                self.dots(i, rows.start + full..rows.end, &mut o[full..]);
            }
        }
    }

    /// `out[c·m + t] = ‖x_{s_c} − x_{r₀+t}‖²`: [`SparseDots::group_dots`] with the rule of
    /// [`SparseDots::sq_dists`] (`x` is the sample set this was built from).
    ///
    /// ```
    /// use kern_core::{Samples, sparse_dots::SparseDots};
    /// let x = Samples::from_rows(&[[3.0, 0.0], [0.0, 4.0], [3.0, 0.0]])?;
    /// let s = SparseDots::new(&x);
    /// let mut out = [f64::NAN; 6];
    /// s.group_sq_dists(&x, &s.group(&[0, 1]), 0..3, &mut out);
    /// assert_eq!(out, [0.0, 25.0, 0.0, 25.0, 0.0, 25.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Panics
    /// As [`SparseDots::group_dots`].
    pub fn group_sq_dists(&self, x: &Samples, group: &SampleGroup, rows: Range<usize>, out: &mut [f64]) {
        let m = rows.len();
        self.group_dots(group, rows.clone(), out);
        if m > 0 {
            for (&i, o) in group.samples.iter().zip(out.chunks_exact_mut(m)) {
                self.dots_to_sq_dists(x, i, rows.start, o);
            }
        }
    }
}

/// Fraction of nonzero coordinates of `x`.
///
/// ```
/// let x = kern_core::Samples::from_rows(&[[1.0, 0.0, 0.0, 0.0]])?;
/// assert_eq!(kern_core::sparse_dots::density(&x), 0.25);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn density(x: &Samples) -> f64 {
    x.samples()
        .map(|r| match r {
            SampleRef::Dense(v) => v.iter().filter(|v| **v != 0.0).count(),
            SampleRef::Sparse { values, .. } => values.iter().filter(|v| **v != 0.0).count(),
        })
        .sum::<usize>() as f64
        / (x.n() as f64 * x.d() as f64)
}

/// The features nonzero in at least one sample, ascending (`O(n·d)` for a dense store,
/// `O(nnz log nnz)` for a sparse one).
fn active_features(x: &Samples) -> Vec<usize> {
    match x.as_dense() {
        Some(_) => {
            let mut seen = vec![false; x.d()];
            for r in x.rows() {
                for (m, v) in seen.iter_mut().zip(r) {
                    *m |= *v != 0.0;
                }
            }
            seen.iter().enumerate().filter(|(_, m)| **m).map(|(k, _)| k).collect()
        }
        None => {
            let mut ks: Vec<usize> = x
                .samples()
                .flat_map(|r| match r {
                    SampleRef::Sparse { indices, values } => {
                        indices.iter().zip(values).filter(|(_, v)| **v != 0.0).map(|(&k, _)| k).collect()
                    }
                    SampleRef::Dense(_) => Vec::new(),
                })
                .collect();
            ks.sort_unstable();
            ks.dedup();
            ks
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn accumulate_avx2(xt: &[f64], n: usize, ks: &[u32], vs: &[f64], r0: usize, out: &mut [f64]) {
    accumulate(xt, n, ks, vs, r0, out)
}

/// [`accumulate`] with 64 rows per register block (8 zmm registers), then 32 and 8, then the tail.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn accumulate_avx512(xt: &[f64], n: usize, ks: &[u32], vs: &[f64], r0: usize, out: &mut [f64]) {
    let mut done = accumulate_lanes::<64>(xt, n, ks, vs, r0, out);
    done += accumulate_lanes::<32>(xt, n, ks, vs, r0 + done, &mut out[done..]);
    done += accumulate_lanes::<8>(xt, n, ks, vs, r0 + done, &mut out[done..]);
    accumulate_tail(xt, n, ks, vs, r0 + done, &mut out[done..])
}

/// Rows per register block: 32 accumulators (8 AVX2 registers) per pass over the sparse row, enough
/// independent FMA chains to hide the FMA latency.
const LANES: usize = 32;

/// `out = Σ_k vs[k] · xt[ks[k], r₀..]`: for each block of [`LANES`] rows the accumulators stay in
/// registers across all `nnz` features (one load and one FMA per feature and row); the tail takes four
/// features per pass over memory.
#[inline(always)]
fn accumulate(xt: &[f64], n: usize, ks: &[u32], vs: &[f64], r0: usize, out: &mut [f64]) {
    let full = accumulate_lanes::<LANES>(xt, n, ks, vs, r0, out);
    accumulate_tail(xt, n, ks, vs, r0 + full, &mut out[full..])
}

/// The first `⌊len / L⌋ · L` rows of [`accumulate`] in register blocks of `L`; returns how many.
#[inline(always)]
fn accumulate_lanes<const L: usize>(
    xt: &[f64],
    n: usize,
    ks: &[u32],
    vs: &[f64],
    r0: usize,
    out: &mut [f64],
) -> usize {
    let full = out.len() / L * L;
    for (b, chunk) in out[..full].chunks_exact_mut(L).enumerate() {
        let base = r0 + b * L;
        let mut acc = [0.0f64; L];
        for (&k, &v) in ks.iter().zip(vs) {
            let x: &[f64; L] = xt[k as usize * n + base..][..L].try_into().expect("L elements");
            for (a, xv) in acc.iter_mut().zip(x) {
                *a = xv.mul_add(v, *a);
            }
        }
        chunk.copy_from_slice(&acc);
    }
    full
}

/// All of `out` (any length, used for the last `< L` rows), four features per pass over memory.
#[inline(always)]
fn accumulate_tail(xt: &[f64], n: usize, ks: &[u32], vs: &[f64], r0: usize, tail: &mut [f64]) {
    let len = tail.len();
    if len == 0 {
        return;
    }
    let row = |k: u32| &xt[k as usize * n + r0..][..len];
    tail.fill(0.0);
    let mut kc = ks.chunks_exact(4);
    let mut vc = vs.chunks_exact(4);
    for (k, v) in (&mut kc).zip(&mut vc) {
        let (a, b, c, e) = (row(k[0]), row(k[1]), row(k[2]), row(k[3]));
        for ((((o, a), b), c), e) in tail.iter_mut().zip(a).zip(b).zip(c).zip(e) {
            *o = e.mul_add(v[3], c.mul_add(v[2], b.mul_add(v[1], a.mul_add(v[0], *o))));
        }
    }
    for (&k, &v) in kc.remainder().iter().zip(vc.remainder()) {
        for (o, a) in tail.iter_mut().zip(row(k)) {
            *o = a.mul_add(v, *o);
        }
    }
}

/// Rows per register block of the AVX-512 group kernel: `GROUP × 32` sums in 16 zmm registers. Row
/// ranges starting at a multiple of it past a block start keep the register blocks whole.
pub(crate) const WIDE_LANES: usize = 32;
/// Rows per register block of the AVX2 / portable group kernel: `GROUP × 12` sums in 12 ymm registers.
const NARROW_LANES: usize = 12;

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn group_blocks_avx512(xt: &[f64], n: usize, g: &SampleGroup, r0: usize, full: usize, out: &mut [f64]) {
    group_blocks::<WIDE_LANES, true>(xt, n, g, r0, full, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn group_blocks_avx2(xt: &[f64], n: usize, g: &SampleGroup, r0: usize, full: usize, out: &mut [f64]) {
    group_blocks::<NARROW_LANES, false>(xt, n, g, r0, full, out)
}

/// The first `full` (a multiple of `L`) rows of [`SparseDots::group_dots`], in blocks of `L` rows.
#[inline(always)]
fn group_blocks<const L: usize, const MASKED: bool>(
    xt: &[f64],
    n: usize,
    g: &SampleGroup,
    r0: usize,
    full: usize,
    out: &mut [f64],
) {
    let m = out.len() / g.samples.len();
    for b in (0..full).step_by(L) {
        let acc = group_block::<L, MASKED>(xt, n, g, r0 + b);
        for (a, o) in acc.iter().zip(out.chunks_exact_mut(m)) {
            o[b..b + L].copy_from_slice(a);
        }
    }
}

/// The products of the samples of `g` with the `L` rows from `base`. `MASKED` runs each class of
/// features (same samples nonzero) with only those samples' multiply-adds; otherwise every feature of
/// the union takes `GROUP` of them (fewer loop exits, for narrow registers).
#[inline(always)]
fn group_block<const L: usize, const MASKED: bool>(
    xt: &[f64],
    n: usize,
    g: &SampleGroup,
    base: usize,
) -> [[f64; L]; GROUP] {
    let mut acc = [[0.0f64; L]; GROUP];
    if !MASKED {
        group_run::<15, L>(xt, n, &g.feats, &g.vals, base, &mut acc);
        return acc;
    }
    for mask in 1..1 << GROUP {
        let r = g.ends[mask - 1] as usize..g.ends[mask] as usize;
        let (ks, vs) = (&g.feats[r.clone()], &g.vals[r]);
        macro_rules! by_mask {
            ($($mask:literal)*) => {
                match mask {
                    $($mask => group_run::<$mask, L>(xt, n, ks, vs, base, &mut acc),)*
                    _ => group_run::<15, L>(xt, n, ks, vs, base, &mut acc),
                }
            };
        }
        by_mask!(1 2 3 4 5 6 7 8 9 10 11 12 13 14);
    }
    acc
}

/// `acc[c] += vs[·][c] · xt[ks[·], base..base + L]` for the samples `c` in `MASK`.
#[inline(always)]
fn group_run<const MASK: usize, const L: usize>(
    xt: &[f64],
    n: usize,
    ks: &[u32],
    vs: &[[f64; GROUP]],
    base: usize,
    acc: &mut [[f64; L]; GROUP],
) {
    for (&k, v) in ks.iter().zip(vs) {
        let x: &[f64; L] = xt[k as usize * n + base..][..L].try_into().expect("L elements");
        for c in 0..GROUP {
            if (MASK >> c) & 1 == 1 {
                for t in 0..L {
                    acc[c][t] = x[t].mul_add(v[c], acc[c][t]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_dense_dots_on_every_range() {
        let (n, d) = (77, 23);
        let mut s = 9u64;
        let v: Vec<f64> = (0..n * d)
            .map(|t| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                // about a quarter nonzero, feature 5 always zero
                if (s >> 60) < 4 && t % d != 5 { ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5 } else { 0.0 }
            })
            .collect();
        let x = Samples::from_flat(v, n, d).unwrap();
        let sd = SparseDots::new(&x);
        assert!(sd.active_features() < d);
        for i in 0..n {
            for (a, b) in
                [(0, n), (i, n), (3, 4), (5, 5), (0, 1), (1, n.min(1 + 33)), (2, 2 + 72), (4, 4 + 64)]
            {
                let mut out = vec![f64::NAN; b - a];
                sd.dots(i, a..b, &mut out);
                // The portable 32-row form too, whatever this CPU dispatches to.
                let mut portable = vec![f64::NAN; b - a];
                let nz = sd.indptr[i]..sd.indptr[i + 1];
                accumulate(&sd.xt, n, &sd.idx[nz.clone()], &sd.val[nz], a, &mut portable);
                for (t, (o, p)) in out.iter().zip(&portable).enumerate() {
                    let want = crate::samples::dot(x.row(i), x.row(a + t));
                    assert!((o - want).abs() <= 1e-14 * (1.0 + want.abs()), "{i} {a} {t}: {o} vs {want}");
                    assert!((p - want).abs() <= 1e-14 * (1.0 + want.abs()), "{i} {a} {t}: {p} vs {want}");
                }
            }
        }
    }

    /// Random sparse samples (about `density` nonzeros, feature 5 always zero) with an empty sample
    /// (index 2), single-nonzero samples (3 and 4) and a duplicate (7 = 6).
    fn awkward_sparse(n: usize, d: usize, density: f64, seed: u64) -> Samples {
        let mut s = seed;
        let mut v: Vec<f64> = (0..n * d)
            .map(|t| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let u = (s >> 11) as f64 / (1u64 << 53) as f64;
                if u < density && t % d != 5 { (u / density) * 2.0 - 1.0 + 1e-3 } else { 0.0 }
            })
            .collect();
        v[2 * d..3 * d].fill(0.0);
        v[3 * d..5 * d].fill(0.0);
        v[3 * d + 1] = 0.75;
        v[4 * d + d - 1] = -2.5;
        let r6 = v[6 * d..7 * d].to_vec();
        v[7 * d..8 * d].copy_from_slice(&r6);
        Samples::from_flat(v, n, d).unwrap()
    }

    fn assert_dots(x: &Samples, samples: &[usize], rows: Range<usize>, out: &[f64], what: &str) {
        let m = rows.len();
        assert_eq!(out.len(), samples.len() * m);
        for (c, &i) in samples.iter().enumerate() {
            for (t, j) in rows.clone().enumerate() {
                let want = crate::samples::dot(x.row(i), x.row(j));
                let o = out[c * m + t];
                assert!(
                    (o - want).abs() <= 1e-14 * (1.0 + want.abs()),
                    "{what} {samples:?} {i}·{j}: {o} vs {want}"
                );
            }
        }
    }

    #[test]
    fn group_dots_match_dense_dots() {
        let (n, d) = (150, 41);
        let x = awkward_sparse(n, d, 0.25, 3);
        let sd = SparseDots::new(&x);
        let mut groups = sd.groups(0..n);
        // Hand-made groups: every size, the empty and single-nonzero samples, repeats.
        for samples in [&[2][..], &[3, 2], &[4, 3, 2], &[0, 1, 2, 3], &[6, 7, 6], &[149, 0], &[5, 5, 5, 5]] {
            groups.push(sd.group(samples));
        }
        let ranges = [(0, n), (0, 1), (5, 5), (3, 4), (1, 34), (7, 71), (10, 55), (n - 33, n), (100, 132)];
        for g in &groups {
            for &(a, b) in &ranges {
                let mut out = vec![f64::NAN; g.samples().len() * (b - a)];
                sd.group_dots(g, a..b, &mut out);
                assert_dots(&x, g.samples(), a..b, &out, "group_dots");
                // Both register-block variants, whatever this CPU runs (portable code, same results).
                let m = b - a;
                for (lanes, what) in [(WIDE_LANES, "masked"), (NARROW_LANES, "union")] {
                    let full = m / lanes * lanes;
                    let mut out = vec![f64::NAN; g.samples().len() * m];
                    if lanes == WIDE_LANES {
                        group_blocks::<WIDE_LANES, true>(&sd.xt, n, g, a, full, &mut out);
                    } else {
                        group_blocks::<NARROW_LANES, false>(&sd.xt, n, g, a, full, &mut out);
                    }
                    for (&i, o) in g.samples().iter().zip(out.chunks_exact_mut(m.max(1))) {
                        sd.dots(i, a + full..b, &mut o[full..]);
                    }
                    assert_dots(&x, g.samples(), a..b, &out, what);
                }
            }
        }
    }

    #[test]
    fn groups_partition_the_range_into_unions() {
        let (n, d) = (300, 30);
        let x = awkward_sparse(n, d, 0.2, 8);
        let sd = SparseDots::new(&x);
        for range in [0..n, 17..18, 40..300, 3..3] {
            let gs = sd.groups(range.clone());
            let mut seen: Vec<usize> = gs.iter().flat_map(|g| g.samples().to_vec()).collect();
            seen.sort_unstable();
            assert_eq!(seen, range.clone().collect::<Vec<_>>());
            assert_eq!(gs.len(), range.len().div_ceil(GROUP));
            for g in &gs {
                assert!(!g.samples().is_empty() && g.samples().len() <= GROUP);
                // Groups stay inside one window of 128 samples.
                let (lo, hi) = (g.samples().iter().min().unwrap(), g.samples().iter().max().unwrap());
                assert_eq!((lo - range.start) / GROUPING_WINDOW, (hi - range.start) / GROUPING_WINDOW);
                let union = (0..d).filter(|&k| g.samples().iter().any(|&i| x.row(i)[k] != 0.0)).count();
                assert_eq!(g.union_len(), union);
            }
        }
    }

    #[test]
    fn group_sq_dists_match_single_sample_sq_dists() {
        let (n, d) = (90, 25);
        let x = awkward_sparse(n, d, 0.3, 5);
        let sd = SparseDots::new(&x);
        for g in sd.groups(0..n).iter().chain([&sd.group(&[6, 7, 2])]) {
            for (a, b) in [(0, n), (6, 8), (40, 73)] {
                let m = b - a;
                let mut out = vec![f64::NAN; g.samples().len() * m];
                sd.group_sq_dists(&x, g, a..b, &mut out);
                for (&i, o) in g.samples().iter().zip(out.chunks_exact(m)) {
                    let mut single = vec![f64::NAN; m];
                    sd.sq_dists(&x, i, a..b, &mut single);
                    for ((j, &o), &s) in (a..b).zip(o).zip(&single) {
                        // Same rule, products summed in another order: equal to rounding, and exact zeros
                        // (the diagonal, the duplicate) exactly.
                        let tol = 1e-14 * (1.0 + sd.norms[i] + sd.norms[j]);
                        let exact = crate::samples::sq_dist(x.row(i), x.row(j));
                        assert!((o - s).abs() <= tol && (o - exact).abs() <= tol, "{i} {j}: {o} {s} {exact}");
                        assert_eq!(o == 0.0, exact == 0.0, "{i} {j}");
                    }
                }
            }
        }
        // The duplicate pair is exactly 0 apart through the cancellation guard.
        let mut out = [f64::NAN; 2];
        sd.group_sq_dists(&x, &sd.group(&[6]), 6..8, &mut out);
        assert_eq!(out, [0.0, 0.0]);
    }

    #[test]
    fn all_zero_samples_and_empty_sets() {
        let x = Samples::from_rows(&[[0.0, 0.0], [0.0, 0.0]]).unwrap();
        let sd = SparseDots::new(&x);
        assert_eq!(sd.active_features(), 0);
        let mut out = [1.0; 2];
        sd.dots(1, 0..2, &mut out);
        assert_eq!(out, [0.0, 0.0]);
        assert!(SparseDots::if_sparse(&x).is_some());
    }
}
