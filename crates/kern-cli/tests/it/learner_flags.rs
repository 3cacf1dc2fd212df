//! The learner's flags are declared once for `kern train` and `kern cv`: the same help text, the same
//! defaults and the same parsing in both commands; what each command adds stays its own. The refusals
//! (`--c` with `--lambda`; a flag given to a learner it does not apply to, by `kern train` on every
//! kernel path and by `kern cv`, before the data file is read) are case files in
//! `tests/cmd/learner_flags/` (run by `cmd.rs`).

use crate::common::{kern, output, scratch, write};
use std::collections::BTreeMap;

/// The flags `kern train` and `kern cv` share (kern-cli's `LearnerFlags`).
const SHARED: [&str; 26] = [
    "--model",
    "--type",
    "--nu",
    "--kernel",
    "--c",
    "--lambda",
    "--gam",
    "--epsilon-tube",
    "--class-weight",
    "--probability",
    "--tol",
    "--cache-mb",
    "--no-shrinking",
    "--max-iter",
    "--multiclass",
    "--regression",
    "--max-fv",
    "--min-fitness",
    "--allow-many-classes",
    "--path",
    "--order",
    "--solver",
    "--preconditioner",
    "--landmarks",
    "--fvs-strategy",
    "--projection",
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
        // A heading (`Model:`) ends the block above it.
        let heading = indent == 0 && trimmed.ends_with(':');
        if heading {
            if let Some((name, body)) = current.take() {
                blocks.insert(name, body.join("\n").trim_end().to_string());
            }
            continue;
        }
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
    for flag in ["--out", "--weights", "--format", "--scale"] {
        assert!(train.contains_key(flag) && !cv.contains_key(flag), "{flag} is kern train's");
    }
    for flag in ["--grid", "--folds", "--scoring", "--max-cells", "--no-warm-start"] {
        assert!(cv.contains_key(flag) && !train.contains_key(flag), "{flag} is kern cv's");
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
