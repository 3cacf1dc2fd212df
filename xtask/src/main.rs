//! `cargo xtask`: developer tasks of the kern workspace.
//!
//! - `cargo xtask repro [--quick] [--only ID] [--out DIR] [--threads N] [--no-png]`: regenerate the
//!   papers' tables and figures (runs the `kern-repro` binary in release mode).
//!   The real datasets ship in the repository's `data/` (see its README); `KERN_DATA_DIR` overrides.
//!   Every SVG figure is then also written as PNG beside it (`FIG.png`, for quick viewing) by
//!   `rsvg-convert` when that program is installed (Debian/Ubuntu: `librsvg2-bin`; macOS: `librsvg`);
//!   without it the step is skipped with a note. `--no-png` skips it. An external converter rather
//!   than a Rust rasteriser keeps the build small: `resvg` would add its font stack (and a bundled
//!   font, or the system's found at run time) to every build of the workspace for a viewing aid.
//! - `cargo xtask ci`: what `.ci/run` runs.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

fn run(mut c: Command) -> ExitCode {
    if succeeds(&mut c) { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

fn succeeds(c: &mut Command) -> bool {
    eprintln!("xtask: running {c:?}");
    match c.status() {
        Ok(s) if s.success() => true,
        Ok(s) => {
            eprintln!("xtask: {c:?} failed: {s}");
            false
        }
        Err(e) => {
            eprintln!("xtask: cannot run {c:?}: {e}");
            false
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("repro") => {
            let png = !args.iter().any(|a| a == "--no-png");
            let rest: Vec<&String> = args[1..].iter().filter(|a| *a != "--no-png").collect();
            let out = rest
                .windows(2)
                .rev()
                .find(|w| w[0] == "--out")
                .map_or_else(|| PathBuf::from("results"), |w| PathBuf::from(w[1]));
            let mut c = cargo();
            c.args(["run", "--quiet", "--release", "--package", "kern-repro", "--bin", "kern-repro", "--"]);
            c.args(rest);
            if !succeeds(&mut c) {
                return ExitCode::FAILURE;
            }
            if png { png_copies(&out) } else { ExitCode::SUCCESS }
        }
        Some("ci") => {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
            let mut c = Command::new("bash");
            c.arg(root.join(".ci/run"));
            run(c)
        }
        _ => {
            eprintln!(
                "usage: cargo xtask repro [--quick] [--only ID] [--out DIR] [--threads N] [--no-png]\n       cargo xtask ci"
            );
            ExitCode::FAILURE
        }
    }
}

/// Every `*.svg` under `dir`, sorted.
fn svgs(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for p in entries {
        if p.is_dir() {
            svgs(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "svg") {
            out.push(p);
        }
    }
    Ok(())
}

/// Writes `FIG.png` beside every `FIG.svg` under `dir` with `rsvg-convert`; a missing converter is a
/// note, not a failure (the SVGs are the figures), a failing conversion is a failure.
fn png_copies(dir: &Path) -> ExitCode {
    let found = Command::new("rsvg-convert")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        eprintln!(
            "xtask: PNG copies skipped: rsvg-convert not found (install librsvg2-bin on Debian/Ubuntu, \
             librsvg on macOS)"
        );
        return ExitCode::SUCCESS;
    }
    let mut files = Vec::new();
    if let Err(e) = svgs(dir, &mut files) {
        eprintln!("xtask: cannot list {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    for svg in &files {
        let png = svg.with_extension("png");
        let ok = Command::new("rsvg-convert")
            .args(["--background-color", "white", "--zoom", "1.5", "--output"])
            .arg(&png)
            .arg(svg)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("xtask: rsvg-convert failed on {}", svg.display());
            return ExitCode::FAILURE;
        }
    }
    eprintln!("xtask: wrote {} PNG copies of the SVG figures under {}", files.len(), dir.display());
    ExitCode::SUCCESS
}
