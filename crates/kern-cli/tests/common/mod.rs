//! What kern-cli's integration tests share: running the `kern` binary and reading its one-JSON-line
//! summary, and scratch directories that leave nothing behind.
//!
//! Each test file includes this module with `mod common;` (Cargo's convention for shared test code).

// Every test binary compiles this module and uses only some of its helpers.
#![allow(dead_code)]

use serde_json::Value;
use std::io::Write as _;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// A scratch directory of one test, removed with everything in it when dropped (also when the test
/// fails). It derefs to its [`Path`].
pub struct Scratch(PathBuf);

impl Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A new, empty scratch directory named after `name`, the test binary's process and a counter, so
/// that tests running in parallel (or one test asking twice) never share one.
pub fn scratch(name: &str) -> Scratch {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let crate_name = env!("CARGO_CRATE_NAME");
    let d = std::env::temp_dir().join(format!("kern-cli-{crate_name}-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch directory created");
    Scratch(d)
}

/// Writes `content` to the file `name` in `dir` and returns its path.
pub fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).expect("file written");
    p
}

/// A path as the `&str` an argument list takes.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}
