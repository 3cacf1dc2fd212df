//! Distributed Nyström / FVS kernel ridge and LS-SVM (the landmark models of kern-models, Rudi et al.,
//! "FALKON", NeurIPS 2017) over rows read in parts ([`crate::rows::read_part`]).
//!
//! **What each rank does.** Rank `p` holds its rows `X_p` and applies its block `K(X_p, C)` of
//! `K_nm`: every sum over rows in the fit — the right-hand side `K_nmᵀ[Y, 1]`, `1ᵀY`, and each
//! conjugate-gradient product `K_nmᵀ(K_nm U)` — is computed on the rank's rows by kern-models' own
//! [`NystromRidgeParams::fit_part`] and completed by one allreduce-sum ([`Comm::allreduce_sum`]) of
//! `m·r` numbers (`m` centres, `r` outputs) per iteration. Everything of size `m` (the factor of
//! `K_mm`, FALKON's preconditioner, the conjugate-gradient recurrences) is computed alike on every
//! rank, so every rank ends with the same model. Every sum over rows is a sum of per-block terms
//! (blocks of rows counted from the file's first row, the same for any number of ranks: the rows are
//! aligned to them first, [`align_rows`]) added exactly (kern-models' `ExactSums`: an allreduce-max
//! of `m·r + 1` integers and an allreduce-sum of `6·m·r` numbers per product), so the model has the
//! same bytes as the one-process model for any number of ranks.
//!
//! **Centres.** The candidates are drawn from the seed over global row indices, identically on every
//! rank ([`landmark_candidates`]): the `M` centres for `random:M`, the FVS pool for `fvs:M[:POOL]`.
//! Random centres' rows are gathered to every rank (one allgather). FVS with the stochastic (the
//! default above 2,000 pool rows), sampled or max-residual strategy runs on the pool spread over the
//! ranks ([`crate::fvs`]: each rank scores and
//! updates its own pool rows, the next vector by one allreduce-maxloc and one allgather of the
//! candidates); the exact strategy (the default for pools up to 2,000 rows: an `n × n` product per
//! step) gathers the pool to every rank and runs FVS alike on each ([`fvs_on_pool`]). Either way the
//! centres are exactly the one-process centres.
//!
//! ```
//! use kern_dist::{landmark::fit_nystrom, rows::read_part, threads::run_threads, Comm, SingleProcess};
//! use kern_models::{landmark::NystromRidgeParams, persist};
//! let p = std::env::temp_dir().join(format!("kern-doc-landmark-mod-{}.svm", std::process::id()));
//! std::fs::write(&p, (0..60).map(|i| format!("{} 1:{}\n", (i as f64 * 0.2).sin(), i as f64 * 0.1)).collect::<String>()).unwrap();
//! let params = NystromRidgeParams::krr("gaussian:sigma=0.5".parse()?, 1e-6, "random:12".parse()?);
//! let fit = |c: &dyn Comm| {
//!     let m = fit_nystrom(c, &read_part(c, &p, &Default::default()).unwrap(), &params, true).unwrap();
//!     (m.centres().n(), persist::to_bytes(&m).unwrap())
//! };
//! // Three ranks, each holding a third of the rows, fit the one-process model to the byte.
//! let one = fit(&SingleProcess);
//! assert!(one.0 == 12 && run_threads(3, &fit).iter().all(|m| *m == one));
//! # std::fs::remove_file(&p).unwrap();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::comm::{Comm, agree};
use crate::error::{DistError, Result};
use crate::fvs::select_on_pool;
use crate::rows::DistRows;
use crate::wire::{Reader, Writer};
use kern_core::{BinaryTargets, ClassTargets, CoreError, RealTargets, SampleRef, Samples, Storage, Targets};
use kern_models::fvs::{FvsParams, Strategy};
use kern_models::landmark::{
    LandmarkLambdaChoice, Landmarks, NystromRidge, NystromRidgeParams, RowPart, block_rows, fvs_on_pool,
    landmark_candidates,
};
use kern_models::ridge::{Spread, Task};
use std::borrow::Cow;

/// This rank's targets (`None` without rows) and the task of all ranks' targets: class names agreed
/// over all ranks (one allgather of the distinct labels), encoded exactly as the one-process reader
/// would encode the whole file (binary for two classes, one-vs-rest classes above, real values with
/// `regression`).
///
/// ```
/// use kern_dist::{landmark::targets_part, rows::read_part, SingleProcess};
/// let p = std::env::temp_dir().join("kern-doc-targets-part.svm");
/// std::fs::write(&p, "4 1:1\n2 1:2\n4 1:3\n").unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// let (y, task) = targets_part(&SingleProcess, &part, false)?;
/// assert_eq!(task, kern_models::ridge::Task::Binary { names: ["2".into(), "4".into()] });
/// assert_eq!(y.unwrap().len(), 3);
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_dist::DistError>(())
/// ```
pub fn targets_part(comm: &dyn Comm, rows: &DistRows, regression: bool) -> Result<(Option<Targets>, Task)> {
    let task = if regression {
        Task::Regression
    } else {
        let names = rows.global_labels(comm)?;
        // The names of the whole file, as the one-process reader sorts them (numerically for numbers).
        let classes = ClassTargets::from_labels(&names)?;
        if classes.n_classes() == 2 {
            Task::Binary { names: BinaryTargets::from_labels(&names)?.names().clone() }
        } else {
            Task::Classes { names: classes.names().to_vec() }
        }
    };
    let local = (rows.n_local() > 0).then(|| encode_labels(&rows.labels, &task, rows.row_offset)).transpose();
    Ok((agree(comm, local)?, task))
}

/// The targets of `labels` (rows `first_row..` of the file) encoded for `task` as the one-process
/// reader encodes the whole file: real values, or class indices against every name of the task (so a
/// class the rows lack keeps its index).
///
/// ```
/// use kern_dist::landmark::encode_labels;
/// use kern_models::ridge::Task;
/// let task = Task::Classes { names: vec!["a".into(), "b".into(), "c".into()] };
/// let y = encode_labels(&["c".to_string(), "a".to_string()], &task, 0)?;
/// let kern_core::Targets::Classes(c) = y else { panic!("classes") };
/// assert_eq!((c.classes(), c.n_classes()), (&[2, 0][..], 3));
/// assert!(encode_labels(&["x".to_string()], &Task::Regression, 7).is_err());
/// # Ok::<(), kern_dist::DistError>(())
/// ```
pub fn encode_labels(labels: &[String], task: &Task, first_row: usize) -> Result<Targets> {
    let names = match task {
        Task::Regression => {
            let v = labels
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    l.parse::<f64>().map_err(|_| {
                        CoreError::Targets(format!("label {l:?} of row {} is not a number", first_row + i))
                    })
                })
                .collect::<std::result::Result<Vec<f64>, _>>()?;
            return Ok(Targets::Real(RealTargets::new(v)?));
        }
        Task::Binary { names } => names.as_slice(),
        Task::Classes { names } => names.as_slice(),
    };
    // The labels followed by all the names give the global name list; the first entries are the rows.
    let mut all: Vec<&str> = labels.iter().map(String::as_str).collect();
    all.extend(names.iter().map(String::as_str));
    let mine: Vec<usize> = (0..labels.len()).collect();
    Ok(match task {
        Task::Binary { .. } => Targets::Binary(BinaryTargets::from_labels(&all)?.select(&mine)?),
        _ => Targets::Classes(ClassTargets::from_labels(&all)?.select(&mine)?),
    })
}

const NO_ROWS: u64 = 0;
const DENSE: u64 = 1;
const SPARSE: u64 = 2;

/// The rows with global indices `idx` (in that order), on every rank, in the store of the rows read:
/// the same samples as `x.select(idx)` on the whole file. One allgather of the rows each rank owns.
///
/// ```
/// use kern_dist::{landmark::gather_rows, rows::read_part, SingleProcess};
/// let p = std::env::temp_dir().join("kern-doc-gather-rows.svm");
/// std::fs::write(&p, "1 1:1\n1 1:2 2:5\n-1 1:3\n").unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// let c = gather_rows(&SingleProcess, &part, &[2, 1])?;
/// assert_eq!(c, part.samples.unwrap().select(&[2, 1])?);
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_dist::DistError>(())
/// ```
pub fn gather_rows(comm: &dyn Comm, rows: &DistRows, idx: &[usize]) -> Result<Samples> {
    Ok(gather_labeled(comm, rows, idx)?.0)
}

/// [`gather_rows`] with the rows' labels (the file's label text, in the order of `idx`).
///
/// ```
/// use kern_dist::{landmark::gather_labeled, rows::read_part, SingleProcess};
/// let p = std::env::temp_dir().join("kern-doc-gather-labeled.svm");
/// std::fs::write(&p, "1 1:1\n1 1:2 2:5\n-1 1:3\n").unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// let (x, labels) = gather_labeled(&SingleProcess, &part, &[2, 0])?;
/// assert_eq!((x.n(), labels), (2, vec!["-1".to_string(), "1".to_string()]));
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_dist::DistError>(())
/// ```
pub fn gather_labeled(comm: &dyn Comm, rows: &DistRows, idx: &[usize]) -> Result<(Samples, Vec<String>)> {
    let (lo, hi) = (rows.row_offset, rows.row_offset + rows.n_local());
    let mut w = Writer::default();
    match &rows.samples {
        None => {
            w.u64(NO_ROWS);
        }
        Some(x) => {
            w.u64(if x.is_sparse() { SPARSE } else { DENSE });
            for (q, &i) in idx.iter().enumerate() {
                if (lo..hi).contains(&i) {
                    w.u64(q as u64);
                    w.str(&rows.labels[i - lo]);
                    write_row(&mut w, x.sample(i - lo));
                }
            }
        }
    }
    let all = comm.allgather_bytes(&w.0);
    let mut storage = None;
    type Labeled = (String, Row);
    let mut found: Vec<Option<Labeled>> = vec![None; idx.len()];
    for msg in &all {
        let mut r = Reader(msg);
        let tag = r.u64()?;
        if tag == NO_ROWS {
            continue;
        }
        storage = Some(if tag == SPARSE { Storage::Sparse } else { Storage::Dense });
        while !r.is_empty() {
            let q = r.u64()? as usize;
            let label = r.str()?;
            let row = read_row(&mut r, tag == SPARSE)?;
            match found.get_mut(q) {
                Some(slot @ None) => *slot = Some((label, row)),
                _ => return Err(DistError::Message(format!("row position {q} sent twice or out of range"))),
            }
        }
    }
    let missing = found.iter().position(Option::is_none);
    if let Some(q) = missing {
        return Err(DistError::Invalid(format!("row {} is not in the file ({} rows)", idx[q], rows.n_total)));
    }
    let (labels, found): (Vec<String>, Vec<Row>) = found.into_iter().flatten().unzip();
    Ok((build_samples(found, rows.d, storage == Some(Storage::Sparse))?, labels))
}

/// A row on the wire: indices (sparse rows) and values.
pub(crate) type Row = (Vec<usize>, Vec<f64>);

pub(crate) fn write_row(w: &mut Writer, s: SampleRef<'_>) {
    match s {
        SampleRef::Dense(v) => {
            w.f64s(v);
        }
        SampleRef::Sparse { indices, values } => {
            w.u64(indices.len() as u64);
            indices.iter().for_each(|&j| {
                w.u64(j as u64);
            });
            w.f64s(values);
        }
    }
}

pub(crate) fn read_row(r: &mut Reader<'_>, sparse: bool) -> Result<Row> {
    Ok(if sparse {
        let nnz = r.u64()? as usize;
        let ind = (0..nnz.min(r.0.len() / 8)).map(|_| r.u64().map(|j| j as usize)).collect::<Result<_>>()?;
        (ind, r.f64s()?)
    } else {
        (Vec::new(), r.f64s()?)
    })
}

pub(crate) fn build_samples(rows: Vec<Row>, d: usize, sparse: bool) -> Result<Samples> {
    let n = rows.len();
    Ok(if sparse {
        let mut indptr = vec![0];
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        for (i, v) in rows {
            indices.extend(i);
            values.extend(v);
            indptr.push(indices.len());
        }
        Samples::from_csr(n, d, indptr, indices, values)?
    } else {
        Samples::from_flat(rows.into_iter().flat_map(|(_, v)| v).collect(), n, d)?
    })
}

/// The rows moved between ranks so that every rank's first row is a multiple of `block` (the blocks
/// of the sums over rows, [`RowPart::block`]): rank `p` then owns the rows `[a_p, a_{p+1})` with
/// `a_p = ⌈first_p / block⌉·block`. Rows only move to lower ranks: at most `block − 1` rows leave a
/// rank, by neighbour exchanges (one shift per distance rows travel; one when every rank holds at
/// least `block` rows). Collective; a local error is returned after every shift, for the caller to
/// [`agree`] on. Without anything to move, the rows are returned as they are.
///
/// ```
/// use kern_dist::{landmark::align_rows, rows::read_part, SingleProcess};
/// let p = std::env::temp_dir().join("kern-doc-align.svm");
/// std::fs::write(&p, "1 1:1\n-1 2:1\n1 1:2\n").unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// assert_eq!(*align_rows(&SingleProcess, &part, 2)?, part);
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_dist::DistError>(())
/// ```
pub fn align_rows<'a>(comm: &dyn Comm, rows: &'a DistRows, block: usize) -> Result<Cow<'a, DistRows>> {
    let block = block.max(1);
    let (size, p, n) = (comm.size(), comm.rank(), rows.n_total);
    let counts = comm.allgather_u64(rows.n_local() as u64);
    let mut lo = vec![0usize];
    for &c in &counts {
        lo.push(lo.last().copied().unwrap_or(0) + c as usize);
    }
    let a: Vec<usize> = (0..=size)
        .map(|q| if q == size { n } else { lo[q].div_ceil(block).saturating_mul(block).min(n) })
        .collect();
    // Rows rank q sends to rank q − δ.
    let moving = |q: usize, delta: usize| -> std::ops::Range<usize> {
        if q < delta {
            return 0..0;
        }
        let t = q - delta;
        lo[q].max(a[t])..lo[q + 1].min(a[t + 1]).max(lo[q].max(a[t]))
    };
    let rounds: Vec<usize> =
        (1..size).filter(|&delta| (0..size).any(|q| !moving(q, delta).is_empty())).collect();
    if rounds.is_empty() {
        return Ok(Cow::Borrowed(rows));
    }
    let sparse = rows.samples.as_ref().is_some_and(Samples::is_sparse);
    let mut storage = rows.samples.as_ref().map(|x| x.is_sparse());
    let keep = lo[p].max(a[p])..lo[p + 1].min(a[p + 1]).max(lo[p].max(a[p]));
    let mut out: Vec<Row> = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    let own = |i: usize| -> Row {
        match rows.samples.as_ref().map(|x| x.sample(i - lo[p])) {
            Some(SampleRef::Dense(v)) => (Vec::new(), v.to_vec()),
            Some(SampleRef::Sparse { indices, values }) => (indices.to_vec(), values.to_vec()),
            None => (Vec::new(), Vec::new()),
        }
    };
    for i in keep {
        out.push(own(i));
        labels.push(rows.labels[i - lo[p]].clone());
    }
    // A local failure is kept while this rank takes part in every remaining shift; the caller agrees.
    let mut failure: Option<DistError> = None;
    for delta in rounds {
        let send = moving(p, delta);
        let mut w = Writer::default();
        w.u64(if send.is_empty() {
            NO_ROWS
        } else if sparse {
            SPARSE
        } else {
            DENSE
        });
        match rows.samples.as_ref() {
            Some(x) => {
                for i in send {
                    w.str(&rows.labels[i - lo[p]]);
                    write_row(&mut w, x.sample(i - lo[p]));
                }
            }
            None if !send.is_empty() => {
                failure.get_or_insert(DistError::Message("rows to send without samples".into()));
                w = Writer::default();
                w.u64(NO_ROWS);
            }
            None => {}
        }
        let got = comm.exchange_bytes((p + size - delta) % size, &w.0, (p + delta) % size);
        let mut r = Reader(&got);
        let mut receive = || -> Result<()> {
            let tag = r.u64()?;
            if tag != NO_ROWS {
                storage = Some(tag == SPARSE);
                while !r.is_empty() {
                    labels.push(r.str()?);
                    out.push(read_row(&mut r, tag == SPARSE)?);
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
    if out.len() != a[p + 1] - a[p] {
        return Err(DistError::Message(format!(
            "rank {p} holds {} rows after aligning, {} expected",
            out.len(),
            a[p + 1] - a[p]
        )));
    }
    let samples = match storage {
        Some(sp) if !out.is_empty() => Some(build_samples(out, rows.d, sp)?),
        _ => None,
    };
    // The rows move between ranks; the lines dropped on reading stay with the rank that read them.
    let dropped_lines = rows.dropped_lines.clone();
    Ok(Cow::Owned(DistRows { samples, labels, row_offset: a[p], n_total: n, d: rows.d, dropped_lines }))
}

/// The centres of a landmark model and their global row indices, the same on every rank and the same
/// as the one-process choice ([`kern_models::landmark::select_landmarks`]) on the whole file: the
/// candidates drawn from the seed, their rows gathered, FVS on the pool for `fvs:M`.
///
/// ```
/// use kern_dist::{landmark::choose_centres, rows::read_part, SingleProcess};
/// use kern_models::landmark::{select_landmarks, NystromRidgeParams};
/// let p = std::env::temp_dir().join("kern-doc-centres.svm");
/// let text: String = (0..40).map(|i| format!("{} 1:{} 2:{}\n", i % 2, (i as f64).sin(), (i as f64 * 0.3).cos())).collect();
/// std::fs::write(&p, text).unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// let params = NystromRidgeParams::krr("gaussian:sigma=0.7".parse()?, 1e-3, "fvs:6".parse()?).seed(4);
/// let (c, idx) = choose_centres(&SingleProcess, &part, &params)?;
/// let x = part.samples.unwrap();
/// assert_eq!(idx, select_landmarks(&params.kernel, &x, params.landmarks, 4, params.fvs_strategy)?);
/// assert_eq!(c, x.select(&idx)?);
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn choose_centres(
    comm: &dyn Comm,
    rows: &DistRows,
    params: &NystromRidgeParams,
) -> Result<(Samples, Vec<usize>)> {
    let cand =
        agree(comm, landmark_candidates(rows.n_total, params.landmarks, params.seed).map_err(Into::into))?;
    if let Landmarks::Fvs { m, .. } = params.landmarks
        && params.fvs_strategy.resolve(cand.len()) != Strategy::Exact
    {
        // The pool spread over the ranks, the greedy steps by maxloc (crate::fvs).
        let fvs = FvsParams { strategy: params.fvs_strategy, ..FvsParams::default() };
        let (idx, _) = select_on_pool(comm, rows, &cand, &params.kernel, m, &fvs)?;
        return Ok((gather_rows(comm, rows, &idx)?, idx));
    }
    let pool = gather_rows(comm, rows, &cand)?;
    match params.landmarks {
        Landmarks::Random { .. } => Ok((pool, cand)),
        Landmarks::Fvs { m, .. } => {
            let idx = agree(
                comm,
                fvs_on_pool(&params.kernel, &pool, &cand, m, params.fvs_strategy).map_err(Into::into),
            )?;
            // The pool is sorted: each centre's position in it.
            let pos: Vec<usize> = idx.iter().map(|i| cand.binary_search(i).unwrap_or(usize::MAX)).collect();
            let centres = pool.select(&pos)?;
            Ok((centres, idx))
        }
    }
}

/// Fits a Nyström kernel ridge / LS-SVM model on rows spread over the ranks (collective; module docs):
/// the same model on every rank, the same bytes as `params.fit_targets` on the whole file for any
/// number of ranks. `regression`: real targets (kernel ridge always regresses).
///
/// ```
/// use kern_dist::{landmark::fit_nystrom, rows::read_part, SingleProcess};
/// use kern_models::landmark::NystromRidgeParams;
/// let p = std::env::temp_dir().join("kern-doc-fit-nystrom.svm");
/// let text: String = (0..60).map(|i| format!("{} 1:{}\n", (i as f64 * 0.2).sin(), i as f64 * 0.1)).collect();
/// std::fs::write(&p, text).unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// let params = NystromRidgeParams::krr("gaussian:sigma=0.5".parse()?, 1e-6, "random:12".parse()?);
/// let model = fit_nystrom(&SingleProcess, &part, &params, true)?;
/// assert_eq!(model.centres().n(), 12);
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn fit_nystrom(
    comm: &dyn Comm,
    rows: &DistRows,
    params: &NystromRidgeParams,
    regression: bool,
) -> Result<NystromRidge> {
    fit_nystrom_blocks(comm, rows, params, regression, None)
}

/// [`fit_nystrom`] with the rows per block of the sums over rows (`None`: kern-models' default for
/// the number of centres, which is what the one-process fit uses). The model depends on the block
/// size, not on the number of ranks: it has the same bytes as the one-process
/// [`NystromRidgeParams::fit_part`] with all the rows and the same block. The rows are first aligned
/// to the blocks ([`align_rows`]).
///
/// ```
/// use kern_dist::{landmark::fit_nystrom_blocks, rows::read_part, SingleProcess};
/// use kern_models::landmark::{NystromRidgeParams, RowPart};
/// let p = std::env::temp_dir().join("kern-doc-fit-blocks.svm");
/// let text: String = (0..60).map(|i| format!("{} 1:{}\n", (i as f64 * 0.2).sin(), i as f64 * 0.1)).collect();
/// std::fs::write(&p, text).unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// let params = NystromRidgeParams::krr("gaussian:sigma=0.5".parse()?, 1e-6, "random:12".parse()?);
/// let model = fit_nystrom_blocks(&SingleProcess, &part, &params, true, Some(7))?;
/// assert_eq!(model.centres().n(), 12);
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn fit_nystrom_blocks(
    comm: &dyn Comm,
    rows: &DistRows,
    params: &NystromRidgeParams,
    regression: bool,
    block: Option<usize>,
) -> Result<NystromRidge> {
    // The fit's collectives are the same on every rank whatever happens locally (errors before the
    // first sum are parameter errors, the same on every rank); agree on the outcome.
    on_part(comm, rows, params, regression, block, |part, centres, idx| params.fit_part(part, centres, idx))
}

/// `run` on this rank's part of the rows (collective): the centres chosen ([`choose_centres`]), the
/// rows aligned to the blocks of the sums over rows (`block`, or the default for the number of
/// centres), the targets agreed, and the part's sums and maxima the ranks' allreduces. The outcome
/// agreed over the ranks.
fn on_part<T>(
    comm: &dyn Comm,
    rows: &DistRows,
    params: &NystromRidgeParams,
    regression: bool,
    block: Option<usize>,
    run: impl FnOnce(&RowPart<'_>, Samples, &[usize]) -> kern_models::Result<T>,
) -> Result<T> {
    let (centres, idx) = choose_centres(comm, rows, params)?;
    let block = block.unwrap_or_else(|| block_rows(centres.n())).max(1);
    let rows = agree(comm, align_rows(comm, rows, block))?;
    let (y, task) = targets_part(comm, &rows, regression || !params.bias)?;
    let sum = |v: &mut [f64]| comm.allreduce_sum(v);
    let max = |v: &mut [u64]| comm.allreduce_max_u64(v);
    let part = RowPart {
        rows: rows.samples.as_ref().zip(y.as_ref()),
        n: rows.n_total,
        task,
        block: Some(block),
        sum: &sum,
        max: &max,
    };
    agree(comm, run(&part, centres, &idx).map_err(Into::into))
}

/// λ of a Nyström kernel ridge / LS-SVM model chosen by exact leave-one-out over `grid` (`None`: the
/// model's default grid) on rows spread over the ranks, and the model fitted with it (collective): the
/// centres as [`fit_nystrom_blocks`] chooses them, then kern-models'
/// [`NystromRidgeParams::choose_lambda_part`], whose sums over rows are exact per-block sums. The same
/// choice and model bytes on every rank, and as the one-process
/// [`NystromRidgeParams::choose_lambda`] with the same block, for any number of ranks; `params.lambda`
/// is not used.
///
/// ```
/// use kern_dist::{landmark::choose_lambda_nystrom, rows::read_part, threads::run_threads, Comm, SingleProcess};
/// use kern_models::{landmark::NystromRidgeParams, persist};
/// let p = std::env::temp_dir().join(format!("kern-doc-lambda-nystrom-{}.svm", std::process::id()));
/// let text: String = (0..80).map(|i| format!("{} 1:{}\n", (i as f64 * 0.2).sin(), i as f64 * 0.1)).collect();
/// std::fs::write(&p, text).unwrap();
/// let params = NystromRidgeParams::krr("gaussian:sigma=0.5".parse()?, 1.0, "random:12".parse()?);
/// let choose = |c: &dyn Comm| {
///     let ch = choose_lambda_nystrom(c, &read_part(c, &p, &Default::default()).unwrap(), &params, true, Some(16), None).unwrap();
///     (ch.lambda, persist::to_bytes(&ch.model).unwrap())
/// };
/// let one = choose(&SingleProcess);
/// assert!(one.0 < 1.0); // a smooth target: little smoothing
/// assert!(run_threads(3, &choose).iter().all(|c| *c == one));
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn choose_lambda_nystrom(
    comm: &dyn Comm,
    rows: &DistRows,
    params: &NystromRidgeParams,
    regression: bool,
    block: Option<usize>,
    grid: Option<&[f64]>,
) -> Result<LandmarkLambdaChoice> {
    let t = std::time::Instant::now();
    let mut ch = on_part(comm, rows, params, regression, block, |part, centres, idx| {
        params.choose_lambda_part(part, centres, idx, grid)
    })?;
    ch.seconds = t.elapsed().as_secs_f64();
    Ok(ch)
}

/// How far the decision values of `m` on the training rows of every rank stray from its intercepts,
/// relative to the targets (kern-cli's `nystrom_spread` on each rank's rows, the maxima over all
/// ranks): the figure of `kern train`'s constant-model warning. Collective.
///
/// ```
/// use kern_dist::{landmark::{fit_nystrom, relative_spread}, rows::read_part, SingleProcess};
/// use kern_models::landmark::NystromRidgeParams;
/// let p = std::env::temp_dir().join("kern-doc-nystrom-spread.svm");
/// let text: String = (0..30).map(|i| format!("{} 1:{}\n", (i as f64 * 0.2).sin(), i as f64 * 0.1)).collect();
/// std::fs::write(&p, text).unwrap();
/// let part = read_part(&SingleProcess, &p, &Default::default())?;
/// let flat = NystromRidgeParams::krr("gaussian:sigma=0.5".parse()?, 1e9, "random:6".parse()?);
/// let m = fit_nystrom(&SingleProcess, &part, &flat, true)?;
/// assert!(relative_spread(&SingleProcess, &part, &m)? < 1e-6);
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn relative_spread(comm: &dyn Comm, rows: &DistRows, m: &NystromRidge) -> Result<f64> {
    let (y, _) = targets_part(comm, rows, matches!(m.task(), Task::Regression))?;
    let local = match (rows.samples.as_ref(), y.as_ref()) {
        (Some(x), Some(y)) => {
            kern_cli::any_params::nystrom_spread(m, x, y).map_err(|e| DistError::Invalid(e.to_string()))
        }
        _ => Ok(Spread::default()),
    };
    let s = agree(comm, local)?;
    let mut v = [s.fit, s.target];
    comm.allreduce_max_f64(&mut v);
    Ok(Spread { fit: v[0], target: v[1] }.ratio())
}
