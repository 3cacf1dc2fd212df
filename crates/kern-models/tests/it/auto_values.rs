//! `C` and `ν` chosen by cross-validation: the warm-started one-vs-one path scores what ordinary fits
//! on the same folds score, the choice is the curve's best, and the search is deterministic.

use kern_core::{ClassTargets, RealTargets, Samples};
use kern_models::svm::{AutoSearch, NuSvcParams, NuSvrParams, SvcParams, SvrParams, c_grid};
use kern_testkit::data::blobs;
use kern_tune::cv::{CvConfig, cross_validate};

fn classes(per: usize, k: usize, seed: u64) -> (Samples, ClassTargets) {
    // Overlapping blobs: accuracy moves with C.
    let (x, c) = blobs(per, k, 2, 1.0, 0.8, seed);
    let names: Vec<String> = c.iter().map(|c| format!("class{c}")).collect();
    (x, ClassTargets::from_labels(&names).unwrap())
}

/// The path's accuracies are those of cold one-vs-one fits on the same folds. Warm and cold fits stop
/// at the same KKT tolerance, so a test point whose decision value lies within that tolerance of 0 may
/// be predicted differently: at most 2 such points per fold.
#[test]
fn the_path_scores_what_ordinary_fits_score() {
    for (k, seed) in [(2, 1), (3, 2), (4, 3)] {
        let (x, y) = classes(25, k, seed);
        let p = SvcParams::new("gaussian:sigma=1".parse().unwrap());
        let s = AutoSearch { seed: 9, ..Default::default() };
        let ch = p.choose_c(&x, &y, &s).unwrap();
        assert!(ch.curve.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(&ch.curve.iter().map(|c| c.0).collect::<Vec<_>>()[..9], &c_grid()[..]);
        let folds = kern_tune::cv::folds_for(&y, &CvConfig::k_fold(5, 9)).unwrap();
        let smallest = folds.iter().map(|f| f.test.len()).min().unwrap() as f64;
        for &(c, acc) in &ch.curve {
            let cold = cross_validate(&p.clone().c(c), &x, &y, &CvConfig::k_fold(5, 9)).unwrap();
            assert!((cold.mean - acc).abs() <= 2.0 / smallest, "k={k} c={c}: path {acc} cold {}", cold.mean);
        }
        // The choice is the best of the curve, the first (smallest C) among equals.
        let best = ch.curve.iter().map(|c| c.1).fold(f64::MIN, f64::max);
        let first = ch.curve.iter().find(|c| c.1 == best).unwrap().0;
        assert_eq!(ch.value, first);
        // Extended only while the best was the largest value.
        if ch.curve.len() > 9 {
            let (i, _) = ch.curve[..ch.curve.len() - 2]
                .iter()
                .enumerate()
                .fold((0, f64::MIN), |b, (i, c)| if c.1 > b.1 { (i, c.1) } else { b });
            assert_eq!(i, ch.curve.len() - 3);
        }
        let again = p.choose_c(&x, &y, &s).unwrap();
        assert_eq!((again.value, &again.curve), (ch.value, &ch.curve));
    }
}

/// Beyond `max_points` the search runs on a seeded subsample of that size.
#[test]
fn large_sets_are_searched_on_a_subsample() {
    let (x, y) = classes(40, 3, 4);
    let p = SvcParams::new("gaussian:sigma=1".parse().unwrap());
    let ch = p.choose_c(&x, &y, &AutoSearch { max_points: 60, ..Default::default() }).unwrap();
    assert_eq!(ch.points, 60);
    assert!(p.choose_c(&x, &y, &AutoSearch { folds: 1, ..Default::default() }).is_err());
    let tiny = x.select(&[0, 1, 2, 40, 41, 42]).unwrap();
    let ty = y.select(&[0, 1, 2, 40, 41, 42]).unwrap();
    assert!(p.choose_c(&tiny, &ty, &AutoSearch::default()).is_err());
}

/// ν: every value tried is feasible and fits; the choice is the curve's best, the largest among
/// equals; regression scores by mean squared error.
#[test]
fn nu_and_regression_choices() {
    let (x, y) = classes(20, 3, 5);
    let ch = NuSvcParams::new("gaussian:sigma=1".parse().unwrap())
        .choose_nu(&x, &y, &AutoSearch::default())
        .unwrap();
    assert!(ch.curve.windows(2).all(|w| w[0].0 < w[1].0));
    let best = ch.curve.iter().map(|c| c.1).fold(f64::MIN, f64::max);
    assert_eq!(ch.value, ch.curve.iter().rev().find(|c| c.1 == best).unwrap().0);
    let xr = Samples::from_flat((0..60).map(|i| i as f64 / 10.0).collect(), 60, 1).unwrap();
    let yr = RealTargets::new(
        (0..60).map(|i| (i as f64 / 10.0).sin() + if i % 7 == 0 { 0.3 } else { 0.0 }).collect(),
    )
    .unwrap();
    let svr = SvrParams::new("gaussian:sigma=1".parse().unwrap());
    let ch = svr.choose_c(&xr, &yr, &AutoSearch::default()).unwrap();
    assert_eq!(ch.scoring, "neg_mse");
    for &(c, mse) in &ch.curve {
        let cold = cross_validate(&svr.clone().c(c), &xr, &yr, &CvConfig::k_fold(5, 0)).unwrap();
        assert_eq!(cold.mean, mse, "c={c}");
    }
    let ch = NuSvrParams::new("gaussian:sigma=1".parse().unwrap())
        .choose_nu(&xr, &yr, &AutoSearch::default())
        .unwrap();
    assert!(ch.curve.iter().all(|c| c.1 <= 0.0) && ch.curve.iter().any(|c| c.0 == ch.value));
}

/// ν-SVC with a wide kernel on overlapping classes: the small values of ν, at or below the separable
/// limit, have no positive margin multiplier in some fold and are left out; the curve holds exactly
/// the grid values whose ordinary cross-validation trains, with the scores it gives.
#[test]
fn nu_below_the_separable_limit_is_left_out() {
    let (x, c) = blobs(30, 2, 4, 1.0, 1.0, 27);
    let names: Vec<String> = c.iter().map(|c| format!("class{c}")).collect();
    let y = ClassTargets::from_labels(&names).unwrap();
    let p = NuSvcParams::new("gaussian:sigma=4".parse().unwrap());
    let ch = p.choose_nu(&x, &y, &AutoSearch::default()).unwrap();
    let mut trained = Vec::new();
    for nu in [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8] {
        match cross_validate(&p.clone().nu(nu), &x, &y, &CvConfig::k_fold(5, 0)) {
            Ok(r) => trained.push((nu, r.mean)),
            Err(e) => assert!(format!("{e}").contains("margin multiplier"), "nu={nu}: {e}"),
        }
    }
    assert!(trained.len() < 9, "no value of nu failed: the test does not reach the separable limit");
    assert_eq!(ch.curve, trained);
}

/// Class weights on more than two classes: each pair's path weighs its own two classes, and scores
/// what ordinary weighted fits on the same folds score (within the tolerance of the first test).
#[test]
fn class_weights_apply_to_each_pairs_path() {
    let (x, y) = classes(25, 3, 6);
    let p = SvcParams::new("gaussian:sigma=1".parse().unwrap()).class_weight("class2", 4.0);
    let ch = p.choose_c(&x, &y, &AutoSearch::default()).unwrap();
    let folds = kern_tune::cv::folds_for(&y, &CvConfig::k_fold(5, 0)).unwrap();
    let smallest = folds.iter().map(|f| f.test.len()).min().unwrap() as f64;
    for &(c, acc) in &ch.curve {
        let cold = cross_validate(&p.clone().c(c), &x, &y, &CvConfig::k_fold(5, 0)).unwrap();
        assert!((cold.mean - acc).abs() <= 2.0 / smallest, "c={c}: path {acc} cold {}", cold.mean);
    }
    // The weight is read: unweighted, the curve differs.
    let plain = SvcParams::new("gaussian:sigma=1".parse().unwrap()).choose_c(&x, &y, &AutoSearch::default());
    assert_ne!(plain.unwrap().curve, ch.curve);
}

/// With sample weights, ν-SVC's search leaves out the values the weighted fit cannot take.
#[test]
fn nu_search_respects_the_weighted_fit() {
    let (x, y) = classes(20, 2, 7);
    let w: Vec<f64> = y.classes().iter().map(|&c| if c == 0 { 4.0 } else { 1.0 }).collect();
    let w = kern_models::weights::SampleWeights::new(w).unwrap();
    let p = NuSvcParams::new("gaussian:sigma=1".parse().unwrap());
    let ch = p.choose_nu_weighted(&x, &y, Some(&w), &AutoSearch::default()).unwrap();
    // Weight totals 80 and 20: nu <= 2 * 20 / 100 = 0.4.
    assert!(ch.curve.iter().all(|&(nu, _)| nu <= 0.4) && !ch.curve.is_empty());
    let unweighted = p.choose_nu(&x, &y, &AutoSearch::default()).unwrap();
    assert!(unweighted.curve.iter().any(|&(nu, _)| nu > 0.4));
    // (What the weighted fits score is checked in weighted_searches_score_weighted_fits.)
    use kern_models::weights::FitWeighted;
    let t = kern_core::Targets::Classes(y.clone());
    assert!(p.clone().nu(ch.value).fit_with(&x, &t, Some(&w)).is_ok());
}

/// A smooth target on a narrow initial width, for the ridge width search.
fn smooth(n: usize) -> (Samples, kern_core::Targets) {
    let x =
        Samples::from_flat((0..2 * n).map(|i| ((i * 7919) % 997) as f64 / 250.0).collect(), n, 2).unwrap();
    let y: Vec<f64> = (0..n)
        .map(|i| (x.row(i)[0] * 0.8).sin() + 0.3 * x.row(i)[1] + 0.05 * ((i * 13) % 7) as f64)
        .collect();
    (x, kern_core::Targets::Real(RealTargets::new(y).unwrap()))
}

/// The leave-one-out error the width search reports at its choice is the one that `n` refits
/// without each sample give (brute force), and no other factor's reported error is smaller.
#[test]
fn the_width_search_reports_true_leave_one_out_errors() {
    use kern_core::learner::Fit;
    use kern_models::krr::KernelRidgeParams;
    use kern_models::lssvm::LsSvmParams;
    let (x, y) = smooth(40);
    let kernel: kern_core::KernelSpec = "gaussian:sigma=0.3".parse().unwrap();
    let kr = KernelRidgeParams::new(kernel.clone()).choose_width(&x, &y, 0).unwrap();
    let ls = LsSvmParams::new(kernel).choose_width(&x, &y, 0).unwrap();
    let kern_core::Targets::Real(t) = &y else { unreachable!() };
    for (ch, bias) in [(&kr, false), (&ls, true)] {
        assert_eq!(ch.curve.iter().map(|c| c.factor).collect::<Vec<_>>(), [1.0, 2.0, 4.0, 8.0, 16.0]);
        let best = ch.curve.iter().find(|c| c.factor == ch.factor).unwrap();
        assert!(ch.curve.iter().all(|c| c.error >= best.error), "{ch:?}");
        assert_eq!(ch.kernel.to_string(), format!("gaussian:sigma={}", 0.3 * ch.factor));
        // Brute force: refit without sample i at the chosen width and λ.
        let mut sq = 0.0;
        for i in 0..x.n() {
            let rest: Vec<usize> = (0..x.n()).filter(|&j| j != i).collect();
            let (xr, yr) = (x.select(&rest).unwrap(), t.select(&rest).unwrap());
            let xi = x.select(&[i]).unwrap();
            let f = if bias {
                LsSvmParams::new(ch.kernel.clone()).lambda(best.lambda).fit(&xr, &yr).unwrap().predict(&xi)
            } else {
                KernelRidgeParams::new(ch.kernel.clone())
                    .lambda(best.lambda)
                    .fit(&xr, &yr)
                    .unwrap()
                    .predict(&xi)
            };
            sq += (t.values()[i] - f.unwrap()[0]).powi(2);
        }
        let brute = sq / x.n() as f64;
        // Declared before running: the closed form and the refits agree to 1e-8 relative.
        assert!(
            (brute - best.mse).abs() <= 1e-8 * brute,
            "bias {bias}: brute {brute}, reported {}",
            best.mse
        );
    }
    // The smooth target wants a wider kernel than 0.3.
    assert!(kr.factor > 1.0, "{kr:?}");
}

/// On all its samples the width search returns the chosen width's model: the model training on all of
/// them at the chosen kernel (λ by leave-one-out) gives, for kernel ridge and the LS-SVM.
#[test]
fn the_width_search_returns_the_model_a_refit_gives() {
    use kern_models::krr::KernelRidgeParams;
    use kern_models::lssvm::LsSvmParams;
    let (x, y) = smooth(40);
    let kernel: kern_core::KernelSpec = "gaussian:sigma=0.3".parse().unwrap();
    let kp = KernelRidgeParams::new(kernel.clone());
    let (ch, (m, seconds)) = kp.choose_width_with_fit(&x, &y, 0).unwrap();
    assert!(ch.searched_all(40) && seconds >= 0.0);
    assert_eq!(m, KernelRidgeParams { kernel: ch.kernel.clone(), ..kp }.fit_targets(&x, &y).unwrap());
    assert!(ch.factor > 1.0, "a smooth target: the model is not the given width's ({ch:?})");
    let lp = LsSvmParams::new(kernel);
    let (ch, (m, _)) = lp.choose_width_with_fit(&x, &y, 0).unwrap();
    assert_eq!(m, LsSvmParams { kernel: ch.kernel.clone(), ..lp }.fit_targets(&x, &y).unwrap());
}

/// Beyond its sample budget the search runs on a seeded subsample (same seed, same choice), whose λ
/// at the chosen width is the final model's: the search on those rows alone selects it, and the model
/// is the fit on all the samples at that width and λ. It refuses what it cannot search.
#[test]
fn the_width_search_subsamples_and_refuses() {
    use kern_models::krr::KernelRidgeParams;
    use kern_models::lssvm::LsSvmParams;
    use kern_models::ridge::width::{WIDTH_POINTS, search_points};
    let (x, y) = smooth(WIDTH_POINTS + 50);
    let p = KernelRidgeParams::new("gaussian:beta=4".parse().unwrap());
    let a = p.choose_width(&x, &y, 7).unwrap();
    assert_eq!(a.points, WIDTH_POINTS);
    assert!(!a.searched_all(x.n()));
    let (b, (m, _)) = p.choose_width_with_fit(&x, &y, 7).unwrap();
    assert_eq!((a.factor, &a.curve), (b.factor, &b.curve));
    assert_eq!(a.kernel.to_string(), format!("gaussian:beta={}", 4.0 / (a.factor * a.factor)));
    // λ: the leave-one-out selection of the subsample's own fit at the chosen width.
    let rows = search_points(x.n(), 7).unwrap().unwrap();
    let sub = KernelRidgeParams { kernel: a.kernel.clone(), ..p.clone() }
        .fit_targets(&x.select(&rows).unwrap(), &y.select(&rows).unwrap())
        .unwrap();
    assert_eq!(a.lambda(), sub.lambda());
    // The model: all the samples at that width and λ, trained once more by hand.
    let all = KernelRidgeParams { kernel: a.kernel.clone(), ..p.clone() }
        .lambda(a.lambda())
        .fit_targets(&x, &y)
        .unwrap();
    assert_eq!(m, all);
    let lp = LsSvmParams::new("gaussian:beta=4".parse().unwrap());
    let (c, (m, _)) = lp.choose_width_with_fit(&x, &y, 7).unwrap();
    assert_eq!(
        m,
        LsSvmParams { kernel: c.kernel.clone(), ..lp }.lambda(c.lambda()).fit_targets(&x, &y).unwrap()
    );
    let (xs, ys) = smooth(30);
    assert!(KernelRidgeParams::new("laplacian:sigma=1".parse().unwrap()).choose_width(&xs, &ys, 0).is_err());
    assert!(p.clone().lambda(0.1).choose_width(&xs, &ys, 0).is_err());
    assert!(p.choose_width(&xs, &smooth(31).1, 0).is_err());
}

/// Sample weights in the C and ν searches: each point of the curve scores what weighted fits of the
/// fold's training rows score on its test rows, counted unweighted (the reference here fits fold by fold
/// with `fit_weighted`); zero-weight rows are not trained on; weight 1 everywhere is the unweighted search.
#[test]
fn weighted_searches_score_weighted_fits() {
    use kern_core::{Targets, learner::Model};
    use kern_models::weights::{FitWeighted, SampleWeights};
    let search = AutoSearch { seed: 4, ..Default::default() };
    let cfg = CvConfig::k_fold(5, 4);
    // Weighted fits of every fold at one value, scored as the search scores: mean over folds of the
    // fold's accuracy (classes) or negative MSE (real targets).
    fn reference<P: FitWeighted>(p: &P, x: &Samples, y: &Targets, w: &[f64], cfg: &CvConfig) -> f64 {
        let folds = kern_tune::cv::folds_for(y, cfg).unwrap();
        let mut mean = 0.0;
        for f in &folds {
            let wt = SampleWeights::new(f.train.iter().map(|&i| w[i]).collect()).unwrap();
            let m = p.fit_weighted(&x.select(&f.train).unwrap(), &y.select(&f.train).unwrap(), &wt).unwrap();
            let pred = m.predict(&x.select(&f.test).unwrap()).unwrap();
            let truth = kern_tune::cv::CvTargets::truth(&y.select(&f.test).unwrap()).into_owned();
            let score = match y {
                Targets::Real(_) => -pred.iter().zip(&truth).map(|(p, t)| (p - t).powi(2)).sum::<f64>(),
                _ => pred.iter().zip(&truth).filter(|(p, t)| p == t).count() as f64,
            };
            mean += score / f.test.len() as f64 / folds.len() as f64;
        }
        mean
    }
    // Classes: the warm-started path against cold weighted fits, within the first test's tolerance.
    let (x, y) = classes(25, 3, 11);
    let w: Vec<f64> = (0..x.n()).map(|i| [0.0, 1.0, 3.0, 0.5][i % 4]).collect();
    let sw = SampleWeights::new(w.clone()).unwrap();
    let p = SvcParams::new("gaussian:sigma=1".parse().unwrap());
    let ch = p.choose_c_weighted(&x, &y, Some(&sw), &search).unwrap();
    let folds = kern_tune::cv::folds_for(&y, &cfg).unwrap();
    let smallest = folds.iter().map(|f| f.test.len()).min().unwrap() as f64;
    let t = Targets::Classes(y.clone());
    for &(c, acc) in &ch.curve {
        let cold = reference(&p.clone().c(c), &x, &t, &w, &cfg);
        assert!((cold - acc).abs() <= 2.0 / smallest, "c={c}: path {acc} cold {cold}");
    }
    let plain = p.choose_c(&x, &y, &search).unwrap();
    assert_ne!(plain.curve, ch.curve, "the weights are not read");
    let ones = SampleWeights::new(vec![1.0; x.n()]).unwrap();
    assert_eq!(p.choose_c_weighted(&x, &y, Some(&ones), &search).unwrap().curve, plain.curve);
    // ν-SVC and the regressions: ordinary fits, so the scores are equal up to the order of the sums.
    let nu = NuSvcParams::new("gaussian:sigma=1".parse().unwrap());
    let ch = nu.choose_nu_weighted(&x, &y, Some(&sw), &search).unwrap();
    for &(v, acc) in &ch.curve {
        assert!((reference(&nu.clone().nu(v), &x, &t, &w, &cfg) - acc).abs() <= 1e-12, "nu={v}");
    }
    let xr = Samples::from_flat((0..60).map(|i| i as f64 / 10.0).collect(), 60, 1).unwrap();
    let yr = RealTargets::new(
        (0..60).map(|i| (i as f64 / 10.0).sin() + if i % 7 == 0 { 0.3 } else { 0.0 }).collect(),
    )
    .unwrap();
    let wr: Vec<f64> = (0..60).map(|i| if i % 7 == 0 { 0.0 } else { 1.0 + (i % 3) as f64 }).collect();
    let swr = SampleWeights::new(wr.clone()).unwrap();
    let tr = Targets::Real(yr.clone());
    let svr = SvrParams::new("gaussian:sigma=1".parse().unwrap());
    for &(c, mse) in &svr.choose_c_weighted(&xr, &yr, Some(&swr), &search).unwrap().curve {
        assert!(
            (reference(&svr.clone().c(c), &xr, &tr, &wr, &cfg) - mse).abs() <= 1e-12 * mse.abs(),
            "c={c}"
        );
    }
    let nusvr = NuSvrParams::new("gaussian:sigma=1".parse().unwrap());
    for &(v, mse) in &nusvr.choose_nu_weighted(&xr, &yr, Some(&swr), &search).unwrap().curve {
        assert!(
            (reference(&nusvr.clone().nu(v), &xr, &tr, &wr, &cfg) - mse).abs() <= 1e-12 * mse.abs(),
            "nu={v}"
        );
    }
    // One weight per sample, or an error.
    let short = SampleWeights::new(vec![1.0; 10]).unwrap();
    assert!(svr.choose_c_weighted(&xr, &yr, Some(&short), &search).is_err());
}
