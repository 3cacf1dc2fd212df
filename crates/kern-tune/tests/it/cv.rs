//! Cross-validation and grid search: folds partition the data, stratification, determinism per seed
//! and across thread counts, grid parsing.

use kern_core::learner::{Fit, Model};
use kern_core::{BinaryTargets, ClassTargets, CoreError, RealTargets, Samples, Targets};
use kern_tune::cv::{CvConfig, Scoring, Stratify, Validation, cross_validate, folds_for, make_folds};
use kern_tune::grid::{
    GridSearchConfig, ParamGrid, ParamPoint, PathPredictions, grid_search, grid_search_along,
};
use proptest::prelude::*;

/// Nearest class mean, with the means shrunk towards the global mean by `shrink` (a parameter that
/// changes accuracy, for grid search). Predicts the class index (class targets) or ±1 (binary).
#[derive(Clone)]
struct Centroid {
    shrink: f64,
}
struct CentroidModel {
    means: Vec<Vec<f64>>,
    labels: Vec<f64>,
}
impl Model for CentroidModel {
    type Error = CoreError;
    fn predict(&self, x: &Samples) -> Result<Vec<f64>, CoreError> {
        Ok(x.rows()
            .map(|r| {
                let (best, _) = self
                    .means
                    .iter()
                    .enumerate()
                    .map(|(c, m)| (c, kern_core::sq_dist(r, m)))
                    .fold((0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
                self.labels[best]
            })
            .collect())
    }
}
fn fit_centroids(
    shrink: f64,
    x: &Samples,
    classes: &[usize],
    labels: Vec<f64>,
) -> Result<CentroidModel, CoreError> {
    if !(0.0..=1.0).contains(&shrink) {
        return Err(CoreError::Param { name: "shrink", value: shrink, reason: "must be in [0, 1]" });
    }
    let k = labels.len();
    let d = x.d();
    let mut means = vec![vec![0.0; d]; k];
    let mut cnt = vec![0.0; k];
    let mut global = vec![0.0; d];
    for (r, &c) in x.rows().zip(classes) {
        for j in 0..d {
            means[c][j] += r[j];
            global[j] += r[j] / x.n() as f64;
        }
        cnt[c] += 1.0;
    }
    for c in 0..k {
        for j in 0..d {
            let m = if cnt[c] > 0.0 { means[c][j] / cnt[c] } else { global[j] };
            means[c][j] = (1.0 - shrink) * m + shrink * global[j];
        }
    }
    Ok(CentroidModel { means, labels })
}
impl Fit<ClassTargets> for Centroid {
    type Model = CentroidModel;
    type Error = CoreError;
    fn fit(&self, x: &Samples, y: &ClassTargets) -> Result<CentroidModel, CoreError> {
        fit_centroids(self.shrink, x, y.classes(), (0..y.n_classes()).map(|c| c as f64).collect())
    }
}
impl Fit<BinaryTargets> for Centroid {
    type Model = CentroidModel;
    type Error = CoreError;
    fn fit(&self, x: &Samples, y: &BinaryTargets) -> Result<CentroidModel, CoreError> {
        let cl: Vec<usize> = y.y().iter().map(|&v| usize::from(v > 0.0)).collect();
        fit_centroids(self.shrink, x, &cl, vec![-1.0, 1.0])
    }
}

/// Ridge-free least squares on one feature with an intercept, shrunk by `lambda` (regression).
struct Line {
    lambda: f64,
}
struct LineModel(f64, f64);
impl Model for LineModel {
    type Error = CoreError;
    fn predict(&self, x: &Samples) -> Result<Vec<f64>, CoreError> {
        Ok(x.rows().map(|r| self.0 + self.1 * r[0]).collect())
    }
}
impl Fit<RealTargets> for Line {
    type Model = LineModel;
    type Error = CoreError;
    fn fit(&self, x: &Samples, y: &RealTargets) -> Result<LineModel, CoreError> {
        let n = x.n() as f64;
        let mx = x.rows().map(|r| r[0]).sum::<f64>() / n;
        let my = y.values().iter().sum::<f64>() / n;
        let sxy: f64 = x.rows().zip(y.values()).map(|(r, v)| (r[0] - mx) * (v - my)).sum();
        let sxx: f64 = x.rows().map(|r| (r[0] - mx) * (r[0] - mx)).sum();
        let b = sxy / (sxx + self.lambda);
        Ok(LineModel(my - b * mx, b))
    }
}

fn blobs(n: usize, k: usize, seed: u64) -> (Samples, ClassTargets) {
    let mut s = seed | 1;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut v = Vec::new();
    let mut lab = Vec::new();
    for i in 0..n {
        // unbalanced classes: class c gets weight c+1
        let c = (i * i + 3 * i) % (k * (k + 1) / 2);
        let c = (0..k).find(|&j| c < (j + 1) * (j + 2) / 2).unwrap();
        v.push(c as f64 * 1.5 + next() * 2.0);
        v.push(next() * 2.0);
        lab.push(format!("c{c}"));
    }
    (Samples::from_flat(v, n, 2).unwrap(), ClassTargets::from_labels(&lab).unwrap())
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(48))]

    /// Every repetition's test parts partition 0..n, train is the complement, sizes differ by ≤ 1,
    /// and the same seed gives the same folds.
    #[test]
    fn folds_partition(n in 2usize..200, k in 2usize..12, repeats in 1usize..4, seed in any::<u64>(), strat in any::<bool>()) {
        prop_assume!(k <= n);
        let strata: Vec<usize> = (0..n).map(|i| (i * 7 + i / 3) % 3).collect();
        let st = if strat { Some(strata.as_slice()) } else { None };
        let v = Validation::KFold { k, repeats };
        let folds = make_folds(n, st, &v, seed).unwrap();
        prop_assert_eq!(folds.len(), k * repeats);
        for r in 0..repeats {
            let fr: Vec<_> = folds.iter().filter(|f| f.repeat == r).collect();
            let mut seen = vec![0; n];
            for f in &fr {
                for &i in &f.test { seen[i] += 1; }
                let mut all: Vec<usize> = f.train.iter().chain(&f.test).copied().collect();
                all.sort();
                prop_assert_eq!(all, (0..n).collect::<Vec<_>>());
                prop_assert!(f.test.windows(2).all(|w| w[0] < w[1]) && f.train.windows(2).all(|w| w[0] < w[1]));
            }
            prop_assert!(seen.iter().all(|&c| c == 1));
            let sizes: Vec<usize> = fr.iter().map(|f| f.test.len()).collect();
            prop_assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
            if strat {
                // class ratios kept within one sample: each fold has ⌊n_c/k⌋ or ⌈n_c/k⌉ of class c
                for c in 0..3 {
                    let nc = strata.iter().filter(|&&s| s == c).count() as f64;
                    for f in &fr {
                        let in_fold = f.test.iter().filter(|&&i| strata[i] == c).count() as f64;
                        prop_assert!((in_fold - nc / k as f64).abs() < 1.0, "class {c}: {in_fold} vs {}", nc / k as f64);
                    }
                }
            }
        }
        prop_assert_eq!(&folds, &make_folds(n, st, &v, seed).unwrap());
    }
}

#[test]
fn different_seeds_differ_and_schemes() {
    let a = make_folds(50, None, &Validation::KFold { k: 5, repeats: 1 }, 1).unwrap();
    let b = make_folds(50, None, &Validation::KFold { k: 5, repeats: 1 }, 2).unwrap();
    assert_ne!(a, b);
    let loo = make_folds(7, None, &Validation::LeaveOneOut, 0).unwrap();
    assert_eq!(loo.len(), 7);
    assert!(loo.iter().enumerate().all(|(i, f)| f.test == vec![i] && f.train.len() == 6));
    let h = make_folds(100, None, &Validation::Holdout { fraction: 0.2, repeats: 3 }, 5).unwrap();
    assert_eq!(h.len(), 3);
    assert!(h.iter().all(|f| f.test.len() == 20 && f.train.len() == 80));
    assert_ne!(h[0].test, h[1].test);
    let strata: Vec<usize> = (0..100).map(|i| usize::from(i < 30)).collect();
    let hs = make_folds(100, Some(&strata), &Validation::Holdout { fraction: 0.2, repeats: 1 }, 5).unwrap();
    assert_eq!(hs[0].test.iter().filter(|&&i| i < 30).count(), 6);
    // invalid schemes
    assert!(make_folds(3, None, &Validation::KFold { k: 4, repeats: 1 }, 0).is_err());
    assert!(make_folds(10, None, &Validation::KFold { k: 1, repeats: 1 }, 0).is_err());
    assert!(make_folds(1, None, &Validation::LeaveOneOut, 0).is_err());
    assert!(make_folds(10, None, &Validation::Holdout { fraction: 1.0, repeats: 1 }, 0).is_err());
    assert!("kfold:x".parse::<Validation>().is_err());
}

#[test]
fn cross_validate_classes_binary_regression() {
    let (x, y) = blobs(240, 3, 5);
    let cfg = CvConfig { validation: Validation::KFold { k: 5, repeats: 2 }, seed: 3, ..Default::default() };
    let r = cross_validate(&Centroid { shrink: 0.0 }, &x, &y, &cfg).unwrap();
    assert_eq!(r.fold_scores.len(), 10);
    assert!(r.stratified);
    assert_eq!(r.scoring, "accuracy");
    assert!(r.mean > 0.6 && r.mean <= 1.0, "{}", r.mean);
    // same result on one thread
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    assert_eq!(r, pool.install(|| cross_validate(&Centroid { shrink: 0.0 }, &x, &y, &cfg).unwrap()));
    // the Targets enum works the same
    let t = Targets::Classes(y.clone());
    assert_eq!(r.fold_scores, cross_validate(&TargetsCentroid, &x, &t, &cfg).unwrap().fold_scores);
    // folds_for gives the folds used
    assert_eq!(folds_for(&y, &cfg).unwrap().len(), 10);

    let lab: Vec<f64> = y.classes().iter().map(|&c| if c == 0 { -1.0 } else { 1.0 }).collect();
    let yb = BinaryTargets::from_f64(&lab).unwrap();
    let rb = cross_validate(&Centroid { shrink: 0.0 }, &x, &yb, &cfg).unwrap();
    assert!(rb.mean > 0.7);

    let xr = Samples::from_flat((0..60).map(|i| i as f64 / 10.0).collect(), 60, 1).unwrap();
    let yr = RealTargets::new((0..60).map(|i| 2.0 * i as f64 / 10.0 + 1.0).collect()).unwrap();
    let rr = cross_validate(&Line { lambda: 0.0 }, &xr, &yr, &CvConfig::default()).unwrap();
    assert_eq!(rr.scoring, "neg_mse");
    assert!(!rr.stratified);
    assert!(rr.mean > -1e-20);
    let mae = CvConfig { scoring: Scoring::NegMae, ..Default::default() };
    assert_eq!(cross_validate(&Line { lambda: 50.0 }, &xr, &yr, &mae).unwrap().scoring, "neg_mae");
    // accuracy on regression and forced stratification of real targets are errors
    let acc = CvConfig { scoring: Scoring::Accuracy, ..Default::default() };
    assert!(cross_validate(&Line { lambda: 0.0 }, &xr, &yr, &acc).is_err());
    let st = CvConfig { stratify: Stratify::Always, ..Default::default() };
    assert!(cross_validate(&Line { lambda: 0.0 }, &xr, &yr, &st).is_err());
    // length mismatch
    assert!(cross_validate(&Line { lambda: 0.0 }, &x, &yr, &CvConfig::default()).is_err());
}

struct TargetsCentroid;
impl Fit<Targets> for TargetsCentroid {
    type Model = CentroidModel;
    type Error = CoreError;
    fn fit(&self, x: &Samples, y: &Targets) -> Result<CentroidModel, CoreError> {
        match y {
            Targets::Classes(c) => Centroid { shrink: 0.0 }.fit(x, c),
            _ => Err(CoreError::Targets("classes only".into())),
        }
    }
}

#[test]
fn grid_search_is_deterministic_and_picks_the_best() {
    let (x, y) = blobs(150, 3, 9);
    let grid: ParamGrid = "shrink=[0,0.5,0.9,0.99],dummy=1..2:2".parse().unwrap();
    let cfg = GridSearchConfig { cv: CvConfig { seed: 4, ..Default::default() }, refit: true };
    let build = |p: &ParamPoint| Ok::<_, CoreError>(Centroid { shrink: p["shrink"] });
    let r = grid_search(&grid, build, &x, &y, &cfg).unwrap();
    assert_eq!(r.cells.len(), 8);
    assert_eq!(r.n_folds, 5);
    let best = r.cells.iter().map(|c| c.mean).fold(f64::MIN, f64::max);
    assert_eq!(r.best_score(), best);
    assert_eq!(r.cells.iter().position(|c| c.mean == best).unwrap(), r.best);
    assert!(r.model.is_some());
    // each cell equals a standalone cross-validation with the same folds
    let cv = cross_validate(&Centroid { shrink: 0.5 }, &x, &y, &cfg.cv).unwrap();
    assert_eq!(r.cells[2].fold_scores, cv.fold_scores);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let r1 = pool.install(|| grid_search(&grid, build, &x, &y, &cfg).unwrap());
    assert_eq!(r.cells, r1.cells);
    assert_eq!(r.best, r1.best);

    // a failing cell (invalid parameter) is reported and skipped; all failing is an error
    let g2: ParamGrid = "shrink=[0,2]".parse().unwrap();
    let r2 = grid_search(&g2, build, &x, &y, &cfg).unwrap();
    assert!(r2.cells[1].error.as_deref().unwrap().contains("shrink"));
    assert_eq!(r2.best, 0);
    let g3: ParamGrid = "shrink=[2,3]".parse().unwrap();
    assert!(grid_search(&g3, build, &x, &y, &cfg).is_err());
    // a builder error marks the cell
    let r4 = grid_search(
        &"shrink=[0,0.5]".parse().unwrap(),
        |p: &ParamPoint| if p["shrink"] > 0.1 { Err("no".to_string()) } else { Ok(Centroid { shrink: 0.0 }) },
        &x,
        &y,
        &GridSearchConfig { refit: false, ..cfg.clone() },
    )
    .unwrap();
    assert!(r4.cells[1].error.is_some() && r4.model.is_none());
}

#[test]
fn grid_search_along_a_path_equals_the_cell_by_cell_search() {
    let (x, y) = blobs(150, 3, 9);
    // The path axis is given out of order; the fitter must see it ascending.
    let grid: ParamGrid = "shrink=[0.9,0,0.99,0.5],dummy=1..3:3".parse().unwrap();
    let cfg = GridSearchConfig { cv: CvConfig { seed: 4, ..Default::default() }, refit: false };
    let build = |p: &ParamPoint| Ok::<_, CoreError>(Centroid { shrink: p["shrink"] });
    let cells = grid_search(&grid, build, &x, &y, &cfg).unwrap();
    let prepared = std::sync::atomic::AtomicUsize::new(0);
    let prepare = |pts: &[ParamPoint]| {
        prepared.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok::<f64, kern_tune::BoxError>(pts[0]["dummy"])
    };
    let fit = |dummy: &f64, pts: &[ParamPoint], f: &kern_tune::cv::Fold| -> PathPredictions {
        assert!(pts.windows(2).all(|w| w[0]["shrink"] < w[1]["shrink"]), "path not ascending");
        assert!(pts.iter().all(|p| p["dummy"] == *dummy), "a path mixes other axes");
        let (xtr, ytr, xte) = (x.select(&f.train)?, y.select(&f.train)?, x.select(&f.test)?);
        pts.iter().map(|p| Ok(Centroid { shrink: p["shrink"] }.fit(&xtr, &ytr)?.predict(&xte)?)).collect()
    };
    let paths = grid_search_along(&grid, "shrink", &x, &y, &cfg, prepare, fit).unwrap();
    assert_eq!(prepared.load(std::sync::atomic::Ordering::Relaxed), 3, "one shared state per path");
    assert_eq!(paths.cells, cells.cells);
    assert_eq!((paths.best, paths.n_folds, paths.stratified), (cells.best, cells.n_folds, cells.stratified));
    // An axis the grid lacks is an error; a failing fit marks its whole path.
    assert!(grid_search_along(&grid, "c", &x, &y, &cfg, prepare, fit).is_err());
    let failing = |d: &f64, pts: &[ParamPoint], f: &kern_tune::cv::Fold| -> PathPredictions {
        if *d == 2.0 { Err("no".into()) } else { fit(d, pts, f) }
    };
    let r = grid_search_along(&grid, "shrink", &x, &y, &cfg, prepare, failing).unwrap();
    for c in &r.cells {
        assert_eq!(c.error.is_some(), c.params["dummy"] == 2.0);
    }
}

#[test]
fn grid_syntax() {
    let g: ParamGrid = "c=2^-5..2^15:11,sigma=0.1..10:5".parse().unwrap();
    assert_eq!(g.len(), 55);
    assert_eq!(g.axes()[0].values[10], 2f64.powi(15));
    assert_eq!(g.axes()[1].values, vec![0.1, 2.575, 5.05, 7.525, 10.0]);
    let p = g.points();
    assert_eq!(p[5]["c"], 2f64.powi(-3));
    assert_eq!(p[5]["sigma"], 0.1);
    let g: ParamGrid = "gamma=10^-3..10^3:7, epsilon=[0.01,0.1], lambda=0.5".parse().unwrap();
    assert_eq!(g.len(), 14);
    assert!((g.axes()[0].values[0] - 1e-3).abs() < 1e-18);
    assert_eq!(g.axes()[2].values, vec![0.5]);
    let back: ParamGrid = g.to_string().parse().unwrap();
    assert_eq!(back.len(), 14);
    for bad in ["", "c", "c=", "c=1..2", "c=1..2:0", "c=2^1..10^3:3", "c=1,c=2", "1c=2", "c=[1,x]", "c=nan"] {
        assert!(bad.parse::<ParamGrid>().is_err(), "{bad:?} should fail");
    }
    let pt = ParamPoint::from_pairs(&[("c", 1.0)]);
    assert!(pt.require("sigma").is_err());
}

/// A name may carry a dotted prefix (`kern cv` writes a kernel key that collides with a model
/// parameter as `k.c`, `k.nu`); it may not start with one.
#[test]
fn grid_names_may_carry_a_dotted_prefix() {
    let g: kern_tune::grid::ParamGrid = "c=[1,2],k.c=1..3:3".parse().unwrap();
    assert_eq!(g.names(), vec!["c", "k.c"]);
    assert_eq!(g.len(), 6);
    assert_eq!(g.points()[0].get("k.c"), Some(1.0));
    assert!(".c=[1]".parse::<kern_tune::grid::ParamGrid>().is_err());
    assert!("k c=[1]".parse::<kern_tune::grid::ParamGrid>().is_err());
}
