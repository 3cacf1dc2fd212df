//! `cargo xtask`: developer tasks of the kern workspace.
//!
//! - `cargo xtask repro [--quick] [--only ID] [--out DIR] [--threads N]`: regenerate the papers'
//!   tables and figures (runs the `kern-repro` binary in release mode).
//!   The real datasets ship in the repository's `data/` (see its README); `KERN_DATA_DIR` overrides.
//! - `cargo xtask ci`: what `.ci/run` runs.

use std::process::{Command, ExitCode};

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

fn run(mut c: Command) -> ExitCode {
    eprintln!("xtask: running {c:?}");
    match c.status() {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => {
            eprintln!("xtask: {c:?} failed: {s}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("xtask: cannot run {c:?}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("repro") => {
            let mut c = cargo();
            c.args(["run", "--quiet", "--release", "--package", "kern-repro", "--bin", "kern-repro", "--"]);
            c.args(&args[1..]);
            run(c)
        }
        Some("ci") => {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
            let mut c = Command::new("bash");
            c.arg(root.join(".ci/run"));
            run(c)
        }
        _ => {
            eprintln!(
                "usage: cargo xtask repro [--quick] [--only ID] [--out DIR] [--threads N]\n       cargo xtask ci"
            );
            ExitCode::FAILURE
        }
    }
}
