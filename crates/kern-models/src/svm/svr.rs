//! ε-SVR: `min ½‖w‖² + C Σ (ξ_i + ξ_i*)` with the ε-insensitive tube, solved as LIBSVM does with `2n`
//! dual variables `(α, α*)`: signs `+1` then `−1`, linear term `ε − z_i` then `ε + z_i`, and
//! `Q = [K −K; −K K]`. The regression function is `f(x) = Σ_i (α_i − α_i*) k(x_i, x) − ρ`.

use super::params::{NuSvrParams, SvrParams};
use super::train::{self, MachineStats};
use crate::error::{ModelsError, Result};
use crate::persist::Persist;
use crate::weights::SampleWeights;
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
    kernel: super::ModelKernel,
    sv: Samples,
    coef: Vec<f64>,
    rho: f64,
    epsilon: f64,
    stats: MachineStats,
    /// `Some(ν)` for a ν-SVR (then `epsilon` is the tube half-width the solver found).
    nu: Option<f64>,
}

impl Persist for Svr {
    const KIND: &'static str = "svr";
    fn validate(&self) -> std::result::Result<(), String> {
        use crate::validate as v;
        self.kernel.validate(&self.sv)?;
        v::len("coef", self.coef.len(), self.sv.n())?;
        v::finite("coef", &self.coef)?;
        v::finite("rho, epsilon, objective", &[self.rho, self.epsilon, self.stats.objective])
    }
}

impl Fit<RealTargets> for SvrParams {
    type Model = Svr;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &RealTargets) -> Result<Svr> {
        self.fit_user(x, y, None, None)
    }
}

impl Fit<RealTargets> for NuSvrParams {
    type Model = Svr;
    type Error = ModelsError;
    /// ν-SVR as LIBSVM's `solve_nu_svr`: the dual of Schölkopf et al. (2000, §3) on `(α, α*)` with
    /// `yᵀα = 0` and `eᵀ(α + α*) = Cνl`, from the feasible start that gives `α_i = α_i*` the budget
    /// `Cνl/2` in sample order (each at most `C`); linear term `−z` then `+z`. The ν variant of the
    /// solver returns `ρ` and `r`; the tube half-width found is `ε = −r`.
    fn fit(&self, x: &Samples, y: &RealTargets) -> Result<Svr> {
        self.fit_user(x, y, None, None)
    }
}

impl crate::weights::FitWeighted for SvrParams {
    fn fit_weighted(&self, x: &Samples, y: &Targets, w: &SampleWeights) -> Result<Svr> {
        self.fit_user(x, real(y, "epsilon-SVR")?, Some(w), None)
    }
}

impl crate::weights::FitWeighted for NuSvrParams {
    fn fit_weighted(&self, x: &Samples, y: &Targets, w: &SampleWeights) -> Result<Svr> {
        self.fit_user(x, real(y, "nu-SVR")?, Some(w), None)
    }
}

fn real<'a>(y: &'a Targets, what: &str) -> Result<&'a RealTargets> {
    match y {
        Targets::Real(r) => Ok(r),
        _ => Err(ModelsError::Input(format!("{what} needs real targets"))),
    }
}

/// Checks the sizes, drops the samples of weight 0 (when weighted) and calls `fit` with the samples,
/// targets and positive weights left (`None`: unweighted).
fn weighted_regression(
    x: &Samples,
    y: &RealTargets,
    w: Option<&SampleWeights>,
    fit: impl FnOnce(&Samples, &RealTargets, Option<&[f64]>) -> Result<Svr>,
) -> Result<Svr> {
    super::svc::check_len(x, y.len())?;
    let Some(w) = w else { return fit(x, y, None) };
    let t = Targets::Real(y.clone());
    let (x, t, w) = crate::weights::positive(x, Some(&t), w)?;
    let t = t.expect("targets were given");
    fit(&x, real(&t, "SVR")?, Some(&w))
}

/// Per-sample bounds `C·w_i` (`C` unweighted).
fn bounds(c: f64, sw: Option<&[f64]>, n: usize) -> Result<Vec<f64>> {
    let b: Vec<f64> = sw.map_or_else(|| vec![c; n], |w| w.iter().map(|&wi| c * wi).collect());
    for (i, &bi) in b.iter().enumerate() {
        super::params::check_box(bi, sw.map_or(1.0, |w| w[i]))?;
    }
    Ok(b)
}

impl SvrParams {
    /// ε-SVR on `x`, or on the serial numbers of a precomputed kernel matrix (`user`), with bounds
    /// `C·w_i` (`w`: sample weights, `None`: 1; see [`crate::weights`]). Every ε-SVR fit goes
    /// through here.
    pub(crate) fn fit_user(
        &self,
        x: &Samples,
        y: &RealTargets,
        w: Option<&SampleWeights>,
        user: Option<&super::KernelMatrix>,
    ) -> Result<Svr> {
        weighted_regression(x, y, w, |x, y, sw| {
            self.check(x)?;
            let (n, z, eps) = (x.n(), y.values(), self.epsilon);
            let c = self.regularization.checked_c_for(n)?;
            let p = (0..2 * n).map(|i| if i < n { eps - z[i] } else { eps + z[i - n] }).collect();
            fit_regression(&self.kernel, x, bounds(c, sw, n)?, p, None, &self.solver, user, |_| (eps, None))
        })
    }
}

impl NuSvrParams {
    /// ν-SVR on `x`, or on the serial numbers of a precomputed kernel matrix (`user`), with bounds
    /// `C·w_i` and the budget `Cν Σw/2` of scikit-learn's LIBSVM fork (`Σw = l` unweighted; `w`:
    /// sample weights, `None`: 1). Every ν-SVR fit goes through here.
    pub(crate) fn fit_user(
        &self,
        x: &Samples,
        y: &RealTargets,
        w: Option<&SampleWeights>,
        user: Option<&super::KernelMatrix>,
    ) -> Result<Svr> {
        weighted_regression(x, y, w, |x, y, sw| {
            self.check(x)?;
            let (n, z) = (x.n(), y.values());
            let c = self.regularization.checked_c_for(n)?;
            let l = sw.map_or(n as f64, |w| w.iter().sum());
            let cs = bounds(c, sw, n)?;
            let mut left = c * self.nu * l / 2.0;
            let mut alpha = vec![0.0; 2 * n];
            for i in 0..n {
                let a = left.min(cs[i]);
                alpha[i] = a;
                alpha[i + n] = a;
                left -= a;
            }
            let p = (0..2 * n).map(|i| if i < n { -z[i] } else { z[i - n] }).collect();
            let nu = self.nu;
            fit_regression(&self.kernel, x, cs, p, Some(alpha), &self.solver, user, |r| (-r, Some(nu)))
        })
    }
}

/// Solves the `2n`-variable regression dual (signs `+1` then `−1`, bounds `c_i` on both `α_i` and
/// `α_i*`, linear term `p`) from `alpha` (`Some`: the ν variant) and builds the model; `tube(r)` gives
/// `(ε, ν)` to store. A compact kernel's large problem is solved in the cells' order
/// ([`train::solve_samples`]).
#[allow(clippy::too_many_arguments)] // the dual's data, start, solver settings and the kernel source
fn fit_regression(
    kernel: &KernelSpec,
    x: &Samples,
    c: Vec<f64>,
    p: Vec<f64>,
    alpha: Option<Vec<f64>>,
    solver: &super::params::SolverParams,
    user: Option<&super::KernelMatrix>,
    tube: impl Fn(f64) -> (f64, Option<f64>),
) -> Result<Svr> {
    let n = x.n();
    let sign: Vec<f64> = (0..2 * n).map(|i| if i < n { 1.0 } else { -1.0 }).collect();
    let nu = alpha.is_some();
    let c2: Vec<f64> = c.iter().chain(&c).copied().collect();
    let dual = train::SampleDual { sign, p, c: c2.clone(), alpha, nu };
    let sol = train::solve_samples(kernel, x, dual, solver, user)?;
    let mut stats = train::stats_of(&sol, &c2, n);
    let beta: Vec<f64> = (0..n).map(|i| sol.alpha[i] - sol.alpha[i + n]).collect();
    let idx: Vec<usize> = (0..n).filter(|&i| beta[i] != 0.0).collect();
    stats.n_sv = idx.len();
    stats.n_bounded = idx.iter().filter(|&&i| beta[i].abs() >= c[i]).count();
    let (sv, coef) = if idx.is_empty() {
        (x.select(&[0])?, vec![0.0])
    } else {
        (x.select(&idx)?, idx.iter().map(|&i| beta[i]).collect())
    };
    let (epsilon, nu) = tube(sol.r);
    crate::validate::trained(Svr {
        kernel: super::ModelKernel::of(kernel, user),
        sv,
        coef,
        rho: sol.rho,
        epsilon,
        stats,
        nu,
    })
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

impl Fit<Targets> for NuSvrParams {
    type Model = Svr;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &Targets) -> Result<Svr> {
        match y {
            Targets::Real(r) => self.fit(x, r),
            _ => Err(ModelsError::Input("nu-SVR needs real targets".into())),
        }
    }
}

impl Svr {
    /// The kernel (for a precomputed-kernel model, see [`Svr::is_precomputed`], a placeholder that is
    /// never evaluated).
    pub fn kernel(&self) -> &KernelSpec {
        &self.kernel.spec
    }
    /// Whether the model was trained on a precomputed kernel matrix (support vectors are serial
    /// numbers; prediction takes kernel rows, see [`super::KernelMatrix`]).
    pub fn is_precomputed(&self) -> bool {
        self.kernel.precomputed
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
    /// `Some(ν)` for a ν-SVR ([`super::NuSvrParams`]), `None` for an ε-SVR.
    pub fn nu(&self) -> Option<f64> {
        self.nu
    }
    /// The tube half-width: the one given (ε-SVR) or the one found, `−r` (ν-SVR).
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }
    /// How a prediction on `x` expands the kernel against the support vectors (small products on the
    /// calling thread, larger ones in parallel blocks, compact kernels through a neighbour index);
    /// `None` for a precomputed kernel.
    pub fn expansion_plan(&self, x: &Samples) -> Option<kern_sparse::kmatrix::ExpandPlan> {
        self.kernel.expansion_plan(&self.sv, x)
    }

    /// Training figures (`n_sv` counts samples with `α ≠ α*`).
    pub fn stats(&self) -> &MachineStats {
        &self.stats
    }
}

impl Model for Svr {
    type Error = ModelsError;
    fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        let d = self.kernel.decision_values(&self.sv, super::predict::column(&self.coef), &[self.rho], x)?;
        Ok(d.col(0).iter().copied().collect())
    }
}

impl crate::widen::WidenFeatures for Svr {
    fn n_features(&self) -> usize {
        self.sv.d()
    }
    fn widen_features(&mut self, d: usize) -> Result<()> {
        crate::widen::widen_store(&mut self.sv, d)
    }
}

#[cfg(test)]
impl Svr {
    /// The training figures, mutable (tests compare models without their plans).
    pub(crate) fn stats_mut(&mut self) -> &mut MachineStats {
        &mut self.stats
    }
}
