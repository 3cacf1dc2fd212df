//! Baudat & Anouar: feature vector selection and kernel function approximation experiments.

use crate::Result;
use crate::registry::{Ctx, Status};

fn not_built() -> Result<Status> {
    Ok(Status::Skipped("not implemented yet (see docs/notes/issue-8.md)".into()))
}

/// Not built yet: reports itself skipped.
pub fn circles(_ctx: &Ctx) -> Result<Status> {
    not_built()
}

/// Not built yet: reports itself skipped.
pub fn gaussians(_ctx: &Ctx) -> Result<Status> {
    not_built()
}

/// Not built yet: reports itself skipped.
pub fn clusters(_ctx: &Ctx) -> Result<Status> {
    not_built()
}

/// Not built yet: reports itself skipped.
pub fn heart(_ctx: &Ctx) -> Result<Status> {
    not_built()
}

/// Not built yet: reports itself skipped.
pub fn sinc(_ctx: &Ctx) -> Result<Status> {
    not_built()
}

/// Not built yet: reports itself skipped.
pub fn vs_random(_ctx: &Ctx) -> Result<Status> {
    not_built()
}
