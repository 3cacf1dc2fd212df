//! The [`Kernel`] trait and the built-in kernel functions.
//!
//! Every kernel documents its formula and the paper it comes from. Radial kernels expose their value as a
//! function of the squared distance ([`Profile::SqDist`]) and dot-product kernels as a function of the
//! inner product ([`Profile::Dot`]); both let dense Gram matrices go through one GEMM
//! (see [`crate::gram()`]), and radial kernels can be wrapped by [`CompactlySupported`].
//!
//! ```
//! use kern_core::{Gaussian, Kernel, KernelSpec, Linear, Profile, Sum};
//! let k = Gaussian::with_sigma(2.0)?; // exp(−‖x − y‖²/σ²)
//! let (x, y) = ([0.0, 0.0], [2.0, 0.0]);
//! assert_eq!(k.profile(), Profile::SqDist);
//! assert!((k.eval(&x, &y) - (-1.0f64).exp()).abs() < 1e-15);
//! assert_eq!(k.eval(&x, &y), k.eval(&y, &x));
//! let spec: KernelSpec = "gaussian:sigma=2".parse()?; // the same kernel by name
//! assert_eq!(spec.eval(&x, &y), k.eval(&x, &y));
//! assert!((Sum::new(Linear, k).eval(&y, &y) - 5.0).abs() < 1e-15); // 4 + 1
//! # Ok::<(), kern_core::CoreError>(())
//! ```

mod combinators;
mod compact;
mod dot_product;
mod fast_exp;
mod indicator;
mod pairwise;
pub(crate) mod radial;
mod spline;

pub use combinators::{Product, Scaled, Sum};
pub use compact::CompactlySupported;
pub use dot_product::{Linear, Polynomial, Sigmoid};
pub use fast_exp::{exp_fast, exp_scaled};
pub use indicator::Indicator;
pub use pairwise::{Chi2, Cosine, LaplacianL1};
pub use radial::{Gaussian, GaussianParam, Laplacian, LogKernel};
pub use spline::LinearSpline;

use crate::error::Result;
use crate::samples::{SampleRef, Samples};

/// How a kernel value depends on its two arguments.
///
/// ```
/// use kern_core::{Kernel, Profile, Gaussian, Linear};
/// assert_eq!(Gaussian::with_sigma(1.0)?.profile(), Profile::SqDist);
/// assert_eq!(Linear.profile(), Profile::Dot);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// `k(x, y) = f(‖x − y‖²)`: [`Kernel::of_sq_dist`] is meaningful.
    SqDist,
    /// `k(x, y) = f(⟨x, y⟩)`: [`Kernel::of_dot`] is meaningful.
    Dot,
    /// Anything else: only [`Kernel::eval`].
    General,
}

/// What is known of a kernel's definiteness; [`Definiteness::PositiveDefinite`] kernels give PSD Gram
/// matrices on any data.
///
/// ```
/// use kern_core::{Kernel, Definiteness, Sigmoid};
/// assert_eq!(Sigmoid::new(1.0, 0.0)?.definiteness(), Definiteness::Indefinite);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Definiteness {
    /// Positive semi-definite on any data.
    PositiveDefinite,
    /// Positive semi-definite only on a subset of inputs or for some parameters (documented per kernel).
    Conditional,
    /// Not positive semi-definite in general.
    Indefinite,
}

/// A kernel function `k(x, y)` on `ℝᵈ`.
///
/// Generic code over `K: Kernel` is monomorphized; [`crate::KernelSpec`] is the serde/command-line enum of
/// the built-in kernels. `eval` must be symmetric and is called with slices of equal length (callers
/// check dimensions once with [`Kernel::check_dim`]).
///
/// ```
/// use kern_core::{Kernel, Gaussian};
/// let k = Gaussian::with_beta(0.5)?;
/// assert!((k.eval(&[0.0, 0.0], &[1.0, 1.0]) - (-1.0f64).exp()).abs() < 1e-15);
/// assert_eq!(k.of_sq_dist(2.0), k.eval(&[0.0, 0.0], &[1.0, 1.0]));
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub trait Kernel: Send + Sync + std::fmt::Debug {
    /// The kernel value `k(x, y)`.
    fn eval(&self, x: &[f64], y: &[f64]) -> f64;

    /// The kernel value on samples of either store ([`SampleRef`]): dense × dense is
    /// [`Kernel::eval`] itself; any pairing with a sparse sample goes through the squared distance
    /// ([`Profile::SqDist`]) or the inner product ([`Profile::Dot`]) of [`SampleRef`]. A
    /// [`Profile::General`] kernel gets both samples written out densely, as long as the largest
    /// nonzero index (or the dense partner's length) — kernels whose value depends on trailing zero
    /// coordinates override this (the [`Indicator`] does).
    ///
    /// ```
    /// use kern_core::{Gaussian, Kernel, SampleRef};
    /// let k = Gaussian::with_beta(1.0)?;
    /// let s = SampleRef::Sparse { indices: &[1], values: &[1.0] };
    /// let d = SampleRef::Dense(&[0.0, 1.0, 1.0]);
    /// assert_eq!(k.eval_ref(s, d), k.eval(&[0.0, 1.0, 0.0], &[0.0, 1.0, 1.0]));
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    fn eval_ref(&self, x: SampleRef<'_>, y: SampleRef<'_>) -> f64 {
        if let (SampleRef::Dense(a), SampleRef::Dense(b)) = (x, y) {
            return self.eval(a, b);
        }
        match self.profile() {
            Profile::SqDist => self.of_sq_dist(x.sq_dist(y)),
            Profile::Dot => self.of_dot(x.dot(y)),
            Profile::General => {
                let len = |s: SampleRef<'_>| match s {
                    SampleRef::Dense(v) => v.len(),
                    SampleRef::Sparse { indices, .. } => indices.last().map_or(0, |&k| k + 1),
                };
                let d = len(x).max(len(y));
                let (mut a, mut b) = (vec![0.0; d], vec![0.0; d]);
                x.write_dense(&mut a[..len(x)]);
                y.write_dense(&mut b[..len(y)]);
                self.eval(&a, &b)
            }
        }
    }

    /// How the value depends on the arguments (default [`Profile::General`]).
    fn profile(&self) -> Profile {
        Profile::General
    }

    /// The value as a function of the squared distance `r²`; meaningful only when
    /// `profile() == Profile::SqDist` (NaN otherwise).
    fn of_sq_dist(&self, r2: f64) -> f64 {
        let _ = r2;
        f64::NAN
    }

    /// Replaces every squared distance in `r2` by the kernel value [`Kernel::of_sq_dist`]; kernels
    /// override it with a vectorized form (the Gaussian does). Meaningful only for
    /// [`Profile::SqDist`].
    fn apply_sq_dist(&self, r2: &mut [f64]) {
        for v in r2.iter_mut() {
            *v = self.of_sq_dist(*v);
        }
    }

    /// True when [`Kernel::apply_sq_dist`] is a vectorized form so cheap that a kernel column in low
    /// dimension costs less to recompute than to keep in a cache (the Gaussian's exp on SIMD lanes):
    /// kern-sparse's column source then takes its feature-major sweep. Default `false`.
    ///
    /// ```
    /// use kern_core::{Gaussian, Kernel, Laplacian};
    /// assert!(Gaussian::with_sigma(1.0)?.fast_sq_dist());
    /// assert!(!Laplacian::new(1.0)?.fast_sq_dist());
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    fn fast_sq_dist(&self) -> bool {
        false
    }

    /// The value as a function of the inner product; meaningful only when `profile() == Profile::Dot`
    /// (NaN otherwise).
    fn of_dot(&self, dot: f64) -> f64 {
        let _ = dot;
        f64::NAN
    }

    /// The support radius `C`: `k(x, y) = 0` whenever `‖x − y‖ ≥ C`. `None` for globally supported
    /// kernels. A `Some` turns on the sparse paths of kern-sparse.
    fn support_radius(&self) -> Option<f64> {
        None
    }

    /// What is known of the kernel's definiteness.
    fn definiteness(&self) -> Definiteness {
        Definiteness::PositiveDefinite
    }

    /// Checks that the kernel can be used on data of dimension `d` (for example the
    /// `ν ≥ (d+1)/2` condition of [`CompactlySupported`], or the centre dimension of [`Indicator`]).
    fn check_dim(&self, d: usize) -> Result<()> {
        let _ = d;
        Ok(())
    }

    /// Checks that the kernel can be evaluated on the samples `x`: [`Kernel::check_dim`] of their
    /// dimension, and, for kernels defined on part of `ℝᵈ` only, their values (the [`Chi2`] kernel
    /// refuses negative features). Every Gram matrix and kernel expansion kern forms calls it on its
    /// samples, once.
    ///
    /// ```
    /// use kern_core::{Chi2, Gaussian, Kernel, Samples};
    /// let x = Samples::from_rows(&[[1.0, -2.0]])?;
    /// assert!(Gaussian::with_beta(1.0)?.check_samples(&x).is_ok());
    /// assert!(Chi2::new(1.0)?.check_samples(&x).is_err());
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    fn check_samples(&self, x: &Samples) -> Result<()> {
        self.check_dim(x.d())
    }
}

impl<K: Kernel + ?Sized> Kernel for &K {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        (**self).eval(x, y)
    }
    #[inline]
    fn eval_ref(&self, x: SampleRef<'_>, y: SampleRef<'_>) -> f64 {
        (**self).eval_ref(x, y)
    }
    #[inline]
    fn profile(&self) -> Profile {
        (**self).profile()
    }
    #[inline]
    fn of_sq_dist(&self, r2: f64) -> f64 {
        (**self).of_sq_dist(r2)
    }
    #[inline]
    fn of_dot(&self, dot: f64) -> f64 {
        (**self).of_dot(dot)
    }
    fn apply_sq_dist(&self, r2: &mut [f64]) {
        (**self).apply_sq_dist(r2)
    }
    fn fast_sq_dist(&self) -> bool {
        (**self).fast_sq_dist()
    }
    fn support_radius(&self) -> Option<f64> {
        (**self).support_radius()
    }
    fn definiteness(&self) -> Definiteness {
        (**self).definiteness()
    }
    fn check_dim(&self, d: usize) -> Result<()> {
        (**self).check_dim(d)
    }
    fn check_samples(&self, x: &Samples) -> Result<()> {
        (**self).check_samples(x)
    }
}
