//! Integration tests of kern-cli: one test binary, one module per topic.

mod cmd;
mod common;
mod core_commands;
mod cv_folds;
mod cv_precomputed;
mod determinism;
mod ecosystem;
mod fuzz_corpus;
mod fvs;
mod hostile;
mod kpca_predict;
mod kpca_scale;
mod landmark;
mod learner_flags;
mod libsvm_compat;
mod lssvm;
mod model_flags;
mod precomputed;
mod predict_registry;
mod predict_unseen;
mod sparse;
mod sparse_data;
mod svm;
mod svm_types;
mod tune;
mod weights;
