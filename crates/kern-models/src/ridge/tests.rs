use super::*;
use crate::krr::KernelRidgeParams;
use crate::lssvm::{LsSvm, LsSvmParams};
use crate::persist::{from_bytes, to_bytes};
use kern_core::learner::Fit;
use kern_testkit::data::green_red_binary;
use kern_testkit::data::normal;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

fn dense_k(kernel: &KernelSpec, x: &Samples) -> Mat<f64> {
    kern_core::gram(kernel, x).unwrap()
}

/// ‖A (b, α) − (0, y)‖ / ‖(0, y)‖ for the bordered system of eq. 14.
fn eq14_residual(kernel: &KernelSpec, x: &Samples, y: &[f64], m: &LsSvm) -> f64 {
    let k = dense_k(kernel, x);
    let n = x.n();
    let a = m.alpha(0);
    let b = m.bias(0);
    let mut r2 = a.iter().sum::<f64>().powi(2);
    for i in 0..n {
        let ka: f64 = (0..n).map(|j| k[(i, j)] * a[j]).sum();
        r2 += (b + ka + a[i] * m.lambda() - y[i]).powi(2);
    }
    r2.sqrt() / y.iter().map(|v| v * v).sum::<f64>().sqrt()
}

#[test]
fn eq14_residual_is_tiny_on_every_path_and_method() {
    let (x, y) = green_red_binary(400, 1);
    let g: KernelSpec = "gaussian:sigma=0.6".parse().unwrap();
    let cs: KernelSpec = "cs-gaussian:sigma=0.6,c=1.0,nu=3".parse().unwrap();
    for (kernel, path) in [(&g, PathChoice::Dense), (&cs, PathChoice::Dense), (&cs, PathChoice::Sparse)] {
        for lambda in [0.1, 10.0, 1000.0] {
            let m = LsSvmParams::new(kernel.clone()).gam(lambda).path(path).fit(&x, &y).unwrap();
            let r = eq14_residual(kernel, &x, y.y(), &m);
            assert!(r <= 1e-9, "{kernel} {path:?} λ={lambda}: residual {r:e}");
        }
        // The grid paths (eigen on dense, refactor on both) satisfy eq. 14 too.
        for gm in [GridMethod::Auto, GridMethod::Refactor] {
            let m = LsSvmParams::new(kernel.clone())
                .loo(vec![0.3, 30.0])
                .path(path)
                .grid_method(gm)
                .fit(&x, &y)
                .unwrap();
            let r = eq14_residual(kernel, &x, y.y(), &m);
            assert!(r <= 1e-9, "{kernel} {path:?} {gm:?}: residual {r:e}");
        }
    }
}

#[test]
fn dense_and_sparse_paths_give_the_same_model_on_a_compact_kernel() {
    let (x, y) = green_red_binary(500, 2);
    let cs: KernelSpec = "cs-gaussian:sigma=0.6,c=0.8,nu=3".parse().unwrap();
    let d = LsSvmParams::new(cs.clone()).gam(50.0).path(PathChoice::Dense).fit(&x, &y).unwrap();
    let s = LsSvmParams::new(cs.clone()).gam(50.0).path(PathChoice::Sparse).fit(&x, &y).unwrap();
    assert_eq!((d.path(), s.path()), (SolvePath::Dense, SolvePath::Sparse));
    let scale = d.alpha(0).iter().map(|v| v.abs()).fold(0.0, f64::max);
    for (a, b) in d.alpha(0).iter().zip(s.alpha(0)) {
        assert!((a - b).abs() <= 1e-9 * scale);
    }
    assert!((d.bias(0) - s.bias(0)).abs() <= 1e-9);
    let (t, _) = green_red_binary(200, 3);
    let fd = d.decision_function(&t).unwrap();
    let fs = s.decision_function(&t).unwrap();
    for i in 0..200 {
        assert!((fd[(i, 0)] - fs[(i, 0)]).abs() < 1e-9);
    }
    // Same for kernel ridge regression on real targets.
    let yr =
        RealTargets::new(y.y().iter().enumerate().map(|(i, v)| v + 0.1 * (i % 7) as f64).collect()).unwrap();
    let d = KernelRidgeParams::new(cs.clone()).lambda(0.05).path(PathChoice::Dense).fit(&x, &yr).unwrap();
    let s = KernelRidgeParams::new(cs).lambda(0.05).path(PathChoice::Sparse).fit(&x, &yr).unwrap();
    for (a, b) in d.alpha(0).iter().zip(s.alpha(0)) {
        assert!((a - b).abs() <= 1e-9 * scale.max(1.0));
    }
}

#[test]
fn a_lambda_grid_gives_the_same_models_as_independent_refits() {
    let (x, y) = green_red_binary(300, 4);
    let grid = vec![0.05, 1.0, 20.0, 400.0];
    for spec in ["gaussian:sigma=0.6", "cs-gaussian:sigma=0.6,c=0.9,nu=3"] {
        let kernel: KernelSpec = spec.parse().unwrap();
        let paths: &[PathChoice] = if spec.starts_with("cs") {
            &[PathChoice::Dense, PathChoice::Sparse]
        } else {
            &[PathChoice::Dense]
        };
        for &path in paths {
            for gm in [GridMethod::Auto, GridMethod::Refactor] {
                // Validation on the training set itself: the selection keeps every grid model's score,
                // and the chosen model must equal an independent fit at its λ.
                let (xv, yv) = green_red_binary(200, 5);
                let sel = LsSvmParams::new(kernel.clone())
                    .validation(grid.clone(), xv.clone(), Targets::Binary(yv.clone()))
                    .path(path)
                    .grid_method(gm)
                    .fit(&x, &y)
                    .unwrap();
                let chosen = sel.lambda();
                let single = LsSvmParams::new(kernel.clone()).lambda(chosen).path(path).fit(&x, &y).unwrap();
                for (a, b) in sel.alpha(0).iter().zip(single.alpha(0)) {
                    assert!((a - b).abs() <= 1e-8 * a.abs().max(1.0), "{spec} {path:?} {gm:?}");
                }
                assert!((sel.bias(0) - single.bias(0)).abs() <= 1e-8);
                // Every grid value: the recorded validation error equals the refit's error.
                let selection = sel.selection().unwrap();
                for (gi, &l) in grid.iter().enumerate() {
                    let m = LsSvmParams::new(kernel.clone()).lambda(l).path(path).fit(&x, &y).unwrap();
                    let pred = m.predict(&xv).unwrap();
                    let err = pred.iter().zip(yv.y()).filter(|(a, b)| a != b).count() as f64 / 200.0;
                    assert!((selection.error[gi] - err).abs() < 1e-12, "{spec} {path:?} {gm:?} λ={l}");
                }
            }
        }
    }
}

/// Brute-force LOO: refit without point i and predict it.
fn brute_loo_residuals(kernel: &KernelSpec, x: &Samples, y: &[f64], lambda: f64, bias: bool) -> Vec<f64> {
    let n = x.n();
    (0..n)
        .map(|i| {
            let keep: Vec<usize> = (0..n).filter(|&j| j != i).collect();
            let xs = x.select(&keep).unwrap();
            let ys = RealTargets::new(keep.iter().map(|&j| y[j]).collect()).unwrap();
            let xi = x.select(&[i]).unwrap();
            let f = if bias {
                LsSvmParams::new(kernel.clone())
                    .lambda(lambda)
                    .path(PathChoice::Dense)
                    .fit(&xs, &ys)
                    .unwrap()
                    .predict(&xi)
                    .unwrap()
            } else {
                KernelRidgeParams::new(kernel.clone())
                    .lambda(lambda)
                    .path(PathChoice::Dense)
                    .fit(&xs, &ys)
                    .unwrap()
                    .predict(&xi)
                    .unwrap()
            };
            y[i] - f[0]
        })
        .collect()
}

#[test]
fn closed_form_loo_equals_brute_force_refits() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let n = 60;
    let x = Samples::from_flat((0..2 * n).map(|_| rng.random::<f64>() * 2.0).collect(), n, 2).unwrap();
    let y: Vec<f64> =
        (0..n).map(|i| (x.row(i)[0] * 2.0).sin() + x.row(i)[1] + 0.1 * normal(&mut rng)).collect();
    let yt = RealTargets::new(y.clone()).unwrap();
    for spec in ["gaussian:sigma=0.7", "cs-gaussian:sigma=0.7,c=0.9,nu=3"] {
        let kernel: KernelSpec = spec.parse().unwrap();
        for bias in [true, false] {
            let lambda = 0.2;
            let want = brute_loo_residuals(&kernel, &x, &y, lambda, bias);
            let paths: &[PathChoice] = if spec.starts_with("cs") {
                &[PathChoice::Dense, PathChoice::Sparse]
            } else {
                &[PathChoice::Dense]
            };
            for &path in paths {
                for gm in [GridMethod::Auto, GridMethod::Refactor] {
                    // A one-value LOO grid records the mean squared LOO residual; recompute residuals
                    // from the selection via the engine's own formula and compare per point.
                    let enc = Encoded::real(&yt);
                    let lam = Lambda::Loo(vec![lambda]);
                    let p = Problem {
                        kernel: &kernel,
                        x: &x,
                        enc,
                        bias,
                        lambda: &lam,
                        path,
                        grid_method: gm,
                        ordering: kern_sparse::Ordering::Amd,
                        solver: kern_sparse::SolveOptions::default(),
                        weights: None,
                    };
                    let res = loo_residuals(p).unwrap();
                    for i in 0..n {
                        assert!(
                            (res[i] - want[i]).abs() < 1e-9 * want[i].abs().max(1.0),
                            "{spec} bias={bias} {path:?} {gm:?} point {i}: {} vs {}",
                            res[i],
                            want[i]
                        );
                    }
                    let mse = want.iter().map(|r| r * r).sum::<f64>() / n as f64;
                    let fitted = if bias {
                        LsSvmParams::new(kernel.clone())
                            .loo(vec![lambda])
                            .path(path)
                            .grid_method(gm)
                            .fit(&x, &yt)
                            .unwrap()
                            .selection()
                            .unwrap()
                            .mse[0]
                    } else {
                        KernelRidgeParams::new(kernel.clone())
                            .loo(vec![lambda])
                            .path(path)
                            .grid_method(gm)
                            .fit(&x, &yt)
                            .unwrap()
                            .selection()
                            .unwrap()
                            .mse[0]
                    };
                    assert!((fitted - mse).abs() < 1e-9 * mse);
                }
            }
        }
    }
}

#[test]
fn loo_selection_picks_a_sensible_lambda_and_classifies() {
    let (x, y) = green_red_binary(600, 8);
    let (t, yt) = green_red_binary(2000, 9);
    let m = LsSvmParams::new("gaussian:sigma=0.6".parse().unwrap()).fit(&x, &y).unwrap();
    let sel = m.selection().unwrap();
    assert_eq!(sel.criterion, "loo");
    assert_eq!(sel.method, "eigen");
    assert_eq!(sel.grid.len(), 17);
    let pred = m.predict(&t).unwrap();
    let err = pred.iter().zip(yt.y()).filter(|(a, b)| a != b).count() as f64 / 2000.0;
    // Bayes error of this mixture is about 0.2 (the paper's Table 3: 0.215–0.27).
    assert!(err < 0.3, "test error {err}");
}

#[test]
fn one_vs_rest_multiclass() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let centres = [[0.0, 0.0], [3.0, 0.0], [0.0, 3.0], [3.0, 3.0]];
    let mut rows = Vec::new();
    let mut labels = Vec::new();
    for i in 0..200 {
        let c = i % 4;
        rows.push([centres[c][0] + 0.5 * normal(&mut rng), centres[c][1] + 0.5 * normal(&mut rng)]);
        labels.push(["a", "b", "c", "d"][c]);
    }
    let x = Samples::from_rows(&rows).unwrap();
    let y = ClassTargets::from_labels(&labels).unwrap();
    for spec in ["gaussian:sigma=1", "cs-gaussian:sigma=1,c=2,nu=3"] {
        let m = LsSvmParams::new(spec.parse().unwrap()).fit(&x, &y).unwrap();
        assert_eq!(m.outputs(), 4);
        let pred = m.predict(&x).unwrap();
        let acc = pred.iter().zip(y.classes()).filter(|(p, c)| **p == **c as f64).count() as f64 / 200.0;
        assert!(acc > 0.95, "{spec}: {acc}");
        // Save → load → identical decisions.
        let back: LsSvm = from_bytes(&to_bytes(&m).unwrap(), "<bytes>").unwrap();
        assert_eq!(back.predict(&x).unwrap(), pred);
    }
    // Two classes as ClassTargets predict class indices 0/1.
    let y2 = ClassTargets::from_labels(
        &labels.iter().map(|l| if *l < "c" { "lo" } else { "hi" }).collect::<Vec<_>>(),
    )
    .unwrap();
    let m = LsSvmParams::new("gaussian:sigma=1".parse().unwrap()).gam(10.0).fit(&x, &y2).unwrap();
    let p = m.predict(&x).unwrap();
    assert!(p.iter().all(|&v| v == 0.0 || v == 1.0));
    assert!(p.iter().zip(y2.classes()).filter(|(p, c)| **p == **c as f64).count() > 190);
}

#[test]
fn regression_and_bad_input() {
    let (x, y) = green_red_binary(50, 12);
    assert!(LsSvmParams::new("gaussian:sigma=1".parse().unwrap()).gam(-1.0).fit(&x, &y).is_err());
    assert!(LsSvmParams::new("gaussian:sigma=1".parse().unwrap()).loo(vec![]).fit(&x, &y).is_err());
    assert!(
        LsSvmParams::new("gaussian:sigma=1".parse().unwrap()).path(PathChoice::Sparse).fit(&x, &y).is_err()
    );
    let short = BinaryTargets::from_f64(&[1.0, -1.0]).unwrap();
    assert!(LsSvmParams::new("gaussian:sigma=1".parse().unwrap()).gam(1.0).fit(&x, &short).is_err());
    // Validation targets of another kind are refused.
    let r = RealTargets::new(vec![0.0; 50]).unwrap();
    assert!(
        LsSvmParams::new("gaussian:sigma=1".parse().unwrap())
            .validation(vec![1.0], x.clone(), Targets::Real(r))
            .fit(&x, &y)
            .is_err()
    );
}

/// One-vs-rest with the iterative solver: `ν` and the four classes' targets solved in lockstep on the
/// lower-triangle storage give the direct solve's coefficients and intercepts (tol 1e-11: agreement to
/// 1e-8, the argument of kern-sparse's `tests/pcg.rs`), and the same predictions.
#[test]
fn one_vs_rest_iterative_equals_direct() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
    let centres = [[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]];
    let (mut rows, mut labels) = (Vec::new(), Vec::new());
    for i in 0..400 {
        let c = i % 4;
        rows.push([centres[c][0] + 0.6 * normal(&mut rng), centres[c][1] + 0.6 * normal(&mut rng)]);
        labels.push(["a", "b", "c", "d"][c]);
    }
    let x = Samples::from_rows(&rows).unwrap();
    let y = ClassTargets::from_labels(&labels).unwrap();
    let params =
        LsSvmParams::new("cs-gaussian:sigma=1,c=1.2,nu=3".parse().unwrap()).gam(5.0).path(PathChoice::Sparse);
    let solve = |solver| SolveOptions {
        solver,
        pcg: kern_sparse::PcgOptions { tol: 1e-11, ..Default::default() },
        ..SolveOptions::default()
    };
    let d = params.clone().solver(solve(Solver::Direct)).fit(&x, &y).unwrap();
    let it = params.solver(solve(Solver::Iterative)).fit(&x, &y).unwrap();
    assert_eq!((it.outputs(), it.solver()), (4, Solver::Iterative));
    assert!(it.pcg_report().unwrap().converged);
    for t in 0..4 {
        assert!((it.bias(t) - d.bias(t)).abs() < 1e-8 * d.bias(t).abs().max(1.0), "class {t}");
        for (a, b) in it.alpha(t).iter().zip(d.alpha(t)) {
            assert!((a - b).abs() < 1e-8 * b.abs().max(1.0), "class {t}: {a} vs {b}");
        }
    }
    assert_eq!(it.predict(&x).unwrap(), d.predict(&x).unwrap());
}

/// Multi-output kernel ridge regression (one factorization, `r` right-hand sides) equals one fit per
/// target column, on the dense and the sparse path, unweighted and weighted; the model round-trips
/// through its bytes; and `solve_kernel_matrix` on the Gram matrix gives the same coefficients.
#[test]
fn multi_output_krr_equals_one_fit_per_column() {
    use crate::weights::{FitWeighted, SampleWeights};
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(47);
    let n = 120;
    let x = Samples::from_flat((0..2 * n).map(|_| rng.random::<f64>() * 3.0).collect(), n, 2).unwrap();
    let y = Mat::from_fn(n, 3, |i, t| (x.row(i)[0] * (t + 1) as f64).sin() + x.row(i)[1] * t as f64);
    let w = SampleWeights::new((0..n).map(|i| 0.5 + (i % 3) as f64).collect()).unwrap();
    for spec in ["gaussian:sigma=0.8", "cs-gaussian:sigma=0.8,c=1.2"] {
        let p = KernelRidgeParams::new(spec.parse().unwrap()).lambda(0.05);
        for weights in [None, Some(&w)] {
            let multi = p.fit_outputs(&x, y.as_ref(), weights).unwrap();
            assert_eq!(multi.outputs(), 3);
            let f = multi.decision_function(&x).unwrap();
            for t in 0..3 {
                let col = Targets::Real(RealTargets::new((0..n).map(|i| y[(i, t)]).collect()).unwrap());
                let one = match weights {
                    None => p.fit_targets(&x, &col).unwrap(),
                    Some(w) => p.fit_weighted(&x, &col, w).unwrap(),
                };
                let scale = one.alpha(0).iter().fold(0.0f64, |m, v| m.max(v.abs()));
                for (a, b) in multi.alpha(t).iter().zip(one.alpha(0)) {
                    assert!((a - b).abs() <= 1e-10 * scale, "{spec} output {t}: {a} vs {b}");
                }
                let g = one.decision_function(&x).unwrap();
                for i in 0..n {
                    assert!((f[(i, t)] - g[(i, 0)]).abs() <= 1e-9, "{spec} output {t} row {i}");
                }
            }
            let again: crate::krr::KernelRidge =
                from_bytes(&to_bytes(&multi).unwrap(), "multi-output model").unwrap();
            // The same coefficients (the payload saves no timing), hence the same decision values.
            assert_eq!(again.decision_function(&x).unwrap(), f);
            if spec.starts_with("gaussian") {
                let k = dense_k(&spec.parse().unwrap(), &x);
                let a = crate::krr::solve_kernel_matrix(k, y.as_ref(), 0.05, weights).unwrap();
                for t in 0..3 {
                    for (i, b) in multi.alpha(t).iter().enumerate() {
                        assert!(
                            (a[(i, t)] - b).abs() <= 1e-10 * b.abs().max(1.0),
                            "kernel matrix, output {t}"
                        );
                    }
                }
            }
        }
    }
    let bad = Mat::from_fn(n, 1, |i, _| if i == 3 { f64::NAN } else { 0.0 });
    assert!(
        KernelRidgeParams::new("linear".parse().unwrap())
            .lambda(1.0)
            .fit_outputs(&x, bad.as_ref(), None)
            .is_err()
    );
}
