//! One module per subcommand.

pub mod gram;
pub mod info;
