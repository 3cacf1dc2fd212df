//! Scores of predictions against targets: accuracy, mean squared and absolute error, R².
//! [`crate::cv::Scoring`] scores cross-validation folds with these same functions.
//!
//! Predictions are in the convention of kern's `Model::predict`: the sign for binary targets, the class
//! index for class targets, the value for real targets.
//!
//! ```
//! use kern_core::ClassTargets;
//! use kern_tune::metrics::{accuracy, mean_squared_error, r2_score};
//!
//! let y = ClassTargets::from_labels(&["a", "b", "b", "c"])?;
//! assert_eq!(accuracy(&[0.0, 1.0, 2.0, 2.0], &y)?, 0.75);
//! assert_eq!(mean_squared_error(&[1.0, 2.0], &[1.0, 4.0])?, 2.0);
//! assert_eq!(r2_score(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0])?, 1.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::cv::{CvTargets, TargetKind};
use crate::error::{Result, TuneError};

fn check(pred: usize, truth: usize) -> Result<()> {
    if pred != truth {
        return Err(TuneError::Scoring(format!("{pred} predictions for {truth} targets")));
    }
    Ok(())
}

/// The fraction of correct predictions for class targets (`y` binary or classes).
///
/// ```
/// use kern_core::BinaryTargets;
/// let y = BinaryTargets::from_f64(&[1.0, -1.0, 1.0])?;
/// assert_eq!(kern_tune::metrics::accuracy(&[0.3, -2.0, -0.1], &y)?, 2.0 / 3.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn accuracy<T: CvTargets>(pred: &[f64], y: &T) -> Result<f64> {
    match y.kind() {
        TargetKind::Real => {
            Err(TuneError::Scoring("accuracy needs class targets; use neg_mse or neg_mae".into()))
        }
        kind => accuracy_of(pred, &y.truth(), kind),
    }
}

/// Accuracy on raw truth values of `kind` (binary: signs agree; classes: rounded prediction equals the
/// class index).
pub(crate) fn accuracy_of(pred: &[f64], truth: &[f64], kind: TargetKind) -> Result<f64> {
    check(pred.len(), truth.len())?;
    let correct = pred
        .iter()
        .zip(truth)
        .filter(|&(&p, &t)| match kind {
            TargetKind::Binary => (p > 0.0) == (t > 0.0),
            _ => p.round() == t,
        })
        .count();
    Ok(correct as f64 / truth.len().max(1) as f64)
}

/// The mean of `(p − t)²`.
///
/// ```
/// assert_eq!(kern_tune::metrics::mean_squared_error(&[0.0, 0.0], &[1.0, -3.0])?, 5.0);
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
pub fn mean_squared_error(pred: &[f64], truth: &[f64]) -> Result<f64> {
    check(pred.len(), truth.len())?;
    Ok(pred.iter().zip(truth).map(|(p, t)| (p - t) * (p - t)).sum::<f64>() / truth.len().max(1) as f64)
}

/// The mean of `|p − t|`.
///
/// ```
/// assert_eq!(kern_tune::metrics::mean_absolute_error(&[0.0, 0.0], &[1.0, -3.0])?, 2.0);
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
pub fn mean_absolute_error(pred: &[f64], truth: &[f64]) -> Result<f64> {
    check(pred.len(), truth.len())?;
    Ok(pred.iter().zip(truth).map(|(p, t)| (p - t).abs()).sum::<f64>() / truth.len().max(1) as f64)
}

/// The coefficient of determination `1 − Σ(p − t)² / Σ(t − t̄)²`, as scikit-learn's `r2_score`: 1 for
/// a perfect fit, 0 for predicting the mean; for constant truth, 1 when every prediction is exact and
/// 0 otherwise.
///
/// ```
/// let r2 = kern_tune::metrics::r2_score(&[2.0, 2.0, 2.0], &[1.0, 2.0, 3.0])?;
/// assert_eq!(r2, 0.0);
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
pub fn r2_score(pred: &[f64], truth: &[f64]) -> Result<f64> {
    check(pred.len(), truth.len())?;
    if truth.is_empty() {
        return Err(TuneError::Scoring("R² of no targets".into()));
    }
    let mean = truth.iter().sum::<f64>() / truth.len() as f64;
    let ss_res: f64 = pred.iter().zip(truth).map(|(p, t)| (p - t) * (p - t)).sum();
    let ss_tot: f64 = truth.iter().map(|t| (t - mean) * (t - mean)).sum();
    Ok(if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else if ss_res == 0.0 {
        1.0
    } else {
        0.0
    })
}
