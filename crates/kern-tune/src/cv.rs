//! Cross-validation over any learner: k-fold (stratified for classes), repeated k-fold,
//! leave-one-out, train/validation (hold-out) splits and user-given folds (scikit-learn's
//! `PredefinedSplit`).
//!
//! Everything is generic over kern-core's learner traits ([`Fit`], [`Model`]) and over the target type
//! through [`CvTargets`] (implemented for [`BinaryTargets`], [`ClassTargets`], [`RealTargets`] and
//! [`Targets`]). Folds depend only on `n`, the class labels (when stratifying) and the seed; fitting runs
//! in parallel over folds on the current rayon pool and the scores are collected in fold order, so a
//! report is identical for a seed whatever the number of threads (given a deterministic learner).
//!
//! ```
//! use kern_core::{learner::{Fit, Model}, RealTargets, Samples, CoreError};
//! use kern_tune::cv::{cross_validate, CvConfig, Validation};
//! /// Predicts the training mean.
//! struct MeanModel(f64);
//! impl Model for MeanModel {
//!     type Error = CoreError;
//!     fn predict(&self, x: &Samples) -> Result<Vec<f64>, CoreError> { Ok(vec![self.0; x.n()]) }
//! }
//! struct Mean;
//! impl Fit<RealTargets> for Mean {
//!     type Model = MeanModel;
//!     type Error = CoreError;
//!     fn fit(&self, _x: &Samples, y: &RealTargets) -> Result<MeanModel, CoreError> {
//!         Ok(MeanModel(y.values().iter().sum::<f64>() / y.len() as f64))
//!     }
//! }
//! let x = Samples::from_flat((0..20).map(f64::from).collect(), 20, 1)?;
//! let y = RealTargets::new((0..20).map(|i| (i % 2) as f64).collect())?;
//! let cfg = CvConfig { validation: Validation::KFold { k: 4, repeats: 1 }, seed: 7, ..Default::default() };
//! let r = cross_validate(&Mean, &x, &y, &cfg)?;
//! assert_eq!(r.fold_scores.len(), 4);
//! assert_eq!(r.scoring, "neg_mse");          // the default for real targets
//! assert!(r.mean < 0.0 && r.mean > -0.5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{BoxError, Result, TuneError};
use crate::rng;
use kern_core::learner::{Fit, Model};
use kern_core::{BinaryTargets, ClassTargets, RealTargets, Samples, Targets};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// What kind of prediction task targets describe.
///
/// ```
/// use kern_core::{BinaryTargets, RealTargets};
/// use kern_tune::cv::{CvTargets, Scoring, TargetKind};
/// assert_eq!(BinaryTargets::from_f64(&[1.0, -1.0])?.kind(), TargetKind::Binary);
/// assert_eq!(RealTargets::new(vec![0.5, 2.0])?.kind(), TargetKind::Real);
/// // The kind decides what the default scoring is.
/// assert_eq!(Scoring::Auto.name_for(Some(TargetKind::Real)), "neg_mse");
/// assert_eq!(Scoring::Auto.name_for(Some(TargetKind::Binary)), "accuracy");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    /// Two classes, labels ±1.
    Binary,
    /// `k ≥ 2` classes, labels `0..k`.
    Classes,
    /// Real values (regression).
    Real,
}

/// Targets that cross-validation can split: subsetting by index, class strata for stratified folds, and
/// the truth as numbers in the convention of [`Model::predict`] (±1 for binary, the class index for
/// classes, the value for regression).
///
/// kern-tune implements it for every kern-core target type; a model crate with its own target type can
/// implement it too.
///
/// ```
/// use kern_core::BinaryTargets;
/// use kern_tune::cv::CvTargets;
/// let y = BinaryTargets::from_f64(&[1.0, -1.0, -1.0, 1.0])?;
/// assert_eq!(y.n_targets(), 4);
/// assert_eq!(y.strata().as_deref(), Some(&[1, 0, 0, 1][..])); // the classes stratified folds balance
/// let part = y.subset(&[3, 1])?;
/// assert_eq!(part.truth().as_ref(), &[1.0, -1.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait CvTargets: Clone + Send + Sync {
    /// Number of targets (one per sample).
    fn n_targets(&self) -> usize;
    /// The targets at `indices`, in that order.
    fn subset(&self, indices: &[usize]) -> kern_core::Result<Self>;
    /// The task kind.
    fn kind(&self) -> TargetKind;
    /// Class index of every sample (`None` for regression): what stratified folds balance.
    fn strata(&self) -> Option<Cow<'_, [usize]>>;
    /// The truth as numbers, comparable with [`Model::predict`]'s output.
    fn truth(&self) -> Cow<'_, [f64]>;
}

impl CvTargets for BinaryTargets {
    fn n_targets(&self) -> usize {
        self.len()
    }
    fn subset(&self, indices: &[usize]) -> kern_core::Result<Self> {
        self.select(indices)
    }
    fn kind(&self) -> TargetKind {
        TargetKind::Binary
    }
    fn strata(&self) -> Option<Cow<'_, [usize]>> {
        Some(Cow::Owned(self.y().iter().map(|&v| usize::from(v > 0.0)).collect()))
    }
    fn truth(&self) -> Cow<'_, [f64]> {
        Cow::Borrowed(self.y())
    }
}

impl CvTargets for ClassTargets {
    fn n_targets(&self) -> usize {
        self.len()
    }
    fn subset(&self, indices: &[usize]) -> kern_core::Result<Self> {
        self.select(indices)
    }
    fn kind(&self) -> TargetKind {
        TargetKind::Classes
    }
    fn strata(&self) -> Option<Cow<'_, [usize]>> {
        Some(Cow::Borrowed(self.classes()))
    }
    fn truth(&self) -> Cow<'_, [f64]> {
        Cow::Owned(self.classes().iter().map(|&c| c as f64).collect())
    }
}

impl CvTargets for RealTargets {
    fn n_targets(&self) -> usize {
        self.len()
    }
    fn subset(&self, indices: &[usize]) -> kern_core::Result<Self> {
        self.select(indices)
    }
    fn kind(&self) -> TargetKind {
        TargetKind::Real
    }
    fn strata(&self) -> Option<Cow<'_, [usize]>> {
        None
    }
    fn truth(&self) -> Cow<'_, [f64]> {
        Cow::Borrowed(self.values())
    }
}

impl CvTargets for Targets {
    fn n_targets(&self) -> usize {
        self.len()
    }
    fn subset(&self, indices: &[usize]) -> kern_core::Result<Self> {
        self.select(indices)
    }
    fn kind(&self) -> TargetKind {
        match self {
            Targets::Binary(t) => t.kind(),
            Targets::Classes(t) => t.kind(),
            Targets::Real(t) => t.kind(),
        }
    }
    fn strata(&self) -> Option<Cow<'_, [usize]>> {
        match self {
            Targets::Binary(t) => t.strata(),
            Targets::Classes(t) => t.strata(),
            Targets::Real(t) => t.strata(),
        }
    }
    fn truth(&self) -> Cow<'_, [f64]> {
        match self {
            Targets::Binary(t) => t.truth(),
            Targets::Classes(t) => t.truth(),
            Targets::Real(t) => t.truth(),
        }
    }
}

/// Targets with one weight per sample, for a learner trained with sample weights: cross-validation
/// splits the weights with the targets, and scores a fold's predictions against the targets alone,
/// unweighted (as scikit-learn's `GridSearchCV` scores a fit given `sample_weight`). The folds are those
/// of the targets alone.
///
/// ```
/// use kern_core::RealTargets;
/// use kern_tune::cv::{CvTargets, WeightedTargets};
/// let y = WeightedTargets::new(RealTargets::new(vec![1.0, 2.0, 3.0])?, vec![0.5, 1.0, 2.0])?;
/// let part = y.subset(&[2, 0])?;
/// assert_eq!((part.targets.values(), &part.weights[..]), (&[3.0, 1.0][..], &[2.0, 0.5][..]));
/// assert_eq!(part.truth().as_ref(), &[3.0, 1.0]);
/// assert!(WeightedTargets::new(RealTargets::new(vec![1.0])?, vec![1.0, 1.0]).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct WeightedTargets<T> {
    /// The targets.
    pub targets: T,
    /// One weight per target, in the targets' order.
    pub weights: Vec<f64>,
}

impl<T: CvTargets> WeightedTargets<T> {
    /// Pairs `targets` with `weights`; errors unless there is one weight per target (the weights'
    /// values are the learner's to check).
    pub fn new(targets: T, weights: Vec<f64>) -> kern_core::Result<Self> {
        if weights.len() != targets.n_targets() {
            return Err(kern_core::CoreError::Targets(format!(
                "{} sample weights for {} targets",
                weights.len(),
                targets.n_targets()
            )));
        }
        Ok(WeightedTargets { targets, weights })
    }
}

impl<T: CvTargets> CvTargets for WeightedTargets<T> {
    fn n_targets(&self) -> usize {
        self.targets.n_targets()
    }
    fn subset(&self, indices: &[usize]) -> kern_core::Result<Self> {
        let targets = self.targets.subset(indices)?;
        Ok(WeightedTargets { targets, weights: indices.iter().map(|&i| self.weights[i]).collect() })
    }
    fn kind(&self) -> TargetKind {
        self.targets.kind()
    }
    fn strata(&self) -> Option<Cow<'_, [usize]>> {
        self.targets.strata()
    }
    fn truth(&self) -> Cow<'_, [f64]> {
        self.targets.truth()
    }
}

/// A user scoring function `(predictions, truth) -> score`, higher is better. Both slices are in the
/// convention of [`Model::predict`] / [`CvTargets::truth`].
///
/// ```
/// use kern_tune::cv::{ScoreFn, Scoring, TargetKind};
/// use std::sync::Arc;
/// // Minus the number of predictions that miss.
/// let f: ScoreFn =
///     Arc::new(|p: &[f64], t: &[f64]| -(p.iter().zip(t).filter(|(a, b)| a != b).count() as f64));
/// let s = Scoring::Custom { name: "neg_misses".into(), f };
/// assert_eq!(s.score(&[1.0, 2.0, 3.0], &[1.0, 0.0, 3.0], TargetKind::Real)?, -1.0);
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
pub type ScoreFn = Arc<dyn Fn(&[f64], &[f64]) -> f64 + Send + Sync>;

/// How a fold's predictions are scored. Every score is "higher is better".
///
/// ```
/// use kern_tune::cv::{Scoring, TargetKind};
/// let (pred, truth) = ([0.0, 4.0], [1.0, 2.0]);
/// assert_eq!(Scoring::NegMae.score(&pred, &truth, TargetKind::Real)?, -1.5);
/// assert_eq!(Scoring::Auto.score(&pred, &truth, TargetKind::Real)?, -2.5); // negative MSE
/// assert_eq!("mae".parse::<Scoring>()?.name_for(None), "neg_mae");
/// assert!(Scoring::Accuracy.score(&pred, &truth, TargetKind::Real).is_err()); // needs classes
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Default)]
pub enum Scoring {
    /// Accuracy for binary and class targets, negative MSE for real targets.
    #[default]
    Auto,
    /// Fraction of correct labels (binary: signs agree; classes: rounded prediction equals the class).
    Accuracy,
    /// Negative mean squared error.
    NegMse,
    /// Negative mean absolute error.
    NegMae,
    /// A named user function.
    Custom {
        /// Name reported in results.
        name: String,
        /// The function.
        f: ScoreFn,
    },
}

impl fmt::Debug for Scoring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Scoring({})", self.name_for(None))
    }
}

impl Scoring {
    /// A named user scoring function `(predictions, truth) -> score` (higher is better).
    ///
    /// ```
    /// let s = kern_tune::cv::Scoring::custom("neg_max_err", |p, t| {
    ///     -p.iter().zip(t).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max)
    /// });
    /// assert_eq!(s.score(&[1.0, 2.0], &[1.5, 2.0], kern_tune::cv::TargetKind::Real)?, -0.5);
    /// # Ok::<(), kern_tune::TuneError>(())
    /// ```
    pub fn custom(
        name: impl Into<String>,
        f: impl Fn(&[f64], &[f64]) -> f64 + Send + Sync + 'static,
    ) -> Self {
        Scoring::Custom { name: name.into(), f: Arc::new(f) }
    }

    /// The rule actually used for targets of `kind` (resolves [`Scoring::Auto`]).
    pub fn resolve(&self, kind: TargetKind) -> Result<Scoring> {
        match (self, kind) {
            (Scoring::Auto, TargetKind::Real) => Ok(Scoring::NegMse),
            (Scoring::Auto, _) => Ok(Scoring::Accuracy),
            (Scoring::Accuracy, TargetKind::Real) => {
                Err(TuneError::Scoring("accuracy needs class targets; use neg_mse or neg_mae".into()))
            }
            (s, _) => Ok(s.clone()),
        }
    }

    /// The name used in reports (`accuracy`, `neg_mse`, `neg_mae`, or the custom name).
    pub fn name_for(&self, kind: Option<TargetKind>) -> String {
        match self {
            Scoring::Auto => match kind {
                Some(TargetKind::Real) => "neg_mse".into(),
                Some(_) => "accuracy".into(),
                None => "auto".into(),
            },
            Scoring::Accuracy => "accuracy".into(),
            Scoring::NegMse => "neg_mse".into(),
            Scoring::NegMae => "neg_mae".into(),
            Scoring::Custom { name, .. } => name.clone(),
        }
    }

    /// Scores predictions against the truth for targets of `kind`.
    pub fn score(&self, pred: &[f64], truth: &[f64], kind: TargetKind) -> Result<f64> {
        if pred.len() != truth.len() {
            return Err(TuneError::Scoring(format!(
                "the model returned {} predictions for {} samples",
                pred.len(),
                truth.len()
            )));
        }
        Ok(match self.resolve(kind)? {
            Scoring::Accuracy => crate::metrics::accuracy_of(pred, truth, kind)?,
            Scoring::NegMse => -crate::metrics::mean_squared_error(pred, truth)?,
            Scoring::NegMae => -crate::metrics::mean_absolute_error(pred, truth)?,
            Scoring::Custom { f, .. } => f(pred, truth),
            Scoring::Auto => unreachable!("resolved above"),
        })
    }
}

impl std::str::FromStr for Scoring {
    type Err = TuneError;
    /// `auto`, `accuracy`, `neg_mse` (or `mse`), `neg_mae` (or `mae`).
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "auto" => Ok(Scoring::Auto),
            "accuracy" | "acc" => Ok(Scoring::Accuracy),
            "neg_mse" | "mse" => Ok(Scoring::NegMse),
            "neg_mae" | "mae" => Ok(Scoring::NegMae),
            other => Err(TuneError::Scoring(format!(
                "unknown scoring {other:?}; valid: auto, accuracy, neg_mse, neg_mae"
            ))),
        }
    }
}

/// How the data are split into training and test parts.
///
/// ```
/// use kern_tune::cv::{Validation, make_folds};
/// // Leave-one-out on three samples: three folds, each testing one sample.
/// let folds = make_folds(3, None, &Validation::LeaveOneOut, 0)?;
/// assert_eq!(folds.iter().map(|f| f.test.clone()).collect::<Vec<_>>(), [[0], [1], [2]]);
/// // The text form round-trips.
/// let v = Validation::KFold { k: 10, repeats: 3 };
/// assert_eq!(v.to_string().parse::<Validation>()?, v);
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Validation {
    /// `k`-fold cross-validation, repeated `repeats` times with independent shuffles (`repeats = 1`:
    /// plain k-fold). Fold sizes differ by at most one.
    KFold {
        /// Number of folds, `2 ≤ k ≤ n`.
        k: usize,
        /// Number of repetitions, `≥ 1`.
        repeats: usize,
    },
    /// Leave-one-out: `n` folds of one test sample (never shuffled, never stratified).
    LeaveOneOut,
    /// A train/validation split with `fraction` of the samples (rounded, at least one per side) held
    /// out, repeated `repeats` times with independent draws (Monte-Carlo cross-validation).
    Holdout {
        /// Held-out fraction, in (0, 1).
        fraction: f64,
        /// Number of repetitions, `≥ 1`.
        repeats: usize,
    },
    /// User-given folds, as scikit-learn's `PredefinedSplit`: `test_fold[i]` is the fold in which
    /// sample `i` is tested (any integer `≥ 0`), or `-1` for a sample that is always in the training
    /// part. One fold per distinct value, in ascending order of the value (fold index 0, 1, …); at
    /// least two. The seed and stratification do not apply. Build it with
    /// [`Validation::predefined`] (which checks it) or read it with `"file:PATH"`.
    Predefined {
        /// The fold of every sample (`-1`: never tested).
        test_fold: Vec<i64>,
    },
}

impl Default for Validation {
    fn default() -> Self {
        Validation::KFold { k: 5, repeats: 1 }
    }
}

impl fmt::Display for Validation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Validation::KFold { k, repeats: 1 } => write!(f, "kfold:{k}"),
            Validation::KFold { k, repeats } => write!(f, "kfold:{k}:{repeats}"),
            Validation::LeaveOneOut => write!(f, "loo"),
            Validation::Holdout { fraction, repeats: 1 } => write!(f, "holdout:{fraction}"),
            Validation::Holdout { fraction, repeats } => write!(f, "holdout:{fraction}:{repeats}"),
            Validation::Predefined { test_fold } => write!(f, "predefined:{}", fold_ids(test_fold).len()),
        }
    }
}

/// The distinct test folds of a predefined assignment, ascending (`-1` excluded).
fn fold_ids(test_fold: &[i64]) -> Vec<i64> {
    let mut ids: Vec<i64> = test_fold.iter().copied().filter(|&f| f != -1).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

impl std::str::FromStr for Validation {
    type Err = TuneError;
    /// `K` or `kfold:K[:REPEATS]`, `loo`, `holdout:FRACTION[:REPEATS]`, or `file:PATH`: user-given
    /// folds read from a file ([`Validation::read_predefined`]).
    ///
    /// ```
    /// use kern_tune::cv::Validation;
    /// assert_eq!("5".parse::<Validation>()?, Validation::KFold { k: 5, repeats: 1 });
    /// assert_eq!("kfold:10:3".parse::<Validation>()?, Validation::KFold { k: 10, repeats: 3 });
    /// assert_eq!("loo".parse::<Validation>()?, Validation::LeaveOneOut);
    /// assert_eq!("holdout:0.2".parse::<Validation>()?, Validation::Holdout { fraction: 0.2, repeats: 1 });
    /// # Ok::<(), kern_tune::TuneError>(())
    /// ```
    fn from_str(s: &str) -> Result<Self> {
        if let Some(path) = s.trim().strip_prefix("file:") {
            return Validation::read_predefined(std::path::Path::new(path));
        }
        let bad = |why: &str| {
            TuneError::Validation(format!(
                "{s:?}: {why}; valid: K, kfold:K[:REPEATS], loo, holdout:FRACTION[:REPEATS], file:PATH"
            ))
        };
        let parts: Vec<&str> = s.trim().split(':').map(str::trim).collect();
        let int = |p: &str| p.parse::<usize>().map_err(|_| bad("expected a positive integer"));
        let v = match parts.as_slice() {
            [k] if k.parse::<usize>().is_ok() => Validation::KFold { k: int(k)?, repeats: 1 },
            ["loo"] | ["leave-one-out"] => Validation::LeaveOneOut,
            ["kfold", k] => Validation::KFold { k: int(k)?, repeats: 1 },
            ["kfold", k, r] => Validation::KFold { k: int(k)?, repeats: int(r)? },
            ["holdout", f] | ["holdout", f, _] => {
                let fraction = f.parse::<f64>().map_err(|_| bad("expected a fraction"))?;
                let repeats = if parts.len() == 3 { int(parts[2])? } else { 1 };
                Validation::Holdout { fraction, repeats }
            }
            _ => return Err(bad("unknown scheme")),
        };
        v.check_params()?;
        Ok(v)
    }
}

impl Validation {
    /// User-given folds ([`Validation::Predefined`]), checked: every value is `-1` or a fold number
    /// `≥ 0`, and there are at least two test folds.
    ///
    /// ```
    /// use kern_tune::cv::{make_folds, Validation};
    /// // Samples 0 and 3 are tested in fold 0, 1 and 4 in fold 1; sample 2 always trains.
    /// let v = Validation::predefined(vec![0, 1, -1, 0, 1])?;
    /// let folds = make_folds(5, None, &v, 0)?;
    /// assert_eq!((folds[0].test.clone(), folds[0].train.clone()), (vec![0, 3], vec![1, 2, 4]));
    /// assert_eq!((folds[1].test.clone(), folds[1].train.clone()), (vec![1, 4], vec![0, 2, 3]));
    /// assert!(Validation::predefined(vec![0, 0, -1]).is_err()); // one test fold only
    /// # Ok::<(), kern_tune::TuneError>(())
    /// ```
    pub fn predefined(test_fold: Vec<i64>) -> Result<Self> {
        let v = Validation::Predefined { test_fold };
        v.check_params()?;
        Ok(v)
    }

    /// Reads user-given folds from a text file: one integer per line, one line per sample in the
    /// order of the data file (the fold in which the sample is tested, `-1` for always training).
    /// Blank lines are not allowed (not even at the end, past the final newline), so that line
    /// `i` is always sample `i`.
    ///
    /// ```
    /// use kern_tune::cv::Validation;
    /// let p = std::env::temp_dir().join(format!("kern-doc-folds-{}.txt", std::process::id()));
    /// std::fs::write(&p, "0\n1\n-1\n1\n0\n").unwrap();
    /// let v = Validation::read_predefined(&p);
    /// let spec = format!("file:{}", p.display()).parse::<Validation>();
    /// std::fs::write(&p, "0\n1\nx\n").unwrap();
    /// let bad = Validation::read_predefined(&p);
    /// std::fs::remove_file(&p).unwrap();
    /// let v = v?;
    /// assert_eq!(v, Validation::Predefined { test_fold: vec![0, 1, -1, 1, 0] });
    /// assert_eq!(spec?, v);
    /// assert!(bad.unwrap_err().to_string().contains("line 3"));
    /// # Ok::<(), kern_tune::TuneError>(())
    /// ```
    pub fn read_predefined(path: &std::path::Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            TuneError::Validation(format!("cannot read the fold file {}: {e}", path.display()))
        })?;
        let body = text.strip_suffix('\n').unwrap_or(&text);
        let mut test_fold = Vec::new();
        for (i, line) in body.split('\n').enumerate() {
            let v = line.trim_end_matches('\r').trim();
            let f = v.parse::<i64>().map_err(|_| {
                TuneError::Validation(format!(
                    "{}: line {}: {v:?} is not an integer; the fold file holds one fold number per line \
                     (-1: the sample always trains), one line per sample",
                    path.display(),
                    i + 1
                ))
            })?;
            test_fold.push(f);
        }
        Validation::predefined(test_fold).map_err(|e| match e {
            TuneError::Validation(m) => TuneError::Validation(format!("{}: {m}", path.display())),
            e => e,
        })
    }

    fn check_params(&self) -> Result<()> {
        match *self {
            Validation::KFold { k, repeats } => {
                if k < 2 {
                    return Err(TuneError::Validation(format!("k-fold needs k >= 2, got {k}")));
                }
                if repeats == 0 {
                    return Err(TuneError::Validation("repeats must be >= 1".into()));
                }
            }
            Validation::Holdout { fraction, repeats } => {
                if !(fraction > 0.0 && fraction < 1.0) {
                    return Err(TuneError::Validation(format!(
                        "hold-out fraction must be in (0, 1), got {fraction}"
                    )));
                }
                if repeats == 0 {
                    return Err(TuneError::Validation("repeats must be >= 1".into()));
                }
            }
            Validation::LeaveOneOut => {}
            Validation::Predefined { ref test_fold } => {
                if let Some(i) = test_fold.iter().position(|&f| f < -1) {
                    return Err(TuneError::Validation(format!(
                        "sample {} has fold {}: folds are numbers >= 0, or -1 for a sample that always trains",
                        i + 1,
                        test_fold[i]
                    )));
                }
                let k = fold_ids(test_fold).len();
                if k < 2 {
                    return Err(TuneError::Validation(format!(
                        "the fold assignment has {k} test fold{}; cross-validation needs at least 2",
                        if k == 1 { "" } else { "s" }
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Whether folds balance the classes.
///
/// ```
/// use kern_core::{BinaryTargets, RealTargets};
/// use kern_tune::cv::{CvConfig, Stratify, folds_for};
/// let y = BinaryTargets::from_f64(&[1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0])?;
/// let cfg = CvConfig { stratify: Stratify::Always, ..CvConfig::k_fold(2, 3) };
/// for f in folds_for(&y, &cfg)? {
///     assert_eq!(f.test.iter().filter(|&&i| i < 4).count(), 2); // two of each class per half
/// }
/// let real = RealTargets::new((0..8).map(f64::from).collect())?;
/// assert!(folds_for(&real, &cfg).is_err()); // regression targets have no classes
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stratify {
    /// Stratify when the targets have classes (binary or class targets), not for regression.
    #[default]
    Auto,
    /// Always stratify (an error for regression targets).
    Always,
    /// Never stratify.
    Never,
}

/// Options of [`cross_validate`] and [`crate::grid::grid_search`].
///
/// ```
/// use kern_core::RealTargets;
/// use kern_tune::cv::{CvConfig, folds_for};
/// let y = RealTargets::new((0..12).map(f64::from).collect())?;
/// let a = folds_for(&y, &CvConfig::k_fold(3, 9))?;
/// assert_eq!(a, folds_for(&y, &CvConfig::k_fold(3, 9))?); // same seed, same folds
/// assert_ne!(a, folds_for(&y, &CvConfig::k_fold(3, 10))?); // another seed, another shuffle
/// assert!(a.iter().all(|f| f.test.len() == 4));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct CvConfig {
    /// The split scheme (default 5-fold).
    pub validation: Validation,
    /// Class balancing of the folds (default: when the targets have classes).
    pub stratify: Stratify,
    /// The score (default: accuracy for classes, negative MSE for regression).
    pub scoring: Scoring,
    /// Seed of the shuffles (default 0). Same seed, same folds.
    pub seed: u64,
}

impl CvConfig {
    /// `k`-fold with the given seed, other options default.
    pub fn k_fold(k: usize, seed: u64) -> Self {
        CvConfig { validation: Validation::KFold { k, repeats: 1 }, seed, ..Default::default() }
    }
}

/// One training/test split.
///
/// ```
/// use kern_tune::cv::{Validation, make_folds};
/// let folds = make_folds(7, None, &Validation::KFold { k: 2, repeats: 2 }, 5)?;
/// assert_eq!(folds.len(), 4);
/// for f in &folds {
///     // Training and test parts are disjoint and cover the data.
///     let mut all: Vec<usize> = f.train.iter().chain(&f.test).copied().collect();
///     all.sort();
///     assert_eq!(all, (0..7).collect::<Vec<_>>());
/// }
/// assert_eq!((folds[3].repeat, folds[3].index), (1, 1));
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fold {
    /// Which repetition (0-based).
    pub repeat: usize,
    /// Which fold within the repetition (0-based).
    pub index: usize,
    /// Training indices, ascending.
    pub train: Vec<usize>,
    /// Test indices, ascending.
    pub test: Vec<usize>,
}

/// The folds of `validation` for `n` samples. With `strata` (class index of every sample) the folds are
/// stratified: in k-fold, every fold holds `⌊n_c/k⌋` or `⌈n_c/k⌉` samples of each class `c` (class
/// ratios kept within one sample) and fold sizes differ by at most one; in hold-out, each class
/// contributes `round(fraction · n_c)` samples to the validation part. Repetition `r` uses the random
/// stream `(seed, r)`, so the same seed always gives the same folds.
///
/// ```
/// use kern_tune::cv::{make_folds, Validation};
/// let folds = make_folds(10, None, &Validation::KFold { k: 3, repeats: 1 }, 42)?;
/// assert_eq!(folds.len(), 3);
/// let mut all: Vec<usize> = folds.iter().flat_map(|f| f.test.clone()).collect();
/// all.sort();
/// assert_eq!(all, (0..10).collect::<Vec<_>>());      // the test parts partition the data
/// assert_eq!(folds, make_folds(10, None, &Validation::KFold { k: 3, repeats: 1 }, 42)?);
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
pub fn make_folds(
    n: usize,
    strata: Option<&[usize]>,
    validation: &Validation,
    seed: u64,
) -> Result<Vec<Fold>> {
    validation.check_params()?;
    if let Some(s) = strata
        && s.len() != n
    {
        return Err(TuneError::Validation(format!("{} strata for {n} samples", s.len())));
    }
    if n < 2 {
        return Err(TuneError::Validation(format!("cross-validation needs at least 2 samples, got {n}")));
    }
    let mut out = Vec::new();
    match *validation {
        Validation::KFold { k, repeats } => {
            if k > n {
                return Err(TuneError::Validation(format!("{k} folds for only {n} samples")));
            }
            for r in 0..repeats {
                let mut g = rng::stream(seed, r as u64);
                let order = shuffled_order(&mut g, n, strata);
                // Stratified: classes are consecutive in `order`, so dealing positions round-robin gives
                // each fold floor/ceil of every class. Plain: contiguous chunks of the shuffled order.
                let fold_of: Vec<usize> = if strata.is_some() {
                    let mut f = vec![0; n];
                    for (pos, &i) in order.iter().enumerate() {
                        f[i] = pos % k;
                    }
                    f
                } else {
                    let mut f = vec![0; n];
                    let (base, extra) = (n / k, n % k);
                    let mut pos = 0;
                    for fold in 0..k {
                        let size = base + usize::from(fold < extra);
                        for &i in &order[pos..pos + size] {
                            f[i] = fold;
                        }
                        pos += size;
                    }
                    f
                };
                for fold in 0..k {
                    let (test, train): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| fold_of[i] == fold);
                    out.push(Fold { repeat: r, index: fold, train, test });
                }
            }
        }
        Validation::Predefined { ref test_fold } => {
            if test_fold.len() != n {
                return Err(TuneError::Validation(format!(
                    "the fold assignment has {} entries for {n} samples; give one fold per sample, in the \
                     order of the data",
                    test_fold.len()
                )));
            }
            for (index, id) in fold_ids(test_fold).into_iter().enumerate() {
                let (test, train): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| test_fold[i] == id);
                out.push(Fold { repeat: 0, index, train, test });
            }
        }
        Validation::LeaveOneOut => {
            for i in 0..n {
                let train = (0..n).filter(|&j| j != i).collect();
                out.push(Fold { repeat: 0, index: i, train, test: vec![i] });
            }
        }
        Validation::Holdout { fraction, repeats } => {
            for r in 0..repeats {
                let mut g = rng::stream(seed, r as u64);
                let mut is_test = vec![false; n];
                match strata {
                    Some(s) => {
                        for members in class_members(s) {
                            let mut m = members;
                            rng::shuffle(&mut g, &mut m);
                            let t = (fraction * m.len() as f64).round() as usize;
                            for &i in &m[..t.min(m.len())] {
                                is_test[i] = true;
                            }
                        }
                    }
                    None => {
                        let t = (fraction * n as f64).round() as usize;
                        for i in rng::sample_indices(&mut g, n, t.min(n)) {
                            is_test[i] = true;
                        }
                    }
                }
                let n_test = is_test.iter().filter(|&&b| b).count();
                if n_test == 0 || n_test == n {
                    return Err(TuneError::Validation(format!(
                        "hold-out fraction {fraction} leaves an empty side with {n} samples"
                    )));
                }
                let (test, train): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| is_test[i]);
                out.push(Fold { repeat: r, index: 0, train, test });
            }
        }
    }
    Ok(out)
}

/// Indices of each class, ascending, classes in index order (empty classes skipped): the groups that
/// stratified folds and the stratified train/test split ([`crate::split`]) draw from.
pub(crate) fn class_members(strata: &[usize]) -> Vec<Vec<usize>> {
    let k = strata.iter().copied().max().map_or(0, |m| m + 1);
    let mut m = vec![Vec::new(); k];
    for (i, &c) in strata.iter().enumerate() {
        m[c].push(i);
    }
    m.retain(|v| !v.is_empty());
    m
}

/// A shuffled order of `0..n`; with strata, each class shuffled and the classes concatenated in a
/// shuffled class order.
fn shuffled_order<R: rand::Rng>(g: &mut R, n: usize, strata: Option<&[usize]>) -> Vec<usize> {
    match strata {
        None => {
            let mut v: Vec<usize> = (0..n).collect();
            rng::shuffle(g, &mut v);
            v
        }
        Some(s) => {
            let mut classes = class_members(s);
            for m in &mut classes {
                rng::shuffle(g, m);
            }
            rng::shuffle(g, &mut classes);
            classes.concat()
        }
    }
}

/// The strata to use for `y` under `stratify` and `validation`.
pub(crate) fn strata_for<'a, T: CvTargets>(
    y: &'a T,
    stratify: Stratify,
    validation: &Validation,
) -> Result<Option<Cow<'a, [usize]>>> {
    if matches!(validation, Validation::LeaveOneOut | Validation::Predefined { .. }) {
        return Ok(None);
    }
    strata_of(y, stratify)
}

/// The strata `stratify` asks for: the class of every sample (class targets, unless
/// [`Stratify::Never`]), none for real targets (an error with [`Stratify::Always`]). Used by the folds
/// ([`strata_for`]) and the train/test split ([`crate::split`]).
pub(crate) fn strata_of<T: CvTargets>(y: &T, stratify: Stratify) -> Result<Option<Cow<'_, [usize]>>> {
    match (stratify, y.strata()) {
        (Stratify::Never, _) => Ok(None),
        (Stratify::Always, None) => {
            Err(TuneError::Validation("stratification needs class targets, these are real-valued".into()))
        }
        (_, s) => Ok(s),
    }
}

/// The folds `cfg` gives for `y` (stratified per `cfg.stratify`).
///
/// ```
/// use kern_core::ClassTargets;
/// use kern_tune::cv::{CvConfig, folds_for};
/// // Class targets are stratified by default: each of the 3 folds tests one "a" and one "b".
/// let y = ClassTargets::from_labels(&["a", "a", "a", "b", "b", "b"])?;
/// let folds = folds_for(&y, &CvConfig::k_fold(3, 0))?;
/// assert!(folds.iter().all(|f| f.test.len() == 2 && f.test.iter().filter(|&&i| i < 3).count() == 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn folds_for<T: CvTargets>(y: &T, cfg: &CvConfig) -> Result<Vec<Fold>> {
    let strata = strata_for(y, cfg.stratify, &cfg.validation)?;
    make_folds(y.n_targets(), strata.as_deref(), &cfg.validation, cfg.seed)
}

/// The seeded subsample of `m` of `n` indices (ascending) drawn for repetition `repeat`: exactly the
/// points [`crate::bandwidth::subsample_study`] uses in its repeat `repeat` with the same `seed`, so another
/// selection method (e.g. a grid search) can be run on the very same subsamples.
///
/// ```
/// use kern_tune::cv::subsample;
/// let s = subsample(100, 10, 7, 0)?;
/// assert_eq!(s.len(), 10);
/// assert!(s.windows(2).all(|w| w[0] < w[1]) && s[9] < 100);
/// assert_eq!(s, subsample(100, 10, 7, 0)?);
/// assert_ne!(s, subsample(100, 10, 7, 1)?);
/// assert!(subsample(5, 6, 7, 0).is_err());
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
pub fn subsample(n: usize, m: usize, seed: u64, repeat: usize) -> Result<Vec<usize>> {
    if m == 0 || m > n {
        return Err(TuneError::Param { name: "subsample size", value: m as f64, reason: "must be in 1..=n" });
    }
    Ok(rng::sample_indices(&mut rng::stream(seed, repeat as u64), n, m))
}

/// Per-fold scores with their summary.
///
/// ```
/// # use kern_core::{CoreError, RealTargets, Samples, learner::{Fit, Model}};
/// # struct MeanModel(f64);
/// # impl Model for MeanModel {
/// #     type Error = CoreError;
/// #     fn predict(&self, x: &Samples) -> Result<Vec<f64>, CoreError> { Ok(vec![self.0; x.n()]) }
/// # }
/// # /// Predicts the training mean.
/// # struct Mean;
/// # impl Fit<RealTargets> for Mean {
/// #     type Model = MeanModel;
/// #     type Error = CoreError;
/// #     fn fit(&self, _: &Samples, y: &RealTargets) -> Result<MeanModel, CoreError> {
/// #         Ok(MeanModel(y.values().iter().sum::<f64>() / y.len() as f64))
/// #     }
/// # }
/// use kern_tune::cv::{CvConfig, cross_validate};
/// let x = Samples::from_flat((0..20).map(f64::from).collect(), 20, 1)?;
/// let y = RealTargets::new((0..20).map(|i| (i % 2) as f64).collect())?;
/// let r = cross_validate(&Mean, &x, &y, &CvConfig::k_fold(4, 1))?;
/// assert_eq!((r.fold_scores.len(), r.validation.as_str()), (4, "kfold:4"));
/// assert!((r.mean - r.fold_scores.iter().sum::<f64>() / 4.0).abs() < 1e-15);
/// assert!(r.min <= r.mean && r.mean <= r.max && r.max <= 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CvReport {
    /// The scoring rule's name (`accuracy`, `neg_mse`, `neg_mae` or a custom name).
    pub scoring: String,
    /// The validation scheme, e.g. `kfold:5`.
    pub validation: String,
    /// Whether the folds were stratified.
    pub stratified: bool,
    /// The seed of the folds.
    pub seed: u64,
    /// Score of every fold, in fold order (repeat-major).
    pub fold_scores: Vec<f64>,
    /// Mean of the fold scores.
    pub mean: f64,
    /// Standard deviation of the fold scores (population, ddof = 0, as scikit-learn's `std_test_score`).
    pub std: f64,
    /// Lowest fold score.
    pub min: f64,
    /// Highest fold score.
    pub max: f64,
}

/// `(mean, std, min, max)` of scores (std with ddof = 0).
pub(crate) fn summarize(s: &[f64]) -> (f64, f64, f64, f64) {
    let n = s.len() as f64;
    let mean = s.iter().sum::<f64>() / n;
    let var = s.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    let min = s.iter().copied().fold(f64::INFINITY, f64::min);
    let max = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (mean, var.sqrt(), min, max)
}

/// Trains on `fold.train`, predicts `fold.test` and scores.
pub(crate) fn fit_and_score<P, T>(
    learner: &P,
    x: &Samples,
    y: &T,
    fold: &Fold,
    scoring: &Scoring,
    kind: TargetKind,
    context: impl Fn() -> String,
) -> Result<f64>
where
    P: Fit<T>,
    T: CvTargets,
{
    let learner_err = |e: BoxError| TuneError::Learner { context: context(), source: e };
    let xtr = x.select(&fold.train)?;
    let ytr = y.subset(&fold.train)?;
    let xte = x.select(&fold.test)?;
    let yte = y.subset(&fold.test)?;
    let model = learner.fit(&xtr, &ytr).map_err(|e| learner_err(Box::new(e)))?;
    let pred = model.predict(&xte).map_err(|e| learner_err(Box::new(e)))?;
    scoring.score(&pred, &yte.truth(), kind)
}

/// Cross-validates one learner: fits on every fold's training part (in parallel over folds), scores its
/// predictions on the test part, and summarises.
///
/// Fails when the data and targets disagree in length, the scheme does not fit the data, the scoring does
/// not fit the targets, or any fold fails to train (the error names the fold).
///
/// ```
/// # use kern_core::{CoreError, RealTargets, Samples, learner::{Fit, Model}};
/// # struct MeanModel(f64);
/// # impl Model for MeanModel {
/// #     type Error = CoreError;
/// #     fn predict(&self, x: &Samples) -> Result<Vec<f64>, CoreError> { Ok(vec![self.0; x.n()]) }
/// # }
/// # /// Predicts the training mean.
/// # struct Mean;
/// # impl Fit<RealTargets> for Mean {
/// #     type Model = MeanModel;
/// #     type Error = CoreError;
/// #     fn fit(&self, _: &Samples, y: &RealTargets) -> Result<MeanModel, CoreError> {
/// #         Ok(MeanModel(y.values().iter().sum::<f64>() / y.len() as f64))
/// #     }
/// # }
/// use kern_tune::cv::{CvConfig, Scoring, cross_validate};
/// // On constant targets the training mean is exact: every fold scores 0 (negative MSE).
/// let x = Samples::from_flat((0..9).map(f64::from).collect(), 9, 1)?;
/// let y = RealTargets::new(vec![1.5; 9])?;
/// let r = cross_validate(&Mean, &x, &y, &CvConfig::k_fold(3, 0))?;
/// assert_eq!(r.fold_scores, [0.0; 3]);
/// // Accuracy needs class targets.
/// let acc = CvConfig { scoring: Scoring::Accuracy, ..CvConfig::k_fold(3, 0) };
/// assert!(cross_validate(&Mean, &x, &y, &acc).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn cross_validate<P, T>(learner: &P, x: &Samples, y: &T, cfg: &CvConfig) -> Result<CvReport>
where
    P: Fit<T>,
    T: CvTargets,
{
    check_len(x, y)?;
    let kind = y.kind();
    let scoring = cfg.scoring.resolve(kind)?;
    let strata = strata_for(y, cfg.stratify, &cfg.validation)?;
    let folds = make_folds(y.n_targets(), strata.as_deref(), &cfg.validation, cfg.seed)?;
    let scores: Vec<Result<f64>> = folds
        .par_iter()
        .map(|f| {
            fit_and_score(learner, x, y, f, &scoring, kind, || {
                format!("repeat {} fold {}", f.repeat, f.index)
            })
        })
        .collect();
    let fold_scores = scores.into_iter().collect::<Result<Vec<f64>>>()?;
    let (mean, std, min, max) = summarize(&fold_scores);
    Ok(CvReport {
        scoring: scoring.name_for(Some(kind)),
        validation: cfg.validation.to_string(),
        stratified: strata.is_some(),
        seed: cfg.seed,
        fold_scores,
        mean,
        std,
        min,
        max,
    })
}

pub(crate) fn check_len<T: CvTargets>(x: &Samples, y: &T) -> Result<()> {
    if x.n() != y.n_targets() {
        return Err(kern_core::CoreError::Targets(format!(
            "{} targets for {} samples",
            y.n_targets(),
            x.n()
        ))
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bandwidth::{BandwidthOptions, Method, select_bandwidth, subsample_study};
    use proptest::prelude::*;

    #[test]
    fn subsample_is_the_draw_of_subsample_study() {
        let x = Samples::from_flat((0..600).map(|i| ((i * 37 + 11) % 101) as f64).collect(), 300, 2).unwrap();
        let opts = BandwidthOptions::default();
        let study = subsample_study(&x, None, Method::MeanToHalf, 40, 4, 99, &opts).unwrap();
        for (r, &b) in study.betas.iter().enumerate() {
            let xs = x.select(&subsample(300, 40, 99, r).unwrap()).unwrap();
            assert_eq!(select_bandwidth(&xs, None, Method::MeanToHalf, &opts).unwrap().beta, b);
        }
    }

    /// Predicts the mean of the training targets (the score depends on the training part).
    struct MeanOfTrain;
    struct Constant(f64);
    impl Model for Constant {
        type Error = kern_core::CoreError;
        fn predict(&self, x: &Samples) -> std::result::Result<Vec<f64>, kern_core::CoreError> {
            Ok(vec![self.0; x.n()])
        }
    }
    impl Fit<Targets> for MeanOfTrain {
        type Model = Constant;
        type Error = kern_core::CoreError;
        fn fit(&self, _: &Samples, y: &Targets) -> std::result::Result<Constant, kern_core::CoreError> {
            let t = y.truth();
            let m = t.iter().sum::<f64>() / t.len() as f64;
            Ok(Constant(if y.kind() == TargetKind::Real {
                m
            } else if m >= 0.0 {
                1.0
            } else {
                -1.0
            }))
        }
    }

    /// The fold of every sample in the folds of repetition 0 (the assignment a file would hold).
    fn assignment(folds: &[Fold], n: usize) -> Vec<i64> {
        let mut a = vec![-1; n];
        for f in folds.iter().filter(|f| f.repeat == 0) {
            for &i in &f.test {
                a[i] = f.index as i64;
            }
        }
        a
    }

    #[test]
    fn the_seeded_k_fold_assignment_given_as_predefined_folds_gives_the_same_scores() {
        let n = 53;
        let x = Samples::from_flat((0..n).map(|i| (i as f64 * 0.7).sin()).collect(), n, 1).unwrap();
        let real = Targets::Real(RealTargets::new((0..n).map(|i| (i as f64 * 1.3).cos()).collect()).unwrap());
        let labels: Vec<&str> = (0..n).map(|i| if (i * 7) % 5 < 2 { "a" } else { "b" }).collect();
        let binary = Targets::Binary(BinaryTargets::from_labels(&labels).unwrap());
        for (y, seed) in [(&real, 3), (&binary, 11)] {
            let cfg =
                CvConfig { validation: Validation::KFold { k: 5, repeats: 1 }, seed, ..Default::default() };
            let folds = folds_for(y, &cfg).unwrap();
            let v = Validation::predefined(assignment(&folds, n)).unwrap();
            let given = CvConfig { validation: v.clone(), seed: 999, ..Default::default() };
            // The same folds (test and training parts, in the same order) ...
            assert_eq!(folds_for(y, &given).unwrap(), folds);
            // ... hence the same fold scores, mean and spread.
            let a = cross_validate(&MeanOfTrain, &x, y, &cfg).unwrap();
            let b = cross_validate(&MeanOfTrain, &x, y, &given).unwrap();
            assert_eq!((a.fold_scores, a.mean, a.std), (b.fold_scores, b.mean, b.std));
            assert_eq!((b.validation.as_str(), b.stratified), ("predefined:5", false));
        }
    }

    #[test]
    fn bad_fold_assignments_are_errors_that_say_what_is_wrong() {
        let msg = |v: Vec<i64>| Validation::predefined(v).unwrap_err().to_string();
        assert!(msg(vec![0, 0, 0]).contains("1 test fold;"));
        assert!(msg(vec![-1, -1]).contains("0 test folds"));
        assert!(msg(vec![0, 1, -2]).contains("sample 3 has fold -2"));
        let v = Validation::predefined(vec![0, 1, 0]).unwrap();
        assert!(make_folds(4, None, &v, 0).unwrap_err().to_string().contains("3 entries for 4 samples"));
        let scratch = Scratch::new("kern-tune-folds");
        let dir = &scratch.0;
        let file = |name: &str, text: &str| {
            let p = dir.join(name);
            std::fs::write(&p, text).unwrap();
            format!("file:{}", p.display())
        };
        let err = |spec: String| spec.parse::<Validation>().unwrap_err().to_string();
        assert!(err(file("a", "0\n1\n1.5\n")).contains("line 3: \"1.5\" is not an integer"));
        assert!(err(file("b", "0\n\n1\n")).contains("line 2"));
        assert!(err(file("c", "0\n0\n")).contains("1 test fold"));
        assert!(err(format!("file:{}", dir.join("missing").display())).contains("cannot read the fold file"));
        // CRLF line ends and a missing final newline are fine.
        assert_eq!(
            file("d", "0\r\n1\r\n-1").parse::<Validation>().unwrap(),
            Validation::Predefined { test_fold: vec![0, 1, -1] }
        );
    }

    /// A scratch directory of one test, removed when dropped (also when the test fails).
    struct Scratch(std::path::PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn scratch_dirs_are_removed_when_dropped() {
        let scratch = Scratch::new("kern-tune-scratch");
        let p = scratch.0.clone();
        std::fs::write(p.join("f"), "1\n").unwrap();
        assert!(p.join("f").exists());
        drop(scratch);
        assert!(!p.exists());
    }

    proptest! {
        #![proptest_config(kern_testkit::proptest_config(48))]
        /// The law of `PredefinedSplit`: every sample with a fold is tested exactly once, in its own
        /// fold, and never trained on there; every other fold trains on it; `-1` always trains.
        #[test]
        fn predefined_folds_test_each_sample_once_and_never_train_on_it(
            raw in proptest::collection::vec(-1i64..6, 2..40),
        ) {
            let mut a = raw.clone();
            // At least two test folds.
            a[0] = 7;
            a[1] = 9;
            let n = a.len();
            let folds = make_folds(n, None, &Validation::predefined(a.clone()).unwrap(), 0).unwrap();
            let ids = fold_ids(&a);
            prop_assert_eq!(folds.len(), ids.len());
            let mut tested = vec![0usize; n];
            for (f, &id) in folds.iter().zip(&ids) {
                prop_assert_eq!(f.test.len() + f.train.len(), n);
                for &i in &f.test {
                    tested[i] += 1;
                    prop_assert_eq!(a[i], id);
                }
                for &i in &f.train {
                    prop_assert!(a[i] != id);
                }
                prop_assert!(f.test.windows(2).all(|w| w[0] < w[1]) && f.train.windows(2).all(|w| w[0] < w[1]));
            }
            for i in 0..n {
                prop_assert_eq!(tested[i], usize::from(a[i] != -1));
            }
        }

        #[test]
        fn subsample_is_distinct_ascending_and_seeded(n in 1usize..300, frac in 0.0f64..1.0, seed in any::<u64>(), r in 0usize..5) {
            let m = ((n as f64 * frac) as usize).max(1);
            let s = subsample(n, m, seed, r).unwrap();
            prop_assert_eq!(s.len(), m);
            prop_assert!(s.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(s[m - 1] < n);
            prop_assert_eq!(&s, &subsample(n, m, seed, r).unwrap());
            prop_assert!(subsample(n, n + 1, seed, r).is_err());
            prop_assert!(subsample(n, 0, seed, r).is_err());
        }
    }
}
