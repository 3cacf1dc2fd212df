//! # kern-repro
//!
//! Reproduction of the five source papers (layer 5 of 5, see `docs/architecture.md`): seeded dataset
//! generators and real-data loaders ([`datasets`]), the experiments of each paper (internal, run through
//! the experiment [`registry`]), and the writers of `results/<paper>/<id>.{json,md,svg}` and
//! `results/REPORT.md` ([`report`]). `cargo xtask repro` runs the `kern-repro` binary.
//!
//! ```
//! let ids: Vec<&str> = kern_repro::registry::all().iter().map(|e| e.id).collect();
//! assert!(ids.contains(&"csrbf-kernels"));
//! ```

pub mod datasets;
mod error;
pub mod figures;
pub mod items;
pub mod mnist;
mod papers;
pub mod registry;
pub mod report;
pub mod tuning;

pub use error::{ReproError, Result};

/// The workspace README's library example, compiled and run as a doctest (here, in the unpublished
/// crate, because the file lies outside every published crate).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct WorkspaceReadmeDoctests;
