//! Data files: LIBSVM/svmlight text ([`read_libsvm`], [`write_libsvm`]) and CSV ([`read_csv`], and
//! [`read_csv_as`] for test data read against the training file's [`CsvSchema`]).
//!
//! Both readers accept gzip-compressed files (name ending in `.gz`; feature `gzip`, on by default), return a [`Dataset`] (validated
//! samples plus the raw label column) and report malformed input as [`crate::CoreError::Parse`] with
//! the file and 1-based line. [`read_data`] picks the format by file name, as the `kern` command does.
//!
//! ```
//! use kern_core::Samples;
//! use kern_core::io::{CsvOptions, read_data, write_libsvm};
//! let x = Samples::from_rows(&[[0.5, 0.0, -2.0], [0.0, 1.0 / 3.0, 0.0]])?;
//! let p = std::env::temp_dir().join("kern-doc-io-module.svm");
//! write_libsvm(&p, &x, &["1", "-1"])?;
//! let back = read_data(&p, &CsvOptions::default())?; // not `.csv`: read as LIBSVM
//! assert_eq!(back.samples, x); // values written at full precision
//! assert_eq!(back.labels, ["1", "-1"]);
//! # Ok::<(), kern_core::CoreError>(())
//! ```

mod csv;
mod csv_schema;
mod libsvm;
mod write;

pub use self::csv::{
    CsvOptions, HEADER_SAMPLE, LabelColumn, MissingPolicy, looks_like_header, read_csv, read_csv_as,
};
pub use self::csv_schema::{CsvFeature, CsvSchema};
pub use self::libsvm::{LibsvmOptions, parse_libsvm_line, read_libsvm, read_libsvm_with, write_libsvm};
pub use self::write::{
    WriteOptions, ensure_distinct, exit_broken_pipe, is_stdout, write_atomic, write_file, write_file_with,
    write_stdout,
};

use crate::error::{CoreError, Result};
use crate::samples::Samples;
use crate::targets::{BinaryTargets, ClassTargets, RealTargets, label_name};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Samples with their label column as read from a file.
///
/// Labels are kept as text: a LIBSVM file's labels are numbers and are normalized (`+1`, `1` and `1.0`
/// are the label `1`); a CSV file's labels are its text as written (`02134` stays `02134`). Turn them
/// into targets with [`Dataset::binary`], [`Dataset::classes`] or [`Dataset::real`]: when every label
/// parses as a number, labels are compared and sorted as numbers (`1` and `1.0` are one class, named
/// by its first spelling in text order; `02134` and `2134` would be one class too), otherwise as text.
/// A label naming NaN or an infinity is an error, never a class.
///
/// ```
/// use kern_core::io::{read_libsvm, Dataset};
/// let dir = std::env::temp_dir().join("kern-doc-dataset");
/// std::fs::create_dir_all(&dir).unwrap();
/// let p = dir.join("a.svm");
/// std::fs::write(&p, "+1 1:0.5 3:2\n-1 2:1\n").unwrap();
/// let ds: Dataset = read_libsvm(&p, None)?;
/// assert_eq!((ds.samples.n(), ds.samples.d()), (2, 3));
/// assert_eq!(ds.binary()?.y(), &[1.0, -1.0]);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    /// The feature rows.
    pub samples: Samples,
    /// The label of each row (empty strings when the file has no label column).
    pub labels: Vec<String>,
    /// Feature names (from a CSV header, else `f1..fd`; empty for a sparse store, whose `d` may be huge).
    pub feature_names: Vec<String>,
    /// The CSV schema of the file ([`read_csv`]) or the training schema it was read against
    /// ([`read_csv_as`]); `None` for other formats.
    pub schema: Option<CsvSchema>,
    /// The 1-based lines of rows dropped for a missing value ([`MissingPolicy::Drop`]; empty
    /// otherwise): with them, every input row is accounted for.
    pub dropped_lines: Vec<usize>,
    /// Whether [`read_csv_as`] found a feature column at another place than in the training file
    /// (a header in another order; a test file without the label column, or with extra columns,
    /// counts only when a feature column moved). False for every other reader.
    pub columns_reordered: bool,
}

impl Dataset {
    /// A dataset of samples and labels, without schema or dropped lines.
    ///
    /// ```
    /// use kern_core::{Samples, io::Dataset};
    /// let ds = Dataset::new(Samples::from_rows(&[[0.0], [1.0]])?, vec!["a".into(), "b".into()], vec![]);
    /// assert!(ds.has_labels() && ds.schema.is_none() && ds.dropped_lines.is_empty());
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn new(samples: Samples, labels: Vec<String>, feature_names: Vec<String>) -> Self {
        Dataset {
            samples,
            labels,
            feature_names,
            schema: None,
            dropped_lines: Vec::new(),
            columns_reordered: false,
        }
    }

    /// Whether the file had labels (a label column; [`read_csv_as`] reads test data without one).
    pub fn has_labels(&self) -> bool {
        self.labels.iter().any(|l| !l.is_empty())
    }

    /// Labels as ±1 targets (exactly two distinct labels).
    pub fn binary(&self) -> Result<BinaryTargets> {
        BinaryTargets::from_labels(&self.labels)
    }

    /// Labels as class targets (at least two distinct labels).
    pub fn classes(&self) -> Result<ClassTargets> {
        ClassTargets::from_labels(&self.labels)
    }

    /// Labels as real targets (every label a finite number).
    pub fn real(&self) -> Result<RealTargets> {
        let v: Result<Vec<f64>> = self
            .labels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                l.trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
                    CoreError::Targets(format!(
                        "the label of sample {i} (counting from 0) is {l:?}, not a finite number"
                    ))
                })
            })
            .collect();
        RealTargets::new(v?)
    }

    /// Label counts, sorted as the class names are.
    pub fn label_counts(&self) -> Vec<(String, usize)> {
        match self.classes() {
            Ok(c) => c.names().iter().cloned().zip(c.counts()).collect(),
            Err(_) => {
                let mut v: Vec<(String, usize)> = Vec::new();
                for l in &self.labels {
                    match v.iter_mut().find(|(k, _)| k == l) {
                        Some(e) => e.1 += 1,
                        None => v.push((l.clone(), 1)),
                    }
                }
                v
            }
        }
    }
}

/// Reads a data file, choosing CSV when the name ends in `.csv` or `.csv.gz` and LIBSVM otherwise.
///
/// ```
/// let dir = std::env::temp_dir().join("kern-doc-read-data");
/// std::fs::create_dir_all(&dir).unwrap();
/// let p = dir.join("a.csv");
/// std::fs::write(&p, "x,y,label\n1,2,a\n3,4,b\n").unwrap();
/// let ds = kern_core::io::read_data(&p, &kern_core::io::CsvOptions::default())?;
/// assert_eq!(ds.labels, vec!["a", "b"]);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn read_data(path: &Path, csv: &CsvOptions) -> Result<Dataset> {
    let name = path.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".csv") || name.ends_with(".csv.gz") {
        read_csv(path, csv)
    } else {
        read_libsvm(path, None)
    }
}

pub(crate) fn normalize_label(s: &str) -> String {
    let t = s.trim().trim_matches('"');
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => label_name(v),
        _ => t.to_string(),
    }
}

/// Opens a text file for reading line by line, as every reader of this module does: a name ending in
/// `.gz` is decompressed on the fly (feature `gzip`; concatenated gzip members are read in turn), any
/// other file is read as is. For a format this module does not parse (the `kern` command's
/// precomputed-kernel files, for instance), so that it takes the same files as the others.
///
/// ```
/// use std::io::BufRead;
/// let dir = std::env::temp_dir().join("kern-doc-open-lines");
/// std::fs::create_dir_all(&dir).unwrap();
/// let p = dir.join("a.txt");
/// std::fs::write(&p, "first\nsecond\n").unwrap();
/// let lines: Vec<String> = kern_core::io::open_lines(&p)?.lines().collect::<Result<_, _>>().unwrap();
/// assert_eq!(lines, ["first", "second"]);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn open_lines(path: &Path) -> Result<Box<dyn BufRead>> {
    let f = std::fs::File::open(path).map_err(|e| io_err(path, e))?;
    let r: Box<dyn Read> =
        if path.extension().is_some_and(|e| e == "gz") { gunzip(path, f)? } else { Box::new(f) };
    Ok(Box::new(BufReader::with_capacity(1 << 16, r)))
}

#[cfg(feature = "gzip")]
fn gunzip(_path: &Path, f: std::fs::File) -> Result<Box<dyn Read>> {
    Ok(Box::new(flate2::read::MultiGzDecoder::new(f)))
}

#[cfg(not(feature = "gzip"))]
fn gunzip(path: &Path, _f: std::fs::File) -> Result<Box<dyn Read>> {
    Err(io_err(
        path,
        std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "reading .gz files needs kern-core's `gzip` feature (decompress the file, or enable the feature)",
        ),
    ))
}

pub(crate) fn io_err(path: &Path, source: std::io::Error) -> CoreError {
    CoreError::Io { path: path.to_path_buf(), source }
}

pub(crate) fn parse_err(path: &Path, line: usize, reason: impl Into<String>) -> CoreError {
    CoreError::Parse { path: PathBuf::from(path), line, reason: reason.into() }
}
