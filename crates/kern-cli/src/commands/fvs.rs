//! `kern fvs`: feature vector selection (Baudat & Anouar eqs. 3–8) on a data file.

use crate::data::{DataArgs, parse_kernel};
use crate::output::{CliResult, add_storage};
use crate::resources::with_threads;
use kern_models::fvs::{self, FvsParams, Strategy};
use serde_json::json;
use std::time::Instant;

/// Arguments of `kern fvs`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// Kernel spec, e.g. gaussian:sigma=0.6 (grammar: kern help kernels).
    #[arg(long)]
    kernel: String,
    /// Stop after this many feature vectors.
    #[arg(long)]
    max_fv: Option<usize>,
    /// Stop once the fitness reaches this value, in (0, 1].
    #[arg(long)]
    min_fitness: Option<f64>,
    /// Candidate scoring: auto, exact, max-residual, stochastic[:SEED], sampled[:CANDIDATES[:SEED]].
    #[arg(long, default_value = "auto")]
    strategy: String,
    /// Normalised residual below which a sample is in the span (basis found when none is above).
    #[arg(long, default_value_t = 1e-10)]
    singular_tol: f64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// Runs `kern fvs`.
pub fn run(a: Args) -> CliResult {
    let kernel = parse_kernel(&a.kernel)?;
    let strategy: Strategy = a.strategy.parse()?;
    let params = FvsParams {
        max_fv: a.max_fv,
        min_fitness: a.min_fitness,
        singular_tol: a.singular_tol,
        strategy,
        ..Default::default()
    };
    params.check()?;
    // FVS evaluates kernels on either sample store: a sparse file stays sparse.
    let (ds, stored) = a.data.load_sparse()?;
    let t = Instant::now();
    let f = with_threads(a.threads, || fvs::select(&kernel, &ds.samples, &params))??;
    let seconds = t.elapsed().as_secs_f64();
    let strategy = match f.strategy {
        Strategy::Exact => "exact".to_string(),
        Strategy::MaxResidual => "max-residual".to_string(),
        Strategy::Sampled { candidates, seed } => format!("sampled:{candidates}:{seed}"),
        Strategy::Stochastic { seed } => format!("stochastic:{seed}"),
        Strategy::Auto => "auto".to_string(),
    };
    let mut v = json!({
        "n": ds.samples.n(),
        "d": ds.samples.d(),
        "kernel": kernel.to_string(),
        "strategy": strategy,
        "n_fv": f.selected.len(),
        "selected": f.selected,
        "fitness": f.fitness,
        "final_fitness": f.final_fitness(),
        "stop": f.stop.name(),
        "seconds": seconds,
    });
    add_storage(&mut v, Some(stored));
    Ok(v)
}
