//! `kern train --model nu-svc|nu-svr|one-class` (LIBSVM's `-s 1`, `-s 4`, `-s 2`; also `--type`) and
//! `kern predict` with a one-class model.

use crate::commands::train::{Args, machine_json, report_svc, report_svr, sample_weights, warn_caps};
use crate::common::{CliResult, with_threads};
use kern_core::io::Dataset;
use kern_core::learner::Model;
use kern_models::svm::{KernelMatrix, NuSvcParams, NuSvrParams, OneClass, OneClassParams};
use kern_models::weights::FitWeighted;
use serde_json::json;
use std::time::Instant;

/// Trains a nu-SVC on the data, or on the precomputed kernel matrix `gram` (then `ds` holds its rows).
pub fn train_nu_svc(a: &Args, p: NuSvcParams, ds: &Dataset, gram: Option<&KernelMatrix>) -> CliResult {
    crate::common::check_classes(ds, a.learner.allow_many_classes)?;
    let w = sample_weights(a, ds.samples.n())?;
    let targets = crate::common::targets(ds, false)?;
    let t0 = Instant::now();
    let m = with_threads(a.threads, || match gram {
        Some(k) => p.fit_precomputed_with(k, &targets, w.as_ref()),
        None => p.fit_with(&ds.samples, &targets, w.as_ref()),
    })??;
    report_svc(a, ds, &m, t0.elapsed().as_secs_f64())
}

/// Trains a nu-SVR on the data, or on the precomputed kernel matrix `gram`.
pub fn train_nu_svr(a: &Args, p: NuSvrParams, ds: &Dataset, gram: Option<&KernelMatrix>) -> CliResult {
    let w = sample_weights(a, ds.samples.n())?;
    let y = ds.real()?;
    let targets = kern_core::Targets::Real(y.clone());
    let t0 = Instant::now();
    let m = with_threads(a.threads, || match gram {
        Some(k) => p.fit_precomputed_with(k, &y, w.as_ref()),
        None => p.fit_with(&ds.samples, &targets, w.as_ref()),
    })??;
    report_svr(a, ds, &m, t0.elapsed().as_secs_f64())
}

/// Trains a one-class SVM on the samples (labels unused), or on the precomputed kernel matrix `gram`.
pub fn train_one_class(a: &Args, p: OneClassParams, ds: &Dataset, gram: Option<&KernelMatrix>) -> CliResult {
    let w = sample_weights(a, ds.samples.n())?;
    let t0 = Instant::now();
    let m = with_threads(a.threads, || match (gram, &w) {
        (Some(k), w) => p.fit_precomputed_with(k, w.as_ref()),
        (None, Some(w)) => p.fit_weighted(&ds.samples, w),
        (None, None) => p.fit(&ds.samples),
    })??;
    let seconds = t0.elapsed().as_secs_f64();
    crate::commands::export::save_one_class(&a.out, &m, a.format)?;
    let s = m.stats();
    let warnings = warn_caps(std::slice::from_ref(s));
    let outliers = with_threads(a.threads, || m.predict(&ds.samples))??.iter().filter(|&&v| v < 0.0).count();
    Ok(json!({
        "model": "one-class",
        "type": "one-class",
        "nu": m.nu(),
        "kernel": crate::commands::precomputed::kernel_name(m.is_precomputed(), m.kernel()),
        "n": ds.samples.n(),
        "d": ds.samples.d(),
        "n_sv": s.n_sv,
        "training_outliers": outliers,
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

/// Predicts with a one-class model: `+1` inside the estimated support, `-1` for outliers (or the
/// decision values with `decision`). When every label of the data is -1 or +1 the accuracy is reported,
/// as LIBSVM's svm-predict does.
pub fn predict_one_class(
    m: &OneClass,
    x: &kern_core::Samples,
    ds: &Dataset,
    decision: bool,
    threads: Option<usize>,
    out: Option<&std::path::Path>,
) -> CliResult {
    let t0 = Instant::now();
    let dec = with_threads(threads, || m.decision_function(x))??;
    let seconds = t0.elapsed().as_secs_f64();
    let pred: Vec<f64> = dec.iter().map(|&v| if v > 0.0 { 1.0 } else { -1.0 }).collect();
    let labels: Option<Vec<f64>> =
        ds.labels.iter().map(|l| l.trim().parse::<f64>().ok().filter(|v| *v == 1.0 || *v == -1.0)).collect();
    let accuracy = labels
        .filter(|l| !l.is_empty())
        .map(|l| l.iter().zip(&pred).filter(|(a, b)| a == b).count() as f64 / l.len() as f64);
    if let Some(out) = out {
        let vals = if decision { &dec } else { &pred };
        let mut s = vals.iter().map(|v| format!("{v}")).collect::<Vec<_>>().join("\n");
        s.push('\n');
        crate::common::write_output(out, s.as_bytes())?;
    }
    Ok(json!({
        "model": "one-class",
        "n": pred.len(),
        "outliers": pred.iter().filter(|&&v| v < 0.0).count(),
        "accuracy": accuracy,
        "seconds": seconds,
    }))
}
