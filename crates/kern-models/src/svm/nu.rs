//! ν-SVC training (Schölkopf, Smola, Williamson & Bartlett 2000; Chang & Lin 2001), as LIBSVM's
//! `solve_nu_svc`: the scaled dual
//!
//! `min ½ αᵀQα` s.t. `yᵀα = 0`, `eᵀα = νl`, `0 ≤ α_i ≤ 1`, `Q_ij = y_i y_j k(x_i, x_j)`
//!
//! (LIBSVM paper, Chang & Lin 2011, §2.2, the ν-SVC dual multiplied by `l`), solved by the ν variant of
//! the SMO solver from the feasible start that puts `νl/2` on each class, filling the samples of a class
//! in order up to 1. With the solver's multipliers `ρ` and `r` the decision function is
//! `Σ (α_i/r) y_i k(x_i, x) − ρ/r`: Chang & Lin 2001 (Theorem 2 / §4) show that `α/r` solves the
//! C-SVC dual with `C = 1/r`, so the model is stored as a C-SVC with those coefficients.

use super::params::{NuSvcParams, SolverParams};
use super::train::{self, BinaryFit, Dual, Rows};
use crate::error::{ModelsError, Result};
use kern_core::learner::Fit;
use kern_core::{BinaryTargets, ClassTargets, KernelSpec, Samples, Targets};
use kern_sparse::kmatrix::Precomputed;

/// The feasible start of the scaled ν-SVC dual with bounds `c` (1, or the sample weights): `ν Σc/2` on
/// each class, filled in sample order up to each bound (scikit-learn's LIBSVM fork; `Σc = l` unweighted).
pub(crate) fn nu_svc_start(y: &[f64], c: &[f64], nu: f64) -> Vec<f64> {
    let l: f64 = c.iter().sum();
    let (mut pos, mut neg) = (nu * l / 2.0, nu * l / 2.0);
    y.iter()
        .zip(c)
        .map(|(&yi, &ci)| {
            let left = if yi > 0.0 { &mut pos } else { &mut neg };
            let a = left.min(ci);
            *left -= a;
            a
        })
        .collect()
}

/// Solves one binary ν-SVC problem with bounds `c` (1, or the sample weights); the returned `α` are
/// `α/r ≥ 0` (coefficients `α_i y_i / r`), the stats report `ρ/r`, the objective over `r²` and bounds
/// `c/r` (LIBSVM's reporting).
#[allow(clippy::too_many_arguments)] // the problem's parts, ν and its source
pub(crate) fn solve_nu_svc(
    kernel: &KernelSpec,
    rows: Rows<'_>,
    y: &[f64],
    c: Vec<f64>,
    nu: f64,
    solver: &SolverParams,
    pre: Option<Precomputed>,
    source: super::plan::Plan,
) -> Result<BinaryFit> {
    let n = y.len();
    let mut cache = solver.cache_bytes();
    if let Some(g) = &pre {
        cache = cache.saturating_sub(g.bytes());
    }
    let alpha0 = nu_svc_start(y, &c, nu);
    let dual = Dual {
        x: rows.x,
        sample: rows.sample,
        sign: y.to_vec(),
        p: vec![0.0; n],
        c: c.clone(),
        pre,
        plan: source,
    };
    let mut sol = train::solve_from(kernel, dual, Some(alpha0), true, solver, cache);
    let r = sol.r;
    if !(r.is_finite() && r > 0.0) {
        return Err(ModelsError::Numerical(format!(
            "nu-SVC: the margin multiplier r = {r} is not positive (nu = {nu} may be too small for these \
             data; try a larger nu)"
        )));
    }
    sol.alpha.iter_mut().for_each(|a| *a /= r);
    sol.rho /= r;
    sol.objective /= r * r;
    let bounds: Vec<f64> = c.iter().map(|&ci| ci / r).collect();
    let stats = train::stats_of(&sol, &bounds, n);
    Ok(BinaryFit { alpha: sol.alpha, stats })
}

/// One binary machine of a C-SVC (`nu = None`, per-sample bounds `c`) or a ν-SVC (bounds `c`: 1, or
/// the sample weights), on `rows` (`pre`, if any, is the Gram matrix of `rows.x`; `source` the plan's
/// source part, [`train::source_plan`]).
#[allow(clippy::too_many_arguments)] // the problem's parts, its model and its source
pub(crate) fn solve_binary(
    kernel: &KernelSpec,
    rows: Rows<'_>,
    y: &[f64],
    c: Vec<f64>,
    nu: Option<f64>,
    solver: &SolverParams,
    pre: Option<Precomputed>,
    source: super::plan::Plan,
) -> Result<BinaryFit> {
    match nu {
        None => Ok(train::solve_svc_at(kernel, rows, y, c, solver, pre, source)),
        Some(nu) => solve_nu_svc(kernel, rows, y, c, nu, solver, pre, source),
    }
}

/// LIBSVM's feasibility check of ν for every pair of classes: `ν (n_a + n_b)/2 ≤ min(n_a, n_b)`, with
/// `n_a` the class size or its weight total (`sizes`).
pub(crate) fn check_feasible(nu: f64, sizes: &[f64], names: &[String]) -> Result<()> {
    for a in 0..sizes.len() {
        for b in a + 1..sizes.len() {
            let (na, nb) = (sizes[a], sizes[b]);
            if nu * (na + nb) / 2.0 > na.min(nb) {
                return Err(ModelsError::Input(format!(
                    "nu = {nu} is infeasible for classes {:?} ({na} samples) and {:?} ({nb}): nu must be at \
                     most 2 min(n1, n2)/(n1 + n2) = {}",
                    names[a],
                    names[b],
                    2.0 * na.min(nb) / (na + nb)
                )));
            }
        }
    }
    Ok(())
}

impl Fit<BinaryTargets> for NuSvcParams {
    type Model = super::Svc;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &BinaryTargets) -> Result<super::Svc> {
        super::svc::check_len(x, y.len())?;
        let classes: Vec<usize> = y.y().iter().map(|&v| usize::from(v > 0.0)).collect();
        self.as_svc()?.fit_groups(x, &classes, y.names(), true, Some(self.nu), None, None)
    }
}

impl Fit<ClassTargets> for NuSvcParams {
    type Model = super::Svc;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &ClassTargets) -> Result<super::Svc> {
        super::svc::check_len(x, y.len())?;
        self.as_svc()?.fit_groups(x, y.classes(), y.names(), false, Some(self.nu), None, None)
    }
}

impl Fit<Targets> for NuSvcParams {
    type Model = super::Svc;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &Targets) -> Result<super::Svc> {
        match y {
            Targets::Binary(b) => self.fit(x, b),
            Targets::Classes(c) => self.fit(x, c),
            Targets::Real(_) => Err(ModelsError::Input("nu-SVC needs class labels, got real targets".into())),
        }
    }
}

impl crate::weights::FitWeighted for NuSvcParams {
    fn fit_weighted(
        &self,
        x: &Samples,
        y: &Targets,
        w: &crate::weights::SampleWeights,
    ) -> Result<super::Svc> {
        self.as_svc()?.fit_weighted_groups(x, y, w, Some(self.nu), None)
    }
}
