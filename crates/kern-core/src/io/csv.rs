//! CSV (RFC 4180, through the `csv` crate: a quoted field may hold the delimiter, quotes and line
//! breaks): optional header (detected per column, see [`CsvOptions::header`]), `,` `;` or tab
//! delimiter, a UTF-8 byte order mark ignored, fields trimmed, label column by name or index,
//! missing-value markers refused (or, on request, their rows dropped and listed), nominal columns
//! one-hot encoded on request. [`read_csv`] also returns the file's [`CsvSchema`];
//! [`read_csv_as`] reads test data against a training schema.
//!
//! Labels are kept as the text of the file (`02134` stays `02134`); how labels that look like numbers
//! are compared when they become targets is described at [`Dataset`].

use super::csv_schema::{CsvFeature, CsvSchema};
use super::{Dataset, io_err, open_lines, parse_err};
use crate::error::Result;
use crate::samples::Samples;
use crate::targets::label_name;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{BufRead, Read};
use std::path::Path;

/// Which CSV column holds the labels.
///
/// ```
/// use kern_core::io::LabelColumn;
/// assert_eq!("-1".parse(), Ok(LabelColumn::Index(-1)));
/// assert_eq!("none".parse(), Ok(LabelColumn::NoLabel));
/// assert_eq!("species".parse(), Ok(LabelColumn::Name("species".into())));
/// assert_eq!(LabelColumn::default(), LabelColumn::Last);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LabelColumn {
    /// The last column (default).
    #[default]
    Last,
    /// Zero-based index; negative counts from the end (`-1` is the last column).
    Index(isize),
    /// The column with this header name.
    Name(String),
    /// No label column: every column is a feature.
    NoLabel,
}

impl std::str::FromStr for LabelColumn {
    type Err = std::convert::Infallible;
    /// An integer is an index, `none` means no label column, anything else is a header name.
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        Ok(match s.parse::<isize>() {
            Ok(i) => LabelColumn::Index(i),
            Err(_) if s.eq_ignore_ascii_case("none") => LabelColumn::NoLabel,
            Err(_) => LabelColumn::Name(s.to_string()),
        })
    }
}

/// What to do with a row that holds a missing-value marker (in a feature or the label column).
///
/// ```
/// use kern_core::io::MissingPolicy;
/// assert_eq!(MissingPolicy::default(), MissingPolicy::Reject);
/// assert_eq!("drop".parse::<MissingPolicy>(), Ok(MissingPolicy::Drop));
/// assert_eq!("error".parse::<MissingPolicy>(), Ok(MissingPolicy::Reject));
/// assert!("skip".parse::<MissingPolicy>().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum MissingPolicy {
    /// Fail naming the file, line and column (the default): every input row gives one sample.
    #[default]
    Reject,
    /// Drop the row; [`Dataset::dropped_lines`] lists the lines dropped.
    Drop,
}

impl std::str::FromStr for MissingPolicy {
    type Err = String;
    /// `error` (or `reject`) and `drop`.
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "error" | "reject" => Ok(MissingPolicy::Reject),
            "drop" => Ok(MissingPolicy::Drop),
            _ => Err(format!("unknown missing-value policy {s:?} (use error or drop)")),
        }
    }
}

/// Options of [`read_csv`] and [`read_csv_as`].
///
/// ```
/// use kern_core::io::{CsvOptions, LabelColumn, MissingPolicy};
/// let o = CsvOptions { label: LabelColumn::Name("num".into()), missing: MissingPolicy::Drop, ..Default::default() };
/// assert_eq!(o.missing_markers, vec!["?".to_string(), "NA".to_string(), String::new()]);
/// assert_eq!(CsvOptions::default().missing, MissingPolicy::Reject);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CsvOptions {
    /// `Some(true)`: the first line is a header; `Some(false)`: it is data; `None`: detect. Detection
    /// compares the first line with the lines after it (up to 100), column by column: the first line
    /// is a header when one of its fields is not a number in a column whose other values are all
    /// numbers (`400,410,420,label` over numeric rows), when none of its fields is a number, or when
    /// its text fields differ in kind from their columns' values: they never reappear in a column
    /// whose values repeat (`400,410,420,label` over rows labelled `cat` and `dog`; a first row
    /// labelled `cat` over such rows is data), or their length differs from a column whose values
    /// all have one length. Missing-value markers count for nothing. A header of numbers only over
    /// numeric rows cannot be told from data: force it with `Some(true)`.
    pub header: Option<bool>,
    /// The delimiter; `None` detects `,`, `;` or tab from the first line.
    pub delimiter: Option<char>,
    /// The label column ([`read_csv`]; [`read_csv_as`] takes the training schema's).
    pub label: LabelColumn,
    /// Field values that mean "missing" (compared after trimming and quote stripping;
    /// [`read_csv_as`] takes the training schema's).
    pub missing_markers: Vec<String>,
    /// What to do with rows holding a missing value (default: an error naming the line and column).
    pub missing: MissingPolicy,
    /// One-hot encode feature columns holding non-numeric values (categories sorted); when false such a
    /// value is an error naming the line and column ([`read_csv`]; [`read_csv_as`] follows the schema).
    pub one_hot: bool,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            header: None,
            delimiter: None,
            label: LabelColumn::Last,
            missing_markers: vec!["?".into(), "NA".into(), String::new()],
            missing: MissingPolicy::Reject,
            one_hot: false,
        }
    }
}

/// Occurrences of `c` outside double quotes.
fn count_unquoted(line: &str, c: char) -> usize {
    let mut quoted = false;
    line.chars()
        .filter(|&ch| {
            if ch == '"' {
                quoted = !quoted;
            }
            ch == c && !quoted
        })
        .count()
}

/// The input of the CSV parser without its empty lines, noting where they were: the parser counts
/// a record's line from the empty lines before it, so they are dropped here and added back in error
/// messages to name the right line (`dropped` holds output offsets, one per dropped line).
struct BlankLines<R> {
    inner: R,
    emitted: u64,
    line_start: bool,
    dropped: std::rc::Rc<std::cell::RefCell<Vec<u64>>>,
}

impl<R: Read> Read for BlankLines<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let n = self.inner.read(buf)?;
            let mut kept = 0;
            for i in 0..n {
                let b = buf[i];
                if b == b'\n' && self.line_start {
                    self.dropped.borrow_mut().push(self.emitted + kept as u64);
                    continue;
                }
                self.line_start = b == b'\n' || (b == b'\r' && self.line_start);
                buf[kept] = b;
                kept += 1;
            }
            self.emitted += kept as u64;
            if kept > 0 || n == 0 {
                return Ok(kept);
            }
        }
    }
}

fn csv_err(path: &Path, line: usize, e: ::csv::Error) -> crate::CoreError {
    let reason = e.to_string();
    match e.into_kind() {
        ::csv::ErrorKind::Io(io) => io_err(path, io),
        _ => parse_err(path, line, reason),
    }
}

/// A record with the 1-based line it starts on.
type Row = (usize, ::csv::StringRecord);

/// The records of a CSV file with the 1-based line each starts on (empty lines skipped).
type Records<'a> = Box<dyn Iterator<Item = Result<Row>> + 'a>;

/// How many lines after the first the header detection ([`looks_like_header`]) looks at.
///
/// ```
/// assert_eq!(kern_core::io::HEADER_SAMPLE, 100);
/// ```
pub const HEADER_SAMPLE: usize = 100;

/// Opens a CSV file: the delimiter (`delimiter`, else detected from the first non-blank line, else
/// `fallback`) and its records.
fn open_records(path: &Path, delimiter: Option<char>, fallback: char) -> Result<(char, Records<'_>)> {
    let mut reader = open_lines(path)?;
    // The first non-blank line decides the delimiter; it is read ahead and chained back.
    let mut head = String::new();
    let mut first_line = String::new();
    loop {
        let mut l = String::new();
        if reader.read_line(&mut l).map_err(|e| io_err(path, e))? == 0 {
            break;
        }
        head.push_str(&l);
        if !l.trim().trim_start_matches('\u{feff}').is_empty() {
            first_line = l;
            break;
        }
    }
    if first_line.is_empty() {
        return Err(parse_err(path, 0, "empty file"));
    }
    // A UTF-8 byte order mark before the first field is not part of it.
    let head = head.replacen('\u{feff}', "", 1);
    let delim = delimiter.unwrap_or_else(|| {
        [',', ';', '\t']
            .into_iter()
            .max_by_key(|c| count_unquoted(&first_line, *c))
            .filter(|c| count_unquoted(&first_line, *c) > 0)
            .unwrap_or(fallback)
    });
    if !delim.is_ascii() {
        return Err(parse_err(path, 0, format!("delimiter {delim:?} is not an ASCII character")));
    }
    let blanks = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let input = BlankLines {
        inner: std::io::Cursor::new(head.into_bytes()).chain(reader),
        emitted: 0,
        line_start: true,
        dropped: blanks.clone(),
    };
    let line_of = move |p: Option<&::csv::Position>| {
        p.map_or(0, |p| p.line() as usize + blanks.borrow().partition_point(|&o| o <= p.byte()))
    };
    let records = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delim as u8)
        .trim(::csv::Trim::All)
        .from_reader(input)
        .into_records()
        .map(move |r| match r {
            Ok(r) => Ok((line_of(r.position()), r)),
            Err(e) => {
                let line = line_of(e.position());
                Err(csv_err(path, line, e))
            }
        })
        .filter(|r: &Result<(usize, ::csv::StringRecord)>| {
            !matches!(r, Ok((_, rec)) if rec.len() == 1 && rec[0].is_empty())
        });
    Ok((delim, Box::new(records)))
}

/// The first record, and (when the header is to be detected) up to [`HEADER_SAMPLE`] records after it.
fn first_records(path: &Path, records: &mut Records<'_>, detect: bool) -> Result<(Row, Vec<Row>)> {
    let first = records.next().ok_or_else(|| parse_err(path, 0, "empty file"))??;
    let mut ahead = Vec::new();
    while detect && ahead.len() < HEADER_SAMPLE {
        match records.next() {
            Some(r) => ahead.push(r?),
            None => break,
        }
    }
    Ok((first, ahead))
}

/// [`looks_like_header`] over the records the reader holds.
fn header_of(
    first: &::csv::StringRecord,
    ahead: &[(usize, ::csv::StringRecord)],
    markers: &[String],
) -> bool {
    let first: Vec<&str> = first.iter().collect();
    let ahead: Vec<Vec<&str>> = ahead.iter().map(|(_, r)| r.iter().collect()).collect();
    looks_like_header(&first, &ahead, markers)
}

fn is_number(f: &str) -> bool {
    f.parse::<f64>().is_ok()
}

/// The header rule of [`CsvOptions::header`], column by column over the first line's field `f` and
/// the column's later values `V` (missing-value markers left out of both), in the spirit of Python's
/// `csv.Sniffer.has_header`:
///
/// 1. `f` is not a number in a column whose `V` are all numbers: a header.
/// 2. No field of the first line is a number: a header.
/// 3. Otherwise the text columns (some of `V` not a number) vote: `f` text and one of `V`: data
///    (-1); `f` text and none of `V`, where `V` looks categorical (at least `CATEGORICAL_ROWS` = 4
///    values, each at least twice) or all have one length that `f` does not have: a header (+1).
///    Numeric columns with a number in the first line do not vote (a number names a column as well
///    as it fills one). A header when the votes add up to more than zero.
///
/// Public so that a reader of a CSV file in parts (`kern-mpi`) decides exactly as [`read_csv`]
/// does: `first` is the first non-blank line's fields, `ahead` the fields of up to
/// [`HEADER_SAMPLE`] non-blank lines after it, `markers` the missing-value markers.
///
/// ```
/// use kern_core::io::looks_like_header;
/// let lines = ["1.2,3.4,cat", "0.5,2.5,dog", "1.5,0.5,cat", "2.5,1.0,dog"];
/// let ahead: Vec<Vec<&str>> = lines.iter().map(|l| l.split(',').collect()).collect();
/// assert!(looks_like_header(&["400", "410", "label"], &ahead, &[]));
/// assert!(!looks_like_header(&["0.1", "0.2", "cat"], &ahead, &[]));
/// assert!(looks_like_header(&["a", "b", "label"], &ahead, &[]));
/// ```
pub fn looks_like_header<S: AsRef<str>>(first: &[S], ahead: &[Vec<S>], markers: &[String]) -> bool {
    let informative = |f: &&str| !markers.iter().any(|m| m == f);
    let first: Vec<&str> = first.iter().map(AsRef::as_ref).collect();
    let fields: Vec<&str> = first.iter().copied().filter(informative).collect();
    if fields.is_empty() {
        return false;
    }
    let column = |j: usize| -> Vec<&str> {
        ahead.iter().filter_map(|r| r.get(j)).map(AsRef::as_ref).filter(informative).collect()
    };
    // Rule 1.
    let text_over_numbers =
        first.iter().enumerate().filter(|(_, f)| informative(f) && !is_number(f)).any(|(j, _)| {
            let later = column(j);
            !later.is_empty() && later.iter().all(|f| is_number(f))
        });
    if text_over_numbers {
        return true;
    }
    // Rule 2.
    if fields.iter().all(|f| !is_number(f)) {
        return true;
    }
    // Rule 3.
    let mut votes = 0i64;
    for (j, &f) in first.iter().enumerate() {
        if !informative(&f) || is_number(f) {
            continue;
        }
        let later = column(j);
        if later.iter().all(|v| is_number(v)) {
            continue; // no later values (rule 1 covers numeric ones)
        }
        votes += text_column_vote(f, &later);
    }
    votes > 0
}

/// How many later values a text column needs before "`f` never reappears" counts as a header.
const CATEGORICAL_ROWS: usize = 4;

/// The vote of a text column of [`looks_like_header`]: -1 when `f` is one of the later values, +1
/// when it differs in kind from them (they repeat and `f` is not among them, or they share a length
/// `f` does not have), 0 when nothing can be told.
fn text_column_vote(f: &str, later: &[&str]) -> i64 {
    if later.contains(&f) {
        return -1;
    }
    if later.len() < CATEGORICAL_ROWS {
        return 0;
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for v in later {
        *counts.entry(v).or_default() += 1;
    }
    let categorical = counts.values().all(|&c| c >= 2);
    let len = |s: &str| s.chars().count();
    let one_length = later.iter().all(|v| len(v) == len(later[0])) && len(f) != len(later[0]);
    i64::from(categorical || one_length)
}

/// `column "name"`, or `column J` (1-based) without a header.
fn describe(names: Option<&[String]>, j: usize) -> String {
    match names.and_then(|n| n.get(j)) {
        Some(n) => format!("column {n:?}"),
        None => format!("column {}", j + 1),
    }
}

fn missing_error(path: &Path, line: usize, column: &str, value: &str) -> crate::CoreError {
    let what = if value.is_empty() { "is empty".to_string() } else { format!("holds {value:?}") };
    parse_err(
        path,
        line,
        format!(
            "{column} {what}, a missing value; rows with missing values are refused so that every row \
             gets its prediction (to drop such rows instead, choose the drop policy for missing values)"
        ),
    )
}

/// A label as read: its text; a label naming NaN or an infinity is an error.
fn read_label(path: &Path, line: usize, column: &str, text: &str) -> Result<String> {
    if text.parse::<f64>().is_ok_and(|v| !v.is_finite()) {
        return Err(parse_err(
            path,
            line,
            format!(
                "{column}: label {text:?} is not a finite number; a label is a class name or a finite \
                 number (if it marks a missing value, add it to the missing-value markers)"
            ),
        ));
    }
    Ok(text.to_string())
}

/// The missing-value marker of a row in `cols`, if any: its column.
fn missing_in(
    rec: &::csv::StringRecord,
    cols: impl Iterator<Item = usize>,
    markers: &[String],
) -> Option<usize> {
    cols.into_iter().find(|&j| markers.iter().any(|m| m == &rec[j]))
}

enum Cell {
    Num(f64),
    Text(String),
}

/// Reads a CSV file (gzip when the name ends in `.gz`) and its [`CsvSchema`]
/// ([`Dataset::schema`]).
///
/// Every row gives one sample: a missing value is an error naming the line and column, unless
/// `opts.missing` is [`MissingPolicy::Drop`] (then [`Dataset::dropped_lines`] lists the lines
/// dropped). Labels are the text of the label column.
///
/// ```
/// use kern_core::io::{read_csv, CsvOptions, LabelColumn, MissingPolicy};
/// let p = std::env::temp_dir().join("kern-doc-read.csv");
/// std::fs::write(&p, "a;b;y\n1;\"x\";0\n2;\"z\";1\n?;\"x\";1\n").unwrap();
/// let opts = CsvOptions { one_hot: true, label: LabelColumn::Name("y".into()), ..Default::default() };
/// let err = read_csv(&p, &opts).unwrap_err().to_string();
/// assert!(err.contains(":4:") && err.contains("column \"a\""), "{err}");
/// let ds = read_csv(&p, &CsvOptions { missing: MissingPolicy::Drop, ..opts })?;
/// assert_eq!((ds.samples.n(), ds.dropped_lines.clone()), (2, vec![4])); // the row with "?" is dropped
/// assert_eq!(ds.feature_names, vec!["a", "b=x", "b=z"]);
/// assert_eq!(ds.samples.row(1), &[2.0, 0.0, 1.0]);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn read_csv(path: &Path, opts: &CsvOptions) -> Result<Dataset> {
    let (delim, mut records) = open_records(path, opts.delimiter, ',')?;
    let ((first_no, first_rec), ahead) = first_records(path, &mut records, opts.header.is_none())?;
    let ncol = first_rec.len();
    let header = opts.header.unwrap_or_else(|| header_of(&first_rec, &ahead, &opts.missing_markers));
    let names: Option<Vec<String>> = header.then(|| first_rec.iter().map(str::to_string).collect());
    let label_idx: Option<usize> = match &opts.label {
        LabelColumn::Last => Some(ncol - 1),
        LabelColumn::NoLabel => None,
        LabelColumn::Index(i) => {
            let k = if *i < 0 { ncol as isize + i } else { *i };
            if k < 0 || k as usize >= ncol {
                return Err(parse_err(path, first_no, format!("label column {i} out of range (0..{ncol})")));
            }
            Some(k as usize)
        }
        LabelColumn::Name(n) => {
            let Some(names) = &names else {
                return Err(parse_err(
                    path,
                    first_no,
                    format!("label column {n:?} named but the file has no header"),
                ));
            };
            Some(names.iter().position(|h| h == n).ok_or_else(|| {
                parse_err(path, first_no, format!("no column named {n:?}; columns: {}", names.join(", ")))
            })?)
        }
    };
    let feat_cols: Vec<usize> = (0..ncol).filter(|&j| Some(j) != label_idx).collect();
    if feat_cols.is_empty() {
        return Err(parse_err(path, first_no, "no feature columns"));
    }
    let col = |j: usize| describe(names.as_deref(), j);
    let mut cells: Vec<Vec<Cell>> = Vec::new();
    let mut labels = Vec::new();
    let mut dropped_lines = Vec::new();
    let body_first = if header { None } else { Some(Ok((first_no, first_rec.clone()))) };
    let body = body_first.into_iter().chain(ahead.into_iter().map(Ok)).chain(records);
    for rec in body {
        let (lineno, rec) = rec?;
        if rec.len() != ncol {
            return Err(parse_err(path, lineno, format!("{} fields, expected {ncol}", rec.len())));
        }
        if let Some(j) = missing_in(&rec, feat_cols.iter().copied().chain(label_idx), &opts.missing_markers) {
            match opts.missing {
                MissingPolicy::Drop => {
                    dropped_lines.push(lineno);
                    continue;
                }
                MissingPolicy::Reject => return Err(missing_error(path, lineno, &col(j), &rec[j])),
            }
        }
        let mut row = Vec::with_capacity(feat_cols.len());
        for &j in &feat_cols {
            let f = &rec[j];
            match f.parse::<f64>() {
                Ok(v) if v.is_finite() => row.push(Cell::Num(v)),
                Ok(_) => {
                    return Err(parse_err(path, lineno, format!("{}: non-finite value {f:?}", col(j))));
                }
                Err(_) if opts.one_hot => row.push(Cell::Text(f.to_string())),
                Err(_) => {
                    return Err(parse_err(
                        path,
                        lineno,
                        format!(
                            "{}: {f:?} is not a number (enable one-hot encoding for nominal columns)",
                            col(j)
                        ),
                    ));
                }
            }
        }
        labels.push(match label_idx {
            Some(k) => read_label(path, lineno, &col(k), &rec[k])?,
            None => String::new(),
        });
        cells.push(row);
    }
    if cells.is_empty() {
        return Err(parse_err(path, first_no, "no data rows"));
    }
    // Decide the encoding of every feature column: numeric, or one-hot over its sorted categories.
    let mut cats: Vec<Option<BTreeMap<String, usize>>> = vec![None; feat_cols.len()];
    for row in &cells {
        for (c, cell) in row.iter().enumerate() {
            if let Cell::Text(t) = cell {
                cats[c].get_or_insert_with(BTreeMap::new).insert(t.clone(), 0);
            }
        }
    }
    for (c, m) in cats.iter_mut().enumerate() {
        if let Some(m) = m {
            for row in &cells {
                if let Cell::Num(v) = row[c] {
                    m.insert(label_name(v), 0);
                }
            }
            for (k, v) in m.values_mut().enumerate() {
                *v = k;
            }
        }
    }
    let schema = CsvSchema {
        columns: names.clone(),
        n_columns: ncol,
        label: label_idx,
        features: feat_cols
            .iter()
            .zip(&cats)
            .map(|(&column, m)| CsvFeature {
                column,
                categories: m.as_ref().map(|m| m.keys().cloned().collect()),
            })
            .collect(),
        missing: opts.missing,
        missing_markers: opts.missing_markers.clone(),
        delimiter: delim,
    };
    let feature_names = schema.feature_names();
    let d = feature_names.len();
    // One feature per category: an ID-like column makes the dense matrix n × n. Size it first.
    let instead = match cats
        .iter()
        .enumerate()
        .filter_map(|(c, m)| Some((c, m.as_ref()?.len())))
        .max_by_key(|&(_, k)| k)
    {
        Some((c, k)) => format!(
            "{} has {k} distinct values (one feature each); if it is an identifier, drop it, or \
             turn one-hot encoding off",
            col(feat_cols[c])
        ),
        None => "use fewer rows or raise the memory limit".to_string(),
    };
    const WHAT: &str = "one-hot encoded features";
    let len = crate::memory::check_array::<f64>(&[cells.len(), d], WHAT, &instead)?;
    let mut data = crate::memory::try_with_capacity::<f64>(len, WHAT, &instead)?;
    for row in &cells {
        for (c, cell) in row.iter().enumerate() {
            match (&cats[c], cell) {
                (None, Cell::Num(v)) => data.push(*v),
                (Some(m), cell) => {
                    let hot = match cell {
                        Cell::Num(v) => m.get(&label_name(*v)),
                        Cell::Text(t) => m.get(t),
                    }
                    .copied()
                    .unwrap_or(usize::MAX); // every value of the column is one of its categories
                    data.extend((0..m.len()).map(|k| if k == hot { 1.0 } else { 0.0 }));
                }
                (None, Cell::Text(_)) => unreachable!("text cells always create a category map"),
            }
        }
    }
    let samples = Samples::from_flat(data, cells.len(), d)?;
    Ok(Dataset {
        samples,
        labels,
        feature_names,
        schema: Some(schema),
        dropped_lines,
        columns_reordered: false,
    })
}

/// Where each column of a training schema is in a test file.
struct Layout {
    /// The test column of each schema feature.
    features: Vec<usize>,
    /// The test column of the label, when the file has it.
    label: Option<usize>,
    /// The test file's header names, if it has a header.
    names: Option<Vec<String>>,
}

/// Matches a test file's first line against the training schema (see [`read_csv_as`]).
fn layout(
    path: &Path,
    line: usize,
    schema: &CsvSchema,
    first: &::csv::StringRecord,
    header: bool,
) -> Result<Layout> {
    let ncol = first.len();
    let names: Option<Vec<String>> = header.then(|| first.iter().map(str::to_string).collect());
    let positional = |what: &str| -> Result<Layout> {
        if ncol != schema.n_columns {
            return Err(parse_err(
                path,
                line,
                format!(
                    "{ncol} columns, the training data had {}; {what} must have the training columns in \
                     the training order",
                    schema.n_columns
                ),
            ));
        }
        Ok(Layout {
            features: schema.features.iter().map(|f| f.column).collect(),
            label: schema.label,
            names: names.clone(),
        })
    };
    let (Some(train), Some(test)) = (&schema.columns, &names) else {
        return positional(if header { "a file read by position" } else { "a file without header" });
    };
    let mut sorted: Vec<&String> = train.iter().collect();
    sorted.sort();
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        // Repeated training names cannot be matched by name: the header must be the training one.
        if test != train {
            return Err(parse_err(
                path,
                line,
                "the training columns have repeated names, so the header must repeat the training \
                 header exactly",
            ));
        }
        return positional("this file");
    }
    let find = |name: &str| -> Result<Option<usize>> {
        let mut hits = test.iter().enumerate().filter(|(_, n)| *n == name).map(|(j, _)| j);
        let first = hits.next();
        if first.is_some() && hits.next().is_some() {
            return Err(parse_err(path, line, format!("column {name:?} appears twice in the header")));
        }
        Ok(first)
    };
    let mut features = Vec::with_capacity(schema.features.len());
    for f in &schema.features {
        let name = &train[f.column];
        features.push(find(name)?.ok_or_else(|| {
            parse_err(
                path,
                line,
                format!(
                    "the training column {name:?} is missing (the model needs every training feature \
                     column; this file has: {})",
                    test.join(", ")
                ),
            )
        })?);
    }
    let label = match schema.label {
        Some(k) => find(&train[k])?,
        None => None,
    };
    Ok(Layout { features, label, names })
}

/// Reads a CSV file against the [`CsvSchema`] of the training data, so that its samples mean what the
/// training samples meant.
///
/// - **Columns by name**: when the training file had a header and this one has one, columns are found
///   by name: another order or extra columns are fine (the samples come out in the training order),
///   a missing feature column is an error naming it. Without a header (or against a schema without
///   names), the file must have the training column count, in the training order.
/// - **Header**: `opts.header` forces it; detected, the first line is a header when it holds every
///   training feature name, or by the rule of [`CsvOptions::header`].
/// - **Labels are optional**: the label column, when the file has it, gives [`Dataset::labels`];
///   without it the labels are empty ([`Dataset::has_labels`] is false).
/// - **One-hot columns use the training categories**: a value not seen in training is an error
///   naming the column, the value and the line; a numeric training column must hold numbers.
/// - **One sample per row**: a missing value (the training markers) is an error naming the line and
///   column, unless `opts.missing` is [`MissingPolicy::Drop`] ([`Dataset::dropped_lines`]).
///
/// The delimiter is `opts.delimiter`, else detected, else the training one. [`Dataset::schema`] is
/// the training schema; [`Dataset::columns_reordered`] says whether a feature column was found at
/// another place than in the training file.
///
/// ```
/// use kern_core::io::{read_csv, read_csv_as, CsvOptions};
/// let dir = std::env::temp_dir().join("kern-doc-read-as");
/// std::fs::create_dir_all(&dir).unwrap();
/// let (train, test) = (dir.join("train.csv"), dir.join("test.csv"));
/// std::fs::write(&train, "x,colour,y\n1,red,a\n2,blue,b\n").unwrap();
/// std::fs::write(&test, "colour,x,id\nblue,5,17\nred,6,18\n").unwrap(); // reordered, no label, extra id
/// let opts = CsvOptions { one_hot: true, ..Default::default() };
/// let schema = read_csv(&train, &opts)?.schema.unwrap();
/// let ds = read_csv_as(&test, &schema, &opts)?;
/// assert_eq!(ds.feature_names, ["x", "colour=blue", "colour=red"]);
/// assert_eq!(ds.samples.row(0), &[5.0, 1.0, 0.0]);
/// assert!(!ds.has_labels() && ds.columns_reordered);
/// std::fs::write(&test, "colour,x\ngreen,5\n").unwrap();
/// let err = read_csv_as(&test, &schema, &opts).unwrap_err().to_string();
/// assert!(err.contains(":2:") && err.contains("\"colour\"") && err.contains("\"green\""), "{err}");
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn read_csv_as(path: &Path, schema: &CsvSchema, opts: &CsvOptions) -> Result<Dataset> {
    schema.check()?;
    let markers = &schema.missing_markers;
    let (_, mut records) = open_records(path, opts.delimiter, schema.delimiter)?;
    let ((first_no, first_rec), ahead) = first_records(path, &mut records, opts.header.is_none())?;
    let header = opts.header.unwrap_or_else(|| {
        let has_names = schema.columns.as_ref().is_some_and(|train| {
            schema.features.iter().all(|f| first_rec.iter().any(|n| n == train[f.column]))
        });
        has_names || header_of(&first_rec, &ahead, markers)
    });
    let lay = layout(path, first_no, schema, &first_rec, header)?;
    let columns_reordered = schema.features.iter().zip(&lay.features).any(|(f, &j)| f.column != j);
    let ncol = first_rec.len();
    let col = |j: usize| match (&lay.names, &schema.columns) {
        (Some(n), _) => describe(Some(n.as_slice()), j),
        (None, Some(train)) if ncol == schema.n_columns => describe(Some(train.as_slice()), j),
        _ => describe(None, j),
    };
    let d = schema.n_features();
    let mut data: Vec<f64> = Vec::new();
    let mut labels = Vec::new();
    let mut dropped_lines = Vec::new();
    let body_first = if header { None } else { Some(Ok((first_no, first_rec.clone()))) };
    let body = body_first.into_iter().chain(ahead.into_iter().map(Ok)).chain(records);
    for rec in body {
        let (lineno, rec) = rec?;
        if rec.len() != ncol {
            return Err(parse_err(path, lineno, format!("{} fields, expected {ncol}", rec.len())));
        }
        if let Some(j) = missing_in(&rec, lay.features.iter().copied().chain(lay.label), markers) {
            match opts.missing {
                MissingPolicy::Drop => {
                    dropped_lines.push(lineno);
                    continue;
                }
                MissingPolicy::Reject => return Err(missing_error(path, lineno, &col(j), &rec[j])),
            }
        }
        for (f, &j) in schema.features.iter().zip(&lay.features) {
            let text = &rec[j];
            let num = text.parse::<f64>().ok();
            match &f.categories {
                None => match num {
                    Some(v) if v.is_finite() => data.push(v),
                    _ => {
                        return Err(parse_err(
                            path,
                            lineno,
                            format!(
                                "{}: {text:?} is not a finite number (the column was numeric in training)",
                                col(j)
                            ),
                        ));
                    }
                },
                Some(cats) => {
                    if num.is_some_and(|v| !v.is_finite()) {
                        return Err(parse_err(
                            path,
                            lineno,
                            format!("{}: non-finite value {text:?}", col(j)),
                        ));
                    }
                    let key = num.map_or_else(|| text.to_string(), label_name);
                    let Ok(hot) = cats.binary_search(&key) else {
                        let known: Vec<&str> = cats.iter().take(20).map(String::as_str).collect();
                        return Err(parse_err(
                            path,
                            lineno,
                            format!(
                                "{}: category {text:?} was not seen in training (the model knows {}{})",
                                col(j),
                                known.join(", "),
                                if cats.len() > 20 { ", ..." } else { "" }
                            ),
                        ));
                    };
                    data.extend((0..cats.len()).map(|k| if k == hot { 1.0 } else { 0.0 }));
                }
            }
        }
        labels.push(match lay.label {
            Some(k) => read_label(path, lineno, &col(k), &rec[k])?,
            None => String::new(),
        });
    }
    if labels.is_empty() {
        return Err(parse_err(path, first_no, "no data rows"));
    }
    let samples = Samples::from_flat(data, labels.len(), d)?;
    Ok(Dataset {
        samples,
        labels,
        feature_names: schema.feature_names(),
        schema: Some(schema.clone()),
        dropped_lines,
        columns_reordered,
    })
}
