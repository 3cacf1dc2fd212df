//! `C` and `ν` chosen on the training data by k-fold cross-validation over a short log grid, so that a
//! user need not run a grid search ([`SvcParams::choose_c`], [`SvrParams::choose_c`],
//! [`NuSvcParams::choose_nu`], [`NuSvrParams::choose_nu`]).
//!
//! **C-SVC along the C path.** The kernel matrix of the (sub)sample is computed once
//! ([`SharedGram`]); in every fold, every one-vs-one pair of classes is fitted for all values of `C` in
//! ascending order, each fit starting from the previous one's solution ([`SvcParams::predict_c_path`]:
//! the previous optimum is feasible for a larger `C`), and the pairs vote as in one-vs-one
//! prediction. The whole search costs a small multiple of one fit. The vote is one-vs-one whatever the
//! model's multi-class scheme.
//!
//! **The others** (ε-SVR, ν-SVC, ν-SVR) cross-validate every grid value by ordinary fits.
//!
//! **Grid.** `C ∈ 10^{−1}, 10^{−0.5}, …, 10³` (9 values, the range of LIBSVM's guide at half-decade
//! steps); while the best value is the largest, the grid is extended upwards by two half-decades, at
//! most twice (a best value at the edge means the grid was too short, not that it was found).
//! `ν ∈ {0.05, 0.1, 0.2, …, 0.8}`, values that are infeasible for the classes' sizes left out, and for
//! ν-SVC the values at or below the separable limit (a fold's machine has no positive margin
//! multiplier `r`: such a ν has no solution of its own, it is the hard margin's). Ties go to the
//! smaller `C` (the smoother model) and the larger `ν`.
//!
//! **Sample weights** (the `_weighted` variants, for a model then trained with them): every fold
//! trains with its rows' weights, as the final fit will, and is scored unweighted — every test row
//! counts alike, as scikit-learn's `GridSearchCV` scores a fit given `sample_weight`.
//!
//! **Size.** Beyond `max_points` samples (default 3,000) the search runs on a seeded subsample of that
//! size, and the chosen value is reported with the number of points it was chosen on.
//!
//! ```
//! use kern_core::{ClassTargets, Samples};
//! use kern_models::svm::{AutoSearch, SvcParams};
//! let x = Samples::from_flat((0..120).map(|i| (i % 60) as f64 / 10.0 + if i >= 60 { 0.3 } else { 0.0 }).collect(), 60, 2)?;
//! let y = ClassTargets::from_labels(&(0..60).map(|i| if i % 3 == 0 { "a" } else { "b" }).collect::<Vec<_>>())?;
//! let p = SvcParams::new("gaussian:sigma=1".parse()?);
//! let ch = p.choose_c(&x, &y, &AutoSearch::default())?;
//! assert!(ch.curve.iter().any(|&(c, _)| c == ch.value));
//! assert_eq!((ch.parameter, ch.folds, ch.points), ("c", 5, 60));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::params::{NuSvcParams, NuSvrParams, SvcParams, SvrParams};
use super::path::{SharedGram, predict_path};
use super::svc::{check_len, most_voted};
use crate::error::{ModelsError, Result};
use crate::weights::{FitWeighted, SampleWeights, Weighted};
use kern_core::{BinaryTargets, ClassTargets, RealTargets, Samples, Targets};
use kern_tune::cv::{CvConfig, Validation, WeightedTargets, cross_validate, make_folds, subsample};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// How [`SvcParams::choose_c`] and the others search.
///
/// ```
/// use kern_core::{ClassTargets, Samples};
/// use kern_models::svm::{AutoSearch, SvcParams};
/// let x = Samples::from_flat((0..40).map(|i| (i as f64 * 0.37).sin() + (i % 2) as f64 * 1.5).collect(), 20, 2)?;
/// let y = ClassTargets::from_labels(&(0..20).map(|i| if i % 2 == 0 { "a" } else { "b" }).collect::<Vec<_>>())?;
/// let s = AutoSearch { folds: 4, ..Default::default() };
/// assert_eq!((AutoSearch::default().folds, AutoSearch::default().max_points), (5, 3000));
/// let ch = SvcParams::new("gaussian:sigma=1".parse()?).choose_c(&x, &y, &s)?;
/// assert_eq!((ch.folds, ch.points), (4, 20));
/// // The same seed, the same folds, the same choice.
/// assert_eq!(SvcParams::new("gaussian:sigma=1".parse()?).choose_c(&x, &y, &s)?.curve, ch.curve);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AutoSearch {
    /// Number of folds (default 5).
    pub folds: usize,
    /// Beyond this many samples, search on a seeded subsample of this size (default 3,000).
    pub max_points: usize,
    /// Seed of the folds and the subsample.
    pub seed: u64,
}

impl Default for AutoSearch {
    fn default() -> Self {
        AutoSearch { folds: 5, max_points: 3000, seed: 0 }
    }
}

/// A value chosen by cross-validation.
///
/// ```
/// use kern_core::{ClassTargets, Samples};
/// use kern_models::svm::{AutoSearch, SvcParams};
/// let x = Samples::from_flat((0..40).map(|i| (i as f64 * 0.37).sin() + (i % 2) as f64 * 1.5).collect(), 20, 2)?;
/// let y = ClassTargets::from_labels(&(0..20).map(|i| if i % 2 == 0 { "a" } else { "b" }).collect::<Vec<_>>())?;
/// let ch = SvcParams::new("gaussian:sigma=1".parse()?).choose_c(&x, &y, &AutoSearch::default())?;
/// assert_eq!((ch.parameter, ch.scoring), ("c", "accuracy"));
/// assert!(ch.curve.windows(2).all(|w| w[0].0 < w[1].0)); // ascending values
/// let best = ch.curve.iter().map(|c| c.1).fold(f64::MIN, f64::max);
/// assert_eq!(ch.curve.iter().find(|c| c.0 == ch.value).unwrap().1, best); // the best score's value
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AutoChoice {
    /// `"c"` or `"nu"`.
    pub parameter: &'static str,
    /// The chosen value.
    pub value: f64,
    /// Every value tried with its mean cross-validation score, in ascending order of the value.
    pub curve: Vec<(f64, f64)>,
    /// Values left out because their fits failed (a ν at or below the separable limit), ascending.
    pub failed: Vec<f64>,
    /// `"accuracy"` or `"neg_mse"` (higher is better).
    pub scoring: &'static str,
    /// Samples the search ran on.
    pub points: usize,
    /// Folds.
    pub folds: usize,
    /// Wall time of the search.
    pub seconds: f64,
}

/// The default grid of `C`: `10^{−1}` to `10³` in half-decades.
///
/// ```
/// let g = kern_models::svm::c_grid();
/// assert_eq!(g.len(), 9);
/// assert!((g[0] - 0.1).abs() < 1e-15 && (g[8] - 1000.0).abs() < 1e-9);
/// assert!(g.windows(2).all(|w| (w[1] / w[0] - 10f64.sqrt()).abs() < 1e-12));
/// ```
pub fn c_grid() -> Vec<f64> {
    (0..9).map(|i| 10f64.powf(-1.0 + 0.5 * i as f64)).collect()
}

const NU_GRID: [f64; 9] = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];

impl AutoSearch {
    fn check(&self, n: usize) -> Result<()> {
        if self.folds < 2 {
            return Err(ModelsError::Input(format!(
                "automatic values need at least 2 folds, got {}",
                self.folds
            )));
        }
        if self.max_points < 2 * self.folds {
            return Err(ModelsError::Input(format!(
                "automatic values need a search size of at least {} points, got {}",
                2 * self.folds,
                self.max_points
            )));
        }
        if n < 2 * self.folds {
            return Err(ModelsError::Input(format!(
                "automatic values are chosen by {}-fold cross-validation, which needs at least {} samples, got {n}",
                self.folds,
                2 * self.folds
            )));
        }
        Ok(())
    }

    /// The rows searched of `x` (with `targets` targets, checked against it): all, or a seeded
    /// subsample of `max_points`.
    fn rows(&self, x: &Samples, targets: usize) -> Result<Vec<usize>> {
        check_len(x, targets)?;
        self.check(x.n())?;
        let n = x.n();
        if n <= self.max_points {
            return Ok((0..n).collect());
        }
        Ok(subsample(n, self.max_points, self.seed, 0)?)
    }

    /// The prologue of every search: the searched rows of `x` (which has `targets` targets), their
    /// weights (`w` checked against all the samples) and their samples.
    fn part(
        &self,
        x: &Samples,
        targets: usize,
        w: Option<&SampleWeights>,
    ) -> Result<(Vec<usize>, Option<Vec<f64>>, Samples)> {
        let rows = self.rows(x, targets)?;
        let ws = match w {
            Some(w) => {
                w.check_len(x.n())?;
                Some(rows.iter().map(|&i| w.values()[i]).collect())
            }
            None => None,
        };
        let xs = x.select(&rows)?;
        Ok((rows, ws, xs))
    }

    fn cv(&self) -> CvConfig {
        CvConfig::k_fold(self.folds, self.seed)
    }
}

/// The best of `curve` (highest score; ties to the first, i.e. in the order given).
fn best(curve: &[(f64, f64)]) -> (usize, f64) {
    let mut b = 0;
    for (i, &(_, s)) in curve.iter().enumerate() {
        if s > curve[b].1 {
            b = i;
        }
    }
    (b, curve[b].0)
}

/// Runs `score` over the C grid, extending it upwards (two half-decades, at most twice) while the best
/// value is the largest; returns the curve in ascending order.
fn along_c(mut score: impl FnMut(&[f64]) -> Result<Vec<f64>>) -> Result<Vec<(f64, f64)>> {
    let grid = c_grid();
    let mut curve: Vec<(f64, f64)> = grid.iter().copied().zip(score(&grid)?).collect();
    for _ in 0..2 {
        if best(&curve).0 + 1 != curve.len() {
            break;
        }
        let top = curve[curve.len() - 1].0;
        let more = [top * 10f64.sqrt(), top * 10.0];
        curve.extend(more.iter().copied().zip(score(&more)?));
    }
    Ok(curve)
}

impl SvcParams {
    /// Chooses `C` by `search.folds`-fold cross-validated accuracy along the C path (module notes),
    /// with this learner's kernel and class weights. The chosen value goes into
    /// [`SvcParams::c`](SvcParams::c) by the caller.
    pub fn choose_c(&self, x: &Samples, y: &ClassTargets, search: &AutoSearch) -> Result<AutoChoice> {
        self.choose_c_weighted(x, y, None, search)
    }

    /// [`SvcParams::choose_c`] for a model then trained with the sample weights `w`: every fold's
    /// path trains with its rows' weights (rows of weight 0 left out, as the weighted fit drops them),
    /// and accuracy counts every test row alike (module notes).
    ///
    /// ```
    /// use kern_core::{ClassTargets, Samples};
    /// use kern_models::{svm::{AutoSearch, SvcParams}, weights::SampleWeights};
    /// let x = Samples::from_flat((0..80).map(|i| ((i * 7919) % 101) as f64 / 25.0).collect(), 40, 2)?;
    /// let y = ClassTargets::from_labels(&(0..40).map(|i| if i % 2 == 0 { "a" } else { "b" }).collect::<Vec<_>>())?;
    /// let p = SvcParams::new("gaussian:sigma=1".parse()?);
    /// // Weight 1 everywhere searches as the unweighted search does.
    /// let ones = SampleWeights::new(vec![1.0; 40])?;
    /// let s = AutoSearch::default();
    /// assert_eq!(p.choose_c_weighted(&x, &y, Some(&ones), &s)?.curve, p.choose_c(&x, &y, &s)?.curve);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn choose_c_weighted(
        &self,
        x: &Samples,
        y: &ClassTargets,
        w: Option<&SampleWeights>,
        search: &AutoSearch,
    ) -> Result<AutoChoice> {
        let t = Instant::now();
        let (rows, ws, xs) = search.part(x, y.len(), w)?;
        let ys = y.select(&rows)?;
        let gram = SharedGram::new(&self.kernel, &xs)?;
        let folds = make_folds(
            xs.n(),
            Some(ys.classes()),
            &Validation::KFold { k: search.folds, repeats: 1 },
            search.seed,
        )?;
        let k = ys.n_classes();
        let present: Vec<usize> = (0..k).filter(|&c| ys.counts()[c] > 0).collect();
        let pairs: Vec<(usize, usize)> = present
            .iter()
            .enumerate()
            .flat_map(|(i, &a)| present[i + 1..].iter().map(move |&b| (a, b)))
            .collect();
        // The binary targets of each pair over all rows (rows of other classes are never trained on).
        let pair_targets: Vec<BinaryTargets> = pairs
            .iter()
            .map(|&(a, b)| {
                let names: Vec<&str> = ys
                    .classes()
                    .iter()
                    .map(|&c| if c == a { ys.names()[a].as_str() } else { ys.names()[b].as_str() })
                    .collect();
                Ok(BinaryTargets::from_labels(&names)?)
            })
            .collect::<Result<_>>()?;
        let positive: Vec<usize> = pairs
            .iter()
            .zip(&pair_targets)
            .map(|(&(a, b), t)| if t.names()[1] == ys.names()[a] { a } else { b })
            .collect();
        let score = |cs: &[f64]| -> Result<Vec<f64>> {
            // Each pair's path, with the class weights of its two classes.
            let paths: Vec<Vec<SvcParams>> = pair_targets
                .iter()
                .map(|t| {
                    let p = self.for_labels(&t.names()[..]).probability(false, 0);
                    cs.iter().map(|&c| p.clone().c(c)).collect()
                })
                .collect();
            let jobs: Vec<(usize, usize)> =
                (0..folds.len()).flat_map(|f| (0..pairs.len()).map(move |p| (f, p))).collect();
            // Predictions of every (fold, pair) at every C: ±1 per test row of the fold, or None when the
            // fold's training part lacks one of the pair's classes.
            let preds: Vec<Option<Vec<Vec<f64>>>> = jobs
                .par_iter()
                .map(|&(f, p)| {
                    let (a, b) = pairs[p];
                    let train: Vec<usize> = folds[f]
                        .train
                        .iter()
                        .copied()
                        .filter(|&i| ys.classes()[i] == a || ys.classes()[i] == b)
                        .filter(|&i| ws.as_ref().is_none_or(|w| w[i] > 0.0))
                        .collect();
                    let has = |c: usize| train.iter().any(|&i| ys.classes()[i] == c);
                    if !(has(a) && has(b)) {
                        return Ok(None);
                    }
                    let (path, t) = (&paths[p], &pair_targets[p]);
                    predict_path(path, &gram, &xs, t, &train, &folds[f].test, ws.as_deref()).map(Some)
                })
                .collect::<Result<_>>()?;
            // Mean over folds of the fold's accuracy, as cross-validation reports it.
            let mut mean = vec![0.0; cs.len()];
            for (f, fold) in folds.iter().enumerate() {
                for (ci, m) in mean.iter_mut().enumerate() {
                    let mut hits = 0usize;
                    for (r, &i) in fold.test.iter().enumerate() {
                        let mut votes = vec![0usize; k];
                        for (p, &(a, b)) in pairs.iter().enumerate() {
                            if let Some(pr) = &preds[f * pairs.len() + p] {
                                let pos = positive[p];
                                let neg = if pos == a { b } else { a };
                                votes[if pr[ci][r] > 0.0 { pos } else { neg }] += 1;
                            }
                        }
                        hits += usize::from(most_voted(&votes) == ys.classes()[i]);
                    }
                    *m += hits as f64 / fold.test.len() as f64 / folds.len() as f64;
                }
            }
            Ok(mean)
        };
        let curve = along_c(score)?;
        let (_, value) = best(&curve);
        Ok(AutoChoice {
            parameter: "c",
            value,
            curve,
            failed: Vec::new(),
            scoring: "accuracy",
            points: xs.n(),
            folds: search.folds,
            seconds: t.elapsed().as_secs_f64(),
        })
    }
}

/// Cross-validated mean score of `learner` on `(x, y)`. With sample weights `ws` (one per row of `x`),
/// every fold trains with its rows' weights and is scored unweighted (module notes).
fn cv_score<P: FitWeighted + Clone>(
    learner: &P,
    x: &Samples,
    y: &Targets,
    ws: Option<&[f64]>,
    s: &AutoSearch,
) -> Result<f64> {
    Ok(match ws {
        None => cross_validate(learner, x, y, &s.cv())?.mean,
        Some(ws) => {
            let y = WeightedTargets::new(y.clone(), ws.to_vec())?;
            cross_validate(&Weighted(learner.clone()), x, &y, &s.cv())?.mean
        }
    })
}

impl SvrParams {
    /// Chooses `C` by cross-validated mean squared error over the C grid (module notes).
    ///
    /// ```
    /// use kern_core::{RealTargets, Samples};
    /// use kern_models::svm::{AutoSearch, SvrParams};
    /// let x = Samples::from_flat((0..40).map(|i| i as f64 / 10.0).collect(), 40, 1)?;
    /// let y = RealTargets::new((0..40).map(|i| (i as f64 / 10.0).sin()).collect())?;
    /// let ch = SvrParams::new("gaussian:sigma=1".parse()?).choose_c(&x, &y, &AutoSearch::default())?;
    /// assert_eq!((ch.parameter, ch.scoring), ("c", "neg_mse"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn choose_c(&self, x: &Samples, y: &RealTargets, search: &AutoSearch) -> Result<AutoChoice> {
        self.choose_c_weighted(x, y, None, search)
    }

    /// [`SvrParams::choose_c`] for a model then trained with the sample weights `w`: every fold trains
    /// with its rows' weights, and the squared errors count every test row alike (module notes).
    ///
    /// ```
    /// use kern_core::{RealTargets, Samples};
    /// use kern_models::{svm::{AutoSearch, SvrParams}, weights::SampleWeights};
    /// let x = Samples::from_flat((0..40).map(|i| i as f64 / 10.0).collect(), 40, 1)?;
    /// let y = RealTargets::new((0..40).map(|i| (i as f64 / 10.0).sin()).collect())?;
    /// let p = SvrParams::new("gaussian:sigma=1".parse()?);
    /// let w = SampleWeights::new((0..40).map(|i| if i < 20 { 5.0 } else { 1.0 }).collect())?;
    /// let s = AutoSearch::default();
    /// assert_ne!(p.choose_c_weighted(&x, &y, Some(&w), &s)?.curve, p.choose_c(&x, &y, &s)?.curve);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn choose_c_weighted(
        &self,
        x: &Samples,
        y: &RealTargets,
        w: Option<&SampleWeights>,
        search: &AutoSearch,
    ) -> Result<AutoChoice> {
        let t = Instant::now();
        let (rows, ws, xs) = search.part(x, y.len(), w)?;
        let ys = Targets::Real(y.select(&rows)?);
        let curve = along_c(|cs| {
            cs.iter().map(|&c| cv_score(&self.clone().c(c), &xs, &ys, ws.as_deref(), search)).collect()
        })?;
        let (_, value) = best(&curve);
        Ok(AutoChoice {
            parameter: "c",
            value,
            curve,
            failed: Vec::new(),
            scoring: "neg_mse",
            points: xs.n(),
            folds: search.folds,
            seconds: t.elapsed().as_secs_f64(),
        })
    }
}

/// The values scored with their scores, and the values left out.
type NuCurve = (Vec<(f64, f64)>, Vec<f64>);

/// The ν grid searched for data whose smallest class pair allows at most `nu_max` (descending, so
/// that ties go to the larger ν); `score` gives `None` for a ν left out, listed in the second part.
fn nu_curve(nu_max: f64, mut score: impl FnMut(f64) -> Result<Option<f64>>) -> Result<NuCurve> {
    let (mut curve, mut failed) = (Vec::new(), Vec::new());
    for &nu in NU_GRID.iter().rev().filter(|&&nu| nu <= nu_max) {
        match score(nu)? {
            Some(s) => curve.push((nu, s)),
            None => failed.push(nu),
        }
    }
    if curve.is_empty() {
        return Err(ModelsError::Input(format!(
            "no value of nu is feasible (at most {nu_max}, and above the separable limit in every fold)"
        )));
    }
    Ok((curve, failed))
}

/// A cross-validation score, `None` when a fold's fit failed numerically (a ν-SVC without a positive
/// margin multiplier: ν at or below the separable limit).
fn unless_degenerate(score: Result<f64>) -> Result<Option<f64>> {
    match score {
        Err(ModelsError::Tune(kern_tune::TuneError::Learner { source, .. }))
            if matches!(source.downcast_ref::<ModelsError>(), Some(ModelsError::Numerical(_))) =>
        {
            Ok(None)
        }
        s => s.map(Some),
    }
}

fn nu_choice(
    (mut curve, mut failed): NuCurve,
    scoring: &'static str,
    points: usize,
    s: &AutoSearch,
    t: Instant,
) -> AutoChoice {
    let (_, value) = best(&curve);
    curve.reverse();
    failed.reverse();
    AutoChoice {
        parameter: "nu",
        value,
        curve,
        failed,
        scoring,
        points,
        folds: s.folds,
        seconds: t.elapsed().as_secs_f64(),
    }
}

impl NuSvcParams {
    /// Chooses `ν` by cross-validated accuracy over `{0.05, 0.1, 0.2, …, 0.8}`, leaving out the values
    /// infeasible for the training folds (ν-SVC needs `ν ≤ 2 min(n₊, n₋)/n` for every pair of classes)
    /// and those at or below the separable limit (a fold's machine without a positive margin).
    pub fn choose_nu(&self, x: &Samples, y: &ClassTargets, search: &AutoSearch) -> Result<AutoChoice> {
        self.choose_nu_weighted(x, y, None, search)
    }

    /// [`NuSvcParams::choose_nu`] for a model then trained with the sample weights `w`: every fold
    /// trains with its rows' weights and is scored unweighted, and the search also leaves out the values
    /// infeasible for the classes' weight totals (those of the weighted fit), with the same 10 % margin
    /// below the bound.
    ///
    /// ```
    /// use kern_core::{ClassTargets, Samples};
    /// use kern_models::{svm::{AutoSearch, NuSvcParams}, weights::SampleWeights};
    /// let x = Samples::from_flat((0..80).map(|i| ((i * 7919) % 101) as f64 / 25.0).collect(), 40, 2)?;
    /// let y = ClassTargets::from_labels(&(0..40).map(|i| if i % 2 == 0 { "a" } else { "b" }).collect::<Vec<_>>())?;
    /// // Class "a" weighs 3 times class "b": nu < 2 * 20 / 80 = 0.5 for the weighted fit, 10 % below kept.
    /// let w = SampleWeights::new((0..40).map(|i| if i % 2 == 0 { 3.0 } else { 1.0 }).collect())?;
    /// let p = NuSvcParams::new("gaussian:sigma=1".parse()?);
    /// let ch = p.choose_nu_weighted(&x, &y, Some(&w), &AutoSearch::default())?;
    /// assert!(ch.curve.iter().all(|&(nu, _)| nu <= 0.45));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn choose_nu_weighted(
        &self,
        x: &Samples,
        y: &ClassTargets,
        w: Option<&SampleWeights>,
        search: &AutoSearch,
    ) -> Result<AutoChoice> {
        let t = Instant::now();
        let (rows, ws, xs) = search.part(x, y.len(), w)?;
        let ys = y.select(&rows)?;
        let counts: Vec<f64> = ys.counts().iter().map(|&c| c as f64).collect();
        // The tightest pair, with a margin for the folds' rounding.
        let mut nu_max = nu_bound(&counts) * 0.9;
        if let Some(w) = w {
            w.check_len(x.n())?;
            let mut totals = vec![0.0; y.n_classes()];
            for (&c, &wi) in y.classes().iter().zip(w.values()) {
                totals[c] += wi;
            }
            // The same margin: at the bound itself the weighted machine has no positive margin.
            nu_max = nu_max.min(nu_bound(&totals) * 0.9);
        }
        let ys = Targets::Classes(ys);
        let curve = nu_curve(nu_max, |nu| {
            unless_degenerate(cv_score(&self.clone().nu(nu), &xs, &ys, ws.as_deref(), search))
        })?;
        Ok(nu_choice(curve, "accuracy", xs.n(), search, t))
    }
}

/// The largest ν feasible for the classes of sizes (or weight totals) `sizes`: `2 min(n_a, n_b) /
/// (n_a + n_b)` over the pairs of classes present.
fn nu_bound(sizes: &[f64]) -> f64 {
    let mut nu_max = 1.0f64;
    for a in 0..sizes.len() {
        for b in a + 1..sizes.len() {
            let (na, nb) = (sizes[a], sizes[b]);
            if na > 0.0 && nb > 0.0 {
                nu_max = nu_max.min(2.0 * na.min(nb) / (na + nb));
            }
        }
    }
    nu_max
}

impl NuSvrParams {
    /// Chooses `ν` by cross-validated mean squared error over `{0.05, 0.1, 0.2, …, 0.8}`.
    pub fn choose_nu(&self, x: &Samples, y: &RealTargets, search: &AutoSearch) -> Result<AutoChoice> {
        self.choose_nu_weighted(x, y, None, search)
    }

    /// [`NuSvrParams::choose_nu`] for a model then trained with the sample weights `w`: every fold
    /// trains with its rows' weights, and the squared errors count every test row alike.
    ///
    /// ```
    /// use kern_core::{RealTargets, Samples};
    /// use kern_models::{svm::{AutoSearch, NuSvrParams}, weights::SampleWeights};
    /// let x = Samples::from_flat((0..40).map(|i| i as f64 / 10.0).collect(), 40, 1)?;
    /// let y = RealTargets::new((0..40).map(|i| (i as f64 / 10.0).sin()).collect())?;
    /// let p = NuSvrParams::new("gaussian:sigma=1".parse()?);
    /// let ones = SampleWeights::new(vec![1.0; 40])?;
    /// let s = AutoSearch::default();
    /// assert_eq!(p.choose_nu_weighted(&x, &y, Some(&ones), &s)?.curve, p.choose_nu(&x, &y, &s)?.curve);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn choose_nu_weighted(
        &self,
        x: &Samples,
        y: &RealTargets,
        w: Option<&SampleWeights>,
        search: &AutoSearch,
    ) -> Result<AutoChoice> {
        let t = Instant::now();
        let (rows, ws, xs) = search.part(x, y.len(), w)?;
        let ys = Targets::Real(y.select(&rows)?);
        let curve =
            nu_curve(1.0, |nu| cv_score(&self.clone().nu(nu), &xs, &ys, ws.as_deref(), search).map(Some))?;
        Ok(nu_choice(curve, "neg_mse", xs.n(), search, t))
    }
}
