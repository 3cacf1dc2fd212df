//! Conversions at the Python boundary: input arrays to [`Samples`], results to NumPy arrays, kern
//! errors to Python exceptions (`MemoryError` for a refused allocation, `ValueError` otherwise), and
//! `n_jobs` to a rayon pool.

use kern_core::{CoreError, Samples};
use kern_models::{ModelsError, SparseError};
use kern_tune::TuneError;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// A displayable error as a Python `ValueError`.
pub fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// An error of a kern crate, with the kern-core error it wraps (if any), so that the Python boundary
/// can tell a memory refusal from the rest by its variant.
pub trait KernError: std::fmt::Display {
    /// The kern-core error this error is or wraps.
    fn core(&self) -> Option<&CoreError>;
}

impl KernError for CoreError {
    fn core(&self) -> Option<&CoreError> {
        Some(self)
    }
}

impl KernError for SparseError {
    fn core(&self) -> Option<&CoreError> {
        match self {
            SparseError::Core(e) => Some(e),
            _ => None,
        }
    }
}

impl KernError for ModelsError {
    fn core(&self) -> Option<&CoreError> {
        match self {
            ModelsError::Core(e) => Some(e),
            ModelsError::Sparse(e) => e.core(),
            _ => None,
        }
    }
}

impl KernError for TuneError {
    fn core(&self) -> Option<&CoreError> {
        match self {
            TuneError::Core(e) => Some(e),
            _ => None,
        }
    }
}

/// A message of this crate's own (no kern-core error inside).
impl KernError for String {
    fn core(&self) -> Option<&CoreError> {
        None
    }
}

/// Whether `kern.set_memory_limit` set the memory budget (then a refusal was measured against it).
static PYTHON_LIMIT: AtomicBool = AtomicBool::new(false);

/// Sets (`Some`) or removes (`None`) the memory budget of kern's allocations in this process.
pub fn set_memory_limit(bytes: Option<u64>) {
    kern_core::memory::set_limit(bytes);
    PYTHON_LIMIT.store(bytes.is_some(), Ordering::Relaxed);
}

/// A kern error as a Python exception: a refused allocation ([`CoreError::Memory`]) as `MemoryError`
/// with advice in Python terms, anything else as `ValueError`.
pub fn py_error(e: impl KernError) -> PyErr {
    let Some(CoreError::Memory { what, needed, available, source_name, .. }) = e.core() else {
        return value_error(e);
    };
    let human = kern_core::memory::human;
    let limited = PYTHON_LIMIT.load(Ordering::Relaxed);
    let source = if limited { "the limit set by kern.set_memory_limit" } else { source_name };
    let raise =
        if limited { "raise the limit with kern.set_memory_limit (None removes it), or " } else { "" };
    PyMemoryError::new_err(format!(
        "out of memory: {what} needs {} but {} is available ({source}); {raise}train on fewer \
         samples, or use a model that needs less memory: sparse input with a compactly supported \
         kernel (kernel=\"cs-gaussian:sigma=...,c=...\"), or a linear model on the landmark features of \
         kern.FeatureVectorSelection or kern.NystroemKernelPCA",
        human(*needed),
        human(*available),
    ))
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
        return Samples::from_csr(n, d, indptr, indices, values).map_err(py_error);
    }
    let a: PyReadonlyArray2<'_, f64> = x.extract()?;
    let v = a.as_array();
    let (n, d) = v.dim();
    // One copy into kern's store: a memcpy for C order, a strided walk otherwise.
    let flat: Vec<f64> = match v.as_slice() {
        Some(s) => s.to_vec(),
        None => v.iter().copied().collect(),
    };
    Samples::from_flat(flat, n, d).map_err(py_error)
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
    let d = x.to_dense().map_err(py_error)?;
    array2(py, d.n(), d.d(), d.as_slice().to_vec())
}

/// Number of threads for scikit-learn's `n_jobs` (`None`: kern's default pool; `-1`: every CPU,
/// `-2`: all but one, ...), lowered to kern's maximum (`kern_core::parallel::max_threads`, four per
/// processor) with a `UserWarning` when `n_jobs` asks for more. (The Python layer resolves `n_jobs`
/// to a count within the CPUs and the limits of joblib and threadpoolctl before it calls in.)
fn threads(py: Python<'_>, n_jobs: Option<i64>) -> PyResult<usize> {
    let asked = match n_jobs {
        None => None,
        Some(0) => return Err(value_error("n_jobs == 0 has no meaning; use None, -1 or a positive count")),
        Some(k) if k > 0 => Some(usize::try_from(k).unwrap_or(usize::MAX)),
        Some(k) => {
            let cpus = kern_core::parallel::cpus() as i64;
            Some(cpus.saturating_add(1).saturating_add(k).max(1) as usize)
        }
    };
    let count = kern_core::parallel::thread_count(asked).map_err(py_error)?;
    if let Some(w) = count.warning() {
        let msg = std::ffi::CString::new(format!("n_jobs: {w}")).map_err(value_error)?;
        let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
        PyErr::warn(py, category.as_any(), &msg, 2)?;
    }
    Ok(count.threads)
}

/// The sizes of the thread pools [`run`] has run work on in this process (each pool is started once
/// and kept): their sum is the number of worker threads kern started.
static POOLS_USED: Mutex<BTreeSet<usize>> = Mutex::new(BTreeSet::new());

/// The sizes of the thread pools kern has run work on in this process (a test hook: their sum is the
/// number of worker threads kern started).
pub fn pools_used() -> Vec<usize> {
    POOLS_USED.lock().unwrap_or_else(|e| e.into_inner()).iter().copied().collect()
}

/// Runs `f` without the GIL, in a local rayon pool of `n_jobs` threads when given.
pub fn run<T: Send, E: KernError + Send>(
    py: Python<'_>,
    n_jobs: Option<i64>,
    f: impl FnOnce() -> Result<T, E> + Send,
) -> PyResult<T> {
    run_unless_here(py, n_jobs, false, f)
}

/// [`run`], or, when `here`, `f` without the GIL on the calling thread (a plan that keeps the work
/// serial: `kern_core::parallel::install_unless_here`); `n_jobs` is checked either way.
pub fn run_unless_here<T: Send, E: KernError + Send>(
    py: Python<'_>,
    n_jobs: Option<i64>,
    here: bool,
    f: impl FnOnce() -> Result<T, E> + Send,
) -> PyResult<T> {
    let t = threads(py, n_jobs)?;
    if !here {
        POOLS_USED.lock().unwrap_or_else(|e| e.into_inner()).insert(t);
    }
    // One pool per thread count for the process (`kern_core::parallel::install`): a grid search
    // fits hundreds of times, and starting threads for each fit cost more than a small fit. The
    // first count is rayon's global pool, which work on the calling thread also finds.
    kern_core::parallel::claim_global(t);
    py.detach(|| match kern_core::parallel::install_unless_here(Some(t), here, f) {
        Ok(r) => r.map_err(py_error),
        Err(e) => Err(py_error(e)),
    })
}
