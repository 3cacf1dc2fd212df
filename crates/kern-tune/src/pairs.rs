//! Pairwise squared distances of a sample set, strict lower triangle only, packed in one flat array;
//! seeded subsamples and random pairs for large `n`.
//!
//! Layout: the pairs `(i, j)` with `i > j`, column by column (`j = 0, 1, …`), rows ascending within a
//! column; column `j` starts at [`column_offset`]`(n, j)`. Above 8 dimensions the
//! distances come from faer GEMMs on the norms formulation `‖xᵢ‖² + ‖xⱼ‖² − 2⟨xᵢ, xⱼ⟩` (after centring
//! the data, which leaves distances unchanged and limits cancellation), one GEMM per block of
//! 128 columns covering rows `j₀..n` only — the lower triangle plus the diagonal blocks, never the
//! upper triangle. Each block column writes its own contiguous part of the output, in parallel. In low
//! dimension the distances are summed directly (exact and faster than a skinny GEMM).
//!
//! ```
//! use kern_core::Samples;
//! use kern_tune::pairs::{column_offset, pairwise_sq_dists};
//! let x = Samples::from_rows(&[[0.0, 0.0], [3.0, 4.0], [1.0, 0.0], [0.0, 2.0]])?;
//! let d = pairwise_sq_dists(&x);
//! assert_eq!(d.len(), 4 * 3 / 2); // the pairs i > j only
//! let at = |i: usize, j: usize| d[column_offset(4, j) + (i - j - 1)];
//! assert_eq!((at(1, 0), at(2, 1), at(3, 1), at(3, 2)), (25.0, 20.0, 13.0, 5.0));
//! # Ok::<(), kern_core::CoreError>(())
//! ```

use crate::binned::{BinnedPairs, Part};
use crate::rng;
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par};
use kern_core::Samples;
use kern_core::sparse_dots::SparseDots;
use rayon::prelude::*;

/// Columns per GEMM block.
pub(crate) const BLOCK: usize = 128;

/// Dimension up to which distances are computed directly rather than by GEMM (as kern-core's Gram).
pub(crate) const DIRECT_MAX_DIM: usize = 8;

/// Pairs per histogram in [`binned_pairwise`] (a few per thread on large sets).
const PART_PAIRS: usize = 1 << 19;

/// Number of pairs `i > j` of `n` points.
pub(crate) fn n_pairs(n: usize) -> usize {
    n * n.saturating_sub(1) / 2
}

/// Start of column `j` in the packed strict lower triangle of an `n × n` matrix.
///
/// ```
/// use kern_tune::pairs::column_offset;
/// assert_eq!(column_offset(4, 0), 0);
/// assert_eq!(column_offset(4, 1), 3);   // column 0 holds rows 1, 2, 3
/// assert_eq!(column_offset(4, 3), 6);   // = n(n-1)/2: one past the end
/// ```
pub fn column_offset(n: usize, j: usize) -> usize {
    j * (n - 1) - j * j.saturating_sub(1) / 2
}

/// Pairs in the block column starting at column `j0` (columns `j0..min(j0 + BLOCK, n − 1)`).
fn block_len(n: usize, j0: usize) -> usize {
    column_offset(n, (j0 + BLOCK).min(n - 1)) - column_offset(n, j0)
}

/// The squared distances `‖xᵢ − xⱼ‖²`, `i > j`, packed column by column (see the module docs).
///
/// ```
/// use kern_core::Samples;
/// let x = Samples::from_rows(&[[0.0, 0.0], [3.0, 4.0], [1.0, 0.0]])?;
/// // pairs (1,0), (2,0), (2,1)
/// assert_eq!(kern_tune::pairs::pairwise_sq_dists(&x), vec![25.0, 1.0, 20.0]);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn pairwise_sq_dists(x: &Samples) -> Vec<f64> {
    let n = x.n();
    let mut out = vec![0.0; n_pairs(n)];
    if n < 2 {
        return out;
    }
    // Split the output into one contiguous slice per block column.
    let mut parts: Vec<(usize, &mut [f64])> = Vec::with_capacity(n.div_ceil(BLOCK));
    let mut rest: &mut [f64] = &mut out;
    let mut j0 = 0;
    while j0 < n - 1 {
        let (head, tail) = rest.split_at_mut(block_len(n, j0));
        parts.push((j0, head));
        rest = tail;
        j0 += BLOCK;
    }
    let how = Distances::new(x);
    parts.into_par_iter().for_each(|(j0, dst)| how.block(x, j0, dst));
    out
}

/// The squared distances of all pairs `i > j` of `x`, binned for the bandwidth criteria
/// ([`BinnedPairs`]) block column by block column as they are computed, without ever holding all
/// `n(n−1)/2` of them: one block column's scratch per thread instead (`128 · n` doubles, kept by the
/// thread for later calls). Blocks are binned apart and added in block order, so the bins do not depend
/// on the number of threads.
///
/// ```
/// use kern_core::Samples;
/// use kern_tune::binned::BinnedPairs;
/// let x = Samples::from_rows(&[[0.0, 0.0], [3.0, 4.0], [1.0, 0.0]])?;
/// let b = kern_tune::pairs::binned_pairwise(&x);
/// let direct = BinnedPairs::new(&kern_tune::pairs::pairwise_sq_dists(&x));
/// assert_eq!(b.len(), 3);
/// assert_eq!(b.sums(0.1), direct.sums(0.1));
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn binned_pairwise(x: &Samples) -> BinnedPairs {
    let n = x.n();
    if n < 2 {
        return BinnedPairs::new(&[]);
    }
    let how = Distances::new(x);
    thread_local! {
        /// One block column of distances per thread, kept between calls (first-touch page faults of a
        /// fresh buffer per block cost as much as the binning).
        static SCRATCH: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    // Consecutive block columns share a histogram until it holds about PART_PAIRS pairs: fewer
    // histograms to allocate and add, and a partition fixed by n alone (deterministic).
    let blocks = (n - 1).div_ceil(BLOCK);
    let mut groups: Vec<std::ops::Range<usize>> = Vec::new();
    let (mut b0, mut pairs) = (0, 0);
    for b in 0..blocks {
        pairs += block_len(n, b * BLOCK);
        if pairs >= PART_PAIRS || b + 1 == blocks {
            groups.push(b0..b + 1);
            (b0, pairs) = (b + 1, 0);
        }
    }
    let parts: Vec<Part> = groups
        .into_par_iter()
        .map(|bs| {
            let mut part = Part::new();
            for b in bs {
                let j0 = b * BLOCK;
                let len = block_len(n, j0);
                SCRATCH.with_borrow_mut(|buf| {
                    buf.resize(len.max(buf.len()), 0.0);
                    let buf = &mut buf[..len];
                    how.block(x, j0, buf);
                    part.add(buf);
                });
            }
            part
        })
        .collect();
    BinnedPairs::from_parts(parts)
}

/// How the distances of a sample set are computed: directly in low dimension or on a sparse store, by
/// sparse inner products on sparse data held densely, else by GEMM on the centred data.
enum Distances {
    Direct,
    Sparse(SparseDots),
    Gemm {
        /// Centred samples, row-major (`= column-major d × n`).
        centred: Vec<f64>,
        /// Their squared norms.
        norms: Vec<f64>,
    },
}

impl Distances {
    fn new(x: &Samples) -> Self {
        let (n, d) = (x.n(), x.d());
        // A sparse store is read pair by pair (`O(nnz)` per pair, never a dense copy: a text collection
        // with a million features has no dense form that fits).
        if d <= DIRECT_MAX_DIM || x.is_sparse() {
            return Distances::Direct;
        }
        if let Some(sd) = SparseDots::if_sparse(x) {
            return Distances::Sparse(sd);
        }
        // Centre the data: distances are unchanged and the norms formulation loses less to cancellation.
        let mut mean = vec![0.0; d];
        for r in x.rows() {
            for (a, v) in mean.iter_mut().zip(r) {
                *a += v;
            }
        }
        for m in &mut mean {
            *m /= n as f64;
        }
        let centred: Vec<f64> = x.rows().flat_map(|r| r.iter().zip(&mean).map(|(v, m)| v - m)).collect();
        let norms: Vec<f64> = centred.chunks_exact(d).map(|r| r.iter().map(|v| v * v).sum()).collect();
        Distances::Gemm { centred, norms }
    }

    /// The packed distances of block column `j0` (columns `j0..j0 + BLOCK`, rows below the diagonal).
    fn block(&self, x: &Samples, j0: usize, dst: &mut [f64]) {
        match self {
            Distances::Direct => direct_block(x, j0, dst),
            Distances::Sparse(sd) => sparse_block(x, sd, j0, dst),
            Distances::Gemm { centred, norms } => gemm_block(x, centred, norms, j0, dst),
        }
    }
}

/// One GEMM per block column on the centred data (`‖xᵢ‖² + ‖xⱼ‖² − 2⟨xᵢ, xⱼ⟩`, clamped at 0), rows `j₀..n`
/// only.
fn gemm_block(x: &Samples, centred: &[f64], norms: &[f64], j0: usize, dst: &mut [f64]) {
    let (n, d) = (x.n(), x.d());
    let xt = faer::MatRef::from_column_major_slice(centred, d, n);
    let w = (j0 + BLOCK).min(n - 1) - j0;
    let h = n - j0;
    let mut g = Mat::<f64>::zeros(h, w);
    matmul(g.as_mut(), Accum::Replace, xt.subcols(j0, h).transpose(), xt.subcols(j0, w), 1.0, Par::Seq);
    let mut pos = 0;
    for jj in 0..w {
        let nj = norms[j0 + jj];
        let col = g.col(jj).try_as_col_major().expect("unit row stride").as_slice();
        let len = n - 1 - (j0 + jj);
        let out_col = &mut dst[pos..pos + len];
        let ni = &norms[j0 + jj + 1..];
        for ((o, &gv), &nv) in out_col.iter_mut().zip(&col[jj + 1..]).zip(ni) {
            *o = (nv + nj - 2.0 * gv).max(0.0);
        }
        pos += len;
    }
}

/// Rows per pass of [`sparse_block`]: the transposed samples of one row range stay in L2 while every
/// column of the block uses them.
const SPARSE_ROWS: usize = 128;

/// Row alignment of the group passes: kern-core's group kernel keeps blocks of 32 rows in registers, so
/// a pass starts on a multiple of 32 rows past the row block (the few rows above a member's diagonal are
/// computed and dropped) instead of leaving a ragged head to the single-sample kernel.
const GROUP_ROWS: usize = 32;

/// Sparse data (at most [`SparseDots::MAX_DENSITY`] nonzeros): inner products in `O(nnz)` per pair on the
/// norms formulation ([`SparseDots::group_sq_dists`], four columns of the block per pass over the
/// transposed samples, grouped by [`SparseDots::groups`] to share nonzeros), which needs no centring since
/// near-duplicates are recomputed exactly.
fn sparse_block(x: &Samples, sd: &SparseDots, j0: usize, dst: &mut [f64]) {
    let n = x.n();
    let w = (j0 + BLOCK).min(n - 1) - j0;
    let base = column_offset(n, j0);
    let groups = sd.groups(j0..j0 + w);
    let mut buf = vec![0.0; kern_core::sparse_dots::GROUP * SPARSE_ROWS];
    let mut r0 = j0 + 1;
    while r0 < n {
        let r1 = (r0 + SPARSE_ROWS).min(n);
        for g in &groups {
            let Some(lo) = g.samples().iter().map(|&j| r0.max(j + 1)).min() else { continue };
            if lo >= r1 {
                continue;
            }
            let from = r0 + (lo - r0) / GROUP_ROWS * GROUP_ROWS;
            let m = r1 - from;
            let buf = &mut buf[..g.samples().len() * m];
            sd.group_sq_dists(x, g, from..r1, buf);
            for (&j, seg) in g.samples().iter().zip(buf.chunks_exact(m)) {
                let a = r0.max(j + 1);
                if a >= r1 {
                    continue;
                }
                let start = column_offset(n, j) - base + (a - j - 1);
                dst[start..start + (r1 - a)].copy_from_slice(&seg[a - from..]);
            }
        }
        r0 = r1;
    }
}

fn direct_block(x: &Samples, j0: usize, dst: &mut [f64]) {
    let n = x.n();
    let w = (j0 + BLOCK).min(n - 1) - j0;
    let mut pos = 0;
    for j in j0..j0 + w {
        let xj = x.sample(j);
        for i in j + 1..n {
            dst[pos] = x.sample(i).sq_dist(xj);
            pos += 1;
        }
    }
}

/// Where the pairs of a criterion come from.
///
/// ```
/// use kern_core::Samples;
/// use kern_tune::bandwidth::{BandwidthOptions, Method, select_bandwidth};
/// use kern_tune::pairs::PairSampling;
/// let x = Samples::from_flat((0..200).map(|i| ((i * 37) % 101) as f64).collect(), 100, 2)?;
/// let with = |sampling| BandwidthOptions { sampling, ..Default::default() };
/// let all = select_bandwidth(&x, None, Method::Median, &with(PairSampling::All))?;
/// assert_eq!(all.pairs, 4950);
/// let sub = select_bandwidth(&x, None, Method::Median, &with(PairSampling::Subsample { m: 20, seed: 3 }))?;
/// assert_eq!(sub.pairs, 190);
/// // Auto uses all pairs up to max_points.
/// let auto = PairSampling::Auto { max_points: 100, seed: 0 };
/// let auto = select_bandwidth(&x, None, Method::Median, &with(auto))?;
/// assert_eq!(auto.beta, all.beta);
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairSampling {
    /// All pairs when `n ≤ max_points`, else the pairs of a seeded subsample of `max_points` points.
    Auto {
        /// Largest `n` handled exactly (default 5000: 12.5 M pairs, 100 MB).
        max_points: usize,
        /// Seed of the subsample.
        seed: u64,
    },
    /// All `n(n−1)/2` pairs, whatever `n`.
    All,
    /// The pairs of `m` points drawn without replacement (seeded).
    Subsample {
        /// Points drawn.
        m: usize,
        /// Seed.
        seed: u64,
    },
    /// `count` pairs `(i, j)`, `i ≠ j`, drawn independently and uniformly (seeded), distances computed
    /// directly: an unbiased estimate of any mean over pairs.
    RandomPairs {
        /// Pairs drawn.
        count: usize,
        /// Seed.
        seed: u64,
    },
}

impl PairSampling {
    /// Refuses samplings that select nothing: `Auto` or `Subsample` with fewer than 2 points, or
    /// `RandomPairs` with no pairs.
    ///
    /// ```
    /// use kern_tune::pairs::PairSampling;
    /// assert!(PairSampling::RandomPairs { count: 0, seed: 0 }.check().is_err());
    /// assert!(PairSampling::Auto { max_points: 0, seed: 0 }.check().is_err());
    /// assert!(PairSampling::default().check().is_ok());
    /// ```
    pub fn check(self) -> crate::Result<Self> {
        let bad = |name: &'static str, value: usize, reason: &'static str| {
            Err(crate::TuneError::Param { name, value: value as f64, reason })
        };
        match self {
            PairSampling::Auto { max_points, .. } if max_points < 2 => {
                bad("max-points", max_points, "must be at least 2 (a pair needs two points)")
            }
            PairSampling::Subsample { m, .. } if m < 2 => {
                bad("subsample", m, "must be at least 2 (a pair needs two points)")
            }
            PairSampling::RandomPairs { count: 0, .. } => bad("random-pairs", 0, "must be at least 1"),
            ok => Ok(ok),
        }
    }
}

impl Default for PairSampling {
    fn default() -> Self {
        PairSampling::Auto { max_points: 5000, seed: 0 }
    }
}

/// Squared distances of the chosen pairs, with which points they join.
#[derive(Clone, Debug)]
pub(crate) struct PairSet {
    /// Squared distances.
    pub sq: Vec<f64>,
    /// The points used (all `n`, or the subsample's indices) — for the packed layout.
    pub points: Option<Vec<usize>>,
    /// For random pairs: the `(i, j)` of every distance.
    pub ends: Option<Vec<(u32, u32)>>,
    /// Human-readable description for results.
    pub description: String,
}

/// The points of `n` whose pairs `sampling` uses when it uses a subsample: its seeded indices, in the
/// order the pairs are formed on them (`x.select` of them); `None` when every point is used (all
/// pairs, or random pairs over all the points). Pairs computed on those rows alone are the same
/// pairs, in the same order — how rows held in parts are tuned without gathering them all.
///
/// ```
/// use kern_tune::pairs::{PairSampling, subsample_points};
/// assert_eq!(subsample_points(100, PairSampling::Auto { max_points: 100, seed: 1 }), None);
/// let idx = subsample_points(100, PairSampling::Auto { max_points: 10, seed: 1 }).unwrap();
/// assert_eq!(idx.len(), 10);
/// assert_eq!(Some(idx), subsample_points(100, PairSampling::Subsample { m: 10, seed: 1 }));
/// ```
pub fn subsample_points(n: usize, sampling: PairSampling) -> Option<Vec<usize>> {
    let sub = |m: usize, seed: u64| Some(rng::sample_indices(&mut rng::stream(seed, 0), n, m));
    match sampling {
        PairSampling::Auto { max_points, seed } if n > max_points.max(2) => sub(max_points.max(2), seed),
        PairSampling::Subsample { m, seed } if m < n => sub(m.max(2), seed),
        _ => None,
    }
}

/// The points whose pairs `sampling` uses from `x` (`None` inside: all of `x`) and their description,
/// or `None` for random pairs.
fn point_set(x: &Samples, sampling: PairSampling) -> Option<(Option<Vec<usize>>, String)> {
    let n = x.n();
    if let PairSampling::RandomPairs { .. } = sampling {
        return None;
    }
    let Some(idx) = subsample_points(n, sampling) else {
        return Some((None, format!("all {} pairs of {} points", n_pairs(n), n)));
    };
    let (m, seed, why) = match sampling {
        PairSampling::Auto { max_points, seed } => {
            (idx.len(), seed, format!("; n > {} so not every pair is used", max_points.max(2)))
        }
        PairSampling::Subsample { seed, .. } => (idx.len(), seed, String::new()),
        _ => unreachable!("only the subsampling kinds return points"),
    };
    let d = format!("all {} pairs of a seeded subsample of {m} of {n} points (seed {seed}){why}", n_pairs(m));
    Some((Some(idx), d))
}

/// Refuses a [`pair_set`] of `x` under `sampling` that does not fit in the memory budget, counting
/// `per_pair` f64 values a pair (its squared distance and what the caller derives from it) and the
/// two ends of a random pair: a `--random-pairs` count is the user's, and the vectors would otherwise
/// abort the process when they cannot be allocated.
pub(crate) fn check_pair_set(x: &Samples, sampling: PairSampling, per_pair: usize) -> crate::Result<()> {
    let n = x.n();
    let (pairs, per_pair) = match sampling {
        PairSampling::All => (n_pairs(n), per_pair),
        PairSampling::Auto { max_points, .. } => (n_pairs(n.min(max_points.max(2))), per_pair),
        PairSampling::Subsample { m, .. } => (n_pairs(n.min(m.max(2))), per_pair),
        PairSampling::RandomPairs { count, .. } => (count, per_pair + 1),
    };
    const WHAT: &str = "the pairs of points";
    let bytes = kern_core::memory::bytes_for::<f64>(&[pairs, per_pair], WHAT)?;
    kern_core::memory::check_bytes(bytes, WHAT, "use fewer random pairs or a smaller subsample")?;
    Ok(())
}

/// The squared distances that `sampling` selects from `x`.
pub(crate) fn pair_set(x: &Samples, sampling: PairSampling) -> PairSet {
    let n = x.n();
    if let Some((points, description)) = point_set(x, sampling) {
        let sq = match &points {
            None => pairwise_sq_dists(x),
            Some(idx) => pairwise_sq_dists(&x.select(idx).expect("indices in range")),
        };
        return PairSet { sq, points, ends: None, description };
    }
    let PairSampling::RandomPairs { count, seed } = sampling else {
        unreachable!("point_set covers the rest")
    };
    let mut g = rng::stream(seed, 0);
    let ends: Vec<(u32, u32)> = (0..count)
        .map(|_| {
            let i = rng::below(&mut g, n as u64) as usize;
            let mut j = rng::below(&mut g, (n as u64).saturating_sub(1).max(1)) as usize;
            if j >= i {
                j += 1;
            }
            (i as u32, j.min(n - 1) as u32)
        })
        .collect();
    let sq = ends.par_iter().map(|&(i, j)| x.sample(i as usize).sq_dist(x.sample(j as usize))).collect();
    PairSet {
        sq,
        points: None,
        ends: Some(ends),
        description: format!("{count} seeded random pairs of {n} points (seed {seed})"),
    }
}

/// The pairs that `sampling` selects from `x`, binned as they are computed ([`binned_pairwise`]), with
/// their description; `None` for random pairs (which are few enough to keep) and for fewer than
/// `min_pairs` pairs (not worth binning).
pub(crate) fn binned_pair_set(
    x: &Samples,
    sampling: PairSampling,
    min_pairs: usize,
) -> Option<(BinnedPairs, String)> {
    let (points, description) = point_set(x, sampling)?;
    if n_pairs(points.as_ref().map_or(x.n(), Vec::len)) < min_pairs {
        return None;
    }
    let b = match &points {
        None => binned_pairwise(x),
        Some(idx) => binned_pairwise(&x.select(idx).expect("indices in range")),
    };
    Some((b, description))
}

/// For every packed pair of `m` points, the two points' positions `(i, j)`, `i > j` (test helper and
/// label lookup).
pub(crate) fn packed_ends(m: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..m.saturating_sub(1)).flat_map(move |j| (j + 1..m).map(move |i| (i, j)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize, d: usize) -> Samples {
        let mut s = 12345u64;
        let v: Vec<f64> = (0..n * d)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64) * 10.0 + 100.0
            })
            .collect();
        Samples::from_flat(v, n, d).unwrap()
    }

    #[test]
    fn gemm_and_direct_match_naive_across_blocks() {
        for &(n, d, sparse) in
            &[(2, 3, false), (5, 1, false), (300, 4, false), (261, 30, false), (2, 12, true), (290, 40, true)]
        {
            let x = data(n, d);
            let x = if sparse {
                // ~20 % nonzeros, one exact duplicate pair: the sparse path with its cancellation guard.
                let mut v: Vec<f64> = x
                    .as_slice()
                    .iter()
                    .enumerate()
                    .map(|(t, &v)| if (t * 7919) % 10 < 2 { v } else { 0.0 })
                    .collect();
                let r0 = v[..d].to_vec();
                v[d..2 * d].copy_from_slice(&r0);
                let x = Samples::from_flat(v, n, d).unwrap();
                assert!(SparseDots::if_sparse(&x).is_some());
                x
            } else {
                x
            };
            let p = pairwise_sq_dists(&x);
            assert_eq!(p.len(), n_pairs(n));
            // The fused binning sees the same distances as the array (bins added in another order).
            let (a, b) = (binned_pairwise(&x), BinnedPairs::new(&p));
            assert_eq!((a.len(), a.bins(), a.stats().zeros), (b.len(), b.bins(), b.stats().zeros));
            let g = 1.0 / b.stats().mean();
            for (u, v) in a.sums(g).value.iter().zip(b.sums(g).value) {
                assert!((u - v).abs() <= 1e-12 * v.abs(), "n={n} d={d}: {u} vs {v}");
            }
            for (k, (i, j)) in packed_ends(n).enumerate() {
                let e = kern_core::sq_dist(x.row(i), x.row(j));
                assert!((p[k] - e).abs() <= 1e-9 * e.max(1.0), "n={n} d={d} ({i},{j}) {} vs {e}", p[k]);
            }
        }
    }

    /// A sparse store is read pair by pair (never densified): every distance equals the coordinate-wise
    /// one of its dense copy up to the rounding of two sums of `d + 1` non-negative terms in different
    /// orders (`2(d + 1)ε` relative, a priori), and the binned pairs agree with the dense path's.
    #[test]
    fn a_sparse_store_gives_the_dense_distances() {
        for &(n, d) in &[(2, 3), (70, 5), (150, 40)] {
            let v: Vec<f64> = data(n, d)
                .as_slice()
                .iter()
                .enumerate()
                .map(|(t, &v)| if (t * 7919) % 10 < 3 { v } else { 0.0 })
                .collect();
            let dense = Samples::from_flat(v, n, d).unwrap();
            let sparse = dense.to_sparse();
            let p = pairwise_sq_dists(&sparse);
            let bound = 2.0 * (d + 1) as f64 * f64::EPSILON;
            for (k, (i, j)) in packed_ends(n).enumerate() {
                let e = kern_core::sq_dist(dense.row(i), dense.row(j));
                assert!((p[k] - e).abs() <= bound * e, "n={n} d={d} ({i},{j}) {} vs {e}", p[k]);
            }
            let (a, b) = (binned_pairwise(&sparse), BinnedPairs::new(&p));
            assert_eq!((a.len(), a.bins(), a.stats().zeros), (b.len(), b.bins(), b.stats().zeros));
        }
    }
}
