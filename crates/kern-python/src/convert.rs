//! Conversions at the Python boundary: input arrays to [`Samples`], results to NumPy arrays, kern
//! errors to `ValueError`, and `n_jobs` to a rayon pool.

use kern_core::Samples;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A kern error (any displayable error) as a Python `ValueError`.
pub fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The parts of a SciPy CSR matrix as the Python layer passes them: `(indptr, indices, data, n, d)`.
type CsrParts<'py> =
    (PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, f64>, usize, usize);

fn to_usize(v: &[i64], what: &str) -> PyResult<Vec<usize>> {
    v.iter()
        .map(|&i| {
            usize::try_from(i)
                .map_err(|_| value_error(format!("negative {what} entry {i} in a sparse matrix")))
        })
        .collect()
}

/// The samples of `x`: a C- or Fortran-ordered (or strided, read-only, memory-mapped) 2-D `float64`
/// array, or the CSR parts tuple. The values are copied once into kern's own store.
pub fn samples(x: &Bound<'_, PyAny>) -> PyResult<Samples> {
    if let Ok((indptr, indices, data, n, d)) = x.extract::<CsrParts<'_>>() {
        let indptr = to_usize(indptr.as_slice()?, "indptr")?;
        let indices = to_usize(indices.as_slice()?, "index")?;
        let values = data.as_slice()?.to_vec();
        return Samples::from_csr(n, d, indptr, indices, values).map_err(value_error);
    }
    let a: PyReadonlyArray2<'_, f64> = x.extract()?;
    let v = a.as_array();
    let (n, d) = v.dim();
    // One copy into kern's store: a memcpy for C order, a strided walk otherwise.
    let flat: Vec<f64> = match v.as_slice() {
        Some(s) => s.to_vec(),
        None => v.iter().copied().collect(),
    };
    Samples::from_flat(flat, n, d).map_err(value_error)
}

/// A row-major `n × m` buffer as a NumPy array.
pub fn array2(py: Python<'_>, n: usize, m: usize, flat: Vec<f64>) -> PyResult<Bound<'_, PyArray2<f64>>> {
    Ok(Array2::from_shape_vec((n, m), flat).map_err(value_error)?.into_pyarray(py))
}

/// A faer matrix as a NumPy array.
pub fn mat<'py>(py: Python<'py>, m: faer::MatRef<'_, f64>) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (r, c) = (m.nrows(), m.ncols());
    let mut flat = Vec::with_capacity(r * c);
    for i in 0..r {
        flat.extend((0..c).map(|j| m[(i, j)]));
    }
    array2(py, r, c, flat)
}

/// Dense samples as a NumPy array.
pub fn dense<'py>(py: Python<'py>, x: &Samples) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let d = x.to_dense().map_err(value_error)?;
    array2(py, d.n(), d.d(), d.as_slice().to_vec())
}

/// Number of threads for scikit-learn's `n_jobs` (`None`: kern's default pool; `-1`: every CPU,
/// `-2`: all but one, ...), lowered to kern's maximum (`kern_core::parallel::max_threads`, four per
/// processor) with a `UserWarning` when `n_jobs` asks for more.
fn threads(py: Python<'_>, n_jobs: Option<i64>) -> PyResult<Option<usize>> {
    let asked = match n_jobs {
        None => None,
        Some(0) => return Err(value_error("n_jobs == 0 has no meaning; use None, -1 or a positive count")),
        Some(k) if k > 0 => Some(usize::try_from(k).unwrap_or(usize::MAX)),
        Some(k) => {
            let cpus = kern_core::parallel::cpus() as i64;
            Some(cpus.saturating_add(1).saturating_add(k).max(1) as usize)
        }
    };
    let count = kern_core::parallel::thread_count(asked).map_err(value_error)?;
    if let Some(w) = count.warning() {
        let msg = std::ffi::CString::new(format!("n_jobs: {w}")).map_err(value_error)?;
        let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
        PyErr::warn(py, category.as_any(), &msg, 2)?;
    }
    Ok(asked.map(|_| count.threads))
}

/// Runs `f` without the GIL, in a local rayon pool of `n_jobs` threads when given.
pub fn run<T: Send, E: std::fmt::Display + Send>(
    py: Python<'_>,
    n_jobs: Option<i64>,
    f: impl FnOnce() -> Result<T, E> + Send,
) -> PyResult<T> {
    let t = threads(py, n_jobs)?;
    // One pool per thread count for the process (`kern_core::parallel::install`): a grid search
    // fits hundreds of times, and starting threads for each fit cost more than a small fit.
    py.detach(|| match kern_core::parallel::install(t, f) {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    })
    .map_err(PyValueError::new_err)
}
