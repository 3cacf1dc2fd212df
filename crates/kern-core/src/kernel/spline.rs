//! Vapnik's linear-spline kernel with infinitely many knots (Baudat–Anouar §5.5).

use super::{Definiteness, Kernel};

/// The linear-spline kernel of Baudat & Anouar §5.5 (after Vapnik), for scalars
///
/// `k(x, y) = 1 + xy + xy·m − (x + y)/2 · m² + m³/3`, with `m = min(x, y)`,
///
/// and the product of that over the coordinates when `d > 1`. It equals
/// `1 + xy + ∫₀^∞ (x − t)₊ (y − t)₊ dt` and is therefore positive definite **on non-negative inputs**;
/// shift the data into `[0, ∞)ᵈ` first (the sinc experiment maps `[−10, 10]` to `[0, 20]`).
///
/// ```
/// use kern_core::{LinearSpline, Kernel};
/// let k = LinearSpline;
/// // x = 1, y = 2: 1 + 2 + 2 - 1.5 + 1/3
/// assert!((k.eval(&[1.0], &[2.0]) - (3.5 + 1.0 / 3.0)).abs() < 1e-15);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinearSpline;

impl LinearSpline {
    /// The one-dimensional spline kernel.
    #[inline]
    pub fn scalar(x: f64, y: f64) -> f64 {
        let m = x.min(y);
        1.0 + x * y + x * y * m - 0.5 * (x + y) * m * m + m * m * m / 3.0
    }
}

impl Kernel for LinearSpline {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        x.iter().zip(y).map(|(&a, &b)| Self::scalar(a, b)).product()
    }
    fn definiteness(&self) -> Definiteness {
        Definiteness::Conditional
    }
}
