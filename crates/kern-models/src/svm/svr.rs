//! ε-SVR: `min ½‖w‖² + C Σ (ξ_i + ξ_i*)` with the ε-insensitive tube, solved as LIBSVM does with `2n`
//! dual variables `(α, α*)`: signs `+1` then `−1`, linear term `ε − z_i` then `ε + z_i`, and
//! `Q = [K −K; −K K]`. The regression function is `f(x) = Σ_i (α_i − α_i*) k(x_i, x) − ρ`.

use super::params::SvrParams;
use super::train::{self, Dual, MachineStats};
use crate::error::{ModelsError, Result};
use crate::persist::Persist;
use kern_core::learner::{Fit, Model};
use kern_core::{KernelSpec, RealTargets, Samples, Targets};
use serde::{Deserialize, Serialize};

/// A trained ε-SVR.
///
/// ```
/// use kern_models::svm::SvrParams;
/// use kern_core::{Samples, RealTargets, learner::{Fit, Model}};
/// let xs: Vec<[f64; 1]> = (0..30).map(|i| [i as f64 / 10.0]).collect();
/// let x = Samples::from_rows(&xs)?;
/// let y = RealTargets::new(xs.iter().map(|v| 2.0 * v[0] + 1.0).collect())?;
/// let m = SvrParams::new("linear".parse()?).c(100.0).epsilon(0.01).fit(&x, &y)?;
/// let p = m.predict(&Samples::from_rows(&[[1.5]])?)?;
/// assert!((p[0] - 4.0).abs() < 0.05);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Svr {
    kernel: KernelSpec,
    sv: Samples,
    coef: Vec<f64>,
    rho: f64,
    epsilon: f64,
    stats: MachineStats,
}

impl Persist for Svr {
    const KIND: &'static str = "svr";
    fn validate(&self) -> std::result::Result<(), String> {
        use crate::validate as v;
        v::kernel(&self.kernel, self.sv.d())?;
        v::len("coef", self.coef.len(), self.sv.n())?;
        v::finite("coef", &self.coef)?;
        v::finite("rho, epsilon, objective", &[self.rho, self.epsilon, self.stats.objective])
    }
}

impl Fit<RealTargets> for SvrParams {
    type Model = Svr;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &RealTargets) -> Result<Svr> {
        super::svc::check_len(x, y.len())?;
        self.check(x.d())?;
        let n = x.n();
        let z = y.values();
        let c = self.regularization.c_for(n);
        let mut budget = self.solver.cache_bytes();
        let pre = train::precompute(&self.kernel, x, budget)?;
        if let Some(g) = &pre {
            budget = budget.saturating_sub(g.bytes());
        }
        let dense_used = matches!(pre, Some(kern_sparse::kmatrix::Precomputed::Dense(_)));
        let sample: Vec<usize> = (0..n).chain(0..n).collect();
        let sign: Vec<f64> = (0..2 * n).map(|i| if i < n { 1.0 } else { -1.0 }).collect();
        let p: Vec<f64> =
            (0..2 * n).map(|i| if i < n { self.epsilon - z[i] } else { self.epsilon + z[i - n] }).collect();
        let sol = train::solve(
            &self.kernel,
            Dual { x, sample, sign, p, c: vec![c; 2 * n], pre },
            &self.solver,
            budget,
        );
        let mut stats = train::stats_of(&sol, &vec![c; 2 * n], n, dense_used);
        let beta: Vec<f64> = (0..n).map(|i| sol.alpha[i] - sol.alpha[i + n]).collect();
        let idx: Vec<usize> = (0..n).filter(|&i| beta[i] != 0.0).collect();
        stats.n_sv = idx.len();
        stats.n_bounded = idx.iter().filter(|&&i| beta[i].abs() >= c).count();
        let (sv, coef) = if idx.is_empty() {
            (x.select(&[0])?, vec![0.0])
        } else {
            (x.select(&idx)?, idx.iter().map(|&i| beta[i]).collect())
        };
        crate::validate::trained(Svr {
            kernel: self.kernel.clone(),
            sv,
            coef,
            rho: sol.rho,
            epsilon: self.epsilon,
            stats,
        })
    }
}

impl Fit<Targets> for SvrParams {
    type Model = Svr;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &Targets) -> Result<Svr> {
        match y {
            Targets::Real(r) => self.fit(x, r),
            _ => Err(ModelsError::Input("epsilon-SVR needs real targets".into())),
        }
    }
}

impl Svr {
    /// The kernel.
    pub fn kernel(&self) -> &KernelSpec {
        &self.kernel
    }
    /// Support vectors (`α_i ≠ α_i*`).
    pub fn support_vectors(&self) -> &Samples {
        &self.sv
    }
    /// Coefficients `α_i − α_i*` of the support vectors.
    pub fn coefficients(&self) -> &[f64] {
        &self.coef
    }
    /// The bias `b = −ρ`.
    pub fn bias(&self) -> f64 {
        -self.rho
    }
    /// The tube half-width used in training.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }
    /// Training figures (`n_sv` counts samples with `α ≠ α*`).
    pub fn stats(&self) -> &MachineStats {
        &self.stats
    }
}

impl Model for Svr {
    type Error = ModelsError;
    fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        let d = super::predict::decision_values(
            &self.kernel,
            &self.sv,
            std::slice::from_ref(&self.coef),
            &[self.rho],
            x,
        )?;
        Ok(d.into_iter().map(|r| r[0]).collect())
    }
}
