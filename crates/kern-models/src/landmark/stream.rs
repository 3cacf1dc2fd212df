//! Streaming products with `K_nm = K(X, C)`: the rows of `X` in blocks, one block of `K_nm` at a time.

use crate::error::Result;
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par};
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
/// `rows` rows of `x`, in block order (computed [`GROUP`] at a time). The blocks, hence the terms, do not
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
    mut sink: S,
) -> Result<()>
where
    F: Fn(usize, MatRef<'_, f64>) -> Mat<f64> + Sync,
    S: FnMut(usize, Mat<f64>),
{
    let (n, m) = (x.n(), centres.n());
    let rows = rows.max(1);
    let blocks =
        memory::bytes_for::<f64>(&[GROUP, rows.min(n.max(1)), m + c], "blocks of the kernel matrix")?;
    let partials = memory::bytes_for::<f64>(&[GROUP + 1, m, c], "partial sums of the kernel products")?;
    memory::check_bytes(
        blocks.saturating_add(partials),
        "blocks of the centres' kernel matrix",
        "use fewer centres",
    )?;
    let starts: Vec<usize> = (0..n).step_by(rows).collect();
    for group in starts.chunks(GROUP) {
        let parts: Vec<Result<Mat<f64>>> = group
            .par_iter()
            .map(|&i0| {
                let i1 = (i0 + rows).min(n);
                let idx: Vec<usize> = (i0..i1).collect();
                let xb = x.select(&idx)?;
                let kb = cross_gram(k, &xb, centres)?;
                let v = f(i0, kb.as_ref());
                let mut out = Mat::<f64>::zeros(m, c);
                matmul(out.as_mut(), Accum::Replace, kb.transpose(), v.as_ref(), 1.0, Par::Seq);
                Ok(out)
            })
            .collect();
        for (&i0, p) in group.iter().zip(parts) {
            sink(i0, p?);
        }
    }
    Ok(())
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
