//! Stand-alone functions: Gram matrices, Gaussian bandwidth heuristics, support radius of a compactly
//! supported kernel, the memory limit, and a test hook on kern's thread pools.

use crate::convert::{mat, py_error, run, samples, value_error};
use kern_core::{KernelSpec, cross_gram, gram as kern_gram};
use kern_tune::bandwidth::{BandwidthOptions, Method, select_bandwidth};
use kern_tune::support::{Procedure, Search, SupportOptions, select_support};
use numpy::PyArray2;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `K(x, y)` (`K(x, x)` when `y` is `None`) for a kern kernel spec.
#[pyfunction]
#[pyo3(signature = (x, y, kernel_spec, n_jobs))]
pub fn gram<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: Option<&Bound<'py, PyAny>>,
    kernel_spec: &str,
    n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let k: KernelSpec = kernel_spec.parse().map_err(py_error)?;
    let x = samples(x)?;
    let g = match y {
        None => run(py, n_jobs, || kern_gram(&k, &x))?,
        Some(y) => {
            let y = samples(y)?;
            run(py, n_jobs, || cross_gram(&k, &x, &y))?
        }
    };
    mat(py, g.as_ref())
}

/// Gaussian precision `β` of `exp(-β r²)` by a heuristic; `labels` (class indices) for Ahn's method.
#[pyfunction]
#[pyo3(signature = (x, method, labels, n_jobs))]
pub fn bandwidth<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    method: &str,
    labels: Option<Vec<usize>>,
    n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let method: Method = method.parse().map_err(py_error)?;
    let x = samples(x)?;
    let b =
        run(py, n_jobs, || select_bandwidth(&x, labels.as_deref(), method, &BandwidthOptions::default()))?;
    let d = PyDict::new(py);
    d.set_item("method", method.name())?;
    d.set_item("beta", b.beta)?;
    d.set_item("gamma", b.beta)?;
    d.set_item("sigma", b.sigma)?;
    d.set_item("criterion", b.criterion)?;
    d.set_item("pairs", b.pairs)?;
    d.set_item("sampling", b.sampling)?;
    Ok(d)
}

/// Support radius `C` of the compactly supported version of the radial `base` kernel (CS-RBF §3.3):
/// `procedure` is `combined` (maximise `A + value·S`), `min-alignment` (max `S` with `A ≥ value`) or
/// `min-sparsity` (max `A` with `S ≥ value`); `grid` the values of `C` searched (`None`: the paper's
/// `log₂ C ∈ [−5, 5]`).
#[pyfunction]
#[pyo3(signature = (x, base_spec, procedure, value, nu, grid, n_jobs))]
#[allow(clippy::too_many_arguments)]
pub fn support_radius<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    base_spec: &str,
    procedure: &str,
    value: f64,
    nu: f64,
    grid: Option<Vec<f64>>,
    n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let base: KernelSpec = base_spec.parse().map_err(py_error)?;
    let proc = match procedure {
        "combined" => Procedure::Combined { gamma: value },
        "min-alignment" => Procedure::MinAlignment { mu: value },
        "min-sparsity" => Procedure::MinSparsity { tau: value },
        p => {
            return Err(value_error(format!(
                "unknown procedure {p:?}; valid: combined, min-alignment, min-sparsity"
            )));
        }
    };
    let search = grid.map_or_else(Search::default, Search::Grid);
    let opts = SupportOptions { nu, ..Default::default() };
    let x = samples(x)?;
    let c = run(py, n_jobs, || select_support(&base, &x, proc, &search, &opts))?;
    let d = PyDict::new(py);
    d.set_item("c", c.c)?;
    d.set_item("alignment", c.alignment)?;
    d.set_item("sparsity", c.sparsity)?;
    d.set_item("pairs", c.pairs)?;
    Ok(d)
}

/// Sets the memory budget of kern's allocations in this process: a byte count, a size string
/// (`"4G"`, `"512M"`, `"1.5GiB"`: powers of 1024), or `None` to remove the limit (then the budget is
/// what the system reports). Returns the limit set, in bytes.
#[pyfunction]
#[pyo3(signature = (limit))]
pub fn set_memory_limit(limit: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    let bytes = match limit {
        None => None,
        Some(v) => Some(if let Ok(s) = v.extract::<String>() {
            kern_core::memory::parse_size(&s).map_err(|_| {
                value_error(format!(
                    "limit must be a byte count, a size such as \"4G\" or \"512M\", or None; got {s:?}"
                ))
            })?
        } else {
            v.extract::<u64>().map_err(|_| {
                value_error("limit must be a non-negative byte count, a size such as \"4G\", or None")
            })?
        }),
    };
    crate::convert::set_memory_limit(bytes);
    Ok(bytes)
}

/// The sizes of the thread pools kern has run work on in this process (a test hook: their sum is
/// the number of worker threads kern started).
#[pyfunction]
pub fn pools_used() -> Vec<usize> {
    crate::convert::pools_used()
}
