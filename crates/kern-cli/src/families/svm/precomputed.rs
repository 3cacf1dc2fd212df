//! Precomputed kernels (LIBSVM `-t 4`): reading the files `kern train`, `kern cv` and `kern predict`
//! take with `--kernel precomputed`, the training kernel matrix, and what `kern train` refuses for them.
//!
//! The file format is LIBSVM's: each row is `LABEL 0:SERIAL 1:K(x,x_1) 2:K(x,x_2) …`. In a training
//! file row `i` (from 1) describes training point `i`, so its serial must be `i`, and it holds the
//! kernel values against every training point (entries left out are zeros). In a test file the serial
//! is not used (any number from 1) and row `r` holds the kernel values of test point `r` against the
//! training points; it needs at least as many columns as the model's largest support-vector serial.

use crate::data::DataArgs;
use crate::output::CliError;
use kern_cli::kinds::{ModelKind, Scheme};
use kern_core::Samples;
use kern_core::io::Dataset;
use kern_models::svm::KernelMatrix;
use std::io::BufRead as _;

/// Whether `--kernel` asks for a precomputed kernel.
pub fn is_precomputed(kernel: &str) -> bool {
    kern_cli::cv_flags::is_precomputed(kernel)
}

/// Reads a precomputed-kernel file (`-`: standard input; a name ending in `.gz` is decompressed, as
/// for every other data file): labels and the kernel rows without their `0:` entry (`training`: row
/// `i` must be `0:i`).
pub fn read(data: &DataArgs, training: bool) -> Result<Dataset, CliError> {
    let name = data.data.display().to_string();
    if data.is_csv() {
        return Err(format!(
            "{name}: precomputed kernels are read from LIBSVM-format files (LABEL 0:SERIAL 1:K1 2:K2 ...), not CSV"
        )
        .into());
    }
    let reader = kern_core::io::open_lines(data.source())?;
    let (mut labels, mut rows): (Vec<String>, Vec<Vec<(usize, f64)>>) = (Vec::new(), Vec::new());
    let mut width = 0;
    for (ln, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| format!("{name}: {e}"))?;
        let line = line.split('#').next().unwrap_or("");
        let mut toks = line.split_ascii_whitespace();
        let Some(label) = toks.next() else { continue };
        let at = |what: String| -> CliError { format!("{name}, line {}: {what}", ln + 1).into() };
        let entry = |t: &str| -> Result<(usize, f64), CliError> {
            let (i, v) = t.split_once(':').ok_or_else(|| at(format!("{t:?} is not INDEX:VALUE")))?;
            let i: usize = i.parse().map_err(|_| at(format!("{t:?}: the index is not a whole number")))?;
            let v: f64 = v
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| at(format!("{t:?}: the value is not a finite number")))?;
            Ok((i, v))
        };
        let first = toks.next().map(entry).transpose()?;
        let serial = match first {
            Some((0, s)) if s >= 1.0 && s.fract() == 0.0 => s,
            _ => {
                return Err(at("a precomputed-kernel row starts with 0:SERIAL, the number of a training \
                               point from 1 (LIBSVM's format for -t 4)"
                    .into()));
            }
        };
        let row_no = rows.len() + 1;
        if training && serial != row_no as f64 {
            return Err(at(format!(
                "training row {row_no} has serial 0:{serial}; training rows are numbered 0:1, 0:2, ... in order"
            )));
        }
        let mut row: Vec<(usize, f64)> = Vec::new();
        for t in toks {
            let (i, v) = entry(t)?;
            if i == 0 || row.last().is_some_and(|&(p, _)| p >= i) {
                return Err(at(format!("{t:?}: kernel columns are numbered from 1, in ascending order")));
            }
            row.push((i, v));
        }
        width = width.max(row.last().map_or(0, |&(i, _)| i));
        labels.push(label.to_string());
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(format!("{name}: no rows").into());
    }
    let n = rows.len();
    let mut data = vec![0.0; n * width.max(1)];
    let w = width.max(1);
    for (r, row) in rows.iter().enumerate() {
        for &(i, v) in row {
            data[r * w + i - 1] = v;
        }
    }
    let samples = Samples::from_flat(data, n, w)?;
    Ok(Dataset::new(samples, labels, Vec::new()))
}

/// The training kernel matrix of a training file's rows: the first `n` columns (extra ones are not used,
/// as in LIBSVM).
pub fn kernel_matrix(ds: &Dataset) -> Result<KernelMatrix, CliError> {
    let n = ds.samples.n();
    if ds.samples.d() < n {
        return Err(format!(
            "the training file has {n} rows but kernel values for only {} training points: each row needs \
             columns 1 to {n}",
            ds.samples.d()
        )
        .into());
    }
    let rows: Vec<&[f64]> = (0..n).map(|i| &ds.samples.row(i)[..n]).collect();
    Ok(KernelMatrix::from_rows(&rows)?)
}

/// Refuses before reading what `kern train --kernel precomputed` cannot do for `model`: scale
/// kernel values (`scaled`: --scale or --scale-file given), train other models than the SVMs, or
/// write a one-vs-rest model as a LIBSVM file (`libsvm`: --format libsvm given).
pub fn check_training(model: ModelKind, scaled: bool, libsvm: bool, scheme: Scheme) -> Result<(), CliError> {
    if scaled {
        return Err("--kernel precomputed: the file holds kernel values, which --scale and --scale-file \
                    do not apply to"
            .into());
    }
    if !model.is_svm() {
        return Err(format!(
            "--kernel precomputed trains the SVMs (--model svc, nu-svc, one-class, svr or nu-svr), not \
             --model {}",
            model.name()
        )
        .into());
    }
    if libsvm && scheme == Scheme::Ovr {
        return Err("--format libsvm needs --multiclass ovo: LIBSVM models are one-vs-one".into());
    }
    Ok(())
}

/// The kernel as the JSON summaries name it.
pub fn kernel_name(precomputed: bool, kernel: &kern_core::KernelSpec) -> String {
    if precomputed { "precomputed".to_string() } else { kernel.to_string() }
}
