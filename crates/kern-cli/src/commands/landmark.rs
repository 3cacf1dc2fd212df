//! Landmark (Nyström) models: `kern train --model landmark-lssvm|landmark-krr --landmarks fvs:M|random:M`
//! (also `--model lssvm|krr --landmarks ...`), their
//! `kern predict` arm, and `kern kpca --landmarks ...`.
//!
//! Training streams the kernel matrix between the data and the M centres in blocks, so memory grows
//! with M² and the data, never with n × M. JSON adds the centres' choice and count, the conjugate
//! gradient iterations, residual and passes over the data.

use crate::commands::lssvm::task_json;
use crate::commands::train::Args;
use crate::common::{CliError, CliResult, with_threads};
use kern_core::KernelSpec;
use kern_core::io::Dataset;
use kern_models::fvs::Strategy;
use kern_models::landmark::{Landmarks, NystromKpca, NystromKpcaParams, NystromRidgeParams, NystromSolve};
use serde_json::{Value, json};
use std::time::Instant;

/// `kern train --model landmark-lssvm|landmark-krr --landmarks ...` (the LS-SVM has an intercept; both
/// shift by the ridge penalty λ).
pub fn train_landmark(a: &Args, p: NystromRidgeParams, ds: &Dataset) -> CliResult {
    let lssvm = p.bias;
    let y = crate::common::targets(ds, a.learner.regression || !lssvm)?;
    let t = Instant::now();
    let m = with_threads(a.threads, || p.fit_targets(&ds.samples, &y))??;
    let seconds = t.elapsed().as_secs_f64();
    crate::common::save_model(&a.out, &m)?;
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
        "out": a.out.display().to_string(),
        "seconds": seconds,
    }))
}

/// `kern kpca --landmarks ...`: Nyström kernel PCA on the data, and its JSON summary.
pub fn kpca_landmark(
    kernel: KernelSpec,
    components: usize,
    spec: &str,
    seed: u64,
    strategy: &str,
    ds: &Dataset,
    threads: Option<usize>,
) -> Result<(NystromKpca, Value), CliError> {
    let landmarks: Landmarks = spec.parse()?;
    let strategy: Strategy = strategy.parse()?;
    let p = NystromKpcaParams::new(kernel, components, landmarks).seed(seed).fvs_strategy(strategy);
    let t = Instant::now();
    let model = with_threads(threads, || p.fit(&ds.samples))??;
    let seconds = t.elapsed().as_secs_f64();
    let v = json!({
        "n": ds.samples.n(),
        "d": ds.samples.d(),
        "kernel": model.kernel().to_string(),
        "components": model.components(),
        "eigenvalues": model.eigenvalues(),
        "explained_variance": model.explained_variance(),
        "explained_variance_ratio": model.explained_variance_ratio(),
        "landmarks": model.landmarks().to_string(),
        "centres": model.centres().n(),
        "seed": seed,
        "path": "landmarks",
        "seconds": seconds,
    });
    Ok((model, v))
}
