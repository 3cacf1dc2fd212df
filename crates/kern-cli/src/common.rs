//! Options shared by the subcommands: data files, kernel specs, threads, timing.

use kern_core::KernelSpec;
use kern_core::io::{CsvOptions, Dataset, LabelColumn, MissingPolicy, read_data};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The error type of the command: any error, shown with its chain of causes.
pub type CliError = Box<dyn std::error::Error + Send + Sync>;
/// Result of a subcommand: the JSON summary.
pub type CliResult = Result<serde_json::Value, CliError>;

/// Where the data comes from.
#[derive(clap::Args, Debug, Clone)]
pub struct DataArgs {
    /// Data file: LIBSVM/svmlight, or CSV when the name ends in .csv / .csv.gz (gzip allowed).
    #[arg(long)]
    pub data: PathBuf,
    /// CSV label column: a header name, a 0-based index (negative from the end), or `none`.
    #[arg(long, default_value = "-1")]
    pub label_col: String,
    /// CSV: one-hot encode nominal (non-numeric) feature columns instead of failing.
    #[arg(long)]
    pub one_hot: bool,
    /// CSV: reject rows with missing values ("?", "NA", empty) instead of skipping them.
    #[arg(long)]
    pub reject_missing: bool,
}

impl DataArgs {
    /// Reads the data file, reporting progress on stderr.
    pub fn load(&self) -> Result<Dataset, CliError> {
        let opts = CsvOptions {
            label: self.label_col.parse::<LabelColumn>().unwrap_or_default(),
            one_hot: self.one_hot,
            missing: if self.reject_missing { MissingPolicy::Reject } else { MissingPolicy::Skip },
            ..Default::default()
        };
        let t = Instant::now();
        let ds = read_data(&self.data, &opts)?;
        eprintln!(
            "kern: read {} ({} x {}) in {:.3} s",
            self.data.display(),
            ds.samples.n(),
            ds.samples.d(),
            t.elapsed().as_secs_f64()
        );
        Ok(ds)
    }
}

/// The targets of a learner that classifies (±1 for two classes, class indices beyond) unless
/// `regression`, when the labels are read as real values.
pub fn targets(ds: &Dataset, regression: bool) -> Result<kern_core::Targets, CliError> {
    use kern_core::Targets;
    if regression {
        return Ok(Targets::Real(ds.real()?));
    }
    let classes = ds.classes()?;
    Ok(if classes.n_classes() == 2 { Targets::Binary(ds.binary()?) } else { Targets::Classes(classes) })
}

/// Parses a kernel spec argument, listing the valid names on error.
pub fn parse_kernel(spec: &str) -> Result<KernelSpec, CliError> {
    Ok(spec.parse::<KernelSpec>()?)
}

/// Runs `f` on a rayon pool of `threads` threads (all cores when `None`).
pub fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T, CliError> {
    match threads {
        None => Ok(f()),
        Some(0) => Err("--threads must be at least 1".into()),
        Some(t) => Ok(rayon::ThreadPoolBuilder::new().num_threads(t).build()?.install(f)),
    }
}

/// Refuses an output path that is one of the input files (also through a link or another spelling).
pub fn check_out(out: &Path, inputs: &[&Path]) -> Result<(), CliError> {
    Ok(kern_core::io::ensure_distinct(out, inputs)?)
}

/// Refuses `copies` dense `n x n` matrices of f64 that do not fit in memory.
pub fn check_dense(n: usize, copies: usize, what: &str, instead: &str) -> Result<(), CliError> {
    let bytes = kern_core::memory::bytes_for::<f64>(&[n, n, copies], what)?;
    Ok(kern_core::memory::check_bytes(bytes, what, instead)?)
}

/// What to do instead of a dense kernel matrix that does not fit.
pub const DENSE_INSTEAD: &str = "use a compactly supported kernel (cs-gaussian:...) with --path sparse, \
     a sample of the data, or raise --max-memory";

/// The most classes `svc` trains without `--allow-many-classes`.
pub const MAX_CLASSES: usize = 100;

/// Refuses class labels that look like regression targets (non-integer numbers) or too many classes
/// for one-vs-one / one-vs-rest, unless `allow`.
pub fn check_classes(ds: &Dataset, allow: bool) -> Result<(), CliError> {
    if allow {
        return Ok(());
    }
    let classes = ds.classes()?;
    let names = classes.names();
    let fractional = names.iter().find(|n| n.trim().parse::<f64>().is_ok_and(|v| v.fract() != 0.0));
    if let Some(v) = fractional {
        return Err(format!(
            "label {v:?} is not an integer: the labels look like real values ({} distinct); use --model svr \
             for regression, or --allow-many-classes to classify anyway",
            names.len()
        )
        .into());
    }
    if names.len() > MAX_CLASSES {
        return Err(format!(
            "{} classes (more than {MAX_CLASSES}) would train {} one-vs-one machines; use --model svr for \
             regression, or --allow-many-classes to classify anyway",
            names.len(),
            names.len() * (names.len() - 1) / 2
        )
        .into());
    }
    Ok(())
}
