//! Options shared by the subcommands: data files, kernel specs, threads, timing.

use kern_core::KernelSpec;
use kern_core::io::{CsvOptions, Dataset, LabelColumn, MissingPolicy, read_csv, read_data, read_libsvm};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub use kern_cli::CliError;
/// Result of a subcommand: the JSON summary.
pub type CliResult = Result<serde_json::Value, CliError>;

/// Where the data comes from.
#[derive(clap::Args, Debug, Clone)]
pub struct DataArgs {
    /// Data file: LIBSVM/svmlight, or CSV when the name ends in .csv / .csv.gz (gzip allowed); `-` reads
    /// standard input.
    #[arg(long)]
    pub data: PathBuf,
    /// Data format: auto (by file name), libsvm or csv (what `--data -` is read as; default libsvm).
    #[arg(long, value_enum, default_value = "auto")]
    pub data_format: DataFormat,
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

/// The format of `--data`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataFormat {
    /// CSV when the name ends in .csv or .csv.gz, LIBSVM otherwise.
    Auto,
    /// LIBSVM/svmlight text.
    Libsvm,
    /// Comma (or other delimiter) separated values.
    Csv,
}

impl DataArgs {
    /// Whether the data is read as CSV.
    pub fn is_csv(&self) -> bool {
        match self.data_format {
            DataFormat::Csv => true,
            DataFormat::Libsvm => false,
            DataFormat::Auto => {
                let name = self.data.to_string_lossy().to_ascii_lowercase();
                name.ends_with(".csv") || name.ends_with(".csv.gz")
            }
        }
    }

    /// The path the readers open: the data file, or the process's standard input for `-`.
    pub fn source(&self) -> &Path {
        if is_std(&self.data) { Path::new("/dev/stdin") } else { &self.data }
    }

    /// Reads the data file for a command that works on dense samples (a sparse file is read sparse
    /// and made dense on first use): an error, not an abort, when its dense copy would be too large.
    pub fn load(&self) -> Result<Dataset, CliError> {
        let ds = self.load_sparse()?;
        if ds.samples.is_sparse() {
            let (n, d) = (ds.samples.n(), ds.samples.d());
            if (n as u128) * (d as u128) > kern_core::Samples::MAX_DENSE_VALUES as u128 {
                return Err(kern_core::CoreError::DenseTooLarge {
                    what: "this command",
                    n,
                    d,
                    limit: kern_core::Samples::MAX_DENSE_VALUES,
                }
                .into());
            }
            kern_core::memory::check_array::<f64>(
                &[n, d],
                "dense copy of the sparse samples",
                "use a command that keeps sparse data sparse (info, gram), fewer features, or raise --max-memory",
            )?;
        }
        Ok(ds)
    }

    /// Reads the data file, keeping a sparse file's sparse store (for commands that compute on either
    /// store in `O(nnz)` memory), reporting progress on stderr.
    pub fn load_sparse(&self) -> Result<Dataset, CliError> {
        let opts = CsvOptions {
            label: self.label_col.parse::<LabelColumn>().unwrap_or_default(),
            one_hot: self.one_hot,
            missing: if self.reject_missing { MissingPolicy::Reject } else { MissingPolicy::Drop },
            ..Default::default()
        };
        let t = Instant::now();
        let ds = if is_std(&self.data) {
            let stdin = self.source();
            if self.is_csv() { read_csv(stdin, &opts)? } else { read_libsvm(stdin, None)? }
        } else if self.data_format == DataFormat::Auto {
            read_data(&self.data, &opts)?
        } else if self.is_csv() {
            read_csv(&self.data, &opts)?
        } else {
            read_libsvm(&self.data, None)?
        };
        eprintln!(
            "kern: read {} ({} x {}, {} store, {} nonzeros) in {:.3} s",
            self.data.display(),
            ds.samples.n(),
            ds.samples.d(),
            storage_name(ds.samples.storage()),
            ds.samples.nnz(),
            t.elapsed().as_secs_f64()
        );
        let _ = LOADED.set((ds.samples.storage(), ds.samples.nnz()));
        Ok(ds)
    }
}

pub use kern_cli::kinds::{check_classes, targets};

/// Parses a kernel spec argument, listing the valid names on error.
pub fn parse_kernel(spec: &str) -> Result<KernelSpec, CliError> {
    Ok(spec.parse::<KernelSpec>()?)
}

/// Runs `f` on a rayon pool of `threads` threads (all cores when `None`).
pub fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T, CliError> {
    if threads == Some(0) {
        return Err("--threads must be at least 1".into());
    }
    Ok(kern_core::parallel::install(threads, f)?)
}

/// Whether a path argument is `-` (standard input or output).
pub fn is_std(path: &Path) -> bool {
    path.as_os_str() == "-"
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

/// The feature scaling `kern train --scale` applied to the training data (and its dimension), stored
/// with the model by [`save_model`].
static SCALING: std::sync::OnceLock<(kern_models::scaling::FeatureScaling, usize)> =
    std::sync::OnceLock::new();

/// Makes every later [`save_model`] of this run store `scaling` (fitted on `d`-dimensional training
/// data) with the model, so that `kern predict` scales raw data the same way.
pub fn store_scaling_with_model(scaling: kern_models::scaling::FeatureScaling, d: usize) {
    let _ = SCALING.set((scaling, d));
}

/// Saves a kern model to a file, or to standard output when the path is `-` (wrapped with the
/// training data's scaling when `kern train --scale` set one).
pub fn save_model<M: kern_models::persist::Persist>(path: &Path, model: &M) -> Result<(), CliError> {
    let bytes = match SCALING.get() {
        Some((s, d)) => {
            kern_models::persist::to_bytes(&kern_models::scaling::ScaledModel::wrap(s.clone(), *d, model)?)?
        }
        None => kern_models::persist::to_bytes(model)?,
    };
    write_output(path, &bytes)
}

/// The store and nonzero count of the first data file read by this run (LIBSVM files keep their
/// sparsity: a sparse store at most 10 % nonzero, else dense).
static LOADED: std::sync::OnceLock<(kern_core::Storage, usize)> = std::sync::OnceLock::new();

fn storage_name(s: kern_core::Storage) -> &'static str {
    match s {
        kern_core::Storage::Dense => "dense",
        kern_core::Storage::Sparse => "sparse",
    }
}

/// Adds `"storage": "dense" | "sparse"` and `"nnz"` of the data file the run read to its JSON summary
/// (every subcommand that reads `--data` reports them the same way).
pub fn add_storage(json: &mut serde_json::Value) {
    if let (Some((storage, nnz)), Some(obj)) = (LOADED.get(), json.as_object_mut()) {
        obj.entry("storage").or_insert(serde_json::json!(storage_name(*storage)));
        obj.entry("nnz").or_insert(serde_json::json!(nnz));
    }
    if let (Some((s, _)), Some(obj)) = (SCALING.get(), json.as_object_mut()) {
        let (lower, upper) = s.limits();
        obj.insert(
            "scaling".into(),
            serde_json::json!({"lower": lower, "upper": upper, "features": s.n_features()}),
        );
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
