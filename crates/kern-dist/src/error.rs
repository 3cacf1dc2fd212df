//! The crate's error type.

use std::path::PathBuf;

/// Errors of kern-dist.
///
/// ```
/// let e = kern_dist::DistError::RankFailed { rank: 1, message: "data.svm:7: bad".into() };
/// assert_eq!(e.to_string(), "rank 1 failed: data.svm:7: bad");
/// ```
#[derive(Debug, thiserror::Error)]
pub enum DistError {
    /// Data and samples (kern-core).
    #[error(transparent)]
    Core(#[from] kern_core::CoreError),
    /// Model training, prediction or a model file (kern-models).
    #[error(transparent)]
    Models(#[from] kern_models::ModelsError),
    /// Sparse kernel matrices and their solvers (kern-sparse).
    #[error(transparent)]
    Sparse(#[from] kern_models::kern_sparse::SparseError),
    /// Cross-validation and grids (kern-tune).
    #[error(transparent)]
    Tune(#[from] kern_tune::TuneError),
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// One rank failed; every rank returns this same error (agreed through a collective), so that no
    /// rank waits for a failed one.
    #[error("rank {rank} failed: {message}")]
    RankFailed {
        /// The lowest-numbered rank that failed.
        rank: usize,
        /// Its error message.
        message: String,
    },
    /// A request that cannot be served (wrong option, unsupported input).
    #[error("{0}")]
    Invalid(String),
    /// A message between ranks that does not decode (a fault of this crate, reported, not a panic).
    #[error("malformed message between ranks: {0}")]
    Message(String),
}

/// Result with [`DistError`].
///
/// ```
/// use kern_dist::{DistError, Result};
/// fn ranks(s: &str) -> Result<usize> {
///     s.parse().map_err(|_| DistError::Invalid(format!("not a rank count: {s}")))
/// }
/// assert_eq!(ranks("4")?, 4);
/// assert_eq!(ranks("four").unwrap_err().to_string(), "not a rank count: four");
/// # Ok::<(), DistError>(())
/// ```
pub type Result<T, E = DistError> = std::result::Result<T, E>;
