//! `kern predict`: applies a saved model to a data file.
//!
//! Dispatches on the model file's kind tag ([`kern_models::persist::peek_kind`]), one match arm per kind;
//! LIBSVM model files (text starting with `svm_type`) are predicted as LIBSVM does
//! ([`kern_models::libsvm_model`]). Kernel PCA models (`kpca`, `nystrom-kpca`) project the data
//! instead: `--out` gets their scores, as `kern kpca --out` writes the training points' scores.

use crate::common::{CliResult, DataArgs, with_threads};
use kern_core::Samples;
use kern_core::io::Dataset;
use kern_core::learner::Model;
use kern_models::libsvm_model::{LibsvmModel, SvmType};
use kern_models::persist::{self, Persist};
use kern_models::svm::{Svc, Svr};
use kern_models::widen::WidenFeatures;
use serde_json::json;
use std::borrow::Cow;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `kern predict`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// A model file written by `kern train` or `kern kpca --save`, or a LIBSVM model file (svm-train's
    /// output).
    #[arg(long)]
    model: PathBuf,
    /// Write one prediction per line (`-`: standard output): label names for classifiers, with
    /// probabilities when the model has them; values for regressors. See --values. For a kernel PCA
    /// model (kern kpca --save): the projections of the points, as CSV with a pc1,...,pcK header and
    /// one row per point, as kern kpca --out writes the training scores.
    #[arg(long)]
    out: Option<PathBuf>,
    /// What --out holds: label (one label or value per line), decision (the decision values, one column
    /// per machine), or probability (a `labels ...` header line, then the predicted label and one
    /// probability per class). Default: labels, followed by the probabilities when the model has them.
    /// decision and probability: svc, svr and LIBSVM models.
    #[arg(long, value_enum, requires = "out")]
    values: Option<Values>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// What `kern predict --out` writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Values {
    /// The predicted label (classifiers) or value (regressors).
    Label,
    /// The decision values.
    Decision,
    /// The class probabilities.
    Probability,
}

/// Runs `kern predict`.
pub fn run(a: Args) -> CliResult {
    if let Some(out) = &a.out {
        crate::common::check_out(out, &[&a.data.data, &a.model])?;
    }
    // The worker threads come up while the model and the data are read.
    kern_core::parallel::warm_up(a.threads);
    let bytes = persist::read(&a.model)?;
    let path = a.model.display().to_string();
    if kern_models::libsvm_model::looks_like_libsvm_model(&bytes) {
        let text =
            String::from_utf8(bytes).map_err(|_| format!("{path}: not a LIBSVM model file (not text)"))?;
        let m = kern_models::libsvm_model::LibsvmModel::parse(&text, &path)?;
        let ds = if m.is_precomputed() {
            crate::commands::precomputed::read(&a.data, false)?
        } else {
            a.data.load_sparse()?
        };
        return predict_libsvm(&a, &m, &ds);
    }
    let mut kind = persist::peek_kind(&bytes, &path)?;
    let mut bytes = bytes;
    // A model trained with --scale holds the scaling and the inner model.
    let envelope: Option<kern_models::scaling::ScaledModel> =
        if kind == kern_models::scaling::ScaledModel::KIND {
            Some(persist::from_bytes(&bytes, &path)?)
        } else {
            None
        };
    if let Some(env) = &envelope {
        kind = env.inner_kind().to_string();
        bytes = env.inner_bytes().to_vec();
    }
    // Kernel expansions (SVMs, LS-SVM, KRR, landmark models, KFA) predict on either sample store (a sparse
    // file stays sparse); the other models, and scaled samples (scaling moves zeros), are dense.
    let sparse = envelope.is_none()
        && matches!(
            kind.as_str(),
            "svc" | "svr" | "one-class" | "lssvm" | "krr" | "nystrom" | "kfa" | "kpca" | "nystrom-kpca"
        );
    let precomputed = envelope.is_none() && is_precomputed(&kind, &bytes, &path)?;
    let mut ds = if precomputed {
        crate::commands::precomputed::read(&a.data, false)?
    } else if sparse {
        a.data.load_sparse()?
    } else {
        a.data.load()?
    };
    if let Some(env) = &envelope {
        // Bring the raw samples to the training dimension, then scale them with the stored parameters.
        let raw = to_dim(&ds.samples, env.dim(), a.data.is_csv())?;
        ds.samples = env.scaling().apply(&raw)?;
    }
    let scaled = envelope.is_some();
    if !matches!(kind.as_str(), "svc" | "svr" | "one-class")
        && matches!(a.values, Some(Values::Decision | Values::Probability))
    {
        return Err(format!(
            "--values decision|probability: supported for svc, svr, one-class and LIBSVM models, not {kind:?}"
        )
        .into());
    }
    let mut summary = match kind.as_str() {
        "svc" => predict_svc(&a, persist::from_bytes(&bytes, &path)?, &ds),
        "svr" => predict_svr(&a, persist::from_bytes(&bytes, &path)?, &ds),
        "one-class" => {
            if a.values == Some(Values::Probability) {
                return Err("--values probability: one-class models have no class probabilities".into());
            }
            let mut m: kern_models::svm::OneClass = persist::from_bytes(&bytes, &path)?;
            let x = if m.is_precomputed() {
                Cow::Borrowed(&ds.samples)
            } else {
                fit_dim(&ds.samples, &mut m, a.data.is_csv())?
            };
            let decision = a.values == Some(Values::Decision);
            crate::commands::svm_types::predict_one_class(&m, &x, &ds, decision, a.threads, a.out.as_deref())
        }
        "railway-svc" => crate::commands::railway::predict_railway_svc(
            persist::from_bytes(&bytes, &path)?,
            &ds,
            a.threads,
            a.out.as_deref(),
        ),
        "kfa" => crate::commands::fvs::predict_kfa(
            persist::from_bytes(&bytes, &path)?,
            &ds,
            a.threads,
            a.out.as_deref(),
        ),
        "nystrom" => crate::commands::landmark::predict_nystrom(
            persist::from_bytes(&bytes, &path)?,
            &ds,
            a.threads,
            a.out.as_deref(),
            a.data.is_csv(),
        ),
        "lssvm" | "krr" => crate::commands::lssvm::predict_dual(
            &bytes,
            &path,
            &kind,
            &ds,
            a.threads,
            a.out.as_deref(),
            a.data.is_csv(),
        ),
        "kpca" => crate::commands::kpca::predict_kpca(
            persist::from_bytes(&bytes, &path)?,
            &ds,
            a.threads,
            a.out.as_deref(),
            a.data.is_csv(),
        ),
        "nystrom-kpca" => crate::commands::kpca::predict_nystrom_kpca(
            persist::from_bytes(&bytes, &path)?,
            &ds,
            a.threads,
            a.out.as_deref(),
            a.data.is_csv(),
        ),
        other => Err(format!(
            "{path}: model kind {other:?} is not supported by this kern (known: svc, svr, one-class, lssvm, \
             krr, nystrom, kfa, railway-svc, kpca, nystrom-kpca)"
        )
        .into()),
    }?;
    summary["scaled"] = json!(scaled);
    Ok(summary)
}

/// Whether a kern SVM model was trained on a precomputed kernel (its data file then holds kernel rows).
fn is_precomputed(kind: &str, bytes: &[u8], path: &str) -> Result<bool, crate::common::CliError> {
    Ok(match kind {
        "svc" => persist::from_bytes::<Svc>(bytes, path)?.is_precomputed(),
        "svr" => persist::from_bytes::<Svr>(bytes, path)?.is_precomputed(),
        "one-class" => persist::from_bytes::<kern_models::svm::OneClass>(bytes, path)?.is_precomputed(),
        _ => false,
    })
}

/// Brings test samples and a model that stores samples to one dimension, by LIBSVM's rule for a
/// LIBSVM file: features beyond the model's are kept, the model's samples being zero there
/// ([`kern_models::widen`]; the model's samples are widened as a sparse store, never densified).
/// Features the file lacks are zeros ([`to_dim`]). A CSV file has every column, so a different column
/// count is an error.
pub(crate) fn fit_dim<'a, M: WidenFeatures>(
    x: &'a Samples,
    m: &mut M,
    csv: bool,
) -> Result<Cow<'a, Samples>, crate::common::CliError> {
    let d = m.n_features();
    if x.d() == d {
        return Ok(Cow::Borrowed(x));
    }
    if x.d() > d && !csv && !zero_beyond(x, d) {
        m.widen_features(x.d())?;
        return Ok(Cow::Borrowed(x));
    }
    Ok(Cow::Owned(to_dim(x, d, csv)?))
}

/// Whether every value of `x` in a feature `≥ d` is zero.
fn zero_beyond(x: &Samples, d: usize) -> bool {
    x.samples().all(|s| match s {
        kern_core::SampleRef::Sparse { indices, values } => {
            indices.iter().zip(values).all(|(&j, &v)| j < d || v == 0.0)
        }
        kern_core::SampleRef::Dense(r) => r.iter().skip(d).all(|&v| v == 0.0),
    })
}

/// Adapts samples read from a sparse (LIBSVM) file to the model's dimension: missing trailing features
/// are zeros; extra trailing features are accepted only when they are all zero (models that store
/// samples take them through [`fit_dim`] instead). A CSV file has every column, so a different column
/// count is an error.
pub(crate) fn to_dim(x: &Samples, d: usize, csv: bool) -> Result<Samples, crate::common::CliError> {
    if x.d() == d {
        return Ok(x.clone());
    }
    if csv {
        return Err(
            format!("the CSV data has {} feature columns, the model was trained on {d}", x.d()).into()
        );
    }
    let extra = || {
        format!(
            "the data has nonzero values in features beyond the model's {d} (a scaled model knows the \
             scaling of its training features only)"
        )
    };
    if x.is_sparse() {
        // Re-dimensioned in place of the sparse store (never densified).
        let (mut indptr, mut indices, mut values) =
            (vec![0], Vec::with_capacity(x.nnz()), Vec::with_capacity(x.nnz()));
        for s in x.samples() {
            if let kern_core::SampleRef::Sparse { indices: ix, values: vs } = s {
                for (&j, &v) in ix.iter().zip(vs) {
                    if j >= d {
                        if v != 0.0 {
                            return Err(extra().into());
                        }
                        continue;
                    }
                    indices.push(j);
                    values.push(v);
                }
            }
            indptr.push(indices.len());
        }
        return Ok(Samples::from_csr(x.n(), d, indptr, indices, values)?);
    }
    if x.d() > d && x.rows().any(|r| r[d..].iter().any(|&v| v != 0.0)) {
        return Err(extra().into());
    }
    let mut data = Vec::with_capacity(x.n() * d);
    for r in x.rows() {
        let k = r.len().min(d);
        data.extend_from_slice(&r[..k]);
        data.extend(std::iter::repeat_n(0.0, d - k));
    }
    Ok(Samples::from_flat(data, x.n(), d)?)
}

fn write_lines(path: &std::path::Path, lines: &[String]) -> Result<(), crate::common::CliError> {
    let mut s = lines.join("\n");
    s.push('\n');
    crate::common::write_output(path, s.as_bytes())
}

/// Decision values of one sample as a line.
fn value_line(v: &[f64]) -> String {
    v.iter().map(|x| format!("{x}")).collect::<Vec<_>>().join(" ")
}

/// Labels and predictions compared as numbers when both are numbers, as text otherwise.
fn accuracy(pred: &[String], labels: &[String]) -> Option<f64> {
    labels.iter().any(|l| !l.is_empty()).then(|| {
        let norm =
            |s: &str| s.trim().parse::<f64>().map(kern_core::label_name).unwrap_or_else(|_| s.to_string());
        let hits = pred.iter().zip(labels).filter(|(p, l)| norm(p) == norm(l)).count();
        hits as f64 / pred.len() as f64
    })
}

fn predict_libsvm(a: &Args, m: &LibsvmModel, ds: &Dataset) -> CliResult {
    let x = &ds.samples;
    let t = Instant::now();
    let (dec, proba) = with_threads(a.threads, || -> kern_models::Result<_> {
        let dec = m.decision_values(x)?;
        let proba = match a.values {
            Some(Values::Probability) => Some(m.predict_probability(x)?),
            _ => None,
        };
        Ok((dec, proba))
    })??;
    let pred = m.predict(x)?;
    let seconds = t.elapsed().as_secs_f64();
    let classifier = m.svm_type().is_classifier() || m.svm_type() == SvmType::OneClass;
    let names: Vec<String> = pred.iter().map(|&v| kern_core::label_name(v)).collect();
    if let Some(out) = &a.out {
        let lines: Vec<String> = match (a.values, &proba) {
            (Some(Values::Decision), _) => dec.iter().map(|d| value_line(d)).collect(),
            (Some(Values::Probability), Some((plabel, p))) => {
                let header = match m.labels() {
                    Some(l) => l.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" "),
                    None => "1 -1".to_string(),
                };
                std::iter::once(format!("labels {header}"))
                    .chain(
                        plabel
                            .iter()
                            .zip(p)
                            .map(|(l, row)| format!("{} {}", kern_core::label_name(*l), value_line(row))),
                    )
                    .collect()
            }
            _ => names.clone(),
        };
        write_lines(out, &lines)?;
    }
    let (rmse, mae) = match (classifier, ds.real()) {
        (false, Ok(y)) => {
            let n = pred.len() as f64;
            let se: f64 = pred.iter().zip(y.values()).map(|(p, v)| (p - v) * (p - v)).sum();
            let ae: f64 = pred.iter().zip(y.values()).map(|(p, v)| (p - v).abs()).sum();
            (Some((se / n).sqrt()), Some(ae / n))
        }
        _ => (None, None),
    };
    Ok(json!({
        "model": "libsvm",
        "svm_type": m.svm_type().name(),
        "kernel": m.kernel().to_string(),
        "n": x.n(),
        "accuracy": if classifier { accuracy(&names, &ds.labels) } else { None },
        "rmse": rmse,
        "mae": mae,
        "probability": m.has_probability(),
        "seconds": seconds,
    }))
}

fn predict_svc(a: &Args, mut m: Svc, ds: &Dataset) -> CliResult {
    let x = if m.is_precomputed() {
        Cow::Borrowed(&ds.samples)
    } else {
        fit_dim(&ds.samples, &mut m, a.data.is_csv())?
    };
    if a.values == Some(Values::Probability) && !m.has_probability() {
        return Err("--values probability: the model was trained without --probability".into());
    }
    let t = Instant::now();
    let (names, proba, dec) = with_threads(a.threads, || -> kern_models::Result<_> {
        let names = m.predict_names(&x)?;
        let proba = if m.has_probability() { Some(m.predict_proba(&x)?) } else { None };
        let dec = if a.values == Some(Values::Decision) { Some(m.decision_function(&x)?) } else { None };
        Ok((names, proba, dec))
    })??;
    let seconds = t.elapsed().as_secs_f64();
    let accuracy = accuracy(&names, &ds.labels);
    if let Some(out) = &a.out {
        let lines: Vec<String> = match (&proba, a.values) {
            (_, Some(Values::Decision)) => dec.iter().flatten().map(|d| value_line(d)).collect(),
            (_, Some(Values::Label)) | (None, _) => names.clone(),
            (Some(p), Some(Values::Probability)) => {
                std::iter::once(format!("labels {}", m.names().join(" ")))
                    .chain(names.iter().zip(p).map(|(n, row)| format!("{n} {}", value_line(row))))
                    .collect()
            }
            (Some(p), None) => names
                .iter()
                .zip(p)
                .map(|(n, row)| {
                    let ps: Vec<String> = row.iter().map(|v| format!("{v:.6}")).collect();
                    format!("{n} {}", ps.join(" "))
                })
                .collect(),
        };
        write_lines(out, &lines)?;
    }
    Ok(json!({
        "model": "svc",
        "n": ds.samples.n(),
        "accuracy": accuracy,
        "probability": proba.is_some(),
        "seconds": seconds,
    }))
}

fn predict_svr(a: &Args, mut m: Svr, ds: &Dataset) -> CliResult {
    if a.values == Some(Values::Probability) {
        return Err("--values probability: regression models have no class probabilities".into());
    }
    let x = if m.is_precomputed() {
        Cow::Borrowed(&ds.samples)
    } else {
        fit_dim(&ds.samples, &mut m, a.data.is_csv())?
    };
    let t = Instant::now();
    let pred = with_threads(a.threads, || m.predict(&x))??;
    let seconds = t.elapsed().as_secs_f64();
    let (rmse, mae) = match ds.real() {
        Ok(y) => {
            let n = pred.len() as f64;
            let se: f64 = pred.iter().zip(y.values()).map(|(p, v)| (p - v) * (p - v)).sum();
            let ae: f64 = pred.iter().zip(y.values()).map(|(p, v)| (p - v).abs()).sum();
            (Some((se / n).sqrt()), Some(ae / n))
        }
        Err(_) => (None, None),
    };
    if let Some(out) = &a.out {
        let lines: Vec<String> = pred.iter().map(|v| format!("{v}")).collect();
        write_lines(out, &lines)?;
    }
    Ok(json!({ "model": "svr", "n": ds.samples.n(), "rmse": rmse, "mae": mae, "seconds": seconds }))
}
