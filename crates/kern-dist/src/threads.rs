//! An in-process world of `P` ranks: one thread per rank, collectives through shared memory (a
//! mutex, a condition variable and one slot per rank; no networking). It makes every distributed
//! method's agreement for `P > 1` checkable by `cargo test` without MPI.
//!
//! Every collective is an allgather of byte messages (each rank deposits its message; the last to
//! arrive publishes all of them and wakes the others), from which the others are derived: sums add
//! the ranks' values in rank order, a broadcast takes the root's message, a neighbour exchange the
//! source's. If a rank panics, the others stop waiting and panic too, so a failing test fails
//! instead of hanging.
//!
//! ```
//! use kern_dist::{threads::run_threads, Comm};
//! // Four ranks as threads: rank 2 broadcasts its bytes, and every rank gathers everyone's rank.
//! let got = run_threads(4, |c| {
//!     let mut msg = vec![c.rank() as u8; 2];
//!     c.broadcast_bytes(2, &mut msg);
//!     (c.size(), msg, c.allgather_u64(c.rank() as u64))
//! });
//! assert!(got.iter().all(|g| *g == (4, vec![2, 2], vec![0, 1, 2, 3])));
//! ```

use crate::comm::Comm;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

struct State {
    slots: Vec<Option<Vec<u8>>>,
    arrived: usize,
    generation: u64,
    published: Arc<Vec<Vec<u8>>>,
    failed: bool,
}

struct Shared {
    size: usize,
    state: Mutex<State>,
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One rank of an in-process world ([`run_threads`]).
///
/// ```
/// use kern_dist::{Comm, threads::run_threads};
/// let sums = run_threads(3, |c| {
///     let mut v = [c.rank() as f64];
///     c.allreduce_sum(&mut v);
///     v[0]
/// });
/// assert_eq!(sums, vec![3.0, 3.0, 3.0]);
/// ```
pub struct ThreadComm<'a> {
    rank: usize,
    shared: &'a Shared,
}

/// Runs `f` on `size` ranks, one thread each, and returns their results in rank order. A panic on
/// any rank is raised again here (after every rank has stopped).
///
/// ```
/// use kern_dist::{Comm, threads::run_threads};
/// let got = run_threads(4, |c| c.exchange_bytes((c.rank() + 1) % 4, &[c.rank() as u8], (c.rank() + 3) % 4));
/// assert_eq!(got, vec![vec![3], vec![0], vec![1], vec![2]]);
/// ```
pub fn run_threads<T: Send>(size: usize, f: impl Fn(&dyn Comm) -> T + Sync) -> Vec<T> {
    let size = size.max(1);
    let shared = Shared {
        size,
        state: Mutex::new(State {
            slots: vec![None; size],
            arrived: 0,
            generation: 0,
            published: Arc::new(Vec::new()),
            failed: false,
        }),
        wake: Condvar::new(),
    };
    let results: Vec<std::thread::Result<T>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..size)
            .map(|rank| {
                let (shared, f) = (&shared, &f);
                s.spawn(move || {
                    let comm = ThreadComm { rank, shared };
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&comm)));
                    if r.is_err() {
                        shared.lock().failed = true;
                        shared.wake.notify_all();
                    }
                    r
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(Err)).collect()
    });
    results.into_iter().map(|r| r.unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
}

impl ThreadComm<'_> {
    /// Every rank's message, in rank order (the one primitive).
    fn all(&self, data: &[u8]) -> Arc<Vec<Vec<u8>>> {
        let sh = self.shared;
        let mut st = sh.lock();
        assert!(!st.failed, "another rank failed");
        st.slots[self.rank] = Some(data.to_vec());
        st.arrived += 1;
        if st.arrived == sh.size {
            st.published = Arc::new(st.slots.iter_mut().map(|s| s.take().unwrap_or_default()).collect());
            st.arrived = 0;
            st.generation += 1;
            sh.wake.notify_all();
            return Arc::clone(&st.published);
        }
        let generation = st.generation;
        while st.generation == generation && !st.failed {
            st = sh.wake.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        assert!(st.generation != generation, "another rank failed");
        Arc::clone(&st.published)
    }

    fn reduce<T: Copy, const N: usize>(
        &self,
        v: &mut [T],
        to: impl Fn(T) -> [u8; N],
        from: impl Fn([u8; N]) -> T,
        op: impl Fn(T, T) -> T,
    ) {
        let msg: Vec<u8> = v.iter().flat_map(|&x| to(x)).collect();
        let all = self.all(&msg);
        for (k, x) in v.iter_mut().enumerate() {
            let value = |m: &Vec<u8>| from(m[k * N..(k + 1) * N].try_into().unwrap_or([0; N]));
            *x = all.iter().skip(1).fold(value(&all[0]), |acc, m| op(acc, value(m)));
        }
    }
}

impl Comm for ThreadComm<'_> {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.shared.size
    }
    fn allreduce_sum(&self, v: &mut [f64]) {
        self.reduce(v, f64::to_le_bytes, f64::from_le_bytes, |a, b| a + b);
    }
    fn allreduce_max_u64(&self, v: &mut [u64]) {
        self.reduce(v, u64::to_le_bytes, u64::from_le_bytes, u64::max);
    }
    fn allreduce_min_u64(&self, v: &mut [u64]) {
        self.reduce(v, u64::to_le_bytes, u64::from_le_bytes, u64::min);
    }
    fn allreduce_max_f64(&self, v: &mut [f64]) {
        self.reduce(v, f64::to_le_bytes, f64::from_le_bytes, f64::max);
    }
    fn broadcast_bytes(&self, root: usize, data: &mut Vec<u8>) {
        let all = self.all(data);
        *data = all.get(root).cloned().unwrap_or_default();
    }
    fn gather_bytes(&self, root: usize, data: &[u8]) -> Option<Vec<Vec<u8>>> {
        let all = self.all(data);
        (self.rank == root).then(|| all.to_vec())
    }
    fn allgather_bytes(&self, data: &[u8]) -> Vec<Vec<u8>> {
        self.all(data).to_vec()
    }
    fn exchange_bytes(&self, dest: usize, data: &[u8], source: usize) -> Vec<u8> {
        let mut msg = (dest as u64).to_le_bytes().to_vec();
        msg.extend_from_slice(data);
        let all = self.all(&msg);
        match all.get(source) {
            // What `source` sent, if it sent it to this rank (as MPI_Sendrecv pairs them).
            Some(m) if m.len() >= 8 && m[..8] == (self.rank as u64).to_le_bytes() => m[8..].to_vec(),
            _ => panic!("rank {source} did not send to rank {} in this exchange", self.rank),
        }
    }
}
