//! Tests of the column-source rule (`train::precompute`, `train::cheap_columns`): which source a problem
//! gets, and that the source is all the rule changes — on data whose kernel values both sources compute
//! exactly alike, a fit from a precomputed Gram and a fit from columns on demand are bit for bit the
//! same (every iterate, hence `α`, `ρ`, the objective and the iteration count).
//!
//! **Why integer features.** The precomputed Gram takes its inner products from a blocked GEMM, a
//! column on demand from its own `d`-term sums; on general data the two round differently in the last
//! bits (and the iterates then differ at that level). With small integer features every inner product,
//! norm and squared distance is an exact integer in both, so both hand the same `r²` to the same
//! vectorized exp: the kernel values, and hence the iterates, must be identical. A difference would
//! mean that something besides the columns' source changed.

use super::train::{self, ON_DEMAND_MAX_DIM};
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
        prop_assert!(pre.stats.dense_gram && !demand.stats.dense_gram);
        prop_assert_eq!(pre.stats.iterations, demand.stats.iterations);
        prop_assert_eq!(pre.stats.rho.to_bits(), demand.stats.rho.to_bits());
        prop_assert_eq!(pre.stats.objective.to_bits(), demand.stats.objective.to_bits());
        let bits = |a: &[f64]| a.iter().map(|v| v.to_bits()).collect::<Vec<u64>>();
        prop_assert_eq!(bits(&pre.alpha), bits(&demand.alpha));
    }
}

/// The rule: a fast radial kernel on a dense store up to `ON_DEMAND_MAX_DIM` computes its columns on
/// demand; above it, and for kernels without the vectorized column, the Gram is precomputed when it
/// fits in half the cache; a compactly supported kernel gets its sparse Gram.
#[test]
fn the_rule_chooses_by_dimension_kernel_and_budget() {
    let budget = SolverParams::default().cache_bytes();
    let source = |spec: &str, d: usize, n: usize, bytes: usize| {
        let (x, _) = integer_problem(n, d, 1);
        let k: KernelSpec = spec.parse().unwrap();
        match train::precompute(&k, &x, bytes, None).unwrap() {
            None => "demand",
            Some(Precomputed::Dense(_)) => "dense",
            Some(Precomputed::Sparse(_)) => "sparse",
            Some(Precomputed::OnDemand { .. }) => "on demand",
        }
    };
    for d in [1, 8, 9, ON_DEMAND_MAX_DIM] {
        assert_eq!(source("gaussian:sigma=3", d, 50, budget), "demand", "d = {d}");
    }
    assert_eq!(source("gaussian:sigma=3", ON_DEMAND_MAX_DIM + 1, 50, budget), "dense");
    assert_eq!(source("gaussian:sigma=3", 60, 50, budget), "dense");
    // A Gram that does not fit in half the budget is never precomputed.
    assert_eq!(source("gaussian:sigma=3", 60, 50, 2 * 50 * 50 * 8 - 1), "demand");
    assert_eq!(source("gaussian:sigma=3", 60, 50, 2 * 50 * 50 * 8), "dense");
    // Kernels without the vectorized column keep the precompute in any dimension.
    assert_eq!(source("laplacian:sigma=3", 4, 50, budget), "dense");
    assert_eq!(source("poly:degree=2,coef0=1", 4, 50, budget), "dense");
    assert_eq!(source("cs-gaussian:sigma=3,c=2,nu=3", 4, 50, budget), "sparse");
}
