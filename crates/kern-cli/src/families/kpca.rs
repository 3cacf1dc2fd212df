//! The kernel PCA family: exact kernel PCA (dense or sparse kernel matrix, `kern kpca`), Nyström
//! kernel PCA on M centres (`kern kpca --landmarks ...`), the training scores they write
//! (`--out`), the models they save (`--save`), and the projections of new points by a saved model
//! (`kern predict`).

use crate::output::{CliError, CliResult, save_model, write_output};
use crate::resources::{DENSE_INSTEAD, check_dense, with_threads};
use kern_core::io::Dataset;
use kern_core::{Kernel, KernelSpec, Samples};
use kern_models::AnyModel;
use kern_models::fvs::Strategy;
use kern_models::kmat::{PathChoice, SolvePath};
use kern_models::kpca::{EigenSolver, KernelPcaParams};
use kern_models::landmark::{Landmarks, NystromKpcaParams};
use serde_json::json;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

/// What `kern kpca` asks of a fit: the model's parameters and where its results go.
#[derive(Debug)]
pub struct Job<'a> {
    /// The kernel.
    pub kernel: KernelSpec,
    /// Number of components.
    pub components: usize,
    /// Where to write the training scores (`--out`).
    pub out: Option<&'a Path>,
    /// Where to save the model (`--save`).
    pub save: Option<&'a Path>,
    /// Worker threads (`None`: all cores).
    pub threads: Option<usize>,
}

/// The exact fit's options (`--path`, `--solver`, `--tol`, `--block`, `--basis`, `--seed`).
#[derive(Debug)]
pub struct Exact {
    /// The kernel matrix's path.
    pub path: PathChoice,
    /// The eigensolver.
    pub solver: EigenSolver,
    /// Krylov relative residual tolerance.
    pub tol: f64,
    /// Krylov block size.
    pub block: Option<usize>,
    /// Krylov basis size.
    pub basis: Option<usize>,
    /// Seed of the Krylov start block.
    pub seed: u64,
}

/// The Nyström fit's options (`--landmarks`, `--landmark-seed`, `--fvs-strategy`).
#[derive(Debug)]
pub struct Nystrom<'a> {
    /// The centres' choice, `fvs:M[:POOL]` or `random:M`.
    pub landmarks: &'a str,
    /// Seed of the centres' choice.
    pub seed: u64,
    /// FVS candidate scoring.
    pub fvs_strategy: &'a str,
}

/// `kern kpca`: exact kernel PCA on the data; writes the training scores and saves the model as
/// asked, and returns the summary.
pub fn exact(job: &Job<'_>, o: &Exact, ds: &Dataset) -> CliResult {
    let mut path = o.path;
    let kernel = &job.kernel;
    if kern_models::kmat::choose_path(kernel, &ds.samples, path)? == SolvePath::Dense {
        // The n x n matrix, and for the dense eigensolver its n x n eigenvectors.
        let copies = if o.solver == EigenSolver::Krylov { 1 } else { 2 };
        let fits = check_dense(ds.samples.n(), copies, "kernel PCA's dense kernel matrix", DENSE_INSTEAD);
        match fits {
            // --path auto with a compactly supported kernel: the sparse K_C and the block Krylov
            // solver (memory O(nnz + n k)) when the dense matrix does not fit in memory.
            Err(_) if path == PathChoice::Auto && kernel.support_radius().is_some() => {
                path = PathChoice::Sparse;
            }
            other => other?,
        }
    }
    let mut params = KernelPcaParams::new(kernel.clone(), job.components)
        .path(path)
        .solver(o.solver)
        .tol(o.tol)
        .seed(o.seed);
    if let Some(b) = o.block {
        params = params.block(b);
    }
    if let Some(m) = o.basis {
        params = params.basis(m);
    }
    let t = Instant::now();
    let model = with_threads(job.threads, || params.fit(&ds.samples))??;
    let seconds = t.elapsed().as_secs_f64();
    write_and_save(job, ds, &model, || Ok(model.training_scores()))?;
    let info = model.solver_info();
    let spectrum = [model.eigenvalues(), &model.explained_variance(), &model.explained_variance_ratio()];
    let mut v = summary(job, ds, model.kernel().to_string(), model.components(), spectrum, seconds);
    v["zero_components"] = json!(model.zero_components());
    v["path"] = json!(model.path().name());
    v["solver"] = json!(info.solver);
    v["matvecs"] = json!(info.matvecs);
    v["restarts"] = json!(info.restarts);
    v["residual"] = json!(info.residual);
    Ok(v)
}

/// `kern kpca --landmarks ...`: Nyström kernel PCA on the data; writes the training points'
/// projections and saves the model as asked, and returns the summary.
pub fn nystrom(job: &Job<'_>, o: &Nystrom<'_>, ds: &Dataset) -> CliResult {
    let landmarks: Landmarks = o.landmarks.parse()?;
    let strategy: Strategy = o.fvs_strategy.parse()?;
    let p = NystromKpcaParams::new(job.kernel.clone(), job.components, landmarks)
        .seed(o.seed)
        .fvs_strategy(strategy);
    let t = Instant::now();
    let model = with_threads(job.threads, || p.fit(&ds.samples))??;
    let seconds = t.elapsed().as_secs_f64();
    write_and_save(job, ds, &model, || Ok(with_threads(job.threads, || model.transform(&ds.samples))??))?;
    let spectrum = [model.eigenvalues(), &model.explained_variance(), &model.explained_variance_ratio()];
    let mut v = summary(job, ds, model.kernel().to_string(), model.components(), spectrum, seconds);
    v["landmarks"] = json!(model.landmarks().to_string());
    v["centres"] = json!(model.centres().n());
    v["seed"] = json!(o.seed);
    v["path"] = json!("landmarks");
    Ok(v)
}

/// Writes the training points' scores (`scores`, computed only when asked for) to `--out` and saves
/// the model to `--save`, as asked.
fn write_and_save<M: kern_models::persist::Persist>(
    job: &Job<'_>,
    ds: &Dataset,
    model: &M,
    scores: impl FnOnce() -> Result<faer::Mat<f64>, CliError>,
) -> Result<(), CliError> {
    if let Some(out) = job.out {
        write_scores(out, scores()?.as_ref())?;
    }
    if let Some(p) = job.save {
        save_model(p, model, None, ds.schema.as_ref())?;
    }
    Ok(())
}

/// The figures of every `kern kpca` summary: the data's and the model's (`spectrum`: eigenvalues,
/// explained variance and its ratio), `--out`, the time and what the CSV file's reading did.
fn summary(
    job: &Job<'_>,
    ds: &Dataset,
    kernel: String,
    components: usize,
    spectrum: [&[f64]; 3],
    seconds: f64,
) -> serde_json::Value {
    let mut v = json!({
        "n": ds.samples.n(),
        "d": ds.samples.d(),
        "kernel": kernel,
        "components": components,
        "eigenvalues": spectrum[0],
        "explained_variance": spectrum[1],
        "explained_variance_ratio": spectrum[2],
        "out": job.out.map(|p| p.display().to_string()),
        "seconds": seconds,
    });
    add_csv(&mut v, ds);
    v
}

/// Adds what the CSV training file's reading did (`"missing"`, `"rows_dropped"`, `"dropped_lines"`)
/// and its `"csv_schema"`, saved with the model by `--save`, to the summary (nothing for LIBSVM data).
fn add_csv(v: &mut serde_json::Value, ds: &Dataset) {
    if let Some(schema) = &ds.schema {
        crate::data::add_rows(v, ds, schema.missing);
        v["csv_schema"] = crate::data::schema_json(schema);
    }
}

/// `kern predict` on a kernel PCA model: the projections of the samples `x` (the rows of `ds`), to
/// `out` as `kern kpca --out` writes the training scores, and the summary.
pub fn project(
    m: &AnyModel,
    x: &Samples,
    ds: &Dataset,
    out: Option<&Path>,
    threads: Option<usize>,
) -> CliResult {
    let t = Instant::now();
    let z = with_threads(threads, || m.transform(x))??;
    let seconds = t.elapsed().as_secs_f64();
    if let Some(out) = out {
        write_scores(out, z.as_ref())?;
    }
    let mut v = json!({
        "model": m.kind().name(),
        "kernel": m.kernel(),
        "n": ds.samples.n(),
        "components": z.ncols(),
        "out": out.map(|p| p.display().to_string()),
        "seconds": seconds,
        "scaled": m.scaled().is_some(),
    });
    match m.base() {
        AnyModel::Kpca(k) => v["path"] = json!(k.path().name()),
        AnyModel::NystromKpca(k) => {
            v["landmarks"] = json!(k.landmarks().to_string());
            v["centres"] = json!(k.centres().n());
        }
        _ => {}
    }
    Ok(v)
}

/// Writes scores as CSV (`pc1,...,pcK` header, one row per point).
fn write_scores(out: &Path, z: faer::MatRef<'_, f64>) -> Result<(), CliError> {
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
    write_output(out, s.as_bytes())
}
