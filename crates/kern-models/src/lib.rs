//! # kern-models
//!
//! Kernel learners: SVM (C-SVC, epsilon-SVR, one-vs-one), LS-SVM, kernel ridge regression, kernel PCA,
//! feature vector selection with kernel function approximation, and the railway kernel — with model
//! persistence ([`persist`]).
//!
//! Layer: 4 of 5, above kern-tune.
//!
//! Everything its API takes is re-exported here — samples, targets, kernel specs, the learner traits,
//! the data-file readers, the errors, and the sparse-solver options — so `kern-models` is the one
//! dependency a user needs (the lower crates are reachable as [`kern_core`], [`kern_sparse`],
//! [`kern_tune`], and the dense matrix type of results as [`faer`]).
//!
//! ```
//! use kern_models::svm::SvcParams;
//! use kern_models::{BinaryTargets, Fit, Model, Samples};
//!
//! let x = Samples::from_rows(&[[0.0, 0.0], [0.2, 0.1], [3.0, 3.0], [3.1, 2.8]])?;
//! let y = BinaryTargets::from_f64(&[-1.0, -1.0, 1.0, 1.0])?;
//! let model = SvcParams::new("gaussian:sigma=1".parse()?).c(10.0).fit(&x, &y)?;
//! assert_eq!(model.predict(&x)?, vec![-1.0, -1.0, 1.0, 1.0]);
//! # Ok::<(), kern_models::ModelsError>(())
//! ```
//!
//! Cargo feature `ndarray` (off by default) adds `kern_models::array`: samples from an ndarray `ArrayView2`,
//! predictions as `Array1`, decision values and transforms as `Array2`.

pub mod any_model;
mod borrowed_strings;
mod error;
pub mod exact_sum;
mod finite_output;
pub mod fvs;
pub mod fvs_subspace;
pub mod kfa;
pub mod kmat;
pub mod kpca;
pub mod krr;
pub mod landmark;
pub mod libsvm_model;
pub mod lssvm;
pub mod persist;
pub mod railway;
pub mod ridge;
pub mod scaling;
pub mod schema;
mod selinv;
pub mod svm;
mod validate;
pub mod weights;
pub mod widen;

pub use any_model::{AnyModel, Input, Kind, Predictions};
pub use error::{ModelsError, Result};

// What the API takes, so that one dependency is enough.
#[cfg(feature = "ndarray")]
pub use kern_core::array;
pub use kern_core::io::{CsvOptions, Dataset, read_csv, read_data, read_libsvm};
pub use kern_core::learner::{Fit, Model};
pub use kern_core::{
    BinaryTargets, ClassTargets, CoreError, Kernel, KernelSpec, RealTargets, Samples, Storage, StoragePolicy,
    Targets,
};
pub use kern_sparse::{Ordering, SolveOptions, Solver, SparseError};
pub use {faer, kern_core, kern_sparse, kern_tune};

/// The crate README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeDoctests;
