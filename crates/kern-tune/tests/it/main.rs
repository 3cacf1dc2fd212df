//! Integration tests of kern-tune: one test binary, one module per topic.

mod auto;
mod bandwidth;
mod cv;
mod progress;
mod support;
