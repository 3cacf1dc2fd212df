//! The command's output text, as case files run by `trycmd`: every `.toml` case under `tests/cmd/`
//! (the exit code, standard output and error, and with `fs.sandbox` the files of `NAME.in/` checked
//! against `NAME.out/` afterwards). `tests/cmd/README.md` says how to add a case and how to regenerate
//! the expectations.
//!
//! `trycmd` does not see files that a run adds, so a second test replays every refused sandbox case
//! (non-zero exit) in a scratch copy of `NAME.in/` and checks that afterwards the folder holds exactly
//! the files of `NAME.out/`, byte for byte: a refused run changes, adds and removes nothing.

use crate::common::snapshot;
use std::path::{Path, PathBuf};

#[test]
fn case_files() {
    trycmd::TestCases::new()
        .register_bin("kern", std::path::Path::new(env!("CARGO_BIN_EXE_kern")))
        .case("tests/cmd/**/*.toml");
}

/// The `.toml` case files under `dir`, recursively, in name order.
fn case_paths(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() && !p.extension().is_some_and(|e| e == "in" || e == "out") {
            case_paths(&p, out);
        } else if p.extension().is_some_and(|e| e == "toml") {
            out.push(p);
        }
    }
}

#[test]
fn refused_runs_add_change_and_remove_no_file() {
    let mut cases = Vec::new();
    case_paths(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cmd"), &mut cases);
    let mut replayed = 0;
    for case in cases {
        let spec: toml_edit::DocumentMut = std::fs::read_to_string(&case).unwrap().parse().unwrap();
        let sandbox = spec.get("fs").and_then(|f| f.get("sandbox")).and_then(|s| s.as_bool()) == Some(true);
        let code = spec.get("status").and_then(|s| s.get("code")).and_then(|c| c.as_integer());
        if !sandbox || code == Some(0) {
            continue;
        }
        let args: Vec<String> = spec["args"]
            .as_array()
            .expect("args is a list")
            .iter()
            .map(|a| a.as_str().expect("args are strings").to_owned())
            .collect();
        let (input, expected) = (case.with_extension("in"), case.with_extension("out"));
        let dir = kern_testkit::scratch("refused");
        for (name, bytes) in snapshot(&input) {
            std::fs::write(dir.join(&name), bytes).unwrap();
        }
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kern"))
            .args(&args)
            .current_dir(&*dir)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{} succeeded", case.display());
        crate::common::assert_plain_words(&String::from_utf8_lossy(&out.stderr), &case.display().to_string());
        assert_eq!(snapshot(&dir), snapshot(&expected), "files after the refused run of {}", case.display());
        replayed += 1;
    }
    assert!(replayed >= 50, "only {replayed} refused sandbox cases found");
}

/// Every refused case's error text (checked against the real output by `case_files`) is plain words:
/// no Rust `Debug` formatting, no Rust paths.
#[test]
fn refusals_speak_plain_words() {
    let mut cases = Vec::new();
    case_paths(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cmd"), &mut cases);
    let mut checked = 0;
    for case in cases {
        let spec: toml_edit::DocumentMut = std::fs::read_to_string(&case).unwrap().parse().unwrap();
        let code = spec.get("status").and_then(|s| s.get("code")).and_then(|c| c.as_integer());
        if code == Some(0) || code.is_none() {
            continue;
        }
        let stderr = match spec.get("stderr").and_then(|s| s.as_str()) {
            Some(s) => s.to_owned(),
            None => std::fs::read_to_string(case.with_extension("stderr")).unwrap_or_default(),
        };
        // trycmd's `[..]` wildcard is not part of the message.
        let errors: String = stderr
            .lines()
            .filter(|l| l.starts_with("kern: error") || l.trim_start().starts_with("caused by"))
            .map(|l| l.replace("[..]", "") + "\n")
            .collect();
        crate::common::assert_plain_words(&errors, &case.display().to_string());
        checked += usize::from(!errors.is_empty());
    }
    assert!(checked >= 60, "only {checked} refused cases with an error message found");
}
