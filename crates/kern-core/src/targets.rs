//! Targets: binary labels (±1), class labels (0..k) and real values, with the original label names kept.

use crate::error::{CoreError, Result};
use serde::{Deserialize, Serialize};

/// Sorts label names numerically when every name parses as a number, lexicographically otherwise,
/// and removes duplicates.
fn sorted_names(labels: &[String]) -> Vec<String> {
    let mut names: Vec<String> = labels.to_vec();
    names.sort();
    names.dedup();
    let numeric: Option<Vec<f64>> = names.iter().map(|s| s.trim().parse::<f64>().ok()).collect();
    if let Some(vals) = numeric {
        // Zero is one class whatever its sign or spelling (`0`, `-0`, `0.0`), named `0`.
        let mut pairs: Vec<(f64, String)> = vals
            .into_iter()
            .zip(names)
            .map(|(v, n)| if v == 0.0 { (0.0, label_name(0.0)) } else { (v, n) })
            .collect();
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        pairs.dedup_by(|a, b| a.0 == b.0);
        names = pairs.into_iter().map(|p| p.1).collect();
    }
    names
}

/// Canonical name of a numeric label: `1.0` → `"1"`, `-1.0` → `"-1"`, `0.5` → `"0.5"`; negative
/// zero is `"0"`, the same label as zero.
///
/// ```
/// assert_eq!(kern_core::label_name(-0.0), "0");
/// assert_eq!(kern_core::label_name(2.0), "2");
/// ```
pub fn label_name(v: f64) -> String {
    if v == 0.0 { "0".to_string() } else { format!("{v}") }
}

fn index_of(names: &[String], label: &str) -> Result<usize> {
    let found = match label.trim().parse::<f64>() {
        Ok(v) if names.iter().all(|n| n.trim().parse::<f64>().is_ok()) => {
            names.iter().position(|n| n.trim().parse::<f64>().ok() == Some(v))
        }
        _ => names.iter().position(|n| n == label),
    };
    found.ok_or_else(|| CoreError::Targets(format!("label {label:?} is none of the classes")))
}

/// Labels as owned strings, refusing a label that names NaN or an infinity (`NaN`, `inf`, `-Infinity`
/// parse as numbers, but they are no class and no target): the error names the sample.
fn checked_labels<S: AsRef<str>>(labels: &[S]) -> Result<Vec<String>> {
    labels
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let l = s.as_ref();
            if l.trim().parse::<f64>().is_ok_and(|v| !v.is_finite()) {
                return Err(CoreError::Targets(format!(
                    "the label of sample {i} (counting from 0) is {l:?}, not a finite number; a label is \
                     a class name or a finite number"
                )));
            }
            Ok(l.to_string())
        })
        .collect()
}

/// Two-class labels as ±1 with the original names: `names[0]` ↦ −1, `names[1]` ↦ +1, where the names
/// are sorted (numerically when they are numbers), the convention of scikit-learn's `classes_`.
///
/// ```
/// use kern_core::BinaryTargets;
/// let t = BinaryTargets::from_labels(&["4", "2", "4"])?;
/// assert_eq!(t.y(), &[1.0, -1.0, 1.0]);
/// assert_eq!(t.names(), &["2".to_string(), "4".to_string()]);
/// assert!(BinaryTargets::from_labels(&["a", "a"]).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BinaryTargets {
    y: Vec<f64>,
    names: [String; 2],
}

impl BinaryTargets {
    /// From any two-valued label column. Labels that all parse as numbers are compared as numbers
    /// (`1` and `1.0` are one label, named by its first spelling in text order); otherwise as text.
    ///
    /// # Errors
    /// Not exactly two distinct labels; a label naming NaN or an infinity (the error names the sample).
    ///
    /// ```
    /// let e = kern_core::BinaryTargets::from_labels(&["1", "NaN", "-1"]).unwrap_err().to_string();
    /// assert!(e.contains("sample 1") && e.contains("NaN"), "{e}");
    /// ```
    pub fn from_labels<S: AsRef<str>>(labels: &[S]) -> Result<Self> {
        let labels = checked_labels(labels)?;
        if labels.is_empty() {
            return Err(CoreError::Empty("no labels"));
        }
        let names = sorted_names(&labels);
        if names.len() != 2 {
            return Err(CoreError::Targets(format!(
                "binary targets need exactly 2 distinct labels, found {}: {:?}",
                names.len(),
                names.iter().take(10).collect::<Vec<_>>()
            )));
        }
        let y = labels
            .iter()
            .map(|l| Ok(if index_of(&names, l)? == 0 { -1.0 } else { 1.0 }))
            .collect::<Result<_>>()?;
        Ok(BinaryTargets { y, names: [names[0].clone(), names[1].clone()] })
    }

    /// From numeric labels with exactly two distinct values.
    ///
    /// ```
    /// let t = kern_core::BinaryTargets::from_f64(&[-1.0, 1.0, 1.0])?;
    /// assert_eq!(t.y(), &[-1.0, 1.0, 1.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn from_f64(labels: &[f64]) -> Result<Self> {
        if let Some(v) = labels.iter().find(|v| !v.is_finite()) {
            return Err(CoreError::Targets(format!("non-finite label {v}")));
        }
        let names: Vec<String> = labels.iter().map(|&v| label_name(v)).collect();
        Self::from_labels(&names)
    }

    /// Labels as ±1.
    pub fn y(&self) -> &[f64] {
        &self.y
    }

    /// Original names of the −1 and +1 classes.
    pub fn names(&self) -> &[String; 2] {
        &self.names
    }

    /// Number of labels.
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// True when there are no labels (never, for a constructed value).
    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    /// The original name of a decision: `names[1]` when `value > 0`, else `names[0]`.
    pub fn name_of(&self, value: f64) -> &str {
        if value > 0.0 { &self.names[1] } else { &self.names[0] }
    }

    /// The labels at `indices`, keeping the name mapping. Both classes must remain.
    pub fn select(&self, indices: &[usize]) -> Result<Self> {
        let y: Vec<f64> = select(&self.y, indices)?;
        Ok(BinaryTargets { y, names: self.names.clone() })
    }
}

/// Class labels `0..k` with the original names (`names[c]` is the name of class `c`), sorted as in
/// [`BinaryTargets`].
///
/// ```
/// let t = kern_core::ClassTargets::from_labels(&["g", "h", "g"])?;
/// assert_eq!(t.classes(), &[0, 1, 0]);
/// assert_eq!(t.n_classes(), 2);
/// assert_eq!(t.counts(), vec![2, 1]);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassTargets {
    classes: Vec<usize>,
    names: Vec<String>,
}

impl ClassTargets {
    /// From any label column with at least two distinct labels, compared as in
    /// [`BinaryTargets::from_labels`].
    ///
    /// # Errors
    /// Fewer than two distinct labels; a label naming NaN or an infinity (the error names the sample,
    /// never a class called `NaN`).
    ///
    /// ```
    /// assert!(kern_core::ClassTargets::from_labels(&["a", "b", "nan"]).is_err());
    /// let t = kern_core::ClassTargets::from_labels(&["02134", "10001", "02134"])?;
    /// assert_eq!(t.names(), &["02134", "10001"]); // the labels' own text
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn from_labels<S: AsRef<str>>(labels: &[S]) -> Result<Self> {
        let labels = checked_labels(labels)?;
        if labels.is_empty() {
            return Err(CoreError::Empty("no labels"));
        }
        let names = sorted_names(&labels);
        if names.len() < 2 {
            return Err(CoreError::Targets(format!(
                "classification needs at least 2 classes, found only {:?}",
                names
            )));
        }
        let classes = labels.iter().map(|l| index_of(&names, l)).collect::<Result<_>>()?;
        Ok(ClassTargets { classes, names })
    }

    /// From numeric labels.
    pub fn from_f64(labels: &[f64]) -> Result<Self> {
        if let Some(v) = labels.iter().find(|v| !v.is_finite()) {
            return Err(CoreError::Targets(format!("non-finite label {v}")));
        }
        let names: Vec<String> = labels.iter().map(|&v| label_name(v)).collect();
        Self::from_labels(&names)
    }

    /// Class index of every sample.
    pub fn classes(&self) -> &[usize] {
        &self.classes
    }

    /// Class names; `names()[c]` is the original label of class `c`.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.names.len()
    }

    /// Number of labels.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// True when there are no labels (never, for a constructed value).
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// Samples per class.
    pub fn counts(&self) -> Vec<usize> {
        let mut c = vec![0; self.names.len()];
        for &k in &self.classes {
            c[k] += 1;
        }
        c
    }

    /// The labels at `indices`, keeping all class names (some may have no sample left).
    pub fn select(&self, indices: &[usize]) -> Result<Self> {
        Ok(ClassTargets { classes: select(&self.classes, indices)?, names: self.names.clone() })
    }

    /// The binary targets of class `c` against all others (`+1` for class `c`).
    pub fn one_vs_rest(&self, c: usize) -> Result<BinaryTargets> {
        if c >= self.names.len() {
            return Err(CoreError::Targets(format!("class {c} out of range")));
        }
        let y: Vec<f64> = self.classes.iter().map(|&k| if k == c { 1.0 } else { -1.0 }).collect();
        if y.iter().all(|&v| v > 0.0) || y.iter().all(|&v| v < 0.0) {
            return Err(CoreError::Targets(format!("class {c} vs rest has only one class present")));
        }
        Ok(BinaryTargets { y, names: [format!("not {}", self.names[c]), self.names[c].clone()] })
    }
}

/// Real-valued targets (regression), all finite.
///
/// ```
/// let t = kern_core::RealTargets::new(vec![0.5, 1.5])?;
/// assert_eq!(t.values(), &[0.5, 1.5]);
/// assert!(kern_core::RealTargets::new(vec![f64::NAN]).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RealTargets {
    values: Vec<f64>,
}

impl RealTargets {
    /// Validates that every value is finite and there is at least one.
    pub fn new(values: Vec<f64>) -> Result<Self> {
        if values.is_empty() {
            return Err(CoreError::Empty("no targets"));
        }
        if let Some((i, v)) = values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(CoreError::Targets(format!("non-finite target {v} at row {i}")));
        }
        Ok(RealTargets { values })
    }

    /// The values.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Number of targets.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when there are no targets (never, for a constructed value).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The targets at `indices`.
    pub fn select(&self, indices: &[usize]) -> Result<Self> {
        Ok(RealTargets { values: select(&self.values, indices)? })
    }
}

/// Any of the three target kinds, as read from a file or passed to a learner.
///
/// ```
/// use kern_core::{Targets, RealTargets};
/// let t = Targets::Real(RealTargets::new(vec![1.0, 2.0])?);
/// assert_eq!(t.len(), 2);
/// assert!(t.check_len(3).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Targets {
    /// ±1 labels.
    Binary(BinaryTargets),
    /// Class indices.
    Classes(ClassTargets),
    /// Real values.
    Real(RealTargets),
}

impl Targets {
    /// Number of targets.
    pub fn len(&self) -> usize {
        match self {
            Targets::Binary(t) => t.len(),
            Targets::Classes(t) => t.len(),
            Targets::Real(t) => t.len(),
        }
    }

    /// True when empty (never, for a constructed value).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Error unless there are exactly `n` targets (one per sample).
    pub fn check_len(&self, n: usize) -> Result<()> {
        if self.len() != n {
            return Err(CoreError::Targets(format!("{} targets for {} samples", self.len(), n)));
        }
        Ok(())
    }

    /// The targets at `indices`.
    pub fn select(&self, indices: &[usize]) -> Result<Self> {
        Ok(match self {
            Targets::Binary(t) => Targets::Binary(t.select(indices)?),
            Targets::Classes(t) => Targets::Classes(t.select(indices)?),
            Targets::Real(t) => Targets::Real(t.select(indices)?),
        })
    }
}

fn select<T: Copy>(v: &[T], indices: &[usize]) -> Result<Vec<T>> {
    if indices.is_empty() {
        return Err(CoreError::Empty("no indices selected"));
    }
    indices
        .iter()
        .map(|&i| {
            v.get(i).copied().ok_or(CoreError::Dimension {
                what: "target index",
                expected: v.len(),
                found: i,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_names_sort_numerically() {
        let t = ClassTargets::from_labels(&["10", "9", "-1", "9.0"]).unwrap();
        assert_eq!(t.names(), &["-1", "9", "10"]);
        assert_eq!(t.classes(), &[2, 1, 0, 1]);
    }

    #[test]
    fn binary_mapping_kept() {
        let t = BinaryTargets::from_f64(&[2.0, 4.0, 2.0]).unwrap();
        assert_eq!(t.y(), &[-1.0, 1.0, -1.0]);
        assert_eq!(t.name_of(0.3), "4");
        assert!(BinaryTargets::from_f64(&[1.0, 2.0, 3.0]).is_err());
        assert!(BinaryTargets::from_f64(&[f64::NAN, 1.0]).is_err());
    }

    #[test]
    fn one_vs_rest() {
        let t = ClassTargets::from_labels(&["a", "b", "c", "a"]).unwrap();
        assert_eq!(t.one_vs_rest(0).unwrap().y(), &[1.0, -1.0, -1.0, 1.0]);
        assert!(t.one_vs_rest(3).is_err());
    }
}
