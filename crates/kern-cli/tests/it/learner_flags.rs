//! The learner's flags are declared once for `kern train` and `kern cv`: the same help text, the same
//! defaults and the same parsing in both commands; what each command adds stays its own.

use crate::common::{kern, output, scratch, write};
use std::collections::BTreeMap;

/// The flags `kern train` and `kern cv` share (kern-cli's `LearnerFlags`).
const SHARED: [&str; 13] = [
    "--model",
    "--type",
    "--nu",
    "--kernel",
    "--c",
    "--epsilon-tube",
    "--tol",
    "--cache-mb",
    "--solver-block",
    "--multiclass",
    "--regression",
    "--max-fv",
    "--allow-many-classes",
];

/// The long help of `kern COMMAND`, cut into the block of each flag: its line (`--flag <VALUE>`) and
/// the indented text under it, by the flag's long name.
fn help_blocks(command: &str) -> BTreeMap<String, String> {
    let out = output(&[command, "--help"]);
    assert!(out.status.success(), "kern {command} --help");
    let text = String::from_utf8(out.stdout).expect("UTF-8 help");
    let mut blocks = BTreeMap::new();
    let mut current: Option<(String, Vec<&str>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        // A flag's line is indented by 2 (with a short name) or 6; its text by 10.
        let flag = (indent <= 6).then(|| trimmed.split([' ', ',']).find(|w| w.starts_with("--"))).flatten();
        if let Some(flag) = flag {
            if let Some((name, body)) = current.take() {
                blocks.insert(name, body.join("\n").trim_end().to_string());
            }
            current = Some((flag.to_string(), vec![line]));
        } else if let Some((_, body)) = current.as_mut() {
            body.push(line);
        }
    }
    if let Some((name, body)) = current {
        blocks.insert(name, body.join("\n").trim_end().to_string());
    }
    blocks
}

#[test]
fn the_shared_flags_have_one_help_text_in_both_commands() {
    let (train, cv) = (help_blocks("train"), help_blocks("cv"));
    for flag in SHARED {
        let t = train.get(flag).unwrap_or_else(|| panic!("kern train --help has {flag}"));
        let c = cv.get(flag).unwrap_or_else(|| panic!("kern cv --help has {flag}"));
        assert_eq!(t, c, "the help of {flag} differs between kern train and kern cv");
    }
    // What each command adds is its own.
    for flag in ["--lambda", "--out", "--no-shrinking", "--max-iter", "--probability", "--weights"] {
        assert!(train.contains_key(flag) && !cv.contains_key(flag), "{flag} is kern train's");
    }
    for flag in ["--grid", "--folds", "--scoring", "--max-cells", "--no-warm-start"] {
        assert!(cv.contains_key(flag) && !train.contains_key(flag), "{flag} is kern cv's");
    }
}

#[test]
fn c_and_lambda_still_exclude_each_other_in_kern_train() {
    let d = scratch("c-lambda");
    let data = write(&d, "d.svm", "1 1:0\n-1 1:1\n1 1:0.1\n-1 1:0.9\n");
    let out = d.join("m.kern");
    let (data, out) = (data.display().to_string(), out.display().to_string());
    for order in [["--c", "2", "--lambda", "0.1"], ["--lambda", "0.1", "--c", "2"]] {
        let mut a = vec!["train", "--model", "svc", "--kernel", "linear", "--data", &data, "--out", &out];
        a.extend(order);
        let (ok, _, err) = kern(&a);
        assert!(!ok && err.contains("cannot be used with"), "{a:?}: {err}");
    }
}

/// The two commands disagreed on `--max-fv`: `kern cv` capped the feature vectors of kfa at 50 by
/// default, `kern train` did not cap them. Now both read the one flag, absent meaning no cap (a
/// cross-validation scores what `kern train` with the same flags trains, as scikit-learn's
/// `cross_val_score` scores the estimator as given): on 60 points the selection goes past 50.
#[test]
fn kfa_without_max_fv_selects_as_many_vectors_in_cv_as_in_train() {
    let d = scratch("kfa-max-fv");
    let rows: String = (0..60)
        .map(|i| {
            let t = i as f64 * 0.37;
            format!("{:.6} 1:{:.6} 2:{:.6}\n", (2.0 * t).sin(), t.cos(), (1.7 * t).sin())
        })
        .collect();
    let data = write(&d, "d.svm", rows).display().to_string();
    let out = d.join("m.kern").display().to_string();
    let kfa = ["--model", "kfa", "--regression", "--kernel", "gaussian:sigma=0.05", "--data", &data];
    let mut train = vec!["train", "--out", &out];
    train.extend(kfa);
    let (ok, j, err) = kern(&train);
    assert!(ok, "{err}");
    let n_fv = j["n_fv"].as_u64().expect("n_fv");
    assert!(n_fv > 50, "a narrow kernel on 60 points selects more than 50 vectors, got {n_fv}");
    // In kern cv, without --max-fv, the leave-one-out fits select as kern train does; with
    // --max-fv 50 the training folds are cut at 50 vectors and score differently.
    let mut cv = vec!["cv", "--folds", "loo", "--grid", "min_fitness=[1]"];
    cv.extend(kfa);
    let (ok, free, err) = kern(&cv);
    assert!(ok, "{err}");
    cv.extend(["--max-fv", "50"]);
    let (ok, capped, err) = kern(&cv);
    assert!(ok, "{err}");
    assert_ne!(free["best_score"], capped["best_score"], "cv without --max-fv is not capped at 50");
}

/// A learner flag given to a learner it does not apply to is refused by `kern train` (on every path:
/// data, precomputed and railway kernels) and by `kern cv`, with the same message, before the data
/// file is read (here it does not exist).
#[test]
fn flags_that_do_not_apply_are_refused_before_reading_data() {
    let d = scratch("refused-flags");
    let (data, out) = (d.join("missing.svm"), d.join("m.kern"));
    let (data, out) = (data.display().to_string(), out.display().to_string());
    for (learner, flag, words) in [
        (
            &["--type", "nu-svr"][..],
            &["--epsilon-tube", "0.2"][..],
            "--epsilon-tube does not apply to --type nu-svr",
        ),
        (&["--model", "svc"], &["--epsilon-tube", "0.2"], "--epsilon-tube does not apply to --model svc"),
        (&["--model", "krr"], &["--c", "2"], "--c does not apply to --model krr"),
        (&["--model", "kfa"], &["--tol", "1e-4"], "--tol does not apply to --model kfa"),
        (&["--model", "lssvm"], &["--cache-mb", "8"], "--cache-mb does not apply to --model lssvm"),
        (&["--model", "svr"], &["--multiclass", "ovr"], "--multiclass ovr does not apply to --model svr"),
        (&["--model", "svc"], &["--regression"], "--regression does not apply to --model svc"),
        (&["--model", "krr"], &["--max-fv", "3"], "--max-fv does not apply to --model krr"),
    ] {
        for kernel in ["gaussian:sigma=1", "precomputed"] {
            let mut train = vec!["train", "--data", &data, "--out", &out, "--kernel", kernel];
            train.extend(learner.iter().chain(flag));
            let (ok, _, err) = kern(&train);
            assert!(!ok && err.contains(words), "{train:?}: {err}");
        }
        let grid = if learner.contains(&"nu-svr") { "nu=[0.5]" } else { "sigma=[1]" };
        let mut cv = vec!["cv", "--data", &data, "--kernel", "gaussian", "--grid", grid];
        cv.extend(learner.iter().chain(flag));
        let (ok, _, err) = kern(&cv);
        assert!(!ok && err.contains(words), "{cv:?}: {err}");
    }
    // The railway kernel's path (an svc) checks the flags too.
    let railway = ["train", "--data", &data, "--out", &out, "--model", "svc", "--kernel", "railway:auto"];
    let mut a = railway.to_vec();
    a.extend(["--max-fv", "3"]);
    let (ok, _, err) = kern(&a);
    assert!(!ok && err.contains("--max-fv does not apply to --model svc"), "{a:?}: {err}");
}

/// `--epsilon-tube` takes LIBSVM's default 0.1 where it applies (epsilon-svr), and the value given.
#[test]
fn epsilon_tube_defaults_to_libsvm_s_where_it_applies() {
    let d = scratch("epsilon-default");
    let rows: String =
        (0..20).map(|i| format!("{:.3} 1:{:.3}\n", (i as f64 * 0.3).sin(), i as f64 * 0.1)).collect();
    let data = write(&d, "d.svm", rows).display().to_string();
    let out = d.join("m.kern").display().to_string();
    for (extra, want) in [(&[][..], 0.1), (&["--epsilon-tube", "0.25"][..], 0.25)] {
        let mut a = vec!["train", "--model", "svr", "--kernel", "linear", "--data", &data, "--out", &out];
        a.extend(extra);
        let (ok, j, err) = kern(&a);
        assert!(ok, "{err}");
        assert_eq!(j["epsilon"].as_f64(), Some(want), "{a:?}");
    }
    let help = String::from_utf8(output(&["train", "--help"]).stdout).expect("UTF-8 help");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("LIBSVM -p, default 0.1"), "the default is stated in the help");
}
