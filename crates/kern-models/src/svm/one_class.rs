//! One-class SVM (Schölkopf, Platt, Shawe-Taylor, Smola & Williamson 2001, "Estimating the support of
//! a high-dimensional distribution", Neural Computation 13(7)), as LIBSVM's `solve_one_class`: the
//! dual of their eq. (3)–(5) scaled by `νl` (LIBSVM paper, Chang & Lin 2011, §2.3),
//!
//! `min ½ αᵀKα` s.t. `eᵀα = νl`, `0 ≤ α_i ≤ 1`,
//!
//! solved by the standard SMO solver (all `y_i = +1`, `p = 0`) from LIBSVM's feasible start:
//! `α_i = 1` for the first `⌊νl⌋` samples, `νl − ⌊νl⌋` for the next. The decision function is
//! `f(x) = Σ α_i k(x_i, x) − ρ`; `f(x) > 0` marks `x` inside the estimated support (+1), else −1.

use super::params::OneClassParams;
use super::train::{self, MachineStats};
use crate::error::{ModelsError, Result};
use crate::persist::Persist;
use kern_core::learner::Model;
use kern_core::{KernelSpec, Samples};
use serde::{Deserialize, Serialize};

/// A trained one-class SVM.
///
/// ```
/// use kern_models::svm::OneClassParams;
/// use kern_core::{Samples, learner::Model};
/// // A 6 × 6 grid over [−1, 1]²: with a width of the grid's size its centre is inside, (9, 9) far outside.
/// let rows: Vec<[f64; 2]> = (0..36).map(|i| [(i % 6) as f64 * 0.4 - 1.0, (i / 6) as f64 * 0.4 - 1.0]).collect();
/// let x = Samples::from_rows(&rows)?;
/// let m = OneClassParams::new("gaussian:sigma=2".parse()?).nu(0.2).fit(&x)?;
/// let p = m.predict(&Samples::from_rows(&[[0.0, 0.0], [9.0, 9.0]])?)?;
/// assert_eq!(p, vec![1.0, -1.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OneClass {
    kernel: super::ModelKernel,
    sv: Samples,
    coef: Vec<f64>,
    rho: f64,
    nu: f64,
    stats: MachineStats,
}

impl Persist for OneClass {
    const KIND: &'static str = "one-class";
    fn validate(&self) -> std::result::Result<(), String> {
        use crate::validate as v;
        self.kernel.validate(&self.sv)?;
        v::len("coef", self.coef.len(), self.sv.n())?;
        v::finite("coef", &self.coef)?;
        v::finite("rho, nu, objective", &[self.rho, self.nu, self.stats.objective])?;
        if !(self.nu > 0.0 && self.nu <= 1.0) {
            return Err(format!("nu = {} is outside (0, 1]", self.nu));
        }
        Ok(())
    }
}

/// LIBSVM's feasible start of the one-class dual with bounds `c` (1, or the sample weights): the budget
/// `ν Σc` filled in sample order up to each bound — `⌊νl⌋` ones, then the remainder, when unweighted.
pub(crate) fn one_class_start(c: &[f64], nu: f64) -> Vec<f64> {
    let mut left = nu * c.iter().sum::<f64>();
    c.iter()
        .map(|&ci| {
            let a = left.min(ci);
            left -= a;
            a
        })
        .collect()
}

impl OneClassParams {
    /// Trains on the samples `x` (one-class training uses no targets).
    pub fn fit(&self, x: &Samples) -> Result<OneClass> {
        self.fit_user(x, None, None)
    }

    /// Trains with one weight per sample: `w_i` bounds `α_i` and `Σw` replaces `l` in `eᵀα = νl`
    /// (see [`crate::weights`]); samples of weight 0 are left out.
    ///
    /// ```
    /// use kern_models::svm::OneClassParams;
    /// use kern_models::weights::SampleWeights;
    /// use kern_core::Samples;
    /// let x = Samples::from_rows(&[[0.0], [0.1], [0.2], [5.0]])?;
    /// let p = OneClassParams::new("gaussian:sigma=1".parse()?).nu(0.5);
    /// let m = p.fit_weighted(&x, &SampleWeights::new(vec![1.0, 1.0, 1.0, 0.0])?)?;
    /// assert!(m.decision_function(&Samples::from_rows(&[[5.0]])?)?[(0, 0)] < 0.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_weighted(&self, x: &Samples, w: &crate::weights::SampleWeights) -> Result<OneClass> {
        self.fit_user(x, Some(w), None)
    }

    /// Trains on `x`, or on the serial numbers of a precomputed kernel matrix (`user`), with sample
    /// weights `w` (`None`: 1) as the bounds. Every one-class fit goes through here.
    pub(crate) fn fit_user(
        &self,
        x: &Samples,
        w: Option<&crate::weights::SampleWeights>,
        user: Option<&super::KernelMatrix>,
    ) -> Result<OneClass> {
        let (x, c) = match w {
            Some(w) => {
                let (x, _, w) = crate::weights::positive(x, None, w)?;
                (x, w.into_owned())
            }
            None => (std::borrow::Cow::Borrowed(x), vec![1.0; x.n()]),
        };
        let x = x.as_ref();
        self.check(x)?;
        let n = x.n();
        if n == 0 {
            return Err(ModelsError::Input("one-class SVM needs at least one training sample".into()));
        }
        let alpha0 = one_class_start(&c, self.nu);
        let dual = train::SampleDual {
            sign: vec![1.0; n],
            p: vec![0.0; n],
            c: c.clone(),
            alpha: Some(alpha0),
            nu: false,
        };
        let sol = train::solve_samples(&self.kernel, x, dual, &self.solver, user)?;
        let stats = train::stats_of(&sol, &c, n);
        let idx: Vec<usize> = (0..n).filter(|&i| sol.alpha[i] > 0.0).collect();
        crate::validate::trained(OneClass {
            kernel: super::ModelKernel::of(&self.kernel, user),
            sv: x.select(&idx)?,
            coef: idx.iter().map(|&i| sol.alpha[i]).collect(),
            rho: sol.rho,
            nu: self.nu,
            stats,
        })
    }
}

impl OneClass {
    /// The kernel (for a precomputed-kernel model, see [`OneClass::is_precomputed`], a placeholder
    /// that is never evaluated).
    pub fn kernel(&self) -> &KernelSpec {
        &self.kernel.spec
    }
    /// Whether the model was trained on a precomputed kernel matrix (support vectors are serial
    /// numbers; prediction takes kernel rows, see [`super::KernelMatrix`]).
    pub fn is_precomputed(&self) -> bool {
        self.kernel.precomputed
    }
    /// Support vectors (`α > 0`).
    pub fn support_vectors(&self) -> &Samples {
        &self.sv
    }
    /// Coefficients `α_i` of the support vectors (in `(0, 1]`, summing to `νl`).
    pub fn coefficients(&self) -> &[f64] {
        &self.coef
    }
    /// `ρ`: the decision value is `Σ α_i k(x_i, x) − ρ`.
    pub fn rho(&self) -> f64 {
        self.rho
    }
    /// The `ν` trained with.
    pub fn nu(&self) -> f64 {
        self.nu
    }
    /// Training figures.
    pub fn stats(&self) -> &MachineStats {
        &self.stats
    }
    /// How a prediction on `x` expands the kernel against the support vectors (small products on the
    /// calling thread, larger ones in parallel blocks, compact kernels through a neighbour index);
    /// `None` for a precomputed kernel.
    pub fn expansion_plan(&self, x: &Samples) -> Option<kern_sparse::kmatrix::ExpandPlan> {
        self.kernel.expansion_plan(&self.sv, x)
    }

    /// Decision values `f(x) = Σ α_i k(x_i, x) − ρ`: one row per sample, one column.
    pub fn decision_function(&self, x: &Samples) -> Result<faer::Mat<f64>> {
        self.kernel.decision_values(&self.sv, super::predict::column(&self.coef), &[self.rho], x)
    }
}

impl Model for OneClass {
    type Error = ModelsError;
    /// `+1` inside the estimated support (`f(x) > 0`), `−1` outside (LIBSVM's labels).
    fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        Ok(self.decision_function(x)?.col(0).iter().map(|&v| if v > 0.0 { 1.0 } else { -1.0 }).collect())
    }
}

impl crate::widen::WidenFeatures for OneClass {
    fn n_features(&self) -> usize {
        self.sv.d()
    }
    fn widen_features(&mut self, d: usize) -> Result<()> {
        crate::widen::widen_store(&mut self.sv, d)
    }
}

#[cfg(test)]
impl OneClass {
    /// The training figures, mutable (tests compare models without their plans).
    pub(crate) fn stats_mut(&mut self) -> &mut MachineStats {
        &mut self.stats
    }
}
