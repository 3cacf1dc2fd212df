//! `kern gram`: computes a dense Gram matrix and reports its speed.

use crate::data::{DataArgs, parse_kernel};
use crate::output::{CliResult, add_storage};
use crate::resources::{check_dense, with_threads};
use kern_core::{GramPath, Kernel, Profile, gram_with};
use serde_json::json;
use std::time::Instant;

/// Arguments of `kern gram`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// Kernel spec, e.g. gaussian:sigma=0.6 (grammar: kern help kernels).
    #[arg(long)]
    kernel: String,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Computation path: auto (sparse rows at ≤ 30 % nonzeros, else GEMM for d > 8), gemm, sparse or pairwise.
    #[arg(long, default_value = "auto")]
    path: String,
}

/// Runs `kern gram`.
pub fn run(a: Args) -> CliResult {
    let kernel = parse_kernel(&a.kernel)?;
    let path = match a.path.as_str() {
        "auto" => GramPath::Auto,
        "gemm" => GramPath::Gemm,
        "pairwise" => GramPath::Pairwise,
        "sparse" => GramPath::Sparse,
        other => return Err(format!("unknown --path {other:?}; valid: auto, gemm, sparse, pairwise").into()),
    };
    let (ds, stored) = a.data.load_sparse()?;
    let (n, d) = (ds.samples.n(), ds.samples.d());
    check_dense(
        n,
        1,
        "the dense Gram matrix",
        "use `kern sparse` with a compactly supported kernel (cs-gaussian:...), a sample of the data, or raise --max-memory",
    )?;
    let t = Instant::now();
    let g = with_threads(a.threads, || gram_with(&kernel, &ds.samples, path))??;
    let seconds = t.elapsed().as_secs_f64();
    if let Some((i, j)) =
        (0..n).flat_map(|j| (0..n).map(move |i| (i, j))).find(|&(i, j)| !g[(i, j)].is_finite())
    {
        return Err(kern_core::CoreError::Numerical(format!(
            "kernel value K[{i}, {j}] = {} is not finite; scale the features or use a smaller degree or scale",
            g[(i, j)]
        ))
        .into());
    }
    let trace: f64 = (0..n).map(|i| g[(i, i)]).sum();
    let flops = match kernel.profile() {
        Profile::SqDist | Profile::Dot => 2.0 * (n as f64) * (n as f64) * d as f64,
        Profile::General => f64::NAN,
    };
    let mut v = json!({
        "n": n,
        "d": d,
        "density": kern_core::sparse_dots::density(&ds.samples),
        "kernel": kernel.to_string(),
        "threads": a.threads.unwrap_or_else(rayon::current_num_threads),
        "trace": trace,
        "seconds": seconds,
        "gflops": if flops.is_finite() { json!(flops / seconds / 1e9) } else { json!(null) },
        "ns_per_entry": seconds * 1e9 / (n as f64 * n as f64),
    });
    add_storage(&mut v, Some(stored));
    Ok(v)
}
