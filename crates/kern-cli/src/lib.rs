//! The library part of the `kern` command: what its commands share with other front ends of kern.
//!
//! - [`kinds`]: the model kinds and SVM types the commands name, and how labels become targets;
//! - [`learner_flags`]: the flags that name a learner and set its parameters, one definition for
//!   `kern train`, `kern cv` and `kern-mpi cv`, and their one translation into the learner's
//!   parameters;
//! - [`any_params`]: those parameters, one enum over every learner, and the model a
//!   cross-validation cell trains from them;
//! - [`cv_flags`]: the flags of the cross-validation command and their translation into a grid
//!   search — one definition, used by `kern cv` and by `kern-mpi cv` (crate kern-dist), which
//!   spreads the same (cell, fold) fits over MPI ranks.
//!
//! ```
//! use kern_cli::kinds::{ModelKind, SvmType};
//! assert_eq!(SvmType::NuSvc.model(), ModelKind::NuSvc);
//! ```

// The argument docs are clap's `--help` text, where `[:SEED]` is literal syntax, not a link.
#![allow(rustdoc::broken_intra_doc_links)]

pub mod any_params;
mod auto_flags;
pub use auto_flags::{landmark_lambda_json, resolved_json, width_json};
pub mod cv_flags;
mod grid_kernel;
pub mod kinds;
pub mod learner_flags;

/// The error type of the commands: any error, shown with its chain of causes.
///
/// ```
/// use kern_cli::CliError;
/// // Library errors and plain messages both become one; the message is kept as written.
/// let e: CliError = "no such file".into();
/// assert_eq!(e.to_string(), "no such file");
/// let parsed: Result<f64, CliError> = "x1".parse::<f64>().map_err(CliError::from);
/// assert_eq!(parsed.unwrap_err().to_string(), "invalid float literal");
/// ```
pub type CliError = Box<dyn std::error::Error + Send + Sync>;
