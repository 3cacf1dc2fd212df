//! Support vector machines: C-SVC (binary, one-vs-one, one-vs-rest, per-class weights, Platt
//! probabilities), ν-SVC ([`NuSvcParams`]), one-class ([`OneClassParams`]), ε-SVR and ν-SVR
//! ([`NuSvrParams`]), trained by an SMO solver with second-order working-set selection,
//! shrinking and a byte-bounded LRU kernel-column cache (the algorithm of LIBSVM; Fan, Chen & Lin 2005).
//!
//! - [`SvcParams`] / [`SvrParams`] are the learners ([`kern_core::learner::Fit`]); they validate once
//!   and train an [`Svc`] / [`Svr`] ([`kern_core::learner::Model`], [`crate::persist::Persist`] with
//!   kinds `"svc"` and `"svr"`).
//! - [`Regularization`] offers LIBSVM's `C` or the `λ` of the CS-RBF paper's eq. 11, `C = 1/(2nλ)`.
//! - Kernels are [`kern_core::KernelSpec`]s; the solver is monomorphized per concrete kernel through
//!   [`kern_core::KernelSpec::visit`]. Kernel values and gradients are `f64` throughout.
//!
//! **The plan.** Which path a fit takes — the column source, the order and start, the selection, how
//! the threads are shared — is one value, [`plan::Plan`], chosen by the rules of [`plan`] from the
//! problem and the constants of [`plan::Tuning`], and reported per machine in
//! [`MachineStats::plan`]. By default a column of `Q` is computed on demand over the active
//! (unshrunk) variables and kept in the LRU cache (default 100 MB, LIBSVM's); a machine whose kernel
//! entries are dear (many features, or a kernel without the vectorized profile) has its Gram
//! computed up front by kern-core's blocked GEMM when it takes at most half of the budget, and in
//! one-vs-one the per-class diagonal blocks are then shared by the pairs. The machines of a
//! multi-class fit run side by side, one per thread. Compactly supported kernels (`support_radius()`
//! is `Some`) go through kern-sparse: their columns hold only the neighbours within the support
//! radius, and prediction visits only the support vectors near each test point.
//!
//! ```
//! use kern_models::svm::SvcParams;
//! use kern_core::{Samples, BinaryTargets, learner::{Fit, Model}};
//! let x = Samples::from_rows(&[[0.0, 0.0], [0.2, 0.1], [2.0, 2.0], [2.1, 1.9]])?;
//! let y = BinaryTargets::from_f64(&[-1.0, -1.0, 1.0, 1.0])?;
//! let m = SvcParams::new("gaussian:sigma=1".parse()?).c(10.0).fit(&x, &y)?;
//! assert_eq!(m.predict(&x)?, vec![-1.0, -1.0, 1.0, 1.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod auto;
mod cache;
mod nu;
mod one_class;
mod params;
mod path;
pub mod plan;
mod platt;
mod precomputed;
mod predict;
mod progress;
mod qmatrix;
mod solver;
mod svc;
mod svr;
mod train;

#[cfg(test)]
mod cells_order_tests;
#[cfg(test)]
mod nu_tests;
#[cfg(test)]
mod path_tests;
#[cfg(test)]
mod plan_tests;
#[cfg(test)]
mod precomputed_tests;
#[cfg(test)]
mod scan_tests;
#[cfg(test)]
mod seed_tests;
#[cfg(test)]
mod source_tests;
#[cfg(test)]
mod sparse_tests;
#[cfg(test)]
mod split_tests;
#[cfg(test)]
mod tests;

pub use auto::{AutoChoice, AutoSearch, c_grid};
pub use one_class::OneClass;
pub use params::{
    Multiclass, NuSvcParams, NuSvrParams, OneClassParams, Regularization, SolverParams, SvcParams, SvrParams,
};
pub use path::SharedGram;
pub(crate) use platt::{Sigmoid as PlattSigmoid, couple};
pub use precomputed::KernelMatrix;
pub(crate) use precomputed::ModelKernel;
pub use progress::{ProgressObserver, SolverProgress, observe_progress};
pub(crate) use svc::rows_to_mat;
pub use svc::{Svc, SvcPredictions};
pub use svr::Svr;
pub use train::MachineStats;
