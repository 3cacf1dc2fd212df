//! `--kernel railway:auto` for `kern train --model svc` and its `kern predict` arm: areas located from the
//! training labels (González & Muñoz §4), the railway kernel's explicit feature map (Proposition 1), and
//! a linear C-SVC on it, saved as a `railway-svc` model.
//!
//! Spec: `railway:auto[,local=linear|affine][,gamma=C][,significance=A][,k_max=K][,sub_cells=S]` —
//! `local=affine` is `x·y + 1` (each area gets its own offset), `gamma` the relative indicator sharpness
//! (`γ = C / r²`).

use crate::common::{CliError, CliResult, with_threads};
use kern_core::io::Dataset;
use kern_core::learner::Fit;
use kern_core::{KernelSpec, Linear, Polynomial, Targets};
use kern_models::railway::{AreaParams, GammaChoice, RailwaySvc, ZoneMap, locate_areas};
use serde_json::json;
use std::time::Instant;

/// Parses `railway:auto[,key=value...]` into area parameters and the local kernel.
fn parse_spec(spec: &str, seed: u64) -> Result<(AreaParams, KernelSpec, String), CliError> {
    let rest =
        spec.trim().strip_prefix("railway:").ok_or("railway kernels are written railway:auto[,...]")?;
    let mut parts = rest.split(',').map(str::trim);
    if parts.next() != Some("auto") {
        return Err(
            format!("{spec:?}: only railway:auto is supported (areas located from the labels)").into()
        );
    }
    let mut p = AreaParams { seed, ..Default::default() };
    let mut local = KernelSpec::Linear(Linear);
    let mut local_name = "linear".to_string();
    for kv in parts {
        let (k, v) = kv.split_once('=').ok_or_else(|| format!("{spec:?}: expected key=value, got {kv:?}"))?;
        let num = || v.parse::<f64>().map_err(|_| format!("{spec:?}: {k}={v:?} is not a number"));
        match k {
            "local" => {
                local = match v {
                    "linear" => KernelSpec::Linear(Linear),
                    "affine" => KernelSpec::Polynomial(Polynomial::new(1, 1.0)?),
                    _ => return Err(format!("{spec:?}: local must be linear or affine").into()),
                };
                local_name = v.to_string();
            }
            "gamma" => p.gamma = GammaChoice::Relative(num()?),
            "significance" => p.significance = num()?,
            "k_max" => p.k_max = num()? as usize,
            "sub_cells" => p.sub_cells = num()? as usize,
            _ => {
                return Err(format!(
                    "{spec:?}: unknown key {k:?} (local, gamma, significance, k_max, sub_cells)"
                )
                .into());
            }
        }
    }
    p.check()?;
    Ok((p, local, local_name))
}

/// `kern train --model svc --kernel railway:auto[,...]`.
pub fn train_railway_svc(a: &crate::commands::train::Args, ds: &Dataset) -> CliResult {
    if a.learner.model != Some(crate::commands::train::ModelKind::Svc) {
        return Err("--kernel railway:auto works with --model svc".into());
    }
    let (params, local, local_name) = parse_spec(&a.learner.kernel, a.seed)?;
    let classes = ds.classes()?;
    let targets = if classes.n_classes() == 2 {
        Targets::Binary(ds.binary()?)
    } else {
        Targets::Classes(classes.clone())
    };
    let svc = crate::commands::train::svc_params(a, KernelSpec::Linear(Linear))?;
    let t = Instant::now();
    let (loc, model) = with_threads(a.threads, || -> Result<_, CliError> {
        let loc = locate_areas(&ds.samples, &classes, &params)?;
        let kernel = loc.kernel(local)?;
        let map = ZoneMap::fit(kernel, &ds.samples, 1e-12)?;
        let z = map.transform(&ds.samples)?;
        let svc = svc.fit(&z, &targets)?;
        Ok((loc, RailwaySvc { map, svc }))
    })??;
    let seconds = t.elapsed().as_secs_f64();
    crate::common::save_model(&a.out, &model)?;
    Ok(json!({
        "model": "svc",
        "kernel": a.learner.kernel,
        "local": local_name,
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
