//! The kernel-column cache: least-recently-used columns of `Q`, bounded in bytes (LIBSVM's `Cache`).
//!
//! A column is stored with the length it was computed to (`filled`); a request for a longer prefix
//! extends it, so columns computed while the problem was shrunk are reused after unshrinking. Columns
//! are kept in solver (permuted) order: [`ColumnCache::swap_index`] keeps every cached column
//! consistent when the solver swaps two variables, evicting columns that cover only one of them.

/// One cached column.
#[derive(Default)]
struct Slot {
    data: Vec<f64>,
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
    /// Budget and current use, in `f64` entries.
    budget: usize,
    used: usize,
    /// Buffers of evicted columns, reused to avoid returning pages to the system and faulting them
    /// in again.
    spare: Vec<Vec<f64>>,
}

impl ColumnCache {
    /// A cache for `l` columns with a budget of `bytes`; at least two full columns always fit (the
    /// solver holds two at once).
    pub(crate) fn new(l: usize, bytes: usize) -> Self {
        let budget = (bytes / 8).max(2 * l);
        let mut slots: Vec<Slot> = (0..=l).map(|_| Slot::default()).collect();
        let head = l;
        slots[head].prev = head;
        slots[head].next = head;
        slots[head].linked = true;
        ColumnCache { slots, head, budget, used: 0, spare: Vec::new() }
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

    fn evict(&mut self, j: usize) {
        self.unlink(j);
        self.used -= self.slots[j].data.len();
        let mut buf = std::mem::take(&mut self.slots[j].data);
        buf.clear();
        if self.spare.len() < 64 {
            self.spare.push(buf);
        }
        self.slots[j].filled = 0;
    }

    /// Makes column `j` hold at least `len` entries and marks it most recently used. Returns the
    /// column buffer and the number of entries already valid; the caller computes `filled..len`.
    /// Never evicts `keep` (a column the caller still holds a copy of its index).
    pub(crate) fn request(&mut self, j: usize, len: usize, keep: Option<usize>) -> (&mut [f64], usize) {
        if self.slots[j].linked {
            self.unlink(j);
        }
        let have = self.slots[j].data.len();
        if have < len {
            let more = len - have;
            // Evict least recently used columns until the extension fits.
            while self.used + more > self.budget {
                let lru = self.slots[self.head].next;
                if lru == self.head {
                    break;
                }
                if Some(lru) == keep {
                    // Move the kept column to the back and try the next one.
                    self.unlink(lru);
                    self.push_back(lru);
                    if self.slots[self.head].next == lru {
                        break;
                    }
                    continue;
                }
                self.evict(lru);
            }
            if self.slots[j].data.capacity() < len
                && let Some(pos) = self.spare.iter().position(|b| b.capacity() >= len)
            {
                let mut buf = self.spare.swap_remove(pos);
                buf.extend_from_slice(&self.slots[j].data);
                self.slots[j].data = buf;
            }
            self.slots[j].data.resize(len, 0.0);
            self.used += more;
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

    /// The first `len` entries of column `j`, which must have been requested to at least `len`.
    #[inline]
    pub(crate) fn column(&self, j: usize, len: usize) -> &[f64] {
        &self.slots[j].data[..len]
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
                    self.slots[h].data.swap(i, j);
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
                let data = &mut self.slots[h].data;
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

    /// Bytes currently held.
    #[cfg(test)]
    pub(crate) fn used_bytes(&self) -> usize {
        self.used * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used_within_budget() {
        // Budget of 3 columns of length 4.
        let mut c = ColumnCache::new(4, 3 * 4 * 8);
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
        let mut c = ColumnCache::new(4, 1 << 20);
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
        let mut a = ColumnCache::new(5, 1 << 20);
        let mut b = ColumnCache::new(5, 1 << 20);
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
}
