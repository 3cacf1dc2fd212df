//! Progress of long SVM trainings: an observer (installed once, e.g. by the `kern` command) that the
//! solvers call about once a second with the iterations done, the current KKT violation and the time
//! spent. Nothing is computed or printed when no observer is installed.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// One progress report of a running solver.
///
/// ```
/// use kern_models::svm::SolverProgress;
/// let p = SolverProgress { iterations: 10, violation: 0.5, elapsed: std::time::Duration::ZERO, variables: 4 };
/// assert_eq!(p.iterations, 10);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverProgress {
    /// SMO iterations so far (pairs updated, inside blocks for the blocked solver).
    pub iterations: u64,
    /// The current maximal KKT violation `m(α) − M(α)` (training stops below the tolerance).
    pub violation: f64,
    /// Time since the solver started.
    pub elapsed: Duration,
    /// Variables of the dual problem.
    pub variables: usize,
}

/// A progress observer.
///
/// ```
/// use kern_models::svm::{ProgressObserver, SolverProgress};
/// use std::sync::{Arc, atomic::{AtomicU64, Ordering}};
/// let seen = Arc::new(AtomicU64::new(0));
/// let s = seen.clone();
/// let observer: ProgressObserver = Arc::new(move |p: &SolverProgress| s.store(p.iterations, Ordering::Relaxed));
/// observer(&SolverProgress { iterations: 42, violation: 0.1, elapsed: std::time::Duration::ZERO, variables: 8 });
/// assert_eq!(seen.load(Ordering::Relaxed), 42);
/// ```
pub type ProgressObserver = Arc<dyn Fn(&SolverProgress) + Send + Sync>;

static OBSERVER: RwLock<Option<ProgressObserver>> = RwLock::new(None);

/// Installs (or, with `None`, removes) the observer every SVM solver reports to, about once a second
/// once a training has run for a second (solvers of concurrent fits all report to it).
///
/// ```
/// use kern_models::svm::{observe_progress, SolverProgress};
/// observe_progress(Some(std::sync::Arc::new(|p: &SolverProgress| eprintln!("{} iterations", p.iterations))));
/// observe_progress(None);
/// ```
pub fn observe_progress(observer: Option<ProgressObserver>) {
    *OBSERVER.write().unwrap_or_else(|e| e.into_inner()) = observer;
}

/// The solver side: reports at most once per [`Ticker::PERIOD`].
pub(crate) struct Ticker {
    observer: Option<ProgressObserver>,
    start: Instant,
    last: Instant,
    variables: usize,
}

impl Ticker {
    const PERIOD: Duration = Duration::from_secs(1);

    /// A ticker for a solver of `variables` variables; silent when `report` is false (inner solves).
    pub(crate) fn new(report: bool, variables: usize) -> Self {
        let observer = if report { OBSERVER.read().unwrap_or_else(|e| e.into_inner()).clone() } else { None };
        let now = Instant::now();
        Ticker { observer, start: now, last: now, variables }
    }

    /// Whether an observer listens (callers skip the clock otherwise).
    #[inline]
    pub(crate) fn active(&self) -> bool {
        self.observer.is_some()
    }

    /// Reports when a period has passed; `violation` is computed only then.
    pub(crate) fn tick(&mut self, iterations: u64, violation: impl FnOnce() -> f64) {
        let Some(obs) = &self.observer else { return };
        let now = Instant::now();
        if now.duration_since(self.last) < Self::PERIOD {
            return;
        }
        self.last = now;
        obs(&SolverProgress {
            iterations,
            violation: violation(),
            elapsed: now.duration_since(self.start),
            variables: self.variables,
        });
    }
}
