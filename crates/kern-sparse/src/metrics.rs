//! Bandwidth, profile and sparsity-pattern export of symmetric sparse matrices (CS-RBF paper §2.2,
//! Table 1, Fig. 2).
//!
//! For row `i`, `b_i = i − min{j : A_ij ≠ 0}` (0 when the row has nothing left of the diagonal). The
//! paper defines the bandwidth as `bw = 2·max_i b_i + 1`; its Table 1 appears to report the one-sided
//! `max_i b_i + 1` (its dense 2000 × 2000 case reads 2000), so both are given. The profile (envelope
//! size) is `Σ_i b_i`.
//!
//! ```
//! use kern_sparse::{bandwidth, pattern_entries};
//! let a = nalgebra::DMatrix::from_row_slice(3, 3, &[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
//! let a = nalgebra_sparse::CscMatrix::from(&a);
//! let b = bandwidth(&a); // b = (0, 1, 0): only row 1 reaches left of the diagonal
//! assert_eq!((b.max_row, b.bw, b.one_sided, b.profile), (1, 3, 2, 1));
//! assert_eq!(pattern_entries(&a), [(0, 0), (1, 0), (0, 1), (1, 1), (2, 2)]);
//! ```

use crate::error::Result;
use crate::error::SparseError;
use crate::ordering::{Permutation, check_square};
use nalgebra_sparse::CscMatrix;
use serde::{Deserialize, Serialize};

/// Bandwidth figures of a symmetric matrix.
///
/// ```
/// let a = nalgebra_sparse::CscMatrix::from(&nalgebra::DMatrix::<f64>::from_element(4, 4, 1.0));
/// let b = kern_sparse::bandwidth(&a);
/// assert_eq!((b.max_row, b.bw, b.one_sided, b.profile), (3, 7, 4, 6));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bandwidth {
    /// `max_i b_i`.
    pub max_row: usize,
    /// The paper's `bw = 2·max_i b_i + 1` (§2.2).
    pub bw: usize,
    /// `max_i b_i + 1`, the convention of the paper's Table 1.
    pub one_sided: usize,
    /// Profile / envelope size `Σ_i b_i`.
    pub profile: usize,
}

impl Bandwidth {
    fn from_rows(b: impl Iterator<Item = usize>) -> Self {
        let (mut max_row, mut profile) = (0, 0);
        for bi in b {
            max_row = max_row.max(bi);
            profile += bi;
        }
        Bandwidth { max_row, bw: 2 * max_row + 1, one_sided: max_row + 1, profile }
    }
}

/// Bandwidth and profile of the structurally symmetric matrix `a` (by symmetry, row `j`'s first
/// column is column `j`'s first row).
///
/// ```
/// // Tridiagonal: every row reaches one column left of the diagonal (the first row none).
/// let a = nalgebra::DMatrix::<f64>::from_fn(5, 5, |i, j| if i.abs_diff(j) <= 1 { 1.0 } else { 0.0 });
/// let b = kern_sparse::bandwidth(&nalgebra_sparse::CscMatrix::from(&a));
/// assert_eq!((b.max_row, b.bw, b.one_sided, b.profile), (1, 3, 2, 4));
/// ```
pub fn bandwidth(a: &CscMatrix<f64>) -> Bandwidth {
    Bandwidth::from_rows((0..a.ncols()).map(|j| {
        let first = a.col(j).row_indices().first().copied().unwrap_or(j);
        j.saturating_sub(first)
    }))
}

/// Bandwidth and profile of `P A Pᵀ` without forming it.
///
/// ```
/// use kern_sparse::{bandwidth, bandwidth_permuted, permute_symmetric, rcm};
/// let a = nalgebra_sparse::CscMatrix::from(&nalgebra::DMatrix::from_fn(6, 6, |i, j| {
///     if (i as i64 - j as i64).abs() == 3 || i == j { 1.0 } else { 0.0 }
/// }));
/// let p = rcm(&a)?;
/// assert_eq!(bandwidth_permuted(&a, &p)?, bandwidth(&permute_symmetric(&a, &p)?));
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
pub fn bandwidth_permuted(a: &CscMatrix<f64>, p: &Permutation) -> Result<Bandwidth> {
    let n = check_square(a)?;
    if p.len() != n {
        return Err(SparseError::Dimension { what: "permutation", expected: n, found: p.len() });
    }
    let inv = p.inv();
    Ok(Bandwidth::from_rows((0..n).map(|j| {
        let jn = inv[j];
        let first = a.col(j).row_indices().iter().map(|&i| inv[i]).min().unwrap_or(jn);
        jn.saturating_sub(first)
    })))
}

/// Every stored entry as `(row, col)`, column by column (for spy plots of small matrices, Fig. 2).
///
/// ```
/// let a = nalgebra_sparse::CscMatrix::<f64>::identity(2);
/// assert_eq!(kern_sparse::pattern_entries(&a), vec![(0, 0), (1, 1)]);
/// ```
pub fn pattern_entries(a: &CscMatrix<f64>) -> Vec<(usize, usize)> {
    let (cp, ri) = (a.col_offsets(), a.row_indices());
    (0..a.ncols()).flat_map(|j| ri[cp[j]..cp[j + 1]].iter().map(move |&i| (i, j))).collect()
}

/// A `cells × cells` density grid of the pattern (row-major, `grid[r * cells + c]` = fraction of
/// stored entries among the matrix entries that fall in cell `(r, c)`): a spy plot of any size.
///
/// ```
/// let a = nalgebra_sparse::CscMatrix::<f64>::identity(4);
/// let g = kern_sparse::pattern_density(&a, 2);
/// assert_eq!(g, vec![0.5, 0.0, 0.0, 0.5]);
/// ```
pub fn pattern_density(a: &CscMatrix<f64>, cells: usize) -> Vec<f64> {
    let (nr, nc) = (a.nrows(), a.ncols());
    let cells = cells.max(1);
    let mut counts = vec![0usize; cells * cells];
    let cell_of = |i: usize, len: usize| (i * cells / len.max(1)).min(cells - 1);
    for j in 0..nc {
        let cj = cell_of(j, nc);
        for &i in a.col(j).row_indices() {
            counts[cell_of(i, nr) * cells + cj] += 1;
        }
    }
    // Matrix entries per cell: product of the row and column spans.
    let span = |k: usize, len: usize| {
        let lo = (k * len).div_ceil(cells);
        let hi = ((k + 1) * len).div_ceil(cells).min(len);
        hi.saturating_sub(lo)
    };
    let mut out = vec![0.0; cells * cells];
    for r in 0..cells {
        for c in 0..cells {
            let total = span(r, nr) * span(c, nc);
            out[r * cells + c] = if total == 0 { 0.0 } else { counts[r * cells + c] as f64 / total as f64 };
        }
    }
    out
}
