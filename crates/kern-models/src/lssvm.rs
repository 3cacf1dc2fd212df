//! Least squares SVM (CS-RBF paper §4.2, eqs. 13–14): `f(x) = b + Σ_i a_i k(x, x_i)` from the
//! bordered linear system
//!
//! ```text
//! [ 0   1ᵀ        ] [ b ]   [ 0 ]
//! [ 1   K + λI    ] [ a ] = [ y ]
//! ```
//!
//! where `λ` is the ridge penalty, as in kernel ridge regression ([`crate::krr`], `K + λI`) and
//! scikit-learn's `alpha`: larger λ, more regularization. The paper's eq. 14 (and LS-SVMlab) write the
//! same matrix `K + I/γ` with the error weight `γ = 1/λ`; [`LsSvmParams::gam`] sets λ from γ.
//!
//! The system is solved through kern-sparse (dense Cholesky for globally supported kernels, sparse
//! Cholesky of `K_C` for compactly supported ones, chosen by [`PathChoice`]). Classifier on ±1 labels
//! (prediction `sign f`), regressor on real targets, one-vs-rest for `k > 2` classes (one right-hand
//! side per class against the same factorization). λ is fixed, or chosen over a grid by exact
//! leave-one-out (the default) or on an extra tuning set (Table 3's protocol); see [`crate::ridge`] for
//! the grid reuse and the LOO formula `e_i = α_i / (A⁻¹)_ii`. The coefficients `a_i` (the bubbles of
//! Fig. 7) are [`LsSvm::alpha`].
//!
//! ```
//! use kern_core::{BinaryTargets, Samples};
//! use kern_core::learner::{Fit, Model};
//! use kern_models::lssvm::LsSvmParams;
//! let x = Samples::from_rows(&[[0.0], [0.2], [0.4], [2.0], [2.2], [2.4]])?;
//! let y = BinaryTargets::from_f64(&[-1.0, -1.0, -1.0, 1.0, 1.0, 1.0])?;
//! let model = LsSvmParams::new("gaussian:sigma=1".parse()?).lambda(0.1).fit(&x, &y)?;
//! assert_eq!(model.predict(&Samples::from_rows(&[[0.1], [2.3]])?)?, vec![-1.0, 1.0]);
//! assert!(model.alpha(0).iter().sum::<f64>().abs() < 1e-10);   // first row of eq. 14
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::Result;
use crate::kmat::PathChoice;
use crate::persist::Persist;
use crate::ridge::{Encoded, Fitted, GridMethod, Lambda, Problem, log10_grid};
use kern_core::{KernelSpec, Samples};
use kern_sparse::{Ordering, SolveOptions};
use serde::{Deserialize, Serialize};

/// The default λ grid of LS-SVM: `10^-5, 10^-4.5, …, 10^3` (17 values; γ = 1/λ from `10^5` down to
/// `10^-3`).
///
/// ```
/// let g = kern_models::lssvm::default_lambda_grid();
/// assert_eq!((g.len(), g[0], g[16]), (17, 1e-5, 1e3));
/// ```
pub fn default_lambda_grid() -> Vec<f64> {
    log10_grid(-5.0, 3.0, 2)
}

/// LS-SVM settings. `λ` is the ridge penalty: the system matrix is `K + λI` (larger λ, more
/// regularization), eq. 14's `K + I/γ` with `γ = 1/λ`.
///
/// ```
/// use kern_models::lssvm::LsSvmParams;
/// use kern_models::{BinaryTargets, Fit, Model, Samples};
/// let x = Samples::from_rows(&[[0.0, 0.0], [0.2, 0.1], [3.0, 3.0], [3.1, 2.9]])?;
/// let y = BinaryTargets::from_labels(&["no", "no", "yes", "yes"])?;
/// let m = LsSvmParams::new("gaussian:sigma=1".parse()?).lambda(0.1).fit(&x, &y)?;
/// assert_eq!(m.predict(&x)?, vec![-1.0, -1.0, 1.0, 1.0]);
/// assert_eq!(m.lambda(), 0.1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct LsSvmParams {
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

impl LsSvmParams {
    /// Kernel `kernel`, λ by leave-one-out over the default grid, automatic path.
    pub fn new(kernel: KernelSpec) -> Self {
        LsSvmParams {
            kernel,
            lambda: Lambda::Loo(default_lambda_grid()),
            path: PathChoice::Auto,
            grid_method: GridMethod::Auto,
            ordering: Ordering::Auto,
            solver: SolveOptions::default(),
        }
    }

    /// A fixed λ given as LS-SVMlab's error weight `γ` of eq. 14 (`K + I/γ`): λ = 1/γ (a `γ` that is
    /// not finite and positive gives a λ that training refuses).
    ///
    /// ```
    /// use kern_models::lssvm::LsSvmParams;
    /// let k: kern_core::KernelSpec = "gaussian:sigma=1".parse()?;
    /// assert_eq!(LsSvmParams::new(k.clone()).gam(4.0), LsSvmParams::new(k).lambda(0.25));
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn gam(self, gam: f64) -> Self {
        self.lambda(1.0 / gam)
    }

    fn fit_encoded(&self, x: &Samples, enc: Encoded) -> Result<LsSvm> {
        let p = Problem {
            kernel: &self.kernel,
            x,
            enc,
            bias: true,
            lambda: &self.lambda,
            path: self.path,
            grid_method: self.grid_method,
            ordering: self.ordering,
            solver: self.solver,
            weights: None,
        };
        crate::validate::trained(LsSvm(crate::ridge::fit(p)?))
    }
}

/// A trained LS-SVM model.
///
/// ```
/// use kern_models::lssvm::{LsSvm, LsSvmParams};
/// use kern_models::persist::{from_bytes, to_bytes};
/// use kern_models::{ClassTargets, Fit, Model, Samples};
/// let x = Samples::from_rows(&[[0.0], [0.1], [2.0], [2.1], [4.0], [4.1]])?;
/// let y = ClassTargets::from_labels(&["a", "a", "b", "b", "c", "c"])?;
/// let m = LsSvmParams::new("gaussian:sigma=0.5".parse()?).lambda(0.01).fit(&x, &y)?;
/// assert_eq!(m.predict(&x)?, vec![0.0, 0.0, 1.0, 1.0, 2.0, 2.0]); // class indices
/// let back: LsSvm = from_bytes(&to_bytes(&m)?, "<bytes>")?;
/// assert_eq!(back.predict(&x)?, m.predict(&x)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LsSvm(Fitted);

impl LsSvm {
    /// The LS-SVM model of coefficients solved elsewhere (e.g. by a distributed solver), checked once
    /// as a model file of this kind is checked.
    ///
    /// ```
    /// use kern_core::Samples;
    /// use kern_models::{kmat::SolvePath, lssvm::LsSvm, ridge::{DualParts, Task}, Solver};
    /// let parts = DualParts {
    ///     kernel: "gaussian:sigma=1".parse()?,
    ///     train: Samples::from_rows(&[[0.0], [1.0]])?,
    ///     alpha: vec![0.5, -0.5],
    ///     bias: vec![0.1],
    ///     task: Task::Binary { names: ["a".into(), "b".into()] },
    ///     lambda: 1.0,
    ///     path: SolvePath::Dense,
    ///     solver: Solver::Direct,
    ///     pcg: None,
    /// };
    /// assert_eq!(LsSvm::from_parts(parts.clone())?.alpha(0), &[0.5, -0.5]);
    /// assert!(LsSvm::from_parts(DualParts { alpha: vec![1.0], ..parts }).is_err()); // one coefficient for two samples
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_parts(parts: crate::ridge::DualParts) -> Result<Self> {
        let m = LsSvm(parts.into_fitted());
        m.validate().map_err(|e| crate::ModelsError::Input(format!("invalid LS-SVM model: {e}")))?;
        Ok(m)
    }
}

impl Persist for LsSvm {
    const KIND: &'static str = "lssvm";
    fn validate(&self) -> std::result::Result<(), String> {
        crate::validate::fitted(&self.0)
    }
}

crate::ridge::estimator::ridge_estimator!(LsSvmParams, LsSvm, "lssvm");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kmat::SolvePath;
    use crate::krr::KernelRidgeParams;
    use kern_core::learner::Fit;
    use kern_core::{BinaryTargets, RealTargets};

    /// Points on a scrambled lattice in [0, 3]² (deterministic) with labels from a wavy boundary.
    fn data(n: usize) -> (Samples, Vec<f64>) {
        let x: Vec<f64> = (0..2 * n).map(|v| ((v * 7919 + 13) % 1013) as f64 / 1013.0 * 3.0).collect();
        let y = (0..n)
            .map(|i| if x[2 * i + 1] > 1.5 + 0.5 * (2.0 * x[2 * i]).sin() { 1.0 } else { -1.0 })
            .collect();
        (Samples::from_flat(x, n, 2).unwrap(), y)
    }

    #[test]
    fn the_iterative_solver_predicts_like_the_direct_one() {
        use kern_sparse::{PcgOptions, SolveOptions, Solver};
        let (x, y) = data(400);
        let yb = BinaryTargets::from_f64(&y).unwrap();
        let spec: KernelSpec = "cs-gaussian:sigma=0.8,c=0.5,nu=3".parse().unwrap();
        let probe = data(300).0;
        let it = |solver| SolveOptions {
            solver,
            pcg: PcgOptions { tol: 1e-11, ..PcgOptions::default() },
            factor_budget: 0, // Auto: no factor fits, so Auto goes iterative
        };
        for lambda in [0.5, 20.0] {
            let direct = LsSvmParams::new(spec.clone()).gam(lambda).path(PathChoice::Sparse);
            let d = direct
                .clone()
                .solver(SolveOptions { solver: Solver::Direct, ..it(Solver::Direct) })
                .fit(&x, &yb)
                .unwrap();
            assert_eq!((d.solver(), d.pcg_report()), (Solver::Direct, None));
            for solver in [Solver::Iterative, Solver::Auto] {
                let m = direct.clone().solver(it(solver)).fit(&x, &yb).unwrap();
                assert_eq!(m.solver(), Solver::Iterative);
                let r = m.pcg_report().unwrap();
                assert!(r.converged && r.residual <= 1e-11 && r.iterations > 0, "{r:?}");
                assert!((m.bias(0) - d.bias(0)).abs() < 1e-8 * d.bias(0).abs().max(1.0));
                for (a, b) in m.alpha(0).iter().zip(d.alpha(0)) {
                    assert!((a - b).abs() < 1e-8 * b.abs().max(1.0), "{lambda} {solver:?}: {a} vs {b}");
                }
                assert_eq!(m.predict(&probe).unwrap(), d.predict(&probe).unwrap());
            }
            // Auto with room for the factor stays direct.
            let a = direct.clone().solver(SolveOptions { factor_budget: u64::MAX, ..it(Solver::Auto) });
            assert_eq!(a.fit(&x, &yb).unwrap().solver(), Solver::Direct);
        }
        // Kernel ridge: iterative = direct; the iterative solver refuses a λ grid and the dense path.
        let yr = RealTargets::new(y).unwrap();
        let krr = KernelRidgeParams::new(spec.clone()).path(PathChoice::Sparse).lambda(0.3);
        let d = krr.clone().fit(&x, &yr).unwrap();
        let m = krr.clone().solver(it(Solver::Iterative)).fit(&x, &yr).unwrap();
        assert_eq!(m.solver(), Solver::Iterative);
        for (u, v) in m.predict(&probe).unwrap().iter().zip(&d.predict(&probe).unwrap()) {
            assert!((u - v).abs() < 1e-8 * v.abs().max(1.0), "{u} vs {v}");
        }
        let grid = LsSvmParams::new(spec.clone()).path(PathChoice::Sparse).solver(it(Solver::Iterative));
        assert!(grid.fit(&x, &yb).is_err());
        let dense = LsSvmParams::new(spec).gam(1.0).path(PathChoice::Dense).solver(it(Solver::Iterative));
        assert!(dense.fit(&x, &yb).is_err());
    }

    #[test]
    fn the_sparse_ordering_changes_nothing_but_speed() {
        let (x, y) = data(160);
        let yb = BinaryTargets::from_f64(&y).unwrap();
        for (c, lambda) in [(0.4, 0.5), (0.9, 10.0), (1.6, 100.0)] {
            let spec: KernelSpec = format!("cs-gaussian:sigma=0.8,c={c},nu=3").parse().unwrap();
            let dense =
                LsSvmParams::new(spec.clone()).gam(lambda).path(PathChoice::Dense).fit(&x, &yb).unwrap();
            for o in [Ordering::Amd, Ordering::Rcm, Ordering::Identity, Ordering::Auto] {
                let p = LsSvmParams::new(spec.clone()).path(PathChoice::Sparse).ordering(o);
                let m = p.clone().gam(lambda).fit(&x, &yb).unwrap();
                assert_eq!(m.path(), SolvePath::Sparse);
                assert!((m.bias(0) - dense.bias(0)).abs() < 1e-9, "{c} {o:?} bias");
                for (a, b) in m.alpha(0).iter().zip(dense.alpha(0)) {
                    assert!((a - b).abs() < 1e-9 * b.abs().max(1.0), "{c} {lambda} {o:?}: {a} vs {b}");
                }
                // LOO over a grid (selected inverse of the reordered factor) agrees with the dense path.
                let grid = vec![0.1, 1.0, 10.0];
                let sel = p.loo(grid.clone()).fit(&x, &yb).unwrap();
                let dsel =
                    LsSvmParams::new(spec.clone()).path(PathChoice::Dense).loo(grid).fit(&x, &yb).unwrap();
                let (s, d) = (sel.selection().unwrap(), dsel.selection().unwrap());
                assert_eq!(s.error, d.error, "{c} {o:?}");
                for (a, b) in s.mse.iter().zip(&d.mse) {
                    assert!((a - b).abs() < 1e-9 * b.max(1.0), "{c} {o:?} LOO mse {a} vs {b}");
                }
            }
        }
        // Kernel ridge regression shares the engine.
        let yr = RealTargets::new(y).unwrap();
        let spec: KernelSpec = "cs-gaussian:sigma=0.8,c=0.9,nu=3".parse().unwrap();
        let amd =
            KernelRidgeParams::new(spec.clone()).path(PathChoice::Sparse).lambda(0.3).fit(&x, &yr).unwrap();
        let rcm = KernelRidgeParams::new(spec)
            .path(PathChoice::Sparse)
            .ordering(Ordering::Rcm)
            .lambda(0.3)
            .fit(&x, &yr)
            .unwrap();
        let probe = Samples::from_rows(&[[0.5, 0.5], [2.0, 1.0]]).unwrap();
        let (a, b) = (amd.predict(&probe).unwrap(), rcm.predict(&probe).unwrap());
        for (u, v) in a.iter().zip(&b) {
            assert!((u - v).abs() < 1e-9, "{u} vs {v}");
        }
    }
}
