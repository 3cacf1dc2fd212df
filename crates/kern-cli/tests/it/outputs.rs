//! Every output of `kern` is safe: an output that is one of the command's inputs is refused before
//! anything is written (every input and output pair of every command that writes a file); a
//! write-protected output is refused unless `--force`, which replaces it and keeps its mode; an output
//! named `/dev/stdout` is written through standard output, so the JSON summary follows it intact; a
//! reader of standard output that went away ends `kern` quietly (killed by SIGPIPE, as other tools
//! are); a closed standard output is an error; error messages name each cause once, in plain words.

use crate::common::{assert_plain_words, kern_command, output, s, scratch, snapshot, succeeds, write};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// Twenty rows of a two-class problem in two dimensions.
fn data() -> String {
    (0..20)
        .map(|i| {
            let (label, shift) = if i % 2 == 0 { ("1", 1.0) } else { ("-1", 0.0) };
            format!("{label} 1:{:.3} 2:{:.3}\n", shift + (i % 5) as f64 / 10.0, (i % 3) as f64 / 7.0)
        })
        .collect()
}

/// Runs `kern args` expecting a refusal (exit code 1, a plain `kern: error:` line containing
/// `needle`, no panic) that changed no file in `dir`.
fn refused(dir: &Path, args: &[&str], needle: &str) {
    let before = snapshot(dir);
    let out = output(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: status {:?}, stderr:\n{stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{args:?}:\n{stderr}");
    assert!(stderr.contains("kern: error:"), "{args:?}:\n{stderr}");
    assert!(stderr.contains(needle), "{args:?}: no {needle:?} in:\n{stderr}");
    assert_plain_words(&stderr, &format!("{args:?}"));
    assert_eq!(snapshot(dir), before, "files changed by the refused {args:?}");
}

/// A folder with `x.svm` and a linear SVC trained on it, `m.kern`.
fn trained(name: &str) -> (kern_testkit::Scratch, PathBuf, PathBuf) {
    let d = scratch(name);
    let x = write(&d, "x.svm", data());
    let m = d.join("m.kern");
    succeeds(&[
        "train",
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--data",
        s(&x),
        "--out",
        s(&m),
        "--threads",
        "1",
    ]);
    (d, x, m)
}

// ---------------------------------------------------------------- an output that is an input

#[test]
fn scale_out_equal_to_data_is_refused() {
    let d = scratch("outputs-scale-out-data");
    let x = write(&d, "x.svm", data());
    refused(&d, &["scale", "--data", s(&x), "--out", s(&x)], "refusing to write");
}

#[test]
fn scale_save_equal_to_data_is_refused() {
    let d = scratch("outputs-scale-save-data");
    let x = write(&d, "x.svm", data());
    refused(&d, &["scale", "--data", s(&x), "-s", s(&x), "--out", s(&d.join("y.svm"))], "refusing to write");
}

#[test]
fn scale_out_equal_to_restored_parameters_is_refused() {
    let d = scratch("outputs-scale-restore-out");
    let x = write(&d, "x.svm", data());
    let p = d.join("p.txt");
    succeeds(&["scale", "--data", s(&x), "-s", s(&p), "--out", s(&d.join("y.svm"))]);
    std::fs::remove_file(d.join("y.svm")).unwrap();
    refused(&d, &["scale", "--data", s(&x), "-r", s(&p), "--out", s(&p)], "refusing to write");
}

#[test]
fn scale_save_equal_to_out_is_refused() {
    let d = scratch("outputs-scale-save-out");
    let x = write(&d, "x.svm", data());
    let y = d.join("y.svm");
    // Neither exists yet: the same name in the same folder, spelled two ways.
    let other_spelling = d.join(".").join("y.svm");
    refused(&d, &["scale", "--data", s(&x), "-s", s(&y), "--out", s(&other_spelling)], "both name");
}

#[test]
fn export_out_equal_to_model_is_refused() {
    let (d, _, m) = trained("outputs-export-model");
    refused(&d, &["export", "--libsvm", s(&m), s(&m)], "refusing to write");
}

#[test]
fn train_out_equal_to_weights_is_refused() {
    let d = scratch("outputs-train-weights");
    let x = write(&d, "x.svm", data());
    let w = write(&d, "w.txt", "1\n".repeat(20));
    let args = [
        "train",
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--data",
        s(&x),
        "--weights",
        s(&w),
        "--out",
        s(&w),
    ];
    refused(&d, &args, "refusing to write");
}

#[test]
fn train_out_equal_to_scale_file_is_refused() {
    let d = scratch("outputs-train-scale-file");
    let x = write(&d, "x.svm", data());
    let p = d.join("p.txt");
    succeeds(&["scale", "--data", s(&x), "-s", s(&p), "--out", "/dev/null"]);
    let args = [
        "train",
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--data",
        s(&x),
        "--scale-file",
        s(&p),
        "--out",
        s(&p),
    ];
    refused(&d, &args, "refusing to write");
}

#[cfg(unix)]
#[test]
fn train_out_hard_linked_to_data_is_refused() {
    let d = scratch("outputs-train-hard-link");
    let x = write(&d, "x.svm", data());
    let link = d.join("link.kern");
    std::fs::hard_link(&x, &link).unwrap();
    refused(
        &d,
        &["train", "--model", "svc", "--kernel", "linear", "--data", s(&x), "--out", s(&link)],
        "refusing",
    );
}

#[test]
fn kpca_out_equal_to_save_is_refused() {
    let d = scratch("outputs-kpca-out-save");
    let x = write(&d, "x.svm", data());
    let k = d.join("k.out");
    let args = ["kpca", "--data", s(&x), "--kernel", "gaussian:sigma=1", "--out", s(&k), "--save", s(&k)];
    refused(&d, &args, "both name");
}

#[test]
fn kpca_out_or_save_equal_to_data_is_refused() {
    let d = scratch("outputs-kpca-data");
    let x = write(&d, "x.svm", data());
    let k = d.join("k.kern");
    refused(
        &d,
        &["kpca", "--data", s(&x), "--kernel", "gaussian:sigma=1", "--out", s(&x)],
        "refusing to write",
    );
    let args = ["kpca", "--data", s(&x), "--kernel", "gaussian:sigma=1", "--save", s(&x), "--out", s(&k)];
    refused(&d, &args, "refusing to write");
}

// ---------------------------------------------------------------- write-protected outputs

#[cfg(unix)]
#[test]
fn a_write_protected_output_is_replaced_only_with_force_and_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch("outputs-force");
    let x = write(&d, "x.svm", data());
    let y = write(&d, "y.svm", "old\n");
    std::fs::set_permissions(&y, std::fs::Permissions::from_mode(0o444)).unwrap();
    refused(&d, &["scale", "--data", s(&x), "--out", s(&y)], "--force");
    assert_eq!(std::fs::read(&y).unwrap(), b"old\n");
    let j = succeeds(&["scale", "--force", "--data", s(&x), "--out", s(&y)]);
    assert_eq!(j["n"], 20);
    let scaled = std::fs::read_to_string(&y).unwrap();
    assert_eq!(scaled.lines().count(), 20, "{scaled}");
    assert_eq!(std::fs::metadata(&y).unwrap().permissions().mode() & 0o777, 0o444);
    // The flag is global: it may come before the subcommand too.
    succeeds(&["--force", "scale", "--data", s(&x), "--out", s(&y)]);
}

// ---------------------------------------------------------------- standard output

/// Runs `kern args` with standard output redirected to the file `out` (as a shell's `> out`).
fn to_file(args: &[&str], out: &Path) -> Output {
    let file = std::fs::File::create(out).unwrap();
    kern_command().args(args).stdin(Stdio::null()).stdout(file).stderr(Stdio::piped()).output().unwrap()
}

#[cfg(unix)]
#[test]
fn predictions_to_dev_stdout_redirected_to_a_file_are_the_data_alone() {
    let (d, x, m) = trained("outputs-dev-stdout-predict");
    let f = d.join("stdout.txt");
    let out = to_file(&["predict", "--model", s(&m), "--data", s(&x), "--out", "/dev/stdout"], &f);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&f).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 20, "{text}");
    for l in &lines {
        assert!(*l == "1" || *l == "-1", "a prediction line {l:?} in:\n{text}");
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let json: serde_json::Value =
        serde_json::from_str(err.lines().last().unwrap()).expect("the summary line is JSON");
    assert_eq!(json["n"], 20, "{json}");
}

#[cfg(unix)]
#[test]
fn a_model_to_dev_stdout_redirected_to_a_file_still_loads() {
    let (d, x, m) = trained("outputs-dev-stdout-model");
    let f = d.join("stdout.bin");
    let args = [
        "train",
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--data",
        s(&x),
        "--out",
        "/dev/stdout",
        "--threads",
        "1",
    ];
    let out = to_file(&args, &f);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let both = std::fs::read(&f).unwrap();
    let model = std::fs::read(&m).unwrap();
    assert_eq!(both, model, "the model bytes alone");
    let err = String::from_utf8_lossy(&out.stderr);
    let summary = err.lines().last().unwrap().to_string();
    let json: serde_json::Value = serde_json::from_str(summary.trim_end()).expect("the summary is JSON");
    assert_eq!(json["model"], "svc", "{json}");
    let stripped = write(&d, "stripped.kern", &both[..model.len()]);
    let j = succeeds(&["predict", "--model", s(&stripped), "--data", s(&x), "--out", s(&d.join("p.txt"))]);
    assert_eq!(j["n"], 20, "{j}");
}

/// Runs `kern args` with its standard output a pipe whose reading end is already closed.
#[cfg(unix)]
fn into_a_closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    kern_command().args(args).stdin(Stdio::null()).stdout(writer).stderr(Stdio::piped()).output().unwrap()
}

#[cfg(unix)]
#[test]
fn a_reader_that_went_away_ends_kern_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let (d, x, m) = trained("outputs-broken-pipe");
    let runs: [Vec<&str>; 3] = [
        vec!["export", "--libsvm", s(&m), "-"],
        vec!["scale", "--data", s(&x), "--out", "-"],
        vec!["info", "--data", s(&x)],
    ];
    for args in runs {
        let out = into_a_closed_pipe(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert_eq!(
            out.status.signal(),
            Some(13),
            "{args:?}: not ended by SIGPIPE: {:?}\n{stderr}",
            out.status
        );
        assert!(!stderr.contains("kern: error"), "{args:?}:\n{stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}:\n{stderr}");
    }
    assert!(d.join("m.kern").exists());
}

#[cfg(unix)]
#[test]
fn a_real_pipe_into_head_ends_without_an_error_message() {
    let (_d, _x, m) = trained("outputs-head");
    // The shell reports kern's status through a file (sh has no PIPESTATUS).
    let script = r#""$0" export --libsvm "$1" - 2>err.txt | head -c 1 >/dev/null; cat err.txt"#;
    let out = std::process::Command::new("sh")
        .current_dir(m.parent().unwrap())
        .args(["-c", script, env!("CARGO_BIN_EXE_kern"), s(&m)])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stdout);
    assert!(!stderr.contains("kern: error"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn a_closed_standard_output_is_an_error() {
    let (_d, x, m) = trained("outputs-closed-stdout");
    let runs: [Vec<&str>; 3] = [
        vec!["info", "--data", s(&x)],
        vec!["export", "--libsvm", s(&m), "-"],
        vec!["predict", "--model", s(&m), "--data", s(&x), "--out", "/dev/stdout"],
    ];
    for args in runs {
        let out = std::process::Command::new("sh")
            .args(["-c", r#"exec "$0" "$@" >&-"#, env!("CARGO_BIN_EXE_kern")])
            .args(&args)
            .stdout(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {:?}\n{stderr}", out.status);
        assert!(stderr.contains("kern: error: standard output is closed"), "{args:?}:\n{stderr}");
        assert_plain_words(&stderr, &format!("{args:?}"));
    }
}

// ---------------------------------------------------------------- names and messages

#[test]
fn a_250_byte_output_name_works() {
    let (d, x, _) = trained("outputs-long-name");
    let name = format!("{}.kern", "m".repeat(245));
    assert_eq!(name.len(), 250);
    let long = d.join(&name);
    succeeds(&["train", "--model", "svc", "--kernel", "linear", "--data", s(&x), "--out", s(&long)]);
    succeeds(&["train", "--model", "svc", "--kernel", "linear", "--data", s(&x), "--out", s(&long)]);
    let j = succeeds(&["predict", "--model", s(&long), "--data", s(&x), "--out", s(&d.join("p.txt"))]);
    assert_eq!(j["n"], 20, "{j}");
    let names: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains(".tmp")), "a temporary file was left: {names:?}");
}

#[test]
fn a_missing_file_is_named_once_in_plain_words() {
    let d = scratch("outputs-missing");
    let missing = d.join("nope.svm");
    let out = output(&["info", "--data", s(&missing)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    let errors: Vec<&str> =
        stderr.lines().filter(|l| l.starts_with("kern: error") || l.contains("caused by")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("nope.svm") && errors[0].contains("No such file or directory"), "{stderr}");
    assert!(!stderr.contains("os error"), "{stderr}");
}
