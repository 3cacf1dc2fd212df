//! `kern tune`: hyperparameters chosen before training.
//!
//! - `kern tune bandwidth --data F --method mean-to-half|max-variance|ahn|median|scale
//!   [--subsample M --repeats R --seed S]`: the Gaussian β (and σ = 1/√β for `gaussian:sigma=σ`).
//! - `kern tune support --data F --base gaussian:sigma=S --nu 3 (--gamma G | --min-alignment MU |
//!   --min-sparsity TAU)`: the support radius C of `cs-<base>` by the CS-RBF alignment–sparsity
//!   procedures (eqs. 8–10).
//!
//! Both read sample coordinates: a precomputed kernel matrix (LIBSVM's `0:serial` rows) is refused
//! with the reason (neither a bandwidth nor a support radius can be chosen from kernel values).

use crate::data::{DataArgs, is_std, parse_kernel};
use crate::families::svm::precomputed::is_precomputed;
use crate::output::{CliError, CliResult, add_storage};
use crate::resources::with_threads;
use kern_core::{CompactlySupported, Kernel, KernelSpec};
use kern_tune::bandwidth::{BandwidthOptions, Method, Solver, select_bandwidth, subsample_study};
use kern_tune::grid::ParamGrid;
use kern_tune::pairs::PairSampling;
use kern_tune::support::{Diagonal, Procedure, Search, SupportOptions, SupportProfile, default_c_grid};
use serde_json::json;
use std::time::Instant;

/// Arguments of `kern tune`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: TuneCommand,
}

#[derive(clap::Subcommand, Debug)]
enum TuneCommand {
    /// Gaussian bandwidth by a heuristic: mean-to-half, max-variance, ahn, median, scale.
    /// Needs sample coordinates: a precomputed kernel file (LIBSVM 0:serial rows) is refused.
    Bandwidth(BandwidthArgs),
    /// Support radius C of a compactly supported kernel by alignment and sparsity. Needs sample
    /// coordinates: a precomputed kernel file (LIBSVM 0:serial rows) is refused.
    Support(SupportArgs),
}

/// Refuses a precomputed-kernel file (LIBSVM `-t 4` rows `LABEL 0:SERIAL 1:K1 …`): what `kern tune`
/// chooses is a parameter of a kernel evaluated on sample coordinates, which such a file does not hold.
fn refuse_precomputed(data: &DataArgs, what: &str) -> Result<(), CliError> {
    use std::io::BufRead;
    let path = &data.data;
    let name = path.display().to_string();
    if is_std(path) || name.ends_with(".gz") || name.ends_with(".csv") {
        return Ok(());
    }
    let Ok(f) = std::fs::File::open(path) else { return Ok(()) }; // the reader reports it
    for line in std::io::BufReader::new(f).lines().map_while(Result::ok) {
        let line = line.split('#').next().unwrap_or("").to_string();
        let mut toks = line.split_ascii_whitespace();
        if toks.next().is_none() {
            continue;
        }
        if toks.next().is_some_and(|t| t.starts_with("0:")) {
            return Err(format!(
                "{name} holds a precomputed kernel matrix (rows LABEL 0:SERIAL 1:K1 ...), not samples: {what} \
                 is chosen from the distances between sample coordinates, which kernel values do not give \
                 back; run it on the samples the matrix was computed from"
            )
            .into());
        }
        break;
    }
    Ok(())
}

/// Arguments of `kern tune bandwidth`.
#[derive(clap::Args, Debug)]
struct BandwidthArgs {
    #[command(flatten)]
    data: DataArgs,
    /// Heuristic: mean-to-half, max-variance, ahn (needs labels), median, scale.
    #[arg(long)]
    method: String,
    /// Robustness study: draw M points (without replacement) per repeat and report every beta.
    #[arg(long)]
    subsample: Option<usize>,
    /// Number of subsamples with --subsample.
    #[arg(long, default_value_t = 1)]
    repeats: usize,
    /// Seed of every random draw.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Without --subsample: beyond this many points use the pairs of a seeded subsample of this size.
    #[arg(long, default_value_t = 5000)]
    max_points: usize,
    /// Root finder: newton (safeguarded) or bisection.
    #[arg(long, default_value = "newton")]
    solver: String,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// Arguments of `kern tune support`.
#[derive(clap::Args, Debug)]
struct SupportArgs {
    #[command(flatten)]
    data: DataArgs,
    /// The radial base kernel, e.g. gaussian:sigma=0.6.
    #[arg(long)]
    base: String,
    /// Exponent nu of the taper ((1 - r/C)+)^nu.
    #[arg(long, default_value_t = 3.0)]
    nu: f64,
    /// Maximise A(C) + gamma S(C).
    #[arg(long, conflicts_with_all = ["min_alignment", "min_sparsity"])]
    gamma: Option<f64>,
    /// Maximise S(C) subject to A(C) >= MU.
    #[arg(long, conflicts_with = "min_sparsity")]
    min_alignment: Option<f64>,
    /// Maximise A(C) subject to S(C) >= TAU.
    #[arg(long)]
    min_sparsity: Option<f64>,
    /// C values searched, in the grid syntax (2^A..2^B:N, 10^A..10^B:N, LO..HI:N, [V,...]); default
    /// 2^-5..2^5:101 (default range).
    #[arg(long, conflicts_with = "exact")]
    c_grid: Option<String>,
    /// Search every distinct pair distance instead of a grid (exact optimum; integer nu).
    #[arg(long)]
    exact: bool,
    /// Count the diagonal of the Gram matrices (eqs. 3 and 7 literally) instead of off-diagonal pairs.
    #[arg(long)]
    include_diagonal: bool,
    /// Estimate from this many seeded random pairs instead of all pairs.
    #[arg(long, conflicts_with = "subsample")]
    random_pairs: Option<usize>,
    /// Estimate from all pairs of a seeded subsample of this many points.
    #[arg(long)]
    subsample: Option<usize>,
    /// Seed of the random pairs or subsample.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Include the searched curve (c, alignment, sparsity) in the JSON.
    #[arg(long)]
    curve: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// Runs `kern tune`.
pub fn run(a: Args) -> CliResult {
    match a.command {
        TuneCommand::Bandwidth(b) => bandwidth(b),
        TuneCommand::Support(s) => support(s),
    }
}

fn bandwidth(a: BandwidthArgs) -> CliResult {
    let method: Method = a.method.parse()?;
    let solver = match a.solver.as_str() {
        "newton" => Solver::Newton,
        "bisection" => Solver::Bisection,
        other => return Err(format!("unknown --solver {other:?}; valid: newton, bisection").into()),
    };
    refuse_precomputed(&a.data, "the Gaussian bandwidth")?;
    let (ds, stored) = a.data.load_sparse()?;
    let labels: Option<Vec<usize>> =
        if method == Method::Ahn { Some(ds.classes()?.classes().to_vec()) } else { None };
    let opts = BandwidthOptions {
        sampling: PairSampling::Auto { max_points: a.max_points, seed: a.seed },
        solver,
        ..Default::default()
    };
    let x = &ds.samples;
    let t = Instant::now();
    let mut out = match a.subsample {
        None => {
            let _spin = crate::progress::Spinner::start("selecting the bandwidth");
            let b = with_threads(a.threads, || select_bandwidth(x, labels.as_deref(), method, &opts))??;
            let seconds = t.elapsed().as_secs_f64();
            json!({
                "n": x.n(), "d": x.d(),
                "method": method.name(),
                "beta": b.beta, "sigma": b.sigma,
                "criterion": b.criterion, "derivative": b.derivative,
                "iterations": b.iterations, "pairs": b.pairs, "sampling": b.sampling,
                "seconds": seconds,
            })
        }
        Some(m) => {
            let _spin = crate::progress::Spinner::start("bandwidths of the subsamples");
            let s = with_threads(a.threads, || {
                subsample_study(x, labels.as_deref(), method, m, a.repeats, a.seed, &opts)
            })??;
            let seconds = t.elapsed().as_secs_f64();
            json!({
                "n": x.n(), "d": x.d(),
                "method": method.name(),
                "beta": s.mean, "sigma": 1.0 / s.mean.sqrt(),
                "betas": s.betas, "beta_mean": s.mean, "beta_variance": s.variance, "beta_rel_std": s.rel_std,
                "subsample": m, "repeats": a.repeats, "seed": a.seed,
                "sampling": format!("{} seeded subsamples of {m} of {} points (seed {}), all pairs of each", a.repeats, x.n(), a.seed),
                "seconds": seconds,
            })
        }
    };
    add_storage(&mut out, Some(stored));
    Ok(out)
}

/// The spec string of the chosen compactly supported kernel (the base kernel itself when C = ∞).
fn kernel_spec(base: &KernelSpec, c: f64, nu: f64, d: usize) -> String {
    if !c.is_finite() {
        return base.to_string();
    }
    match CompactlySupported::new(base.clone(), c, nu) {
        Ok(k) => {
            // Keep the user's nu even when it is below (d+1)/2, as the paper does at d = 256.
            let k = if k.check_dim(d).is_err() { k.allow_any_nu() } else { k };
            KernelSpec::Compact(Box::new(k)).to_string()
        }
        Err(_) => base.to_string(),
    }
}

fn support(a: SupportArgs) -> CliResult {
    if is_precomputed(&a.base) {
        return Err(
            "--base precomputed: the support radius C tapers a radial kernel of the distance between \
                    samples, ((1 - r/C)+)^nu k(r); a precomputed kernel's values carry no distances to taper"
                .into(),
        );
    }
    refuse_precomputed(&a.data, "the support radius")?;
    let base = parse_kernel(&a.base)?;
    let procedure = match (a.gamma, a.min_alignment, a.min_sparsity) {
        (Some(gamma), None, None) => Procedure::Combined { gamma },
        (None, Some(mu), None) => Procedure::MinAlignment { mu },
        (None, None, Some(tau)) => Procedure::MinSparsity { tau },
        _ => return Err("give exactly one of --gamma, --min-alignment, --min-sparsity".into()),
    };
    let search = if a.exact {
        Search::Exact
    } else {
        match &a.c_grid {
            None => Search::Grid(default_c_grid()),
            Some(g) => {
                let grid: ParamGrid = format!("c={g}").parse()?;
                Search::Grid(grid.axes()[0].values.clone())
            }
        }
    };
    let sampling = match (a.random_pairs, a.subsample) {
        (Some(count), _) => PairSampling::RandomPairs { count, seed: a.seed },
        (None, Some(m)) => PairSampling::Subsample { m, seed: a.seed },
        (None, None) => PairSampling::All,
    };
    let opts = SupportOptions {
        nu: a.nu,
        diagonal: if a.include_diagonal { Diagonal::Include } else { Diagonal::Exclude },
        sampling,
    };
    let (ds, stored) = a.data.load_sparse()?;
    let x = &ds.samples;
    let t = Instant::now();
    let spin = crate::progress::Spinner::start("alignment and sparsity of the support radii");
    let ch = with_threads(a.threads, || SupportProfile::new(&base, x, &opts)?.select(procedure, &search))??;
    drop(spin);
    let seconds = t.elapsed().as_secs_f64();
    let mut out = json!({
        "n": x.n(), "d": x.d(),
        "base": base.to_string(), "nu": a.nu,
        "kernel": kernel_spec(&base, ch.c, a.nu, x.d()),
        "procedure": procedure,
        "c": if ch.c.is_finite() { json!(ch.c) } else { json!("inf") },
        "alignment": ch.alignment, "sparsity": ch.sparsity,
        "search": if a.exact { "exact".to_string() } else { format!("grid of {} values", ch.curve.c.len()) },
        "diagonal": if a.include_diagonal { "include" } else { "exclude" },
        "pairs": ch.pairs, "sampling": ch.sampling,
        "seconds": seconds,
    });
    if a.curve {
        out["curve"] = json!({ "c": ch.curve.c, "alignment": ch.curve.alignment, "sparsity": ch.curve.sparsity,
                               "alignment_se": ch.curve.alignment_se, "sparsity_se": ch.curve.sparsity_se });
    }
    add_storage(&mut out, Some(stored));
    Ok(out)
}
