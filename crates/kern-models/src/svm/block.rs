//! The choice between the one-pair SMO and the blocked solver (see `solver::blocked`).
//!
//! **The automatic rule: one pair.** [`SolverBlock::Auto`] takes the one-pair solver at every size
//! today. Measured on a loaded 2-core machine (preliminary): green-red n = 50,000 (d = 2, σ = 0.6,
//! C = 1) trained in 20 s by pairs and 40 s in blocks of 262 (the default cache's worth of columns);
//! twonorm n = 20,000 (d = 20, γ = 0.05) in 3.9 s by pairs and 4.1 s in blocks of 128. The pair
//! solver's shrinking makes its columns as short as the active set, while the blocked solver computes
//! and updates full columns; until the blocked solver shrinks too (or its column pass becomes a GEMM),
//! blocks are chosen only on request ([`SolverBlock::Size`]).

use crate::{ModelsError, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Which SMO variant trains C-SVC, ε-SVR and one-class problems (the ν variants always use pairs).
///
/// ```
/// use kern_models::svm::SolverBlock;
/// assert_eq!("auto".parse::<SolverBlock>()?, SolverBlock::Auto);
/// assert_eq!("pair".parse::<SolverBlock>()?, SolverBlock::Pair);
/// assert_eq!("256".parse::<SolverBlock>()?, SolverBlock::Size(256));
/// assert_eq!(SolverBlock::Size(256).to_string(), "256");
/// assert!("1".parse::<SolverBlock>().is_err());
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SolverBlock {
    /// Chosen by the problem (today always one pair: see the module documentation for the
    /// measurements behind the rule).
    #[default]
    Auto,
    /// LIBSVM's one pair of variables per iteration.
    Pair,
    /// Working sets of this many variables (at least 2), each solved by the pair SMO inside the block.
    Size(usize),
}

impl SolverBlock {
    /// The working-set size for a problem of `l` variables, or `None` for the one-pair solver (the
    /// automatic rule, see the module documentation). A requested size is capped at `l`.
    ///
    /// ```
    /// use kern_models::svm::SolverBlock;
    /// assert_eq!(SolverBlock::Auto.working_set(100_000), None);
    /// assert_eq!(SolverBlock::Pair.working_set(100_000), None);
    /// assert_eq!(SolverBlock::Size(256).working_set(100_000), Some(256));
    /// assert_eq!(SolverBlock::Size(8).working_set(5), Some(5));
    /// ```
    pub fn working_set(self, l: usize) -> Option<usize> {
        match self {
            SolverBlock::Auto | SolverBlock::Pair => None,
            SolverBlock::Size(q) => Some(q.min(l).max(2)),
        }
    }

    pub(crate) fn check(self) -> Result<()> {
        match self {
            SolverBlock::Size(q) if q < 2 => {
                Err(ModelsError::Param { name: "solver block", value: q as f64, reason: "must be >= 2" })
            }
            _ => Ok(()),
        }
    }
}

impl fmt::Display for SolverBlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolverBlock::Auto => f.write_str("auto"),
            SolverBlock::Pair => f.write_str("pair"),
            SolverBlock::Size(q) => write!(f, "{q}"),
        }
    }
}

impl FromStr for SolverBlock {
    type Err = ModelsError;
    fn from_str(s: &str) -> Result<Self> {
        let b = match s.trim() {
            "auto" => SolverBlock::Auto,
            "pair" => SolverBlock::Pair,
            t => SolverBlock::Size(t.parse::<usize>().map_err(|_| {
                ModelsError::Input(format!(
                    "solver block {s:?}: expected auto, pair or a working-set size (an integer >= 2)"
                ))
            })?),
        };
        b.check()?;
        Ok(b)
    }
}
