//! Letchford (2015), Fig. 4: accuracy of the bandwidth heuristics against grid search with cross-validation.

use crate::Result;
use crate::registry::{Ctx, Status};

fn not_built() -> Result<Status> {
    Ok(Status::Skipped("not implemented yet (see docs/notes/issue-8.md)".into()))
}

/// Not built yet: reports itself skipped.
pub fn accuracy(_ctx: &Ctx) -> Result<Status> {
    not_built()
}
