//! `kern sparse`: the sparse Gram matrix of a compactly supported kernel, its ordering, bandwidth and
//! sparse Cholesky factorization (CS-RBF paper §2, Table 1).

use crate::data::{DataArgs, parse_kernel};
use crate::output::{CliResult, add_storage};
use crate::resources::with_threads;
use kern_core::Kernel;
use kern_sparse::{
    CholeskyPlan, GramOptions, Ordering, SearchMethod, bandwidth, bandwidth_permuted, sparse_gram_with,
};
use serde_json::json;
use std::time::Instant;

/// Arguments of `kern sparse`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// A compactly supported kernel spec, e.g. cs-gaussian:sigma=0.6,c=0.5,nu=3.
    #[arg(long)]
    kernel: String,
    /// Ordering before factorization: auto (whichever of amd, rcm and nd predicts the smallest factor),
    /// amd (minimum degree), rcm, nd (nested dissection) or none.
    #[arg(long, default_value = "auto")]
    order: String,
    /// Neighbour search: auto, grid, scan or brute.
    #[arg(long, default_value = "auto")]
    search: String,
    /// Factor K + lambda I (the system of lssvm and krr: lambda is their ridge penalty, as kern train's
    /// --lambda).
    #[arg(long, default_value_t = 1.0)]
    lambda: f64,
    /// Skip the Cholesky factorization (assembly, ordering and bandwidth only).
    #[arg(long)]
    no_factor: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// Runs `kern sparse`.
pub fn run(a: Args) -> CliResult {
    let kernel = parse_kernel(&a.kernel)?;
    let ordering: Ordering = a.order.parse()?;
    let search: SearchMethod = a.search.parse()?;
    if !(a.lambda.is_finite() && a.lambda > 0.0) {
        return Err(format!("--lambda must be finite and > 0, got {}", a.lambda).into());
    }
    let (ds, stored) = a.data.load()?;
    let x = ds.samples;
    if let Some(c) = kernel.support_radius() {
        // Full symmetric CSC storage: a value and a row index per entry, estimated from seeded pairs.
        let density = kern_models::kmat::estimate_density(&x, c, 100_000, 0x6b65726e);
        let n2 = (x.n() as f64) * (x.n() as f64);
        let bytes = density * n2 * 16.0 + 8.0 * x.n() as f64;
        kern_core::memory::check_bytes(
            if bytes < u64::MAX as f64 { bytes as u64 } else { u64::MAX },
            &format!("the sparse Gram matrix (estimated density {density:.3})"),
            "use a smaller support radius (the c of cs-...), a sample of the data, or raise --max-memory",
        )?;
    }
    let mut v = with_threads(a.threads, move || -> CliResult {
        let t0 = Instant::now();
        let g = sparse_gram_with(&kernel, &x, GramOptions { search })?;
        let assemble_seconds = t0.elapsed().as_secs_f64();
        let stats = g.stats();
        let radius = g.radius();
        let before = bandwidth(g.matrix());
        let t = Instant::now();
        let perm = kern_sparse::order(g.matrix(), ordering)?;
        let order_seconds = t.elapsed().as_secs_f64();
        let after = bandwidth_permuted(g.matrix(), &perm)?;
        let (mut factor_seconds, mut factor_nnz, mut log_det) = (None, None, None);
        let (mut symbolic_seconds, mut numeric_seconds) = (None, None);
        let (mut factor_bytes, mut scratch_bytes) = (None, None);
        if !a.no_factor {
            let t = Instant::now();
            // The permutation found above (not ordered a second time).
            let mut plan = CholeskyPlan::sparse_with_permutation(g.matrix(), perm)?;
            symbolic_seconds = Some(t.elapsed().as_secs_f64());
            // The plan holds the lower triangle it factors; the full matrix is not needed any more.
            drop(g);
            let (f, s) = plan.factor_bytes();
            (factor_bytes, scratch_bytes) = (Some(f), Some(s));
            let tn = Instant::now();
            let chol = plan.factor(a.lambda)?;
            numeric_seconds = Some(tn.elapsed().as_secs_f64());
            factor_seconds = Some(t.elapsed().as_secs_f64());
            factor_nnz = Some(chol.factor_nnz());
            log_det = Some(chol.log_det());
        }
        Ok(json!({
            "n": stats.n,
            "d": x.d(),
            "kernel": kernel.to_string(),
            "radius": radius,
            "order": ordering.name(),
            "nnz": stats.nnz,
            "sparsity": stats.sparsity,
            "bytes_sparse": stats.bytes_csc,
            "bytes_paper": stats.bytes_paper,
            "bytes_dense": stats.bytes_dense,
            "bandwidth_before": before.one_sided,
            "bandwidth_after": after.one_sided,
            "bw_before": before.bw,
            "bw_after": after.bw,
            "profile_before": before.profile,
            "profile_after": after.profile,
            "lambda": a.lambda,
            "assemble_seconds": assemble_seconds,
            "order_seconds": order_seconds,
            "factor_seconds": factor_seconds,
            "symbolic_seconds": symbolic_seconds,
            "numeric_seconds": numeric_seconds,
            "factor_nnz": factor_nnz,
            "factor_bytes": factor_bytes,
            "scratch_bytes": scratch_bytes,
            "log_det": log_det,
            "threads": rayon::current_num_threads(),
            "seconds": t0.elapsed().as_secs_f64(),
        }))
    })??;
    // The summary's "nnz" is the kernel matrix's; the data's store is added beside it.
    add_storage(&mut v, Some(stored));
    Ok(v)
}
