//! Values chosen on the training data, as the Python estimators ask for them: a kernel spec whose
//! width or support radius is a method's name (kern-tune's [`AutoKernel`]: `gamma="mean-to-half"`
//! of the rbf kernel, or a kern spec such as `"cs-gaussian:sigma=auto,c=auto"`), and `C` or `ν`
//! written as `"auto"` (kern-models' `choose_c` / `choose_nu`, called by the SVM fits through
//! [`value_of`]).

use crate::convert::{py_error, run, samples, value_error};
use kern_core::Samples;
use kern_models::svm::AutoChoice;
use kern_tune::auto::AutoKernel;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A parameter as Python gives it: a number, or the string `"auto"` (chosen on the training data).
#[derive(FromPyObject)]
pub enum Setting {
    /// This value.
    Value(f64),
    /// A word: `"auto"` is the only one taken.
    Word(String),
}

impl Setting {
    /// The number, `None` for `"auto"`; an error naming `name` for any other word.
    pub fn value(&self, name: &str) -> PyResult<Option<f64>> {
        match self {
            Setting::Value(v) => Ok(Some(*v)),
            Setting::Word(w) if w == "auto" => Ok(None),
            Setting::Word(w) => Err(value_error(format!("{name} must be 'auto' or a number, got {w:?}"))),
        }
    }
}

/// The value of `setting` (the parameter `name`), or the one `choose` picks on the training samples
/// `x` (without the GIL, on `n_jobs` threads). `x` is `None` for a kernel matrix, on which nothing
/// can be chosen.
pub fn value_of(
    py: Python<'_>,
    n_jobs: Option<i64>,
    setting: &Setting,
    name: &str,
    x: Option<&Samples>,
    choose: impl FnOnce(&Samples) -> kern_models::Result<AutoChoice> + Send,
) -> PyResult<f64> {
    if let Some(v) = setting.value(name)? {
        return Ok(v);
    }
    let Some(x) = x else {
        return Err(value_error(format!(
            "{name}='auto' chooses {name} by cross-validation on the samples, which kernel='precomputed' \
             does not give; give {name} a number, or search it with GridSearchCV"
        )));
    };
    Ok(run(py, n_jobs, || choose(x))?.value)
}

/// The kern kernel spec `kernel_spec` with its automatic values (a width or radius written as a
/// method: `gaussian:gamma=mean-to-half`, `cs-gaussian:sigma=auto,c=auto`) chosen on the samples `x`
/// (`labels`: class index per sample, for Ahn's width; `seed`: the subsample of large data sets), as
/// `(spec, choices)`; each choice a dict with `parameter`, `method`, `value`, `detail`, `seconds`.
/// A spec without automatic values comes back as given, with no choices (`x` is then not read).
#[pyfunction]
#[pyo3(signature = (x, kernel_spec, labels, seed, n_jobs))]
pub fn resolve_kernel<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    kernel_spec: &str,
    labels: Option<Vec<usize>>,
    seed: u64,
    n_jobs: Option<i64>,
) -> PyResult<(String, Vec<Bound<'py, PyDict>>)> {
    let Some(auto) = AutoKernel::parse(kernel_spec).map_err(py_error)? else {
        return Ok((kernel_spec.to_string(), Vec::new()));
    };
    let x = samples(x)?;
    if let Some(l) = &labels
        && l.len() != x.n()
    {
        return Err(value_error(format!("{} labels for {} samples", l.len(), x.n())));
    }
    let r = run(py, n_jobs, || auto.resolve(&x, labels.as_deref(), seed))?;
    let choices = r
        .choices
        .iter()
        .map(|c| {
            let d = PyDict::new(py);
            d.set_item("parameter", &c.parameter)?;
            d.set_item("method", &c.method)?;
            d.set_item("value", c.value)?;
            d.set_item("detail", &c.detail)?;
            d.set_item("seconds", c.seconds)?;
            Ok(d)
        })
        .collect::<PyResult<_>>()?;
    Ok((r.kernel.to_string(), choices))
}
