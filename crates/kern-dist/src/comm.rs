//! Communication between ranks: the [`Comm`] trait and the single-process [`SingleProcess`].
//!
//! Every distributed algorithm of this crate talks through [`Comm`] only: a handful of MPI collectives
//! (allreduce, broadcast, gather) and a neighbour exchange. [`SingleProcess`] is the size-1 world
//! (always available); `MpiComm` (feature `mpi`) is the real one, through rsmpi.
//!
//! ```
//! use kern_dist::{threads::run_threads, Comm, SingleProcess};
//! // An algorithm written once against `Comm`: the mean of values spread over the ranks.
//! fn mean(c: &dyn Comm, local: &[f64]) -> f64 {
//!     let mut s = [local.iter().sum(), local.len() as f64];
//!     c.allreduce_sum(&mut s);
//!     s[0] / s[1]
//! }
//! assert_eq!(mean(&SingleProcess, &[1.0, 2.0, 3.0, 6.0]), 3.0);
//! let parts: [&[f64]; 3] = [&[1.0, 2.0], &[3.0], &[6.0]];
//! assert_eq!(run_threads(3, |c| mean(c, parts[c.rank()])), vec![3.0; 3]);
//! ```

use crate::error::{DistError, Result};

/// The collectives the distributed algorithms need. Every rank must call the same collectives in
/// the same order (as in MPI); a rank that skips one makes the others wait.
///
/// ```
/// use kern_dist::{Comm, SingleProcess};
/// let c = SingleProcess;
/// let mut v = [1.0, 2.0];
/// c.allreduce_sum(&mut v);
/// assert_eq!((c.rank(), c.size(), v), (0, 1, [1.0, 2.0]));
/// assert_eq!(c.allreduce_maxloc(3.5, 7), (3.5, 7));
/// ```
pub trait Comm {
    /// This process's rank, `0..size`.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn size(&self) -> usize;
    /// Element-wise sum over ranks, in place, on every rank.
    fn allreduce_sum(&self, v: &mut [f64]);
    /// Element-wise maximum over ranks, in place, on every rank.
    fn allreduce_max_u64(&self, v: &mut [u64]);
    /// Element-wise minimum over ranks, in place, on every rank.
    fn allreduce_min_u64(&self, v: &mut [u64]);
    /// Element-wise maximum over ranks of finite values, in place, on every rank.
    fn allreduce_max_f64(&self, v: &mut [f64]);
    /// `root`'s bytes, on every rank (`data` is ignored on other ranks and replaced).
    fn broadcast_bytes(&self, root: usize, data: &mut Vec<u8>);
    /// Every rank's bytes, in rank order, on `root` (`None` on other ranks).
    fn gather_bytes(&self, root: usize, data: &[u8]) -> Option<Vec<Vec<u8>>>;
    /// Every rank's bytes, in rank order, on every rank.
    fn allgather_bytes(&self, data: &[u8]) -> Vec<Vec<u8>>;
    /// Neighbour exchange: sends `data` to rank `dest` and returns what rank `source` sent to this
    /// rank in the same call (a shift along a ring, as `MPI_Sendrecv`).
    fn exchange_bytes(&self, dest: usize, data: &[u8], source: usize) -> Vec<u8>;

    /// The largest `value` over ranks and the smallest `index` that attains it (MPI's MAXLOC with
    /// ties to the lowest index): two allreduces, max then min. NaN is never the maximum.
    fn allreduce_maxloc(&self, value: f64, index: u64) -> (f64, u64) {
        let mut m = [if value.is_nan() { f64::NEG_INFINITY } else { value }];
        self.allreduce_max_f64(&mut m);
        let mut i = [if value == m[0] { index } else { u64::MAX }];
        self.allreduce_min_u64(&mut i);
        (m[0], i[0])
    }

    /// `x` of every rank, in rank order, on every rank.
    fn allgather_u64(&self, x: u64) -> Vec<u64> {
        self.allgather_bytes(&x.to_le_bytes())
            .iter()
            .map(|b| u64::from_le_bytes(b.as_slice().try_into().unwrap_or([0; 8])))
            .collect()
    }
}

/// The world of one process (size 1): every collective is the identity.
///
/// ```
/// use kern_dist::{Comm, SingleProcess};
/// assert_eq!(SingleProcess.allgather_bytes(b"ab"), vec![b"ab".to_vec()]);
/// assert_eq!(SingleProcess.gather_bytes(0, b"x"), Some(vec![b"x".to_vec()]));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct SingleProcess;

impl Comm for SingleProcess {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn allreduce_sum(&self, _: &mut [f64]) {}
    fn allreduce_max_u64(&self, _: &mut [u64]) {}
    fn allreduce_min_u64(&self, _: &mut [u64]) {}
    fn allreduce_max_f64(&self, _: &mut [f64]) {}
    fn broadcast_bytes(&self, _: usize, _: &mut Vec<u8>) {}
    fn gather_bytes(&self, _: usize, data: &[u8]) -> Option<Vec<Vec<u8>>> {
        Some(vec![data.to_vec()])
    }
    fn allgather_bytes(&self, data: &[u8]) -> Vec<Vec<u8>> {
        vec![data.to_vec()]
    }
    fn exchange_bytes(&self, _: usize, data: &[u8], _: usize) -> Vec<u8> {
        data.to_vec()
    }
}

/// What one rank sent through a [`Counted`] communicator: calls and payload bytes (this rank's
/// contribution to each collective), allreduces apart from the rest.
///
/// ```
/// assert_eq!(kern_dist::comm::Traffic::default().allreduce_bytes, 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Traffic {
    /// Allreduce calls (sum, max, min).
    pub allreduce_calls: u64,
    /// Bytes this rank contributed to allreduces.
    pub allreduce_bytes: u64,
    /// Other collectives (broadcast, gather, allgather, exchange).
    pub other_calls: u64,
    /// Bytes this rank sent in them (the root's for a broadcast).
    pub other_bytes: u64,
}

/// A [`Comm`] that forwards to another and counts what this rank sends ([`Traffic`]): how the bytes
/// per iteration of a distributed solver are measured.
///
/// ```
/// use kern_dist::{comm::Counted, Comm, SingleProcess};
/// let c = Counted::new(&SingleProcess);
/// c.allreduce_sum(&mut [1.0, 2.0, 3.0]);
/// c.allgather_bytes(b"ab");
/// let t = c.traffic();
/// assert_eq!((t.allreduce_calls, t.allreduce_bytes, t.other_calls, t.other_bytes), (1, 24, 1, 2));
/// ```
pub struct Counted<'a> {
    inner: &'a dyn Comm,
    traffic: std::cell::Cell<Traffic>,
}

impl<'a> Counted<'a> {
    /// Counts from zero.
    pub fn new(inner: &'a dyn Comm) -> Self {
        Counted { inner, traffic: Default::default() }
    }
    /// What was sent so far.
    pub fn traffic(&self) -> Traffic {
        self.traffic.get()
    }
    fn reduce(&self, bytes: usize) {
        let mut t = self.traffic.get();
        t.allreduce_calls += 1;
        t.allreduce_bytes += bytes as u64;
        self.traffic.set(t);
    }
    fn other(&self, bytes: usize) {
        let mut t = self.traffic.get();
        t.other_calls += 1;
        t.other_bytes += bytes as u64;
        self.traffic.set(t);
    }
}

impl Comm for Counted<'_> {
    fn rank(&self) -> usize {
        self.inner.rank()
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn allreduce_sum(&self, v: &mut [f64]) {
        self.reduce(8 * v.len());
        self.inner.allreduce_sum(v)
    }
    fn allreduce_max_u64(&self, v: &mut [u64]) {
        self.reduce(8 * v.len());
        self.inner.allreduce_max_u64(v)
    }
    fn allreduce_min_u64(&self, v: &mut [u64]) {
        self.reduce(8 * v.len());
        self.inner.allreduce_min_u64(v)
    }
    fn allreduce_max_f64(&self, v: &mut [f64]) {
        self.reduce(8 * v.len());
        self.inner.allreduce_max_f64(v)
    }
    fn broadcast_bytes(&self, root: usize, data: &mut Vec<u8>) {
        self.other(if self.rank() == root { data.len() } else { 0 });
        self.inner.broadcast_bytes(root, data)
    }
    fn gather_bytes(&self, root: usize, data: &[u8]) -> Option<Vec<Vec<u8>>> {
        self.other(data.len());
        self.inner.gather_bytes(root, data)
    }
    fn allgather_bytes(&self, data: &[u8]) -> Vec<Vec<u8>> {
        self.other(data.len());
        self.inner.allgather_bytes(data)
    }
    fn exchange_bytes(&self, dest: usize, data: &[u8], source: usize) -> Vec<u8> {
        self.other(data.len());
        self.inner.exchange_bytes(dest, data, source)
    }
}

/// Agrees on success: when any rank's `local` is an error, every rank returns
/// [`DistError::RankFailed`] naming the failing rank and its message (one allreduce-min of the
/// failing rank, then one broadcast of its message); otherwise every rank keeps its own value.
///
/// The rank named is the lowest whose error is its own: a rank that only learned, in a collective,
/// that another one failed (kern-models' `ModelsError::OtherPart`) yields to it, so every rank
/// reports the cause. An error that is already agreed ([`DistError::RankFailed`]) keeps its rank
/// and message (no "rank 0 failed: rank 1 failed: …").
///
/// This is how a rank that fails to read its part of a file, or fails a step of a distributed
/// method between two collectives, stops all ranks with the same error instead of leaving them
/// waiting in the next collective.
///
/// ```
/// use kern_dist::{agree, DistError, SingleProcess};
/// assert_eq!(agree(&SingleProcess, Ok::<_, DistError>(3)).unwrap(), 3);
/// let e = agree::<()>(&SingleProcess, Err(DistError::Invalid("bad line".into()))).unwrap_err();
/// assert_eq!(e.to_string(), "rank 0 failed: bad line");
/// let again = agree::<()>(&SingleProcess, Err(e)).unwrap_err();
/// assert_eq!(again.to_string(), "rank 0 failed: bad line");
/// ```
pub fn agree<T>(comm: &dyn Comm, local: Result<T>) -> Result<T> {
    let (rank, size) = (comm.rank() as u64, comm.size() as u64);
    // Own errors first (rank), then errors caused elsewhere (size + rank), then success (2·size).
    let mut first = [match &local {
        Ok(_) => 2 * size,
        Err(DistError::Models(kern_models::ModelsError::OtherPart(_))) => size + rank,
        Err(_) => rank,
    }];
    comm.allreduce_min_u64(&mut first);
    if first[0] == 2 * size {
        return local;
    }
    let root = (first[0] % size) as usize;
    let mut msg = match &local {
        Err(DistError::RankFailed { rank, message }) if comm.rank() == root => {
            let mut w = crate::wire::Writer::default();
            w.u64(*rank as u64).str(message);
            w.0
        }
        Err(e) if comm.rank() == root => {
            let mut w = crate::wire::Writer::default();
            w.u64(root as u64).str(&e.to_string());
            w.0
        }
        _ => Vec::new(),
    };
    comm.broadcast_bytes(root, &mut msg);
    let mut r = crate::wire::Reader(&msg);
    match (r.u64(), r.str()) {
        (Ok(rank), Ok(message)) => Err(DistError::RankFailed { rank: rank as usize, message }),
        _ => Err(DistError::Message(format!("the error of rank {root} did not arrive whole"))),
    }
}

/// Exclusive prefix sums of `x` over ranks (`offset` of this rank) and the total, on every rank.
///
/// ```
/// assert_eq!(kern_dist::comm::offset_and_total(&kern_dist::SingleProcess, 5), (0, 5));
/// ```
pub fn offset_and_total(comm: &dyn Comm, x: u64) -> (u64, u64) {
    let all = comm.allgather_u64(x);
    (all[..comm.rank()].iter().sum(), all.iter().sum())
}
