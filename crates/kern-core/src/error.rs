//! The error type of kern-core.

use std::path::PathBuf;

/// Everything that can go wrong in kern-core: invalid data, invalid kernel parameters, malformed files.
///
/// ```
/// use kern_core::{CoreError, Samples};
/// let err = Samples::from_rows(&[vec![1.0, 2.0], vec![3.0]]).unwrap_err();
/// assert!(matches!(err, CoreError::Ragged { row: 1, expected: 2, found: 1 }));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CoreError {
    /// No samples, or samples with no features.
    #[error("empty data: {0}")]
    Empty(&'static str),
    /// A row has a different number of features than the first row.
    #[error("ragged data: row {row} has {found} features, expected {expected}")]
    Ragged {
        /// Zero-based row index.
        row: usize,
        /// Number of features of the first row.
        expected: usize,
        /// Number of features of this row.
        found: usize,
    },
    /// A value is NaN or infinite.
    #[error("non-finite value {value} at row {row}, column {col}")]
    NonFinite {
        /// Zero-based row index.
        row: usize,
        /// Zero-based column index.
        col: usize,
        /// The offending value.
        value: f64,
    },
    /// A flat buffer whose length does not equal rows × columns.
    #[error("shape mismatch: {len} values cannot form {rows} x {cols}")]
    Shape {
        /// Buffer length.
        len: usize,
        /// Requested rows.
        rows: usize,
        /// Requested columns.
        cols: usize,
    },
    /// CSR row pointers that do not describe the rows (wrong count, not ascending from 0 to the number
    /// of nonzeros), or index and value arrays of different lengths.
    #[error("invalid sparse (CSR) samples: {reason}")]
    CsrPointers {
        /// What is wrong.
        reason: String,
    },
    /// The column indices of a sparse row do not ascend.
    #[error(
        "invalid sparse (CSR) samples: row {row} has column {col} after column {after}; indices must ascend"
    )]
    CsrUnsorted {
        /// Zero-based row index.
        row: usize,
        /// The out-of-order column.
        col: usize,
        /// The column before it.
        after: usize,
    },
    /// A sparse row holds the same column twice.
    #[error("invalid sparse (CSR) samples: row {row} holds column {col} twice")]
    CsrDuplicate {
        /// Zero-based row index.
        row: usize,
        /// The repeated column.
        col: usize,
    },
    /// A sparse row holds a column index not below the dimension.
    #[error("invalid sparse (CSR) samples: row {row} has column {col}, but the dimension is {d}")]
    CsrIndexOutOfRange {
        /// Zero-based row index.
        row: usize,
        /// The offending column (zero-based).
        col: usize,
        /// The dimension.
        d: usize,
    },
    /// A sparse sample set too large to be made dense for an operation that needs dense samples.
    #[error(
        "{what} needs dense samples, but {n} x {d} sparse samples would take {} dense values \
         (limit {limit}); reduce the data or the feature count",
        (*n as u128) * (*d as u128)
    )]
    DenseTooLarge {
        /// The operation that needs dense samples.
        what: &'static str,
        /// Number of samples.
        n: usize,
        /// Dimension.
        d: usize,
        /// The largest `n · d` made dense.
        limit: usize,
    },
    /// Targets and samples disagree in count, or targets have the wrong label set.
    #[error("invalid targets: {0}")]
    Targets(String),
    /// Two inputs that must share the feature dimension do not.
    #[error("dimension mismatch: {what} has dimension {found}, expected {expected}")]
    Dimension {
        /// What was compared.
        what: &'static str,
        /// Expected dimension.
        expected: usize,
        /// Found dimension.
        found: usize,
    },
    /// A sample value outside the domain of the kernel (a negative feature for the chi2 kernel).
    #[error("sample {row}, feature {col} is {value}: {reason}")]
    Domain {
        /// The kernel's spec name.
        kernel: &'static str,
        /// Zero-based row index.
        row: usize,
        /// Zero-based column index.
        col: usize,
        /// The offending value.
        value: f64,
        /// What the kernel's domain is.
        reason: &'static str,
    },
    /// A hyperparameter outside its valid range.
    #[error("invalid parameter {name} = {value}: {reason}")]
    Param {
        /// Parameter name as in the kernel spec syntax.
        name: &'static str,
        /// The rejected value.
        value: f64,
        /// What the valid range is.
        reason: &'static str,
    },
    /// A kernel spec string that cannot be parsed.
    #[error("invalid kernel spec {spec:?}: {reason}")]
    Spec {
        /// The spec as given.
        spec: String,
        /// What is wrong and what is valid.
        reason: String,
    },
    /// A CSV input schema that is not consistent (a stored one, read back).
    #[error("invalid CSV schema: {0}")]
    Schema(String),
    /// A malformed data file; `line` is 1-based.
    #[error("{}:{line}: {reason}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// An allocation that does not fit the memory available (see [`crate::memory`]).
    #[error(
        "out of memory: {what} needs {} but {} is available ({source_name}){}",
        crate::memory::human(*needed),
        crate::memory::human(*available),
        if instead.is_empty() { String::new() } else { format!("; {instead}") }
    )]
    Memory {
        /// What would be allocated.
        what: String,
        /// Bytes it needs.
        needed: u64,
        /// Bytes available.
        available: u64,
        /// Where the budget comes from ([`crate::memory::LIMIT_SOURCE`], `cgroup limit`, `MemAvailable`,
        /// `allocator`).
        source_name: &'static str,
        /// What to do instead (a sparse, iterative or landmark path, or
        /// [`crate::memory::RAISE_LIMIT`]).
        instead: String,
    },
    /// A size computation that overflows the machine's integers (no memory could hold it).
    #[error("size overflow: {what} is larger than any memory can hold")]
    SizeOverflow {
        /// What was being sized.
        what: String,
    },
    /// A kernel value, objective or prediction that is NaN or infinite.
    #[error("numerical fault: {0}")]
    Numerical(String),
    /// The threads of a worker pool could not be started.
    #[error("could not start {threads} worker threads: {reason}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// The system's reason.
        reason: String,
    },
    /// An output path that is one of the input files.
    #[error("refusing to write {}: it is the input file {}; choose another output path", out.display(), input.display())]
    Clobber {
        /// The output path.
        out: PathBuf,
        /// The input it resolves to.
        input: PathBuf,
    },
    /// An existing output file the user has no write permission for, which is not replaced unless
    /// forced.
    #[error(
        "refusing to replace {}: it is write-protected; write with the force option (with_force) to \
         replace it, or remove it first",
        path.display()
    )]
    WriteProtected {
        /// The output path.
        path: PathBuf,
    },
    /// Standard output's reader went away (a closed pipe, as in `... | head -1`): a program ends
    /// quietly on it (see [`crate::io::exit_broken_pipe`]).
    #[error("standard output was closed by the program reading it (broken pipe)")]
    BrokenPipe,
    /// Standard output is closed, so nothing written to it can go anywhere.
    #[error(
        "standard output is closed, so the output cannot be written; redirect it to a file (or to /dev/null \
         to discard it) instead of closing it"
    )]
    StdoutClosed,
    /// An I/O error with the path it concerns.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Result alias of kern-core.
///
/// ```
/// use kern_core::{Result, Samples};
/// fn dimension(rows: &[[f64; 2]]) -> Result<usize> {
///     Ok(Samples::from_rows(rows)?.d())
/// }
/// assert_eq!(dimension(&[[1.0, 2.0]])?, 2);
/// assert!(dimension(&[[f64::NAN, 0.0]]).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub type Result<T, E = CoreError> = std::result::Result<T, E>;

/// Checks that a parameter is finite and strictly positive.
pub(crate) fn positive(name: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(CoreError::Param { name, value, reason: "must be finite and > 0" })
    }
}

/// Checks that a parameter is finite.
pub(crate) fn finite(name: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(CoreError::Param { name, value, reason: "must be finite" })
    }
}
