//! LIBSVM / svmlight text format: `LABEL INDEX:VALUE ... [# comment]`, 1-based ascending indices,
//! omitted entries are zero, `qid:N` is ignored.

use super::{Dataset, io_err, normalize_label, open_lines, parse_err, write_atomic};
use crate::error::{CoreError, Result};
use crate::samples::{SampleRef, Samples, StoragePolicy};
use std::io::BufRead;
use std::path::Path;

/// Options of [`read_libsvm_with`].
///
/// ```
/// let o = kern_core::io::LibsvmOptions::default();
/// assert_eq!((o.dim, o.storage), (None, kern_core::StoragePolicy::Auto));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LibsvmOptions {
    /// The dimension; `None` takes the largest index seen (an index beyond a given `dim` is an error).
    pub dim: Option<usize>,
    /// Which store the samples get: [`StoragePolicy::Auto`] keeps the file's sparsity (sparse at
    /// most [`Samples::AUTO_SPARSE_DENSITY`] nonzero, dense above).
    pub storage: StoragePolicy,
}

/// Reads a LIBSVM/svmlight file with the default storage policy ([`StoragePolicy::Auto`]). The
/// dimension is the largest index seen, or `dim` when given (an index beyond `dim` is then an error).
/// Blank lines and lines starting with `#` are skipped. See [`read_libsvm_with`].
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
    read_libsvm_with(path, &LibsvmOptions { dim, storage: StoragePolicy::Auto })
}

/// Reads a LIBSVM/svmlight file into the store `opts.storage` asks for.
///
/// The file is parsed straight into compressed sparse rows, so memory is `O(n + nnz)` whatever the
/// largest index (up to [`Samples::MAX_DIM`]; a larger index is a parse error naming the limit); only
/// a dense result allocates `n · d` (and fails with [`CoreError::DenseTooLarge`] beyond
/// [`Samples::MAX_DENSE_VALUES`]). Feature names are `f1..fd` for a dense store and empty for a sparse
/// one.
///
/// ```
/// use kern_core::{Storage, StoragePolicy, io::{LibsvmOptions, read_libsvm_with}};
/// let p = std::env::temp_dir().join("kern-doc-libsvm-huge.txt");
/// std::fs::write(&p, "1 3:1 1099511627776:0.5\n-1 7:2\n").unwrap(); // index 2^40
/// let ds = read_libsvm_with(&p, &LibsvmOptions::default())?;
/// assert_eq!((ds.samples.storage(), ds.samples.d(), ds.samples.nnz()), (Storage::Sparse, 1 << 40, 3));
/// let dense = LibsvmOptions { storage: StoragePolicy::Dense, ..Default::default() };
/// assert!(read_libsvm_with(&p, &dense).is_err()); // 2 × 2^40 values: refused, not allocated
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn read_libsvm_with(path: &Path, opts: &LibsvmOptions) -> Result<Dataset> {
    let dim = opts.dim;
    let reader = open_lines(path)?;
    let mut labels = Vec::new();
    let mut indptr = vec![0usize];
    let (mut indices, mut values) = (Vec::new(), Vec::new());
    let mut max_index = 0usize;
    for (ln, line) in reader.lines().enumerate() {
        let lineno = ln + 1;
        let line = line.map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => parse_err(
                path,
                lineno,
                "not UTF-8 text (a binary file, or a compressed one whose name does not end in .gz?)",
            ),
            _ => io_err(path, e),
        })?;
        let start = indices.len();
        match parse_libsvm_line(&line, dim, &mut indices, &mut values) {
            Ok(Some(label)) => labels.push(label),
            Ok(None) => continue,
            Err(reason) => return Err(parse_err(path, lineno, reason)),
        }
        if indices.len() > start {
            max_index = max_index.max(indices[indices.len() - 1] + 1);
        }
        indptr.push(indices.len());
    }
    if labels.is_empty() {
        return Err(parse_err(path, 0, "no data rows"));
    }
    let d = dim.unwrap_or(max_index);
    if d == 0 {
        return Err(parse_err(path, 0, "no features (every row is empty)"));
    }
    let samples = Samples::from_csr(labels.len(), d, indptr, indices, values)?.with_storage(opts.storage)?;
    let feature_names =
        if samples.is_sparse() { Vec::new() } else { (1..=d).map(|j| format!("f{j}")).collect() };
    Ok(Dataset::new(samples, labels, feature_names))
}

/// Parses one line of a LIBSVM/svmlight file, the parser [`read_libsvm_with`] applies to every line;
/// public so that a reader of part of a file (a byte range) parses exactly as the whole-file reader.
///
/// Appends the row's entries to `indices` (0-based, ascending) and `values` and returns its label
/// (normalized as in [`Dataset::labels`]); a blank or comment-only line gives `Ok(None)` and appends
/// nothing. An error is the reason the line is malformed (the caller adds file and line); entries of a
/// malformed line may have been appended.
///
/// ```
/// let (mut idx, mut val) = (Vec::new(), Vec::new());
/// let label = kern_core::io::parse_libsvm_line("+1 2:0.5 7:1 # c", None, &mut idx, &mut val);
/// assert_eq!(label, Ok(Some("1".to_string())));
/// assert_eq!((idx, val), (vec![1, 6], vec![0.5, 1.0]));
/// assert_eq!(kern_core::io::parse_libsvm_line("  # only a comment", None, &mut vec![], &mut vec![]), Ok(None));
/// assert!(kern_core::io::parse_libsvm_line("1 3:1 2:1", None, &mut vec![], &mut vec![]).is_err());
/// ```
pub fn parse_libsvm_line(
    line: &str,
    dim: Option<usize>,
    indices: &mut Vec<usize>,
    values: &mut Vec<f64>,
) -> std::result::Result<Option<String>, String> {
    let content = line.split('#').next().unwrap_or("").trim();
    if content.is_empty() {
        return Ok(None);
    }
    let mut tokens = content.split_ascii_whitespace();
    let label = tokens.next().unwrap_or_default();
    let lv: f64 = label.parse().map_err(|_| format!("label {label:?} is not a number"))?;
    if !lv.is_finite() {
        return Err(format!("label {label:?} is not finite"));
    }
    let mut last = 0usize;
    for tok in tokens {
        let (idx, val) = tok.split_once(':').ok_or_else(|| format!("expected INDEX:VALUE, got {tok:?}"))?;
        if idx == "qid" {
            continue;
        }
        let idx: usize = idx.parse().map_err(|_| format!("index {idx:?} is not a positive integer"))?;
        if idx == 0 {
            return Err("indices are 1-based; found 0".into());
        }
        if idx <= last {
            return Err(format!("indices must ascend: {idx} after {last}"));
        }
        if let Some(d) = dim
            && idx > d
        {
            return Err(format!("index {idx} exceeds dimension {d}"));
        }
        if idx > Samples::MAX_DIM {
            return Err(format!("index {idx} exceeds the largest supported dimension {}", Samples::MAX_DIM));
        }
        let v: f64 = val.parse().map_err(|_| format!("value {val:?} is not a number"))?;
        if !v.is_finite() {
            return Err(format!("value {val:?} is not finite"));
        }
        last = idx;
        indices.push(idx - 1);
        values.push(v);
    }
    Ok(Some(normalize_label(label)))
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
    let mut out = String::with_capacity(x.n() * 8 + 12 * x.nnz().min(1 << 24));
    for (row, label) in x.samples().zip(labels) {
        let label = label.as_ref();
        if label.is_empty() || label.contains(char::is_whitespace) || label.contains('#') {
            return Err(CoreError::Targets(format!("label {label:?} cannot be written to a LIBSVM file")));
        }
        out.push_str(label);
        let mut put = |j: usize, v: f64| {
            if v != 0.0 {
                let _ = write!(out, " {}:{}", j + 1, v);
            }
        };
        match row {
            SampleRef::Dense(r) => r.iter().enumerate().for_each(|(j, &v)| put(j, v)),
            SampleRef::Sparse { indices, values } => {
                indices.iter().zip(values).for_each(|(&j, &v)| put(j, v))
            }
        }
        out.push('\n');
    }
    write_atomic(path, out.as_bytes())
}
