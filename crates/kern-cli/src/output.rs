//! What the commands write: output files (or standard output), saved models (with the training
//! data's feature scaling, passed as a value), the check that an output is not an input, and the
//! summary's fields about the data read (`"storage"`, `"nnz"`) and the scaling (`"scaling"`).

use crate::data::{Stored, is_std};
use kern_core::io::WriteOptions;
use kern_models::scaling::FeatureScaling;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

pub use kern_cli::CliError;
/// Result of a subcommand: the JSON summary.
pub type CliResult = Result<serde_json::Value, CliError>;

/// The feature scaling `kern train --scale` / `--scale-file` applied to the training data, and the
/// data's dimension: stored with the model by [`save_model`], so that `kern predict` scales raw
/// data the same way.
#[derive(Clone, Debug)]
pub struct ModelScaling {
    /// The scaling of the features.
    pub scaling: FeatureScaling,
    /// The dimension of the training data it was fitted on (or read for).
    pub dim: usize,
}

/// Whether `--force` was given: write-protected output files are replaced instead of refused. Set
/// once by `main` before the command runs (a setting of the whole run, as `--max-memory` is), read by
/// [`write_output`].
static FORCE: AtomicBool = AtomicBool::new(false);

/// Whether a command wrote its data (a model, scaled data, predictions, scores) to standard output:
/// the summary then goes to standard error, so that standard output holds the data only.
static STDOUT_DATA: AtomicBool = AtomicBool::new(false);

/// Whether standard output carries the command's data (see [`write_output`]): `main` then writes the
/// summary to standard error.
pub fn stdout_has_data() -> bool {
    STDOUT_DATA.load(Ordering::Relaxed)
}

/// Sets the `--force` of the run (see [`write_output`]).
pub fn set_force(force: bool) {
    FORCE.store(force, Ordering::Relaxed);
}

/// Writes an output file through kern-core's safe writer, or to standard output when the path is `-`
/// or another name of standard output (`/dev/stdout`, the file a shell redirected it to), which is
/// written through file descriptor 1; the JSON summary then goes to standard error
/// ([`stdout_has_data`]), so that standard output is the data alone. A write-protected
/// existing file is refused unless `--force`; a reader that went away and a closed standard output
/// are kern-core's `BrokenPipe` and `StdoutClosed` errors (`main` ends quietly on the first).
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    if is_std(path) || kern_core::io::is_stdout(path) {
        STDOUT_DATA.store(true, Ordering::Relaxed);
    }
    if is_std(path) {
        kern_core::io::write_stdout(bytes)?;
    } else {
        // Every other name of standard output (`kern_core::io::is_stdout`) is written through file
        // descriptor 1 by `write_file` itself, which tells `/dev/stdout` on a closed standard output
        // (an error) from `/dev/null` (the file the runtime put there, written as asked).
        let opts = WriteOptions::new().with_force(FORCE.load(Ordering::Relaxed));
        kern_core::io::write_file(path, bytes, &opts)?;
    }
    Ok(())
}

/// Saves a kern model to a file, or to standard output when the path is `-`, with what is known of
/// its input: the training data's `scaling` when `kern train --scale` set one, and the CSV `schema`
/// of a CSV training file (kern_models::schema::model_bytes picks the stored form).
pub fn save_model<M: kern_models::persist::Persist>(
    path: &Path,
    model: &M,
    scaling: Option<&ModelScaling>,
    schema: Option<&kern_core::io::CsvSchema>,
) -> Result<(), CliError> {
    let d = scaling.map(|s| s.dim).or(schema.map(|s| s.n_features())).unwrap_or(0);
    let bytes =
        kern_models::schema::model_bytes(model, d, scaling.map(|s| s.scaling.clone()), schema.cloned())?;
    write_output(path, &bytes)
}

/// An input path given to [`check_out`]: a path, or an optional input flag (`None`: not given).
pub trait InputPath {
    /// The path, when the input was given.
    fn input_path(&self) -> Option<&Path>;
}

impl InputPath for &Path {
    fn input_path(&self) -> Option<&Path> {
        Some(self)
    }
}

impl InputPath for &PathBuf {
    fn input_path(&self) -> Option<&Path> {
        Some(self)
    }
}

impl InputPath for Option<&Path> {
    fn input_path(&self) -> Option<&Path> {
        *self
    }
}

/// Refuses an output path that is one of the input files (also through a link, a hard link or
/// another spelling; an input `-` is standard input, so `--data - < FILE` is checked against FILE).
/// The inputs are paths or optional inputs (`None`: not given).
pub fn check_out<P: InputPath>(out: &Path, inputs: &[P]) -> Result<(), CliError> {
    let inputs: Vec<&Path> = inputs
        .iter()
        .filter_map(InputPath::input_path)
        .map(|p| if is_std(p) { Path::new("/dev/stdin") } else { p })
        .collect();
    Ok(kern_core::io::ensure_distinct(out, &inputs)?)
}

/// Refuses two outputs of one command that name the same file (the second would replace the first):
/// the same file when it exists (also through links), or the same name in the same folder when it
/// does not exist yet. `what` names the two flags, e.g. `"--out and --save"`.
pub fn check_outputs_differ(a: &Path, b: &Path, what: &str) -> Result<(), CliError> {
    let same = if is_std(a) || is_std(b) {
        is_std(a) && is_std(b)
    } else {
        kern_core::io::ensure_distinct(a, &[b]).is_err() || same_new_name(a, b)
    };
    if same {
        return Err(format!(
            "{what} both name {}; give them different paths (one would replace the other)",
            a.display()
        )
        .into());
    }
    Ok(())
}

/// Whether `a` and `b` are the same file name in the same (existing) folder.
fn same_new_name(a: &Path, b: &Path) -> bool {
    let folder = |p: &Path| {
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        std::fs::canonicalize(parent).ok()
    };
    a.file_name().is_some() && a.file_name() == b.file_name() && folder(a).is_some() && folder(a) == folder(b)
}

/// Adds `"storage": "dense" | "sparse"` and `"nnz"` of the data file the command read to its JSON
/// summary (every subcommand that reads `--data` reports them the same way; a field the command
/// reports itself is kept). `None`: the command read no data file (or a precomputed kernel).
pub fn add_storage(json: &mut serde_json::Value, stored: Option<Stored>) {
    if let (Some(s), Some(obj)) = (stored, json.as_object_mut()) {
        obj.entry("storage").or_insert(serde_json::json!(s.name()));
        obj.entry("nnz").or_insert(serde_json::json!(s.nnz));
    }
}

/// Adds `"scaling"` (its limits and the number of features it scales) of the scaling stored with a
/// trained model to its summary.
pub fn add_scaling(json: &mut serde_json::Value, scaling: Option<&ModelScaling>) {
    if let (Some(s), Some(obj)) = (scaling, json.as_object_mut()) {
        let (lower, upper) = s.scaling.limits();
        obj.insert(
            "scaling".into(),
            serde_json::json!({"lower": lower, "upper": upper, "features": s.scaling.n_features()}),
        );
    }
}
