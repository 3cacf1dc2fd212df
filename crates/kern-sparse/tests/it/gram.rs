//! The sparse K_C equals the dense CompactlySupported Gram matrix entry by entry: bit for bit the
//! dense matrix of the direct path (small `d`: exact squared distances, then the kernel's batch
//! values, as the sparse assembly), and to rounding the pairwise and GEMM ones.

use kern_core::{GramPath, Samples, cross_gram_with, gram_with};
use kern_sparse::{GramOptions, SearchMethod, SparseError, sparse_cross_gram, sparse_gram, sparse_gram_with};
use nalgebra_sparse::CscMatrix;
use proptest::prelude::*;

fn assert_equals_dense(s: &CscMatrix<f64>, dense: &faer::Mat<f64>, tol: f64) {
    assert_eq!((s.nrows(), s.ncols()), (dense.nrows(), dense.ncols()));
    let mut stored = 0;
    for j in 0..s.ncols() {
        let col = s.col(j);
        let ri = col.row_indices();
        assert!(ri.windows(2).all(|w| w[0] < w[1]), "sorted unique rows");
        let mut k = 0;
        for i in 0..s.nrows() {
            let v = if k < ri.len() && ri[k] == i {
                k += 1;
                stored += 1;
                col.values()[k - 1]
            } else {
                0.0
            };
            let want = dense[(i, j)];
            assert!((v - want).abs() <= tol, "entry ({i}, {j}): sparse {v}, dense {want}");
        }
    }
    assert_eq!(stored, s.nnz());
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(32))]

    #[test]
    fn sparse_equals_dense_exactly(
        (n, d, c, seed) in (1usize..80, 1usize..7, 0.05f64..2.0, any::<u64>())
    ) {
        let x = crate::common::uniform(n, d, 1.0, seed);
        let k = crate::common::cs_gauss(0.6, c, d);
        // d < 7: the direct path.
        let dense = gram_with(&k, &x, GramPath::Auto).unwrap();
        let pairwise = gram_with(&k, &x, GramPath::Pairwise).unwrap();
        for m in [SearchMethod::Auto, SearchMethod::Grid, SearchMethod::Scan, SearchMethod::Brute] {
            let g = sparse_gram_with(&k, &x, GramOptions { search: m }).unwrap();
            assert_equals_dense(g.matrix(), &dense, 0.0);
            // The pairwise path's scalar `exp` is within a few ulp of the batch one.
            assert_equals_dense(g.matrix(), &pairwise, 1e-15);
            // Diagonal always present, matrix exactly symmetric.
            for j in 0..n {
                prop_assert!(g.matrix().get_entry(j, j).is_some());
            }
            prop_assert_eq!(g.matrix().transpose(), g.matrix().clone());
        }
    }
}

#[test]
fn sparse_equals_default_dense_gram_in_high_dimension() {
    // kern-core's default dense path uses a GEMM for d > 8; agreement then is to rounding.
    let x = crate::common::uniform(300, 16, 1.0, 5);
    let k = crate::common::cs_gauss(1.0, 1.3, 16);
    let dense = kern_core::gram(&k, &x).unwrap();
    let g = sparse_gram(&k, &x).unwrap();
    assert_equals_dense(g.matrix(), &dense, 1e-12);
    assert!(g.sparsity() > 0.2 && g.sparsity() < 0.99, "sparsity {}", g.sparsity());
}

#[test]
fn cross_gram_equals_dense() {
    let x = crate::common::uniform(120, 2, 1.0, 11);
    let y = crate::common::uniform(70, 2, 1.2, 12);
    let k = crate::common::cs_gauss(0.5, 0.3, 2);
    let s = sparse_cross_gram(&k, &x, &y).unwrap();
    let dense = cross_gram_with(&k, &x, &y, GramPath::Auto).unwrap();
    assert_equals_dense(&s, &dense, 0.0);
    let pairwise = cross_gram_with(&k, &x, &y, GramPath::Pairwise).unwrap();
    assert_equals_dense(&s, &pairwise, 1e-15);
}

#[test]
fn stats_follow_the_paper() {
    let x = crate::common::uniform(400, 2, 1.0, 3);
    let g = sparse_gram(&crate::common::cs_gauss(0.6, 0.2, 2), &x).unwrap();
    let s = g.stats();
    let n = 400usize;
    assert_eq!(s.nnz, g.matrix().nnz());
    assert_eq!(s.bytes_paper, 12 * s.nnz + 4 * n);
    assert_eq!(s.bytes_dense, 8 * n * n);
    assert!((s.sparsity - (1.0 - s.nnz as f64 / (n * n) as f64)).abs() < 1e-15);
    assert!(s.bytes_csc < s.bytes_dense);
}

#[test]
fn deterministic_at_any_thread_count() {
    let x = crate::common::uniform(3000, 2, 1.0, 9);
    let k = crate::common::cs_gauss(0.6, 0.05, 2);
    let run = |t: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap()
            .install(|| sparse_gram(&k, &x).unwrap())
    };
    assert_eq!(run(1), run(2));
    assert_eq!(run(1), run(3));
}

#[test]
fn errors() {
    let x = Samples::from_rows(&[[0.0, 0.0], [1.0, 1.0]]).unwrap();
    let gauss = kern_core::Gaussian::with_sigma(1.0).unwrap();
    assert!(matches!(sparse_gram(&gauss, &x), Err(SparseError::NoCompactSupport)));
    // nu = 1 < (d + 1)/2 in d = 2: kern-core's PD check surfaces as a Core error.
    let k = kern_core::CompactlySupported::new(gauss, 1.0, 1.0).unwrap();
    assert!(matches!(sparse_gram(&k, &x), Err(SparseError::Core(_))));
    let y = Samples::from_rows(&[[0.0]]).unwrap();
    assert!(sparse_cross_gram(&crate::common::cs_gauss(1.0, 1.0, 2), &x, &y).is_err());
    // Specs parsed from the command line work too.
    let spec: kern_core::KernelSpec = "cs-gaussian:sigma=0.6,c=2,nu=3".parse().unwrap();
    assert_eq!(sparse_gram(&spec, &x).unwrap().nnz(), 4);
}

/// A sparse store gives the same compact-support Gram matrix as the dense store of the same data
/// (the sparse blocked scan against the grid / GEMM scan), including an empty row and a duplicate row.
#[test]
fn sparse_store_gives_the_dense_store_gram() {
    use kern_core::{KernelSpec, Samples};
    let mut rows: Vec<Vec<f64>> = (0..40)
        .map(|i| {
            (0..12)
                .map(|k| if (i * 7 + k * 3) % 5 == 0 { ((i * 13 + k) % 9) as f64 / 9.0 - 0.4 } else { 0.0 })
                .collect()
        })
        .collect();
    rows[5] = vec![0.0; 12];
    rows[6] = rows[0].clone();
    let dense = Samples::from_rows(&rows).unwrap();
    let sparse = dense.to_sparse();
    for spec in ["cs-gaussian:sigma=1,c=0.9,nu=7", "cs-laplacian:sigma=1,c=0.7,nu=7"] {
        let k: KernelSpec = spec.parse().unwrap();
        let a = kern_sparse::sparse_gram(&k, &dense).unwrap();
        let b = kern_sparse::sparse_gram(&k, &sparse).unwrap();
        assert_eq!(a.matrix().col_offsets(), b.matrix().col_offsets(), "{spec}");
        assert_eq!(a.matrix().row_indices(), b.matrix().row_indices(), "{spec}");
        for (x, y) in a.matrix().values().iter().zip(b.matrix().values()) {
            assert!((x - y).abs() <= 1e-12 * x.abs().max(1.0), "{spec}: {x} vs {y}");
        }
        let y = dense.select(&[6, 1, 5]).unwrap();
        let c = kern_sparse::sparse_cross_gram(&k, &dense, &y).unwrap();
        let d = kern_sparse::sparse_cross_gram(&k, &sparse, &y.to_sparse()).unwrap();
        assert_eq!(c.row_indices(), d.row_indices(), "{spec}");
    }
}
