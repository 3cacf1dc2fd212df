//! Tests of the SVM solver and models: KKT conditions, agreement with an independent dense QP solver,
//! the max-margin hyperplane, the λ parametrization, the kernel-column paths, persistence.
#![allow(clippy::needless_range_loop)]

use super::train::Rows;
use super::*;
use crate::persist;
use kern_core::learner::{Fit, Model};
use kern_core::{BinaryTargets, ClassTargets, Kernel, KernelSpec, RealTargets, Samples};
use kern_sparse::kmatrix::Precomputed;
use kern_testkit::data::{green_red, normal};
use proptest::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

pub(super) fn dense_q(k: &KernelSpec, x: &Samples, sample: &[usize], sign: &[f64]) -> Vec<Vec<f64>> {
    sample
        .iter()
        .zip(sign)
        .map(|(&a, &sa)| {
            sample.iter().zip(sign).map(|(&b, &sb)| sa * sb * k.eval(x.row(a), x.row(b))).collect()
        })
        .collect()
}

fn objective(q: &[Vec<f64>], p: &[f64], a: &[f64]) -> f64 {
    let n = a.len();
    let mut v = 0.0;
    for i in 0..n {
        v += p[i] * a[i];
        for j in 0..n {
            v += 0.5 * a[i] * q[i][j] * a[j];
        }
    }
    v
}

/// Euclidean projection onto `{0 ≤ α ≤ c, yᵀα = 0}` by bisection on the multiplier.
fn project(v: &[f64], y: &[f64], c: &[f64]) -> Vec<f64> {
    let at = |mu: f64| -> Vec<f64> {
        v.iter().zip(y).zip(c).map(|((&vi, &yi), &ci)| (vi - mu * yi).clamp(0.0, ci)).collect()
    };
    let h = |a: &[f64]| a.iter().zip(y).map(|(a, y)| a * y).sum::<f64>();
    let big = v.iter().map(|x| x.abs()).fold(0.0, f64::max) + c.iter().fold(0.0, |m: f64, &x| m.max(x)) + 1.0;
    let (mut lo, mut hi) = (-big, big);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if h(&at(mid)) > 0.0 { lo = mid } else { hi = mid }
    }
    at(0.5 * (lo + hi))
}

/// An independent solver: accelerated projected gradient (FISTA) on the dense dual.
fn dense_qp(q: &[Vec<f64>], p: &[f64], y: &[f64], c: &[f64]) -> Vec<f64> {
    let n = p.len();
    let lip = q.iter().map(|r| r.iter().map(|v| v.abs()).sum::<f64>()).fold(1e-12, f64::max);
    let mut a = vec![0.0; n];
    let mut z = a.clone();
    let mut t = 1.0f64;
    let pg_step = |z: &[f64]| -> Vec<f64> {
        let g: Vec<f64> = (0..n).map(|i| p[i] + (0..n).map(|j| q[i][j] * z[j]).sum::<f64>()).collect();
        project(&(0..n).map(|i| z[i] - g[i] / lip).collect::<Vec<_>>(), y, c)
    };
    for it in 0..1_000_000 {
        let next = pg_step(&z);
        let t2 = (1.0 + (1.0 + 4.0 * t * t).sqrt()) / 2.0;
        z = (0..n).map(|i| next[i] + (t - 1.0) / t2 * (next[i] - a[i])).collect();
        a = next;
        t = t2;
        // Stop on the gradient mapping at the iterate itself (a fixed point of projected gradient).
        if it % 100 == 99 {
            let moved: f64 = pg_step(&a).iter().zip(&a).map(|(x, y)| (x - y).abs()).sum();
            if moved < 1e-13 {
                break;
            }
        }
    }
    a
}

fn tight() -> SolverParams {
    SolverParams { tol: 1e-9, ..SolverParams::default() }
}

pub(super) fn random_problem(n: usize, d: usize, seed: u64) -> (Samples, Vec<f64>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let rows: Vec<Vec<f64>> =
        (0..n).map(|_| (0..d).map(|_| rng.random::<f64>() * 4.0 - 2.0).collect()).collect();
    let mut y: Vec<f64> = (0..n).map(|_| if rng.random::<bool>() { 1.0 } else { -1.0 }).collect();
    y[0] = 1.0;
    y[1] = -1.0;
    (Samples::from_rows(&rows).unwrap(), y)
}

const KERNELS: [&str; 4] = ["gaussian:sigma=0.8", "linear", "poly:degree=2,coef0=1", "laplacian:sigma=1"];

#[test]
fn tiny_svc_problems_match_dense_qp() {
    for seed in 0..12u64 {
        let n = 3 + (seed as usize % 8);
        let (x, y) = random_problem(n, 2, seed);
        let k: KernelSpec = KERNELS[seed as usize % 4].parse().unwrap();
        let c = [0.5, 2.0, 10.0][seed as usize % 3];
        let m = SvcParams::new(k.clone())
            .c(c)
            .solver(tight())
            .fit(&x, &BinaryTargets::from_f64(&y).unwrap())
            .unwrap();
        // The model's +1 class is the larger label, as in y.
        let q = dense_q(&k, &x, &(0..n).collect::<Vec<_>>(), &y);
        let a = dense_qp(&q, &vec![-1.0; n], &y, &vec![c; n]);
        let reference = objective(&q, &vec![-1.0; n], &a);
        let ours = m.stats()[0].objective;
        assert!(
            (ours - reference).abs() <= 1e-6 * reference.abs().max(1.0),
            "seed {seed}: {ours} vs {reference}"
        );
    }
}

#[test]
fn tiny_svr_problems_match_dense_qp() {
    for seed in 0..8u64 {
        let n = 3 + (seed as usize % 7);
        let (x, _) = random_problem(n, 1, 100 + seed);
        let z: Vec<f64> = (0..n).map(|i| (x.row(i)[0] * 1.3).sin()).collect();
        let k: KernelSpec = KERNELS[seed as usize % 4].parse().unwrap();
        let (c, eps) = (4.0, 0.1);
        let m = SvrParams::new(k.clone())
            .c(c)
            .epsilon(eps)
            .solver(tight())
            .fit(&x, &RealTargets::new(z.clone()).unwrap())
            .unwrap();
        let sample: Vec<usize> = (0..n).chain(0..n).collect();
        let sign: Vec<f64> = (0..2 * n).map(|i| if i < n { 1.0 } else { -1.0 }).collect();
        let p: Vec<f64> = (0..2 * n).map(|i| if i < n { eps - z[i] } else { eps + z[i - n] }).collect();
        let q = dense_q(&k, &x, &sample, &sign);
        let a = dense_qp(&q, &p, &sign, &vec![c; 2 * n]);
        let reference = objective(&q, &p, &a);
        let ours = m.stats().objective;
        assert!(
            (ours - reference).abs() <= 1e-6 * reference.abs().max(1.0),
            "seed {seed}: {ours} vs {reference}"
        );
    }
}

/// `max_{I_up} −y∇f − min_{I_low} −y∇f` from a dense recomputation of the gradient.
fn kkt_violation(q: &[Vec<f64>], p: &[f64], y: &[f64], c: &[f64], a: &[f64]) -> f64 {
    let n = a.len();
    let (mut up, mut low) = (f64::NEG_INFINITY, f64::INFINITY);
    for i in 0..n {
        let g = p[i] + (0..n).map(|j| q[i][j] * a[j]).sum::<f64>();
        let v = -y[i] * g;
        let in_up = (y[i] > 0.0 && a[i] < c[i]) || (y[i] < 0.0 && a[i] > 0.0);
        let in_low = (y[i] > 0.0 && a[i] > 0.0) || (y[i] < 0.0 && a[i] < c[i]);
        if in_up {
            up = up.max(v);
        }
        if in_low {
            low = low.min(v);
        }
    }
    (up - low).max(0.0)
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(48))]

    /// KKT conditions hold at exit to the stated tolerance, with and without shrinking, with a cache
    /// far too small for the problem (evictions, swaps of partial columns), and on every column path.
    #[test]
    fn kkt_holds_at_exit(n in 4usize..60, d in 1usize..4, seed in 0u64..10_000, kern in 0usize..4,
                         logc in -2.0f64..3.0, shrinking in any::<bool>(), tiny_cache in any::<bool>(),
                         tol_exp in 2i32..6) {
        let (x, y) = random_problem(n, d, seed);
        let k: KernelSpec = KERNELS[kern].parse().unwrap();
        let c = 10f64.powf(logc);
        let tol = 10f64.powi(-tol_exp);
        let solver = SolverParams { tol, shrinking, cache_mb: if tiny_cache { 1e-6 } else { 100.0 }, max_iter: None, ..SolverParams::default() };
        let pre = if tiny_cache { None } else { super::train::precompute(&k, &x, solver.cache_bytes(), None, &solver.tuning).unwrap() };
        let fit = super::train::solve_svc(&k, &x, &y, vec![c; n], &solver, pre);
        prop_assert!(!fit.stats.hit_cap);
        let q = dense_q(&k, &x, &(0..n).collect::<Vec<_>>(), &y);
        for &a in &fit.alpha {
            prop_assert!((0.0..=c).contains(&a));
        }
        let ya: f64 = fit.alpha.iter().zip(&y).map(|(a, y)| a * y).sum();
        prop_assert!(ya.abs() <= 1e-9 * c * n as f64);
        let v = kkt_violation(&q, &vec![-1.0; n], &y, &vec![c; n], &fit.alpha);
        prop_assert!(v <= tol * (1.0 + 1e-6) + 1e-12, "violation {} > tol {}", v, tol);
        prop_assert!((v - fit.stats.violation).abs() <= 1e-9 * (1.0 + v));
    }
}

#[test]
fn linear_kernel_recovers_the_max_margin_hyperplane() {
    // Support points on x₁ = ±1 (two per side at different heights) force w = (1, 0), b = 0; the
    // others lie farther out.
    let mut rows = vec![[1.0, 0.5], [1.0, -2.0], [-1.0, 0.0], [-1.0, 1.3]];
    let mut y = vec![1.0, 1.0, -1.0, -1.0];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    for i in 0..40 {
        let s = if i % 2 == 0 { 1.0 } else { -1.0 };
        rows.push([s * (1.5 + 3.0 * rng.random::<f64>()), 6.0 * rng.random::<f64>() - 3.0]);
        y.push(s);
    }
    let x = Samples::from_rows(&rows).unwrap();
    let m = SvcParams::new("linear".parse().unwrap())
        .c(1e6)
        .solver(tight())
        .fit(&x, &BinaryTargets::from_f64(&y).unwrap())
        .unwrap();
    let (sv, coef) = m.machine_coefficients(0);
    let mut w = [0.0; 2];
    for (&k, &c) in sv.iter().zip(&coef) {
        let r = m.support_vectors().row(k);
        w[0] += c * r[0];
        w[1] += c * r[1];
    }
    let b = m.machines()[0].2;
    assert!((w[0] - 1.0).abs() < 1e-6 && w[1].abs() < 1e-6 && b.abs() < 1e-6, "w = {w:?}, b = {b}");
    let margins: Vec<f64> =
        rows.iter().zip(&y).map(|(r, &yi)| yi * (w[0] * r[0] + w[1] * r[1] + b)).collect();
    assert!(margins.iter().all(|&v| v >= 1.0 - 1e-6));
}

#[test]
fn lambda_maps_to_c_and_solves_eq_11() {
    let (x, y) = green_red(200, 11);
    let t = BinaryTargets::from_f64(&y).unwrap();
    let k: KernelSpec = "gaussian:sigma=0.6".parse().unwrap();
    let lambda = 0.002;
    let n = x.n();
    let by_lambda = SvcParams::new(k.clone()).lambda(lambda).solver(tight()).fit(&x, &t).unwrap();
    let by_c =
        SvcParams::new(k.clone()).c(1.0 / (2.0 * n as f64 * lambda)).solver(tight()).fit(&x, &t).unwrap();
    assert_eq!(by_lambda.stats(), by_c.stats());
    // Eq. 11 at the solution: a = α∘y, b = −ρ; J = (1/n) Σ hinge + λ aᵀKa = −2λ · (dual objective).
    let (sv, coef) = by_lambda.machine_coefficients(0);
    let b = by_lambda.machines()[0].2;
    let svs = by_lambda.support_vectors();
    let j_of = |coef: &[f64], b: f64| -> f64 {
        let f: Vec<f64> = (0..n)
            .map(|i| b + sv.iter().zip(coef).map(|(&s, &c)| c * k.eval(svs.row(s), x.row(i))).sum::<f64>())
            .collect();
        let hinge: f64 = f.iter().zip(&y).map(|(f, y)| (1.0 - y * f).max(0.0)).sum::<f64>() / n as f64;
        let mut quad = 0.0;
        for (&s, &cs) in sv.iter().zip(coef) {
            for (&r, &cr) in sv.iter().zip(coef) {
                quad += cs * cr * k.eval(svs.row(s), svs.row(r));
            }
        }
        hinge + lambda * quad
    };
    let j_star = j_of(&coef, b);
    let dual = by_lambda.stats()[0].objective;
    assert!(
        (j_star + 2.0 * lambda * dual).abs() < 1e-6 * j_star,
        "J = {j_star}, -2λ·dual = {}",
        -2.0 * lambda * dual
    );
    // And it is a minimum: perturbations increase J.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    for _ in 0..20 {
        let pc: Vec<f64> = coef.iter().map(|c| c + 1e-3 * (rng.random::<f64>() - 0.5)).collect();
        assert!(j_of(&pc, b + 1e-3 * (rng.random::<f64>() - 0.5)) >= j_star - 1e-9);
    }
}

#[test]
fn column_paths_agree() {
    // Evaluated columns (tiny cache, shrinking), a dense precomputed Gram and, for a compactly supported
    // kernel, the sparse neighbour columns all reach the same optimum.
    let (x, y) = green_red(400, 5);
    let n = x.n();
    for spec in ["gaussian:sigma=0.6", "cs-gaussian:sigma=0.6,c=1.5,nu=3"] {
        let k: KernelSpec = spec.parse().unwrap();
        let s = SolverParams { tol: 1e-6, cache_mb: 0.05, ..SolverParams::default() };
        let mut objs = vec![];
        let eval = super::train::solve_svc(&k, &x, &y, vec![1.0; n], &s, None);
        objs.push(eval.stats.objective);
        let dense = super::train::dense_gram(&k, &x).unwrap();
        objs.push(
            super::train::solve_svc(&k, &x, &y, vec![1.0; n], &s, Some(Precomputed::Dense(dense)))
                .stats
                .objective,
        );
        if k.support_radius().is_some() {
            let sp = super::train::sparse_gram(&k, &x).unwrap();
            objs.push(
                super::train::solve_svc(&k, &x, &y, vec![1.0; n], &s, Some(Precomputed::Sparse(sp)))
                    .stats
                    .objective,
            );
        }
        for o in &objs {
            assert!((o - objs[0]).abs() < 1e-6 * objs[0].abs(), "{spec}: {objs:?}");
        }
    }
}

#[test]
fn compact_kernel_predictions_match_dense_evaluation() {
    let (x, y) = green_red(300, 8);
    let k: KernelSpec = "cs-gaussian:sigma=0.6,c=1.2,nu=3".parse().unwrap();
    let m = SvcParams::new(k.clone()).fit(&x, &BinaryTargets::from_f64(&y).unwrap()).unwrap();
    let (xt, _) = green_red(100, 9);
    let d = m.decision_function(&xt).unwrap();
    let (sv, coef) = m.machine_coefficients(0);
    let b = m.machines()[0].2;
    for i in 0..xt.n() {
        let f: f64 = b + sv
            .iter()
            .zip(&coef)
            .map(|(&s, &c)| c * k.eval(m.support_vectors().row(s), xt.row(i)))
            .sum::<f64>();
        assert!((f - d[(i, 0)]).abs() < 1e-10);
    }
}

#[test]
fn iteration_cap_warns_with_the_violation() {
    let (x, y) = green_red(300, 2);
    let s = SolverParams { max_iter: Some(5), ..SolverParams::default() };
    let m = SvcParams::new("gaussian:sigma=0.6".parse().unwrap())
        .solver(s)
        .fit(&x, &BinaryTargets::from_f64(&y).unwrap())
        .unwrap();
    let st = &m.stats()[0];
    assert!(st.hit_cap && st.iterations == 5 && st.violation > 1e-3);
    assert!(st.warning().unwrap().contains("iteration cap"));
}

fn blobs(per: usize, seed: u64) -> (Samples, ClassTargets) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let centres = [[0.0, 0.0], [3.0, 0.0], [0.0, 3.0], [3.0, 3.0]];
    let mut rows = vec![];
    let mut labels = vec![];
    for i in 0..per * 4 {
        let c = i % 4;
        rows.push([centres[c][0] + normal(&mut rng), centres[c][1] + normal(&mut rng)]);
        labels.push(["w", "x", "y", "z"][c]);
    }
    (Samples::from_rows(&rows).unwrap(), ClassTargets::from_labels(&labels).unwrap())
}

#[test]
fn multiclass_one_vs_one_and_one_vs_rest() {
    let (x, t) = blobs(60, 1);
    let (xt, tt) = blobs(100, 2);
    let k: KernelSpec = "gaussian:sigma=1.5".parse().unwrap();
    let ovo = SvcParams::new(k.clone()).fit(&x, &t).unwrap();
    let ovr = SvcParams::new(k).multiclass(Multiclass::OneVsRest).fit(&x, &t).unwrap();
    assert_eq!(ovo.n_machines(), 6);
    assert_eq!(ovr.n_machines(), 4);
    let order: Vec<(usize, Option<usize>)> = ovo.machines().iter().map(|m| (m.0, m.1)).collect();
    assert_eq!(
        order,
        vec![(0, Some(1)), (0, Some(2)), (0, Some(3)), (1, Some(2)), (1, Some(3)), (2, Some(3))]
    );
    for m in [&ovo, &ovr] {
        let d = m.decision_function(&xt).unwrap();
        assert_eq!((d.nrows(), d.ncols()), (xt.n(), m.n_machines()));
        let p = m.predict(&xt).unwrap();
        let acc =
            p.iter().zip(tt.classes()).filter(|(p, c)| **p as usize == **c).count() as f64 / p.len() as f64;
        assert!(acc > 0.85, "accuracy {acc}");
    }
    // Votes follow the documented sign convention.
    let d = ovo.decision_function(&xt).unwrap();
    let pc = ovo.predict_class(&xt).unwrap();
    for (i, &c) in pc.iter().enumerate() {
        let mut votes = [0; 4];
        for ((a, b), v) in order.iter().zip(d.row(i).iter()) {
            votes[if *v > 0.0 { *a } else { b.unwrap() }] += 1;
        }
        assert_eq!(votes[c], *votes.iter().max().unwrap());
    }
}

#[test]
fn class_weights_shift_errors_to_the_other_class() {
    let (x, y) = green_red(400, 21);
    let t = BinaryTargets::from_f64(&y).unwrap();
    let k: KernelSpec = "gaussian:sigma=0.6".parse().unwrap();
    let errors_on_pos =
        |m: &Svc| m.predict(&x).unwrap().iter().zip(&y).filter(|(p, y)| **y > 0.0 && **p < 0.0).count();
    let plain = SvcParams::new(k.clone()).fit(&x, &t).unwrap();
    let weighted = SvcParams::new(k.clone()).class_weight("1", 10.0).fit(&x, &t).unwrap();
    assert!(errors_on_pos(&weighted) < errors_on_pos(&plain));
    assert!(SvcParams::new(k).class_weight("7", 2.0).fit(&x, &t).is_err());
}

#[test]
fn probabilities_are_seeded_and_normalized() {
    let (x, t) = blobs(40, 3);
    let p = SvcParams::new("gaussian:sigma=1.5".parse().unwrap()).probability(true, 9);
    let a = p.fit(&x, &t).unwrap();
    let b = p.fit(&x, &t).unwrap();
    let pa = a.predict_proba(&x).unwrap();
    assert_eq!(pa, b.predict_proba(&x).unwrap());
    assert!(
        (0..pa.nrows()).map(|i| pa.row(i)).all(
            |r| (r.iter().sum::<f64>() - 1.0).abs() < 1e-9 && r.iter().all(|&v| (0.0..=1.0).contains(&v))
        )
    );
    // Mostly (not always: documented) the most probable class is the predicted one.
    let pc = a.predict_class(&x).unwrap();
    let agree = (0..pa.nrows())
        .map(|i| pa.row(i))
        .zip(&pc)
        .filter(|(r, c)| r.iter().cloned().fold(0.0, f64::max) == r[**c])
        .count();
    assert!(agree as f64 > 0.9 * pc.len() as f64);
    let plain = SvcParams::new("gaussian:sigma=1.5".parse().unwrap()).fit(&x, &t).unwrap();
    assert!(plain.predict_proba(&x).is_err());
}

#[test]
fn save_load_predict_is_bit_identical_and_bad_files_fail() {
    let dir = std::env::temp_dir().join(format!("kern-svm-persist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (x, t) = blobs(30, 4);
    let (xt, _) = blobs(20, 5);
    let m = SvcParams::new("gaussian:sigma=1".parse().unwrap()).probability(true, 1).fit(&x, &t).unwrap();
    let path = dir.join("m.kern");
    persist::save(&path, &m).unwrap();
    let back: Svc = persist::load(&path).unwrap();
    let (d1, d2) = (m.decision_function(&xt).unwrap(), back.decision_function(&xt).unwrap());
    assert_eq!((d1.nrows(), d1.ncols()), (d2.nrows(), d2.ncols()));
    for (i, j) in (0..d1.nrows()).flat_map(|i| (0..d1.ncols()).map(move |j| (i, j))) {
        assert_eq!(d1[(i, j)].to_bits(), d2[(i, j)].to_bits());
    }
    assert_eq!(m.predict_proba(&xt).unwrap(), back.predict_proba(&xt).unwrap());
    let z: Vec<f64> = (0..x.n()).map(|i| x.row(i)[0]).collect();
    let r = SvrParams::new("linear".parse().unwrap()).fit(&x, &RealTargets::new(z).unwrap()).unwrap();
    let rpath = dir.join("r.kern");
    persist::save(&rpath, &r).unwrap();
    let rb: Svr = persist::load(&rpath).unwrap();
    assert_eq!(
        r.predict(&xt).unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        rb.predict(&xt).unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    // Truncated, foreign and wrong-kind files are errors, never panics.
    let bytes = std::fs::read(&path).unwrap();
    for cut in [0, 10, 39, 40, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(dir.join("t.kern"), &bytes[..cut]).unwrap();
        assert!(persist::load::<Svc>(&dir.join("t.kern")).is_err(), "cut {cut}");
    }
    std::fs::write(dir.join("f.kern"), b"+1 1:0.5 2:0.25\n-1 1:0.1\n this is a data file, not a model")
        .unwrap();
    assert!(persist::load::<Svc>(&dir.join("f.kern")).is_err());
    assert!(persist::load::<Svr>(&path).is_err());
    assert!(persist::load::<Svc>(&dir.join("missing.kern")).is_err());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn invalid_inputs_are_errors() {
    let (x, y) = green_red(20, 1);
    let t = BinaryTargets::from_f64(&y).unwrap();
    let k: KernelSpec = "linear".parse().unwrap();
    assert!(SvcParams::new(k.clone()).c(0.0).fit(&x, &t).is_err());
    assert!(SvcParams::new(k.clone()).c(f64::NAN).fit(&x, &t).is_err());
    assert!(SvcParams::new(k.clone()).lambda(-1.0).fit(&x, &t).is_err());
    assert!(
        SvcParams::new(k.clone())
            .solver(SolverParams { tol: 0.0, ..Default::default() })
            .fit(&x, &t)
            .is_err()
    );
    assert!(SvrParams::new(k.clone()).epsilon(-0.1).fit(&x, &RealTargets::new(y.clone()).unwrap()).is_err());
    let short = BinaryTargets::from_f64(&y[..10]).unwrap();
    assert!(SvcParams::new(k.clone()).fit(&x, &short).is_err());
    let m = SvcParams::new(k).fit(&x, &t).unwrap();
    assert!(m.predict(&Samples::from_rows(&[[1.0, 2.0, 3.0]]).unwrap()).is_err());
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(24))]
    /// A binary machine solved on the caller's samples through an index map (how a multi-class or
    /// class-grouped job avoids copying its rows) is bit-for-bit the machine solved on a copy of those
    /// rows: the columns read the same values in the same order. Dense and sparse stores, low and high
    /// dimension (the feature-major fast column and the norms formulation), dot-product, radial and
    /// general kernels, C-SVC and ν-SVC, any subset in any order.
    #[test]
    fn machine_on_an_index_map_is_the_machine_on_a_copy(
        seed in 0u64..1000,
        d in prop::sample::select(vec![2usize, 12]),
        sparse in any::<bool>(),
        spec in prop::sample::select(vec!["linear", "gaussian:sigma=1.5", "polynomial:degree=2,coef0=1", "laplacian:sigma=2"]),
        nu in prop::sample::select(vec![None, Some(0.4)]),
    ) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let n = 60;
        let mut flat = vec![0.0; n * d];
        for v in flat.iter_mut() {
            // About half of the coordinates zero, so the sparse store holds real gaps.
            if rng.random::<f64>() < 0.5 {
                *v = normal(&mut rng);
            }
        }
        let dense = Samples::from_flat(flat, n, d).unwrap();
        let x = if sparse { dense.to_sparse() } else { dense };
        // A subset of 40 rows in a random order, labels alternating along it.
        let mut idx: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            idx.swap(i, rng.random_range(0..=i));
        }
        idx.truncate(40);
        let y: Vec<f64> = (0..idx.len()).map(|p| if p % 2 == 0 { 1.0 } else { -1.0 }).collect();
        let k: KernelSpec = spec.parse().unwrap();
        // A tiny cache: columns are evaluated, evicted and recomputed through the map.
        let s = SolverParams { cache_mb: 0.01, ..SolverParams::default() };
        let c = vec![1.0; idx.len()];
        let mapped = super::nu::solve_binary(&k, Rows { x: &x, sample: idx.clone() }, &y, c.clone(), nu, &s, None, plan::Plan::default());
        let xs = x.select(&idx).unwrap();
        let copied = super::nu::solve_binary(&k, Rows::all(&xs), &y, c, nu, &s, None, plan::Plan::default());
        let bits = |a: &[f64]| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        match (mapped, copied) {
            (Ok(mapped), Ok(copied)) => {
                prop_assert_eq!(bits(&mapped.alpha), bits(&copied.alpha));
                prop_assert_eq!(mapped.stats, copied.stats);
            }
            // A ν too small for the draw fails alike on both (the same margin multiplier r ≤ 0).
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "one side failed: {:?} vs {:?}", a.err(), b.err()),
        }
    }
}

/// A singular `Q_FF` with columns computed on demand: `poly:degree=2` in two dimensions has a 6-dimensional
/// feature space, and at C ≈ 207 SMO's pair steps zig-zag (LIBSVM 3.37 on these points: 4.8 million
/// iterations, true violation 8e-4 at exit). A cache budget of a few bytes once switched the face step
/// off, and the solver stopped at its 10⁷ cap; it must reach the same optimum as with a full cache.
#[test]
fn singular_problem_converges_with_columns_on_demand() {
    let (n, tol) = (41, 1e-5);
    let (x, y) = random_problem(n, 2, 3914);
    let k: KernelSpec = KERNELS[2].parse().unwrap();
    let c = 10f64.powf(2.3165012532499896);
    let q = dense_q(&k, &x, &(0..n).collect::<Vec<_>>(), &y);
    let mut objectives = Vec::new();
    for cache_mb in [1e-6, 100.0] {
        let solver =
            SolverParams { tol, shrinking: false, cache_mb, max_iter: None, ..SolverParams::default() };
        let fit = super::train::solve_svc(&k, &x, &y, vec![c; n], &solver, None);
        assert!(!fit.stats.hit_cap, "cache {cache_mb} MB: stopped at the cap");
        let v = kkt_violation(&q, &vec![-1.0; n], &y, &vec![c; n], &fit.alpha);
        assert!(v <= tol, "cache {cache_mb} MB: violation {v}");
        objectives.push(objective(&q, &vec![-1.0; n], &fit.alpha));
    }
    // Two ε-optimal points of the same dual: within ε/2 · Σ C of each other.
    assert!((objectives[0] - objectives[1]).abs() <= tol / 2.0 * c * n as f64, "{objectives:?}");
}

/// The maximal KKT violation `max_{I_up} −y_t ∇f_t − min_{I_low} −y_t ∇f_t` of `α = a` for the dual
/// `½ αᵀQα + pᵀα` with bounds `c`, from the dense `Q`.
///
/// **The objective bound.** For the convex dual `f` with `v_t = −y_t ∇f_t`, `d = α − α*` and
/// `yᵀd = 0`: `f(α) − f(α*) ≤ ∇f(α)ᵀd = Σ_t −y_t (v_t − M) d_t` (any constant may be subtracted since
/// `yᵀd = 0`). A term with `y_t d_t > 0` has `t ∈ I_low`, so `v_t ≥ M` and the term is `≤ 0`; a term
/// with `y_t d_t < 0` has `t ∈ I_up`, so `v_t − M ≤ m − M` and the term is `≤ (m − M)|d_t|`. Since
/// `Σ_{y_t d_t < 0} |d_t| = ½ Σ |d_t| ≤ ½ Σ C_t`, an exit with `m − M ≤ ε` is within `ε/2 · Σ C_t` of
/// the optimum; two such exits differ by at most that (plus rounding of the reported objectives,
/// `1e-9` relative). The kernels are positive semidefinite (the bound needs convexity).
pub(super) fn kkt(q: &[Vec<f64>], p: &[f64], y: &[f64], c: &[f64], a: &[f64]) -> f64 {
    let (mut up, mut low) = (f64::NEG_INFINITY, f64::INFINITY);
    for t in 0..a.len() {
        let g = p[t] + (0..a.len()).map(|s| q[t][s] * a[s]).sum::<f64>();
        let v = -y[t] * g;
        let (is_up, is_low) = if y[t] > 0.0 { (a[t] < c[t], a[t] > 0.0) } else { (a[t] > 0.0, a[t] < c[t]) };
        if is_up {
            up = up.max(v);
        }
        if is_low {
            low = low.min(v);
        }
    }
    (up - low).max(0.0)
}

/// A model with every machine's plan reset (two fits that took different paths to the same model
/// compare equal).
pub(super) trait WithoutPlans: Clone {
    fn plans_mut(&mut self) -> Vec<&mut super::plan::Plan>;
    fn without_plans(&self) -> Self {
        let mut m = self.clone();
        m.plans_mut().into_iter().for_each(|p| *p = Default::default());
        m
    }
}

impl WithoutPlans for Svc {
    fn plans_mut(&mut self) -> Vec<&mut plan::Plan> {
        self.stats_mut().iter_mut().map(|s| &mut s.plan).collect()
    }
}

impl WithoutPlans for Svr {
    fn plans_mut(&mut self) -> Vec<&mut plan::Plan> {
        vec![&mut self.stats_mut().plan]
    }
}

impl WithoutPlans for OneClass {
    fn plans_mut(&mut self) -> Vec<&mut plan::Plan> {
        vec![&mut self.stats_mut().plan]
    }
}

/// The coefficient matrix built by the first prediction is reused, and changes nothing: each machine's
/// decision value equals the sum over its own support vectors, on every call, and the model (its
/// equality and its bytes) is the same before and after predicting.
#[test]
fn cached_expansion_matches_the_per_machine_sums() {
    let (x, t) = blobs(30, 3);
    let (xt, _) = blobs(10, 4);
    let k: KernelSpec = "gaussian:sigma=1.5".parse().unwrap();
    let m = SvcParams::new(k.clone()).fit(&x, &t).unwrap();
    let (fresh, bytes) = (m.clone(), persist::to_bytes(&m).unwrap());
    let (first, second) = (m.decision_function(&xt).unwrap(), m.decision_function(&xt).unwrap());
    assert_eq!(first, second);
    assert_eq!(m, fresh);
    assert_eq!(persist::to_bytes(&m).unwrap(), bytes);
    let sv = m.support_vectors();
    for (j, &(_, _, b)) in m.machines().iter().enumerate() {
        let (rows, coef) = m.machine_coefficients(j);
        for i in 0..first.nrows() {
            let want: f64 =
                rows.iter().zip(&coef).map(|(&r, &c)| c * k.eval(sv.row(r), xt.row(i))).sum::<f64>() + b;
            assert!(
                (first[(i, j)] - want).abs() <= 1e-12 * (1.0 + want.abs()),
                "machine {j} sample {i}: {} vs {want}",
                first[(i, j)]
            );
        }
    }
}

/// Kernel values asked for on this thread while `f` runs (the expansions' `|x| · |SV|`).
fn kernel_evaluations<T>(f: impl FnOnce() -> T) -> (T, u64) {
    super::predict::KERNEL_EVALUATIONS.with(|c| c.set(0));
    let out = f();
    (out, super::predict::KERNEL_EVALUATIONS.with(|c| c.get()))
}

#[test]
fn labels_decision_values_and_probabilities_cost_one_expansion() {
    let (x, y) = blobs(15, 11);
    let m = SvcParams::new("gaussian:sigma=1.5".parse().unwrap())
        .c(2.0)
        .probability(true, 3)
        .fit(&x, &y)
        .unwrap();
    let (dec, one) = kernel_evaluations(|| m.decision_function(&x).unwrap());
    assert_eq!(one, (x.n() * m.support_vectors().n()) as u64);
    // The three calls `kern predict` used to make cost three expansions; predict_all costs one.
    let (_, three) = kernel_evaluations(|| {
        (m.predict_names(&x).unwrap(), m.predict_proba(&x).unwrap(), m.decision_function(&x).unwrap())
    });
    assert_eq!(three, 3 * one);
    let (all, cost) = kernel_evaluations(|| m.predict_all(&x, true).unwrap());
    assert_eq!(cost, one);
    assert_eq!(all.labels, m.predict_names(&x).unwrap());
    let proba = m.predict_proba(&x).unwrap();
    let p = all.proba.unwrap();
    assert_eq!(all.decision, dec);
    assert_eq!(p, proba);
    // The registry's prediction of every output is the same one expansion.
    let any = crate::AnyModel::from(m);
    let (all, cost) = kernel_evaluations(|| any.predict_all(&x, true).unwrap());
    assert_eq!(cost, one);
    assert!(all.proba.is_some() && all.decision.ncols() == 6);
}

/// 0/1 features (many equal distances, so the dual optimum need not be unique and the SMO's path
/// decides the support vectors) with labels from a noisy rule; `(class, row)` pairs.
fn tied_rows(seed: u64, n: usize) -> Vec<(usize, Vec<f64>)> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let r: Vec<f64> = (0..8).map(|_| f64::from(rng.random_range(0..2u8))).collect();
            let votes = r[..3].iter().sum::<f64>() + f64::from(rng.random_range(0..2u8));
            (usize::from(votes > 2.0), r)
        })
        .collect()
}

#[test]
fn libsvm_trains_the_first_samples_class_as_plus_one_except_for_minus_and_plus_one() {
    let names = |a: &str, b: &str| vec![a.to_string(), b.to_string()];
    assert_eq!(svc::libsvm_positive(&names("a", "b"), &[1, 0, 1]), 1);
    assert_eq!(svc::libsvm_positive(&names("a", "b"), &[0, 1, 1]), 0);
    assert_eq!(svc::libsvm_positive(&names("0", "1"), &[1, 0]), 1);
    assert_eq!(svc::libsvm_positive(&names("-1", "1"), &[0, 1]), 1);
    assert_eq!(svc::libsvm_positive(&names("-1", "+1"), &[0, 1]), 1);
    assert_eq!(svc::libsvm_positive(&names("-1", "1"), &[1, 0]), 1);
    assert_eq!(svc::libsvm_positive(&names("-1", "2"), &[0, 1]), 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// A binary C-SVC whose first sample is of class 0 solves its problem as the two-class
    /// one-vs-one pair does (class 0 the solver's +1, as LIBSVM and scikit-learn then do), and turns
    /// the machine to the binary convention (+1 is class 1). On samples already in the pair's order
    /// (class 0 first) both fits take the same steps: the same iterations and objective, and decision
    /// values of opposite sign, bit for bit — on data where the path decides the support vectors.
    #[test]
    fn a_binary_fit_is_the_two_class_pair_turned(seed in 0u64..10_000, c in prop::sample::select(vec![1.0, 10.0])) {
        let mut rows = tied_rows(seed, 150);
        prop_assume!(rows.iter().any(|r| r.0 == 0) && rows.iter().any(|r| r.0 == 1));
        rows.sort_by_key(|r| r.0);
        let x = Samples::from_rows(&rows.iter().map(|r| r.1.clone()).collect::<Vec<_>>()).unwrap();
        let labels: Vec<&str> = rows.iter().map(|r| if r.0 == 0 { "a" } else { "b" }).collect();
        let p = SvcParams::new("gaussian:gamma=0.2".parse().unwrap()).c(c);
        let binary = p.fit(&x, &BinaryTargets::from_labels(&labels).unwrap()).unwrap();
        let pair = p.fit(&x, &ClassTargets::from_labels(&labels).unwrap()).unwrap();
        let (sb, sp) = (&binary.stats()[0], &pair.stats()[0]);
        prop_assert_eq!(sb.iterations, sp.iterations);
        prop_assert_eq!(sb.objective.to_bits(), sp.objective.to_bits());
        prop_assert_eq!(sb.rho.to_bits(), (-sp.rho).to_bits());
        let (db, dp) = (binary.decision_function(&x).unwrap(), pair.decision_function(&x).unwrap());
        for i in 0..x.n() {
            prop_assert_eq!(db[(i, 0)].to_bits(), (-dp[(i, 0)]).to_bits(), "sample {}", i);
        }
    }

    /// The solver's +1 is the first sample's class, whatever the classes are named (LIBSVM's order of
    /// first appearance): renaming the two classes into each other's names gives the solver the same
    /// problem, so the same iterations and objective, and the model's decision values change sign.
    #[test]
    fn the_first_samples_class_is_the_solvers_plus_one(seed in 0u64..10_000) {
        let rows = tied_rows(seed, 150);
        prop_assume!(rows.iter().any(|r| r.0 == 0) && rows.iter().any(|r| r.0 == 1));
        let x = Samples::from_rows(&rows.iter().map(|r| r.1.clone()).collect::<Vec<_>>()).unwrap();
        let named = |first: &'static str, second: &'static str| -> Vec<&str> {
            rows.iter().map(|r| if r.0 == 0 { first } else { second }).collect()
        };
        let p = SvcParams::new("gaussian:gamma=0.2".parse().unwrap()).c(10.0);
        let a = p.fit(&x, &BinaryTargets::from_labels(&named("a", "b")).unwrap()).unwrap();
        let b = p.fit(&x, &BinaryTargets::from_labels(&named("b", "a")).unwrap()).unwrap();
        let (sa, sb) = (&a.stats()[0], &b.stats()[0]);
        prop_assert_eq!(sa.iterations, sb.iterations);
        prop_assert_eq!(sa.objective.to_bits(), sb.objective.to_bits());
        let (da, db) = (a.decision_function(&x).unwrap(), b.decision_function(&x).unwrap());
        for i in 0..x.n() {
            prop_assert_eq!(da[(i, 0)].to_bits(), (-db[(i, 0)]).to_bits(), "sample {}", i);
        }
    }
}

/// The turned machine keeps its Platt sigmoid's meaning (`P(class 1 | f) = 1 − P(class 0 | −f)`):
/// a binary C-SVC's sigmoid is the two-class pair's (same folds, same cross-validated decision
/// values) with `B` negated, bit for bit, and its probabilities are that sigmoid's.
#[test]
fn a_binary_fit_turns_its_sigmoid_with_its_machine() {
    let (x, y) = green_red(120, 4);
    let mut rows: Vec<usize> = (0..x.n()).collect();
    rows.sort_by_key(|&i| y[i] > 0.0);
    let x = x.select(&rows).unwrap();
    let labels: Vec<&str> = rows.iter().map(|&i| if y[i] > 0.0 { "red" } else { "green" }).collect();
    let p = SvcParams::new("gaussian:gamma=1".parse().unwrap()).c(10.0).probability(true, 3);
    let binary = p.fit(&x, &BinaryTargets::from_labels(&labels).unwrap()).unwrap();
    let pair = p.fit(&x, &ClassTargets::from_labels(&labels).unwrap()).unwrap();
    let ((ab, bb), (ap, bp)) = (binary.platt_sigmoids().unwrap()[0], pair.platt_sigmoids().unwrap()[0]);
    assert_eq!((ab.to_bits(), bb.to_bits()), (ap.to_bits(), (-bp).to_bits()));
    let (pb, dp) = (binary.predict_proba(&x).unwrap(), pair.decision_function(&x).unwrap());
    for i in 0..x.n() {
        // The pair's sigmoid on its own decision value: the probability of its +1 class, class 0.
        let p0 = 1.0 / (1.0 + (ap * dp[(i, 0)] + bp).exp());
        assert!((pb[(i, 0)] - p0).abs() <= 1e-14, "sample {i}: {} vs {p0}", pb[(i, 0)]);
    }
}
