//! Batch prediction over a file read in row parts: every rank loads the saved model, predicts its own
//! rows, and rank 0 writes the outputs in input order (rank order is file order).

use crate::comm::{Comm, agree};
use crate::error::{DistError, Result};
use crate::rows::{PartOptions, read_part};
use kern_core::Samples;
use kern_core::io::CsvOptions;
use kern_core::learner::Model;
use kern_models::krr::KernelRidge;
use kern_models::landmark::NystromRidge;
use kern_models::libsvm_model::{LibsvmModel, SvmType, looks_like_libsvm_model};
use kern_models::lssvm::LsSvm;
use kern_models::persist;
use kern_models::ridge::Task;
use kern_models::svm::{Svc, Svr};
use std::path::Path;

/// A saved model loaded for prediction: the kinds `kern train` saves that predict one label or value
/// per row, and LIBSVM model files.
///
/// ```no_run
/// let m = kern_dist::predict::Loaded::load(std::path::Path::new("model.kern"))?;
/// println!("{} on {} features", m.kind(), m.dim());
/// # Ok::<(), kern_dist::DistError>(())
/// ```
#[derive(Debug)]
pub enum Loaded {
    /// Support vector classifier.
    Svc(Box<Svc>),
    /// Support vector regression.
    Svr(Box<Svr>),
    /// LS-SVM.
    LsSvm(Box<LsSvm>),
    /// Kernel ridge regression.
    Krr(Box<KernelRidge>),
    /// A LIBSVM model file.
    Libsvm(Box<LibsvmModel>),
    /// A Nyström / FVS landmark kernel ridge or LS-SVM.
    Nystrom(Box<NystromRidge>),
}

impl Loaded {
    /// Reads a model file (a `kern train` model or a LIBSVM model file).
    pub fn load(path: &Path) -> Result<Loaded> {
        let bytes = persist::read(path)?;
        let name = path.display().to_string();
        if looks_like_libsvm_model(&bytes) {
            let text = String::from_utf8(bytes)
                .map_err(|_| DistError::Invalid(format!("{name}: not a LIBSVM model file (not text)")))?;
            return Ok(Loaded::Libsvm(Box::new(LibsvmModel::parse(&text, &name)?)));
        }
        Ok(match persist::peek_kind(&bytes, &name)?.as_str() {
            "svc" => Loaded::Svc(Box::new(persist::from_bytes(&bytes, &name)?)),
            "svr" => Loaded::Svr(Box::new(persist::from_bytes(&bytes, &name)?)),
            "lssvm" => Loaded::LsSvm(Box::new(persist::from_bytes(&bytes, &name)?)),
            "krr" => Loaded::Krr(Box::new(persist::from_bytes(&bytes, &name)?)),
            "nystrom" => Loaded::Nystrom(Box::new(persist::from_bytes(&bytes, &name)?)),
            other => {
                return Err(DistError::Invalid(format!(
                    "{name}: distributed prediction supports svc, svr, lssvm, krr, landmark (Nyström) and LIBSVM models, not {other:?}"
                )));
            }
        })
    }

    /// The model kind, as `kern predict` names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Loaded::Svc(_) => "svc",
            Loaded::Svr(_) => "svr",
            Loaded::LsSvm(_) => "lssvm",
            Loaded::Krr(_) => "krr",
            Loaded::Libsvm(_) => "libsvm",
            Loaded::Nystrom(m) => {
                if m.has_bias() {
                    "lssvm"
                } else {
                    "krr"
                }
            }
        }
    }

    /// The number of features the model was trained on.
    pub fn dim(&self) -> usize {
        match self {
            Loaded::Svc(m) => m.support_vectors().d(),
            Loaded::Svr(m) => m.support_vectors().d(),
            Loaded::LsSvm(m) => m.training_samples().d(),
            Loaded::Krr(m) => m.training_samples().d(),
            Loaded::Libsvm(m) => m.n_features(),
            Loaded::Nystrom(m) => m.centres().d(),
        }
    }

    /// Whether predictions are class labels (else real values).
    pub fn is_classifier(&self) -> bool {
        match self {
            Loaded::Svc(_) => true,
            Loaded::Svr(_) => false,
            Loaded::LsSvm(m) => m.task().is_classification(),
            Loaded::Krr(m) => m.task().is_classification(),
            Loaded::Libsvm(m) => m.svm_type().is_classifier() || m.svm_type() == SvmType::OneClass,
            Loaded::Nystrom(m) => m.task().is_classification(),
        }
    }

    /// One output line per row of `x`, as `kern predict --out` writes them by default: the label
    /// name for classifiers, the value for regressors.
    pub fn predict_lines(&self, x: &Samples) -> Result<Vec<String>> {
        let values = |v: Vec<f64>| v.iter().map(|p| format!("{p}")).collect();
        Ok(match self {
            Loaded::Svc(m) => m.predict_names(x)?,
            Loaded::Svr(m) => values(m.predict(x)?),
            Loaded::LsSvm(m) => task_lines(m.task(), &m.predict(x)?),
            Loaded::Krr(m) => task_lines(m.task(), &m.predict(x)?),
            Loaded::Libsvm(m) => m.predict(x)?.into_iter().map(kern_core::label_name).collect(),
            Loaded::Nystrom(m) => task_lines(m.task(), &m.predict(x)?),
        })
    }
}

fn task_lines(task: &Task, pred: &[f64]) -> Vec<String> {
    match task {
        Task::Binary { names } => {
            pred.iter().map(|&p| if p > 0.0 { names[1].clone() } else { names[0].clone() }).collect()
        }
        Task::Classes { names } => pred.iter().map(|&p| names[p as usize].clone()).collect(),
        Task::Regression => pred.iter().map(|p| format!("{p}")).collect(),
    }
}

/// What [`predict_file`] did.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PredictSummary {
    /// The model kind.
    pub model: String,
    /// Rows predicted over all ranks.
    pub n: usize,
    /// Fraction of labels predicted right (classifiers, when the file has labels).
    pub accuracy: Option<f64>,
    /// Rows predicted by each rank, in rank order (rank 0's summary; empty on the others).
    pub rows_per_rank: Vec<usize>,
}

/// Predicts every row of `data` with the model in `model` (collective): each rank reads only its part
/// of the file and predicts it; rank 0 writes the predictions in input order to `out`, one per line.
/// Any rank's failure is every rank's [`DistError::RankFailed`].
///
/// ```
/// use kern_core::{Samples, BinaryTargets, io::write_libsvm, learner::Fit};
/// use kern_models::lssvm::LsSvmParams;
/// let dir = std::env::temp_dir().join("kern-doc-predict");
/// std::fs::create_dir_all(&dir).unwrap();
/// let x = Samples::from_rows(&[[0.0, 1.0], [1.0, 0.0], [0.1, 0.9], [0.9, 0.2]])?;
/// write_libsvm(&dir.join("d.svm"), &x, &["1", "2", "1", "2"])?;
/// let y = BinaryTargets::from_labels(&["1", "2", "1", "2"])?;
/// let m = LsSvmParams::new("gaussian:sigma=1".parse()?).gam(1e-3).fit(&x, &y)?;
/// kern_models::persist::save(&dir.join("m.kern"), &m)?;
/// let s = kern_dist::predict::predict_file(&kern_dist::SingleProcess, &dir.join("m.kern"),
///     &dir.join("d.svm"), &Default::default(), Some(&dir.join("p.txt")))?;
/// assert_eq!((s.n, s.accuracy), (4, Some(1.0)));
/// assert_eq!(std::fs::read_to_string(dir.join("p.txt")).unwrap(), "1\n2\n1\n2\n");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn predict_file(
    comm: &dyn Comm,
    model: &Path,
    data: &Path,
    csv: &CsvOptions,
    out: Option<&Path>,
) -> Result<PredictSummary> {
    if let Some(o) = out {
        kern_core::io::ensure_distinct(o, &[data, model])?;
    }
    let m = agree(comm, Loaded::load(model))?;
    let is_csv = data.to_string_lossy().to_ascii_lowercase().ends_with(".csv");
    let opts = PartOptions { dim: (!is_csv).then(|| m.dim()), csv: csv.clone(), ..PartOptions::default() };
    let part = read_part(comm, data, &opts)?;
    if part.d != m.dim() {
        return Err(DistError::Invalid(format!(
            "the CSV data has {} feature columns, the model was trained on {}",
            part.d,
            m.dim()
        )));
    }
    let lines =
        agree(comm, part.samples.as_ref().map(|x| m.predict_lines(x)).transpose())?.unwrap_or_default();
    let norm = |s: &str| s.trim().parse::<f64>().map(kern_core::label_name).unwrap_or_else(|_| s.to_string());
    let mut counts = [
        lines.iter().zip(&part.labels).filter(|(p, l)| norm(p) == norm(l)).count() as f64,
        part.labels.iter().filter(|l| !l.is_empty()).count() as f64,
    ];
    comm.allreduce_sum(&mut counts);
    let accuracy = (m.is_classifier() && counts[1] > 0.0).then(|| counts[0] / part.n_total as f64);
    let mut text = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for l in &lines {
        text.push_str(l);
        text.push('\n');
    }
    let gathered = comm.gather_bytes(0, text.as_bytes());
    let rows = comm.gather_bytes(0, &(lines.len() as u64).to_le_bytes());
    let written = match (&gathered, out) {
        (Some(parts), Some(o)) => kern_core::io::write_atomic(o, &parts.concat()).map_err(DistError::from),
        _ => Ok(()),
    };
    agree(comm, written)?;
    let rows_per_rank = rows
        .unwrap_or_default()
        .iter()
        .map(|b| b.as_slice().try_into().map(|a: [u8; 8]| u64::from_le_bytes(a) as usize))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|_| DistError::Message("row count".into()))?;
    Ok(PredictSummary { model: m.kind().into(), n: part.n_total, accuracy, rows_per_rank })
}
