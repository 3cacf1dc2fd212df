//! The dense pair solver's split passes (`Solver::par`: scans, column fills, gradient and `Ḡ`
//! updates and the gradient reconstruction on two threads, the column of `i` filled inside the second
//! pass of the selection and that of `j` inside the update) against the serial passes: the halves'
//! results are joined exactly as one pass finds them, so the models must be the same bytes — for
//! every column source the solver meets (direct differences up to `d = 8` and inner products by
//! norms above on the feature-major copy, a dense Gram, the general evaluation of a kernel without a
//! vectorized profile, dense columns scattered from a sparse `K_C`), the cache from two columns up to
//! the whole of `Q`, and the three standard duals (C-SVC, ε-SVR's `2n` variables, one-class's nonzero
//! start).

use super::solver::SPLIT_SOLVES;
use super::sparse_tests::{bytes, pinned};
use super::*;
use kern_core::learner::Fit;
use kern_core::{BinaryTargets, KernelSpec, RealTargets};
use proptest::prelude::*;
use std::sync::atomic::Ordering;

/// Runs `f` with `s` pinning the split passes (`true`: at any length and thread count) or the serial ones.
fn with_split<T>(split: bool, s: SolverParams, f: impl FnOnce(SolverParams) -> T) -> T {
    f(pinned(s, |t| t.force_split = Some(split)))
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(48))]

    #[test]
    fn split_and_serial_passes_give_the_same_models(
        n in 6usize..90, d in 1usize..15, seed in 0u64..10_000, logc in -1.0f64..3.0,
        tol_exp in 2i32..7, shrinking: bool, nu in 0.05f64..0.95,
        cache_mb in prop::sample::select(vec![0.001, 0.01, 100.0]),
        kernel in prop::sample::select(vec!["gaussian", "laplacian", "compact"]))
    {
        let (x, y) = super::tests::random_problem(n, d, seed);
        let k: KernelSpec = match kernel {
            "gaussian" => format!("gaussian:gamma={}", 1.0 / d as f64).parse().unwrap(),
            "laplacian" => "laplacian:sigma=1.5".parse().unwrap(),
            _ => format!("cs-gaussian:sigma=1,c={},nu={}", 2.0 * (d as f64).sqrt(), (d + 2) / 2 + 1)
                .parse()
                .unwrap(),
        };
        let c = 10f64.powf(logc);
        let s = SolverParams { tol: 10f64.powi(-tol_exp), shrinking, cache_mb, ..SolverParams::default() };
        let t = BinaryTargets::from_f64(&y).unwrap();
        let svc = |split| with_split(split, s, |s| bytes(&SvcParams::new(k.clone()).c(c).solver(s).fit(&x, &t).unwrap()));
        let before = SPLIT_SOLVES.load(Ordering::Relaxed);
        let split = svc(true);
        // The split was taken unless the problem is solved on sparse columns (no dense passes).
        prop_assert!(SPLIT_SOLVES.load(Ordering::Relaxed) > before || kernel == "compact");
        prop_assert_eq!(split, svc(false));
        let z = RealTargets::new((0..n).map(|i| x.row(i)[0].sin() + 0.3 * x.row(i)[d - 1]).collect()).unwrap();
        let svr = |split| with_split(split, s, |s| {
            bytes(&SvrParams::new(k.clone()).c(c).epsilon(0.1).solver(s).fit(&x, &z).unwrap())
        });
        prop_assert_eq!(svr(true), svr(false));
        let oc = |split| with_split(split, s, |s| bytes(&OneClassParams::new(k.clone()).nu(nu).solver(s).fit(&x).unwrap()));
        prop_assert_eq!(oc(true), oc(false));
    }
}
