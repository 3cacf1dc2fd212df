//! The `kern` command: kern's capabilities on LIBSVM/svmlight and CSV files.
//!
//! Every subcommand reads `--data PATH` (LIBSVM by default, CSV when the name ends in `.csv` or
//! `.csv.gz`), writes progress to stderr and prints exactly one JSON object on the last line of stdout,
//! always with `"seconds"` (wall time of the work, excluding file reading). Errors go to stderr with a
//! non-zero exit code. See `docs/architecture.md` for the contract and the kernel spec syntax.

mod commands;
mod common;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Kernel methods on LIBSVM and CSV files; one JSON summary line per run.
#[derive(Parser)]
#[command(name = "kern", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Describe a data file: n, d, label counts, feature ranges.
    Info(commands::info::Args),
    /// Compute a dense Gram matrix and report its speed.
    Gram(commands::gram::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(a) => commands::info::run(a),
        Command::Gram(a) => commands::gram::run(a),
    };
    match result {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("kern: error: {e}");
            let mut source = e.source();
            while let Some(s) = source {
                eprintln!("  caused by: {s}");
                source = s.source();
            }
            ExitCode::FAILURE
        }
    }
}
