//! The kernel-matrix layer: every kernel matrix a model needs, on dense or sparse sample stores.
//!
//! - [`GramMatrix`]: the symmetric Gram `K(X, X)`, a dense faer `Mat` (kern-core's blocked GEMM /
//!   group kernels) or a sparse CSC `K_C` (compact support, through the neighbour search of
//!   [`crate::NeighborIndex`]).
//! - [`cross_gram`]: the dense cross Gram `K(Y, X)`.
//! - [`SignedColumns`]: columns `s_p s_q k(x_σ(p), x_σ(q))` gathered or evaluated over a permutation,
//!   the column source of the SMO solvers (with [`Precomputed`] Gram matrices shared, not copied).
//! - [`expand`]: the kernel expansion `K(Y, X) A` for any coefficient matrix `A`: every prediction
//!   (SVM decision values, ridge, LS-SVM, KRR, kernel PCA scores) and every Krylov product on new
//!   points.
//!
//! Kernel-specific fast paths are methods of the kernel ([`kern_core::Kernel::apply_sq_dist`],
//! [`kern_core::Kernel::fast_sq_dist`]), never a match on the kernel type here or in a model. Sparse
//! stores are never densified: their entries are merged sparse products, so memory stays `O(nnz)`
//! plus the matrix asked for.
//!
//! This layer lives in kern-sparse (not kern-core) because the compactly supported Grams need the
//! radius search of [`crate::neighbors`].
//!
//! ```
//! use kern_core::{Gaussian, Samples};
//! use kern_sparse::GramMatrix;
//! use kern_sparse::kmatrix::{cross_gram, expand};
//! let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?;
//! let k = Gaussian::with_sigma(1.0)?;
//! let g = GramMatrix::build(&k, &x)?; // dense: the kernel has no compact support
//! assert!(!g.is_sparse() && g.diagonal() == [1.0; 3]);
//! let y = Samples::from_rows(&[[1.0]])?;
//! let a = faer::Mat::from_fn(3, 1, |i, _| [1.0, 2.0, 0.0][i]);
//! let e = expand(&k, &x, a.as_ref(), &y, false)?; // K(Y, X) a
//! let c = cross_gram(&k, &y, &x)?;
//! assert_eq!(c[(0, 1)], 1.0); // y₀ = x₁
//! assert!((e[(0, 0)] - (c[(0, 0)] + 2.0)).abs() < 1e-15);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod columns;
mod on_demand;

pub(crate) use columns::caller_share;
pub use columns::{
    CALLER_SIXTEENTHS, COLUMN_SPLIT_WORK, NORMS_MIN_DIM, Precomputed, SignedColumns, SparseColumn,
    columns_stay_serial,
};
pub use on_demand::{LRU_BYTES_PER_SAMPLE, SparseOnDemand};

use crate::error::{Result, SparseError};
use crate::gram::{sparse_cross_gram_indexed, sparse_gram};
use crate::neighbors::NeighborIndex;
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef};
use kern_core::{Kernel, Samples};
use nalgebra_sparse::CscMatrix;
use rayon::prelude::*;

/// A symmetric Gram matrix `K(X, X)`, dense or sparse: the input of [`crate::CholeskyPlan`], kernel
/// PCA and every Krylov product.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// use kern_sparse::GramMatrix;
/// let x = Samples::from_rows(&[[0.0], [0.5], [3.0]])?;
/// let dense = GramMatrix::build(&Gaussian::with_sigma(1.0)?, &x)?;
/// let sparse = GramMatrix::build(&CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?, &x)?;
/// assert!(!dense.is_sparse() && sparse.is_sparse());
/// assert_eq!(sparse.n(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub enum GramMatrix {
    /// A dense symmetric matrix (both triangles filled).
    Dense(Mat<f64>),
    /// A sparse symmetric matrix (full symmetric storage).
    Sparse(CscMatrix<f64>),
}

impl GramMatrix {
    /// `K(X, X)`: sparse ([`sparse_gram`]) when the kernel has a support radius, dense
    /// ([`kern_core::gram()`]) otherwise.
    pub fn build<K: Kernel>(k: &K, x: &Samples) -> Result<Self> {
        if k.support_radius().is_some() { Self::sparse(k, x) } else { Self::dense(k, x) }
    }

    /// The dense `K(X, X)` (kern-core's blocked GEMM, group kernels on a sparse store, or direct),
    /// sized against the available memory first.
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[0.0], [1.0]])?;
    /// let g = kern_sparse::GramMatrix::dense(&kern_core::Linear, &x.to_sparse())?;
    /// assert_eq!(g.into_dense()[(1, 1)], 1.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dense<K: Kernel>(k: &K, x: &Samples) -> Result<Self> {
        kern_core::memory::check_array::<f64>(
            &[x.n(), x.n()],
            "dense Gram matrix",
            crate::cholesky::DENSE_INSTEAD,
        )?;
        Ok(GramMatrix::Dense(kern_core::gram(k, x)?))
    }

    /// The sparse `K_C(X, X)` of a compactly supported kernel ([`sparse_gram`]; an error for a kernel
    /// without a support radius).
    pub fn sparse<K: Kernel>(k: &K, x: &Samples) -> Result<Self> {
        Ok(GramMatrix::Sparse(sparse_gram(k, x)?.into_matrix()))
    }

    /// The matrix as a dense faer `Mat` (a sparse matrix is written out with its zeros).
    pub fn into_dense(self) -> Mat<f64> {
        match self {
            GramMatrix::Dense(m) => m,
            GramMatrix::Sparse(m) => {
                let mut d = Mat::zeros(m.nrows(), m.ncols());
                for (i, j, &v) in m.triplet_iter() {
                    d[(i, j)] = v;
                }
                d
            }
        }
    }

    /// The diagonal `K_ii`.
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[3.0], [4.0]])?;
    /// assert_eq!(kern_sparse::GramMatrix::dense(&kern_core::Linear, &x)?.diagonal(), vec![9.0, 16.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn diagonal(&self) -> Vec<f64> {
        match self {
            GramMatrix::Dense(m) => (0..m.ncols()).map(|i| m[(i, i)]).collect(),
            GramMatrix::Sparse(m) => {
                let mut d = vec![0.0; m.ncols()];
                for (i, j, &v) in m.triplet_iter() {
                    if i == j {
                        d[i] = v;
                    }
                }
                d
            }
        }
    }

    /// Matrix size `n`.
    pub fn n(&self) -> usize {
        match self {
            GramMatrix::Dense(m) => m.ncols(),
            GramMatrix::Sparse(m) => m.ncols(),
        }
    }

    /// Whether the matrix is sparse.
    pub fn is_sparse(&self) -> bool {
        matches!(self, GramMatrix::Sparse(_))
    }

    /// `K v`.
    ///
    /// ```
    /// let g = kern_sparse::GramMatrix::Dense(faer::Mat::from_fn(2, 2, |i, j| (i + j) as f64));
    /// assert_eq!(g.mul_vec(&[1.0, 1.0])?, vec![1.0, 3.0]);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn mul_vec(&self, v: &[f64]) -> Result<Vec<f64>> {
        let n = self.n();
        if v.len() != n {
            return Err(SparseError::Dimension { what: "vector", expected: n, found: v.len() });
        }
        let mut out = vec![0.0; n];
        match self {
            GramMatrix::Dense(m) => {
                for (j, &vj) in v.iter().enumerate() {
                    for (o, &a) in out.iter_mut().zip(m.col(j).iter()) {
                        *o += a * vj;
                    }
                }
            }
            GramMatrix::Sparse(m) => {
                for (j, &vj) in v.iter().enumerate() {
                    let col = m.col(j);
                    for (&i, &a) in col.row_indices().iter().zip(col.values()) {
                        out[i] += a * vj;
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The dense cross Gram matrix `K(Y, X)`: `m[(j, i)] = k(y_j, x_i)` (kern-core's GEMM / direct path;
/// per-pair sparse products when a side is a sparse store).
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0]])?;
/// let y = Samples::from_rows(&[[1.0]])?;
/// let g = kern_sparse::kmatrix::cross_gram(&Gaussian::with_sigma(1.0)?, &y, &x)?;
/// assert_eq!((g.nrows(), g.ncols()), (1, 2));
/// assert_eq!(g[(0, 1)], 1.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn cross_gram<K: Kernel>(k: &K, y: &Samples, x: &Samples) -> Result<Mat<f64>> {
    kern_core::memory::check_array::<f64>(
        &[y.n(), x.n()],
        "dense cross Gram matrix",
        crate::cholesky::DENSE_INSTEAD,
    )?;
    Ok(kern_core::cross_gram(k, y, x)?)
}

/// Bytes of one dense cross-Gram block in [`expand`] (rows of new points × training points).
const EXPAND_BLOCK_BYTES: usize = 64 << 20;
/// Queries per sparse cross-Gram block in [`expand`].
const EXPAND_SPARSE_BLOCK: usize = 16_384;

/// How [`expand`] computes `K(Y, X) A`, chosen by [`expand_plan`] (the one place) and reported by the
/// predictions that use it.
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_sparse::kmatrix::{expand_plan, ExpandPlan};
/// let x = Samples::from_rows(&[[0.0], [1.0]])?;
/// assert_eq!(expand_plan(&Gaussian::with_sigma(1.0)?, &x, &x, false), ExpandPlan::Serial);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpandPlan {
    /// Few kernel values (both stores dense, [`kern_core::gram::small_cross`]): the direct distances
    /// and the product on the calling thread, without the pool or a GEMM.
    Serial,
    /// Blocks of the dense cross Gram ([`kern_core::cross_gram`]) in parallel, each times `A` by faer.
    Blocks,
    /// A compact kernel's neighbour index and the sparse cross Gram, in blocks of queries.
    Neighbours,
}

impl ExpandPlan {
    /// The plan's name in summaries: `"serial"`, `"blocks"`, `"neighbours"`.
    ///
    /// ```
    /// assert_eq!(kern_sparse::kmatrix::ExpandPlan::Neighbours.name(), "neighbours");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ExpandPlan::Serial => "serial",
            ExpandPlan::Blocks => "blocks",
            ExpandPlan::Neighbours => "neighbours",
        }
    }
}

/// The plan of [`expand`] for training points `x`, new points `y` and the `sparse` flag: the neighbour
/// index for a kernel with a support radius when `sparse`; else the serial path for a small product of
/// two dense stores ([`kern_core::gram::small_cross`]); else parallel blocks.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// use kern_sparse::kmatrix::{ExpandPlan, expand_plan};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0]])?;
/// // 400 × 3 × 1000 multiply-adds: more than the serial path's 2²⁰.
/// let big = Samples::from_flat(vec![0.5; 400 * 1000], 400, 1000)?;
/// let g = Gaussian::with_sigma(1.0)?;
/// let cs = CompactlySupported::new(g, 1.0, 1.0)?;
/// assert_eq!(expand_plan(&g, &x, &x, true), ExpandPlan::Serial); // no support radius
/// assert_eq!(expand_plan(&cs, &x, &x, true), ExpandPlan::Neighbours);
/// assert_eq!(expand_plan(&cs, &x, &x, false), ExpandPlan::Serial);
/// let x1000 = Samples::from_flat(vec![0.0; 3 * 1000], 3, 1000)?;
/// assert_eq!(expand_plan(&g, &x1000, &big, false), ExpandPlan::Blocks);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn expand_plan<K: Kernel>(k: &K, x: &Samples, y: &Samples, sparse: bool) -> ExpandPlan {
    if sparse && k.support_radius().is_some() {
        ExpandPlan::Neighbours
    } else if !x.is_sparse() && !y.is_sparse() && kern_core::gram::small_cross(y.n(), x.n(), x.d()) {
        ExpandPlan::Serial
    } else {
        ExpandPlan::Blocks
    }
}

/// The kernel expansion `E = K(Y, X) A` for new points `Y` (`m` samples), training points `X` (`n`
/// samples) and coefficients `A` (`n × r`): `E[j, t] = Σ_i A[i, t] k(y_j, x_i)`, an `m × r` matrix.
/// Either store on either side; a sparse store is never densified.
///
/// `sparse = false`: blocks of `K(Y, X)` (at most 64 MiB each) times `A`. `sparse = true` (a kernel
/// with a support radius): a neighbour index of `X` and the sparse cross Gram `K_C(X, Y)` in blocks of
/// queries, so a new point meets only the training points within the radius (CS-RBF paper §2.1:
/// `f(x) = b + Σ_{x_i ∈ δ_C(x)} …`).
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0]])?;
/// let a = faer::Mat::from_fn(2, 1, |i, _| [1.0, -1.0][i]);
/// let e = kern_sparse::kmatrix::expand(&Gaussian::with_sigma(1.0)?, &x, a.as_ref(), &x.to_sparse(), false)?;
/// assert!((e[(0, 0)] - (1.0 - (-1.0f64).exp())).abs() < 1e-15); // k(0,0) − k(0,1), k = exp(−r²/σ²)
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn expand<K: Kernel>(
    k: &K,
    x: &Samples,
    coef: MatRef<'_, f64>,
    y: &Samples,
    sparse: bool,
) -> Result<Mat<f64>> {
    if coef.nrows() != x.n() {
        return Err(SparseError::Dimension {
            what: "expansion coefficients",
            expected: x.n(),
            found: coef.nrows(),
        });
    }
    x.check_same_dim(y)?;
    k.check_samples(y)?;
    let (n, m, r) = (x.n(), y.n(), coef.ncols());
    let mut out = Mat::<f64>::zeros(m, r);
    match expand_plan(k, x, y, sparse) {
        ExpandPlan::Serial => {
            let g = kern_core::gram::cross_gram_serial(k, y, x)?;
            // out[:, t] += g[:, i] · coef[i, t], training point by training point: contiguous columns,
            // zero coefficients (a one-vs-one machine's other classes) skipped.
            for t in 0..r {
                let o =
                    out.as_mut().col_mut(t).try_as_col_major_mut().expect("unit row stride").as_slice_mut();
                for i in 0..n {
                    let c = coef[(i, t)];
                    if c == 0.0 {
                        continue;
                    }
                    let gi = g.as_ref().col(i).try_as_col_major().expect("unit row stride").as_slice();
                    for (o, &v) in o.iter_mut().zip(gi) {
                        *o += v * c;
                    }
                }
            }
        }
        ExpandPlan::Neighbours => {
            let c = k.support_radius().expect("the plan checked the radius");
            let index = NeighborIndex::new(x, c)?;
            let mut j0 = 0;
            while j0 < m {
                let j1 = (j0 + EXPAND_SPARSE_BLOCK).min(m);
                let yb = block_rows(y, j0, j1)?;
                let g = sparse_cross_gram_indexed(k, &index, &yb)?;
                sparse_t_times(&g, coef, out.as_mut().subrows_mut(j0, j1 - j0));
                j0 = j1;
            }
        }
        ExpandPlan::Blocks => {
            let rows = (EXPAND_BLOCK_BYTES / (8 * n.max(1))).clamp(64, 8192);
            let mut j0 = 0;
            while j0 < m {
                let j1 = (j0 + rows).min(m);
                let yb = block_rows(y, j0, j1)?;
                let g = kern_core::cross_gram(k, &yb, x)?;
                matmul(
                    out.as_mut().subrows_mut(j0, j1 - j0),
                    Accum::Replace,
                    g.as_ref(),
                    coef,
                    1.0,
                    kern_core::parallel::faer_par(),
                );
                j0 = j1;
            }
        }
    }
    Ok(out)
}

/// Samples `j0..j1` of `y` in the same store (the whole set is borrowed when the block is all of it).
fn block_rows(y: &Samples, j0: usize, j1: usize) -> Result<std::borrow::Cow<'_, Samples>> {
    if j0 == 0 && j1 == y.n() {
        return Ok(std::borrow::Cow::Borrowed(y));
    }
    Ok(std::borrow::Cow::Owned(y.select(&(j0..j1).collect::<Vec<_>>())?))
}

/// `out = Gᵀ A` for a CSC `G` (`n × m`) and dense `A` (`n × r`), parallel over the columns of `G`.
///
/// ```
/// use nalgebra_sparse::{CooMatrix, CscMatrix};
/// let mut coo = CooMatrix::new(2, 1);
/// coo.push(1, 0, 2.0);
/// let g = CscMatrix::from(&coo);
/// let a = faer::Mat::from_fn(2, 1, |i, _| (i + 1) as f64);
/// let mut out = faer::Mat::<f64>::zeros(1, 1);
/// kern_sparse::kmatrix::sparse_t_times(&g, a.as_ref(), out.as_mut());
/// assert_eq!(out[(0, 0)], 4.0);
/// ```
pub fn sparse_t_times(g: &CscMatrix<f64>, a: MatRef<'_, f64>, mut out: MatMut<'_, f64>) {
    let r = a.ncols();
    let m = g.ncols();
    let mut buf = vec![0.0; m * r];
    buf.par_chunks_mut(r.max(1)).enumerate().for_each(|(j, o)| {
        let col = g.col(j);
        for (&i, &v) in col.row_indices().iter().zip(col.values()) {
            for (t, ot) in o.iter_mut().enumerate() {
                *ot += v * a[(i, t)];
            }
        }
    });
    for j in 0..m {
        for t in 0..r {
            out[(j, t)] = buf[j * r + t];
        }
    }
}
