//! The error type of kern-sparse.

use kern_core::CoreError;

/// Everything that can go wrong in kern-sparse.
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_sparse::{SparseError, sparse_gram};
/// let x = Samples::from_rows(&[[0.0], [1.0]])?;
/// let err = sparse_gram(&Gaussian::with_sigma(1.0)?, &x).unwrap_err();
/// assert!(matches!(err, SparseError::NoCompactSupport));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SparseError {
    /// An error of kern-core (invalid samples, kernel/dimension mismatch, ...).
    #[error(transparent)]
    Core(#[from] CoreError),
    /// The kernel has no compact support, so its Gram matrix is not sparse.
    #[error(
        "the kernel has no compact support, so its kernel matrix is not sparse; use a compactly \
         supported kernel (e.g. cs-gaussian:sigma=0.6,c=2,nu=3) or the dense path"
    )]
    NoCompactSupport,
    /// A parameter outside its valid range.
    #[error("invalid parameter {name} = {value}: {reason}")]
    Param {
        /// Parameter name.
        name: &'static str,
        /// The rejected value.
        value: f64,
        /// What the valid range is.
        reason: &'static str,
    },
    /// Two inputs whose sizes must agree do not.
    #[error("dimension mismatch: {what} has size {found}, expected {expected}")]
    Dimension {
        /// What was compared.
        what: &'static str,
        /// Expected size.
        expected: usize,
        /// Found size.
        found: usize,
    },
    /// A matrix that must be square / structurally symmetric / have its diagonal is not.
    #[error("invalid matrix: {0}")]
    Matrix(String),
    /// The Cholesky factorization met a non-positive pivot: the matrix (with its shift) is not
    /// numerically positive definite.
    #[error(
        "matrix is not positive definite: the Cholesky factorization of A + {shift:e} I met a non-positive \
         pivot at row/column {pivot} (original numbering; {step} in elimination order){}",
        match .pivot_value { Some(v) => format!(", pivot value {v:e}"), None => String::new() }
    )]
    NotPositiveDefinite {
        /// Index of the failing pivot in the caller's (original) numbering.
        pivot: usize,
        /// Elimination step at which the factorization failed.
        step: usize,
        /// The diagonal shift that was added (`1/λ` for LS-SVM).
        shift: f64,
        /// The value of the failing pivot (the Schur complement diagonal), when known.
        pivot_value: Option<f64>,
    },
    /// An allocation or index-overflow failure inside faer.
    #[error("linear algebra failure: {0}")]
    Faer(String),
}

/// Result alias of kern-sparse.
///
/// ```
/// use kern_sparse::{CholeskyPlan, Result};
/// fn log_det(a: faer::Mat<f64>) -> Result<f64> {
///     Ok(CholeskyPlan::dense(a)?.factor(0.0)?.log_det())
/// }
/// assert!((log_det(faer::mat![[2.0, 0.0], [0.0, 3.0]])? - 6f64.ln()).abs() < 1e-15);
/// assert!(log_det(faer::mat![[1.0, 2.0], [2.0, 1.0]]).is_err()); // not positive definite
/// assert!(log_det(faer::Mat::zeros(2, 3)).is_err());                 // not square
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
pub type Result<T, E = SparseError> = std::result::Result<T, E>;

/// Checks that a parameter is finite and strictly positive.
pub(crate) fn positive(name: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(SparseError::Param { name, value, reason: "must be finite and > 0" })
    }
}
