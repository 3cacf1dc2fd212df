//! Feature vector selection, kernel function approximation and the FVS subspace methods
//! (Baudat & Anouar): the paper's experiments, and the laws behind them.

use kern_core::learner::{Fit, Model};
use kern_core::{
    BinaryTargets, ClassTargets, Gaussian, KernelSpec, Linear, LinearSpline, Polynomial, RealTargets,
    Samples, Targets,
};
use kern_models::fvs::{self, FvsParams, StopReason, Strategy};
use kern_models::fvs_subspace::{FvsKpca, FvsLdaParams};
use kern_models::kfa::{BasisChoice, KfaParams, LinearReadout, Projection};
use proptest::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

fn gauss_points(n: usize, d: usize, seed: u64) -> Samples {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let data: Vec<f64> = (0..n * d)
        .map(|_| {
            // Box–Muller.
            let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random());
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        })
        .collect();
    Samples::from_flat(data, n, d).unwrap()
}

const STRATEGIES: [Strategy; 3] =
    [Strategy::Exact, Strategy::Sampled { candidates: 8, seed: 3 }, Strategy::MaxResidual];

#[test]
fn fitness_is_non_decreasing_and_selected_points_have_zero_residual() {
    let x = gauss_points(150, 3, 1);
    let k = Gaussian::with_sigma(1.0).unwrap();
    for s in STRATEGIES {
        let f =
            fvs::select(&k, &x, &FvsParams { max_fv: Some(40), strategy: s, ..Default::default() }).unwrap();
        assert_eq!(f.selected.len(), 40);
        assert_eq!(f.stop, StopReason::MaxFv);
        assert!(f.fitness.windows(2).all(|w| w[1] >= w[0] - 1e-15), "{s:?}: {:?}", f.fitness);
        assert!(f.fitness.iter().all(|&v| (0.0..=1.0).contains(&v)));
        // δ_i of eq. 5 recomputed from scratch is zero at every selected point.
        let local = fvs::local_fitness_from_scratch(&k, &x, &f.selected).unwrap();
        for &s in &f.selected {
            assert!((1.0 - local[s]).abs() < 1e-8, "δ = {}", 1.0 - local[s]);
            assert_eq!(f.residuals[s], 0.0);
        }
        // Unselected residuals agree with eq. 5 too.
        for (r, l) in f.residuals.iter().zip(&local) {
            assert!((r - (1.0 - l)).abs() < 1e-8);
        }
    }
}

#[test]
fn exact_strategy_is_the_greedy_argmax_of_eq_7() {
    let x = gauss_points(30, 2, 7);
    let k = Gaussian::with_sigma(0.8).unwrap();
    let f =
        fvs::select(&k, &x, &FvsParams { max_fv: Some(8), strategy: Strategy::Exact, ..Default::default() })
            .unwrap();
    for l in 0..f.selected.len() {
        let prefix = &f.selected[..l];
        let mut best = f64::NEG_INFINITY;
        for c in 0..x.n() {
            if prefix.contains(&c) {
                continue;
            }
            let mut s = prefix.to_vec();
            s.push(c);
            best = best.max(fvs::fitness_from_scratch(&k, &x, &s).unwrap());
        }
        let chosen = fvs::fitness_from_scratch(&k, &x, &f.selected[..=l]).unwrap();
        assert!(chosen >= best - 1e-10, "step {l}: chose {chosen}, best {best}");
    }
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(24))]
    #[test]
    fn incremental_fitness_equals_eq7_from_scratch(
        seed in 0u64..1000, n in 10usize..60, sigma in 0.3f64..3.0, l in 1usize..12, s in 0usize..3,
    ) {
        let x = gauss_points(n, 2, seed);
        let k = Gaussian::with_sigma(sigma).unwrap();
        let p = FvsParams { max_fv: Some(l), strategy: STRATEGIES[s], singular_tol: 1e-8, ..Default::default() };
        let f = fvs::select(&k, &x, &p).unwrap();
        for t in 0..f.selected.len() {
            let j = fvs::fitness_from_scratch(&k, &x, &f.selected[..=t]).unwrap();
            prop_assert!((f.fitness[t] - j).abs() < 1e-7, "step {}: {} vs {}", t, f.fitness[t], j);
        }
    }
}

#[test]
fn rank_r_kernel_stops_with_a_basis_of_r_vectors() {
    // (x·y)² in 2-D has a 3-dimensional feature space: φ(x) = (x1², √2 x1x2, x2²).
    let x = gauss_points(80, 2, 11);
    let poly = Polynomial::new(2, 0.0).unwrap();
    for s in STRATEGIES {
        let f = fvs::select(&poly, &x, &FvsParams { strategy: s, ..Default::default() }).unwrap();
        assert_eq!(f.selected.len(), 3, "{s:?}");
        assert_eq!(f.stop, StopReason::BasisFound);
        assert!((f.final_fitness() - 1.0).abs() < 1e-9);
    }
    // (x·y + 1)² in 2-D: 6 dimensions; linear in 4-D: 4.
    let p1 = Polynomial::new(2, 1.0).unwrap();
    assert_eq!(fvs::select(&p1, &x, &FvsParams::default()).unwrap().selected.len(), 6);
    let x4 = gauss_points(50, 4, 12);
    assert_eq!(fvs::select(&Linear, &x4, &FvsParams::default()).unwrap().selected.len(), 4);
}

#[test]
fn stopping_rules_and_errors() {
    let x = gauss_points(200, 2, 5);
    let k = Gaussian::with_sigma(1.0).unwrap();
    let f = fvs::select(&k, &x, &FvsParams { min_fitness: Some(0.95), ..Default::default() }).unwrap();
    assert_eq!(f.stop, StopReason::MinFitness);
    assert!(f.final_fitness() >= 0.95);
    assert!(f.fitness[f.fitness.len() - 2] < 0.95);
    assert!(fvs::select(&k, &x, &FvsParams { max_fv: Some(0), ..Default::default() }).is_err());
    assert!(fvs::select(&k, &x, &FvsParams { min_fitness: Some(1.5), ..Default::default() }).is_err());
    assert!(fvs::select(&k, &x, &FvsParams { singular_tol: -1.0, ..Default::default() }).is_err());
    assert!("sampled:x".parse::<Strategy>().is_err());
}

#[test]
fn sampled_selection_is_deterministic_at_any_thread_count() {
    let x = gauss_points(3000, 3, 9);
    let k = Gaussian::with_sigma(0.7).unwrap();
    let p = FvsParams {
        max_fv: Some(30),
        strategy: Strategy::Sampled { candidates: 16, seed: 4 },
        ..Default::default()
    };
    let run = |t: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap()
            .install(|| fvs::select(&k, &x, &p).unwrap())
    };
    let (a, b) = (run(1), run(2));
    assert_eq!(a.selected, b.selected);
    assert_eq!(a.fitness, b.fitness);
    let e1 = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| {
        fvs::select(&k, &x, &FvsParams { max_fv: Some(10), strategy: Strategy::Exact, ..Default::default() })
    });
    let e2 =
        fvs::select(&k, &x, &FvsParams { max_fv: Some(10), strategy: Strategy::Exact, ..Default::default() });
    assert_eq!(e1.unwrap().selected, e2.unwrap().selected);
}

fn circles(n: usize, phase: f64) -> (Samples, Vec<f64>) {
    let mut rows = Vec::new();
    let mut y = Vec::new();
    for t in 0..n {
        let a = phase + t as f64 * std::f64::consts::TAU / n as f64;
        for (r, lab) in [(1.0, 1.0), (0.5, -1.0)] {
            rows.push([r * a.cos(), r * a.sin()]);
            y.push(lab);
        }
    }
    (Samples::from_rows(&rows).unwrap(), y)
}

#[test]
fn two_circles_are_separated_perfectly_with_three_feature_vectors() {
    let (x, y) = circles(50, 0.0);
    let t = BinaryTargets::from_f64(&y).unwrap();
    for proj in [Projection::Dot, Projection::Orthogonal, Projection::Coordinates] {
        let m = KfaParams::new(Polynomial::new(2, 0.0).unwrap()).projection(proj).fit(&x, &t).unwrap();
        assert_eq!(m.n_fv(), vec![3]);
        assert_eq!(m.predict(&x).unwrap(), y);
        let (xt, yt) = circles(37, 0.05);
        assert_eq!(m.predict(&xt).unwrap(), yt);
        // The separating function is the circle x1² + x2² = c with c between 0.25 and 1.
        let out = m.outputs(&Samples::from_rows(&[[0.0, 0.0], [0.0, 2.0]]).unwrap()).unwrap();
        assert!(out[(0, 0)] < 0.0 && out[(1, 0)] > 0.0);
    }
}

fn sinc(x: f64) -> f64 {
    if x == 0.0 { 1.0 } else { (std::f64::consts::PI * x).sin() / (std::f64::consts::PI * x) }
}

#[test]
fn sinc_regression_beats_the_mean_predictor_widely() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
    let n = 200;
    let xs: Vec<f64> = (0..n).map(|_| rng.random_range(-3.0..3.0)).collect();
    let ys: Vec<f64> = xs
        .iter()
        .map(|&x| {
            let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random());
            sinc(x) + 0.2 * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        })
        .collect();
    // The spline kernel is PSD on [0, ∞): shift [−3, 3] to [0, 6] (§5.5 shifts its interval the same way).
    let x = Samples::from_flat(xs.iter().map(|v| v + 3.0).collect(), n, 1).unwrap();
    let y = RealTargets::new(ys.clone()).unwrap();
    let m = KfaParams::new(LinearSpline)
        .basis(BasisChoice::Fvs(FvsParams { max_fv: Some(12), ..Default::default() }))
        .fit(&x, &y)
        .unwrap();
    let grid: Vec<f64> = (0..400).map(|i| -2.9 + 5.8 * i as f64 / 399.0).collect();
    let xt = Samples::from_flat(grid.iter().map(|v| v + 3.0).collect(), grid.len(), 1).unwrap();
    let pred = m.predict(&xt).unwrap();
    let mean = ys.iter().sum::<f64>() / n as f64;
    let mse: f64 =
        grid.iter().zip(&pred).map(|(g, p)| (sinc(*g) - p).powi(2)).sum::<f64>() / grid.len() as f64;
    let mse0: f64 = grid.iter().map(|g| (sinc(*g) - mean).powi(2)).sum::<f64>() / grid.len() as f64;
    assert!(mse < 0.1 * mse0, "KFA mse {mse}, mean predictor {mse0}");
}

#[test]
fn projections_give_the_same_fit() {
    let x = gauss_points(120, 2, 31);
    let y: Vec<f64> = (0..x.n()).map(|i| (x.row(i)[0] * 2.0).sin() + x.row(i)[1]).collect();
    let t = RealTargets::new(y).unwrap();
    let k = Gaussian::with_sigma(1.5).unwrap();
    let base = KfaParams::new(k).basis(BasisChoice::Fvs(FvsParams::with_max(12)));
    let xt = gauss_points(40, 2, 32);
    let preds: Vec<Vec<f64>> = [Projection::Dot, Projection::Orthogonal, Projection::Coordinates]
        .into_iter()
        .map(|p| base.clone().projection(p).fit(&x, &t).unwrap().predict(&xt).unwrap())
        .collect();
    for p in &preds[1..] {
        for (a, b) in p.iter().zip(&preds[0]) {
            assert!((a - b).abs() < 1e-6, "{a} vs {b}");
        }
    }
}

#[test]
fn any_basis_spanning_the_data_gives_the_same_model() {
    // With a rank-3 kernel, 3 random independent points span the same subspace as the FVS basis.
    let (x, y) = circles(30, 0.3);
    let t = BinaryTargets::from_f64(&y).unwrap();
    let k = Polynomial::new(2, 0.0).unwrap();
    let a = KfaParams::new(k).fit(&x, &t).unwrap();
    let b = KfaParams::new(k).basis(BasisChoice::Random { size: 10, seed: 5 }).fit(&x, &t).unwrap();
    assert_eq!(b.n_fv(), vec![3]);
    let xt = gauss_points(25, 2, 6);
    let (oa, ob) = (a.outputs(&xt).unwrap(), b.outputs(&xt).unwrap());
    for i in 0..xt.n() {
        assert!((oa[(i, 0)] - ob[(i, 0)]).abs() < 1e-7);
    }
}

fn three_rings(n: usize, seed: u64) -> (Samples, Vec<&'static str>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut rows = Vec::new();
    let mut y = Vec::new();
    for i in 0..n {
        let c = i % 3;
        let r = [0.5, 1.5, 2.5][c] + 0.15 * (rng.random::<f64>() - 0.5);
        let a = rng.random::<f64>() * std::f64::consts::TAU;
        rows.push([r * a.cos(), r * a.sin()]);
        y.push(["inner", "middle", "outer"][c]);
    }
    (Samples::from_rows(&rows).unwrap(), y)
}

#[test]
fn multi_class_one_hot_and_fvs_lda_separate_rings() {
    let (x, y) = three_rings(300, 1);
    let t = ClassTargets::from_labels(&y).unwrap();
    let (xt, yt) = three_rings(300, 2);
    let tt = ClassTargets::from_labels(&yt).unwrap();
    let k = Gaussian::with_sigma(1.0).unwrap();
    let kfa = KfaParams::new(k).basis(BasisChoice::Fvs(FvsParams::with_max(30))).fit(&x, &t).unwrap();
    let acc =
        |p: Vec<f64>| p.iter().zip(tt.classes()).filter(|(a, b)| **a as usize == **b).count() as f64 / 300.0;
    assert!(acc(kfa.predict(&xt).unwrap()) > 0.97);
    let lda = FvsLdaParams { fvs: FvsParams::with_max(30), ..FvsLdaParams::new(k) }.fit(&x, &t).unwrap();
    assert_eq!(lda.eigenvalues().len(), 2);
    assert!(acc(lda.predict(&xt).unwrap()) > 0.97);
}

#[test]
fn fvs_kpca_equals_kernel_pca_when_the_basis_spans_the_data() {
    let x = gauss_points(60, 2, 41);
    let k = Polynomial::new(2, 0.0).unwrap();
    let m = FvsKpca::fit(k, &x, &FvsParams::default(), 3).unwrap();
    assert_eq!(m.n_fv(), 3);
    // Full kernel PCA: eigenvalues of the centred Gram matrix over n.
    let g = kern_core::gram(&k, &x).unwrap();
    let n = x.n();
    let rm: Vec<f64> = (0..n).map(|i| (0..n).map(|j| g[(i, j)]).sum::<f64>() / n as f64).collect();
    let tm = rm.iter().sum::<f64>() / n as f64;
    let c = faer::Mat::from_fn(n, n, |i, j| (g[(i, j)] - rm[i] - rm[j] + tm) / n as f64);
    let mut ev = c.self_adjoint_eigenvalues(faer::Side::Lower).unwrap();
    ev.sort_by(|a, b| b.partial_cmp(a).unwrap());
    for (a, b) in m.eigenvalues().iter().zip(&ev) {
        assert!((a - b).abs() < 1e-8 * ev[0], "{a} vs {b}");
    }
    // Scores are centred and their variances are the eigenvalues.
    let s = m.transform(&x).unwrap();
    for c in 0..3 {
        let mean: f64 = (0..n).map(|i| s[(i, c)]).sum::<f64>() / n as f64;
        let var: f64 = (0..n).map(|i| s[(i, c)].powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 1e-9 && (var - m.eigenvalues()[c]).abs() < 1e-8 * ev[0]);
    }
}

#[test]
fn chained_fvs_adds_a_second_hidden_layer() {
    // XOR of the signs: not linear in the inputs.
    let x = gauss_points(300, 2, 51);
    let y: Vec<f64> = (0..300).map(|i| if x.row(i)[0] * x.row(i)[1] > 0.0 { 1.0 } else { -1.0 }).collect();
    let t = Targets::Binary(BinaryTargets::from_f64(&y).unwrap());
    let k1 = KernelSpec::Gaussian(Gaussian::with_sigma(1.0).unwrap());
    let k2 = KernelSpec::Gaussian(Gaussian::with_sigma(3.0).unwrap());
    let m = KfaParams::new(k1)
        .basis(BasisChoice::Fvs(FvsParams::with_max(25)))
        .then(k2, BasisChoice::Fvs(FvsParams::with_max(15)))
        .fit(&x, &t)
        .unwrap();
    assert_eq!(m.n_fv(), vec![25, 15]);
    let acc = m.predict(&x).unwrap().iter().zip(&y).filter(|(a, b)| a == b).count() as f64 / 300.0;
    assert!(acc > 0.9, "{acc}");
    // Persistence round trip keeps the predictions bit for bit.
    let p = std::env::temp_dir().join(format!("kern-kfa-test-{}.kern", std::process::id()));
    kern_models::persist::save(&p, &m).unwrap();
    let back: kern_models::kfa::KfaModel<KernelSpec> = kern_models::persist::load(&p).unwrap();
    std::fs::remove_file(&p).ok();
    assert_eq!(back.predict(&x).unwrap(), m.predict(&x).unwrap());
}

#[test]
fn readout_handles_rank_deficiency() {
    // Duplicate and zero columns: the basic solution still fits exactly.
    let z = faer::Mat::from_fn(6, 4, |i, j| match j {
        0 => i as f64,
        1 => i as f64,
        2 => 0.0,
        _ => (i * i) as f64,
    });
    let y = faer::Mat::from_fn(6, 2, |i, o| if o == 0 { 2.0 * i as f64 - 1.0 } else { (i * i) as f64 + 3.0 });
    let r = LinearReadout::fit(z.as_ref(), y.as_ref(), 1e-10).unwrap();
    assert_eq!(r.rank(), 3);
    for i in 0..6 {
        let out = r.apply(&[i as f64, i as f64, 0.0, (i * i) as f64]);
        assert!((out[0] - y[(i, 0)]).abs() < 1e-9 && (out[1] - y[(i, 1)]).abs() < 1e-9);
    }
}

#[test]
fn basis_path_equals_refitting_kfa_at_every_size() {
    use faer::Mat;
    use kern_models::kfa::basis_path;
    let x = gauss_points(60, 2, 31);
    let xt = gauss_points(40, 2, 32);
    let y: Vec<f64> = x.rows().map(|r| if r[0] * r[1] > 0.0 { 1.0 } else { -1.0 }).collect();
    let yb = BinaryTargets::from_f64(&y).unwrap();
    let ym = Mat::from_fn(y.len(), 1, |i, _| y[i]);
    let k = Gaussian::with_sigma(1.0).unwrap();
    let exact = |l| FvsParams { max_fv: Some(l), strategy: Strategy::Exact, ..Default::default() };
    let sel = fvs::select(&k, &x, &exact(20)).unwrap();
    let sizes = [1usize, 5, 12, 20];
    let path = basis_path(&k, &x, ym.as_ref(), &sel, &sizes, &xt).unwrap();
    for (t, &l) in sizes.iter().enumerate() {
        for proj in [Projection::Dot, Projection::Coordinates] {
            let m =
                KfaParams::new(k).basis(BasisChoice::Fvs(exact(l))).projection(proj).fit(&x, &yb).unwrap();
            let want = m.outputs(&xt).unwrap();
            for i in 0..xt.n() {
                assert!((path[t][(i, 0)] - want[(i, 0)]).abs() < 1e-7, "L = {l}, {proj:?}, sample {i}");
            }
        }
    }
    // A random basis (from_order) is nested too: it matches BasisChoice::Random.
    let order = fvs::random_indices(x.n(), x.n(), 9);
    let rnd = fvs::from_order(&k, &x, &order, 15, 1e-10).unwrap();
    let path = basis_path(&k, &x, ym.as_ref(), &rnd, &[15], &xt).unwrap();
    let m = KfaParams::new(k).basis(BasisChoice::Random { size: 15, seed: 9 }).fit(&x, &yb).unwrap();
    let want = m.outputs(&xt).unwrap();
    for i in 0..xt.n() {
        assert!((path[0][(i, 0)] - want[(i, 0)]).abs() < 1e-7);
    }
    // Errors, not panics.
    assert!(basis_path(&k, &x, ym.as_ref(), &sel, &[0], &xt).is_err());
    assert!(basis_path(&k, &x, ym.as_ref(), &sel, &[21], &xt).is_err());
    assert!(basis_path(&k, &xt, ym.as_ref(), &sel, &[3], &xt).is_err());
}
