//! `kern-mpi`: kern's distributed commands. Under `mpirun -np P kern-mpi ...` the ranks share the
//! work; run alone it is a one-process run. Rank 0 prints one JSON object per run (with "seconds" and
//! "ranks"); an error on any rank is reported once, by rank 0, and every rank exits with status 1.
// The flags' doc comments are the command's help text (`fvs:M[:POOL]` is a syntax, not a link).
#![allow(rustdoc::broken_intra_doc_links)]

use clap::{Parser, Subcommand, ValueEnum};
use kern_cli::cv_flags::{CvFlags, is_precomputed};
use kern_cli::kinds::ModelKind;
use kern_cli::learner_flags::Setting;
use kern_core::KernelSpec;
use kern_core::io::{CsvOptions, LabelColumn};
use kern_dist::{Comm, DistError};
use kern_tune::grid::ParamPoint;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Instant;

type CmdResult = Result<Option<Value>, Box<dyn std::error::Error + Send + Sync>>;

#[derive(Parser, Debug)]
#[command(
    name = "kern-mpi",
    version,
    about = "kern on MPI: run under `mpirun -np P kern-mpi ...` (alone: one process)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Train a kernel ridge or LS-SVM: Nyström / FVS landmarks (--landmarks; each rank reads and
    /// multiplies its part) or a compactly supported kernel by conjugate gradients (--solver iterative;
    /// rows spread over the ranks by a spatial split).
    Train(Box<TrainArgs>),
    /// Predict every row of a data file with a saved model; each rank reads and predicts its part.
    Predict(PredictArgs),
    /// Grid search with cross-validation, the (cell, fold) fits spread over the ranks: the flags of
    /// `kern cv`, every rank reading the whole file.
    Cv(Box<CvArgs>),
}

/// The data file and how to read a CSV file.
#[derive(clap::Args, Debug)]
struct DataArgs {
    /// Data file: LIBSVM, or CSV when the name ends in .csv (not compressed: ranks read byte ranges).
    #[arg(long)]
    data: PathBuf,
    /// CSV label column: a 0-based index (negative from the end), a header name, or `none`.
    #[arg(long, default_value = "-1")]
    label_col: LabelColumn,
}

impl DataArgs {
    fn csv(&self) -> CsvOptions {
        CsvOptions { label: self.label_col.clone(), ..CsvOptions::default() }
    }
}

#[derive(clap::Args, Debug)]
struct PredictArgs {
    #[command(flatten)]
    data: DataArgs,
    /// A model file written by `kern train`, or a LIBSVM model file.
    #[arg(long)]
    model: PathBuf,
    /// Write one prediction per line, in input order: label names for classifiers, values for regressors.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// `kern cv`'s flags (one definition, kern-cli's `CvFlags`), the data file and `--out`.
#[derive(clap::Args, Debug)]
struct CvArgs {
    #[command(flatten)]
    data: DataArgs,
    #[command(flatten)]
    cv: CvFlags,
    /// Write the full report (every cell) as JSON here, instead of printing the cells.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The model kinds `kern-mpi train` fits: `kern train`'s lssvm and krr, whose names and help texts
/// are kern-cli's `ModelKind` (the one declaration); the other kinds of `kern train --model` (svc, svr,
/// kfa) have no distributed solver, so clap offers only these two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LandmarkModel(ModelKind);

impl ValueEnum for LandmarkModel {
    fn value_variants<'a>() -> &'a [Self] {
        &[LandmarkModel(ModelKind::Lssvm), LandmarkModel(ModelKind::Krr)]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        self.0.to_possible_value()
    }
}

#[derive(clap::Args, Debug)]
struct TrainArgs {
    #[command(flatten)]
    data: DataArgs,
    /// Model kind, as kern train's --model: lssvm or krr (the kinds with a distributed solver).
    #[arg(long, value_enum)]
    model: LandmarkModel,
    /// Kernel spec, as kern train's --kernel (grammar: kern help kernels), e.g. gaussian:beta=0.05
    /// (with --landmarks) or cs-gaussian:sigma=1,c=2 (--solver iterative); computed from the rows
    /// each rank reads, so not precomputed. With --landmarks, automatic values (gaussian:sigma=auto,
    /// max-variance, median, ahn; cs-gaussian:sigma=auto,c=auto) are chosen as kern train chooses
    /// them; sigma=auto with --lambda auto widens the width with lambda by leave-one-out.
    #[arg(long)]
    kernel: String,
    /// Centres: random:M (uniform, by --seed) or fvs:M[:POOL] (feature vector selection on a seeded pool).
    #[arg(long)]
    landmarks: Option<String>,
    /// iterative: without --landmarks, conjugate gradients on the sparse kernel matrix of a compactly
    /// supported (cs-) kernel, as `kern train --solver iterative` (--tol, default 1e-6; --max-iter,
    /// default 10000; no preconditioner). With --landmarks: auto (default; the cheaper of conjugate
    /// gradients and the direct solve of the centres' system, by their cost), iterative or direct, as
    /// `kern train --landmarks`.
    #[arg(long)]
    solver: Option<String>,
    /// The ridge penalty lambda of K + lambda I (lssvm and krr, as kern train's --lambda; scikit-learn's
    /// alpha): larger, more regularization. auto (with --landmarks): chosen by exact leave-one-out on
    /// the centres' m x m system over kern train's default grid, as kern train --landmarks --lambda auto.
    #[arg(long, required_unless_present = "gam", conflicts_with = "gam")]
    lambda: Option<Setting>,
    /// LS-SVMlab's gam, the error weight of K + I/gam (lssvm, as kern train's --gam): the same as
    /// --lambda 1/gam.
    #[arg(long)]
    gam: Option<f64>,
    /// Seed of the centre choice.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Stopping tolerance on the relative residual of the conjugate gradients (default 1e-6).
    #[arg(long)]
    tol: Option<f64>,
    /// Iteration cap of the conjugate gradients (default 1000 with --landmarks, 10000 without).
    #[arg(long)]
    max_iter: Option<u64>,
    /// With --landmarks: falkon (the default) or none. Without: none (the only one).
    #[arg(long)]
    preconditioner: Option<String>,
    /// FVS candidate scoring: auto, exact, max-residual, stochastic[:SEED], sampled[:CANDIDATES[:SEED]].
    #[arg(long, default_value = "auto")]
    fvs_strategy: String,
    /// Real-valued targets for lssvm (krr always regresses).
    #[arg(long)]
    regression: bool,
    /// Worker threads per rank (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Rows per block of the sums over rows (default: about 16 MiB of kernel values, as `kern train`).
    /// The model depends on it, never on the number of ranks; rows are moved so that each rank holds
    /// whole blocks, so ranks with fewer rows than a block may get none.
    #[arg(long)]
    block_rows: Option<usize>,
    /// Where rank 0 writes the model (the file `kern predict` reads).
    #[arg(long)]
    out: PathBuf,
}

fn predict(comm: &dyn Comm, a: PredictArgs) -> CmdResult {
    let t = Instant::now();
    let s = kern_dist::predict::predict_file(comm, &a.model, &a.data.data, &a.data.csv(), a.out.as_deref())?;
    let mut v = serde_json::to_value(&s)?;
    v["seconds"] = json!(t.elapsed().as_secs_f64());
    Ok((comm.rank() == 0).then_some(v))
}

/// Sets the global pool's threads (MPI is called from the main thread only).
fn set_threads(threads: Option<usize>) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    match threads {
        Some(0) => Err("--threads must be at least 1".into()),
        Some(t) => Ok(rayon::ThreadPoolBuilder::new().num_threads(t).build_global()?),
        None => Ok(()),
    }
}

/// Sets the threads and reads this rank's part of the training file.
fn read_for_training(
    comm: &dyn Comm,
    a: &TrainArgs,
) -> Result<kern_dist::rows::DistRows, Box<dyn std::error::Error + Send + Sync>> {
    set_threads(a.threads)?;
    let opts = kern_dist::rows::PartOptions { csv: a.data.csv(), ..Default::default() };
    Ok(kern_dist::rows::read_part(comm, &a.data.data, &opts)?)
}

/// The task as JSON.
fn task_json(task: &kern_models::ridge::Task) -> Value {
    match task {
        kern_models::ridge::Task::Binary { names } => json!({ "kind": "binary", "classes": names }),
        kern_models::ridge::Task::Classes { names } => json!({ "kind": "classes", "classes": names }),
        kern_models::ridge::Task::Regression => json!({ "kind": "regression" }),
    }
}

/// The kernel of `--kernel`: a spec, parsed as `kern train` parses it; a precomputed kernel refused as
/// `kern train --model lssvm|krr` refuses it; automatic values refused (the compact path).
fn train_kernel(a: &TrainArgs) -> Result<KernelSpec, Box<dyn std::error::Error + Send + Sync>> {
    match landmark_kernel(a)? {
        TrainKernel::Given(k) => Ok(k),
        TrainKernel::Auto(_) => Err(format!(
            "--kernel {}: automatic values are chosen for landmark models (--landmarks); the compact \
             conjugate-gradient path trains with numbers: choose them with kern train --auto or kern \
             tune on the data (or a sample of it)",
            a.kernel
        )
        .into()),
    }
}

/// `--kernel` of a landmark model: numbers, or automatic values chosen on the rows (as `kern
/// train` chooses them).
enum TrainKernel {
    Given(KernelSpec),
    Auto(kern_tune::auto::AutoKernel),
}

/// The kernel of `--kernel` for a landmark model (precomputed refused as by [`train_kernel`]).
fn landmark_kernel(a: &TrainArgs) -> Result<TrainKernel, Box<dyn std::error::Error + Send + Sync>> {
    if is_precomputed(&a.kernel) {
        return Err(format!(
            "--kernel precomputed trains SVMs (kern train --type c-svc|nu-svc|one-class|epsilon-svr|nu-svr, \
             or --model svc|svr), not --model {}",
            a.model.0.name()
        )
        .into());
    }
    Ok(match kern_tune::auto::AutoKernel::parse(&a.kernel)? {
        Some(auto) => TrainKernel::Auto(auto),
        None => TrainKernel::Given(a.kernel.parse()?),
    })
}

impl TrainArgs {
    /// The ridge penalty λ of `--lambda`, or of `--gam` (lssvm only) as `1/γ`; `None` for `--lambda
    /// auto`.
    fn lambda(&self) -> Result<Option<f64>, Box<dyn std::error::Error + Send + Sync>> {
        match (self.lambda, self.gam) {
            (Some(l), _) => Ok(l.value()),
            (None, Some(_)) if self.model.0 != ModelKind::Lssvm => Err(format!(
                "--gam does not apply to --model {}; --model {} takes --lambda",
                self.model.0.name(),
                self.model.0.name()
            )
            .into()),
            (None, Some(g)) => Ok(Some(1.0 / g)),
            (None, None) => Err("give --lambda (or --gam for lssvm)".into()),
        }
    }
}

fn train(comm: &dyn Comm, a: TrainArgs) -> CmdResult {
    match (&a.landmarks, a.solver.as_deref()) {
        (Some(_), _) => train_landmarks(comm, a),
        (None, Some("iterative")) => train_compact(comm, a),
        (None, _) => Err("kern-mpi train needs --landmarks (a Nyström / FVS model) or --solver iterative \
                          (conjugate gradients on a compactly supported cs- kernel)"
            .into()),
    }
}

fn train_compact(comm: &dyn Comm, a: TrainArgs) -> CmdResult {
    use kern_dist::compact::{CompactParams, Dual, fit_compact, model_bytes};
    kern_core::io::ensure_distinct(&a.out, &[&a.data.data])?;
    let kernel = train_kernel(&a)?;
    let dual = if a.model.0 == ModelKind::Lssvm { Dual::LsSvm } else { Dual::Krr };
    let lambda = a.lambda()?.ok_or(
        "--lambda auto chooses lambda by exact leave-one-out, which the conjugate gradients on a compactly \
         supported kernel do not give: give --lambda a number (choose it with kern cv or kern train \
         --lambda auto on the data or a sample of it), or train a landmark model (--landmarks)",
    )?;
    let mut params = CompactParams::new(dual, kernel, lambda);
    params.pcg.preconditioner = a.preconditioner.as_deref().unwrap_or("none").parse()?;
    if let Some(t) = a.tol {
        params.pcg.tol = t;
    }
    if let Some(m) = a.max_iter {
        params.pcg.max_iter = usize::try_from(m).map_err(|_| format!("--max-iter {m} is too large"))?;
    }
    if a.block_rows.is_some() {
        return Err("--block-rows applies to --landmarks models".into());
    }
    let part = read_for_training(comm, &a)?;
    let counted = kern_dist::comm::Counted::new(comm);
    let t = Instant::now();
    let fit = fit_compact(&counted, &part, &params, a.regression)?;
    let seconds = t.elapsed().as_secs_f64();
    let traffic = counted.traffic();
    let bytes = model_bytes(comm, &part, &fit, &params)?;
    let saved = match &bytes {
        Some(b) => kern_core::io::write_atomic(&a.out, b).map_err(DistError::from),
        None => Ok(()),
    };
    kern_dist::agree(comm, saved)?;
    if comm.rank() != 0 {
        return Ok(None);
    }
    let r = fit.report;
    let warnings = constant_warnings(&a, fit.relative_spread, params.lambda);
    if !r.converged {
        eprintln!(
            "kern-mpi: warning: conjugate gradients stopped after {} iterations at relative residual {:e}, \
             above --tol; raise --max-iter or --tol",
            r.iterations, r.residual
        );
    }
    Ok(Some(json!({
        "model": a.model.0.name(),
        "kernel": params.kernel.to_string(),
        "lambda": params.lambda,
        "n": part.n_total,
        "d": part.d,
        "n_local": fit.rows.len(),
        "halo": fit.halo,
        "nnz_local": fit.nnz,
        "task": task_json(&fit.task),
        "solver": "iterative",
        "preconditioner": "none",
        "iterations": r.iterations,
        "residual": r.residual,
        "converged": r.converged,
        "traffic": traffic,
        "warnings": warnings,
        "out": a.out.display().to_string(),
        "seconds": seconds,
    })))
}

/// The constant-model warning of a trained model (`spread`: its relative spread over all the
/// training rows), as `kern train` gives it (kern-cli's `constant_warning`, bound by `--tol`),
/// printed on stderr.
fn constant_warnings(a: &TrainArgs, spread: f64, lambda: f64) -> Vec<String> {
    let w: Vec<String> =
        kern_cli::any_params::constant_warning(spread, a.tol.unwrap_or(1e-6), lambda).into_iter().collect();
    for w in &w {
        eprintln!("kern-mpi: warning: {w}");
    }
    w
}

fn train_landmarks(comm: &dyn Comm, a: TrainArgs) -> CmdResult {
    use kern_models::fvs::Strategy;
    use kern_models::landmark::{Landmarks, NystromPreconditioner, NystromRidgeParams, NystromSolve};
    kern_core::io::ensure_distinct(&a.out, &[&a.data.data])?;
    let kernel = landmark_kernel(&a)?;
    let landmarks: Landmarks = a.landmarks.as_deref().unwrap_or_default().parse()?;
    let preconditioner: NystromPreconditioner = a.preconditioner.as_deref().unwrap_or("falkon").parse()?;
    let strategy: Strategy = a.fvs_strategy.parse()?;
    let solve: NystromSolve = a.solver.as_deref().unwrap_or("auto").parse()?;
    let max_iter = match a.max_iter {
        Some(m) => usize::try_from(m).map_err(|_| format!("--max-iter {m} is too large"))?,
        None => 1000,
    };
    let lssvm = a.model.0 == ModelKind::Lssvm;
    let given = a.lambda()?;
    if a.block_rows == Some(0) {
        return Err("--block-rows must be at least 1".into());
    }
    let part = read_for_training(comm, &a)?;
    let counted = kern_dist::comm::Counted::new(comm);
    // Automatic kernel values, chosen as kern train chooses them on the whole file (the rows they
    // read gathered to every rank): the width, and with --lambda auto and sigma=auto its widening
    // with λ by the exact model's leave-one-out.
    let t_auto = Instant::now();
    let mut report = Vec::new();
    let kernel = match kernel {
        TrainKernel::Given(k) => k,
        TrainKernel::Auto(auto) => {
            let classes = lssvm && !a.regression;
            let r = kern_dist::auto::resolve_kernel(&counted, &part, &auto, classes, a.seed)?;
            report.extend(kern_cli::resolved_json(&r));
            if auto.gaussian_width_auto() && given.is_none() {
                let (_, task) = kern_dist::landmark::targets_part(&counted, &part, a.regression || !lssvm)?;
                let ch = kern_dist::auto::width_search(&counted, &part, &r.kernel, lssvm, &task, a.seed)?;
                report.push(kern_cli::width_json(&ch));
                ch.kernel
            } else {
                r.kernel
            }
        }
    };
    let kernel_seconds = t_auto.elapsed().as_secs_f64();
    // With --lambda auto (`None`) the parameters' λ is not used: the grid's values are.
    let lambda = given.unwrap_or(1.0);
    let p = if lssvm {
        NystromRidgeParams::lssvm(kernel, lambda, landmarks)
    } else {
        NystromRidgeParams::krr(kernel, lambda, landmarks)
    }
    .seed(a.seed)
    .tol(a.tol.unwrap_or(1e-6), max_iter)
    .preconditioner(preconditioner)
    .fvs_strategy(strategy)
    .solve(solve);
    let t = Instant::now();
    let (m, choice) = match given {
        Some(_) => {
            (kern_dist::landmark::fit_nystrom_blocks(&counted, &part, &p, a.regression, a.block_rows)?, None)
        }
        None => {
            let ch = kern_dist::landmark::choose_lambda_nystrom(
                &counted,
                &part,
                &p,
                a.regression,
                a.block_rows,
                None,
            )?;
            // Reported (and any λ passed over noted) once, by rank 0.
            let report = (comm.rank() == 0).then(|| kern_cli::landmark_lambda_json(&ch, part.n_total));
            (ch.model, report.map(|r| (r, ch.seconds)))
        }
    };
    let seconds = t.elapsed().as_secs_f64();
    let traffic = counted.traffic();
    let saved = if comm.rank() == 0 {
        kern_models::persist::save(&a.out, &m).map_err(DistError::from)
    } else {
        Ok(())
    };
    kern_dist::agree(comm, saved)?;
    let spread = kern_dist::landmark::relative_spread(comm, &part, &m)?;
    let r = m.report();
    if comm.rank() != 0 {
        return Ok(None);
    }
    let warnings = constant_warnings(&a, spread, m.lambda());
    if !r.converged {
        eprintln!(
            "kern-mpi: warning: conjugate gradients stopped after {} iterations at relative residual {:e}, \
             above --tol; raise --max-iter or --tol",
            r.iterations, r.residual
        );
    }
    let task = task_json(m.task());
    let mut summary = json!({
        "model": a.model.0.name(),
        "kernel": m.kernel().to_string(),
        "lambda": m.lambda(),
        "n": part.n_total,
        "d": part.d,
        "n_local": part.n_local(),
        "task": task,
        "landmarks": m.landmarks().to_string(),
        "centres": m.centres().n(),
        "seed": m.seed(),
        "preconditioner": m.preconditioner().name(),
        "solver": m.solved().map_or("unknown", NystromSolve::name),
        "iterations": r.iterations,
        "residual": r.residual,
        "converged": r.converged,
        "passes": m.passes(),
        "traffic": traffic,
        "warnings": warnings,
        "out": a.out.display().to_string(),
        "seconds": seconds,
    });
    let mut auto_seconds = kernel_seconds;
    if let Some((r, choice_seconds)) = choice {
        report.push(r);
        auto_seconds += choice_seconds;
    }
    if !report.is_empty() {
        summary["auto"] =
            json!({ "choices": report, "kernel": m.kernel().to_string(), "seconds": auto_seconds });
    }
    Ok(Some(summary))
}

fn cv(comm: &dyn Comm, mut a: CvArgs) -> CmdResult {
    use kern_dist::grid::grid_search_dist;
    let f = &a.cv;
    // The same flags on every rank: the same plan, or the same error.
    let plan = f.plan()?;
    if plan.precomputed {
        return Err("kern-mpi cv does not read precomputed kernels: the file is the n x n kernel matrix, \
                    which every rank would hold whole (each fit trains on all but one fold), so spreading \
                    the fits saves no memory; run kern cv --kernel precomputed"
            .into());
    }
    if let Some(out) = &a.out {
        kern_core::io::ensure_distinct(out, &[&a.data.data])?;
    }
    set_threads(f.threads)?;
    // Every cell trains on all the rows, so every rank reads the whole file.
    let ds = kern_dist::agree(
        comm,
        kern_core::io::read_data(&a.data.data, &a.data.csv()).map_err(DistError::from),
    )?;
    // A kernel width of 1/d (LIBSVM's default gamma) is the data's.
    a.cv.learner.n_features = Some(ds.samples.d());
    let f = &a.cv;
    // The memory check depends on each rank's budget: agreed.
    kern_dist::agree(
        comm,
        f.check_memory(&plan, &ds.samples).map_err(|e| DistError::Invalid(e.to_string())),
    )?;
    let y = f.targets(plan.learner, &ds)?;
    if f.warm_c_path(&plan, ds.samples.n(), &y) {
        return Err(
            "kern-mpi cv spreads the (cell, fold) fits over the ranks, each fit from zero; kern cv's \
                    default for a two-class svc grid over c fits each fold's values of c in a chain, each \
                    from the previous solution, which cannot be spread that way. Give --no-warm-start (kern \
                    cv --no-warm-start gives the same scores as kern-mpi cv)"
                .into(),
        );
    }
    let t = Instant::now();
    let build = |p: &ParamPoint| f.cell(&plan, p);
    let report = grid_search_dist(comm, &plan.grid, build, &ds.samples, &y, &plan.config)?
        .map(|r| serde_json::to_value(&r))
        .transpose()?;
    let Some(report) = report else { return Ok(None) };
    if let Some(out) = &a.out {
        kern_core::io::write_atomic(out, serde_json::to_string_pretty(&report)?.as_bytes())?;
    }
    let mut v = f.summary(plan.learner, ds.samples.n(), &report, t.elapsed().as_secs_f64());
    if a.out.is_some()
        && let Some(o) = v.as_object_mut()
    {
        o.remove("cells");
    }
    Ok(Some(v))
}

fn run(comm: &dyn Comm, cli: Cli) -> i32 {
    let r = match cli.command {
        Command::Train(a) => train(comm, *a),
        Command::Predict(a) => predict(comm, a),
        Command::Cv(a) => cv(comm, *a),
    };
    match r {
        Ok(Some(mut v)) => {
            v["ranks"] = json!(comm.size());
            println!("{v}");
            0
        }
        Ok(None) => 0,
        Err(e) => {
            // Collective errors are the same on every rank; rank 0 reports, every rank fails.
            if comm.rank() == 0 {
                eprintln!("error: {e}");
            }
            1
        }
    }
}

#[cfg(feature = "mpi")]
fn main() {
    let cli = Cli::parse();
    let code = match kern_dist::MpiComm::init() {
        Some(world) => {
            let code = run(&world, cli);
            drop(world); // finalizes MPI before the exit
            code
        }
        None => {
            eprintln!("error: MPI could not be initialized");
            1
        }
    };
    std::process::exit(code);
}

#[cfg(not(feature = "mpi"))]
fn main() {
    let cli = Cli::parse();
    let launched = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .any(|s| s.parse::<usize>().is_ok_and(|n| n > 1));
    if launched {
        eprintln!(
            "error: this kern-mpi was built without MPI; build it with --features mpi to run on several ranks"
        );
        std::process::exit(1);
    }
    std::process::exit(run(&kern_dist::SingleProcess, cli));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn train_args(args: &[&str]) -> Result<TrainArgs, clap::Error> {
        let mut a = vec!["kern-mpi", "train", "--data", "d.svm", "--lambda", "1", "--out", "m.kern"];
        a.extend(args);
        match Cli::try_parse_from(a)?.command {
            Command::Train(t) => Ok(*t),
            c => panic!("not train: {c:?}"),
        }
    }

    /// `--model` takes kern train's names and value help for lssvm and krr, and refuses the kinds
    /// without a distributed solver (clap lists the two it takes).
    #[test]
    fn model_is_kern_train_s_lssvm_or_krr() {
        for kind in [ModelKind::Lssvm, ModelKind::Krr] {
            let a = train_args(&["--model", kind.name(), "--kernel", "linear"]).expect("parses");
            assert_eq!(a.model.0, kind);
            assert_eq!(a.model.to_possible_value(), kind.to_possible_value(), "the same name and help");
        }
        for kind in ["svc", "nu-svc", "svr", "kfa", "landmark-krr"] {
            let e = train_args(&["--model", kind, "--kernel", "linear"]).expect_err("refused").to_string();
            assert!(e.contains("invalid value") && e.contains("[possible values: lssvm, krr]"), "{e}");
        }
    }

    /// `--lambda auto` (any case) leaves λ to the leave-one-out choice; a word other than auto is
    /// refused by the parser.
    #[test]
    fn lambda_auto_is_no_given_lambda() {
        let parse = |v: &'static str| {
            let a = vec![
                "kern-mpi", "train", "--data", "d.svm", "--lambda", v, "--out", "m.kern", "--model", "krr",
            ];
            Cli::try_parse_from([a, vec!["--kernel", "linear"]].concat())
        };
        for v in ["auto", "AUTO"] {
            let Command::Train(t) = parse(v).expect("parses").command else { panic!("train") };
            assert_eq!(t.lambda().expect("lambda"), None);
        }
        let e = parse("loo").expect_err("refused").to_string();
        assert!(e.contains("neither a number nor auto"), "{e}");
    }

    /// `--gam g` is `--lambda 1/g` for lssvm, refused for krr.
    #[test]
    fn gam_is_the_inverse_of_lambda() {
        let a = train_args(&["--model", "lssvm", "--kernel", "linear"]).expect("parses");
        assert_eq!(a.lambda().expect("lambda"), Some(1.0));
        let mut a = vec!["kern-mpi", "train", "--data", "d.svm", "--gam", "4", "--out", "m.kern"];
        a.extend(["--model", "lssvm", "--kernel", "linear"]);
        let Command::Train(t) = Cli::try_parse_from(a.clone()).expect("parses").command else {
            panic!("train")
        };
        assert_eq!(t.lambda().expect("lambda"), Some(0.25));
        let at = a.len() - 3;
        a[at] = "krr";
        let Command::Train(t) = Cli::try_parse_from(a).expect("parses").command else { panic!("train") };
        assert!(t.lambda().unwrap_err().to_string().starts_with("--gam does not apply to --model krr"));
    }

    /// `--kernel` parses as kern train's does; precomputed is refused with kern train's message for
    /// lssvm and krr.
    #[test]
    fn kernel_is_parsed_as_kern_train_s() {
        let a = train_args(&["--model", "krr", "--kernel", "gaussian:beta=0.05"]).expect("parses");
        assert_eq!(
            train_kernel(&a).expect("spec"),
            "gaussian:beta=0.05".parse::<KernelSpec>().expect("spec")
        );
        let a = train_args(&["--model", "lssvm", "--kernel", "precomputed"]).expect("parses");
        let e = train_kernel(&a).expect_err("refused").to_string();
        assert!(e.starts_with("--kernel precomputed trains SVMs") && e.ends_with("not --model lssvm"), "{e}");
        let a = train_args(&["--model", "krr", "--kernel", "gaussian:nope=1"]).expect("parses");
        let want = "gaussian:nope=1".parse::<KernelSpec>().expect_err("bad spec").to_string();
        assert_eq!(train_kernel(&a).expect_err("refused").to_string(), want);
        // Automatic values: chosen for landmark models, refused on the compact path.
        let a = train_args(&["--model", "krr", "--kernel", "gaussian:sigma=auto"]).expect("parses");
        assert!(matches!(landmark_kernel(&a), Ok(TrainKernel::Auto(_))));
        let e = train_kernel(&a).expect_err("refused").to_string();
        assert!(e.contains("automatic values are chosen for landmark models"), "{e}");
    }
}
