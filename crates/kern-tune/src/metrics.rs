//! Scores of predictions against targets: accuracy, mean squared and absolute error, R², squared
//! correlation coefficient.
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

/// The squared correlation coefficient of predictions and truth, `cov(p, t)² / (var(p) · var(t))`:
/// LIBSVM's "Squared correlation coefficient" of a regression (svm-train -v, svm-predict), 1 when the
/// predictions are an exact affine function of the truth. NaN when the predictions or the truth are
/// constant (the correlation is undefined; LIBSVM prints `nan`). Computed from the centred values,
/// which gives LIBSVM's number without the cancellation of its raw sums.
///
/// ```
/// use kern_tune::metrics::squared_correlation;
/// assert_eq!(squared_correlation(&[1.0, 2.0, 3.0], &[5.0, 3.0, 1.0])?, 1.0);
/// assert!(squared_correlation(&[2.0, 2.0], &[1.0, 3.0])?.is_nan());
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
pub fn squared_correlation(pred: &[f64], truth: &[f64]) -> Result<f64> {
    check(pred.len(), truth.len())?;
    if truth.is_empty() {
        return Err(TuneError::Scoring("squared correlation of no targets".into()));
    }
    let n = truth.len() as f64;
    let (mp, mt) = (pred.iter().sum::<f64>() / n, truth.iter().sum::<f64>() / n);
    let (mut spt, mut spp, mut stt) = (0.0, 0.0, 0.0);
    for (p, t) in pred.iter().zip(truth) {
        let (dp, dt) = (p - mp, t - mt);
        spt += dp * dt;
        spp += dp * dp;
        stt += dt * dt;
    }
    if spp == 0.0 || stt == 0.0 {
        return Ok(f64::NAN);
    }
    Ok(spt * spt / (spp * stt))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// By hand: p = 1, 2, 3, 4 and t = 2, 4, 5, 4 have centred cross sum 3.5 and centred squares 5
    /// and 4.75, so SCC = 3.5² / (5 · 4.75) = 49/95.
    #[test]
    fn squared_correlation_of_a_hand_computed_case() {
        let scc = squared_correlation(&[1.0, 2.0, 3.0, 4.0], &[2.0, 4.0, 5.0, 4.0]).unwrap();
        assert!((scc - 49.0 / 95.0).abs() <= 1e-15, "{scc}");
        assert!(squared_correlation(&[1.0], &[1.0, 2.0]).is_err());
        assert!(squared_correlation(&[], &[]).is_err());
        assert!(squared_correlation(&[1.0, 2.0], &[3.0, 3.0]).unwrap().is_nan());
    }

    proptest! {
        #![proptest_config(kern_testkit::proptest_config(64))]

        /// The SCC of y against a·y + b (a ≠ 0) is 1, whatever the sign of a.
        #[test]
        fn squared_correlation_of_an_affine_map_is_one(
            y in prop::collection::vec(-10.0f64..10.0, 2..60),
            a in prop_oneof![-100.0f64..-0.01, 0.01f64..100.0],
            b in -100.0f64..100.0,
        ) {
            let mean = y.iter().sum::<f64>() / y.len() as f64;
            // A spread of y well above the rounding of a·y + b (|b| ≤ 100, |a| ≥ 0.01).
            prop_assume!(y.iter().map(|v| (v - mean).abs()).fold(0.0, f64::max) > 0.1);
            let p: Vec<f64> = y.iter().map(|v| a * v + b).collect();
            let scc = squared_correlation(&p, &y).unwrap();
            prop_assert!((scc - 1.0).abs() <= 1e-9, "{}", scc);
        }
    }
}
