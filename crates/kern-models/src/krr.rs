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
use crate::kmat::{PathChoice, SolvePath};
use crate::persist::Persist;
use crate::ridge::{Encoded, Fitted, GridMethod, Lambda, Problem, Selection, Task, log10_grid};
use faer::Mat;
use kern_core::learner::{Fit, Model};
use kern_core::{BinaryTargets, ClassTargets, KernelSpec, RealTargets, Samples, Targets};
use kern_sparse::{Ordering, PcgReport, SolveOptions, Solver};
use serde::{Deserialize, Serialize};

/// The default λ grid of kernel ridge regression: `10^-6, 10^-5.5, …, 10^2` (17 values).
pub fn default_lambda_grid() -> Vec<f64> {
    log10_grid(-6.0, 2.0, 2)
}

/// kernel ridge regression settings. `λ` is the λ of `(K + λI)α = y` (larger λ, more regularization).
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

    /// A fixed λ.
    pub fn lambda(mut self, lambda: f64) -> Self {
        self.lambda = Lambda::Fixed(lambda);
        self
    }

    /// λ by exact leave-one-out over `grid`.
    pub fn loo(mut self, grid: Vec<f64>) -> Self {
        self.lambda = Lambda::Loo(grid);
        self
    }

    /// λ by the error on a tuning set `(x, y)` over `grid`.
    pub fn validation(mut self, grid: Vec<f64>, x: Samples, y: Targets) -> Self {
        self.lambda = Lambda::Validation { grid, x, y };
        self
    }

    /// Forces or frees the path.
    pub fn path(mut self, path: PathChoice) -> Self {
        self.path = path;
        self
    }

    /// Sets the grid method.
    pub fn grid_method(mut self, m: GridMethod) -> Self {
        self.grid_method = m;
        self
    }

    /// Sets the fill-reducing ordering of the sparse path.
    ///
    /// ```
    /// use kern_models::krr::KernelRidgeParams;
    /// use kern_sparse::{Ordering, PcgReport, SolveOptions, Solver};
    /// let p = KernelRidgeParams::new("cs-gaussian:sigma=1,c=2".parse()?).ordering(Ordering::Rcm);
    /// assert_eq!(p.ordering, Ordering::Rcm);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn ordering(mut self, o: Ordering) -> Self {
        self.ordering = o;
        self
    }

    /// Sets the solver of the sparse path (direct, iterative or auto, with the conjugate-gradient
    /// tolerance and iteration cap).
    ///
    /// ```
    /// use kern_models::krr::KernelRidgeParams;
    /// use kern_sparse::{SolveOptions, Solver};
    /// let o = SolveOptions { solver: Solver::Iterative, ..SolveOptions::default() };
    /// let p = KernelRidgeParams::new("cs-gaussian:sigma=1,c=2".parse()?).solver(o);
    /// assert_eq!(p.solver.solver, Solver::Iterative);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn solver(mut self, o: SolveOptions) -> Self {
        self.solver = o;
        self
    }

    /// Trains on any target kind.
    pub fn fit_targets(&self, x: &Samples, y: &Targets) -> Result<KernelRidge> {
        self.fit_encoded(x, Encoded::any(y))
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct KernelRidge(Fitted);

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

impl KernelRidge {
    /// The kernel.
    pub fn kernel(&self) -> &KernelSpec {
        &self.0.kernel
    }

    /// The λ used (fixed or selected).
    pub fn lambda(&self) -> f64 {
        self.0.lambda
    }

    /// The path the model was trained on.
    pub fn path(&self) -> SolvePath {
        self.0.path
    }

    /// What the model predicts.
    pub fn task(&self) -> &Task {
        &self.0.task
    }

    /// The λ selection record (grid, errors, chosen index), when λ was selected.
    pub fn selection(&self) -> Option<&Selection> {
        self.0.selection.as_ref()
    }

    /// Seconds spent in Cholesky factorizations / the eigendecomposition during training.
    pub fn factor_seconds(&self) -> f64 {
        self.0.factor_seconds
    }

    /// The solver the model was trained with: [`Solver::Direct`] or [`Solver::Iterative`].
    pub fn solver(&self) -> Solver {
        self.0.solver
    }

    /// With the iterative solver, the worst conjugate-gradient report over the right-hand sides
    /// (iterations, true relative residual, whether every solve converged).
    pub fn pcg_report(&self) -> Option<PcgReport> {
        self.0.pcg
    }

    /// Number of outputs (1, or the number of classes for one-vs-rest with more than two classes).
    pub fn outputs(&self) -> usize {
        self.0.outputs()
    }

    /// The training samples (every one carries a coefficient).
    pub fn training_samples(&self) -> &Samples {
        &self.0.train
    }

    /// Coefficients `α_i` of output `t`, one per training sample.
    pub fn alpha(&self, t: usize) -> &[f64] {
        let n = self.0.train.n();
        &self.0.alpha[t * n..(t + 1) * n]
    }

    /// Intercept of output `t` (0 without a bias term).
    pub fn bias(&self, t: usize) -> f64 {
        self.0.bias[t]
    }

    /// Decision values `f_t(x)` (`m × outputs`).
    pub fn decision_function(&self, x: &Samples) -> Result<Mat<f64>> {
        self.0.decision_function(x)
    }

    /// Predictions: ±1 (binary targets), class index (class targets), value (real targets).
    pub fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        self.0.predict(x)
    }
}

impl Model for KernelRidge {
    type Error = crate::ModelsError;
    fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        self.0.predict(x)
    }
}

impl Fit<BinaryTargets> for KernelRidgeParams {
    type Model = KernelRidge;
    type Error = crate::ModelsError;
    fn fit(&self, x: &Samples, y: &BinaryTargets) -> Result<KernelRidge> {
        self.fit_encoded(x, Encoded::binary(y))
    }
}

impl Fit<ClassTargets> for KernelRidgeParams {
    type Model = KernelRidge;
    type Error = crate::ModelsError;
    fn fit(&self, x: &Samples, y: &ClassTargets) -> Result<KernelRidge> {
        self.fit_encoded(x, Encoded::classes(y))
    }
}

impl Fit<RealTargets> for KernelRidgeParams {
    type Model = KernelRidge;
    type Error = crate::ModelsError;
    fn fit(&self, x: &Samples, y: &RealTargets) -> Result<KernelRidge> {
        self.fit_encoded(x, Encoded::real(y))
    }
}

impl Fit<Targets> for KernelRidgeParams {
    type Model = KernelRidge;
    type Error = crate::ModelsError;
    fn fit(&self, x: &Samples, y: &Targets) -> Result<KernelRidge> {
        self.fit_targets(x, y)
    }
}

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

impl crate::widen::WidenFeatures for KernelRidge {
    fn n_features(&self) -> usize {
        self.0.train.d()
    }
    fn widen_features(&mut self, d: usize) -> Result<()> {
        crate::widen::widen_store(&mut self.0.train, d)
    }
}
