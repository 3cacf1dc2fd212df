//! What the commands read: the data file (`--data`, [`DataArgs`]) and what its reading reports
//! ([`Stored`]: the store and nonzero count of the summary), kernel specs, and `kern train`'s
//! `--weights` file.

use kern_cli::CliError;
use kern_core::KernelSpec;
use kern_core::io::{
    CsvOptions, CsvSchema, Dataset, LabelColumn, MissingPolicy, read_csv, read_csv_as, read_data, read_libsvm,
};
use kern_models::weights::SampleWeights;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Where the data comes from.
#[derive(clap::Args, Debug, Clone)]
pub struct DataArgs {
    /// Data file (also the first file by position): LIBSVM, or CSV when named .csv / .csv.gz; `-`: stdin.
    ///
    /// LIBSVM/svmlight, or CSV when the name ends in .csv or .csv.gz (gzip allowed); `-` reads
    /// standard input.
    #[arg(long, help_heading = "Data")]
    pub data: PathBuf,
    /// Data format: auto (by file name), libsvm or csv (what `--data -` is read as; default libsvm).
    #[arg(long, value_enum, default_value = "auto", help_heading = "Data", hide_short_help = true)]
    pub data_format: DataFormat,
    /// CSV label column: a header name, a 0-based index (negative from the end), or none.
    ///
    /// Default: the last column. Refused for LIBSVM data, whose label is always the first field.
    #[arg(long, allow_hyphen_values = true, help_heading = "Data")]
    pub label_col: Option<String>,
    /// CSV: one-hot encode nominal (non-numeric) feature columns instead of failing.
    #[arg(long, help_heading = "Data", hide_short_help = true)]
    pub one_hot: bool,
    /// CSV: what a missing value ("?", "NA" or an empty field) does: error or drop (the row).
    ///
    /// error: stop, naming the line and column. drop: leave the row out; the summary lists the lines
    /// left out.
    #[arg(long, value_enum, default_value = "error", help_heading = "Data", hide_short_help = true)]
    pub missing: Missing,
    /// CSV: whether the first line holds column names (auto, yes, no).
    ///
    /// auto: it does when it has a text field over a column of numbers (`400,410,420,label` over
    /// numeric labels), or no number at all; say yes when the names are numbers over numbers only.
    #[arg(long, value_enum, default_value = "auto", help_heading = "Data", hide_short_help = true)]
    pub header: Header,
}

/// What `--missing` does with a CSV row holding a missing value.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    /// Stop with an error naming the line and column.
    Error,
    /// Leave the row out (the summary lists its line).
    Drop,
}

impl Missing {
    /// The reader's policy.
    pub fn policy(self) -> MissingPolicy {
        match self {
            Missing::Error => MissingPolicy::Reject,
            Missing::Drop => MissingPolicy::Drop,
        }
    }
}

/// Whether a CSV file's first line holds column names (`--header`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Header {
    /// The first line is column names.
    Yes,
    /// The first line is data.
    No,
    /// Decide from the first lines.
    Auto,
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

    /// The CSV reader's options of the flags (`--label-col`, `--one-hot`, `--missing`, `--header`).
    pub fn csv_options(&self) -> CsvOptions {
        CsvOptions {
            label: self
                .label_col
                .as_deref()
                .map(|l| l.parse::<LabelColumn>().unwrap_or_default())
                .unwrap_or_default(),
            one_hot: self.one_hot,
            missing: self.missing.policy(),
            header: match self.header {
                Header::Yes => Some(true),
                Header::No => Some(false),
                Header::Auto => None,
            },
            ..Default::default()
        }
    }

    /// Refuses the CSV-only flags that were given for data read as LIBSVM (they would be ignored).
    fn check_libsvm_flags(&self) -> Result<(), CliError> {
        if !self.is_csv()
            && let Some(l) = &self.label_col
        {
            return Err(format!(
                "--label-col {l} applies to CSV data; {} is read as LIBSVM (its label is the first field \
                 of each line): leave out --label-col, or give --data-format csv if it is a CSV file",
                self.data.display()
            )
            .into());
        }
        Ok(())
    }

    /// Reads the data file, keeping a sparse file's sparse store (for commands that compute on either
    /// store in `O(nnz)` memory), reporting progress on stderr.
    pub fn load_sparse(&self) -> Result<(Dataset, Stored), CliError> {
        self.check_libsvm_flags()?;
        let opts = self.csv_options();
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
        Ok(self.report(ds, t))
    }

    /// Reads CSV data against the CSV schema of a model's training file ([`read_csv_as`]): columns
    /// found by name, the label column optional, the training categories. `--label-col` and
    /// `--one-hot` are the schema's; `--missing` and `--header` apply.
    pub fn load_as(&self, schema: &CsvSchema) -> Result<(Dataset, Stored), CliError> {
        let t = Instant::now();
        let ds = read_csv_as(self.source(), schema, &self.csv_options())?;
        Ok(self.report(ds, t))
    }

    /// What was read, reported on stderr.
    fn report(&self, ds: Dataset, t: Instant) -> (Dataset, Stored) {
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
        if !ds.dropped_lines.is_empty() {
            eprintln!(
                "kern: warning: {} rows with missing values left out (--missing drop)",
                ds.dropped_lines.len()
            );
        }
        (ds, stored)
    }

    /// Adds what reading CSV data did with missing values to a summary: `"missing"` (the policy),
    /// `"rows_dropped"` and `"dropped_lines"` (the first [`DROPPED_SHOWN`] of them, 1-based). Nothing
    /// for LIBSVM data.
    pub fn add_rows(&self, json: &mut Value, ds: &Dataset) {
        if self.is_csv() {
            add_rows(json, ds, self.missing.policy());
        }
    }
}

/// How many dropped lines a summary lists.
pub const DROPPED_SHOWN: usize = 20;

/// Adds `"missing"`, `"rows_dropped"` and `"dropped_lines"` (the first [`DROPPED_SHOWN`]) of CSV data
/// read with the policy `missing` to a summary.
pub fn add_rows(json: &mut Value, ds: &Dataset, missing: MissingPolicy) {
    if let Some(obj) = json.as_object_mut() {
        let name = match missing {
            MissingPolicy::Reject => "error",
            MissingPolicy::Drop => "drop",
        };
        obj.insert("missing".into(), json!(name));
        obj.insert("rows_dropped".into(), json!(ds.dropped_lines.len()));
        let shown: Vec<usize> = ds.dropped_lines.iter().take(DROPPED_SHOWN).copied().collect();
        obj.insert("dropped_lines".into(), json!(shown));
    }
}

/// The summary's `"csv_schema"` of a model's CSV schema: its column count, label column (its header name,
/// or `column J` in a file without header; null without one) and number of features (after one-hot
/// encoding).
pub fn schema_json(schema: &CsvSchema) -> Value {
    json!({
        "columns": schema.n_columns,
        "label": schema.label.map(|j| schema.column_name(j)),
        "features": schema.n_features(),
    })
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
