//! `kern cv`: k-fold cross-validation grid search of a model (kern-tune's `grid_search`).
//!
//! The flags and their translation into a grid search — the grid's names as model or kernel
//! parameters, folds, scoring, the learner of each cell — are the library's
//! [`kern_cli::cv_flags`], shared with `kern-mpi cv`; this command reads the data (or a precomputed
//! kernel matrix) and runs the search on this machine.
//!
//! `--kernel precomputed` (SVMs) reads LIBSVM's precomputed format, the full kernel matrix of the
//! training points (`LABEL 0:i 1:K(x_i,x_1) …`); each fold trains on `K[train, train]` and predicts
//! from `K[test, train]` (the SVM family's `precomputed_cv`). A precomputed kernel has no parameters, so only
//! the model's axes may be searched.

use crate::data::DataArgs;
use crate::families::svm::precomputed;
use crate::families::svm::precomputed_cv::{OnMatrix, serials};
use crate::output::{CliError, CliResult, add_storage};
use crate::resources::with_threads;
use kern_cli::any_params::{AnyParams, Watched};
use kern_cli::cv_flags::CvFlags;
use kern_core::Targets;
use kern_models::svm::{KernelMatrix, SharedGram, SvcParams};
use kern_tune::cv::{CvTargets, Scoring, TargetKind};
use kern_tune::grid::{
    GridSearchConfig, ParamGrid, ParamPoint, PathPredictions, grid_search, grid_search_along,
};
use std::sync::Mutex;
use std::time::Instant;

/// Arguments of `kern cv`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    #[command(flatten)]
    cv: CvFlags,
    /// Also print svm-train -v's line (`Cross Validation Accuracy = x%`) on stdout before the
    /// summary: `kern train -v N` is `kern cv` with this flag.
    #[arg(long, hide = true)]
    libsvm_report: bool,
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

/// Runs the grid search of the cells' learners, on the data or (`k` given) on the folds of a
/// precomputed kernel matrix, whose samples `x` are then the serial numbers.
fn search<'w>(
    f: &CvFlags,
    grid: &ParamGrid,
    build: &(dyn Fn(&ParamPoint) -> Result<Watched<'w>, CliError> + Sync),
    x: &kern_core::Samples,
    y: &Targets,
    cfg: &GridSearchConfig,
    k: Option<&KernelMatrix>,
) -> Result<serde_json::Value, CliError> {
    Ok(match k {
        Some(k) => {
            let on = |p: &ParamPoint| -> Result<OnMatrix<AnyParams>, CliError> {
                Ok(OnMatrix { params: build(p)?.params, k: k.clone() })
            };
            serde_json::to_value(with_threads(f.threads, || grid_search(grid, on, x, y, cfg))??)?
        }
        None => serde_json::to_value(with_threads(f.threads, || grid_search(grid, build, x, y, cfg))??)?,
    })
}

/// Adds each cell's constant-model warning (`kern_cli::any_params::constant_warning`, from the
/// first fold that had one) to the cell in the report, as `"warnings"` (a list, as `kern train`'s;
/// absent from a cell without one, as `"error"`), and prints it on stderr with the cell's parameters.
fn add_cell_warnings(report: &mut serde_json::Value, warnings: Vec<Mutex<Option<String>>>) {
    let Some(cells) = report.get_mut("cells").and_then(serde_json::Value::as_array_mut) else { return };
    for (cell, w) in cells.iter_mut().zip(warnings) {
        let w: Vec<String> =
            w.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner).into_iter().collect();
        for w in &w {
            crate::progress::eprintln(&format!("kern: warning: cell {}: {w}", cell["params"]));
        }
        if !w.is_empty() {
            cell["warnings"] = serde_json::json!(w);
        }
    }
}

/// Runs `kern cv`.
pub fn run(mut a: Args) -> CliResult {
    let mut plan = a.cv.plan()?;
    // The worker threads come up while the data is read.
    kern_core::parallel::warm_up(a.cv.threads);
    // Every model of `kern cv` computes on either sample store: a sparse file stays sparse. A
    // precomputed file becomes its kernel matrix, and the samples the folds split are the serials.
    let (mut ds, gram, stored) = if plan.precomputed {
        let ds = precomputed::read(&a.data, true)?;
        let k = precomputed::kernel_matrix(&ds)?;
        (ds, Some(k), None)
    } else {
        let (ds, stored) = a.data.load_sparse()?;
        (ds, None, Some(stored))
    };
    if let Some(k) = &gram {
        ds.samples = serials(k.n())?;
    } else {
        a.cv.learner.n_features = Some(ds.samples.d());
    }
    let f = &a.cv;
    // A width the grid sets is not the default's.
    let widths = ["gamma", "sigma", "beta", "std", "g"];
    let note = f.learner.gamma_note().filter(|_| !plan.grid.names().iter().any(|n| widths.contains(n)));
    if let Some(n) = &note {
        crate::progress::eprintln(&format!("kern: note: {n}"));
    }
    // Folds are fitted concurrently, each (lssvm, krr) with a dense training-fold matrix and its factor.
    f.check_memory(&plan, &ds.samples)?;
    let t = Instant::now();
    let y = f.targets(plan.learner, &ds)?;
    // svm-train -v's regression report: the test predictions of every fold, pooled for the squared
    // correlation coefficient.
    let mse = matches!(plan.config.cv.scoring.resolve(TargetKind::Real), Ok(Scoring::NegMse));
    let pooled =
        (a.libsvm_report && mse && y.kind() == TargetKind::Real).then(|| pool_predictions(&mut plan));
    let report = match &y {
        Targets::Binary(yb) if f.warm_c_path(&plan, ds.samples.n(), &y) => {
            let build = |p: &ParamPoint| f.svc_params(&plan, p);
            let shared = |p: &ParamPoint| -> Result<SharedGram, CliError> {
                Ok(match &gram {
                    Some(k) => SharedGram::from_kernel_matrix(k),
                    None => SharedGram::new(&build(p)?.kernel, &ds.samples)?,
                })
            };
            let r = with_threads(f.threads, || {
                svc_along_c(&plan.grid, &build, &shared, &ds.samples, yb, &plan.config)
            })??;
            serde_json::to_value(&r)?
        }
        _ => {
            let points = plan.grid.points();
            let warnings: Vec<Mutex<Option<String>>> = points.iter().map(|_| Mutex::new(None)).collect();
            let build = |p: &ParamPoint| {
                let cell = points.iter().position(|q| q == p).unwrap_or(usize::MAX);
                Ok::<_, CliError>(Watched {
                    params: f.cell(&plan, p)?,
                    cell,
                    tol: f.learner.ridge_tol(),
                    warnings: &warnings,
                })
            };
            let mut r = search(f, &plan.grid, &build, &ds.samples, &y, &plan.config, gram.as_ref())?;
            add_cell_warnings(&mut r, warnings);
            r
        }
    };
    let mut v = f.summary(plan.learner, ds.samples.n(), &report, t.elapsed().as_secs_f64());
    add_storage(&mut v, stored);
    let gamma = note.as_ref().and(f.learner.default_gamma());
    if let (Some(n), Some(g)) = (&note, gamma) {
        v["gamma_default"] = serde_json::json!({"gamma": g, "d": f.learner.n_features, "note": n});
    }
    if a.libsvm_report {
        let mut lines = format!("{}\n", libsvm_line(&v));
        if let Some(p) = pooled {
            let p = p.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let scc = kern_tune::metrics::squared_correlation(&p.0, &p.1).unwrap_or(f64::NAN);
            lines.push_str(&format!("Cross Validation Squared correlation coefficient = {scc}\n"));
        }
        kern_core::io::write_stdout(lines.as_bytes())?;
    }
    crate::progress::eprintln(&best_line(&v, gamma));
    Ok(v)
}

/// Predictions and truth of every fold's test part, in the order the folds were scored.
type Pooled = Mutex<(Vec<f64>, Vec<f64>)>;

/// Makes the plan's scoring (the mean squared error of svm-train -v's one cell, reported as such)
/// also keep every fold's test predictions and truth, in the returned store: what svm-train -v's
/// squared correlation coefficient is computed over.
fn pool_predictions(plan: &mut kern_cli::cv_flags::CvPlan) -> std::sync::Arc<Pooled> {
    let pooled = std::sync::Arc::new(Pooled::default());
    let store = std::sync::Arc::clone(&pooled);
    plan.config.cv.scoring = Scoring::custom("neg_mse", move |p, t| {
        let mut s = store.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        s.0.extend_from_slice(p);
        s.1.extend_from_slice(t);
        kern_tune::metrics::mean_squared_error(p, t).map_or(f64::NAN, |e| -e)
    });
    pooled
}

/// The best cell as grid.py prints it: `best: c=2, gamma=0.5, accuracy=96.67%` (the grid's names in
/// order, the defaulted gamma when the kernel took it, and the score: accuracy in percent, or the
/// mean squared or absolute error).
fn best_line(v: &serde_json::Value, gamma: Option<f64>) -> String {
    let mut parts: Vec<String> = match v["best_params"].as_object() {
        Some(p) => p.iter().map(|(k, x)| format!("{k}={x}")).collect(),
        None => Vec::new(),
    };
    if let Some(g) = gamma {
        parts.push(format!("gamma={g} (1/d)"));
    }
    parts.push(score_text(v, "="));
    format!("best: {}", parts.join(", "))
}

/// The best score by its name: `accuracy=96.67%`, `mse=0.25`, `mae=0.4` (`eq` between them).
fn score_text(v: &serde_json::Value, eq: &str) -> String {
    let score = v["best_score"].as_f64().unwrap_or(f64::NAN);
    match v["scoring"].as_str().unwrap_or("") {
        "accuracy" => format!("accuracy{eq}{}%", (score * 1e6).round() / 1e4),
        "neg_mse" => format!("mse{eq}{}", -score),
        "neg_mae" => format!("mae{eq}{}", -score),
        other => format!("{other}{eq}{score}"),
    }
}

/// svm-train -v's line: `Cross Validation Accuracy = 96.6667%`, or `Cross Validation Mean squared
/// error = 0.25` for regression (followed by the squared correlation coefficient's line, written by
/// [`run`]).
fn libsvm_line(v: &serde_json::Value) -> String {
    let score = v["best_score"].as_f64().unwrap_or(f64::NAN);
    match v["scoring"].as_str().unwrap_or("") {
        "accuracy" => format!("Cross Validation Accuracy = {}%", (score * 1e6).round() / 1e4),
        "neg_mse" => format!("Cross Validation Mean squared error = {}", -score),
        _ => format!("Cross Validation {}", score_text(v, " = ")),
    }
}
