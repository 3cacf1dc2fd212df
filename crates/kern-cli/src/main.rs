//! The `kern` command: kern's capabilities on LIBSVM/svmlight and CSV files.
//!
//! Every subcommand reads `--data PATH` (LIBSVM by default, CSV when the name ends in `.csv` or
//! `.csv.gz`; `kern train`, `predict`, `scale`, `cv` and `info` also take it by position, with
//! svm-train's, svm-predict's and svm-scale's options: [`libsvm_argv`]), writes progress to stderr and
//! prints exactly one JSON object on the last line of stdout, always with `"seconds"` (wall time of
//! the work, excluding file reading); on stderr instead when stdout carries the command's data
//! (`--out -`). Errors go to stderr with a
//! non-zero exit code; when the program reading stdout goes away (`kern ... | head -1`), `kern` ends
//! quietly, killed by SIGPIPE as other command-line tools are. The kernel spec syntax is printed by `kern help kernels`.

// The argument docs are clap's `--help` text, where `[:SEED]` is literal syntax, not a link.
#![allow(rustdoc::broken_intra_doc_links)]

mod commands;
mod data;
mod families;
mod libsvm_argv;
mod metrics;
mod output;
mod progress;
mod report;
mod resources;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

/// Kernel methods on LIBSVM and CSV files; one JSON summary line per run.
// `kern -h` and `kern --help` print the same short help (the commands and the common flags); `kern
// help` prints every flag. clap's own help flag is turned off here, which turns it off in every
// subcommand too: `command()` gives them theirs back.
#[derive(Parser)]
#[command(name = "kern", version, about, long_about = None, disable_help_flag = true)]
struct Cli {
    /// Print help (every option: kern help)
    #[arg(short = 'h', long = "help", action = clap::ArgAction::HelpShort)]
    help: Option<bool>,
    /// Memory budget, e.g. 4G or 512M (default: the cgroup limit or the available memory).
    ///
    /// Larger allocations are refused with an error saying what to do instead. Default: the cgroup
    /// limit or the available memory, whichever is smaller.
    #[arg(long, global = true, value_name = "SIZE", help_heading = "Output", hide_short_help = true)]
    max_memory: Option<String>,
    /// Draw progress bars on stderr even when it is not a terminal (they are drawn on a terminal
    /// anyway).
    #[arg(long, global = true, help_heading = "Output", hide_short_help = true)]
    progress: bool,
    /// No progress bars.
    #[arg(long, short = 'q', global = true, help_heading = "Output")]
    quiet: bool,
    /// Replace write-protected output files (refused otherwise); the replaced file keeps its mode.
    #[arg(long, global = true, help_heading = "Output", hide_short_help = true)]
    force: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Describe a data file: n, d, label counts, feature ranges.
    Info(commands::info::Args),
    /// Compute a dense Gram matrix and report its speed.
    Gram(commands::gram::Args),
    /// Sparse Gram matrix of a compactly supported kernel: sparsity, ordering, bandwidth, sparse Cholesky.
    Sparse(commands::sparse::Args),
    /// Feature vector selection: selected samples and fitness.
    Fvs(commands::fvs::Args),
    /// Train a model (svc, svr, ...) and save it.
    #[command(
        after_help = "LIBSVM's way: kern train [svm-train options -s -t -d -g -r -c -n -p -m -e -h -b -wi -v -q] DATA \
                            [MODEL]; MODEL defaults to DATA.model."
    )]
    Train(Box<commands::train::Args>),
    /// Apply a saved model to a data file.
    #[command(
        after_help = "LIBSVM's way: kern predict [-b 0|1] [-q] TEST MODEL OUTPUT (svm-predict's options)."
    )]
    Predict(commands::predict::Args),
    /// Cross-validated grid search of a model's parameters.
    Cv(Box<commands::cv::Args>),
    /// Choose hyperparameters before training: Gaussian bandwidth, compact-support radius.
    Tune(commands::tune::Args),
    /// Kernel PCA: eigenvalues, explained variance, training scores (dense or sparse).
    Kpca(commands::kpca::Args),
    /// Write a trained svc/svr model as a LIBSVM model file (for LIBSVM's svm-predict and bindings).
    Export(commands::export::Args),
    /// Scale features onto [lower, upper] as LIBSVM's svm-scale does (-l -u -y -s -r).
    #[command(
        after_help = "LIBSVM's way: kern scale [-l L] [-u U] [-y YL YU] [-s FILE | -r FILE] DATA > OUT."
    )]
    Scale(commands::scale::Args),
    /// The kernel spec grammar (also: kern help kernels).
    #[command(long_about = commands::kernels::GRAMMAR)]
    Kernels(commands::kernels::Args),
}

impl Command {
    /// What the command is doing, for its spinner.
    fn activity(&self) -> &'static str {
        match self {
            Command::Info(_) => "reading the data",
            Command::Gram(_) => "computing the kernel matrix",
            Command::Sparse(_) => "building the sparse kernel matrix",
            Command::Fvs(_) => "selecting feature vectors",
            Command::Train(_) => "training",
            Command::Predict(_) => "predicting",
            Command::Cv(_) => "cross-validating",
            Command::Tune(_) => "tuning",
            Command::Kpca(_) => "kernel PCA",
            Command::Export(_) => "exporting the model",
            Command::Scale(_) => "scaling",
            Command::Kernels(_) => "",
        }
    }
}

/// The command line: [`Cli`], with clap's `-h, --help` in every subcommand (short help for `-h`, long
/// help for `--help`), as clap adds it when the top level keeps it.
fn command() -> clap::Command {
    /// Adds the help flag to every subcommand of `cmd`, recursively. Every subcommand has a long help
    /// (the global flags hidden from the short help are in it), hence clap's two texts.
    fn restore_help(cmd: clap::Command) -> clap::Command {
        cmd.mut_subcommands(|sc| {
            restore_help(sc).arg(
                clap::Arg::new("help")
                    .short('h')
                    .long("help")
                    .action(clap::ArgAction::Help)
                    .help_heading(None)
                    .help("Print help (see more with '--help')")
                    .long_help("Print help (see a summary with '-h')"),
            )
        })
    }
    restore_help(Cli::command())
}

/// Version of the JSON summary's layout, the `"schema"` field of every summary.
const SCHEMA: u32 = 1;

fn main() -> ExitCode {
    kern_core::parallel::prepare_dense();
    // LIBSVM's options and positional files, rewritten into kern's flags.
    let argv = match libsvm_argv::rewrite(std::env::args_os().collect()) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("kern: error: {e}");
            return ExitCode::from(2);
        }
    };
    let cli = match Cli::from_arg_matches(&command().get_matches_from(argv)) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    if let Some(m) = &cli.max_memory {
        match kern_core::memory::parse_size(m) {
            Ok(bytes) => kern_core::memory::set_limit(Some(bytes)),
            Err(e) => {
                return report::failure(&format!("--max-memory {m:?}: {e}").into());
            }
        }
    }
    output::set_force(cli.force);
    progress::install(progress::Mode::from_flags(cli.progress, cli.quiet));
    kern_core::parallel::fix_faer_global();
    // Work that draws no progress of its own gets a spinner with the elapsed time (shown under the
    // same rule as every bar: stderr a terminal or --progress, never --quiet); it is cleared before
    // the summary or an error is printed.
    let spinner = match &cli.command {
        Command::Cv(_) | Command::Tune(_) | Command::Kernels(_) => None,
        // `kern train` starts its own spinner once it knows the model (the SVM solvers draw progress).
        Command::Train(_) => None,
        c => Some(progress::Spinner::start(c.activity())),
    };
    let result = match cli.command {
        Command::Info(a) => commands::info::run(a),
        Command::Gram(a) => commands::gram::run(a),
        Command::Sparse(a) => commands::sparse::run(a),
        Command::Fvs(a) => commands::fvs::run(a),
        Command::Train(a) => commands::train::run(*a),
        Command::Predict(a) => commands::predict::run(a),
        Command::Cv(a) => commands::cv::run(*a),
        Command::Tune(a) => commands::tune::run(a),
        Command::Kpca(a) => commands::kpca::run(a),
        Command::Export(a) => commands::export::run(a),
        Command::Scale(a) => commands::scale::run(a),
        Command::Kernels(a) => commands::kernels::run(a),
    };
    drop(spinner);
    match result {
        Ok(mut json) => {
            if let Some(obj) = json.as_object_mut() {
                obj.insert("schema".into(), SCHEMA.into());
            }
            report::summary(&json)
        }
        Err(e) => report::failure(&e),
    }
}
