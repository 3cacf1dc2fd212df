//! González & Muñoz (2008), the railway kernel experiments.

use crate::Result;
use crate::registry::{Ctx, Status};

fn not_built() -> Result<Status> {
    Ok(Status::Skipped("not implemented yet (see docs/notes/issue-8.md)".into()))
}

/// Not built yet: reports itself skipped.
pub fn xor(_ctx: &Ctx) -> Result<Status> {
    not_built()
}

/// Not built yet: reports itself skipped.
pub fn two_areas(_ctx: &Ctx) -> Result<Status> {
    not_built()
}

/// Not built yet: reports itself skipped.
pub fn cancer(_ctx: &Ctx) -> Result<Status> {
    not_built()
}

/// Not built yet: reports itself skipped.
pub fn areas(_ctx: &Ctx) -> Result<Status> {
    not_built()
}
