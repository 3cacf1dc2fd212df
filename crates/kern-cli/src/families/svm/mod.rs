//! The SVM family: C-SVC, nu-SVC, one-class, epsilon-SVR and nu-SVR (LIBSVM's `-s 0` to `-s 4`,
//! `kern train --model svc|svr|nu-svc|nu-svr|one-class` or `--type`), trained on the data or on a
//! precomputed kernel matrix ([`precomputed`]; its cross-validation folds: [`precomputed_cv`]),
//! saved as kern or LIBSVM model files ([`ModelFormat`]); and what `kern predict` reports for them
//! and for LIBSVM model files.

pub mod precomputed;
pub mod precomputed_cv;

use super::Train;
use crate::metrics::{accuracy, errors};
use crate::output::{CliError, CliResult, write_output};
use crate::resources::{with_threads, with_threads_unless_here};
use kern_core::io::Dataset;
use kern_core::learner::Model;
use kern_core::{Samples, Targets};
use kern_models::libsvm_model::LibsvmModel;
use kern_models::svm::{
    KernelMatrix, MachineStats, Multiclass, NuSvcParams, NuSvrParams, OneClassParams, Svc, SvcParams, Svr,
    SvrParams, plan::Placement,
};
use kern_models::weights::{FitWeighted, SampleWeights};
use kern_models::{AnyModel, Predictions};
use precomputed::kernel_name;
use serde_json::{Value, json};
use std::time::Instant;

/// The format of a model file written by `kern train`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ModelFormat {
    /// kern's own model file (every model kind; read by `kern predict`).
    #[default]
    Kern,
    /// A LIBSVM model file (SVMs of every --type with linear, poly, gaussian or sigmoid kernels), read by
    /// LIBSVM's svm-predict and its bindings, and by `kern predict`.
    Libsvm,
}

/// The refusal of a model of kind `kind` that is not an SVM as a LIBSVM model file.
pub fn not_an_svm(kind: &str) -> String {
    format!(
        "a {kind:?} model cannot be written as a LIBSVM model file: LIBSVM holds support vector machines \
         (models trained with --model svc, --model svr or --type)"
    )
}

/// Checks before training that `format` can hold a model of kind `kind` (`svc`, `svr`, …).
pub fn check_format(format: ModelFormat, kind: &str) -> Result<(), CliError> {
    if format == ModelFormat::Libsvm && !matches!(kind, "svc" | "svr" | "one-class") {
        return Err(not_an_svm(kind).into());
    }
    Ok(())
}

/// Saves a trained SVM to `--out` in the format `kern train --format` asks for (`libsvm`: its
/// LIBSVM model file, made by `libsvm`).
fn save<M: kern_models::persist::Persist>(
    t: &Train,
    m: &M,
    libsvm: impl FnOnce(&M) -> kern_models::Result<LibsvmModel>,
) -> Result<(), CliError> {
    match t.format {
        ModelFormat::Kern => t.save(m),
        ModelFormat::Libsvm => write_output(t.out(), libsvm(m)?.to_text().as_bytes()),
    }
}

fn machine_json(s: &MachineStats) -> Value {
    json!({
        "n": s.n, "n_sv": s.n_sv, "n_bounded": s.n_bounded, "objective": s.objective, "rho": s.rho,
        "iterations": s.iterations, "violation": s.violation, "hit_cap": s.hit_cap, "plan": s.plan,
    })
}

/// The summary's `"plan"`: the machines' plan when they all took the same path, else one per
/// machine, in decision-value order.
fn plan_json(stats: &[MachineStats]) -> Value {
    match stats.split_first() {
        Some((first, rest)) if rest.iter().all(|s| s.plan == first.plan) => json!(first.plan),
        _ => json!(stats.iter().map(|s| s.plan).collect::<Vec<_>>()),
    }
}

/// The machines' warnings (an iteration cap hit), also printed on stderr.
fn warn_caps(stats: &[MachineStats]) -> Vec<String> {
    let w: Vec<String> = stats.iter().filter_map(MachineStats::warning).collect();
    for m in &w {
        eprintln!("kern: warning: {m}");
    }
    w
}

/// The SVM parameters `kern train` fits on the data or on a precomputed kernel matrix, with or
/// without sample weights: C-SVC and nu-SVC (an [`Svc`]), epsilon-SVR and nu-SVR (an [`Svr`]).
pub trait SvmParams: FitWeighted + Sync {
    /// Trains on the precomputed kernel matrix `k` (its rows the training points) with targets `y`.
    fn fit_on_matrix(
        &self,
        k: &KernelMatrix,
        y: &Targets,
        w: Option<&SampleWeights>,
    ) -> Result<Self::Model, CliError>;

    /// Where a fit on the samples `x` with targets `y` runs (the SVM plan's rule).
    fn placement(&self, x: &Samples, y: &Targets) -> Placement;
}

macro_rules! svm_params {
    ($params:ty, classes) => {
        impl SvmParams for $params {
            fn fit_on_matrix(
                &self,
                k: &KernelMatrix,
                y: &Targets,
                w: Option<&SampleWeights>,
            ) -> Result<Self::Model, CliError> {
                Ok(self.fit_precomputed_with(k, y, w)?)
            }

            fn placement(&self, x: &Samples, y: &Targets) -> Placement {
                let classes = match y {
                    Targets::Binary(_) => 2,
                    Targets::Classes(c) => c.n_classes(),
                    Targets::Real(_) => 0,
                };
                self.placement(x, classes)
            }
        }
    };
    ($params:ty, real) => {
        impl SvmParams for $params {
            fn fit_on_matrix(
                &self,
                k: &KernelMatrix,
                y: &Targets,
                w: Option<&SampleWeights>,
            ) -> Result<Self::Model, CliError> {
                let Targets::Real(y) = y else { return Err("regression needs real-valued targets".into()) };
                Ok(self.fit_precomputed_with(k, y, w)?)
            }

            fn placement(&self, x: &Samples, _: &Targets) -> Placement {
                self.placement(x)
            }
        }
    };
}
svm_params!(SvcParams, classes);
svm_params!(NuSvcParams, classes);
svm_params!(SvrParams, real);
svm_params!(NuSvrParams, real);

/// How a fit went: the seconds it took, and where it ran (the plan's [`Placement`]; a precomputed
/// kernel matrix's fit runs on the pool).
struct Timed {
    seconds: f64,
    placement: Placement,
}

impl Timed {
    /// Runs `fit` where `placement` says, on `threads` threads, and times it. A fit on this thread
    /// asks rayon for its pool here, so it stays on the pool unless `kern train` started the global
    /// pool for `threads` (`warm_up_global`; starting it can fail where threads cannot be made).
    fn run<M: Send>(
        threads: Option<usize>,
        placement: Placement,
        fit: impl FnOnce() -> Result<M, CliError> + Send,
    ) -> Result<(M, Timed), CliError> {
        let started = kern_core::parallel::global_claimed_for(threads);
        let placement = if started { placement } else { Placement::Pool };
        let t0 = Instant::now();
        let m = with_threads_unless_here(threads, placement == Placement::Caller, fit)??;
        Ok((m, Timed { seconds: t0.elapsed().as_secs_f64(), placement }))
    }

    /// Adds `"seconds"` and `"placement"` to a summary.
    fn report(&self, v: &mut Value) {
        v["seconds"] = json!(self.seconds);
        v["placement"] = json!(self.placement.name());
    }
}

/// Trains `p` with targets `y` on the data, or on the precomputed kernel matrix `gram` (then `ds`
/// holds its rows), with `--weights` when given.
fn fit_svm<P: SvmParams>(
    t: &Train,
    p: &P,
    ds: &Dataset,
    y: &Targets,
    gram: Option<&KernelMatrix>,
) -> Result<(P::Model, Timed), CliError> {
    let w = t.weights(ds.samples.n())?;
    let placement = if gram.is_some() { Placement::Pool } else { p.placement(&ds.samples, y) };
    Timed::run(t.threads, placement, || match gram {
        Some(k) => p.fit_on_matrix(k, y, w.as_ref()),
        None => Ok(p.fit_with(&ds.samples, y, w.as_ref())?),
    })
}

/// Trains a C-SVC or nu-SVC on the data, or on the precomputed kernel matrix `gram` (then `ds` holds
/// its rows).
pub fn train_svc<P: SvmParams<Model = Svc>>(
    t: &Train,
    p: P,
    ds: &Dataset,
    gram: Option<&KernelMatrix>,
) -> CliResult {
    kern_cli::kinds::check_classes(ds, t.allow_many_classes)?;
    let targets = kern_cli::kinds::targets(ds, false)?;
    let (m, timed) = fit_svm(t, &p, ds, &targets, gram)?;
    report_svc(t, ds, &m, &timed)
}

/// Saves a trained C-SVC or nu-SVC and describes it.
fn report_svc(t: &Train, ds: &Dataset, m: &Svc, timed: &Timed) -> CliResult {
    save(t, m, LibsvmModel::from_svc)?;
    let stats = m.stats();
    let warnings = warn_caps(stats);
    let mut v = json!({
        "model": "svc",
        "type": if m.nu().is_some() { "nu-svc" } else { "c-svc" },
        "nu": m.nu(),
        "kernel": kernel_name(m.is_precomputed(), m.kernel()),
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
        "out": t.out_name(),
    });
    timed.report(&mut v);
    Ok(v)
}

/// Trains an epsilon-SVR or nu-SVR on the data, or on the precomputed kernel matrix `gram`.
pub fn train_svr<P: SvmParams<Model = Svr>>(
    t: &Train,
    p: P,
    ds: &Dataset,
    gram: Option<&KernelMatrix>,
) -> CliResult {
    let targets = kern_core::Targets::Real(ds.real()?);
    let (m, timed) = fit_svm(t, &p, ds, &targets, gram)?;
    report_svr(t, ds, &m, &timed)
}

/// The summary of a model of one machine (SVR, one-class): its figures, the machine's and the
/// warnings (also printed on stderr).
fn one_machine(t: &Train, ds: &Dataset, s: &MachineStats, kernel: String, timed: &Timed) -> Value {
    let warnings = warn_caps(std::slice::from_ref(s));
    let mut v = json!({
        "kernel": kernel,
        "n": ds.samples.n(),
        "d": ds.samples.d(),
        "n_sv": s.n_sv,
        "objective": s.objective,
        "iterations": s.iterations,
        "max_violation": s.violation,
        "machines": [machine_json(s)],
        "plan": s.plan,
        "warnings": warnings,
        "out": t.out_name(),
    });
    timed.report(&mut v);
    v
}

/// Saves a trained epsilon-SVR or nu-SVR and describes it.
fn report_svr(t: &Train, ds: &Dataset, m: &Svr, timed: &Timed) -> CliResult {
    save(t, m, LibsvmModel::from_svr)?;
    let mut v = one_machine(t, ds, m.stats(), kernel_name(m.is_precomputed(), m.kernel()), timed);
    v["model"] = json!("svr");
    v["type"] = json!(if m.nu().is_some() { "nu-svr" } else { "epsilon-svr" });
    v["nu"] = json!(m.nu());
    v["epsilon"] = json!(m.epsilon());
    Ok(v)
}

/// Trains a one-class SVM on the samples (labels unused), or on the precomputed kernel matrix `gram`.
pub fn train_one_class(t: &Train, p: OneClassParams, ds: &Dataset, gram: Option<&KernelMatrix>) -> CliResult {
    let w = t.weights(ds.samples.n())?;
    let placement = if gram.is_some() { Placement::Pool } else { p.placement(&ds.samples) };
    let (m, timed) = Timed::run(t.threads, placement, || {
        Ok(match (gram, &w) {
            (Some(k), w) => p.fit_precomputed_with(k, w.as_ref()),
            (None, Some(w)) => p.fit_weighted(&ds.samples, w),
            (None, None) => p.fit(&ds.samples),
        }?)
    })?;
    save(t, &m, LibsvmModel::from_one_class)?;
    let mut v = one_machine(t, ds, m.stats(), kernel_name(m.is_precomputed(), m.kernel()), &timed);
    let outliers = with_threads(t.threads, || m.predict(&ds.samples))??.iter().filter(|&&v| v < 0.0).count();
    v["model"] = json!("one-class");
    v["type"] = json!("one-class");
    v["nu"] = json!(m.nu());
    v["training_outliers"] = json!(outliers);
    Ok(v)
}

/// `kern predict`'s summary for a LIBSVM model file (`classifier`: an SVC or one-class model).
pub fn predict_libsvm(l: &LibsvmModel, classifier: bool, p: &Predictions, ds: &Dataset) -> Value {
    let (rmse, mae) = if classifier { (None, None) } else { errors(&p.values, ds) };
    json!({
        "model": "libsvm",
        "svm_type": l.svm_type().name(),
        "kernel": l.kernel().to_string(),
        "n": ds.samples.n(),
        "accuracy": if classifier { accuracy(&p.labels, &ds.labels) } else { None },
        "rmse": rmse,
        "mae": mae,
        "probability": l.has_probability(),
    })
}

/// `kern predict`'s summary for a kern SVM (`name`: the model's learner name).
pub fn predict(m: &AnyModel, name: &str, p: &Predictions, ds: &Dataset) -> Value {
    let n = ds.samples.n();
    match m {
        AnyModel::Svc(s) => json!({
            "model": name,
            "n": n,
            "accuracy": accuracy(&p.labels, &ds.labels),
            "probability": s.has_probability(),
        }),
        AnyModel::Svr(_) => {
            let (rmse, mae) = errors(&p.values, ds);
            json!({ "model": name, "n": n, "rmse": rmse, "mae": mae })
        }
        AnyModel::OneClass(_) => {
            // The accuracy when every label of the data is -1 or +1, as LIBSVM's svm-predict reports it.
            let labels: Option<Vec<f64>> = ds
                .labels
                .iter()
                .map(|l| l.trim().parse::<f64>().ok().filter(|v| *v == 1.0 || *v == -1.0))
                .collect();
            let accuracy = labels
                .filter(|l| !l.is_empty())
                .map(|l| l.iter().zip(&p.values).filter(|(a, b)| a == b).count() as f64 / l.len() as f64);
            json!({
                "model": name,
                "n": n,
                "outliers": p.values.iter().filter(|&&v| v < 0.0).count(),
                "accuracy": accuracy,
            })
        }
        _ => json!({ "model": name, "n": n }),
    }
}
