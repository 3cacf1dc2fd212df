//! # kern-models
//!
//! Kernel learners: SVM (C-SVC, epsilon-SVR, one-vs-one), LS-SVM, kernel ridge regression, kernel PCA,
//! feature vector selection with kernel function approximation, and the railway kernel — with model
//! persistence ([`persist`]).
//!
//! Layer: 4 of 5, above kern-tune (see `docs/architecture.md`).

mod error;
pub mod persist;

pub use error::{ModelsError, Result};
