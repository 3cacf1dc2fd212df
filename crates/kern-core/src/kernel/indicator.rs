//! The indicator kernel of the railway paper (González & Muñoz 2008, eq. 3).

use super::{Definiteness, Kernel};
use crate::error::{CoreError, Result, positive};
use crate::samples::SampleRef;

/// The smooth indicator `λ(x)` of a ball with centre `c` and radius `r` (railway paper, eq. 3), and the
/// kernel `H(x, y) = λ(x) λ(y)` it induces:
///
/// `λ(x) = 1` if `‖x − c‖ ≤ r`, else `exp(−γ (‖x − c‖² − r²))`.
///
/// The extracted text of eq. 3 reads the condition as `‖x − c‖^{1/2} ≤ r`; that is a garbling (it would
/// make the two branches disagree at the boundary), so we use `‖x − c‖ ≤ r`, under which `λ` is
/// continuous. `H` is PSD (rank one), and products `H · K` with any PSD `K` are PSD.
///
/// ```
/// use kern_core::{Indicator, Kernel};
/// let h = Indicator::new(vec![0.0, 0.0], 1.0, 10.0)?;
/// assert_eq!(h.lambda(&[0.5, 0.5]), 1.0);
/// assert!(h.lambda(&[2.0, 0.0]) < 1e-12);
/// assert_eq!(h.eval(&[0.5, 0.0], &[0.0, 0.5]), 1.0);
/// assert!(h.check_dim(3).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Indicator {
    center: Vec<f64>,
    radius: f64,
    gamma: f64,
}

impl Indicator {
    /// Centre (finite, non-empty), radius `r > 0` and transition sharpness `γ > 0`.
    pub fn new(center: Vec<f64>, radius: f64, gamma: f64) -> Result<Self> {
        if center.is_empty() {
            return Err(CoreError::Empty("indicator centre"));
        }
        if let Some((j, &v)) = center.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(CoreError::NonFinite { row: 0, col: j, value: v });
        }
        Ok(Indicator { center, radius: positive("radius", radius)?, gamma: positive("gamma", gamma)? })
    }

    /// `λ(x)` of eq. 3.
    #[inline]
    pub fn lambda(&self, x: &[f64]) -> f64 {
        self.lambda_ref(SampleRef::Dense(x))
    }

    /// `λ(x)` of eq. 3 for a sample of either store.
    ///
    /// ```
    /// use kern_core::{Indicator, SampleRef};
    /// let k = Indicator::new(vec![0.0, 0.0, 3.0], 1.0, 2.0)?;
    /// let s = SampleRef::Sparse { indices: &[2], values: &[3.5] };
    /// assert_eq!(k.lambda_ref(s), k.lambda(&[0.0, 0.0, 3.5]));
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    #[inline]
    pub fn lambda_ref(&self, x: SampleRef<'_>) -> f64 {
        let d2 = x.sq_dist(SampleRef::Dense(&self.center));
        let r2 = self.radius * self.radius;
        if d2 <= r2 { 1.0 } else { (-self.gamma * (d2 - r2)).exp() }
    }

    /// The centre `c`.
    pub fn center(&self) -> &[f64] {
        &self.center
    }

    /// The radius `r`.
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// The sharpness `γ`.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }
}

impl Kernel for Indicator {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        self.lambda(x) * self.lambda(y)
    }
    #[inline]
    fn eval_ref(&self, x: SampleRef<'_>, y: SampleRef<'_>) -> f64 {
        self.lambda_ref(x) * self.lambda_ref(y)
    }
    fn definiteness(&self) -> Definiteness {
        Definiteness::PositiveDefinite
    }
    fn check_dim(&self, d: usize) -> Result<()> {
        if d != self.center.len() {
            return Err(CoreError::Dimension {
                what: "indicator centre",
                expected: d,
                found: self.center.len(),
            });
        }
        Ok(())
    }
}
