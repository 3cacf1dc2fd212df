//! Dot-product kernels: linear, polynomial and sigmoid.

use super::{Definiteness, Kernel, Profile};
use crate::error::{CoreError, Result, finite, positive};
use crate::samples::dot;

/// The linear kernel `k(x, y) = ⟨x, y⟩`.
///
/// ```
/// use kern_core::{Linear, Kernel};
/// assert_eq!(Linear.eval(&[1.0, 2.0], &[3.0, 4.0]), 11.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Linear;

impl Kernel for Linear {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        dot(x, y)
    }
    fn profile(&self) -> Profile {
        Profile::Dot
    }
    #[inline]
    fn of_dot(&self, d: f64) -> f64 {
        d
    }
}

/// The polynomial kernel `k(x, y) = (a⟨x, y⟩ + c)^p` with scale `a > 0` (LIBSVM's `gamma`, default 1),
/// offset `c` and integer degree `p ≥ 1` (Cao 2016; Baudat–Anouar §5.1 uses `p = 2`, `c = 0`).
/// Positive definite when `c ≥ 0`.
///
/// ```
/// use kern_core::{Polynomial, Kernel};
/// let k = Polynomial::new(2, 1.0)?;
/// assert_eq!(k.eval(&[1.0, 2.0], &[3.0, 4.0]), 144.0);
/// assert!(Polynomial::new(0, 1.0).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Polynomial {
    degree: u32,
    coef0: f64,
    scale: f64,
}

impl Polynomial {
    /// `(⟨x, y⟩ + coef0)^degree`; `degree ≥ 1`, `coef0` finite.
    pub fn new(degree: u32, coef0: f64) -> Result<Self> {
        Self::with_scale(degree, coef0, 1.0)
    }

    /// `(scale·⟨x, y⟩ + coef0)^degree`; `scale > 0`.
    pub fn with_scale(degree: u32, coef0: f64, scale: f64) -> Result<Self> {
        if degree == 0 {
            return Err(CoreError::Param { name: "degree", value: 0.0, reason: "must be >= 1" });
        }
        Ok(Polynomial { degree, coef0: finite("coef0", coef0)?, scale: positive("scale", scale)? })
    }

    /// The degree `p`.
    pub fn degree(&self) -> u32 {
        self.degree
    }

    /// The offset `c`.
    pub fn coef0(&self) -> f64 {
        self.coef0
    }

    /// The scale `a`.
    pub fn scale(&self) -> f64 {
        self.scale
    }
}

impl Kernel for Polynomial {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        self.of_dot(dot(x, y))
    }
    fn profile(&self) -> Profile {
        Profile::Dot
    }
    #[inline]
    fn of_dot(&self, d: f64) -> f64 {
        (self.scale * d + self.coef0).powi(self.degree as i32)
    }
    fn definiteness(&self) -> Definiteness {
        if self.coef0 >= 0.0 { Definiteness::PositiveDefinite } else { Definiteness::Indefinite }
    }
}

/// The sigmoid kernel `k(x, y) = tanh(a⟨x, y⟩ + b)`.
///
/// **Not positive semi-definite in general** (Cao 2016): for most `(a, b)` its Gram matrices have
/// negative eigenvalues, so solvers treat it as indefinite (SMO still terminates thanks to its
/// curvature guard).
///
/// ```
/// use kern_core::{Sigmoid, Kernel};
/// let k = Sigmoid::new(1.0, 0.0)?;
/// assert!((k.eval(&[1.0], &[0.5]) - 0.5f64.tanh()).abs() < 1e-15);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sigmoid {
    a: f64,
    b: f64,
}

impl Sigmoid {
    /// `a` finite and > 0, `b` finite.
    pub fn new(a: f64, b: f64) -> Result<Self> {
        Ok(Sigmoid { a: positive("a", a)?, b: finite("b", b)? })
    }

    /// The slope `a`.
    pub fn a(&self) -> f64 {
        self.a
    }

    /// The offset `b`.
    pub fn b(&self) -> f64 {
        self.b
    }
}

impl Kernel for Sigmoid {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        self.of_dot(dot(x, y))
    }
    fn profile(&self) -> Profile {
        Profile::Dot
    }
    #[inline]
    fn of_dot(&self, d: f64) -> f64 {
        (self.a * d + self.b).tanh()
    }
    fn definiteness(&self) -> Definiteness {
        Definiteness::Indefinite
    }
}
