//! Tests of the column source (the rule itself is tested in `plan_tests.rs`): the source is all the
//! rule changes — on data whose kernel values both sources compute
//! exactly alike, a fit from a precomputed Gram and a fit from columns on demand are bit for bit the
//! same (every iterate, hence `α`, `ρ`, the objective and the iteration count).
//!
//! **Why integer features.** The precomputed Gram takes its inner products from a blocked GEMM, a
//! column on demand from its own `d`-term sums; on general data the two round differently in the last
//! bits (and the iterates then differ at that level). With small integer features every inner product,
//! norm and squared distance is an exact integer in both, so both hand the same `r²` to the same
//! vectorized exp: the kernel values, and hence the iterates, must be identical. A difference would
//! mean that something besides the columns' source changed.

use super::plan::Columns;
use super::train;
use super::*;
use kern_core::{KernelSpec, Samples};
use kern_sparse::kmatrix::Precomputed;
use proptest::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// `n` points with integer features in `0..=10`, labels from a noisy linear rule (both classes present).
fn integer_problem(n: usize, d: usize, seed: u64) -> (Samples, Vec<f64>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let rows: Vec<Vec<f64>> =
        (0..n).map(|_| (0..d).map(|_| f64::from(rng.random_range(0u32..=10))).collect()).collect();
    let mut y: Vec<f64> = rows
        .iter()
        .map(|r| {
            let s: f64 = r.iter().sum::<f64>() - 5.0 * d as f64 + 4.0 * (rng.random::<f64>() - 0.5);
            if s > 0.0 { 1.0 } else { -1.0 }
        })
        .collect();
    y[0] = 1.0;
    y[1] = -1.0;
    (Samples::from_rows(&rows).unwrap(), y)
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(32))]

    /// Both sides of the rule's threshold (direct distances up to `d = 8`, norms and inner products
    /// above), small and large C, with and without shrinking.
    #[test]
    fn precomputed_and_on_demand_columns_give_bit_identical_fits(
        n in 8usize..70, d in 1usize..20, seed in 0u64..10_000, logc in -1.0f64..3.0,
        shrinking in any::<bool>())
    {
        let (x, y) = integer_problem(n, d, seed);
        let k: KernelSpec = format!("gaussian:gamma={}", 1.0 / (10.0 * d as f64)).parse().unwrap();
        let c = 10f64.powf(logc);
        let solver = SolverParams { shrinking, ..SolverParams::default() };
        let gram = train::dense_gram(&k, &x).unwrap();
        let pre = train::solve_svc(&k, &x, &y, vec![c; n], &solver, Some(Precomputed::Dense(gram)));
        let demand = train::solve_svc(&k, &x, &y, vec![c; n], &solver, None);
        prop_assert_eq!((pre.stats.plan.columns, demand.stats.plan.columns), (Columns::Precomputed, Columns::OnDemand));
        prop_assert_eq!(pre.stats.iterations, demand.stats.iterations);
        prop_assert_eq!(pre.stats.rho.to_bits(), demand.stats.rho.to_bits());
        prop_assert_eq!(pre.stats.objective.to_bits(), demand.stats.objective.to_bits());
        let bits = |a: &[f64]| a.iter().map(|v| v.to_bits()).collect::<Vec<u64>>();
        prop_assert_eq!(bits(&pre.alpha), bits(&demand.alpha));
    }
}
