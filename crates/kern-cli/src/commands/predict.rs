//! `kern predict`: applies a saved model to a data file.
//!
//! The model file is decoded once, by [`AnyModel::load`] (kern-models' one registry of model kinds,
//! LIBSVM model files and scaled models included); the data is read as the model takes it (kernel rows,
//! samples kept sparse, or dense samples) and predicted in one pass ([`AnyModel::predict_all`]: for a
//! kernel expansion, one `K(X, SV)` whatever `--values` asks for). Kernel PCA models (`kpca`,
//! `nystrom-kpca`) project the data instead: `--out` gets their scores, as `kern kpca --out` writes
//! the training points' scores.
//!
//! A model trained on a CSV file stores the file's schema (its columns, label column and categories):
//! CSV data is then read against it ([`DataArgs::load_as`]): columns found by name, the label column
//! optional, a missing feature column or an unseen category an error naming it.

use crate::data::{DataArgs, Missing};
use crate::families::svm::{self, precomputed};
use crate::families::{kfa, kpca, landmark, railway, ridge};
use crate::output::{CliError, CliResult, add_storage, check_out, write_output};
use crate::resources::with_threads_unless_here;
use kern_core::Samples;
use kern_core::io::Dataset;
use kern_models::widen::WidenFeatures;
use kern_models::{AnyModel, Input, Predictions};
use serde_json::{Value, json};
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
    /// probabilities when the model has them; values for regressors (every output of a multi-output
    /// kernel ridge model, separated by spaces). See --values. For a kernel PCA model (kern kpca
    /// --save): the projections of the points, as CSV with a pc1,...,pcK header and one row per point,
    /// as kern kpca --out writes the training scores. Line i is row i of the data file, so --out is
    /// refused with --missing drop (a dropped row would have no line).
    #[arg(long)]
    out: Option<PathBuf>,
    /// What --out holds: label (one label or value per line), decision (the decision values, one column
    /// per machine or output), or probability (a `labels ...` header line, then the predicted label and
    /// one probability per class). Default: labels, followed by the probabilities when the model has
    /// them. decision: every model that predicts (not kernel PCA); probability: SVC and LIBSVM models
    /// trained with probabilities.
    #[arg(long, value_enum, requires = "out")]
    values: Option<Values>,
    /// With probabilities, label each point by the one-vs-one vote (as without them) instead of its
    /// most probable class (svm-predict -b 1's label, the default).
    #[arg(long)]
    vote_label: bool,
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
        check_out(out, &[&a.data.data, &a.model])?;
    }
    // The worker threads come up while the model and the data are read.
    kern_core::parallel::warm_up(a.threads);
    let mut m = AnyModel::load(&a.model)?;
    let kind = m.kind();
    let csv = a.data.is_csv();
    // CSV data for a model that knows its training file's columns is read against them.
    let schema = m.schema().filter(|_| csv && m.input() == Input::Samples).cloned();
    if a.out.is_some() && csv && a.data.missing == Missing::Drop {
        return Err("--missing drop with --out: --out has one line per row of the data file, and a dropped \
                    row would have none, so the lines would no longer match the rows. Fill in or remove \
                    the rows with missing values (a run without --out lists them in \"dropped_lines\"), \
                    or leave out --missing drop"
            .into());
    }
    // A precomputed kernel's rows are kernel values, not samples: no storage in the summary.
    let (ds, stored) = if m.input() == Input::KernelRows {
        (precomputed::read(&a.data, false)?, None)
    } else if let Some(schema) = &schema {
        let (ds, stored) = a.data.load_as(schema)?;
        (ds, Some(stored))
    } else if m.takes_sparse() {
        let (ds, stored) = a.data.load_sparse()?;
        (ds, Some(stored))
    } else {
        let (ds, stored) = a.data.load()?;
        (ds, Some(stored))
    };
    let x: Cow<'_, Samples> = if let Some(s) = m.scaled() {
        // Raw samples are brought to the training dimension; the model scales them.
        Cow::Owned(to_dim(&ds.samples, s.dim(), csv)?)
    } else if m.input() == Input::KernelRows || matches!(m, AnyModel::Libsvm(_)) {
        Cow::Borrowed(&ds.samples)
    } else if m.can_widen() {
        fit_dim(&ds.samples, &mut m, csv)?
    } else if ds.samples.d() != m.n_features() {
        // Models that do not store samples (KFA, railway, or any model with a CSV schema): the
        // samples are brought to the model's dimension (a LIBSVM file may lack trailing features
        // that are zero in every row).
        Cow::Owned(to_dim(&ds.samples, m.n_features(), csv)?)
    } else {
        Cow::Borrowed(&ds.samples)
    };
    if kind.transforms() {
        if matches!(a.values, Some(Values::Decision | Values::Probability)) {
            return Err(format!(
                "--values decision|probability: a {} model projects the points (its scores are the output)",
                kind.name()
            )
            .into());
        }
        let mut v = kpca::project(&m, &x, &ds, a.out.as_deref(), a.threads)?;
        add_storage(&mut v, stored);
        add_csv(&mut v, &a.data, &ds, &m, schema.is_some());
        return Ok(v);
    }
    if a.values == Some(Values::Probability)
        && let Some(why) = m.why_no_probability()
    {
        return Err(format!("--values probability: {why}").into());
    }
    // Probabilities when they are written: asked for, or by default for kern's own SVCs.
    let proba = a.out.is_some()
        && match a.values {
            Some(Values::Probability) => true,
            None => m.has_probability() && !matches!(m, AnyModel::Libsvm(_)),
            _ => false,
        };
    let plan = m.expansion_plan(&x);
    let t = Instant::now();
    // A serial expansion runs on this thread, as its plan says.
    let mut p = with_threads_unless_here(a.threads, m.predicts_serially(&x), || m.predict_all(&x, proba))??;
    if a.vote_label {
        p.proba_labels = None;
    } else {
        most_probable(&m, &mut p);
    }
    let seconds = t.elapsed().as_secs_f64();
    if let Some(out) = &a.out {
        write_lines(out, &lines(&m, &p, a.values))?;
    }
    let mut summary = summary(&m, &p, &ds);
    summary["seconds"] = json!(seconds);
    if let Some(plan) = plan {
        summary["plan"] = json!({ "expansion": plan.name() });
    }
    summary["scaled"] = json!(m.scaled().is_some());
    add_storage(&mut summary, stored);
    add_csv(&mut summary, &a.data, &ds, &m, schema.is_some());
    Ok(summary)
}

/// Adds what reading CSV data did to the summary: `"csv_schema"` (whether the model has a CSV schema),
/// `"columns_reordered"` (whether the data's feature columns were found at other places than in the
/// training file, `read_as`: the data was read against the schema), and the dropped rows
/// ([`DataArgs::add_rows`]). Nothing for LIBSVM data.
fn add_csv(v: &mut Value, data: &DataArgs, ds: &Dataset, m: &AnyModel, read_as: bool) {
    if !data.is_csv() {
        return;
    }
    data.add_rows(v, ds);
    v["csv_schema"] = json!(m.schema().is_some());
    v["columns_reordered"] = json!(read_as && ds.columns_reordered);
}

/// What `--out` gets.
fn lines(m: &AnyModel, p: &Predictions, values: Option<Values>) -> Vec<String> {
    let rows = |mat: &faer::Mat<f64>| -> Vec<Vec<f64>> {
        (0..mat.nrows()).map(|i| (0..mat.ncols()).map(|j| mat[(i, j)]).collect()).collect()
    };
    match (values, &p.proba) {
        (Some(Values::Decision), _) => rows(&p.decision).iter().map(|r| value_line(r)).collect(),
        (Some(Values::Probability), Some(proba)) => {
            let labels = p.proba_labels.as_ref().unwrap_or(&p.labels);
            let classes = m.classes().unwrap_or_default().join(" ");
            std::iter::once(format!("labels {classes}"))
                .chain(labels.iter().zip(rows(proba)).map(|(l, r)| format!("{l} {}", value_line(&r))))
                .collect()
        }
        (None, Some(proba)) => p
            .labels
            .iter()
            .zip(rows(proba))
            .map(|(l, r)| {
                let ps: Vec<String> = r.iter().map(|v| format!("{v:.6}")).collect();
                format!("{l} {}", ps.join(" "))
            })
            .collect(),
        // A regressor with several outputs (multi-output kernel ridge): every output, as its decision
        // values.
        _ if !m.is_classifier() && p.decision.ncols() > 1 => {
            rows(&p.decision).iter().map(|r| value_line(r)).collect()
        }
        _ => p.labels.clone(),
    }
}

/// Labels every point by its most probable class when the probabilities were computed, as
/// svm-predict -b 1 does (the first class of the model's order on a tie): the labels written and
/// scored. A LIBSVM model's predictions carry these labels already.
fn most_probable(m: &AnyModel, p: &mut Predictions) {
    if let Some(l) = p.proba_labels.take() {
        p.labels = l;
        return;
    }
    let (Some(proba), Some(classes)) = (&p.proba, m.classes()) else { return };
    for (i, label) in p.labels.iter_mut().enumerate() {
        let mut best = 0;
        for j in 1..proba.ncols() {
            if proba[(i, j)] > proba[(i, best)] {
                best = j;
            }
        }
        if let Some(c) = classes.get(best) {
            *label = c.to_string();
        }
    }
}

/// Brings test samples and a model that stores samples to one dimension, by LIBSVM's rule for a
/// LIBSVM file: features beyond the model's are kept, the model's samples being zero there
/// ([`kern_models::widen`]; the model's samples are widened as a sparse store, never densified).
/// Features the file lacks are zeros ([`to_dim`]). A CSV file has every column, so a different column
/// count is an error.
fn fit_dim<'a, M: WidenFeatures>(x: &'a Samples, m: &mut M, csv: bool) -> Result<Cow<'a, Samples>, CliError> {
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
fn to_dim(x: &Samples, d: usize, csv: bool) -> Result<Samples, CliError> {
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

fn write_lines(path: &std::path::Path, lines: &[String]) -> Result<(), CliError> {
    let mut s = lines.join("\n");
    s.push('\n');
    write_output(path, s.as_bytes())
}

/// Decision values of one sample as a line.
fn value_line(v: &[f64]) -> String {
    v.iter().map(|x| format!("{x}")).collect::<Vec<_>>().join(" ")
}

/// The JSON summary: the figures each kind of model reports, its family's.
fn summary(m: &AnyModel, p: &Predictions, ds: &Dataset) -> Value {
    let name = m.learner_name();
    match m.base() {
        AnyModel::Libsvm(l) => svm::predict_libsvm(l, m.is_classifier(), p, ds),
        b @ (AnyModel::Svc(_) | AnyModel::Svr(_) | AnyModel::OneClass(_)) => svm::predict(b, name, p, ds),
        AnyModel::RailwaySvc(_) => railway::predict(name, p, ds),
        AnyModel::Kfa(k) => kfa::predict(k, name, p, ds),
        AnyModel::Nystrom(r) => landmark::predict(r, name, p, ds),
        AnyModel::LsSvm(r) => ridge::predict(r.as_ref(), name, p, ds),
        AnyModel::Krr(r) => ridge::predict(r.as_ref(), name, p, ds),
        _ => json!({ "model": name, "n": ds.samples.n() }),
    }
}
