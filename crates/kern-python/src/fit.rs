//! Training functions called by the Python estimators: each takes the samples, the targets as the
//! Python layer encoded them (class indices `0..k` or real values) and validated parameters, and
//! trains without the GIL.

use crate::auto::{Setting, value_of};
use crate::convert::{py_error, run, samples, value_error};
use crate::model::Model;
use kern_core::learner::Fit;
use kern_core::{ClassTargets, KernelSpec, Linear, RealTargets, Samples, Targets, label_name};
use kern_models::fvs::FvsParams;
use kern_models::kfa::{BasisChoice, FvsLayer, Projection};
use kern_models::kpca::{EigenSolver, KernelPcaParams};
use kern_models::krr::KernelRidgeParams;
use kern_models::landmark::{Landmarks, NystromKpcaParams, select_landmarks};
use kern_models::lssvm::LsSvmParams;
use kern_models::railway::{AreaParams, GammaChoice, RailwaySvc, ZoneMap, locate_areas};
use kern_models::svm::{
    AutoSearch, KernelMatrix, Multiclass, NuSvcParams, NuSvrParams, OneClassParams, SolverParams, SvcParams,
    SvrParams,
};
use kern_models::weights::{FitWeighted, SampleWeights};
use numpy::PyReadonlyArray2;
use pyo3::prelude::*;

pub(crate) fn kernel(spec: &str) -> PyResult<KernelSpec> {
    spec.parse().map_err(py_error)
}

/// The training samples of `x`, checked against `n` targets.
pub(crate) fn data(x: &Bound<'_, PyAny>, n: usize) -> PyResult<Samples> {
    let x = samples(x)?;
    if x.n() != n {
        return Err(value_error(format!("{} targets for {} samples", n, x.n())));
    }
    Ok(x)
}

/// The kernel spec the Python layer passes for scikit-learn's `kernel="precomputed"`.
const PRECOMPUTED: &str = "precomputed";

/// What an SVM trains on: samples with a kernel, or the user's kernel matrix.
enum Input {
    Samples(Samples, KernelSpec),
    /// `kernel="precomputed"`: `x` was the `n × n` matrix `K(X, X)`.
    Gram(KernelMatrix),
}

/// The training input of an SVM with `n` targets (`None`: one-class): for `kernel_spec ==
/// "precomputed"`, `x` is the kernel matrix, read once from the 2-D float64 array into kern's
/// validated [`KernelMatrix`] (square, finite, symmetric); otherwise the samples.
fn input(x: &Bound<'_, PyAny>, n: Option<usize>, kernel_spec: &str) -> PyResult<Input> {
    if kernel_spec != PRECOMPUTED {
        let x = match n {
            Some(n) => data(x, n)?,
            None => samples(x)?,
        };
        return Ok(Input::Samples(x, kernel(kernel_spec)?));
    }
    let a: PyReadonlyArray2<'_, f64> = x.extract()?;
    let v = a.as_array();
    let (rows, cols) = v.dim();
    if let Some(n) = n
        && rows != n
    {
        return Err(value_error(format!("{n} targets for a kernel matrix of {rows} rows")));
    }
    let k = KernelMatrix::new(faer::Mat::from_fn(rows, cols, |i, j| v[[i, j]])).map_err(py_error)?;
    Ok(Input::Gram(k))
}

impl Input {
    /// The parameters' kernel: the given one, or a placeholder never evaluated for a kernel matrix.
    fn kernel(&self) -> KernelSpec {
        match self {
            Input::Samples(_, k) => k.clone(),
            Input::Gram(_) => KernelSpec::Linear(Linear),
        }
    }

    /// The samples, `None` for a kernel matrix.
    fn samples(&self) -> Option<&Samples> {
        match self {
            Input::Samples(x, _) => Some(x),
            Input::Gram(_) => None,
        }
    }
}

/// Class targets from class indices `0..k` (the names are the indices).
fn classes(y: &[i64]) -> PyResult<ClassTargets> {
    let v: Vec<f64> = y.iter().map(|&c| c as f64).collect();
    ClassTargets::from_f64(&v).map_err(py_error)
}

/// Real targets.
fn real(y: Vec<f64>) -> PyResult<Targets> {
    Ok(Targets::Real(RealTargets::new(y).map_err(py_error)?))
}

/// Checked sample weights (finite, `>= 0`, not all zero), if any.
fn weights(w: Option<Vec<f64>>) -> PyResult<Option<SampleWeights>> {
    w.map(|w| SampleWeights::new(w).map_err(py_error)).transpose()
}

fn solver(tol: f64, cache_mb: f64, shrinking: bool, max_iter: Option<u64>) -> SolverParams {
    SolverParams { tol, cache_mb, shrinking, max_iter, ..SolverParams::default() }
}

/// Trains a C-SVC (`nu` = `None`) or a ν-SVC (`nu` = `Some(ν)`; `c` and `class_weight` unused) on class
/// indices `y`, with optional per-sample weights; `kernel_spec = "precomputed"`: `x` is the kernel
/// matrix of the training points. `c` or `nu` `"auto"`: chosen by cross-validation on the samples
/// (without the weights, among the values the weighted fit can take; `seed` draws the folds). Returns
/// the model and the `C` or `ν` it was trained with.
#[pyfunction]
#[pyo3(signature = (x, y, kernel_spec, c, nu, class_weight, ovr, probability, seed, tol, cache_mb, shrinking, max_iter, n_jobs, sample_weight=None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_svc(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: Vec<i64>,
    kernel_spec: &str,
    c: Setting,
    nu: Option<Setting>,
    class_weight: Option<Vec<f64>>,
    ovr: bool,
    probability: bool,
    seed: u64,
    tol: f64,
    cache_mb: f64,
    shrinking: bool,
    max_iter: Option<u64>,
    n_jobs: Option<i64>,
    sample_weight: Option<Vec<f64>>,
) -> PyResult<(Model, f64)> {
    let x = input(x, Some(y.len()), kernel_spec)?;
    let cls = classes(&y)?;
    let t = Targets::Classes(cls.clone());
    let w = weights(sample_weight)?;
    let solver = solver(tol, cache_mb, shrinking, max_iter);
    let kernel = x.kernel();
    let search = AutoSearch { seed, ..AutoSearch::default() };
    let (m, value) = if let Some(nu) = nu {
        let p = NuSvcParams::new(kernel).probability(probability, seed).solver(solver);
        let nu = value_of(py, n_jobs, &nu, "nu", x.samples(), |xs| {
            p.choose_nu_weighted(xs, &cls, w.as_ref(), &search)
        })?;
        let p = p.nu(nu);
        let m = run(py, n_jobs, || match &x {
            Input::Samples(x, _) => p.fit_with(x, &t, w.as_ref()),
            Input::Gram(k) => p.fit_precomputed_with(k, &t, w.as_ref()),
        })?;
        (m, nu)
    } else {
        let mut p = SvcParams::new(kernel)
            .multiclass(if ovr { Multiclass::OneVsRest } else { Multiclass::OneVsOne })
            .probability(probability, seed)
            .solver(solver);
        for (i, w) in class_weight.unwrap_or_default().into_iter().enumerate() {
            p = p.class_weight(label_name(i as f64), w);
        }
        let c = value_of(py, n_jobs, &c, "C", x.samples(), |xs| p.choose_c(xs, &cls, &search))?;
        let p = p.c(c);
        let m = run(py, n_jobs, || match &x {
            Input::Samples(x, _) => p.fit_with(x, &t, w.as_ref()),
            Input::Gram(k) => p.fit_precomputed_with(k, &t, w.as_ref()),
        })?;
        (m, c)
    };
    Ok((Model { inner: m.into() }, value))
}

/// Trains an ε-SVR (`nu` = `None`) or a ν-SVR (`nu` = `Some(ν)`, `epsilon` unused: the tube is found),
/// with optional per-sample weights; `kernel_spec = "precomputed"`: `x` is the kernel matrix. `c` of
/// the ε-SVR or `nu` of the ν-SVR `"auto"`: chosen by cross-validation on the samples (without the
/// weights; `seed` draws the folds). Returns the model and the `C` (ε-SVR) or `ν` it was trained with.
#[pyfunction]
#[pyo3(signature = (x, y, kernel_spec, c, epsilon, nu, seed, tol, cache_mb, shrinking, max_iter, n_jobs, sample_weight=None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_svr(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: Vec<f64>,
    kernel_spec: &str,
    c: Setting,
    epsilon: f64,
    nu: Option<Setting>,
    seed: u64,
    tol: f64,
    cache_mb: f64,
    shrinking: bool,
    max_iter: Option<u64>,
    n_jobs: Option<i64>,
    sample_weight: Option<Vec<f64>>,
) -> PyResult<(Model, f64)> {
    let x = input(x, Some(y.len()), kernel_spec)?;
    let r = RealTargets::new(y).map_err(py_error)?;
    let t = Targets::Real(r.clone());
    let w = weights(sample_weight)?;
    let solver = solver(tol, cache_mb, shrinking, max_iter);
    let kernel = x.kernel();
    let search = AutoSearch { seed, ..AutoSearch::default() };
    let (m, value) = if let Some(nu) = nu {
        let c =
            c.value("C")?.ok_or_else(|| value_error("C='auto' is for SVC and SVR; give NuSVR a number"))?;
        let p = NuSvrParams::new(kernel).c(c).solver(solver);
        let nu = value_of(py, n_jobs, &nu, "nu", x.samples(), |xs| p.choose_nu(xs, &r, &search))?;
        let p = p.nu(nu);
        let m = run(py, n_jobs, || match &x {
            Input::Samples(x, _) => p.fit_with(x, &t, w.as_ref()),
            Input::Gram(k) => p.fit_precomputed_with(k, &r, w.as_ref()),
        })?;
        (m, nu)
    } else {
        let p = SvrParams::new(kernel).epsilon(epsilon).solver(solver);
        let c = value_of(py, n_jobs, &c, "C", x.samples(), |xs| p.choose_c(xs, &r, &search))?;
        let p = p.c(c);
        let m = run(py, n_jobs, || match &x {
            Input::Samples(x, _) => p.fit_with(x, &t, w.as_ref()),
            Input::Gram(k) => p.fit_precomputed_with(k, &r, w.as_ref()),
        })?;
        (m, c)
    };
    Ok((Model { inner: m.into() }, value))
}

/// Trains a one-class SVM (no targets), with optional per-sample weights; `kernel_spec =
/// "precomputed"`: `x` is the kernel matrix.
#[pyfunction]
#[pyo3(signature = (x, kernel_spec, nu, tol, cache_mb, shrinking, max_iter, n_jobs, sample_weight=None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_one_class(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    kernel_spec: &str,
    nu: f64,
    tol: f64,
    cache_mb: f64,
    shrinking: bool,
    max_iter: Option<u64>,
    n_jobs: Option<i64>,
    sample_weight: Option<Vec<f64>>,
) -> PyResult<Model> {
    let x = input(x, None, kernel_spec)?;
    let w = weights(sample_weight)?;
    let p = OneClassParams::new(x.kernel()).nu(nu).solver(solver(tol, cache_mb, shrinking, max_iter));
    let m = run(py, n_jobs, || match (&x, &w) {
        (Input::Gram(k), w) => p.fit_precomputed_with(k, w.as_ref()),
        (Input::Samples(x, _), Some(w)) => p.fit_weighted(x, w),
        (Input::Samples(x, _), None) => p.fit(x),
    })?;
    Ok(Model { inner: m.into() })
}

/// Targets of a ridge-type model: class indices when `classify`, else real values.
pub(crate) fn ridge_targets(y: Vec<f64>, classify: bool) -> PyResult<Targets> {
    Ok(if classify { Targets::Classes(ClassTargets::from_f64(&y).map_err(py_error)?) } else { real(y)? })
}

/// Trains kernel ridge regression `(K + λI)α = y` (no bias) at a fixed λ (`lam`), or λ chosen by exact
/// leave-one-out over the default grid (`lam` = `None`), with optional per-sample weights (at a fixed
/// λ: `α = S (S K S + λI)⁻¹ S y`, `S = diag √w`).
#[pyfunction]
#[pyo3(signature = (x, y, kernel_spec, lam, n_jobs, sample_weight=None))]
pub fn fit_krr(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: Vec<f64>,
    kernel_spec: &str,
    lam: Option<f64>,
    n_jobs: Option<i64>,
    sample_weight: Option<Vec<f64>>,
) -> PyResult<Model> {
    let x = data(x, y.len())?;
    let t = real(y)?;
    let w = weights(sample_weight)?;
    let p = krr_params(kernel(kernel_spec)?, lam);
    let m = run(py, n_jobs, || p.fit_with(&x, &t, w.as_ref()))?;
    // The check reads the unweighted system: with sample weights it is left out.
    if w.is_none() {
        let spread = m.relative_spread(&t).map_err(py_error)?;
        warn_constant(py, spread, m.lambda(), "alpha")?;
    }
    Ok(Model { inner: m.into() })
}

/// Kernel ridge settings at λ = `lam`, or (`None`) with λ chosen by exact leave-one-out over
/// [`kern_models::krr::default_lambda_grid`] (the library's default).
pub(crate) fn krr_params(kernel: KernelSpec, lam: Option<f64>) -> KernelRidgeParams {
    let p = KernelRidgeParams::new(kernel);
    match lam {
        Some(l) => p.lambda(l),
        None => p,
    }
}

/// The tolerance under which a model's training decision values count as constant (relative to the
/// targets): the default tolerance of the ridge models' iterative solver.
const CONSTANT_TOL: f64 = 1e-6;

/// A Python `UserWarning` when the regularization `lambda` (named `name` in Python) left the model
/// constant: every training decision value within [`CONSTANT_TOL`] of the intercept (`spread` is
/// the model's `relative_spread` on its training targets).
pub(crate) fn warn_constant(py: Python<'_>, spread: f64, lambda: f64, name: &str) -> PyResult<()> {
    if spread > CONSTANT_TOL {
        return Ok(());
    }
    let msg = format!(
        "the model is constant: every training decision value is within {CONSTANT_TOL:e} (relative) of \
         the intercept, as {name}={lambda:e} regularizes everything away ({name} is the ridge penalty of \
         K + {name} I: larger, more regularization); use a smaller {name}"
    );
    let msg = std::ffi::CString::new(msg).map_err(value_error)?;
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    PyErr::warn(py, category.as_any(), &msg, 2)
}

/// Trains an LS-SVM (classifier on class indices when `classify`, else regressor); `lam` fixed (the
/// ridge penalty λ of `K + λI`, the Python `alpha`; `gam` is `1/λ`), or the λ grid searched by
/// leave-one-out.
#[pyfunction]
#[pyo3(signature = (x, y, classify, kernel_spec, lam, grid, n_jobs))]
#[allow(clippy::too_many_arguments)]
pub fn fit_lssvm(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: Vec<f64>,
    classify: bool,
    kernel_spec: &str,
    lam: Option<f64>,
    grid: Option<Vec<f64>>,
    n_jobs: Option<i64>,
) -> PyResult<Model> {
    let x = data(x, y.len())?;
    let t = ridge_targets(y, classify)?;
    let mut p = LsSvmParams::new(kernel(kernel_spec)?);
    p = match (lam, grid) {
        (Some(l), _) => p.lambda(l),
        (None, Some(g)) => p.loo(g),
        (None, None) => p,
    };
    let m = run(py, n_jobs, || p.fit_targets(&x, &t))?;
    warn_constant(py, m.relative_spread(&t).map_err(py_error)?, m.lambda(), "alpha")?;
    Ok(Model { inner: m.into() })
}

/// Trains kernel PCA with `k` components (`solver`: `auto`, `dense` or `krylov`); `kernel_spec =
/// "precomputed"`: `x` is the kernel matrix, and the model's `transform` reads kernel rows `K(Z, X)`.
#[pyfunction]
#[pyo3(signature = (x, kernel_spec, k, solver, tol, seed, n_jobs))]
#[allow(clippy::too_many_arguments)]
pub fn fit_kpca(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    kernel_spec: &str,
    k: usize,
    solver: &str,
    tol: f64,
    seed: u64,
    n_jobs: Option<i64>,
) -> PyResult<Model> {
    let x = input(x, None, kernel_spec)?;
    let solver = match solver {
        "auto" => EigenSolver::Auto,
        "dense" => EigenSolver::Dense,
        "krylov" | "arpack" | "randomized" => EigenSolver::Krylov,
        s => return Err(value_error(format!("unknown eigen_solver {s:?}; valid: auto, dense, krylov"))),
    };
    let p = KernelPcaParams::new(x.kernel(), k).solver(solver).tol(tol).seed(seed);
    let m = match &x {
        Input::Samples(x, _) => run(py, n_jobs, || p.fit(x))?,
        Input::Gram(g) => run(py, n_jobs, || p.fit_precomputed(g))?,
    };
    Ok(Model { inner: m.into() })
}

/// Trains a Nyström kernel PCA: centres chosen by `landmarks` (`random:M` or `fvs:M[:POOL]`, seeded by
/// `seed`), then `min(k, centres)` components (feature vector selection may keep fewer than `M` centres
/// when the data's span in feature space has a smaller dimension).
#[pyfunction]
#[pyo3(signature = (x, kernel_spec, k, landmarks, seed, n_jobs))]
pub fn fit_nystrom_kpca(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    kernel_spec: &str,
    k: usize,
    landmarks: &str,
    seed: u64,
    n_jobs: Option<i64>,
) -> PyResult<Model> {
    let x = samples(x)?;
    let choice: Landmarks = landmarks.parse().map_err(py_error)?;
    let kernel = kernel(kernel_spec)?;
    let m = run(py, n_jobs, || {
        let centres = select_landmarks(&kernel, &x, choice, seed, Default::default())?;
        NystromKpcaParams::new(kernel.clone(), k.min(centres.len()), choice)
            .seed(seed)
            .fit_with_centres(&x, &centres)
    })?;
    Ok(Model { inner: m.into() })
}

/// Selects feature vectors (`basis = "fvs"`) or random landmarks (`"random"`) and keeps the feature map
/// `z = L⁻¹ k_S(x)` (`K_SS = L Lᵀ`).
#[pyfunction]
#[pyo3(signature = (x, kernel_spec, max_fv, min_fitness, basis, seed, n_jobs))]
#[allow(clippy::too_many_arguments)]
pub fn fit_fvs(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    kernel_spec: &str,
    max_fv: usize,
    min_fitness: Option<f64>,
    basis: &str,
    seed: u64,
    n_jobs: Option<i64>,
) -> PyResult<Model> {
    let x = samples(x)?;
    let choice = match basis {
        "fvs" => {
            let p = FvsParams { max_fv: Some(max_fv), min_fitness, ..Default::default() };
            p.check().map_err(py_error)?;
            BasisChoice::Fvs(p)
        }
        "random" => BasisChoice::Random { size: max_fv, seed },
        s => return Err(value_error(format!("unknown basis {s:?}; valid: fvs, random"))),
    };
    let k = kernel(kernel_spec)?;
    let m = run(py, n_jobs, || FvsLayer::fit(k, &choice, Projection::Coordinates, &x))?;
    Ok(Model { inner: m.into() })
}

/// Trains a railway-kernel SVC: areas located from the labels, the explicit zone features, a linear
/// C-SVC on them.
#[pyfunction]
#[pyo3(signature = (x, y, c, gamma, significance, k_max, seed, probability, tol, cache_mb, max_iter, n_jobs))]
#[allow(clippy::too_many_arguments)]
pub fn fit_railway(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: Vec<i64>,
    c: f64,
    gamma: f64,
    significance: f64,
    k_max: usize,
    seed: u64,
    probability: bool,
    tol: f64,
    cache_mb: f64,
    max_iter: Option<u64>,
    n_jobs: Option<i64>,
) -> PyResult<Model> {
    let x = data(x, y.len())?.to_dense().map_err(py_error)?;
    let cls = classes(&y)?;
    let params =
        AreaParams { gamma: GammaChoice::Relative(gamma), significance, k_max, seed, ..Default::default() };
    params.check().map_err(py_error)?;
    let svc = SvcParams::new(KernelSpec::Linear(Linear))
        .c(c)
        .probability(probability, seed)
        .solver(solver(tol, cache_mb, true, max_iter));
    let t = Targets::Classes(cls.clone());
    let m = run(py, n_jobs, || -> kern_models::Result<RailwaySvc> {
        let loc = locate_areas(&x, &cls, &params)?;
        let map = ZoneMap::fit(loc.kernel(KernelSpec::Linear(Linear))?, &x, 1e-12)?;
        let z = map.transform(&x)?;
        Ok(RailwaySvc { svc: svc.fit(&z, &t)?, map })
    })?;
    Ok(Model { inner: m.into() })
}
