//! The error type of kern-repro.

/// Errors of an experiment run (claims that do not hold are findings, not errors).
///
/// ```
/// let e = kern_repro::ReproError::Other("x".into());
/// assert_eq!(e.to_string(), "x");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReproError {
    /// From kern-core.
    #[error(transparent)]
    Core(#[from] kern_core::CoreError),
    /// From kern-sparse.
    #[error(transparent)]
    Sparse(#[from] kern_sparse::SparseError),
    /// From kern-tune.
    #[error(transparent)]
    Tune(#[from] kern_tune::TuneError),
    /// From kern-models.
    #[error(transparent)]
    Models(#[from] kern_models::ModelsError),
    /// Writing results.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Drawing a figure.
    #[error("figure {0}")]
    Figure(String),
    /// Anything else, described.
    #[error("{0}")]
    Other(String),
}

/// Result alias of kern-repro.
///
/// ```
/// use kern_repro::{ReproError, Result};
/// fn seed(s: &str) -> Result<u64> {
///     s.parse().map_err(|_| ReproError::Other(format!("not a seed: {s}")))
/// }
/// assert_eq!(seed("42")?, 42);
/// assert_eq!(seed("x").unwrap_err().to_string(), "not a seed: x");
/// # Ok::<(), ReproError>(())
/// ```
pub type Result<T, E = ReproError> = std::result::Result<T, E>;

impl ReproError {
    /// Wraps an I/O error with its path.
    pub fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        ReproError::Io { path: path.display().to_string(), source }
    }
}
