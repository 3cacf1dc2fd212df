//! The `lssvm` and `krr` arms of `kern train` / `kern predict`.
//!
//! `kern train --model lssvm|krr --kernel SPEC [--lambda L] [--path auto|dense|sparse] [--regression]`:
//! λ is the LS-SVM's of eq. 14 (`K + I/λ`) or the ridge's (`K + λI`); without `--lambda` it is chosen by
//! exact leave-one-out over the default grid (17 values per model, see kern-models' `default_lambda_grid`).
//! `lssvm` classifies (±1, one-vs-rest for more classes) unless `--regression`; `krr` regresses on real
//! targets. JSON adds `lambda`, `factor_seconds` and `path` to the usual figures.

use crate::commands::train::Args;
use crate::common::{CliResult, with_threads};
use kern_core::KernelSpec;
use kern_core::io::Dataset;
use kern_models::kmat::PathChoice;
use kern_models::krr::{KernelRidge, KernelRidgeParams};
use kern_models::lssvm::{LsSvm, LsSvmParams};
use kern_models::persist;
use kern_models::ridge::{Selection, Task};
use kern_models::weights::FitWeighted;
use kern_models::widen::WidenFeatures;
use kern_sparse::{PcgReport, SolveOptions, Solver};
use serde_json::{Value, json};
use std::time::Instant;

/// Which dual model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dual {
    /// LS-SVM with bias: (K + I/lambda) alpha + b 1 = y, 1' alpha = 0.
    LsSvm,
    /// Kernel ridge regression (no bias).
    Krr,
}

fn selection_json(s: Option<&Selection>) -> Value {
    match s {
        None => Value::Null,
        Some(s) => json!({
            "criterion": s.criterion, "method": s.method, "grid": s.grid, "error": s.error, "mse": s.mse, "best": s.best,
        }),
    }
}

pub(crate) fn task_json(t: &Task) -> Value {
    match t {
        Task::Binary { names } => json!({ "kind": "binary", "classes": names }),
        Task::Classes { names } => json!({ "kind": "classes", "classes": names }),
        Task::Regression => json!({ "kind": "regression" }),
    }
}

/// `kern train --model lssvm|krr`.
/// The solver settings of `--solver`, `--preconditioner`, `--tol` and `--max-iter`.
fn solve_options(a: &Args) -> Result<SolveOptions, crate::common::CliError> {
    // Auto's factor budget: what this process may still allocate (`--max-memory`, the cgroup limit or
    // MemAvailable), or the fixed default when the system does not say.
    let factor_budget =
        kern_core::memory::budget().bytes.unwrap_or(kern_sparse::solver::DEFAULT_FACTOR_BUDGET);
    let mut o = SolveOptions { solver: a.solver.parse()?, factor_budget, ..SolveOptions::default() };
    o.pcg.preconditioner = a.preconditioner.as_deref().unwrap_or("none").parse()?;
    if let Some(t) = a.learner.tol {
        o.pcg.tol = t;
    }
    if let Some(m) = a.max_iter {
        o.pcg.max_iter = usize::try_from(m).map_err(|_| format!("--max-iter {m} is too large"))?;
    }
    o.pcg.validate()?;
    Ok(o)
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

pub fn train_dual(a: &Args, kernel: KernelSpec, ds: &Dataset, which: Dual) -> CliResult {
    let path: PathChoice = a.path.parse()?;
    let ordering: kern_sparse::Ordering = a.order.parse()?;
    let solver = solve_options(a)?;
    let y = crate::common::targets(ds, a.learner.regression || which == Dual::Krr)?;
    if kern_models::kmat::choose_path(&kernel, &ds.samples, path)? == kern_models::kmat::SolvePath::Dense {
        // K, and its factor or eigenvectors.
        crate::common::check_dense(
            ds.samples.n(),
            2,
            "the dense kernel matrix and its factor",
            crate::common::DENSE_INSTEAD,
        )?;
    }
    let t = Instant::now();
    let mut v = match which {
        Dual::LsSvm => {
            let mut p = LsSvmParams::new(kernel).path(path).ordering(ordering).solver(solver);
            if let Some(l) = a.lambda {
                p = p.lambda(l);
            }
            let m = with_threads(a.threads, || p.fit_targets(&ds.samples, &y))??;
            trained(a, &m, t)?
        }
        Dual::Krr => {
            let mut p = KernelRidgeParams::new(kernel).path(path).ordering(ordering).solver(solver);
            if let Some(l) = a.lambda {
                p = p.lambda(l);
            }
            let w = crate::commands::train::sample_weights(a, ds.samples.n())?;
            let m = with_threads(a.threads, || p.fit_with(&ds.samples, &y, w.as_ref()))??;
            trained(a, &m, t)?
        }
    };
    v["model"] = json!(which.kind());
    v["n"] = json!(ds.samples.n());
    v["d"] = json!(ds.samples.d());
    v["out"] = json!(a.out.display().to_string());
    Ok(v)
}

/// Saves a model trained since `t` and returns its summary.
fn trained<M: Trained>(a: &Args, m: &M, t: Instant) -> CliResult {
    let seconds = t.elapsed().as_secs_f64();
    crate::common::save_model(&a.out, m)?;
    let f = m.figures();
    let mut v = summary(&f.kernel, f.lambda, f.factor_seconds, f.path, f.task, f.selection, seconds);
    solver_json(&mut v, f.solver, f.pcg);
    Ok(v)
}

impl Dual {
    /// The model kind, as saved and reported.
    fn kind(self) -> &'static str {
        match self {
            Dual::LsSvm => "lssvm",
            Dual::Krr => "krr",
        }
    }
}

/// What the command reads from a trained LS-SVM or kernel ridge model (the two share their accessors).
struct Figures<'a> {
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
trait Trained: persist::Persist + WidenFeatures + Sync {
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

/// Accuracy (classification) or rmse and mae (regression) of predictions against the file's labels.
pub(crate) fn scores(task: &Task, pred: &[f64], ds: &Dataset) -> Value {
    let labelled = ds.labels.iter().any(|l| !l.is_empty());
    if !labelled {
        return json!({ "accuracy": null, "rmse": null, "mae": null });
    }
    match task {
        Task::Regression => match ds.real() {
            Ok(y) => {
                let n = pred.len() as f64;
                let se: f64 = pred.iter().zip(y.values()).map(|(p, v)| (p - v) * (p - v)).sum();
                let ae: f64 = pred.iter().zip(y.values()).map(|(p, v)| (p - v).abs()).sum();
                json!({ "rmse": (se / n).sqrt(), "mae": ae / n })
            }
            Err(_) => json!({ "rmse": null, "mae": null }),
        },
        _ => {
            let names = label_names(task, pred);
            let norm = |s: &str| {
                s.trim().parse::<f64>().map(kern_core::label_name).unwrap_or_else(|_| s.to_string())
            };
            let hits = names.iter().zip(&ds.labels).filter(|(p, l)| norm(p) == norm(l)).count();
            json!({ "accuracy": hits as f64 / names.len() as f64 })
        }
    }
}

pub(crate) fn label_names(task: &Task, pred: &[f64]) -> Vec<String> {
    match task {
        Task::Binary { names } => {
            pred.iter().map(|&p| if p > 0.0 { names[1].clone() } else { names[0].clone() }).collect()
        }
        Task::Classes { names } => pred.iter().map(|&p| names[p as usize].clone()).collect(),
        Task::Regression => pred.iter().map(|p| format!("{p}")).collect(),
    }
}
