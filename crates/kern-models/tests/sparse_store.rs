//! Dense and sparse stores of the same data train the same models: the same SVM (objective to 1e-9
//! relative, same support vectors, same decision values), the same kernel ridge and LS-SVM
//! predictions and the same kernel PCA scores, over random sparsity patterns that include an empty
//! row, a row with one nonzero, a duplicate row and an all-zero column.

use kern_core::learner::Fit;
use kern_core::{BinaryTargets, KernelSpec, RealTargets, Samples, Targets};
use kern_models::kpca::KernelPcaParams;
use kern_models::krr::KernelRidgeParams;
use kern_models::lssvm::LsSvmParams;
use kern_models::svm::SvcParams;
use proptest::prelude::*;

fn patterned(n: usize, d: usize) -> impl Strategy<Value = Vec<Vec<f64>>> {
    proptest::collection::vec(proptest::collection::vec(proptest::option::weighted(0.3, -2.0f64..2.0), d), n)
        .prop_map(move |m| {
            let mut rows: Vec<Vec<f64>> =
                m.into_iter().map(|r| r.into_iter().map(|v| v.unwrap_or(0.0)).collect()).collect();
            rows[1].iter_mut().for_each(|v| *v = 0.0);
            rows[2].iter_mut().enumerate().for_each(|(k, v)| *v = if k == 0 { 1.0 } else { 0.0 });
            rows[3] = rows[0].clone();
            for r in rows.iter_mut() {
                r[d - 1] = 0.0;
            }
            rows
        })
}

fn close(a: &[f64], b: &[f64], tol: f64, what: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        prop_assert!((x - y).abs() <= tol * x.abs().max(y.abs()).max(1.0), "{}: {} vs {}", what, x, y);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn dense_and_sparse_stores_train_the_same_models(rows in patterned(24, 10), test in patterned(6, 10)) {
        let dense = Samples::from_rows(&rows).unwrap();
        let sparse = dense.to_sparse();
        let td = Samples::from_rows(&test).unwrap();
        let ts = td.to_sparse();
        // Labels from a fixed direction, so both classes occur.
        let y: Vec<f64> = rows.iter().enumerate().map(|(i, r)| r[0] - r[1] + 0.3 * r[2] + if i % 5 == 0 { 1.0 } else { -0.2 }).collect();
        let labels: Vec<&str> = y.iter().map(|&v| if v > 0.0 { "a" } else { "b" }).collect();
        prop_assume!(labels.contains(&"a") && labels.contains(&"b"));
        let bt = BinaryTargets::from_labels(&labels).unwrap();
        for spec in ["gaussian:sigma=1.5", "linear"] {
            let k: KernelSpec = spec.parse().unwrap();
            let p = SvcParams::new(k.clone()).c(2.0);
            let (a, b) = (p.fit(&dense, &bt).unwrap(), p.fit(&sparse, &bt).unwrap());
            let (oa, ob) = (a.stats()[0].objective, b.stats()[0].objective);
            prop_assert!((oa - ob).abs() <= 1e-9 * oa.abs().max(1e-300), "{}: objective {} vs {}", spec, oa, ob);
            prop_assert_eq!(a.machine_coefficients(0).0, b.machine_coefficients(0).0);
            prop_assert!(b.support_vectors().is_sparse());
            let (da, db) = (a.decision_function(&td).unwrap(), b.decision_function(&ts).unwrap());
            close(&da[0], &db[0], 1e-9, spec)?;

            let rt = Targets::Real(RealTargets::new(y.clone()).unwrap());
            let ka = KernelRidgeParams::new(k.clone()).lambda(0.1).fit_targets(&dense, &rt).unwrap();
            let kb = KernelRidgeParams::new(k.clone()).lambda(0.1).fit_targets(&sparse, &rt).unwrap();
            close(&ka.predict(&td).unwrap(), &kb.predict(&ts).unwrap(), 1e-9, "krr")?;
            let la = LsSvmParams::new(k.clone()).lambda(0.5).fit_targets(&dense, &rt).unwrap();
            let lb = LsSvmParams::new(k.clone()).lambda(0.5).fit_targets(&sparse, &rt).unwrap();
            close(&la.predict(&td).unwrap(), &lb.predict(&ts).unwrap(), 1e-9, "lssvm")?;
            // One model, test samples in either store (per-pair products against the GEMM).
            close(&la.predict(&ts).unwrap(), &la.predict(&td).unwrap(), 1e-12, "lssvm test store")?;
        }
        let k: KernelSpec = "gaussian:sigma=2".parse().unwrap();
        let pa = KernelPcaParams::new(k.clone(), 2).fit(&dense).unwrap();
        let pb = KernelPcaParams::new(k, 2).fit(&sparse).unwrap();
        let (sa, sb) = (pa.transform(&td).unwrap(), pb.transform(&ts).unwrap());
        for c in 0..2 {
            // Eigenvectors are defined up to sign: align on the larger entry.
            let col_a: Vec<f64> = (0..sa.nrows()).map(|i| sa[(i, c)]).collect();
            let mut col_b: Vec<f64> = (0..sb.nrows()).map(|i| sb[(i, c)]).collect();
            let dot: f64 = col_a.iter().zip(&col_b).map(|(x, y)| x * y).sum();
            if dot < 0.0 {
                col_b.iter_mut().for_each(|v| *v = -*v);
            }
            close(&col_a, &col_b, 1e-8, "kpca")?;
        }
    }
}
