//! `kern train --weights FILE`: weight 1 on every row saves the unweighted model byte for byte, weight
//! 0 saves the model of the data without those rows, and bad weight files are refused.

use crate::common::{kern, scratch};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../kern-models/tests/fixtures/libsvm/nu").join(name)
}

fn train(d: &Path, tag: &str, args: &[&str], data: &Path, weights: Option<&Path>) -> Vec<u8> {
    let out = d.join(format!("{tag}.model"));
    let mut all: Vec<String> =
        ["train", "--data", &data.display().to_string(), "--out", &out.display().to_string()]
            .iter()
            .map(|s| s.to_string())
            .collect();
    all.extend(args.iter().map(|s| s.to_string()));
    if let Some(w) = weights {
        all.extend(["--weights".to_string(), w.display().to_string()]);
    }
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let (ok, _, err) = kern(&refs);
    assert!(ok, "{tag}: {err}");
    std::fs::read(&out).unwrap()
}

/// The non-empty rows of a data file.
fn rows(data: &Path) -> Vec<String> {
    std::fs::read_to_string(data)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect()
}

/// A weight file for `n` rows: weight 0 on every third row (rows 0, 3, 6, ...) when `every_third_zero`,
/// else weight 1 on every row.
fn weight_file(d: &Path, name: &str, n: usize, every_third_zero: bool) -> PathBuf {
    let p = d.join(name);
    let w: String = (0..n).map(|i| if every_third_zero && i % 3 == 0 { "0\n" } else { "1\n" }).collect();
    std::fs::write(&p, w).unwrap();
    p
}

/// Trains with `args` on `data` without weights and with weight 1 on every row, asserts that the two
/// saved models are the same bytes, and returns them.
fn unit_weights_change_nothing(d: &Path, tag: &str, args: &[&str], data: &Path) -> Vec<u8> {
    let ones = weight_file(d, &format!("{tag}.ones"), rows(data).len(), false);
    let plain = train(d, &format!("{tag}-plain"), args, data, None);
    assert_eq!(train(d, &format!("{tag}-ones"), args, data, Some(&ones)), plain, "{tag}: weight 1");
    plain
}

#[test]
fn unit_weights_and_zero_weights() {
    let d = scratch("unit-zero");
    let (gr, sinc) = (fixture("gr_train.txt"), fixture("sinc_train.txt"));
    let gamma = "gaussian:gamma=2.7777777777777777";
    let cases: [(&str, &Path, Vec<&str>); 6] = [
        ("svc", &gr, vec!["--model", "svc", "--kernel", gamma, "--c", "3"]),
        ("nu-svc", &gr, vec!["--type", "nu-svc", "--nu", "0.3", "--kernel", gamma]),
        ("one-class", &gr, vec!["--type", "one-class", "--nu", "0.3", "--kernel", gamma]),
        ("svr", &sinc, vec!["--model", "svr", "--kernel", "gaussian:gamma=0.5"]),
        ("nu-svr", &sinc, vec!["--type", "nu-svr", "--nu", "0.3", "--kernel", "gaussian:gamma=0.5"]),
        ("krr", &sinc, vec!["--model", "krr", "--lambda", "0.01", "--kernel", "gaussian:gamma=0.5"]),
    ];
    for (tag, data, args) in cases {
        unit_weights_change_nothing(&d, tag, &args, data);
        if tag == "krr" {
            continue; // kernel ridge keeps zero-weight rows (their coefficient is 0)
        }
        // Weight 0 on every third row = those rows left out of the data file.
        let lines = rows(data);
        let zeros = weight_file(&d, &format!("{tag}.zeros"), lines.len(), true);
        let kept: String =
            lines.iter().enumerate().filter(|(i, _)| i % 3 != 0).map(|(_, r)| format!("{r}\n")).collect();
        let kept_file = d.join(format!("{tag}.kept"));
        std::fs::write(&kept_file, kept).unwrap();
        assert_eq!(
            train(&d, &format!("{tag}-zeros"), &args, data, Some(&zeros)),
            train(&d, &format!("{tag}-kept"), &args, &kept_file, None),
            "{tag}: weight 0"
        );
    }
}

#[test]
fn bad_weight_files_are_refused() {
    let d = scratch("bad");
    let gr = fixture("gr_train.txt").display().to_string();
    let n = rows(Path::new(&gr)).len();
    let out = d.join("m.model").display().to_string();
    let cases = [
        ("short", "1\n".repeat(n - 1), "weights for"),
        ("negative", format!("-1\n{}", "1\n".repeat(n - 1)), ">= 0"),
        ("text", format!("x\n{}", "1\n".repeat(n - 1)), "not a number"),
        ("zeros", "0\n".repeat(n), "zero"),
    ];
    for (tag, text, want) in cases {
        let w = d.join(tag);
        std::fs::write(&w, text).unwrap();
        let w = w.display().to_string();
        let (ok, _, err) = kern(&[
            "train",
            "--model",
            "svc",
            "--kernel",
            "linear",
            "--data",
            &gr,
            "--out",
            &out,
            "--weights",
            &w,
        ]);
        assert!(!ok && err.contains(want), "{tag}: {err}");
    }
    let w = d.join("ones");
    std::fs::write(&w, "1\n".repeat(n)).unwrap();
    let w = w.display().to_string();
    let (ok, _, err) = kern(&[
        "train",
        "--model",
        "lssvm",
        "--kernel",
        "linear",
        "--data",
        &gr,
        "--out",
        &out,
        "--weights",
        &w,
    ]);
    assert!(!ok && err.contains("--weights applies to"), "lssvm: {err}");
    assert!(!Path::new(&out).exists());
}

/// A precomputed-kernel file (`LABEL 0:SERIAL 1:K1 2:K2 ...`) restricted to the rows `rows` (`None`: all)
/// and the kernel columns `cols` (1-based training serials), renumbered `0:1, 0:2, ...`.
fn restrict(text: &str, rows: Option<&[usize]>, cols: &[usize]) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let pick: Vec<usize> = rows.map_or_else(|| (0..lines.len()).collect(), <[usize]>::to_vec);
    let mut out = String::new();
    for (r, &i) in pick.iter().enumerate() {
        let mut toks = lines[i].split_ascii_whitespace();
        let label = toks.next().unwrap();
        let vals: std::collections::HashMap<usize, &str> =
            toks.map(|t| t.split_once(':').unwrap()).map(|(k, v)| (k.parse().unwrap(), v)).collect();
        out.push_str(&format!("{label} 0:{}", r + 1));
        for (j, c) in cols.iter().enumerate() {
            out.push_str(&format!(" {}:{}", j + 1, vals.get(c).copied().unwrap_or("0")));
        }
        out.push('\n');
    }
    out
}

/// `--weights` with `--kernel precomputed`: weight 1 on every row saves the unweighted model byte for
/// byte; weight 0 on every third row trains the model of the file without those training points (the
/// kept rows and kernel columns, renumbered), so both predict byte-identical decision values on the
/// test rows (restricted to the same columns for the second model); no support vector has weight 0.
#[test]
fn precomputed_files_take_weights() {
    let d = scratch("precomputed");
    let pre = |name: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../kern-models/tests/fixtures/libsvm/precomputed")
            .join(name)
    };
    let (gr, gr_test) = (pre("gr_train.txt"), pre("gr_test.txt"));
    let (sinc, sinc_test) = (pre("sinc_train.txt"), pre("sinc_test.txt"));
    let cases: [(&str, &Path, &Path, Vec<&str>); 5] = [
        ("c-svc", &gr, &gr_test, vec!["--c", "2"]),
        ("nu-svc", &gr, &gr_test, vec!["--nu", "0.4"]),
        ("one-class", &gr, &gr_test, vec!["--nu", "0.3"]),
        ("epsilon-svr", &sinc, &sinc_test, vec!["--c", "5", "--epsilon-tube", "0.05"]),
        ("nu-svr", &sinc, &sinc_test, vec!["--c", "5", "--nu", "0.4"]),
    ];
    for (t, data, test, extra) in cases {
        let mut args = vec!["--type", t, "--kernel", "precomputed", "--format", "libsvm"];
        args.extend(&extra);
        unit_weights_change_nothing(&d, t, &args, data);
        let n = rows(data).len();
        let zeros = weight_file(&d, &format!("{t}.zeros"), n, true);
        let weighted = train(&d, &format!("{t}-zeros"), &args, data, Some(&zeros));
        // Support-vector lines of the LIBSVM model: `COEF... 0:SERIAL`; no serial of weight 0.
        let text = String::from_utf8(weighted).unwrap();
        let serials: Vec<usize> = text
            .split("\nSV\n")
            .nth(1)
            .unwrap()
            .lines()
            .map(|l| l.split_once(" 0:").unwrap().1.trim().parse().unwrap())
            .collect();
        assert!(!serials.is_empty() && serials.iter().all(|s| (s - 1) % 3 != 0), "{t}: {serials:?}");

        let kept: Vec<usize> = (0..n).filter(|i| i % 3 != 0).collect();
        let cols: Vec<usize> = kept.iter().map(|i| i + 1).collect();
        let all_cols: Vec<usize> = (1..=n).collect();
        let kept_file = d.join(format!("{t}.kept"));
        std::fs::write(&kept_file, restrict(&std::fs::read_to_string(data).unwrap(), Some(&kept), &cols))
            .unwrap();
        train(&d, &format!("{t}-kept"), &args, &kept_file, None);
        let test_text = std::fs::read_to_string(test).unwrap();
        let (full_test, kept_test) = (d.join(format!("{t}.test")), d.join(format!("{t}.kept-test")));
        std::fs::write(&full_test, restrict(&test_text, None, &all_cols)).unwrap();
        std::fs::write(&kept_test, restrict(&test_text, None, &cols)).unwrap();
        let predict = |model: &str, data: &Path| -> String {
            let out = d.join(format!("{model}.pred"));
            let m = d.join(format!("{model}.model")).display().to_string();
            let values = if t.ends_with("svr") { "label" } else { "decision" };
            let (ok, _, err) = kern(&[
                "predict",
                "--model",
                &m,
                "--data",
                &data.display().to_string(),
                "--values",
                values,
                "--out",
                &out.display().to_string(),
            ]);
            assert!(ok, "{t} {model}: {err}");
            std::fs::read_to_string(out).unwrap()
        };
        assert_eq!(
            predict(&format!("{t}-zeros"), &full_test),
            predict(&format!("{t}-kept"), &kept_test),
            "{t}: weight 0 = the point left out"
        );
    }
}
