//! One module per subcommand.

pub mod cv;
pub mod export;
pub mod fvs;
pub mod gram;
pub mod info;
pub mod kernels;
pub mod kpca;
pub mod landmark;
pub mod lssvm;
pub mod precomputed;
pub mod predict;
pub mod railway;
pub mod scale;
pub mod sparse;
pub mod svm_types;
pub mod train;
pub mod tune;
