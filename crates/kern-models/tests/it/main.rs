//! Integration tests of kern-models: one test binary, one module per topic.

mod any_model;
mod auto_values;
mod fvs;
mod fvs_sparse;
mod landmark_loo;
mod libsvm_model;
mod libsvm_nu;
mod libsvm_precomputed;
mod libsvm_precomputed_training;
mod nu_bound;
mod railway;
mod schema;
mod sparse_store;
mod trust;
mod weights;
mod widen;
