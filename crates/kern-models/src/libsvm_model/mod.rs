//! LIBSVM model files: read them, predict with them as LIBSVM does, and write kern's SVMs in the format
//! LIBSVM 3.37's `svm_load_model` reads (`svm_save_model`'s layout, in the C locale).
//!
//! **Layout** (`svm.cpp`, `svm_save_model`): a header of `keyword values…` lines — `svm_type`,
//! `kernel_type`, `degree` (polynomial), `gamma` (polynomial, rbf, sigmoid), `coef0` (polynomial,
//! sigmoid), `nr_class k`, `total_sv l`, `rho` (k(k−1)/2 values), `label` (k integers, classification),
//! `probA`/`probB` (k(k−1)/2 values; regression has `probA` only), `prob_density_marks` (one-class,
//! 10 values), `nr_sv` (k counts, classification) — then `SV` and one line per support vector:
//! its `k − 1` coefficients and its non-zero coordinates `index:value` (1-based, ascending). The support
//! vectors are grouped by class in `label` order; the coefficient of a support vector of class `i` in the
//! machine `(i, j)` sits in column `j − 1` when `j > i` and in column `j` when `j < i`. Machines are the
//! pairs `(0,1), (0,2), …, (k−2,k−1)`; machine `(i, j)` decides `f(x) = Σ coef·K(x, sv) − ρ`, positive
//! in favour of `label[i]`.
//!
//! **Kernels.** LIBSVM's `linear` ⟨u,v⟩, `polynomial` (γ⟨u,v⟩ + coef0)^degree, `rbf` exp(−γ‖u−v‖²) and
//! `sigmoid` tanh(γ⟨u,v⟩ + coef0) are kern's `linear`, `poly:degree=D,scale=γ,coef0=R`,
//! `gaussian:beta=γ` and `sigmoid:a=γ,b=R` (the same parameters, so the mapping is exact both ways).
//! Every other kern kernel has no LIBSVM counterpart and is refused with the reason.
//!
//! **Reading** follows `read_model_header`: words separated by white space, an unknown word is an error,
//! `SV` ends the header. Any LIBSVM model type is read and predicted (C-SVC, nu-SVC, one-class,
//! epsilon-SVR, nu-SVR; the prediction formula is the same for each), with any of LIBSVM's kernels.
//! A `precomputed` kernel's support vectors are `0:serial` (the serial number of a training point),
//! and its model predicts from kernel rows ([`LibsvmModel::is_precomputed`]).
//! [`LibsvmModel::decision_values`] follows `svm_predict_values` term by term (kernel values on the
//! sparse coordinates in index order, sums in LIBSVM's order), so predictions agree with LIBSVM's to
//! rounding; [`LibsvmModel::predict_probability`] follows `svm_predict_probability` (Platt sigmoids
//! clamped to [1e-7, 1 − 1e-7], pairwise coupling for more than two classes).
//!
//! **Writing** ([`LibsvmModel::to_text`]) follows `svm_save_model` line by line, with every real number
//! in `%.17g` ([`fmt_g17`], C's output byte for byte) — including the support vectors' coordinates, which
//! LIBSVM itself prints with `%.8g`: with 17 digits the file holds the model exactly, and LIBSVM's reader
//! (`strtod`) reads either. [`LibsvmModel::from_svc`] / [`LibsvmModel::from_svr`] convert kern models.
//!
//! ```
//! use kern_models::libsvm_model::LibsvmModel;
//! use kern_models::svm::SvcParams;
//! use kern_core::{Samples, BinaryTargets, learner::Fit};
//! let x = Samples::from_rows(&[[0.0, 0.0], [0.2, 0.1], [2.0, 2.0], [2.1, 1.9]])?;
//! let y = BinaryTargets::from_f64(&[-1.0, -1.0, 1.0, 1.0])?;
//! let svc = SvcParams::new("gaussian:beta=0.5".parse()?).c(10.0).fit(&x, &y)?;
//! let text = LibsvmModel::from_svc(&svc)?.to_text();
//! assert!(text.starts_with("svm_type c_svc\nkernel_type rbf\ngamma 0.5\n"));
//! let back = LibsvmModel::parse(&text, "model.txt")?;
//! assert_eq!(back.predict(&x)?, vec![-1.0, -1.0, 1.0, 1.0]);
//! let (a, b) = (back.decision_values(&x)?, svc.decision_function(&x)?);
//! assert!((a[0][0] - b[(0, 0)]).abs() < 1e-12);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod cfmt;
mod convert;
mod text;

pub use cfmt::{fmt_g, fmt_g17};
pub use text::looks_like_libsvm_model;

use crate::error::{ModelsError, Result};
use kern_core::{Kernel, KernelSpec, Profile, Samples};
use rayon::prelude::*;

/// LIBSVM's `svm_type`.
///
/// ```
/// use kern_models::libsvm_model::SvmType;
/// assert_eq!((SvmType::EpsilonSvr.name(), SvmType::EpsilonSvr.is_classifier()), ("epsilon_svr", false));
/// assert!(SvmType::NuSvc.is_classifier());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SvmType {
    /// `c_svc`: C-support vector classification.
    CSvc,
    /// `nu_svc`: ν-support vector classification.
    NuSvc,
    /// `one_class`: one-class SVM (distribution estimation).
    OneClass,
    /// `epsilon_svr`: ε-support vector regression.
    EpsilonSvr,
    /// `nu_svr`: ν-support vector regression.
    NuSvr,
}

impl SvmType {
    /// The word LIBSVM writes (`"c_svc"`, …).
    ///
    /// ```
    /// assert_eq!(kern_models::libsvm_model::SvmType::EpsilonSvr.name(), "epsilon_svr");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            SvmType::CSvc => "c_svc",
            SvmType::NuSvc => "nu_svc",
            SvmType::OneClass => "one_class",
            SvmType::EpsilonSvr => "epsilon_svr",
            SvmType::NuSvr => "nu_svr",
        }
    }

    /// Whether the model classifies (`c_svc`, `nu_svc`): labels, `nr_sv` and one machine per pair.
    ///
    /// ```
    /// assert!(kern_models::libsvm_model::SvmType::NuSvc.is_classifier());
    /// ```
    pub fn is_classifier(self) -> bool {
        matches!(self, SvmType::CSvc | SvmType::NuSvc)
    }

    fn from_word(w: &str) -> Option<Self> {
        [SvmType::CSvc, SvmType::NuSvc, SvmType::OneClass, SvmType::EpsilonSvr, SvmType::NuSvr]
            .into_iter()
            .find(|t| t.name() == w)
    }
}

/// LIBSVM's kernel (`kernel_type` and its parameters), with kern's equal [`KernelSpec`].
///
/// ```
/// use kern_models::libsvm_model::LibsvmKernel;
/// let spec: kern_core::KernelSpec = "gaussian:beta=0.5".parse()?;
/// let k = LibsvmKernel::from_spec(&spec)?;
/// assert_eq!((k.kernel_type, k.gamma), ("rbf", 0.5));
/// assert_eq!(k.to_spec()?, spec); // and back
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct LibsvmKernel {
    /// `linear`, `polynomial`, `rbf`, `sigmoid` or `precomputed`.
    pub kernel_type: &'static str,
    /// `degree` (polynomial).
    pub degree: i32,
    /// `gamma` (polynomial, rbf, sigmoid).
    pub gamma: f64,
    /// `coef0` (polynomial, sigmoid).
    pub coef0: f64,
}

impl LibsvmKernel {
    /// The LIBSVM kernel equal to a kern kernel, or why there is none.
    ///
    /// ```
    /// use kern_models::libsvm_model::LibsvmKernel;
    /// let k = LibsvmKernel::from_spec(&"poly:degree=3,scale=0.5,coef0=1".parse()?)?;
    /// assert_eq!((k.kernel_type, k.degree, k.gamma, k.coef0), ("polynomial", 3, 0.5, 1.0));
    /// assert!(LibsvmKernel::from_spec(&"cs-gaussian:sigma=1,c=2".parse()?).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_spec(spec: &KernelSpec) -> Result<Self> {
        let k = |kernel_type, degree, gamma, coef0| Ok(LibsvmKernel { kernel_type, degree, gamma, coef0 });
        match spec {
            KernelSpec::Linear(_) => k("linear", 0, 0.0, 0.0),
            KernelSpec::Gaussian(g) => k("rbf", 0, g.beta(), 0.0),
            KernelSpec::Polynomial(p) => {
                let d = i32::try_from(p.degree()).map_err(|_| {
                    ModelsError::Input(format!("polynomial degree {} is too large for LIBSVM", p.degree()))
                })?;
                k("polynomial", d, p.scale(), p.coef0())
            }
            KernelSpec::Sigmoid(s) => k("sigmoid", 0, s.a(), s.b()),
            KernelSpec::Compact(_) => Err(ModelsError::Input(format!(
                "kernel {spec} is compactly supported: LIBSVM has no truncated kernels, so a LIBSVM model \
                 file cannot hold it (LIBSVM has linear, polynomial, rbf and sigmoid kernels)"
            ))),
            other => Err(ModelsError::Input(format!(
                "kernel {other} has no LIBSVM counterpart (LIBSVM has linear, polynomial, rbf = \
                 gaussian:beta=GAMMA, and sigmoid kernels)"
            ))),
        }
    }

    /// LIBSVM's `precomputed` kernel (`-t 4`): support vectors are serial numbers of training points.
    ///
    /// ```
    /// assert!(kern_models::libsvm_model::LibsvmKernel::precomputed().is_precomputed());
    /// ```
    pub fn precomputed() -> Self {
        LibsvmKernel { kernel_type: "precomputed", degree: 0, gamma: 0.0, coef0: 0.0 }
    }

    /// Whether this is LIBSVM's `precomputed` kernel.
    pub fn is_precomputed(&self) -> bool {
        self.kernel_type == "precomputed"
    }

    /// The kernel a model evaluates: [`LibsvmKernel::to_spec`], or for `precomputed` the linear
    /// kernel as a placeholder that is never evaluated (predictions read kernel rows).
    pub(crate) fn spec(&self) -> Result<KernelSpec> {
        if self.is_precomputed() { Ok(KernelSpec::Linear(kern_core::Linear)) } else { self.to_spec() }
    }

    /// kern's kernel with the same values (an error for `precomputed`, which has no kernel function).
    ///
    /// ```
    /// use kern_models::libsvm_model::LibsvmKernel;
    /// let k = LibsvmKernel { kernel_type: "rbf", degree: 3, gamma: 0.25, coef0: 0.0 };
    /// assert_eq!(k.to_spec()?.to_string(), "gaussian:beta=0.25");
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn to_spec(&self) -> Result<KernelSpec> {
        let bad = |what: String| ModelsError::Input(format!("LIBSVM {} kernel: {what}", self.kernel_type));
        let spec = match self.kernel_type {
            "linear" => KernelSpec::Linear(kern_core::Linear),
            "rbf" => KernelSpec::Gaussian(
                kern_core::Gaussian::with_beta(self.gamma).map_err(|e| bad(e.to_string()))?,
            ),
            "polynomial" => {
                let d = u32::try_from(self.degree).ok().filter(|&d| d >= 1).ok_or_else(|| {
                    bad(format!("degree {} (kern's polynomial kernels need degree >= 1)", self.degree))
                })?;
                KernelSpec::Polynomial(
                    kern_core::Polynomial::with_scale(d, self.coef0, self.gamma)
                        .map_err(|e| bad(e.to_string()))?,
                )
            }
            "sigmoid" => KernelSpec::Sigmoid(
                kern_core::Sigmoid::new(self.gamma, self.coef0).map_err(|e| bad(e.to_string()))?,
            ),
            other => return Err(bad(format!("kernel type {other:?} is not supported"))),
        };
        Ok(spec)
    }
}

/// A LIBSVM model: what a LIBSVM model file holds, and LIBSVM's prediction with it.
///
/// ```
/// use kern_models::libsvm_model::{LibsvmModel, SvmType};
/// use kern_models::svm::SvcParams;
/// use kern_models::{BinaryTargets, Fit, Model, Samples};
/// let x = Samples::from_rows(&[[0.0, 0.0], [0.5, 0.0], [3.0, 3.0], [3.5, 3.0]])?;
/// let y = BinaryTargets::from_f64(&[-1.0, -1.0, 1.0, 1.0])?;
/// let svc = SvcParams::new("gaussian:beta=0.5".parse()?).fit(&x, &y)?;
/// let m = LibsvmModel::from_svc(&svc)?;
/// assert_eq!((m.svm_type(), m.nr_class()), (SvmType::CSvc, 2));
/// let back = LibsvmModel::parse(&m.to_text(), "model.txt")?; // LIBSVM's text format
/// assert_eq!(back.predict(&x)?, svc.predict(&x)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct LibsvmModel {
    svm_type: SvmType,
    kernel: LibsvmKernel,
    spec: KernelSpec,
    nr_class: usize,
    rho: Vec<f64>,
    label: Option<Vec<i32>>,
    prob_a: Option<Vec<f64>>,
    prob_b: Option<Vec<f64>>,
    prob_density_marks: Option<Vec<f64>>,
    nr_sv: Option<Vec<usize>>,
    /// `nr_class − 1` columns of `l` coefficients.
    sv_coef: Vec<Vec<f64>>,
    /// Support vectors: (1-based index, value), indices strictly ascending.
    sv: Vec<Vec<(u32, f64)>>,
}

impl LibsvmModel {
    /// The model type.
    ///
    /// ```
    /// # use kern_models::libsvm_model::{LibsvmModel, SvmType};
    /// let m = LibsvmModel::parse("svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0.5\nSV\n1 1:2\n", "m")?;
    /// assert_eq!(m.svm_type(), SvmType::OneClass);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn svm_type(&self) -> SvmType {
        self.svm_type
    }
    /// The kernel as LIBSVM names it.
    pub fn libsvm_kernel(&self) -> &LibsvmKernel {
        &self.kernel
    }
    /// The kernel as kern names it.
    pub fn kernel(&self) -> &KernelSpec {
        &self.spec
    }
    /// Number of classes (2 for regression and one-class models, as LIBSVM writes).
    pub fn nr_class(&self) -> usize {
        self.nr_class
    }
    /// Class labels in LIBSVM's order (classification only).
    pub fn labels(&self) -> Option<&[i32]> {
        self.label.as_deref()
    }
    /// Number of support vectors.
    pub fn n_sv(&self) -> usize {
        self.sv.len()
    }
    /// The largest feature index of a support vector (features beyond it only meet zeros); for a
    /// precomputed kernel the largest support-vector serial, the columns kernel rows must have.
    pub fn n_features(&self) -> usize {
        if self.kernel.is_precomputed() {
            return self.sv.iter().map(|s| s[0].1 as usize).max().unwrap_or(0);
        }
        self.sv.iter().filter_map(|s| s.last()).map(|&(i, _)| i as usize).max().unwrap_or(0)
    }
    /// Whether the model's kernel is precomputed: then its samples are kernel rows, column `j − 1`
    /// holding the kernel value against training point `j` (the test file's `0:` entry dropped).
    pub fn is_precomputed(&self) -> bool {
        self.kernel.is_precomputed()
    }
    /// Whether [`LibsvmModel::predict_probability`] is available (classification with `probA` and
    /// `probB`, or one-class with `prob_density_marks`).
    pub fn has_probability(&self) -> bool {
        (self.svm_type.is_classifier() && self.prob_a.is_some() && self.prob_b.is_some())
            || (self.svm_type == SvmType::OneClass && self.prob_density_marks.is_some())
    }
    /// Number of decision values per sample: `k(k−1)/2` for classifiers, 1 otherwise.
    pub fn n_decision_values(&self) -> usize {
        if self.svm_type.is_classifier() { self.nr_class * (self.nr_class - 1) / 2 } else { 1 }
    }

    /// Decision values of each sample (`svm_predict_values`): one per machine for classifiers (pairs in
    /// `label` order, positive in favour of the first class of the pair), the regression value for
    /// SVR, `Σ coef·K − ρ` for one-class. With a precomputed kernel, `x` holds kernel rows (see
    /// [`LibsvmModel::is_precomputed`]) with at least [`LibsvmModel::n_features`] columns.
    pub fn decision_values(&self, x: &Samples) -> Result<Vec<Vec<f64>>> {
        if self.is_precomputed() && x.d() < self.n_features() {
            return Err(ModelsError::KernelMatrix(format!(
                "kernel rows have {} columns, but the model's support vectors include training point {}",
                x.d(),
                self.n_features()
            )));
        }
        let rows = sparse_rows(x);
        let d: Vec<Vec<f64>> = rows.par_iter().map(|r| self.decision_one(r)).collect();
        crate::finite_output::rows(&d, "decision values")?;
        Ok(d)
    }

    /// Predictions (`svm_predict`): the label for classifiers, the value for regression, ±1 for
    /// one-class models.
    pub fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        Ok(self.decision_values(x)?.iter().map(|d| self.predict_from(d)).collect())
    }

    /// Class probabilities (`svm_predict_probability`), one column per entry of [`LibsvmModel::labels`]
    /// (one-class: `[P(inlier), P(outlier)]`), and the label LIBSVM predicts from them (the most
    /// probable class; it can differ from [`LibsvmModel::predict`], as in LIBSVM).
    pub fn predict_probability(&self, x: &Samples) -> Result<(Vec<f64>, Vec<Vec<f64>>)> {
        if !self.has_probability() {
            return Err(ModelsError::Input(format!(
                "this LIBSVM {} model has no probability information (train it with -b 1)",
                self.svm_type.name()
            )));
        }
        let dec = self.decision_values(x)?;
        let (labels, proba): (Vec<f64>, Vec<Vec<f64>>) = dec.iter().map(|d| self.probability_from(d)).unzip();
        crate::finite_output::rows(&proba, "probabilities")?;
        Ok((labels, proba))
    }

    fn kvalue(&self, x: &[(u32, f64)], sv: &[(u32, f64)]) -> f64 {
        if self.kernel.is_precomputed() {
            // LIBSVM's `x[(int)sv[0].value].value`: the test row's entry at the serial (absent = 0).
            let s = sv[0].1 as u32;
            return x.binary_search_by_key(&s, |n| n.0).map_or(0.0, |k| x[k].1);
        }
        match self.spec.profile() {
            Profile::SqDist => self.spec.of_sq_dist(sparse_sq_dist(x, sv)),
            _ => self.spec.of_dot(sparse_dot(x, sv)),
        }
    }

    fn decision_one(&self, x: &[(u32, f64)]) -> Vec<f64> {
        let kvalue: Vec<f64> = self.sv.iter().map(|s| self.kvalue(x, s)).collect();
        if !self.svm_type.is_classifier() {
            let mut sum = 0.0;
            for (c, k) in self.sv_coef[0].iter().zip(&kvalue) {
                sum += c * k;
            }
            return vec![sum - self.rho[0]];
        }
        let nr_sv = self.nr_sv.as_ref().expect("classifiers have nr_sv (checked when read)");
        let k = self.nr_class;
        let mut start = vec![0usize; k];
        for i in 1..k {
            start[i] = start[i - 1] + nr_sv[i - 1];
        }
        let mut dec = Vec::with_capacity(k * (k - 1) / 2);
        let mut p = 0;
        for i in 0..k {
            for j in i + 1..k {
                let mut sum = 0.0;
                let (coef1, coef2) = (&self.sv_coef[j - 1], &self.sv_coef[i]);
                for t in start[i]..start[i] + nr_sv[i] {
                    sum += coef1[t] * kvalue[t];
                }
                for t in start[j]..start[j] + nr_sv[j] {
                    sum += coef2[t] * kvalue[t];
                }
                dec.push(sum - self.rho[p]);
                p += 1;
            }
        }
        dec
    }

    pub(crate) fn predict_from(&self, dec: &[f64]) -> f64 {
        match self.svm_type {
            SvmType::OneClass => {
                if dec[0] > 0.0 {
                    1.0
                } else {
                    -1.0
                }
            }
            SvmType::EpsilonSvr | SvmType::NuSvr => dec[0],
            SvmType::CSvc | SvmType::NuSvc => {
                let k = self.nr_class;
                let mut vote = vec![0usize; k];
                let mut p = 0;
                for i in 0..k {
                    for j in i + 1..k {
                        vote[if dec[p] > 0.0 { i } else { j }] += 1;
                        p += 1;
                    }
                }
                let mut best = 0;
                for i in 1..k {
                    if vote[i] > vote[best] {
                        best = i;
                    }
                }
                f64::from(self.label.as_ref().expect("classifiers have labels")[best])
            }
        }
    }

    // Indexed as `svm_predict_probability` is, to compare line by line.
    #[allow(clippy::needless_range_loop)]
    pub(crate) fn probability_from(&self, dec: &[f64]) -> (f64, Vec<f64>) {
        if self.svm_type == SvmType::OneClass {
            let marks = self.prob_density_marks.as_ref().expect("checked by has_probability");
            let p = one_class_probability(marks, dec[0]);
            return (self.predict_from(dec), vec![p, 1.0 - p]);
        }
        let (a, b) = (self.prob_a.as_ref().expect("checked"), self.prob_b.as_ref().expect("checked"));
        let k = self.nr_class;
        let min_prob = 1e-7;
        let mut r = vec![vec![0.0; k]; k];
        let mut p = 0;
        for i in 0..k {
            for j in i + 1..k {
                let s = crate::svm::PlattSigmoid { a: a[p], b: b[p] };
                r[i][j] = s.prob(dec[p]).max(min_prob).min(1.0 - min_prob);
                r[j][i] = 1.0 - r[i][j];
                p += 1;
            }
        }
        let probs = if k == 2 { vec![r[0][1], r[1][0]] } else { crate::svm::couple(&r) };
        let mut best = 0;
        for i in 1..k {
            if probs[i] > probs[best] {
                best = i;
            }
        }
        (f64::from(self.label.as_ref().expect("classifiers have labels")[best]), probs)
    }
}

/// `predict_one_class_probability`: the density mark bracket of the decision value, in tenths.
fn one_class_probability(marks: &[f64], dec: f64) -> f64 {
    let n = marks.len();
    if dec < marks[0] {
        0.001
    } else if dec > marks[n - 1] {
        0.999
    } else {
        (1..n).find(|&i| dec < marks[i]).map_or(0.0, |i| i as f64 / n as f64)
    }
}

/// The non-zero coordinates of each sample, 1-based, as LIBSVM's `svm_node` arrays.
fn sparse_rows(x: &Samples) -> Vec<Vec<(u32, f64)>> {
    x.samples().map(nodes).collect()
}

/// The non-zero coordinates of a sample of either store, 1-based (a sparse sample is not densified).
pub(crate) fn nodes(s: kern_core::SampleRef<'_>) -> Vec<(u32, f64)> {
    match s {
        kern_core::SampleRef::Dense(row) => {
            row.iter().enumerate().filter(|&(_, &v)| v != 0.0).map(|(j, &v)| (j as u32 + 1, v)).collect()
        }
        kern_core::SampleRef::Sparse { indices, values } => {
            indices.iter().zip(values).filter(|&(_, &v)| v != 0.0).map(|(&j, &v)| (j as u32 + 1, v)).collect()
        }
    }
}

/// LIBSVM's `dot` on sparse vectors (products of common indices, in index order).
fn sparse_dot(x: &[(u32, f64)], y: &[(u32, f64)]) -> f64 {
    let (mut i, mut j, mut sum) = (0, 0, 0.0);
    while i < x.len() && j < y.len() {
        match x[i].0.cmp(&y[j].0) {
            std::cmp::Ordering::Equal => {
                sum += x[i].1 * y[j].1;
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Less => i += 1,
        }
    }
    sum
}

/// LIBSVM's squared distance of the rbf kernel on sparse vectors (terms in index order).
fn sparse_sq_dist(x: &[(u32, f64)], y: &[(u32, f64)]) -> f64 {
    let (mut i, mut j, mut sum) = (0, 0, 0.0);
    while i < x.len() && j < y.len() {
        match x[i].0.cmp(&y[j].0) {
            std::cmp::Ordering::Equal => {
                let d = x[i].1 - y[j].1;
                sum += d * d;
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Greater => {
                sum += y[j].1 * y[j].1;
                j += 1;
            }
            std::cmp::Ordering::Less => {
                sum += x[i].1 * x[i].1;
                i += 1;
            }
        }
    }
    for &(_, v) in &x[i..] {
        sum += v * v;
    }
    for &(_, v) in &y[j..] {
        sum += v * v;
    }
    sum
}

#[cfg(test)]
mod tests;
