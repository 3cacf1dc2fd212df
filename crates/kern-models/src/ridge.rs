//! The engine shared by the LS-SVM ([`crate::lssvm`], eq. 14 of the CS-RBF paper, with a bias) and
//! kernel ridge regression ([`crate::krr`], the representer-theorem solution of Cao's eq. 17 with the
//! squared loss, no bias): both solve `(K + λI) X = B` for the ridge penalty `λ` (scikit-learn's
//! `alpha`; the LS-SVM's `γ` of eq. 14, `K + I/γ`, is `γ = 1/λ`), for one `λ` or for a whole grid.
//!
//! **One λ**: kern-sparse's Cholesky ([`CholeskyPlan`]), dense for globally supported kernels and sparse
//! for `K_C`; the LS-SVM goes through kern-sparse's bordered solver [`LsSvmSolver`].
//!
//! **A λ grid** reuses the expensive part:
//! - dense path: one eigendecomposition `K = UΛUᵀ`, after which `(K + sI)⁻¹B = U (Λ + sI)⁻¹ UᵀB` and
//!   `diag (K + sI)⁻¹ = (U∘U)(Λ + sI)⁻¹` cost `O(n²)` per λ ([`GridMethod::Eigen`]);
//! - sparse path: the ordering and symbolic analysis of `K_C` are done once by [`CholeskyPlan`], and
//!   each λ costs one numeric factorization ([`GridMethod::Refactor`]).
//!
//! **Iterative solves** (fixed λ, sparse path): with [`Solver::Iterative`], or [`Solver::Auto`] when the
//! predicted factor exceeds the memory budget, the same systems are solved by kern-sparse's
//! preconditioned conjugate gradients ([`Pcg`]; the LS-SVM by [`LsSvmIterative`]'s two solves), all
//! right-hand sides in lockstep (one pass over the matrix per iteration for all of them). With
//! [`Solver::Iterative`] and no preconditioner (the default), `K_C` is assembled straight into its
//! lower triangle with 32-bit indices ([`SymLower`], about 2.7 times less memory than the full
//! storage; the full matrix is never built); [`Solver::Auto`] needs the full matrix for its symbolic
//! analysis and keeps it, as does a block-Jacobi preconditioner. A λ grid always factors: exact
//! leave-one-out needs the factor.
//!
//! **Exact leave-one-out.** For the bordered matrix `A = [[0, 1ᵀ], [1, H]]` (`H = K + λI`) and its
//! solution `(b, α)`, the residual of point `i` under the model trained without `i` is
//! `y_i − f⁽⁻ⁱ⁾(x_i) = α_i / (A⁻¹)_ii` (index `i` of the α-block). Derivation: give point `i` the target
//! `t = f⁽⁻ⁱ⁾(x_i)`; then the leave-one-out solution padded with `α_i = 0` satisfies every row of the
//! system (row `i` reads `f⁽⁻ⁱ⁾(x_i) + λ·0 = t`), so it *is* the solution for targets `y + (t − y_i)e_i`.
//! By linearity its `i`-th coefficient is `α_i + (t − y_i)(A⁻¹)_ii = 0`, which gives the formula. With
//! `ν = H⁻¹1` and `σ = 1ᵀν`, block elimination gives the α-block `A⁻¹ = H⁻¹ − ννᵀ/σ`, so
//! `(A⁻¹)_ii = (H⁻¹)_ii − ν_i²/σ`. Without a bias (KRR) the same argument gives `α_i / (H⁻¹)_ii`. The
//! diagonal of `H⁻¹` comes from the eigendecomposition (dense grid), from `L⁻¹` (dense Cholesky:
//! `(H⁻¹)_ii = Σ_k (L⁻¹)²_ki`), or from the selected inverse of the sparse factor (`selinv`),
//! so LOO costs about one more factorization, not `n` refits. A test checks it against brute-force
//! refits.
//!
//! **Selection** of λ: classification by the leave-one-out (or validation) error rate, ties broken by
//! the mean squared residual; regression by the mean squared residual (PRESS / n).
//!
//! ```
//! use kern_models::krr::KernelRidgeParams;
//! use kern_models::ridge::GridMethod;
//! use kern_models::{Fit, RealTargets, Samples};
//! let x = Samples::from_rows(&[[0.0], [0.5], [1.0], [1.5], [2.0], [2.5]])?;
//! let y = RealTargets::new(vec![0.0, 0.48, 0.84, 1.0, 0.91, 0.6])?; // about sin(x)
//! let p = KernelRidgeParams::new("gaussian:sigma=1".parse()?).loo(vec![1e-3, 1e-2, 1e-1, 1.0]);
//! let m = p.clone().grid_method(GridMethod::Eigen).fit(&x, &y)?; // one eigendecomposition
//! let s = m.selection().unwrap();
//! assert_eq!(m.lambda(), s.grid[s.best]); // the λ of least leave-one-out error
//! assert!(s.mse.iter().all(|&e| e >= s.mse[s.best]));
//! let r = p.grid_method(GridMethod::Refactor).fit(&x, &y)?; // one factorization per λ
//! assert_eq!(r.selection().unwrap().best, s.best);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub(crate) mod estimator;
pub mod width;

use crate::error::{ModelsError, Result};
use crate::kmat::{PathChoice, SolvePath, build_gram, choose_path, expand};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Side};
use kern_core::{
    BinaryTargets, ClassTargets, Kernel, KernelSpec, KernelVisitor, RealTargets, Samples, Targets,
};
use kern_sparse::solver::choose_solver;
use kern_sparse::{
    Cholesky, CholeskyPlan, GramMatrix, LsSvmIterative, LsSvmSolver, Ordering, Pcg, PcgReport,
    Preconditioner, SolveOptions, Solver, SymLower,
};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// What a model predicts, with the label names of classifiers.
///
/// ```
/// use kern_models::ridge::Task;
/// let t = Task::Classes { names: vec!["a".into(), "b".into(), "c".into()] };
/// assert!(t.is_classification() && t.outputs() == 3);
/// let f = faer::Mat::from_fn(2, 3, |i, c| if c == 2 - i { 1.0 } else { -1.0 });
/// assert_eq!(t.decode(f.as_ref()), vec![2.0, 1.0]); // the class of the largest output
/// assert!(!Task::Regression.is_classification());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Task {
    /// Two classes as ±1 (`names[0]` ↦ −1, `names[1]` ↦ +1); prediction `sign f`.
    Binary {
        /// Original names of the −1 and +1 classes.
        names: [String; 2],
    },
    /// `k ≥ 2` classes by one-vs-rest (one output per class; for two classes a single output, class 1
    /// vs class 0); prediction: the class index with the largest output.
    Classes {
        /// Class names (`names[c]` is class `c`).
        names: Vec<String>,
    },
    /// Real targets; prediction `f`.
    Regression,
}

impl Task {
    /// Whether predictions are labels.
    pub fn is_classification(&self) -> bool {
        !matches!(self, Task::Regression)
    }

    /// Number of outputs `r` of the dual model for a classifier; at least 1 for regression, which may
    /// have several (multi-output kernel ridge regression).
    pub fn outputs(&self) -> usize {
        match self {
            Task::Classes { names } if names.len() > 2 => names.len(),
            _ => 1,
        }
    }

    /// Predictions from decision values (`m × r`): ±1, class index or value (of the first output, for
    /// a multi-output regression; its decision values hold every output).
    pub fn decode(&self, f: MatRef<'_, f64>) -> Vec<f64> {
        (0..f.nrows())
            .map(|i| match self {
                Task::Binary { .. } => {
                    if f[(i, 0)] > 0.0 {
                        1.0
                    } else {
                        -1.0
                    }
                }
                Task::Classes { names } if names.len() == 2 => {
                    if f[(i, 0)] > 0.0 {
                        1.0
                    } else {
                        0.0
                    }
                }
                Task::Classes { .. } => {
                    let mut best = 0;
                    for t in 1..f.ncols() {
                        if f[(i, t)] > f[(i, best)] {
                            best = t;
                        }
                    }
                    best as f64
                }
                Task::Regression => f[(i, 0)],
            })
            .collect()
    }
}

/// Targets encoded for the dual system: `y` (`n × r`), the task, and the truth per sample (±1, class
/// index or value) for error rates.
#[derive(Clone, Debug)]
pub(crate) struct Encoded {
    pub y: Mat<f64>,
    pub task: Task,
    pub truth: Vec<f64>,
}

impl Encoded {
    pub fn binary(t: &BinaryTargets) -> Self {
        let y = Mat::from_fn(t.len(), 1, |i, _| t.y()[i]);
        Encoded { y, task: Task::Binary { names: t.names().clone() }, truth: t.y().to_vec() }
    }

    pub fn classes(t: &ClassTargets) -> Self {
        let k = t.n_classes();
        let c = t.classes();
        let y = if k == 2 {
            Mat::from_fn(c.len(), 1, |i, _| if c[i] == 1 { 1.0 } else { -1.0 })
        } else {
            Mat::from_fn(c.len(), k, |i, j| if c[i] == j { 1.0 } else { -1.0 })
        };
        Encoded {
            y,
            task: Task::Classes { names: t.names().to_vec() },
            truth: c.iter().map(|&v| v as f64).collect(),
        }
    }

    /// Real targets in `r ≥ 1` columns (`n × r`, multi-output regression); the truth per sample is
    /// the first column (used only by a validation set's error rate, which is the mean squared error
    /// over all columns for regression).
    pub fn real_columns(y: Mat<f64>) -> Result<Self> {
        for t in 0..y.ncols() {
            for i in 0..y.nrows() {
                if !y[(i, t)].is_finite() {
                    return Err(ModelsError::Input(format!(
                        "non-finite target {} at row {i}, output {t}",
                        y[(i, t)]
                    )));
                }
            }
        }
        if y.ncols() == 0 {
            return Err(ModelsError::Input("targets with no output column".into()));
        }
        let truth = (0..y.nrows()).map(|i| y[(i, 0)]).collect();
        Ok(Encoded { y, task: Task::Regression, truth })
    }

    pub fn real(t: &RealTargets) -> Self {
        let v = t.values();
        Encoded { y: Mat::from_fn(v.len(), 1, |i, _| v[i]), task: Task::Regression, truth: v.to_vec() }
    }

    pub fn any(t: &Targets) -> Self {
        match t {
            Targets::Binary(b) => Self::binary(b),
            Targets::Classes(c) => Self::classes(c),
            Targets::Real(r) => Self::real(r),
        }
    }

    /// Encodes validation targets with the training task's mapping.
    pub fn like(task: &Task, t: &Targets) -> Result<Self> {
        let e = Self::any(t);
        let same = match (task, &e.task) {
            (Task::Binary { names: a }, Task::Binary { names: b }) => a == b,
            (Task::Classes { names: a }, Task::Classes { names: b }) => a == b,
            (Task::Regression, Task::Regression) => true,
            _ => false,
        };
        if !same {
            return Err(ModelsError::Input(format!(
                "validation targets ({:?}) do not match the training targets ({task:?})",
                e.task
            )));
        }
        Ok(e)
    }
}

/// How λ is chosen.
///
/// ```
/// use kern_models::krr::KernelRidgeParams;
/// use kern_models::ridge::Lambda;
/// let p = KernelRidgeParams::new("linear".parse()?).loo(vec![0.1, 1.0]);
/// assert_eq!(p.lambda, Lambda::Loo(vec![0.1, 1.0]));
/// assert_eq!(p.lambda(0.5).lambda, Lambda::Fixed(0.5));
/// # Ok::<(), kern_models::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Lambda {
    /// A fixed value.
    Fixed(f64),
    /// The grid value with the smallest exact leave-one-out error (module docs).
    Loo(Vec<f64>),
    /// The grid value with the smallest error on an extra tuning set (the paper's Table 3 protocol).
    Validation {
        /// Candidate values.
        grid: Vec<f64>,
        /// Tuning samples.
        x: Samples,
        /// Tuning targets (same kind and label names as the training targets).
        y: Targets,
    },
}

/// How a λ grid is solved on the dense path.
///
/// ```
/// use kern_models::krr::KernelRidgeParams;
/// use kern_models::ridge::GridMethod;
/// use kern_models::{Fit, RealTargets, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0], [4.0]])?;
/// let y = RealTargets::new(vec![1.0, 0.0, 1.0, 0.0, 1.0])?;
/// let p = KernelRidgeParams::new("gaussian:sigma=1".parse()?).loo(vec![0.01, 0.1, 1.0]);
/// let eigen = p.clone().grid_method(GridMethod::Eigen).fit(&x, &y)?;
/// let refactor = p.grid_method(GridMethod::Refactor).fit(&x, &y)?;
/// assert_eq!(eigen.selection().unwrap().method, "eigen");
/// assert_eq!(eigen.selection().unwrap().best, refactor.selection().unwrap().best); // same choice
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum GridMethod {
    /// Eigendecomposition on the dense path, refactorization (symbolic analysis reused) on the sparse path.
    #[default]
    Auto,
    /// One eigendecomposition of `K` (dense path only).
    Eigen,
    /// One Cholesky factorization per λ (symbolic analysis reused on the sparse path).
    Refactor,
}

/// The record of a λ selection.
///
/// ```
/// use kern_models::lssvm::LsSvmParams;
/// use kern_models::{BinaryTargets, Fit, Samples};
/// let x = Samples::from_rows(&[[0.0], [0.5], [1.0], [3.0], [3.5], [4.0]])?;
/// let y = BinaryTargets::from_labels(&["a", "a", "a", "b", "b", "b"])?;
/// let m = LsSvmParams::new("gaussian:sigma=1".parse()?).loo(vec![0.01, 0.1, 1.0]).fit(&x, &y)?;
/// let s = m.selection().unwrap();
/// assert_eq!((s.criterion.as_str(), s.grid.len(), s.mse.len()), ("loo", 3, 3));
/// assert_eq!(m.lambda(), s.grid[s.best]); // the model uses the chosen λ
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Selection {
    /// `"loo"` or `"validation"`.
    pub criterion: String,
    /// Candidate λ values.
    pub grid: Vec<f64>,
    /// Error rate per λ (classification); equal to `mse` for regression.
    pub error: Vec<f64>,
    /// Mean squared (leave-one-out or validation) residual per λ.
    pub mse: Vec<f64>,
    /// Index of the chosen λ.
    pub best: usize,
    /// `"eigen"` or `"refactor"`.
    pub method: String,
}

/// The parts of a dual model `f_t(x) = b_t + Σ_i α_it k(x, x_i)` solved elsewhere (e.g. by a
/// distributed solver), from which [`crate::lssvm::LsSvm::from_parts`] and
/// [`crate::krr::KernelRidge::from_parts`] build the model — checked once, as a model file is.
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
/// let m = KernelRidge::from_parts(parts)?;
/// assert_eq!(m.alpha(0), &[0.5, -0.5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct DualParts {
    /// The kernel.
    pub kernel: KernelSpec,
    /// The training samples (the expansion's points).
    pub train: Samples,
    /// The coefficients, `n × r` column-major (`r` outputs).
    pub alpha: Vec<f64>,
    /// The `r` intercepts (zeros without bias).
    pub bias: Vec<f64>,
    /// What the model predicts.
    pub task: Task,
    /// The regularisation λ.
    pub lambda: f64,
    /// The kernel-matrix path the model predicts with.
    pub path: SolvePath,
    /// The solver that produced the coefficients.
    pub solver: Solver,
    /// With the iterative solver, the worst report over the right-hand sides.
    pub pcg: Option<PcgReport>,
}

impl DualParts {
    /// The model payload (no λ selection, no timing); the model kind checks it.
    pub(crate) fn into_fitted(self) -> Fitted {
        Fitted {
            kernel: self.kernel,
            train: self.train,
            alpha: self.alpha,
            bias: self.bias,
            task: self.task,
            lambda: self.lambda,
            path: self.path,
            selection: None,
            factor_seconds: RunSeconds(0.0),
            solver: self.solver,
            pcg: self.pcg,
        }
    }
}

/// A trained dual model `f_t(x) = b_t + Σ_i α_it k(x, x_i)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Fitted {
    pub kernel: KernelSpec,
    pub train: Samples,
    /// `n × r`, column-major.
    pub alpha: Vec<f64>,
    /// `r` intercepts (zeros without bias).
    pub bias: Vec<f64>,
    pub task: Task,
    pub lambda: f64,
    pub path: SolvePath,
    pub selection: Option<Selection>,
    /// Seconds spent in factorizations / the eigendecomposition (or the conjugate-gradient solves).
    pub factor_seconds: RunSeconds,
    /// The solver used: direct, or iterative (conjugate gradients).
    pub solver: Solver,
    /// With the iterative solver, the worst report over the right-hand sides.
    pub pcg: Option<PcgReport>,
}

/// A wall time of the fit run: a fact of the run, not of the model. Saved as 0 (a wall time in the
/// payload would make every saved model differ from the last: same data, same seed, any thread count;
/// the field keeps its place in the format) and equal to any other, so that a model equals itself
/// after a save and load, and models compare by what they predict with.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RunSeconds(pub f64);

impl PartialEq for RunSeconds {
    fn eq(&self, _: &RunSeconds) -> bool {
        true
    }
}

impl Serialize for RunSeconds {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_f64(0.0)
    }
}

impl<'de> Deserialize<'de> for RunSeconds {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        f64::deserialize(d).map(RunSeconds)
    }
}

impl Fitted {
    pub fn outputs(&self) -> usize {
        self.bias.len()
    }

    pub fn alpha_mat(&self) -> Mat<f64> {
        let n = self.train.n();
        Mat::from_fn(n, self.outputs(), |i, t| self.alpha[t * n + i])
    }

    pub fn decision_function(&self, x: &Samples) -> Result<Mat<f64>> {
        let mut f = expand(&self.kernel, &self.train, self.alpha_mat().as_ref(), x, self.path)?;
        for t in 0..self.outputs() {
            for i in 0..x.n() {
                f[(i, t)] += self.bias[t];
            }
        }
        crate::finite_output::mat(f.as_ref(), "decision values")?;
        Ok(f)
    }

    pub fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        Ok(self.task.decode(self.decision_function(x)?.as_ref()))
    }

    /// How far the training decision values stray from the intercepts, relative to the training
    /// targets: `max |f_t(x_i) − b_t| / max |y_it − b_t|` over samples and outputs (1 when the targets
    /// all equal the intercepts: the model fits them exactly, regularization took nothing). The system `(K + λI)α + b1 = y` gives `f_t(x_i) − b_t = (Kα)_it =
    /// y_it − b_t − λα_it`, so this costs `O(n r)`, no kernel evaluation. `y` must be the (unweighted)
    /// training targets.
    pub fn relative_spread(&self, y: &Targets) -> Result<f64> {
        self.relative_spread_of(&Encoded::any(y))
    }

    /// [`Fitted::relative_spread`] of encoded targets (several real outputs included).
    pub(crate) fn relative_spread_of(&self, enc: &Encoded) -> Result<f64> {
        let (n, r) = (self.train.n(), self.outputs());
        if enc.y.nrows() != n || enc.y.ncols() != r {
            return Err(ModelsError::Input(format!(
                "{} targets in {} outputs for a model of {n} training samples and {r} outputs",
                enc.y.nrows(),
                enc.y.ncols()
            )));
        }
        let mut s = Spread::default();
        for t in 0..r {
            let b = self.bias[t];
            for i in 0..n {
                let yi = enc.y[(i, t)];
                s.add(yi - b - self.lambda * self.alpha[t * n + i], yi - b);
            }
        }
        Ok(s.ratio())
    }
}

/// The two maxima of a model's relative spread (see `relative_spread` of the ridge models):
/// `fit = max |f_t(x_i) − b_t|` and `target = max |y_it − b_t|` over the rows seen so far. Parts
/// computed on separate row sets combine by taking the maxima ([`Spread::merge`]).
///
/// ```
/// use kern_models::ridge::Spread;
/// let mut s = Spread::default();
/// s.add(0.5, 2.0);
/// s.add(-1.0, 1.0);
/// assert_eq!(s.ratio(), 0.5);
/// assert_eq!(Spread::default().ratio(), 1.0); // targets all at the intercept
/// assert_eq!(s.merge(Spread { fit: 3.0, target: 1.0 }).ratio(), 1.5);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spread {
    /// Largest `|f_t(x_i) − b_t|`.
    pub fit: f64,
    /// Largest `|y_it − b_t|`.
    pub target: f64,
}

impl Spread {
    /// Takes in one row and output: its decision value and target, both less the intercept.
    pub fn add(&mut self, f_minus_b: f64, y_minus_b: f64) {
        self.fit = self.fit.max(f_minus_b.abs());
        self.target = self.target.max(y_minus_b.abs());
    }
    /// The spread of both row sets.
    pub fn merge(self, other: Spread) -> Spread {
        Spread { fit: self.fit.max(other.fit), target: self.target.max(other.target) }
    }
    /// `fit / target`, or 1 when every target equals its intercept (the model fits them exactly).
    pub fn ratio(self) -> f64 {
        if self.target > 0.0 { self.fit / self.target } else { 1.0 }
    }
}

/// Everything the engine needs.
pub(crate) struct Problem<'a> {
    pub kernel: &'a KernelSpec,
    pub x: &'a Samples,
    pub enc: Encoded,
    /// LS-SVM (`true`: bordered system) or KRR (`false`); both shift `K` by `λ`.
    pub bias: bool,
    pub lambda: &'a Lambda,
    pub path: PathChoice,
    pub grid_method: GridMethod,
    /// Fill-reducing ordering of the sparse path's Cholesky factorization (ignored on the dense path).
    pub ordering: Ordering,
    /// Direct or iterative solve of the sparse path at a fixed λ.
    pub solver: SolveOptions,
    /// Sample weights of kernel ridge regression at a fixed λ (`None`: 1; see [`crate::weights`]).
    pub weights: Option<&'a [f64]>,
}

/// Solves `(K + λI) α = y` for a given dense Gram matrix `K` (`n × n`, symmetric) and `r` right-hand
/// sides `y` (`n × r`): one Cholesky factorization; with sample weights `w`,
/// `α = S (S K S + λI)⁻¹ S y`, `S = diag √w`, as [`fit`] does.
pub(crate) fn solve_dense_gram(
    k: Mat<f64>,
    y: MatRef<'_, f64>,
    lambda: f64,
    weights: Option<&[f64]>,
) -> Result<Mat<f64>> {
    let n = k.nrows();
    if k.ncols() != n || y.nrows() != n {
        return Err(ModelsError::Input(format!(
            "a {} x {} kernel matrix for {} targets",
            k.nrows(),
            k.ncols(),
            y.nrows()
        )));
    }
    let l = check_lambda(lambda)?;
    let mut gram = GramMatrix::Dense(k);
    let sqrt_w: Option<Vec<f64>> = weights.map(|w| w.iter().map(|v| v.sqrt()).collect());
    let mut x = y.to_owned();
    if let Some(s) = &sqrt_w {
        if s.len() != n {
            return Err(ModelsError::Input(format!("{} sample weights for {n} samples", s.len())));
        }
        scale_gram(&mut gram, s);
        scale_rows(x.as_mut(), s);
    }
    let mut plan = CholeskyPlan::new(gram, Ordering::Auto)?;
    plan.factor(l)?.solve_mat_in_place(x.as_mut())?;
    if let Some(s) = &sqrt_w {
        scale_rows(x.as_mut(), s);
    }
    Ok(x)
}

/// Scales row `i` of `m` by `s[i]`.
fn scale_rows(mut m: faer::MatMut<'_, f64>, s: &[f64]) {
    for t in 0..m.ncols() {
        for (i, si) in s.iter().enumerate() {
            m[(i, t)] *= si;
        }
    }
}

/// Scales `K ← S K S` (`S = diag s`) in place, dense or sparse.
fn scale_gram(gram: &mut GramMatrix, s: &[f64]) {
    match gram {
        GramMatrix::Dense(k) => {
            for j in 0..k.ncols() {
                for i in 0..k.nrows() {
                    k[(i, j)] *= s[i] * s[j];
                }
            }
        }
        GramMatrix::Sparse(m) => {
            let (offsets, rows, values) = m.csc_data_mut();
            for j in 0..offsets.len() - 1 {
                for t in offsets[j]..offsets[j + 1] {
                    values[t] *= s[rows[t]] * s[j];
                }
            }
        }
    }
}

pub(crate) fn check_lambda(v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(ModelsError::Param { name: "lambda", value: v, reason: "must be finite and > 0" })
    }
}

/// The solution at one λ: coefficients `n × r`, intercepts, and (for LOO) the diagonal of the
/// α-block of the inverse system matrix.
struct Solved {
    alpha: Mat<f64>,
    bias: Vec<f64>,
    loo_diag: Option<Vec<f64>>,
}

/// Solves at shift `s` from `X = H⁻¹[1 | Y]` (bias) or `X = H⁻¹Y`, and `d = diag H⁻¹`.
fn finish(bias: bool, x: Mat<f64>, d: Option<Vec<f64>>) -> Result<Solved> {
    let n = x.nrows();
    if !bias {
        return Ok(Solved { alpha: x, bias: vec![0.0; 0], loo_diag: d });
    }
    let r = x.ncols() - 1;
    let nu: Vec<f64> = (0..n).map(|i| x[(i, 0)]).collect();
    let sigma: f64 = nu.iter().sum();
    if !(sigma.is_finite() && sigma > 0.0) {
        return Err(ModelsError::Numerical(format!("1ᵀ(K + λI)⁻¹1 = {sigma:e} is not positive")));
    }
    let mut alpha = Mat::<f64>::zeros(n, r);
    let mut b = vec![0.0; r];
    for t in 0..r {
        let eta_sum: f64 = (0..n).map(|i| x[(i, t + 1)]).sum();
        b[t] = eta_sum / sigma;
        for i in 0..n {
            alpha[(i, t)] = x[(i, t + 1)] - b[t] * nu[i];
        }
    }
    let loo_diag = d.map(|d| d.iter().zip(&nu).map(|(di, v)| di - v * v / sigma).collect());
    Ok(Solved { alpha, bias: b, loo_diag })
}

/// The exact diagonal of `(L Lᵀ)⁻¹` for a Cholesky factor: `Σ_k (L⁻¹)²_ki` (dense) or the selected
/// inverse (sparse).
fn inverse_diagonal(chol: &Cholesky) -> Result<Vec<f64>> {
    match chol {
        Cholesky::Dense(c) => {
            let l = c.l();
            let n = l.nrows();
            let mut linv = Mat::<f64>::zeros(n, n);
            faer::linalg::triangular_inverse::invert_lower_triangular(
                linv.as_mut(),
                l.as_ref(),
                kern_core::parallel::faer_par(),
            );
            Ok((0..n).map(|i| (i..n).map(|k| linv[(k, i)] * linv[(k, i)]).sum()).collect())
        }
        Cholesky::Sparse(_) => crate::selinv::inverse_diagonal(chol),
    }
}

/// Trains: path, Gram matrix, λ (fixed or selected), coefficients.
pub(crate) fn fit(p: Problem<'_>) -> Result<Fitted> {
    let n = p.x.n();
    if p.enc.y.nrows() != n {
        return Err(ModelsError::Input(format!("{} targets for {n} samples", p.enc.y.nrows())));
    }
    p.kernel.check_samples(p.x)?;
    let path = choose_path(p.kernel, p.x, p.path)?;
    let r = p.enc.y.ncols();
    // Sample weights (crate::weights): `α = S (S K S + λI)⁻¹ S y`, `S = diag √w`.
    let sqrt_w: Option<Vec<f64>> = p.weights.map(|w| w.iter().map(|v| v.sqrt()).collect());
    let mut p = p;
    if let Some(s) = &sqrt_w {
        if p.bias || !matches!(p.lambda, Lambda::Fixed(_)) || s.len() != n {
            return Err(ModelsError::Input(
                "sample weights apply to kernel ridge regression at a fixed lambda, one weight per sample"
                    .into(),
            ));
        }
        scale_rows(p.enc.y.as_mut(), s);
    }
    let p = p;
    let shift = |lambda: f64| -> f64 { lambda };
    let done = |alpha: Mat<f64>, bias: Vec<f64>, lambda, selection, factor_seconds, solver, pcg| {
        let alpha_vec: Vec<f64> = (0..r)
            .flat_map(|t| (0..n).map(move |i| (t, i)))
            .map(|(t, i)| sqrt_w.as_ref().map_or(alpha[(i, t)], |s| alpha[(i, t)] * s[i]))
            .collect();
        Fitted {
            kernel: p.kernel.clone(),
            train: p.x.clone(),
            alpha: alpha_vec,
            bias: if bias.is_empty() { vec![0.0; r] } else { bias },
            task: p.enc.task.clone(),
            lambda,
            path,
            selection,
            factor_seconds: RunSeconds(factor_seconds),
            solver,
            pcg,
        }
    };
    // The iterative solve on the lower triangle (module docs): the full matrix is never built.
    if let (SolvePath::Sparse, Solver::Iterative, Preconditioner::None, None, Lambda::Fixed(l)) =
        (path, p.solver.solver, p.solver.pcg.preconditioner, p.weights, p.lambda)
    {
        let l = check_lambda(*l)?;
        let lower = build_lower(p.kernel, p.x)?;
        // Its product's bands (one per chunk of columns) must stay well below the matrix: true in
        // the grid's cell order; otherwise (points the grid does not order) use the full storage.
        if lower.scratch_len(r + 1) <= lower.nnz() {
            let t0 = Instant::now();
            let pcg = Pcg::from_lower(lower, shift(l), &p.solver.pcg)?;
            let (alpha, bias, report) = solve_iterative(&p, pcg)?;
            let seconds = t0.elapsed().as_secs_f64();
            return Ok(done(alpha, bias, l, None, seconds, Solver::Iterative, Some(report)));
        }
    }
    let mut gram = build_gram(p.kernel, p.x, path)?;
    if let Some(s) = &sqrt_w {
        scale_gram(&mut gram, s);
    }
    match p.lambda {
        Lambda::Fixed(l) => {
            let l = check_lambda(*l)?;
            let t0 = Instant::now();
            let mut plan = match gram {
                GramMatrix::Sparse(m) if p.solver.solver != Solver::Direct => {
                    let plan = match p.solver.solver {
                        Solver::Auto => Some(CholeskyPlan::sparse(&m, p.ordering)?),
                        _ => None,
                    };
                    match plan {
                        Some(plan)
                            if choose_solver(Solver::Auto, plan.factor_nnz(), p.solver.factor_budget)
                                == Solver::Direct =>
                        {
                            drop(m);
                            plan
                        }
                        _ => {
                            let pcg = Pcg::new(m, shift(l), &p.solver.pcg)?;
                            let (alpha, bias, report) = solve_iterative(&p, pcg)?;
                            let seconds = t0.elapsed().as_secs_f64();
                            return Ok(done(alpha, bias, l, None, seconds, Solver::Iterative, Some(report)));
                        }
                    }
                }
                GramMatrix::Dense(_) if p.solver.solver == Solver::Iterative => {
                    return Err(ModelsError::Input(
                        "the iterative solver needs the sparse path (a compactly supported cs- kernel)"
                            .into(),
                    ));
                }
                gram => CholeskyPlan::new(gram, p.ordering)?,
            };
            let chol = plan.factor(shift(l))?;
            let factor_seconds = t0.elapsed().as_secs_f64();
            let (alpha, bias) = if p.bias {
                let solver = LsSvmSolver::from_cholesky(chol)?;
                let mut alpha = Mat::<f64>::zeros(n, r);
                let mut b = vec![0.0; r];
                for t in 0..r {
                    let y: Vec<f64> = (0..n).map(|i| p.enc.y[(i, t)]).collect();
                    let s = solver.solve(&y)?;
                    b[t] = s.b;
                    for i in 0..n {
                        alpha[(i, t)] = s.alpha[i];
                    }
                }
                (alpha, b)
            } else {
                let mut x = p.enc.y.clone();
                chol.solve_mat_in_place(x.as_mut())?;
                (x, Vec::new())
            };
            Ok(done(alpha, bias, l, None, factor_seconds, Solver::Direct, None))
        }
        Lambda::Loo(grid) | Lambda::Validation { grid, .. } => {
            if p.solver.solver == Solver::Iterative {
                return Err(ModelsError::Input(
                    "the iterative solver needs a fixed lambda: choosing lambda over a grid factors K".into(),
                ));
            }
            let loo = matches!(p.lambda, Lambda::Loo(_));
            let (mut solved, method, factor_seconds) = solve_grid(&p, gram, grid, loo)?;
            let method_name = if method == GridMethod::Eigen { "eigen" } else { "refactor" };
            let (errors, mses) = if loo {
                score_loo(&p.enc, &solved)
            } else {
                let Lambda::Validation { x: xv, y: yv, .. } = p.lambda else { unreachable!() };
                score_validation(p.kernel, p.x, path, &p.enc, &solved, xv, yv)?
            };
            let best = best_index(&errors, &mses);
            let (_, s) = solved.swap_remove(best);
            let selection = Selection {
                criterion: if loo { "loo".into() } else { "validation".into() },
                grid: grid.clone(),
                error: errors,
                mse: mses,
                best,
                method: method_name.into(),
            };
            Ok(done(s.alpha, s.bias, grid[best], Some(selection), factor_seconds, Solver::Direct, None))
        }
    }
}

/// Solves at one λ by conjugate gradients on the sparse `K_C` (module docs; `pcg` holds `K_C` and the
/// shift): all right-hand sides in lockstep (the LS-SVM's `ν = H⁻¹1` with them), coefficients `n × r`,
/// intercepts (LS-SVM) and the worst report over the right-hand sides.
fn solve_iterative(p: &Problem<'_>, pcg: Pcg) -> Result<(Mat<f64>, Vec<f64>, PcgReport)> {
    let (n, r) = (p.x.n(), p.enc.y.ncols());
    let y: Vec<f64> = (0..r).flat_map(|t| (0..n).map(move |i| p.enc.y[(i, t)])).collect();
    let (x, bias, report) = if p.bias {
        let (solver, sols) = LsSvmIterative::with_targets(pcg, &y)?;
        let report = sols.iter().fold(solver.nu_report(), |w, (_, rep)| w.worst(*rep));
        let bias = sols.iter().map(|(s, _)| s.b).collect();
        let x: Vec<f64> = sols.into_iter().flat_map(|(s, _)| s.alpha).collect();
        (x, bias, report)
    } else {
        let (x, reports) = pcg.solve_many(&y)?;
        (x, Vec::new(), reports.into_iter().reduce(PcgReport::worst).unwrap_or_default())
    };
    Ok((Mat::from_fn(n, r, |i, t| x[t * n + i]), bias, report))
}

/// The lower triangle of `K_C` for the iterative solve, monomorphized for the concrete kernel.
fn build_lower(k: &KernelSpec, x: &Samples) -> Result<SymLower> {
    struct BuildLower<'a>(&'a Samples);
    impl KernelVisitor for BuildLower<'_> {
        type Output = kern_sparse::Result<SymLower>;
        fn visit<K: Kernel>(self, k: &K) -> Self::Output {
            kern_sparse::sparse_gram_lower(k, self.0)
        }
    }
    Ok(k.visit(BuildLower(x))?)
}

/// Per grid value (index, solution), the method used, and the factorization seconds.
type GridSolution = (Vec<(usize, Solved)>, GridMethod, f64);

/// Solves at every λ of `grid` (module docs): one eigendecomposition (dense) or one symbolic analysis
/// plus a numeric factorization per λ; with `loo`, also the diagonal of the α-block of `A⁻¹`.
fn solve_grid(p: &Problem<'_>, gram: GramMatrix, grid: &[f64], loo: bool) -> Result<GridSolution> {
    let n = p.x.n();
    let r = p.enc.y.ncols();
    let shift = |lambda: f64| -> f64 { lambda };
    if grid.is_empty() {
        return Err(ModelsError::Input("empty λ grid".into()));
    }
    for &l in grid {
        check_lambda(l)?;
    }
    let method = match (p.grid_method, gram.is_sparse()) {
        (GridMethod::Eigen, true) => {
            return Err(ModelsError::Input("the eigendecomposition grid method needs the dense path".into()));
        }
        (GridMethod::Eigen | GridMethod::Auto, false) => GridMethod::Eigen,
        _ => GridMethod::Refactor,
    };
    // Right-hand sides [1 | Y] (bias) or Y.
    let rhs = if p.bias {
        Mat::from_fn(n, r + 1, |i, j| if j == 0 { 1.0 } else { p.enc.y[(i, j - 1)] })
    } else {
        p.enc.y.clone()
    };
    let mut solved: Vec<(usize, Solved)> = Vec::new();
    let mut factor_seconds = 0.0;
    match method {
        GridMethod::Eigen => {
            let GramMatrix::Dense(k) = gram else { unreachable!("eigen method on the dense path") };
            let t0 = Instant::now();
            kern_core::memory::check_eigen(
                k.nrows(),
                "the eigendecomposition of the kernel matrix",
                "use the refactor grid method, fewer rows or a landmark model",
            )?;
            let evd = k.self_adjoint_eigen(Side::Lower).map_err(|e| {
                ModelsError::Numerical(format!("eigendecomposition of K: {}", kern_core::faer_errors::evd(e)))
            })?;
            drop(k);
            let u = evd.U();
            let lam: Vec<f64> = (0..n).map(|i| evd.S().column_vector()[i]).collect();
            let mut utb = Mat::<f64>::zeros(n, rhs.ncols());
            matmul(
                utb.as_mut(),
                Accum::Replace,
                u.transpose(),
                rhs.as_ref(),
                1.0,
                kern_core::parallel::faer_par(),
            );
            let u2 = if loo { Some(Mat::from_fn(n, n, |i, j| u[(i, j)] * u[(i, j)])) } else { None };
            factor_seconds += t0.elapsed().as_secs_f64();
            for (gi, &l) in grid.iter().enumerate() {
                let s = shift(l);
                let inv: Vec<f64> = lam.iter().map(|&v| 1.0 / (v + s)).collect();
                if let Some(bad) = lam.iter().position(|&v| v + s <= 0.0) {
                    return Err(ModelsError::Numerical(format!(
                        "K + {s:e} I is not positive definite (eigenvalue {:e})",
                        lam[bad]
                    )));
                }
                let scaled = Mat::from_fn(n, rhs.ncols(), |i, j| utb[(i, j)] * inv[i]);
                let mut x = Mat::<f64>::zeros(n, rhs.ncols());
                matmul(x.as_mut(), Accum::Replace, u, scaled.as_ref(), 1.0, kern_core::parallel::faer_par());
                let d = u2.as_ref().map(|u2| {
                    let mut d = Mat::<f64>::zeros(n, 1);
                    let invm = Mat::from_fn(n, 1, |i, _| inv[i]);
                    matmul(
                        d.as_mut(),
                        Accum::Replace,
                        u2.as_ref(),
                        invm.as_ref(),
                        1.0,
                        kern_core::parallel::faer_par(),
                    );
                    (0..n).map(|i| d[(i, 0)]).collect()
                });
                solved.push((gi, finish(p.bias, x, d)?));
            }
        }
        _ => {
            let t0 = Instant::now();
            let mut plan = CholeskyPlan::new(gram, p.ordering)?;
            factor_seconds += t0.elapsed().as_secs_f64();
            for (gi, &l) in grid.iter().enumerate() {
                let t0 = Instant::now();
                let chol = plan.factor(shift(l))?;
                let d = if loo { Some(inverse_diagonal(&chol)?) } else { None };
                factor_seconds += t0.elapsed().as_secs_f64();
                let s = if p.bias {
                    // Coefficients through kern-sparse's bordered solver; ν = H⁻¹1 for LOO.
                    let nu = if loo { chol.solve(&vec![1.0; n])? } else { Vec::new() };
                    let solver = LsSvmSolver::from_cholesky(chol)?;
                    let mut alpha = Mat::<f64>::zeros(n, r);
                    let mut b = vec![0.0; r];
                    for t in 0..r {
                        let y: Vec<f64> = (0..n).map(|i| p.enc.y[(i, t)]).collect();
                        let sol = solver.solve(&y)?;
                        b[t] = sol.b;
                        for i in 0..n {
                            alpha[(i, t)] = sol.alpha[i];
                        }
                    }
                    let loo_diag = d.map(|d| {
                        let sigma: f64 = nu.iter().sum();
                        d.iter().zip(&nu).map(|(di, v)| di - v * v / sigma).collect()
                    });
                    Solved { alpha, bias: b, loo_diag }
                } else {
                    let mut x = rhs.clone();
                    chol.solve_mat_in_place(x.as_mut())?;
                    Solved { alpha: x, bias: Vec::new(), loo_diag: d }
                };
                solved.push((gi, s));
            }
        }
    }
    Ok((solved, method, factor_seconds))
}

/// Exact leave-one-out residuals `y_i − f⁽⁻ⁱ⁾(x_i)` of output 0 at the single λ of `p.lambda`
/// (`Lambda::Loo(vec![λ])`), for tests and diagnostics.
#[cfg(test)]
pub(crate) fn loo_residuals(p: Problem<'_>) -> Result<Vec<f64>> {
    let Lambda::Loo(grid) = p.lambda else { return Err(ModelsError::Input("needs Lambda::Loo".into())) };
    let path = choose_path(p.kernel, p.x, p.path)?;
    let gram = build_gram(p.kernel, p.x, path)?;
    let (solved, _, _) = solve_grid(&p, gram, &grid[..1], true)?;
    let s = &solved[0].1;
    let d = s.loo_diag.as_ref().expect("LOO diagonal");
    Ok((0..p.x.n()).map(|i| s.alpha[(i, 0)] / d[i]).collect())
}

/// The grid index of the smallest error, ties broken by the smaller mean squared residual, then by the
/// first (the smaller λ of an ascending grid): the selection rule of every λ search (module docs).
pub(crate) fn best_index(errors: &[f64], mses: &[f64]) -> usize {
    let mut best = 0;
    for i in 1..errors.len() {
        let better = errors[i] < errors[best] || (errors[i] == errors[best] && mses[i] < mses[best]);
        if better {
            best = i;
        }
    }
    best
}

/// The grid's indices from best to worst by the rule of [`best_index`] (the best of what is left,
/// each time).
pub(crate) fn loo_order(errors: &[f64], mses: &[f64]) -> Vec<usize> {
    let mut left: Vec<usize> = (0..errors.len()).collect();
    let mut order = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let e: Vec<f64> = left.iter().map(|&i| errors[i]).collect();
        let m: Vec<f64> = left.iter().map(|&i| mses[i]).collect();
        order.push(left.remove(best_index(&e, &m)));
    }
    order
}

/// LOO error rate and mean squared LOO residual per grid value. The LOO prediction of output `t` at
/// point `i` is `y_it − α_it / (A⁻¹)_ii`.
fn score_loo(enc: &Encoded, solved: &[(usize, Solved)]) -> (Vec<f64>, Vec<f64>) {
    let (n, r) = (enc.y.nrows(), enc.y.ncols());
    let mut errors = Vec::with_capacity(solved.len());
    let mut mses = Vec::with_capacity(solved.len());
    for (_, s) in solved {
        let d = s.loo_diag.as_ref().expect("LOO diagonal computed");
        let pred = Mat::from_fn(n, r, |i, t| enc.y[(i, t)] - s.alpha[(i, t)] / d[i]);
        let (e, m) = Tally::of(&enc.task, &enc.truth, enc.y.as_ref(), pred.as_ref()).scores(&enc.task);
        errors.push(e);
        mses.push(m);
    }
    (errors, mses)
}

/// The sums behind a (leave-one-out or validation) score of predictions over some rows: wrong
/// decisions (classification) and squared residuals over every output, and the counts they average
/// over. Tallies of row blocks add up (the landmark leave-one-out sums their parts exactly), so a score
/// can be streamed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Tally {
    /// Rows whose decoded prediction differs from the truth.
    pub wrong: usize,
    /// Σ over rows and outputs of the squared residual.
    pub squares: f64,
    /// Rows.
    pub rows: usize,
    /// Rows × outputs.
    pub entries: usize,
}

impl Tally {
    /// The tally of predictions `f` (rows × outputs) against the encoded targets `y` and the truths
    /// `truth` (labels or values, one per row) of the same rows.
    pub(crate) fn of(task: &Task, truth: &[f64], y: MatRef<'_, f64>, f: MatRef<'_, f64>) -> Tally {
        let (n, r) = (y.nrows(), y.ncols());
        let squares = (0..n)
            .flat_map(|i| (0..r).map(move |t| (i, t)))
            .map(|(i, t)| (y[(i, t)] - f[(i, t)]).powi(2))
            .sum();
        let wrong = if task.is_classification() {
            task.decode(f).iter().zip(truth).filter(|(a, b)| a != b).count()
        } else {
            0
        };
        Tally { wrong, squares, rows: n, entries: n * r }
    }

    /// `(error, mse)`: the error rate for classification (the mean squared residual for values) and
    /// the mean squared residual.
    pub(crate) fn scores(self, task: &Task) -> (f64, f64) {
        let mse = self.squares / self.entries as f64;
        let err = if task.is_classification() { self.wrong as f64 / self.rows as f64 } else { mse };
        (err, mse)
    }
}

/// Validation error rate and mean squared residual per grid value, from one kernel expansion of all
/// the grid's coefficient vectors over the tuning set.
fn score_validation(
    kernel: &KernelSpec,
    x: &Samples,
    path: SolvePath,
    enc: &Encoded,
    solved: &[(usize, Solved)],
    xv: &Samples,
    yv: &Targets,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let ev = Encoded::like(&enc.task, yv)?;
    if ev.y.nrows() != xv.n() {
        return Err(ModelsError::Input(format!(
            "{} validation targets for {} samples",
            ev.y.nrows(),
            xv.n()
        )));
    }
    let (n, r) = (x.n(), enc.y.ncols());
    let g = solved.len();
    let coef = Mat::from_fn(n, g * r, |i, c| solved[c / r].1.alpha[(i, c % r)]);
    let f_all = expand(kernel, x, coef.as_ref(), xv, path)?;
    let m = xv.n();
    let mut errors = Vec::with_capacity(g);
    let mut mses = Vec::with_capacity(g);
    for (gi, (_, s)) in solved.iter().enumerate() {
        let f = Mat::from_fn(m, r, |i, t| f_all[(i, gi * r + t)] + s.bias.get(t).copied().unwrap_or(0.0));
        let (e, mse) = Tally::of(&enc.task, &ev.truth, ev.y.as_ref(), f.as_ref()).scores(&enc.task);
        errors.push(e);
        mses.push(mse);
    }
    Ok((errors, mses))
}

/// A logarithmic grid `10^lo, …, 10^hi` with `steps_per_decade` values per decade.
///
/// ```
/// let g = kern_models::ridge::log10_grid(-1.0, 1.0, 2);
/// assert_eq!(g.len(), 5);
/// assert!((g[2] - 1.0).abs() < 1e-15);
/// ```
pub fn log10_grid(lo: f64, hi: f64, steps_per_decade: usize) -> Vec<f64> {
    let steps = ((hi - lo) * steps_per_decade as f64).round() as usize;
    (0..=steps).map(|i| 10f64.powf(lo + (hi - lo) * i as f64 / steps.max(1) as f64)).collect()
}

#[cfg(test)]
mod tests;
