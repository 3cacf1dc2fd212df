//! One module per source paper.

pub mod csrbf;
pub mod letchford;
