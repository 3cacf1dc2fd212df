//! # kern-sparse
//!
//! Compactly supported kernels as sparse Gram matrices: radius neighbour search, sparse Gram assembly, RCM and minimum-degree orderings, sparse and dense Cholesky, and the LS-SVM bordered solve.
//!
//! Layer: 2 of 5, above kern-core (see `docs/architecture.md`). This crate is being built; see the open issue for its scope.
