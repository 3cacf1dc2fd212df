//! Dense Gram matrices `K(X, X)` and `K(X, Y)` as `faer::Mat<f64>`, computed in parallel.
//!
//! Radial and dot-product kernels go through one faer GEMM per block on the norms formulation
//! `‖x − y‖² = ‖x‖² + ‖y‖² − 2⟨x, y⟩` (distances clamped at 0, the diagonal set to `k(0)` exactly).
//! A symmetric Gram matrix computes only the lower block triangle — about half the flops and half the
//! kernel evaluations — and mirrors it, so the result is exactly symmetric. In low dimension
//! (`d ≤ 8` by default) the distances are computed directly, which is faster than a skinny GEMM and
//! exact. Other kernels use a generic pairwise path. All paths run on the current rayon pool.
//!
//! A sparse store above `d = 8` takes the group kernels of [`crate::sparse_dots`] (symmetric Grams whose
//! feature-major copy fits), else the inverted index of [`InvertedIndex`] (cross Grams with a sparse
//! side, and symmetric Grams of many distinct features, e.g. bag-of-words data): each column is one
//! pass over the posting lists of its sample, the same sums as merged sparse products; radial kernels
//! then use the norms formulation with the cancellation guard, as the GEMM does.
//!
//! ```
//! use kern_core::{Gaussian, Samples, cross_gram, gram};
//! let x = Samples::from_rows(&[[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])?;
//! let k = Gaussian::with_sigma(1.0)?; // exp(−‖x − y‖²)
//! let g = gram(&k, &x)?;
//! assert!((0..3).all(|i| g[(i, i)] == 1.0 && (0..3).all(|j| g[(i, j)] == g[(j, i)])));
//! assert!((g[(2, 1)] - (-5.0f64).exp()).abs() < 1e-15); // ‖x₂ − x₁‖² = 5
//! let c = cross_gram(&k, &x, &Samples::from_rows(&[[1.0, 0.0]])?)?;
//! assert_eq!((c.nrows(), c.ncols()), (3, 1));
//! assert_eq!(c[(1, 0)], 1.0); // the same point
//! # Ok::<(), kern_core::CoreError>(())
//! ```

use crate::error::Result;
use crate::kernel::{Kernel, Profile};
use crate::parallel::prelude::*;
use crate::samples::{InvertedIndex, SampleRef, Samples};
use crate::sparse_dots::{self, SparseDots};
use faer::linalg::matmul::matmul;
use faer::reborrow::ReborrowMut;
use faer::{Accum, Mat, MatMut, MatRef, Par};

/// Block edge of the tiled computation: one GEMM per 512 × 512 block (2 MiB) amortizes faer's packing
/// over long rows at large d (measured faster than 256 at d = 784), and its kernel values are applied
/// column by column while the block is still warm.
const BLOCK: usize = 512;

/// Dimension up to which [`GramPath::Auto`] computes distances directly instead of by GEMM.
pub(crate) const DIRECT_MAX_DIM: usize = 8;

/// How a dense Gram matrix is computed.
///
/// ```
/// use kern_core::{gram_with, Gaussian, GramPath, Samples};
/// let x = Samples::from_rows(&[[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])?;
/// let k = Gaussian::with_sigma(1.0)?;
/// let a = gram_with(&k, &x, GramPath::Gemm)?;
/// let b = gram_with(&k, &x, GramPath::Pairwise)?;
/// assert!((a[(0, 2)] - b[(0, 2)]).abs() < 1e-14);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GramPath {
    /// GEMM for radial / dot-product kernels above 8 dimensions, direct blocked loops for small
    /// `d`, pairwise otherwise.
    #[default]
    Auto,
    /// Force the GEMM formulation (radial and dot-product kernels only; others fall back to pairwise).
    Gemm,
    /// Force direct evaluation of `k.eval` (or of the distance / inner product) per pair.
    Pairwise,
    /// Force the sparse-rows formulation of [`crate::sparse_dots`] (radial and dot-product kernels only;
    /// others fall back to pairwise). `Auto` takes it above 8 dimensions when at most
    /// [`SparseDots::MAX_DENSITY`] of the coordinates are nonzero.
    Sparse,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Plan {
    Gemm,
    Sparse,
    /// Inner products through an [`InvertedIndex`] of the row samples (sparse data, `d > 8`).
    Inverted,
    Direct,
    Pairwise,
}

fn plan<K: Kernel>(k: &K, d: usize, path: GramPath) -> Plan {
    let fast = matches!(k.profile(), Profile::SqDist | Profile::Dot);
    match path {
        GramPath::Pairwise => Plan::Pairwise,
        GramPath::Gemm if fast => Plan::Gemm,
        GramPath::Sparse if fast => Plan::Sparse,
        GramPath::Auto if fast && d > DIRECT_MAX_DIM => Plan::Gemm,
        GramPath::Auto if fast => Plan::Direct,
        _ => Plan::Pairwise,
    }
}

/// The plan of a symmetric Gram matrix: [`plan`], with `Auto` taking the sparse-rows path instead of
/// the GEMM on sparse data (the density scan is done only where the sparse path can be taken). A sparse
/// store never takes the GEMM: above [`DIRECT_MAX_DIM`] its fast kernels take the sparse-rows path
/// when the transposed copy fits ([`SparseDots::fits`]) and the inverted index otherwise.
fn gram_plan<K: Kernel>(k: &K, x: &Samples, path: GramPath) -> Plan {
    match plan(k, x.d(), path) {
        Plan::Gemm | Plan::Sparse if x.is_sparse() => {
            if SparseDots::fits(x) {
                Plan::Sparse
            } else {
                Plan::Inverted
            }
        }
        Plan::Gemm if path == GramPath::Auto && sparse_dots::density(x) <= SparseDots::MAX_DENSITY => {
            Plan::Sparse
        }
        p => p,
    }
}

/// The dense store of `x` as a `d × n` faer view, for the GEMM plan (an empty view for a sparse store,
/// which never takes it).
fn faer_t(x: &Samples) -> MatRef<'_, f64> {
    match x.as_dense() {
        Some(_) => x.as_faer_t(),
        None => MatRef::from_column_major_slice(&[], 0, 0),
    }
}

/// The symmetric Gram matrix `K_ij = k(x_i, x_j)` (`n × n`), by [`GramPath::Auto`].
///
/// ```
/// use kern_core::{gram, Kernel, Linear, Samples};
/// let x = Samples::from_rows(&[[1.0, 2.0], [3.0, 4.0]])?;
/// let g = gram(&Linear, &x)?;
/// assert_eq!(g[(0, 1)], 11.0);
/// assert_eq!(g[(1, 0)], 11.0);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn gram<K: Kernel>(k: &K, x: &Samples) -> Result<Mat<f64>> {
    gram_with(k, x, GramPath::Auto)
}

/// The symmetric Gram matrix with an explicit [`GramPath`].
///
/// ```
/// use kern_core::gram::{GramPath, gram_with};
/// use kern_core::{Laplacian, Samples};
/// let x = Samples::from_rows(&[[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])?;
/// let g = gram_with(&Laplacian::new(1.0)?, &x, GramPath::Pairwise)?;
/// assert!((0..3).all(|i| g[(i, i)] == 1.0 && (0..3).all(|j| g[(i, j)] == g[(j, i)])));
/// assert!((g[(1, 0)] - (-1.0f64).exp()).abs() < 1e-15); // exp(−‖x₁ − x₀‖ / σ)
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn gram_with<K: Kernel>(k: &K, x: &Samples, path: GramPath) -> Result<Mat<f64>> {
    k.check_samples(x)?;
    let n = x.n();
    let plan = gram_plan(k, x, path);
    let by_norms = matches!(plan, Plan::Gemm | Plan::Inverted) && k.profile() == Profile::SqDist;
    let norms = if by_norms { x.sq_norms() } else { Vec::new() };
    let xt = faer_t(x);
    let mut out = zeros_parallel(n, n)?;
    if plan == Plan::Inverted {
        let rows: Vec<usize> = (0..n).collect();
        if let Some(index) = InvertedIndex::new(x, &rows) {
            out.as_mut().par_col_chunks_mut(1).enumerate().for_each(|(j, mut col)| {
                let col = col.rb_mut().col_mut(0).try_as_col_major_mut().expect("unit row stride");
                let col = &mut col.as_slice_mut()[j..];
                index.dots(x.sample(j), j, col);
                inverted_kernel(k, x, x, &norms, &norms, j, j, col);
            });
            mirror_lower(out.as_mut());
            return Ok(out);
        }
    }
    if plan == Plan::Sparse {
        sparse_lower(k, x, out.as_mut());
        mirror_lower(out.as_mut());
        return Ok(out);
    }
    // Phase 1: the lower block triangle, one task per block column (a disjoint column range).
    out.as_mut().par_col_chunks_mut(BLOCK).enumerate().for_each(|(bj, mut cols)| {
        let j0 = bj * BLOCK;
        let w = cols.ncols();
        let mut i0 = j0;
        while i0 < n {
            let h = BLOCK.min(n - i0);
            let blk = cols.rb_mut().submatrix_mut(i0, 0, h, w);
            fill_block(k, plan, x, xt, &norms, i0, j0, blk);
            i0 += h;
        }
    });
    mirror_lower(out.as_mut());
    Ok(out)
}

/// Multiply-adds `n_x · n_y · d` up to which a prediction's cross Gram of dense stores is computed on
/// the calling thread by direct distances ([`small_cross`], [`cross_gram_serial`]). Below it, waking
/// the pool's workers and a GEMM's first product on a thread cost more than the work. Measured as the
/// prediction time of a fresh `kern predict` over scikit-learn's (best of 3, `bench/suite.py`'s
/// γ = 1/d and scale settings) with the limit at 0 (always blocks) against 2²⁰: heart (54 points × 103
/// support vectors × 13 features) 0.59–0.63 against 0.43–0.45, wisconsin 0.53–0.76 against 0.30–0.44,
/// iris 0.61–1.04 against 0.45–0.58; above the limit the blocks win: at 2²³ crx (131 × 300 × 46) went
/// from 0.23–0.30 to 0.39–0.43 and german from 0.19 to 0.45.
pub(crate) const SMALL_CROSS_WORK: u64 = 1 << 20;

/// Whether a cross Gram of `nx × ny` values in dimension `d` is small enough for the calling thread
/// (at most 2²⁰ multiply-adds `nx · ny · d`): the rule of the prediction's expansion plan.
///
/// ```
/// assert!(kern_core::gram::small_cross(50, 100, 13));
/// assert!(!kern_core::gram::small_cross(5_000, 1_000, 20));
/// assert!(kern_core::gram::small_cross(1 << 10, 1 << 10, 1)); // 2²⁰: the limit
/// assert!(!kern_core::gram::small_cross(1 << 10, 1 << 10, 2));
/// ```
pub fn small_cross(nx: usize, ny: usize, d: usize) -> bool {
    (nx as u128) * (ny as u128) * (d.max(1) as u128) <= SMALL_CROSS_WORK as u128
}

/// The cross Gram matrix `K(X, Y)` on the calling thread, by direct distances or inner products per pair
/// (pairwise for other kernels): no GEMM and no hand-off to the pool, for the small products
/// [`small_cross`] admits.
///
/// ```
/// use kern_core::{cross_gram, Gaussian, Samples};
/// let x = Samples::from_rows(&[[0.0, 1.0], [1.0, 0.0]])?;
/// let y = Samples::from_rows(&[[0.0, 0.0], [2.0, 2.0], [1.0, 1.0]])?;
/// let k = Gaussian::with_beta(0.5)?;
/// let (a, b) = (kern_core::gram::cross_gram_serial(&k, &x, &y)?, cross_gram(&k, &x, &y)?);
/// assert!((0..2).all(|i| (0..3).all(|j| (a[(i, j)] - b[(i, j)]).abs() < 1e-15)));
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn cross_gram_serial<K: Kernel>(k: &K, x: &Samples, y: &Samples) -> Result<Mat<f64>> {
    x.check_same_dim(y)?;
    k.check_samples(x)?;
    k.check_samples(y)?;
    let direct = if plan(k, x.d(), GramPath::Auto) == Plan::Pairwise { Plan::Pairwise } else { Plan::Direct };
    let mut out = crate::memory::try_mat_capacity(x.n(), y.n(), "dense Gram matrix", "")?;
    out.resize_with(x.n(), y.n(), |_, _| 0.0);
    let empty = MatRef::from_column_major_slice(&[], 0, 0);
    fill_cross_block(k, direct, x, y, empty, empty, &[], &[], 0, 0, out.as_mut());
    Ok(out)
}

/// The cross Gram matrix `K_ij = k(x_i, y_j)` (`n_x × n_y`).
///
/// ```
/// use kern_core::{cross_gram, Gaussian, Kernel, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0]])?;
/// let y = Samples::from_rows(&[[0.0], [2.0], [3.0]])?;
/// let k = Gaussian::with_beta(1.0)?;
/// let g = cross_gram(&k, &x, &y)?;
/// assert_eq!((g.nrows(), g.ncols()), (2, 3));
/// assert!((g[(1, 1)] - (-1.0f64).exp()).abs() < 1e-15);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn cross_gram<K: Kernel>(k: &K, x: &Samples, y: &Samples) -> Result<Mat<f64>> {
    cross_gram_with(k, x, y, GramPath::Auto)
}

/// The cross Gram matrix with an explicit [`GramPath`].
///
/// ```
/// use kern_core::gram::{GramPath, cross_gram_with};
/// use kern_core::{Gaussian, Samples};
/// let x = Samples::from_rows(&[[0.0, 1.0], [2.0, 0.5]])?;
/// let y = Samples::from_rows(&[[1.0, 1.0], [0.0, 0.0], [3.0, 1.0]])?;
/// let k = Gaussian::with_beta(0.5)?;
/// let a = cross_gram_with(&k, &x, &y, GramPath::Gemm)?;
/// let b = cross_gram_with(&k, &x, &y, GramPath::Pairwise)?;
/// assert_eq!((a.nrows(), a.ncols()), (2, 3));
/// assert!((0..2).all(|i| (0..3).all(|j| (a[(i, j)] - b[(i, j)]).abs() < 1e-14)));
/// // A cross Gram of a set with itself is the Gram matrix.
/// let g = kern_core::gram(&k, &y)?;
/// let c = cross_gram_with(&k, &y, &y, GramPath::Pairwise)?;
/// assert!((0..3).all(|i| (0..3).all(|j| (g[(i, j)] - c[(i, j)]).abs() < 1e-14)));
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn cross_gram_with<K: Kernel>(k: &K, x: &Samples, y: &Samples, path: GramPath) -> Result<Mat<f64>> {
    x.check_same_dim(y)?;
    k.check_samples(x)?;
    k.check_samples(y)?;
    // The sparse form is not used across two sets yet: a cross Gram takes the dense GEMM, or per-pair
    // inner products when either side is stored sparse.
    let plan = match plan(k, x.d(), path) {
        Plan::Sparse | Plan::Gemm if x.is_sparse() || y.is_sparse() => Plan::Inverted,
        Plan::Sparse => Plan::Gemm,
        p => p,
    };
    let radial_gemm = matches!(plan, Plan::Gemm | Plan::Inverted) && k.profile() == Profile::SqDist;
    let (nx, ny) = (x.n(), y.n());
    let xn = if radial_gemm { x.sq_norms() } else { Vec::new() };
    let yn = if radial_gemm { y.sq_norms() } else { Vec::new() };
    let (xt, yt) = (faer_t(x), faer_t(y));
    let mut out = zeros_parallel(nx, ny)?;
    if plan == Plan::Inverted {
        let rows: Vec<usize> = (0..nx).collect();
        if let Some(index) = InvertedIndex::new(x, &rows) {
            out.as_mut().par_col_chunks_mut(1).enumerate().for_each(|(j, mut col)| {
                let col = col.rb_mut().col_mut(0).try_as_col_major_mut().expect("unit row stride");
                let col = col.as_slice_mut();
                index.dots(y.sample(j), 0, col);
                inverted_kernel(k, x, y, &xn, &yn, 0, j, col);
            });
            return Ok(out);
        }
    }
    out.as_mut().par_col_chunks_mut(BLOCK).enumerate().for_each(|(bj, mut cols)| {
        let j0 = bj * BLOCK;
        let w = cols.ncols();
        let mut i0 = 0;
        while i0 < nx {
            let h = BLOCK.min(nx - i0);
            let blk = cols.rb_mut().submatrix_mut(i0, 0, h, w);
            fill_cross_block(k, plan, x, y, xt, yt, &xn, &yn, i0, j0, blk);
            i0 += h;
        }
    });
    Ok(out)
}

/// Rows per task of the sparse path: the transposed samples of one row block (`d' × 128` doubles, 680 KiB
/// for MNIST's 663 active pixels) stay in L2 while every column of the block row is computed. The
/// columns are grouped (by [`SparseDots::groups`]) within chunks of the same 128 samples, so a task's
/// columns are whole groups below its diagonal block plus the groups of that block.
const SPARSE_BLOCK: usize = 128;

/// The lower triangle (with the diagonal) of a symmetric Gram matrix by sparse inner products: one task
/// per block of [`SPARSE_BLOCK`] rows, computing the columns `i ≤ r₁` four at a time
/// ([`SparseDots::group_dots`]) and writing for each column its rows `max(r₀, i)..r₁`.
fn sparse_lower<K: Kernel>(k: &K, x: &Samples, mut out: MatMut<'_, f64>) {
    let sd = SparseDots::new(x);
    let n = x.n();
    let radial = k.profile() == Profile::SqDist;
    let groups: Vec<Vec<sparse_dots::SampleGroup>> = (0..n.div_ceil(SPARSE_BLOCK))
        .into_par_iter()
        .map(|c| sd.groups(c * SPARSE_BLOCK..((c + 1) * SPARSE_BLOCK).min(n)))
        .collect();
    out.rb_mut().par_row_chunks_mut(SPARSE_BLOCK).enumerate().for_each(|(b, mut rows)| {
        let r0 = b * SPARSE_BLOCK;
        let h = rows.nrows();
        let mut buf = vec![0.0; sparse_dots::GROUP * h];
        for g in groups[..=b].iter().flatten() {
            // Rows from the first needed one, rounded down to whole register blocks past r₀; entries
            // above the diagonal are computed but not stored.
            let lo = g.samples().iter().min().map_or(r0, |&i| i.max(r0));
            let from = r0 + (lo - r0) / sparse_dots::WIDE_LANES * sparse_dots::WIDE_LANES;
            let m = r0 + h - from;
            let buf = &mut buf[..g.samples().len() * m];
            sd.group_dots(g, from..r0 + h, buf);
            for (&i, dots) in g.samples().iter().zip(buf.chunks_exact_mut(m)) {
                let a = i.max(from);
                let seg = &mut dots[a - from..];
                if radial {
                    sd.dots_to_sq_dists(x, i, a, seg);
                    k.apply_sq_dist(seg);
                } else {
                    for v in seg.iter_mut() {
                        *v = k.of_dot(*v);
                    }
                }
                let col = rows.rb_mut().col_mut(i).try_as_col_major_mut().expect("unit row stride");
                col.as_slice_mut()[a - r0..].copy_from_slice(seg);
            }
        }
    });
}

/// Fills block rows `i0..`, columns `j0..` of a symmetric Gram matrix (`i0 ≥ j0`); entries above the
/// diagonal of a diagonal block are left for [`mirror_lower`].
#[allow(clippy::too_many_arguments)]
fn fill_block<K: Kernel>(
    k: &K,
    plan: Plan,
    x: &Samples,
    xt: MatRef<'_, f64>,
    norms: &[f64],
    i0: usize,
    j0: usize,
    mut blk: MatMut<'_, f64>,
) {
    let (h, w) = (blk.nrows(), blk.ncols());
    let diag = i0 == j0;
    match plan {
        Plan::Gemm | Plan::Sparse => {
            let lhs = xt.subcols(i0, h).transpose();
            let rhs = xt.subcols(j0, w);
            matmul(blk.rb_mut(), Accum::Replace, lhs, rhs, 1.0, Par::Seq);
            let radial = k.profile() == Profile::SqDist;
            for jj in 0..w {
                let start = if diag { jj } else { 0 };
                let col = blk.rb_mut().col_mut(jj).try_as_col_major_mut().expect("unit row stride");
                let col = col.as_slice_mut();
                if radial {
                    let nj = norms[j0 + jj];
                    for (ii, v) in col.iter_mut().enumerate().skip(start) {
                        *v = if diag && ii == jj {
                            0.0
                        } else {
                            exact_when_cancelling(
                                norms[i0 + ii],
                                nj,
                                *v,
                                || x.sample(i0 + ii),
                                x.sample(j0 + jj),
                            )
                        };
                    }
                    k.apply_sq_dist(&mut col[start..]);
                } else {
                    for v in col.iter_mut().skip(start) {
                        *v = k.of_dot(*v);
                    }
                }
            }
        }
        // `Inverted` comes here only when the index could not be built (more than 2³² rows).
        Plan::Direct | Plan::Inverted | Plan::Pairwise => {
            let direct = matches!(plan, Plan::Direct | Plan::Inverted);
            let radial = direct && k.profile() == Profile::SqDist;
            let dotp = direct && k.profile() == Profile::Dot;
            for jj in 0..w {
                let xj = x.sample(j0 + jj);
                let start = if diag { jj } else { 0 };
                let col = blk.rb_mut().col_mut(jj).try_as_col_major_mut().expect("unit row stride");
                let col = col.as_slice_mut();
                if radial {
                    for (ii, v) in col.iter_mut().enumerate().skip(start) {
                        *v = x.sample(i0 + ii).sq_dist(xj);
                    }
                    k.apply_sq_dist(&mut col[start..]);
                    continue;
                }
                for (ii, v) in col.iter_mut().enumerate().skip(start) {
                    let xi = x.sample(i0 + ii);
                    *v = if dotp { k.of_dot(xi.dot(xj)) } else { k.eval_ref(xi, xj) };
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn fill_cross_block<K: Kernel>(
    k: &K,
    plan: Plan,
    x: &Samples,
    y: &Samples,
    xt: MatRef<'_, f64>,
    yt: MatRef<'_, f64>,
    xn: &[f64],
    yn: &[f64],
    i0: usize,
    j0: usize,
    mut blk: MatMut<'_, f64>,
) {
    let (h, w) = (blk.nrows(), blk.ncols());
    match plan {
        Plan::Gemm | Plan::Sparse => {
            matmul(
                blk.rb_mut(),
                Accum::Replace,
                xt.subcols(i0, h).transpose(),
                yt.subcols(j0, w),
                1.0,
                Par::Seq,
            );
            let radial = k.profile() == Profile::SqDist;
            for jj in 0..w {
                let col = blk.rb_mut().col_mut(jj).try_as_col_major_mut().expect("unit row stride");
                let col = col.as_slice_mut();
                if radial {
                    let nj = yn[j0 + jj];
                    for (ii, v) in col.iter_mut().enumerate() {
                        *v = exact_when_cancelling(
                            xn[i0 + ii],
                            nj,
                            *v,
                            || x.sample(i0 + ii),
                            y.sample(j0 + jj),
                        );
                    }
                    k.apply_sq_dist(col);
                } else {
                    for v in col.iter_mut() {
                        *v = k.of_dot(*v);
                    }
                }
            }
        }
        // `Inverted` comes here only when the index could not be built (more than 2³² rows).
        Plan::Direct | Plan::Inverted | Plan::Pairwise => {
            let direct = matches!(plan, Plan::Direct | Plan::Inverted);
            let radial = direct && k.profile() == Profile::SqDist;
            let dotp = direct && k.profile() == Profile::Dot;
            for jj in 0..w {
                let yj = y.sample(j0 + jj);
                let col = blk.rb_mut().col_mut(jj).try_as_col_major_mut().expect("unit row stride");
                let col = col.as_slice_mut();
                if radial {
                    match yj.as_dense() {
                        // Both dense: the rows straight from the buffer (`Samples::rows`), the same
                        // `sq_dist` as `SampleRef::sq_dist` (the same bits) without its per-pair match.
                        Some(yv) if !x.is_sparse() && !yv.is_empty() => {
                            for (v, xi) in col.iter_mut().zip(x.rows().skip(i0)) {
                                *v = crate::sq_dist(xi, yv);
                            }
                        }
                        _ => {
                            for (ii, v) in col.iter_mut().enumerate() {
                                *v = x.sample(i0 + ii).sq_dist(yj);
                            }
                        }
                    }
                    k.apply_sq_dist(col);
                    continue;
                }
                for (ii, v) in col.iter_mut().enumerate() {
                    let xi = x.sample(i0 + ii);
                    *v = if dotp { k.of_dot(xi.dot(yj)) } else { k.eval_ref(xi, yj) };
                }
            }
        }
    }
}

/// Turns the inner products `col[k] = ⟨x_{i0+k}, y_j⟩` of one column of the inverted-index plan into
/// kernel values: `of_dot` for dot-product kernels; for radial ones the norms formulation (norms `xn`,
/// `yn`) with the cancellation guard, the diagonal of a symmetric Gram (`x` is `y`, `i0 = j`) set to
/// `0` exactly, then the kernel's vectorized [`Kernel::apply_sq_dist`].
#[allow(clippy::too_many_arguments)]
fn inverted_kernel<K: Kernel>(
    k: &K,
    x: &Samples,
    y: &Samples,
    xn: &[f64],
    yn: &[f64],
    i0: usize,
    j: usize,
    col: &mut [f64],
) {
    if k.profile() != Profile::SqDist {
        for v in col.iter_mut() {
            *v = k.of_dot(*v);
        }
        return;
    }
    let symmetric = std::ptr::eq(x, y);
    let nj = yn[j];
    for (ii, v) in col.iter_mut().enumerate() {
        let i = i0 + ii;
        *v = if symmetric && i == j {
            0.0
        } else {
            exact_when_cancelling(xn[i], nj, *v, || x.sample(i), y.sample(j))
        };
    }
    k.apply_sq_dist(col);
}

/// Relative size below which `‖x‖² + ‖y‖² − 2⟨x, y⟩` has lost too many digits to cancellation.
const CANCELLATION: f64 = 1e-3;

/// The squared distance from the norms formulation, recomputed exactly from the coordinates when it is
/// within [`CANCELLATION`] (relative) of the norms (near-duplicate points). Kernels that are not smooth at 0
/// (Laplacian, compact tapers) would otherwise turn a rounding residue of 1e-16·‖x‖² into an error of
/// its square root.
#[inline]
pub(crate) fn exact_when_cancelling<'a>(
    ni: f64,
    nj: f64,
    dot: f64,
    xi: impl FnOnce() -> SampleRef<'a>,
    xj: SampleRef<'_>,
) -> f64 {
    let r2 = ni + nj - 2.0 * dot;
    if cancelled(r2, ni, nj) { xi().sq_dist(xj) } else { r2 }
}

/// Whether `r2 = ‖x‖² + ‖y‖² − 2⟨x, y⟩` (with `ni`, `nj` the two squared norms) is within
/// [`CANCELLATION`] of the norms, so that its digits cannot be trusted.
#[inline(always)]
pub(crate) fn cancelled(r2: f64, ni: f64, nj: f64) -> bool {
    r2 <= CANCELLATION * (ni + nj)
}

/// Raw pointer to the matrix storage, shared across rayon tasks that touch disjoint entries.
#[derive(Clone, Copy)]
struct SharedPtr(*mut f64);
// SAFETY: the pointer is only dereferenced in `zeros_parallel` (each task writes its own columns) and
// in `mirror_lower` (each task writes the strict upper triangle of its own columns and reads only
// strict-lower entries, which no task writes); the matrix outlives both parallel loops.
#[allow(unsafe_code)]
unsafe impl Send for SharedPtr {}
#[allow(unsafe_code)]
unsafe impl Sync for SharedPtr {}

/// An `nrows × ncols` zero matrix whose pages are first touched in parallel (faer's `Mat::zeros`
/// writes the whole allocation from one thread, which at n = 5000 costs as much as the Gram itself).
/// Sized against the memory available first ([`crate::memory`]): a Gram matrix that cannot fit is an
/// error that names the paths that would fit, never an allocation abort.
#[allow(unsafe_code)]
fn zeros_parallel(nrows: usize, ncols: usize) -> Result<Mat<f64>> {
    let mut m = crate::memory::try_mat_capacity(
        nrows,
        ncols,
        "dense Gram matrix",
        "use a compactly supported kernel (cs-gaussian:...) with the sparse path, a landmark (Nystroem/FVS) \
         model, a sample of the data, or raise the memory limit (set_limit)",
    )?;
    let cs = m.col_stride() as usize;
    debug_assert!(cs >= nrows);
    let ptr = SharedPtr(m.as_ptr_mut());
    // A 200 MB Gram matrix otherwise takes 51,200 page faults and as many TLB misses in the
    // transposed mirror; below four huge pages the advice is not worth a call.
    if cs * ncols * std::mem::size_of::<f64>() >= 4 * crate::pages::HUGE_PAGE {
        crate::pages::advise_huge_pages(ptr.0, cs * ncols);
    }
    (0..ncols).into_par_iter().with_min_len(32).for_each(|j| {
        let p = ptr;
        // SAFETY: the allocation holds at least `ncols` columns of `cs ≥ nrows` elements (capacity
        // reserved above), so column j's first `nrows` elements are in bounds; columns are disjoint
        // between tasks; writing zero bytes makes valid f64 zeros.
        unsafe { std::ptr::write_bytes(p.0.add(j * cs), 0, nrows) };
    });
    // SAFETY: nrows and ncols are within the reserved capacity and every element of the new shape was
    // initialized by the loop above.
    unsafe { m.set_dims(nrows, ncols) };
    Ok(m)
}

/// Copies the strict lower triangle onto the strict upper one, in parallel over column tiles, so the
/// result is exactly symmetric.
#[allow(unsafe_code)]
fn mirror_lower(mut m: MatMut<'_, f64>) {
    let n = m.nrows();
    debug_assert_eq!(n, m.ncols());
    if n < 2 {
        return;
    }
    assert_eq!(m.row_stride(), 1, "faer owned matrices are column-major");
    let cs = m.col_stride() as usize;
    let ptr = SharedPtr(m.rb_mut().as_ptr_mut());
    const TILE: usize = 64;
    (0..n.div_ceil(TILE)).into_par_iter().for_each(|tj| {
        let p = ptr;
        let (j0, j1) = (tj * TILE, ((tj + 1) * TILE).min(n));
        for ti in 0..=tj {
            let i0 = ti * TILE;
            for j in j0..j1 {
                let i1 = ((ti + 1) * TILE).min(j);
                for i in i0..i1 {
                    // SAFETY: i < j < n, so (i, j) is strictly upper and (j, i) strictly lower; both
                    // offsets lie inside the n × n allocation (column stride cs ≥ n). Entry (i, j) is
                    // written only by the task owning column tile tj; (j, i) is never written here.
                    unsafe {
                        *p.0.add(i + j * cs) = *p.0.add(j + i * cs);
                    }
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::*;

    fn data(n: usize, d: usize, seed: u64) -> Samples {
        let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let v: Vec<f64> = (0..n * d)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64) * 4.0 - 2.0
            })
            .collect();
        Samples::from_flat(v, n, d).unwrap()
    }

    fn naive<K: Kernel>(k: &K, x: &Samples, y: &Samples) -> Mat<f64> {
        Mat::from_fn(x.n(), y.n(), |i, j| k.eval(x.row(i), y.row(j)))
    }

    #[test]
    fn all_paths_match_naive_across_block_edges() {
        for &(n, d) in &[(1, 3), (7, 2), (300, 3), (530, 20)] {
            let x = data(n, d, n as u64);
            let kernels: Vec<crate::KernelSpec> = vec![
                Gaussian::with_beta(0.3).unwrap().into(),
                Polynomial::new(2, 1.0).unwrap().into(),
                LinearSpline.into(),
            ];
            for k in &kernels {
                let reference = naive(k, &x, &x);
                for path in [GramPath::Auto, GramPath::Gemm, GramPath::Pairwise, GramPath::Sparse] {
                    let g = gram_with(k, &x, path).unwrap();
                    for j in 0..n {
                        for i in 0..n {
                            assert_eq!(g[(i, j)], g[(j, i)]);
                            let e = (g[(i, j)] - reference[(i, j)]).abs();
                            assert!(e <= 1e-12 * reference[(i, j)].abs().max(1.0), "{k} {path:?} {e}");
                        }
                    }
                }
            }
        }
    }

    /// Data with about `density` nonzeros and a few features that are zero everywhere.
    fn sparse_data(n: usize, d: usize, density: f64, seed: u64) -> Samples {
        let x = data(n, d, seed);
        let mut s = seed ^ 0x9e37_79b9_7f4a_7c15;
        let v: Vec<f64> = x
            .as_slice()
            .iter()
            .enumerate()
            .map(|(t, &v)| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let keep = ((s >> 11) as f64 / (1u64 << 53) as f64) < density && t % d % 7 != 3;
                if keep { v } else { 0.0 }
            })
            .collect();
        Samples::from_flat(v, n, d).unwrap()
    }

    #[test]
    fn sparse_path_matches_naive_and_is_chosen_for_sparse_data() {
        for &(n, d) in &[(1, 12), (33, 10), (300, 40), (290, 97)] {
            let x = sparse_data(n, d, 0.2, n as u64);
            assert_eq!(gram_plan(&Gaussian::with_beta(0.3).unwrap(), &x, GramPath::Auto), Plan::Sparse);
            // An exact duplicate and a zero sample exercise the cancellation guard and empty rows.
            let mut v = x.as_slice().to_vec();
            if n > 1 {
                v[d..2 * d].fill(0.0);
            }
            if n > 3 {
                let r2: Vec<f64> = v[2 * d..3 * d].to_vec();
                v[3 * d..4 * d].copy_from_slice(&r2);
            }
            let x = Samples::from_flat(v, n, d).unwrap();
            let kernels: Vec<crate::KernelSpec> = vec![
                Gaussian::with_beta(0.3).unwrap().into(),
                Laplacian::new(2.0).unwrap().into(),
                Polynomial::new(3, 1.0).unwrap().into(),
                Linear.into(),
            ];
            for k in &kernels {
                let reference = naive(k, &x, &x);
                let g = gram_with(k, &x, GramPath::Auto).unwrap();
                for j in 0..n {
                    for i in 0..n {
                        assert_eq!(g[(i, j)], g[(j, i)]);
                        let e = (g[(i, j)] - reference[(i, j)]).abs();
                        assert!(e <= 1e-12 * reference[(i, j)].abs().max(1.0), "{k} ({i},{j}) {e}");
                    }
                }
            }
        }
        // Dense data keep the GEMM.
        assert_eq!(
            gram_plan(&Gaussian::with_beta(0.3).unwrap(), &data(10, 20, 1), GramPath::Auto),
            Plan::Gemm
        );
    }

    #[test]
    fn cross_matches_naive() {
        let x = data(300, 12, 1);
        let y = data(270, 12, 2);
        let k = Gaussian::with_sigma(3.0).unwrap();
        let r = naive(&k, &x, &y);
        for path in [GramPath::Auto, GramPath::Gemm, GramPath::Pairwise] {
            let g = cross_gram_with(&k, &x, &y, path).unwrap();
            assert!((&g - &r).norm_max() < 1e-12);
        }
        assert!(cross_gram(&k, &x, &data(3, 2, 0)).is_err());
    }
}
