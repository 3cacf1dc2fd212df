//! Zeroed `f64` blocks mapped straight from the operating system and backed by transparent huge
//! pages where it allows ([`ZeroedBlock`]), and the huge-page advice itself (shared with the dense
//! Gram matrix).
//!
//! A fresh page costs a fault when it is first touched: on the 2-core virtual machine of
//! docs/benchmarks.md, touching 2 MiB of fresh memory takes about 1,080 µs in 4 KiB pages and 62 µs
//! as one 2 MiB page (`madvise(MADV_HUGEPAGE)`, best of 20). A small SVM fit whose kernel columns
//! fill a few megabytes of cache spends about half of its time in those faults (pima, 614 samples:
//! 486 faults and 2.3 ms per fit, 1.1 ms without them).

/// Bytes of a transparent huge page on x86-64 and aarch64 Linux.
pub const HUGE_PAGE: usize = 2 << 20;

/// The smallest [`ZeroedBlock`] put on huge pages: 1 MiB. A huge page's first fault zeroes 2 MiB,
/// which in a fresh process took 100–250 µs (a C program touching one value of a fresh advised page,
/// six runs), as long as faulting 256–512 KiB in 4 KiB pages (170–180 µs for 256 KiB); a smaller block
/// stays on 4 KiB pages, faulted one by one as it is touched.
pub const HUGE_MIN_BYTES: usize = 1 << 20;

/// Asks Linux to back the 2 MiB-aligned pages among the `len` values from `ptr` (one allocation)
/// with transparent huge pages before they are first touched (`madvise(MADV_HUGEPAGE)`). Advisory
/// only: a refusal, a system with huge pages off, or another OS changes nothing but speed; the values
/// are not changed.
#[allow(unsafe_code)]
pub(crate) fn advise_huge_pages(ptr: *mut f64, len: usize) {
    #[cfg(target_os = "linux")]
    {
        let bytes = len * std::mem::size_of::<f64>();
        let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
        let end = (ptr as usize + bytes) / HUGE_PAGE * HUGE_PAGE;
        if end > start {
            // SAFETY: [start, end) lies inside the allocation of `len` f64 values starting at `ptr`
            // (start rounded up, end rounded down to 2 MiB boundaries); MADV_HUGEPAGE only changes how
            // the kernel backs the pages, never their contents or validity. Errors are ignored.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, len);
}

/// A zero-filled block of `f64` values whose pages are faulted in only when first touched: an
/// anonymous mapping, from [`HUGE_MIN_BYTES`] on transparent huge pages where Linux allows (its
/// first value on a 2 MiB boundary, advised `MADV_HUGEPAGE` over whole huge pages); elsewhere a
/// zeroed `Vec`.
/// Dropping it returns the pages to the system.
///
/// ```
/// use kern_core::pages::ZeroedBlock;
/// let mut b = ZeroedBlock::new(1000).expect("1000 values fit");
/// assert_eq!(b.len(), 1000);
/// assert!(b.iter().all(|&x| x == 0.0));
/// b[999] = 2.5;
/// assert_eq!(b[999], 2.5);
/// ```
pub struct ZeroedBlock {
    #[cfg(target_os = "linux")]
    map: Mapping,
    #[cfg(not(target_os = "linux"))]
    vec: Vec<f64>,
}

/// The mapping behind a [`ZeroedBlock`]: `total` bytes from `base`, the values from `data`.
#[cfg(target_os = "linux")]
struct Mapping {
    base: *mut libc::c_void,
    total: usize,
    data: *mut f64,
    len: usize,
}

// SAFETY: a `Mapping` owns its pages exclusively (nothing else holds `base` or `data`), as a `Vec`
// owns its buffer: moving it to another thread or sharing `&` references across threads is as sound
// as for `Vec<f64>` (shared access is read-only through `Deref`, writes need `&mut`).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
unsafe impl Send for Mapping {}
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
unsafe impl Sync for Mapping {}

impl ZeroedBlock {
    /// A block of `len` zeros, or `None` when the system refuses the mapping (an address-space limit,
    /// for one) or the size overflows.
    ///
    /// ```
    /// assert!(kern_core::pages::ZeroedBlock::new(usize::MAX / 4).is_none());
    /// ```
    #[allow(unsafe_code)]
    pub fn new(len: usize) -> Option<Self> {
        #[cfg(target_os = "linux")]
        {
            let bytes = len.checked_mul(std::mem::size_of::<f64>())?;
            let huge = bytes >= HUGE_MIN_BYTES;
            // On huge pages: room to start on a 2 MiB boundary and to end on one (the advice covers
            // whole pages). Else the values' pages only (at least one: an empty mapping is refused).
            let (span, total) = if huge {
                let span = bytes.checked_next_multiple_of(HUGE_PAGE)?;
                (span, span.checked_add(HUGE_PAGE)?)
            } else {
                (bytes, bytes.max(1))
            };
            // SAFETY: an anonymous private mapping of `total` bytes at an address the kernel chooses;
            // no existing memory is affected. The result is checked against MAP_FAILED.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    total,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                return None;
            }
            let offset = if huge { (base as usize).next_multiple_of(HUGE_PAGE) - base as usize } else { 0 };
            // SAFETY: offset < HUGE_PAGE (0 off huge pages) and offset + span ≤ total, so `data` and the
            // `span` bytes after it lie inside the mapping; the mapping is page-aligned, so `data` is
            // aligned for f64.
            let data = unsafe { (base as *mut u8).add(offset) } as *mut f64;
            if huge {
                advise_huge_pages(data, span / std::mem::size_of::<f64>());
            }
            Some(ZeroedBlock { map: Mapping { base, total, data, len } })
        }
        #[cfg(not(target_os = "linux"))]
        {
            len.checked_mul(std::mem::size_of::<f64>())?;
            Some(ZeroedBlock { vec: vec![0.0; len] })
        }
    }
}

impl std::ops::Deref for ZeroedBlock {
    type Target = [f64];
    #[allow(unsafe_code)]
    fn deref(&self) -> &[f64] {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: `data` points to `len` f64 values inside the live mapping (see `new`); an
            // anonymous mapping is zero-filled, and zero bytes are a valid f64, so every value is
            // initialized; the borrow of `self` keeps the mapping alive and unaliased by writes.
            unsafe { std::slice::from_raw_parts(self.map.data, self.map.len) }
        }
        #[cfg(not(target_os = "linux"))]
        {
            &self.vec
        }
    }
}

impl std::ops::DerefMut for ZeroedBlock {
    #[allow(unsafe_code)]
    fn deref_mut(&mut self) -> &mut [f64] {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: as in `deref`, and `&mut self` makes this the only reference to the values.
            unsafe { std::slice::from_raw_parts_mut(self.map.data, self.map.len) }
        }
        #[cfg(not(target_os = "linux"))]
        {
            &mut self.vec
        }
    }
}

#[cfg(target_os = "linux")]
impl Drop for Mapping {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        // SAFETY: `base` and `total` are those of the mapping `new` created, unmapped only here; no
        // reference into it outlives `self`.
        unsafe {
            libc::munmap(self.base, self.total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]
        /// A block of any length reads as zeros, keeps what is written where it was written, and its
        /// values start on a 2 MiB boundary on Linux from [`HUGE_MIN_BYTES`].
        #[test]
        fn a_block_is_zeros_and_keeps_writes(len in 0usize..600_000, picks in prop::collection::vec(any::<u32>(), 0..20)) {
            let mut b = ZeroedBlock::new(len).expect("a small block maps");
            prop_assert_eq!(b.len(), len);
            prop_assert!(b.iter().all(|&x| x == 0.0));
            #[cfg(target_os = "linux")]
            if len * 8 >= HUGE_MIN_BYTES {
                prop_assert_eq!(b.as_ptr() as usize % HUGE_PAGE, 0);
            }
            if len > 0 {
                let mut want = std::collections::BTreeMap::new();
                for (k, &p) in picks.iter().enumerate() {
                    let i = p as usize % len;
                    b[i] = k as f64 + 0.5;
                    want.insert(i, k as f64 + 0.5);
                }
                for (i, &x) in b.iter().enumerate() {
                    prop_assert_eq!(x, want.get(&i).copied().unwrap_or(0.0));
                }
            }
        }
    }

    #[test]
    fn an_impossible_block_is_refused() {
        assert!(ZeroedBlock::new(usize::MAX).is_none());
        assert!(ZeroedBlock::new(usize::MAX / 8).is_none());
    }
}
