//! Per-sample weights: weight 1 everywhere is the unweighted model bit for bit; integer weights train
//! the machine of duplicated samples (C-SVC, kernel ridge: proptest); zero weights drop the sample;
//! invalid weights are errors.

use kern_core::learner::Fit;
use kern_core::{ClassTargets, RealTargets, Samples, Targets};
use kern_models::krr::KernelRidgeParams;
use kern_models::svm::{NuSvcParams, NuSvrParams, OneClassParams, SolverParams, SvcParams, SvrParams};
use kern_models::weights::{FitWeighted, SampleWeights};
use proptest::prelude::*;

/// A deterministic 2-D problem: `n` points, labels from a sine boundary (three classes when `k = 3`).
fn problem(n: usize, k: usize) -> (Samples, Targets, Targets) {
    let rows: Vec<[f64; 2]> = (0..n)
        .map(|i| {
            let t = i as f64;
            [(t * 0.7).sin() * 2.0, (t * 1.3).cos() * 2.0 + 0.1 * t / n as f64]
        })
        .collect();
    let labels: Vec<f64> = rows
        .iter()
        .map(|r| {
            let s = r[1] - r[0].sin();
            if k == 2 { f64::from(s > 0.0) } else { (s.clamp(-1.99, 1.99) + 2.0).floor().min(2.0) }
        })
        .collect();
    let real: Vec<f64> = rows.iter().map(|r| r[0].sin() + 0.3 * r[1]).collect();
    (
        Samples::from_rows(&rows).unwrap(),
        Targets::Classes(ClassTargets::from_f64(&labels).unwrap()),
        Targets::Real(RealTargets::new(real).unwrap()),
    )
}

fn ones(n: usize) -> SampleWeights {
    SampleWeights::new(vec![1.0; n]).unwrap()
}

#[test]
fn unit_weights_are_the_unweighted_models_bit_for_bit() {
    let (x, yc, yr) = problem(60, 3);
    let (_, y2, _) = problem(60, 2);
    let k: kern_core::KernelSpec = "gaussian:sigma=1".parse().unwrap();
    let w = ones(x.n());
    for y in [&y2, &yc] {
        let p = SvcParams::new(k.clone()).c(3.0).class_weight("1", 2.0);
        assert_eq!(p.fit_weighted(&x, y, &w).unwrap(), p.fit(&x, y).unwrap());
        let p = p.probability(true, 7);
        assert_eq!(p.fit_weighted(&x, y, &w).unwrap(), p.fit(&x, y).unwrap());
        let p = SvcParams::new(k.clone()).multiclass(kern_models::svm::Multiclass::OneVsRest);
        assert_eq!(p.fit_weighted(&x, y, &w).unwrap(), p.fit(&x, y).unwrap());
        let p = NuSvcParams::new(k.clone()).nu(0.3);
        assert_eq!(p.fit_weighted(&x, y, &w).unwrap(), p.fit(&x, y).unwrap());
    }
    let p = SvrParams::new(k.clone()).c(2.0).epsilon(0.05);
    assert_eq!(p.fit_weighted(&x, &yr, &w).unwrap(), p.fit(&x, &yr).unwrap());
    let p = NuSvrParams::new(k.clone()).c(0.7).nu(0.3);
    assert_eq!(p.fit_weighted(&x, &yr, &w).unwrap(), p.fit(&x, &yr).unwrap());
    for nu in [0.1, 0.37, 0.9] {
        let p = OneClassParams::new(k.clone()).nu(nu);
        assert_eq!(p.fit_weighted(&x, &w).unwrap(), p.fit(&x).unwrap());
    }
    let p = KernelRidgeParams::new(k).lambda(0.1);
    let (a, b) = (p.fit_weighted(&x, &yr, &w).unwrap(), p.fit(&x, &yr).unwrap());
    assert_eq!(a.alpha(0), b.alpha(0));
}

/// The rows of `x` (and entries of `y`) repeated `m_i` times.
fn duplicate(x: &Samples, y: &Targets, m: &[usize]) -> (Samples, Targets) {
    let idx: Vec<usize> = (0..x.n()).flat_map(|i| std::iter::repeat_n(i, m[i])).collect();
    (x.select(&idx).unwrap(), y.select(&idx).unwrap())
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(24))]

    /// Integer weights `m_i` (0 included) train the C-SVC of the data with sample `i` repeated `m_i`
    /// times. Both duals have the same optimum (sum the copies' α, or split α evenly) and the same
    /// `w = Σ α_i y_i φ(x_i)`. Tolerances, derived before running: SMO stops when the maximal KKT
    /// violation `m(α) − M(α)` is below `ε` (the tolerance); with `b` in `[M, m]` every sample adds at
    /// most `2 C_i ε` to the duality gap (`C_i ε` at a bound or at 0, `(C_i + α_i) ε` when free), so
    /// each dual objective is within `G = 2 ε Σ C_i` of the optimum, and `|obj_w − obj_d| ≤ G`. From
    /// `D(α) − D(α*) ≥ ½‖w(α) − w*‖²` (convexity, first-order optimality), `‖w − w*‖ ≤ √(2G)` for each,
    /// so the decision values without the bias differ by at most `2√(2G) · sup √k(x, x)` (= 1 for a
    /// Gaussian). A relative 1e-12 covers the floating-point summation of the objectives.
    #[test]
    fn integer_weights_equal_duplicated_samples_svc(
        n in 8usize..30, m in proptest::collection::vec(0usize..4, 30), c in 0.1f64..5.0,
    ) {
        let (x, y, _) = problem(n, 2);
        let m = &m[..n];
        let Targets::Classes(cls) = &y else { unreachable!() };
        let pos: usize = (0..n).filter(|&i| cls.classes()[i] == 1).map(|i| m[i]).sum();
        let neg: usize = (0..n).filter(|&i| cls.classes()[i] == 0).map(|i| m[i]).sum();
        prop_assume!(pos > 0 && neg > 0);
        let eps = 1e-8;
        let k = "gaussian:sigma=1".parse().unwrap();
        let p = SvcParams::new(k).c(c).solver(SolverParams { tol: eps, ..SolverParams::default() });
        let w = SampleWeights::new(m.iter().map(|&v| v as f64).collect()).unwrap();
        let mw = p.fit_weighted(&x, &y, &w).unwrap();
        let (xd, yd) = duplicate(&x, &y, m);
        let md = p.fit(&xd, &yd).unwrap();
        let total: f64 = (pos + neg) as f64 * c;
        let gap = 2.0 * eps * total;
        let (ow, od) = (mw.stats()[0].objective, md.stats()[0].objective);
        prop_assert!((ow - od).abs() <= gap + 1e-12 * (1.0 + ow.abs()), "objectives {ow} vs {od}, bound {gap}");
        let bound = 2.0 * (2.0 * gap).sqrt() + 1e-12;
        let (dw, dd) = (mw.decision_function(&x).unwrap(), md.decision_function(&x).unwrap());
        let (bw, bd) = (mw.machines()[0].2, md.machines()[0].2);
        for i in 0..n {
            let (fw, fd) = (dw[(i, 0)] - bw, dd[(i, 0)] - bd);
            prop_assert!((fw - fd).abs() <= bound, "sample {i}: {fw} vs {fd}, bound {bound}");
        }
    }

    /// Kernel ridge regression: integer weights are duplicated samples exactly (both minimize
    /// `Σ_i m_i (y_i − f(x_i))² + λ‖f‖²`). Tolerance: both are Cholesky solves of SPD systems with
    /// condition number at most `(n_d · max k + λ)/λ` (≤ 1 + 90/0.05 here); backward-stable solves give a
    /// forward error `≲ c · n_d · u · κ` with `u = 1.1e-16` — with the generous `c = 1000`,
    /// `1000 · 90 · 1.1e-16 · 1801 ≈ 2e-8` relative to the largest prediction.
    #[test]
    fn integer_weights_equal_duplicated_samples_krr(
        n in 5usize..30, m in proptest::collection::vec(0usize..4, 30), lambda in 0.05f64..2.0,
    ) {
        let (x, _, y) = problem(n, 2);
        let m = &m[..n];
        prop_assume!(m.iter().any(|&v| v > 0));
        let p = KernelRidgeParams::new("gaussian:sigma=1".parse().unwrap()).lambda(lambda);
        let w = SampleWeights::new(m.iter().map(|&v| v as f64).collect()).unwrap();
        let mw = p.fit_weighted(&x, &y, &w).unwrap();
        let (xd, yd) = duplicate(&x, &y, m);
        let md = p.fit(&xd, &yd).unwrap();
        let (pw, pd) = (mw.predict(&x).unwrap(), md.predict(&x).unwrap());
        let scale = pd.iter().fold(1.0f64, |a, v| a.max(v.abs()));
        for i in 0..n {
            prop_assert!((pw[i] - pd[i]).abs() <= 2e-8 * scale, "sample {i}: {} vs {}", pw[i], pd[i]);
        }
    }
}

#[test]
fn zero_weights_drop_the_sample() {
    let (x, y, yr) = problem(40, 2);
    let mut w = vec![1.0; 40];
    w[3] = 0.0;
    w[17] = 0.0;
    let keep: Vec<usize> = (0..40).filter(|&i| w[i] > 0.0).collect();
    let (xk, yk, yrk) = (x.select(&keep).unwrap(), y.select(&keep).unwrap(), yr.select(&keep).unwrap());
    let sw = SampleWeights::new(w).unwrap();
    let k: kern_core::KernelSpec = "gaussian:sigma=1".parse().unwrap();
    let p = SvcParams::new(k.clone());
    assert_eq!(p.fit_weighted(&x, &y, &sw).unwrap(), p.fit(&xk, &yk).unwrap());
    let p = NuSvrParams::new(k.clone());
    assert_eq!(p.fit_weighted(&x, &yr, &sw).unwrap(), p.fit(&xk, &yrk).unwrap());
    let p = OneClassParams::new(k);
    assert_eq!(p.fit_weighted(&x, &sw).unwrap(), p.fit(&xk).unwrap());
}

#[test]
fn invalid_weights_are_errors() {
    let (x, y, yr) = problem(10, 2);
    for bad in [vec![-1.0], vec![f64::NAN], vec![f64::INFINITY], vec![0.0, 0.0], vec![]] {
        assert!(SampleWeights::new(bad).is_err());
    }
    let short = SampleWeights::new(vec![1.0; 9]).unwrap();
    let k: kern_core::KernelSpec = "linear".parse().unwrap();
    assert!(SvcParams::new(k.clone()).fit_weighted(&x, &y, &short).is_err());
    assert!(KernelRidgeParams::new(k.clone()).lambda(1.0).fit_weighted(&x, &yr, &short).is_err());
    // A class whose samples all have weight 0 leaves nothing to separate it with.
    let Targets::Classes(c) = &y else { unreachable!() };
    let w: Vec<f64> = c.classes().iter().map(|&k| if k == 1 { 0.0 } else { 1.0 }).collect();
    let w = SampleWeights::new(w).unwrap();
    assert!(SvcParams::new(k.clone()).fit_weighted(&x, &y, &w).is_err());
    // Kernel ridge: weights need a fixed lambda (a leave-one-out grid is refused).
    assert!(KernelRidgeParams::new(k).fit_weighted(&x, &yr, &ones(10)).is_err());
}
