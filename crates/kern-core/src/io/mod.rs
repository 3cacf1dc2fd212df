//! Data files: LIBSVM/svmlight text ([`read_libsvm`], [`write_libsvm`]) and CSV ([`read_csv`], and
//! [`read_csv_as`] for test data read against the training file's [`CsvSchema`]).
//!
//! Both readers accept gzip-compressed files (name ending in `.gz`; feature `gzip`, on by default), return a [`Dataset`] (validated
//! samples plus the raw label column) and report malformed input as [`crate::CoreError::Parse`] with
//! the file and 1-based line. [`read_data`] picks the format by file name, as the `kern` command does.

mod csv;
mod csv_schema;
mod libsvm;

pub use self::csv::{CsvOptions, LabelColumn, MissingPolicy, read_csv, read_csv_as};
pub use self::csv_schema::{CsvFeature, CsvSchema};
pub use self::libsvm::{LibsvmOptions, parse_libsvm_line, read_libsvm, read_libsvm_with, write_libsvm};

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
        Dataset { samples, labels, feature_names, schema: None, dropped_lines: Vec::new() }
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

/// Writes `bytes` to `path` without ever leaving it half-written or destroying something that is not
/// a regular file:
///
/// - a symbolic link is followed to its target, which is replaced (the link stays a link);
/// - a regular file (or a new path) is replaced atomically: a temporary `.NAME.tmpPID-N` file in the
///   same directory is written, flushed and synced, renamed over the target, then the directory is
///   synced; on every error path the temporary file is removed and the target is untouched;
/// - anything else that exists (a FIFO, a character device such as `/dev/null`, a socket), any path
///   under `/proc/`, and any symbolic link directly in `/dev/` or `/dev/fd/` (such as `/dev/stdout`,
///   which may lead to a regular file a shell redirected to) is written in place, never renamed
///   over; files and links elsewhere under `/dev/` (a `tmpfs` such as `/dev/shm`) are ordinary ones;
/// - temporary files of earlier saves whose process is gone (killed inside the write window) are
///   removed by the next save of the same name.
///
/// ```
/// let p = std::env::temp_dir().join("kern-doc-atomic.txt");
/// kern_core::io::write_atomic(&p, b"hello")?;
/// assert_eq!(std::fs::read(&p).unwrap(), b"hello");
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let target = resolve_links(path).map_err(|e| io_err(path, e))?;
    if in_place(&target) {
        return write_in_place(&target, bytes).map_err(|e| io_err(path, e));
    }
    replace_atomically(&target, bytes).map_err(|e| io_err(path, e))
}

/// Whether `path` must be written in place: it exists and is not a regular file (FIFO, device,
/// socket; symlinks followed), it is a process file, or it is a symbolic link directly in `/dev` or
/// `/dev/fd` (the standard streams: `/dev/stdout` leads through `/proc/self/fd` to whatever a shell
/// redirected to). A user's link inside a file system mounted below `/dev` (`/dev/shm/...`) is an
/// ordinary link, followed to the file it names.
fn in_place(path: &Path) -> bool {
    let special = std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir());
    let stream_dir = path.parent().is_some_and(|d| d == Path::new("/dev") || d == Path::new("/dev/fd"));
    let dev_link = stream_dir && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    special || dev_link || path.starts_with("/proc")
}

fn write_in_place(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path)?;
    f.write_all(bytes)?;
    f.flush()
}

/// Follows symbolic links (also dangling ones, whose target is then created) to the path to replace,
/// stopping at the first path that must be written in place.
fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        if in_place(&p) {
            return Ok(p); // a link through `/dev` or `/proc` is written where it stands
        }
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = std::fs::read_link(&p)?;
                p = if t.is_absolute() { t } else { p.parent().unwrap_or(Path::new(".")).join(t) };
            }
            _ => return Ok(p),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// Removes the temporary file unless disarmed (on success the rename consumed it).
struct TempGuard(Option<PathBuf>);

impl Drop for TempGuard {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn replace_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let file_name = path
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file path"))?
        .to_string_lossy()
        .into_owned();
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory"));
    }
    let prefix = format!(".{file_name}.tmp");
    remove_stale_temps(dir, &prefix);
    let tmp = dir.join(format!("{prefix}{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed)));
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let mut guard = TempGuard(Some(tmp.clone()));
    if let Ok(m) = std::fs::metadata(path) {
        f.set_permissions(m.permissions())?;
    }
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)?;
    guard.0 = None;
    sync_dir(dir)
}

/// Syncs a directory so a rename in it survives a crash (a no-op where directories cannot be opened).
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::File::open(dir) {
        Ok(d) => match d.sync_all() {
            Err(e) if e.raw_os_error() == Some(22) => Ok(()), // EINVAL: the file system cannot
            r => r,
        },
        Err(_) => Ok(()),
    }
}

/// Removes `PREFIX<pid>[-<n>]` files of processes that no longer exist (Linux: no `/proc/<pid>`).
fn remove_stale_temps(dir: &Path, prefix: &str) {
    if !Path::new("/proc/self").exists() {
        return; // cannot tell which processes are alive
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else { continue };
        let pid = rest.split('-').next().unwrap_or("");
        if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let alive = Path::new("/proc").join(pid).exists();
        if !alive && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Refuses to write `out` when it is one of `inputs` (the same file, also through links or another
/// spelling of the path), so a typo cannot overwrite the data with the result.
///
/// ```
/// use std::path::Path;
/// let p = std::env::temp_dir().join("kern-doc-distinct.svm");
/// std::fs::write(&p, "1 1:1\n").unwrap();
/// assert!(kern_core::io::ensure_distinct(&p, &[p.as_path()]).is_err());
/// assert!(kern_core::io::ensure_distinct(Path::new("/nonexistent/out"), &[p.as_path()]).is_ok());
/// ```
pub fn ensure_distinct(out: &Path, inputs: &[&Path]) -> Result<()> {
    let Ok(o) = std::fs::metadata(out) else { return Ok(()) };
    if !o.is_file() {
        return Ok(()); // devices and FIFOs are written in place, never replaced
    }
    for input in inputs {
        if let Ok(i) = std::fs::metadata(input)
            && same_file(&o, &i)
        {
            return Err(CoreError::Clobber { out: out.to_path_buf(), input: input.to_path_buf() });
        }
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok() && a.created().ok() == b.created().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kern-write-atomic-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn listing(d: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_regular_files_and_leaves_no_temp() {
        let d = dir("regular");
        let p = d.join("m.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(listing(&d), vec!["m.txt"]);
    }

    #[cfg(unix)]
    #[test]
    fn follows_symlinks_and_keeps_the_link() {
        let d = dir("symlink");
        let target = d.join("real.txt");
        std::fs::write(&target, b"old").unwrap();
        let link = d.join("link.txt");
        std::os::unix::fs::symlink("real.txt", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(listing(&d), vec!["link.txt", "real.txt"]);
    }

    #[test]
    fn failure_leaves_target_and_no_temp() {
        let d = dir("fail");
        let sub = d.join("sub");
        std::fs::create_dir(&sub).unwrap();
        // A directory in the way: the rename fails, the temp file must go.
        assert!(write_atomic(&sub, b"x").is_err());
        assert_eq!(listing(&d), vec!["sub"]);
        assert!(write_atomic(&d.join("missing/x.txt"), b"x").is_err());
        assert_eq!(listing(&d), vec!["sub"]);
    }

    #[test]
    fn stale_temps_of_dead_processes_are_removed() {
        let d = dir("stale");
        // pid 4194304 is above Linux's maximum pid, so it is never alive.
        std::fs::write(d.join(".m.txt.tmp4194304"), b"junk").unwrap();
        std::fs::write(d.join(".m.txt.tmp4194304-3"), b"junk").unwrap();
        let own = format!(".m.txt.tmp{}-999999", std::process::id());
        std::fs::write(d.join(&own), b"in flight").unwrap();
        std::fs::write(d.join(".other.tmp4194304"), b"not ours").unwrap();
        write_atomic(&d.join("m.txt"), b"ok").unwrap();
        let mut want = vec![".other.tmp4194304".to_string(), own, "m.txt".into()];
        want.sort();
        if Path::new("/proc/self").exists() {
            assert_eq!(listing(&d), want);
        }
    }

    #[cfg(unix)]
    #[test]
    fn character_devices_are_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        write_atomic(Path::new("/dev/null"), b"discarded").unwrap();
        assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
        let full = Path::new("/dev/full");
        if full.exists() {
            assert!(write_atomic(full, b"no space").is_err());
            assert!(std::fs::metadata(full).unwrap().file_type().is_char_device());
        }
    }

    /// A `tmpfs` under `/dev` holds ordinary files: a new one is created, an existing one replaced,
    /// and no temporary file is left; a user's link to a device is followed and written in place.
    #[cfg(unix)]
    #[test]
    fn regular_files_under_dev_are_ordinary_files() {
        use std::os::unix::fs::FileTypeExt;
        let shm = Path::new("/dev/shm");
        if shm.is_dir() {
            let name = format!("kern-io-test-{}", std::process::id());
            let p = shm.join(&name);
            write_atomic(&p, b"one").unwrap();
            write_atomic(&p, b"two").unwrap();
            assert_eq!(std::fs::read(&p).unwrap(), b"two");
            // A user's link there is followed: its target is replaced, not appended to.
            let link = shm.join(format!("{name}-link"));
            std::os::unix::fs::symlink(&p, &link).unwrap();
            write_atomic(&link, b"three").unwrap();
            assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
            assert_eq!(std::fs::read(&p).unwrap(), b"three");
            std::fs::remove_file(&link).unwrap();
            std::fs::remove_file(&p).unwrap();
            let leftovers = std::fs::read_dir(shm)
                .unwrap()
                .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().contains(&name))
                .count();
            assert_eq!(leftovers, 0);
        }
        let d = dir("devlink");
        let link = d.join("null-link");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        write_atomic(&link, b"discarded").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    }

    #[test]
    fn output_equal_to_input_is_refused() {
        let d = dir("clobber");
        let data = d.join("data.svm");
        std::fs::write(&data, b"1 1:1\n").unwrap();
        let other_spelling = d.join(".").join("data.svm");
        assert!(matches!(ensure_distinct(&other_spelling, &[&data]), Err(CoreError::Clobber { .. })));
        assert!(ensure_distinct(&d.join("model.kern"), &[&data]).is_ok());
    }
}
