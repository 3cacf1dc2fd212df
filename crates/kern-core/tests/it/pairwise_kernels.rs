//! scikit-learn's pairwise kernels (`LaplacianL1`, `Chi2`, `Cosine`): exactly symmetric, positive
//! semi-definite Gram matrices, agreement with a brute-force evaluation of the formulas of
//! `sklearn.metrics.pairwise`, the same values on sparse and dense stores, spec round trips, and
//! the chi2 kernel's refusal of negative features.

use faer::{Mat, Side};
use kern_core::*;
use proptest::prelude::*;

fn samples(min: f64, max_n: usize, max_d: usize) -> impl Strategy<Value = Samples> {
    (1..=max_n, 1..=max_d).prop_flat_map(move |(n, d)| {
        (prop::collection::vec(min..3.0, n * d), prop::collection::vec(0..n, 0..=n / 3)).prop_map(
            move |(mut v, zero_rows)| {
                // Some rows exactly zero: cosine's 0/0 case, chi2's x + y = 0 coordinates.
                for &r in &zero_rows {
                    v[r * d..(r + 1) * d].fill(0.0);
                }
                Samples::from_flat(v, n, d).unwrap()
            },
        )
    })
}

/// `k(x, y)` by the formulas of scikit-learn's pairwise module, written out per kernel.
fn brute(name: &str, gamma: f64, x: &[f64], y: &[f64]) -> f64 {
    match name {
        "laplacian-l1" => (-gamma * x.iter().zip(y).map(|(a, b)| (a - b).abs()).sum::<f64>()).exp(),
        "chi2" => {
            let mut s = 0.0;
            for (a, b) in x.iter().zip(y) {
                if a + b != 0.0 {
                    s += (a - b) * (a - b) / (a + b);
                }
            }
            (-gamma * s).exp()
        }
        "cosine" => {
            let (mut xy, mut xx, mut yy) = (0.0, 0.0, 0.0);
            for (a, b) in x.iter().zip(y) {
                xy += a * b;
                xx += a * a;
                yy += b * b;
            }
            if xx == 0.0 || yy == 0.0 { 0.0 } else { xy / (xx.sqrt() * yy.sqrt()) }
        }
        _ => unreachable!(),
    }
}

fn kernel(name: &str, gamma: f64) -> KernelSpec {
    match name {
        "laplacian-l1" => LaplacianL1::new(gamma).unwrap().into(),
        "chi2" => Chi2::new(gamma).unwrap().into(),
        _ => Cosine.into(),
    }
}

fn check(name: &str, gamma: f64, x: &Samples) -> Result<(), TestCaseError> {
    let k = kernel(name, gamma);
    let g: Mat<f64> = gram(&k, x).unwrap();
    let n = x.n();
    let mut max_abs: f64 = 0.0;
    for j in 0..n {
        for i in 0..n {
            prop_assert_eq!(g[(i, j)], g[(j, i)], "{} not symmetric at ({}, {})", name, i, j);
            let want = brute(name, gamma, x.row(i), x.row(j));
            prop_assert!(
                (g[(i, j)] - want).abs() <= 1e-14,
                "{} ({}, {}): {} vs {}",
                name,
                i,
                j,
                g[(i, j)],
                want
            );
            max_abs = max_abs.max(g[(i, j)].abs());
        }
    }
    let eig = g.self_adjoint_eigenvalues(Side::Lower).expect("eigenvalues converge");
    let min = eig.iter().copied().fold(f64::INFINITY, f64::min);
    prop_assert!(min >= -1e-10 * n as f64 * max_abs, "{}: smallest eigenvalue {}", name, min);
    // A sparse store gives the same values (cosine through inner products, the others written out).
    let gs = cross_gram(&k, &x.to_sparse(), x).unwrap();
    for j in 0..n {
        for i in 0..n {
            prop_assert!((gs[(i, j)] - g[(i, j)]).abs() <= 1e-14, "{} sparse ({}, {})", name, i, j);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(48))]

    #[test]
    fn laplacian_l1_and_cosine_on_any_data(x in samples(-3.0, 30, 6), gamma in 0.01f64..3.0) {
        check("laplacian-l1", gamma, &x)?;
        check("cosine", gamma, &x)?;
    }

    #[test]
    fn chi2_on_nonnegative_data(x in samples(0.0, 30, 6), gamma in 0.01f64..3.0) {
        check("chi2", gamma, &x)?;
    }
}

#[test]
fn chi2_refuses_negative_features_wherever_it_is_evaluated() {
    let k: KernelSpec = "chi2:gamma=0.5".parse().unwrap();
    let good = Samples::from_rows(&[[1.0, 0.0], [0.5, 2.0]]).unwrap();
    let bad = Samples::from_rows(&[[1.0, 0.0], [0.5, -2.0]]).unwrap();
    assert!(gram(&k, &good).is_ok());
    for err in [
        gram(&k, &bad).unwrap_err(),
        gram(&k, &bad.to_sparse()).unwrap_err(),
        cross_gram(&k, &good, &bad).unwrap_err(),
        cross_gram(&k, &bad, &good).unwrap_err(),
        // Inside a combination too.
        gram(&"linear + chi2:gamma=1".parse::<KernelSpec>().unwrap(), &bad).unwrap_err(),
    ] {
        assert!(
            matches!(err, CoreError::Domain { row: 1, col: 1, value: -2.0, .. }),
            "unexpected error {err}"
        );
        assert!(err.to_string().contains("nonnegative"), "{err}");
    }
}

#[test]
fn specs_parse_print_and_evaluate_as_their_types() {
    let x = [0.5, 1.0, 0.0];
    let y = [1.5, 0.0, 0.0];
    for (spec, direct) in [
        ("laplacian-l1:gamma=0.5", LaplacianL1::new(0.5).unwrap().eval(&x, &y)),
        ("chi2:gamma=2", Chi2::new(2.0).unwrap().eval(&x, &y)),
        ("chi2", Chi2::new(1.0).unwrap().eval(&x, &y)),
        ("cosine", Cosine.eval(&x, &y)),
    ] {
        let k: KernelSpec = spec.parse().unwrap();
        assert_eq!(k.eval(&x, &y), direct, "{spec}");
        let again: KernelSpec = k.to_string().parse().unwrap();
        assert_eq!(again, k, "{spec} printed as {k}");
    }
    // kern's own Laplacian stays the Euclidean one: exp(-||x - y||_2 / sigma).
    let l2: KernelSpec = "laplacian:sigma=1".parse().unwrap();
    assert!((l2.eval(&[0.0, 0.0], &[3.0, 4.0]) - (-5.0f64).exp()).abs() < 1e-15);
    let l1: KernelSpec = "laplacian-l1:gamma=1".parse().unwrap();
    assert!((l1.eval(&[0.0, 0.0], &[3.0, 4.0]) - (-7.0f64).exp()).abs() < 1e-15);
}
