//! Kernel ridge regression: the representer-theorem solution (Cao's slides, eq. 17 with the squared
//! loss) `f(x) = Σ_i α_i k(x, x_i)`, no bias, from `(K + λI) α = y`, on the dense or the sparse path
//! ([`PathChoice`]). Real targets (regression), or ±1 labels / one-vs-rest classes (regularized least
//! squares classification, prediction by sign / largest output). λ fixed, or chosen over a grid by
//! exact leave-one-out (`e_i = α_i / ((K + λI)⁻¹)_ii`, the default) or on a tuning set; see
//! [`crate::ridge`].
//!
//! ```
//! use kern_core::{RealTargets, Samples};
//! use kern_core::learner::{Fit, Model};
//! use kern_models::krr::KernelRidgeParams;
//! let x = Samples::from_rows(&[[0.0], [0.5], [1.0], [1.5], [2.0]])?;
//! let y = RealTargets::new(vec![0.0, 0.25, 1.0, 2.25, 4.0])?;
//! let model = KernelRidgeParams::new("gaussian:sigma=1".parse()?).lambda(1e-6).fit(&x, &y)?;
//! let p = model.predict(&Samples::from_rows(&[[1.0]])?)?;
//! assert!((p[0] - 1.0).abs() < 1e-3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::Result;
use crate::kmat::PathChoice;
use crate::persist::Persist;
use crate::ridge::{Encoded, Fitted, GridMethod, Lambda, Problem, log10_grid};
use crate::weights::SampleWeights;
use faer::{Mat, MatRef};
use kern_core::{KernelSpec, Samples, Targets};
use kern_sparse::{Ordering, SolveOptions};
use serde::{Deserialize, Serialize};

/// The default λ grid of kernel ridge regression: `10^-6, 10^-5.5, …, 10^2` (17 values).
///
/// ```
/// let g = kern_models::krr::default_lambda_grid();
/// assert_eq!((g.len(), g[0], g[16]), (17, 1e-6, 1e2));
/// ```
pub fn default_lambda_grid() -> Vec<f64> {
    log10_grid(-6.0, 2.0, 2)
}

/// kernel ridge regression settings. `λ` is the λ of `(K + λI)α = y` (larger λ, more regularization).
///
/// ```
/// use kern_models::krr::KernelRidgeParams;
/// use kern_models::{Fit, Model, RealTargets, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0], [4.0]])?;
/// let y = RealTargets::new(vec![0.0, 1.0, 2.0, 3.0, 4.0])?;
/// let m = KernelRidgeParams::new("linear".parse()?).lambda(1e-6).fit(&x, &y)?;
/// let p = m.predict(&Samples::from_rows(&[[5.0]])?)?;
/// assert!((p[0] - 5.0).abs() < 1e-4); // a line through the origin is recovered
/// assert!(m.selection().is_none()); // λ was fixed, not selected
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct KernelRidgeParams {
    /// The kernel.
    pub kernel: KernelSpec,
    /// Fixed λ or how to choose it (default: leave-one-out over [`default_lambda_grid`]).
    pub lambda: Lambda,
    /// Dense or sparse path.
    pub path: PathChoice,
    /// How a λ grid reuses work on the dense path.
    pub grid_method: GridMethod,
    /// Fill-reducing ordering before the sparse Cholesky factorization (default `Auto`: whichever of AMD
    /// and RCM predicts the smaller factor — RCM fills less on low-dimensional data of moderate sparsity
    /// such as the CS-RBF paper's green-red mixture; ignored on the dense path).
    pub ordering: Ordering,
    /// Direct (sparse Cholesky) or iterative (conjugate gradients) solve on the sparse path at a fixed
    /// λ (default: direct unless the predicted factor exceeds the memory budget).
    pub solver: SolveOptions,
}

impl KernelRidgeParams {
    /// Kernel `kernel`, λ by leave-one-out over the default grid, automatic path.
    pub fn new(kernel: KernelSpec) -> Self {
        KernelRidgeParams {
            kernel,
            lambda: Lambda::Loo(default_lambda_grid()),
            path: PathChoice::Auto,
            grid_method: GridMethod::Auto,
            ordering: Ordering::Auto,
            solver: SolveOptions::default(),
        }
    }

    /// Trains on `r ≥ 1` target columns at once (`y` is `n × r`, multi-output regression): one
    /// factorization of `K + λI` (per λ of a grid) and `r` right-hand sides; with sample weights (at a
    /// fixed λ) as [`crate::weights::FitWeighted`]. The model's [`KernelRidge::alpha`] has one column
    /// per output, and its decision function `m × r` values.
    ///
    /// ```
    /// use kern_core::Samples;
    /// use kern_models::krr::KernelRidgeParams;
    /// let x = Samples::from_rows(&[[0.0], [1.0], [2.0]])?;
    /// let y = faer::Mat::from_fn(3, 2, |i, t| if t == 0 { i as f64 } else { -(i as f64) });
    /// let m = KernelRidgeParams::new("linear".parse()?).lambda(0.1).fit_outputs(&x, y.as_ref(), None)?;
    /// assert_eq!(m.outputs(), 2);
    /// let f = m.decision_function(&x)?;
    /// assert!((f[(2, 0)] + f[(2, 1)]).abs() < 1e-12); // the second output is minus the first
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_outputs(
        &self,
        x: &Samples,
        y: MatRef<'_, f64>,
        weights: Option<&SampleWeights>,
    ) -> Result<KernelRidge> {
        if let Some(w) = weights {
            w.check_len(x.n())?;
        }
        self.fit_weights(x, Encoded::real_columns(y.to_owned())?, weights.map(SampleWeights::values))
    }

    fn fit_encoded(&self, x: &Samples, enc: Encoded) -> Result<KernelRidge> {
        self.fit_weights(x, enc, None)
    }

    /// Trains with per-sample weights (`None`: unweighted; see [`crate::weights`]).
    fn fit_weights(&self, x: &Samples, enc: Encoded, weights: Option<&[f64]>) -> Result<KernelRidge> {
        let p = Problem {
            kernel: &self.kernel,
            x,
            enc,
            bias: false,
            lambda: &self.lambda,
            path: self.path,
            grid_method: self.grid_method,
            ordering: self.ordering,
            solver: self.solver,
            weights,
        };
        crate::validate::trained(KernelRidge(crate::ridge::fit(p)?))
    }
}

/// A trained kernel ridge regression model.
///
/// ```
/// use kern_models::krr::{KernelRidge, KernelRidgeParams};
/// use kern_models::persist::{from_bytes, to_bytes};
/// use kern_models::{Fit, Model, RealTargets, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
/// let y = RealTargets::new(vec![0.0, 1.0, 4.0, 9.0])?;
/// let m = KernelRidgeParams::new("gaussian:sigma=1".parse()?).fit(&x, &y)?;
/// assert_eq!(m.selection().map(|s| s.grid.len()), Some(17)); // λ chosen by leave-one-out
/// let back: KernelRidge = from_bytes(&to_bytes(&m)?, "<bytes>")?;
/// assert_eq!(back.predict(&x)?, m.predict(&x)?); // exact round trip
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct KernelRidge(Fitted);

impl KernelRidge {
    /// The kernel ridge model of coefficients solved elsewhere (e.g. by a distributed solver), checked once
    /// as a model file of this kind is checked.
    ///
    /// ```
    /// use kern_core::Samples;
    /// use kern_models::{kmat::SolvePath, krr::KernelRidge, ridge::{DualParts, Task}, Solver};
    /// let parts = DualParts {
    ///     kernel: "gaussian:sigma=1".parse()?,
    ///     train: Samples::from_rows(&[[0.0], [1.0]])?,
    ///     alpha: vec![0.5, -0.5],
    ///     bias: vec![0.0],
    ///     task: Task::Regression,
    ///     lambda: 1.0,
    ///     path: SolvePath::Dense,
    ///     solver: Solver::Direct,
    ///     pcg: None,
    /// };
    /// assert!(KernelRidge::from_parts(parts.clone()).is_ok());
    /// let classes = DualParts { task: Task::Binary { names: ["a".into(), "b".into()] }, ..parts };
    /// assert!(KernelRidge::from_parts(classes).is_err()); // kernel ridge regresses
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_parts(parts: crate::ridge::DualParts) -> Result<Self> {
        let m = KernelRidge(parts.into_fitted());
        m.validate().map_err(|e| crate::ModelsError::Input(format!("invalid kernel ridge model: {e}")))?;
        Ok(m)
    }
}

impl KernelRidge {
    /// The relative spread (see `relative_spread`) on `r` target columns (`n × r`, the unweighted
    /// training targets of [`KernelRidgeParams::fit_outputs`]).
    pub fn relative_spread_outputs(&self, y: MatRef<'_, f64>) -> Result<f64> {
        self.0.relative_spread_of(&Encoded::real_columns(y.to_owned())?)
    }
}

/// Kernel ridge coefficients from a kernel matrix the caller computed (scikit-learn's
/// `kernel="precomputed"`, or a kernel function of its own): `α` (`n × r`) of `(K + λI) α = y` for
/// `r` target columns, by one Cholesky factorization; with sample weights,
/// `α = S (S K S + λI)⁻¹ S y`, `S = diag √w`, as the weighted fit. `K` must be square, finite and
/// symmetric ([`crate::svm::KernelMatrix`]'s check), and `K + λI` positive definite.
///
/// ```
/// use kern_models::krr::solve_kernel_matrix;
/// let k = faer::Mat::from_fn(2, 2, |i, j| if i == j { 2.0 } else { 1.0 });
/// let y = faer::Mat::from_fn(2, 1, |i, _| [3.0, 3.0][i]);
/// let a = solve_kernel_matrix(k, y.as_ref(), 1.0, None)?;   // (K + I) a = y: a = (0.75, 0.75)
/// assert!((a[(0, 0)] - 0.75).abs() < 1e-15 && (a[(1, 0)] - 0.75).abs() < 1e-15);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub fn solve_kernel_matrix(
    k: Mat<f64>,
    y: MatRef<'_, f64>,
    lambda: f64,
    weights: Option<&SampleWeights>,
) -> Result<Mat<f64>> {
    let k = crate::svm::KernelMatrix::new(k)?;
    let enc = Encoded::real_columns(y.to_owned())?;
    crate::ridge::solve_dense_gram(
        k.as_mat().to_owned(),
        enc.y.as_ref(),
        lambda,
        weights.map(SampleWeights::values),
    )
}

impl Persist for KernelRidge {
    const KIND: &'static str = "krr";
    /// Kernel ridge regression has no intercept and always regresses; an LS-SVM (whose payload has
    /// the same shape) carries an intercept or class names, so one relabelled as KRR is refused.
    fn validate(&self) -> std::result::Result<(), String> {
        crate::validate::fitted(&self.0)?;
        if !matches!(self.0.task, crate::ridge::Task::Regression) {
            return Err("a kernel ridge model regresses, but this payload classifies".into());
        }
        if self.0.bias.iter().any(|&b| b != 0.0) {
            return Err("a kernel ridge model has no intercept, but this payload has one".into());
        }
        Ok(())
    }
}

crate::ridge::estimator::ridge_estimator!(KernelRidgeParams, KernelRidge, "krr");

impl crate::weights::FitWeighted for KernelRidgeParams {
    /// Weighted kernel ridge regression at a fixed λ: `min Σ_i w_i (y_i − f(x_i))² + λ‖f‖²`, solved as
    /// scikit-learn's `_solve_cholesky_kernel` does, `α = S (S K S + λI)⁻¹ S y` with `S = diag √w`
    /// (zero weights kept, their `α_i = 0`). A λ grid is refused.
    fn fit_weighted(
        &self,
        x: &Samples,
        y: &Targets,
        w: &crate::weights::SampleWeights,
    ) -> Result<KernelRidge> {
        w.check_len(x.n())?;
        self.fit_weights(x, Encoded::any(y), Some(w.values()))
    }
}
