//! The command line as other tools meet it: a feature scaling stored in the model (`kern train --scale`,
//! `--scale-file`), outputs that are devices or symbolic links, CSV column counts at prediction for
//! every model kind, and progress bars (`--progress`, `--quiet`).

use crate::common::{kern, kern_io, output, s, scratch, succeeds};
use std::path::Path;

/// A deterministic two-class problem in LIBSVM format whose features have very different ranges
/// (feature 2 is in the thousands), so that scaling changes the model. Every value is nonzero.
fn two_class(n: usize, shift: f64) -> String {
    let mut t = String::new();
    for i in 0..n {
        let u = ((i * 37 + 11) % 101) as f64 / 101.0 + shift;
        let v = ((i * 53 + 7) % 97) as f64 / 97.0 + shift;
        let label = if u + 0.8 * v > 0.9 + shift * 1.8 { 1 } else { -1 };
        t += &format!("{label} 1:{} 2:{} 3:{}\n", u + 0.01, 1000.0 + 3000.0 * v, 0.5 + (i % 3) as f64);
    }
    t
}

fn lines(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p).unwrap().lines().map(str::to_string).collect()
}

/// Decision values of the file written by `--values decision`.
fn values(p: &Path) -> Vec<f64> {
    lines(p)
        .iter()
        .flat_map(|l| l.split_whitespace().map(|w| w.parse::<f64>().unwrap()).collect::<Vec<_>>())
        .collect()
}

#[test]
fn a_scaled_model_predicts_raw_data_as_scaling_then_predicting() {
    let d = scratch("scaled-svc");
    let (train, test) = (d.join("train.svm"), d.join("test.svm"));
    std::fs::write(&train, two_class(120, 0.0)).unwrap();
    // Test data partly outside the training ranges (scaled beyond [-1, 1], as svm-scale does).
    std::fs::write(&test, two_class(40, 0.15)).unwrap();
    let (scaled_model, params) = (d.join("scaled.kern"), d.join("params.txt"));
    let j = succeeds(&[
        "train",
        "--model",
        "svc",
        "--kernel",
        "gaussian:sigma=1",
        "--c",
        "4",
        "--scale",
        "--data",
        s(&train),
        "--out",
        s(&scaled_model),
        "--threads",
        "1",
    ]);
    assert_eq!(j["scaling"]["lower"], -1.0);
    assert_eq!(j["scaling"]["features"], 3);
    let (p1, v1) = (d.join("p1.txt"), d.join("v1.txt"));
    let j = succeeds(&["predict", "--model", s(&scaled_model), "--data", s(&test), "--out", s(&p1)]);
    assert_eq!(j["scaled"], true);
    succeeds(&[
        "predict",
        "--model",
        s(&scaled_model),
        "--data",
        s(&test),
        "--out",
        s(&v1),
        "--values",
        "decision",
    ]);

    // The same by hand: svm-scale's parameters, scaled files, a model on the scaled data.
    let (train_s, test_s, plain) = (d.join("train.scaled"), d.join("test.scaled"), d.join("plain.kern"));
    succeeds(&["scale", "-s", s(&params), "--data", s(&train), "--out", s(&train_s)]);
    succeeds(&["scale", "-r", s(&params), "--data", s(&test), "--out", s(&test_s)]);
    succeeds(&[
        "train",
        "--model",
        "svc",
        "--kernel",
        "gaussian:sigma=1",
        "--c",
        "4",
        "--data",
        s(&train_s),
        "--out",
        s(&plain),
        "--threads",
        "1",
    ]);
    let (p2, v2) = (d.join("p2.txt"), d.join("v2.txt"));
    let j = succeeds(&["predict", "--model", s(&plain), "--data", s(&test_s), "--out", s(&p2)]);
    assert_eq!(j["scaled"], false);
    succeeds(&[
        "predict",
        "--model",
        s(&plain),
        "--data",
        s(&test_s),
        "--out",
        s(&v2),
        "--values",
        "decision",
    ]);

    assert_eq!(lines(&p1), lines(&p2));
    let (a, b) = (values(&v1), values(&v2));
    assert_eq!(a.len(), 40);
    // The scaled files hold the values to 17 digits; only the summation order may differ.
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() <= 1e-9 * (1.0 + y.abs()), "decision values {x} vs {y}");
    }
    // The scaling matters here: without it the predictions differ.
    let (unscaled, p3) = (d.join("unscaled.kern"), d.join("p3.txt"));
    succeeds(&[
        "train",
        "--model",
        "svc",
        "--kernel",
        "gaussian:sigma=1",
        "--c",
        "4",
        "--data",
        s(&train),
        "--out",
        s(&unscaled),
        "--threads",
        "1",
    ]);
    succeeds(&["predict", "--model", s(&unscaled), "--data", s(&test), "--out", s(&p3)]);
    assert_ne!(lines(&p3), lines(&p1), "the test problem does not depend on scaling");

    // --scale-file with the same parameters gives the same model file, byte for byte.
    let from_file = d.join("from_file.kern");
    succeeds(&[
        "train",
        "--model",
        "svc",
        "--kernel",
        "gaussian:sigma=1",
        "--c",
        "4",
        "--scale-file",
        s(&params),
        "--data",
        s(&train),
        "--out",
        s(&from_file),
        "--threads",
        "1",
    ]);
    assert_eq!(std::fs::read(&from_file).unwrap(), std::fs::read(&scaled_model).unwrap());
}

#[test]
fn scaled_regression_and_lssvm_models_apply_their_scaling_too() {
    let d = scratch("scaled-krr");
    let (train, params, train_s) = (d.join("train.svm"), d.join("params.txt"), d.join("train.scaled"));
    // Targets: a smooth function of the features.
    let mut t = String::new();
    for i in 0..60 {
        let (u, v) = ((i * 37 % 61) as f64 / 61.0, (i * 17 % 59) as f64 * 50.0);
        t += &format!("{} 1:{} 2:{}\n", (3.0 * u).sin() + v / 3000.0, u + 0.01, v + 1.0);
    }
    std::fs::write(&train, t).unwrap();
    succeeds(&["scale", "-s", s(&params), "--data", s(&train), "--out", s(&train_s)]);
    for (model, extra) in [("krr", vec!["--lambda", "0.01"]), ("lssvm", vec!["--gam", "10", "--regression"])]
    {
        let (m1, m2, o1, o2) = (d.join("m1.kern"), d.join("m2.kern"), d.join("o1.txt"), d.join("o2.txt"));
        let mut a =
            vec!["train", "--model", model, "--kernel", "gaussian:sigma=1", "--scale", "--data", s(&train)];
        a.extend(["--out", s(&m1), "--threads", "1"]);
        a.extend(extra.iter().copied());
        succeeds(&a);
        let mut b = vec!["train", "--model", model, "--kernel", "gaussian:sigma=1", "--data", s(&train_s)];
        b.extend(["--out", s(&m2), "--threads", "1"]);
        b.extend(extra.iter().copied());
        succeeds(&b);
        succeeds(&["predict", "--model", s(&m1), "--data", s(&train), "--out", s(&o1)]);
        succeeds(&["predict", "--model", s(&m2), "--data", s(&train_s), "--out", s(&o2)]);
        let (x, y) = (values(&o1), values(&o2));
        assert_eq!(x.len(), 60, "{model}");
        for (p, q) in x.iter().zip(&y) {
            assert!((p - q).abs() <= 1e-9 * (1.0 + q.abs()), "{model}: {p} vs {q}");
        }
    }
}

#[test]
fn scalings_a_model_cannot_store_are_refused_before_training() {
    let d = scratch("scale-refused");
    let train = d.join("train.svm");
    std::fs::write(&train, two_class(30, 0.0)).unwrap();
    let out = d.join("m.txt");
    let (okk, _, err) = kern(&[
        "train",
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--scale",
        "--format",
        "libsvm",
        "--data",
        s(&train),
        "--out",
        s(&out),
    ]);
    assert!(!okk && err.contains("cannot store a scaling"), "{err}");
    let params = d.join("y.txt");
    std::fs::write(&params, "y\n0 1\n-1 1\nx\n-1 1\n1 0 1\n").unwrap();
    let (okk, _, err) = kern(&[
        "train",
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--scale-file",
        s(&params),
        "--data",
        s(&train),
        "--out",
        s(&out),
    ]);
    assert!(!okk && err.contains("target section"), "{err}");
    assert!(!out.exists(), "nothing written");
}

#[test]
fn out_dev_stdout_prints_the_predictions() {
    let d = scratch("devstdout");
    let (train, model) = (d.join("train.svm"), d.join("m.kern"));
    std::fs::write(&train, two_class(30, 0.0)).unwrap();
    succeeds(&["train", "--model", "svc", "--kernel", "linear", "--data", s(&train), "--out", s(&model)]);
    let (okk, _, stdout, err) =
        kern_io(&["predict", "--model", s(&model), "--data", s(&train), "--out", "/dev/stdout"], None);
    assert!(okk, "{err}");
    let printed: Vec<&str> = stdout.lines().collect();
    assert_eq!(printed.len(), 30, "30 predictions, the summary on stderr:\n{stdout}");
    assert!(printed.iter().all(|l| *l == "1" || *l == "-1"), "{stdout}");
    let j: serde_json::Value = serde_json::from_str(err.lines().last().unwrap()).unwrap();
    assert_eq!(j["n"], 30);
    // A model written to /dev/stdout is the model file's bytes on standard output.
    let out = output(&[
        "train",
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--data",
        s(&train),
        "--out",
        "/dev/stdout",
    ]);
    assert!(out.status.success());
    assert!(out.stdout.starts_with(b"KERNMODL"));
    assert_eq!(out.stdout, std::fs::read(&model).unwrap(), "the model file alone");
}

#[test]
fn a_symlinked_out_keeps_its_link_and_writes_the_target() {
    let d = scratch("symlink");
    let (train, model) = (d.join("train.svm"), d.join("m.kern"));
    std::fs::write(&train, two_class(30, 0.0)).unwrap();
    succeeds(&["train", "--model", "svc", "--kernel", "linear", "--data", s(&train), "--out", s(&model)]);
    std::fs::create_dir_all(d.join("real")).unwrap();
    let (target, link) = (d.join("real/pred.txt"), d.join("pred-link.txt"));
    std::fs::write(&target, "old\n").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    succeeds(&["predict", "--model", s(&model), "--data", s(&train), "--out", s(&link)]);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
    assert_eq!(std::fs::read_link(&link).unwrap(), target);
    assert_eq!(lines(&target).len(), 30);
    // The same for a model file behind a link.
    let (mt, ml) = (d.join("real/model.kern"), d.join("model-link.kern"));
    std::os::unix::fs::symlink(&mt, &ml).unwrap();
    succeeds(&["train", "--model", "svc", "--kernel", "linear", "--data", s(&train), "--out", s(&ml)]);
    assert!(std::fs::symlink_metadata(&ml).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(&mt).unwrap(), std::fs::read(&model).unwrap());
}

#[test]
fn lssvm_and_krr_refuse_a_csv_without_the_training_columns() {
    let d = scratch("csv-dual");
    let (train, m) = (d.join("tr.csv"), d.join("m.kern"));
    std::fs::write(&train, "a,b,y\n0,0,1\n1,0.5,1\n3,3,-1\n4,3.5,-1\n0.5,0,1\n3.5,3,-1\n").unwrap();
    for (model, extra) in [("lssvm", None), ("krr", Some("--lambda"))] {
        let mut a =
            vec!["train", "--model", model, "--kernel", "linear", "--data", s(&train), "--out", s(&m)];
        if let Some(e) = extra {
            a.extend([e, "0.1"]);
        }
        succeeds(&a);
        // Against the training file's columns: a missing one is named; without a header the
        // column count must be the training one. An extra named column is ignored.
        for (name, text, want) in [
            ("fewer.csv", "a,y\n0,1\n", "\"b\""),
            ("more.csv", "0,0,0,1\n", "4 columns, the training data had 3"),
        ] {
            let test = d.join(name);
            std::fs::write(&test, text).unwrap();
            let (okk, _, err) = kern(&["predict", "--model", s(&m), "--data", s(&test)]);
            assert!(!okk && err.contains(want), "{model} {name}: {err}");
        }
        let named = d.join("named.csv");
        std::fs::write(&named, "a,b,c,y\n0,0,0,1\n").unwrap();
        succeeds(&["predict", "--model", s(&m), "--data", s(&named)]);
        // The right column count predicts.
        let same = d.join("same.csv");
        std::fs::write(&same, "a,b,y\n0,0,1\n").unwrap();
        succeeds(&["predict", "--model", s(&m), "--data", s(&same)]);
    }
}

#[test]
fn progress_bars_follow_progress_and_quiet() {
    let d = scratch("progress");
    let train = d.join("train.svm");
    std::fs::write(&train, two_class(40, 0.0)).unwrap();
    let cv = |flags: &[&str]| -> String {
        let mut a = vec!["cv", "--model", "svc", "--kernel", "gaussian", "--grid", "c=1..4:2,sigma=0.5..1:2"];
        a.extend(["--folds", "3", "--data", s(&train), "--threads", "1"]);
        a.extend_from_slice(flags);
        let (okk, j, err) = kern(&a);
        assert!(okk, "{err}");
        assert_eq!(j["cells"].as_array().unwrap().len(), 4);
        err
    };
    // stderr is a pipe here: no bar unless asked for.
    assert!(!cv(&[]).contains("grid search"));
    let err = cv(&["--progress"]);
    assert!(err.contains("grid search") && err.contains("12/12 fits"), "{err}");
    assert!(!cv(&["--progress", "--quiet"]).contains("grid search"));
}

#[test]
fn work_without_its_own_progress_gets_a_spinner() {
    let d = scratch("spinner");
    let train = d.join("train.svm");
    std::fs::write(&train, two_class(40, 0.0)).unwrap();
    let z = d.join("z.csv");
    let m = d.join("m.kern");
    let run = |args: &[&str], flags: &[&str]| -> String {
        let mut a: Vec<&str> = flags.to_vec();
        a.extend_from_slice(args);
        let (okk, _, err) = kern(&a);
        assert!(okk, "{err}");
        err
    };
    let kpca =
        ["kpca", "--data", s(&train), "--kernel", "gaussian:sigma=1", "--components", "2", "--out", s(&z)];
    let krr =
        ["train", "--data", s(&train), "--model", "krr", "--kernel", "gaussian:sigma=1", "--out", s(&m)];
    for (args, what) in [(&kpca[..], "kernel PCA"), (&krr[..], "training")] {
        // stderr is a pipe here: nothing unless asked for; --quiet wins.
        assert!(!run(args, &[]).contains(what));
        assert!(run(args, &["--progress"]).contains(what), "{what}");
        assert!(!run(args, &["--progress", "--quiet"]).contains(what));
    }
    // The SVM solvers draw their own line: no spinner on top of it.
    let svc =
        ["train", "--data", s(&train), "--model", "svc", "--kernel", "gaussian:sigma=1", "--out", s(&m)];
    assert!(!run(&svc, &["--progress"]).contains("training"));
}
