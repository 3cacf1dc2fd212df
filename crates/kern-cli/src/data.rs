//! What the commands read: the data file (`--data`, [`DataArgs`]) and what its reading reports
//! ([`Stored`]: the store and nonzero count of the summary), kernel specs, and `kern train`'s
//! `--weights` file.

use kern_cli::CliError;
use kern_core::KernelSpec;
use kern_core::io::{CsvOptions, Dataset, LabelColumn, MissingPolicy, read_csv, read_data, read_libsvm};
use kern_models::weights::SampleWeights;
use std::path::{Path, PathBuf};
use std::time::Instant;

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

/// The store and nonzero count of a data file as read (LIBSVM files keep their sparsity: a sparse
/// store at most 10 % nonzero, else dense): the summary's `"storage"` and `"nnz"`
/// ([`crate::output::add_storage`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stored {
    /// Dense or sparse.
    pub storage: kern_core::Storage,
    /// Nonzero values of the samples.
    pub nnz: usize,
}

impl Stored {
    /// The store's name in messages and summaries.
    pub fn name(&self) -> &'static str {
        match self.storage {
            kern_core::Storage::Dense => "dense",
            kern_core::Storage::Sparse => "sparse",
        }
    }
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
    pub fn load(&self) -> Result<(Dataset, Stored), CliError> {
        let (ds, stored) = self.load_sparse()?;
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
        Ok((ds, stored))
    }

    /// Reads the data file, keeping a sparse file's sparse store (for commands that compute on either
    /// store in `O(nnz)` memory), reporting progress on stderr.
    pub fn load_sparse(&self) -> Result<(Dataset, Stored), CliError> {
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
        let stored = Stored { storage: ds.samples.storage(), nnz: ds.samples.nnz() };
        eprintln!(
            "kern: read {} ({} x {}, {} store, {} nonzeros) in {:.3} s",
            self.data.display(),
            ds.samples.n(),
            ds.samples.d(),
            stored.name(),
            stored.nnz,
            t.elapsed().as_secs_f64()
        );
        Ok((ds, stored))
    }
}

/// Whether a path argument is `-` (standard input or output).
pub fn is_std(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Parses a kernel spec argument, listing the valid names on error.
pub fn parse_kernel(spec: &str) -> Result<KernelSpec, CliError> {
    Ok(spec.parse::<KernelSpec>()?)
}

/// The `--weights` file's weights, one per training sample (`None` without the flag).
pub fn sample_weights(path: Option<&Path>, n: usize) -> Result<Option<SampleWeights>, CliError> {
    let Some(path) = path else { return Ok(None) };
    let text = std::fs::read_to_string(path).map_err(|e| format!("--weights {}: {e}", path.display()))?;
    let mut w = Vec::with_capacity(n);
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: f64 = line.trim().parse().map_err(|_| {
            format!("--weights {} line {}: {:?} is not a number", path.display(), i + 1, line.trim())
        })?;
        w.push(v);
    }
    if w.len() != n {
        return Err(format!("--weights {}: {} weights for {n} training rows", path.display(), w.len()).into());
    }
    Ok(Some(SampleWeights::new(w).map_err(|e| format!("--weights {}: {e}", path.display()))?))
}
