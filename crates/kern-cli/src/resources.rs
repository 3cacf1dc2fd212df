//! The resources of a run: its worker threads and the memory checks made before a dense kernel
//! matrix is allocated.

use kern_cli::CliError;

/// Runs `f` on a rayon pool of `threads` threads (all cores when `None`).
pub fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T, CliError> {
    with_threads_unless_here(threads, false, f)
}

/// [`with_threads`], or `f` on this thread when `here` (a plan that keeps the work serial:
/// `kern_core::parallel::install_unless_here`).
pub fn with_threads_unless_here<T: Send>(
    threads: Option<usize>,
    here: bool,
    f: impl FnOnce() -> T + Send,
) -> Result<T, CliError> {
    if threads == Some(0) {
        return Err("--threads must be at least 1".into());
    }
    // More threads than the documented maximum are capped (kern_core::parallel::max_threads), with a
    // warning.
    if let Some(w) = kern_core::parallel::thread_count(threads)?.warning() {
        eprintln!("kern: warning: {w}");
    }
    Ok(kern_core::parallel::install_unless_here(threads, here, f)?)
}

/// Refuses `copies` dense `n x n` matrices of f64 that do not fit in memory.
pub fn check_dense(n: usize, copies: usize, what: &str, instead: &str) -> Result<(), CliError> {
    let bytes = kern_core::memory::bytes_for::<f64>(&[n, n, copies], what)?;
    Ok(kern_core::memory::check_bytes(bytes, what, instead)?)
}

/// What to do instead of a dense kernel matrix that does not fit.
pub const DENSE_INSTEAD: &str = "use a compactly supported kernel (cs-gaussian:...) with --path sparse, \
     a sample of the data, or raise --max-memory";
