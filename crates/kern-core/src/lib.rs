//! # kern-core
//!
//! The base layer of the kern workspace (see `docs/architecture.md`): validated [`Samples`] and
//! [`Targets`], the [`Kernel`] trait and the kernels of the five source papers, dense Gram matrices
//! through faer ([`gram`](fn@gram), [`cross_gram`]), LIBSVM and CSV data files ([`io`]), and the learner traits
//! ([`learner`]) that tuning and model crates share.
//!
//! Cargo features: `gzip` (`.gz` data files) and `nalgebra` (conversions to and from nalgebra's
//! `DMatrix` / `CsrMatrix`) are on by default; `ndarray` adds the `array` module (samples from
//! `ArrayView2`, predictions as `Array1` / `Array2`). Parallel work runs on rayon ([`parallel`]);
//! `parallel::install(Some(1), ..)` runs it on one thread, with the same results.
//!
//! ```
//! use kern_core::{gram, Kernel, KernelSpec, Samples};
//! let x = Samples::from_rows(&[[0.0, 0.0], [1.0, 0.0], [5.0, 5.0]])?;
//! let k: KernelSpec = "cs-gaussian:sigma=1,c=2,nu=3".parse()?;
//! let g = gram(&k, &x)?;
//! assert_eq!(g[(0, 2)], 0.0);          // beyond the support radius
//! assert!(g[(0, 1)] > 0.0);
//! assert_eq!(g[(1, 0)], g[(0, 1)]);
//! # Ok::<(), kern_core::CoreError>(())
//! ```

#[cfg(feature = "ndarray")]
pub mod array;
mod error;
pub mod faer_errors;
pub mod gram;
pub mod io;
pub mod kernel;
pub mod learner;
pub mod memory;
pub mod pages;
pub mod parallel;
mod samples;
pub mod sparse_dots;
mod spec;
mod targets;

pub use error::{CoreError, Result};
pub use gram::{GramPath, cross_gram, cross_gram_with, gram, gram_with};
pub use kernel::{
    Chi2, CompactlySupported, Cosine, Definiteness, Gaussian, GaussianParam, Indicator, Kernel, Laplacian,
    LaplacianL1, Linear, LinearSpline, LogKernel, Polynomial, Product, Profile, Scaled, Sigmoid, Sum,
};
pub use samples::{InvertedIndex, SampleIter, SampleRef, Samples, Storage, StoragePolicy, dot, sq_dist};
pub use spec::{KERNEL_NAMES, KernelSpec, KernelVisitor, MAX_SPEC_DEPTH};
pub use targets::{BinaryTargets, ClassTargets, RealTargets, Targets, label_name};

/// The crate README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeDoctests;
