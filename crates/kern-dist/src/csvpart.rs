//! CSV lines read in parts: the layout (delimiter, header, label column) is decided from the file's
//! first non-blank line by every rank alike, then each line is parsed on its own, with the rules of
//! the one-process reader (fields trimmed, missing-value markers, labels normalized). One-hot encoding
//! needs every category of the file and quoted line breaks need the previous line, so neither is
//! supported in parts.

use crate::error::{DistError, Result};
use kern_core::io::{CsvOptions, LabelColumn, MissingPolicy};
use std::io::BufRead;
use std::path::Path;

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

fn normalize_label(s: &str) -> String {
    let t = s.trim().trim_matches('"');
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => kern_core::label_name(v),
        _ => t.to_string(),
    }
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
        let header = opts.header.unwrap_or_else(|| f.iter().all(|s| s.parse::<f64>().is_err()));
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

    /// Parses the line starting at byte `at`: appends its nonzero features and returns its label
    /// (`Ok(None)` for the header, a blank line, or a row skipped for a missing value).
    pub(crate) fn parse_line(
        &self,
        at: u64,
        line: &str,
        indices: &mut Vec<usize>,
        values: &mut Vec<f64>,
    ) -> std::result::Result<Option<String>, String> {
        if Some(at) == self.header_at || line.trim().trim_start_matches('\u{feff}').is_empty() {
            return Ok(None);
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
                Ok(None)
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
        Ok(Some(self.label.map(|j| normalize_label(&f[j])).unwrap_or_default()))
    }
}
