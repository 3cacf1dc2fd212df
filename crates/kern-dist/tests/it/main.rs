//! Integration tests of kern-dist: one test binary, one module per topic.

mod common;
mod compact;
mod landmark;
mod single_process;
mod threads;
