//! faer's factorization errors in words: faer's own `Display` prints its `Debug` form
//! (`NonPositivePivot { index: 3 }`), which is not for users.
//!
//! ```
//! use faer::linalg::cholesky::llt::factor::LltError;
//! let e = LltError::NonPositivePivot { index: 3 };
//! assert_eq!(kern_core::faer_errors::llt(e), "not numerically positive definite (pivot 4 is not positive)");
//! ```

use faer::linalg::cholesky::llt::factor::LltError;
use faer::linalg::evd::EvdError;
use faer::sparse::FaerError;

/// A failed Cholesky (LLᵀ) factorization: the matrix is not numerically positive definite. The pivot
/// is counted from 1.
///
/// ```
/// use faer::linalg::cholesky::llt::factor::LltError;
/// let a = faer::mat![[1.0, 2.0], [2.0, 1.0]]; // eigenvalues 3 and −1
/// let e = a.as_ref().llt(faer::Side::Lower).unwrap_err();
/// assert_eq!(kern_core::faer_errors::llt(e), "not numerically positive definite (pivot 2 is not positive)");
/// ```
pub fn llt(e: LltError) -> String {
    let LltError::NonPositivePivot { index } = e;
    format!("not numerically positive definite (pivot {} is not positive)", index + 1)
}

/// A failed symmetric eigendecomposition.
///
/// ```
/// assert_eq!(kern_core::faer_errors::evd(faer::linalg::evd::EvdError::NoConvergence), "the eigenvalue iteration did not converge");
/// ```
pub fn evd(e: EvdError) -> &'static str {
    match e {
        EvdError::NoConvergence => "the eigenvalue iteration did not converge",
    }
}

/// A failed sparse-matrix operation (allocation or index range).
///
/// ```
/// assert_eq!(kern_core::faer_errors::sparse(faer::sparse::FaerError::OutOfMemory), "out of memory");
/// ```
pub fn sparse(e: FaerError) -> &'static str {
    match e {
        FaerError::IndexOverflow => "the matrix has more entries than its index type can count",
        FaerError::OutOfMemory => "out of memory",
        _ => "the sparse-matrix operation failed",
    }
}
