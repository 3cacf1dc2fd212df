//! Greedy feature vector selection (Baudat & Anouar, eqs. 3–8) over a pool of rows spread over the
//! ranks: kern-models' own selection ([`kern_models::fvs::select_part`]) with the collectives of a
//! [`Comm`].
//!
//! **What each rank does.** The pool (sorted global row indices) is cut into blocks of
//! [`PART_ROWS`] positions and rank `p` holds the blocks `⌊B·p/P⌋ .. ⌊B·(p+1)/P⌋` (`B` blocks); its
//! rows are sent to it once ([`pool_part`], `P − 1` ring shifts). Each step, every rank scores the
//! candidates on its own rows (the residual kernel `R(i, c)` of its rows, summed per block), the
//! worst-represented sample is found by one allreduce-maxloc ([`Comm::allreduce_maxloc`]; ties to
//! the lowest global index, as the one-process scan), the chosen sample's row and row of the
//! incomplete Cholesky factor reach every rank in one allgather of the candidates, and every rank
//! updates its own rows' residuals and column of the factor from it. The blocks' sums are added in
//! block order, so the selection is the one-process selection for any number of ranks. Memory per
//! rank: `pool/P` rows and their `pool/P × M` factor rows.
//!
//! ```
//! use kern_dist::{fvs::select_on_pool, rows::read_part, threads::run_threads, Comm, SingleProcess};
//! use kern_models::fvs::{FvsParams, Strategy};
//! let p = std::env::temp_dir().join(format!("kern-doc-fvs-mod-{}.svm", std::process::id()));
//! std::fs::write(&p, (0..50).map(|i| format!("1 1:{} 2:{}\n", (i as f64).sin(), (i as f64 * 0.3).cos())).collect::<String>()).unwrap();
//! let (pool, k): (Vec<usize>, kern_core::KernelSpec) = ((0..50).step_by(2).collect(), "gaussian:sigma=0.5".parse()?);
//! let params = FvsParams { strategy: Strategy::Sampled { candidates: 6, seed: 2 }, ..Default::default() };
//! let select = |c: &dyn Comm| select_on_pool(c, &read_part(c, &p, &Default::default()).unwrap(), &pool, &k, 5, &params).unwrap().0;
//! // Three ranks, each scoring its share of the pool, select the one-process feature vectors.
//! let one = select(&SingleProcess);
//! assert!(one.len() == 5 && one.iter().all(|i| pool.contains(i)));
//! assert!(run_threads(3, &select).iter().all(|s| *s == one));
//! # std::fs::remove_file(&p).unwrap();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::comm::{Comm, agree};
use crate::error::{DistError, Result};
use crate::landmark::{Row, build_samples, read_row, write_row};
use crate::rows::DistRows;
use crate::wire::{Reader, Writer};
use kern_core::{KernelSpec, Samples};
use kern_models::fvs::{Fvs, FvsParams, FvsParts, PART_ROWS, select_part};

/// A [`Comm`] seen as the parts of a spread selection ([`FvsParts`]): part `p` is rank `p`; `d` is
/// the samples' dimension (the rows gathered to a rank that holds none have it).
///
/// ```
/// use kern_dist::{fvs::CommParts, SingleProcess};
/// use kern_models::fvs::FvsParts;
/// let parts = CommParts { comm: &SingleProcess, d: 2 };
/// assert_eq!(parts.maxloc(2.5, 4), (2.5, 4));
/// assert_eq!(parts.allgather_f64(&[1.0]), vec![vec![1.0]]);
/// ```
pub struct CommParts<'a> {
    /// The ranks.
    pub comm: &'a dyn Comm,
    /// The samples' dimension.
    pub d: usize,
}

const NONE: u64 = 0;
const DENSE: u64 = 1;
const SPARSE: u64 = 2;

impl FvsParts for CommParts<'_> {
    fn part(&self) -> usize {
        self.comm.rank()
    }

    fn allgather_f64(&self, v: &[f64]) -> Vec<Vec<f64>> {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.comm
            .allgather_bytes(&bytes)
            .iter()
            .map(|b| b.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect())
            .collect()
    }

    fn maxloc(&self, value: f64, index: usize) -> (f64, usize) {
        let (v, i) = self.comm.allreduce_maxloc(value, index as u64);
        (v, usize::try_from(i).unwrap_or(usize::MAX))
    }

    fn allgather_rows(&self, x: Option<&Samples>, rows: &[usize]) -> kern_models::Result<Option<Samples>> {
        let mut w = Writer::default();
        match x {
            Some(x) if !rows.is_empty() => {
                w.u64(if x.is_sparse() { SPARSE } else { DENSE });
                for &i in rows {
                    write_row(&mut w, x.sample(i));
                }
            }
            _ => {
                w.u64(NONE);
            }
        }
        let decode = || -> Result<Option<Samples>> {
            let (mut got, mut sparse) = (Vec::new(), None);
            for msg in self.comm.allgather_bytes(&w.0) {
                let mut r = Reader(&msg);
                let tag = r.u64()?;
                if tag == NONE {
                    continue;
                }
                sparse = Some(tag == SPARSE);
                while !r.is_empty() {
                    let row = read_row(&mut r, tag == SPARSE)?;
                    got.push(row);
                }
            }
            match sparse {
                None => Ok(None),
                Some(sp) => Ok(Some(build_samples(got, self.d, sp)?)),
            }
        };
        decode().map_err(|e| kern_models::ModelsError::Input(e.to_string()))
    }
}

/// This rank's share of the FVS pool `pool` (sorted global row indices): the rows at the pool
/// positions of its blocks of [`PART_ROWS`] (module docs), sent by the ranks that read them (`P − 1`
/// ring shifts), and the position of its first row. `None` when the rank holds no block. Collective;
/// an error on one rank (a message that does not decode) is returned after every shift, so the
/// caller can [`agree`] on it.
///
/// ```
/// use kern_dist::{fvs::pool_part, rows::read_part, SingleProcess};
/// let p = std::env::temp_dir().join("kern-doc-pool-part.svm");
/// std::fs::write(&p, "1 1:1\n1 1:2\n-1 1:3\n-1 1:4\n").unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// let (x, first) = pool_part(&SingleProcess, &part, &[1, 3])?;
/// assert_eq!((x.unwrap(), first), (part.samples.unwrap().select(&[1, 3])?, 0));
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_dist::DistError>(())
/// ```
pub fn pool_part(comm: &dyn Comm, rows: &DistRows, pool: &[usize]) -> Result<(Option<Samples>, usize)> {
    let (p, size, pt) = (comm.rank(), comm.size(), pool.len());
    if pool.windows(2).any(|w| w[0] >= w[1]) {
        return Err(DistError::Invalid("the FVS pool must be sorted and without repeats".into()));
    }
    let blocks = pt.div_ceil(PART_ROWS);
    let first = |q: usize| (PART_ROWS * (blocks * q / size)).min(pt);
    let (lo, hi) = (first(p), first(p + 1));
    // The pool positions of the rows this rank read.
    let (g0, g1) = (rows.row_offset, rows.row_offset + rows.n_local());
    let (q0, q1) = (pool.partition_point(|&g| g < g0), pool.partition_point(|&g| g < g1));
    let sparse = crate::compact::agreed_sparse(comm, rows);
    let mut slots: Vec<Option<Row>> = vec![None; hi - lo];
    // A local failure is kept, and this rank still takes part in every shift (sending what it has),
    // so that the caller can agree on it ([`agree`]) instead of leaving the others waiting.
    let mut failure: Option<DistError> = None;
    let own = |q: usize| -> Result<Row> {
        let x =
            rows.samples.as_ref().ok_or_else(|| DistError::Message("pool rows without samples".into()))?;
        Ok(match x.sample(pool[q] - g0) {
            kern_core::SampleRef::Dense(v) => (Vec::new(), v.to_vec()),
            kern_core::SampleRef::Sparse { indices, values } => (indices.to_vec(), values.to_vec()),
        })
    };
    for q in q0.max(lo)..q1.min(hi).max(q0.max(lo)) {
        match own(q) {
            Ok(row) => slots[q - lo] = Some(row),
            Err(e) => {
                failure.get_or_insert(e);
            }
        }
    }
    for delta in 1..size {
        let to = (p + delta) % size;
        let mut msg = Writer::default();
        let a = q0.max(first(to));
        if let Some(x) = rows.samples.as_ref() {
            for (q, &g) in pool.iter().enumerate().take(q1.min(first(to + 1)).max(a)).skip(a) {
                msg.u64(q as u64);
                write_row(&mut msg, x.sample(g - g0));
            }
        } else if q1.min(first(to + 1)) > a {
            failure.get_or_insert(DistError::Message("pool rows without samples".into()));
        }
        let back = comm.exchange_bytes(to, &msg.0, (p + size - delta) % size);
        let mut r = Reader(&back);
        let mut receive = || -> Result<()> {
            while !r.is_empty() {
                let q = r.u64()? as usize;
                let row = read_row(&mut r, sparse)?;
                match q.checked_sub(lo).and_then(|s| slots.get_mut(s)) {
                    Some(slot @ None) => *slot = Some(row),
                    _ => {
                        return Err(DistError::Message(format!(
                            "pool position {q} sent twice or to the wrong rank"
                        )));
                    }
                }
            }
            Ok(())
        };
        if let Err(e) = receive() {
            failure.get_or_insert(e);
        }
    }
    if let Some(e) = failure {
        return Err(e);
    }
    if let Some(s) = slots.iter().position(Option::is_none) {
        return Err(DistError::Invalid(format!(
            "row {} is not in the file ({} rows)",
            pool[lo + s],
            rows.n_total
        )));
    }
    let got: Vec<Row> = slots.into_iter().flatten().collect();
    let x = if got.is_empty() { None } else { Some(build_samples(got, rows.d, sparse)?) };
    Ok((x, lo))
}

/// Feature vector selection of at most `m` samples among the pool `pool` (sorted global row
/// indices) of rows read in parts, spread over the ranks (module docs): the same selection on every
/// rank, and the same as [`kern_models::landmark::fvs_on_pool`] on the whole file — the selected
/// pool positions mapped to global row indices, in selection order. `params.max_fv` is replaced by
/// `m` (at most the pool). The exact strategy (`n × n` kernel products per step) needs the whole
/// pool on one rank: refused here, see [`kern_models::fvs::Strategy::resolve`]. Collective.
///
/// ```
/// use kern_dist::{fvs::select_on_pool, rows::read_part, SingleProcess};
/// use kern_models::fvs::{FvsParams, Strategy};
/// use kern_models::landmark::fvs_on_pool;
/// let p = std::env::temp_dir().join("kern-doc-select-on-pool.svm");
/// let text: String = (0..50).map(|i| format!("1 1:{} 2:{}\n", (i as f64).sin(), (i as f64 * 0.3).cos())).collect();
/// std::fs::write(&p, text).unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// let pool: Vec<usize> = (0..50).step_by(2).collect();
/// let k = "gaussian:sigma=0.5".parse()?;
/// let s = Strategy::Sampled { candidates: 6, seed: 2 };
/// let (idx, _) = select_on_pool(&SingleProcess, &part, &pool, &k, 5, &FvsParams { strategy: s, ..Default::default() })?;
/// let x = part.samples.unwrap().select(&pool)?;
/// assert_eq!(idx, fvs_on_pool(&k, &x, &pool, 5, s)?);
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn select_on_pool(
    comm: &dyn Comm,
    rows: &DistRows,
    pool: &[usize],
    k: &KernelSpec,
    m: usize,
    params: &FvsParams,
) -> Result<(Vec<usize>, Fvs)> {
    let (x, first) = agree(comm, pool_part(comm, rows, pool))?;
    let params = FvsParams { max_fv: Some(m.min(pool.len())), ..params.clone() };
    let fvs = select_part(k, x.as_ref(), first, pool.len(), &params, &CommParts { comm, d: rows.d });
    let fvs = agree(comm, fvs.map_err(Into::into))?;
    let idx = fvs.selected.iter().map(|&q| pool[q]).collect();
    Ok((idx, fvs))
}
