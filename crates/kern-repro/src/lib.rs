//! # kern-repro
//!
//! Reproduction of the five source papers: dataset generators and loaders, the experiment registry, tables and figures.
//!
//! Layer: 5 of 5, the top library layer (see `docs/architecture.md`). This crate is being built; see the open issue for its scope.
