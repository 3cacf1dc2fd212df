//! An inverted index of samples (feature → the samples where it is nonzero, with their values): the
//! engine of kernel columns on sparse data, where one sample (the pivot) meets many others.
//!
//! A merged sparse product ([`SampleRef::dot`]) walks both index lists, so a column of `m` entries
//! costs `Σ_i (nnz(x_i) + nnz(pivot))` unpredictable branches. Through the index, the same column
//! visits only the pairs that share a feature: for each nonzero feature `f` of the pivot (ascending),
//! every indexed sample `i` with `x_i[f] ≠ 0` receives `out[i] += x_i[f] · pivot[f]` — `Σ_{f ∈ pivot}
//! df(f)` multiply-adds, branch-free, which on bag-of-words data (a Zipf vocabulary: most pairs share
//! few words) is a small fraction of the merge's steps.
//!
//! **Same sums, same bits.** Each `out[i]` starts at `0` and adds the products of the shared
//! features in ascending feature order — exactly the products, in exactly the order, that the merged
//! product [`SampleRef::dot`] adds (floating-point multiplication is commutative). Only the sign of an
//! exact zero may differ (a product with a dense pivot's zero coordinate is skipped here), which no
//! kernel distinguishes.

use super::{SampleRef, Samples};
use crate::parallel::prelude::*;

/// Entries of `out` per parallel task of [`InvertedIndex::dots_par`] (at least): each task searches
/// its part of every posting list of the pivot (two binary searches per feature).
const PAR_MIN_ROWS: usize = 2048;

/// Feature-major copy of some samples of a store: for each distinct nonzero feature, the (ascending)
/// local row ids that hold it and their values.
///
/// Local row `r` is sample `rows[r]` of the store it was built from (rows may repeat: the `2n`
/// variables of an ε-SVR refer to `n` samples). Memory: 12 bytes per indexed nonzero plus 16 per
/// distinct feature.
///
/// ```
/// use kern_core::{InvertedIndex, Samples};
/// let x = Samples::from_csr(3, 5, vec![0, 2, 3, 5], vec![0, 3, 3, 1, 3], vec![1.0, 2.0, 4.0, 1.0, 0.5])?;
/// let index = InvertedIndex::new(&x, &[0, 1, 2]).expect("few rows");
/// let mut out = [0.0; 3];
/// index.dots(x.sample(0), 0, &mut out); // ⟨x_0, x_r⟩ for r = 0, 1, 2
/// assert_eq!(out, [5.0, 8.0, 1.0]);
/// assert_eq!(out[1], x.sample(0).dot(x.sample(1)));
/// assert_eq!(index.scan_len(x.sample(0)), 4); // feature 0 once, feature 3 three times
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug)]
pub struct InvertedIndex {
    /// Distinct features holding a nonzero of an indexed row, ascending.
    features: Vec<usize>,
    /// Posting list of `features[t]`: `ptr[t]..ptr[t + 1]` into `rows` / `values`.
    ptr: Vec<usize>,
    /// Local row ids, ascending within each posting list.
    rows: Vec<u32>,
    values: Vec<f64>,
    /// Number of local rows.
    n: usize,
}

impl InvertedIndex {
    /// The index of samples `rows` of `x` (local row `r` is sample `rows[r]`), in `O(nnz log nnz)`;
    /// `None` when there are more than `u32::MAX` rows (the row ids are 32-bit). Stored zeros of a
    /// sparse store are indexed; zero coordinates of a dense store are not.
    pub fn new(x: &Samples, rows: &[usize]) -> Option<Self> {
        let n = rows.len();
        if n > u32::MAX as usize {
            return None;
        }
        let nonzeros = |s: SampleRef<'_>| -> Vec<(usize, f64)> {
            match s {
                SampleRef::Sparse { indices, values } => {
                    indices.iter().copied().zip(values.iter().copied()).collect()
                }
                SampleRef::Dense(v) => v.iter().copied().enumerate().filter(|&(_, a)| a != 0.0).collect(),
            }
        };
        let mut features: Vec<usize> = Vec::new();
        for &s in rows {
            features.extend(nonzeros(x.sample(s)).iter().map(|&(f, _)| f));
        }
        features.sort_unstable();
        features.dedup();
        features.shrink_to_fit();
        // Counting sort by feature: rows are visited in order, so each posting list ascends.
        let mut ptr = vec![0usize; features.len() + 1];
        let slot = |f: usize| features.binary_search(&f).expect("feature collected above");
        for &s in rows {
            for (f, _) in nonzeros(x.sample(s)) {
                ptr[slot(f) + 1] += 1;
            }
        }
        for t in 0..features.len() {
            ptr[t + 1] += ptr[t];
        }
        let total = ptr[features.len()];
        let (mut ids, mut values) = (vec![0u32; total], vec![0.0; total]);
        let mut next = ptr.clone();
        for (r, &s) in rows.iter().enumerate() {
            for (f, v) in nonzeros(x.sample(s)) {
                let t = slot(f);
                ids[next[t]] = r as u32;
                values[next[t]] = v;
                next[t] += 1;
            }
        }
        Some(InvertedIndex { features, ptr, rows: ids, values, n })
    }

    /// Number of local rows.
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[1.0], [0.0]])?;
    /// assert_eq!(kern_core::InvertedIndex::new(&x, &[0, 1, 1]).unwrap().n(), 3);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn n(&self) -> usize {
        self.n
    }

    /// Indexed nonzeros (the memory is 12 bytes per nonzero).
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[1.0, 2.0], [0.0, 3.0]])?;
    /// assert_eq!(kern_core::InvertedIndex::new(&x, &[0, 1]).unwrap().nnz(), 3);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn nnz(&self) -> usize {
        self.rows.len()
    }

    /// The posting lists the pivot meets: `(pivot value, range into rows / values)` for each of its
    /// nonzero features that some indexed row holds, in ascending feature order.
    fn lists<'a>(&'a self, pivot: SampleRef<'a>) -> impl Iterator<Item = (f64, std::ops::Range<usize>)> + 'a {
        let (dense, indices, values): (&[f64], &[usize], &[f64]) = match pivot {
            SampleRef::Sparse { indices, values } => (&[], indices, values),
            SampleRef::Dense(v) => (v, &[], &[]),
        };
        let sparse = indices.iter().copied().zip(values.iter().copied());
        let dense = dense.iter().copied().enumerate().filter(|&(_, v)| v != 0.0);
        // Ascending pivot features: each search starts where the previous one ended.
        let mut lo = 0;
        sparse.chain(dense).filter_map(move |(f, v)| {
            let at = lo + self.features[lo..].partition_point(|&g| g < f);
            lo = at;
            (at < self.features.len() && self.features[at] == f).then(|| (v, self.ptr[at]..self.ptr[at + 1]))
        })
    }

    /// Length of the posting lists the pivot meets (`Σ_{f ∈ pivot} df(f)`): the multiply-adds of one
    /// [`InvertedIndex::dots`] over all rows.
    pub fn scan_len(&self, pivot: SampleRef<'_>) -> usize {
        self.lists(pivot).map(|(_, r)| r.len()).sum()
    }

    /// `out[k] = ⟨pivot, x_{rows[lo + k]}⟩` for `k < out.len()` (`lo + out.len() ≤ n`): the same sums,
    /// bit for bit, as [`SampleRef::dot`] on each pair (see the module documentation).
    pub fn dots(&self, pivot: SampleRef<'_>, lo: usize, out: &mut [f64]) {
        let hi = lo + out.len();
        assert!(hi <= self.n, "rows {lo}..{hi} out of range for {} indexed rows", self.n);
        out.fill(0.0);
        let whole = lo == 0 && hi == self.n;
        for (v, range) in self.lists(pivot) {
            let (mut ids, mut vals) = (&self.rows[range.clone()], &self.values[range]);
            if !whole {
                let a = ids.partition_point(|&r| (r as usize) < lo);
                let b = a + ids[a..].partition_point(|&r| (r as usize) < hi);
                (ids, vals) = (&ids[a..b], &vals[a..b]);
            }
            for (&r, &x) in ids.iter().zip(vals) {
                out[r as usize - lo] += x * v;
            }
        }
    }

    /// [`InvertedIndex::dots`] over all `n` rows, split into parts of rows across the rayon pool when
    /// long enough (each row's sum is the same whatever the split).
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[1.0, 2.0], [0.0, 3.0]])?;
    /// let index = kern_core::InvertedIndex::new(&x, &[0, 1, 0]).unwrap();
    /// let mut out = [0.0; 3];
    /// index.dots_par(x.sample(1), &mut out);
    /// assert_eq!(out, [6.0, 9.0, 6.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn dots_par(&self, pivot: SampleRef<'_>, out: &mut [f64]) {
        assert_eq!(out.len(), self.n, "one output per indexed row");
        let threads = pool_threads();
        if threads < 2 || self.n < 2 * PAR_MIN_ROWS {
            return self.dots(pivot, 0, out);
        }
        let part = self.n.div_ceil(2 * threads).max(PAR_MIN_ROWS);
        out.par_chunks_mut(part).enumerate().for_each(|(c, o)| self.dots(pivot, c * part, o));
    }
}

/// Threads of the current rayon pool.
fn pool_threads() -> usize {
    rayon::current_num_threads()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A random sparse store (`n × 40`, about a quarter nonzero, some rows empty) and row list.
    fn store() -> impl Strategy<Value = (Samples, Vec<usize>)> {
        (1usize..12).prop_flat_map(|n| {
            let cells = proptest::collection::vec(proptest::option::weighted(0.25, -4.0f64..4.0), n * 40);
            let rows = proptest::collection::vec(0..n, 1..20);
            (cells, rows).prop_map(move |(cells, rows)| {
                let t: Vec<(usize, usize, f64)> =
                    cells.iter().enumerate().filter_map(|(c, v)| v.map(|v| (c / 40, c % 40, v))).collect();
                (Samples::from_triplets(n, 40, &t).expect("valid triplets"), rows)
            })
        })
    }

    proptest! {
        #![proptest_config(kern_testkit::proptest_config(48))]
        /// Every entry equals the merged product bit for bit (up to the sign of zero), for every
        /// pivot of the store, a dense pivot, and every row range.
        #[test]
        fn dots_are_the_merged_products((x, rows) in store(), lo in 0usize..20, len in 0usize..20) {
            let index = InvertedIndex::new(&x, &rows).unwrap();
            let dense = x.to_dense().unwrap();
            let lo = lo.min(rows.len());
            let len = len.min(rows.len() - lo);
            for p in 0..x.n() {
                for pivot in [x.sample(p), dense.sample(p)] {
                    let mut all = vec![f64::NAN; rows.len()];
                    index.dots_par(pivot, &mut all);
                    let mut part = vec![f64::NAN; len];
                    index.dots(pivot, lo, &mut part);
                    for (r, &s) in rows.iter().enumerate() {
                        let merged = x.sample(s).dot(x.sample(p));
                        prop_assert!(all[r] == merged, "row {r}: {} vs {merged}", all[r]);
                        if r >= lo && r < lo + len {
                            prop_assert!(part[r - lo] == merged);
                        }
                    }
                    // The scan visits each (row, shared feature) pair once.
                    let shared: usize = rows.iter().map(|&s| {
                        let SampleRef::Sparse { indices, .. } = x.sample(s) else { unreachable!() };
                        let SampleRef::Sparse { indices: pi, .. } = x.sample(p) else { unreachable!() };
                        indices.iter().filter(|f| pi.contains(f)).count()
                    }).sum();
                    prop_assert_eq!(index.scan_len(x.sample(p)), shared);
                }
            }
        }
    }

    #[test]
    fn scan_len_counts_shared_postings() {
        let x = Samples::from_triplets(3, 6, &[(0, 1, 1.0), (0, 4, 1.0), (1, 4, 2.0), (2, 5, 3.0)]).unwrap();
        let index = InvertedIndex::new(&x, &[0, 1, 2, 1]).unwrap();
        assert_eq!(index.nnz(), 5);
        // Feature 1: row 0; feature 4: rows 0, 1, 3.
        assert_eq!(index.scan_len(x.sample(0)), 4);
        assert_eq!(index.scan_len(x.sample(2)), 1);
        // A pivot with features the index never saw meets nothing.
        let y = Samples::from_triplets(1, 9, &[(0, 8, 1.0)]).unwrap();
        assert_eq!(index.scan_len(y.sample(0)), 0);
        let mut out = [1.0; 4];
        index.dots(y.sample(0), 0, &mut out);
        assert_eq!(out, [0.0; 4]);
    }

    #[test]
    fn parallel_split_equals_serial() {
        // Long enough to be split across the pool (when it has two threads or more).
        let n = 5 * PAR_MIN_ROWS;
        let t: Vec<(usize, usize, f64)> =
            (0..n).flat_map(|i| [(i, i % 7, 1.0 + i as f64 * 1e-3), (i, 7 + i % 11, 0.5)]).collect();
        let x = Samples::from_triplets(n, 20, &t).unwrap();
        let rows: Vec<usize> = (0..n).rev().collect();
        let index = InvertedIndex::new(&x, &rows).unwrap();
        let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
        index.dots_par(x.sample(3), &mut a);
        index.dots(x.sample(3), 0, &mut b);
        assert_eq!(a, b);
        assert_eq!(a[n - 1 - 3], x.sample(3).sq_norm());
    }
}
