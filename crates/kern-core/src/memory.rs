//! Memory as a checked resource: every large allocation is sized first, with overflow-checked
//! arithmetic, against the memory this process may still use, and refused with
//! [`CoreError::Memory`] (what it needs, what is available, what to do instead) rather than aborting.
//!
//! The budget is, in order: the override set by [`set_limit`] (source [`LIMIT_SOURCE`]), else
//! the smallest of the cgroup's remaining memory (cgroup v2 `memory.max - memory.current`, or v1
//! `memory.limit_in_bytes - memory.usage_in_bytes`), the kernel's `MemAvailable`, and the address
//! space this process may still map under its `RLIMIT_AS` (`ulimit -v`, as clusters set it: the soft
//! limit of `/proc/self/limits` minus `VmSize` of `/proc/self/status`). Where none can be read the
//! budget is unknown and only overflow is refused.
//!
//! ```
//! use kern_core::memory::{self, Budget};
//! memory::set_limit(Some(1 << 30)); // 1 GiB
//! assert_eq!(memory::budget(), Budget { bytes: Some(1 << 30), source: memory::LIMIT_SOURCE });
//! let n = 100_000usize;
//! let bytes = memory::bytes_for::<f64>(&[n, n], "dense Gram")?;
//! let err = memory::check_bytes(bytes, "dense Gram", "use the sparse path").unwrap_err();
//! assert!(err.to_string().contains("dense Gram needs 80.0 GB"));
//! assert!(memory::check_bytes(8_000, "small", "").is_ok());
//! memory::set_limit(None);
//! # Ok::<(), kern_core::CoreError>(())
//! ```

use crate::error::{CoreError, Result};
use std::sync::atomic::{AtomicU64, Ordering};

/// The override in bytes; `u64::MAX` means none.
static LIMIT: AtomicU64 = AtomicU64::new(u64::MAX);

/// Sets (or with `None` clears) the memory budget of this process, overriding what the system reports.
///
/// ```no_run
/// kern_core::memory::set_limit(Some(4 << 30)); // what `kern --max-memory 4G` does
/// assert_eq!(kern_core::memory::budget().bytes, Some(4 << 30));
/// ```
pub fn set_limit(bytes: Option<u64>) {
    LIMIT.store(bytes.unwrap_or(u64::MAX), Ordering::Relaxed);
}

/// The [`Budget::source`] of the limit set by [`set_limit`]. A front end names its own way of
/// setting that limit when it shows a [`CoreError::Memory`] (the `kern` command: its `--max-memory`
/// flag).
///
/// ```
/// use kern_core::memory;
/// memory::set_limit(Some(1 << 30));
/// assert_eq!(memory::budget().source, memory::LIMIT_SOURCE);
/// memory::set_limit(None);
/// ```
pub const LIMIT_SOURCE: &str = "memory limit";

/// The advice of every memory refusal whose remedy is more memory, in the library's terms: a front
/// end that sets the limit its own way (the `kern --max-memory` flag, `kern.set_memory_limit` in
/// Python) may replace these words with its own.
///
/// ```
/// use kern_core::memory::{self, RAISE_LIMIT};
/// memory::set_limit(Some(1 << 20));
/// let e = memory::check_bytes(1 << 30, "a matrix", &format!("use fewer samples, or {RAISE_LIMIT}")).unwrap_err();
/// assert!(e.to_string().ends_with("use fewer samples, or raise the memory limit (set_limit)"));
/// memory::set_limit(None);
/// ```
pub const RAISE_LIMIT: &str = "raise the memory limit (set_limit)";

/// How many bytes may still be allocated, and where that number comes from.
///
/// ```
/// let b = kern_core::memory::budget();
/// assert!(!b.source.is_empty());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Bytes available; `None` when the system does not say.
    pub bytes: Option<u64>,
    /// [`LIMIT_SOURCE`] (the limit of [`set_limit`]), `"cgroup limit"`, `"MemAvailable"`, `"address-space limit (ulimit -v)"` or
    /// `"unknown"`.
    pub source: &'static str,
}

/// The current budget (see the module documentation for the order of sources).
///
/// ```
/// let b = kern_core::memory::budget();
/// if let Some(bytes) = b.bytes { assert!(bytes > 0 || b.source != kern_core::memory::LIMIT_SOURCE); }
/// ```
pub fn budget() -> Budget {
    let over = LIMIT.load(Ordering::Relaxed);
    if over != u64::MAX {
        return Budget { bytes: Some(over), source: LIMIT_SOURCE };
    }
    [
        (cgroup_remaining(), "cgroup limit"),
        (mem_available(), "MemAvailable"),
        (address_space_remaining(), ADDRESS_SPACE),
    ]
    .into_iter()
    .filter_map(|(b, source)| b.map(|bytes| Budget { bytes: Some(bytes), source }))
    .min_by_key(|b| b.bytes)
    .unwrap_or(Budget { bytes: None, source: "unknown" })
}

/// Whether this process runs under an address-space limit (`ulimit -v`).
///
/// ```
/// let _limited: bool = kern_core::memory::address_space_limited();
/// ```
pub fn address_space_limited() -> bool {
    address_space_remaining().is_some()
}

/// The budget source named for `RLIMIT_AS`.
const ADDRESS_SPACE: &str = "address-space limit (ulimit -v)";

/// Address space this process may still map under its soft `RLIMIT_AS`, when it has one.
pub(crate) fn address_space_remaining() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    remaining_address_space(&limits, &status)
}

/// [`address_space_remaining`] from the texts of `/proc/self/limits` and `/proc/self/status`:
/// `None` when the soft limit is `unlimited` or a text cannot be read.
fn remaining_address_space(limits: &str, status: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with("Max address space"))?;
    let soft = line.trim_start_matches("Max address space").split_whitespace().next()?;
    let soft: u64 = soft.parse().ok()?; // "unlimited" does not parse
    let vm = status.lines().find(|l| l.starts_with("VmSize:"))?;
    let kb: u64 = vm.split_whitespace().nth(1)?.parse().ok()?;
    Some(soft.saturating_sub(kb.checked_mul(1024)?))
}

fn read_u64(path: &str) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Remaining memory of this process's cgroup (v2, then v1), when it has a limit.
fn cgroup_remaining() -> Option<u64> {
    let (max, current) = if let Some(max) = read_u64("/sys/fs/cgroup/memory.max") {
        (max, read_u64("/sys/fs/cgroup/memory.current").unwrap_or(0))
    } else {
        let max = read_u64("/sys/fs/cgroup/memory/memory.limit_in_bytes")?;
        (max, read_u64("/sys/fs/cgroup/memory/memory.usage_in_bytes").unwrap_or(0))
    };
    // cgroup v1 reports "no limit" as a huge page-aligned number.
    (max < (1u64 << 60)).then_some(max.saturating_sub(current))
}

/// `MemAvailable` of `/proc/meminfo` in bytes.
fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// Parses a size such as `4G`, `512M`, `1.5GiB`, `100000` (bytes); suffixes K, M, G, T are powers
/// of 1024, with or without a trailing `B`/`iB`.
///
/// ```
/// use kern_core::memory::parse_size;
/// assert_eq!(parse_size("4G")?, 4 << 30);
/// assert_eq!(parse_size("512m")?, 512 << 20);
/// assert_eq!(parse_size("1000")?, 1000);
/// assert!(parse_size("-1G").is_err() && parse_size("lots").is_err() && parse_size("1e30T").is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn parse_size(s: &str) -> Result<u64> {
    let bad = |reason: &'static str| CoreError::Param { name: "max-memory", value: f64::NAN, reason };
    let t = s.trim().to_ascii_uppercase();
    let t = t.strip_suffix("IB").or_else(|| t.strip_suffix('B')).unwrap_or(&t);
    let (num, shift) = match t.chars().last() {
        Some('K') => (&t[..t.len() - 1], 10),
        Some('M') => (&t[..t.len() - 1], 20),
        Some('G') => (&t[..t.len() - 1], 30),
        Some('T') => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let v: f64 = num.trim().parse().map_err(|_| bad("expected a size such as 4G, 512M or 100000"))?;
    let bytes = v * (1u64 << shift) as f64;
    if !(bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(bad("must be a positive size below 16 EiB"));
    }
    Ok(bytes as u64)
}

/// Bytes of an array of `T` with the given dimensions, refused with [`CoreError::SizeOverflow`] when
/// the product overflows.
///
/// ```
/// use kern_core::memory::bytes_for;
/// assert_eq!(bytes_for::<f64>(&[3, 4], "m")?, 96);
/// assert!(bytes_for::<f64>(&[usize::MAX, 2], "m").is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn bytes_for<T>(dims: &[usize], what: &str) -> Result<u64> {
    let mut b = std::mem::size_of::<T>() as u64;
    for &d in dims {
        b = b.checked_mul(d as u64).ok_or_else(|| CoreError::SizeOverflow { what: what.to_string() })?;
    }
    Ok(b)
}

/// Allocations of at most this many bytes (16 MiB) are not checked against the system's budget by
/// [`check_bytes`] (an explicit [`set_limit`] is always checked).
pub(crate) const UNCHECKED_BYTES: u64 = 16 << 20;

/// Refuses an allocation of `bytes` that does not fit the [`budget`]; `instead` says what to do
/// instead (the sparse, iterative or landmark path).
///
/// Without a [`set_limit`] override, allocations up to 16 MiB are let through without
/// reading the system's budget (five files of `/proc` and `/sys`, 20–50 µs): a small fit makes dozens
/// of such allocations, and the reads took a quarter of a 120-point fit. One of them that does not fit
/// still fails as an error where it is made fallibly ([`try_with_capacity`]).
///
/// ```
/// use kern_core::memory::{budget, check_bytes};
/// if budget().bytes.is_some() {
///     let e = check_bytes(u64::MAX, "dense factor", "use --path sparse").unwrap_err();
///     assert!(e.to_string().contains("use --path sparse"));
/// }
/// ```
pub fn check_bytes(bytes: u64, what: &str, instead: &str) -> Result<()> {
    if bytes <= UNCHECKED_BYTES && LIMIT.load(Ordering::Relaxed) == u64::MAX {
        return Ok(());
    }
    let b = budget();
    match b.bytes {
        Some(avail) if bytes > avail => Err(CoreError::Memory {
            what: what.to_string(),
            needed: bytes,
            available: avail,
            source_name: b.source,
            // The memory limit of `set_limit` cannot lift the address-space limit: say which limit to
            // raise.
            instead: if b.source == ADDRESS_SPACE {
                instead.replace(RAISE_LIMIT, "raise the address-space limit (ulimit -v)")
            } else {
                instead.to_string()
            },
        }),
        _ => Ok(()),
    }
}

/// [`bytes_for`] then [`check_bytes`]: the element count of a `dims` array of `T` that fits.
///
/// ```
/// let n = kern_core::memory::check_array::<f64>(&[10, 10], "Gram", "")?;
/// assert_eq!(n, 100);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn check_array<T>(dims: &[usize], what: &str, instead: &str) -> Result<usize> {
    let bytes = bytes_for::<T>(dims, what)?;
    check_bytes(bytes, what, instead)?;
    let mut n = 1usize;
    for &d in dims {
        n = n.checked_mul(d).ok_or_else(|| CoreError::SizeOverflow { what: what.to_string() })?;
    }
    Ok(n)
}

/// A vector of `len` copies of `value`, checked against the budget and allocated fallibly
/// (`try_reserve`), so a wrong size is an error instead of an abort.
///
/// ```
/// let v = kern_core::memory::try_filled(4, 0.0f64, "scores", "")?;
/// assert_eq!(v, vec![0.0; 4]);
/// assert!(kern_core::memory::try_filled(usize::MAX, 0.0f64, "scores", "").is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn try_filled<T: Clone>(len: usize, value: T, what: &str, instead: &str) -> Result<Vec<T>> {
    let mut v = try_with_capacity::<T>(len, what, instead)?;
    v.resize(len, value);
    Ok(v)
}

/// An empty vector with room for `len` elements, checked against the budget and reserved fallibly.
///
/// ```
/// let v: Vec<u32> = kern_core::memory::try_with_capacity(10, "rows", "")?;
/// assert!(v.capacity() >= 10);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn try_with_capacity<T>(len: usize, what: &str, instead: &str) -> Result<Vec<T>> {
    let bytes = bytes_for::<T>(&[len], what)?;
    check_bytes(bytes, what, instead)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| refused_by_allocator(bytes, what, instead))?;
    Ok(v)
}

/// An empty `faer` matrix with room for `nrows × ncols` doubles, checked against the budget and
/// reserved fallibly (faer's own `with_capacity` and `zeros` abort when the allocation fails, as it
/// does under `ulimit -v` although the budget's other sources say the memory is there).
///
/// ```
/// let m = kern_core::memory::try_mat_capacity(3, 4, "scores", "")?;
/// assert_eq!((m.nrows(), m.ncols()), (0, 0));
/// assert!(kern_core::memory::try_mat_capacity(usize::MAX, 2, "scores", "").is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn try_mat_capacity(nrows: usize, ncols: usize, what: &str, instead: &str) -> Result<faer::Mat<f64>> {
    let bytes = bytes_for::<f64>(&[nrows, ncols], what)?;
    check_bytes(bytes, what, instead)?;
    let mut m = faer::Mat::new();
    m.try_reserve(nrows, ncols).map_err(|_| refused_by_allocator(bytes, what, instead))?;
    Ok(m)
}

/// The error of a reservation the allocator refused although the budget allowed it.
fn refused_by_allocator(bytes: u64, what: &str, instead: &str) -> CoreError {
    CoreError::Memory {
        what: what.to_string(),
        needed: bytes,
        available: budget().bytes.unwrap_or(0),
        source_name: "allocator",
        instead: instead.to_string(),
    }
}

/// Refuses a dense symmetric eigendecomposition of an `n × n` matrix (faer's `self_adjoint_eigen`)
/// that does not fit in the budget: its `n × n` eigenvectors and the workspace faer asks for (about
/// three more `n × n` matrices), which faer would otherwise allocate by aborting the process when
/// the allocation fails.
///
/// ```
/// use kern_core::memory;
/// memory::set_limit(Some(100 << 20)); // 100 MiB
/// assert!(memory::check_eigen(200, "an eigendecomposition", "").is_ok());
/// let e = memory::check_eigen(5_000, "the eigendecomposition of K", "use fewer rows").unwrap_err();
/// assert!(e.to_string().contains("the eigendecomposition of K needs"), "{e}");
/// assert!(memory::check_eigen(usize::MAX, "x", "").is_err()); // overflow is an error, not a panic
/// memory::set_limit(None);
/// ```
///
/// # Errors
/// [`CoreError::Memory`] when it does not fit (or its size overflows).
pub fn check_eigen(n: usize, what: &str, instead: &str) -> Result<()> {
    // The eigenvectors, and n × n × 4 as a first bound: faer's workspace is below three n × n.
    bytes_for::<f64>(&[n, n, 4], what)?;
    let vectors = bytes_for::<f64>(&[n, n], what)?;
    let scratch = faer::linalg::evd::self_adjoint_evd_scratch::<f64>(
        n,
        faer::linalg::evd::ComputeEigenvectors::Yes,
        faer::get_global_parallelism(),
        Default::default(),
    )
    .unaligned_bytes_required();
    check_bytes(vectors.saturating_add(scratch as u64), what, instead)
}

/// Human-readable bytes: `80.0 GB` (powers of 1000, as `df -H`).
///
/// ```
/// assert_eq!(kern_core::memory::human(80_000_000_000), "80.0 GB");
/// assert_eq!(kern_core::memory::human(512), "512 B");
/// ```
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["kB", "MB", "GB", "TB", "PB", "EB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1000.0;
    let mut u = 0;
    while v >= 1000.0 && u + 1 < UNITS.len() {
        v /= 1000.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_budget_is_positive_when_known() {
        // No override is set by this test binary's other tests outside their own doctests.
        let b = budget();
        if b.source != LIMIT_SOURCE
            && let Some(bytes) = b.bytes
        {
            assert!(bytes > 0);
        }
    }

    #[test]
    fn overflow_is_an_error_not_a_wrap() {
        assert!(matches!(bytes_for::<f64>(&[1 << 32, 1 << 32], "x"), Err(CoreError::SizeOverflow { .. })));
        assert!(check_array::<u8>(&[usize::MAX, usize::MAX], "x", "").is_err());
    }

    #[test]
    fn address_space_limit_is_the_soft_limit_minus_the_mapped_size() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max stack size            8388608              unlimited            bytes     \n\
                      Max address space         2048000000           unlimited            bytes     \n";
        let status = "Name:\tkern\nVmPeak:\t  900000 kB\nVmSize:\t  500000 kB\n";
        assert_eq!(remaining_address_space(limits, status), Some(2_048_000_000 - 512_000_000));
        let unlimited = limits.replace("2048000000", "unlimited ");
        assert_eq!(remaining_address_space(&unlimited, status), None);
        let mapped_more = status.replace("500000", "3000000");
        assert_eq!(remaining_address_space(limits, &mapped_more), Some(0));
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size("2 k").unwrap(), 2048);
        for bad in ["", "G", "0", "nan", "inf", "-5", "1e40"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
