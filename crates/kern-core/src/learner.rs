//! Learner traits shared by every model crate, so that cross-validation and grid search
//! (kern-tune) are generic over models they do not know (docs/architecture.md, "Core contracts").
//!
//! A learner is a params type `P: Fit<T>`; [`Fit::fit`] validates the params once into a checked form
//! and trains a [`Model`]. Models predict decision values and labels for new samples.
//!
//! ```
//! use kern_core::learner::{Fit, Model};
//! use kern_core::{CoreError, RealTargets, Samples};
//! struct Constant(f64); // a model
//! impl Model for Constant {
//!     type Error = CoreError;
//!     fn predict(&self, x: &Samples) -> Result<Vec<f64>, CoreError> { Ok(vec![self.0; x.n()]) }
//! }
//! struct MeanOf; // a learner: the targets' mean
//! impl Fit<RealTargets> for MeanOf {
//!     type Model = Constant;
//!     type Error = CoreError;
//!     fn fit(&self, _: &Samples, y: &RealTargets) -> Result<Constant, CoreError> {
//!         Ok(Constant(y.values().iter().sum::<f64>() / y.values().len() as f64))
//!     }
//! }
//! // Generic code (cross-validation, grid search) sees only `P: Fit<T>` and `P::Model: Model`.
//! fn refit<P: Fit<RealTargets>>(p: &P, x: &Samples, y: &RealTargets) -> Option<Vec<f64>> {
//!     p.fit(x, y).ok()?.predict(x).ok()
//! }
//! let x = Samples::from_rows(&[[0.0], [1.0], [2.0]])?;
//! assert_eq!(refit(&MeanOf, &x, &RealTargets::new(vec![1.0, 2.0, 6.0])?), Some(vec![3.0; 3]));
//! # Ok::<(), CoreError>(())
//! ```

use crate::samples::Samples;

/// A trained model.
///
/// ```
/// use kern_core::{Samples, learner::Model};
/// /// Predicts the training mean.
/// struct Mean(f64);
/// impl Model for Mean {
///     type Error = kern_core::CoreError;
///     fn predict(&self, x: &Samples) -> Result<Vec<f64>, Self::Error> { Ok(vec![self.0; x.n()]) }
/// }
/// let m = Mean(2.0);
/// assert_eq!(m.predict(&Samples::from_rows(&[[0.0]])?)?, vec![2.0]);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub trait Model: Send + Sync {
    /// The model crate's error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Predictions for each row of `x`: the label as a number for classifiers (±1 for binary models,
    /// the class index for multi-class), the value for regressors.
    fn predict(&self, x: &Samples) -> Result<Vec<f64>, Self::Error>;
}

/// Training: params (validated inside `fit`) plus samples and targets give a model.
///
/// ```
/// use kern_core::learner::{Fit, Model};
/// use kern_core::{CoreError, RealTargets, Samples};
/// /// Predicts a constant.
/// struct Constant(f64);
/// impl Model for Constant {
///     type Error = CoreError;
///     fn predict(&self, x: &Samples) -> Result<Vec<f64>, CoreError> { Ok(vec![self.0; x.n()]) }
/// }
/// /// Learns the mean of the targets.
/// struct MeanParams;
/// impl Fit<RealTargets> for MeanParams {
///     type Model = Constant;
///     type Error = CoreError;
///     fn fit(&self, x: &Samples, y: &RealTargets) -> Result<Constant, CoreError> {
///         let v = y.values();
///         Ok(Constant(v.iter().sum::<f64>() / v.len() as f64))
///     }
/// }
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0]])?;
/// let m = MeanParams.fit(&x, &RealTargets::new(vec![1.0, 2.0, 6.0])?)?;
/// assert_eq!(m.predict(&x)?, [3.0, 3.0, 3.0]);
/// # Ok::<(), CoreError>(())
/// ```
pub trait Fit<T>: Send + Sync {
    /// The model trained.
    type Model: Model;
    /// The error type (params validation and training).
    type Error: std::error::Error + Send + Sync + 'static;

    /// Validates the params and trains on `x` with targets `y`.
    fn fit(&self, x: &Samples, y: &T) -> Result<Self::Model, Self::Error>;
}
