//! CSV (RFC 4180, through the `csv` crate: a quoted field may hold the delimiter, quotes and line
//! breaks): optional header, `,` `;` or tab delimiter, a UTF-8 byte order mark ignored, fields trimmed,
//! label column by name or index, missing-value markers skipped or rejected, nominal columns one-hot
//! encoded on request.

use super::{Dataset, io_err, normalize_label, open_lines, parse_err};
use crate::error::Result;
use crate::samples::Samples;
use crate::targets::label_name;
use std::collections::BTreeMap;
use std::io::{BufRead, Read};
use std::path::Path;

/// Which CSV column holds the labels.
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

/// What to do with a row that holds a missing-value marker.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MissingPolicy {
    /// Drop the row (counted in [`Dataset`]'s caller-visible row count).
    #[default]
    Skip,
    /// Fail with the file and line.
    Reject,
}

/// Options of [`read_csv`].
///
/// ```
/// use kern_core::io::{CsvOptions, LabelColumn, MissingPolicy};
/// let o = CsvOptions { label: LabelColumn::Name("num".into()), missing: MissingPolicy::Reject, ..Default::default() };
/// assert_eq!(o.missing_markers, vec!["?".to_string(), "NA".to_string(), String::new()]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CsvOptions {
    /// `Some(true)`: the first line is a header; `None`: detect (a header when no field of the first
    /// line is a number).
    pub header: Option<bool>,
    /// The delimiter; `None` detects `,`, `;` or tab from the first line.
    pub delimiter: Option<char>,
    /// The label column.
    pub label: LabelColumn,
    /// Field values that mean "missing" (compared after trimming and quote stripping).
    pub missing_markers: Vec<String>,
    /// What to do with rows holding a missing value.
    pub missing: MissingPolicy,
    /// One-hot encode feature columns holding non-numeric values (categories sorted); when false such a
    /// value is an error naming the line and column.
    pub one_hot: bool,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            header: None,
            delimiter: None,
            label: LabelColumn::Last,
            missing_markers: vec!["?".into(), "NA".into(), String::new()],
            missing: MissingPolicy::Skip,
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
    match e.into_kind() {
        ::csv::ErrorKind::Io(io) => io_err(path, io),
        other => parse_err(path, line, format!("{other:?}")),
    }
}

enum Cell {
    Num(f64),
    Text(String),
}

/// Reads a CSV file (gzip when the name ends in `.gz`).
///
/// ```
/// use kern_core::io::{read_csv, CsvOptions, LabelColumn};
/// let p = std::env::temp_dir().join("kern-doc-read.csv");
/// std::fs::write(&p, "a;b;y\n1;\"x\";0\n2;\"z\";1\n?;\"x\";1\n").unwrap();
/// let opts = CsvOptions { one_hot: true, label: LabelColumn::Name("y".into()), ..Default::default() };
/// let ds = read_csv(&p, &opts)?;
/// assert_eq!(ds.samples.n(), 2); // the row with "?" is skipped
/// assert_eq!(ds.feature_names, vec!["a", "b=x", "b=z"]);
/// assert_eq!(ds.samples.row(1), &[2.0, 0.0, 1.0]);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn read_csv(path: &Path, opts: &CsvOptions) -> Result<Dataset> {
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
    let delim = opts.delimiter.unwrap_or_else(|| {
        [',', ';', '\t']
            .into_iter()
            .max_by_key(|c| count_unquoted(&first_line, *c))
            .filter(|c| count_unquoted(&first_line, *c) > 0)
            .unwrap_or(',')
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
    let line_of = |p: Option<&::csv::Position>| {
        p.map_or(0, |p| p.line() as usize + blanks.borrow().partition_point(|&o| o <= p.byte()))
    };
    let mut records = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delim as u8)
        .trim(::csv::Trim::All)
        .from_reader(input)
        .into_records()
        .map(|r| match r {
            Ok(r) => Ok((line_of(r.position()), r)),
            Err(e) => {
                let line = line_of(e.position());
                Err(csv_err(path, line, e))
            }
        })
        .filter(|r: &Result<(usize, ::csv::StringRecord)>| {
            !matches!(r, Ok((_, rec)) if rec.len() == 1 && rec[0].is_empty())
        });
    let (first_no, first_rec) = records.next().ok_or_else(|| parse_err(path, 0, "empty file"))??;
    let first_fields: Vec<&str> = first_rec.iter().collect();
    let ncol = first_fields.len();
    let header = opts.header.unwrap_or_else(|| first_fields.iter().all(|f| f.parse::<f64>().is_err()));
    let names: Vec<String> = if header {
        first_fields.iter().map(|s| s.to_string()).collect()
    } else {
        (1..=ncol).map(|j| format!("f{j}")).collect()
    };
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
            if !header {
                return Err(parse_err(
                    path,
                    first_no,
                    format!("label column {n:?} named but the file has no header"),
                ));
            }
            Some(names.iter().position(|h| h == n).ok_or_else(|| {
                parse_err(path, first_no, format!("no column named {n:?}; columns: {}", names.join(", ")))
            })?)
        }
    };
    let feat_cols: Vec<usize> = (0..ncol).filter(|&j| Some(j) != label_idx).collect();
    if feat_cols.is_empty() {
        return Err(parse_err(path, first_no, "no feature columns"));
    }
    let mut cells: Vec<Vec<Cell>> = Vec::new();
    let mut labels = Vec::new();
    let body_first = if header { None } else { Some(Ok((first_no, first_rec.clone()))) };
    for rec in body_first.into_iter().chain(records) {
        let (lineno, rec) = rec?;
        let fields: Vec<&str> = rec.iter().collect();
        if fields.len() != ncol {
            return Err(parse_err(path, lineno, format!("{} fields, expected {ncol}", fields.len())));
        }
        let mut missing_col = None;
        let mut row = Vec::with_capacity(feat_cols.len());
        for &j in &feat_cols {
            let f = fields[j];
            if opts.missing_markers.iter().any(|m| m == f) {
                missing_col = Some(j);
                break;
            }
            match f.parse::<f64>() {
                Ok(v) if v.is_finite() => row.push(Cell::Num(v)),
                Ok(_) => {
                    return Err(parse_err(
                        path,
                        lineno,
                        format!("column {:?}: non-finite value {f:?}", names[j]),
                    ));
                }
                Err(_) if opts.one_hot => row.push(Cell::Text(f.to_string())),
                Err(_) => {
                    return Err(parse_err(
                        path,
                        lineno,
                        format!(
                            "column {:?}: {f:?} is not a number (enable one-hot encoding for nominal columns)",
                            names[j]
                        ),
                    ));
                }
            }
        }
        let label = label_idx.map(|k| fields[k]).unwrap_or("");
        if label_idx.is_some() && missing_col.is_none() && opts.missing_markers.iter().any(|m| m == label) {
            missing_col = label_idx;
        }
        if let Some(j) = missing_col {
            match opts.missing {
                MissingPolicy::Skip => continue,
                MissingPolicy::Reject => {
                    return Err(parse_err(path, lineno, format!("missing value in column {:?}", names[j])));
                }
            }
        }
        labels.push(if label_idx.is_some() { normalize_label(label) } else { String::new() });
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
    let mut feature_names = Vec::new();
    for (c, &j) in feat_cols.iter().enumerate() {
        match &cats[c] {
            None => feature_names.push(names[j].clone()),
            Some(m) => feature_names.extend(m.keys().map(|k| format!("{}={k}", names[j]))),
        }
    }
    let d = feature_names.len();
    // One feature per category: an ID-like column makes the dense matrix n × n. Size it first.
    let instead = match cats
        .iter()
        .enumerate()
        .filter_map(|(c, m)| Some((c, m.as_ref()?.len())))
        .max_by_key(|&(_, k)| k)
    {
        Some((c, k)) => format!(
            "column {:?} has {k} distinct values (one feature each); if it is an identifier, drop it, or \
             turn one-hot encoding off",
            names[feat_cols[c]]
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
                    let key = match cell {
                        Cell::Num(v) => label_name(*v),
                        Cell::Text(t) => t.clone(),
                    };
                    let hot = m[&key];
                    data.extend((0..m.len()).map(|k| if k == hot { 1.0 } else { 0.0 }));
                }
                (None, Cell::Text(_)) => unreachable!("text cells always create a category map"),
            }
        }
    }
    let samples = Samples::from_flat(data, cells.len(), d)?;
    Ok(Dataset { samples, labels, feature_names })
}
