//! Kernel specs with automatic values: resolved to what the bandwidth and support-radius methods give,
//! in every unit of the width, with the procedures' constraints met.

use crate::bandwidth::points;
use kern_core::{Kernel, Samples};
use kern_tune::auto::AutoKernel;
use kern_tune::bandwidth::{BandwidthOptions, Method, select_bandwidth};
use kern_tune::pairs::PairSampling;
use proptest::prelude::*;

fn resolve(spec: &str, x: &Samples, labels: Option<&[usize]>) -> kern_tune::auto::Resolved {
    AutoKernel::parse(spec).unwrap().expect("automatic").resolve(x, labels, 7).unwrap()
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(16))]

    /// Every width key resolves to the same kernel, with the precision the bandwidth method selects.
    #[test]
    fn every_width_key_is_the_selected_precision(n in 5usize..60, d in 1usize..4, seed in 0u64..500,
                                                 m in 0usize..3) {
        let x = points(n, d, seed);
        let method = [Method::MeanToHalf, Method::MaxVariance, Method::Median][m];
        let opts = BandwidthOptions { sampling: PairSampling::Auto { max_points: 5000, seed: 7 }, ..Default::default() };
        let Ok(b) = select_bandwidth(&x, None, method, &opts) else { return Ok(()) };
        let k: Vec<_> = ["sigma", "gamma", "beta", "std"]
            .iter()
            .map(|key| resolve(&format!("gaussian:{key}={}", method.name()), &x, None).kernel)
            .collect();
        let (u, v) = (x.row(0), x.row(n - 1));
        let want = (-b.beta * kern_core::sq_dist(u, v)).exp();
        for k in &k {
            prop_assert!((k.eval(u, v) - want).abs() <= 1e-12 * want.max(1e-300), "{k}: {} vs {want}", k.eval(u, v));
        }
    }
}

#[test]
fn auto_is_mean_to_half_and_ahn_uses_labels() {
    let x = points(90, 2, 3);
    let a = resolve("rbf:sigma=auto", &x, None);
    let m = resolve("gaussian:sigma=mean-to-half", &x, None);
    assert_eq!(a.kernel, m.kernel);
    assert_eq!(
        (a.choices.len(), a.choices[0].parameter.as_str(), a.choices[0].method.as_str()),
        (1, "sigma", "mean-to-half")
    );
    let labels: Vec<usize> = (0..90).map(|i| usize::from(i % 3 == 0)).collect();
    let ahn = resolve("gaussian:gamma=ahn", &x, Some(&labels));
    let b = select_bandwidth(
        &x,
        Some(&labels),
        Method::Ahn,
        &BandwidthOptions {
            sampling: PairSampling::Auto { max_points: 5000, seed: 7 },
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(ahn.choices[0].value, b.beta);
    let e = AutoKernel::parse("gaussian:sigma=ahn").unwrap().unwrap().resolve(&x, None, 0).unwrap_err();
    assert!(e.to_string().contains("class labels"), "{e}");
}

/// `c=auto` is the most aligned radius with sparsity at least 1/2 (CS-RBF eq. 10), `align-MU` the
/// sparsest with alignment at least MU (eq. 9); both report the values the resolved kernel carries.
#[test]
fn support_radius_meets_its_procedure() {
    use kern_tune::support::{Procedure, Search, SupportOptions, select_support};
    let x = points(150, 2, 11);
    for (spec, proc_) in [
        ("cs-gaussian:sigma=auto,c=auto", Procedure::MinSparsity { tau: 0.5 }),
        ("cs-gaussian:sigma=auto,c=align-0.9", Procedure::MinAlignment { mu: 0.9 }),
        ("cs-gaussian:sigma=auto,c=sparse-0.5,nu=3", Procedure::MinSparsity { tau: 0.5 }),
    ] {
        let r = resolve(spec, &x, None);
        assert_eq!(r.choices.len(), 2, "{spec}");
        let sigma = r.choices[0].value;
        let c = r.choices[1].value;
        assert_eq!(r.kernel.support_radius(), Some(c), "{spec}: {}", r.kernel);
        let base = kern_core::Gaussian::with_sigma(sigma).unwrap();
        let ch = select_support(&base, &x, proc_, &Search::Exact, &SupportOptions::default()).unwrap();
        assert_eq!(ch.c, c, "{spec}");
        match proc_ {
            Procedure::MinAlignment { mu } => assert!(ch.alignment >= mu),
            Procedure::MinSparsity { tau } => assert!(ch.sparsity >= tau),
            Procedure::Combined { .. } => unreachable!(),
        }
    }
    // A fixed width with an automatic radius keeps the width.
    let r = resolve("cs-gaussian:sigma=0.7,c=auto", &x, None);
    assert_eq!(r.choices.len(), 1);
    assert!(r.kernel.to_string().starts_with("cs-gaussian:sigma=0.7,"), "{}", r.kernel);
}

#[test]
fn large_sets_use_a_seeded_subsample_and_are_deterministic() {
    let x = points(5200, 2, 5);
    let a = resolve("gaussian:sigma=auto", &x, None);
    let b = resolve("gaussian:sigma=auto", &x, None);
    assert_eq!(a.kernel.to_string(), b.kernel.to_string());
    assert!(a.choices[0].detail.contains("5000"), "{}", a.choices[0].detail);
}

#[test]
fn misplaced_automatic_values_are_refused() {
    for bad in [
        "laplacian:sigma=auto",
        "gaussian:sigma=auto+linear",
        "0.5*gaussian:sigma=auto",
        "cs-gaussian:sigma=1,c=align-2",
        "gaussian:sigma=1,c=auto",
        "poly:degree=auto",
    ] {
        assert!(AutoKernel::parse(bad).is_err(), "{bad}");
    }
    // Words that are not automatic values are left to the kernel parser.
    assert!(AutoKernel::parse("gaussian:sigma=best-one").unwrap().is_none());
    assert!(AutoKernel::parse("railway:auto").unwrap().is_none());
}

/// Without `nu`, an automatic radius comes with the smallest integer ν ≥ max(3, (d + 1)/2), for which
/// the taper is positive definite on R^d.
#[test]
fn nu_defaults_to_the_positive_definite_bound() {
    for (d, nu) in [(2, 3), (5, 3), (6, 4), (13, 7)] {
        let x = points(40, d, 2);
        let r = resolve("cs-gaussian:sigma=auto,c=auto", &x, None);
        let s = r.kernel.to_string();
        assert!(s.ends_with(&format!(",nu={nu}")), "d={d}: {s}");
        let r = resolve("cs-gaussian:sigma=auto,c=auto,nu=2.5,nu_check=off", &x, None);
        assert!(r.kernel.to_string().contains("nu=2.5"), "{}", r.kernel);
    }
}
