//! `kern predict` through the model registry: for a model file of every predicting kind, the labels
//! and decision values `kern predict` writes are the library's (`kern_models::AnyModel`) on the same
//! file, and `--values decision` works for every kind that has decision values.

use crate::common::{s, scratch, succeeds};
use kern_core::learner::Fit;
use kern_core::{BinaryTargets, ClassTargets, KernelSpec, Linear, RealTargets, Samples, Targets};
use kern_models::AnyModel;
use kern_models::fvs::FvsParams;
use kern_models::kfa::{BasisChoice, KfaParams};
use kern_models::krr::KernelRidgeParams;
use kern_models::landmark::{Landmarks, NystromRidgeParams};
use kern_models::lssvm::LsSvmParams;
use kern_models::persist::{self, Persist};
use kern_models::railway::{AreaParams, GammaChoice, RailwaySvc, ZoneMap, locate_areas};
use kern_models::svm::{OneClassParams, SvcParams, SvrParams};
use std::path::Path;

fn data() -> (Samples, Vec<&'static str>) {
    let rows: Vec<[f64; 2]> = (0..36)
        .map(|i| {
            let t = i as f64 * 0.41;
            let c = if i % 2 == 0 { 0.0 } else { 2.0 };
            [c + t.sin() * 0.9, c + (1.7 * t).cos() * 0.9]
        })
        .collect();
    (Samples::from_rows(&rows).unwrap(), (0..36).map(|i| if i % 2 == 0 { "1" } else { "2" }).collect())
}

fn save<M: Persist>(dir: &Path, m: &M) -> std::path::PathBuf {
    let p = dir.join(format!("{}.kern", M::KIND));
    persist::save(&p, m).unwrap();
    p
}

/// `kern predict --values <values>` on `model`, the lines written.
fn predict(model: &Path, data: &Path, values: &str, dir: &Path) -> (serde_json::Value, Vec<String>) {
    let out = dir.join("out.txt");
    let j =
        succeeds(&["predict", "--model", s(model), "--data", s(data), "--out", s(&out), "--values", values]);
    (j, std::fs::read_to_string(&out).unwrap().lines().map(str::to_string).collect())
}

#[test]
fn kern_predict_writes_the_registrys_labels_and_decision_values_for_every_kind() {
    let dir = scratch("kern_predict_writes_the_registrys_labels_and_decision_values_for_every_kind");
    let (x, labels) = data();
    let file = dir.join("d.svm");
    kern_core::io::write_libsvm(&file, &x, &labels).unwrap();
    let bin = BinaryTargets::from_labels(&labels).unwrap();
    let cls = ClassTargets::from_labels(&labels).unwrap();
    let real = RealTargets::new((0..36).map(|i| x.row(i)[0] + x.row(i)[1]).collect()).unwrap();
    let k: KernelSpec = "gaussian:sigma=1".parse().unwrap();
    let loc = locate_areas(
        &x,
        &cls,
        &AreaParams { gamma: GammaChoice::Relative(1.0), seed: 2, ..Default::default() },
    )
    .unwrap();
    let map = ZoneMap::fit(loc.kernel(KernelSpec::Linear(Linear)).unwrap(), &x, 1e-12).unwrap();
    let railway = RailwaySvc {
        svc: SvcParams::new(KernelSpec::Linear(Linear)).fit(&map.transform(&x).unwrap(), &cls).unwrap(),
        map,
    };
    let models = [
        save(&dir, &SvcParams::new(k.clone()).c(2.0).probability(true, 1).fit(&x, &bin).unwrap()),
        save(&dir, &SvrParams::new(k.clone()).c(3.0).fit(&x, &real).unwrap()),
        save(&dir, &OneClassParams::new(k.clone()).fit(&x).unwrap()),
        save(&dir, &LsSvmParams::new(k.clone()).lambda(1e-2).fit(&x, &bin).unwrap()),
        save(&dir, &KernelRidgeParams::new(k.clone()).lambda(1e-2).fit(&x, &real).unwrap()),
        save(
            &dir,
            &NystromRidgeParams::lssvm(k.clone(), 1e-2, Landmarks::Random { m: 12 })
                .fit_targets(&x, &Targets::Binary(bin.clone()))
                .unwrap(),
        ),
        save(
            &dir,
            &KfaParams::new(k.clone()).basis(BasisChoice::Fvs(FvsParams::with_max(8))).fit(&x, &bin).unwrap(),
        ),
        save(&dir, &railway),
    ];
    // The samples as kern predict reads them.
    let read = kern_core::io::read_libsvm(&file, None).unwrap().samples;
    for model in &models {
        let any = AnyModel::load(model).unwrap();
        let want = any.predict_all(&read, false).unwrap();
        let (j, got) = predict(model, &file, "label", &dir);
        assert_eq!(got, want.labels, "{}", any.kind().name());
        assert_eq!(j["model"], any.learner_name(), "{}", any.kind().name());
        let (_, dec) = predict(model, &file, "decision", &dir);
        assert_eq!(dec.len(), read.n());
        for (i, line) in dec.iter().enumerate() {
            let v: Vec<f64> = line.split(' ').map(|t| t.parse().unwrap()).collect();
            assert_eq!(v.len(), want.decision.ncols(), "{}", any.kind().name());
            for (c, &u) in v.iter().enumerate() {
                let w = want.decision[(i, c)];
                assert!(
                    (u - w).abs() <= 1e-12 * (1.0 + w.abs()),
                    "{} row {i}: {u} vs {w}",
                    any.kind().name()
                );
            }
        }
    }
    // Probabilities: the SVC's header, labels and columns are the registry's.
    let any = AnyModel::load(&models[0]).unwrap();
    let want = any.predict_all(&read, true).unwrap();
    let (j, got) = predict(&models[0], &file, "probability", &dir);
    assert_eq!(j["probability"], true);
    assert_eq!(got[0], "labels 1 2");
    let proba = want.proba.unwrap();
    for (i, line) in got[1..].iter().enumerate() {
        let mut t = line.split(' ');
        assert_eq!(t.next().unwrap(), want.labels[i]);
        let p: Vec<f64> = t.map(|v| v.parse().unwrap()).collect();
        assert!((p[1] - proba[(i, 1)]).abs() <= 1e-12, "{line}");
    }
    // Models without probabilities say why.
    let out = dir.join("p.txt");
    let (ok, _, err) = crate::common::kern(&[
        "predict",
        "--model",
        s(&models[3]),
        "--data",
        s(&file),
        "--out",
        s(&out),
        "--values",
        "probability",
    ]);
    assert!(!ok && err.contains("no class probabilities"), "{err}");
}

#[test]
fn a_kernel_pca_model_has_no_decision_values() {
    let dir = scratch("a_kernel_pca_model_has_no_decision_values");
    let (x, labels) = data();
    let file = dir.join("d.svm");
    kern_core::io::write_libsvm(&file, &x, &labels).unwrap();
    let m = kern_models::kpca::KernelPcaParams::new("gaussian:sigma=1".parse().unwrap(), 2).fit(&x).unwrap();
    let model = save(&dir, &m);
    let out = dir.join("o.txt");
    let (ok, _, err) = crate::common::kern(&[
        "predict",
        "--model",
        s(&model),
        "--data",
        s(&file),
        "--out",
        s(&out),
        "--values",
        "decision",
    ]);
    assert!(!ok && err.contains("projects the points"), "{err}");
}

/// A multi-output kernel ridge model (three target columns, fitted by the library): `kern predict`
/// writes every output, one line per point, by default and with `--values decision`, equal to the
/// library's decision values column by column; the summary scores the first output against the file's
/// labels and says so.
#[test]
fn kern_predict_writes_every_output_of_a_multi_output_ridge() {
    let dir = scratch("kern_predict_writes_every_output_of_a_multi_output_ridge");
    let (x, _) = data();
    let n = x.n();
    let y = faer::Mat::from_fn(n, 3, |i, t| (x.row(i)[0] * (t + 1) as f64).sin() + x.row(i)[1] * t as f64);
    let labels: Vec<String> = (0..n).map(|i| format!("{}", y[(i, 0)])).collect();
    let file = dir.join("d.svm");
    kern_core::io::write_libsvm(&file, &x, &labels).unwrap();
    let k: KernelSpec = "gaussian:sigma=1".parse().unwrap();
    let multi = KernelRidgeParams::new(k).lambda(1e-2).fit_outputs(&x, y.as_ref(), None).unwrap();
    assert_eq!(multi.outputs(), 3);
    let model = save(&dir, &multi);
    // The samples as kern predict reads them.
    let read = kern_core::io::read_libsvm(&file, None).unwrap().samples;
    let want = multi.decision_function(&read).unwrap();
    for values in ["label", "decision"] {
        let (j, lines) = predict(&model, &file, values, &dir);
        assert_eq!(lines.len(), n, "--values {values}");
        for (i, line) in lines.iter().enumerate() {
            let v: Vec<f64> = line.split(' ').map(|t| t.parse().unwrap()).collect();
            assert_eq!(v.len(), 3, "--values {values} row {i}: {line}");
            for (c, &u) in v.iter().enumerate() {
                let w = want[(i, c)];
                assert!(
                    (u - w).abs() <= 1e-12 * (1.0 + w.abs()),
                    "--values {values} row {i} output {c}: {u} vs {w}"
                );
            }
        }
        assert_eq!(j["outputs"], 3);
        assert_eq!(j["scored_output"], 1);
        // The first output's rmse against the labels (its targets).
        let se: f64 = (0..n).map(|i| (want[(i, 0)] - y[(i, 0)]).powi(2)).sum();
        let rmse = j["rmse"].as_f64().unwrap();
        assert!((rmse - (se / n as f64).sqrt()).abs() <= 1e-9, "rmse {rmse}");
    }
}
