//! The LS-SVM linear system (CS-RBF paper eq. 14):
//!
//! ```text
//! [ 0   1ᵀ        ] [ b ]   [ 0 ]
//! [ 1   K + I/λ   ] [ a ] = [ y ]
//! ```
//!
//! solved from one Cholesky factorization of `H = K + I/λ` by two solves, `ν = H⁻¹1` and `η = H⁻¹y`,
//! and the bordered elimination `b = 1ᵀη / 1ᵀν`, `a = η − b ν` (from `1ᵀa = 0`). The same code serves
//! the dense Gaussian `K` and the sparse `K_C` ([`CholeskyPlan`] hides which). [`LsSvmIterative`] does
//! the same two solves by preconditioned conjugate gradients when no factor fits in memory.
//!
//! ```
//! use kern_core::{CompactlySupported, Gaussian, Samples};
//! use kern_sparse::{GramMatrix, lssvm_fit};
//! let x = Samples::from_rows(&[[0.0], [0.5], [1.0], [1.5]])?;
//! let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.2, 1.0)?;
//! let (y, lambda) = ([1.0, 1.0, -1.0, -1.0], 5.0);
//! let s = lssvm_fit(&k, &x, &y, lambda)?;
//! assert!(s.alpha.iter().sum::<f64>().abs() < 1e-12); // first row: 1ᵀa = 0
//! let ka = GramMatrix::build(&k, &x)?.mul_vec(&s.alpha)?; // other rows: b + (K + I/λ) a = y
//! assert!((0..4).all(|i| (s.b + ka[i] + s.alpha[i] / lambda - y[i]).abs() < 1e-12));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::cholesky::{Cholesky, CholeskyPlan};
use crate::error::{Result, SparseError, positive};
use crate::kmatrix::GramMatrix;
use crate::ordering::Ordering;
use crate::pcg::{Pcg, PcgOptions, PcgReport};
use kern_core::{Kernel, Samples};
use nalgebra_sparse::CscMatrix;
use serde::{Deserialize, Serialize};

/// The solution `(b, a)` of eq. 14: intercept and coefficients of `f(x) = b + Σ a_i k(x, x_i)`.
///
/// ```
/// let s = kern_sparse::LsSvmSolution { b: 0.5, alpha: vec![1.0, -1.0] };
/// let (b, alpha): (f64, Vec<f64>) = s.into();
/// assert_eq!((b, alpha.len()), (0.5, 2));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LsSvmSolution {
    /// The intercept `b`.
    pub b: f64,
    /// The coefficients `a` (the paper's `a`; `Σ a_i = 0`).
    pub alpha: Vec<f64>,
}

impl From<LsSvmSolution> for (f64, Vec<f64>) {
    fn from(s: LsSvmSolution) -> Self {
        (s.b, s.alpha)
    }
}

/// A factorization of `K + I/λ` with `ν = (K + I/λ)⁻¹ 1` precomputed, so that every further target
/// vector (one-vs-rest classes, CV folds sharing λ) costs one solve.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// use kern_sparse::{CholeskyPlan, GramMatrix, LsSvmSolver, Ordering};
/// let x = Samples::from_rows(&[[0.0], [0.3], [0.6], [2.0], [2.3]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
/// let mut plan = CholeskyPlan::new(GramMatrix::build(&k, &x)?, Ordering::Amd)?;
/// let solver = LsSvmSolver::new(&mut plan, 10.0)?;
/// let s = solver.solve(&[1.0, 1.0, 1.0, -1.0, -1.0])?;
/// assert!(s.alpha.iter().sum::<f64>().abs() < 1e-12);   // first row of eq. 14
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct LsSvmSolver {
    chol: Cholesky,
    nu: Vec<f64>,
    sum_nu: f64,
}

impl LsSvmSolver {
    /// Factors `K + I/λ` (`λ > 0`, the paper's regularization in eq. 13–14) and solves against `1`
    /// (the plan is unchanged afterwards, see [`CholeskyPlan::factor`]).
    pub fn new(plan: &mut CholeskyPlan, lambda: f64) -> Result<Self> {
        let lambda = positive("lambda", lambda)?;
        Self::from_cholesky(plan.factor(1.0 / lambda)?)
    }

    /// Uses an existing factorization of `K + I/λ`.
    pub fn from_cholesky(chol: Cholesky) -> Result<Self> {
        let nu = chol.solve(&vec![1.0; chol.n()])?;
        let sum_nu = check_sum_nu(&nu)?;
        Ok(LsSvmSolver { chol, nu, sum_nu })
    }

    /// The factorization of `K + I/λ`.
    pub fn cholesky(&self) -> &Cholesky {
        &self.chol
    }

    /// Solves eq. 14 for the targets `y` (±1 labels or real values).
    pub fn solve(&self, y: &[f64]) -> Result<LsSvmSolution> {
        check_targets(y)?;
        Ok(bordered(self.chol.solve(y)?, &self.nu, self.sum_nu))
    }
}

fn check_targets(y: &[f64]) -> Result<()> {
    match y.iter().position(|v| !v.is_finite()) {
        Some(i) => Err(SparseError::Param { name: "y", value: y[i], reason: "targets must be finite" }),
        None => Ok(()),
    }
}

fn check_sum_nu(nu: &[f64]) -> Result<f64> {
    let sum_nu: f64 = nu.iter().sum();
    if !(sum_nu.is_finite() && sum_nu > 0.0) {
        return Err(SparseError::Matrix(format!(
            "1ᵀ(K + I/λ)⁻¹1 = {sum_nu:e} is not positive: the solver is not usable"
        )));
    }
    Ok(sum_nu)
}

/// The bordered elimination of eq. 14 from `η = H⁻¹y` and `ν = H⁻¹1`: `b = 1ᵀη / 1ᵀν`, `a = η − b ν`.
fn bordered(mut eta: Vec<f64>, nu: &[f64], sum_nu: f64) -> LsSvmSolution {
    let b = eta.iter().sum::<f64>() / sum_nu;
    for (e, &v) in eta.iter_mut().zip(nu) {
        *e -= b * v;
    }
    LsSvmSolution { b, alpha: eta }
}

/// The iterative counterpart of [`LsSvmSolver`]: eq. 14 through the same two solves, `ν = H⁻¹1`
/// (once) and `η = H⁻¹y` (per target vector), by preconditioned conjugate gradients on the sparse
/// `H = K_C + I/λ` ([`Pcg`]) instead of a Cholesky factor. Each solve stops at the relative residual
/// `tol` of [`PcgOptions`]; the reports say how many iterations it took and what residual it reached.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// use kern_sparse::{sparse_gram, CholeskyPlan, GramMatrix, LsSvmIterative, LsSvmSolver, Ordering, PcgOptions};
/// let x = Samples::from_flat((0..300).map(|v| ((v * 41) % 97) as f64 / 20.0).collect(), 150, 2)?;
/// let y: Vec<f64> = (0..150).map(|i| if x.row(i)[0] > 2.4 { 1.0 } else { -1.0 }).collect();
/// let k = CompactlySupported::new(Gaussian::with_sigma(0.6)?, 0.9, 3.0)?;
/// let a = sparse_gram(&k, &x)?.into_matrix();
/// let it = LsSvmIterative::new(a.clone(), 10.0, &PcgOptions { tol: 1e-11, ..Default::default() })?;
/// let (s, report) = it.solve(&y)?;
/// assert!(report.converged && s.alpha.iter().sum::<f64>().abs() < 1e-8);
/// let d = LsSvmSolver::new(&mut CholeskyPlan::new(GramMatrix::Sparse(a), Ordering::Amd)?, 10.0)?.solve(&y)?;
/// assert!((s.b - d.b).abs() < 1e-8);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct LsSvmIterative {
    pcg: Pcg,
    nu: Vec<f64>,
    sum_nu: f64,
    nu_report: PcgReport,
}

impl LsSvmIterative {
    /// Builds the conjugate-gradient solver of `K_C + I/λ` (`a` sparse symmetric, full storage,
    /// `λ > 0`) and solves against `1`.
    pub fn new(a: CscMatrix<f64>, lambda: f64, opts: &PcgOptions) -> Result<Self> {
        let lambda = positive("lambda", lambda)?;
        Ok(Self::with_targets(Pcg::new(a, 1.0 / lambda, opts)?, &[])?.0)
    }

    /// From a conjugate-gradient solver of `H = K_C + I/λ` (its shift is `1/λ`; full or lower
    /// storage), solves `ν = H⁻¹1` and `η = H⁻¹y` for every target vector of `y` (column-major
    /// `n × r`, `r ≥ 0`) in lockstep ([`Pcg::solve_many`]: one pass over the matrix per iteration for
    /// all of them; each solve the same bytes as alone). Returns the solver (for further targets) and
    /// each target's solution with the report of its `η` solve.
    ///
    /// ```
    /// use kern_core::{CompactlySupported, Gaussian, Samples};
    /// use kern_sparse::{sparse_gram, LsSvmIterative, Pcg, PcgOptions};
    /// let x = Samples::from_flat((0..300).map(|v| ((v * 41) % 97) as f64 / 20.0).collect(), 150, 2)?;
    /// let y: Vec<f64> = (0..150).map(|i| if x.row(i)[0] > 2.4 { 1.0 } else { -1.0 }).collect();
    /// let k = CompactlySupported::new(Gaussian::with_sigma(0.6)?, 0.9, 3.0)?;
    /// let a = sparse_gram(&k, &x)?.into_matrix();
    /// let opts = PcgOptions { tol: 1e-11, ..Default::default() };
    /// let (it, sols) = LsSvmIterative::with_targets(Pcg::new(a.clone(), 0.1, &opts)?, &y)?;
    /// let alone = LsSvmIterative::new(a, 10.0, &opts)?;
    /// assert_eq!(sols[0], alone.solve(&y)?);          // the same bytes in lockstep
    /// assert_eq!(it.nu_report(), alone.nu_report());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_targets(pcg: Pcg, y: &[f64]) -> Result<(Self, Vec<(LsSvmSolution, PcgReport)>)> {
        let n = pcg.n();
        if n == 0 || !y.len().is_multiple_of(n) {
            return Err(SparseError::Dimension {
                what: "targets (a multiple of the number of points)",
                expected: n,
                found: y.len(),
            });
        }
        check_targets(y)?;
        let mut rhs = vec![1.0; n];
        rhs.extend_from_slice(y);
        let (x, reports) = pcg.solve_many(&rhs)?;
        let nu = x[..n].to_vec();
        let sum_nu = check_sum_nu(&nu)?;
        let sols = x[n..]
            .chunks_exact(n)
            .zip(&reports[1..])
            .map(|(eta, &rep)| (bordered(eta.to_vec(), &nu, sum_nu), rep))
            .collect();
        Ok((LsSvmIterative { pcg, nu, sum_nu, nu_report: reports[0] }, sols))
    }

    /// The report of the solve `ν = H⁻¹1` done by [`LsSvmIterative::new`].
    pub fn nu_report(&self) -> PcgReport {
        self.nu_report
    }

    /// The conjugate-gradient solver of `H`.
    pub fn pcg(&self) -> &Pcg {
        &self.pcg
    }

    /// Solves eq. 14 for the targets `y`; the report is that of `η = H⁻¹y` (combine with
    /// [`LsSvmIterative::nu_report`] by [`PcgReport::worst`] for the whole solve).
    pub fn solve(&self, y: &[f64]) -> Result<(LsSvmSolution, PcgReport)> {
        check_targets(y)?;
        let (eta, report) = self.pcg.solve(y)?;
        Ok((bordered(eta, &self.nu, self.sum_nu), report))
    }
}

/// Solves eq. 14 for one `λ` from a plan (dense or sparse): factors `K + I/λ`, two solves, `b`.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// use kern_sparse::{lssvm_solve, CholeskyPlan, GramMatrix, Ordering};
/// let x = Samples::from_rows(&[[0.0], [0.5], [1.0], [1.5]])?;
/// let y = [1.0, 1.0, -1.0, -1.0];
/// let g = Gaussian::with_sigma(1.0)?;
/// let cs = CompactlySupported::new(g.clone(), 100.0, 1.0)?;   // C beyond every distance: taper only
/// let dense = lssvm_solve(&mut CholeskyPlan::new(GramMatrix::build(&g, &x)?, Ordering::Amd)?, 2.0, &y)?;
/// let sparse = lssvm_solve(&mut CholeskyPlan::new(GramMatrix::build(&cs, &x)?, Ordering::Amd)?, 2.0, &y)?;
/// assert!(dense.alpha.iter().sum::<f64>().abs() < 1e-12 && sparse.alpha.iter().sum::<f64>().abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn lssvm_solve(plan: &mut CholeskyPlan, lambda: f64, y: &[f64]) -> Result<LsSvmSolution> {
    LsSvmSolver::new(plan, lambda)?.solve(y)
}

/// Builds `K` (sparse `K_C` when the kernel has compact support, dense otherwise), orders it with
/// [`Ordering::Auto`] and solves eq. 14: the whole LS-SVM fit in one call.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// let x = Samples::from_rows(&[[0.0], [0.5], [1.0], [1.5]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.2, 1.0)?;
/// let s = kern_sparse::lssvm_fit(&k, &x, &[1.0, 1.0, -1.0, -1.0], 5.0)?;
/// assert!(s.b.is_finite() && s.alpha[0] > 0.0 && s.alpha[3] < 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn lssvm_fit<K: Kernel>(k: &K, x: &Samples, y: &[f64], lambda: f64) -> Result<LsSvmSolution> {
    if y.len() != x.n() {
        return Err(SparseError::Dimension { what: "targets", expected: x.n(), found: y.len() });
    }
    let mut plan = CholeskyPlan::new(GramMatrix::build(k, x)?, Ordering::Auto)?;
    lssvm_solve(&mut plan, lambda, y)
}
