//! The railway family: `kern train --model railway --kernel railway:auto` and what `kern predict`
//! reports for it: areas located from the training labels (González & Muñoz §4), the railway
//! kernel's explicit feature map (Proposition 1), and a linear C-SVC on it, saved as a `railway-svc`
//! model.
//!
//! Spec (parsed by kern-cli's `any_params::railway_spec`):
//! `railway:auto[,local=linear|affine][,gamma=C][,significance=A][,k_max=K][,sub_cells=S]` —
//! `local=affine` is `x·y + 1` (each area gets its own offset), `gamma` the relative indicator sharpness
//! (`γ = C / r²`).

use super::Train;
use crate::output::{CliError, CliResult};
use crate::resources::with_threads;
use kern_cli::any_params::RailwayParams;
use kern_core::Targets;
use kern_core::io::Dataset;
use kern_core::learner::Fit;
use kern_models::Predictions;
use kern_models::railway::{RailwaySvc, ZoneMap, locate_areas};
use serde_json::{Value, json};
use std::time::Instant;

/// `kern train --model railway --kernel railway:auto[,...]` (also `--model svc` with a railway kernel).
/// The railway kernel's areas are located by k-means in the full feature space and its indicator
/// centres and explicit feature map are dense vectors of length d: sparse samples are made dense
/// (with a memory check) first.
pub fn train(t: &Train, p: &RailwayParams, mut ds: Dataset) -> CliResult {
    if ds.samples.is_sparse() {
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
    let ds = &ds;
    kern_cli::kinds::check_classes(ds, t.allow_many_classes)?;
    let classes = ds.classes()?;
    let targets = if classes.n_classes() == 2 {
        Targets::Binary(ds.binary()?)
    } else {
        Targets::Classes(classes.clone())
    };
    let t0 = Instant::now();
    let (loc, model) = with_threads(t.threads, || -> Result<_, CliError> {
        let loc = locate_areas(&ds.samples, &classes, &p.areas)?;
        let kernel = loc.kernel(p.local.clone())?;
        let map = ZoneMap::fit(kernel, &ds.samples, 1e-12)?;
        let z = map.transform(&ds.samples)?;
        let svc = p.svc.fit(&z, &targets)?;
        Ok((loc, RailwaySvc { map, svc }))
    })??;
    let seconds = t0.elapsed().as_secs_f64();
    t.save(&model)?;
    Ok(json!({
        "model": "svc",
        "kernel": t.kernel,
        "local": p.local_name,
        "n": ds.samples.n(),
        "d": ds.samples.d(),
        "classes": model.svc.names(),
        "k_tried": loc.trace.iter().map(|t| t.k).collect::<Vec<_>>(),
        "converged": loc.converged,
        "areas": loc.areas.iter().map(|r| json!({
            "center": r.center, "radius": r.radius, "gamma": r.gamma, "members": r.members.len(),
        })).collect::<Vec<_>>(),
        "zones": model.map.zones().len(),
        "n_sv": model.svc.n_sv(),
        "out": t.out_name(),
        "seconds": seconds,
    }))
}

/// `kern predict`'s summary for a railway SVC (`name`: the model's learner name).
pub fn predict(name: &str, p: &Predictions, ds: &Dataset) -> Value {
    let accuracy = crate::metrics::accuracy(&p.labels, &ds.labels);
    json!({ "model": name, "kernel": "railway", "n": ds.samples.n(), "accuracy": accuracy })
}
