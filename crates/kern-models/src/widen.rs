//! Test samples with features a model never saw, by LIBSVM's rule: a feature the stored samples
//! (support vectors, training samples, landmark centres) lack is a zero there. So for dot-product
//! kernels an unseen feature adds nothing to `⟨x, sv⟩`, and for radial kernels it adds `x_j²` to
//! `‖x − sv‖²` — exactly what LIBSVM's `svm_predict` computes on its sparse nodes. The stored samples
//! are re-dimensioned as a sparse store ([`kern_core::Samples::widen`]: free for a sparse store, a
//! CSR copy of a dense one), never as a dense `n × d` array.
//!
//! ```
//! use kern_models::krr::KernelRidgeParams;
//! use kern_models::widen::WidenFeatures;
//! use kern_models::{Fit, Model, RealTargets, Samples};
//! let x = Samples::from_rows(&[[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])?;
//! let y = RealTargets::new(vec![1.0, -1.0, 0.5])?;
//! let mut m = KernelRidgeParams::new("gaussian:beta=1".parse()?).lambda(0.1).fit(&x, &y)?;
//! let t = Samples::from_rows(&[[0.5, 0.5, 1.0]])?; // a third feature, unseen in training
//! assert!(m.predict(&t).is_err());
//! m.widen_features(3)?;
//! // The stored samples are 0 there: every ‖t − xᵢ‖² gains 1², a factor e⁻¹ of each exp(−‖t − xᵢ‖²).
//! let at_zero = m.predict(&Samples::from_rows(&[[0.5, 0.5, 0.0]])?)?[0];
//! assert!((m.predict(&t)?[0] - (-1.0f64).exp() * at_zero).abs() < 1e-14);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::Result;
use kern_core::Samples;

/// A model whose stored samples can be widened to the dimension of test samples with more features.
///
/// ```
/// use kern_models::svm::SvcParams;
/// use kern_models::widen::WidenFeatures;
/// use kern_models::{BinaryTargets, Fit, KernelSpec, Samples};
/// let x = Samples::from_rows(&[[0.0, 1.0], [1.0, 0.0], [0.0, -1.0], [-1.0, 0.0]])?;
/// let y = BinaryTargets::from_labels(&["a", "b", "a", "b"])?;
/// let k: KernelSpec = "gaussian:gamma=0.5".parse()?;
/// let mut m = SvcParams::new(k).c(1.0).fit(&x, &y)?;
/// // A test sample with a third feature the training data never had.
/// let t = Samples::from_rows(&[[0.5, 0.5, 2.0]])?;
/// assert!(m.decision_function(&t).is_err());
/// m.widen_features(3)?;
/// assert_eq!(m.n_features(), 3);
/// let f = m.decision_function(&t)?[(0, 0)];
/// // LIBSVM's value: Σ coef_i k(sv_i, t) + b with the support vectors zero in feature 3.
/// let (idx, coef) = m.machine_coefficients(0);
/// let b = m.machines()[0].2;
/// let sv = m.support_vectors();
/// let brute: f64 = idx.iter().zip(&coef).map(|(&i, c)| {
///     let s = sv.to_dense().unwrap().row(i).to_vec();
///     let d2 = (s[0] - 0.5).powi(2) + (s[1] - 0.5).powi(2) + (s[2] - 2.0).powi(2);
///     c * (-0.5 * d2).exp()
/// }).sum::<f64>() + b;
/// assert!((f - brute).abs() <= 1e-12 * (1.0 + brute.abs()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait WidenFeatures {
    /// The number of features of the stored samples.
    fn n_features(&self) -> usize;
    /// Re-dimensions the stored samples to `d ≥ n_features()` features, zeros in the new ones, so the
    /// model predicts samples of `d` features by LIBSVM's rule (module documentation). A no-op when
    /// `d` is the current dimension.
    ///
    /// # Errors
    /// `d < n_features()`, `d` above [`Samples::MAX_DIM`], or a dense store whose sparse copy does
    /// not fit in memory.
    fn widen_features(&mut self, d: usize) -> Result<()>;
}

/// Replaces `s` by its widening to `d` features (nothing to do at the same dimension).
pub(crate) fn widen_store(s: &mut Samples, d: usize) -> Result<()> {
    if d != s.d() {
        *s = s.widen(d)?;
    }
    Ok(())
}
