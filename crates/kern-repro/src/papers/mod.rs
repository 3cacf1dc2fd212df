//! One module per source paper.

pub mod csrbf;
