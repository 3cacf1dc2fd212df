//! `kern cv`: k-fold cross-validation grid search of a model (kern-tune's `grid_search`).
//!
//! `--grid` names model parameters — `c`, `lambda` and `epsilon` (the SVR tube) for the SVMs, `lambda`
//! (the regularization λ) for `lssvm` and `krr`, `max_fv` and `min_fitness` for `kfa` — and every other
//! name is a parameter of the kernel spec, written into it (`--kernel gaussian --grid sigma=0.1..2:5` trains
//! `gaussian:sigma=0.1`, …); a kernel key that collides with an SVM name takes the prefix `k.`
//! (`k.c=1..3:3` is the support radius of a `cs-` kernel). One match arm per model kind, as in
//! `kern train`.

use crate::commands::train::{ModelKind, Scheme};
use crate::common::{CliError, CliResult, DataArgs, targets, with_threads};
use kern_core::{KernelSpec, Targets};
use kern_models::fvs::FvsParams;
use kern_models::kfa::{BasisChoice, KfaParams};
use kern_models::krr::KernelRidgeParams;
use kern_models::lssvm::LsSvmParams;
use kern_models::svm::{Multiclass, SharedGram, SolverParams, SvcParams, SvrParams};
use kern_tune::cv::{CvConfig, Scoring, Stratify, Validation};
use kern_tune::grid::{
    GridSearchConfig, ParamGrid, ParamPoint, PathPredictions, grid_search, grid_search_along,
};
use serde_json::json;
use std::time::Instant;

/// Arguments of `kern cv`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// Model kind.
    #[arg(long, value_enum)]
    model: ModelKind,
    /// Kernel spec; grid names other than c, lambda, epsilon are set in it.
    #[arg(long)]
    kernel: String,
    /// Number of folds (k-fold), or a kern-tune validation spec (kfold:K[:REPEATS], loo, holdout:F).
    #[arg(long, default_value = "5")]
    folds: String,
    /// The grid, e.g. c=2^-5..2^15:11,sigma=0.1..2:5 (kern-tune grid syntax).
    #[arg(long)]
    grid: String,
    /// Scoring: auto (accuracy / negative MSE), accuracy, neg_mse, neg_mae.
    #[arg(long, default_value = "auto")]
    scoring: String,
    /// Seed of the folds (and of the probability CV, unused here).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Regularization C when the grid does not set it.
    #[arg(long, default_value_t = 1.0)]
    c: f64,
    /// SVR tube half-width when the grid does not set it.
    #[arg(long, default_value_t = 0.1)]
    epsilon_tube: f64,
    /// Solver tolerance.
    #[arg(long, default_value_t = 1e-3)]
    tol: f64,
    /// Kernel cache in megabytes (per training run; runs go in parallel).
    #[arg(long, default_value_t = 100.0)]
    cache_mb: f64,
    /// SMO working sets (svc, svr): auto, pair or a working-set size Q.
    #[arg(long, default_value = "auto", value_name = "auto|pair|Q")]
    solver_block: kern_models::svm::SolverBlock,
    /// Multi-class scheme (svc).
    #[arg(long, value_enum, default_value = "ovo")]
    multiclass: Scheme,
    /// Real-valued targets for lssvm and kfa (krr always regresses, svr always does).
    #[arg(long)]
    regression: bool,
    /// Feature vectors of kfa when the grid does not set max_fv.
    #[arg(long, default_value_t = 50)]
    max_fv: usize,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Refuse grids with more cells than this (every cell trains one model per fold).
    #[arg(long, default_value_t = 10_000)]
    max_cells: usize,
    /// Train svc even on labels that look real-valued or on more than 100 classes.
    #[arg(long)]
    allow_many_classes: bool,
    /// Fit every (cell, fold) of a two-class svc grid over c on its own, from zero. By default the
    /// cells that share a kernel are fitted fold by fold in ascending c, each from the previous
    /// solution, reading one kernel matrix of all samples (when it fits in --cache-mb).
    #[arg(long)]
    no_warm_start: bool,
}

/// Writes `key=value` into a simple kernel spec `name[:k=v,...]`.
fn set_kernel_param(spec: &str, key: &str, value: f64) -> Result<String, CliError> {
    if spec.contains(['+', '*', '(']) {
        return Err(format!(
            "cannot set {key:?} in the compound kernel spec {spec:?}; grid over a simple kernel"
        )
        .into());
    }
    let (name, params) = spec.split_once(':').unwrap_or((spec, ""));
    let mut kv: Vec<(String, String)> = params
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .filter_map(|s| s.split_once('=').map(|(k, v)| (k.trim().to_string(), v.trim().to_string())))
        .collect();
    // The Gaussian takes exactly one of sigma / beta / gamma / std: a grid over one replaces the others.
    let width = ["sigma", "beta", "gamma", "std"];
    if width.contains(&key) && name.trim().trim_start_matches("cs-").starts_with(['g', 'r']) {
        kv.retain(|(k, _)| !width.contains(&k.as_str()));
    }
    match kv.iter_mut().find(|(k, _)| k == key) {
        Some(e) => e.1 = format!("{value}"),
        None => kv.push((key.to_string(), format!("{value}"))),
    }
    let body: Vec<String> = kv.iter().map(|(k, v)| format!("{k}={v}")).collect();
    Ok(format!("{}:{}", name.trim(), body.join(",")))
}

/// Grid names that are model parameters rather than kernel parameters.
const MODEL_PARAMS: [&str; 5] = ["c", "lambda", "epsilon", "max_fv", "min_fitness"];

/// The kernel of a grid point.
fn kernel_at(spec: &str, p: &ParamPoint) -> Result<KernelSpec, CliError> {
    let mut s = spec.to_string();
    for (name, v) in p.iter() {
        if MODEL_PARAMS.contains(&name) {
            continue;
        }
        s = set_kernel_param(&s, name.strip_prefix("k.").unwrap_or(name), v)?;
    }
    Ok(s.parse::<KernelSpec>()?)
}

/// The grid search of a two-class C-SVC with the cells that share a kernel fitted together: one kernel
/// matrix of all samples per kernel, and per fold the values of c in ascending order, each fit
/// starting from the previous solution (kern-models' `SvcParams::predict_c_path`).
fn svc_along_c(
    grid: &ParamGrid,
    build: &(dyn Fn(&ParamPoint) -> Result<SvcParams, CliError> + Sync),
    kernel: &str,
    x: &kern_core::Samples,
    y: &kern_core::BinaryTargets,
    cfg: &GridSearchConfig,
) -> Result<kern_tune::grid::GridSearchReport<()>, CliError> {
    let prepare = |pts: &[ParamPoint]| -> Result<SharedGram, CliError> {
        Ok(SharedGram::new(&kernel_at(kernel, &pts[0])?, x)?)
    };
    let fit = |g: &SharedGram, pts: &[ParamPoint], fold: &kern_tune::cv::Fold| -> PathPredictions {
        let path = pts.iter().map(build).collect::<Result<Vec<SvcParams>, CliError>>()?;
        Ok(SvcParams::predict_c_path(&path, g, x, y, &fold.train, &fold.test)?)
    };
    Ok(grid_search_along(grid, "c", x, y, cfg, prepare, fit)?)
}

/// Runs `kern cv`.
pub fn run(a: Args) -> CliResult {
    let grid: ParamGrid = a.grid.parse()?;
    if grid.len() > a.max_cells {
        return Err(format!(
            "the grid has {} cells, more than --max-cells {}; use fewer points per axis or raise --max-cells",
            grid.len(),
            a.max_cells
        )
        .into());
    }
    let validation: Validation = a.folds.parse()?;
    let scoring: Scoring = a.scoring.parse()?;
    // Fail early on a kernel the grid cannot fill in.
    for p in grid.points().iter().take(1) {
        kernel_at(&a.kernel, p)?;
    }
    // Every model of `kern cv` computes on either sample store: a sparse file stays sparse.
    let ds = a.data.load_sparse()?;
    if matches!(a.model, ModelKind::Lssvm | ModelKind::Krr) {
        // Folds are fitted concurrently, each with a dense training-fold matrix and its factor.
        let kernel = kernel_at(&a.kernel, &grid.points()[0])?;
        let path = kern_models::kmat::PathChoice::Auto;
        if kern_models::kmat::choose_path(&kernel, &ds.samples, path)? == kern_models::kmat::SolvePath::Dense
        {
            let concurrent = a.threads.unwrap_or_else(rayon::current_num_threads).max(1);
            crate::common::check_dense(
                ds.samples.n(),
                2 * concurrent,
                "the dense kernel matrices of the folds fitted at once",
                "use --threads 1, a compactly supported kernel (cs-gaussian:...), a sample of the data, or raise --max-memory",
            )?;
        }
    }
    let cfg = GridSearchConfig {
        cv: CvConfig { validation, stratify: Stratify::Auto, scoring, seed: a.seed },
        refit: false,
    };
    let solver =
        SolverParams { tol: a.tol, cache_mb: a.cache_mb, block: a.solver_block, ..SolverParams::default() };
    let t = Instant::now();
    let report = match a.model {
        ModelKind::Svc => {
            crate::common::check_classes(&ds, a.allow_many_classes)?;
            let y = targets(&ds, false)?;
            let multiclass = match a.multiclass {
                Scheme::Ovo => Multiclass::OneVsOne,
                Scheme::Ovr => Multiclass::OneVsRest,
            };
            let build = |p: &ParamPoint| -> Result<SvcParams, CliError> {
                let mut m =
                    SvcParams::new(kernel_at(&a.kernel, p)?).c(p.get("c").unwrap_or(a.c)).solver(solver);
                if let Some(l) = p.get("lambda") {
                    m = m.lambda(l);
                }
                Ok(m.multiclass(multiclass))
            };
            let along_c = !a.no_warm_start
                && grid.names().contains(&"c")
                && !grid.names().contains(&"lambda")
                && SharedGram::fits(ds.samples.n(), (a.cache_mb * 1024.0 * 1024.0) as usize);
            match &y {
                Targets::Binary(yb) if along_c => {
                    let r = with_threads(a.threads, || {
                        svc_along_c(&grid, &build, &a.kernel, &ds.samples, yb, &cfg)
                    })??;
                    serde_json::to_value(&r)?
                }
                _ => {
                    let r = with_threads(a.threads, || grid_search(&grid, build, &ds.samples, &y, &cfg))??;
                    serde_json::to_value(&r)?
                }
            }
        }
        ModelKind::Svr => {
            let y = Targets::Real(ds.real()?);
            let build = |p: &ParamPoint| -> Result<SvrParams, CliError> {
                let mut m = SvrParams::new(kernel_at(&a.kernel, p)?)
                    .c(p.get("c").unwrap_or(a.c))
                    .epsilon(p.get("epsilon").unwrap_or(a.epsilon_tube))
                    .solver(solver);
                if let Some(l) = p.get("lambda") {
                    m = m.lambda(l);
                }
                Ok(m)
            };
            let r = with_threads(a.threads, || grid_search(&grid, build, &ds.samples, &y, &cfg))??;
            serde_json::to_value(&r)?
        }
        ModelKind::Lssvm => {
            let y = targets(&ds, a.regression)?;
            let build = |p: &ParamPoint| -> Result<LsSvmParams, CliError> {
                let m = LsSvmParams::new(kernel_at(&a.kernel, p)?);
                // Without a λ in the grid each fit chooses its own by leave-one-out (nested).
                Ok(match p.get("lambda") {
                    Some(l) => m.lambda(l),
                    None => m,
                })
            };
            let r = with_threads(a.threads, || grid_search(&grid, build, &ds.samples, &y, &cfg))??;
            serde_json::to_value(&r)?
        }
        ModelKind::Krr => {
            let y = Targets::Real(ds.real()?);
            let build = |p: &ParamPoint| -> Result<KernelRidgeParams, CliError> {
                let m = KernelRidgeParams::new(kernel_at(&a.kernel, p)?);
                Ok(match p.get("lambda") {
                    Some(l) => m.lambda(l),
                    None => m,
                })
            };
            let r = with_threads(a.threads, || grid_search(&grid, build, &ds.samples, &y, &cfg))??;
            serde_json::to_value(&r)?
        }
        ModelKind::Kfa => {
            let y = targets(&ds, a.regression)?;
            let build = |p: &ParamPoint| -> Result<KfaParams<KernelSpec>, CliError> {
                let max_fv = p.get("max_fv").unwrap_or(a.max_fv as f64);
                if !(max_fv >= 1.0 && max_fv.fract() == 0.0) {
                    return Err(format!("max_fv must be a positive integer, got {max_fv}").into());
                }
                let fvs = FvsParams {
                    max_fv: Some(max_fv as usize),
                    min_fitness: p.get("min_fitness"),
                    ..Default::default()
                };
                Ok(KfaParams::new(kernel_at(&a.kernel, p)?).basis(BasisChoice::Fvs(fvs)))
            };
            let r = with_threads(a.threads, || grid_search(&grid, build, &ds.samples, &y, &cfg))??;
            serde_json::to_value(&r)?
        }
    };
    let seconds = t.elapsed().as_secs_f64();
    let best = report["best"].as_u64().unwrap_or(0) as usize;
    let cells = report["cells"].clone();
    let best_cell = cells.get(best).cloned().unwrap_or(serde_json::Value::Null);
    Ok(json!({
        "model": format!("{:?}", a.model).to_ascii_lowercase(),
        "n": ds.samples.n(),
        "kernel": a.kernel,
        "scoring": report["scoring"],
        "validation": report["validation"],
        "stratified": report["stratified"],
        "seed": a.seed,
        "best_params": best_cell["params"],
        "best_score": best_cell["mean"],
        "cells": cells,
        "seconds": seconds,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_parameters_are_written_into_the_spec() {
        assert_eq!(set_kernel_param("gaussian", "sigma", 0.5).unwrap(), "gaussian:sigma=0.5");
        assert_eq!(set_kernel_param("gaussian:beta=2", "sigma", 0.5).unwrap(), "gaussian:sigma=0.5");
        assert_eq!(
            set_kernel_param("cs-gaussian:sigma=1,c=2,nu=3", "c", 3.0).unwrap(),
            "cs-gaussian:sigma=1,c=3,nu=3"
        );
        assert!(set_kernel_param("linear + gaussian:beta=1", "beta", 1.0).is_err());
    }
}
