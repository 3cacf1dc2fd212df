//! Integration tests of kern-core: one test binary, one module per topic.

mod csv_rfc4180;
mod csv_schema;
mod files;
mod gram_properties;
mod pairwise_kernels;
mod sparse_store;
mod trust;
mod write_safety;
