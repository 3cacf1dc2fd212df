//! # kern-python
//!
//! The native module `kern._kern` of the Python package `kern` (scikit-learn-compatible estimators,
//! written in Python over these functions). It converts NumPy and SciPy inputs to kern samples once,
//! trains and predicts without the GIL in a rayon pool sized by `n_jobs`, returns NumPy arrays, and
//! turns kern's errors into Python exceptions (`MemoryError` for a refused allocation, else
//! `ValueError`). Built with maturin (`pyproject.toml` next to this crate); the tests are the pytest
//! suite in `tests/`.

mod auto;
mod convert;
mod fit;
mod helpers;
mod model;
mod ridge;

use pyo3::prelude::*;

/// The module `kern._kern`.
#[pymodule]
fn _kern(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Same bits at any thread count (faer's split degree fixed).
    kern_core::parallel::fix_faer_global();
    kern_core::parallel::prepare_dense();
    m.add_class::<model::Model>()?;
    m.add_function(wrap_pyfunction!(fit::fit_svc, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_svr, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_one_class, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_krr, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_lssvm, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_kpca, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_nystrom_kpca, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_fvs, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_railway, m)?)?;
    m.add_function(wrap_pyfunction!(ridge::fit_krr_outputs, m)?)?;
    m.add_function(wrap_pyfunction!(ridge::krr_kernel_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(auto::resolve_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(auto::gaussian_width_auto, m)?)?;
    m.add_function(wrap_pyfunction!(auto::choose_width, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::gram, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::bandwidth, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::support_radius, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::set_memory_limit, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::pools_used, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
