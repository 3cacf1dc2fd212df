//! `kern kpca`: kernel principal component analysis of a data file (CS-RBF paper §4.3; Cao eqs. 42–49).
//!
//! Prints the leading eigenvalues of the centred Gram matrix, the explained variance (`μ_k/n`, the
//! feature-space variance along each component) and its ratio to the total, the path (dense or sparse)
//! and the solver; `--out` writes the training points' scores as CSV (`pc1,...,pcK`), `--save` the
//! model, which `kern predict` applies to new points.

use crate::common::{CliResult, DataArgs, parse_kernel, with_threads};
use kern_core::Kernel;
use kern_models::kmat::{PathChoice, SolvePath};
use kern_models::kpca::{EigenSolver, KernelPcaParams};
use serde_json::json;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `kern kpca`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// Kernel spec, e.g. gaussian:sigma=0.3 or cs-gaussian:sigma=0.3,c=0.758,nu=3.
    #[arg(long)]
    kernel: String,
    /// Number of components.
    #[arg(long, default_value_t = 2)]
    components: usize,
    /// Gram matrix path: auto (sparse for compactly supported kernels when the kernel matrix is at most
    /// 20 % non-zero, when n > 20,000, or when the dense matrix would not fit in memory), dense, sparse.
    #[arg(long, default_value = "auto")]
    path: String,
    /// Eigensolver: auto (full dense for n <= 500 or when 4 x components >= n, else block Krylov), dense,
    /// krylov (block Lanczos on matrix products; on the sparse path memory grows with the non-zeros and
    /// n x basis size, never n x n).
    #[arg(long, default_value = "auto")]
    solver: String,
    /// Krylov relative residual tolerance.
    #[arg(long, default_value_t = 1e-10)]
    tol: f64,
    /// Krylov block size (vectors per pass over the kernel matrix; default max(components, 8), at
    /// most 32).
    #[arg(long)]
    block: Option<usize>,
    /// Krylov basis size before a restart (default max(6 (components + block), 96), made smaller when
    /// the basis would not fit in memory).
    #[arg(long)]
    basis: Option<usize>,
    /// Seed of the Krylov start block.
    #[arg(long, default_value_t = 0x4b50_4341)]
    seed: u64,
    /// Write the training scores (n rows, K columns) as CSV.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Save the model (kind "kpca"); `kern predict --model FILE --data NEW --out F` projects new points.
    #[arg(long)]
    save: Option<PathBuf>,
    /// Nyström kernel PCA on M centres: random:M (uniform, by --landmark-seed) or fvs:M[:POOL]
    /// (feature vector selection on a random pool, default max(10 M, 10000) points). The scores of
    /// --out are projections of the training points; --save writes a model (kind "nystrom-kpca").
    #[arg(long, value_name = "fvs:M|random:M")]
    landmarks: Option<String>,
    /// Seed of the landmark choice.
    #[arg(long, default_value_t = 0)]
    landmark_seed: u64,
    /// FVS candidate scoring for --landmarks fvs:M: auto, exact, stochastic[:SEED],
    /// sampled[:CANDIDATES[:SEED]],
    /// max-residual.
    #[arg(long, default_value = "auto")]
    fvs_strategy: String,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// Runs `kern kpca`.
pub fn run(a: Args) -> CliResult {
    let kernel = parse_kernel(&a.kernel)?;
    let mut path: PathChoice = a.path.parse()?;
    let solver = match a.solver.as_str() {
        "auto" => EigenSolver::Auto,
        "dense" => EigenSolver::Dense,
        "krylov" => EigenSolver::Krylov,
        other => return Err(format!("unknown --solver {other:?}; valid: auto, dense, krylov").into()),
    };
    for out in a.out.iter().chain(&a.save) {
        crate::common::check_out(out, &[&a.data.data])?;
    }
    let ds = a.data.load_sparse()?;
    if let Some(spec) = &a.landmarks {
        let (model, mut v) = crate::commands::landmark::kpca_landmark(
            kernel,
            a.components,
            spec,
            a.landmark_seed,
            &a.fvs_strategy,
            &ds,
            a.threads,
        )?;
        if let Some(out) = &a.out {
            let z = with_threads(a.threads, || model.transform(&ds.samples))??;
            write_scores(out, z.as_ref())?;
        }
        if let Some(p) = &a.save {
            crate::common::save_model(p, &model)?;
        }
        v["out"] = json!(a.out.as_ref().map(|p| p.display().to_string()));
        return Ok(v);
    }
    if kern_models::kmat::choose_path(&kernel, &ds.samples, path)? == SolvePath::Dense {
        // The n x n matrix, and for the dense eigensolver its n x n eigenvectors.
        let copies = if solver == EigenSolver::Krylov { 1 } else { 2 };
        let fits = crate::common::check_dense(
            ds.samples.n(),
            copies,
            "kernel PCA's dense kernel matrix",
            crate::common::DENSE_INSTEAD,
        );
        match fits {
            // --path auto with a compactly supported kernel: the sparse K_C and the block Krylov
            // solver (memory O(nnz + n k)) when the dense matrix does not fit in memory.
            Err(_) if path == PathChoice::Auto && kernel.support_radius().is_some() => {
                path = PathChoice::Sparse;
            }
            other => other?,
        }
    }
    let mut params =
        KernelPcaParams::new(kernel, a.components).path(path).solver(solver).tol(a.tol).seed(a.seed);
    if let Some(b) = a.block {
        params = params.block(b);
    }
    if let Some(m) = a.basis {
        params = params.basis(m);
    }
    let t = Instant::now();
    let model = with_threads(a.threads, || params.fit(&ds.samples))??;
    let seconds = t.elapsed().as_secs_f64();
    if let Some(out) = &a.out {
        write_scores(out, model.training_scores().as_ref())?;
    }
    if let Some(p) = &a.save {
        crate::common::save_model(p, &model)?;
    }
    let info = model.solver_info();
    Ok(json!({
        "n": ds.samples.n(),
        "d": ds.samples.d(),
        "kernel": model.kernel().to_string(),
        "components": model.components(),
        "eigenvalues": model.eigenvalues(),
        "explained_variance": model.explained_variance(),
        "explained_variance_ratio": model.explained_variance_ratio(),
        "zero_components": model.zero_components(),
        "path": model.path().name(),
        "solver": info.solver,
        "matvecs": info.matvecs,
        "restarts": info.restarts,
        "residual": info.residual,
        "out": a.out.as_ref().map(|p| p.display().to_string()),
        "seconds": seconds,
    }))
}

/// Writes scores as CSV (`pc1,...,pcK` header, one row per point).
pub(crate) fn write_scores(
    out: &std::path::Path,
    z: faer::MatRef<'_, f64>,
) -> Result<(), crate::common::CliError> {
    let mut s = String::new();
    let header: Vec<String> = (1..=z.ncols()).map(|k| format!("pc{k}")).collect();
    s.push_str(&header.join(","));
    s.push('\n');
    for i in 0..z.nrows() {
        for j in 0..z.ncols() {
            if j > 0 {
                s.push(',');
            }
            write!(s, "{}", z[(i, j)])?;
        }
        s.push('\n');
    }
    crate::common::write_output(out, s.as_bytes())
}
