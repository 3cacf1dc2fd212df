//! faer's parallelism with a fixed degree, so dense algebra gives the same bits at any thread count.
//!
//! faer splits reductions (the matrix-vector products of the tridiagonal reduction of an
//! eigendecomposition, the blocks of a Cholesky factorization) into as many parts as its `Par` degree
//! says. `Par::rayon(0)` — faer's default — takes the degree from the current rayon pool, so the
//! last bits of an eigenvector changed with `--threads`. A fixed degree splits the work the same way
//! whatever the pool; rayon then runs the parts on however many threads it has (sequentially in a
//! one-thread pool).
//!
//! ```
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
