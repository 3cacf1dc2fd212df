//! One module per subcommand.

pub mod fvs;
pub mod gram;
pub mod info;
pub mod predict;
pub mod sparse;
pub mod train;
pub mod tune;
