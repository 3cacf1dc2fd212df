//! Integration tests of kern-sparse: one test binary, one module per topic.

mod cholesky;
mod common;
mod expansion;
mod gram;
mod neighbors;
mod nested_dissection;
mod ordering;
mod pcg;
mod sparse_columns;
