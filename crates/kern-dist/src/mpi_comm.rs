//! [`MpiComm`]: the [`Comm`] trait over MPI through rsmpi (feature `mpi`).

use crate::comm::Comm;
use mpi::Count;
use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// MPI's world communicator. Initializes MPI on [`MpiComm::init`] and finalizes it when dropped.
///
/// ```no_run
/// use kern_dist::{Comm, MpiComm};
/// let world = MpiComm::init().expect("MPI initialized once");
/// let mut v = [world.rank() as f64];
/// world.allreduce_sum(&mut v); // 0 + 1 + ... + (P-1)
/// ```
pub struct MpiComm {
    world: SimpleCommunicator,
    _universe: mpi::environment::Universe,
}

impl MpiComm {
    /// Initializes MPI; `None` when it was initialized before in this process.
    pub fn init() -> Option<MpiComm> {
        let universe = mpi::initialize()?;
        Some(MpiComm { world: universe.world(), _universe: universe })
    }

    fn counts(&self, len: usize) -> Vec<Count> {
        let mut counts = vec![0 as Count; self.size()];
        self.world.all_gather_into(&(len as Count), &mut counts[..]);
        counts
    }
}

/// A send buffer whose address is real: an empty slice's dangling address is `0x1`, which OpenMPI
/// reads as `MPI_IN_PLACE`.
static EMPTY: [u8; 1] = [0];

fn send_buf(data: &[u8]) -> &[u8] {
    if data.is_empty() { &EMPTY[..0] } else { data }
}

/// A receive buffer of `len` bytes, allocated (at least one byte) so its address is real.
fn recv_buf(len: usize) -> Vec<u8> {
    vec![0u8; len.max(1)]
}

fn displacements(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0 as Count, |acc, &c| {
            let d = *acc;
            *acc += c;
            Some(d)
        })
        .collect()
}

fn split(buf: &[u8], counts: &[Count]) -> Vec<Vec<u8>> {
    let mut out = Vec::with_capacity(counts.len());
    let mut at = 0usize;
    for &c in counts {
        out.push(buf[at..at + c as usize].to_vec());
        at += c as usize;
    }
    out
}

impl Comm for MpiComm {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }
    fn size(&self) -> usize {
        self.world.size() as usize
    }
    fn allreduce_sum(&self, v: &mut [f64]) {
        let send = v.to_vec();
        self.world.all_reduce_into(&send[..], v, SystemOperation::sum());
    }
    fn allreduce_max_u64(&self, v: &mut [u64]) {
        let send = v.to_vec();
        self.world.all_reduce_into(&send[..], v, SystemOperation::max());
    }
    fn allreduce_min_u64(&self, v: &mut [u64]) {
        let send = v.to_vec();
        self.world.all_reduce_into(&send[..], v, SystemOperation::min());
    }
    fn allreduce_max_f64(&self, v: &mut [f64]) {
        let send = v.to_vec();
        self.world.all_reduce_into(&send[..], v, SystemOperation::max());
    }
    fn broadcast_bytes(&self, root: usize, data: &mut Vec<u8>) {
        let root = self.world.process_at_rank(root as i32);
        let mut len = data.len() as u64;
        root.broadcast_into(&mut len);
        data.resize(len as usize, 0);
        if len > 0 {
            root.broadcast_into(&mut data[..]);
        }
    }
    fn gather_bytes(&self, root: usize, data: &[u8]) -> Option<Vec<Vec<u8>>> {
        let counts = self.counts(data.len());
        let r = self.world.process_at_rank(root as i32);
        if self.rank() == root {
            let displs = displacements(&counts);
            let total: usize = counts.iter().map(|&c| c as usize).sum();
            let mut buf = recv_buf(total);
            {
                let mut part = PartitionMut::new(&mut buf[..total], &counts[..], &displs[..]);
                r.gather_varcount_into_root(send_buf(data), &mut part);
            }
            Some(split(&buf, &counts))
        } else {
            r.gather_varcount_into(send_buf(data));
            None
        }
    }
    fn allgather_bytes(&self, data: &[u8]) -> Vec<Vec<u8>> {
        let counts = self.counts(data.len());
        let displs = displacements(&counts);
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        let mut buf = recv_buf(total);
        {
            let mut part = PartitionMut::new(&mut buf[..total], &counts[..], &displs[..]);
            self.world.all_gather_varcount_into(send_buf(data), &mut part);
        }
        split(&buf, &counts)
    }
    fn exchange_bytes(&self, dest: usize, data: &[u8], source: usize) -> Vec<u8> {
        let (d, s) = (self.world.process_at_rank(dest as i32), self.world.process_at_rank(source as i32));
        let mut len = 0u64;
        mpi::point_to_point::send_receive_into(&(data.len() as u64), &d, &mut len, &s);
        let mut buf = recv_buf(len as usize);
        mpi::point_to_point::send_receive_into(send_buf(data), &d, &mut buf[..len as usize], &s);
        buf.truncate(len as usize);
        buf
    }
}
