//! Tests of the C path ([`super::path`]): every warm-started fit along ascending `C`, reading the
//! shared kernel matrix of all samples, is ε-optimal for its own dual (KKT on the dense `Q` of the
//! training rows) and its objective equals a cold start's on the selected rows within the a-priori
//! bound `ε/2 · Σ C_i` (+ `1e-9` relative rounding) derived in `tests.rs` (`kkt`): both exits satisfy
//! `m − M ≤ ε` on the same convex dual. Predictions equal the trained model's on well-separated data.

use super::path::solve_path;
use super::*;
use kern_core::learner::{Fit, Model};
use kern_core::{BinaryTargets, KernelSpec, Samples};
use proptest::prelude::*;

proptest! {
    #![proptest_config(kern_testkit::proptest_config(32))]

    /// Four values of `C` given in any order, a training part of three quarters of the rows.
    #[test]
    fn warm_started_path_is_optimal_and_agrees_with_cold_starts(
        n in 8usize..60, d in 1usize..4, seed in 0u64..10_000, kern in 0usize..3,
        logc in proptest::collection::vec(-2.0f64..3.0, 4), tol_exp in 2i32..7)
    {
        let (x, y) = super::tests::random_problem(n, d, seed);
        let train: Vec<usize> = (0..n).filter(|i| i % 4 != 1).collect();
        let yt: Vec<f64> = train.iter().map(|&i| y[i]).collect();
        prop_assume!(yt.iter().any(|&v| v > 0.0) && yt.iter().any(|&v| v < 0.0));
        let k: KernelSpec = ["gaussian:sigma=0.8", "linear", "poly:degree=2,coef0=1"][kern].parse().unwrap();
        let tol = 10f64.powi(-tol_exp);
        let solver = SolverParams { tol, ..SolverParams::default() };
        let path: Vec<SvcParams> =
            logc.iter().map(|&e| SvcParams::new(k.clone()).c(10f64.powf(e)).solver(solver)).collect();
        let gram = SharedGram::new(&k, &x).unwrap();
        let targets = BinaryTargets::from_f64(&y).unwrap();
        let (sols, ys) = solve_path(&path, &gram, &x, &targets, &train, None).unwrap();
        prop_assert_eq!(&ys, &yt);
        let xt = x.select(&train).unwrap();
        let qm = super::tests::dense_q(&k, &xt, &(0..train.len()).collect::<Vec<_>>(), &yt);
        let m = train.len();
        for (sol, &e) in sols.iter().zip(&logc) {
            let c = 10f64.powf(e);
            prop_assert!(!sol.hit_cap);
            prop_assert!(sol.alpha.iter().all(|a| (0.0..=c).contains(a)));
            let ya: f64 = sol.alpha.iter().zip(&yt).map(|(a, y)| a * y).sum();
            prop_assert!(ya.abs() <= 1e-9 * c * m as f64);
            // The Gram entries and the dense reference differ by rounding only (1e-12 slack).
            let v = super::tests::kkt(&qm, &vec![-1.0; m], &yt, &vec![c; m], &sol.alpha);
            prop_assert!(v <= tol * (1.0 + 1e-6) + 1e-9 * c * m as f64, "violation {} > tol {}", v, tol);
            let cold = super::train::solve_svc(&k, &xt, &yt, vec![c; m], &solver, None);
            let (fw, fc) = (sol.objective, cold.stats.objective);
            let bound = tol / 2.0 * c * m as f64 + 1e-9 * (1.0 + fc.abs());
            prop_assert!((fw - fc).abs() <= bound, "C = {}: warm {} cold {} bound {}", c, fw, fc, bound);
        }
    }
}

/// Two well-separated clouds: the path's predictions on held-out rows equal those of a model trained
/// on the training rows, for every C; inconsistent inputs are errors.
#[test]
fn path_predictions_equal_the_trained_models() {
    let n = 120;
    let rows: Vec<[f64; 2]> = (0..n)
        .map(|i| [if i % 2 == 0 { 3.0 } else { -3.0 } + (i as f64 * 0.37).sin(), (i as f64 * 0.61).cos()])
        .collect();
    let y: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect();
    let x = Samples::from_rows(&rows).unwrap();
    let targets = BinaryTargets::from_f64(&y).unwrap();
    let (train, test): (Vec<usize>, Vec<usize>) = (0..n).partition(|i| i % 5 != 0);
    let k: KernelSpec = "gaussian:sigma=2".parse().unwrap();
    let gram = SharedGram::new(&k, &x).unwrap();
    let path: Vec<SvcParams> = [100.0, 0.01, 1.0].iter().map(|&c| SvcParams::new(k.clone()).c(c)).collect();
    let pred = SvcParams::predict_c_path(&path, &gram, &x, &targets, &train, &test).unwrap();
    let (xtr, ytr, xte) =
        (x.select(&train).unwrap(), targets.select(&train).unwrap(), x.select(&test).unwrap());
    for (p, want) in path.iter().zip(&pred) {
        assert_eq!(&p.fit(&xtr, &ytr).unwrap().predict(&xte).unwrap(), want);
    }
    let other = SvcParams::new("linear".parse().unwrap());
    assert!(SvcParams::predict_c_path(&[other], &gram, &x, &targets, &train, &test).is_err());
    assert!(SvcParams::predict_c_path(&path, &gram, &x, &targets, &[0, 2, 4], &test).is_err()); // one class
    assert!(SvcParams::predict_c_path(&path, &gram, &x, &targets, &train, &[n]).is_err());
}
