//! The kernel expansion `K(Y, X) A` on each of its plans equals the brute-force sum
//! `Σ_i A[i, t] k(y_j, x_i)`.

use kern_core::{CompactlySupported, Gaussian, Kernel, KernelSpec, Samples};
use kern_sparse::kmatrix::{ExpandPlan, expand, expand_plan};

fn brute(k: &KernelSpec, x: &Samples, a: &faer::Mat<f64>, y: &Samples) -> faer::Mat<f64> {
    faer::Mat::from_fn(y.n(), a.ncols(), |j, t| {
        (0..x.n()).map(|i| a[(i, t)] * k.eval_ref(x.sample(i), y.sample(j))).sum()
    })
}

#[test]
fn every_plan_matches_the_brute_force_sum() {
    let d = 12;
    let gauss: KernelSpec = Gaussian::with_beta(0.2).unwrap().into();
    let compact: KernelSpec = CompactlySupported::new(gauss.clone(), 1.2, 8.0).unwrap().into();
    // (training points, new points, kernel, sparse flag, the plan these sizes take)
    let cases = [
        (50, 30, &gauss, false, ExpandPlan::Serial),
        (900, 200, &gauss, false, ExpandPlan::Blocks),
        (300, 40, &compact, true, ExpandPlan::Neighbours),
        (300, 40, &compact, false, ExpandPlan::Serial),
    ];
    for (n, m, k, sparse, plan) in cases {
        let x = kern_testkit::data::uniform(n, d, 1.0, 11);
        let y = kern_testkit::data::uniform(m, d, 1.0, 12);
        // Three machines; the second has zero coefficients on every other point (as a one-vs-one
        // machine on two classes), which the serial product skips.
        let a = faer::Mat::from_fn(n, 3, |i, t| match t {
            0 => ((i * 7 % 11) as f64 - 5.0) / 5.0,
            1 if i % 2 == 0 => 0.0,
            _ => 1.0 / (1.0 + i as f64),
        });
        assert_eq!(expand_plan(k, &x, &y, sparse), plan, "n = {n}, m = {m}");
        let e = expand(k, &x, a.as_ref(), &y, sparse).unwrap();
        let b = brute(k, &x, &a, &y);
        let scale = b.norm_max().max(1.0);
        for j in 0..m {
            for t in 0..3 {
                assert!(
                    (e[(j, t)] - b[(j, t)]).abs() <= 1e-12 * scale,
                    "{plan:?} ({j}, {t}): {} vs {}",
                    e[(j, t)],
                    b[(j, t)]
                );
            }
        }
        // The new points as a sparse store take the blocks or the neighbours, with the same values.
        let es = expand(k, &x, a.as_ref(), &y.to_sparse(), sparse).unwrap();
        assert_ne!(expand_plan(k, &x, &y.to_sparse(), sparse), ExpandPlan::Serial);
        for j in 0..m {
            for t in 0..3 {
                assert!((es[(j, t)] - b[(j, t)]).abs() <= 1e-12 * scale);
            }
        }
    }
}
