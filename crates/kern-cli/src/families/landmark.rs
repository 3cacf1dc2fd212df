//! The landmark family: Nyström LS-SVM and kernel ridge models (`kern train --model
//! landmark-lssvm|landmark-krr --landmarks fvs:M|random:M`, also `--model lssvm|krr --landmarks ...`)
//! and what `kern predict` reports for them.
//!
//! Training streams the kernel matrix between the data and the M centres in blocks, so memory grows
//! with M² and the data, never with n × M. JSON adds the centres' choice and count, the conjugate
//! gradient iterations, residual and passes over the data, and the warning of a model regularized
//! into a constant (as lssvm's and krr's: [`kern_cli::any_params::constant_warning`]).

use super::Train;
use super::ridge::task_json;
use crate::output::CliResult;
use crate::resources::with_threads;
use kern_cli::any_params::{constant_warning, nystrom_spread};
use kern_core::io::Dataset;
use kern_models::Predictions;
use kern_models::landmark::{LandmarkLambdaChoice, NystromRidge, NystromRidgeParams, NystromSolve};
use serde_json::{Value, json};
use std::time::Instant;

/// `kern train --model landmark-lssvm|landmark-krr --landmarks ...` (the LS-SVM has an intercept; both
/// shift by the ridge penalty λ). With the choice of `--lambda auto` (`chosen`, made with `p` but for
/// λ), its model is the one trained: the choice fitted it with the λ it chose, on its centres.
pub fn train(
    t: &Train,
    p: NystromRidgeParams,
    ds: &Dataset,
    chosen: Option<LandmarkLambdaChoice>,
) -> CliResult {
    let lssvm = p.bias;
    let y = kern_cli::kinds::targets(ds, t.regression || !lssvm)?;
    let t0 = Instant::now();
    let (m, seconds) = match chosen {
        Some(ch) if ch.lambda == p.lambda => (ch.model, ch.fit_seconds),
        _ => (with_threads(t.threads, || p.fit_targets(&ds.samples, &y))??, t0.elapsed().as_secs_f64()),
    };
    t.save(&m)?;
    let r = m.report();
    let solved = m.solved().map_or("unknown", NystromSolve::name);
    if !r.converged && solved == "direct" {
        eprintln!(
            "kern: warning: the direct solve's relative residual {:e} is above --tol: the normal equations \
             are ill-conditioned; raise --lambda or use fewer centres",
            r.residual
        );
    } else if !r.converged {
        eprintln!(
            "kern: warning: conjugate gradients stopped after {} iterations at relative residual {:e}, above \
             --tol; raise --max-iter or --tol",
            r.iterations, r.residual
        );
    }
    let spread = with_threads(t.threads, || nystrom_spread(&m, &ds.samples, &y))??.ratio();
    let warnings: Vec<String> = constant_warning(spread, t.ridge_tol, m.lambda()).into_iter().collect();
    for w in &warnings {
        eprintln!("kern: warning: {w}");
    }
    Ok(json!({
        "model": if lssvm { "lssvm" } else { "krr" },
        "kernel": m.kernel().to_string(),
        "lambda": m.lambda(),
        "n": ds.samples.n(),
        "d": ds.samples.d(),
        "task": task_json(m.task()),
        "landmarks": m.landmarks().to_string(),
        "centres": m.centres().n(),
        "seed": m.seed(),
        "solver": solved,
        "kept_kernel_matrix": m.kept_kernel_matrix(),
        "preconditioner": m.preconditioner().name(),
        "iterations": r.iterations,
        "residual": r.residual,
        "converged": r.converged,
        "passes": m.passes(),
        "warnings": warnings,
        "out": t.out_name(),
        "seconds": seconds,
    }))
}

/// `kern predict`'s summary for a landmark model (`name`: the model's learner name): the scores
/// against the file's labels, the centres and λ.
pub fn predict(r: &NystromRidge, name: &str, p: &Predictions, ds: &Dataset) -> Value {
    let mut v = crate::metrics::scores(r.task(), &p.values, ds);
    v["model"] = json!(name);
    v["landmarks"] = json!(r.landmarks().to_string());
    v["centres"] = json!(r.centres().n());
    v["n"] = json!(ds.samples.n());
    v["lambda"] = json!(r.lambda());
    v
}
