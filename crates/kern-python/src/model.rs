//! [`Model`]: a trained kern model held by a Python estimator, with its predictions, fitted attributes
//! and bytes (for pickling).

use crate::convert::{array2, dense, mat, py_error, run, run_unless_here, samples, value_error};
use kern_core::Samples;
use kern_models::svm::Svc;
use kern_models::{AnyModel, Input};
use numpy::PyArray2;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// A trained model: any kind kern-models' registry holds ([`AnyModel`]).
#[pyclass(module = "kern._kern", frozen)]
pub struct Model {
    pub(crate) inner: AnyModel,
}

fn wrong(kind: &str, what: &str) -> PyErr {
    value_error(format!("a {kind} model has no {what}"))
}

/// Hash of a dense row, by bits.
fn row_hash(r: &[f64]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for v in r {
        v.to_bits().hash(&mut h);
    }
    h.finish()
}

/// For each row of `sv`, the index of an equal row of `x` (each row of `x` used once, earliest first).
fn match_rows(x: &Samples, sv: &Samples) -> Result<Vec<usize>, String> {
    let d = x.d();
    let (mut a, mut b) = (vec![0.0; d], vec![0.0; d]);
    let mut by_hash: HashMap<u64, Vec<usize>> = HashMap::new();
    for i in (0..x.n()).rev() {
        x.sample(i).write_dense(&mut a);
        by_hash.entry(row_hash(&a)).or_default().push(i);
    }
    let mut out = Vec::with_capacity(sv.n());
    for k in 0..sv.n() {
        sv.sample(k).write_dense(&mut b);
        let cand = by_hash.get_mut(&row_hash(&b)).ok_or("a support vector is not a training row")?;
        let pos = cand
            .iter()
            .rposition(|&i| {
                x.sample(i).write_dense(&mut a);
                a == b
            })
            .ok_or("a support vector is not a training row")?;
        out.push(cand.remove(pos));
    }
    Ok(out)
}

impl Model {
    fn kind_name(&self) -> &'static str {
        self.inner.kind().name()
    }

    fn svc(&self) -> PyResult<&Svc> {
        match &self.inner {
            AnyModel::Svc(m) => Ok(m),
            AnyModel::RailwaySvc(m) => Ok(&m.svc),
            _ => Err(wrong(self.kind_name(), "SVC machines")),
        }
    }

    /// Whether the model was trained on a precomputed kernel matrix (its support vectors are serial
    /// numbers of the training points, and it predicts from kernel rows).
    fn precomputed(&self) -> bool {
        self.inner.input() == Input::KernelRows
    }

    /// Samples from `x`, checked against the model's width (a precomputed model reads kernel rows
    /// against the training points: kern checks their length against the largest support-vector
    /// serial; the Python layer checks the width).
    fn checked(&self, x: &Bound<'_, PyAny>) -> PyResult<Samples> {
        let x = samples(x)?;
        let d = self.inner.n_features();
        if !self.precomputed() && x.d() != d {
            return Err(value_error(format!("X has {} features, but the model was fitted with {d}", x.d())));
        }
        Ok(x)
    }
}

#[pymethods]
impl Model {
    /// The model kind: `svc`, `svr`, `one-class`, `krr`, `lssvm`, `kpca`, `nystrom-kpca`, `fvs`,
    /// `railway-svc` (or another kind of kern model file: `nystrom`, `kfa`, `libsvm`).
    fn kind(&self) -> &'static str {
        self.kind_name()
    }

    /// Number of input features (for a precomputed model, the least kernel-row length).
    fn n_features(&self) -> usize {
        self.inner.n_features()
    }

    /// The kernel spec string.
    fn kernel(&self) -> String {
        self.inner.kernel()
    }

    /// Decision values, one row per sample: one column per machine (SVC), one per output (ridge, LS-SVM),
    /// one for SVR and one-class.
    #[pyo3(signature = (x, n_jobs=None))]
    fn decision_function<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let x = self.checked(x)?;
        let here = self.inner.predicts_serially(&x);
        mat(py, run_unless_here(py, n_jobs, here, || self.inner.decision_function(&x))?.as_ref())
    }

    /// Labels (class names: `"0"`, `"1"`, ... for the encoded labels the Python layer trains on;
    /// values for regressors), decision values and, with `proba`, class probabilities, from one
    /// prediction pass (one kernel expansion).
    #[pyo3(signature = (x, proba=false, n_jobs=None))]
    #[allow(clippy::type_complexity)]
    fn predict_all<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        proba: bool,
        n_jobs: Option<i64>,
    ) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyArray2<f64>>, Option<Bound<'py, PyArray2<f64>>>)> {
        let x = self.checked(x)?;
        let here = self.inner.predicts_serially(&x);
        let p = run_unless_here(py, n_jobs, here, || self.inner.predict_all(&x, proba))?;
        let labels = PyList::new(py, &p.labels)?;
        let proba = p.proba.map(|m| mat(py, m.as_ref())).transpose()?;
        Ok((labels, mat(py, p.decision.as_ref())?, proba))
    }

    /// Class probabilities (one column per class, in class-index order).
    #[pyo3(signature = (x, n_jobs=None))]
    fn predict_proba<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let x = samples(x)?;
        let here = self.inner.predicts_serially(&x);
        mat(py, run_unless_here(py, n_jobs, here, || self.inner.predict_proba(&x))?.as_ref())
    }

    /// Transformed samples (kernel PCA scores, FVS coordinates).
    #[pyo3(signature = (x, n_jobs=None))]
    fn transform<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let x = samples(x)?;
        mat(py, run(py, n_jobs, || self.inner.transform(&x))?.as_ref())
    }

    /// Class names (`"0"`, `"1"`, ... for the encoded labels the Python layer trains on).
    fn names(&self) -> PyResult<Vec<String>> {
        Ok(self.svc()?.names().to_vec())
    }

    /// Whether Platt probabilities were fitted.
    fn has_probability(&self) -> PyResult<bool> {
        Ok(self.svc()?.has_probability())
    }

    /// The binary machines: `(positive class, negative class or -1, bias b = -rho)`.
    fn machines(&self) -> PyResult<Vec<(usize, i64, f64)>> {
        Ok(self.svc()?.machines().into_iter().map(|(p, n, b)| (p, n.map_or(-1, |n| n as i64), b)).collect())
    }

    /// Rows (into the support vectors) and coefficients `alpha_k y_k` of machine `m`.
    fn machine_coefficients(&self, m: usize) -> PyResult<(Vec<usize>, Vec<f64>)> {
        let s = self.svc()?;
        if m >= s.n_machines() {
            return Err(value_error(format!("machine {m} of {}", s.n_machines())));
        }
        Ok(s.machine_coefficients(m))
    }

    /// The support vectors as a dense array.
    fn support_vectors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        match &self.inner {
            AnyModel::Svc(m) => dense(py, m.support_vectors()),
            AnyModel::Svr(m) => dense(py, m.support_vectors()),
            AnyModel::OneClass(m) => dense(py, m.support_vectors()),
            AnyModel::Fvs(m) => dense(py, m.basis()),
            _ => Err(wrong(self.kind_name(), "support vectors")),
        }
    }

    /// Whether the model was trained on a precomputed kernel matrix.
    fn is_precomputed(&self) -> bool {
        self.precomputed()
    }

    /// Index in `x` (the training samples) of each support vector; for a precomputed model, the row of
    /// the training kernel matrix (its serial number − 1; `x` is not read).
    #[pyo3(signature = (x, n_jobs=None))]
    fn support_indices(
        &self,
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        n_jobs: Option<i64>,
    ) -> PyResult<Vec<usize>> {
        let sv = match &self.inner {
            AnyModel::Svc(m) => m.support_vectors(),
            AnyModel::Svr(m) => m.support_vectors(),
            AnyModel::OneClass(m) => m.support_vectors(),
            _ => return Err(wrong(self.kind_name(), "support vectors")),
        };
        if self.precomputed() {
            return Ok((0..sv.n()).map(|i| sv.row(i)[0] as usize - 1).collect());
        }
        let x = samples(x)?;
        run(py, n_jobs, || match_rows(&x, sv))
    }

    /// SMO iterations of each machine (`[n]` for SVR and one-class).
    fn iterations(&self) -> PyResult<Vec<u64>> {
        match &self.inner {
            AnyModel::Svr(m) => Ok(vec![m.stats().iterations]),
            AnyModel::OneClass(m) => Ok(vec![m.stats().iterations]),
            _ => Ok(self.svc()?.stats().iter().map(|s| s.iterations).collect()),
        }
    }

    /// Whether the iteration cap (`max_iter`) stopped each machine's solver before the tolerance was
    /// met (`[stopped]` for SVR and one-class).
    fn hit_cap(&self) -> PyResult<Vec<bool>> {
        match &self.inner {
            AnyModel::Svr(m) => Ok(vec![m.stats().hit_cap]),
            AnyModel::OneClass(m) => Ok(vec![m.stats().hit_cap]),
            _ => Ok(self.svc()?.stats().iter().map(|s| s.hit_cap).collect()),
        }
    }

    /// The Platt sigmoids `(A, B)` of the machines (`P(positive | f) = 1 / (1 + exp(A f + B))`, LIBSVM's
    /// `probA`/`probB`), empty when no probabilities were fitted.
    fn platt(&self) -> PyResult<Vec<(f64, f64)>> {
        Ok(self.svc()?.platt_sigmoids().unwrap_or_default())
    }

    /// The path each machine's solve took (`[plan]` for SVR and one-class), as dictionaries with the
    /// keys of kern's plan: order, start, columns, cache_mb, sparse_columns, selection, threading,
    /// shrinking.
    fn plans<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let plans: Vec<kern_models::svm::plan::Plan> = match &self.inner {
            AnyModel::Svr(m) => vec![m.stats().plan],
            AnyModel::OneClass(m) => vec![m.stats().plan],
            _ => self.svc()?.stats().iter().map(|s| s.plan).collect(),
        };
        plans
            .iter()
            .map(|p| {
                let d = PyDict::new(py);
                d.set_item("order", p.order.name())?;
                d.set_item("start", p.start.name())?;
                d.set_item("columns", p.columns.name())?;
                d.set_item("cache_mb", p.cache_mb)?;
                d.set_item("sparse_columns", p.sparse_columns)?;
                d.set_item("selection", p.selection.name())?;
                d.set_item("threading", p.threading.name())?;
                d.set_item("shrinking", p.shrinking)?;
                Ok(d)
            })
            .collect()
    }

    /// Coefficients of the support vectors and bias `-rho`: `alpha_k - alpha*_k` (SVR), `alpha_k`
    /// (one-class).
    fn svr_coefficients(&self) -> PyResult<(Vec<f64>, f64)> {
        match &self.inner {
            AnyModel::Svr(m) => Ok((m.coefficients().to_vec(), m.bias())),
            AnyModel::OneClass(m) => Ok((m.coefficients().to_vec(), -m.rho())),
            _ => Err(wrong(self.kind_name(), "SVR coefficients")),
        }
    }

    /// Ridge / LS-SVM dual coefficients (`n × outputs`), biases and the λ used.
    fn ridge_coefficients<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyArray2<f64>>, Vec<f64>, f64)> {
        let (alphas, biases, lambda): (Vec<Vec<f64>>, Vec<f64>, f64) = match &self.inner {
            AnyModel::Krr(m) => (
                (0..m.outputs()).map(|t| m.alpha(t).to_vec()).collect(),
                (0..m.outputs()).map(|t| m.bias(t)).collect(),
                m.lambda(),
            ),
            AnyModel::LsSvm(m) => (
                (0..m.outputs()).map(|t| m.alpha(t).to_vec()).collect(),
                (0..m.outputs()).map(|t| m.bias(t)).collect(),
                m.lambda(),
            ),
            _ => return Err(wrong(self.kind_name(), "ridge coefficients")),
        };
        let n = alphas.first().map_or(0, Vec::len);
        let r = alphas.len();
        let flat = (0..n).flat_map(|i| alphas.iter().map(move |a| a[i])).collect();
        Ok((array2(py, n, r, flat)?, biases, lambda))
    }

    /// Kernel PCA eigenvalues `mu_k` of the centred Gram matrix, and the coefficients `alpha` (`n × k`).
    fn kpca_parts<'py>(&self, py: Python<'py>) -> PyResult<(Vec<f64>, Bound<'py, PyArray2<f64>>, f64)> {
        match &self.inner {
            AnyModel::Kpca(m) => {
                Ok((m.eigenvalues().to_vec(), mat(py, m.alphas().as_ref())?, m.total_variance()))
            }
            _ => Err(wrong(self.kind_name(), "kernel PCA eigenpairs")),
        }
    }

    /// Nyström kernel PCA: eigenvalues `mu_k` of the centred Nyström Gram matrix, indices of the centres
    /// among the training samples, and the jitter added to the centres' kernel matrix.
    fn nystrom_kpca_parts(&self) -> PyResult<(Vec<f64>, Vec<usize>, f64)> {
        match &self.inner {
            AnyModel::NystromKpca(m) => {
                Ok((m.eigenvalues().to_vec(), m.centre_indices().to_vec(), m.jitter()))
            }
            _ => Err(wrong(self.kind_name(), "Nyström kernel PCA eigenvalues")),
        }
    }

    /// FVS: indices of the selected vectors among the training samples, and the fitness after each step.
    fn fvs_parts(&self) -> PyResult<(Vec<usize>, Vec<f64>)> {
        match &self.inner {
            AnyModel::Fvs(m) => Ok((m.selected().to_vec(), m.fitness().to_vec())),
            _ => Err(wrong(self.kind_name(), "selected vectors")),
        }
    }

    /// Railway SVC: `(number of areas, number of zones)`.
    fn railway_parts(&self) -> PyResult<(usize, usize)> {
        match &self.inner {
            AnyModel::RailwaySvc(m) => Ok((m.map.kernel().areas().len(), m.map.zones().len())),
            _ => Err(wrong(self.kind_name(), "railway areas")),
        }
    }

    /// The model's bytes: a kern model file (header and payload), as `kern predict` reads it.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.inner.to_bytes().map_err(py_error)?))
    }

    /// A model from [`Model::to_bytes`] output or a model file's bytes (validated as a model file is).
    #[staticmethod]
    fn from_bytes(bytes: &[u8]) -> PyResult<Model> {
        Ok(Model { inner: AnyModel::from_bytes(bytes, "pickled model").map_err(py_error)? })
    }
}
