//! `kern export --libsvm MODEL OUT`: writes a kern SVM as a LIBSVM model file, and the model-file
//! formats `kern train --format` offers.

use crate::common::{CliError, CliResult, save_model, write_output};
use kern_models::libsvm_model::LibsvmModel;
use kern_models::persist;
use kern_models::svm::{OneClass, Svc, Svr};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The format of a model file written by `kern train`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ModelFormat {
    /// kern's own model file (every model kind; read by `kern predict`).
    #[default]
    Kern,
    /// A LIBSVM model file (SVMs of every --type with linear, poly, gaussian or sigmoid kernels), read by
    /// LIBSVM's svm-predict and its bindings, and by `kern predict`.
    Libsvm,
}

/// Arguments of `kern export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Write a LIBSVM model file (the format LIBSVM's svm-predict reads).
    #[arg(long, required = true)]
    libsvm: bool,
    /// A model file written by `kern train` (an SVM: svc, svr, or any --type).
    model: PathBuf,
    /// Where to write the LIBSVM model (`-`: standard output).
    out: PathBuf,
}

/// Runs `kern export`.
pub fn run(a: Args) -> CliResult {
    debug_assert!(a.libsvm);
    let bytes = persist::read(&a.model)?;
    let path = a.model.display().to_string();
    let kind = persist::peek_kind(&bytes, &path)?;
    let t = Instant::now();
    let m = match kind.as_str() {
        "svc" => LibsvmModel::from_svc(&persist::from_bytes::<Svc>(&bytes, &path)?)?,
        "svr" => LibsvmModel::from_svr(&persist::from_bytes::<Svr>(&bytes, &path)?)?,
        "one-class" => LibsvmModel::from_one_class(&persist::from_bytes::<OneClass>(&bytes, &path)?)?,
        other => return Err(not_an_svm(other).into()),
    };
    write_output(&a.out, m.to_text().as_bytes())?;
    Ok(json!({
        "model": kind,
        "format": "libsvm",
        "svm_type": m.svm_type().name(),
        "kernel_type": m.libsvm_kernel().kernel_type,
        "nr_class": m.nr_class(),
        "total_sv": m.n_sv(),
        "out": a.out.display().to_string(),
        "seconds": t.elapsed().as_secs_f64(),
    }))
}

fn not_an_svm(kind: &str) -> String {
    format!(
        "a {kind:?} model cannot be written as a LIBSVM model file: LIBSVM holds support vector machines \
         (models trained with --model svc, --model svr or --type)"
    )
}

/// Checks before training that `format` can hold a model of kind `kind` (`svc`, `svr`, …).
pub fn check_format(format: ModelFormat, kind: &str) -> Result<(), CliError> {
    if format == ModelFormat::Libsvm && !matches!(kind, "svc" | "svr" | "one-class") {
        return Err(not_an_svm(kind).into());
    }
    Ok(())
}

/// Saves a trained C-SVC in `format`.
pub fn save_svc(out: &Path, m: &Svc, format: ModelFormat) -> Result<(), CliError> {
    match format {
        ModelFormat::Kern => save_model(out, m),
        ModelFormat::Libsvm => write_output(out, LibsvmModel::from_svc(m)?.to_text().as_bytes()),
    }
}

/// Saves a trained ε-SVR in `format`.
pub fn save_svr(out: &Path, m: &Svr, format: ModelFormat) -> Result<(), CliError> {
    match format {
        ModelFormat::Kern => save_model(out, m),
        ModelFormat::Libsvm => write_output(out, LibsvmModel::from_svr(m)?.to_text().as_bytes()),
    }
}

/// Saves a trained one-class SVM in `format`.
pub fn save_one_class(out: &Path, m: &OneClass, format: ModelFormat) -> Result<(), CliError> {
    match format {
        ModelFormat::Kern => save_model(out, m),
        ModelFormat::Libsvm => write_output(out, LibsvmModel::from_one_class(m)?.to_text().as_bytes()),
    }
}
