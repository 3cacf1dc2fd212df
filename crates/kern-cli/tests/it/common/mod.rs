//! What kern-cli's integration tests share: running the `kern` binary and reading its one-JSON-line
//! summary, and scratch directories that leave nothing behind.
//!
//! The test binary's `main.rs` declares it; each topic module uses `crate::common`.

pub use kern_testkit::{scratch, write};

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The `kern` binary of this build, as a command to add arguments to.
pub fn kern_command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kern"))
}

/// Runs `kern args` with `stdin` piped to its standard input (or none: standard input at end of
/// file), capturing standard output and error.
pub fn output_with(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = kern_command()
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kern runs");
    if let Some(bytes) = stdin {
        child.stdin.take().expect("piped standard input").write_all(bytes).expect("standard input written");
    }
    child.wait_with_output().expect("kern ends")
}

/// Runs `kern args` without standard input, capturing standard output and error.
pub fn output(args: &[&str]) -> Output {
    output_with(args, None)
}

/// Runs `kern args` with `stdin` (or none) and returns whether it succeeded, the JSON value of the
/// last line of standard output (`Null` if that is not JSON), standard output and standard error.
pub fn kern_io(args: &[&str], stdin: Option<&[u8]>) -> (bool, Value, String, String) {
    let out = output_with(args, stdin);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = stdout.lines().last().and_then(|l| serde_json::from_str(l).ok()).unwrap_or(Value::Null);
    (out.status.success(), json, stdout, stderr)
}

/// Runs `kern args` and returns whether it succeeded, the JSON value of the last line of standard
/// output (`Null` if that is not JSON) and standard error.
pub fn kern(args: &[&str]) -> (bool, Value, String) {
    let (ok, json, _, stderr) = kern_io(args, None);
    (ok, json, stderr)
}

/// Runs `kern args`, asserts that it succeeded and that the last line of its standard output is JSON,
/// and returns that JSON.
pub fn succeeds(args: &[&str]) -> Value {
    let (ok, _, stdout, stderr) = kern_io(args, None);
    assert!(ok, "{args:?} failed:\n{stderr}");
    serde_json::from_str(stdout.trim().lines().last().expect("a JSON line")).expect("JSON")
}

/// A path as the `&str` an argument list takes.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// Every entry of the folder `dir` (name → bytes), symlinks as their target text and anything but a
/// file or a symlink as `<special>`; empty when `dir` does not exist. What a refused run must leave
/// unchanged.
pub fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return m };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        let ft = std::fs::symlink_metadata(&p).unwrap().file_type();
        if ft.is_symlink() {
            m.insert(name, format!("-> {}", std::fs::read_link(&p).unwrap().display()).into_bytes());
        } else if ft.is_file() {
            m.insert(name, std::fs::read(&p).unwrap());
        } else {
            m.insert(name, b"<special>".to_vec());
        }
    }
    m
}

/// Asserts that an error output speaks plain words: no Rust `Debug` formatting of structs, enums or
/// options (`Name { field: .. }`, `Some(..)`, `None`, `Ok(..)`, `Err(..)`), no Rust paths (`a::b`),
/// no source locations (`src/...rs:LINE`).
pub fn assert_plain_words(stderr: &str, what: &str) {
    const DEBUG_MARKS: [&str; 8] = ["{", "}", "::", "Some(", "None", "Ok(", "Err(", ".rs:"];
    for line in stderr.lines() {
        if let Some(mark) = DEBUG_MARKS.iter().find(|m| line.contains(*m)) {
            panic!("{what}: the message shows {mark:?}, Rust formatting rather than words:\n{line}");
        }
    }
}
