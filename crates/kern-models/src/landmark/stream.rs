//! Streaming products with `K_nm = K(X, C)`: the rows of `X` in blocks, one block of `K_nm` at a time.

use crate::error::Result;
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Par};
use kern_core::{KernelSpec, Samples, cross_gram, memory};
use rayon::prelude::*;

/// Bytes of one block of `K_nm` (rows × m doubles): large enough to amortize the GEMMs, small enough
/// that [`GROUP`] of them stay far below the memory of one `n × m` matrix.
const BLOCK_BYTES: usize = 16 << 20;
/// Blocks computed concurrently; their partial sums are added in block order (determinism).
const GROUP: usize = 4;

/// Rows per block of `K_nm` for `m` centres: about 16 MiB of kernel values, between 64 and 65,536 rows.
///
/// ```
/// assert_eq!(kern_models::landmark::block_rows(2048), 1024);
/// assert_eq!(kern_models::landmark::block_rows(1), 65_536);
/// ```
pub fn block_rows(m: usize) -> usize {
    (BLOCK_BYTES / (8 * m.max(1))).clamp(64, 1 << 16)
}

/// `Σ_b K_bᵀ F(i0_b, K_b)` over the row blocks `b` of `x` (first row `i0_b`, rows per block
/// [`block_rows`]), where `K_b = K(X_b, C)` is the block's `h × m` cross Gram matrix and `F` returns an
/// `h × c` matrix: `K_nmᵀ V` for `F = V`'s rows, `K_nmᵀ K_nm U` for `F = K_b U`, `K_nmᵀ K_nm` for
/// `F = K_b`. Returns the `m × c` sum; memory is `GROUP` blocks, never `n × m`.
///
/// ```
/// use faer::Mat;
/// use kern_core::{cross_gram, Samples};
/// use kern_models::landmark::stream;
/// let x = Samples::from_flat((0..90).map(|i| (i as f64 * 0.3).sin()).collect(), 45, 2)?;
/// let c = x.select(&[0, 7, 20])?;
/// let k = "gaussian:sigma=0.8".parse()?;
/// let s = stream(&k, &x, &c, 1, |i0, kb| Mat::from_fn(kb.nrows(), 1, |i, _| (i0 + i) as f64))?;
/// let knm = cross_gram(&k, &x, &c)?;
/// for j in 0..3 {
///     let want: f64 = (0..45).map(|i| knm[(i, j)] * i as f64).sum();
///     assert!((s[(j, 0)] - want).abs() < 1e-10);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn stream<F>(k: &KernelSpec, x: &Samples, centres: &Samples, c: usize, f: F) -> Result<Mat<f64>>
where
    F: Fn(usize, MatRef<'_, f64>) -> Mat<f64> + Sync,
{
    let mut acc = Mat::<f64>::zeros(centres.n(), c);
    stream_blocks(k, x, centres, c, block_rows(centres.n()), f, |_, p| acc += p)?;
    Ok(acc)
}

/// The terms of [`stream`] one block at a time: `sink(i0_b, K_bᵀ F(i0_b, K_b))` for the blocks of
/// `rows` rows of `x`, in block order (computed four at a time). The blocks, hence the terms, do not
/// depend on the thread count; the distributed fits add them with [`crate::exact_sum::ExactSums`].
///
/// ```
/// use faer::Mat;
/// use kern_core::Samples;
/// use kern_models::landmark::{stream, stream_blocks};
/// let x = Samples::from_flat((0..90).map(|i| (i as f64 * 0.3).sin()).collect(), 45, 2)?;
/// let c = x.select(&[0, 7, 20])?;
/// let k = "gaussian:sigma=0.8".parse()?;
/// let f = |_: usize, kb: faer::MatRef<'_, f64>| Mat::from_fn(kb.nrows(), 1, |_, _| 1.0);
/// let (mut starts, mut acc) = (Vec::new(), Mat::<f64>::zeros(3, 1));
/// stream_blocks(&k, &x, &c, 1, 10, f, |i0, p| { starts.push(i0); acc += p })?;
/// assert_eq!(starts, [0, 10, 20, 30, 40]);
/// let all = stream(&k, &x, &c, 1, f)?;
/// assert!((0..3).all(|j| (acc[(j, 0)] - all[(j, 0)]).abs() < 1e-12));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn stream_blocks<F, S>(
    k: &KernelSpec,
    x: &Samples,
    centres: &Samples,
    c: usize,
    rows: usize,
    f: F,
    sink: S,
) -> Result<()>
where
    F: Fn(usize, MatRef<'_, f64>) -> Mat<f64> + Sync,
    S: FnMut(usize, Mat<f64>),
{
    let mut sink = sink;
    KnmBlocks::new(k, x, centres, c, false, rows)?.each(
        c,
        |i0, kb, out| {
            let v = f(i0, kb);
            matmul(out, Accum::Replace, kb.transpose(), v.as_ref(), 1.0, Par::Seq);
        },
        |i0, p| sink(i0, p.to_owned()),
    )
}

/// The row blocks of `K_nm = K(X, C)` ([`block_rows`] rows each): kept in memory when all of them fit
/// in half of the memory budget ([`kern_core::memory::budget`]) and the caller allows it, computed again
/// on every pass otherwise. Either way each block is the same call of kern-core's cross Gram (a GEMM on
/// the norms formulation for radial and dot-product kernels in `d > 8`), so a kept block and a
/// recomputed one are the same bytes, and so are the sums over them.
pub(crate) struct KnmBlocks<'a> {
    k: &'a KernelSpec,
    x: &'a Samples,
    centres: &'a Samples,
    rows: usize,
    starts: Vec<usize>,
    kept: Option<Vec<Mat<f64>>>,
}

impl<'a> KnmBlocks<'a> {
    /// Blocks of `rows` rows ([`block_rows`] by default; the blocks of the exact sums over rows,
    /// `RowPart::block`). Checks the memory of [`GROUP`] blocks and of the partial sums of
    /// `width`-column products, then computes and keeps every block when `keep` and `n·m` doubles fit
    /// in half the budget.
    pub(crate) fn new(
        k: &'a KernelSpec,
        x: &'a Samples,
        centres: &'a Samples,
        width: usize,
        keep: bool,
        rows: usize,
    ) -> Result<Self> {
        centres.check_same_dim(x)?;
        let (n, m) = (x.n(), centres.n());
        let rows = rows.max(1);
        // At most GROUP blocks at once, and never more than there are.
        let group = GROUP.min(n.div_ceil(rows)).max(1);
        let blocks =
            memory::bytes_for::<f64>(&[group, rows.min(n.max(1)), m + width], "blocks of the kernel matrix")?;
        let partials =
            memory::bytes_for::<f64>(&[group + 1, m, width], "partial sums of the kernel products")?;
        memory::check_bytes(
            blocks.saturating_add(partials),
            "blocks of the centres' kernel matrix",
            "use fewer centres",
        )?;
        let starts: Vec<usize> = (0..n).step_by(rows).collect();
        let mut this = KnmBlocks { k, x, centres, rows, starts, kept: None };
        if keep && Self::fit_in_memory(n, m, width) {
            let kept: Result<Vec<Mat<f64>>> = this.starts.par_iter().map(|&i0| this.compute(i0)).collect();
            this.kept = Some(kept?);
        }
        Ok(this)
    }

    /// Whether all the blocks of `n` rows against `m` centres (and the partial sums of `width`-column
    /// products) fit in half the memory budget: the condition under which [`KnmBlocks::new`] keeps
    /// them (false when the budget is unknown).
    pub(crate) fn fit_in_memory(n: usize, m: usize, width: usize) -> bool {
        let all = memory::bytes_for::<f64>(&[n, m], "the kernel matrix against the centres");
        let partials = memory::bytes_for::<f64>(&[GROUP + 1, m, width], "partial sums");
        match (all, partials) {
            (Ok(a), Ok(p)) => memory::budget().bytes.is_some_and(|b| a.saturating_add(p) <= b / 2),
            _ => false,
        }
    }

    /// Whether the blocks are kept in memory.
    pub(crate) fn is_kept(&self) -> bool {
        self.kept.is_some()
    }

    /// Block `K(X_b, C)` starting at row `i0`, computed.
    fn compute(&self, i0: usize) -> Result<Mat<f64>> {
        let i1 = (i0 + self.rows).min(self.x.n());
        let idx: Vec<usize> = (i0..i1).collect();
        Ok(cross_gram(self.k, &self.x.select(&idx)?, self.centres)?)
    }

    /// `sink(i0_b, T_b)` for every block `b` in block order, where `g` writes the block's `m × width`
    /// term `T_b` given `K_b` (kept or computed): blocks in fixed groups of [`GROUP`] in parallel.
    /// The `GROUP` output matrices are allocated once per call and reused by the groups, not zeroed
    /// between blocks: `g` must overwrite every entry the sink reads (the callers' products all
    /// replace their outputs). Each term is computed by one sequential call on one block, so the terms
    /// are the same bytes at any thread count, kept or not, and for any split of the blocks over
    /// processes; the callers add them exactly ([`crate::exact_sum::ExactSums`]) or in block order.
    pub(crate) fn each<G, S>(&self, width: usize, g: G, mut sink: S) -> Result<()>
    where
        G: Fn(usize, MatRef<'_, f64>, MatMut<'_, f64>) + Sync,
        S: FnMut(usize, MatRef<'_, f64>),
    {
        let m = self.centres.n();
        let mut outs: Vec<Mat<f64>> =
            (0..GROUP.min(self.starts.len())).map(|_| Mat::<f64>::zeros(m, width)).collect();
        self.each_with(&mut outs, |i0, kb, out| g(i0, kb, out.as_mut()), |i0, out| sink(i0, out.as_ref()))
    }

    /// `sink(i0_b, state)` for every block `b` in block order, after `g(i0_b, K_b, state)` has written
    /// the block's result into one of the `states` (at least one; [`GROUP`] are used): the loop of
    /// [`KnmBlocks::each`] with any per-block result, e.g. per-row quantities reduced by the sink.
    pub(crate) fn each_with<T, G, S>(&self, states: &mut [T], g: G, mut sink: S) -> Result<()>
    where
        T: Send,
        G: Fn(usize, MatRef<'_, f64>, &mut T) + Sync,
        S: FnMut(usize, &T),
    {
        let group_len = GROUP.min(states.len()).max(1);
        for (gi, group) in self.starts.chunks(group_len).enumerate() {
            let done: Vec<Result<()>> = group
                .par_iter()
                .zip(states.par_iter_mut())
                .enumerate()
                .map(|(j, (&i0, out))| {
                    match &self.kept {
                        Some(kept) => g(i0, kept[gi * group_len + j].as_ref(), out),
                        None => g(i0, self.compute(i0)?.as_ref(), out),
                    }
                    Ok(())
                })
                .collect();
            for ((&i0, d), out) in group.iter().zip(done).zip(states.iter()) {
                d?;
                sink(i0, out);
            }
        }
        Ok(())
    }
}

/// `K(Y, C) · coef` (`n_y × r`) for a `m × r` coefficient matrix, `Y`'s rows in blocks of
/// [`block_rows`] (never the whole `n_y × m` matrix): predictions and projections of landmark models.
pub(crate) fn expand(
    k: &KernelSpec,
    y: &Samples,
    centres: &Samples,
    coef: MatRef<'_, f64>,
) -> Result<Mat<f64>> {
    centres.check_same_dim(y)?;
    let (n, m, r) = (y.n(), centres.n(), coef.ncols());
    let rows = block_rows(m);
    memory::check_bytes(
        memory::bytes_for::<f64>(
            &[rayon::current_num_threads().max(1), rows.min(n.max(1)), m],
            "kernel blocks",
        )?,
        "blocks of the kernel matrix against the centres",
        "use fewer centres",
    )?;
    memory::check_array::<f64>(&[n, r], "the outputs", "predict fewer points at a time")?;
    let starts: Vec<usize> = (0..n).step_by(rows).collect();
    let parts: Vec<Result<Mat<f64>>> = starts
        .par_iter()
        .map(|&i0| {
            let idx: Vec<usize> = (i0..(i0 + rows).min(n)).collect();
            let kb = cross_gram(k, &y.select(&idx)?, centres)?;
            let mut out = Mat::<f64>::zeros(idx.len(), r);
            matmul(out.as_mut(), Accum::Replace, kb.as_ref(), coef, 1.0, Par::Seq);
            Ok(out)
        })
        .collect();
    let mut out = Mat::<f64>::zeros(n, r);
    for (&i0, p) in starts.iter().zip(parts) {
        let p = p?;
        out.as_mut().submatrix_mut(i0, 0, p.nrows(), r).copy_from(p.as_ref());
    }
    Ok(out)
}
