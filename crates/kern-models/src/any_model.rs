//! [`AnyModel`]: the one registry of the model kinds kern stores, and the one prediction surface over
//! them (docs/architecture.md, "Persistence" and "Prediction").
//!
//! "Which model is in this file?" is answered here and nowhere else: [`AnyModel::load`] reads a kern
//! model file (any kind tag of [`Kind`], a scaled envelope around one of them, or the FVS feature map)
//! or a LIBSVM model file, decodes it once, and offers what every front end asks of a model — its
//! [`Kind`], the [`Input`] it takes, its dimension, [`AnyModel::predict_all`] (labels, decision values
//! and probabilities from one kernel expansion), [`AnyModel::decision_function`],
//! [`AnyModel::predict_proba`] and [`AnyModel::transform`]. A kind that has no such output answers
//! with an error in plain words, never a panic.
//!
//! Decision values, probabilities and projections are one type for every kind: a [`faer::Mat`] with
//! one row per sample and one column per output (with the `ndarray` feature, also as an `Array2`).
//!
//! Saving stays with the concrete types ([`crate::persist::save`]); [`AnyModel::save`] and
//! [`AnyModel::to_bytes`] write the same bytes for a model held here.
//!
//! ```
//! use kern_models::{AnyModel, Input, Kind, Samples, BinaryTargets, Fit};
//! use kern_models::lssvm::LsSvmParams;
//! let x = Samples::from_rows(&[[0.0, 1.0], [1.0, 0.0], [0.1, 0.9], [0.9, 0.2]])?;
//! let y = BinaryTargets::from_labels(&["a", "b", "a", "b"])?;
//! let fitted = LsSvmParams::new("gaussian:sigma=1".parse()?).lambda(1e-3).fit(&x, &y)?;
//! let bytes = kern_models::persist::to_bytes(&fitted)?;
//!
//! let m = AnyModel::from_bytes(&bytes, "model.kern")?;
//! assert_eq!((m.kind(), m.kind().name(), m.input(), m.n_features()), (Kind::LsSvm, "lssvm", Input::Samples, 2));
//! let p = m.predict_all(&x, false)?;
//! assert_eq!(p.labels, ["a", "b", "a", "b"]);
//! assert_eq!((p.decision.nrows(), p.decision.ncols()), (4, 1));
//! assert!(m.predict_proba(&x).unwrap_err().to_string().contains("no class probabilities"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{ModelsError, Result};
use crate::kfa::{self, FvsLayer, KfaModel};
use crate::kpca::KernelPca;
use crate::krr::KernelRidge;
use crate::landmark::{NystromKpca, NystromRidge};
use crate::libsvm_model::{LibsvmModel, SvmType, looks_like_libsvm_model};
use crate::lssvm::LsSvm;
use crate::persist::{self, Persist};
use crate::railway::{RailwayKernel, RailwaySvc};
use crate::ridge::Task;
use crate::scaling::{FeatureScaling, ScaledModel};
use crate::schema::ModelEnvelope;
use crate::svm::{OneClass, Svc, Svr, rows_to_mat};
use crate::widen::WidenFeatures;
use faer::Mat;
use kern_core::io::CsvSchema;
use kern_core::learner::Model;
use kern_core::{KernelSpec, Samples};
use std::borrow::Cow;
use std::path::Path;

/// The kinds of model [`AnyModel`] holds.
///
/// ```
/// use kern_models::Kind;
/// assert_eq!(Kind::OneClass.name(), "one-class");
/// assert_eq!(Kind::from_name("nystrom-kpca"), Some(Kind::NystromKpca));
/// assert!(Kind::Kpca.transforms() && !Kind::Svc.transforms());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// C-SVC or ν-SVC ([`Svc`]).
    Svc,
    /// ε-SVR or ν-SVR ([`Svr`]).
    Svr,
    /// One-class SVM ([`OneClass`]).
    OneClass,
    /// LS-SVM ([`LsSvm`]).
    LsSvm,
    /// Kernel ridge regression ([`KernelRidge`]).
    Krr,
    /// Landmark (Nyström / FVS) kernel ridge or LS-SVM ([`NystromRidge`]).
    Nystrom,
    /// Kernel function approximation ([`KfaModel`]).
    Kfa,
    /// Railway-kernel SVC ([`RailwaySvc`]).
    RailwaySvc,
    /// Kernel PCA ([`KernelPca`]).
    Kpca,
    /// Nyström kernel PCA ([`NystromKpca`]).
    NystromKpca,
    /// Feature vector selection feature map ([`FvsLayer`]).
    Fvs,
    /// A LIBSVM model file (svm-train's output, [`LibsvmModel`]).
    Libsvm,
}

impl Kind {
    /// Every kind, in the order of the list above.
    pub const ALL: [Kind; 12] = [
        Kind::Svc,
        Kind::Svr,
        Kind::OneClass,
        Kind::LsSvm,
        Kind::Krr,
        Kind::Nystrom,
        Kind::Kfa,
        Kind::RailwaySvc,
        Kind::Kpca,
        Kind::NystromKpca,
        Kind::Fvs,
        Kind::Libsvm,
    ];

    /// The kind's name: its kind tag in a kern model file, `libsvm` for a LIBSVM model file.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Svc => Svc::KIND,
            Kind::Svr => Svr::KIND,
            Kind::OneClass => OneClass::KIND,
            Kind::LsSvm => LsSvm::KIND,
            Kind::Krr => KernelRidge::KIND,
            Kind::Nystrom => NystromRidge::KIND,
            Kind::Kfa => <KfaModel<KernelSpec> as Persist>::KIND,
            Kind::RailwaySvc => RailwaySvc::KIND,
            Kind::Kpca => KernelPca::KIND,
            Kind::NystromKpca => NystromKpca::KIND,
            Kind::Fvs => <FvsLayer<KernelSpec> as Persist>::KIND,
            Kind::Libsvm => "libsvm",
        }
    }

    /// The kind of a name ([`Kind::name`]).
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether the kind projects samples ([`AnyModel::transform`]) instead of predicting labels or
    /// values: kernel PCA, Nyström kernel PCA and the FVS feature map.
    pub fn transforms(self) -> bool {
        matches!(self, Kind::Kpca | Kind::NystromKpca | Kind::Fvs)
    }
}

/// What a model takes as the rows of its input.
///
/// ```
/// use kern_models::svm::SvcParams;
/// use kern_models::{AnyModel, BinaryTargets, Fit, Input, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.0]])?;
/// let y = BinaryTargets::from_labels(&["a", "a", "b", "b"])?;
/// let m = AnyModel::from(SvcParams::new("gaussian:sigma=1".parse()?).fit(&x, &y)?);
/// assert_eq!(m.input(), Input::Samples); // not trained on a precomputed kernel matrix
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Samples of [`AnyModel::n_features`] features.
    Samples,
    /// Kernel rows: the kernel values of each new point against the training points (a model trained
    /// on a precomputed kernel matrix).
    KernelRows,
}

/// A model trained with feature scaling (`kern train --scale`): the stored scaling and the model it
/// feeds. [`AnyModel`]'s predictions take raw samples and scale them first.
///
/// ```
/// use kern_models::scaling::{FeatureScaling, ScaledModel};
/// use kern_models::svm::SvcParams;
/// use kern_models::{AnyModel, BinaryTargets, Fit, Samples};
/// let raw = Samples::from_rows(&[[0.0, 100.0], [1.0, 300.0], [4.0, 100.0], [5.0, 500.0]])?;
/// let y = BinaryTargets::from_f64(&[-1.0, -1.0, 1.0, 1.0])?;
/// let scaling = FeatureScaling::fit(&raw, -1.0, 1.0)?;
/// let svc = SvcParams::new("gaussian:sigma=1".parse()?).fit(&scaling.apply(&raw)?, &y)?;
/// let bytes = kern_models::persist::to_bytes(&ScaledModel::wrap(scaling.clone(), 2, &svc)?)?;
/// let m = AnyModel::from_bytes(&bytes, "<bytes>")?;
/// let s = m.scaled().expect("a scaled model");
/// assert_eq!((s.scaling(), s.dim()), (&scaling, 2));
/// assert_eq!(m.predict(&raw)?, vec![-1.0, -1.0, 1.0, 1.0]); // raw samples in
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Scaled {
    envelope: ScaledModel,
    model: AnyModel,
}

/// A model trained on a CSV file, with the file's schema ([`AnyModel::schema`]): read test data
/// against it ([`kern_core::io::read_csv_as`]) to give the model the columns it was trained on. The
/// model under it may be [`AnyModel::Scaled`].
///
/// ```
/// use kern_models::krr::KernelRidgeParams;
/// use kern_models::{read_csv, AnyModel, CsvOptions, Fit, RealTargets};
/// let p = std::env::temp_dir().join(format!("kern-doc-with-schema-{}.csv", std::process::id()));
/// std::fs::write(&p, "size,weight,price\n1,2,3\n2,1,3\n3,3,6\n")?;
/// let ds = read_csv(&p, &CsvOptions::default());
/// # let _ = std::fs::remove_file(&p);
/// let ds = ds?;
/// let y = RealTargets::new(ds.labels.iter().map(|l| l.parse().unwrap()).collect())?;
/// let m = KernelRidgeParams::new("linear".parse()?).lambda(0.01).fit(&ds.samples, &y)?;
/// let m = AnyModel::from(m).with_schema(ds.schema.expect("a CSV file has a schema"))?;
/// assert_eq!(m.schema().unwrap().feature_names(), ["size", "weight"]);
/// assert!(matches!(m, AnyModel::WithSchema(_)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct WithSchema {
    schema: CsvSchema,
    /// The training data's dimension.
    d: usize,
    model: AnyModel,
}

impl WithSchema {
    /// The CSV schema of the training file.
    pub fn schema(&self) -> &CsvSchema {
        &self.schema
    }
    /// The model the schema describes the input of (scaled or not).
    pub fn model(&self) -> &AnyModel {
        &self.model
    }
    /// The stored form: one envelope with the scaling (if any), the schema and the inner model.
    fn envelope(&self) -> Result<ModelEnvelope> {
        match &self.model {
            AnyModel::Scaled(s) => ModelEnvelope::from_parts(
                Some(s.scaling().clone()),
                Some(self.schema.clone()),
                s.dim(),
                s.envelope.inner_kind().to_string(),
                s.envelope.inner_bytes().to_vec(),
            ),
            m => ModelEnvelope::from_parts(
                None,
                Some(self.schema.clone()),
                self.d,
                m.kind().name().to_string(),
                m.to_bytes()?,
            ),
        }
    }
}

impl Scaled {
    /// The feature scaling applied before the model.
    pub fn scaling(&self) -> &FeatureScaling {
        self.envelope.scaling()
    }
    /// The training data's dimension (the raw samples' number of features).
    pub fn dim(&self) -> usize {
        self.envelope.dim()
    }
    /// The model under the scaling.
    pub fn model(&self) -> &AnyModel {
        &self.model
    }
}

/// A model of any kind kern stores, decoded once (module documentation).
///
/// ```
/// use kern_models::{AnyModel, Kind, Samples, BinaryTargets, Fit};
/// use kern_models::svm::SvcParams;
/// let x = Samples::from_rows(&[[0.0], [0.1], [0.2], [0.3], [0.4], [2.0], [2.1], [2.2], [2.3], [2.4]])?;
/// let y = BinaryTargets::from_labels(&["a", "a", "a", "a", "a", "b", "b", "b", "b", "b"])?;
/// let svc = SvcParams::new("linear".parse()?).probability(true, 0).fit(&x, &y)?;
/// let m = AnyModel::from(svc.clone());
/// assert_eq!(m.kind(), Kind::Svc);
/// let p = m.predict_all(&x, true)?;
/// assert_eq!(p.labels, svc.predict_names(&x)?);
/// assert_eq!(p.proba.as_ref().map(|p| p.ncols()), Some(2));
/// assert_eq!(m.decision_function(&x)?, p.decision);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum AnyModel {
    /// C-SVC or ν-SVC.
    Svc(Box<Svc>),
    /// ε-SVR or ν-SVR.
    Svr(Box<Svr>),
    /// One-class SVM.
    OneClass(Box<OneClass>),
    /// LS-SVM.
    LsSvm(Box<LsSvm>),
    /// Kernel ridge regression.
    Krr(Box<KernelRidge>),
    /// Landmark kernel ridge or LS-SVM.
    Nystrom(Box<NystromRidge>),
    /// Kernel function approximation.
    Kfa(Box<KfaModel<KernelSpec>>),
    /// Railway-kernel SVC.
    RailwaySvc(Box<RailwaySvc>),
    /// Kernel PCA.
    Kpca(Box<KernelPca>),
    /// Nyström kernel PCA.
    NystromKpca(Box<NystromKpca>),
    /// FVS feature map.
    Fvs(Box<FvsLayer<KernelSpec>>),
    /// A LIBSVM model file.
    Libsvm(Box<LibsvmModel>),
    /// A model trained on scaled features, with its scaling.
    Scaled(Box<Scaled>),
    /// A model trained on a CSV file, with the file's schema (the model under it may be scaled).
    WithSchema(Box<WithSchema>),
}

macro_rules! from_model {
    ($($variant:ident($t:ty)),*) => {$(
        impl From<$t> for AnyModel {
            fn from(m: $t) -> Self {
                AnyModel::$variant(Box::new(m))
            }
        }
    )*};
}
from_model!(
    Svc(Svc),
    Svr(Svr),
    OneClass(OneClass),
    LsSvm(LsSvm),
    Krr(KernelRidge),
    Nystrom(NystromRidge),
    Kfa(KfaModel<KernelSpec>),
    RailwaySvc(RailwaySvc),
    Kpca(KernelPca),
    NystromKpca(NystromKpca),
    Fvs(FvsLayer<KernelSpec>),
    Libsvm(LibsvmModel)
);

/// What [`AnyModel::predict_all`] returns: every output of one prediction pass.
///
/// ```
/// use kern_models::svm::SvcParams;
/// use kern_models::{AnyModel, ClassTargets, Fit, Samples};
/// let x = Samples::from_rows(&[[0.0], [0.1], [2.0], [2.1], [4.0], [4.1]])?;
/// let y = ClassTargets::from_labels(&["a", "a", "b", "b", "c", "c"])?;
/// let m = AnyModel::from(SvcParams::new("gaussian:sigma=1".parse()?).c(10.0).fit(&x, &y)?);
/// let p = m.predict_all(&x, false)?;
/// assert_eq!(p.values, vec![0.0, 0.0, 1.0, 1.0, 2.0, 2.0]);
/// assert_eq!(p.labels, ["a", "a", "b", "b", "c", "c"]);
/// assert_eq!((p.decision.nrows(), p.decision.ncols()), (6, 3)); // one column per pair of classes
/// assert!(p.proba.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Predictions {
    /// [`Model::predict`]'s numbers: ±1 or the class index for classifiers, the value for
    /// regressors, ±1 for one-class models, the label for LIBSVM classifiers.
    pub values: Vec<f64>,
    /// One label per sample, as `kern predict --out` writes it: the class name for classifiers, the
    /// value for regressors, `1` / `-1` for one-class models.
    pub labels: Vec<String>,
    /// The decision values: one row per sample, one column per machine (SVC, LIBSVM classifiers) or
    /// output (ridge, LS-SVM, KFA); one column for SVR (the value) and one-class models.
    pub decision: Mat<f64>,
    /// The class probabilities, when asked for: one row per sample, one column per class
    /// ([`AnyModel::classes`] order).
    pub proba: Option<Mat<f64>>,
    /// The label written beside the probabilities when it differs from `labels`: a LIBSVM model's
    /// most probable class (as svm-predict -b 1 writes it). `None`: `labels`.
    pub proba_labels: Option<Vec<String>>,
}

fn input_error(msg: String) -> ModelsError {
    ModelsError::Input(msg)
}

fn ridge_labels(task: &Task, values: &[f64]) -> Vec<String> {
    match task {
        Task::Binary { names } => values.iter().map(|&p| names[usize::from(p > 0.0)].clone()).collect(),
        Task::Classes { names } => values.iter().map(|&p| names[p as usize].clone()).collect(),
        Task::Regression => values.iter().map(|p| format!("{p}")).collect(),
    }
}

fn kfa_labels(task: &kfa::Task, values: &[f64]) -> Vec<String> {
    match task {
        kfa::Task::Binary { names } => values.iter().map(|&p| names[usize::from(p > 0.0)].clone()).collect(),
        kfa::Task::Classes { names } => values.iter().map(|&p| names[p as usize].clone()).collect(),
        kfa::Task::Real => values.iter().map(|p| format!("{p}")).collect(),
    }
}

fn column(values: &[f64]) -> Mat<f64> {
    Mat::from_fn(values.len(), 1, |i, _| values[i])
}

/// Predictions of a ridge-type model from its decision values.
fn from_ridge(task: &Task, decision: Mat<f64>) -> Predictions {
    let values = task.decode(decision.as_ref());
    let labels = ridge_labels(task, &values);
    Predictions { values, labels, decision, proba: None, proba_labels: None }
}

/// Predictions of a one-column model (SVR value, one-class decision) from its values.
fn from_values(values: Vec<f64>, decision: Mat<f64>) -> Predictions {
    let labels = values.iter().map(|v| format!("{v}")).collect();
    Predictions { values, labels, decision, proba: None, proba_labels: None }
}

impl AnyModel {
    /// Reads a model file: a kern model file of any kind, or a LIBSVM model file.
    ///
    /// ```
    /// # use kern_models::{AnyModel, Samples, RealTargets, Fit};
    /// # let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
    /// # let y = RealTargets::new(vec![0.0, 1.0, 2.0, 3.0])?;
    /// let m = kern_models::krr::KernelRidgeParams::new("gaussian:sigma=1".parse()?).lambda(0.1).fit(&x, &y)?;
    /// let p = std::env::temp_dir().join("kern-doc-any-model.kern");
    /// kern_models::persist::save(&p, &m)?;
    /// assert_eq!(AnyModel::load(&p)?.predict(&x)?, kern_models::Model::predict(&m, &x)?);
    /// # let _ = std::fs::remove_file(&p);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// The file cannot be read, or is no valid model file of a kind this kern knows.
    pub fn load(path: &Path) -> Result<AnyModel> {
        let bytes = persist::read(path)?;
        AnyModel::from_bytes(&bytes, &path.display().to_string())
    }

    /// Decodes a model file's bytes; `name` names them in errors (the file name, or e.g. `"pickled
    /// model"`).
    ///
    /// ```
    /// let e = kern_models::AnyModel::from_bytes(b"not a model", "m.kern").unwrap_err();
    /// assert!(e.to_string().starts_with("m.kern: not a valid kern model file"));
    /// ```
    ///
    /// # Errors
    /// [`ModelsError::Format`] for anything that is not a valid model of a known kind.
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<AnyModel> {
        let format = |reason: String| ModelsError::Format { path: name.into(), reason };
        if looks_like_libsvm_model(bytes) {
            let text = std::str::from_utf8(bytes)
                .map_err(|_| format("it starts like a LIBSVM model file but is not text".into()))?;
            return Ok(LibsvmModel::parse(text, name)?.into());
        }
        if let Some(payload) = bytes.strip_prefix(LEGACY_FVS) {
            return Ok(AnyModel::Fvs(Box::new(persist::decode_payload(payload, name)?)));
        }
        let kind = persist::peek_kind(bytes, name)?;
        let decode = |k: Kind| -> Result<AnyModel> {
            Ok(match k {
                Kind::Svc => persist::from_bytes::<Svc>(bytes, name)?.into(),
                Kind::Svr => persist::from_bytes::<Svr>(bytes, name)?.into(),
                Kind::OneClass => persist::from_bytes::<OneClass>(bytes, name)?.into(),
                Kind::LsSvm => persist::from_bytes::<LsSvm>(bytes, name)?.into(),
                Kind::Krr => persist::from_bytes::<KernelRidge>(bytes, name)?.into(),
                Kind::Nystrom => persist::from_bytes::<NystromRidge>(bytes, name)?.into(),
                Kind::Kfa => persist::from_bytes::<KfaModel<KernelSpec>>(bytes, name)?.into(),
                Kind::RailwaySvc => persist::from_bytes::<RailwaySvc>(bytes, name)?.into(),
                Kind::Kpca => persist::from_bytes::<KernelPca>(bytes, name)?.into(),
                Kind::NystromKpca => persist::from_bytes::<NystromKpca>(bytes, name)?.into(),
                Kind::Fvs => persist::from_bytes::<FvsLayer<KernelSpec>>(bytes, name)?.into(),
                Kind::Libsvm => unreachable!("LIBSVM model files have no kind tag"),
            })
        };
        match kind.as_str() {
            ScaledModel::KIND => {
                let envelope: ScaledModel = persist::from_bytes(bytes, name)?;
                let model = AnyModel::from_bytes(envelope.inner_bytes(), name)?;
                if matches!(model, AnyModel::Scaled(_) | AnyModel::Libsvm(_)) {
                    return Err(format("a scaled model holds another scaled or LIBSVM model".into()));
                }
                Ok(AnyModel::Scaled(Box::new(Scaled { envelope, model })))
            }
            ModelEnvelope::KIND => {
                let (scaling, schema, d, kind, inner) =
                    persist::from_bytes::<ModelEnvelope>(bytes, name)?.into_parts();
                let model = AnyModel::from_bytes(&inner, name)?;
                if matches!(model, AnyModel::Scaled(_) | AnyModel::WithSchema(_) | AnyModel::Libsvm(_)) {
                    return Err(format(
                        "a model envelope holds another envelope, a scaled or a LIBSVM model".into(),
                    ));
                }
                let model = match scaling {
                    Some(s) => {
                        let envelope =
                            ScaledModel::wrap_bytes(s, d, kind, inner).map_err(|e| format(e.to_string()))?;
                        AnyModel::Scaled(Box::new(Scaled { envelope, model }))
                    }
                    None => model,
                };
                Ok(match schema {
                    Some(schema) => AnyModel::WithSchema(Box::new(WithSchema { schema, d, model })),
                    None => model,
                })
            }
            <RailwayKernel<KernelSpec> as Persist>::KIND => {
                Err(format("it holds a railway kernel, not a trained model".into()))
            }
            "libsvm" => Err(format("unknown model kind \"libsvm\"".into())),
            k => match Kind::from_name(k) {
                Some(k) => decode(k),
                None => {
                    let known: Vec<&str> =
                        Kind::ALL.iter().map(|k| k.name()).filter(|&n| n != "libsvm").collect();
                    Err(format(format!(
                        "model kind \"{k}\" is unknown to this version of kern (it reads {}, and scaled models)",
                        known.join(", ")
                    )))
                }
            },
        }
    }

    /// The model's bytes, as [`AnyModel::from_bytes`] reads them: a kern model file (header and
    /// payload, [`persist::to_bytes`]), or a LIBSVM model file's text.
    ///
    /// ```
    /// # use kern_models::{AnyModel, Samples, BinaryTargets, Fit};
    /// # let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
    /// # let y = BinaryTargets::from_labels(&["a", "a", "b", "b"])?;
    /// let m = kern_models::lssvm::LsSvmParams::new("linear".parse()?).lambda(0.1).fit(&x, &y)?;
    /// let bytes = AnyModel::from(m.clone()).to_bytes()?;
    /// assert_eq!(bytes, kern_models::persist::to_bytes(&m)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// Encoding failures.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        match self {
            AnyModel::Svc(m) => persist::to_bytes(m.as_ref()),
            AnyModel::Svr(m) => persist::to_bytes(m.as_ref()),
            AnyModel::OneClass(m) => persist::to_bytes(m.as_ref()),
            AnyModel::LsSvm(m) => persist::to_bytes(m.as_ref()),
            AnyModel::Krr(m) => persist::to_bytes(m.as_ref()),
            AnyModel::Nystrom(m) => persist::to_bytes(m.as_ref()),
            AnyModel::Kfa(m) => persist::to_bytes(m.as_ref()),
            AnyModel::RailwaySvc(m) => persist::to_bytes(m.as_ref()),
            AnyModel::Kpca(m) => persist::to_bytes(m.as_ref()),
            AnyModel::NystromKpca(m) => persist::to_bytes(m.as_ref()),
            AnyModel::Fvs(m) => persist::to_bytes(m.as_ref()),
            AnyModel::Libsvm(m) => Ok(m.to_text().into_bytes()),
            AnyModel::Scaled(s) => persist::to_bytes(&s.envelope),
            AnyModel::WithSchema(w) => persist::to_bytes(&w.envelope()?),
        }
    }

    /// Saves [`AnyModel::to_bytes`] atomically to `path` (the same file the concrete type's
    /// [`persist::save`] writes).
    ///
    /// ```no_run
    /// # fn f(m: &kern_models::AnyModel) -> kern_models::Result<()> {
    /// m.save(std::path::Path::new("model.kern"))?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// Encoding or writing failures.
    pub fn save(&self, path: &Path) -> Result<()> {
        persist::write_bytes(path, &self.to_bytes()?)
    }

    /// The model under a schema and a feature scaling (the model itself when it has neither).
    pub fn base(&self) -> &AnyModel {
        match self {
            AnyModel::Scaled(s) => &s.model,
            AnyModel::WithSchema(w) => w.model.base(),
            m => m,
        }
    }

    /// The scaling and its model, for a model trained with scaled features.
    pub fn scaled(&self) -> Option<&Scaled> {
        match self {
            AnyModel::Scaled(s) => Some(s),
            AnyModel::WithSchema(w) => w.model.scaled(),
            _ => None,
        }
    }

    /// The CSV schema of the training file, for a model stored with one ([`crate::schema`]): read test
    /// data with [`kern_core::io::read_csv_as`] against it.
    ///
    /// ```
    /// # use kern_models::{AnyModel, Samples, BinaryTargets, Fit};
    /// # let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
    /// # let y = BinaryTargets::from_labels(&["a", "a", "b", "b"])?;
    /// let m = AnyModel::from(kern_models::lssvm::LsSvmParams::new("linear".parse()?).lambda(0.1).fit(&x, &y)?);
    /// assert!(m.schema().is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn schema(&self) -> Option<&CsvSchema> {
        match self {
            AnyModel::WithSchema(w) => Some(&w.schema),
            _ => None,
        }
    }

    /// The model with `schema` attached (replacing one it had), to be saved with it.
    ///
    /// # Errors
    /// The schema is inconsistent, describes another number of features than the model takes, or the
    /// model is a LIBSVM model file (which has no place for it).
    pub fn with_schema(self, schema: CsvSchema) -> Result<AnyModel> {
        let model = match self {
            AnyModel::WithSchema(w) => w.model,
            m => m,
        };
        if matches!(model, AnyModel::Libsvm(_)) {
            return Err(input_error("a LIBSVM model file cannot store a CSV schema".into()));
        }
        let d = model.n_features();
        let w = WithSchema { schema, d, model };
        w.envelope()?; // checks the schema against the model
        Ok(AnyModel::WithSchema(Box::new(w)))
    }

    /// The model's kind (the kind under a feature scaling).
    pub fn kind(&self) -> Kind {
        match self.base() {
            AnyModel::Svc(_) => Kind::Svc,
            AnyModel::Svr(_) => Kind::Svr,
            AnyModel::OneClass(_) => Kind::OneClass,
            AnyModel::LsSvm(_) => Kind::LsSvm,
            AnyModel::Krr(_) => Kind::Krr,
            AnyModel::Nystrom(_) => Kind::Nystrom,
            AnyModel::Kfa(_) => Kind::Kfa,
            AnyModel::RailwaySvc(_) => Kind::RailwaySvc,
            AnyModel::Kpca(_) => Kind::Kpca,
            AnyModel::NystromKpca(_) => Kind::NystromKpca,
            AnyModel::Fvs(_) => Kind::Fvs,
            AnyModel::Libsvm(_) => Kind::Libsvm,
            AnyModel::Scaled(_) | AnyModel::WithSchema(_) => unreachable!("base() is not wrapped"),
        }
    }

    /// The learner's name as `kern predict` reports it: a landmark model is the `lssvm` or `krr` it
    /// approximates, a railway SVC an `svc`; otherwise [`Kind::name`].
    pub fn learner_name(&self) -> &'static str {
        match self.base() {
            AnyModel::Nystrom(m) => {
                if m.has_bias() {
                    LsSvm::KIND
                } else {
                    KernelRidge::KIND
                }
            }
            AnyModel::RailwaySvc(_) => Svc::KIND,
            _ => self.kind().name(),
        }
    }

    /// The kernel, as a kernel spec string (`railway` for a railway SVC).
    pub fn kernel(&self) -> String {
        match self.base() {
            AnyModel::Svc(m) => m.kernel().to_string(),
            AnyModel::Svr(m) => m.kernel().to_string(),
            AnyModel::OneClass(m) => m.kernel().to_string(),
            AnyModel::LsSvm(m) => m.kernel().to_string(),
            AnyModel::Krr(m) => m.kernel().to_string(),
            AnyModel::Nystrom(m) => m.kernel().to_string(),
            AnyModel::Kfa(m) => m.layers()[0].kernel().to_string(),
            AnyModel::RailwaySvc(_) => "railway".to_string(),
            AnyModel::Kpca(m) => m.kernel().to_string(),
            AnyModel::NystromKpca(m) => m.kernel().to_string(),
            AnyModel::Fvs(m) => m.kernel().to_string(),
            AnyModel::Libsvm(m) => m.kernel().to_string(),
            AnyModel::Scaled(_) | AnyModel::WithSchema(_) => unreachable!("base() is not wrapped"),
        }
    }

    /// What the rows of the input are: samples, or kernel rows for a model trained on a precomputed
    /// kernel matrix.
    pub fn input(&self) -> Input {
        let rows = match self {
            AnyModel::Svc(m) => m.is_precomputed(),
            AnyModel::Svr(m) => m.is_precomputed(),
            AnyModel::OneClass(m) => m.is_precomputed(),
            AnyModel::Libsvm(m) => m.is_precomputed(),
            AnyModel::WithSchema(w) => return w.model.input(),
            _ => false,
        };
        if rows { Input::KernelRows } else { Input::Samples }
    }

    /// Whether the model predicts on a sparse sample store as it is (kernel expansions do); the others
    /// — a railway SVC, and raw samples a scaling moves away from zero — are best given dense samples.
    pub fn takes_sparse(&self) -> bool {
        match self {
            AnyModel::WithSchema(w) => w.model.takes_sparse(),
            m => !matches!(m, AnyModel::RailwaySvc(_) | AnyModel::Scaled(_)),
        }
    }

    /// The number of features of the samples the model takes ([`Input::Samples`]); for kernel rows
    /// ([`Input::KernelRows`]), the least row length: the last training point its support vectors
    /// use. A scaled model takes raw samples of the training data's dimension.
    pub fn n_features(&self) -> usize {
        let serials = |sv: &Samples| (0..sv.n()).map(|i| sv.row(i)[0] as usize).max().unwrap_or(0);
        match self {
            AnyModel::Svc(m) if m.is_precomputed() => serials(m.support_vectors()),
            AnyModel::Svr(m) if m.is_precomputed() => serials(m.support_vectors()),
            AnyModel::OneClass(m) if m.is_precomputed() => serials(m.support_vectors()),
            AnyModel::Svc(m) => m.support_vectors().d(),
            AnyModel::Svr(m) => m.support_vectors().d(),
            AnyModel::OneClass(m) => m.support_vectors().d(),
            AnyModel::LsSvm(m) => m.training_samples().d(),
            AnyModel::Krr(m) => m.training_samples().d(),
            AnyModel::Nystrom(m) => m.centres().d(),
            AnyModel::Kfa(m) => m.layers()[0].basis().d(),
            AnyModel::RailwaySvc(m) => m.map.kernel().areas().first().map_or(0, |a| a.center().len()),
            AnyModel::Kpca(m) => m.training_samples().d(),
            AnyModel::NystromKpca(m) => m.centres().d(),
            AnyModel::Fvs(m) => m.basis().d(),
            AnyModel::Libsvm(m) => m.n_features(),
            AnyModel::Scaled(s) => s.dim(),
            AnyModel::WithSchema(w) => w.model.n_features(),
        }
    }

    /// Whether the model takes samples with more features than it was trained on, by LIBSVM's rule
    /// ([`WidenFeatures::widen_features`]; the models that store samples: SVMs, LS-SVM, kernel ridge,
    /// landmark models, kernel PCA).
    pub fn can_widen(&self) -> bool {
        self.input() == Input::Samples
            && matches!(
                self,
                AnyModel::Svc(_)
                    | AnyModel::Svr(_)
                    | AnyModel::OneClass(_)
                    | AnyModel::LsSvm(_)
                    | AnyModel::Krr(_)
                    | AnyModel::Nystrom(_)
                    | AnyModel::Kpca(_)
                    | AnyModel::NystromKpca(_)
            )
    }

    /// Whether the model predicts labels (classifiers, one-class models) rather than real values; a
    /// model that projects ([`Kind::transforms`]) predicts neither.
    pub fn is_classifier(&self) -> bool {
        match self.base() {
            AnyModel::Svc(_) | AnyModel::RailwaySvc(_) | AnyModel::OneClass(_) => true,
            AnyModel::LsSvm(m) => m.task().is_classification(),
            AnyModel::Krr(m) => m.task().is_classification(),
            AnyModel::Nystrom(m) => m.task().is_classification(),
            AnyModel::Kfa(m) => !matches!(m.task(), kfa::Task::Real),
            AnyModel::Libsvm(m) => m.svm_type().is_classifier() || m.svm_type() == SvmType::OneClass,
            _ => false,
        }
    }

    /// The class names, in the order of the probability columns (a LIBSVM model's labels; `1 -1` for
    /// a LIBSVM one-class model); `None` for regressors, one-class SVMs and projections.
    pub fn classes(&self) -> Option<Vec<String>> {
        match self.base() {
            AnyModel::Svc(m) => Some(m.names().to_vec()),
            AnyModel::RailwaySvc(m) => Some(m.svc.names().to_vec()),
            AnyModel::LsSvm(m) => task_names(m.task()),
            AnyModel::Krr(m) => task_names(m.task()),
            AnyModel::Nystrom(m) => task_names(m.task()),
            AnyModel::Kfa(m) => match m.task() {
                kfa::Task::Binary { names } => Some(names.to_vec()),
                kfa::Task::Classes { names } => Some(names.clone()),
                kfa::Task::Real => None,
            },
            AnyModel::Libsvm(m) => match (m.labels(), m.svm_type()) {
                (Some(l), _) => Some(l.iter().map(|v| v.to_string()).collect()),
                (None, SvmType::OneClass) => Some(vec!["1".into(), "-1".into()]),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether the model has class probabilities ([`AnyModel::predict_proba`]).
    pub fn has_probability(&self) -> bool {
        match self.base() {
            AnyModel::Svc(m) => m.has_probability(),
            AnyModel::RailwaySvc(m) => m.svc.has_probability(),
            AnyModel::Libsvm(m) => m.has_probability(),
            _ => false,
        }
    }

    /// Why the model has no class probabilities, in plain words (`None` when it has them).
    pub fn why_no_probability(&self) -> Option<String> {
        if self.has_probability() {
            return None;
        }
        Some(match self.base() {
            AnyModel::Svc(_) | AnyModel::RailwaySvc(_) => {
                "the model was trained without probabilities".into()
            }
            AnyModel::Libsvm(m) => {
                format!(
                    "this LIBSVM {} model has no probability information (train it with -b 1)",
                    m.svm_type().name()
                )
            }
            AnyModel::OneClass(_) => "one-class models have no class probabilities".into(),
            m if !m.is_classifier() && !m.kind().transforms() => {
                "regression models have no class probabilities".into()
            }
            m => format!("a {} model has no class probabilities", m.kind().name()),
        })
    }

    /// Brings samples to what the model under the scaling takes: raw samples of the training
    /// dimension, scaled as for training.
    fn scale<'a>(&self, x: &'a Samples) -> Result<Cow<'a, Samples>> {
        match self {
            AnyModel::WithSchema(w) => w.model.scale(x),
            AnyModel::Scaled(s) => {
                if x.d() != s.dim() {
                    return Err(input_error(format!(
                        "the samples have {} features, the scaled model was trained on {}",
                        x.d(),
                        s.dim()
                    )));
                }
                Ok(Cow::Owned(s.scaling().apply(x)?))
            }
            _ => Ok(Cow::Borrowed(x)),
        }
    }

    /// Labels, values, decision values and (with `proba`) class probabilities of every row of `x`,
    /// from one prediction pass: for kernel expansions, one expansion `K(x, SV)` whatever is asked.
    ///
    /// ```
    /// use kern_models::{AnyModel, Samples, RealTargets, Fit};
    /// use kern_models::svm::SvrParams;
    /// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
    /// let y = RealTargets::new(vec![0.0, 1.0, 2.0, 3.0])?;
    /// let m = AnyModel::from(SvrParams::new("linear".parse()?).c(10.0).fit(&x, &y)?);
    /// let p = m.predict_all(&x, false)?;
    /// assert_eq!(p.decision[(2, 0)], p.values[2]);           // an SVR's decision value is its value
    /// assert!(m.predict_all(&x, true).is_err());             // no class probabilities
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// The samples do not fit the model; `proba` for a model without probabilities; a model that
    /// projects ([`Kind::transforms`]).
    pub fn predict_all(&self, x: &Samples, proba: bool) -> Result<Predictions> {
        if proba && let Some(why) = self.why_no_probability() {
            return Err(input_error(why));
        }
        let x = self.scale(x)?;
        let x = x.as_ref();
        let p = self.predict_base(x, proba)?;
        crate::finite_output::mat(p.decision.as_ref(), "decision values")?;
        crate::finite_output::values(&p.values, "predictions")?;
        if let Some(pr) = &p.proba {
            crate::finite_output::mat(pr.as_ref(), "probabilities")?;
        }
        Ok(p)
    }

    /// How [`AnyModel::predict_all`] expands the kernel against the support vectors of an SVM
    /// ([`crate::svm::Svc::expansion_plan`]); `None` for other models and precomputed kernels.
    ///
    /// ```
    /// use kern_models::{AnyModel, Fit, RealTargets, Samples};
    /// use kern_models::svm::SvrParams;
    /// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
    /// let y = RealTargets::new(vec![0.0, 1.0, 2.0, 3.0])?;
    /// let m = AnyModel::from(SvrParams::new("linear".parse()?).fit(&x, &y)?);
    /// assert_eq!(m.expansion_plan(&x).map(|p| p.name()), Some("serial"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn expansion_plan(&self, x: &Samples) -> Option<kern_sparse::kmatrix::ExpandPlan> {
        match self.base() {
            AnyModel::Svc(m) => m.expansion_plan(x),
            AnyModel::Svr(m) => m.expansion_plan(x),
            AnyModel::OneClass(m) => m.expansion_plan(x),
            _ => None,
        }
    }

    /// Whether [`AnyModel::predict_all`] on `x` expands the kernel serially
    /// ([`kern_sparse::kmatrix::ExpandPlan::Serial`]). Such a prediction is best run on the calling
    /// thread: handing it to a pool worker costs more than it saves (`kern predict` and the Python
    /// package do so).
    ///
    /// ```
    /// use kern_models::{AnyModel, Fit, RealTargets, Samples};
    /// use kern_models::svm::SvrParams;
    /// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
    /// let y = RealTargets::new(vec![0.0, 1.0, 2.0, 3.0])?;
    /// let m = AnyModel::from(SvrParams::new("linear".parse()?).fit(&x, &y)?);
    /// assert!(m.predicts_serially(&x));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn predicts_serially(&self, x: &Samples) -> bool {
        self.expansion_plan(x) == Some(kern_sparse::kmatrix::ExpandPlan::Serial)
    }

    /// [`AnyModel::predict_all`] of the model under the scaling, on scaled samples, unchecked.
    fn predict_base(&self, x: &Samples, proba: bool) -> Result<Predictions> {
        Ok(match self.base() {
            AnyModel::Svc(m) => svc_predictions(m, x, proba)?,
            AnyModel::RailwaySvc(m) => svc_predictions(&m.svc, &m.map.transform(x)?, proba)?,
            AnyModel::Svr(m) => {
                let v = m.predict(x)?;
                let d = column(&v);
                from_values(v, d)
            }
            AnyModel::OneClass(m) => {
                let decision = m.decision_function(x)?;
                let v = decision.col(0).iter().map(|&v| if v > 0.0 { 1.0 } else { -1.0 }).collect();
                from_values(v, decision)
            }
            AnyModel::LsSvm(m) => from_ridge(m.task(), m.decision_function(x)?),
            AnyModel::Krr(m) => from_ridge(m.task(), m.decision_function(x)?),
            AnyModel::Nystrom(m) => from_ridge(m.task(), m.decision_function(x)?),
            AnyModel::Kfa(m) => {
                let decision = m.outputs(x)?;
                let values = kfa_values(m.task(), &decision);
                let labels = kfa_labels(m.task(), &values);
                Predictions { values, labels, decision, proba: None, proba_labels: None }
            }
            AnyModel::Libsvm(m) => {
                let dec = m.decision_values(x)?;
                let values: Vec<f64> = dec.iter().map(|d| m.predict_from(d)).collect();
                let labels = values.iter().map(|&v| kern_core::label_name(v)).collect();
                let (proba, proba_labels) = if proba {
                    let (l, p): (Vec<f64>, Vec<Vec<f64>>) = dec.iter().map(|d| m.probability_from(d)).unzip();
                    let width = p.first().map_or(0, Vec::len);
                    (Some(rows_to_mat(&p, width)), Some(l.into_iter().map(kern_core::label_name).collect()))
                } else {
                    (None, None)
                };
                let decision = rows_to_mat(&dec, m.n_decision_values());
                Predictions { values, labels, decision, proba, proba_labels }
            }
            m @ (AnyModel::Kpca(_) | AnyModel::NystromKpca(_) | AnyModel::Fvs(_)) => {
                return Err(input_error(format!(
                    "a {} model projects samples (transform); it predicts no labels or values",
                    m.kind().name()
                )));
            }
            AnyModel::Scaled(_) | AnyModel::WithSchema(_) => unreachable!("base() is not wrapped"),
        })
    }

    /// The predictions ([`Predictions::values`]) of every row of `x`.
    ///
    /// # Errors
    /// Those of [`AnyModel::predict_all`].
    pub fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        Ok(self.predict_all(x, false)?.values)
    }

    /// One label per row of `x` ([`Predictions::labels`]), as `kern predict --out` writes them.
    ///
    /// # Errors
    /// Those of [`AnyModel::predict_all`].
    pub fn predict_labels(&self, x: &Samples) -> Result<Vec<String>> {
        Ok(self.predict_all(x, false)?.labels)
    }

    /// The decision values of every row of `x` ([`Predictions::decision`]).
    ///
    /// # Errors
    /// Those of [`AnyModel::predict_all`].
    pub fn decision_function(&self, x: &Samples) -> Result<Mat<f64>> {
        if self.kind().transforms() {
            return Err(input_error(format!(
                "a {} model projects samples (transform); it has no decision values",
                self.kind().name()
            )));
        }
        Ok(self.predict_all(x, false)?.decision)
    }

    /// The class probabilities of every row of `x`: one row per sample, one column per class
    /// ([`AnyModel::classes`]).
    ///
    /// # Errors
    /// A model without class probabilities ([`AnyModel::why_no_probability`]); those of
    /// [`AnyModel::predict_all`].
    pub fn predict_proba(&self, x: &Samples) -> Result<Mat<f64>> {
        Ok(self.predict_all(x, true)?.proba.expect("asked for probabilities"))
    }

    /// The projections of every row of `x`: kernel PCA scores, FVS coordinates (one column per
    /// component).
    ///
    /// # Errors
    /// A model that does not project ([`Kind::transforms`]); the samples do not fit the model.
    pub fn transform(&self, x: &Samples) -> Result<Mat<f64>> {
        let x = self.scale(x)?;
        let z = match self.base() {
            AnyModel::Kpca(m) => m.transform(&x),
            AnyModel::NystromKpca(m) => m.transform(&x),
            AnyModel::Fvs(m) => m.transform(&x),
            m => Err(input_error(format!(
                "a {} model predicts labels or values; only kpca, nystrom-kpca and fvs models project samples",
                m.kind().name()
            ))),
        }?;
        crate::finite_output::mat(z.as_ref(), "projections")?;
        Ok(z)
    }
}

/// The prefix of the bytes the Python package wrote for a pickled FVS feature map before the map had
/// a kind of its own (still read).
const LEGACY_FVS: &[u8] = b"kern-python fvs-map\n";

fn task_names(task: &Task) -> Option<Vec<String>> {
    match task {
        Task::Binary { names } => Some(names.to_vec()),
        Task::Classes { names } => Some(names.clone()),
        Task::Regression => None,
    }
}

fn kfa_values(task: &kfa::Task, out: &Mat<f64>) -> Vec<f64> {
    (0..out.nrows())
        .map(|i| match task {
            kfa::Task::Binary { .. } => {
                if out[(i, 0)] > 0.0 {
                    1.0
                } else {
                    -1.0
                }
            }
            kfa::Task::Classes { .. } => {
                let mut best = 0;
                for c in 1..out.ncols() {
                    if out[(i, c)] > out[(i, best)] {
                        best = c;
                    }
                }
                best as f64
            }
            kfa::Task::Real => out[(i, 0)],
        })
        .collect()
}

fn svc_predictions(m: &Svc, x: &Samples, proba: bool) -> Result<Predictions> {
    let p = m.predict_all(x, proba)?;
    Ok(Predictions {
        values: p.classes.iter().map(|&c| m.class_value(c)).collect(),
        labels: p.labels,
        decision: p.decision,
        proba: p.proba,
        proba_labels: None,
    })
}

impl Model for AnyModel {
    type Error = ModelsError;
    fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        AnyModel::predict(self, x)
    }
}

impl WidenFeatures for AnyModel {
    fn n_features(&self) -> usize {
        AnyModel::n_features(self)
    }

    /// Widens the stored samples of the models that store samples ([`AnyModel::can_widen`]); an error
    /// for the others.
    fn widen_features(&mut self, d: usize) -> Result<()> {
        if !self.can_widen() {
            return Err(input_error(format!(
                "a {} model takes samples of exactly {} features",
                self.kind().name(),
                AnyModel::n_features(self)
            )));
        }
        match self {
            AnyModel::Svc(m) => m.widen_features(d),
            AnyModel::Svr(m) => m.widen_features(d),
            AnyModel::OneClass(m) => m.widen_features(d),
            AnyModel::LsSvm(m) => m.widen_features(d),
            AnyModel::Krr(m) => m.widen_features(d),
            AnyModel::Nystrom(m) => m.widen_features(d),
            AnyModel::Kpca(m) => m.widen_features(d),
            AnyModel::NystromKpca(m) => m.widen_features(d),
            _ => unreachable!("can_widen() lists the kinds above"),
        }
    }
}

#[cfg(feature = "ndarray")]
impl AnyModel {
    /// [`AnyModel::decision_function`] on the rows of an ndarray matrix, as an `Array2`.
    ///
    /// ```
    /// use kern_models::{AnyModel, Samples, RealTargets, Fit};
    /// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
    /// let y = RealTargets::new(vec![0.0, 1.0, 2.0, 3.0])?;
    /// let m = AnyModel::from(kern_models::krr::KernelRidgeParams::new("linear".parse()?).lambda(0.1).fit(&x, &y)?);
    /// let d = m.decision_array(ndarray::array![[0.0], [3.0]].view())?;
    /// assert_eq!(d.dim(), (2, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// Those of [`Samples::from_array`] and [`AnyModel::decision_function`].
    pub fn decision_array(&self, x: ndarray::ArrayView2<'_, f64>) -> Result<ndarray::Array2<f64>> {
        use kern_core::array::IntoArray2;
        Ok(self.decision_function(&Samples::from_array(x)?)?.into_array2())
    }

    /// [`AnyModel::predict_proba`] on the rows of an ndarray matrix, as an `Array2`.
    ///
    /// # Errors
    /// Those of [`Samples::from_array`] and [`AnyModel::predict_proba`].
    pub fn predict_proba_array(&self, x: ndarray::ArrayView2<'_, f64>) -> Result<ndarray::Array2<f64>> {
        use kern_core::array::IntoArray2;
        Ok(self.predict_proba(&Samples::from_array(x)?)?.into_array2())
    }

    /// [`AnyModel::transform`] on the rows of an ndarray matrix, as an `Array2`.
    ///
    /// # Errors
    /// Those of [`Samples::from_array`] and [`AnyModel::transform`].
    pub fn transform_array(&self, x: ndarray::ArrayView2<'_, f64>) -> Result<ndarray::Array2<f64>> {
        use kern_core::array::IntoArray2;
        Ok(self.transform(&Samples::from_array(x)?)?.into_array2())
    }
}
