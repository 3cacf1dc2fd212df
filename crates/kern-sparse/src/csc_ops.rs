//! Products with a sparse matrix given by its compressed columns (CSC: column offsets, row indices,
//! values), in a fixed order of operations at any thread count.
//!
//! ```
//! use kern_sparse::csc_ops::shifted_column_dots;
//! let dense = nalgebra::DMatrix::from_row_slice(3, 3, &[2.0, 1.0, 0.0, 1.0, 3.0, 0.0, 0.0, 0.0, 4.0]);
//! let a = nalgebra_sparse::CscMatrix::from(&dense); // symmetric: columns are rows
//! let v = [1.0, -1.0, 0.5];
//! let mut out = [0.0; 3];
//! shifted_column_dots(a.col_offsets(), a.row_indices(), a.values(), 0.5, &v, &mut out)?;
//! assert_eq!(out, [1.5, -2.5, 2.25]); // (A + 0.5 I) v
//! # Ok::<(), kern_sparse::SparseError>(())
//! ```

use crate::error::{Result, SparseError};
use rayon::prelude::*;

/// Output entries per parallel task (the sums themselves do not depend on it).
const CHUNK: usize = 512;

/// `out_j = s·v_j + Σ_k values[k]·v[row_idx[k]]` over the stored entries `k` of column `j`
/// (`col_ptr[j]..col_ptr[j + 1]`), for `j = 0 … out.len() − 1`: the product `(Aᵀ + s[I 0]) v` of the
/// `v.len() × out.len()` matrix `A` with the vector `v` — `(A + sI) v` when `A` is symmetric, the
/// product of conjugate gradients on a shifted kernel matrix. Each entry starts from `s·v_j` and adds
/// the column's terms in stored order; one task per 512 entries.
///
/// Errors (nothing is written past the failing entry's task) when `col_ptr` does not have
/// `out.len() + 1` entries, `v` is shorter than `out`, a column's range is decreasing or beyond the
/// stored entries, or a row index is outside `v`.
///
/// ```
/// use kern_sparse::csc_ops::shifted_column_dots;
/// // A = [[2, 1], [1, 3]] by columns: column 0 = rows (0, 1) values (2, 1), column 1 = (0, 1), (1, 3).
/// let (cp, ri, val) = ([0, 2, 4], [0, 1, 0, 1], [2.0, 1.0, 1.0, 3.0]);
/// let mut out = [0.0; 2];
/// shifted_column_dots(&cp, &ri, &val, 0.5, &[1.0, -1.0], &mut out)?;
/// assert_eq!(out, [0.5 + 2.0 - 1.0, -0.5 + 1.0 - 3.0]);
/// assert!(shifted_column_dots(&cp, &[0, 7, 0, 1], &val, 0.5, &[1.0, -1.0], &mut out).is_err());
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
pub fn shifted_column_dots(
    col_ptr: &[usize],
    row_idx: &[usize],
    values: &[f64],
    shift: f64,
    v: &[f64],
    out: &mut [f64],
) -> Result<()> {
    shifted_column_dots_k(col_ptr, row_idx, values, shift, v, out, 1, &[true])
}

/// A row index of compressed columns: `usize` (`nalgebra_sparse`'s) or `u32` (the symmetric lower
/// storage of [`crate::sym_lower`], which refuses `n ≥ 2³²`).
pub(crate) trait RowIndex: Copy + Send + Sync {
    /// The index as `usize`.
    fn at(self) -> usize;
    /// From a `usize` the caller knows to fit.
    fn from_usize(i: usize) -> Self;
}

impl RowIndex for usize {
    #[inline]
    fn at(self) -> usize {
        self
    }
    #[inline]
    fn from_usize(i: usize) -> Self {
        i
    }
}

impl RowIndex for u32 {
    #[inline]
    fn at(self) -> usize {
        self as usize
    }
    #[inline]
    fn from_usize(i: usize) -> Self {
        debug_assert!(i <= u32::MAX as usize);
        i as u32
    }
}

/// [`shifted_column_dots`] for `k` vectors at once, interleaved (`v[i·k + t]` is entry `i` of vector
/// `t`, and likewise `out`): every stored entry is read once per output entry for all `k` vectors,
/// and vector `t`'s sums are the same operations in the same order as [`shifted_column_dots`] on
/// that vector alone (so the same bytes). Vectors with `active[t] = false` are skipped and get `0`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn shifted_column_dots_k<I: RowIndex>(
    col_ptr: &[usize],
    row_idx: &[I],
    values: &[f64],
    shift: f64,
    v: &[f64],
    out: &mut [f64],
    k: usize,
    active: &[bool],
) -> Result<()> {
    if k == 0 || active.len() != k || !out.len().is_multiple_of(k) || !v.len().is_multiple_of(k) {
        return Err(SparseError::Dimension {
            what: "interleaved vectors (a multiple of their count)",
            expected: k,
            found: out.len(),
        });
    }
    let ncols = out.len() / k;
    let nv = v.len() / k;
    if col_ptr.len() != ncols + 1 {
        return Err(SparseError::Dimension {
            what: "column offsets (columns + 1)",
            expected: ncols + 1,
            found: col_ptr.len(),
        });
    }
    if nv < ncols {
        return Err(SparseError::Dimension {
            what: "vector length (at least the columns)",
            expected: ncols,
            found: nv,
        });
    }
    if row_idx.len() != values.len() {
        return Err(SparseError::Dimension {
            what: "row indices (one per value)",
            expected: values.len(),
            found: row_idx.len(),
        });
    }
    let bad = |what, expected, found| SparseError::Dimension { what, expected, found };
    out.par_chunks_mut(CHUNK * k).enumerate().try_for_each(|(c, o)| {
        let j0 = c * CHUNK;
        for (jj, oj) in o.chunks_exact_mut(k).enumerate() {
            let j = j0 + jj;
            let (a, b) = (col_ptr[j], col_ptr[j + 1]);
            let (Some(ri), Some(vals)) = (row_idx.get(a..b), values.get(a..b)) else {
                return Err(bad("column range end (stored entries)", values.len(), b));
            };
            for (t, ot) in oj.iter_mut().enumerate() {
                if !active[t] {
                    *ot = 0.0;
                    continue;
                }
                let mut acc = shift * v[j * k + t];
                for (&i, &x) in ri.iter().zip(vals) {
                    let i = i.at();
                    if i >= nv {
                        return Err(bad("row index (vector length)", nv, i));
                    }
                    acc += x * v[i * k + t];
                }
                *ot = acc;
            }
        }
        Ok(())
    })
}
