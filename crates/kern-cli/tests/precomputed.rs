//! `kern train --kernel precomputed` (LIBSVM `-t 4`, rows `LABEL 0:i 1:K(x_i,x_1) ...`) for every
//! `--type`, `kern predict` on kernel rows with kern and LIBSVM model files, and the named errors of
//! malformed files. Also `--type c-svc` and `--type epsilon-svr`, which the `--type` test does not cover.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn kern(args: &[&str]) -> (bool, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kern")).args(args).output().expect("kern runs");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let json = stdout.lines().last().and_then(|l| serde_json::from_str(l).ok()).unwrap_or(Value::Null);
    (out.status.success(), json, String::from_utf8_lossy(&out.stderr).to_string())
}

fn fixture(dir: &str, name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../kern-models/tests/fixtures/libsvm")
        .join(dir)
        .join(name)
        .display()
        .to_string()
}

fn tmp() -> PathBuf {
    let d = std::env::temp_dir().join(format!("kern-cli-precomputed-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn lines(path: &Path) -> Vec<f64> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| l.trim().parse().unwrap()).collect()
}

#[test]
fn every_type_trains_on_a_precomputed_file_and_predicts_kernel_rows() {
    let d = tmp();
    let (gr, gr_test) = (fixture("precomputed", "gr_train.txt"), fixture("precomputed", "gr_test.txt"));
    let (sinc, sinc_test) =
        (fixture("precomputed", "sinc_train.txt"), fixture("precomputed", "sinc_test.txt"));
    for (t, train, test, extra) in [
        ("c-svc", &gr, &gr_test, vec!["--c", "2"]),
        ("nu-svc", &gr, &gr_test, vec!["--nu", "0.4"]),
        ("one-class", &gr, &gr_test, vec!["--nu", "0.3"]),
        ("epsilon-svr", &sinc, &sinc_test, vec!["--c", "5", "--epsilon-tube", "0.05"]),
        ("nu-svr", &sinc, &sinc_test, vec!["--c", "5", "--nu", "0.4"]),
    ] {
        for format in ["kern", "libsvm"] {
            let model = d.join(format!("{t}.{format}")).display().to_string();
            let mut args =
                vec!["train", "--type", t, "--kernel", "precomputed", "--data", train, "--out", &model];
            args.extend(&extra);
            args.extend(["--format", format]);
            let (ok, j, err) = kern(&args);
            assert!(ok, "{t} {format}: {err}");
            assert_eq!(j["kernel"], "precomputed", "{t}");
            assert!(j["n_sv"].as_u64().unwrap() > 0, "{t}");
            if format == "libsvm" {
                let text = std::fs::read_to_string(&model).unwrap();
                assert!(text.contains("kernel_type precomputed\n") && text.contains(" 0:"), "{t}");
            }
            let out = d.join(format!("{t}.{format}.pred"));
            let (ok, j, err) =
                kern(&["predict", "--model", &model, "--data", test, "--out", &out.display().to_string()]);
            assert!(ok, "{t} {format} predict: {err}");
            assert_eq!(lines(&out).len(), if t.ends_with("svr") { 20 } else { 30 }, "{t}");
            if t == "c-svc" || t == "nu-svc" {
                assert!(j["accuracy"].as_f64().unwrap() > 0.6, "{t}: {j}");
            }
            if t.ends_with("svr") {
                assert!(j["rmse"].as_f64().unwrap() < 0.3, "{t}: {j}");
            }
        }
        // The kern and LIBSVM files of one model predict the same.
        let p = |f: &str| lines(&d.join(format!("{t}.{f}.pred")));
        for (a, b) in p("kern").iter().zip(&p("libsvm")) {
            assert!((a - b).abs() <= 1e-9 * a.abs().max(1.0), "{t}: {a} vs {b}");
        }
    }
    // `kern export --libsvm` on a precomputed kern model writes the same file as --format libsvm.
    let exported = d.join("exported.txt").display().to_string();
    let (ok, _, err) = kern(&["export", "--libsvm", &d.join("c-svc.kern").display().to_string(), &exported]);
    assert!(ok, "{err}");
    assert_eq!(
        std::fs::read_to_string(&exported).unwrap(),
        std::fs::read_to_string(d.join("c-svc.libsvm")).unwrap()
    );
    // A LIBSVM-written precomputed model predicts the test rows.
    let (ok, j, err) =
        kern(&["predict", "--model", &fixture("precomputed", "csvc.model"), "--data", &gr_test]);
    assert!(ok, "{err}");
    assert_eq!(j["n"], 30);
}

#[test]
fn malformed_precomputed_files_are_named_errors() {
    let d = tmp();
    let write = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let out = d.join("m").display().to_string();
    let cases = [
        ("no0", "1 1:1 2:0.5\n-1 1:0.5 2:1\n", "0:SERIAL"),
        ("order", "1 0:2 1:1 2:0.5\n-1 0:1 1:0.5 2:1\n", "numbered 0:1, 0:2"),
        ("short", "1 0:1 1:1\n-1 0:2 1:0.5\n", "columns 1 to 2"),
        ("nan", "1 0:1 1:1 2:nan\n-1 0:2 1:0.5 2:1\n", "finite"),
        ("asym", "1 0:1 1:1 2:0.5\n-1 0:2 1:0.25 2:1\n", "not symmetric"),
    ];
    for (name, text, want) in cases {
        let data = write(name, text);
        let (ok, _, err) =
            kern(&["train", "--type", "c-svc", "--kernel", "precomputed", "--data", &data, "--out", &out]);
        assert!(!ok && err.contains(want), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    // A good model, then test rows too short for its support vectors.
    let data = write("good", "1 0:1 1:1 2:0.1 3:0\n-1 0:2 1:0.1 2:1 3:0.1\n1 0:3 1:0 2:0.1 3:1\n");
    let (ok, _, err) =
        kern(&["train", "--type", "c-svc", "--kernel", "precomputed", "--data", &data, "--out", &out]);
    assert!(ok, "{err}");
    let test = write("test_short", "1 0:1 1:1\n");
    let (ok, _, err) = kern(&["predict", "--model", &out, "--data", &test]);
    assert!(!ok && err.contains("kernel rows have 1 columns"), "{err}");
    // Non-SVM models and scaling are refused.
    let (ok, _, err) =
        kern(&["train", "--model", "krr", "--kernel", "precomputed", "--data", &data, "--out", &out]);
    assert!(!ok && err.contains("trains SVMs"), "{err}");
    let (ok, _, err) = kern(&[
        "train",
        "--type",
        "c-svc",
        "--kernel",
        "precomputed",
        "--scale",
        "--data",
        &data,
        "--out",
        &out,
    ]);
    assert!(!ok && err.contains("--scale"), "{err}");
}

#[test]
fn c_svc_and_epsilon_svr_types_train_predict_and_refuse_foreign_flags() {
    let d = tmp();
    let out = d.join("t.model").display().to_string();
    let (gr, sinc) = (fixture("nu", "gr_train.txt"), fixture("nu", "sinc_train.txt"));
    let (ok, j, err) =
        kern(&["train", "--type", "c-svc", "--kernel", "gaussian:gamma=2", "--data", &gr, "--out", &out]);
    assert!(ok, "{err}");
    assert_eq!(j["type"], "c-svc");
    let (ok, j, err) = kern(&["predict", "--model", &out, "--data", &fixture("nu", "gr_test.txt")]);
    assert!(ok && j["accuracy"].as_f64().unwrap() > 0.6, "{err} {j}");
    let (ok, j, err) = kern(&[
        "train",
        "--type",
        "epsilon-svr",
        "--kernel",
        "gaussian:gamma=0.5",
        "--data",
        &sinc,
        "--out",
        &out,
    ]);
    assert!(ok, "{err}");
    assert_eq!(j["type"], "epsilon-svr");
    let (ok, j, err) = kern(&["predict", "--model", &out, "--data", &fixture("nu", "sinc_test.txt")]);
    assert!(ok && j["rmse"].as_f64().unwrap() < 0.3, "{err} {j}");
    for (t, flag) in [("c-svc", "--nu"), ("epsilon-svr", "--nu")] {
        let (ok, _, err) =
            kern(&["train", "--type", t, "--nu", "0.5", "--kernel", "linear", "--data", &gr, "--out", &out]);
        assert!(!ok && err.contains(flag), "{t}: {err}");
    }
    let (ok, _, err) = kern(&[
        "train", "--model", "svc", "--type", "nu-svr", "--kernel", "linear", "--data", &gr, "--out", &out,
    ]);
    assert!(!ok && err.contains("different models"), "{err}");
}
