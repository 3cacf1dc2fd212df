//! # kern-models
//!
//! Kernel learners: SVM (C-SVC, epsilon-SVR, one-vs-one), LS-SVM, kernel ridge regression, kernel PCA,
//! feature vector selection with kernel function approximation, and the railway kernel — with model
//! persistence ([`persist`]).
//!
//! Layer: 4 of 5, above kern-tune (see `docs/architecture.md`).

mod error;
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
mod selinv;
pub mod svm;
mod validate;

pub use error::{ModelsError, Result};
