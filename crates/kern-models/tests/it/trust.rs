//! The everyday path refuses what it cannot answer honestly: non-finite prediction outputs are
//! errors naming the first bad row, every parameter (derived `C` included) is range-checked, kernel
//! PCA of points without variance reports zeros, and a LIBSVM header's counts reserve nothing.

use kern_core::learner::{Fit, Model};
use kern_core::{BinaryTargets, ClassTargets, RealTargets, Samples};
use kern_models::fvs::FvsParams;
use kern_models::kfa::KfaParams;
use kern_models::kpca::KernelPcaParams;
use kern_models::krr::KernelRidgeParams;
use kern_models::landmark::{Landmarks, NystromRidgeParams};
use kern_models::libsvm_model::LibsvmModel;
use kern_models::lssvm::LsSvmParams;
use kern_models::railway::{AreaParams, GammaChoice};
use kern_models::svm::{NuSvcParams, NuSvrParams, OneClassParams, SolverParams, SvcParams, SvrParams};
use kern_models::{AnyModel, ModelsError, Targets};
use proptest::prelude::*;

fn train() -> (Samples, BinaryTargets, RealTargets) {
    let x = Samples::from_rows(&[[0.0, 0.1], [0.2, 0.0], [0.1, 0.3], [1.0, 0.9], [0.9, 1.1], [1.2, 1.0]])
        .unwrap();
    let y = BinaryTargets::from_f64(&[-1.0, -1.0, -1.0, 1.0, 1.0, 1.0]).unwrap();
    let r = RealTargets::new(vec![0.0, 0.2, 0.3, 1.0, 1.1, 1.3]).unwrap();
    (x, y, r)
}

/// Row 0 is ordinary, row 1 overflows a degree-9 polynomial kernel.
fn hostile() -> Samples {
    Samples::from_rows(&[[0.5, 0.5], [1e200, 1e200]]).unwrap()
}

fn assert_row_2(e: ModelsError) {
    let m = e.to_string();
    assert!(matches!(e, ModelsError::NonFinite { row: 2, .. }), "{m}");
    assert!(m.contains("row 2 of the data (rows counted from 1)") && m.contains("scale the features"), "{m}");
}

#[test]
fn overflowing_kernel_values_are_an_error_on_every_prediction_path() {
    let (x, y, r) = train();
    let k: kern_core::KernelSpec = "polynomial:degree=9,coef0=1".parse().unwrap();
    let svc = SvcParams::new(k.clone()).probability(true, 0).fit(&x, &y).unwrap();
    assert_row_2(svc.decision_function(&hostile()).unwrap_err());
    assert_row_2(Model::predict(&svc, &hostile()).unwrap_err());
    let any = AnyModel::from(svc);
    assert_row_2(any.predict_all(&hostile(), true).unwrap_err());
    assert_row_2(any.decision_function(&hostile()).unwrap_err());
    assert_row_2(any.predict_proba(&hostile()).unwrap_err());
    assert!(any.predict_all(&x, true).is_ok());

    let svr = SvrParams::new(k.clone()).fit(&x, &r).unwrap();
    assert_row_2(Model::predict(&svr, &hostile()).unwrap_err());
    let krr = KernelRidgeParams::new(k.clone()).lambda(0.1).fit(&x, &r).unwrap();
    assert_row_2(krr.decision_function(&hostile()).unwrap_err());
    assert_row_2(AnyModel::from(krr).predict(&hostile()).unwrap_err());
    let lssvm = LsSvmParams::new(k.clone()).lambda(0.1).fit(&x, &y).unwrap();
    assert_row_2(lssvm.predict(&hostile()).unwrap_err());
    let kpca = KernelPcaParams::new(k.clone(), 2).fit(&x).unwrap();
    assert_row_2(kpca.transform(&hostile()).unwrap_err());
    assert_row_2(AnyModel::from(kpca).transform(&hostile()).unwrap_err());
    let one = OneClassParams::new(k).nu(0.5).fit(&x).unwrap();
    assert_row_2(one.decision_function(&hostile()).unwrap_err());
}

#[test]
fn libsvm_files_whose_values_overflow_are_an_error_not_nan() {
    // degree 1000: (x·sv + 1)^1000 overflows for the second row only.
    let poly = "svm_type c_svc\nkernel_type polynomial\ndegree 1000\ngamma 1\ncoef0 1\nnr_class 2\n\
                total_sv 2\nrho 0\nlabel 1 -1\nnr_sv 1 1\nSV\n1 1:1\n-1 1:2\n";
    // A coefficient of 1e308 times a kernel value of 10.
    let big = "svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1e308 1:1\n";
    let x = Samples::from_rows(&[[0.0], [3.0]]).unwrap();
    let y = Samples::from_rows(&[[0.5], [10.0]]).unwrap();
    for (text, x) in [(poly, &x), (big, &y)] {
        let m = LibsvmModel::parse(text, "m.model").unwrap();
        assert_row_2(m.decision_values(x).unwrap_err());
        assert_row_2(m.predict(x).unwrap_err());
        let any = AnyModel::from_bytes(text.as_bytes(), "m.model").unwrap();
        assert_row_2(any.predict_all(x, false).unwrap_err());
    }
}

#[test]
fn a_libsvm_header_announcing_two_billion_vectors_reserves_nothing() {
    let text =
        "svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 2000000000\nrho 0.5\nSV\n1 1:2\n";
    let start = std::time::Instant::now();
    let e = LibsvmModel::parse(text, "m.model").unwrap_err().to_string();
    assert!(e.contains("2000000000 support vectors announced, 1 found"), "{e}");
    assert!(start.elapsed().as_secs() < 2);
    // Under an address-space limit too (the reservation of 48 GB would abort the process).
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 2000000 && exec {} --exact trust::libsvm_header_child --include-ignored",
            exe.display()
        ))
        .env("KERN_TRUST_CHILD", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Run by the test above under `ulimit -v`.
#[test]
#[ignore = "run by a_libsvm_header_announcing_two_billion_vectors_reserves_nothing under ulimit -v"]
fn libsvm_header_child() {
    if std::env::var_os("KERN_TRUST_CHILD").is_none() {
        return;
    }
    let text = "svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 2000000000\nrho 0\nlabel 1 -1\n\
                nr_sv 1000000000 1000000000\nSV\n1 1:2\n";
    assert!(LibsvmModel::parse(text, "m.model").is_err());
}

#[test]
fn kernel_pca_of_identical_points_reports_zero_variance_not_nan() {
    let x = Samples::from_rows(&[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0]]).unwrap();
    for k in ["gaussian:sigma=1", "linear", "polynomial:degree=2,coef0=1"] {
        let m = KernelPcaParams::new(k.parse().unwrap(), 2).fit(&x).unwrap();
        assert_eq!(m.total_variance(), 0.0, "{k}");
        assert_eq!(m.explained_variance_ratio(), vec![0.0, 0.0], "{k}");
        assert_eq!(m.eigenvalues(), &[0.0, 0.0], "{k}");
        let z = m.transform(&x).unwrap();
        assert!((0..4).all(|i| z[(i, 0)] == 0.0 && z[(i, 1)] == 0.0), "{k}");
    }
    // Points with variance keep ratios that are fractions.
    let y = Samples::from_rows(&[[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [3.0, 1.0]]).unwrap();
    let m = KernelPcaParams::new("gaussian:sigma=1".parse().unwrap(), 2).fit(&y).unwrap();
    let r = m.explained_variance_ratio();
    assert!(r.iter().all(|v| *v > 0.0 && *v <= 1.0) && r.iter().sum::<f64>() <= 1.0 + 1e-12, "{r:?}");
}

#[test]
fn a_lambda_whose_derived_c_is_infinite_or_zero_is_refused() {
    let (x, y, r) = train();
    let k: kern_core::KernelSpec = "gaussian:sigma=1".parse().unwrap();
    for lambda in [1e-320, 1e308] {
        let e = SvcParams::new(k.clone()).lambda(lambda).fit(&x, &y).unwrap_err().to_string();
        assert!(e.contains("invalid parameter C") && e.contains("lambda"), "{e}");
        assert!(SvrParams::new(k.clone()).lambda(lambda).fit(&x, &r).is_err());
        assert!(NuSvrParams::new(k.clone()).lambda(lambda).fit(&x, &r).is_err());
    }
    // A finite C times a huge class weight overflows too.
    let e = SvcParams::new(k.clone()).c(1e300).class_weight("1", 1e300).fit(&x, &y).unwrap_err();
    assert!(e.to_string().contains("invalid parameter C"), "{e}");
    assert!(SvcParams::new(k).lambda(0.01).fit(&x, &y).is_ok());
}

fn bad_float() -> impl Strategy<Value = f64> {
    prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY)]
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(6))]
    /// Every float field of every model's parameters refuses a non-finite value (one case per model
    /// family per value drawn).
    #[test]
    fn non_finite_parameters_are_refused(v in bad_float()) {
        let (x, y, r) = train();
        let k: kern_core::KernelSpec = "gaussian:sigma=1".parse().unwrap();
        let classes = ClassTargets::from_labels(&["a", "a", "b", "b", "c", "c"]).unwrap();
        let solver = |tol: f64, cache_mb: f64| SolverParams { tol, cache_mb, ..SolverParams::default() };
        // SVMs: C, lambda, epsilon, nu, tol, cache, class weight.
        prop_assert!(SvcParams::new(k.clone()).c(v).fit(&x, &y).is_err());
        prop_assert!(SvcParams::new(k.clone()).lambda(v).fit(&x, &y).is_err());
        prop_assert!(SvcParams::new(k.clone()).class_weight("1", v).fit(&x, &y).is_err());
        prop_assert!(SvcParams::new(k.clone()).solver(solver(v, 100.0)).fit(&x, &y).is_err());
        prop_assert!(SvcParams::new(k.clone()).solver(solver(1e-3, v)).fit(&x, &y).is_err());
        prop_assert!(SvrParams::new(k.clone()).epsilon(v).fit(&x, &r).is_err());
        prop_assert!(SvrParams::new(k.clone()).c(v).fit(&x, &r).is_err());
        prop_assert!(NuSvcParams::new(k.clone()).nu(v).fit(&x, &y).is_err());
        prop_assert!(NuSvrParams::new(k.clone()).nu(v).fit(&x, &r).is_err());
        prop_assert!(OneClassParams::new(k.clone()).nu(v).fit(&x).is_err());
        // Ridge family: lambda.
        prop_assert!(KernelRidgeParams::new(k.clone()).lambda(v).fit(&x, &r).is_err());
        prop_assert!(LsSvmParams::new(k.clone()).lambda(v).fit(&x, &y).is_err());
        prop_assert!(LsSvmParams::new(k.clone()).gam(v).fit(&x, &y).is_err());
        let nys = NystromRidgeParams::krr(k.clone(), v, Landmarks::Random { m: 3 });
        prop_assert!(nys.fit_targets(&x, &Targets::Real(r.clone())).is_err());
        // Kernel PCA: tol.
        let mut kp = KernelPcaParams::new(k.clone(), 2);
        kp.tol = v;
        prop_assert!(kp.fit(&x).is_err());
        // FVS, KFA, railway areas: their float fields.
        let fvs = FvsParams { min_fitness: Some(v), ..FvsParams::default() };
        prop_assert!(fvs.check().is_err());
        let fvs = FvsParams { singular_tol: v, ..FvsParams::default() };
        prop_assert!(fvs.check().is_err());
        let mut kfa = KfaParams::new(k.clone());
        kfa.rank_tol = v;
        prop_assert!(kfa.fit(&x, &classes).is_err());
        let areas = AreaParams { significance: v, ..AreaParams::default() };
        prop_assert!(areas.check().is_err());
        let areas = AreaParams { gamma: GammaChoice::Fixed(v), ..AreaParams::default() };
        prop_assert!(areas.check().is_err());
        let mut lda = kern_models::fvs_subspace::FvsLdaParams::new(k.clone());
        lda.ridge = v;
        prop_assert!(lda.fit(&x, &classes).is_err());
    }
}
