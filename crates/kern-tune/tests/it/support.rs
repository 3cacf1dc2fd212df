//! Alignment and sparsity (CS-RBF §3): Theorems 1–2 as properties, and the one-pass curve against
//! A and S computed from explicit Gram matrices.

use kern_core::{CompactlySupported, Gaussian, Kernel, Laplacian, Samples, gram};
use kern_tune::pairs::PairSampling;
use kern_tune::support::{
    Diagonal, Procedure, Search, SupportOptions, SupportProfile, default_c_grid, select_support,
};
use proptest::prelude::*;

fn points(n: usize, d: usize, seed: u64, spread: f64) -> Samples {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let v = (0..n * d)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * spread
        })
        .collect();
    Samples::from_flat(v, n, d).unwrap()
}

/// A and S from explicit dense Gram matrices K and K_C (eqs. 3 and 7).
fn explicit<K: Kernel + Clone>(base: &K, x: &Samples, c: f64, nu: f64, diag: Diagonal) -> (f64, f64) {
    let k = gram(base, x).unwrap();
    let kc = CompactlySupported::new(base.clone(), c, nu).unwrap().allow_any_nu();
    let kc = gram(&kc, x).unwrap();
    let n = x.n();
    let (mut num, mut kk, mut cc, mut zeros, mut entries) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for j in 0..n {
        for i in 0..n {
            if i == j && diag == Diagonal::Exclude {
                continue;
            }
            num += k[(i, j)] * kc[(i, j)];
            kk += k[(i, j)] * k[(i, j)];
            cc += kc[(i, j)] * kc[(i, j)];
            entries += 1.0;
            if kc[(i, j)] == 0.0 {
                zeros += 1.0;
            }
        }
    }
    let a = if cc > 0.0 { num / (kk.sqrt() * cc.sqrt()) } else { 0.0 };
    (a, zeros / entries)
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(32))]

    /// Theorem 1 (iii) and Theorem 2 (iii): A non-decreasing, S non-increasing in C; (i)–(ii): the
    /// limits 0 and 1 at the ends (off-diagonal entries, distinct points).
    #[test]
    fn theorems_1_and_2(n in 3usize..40, d in 1usize..4, seed in 0u64..1000, sigma in 0.05f64..3.0,
                        nu in prop::sample::select(vec![1.0, 2.0, 3.0, 5.0, 2.5])) {
        let x = points(n, d, seed, 2.0);
        let k = Gaussian::with_sigma(sigma).unwrap();
        let prof = SupportProfile::new(&k, &x, &SupportOptions { nu, ..Default::default() }).unwrap();
        let p = kern_tune::pairs::pairwise_sq_dists(&x);
        let rmin = p.iter().copied().fold(f64::INFINITY, f64::min).sqrt();
        let rmax = p.iter().copied().fold(0.0, f64::max).sqrt();
        prop_assume!(rmin > 1e-9);
        let mut cs: Vec<f64> = (0..60).map(|i| rmin * 0.5 * (rmax * 1e7 / rmin).powf(i as f64 / 59.0)).collect();
        cs.dedup();
        let curve = prof.curve(&cs).unwrap();
        for w in curve.alignment.windows(2) {
            prop_assert!(w[1] >= w[0] - 1e-12, "A decreased: {:?}", w);
        }
        for w in curve.sparsity.windows(2) {
            prop_assert!(w[1] <= w[0], "S increased: {:?}", w);
        }
        prop_assert_eq!(curve.alignment[0], 0.0);
        prop_assert_eq!(curve.sparsity[0], 1.0);
        prop_assert!(curve.alignment[cs.len() - 1] > 1.0 - 1e-9);
        prop_assert_eq!(curve.sparsity[cs.len() - 1], 0.0);
        prop_assert!(curve.alignment.iter().all(|a| (0.0..=1.0).contains(a)));
    }

    /// The one-pass grid curve and the exact sweep equal A and S from explicit Gram matrices, with and
    /// without the diagonal, for integer and non-integer ν.
    #[test]
    fn curve_equals_explicit_gram(n in 2usize..25, d in 1usize..4, seed in 0u64..1000, sigma in 0.3f64..2.0,
                                  nu in prop::sample::select(vec![1.0, 3.0, 4.0, 1.5]),
                                  include in any::<bool>()) {
        let x = points(n, d, seed, 3.0);
        let k = Gaussian::with_sigma(sigma).unwrap();
        let diagonal = if include { Diagonal::Include } else { Diagonal::Exclude };
        let opts = SupportOptions { nu, diagonal, sampling: PairSampling::All };
        let prof = SupportProfile::new(&k, &x, &opts).unwrap();
        let cs: Vec<f64> = (0..25).map(|i| 0.05 * 1.25f64.powi(i)).collect();
        let curve = prof.curve(&cs).unwrap();
        for (g, &c) in cs.iter().enumerate() {
            let (a, s) = explicit(&k, &x, c, nu, diagonal);
            prop_assert!((curve.alignment[g] - a).abs() < 1e-10, "C={c}: A {} vs {a}", curve.alignment[g]);
            prop_assert!((curve.sparsity[g] - s).abs() < 1e-12, "C={c}: S {} vs {s}", curve.sparsity[g]);
            let (a2, s2) = prof.at(c);
            prop_assert!((a2 - a).abs() < 1e-12 && (s2 - s).abs() < 1e-12);
        }
        if nu.fract() == 0.0 {
            let ex = prof.exact_curve().unwrap();
            for (i, &c) in ex.c.iter().enumerate().step_by(7) {
                let (a, s) = explicit(&k, &x, c, nu, diagonal);
                prop_assert!((ex.alignment[i] - a).abs() < 1e-10, "exact C={c}: A {} vs {a}", ex.alignment[i]);
                prop_assert!((ex.sparsity[i] - s).abs() < 1e-12);
            }
        }
    }
}

#[test]
fn laplacian_base_and_errors() {
    let x = points(30, 2, 5, 1.0);
    let k = Laplacian::new(1.0).unwrap();
    let prof = SupportProfile::new(&k, &x, &SupportOptions::default()).unwrap();
    let (a, s) = explicit(&k, &x, 0.7, 3.0, Diagonal::Exclude);
    let (a2, s2) = prof.at(0.7);
    assert!((a - a2).abs() < 1e-12 && (s - s2).abs() < 1e-12);
    // Non-radial or already compact kernels, bad grids and bad options are errors.
    assert!(SupportProfile::new(&kern_core::Linear, &x, &SupportOptions::default()).is_err());
    let cs = CompactlySupported::new(Gaussian::with_sigma(1.0).unwrap(), 1.0, 3.0).unwrap();
    assert!(SupportProfile::new(&cs, &x, &SupportOptions::default()).is_err());
    assert!(prof.curve(&[1.0, 0.5]).is_err());
    assert!(prof.curve(&[0.0, 0.5]).is_err());
    assert!(prof.select(Procedure::MinAlignment { mu: 1.5 }, &Search::default()).is_err());
    assert!(prof.select(Procedure::Combined { gamma: -1.0 }, &Search::default()).is_err());
    let one = Samples::from_rows(&[[1.0]]).unwrap();
    assert!(SupportProfile::new(&k, &one, &SupportOptions::default()).is_err());
    let frac = SupportProfile::new(&k, &x, &SupportOptions { nu: 2.5, ..Default::default() }).unwrap();
    assert!(frac.exact_curve().is_err());
}

#[test]
fn procedures_on_grid_and_exact() {
    let x = points(150, 2, 11, 3.0);
    let k = Gaussian::with_sigma(0.6).unwrap();
    let prof = SupportProfile::new(&k, &x, &SupportOptions::default()).unwrap();
    let grid = Search::Grid(default_c_grid());
    for proc in [
        Procedure::Combined { gamma: 0.5 },
        Procedure::Combined { gamma: 1.0 },
        Procedure::MinAlignment { mu: 0.9 },
        Procedure::MinAlignment { mu: 0.99 },
        Procedure::MinSparsity { tau: 0.75 },
        Procedure::MinSparsity { tau: 0.5 },
    ] {
        let g = prof.select(proc, &grid).unwrap();
        let e = prof.select(proc, &Search::Exact).unwrap();
        // the chosen point is on its curve
        let i = g.curve.c.iter().position(|&c| c == g.c).unwrap();
        assert_eq!((g.curve.alignment[i], g.curve.sparsity[i]), (g.alignment, g.sparsity));
        match proc {
            Procedure::Combined { gamma } => {
                let best = g
                    .curve
                    .alignment
                    .iter()
                    .zip(&g.curve.sparsity)
                    .map(|(a, s)| a + gamma * s)
                    .fold(f64::MIN, f64::max);
                assert_eq!(g.alignment + gamma * g.sparsity, best);
                assert!(e.alignment + gamma * e.sparsity >= best - 1e-12);
            }
            Procedure::MinAlignment { mu } => {
                assert!(g.alignment >= mu && e.alignment >= mu);
                assert!(e.sparsity >= g.sparsity);
                // no grid point with A >= mu is sparser
                assert!(
                    g.curve.alignment.iter().zip(&g.curve.sparsity).all(|(a, s)| *a < mu || *s <= g.sparsity)
                );
            }
            Procedure::MinSparsity { tau } => {
                assert!(g.sparsity >= tau && e.sparsity >= tau);
                assert!(e.alignment >= g.alignment - 1e-12);
                // eq. 10: C at the (1 − τ) quantile of the pair distances
                let mut r: Vec<f64> =
                    kern_tune::pairs::pairwise_sq_dists(&x).iter().map(|p| p.sqrt()).collect();
                r.sort_by(f64::total_cmp);
                let m = r.len();
                let at_least = r.iter().filter(|&&v| v >= e.c).count() as f64 / m as f64;
                assert!(at_least >= tau);
                let next = r.iter().copied().find(|&v| v > e.c);
                if let Some(nc) = next {
                    assert!((r.iter().filter(|&&v| v >= nc).count() as f64) / (m as f64) < tau);
                }
            }
        }
    }
    // μ = 1 is only reached in the limit: exact search returns C = ∞, the grid is an error.
    let e = prof.select(Procedure::MinAlignment { mu: 1.0 }, &Search::Exact).unwrap();
    assert!(e.c.is_infinite() && e.alignment == 1.0);
    assert!(prof.select(Procedure::MinAlignment { mu: 1.0 }, &grid).is_err());
}

#[test]
fn random_pair_estimate_is_within_its_standard_error() {
    let x = points(1500, 3, 3, 2.0);
    let k = Gaussian::with_sigma(0.5).unwrap();
    let exact = SupportProfile::new(&k, &x, &SupportOptions::default()).unwrap();
    let est = SupportProfile::new(
        &k,
        &x,
        &SupportOptions {
            sampling: PairSampling::RandomPairs { count: 200_000, seed: 9 },
            ..Default::default()
        },
    )
    .unwrap();
    assert!(est.sampling().contains("random pairs"));
    let cs = [0.2, 0.5, 1.0, 2.0];
    let a = exact.curve(&cs).unwrap();
    let b = est.curve(&cs).unwrap();
    let (ase, sse) = (b.alignment_se.unwrap(), b.sparsity_se.unwrap());
    for g in 0..cs.len() {
        let bound_s = 0.5 / (200_000f64).sqrt();
        assert!(sse[g] <= 2.0 * bound_s, "S se {} vs bound {bound_s}", sse[g]);
        assert!((a.sparsity[g] - b.sparsity[g]).abs() <= 5.0 * bound_s);
        assert!(
            (a.alignment[g] - b.alignment[g]).abs() <= 6.0 * ase[g] + 1e-4,
            "C={} A {} vs {} (se {})",
            cs[g],
            a.alignment[g],
            b.alignment[g],
            ase[g]
        );
    }
}

#[test]
fn select_support_matches_profile_select() {
    let x = points(80, 2, 1, 2.0);
    let k = Gaussian::with_sigma(0.6).unwrap();
    let opts = SupportOptions::default();
    let a = select_support(&k, &x, Procedure::Combined { gamma: 0.3 }, &Search::default(), &opts).unwrap();
    let b = SupportProfile::new(&k, &x, &opts)
        .unwrap()
        .select(Procedure::Combined { gamma: 0.3 }, &Search::default())
        .unwrap();
    assert_eq!(a, b);
    assert_eq!(a.curve.c.len(), 101);
    assert_eq!(a.pairs, 80 * 79 / 2);
}
