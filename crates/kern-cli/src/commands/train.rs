//! `kern train`: trains a model on a data file and saves it (header + bincode, atomic write).
//!
//! One match arm per model kind ([`ModelKind`]): `svc` and `svr` first; LS-SVM, kernel ridge
//! and FVS/KFA add their kinds as further arms (their own flags go into [`Args`] with the model named
//! in the help text). The model file's kind tag is what `kern predict` dispatches on.

use crate::common::{CliError, CliResult, DataArgs, parse_kernel, with_threads};
use kern_cli::learner_flags::LearnerFlags;
use kern_core::KernelSpec;
use kern_core::io::Dataset;
use kern_models::svm::{KernelMatrix, MachineStats, Multiclass, SolverParams, SvcParams, SvrParams};
use kern_models::weights::{FitWeighted, SampleWeights};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Instant;

pub use kern_cli::kinds::{Learner, ModelKind, Scheme, SvmType};

/// Arguments of `kern train`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub data: DataArgs,
    /// The learner's flags, as `kern cv`'s (`--model`, `--type`, `--kernel`, `--c`, `--nu`, …).
    #[command(flatten)]
    pub learner: LearnerFlags,
    /// Regularization lambda instead of C: C = 1/(2 n lambda) (svc, svr);
    /// K + I/lambda (lssvm); ridge lambda, K + lambda I (krr). For lssvm/krr, absent
    /// means: chosen by exact leave-one-out over the default grid.
    #[arg(long, conflicts_with = "c")]
    pub lambda: Option<f64>,
    /// Gram matrix path: auto (by kernel support and density), dense or sparse (lssvm, krr).
    #[arg(long, default_value = "auto")]
    pub path: String,
    /// Ordering before the sparse Cholesky factorization (lssvm, krr): auto (whichever of amd, rcm and
    /// nd predicts the smallest factor), amd, rcm, nd (nested dissection) or none.
    #[arg(long, default_value = "auto")]
    pub order: String,
    /// Linear solver on the sparse path at a fixed --lambda (lssvm, krr): auto (the sparse Cholesky
    /// factor unless its predicted size exceeds the memory budget), direct, or iterative
    /// (preconditioned conjugate gradients, stopped by --tol and --max-iter). With --landmarks: auto
    /// (the cheaper of the two by their operation counts), direct (factor the centres' normal
    /// equations after one pass over the data) or iterative.
    #[arg(long, default_value = "auto")]
    pub solver: String,
    /// Preconditioner of the iterative solver (lssvm, krr): none (plain conjugate gradients, the
    /// faster on compactly supported kernels with a positive shift) or block-jacobi[:SIZE] (dense
    /// blocks of SIZE points along the nested-dissection order, default 256). With --landmarks:
    /// falkon (the default) or none.
    #[arg(long)]
    pub preconditioner: Option<String>,
    /// Landmark (Nyström) model on M centres (lssvm, krr): random:M (uniform, by --seed) or
    /// fvs:M[:POOL] (feature vector selection on a random pool of POOL points, default
    /// max(10 M, 10000); candidate scoring by --fvs-strategy). Solved by conjugate gradients with
    /// FALKON's preconditioner (--tol, default 1e-6; --max-iter, default 1000); needs --lambda.
    #[arg(long, value_name = "fvs:M|random:M")]
    pub landmarks: Option<String>,
    /// Turn the shrinking heuristic off (svc, svr). Compactly supported kernels with few neighbours per
    /// point (large low-dimensional data) are solved without it either way, as it only costs time there.
    #[arg(long)]
    pub no_shrinking: bool,
    /// Iteration cap of the solver (svc, svr: default max(1e7, 100 n); lssvm, krr iterative: 10000).
    #[arg(long)]
    pub max_iter: Option<u64>,
    /// Class weight LABEL:W, repeatable: class LABEL gets C*W (svc; LIBSVM -wLABEL W).
    #[arg(long = "class-weight", value_name = "LABEL:W")]
    pub class_weight: Vec<String>,
    /// Fit Platt probabilities by internal 5-fold CV (svc; LIBSVM -b 1).
    #[arg(long)]
    pub probability: bool,
    /// Seed of every random step (the probability CV folds).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Where to write the model (`-`: standard output).
    #[arg(long)]
    pub out: PathBuf,
    /// Model file format: kern, or libsvm (svc and svr with linear, poly, gaussian or sigmoid kernels;
    /// LIBSVM's svm-predict reads it).
    #[arg(long, value_enum, default_value = "kern")]
    pub format: crate::commands::export::ModelFormat,
    /// Stop feature vector selection once the fitness reaches this value (kfa).
    #[arg(long)]
    pub min_fitness: Option<f64>,
    /// FVS candidate scoring: auto, exact, max-residual, stochastic[:SEED],
    /// sampled[:CANDIDATES[:SEED]] (kfa).
    #[arg(long, default_value = "auto")]
    pub fvs_strategy: String,
    /// Projection on the feature vectors: dot, orthogonal, coordinates (kfa).
    #[arg(long, default_value = "dot")]
    pub projection: String,
    /// Scale every feature onto [--scale-lower, --scale-upper] by its training range (as svm-scale
    /// does) and store the scaling in the model: `kern predict` then scales raw data the same way.
    #[arg(long, conflicts_with = "scale_file")]
    pub scale: bool,
    /// Lower end of --scale's range.
    #[arg(long, default_value_t = -1.0, requires = "scale", allow_negative_numbers = true)]
    pub scale_lower: f64,
    /// Upper end of --scale's range.
    #[arg(long, default_value_t = 1.0, requires = "scale", allow_negative_numbers = true)]
    pub scale_upper: f64,
    /// Scale the features with the parameters of this file (`svm-scale -s` or `kern scale -s`
    /// output) and store them in the model, as --scale does.
    #[arg(long, value_name = "FILE")]
    pub scale_file: Option<PathBuf>,
    /// Per-sample weights: a text file with one number per training row, in the data file's order
    /// (svc, svr, nu-svc, nu-svr, one-class, krr). A weight multiplies that sample's C (for nu-svc
    /// and one-class it is the sample's bound, as in scikit-learn's sample_weight); an integer
    /// weight m counts the sample m times; weight 0 leaves it out. krr minimizes the weighted squared
    /// error and needs --lambda.
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
}

/// The `--weights` file's weights, one per training sample (`None` without the flag).
pub(crate) fn sample_weights(a: &Args, n: usize) -> Result<Option<SampleWeights>, CliError> {
    let Some(path) = &a.weights else { return Ok(None) };
    let text = std::fs::read_to_string(path).map_err(|e| format!("--weights {}: {e}", path.display()))?;
    let mut w = Vec::with_capacity(n);
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: f64 = line.trim().parse().map_err(|_| {
            format!("--weights {} line {}: {:?} is not a number", path.display(), i + 1, line.trim())
        })?;
        w.push(v);
    }
    if w.len() != n {
        return Err(format!("--weights {}: {} weights for {n} training rows", path.display(), w.len()).into());
    }
    Ok(Some(SampleWeights::new(w).map_err(|e| format!("--weights {}: {e}", path.display()))?))
}

/// The feature scaling `--scale` / `--scale-file` ask for, fitted on (or read for) the training data.
fn scaling_of(a: &Args, ds: &Dataset) -> Result<Option<kern_models::scaling::FeatureScaling>, CliError> {
    use kern_models::scaling::FeatureScaling;
    let s = match (&a.scale_file, a.scale) {
        (Some(p), _) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            FeatureScaling::parse(&text, &p.display().to_string())?
        }
        (None, true) => FeatureScaling::fit(&ds.samples, a.scale_lower, a.scale_upper)?,
        (None, false) => return Ok(None),
    };
    if s.target().is_some() {
        return Err("--scale-file: the file has a target section (svm-scale -y); a model stores feature \
                    scaling only"
            .into());
    }
    Ok(Some(s))
}

/// Loads the training data and applies `--scale` / `--scale-file` (the scaling is then stored with the
/// saved model). `sparse`: the model computes on a sparse store, so a sparse file stays sparse unless
/// it is scaled (scaling moves zeros, so scaled samples are dense).
fn load_scaled(a: &Args, sparse: bool) -> Result<Dataset, CliError> {
    let scaled = a.scale || a.scale_file.is_some();
    let mut ds = if sparse && !scaled { a.data.load_sparse()? } else { a.data.load()? };
    if let Some(s) = scaling_of(a, &ds)? {
        ds.samples = s.apply(&ds.samples)?;
        crate::common::store_scaling_with_model(s, ds.samples.d());
    }
    Ok(ds)
}

/// Runs `kern train`.
pub fn run(a: Args) -> CliResult {
    crate::common::check_out(&a.out, &[&a.data.data])?;
    // The worker threads come up while the data is read.
    kern_core::parallel::warm_up(a.threads);
    // The learner's flags are checked before any data is read, on every path (precomputed and railway
    // kernels too): a flag given to a learner it does not apply to is refused.
    let target = a.learner.resolve()?;
    check_train_flags(&a, target)?;
    if crate::commands::precomputed::is_precomputed(&a.learner.kernel) {
        return crate::commands::precomputed::train(&a);
    }
    check_libsvm_format(&a)?;
    if a.learner.kernel.trim_start().starts_with("railway") {
        let mut ds = load_scaled(&a, true)?;
        if ds.samples.is_sparse() {
            // The railway kernel's areas are located by k-means in the full feature space and its
            // indicator centres and explicit feature map are dense vectors of length d: it needs the
            // samples dense, whatever their sparsity.
            let (n, d) = (ds.samples.n(), ds.samples.d());
            kern_core::memory::check_array::<f64>(
                &[n, d],
                "dense copy of the sparse samples for the railway kernel",
                "the railway kernel's areas and centres are dense points of the feature space; use a \
                 file with fewer features, or another kernel (which keeps sparse data sparse)",
            )?;
            ds.samples = ds
                .samples
                .densify("the railway kernel (its areas and centres are dense points of the feature space)")?
                .into_owned();
        }
        return crate::commands::railway::train_railway_svc(&a, &ds);
    }
    let kernel = parse_kernel(&a.learner.kernel)?;
    // SVMs, LS-SVM, KRR and KFA compute on either sample store (a sparse file's samples stay O(nnz)).
    let sparse = matches!(
        target,
        Learner::Svm(_) | Learner::Model(ModelKind::Lssvm | ModelKind::Krr | ModelKind::Kfa)
    );
    let ds = load_scaled(&a, sparse)?;
    let weighted =
        matches!(target, Learner::Svm(_) | Learner::Model(ModelKind::Krr)) && a.landmarks.is_none();
    if a.weights.is_some() && !weighted {
        return Err(
            "--weights applies to svc, svr, nu-svc, nu-svr, one-class and krr (without --landmarks)".into()
        );
    }
    let model = match target {
        Learner::Svm(SvmType::CSvc) => return train_svc(&a, kernel, &ds, None),
        Learner::Svm(SvmType::EpsilonSvr) => return train_svr(&a, kernel, &ds, None),
        Learner::Svm(t) => return crate::commands::svm_types::train(&a, t, kernel, &ds, None),
        Learner::Model(m) => m,
    };
    match model {
        ModelKind::Svc | ModelKind::Svr => unreachable!("resolved to an SVM type by `kinds::resolve`"),
        ModelKind::Kfa => crate::commands::fvs::train_kfa(&a, kernel, &ds),
        ModelKind::Lssvm | ModelKind::Krr if a.landmarks.is_some() => {
            crate::commands::landmark::train_landmark(&a, kernel, &ds, model == ModelKind::Lssvm)
        }
        ModelKind::Lssvm => {
            crate::commands::lssvm::train_dual(&a, kernel, &ds, crate::commands::lssvm::Dual::LsSvm)
        }
        ModelKind::Krr => {
            crate::commands::lssvm::train_dual(&a, kernel, &ds, crate::commands::lssvm::Dual::Krr)
        }
    }
}

/// Refuses `kern train`'s own flags given to a learner they do not apply to (as
/// `LearnerFlags::resolve` refuses the shared ones, with the same words). The flags with a string
/// default (`--path`, `--order`, `--solver`, `--fvs-strategy`, `--projection`) are refused when they
/// name another value than their default.
fn check_train_flags(a: &Args, l: Learner) -> Result<(), CliError> {
    use Learner::{Model, Svm};
    use ModelKind::{Kfa, Krr, Lssvm};
    use SvmType::{CSvc, EpsilonSvr, NuSvc, NuSvr};
    let svm = matches!(l, Svm(_));
    let dual = matches!(l, Model(Lssvm | Krr));
    let landmarks = a.landmarks.is_some();
    let checks = [
        (
            "--lambda",
            a.lambda.is_some(),
            matches!(l, Svm(CSvc | EpsilonSvr | NuSvr)) || dual,
            "--type c-svc, epsilon-svr and nu-svr, --model lssvm and krr",
        ),
        ("--landmarks", landmarks, dual, "--model lssvm and krr"),
        ("--path", a.path != "auto", dual && !landmarks, "--model lssvm and krr without --landmarks"),
        ("--order", a.order != "auto", dual && !landmarks, "--model lssvm and krr without --landmarks"),
        ("--solver", a.solver != "auto", dual, "--model lssvm and krr"),
        ("--preconditioner", a.preconditioner.is_some(), dual, "--model lssvm and krr"),
        ("--no-shrinking", a.no_shrinking, svm, "the SVMs (--model svc, svr, or --type)"),
        ("--max-iter", a.max_iter.is_some(), svm || dual, "the SVMs, lssvm and krr"),
        ("--class-weight", !a.class_weight.is_empty(), l == Svm(CSvc), "--type c-svc (--model svc)"),
        (
            "--probability",
            a.probability,
            matches!(l, Svm(CSvc | NuSvc)),
            "--type c-svc and nu-svc (--model svc)",
        ),
        ("--min-fitness", a.min_fitness.is_some(), l == Model(Kfa), "--model kfa"),
        (
            "--fvs-strategy",
            a.fvs_strategy != "auto",
            l == Model(Kfa) || (dual && landmarks),
            "--model kfa, and lssvm and krr with --landmarks",
        ),
        ("--projection", a.projection != "dot", l == Model(Kfa), "--model kfa"),
    ];
    a.learner.refuse_unused(l, &checks)
}

/// Whether the fit reports its own progress line (the SVM solvers do, through
/// `kern_models::svm::observe_progress`); the other model kinds get the command's spinner.
pub fn draws_solver_progress(a: &Args) -> bool {
    matches!(a.learner.resolve(), Ok(Learner::Svm(_)))
}

/// Refuses before training what a LIBSVM model file cannot hold.
fn check_libsvm_format(a: &Args) -> Result<(), CliError> {
    use crate::commands::export::{ModelFormat, check_format};
    if a.format != ModelFormat::Libsvm {
        return Ok(());
    }
    let kind = match a.learner.resolve()? {
        Learner::Svm(t) => t.model().map_or("one-class", ModelKind::name),
        Learner::Model(m) => m.name(),
    };
    check_format(a.format, kind)?;
    if a.learner.kernel.trim_start().starts_with("railway") {
        return Err("--format libsvm: railway kernels are located from the training labels and have no \
                    LIBSVM counterpart"
            .into());
    }
    if a.learner.scheme() == Scheme::Ovr {
        return Err("--format libsvm needs --multiclass ovo: LIBSVM models are one-vs-one".into());
    }
    if a.scale || a.scale_file.is_some() {
        return Err("--format libsvm cannot store a scaling (LIBSVM model files have no place for it): \
                    scale with `kern scale -s PARAMS`, train on the scaled file, and scale test data \
                    with `kern scale -r PARAMS`"
            .into());
    }
    kern_models::libsvm_model::LibsvmKernel::from_spec(&parse_kernel(&a.learner.kernel)?)?;
    Ok(())
}

/// The SMO solver's parameters: the shared ones of [`LearnerFlags::solver`], with `--no-shrinking`
/// and `--max-iter`.
pub(crate) fn solver_params(a: &Args) -> SolverParams {
    SolverParams { shrinking: !a.no_shrinking, max_iter: a.max_iter, ..a.learner.solver() }
}

pub(crate) fn machine_json(s: &MachineStats) -> Value {
    json!({
        "n": s.n, "n_sv": s.n_sv, "n_bounded": s.n_bounded, "objective": s.objective, "rho": s.rho,
        "iterations": s.iterations, "violation": s.violation, "hit_cap": s.hit_cap, "plan": s.plan,
    })
}

/// The summary's `"plan"`: the machines' plan when they all took the same path, else one per
/// machine, in decision-value order.
pub(crate) fn plan_json(stats: &[MachineStats]) -> Value {
    match stats.split_first() {
        Some((first, rest)) if rest.iter().all(|s| s.plan == first.plan) => json!(first.plan),
        _ => json!(stats.iter().map(|s| s.plan).collect::<Vec<_>>()),
    }
}

pub(crate) fn warn_caps(stats: &[MachineStats]) -> Vec<String> {
    let w: Vec<String> = stats.iter().filter_map(MachineStats::warning).collect();
    for m in &w {
        eprintln!("kern: warning: {m}");
    }
    w
}

/// Builds C-SVC params from the command line (shared with `kern cv`).
pub fn svc_params(a: &Args, kernel: KernelSpec) -> Result<SvcParams, CliError> {
    let mut p = SvcParams::new(kernel).solver(solver_params(a));
    if let Some(c) = a.learner.c {
        p = p.c(c);
    }
    if let Some(l) = a.lambda {
        p = p.lambda(l);
    }
    for cw in &a.class_weight {
        let (label, w) =
            cw.rsplit_once(':').ok_or_else(|| format!("--class-weight {cw:?}: expected LABEL:W"))?;
        let w: f64 = w.parse().map_err(|_| format!("--class-weight {cw:?}: {w:?} is not a number"))?;
        p = p.class_weight(label, w);
    }
    p = p.multiclass(a.learner.scheme().into());
    Ok(p.probability(a.probability, a.seed))
}

/// Trains a C-SVC on the data, or on the precomputed kernel matrix `gram` (then `ds` holds its rows).
pub(crate) fn train_svc(
    a: &Args,
    kernel: KernelSpec,
    ds: &Dataset,
    gram: Option<&KernelMatrix>,
) -> CliResult {
    crate::common::check_classes(ds, a.learner.allow_many_classes)?;
    let p = svc_params(a, kernel)?;
    let targets = crate::common::targets(ds, false)?;
    let w = sample_weights(a, ds.samples.n())?;
    let t = Instant::now();
    let m = with_threads(a.threads, || match gram {
        Some(k) => p.fit_precomputed_with(k, &targets, w.as_ref()),
        None => p.fit_with(&ds.samples, &targets, w.as_ref()),
    })??;
    let seconds = t.elapsed().as_secs_f64();
    report_svc(a, ds, &m, seconds)
}

/// Saves a trained C-SVC or nu-SVC and describes it.
pub(crate) fn report_svc(a: &Args, ds: &Dataset, m: &kern_models::svm::Svc, seconds: f64) -> CliResult {
    crate::commands::export::save_svc(&a.out, m, a.format)?;
    let stats = m.stats();
    let warnings = warn_caps(stats);
    Ok(json!({
        "model": "svc",
        "type": if m.nu().is_some() { "nu-svc" } else { "c-svc" },
        "nu": m.nu(),
        "kernel": crate::commands::precomputed::kernel_name(m.is_precomputed(), m.kernel()),
        "n": ds.samples.n(),
        "d": ds.samples.d(),
        "classes": m.names(),
        "multiclass": if m.n_machines() == 1 { "binary" } else if m.scheme() == Multiclass::OneVsOne { "ovo" } else { "ovr" },
        "n_sv": m.n_sv(),
        "objective": stats.iter().map(|s| s.objective).collect::<Vec<_>>(),
        "iterations": stats.iter().map(|s| s.iterations).sum::<u64>(),
        "max_violation": stats.iter().map(|s| s.violation).fold(0.0, f64::max),
        "machines": stats.iter().map(machine_json).collect::<Vec<_>>(),
        "plan": plan_json(stats),
        "probability": m.has_probability(),
        "warnings": warnings,
        "out": a.out.display().to_string(),
        "seconds": seconds,
    }))
}

/// Trains an epsilon-SVR on the data, or on the precomputed kernel matrix `gram`.
pub(crate) fn train_svr(
    a: &Args,
    kernel: KernelSpec,
    ds: &Dataset,
    gram: Option<&KernelMatrix>,
) -> CliResult {
    let mut p = SvrParams::new(kernel).epsilon(a.learner.epsilon_value()).solver(solver_params(a));
    if let Some(c) = a.learner.c {
        p = p.c(c);
    }
    if let Some(l) = a.lambda {
        p = p.lambda(l);
    }
    let y = ds.real()?;
    let targets = kern_core::Targets::Real(y.clone());
    let w = sample_weights(a, ds.samples.n())?;
    let t = Instant::now();
    let m = with_threads(a.threads, || match gram {
        Some(k) => p.fit_precomputed_with(k, &y, w.as_ref()),
        None => p.fit_with(&ds.samples, &targets, w.as_ref()),
    })??;
    let seconds = t.elapsed().as_secs_f64();
    report_svr(a, ds, &m, seconds)
}

/// Saves a trained epsilon-SVR or nu-SVR and describes it.
pub(crate) fn report_svr(a: &Args, ds: &Dataset, m: &kern_models::svm::Svr, seconds: f64) -> CliResult {
    crate::commands::export::save_svr(&a.out, m, a.format)?;
    let s = m.stats();
    let warnings = warn_caps(std::slice::from_ref(s));
    Ok(json!({
        "model": "svr",
        "type": if m.nu().is_some() { "nu-svr" } else { "epsilon-svr" },
        "nu": m.nu(),
        "epsilon": m.epsilon(),
        "kernel": crate::commands::precomputed::kernel_name(m.is_precomputed(), m.kernel()),
        "n": ds.samples.n(),
        "d": ds.samples.d(),
        "n_sv": s.n_sv,
        "objective": s.objective,
        "iterations": s.iterations,
        "max_violation": s.violation,
        "machines": [machine_json(s)],
        "plan": s.plan,
        "warnings": warnings,
        "out": a.out.display().to_string(),
        "seconds": seconds,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        train: Args,
    }

    fn check(args: &[&str]) -> Result<(), String> {
        let mut a = vec!["train", "--data", "d.svm", "--out", "m.kern", "--kernel", "linear"];
        a.extend(args);
        let a = Cli::try_parse_from(a).expect("flags parse").train;
        let l = a.learner.resolve().map_err(|e| e.to_string())?;
        check_train_flags(&a, l).map_err(|e| e.to_string())
    }

    /// Every flag of `kern train`'s own that applies to some learners only, with every learner:
    /// accepted exactly where it applies, refused elsewhere naming the flag and the learner.
    #[test]
    fn train_s_own_flags_are_refused_where_they_do_not_apply() {
        let learners: [&[&str]; 10] = [
            &["--type", "c-svc"],
            &["--type", "nu-svc"],
            &["--type", "one-class"],
            &["--type", "epsilon-svr"],
            &["--type", "nu-svr"],
            &["--model", "kfa"],
            &["--model", "lssvm"],
            &["--model", "krr"],
            &["--model", "lssvm", "--landmarks", "random:5"],
            &["--model", "krr", "--landmarks", "random:5"],
        ];
        // Per flag: the indices (in `learners`) that take it.
        let table: [(&[&str], &[usize]); 13] = [
            (&["--lambda", "0.1"], &[0, 3, 4, 6, 7, 8, 9]),
            (&["--landmarks", "fvs:3"], &[6, 7]),
            (&["--path", "dense"], &[6, 7]),
            (&["--order", "amd"], &[6, 7]),
            (&["--solver", "iterative"], &[6, 7, 8, 9]),
            (&["--preconditioner", "none"], &[6, 7, 8, 9]),
            (&["--no-shrinking"], &[0, 1, 2, 3, 4]),
            (&["--max-iter", "10"], &[0, 1, 2, 3, 4, 6, 7, 8, 9]),
            (&["--class-weight", "1:2"], &[0]),
            (&["--probability"], &[0, 1]),
            (&["--min-fitness", "0.9"], &[5]),
            (&["--fvs-strategy", "exact"], &[5, 8, 9]),
            (&["--projection", "orthogonal"], &[5]),
        ];
        for (flag, takers) in table {
            // (`--landmarks` is given once: the learners with it already are left out of its row.)
            for (i, learner) in learners.iter().enumerate().filter(|(_, l)| !l.contains(&flag[0])) {
                let mut a = learner.to_vec();
                a.extend(flag);
                let r = check(&a);
                assert_eq!(r.is_ok(), takers.contains(&i), "{a:?}: {r:?}");
                if let Err(e) = r {
                    let want = format!("{} does not apply to {} {}; ", flag[0], learner[0], learner[1]);
                    assert!(e.starts_with(&want), "{a:?}: {e}");
                }
            }
        }
        // The defaults, given or not, are accepted everywhere.
        for learner in learners {
            let mut a = learner.to_vec();
            a.extend(["--path", "auto", "--order", "auto", "--solver", "auto", "--fvs-strategy", "auto"]);
            a.extend(["--projection", "dot"]);
            assert_eq!(check(&a), Ok(()), "{a:?}");
        }
    }
}
