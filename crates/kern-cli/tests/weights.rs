//! `kern train --weights FILE`: weight 1 on every row saves the unweighted model byte for byte, weight
//! 0 saves the model of the data without those rows, and bad weight files are refused.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn kern(args: &[&str]) -> (bool, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kern")).args(args).output().expect("kern runs");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let json = stdout.lines().last().and_then(|l| serde_json::from_str(l).ok()).unwrap_or(Value::Null);
    (out.status.success(), json, String::from_utf8_lossy(&out.stderr).to_string())
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../kern-models/tests/fixtures/libsvm/nu").join(name)
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("kern-cli-weights-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Trains with `args` on `data` (optionally `--weights`) and returns the saved model's bytes.
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

#[test]
fn unit_weights_and_zero_weights() {
    let d = dir();
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
        let text = std::fs::read_to_string(data).unwrap();
        let rows: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let ones = d.join(format!("{tag}.ones"));
        std::fs::write(&ones, "1\n".repeat(rows.len())).unwrap();
        let plain = train(&d, &format!("{tag}-plain"), &args, data, None);
        assert_eq!(train(&d, &format!("{tag}-ones"), &args, data, Some(&ones)), plain, "{tag}: weight 1");
        if tag == "krr" {
            continue; // kernel ridge keeps zero-weight rows (their coefficient is 0)
        }
        // Weight 0 on every third row = those rows left out of the data file.
        let w: String = (0..rows.len()).map(|i| if i % 3 == 0 { "0\n" } else { "1\n" }).collect();
        let zeros = d.join(format!("{tag}.zeros"));
        std::fs::write(&zeros, w).unwrap();
        let kept: String =
            rows.iter().enumerate().filter(|(i, _)| i % 3 != 0).map(|(_, r)| format!("{r}\n")).collect();
        let kept_file = d.join(format!("{tag}.kept"));
        std::fs::write(&kept_file, kept).unwrap();
        assert_eq!(
            train(&d, &format!("{tag}-zeros"), &args, data, Some(&zeros)),
            train(&d, &format!("{tag}-kept"), &args, &kept_file, None),
            "{tag}: weight 0"
        );
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bad_weight_files_are_refused() {
    let d = dir().join("bad");
    std::fs::create_dir_all(&d).unwrap();
    let gr = fixture("gr_train.txt").display().to_string();
    let n = std::fs::read_to_string(&gr).unwrap().lines().filter(|l| !l.trim().is_empty()).count();
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
    std::fs::remove_dir_all(&d).unwrap();
}
