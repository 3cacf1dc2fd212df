//! Products with a sparse matrix given by its compressed columns (CSC: column offsets, row indices,
//! values), in a fixed order of operations at any thread count.

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
    if col_ptr.len() != out.len() + 1 {
        return Err(SparseError::Dimension {
            what: "column offsets (columns + 1)",
            expected: out.len() + 1,
            found: col_ptr.len(),
        });
    }
    if v.len() < out.len() {
        return Err(SparseError::Dimension {
            what: "vector length (at least the columns)",
            expected: out.len(),
            found: v.len(),
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
    out.par_chunks_mut(CHUNK).enumerate().try_for_each(|(c, o)| {
        let j0 = c * CHUNK;
        for (k, oj) in o.iter_mut().enumerate() {
            let j = j0 + k;
            let (a, b) = (col_ptr[j], col_ptr[j + 1]);
            let (Some(ri), Some(vals)) = (row_idx.get(a..b), values.get(a..b)) else {
                return Err(bad("column range end (stored entries)", values.len(), b));
            };
            let mut acc = shift * v[j];
            for (&i, &x) in ri.iter().zip(vals) {
                let Some(&vi) = v.get(i) else { return Err(bad("row index (vector length)", v.len(), i)) };
                acc += x * vi;
            }
            *oj = acc;
        }
        Ok(())
    })
}
