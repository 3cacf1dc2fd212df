//! `kern info`: n, d, storage and nonzeros, label counts, feature ranges.

use crate::data::DataArgs;
use crate::output::{CliResult, add_storage};
use serde_json::json;
use std::time::Instant;

/// Arguments of `kern info`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
}

/// Runs `kern info`.
pub fn run(a: Args) -> CliResult {
    let (ds, stored) = a.data.load_sparse()?;
    let t = Instant::now();
    // Per-feature ranges take O(d) memory: reported up to 2^20 features (sparse files may have far more).
    let ranges: Option<Vec<[f64; 2]>> = (ds.samples.d() <= 1 << 20)
        .then(|| ds.samples.feature_ranges().into_iter().map(|(l, h)| [l, h]).collect());
    let labels: serde_json::Map<String, serde_json::Value> =
        ds.label_counts().into_iter().map(|(k, v)| (k, json!(v))).collect();
    let mut v = json!({
        "n": ds.samples.n(),
        "d": ds.samples.d(),
        "labels": labels,
        "feature_names": ds.feature_names,
        "feature_ranges": ranges,
        "seconds": t.elapsed().as_secs_f64(),
    });
    add_storage(&mut v, Some(stored));
    Ok(v)
}
