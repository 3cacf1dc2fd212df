//! Precomputed kernels (LIBSVM `-t 4`): training on a kernel matrix the user supplies and predicting
//! from kernel rows between new points and the training points.
//!
//! **Training.** A [`KernelMatrix`] is the `n × n` matrix `K_ij = k(x_i, x_j)` of the training points,
//! validated once (square, finite, symmetric within [`KernelMatrix::SYMMETRY_TOL`]). The SVMs train on
//! it through the same path as a built-in kernel: the training points become their 1-based serial
//! numbers (one column holding `1, 2, …, n`, LIBSVM's `0:serial`), and the single place the SVM chooses
//! its Gram matrix (`train::precompute`) hands the solver the user's matrix restricted to the serials
//! of the problem (a one-vs-one pair, a cross-validation fold) as a dense precomputed source — the
//! same source a built-in kernel's precomputed Gram uses, so the solver cannot tell them apart.
//! Every SVM type takes it: [`SvcParams::fit_precomputed`](super::SvcParams::fit_precomputed),
//! [`NuSvcParams::fit_precomputed`](super::NuSvcParams::fit_precomputed),
//! [`SvrParams::fit_precomputed`](super::SvrParams::fit_precomputed),
//! [`NuSvrParams::fit_precomputed`](super::NuSvrParams::fit_precomputed),
//! [`OneClassParams::fit_precomputed`](super::OneClassParams::fit_precomputed). The kernel of the
//! parameters is not used.
//!
//! **The model** stores its support vectors as serial numbers (LIBSVM's model file has `0:serial` on
//! each SV line) and reports [`Svc::is_precomputed`](super::Svc::is_precomputed).
//!
//! **Prediction.** The samples given to a precomputed model are kernel rows: row `r` holds
//! `k(z_r, x_j)` in column `j − 1` for the training points `j = 1, …, n` (scikit-learn's
//! `kernel="precomputed"` convention, and LIBSVM's test rows without their `0:` entry). The decision
//! value is `Σ_k coef_k · row[serial_k − 1] − ρ`; rows must have at least as many columns as the largest
//! support-vector serial (an error otherwise).
//!
//! ```
//! use kern_models::svm::{KernelMatrix, SvcParams};
//! use kern_core::{BinaryTargets, Samples, Targets, learner::Model};
//! // The linear kernel of the points 0, 1, 3, 4 on a line, given as a matrix.
//! let p = [0.0, 1.0, 3.0, 4.0];
//! let k: Vec<Vec<f64>> = p.iter().map(|a| p.iter().map(|b| a * b + 1.0).collect()).collect();
//! let y = Targets::Binary(BinaryTargets::from_f64(&[-1.0, -1.0, 1.0, 1.0])?);
//! let m = SvcParams::new("linear".parse()?).c(10.0).fit_precomputed(&KernelMatrix::from_rows(&k)?, &y)?;
//! assert!(m.is_precomputed());
//! // Kernel rows of the new points 0.5 and 3.5 against the four training points.
//! let rows = Samples::from_rows(&[[1.0, 1.5, 2.5, 3.0], [1.0, 4.5, 11.5, 15.0]])?;
//! assert_eq!(m.predict(&rows)?, vec![-1.0, 1.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{NuSvcParams, NuSvrParams, OneClass, OneClassParams, Svc, SvcParams, Svr, SvrParams};
use crate::error::{ModelsError, Result};
use crate::weights::SampleWeights;
use faer::Mat;
use kern_core::{KernelSpec, RealTargets, Samples, Targets};
use kern_sparse::kmatrix::Precomputed;
use rayon::prelude::*;
use std::sync::Arc;

/// A validated kernel matrix of the training points (square, finite, symmetric).
///
/// ```
/// use kern_models::svm::KernelMatrix;
/// let k = KernelMatrix::from_rows(&[[2.0, 1.0], [1.0, 2.0]])?;
/// assert_eq!(k.n(), 2);
/// assert!(KernelMatrix::from_rows(&[[2.0, 1.0], [0.0, 2.0]]).is_err()); // not symmetric
/// assert!(KernelMatrix::from_rows(&[[2.0, 1.0]]).is_err());             // not square
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug)]
pub struct KernelMatrix {
    k: Arc<Mat<f64>>,
}

impl KernelMatrix {
    /// Largest accepted asymmetry `|K_ij − K_ji|`, relative to the largest `|K_ij|` of the matrix.
    ///
    /// Why a tolerance and not exact symmetry: a kernel matrix computed in floating point is often
    /// not exactly symmetric (`X Xᵀ` by a blocked product sums `⟨x_i, x_j⟩` and `⟨x_j, x_i⟩` in different
    /// orders). Each inner product of `d` terms is then off by at most `γ_d Σ|x_ik x_jk| ≤ d·2⁻⁵³·K_max`
    /// (Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1) on either side, so the two
    /// differ by at most `d·2⁻⁵²·K_max`: `10⁻⁹` covers `d` up to about 4·10⁶ features. Why refuse beyond
    /// it: the solver reads columns of `K` and LIBSVM reads rows; the dual is a convex problem and the
    /// two agree only when `K` is symmetric, so a matrix that is not a kernel matrix is an error rather
    /// than a silent choice. Within the tolerance the matrix is made exactly symmetric by averaging
    /// `K_ij` and `K_ji` (an exactly symmetric matrix is kept bit for bit).
    pub const SYMMETRY_TOL: f64 = 1e-9;

    /// Validates an `n × n` matrix (see [`KernelMatrix::SYMMETRY_TOL`]).
    ///
    /// ```
    /// let k = kern_models::svm::KernelMatrix::new(faer::Mat::<f64>::identity(3, 3))?;
    /// assert_eq!(k.as_mat()[(1, 1)], 1.0);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn new(mut k: Mat<f64>) -> Result<Self> {
        let n = k.nrows();
        if n == 0 {
            return Err(ModelsError::KernelMatrix("the kernel matrix is empty".into()));
        }
        if k.ncols() != n {
            return Err(ModelsError::KernelMatrix(format!(
                "the kernel matrix must be square (one row and one column per training point), got {} × {}",
                n,
                k.ncols()
            )));
        }
        let mut kmax = 0.0f64;
        for j in 0..n {
            for i in 0..n {
                let v = k[(i, j)];
                if !v.is_finite() {
                    return Err(ModelsError::KernelMatrix(format!(
                        "entry ({}, {}) = {v} is not finite",
                        i + 1,
                        j + 1
                    )));
                }
                kmax = kmax.max(v.abs());
            }
        }
        let tol = Self::SYMMETRY_TOL * kmax;
        for j in 0..n {
            for i in j + 1..n {
                let (a, b) = (k[(i, j)], k[(j, i)]);
                if a != b {
                    if (a - b).abs() > tol {
                        return Err(ModelsError::KernelMatrix(format!(
                            "the kernel matrix is not symmetric: entry ({}, {}) = {a} but ({}, {}) = {b} \
                             (accepted difference: {:e} of the largest entry)",
                            i + 1,
                            j + 1,
                            j + 1,
                            i + 1,
                            Self::SYMMETRY_TOL
                        )));
                    }
                    let m = 0.5 * a + 0.5 * b;
                    k[(i, j)] = m;
                    k[(j, i)] = m;
                }
            }
        }
        Ok(KernelMatrix { k: Arc::new(k) })
    }

    /// Validates a matrix given as rows (`rows[i][j] = k(x_i, x_j)`).
    ///
    /// ```
    /// let k = kern_models::svm::KernelMatrix::from_rows(&[vec![1.0, 0.5], vec![0.5, 1.0]])?;
    /// assert_eq!(k.n(), 2);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn from_rows<R: AsRef<[f64]>>(rows: &[R]) -> Result<Self> {
        let n = rows.len();
        if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.as_ref().len() != n) {
            return Err(ModelsError::KernelMatrix(format!(
                "the kernel matrix must be square: {n} rows, but row {} has {} entries",
                i + 1,
                r.as_ref().len()
            )));
        }
        Self::new(Mat::from_fn(n, n, |i, j| rows[i].as_ref()[j]))
    }

    /// Validates a matrix held as samples (`n` samples of dimension `n`; either store).
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[4.0, 2.0], [2.0, 3.0]])?;
    /// assert_eq!(kern_models::svm::KernelMatrix::from_samples(&x)?.n(), 2);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn from_samples(x: &Samples) -> Result<Self> {
        if x.d() != x.n() {
            return Err(ModelsError::KernelMatrix(format!(
                "the kernel matrix must be square (one row and one column per training point), got {} × {}",
                x.n(),
                x.d()
            )));
        }
        let mut m = Mat::<f64>::zeros(x.n(), x.n());
        for i in 0..x.n() {
            for (j, &v) in x.row(i).iter().enumerate() {
                m[(i, j)] = v;
            }
        }
        Self::new(m)
    }

    /// Number of training points `n`.
    pub fn n(&self) -> usize {
        self.k.nrows()
    }

    /// The (symmetric) matrix.
    pub fn as_mat(&self) -> faer::MatRef<'_, f64> {
        self.k.as_ref().as_ref()
    }

    /// The matrix, shared (for the C path of a grid search).
    pub(crate) fn shared(&self) -> Arc<Mat<f64>> {
        self.k.clone()
    }

    /// The training points as their serial numbers `1, …, n` (one column): the samples the SVMs train
    /// on when the kernel is precomputed.
    pub(crate) fn serials(&self) -> Samples {
        Samples::from_flat((1..=self.n()).map(|s| s as f64).collect(), self.n(), 1)
            .expect("serial numbers are finite and n ≥ 1")
    }

    /// The dense precomputed source for the problem on `x` (serial numbers of some training points): the
    /// matrix itself (shared) when `x` is `1, …, n` in order, else the rows and columns of `x`'s serials.
    pub(crate) fn restrict(&self, x: &Samples) -> Precomputed {
        let s = serial_indices(x);
        if s.len() == self.n() && s.iter().enumerate().all(|(i, &v)| v == i) {
            return Precomputed::Dense(self.k.clone());
        }
        let k = &self.k;
        Precomputed::Dense(Arc::new(Mat::from_fn(s.len(), s.len(), |a, b| k[(s[a], s[b])])))
    }
}

/// 0-based training-point indices of serial-number samples (one column holding `1, …, n`).
fn serial_indices(x: &Samples) -> Vec<usize> {
    (0..x.n()).map(|i| x.row(i)[0] as usize - 1).collect()
}

/// The kernel of a trained SVM: a kern kernel, or precomputed (then the support vectors are serial
/// numbers). Stored as its spec string, or `"precomputed"` — the same layout as a [`KernelSpec`], so
/// model files written before precomputed kernels existed load unchanged.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ModelKernel {
    /// The kernel; for a precomputed model the linear kernel, a placeholder that is never evaluated
    /// (the solver only gathers from the user's matrix).
    pub(crate) spec: KernelSpec,
    pub(crate) precomputed: bool,
}

/// The word stored for a precomputed kernel (not a valid kernel spec, so never ambiguous).
const PRECOMPUTED: &str = "precomputed";

impl ModelKernel {
    pub(crate) fn spec(spec: KernelSpec) -> Self {
        ModelKernel { spec, precomputed: false }
    }

    pub(crate) fn precomputed() -> Self {
        ModelKernel { spec: placeholder(), precomputed: true }
    }

    /// A trained model's kernel: precomputed when a user matrix was given.
    pub(crate) fn of(spec: &KernelSpec, user: Option<&KernelMatrix>) -> Self {
        if user.is_some() { Self::precomputed() } else { Self::spec(spec.clone()) }
    }

    /// The stored support vectors fit the kernel: the kernel's dimension check, or for a precomputed
    /// kernel one column of integer serial numbers `≥ 1`.
    pub(crate) fn validate(&self, sv: &Samples) -> crate::validate::Check {
        if !self.precomputed {
            return crate::validate::kernel(&self.spec, sv.d());
        }
        if sv.d() != 1 {
            return Err(format!("a precomputed-kernel model stores serial numbers, got {} columns", sv.d()));
        }
        for i in 0..sv.n() {
            let s = sv.row(i)[0];
            if !((1.0..=MAX_SERIAL).contains(&s) && s.fract() == 0.0) {
                return Err(format!("support vector {i} has serial number {s}, not an integer in [1, 2^53]"));
            }
        }
        Ok(())
    }

    /// How [`ModelKernel::decision_values`] expands `K(x, SV)` ([`super::predict::expansion_plan`]);
    /// `None` for a precomputed kernel (its rows are given).
    pub(crate) fn expansion_plan(
        &self,
        sv: &Samples,
        x: &Samples,
    ) -> Option<kern_sparse::kmatrix::ExpandPlan> {
        (!self.precomputed).then(|| super::predict::expansion_plan(&self.spec, sv, x))
    }

    /// Decision values `Σ_k coef_{m,k} k(sv_k, x) − ρ_m` (one row per sample, one column per machine);
    /// for a precomputed kernel `x` holds kernel rows (see the module docs).
    pub(crate) fn decision_values(
        &self,
        sv: &Samples,
        coef: faer::MatRef<'_, f64>,
        rho: &[f64],
        x: &Samples,
    ) -> Result<faer::Mat<f64>> {
        if !self.precomputed {
            let d = super::predict::decision_values(&self.spec, sv, coef, rho, x)?;
            crate::finite_output::mat(d.as_ref(), "decision values")?;
            return Ok(d);
        }
        let serial = serial_indices(sv);
        let need = serial.iter().max().map_or(0, |&s| s + 1);
        if x.d() < need {
            return Err(ModelsError::KernelMatrix(format!(
                "kernel rows have {} columns, but the model's support vectors include training point {need}: \
                 each row must hold the kernel values against training points 1 to {need} at least",
                x.d()
            )));
        }
        let d: Vec<Vec<f64>> = (0..x.n())
            .into_par_iter()
            .map(|r| {
                let row = x.row(r);
                (0..coef.ncols())
                    .zip(rho)
                    .map(|(m, &rh)| {
                        coef.col(m).iter().zip(&serial).map(|(&a, &s)| a * row[s]).sum::<f64>() - rh
                    })
                    .collect()
            })
            .collect();
        let d = super::rows_to_mat(&d, rho.len());
        crate::finite_output::mat(d.as_ref(), "decision values")?;
        Ok(d)
    }
}

/// Largest serial number (serials are stored as `f64`, exact up to `2⁵³`).
const MAX_SERIAL: f64 = 9_007_199_254_740_992.0;

/// The placeholder kernel of precomputed models (never evaluated).
fn placeholder() -> KernelSpec {
    KernelSpec::Linear(kern_core::Linear)
}

impl std::fmt::Display for ModelKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.precomputed { f.write_str(PRECOMPUTED) } else { self.spec.fmt(f) }
    }
}

impl serde::Serialize for ModelKernel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> serde::Deserialize<'de> for ModelKernel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s == PRECOMPUTED {
            return Ok(Self::precomputed());
        }
        s.parse().map(Self::spec).map_err(serde::de::Error::custom)
    }
}

/// The class groups of classification targets: `(classes, names, binary)`.
fn class_targets(k: &KernelMatrix, y: &Targets, what: &str) -> Result<(Vec<usize>, Vec<String>, bool)> {
    let (classes, names, binary) = match y {
        Targets::Binary(b) => {
            (b.y().iter().map(|&v| usize::from(v > 0.0)).collect(), b.names().to_vec(), true)
        }
        Targets::Classes(c) => (c.classes().to_vec(), c.names().to_vec(), false),
        Targets::Real(_) => {
            return Err(ModelsError::Input(format!("{what} needs class labels, got real targets")));
        }
    };
    check_targets(k, classes.len())?;
    Ok((classes, names, binary))
}

fn check_targets(k: &KernelMatrix, n: usize) -> Result<()> {
    if n != k.n() {
        return Err(ModelsError::Input(format!(
            "{n} targets for a kernel matrix of {} training points",
            k.n()
        )));
    }
    Ok(())
}

/// The serial numbers the regressions train on, once the number of targets `n` is checked.
fn serials_for(k: &KernelMatrix, n: usize) -> Result<Samples> {
    check_targets(k, n)?;
    Ok(k.serials())
}

/// C-SVC (`nu = None`) or ν-SVC (`nu`, with `svc` from `NuSvcParams::as_svc`) on a precomputed
/// kernel matrix, weighted or not: the targets are checked against the matrix, then the type's fit runs
/// on the serial numbers with the matrix as its Gram (the parameters' kernel is not used).
fn classify_on(
    svc: &SvcParams,
    k: &KernelMatrix,
    y: &Targets,
    w: Option<&SampleWeights>,
    nu: Option<f64>,
) -> Result<Svc> {
    let (classes, names, binary) = class_targets(k, y, if nu.is_some() { "nu-SVC" } else { "C-SVC" })?;
    let p = SvcParams { kernel: placeholder(), ..svc.clone() };
    match w {
        None => p.fit_groups(&k.serials(), &classes, &names, binary, nu, None, Some(k)),
        Some(w) => p.fit_weighted_groups(&k.serials(), y, w, nu, Some(k)),
    }
}

impl SvcParams {
    /// Trains a C-SVC on a precomputed kernel matrix (LIBSVM `-s 0 -t 4`); the parameters' kernel is
    /// not used. The model predicts from kernel rows (see [`KernelMatrix`]).
    ///
    /// ```
    /// use kern_models::svm::{KernelMatrix, SvcParams};
    /// use kern_core::{ClassTargets, Samples, Targets, learner::Model};
    /// let k = KernelMatrix::from_rows(&[[1.0, 0.9, 0.0], [0.9, 1.0, 0.0], [0.0, 0.0, 1.0]])?;
    /// let y = Targets::Classes(ClassTargets::from_labels(&["a", "a", "b"])?);
    /// let m = SvcParams::new("linear".parse()?).c(10.0).fit_precomputed(&k, &y)?;
    /// assert_eq!(m.predict(&Samples::from_rows(&[[0.0, 0.0, 0.8]])?)?, vec![1.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_precomputed(&self, k: &KernelMatrix, y: &Targets) -> Result<Svc> {
        self.fit_precomputed_with(k, y, None)
    }

    /// [`SvcParams::fit_precomputed`] with sample weights (`None`: unweighted, the same model): weight
    /// `w_i` multiplies the bound of training point `i` (row and column `i` of `k`), weight 0 leaves the
    /// point out (see [`crate::weights`]). Support vectors keep their serial numbers in `k`, so the
    /// model predicts from kernel rows against all `n` training points.
    ///
    /// ```
    /// use kern_models::svm::{KernelMatrix, SvcParams};
    /// use kern_models::weights::SampleWeights;
    /// use kern_core::{BinaryTargets, Samples, Targets, learner::Model};
    /// let p = [0.0, 1.0, 3.0, 4.0];
    /// let k: Vec<Vec<f64>> = p.iter().map(|a| p.iter().map(|b| a * b + 1.0).collect()).collect();
    /// let k = KernelMatrix::from_rows(&k)?;
    /// let y = Targets::Binary(BinaryTargets::from_f64(&[-1.0, -1.0, 1.0, 1.0])?);
    /// let svc = SvcParams::new("linear".parse()?).c(10.0);
    /// // Weight 1 everywhere is the unweighted machine.
    /// let ones = SampleWeights::new(vec![1.0; 4])?;
    /// assert_eq!(svc.fit_precomputed_with(&k, &y, Some(&ones))?, svc.fit_precomputed(&k, &y)?);
    /// // Without the point 1 the margin lies between 0 and 3; kernel rows of the new points 0.5 and 3.5:
    /// let w = SampleWeights::new(vec![1.0, 0.0, 1.0, 1.0])?;
    /// let m = svc.fit_precomputed_with(&k, &y, Some(&w))?;
    /// let rows = Samples::from_rows(&[[1.0, 1.5, 2.5, 3.0], [1.0, 4.5, 11.5, 15.0]])?;
    /// assert_eq!(m.predict(&rows)?, vec![-1.0, 1.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_precomputed_with(
        &self,
        k: &KernelMatrix,
        y: &Targets,
        w: Option<&SampleWeights>,
    ) -> Result<Svc> {
        classify_on(self, k, y, w, None)
    }
}

impl NuSvcParams {
    /// Trains a ν-SVC on a precomputed kernel matrix (LIBSVM `-s 1 -t 4`); the parameters' kernel is
    /// not used.
    ///
    /// ```
    /// use kern_models::svm::{KernelMatrix, NuSvcParams};
    /// use kern_core::{BinaryTargets, Samples, Targets, learner::Model};
    /// let k = KernelMatrix::from_rows(&[[1.0, 0.9, 0.0, 0.1], [0.9, 1.0, 0.1, 0.0], [0.0, 0.1, 1.0, 0.9], [0.1, 0.0, 0.9, 1.0]])?;
    /// let y = Targets::Binary(BinaryTargets::from_f64(&[-1.0, -1.0, 1.0, 1.0])?);
    /// let m = NuSvcParams::new("linear".parse()?).nu(0.5).fit_precomputed(&k, &y)?;
    /// assert_eq!(m.predict(&Samples::from_rows(&[[0.0, 0.0, 0.9, 0.9]])?)?, vec![1.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_precomputed(&self, k: &KernelMatrix, y: &Targets) -> Result<Svc> {
        self.fit_precomputed_with(k, y, None)
    }

    /// [`NuSvcParams::fit_precomputed`] with sample weights (`None`: unweighted): weight `w_i` is the
    /// bound of training point `i` and `Σw` replaces `l` (see [`crate::weights`]); weight 0 leaves the
    /// point out.
    ///
    /// ```
    /// use kern_models::svm::{KernelMatrix, NuSvcParams};
    /// use kern_models::weights::SampleWeights;
    /// use kern_core::{BinaryTargets, Samples, Targets, learner::Model};
    /// let k = KernelMatrix::from_rows(&[[1.0, 0.9, 0.0, 0.1], [0.9, 1.0, 0.1, 0.0], [0.0, 0.1, 1.0, 0.9], [0.1, 0.0, 0.9, 1.0]])?;
    /// let y = Targets::Binary(BinaryTargets::from_f64(&[-1.0, -1.0, 1.0, 1.0])?);
    /// let w = SampleWeights::new(vec![2.0, 1.0, 1.0, 2.0])?;
    /// let m = NuSvcParams::new("linear".parse()?).nu(0.5).fit_precomputed_with(&k, &y, Some(&w))?;
    /// assert_eq!(m.predict(&Samples::from_rows(&[[0.0, 0.0, 0.9, 0.9]])?)?, vec![1.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_precomputed_with(
        &self,
        k: &KernelMatrix,
        y: &Targets,
        w: Option<&SampleWeights>,
    ) -> Result<Svc> {
        let svc = NuSvcParams { kernel: placeholder(), ..self.clone() }.as_svc()?;
        classify_on(&svc, k, y, w, Some(self.nu))
    }
}

impl SvrParams {
    /// Trains an ε-SVR on a precomputed kernel matrix (LIBSVM `-s 3 -t 4`); the parameters' kernel is
    /// not used.
    ///
    /// ```
    /// use kern_models::svm::{KernelMatrix, SvrParams};
    /// use kern_core::{RealTargets, Samples, learner::Model};
    /// // Linear kernel of the points 0, 1, 2, 3 (plus 1 for the offset); targets 2x.
    /// let p = [0.0, 1.0, 2.0, 3.0];
    /// let k: Vec<Vec<f64>> = p.iter().map(|a| p.iter().map(|b| a * b).collect()).collect();
    /// let y = RealTargets::new(p.iter().map(|v| 2.0 * v).collect())?;
    /// let m = SvrParams::new("linear".parse()?).c(100.0).epsilon(0.01).fit_precomputed(&KernelMatrix::from_rows(&k)?, &y)?;
    /// let f = m.predict(&Samples::from_rows(&[[0.0, 1.5, 3.0, 4.5]])?)?; // kernel row of x = 1.5
    /// assert!((f[0] - 3.0).abs() < 0.05);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_precomputed(&self, k: &KernelMatrix, y: &RealTargets) -> Result<Svr> {
        self.fit_precomputed_with(k, y, None)
    }

    /// [`SvrParams::fit_precomputed`] with sample weights (`None`: unweighted): weight `w_i`
    /// multiplies the bounds of training point `i` (see [`crate::weights`]); weight 0 leaves it out.
    ///
    /// ```
    /// use kern_models::svm::{KernelMatrix, SvrParams};
    /// use kern_models::weights::SampleWeights;
    /// use kern_core::{RealTargets, Samples, learner::Model};
    /// let p = [0.0, 1.0, 2.0, 3.0];
    /// let k: Vec<Vec<f64>> = p.iter().map(|a| p.iter().map(|b| a * b).collect()).collect();
    /// // The last target is off the line 2x; its weight 0 leaves it out.
    /// let y = RealTargets::new(vec![0.0, 2.0, 4.0, 100.0])?;
    /// let w = SampleWeights::new(vec![1.0, 1.0, 1.0, 0.0])?;
    /// let svr = SvrParams::new("linear".parse()?).c(100.0).epsilon(0.01);
    /// let m = svr.fit_precomputed_with(&KernelMatrix::from_rows(&k)?, &y, Some(&w))?;
    /// let f = m.predict(&Samples::from_rows(&[[0.0, 1.5, 3.0, 4.5]])?)?; // kernel row of x = 1.5
    /// assert!((f[0] - 3.0).abs() < 0.05);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_precomputed_with(
        &self,
        k: &KernelMatrix,
        y: &RealTargets,
        w: Option<&SampleWeights>,
    ) -> Result<Svr> {
        SvrParams { kernel: placeholder(), ..self.clone() }.fit_user(&serials_for(k, y.len())?, y, w, Some(k))
    }
}

impl NuSvrParams {
    /// Trains a ν-SVR on a precomputed kernel matrix (LIBSVM `-s 4 -t 4`); the parameters' kernel is
    /// not used.
    ///
    /// ```
    /// use kern_models::svm::{KernelMatrix, NuSvrParams};
    /// use kern_core::{RealTargets, Samples, learner::Model};
    /// let p = [0.0, 1.0, 2.0, 3.0];
    /// let k: Vec<Vec<f64>> = p.iter().map(|a| p.iter().map(|b| a * b).collect()).collect();
    /// let y = RealTargets::new(p.iter().map(|v| 2.0 * v).collect())?;
    /// let m = NuSvrParams::new("linear".parse()?).c(100.0).nu(0.5).fit_precomputed(&KernelMatrix::from_rows(&k)?, &y)?;
    /// let f = m.predict(&Samples::from_rows(&[[0.0, 1.5, 3.0, 4.5]])?)?;
    /// assert!((f[0] - 3.0).abs() < 0.1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_precomputed(&self, k: &KernelMatrix, y: &RealTargets) -> Result<Svr> {
        self.fit_precomputed_with(k, y, None)
    }

    /// [`NuSvrParams::fit_precomputed`] with sample weights (`None`: unweighted): weight `w_i`
    /// multiplies the bounds of training point `i` and `Σw` replaces `l` in the budget `Cνl/2` (see
    /// [`crate::weights`]); weight 0 leaves the point out.
    ///
    /// ```
    /// use kern_models::svm::{KernelMatrix, NuSvrParams};
    /// use kern_models::weights::SampleWeights;
    /// use kern_core::{RealTargets, Samples, learner::Model};
    /// let p = [0.0, 1.0, 2.0, 3.0];
    /// let k: Vec<Vec<f64>> = p.iter().map(|a| p.iter().map(|b| a * b).collect()).collect();
    /// let y = RealTargets::new(p.iter().map(|v| 2.0 * v).collect())?;
    /// let w = SampleWeights::new(vec![1.0, 2.0, 2.0, 1.0])?;
    /// let svr = NuSvrParams::new("linear".parse()?).c(100.0).nu(0.5);
    /// let m = svr.fit_precomputed_with(&KernelMatrix::from_rows(&k)?, &y, Some(&w))?;
    /// let f = m.predict(&Samples::from_rows(&[[0.0, 1.5, 3.0, 4.5]])?)?;
    /// assert!((f[0] - 3.0).abs() < 0.1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_precomputed_with(
        &self,
        k: &KernelMatrix,
        y: &RealTargets,
        w: Option<&SampleWeights>,
    ) -> Result<Svr> {
        NuSvrParams { kernel: placeholder(), ..self.clone() }.fit_user(
            &serials_for(k, y.len())?,
            y,
            w,
            Some(k),
        )
    }
}

impl OneClassParams {
    /// Trains a one-class SVM on a precomputed kernel matrix (LIBSVM `-s 2 -t 4`); the parameters'
    /// kernel is not used.
    ///
    /// ```
    /// use kern_models::svm::{KernelMatrix, OneClassParams};
    /// use kern_core::{Samples, learner::Model};
    /// let k = KernelMatrix::from_rows(&[[1.0, 0.8, 0.7], [0.8, 1.0, 0.8], [0.7, 0.8, 1.0]])?;
    /// let m = OneClassParams::new("linear".parse()?).nu(0.5).fit_precomputed(&k)?;
    /// // Every α is free here (α = (0.6, 0.3, 0.6), ρ = Σα_i K_ij = 1.26): a point closer to the
    /// // training points than they are to each other is inside, one far from all of them outside.
    /// assert_eq!(m.predict(&Samples::from_rows(&[[0.9, 0.95, 0.9], [0.0, 0.0, 0.0]])?)?, vec![1.0, -1.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_precomputed(&self, k: &KernelMatrix) -> Result<OneClass> {
        self.fit_precomputed_with(k, None)
    }

    /// [`OneClassParams::fit_precomputed`] with sample weights (`None`: unweighted): weight `w_i` is
    /// the bound of training point `i` and `Σw` replaces `l` in `eᵀα = νl` (see [`crate::weights`]);
    /// weight 0 leaves the point out.
    ///
    /// ```
    /// use kern_models::svm::{KernelMatrix, OneClassParams};
    /// use kern_models::weights::SampleWeights;
    /// use kern_core::{Samples, learner::Model};
    /// // Gaussian kernel (σ = 1) of the points 0, 0.1, 0.2 and 5 on a line; the last has weight 0.
    /// let p = [0.0f64, 0.1, 0.2, 5.0];
    /// let k: Vec<Vec<f64>> = p.iter().map(|a| p.iter().map(|b| (-(a - b).powi(2) / 2.0).exp()).collect()).collect();
    /// let w = SampleWeights::new(vec![1.0, 1.0, 1.0, 0.0])?;
    /// let m = OneClassParams::new("linear".parse()?).nu(0.5).fit_precomputed_with(&KernelMatrix::from_rows(&k)?, Some(&w))?;
    /// // The kernel row of the point 5 against the training points: outside.
    /// assert!(m.decision_function(&Samples::from_rows(&[k[3].clone()])?)?[(0, 0)] < 0.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_precomputed_with(&self, k: &KernelMatrix, w: Option<&SampleWeights>) -> Result<OneClass> {
        OneClassParams { kernel: placeholder(), ..self.clone() }.fit_user(&k.serials(), w, Some(k))
    }
}
