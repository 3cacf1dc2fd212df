//! Bandwidth heuristics (Letchford 2015): mean-to-half, maximum variance, Ahn, median, scale.

use kern_core::Samples;
use kern_tune::bandwidth::{
    BandwidthOptions, Method, Solver, max_variance, mean_similarity, mean_to_half, select_bandwidth,
    similarity_variance, subsample_study, variance_derivative,
};
use kern_tune::pairs::{PairSampling, pairwise_sq_dists};
use proptest::prelude::*;

/// Two clusters per dimension plus noise (shared with the automatic-values tests).
pub(crate) fn points(n: usize, d: usize, seed: u64) -> Samples {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let v = (0..n * d)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            // two clusters per dimension plus noise: a spread-out similarity distribution
            (s >> 11) as f64 / (1u64 << 53) as f64 + if (i / d).is_multiple_of(3) { 4.0 } else { 0.0 }
        })
        .collect();
    Samples::from_flat(v, n, d).unwrap()
}

fn scaled(x: &Samples, s: f64) -> Samples {
    Samples::from_flat(x.as_slice().iter().map(|v| v * s).collect(), x.n(), x.d()).unwrap()
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(32))]

    /// μ(β) = 1/2 within the tolerance, for both root finders; scaling X by s scales β by 1/s².
    #[test]
    fn mean_to_half_root_and_scaling(n in 2usize..60, d in 1usize..12, seed in 0u64..500, s in 0.01f64..100.0,
                                     bisect in any::<bool>()) {
        let x = points(n, d, seed);
        let solver = if bisect { Solver::Bisection } else { Solver::Newton };
        let opts = BandwidthOptions { solver, ..Default::default() };
        let b = select_bandwidth(&x, None, Method::MeanToHalf, &opts).unwrap();
        let p = pairwise_sq_dists(&x);
        prop_assert!((mean_similarity(&p, b.beta) - 0.5).abs() <= 1e-12);
        prop_assert!((b.criterion - 0.5).abs() <= 1e-12);
        let bs = select_bandwidth(&scaled(&x, s), None, Method::MeanToHalf, &opts).unwrap();
        prop_assert!((bs.beta * s * s / b.beta - 1.0).abs() < 1e-9, "{} vs {}", bs.beta * s * s, b.beta);
        prop_assert!((b.sigma - 1.0 / b.beta.sqrt()).abs() <= 1e-12 * b.sigma);
    }

    /// The derivative of the similarity variance changes sign (+ to −) at the returned β, and β agrees
    /// with the maximum over a fine grid.
    #[test]
    fn max_variance_sign_change_and_grid(n in 6usize..50, d in 1usize..6, seed in 0u64..500, bisect in any::<bool>()) {
        let x = points(n, d, seed);
        let p = pairwise_sq_dists(&x);
        let solver = if bisect { Solver::Bisection } else { Solver::Newton };
        let r = max_variance(&p, solver, 1e-12, 200).unwrap();
        prop_assert!(variance_derivative(&p, r.beta * (1.0 - 1e-6)) > 0.0);
        prop_assert!(variance_derivative(&p, r.beta * (1.0 + 1e-6)) < 0.0);
        // fine log grid over 4 decades around β: the grid maximiser is within one grid step
        let steps = 4000;
        let (lo, hi) = (r.beta / 100.0, r.beta * 100.0);
        let ratio = (hi / lo).powf(1.0 / steps as f64);
        let (mut best_b, mut best_v) = (lo, f64::MIN);
        for i in 0..=steps {
            let b = lo * ratio.powi(i);
            let v = similarity_variance(&p, b);
            if v > best_v { best_v = v; best_b = b; }
        }
        prop_assert!(r.value >= best_v - 1e-12, "variance at beta {} < grid max {}", r.value, best_v);
        prop_assert!((best_b / r.beta).ln().abs() <= ratio.ln() * 1.01, "grid argmax {} vs {}", best_b, r.beta);
    }
}

#[test]
fn both_solvers_agree() {
    let x = points(300, 5, 7);
    let p = pairwise_sq_dists(&x);
    let a = mean_to_half(&p, Solver::Newton, 1e-13, 1e-13, 200).unwrap();
    let b = mean_to_half(&p, Solver::Bisection, 1e-13, 1e-13, 200).unwrap();
    assert!((a.beta / b.beta - 1.0).abs() < 1e-10);
    assert!(a.iterations < b.iterations, "newton {} bisection {}", a.iterations, b.iterations);
    let a = max_variance(&p, Solver::Newton, 1e-13, 200).unwrap();
    let b = max_variance(&p, Solver::Bisection, 1e-13, 200).unwrap();
    assert!((a.beta / b.beta - 1.0).abs() < 1e-9);
    assert!(a.iterations < b.iterations);
}

#[test]
fn undefined_cases_are_errors() {
    let opts = BandwidthOptions::default();
    let one = Samples::from_rows(&[[1.0, 2.0]]).unwrap();
    for m in [Method::MeanToHalf, Method::MaxVariance, Method::Median] {
        assert!(select_bandwidth(&one, None, m, &opts).is_err(), "{m} on one point");
    }
    let same = Samples::from_rows(&[[1.0], [1.0], [1.0]]).unwrap();
    for m in Method::ALL {
        assert!(select_bandwidth(&same, Some(&[0, 1, 0]), m, &opts).is_err(), "{m} on duplicates");
    }
    // Half the pairs duplicates: μ ≥ 1/2 for all β → undefined; variance grows with β → undefined.
    let dup = Samples::from_rows(&[[0.0], [0.0], [0.0], [1.0]]).unwrap(); // 3 of 6 pairs at 0
    assert!(select_bandwidth(&dup, None, Method::MeanToHalf, &opts).is_err());
    assert!(select_bandwidth(&dup, None, Method::MaxVariance, &opts).is_err());
    // Fewer duplicates is fine.
    let ok = Samples::from_rows(&[[0.0], [0.0], [1.0], [2.5], [4.0]]).unwrap();
    let b = select_bandwidth(&ok, None, Method::MeanToHalf, &opts).unwrap();
    assert!((mean_similarity(&pairwise_sq_dists(&ok), b.beta) - 0.5).abs() < 1e-12);
    // Two points: one distance, mean-to-half is ln2/p exactly, max variance undefined.
    let two = Samples::from_rows(&[[0.0], [2.0]]).unwrap();
    let b = select_bandwidth(&two, None, Method::MeanToHalf, &opts).unwrap();
    assert!((b.beta - std::f64::consts::LN_2 / 4.0).abs() < 1e-15);
    assert!(select_bandwidth(&two, None, Method::MaxVariance, &opts).is_err());
    // Ahn needs labels of the right length and two classes.
    let x = points(20, 2, 1);
    assert!(select_bandwidth(&x, None, Method::Ahn, &opts).is_err());
    assert!(select_bandwidth(&x, Some(&[0; 19]), Method::Ahn, &opts).is_err());
    assert!(select_bandwidth(&x, Some(&[0; 20]), Method::Ahn, &opts).is_err());
    assert!("nope".parse::<Method>().is_err());
}

#[test]
fn ahn_median_scale() {
    let x = points(90, 3, 3);
    // labels: the cluster indicator (i % 3 == 0), which the data separate
    let labels: Vec<usize> = (0..90).map(|i| usize::from(i % 3 == 0)).collect();
    let opts = BandwidthOptions::default();
    let a = select_bandwidth(&x, Some(&labels), Method::Ahn, &opts).unwrap();
    assert_eq!(a.curve.len(), 81);
    let best = a.curve.iter().map(|c| c.1).fold(f64::MIN, f64::max);
    assert_eq!(a.criterion, best);
    assert!(a.curve.iter().any(|c| c.0 == a.beta));
    // J by brute force at the chosen β
    let e = |i: usize, j: usize| (-a.beta * kern_core::sq_dist(x.row(i), x.row(j))).exp();
    let (mut w, mut nw, mut b, mut nb) = ([0.0; 2], [0.0; 2], 0.0, 0.0);
    for i in 0..90 {
        for j in 0..i {
            if labels[i] == labels[j] {
                w[labels[i]] += e(i, j);
                nw[labels[i]] += 1.0;
            } else {
                b += e(i, j);
                nb += 1.0;
            }
        }
    }
    let j = w[0] / nw[0] + w[1] / nw[1] - 2.0 * b / nb;
    assert!((a.criterion - j).abs() < 1e-12, "{} vs {j}", a.criterion);

    let m = select_bandwidth(&x, None, Method::Median, &opts).unwrap();
    let mut p = pairwise_sq_dists(&x);
    p.sort_by(f64::total_cmp);
    let med = 0.5 * (p[p.len() / 2 - 1] + p[p.len() / 2]); // 4005 pairs: odd → middle
    let med = if p.len() % 2 == 1 { p[p.len() / 2] } else { med };
    assert_eq!(m.beta, 1.0 / med);

    let s = select_bandwidth(&x, None, Method::Scale, &opts).unwrap();
    let v = x.as_slice();
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / v.len() as f64;
    assert!((s.beta - 1.0 / (3.0 * var)).abs() < 1e-12 * s.beta);

    // The same data in a sparse store (a third of the values zeroed): Var(X) counts the absent
    // coordinates as zeros. Two-pass sums over n·d terms in another order: relative difference at most
    // 4·n·d·ε·κ with the conditioning κ = Σv² / Σ(v − m)² (a priori, standard summation bounds).
    let z: Vec<f64> = v.iter().enumerate().map(|(t, &a)| if t % 3 == 0 { 0.0 } else { a }).collect();
    let dense = Samples::from_flat(z.clone(), x.n(), x.d()).unwrap();
    let sparse = dense.to_sparse();
    let (sd, ss) = (
        select_bandwidth(&dense, None, Method::Scale, &opts).unwrap(),
        select_bandwidth(&sparse, None, Method::Scale, &opts).unwrap(),
    );
    let mean = z.iter().sum::<f64>() / z.len() as f64;
    let kappa = z.iter().map(|a| a * a).sum::<f64>() / z.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>();
    let bound = 4.0 * z.len() as f64 * f64::EPSILON * kappa;
    assert!((ss.beta - sd.beta).abs() <= bound * sd.beta, "{} vs {} (bound {bound})", ss.beta, sd.beta);
    // And the median rule reads the same pairs on both stores: each distance within 2(d + 1)ε = 8ε
    // relative (see the pairs tests), the median too, plus one rounding of 1/median.
    let (md, ms) = (
        select_bandwidth(&dense, None, Method::Median, &opts).unwrap(),
        select_bandwidth(&sparse, None, Method::Median, &opts).unwrap(),
    );
    assert!((ms.beta - md.beta).abs() <= 10.0 * f64::EPSILON * md.beta, "{} vs {}", ms.beta, md.beta);
}

#[test]
fn large_n_uses_a_seeded_subsample_and_says_so() {
    let x = points(700, 2, 9);
    let opts =
        BandwidthOptions { sampling: PairSampling::Auto { max_points: 300, seed: 4 }, ..Default::default() };
    let a = select_bandwidth(&x, None, Method::MeanToHalf, &opts).unwrap();
    assert!(a.sampling.contains("subsample of 300 of 700"), "{}", a.sampling);
    assert_eq!(a.pairs, 300 * 299 / 2);
    assert_eq!(a, select_bandwidth(&x, None, Method::MeanToHalf, &opts).unwrap());
    let full = select_bandwidth(&x, None, Method::MeanToHalf, &BandwidthOptions::default()).unwrap();
    assert!(full.sampling.starts_with("all"));
    assert!((a.beta / full.beta - 1.0).abs() < 0.2);
    let rp = BandwidthOptions {
        sampling: PairSampling::RandomPairs { count: 50_000, seed: 1 },
        ..Default::default()
    };
    let r = select_bandwidth(&x, None, Method::MaxVariance, &rp).unwrap();
    let f = select_bandwidth(&x, None, Method::MaxVariance, &BandwidthOptions::default()).unwrap();
    assert!(r.sampling.contains("random pairs"));
    assert!((r.beta / f.beta - 1.0).abs() < 0.1, "{} vs {}", r.beta, f.beta);
}

#[test]
fn subsample_study_is_deterministic_and_thread_independent() {
    let x = points(400, 4, 2);
    let opts = BandwidthOptions::default();
    let a = subsample_study(&x, None, Method::MaxVariance, 100, 6, 11, &opts).unwrap();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let b = pool.install(|| subsample_study(&x, None, Method::MaxVariance, 100, 6, 11, &opts).unwrap());
    assert_eq!(a, b);
    assert_eq!(a.betas.len(), 6);
    let mean = a.betas.iter().sum::<f64>() / 6.0;
    assert!((a.mean - mean).abs() < 1e-15 * mean);
    let var = a.betas.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 5.0;
    assert!((a.variance - var).abs() <= 1e-12 * var.max(1e-300));
    assert_ne!(a.betas, subsample_study(&x, None, Method::MaxVariance, 100, 6, 12, &opts).unwrap().betas);
    assert!(subsample_study(&x, None, Method::MeanToHalf, 1, 3, 0, &opts).is_err());
    assert!(subsample_study(&x, None, Method::MeanToHalf, 500, 3, 0, &opts).is_err());
}

#[test]
fn gemm_distances_match_direct() {
    let x = points(333, 40, 5);
    let p = pairwise_sq_dists(&x);
    let mut k = 0;
    for j in 0..333 {
        for i in j + 1..333 {
            let e = kern_core::sq_dist(x.row(i), x.row(j));
            assert!((p[k] - e).abs() <= 1e-10 * e.max(1.0));
            k += 1;
        }
    }
}

/// Above 65,536 pairs the Newton solvers run on the binned distances: the roots must be the exact
/// array's roots to the tolerances, certified after one pass, and the fused path (bins built while the
/// distances are computed) must agree.
#[test]
fn binned_newton_agrees_with_exact_bisection_on_many_pairs() {
    for (n, d) in [(500, 5), (420, 30)] {
        let x = points(n, d, 11);
        let p = pairwise_sq_dists(&x);
        assert!(p.len() >= 65_536);
        let a = mean_to_half(&p, Solver::Newton, 1e-12, 1e-12, 200).unwrap();
        assert_eq!(a.iterations, 1, "d = {d}: certified on the bins after the binning pass");
        let b = mean_to_half(&p, Solver::Bisection, 1e-12, 1e-12, 200).unwrap();
        assert!((a.beta / b.beta - 1.0).abs() < 1e-10, "d = {d}: {} vs {}", a.beta, b.beta);
        assert!((mean_similarity(&p, a.beta) - 0.5).abs() < 2e-12);
        let opts = BandwidthOptions::default();
        let s = select_bandwidth(&x, None, Method::MeanToHalf, &opts).unwrap();
        assert!((s.beta / a.beta - 1.0).abs() < 1e-12);
        assert_eq!(s.pairs, p.len());

        let a = max_variance(&p, Solver::Newton, 1e-12, 200).unwrap();
        assert_eq!(a.iterations, 1, "d = {d}: certified on the bins");
        let b = max_variance(&p, Solver::Bisection, 1e-12, 200).unwrap();
        assert!((a.beta / b.beta - 1.0).abs() < 1e-9, "d = {d}: {} vs {}", a.beta, b.beta);
        assert!(variance_derivative(&p, a.beta * (1.0 - 1e-9)) > 0.0);
        assert!(variance_derivative(&p, a.beta * (1.0 + 1e-9)) < 0.0);
        assert!((a.value / similarity_variance(&p, a.beta) - 1.0).abs() < 1e-12);
        let s = select_bandwidth(&x, None, Method::MaxVariance, &opts).unwrap();
        assert!((s.beta / a.beta - 1.0).abs() < 1e-11);
    }
}

/// A tolerance no error bound can certify sends the binned root to exact Newton passes on the array.
#[test]
fn uncertifiable_tolerances_fall_back_to_exact_passes() {
    let x = points(500, 4, 5);
    let p = pairwise_sq_dists(&x);
    let a = mean_to_half(&p, Solver::Newton, 0.0, 0.0, 60).unwrap();
    assert!(a.iterations > 1);
    let b = mean_to_half(&p, Solver::Bisection, 1e-13, 1e-13, 200).unwrap();
    assert!((a.beta / b.beta - 1.0).abs() < 1e-11);
    let a = max_variance(&p, Solver::Newton, 0.0, 60).unwrap();
    assert!(a.iterations > 1);
    let b = max_variance(&p, Solver::Bisection, 1e-13, 200).unwrap();
    assert!((a.beta / b.beta - 1.0).abs() < 1e-9);
}

#[test]
fn fused_binning_does_not_depend_on_thread_count() {
    let x = points(700, 3, 9);
    let opts = BandwidthOptions::default();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    for m in [Method::MeanToHalf, Method::MaxVariance] {
        let a = select_bandwidth(&x, None, m, &opts).unwrap();
        let b = pool.install(|| select_bandwidth(&x, None, m, &opts)).unwrap();
        assert_eq!(a, b);
    }
}

/// Ahn's grid over a group of ≥ 65,536 pairs is evaluated on its bins: same J as the exact means.
#[test]
fn ahn_on_binned_groups_matches_exact_means() {
    let between: Vec<f64> = (0..70_000).map(|i| 1.0 + ((i * 7919) % 1000) as f64 * 0.01).collect();
    let within = vec![(0..100).map(|i| 0.01 * i as f64).collect::<Vec<f64>>()];
    let betas = [0.01, 0.3, 1.0, 4.0, 30.0];
    let j = kern_tune::bandwidth::ahn_criterion(&within, &between, &betas).unwrap();
    for (k, &b) in betas.iter().enumerate() {
        let mw = within[0].iter().map(|p| (-b * p).exp()).sum::<f64>() / 100.0;
        let mb = between.iter().map(|p| (-b * p).exp()).sum::<f64>() / between.len() as f64;
        assert!((j[k] - 2.0 * (mw - mb)).abs() < 1e-12, "beta {b}: {} vs {}", j[k], 2.0 * (mw - mb));
    }
}
