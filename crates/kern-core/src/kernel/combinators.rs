//! Sums, products and positive scalings of kernels (closure properties of PD kernels, Cao 2016).

use super::{Definiteness, Kernel, Profile};
use crate::error::{Result, positive};

fn weaker(a: Definiteness, b: Definiteness) -> Definiteness {
    use Definiteness::*;
    match (a, b) {
        (Indefinite, _) | (_, Indefinite) => Indefinite,
        (Conditional, _) | (_, Conditional) => Conditional,
        _ => PositiveDefinite,
    }
}

fn same_profile(a: Profile, b: Profile) -> Profile {
    if a == b { a } else { Profile::General }
}

/// `k(x, y) = k₁(x, y) + k₂(x, y)`; PD when both are.
///
/// ```
/// use kern_core::{Sum, Linear, Gaussian, Kernel};
/// let k = Sum::new(Linear, Gaussian::with_beta(1.0)?);
/// assert_eq!(k.eval(&[1.0], &[1.0]), 2.0);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Sum<A, B> {
    /// First term.
    pub a: A,
    /// Second term.
    pub b: B,
}

impl<A: Kernel, B: Kernel> Sum<A, B> {
    /// The sum of two kernels.
    pub fn new(a: A, b: B) -> Self {
        Sum { a, b }
    }
}

impl<A: Kernel, B: Kernel> Kernel for Sum<A, B> {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        self.a.eval(x, y) + self.b.eval(x, y)
    }
    #[inline]
    fn eval_ref(&self, x: crate::SampleRef<'_>, y: crate::SampleRef<'_>) -> f64 {
        self.a.eval_ref(x, y) + self.b.eval_ref(x, y)
    }
    fn profile(&self) -> Profile {
        same_profile(self.a.profile(), self.b.profile())
    }
    #[inline]
    fn of_sq_dist(&self, r2: f64) -> f64 {
        self.a.of_sq_dist(r2) + self.b.of_sq_dist(r2)
    }
    #[inline]
    fn of_dot(&self, d: f64) -> f64 {
        self.a.of_dot(d) + self.b.of_dot(d)
    }
    fn support_radius(&self) -> Option<f64> {
        Some(self.a.support_radius()?.max(self.b.support_radius()?))
    }
    fn definiteness(&self) -> Definiteness {
        weaker(self.a.definiteness(), self.b.definiteness())
    }
    fn check_dim(&self, d: usize) -> Result<()> {
        self.a.check_dim(d)?;
        self.b.check_dim(d)
    }
    fn check_samples(&self, x: &crate::Samples) -> Result<()> {
        self.a.check_samples(x)?;
        self.b.check_samples(x)
    }
}

/// `k(x, y) = k₁(x, y) · k₂(x, y)`; PD when both are (Schur product theorem).
///
/// ```
/// use kern_core::{Product, Indicator, Linear, Kernel};
/// let k = Product::new(Indicator::new(vec![0.0], 1.0, 5.0)?, Linear);
/// assert_eq!(k.eval(&[0.5], &[0.5]), 0.25);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Product<A, B> {
    /// First factor.
    pub a: A,
    /// Second factor.
    pub b: B,
}

impl<A: Kernel, B: Kernel> Product<A, B> {
    /// The product of two kernels.
    pub fn new(a: A, b: B) -> Self {
        Product { a, b }
    }
}

impl<A: Kernel, B: Kernel> Kernel for Product<A, B> {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        self.a.eval(x, y) * self.b.eval(x, y)
    }
    #[inline]
    fn eval_ref(&self, x: crate::SampleRef<'_>, y: crate::SampleRef<'_>) -> f64 {
        self.a.eval_ref(x, y) * self.b.eval_ref(x, y)
    }
    fn profile(&self) -> Profile {
        same_profile(self.a.profile(), self.b.profile())
    }
    #[inline]
    fn of_sq_dist(&self, r2: f64) -> f64 {
        self.a.of_sq_dist(r2) * self.b.of_sq_dist(r2)
    }
    #[inline]
    fn of_dot(&self, d: f64) -> f64 {
        self.a.of_dot(d) * self.b.of_dot(d)
    }
    fn support_radius(&self) -> Option<f64> {
        match (self.a.support_radius(), self.b.support_radius()) {
            (Some(p), Some(q)) => Some(p.min(q)),
            (p, q) => p.or(q),
        }
    }
    fn definiteness(&self) -> Definiteness {
        weaker(self.a.definiteness(), self.b.definiteness())
    }
    fn check_dim(&self, d: usize) -> Result<()> {
        self.a.check_dim(d)?;
        self.b.check_dim(d)
    }
    fn check_samples(&self, x: &crate::Samples) -> Result<()> {
        self.a.check_samples(x)?;
        self.b.check_samples(x)
    }
}

/// `k(x, y) = s · k₀(x, y)` with `s > 0`.
///
/// ```
/// use kern_core::{Scaled, Linear, Kernel};
/// let k = Scaled::new(2.5, Linear)?;
/// assert_eq!(k.eval(&[2.0], &[1.0]), 5.0);
/// assert!(Scaled::new(-1.0, Linear).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Scaled<K> {
    factor: f64,
    /// The scaled kernel.
    pub kernel: K,
}

impl<K: Kernel> Scaled<K> {
    /// `factor` finite and > 0.
    pub fn new(factor: f64, kernel: K) -> Result<Self> {
        Ok(Scaled { factor: positive("scale", factor)?, kernel })
    }

    /// The factor `s`.
    pub fn factor(&self) -> f64 {
        self.factor
    }
}

impl<K: Kernel> Kernel for Scaled<K> {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        self.factor * self.kernel.eval(x, y)
    }
    #[inline]
    fn eval_ref(&self, x: crate::SampleRef<'_>, y: crate::SampleRef<'_>) -> f64 {
        self.factor * self.kernel.eval_ref(x, y)
    }
    fn profile(&self) -> Profile {
        self.kernel.profile()
    }
    #[inline]
    fn of_sq_dist(&self, r2: f64) -> f64 {
        self.factor * self.kernel.of_sq_dist(r2)
    }
    #[inline]
    fn of_dot(&self, d: f64) -> f64 {
        self.factor * self.kernel.of_dot(d)
    }
    fn apply_sq_dist(&self, r2: &mut [f64]) {
        self.kernel.apply_sq_dist(r2);
        for v in r2.iter_mut() {
            *v *= self.factor;
        }
    }
    fn support_radius(&self) -> Option<f64> {
        self.kernel.support_radius()
    }
    fn definiteness(&self) -> Definiteness {
        self.kernel.definiteness()
    }
    fn check_dim(&self, d: usize) -> Result<()> {
        self.kernel.check_dim(d)
    }
    fn check_samples(&self, x: &crate::Samples) -> Result<()> {
        self.kernel.check_samples(x)
    }
}
