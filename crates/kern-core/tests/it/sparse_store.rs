//! Dense and sparse stores of the same data agree: the same Gram and cross Gram matrices (1e-12
//! relative) for every kind of kernel, over random sparsity patterns that include empty rows, rows
//! with one nonzero, duplicate rows and all-zero columns; and LIBSVM files keep their sparsity in
//! `O(nnz)` memory, even with a feature index of 2⁴⁰.

use kern_core::io::{LibsvmOptions, read_libsvm, read_libsvm_with, write_libsvm};
use kern_core::{
    CoreError, GramPath, Kernel, KernelSpec, Samples, Storage, StoragePolicy, cross_gram, cross_gram_with,
    gram, gram_with,
};
use proptest::prelude::*;

/// A dense `n × d` matrix with random sparsity, forced to contain an empty row, a row with one
/// nonzero, a duplicate of row 0 and an all-zero last column.
fn patterned(n: usize, d: usize) -> impl Strategy<Value = Vec<Vec<f64>>> {
    proptest::collection::vec(proptest::collection::vec(proptest::option::weighted(0.25, -2.0f64..2.0), d), n)
        .prop_map(move |m| {
            let mut rows: Vec<Vec<f64>> =
                m.into_iter().map(|r| r.into_iter().map(|v| v.unwrap_or(0.0)).collect()).collect();
            rows[1].iter_mut().for_each(|v| *v = 0.0); // empty row
            rows[2].iter_mut().enumerate().for_each(|(k, v)| *v = if k == d / 2 { 1.5 } else { 0.0 });
            rows[3] = rows[0].clone(); // duplicate row
            for r in rows.iter_mut() {
                r[d - 1] = 0.0; // all-zero column
            }
            rows
        })
}

const KERNELS: &[&str] = &[
    "gaussian:sigma=1.3",
    "laplacian:sigma=0.7",
    "linear",
    "poly:degree=3,scale=0.5,coef0=1",
    "sigmoid:a=0.1,b=0",
    "cs-gaussian:sigma=1,c=3,nu=8",
    "spline",
];

fn assert_close(a: faer::MatRef<'_, f64>, b: faer::MatRef<'_, f64>, what: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!((a.nrows(), a.ncols()), (b.nrows(), b.ncols()));
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            let (x, y) = (a[(i, j)], b[(i, j)]);
            prop_assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0),
                "{what}: entry ({i}, {j}): dense {x} vs sparse {y}"
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(24))]

    #[test]
    fn dense_and_sparse_stores_give_the_same_gram(
        rows in (1usize..4, 6usize..14).prop_flat_map(|(extra, d)| patterned(4 + extra, d)),
        y_rows in patterned(5, 5),
    ) {
        let dense = Samples::from_rows(&rows).unwrap();
        let sparse = dense.to_sparse();
        prop_assert_eq!(sparse.storage(), Storage::Sparse);
        prop_assert_eq!(sparse.to_dense().unwrap(), dense.clone());
        for spec in KERNELS {
            let k: KernelSpec = spec.parse().unwrap();
            if k.check_dim(dense.d()).is_err() {
                continue;
            }
            let gd = gram(&k, &dense).unwrap();
            for path in [GramPath::Auto, GramPath::Pairwise, GramPath::Sparse, GramPath::Gemm] {
                let gs = gram_with(&k, &sparse, path).unwrap();
                assert_close(gd.as_ref(), gs.as_ref(), spec)?;
                for i in 0..gs.nrows() {
                    for j in 0..i {
                        prop_assert_eq!(gs[(i, j)], gs[(j, i)]);
                    }
                }
            }
            // Cross Gram over every pairing of stores; y keeps its own dimension when it matches.
            let yd = dense.select(&[3, 0, 2]).unwrap();
            let ys = yd.to_sparse();
            let want = cross_gram(&k, &dense, &yd).unwrap();
            for (a, b) in [(&sparse, &ys), (&dense, &ys), (&sparse, &yd)] {
                assert_close(want.as_ref(), cross_gram(&k, a, b).unwrap().as_ref(), spec)?;
                let pw = cross_gram_with(&k, a, b, GramPath::Pairwise).unwrap();
                assert_close(want.as_ref(), pw.as_ref(), spec)?;
            }
        }
        // A second, low-dimensional set (d ≤ 8: the direct path).
        let low = Samples::from_rows(&y_rows).unwrap();
        let k: KernelSpec = "laplacian:sigma=1".parse().unwrap();
        assert_close(gram(&k, &low).unwrap().as_ref(), gram(&k, &low.to_sparse()).unwrap().as_ref(), "low d")?;
    }

    #[test]
    fn select_and_norms_agree(rows in patterned(6, 7), pick in proptest::collection::vec(0usize..6, 1..9)) {
        let dense = Samples::from_rows(&rows).unwrap();
        let sparse = dense.to_sparse();
        prop_assert_eq!(sparse.select(&pick).unwrap().to_dense().unwrap(), dense.select(&pick).unwrap());
        prop_assert_eq!(sparse.sq_norms(), dense.sq_norms());
        prop_assert_eq!(sparse.feature_ranges(), dense.feature_ranges());
        prop_assert_eq!(sparse.nnz(), dense.nnz());
    }
}

fn temp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kern-sparse-store-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn libsvm_index_two_to_the_forty_is_read_sparse() {
    let p = temp("huge.svm", "+1 1:0.5 1099511627776:2\n-1 17:-1\n");
    let ds = read_libsvm(&p, None).unwrap();
    let x = &ds.samples;
    assert_eq!((x.n(), x.d(), x.nnz(), x.storage()), (2, 1 << 40, 3, Storage::Sparse));
    assert!(ds.feature_names.is_empty());
    assert_eq!(x.sq_norms(), [4.25, 1.0]);
    // A Gram matrix on it: per-pair sparse products, no dense allocation.
    let g = gram(&"linear".parse::<KernelSpec>().unwrap(), x).unwrap();
    assert_eq!((g[(0, 0)], g[(0, 1)], g[(1, 1)]), (4.25, 0.0, 1.0));
    // Asking for a dense store is refused with a named error instead of an allocation failure.
    let dense = LibsvmOptions { storage: StoragePolicy::Dense, ..Default::default() };
    assert!(matches!(read_libsvm_with(&p, &dense), Err(CoreError::DenseTooLarge { .. })));
    assert!(matches!(x.densify("test"), Err(CoreError::DenseTooLarge { .. })));
    // Beyond the documented dimension limit: a parse error naming the limit.
    let q = temp("beyond.svm", &format!("1 {}:1\n", Samples::MAX_DIM + 1));
    let err = read_libsvm(&q, None).unwrap_err().to_string();
    assert!(err.contains("largest supported dimension"), "{err}");
}

#[test]
fn libsvm_storage_follows_density_and_policy() {
    // 2 nonzeros in 2 × 30: sparse by default; forced dense on request; round trip either way.
    let p = temp("thin.svm", "1 3:1.5\n-1 30:-2\n");
    let ds = read_libsvm(&p, None).unwrap();
    assert_eq!(ds.samples.storage(), Storage::Sparse);
    let dense = read_libsvm_with(&p, &LibsvmOptions { storage: StoragePolicy::Dense, dim: None }).unwrap();
    assert_eq!(dense.samples.storage(), Storage::Dense);
    assert_eq!(dense.samples, ds.samples.to_dense().unwrap());
    assert_eq!(dense.feature_names.len(), 30);
    let out = p.with_extension("out");
    write_libsvm(&out, &ds.samples, &ds.labels).unwrap();
    assert_eq!(read_libsvm(&out, Some(30)).unwrap().samples, ds.samples);
    // Dense enough: dense by default, sparse on request.
    let q = temp("full.svm", "1 1:1 2:2\n-1 1:3\n");
    assert_eq!(read_libsvm(&q, None).unwrap().samples.storage(), Storage::Dense);
    let s = read_libsvm_with(&q, &LibsvmOptions { storage: StoragePolicy::Sparse, dim: None }).unwrap();
    assert_eq!(s.samples.storage(), Storage::Sparse);
}
