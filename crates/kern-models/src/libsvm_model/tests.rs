use super::*;
use proptest::prelude::*;

const BINARY: &str = "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 3\nrho 0.25\nlabel 1 -1\n\
probA -2\nprobB 0.125\nnr_sv 2 1\nSV\n1 1:0.5 3:1 \n0.5 2:1 \n-1.5 1:-1 \n";

fn parse(t: &str) -> Result<LibsvmModel> {
    LibsvmModel::parse(t, "m.txt")
}

#[test]
fn reads_and_rewrites_a_binary_model_byte_for_byte() {
    let m = parse(BINARY).unwrap();
    assert_eq!(m.labels(), Some(&[1, -1][..]));
    assert_eq!(m.n_features(), 3);
    assert!(m.has_probability());
    assert_eq!(m.to_text(), BINARY);
}

#[test]
fn decision_value_is_the_kernel_expansion_minus_rho() {
    let m = parse(BINARY).unwrap();
    let x = Samples::from_rows(&[[0.3, -0.2, 0.7]]).unwrap();
    let k = |a: [f64; 3], b: [f64; 3]| {
        (-0.5 * a.iter().zip(&b).map(|(u, v)| (u - v) * (u - v)).sum::<f64>()).exp()
    };
    let xr = [0.3, -0.2, 0.7];
    let want =
        1.0 * k(xr, [0.5, 0.0, 1.0]) + 0.5 * k(xr, [0.0, 1.0, 0.0]) - 1.5 * k(xr, [-1.0, 0.0, 0.0]) - 0.25;
    let d = m.decision_values(&x).unwrap();
    assert!((d[0][0] - want).abs() < 1e-15);
    assert_eq!(m.predict(&x).unwrap(), vec![if want > 0.0 { 1.0 } else { -1.0 }]);
    let (_, p) = m.predict_probability(&x).unwrap();
    let p1 = 1.0 / (1.0 + (-2.0 * want + 0.125).exp());
    assert!((p[0][0] - p1).abs() < 1e-15 && (p[0][0] + p[0][1] - 1.0).abs() < 1e-15);
}

#[test]
fn header_errors_are_reported_not_panics() {
    let cases = [
        ("", "ends before"),
        ("svm_type c_svc\nkernel_type rbf\n", "ends before"),
        ("svm_type c_svcx\n", "unknown svm type"),
        ("svm_type c_svc\nkernel_type gauss\n", "unknown kernel"),
        ("svm_type c_svc\nbias 1\nSV\n", "unknown text"),
        ("svm_type c_svc\nkernel_type linear\nrho 1\nSV\n", "before nr_class"),
        (
            "svm_type c_svc\nkernel_type rbf\nnr_class 2\ntotal_sv 0\nrho 0\nlabel 1 2\nnr_sv 0 0\nSV\n",
            "gamma",
        ),
        ("svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 0\nrho 0\nSV\n", "label or nr_sv"),
        (
            "svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 1 2\nnr_sv 1 0\nSV\n",
            "adds up",
        ),
        ("svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho x\n", "not a finite number"),
        (
            "svm_type nu_svr\nkernel_type precomputed\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 1:0.5\n",
            "0:SERIAL",
        ),
        (
            "svm_type nu_svr\nkernel_type precomputed\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 0:1.5\n",
            "0:SERIAL",
        ),
        (
            "svm_type nu_svr\nkernel_type precomputed\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 0:1 2:3\n",
            "0:SERIAL",
        ),
        ("svm_type nu_svr\nkernel_type precomputed\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1\n", "no 0:SERIAL"),
        ("svm_type nu_svr\nkernel_type rbf\ngamma -1\nnr_class 2\ntotal_sv 0\nrho 0\nSV\n", "beta"),
        ("svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0\nSV\n1 1:1\n", "announced"),
        (
            "svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 1:1\n2 1:1\n",
            "more support",
        ),
        ("svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 2:1 1:1\n", "ascending"),
        ("svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 0:1\n", "ascending"),
        ("svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 1=1\n", "INDEX:VALUE"),
        ("svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nSV\nnan 1:1\n", "coefficient"),
        ("svm_type c_svc\nkernel_type poly\n", "unknown kernel"),
        (
            "svm_type c_svc\nkernel_type polynomial\ndegree 0\ngamma 1\ncoef0 0\nnr_class 2\ntotal_sv 0\nrho 0\nlabel 1 2\nnr_sv 0 0\nSV\n",
            "degree",
        ),
    ];
    for (text, want) in cases {
        let e = parse(text).expect_err(text).to_string();
        assert!(e.contains(want), "{text:?}: {e}");
    }
}

#[test]
fn one_class_probability_follows_the_density_marks() {
    let marks: Vec<f64> = (0..10).map(|i| i as f64).collect();
    assert_eq!(one_class_probability(&marks, -1.0), 0.001);
    assert_eq!(one_class_probability(&marks, 9.5), 0.999);
    assert_eq!(one_class_probability(&marks, 0.5), 0.1);
    assert_eq!(one_class_probability(&marks, 8.5), 0.9);
}

#[test]
fn detects_libsvm_text() {
    assert!(looks_like_libsvm_model(b"  svm_type one_class\n"));
    assert!(!looks_like_libsvm_model(b"svm_types"));
    assert!(!looks_like_libsvm_model(b""));
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(48))]
    /// The sparse merges equal the dense formulas.
    #[test]
    fn sparse_dot_and_distance_match_dense(
        a in proptest::collection::vec(prop_oneof![Just(0.0), -3.0..3.0f64], 1..12),
        b in proptest::collection::vec(prop_oneof![Just(0.0), -3.0..3.0f64], 1..12),
    ) {
        let n = a.len().max(b.len());
        let pad = |v: &[f64]| { let mut w = v.to_vec(); w.resize(n, 0.0); w };
        let (da, db) = (pad(&a), pad(&b));
        let sp = |v: &[f64]| v.iter().enumerate().filter(|p| *p.1 != 0.0).map(|(j, &x)| (j as u32 + 1, x)).collect::<Vec<_>>();
        let (sa, sb) = (sp(&a), sp(&b));
        let dot: f64 = da.iter().zip(&db).map(|(x, y)| x * y).sum();
        let d2: f64 = da.iter().zip(&db).map(|(x, y)| (x - y) * (x - y)).sum();
        prop_assert!((sparse_dot(&sa, &sb) - dot).abs() <= 1e-12 * (1.0 + dot.abs()));
        prop_assert!((sparse_sq_dist(&sa, &sb) - d2).abs() <= 1e-12 * (1.0 + d2));
    }

    /// Parsing what was written gives the same model back.
    #[test]
    fn text_round_trips(coefs in proptest::collection::vec(-1e3..1e3f64, 3), rho in -10.0..10.0f64, g in 1e-4..1e2f64) {
        let t = format!(
            "svm_type c_svc\nkernel_type sigmoid\ngamma {}\ncoef0 -0.5\nnr_class 2\ntotal_sv 3\nrho {}\nlabel 4 9\nnr_sv 2 1\nSV\n{} 1:1 \n{} 2:0.5 \n{} 1:3 2:1e-7 \n",
            fmt_g17(g), fmt_g17(rho), fmt_g17(coefs[0]), fmt_g17(coefs[1]), fmt_g17(-coefs[2])
        );
        let m = LibsvmModel::parse(&t, "m").unwrap();
        prop_assert_eq!(LibsvmModel::parse(&m.to_text(), "m").unwrap(), m.clone());
        prop_assert_eq!(m.to_text(), t.replace("2:1e-7", "2:9.9999999999999995e-08"));
    }
}
