//! Columns of a sparse `K_C` computed on demand, for problems whose `K_C` would not fit in memory.
//!
//! A column `K_C[:, s]` is the list of neighbours of sample `s` within the support radius (one query of
//! the [`NeighborIndex`]) with the kernel values of the sparse assembly ([`crate::gram`]), so it equals
//! the precomputed matrix's column bit for bit: same rows, same values, same stored entries. Recent
//! columns are held in a byte-bounded least-recently-used cache ([`ColumnLru`]); what is cached never
//! changes a value, only whether it is computed again.
//!
//! Memory: the index (a copy of the points and its cell grid), `24 n` bytes of cache bookkeeping, and
//! the cache itself (at most its budget, `16` bytes per cached entry plus a small header per column),
//! instead of the `16 nnz(K_C)` bytes of the precomputed matrix.

use crate::error::Result;
use crate::gram::{
    HalvesScratch, gram_column_halves_into, gram_column_into, sparse_gram_indexed, support_radius,
};
use crate::neighbors::{Neighbor, NeighborIndex};
use kern_core::{Kernel, Samples};
use nalgebra_sparse::CscMatrix;
use std::sync::Arc;

/// Samples whose neighbours are counted to predict `nnz(K_C)` ([`SparseOnDemand::new`]).
pub(crate) const NNZ_SAMPLE: usize = 2048;

/// Bytes of cache bookkeeping per sample (the column cache's slot and two links).
///
/// ```
/// use kern_sparse::kmatrix::LRU_BYTES_PER_SAMPLE;
/// use std::{mem::size_of, sync::Arc};
/// // A column slot (a shared pointer or none) and the two links of the recency list.
/// assert!(LRU_BYTES_PER_SAMPLE >= size_of::<Option<Arc<Vec<f64>>>>() + 2 * size_of::<usize>());
/// ```
pub const LRU_BYTES_PER_SAMPLE: usize = 24;

/// The neighbour index of a compactly supported kernel over the training points, with the predicted
/// size of `K_C`: the source of sparse columns computed on demand, and the means to decide whether
/// `K_C` is precomputed instead.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// use kern_sparse::kmatrix::SparseOnDemand;
/// let x = Samples::from_rows(&[[0.0], [0.5], [3.0]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
/// let od = SparseOnDemand::new(&k, &x)?;
/// assert_eq!(od.predicted_nnz(), 5);          // every point is counted at n = 3: exact
/// assert_eq!(od.predicted_gram_bytes(), 16 * 5 + 8 * 4);
/// assert_eq!(od.gram(&k)?, kern_sparse::sparse_gram(&k, &x)?.into_matrix());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct SparseOnDemand {
    index: NeighborIndex,
    nnz: usize,
}

impl SparseOnDemand {
    /// Indexes `x` for the kernel's support radius and predicts `nnz(K_C)` from the neighbour counts
    /// of 2048 samples at an even stride (all of them when `n ≤ 2048`, then exact).
    /// The prediction is deterministic; it decides memory, never a value.
    pub fn new<K: Kernel>(k: &K, x: &Samples) -> Result<Self> {
        let c = support_radius(k)?;
        k.check_dim(x.d())?;
        let index = NeighborIndex::new(x, c)?;
        let n = x.n();
        let m = n.min(NNZ_SAMPLE);
        let mut nbs = Vec::new();
        let (mut rows, mut vals) = (Vec::new(), Vec::new());
        let mut counted = 0usize;
        for t in 0..m {
            let s = (t as u128 * n as u128 / m as u128) as usize;
            gram_column_into(k, &index, s, &mut nbs, &mut rows, &mut vals);
            counted += rows.len();
        }
        let nnz = (counted as u128 * n as u128).div_ceil(m.max(1) as u128) as usize;
        Ok(SparseOnDemand { index, nnz })
    }

    /// The predicted stored entries of `K_C` (exact when `n ≤ 2048`).
    pub fn predicted_nnz(&self) -> usize {
        self.nnz
    }

    /// The predicted bytes of the precomputed `K_C` (CSC: `16` per entry and `8 (n + 1)` offsets).
    pub fn predicted_gram_bytes(&self) -> u64 {
        16 * self.nnz as u64 + 8 * (self.index.len() as u64 + 1)
    }

    /// Bytes held by the index (the copy of the points and the cell grid).
    pub fn bytes(&self) -> usize {
        self.index.bytes()
    }

    /// Samples `n`.
    pub fn n(&self) -> usize {
        self.index.len()
    }

    /// The whole `K_C` through this index ([`crate::sparse_gram_indexed`]).
    pub fn gram<K: Kernel>(&self, k: &K) -> Result<CscMatrix<f64>> {
        Ok(sparse_gram_indexed(k, &self.index)?.into_matrix())
    }

    /// Column `s` of `K_C` into `rows`/`vals` (cleared first; `nbs` is scratch).
    pub(crate) fn column_into<K: Kernel>(
        &self,
        k: &K,
        s: usize,
        nbs: &mut Vec<Neighbor>,
        rows: &mut Vec<usize>,
        vals: &mut Vec<f64>,
    ) {
        gram_column_into(k, &self.index, s, nbs, rows, vals);
    }

    /// [`SparseOnDemand::column_into`] with the values of each half of a wide column computed on its
    /// own thread of the pool (`second`: scratch); the same column.
    pub(crate) fn column_halves_into<K: Kernel>(
        &self,
        k: &K,
        s: usize,
        nbs: &mut Vec<Neighbor>,
        first: (&mut Vec<usize>, &mut Vec<f64>),
        second: &mut HalvesScratch,
    ) {
        gram_column_halves_into(k, &self.index, s, nbs, first, second);
    }
}

/// One computed column of `K_C`: sorted rows (sample indices) and values.
#[derive(Debug)]
pub(crate) struct KcColumn {
    pub(crate) rows: Vec<usize>,
    pub(crate) vals: Vec<f64>,
}

impl KcColumn {
    /// Bytes allocated for the column (capacities, the header and the shared count).
    fn bytes(&self) -> usize {
        8 * (self.rows.capacity() + self.vals.capacity()) + size_of::<Self>() + 16
    }
}

/// No link.
const NIL: usize = usize::MAX;

/// A least-recently-used cache of [`KcColumn`]s by sample, whose allocated bytes (capacities, counted
/// as [`KcColumn::bytes`]) never exceed its budget; a column larger than the budget is not kept.
/// Columns are shared: a column evicted while a caller still holds it lives until it is dropped.
/// A column evicted while no caller holds it is kept aside (one, outside the budget) and the next
/// column is computed into its buffers ([`ColumnLru::compute`]): no allocation per column once the
/// cache is full.
pub(crate) struct ColumnLru {
    slot: Vec<Option<Arc<KcColumn>>>,
    prev: Vec<usize>,
    next: Vec<usize>,
    /// Most recent.
    head: usize,
    /// Least recent.
    tail: usize,
    used: usize,
    budget: usize,
    /// Scratch of the column computation.
    nbs: Vec<Neighbor>,
    /// Compute each column's values in two halves on two threads ([`ColumnLru::set_halves`]).
    halves: bool,
    /// The second half's scratch.
    second: HalvesScratch,
    /// The buffers of an evicted column nobody holds, for the next column computed.
    spare: Option<Arc<KcColumn>>,
}

impl ColumnLru {
    /// An empty cache over `n` samples with `budget` bytes for columns.
    pub(crate) fn new(n: usize, budget: usize) -> Self {
        ColumnLru {
            slot: vec![None; n],
            prev: vec![NIL; n],
            next: vec![NIL; n],
            head: NIL,
            tail: NIL,
            used: 0,
            budget,
            nbs: Vec::new(),
            halves: false,
            second: HalvesScratch::default(),
            spare: None,
        }
    }

    /// From now on, compute the values of each wide column in two halves on two threads of the pool
    /// (`on`), or on the calling thread. The columns are the same either way.
    pub(crate) fn set_halves(&mut self, on: bool) {
        self.halves = on;
    }

    /// Column `s` of `K_C` computed now (not looked up, not inserted), into the spare column's
    /// buffers when there is one.
    pub(crate) fn compute<K: Kernel>(&mut self, od: &SparseOnDemand, k: &K, s: usize) -> Arc<KcColumn> {
        let mut col =
            self.spare.take().unwrap_or_else(|| Arc::new(KcColumn { rows: Vec::new(), vals: Vec::new() }));
        let c = Arc::get_mut(&mut col).expect("the spare column is held by nobody else");
        if self.halves {
            od.column_halves_into(k, s, &mut self.nbs, (&mut c.rows, &mut c.vals), &mut self.second);
        } else {
            od.column_into(k, s, &mut self.nbs, &mut c.rows, &mut c.vals);
        }
        col
    }

    fn unlink(&mut self, s: usize) {
        let (p, n) = (self.prev[s], self.next[s]);
        if p == NIL {
            self.head = n
        } else {
            self.next[p] = n
        }
        if n == NIL {
            self.tail = p
        } else {
            self.prev[n] = p
        }
        self.prev[s] = NIL;
        self.next[s] = NIL;
    }

    fn push_front(&mut self, s: usize) {
        self.next[s] = self.head;
        self.prev[s] = NIL;
        if self.head != NIL {
            self.prev[self.head] = s;
        }
        self.head = s;
        if self.tail == NIL {
            self.tail = s;
        }
    }

    /// The cached column of sample `s`, now the most recent.
    pub(crate) fn get(&mut self, s: usize) -> Option<Arc<KcColumn>> {
        let col = self.slot[s].clone()?;
        if self.head != s {
            self.unlink(s);
            self.push_front(s);
        }
        Some(col)
    }

    /// Keeps `col` as the column of `s` (not cached before), evicting the least recent columns until
    /// it fits; a column over the whole budget is not kept.
    pub(crate) fn insert(&mut self, s: usize, col: &Arc<KcColumn>) {
        let b = col.bytes();
        if b > self.budget {
            return;
        }
        while self.used + b > self.budget && self.tail != NIL {
            let t = self.tail;
            self.unlink(t);
            if let Some(mut old) = self.slot[t].take() {
                self.used -= old.bytes();
                if self.spare.is_none() && Arc::get_mut(&mut old).is_some() {
                    self.spare = Some(old);
                }
            }
        }
        self.slot[s] = Some(col.clone());
        self.used += b;
        self.push_front(s);
    }

    /// Bytes of the cached columns.
    #[cfg(test)]
    pub(crate) fn used(&self) -> usize {
        self.used
    }

    /// Bytes of the cached columns, recounted from the columns themselves.
    #[cfg(test)]
    pub(crate) fn recount(&self) -> usize {
        self.slot.iter().flatten().map(|c| c.bytes()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kern_core::{CompactlySupported, Gaussian};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(kern_testkit::proptest_config(48))]

        /// Random accesses to the columns through a cache of a random budget: every column, cached
        /// or computed, equals the precomputed `K_C`'s column (rows and value bits); the cached bytes,
        /// recounted from the columns, equal the cache's count and never exceed the budget; a column
        /// that fits the budget is cached right after its insertion.
        #[test]
        fn cached_columns_equal_the_precomputed_matrix(n in 1usize..60, d in 1usize..4, seed in 0u64..1000,
                                                       radius in 0.1f64..2.0, budget in 0usize..4000,
                                                       reads in prop::collection::vec(0usize..60, 1..120)) {
            let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let mut next = || {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (state >> 11) as f64 / (1u64 << 53) as f64
            };
            let rows: Vec<Vec<f64>> = (0..n).map(|_| (0..d).map(|_| 2.0 * next()).collect()).collect();
            let x = Samples::from_rows(&rows).unwrap();
            let k = CompactlySupported::new(Gaussian::with_sigma(0.7).unwrap(), radius, 3.0).unwrap();
            let kc = crate::sparse_gram(&k, &x).unwrap().into_matrix();
            let od = SparseOnDemand::new(&k, &x).unwrap();
            prop_assert_eq!(od.predicted_nnz(), kc.nnz());
            prop_assert_eq!(&od.gram(&k).unwrap(), &kc);
            let mut lru = ColumnLru::new(n, budget);
            for s in reads.into_iter().map(|r| r % n) {
                let col = match lru.get(s) {
                    Some(col) => col,
                    None => {
                        let col = lru.compute(&od, &k, s);
                        lru.insert(s, &col);
                        if col.bytes() <= budget {
                            prop_assert!(lru.get(s).is_some());
                        }
                        col
                    }
                };
                let want = kc.col(s);
                prop_assert_eq!(&col.rows[..], want.row_indices());
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                prop_assert_eq!(bits(&col.vals), bits(want.values()));
                prop_assert_eq!(lru.used(), lru.recount());
                prop_assert!(lru.used() <= budget);
            }
        }
    }
}
