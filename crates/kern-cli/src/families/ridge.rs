//! The ridge family: LS-SVM and kernel ridge regression (`kern train --model lssvm|krr`), their
//! training summaries and what `kern predict` reports for them.
//!
//! `kern train --model lssvm|krr --kernel SPEC [--lambda L | --gam G] [--path auto|dense|sparse]
//! [--regression]`: λ is the ridge penalty of both models (`K + λI`; the LS-SVM's `γ` of eq. 14, `K +
//! I/γ`, is `1/λ`); without `--lambda` it is chosen by exact leave-one-out over the default grid (17
//! values per model, see kern-models' `default_lambda_grid`). `lssvm` classifies (±1, one-vs-rest for
//! more classes) unless `--regression`; `krr` regresses on real targets. JSON adds `lambda` (and `gam`
//! for lssvm), `factor_seconds`, `path` and `warnings` (a model regularized into a constant) to the
//! usual figures.

use super::Train;
use crate::output::{CliError, CliResult};
use crate::resources::with_threads;
use kern_cli::any_params::constant_warning;
use kern_core::KernelSpec;
use kern_core::io::Dataset;
use kern_models::Predictions;
use kern_models::kmat::PathChoice;
use kern_models::krr::{KernelRidge, KernelRidgeParams};
use kern_models::lssvm::{LsSvm, LsSvmParams};
use kern_models::persist;
use kern_models::ridge::{Selection, Task};
use kern_models::weights::FitWeighted;
use kern_models::widen::WidenFeatures;
use kern_sparse::{PcgReport, Solver};
use serde_json::{Value, json};
use std::time::Instant;

fn selection_json(s: Option<&Selection>) -> Value {
    match s {
        None => Value::Null,
        Some(s) => json!({
            "criterion": s.criterion, "method": s.method, "grid": s.grid, "error": s.error, "mse": s.mse, "best": s.best,
        }),
    }
}

pub fn task_json(t: &Task) -> Value {
    match t {
        Task::Binary { names } => json!({ "kind": "binary", "classes": names }),
        Task::Classes { names } => json!({ "kind": "classes", "classes": names }),
        Task::Regression => json!({ "kind": "regression" }),
    }
}

/// `"solver"`, `"iterations"`, `"residual"` and `"converged"` of a trained model (the last three null
/// for the direct solver); a warning on stderr when conjugate gradients stopped short of `--tol`.
fn solver_json(v: &mut Value, solver: Solver, report: Option<PcgReport>) {
    v["solver"] = json!(solver.name());
    v["iterations"] = json!(report.map(|r| r.iterations));
    v["residual"] = json!(report.map(|r| r.residual));
    v["converged"] = json!(report.map(|r| r.converged));
    if let Some(r) = report.filter(|r| !r.converged) {
        eprintln!(
            "kern: warning: conjugate gradients stopped after {} iterations at relative residual {:e}, above \
             --tol; raise --max-iter or --tol",
            r.iterations, r.residual
        );
    }
}

/// Refuses the dense kernel matrix and its factor when they do not fit in memory.
fn check_dense_path(kernel: &KernelSpec, path: PathChoice, ds: &Dataset) -> Result<(), CliError> {
    if kern_models::kmat::choose_path(kernel, &ds.samples, path)? == kern_models::kmat::SolvePath::Dense {
        // K, and its factor or eigenvectors.
        crate::resources::check_dense(
            ds.samples.n(),
            2,
            "the dense kernel matrix and its factor",
            crate::resources::DENSE_INSTEAD,
        )?;
    }
    Ok(())
}

/// `kern train --model lssvm`; `fitted`: the model the width search trained at the chosen width,
/// with its training seconds, saved instead of training again.
pub fn train_lssvm(t: &Train, p: LsSvmParams, ds: &Dataset, fitted: Option<(LsSvm, f64)>) -> CliResult {
    check_dense_path(&p.kernel, p.path, ds)?;
    let y = kern_cli::kinds::targets(ds, t.regression)?;
    let (m, seconds) = match fitted {
        Some(f) => f,
        None => {
            let t0 = Instant::now();
            let m = with_threads(t.threads, || p.fit_targets(&ds.samples, &y))??;
            (m, t0.elapsed().as_secs_f64())
        }
    };
    let mut v = trained(t, &m, seconds)?;
    let warnings: Vec<String> =
        constant_warning(m.relative_spread(&y)?, t.ridge_tol, m.lambda()).into_iter().collect();
    finish(&mut v, "lssvm", ds, t, warnings);
    v["gam"] = json!(1.0 / m.lambda());
    Ok(v)
}

/// `kern train --model krr`; `fitted` as [`train_lssvm`]'s (the width search runs without weights).
pub fn train_krr(
    t: &Train,
    p: KernelRidgeParams,
    ds: &Dataset,
    fitted: Option<(KernelRidge, f64)>,
) -> CliResult {
    check_dense_path(&p.kernel, p.path, ds)?;
    let y = kern_cli::kinds::targets(ds, true)?;
    let w = t.weights(ds.samples.n())?;
    let (m, seconds) = match fitted {
        Some(f) if w.is_none() => f,
        _ => {
            let t0 = Instant::now();
            let m = with_threads(t.threads, || p.fit_with(&ds.samples, &y, w.as_ref()))??;
            (m, t0.elapsed().as_secs_f64())
        }
    };
    let mut v = trained(t, &m, seconds)?;
    // The check reads the unweighted system: with weights it is left out.
    let warnings: Vec<String> = match w {
        None => constant_warning(m.relative_spread(&y)?, t.ridge_tol, m.lambda()).into_iter().collect(),
        Some(_) => Vec::new(),
    };
    finish(&mut v, "krr", ds, t, warnings);
    Ok(v)
}

/// The figures every lssvm and krr summary adds, and its warnings (also printed on stderr).
fn finish(v: &mut Value, model: &str, ds: &Dataset, t: &Train, warnings: Vec<String>) {
    for w in &warnings {
        eprintln!("kern: warning: {w}");
    }
    v["model"] = json!(model);
    v["n"] = json!(ds.samples.n());
    v["d"] = json!(ds.samples.d());
    v["out"] = json!(t.out_name());
    v["warnings"] = json!(warnings);
}

/// Saves a model whose training took `seconds` and returns its summary.
fn trained<M: Trained>(t: &Train, m: &M, seconds: f64) -> CliResult {
    t.save(m)?;
    let f = m.figures();
    let mut v = summary(&f.kernel, f.lambda, f.factor_seconds, f.path, f.task, f.selection, seconds);
    solver_json(&mut v, f.solver, f.pcg);
    Ok(v)
}

/// What the command reads from a trained LS-SVM or kernel ridge model (the two share their accessors).
pub struct Figures<'a> {
    kernel: String,
    lambda: f64,
    factor_seconds: f64,
    path: &'static str,
    task: &'a Task,
    selection: Option<&'a Selection>,
    solver: Solver,
    pcg: Option<PcgReport>,
}

/// An LS-SVM or a kernel ridge model, for the command.
pub trait Trained: persist::Persist + WidenFeatures + Sync {
    /// The figures.
    fn figures(&self) -> Figures<'_>;
}

macro_rules! impl_trained {
    ($($m:ty),*) => {$(
        impl Trained for $m {
            fn figures(&self) -> Figures<'_> {
                Figures {
                    kernel: self.kernel().to_string(),
                    lambda: self.lambda(),
                    factor_seconds: self.factor_seconds(),
                    path: self.path().name(),
                    task: self.task(),
                    selection: self.selection(),
                    solver: self.solver(),
                    pcg: self.pcg_report(),
                }
            }
        }
    )*};
}
impl_trained!(LsSvm, KernelRidge);

fn summary(
    kernel: &str,
    lambda: f64,
    factor_seconds: f64,
    path: &str,
    task: &Task,
    sel: Option<&Selection>,
    seconds: f64,
) -> Value {
    json!({
        "kernel": kernel,
        "lambda": lambda,
        "factor_seconds": factor_seconds,
        "path": path,
        "task": task_json(task),
        "selection": selection_json(sel),
        "seconds": seconds,
    })
}

/// `kern predict`'s summary for an LS-SVM or a kernel ridge model (`name`: the model's learner
/// name): the scores against the file's labels, and the model's λ and path. A data file has one label
/// per point, so a multi-output regression is scored on its first output: the summary then says so
/// (`"outputs"`, the number of outputs written, and `"scored_output": 1`).
pub fn predict<M: Trained>(m: &M, name: &str, p: &Predictions, ds: &Dataset) -> Value {
    let f = m.figures();
    let mut v = crate::metrics::scores(f.task, &p.values, ds);
    if !f.task.is_classification() && p.decision.ncols() > 1 {
        v["outputs"] = json!(p.decision.ncols());
        v["scored_output"] = json!(1);
    }
    v["n"] = json!(ds.samples.n());
    v["lambda"] = json!(f.lambda);
    v["factor_seconds"] = json!(f.factor_seconds);
    v["path"] = json!(f.path);
    v["model"] = json!(name);
    v
}
