//! `kern export --libsvm MODEL OUT`: writes a kern SVM as a LIBSVM model file (the formats `kern
//! train --format` offers are the SVM family's).

use crate::families::svm::not_an_svm;
use crate::output::{CliResult, check_out, write_output};
use kern_models::libsvm_model::LibsvmModel;
use kern_models::persist;
use kern_models::svm::{OneClass, Svc, Svr};
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

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
    check_out(&a.out, &[&a.model])?;
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
