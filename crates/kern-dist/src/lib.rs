//! # kern-dist
//!
//! kern on MPI: data files read in row parts (memory `O(n/P)` per rank), Nyström / FVS kernel ridge and
//! LS-SVM on rows spread over ranks (one allreduce of `m` numbers per iteration), their λ by exact
//! leave-one-out and their kernel's automatic values chosen as on one process, grid search with
//! cross-validation spread over ranks, and batch prediction of any saved model over a file read in
//! parts, with outputs in input order. Every method gives the same result as one process.
//!
//! Layer: above kern-models. All communication goes through the small [`Comm`] trait: the
//! single-process [`SingleProcess`] (always built) and `MpiComm` (cargo feature `mpi`, rsmpi over an
//! MPI-3 library such as OpenMPI 4.1), and [`threads::run_threads`], `P` ranks as threads of one process
//! (no networking) for tests. The command `kern-mpi` runs them (`mpirun -np P kern-mpi ...`).
//!
//! ```
//! use kern_dist::{Comm, SingleProcess, rows::read_part};
//! let p = std::env::temp_dir().join("kern-doc-lib.svm");
//! std::fs::write(&p, "1 1:1\n-1 2:1\n1 1:2\n").unwrap();
//! let part = read_part(&SingleProcess, &p, &Default::default())?;
//! assert_eq!((part.n_total, part.d), (3, 2));
//! # std::fs::remove_file(&p).unwrap();
//! # Ok::<(), kern_dist::DistError>(())
//! ```

pub mod auto;
pub mod comm;
pub mod compact;
mod csvpart;
mod error;
pub mod fvs;
pub mod grid;
pub mod landmark;
#[cfg(feature = "mpi")]
mod mpi_comm;
pub mod predict;
pub mod rows;
pub mod split;
pub mod threads;
mod wire;

pub use comm::{Comm, SingleProcess, agree};
pub use error::{DistError, Result};
#[cfg(feature = "mpi")]
pub use mpi_comm::MpiComm;
