//! `kern kpca`: kernel principal component analysis of a data file (CS-RBF paper §4.3; Cao eqs. 42–49).
//!
//! Prints the leading eigenvalues of the centred Gram matrix, the explained variance (`μ_k/n`, the
//! feature-space variance along each component) and its ratio to the total, the path (dense or sparse)
//! and the solver; `--out` writes the training points' scores as CSV (`pc1,...,pcK`), `--save` the
//! model, which `kern predict` applies to new points.

use crate::data::{DataArgs, parse_kernel};
use crate::families::kpca;
use crate::output::{CliResult, add_storage, check_out, check_outputs_differ};
use kern_models::kmat::PathChoice;
use kern_models::kpca::EigenSolver;
use std::path::PathBuf;

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
    /// Eigensolver: auto, dense or krylov (iterative, on matrix products).
    ///
    /// auto: dense for n <= 200 or when 16 x components >= n, else krylov. krylov: on the sparse path
    /// memory grows with the non-zeros and n x basis size, never n x n.
    #[arg(long, default_value = "auto")]
    solver: String,
    /// Relative residual tolerance of the iterative eigensolver.
    #[arg(long, default_value_t = 1e-10)]
    tol: f64,
    /// Block size of the iterative eigensolver (vectors per pass over the kernel matrix; default max(components, 8), at
    /// most 32).
    #[arg(long)]
    block: Option<usize>,
    /// Basis size of the iterative eigensolver before a restart (default max(6 (components + block), 96), made smaller when
    /// the basis would not fit in memory).
    #[arg(long)]
    basis: Option<usize>,
    /// Seed of the iterative eigensolver's start.
    #[arg(long, default_value_t = 0x4b50_4341)]
    seed: u64,
    /// Write the training scores (n rows, K columns) as CSV.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Save the model (kind "kpca"); `kern predict --model FILE --data NEW --out F` projects new points.
    #[arg(long)]
    save: Option<PathBuf>,
    /// Nyström kernel PCA on M centres: random:M (uniform, by --landmark-seed) or fvs:M[:POOL]
    /// (feature vector selection on a random pool, default max(5 M, 10000) points). The scores of
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
    let path: PathChoice = a.path.parse()?;
    let solver = match a.solver.as_str() {
        "auto" => EigenSolver::Auto,
        "dense" => EigenSolver::Dense,
        "krylov" => EigenSolver::Krylov,
        other => return Err(format!("unknown --solver {other:?}; valid: auto, dense, krylov").into()),
    };
    for out in a.out.iter().chain(&a.save) {
        check_out(out, &[&a.data.data])?;
    }
    if let (Some(out), Some(save)) = (&a.out, &a.save) {
        check_outputs_differ(out, save, "--out and --save")?;
    }
    let (ds, stored) = a.data.load_sparse()?;
    let job = kpca::Job {
        kernel,
        components: a.components,
        out: a.out.as_deref(),
        save: a.save.as_deref(),
        threads: a.threads,
    };
    let mut v = match &a.landmarks {
        Some(spec) => {
            let o = kpca::Nystrom { landmarks: spec, seed: a.landmark_seed, fvs_strategy: &a.fvs_strategy };
            kpca::nystrom(&job, &o, &ds)?
        }
        None => {
            let o = kpca::Exact { path, solver, tol: a.tol, block: a.block, basis: a.basis, seed: a.seed };
            kpca::exact(&job, &o, &ds)?
        }
    };
    add_storage(&mut v, Some(stored));
    Ok(v)
}
