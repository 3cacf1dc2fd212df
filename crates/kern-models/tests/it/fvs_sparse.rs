//! FVS and KFA on the two sample stores: a dense and a sparse store of the same data give the same
//! selection and the same projection, over random sparsity patterns that include an empty row, a row
//! with one nonzero, duplicate rows and an all-zero column.
//!
//! Why exact agreement is expected (not a tolerance chosen after the fact): the values are multiples of
//! 1/2 in [−2, 2] and d ≤ 12, so every product, dot product, squared norm and squared distance is a
//! small dyadic number computed exactly in f64 whatever the summation order (GEMM, group kernels,
//! merged sparse products, direct sums). Both stores therefore feed bit-identical arguments to the
//! same kernel functions, every kernel value is identical, and FVS — a deterministic sequence of
//! floating-point operations on those values — must select the same vectors. The projections are
//! compared to 1e-12 relative all the same (identical inputs, identical code: any difference would be
//! a path that densifies or evaluates differently).

use kern_core::{Gaussian, KernelSpec, Linear, Samples};
use kern_models::fvs::{self, FvsParams, Strategy};
use kern_models::kfa::{BasisChoice, FvsLayer, Projection};
use proptest::prelude::*;

/// Rows of `d` values: `pattern[i][j]` in 0..=8 picks 0 (half the time) or ±k/2; then row 0 is
/// emptied, row 1 keeps one nonzero, row 2 duplicates row 3, and column `d − 1` is zeroed.
fn data(n: usize, d: usize, pattern: &[u8]) -> Samples {
    let mut rows: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..d)
                .map(|j| {
                    let p = pattern[(i * d + j) % pattern.len()];
                    if p < 9 { 0.0 } else { (p as f64 - 13.0) / 2.0 }
                })
                .collect()
        })
        .collect();
    rows[0].iter_mut().for_each(|v| *v = 0.0);
    for (j, v) in rows[1].iter_mut().enumerate() {
        *v = if j == 0 { 1.5 } else { 0.0 };
    }
    rows[2] = rows[3].clone();
    for r in &mut rows {
        r[d - 1] = 0.0;
    }
    Samples::from_rows(&rows).unwrap()
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(32))]
    #[test]
    fn dense_and_sparse_stores_give_the_same_fvs_and_kfa(
        n in 5usize..24,
        d in 2usize..13,
        pattern in proptest::collection::vec(0u8..18, 16..64),
        strategy in 0usize..3,
    ) {
        let dense = data(n, d, &pattern);
        let sparse = dense.to_sparse();
        prop_assert!(sparse.is_sparse() && !dense.is_sparse());
        let strategy = [Strategy::Exact, Strategy::Sampled { candidates: 4, seed: 9 }, Strategy::MaxResidual][strategy];
        let params = FvsParams { max_fv: Some(6), strategy, ..Default::default() };
        let gauss = Gaussian::with_beta(0.25).unwrap();
        let a = fvs::select(&gauss, &dense, &params).unwrap();
        let b = fvs::select(&gauss, &sparse, &params).unwrap();
        prop_assert_eq!(&a.selected, &b.selected);
        prop_assert_eq!(&a.fitness, &b.fitness);
        let a = fvs::select(&Linear, &dense, &params).unwrap();
        let b = fvs::select(&Linear, &sparse, &params).unwrap();
        prop_assert_eq!(&a.selected, &b.selected);

        let k: KernelSpec = "gaussian:beta=0.25".parse().unwrap();
        for projection in [Projection::Dot, Projection::Orthogonal, Projection::Coordinates] {
            let basis = BasisChoice::Fvs(params.clone());
            let la = FvsLayer::fit(k.clone(), &basis, projection, &dense).unwrap();
            let lb = FvsLayer::fit(k.clone(), &basis, projection, &sparse).unwrap();
            prop_assert_eq!(la.selected(), lb.selected());
            prop_assert!(lb.basis().is_sparse(), "the basis stays in the training store");
            // Either layer projects samples of either store to the same coordinates.
            let za = la.transform(&dense).unwrap();
            for (layer, x) in [(&lb, &sparse), (&lb, &dense), (&la, &sparse)] {
                let z = layer.transform(x).unwrap();
                prop_assert_eq!((z.nrows(), z.ncols()), (za.nrows(), za.ncols()));
                for i in 0..z.nrows() {
                    for j in 0..z.ncols() {
                        let (u, v) = (za[(i, j)], z[(i, j)]);
                        prop_assert!((u - v).abs() <= 1e-12 * (1.0 + u.abs()), "{} vs {}", u, v);
                    }
                }
            }
        }
    }
}

/// FVS on a store too large to densify (d = 2⁴⁰): selection equals that of the same data on few
/// dense features, computed in O(nnz) sample memory.
#[test]
fn fvs_runs_on_a_sparse_store_that_cannot_be_densified() {
    let small = data(12, 6, &[9, 0, 17, 3, 12, 15, 1, 10, 16, 4, 11, 14, 2, 13]);
    let s = small.to_sparse();
    let huge = s.widen(1 << 40).unwrap();
    assert!(huge.to_dense().is_err());
    let params = FvsParams { max_fv: Some(5), ..Default::default() };
    let gauss = Gaussian::with_beta(0.25).unwrap();
    let a = fvs::select(&gauss, &small, &params).unwrap();
    let b = fvs::select(&gauss, &huge, &params).unwrap();
    assert_eq!(a.selected, b.selected);
    assert_eq!(a.fitness, b.fitness);
}
