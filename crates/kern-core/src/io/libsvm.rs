//! LIBSVM / svmlight text format: `LABEL INDEX:VALUE ... [# comment]`, 1-based ascending indices,
//! omitted entries are zero, `qid:N` is ignored.

use super::{Dataset, io_err, normalize_label, open_lines, parse_err, write_atomic};
use crate::error::{CoreError, Result};
use crate::samples::Samples;
use std::io::BufRead;
use std::path::Path;

/// Reads a LIBSVM/svmlight file. The dimension is the largest index seen, or `dim` when given (an index
/// beyond `dim` is then an error). Blank lines and lines starting with `#` are skipped.
///
/// ```
/// let p = std::env::temp_dir().join("kern-doc-libsvm.txt");
/// std::fs::write(&p, "# heart\n2 qid:3 1:1.5 4:-2 # note\n4 2:1\n").unwrap();
/// let ds = kern_core::io::read_libsvm(&p, None)?;
/// assert_eq!(ds.samples.row(0), &[1.5, 0.0, 0.0, -2.0]);
/// assert_eq!(ds.labels, vec!["2", "4"]);
/// std::fs::write(&p, "1 2:1 1:3\n").unwrap();
/// let err = kern_core::io::read_libsvm(&p, None).unwrap_err().to_string();
/// assert!(err.contains(":1:"), "{err}");
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn read_libsvm(path: &Path, dim: Option<usize>) -> Result<Dataset> {
    let reader = open_lines(path)?;
    let mut labels = Vec::new();
    let mut rows: Vec<Vec<(usize, f64)>> = Vec::new();
    let mut max_index = 0usize;
    for (ln, line) in reader.lines().enumerate() {
        let lineno = ln + 1;
        let line = line.map_err(|e| io_err(path, e))?;
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let mut tokens = content.split_ascii_whitespace();
        let label = tokens.next().unwrap_or_default();
        let lv: f64 =
            label.parse().map_err(|_| parse_err(path, lineno, format!("label {label:?} is not a number")))?;
        if !lv.is_finite() {
            return Err(parse_err(path, lineno, format!("label {label:?} is not finite")));
        }
        let mut row = Vec::new();
        let mut last = 0usize;
        for tok in tokens {
            let (idx, val) = tok
                .split_once(':')
                .ok_or_else(|| parse_err(path, lineno, format!("expected INDEX:VALUE, got {tok:?}")))?;
            if idx == "qid" {
                continue;
            }
            let idx: usize = idx
                .parse()
                .map_err(|_| parse_err(path, lineno, format!("index {idx:?} is not a positive integer")))?;
            if idx == 0 {
                return Err(parse_err(path, lineno, "indices are 1-based; found 0"));
            }
            if idx <= last {
                return Err(parse_err(path, lineno, format!("indices must ascend: {idx} after {last}")));
            }
            if let Some(d) = dim
                && idx > d
            {
                return Err(parse_err(path, lineno, format!("index {idx} exceeds dimension {d}")));
            }
            let v: f64 =
                val.parse().map_err(|_| parse_err(path, lineno, format!("value {val:?} is not a number")))?;
            if !v.is_finite() {
                return Err(parse_err(path, lineno, format!("value {val:?} is not finite")));
            }
            last = idx;
            row.push((idx, v));
        }
        max_index = max_index.max(last);
        labels.push(normalize_label(label));
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(parse_err(path, 0, "no data rows"));
    }
    let d = dim.unwrap_or(max_index);
    if d == 0 {
        return Err(parse_err(path, 0, "no features (every row is empty)"));
    }
    let mut data = vec![0.0; rows.len() * d];
    for (i, r) in rows.iter().enumerate() {
        for &(idx, v) in r {
            data[i * d + idx - 1] = v;
        }
    }
    let samples = Samples::from_flat(data, rows.len(), d)?;
    Ok(Dataset { samples, labels, feature_names: (1..=d).map(|j| format!("f{j}")).collect() })
}

/// Writes samples and labels in LIBSVM format (zeros omitted, values at full round-trip precision),
/// atomically (see [`super::write_atomic`]).
///
/// ```
/// use kern_core::{Samples, io::{read_libsvm, write_libsvm}};
/// let x = Samples::from_rows(&[[0.0, 1.25], [3.0, 0.0]])?;
/// let p = std::env::temp_dir().join("kern-doc-write.svm");
/// write_libsvm(&p, &x, &["1", "-1"])?;
/// let back = read_libsvm(&p, Some(2))?;
/// assert_eq!(back.samples, x);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn write_libsvm<S: AsRef<str>>(path: &Path, x: &Samples, labels: &[S]) -> Result<()> {
    use std::fmt::Write;
    if labels.len() != x.n() {
        return Err(CoreError::Targets(format!("{} labels for {} samples", labels.len(), x.n())));
    }
    let mut out = String::with_capacity(x.n() * (8 + 12 * x.d().min(64)));
    for (row, label) in x.rows().zip(labels) {
        let label = label.as_ref();
        if label.is_empty() || label.contains(char::is_whitespace) || label.contains('#') {
            return Err(CoreError::Targets(format!("label {label:?} cannot be written to a LIBSVM file")));
        }
        out.push_str(label);
        for (j, &v) in row.iter().enumerate() {
            if v != 0.0 {
                let _ = write!(out, " {}:{}", j + 1, v);
            }
        }
        out.push('\n');
    }
    write_atomic(path, out.as_bytes())
}
