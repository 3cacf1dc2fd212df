//! `kern cv --folds file:PATH`: user-given folds (scikit-learn's `PredefinedSplit`).
//!
//! The agreement test writes the assignment the seeded, stratified 5-fold of `kern cv --folds 5`
//! draws (kern-tune's `folds_for` on the file's targets, the function `kern cv` calls) and runs both:
//! the same folds in the same order train the same models, so every cell's fold scores are equal
//! (compared exactly) and so is the best cell.

use crate::common::{kern, scratch};
use kern_tune::cv::{CvConfig, Stratify, Validation, folds_for};
use serde_json::Value;
use std::fmt::Write as _;

/// A two-class LIBSVM file of `n` 2-D points in two overlapping clusters (unequal classes).
fn data(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        let a = i as f64 * 0.618_033_988_749_895;
        let c = usize::from(i % 5 < 2);
        let (u, v) = ((a * 7.3).sin(), (a * 3.1).cos());
        writeln!(s, "{} 1:{} 2:{}", if c == 1 { 1 } else { -1 }, c as f64 * 0.9 + 0.8 * u, 0.8 * v).unwrap();
    }
    s
}

#[test]
fn the_seeded_k_fold_assignment_as_a_fold_file_gives_the_same_report() {
    let dir = scratch("same-report");
    let path = dir.join("d.svm");
    std::fs::write(&path, data(120)).unwrap();
    let ds = kern_core::io::read_data(&path, &Default::default()).unwrap();
    let y = kern_cli::kinds::targets(&ds, false).unwrap();
    let cfg = CvConfig {
        validation: Validation::KFold { k: 5, repeats: 1 },
        stratify: Stratify::Auto,
        seed: 17,
        ..Default::default()
    };
    let mut fold_of = vec![-1i64; 120];
    for f in folds_for(&y, &cfg).unwrap() {
        for &i in &f.test {
            fold_of[i] = f.index as i64;
        }
    }
    let file = dir.join("folds.txt");
    std::fs::write(&file, fold_of.iter().map(|f| format!("{f}\n")).collect::<String>()).unwrap();
    let spec = format!("file:{}", file.display());
    let data = path.to_str().unwrap();
    // The warm-started path over c (the default) and the independent fits, svc and an LS-SVM.
    for extra in [
        &["--model", "svc", "--grid", "c=0.1..10:3,sigma=0.5..2:2"][..],
        &["--model", "svc", "--grid", "c=0.1..10:3,sigma=0.5..2:2", "--no-warm-start"],
        &["--model", "lssvm", "--grid", "lambda=0.1..10:3,sigma=0.5..2:2"],
    ] {
        let run = |folds: &str| {
            let mut args =
                vec!["cv", "--data", data, "--kernel", "gaussian", "--seed", "17", "--folds", folds];
            args.extend_from_slice(extra);
            let (ok, json, err) = kern(&args);
            assert!(ok, "{err}");
            json
        };
        let (a, b) = (run("5"), run(&spec));
        assert_eq!(a["cells"], b["cells"], "{extra:?}");
        assert_eq!((&a["best_params"], &a["best_score"]), (&b["best_params"], &b["best_score"]));
        assert_eq!(
            (a["validation"].as_str(), b["validation"].as_str()),
            (Some("kfold:5"), Some("predefined:5"))
        );
        assert_eq!(b["stratified"], Value::Bool(false));
    }
}

#[test]
fn a_bad_fold_file_is_an_error_that_says_what_is_wrong() {
    let dir = scratch("bad");
    let path = dir.join("d.svm");
    std::fs::write(&path, data(30)).unwrap();
    let cases: [(&str, String, &str); 4] = [
        ("short", "0\n1\n".repeat(10), "20 entries for 30 samples"),
        ("word", format!("{}x\n", "0\n1\n".repeat(14)), "line 29: \"x\" is not an integer"),
        ("one", "0\n".repeat(30), "1 test fold;"),
        ("neg", format!("{}-3\n", "0\n1\n".repeat(14)), "sample 29 has fold -3"),
    ];
    for (name, text, says) in cases {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let spec = format!("file:{}", file.display());
        let (ok, _, err) = kern(&[
            "cv",
            "--data",
            path.to_str().unwrap(),
            "--model",
            "svc",
            "--kernel",
            "gaussian:sigma=1",
            "--grid",
            "c=1..2:2",
            "--folds",
            &spec,
        ]);
        assert!(!ok && err.contains(says), "{name}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}
