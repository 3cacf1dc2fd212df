//! `kern train --kernel precomputed` (LIBSVM `-t 4`, rows `LABEL 0:i 1:K(x_i,x_1) ...`) for every
//! `--type`, `kern predict` on kernel rows with kern and LIBSVM model files, and the named errors of
//! malformed files. Also `--type c-svc` and `--type epsilon-svr`, which the `--type` test does not cover.

use crate::common::{kern, kern_io, scratch};
use serde_json::Value;
use std::io::Write as _;
use std::path::Path;

fn fixture(dir: &str, name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../kern-models/tests/fixtures/libsvm")
        .join(dir)
        .join(name)
        .display()
        .to_string()
}

/// Runs `kern train --type c-svc --kernel precomputed` on `data` into `out`, with `extra` flags.
fn train_c_svc(data: &str, out: &str, extra: &[&str]) -> (bool, Value, String) {
    let mut args = vec!["train", "--type", "c-svc", "--kernel", "precomputed", "--data", data, "--out", out];
    args.extend_from_slice(extra);
    kern(&args)
}

fn lines(path: &Path) -> Vec<f64> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| l.trim().parse().unwrap()).collect()
}

#[test]
fn every_type_trains_on_a_precomputed_file_and_predicts_kernel_rows() {
    let d = scratch("every-type");
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
    let d = scratch("malformed");
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
        let (ok, _, err) = train_c_svc(&data, &out, &[]);
        assert!(!ok && err.contains(want), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    // A good model, then test rows too short for its support vectors.
    let data = write("good", "1 0:1 1:1 2:0.1 3:0\n-1 0:2 1:0.1 2:1 3:0.1\n1 0:3 1:0 2:0.1 3:1\n");
    let (ok, _, err) = train_c_svc(&data, &out, &[]);
    assert!(ok, "{err}");
    let test = write("test_short", "1 0:1 1:1\n");
    let (ok, _, err) = kern(&["predict", "--model", &out, "--data", &test]);
    assert!(!ok && err.contains("kernel rows have 1 columns"), "{err}");
    // Non-SVM models and scaling are refused.
    let (ok, _, err) =
        kern(&["train", "--model", "krr", "--kernel", "precomputed", "--data", &data, "--out", &out]);
    assert!(!ok && err.contains("trains the SVMs"), "{err}");
    let (ok, _, err) = train_c_svc(&data, &out, &["--scale"]);
    assert!(!ok && err.contains("--scale"), "{err}");
}

#[test]
fn c_svc_and_epsilon_svr_types_train_predict_and_refuse_foreign_flags() {
    let d = scratch("c-svc-epsilon-svr");
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

/// `-` (standard input) and a gzip-compressed file are read as the plain file is, by `kern train`,
/// `kern predict` and `kern cv`: the same model bytes, the same predictions, the same folds.
#[test]
fn precomputed_files_from_standard_input_and_gzip_read_as_the_plain_file() {
    let d = scratch("inputs");
    let gzip = |src: &str| -> String {
        let p = d.join(format!("{}.gz", Path::new(src).file_name().unwrap().to_str().unwrap()));
        let mut z = flate2::write::GzEncoder::new(std::fs::File::create(&p).unwrap(), Default::default());
        z.write_all(&std::fs::read(src).unwrap()).unwrap();
        z.finish().unwrap();
        p.display().to_string()
    };
    for (t, train, test, extra) in [
        ("c-svc", "gr_train.txt", "gr_test.txt", vec!["--c", "2"]),
        ("nu-svr", "sinc_train.txt", "sinc_test.txt", vec!["--c", "5", "--nu", "0.4"]),
    ] {
        let (train, test) = (fixture("precomputed", train), fixture("precomputed", test));
        let (train_gz, test_gz) = (gzip(&train), gzip(&test));
        let (train_bytes, test_bytes) = (std::fs::read(&train).unwrap(), std::fs::read(&test).unwrap());
        // Training: the plain file, its gzip copy, and the plain bytes on standard input.
        let models: Vec<Vec<u8>> =
            [(&train, None), (&train_gz, None), (&"-".to_string(), Some(&train_bytes))]
                .iter()
                .enumerate()
                .map(|(i, (data, stdin))| {
                    let model = d.join(format!("{t}.{i}.kern")).display().to_string();
                    let mut args = vec![
                        "train",
                        "--type",
                        t,
                        "--kernel",
                        "precomputed",
                        "--data",
                        data,
                        "--out",
                        &model,
                    ];
                    args.extend(&extra);
                    let (ok, j, _, err) = kern_io(&args, stdin.map(|b| &b[..]));
                    assert!(ok, "{t} train on {data}: {err}");
                    assert_eq!(j["kernel"], "precomputed", "{t}");
                    std::fs::read(&model).unwrap()
                })
                .collect();
        assert!(models.iter().all(|m| m == &models[0]), "{t}: the three inputs give one model");
        // Prediction: the same three ways of giving the test rows.
        let model = d.join(format!("{t}.0.kern")).display().to_string();
        let preds: Vec<Vec<u8>> = [(&test, None), (&test_gz, None), (&"-".to_string(), Some(&test_bytes))]
            .iter()
            .enumerate()
            .map(|(i, (data, stdin))| {
                let out = d.join(format!("{t}.{i}.pred")).display().to_string();
                let args = ["predict", "--model", &model, "--data", data, "--out", &out];
                let (ok, _, _, err) = kern_io(&args, stdin.map(|b| &b[..]));
                assert!(ok, "{t} predict on {data}: {err}");
                std::fs::read(&out).unwrap()
            })
            .collect();
        assert!(!preds[0].is_empty());
        assert!(preds.iter().all(|p| p == &preds[0]), "{t}: the three inputs give one prediction");
        // Cross-validation: the same folds and scores (everything but the timing).
        let grid = if t == "c-svc" { "c=[0.5,4]" } else { "nu=[0.3,0.6]" };
        let cvs: Vec<Value> = [(&train, None), (&train_gz, None), (&"-".to_string(), Some(&train_bytes))]
            .iter()
            .map(|(data, stdin)| {
                let args = [
                    "cv",
                    "--type",
                    t,
                    "--kernel",
                    "precomputed",
                    "--data",
                    data,
                    "--folds",
                    "3",
                    "--seed",
                    "4",
                    "--grid",
                    grid,
                    "-q",
                ];
                let (ok, mut j, _, err) = kern_io(&args, stdin.map(|b| &b[..]));
                assert!(ok, "{t} cv on {data}: {err}");
                j.as_object_mut().unwrap().remove("seconds");
                for c in j["cells"].as_array_mut().unwrap() {
                    c.as_object_mut().unwrap().retain(|k, _| !k.contains("seconds"));
                }
                j
            })
            .collect();
        assert!(cvs[0]["cells"].as_array().unwrap().len() == 2, "{t}: {}", cvs[0]);
        assert!(cvs.iter().all(|j| j == &cvs[0]), "{t}: the three inputs give one cross-validation");
    }
    // A file that is not gzip behind a .gz name is a named error, not a panic.
    let bad = d.join("bad.txt.gz");
    std::fs::write(&bad, "1 0:1 1:1\n").unwrap();
    let out = d.join("bad.kern").display().to_string();
    let (ok, _, err) = train_c_svc(bad.to_str().unwrap(), &out, &[]);
    assert!(!ok && err.contains("bad.txt.gz") && !err.contains("panicked"), "{err}");
}
