//! Values chosen on the training data, on rows spread over the ranks, as `kern train` chooses them on
//! the whole file: a kernel spec's automatic values (kern-tune's [`AutoKernel`]: the Gaussian width
//! by mean-to-half, maximum variance, Ahn or the median, the support radius of a compactly supported
//! kernel) and the Gaussian width of the ridge models widened with λ by exact leave-one-out
//! (kern-models' `choose_width`).
//!
//! **How.** Both read a bounded set of rows: the pairs of at most 5,000 points
//! ([`AutoKernel::resolution_points`]), the width search at most 1,000 samples
//! ([`search_points`]), a seeded subsample beyond. Those rows (with their labels) are gathered to
//! every rank (one allgather) and the one-process code runs on them alike on every rank, so every
//! rank makes the one-process choice, bit for bit, for any number of ranks.
//!
//! ```
//! use kern_dist::{auto::resolve_kernel, rows::read_part, threads::run_threads, Comm, SingleProcess};
//! use kern_tune::auto::AutoKernel;
//! let p = std::env::temp_dir().join(format!("kern-doc-auto-{}.svm", std::process::id()));
//! let text: String = (0..90).map(|i| format!("{} 1:{}\n", i % 2, (i as f64 * 0.3).sin())).collect();
//! std::fs::write(&p, text).unwrap();
//! let auto = AutoKernel::parse("gaussian:sigma=auto")?.unwrap();
//! let kernel = |c: &dyn Comm| resolve_kernel(c, &read_part(c, &p, &Default::default()).unwrap(), &auto, false, 0).unwrap().kernel;
//! let one = kernel(&SingleProcess);
//! assert!(run_threads(3, &kernel).iter().all(|k| *k == one));
//! # std::fs::remove_file(&p).unwrap();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::comm::{Comm, agree};
use crate::error::Result;
use crate::landmark::{encode_labels, gather_labeled};
use crate::rows::DistRows;
use kern_core::{ClassTargets, KernelSpec};
use kern_models::krr::KernelRidgeParams;
use kern_models::lssvm::LsSvmParams;
use kern_models::ridge::Task;
use kern_models::ridge::width::{WidthChoice, search_points};
use kern_tune::auto::{AutoKernel, Resolved};

/// The rows `idx` of all ranks (`None`: every row, in order) and their labels, on every rank.
fn gathered(
    comm: &dyn Comm,
    rows: &DistRows,
    idx: Option<Vec<usize>>,
) -> Result<(kern_core::Samples, Vec<String>)> {
    let idx = idx.unwrap_or_else(|| (0..rows.n_total).collect());
    gather_labeled(comm, rows, &idx)
}

/// `auto`'s values chosen on the rows spread over the ranks (collective): the kernel and the report
/// of [`AutoKernel::resolve`] on the whole file with `seed`, the same on every rank. `classes`: the
/// labels are classes (they are read only by the Ahn width).
pub fn resolve_kernel(
    comm: &dyn Comm,
    rows: &DistRows,
    auto: &AutoKernel,
    classes: bool,
    seed: u64,
) -> Result<Resolved> {
    let (x, labels) = gathered(comm, rows, AutoKernel::resolution_points(rows.n_total, seed))?;
    let resolved = || -> Result<Resolved> {
        // Ahn reads only whether two points share a class: indices among the gathered labels serve.
        let classes = if classes { Some(ClassTargets::from_labels(&labels)?) } else { None };
        Ok(auto.resolve(&x, classes.as_ref().map(ClassTargets::classes), seed)?)
    };
    agree(comm, resolved())
}

/// The Gaussian `kernel` widened together with λ by exact leave-one-out for the exact model of a
/// landmark model (`lssvm`: the LS-SVM, else kernel ridge), on the rows spread over the ranks
/// (collective): [`kern_models::lssvm::LsSvmParams::choose_width`] (or kernel ridge's) on the whole
/// file with `seed`, the same on every rank. `task`: the task of all the targets (class names agreed
/// over the ranks, `crate::landmark::targets_part`).
pub fn width_search(
    comm: &dyn Comm,
    rows: &DistRows,
    kernel: &KernelSpec,
    lssvm: bool,
    task: &Task,
    seed: u64,
) -> Result<WidthChoice> {
    let idx = agree(comm, search_points(rows.n_total, seed).map_err(Into::into))?;
    let (x, labels) = gathered(comm, rows, idx)?;
    let search = || -> Result<WidthChoice> {
        let y = encode_labels(&labels, task, 0)?;
        Ok(if lssvm {
            LsSvmParams::new(kernel.clone()).choose_width(&x, &y, seed)?
        } else {
            KernelRidgeParams::new(kernel.clone()).choose_width(&x, &y, seed)?
        })
    };
    agree(comm, search())
}
