//! [`CsvSchema`]: what a CSV training file's columns were, so that test data is read the same way
//! ([`super::read_csv_as`]) and a model can store it.

use super::csv::MissingPolicy;
use crate::error::{CoreError, Result};
use serde::{Deserialize, Serialize};

/// One feature column of a [`CsvSchema`]: where it was in the training file and how it is encoded.
///
/// ```
/// use kern_core::io::{CsvFeature, CsvSchema, MissingPolicy};
/// let colour = CsvFeature { column: 0, categories: Some(vec!["blue".into(), "red".into()]) };
/// let size = CsvFeature { column: 2, categories: None };
/// let s = CsvSchema {
///     columns: Some(vec!["colour".into(), "label".into(), "size".into()]), n_columns: 3, label: Some(1),
///     features: vec![colour, size], missing: MissingPolicy::Reject, missing_markers: vec![], delimiter: ',',
/// };
/// assert!(s.check().is_ok());
/// assert_eq!(s.feature_names(), ["colour=blue", "colour=red", "size"]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CsvFeature {
    /// Zero-based column of the training file.
    pub column: usize,
    /// `None`: a numeric column (one feature). `Some(categories)`: a one-hot encoded column, one
    /// feature per category, the categories sorted and distinct (numbers in such a column are
    /// compared by their canonical name, [`crate::label_name`]).
    pub categories: Option<Vec<String>>,
}

/// The input schema of a CSV training file, as [`super::read_csv`] found it: the columns in file
/// order, which one held the labels, how each feature column is encoded (numeric, or one-hot over
/// the training categories), the missing-value policy and markers, and the delimiter.
///
/// [`super::read_csv_as`] reads test data against it (columns matched by name and reordered, the
/// training categories reused); a model stores it so that prediction does the same.
///
/// ```
/// use kern_core::io::{read_csv, CsvOptions};
/// let p = std::env::temp_dir().join("kern-doc-schema.csv");
/// std::fs::write(&p, "colour,size,label\nred,1,a\nblue,2,b\n").unwrap();
/// let ds = read_csv(&p, &CsvOptions { one_hot: true, ..Default::default() })?;
/// let s = ds.schema.expect("a CSV file has a schema");
/// assert_eq!(s.columns.as_deref(), Some(&["colour".to_string(), "size".into(), "label".into()][..]));
/// assert_eq!(s.label_name().as_deref(), Some("label"));
/// assert_eq!(s.feature_names(), ["colour=blue", "colour=red", "size"]);
/// assert_eq!(s.n_features(), 3);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CsvSchema {
    /// The header's column names in file order; `None` for a file without a header.
    pub columns: Option<Vec<String>>,
    /// The number of columns of the file.
    pub n_columns: usize,
    /// The zero-based label column, `None` when every column was a feature.
    pub label: Option<usize>,
    /// The feature columns, in the order of their features.
    pub features: Vec<CsvFeature>,
    /// What was done with rows holding a missing value.
    pub missing: MissingPolicy,
    /// The field values that mean "missing".
    pub missing_markers: Vec<String>,
    /// The field delimiter.
    pub delimiter: char,
}

impl CsvSchema {
    /// The name of column `j`: its header name, or `column J` (1-based) in a file without header.
    pub fn column_name(&self, j: usize) -> String {
        match &self.columns {
            Some(c) => c.get(j).cloned().unwrap_or_else(|| format!("column {}", j + 1)),
            None => format!("column {}", j + 1),
        }
    }

    /// The label column's header name (`None` without a label column or without a header).
    pub fn label_name(&self) -> Option<String> {
        let j = self.label?;
        self.columns.as_ref()?.get(j).cloned()
    }

    /// The number of features after encoding (one per numeric column, one per category of a one-hot
    /// column).
    pub fn n_features(&self) -> usize {
        self.features.iter().map(|f| f.categories.as_ref().map_or(1, Vec::len)).sum()
    }

    /// The feature names after encoding: the column name (`fJ` without header, `J` the 1-based
    /// column), `name=category` for each category of a one-hot column.
    pub fn feature_names(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.n_features());
        for f in &self.features {
            let name = match &self.columns {
                Some(c) => c.get(f.column).cloned().unwrap_or_default(),
                None => format!("f{}", f.column + 1),
            };
            match &f.categories {
                None => out.push(name),
                Some(cats) => out.extend(cats.iter().map(|k| format!("{name}={k}"))),
            }
        }
        out
    }

    /// Checks a schema that was stored and read back: column indices in range and distinct, the
    /// label not a feature, categories sorted, distinct and not empty, an ASCII delimiter.
    ///
    /// ```
    /// use kern_core::io::{CsvFeature, CsvSchema, MissingPolicy};
    /// let mut s = CsvSchema {
    ///     columns: None, n_columns: 2, label: Some(1),
    ///     features: vec![CsvFeature { column: 0, categories: None }],
    ///     missing: MissingPolicy::Reject, missing_markers: vec![], delimiter: ',',
    /// };
    /// assert!(s.check().is_ok());
    /// s.features[0].column = 1; // the label column
    /// assert!(s.check().is_err());
    /// ```
    ///
    /// # Errors
    /// [`CoreError::Schema`] naming what is inconsistent.
    pub fn check(&self) -> Result<()> {
        let bad = |reason: String| Err(CoreError::Schema(reason));
        if self.n_columns == 0 {
            return bad("no columns".into());
        }
        if let Some(c) = &self.columns
            && c.len() != self.n_columns
        {
            return bad(format!("{} column names for {} columns", c.len(), self.n_columns));
        }
        if self.label.is_some_and(|l| l >= self.n_columns) {
            return bad("the label column is beyond the last column".into());
        }
        if self.features.is_empty() {
            return bad("no feature columns".into());
        }
        let mut seen = vec![false; self.n_columns];
        for f in &self.features {
            if f.column >= self.n_columns || Some(f.column) == self.label || seen[f.column] {
                return bad(format!(
                    "feature column {} is out of range, repeated or the label",
                    f.column + 1
                ));
            }
            seen[f.column] = true;
            if let Some(c) = &f.categories
                && (c.is_empty() || c.windows(2).any(|w| w[0] >= w[1]))
            {
                return bad(format!("the categories of column {} are not sorted and distinct", f.column + 1));
            }
        }
        if !self.delimiter.is_ascii() {
            return bad("the delimiter is not an ASCII character".into());
        }
        Ok(())
    }
}
