//! The KFA family: kernel feature analysis (`kern train --model kfa`: feature vector selection, then
//! least squares, Baudat & Anouar eqs. 9–10), its training summary and what `kern predict` reports
//! for it.

use super::Train;
use crate::metrics::{accuracy, errors};
use crate::output::CliResult;
use crate::resources::with_threads;
use kern_core::io::Dataset;
use kern_core::learner::Fit;
use kern_models::Predictions;
use kern_models::kfa::{KfaModel, KfaParams, Task};
use serde_json::{Value, json};
use std::time::Instant;

/// `kern train --model kfa`: FVS then least squares (eqs. 9–10); saves a `kfa` model.
pub fn train(t: &Train, params: KfaParams<kern_core::KernelSpec>, ds: &Dataset) -> CliResult {
    let targets = kern_cli::kinds::targets(ds, t.regression)?;
    let t0 = Instant::now();
    let m = with_threads(t.threads, || params.fit(&ds.samples, &targets))??;
    let seconds = t0.elapsed().as_secs_f64();
    t.save(&m)?;
    let layer = &m.layers()[0];
    Ok(json!({
        "model": "kfa",
        "kernel": layer.kernel().to_string(),
        "n": ds.samples.n(),
        "d": ds.samples.d(),
        "task": match m.task() {
            Task::Binary { .. } => "binary",
            Task::Classes { .. } => "classes",
            Task::Real => "regression",
        },
        "n_fv": layer.n_fv(),
        "fitness": layer.fitness().last().copied().unwrap_or(0.0),
        "rank": m.readout().rank(),
        "out": t.out_name(),
        "seconds": seconds,
    }))
}

/// `kern predict`'s summary for a KFA model (`name`: the model's learner name).
pub fn predict(k: &KfaModel<kern_core::KernelSpec>, name: &str, p: &Predictions, ds: &Dataset) -> Value {
    let real = matches!(k.task(), Task::Real);
    let labelled = ds.labels.iter().any(|l| !l.is_empty());
    let accuracy = if real || !labelled { None } else { accuracy(&p.labels, &ds.labels) };
    let rmse = if real { errors(&p.values, ds).0 } else { None };
    json!({ "model": name, "n": ds.samples.n(), "n_fv": k.n_fv(), "accuracy": accuracy, "rmse": rmse })
}
