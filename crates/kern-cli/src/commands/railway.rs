//! `kern train --model railway --kernel railway:auto` and its `kern predict` arm: areas located from the
//! training labels (González & Muñoz §4), the railway kernel's explicit feature map (Proposition 1), and
//! a linear C-SVC on it, saved as a `railway-svc` model.
//!
//! Spec (parsed by kern-cli's `any_params::railway_spec`):
//! `railway:auto[,local=linear|affine][,gamma=C][,significance=A][,k_max=K][,sub_cells=S]` —
//! `local=affine` is `x·y + 1` (each area gets its own offset), `gamma` the relative indicator sharpness
//! (`γ = C / r²`).

use crate::common::{CliError, CliResult, with_threads};
use kern_cli::any_params::RailwayParams;
use kern_core::Targets;
use kern_core::io::Dataset;
use kern_core::learner::Fit;
use kern_models::railway::{RailwaySvc, ZoneMap, locate_areas};
use serde_json::json;
use std::time::Instant;

/// `kern train --model railway --kernel railway:auto[,...]` (also `--model svc` with a railway kernel).
pub fn train_railway_svc(a: &crate::commands::train::Args, p: &RailwayParams, ds: &Dataset) -> CliResult {
    crate::common::check_classes(ds, a.learner.allow_many_classes)?;
    let classes = ds.classes()?;
    let targets = if classes.n_classes() == 2 {
        Targets::Binary(ds.binary()?)
    } else {
        Targets::Classes(classes.clone())
    };
    let t = Instant::now();
    let (loc, model) = with_threads(a.threads, || -> Result<_, CliError> {
        let loc = locate_areas(&ds.samples, &classes, &p.areas)?;
        let kernel = loc.kernel(p.local.clone())?;
        let map = ZoneMap::fit(kernel, &ds.samples, 1e-12)?;
        let z = map.transform(&ds.samples)?;
        let svc = p.svc.fit(&z, &targets)?;
        Ok((loc, RailwaySvc { map, svc }))
    })??;
    let seconds = t.elapsed().as_secs_f64();
    crate::common::save_model(&a.out, &model)?;
    Ok(json!({
        "model": "svc",
        "kernel": a.learner.kernel,
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
        "out": a.out.display().to_string(),
        "seconds": seconds,
    }))
}
