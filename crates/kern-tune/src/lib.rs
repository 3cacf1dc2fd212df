//! # kern-tune
//!
//! Hyperparameter selection: alignment A(C) and sparsity S(C) for compact support, bandwidth heuristics, k-fold cross-validation and grid search over any learner.
//!
//! Layer: 3 of 5, above kern-sparse (see `docs/architecture.md`).
//!
//! - [`auto`]: kernel specs with automatic values (`gaussian:sigma=auto`, `cs-gaussian:sigma=auto,c=auto`)
//!   resolved on the training data by the bandwidth and support-radius methods below.
//! - [`support`]: the CS-RBF paper's alignment A(C) and sparsity S(C) (§3, Theorem 1, eq. 7) over a
//!   whole grid of C in one pass over the pairs, an exact search over the sorted pair distances, and the
//!   three selection procedures (eqs. 8–10).
//! - [`bandwidth`]: Letchford's mean-to-half and maximum-variance bandwidths, Ahn's class-separation
//!   criterion, the median heuristic and scikit-learn's `gamma='scale'`; the subsample robustness study.
//! - [`binned`]: squared distances binned by their leading bits with in-bin moments, so that the
//!   bandwidth criteria's sums are evaluated over bins with a proven error bound (one pass over the pairs
//!   for a whole Newton solve).
//! - [`pairs`]: pairwise squared distances (one GEMM per block column, lower triangle only, packed
//!   flat), seeded subsamples and random pairs for large `n`.
//! - [`cv`]: k-fold (stratified for classes), repeated k-fold, leave-one-out and hold-out validation of
//!   any learner implementing kern-core's [`Fit`](kern_core::learner::Fit), in parallel over folds.
//! - [`grid`]: named parameter grids (log2 / log10 / linear / explicit, with a string syntax such as
//!   `c=2^-5..2^15:11,sigma=0.1..10:5`) and [`grid::grid_search`], parallel over cells × folds.
//!
//! Every random choice (folds, subsamples, random pairs) comes from a seed through a fixed generator
//! (Xoshiro256++), and parallel results are collected in a fixed order, so results for a seed do not
//! depend on the number of threads.
//!
//! ```
//! use kern_core::{Samples, gram};
//! use kern_tune::auto::AutoKernel;
//! let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.0]])?; // pair distances 1, 1, 2, 3, 3, 4
//! let auto = AutoKernel::parse("cs-gaussian:sigma=auto,c=auto")?.expect("automatic values");
//! let r = auto.resolve(&x, None, 0)?; // no labels needed; seed 0
//! let (sigma, c) = (r.choices[0].value, r.choices[1].value);
//! // A mean similarity exp(−r²/σ²) of 1/2 puts σ² ln 2 between the smallest and largest r².
//! assert!((1.0..=16.0).contains(&(sigma * sigma * std::f64::consts::LN_2)));
//! assert!((1.0..=4.0).contains(&c));
//! let g = gram(&r.kernel, &x)?; // sparsity ≥ 1/2: at least 3 of the 6 pairs beyond the radius
//! assert!((0..4).flat_map(|i| (0..i).map(move |j| (i, j))).filter(|&(i, j)| g[(i, j)] == 0.0).count() >= 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod fastexp;
mod rng;

pub mod auto;
pub mod bandwidth;
pub mod binned;
pub mod cv;
pub mod grid;
pub mod metrics;
pub mod pairs;
pub mod split;
pub mod support;

pub use error::{BoxError, Result, TuneError};

/// The crate README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeDoctests;
