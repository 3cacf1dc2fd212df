//! One module per source paper (large experiments in their own module).

pub mod csrbf;
pub mod csrbf_lssvm;
pub mod fvs;
pub mod landmarks;
pub mod letchford;
pub mod letchford_accuracy;
pub mod railway;
pub mod rkhs;
mod versus_random;
