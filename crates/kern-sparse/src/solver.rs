//! The choice between the direct sparse Cholesky ([`CholeskyPlan`](crate::CholeskyPlan)) and
//! preconditioned conjugate gradients ([`Pcg`](crate::Pcg)) for `(K_C + s·I) x = b`.
//!
//! **Auto rule.** The symbolic analysis (ordering plus elimination tree, cheap next to the numeric
//! factorization) predicts `nnz(L)`; the factorization needs about `12 · nnz(L)` bytes
//! ([`predicted_factor_bytes`]: 8 for the value, times 1.5 for faer's supernodal padding and
//! workspace). When that exceeds the memory budget, the iterative
//! solver is used. The budget is a parameter ([`choose_solver`]); callers pass the memory they are
//! willing to spend ([`DEFAULT_FACTOR_BUDGET`] when they do not know better).
//!
//! ```
//! use kern_sparse::solver::{choose_solver, predicted_factor_bytes};
//! use kern_sparse::{CholeskyPlan, Ordering, Solver};
//! let a = nalgebra_sparse::CscMatrix::<f64>::identity(1000);
//! let nnz = CholeskyPlan::sparse(&a, Ordering::Amd)?.factor_nnz(); // the symbolic analysis only
//! assert_eq!(predicted_factor_bytes(nnz), 12_000);
//! assert_eq!(choose_solver(Solver::Auto, nnz, 12_000), Solver::Direct); // fits the budget
//! assert_eq!(choose_solver(Solver::Auto, nnz, 11_999), Solver::Iterative);
//! assert_eq!(choose_solver(Solver::Direct, nnz, 0), Solver::Direct); // an explicit choice stands
//! # Ok::<(), kern_sparse::SparseError>(())
//! ```

use crate::error::{Result, SparseError};
use serde::{Deserialize, Serialize};

/// Bytes the numeric factorization takes per predicted non-zero of `L`: 8 for the value, times 1.5
/// for faer's supernodal storage (the full diagonal blocks) and its update workspace.
pub(crate) const FACTOR_BYTES_PER_NONZERO: f64 = 12.0;

/// The memory budget for a direct factor when the caller gives none: 8 GiB.
///
/// ```
/// use kern_sparse::{Solver, solver::{DEFAULT_FACTOR_BUDGET, choose_solver, predicted_factor_bytes}};
/// // Auto stays direct while the predicted factor fits the default budget.
/// let fits = (DEFAULT_FACTOR_BUDGET / predicted_factor_bytes(1)) as usize;
/// assert_eq!(choose_solver(Solver::Auto, fits, DEFAULT_FACTOR_BUDGET), Solver::Direct);
/// assert_eq!(choose_solver(Solver::Auto, fits + 1, DEFAULT_FACTOR_BUDGET), Solver::Iterative);
/// ```
pub const DEFAULT_FACTOR_BUDGET: u64 = 8 << 30;

/// How a sparse system `(K_C + s·I) x = b` is solved.
///
/// ```
/// use kern_sparse::Solver;
/// assert_eq!("iterative".parse::<Solver>()?, Solver::Iterative);
/// assert_eq!(Solver::default(), Solver::Auto);
/// assert_eq!(Solver::Direct.name(), "direct");
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Solver {
    /// Direct when the predicted factor fits the memory budget, iterative otherwise (module docs).
    #[default]
    Auto,
    /// Sparse Cholesky factorization.
    Direct,
    /// Preconditioned conjugate gradients.
    Iterative,
}

impl Solver {
    /// The command-line name: `auto`, `direct` or `iterative`.
    ///
    /// ```
    /// assert_eq!(kern_sparse::Solver::Iterative.name(), "iterative");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Solver::Auto => "auto",
            Solver::Direct => "direct",
            Solver::Iterative => "iterative",
        }
    }
}

impl std::str::FromStr for Solver {
    type Err = SparseError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Solver::Auto),
            "direct" | "cholesky" => Ok(Solver::Direct),
            "iterative" | "cg" | "pcg" => Ok(Solver::Iterative),
            _ => Err(SparseError::Matrix(format!("unknown solver {s:?}; valid: auto, direct, iterative"))),
        }
    }
}

/// Predicted bytes of the numeric factorization with `factor_nnz` structural non-zeros in `L`.
///
/// ```
/// assert_eq!(kern_sparse::solver::predicted_factor_bytes(1000), 12_000);
/// ```
pub fn predicted_factor_bytes(factor_nnz: usize) -> u64 {
    (factor_nnz as f64 * FACTOR_BYTES_PER_NONZERO).ceil() as u64
}

/// Resolves `choice` for a factor of `factor_nnz` predicted non-zeros and a memory budget of
/// `budget_bytes`: `Auto` becomes `Direct` when [`predicted_factor_bytes`] `≤ budget_bytes`,
/// `Iterative` otherwise; `Direct` and `Iterative` stay as they are.
///
/// ```
/// use kern_sparse::{Solver, solver::choose_solver};
/// assert_eq!(choose_solver(Solver::Auto, 1_000_000, 1 << 30), Solver::Direct);
/// assert_eq!(choose_solver(Solver::Auto, 1_000_000_000, 1 << 30), Solver::Iterative);
/// assert_eq!(choose_solver(Solver::Direct, 1_000_000_000, 1 << 30), Solver::Direct);
/// ```
pub fn choose_solver(choice: Solver, factor_nnz: usize, budget_bytes: u64) -> Solver {
    match choice {
        Solver::Auto if predicted_factor_bytes(factor_nnz) <= budget_bytes => Solver::Direct,
        Solver::Auto => Solver::Iterative,
        other => other,
    }
}

/// Everything a caller sets about solving `(K_C + s·I) x = b`: the solver, the conjugate-gradient
/// settings (used when the solver is, or resolves to, [`Solver::Iterative`]) and the memory budget of
/// [`Solver::Auto`].
///
/// ```
/// use kern_sparse::{Solver, solver::{SolveOptions, DEFAULT_FACTOR_BUDGET}};
/// let o = SolveOptions::default();
/// assert_eq!((o.solver, o.factor_budget), (Solver::Auto, DEFAULT_FACTOR_BUDGET));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SolveOptions {
    /// Direct, iterative, or chosen by predicted factor memory.
    pub solver: Solver,
    /// Conjugate-gradient settings.
    pub pcg: crate::pcg::PcgOptions,
    /// Bytes a direct factor may take before [`Solver::Auto`] switches to the iterative solver.
    pub factor_budget: u64,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            solver: Solver::Auto,
            pcg: crate::pcg::PcgOptions::default(),
            factor_budget: DEFAULT_FACTOR_BUDGET,
        }
    }
}
