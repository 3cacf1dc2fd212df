//! Row-distributed data: each rank reads only its byte range of a LIBSVM or CSV file (see
//! [`crate::split`]), so memory per rank is `O(n/P)`; the dimension is agreed by an allreduce-max,
//! row offsets and line numbers by one allgather, and a bad line on any rank stops every rank with
//! the same error ([`crate::agree`]).
//!
//! ```
//! use kern_dist::{rows::read_part, threads::run_threads};
//! let p = std::env::temp_dir().join(format!("kern-doc-rows-mod-{}.svm", std::process::id()));
//! std::fs::write(&p, "1 1:1\n2 2:1\n3 1:2\n4 4:5\n5 1:3\n").unwrap();
//! // Two ranks each read their byte range: the parts agree on the shape and hold the rows in order.
//! let parts = run_threads(2, |c| read_part(c, &p, &Default::default()).unwrap());
//! assert!(parts.iter().all(|r| (r.n_total, r.d) == (5, 4)));
//! let labels: Vec<&str> = parts.iter().flat_map(|r| r.labels.iter().map(String::as_str)).collect();
//! assert_eq!(labels, ["1", "2", "3", "4", "5"]);
//! assert_eq!(parts[1].row_offset, parts[0].n_local());
//! # std::fs::remove_file(&p).unwrap();
//! ```

use crate::comm::{Comm, agree, offset_and_total};
use crate::error::{DistError, Result};
use crate::split::{LineError, byte_range, for_each_line};
use kern_core::io::{CsvOptions, parse_libsvm_line};
use kern_core::{CoreError, Samples, StoragePolicy};
use std::path::{Path, PathBuf};

/// This rank's rows of a file read in parts.
///
/// ```
/// use kern_dist::{rows::read_part, SingleProcess};
/// let p = std::env::temp_dir().join("kern-doc-rows.svm");
/// std::fs::write(&p, "1 1:0.5\n-1 2:2\n").unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// assert_eq!((part.n_total, part.d, part.row_offset, part.labels.len()), (2, 2, 0, 2));
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_dist::DistError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct DistRows {
    /// This rank's rows (`None` when the rank owns no row: a part inside one long line, or more
    /// ranks than rows).
    pub samples: Option<Samples>,
    /// The label of each of this rank's rows.
    pub labels: Vec<String>,
    /// Index of this rank's first row in the whole file.
    pub row_offset: usize,
    /// Rows over all ranks.
    pub n_total: usize,
    /// The dimension agreed by all ranks.
    pub d: usize,
    /// The 1-based lines of the file, among this rank's, whose rows were dropped for a missing value
    /// (CSV with the drop policy), as `kern_core::io::Dataset::dropped_lines` counts them.
    pub dropped_lines: Vec<usize>,
}

impl DistRows {
    /// Rows on this rank.
    ///
    /// ```
    /// # use kern_dist::{rows::read_part, SingleProcess};
    /// # let p = std::env::temp_dir().join("kern-doc-rows-n.svm");
    /// # std::fs::write(&p, "1 1:0.5\n").unwrap();
    /// assert_eq!(read_part(&SingleProcess, &p, &Default::default())?.n_local(), 1);
    /// # std::fs::remove_file(&p).unwrap();
    /// # Ok::<(), kern_dist::DistError>(())
    /// ```
    pub fn n_local(&self) -> usize {
        self.labels.len()
    }

    /// The sorted distinct labels over all ranks (one allgather of each rank's distinct labels).
    ///
    /// ```
    /// # use kern_dist::{rows::read_part, SingleProcess};
    /// # let p = std::env::temp_dir().join("kern-doc-rows-l.svm");
    /// # std::fs::write(&p, "2 1:0.5\n1 1:1\n2 1:3\n").unwrap();
    /// let part = read_part(&SingleProcess, &p, &Default::default())?;
    /// assert_eq!(part.global_labels(&SingleProcess)?, vec!["1", "2"]);
    /// # std::fs::remove_file(&p).unwrap();
    /// # Ok::<(), kern_dist::DistError>(())
    /// ```
    pub fn global_labels(&self, comm: &dyn Comm) -> Result<Vec<String>> {
        let mut mine: Vec<&str> = self.labels.iter().map(String::as_str).collect();
        mine.sort_unstable();
        mine.dedup();
        let all = comm.allgather_bytes(mine.join("\n").as_bytes());
        let mut labels: Vec<String> = Vec::new();
        for b in all.iter().filter(|b| !b.is_empty()) {
            let s = std::str::from_utf8(b).map_err(|_| DistError::Message("labels not UTF-8".into()))?;
            labels.extend(s.split('\n').map(str::to_string));
        }
        labels.sort();
        labels.dedup();
        Ok(labels)
    }
}

/// Options of [`read_part`].
///
/// ```
/// let o = kern_dist::rows::PartOptions::default();
/// assert_eq!((o.dim, o.storage), (None, kern_core::StoragePolicy::Auto));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PartOptions {
    /// LIBSVM dimension; `None` agrees on the largest index over all ranks.
    pub dim: Option<usize>,
    /// The store of every rank's samples; `Auto` decides on the density of the whole file, so all
    /// ranks (and a one-process read of the whole file) choose the same.
    pub storage: StoragePolicy,
    /// CSV options (files ending in `.csv`); one-hot encoding and quoted line breaks are not
    /// supported in parts.
    pub csv: CsvOptions,
}

/// This rank's raw rows in compressed sparse form.
#[derive(Default)]
struct Local {
    labels: Vec<String>,
    indptr: Vec<usize>,
    indices: Vec<usize>,
    values: Vec<f64>,
    max_index: usize,
    lines: usize,
    /// Local 0-based indices of the lines whose rows were dropped.
    dropped: Vec<usize>,
}

/// Reads this rank's part of a LIBSVM file, or of a CSV file when the name ends in `.csv`
/// (collective: every rank calls it with the same arguments). Compressed files cannot be read in parts.
///
/// Every rank gets the same error when any rank fails: [`DistError::RankFailed`] naming the lowest
/// failing rank and its message (with the file's 1-based line number).
///
/// ```
/// use kern_dist::{rows::read_part, threads::run_threads, DistError};
/// let p = std::env::temp_dir().join(format!("kern-doc-read-part-{}.svm", std::process::id()));
/// std::fs::write(&p, "1 1:1\n-1 2:1\n1 1:2\n-1 3:5\n1 1:3\n").unwrap();
/// // Three ranks (threads of this process) read their parts: together, the file's rows in order.
/// let parts = run_threads(3, |c| read_part(c, &p, &Default::default()).unwrap());
/// assert!(parts.iter().all(|r| (r.n_total, r.d) == (5, 3)));
/// let mut next = 0;
/// for r in &parts {
///     assert_eq!(r.row_offset, next);
///     next += r.n_local();
/// }
/// assert_eq!(next, 5);
/// // A bad line on one rank is every rank's error, with the line's number in the whole file.
/// std::fs::write(&p, "1 1:1\n-1 2:1\n1 1:2\n-1 3:x\n1 1:3\n").unwrap();
/// let errs = run_threads(3, |c| read_part(c, &p, &Default::default()).unwrap_err().to_string());
/// assert!(errs.iter().all(|e| e == &errs[0] && e.contains(":4:")), "{errs:?}");
/// # std::fs::remove_file(&p).unwrap();
/// ```
pub fn read_part(comm: &dyn Comm, path: &Path, opts: &PartOptions) -> Result<DistRows> {
    let csv = path.to_string_lossy().to_ascii_lowercase().ends_with(".csv");
    let local = read_local(comm, path, opts, csv);
    // Line numbers: the lines of lower ranks come first (one allgather, also when a rank failed).
    let lines = match &local {
        Ok(l) => l.lines,
        Err((lines, _)) => *lines,
    };
    let (line_offset, _) = offset_and_total(comm, lines as u64);
    let local = local.map_err(|(_, e)| match e {
        LocalError::Line(i, reason) => DistError::Core(CoreError::Parse {
            path: path.to_path_buf(),
            line: line_offset as usize + i + 1,
            reason,
        }),
        LocalError::Other(e) => e,
    });
    let local = agree(comm, local)?;
    let mut dims = [local.max_index as u64];
    comm.allreduce_max_u64(&mut dims);
    let (row_offset, n_total) = offset_and_total(comm, local.labels.len() as u64);
    let (_, nnz_total) = offset_and_total(comm, local.values.len() as u64);
    if n_total == 0 {
        return Err(
            CoreError::Parse { path: path.to_path_buf(), line: 0, reason: "no data rows".into() }.into()
        );
    }
    let d = opts.dim.unwrap_or(dims[0] as usize);
    if d == 0 {
        let reason = "no features (every row is empty)".into();
        return Err(CoreError::Parse { path: path.to_path_buf(), line: 0, reason }.into());
    }
    let policy = match opts.storage {
        StoragePolicy::Auto if csv => StoragePolicy::Dense, // as the one-process CSV reader
        StoragePolicy::Auto
            if nnz_total as f64 / (n_total as f64 * d as f64) <= Samples::AUTO_SPARSE_DENSITY =>
        {
            StoragePolicy::Sparse
        }
        StoragePolicy::Auto => StoragePolicy::Dense,
        p => p,
    };
    let n_local = local.labels.len();
    let samples = agree(
        comm,
        (n_local > 0)
            .then(|| {
                Samples::from_csr(n_local, d, local.indptr, local.indices, local.values)?.with_storage(policy)
            })
            .transpose()
            .map_err(DistError::from),
    )?;
    let dropped_lines = local.dropped.iter().map(|&i| line_offset as usize + i + 1).collect();
    Ok(DistRows {
        samples,
        labels: local.labels,
        row_offset: row_offset as usize,
        n_total: n_total as usize,
        d,
        dropped_lines,
    })
}

enum LocalError {
    Line(usize, String),
    Other(DistError),
}

fn read_local(
    comm: &dyn Comm,
    path: &Path,
    opts: &PartOptions,
    csv: bool,
) -> std::result::Result<Local, (usize, LocalError)> {
    let io =
        |e: std::io::Error| (0, LocalError::Other(DistError::Io { path: PathBuf::from(path), source: e }));
    if path.extension().is_some_and(|e| e == "gz") {
        let msg =
            format!("{}: compressed files cannot be read in parts; decompress it first", path.display());
        return Err((0, LocalError::Other(DistError::Invalid(msg))));
    }
    let len = std::fs::metadata(path).map_err(io)?.len();
    let (start, end) = byte_range(len, comm.rank(), comm.size());
    let mut l = Local { indptr: vec![0], ..Local::default() };
    let result = if csv {
        let layout =
            crate::csvpart::Layout::detect(path, &opts.csv).map_err(|e| (0, LocalError::Other(e)))?;
        l.max_index = layout.d();
        for_each_line(path, start, end, |i, at, line| {
            l.lines = i + 1;
            match layout.parse_line(at, line, &mut l.indices, &mut l.values)? {
                crate::csvpart::Line::Row(label) => {
                    l.labels.push(label);
                    l.indptr.push(l.indices.len());
                }
                crate::csvpart::Line::Dropped => l.dropped.push(i),
                crate::csvpart::Line::NoRow => {}
            }
            Ok(())
        })
    } else {
        for_each_line(path, start, end, |i, _, line| {
            l.lines = i + 1;
            let before = l.indices.len();
            if let Some(label) = parse_libsvm_line(line, opts.dim, &mut l.indices, &mut l.values)? {
                l.labels.push(label);
                if l.indices.len() > before {
                    l.max_index = l.max_index.max(l.indices[l.indices.len() - 1] + 1);
                }
                l.indptr.push(l.indices.len());
            }
            Ok(())
        })
    };
    match result {
        Ok(n) => {
            l.lines = n;
            Ok(l)
        }
        Err(LineError::Io(e)) => Err(io(e)),
        Err(LineError::Line(i, reason)) => Err((i, LocalError::Line(i, reason))),
    }
}
