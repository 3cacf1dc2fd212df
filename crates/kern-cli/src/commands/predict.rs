//! `kern predict`: applies a saved model to a data file.
//!
//! Dispatches on the model file's kind tag ([`kern_models::persist::peek_kind`]): one match arm per
//! kind. Issue 5 owns `svc` and `svr`; other model kinds add their arm here.

use crate::common::{CliResult, DataArgs, with_threads};
use kern_core::Samples;
use kern_core::io::Dataset;
use kern_core::learner::Model;
use kern_models::persist;
use kern_models::svm::{Svc, Svr};
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `kern predict`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// A model file written by `kern train`.
    #[arg(long)]
    model: PathBuf,
    /// Write one prediction per line (label names for classifiers, with probabilities when the model
    /// has them; values for regressors).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// Runs `kern predict`.
pub fn run(a: Args) -> CliResult {
    if let Some(out) = &a.out {
        crate::common::check_out(out, &[&a.data.data, &a.model])?;
    }
    let bytes = persist::read(&a.model)?;
    let path = a.model.display().to_string();
    let kind = persist::peek_kind(&bytes, &path)?;
    let ds = a.data.load()?;
    match kind.as_str() {
        "svc" => predict_svc(&a, persist::from_bytes(&bytes, &path)?, &ds),
        "svr" => predict_svr(&a, persist::from_bytes(&bytes, &path)?, &ds),
        "railway-svc" => crate::commands::railway::predict_railway_svc(
            persist::from_bytes(&bytes, &path)?,
            &ds,
            a.threads,
            a.out.as_deref(),
        ),
        "kfa" => crate::commands::fvs::predict_kfa(
            persist::from_bytes(&bytes, &path)?,
            &ds,
            a.threads,
            a.out.as_deref(),
        ),
        "lssvm" | "krr" => {
            crate::commands::lssvm::predict_dual(&bytes, &path, &kind, &ds, a.threads, a.out.as_deref())
        }
        other => {
            Err(format!("{path}: model kind {other:?} is not supported by this kern (known: svc, svr)")
                .into())
        }
    }
}

/// Adapts samples read from a sparse (LIBSVM) file to the model's dimension: missing trailing features
/// are zeros; extra trailing features are accepted only when they are all zero.
fn to_dim(x: &Samples, d: usize) -> Result<Samples, crate::common::CliError> {
    if x.d() == d {
        return Ok(x.clone());
    }
    if x.d() > d && x.rows().any(|r| r[d..].iter().any(|&v| v != 0.0)) {
        return Err(format!("data has {} features, the model was trained on {d}", x.d()).into());
    }
    let mut data = Vec::with_capacity(x.n() * d);
    for r in x.rows() {
        let k = r.len().min(d);
        data.extend_from_slice(&r[..k]);
        data.extend(std::iter::repeat_n(0.0, d - k));
    }
    Ok(Samples::from_flat(data, x.n(), d)?)
}

fn write_lines(path: &std::path::Path, lines: &[String]) -> Result<(), crate::common::CliError> {
    let mut s = lines.join("\n");
    s.push('\n');
    kern_core::io::write_atomic(path, s.as_bytes())?;
    Ok(())
}

fn predict_svc(a: &Args, m: Svc, ds: &Dataset) -> CliResult {
    let x = to_dim(&ds.samples, m.support_vectors().d())?;
    let t = Instant::now();
    let (names, proba) = with_threads(a.threads, || -> kern_models::Result<_> {
        let names = m.predict_names(&x)?;
        let proba = if m.has_probability() { Some(m.predict_proba(&x)?) } else { None };
        Ok((names, proba))
    })??;
    let seconds = t.elapsed().as_secs_f64();
    let labelled = ds.labels.iter().any(|l| !l.is_empty());
    let accuracy = labelled.then(|| {
        let norm =
            |s: &str| s.trim().parse::<f64>().map(kern_core::label_name).unwrap_or_else(|_| s.to_string());
        let hits = names.iter().zip(&ds.labels).filter(|(p, l)| norm(p) == norm(l)).count();
        hits as f64 / names.len() as f64
    });
    if let Some(out) = &a.out {
        let lines: Vec<String> = match &proba {
            Some(p) => names
                .iter()
                .zip(p)
                .map(|(n, row)| {
                    let ps: Vec<String> = row.iter().map(|v| format!("{v:.6}")).collect();
                    format!("{n} {}", ps.join(" "))
                })
                .collect(),
            None => names.clone(),
        };
        write_lines(out, &lines)?;
    }
    Ok(json!({
        "model": "svc",
        "n": ds.samples.n(),
        "accuracy": accuracy,
        "probability": proba.is_some(),
        "seconds": seconds,
    }))
}

fn predict_svr(a: &Args, m: Svr, ds: &Dataset) -> CliResult {
    let x = to_dim(&ds.samples, m.support_vectors().d())?;
    let t = Instant::now();
    let pred = with_threads(a.threads, || m.predict(&x))??;
    let seconds = t.elapsed().as_secs_f64();
    let (rmse, mae) = match ds.real() {
        Ok(y) => {
            let n = pred.len() as f64;
            let se: f64 = pred.iter().zip(y.values()).map(|(p, v)| (p - v) * (p - v)).sum();
            let ae: f64 = pred.iter().zip(y.values()).map(|(p, v)| (p - v).abs()).sum();
            (Some((se / n).sqrt()), Some(ae / n))
        }
        Err(_) => (None, None),
    };
    if let Some(out) = &a.out {
        let lines: Vec<String> = pred.iter().map(|v| format!("{v}")).collect();
        write_lines(out, &lines)?;
    }
    Ok(json!({ "model": "svr", "n": ds.samples.n(), "rmse": rmse, "mae": mae, "seconds": seconds }))
}
