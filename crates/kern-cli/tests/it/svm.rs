//! `kern train`, `kern predict` and `kern cv` on small temporary files.

use crate::common::{kern, scratch};
use serde_json::Value;
use std::path::Path;

/// A deterministic two-class / three-class / regression file in LIBSVM format.
fn write_data(path: &Path, kind: &str, n: usize, phase: f64) {
    let mut s = String::new();
    for i in 0..n {
        let t = i as f64 * 0.618_033_988_7 + phase;
        let (x1, x2) = ((t * 7.1).sin() * 2.0, (t * 3.7).cos() * 2.0);
        let label = match kind {
            "binary" => {
                if x1 + 0.5 * x2 > 0.0 {
                    "1".to_string()
                } else {
                    "-1".to_string()
                }
            }
            "multi" => ["a", "b", "c"][if x1 > 0.7 {
                0
            } else if x2 > 0.0 {
                1
            } else {
                2
            }]
            .to_string(),
            _ => format!("{}", (x1).sin() + 0.1 * x2),
        };
        let label = if kind == "multi" {
            ["0", "1", "2"][["a", "b", "c"].iter().position(|l| *l == label).unwrap()].to_string()
        } else {
            label
        };
        s.push_str(&format!("{label} 1:{x1} 2:{x2}\n"));
    }
    std::fs::write(path, s).unwrap();
}

#[test]
fn train_predict_svc_binary_and_multiclass() {
    let d = scratch("train-predict-svc-binary-and-multiclass");
    for (kind, machines) in [("binary", 1), ("multi", 3)] {
        let (train, test, model) =
            (d.join(format!("{kind}.svm")), d.join(format!("{kind}_t.svm")), d.join(format!("{kind}.kern")));
        write_data(&train, kind, 300, 0.0);
        write_data(&test, kind, 200, 0.37);
        let (ok, j, err) = kern(&[
            "train",
            "--data",
            train.to_str().unwrap(),
            "--model",
            "svc",
            "--kernel",
            "gaussian:sigma=1",
            "--c",
            "10",
            "--out",
            model.to_str().unwrap(),
        ]);
        assert!(ok, "{err}");
        assert_eq!(j["model"], "svc");
        assert_eq!(j["machines"].as_array().unwrap().len(), machines);
        assert_eq!(j["objective"].as_array().unwrap().len(), machines);
        assert!(j["n_sv"].as_u64().unwrap() > 0 && j["iterations"].as_u64().unwrap() > 0);
        assert!(j["seconds"].as_f64().unwrap() >= 0.0);
        // One small machine runs on the calling thread; three share the pool's threads.
        assert_eq!(j["placement"], if machines == 1 { "caller" } else { "pool" });
        assert!(j["max_violation"].as_f64().unwrap() < 1e-3);
        let pred = d.join(format!("{kind}.pred"));
        let (ok, p, err) = kern(&[
            "predict",
            "--model",
            model.to_str().unwrap(),
            "--data",
            test.to_str().unwrap(),
            "--out",
            pred.to_str().unwrap(),
        ]);
        assert!(ok, "{err}");
        assert_eq!(p["n"], 200);
        assert!(p["accuracy"].as_f64().unwrap() > 0.85, "{p}");
        assert_eq!(std::fs::read_to_string(&pred).unwrap().lines().count(), 200);
    }
}

#[test]
fn probability_lambda_weights_and_svr() {
    let d = scratch("probability-lambda-weights-and-svr");
    let (train, model) = (d.join("b.svm"), d.join("b.kern"));
    write_data(&train, "binary", 200, 0.1);
    let (ok, j, err) = kern(&[
        "train",
        "--data",
        train.to_str().unwrap(),
        "--model",
        "svc",
        "--kernel",
        "gaussian:sigma=1",
        "--lambda",
        "0.001",
        "--class-weight",
        "1:2",
        "--probability",
        "--seed",
        "3",
        "--out",
        model.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert_eq!(j["probability"], true);
    let pred = d.join("b.pred");
    let (ok, _, err) = kern(&[
        "predict",
        "--model",
        model.to_str().unwrap(),
        "--data",
        train.to_str().unwrap(),
        "--out",
        pred.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let line = std::fs::read_to_string(&pred).unwrap().lines().next().unwrap().to_string();
    let probs: Vec<f64> = line.split_whitespace().skip(1).map(|v| v.parse().unwrap()).collect();
    assert_eq!(probs.len(), 2);
    assert!((probs.iter().sum::<f64>() - 1.0).abs() < 1e-5);

    let (rtrain, rmodel) = (d.join("r.svm"), d.join("r.kern"));
    write_data(&rtrain, "real", 200, 0.2);
    let (ok, j, err) = kern(&[
        "train",
        "--data",
        rtrain.to_str().unwrap(),
        "--model",
        "svr",
        "--kernel",
        "gaussian:sigma=1",
        "--c",
        "10",
        "--epsilon-tube",
        "0.05",
        "--out",
        rmodel.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert_eq!(j["model"], "svr");
    let (ok, p, err) =
        kern(&["predict", "--model", rmodel.to_str().unwrap(), "--data", rtrain.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(p["rmse"].as_f64().unwrap() < 0.1 && p["mae"].as_f64().unwrap() < 0.1, "{p}");
}

#[test]
fn bad_models_and_arguments_fail_cleanly() {
    let d = scratch("bad-models-and-arguments-fail-cleanly");
    let (train, model) = (d.join("c.svm"), d.join("c.kern"));
    write_data(&train, "binary", 100, 0.3);
    let (ok, _, err) = kern(&[
        "train",
        "--data",
        train.to_str().unwrap(),
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--out",
        model.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let bytes = std::fs::read(&model).unwrap();
    let cut = d.join("cut.kern");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let (ok, _, err) =
        kern(&["predict", "--model", cut.to_str().unwrap(), "--data", train.to_str().unwrap()]);
    assert!(!ok && err.contains("not a valid kern model"), "{err}");
    let (ok, _, err) =
        kern(&["predict", "--model", train.to_str().unwrap(), "--data", train.to_str().unwrap()]);
    assert!(!ok && err.contains("not a valid kern model"), "{err}");
    let (ok, _, _) = kern(&[
        "train",
        "--data",
        train.to_str().unwrap(),
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--c",
        "-1",
        "--out",
        model.to_str().unwrap(),
    ]);
    assert!(!ok);
    let (ok, _, _) = kern(&[
        "train",
        "--data",
        train.to_str().unwrap(),
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--class-weight",
        "5:2",
        "--out",
        model.to_str().unwrap(),
    ]);
    assert!(!ok);
}

#[test]
fn cv_grid_reports_best_parameters_and_table() {
    let d = scratch("cv-grid-reports-best-parameters-and-table");
    let train = d.join("cv.svm");
    write_data(&train, "binary", 150, 0.5);
    let (ok, j, err) = kern(&[
        "cv",
        "--data",
        train.to_str().unwrap(),
        "--model",
        "svc",
        "--kernel",
        "gaussian",
        "--folds",
        "3",
        "--grid",
        "c=2^-1..2^3:3,sigma=0.5..2:2",
        "--seed",
        "1",
    ]);
    assert!(ok, "{err}");
    assert_eq!(j["cells"].as_array().unwrap().len(), 6);
    assert!(j["best_params"]["c"].as_f64().is_some() && j["best_params"]["sigma"].as_f64().is_some());
    let best = j["best_score"].as_f64().unwrap();
    assert!(j["cells"].as_array().unwrap().iter().all(|c| c["mean"].as_f64().unwrap() <= best));
    assert!(best > 0.8);
}

/// The warm-started path over c (the default for a two-class svc) and the cell-by-cell search report
/// the same grid, in the same order, with the same folds and report fields.
#[test]
fn cv_warm_started_path_reports_the_same_grid_as_cold_fits() {
    let d = scratch("cv-warm-started-path-reports-the-same-grid-as-cold-fits");
    let train = d.join("cv-warm.svm");
    write_data(&train, "binary", 150, 0.5);
    let run = |extra: &[&str]| {
        let mut args =
            vec!["cv", "--data", train.to_str().unwrap(), "--model", "svc", "--kernel", "gaussian"];
        args.extend_from_slice(&["--folds", "3", "--grid", "sigma=0.5..2:2,c=2^3..2^-1:3", "--seed", "1"]);
        args.extend_from_slice(extra);
        let (ok, j, err) = kern(&args);
        assert!(ok, "{err}");
        j
    };
    let (warm, cold) = (run(&[]), run(&["--no-warm-start"]));
    let params =
        |j: &Value| j["cells"].as_array().unwrap().iter().map(|c| c["params"].clone()).collect::<Vec<_>>();
    assert_eq!(params(&warm), params(&cold));
    assert_eq!(params(&warm).len(), 6);
    for k in ["scoring", "validation", "stratified", "seed", "model", "n"] {
        assert_eq!(warm[k], cold[k], "{k}");
    }
    for j in [&warm, &cold] {
        let best = j["best_score"].as_f64().unwrap();
        assert!(
            j["cells"].as_array().unwrap().iter().all(|c| c["fold_scores"].as_array().unwrap().len() == 3)
        );
        assert!(best > 0.8, "{j}");
    }
}

#[test]
fn cv_grid_covers_lssvm_krr_and_kfa() {
    let d = scratch("cv-grid-covers-lssvm-krr-and-kfa");
    let cls = d.join("cv-cls.svm");
    let reg = d.join("cv-reg.svm");
    write_data(&cls, "binary", 120, 0.3);
    write_data(&reg, "regression", 120, 0.3);
    let run = |data: &Path, model: &str, grid: &str, extra: &[&str]| {
        let mut args =
            vec!["cv", "--data", data.to_str().unwrap(), "--model", model, "--kernel", "gaussian:sigma=1"];
        args.extend_from_slice(&["--folds", "3", "--grid", grid, "--seed", "2"]);
        args.extend_from_slice(extra);
        let (ok, j, err) = kern(&args);
        assert!(ok, "{model}: {err}");
        let best = j["best_score"].as_f64().unwrap();
        assert!(j["cells"].as_array().unwrap().iter().all(|c| c["mean"].as_f64().unwrap() <= best));
        j
    };
    let j = run(&cls, "lssvm", "lambda=2^-3..2^3:3,sigma=0.5..2:2", &[]);
    assert_eq!(j["cells"].as_array().unwrap().len(), 6);
    assert!(j["best_score"].as_f64().unwrap() > 0.8, "{j}");
    let j = run(&reg, "krr", "lambda=2^-6..2^0:4", &[]);
    assert_eq!(j["scoring"], "neg_mse");
    assert!(j["best_params"]["lambda"].as_f64().is_some());
    let j = run(&cls, "kfa", "max_fv=2..20:3", &[]);
    assert_eq!(j["cells"].as_array().unwrap().len(), 3);
    // A non-integer basis size is refused, not rounded.
    let (ok, _, err) = kern(&[
        "cv",
        "--data",
        cls.to_str().unwrap(),
        "--model",
        "kfa",
        "--kernel",
        "gaussian:sigma=1",
        "--grid",
        "max_fv=2.5..3.5:2",
    ]);
    assert!(!ok && err.contains("max_fv"), "{err}");
}
