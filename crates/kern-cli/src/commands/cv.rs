//! `kern cv`: k-fold cross-validation grid search of a model (kern-tune's `grid_search`).
//!
//! `--grid` names model parameters — `c`, `lambda` and `epsilon` (the SVR tube) for the SVMs, `nu` for
//! the ν types (`--type nu-svc|nu-svr`), `lambda` (the regularization λ) for `lssvm` and `krr`,
//! `max_fv` and `min_fitness` for `kfa` — and every other name is a parameter of the kernel spec,
//! written into it (`--kernel gaussian --grid sigma=0.1..2:5` trains `gaussian:sigma=0.1`, …); a
//! kernel key that collides with a model parameter takes the prefix `k.` (`k.c=1..3:3` is the support
//! radius of a `cs-` kernel, `k.nu` its exponent under a ν type). One match arm per model kind, as in
//! `kern train`.
//!
//! `--kernel precomputed` (SVMs) reads LIBSVM's precomputed format, the full kernel matrix of the
//! training points (`LABEL 0:i 1:K(x_i,x_1) …`); each fold trains on `K[train, train]` and predicts
//! from `K[test, train]` (module `precomputed_cv`). A precomputed kernel has no parameters, so only
//! the model's axes may be searched.

use crate::commands::precomputed_cv::{OnMatrix, serials};
use crate::commands::train::{ModelKind, Scheme, SvmType};
use crate::common::{CliError, CliResult, DataArgs, targets, with_threads};
use kern_core::{KernelSpec, Targets};
use kern_models::fvs::FvsParams;
use kern_models::kfa::{BasisChoice, KfaParams};
use kern_models::krr::KernelRidgeParams;
use kern_models::lssvm::LsSvmParams;
use kern_models::svm::{
    KernelMatrix, Multiclass, NuSvcParams, NuSvrParams, SharedGram, SolverParams, SvcParams, SvrParams,
};
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
    /// Model kind (or give --type for an SVM).
    #[arg(long, value_enum, required_unless_present = "svm_type")]
    model: Option<ModelKind>,
    /// SVM type, LIBSVM's svm-train -s names: c-svc, nu-svc, epsilon-svr, nu-svr (one-class has no
    /// labels to score). Replaces --model (svc = c-svc, svr = epsilon-svr).
    #[arg(long = "type", value_enum, value_name = "SVM_TYPE")]
    svm_type: Option<SvmType>,
    /// nu of nu-svc and nu-svr when the grid does not set it (default 0.5).
    #[arg(long)]
    nu: Option<f64>,
    /// Kernel spec; grid names other than the model's parameters are set in it. Or precomputed
    /// (SVMs; LIBSVM -t 4): the data file then holds the kernel matrix of the training points, each
    /// row LABEL 0:i 1:K(x_i,x_1) 2:K(x_i,x_2) ... for point i = 1, 2, ... in order; every fold
    /// trains on the rows and columns of its training points and predicts its test points from their
    /// rows, and the grid may only hold the model's parameters (c, lambda, epsilon, nu).
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

/// Grid names that are model parameters rather than kernel parameters (`nu` only under a ν type,
/// where a kernel's `nu` is written `k.nu`).
const MODEL_PARAMS: [&str; 5] = ["c", "lambda", "epsilon", "max_fv", "min_fitness"];

/// Whether grid name `name` is a model parameter (`nu_model`: the model is a ν type).
fn is_model_param(name: &str, nu_model: bool) -> bool {
    MODEL_PARAMS.contains(&name) || (nu_model && name == "nu")
}

/// The kernel of a grid point.
fn kernel_at(spec: &str, p: &ParamPoint, nu_model: bool) -> Result<KernelSpec, CliError> {
    let mut s = spec.to_string();
    for (name, v) in p.iter() {
        if is_model_param(name, nu_model) {
            continue;
        }
        s = set_kernel_param(&s, name.strip_prefix("k.").unwrap_or(name), v)?;
    }
    Ok(s.parse::<KernelSpec>()?)
}

/// What `kern cv` fits: an SVM of a LIBSVM type, or another model kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Learner {
    Svm(SvmType),
    Model(ModelKind),
}

/// Resolves `--model` and `--type` (which must agree when both are given) and checks `--nu`.
fn learner(a: &Args) -> Result<Learner, CliError> {
    use crate::commands::svm_types::type_name;
    let l = match (a.model, a.svm_type) {
        (Some(ModelKind::Svc), None) => Learner::Svm(SvmType::CSvc),
        (Some(ModelKind::Svr), None) => Learner::Svm(SvmType::EpsilonSvr),
        (Some(m), None) => Learner::Model(m),
        (m, Some(t)) => {
            let fits = match m {
                None => true,
                Some(ModelKind::Svc) => matches!(t, SvmType::CSvc | SvmType::NuSvc),
                Some(ModelKind::Svr) => matches!(t, SvmType::EpsilonSvr | SvmType::NuSvr),
                Some(_) => false,
            };
            if !fits {
                return Err(format!(
                    "--model {} and --type {} name different models; give one of them",
                    format!("{:?}", m.expect("given")).to_lowercase(),
                    type_name(t)
                )
                .into());
            }
            if t == SvmType::OneClass {
                return Err("kern cv scores predictions against the labels of held-out points; a one-class \
                            SVM is trained without labels, so it is not cross-validated here (train it with \
                            kern train --type one-class)"
                    .into());
            }
            Learner::Svm(t)
        }
        (None, None) => return Err("give --model or --type".into()),
    };
    if a.nu.is_some() && !matches!(l, Learner::Svm(SvmType::NuSvc | SvmType::NuSvr)) {
        return Err("--nu applies to --type nu-svc and nu-svr".into());
    }
    Ok(l)
}

/// The model parameters an SVM type takes from the grid; a grid axis naming another model parameter
/// (or, for a precomputed kernel, anything else) is an error.
fn check_axes(grid: &ParamGrid, l: Learner, precomputed: bool) -> Result<(), CliError> {
    let takes: &[&str] = match l {
        Learner::Svm(SvmType::CSvc) => &["c", "lambda"],
        Learner::Svm(SvmType::NuSvc) => &["nu"],
        Learner::Svm(SvmType::EpsilonSvr) => &["c", "lambda", "epsilon"],
        Learner::Svm(SvmType::NuSvr) => &["c", "lambda", "nu"],
        Learner::Svm(SvmType::OneClass) | Learner::Model(_) => return Ok(()),
    };
    let nu_model = matches!(l, Learner::Svm(SvmType::NuSvc | SvmType::NuSvr));
    let Learner::Svm(t) = l else { unreachable!() };
    for name in grid.names() {
        if takes.contains(&name) {
            continue;
        }
        if is_model_param(name, nu_model) {
            return Err(format!(
                "the grid axis {name:?} is not a parameter of --type {} (it takes {})",
                crate::commands::svm_types::type_name(t),
                takes.join(", ")
            )
            .into());
        }
        if precomputed && name == "nu" {
            return Err(format!(
                "the grid axis \"nu\" is a parameter of --type nu-svc and nu-svr, not of --type {}, and a \
                 precomputed kernel has no parameters",
                crate::commands::svm_types::type_name(t)
            )
            .into());
        }
        if precomputed {
            return Err(format!(
                "the grid axis {name:?} would be a kernel parameter, but a precomputed kernel has none (its \
                 values are fixed in the file); grid over the model's parameters ({}), or compute one \
                 kernel file per kernel parameter value",
                takes.join(", ")
            )
            .into());
        }
    }
    Ok(())
}

/// The grid search of a two-class C-SVC with the cells that share a kernel fitted together: one kernel
/// matrix of all samples per kernel (`gram`: computed from the kernel of a path's first point, or the
/// user's precomputed matrix), and per fold the values of c in ascending order, each fit starting
/// from the previous solution (kern-models' `SvcParams::predict_c_path`).
fn svc_along_c(
    grid: &ParamGrid,
    build: &(dyn Fn(&ParamPoint) -> Result<SvcParams, CliError> + Sync),
    gram: &(dyn Fn(&ParamPoint) -> Result<SharedGram, CliError> + Sync),
    x: &kern_core::Samples,
    y: &kern_core::BinaryTargets,
    cfg: &GridSearchConfig,
) -> Result<kern_tune::grid::GridSearchReport<()>, CliError> {
    let prepare = |pts: &[ParamPoint]| -> Result<SharedGram, CliError> { gram(&pts[0]) };
    let fit = |g: &SharedGram, pts: &[ParamPoint], fold: &kern_tune::cv::Fold| -> PathPredictions {
        let path = pts.iter().map(build).collect::<Result<Vec<SvcParams>, CliError>>()?;
        Ok(SvcParams::predict_c_path(&path, g, x, y, &fold.train, &fold.test)?)
    };
    Ok(grid_search_along(grid, "c", x, y, cfg, prepare, fit)?)
}

/// Runs a grid search with learners built by `build`, on the data or (`k` given) on the folds of a
/// precomputed kernel matrix, whose samples `x` are then the serial numbers.
fn search<P, F>(
    a: &Args,
    grid: &ParamGrid,
    build: F,
    x: &kern_core::Samples,
    y: &Targets,
    cfg: &GridSearchConfig,
    k: Option<&KernelMatrix>,
) -> Result<serde_json::Value, CliError>
where
    P: kern_core::learner::Fit<Targets> + crate::commands::precomputed_cv::FitMatrix,
    F: Fn(&ParamPoint) -> Result<P, CliError> + Sync,
{
    Ok(match k {
        Some(k) => {
            let on = |p: &ParamPoint| -> Result<OnMatrix<P>, CliError> {
                Ok(OnMatrix { params: build(p)?, k: k.clone() })
            };
            serde_json::to_value(with_threads(a.threads, || grid_search(grid, on, x, y, cfg))??)?
        }
        None => serde_json::to_value(with_threads(a.threads, || grid_search(grid, &build, x, y, cfg))??)?,
    })
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
    let l = learner(&a)?;
    let nu_model = matches!(l, Learner::Svm(SvmType::NuSvc | SvmType::NuSvr));
    let precomputed = crate::commands::precomputed::is_precomputed(&a.kernel);
    check_axes(&grid, l, precomputed)?;
    if precomputed && !matches!(l, Learner::Svm(_)) {
        return Err(format!(
            "--kernel precomputed cross-validates SVMs (--type c-svc|nu-svc|epsilon-svr|nu-svr, or --model \
             svc|svr), not --model {}",
            format!("{:?}", a.model.expect("not an SVM type")).to_lowercase()
        )
        .into());
    }
    // Fail early on a kernel the grid cannot fill in.
    if !precomputed {
        for p in grid.points().iter().take(1) {
            kernel_at(&a.kernel, p, nu_model)?;
        }
    }
    // The precomputed kernel's placeholder (never evaluated), or the kernel of a grid point.
    let kernel_of = |p: &ParamPoint| -> Result<KernelSpec, CliError> {
        if precomputed {
            Ok(KernelSpec::Linear(kern_core::Linear))
        } else {
            kernel_at(&a.kernel, p, nu_model)
        }
    };
    // Every model of `kern cv` computes on either sample store: a sparse file stays sparse. A
    // precomputed file becomes its kernel matrix, and the samples the folds split are the serials.
    let (mut ds, gram) = if precomputed {
        let ds = crate::commands::precomputed::read(&a.data, true)?;
        let k = crate::commands::precomputed::kernel_matrix(&ds)?;
        (ds, Some(k))
    } else {
        (a.data.load_sparse()?, None)
    };
    if let Some(k) = &gram {
        ds.samples = serials(k.n())?;
    }
    if let Learner::Model(ModelKind::Lssvm | ModelKind::Krr) = l {
        // Folds are fitted concurrently, each with a dense training-fold matrix and its factor.
        let kernel = kernel_at(&a.kernel, &grid.points()[0], false)?;
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
    let nu = a.nu.unwrap_or(0.5);
    let multiclass = match a.multiclass {
        Scheme::Ovo => Multiclass::OneVsOne,
        Scheme::Ovr => Multiclass::OneVsRest,
    };
    let t = Instant::now();
    let report = match l {
        Learner::Svm(SvmType::CSvc) => {
            crate::common::check_classes(&ds, a.allow_many_classes)?;
            let y = targets(&ds, false)?;
            let build = |p: &ParamPoint| -> Result<SvcParams, CliError> {
                let mut m = SvcParams::new(kernel_of(p)?).c(p.get("c").unwrap_or(a.c)).solver(solver);
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
                    let shared = |p: &ParamPoint| -> Result<SharedGram, CliError> {
                        Ok(match &gram {
                            Some(k) => SharedGram::from_kernel_matrix(k),
                            None => SharedGram::new(&kernel_of(p)?, &ds.samples)?,
                        })
                    };
                    let r = with_threads(a.threads, || {
                        svc_along_c(&grid, &build, &shared, &ds.samples, yb, &cfg)
                    })??;
                    serde_json::to_value(&r)?
                }
                _ => search(&a, &grid, build, &ds.samples, &y, &cfg, gram.as_ref())?,
            }
        }
        Learner::Svm(SvmType::NuSvc) => {
            crate::common::check_classes(&ds, a.allow_many_classes)?;
            if a.multiclass == Scheme::Ovr {
                return Err("--multiclass ovr does not apply to --type nu-svc (one-vs-one, as LIBSVM)".into());
            }
            let y = targets(&ds, false)?;
            let build = |p: &ParamPoint| -> Result<NuSvcParams, CliError> {
                Ok(NuSvcParams::new(kernel_of(p)?).nu(p.get("nu").unwrap_or(nu)).solver(solver))
            };
            search(&a, &grid, build, &ds.samples, &y, &cfg, gram.as_ref())?
        }
        Learner::Svm(SvmType::EpsilonSvr) => {
            let y = Targets::Real(ds.real()?);
            let build = |p: &ParamPoint| -> Result<SvrParams, CliError> {
                let mut m = SvrParams::new(kernel_of(p)?)
                    .c(p.get("c").unwrap_or(a.c))
                    .epsilon(p.get("epsilon").unwrap_or(a.epsilon_tube))
                    .solver(solver);
                if let Some(l) = p.get("lambda") {
                    m = m.lambda(l);
                }
                Ok(m)
            };
            search(&a, &grid, build, &ds.samples, &y, &cfg, gram.as_ref())?
        }
        Learner::Svm(SvmType::NuSvr) => {
            let y = Targets::Real(ds.real()?);
            let build = |p: &ParamPoint| -> Result<NuSvrParams, CliError> {
                let mut m = NuSvrParams::new(kernel_of(p)?)
                    .c(p.get("c").unwrap_or(a.c))
                    .nu(p.get("nu").unwrap_or(nu))
                    .solver(solver);
                if let Some(l) = p.get("lambda") {
                    m = m.lambda(l);
                }
                Ok(m)
            };
            search(&a, &grid, build, &ds.samples, &y, &cfg, gram.as_ref())?
        }
        Learner::Svm(SvmType::OneClass) | Learner::Model(ModelKind::Svc | ModelKind::Svr) => {
            unreachable!("resolved by `learner`")
        }
        Learner::Model(ModelKind::Lssvm) => {
            let y = targets(&ds, a.regression)?;
            let build = |p: &ParamPoint| -> Result<LsSvmParams, CliError> {
                let m = LsSvmParams::new(kernel_at(&a.kernel, p, false)?);
                // Without a λ in the grid each fit chooses its own by leave-one-out (nested).
                Ok(match p.get("lambda") {
                    Some(l) => m.lambda(l),
                    None => m,
                })
            };
            let r = with_threads(a.threads, || grid_search(&grid, build, &ds.samples, &y, &cfg))??;
            serde_json::to_value(&r)?
        }
        Learner::Model(ModelKind::Krr) => {
            let y = Targets::Real(ds.real()?);
            let build = |p: &ParamPoint| -> Result<KernelRidgeParams, CliError> {
                let m = KernelRidgeParams::new(kernel_at(&a.kernel, p, false)?);
                Ok(match p.get("lambda") {
                    Some(l) => m.lambda(l),
                    None => m,
                })
            };
            let r = with_threads(a.threads, || grid_search(&grid, build, &ds.samples, &y, &cfg))??;
            serde_json::to_value(&r)?
        }
        Learner::Model(ModelKind::Kfa) => {
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
                Ok(KfaParams::new(kernel_at(&a.kernel, p, false)?).basis(BasisChoice::Fvs(fvs)))
            };
            let r = with_threads(a.threads, || grid_search(&grid, build, &ds.samples, &y, &cfg))??;
            serde_json::to_value(&r)?
        }
    };
    let seconds = t.elapsed().as_secs_f64();
    let best = report["best"].as_u64().unwrap_or(0) as usize;
    let cells = report["cells"].clone();
    let best_cell = cells.get(best).cloned().unwrap_or(serde_json::Value::Null);
    let (model, svm_type) = match l {
        Learner::Svm(t @ (SvmType::CSvc | SvmType::NuSvc)) => ("svc", Some(t)),
        Learner::Svm(t) => ("svr", Some(t)),
        Learner::Model(m) => (
            match m {
                ModelKind::Svc => "svc",
                ModelKind::Svr => "svr",
                ModelKind::Kfa => "kfa",
                ModelKind::Lssvm => "lssvm",
                ModelKind::Krr => "krr",
            },
            None,
        ),
    };
    Ok(json!({
        "model": model,
        "type": svm_type.map(crate::commands::svm_types::type_name),
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
