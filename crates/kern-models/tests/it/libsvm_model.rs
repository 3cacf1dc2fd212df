//! LIBSVM model files: models written by LIBSVM 3.37 itself (fixtures made by
//! `bench/libsvm_fixtures.py` with `libsvm-official`) predict in kern exactly as in LIBSVM, kern writes
//! them back as LIBSVM does, and kern's own SVMs written as LIBSVM models predict as the kern models.

use kern_core::io::{CsvOptions, read_data};
use kern_core::learner::{Fit, Model};
use kern_core::{Samples, Targets};
use kern_models::libsvm_model::{LibsvmModel, SvmType, fmt_g17};
use kern_models::svm::{Multiclass, SvcParams, SvrParams};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/libsvm").join(name)
}

fn data(name: &str) -> kern_core::io::Dataset {
    read_data(&fixture(name), &CsvOptions::default()).unwrap()
}

/// (label, decision values, probabilities) per line of a `.expected` file.
fn expected(name: &str) -> Vec<(f64, Vec<f64>, Option<Vec<f64>>)> {
    std::fs::read_to_string(fixture(&format!("{name}.expected")))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (a, b) = match l.split_once('|') {
                Some((a, b)) => (a, Some(b)),
                None => (l, None),
            };
            let nums = |s: &str| s.split_whitespace().map(|t| t.parse::<f64>().unwrap()).collect::<Vec<_>>();
            let v = nums(a);
            (v[0], v[1..].to_vec(), b.map(nums))
        })
        .collect()
}

const MODELS: [(&str, &str); 8] = [
    ("csvc_rbf_3class_prob", "test.txt"),
    ("csvc_linear_binary", "bin_test.txt"),
    ("csvc_poly_binary_prob", "bin25_test.txt"),
    ("csvc_sigmoid_3class", "test.txt"),
    ("nusvc_rbf_3class", "test.txt"),
    ("oneclass_rbf", "test.txt"),
    ("epsvr_rbf", "reg_test.txt"),
    ("nusvr_poly", "reg_test.txt"),
];

#[test]
fn libsvm_written_models_predict_as_libsvm() {
    for (name, test) in MODELS {
        let m = LibsvmModel::load(&fixture(&format!("{name}.model"))).unwrap();
        let x = data(test).samples;
        let want = expected(name);
        let dec = m.decision_values(&x).unwrap();
        let pred = m.predict(&x).unwrap();
        assert_eq!(dec.len(), want.len(), "{name}");
        for (i, (label, d, p)) in want.iter().enumerate() {
            if m.svm_type().is_classifier() || m.svm_type() == SvmType::OneClass {
                assert_eq!(pred[i], *label, "{name}: sample {i} label");
            } else {
                assert!((pred[i] - label).abs() <= 1e-12, "{name}: sample {i}: value {} vs {label}", pred[i]);
            }
            assert_eq!(dec[i].len(), d.len(), "{name}");
            for (a, b) in dec[i].iter().zip(d) {
                assert!((a - b).abs() <= 1e-12, "{name}: sample {i}: decision {a} vs LIBSVM {b}");
            }
            if let Some(p) = p {
                let (plabel, probs) = m.predict_probability(&x.select(&[i]).unwrap()).unwrap();
                for (a, b) in probs[0].iter().zip(p) {
                    assert!((a - b).abs() <= 1e-12, "{name}: sample {i}: probability {a} vs LIBSVM {b}");
                }
                let best = p.iter().enumerate().fold(0, |b, (j, &v)| if v > p[b] { j } else { b });
                assert_eq!(plabel[0], f64::from(m.labels().unwrap()[best]), "{name}: probability label");
            }
        }
    }
}

/// kern writes the header and the coefficients exactly as LIBSVM's `svm_save_model` did (the support
/// vectors' coordinates are the one deliberate difference: `%.17g` instead of `%.8g`, equal as numbers).
#[test]
fn rewritten_libsvm_models_match_libsvm_output() {
    for (name, _) in MODELS {
        let original = std::fs::read_to_string(fixture(&format!("{name}.model"))).unwrap();
        let m = LibsvmModel::parse(&original, name).unwrap();
        let ours = m.to_text();
        let (h0, b0) = original.split_once("SV\n").unwrap();
        let (h1, b1) = ours.split_once("SV\n").unwrap();
        assert_eq!(h1, h0, "{name}: header");
        let ncoef = m.nr_class() - 1;
        for (l0, l1) in b0.lines().zip(b1.lines()) {
            let (t0, t1): (Vec<&str>, Vec<&str>) = (l0.split(' ').collect(), l1.split(' ').collect());
            assert_eq!(t1[..ncoef], t0[..ncoef], "{name}: coefficients");
            assert_eq!(t0.len(), t1.len(), "{name}: {l0:?} vs {l1:?}");
            for (a, b) in t0[ncoef..].iter().zip(&t1[ncoef..]).filter(|(a, _)| !a.is_empty()) {
                let (ia, va) = a.split_once(':').unwrap();
                let (ib, vb) = b.split_once(':').unwrap();
                assert_eq!(ia, ib);
                assert_eq!(va.parse::<f64>().unwrap(), vb.parse::<f64>().unwrap());
            }
        }
        assert_eq!(b0.lines().count(), b1.lines().count());
        assert_eq!(LibsvmModel::parse(&ours, name).unwrap(), m, "{name}: re-read");
    }
}

fn assert_same_decisions(m: &LibsvmModel, kern: &faer::Mat<f64>, x: &Samples, what: &str) {
    let ours = m.decision_values(x).unwrap();
    assert_eq!(ours.len(), kern.nrows(), "{what}");
    for (i, a) in ours.iter().enumerate() {
        assert_eq!(a.len(), kern.ncols(), "{what}");
        for (u, v) in a.iter().zip(kern.row(i).iter()) {
            assert!((u - v).abs() <= 1e-12, "{what}: sample {i}: LIBSVM-file decision {u} vs kern {v}");
        }
    }
}

#[test]
fn kern_svc_written_as_libsvm_predicts_the_same() {
    let kernels =
        ["gaussian:beta=0.7", "linear", "poly:degree=3,scale=0.4,coef0=1.5", "sigmoid:a=0.05,b=-0.2"];
    for (train, test) in
        [("train.txt", "test.txt"), ("bin_train.txt", "bin_test.txt"), ("bin25_train.txt", "bin25_test.txt")]
    {
        let (tr, te) = (data(train), data(test));
        let classes = tr.classes().unwrap();
        let y = if classes.n_classes() == 2 {
            Targets::Binary(tr.binary().unwrap())
        } else {
            Targets::Classes(classes)
        };
        for spec in kernels {
            for prob in [false, true] {
                let svc = SvcParams::new(spec.parse().unwrap())
                    .c(2.0)
                    .probability(prob, 3)
                    .fit(&tr.samples, &y)
                    .unwrap();
                let what = format!("{train} {spec} prob={prob}");
                let m = LibsvmModel::from_svc(&svc).unwrap();
                let text = m.to_text();
                let back = LibsvmModel::parse(&text, &what).unwrap();
                assert_eq!(back, m, "{what}");
                assert_same_decisions(
                    &back,
                    &svc.decision_function(&te.samples).unwrap(),
                    &te.samples,
                    &what,
                );
                let names = svc.predict_names(&te.samples).unwrap();
                let labels = back.predict(&te.samples).unwrap();
                for (n, l) in names.iter().zip(&labels) {
                    assert_eq!(n.parse::<f64>().unwrap(), *l, "{what}: label");
                }
                if prob {
                    let (_, p) = back.predict_probability(&te.samples).unwrap();
                    let pk = svc.predict_proba(&te.samples).unwrap();
                    // LIBSVM's columns are in its label order; map kern's names onto them.
                    let order: Vec<usize> = back
                        .labels()
                        .unwrap()
                        .iter()
                        .map(|&l| {
                            svc.names()
                                .iter()
                                .position(|n| n.parse::<f64>().unwrap() == f64::from(l))
                                .unwrap()
                        })
                        .collect();
                    for (a, b) in p.iter().zip((0..pk.nrows()).map(|i| pk.row(i))) {
                        for (c, &kc) in order.iter().enumerate() {
                            // kern leaves binary sigmoids unclamped, LIBSVM clamps to [1e-7, 1 - 1e-7].
                            assert!(
                                (a[c] - b[kc]).abs() <= 1e-7 + 1e-12,
                                "{what}: probability {} vs {}",
                                a[c],
                                b[kc]
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn kern_binary_pm1_model_uses_libsvm_label_order() {
    let tr = data("bin_train.txt");
    let svc = SvcParams::new("linear".parse().unwrap()).fit(&tr.samples, &tr.binary().unwrap()).unwrap();
    let m = LibsvmModel::from_svc(&svc).unwrap();
    assert_eq!(m.labels(), Some(&[1, -1][..]), "+1 first, as LIBSVM orders a -1/+1 problem");
    assert!(m.to_text().contains("\nlabel 1 -1\n"));
}

#[test]
fn kern_svr_written_as_libsvm_predicts_the_same() {
    let (tr, te) = (data("reg_train.txt"), data("reg_test.txt"));
    for spec in ["gaussian:beta=0.8", "poly:degree=2,scale=0.5,coef0=1", "linear"] {
        let svr = SvrParams::new(spec.parse().unwrap())
            .c(10.0)
            .epsilon(0.05)
            .fit(&tr.samples, &tr.real().unwrap())
            .unwrap();
        let m = LibsvmModel::from_svr(&svr).unwrap();
        assert_eq!(m.svm_type(), SvmType::EpsilonSvr);
        let back = LibsvmModel::parse(&m.to_text(), spec).unwrap();
        let v = svr.predict(&te.samples).unwrap();
        let kern = faer::Mat::from_fn(v.len(), 1, |i, _| v[i]);
        assert_same_decisions(&back, &kern, &te.samples, spec);
        assert!(m.to_text().contains(&format!("rho {}\n", fmt_g17(-svr.bias()))));
    }
}

#[test]
fn models_libsvm_cannot_hold_are_refused_with_the_reason() {
    let tr = data("train.txt");
    let y = tr.classes().unwrap();
    let fit = |spec: &str| SvcParams::new(spec.parse().unwrap()).fit(&tr.samples, &y).unwrap();
    let e = LibsvmModel::from_svc(&fit("cs-gaussian:sigma=2,c=3")).unwrap_err().to_string();
    assert!(e.contains("compactly supported"), "{e}");
    let e = LibsvmModel::from_svc(&fit("laplacian:sigma=1")).unwrap_err().to_string();
    assert!(e.contains("no LIBSVM counterpart"), "{e}");
    // scikit-learn's pairwise kernels have no LIBSVM kernel type either.
    for spec in ["laplacian-l1:gamma=0.5", "chi2:gamma=1", "cosine"] {
        let e = kern_models::libsvm_model::LibsvmKernel::from_spec(&spec.parse().unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("no LIBSVM counterpart"), "{spec}: {e}");
    }
    let ovr = SvcParams::new("linear".parse().unwrap())
        .multiclass(Multiclass::OneVsRest)
        .fit(&tr.samples, &y)
        .unwrap();
    let e = LibsvmModel::from_svc(&ovr).unwrap_err().to_string();
    assert!(e.contains("one-vs-rest"), "{e}");
    let named = kern_core::ClassTargets::from_labels(
        &(0..tr.samples.n()).map(|i| ["a", "b", "c"][i % 3]).collect::<Vec<_>>(),
    )
    .unwrap();
    let e =
        LibsvmModel::from_svc(&SvcParams::new("linear".parse().unwrap()).fit(&tr.samples, &named).unwrap())
            .unwrap_err()
            .to_string();
    assert!(e.contains("integer class labels"), "{e}");
}
