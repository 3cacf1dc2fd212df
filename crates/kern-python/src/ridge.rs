//! Kernel ridge regression beyond one target column: several outputs trained together, and the
//! coefficients of a kernel matrix the Python layer computed (`kernel="precomputed"` or a Python
//! kernel function).

use crate::convert::{mat, run, samples, value_error};
use crate::model::Model;
use kern_core::KernelSpec;
use kern_models::krr::solve_kernel_matrix;
use kern_models::weights::SampleWeights;
use numpy::{PyArray2, PyReadonlyArray2};
use pyo3::prelude::*;

/// A 2-D float64 array as a faer matrix.
fn to_mat(a: &PyReadonlyArray2<'_, f64>) -> faer::Mat<f64> {
    let v = a.as_array();
    faer::Mat::from_fn(v.nrows(), v.ncols(), |i, j| v[[i, j]])
}

/// Checked sample weights (finite, `>= 0`, not all zero), if any.
fn weights(w: Option<Vec<f64>>) -> PyResult<Option<SampleWeights>> {
    w.map(|w| SampleWeights::new(w).map_err(value_error)).transpose()
}

/// Trains kernel ridge regression on the `n × t` targets `y` at a fixed λ (`lam`; `None`: chosen by
/// exact leave-one-out over the default grid): one factorization of `K + λI` (per λ of the grid), `t`
/// right-hand sides; with optional per-sample weights. Warns, as the one-output fit, when λ left the
/// model constant (unweighted fits only).
#[pyfunction]
#[pyo3(signature = (x, y, kernel_spec, lam, n_jobs, sample_weight=None))]
pub fn fit_krr_outputs(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: PyReadonlyArray2<'_, f64>,
    kernel_spec: &str,
    lam: Option<f64>,
    n_jobs: Option<i64>,
    sample_weight: Option<Vec<f64>>,
) -> PyResult<Model> {
    let x = samples(x)?;
    let y = to_mat(&y);
    if y.nrows() != x.n() {
        return Err(value_error(format!("{} targets for {} samples", y.nrows(), x.n())));
    }
    let w = weights(sample_weight)?;
    let kernel: KernelSpec = kernel_spec.parse().map_err(value_error)?;
    let p = crate::fit::krr_params(kernel, lam);
    let m = run(py, n_jobs, || p.fit_outputs(&x, y.as_ref(), w.as_ref()))?;
    // The check reads the unweighted system: with sample weights it is left out.
    if w.is_none() {
        let spread = m.relative_spread_outputs(y.as_ref()).map_err(value_error)?;
        crate::fit::warn_constant(py, spread, m.lambda(), "alpha")?;
    }
    Ok(Model { inner: m.into() })
}

/// Kernel ridge coefficients (`n × t`) of the `n × n` kernel matrix `k` and the targets `y`
/// (`n × t`) at λ = `lam`, with optional per-sample weights.
#[pyfunction]
#[pyo3(signature = (k, y, lam, n_jobs, sample_weight=None))]
pub fn krr_kernel_matrix<'py>(
    py: Python<'py>,
    k: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray2<'py, f64>,
    lam: f64,
    n_jobs: Option<i64>,
    sample_weight: Option<Vec<f64>>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (k, y) = (to_mat(&k), to_mat(&y));
    let w = weights(sample_weight)?;
    let a = run(py, n_jobs, || solve_kernel_matrix(k, y.as_ref(), lam, w.as_ref()))?;
    mat(py, a.as_ref())
}
