//! `kern scale`: LIBSVM's `svm-scale` — scale every feature onto `[lower, upper]`, save the parameters
//! (`-s`) or restore them (`-r`); parameter files interoperate with `svm-scale`'s.

use crate::data::DataArgs;
use crate::output::{CliResult, add_storage, check_out, check_outputs_differ, write_output};
use kern_core::SampleRef;
use kern_models::libsvm_model::fmt_g17;
use kern_models::scaling::FeatureScaling;
use serde_json::json;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `kern scale`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// Feature scaling lower limit (default -1).
    #[arg(short = 'l', long, allow_negative_numbers = true, conflicts_with = "restore")]
    lower: Option<f64>,
    /// Feature scaling upper limit (default 1).
    #[arg(short = 'u', long, allow_negative_numbers = true, conflicts_with = "restore")]
    upper: Option<f64>,
    /// Target scaling limits: Y_LOWER Y_UPPER (default: targets unchanged).
    #[arg(short = 'y', long = "y-limits", num_args = 2, value_names = ["Y_LOWER", "Y_UPPER"], allow_negative_numbers = true, conflicts_with = "restore")]
    y_limits: Option<Vec<f64>>,
    /// Save the scaling parameters to this file (svm-scale's format).
    #[arg(short = 's', long, conflicts_with = "restore")]
    save: Option<PathBuf>,
    /// Scale with the parameters of this file (written by `kern scale -s` or `svm-scale -s`).
    #[arg(short = 'r', long)]
    restore: Option<PathBuf>,
    /// Where to write the scaled data (default `-`, standard output, as svm-scale; the summary then
    /// goes to stderr).
    ///
    /// LIBSVM format, or CSV (with a header line) when the name ends in .csv, or for CSV data written
    /// to standard output: either way kern reads the file back. Labels that are not numbers (CSV
    /// data) need CSV output.
    #[arg(long, default_value = "-")]
    out: PathBuf,
}

/// Runs `kern scale`.
pub fn run(a: Args) -> CliResult {
    check_paths(&a)?;
    let (ds, stored) = a.data.load_sparse()?;
    let t = Instant::now();
    let scaling = match &a.restore {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            FeatureScaling::parse(&text, &p.display().to_string())?
        }
        None => {
            let s = FeatureScaling::fit(&ds.samples, a.lower.unwrap_or(-1.0), a.upper.unwrap_or(1.0))?;
            match &a.y_limits {
                Some(y) => s.with_target(ds.real()?.values(), y[0], y[1])?,
                None => s,
            }
        }
    };
    let x = scaling.apply(&ds.samples)?;
    let scale_y = scaling.target().is_some();
    let y = if scale_y { Some(ds.real()?) } else { None };
    let csv = writes_csv(&a);
    let label = |i: usize| match &y {
        Some(y) => fmt_g17(scaling.apply_target(y.values()[i])),
        None => ds.labels[i].clone(),
    };
    if !csv && let Some(l) = ds.labels.iter().find(|l| !l.is_empty() && l.parse::<f64>().is_err()) {
        return Err(format!(
            "the label {l:?} is not a number, which a LIBSVM file cannot hold: write CSV (--out NAME.csv), \
             which keeps the labels as they are"
        )
        .into());
    }
    let mut out = String::new();
    if csv {
        let names = match &ds.schema {
            Some(s) => s.feature_names(),
            None => (1..=x.d()).map(|j| format!("x{j}")).collect(),
        };
        let label_name = ds.schema.as_ref().and_then(|s| s.label_name()).unwrap_or_else(|| "label".into());
        let names: Vec<String> = names.iter().map(|n| csv_field(n)).collect();
        writeln!(out, "{},{}", names.join(","), csv_field(&label_name)).expect("String write");
    }
    let (mut before, mut after) = (0usize, 0usize);
    let mut used = std::collections::BTreeSet::new();
    for (i, (r, r0)) in x.samples().zip(ds.samples.samples()).enumerate() {
        let nz: Vec<(usize, f64)> = nonzeros(r).collect();
        used.extend(nz.iter().map(|(j, _)| *j));
        after += nz.len();
        before += nonzeros(r0).count();
        if csv {
            let mut row = vec![0.0; x.d()];
            for (j, v) in nz {
                row[j] = v;
            }
            for v in row {
                write!(out, "{v},").expect("String write");
            }
            out.push_str(&csv_field(&label(i)));
        } else {
            out.push_str(&label(i));
            for (j, v) in nz {
                write!(out, " {}:{v}", j + 1).expect("String write");
            }
        }
        out.push('\n');
    }
    if let Some(p) = &a.save {
        write_output(p, scaling.to_text().as_bytes())?;
    }
    write_output(&a.out, out.as_bytes())?;
    let mut warnings = Vec::new();
    if after > before {
        let w = format!(
            "the scaled data has {after} non-zero values, the original {before}: for non-negative sparse \
             features, --lower 0 keeps zeros at zero"
        );
        eprintln!("kern: warning: {w}");
        warnings.push(w);
    }
    let (lower, upper) = scaling.limits();
    let mut v = json!({
        "n": x.n(),
        "d": x.d(),
        "lower": lower,
        "upper": upper,
        "features_scaled": used.len(),
        "targets_scaled": scale_y,
        "restored": a.restore.as_ref().map(|p| p.display().to_string()),
        "saved": a.save.as_ref().map(|p| p.display().to_string()),
        "nonzeros_before": before,
        "nonzeros_after": after,
        "warnings": warnings,
        "out": a.out.display().to_string(),
        "format": if csv { "csv" } else { "libsvm" },
        "seconds": t.elapsed().as_secs_f64(),
    });
    add_storage(&mut v, Some(stored));
    Ok(v)
}

/// Whether the scaled data is written as CSV: an output named `.csv`, or CSV data
/// written to standard output.
fn writes_csv(a: &Args) -> bool {
    if crate::data::is_std(&a.out) {
        return a.data.is_csv();
    }
    let name = a.out.to_string_lossy().to_ascii_lowercase();
    name.ends_with(".csv")
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// Refuses every pair of an input (`--data`, `-r`) and an output (`--out`, `-s`) that are the same
/// file, and `-s` and `--out` naming the same file, before anything is read or written.
fn check_paths(a: &Args) -> Result<(), crate::output::CliError> {
    let inputs = [Some(a.data.data.as_path()), a.restore.as_deref()];
    check_out(&a.out, &inputs)?;
    if let Some(save) = &a.save {
        check_out(save, &inputs)?;
        check_outputs_differ(save, &a.out, "-s (--save) and --out")?;
    }
    Ok(())
}

/// The non-zero coordinates `(index, value)` of a sample, in index order, on either store.
fn nonzeros(s: SampleRef<'_>) -> Box<dyn Iterator<Item = (usize, f64)> + '_> {
    match s {
        SampleRef::Dense(r) => Box::new(r.iter().copied().enumerate().filter(|(_, v)| *v != 0.0)),
        SampleRef::Sparse { indices, values } => {
            Box::new(indices.iter().copied().zip(values.iter().copied()).filter(|(_, v)| *v != 0.0))
        }
    }
}
