//! Values chosen on the training data, as the Python estimators ask for them: a kernel spec whose
//! width or support radius is a method's name (kern-tune's [`AutoKernel`]: `gamma="mean-to-half"`
//! of the rbf kernel, or a kern spec such as `"cs-gaussian:sigma=auto,c=auto"`), `C` or `ν`
//! written as `"auto"` (kern-models' `choose_c` / `choose_nu`, called by the SVM fits through
//! [`value_of`]), and the Gaussian width of the ridge models widened together with λ by exact
//! leave-one-out (`gamma="loo"`, or `gaussian:sigma=auto` with `alpha="auto"`: kern-models'
//! `choose_width`, through [`choose_width`]).

use crate::convert::{py_error, run, samples, value_error};
use crate::fit::{data, kernel, krr_params, ridge_targets, warn_constant};
use crate::model::Model;
use kern_core::{KernelSpec, Samples};
use kern_models::lssvm::LsSvmParams;
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

/// Whether the kern kernel spec `kernel_spec` is a Gaussian whose width is written `auto` (not a
/// named method): with λ chosen by leave-one-out, the ridge models then widen its mean-to-half
/// width, as `kern train` does ([`choose_width`]).
#[pyfunction]
pub fn gaussian_width_auto(kernel_spec: &str) -> PyResult<bool> {
    Ok(AutoKernel::parse(kernel_spec).map_err(py_error)?.is_some_and(|a| a.gaussian_width_auto()))
}

/// The Gaussian `kernel_spec` (every value a number, typically the mean-to-half width) widened
/// together with λ by exact leave-one-out (kern-models' `choose_width`: factors 1 to 16, each with
/// its own λ selection, on at most 1,000 samples, a subsample seeded by `seed` beyond) for `model`:
/// `"krr"` (real targets `y`), `"lssvc"` (class indices) or `"lssvr"` (real targets). A dict with
/// `kernel` (the chosen spec), `gamma` (its `β` of `exp(−β r²)`), `factor`, `curve` (one
/// `(factor, lambda, error)` per factor tried), `points`, `seconds`, `alpha` (the best λ at the
/// chosen width) and `searched_all` (whether the search ran on all the samples); and `model`, the
/// model at the chosen width, warning as `fit_krr` and `fit_lssvm` do: the search's own fit when it
/// ran on all the samples (what those functions with that kernel and no λ would return), else the
/// fit on all of them at the chosen width and `alpha` (kern-models' `choose_width_with_fit`).
#[pyfunction]
#[pyo3(signature = (x, y, model, kernel_spec, seed, n_jobs))]
pub fn choose_width<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: Vec<f64>,
    model: &str,
    kernel_spec: &str,
    seed: u64,
    n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let x = data(x, y.len())?;
    let k = kernel(kernel_spec)?;
    // The model of the chosen width (on all the samples only) and its spread for the constant-model
    // warning, which the fits would otherwise give.
    let (ch, fitted) = match model {
        "krr" => {
            let t = ridge_targets(y, false)?;
            let p = krr_params(k, None);
            let (ch, (m, _)) = run(py, n_jobs, || p.choose_width_with_fit(&x, &t, seed))?;
            (ch, (m.relative_spread(&t).map_err(py_error)?, m.lambda(), m.into()))
        }
        "lssvc" | "lssvr" => {
            let t = ridge_targets(y, model == "lssvc")?;
            let p = LsSvmParams::new(k);
            let (ch, (m, _)) = run(py, n_jobs, || p.choose_width_with_fit(&x, &t, seed))?;
            (ch, (m.relative_spread(&t).map_err(py_error)?, m.lambda(), m.into()))
        }
        m => {
            return Err(value_error(format!(
                "unknown model {m:?} of the width search; valid: krr, lssvc, lssvr"
            )));
        }
    };
    let KernelSpec::Gaussian(g) = &ch.kernel else {
        return Err(value_error(format!("the width search returned {}, not a gaussian", ch.kernel)));
    };
    let curve: Vec<(f64, f64, f64)> = ch.curve.iter().map(|c| (c.factor, c.lambda, c.error)).collect();
    let d = PyDict::new(py);
    d.set_item("kernel", ch.kernel.to_string())?;
    d.set_item("gamma", g.beta())?;
    d.set_item("factor", ch.factor)?;
    d.set_item("curve", curve)?;
    d.set_item("points", ch.points)?;
    d.set_item("seconds", ch.seconds)?;
    d.set_item("alpha", ch.lambda())?;
    d.set_item("searched_all", ch.searched_all(x.n()))?;
    let (spread, lambda, inner) = fitted;
    warn_constant(py, spread, lambda, "alpha")?;
    d.set_item("model", Model { inner })?;
    Ok(d)
}
