//! The error type of kern-tune.

use kern_core::CoreError;

/// A boxed error from user code (a learner's params builder or its `fit`/`predict`).
///
/// ```
/// use kern_tune::{BoxError, TuneError};
/// use std::error::Error;
/// // A learner builder's own error, kept as the source of the grid search's error.
/// let source: BoxError = "c must be positive".into();
/// let e = TuneError::Build { point: "c=-1".into(), source };
/// assert_eq!(e.to_string(), "building the learner for c=-1: c must be positive");
/// assert_eq!(e.source().map(|s| s.to_string()).as_deref(), Some("c must be positive"));
/// ```
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything that can go wrong in kern-tune.
///
/// ```
/// use kern_tune::{TuneError, grid::ParamGrid};
/// let err = "c=1..".parse::<ParamGrid>().unwrap_err();
/// assert!(matches!(err, TuneError::GridSpec { .. }));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TuneError {
    /// Invalid data, targets or kernel (from kern-core).
    #[error(transparent)]
    Core(#[from] CoreError),
    /// A tuning option outside its valid range.
    #[error("invalid {name} = {value}: {reason}")]
    Param {
        /// Option name.
        name: &'static str,
        /// The rejected value.
        value: f64,
        /// What the valid range is.
        reason: &'static str,
    },
    /// The criterion has no solution on this data (too few points, duplicate points, a single distance
    /// value, one class only, ...). The message says why.
    #[error("criterion undefined: {0}")]
    Undefined(String),
    /// A parameter-grid string that cannot be parsed.
    #[error("invalid grid spec {spec:?}: {reason}")]
    GridSpec {
        /// The spec as given.
        spec: String,
        /// What is wrong and what is valid.
        reason: String,
    },
    /// A validation scheme that cannot be applied to these data (e.g. more folds than samples).
    #[error("invalid validation scheme: {0}")]
    Validation(String),
    /// A scoring rule that does not fit the targets (e.g. accuracy on real targets).
    #[error("invalid scoring: {0}")]
    Scoring(String),
    /// The user's closure could not build a learner for a grid point.
    #[error("building the learner for {point}: {source}")]
    Build {
        /// The grid point, as `name=value,...`.
        point: String,
        /// The closure's error.
        #[source]
        source: BoxError,
    },
    /// Training or prediction failed.
    #[error("{context}: {source}")]
    Learner {
        /// Where: the grid point and fold, or "refit".
        context: String,
        /// The learner's error.
        #[source]
        source: BoxError,
    },
    /// Every grid cell failed; the first failure is kept.
    #[error("every grid cell failed; first failure: {0}")]
    AllCellsFailed(String),
}

/// Result alias of kern-tune.
///
/// ```
/// use kern_tune::{Result, TuneError, cv::{Fold, Validation, make_folds}};
/// // One sample cannot be split into folds.
/// let folds: Result<Vec<Fold>> = make_folds(1, None, &Validation::default(), 0);
/// assert!(matches!(folds, Err(TuneError::Validation(_))));
/// ```
pub type Result<T, E = TuneError> = std::result::Result<T, E>;

pub(crate) fn positive(name: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(TuneError::Param { name, value, reason: "must be finite and > 0" })
    }
}
