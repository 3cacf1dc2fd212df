//! LIBSVM's habits on kern's command line: svm-train's short options, positional files and the
//! default model path, gamma = 1/d, negative values, standard output holding data only, `kern
//! scale` files kern reads back, svm-predict -b 1's labels, grid.py's `best:` line and help that
//! fits on a screen.

use crate::common::{kern, kern_command, kern_io, s, scratch, succeeds};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A deterministic labelled file in LIBSVM format with `d` features: three classes (`multi`) or a
/// real target (`real`).
fn write_data(path: &Path, kind: &str, n: usize, d: usize) {
    let mut text = String::new();
    for i in 0..n {
        let t = i as f64 * 0.618_033_988_7;
        let x: Vec<f64> =
            (0..d).map(|j| ((t * (3.1 + j as f64)).sin() * 2.0 * 1000.0).round() / 1000.0).collect();
        let label = match kind {
            "multi" => format!(
                "{}",
                if x[0] > 0.6 {
                    1
                } else if x[1] > 0.0 {
                    2
                } else {
                    3
                }
            ),
            _ => format!("{}", (x[0] + 0.5 * x[1] * 1000.0).round() / 1000.0),
        };
        let feats: Vec<String> = x.iter().enumerate().map(|(j, v)| format!("{}:{v}", j + 1)).collect();
        text.push_str(&format!("{label} {}\n", feats.join(" ")));
    }
    std::fs::write(path, text).unwrap();
}

/// Trains with `args` (then `--data DATA --out MODEL`) and returns the model file's bytes.
fn model_of(args: &[&str], data: &Path, model: &Path) -> Vec<u8> {
    let mut a = vec!["train"];
    a.extend(args);
    a.extend(["--data", s(data), "--out", s(model)]);
    succeeds(&a);
    std::fs::read(model).unwrap()
}

/// Each svm-train option trains the model its long flag trains (the same model file, byte for
/// byte), and a different one from the defaults.
#[test]
fn short_options_train_what_their_long_flags_train() {
    let d = scratch("libsvm-habits-short-options");
    let (multi, real) = (d.join("multi.svm"), d.join("real.svm"));
    write_data(&multi, "multi", 60, 3);
    write_data(&real, "real", 50, 3);
    let (short, long) = (d.join("short.kern"), d.join("long.kern"));
    let default = model_of(&["--type", "c-svc", "--kernel", "rbf"], &multi, &d.join("default.kern"));
    let cases: [(&[&str], &[&str], &Path); 7] = [
        (
            &["-c", "4", "-t", "2", "-g", "0.5"],
            &["--type", "c-svc", "--c", "4", "--kernel", "rbf:gamma=0.5"],
            &multi,
        ),
        (
            &["-s", "1", "-n", "0.3", "-t", "0"],
            &["--type", "nu-svc", "--nu", "0.3", "--kernel", "linear"],
            &multi,
        ),
        (
            &["-s", "2", "-n", "0.2", "-t", "0"],
            &["--type", "one-class", "--nu", "0.2", "--kernel", "linear"],
            &multi,
        ),
        (
            &[
                "-s", "3", "-p", "0.05", "-t", "1", "-d", "2", "-g", "0.5", "-r", "1", "-e", "0.01", "-m",
                "10",
            ],
            &[
                "--type",
                "epsilon-svr",
                "--epsilon-tube",
                "0.05",
                "--kernel",
                "poly:degree=2,scale=0.5,coef0=1",
                "--tol",
                "0.01",
                "--cache-mb",
                "10",
            ],
            &real,
        ),
        (
            &["-s", "4", "-n", "0.4", "-c", "2", "-t", "0"],
            &["--type", "nu-svr", "--nu", "0.4", "--c", "2", "--kernel", "linear"],
            &real,
        ),
        (
            &["-t", "3", "-g", "0.1", "-r", "-1", "-h", "0"],
            &["--type", "c-svc", "--kernel", "sigmoid:a=0.1,b=-1", "--no-shrinking"],
            &multi,
        ),
        (
            &["-b", "1", "-w1", "2"],
            &["--type", "c-svc", "--kernel", "rbf", "--probability", "--class-weight", "1:2"],
            &multi,
        ),
    ];
    for (short_args, long_args, data) in cases {
        let mut a = vec!["train"];
        a.extend(short_args);
        a.extend([s(data), s(&short)]);
        succeeds(&a);
        let by_short = std::fs::read(&short).unwrap();
        assert_eq!(by_short, model_of(long_args, data, &long), "{short_args:?} vs {long_args:?}");
        if data == multi.as_path() {
            assert_ne!(by_short, default, "{short_args:?} changes the model");
        }
    }
}

/// `kern train DATA` writes `DATA.model` in the current folder (the file name of DATA), a model
/// `kern predict TEST MODEL OUTPUT` applies.
#[test]
fn positional_data_and_the_default_model_path() {
    let d = scratch("libsvm-habits-positional");
    let data = d.join("heart");
    write_data(&data, "multi", 45, 2);
    let work = d.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let run = |args: &[&str]| {
        let out = kern_command().args(args).current_dir(&work).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out
    };
    run(&["train", "-c", "2", s(&data)]);
    let model: PathBuf = work.join("heart.model");
    assert!(model.is_file(), "svm-train's default model path");
    run(&["predict", s(&data), "heart.model", "out.txt"]);
    let labels = std::fs::read_to_string(work.join("out.txt")).unwrap();
    assert_eq!(labels.lines().count(), 45);
    assert!(labels.lines().all(|l| ["1", "2", "3"].contains(&l)), "labels only, as svm-predict:\n{labels}");
    // MODEL by position names the file.
    run(&["train", "-c", "2", s(&data), "named.model"]);
    assert_eq!(std::fs::read(work.join("named.model")).unwrap(), std::fs::read(&model).unwrap());
}

/// `--kernel rbf` takes gamma = 1/d, trains the model of `rbf:gamma=1/d` written out, and says so.
#[test]
fn rbf_without_a_width_takes_one_over_d() {
    let d = scratch("libsvm-habits-gamma");
    let data = d.join("d.svm");
    write_data(&data, "multi", 40, 4);
    let (ok, v, stdout, stderr) = kern_io(
        &["train", "--model", "svc", "--kernel", "rbf", "--data", s(&data), "--out", s(&d.join("a.kern"))],
        None,
    );
    assert!(ok, "{stderr}");
    let v: Value =
        if v.is_null() { serde_json::from_str(stdout.lines().last().unwrap()).unwrap() } else { v };
    assert_eq!(v["gamma_default"]["gamma"], 0.25);
    assert_eq!(v["gamma_default"]["d"], 4);
    assert!(stderr.contains("gamma defaulted to 1/d = 1/4 = 0.25"), "{stderr}");
    let explicit = model_of(&["--model", "svc", "--kernel", "rbf:gamma=0.25"], &data, &d.join("b.kern"));
    assert_eq!(std::fs::read(d.join("a.kern")).unwrap(), explicit);
    // A width given is kept, and nothing is said.
    let (_, v, stderr) = kern(&[
        "train",
        "--model",
        "svc",
        "--kernel",
        "gaussian:sigma=2",
        "--data",
        s(&data),
        "--out",
        s(&d.join("c.kern")),
    ]);
    assert!(v.get("gamma_default").is_none() && !stderr.contains("defaulted"), "{v}");
}

/// Negative numbers are values: a negative C is refused as C, not as an unknown flag; `-r -1` and
/// `--scale-lower -2` are taken.
#[test]
fn negative_numbers_are_values() {
    let d = scratch("libsvm-habits-negative");
    let data = d.join("d.svm");
    write_data(&data, "multi", 30, 2);
    for args in [&["--model", "svc", "--kernel", "linear", "--c", "-1"][..], &["-c", "-1"]] {
        let mut a = vec!["train", "--data", s(&data), "--out", "-"];
        a.extend(args);
        let (ok, _, stderr) = kern(&a);
        assert!(!ok && stderr.contains("c = -1") && stderr.contains("> 0"), "{args:?}: {stderr}");
        assert!(!stderr.contains("unexpected argument"), "{stderr}");
    }
    let v = succeeds(&["train", "-t", "3", "-g", "0.1", "-r", "-1", s(&data), s(&d.join("m"))]);
    assert!(v["kernel"].as_str().unwrap().contains("b=-1"), "{v}");
}

/// With `--out -`, standard output is the data alone (read back as it is), and the summary is the
/// last line of standard error.
#[test]
fn standard_output_holds_the_data_only() {
    let d = scratch("libsvm-habits-stdout");
    let data = d.join("d.svm");
    write_data(&data, "multi", 30, 3);
    let last_json = |stderr: &str| -> Value {
        serde_json::from_str(stderr.lines().last().unwrap()).expect("summary on stderr")
    };
    // kern train --out -: the model file itself.
    let out = kern_command().args(["train", "-t", "0", s(&data), "--out", "-"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(last_json(&String::from_utf8_lossy(&out.stderr))["model"], "svc");
    let piped = d.join("piped.kern");
    std::fs::write(&piped, &out.stdout).unwrap();
    succeeds(&["train", "-t", "0", s(&data), s(&d.join("file.kern"))]);
    assert_eq!(out.stdout, std::fs::read(d.join("file.kern")).unwrap(), "the model file alone");
    // kern predict --out -: one label per row.
    let (ok, _, stdout, stderr) =
        kern_io(&["predict", "--data", s(&data), "--model", s(&piped), "--out", "-"], None);
    assert!(ok, "{stderr}");
    assert_eq!(stdout.lines().count(), 30);
    assert_eq!(last_json(&stderr)["n"], 30);
    // kern scale (standard output by default): LIBSVM lines kern reads back.
    let (ok, _, stdout, stderr) = kern_io(&["scale", s(&data)], None);
    assert!(ok, "{stderr}");
    assert_eq!(last_json(&stderr)["n"], 30);
    let scaled = d.join("scaled.svm");
    std::fs::write(&scaled, &stdout).unwrap();
    assert_eq!(succeeds(&["info", s(&scaled)])["n"], 30);
    // kern export --out -.
    let (ok, _, stdout, stderr) = kern_io(&["export", "--libsvm", s(&piped), "-"], None);
    assert!(ok, "{stderr}");
    assert!(stdout.starts_with("svm_type") && !stdout.contains('{'), "{stdout}");
    assert_eq!(last_json(&stderr)["format"], "libsvm");
}

/// `kern scale` writes files kern reads back: CSV with its string labels (to a .csv file), LIBSVM
/// for LIBSVM data; LIBSVM output of labels that are not numbers is refused, naming CSV.
#[test]
fn scaled_files_are_read_back() {
    let d = scratch("libsvm-habits-scale");
    let csv = d.join("s.csv");
    let mut text = String::from("a,b,kind\n");
    for i in 0..40 {
        let t = i as f64 * 0.7;
        let kind = if i % 2 == 0 { "yes" } else { "no" };
        text.push_str(&format!("{},{},{kind}\n", (t.sin() * 5.0 + (i % 2) as f64 * 3.0), t.cos() * 2.0));
    }
    std::fs::write(&csv, text).unwrap();
    let out = d.join("scaled.csv");
    let v = succeeds(&["scale", s(&csv), "--out", s(&out)]);
    assert_eq!(v["format"], "csv");
    let t = succeeds(&["train", "-t", "0", s(&out), s(&d.join("m.kern"))]);
    assert_eq!(t["classes"], serde_json::json!(["no", "yes"]));
    assert_eq!(t["n"], 40);
    let info = succeeds(&["info", s(&out)]);
    let ranges = info["feature_ranges"].as_array().unwrap();
    assert!(ranges.iter().all(|r| r[0] == -1.0 && r[1] == 1.0), "{info}");
    let (ok, _, stderr) = kern(&["scale", s(&csv), "--out", s(&d.join("scaled.svm"))]);
    assert!(!ok && stderr.contains("not a number") && stderr.contains(".csv"), "{stderr}");
    // LIBSVM data: LIBSVM output, trained on as it is.
    let data = d.join("d.svm");
    write_data(&data, "multi", 30, 3);
    succeeds(&["scale", s(&data), "--out", s(&d.join("d.scaled"))]);
    assert_eq!(succeeds(&["train", "-t", "0", s(&d.join("d.scaled")), s(&d.join("d.kern"))])["n"], 30);
}

/// With probabilities, the label written is the most probable class (svm-predict -b 1), the first
/// class on a tie; `--vote-label` writes the vote's label, which `--values label` writes.
#[test]
fn probability_labels_are_the_most_probable_class() {
    let d = scratch("libsvm-habits-proba");
    let data = d.join("d.svm");
    write_data(&data, "multi", 90, 2);
    let model = d.join("m.kern");
    succeeds(&["train", "-b", "1", "-c", "0.5", s(&data), s(&model)]);
    let out = d.join("p.txt");
    let v = succeeds(&["predict", "-b", "1", s(&data), s(&model), s(&out)]);
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines = text.lines();
    let classes: Vec<&str> = lines.next().unwrap().split_whitespace().skip(1).collect();
    let mut hits = 0;
    let truth: Vec<String> = std::fs::read_to_string(&data)
        .unwrap()
        .lines()
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect();
    let rows: Vec<(String, Vec<f64>)> = lines
        .map(|l| {
            let mut w = l.split_whitespace();
            (w.next().unwrap().to_string(), w.map(|p| p.parse().unwrap()).collect())
        })
        .collect();
    for ((label, p), t) in rows.iter().zip(&truth) {
        let best = (1..p.len()).fold(0, |b, j| if p[j] > p[b] { j } else { b });
        assert_eq!(label, classes[best], "{p:?}");
        hits += usize::from(label == t);
    }
    // The summary scores the labels written.
    assert_eq!(v["accuracy"].as_f64().unwrap(), hits as f64 / 90.0);
    let vote = d.join("vote.txt");
    succeeds(&[
        "predict",
        "--data",
        s(&data),
        "--model",
        s(&model),
        "--out",
        s(&vote),
        "--values",
        "probability",
        "--vote-label",
    ]);
    let plain = d.join("plain.txt");
    succeeds(&["predict", "--data", s(&data), "--model", s(&model), "--out", s(&plain), "--values", "label"]);
    let vote_labels: Vec<String> = std::fs::read_to_string(&vote)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect();
    let plain_labels: Vec<String> =
        std::fs::read_to_string(&plain).unwrap().lines().map(str::to_string).collect();
    assert_eq!(vote_labels, plain_labels);
}

/// `kern cv` ends with grid.py's best line, which is the summary's best cell; `C` and `g` are `c`
/// and `gamma`; a grid name of neither the model nor the kernel is refused with both lists;
/// `kern train -v` prints svm-train's line.
#[test]
fn cv_reports_the_best_cell_as_grid_py() {
    let d = scratch("libsvm-habits-cv");
    let data = d.join("d.svm");
    write_data(&data, "multi", 60, 2);
    let (ok, v, stderr) = kern(&[
        "cv",
        s(&data),
        "--model",
        "svc",
        "--kernel",
        "rbf",
        "--grid",
        "C=[1,10],g=[0.1,1]",
        "--folds",
        "3",
    ]);
    assert!(ok, "{stderr}");
    let best = stderr.lines().last().unwrap();
    let bp = &v["best_params"];
    let acc = (v["best_score"].as_f64().unwrap() * 1e6).round() / 1e4;
    assert_eq!(best, format!("best: c={}, gamma={}, accuracy={acc}%", bp["c"], bp["gamma"]), "{stderr}");
    assert_eq!(v["cells"].as_array().unwrap().len(), 4);
    let (ok, _, stderr) = kern(&["cv", s(&data), "--model", "svc", "--kernel", "rbf", "--grid", "foo=[1]"]);
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains("\"foo\" is not a parameter of --model svc nor of the kernel")
            && stderr.contains("takes c and lambda")
            && stderr.contains("gamma"),
        "{stderr}"
    );
    assert!(!stderr.contains("invalid kernel spec"), "{stderr}");
    let (ok, v, stdout, stderr) = kern_io(&["train", "-v", "3", "-c", "10", "-g", "1", s(&data)], None);
    assert!(ok, "{stderr}");
    let acc = (v["best_score"].as_f64().unwrap() * 1e6).round() / 1e4;
    assert_eq!(stdout.lines().next().unwrap(), format!("Cross Validation Accuracy = {acc}%"));
    // A classification has no squared correlation coefficient: the summary follows.
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert_eq!(v["best_params"]["c"], 10.0);
}

/// `kern train -s 3 -v N` prints svm-train's two regression lines: the mean squared error (the
/// summary's) and the squared correlation coefficient of the folds' test predictions, which for a
/// linear SVR on a target that is a linear function of the features (its ε = 0.1 tube a twentieth of
/// the target's spread) is near 1.
#[test]
fn train_v_on_a_regression_prints_both_of_svm_trains_lines() {
    let d = scratch("libsvm-habits-cv-regression");
    let data = d.join("r.svm");
    write_data(&data, "real", 60, 2);
    let (ok, v, stdout, stderr) = kern_io(&["train", "-s", "3", "-t", "0", "-v", "4", s(&data)], None);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert_eq!(
        lines[0],
        format!("Cross Validation Mean squared error = {}", -v["best_score"].as_f64().unwrap())
    );
    let scc: f64 = lines[1]
        .strip_prefix("Cross Validation Squared correlation coefficient = ")
        .unwrap_or_else(|| panic!("{stdout}"))
        .parse()
        .unwrap();
    assert!(scc > 0.99 && scc <= 1.0, "{scc}");
}

/// Unknown short options are refused with the nearest option; `-h` fits on a screen; `--help` is
/// grouped, and names no paper or solver jargon.
#[test]
fn help_fits_and_options_are_named() {
    let (ok, _, stderr) = kern(&["train", "-C", "4", "x.svm"]);
    assert!(!ok && stderr.contains("did you mean -c / --c?"), "{stderr}");
    for cmd in ["train", "cv", "predict", "scale", "kpca", "info"] {
        let out = kern_command().args([cmd, "-h"]).output().unwrap();
        let lines = String::from_utf8_lossy(&out.stdout).lines().count();
        assert!(out.status.success() && lines < 40, "kern {cmd} -h: {lines} lines");
    }
    let long = String::from_utf8_lossy(&kern_command().args(["train", "--help"]).output().unwrap().stdout)
        .into_owned();
    for heading in ["Data:", "Model:", "Kernel:", "Solver:", "Output:"] {
        assert!(long.lines().any(|l| l == heading), "{heading}");
    }
    for cmd in ["train", "cv", "fvs", "kpca", "tune", "predict", "scale", "gram", "sparse"] {
        let text = String::from_utf8_lossy(&kern_command().args([cmd, "--help"]).output().unwrap().stdout)
            .into_owned();
        for word in ["Baudat", "Letchford", "FALKON", "KKT", "J_S", "Krylov"] {
            assert!(!text.contains(word), "kern {cmd} --help names {word}");
        }
    }
}
