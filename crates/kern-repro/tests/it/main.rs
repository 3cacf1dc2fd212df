//! Integration tests of kern-repro: one test binary, one module per topic.

mod figures;
mod items;
mod mnist;
