//! Dense and sparse stores of the same data train the same models. When both stores take the same
//! Gram arithmetic (at most 3 of 13 coordinates nonzero per sample, so the dense store takes the
//! sparse-rows Gram too): the same SVM (objective to 1e-9 relative, same support vectors, same
//! decision values), the same kernel ridge and LS-SVM predictions and the same kernel PCA scores,
//! over random sparsity patterns that include an empty row, a row with one nonzero, a duplicate row
//! and an all-zero column. On denser data the dense store's Gram is a GEMM, whose sums run in another
//! order: the two SVM solves may then stop at different ε-optimal points, whose objectives agree to
//! the stopping rule's bound.

use kern_core::learner::Fit;
use kern_core::sparse_dots::{self, SparseDots};
use kern_core::{BinaryTargets, KernelSpec, RealTargets, Samples, Targets};
use kern_models::kpca::KernelPcaParams;
use kern_models::krr::KernelRidgeParams;
use kern_models::lssvm::LsSvmParams;
use kern_models::svm::{SolverParams, SvcParams};
use proptest::prelude::*;

/// `n × d` rows, each coordinate nonzero with probability `p`, keeping at most `cap` nonzeros per
/// row; row 1 is empty, row 2 has one nonzero, row 3 repeats row 0 and the last column is zero.
fn patterned(n: usize, d: usize, p: f64, cap: usize) -> impl Strategy<Value = Vec<Vec<f64>>> {
    proptest::collection::vec(proptest::collection::vec(proptest::option::weighted(p, -2.0f64..2.0), d), n)
        .prop_map(move |m| {
            let mut rows: Vec<Vec<f64>> = m
                .into_iter()
                .map(|r| {
                    let mut kept = 0;
                    r.into_iter()
                        .map(|v| match v {
                            Some(v) if kept < cap => {
                                kept += 1;
                                v
                            }
                            _ => 0.0,
                        })
                        .collect()
                })
                .collect();
            rows[1].iter_mut().for_each(|v| *v = 0.0);
            rows[2].iter_mut().enumerate().for_each(|(k, v)| *v = if k == 0 { 1.0 } else { 0.0 });
            rows[3] = rows[0].clone();
            for r in rows.iter_mut() {
                r[d - 1] = 0.0;
            }
            rows
        })
}

/// Binary labels from a fixed direction, so both classes usually occur.
fn labels_of(rows: &[Vec<f64>]) -> (Vec<f64>, Vec<&'static str>) {
    let y: Vec<f64> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| r[0] - r[1] + 0.3 * r[2] + if i % 5 == 0 { 1.0 } else { -0.2 })
        .collect();
    let labels = y.iter().map(|&v| if v > 0.0 { "a" } else { "b" }).collect();
    (y, labels)
}

fn close(a: &[f64], b: &[f64], tol: f64, what: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        prop_assert!((x - y).abs() <= tol * x.abs().max(y.abs()).max(1.0), "{}: {} vs {}", what, x, y);
    }
    Ok(())
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(12))]

    #[test]
    fn dense_and_sparse_stores_train_the_same_models(rows in patterned(24, 13, 0.3, 3), test in patterned(6, 13, 0.3, 13)) {
        let dense = Samples::from_rows(&rows).unwrap();
        let sparse = dense.to_sparse();
        let td = Samples::from_rows(&test).unwrap();
        let ts = td.to_sparse();
        let (y, labels) = labels_of(&rows);
        prop_assume!(labels.contains(&"a") && labels.contains(&"b"));
        let bt = BinaryTargets::from_labels(&labels).unwrap();
        // At most 3 of 13 coordinates per row: the dense store is sparse enough for the sparse-rows
        // Gram, the sums the sparse store takes.
        prop_assert!(sparse_dots::density(&dense) <= SparseDots::MAX_DENSITY);
        for spec in ["gaussian:sigma=1.5", "linear"] {
            let k: KernelSpec = spec.parse().unwrap();
            // The Gram matrix precomputed on both stores (pinned: in d = 13 the dense store's rule would
            // compute its columns on demand; columns are gathers of the same kern-core Gram on both). Columns evaluated on demand are covered by
            // `models_train_on_a_sparse_store_too_large_to_densify`; Grams whose sums run in different
            // orders, by `dense_data_and_its_sparse_copy_reach_the_same_objective`.
            {
                let tuning = kern_models::svm::plan::Tuning { force_precompute: Some(true), ..Default::default() };
                let solver = SolverParams { cache_mb: 100.0, tuning, ..SolverParams::default() };
                let p = SvcParams::new(k.clone()).c(2.0).solver(solver);
                let (a, b) = (p.fit(&dense, &bt).unwrap(), p.fit(&sparse, &bt).unwrap());
                let precomputed = kern_models::svm::plan::Columns::Precomputed;
                prop_assert_eq!((a.stats()[0].plan.columns, b.stats()[0].plan.columns), (precomputed, precomputed));
                let (oa, ob) = (a.stats()[0].objective, b.stats()[0].objective);
                prop_assert!((oa - ob).abs() <= 1e-9 * oa.abs().max(1e-300), "{}: objective {} vs {}", spec, oa, ob);
                prop_assert_eq!(a.machine_coefficients(0).0, b.machine_coefficients(0).0);
                prop_assert!(b.support_vectors().is_sparse());
                let (da, db) = (a.decision_function(&td).unwrap(), b.decision_function(&ts).unwrap());
                close(&[da[(0, 0)]], &[db[(0, 0)]], 1e-9, spec)?;
            }

            let rt = Targets::Real(RealTargets::new(y.clone()).unwrap());
            let ka = KernelRidgeParams::new(k.clone()).lambda(0.1).fit_targets(&dense, &rt).unwrap();
            let kb = KernelRidgeParams::new(k.clone()).lambda(0.1).fit_targets(&sparse, &rt).unwrap();
            close(&ka.predict(&td).unwrap(), &kb.predict(&ts).unwrap(), 1e-9, "krr")?;
            let la = LsSvmParams::new(k.clone()).gam(0.5).fit_targets(&dense, &rt).unwrap();
            let lb = LsSvmParams::new(k.clone()).gam(0.5).fit_targets(&sparse, &rt).unwrap();
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

    /// Data too dense for the sparse-rows Gram (about 60 % nonzero): the dense store's Gram is a GEMM,
    /// its sparse copy's the sparse-rows sums, equal up to rounding. SMO may then take another path on
    /// each; both stop at violation `ε`, so their objectives are within `ε/2 · Σ C_t` of the optimum's
    /// (+1e-9 relative rounding).
    #[test]
    fn dense_data_and_its_sparse_copy_reach_the_same_objective(rows in patterned(24, 13, 0.65, 13)) {
        let dense = Samples::from_rows(&rows).unwrap();
        let sparse = dense.to_sparse();
        let (_, labels) = labels_of(&rows);
        prop_assume!(labels.contains(&"a") && labels.contains(&"b"));
        let bt = BinaryTargets::from_labels(&labels).unwrap();
        let (c, solver) = (2.0, SolverParams { cache_mb: 100.0, ..SolverParams::default() });
        for spec in ["gaussian:sigma=1.5", "linear"] {
            let p = SvcParams::new(spec.parse().unwrap()).c(c).solver(solver);
            let (a, b) = (p.fit(&dense, &bt).unwrap(), p.fit(&sparse, &bt).unwrap());
            let (sa, sb) = (&a.stats()[0], &b.stats()[0]);
            prop_assert!(!sa.hit_cap && !sb.hit_cap);
            let bound = solver.tol / 2.0 * c * rows.len() as f64 + 1e-9 * sa.objective.abs().max(1.0);
            prop_assert!((sa.objective - sb.objective).abs() <= bound, "{}: objective {} vs {}", spec, sa.objective, sb.objective);
        }
    }
}

/// Two classes on disjoint word sets, one shared noise word, with the feature ids spread up to
/// `top`: sample `i` has words `(class, i mod 7)` and the shared one.
fn words(n: usize, top: usize) -> (Vec<(usize, usize, f64)>, Vec<&'static str>) {
    let (mut t, mut labels) = (Vec::new(), Vec::new());
    for i in 0..n {
        let class = i % 2;
        let w = |k: usize| (class * 7 + k) * (top / 16) + 3;
        t.push((i, w(i % 7), 1.0 + (i % 3) as f64 * 0.25));
        t.push((i, w((i + 3) % 7), 0.5));
        t.push((i, top - 1, 0.1 * (i % 5) as f64 + 0.1));
        labels.push(if class == 0 { "neg" } else { "pos" });
    }
    t.sort_by_key(|&(i, j, _)| (i, j));
    (t, labels)
}

/// A sparse store whose dense copy could not exist (d = 2⁴⁰: 2⁴⁰ · 60 values) trains and predicts
/// C-SVC, LS-SVM and kernel ridge through the kernel-matrix layer, with the same results as the
/// same data on 16 dense features (the ids compacted): nothing on the way densifies it (a dense view
/// would fail with `DenseTooLarge`).
#[test]
fn models_train_on_a_sparse_store_too_large_to_densify() {
    let (n, top) = (60, 1usize << 40);
    let (t, labels) = words(n, top);
    let sparse = Samples::from_triplets(n, top, &t).unwrap();
    let compact: Vec<(usize, usize, f64)> =
        t.iter().map(|&(i, j, v)| (i, if j == top - 1 { 15 } else { (j - 3) / (top / 16) }, v)).collect();
    let dense = Samples::from_triplets(n, 16, &compact).unwrap().to_dense().unwrap();
    let bt = BinaryTargets::from_labels(&labels).unwrap();
    for spec in ["linear", "gaussian:gamma=0.7"] {
        let k: KernelSpec = spec.parse().unwrap();
        for cache_mb in [100.0, 0.001] {
            // Both stores take the same column source: the Gram where it fits (pinned: the dense
            // store's rule would compute its columns on demand in d = 16), else columns on demand.
            let tuning =
                kern_models::svm::plan::Tuning { force_precompute: Some(true), ..Default::default() };
            let p = SvcParams::new(k.clone()).c(1.0).solver(SolverParams {
                cache_mb,
                tuning,
                ..SolverParams::default()
            });
            let (a, b) = (p.fit(&dense, &bt).unwrap(), p.fit(&sparse, &bt).unwrap());
            let (oa, ob) = (a.stats()[0].objective, b.stats()[0].objective);
            assert!((oa - ob).abs() <= 1e-9 * oa.abs(), "{spec} {cache_mb}: {oa} vs {ob}");
            assert_eq!(a.machine_coefficients(0).0, b.machine_coefficients(0).0);
            assert_eq!(a.predict_names(&dense).unwrap(), labels);
            assert_eq!(b.predict_names(&sparse).unwrap(), labels);
            let (da, db) = (a.decision_function(&dense).unwrap(), b.decision_function(&sparse).unwrap());
            for (x, y) in da.col(0).iter().zip(db.col(0).iter()) {
                assert!((x - y).abs() <= 1e-9 * x.abs().max(1.0), "{spec}: {x} vs {y}");
            }
        }
        let y: Vec<f64> = labels.iter().map(|&l| if l == "pos" { 1.0 } else { -1.0 }).collect();
        let rt = Targets::Real(RealTargets::new(y).unwrap());
        let ka = KernelRidgeParams::new(k.clone()).lambda(0.1).fit_targets(&dense, &rt).unwrap();
        let kb = KernelRidgeParams::new(k.clone()).lambda(0.1).fit_targets(&sparse, &rt).unwrap();
        let (pa, pb) = (ka.predict(&dense).unwrap(), kb.predict(&sparse).unwrap());
        for (x, y) in pa.iter().zip(&pb) {
            assert!((x - y).abs() <= 1e-9 * x.abs().max(1.0), "krr {spec}: {x} vs {y}");
        }
        let la = LsSvmParams::new(k.clone()).gam(0.5).fit_targets(&dense, &rt).unwrap();
        let lb = LsSvmParams::new(k).gam(0.5).fit_targets(&sparse, &rt).unwrap();
        let (pa, pb) = (la.predict(&dense).unwrap(), lb.predict(&sparse).unwrap());
        for (x, y) in pa.iter().zip(&pb) {
            assert!((x - y).abs() <= 1e-9 * x.abs().max(1.0), "lssvm {spec}: {x} vs {y}");
        }
    }
}
