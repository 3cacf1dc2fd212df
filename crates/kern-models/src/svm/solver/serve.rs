//! The second worker of a solver loop whose every iteration splits its work in two (the compact
//! kernel's tree steps, decision 0008): it polls for the parts while they come, and blocks when
//! they stop coming.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a serving worker polls without finding a part before it leaves and lets the pool put it
/// to sleep: 100 µs, about one iteration of the tree steps at n = 1,000,000 (1,038,308 iterations
/// in 85–115 s). A quiet machine's gaps between parts are shorter, so the worker stays; when the
/// loop's thread is descheduled (a loaded machine) or between the solver's rare long serial steps,
/// the worker blocks instead of holding a core.
pub(super) const POLL_FOR: Duration = Duration::from_micros(100);

/// Whether a worker is serving, and whether the loop has ended.
pub(super) struct Server {
    serving: AtomicBool,
    done: AtomicBool,
    /// The pool index of the loop's thread, which must never serve (it would poll instead of
    /// iterating): a spawned job waits in that thread's queue, where the thread's own joins can
    /// find it.
    loop_thread: AtomicUsize,
}

/// No pool thread has this index.
const NO_THREAD: usize = usize::MAX;

impl Server {
    /// A server with no loop yet.
    pub(super) fn new() -> Self {
        Server {
            serving: AtomicBool::new(false),
            done: AtomicBool::new(false),
            loop_thread: NO_THREAD.into(),
        }
    }

    /// Records that the loop runs on this thread (a worker of the pool, inside the loop's scope).
    pub(super) fn loop_on_this_thread(&self) {
        self.loop_thread.store(rayon::current_thread_index().unwrap_or(NO_THREAD), Ordering::Release);
    }

    /// Puts a worker of `scope` on serving unless one already is: called by the loop once per
    /// iteration (one atomic load when a worker serves).
    pub(super) fn ensure<'s>(&'s self, scope: &rayon::Scope<'s>) {
        if !self.serving.load(Ordering::Acquire) && !self.serving.swap(true, Ordering::AcqRel) {
            scope.spawn(move |_| self.serve());
        }
    }

    /// Runs the pool's jobs (the parts of the loop's splits) as they come, polling between them, until
    /// the loop ends or [`POLL_FOR`] passes without one. The worker then returns to the pool, whose
    /// idle workers spin briefly and sleep until a job wakes them; the loop puts one back on serving
    /// at its next iteration.
    fn serve(&self) {
        if rayon::current_thread_index() == Some(self.loop_thread.load(Ordering::Acquire)) {
            // The loop's own thread took the job while it waited in a join: hand serving back.
            self.serving.store(false, Ordering::Release);
            return;
        }
        let mut last = Instant::now();
        while !self.done.load(Ordering::Acquire) {
            if rayon::yield_now() == Some(rayon::Yield::Executed) {
                last = Instant::now();
            } else if last.elapsed() >= POLL_FOR {
                break;
            } else {
                std::hint::spin_loop();
            }
        }
        self.serving.store(false, Ordering::Release);
    }

    /// Ends the serving when dropped, however the loop ends (return or unwinding): the scope waits
    /// for a serving worker before it returns or passes a panic on.
    pub(super) fn stop_on_drop(&self) -> impl Drop + '_ {
        Stop(&self.done)
    }
}

/// Sets its flag when dropped.
struct Stop<'a>(&'a AtomicBool);

impl Drop for Stop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A serving worker runs the halves of the loop's joins while they come, and leaves once they
    /// stop (here: the loop's thread sleeps) instead of polling until the loop ends; the loop's next
    /// iteration puts a worker back on serving.
    #[test]
    fn a_worker_serves_while_parts_come_and_leaves_when_they_stop() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        pool.install(|| {
            let server = Server::new();
            rayon::scope(|s| {
                server.loop_on_this_thread();
                let _stop = server.stop_on_drop();
                let me = rayon::current_thread_index();
                let start = Instant::now();
                loop {
                    server.ensure(s);
                    let (_, other) = rayon::join(
                        || std::hint::black_box((0..200u64).sum::<u64>()),
                        rayon::current_thread_index,
                    );
                    if other != me {
                        break;
                    }
                    assert!(start.elapsed() < Duration::from_secs(10), "no half ran on the other worker");
                }
                let left = |server: &Server| {
                    let start = Instant::now();
                    while server.serving.load(Ordering::Acquire) {
                        assert!(start.elapsed() < Duration::from_secs(10), "the worker kept polling");
                        std::thread::sleep(Duration::from_millis(1));
                    }
                };
                left(&server);
                server.ensure(s);
                assert!(server.serving.load(Ordering::Acquire));
                left(&server);
            });
        });
    }
}
