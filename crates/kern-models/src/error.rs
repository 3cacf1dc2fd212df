//! The error type of kern-models.

/// Everything that can go wrong when building, training, using or storing a model.
///
/// ```
/// let e = kern_models::ModelsError::Param { name: "c", value: -1.0, reason: "must be > 0" };
/// assert!(e.to_string().contains("c = -1"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelsError {
    /// Invalid data, targets or kernel (from kern-core).
    #[error(transparent)]
    Core(#[from] kern_core::CoreError),
    /// A failure of the sparse layer (sparse Gram, ordering, Cholesky: e.g. not positive definite).
    #[error(transparent)]
    Sparse(#[from] kern_sparse::SparseError),
    /// A failure of the selection layer (folds, bandwidth and support-radius choices).
    #[error(transparent)]
    Tune(#[from] kern_tune::TuneError),
    /// A hyperparameter outside its valid range.
    #[error("invalid parameter {name} = {value}: {reason}")]
    Param {
        /// Parameter name.
        name: &'static str,
        /// The rejected value.
        value: f64,
        /// The valid range.
        reason: &'static str,
    },
    /// Inputs that do not fit together (targets of the wrong kind, wrong dimension at prediction, ...).
    #[error("invalid input: {0}")]
    Input(String),
    /// A user-supplied kernel matrix or kernel rows (precomputed kernels) that cannot be used: not
    /// square, not finite, not symmetric, or too short for the model's support vectors.
    #[error("invalid kernel matrix: {0}")]
    KernelMatrix(String),
    /// A prediction output (decision value, prediction, probability or projection) that is not finite:
    /// the kernel or the model's coefficients overflow on these inputs.
    #[error(
        "the {what} of row {row} of the data (rows counted from 1) are not finite (infinite or NaN): the \
         kernel or the model's coefficients overflow on these inputs; scale the features (feature \
         scaling), or use a smaller degree, gamma or coefficient"
    )]
    NonFinite {
        /// What was computed: "decision values", "probabilities", "projections", ...
        what: &'static str,
        /// The first offending row of the input, counted from 1.
        row: usize,
    },
    /// A numerical failure (matrix not positive definite, no convergence, ...).
    #[error("numerical failure: {0}")]
    Numerical(String),
    /// A model file that is not a valid kern model (truncated, foreign, corrupted, wrong kind).
    #[error("{path}: not a valid kern model file: {reason}")]
    Format {
        /// The file (or `<bytes>` for in-memory data).
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// Another part (process) of a computation spread over parts failed at the same step; that part
    /// returns its own error and every other part this one, so that all stop together instead of
    /// waiting for the failed part in the next collective.
    #[error("another part of the spread computation failed in {0}; that part reports why")]
    OtherPart(String),
    /// An I/O error with the path it concerns.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Result alias of kern-models.
///
/// ```
/// fn c_of(lambda: f64) -> kern_models::Result<f64> {
///     kern_models::svm::Regularization::Lambda(lambda).checked_c_for(10)
/// }
/// assert_eq!(c_of(0.05)?, 1.0);
/// assert!(matches!(c_of(0.0), Err(kern_models::ModelsError::Param { .. })));
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub type Result<T, E = ModelsError> = std::result::Result<T, E>;
