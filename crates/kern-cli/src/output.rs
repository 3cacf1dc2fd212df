//! What the commands write: output files (or standard output), saved models (with the training
//! data's feature scaling, passed as a value), the check that an output is not an input, and the
//! summary's fields about the data read (`"storage"`, `"nnz"`) and the scaling (`"scaling"`).

use crate::data::{Stored, is_std};
use kern_models::scaling::FeatureScaling;
use std::io::Write as _;
use std::path::Path;

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

/// Writes an output file through kern-core's writer, or to standard output when the path is `-`.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    if is_std(path) {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()?;
    } else {
        kern_core::io::write_atomic(path, bytes)?;
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

/// Refuses an output path that is one of the input files (also through a link or another spelling).
pub fn check_out(out: &Path, inputs: &[&Path]) -> Result<(), CliError> {
    Ok(kern_core::io::ensure_distinct(out, inputs)?)
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
