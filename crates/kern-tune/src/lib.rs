//! # kern-tune
//!
//! Hyperparameter selection: alignment A(C) and sparsity S(C) for compact support, bandwidth heuristics, k-fold cross-validation and grid search over any learner.
//!
//! Layer: 3 of 5, above kern-sparse (see `docs/architecture.md`). This crate is being built; see the open issue for its scope.
