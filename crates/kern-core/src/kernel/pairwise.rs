//! Three kernels of scikit-learn's pairwise module (`sklearn.metrics.pairwise`, "Pairwise metrics,
//! Affinities and Kernels" in its user guide), with its formulas and conventions: the L1 Laplacian
//! `laplacian_kernel`, the exponential chi² `chi2_kernel` and `cosine_similarity`.

use super::{Definiteness, Kernel, Profile};
use crate::error::{CoreError, Result, positive};
use crate::samples::{SampleRef, Samples, dot};

/// scikit-learn's Laplacian kernel `k(x, y) = exp(−γ ‖x − y‖₁)`, on the L1 (Manhattan) distance
/// (`sklearn.metrics.pairwise.laplacian_kernel`). Positive definite on any `ℝᵈ`: a product over the
/// coordinates of one-dimensional Laplacian kernels.
///
/// Not kern's [`super::Laplacian`], which is `exp(−‖x − y‖₂/σ)` on the Euclidean distance; spec
/// `laplacian-l1:gamma=…`.
///
/// ```
/// use kern_core::{Kernel, LaplacianL1};
/// let k = LaplacianL1::new(0.5)?;
/// // ‖(0, 0) − (3, −4)‖₁ = 7
/// assert!((k.eval(&[0.0, 0.0], &[3.0, -4.0]) - (-3.5f64).exp()).abs() < 1e-15);
/// assert!(LaplacianL1::new(0.0).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaplacianL1 {
    gamma: f64,
}

impl LaplacianL1 {
    /// `γ` finite and > 0.
    pub fn new(gamma: f64) -> Result<Self> {
        Ok(LaplacianL1 { gamma: positive("gamma", gamma)? })
    }

    /// The rate `γ`.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }
}

impl Kernel for LaplacianL1 {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        let l1: f64 = x.iter().zip(y).map(|(a, b)| (a - b).abs()).sum();
        (-self.gamma * l1).exp()
    }
}

/// scikit-learn's exponential chi² kernel `k(x, y) = exp(−γ Σ_j (x_j − y_j)² / (x_j + y_j))`
/// (`sklearn.metrics.pairwise.chi2_kernel`), for nonnegative features such as histograms; a
/// coordinate where `x_j + y_j = 0` adds nothing, as in scikit-learn. Positive definite on
/// nonnegative inputs ([`Definiteness::Conditional`]): [`Kernel::check_samples`] refuses samples with
/// a negative value, and every Gram matrix kern forms checks its samples with it.
///
/// ```
/// use kern_core::{Chi2, Kernel, Samples};
/// let k = Chi2::new(1.0)?;
/// // (1 − 3)²/(1 + 3) + 0 = 1
/// assert!((k.eval(&[1.0, 0.0], &[3.0, 0.0]) - (-1.0f64).exp()).abs() < 1e-15);
/// assert!(k.check_samples(&Samples::from_rows(&[[1.0, -0.5]])?).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chi2 {
    gamma: f64,
}

impl Chi2 {
    /// `γ` finite and > 0.
    pub fn new(gamma: f64) -> Result<Self> {
        Ok(Chi2 { gamma: positive("gamma", gamma)? })
    }

    /// The rate `γ`.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }
}

impl Kernel for Chi2 {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        let s: f64 = x
            .iter()
            .zip(y)
            .map(|(&a, &b)| {
                let sum = a + b;
                if sum == 0.0 { 0.0 } else { (a - b) * (a - b) / sum }
            })
            .sum();
        (-self.gamma * s).exp()
    }
    fn definiteness(&self) -> Definiteness {
        Definiteness::Conditional
    }
    fn check_samples(&self, x: &Samples) -> Result<()> {
        for (row, s) in x.samples().enumerate() {
            let negative = match s {
                SampleRef::Dense(v) => v.iter().enumerate().find(|(_, v)| **v < 0.0).map(|(c, v)| (c, *v)),
                SampleRef::Sparse { indices, values } => {
                    indices.iter().zip(values).find(|(_, v)| **v < 0.0).map(|(c, v)| (*c, *v))
                }
            };
            if let Some((col, value)) = negative {
                return Err(CoreError::Domain {
                    kernel: "chi2",
                    row,
                    col,
                    value,
                    reason: "the chi2 kernel is defined on nonnegative features only",
                });
            }
        }
        Ok(())
    }
}

/// The cosine similarity `k(x, y) = ⟨x, y⟩ / (‖x‖ ‖y‖)` (`sklearn.metrics.pairwise.cosine_similarity`),
/// the linear kernel of the samples scaled to unit length; a zero sample has similarity 0 with
/// everything (itself included), as in scikit-learn. Positive definite on any `ℝᵈ`.
///
/// ```
/// use kern_core::{Cosine, Kernel};
/// assert!((Cosine.eval(&[1.0, 0.0], &[1.0, 1.0]) - 0.5f64.sqrt()).abs() < 1e-15);
/// assert_eq!(Cosine.eval(&[0.0, 0.0], &[1.0, 1.0]), 0.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cosine;

impl Cosine {
    /// The similarity from the inner product and the two squared norms (0 when a norm is 0).
    #[inline]
    fn of_parts(dot: f64, xx: f64, yy: f64) -> f64 {
        let den = xx.sqrt() * yy.sqrt();
        if den == 0.0 { 0.0 } else { dot / den }
    }
}

impl Kernel for Cosine {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        Self::of_parts(dot(x, y), dot(x, x), dot(y, y))
    }
    /// Sparse samples through their inner product and norms, never written out densely.
    fn eval_ref(&self, x: SampleRef<'_>, y: SampleRef<'_>) -> f64 {
        Self::of_parts(x.dot(y), x.sq_norm(), y.sq_norm())
    }
    fn profile(&self) -> Profile {
        Profile::General
    }
}
