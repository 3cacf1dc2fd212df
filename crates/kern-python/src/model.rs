//! [`Model`]: a trained kern model held by a Python estimator, with its predictions, fitted attributes
//! and bytes (for pickling).

use crate::convert::{array2, dense, mat, rows, run, samples, value_error};
use kern_core::{Kernel, KernelSpec, Samples};
use kern_models::kfa::FvsLayer;
use kern_models::kpca::KernelPca;
use kern_models::krr::KernelRidge;
use kern_models::landmark::NystromKpca;
use kern_models::lssvm::LsSvm;
use kern_models::persist::{self, Persist};
use kern_models::railway::RailwaySvc;
use kern_models::svm::{OneClass, Svc, Svr};
use numpy::PyArray2;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// Which trained model a [`Model`] holds.
pub enum Inner {
    /// C-SVC or ν-SVC.
    Svc(Svc),
    /// ε-SVR or ν-SVR.
    Svr(Svr),
    /// One-class SVM.
    OneClass(OneClass),
    /// Kernel ridge regression.
    Krr(KernelRidge),
    /// LS-SVM (classifier or regressor).
    LsSvm(LsSvm),
    /// Kernel PCA.
    Kpca(KernelPca),
    /// Nyström kernel PCA (on centres chosen among the training samples).
    NystromKpca(NystromKpca),
    /// Feature vector selection feature map (orthonormal coordinates of the span of the selected vectors).
    Fvs(FvsLayer<KernelSpec>),
    /// Railway-kernel SVC.
    Railway(RailwaySvc),
}

/// Kind tag of the FVS feature map in its bytes (it is not a kern model file kind).
const FVS_MAGIC: &[u8] = b"kern-python fvs-map\n";

/// A trained model.
#[pyclass(module = "kern._kern", frozen)]
pub struct Model {
    pub(crate) inner: Inner,
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
        match &self.inner {
            Inner::Svc(_) => "svc",
            Inner::Svr(_) => "svr",
            Inner::OneClass(_) => "one-class",
            Inner::Krr(_) => "krr",
            Inner::LsSvm(_) => "lssvm",
            Inner::Kpca(_) => "kpca",
            Inner::NystromKpca(_) => "nystrom-kpca",
            Inner::Fvs(_) => "fvs",
            Inner::Railway(_) => "railway-svc",
        }
    }

    fn svc(&self) -> PyResult<&Svc> {
        match &self.inner {
            Inner::Svc(m) => Ok(m),
            Inner::Railway(m) => Ok(&m.svc),
            _ => Err(wrong(self.kind_name(), "SVC machines")),
        }
    }

    /// Whether the model was trained on a precomputed kernel matrix (its support vectors are serial
    /// numbers of the training points, and it predicts from kernel rows).
    fn precomputed(&self) -> bool {
        match &self.inner {
            Inner::Svc(m) => m.is_precomputed(),
            Inner::Svr(m) => m.is_precomputed(),
            Inner::OneClass(m) => m.is_precomputed(),
            _ => false,
        }
    }

    fn d(&self) -> usize {
        match &self.inner {
            Inner::Svc(m) => m.support_vectors().d(),
            Inner::Svr(m) => m.support_vectors().d(),
            Inner::OneClass(m) => m.support_vectors().d(),
            Inner::Krr(m) => m.training_samples().d(),
            Inner::LsSvm(m) => m.training_samples().d(),
            Inner::Kpca(m) => m.training_samples().d(),
            Inner::NystromKpca(m) => m.centres().d(),
            Inner::Fvs(m) => m.basis().d(),
            Inner::Railway(m) => m.map.kernel().areas().first().map_or(0, |a| a.center().len()),
        }
    }
}

#[pymethods]
impl Model {
    /// The model kind: `svc`, `svr`, `one-class`, `krr`, `lssvm`, `kpca`, `nystrom-kpca`, `fvs` or
    /// `railway-svc`.
    fn kind(&self) -> &'static str {
        self.kind_name()
    }

    /// Number of input features.
    fn n_features(&self) -> usize {
        self.d()
    }

    /// The kernel spec string.
    fn kernel(&self) -> String {
        match &self.inner {
            Inner::Svc(m) => m.kernel().to_string(),
            Inner::Svr(m) => m.kernel().to_string(),
            Inner::OneClass(m) => m.kernel().to_string(),
            Inner::Krr(m) => m.kernel().to_string(),
            Inner::LsSvm(m) => m.kernel().to_string(),
            Inner::Kpca(m) => m.kernel().to_string(),
            Inner::NystromKpca(m) => m.kernel().to_string(),
            Inner::Fvs(m) => m.kernel().to_string(),
            Inner::Railway(_) => "railway".to_string(),
        }
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
        let x = samples(x)?;
        let d = self.d();
        // A precomputed model reads kernel rows against the training points (kern checks their
        // length against the largest support-vector serial; the Python layer checks the width).
        if !self.precomputed() && x.d() != d {
            return Err(value_error(format!("X has {} features, but the model was fitted with {d}", x.d())));
        }
        match &self.inner {
            Inner::Svc(m) => rows(py, run(py, n_jobs, || m.decision_function(&x))?, m.n_machines()),
            Inner::Railway(m) => {
                let r = run(py, n_jobs, || m.svc.decision_function(&m.map.transform(&x)?))?;
                rows(py, r, m.svc.n_machines())
            }
            Inner::Svr(m) => {
                let p = run(py, n_jobs, || kern_core::learner::Model::predict(m, &x))?;
                array2(py, p.len(), 1, p)
            }
            Inner::OneClass(m) => {
                let p = run(py, n_jobs, || m.decision_function(&x))?;
                array2(py, p.len(), 1, p)
            }
            Inner::Krr(m) => mat(py, run(py, n_jobs, || m.decision_function(&x))?.as_ref()),
            Inner::LsSvm(m) => mat(py, run(py, n_jobs, || m.decision_function(&x))?.as_ref()),
            _ => Err(wrong(self.kind_name(), "decision function")),
        }
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
        let k = self.svc()?.names().len();
        let p = match &self.inner {
            Inner::Railway(m) => run(py, n_jobs, || m.svc.predict_proba(&m.map.transform(&x)?))?,
            _ => {
                let m = self.svc()?;
                run(py, n_jobs, || m.predict_proba(&x))?
            }
        };
        rows(py, p, k)
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
        match &self.inner {
            Inner::Kpca(m) => mat(py, run(py, n_jobs, || m.transform(&x))?.as_ref()),
            Inner::NystromKpca(m) => mat(py, run(py, n_jobs, || m.transform(&x))?.as_ref()),
            Inner::Fvs(m) => mat(py, run(py, n_jobs, || m.transform(&x))?.as_ref()),
            _ => Err(wrong(self.kind_name(), "transform")),
        }
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
            Inner::Svc(m) => dense(py, m.support_vectors()),
            Inner::Svr(m) => dense(py, m.support_vectors()),
            Inner::OneClass(m) => dense(py, m.support_vectors()),
            Inner::Fvs(m) => dense(py, m.basis()),
            _ => Err(wrong(self.kind_name(), "support vectors")),
        }
    }

    /// Whether the model was trained on a precomputed kernel matrix.
    fn is_precomputed(&self) -> bool {
        self.precomputed()
    }

    /// Index in `x` (the training samples) of each support vector; for a precomputed model, the row of
    /// the training kernel matrix (its serial number − 1; `x` is not read).
    fn support_indices(&self, py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
        let sv = match &self.inner {
            Inner::Svc(m) => m.support_vectors(),
            Inner::Svr(m) => m.support_vectors(),
            Inner::OneClass(m) => m.support_vectors(),
            _ => return Err(wrong(self.kind_name(), "support vectors")),
        };
        if self.precomputed() {
            return Ok((0..sv.n()).map(|i| sv.row(i)[0] as usize - 1).collect());
        }
        let x = samples(x)?;
        run(py, None, || match_rows(&x, sv))
    }

    /// SMO iterations of each machine (`[n]` for SVR and one-class).
    fn iterations(&self) -> PyResult<Vec<u64>> {
        match &self.inner {
            Inner::Svr(m) => Ok(vec![m.stats().iterations]),
            Inner::OneClass(m) => Ok(vec![m.stats().iterations]),
            _ => Ok(self.svc()?.stats().iter().map(|s| s.iterations).collect()),
        }
    }

    /// The path each machine's solve took (`[plan]` for SVR and one-class), as dictionaries with the
    /// keys of kern's plan: order, start, columns, cache_mb, sparse_columns, selection, threading,
    /// shrinking.
    fn plans<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let plans: Vec<kern_models::svm::plan::Plan> = match &self.inner {
            Inner::Svr(m) => vec![m.stats().plan],
            Inner::OneClass(m) => vec![m.stats().plan],
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
            Inner::Svr(m) => Ok((m.coefficients().to_vec(), m.bias())),
            Inner::OneClass(m) => Ok((m.coefficients().to_vec(), -m.rho())),
            _ => Err(wrong(self.kind_name(), "SVR coefficients")),
        }
    }

    /// Ridge / LS-SVM dual coefficients (`n × outputs`), biases and the λ used.
    fn ridge_coefficients<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyArray2<f64>>, Vec<f64>, f64)> {
        let (alphas, biases, lambda): (Vec<Vec<f64>>, Vec<f64>, f64) = match &self.inner {
            Inner::Krr(m) => (
                (0..m.outputs()).map(|t| m.alpha(t).to_vec()).collect(),
                (0..m.outputs()).map(|t| m.bias(t)).collect(),
                m.lambda(),
            ),
            Inner::LsSvm(m) => (
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
            Inner::Kpca(m) => {
                Ok((m.eigenvalues().to_vec(), mat(py, m.alphas().as_ref())?, m.total_variance()))
            }
            _ => Err(wrong(self.kind_name(), "kernel PCA eigenpairs")),
        }
    }

    /// Nyström kernel PCA: eigenvalues `mu_k` of the centred Nyström Gram matrix, indices of the centres
    /// among the training samples, and the jitter added to the centres' kernel matrix.
    fn nystrom_kpca_parts(&self) -> PyResult<(Vec<f64>, Vec<usize>, f64)> {
        match &self.inner {
            Inner::NystromKpca(m) => Ok((m.eigenvalues().to_vec(), m.centre_indices().to_vec(), m.jitter())),
            _ => Err(wrong(self.kind_name(), "Nyström kernel PCA eigenvalues")),
        }
    }

    /// FVS: indices of the selected vectors among the training samples, and the fitness after each step.
    fn fvs_parts(&self) -> PyResult<(Vec<usize>, Vec<f64>)> {
        match &self.inner {
            Inner::Fvs(m) => Ok((m.selected().to_vec(), m.fitness().to_vec())),
            _ => Err(wrong(self.kind_name(), "selected vectors")),
        }
    }

    /// Railway SVC: `(number of areas, number of zones)`.
    fn railway_parts(&self) -> PyResult<(usize, usize)> {
        match &self.inner {
            Inner::Railway(m) => Ok((m.map.kernel().areas().len(), m.map.zones().len())),
            _ => Err(wrong(self.kind_name(), "railway areas")),
        }
    }

    /// The model's bytes: a kern model file (header and payload) for the kinds kern can save.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let b = match &self.inner {
            Inner::Svc(m) => persist::to_bytes(m),
            Inner::Svr(m) => persist::to_bytes(m),
            Inner::OneClass(m) => persist::to_bytes(m),
            Inner::Krr(m) => persist::to_bytes(m),
            Inner::LsSvm(m) => persist::to_bytes(m),
            Inner::Kpca(m) => persist::to_bytes(m),
            Inner::NystromKpca(m) => persist::to_bytes(m),
            Inner::Railway(m) => persist::to_bytes(m),
            Inner::Fvs(m) => {
                let mut out = FVS_MAGIC.to_vec();
                bincode::serde::encode_into_std_write(m, &mut out, bincode::config::standard())
                    .map_err(value_error)?;
                Ok(out)
            }
        }
        .map_err(value_error)?;
        Ok(PyBytes::new(py, &b))
    }

    /// A model from [`Model::to_bytes`] output (validated as a model file is).
    #[staticmethod]
    fn from_bytes(bytes: &[u8]) -> PyResult<Model> {
        let inner = if let Some(payload) = bytes.strip_prefix(FVS_MAGIC) {
            let cfg = bincode::config::standard().with_limit::<{ 1 << 34 }>();
            let (m, used): (FvsLayer<KernelSpec>, usize) =
                bincode::serde::decode_from_slice(payload, cfg).map_err(value_error)?;
            if used != payload.len() {
                return Err(value_error("trailing bytes after the feature map"));
            }
            m.kernel().check_dim(m.basis().d()).map_err(value_error)?;
            Inner::Fvs(m)
        } else {
            let from = "pickled model";
            match persist::peek_kind(bytes, from).map_err(value_error)?.as_str() {
                Svc::KIND => Inner::Svc(persist::from_bytes(bytes, from).map_err(value_error)?),
                Svr::KIND => Inner::Svr(persist::from_bytes(bytes, from).map_err(value_error)?),
                OneClass::KIND => Inner::OneClass(persist::from_bytes(bytes, from).map_err(value_error)?),
                KernelRidge::KIND => Inner::Krr(persist::from_bytes(bytes, from).map_err(value_error)?),
                LsSvm::KIND => Inner::LsSvm(persist::from_bytes(bytes, from).map_err(value_error)?),
                KernelPca::KIND => Inner::Kpca(persist::from_bytes(bytes, from).map_err(value_error)?),
                NystromKpca::KIND => {
                    Inner::NystromKpca(persist::from_bytes(bytes, from).map_err(value_error)?)
                }
                RailwaySvc::KIND => Inner::Railway(persist::from_bytes(bytes, from).map_err(value_error)?),
                k => {
                    return Err(value_error(format!(
                        "model kind {k:?} is not handled by the Python package"
                    )));
                }
            }
        };
        Ok(Model { inner })
    }
}
