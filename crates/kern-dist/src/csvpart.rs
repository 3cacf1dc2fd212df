//! CSV lines read in parts: the layout (delimiter, header, label column) is decided from the file's
//! first non-blank lines by every rank alike, then each line is parsed on its own, with the rules of
//! the one-process reader `kern_core::io::read_csv` (fields trimmed; its header rule,
//! `kern_core::io::looks_like_header`, over the first line and up to `HEADER_SAMPLE` lines after it; a missing value an
//! error unless the drop policy is chosen; labels kept as the text of the file, a non-finite label an
//! error). One-hot encoding needs every category of the file and quoted line breaks need the
//! previous line, so neither is supported in parts.

use crate::error::{DistError, Result};
use kern_core::io::{CsvOptions, HEADER_SAMPLE, LabelColumn, MissingPolicy, looks_like_header};
use std::io::BufRead;
use std::path::Path;

/// What one line of a CSV file held.
pub(crate) enum Line {
    /// A row, with its label (empty without a label column).
    Row(String),
    /// The header or a blank line.
    NoRow,
    /// A row dropped for a missing value (the drop policy).
    Dropped,
}

/// How every line of a CSV file is read.
pub(crate) struct Layout {
    delim: char,
    header_at: Option<u64>,
    names: Vec<String>,
    label: Option<usize>,
    missing: Vec<String>,
    reject: bool,
}

/// Fields of `line` split at `delim` outside double quotes, trimmed, quotes removed.
fn fields(line: &str, delim: char) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            c if c == delim && !quoted => out.push(String::new()),
            c => out.last_mut().expect("one field at least").push(c),
        }
    }
    out.iter().map(|f| f.trim().to_string()).collect()
}

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

impl Layout {
    /// Reads the first non-blank line of `path` and decides the layout.
    pub(crate) fn detect(path: &Path, opts: &CsvOptions) -> Result<Layout> {
        if opts.one_hot {
            return Err(DistError::Invalid(
                "one-hot encoding is not supported when reading a CSV file in parts".into(),
            ));
        }
        let io = |e| DistError::Io { path: path.to_path_buf(), source: e };
        let mut r = std::io::BufReader::new(std::fs::File::open(path).map_err(io)?);
        let (mut at, mut line) = (0u64, String::new());
        loop {
            line.clear();
            let got = r.read_line(&mut line).map_err(io)?;
            if got == 0 {
                let reason = "empty file".into();
                return Err(kern_core::CoreError::Parse { path: path.to_path_buf(), line: 0, reason }.into());
            }
            if !line.trim().trim_start_matches('\u{feff}').is_empty() {
                break;
            }
            at += got as u64;
        }
        let first = line.trim_end_matches(['\n', '\r']).replacen('\u{feff}', "", 1);
        let delim = opts.delimiter.unwrap_or_else(|| {
            [',', ';', '\t']
                .into_iter()
                .max_by_key(|c| count_unquoted(&first, *c))
                .filter(|c| count_unquoted(&first, *c) > 0)
                .unwrap_or(',')
        });
        let f = fields(&first, delim);
        let header = match opts.header {
            Some(h) => h,
            None => {
                let mut ahead = Vec::new();
                let mut next = String::new();
                while ahead.len() < HEADER_SAMPLE {
                    next.clear();
                    if r.read_line(&mut next).map_err(io)? == 0 {
                        break;
                    }
                    let l = next.trim_end_matches(['\n', '\r']);
                    if !l.trim().is_empty() {
                        ahead.push(fields(l, delim));
                    }
                }
                looks_like_header(&f, &ahead, &opts.missing_markers)
            }
        };
        let ncol = f.len();
        let names: Vec<String> = if header { f } else { (1..=ncol).map(|j| format!("f{j}")).collect() };
        let bad = |what: String| {
            DistError::Invalid(format!("label column {what} is not one of the {ncol} columns"))
        };
        let label = match &opts.label {
            LabelColumn::Last => Some(ncol - 1),
            LabelColumn::NoLabel => None,
            LabelColumn::Index(i) => {
                let j = if *i < 0 { ncol as isize + i } else { *i };
                if j < 0 || j as usize >= ncol {
                    return Err(bad(i.to_string()));
                }
                Some(j as usize)
            }
            LabelColumn::Name(n) if header => {
                Some(names.iter().position(|h| h == n).ok_or_else(|| bad(format!("{n:?}")))?)
            }
            LabelColumn::Name(n) => return Err(bad(format!("{n:?} (the file has no header)"))),
        };
        if ncol - usize::from(label.is_some()) == 0 {
            return Err(DistError::Invalid(format!("{}: no feature columns", path.display())));
        }
        Ok(Layout {
            delim,
            header_at: header.then_some(at),
            names,
            label,
            missing: opts.missing_markers.clone(),
            reject: opts.missing == MissingPolicy::Reject,
        })
    }

    /// The number of feature columns.
    pub(crate) fn d(&self) -> usize {
        self.names.len() - usize::from(self.label.is_some())
    }

    /// Parses the line starting at byte `at`: appends its nonzero features and returns its label,
    /// or says that the line holds no row (the header, a blank line) or that its row was dropped for
    /// a missing value.
    pub(crate) fn parse_line(
        &self,
        at: u64,
        line: &str,
        indices: &mut Vec<usize>,
        values: &mut Vec<f64>,
    ) -> std::result::Result<Line, String> {
        if Some(at) == self.header_at || line.trim().trim_start_matches('\u{feff}').is_empty() {
            return Ok(Line::NoRow);
        }
        if line.matches('"').count() % 2 == 1 {
            return Err("a quoted field spans lines, which reading in parts does not support".into());
        }
        let f = fields(line, self.delim);
        if f.len() != self.names.len() {
            return Err(format!("{} fields, expected {}", f.len(), self.names.len()));
        }
        if let Some(j) = f.iter().position(|v| self.missing.iter().any(|m| m == v)) {
            return if self.reject {
                Err(format!("missing value in column {:?}", self.names[j]))
            } else {
                Ok(Line::Dropped)
            };
        }
        let start = indices.len();
        let mut k = 0usize;
        for (j, v) in f.iter().enumerate() {
            if Some(j) == self.label {
                continue;
            }
            match v.parse::<f64>() {
                Ok(x) if x.is_finite() => {
                    if x != 0.0 {
                        indices.push(k);
                        values.push(x);
                    }
                }
                Ok(_) => {
                    indices.truncate(start);
                    values.truncate(start);
                    return Err(format!("column {:?}: non-finite value {v:?}", self.names[j]));
                }
                Err(_) => {
                    indices.truncate(start);
                    values.truncate(start);
                    return Err(format!("column {:?}: {v:?} is not a number", self.names[j]));
                }
            }
            k += 1;
        }
        match self.label {
            Some(j) if f[j].parse::<f64>().is_ok_and(|v| !v.is_finite()) => {
                indices.truncate(start);
                values.truncate(start);
                Err(format!(
                    "column {:?}: label {:?} is not a finite number; a label is a class name or a finite number",
                    self.names[j], f[j]
                ))
            }
            Some(j) => Ok(Line::Row(f[j].clone())),
            None => Ok(Line::Row(String::new())),
        }
    }
}
