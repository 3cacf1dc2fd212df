//! One module per subcommand: its flags (clap `Args`) and a `run` that parses them, reads the data,
//! hands the work to a model family (`crate::families`) or does it (the commands that train no
//! model), and returns the JSON summary, with the `"storage"` and `"nnz"` of the data it read.

pub mod cv;
pub mod export;
pub mod fvs;
pub mod gram;
pub mod info;
pub mod kernels;
pub mod kpca;
pub mod predict;
pub mod scale;
pub mod sparse;
pub mod train;
pub mod tune;
