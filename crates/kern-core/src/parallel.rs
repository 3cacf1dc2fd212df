//! Parallelism in one place: faer's parallelism with a fixed degree, so dense algebra gives the same
//! bits at any thread count, the process's rayon pools, and the [`prelude`] (rayon's) every parallel
//! loop of this crate imports. `--threads 1` / `install(Some(1), ..)` runs everything on one thread.
//!
//! faer splits reductions (the matrix-vector products of the tridiagonal reduction of an
//! eigendecomposition, the blocks of a Cholesky factorization) into as many parts as its `Par` degree
//! says. `Par::rayon(0)` — faer's default — takes the degree from the current rayon pool, so the
//! last bits of an eigenvector changed with `--threads`. A fixed degree splits the work the same way
//! whatever the pool; rayon then runs the parts on however many threads it has (sequentially in a
//! one-thread pool).
//!
//! ```
//! use kern_core::parallel::prelude::*;
//! let squares: Vec<usize> = (0..5usize).into_par_iter().with_min_len(2).map(|i| i * i).collect();
//! assert_eq!(squares, [0, 1, 4, 9, 16]);
//! let p = kern_core::parallel::faer_par();
//! assert_eq!(p, faer::Par::rayon(kern_core::parallel::FAER_DEGREE));
//! ```

use faer::Par;

/// The fixed number of parts faer splits parallel work into.
///
/// ```
/// assert!(kern_core::parallel::FAER_DEGREE >= 1);
/// ```
pub const FAER_DEGREE: usize = 8;

/// The `Par` every explicit faer call should take (see the module documentation).
///
/// ```
/// use faer::{Mat, linalg::matmul::matmul, Accum};
/// let a = Mat::<f64>::identity(3, 3);
/// let mut c = Mat::<f64>::zeros(3, 3);
/// matmul(c.as_mut(), Accum::Replace, a.as_ref(), a.as_ref(), 1.0, kern_core::parallel::faer_par());
/// assert_eq!(c, a);
/// ```
pub fn faer_par() -> Par {
    Par::rayon(FAER_DEGREE)
}

/// Sets faer's global parallelism (used by its high-level methods such as `self_adjoint_eigen` and
/// `llt`, which take no `Par`) to [`faer_par`]. The `kern` command calls it at start-up.
///
/// ```
/// kern_core::parallel::fix_faer_global();
/// assert_eq!(faer::get_global_parallelism(), kern_core::parallel::faer_par());
/// ```
pub fn fix_faer_global() {
    faer::set_global_parallelism(faer_par());
}

/// The most threads [`install`] starts whatever is asked: four per processor this process may run
/// on ([`std::thread::available_parallelism`]), at least 4 and at most [`HARD_MAX_THREADS`].
///
/// Why: kern's parallel work is computation (kernel blocks, solver sweeps, dense algebra), which no
/// thread beyond one per processor speeds up; the margin of four covers a processor count that
/// under-reports (a container's quota) and lets a few threads wait on memory while others run. Every
/// further worker only costs: its start-up, its share of each parallel loop's splitting, and 2 MiB of
/// reserved stack — `--threads 10000` took 306 s on 60 points and, under `ulimit -v`, reserved 20 GB
/// of address space for stacks.
///
/// ```
/// let m = kern_core::parallel::max_threads();
/// assert!(m >= 4 && m <= kern_core::parallel::HARD_MAX_THREADS);
/// ```
pub fn max_threads() -> usize {
    cpus().saturating_mul(4).clamp(4, HARD_MAX_THREADS)
}

/// The processors this process may run on ([`std::thread::available_parallelism`], 1 when unknown),
/// read once per process: each reading costs tens of microseconds (the affinity mask and the cgroup's
/// CPU quota files), paid again by every fit that asked for it — more than a 100-point fit's own work.
///
/// ```
/// assert_eq!(kern_core::parallel::cpus(), kern_core::parallel::cpus());
/// assert!(kern_core::parallel::cpus() >= 1);
/// ```
pub fn cpus() -> usize {
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The ceiling of [`max_threads`] on any machine (a 256-processor host gets 1,024 threads at most).
///
/// ```
/// assert_eq!(kern_core::parallel::HARD_MAX_THREADS, 1024);
/// ```
pub const HARD_MAX_THREADS: usize = 1024;

/// The thread count [`install`] uses for a request, and whether the request was lowered: to
/// [`max_threads`], or to what an address-space limit leaves room for ([`address_space_threads`]);
/// the `kern` command and the Python package warn then.
///
/// ```
/// use kern_core::parallel::{ThreadCount, max_threads, thread_count};
/// if !kern_core::memory::address_space_limited() {
///     let one = ThreadCount { threads: 1, requested: 1, capped: false, address_space: None };
///     assert_eq!(thread_count(Some(1))?, one);
///     let t = thread_count(Some(1_000_000))?;
///     assert_eq!((t.threads, t.requested, t.capped), (max_threads(), 1_000_000, true));
/// }
/// assert!(thread_count(Some(0)).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadCount {
    /// The threads that will run.
    pub threads: usize,
    /// What was asked (`None` became [`default_threads`]).
    pub requested: usize,
    /// Whether `threads < requested`.
    pub capped: bool,
    /// When the address-space limit lowered the count: the bytes it left and the bytes each thread
    /// reserves ([`AddressSpaceThreads`]).
    pub address_space: Option<AddressSpaceThreads>,
}

impl ThreadCount {
    /// The warning to show when the request was capped (`None` otherwise), in plain words.
    ///
    /// ```
    /// use kern_core::parallel::{AddressSpaceThreads, ThreadCount};
    /// if !kern_core::memory::address_space_limited() {
    ///     let t = kern_core::parallel::thread_count(Some(1_000_000))?;
    ///     assert!(t.warning().unwrap().contains("1000000 threads requested"));
    /// }
    /// assert_eq!(kern_core::parallel::thread_count(Some(1))?.warning(), None);
    /// let space = AddressSpaceThreads { threads: 2, available: 400 << 20, per_thread: 130 << 20 };
    /// let t = ThreadCount { threads: 2, requested: 8, capped: true, address_space: Some(space) };
    /// assert!(t.warning().unwrap().contains("ulimit -v"));
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn warning(&self) -> Option<String> {
        if !self.capped {
            return None;
        }
        Some(match &self.address_space {
            Some(a) if a.threads == self.threads => format!(
                "{} threads requested, using {}: the address-space limit (ulimit -v) leaves {}, and \
                 each thread doing dense algebra reserves about {} (raise the limit for more threads)",
                self.requested,
                self.threads,
                crate::memory::human(a.available),
                crate::memory::human(a.per_thread)
            ),
            _ => format!(
                "{} threads requested, using {}: more threads than four per processor only slow kern down",
                self.requested, self.threads
            ),
        })
    }
}

/// The thread count for `threads` (`None`: [`default_threads`]), lowered to [`max_threads`] and,
/// under an address-space limit, to [`address_space_threads`].
///
/// # Errors
/// [`crate::CoreError::Param`] for `Some(0)`.
///
/// ```
/// use kern_core::parallel::{max_threads, thread_count};
/// let t = thread_count(Some(1))?;
/// assert_eq!((t.threads, t.requested, t.capped), (1, 1, false));
/// assert!(thread_count(None)?.threads <= max_threads());
/// assert!(thread_count(Some(0)).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn thread_count(threads: Option<usize>) -> crate::Result<ThreadCount> {
    if threads == Some(0) {
        return Err(crate::CoreError::Param { name: "threads", value: 0.0, reason: "must be at least 1" });
    }
    let requested = threads.unwrap_or_else(default_threads);
    let space = address_space_threads();
    let max = max_threads().min(space.map_or(usize::MAX, |a| a.threads));
    let address_space = space.filter(|a| a.threads < requested.min(max_threads()));
    Ok(ThreadCount { threads: requested.min(max), requested, capped: requested > max, address_space })
}

/// How many threads an address-space limit (`ulimit -v`, `RLIMIT_AS`) leaves room for.
///
/// ```
/// use kern_core::parallel::AddressSpaceThreads;
/// let a = AddressSpaceThreads::plan(1 << 30, 128 << 20);
/// assert_eq!(a.threads, 6); // three quarters of 1 GiB in 128 MiB parts
/// assert_eq!(AddressSpaceThreads::plan(10 << 20, 128 << 20).threads, 1); // never below one
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressSpaceThreads {
    /// The threads that fit.
    pub threads: usize,
    /// The address space left when the plan was made, in bytes.
    pub available: u64,
    /// The address space each worker thread reserves, in bytes ([`thread_reservation`]).
    pub per_thread: u64,
}

impl AddressSpaceThreads {
    /// The plan for `available` bytes and `per_thread` bytes a thread: as many threads as fit in
    /// three quarters of `available` (the rest is left for the data), at least one.
    pub fn plan(available: u64, per_thread: u64) -> Self {
        let usable = available / 4 * 3;
        let threads = usize::try_from(usable / per_thread.max(1)).unwrap_or(usize::MAX).max(1);
        AddressSpaceThreads { threads, available, per_thread }
    }
}

/// Under an address-space limit, the threads it leaves room for (`None` without a limit), planned
/// once per process on the first call (the `kern` command makes it at start-up, before it reads
/// data), so that every later call gets the same pool.
///
/// Why: faer's matrix product reserves, on every thread that calls it, packing buffers of twice the
/// processor's last-level cache, and aborts the process when that reservation fails; each thread
/// also gets a stack and, from the C allocator, a heap arena of its own. Under `ulimit -v` eight
/// threads of a 32 MiB-cache processor so reserved about 1 GB and aborted where two succeeded.
///
/// ```
/// if let Some(a) = kern_core::parallel::address_space_threads() {
///     assert!(a.threads >= 1 && a.per_thread > 0);
/// }
/// ```
pub fn address_space_threads() -> Option<AddressSpaceThreads> {
    static PLAN: std::sync::OnceLock<Option<AddressSpaceThreads>> = std::sync::OnceLock::new();
    *PLAN.get_or_init(|| {
        let available = crate::memory::address_space_remaining()?;
        Some(AddressSpaceThreads::plan(available, thread_reservation()))
    })
}

/// The address space one worker thread may reserve: faer's packing buffers (twice the largest
/// processor cache the system reports, 32 MiB when it reports none), a heap arena of the C
/// allocator (64 MiB) and a stack (2 MiB).
///
/// ```
/// assert!(kern_core::parallel::thread_reservation() >= 66 << 20);
/// ```
pub fn thread_reservation() -> u64 {
    const ARENA: u64 = 64 << 20;
    const STACK: u64 = 2 << 20;
    2 * largest_cache().unwrap_or(32 << 20) + ARENA + STACK
}

/// The largest cache of processor 0 in bytes, from `/sys/devices/system/cpu/cpu0/cache`.
fn largest_cache() -> Option<u64> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    dir.filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("size")).ok())
        .filter_map(|s| parse_cache_size(s.trim()))
        .max()
}

/// `32768K`, `2M` or `512` (bytes) as bytes.
fn parse_cache_size(s: &str) -> Option<u64> {
    let (num, unit) = match s.char_indices().last()? {
        (i, 'K') => (&s[..i], 1u64 << 10),
        (i, 'M') => (&s[..i], 1 << 20),
        (i, 'G') => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().ok()?.checked_mul(unit)
}

/// Runs `f` on a worker of a pool of `threads` threads (`None`: [`default_threads`]), and returns its
/// result. The pool of each thread count is built once per process and reused by every later call:
/// starting threads costs hundreds of microseconds, more than a small fit (a grid search calls this
/// for every fit). `f` runs *on* a worker, so the parallel loops inside it split their work with the
/// pool's other workers by stealing; a count above [`max_threads`] is lowered to it ([`thread_count`]
/// says so); called from outside any pool, each of those loops would instead
/// be handed to the pool while the caller sleeps, two wake-ups per loop (a C-SVC whose columns split
/// across threads took 1.4–2× the time of one thread so).
///
/// ```
/// let t = kern_core::parallel::install(Some(1), || rayon::current_num_threads())?;
/// assert_eq!(t, 1);
/// assert!(kern_core::parallel::install(Some(0), || ()).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn install<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> crate::Result<T> {
    let count = thread_count(threads)?;
    if rayon::current_thread_index().is_none() && global_is(count.threads) {
        // Rayon's global pool is this count's pool ([`claim_global`]): `scope` runs `f` on one of
        // its workers, as `install` does on a pool of its own.
        return Ok(rayon::scope(|_| f()));
    }
    Ok(pool(count.threads)?.install(f))
}

/// [`install`], or, when `here`, `f` on the calling thread: for work whose plan keeps it serial (a
/// prediction's serial kernel expansion, a small SVM machine), where handing it to a worker and
/// back costs two thread wake-ups and a fresh thread's cold heap, more than the work (in a fresh
/// `kern predict` process: 0.28–0.97 of the time, median, on the suite's small test sets).
/// `threads` is checked either way. Work that asks rayon anything on the calling thread (the pool's
/// size, a loop too short to split), as an SVM fit does, should run so only once the global pool
/// is claimed for `threads` ([`warm_up_global`]): rayon would otherwise start it then, with its own
/// count.
///
/// ```
/// use kern_core::parallel::install_unless_here;
/// assert_eq!(install_unless_here(Some(1), true, rayon::current_thread_index)?, None);
/// assert_eq!(install_unless_here(Some(1), false, rayon::current_thread_index)?, Some(0));
/// assert!(install_unless_here(Some(0), true, || ()).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn install_unless_here<T: Send>(
    threads: Option<usize>,
    here: bool,
    f: impl FnOnce() -> T + Send,
) -> crate::Result<T> {
    if here {
        thread_count(threads)?;
        return Ok(f());
    }
    install(threads, f)
}

/// Makes rayon's global pool one of `threads` threads (lowered as [`thread_count`] lowers a
/// request; 0 counts as 1), when nothing has built it yet in this process; the first claim
/// decides. [`install`] then runs work for that count on the global pool instead of a pool of its
/// own, so the process has one set of workers whether its work runs on them or, through
/// [`install_unless_here`], on the calling thread. `kern train` claims it at
/// start-up ([`warm_up_global`]); a program that builds the global pool itself keeps its own, and
/// kern's work keeps a pool per count beside it.
///
/// ```
/// kern_core::parallel::claim_global(2);
/// kern_core::parallel::claim_global(3); // the first claim decides
/// assert_eq!(kern_core::parallel::global_threads(), Some(2));
/// assert_eq!(kern_core::parallel::install(Some(2), rayon::current_num_threads)?, 2);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn claim_global(threads: usize) {
    let threads = thread_count(Some(threads.max(1))).map_or(1, |c| c.threads);
    GLOBAL.get_or_init(|| {
        let built = rayon::ThreadPoolBuilder::new().num_threads(threads).build_global();
        built.is_ok().then_some(threads)
    });
}

/// The threads of rayon's global pool when [`claim_global`] built it (`None`: not claimed, or built
/// by someone else).
///
/// ```
/// assert!(kern_core::parallel::global_threads().is_none_or(|t| t >= 1));
/// ```
pub fn global_threads() -> Option<usize> {
    GLOBAL.get().copied().flatten()
}

/// Whether rayon's global pool is the one [`claim_global`] built for `threads` (a count as
/// [`thread_count`] lowers it, and `None` for [`default_threads`]): work for that count then runs on
/// it, and a fit may run on the calling thread and ask rayon there ([`install_unless_here`]).
///
/// ```
/// kern_core::parallel::claim_global(2);
/// assert!(kern_core::parallel::global_claimed_for(Some(2)));
/// assert!(!kern_core::parallel::global_claimed_for(Some(1)));
/// assert!(!kern_core::parallel::global_claimed_for(Some(0))); // not a count
/// ```
pub fn global_claimed_for(threads: Option<usize>) -> bool {
    thread_count(threads).is_ok_and(|c| global_is(c.threads))
}

/// Whether the global pool was claimed for exactly `threads` (already a [`thread_count`]).
fn global_is(threads: usize) -> bool {
    global_threads() == Some(threads)
}

/// The outcome of the first [`claim_global`].
static GLOBAL: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();

/// Starts the threads [`install`] will run on for `threads` (`None`: the global pool) without waiting
/// for them, so that they come up while the caller does other work (reading its input): the first
/// parallel call then finds them running; and it calls [`prepare_dense`]. Errors are left to
/// [`install`]. For work that may run on the calling thread and ask rayon for its pool there, see
/// [`warm_up_global`].
///
/// ```
/// kern_core::parallel::warm_up(Some(2));
/// assert_eq!(kern_core::parallel::install(Some(2), || 1 + 1)?, 2);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn warm_up(threads: Option<usize>) {
    if let Ok(p) = pool(thread_count(threads.map(|t| t.max(1))).map_or(1, |c| c.threads)) {
        p.spawn(|| {});
    }
    prepare_dense();
}

/// Starts the threads [`install`] will run on for `threads` (`None`: [`default_threads`]) as rayon's
/// global pool ([`claim_global`]), waiting for them, and calls [`prepare_dense`]: for a run whose
/// work may run on the calling thread ([`install_unless_here`]) and ask rayon there, as a small SVM
/// fit does. The workers are then up and idle when the work comes, and the work shares the
/// processors with no thread still starting: started in the background ([`warm_up`]) and claimed
/// only when the fit asked, they made 100-sample fits in fresh `kern train` processes slower than
/// on the pool (decision 0047). Errors are left to [`install`].
///
/// ```
/// kern_core::parallel::warm_up_global(Some(2));
/// assert_eq!(kern_core::parallel::global_threads(), Some(2));
/// assert_eq!(kern_core::parallel::install_unless_here(Some(2), true, rayon::current_num_threads)?, 2);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn warm_up_global(threads: Option<usize>) {
    claim_global(threads.unwrap_or_else(default_threads));
    prepare_dense();
}

/// Makes the first call of faer's matrix product on a thread of its own, once per process, without
/// waiting for it: that call reads the processor's cache sizes from the operating system, a few
/// hundred microseconds that a small prediction would otherwise spend waiting. The `kern` command
/// calls it first thing; [`warm_up`] calls it too. (On a pool worker it would hold up the first job
/// of a one-thread pool.)
///
/// ```
/// kern_core::parallel::prepare_dense();
/// kern_core::parallel::prepare_dense(); // the second call does nothing
/// ```
pub fn prepare_dense() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // faer's first product on a thread reserves address space for its packing buffers
        // (twice the last-level cache), and the thread itself a stack and a heap arena; under
        // `ulimit -v` that could fail in the work's own threads because this one holds it, so
        // the warm-up is skipped there.
        if crate::memory::address_space_limited() {
            return;
        }
        let _ = std::thread::Builder::new().name("kern-warm-up".into()).spawn(first_product);
    });
}

/// One small matrix product, so that faer's one-time set-up (the cache sizes its blocking is planned
/// on, the processor's features) is done.
fn first_product() {
    let a = faer::Mat::<f64>::from_fn(32, 32, |i, j| (i + j) as f64);
    let mut c = faer::Mat::<f64>::zeros(32, 32);
    faer::linalg::matmul::matmul(c.as_mut(), faer::Accum::Replace, a.as_ref(), a.as_ref(), 1.0, Par::Seq);
    std::hint::black_box(&c);
}

/// The thread count of [`install`] when none is given: `RAYON_NUM_THREADS` when it is a positive
/// number (rayon's own convention), else the processors this process may run on.
///
/// ```
/// assert!(kern_core::parallel::default_threads() >= 1);
/// ```
pub fn default_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&t| t > 0)
        .unwrap_or_else(cpus)
}

/// The process's pool of `threads` threads, built on first use.
fn pool(threads: usize) -> crate::Result<std::sync::Arc<rayon::ThreadPool>> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = pools.get(&threads) {
        return Ok(p.clone());
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| crate::CoreError::Threads { threads, reason: e.to_string() })?;
    let p = Arc::new(p);
    pools.insert(threads, p.clone());
    Ok(p)
}

/// The parallel-iterator vocabulary of kern's loops: rayon's prelude.
///
/// ```
/// use kern_core::parallel::prelude::*;
/// let mut v = vec![0.0; 6];
/// v.par_chunks_mut(2).enumerate().for_each(|(i, c)| c.fill(i as f64));
/// assert_eq!(v, [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]);
/// let mut m = faer::Mat::<f64>::zeros(4, 3);
/// m.as_mut().par_col_chunks_mut(2).enumerate().for_each(|(b, mut cols)| cols.fill(b as f64));
/// assert_eq!(m[(3, 2)], 1.0);
/// ```
pub mod prelude {
    #[doc(no_inline)]
    pub use rayon::prelude::*;
}

#[cfg(test)]
mod tests {
    #[test]
    fn cache_sizes_parse() {
        assert_eq!(super::parse_cache_size("32768K"), Some(32 << 20));
        assert_eq!(super::parse_cache_size("2M"), Some(2 << 20));
        assert_eq!(super::parse_cache_size("512"), Some(512));
        assert_eq!(super::parse_cache_size("x"), None);
        assert_eq!(super::parse_cache_size(""), None);
    }
}
