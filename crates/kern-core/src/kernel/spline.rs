//! Vapnik's linear-spline kernel with infinitely many knots (Baudat–Anouar §5.5).

use super::{Definiteness, Kernel};
use crate::samples::SampleRef;

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
    /// The product over the coordinates where either sample is nonzero, without writing a sparse
    /// sample out densely (on sparse data of dimension 10⁹ that took gigabytes and forever per pair).
    ///
    /// Why skipping is exact: the value is `Π_j s(x_j, y_j)` with the scalar kernel `s` of
    /// [`LinearSpline::scalar`], and `s(0, 0) = 1 + 0·0 + 0·0·0 − ½(0 + 0)·0·0 + 0·0·0/3 = 1` exactly
    /// (`m = min(0, 0) = 0`, every term but the `1` has a zero factor, and IEEE arithmetic gives `+0`
    /// or `−0` for each, whose sum with 1 is 1). A coordinate where both samples are zero multiplies
    /// the product by exactly `1.0`, which in IEEE arithmetic changes no value (not even a NaN or an
    /// infinity), so the product over the union of the nonzero coordinates, taken in ascending
    /// coordinate order as the dense product is, equals the dense product bit for bit. A dense
    /// sample's coordinates are all visited (its length is the dimension); a sparse partner's entries
    /// beyond it meet a zero, as when both are written out to the longer length.
    ///
    /// ```
    /// use kern_core::{Kernel, LinearSpline, SampleRef};
    /// let s = SampleRef::Sparse { indices: &[2, 999_999_999], values: &[1.5, 2.0] };
    /// let t = SampleRef::Sparse { indices: &[2], values: &[0.5] };
    /// let want = LinearSpline::scalar(1.5, 0.5) * LinearSpline::scalar(2.0, 0.0);
    /// assert_eq!(LinearSpline.eval_ref(s, t), want);
    /// ```
    fn eval_ref(&self, x: SampleRef<'_>, y: SampleRef<'_>) -> f64 {
        match (x, y) {
            (SampleRef::Dense(a), SampleRef::Dense(b)) => self.eval(a, b),
            (SampleRef::Dense(a), SampleRef::Sparse { indices, values })
            | (SampleRef::Sparse { indices, values }, SampleRef::Dense(a)) => {
                let mut p = 1.0;
                let mut t = 0;
                for (j, &aj) in a.iter().enumerate() {
                    let bj = if indices.get(t) == Some(&j) {
                        t += 1;
                        values[t - 1]
                    } else {
                        0.0
                    };
                    p *= Self::scalar(aj, bj);
                }
                // Entries of the sparse sample beyond the dense one's length meet zeros.
                for &v in &values[t..] {
                    p *= Self::scalar(0.0, v);
                }
                p
            }
            (
                SampleRef::Sparse { indices: ia, values: va },
                SampleRef::Sparse { indices: ib, values: vb },
            ) => {
                let (mut s, mut t, mut p) = (0, 0, 1.0);
                while s < ia.len() || t < ib.len() {
                    let (u, v) = match (ia.get(s), ib.get(t)) {
                        (Some(&i), Some(&j)) if i == j => {
                            s += 1;
                            t += 1;
                            (va[s - 1], vb[t - 1])
                        }
                        (Some(&i), Some(&j)) if i < j => {
                            s += 1;
                            (va[s - 1], 0.0)
                        }
                        (Some(_), None) => {
                            s += 1;
                            (va[s - 1], 0.0)
                        }
                        _ => {
                            t += 1;
                            (0.0, vb[t - 1])
                        }
                    };
                    p *= Self::scalar(u, v);
                }
                p
            }
        }
    }
    fn definiteness(&self) -> Definiteness {
        Definiteness::Conditional
    }
}
