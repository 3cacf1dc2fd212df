//! The kernel-column cache: least-recently-used columns of `Q`, bounded in bytes (LIBSVM's `Cache`).
//!
//! A column is stored with the length it was computed to (`filled`); a request for a longer prefix
//! extends it, so columns computed while the problem was shrunk are reused after unshrinking. Columns
//! are kept in solver (permuted) order: [`ColumnCache::swap_index`] keeps every cached column
//! consistent when the solver swaps two variables, evicting columns that cover only one of them.
//!
//! When the plan finds that every column fits at full length ([`super::plan::resident_cache`]),
//! the columns live in one zeroed block of `l²` values instead of a buffer each
//! ([`kern_core::pages::ZeroedBlock`]: pages faulted in as they are first touched, on transparent
//! huge pages where the system allows). Nothing is evicted then, so the columns computed, and the
//! fit, are those of the per-column buffers; only the page faults differ. A block of at most
//! [`KEEP_BYTES`] is kept by its thread when the solve ends and serves the thread's next solve
//! (the next machine of a one-vs-one fit, the next fit of a grid search), whose pages are then
//! already in place; its stale values are never read (a column's values count only up to its
//! `filled` length, which starts at zero).

use kern_core::pages::ZeroedBlock;

/// Buffers of evicted columns kept for reuse (counted in the budget).
const MAX_SPARES: usize = 64;

/// The largest resident block a thread keeps for its next solve, in bytes: 8 MiB (the columns of a
/// machine of up to 1,024 variables). Larger blocks are returned to the system when their solve ends.
pub(crate) const KEEP_BYTES: usize = 8 << 20;

thread_local! {
    /// The resident block this thread's last solve left ([`KEEP_BYTES`] at most).
    static KEPT: std::cell::RefCell<Option<ZeroedBlock>> = const { std::cell::RefCell::new(None) };
}

/// A block of at least `len` values: the one this thread kept if it is large enough, else a new one
/// (`None` when the system refuses it).
fn take_block(len: usize) -> Option<ZeroedBlock> {
    let kept = KEPT.with(|k| k.borrow_mut().take());
    match kept {
        Some(b) if b.len() >= len => Some(b),
        _ => ZeroedBlock::new(len),
    }
}

/// Keeps `block` for this thread's next solve when it is at most [`KEEP_BYTES`] and larger than
/// the block kept already; else it is returned to the system.
fn keep_block(block: ZeroedBlock) {
    if block.len() * 8 <= KEEP_BYTES {
        KEPT.with(|k| {
            let mut k = k.borrow_mut();
            if k.as_ref().is_none_or(|old| old.len() < block.len()) {
                *k = Some(block);
            }
        });
    }
}

/// [`Slot::home`] of a column never requested.
const NO_HOME: usize = usize::MAX;

/// One cached column.
#[derive(Default)]
struct Slot {
    /// The column's own buffer (per-column storage).
    data: Vec<f64>,
    /// The column's place in the resident block (`home·l ..`), given on its first request (so that
    /// the columns touched are consecutive pages) and moved with the slot by swaps; [`NO_HOME`]
    /// before.
    home: usize,
    filled: usize,
    prev: usize,
    next: usize,
    linked: bool,
}

/// LRU cache of `l` columns of `f64` values with a byte budget.
pub(crate) struct ColumnCache {
    slots: Vec<Slot>,
    /// Sentinel index of the circular LRU list (`slots.len() - 1`); `next` of the head is the
    /// least recently used column.
    head: usize,
    /// Budget and current use, in `f64` entries; `used` counts allocated capacities, the spares'
    /// included.
    budget: usize,
    used: usize,
    /// Buffers of evicted columns, reused to avoid returning pages to the system and faulting them
    /// in again.
    spare: Vec<Vec<f64>>,
    /// Every column at full length, column `home` at `home·l ..` (resident storage), or `None`.
    block: Option<ZeroedBlock>,
    l: usize,
    /// The next free place in the resident block.
    next_home: usize,
}

/// The positions of a slot's first `len` values in a resident block of columns of length `l`.
#[inline]
fn span(slot: &Slot, l: usize, len: usize) -> std::ops::Range<usize> {
    match slot.home {
        NO_HOME => {
            debug_assert_eq!(len, 0, "a column read before it was requested");
            0..0
        }
        home => home * l..home * l + len,
    }
}

impl ColumnCache {
    /// A cache for `l` columns with a budget of `bytes`; at least two full columns always fit (the
    /// solver holds two at once). `resident` (the plan's [`super::plan::resident_cache`]: `l²`
    /// values fit in `bytes`) keeps every column in one block; when the system refuses the block's
    /// mapping, the per-column buffers hold the same columns within the same budget.
    pub(crate) fn new(l: usize, bytes: usize, resident: bool) -> Self {
        let budget = (bytes / 8).max(2 * l);
        let mut slots: Vec<Slot> = (0..=l).map(|_| Slot { home: NO_HOME, ..Slot::default() }).collect();
        let head = l;
        slots[head].prev = head;
        slots[head].next = head;
        slots[head].linked = true;
        debug_assert!(
            !resident || l.checked_mul(l).is_some_and(|ll| ll <= budget),
            "the plan checked the fit"
        );
        let block = resident.then(|| take_block(l * l)).flatten();
        let used = if block.is_some() { l * l } else { 0 };
        ColumnCache { slots, head, budget, used, spare: Vec::new(), block, l, next_home: 0 }
    }

    /// The positions of column `j`'s first `len` values in the resident block.
    #[inline]
    fn span(&self, j: usize, len: usize) -> std::ops::Range<usize> {
        span(&self.slots[j], self.l, len)
    }

    fn unlink(&mut self, j: usize) {
        let (p, n) = (self.slots[j].prev, self.slots[j].next);
        self.slots[p].next = n;
        self.slots[n].prev = p;
        self.slots[j].linked = false;
    }

    fn push_back(&mut self, j: usize) {
        let h = self.head;
        let last = self.slots[h].prev;
        self.slots[j].prev = last;
        self.slots[j].next = h;
        self.slots[last].next = j;
        self.slots[h].prev = j;
        self.slots[j].linked = true;
    }

    /// Evicts column `j`: its buffer joins the spares (still counted in `used`) or is freed when 64
    /// spares are already kept. A spare keeps its stale entries (and their length): a reuse then
    /// overwrites them instead of zeroing the buffer first (no `memset` per computed column).
    fn evict(&mut self, j: usize) {
        self.unlink(j);
        if self.block.is_some() {
            self.slots[j].filled = 0;
            return;
        }
        let buf = std::mem::take(&mut self.slots[j].data);
        if self.spare.len() < MAX_SPARES {
            self.spare.push(buf);
        } else {
            self.used -= buf.capacity();
        }
        self.slots[j].filled = 0;
    }

    /// Frees spare buffers, then evicts least recently used columns (never `keep`), until `extra` more
    /// entries fit in the budget, or until a spare of at least `len` entries exists (it is then reused
    /// and nothing new is allocated). Returns the position of that spare, if any.
    fn make_room(&mut self, extra: usize, len: usize, keep: Option<usize>) -> Option<usize> {
        loop {
            if let Some(pos) = self.spare.iter().position(|b| b.capacity() >= len) {
                return Some(pos);
            }
            if self.used + extra <= self.budget {
                return None;
            }
            if let Some(buf) = self.spare.pop() {
                self.used -= buf.capacity();
                continue;
            }
            let lru = self.slots[self.head].next;
            if lru == self.head {
                return None;
            }
            if Some(lru) == keep {
                // Move the kept column to the back and try the next one.
                self.unlink(lru);
                self.push_back(lru);
                if self.slots[self.head].next == lru {
                    return None;
                }
                continue;
            }
            self.evict(lru);
        }
    }

    /// Makes column `j` hold at least `len` entries and marks it most recently used. Returns the
    /// column buffer and the number of entries already valid; the caller computes `filled..len`.
    /// Never evicts `keep` (a column the caller still holds a copy of its index).
    pub(crate) fn request(&mut self, j: usize, len: usize, keep: Option<usize>) -> (&mut [f64], usize) {
        if self.slots[j].linked {
            self.unlink(j);
        }
        if self.block.is_none() {
            return self.request_buffer(j, len, keep);
        }
        self.push_back(j);
        if self.slots[j].home == NO_HOME {
            self.slots[j].home = self.next_home;
            self.next_home += 1;
        }
        let (span, filled) = (self.span(j, len), self.slots[j].filled);
        let block: &mut [f64] = self.block.as_deref_mut().unwrap_or_default();
        (&mut block[span], filled)
    }

    /// [`ColumnCache::request`] with a buffer per column (`j` unlinked).
    fn request_buffer(&mut self, j: usize, len: usize, keep: Option<usize>) -> (&mut [f64], usize) {
        let cap = self.slots[j].data.capacity();
        if cap < len {
            // Allocations are exact (`reserve_exact`, never `Vec`'s doubling) and counted by capacity,
            // spares included, so the bytes held never exceed the budget.
            match self.make_room(len - cap, len, keep) {
                Some(pos) => {
                    // The spare's stale entries beyond the column's own are overwritten by the caller
                    // (`filled..len`) before they are read.
                    let mut buf = self.spare.swap_remove(pos);
                    let old = &self.slots[j].data;
                    if buf.len() < old.len() {
                        buf.resize(old.len(), 0.0);
                    }
                    buf[..old.len()].copy_from_slice(old);
                    self.used -= cap;
                    self.slots[j].data = buf;
                }
                None => {
                    let data = &mut self.slots[j].data;
                    data.reserve_exact(len - data.len());
                    self.used += data.capacity() - cap;
                }
            }
        }
        if self.slots[j].data.len() < len {
            self.slots[j].data.resize(len, 0.0);
        }
        self.push_back(j);
        let filled = self.slots[j].filled;
        (&mut self.slots[j].data[..len], filled)
    }

    /// Records that column `j` is valid up to `len`.
    pub(crate) fn set_filled(&mut self, j: usize, len: usize) {
        let s = &mut self.slots[j];
        s.filled = s.filled.max(len);
    }

    /// The first `len` entries of column `i` and, writable, of column `j` (`i ≠ j`; both requested to
    /// at least `len`).
    pub(crate) fn pair_mut(&mut self, i: usize, j: usize, len: usize) -> (&[f64], &mut [f64]) {
        debug_assert_ne!(i, j);
        match &mut self.block {
            Some(block) => {
                let (si, sj) = (span(&self.slots[i], self.l, len), span(&self.slots[j], self.l, len));
                // Distinct slots have distinct homes, `l ≥ len` values apart.
                if si.start < sj.start {
                    let (lo, hi) = block.split_at_mut(sj.start);
                    (&lo[si], &mut hi[..len])
                } else {
                    let (lo, hi) = block.split_at_mut(si.start);
                    (&hi[..len], &mut lo[sj])
                }
            }
            None if i < j => {
                let (lo, hi) = self.slots.split_at_mut(j);
                (&lo[i].data[..len], &mut hi[0].data[..len])
            }
            None => {
                let (lo, hi) = self.slots.split_at_mut(i);
                (&hi[0].data[..len], &mut lo[j].data[..len])
            }
        }
    }

    /// The first `len` entries of column `j` if the cache holds them (without touching the LRU order).
    #[inline]
    pub(crate) fn cached(&self, j: usize, len: usize) -> Option<&[f64]> {
        (self.slots[j].filled >= len).then(|| self.column(j, len))
    }

    /// The first `len` entries of column `j`, writable (requested to at least `len`).
    #[inline]
    pub(crate) fn column_mut(&mut self, j: usize, len: usize) -> &mut [f64] {
        match &mut self.block {
            Some(block) => &mut block[span(&self.slots[j], self.l, len)],
            None => &mut self.slots[j].data[..len],
        }
    }

    /// The first `len` entries of column `j`, which must have been requested to at least `len`.
    #[inline]
    pub(crate) fn column(&self, j: usize, len: usize) -> &[f64] {
        match &self.block {
            Some(block) => &block[self.span(j, len)],
            None => &self.slots[j].data[..len],
        }
    }

    /// Swaps variables `i` and `j` in every cached column (LIBSVM `Cache::swap_index`; the solver uses
    /// the batched [`ColumnCache::apply_swaps`], this is its reference).
    #[cfg(test)]
    pub(crate) fn swap_index(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        let (i, j) = if i < j { (i, j) } else { (j, i) };
        let li = self.slots[i].linked;
        let lj = self.slots[j].linked;
        if li {
            self.unlink(i);
        }
        if lj {
            self.unlink(j);
        }
        self.slots.swap(i, j);
        if lj {
            self.push_back(i);
        }
        if li {
            self.push_back(j);
        }
        // Entries i and j of every other column.
        let mut h = self.slots[self.head].next;
        while h != self.head {
            let next = self.slots[h].next;
            let filled = self.slots[h].filled;
            if filled > i {
                if filled > j {
                    self.column_mut(h, filled).swap(i, j);
                } else {
                    // Only entry i is valid: the column would be inconsistent, drop it.
                    self.evict(h);
                }
            }
            h = next;
        }
    }

    /// Applies a batch of swaps (in order) at once: the column slots are exchanged as by
    /// [`ColumnCache::swap_index`], and each cached column is visited once for all pairs (one pass per
    /// column instead of one pass over the columns per pair).
    pub(crate) fn apply_swaps(&mut self, pairs: &[(usize, usize)]) {
        if pairs.is_empty() {
            return;
        }
        for &(i, j) in pairs {
            if i == j {
                continue;
            }
            let li = self.slots[i].linked;
            let lj = self.slots[j].linked;
            if li {
                self.unlink(i);
            }
            if lj {
                self.unlink(j);
            }
            self.slots.swap(i, j);
            if lj {
                self.push_back(i);
            }
            if li {
                self.push_back(j);
            }
        }
        let lowest = pairs.iter().map(|&(i, j)| i.min(j)).min().unwrap_or(0);
        let mut h = self.slots[self.head].next;
        while h != self.head {
            let next = self.slots[h].next;
            let filled = self.slots[h].filled;
            if filled <= lowest {
                h = next;
                continue;
            }
            let mut ok = true;
            {
                let data = self.column_mut(h, filled);
                for &(i, j) in pairs {
                    let (i, j) = if i < j { (i, j) } else { (j, i) };
                    if i < filled {
                        if j < filled {
                            data.swap(i, j);
                        } else {
                            ok = false;
                            break;
                        }
                    }
                }
            }
            if !ok {
                self.evict(h);
            }
            h = next;
        }
    }

    /// Bytes currently held (allocated capacities of the columns and of the spare buffers).
    #[cfg(test)]
    pub(crate) fn used_bytes(&self) -> usize {
        self.used * 8
    }

    /// Bytes allocated, recounted from the buffers themselves (the test of `used`).
    #[cfg(test)]
    fn allocated_bytes(&self) -> usize {
        if let Some(block) = &self.block {
            return block.len() * 8;
        }
        let cols: usize = self.slots.iter().map(|s| s.data.capacity()).sum();
        let spares: usize = self.spare.iter().map(|b| b.capacity()).sum();
        (cols + spares) * 8
    }
}

impl Drop for ColumnCache {
    fn drop(&mut self) {
        if let Some(block) = self.block.take() {
            keep_block(block);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used_within_budget() {
        // Budget of 3 columns of length 4.
        let mut c = ColumnCache::new(4, 3 * 4 * 8, false);
        for j in 0..3 {
            let (buf, filled) = c.request(j, 4, None);
            assert_eq!(filled, 0);
            buf.fill(j as f64);
            c.set_filled(j, 4);
        }
        // Touch 0, then add 3: 1 is the LRU and goes.
        assert_eq!(c.request(0, 4, None).1, 4);
        c.request(3, 4, None);
        c.set_filled(3, 4);
        assert_eq!(c.request(1, 4, None).1, 0, "column 1 was evicted");
        assert!(c.used_bytes() <= 3 * 4 * 8);
    }

    #[test]
    fn partial_columns_extend_and_swap() {
        let mut c = ColumnCache::new(4, 1 << 20, false);
        let (buf, _) = c.request(0, 2, None);
        buf.copy_from_slice(&[10.0, 11.0]);
        c.set_filled(0, 2);
        let (buf, filled) = c.request(0, 4, None);
        assert_eq!(filled, 2);
        buf[2] = 12.0;
        buf[3] = 13.0;
        c.set_filled(0, 4);
        c.swap_index(1, 3);
        assert_eq!(c.column(0, 4), &[10.0, 13.0, 12.0, 11.0]);
        // Swapping columns moves column 0's data to slot 2.
        c.swap_index(0, 2);
        assert_eq!(c.column(2, 4), &[12.0, 13.0, 10.0, 11.0]);
    }

    #[test]
    fn batched_swaps_equal_sequential_swaps() {
        let pairs = [(0, 3), (1, 2), (2, 4), (0, 1)];
        let mut a = ColumnCache::new(5, 1 << 20, false);
        let mut b = ColumnCache::new(5, 1 << 20, false);
        for c in [&mut a, &mut b] {
            for (j, len) in [(0, 5), (1, 3), (4, 5)] {
                let (buf, _) = c.request(j, len, None);
                for (k, v) in buf.iter_mut().enumerate() {
                    *v = (10 * j + k) as f64;
                }
                c.set_filled(j, len);
            }
        }
        for &(i, j) in &pairs {
            a.swap_index(i, j);
        }
        b.apply_swaps(&pairs);
        for j in 0..5 {
            let (fa, fb) = (a.slots[j].filled, b.slots[j].filled);
            assert_eq!(fa, fb, "column {j}");
            assert_eq!(a.column(j, fa), b.column(j, fb));
        }
    }

    /// A kept block full of stale values (NaN) serves the next solve on the thread: the fit is the
    /// per-column buffers' fit, bit for bit, and the block is kept again afterwards.
    #[test]
    fn a_kept_block_with_stale_values_gives_the_same_fit() {
        use crate::svm::{SolverParams, plan::Tuning};
        let (x, y) = crate::svm::tests::random_problem(60, 2, 7);
        let k: kern_core::KernelSpec = "gaussian:sigma=0.7".parse().unwrap();
        let fit = |resident: bool| {
            let tuning = Tuning { force_resident_cache: Some(resident), ..Tuning::default() };
            let s = SolverParams { tuning, ..SolverParams::default() };
            crate::svm::train::solve_svc(&k, &x, &y, vec![3.0; 60], &s, None)
        };
        let want = fit(false);
        KEPT.with(|kept| kept.borrow_mut().take());
        let mut stale = ZeroedBlock::new(100 * 100).unwrap();
        stale.fill(f64::NAN);
        let at = stale.as_ptr();
        keep_block(stale);
        let got = fit(true);
        assert_eq!(
            KEPT.with(|kept| kept.borrow().as_ref().map(|b| b.as_ptr())),
            Some(at),
            "the block was reused"
        );
        assert_eq!(
            got.alpha.iter().map(|a| a.to_bits()).collect::<Vec<_>>(),
            want.alpha.iter().map(|a| a.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(got.stats.rho.to_bits(), want.stats.rho.to_bits());
        assert_eq!(got.stats.iterations, want.stats.iterations);
        assert!(got.stats.plan.cache_mb < want.stats.plan.cache_mb, "resident: the l² values");
    }

    /// `Q` entry of the property test: a value that names its original row and column.
    fn entry(col: usize, row: usize) -> f64 {
        (col * 1000 + row) as f64
    }

    proptest::proptest! {
        #![proptest_config(kern_testkit::proptest_config(64))]

        /// Over random requests (random lengths, a kept column) and batches of swaps, the bytes
        /// allocated by the cache (column capacities and spare buffers, recounted from the buffers)
        /// equal its own count and never exceed its budget, and every valid entry is the one written
        /// for that (row, column) whatever moved since.
        #[test]
        fn allocated_bytes_stay_within_the_budget(
            l in 1usize..40,
            budget_cols in 0usize..50,
            ops in proptest::collection::vec((0usize..1000, 0usize..1000, 0usize..1000, 0u8..8), 1..200),
        ) {
            let bytes = budget_cols * l * 8 / 4;
            let budget = (bytes / 8).max(2 * l) * 8;
            let mut c = ColumnCache::new(l, bytes, false);
            let mut orig: Vec<usize> = (0..l).collect();
            for (a, b, k, kind) in ops {
                let (j, other) = (a % l, b % l);
                if kind == 0 {
                    let pairs = [(j, other), (k % l, j)];
                    c.apply_swaps(&pairs);
                    for (x, y) in pairs {
                        orig.swap(x, y);
                    }
                } else {
                    let len = 1 + k % l;
                    let keep = (kind == 1 && other != j).then_some(other);
                    let kept = keep.map(|kc| c.slots[kc].filled);
                    let (buf, filled) = c.request(j, len, keep);
                    for (r, &v) in buf[..filled.min(len)].iter().enumerate() {
                        proptest::prop_assert_eq!(v, entry(orig[j], orig[r]));
                    }
                    for (r, v) in buf.iter_mut().enumerate().skip(filled) {
                        *v = entry(orig[j], orig[r]);
                    }
                    c.set_filled(j, len);
                    if let (Some(kc), Some(f)) = (keep, kept) {
                        proptest::prop_assert_eq!(c.slots[kc].filled, f, "the kept column was evicted");
                    }
                }
                proptest::prop_assert_eq!(c.allocated_bytes(), c.used_bytes());
                proptest::prop_assert!(c.used_bytes() <= budget, "{} > {}", c.used_bytes(), budget);
            }
        }

        /// The resident block behaves as the per-column buffers with room for every column: over
        /// random requests (random lengths, partial columns extended) and batches of swaps, both
        /// return the same number of valid entries and the same values, and the block holds exactly
        /// `l²` values (or more: a block kept from an earlier solve on the thread).
        #[test]
        fn the_resident_block_serves_what_the_buffers_serve(
            l in 1usize..40,
            ops in proptest::collection::vec((0usize..1000, 0usize..1000, 0usize..1000, 0u8..8), 1..200),
        ) {
            let bytes = l * l * 8;
            let mut r = ColumnCache::new(l, bytes, true);
            let mut b = ColumnCache::new(l, bytes, false);
            proptest::prop_assert!(r.block.is_some() && b.block.is_none());
            // A block kept by an earlier solve on this thread may be larger.
            proptest::prop_assert!(r.allocated_bytes() >= bytes);
            let mut orig: Vec<usize> = (0..l).collect();
            for (x, y, k, kind) in ops {
                let (j, other) = (x % l, y % l);
                if kind == 0 {
                    let pairs = [(j, other), (k % l, j)];
                    r.apply_swaps(&pairs);
                    b.apply_swaps(&pairs);
                    for (p, q) in pairs {
                        orig.swap(p, q);
                    }
                    continue;
                }
                let len = 1 + k % l;
                let (rb, rf) = r.request(j, len, None);
                let valid: Vec<f64> = rb[..rf.min(len)].to_vec();
                for (row, v) in rb.iter_mut().enumerate().skip(rf) {
                    *v = entry(orig[j], orig[row]);
                }
                let (bb, bf) = b.request(j, len, None);
                proptest::prop_assert_eq!(rf, bf);
                proptest::prop_assert_eq!(&valid[..], &bb[..bf.min(len)]);
                for (row, v) in bb.iter_mut().enumerate().skip(bf) {
                    *v = entry(orig[j], orig[row]);
                }
                r.set_filled(j, len);
                b.set_filled(j, len);
                if other != j && r.slots[other].filled > 0 && b.slots[other].filled > 0 {
                    let n = r.slots[other].filled.min(len);
                    let (ri, _) = r.pair_mut(other, j, n);
                    let ri = ri.to_vec();
                    let (bi, _) = b.pair_mut(other, j, n);
                    proptest::prop_assert_eq!(&ri[..], bi);
                }
            }
        }

        /// The budget decides only which columns are recomputed: a fit whose cache holds every column
        /// (in the resident block, and in a buffer each) and one whose cache holds two (evictions,
        /// reused spares with stale entries, partial columns swapped by shrinking) give bit-identical
        /// multipliers, `ρ`, objective and iterations.
        #[test]
        fn fits_are_bit_identical_whatever_the_cache_budget(
            n in 8usize..120,
            d in 1usize..4,
            seed in 0u64..10_000,
            logc in -1.0f64..2.5,
            kernel in proptest::sample::select(vec!["gaussian:sigma=0.7", "laplacian:sigma=1"]),
        ) {
            use crate::svm::{SolverParams, plan::Tuning};
            let (x, y) = crate::svm::tests::random_problem(n, d, seed);
            let k: kern_core::KernelSpec = kernel.parse().unwrap();
            let c = vec![10f64.powf(logc); n];
            let fit = |cache_mb: f64, resident: bool| {
                let tuning = Tuning { force_resident_cache: Some(resident), ..Tuning::default() };
                let s = SolverParams { cache_mb, tuning, ..SolverParams::default() };
                crate::svm::train::solve_svc(&k, &x, &y, c.clone(), &s, None)
            };
            let (big, buffers, tiny) = (fit(100.0, true), fit(100.0, false), fit(1e-6, true));
            proptest::prop_assert!(big.stats.plan.cache_mb * 1048576.0 == (n * n * 8) as f64, "every column fits: resident");
            proptest::prop_assert!(buffers.stats.plan.cache_mb >= 16.0, "the budget (capped for cheap columns)");
            proptest::prop_assert_eq!(&big.alpha, &buffers.alpha);
            proptest::prop_assert_eq!(big.stats.iterations, buffers.stats.iterations);
            proptest::prop_assert_eq!(&big.alpha, &tiny.alpha);
            proptest::prop_assert_eq!(big.stats.rho.to_bits(), tiny.stats.rho.to_bits());
            proptest::prop_assert_eq!(big.stats.objective.to_bits(), tiny.stats.objective.to_bits());
            proptest::prop_assert_eq!(big.stats.iterations, tiny.stats.iterations);
        }
    }
}
