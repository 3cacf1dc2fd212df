//! Batch prediction over a file read in row parts: every rank loads the saved model, predicts its own
//! rows, and rank 0 writes the outputs in input order (rank order is file order).
//!
//! ```
//! use kern_core::{io::write_libsvm, learner::Fit, BinaryTargets, Samples};
//! use kern_dist::{predict::predict_file, threads::run_threads};
//! let dir = std::env::temp_dir().join(format!("kern-doc-predict-mod-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let x = Samples::from_rows(&[[0.0, 1.0], [1.0, 0.0], [0.1, 0.9], [0.9, 0.2], [0.2, 0.8], [0.8, 0.1]])?;
//! let labels = ["1", "2", "1", "2", "1", "2"];
//! write_libsvm(&dir.join("d.svm"), &x, &labels)?;
//! let m = kern_models::lssvm::LsSvmParams::new("gaussian:sigma=1".parse()?).gam(1e-3);
//! kern_models::persist::save(&dir.join("m.kern"), &m.fit(&x, &BinaryTargets::from_labels(&labels)?)?)?;
//! // Three ranks predict their own rows; rank 0 writes all predictions in the file's order.
//! run_threads(3, |c| predict_file(c, &dir.join("m.kern"), &dir.join("d.svm"), &Default::default(), Some(&dir.join("p.txt"))).unwrap());
//! assert_eq!(std::fs::read_to_string(dir.join("p.txt")).unwrap(), "1\n2\n1\n2\n1\n2\n");
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::comm::{Comm, agree};
use crate::error::{DistError, Result};
use crate::rows::{PartOptions, read_part};
use kern_core::io::CsvOptions;
use kern_models::{AnyModel, Input};
use std::path::Path;

/// Reads the model for distributed prediction ([`AnyModel::load`]: every kind kern saves, LIBSVM model
/// files included) and refuses what a row-distributed prediction cannot do: kernel rows, projections.
fn load(path: &Path) -> Result<AnyModel> {
    let m = AnyModel::load(path)?;
    let name = path.display();
    if m.input() == Input::KernelRows {
        return Err(DistError::Invalid(format!(
            "{name}: the model was trained on a precomputed kernel; distributed prediction reads samples"
        )));
    }
    if m.kind().transforms() {
        return Err(DistError::Invalid(format!(
            "{name}: a {} model projects samples; distributed prediction writes labels or values (use kern predict)",
            m.kind().name()
        )));
    }
    Ok(m)
}

/// What [`predict_file`] did.
///
/// ```
/// use kern_core::{Samples, BinaryTargets, io::write_libsvm, learner::Fit};
/// use kern_dist::{predict::predict_file, threads::run_threads};
/// use kern_models::lssvm::LsSvmParams;
/// let dir = std::env::temp_dir().join(format!("kern-doc-summary-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let x = Samples::from_rows(&[[0.0, 1.0], [1.0, 0.0], [0.1, 0.9], [0.9, 0.2], [0.2, 0.8], [0.8, 0.1]])?;
/// let labels = ["1", "2", "1", "2", "1", "2"];
/// write_libsvm(&dir.join("d.svm"), &x, &labels)?;
/// let m = LsSvmParams::new("gaussian:sigma=1".parse()?).gam(1e-3).fit(&x, &BinaryTargets::from_labels(&labels)?)?;
/// kern_models::persist::save(&dir.join("m.kern"), &m)?;
/// // Two ranks (threads of this process): each predicts its own rows of the file.
/// let s = run_threads(2, |c| predict_file(c, &dir.join("m.kern"), &dir.join("d.svm"), &Default::default(), None));
/// let (s0, s1) = (s[0].as_ref().unwrap(), s[1].as_ref().unwrap());
/// assert_eq!((s0.n, s0.accuracy, s0.model.as_str()), (6, Some(1.0), "lssvm"));
/// assert_eq!((s0.rows_per_rank.len(), s0.rows_per_rank.iter().sum::<usize>()), (2, 6));
/// assert!(s1.rows_per_rank.is_empty()); // only rank 0 gathers the counts
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    let m = agree(comm, load(model))?;
    let is_csv = data.to_string_lossy().to_ascii_lowercase().ends_with(".csv");
    let opts =
        PartOptions { dim: (!is_csv).then(|| m.n_features()), csv: csv.clone(), ..PartOptions::default() };
    let part = read_part(comm, data, &opts)?;
    if part.d != m.n_features() {
        return Err(DistError::Invalid(format!(
            "the CSV data has {} feature columns, the model was trained on {}",
            part.d,
            m.n_features()
        )));
    }
    let lines =
        agree(comm, part.samples.as_ref().map(|x| m.predict_labels(x)).transpose().map_err(DistError::from))?
            .unwrap_or_default();
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
    Ok(PredictSummary { model: m.learner_name().into(), n: part.n_total, accuracy, rows_per_rank })
}
