//! `kern cv`: k-fold cross-validation grid search of a model (kern-tune's `grid_search`).
//!
//! `--grid` names SVM parameters `c`, `lambda` and `epsilon` (the SVR tube); every other name is a
//! parameter of the kernel spec, written into it (`--kernel gaussian --grid sigma=0.1..2:5` trains
//! `gaussian:sigma=0.1`, …); a kernel key that collides with an SVM name takes the prefix `k.`
//! (`k.c=1..3:3` is the support radius of a `cs-` kernel). One match arm per model kind, as in
//! `kern train`.

use crate::commands::train::{ModelKind, Scheme};
use crate::common::{CliError, CliResult, DataArgs, with_threads};
use kern_core::{KernelSpec, Targets};
use kern_models::svm::{Multiclass, SolverParams, SvcParams, SvrParams};
use kern_tune::cv::{CvConfig, Scoring, Stratify, Validation};
use kern_tune::grid::{GridSearchConfig, ParamGrid, ParamPoint, grid_search};
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
    /// Multi-class scheme (svc).
    #[arg(long, value_enum, default_value = "ovo")]
    multiclass: Scheme,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
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

/// The kernel of a grid point.
fn kernel_at(spec: &str, p: &ParamPoint) -> Result<KernelSpec, CliError> {
    let mut s = spec.to_string();
    for (name, v) in p.iter() {
        if matches!(name, "c" | "lambda" | "epsilon") {
            continue;
        }
        s = set_kernel_param(&s, name.strip_prefix("k.").unwrap_or(name), v)?;
    }
    Ok(s.parse::<KernelSpec>()?)
}

/// Runs `kern cv`.
pub fn run(a: Args) -> CliResult {
    let grid: ParamGrid = a.grid.parse()?;
    let validation: Validation = a.folds.parse()?;
    let scoring: Scoring = a.scoring.parse()?;
    // Fail early on a kernel the grid cannot fill in.
    for p in grid.points().iter().take(1) {
        kernel_at(&a.kernel, p)?;
    }
    let ds = a.data.load()?;
    let cfg = GridSearchConfig {
        cv: CvConfig { validation, stratify: Stratify::Auto, scoring, seed: a.seed },
        refit: false,
    };
    let solver = SolverParams { tol: a.tol, cache_mb: a.cache_mb, ..SolverParams::default() };
    let t = Instant::now();
    let report = match a.model {
        ModelKind::Svc => {
            let classes = ds.classes()?;
            let y = if classes.n_classes() == 2 {
                Targets::Binary(ds.binary()?)
            } else {
                Targets::Classes(classes)
            };
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
            let r = with_threads(a.threads, || grid_search(&grid, build, &ds.samples, &y, &cfg))??;
            serde_json::to_value(&r)?
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
        // Extension point: other model kinds add their arm here (a params builder per grid point).
        #[allow(unreachable_patterns)]
        other => {
            return Err(
                format!("kern cv does not support --model {other:?} yet (supported: svc, svr)").into()
            );
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
