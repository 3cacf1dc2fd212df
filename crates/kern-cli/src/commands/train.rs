//! `kern train`: trains a model on a data file and saves it (header + bincode, atomic write).
//!
//! The learner's flags are kern-cli's `LearnerFlags`, resolved once into the model
//! ([`ModelKind`]) and translated once into its parameters (`AnyParams`, the translation `kern cv`
//! uses); one match arm per model then trains and saves it. What `kern train` adds is its own: the
//! output, the sample weights, the feature scaling. The model file's kind tag is what `kern predict`
//! dispatches on.

use crate::common::{CliError, CliResult, DataArgs, parse_kernel, with_threads};
use kern_cli::any_params::AnyParams;
use kern_cli::learner_flags::LearnerFlags;
use kern_core::io::Dataset;
use kern_models::svm::{KernelMatrix, MachineStats, Multiclass, SvcParams, SvrParams};
use kern_models::weights::{FitWeighted, SampleWeights};
use kern_tune::grid::ParamPoint;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Instant;

pub use kern_cli::kinds::{ModelKind, Scheme};

/// Arguments of `kern train`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub data: DataArgs,
    /// The learner's flags, as `kern cv`'s (`--model`, `--type`, `--kernel`, `--c`, `--nu`, …).
    #[command(flatten)]
    pub learner: LearnerFlags,
    /// Seed of every random step: the probability CV (--probability), the landmarks' centres, the
    /// railway areas.
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

/// Runs `kern train`: the flags resolved once and translated once, before any data is read (a
/// flag given to a model that does not take it is refused on every path: precomputed and railway
/// kernels too), then the data read and the model trained.
pub fn run(a: Args) -> CliResult {
    crate::common::check_out(&a.out, &[&a.data.data])?;
    // The worker threads come up while the data is read.
    kern_core::parallel::warm_up(a.threads);
    let model = a.learner.resolve()?;
    let weighted = model.is_svm() || model == ModelKind::Krr;
    if a.weights.is_some() && !weighted {
        return Err(
            "--weights applies to svc, svr, nu-svc, nu-svr, one-class and krr (without --landmarks)".into()
        );
    }
    check_libsvm_format(&a, model)?;
    let params = a.learner.params(model, &ParamPoint::from_pairs(&[]), a.seed)?;
    // The SVM solvers draw their own progress; the other models get the command's spinner.
    let _spinner = (!model.is_svm()).then(|| crate::progress::Spinner::start("training"));
    if crate::commands::precomputed::is_precomputed(&a.learner.kernel) {
        return crate::commands::precomputed::train(&a, model, params);
    }
    if let AnyParams::Railway(p) = &params {
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
        return crate::commands::railway::train_railway_svc(&a, p, &ds);
    }
    // Every other model computes on either sample store (a sparse file's samples stay O(nnz)).
    let ds = load_scaled(&a, true)?;
    train_params(&a, params, &ds, None)
}

/// Trains and saves the model of `params` on the data, or (the SVMs) on the precomputed kernel
/// matrix `gram` (then `ds` holds its rows).
pub(crate) fn train_params(
    a: &Args,
    params: AnyParams,
    ds: &Dataset,
    gram: Option<&KernelMatrix>,
) -> CliResult {
    use crate::commands::{fvs, landmark, lssvm, svm_types};
    match params {
        AnyParams::Svc(p) => train_svc(a, p, ds, gram),
        AnyParams::Svr(p) => train_svr(a, p, ds, gram),
        AnyParams::NuSvc(p) => svm_types::train_nu_svc(a, p, ds, gram),
        AnyParams::NuSvr(p) => svm_types::train_nu_svr(a, p, ds, gram),
        AnyParams::OneClass(p) => svm_types::train_one_class(a, p, ds, gram),
        AnyParams::LsSvm(p) => lssvm::train_lssvm(a, p, ds),
        AnyParams::Krr(p) => lssvm::train_krr(a, p, ds),
        AnyParams::Kfa(p) => fvs::train_kfa(a, *p, ds),
        AnyParams::Landmark(p) => landmark::train_landmark(a, p, ds),
        AnyParams::Railway(p) => crate::commands::railway::train_railway_svc(a, &p, ds),
    }
}

/// Refuses before training what a LIBSVM model file cannot hold.
fn check_libsvm_format(a: &Args, model: ModelKind) -> Result<(), CliError> {
    use crate::commands::export::{ModelFormat, check_format};
    if a.format != ModelFormat::Libsvm {
        return Ok(());
    }
    let kind = match model {
        ModelKind::Svc | ModelKind::NuSvc => "svc",
        ModelKind::Svr | ModelKind::NuSvr => "svr",
        m => m.name(),
    };
    if model == ModelKind::Railway {
        return Err("--format libsvm: railway kernels are located from the training labels and have no \
                    LIBSVM counterpart"
            .into());
    }
    check_format(a.format, kind)?;
    if a.learner.scheme() == Scheme::Ovr {
        return Err("--format libsvm needs --multiclass ovo: LIBSVM models are one-vs-one".into());
    }
    if a.scale || a.scale_file.is_some() {
        return Err("--format libsvm cannot store a scaling (LIBSVM model files have no place for it): \
                    scale with `kern scale -s PARAMS`, train on the scaled file, and scale test data \
                    with `kern scale -r PARAMS`"
            .into());
    }
    if !crate::commands::precomputed::is_precomputed(&a.learner.kernel) {
        kern_models::libsvm_model::LibsvmKernel::from_spec(&parse_kernel(&a.learner.kernel)?)?;
    }
    Ok(())
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

/// Trains a C-SVC on the data, or on the precomputed kernel matrix `gram` (then `ds` holds its rows).
pub(crate) fn train_svc(a: &Args, p: SvcParams, ds: &Dataset, gram: Option<&KernelMatrix>) -> CliResult {
    crate::common::check_classes(ds, a.learner.allow_many_classes)?;
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
pub(crate) fn train_svr(a: &Args, p: SvrParams, ds: &Dataset, gram: Option<&KernelMatrix>) -> CliResult {
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
