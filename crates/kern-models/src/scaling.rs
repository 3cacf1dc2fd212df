//! Feature scaling as LIBSVM's `svm-scale` does it, with its parameter file format, so that scaling
//! files written by `svm-scale -s` and by kern interoperate.
//!
//! Each feature `j` is mapped linearly from its training range `[min_j, max_j]` onto `[lower, upper]`
//! (default `[−1, 1]`): `v ↦ lower + (upper − lower)(v − min_j)/(max_j − min_j)`, with `v = min_j` and
//! `v = max_j` mapped exactly to `lower` and `upper`. Ranges are taken over every sample, zeros
//! included (a sparse file's absent coordinates are zeros). A feature with a single value in the
//! training data carries no information and is dropped (set to 0), as `svm-scale` drops it.
//!
//! Parameter file: optionally `y`, `y_lower y_upper`, `y_min y_max` (target scaling), then `x`,
//! `lower upper`, and one line `index min max` per scaled feature (1-based), numbers in `%.17g`.
//!
//! One deliberate difference: when scaling with restored parameters, `svm-scale` gives a feature that
//! the file does not list (single-valued in the training data) the range it has in the *new* data;
//! kern drops it, as it was dropped for training, so training and test data are scaled alike.
//!
//! ```
//! use kern_models::scaling::FeatureScaling;
//! use kern_core::Samples;
//! let x = Samples::from_rows(&[[0.0, 5.0, 1.0], [2.0, 5.0, 3.0], [4.0, 5.0, 2.0]])?;
//! let s = FeatureScaling::fit(&x, -1.0, 1.0)?;
//! assert_eq!(s.apply(&x)?.row(1), &[0.0, 0.0, 1.0]); // feature 2 is single-valued: dropped
//! assert_eq!(s.to_text(), "x\n-1 1\n1 0 4\n3 1 3\n");
//! assert_eq!(FeatureScaling::parse(&s.to_text(), "range")?, s);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{ModelsError, Result};
use crate::libsvm_model::fmt_g17;
use crate::persist::{self, Persist};
use kern_core::Samples;
use serde::{Deserialize, Serialize};

/// Target scaling of `svm-scale -y`: `[y_min, y_max] ↦ [y_lower, y_upper]`.
///
/// ```
/// use kern_models::scaling::FeatureScaling;
/// let x = kern_models::Samples::from_rows(&[[0.0], [1.0]])?;
/// let s = FeatureScaling::fit(&x, -1.0, 1.0)?.with_target(&[10.0, 20.0, 30.0], 0.0, 1.0)?;
/// let t = s.target().unwrap();
/// assert_eq!((t.min, t.max, t.lower, t.upper), (10.0, 30.0, 0.0, 1.0));
/// assert_eq!(s.apply_target(20.0), 0.5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TargetScaling {
    /// Lower end of the output range.
    pub lower: f64,
    /// Upper end of the output range.
    pub upper: f64,
    /// Smallest training target.
    pub min: f64,
    /// Largest training target.
    pub max: f64,
}

/// `svm-scale`'s feature scaling parameters.
///
/// ```
/// use kern_models::scaling::FeatureScaling;
/// let x = kern_models::Samples::from_rows(&[[0.0, 5.0], [2.0, 5.0], [4.0, 5.0]])?;
/// let s = FeatureScaling::fit(&x, -1.0, 1.0)?;
/// let y = s.apply(&x)?;
/// assert_eq!(y.row(1)[0], 0.0); // the midpoint of [0, 4] maps to the middle of [-1, 1]
/// let back = FeatureScaling::parse(&s.to_text(), "<text>")?;
/// assert_eq!(back, s); // the svm-scale text round trip is exact
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeatureScaling {
    lower: f64,
    upper: f64,
    /// `(1-based index, min, max)` with `min < max`, ascending index.
    ranges: Vec<(usize, f64, f64)>,
    target: Option<TargetScaling>,
}

fn check_limits(lower: f64, upper: f64) -> Result<()> {
    if !(lower.is_finite() && upper.is_finite() && upper > lower) {
        return Err(ModelsError::Input(format!(
            "inconsistent lower/upper specification: lower {lower}, upper {upper} (need finite lower < upper)"
        )));
    }
    Ok(())
}

/// `svm-scale`'s map of `v` from `[min, max]` onto `[lower, upper]`.
fn map(v: f64, min: f64, max: f64, lower: f64, upper: f64) -> f64 {
    if v == min {
        lower
    } else if v == max {
        upper
    } else {
        lower + (upper - lower) * (v - min) / (max - min)
    }
}

/// The `(index, min, max)` (1-based) of every feature that takes more than one value in `x`, zeros
/// included (a sparse sample's absent coordinates). `O(nnz)` memory for a sparse store.
fn varying_ranges(x: &Samples) -> Vec<(usize, f64, f64)> {
    if !x.is_sparse() {
        return x
            .feature_ranges()
            .into_iter()
            .enumerate()
            .filter(|(_, (lo, hi))| lo < hi)
            .map(|(j, (lo, hi))| (j + 1, lo, hi))
            .collect();
    }
    let mut entries: Vec<(usize, f64)> = Vec::with_capacity(x.nnz());
    for s in x.samples() {
        if let kern_core::SampleRef::Sparse { indices, values } = s {
            entries.extend(indices.iter().copied().zip(values.iter().copied()));
        }
    }
    entries.sort_unstable_by_key(|e| e.0);
    let mut out = Vec::new();
    for group in entries.chunk_by(|a, b| a.0 == b.0) {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &(_, v) in group {
            (lo, hi) = (lo.min(v), hi.max(v));
        }
        if group.len() < x.n() {
            (lo, hi) = (lo.min(0.0), hi.max(0.0));
        }
        if lo < hi {
            out.push((group[0].0 + 1, lo, hi));
        }
    }
    out
}

impl FeatureScaling {
    /// Ranges of every feature of `x`, to be mapped onto `[lower, upper]` (`svm-scale -l -u`).
    pub fn fit(x: &Samples, lower: f64, upper: f64) -> Result<Self> {
        check_limits(lower, upper)?;
        Ok(FeatureScaling { lower, upper, ranges: varying_ranges(x), target: None })
    }

    /// Adds target scaling from `y`'s range onto `[lower, upper]` (`svm-scale -y`).
    pub fn with_target(mut self, y: &[f64], lower: f64, upper: f64) -> Result<Self> {
        check_limits(lower, upper)?;
        let min = y.iter().copied().fold(f64::INFINITY, f64::min);
        let max = y.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !(min.is_finite() && max.is_finite()) {
            return Err(ModelsError::Input("target scaling needs finite targets".into()));
        }
        self.target = Some(TargetScaling { lower, upper, min, max });
        Ok(self)
    }

    /// The output range `(lower, upper)` of the features.
    pub fn limits(&self) -> (f64, f64) {
        (self.lower, self.upper)
    }

    /// The target scaling, if any.
    pub fn target(&self) -> Option<TargetScaling> {
        self.target
    }

    /// The largest feature index (1-based) the parameters list.
    pub fn n_features(&self) -> usize {
        self.ranges.last().map_or(0, |r| r.0)
    }

    /// Scales the features of `x` (its first `x.d()` features; listed features beyond are ignored, as
    /// `svm-scale` ignores them; unlisted ones become 0). Sparse samples stay sparse when the scaling
    /// maps every zero to zero (`lower = 0` on non-negative features), with at most the original
    /// non-zeros; otherwise they stay sparse in the dimension, with a value for every listed feature
    /// of every sample (those are at most the features with a non-zero in training, so a feature
    /// index of 10⁹ costs nothing). Dense samples stay dense.
    ///
    /// ```
    /// use kern_models::scaling::FeatureScaling;
    /// use kern_core::Samples;
    /// let x = Samples::from_csr(2, 1_000_000, vec![0, 1, 2], vec![7, 999_999], vec![2.0, 4.0])?;
    /// let s = FeatureScaling::fit(&x, 0.0, 1.0)?;
    /// let y = s.apply(&x)?;
    /// assert!(y.is_sparse());
    /// assert_eq!(y.nnz(), 2);
    /// assert_eq!(y.sample(1).dot(y.sample(1)), 1.0); // 4 on [0, 4] becomes 1
    /// // Onto [-1, 1] zeros become -1 in the two listed features only: still sparse, 4 values.
    /// let z = FeatureScaling::fit(&x, -1.0, 1.0)?.apply(&x)?;
    /// assert!(z.is_sparse() && z.nnz() == 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn apply(&self, x: &Samples) -> Result<Samples> {
        let d = x.d();
        let scaled = |v: f64, c: Option<(f64, f64)>| match c {
            Some((lo, hi)) => map(v, lo, hi, self.lower, self.upper),
            None => 0.0,
        };
        let listed = self.ranges.iter().filter(|r| r.0 <= d);
        // A sparse store stays sparse when every column maps 0 to 0 (for example `lower = 0` on
        // non-negative features): the scaled data has at most the original non-zeros, and nothing of
        // size d is allocated (a text collection may have millions of features).
        if x.is_sparse() && listed.clone().all(|&(_, lo, hi)| scaled(0.0, Some((lo, hi))) == 0.0) {
            let range_of = |j: usize| {
                let k = self.ranges.binary_search_by_key(&(j + 1), |r| r.0).ok()?;
                Some((self.ranges[k].1, self.ranges[k].2))
            };
            let (mut indptr, mut indices, mut values) = (vec![0], Vec::new(), Vec::new());
            for s in x.samples() {
                if let kern_core::SampleRef::Sparse { indices: ix, values: vs } = s {
                    for (&j, &v) in ix.iter().zip(vs) {
                        let m = scaled(v, range_of(j));
                        if m != 0.0 {
                            indices.push(j);
                            values.push(m);
                        }
                    }
                }
                indptr.push(indices.len());
            }
            return Ok(Samples::from_csr(x.n(), d, indptr, indices, values)?);
        }
        // A sparse store whose zeros do not stay zero: only the listed columns (at most the columns
        // with a non-zero in training) get values, so the result stays sparse in d, with up to n times
        // the listed columns' count of values.
        if x.is_sparse() {
            let listed: Vec<(usize, f64, f64)> = listed.map(|&(j, lo, hi)| (j - 1, lo, hi)).collect();
            kern_core::memory::check_array::<(usize, f64)>(
                &[x.n(), listed.len()],
                "the scaled features",
                "scale onto a range starting at 0 on non-negative features, which keeps zeros at zero",
            )?;
            let (mut indptr, mut indices, mut values) = (vec![0], Vec::new(), Vec::new());
            for s in x.samples() {
                if let kern_core::SampleRef::Sparse { indices: ix, values: vs } = s {
                    for &(j, lo, hi) in &listed {
                        let v = ix.binary_search(&j).map_or(0.0, |k| vs[k]);
                        let m = map(v, lo, hi, self.lower, self.upper);
                        if m != 0.0 {
                            indices.push(j);
                            values.push(m);
                        }
                    }
                }
                indptr.push(indices.len());
            }
            return Ok(Samples::from_csr(x.n(), d, indptr, indices, values)?);
        }
        // Per column: Some((min, max)) or None (dropped).
        let mut col: Vec<Option<(f64, f64)>> = vec![None; d];
        for &(j, lo, hi) in listed {
            col[j - 1] = Some((lo, hi));
        }
        let x = x.densify("the dense scaled features")?;
        let mut data = Vec::with_capacity(x.n() * d);
        for r in x.rows() {
            data.extend(r.iter().zip(&col).map(|(&v, &c)| scaled(v, c)));
        }
        Ok(Samples::from_flat(data, x.n(), d)?)
    }

    /// Scales a target value (identity without target scaling; single-valued targets unchanged).
    pub fn apply_target(&self, y: f64) -> f64 {
        match self.target {
            Some(t) if t.min < t.max => map(y, t.min, t.max, t.lower, t.upper),
            _ => y,
        }
    }

    /// The parameter file's text, as `svm-scale -s` writes it.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        if let Some(t) = self.target {
            s += &format!(
                "y\n{} {}\n{} {}\n",
                fmt_g17(t.lower),
                fmt_g17(t.upper),
                fmt_g17(t.min),
                fmt_g17(t.max)
            );
        }
        s += &format!("x\n{} {}\n", fmt_g17(self.lower), fmt_g17(self.upper));
        for &(j, lo, hi) in &self.ranges {
            s += &format!("{j} {} {}\n", fmt_g17(lo), fmt_g17(hi));
        }
        s
    }

    /// Reads a parameter file (`svm-scale -s` output, or [`FeatureScaling::to_text`]). `path` names the
    /// source in errors.
    pub fn parse(text: &str, path: &str) -> Result<Self> {
        let err = |r: String| ModelsError::Input(format!("{path}: not a valid scaling parameter file: {r}"));
        let mut words = text.split_ascii_whitespace().peekable();
        let num = |what: &str, w: Option<&str>| -> Result<f64> {
            let w = w.ok_or_else(|| err(format!("missing {what}")))?;
            w.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| err(format!("{what}: {w:?} is not a number")))
        };
        let mut target = None;
        if words.peek() == Some(&"y") {
            words.next();
            let lower = num("y_lower", words.next())?;
            let upper = num("y_upper", words.next())?;
            let min = num("y_min", words.next())?;
            let max = num("y_max", words.next())?;
            target = Some(TargetScaling { lower, upper, min, max });
        }
        if words.next() != Some("x") {
            return Err(err("expected the line \"x\"".into()));
        }
        let lower = num("lower", words.next())?;
        let upper = num("upper", words.next())?;
        check_limits(lower, upper).map_err(|e| err(e.to_string()))?;
        let mut ranges: Vec<(usize, f64, f64)> = Vec::new();
        while let Some(w) = words.next() {
            let j: usize =
                w.parse().ok().filter(|&j| j >= 1).ok_or_else(|| err(format!("feature index {w:?}")))?;
            let lo = num("min", words.next())?;
            let hi = num("max", words.next())?;
            if ranges.last().is_some_and(|r| r.0 >= j) {
                return Err(err(format!("feature indices must ascend (index {j})")));
            }
            if lo < hi {
                ranges.push((j, lo, hi));
            }
        }
        Ok(FeatureScaling { lower, upper, ranges, target })
    }
}

impl FeatureScaling {
    /// What [`FeatureScaling::parse`] guarantees, checked on a decoded value: finite limits with
    /// `lower < upper`, ascending 1-based indices with finite `min < max`, a finite target scaling.
    fn check(&self) -> std::result::Result<(), String> {
        check_limits(self.lower, self.upper).map_err(|e| e.to_string())?;
        let mut last = 0;
        for &(j, lo, hi) in &self.ranges {
            if j <= last {
                return Err(format!("feature indices must ascend from 1 (index {j})"));
            }
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return Err(format!("feature {j}: range [{lo}, {hi}] is not finite with min < max"));
            }
            last = j;
        }
        if let Some(t) = self.target
            && ![t.lower, t.upper, t.min, t.max].iter().all(|v| v.is_finite())
        {
            return Err("the target scaling is not finite".into());
        }
        Ok(())
    }
}

/// A trained model stored together with the feature scaling of its training data (`kern train
/// --scale`): prediction scales new samples with the same parameters first. The inner model is kept as
/// a complete kern model file (its own header and payload), so any model kind can be wrapped and is
/// validated by its own rules when unwrapped.
///
/// ```
/// use kern_models::scaling::{FeatureScaling, ScaledModel};
/// use kern_models::svm::{Svc, SvcParams};
/// use kern_models::{BinaryTargets, Fit, Model, Samples};
///
/// let raw = Samples::from_rows(&[[0.0, 100.0], [1.0, 300.0], [4.0, 100.0], [5.0, 500.0]])?;
/// let y = BinaryTargets::from_f64(&[-1.0, -1.0, 1.0, 1.0])?;
/// let scaling = FeatureScaling::fit(&raw, -1.0, 1.0)?;
/// let svc = SvcParams::new("gaussian:sigma=1".parse()?).fit(&scaling.apply(&raw)?, &y)?;
/// let stored = ScaledModel::wrap(scaling.clone(), raw.d(), &svc)?;
/// let bytes = kern_models::persist::to_bytes(&stored)?;
///
/// let back: ScaledModel = kern_models::persist::from_bytes(&bytes, "<bytes>")?;
/// assert_eq!(back.inner_kind(), "svc");
/// let model: Svc = back.unwrap_model()?;
/// // Raw samples in, scaled as for training:
/// assert_eq!(model.predict(&back.scaling().apply(&raw)?)?, svc.predict(&scaling.apply(&raw)?)?);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScaledModel {
    scaling: FeatureScaling,
    /// The training data's dimension (new samples are brought to it before scaling).
    d: usize,
    /// The inner model's kind tag.
    kind: String,
    /// The inner model as a complete kern model file.
    model: Vec<u8>,
}

impl ScaledModel {
    /// Wraps `model`, trained on `d`-dimensional samples scaled by `scaling`.
    ///
    /// # Errors
    /// A target scaling (`svm-scale -y`) is refused: models store feature scaling only.
    pub fn wrap<M: Persist>(scaling: FeatureScaling, d: usize, model: &M) -> Result<Self> {
        if scaling.target.is_some() {
            return Err(ModelsError::Input(
                "a scaling with a target section (svm-scale -y) cannot be stored in a model: scale the \
                 targets separately"
                    .into(),
            ));
        }
        if scaling.n_features() > d {
            return Err(ModelsError::Input(format!(
                "the scaling lists feature {}, the training data has {d} features",
                scaling.n_features()
            )));
        }
        Ok(ScaledModel { scaling, d, kind: M::KIND.to_string(), model: persist::to_bytes(model)? })
    }

    /// An envelope of an inner model file's bytes (`kind` its kind tag), checked as a loaded one is.
    pub(crate) fn wrap_bytes(
        scaling: FeatureScaling,
        d: usize,
        kind: String,
        model: Vec<u8>,
    ) -> Result<Self> {
        let m = ScaledModel { scaling, d, kind, model };
        m.validate().map_err(ModelsError::Input)?;
        Ok(m)
    }

    /// The feature scaling applied before the inner model.
    pub fn scaling(&self) -> &FeatureScaling {
        &self.scaling
    }

    /// The training data's dimension.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// The inner model's kind tag (`"svc"`, `"lssvm"`, …).
    pub fn inner_kind(&self) -> &str {
        &self.kind
    }

    /// The inner model as a kern model file (header and payload), for readers that dispatch on its kind.
    pub fn inner_bytes(&self) -> &[u8] {
        &self.model
    }

    /// Decodes the inner model.
    ///
    /// # Errors
    /// [`ModelsError::Format`] when the inner model is not a valid `M`.
    pub fn unwrap_model<M: Persist>(&self) -> Result<M> {
        persist::from_bytes(&self.model, "<scaled model>")
    }
}

/// What a scaling stored with a model must be: valid ([`FeatureScaling::parse`]'s rules), without a
/// target section, listing no feature beyond the training dimension `d`.
pub(crate) fn check_stored_scaling(s: &FeatureScaling, d: usize) -> std::result::Result<(), String> {
    s.check()?;
    if s.target.is_some() {
        return Err("a stored scaling has no target section".into());
    }
    if s.n_features() > d {
        return Err(format!("the scaling lists feature {} of {d} features", s.n_features()));
    }
    Ok(())
}

impl Persist for ScaledModel {
    const KIND: &'static str = "scaled";

    fn validate(&self) -> std::result::Result<(), String> {
        check_stored_scaling(&self.scaling, self.d)?;
        if self.kind == Self::KIND {
            return Err("a scaled model wraps another scaled model".into());
        }
        let inner = persist::peek_kind(&self.model, "<scaled model>").map_err(|e| e.to_string())?;
        if inner != self.kind {
            return Err(format!("the inner model is {inner:?}, the envelope says {:?}", self.kind));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_svm_scale_output_with_target_section() {
        let t = "y\n0 1\n-3 5\nx\n-1 1\n1 0.5 2\n4 -1 1\n";
        let s = FeatureScaling::parse(t, "r").unwrap();
        assert_eq!(s.to_text(), t);
        assert_eq!(s.apply_target(5.0), 1.0);
        assert_eq!(s.apply_target(1.0), 0.5);
        let x = Samples::from_rows(&[[2.0, 7.0, 7.0, 0.0, 9.0]]).unwrap();
        assert_eq!(s.apply(&x).unwrap().row(0), &[1.0, 0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn bad_files_are_errors() {
        for t in ["", "x\n1 -1\n", "x\n-1 1\n2 0 1\n1 0 1\n", "z\n", "x\n-1 1\n0 0 1\n", "x\n-1 1\n1 a 2\n"] {
            assert!(FeatureScaling::parse(t, "r").is_err(), "{t:?}");
        }
        let x = Samples::from_rows(&[[1.0]]).unwrap();
        assert!(FeatureScaling::fit(&x, 1.0, 1.0).is_err());
    }

    proptest! {
        #![proptest_config(kern_testkit::proptest_config(32))]
        /// Scaled training data lies in [lower, upper] and attains both ends on every varying feature;
        /// the parameters survive their text.
        #[test]
        fn training_data_fills_the_range(rows in proptest::collection::vec(proptest::collection::vec(-50.0..50.0f64, 3), 2..12), lo in -5.0..0.0f64, w in 0.5..5.0f64) {
            let x = Samples::from_rows(&rows).unwrap();
            let s = FeatureScaling::fit(&x, lo, lo + w).unwrap();
            let z = s.apply(&x).unwrap();
            for j in 0..3 {
                let col: Vec<f64> = z.rows().map(|r| r[j]).collect();
                let varies = rows.iter().any(|r| r[j] != rows[0][j]);
                if varies {
                    prop_assert!(col.iter().all(|&v| v >= lo && v <= lo + w));
                    prop_assert!(col.contains(&lo) && col.contains(&(lo + w)));
                } else {
                    prop_assert!(col.iter().all(|&v| v == 0.0));
                }
            }
            prop_assert_eq!(FeatureScaling::parse(&s.to_text(), "r").unwrap(), s);
        }

        /// The sparse store scales to the same values as its dense copy and stays sparse, with no more
        /// values than before when the scaling maps zero to zero (lower = 0 on non-negative features).
        #[test]
        fn sparse_and_dense_stores_scale_alike(rows in proptest::collection::vec(proptest::collection::vec(prop_oneof![Just(0.0), 0.0..9.0f64], 4), 2..10), lower in prop_oneof![Just(0.0), -2.0..0.0f64]) {
            let dense = Samples::from_rows(&rows).unwrap();
            let sparse = dense.to_sparse();
            let s = FeatureScaling::fit(&dense, lower, lower + 1.0).unwrap();
            prop_assert_eq!(&FeatureScaling::fit(&sparse, lower, lower + 1.0).unwrap(), &s);
            let (zd, zs) = (s.apply(&dense).unwrap(), s.apply(&sparse).unwrap());
            let zs_dense = zs.to_dense().unwrap();
            prop_assert_eq!(zs_dense.as_slice(), zd.as_slice());
            let zero_stays = (0..4).all(|j| {
                let lo = rows.iter().map(|r| r[j]).fold(f64::INFINITY, f64::min);
                let hi = rows.iter().map(|r| r[j]).fold(f64::NEG_INFINITY, f64::max);
                lo == hi || (lo == 0.0 && lower == 0.0)
            });
            // A sparse store stays sparse; when zeros stay zero it has no more values than before.
            prop_assert!(zs.is_sparse());
            prop_assert!(!zero_stays || zs.nnz() <= sparse.nnz());
        }
    }
}
