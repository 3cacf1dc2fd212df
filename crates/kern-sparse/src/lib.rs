//! # kern-sparse
//!
//! Compactly supported kernels as sparse Gram matrices: radius neighbour search, sparse Gram assembly, RCM and minimum-degree orderings, sparse and dense Cholesky, and the LS-SVM bordered solve.
//!
//! Layer: 2 of 5, above kern-core (see `docs/architecture.md`). The efficiency half of the CS-RBF
//! paper (Zhang, Genton & Liu, §2): a compactly supported kernel makes `K_C` sparse, and reordering
//! plus sparse Cholesky turn that into savings in memory and time.
//!
//! - [`neighbors`]: exact radius search ([`NeighborIndex`]; cell grid in low dimension, blocked GEMM
//!   scan in high dimension), also for new points (`δ_C(x)`, §2.1).
//! - [`gram`]: [`sparse_gram`] / [`sparse_cross_gram`] as `nalgebra_sparse::CscMatrix<f64>` (full
//!   symmetric storage, diagonal present), with [`SparsityStats`] (eq. 7 and the `12N + 4n` estimate).
//! - [`ordering`]: [`rcm`] (George–Liu start, every component), [`amd_order`] (faer's AMD),
//!   [`nd_order`] (METIS nested dissection), identity,
//!   [`permute_symmetric`]; [`metrics`]: [`bandwidth`] (`2·max b_i + 1` and `max b_i + 1`), profile,
//!   pattern export for spy plots.
//! - [`cholesky`]: [`CholeskyPlan`] (ordering + symbolic analysis once) → [`Cholesky`] of `A + s·I`
//!   for any shift, dense or sparse behind one interface.
//! - [`lssvm`]: the bordered solve of eq. 14, [`lssvm_solve`] / [`LsSvmSolver`] / [`lssvm_fit`], and
//!   its iterative counterpart [`LsSvmIterative`].
//! - [`pcg`]: preconditioned conjugate gradients for `K_C + s·I` ([`Pcg`]; plain, or block Jacobi over
//!   the nested-dissection order; several right-hand sides in lockstep), on the full storage or on
//!   [`sym_lower`]'s lower triangle ([`SymLower`], [`sparse_gram_lower`]); [`solver`]: [`Solver`] `Auto | Direct | Iterative` and the
//!   predicted-memory rule.
//!
//! ```
//! use kern_core::{CompactlySupported, Gaussian, Samples};
//! use kern_sparse::{bandwidth, bandwidth_permuted, lssvm_solve, rcm, sparse_gram, CholeskyPlan, GramMatrix, Ordering};
//! let x = Samples::from_rows(&[[0.0, 0.0], [0.4, 0.1], [0.9, 0.0], [3.0, 3.0], [3.2, 3.1]])?;
//! let k = CompactlySupported::new(Gaussian::with_sigma(0.6)?, 0.8, 3.0)?;
//! let g = sparse_gram(&k, &x)?;
//! assert!(g.sparsity() > 0.5);
//! let p = rcm(g.matrix())?;
//! assert!(bandwidth_permuted(g.matrix(), &p)?.max_row <= bandwidth(g.matrix()).max_row);
//! let mut plan = CholeskyPlan::new(GramMatrix::Sparse(g.into_matrix()), Ordering::Amd)?;
//! let sol = lssvm_solve(&mut plan, 10.0, &[1.0, 1.0, 1.0, -1.0, -1.0])?;
//! assert!(sol.alpha.iter().sum::<f64>().abs() < 1e-12);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod cholesky;
pub mod csc_ops;
mod error;
pub mod gram;
pub mod kmatrix;
pub mod lssvm;
pub mod metrics;
pub mod neighbors;
pub mod ordering;
pub mod pcg;
pub mod solver;
pub mod sym_lower;

pub use cholesky::{
    AUTO_ND_MIN_FACTOR_NNZ, Cholesky, CholeskyPlan, DenseCholesky, RawFactor, SparseCholesky,
};
pub use error::{Result, SparseError};
pub use gram::{
    GramOptions, SparseGram, SparsityStats, sparse_cross_gram, sparse_cross_gram_indexed, sparse_gram,
    sparse_gram_indexed, sparse_gram_with,
};
pub use kmatrix::GramMatrix;
pub use lssvm::{LsSvmIterative, LsSvmSolution, LsSvmSolver, lssvm_fit, lssvm_solve};
pub use metrics::{Bandwidth, bandwidth, bandwidth_permuted, pattern_density, pattern_entries};
pub use neighbors::{Neighbor, NeighborIndex, SearchMethod};
pub use ordering::{Ordering, Permutation, amd_order, nd_order, order, permute_symmetric, rcm};
pub use pcg::{Pcg, PcgOptions, PcgReport, Preconditioner};
pub use solver::{SolveOptions, Solver};
pub use sym_lower::{SymLower, sparse_gram_lower};

/// The crate README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeDoctests;
