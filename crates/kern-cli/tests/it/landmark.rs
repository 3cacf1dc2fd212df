//! `kern train --landmarks`, `kern predict` on landmark models, `kern kpca --landmarks`.

use crate::common::{kern_command, scratch};

/// Two noisy moons-like classes in LIBSVM format.
fn write_data(path: &std::path::Path, n: usize, shift: f64) {
    let mut s = String::new();
    for i in 0..n {
        let t = i as f64 + shift;
        let (a, b) = ((t * 0.754_877_666).fract(), (t * 0.569_840_291).fract());
        let label = if (6.0 * a).sin() * 0.3 + 0.5 > b { 1 } else { -1 };
        s.push_str(&format!("{label} 1:{a} 2:{b}\n"));
    }
    std::fs::write(path, s).unwrap();
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn landmark_models_train_predict_and_project() {
    let d = scratch("cli");
    let (train, test, model) = (d.join("train.svm"), d.join("test.svm"), d.join("m.kern"));
    write_data(&train, 1500, 0.0);
    write_data(&test, 500, 7777.5);
    for (model_kind, landmarks) in [("lssvm", "fvs:60"), ("lssvm", "random:60"), ("krr", "random:40")] {
        let mut cmd = kern_command();
        cmd.args(["train", "--data"]).arg(&train).args([
            "--model",
            model_kind,
            "--kernel",
            "gaussian:sigma=0.2",
        ]);
        cmd.args(["--lambda", "0.01", "--landmarks", landmarks, "--seed", "3"]);
        let v = json(&cmd.arg("--out").arg(&model).output().unwrap());
        assert_eq!(v["landmarks"], landmarks);
        // Auto: the direct solve (no iterations) or conjugate gradients (at least one).
        let it = v["iterations"].as_u64().unwrap();
        match v["solver"].as_str().unwrap() {
            "direct" => assert_eq!(it, 0, "{v}"),
            "iterative" => assert!(it >= 1, "{v}"),
            other => panic!("solver {other}"),
        }
        assert!(v["residual"].as_f64().unwrap() <= 1e-6 && v["converged"].as_bool().unwrap(), "{v}");
        // Both solvers on request, each as accurate as the bound below asks of the default.
        for solver in ["direct", "iterative"] {
            let mut c = kern_command();
            c.args(["train", "--data"]).arg(&train).args([
                "--model",
                model_kind,
                "--kernel",
                "gaussian:sigma=0.2",
            ]);
            c.args(["--lambda", "0.01", "--landmarks", landmarks]);
            let file = d.join(format!("{solver}.kern"));
            c.args(["--seed", "3", "--solver", solver, "--out"]).arg(&file);
            let w = json(&c.output().unwrap());
            assert_eq!(w["solver"], solver, "{w}");
            assert!(w["converged"].as_bool().unwrap(), "{w}");
            let p = json(
                &kern_command()
                    .args(["predict", "--model"])
                    .arg(&file)
                    .arg("--data")
                    .arg(&test)
                    .output()
                    .unwrap(),
            );
            if model_kind == "lssvm" {
                assert!(p["accuracy"].as_f64().unwrap() > 0.9, "{solver} {landmarks}: {p}");
            } else {
                assert!(p["rmse"].as_f64().unwrap() < 0.6, "{solver}: {p}");
            }
        }
        let p = json(
            &kern_command()
                .args(["predict", "--model"])
                .arg(&model)
                .arg("--data")
                .arg(&test)
                .output()
                .unwrap(),
        );
        if model_kind == "lssvm" {
            assert!(p["accuracy"].as_f64().unwrap() > 0.9, "{landmarks}: {p}");
        } else {
            assert!(p["rmse"].as_f64().unwrap() < 0.6, "{p}");
        }
    }
    // Without --lambda, or with a bad spec: an error, not a panic.
    for bad in [vec!["--landmarks", "fvs:10"], vec!["--landmarks", "kmeans:5", "--lambda", "1"]] {
        let out = kern_command()
            .args(["train", "--data"])
            .arg(&train)
            .args(["--model", "lssvm", "--kernel", "gaussian:sigma=0.2", "--out"])
            .arg(d.join("bad.kern"))
            .args(&bad)
            .output()
            .unwrap();
        assert!(!out.status.success() && !String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    let scores = d.join("scores.csv");
    let v = json(
        &kern_command()
            .args(["kpca", "--data"])
            .arg(&train)
            .args([
                "--kernel",
                "gaussian:sigma=0.3",
                "--components",
                "3",
                "--landmarks",
                "random:50",
                "--out",
            ])
            .arg(&scores)
            .output()
            .unwrap(),
    );
    assert_eq!(v["centres"], 50);
    let ev: Vec<f64> = v["eigenvalues"].as_array().unwrap().iter().map(|e| e.as_f64().unwrap()).collect();
    assert!(ev.windows(2).all(|w| w[0] >= w[1]) && ev[2] > 0.0);
    let text = std::fs::read_to_string(&scores).unwrap();
    assert_eq!(text.lines().count(), 1501);
}

/// A landmark model regularized into a constant carries the warning of lssvm and krr in its
/// summary (and on stderr); a normal one does not.
#[test]
fn a_landmark_model_regularized_into_a_constant_warns() {
    let d = scratch("landmark-constant");
    let (train, model) = (d.join("train.svm"), d.join("m.kern"));
    write_data(&train, 300, 0.0);
    for (model_kind, regression) in
        [("landmark-lssvm", false), ("landmark-lssvm", true), ("landmark-krr", true)]
    {
        for (lambda, constant) in [("1e12", true), ("0.01", false)] {
            let mut cmd = kern_command();
            cmd.args(["train", "--data"]).arg(&train).args([
                "--model",
                model_kind,
                "--kernel",
                "gaussian:sigma=0.2",
            ]);
            cmd.args(["--lambda", lambda, "--landmarks", "random:30", "--seed", "3"]);
            if regression && model_kind == "landmark-lssvm" {
                cmd.arg("--regression");
            }
            let out = cmd.arg("--out").arg(&model).output().unwrap();
            let v = json(&out);
            let w = v["warnings"].as_array().expect("warnings");
            assert_eq!(w.len(), usize::from(constant), "{model_kind} {lambda}: {v}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(err.contains("warning: the model is constant"), constant, "{err}");
            if constant {
                assert!(w[0].as_str().unwrap().contains("the model is constant"), "{w:?}");
            }
        }
    }
}

/// `kern cv` gives each cell the constant-model warning of `kern train` when its fits were
/// regularized into a constant (lssvm, krr, landmark models), in the cell's `warnings` and on stderr;
/// cells of models that follow their targets have none.
#[test]
fn kern_cv_cells_carry_the_constant_model_warning() {
    let d = scratch("cv-constant");
    let train = d.join("train.svm");
    write_data(&train, 120, 0.0);
    let cases: [&[&str]; 3] = [
        &["--model", "lssvm"],
        &["--model", "krr"],
        &["--model", "landmark-krr", "--landmarks", "random:20"],
    ];
    for model in cases {
        let mut cmd = kern_command();
        cmd.args(["cv", "--data"]).arg(&train).args(model);
        cmd.args(["--kernel", "gaussian:sigma=0.2", "--grid", "lambda=[0.001,1e12]", "--folds", "3"]);
        let out = cmd.output().unwrap();
        let v = json(&out);
        let cells = v["cells"].as_array().expect("cells");
        assert_eq!(cells.len(), 2, "{v}");
        for c in cells {
            let constant = c["params"]["lambda"].as_f64().unwrap() > 1.0;
            let w = c.get("warnings").and_then(|w| w.as_array()).cloned().unwrap_or_default();
            assert_eq!(w.len(), usize::from(constant), "{model:?}: {c}");
            if constant {
                assert!(w[0].as_str().unwrap().starts_with("the model is constant"), "{w:?}");
            }
        }
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.matches("warning: cell").count(), 1, "{model:?}: {err}");
    }
}
