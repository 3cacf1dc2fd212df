//! Hyperparameters of the SVMs, validated once into checked forms.

use crate::error::{ModelsError, Result};
use kern_core::{KernelSpec, Samples};
use serde::{Deserialize, Serialize};

/// The regularization of a C-SVC or ε-SVR.
///
/// `C` is LIBSVM's box constraint. `Lambda(λ)` is the hinge-loss form of the CS-RBF paper
/// (Zhang, Genton & Liu 2004, eq. 11):
///
/// `min_{b,a} (1/n) Σ_i [1 − y_i f(x_i)]₊ + λ aᵀKa`, `f(x) = b + Σ_i a_i k(x, x_i)`.
///
/// Dividing by `2λ` gives `½ aᵀKa + (1/(2nλ)) Σ_i ξ_i`, the C-SVM primal with
/// **`C = 1/(2nλ)`**, `n` the number of samples of the (binary) problem; the solutions coincide with
/// `a_i = α_i y_i` and the eq. 11 objective equals `2λ` times the C-SVM primal optimum. (The extracted
/// text of eq. 12 bounds the duals by `λ`, which contradicts eq. 11; we take eq. 11 as authoritative.)
/// For one-vs-one multi-class training each pairwise problem uses its own `n`; for ε-SVR the loss is
/// the ε-insensitive one with the same `1/n` average, hence the same mapping.
///
/// ```
/// use kern_models::svm::Regularization;
/// assert_eq!(Regularization::Lambda(0.01).c_for(50), 1.0);   // 1 / (2 · 50 · 0.01)
/// assert_eq!(Regularization::C(3.0).c_for(50), 3.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Regularization {
    /// LIBSVM's `C`.
    C(f64),
    /// The `λ` of eq. 11 of the CS-RBF paper.
    Lambda(f64),
}

impl Regularization {
    /// The box constraint `C` for a problem with `n` samples.
    pub fn c_for(&self, n: usize) -> f64 {
        match *self {
            Regularization::C(c) => c,
            Regularization::Lambda(l) => 1.0 / (2.0 * n as f64 * l),
        }
    }

    /// The box constraint `C` for a problem with `n` samples, refused when it is not finite and > 0
    /// (`λ = 1e-320` gives `C = ∞`, a huge `λ` on many samples `C = 0`).
    ///
    /// ```
    /// use kern_models::svm::Regularization;
    /// assert_eq!(Regularization::Lambda(0.01).checked_c_for(50)?, 1.0);
    /// assert!(Regularization::Lambda(1e-320).checked_c_for(50).is_err());
    /// assert!(Regularization::Lambda(1e308).checked_c_for(1_000_000).is_err());
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    ///
    /// # Errors
    /// [`ModelsError::Param`] naming `C` when the derived value is infinite, NaN or 0.
    pub fn checked_c_for(&self, n: usize) -> Result<f64> {
        let c = self.c_for(n);
        check_box(c, 1.0)?;
        Ok(c)
    }

    fn check(&self) -> Result<()> {
        let (name, v) = match *self {
            Regularization::C(c) => ("c", c),
            Regularization::Lambda(l) => ("lambda", l),
        };
        if !(v.is_finite() && v > 0.0) {
            return Err(ModelsError::Param { name, value: v, reason: "must be finite and > 0" });
        }
        Ok(())
    }
}

/// Checks one box bound `C_i` of the dual (`C` — given, or `1/(2nλ)` — times the class and sample
/// weights): finite, and > 0 unless the sample's `weight` is 0 (a sample weighted out).
pub(crate) fn check_box(c: f64, weight: f64) -> Result<()> {
    if c.is_finite() && (c > 0.0 || (c == 0.0 && weight == 0.0)) {
        return Ok(());
    }
    Err(ModelsError::Param {
        name: "C",
        value: c,
        reason: "the box constraint (C, or 1/(2 n lambda) from lambda, times the class and sample weights) \
                 must be finite and > 0: choose a C or lambda nearer 1, or smaller weights",
    })
}

/// How a C-SVC handles more than two classes.
///
/// ```
/// assert_eq!(kern_models::svm::Multiclass::default(), kern_models::svm::Multiclass::OneVsOne);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Multiclass {
    /// One machine per pair of classes, prediction by voting (LIBSVM's convention).
    #[default]
    OneVsOne,
    /// One machine per class against all others, prediction by the largest decision value.
    OneVsRest,
}

/// Settings of the SMO solver shared by C-SVC and ε-SVR (LIBSVM's defaults).
///
/// ```
/// let s = kern_models::svm::SolverParams::default();
/// assert_eq!((s.tol, s.cache_mb, s.shrinking), (1e-3, 100.0, true));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SolverParams {
    /// Stopping tolerance on the maximal KKT violation (LIBSVM `-e`, default 1e-3).
    pub tol: f64,
    /// Kernel cache budget in megabytes (LIBSVM `-m`, default 100).
    pub cache_mb: f64,
    /// Shrinking heuristic (LIBSVM `-h`, default on). With it, a C-SVC on at least 65,536 samples
    /// with a radial kernel in up to 8 dense dimensions starts from a seed instead of `α = 0`: the
    /// problem on every 8th sample of each class is solved first, and the samples inside its margin
    /// start at their bound. The solution meets the same tolerance on the same dual; only the
    /// iterates differ from LIBSVM's. Turning shrinking off also turns the seed off.
    ///
    /// A compactly supported kernel whose columns hold few neighbours (at most `n/32` on average,
    /// as on large low-dimensional data) is solved without shrinking whatever this says: there an
    /// iteration costs the neighbours of the two variables, not `n`, so shrinking would only add its
    /// bookkeeping (on 1,000,000 points it made training 1.6 times slower).
    pub shrinking: bool,
    /// Iteration cap; `None` is LIBSVM's `max(10⁷, 100·l)`. Reaching it ends training with a warning
    /// and the violation reached (see [`MachineStats`](super::MachineStats)).
    pub max_iter: Option<u64>,
    /// The constants and pins of the plan rules ([`super::plan`]); not saved with a model.
    #[serde(skip)]
    pub tuning: super::plan::Tuning,
}

impl Default for SolverParams {
    fn default() -> Self {
        SolverParams {
            tol: 1e-3,
            cache_mb: 100.0,
            shrinking: true,
            max_iter: None,
            tuning: Default::default(),
        }
    }
}

impl SolverParams {
    pub(crate) fn check(&self) -> Result<()> {
        if !(self.tol.is_finite() && self.tol > 0.0) {
            return Err(ModelsError::Param {
                name: "tol",
                value: self.tol,
                reason: "must be finite and > 0",
            });
        }
        if !(self.cache_mb.is_finite() && self.cache_mb > 0.0) {
            return Err(ModelsError::Param {
                name: "cache_mb",
                value: self.cache_mb,
                reason: "must be finite and > 0",
            });
        }
        if self.max_iter == Some(0) {
            return Err(ModelsError::Param { name: "max_iter", value: 0.0, reason: "must be >= 1" });
        }
        Ok(())
    }

    pub(crate) fn cache_bytes(&self) -> usize {
        (self.cache_mb * 1024.0 * 1024.0) as usize
    }
}

/// The one validation path of every SVM's parameters: the kernel against the training samples, the
/// solver settings, and whichever of `C`/`λ`, `ν` and `ε` the type has.
fn check_params(
    kernel: &KernelSpec,
    x: Option<&Samples>,
    solver: &SolverParams,
    regularization: Option<&Regularization>,
    nu: Option<f64>,
    epsilon: Option<f64>,
) -> Result<()> {
    if let Some(r) = regularization {
        r.check()?;
    }
    solver.check()?;
    if let Some(nu) = nu
        && !(nu.is_finite() && nu > 0.0 && nu <= 1.0)
    {
        return Err(ModelsError::Param { name: "nu", value: nu, reason: "must be in (0, 1]" });
    }
    if let Some(e) = epsilon
        && !(e.is_finite() && e >= 0.0)
    {
        return Err(ModelsError::Param { name: "epsilon", value: e, reason: "must be finite and >= 0" });
    }
    if let Some(x) = x {
        kern_core::Kernel::check_samples(kernel, x)?;
    }
    Ok(())
}

/// The builder methods the SVM parameter types share, written once: `solver` for all, `c`/`lambda`
/// for the types with a regularization, `nu` for the ν types, `probability` for the classifiers.
macro_rules! setters {
    (@one $t:ident solver) => {
        impl $t {
            /// Sets the solver settings.
            pub fn solver(mut self, s: SolverParams) -> Self {
                self.solver = s;
                self
            }
        }
    };
    (@one $t:ident regularization) => {
        impl $t {
            /// Sets `C`.
            pub fn c(mut self, c: f64) -> Self {
                self.regularization = Regularization::C(c);
                self
            }
            /// Sets `λ` of eq. 11 instead of `C` (see [`Regularization`]).
            pub fn lambda(mut self, lambda: f64) -> Self {
                self.regularization = Regularization::Lambda(lambda);
                self
            }
        }
    };
    (@one $t:ident nu) => {
        impl $t {
            /// Sets `ν`.
            pub fn nu(mut self, nu: f64) -> Self {
                self.nu = nu;
                self
            }
        }
    };
    (@one $t:ident probability) => {
        impl $t {
            /// Turns Platt probabilities on, with the seed of the internal folds.
            pub fn probability(mut self, on: bool, seed: u64) -> Self {
                self.probability = on;
                self.seed = seed;
                self
            }
        }
    };
    ($t:ident: $($what:ident),+) => {
        $(setters!(@one $t $what);)+
    };
}

/// `placement`, written once: where a fit of the parameters runs ([`super::plan::placement`]). A
/// classifier trains one machine for two classes (more for more); a regressor one machine of `2n`
/// variables, one-class one of `n`.
macro_rules! placement {
    ($($t:ident: classes),+) => {$(
        impl $t {
            /// Where a fit on `x` with `classes` classes runs ([`super::plan::placement`]).
            pub fn placement(&self, x: &Samples, classes: usize) -> super::plan::Placement {
                let machines = if classes == 2 { 1 } else { classes.max(2) };
                super::plan::placement(&self.kernel, x, machines, x.n(), &self.solver.tuning)
            }
        }
    )+};
    ($($t:ident: $per_sample:literal),+) => {$(
        impl $t {
            /// Where a fit on `x` runs ([`super::plan::placement`]).
            pub fn placement(&self, x: &Samples) -> super::plan::Placement {
                let l = x.n().saturating_mul($per_sample);
                super::plan::placement(&self.kernel, x, 1, l, &self.solver.tuning)
            }
        }
    )+};
}

placement!(SvcParams: classes, NuSvcParams: classes);
placement!(SvrParams: 2, NuSvrParams: 2);
placement!(OneClassParams: 1);

setters!(SvcParams: solver, regularization, probability);
setters!(SvrParams: solver, regularization);
setters!(NuSvcParams: solver, nu, probability);
setters!(NuSvrParams: solver, regularization, nu);
setters!(OneClassParams: solver, nu);

/// Parameters of a C-SVC (binary or multi-class).
///
/// ```
/// use kern_models::svm::{SvcParams, Multiclass};
/// let p = SvcParams::new("gaussian:sigma=0.6".parse()?)
///     .c(2.0)
///     .class_weight("1", 5.0)
///     .multiclass(Multiclass::OneVsRest);
/// assert_eq!(p.class_weights, vec![("1".to_string(), 5.0)]);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SvcParams {
    /// The kernel.
    pub kernel: KernelSpec,
    /// `C` or `λ` (default `C = 1`).
    pub regularization: Regularization,
    /// Per-class weights `(label name, w)`: class `label` gets `C·w` (LIBSVM `-wi`).
    pub class_weights: Vec<(String, f64)>,
    /// Multi-class scheme (ignored for two classes).
    pub multiclass: Multiclass,
    /// Fit Platt sigmoids by internal 5-fold cross-validation (LIBSVM `-b 1`).
    pub probability: bool,
    /// Seed of the internal cross-validation folds of [`SvcParams::probability`].
    pub seed: u64,
    /// Solver settings.
    pub solver: SolverParams,
}

impl SvcParams {
    /// Defaults of LIBSVM: `C = 1`, no weights, one-vs-one, no probabilities.
    pub fn new(kernel: KernelSpec) -> Self {
        SvcParams {
            kernel,
            regularization: Regularization::C(1.0),
            class_weights: Vec::new(),
            multiclass: Multiclass::OneVsOne,
            probability: false,
            seed: 0,
            solver: SolverParams::default(),
        }
    }
    /// Adds a class weight for the label `name`.
    pub fn class_weight(mut self, name: impl Into<String>, w: f64) -> Self {
        self.class_weights.push((name.into(), w));
        self
    }
    /// Sets the multi-class scheme.
    pub fn multiclass(mut self, m: Multiclass) -> Self {
        self.multiclass = m;
        self
    }
    /// Validates against the class names of the training targets; returns the weight of each class.
    pub(crate) fn check(&self, names: &[String], x: &Samples) -> Result<Vec<f64>> {
        check_params(&self.kernel, Some(x), &self.solver, Some(&self.regularization), None, None)?;
        let mut w = vec![1.0; names.len()];
        for (name, v) in &self.class_weights {
            if !(v.is_finite() && *v > 0.0) {
                return Err(ModelsError::Param {
                    name: "class weight",
                    value: *v,
                    reason: "must be finite and > 0",
                });
            }
            match names.iter().position(|n| same_label(n, name)) {
                Some(k) => w[k] = *v,
                None => {
                    return Err(ModelsError::Input(format!(
                        "class weight for unknown label {name:?}; labels are {names:?}"
                    )));
                }
            }
        }
        Ok(w)
    }

    /// These settings with the class weights of the labels `names` alone (the machine of one pair of
    /// classes).
    pub(crate) fn for_labels(&self, names: &[String]) -> SvcParams {
        let mut p = self.clone();
        p.class_weights.retain(|(name, _)| names.iter().any(|n| same_label(n, name)));
        p
    }
}

/// Whether two label names are the same label (numbers compared as numbers: `1` and `1.0`).
fn same_label(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.trim().parse::<f64>().map(kern_core::label_name).unwrap_or_else(|_| s.to_string());
    norm(a) == norm(b)
}

/// Parameters of an ε-SVR.
///
/// ```
/// let p = kern_models::svm::SvrParams::new("gaussian:beta=1".parse()?).c(10.0).epsilon(0.05);
/// assert_eq!(p.epsilon, 0.05);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SvrParams {
    /// The kernel.
    pub kernel: KernelSpec,
    /// `C` or `λ` (default `C = 1`).
    pub regularization: Regularization,
    /// Half-width `ε` of the insensitive tube (LIBSVM `-p`, default 0.1).
    pub epsilon: f64,
    /// Solver settings.
    pub solver: SolverParams,
}

impl SvrParams {
    /// LIBSVM's defaults: `C = 1`, `ε = 0.1`.
    pub fn new(kernel: KernelSpec) -> Self {
        SvrParams {
            kernel,
            regularization: Regularization::C(1.0),
            epsilon: 0.1,
            solver: SolverParams::default(),
        }
    }
    /// Sets the tube half-width `ε`.
    pub fn epsilon(mut self, e: f64) -> Self {
        self.epsilon = e;
        self
    }

    pub(crate) fn check(&self, x: &Samples) -> Result<()> {
        check_params(
            &self.kernel,
            Some(x),
            &self.solver,
            Some(&self.regularization),
            None,
            Some(self.epsilon),
        )
    }
}

/// Parameters of a ν-SVC (Schölkopf, Smola, Williamson & Bartlett 2000), LIBSVM `-s 1`.
///
/// `ν ∈ (0, 1]` replaces `C`: it is an upper bound on the fraction of margin errors and a lower bound
/// on the fraction of support vectors (their Proposition 5, the ν-property). Multi-class is
/// one-vs-one, as in LIBSVM; each pair's `ν` must be feasible, `ν (n₁ + n₂)/2 ≤ min(n₁, n₂)`.
///
/// ```
/// use kern_models::svm::NuSvcParams;
/// use kern_core::{Samples, BinaryTargets, learner::{Fit, Model}};
/// let x = Samples::from_rows(&[[0.0, 0.0], [0.2, 0.1], [2.0, 2.0], [2.1, 1.9]])?;
/// let y = BinaryTargets::from_f64(&[-1.0, -1.0, 1.0, 1.0])?;
/// let m = NuSvcParams::new("gaussian:sigma=1".parse()?).nu(0.5).fit(&x, &y)?;
/// assert_eq!(m.predict(&x)?, vec![-1.0, -1.0, 1.0, 1.0]);
/// assert_eq!(m.nu(), Some(0.5));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NuSvcParams {
    /// The kernel.
    pub kernel: KernelSpec,
    /// `ν` (LIBSVM `-n`, default 0.5).
    pub nu: f64,
    /// Fit Platt sigmoids by internal 5-fold cross-validation (LIBSVM `-b 1`).
    pub probability: bool,
    /// Seed of the internal cross-validation folds of [`NuSvcParams::probability`].
    pub seed: u64,
    /// Solver settings.
    pub solver: SolverParams,
}

impl NuSvcParams {
    /// LIBSVM's defaults: `ν = 0.5`, no probabilities.
    pub fn new(kernel: KernelSpec) -> Self {
        NuSvcParams { kernel, nu: 0.5, probability: false, seed: 0, solver: SolverParams::default() }
    }

    /// The C-SVC parameters whose training machinery (pairs, Platt folds) the ν-SVC shares; `ν` is
    /// passed alongside.
    pub(crate) fn as_svc(&self) -> Result<SvcParams> {
        // The dimension is checked with the data, by the C-SVC path this returns.
        check_params(&self.kernel, None, &self.solver, None, Some(self.nu), None)?;
        Ok(SvcParams::new(self.kernel.clone()).probability(self.probability, self.seed).solver(self.solver))
    }
}

/// Parameters of a ν-SVR (Schölkopf et al. 2000, §3), LIBSVM `-s 4`: `ν ∈ (0, 1]` replaces the tube
/// width `ε`, which the solver finds; `ν` bounds the fraction of errors from above and of support
/// vectors from below.
///
/// ```
/// let p = kern_models::svm::NuSvrParams::new("gaussian:beta=1".parse()?).c(10.0).nu(0.3);
/// assert_eq!((p.nu, p.regularization), (0.3, kern_models::svm::Regularization::C(10.0)));
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NuSvrParams {
    /// The kernel.
    pub kernel: KernelSpec,
    /// `C` or `λ` (default `C = 1`).
    pub regularization: Regularization,
    /// `ν` (LIBSVM `-n`, default 0.5).
    pub nu: f64,
    /// Solver settings.
    pub solver: SolverParams,
}

impl NuSvrParams {
    /// LIBSVM's defaults: `C = 1`, `ν = 0.5`.
    pub fn new(kernel: KernelSpec) -> Self {
        NuSvrParams {
            kernel,
            regularization: Regularization::C(1.0),
            nu: 0.5,
            solver: SolverParams::default(),
        }
    }

    pub(crate) fn check(&self, x: &Samples) -> Result<()> {
        check_params(&self.kernel, Some(x), &self.solver, Some(&self.regularization), Some(self.nu), None)
    }
}

/// Parameters of a one-class SVM (Schölkopf, Platt, Shawe-Taylor, Smola & Williamson 2001), LIBSVM
/// `-s 2`: `ν ∈ (0, 1]` bounds the fraction of training samples outside the estimated support from
/// above and the fraction of support vectors from below.
///
/// ```
/// let p = kern_models::svm::OneClassParams::new("gaussian:sigma=1".parse()?).nu(0.1);
/// assert_eq!(p.nu, 0.1);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OneClassParams {
    /// The kernel.
    pub kernel: KernelSpec,
    /// `ν` (LIBSVM `-n`, default 0.5).
    pub nu: f64,
    /// Solver settings.
    pub solver: SolverParams,
}

impl OneClassParams {
    /// LIBSVM's default `ν = 0.5`.
    pub fn new(kernel: KernelSpec) -> Self {
        OneClassParams { kernel, nu: 0.5, solver: SolverParams::default() }
    }

    pub(crate) fn check(&self, x: &Samples) -> Result<()> {
        check_params(&self.kernel, Some(x), &self.solver, None, Some(self.nu), None)
    }
}
