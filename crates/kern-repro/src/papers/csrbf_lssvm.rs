//! Zhang, Genton & Liu (2004), Table 3 / Fig. 7: LS-SVM with compactly supported kernels and sparse Cholesky.

use crate::Result;
use crate::registry::{Ctx, Status};

fn not_built() -> Result<Status> {
    Ok(Status::Skipped("not implemented yet (see docs/notes/issue-8.md)".into()))
}

/// Not built yet: reports itself skipped.
pub fn lssvm(_ctx: &Ctx) -> Result<Status> {
    not_built()
}
