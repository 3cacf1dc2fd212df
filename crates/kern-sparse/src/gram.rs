//! Sparse Gram matrices `K_C` of compactly supported kernels (CS-RBF paper §2), assembled in parallel
//! from an exact radius neighbour search, never forming the dense matrix.
//!
//! Storage is `nalgebra_sparse::CscMatrix<f64>` with the full symmetric pattern (both triangles), the
//! diagonal always present, row indices sorted in every column. The output is deterministic: the same
//! data give the same matrix at any thread count. Entries whose kernel value is exactly `0.0`
//! (pairs at distance `≥ C`, or values that underflow) are not stored, except on the diagonal.
//!
//! ```
//! use kern_core::{CompactlySupported, Gaussian, Kernel, Samples};
//! use kern_sparse::{sparse_cross_gram, sparse_gram};
//! let x = Samples::from_rows(&[[0.0], [0.5], [5.0]])?;
//! let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?; // support radius C = 1
//! let g = sparse_gram(&k, &x)?;
//! let entry = |i, j| g.matrix().get_entry(i, j).unwrap().into_value();
//! assert_eq!(entry(0, 1), entry(1, 0));
//! assert_eq!(entry(0, 1), k.eval(&[0.0], &[0.5]));
//! assert_eq!((g.nnz(), entry(0, 2)), (5, 0.0)); // the far point keeps only its diagonal
//! let c = sparse_cross_gram(&k, &x, &Samples::from_rows(&[[4.8]])?)?;
//! assert_eq!((c.nrows(), c.ncols(), c.nnz()), (3, 1, 1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::csc_ops::RowIndex;
use crate::error::{Result, SparseError};
use crate::neighbors::{Neighbor, NeighborIndex, SearchMethod};
use kern_core::{Kernel, Profile, SampleRef, Samples};
use nalgebra_sparse::CscMatrix;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Storage and sparsity figures of a sparse Gram matrix (paper §2 and eq. 7).
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// let x = Samples::from_rows(&[[0.0], [0.5], [5.0]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
/// let s = kern_sparse::sparse_gram(&k, &x)?.stats();
/// assert_eq!(s.nnz, 5);                           // 3 diagonal + (0,1) + (1,0)
/// assert!((s.sparsity - 4.0 / 9.0).abs() < 1e-15);
/// assert_eq!(s.bytes_paper, 12 * 5 + 4 * 3);       // 12N + 4n
/// assert_eq!(s.bytes_dense, 8 * 9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SparsityStats {
    /// Matrix size `n`.
    pub n: usize,
    /// Stored non-zeros `N` (both triangles and the diagonal).
    pub nnz: usize,
    /// `S = (n² − N) / n²`, the fraction of zero entries (eq. 7).
    pub sparsity: f64,
    /// The paper's storage estimate `12N + 4n` bytes (8-byte values, 4-byte indices).
    pub bytes_paper: usize,
    /// The real bytes of this CSC matrix (`8N` values + `8N` row indices + `8(n + 1)` column offsets).
    pub bytes_csc: usize,
    /// The dense matrix: `8n²` bytes.
    pub bytes_dense: usize,
}

impl SparsityStats {
    /// The figures of any square CSC matrix.
    ///
    /// ```
    /// let m = nalgebra_sparse::CscMatrix::<f64>::identity(4);
    /// let s = kern_sparse::SparsityStats::of(&m);
    /// assert_eq!((s.n, s.nnz), (4, 4));
    /// assert_eq!(s.sparsity, 0.75);
    /// ```
    pub fn of(m: &CscMatrix<f64>) -> Self {
        let n = m.ncols();
        let nnz = m.nnz();
        let n2 = n as f64 * n as f64;
        SparsityStats {
            n,
            nnz,
            sparsity: if n == 0 { 0.0 } else { (n2 - nnz as f64) / n2 },
            bytes_paper: 12 * nnz + 4 * n,
            bytes_csc: nnz * (size_of::<f64>() + size_of::<usize>()) + (n + 1) * size_of::<usize>(),
            bytes_dense: n.saturating_mul(n).saturating_mul(8),
        }
    }
}

/// Options of the sparse Gram assembly.
///
/// ```
/// use kern_sparse::{GramOptions, SearchMethod};
/// let o = GramOptions { search: SearchMethod::Scan };
/// assert_ne!(o, GramOptions::default());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GramOptions {
    /// How neighbours are found (default: by dimension, see [`SearchMethod::Auto`]).
    pub search: SearchMethod,
}

/// A sparse symmetric Gram matrix `K_C` with its support radius.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Kernel, Samples};
/// use kern_sparse::sparse_gram;
/// let x = Samples::from_rows(&[[0.0, 0.0], [0.3, 0.0], [4.0, 4.0]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 2.0)?;
/// let g = sparse_gram(&k, &x)?;
/// let m = g.matrix();
/// assert_eq!(m.get_entry(0, 2).unwrap().into_value(), 0.0);
/// assert_eq!(m.get_entry(0, 1).unwrap().into_value(), k.eval(x.row(0), x.row(1)));
/// assert_eq!(g.radius(), 1.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SparseGram {
    matrix: CscMatrix<f64>,
    c: f64,
}

impl SparseGram {
    /// The matrix (full symmetric storage, diagonal present, sorted row indices).
    pub fn matrix(&self) -> &CscMatrix<f64> {
        &self.matrix
    }

    /// Consumes `self`, returning the matrix.
    pub fn into_matrix(self) -> CscMatrix<f64> {
        self.matrix
    }

    /// The support radius `C` used.
    pub fn radius(&self) -> f64 {
        self.c
    }

    /// Matrix size `n`.
    pub fn n(&self) -> usize {
        self.matrix.ncols()
    }

    /// Stored non-zeros.
    pub fn nnz(&self) -> usize {
        self.matrix.nnz()
    }

    /// Sparsity `S` (eq. 7).
    pub fn sparsity(&self) -> f64 {
        self.stats().sparsity
    }

    /// Storage figures.
    pub fn stats(&self) -> SparsityStats {
        SparsityStats::of(&self.matrix)
    }
}

/// The support radius of `k`, or [`SparseError::NoCompactSupport`].
pub(crate) fn support_radius<K: Kernel>(k: &K) -> Result<f64> {
    match k.support_radius() {
        Some(c) if c.is_finite() && c > 0.0 => Ok(c),
        Some(c) => {
            Err(SparseError::Param { name: "c", value: c, reason: "support radius must be finite and > 0" })
        }
        None => Err(SparseError::NoCompactSupport),
    }
}

/// The sparse Gram matrix `K_C(X, X)` of a compactly supported kernel (`support_radius() == Some(C)`),
/// with [`GramOptions::default`].
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// let x = Samples::from_rows(&[[0.0], [0.5], [0.9], [7.0]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
/// let g = kern_sparse::sparse_gram(&k, &x)?;
/// assert_eq!(g.nnz(), 4 + 2 * 3);  // diagonal + pairs (0,1), (0,2), (1,2) in both triangles
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sparse_gram<K: Kernel>(k: &K, x: &Samples) -> Result<SparseGram> {
    sparse_gram_with(k, x, GramOptions::default())
}

/// [`sparse_gram`] with explicit options.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// use kern_sparse::{GramOptions, SearchMethod, sparse_gram_with};
/// let x = Samples::from_rows(&[[0.0, 0.0], [0.4, 0.1], [0.9, 0.0], [5.0, 5.0]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 2.0)?;
/// let grid = sparse_gram_with(&k, &x, GramOptions { search: SearchMethod::Grid })?;
/// let brute = sparse_gram_with(&k, &x, GramOptions { search: SearchMethod::Brute })?;
/// assert_eq!(grid.matrix(), brute.matrix()); // the same neighbours, the same values
/// assert_eq!(grid.nnz(), 4 + 2 * 3);          // the far point has only its diagonal
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sparse_gram_with<K: Kernel>(k: &K, x: &Samples, opts: GramOptions) -> Result<SparseGram> {
    let c = support_radius(k)?;
    k.check_dim(x.d())?;
    let index = NeighborIndex::with_method(x, c, opts.search)?;
    let matrix = assemble(k, &index, x, true);
    Ok(SparseGram { matrix, c })
}

/// [`sparse_gram`] over an existing index of `x` (built with the kernel's radius): saves the
/// index construction when the same points are used again.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// let x = Samples::from_rows(&[[0.0], [0.5]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
/// let idx = kern_sparse::NeighborIndex::new(&x, 1.0)?;
/// assert_eq!(kern_sparse::sparse_gram_indexed(&k, &idx)?, kern_sparse::sparse_gram(&k, &x)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sparse_gram_indexed<K: Kernel>(k: &K, index: &NeighborIndex) -> Result<SparseGram> {
    let c = check_index_radius(k, index)?;
    k.check_dim(index.points().d())?;
    let matrix = assemble(k, index, index.points(), true);
    Ok(SparseGram { matrix, c })
}

/// The sparse cross Gram matrix `K_C(X, Y)`, `n_x × n_y` (`[i, j] = k(x_i, y_j)`), as CSC with sorted
/// row indices; column `j` holds the neighbours of `y_j` among the `x_i`.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Kernel, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0], [5.0]])?;
/// let y = Samples::from_rows(&[[0.2], [4.5]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
/// let g = kern_sparse::sparse_cross_gram(&k, &x, &y)?;
/// assert_eq!((g.nrows(), g.ncols()), (3, 2));
/// assert_eq!(g.nnz(), 3);   // (0,0), (1,0), (2,1)
/// assert_eq!(g.get_entry(2, 1).unwrap().into_value(), k.eval(&[5.0], &[4.5]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sparse_cross_gram<K: Kernel>(k: &K, x: &Samples, y: &Samples) -> Result<CscMatrix<f64>> {
    let c = support_radius(k)?;
    x.check_same_dim(y)?;
    k.check_dim(x.d())?;
    let index = NeighborIndex::new(x, c)?;
    Ok(assemble(k, &index, y, false))
}

/// [`sparse_cross_gram`] over an existing index of `X` (e.g. kept by a trained model): `K_C(X, Y)`.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0]])?;
/// let y = Samples::from_rows(&[[0.1]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
/// let idx = kern_sparse::NeighborIndex::new(&x, 1.0)?;
/// assert_eq!(kern_sparse::sparse_cross_gram_indexed(&k, &idx, &y)?, kern_sparse::sparse_cross_gram(&k, &x, &y)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sparse_cross_gram_indexed<K: Kernel>(
    k: &K,
    index: &NeighborIndex,
    y: &Samples,
) -> Result<CscMatrix<f64>> {
    check_index_radius(k, index)?;
    index.points().check_same_dim(y)?;
    k.check_dim(y.d())?;
    Ok(assemble(k, index, y, false))
}

fn check_index_radius<K: Kernel>(k: &K, index: &NeighborIndex) -> Result<f64> {
    let c = support_radius(k)?;
    if c > index.radius() {
        return Err(SparseError::Param {
            name: "c",
            value: c,
            reason: "kernel support radius exceeds the neighbour index radius (neighbours would be missed)",
        });
    }
    Ok(c)
}

/// Assembles `K[i, j] = k(x_i, q_j)` for the neighbours `i` of every query `q_j`. With `symmetric`,
/// the queries are the indexed points and the diagonal is always stored.
fn assemble<K: Kernel>(k: &K, index: &NeighborIndex, queries: &Samples, symmetric: bool) -> CscMatrix<f64> {
    let nrows = index.len();
    let ncols = queries.n();
    let (col_ptr, row_idx, values) = assemble_parts::<K, usize>(k, index, queries, symmetric, false);
    CscMatrix::try_from_csc_data(nrows, ncols, col_ptr, row_idx, values)
        .expect("assembled CSC data is valid: sorted unique rows per column")
}

/// The compressed columns (offsets, sorted row indices of type `I`, values) of [`assemble`]'s
/// matrix; with `lower`, only the entries on or below the diagonal (row `i ≥` column `j`: the lower
/// triangle of the symmetric `K_C` of [`crate::sym_lower`]). The caller makes sure every row index
/// fits in `I`.
///
/// Two passes over the neighbour search, so that the only allocation of the size of the matrix is the
/// matrix itself (`16·nnz` bytes with `usize` indices, `12·nnz` with `u32`): the first counts the
/// stored entries of every column, the second writes each task's columns straight into its own slice
/// of the final arrays. Collecting per-task lists and concatenating them (the earlier assembly) held
/// both copies at once, `32·nnz` bytes at its peak; the price is a second search.
pub(crate) fn assemble_parts<K: Kernel, I: RowIndex + Default>(
    k: &K,
    index: &NeighborIndex,
    queries: &Samples,
    symmetric: bool,
    lower: bool,
) -> (Vec<usize>, Vec<I>, Vec<f64>) {
    let ncols = queries.n();
    let radial = k.profile() == Profile::SqDist;
    let points = index.points();
    // The neighbours of query `j` whose entries are stored, with their values (into `vals`). In the
    // lower mode only the neighbours on or below the diagonal (a suffix: the lists are sorted by
    // index) are evaluated, so the kernel is evaluated for half the pairs.
    let stored = |nbs: &[Neighbor], j: usize, vals: &mut Vec<f64>, emit: &mut dyn FnMut(usize, f64)| {
        let nbs = if lower { &nbs[nbs.partition_point(|nb| nb.index < j)..] } else { nbs };
        entry_values(k, radial, points, nbs, queries.sample(j), vals);
        for (nb, &v) in nbs.iter().zip(vals.iter()) {
            if is_stored(v, nb, j, symmetric) {
                emit(nb.index, v);
            }
        }
    };
    let ranges = index.task_ranges(ncols);
    // Pass 1: entries per column.
    let counts: Vec<Vec<usize>> = ranges
        .par_iter()
        .map(|range| {
            let mut counts = Vec::with_capacity(range.len());
            let mut vals = Vec::new();
            index.block_neighbors(queries, range.clone(), &mut |j, nbs| {
                let mut count = 0;
                stored(nbs, j, &mut vals, &mut |_, _| count += 1);
                counts.push(count);
            });
            counts
        })
        .collect();
    let mut col_ptr = Vec::with_capacity(ncols + 1);
    col_ptr.push(0);
    for c in counts.iter().flatten() {
        col_ptr.push(col_ptr.last().copied().unwrap_or(0) + c);
    }
    drop(counts);
    let nnz = col_ptr[ncols];
    let mut row_idx = vec![I::default(); nnz];
    let mut values = vec![0.0f64; nnz];
    // Pass 2: each task fills its columns' disjoint slice.
    let mut slices = Vec::with_capacity(ranges.len());
    let (mut rest_r, mut rest_v) = (row_idx.as_mut_slice(), values.as_mut_slice());
    for range in &ranges {
        let len = col_ptr[range.end] - col_ptr[range.start];
        let (r, rr) = rest_r.split_at_mut(len);
        let (v, rv) = rest_v.split_at_mut(len);
        slices.push((range.clone(), r, v));
        (rest_r, rest_v) = (rr, rv);
    }
    slices.into_par_iter().for_each(|(range, rows, vals)| {
        let (mut at, mut scratch) = (0, Vec::new());
        index.block_neighbors(queries, range, &mut |j, nbs| {
            stored(nbs, j, &mut scratch, &mut |i, v| {
                rows[at] = I::from_usize(i);
                vals[at] = v;
                at += 1;
            });
        });
        // The search and the kernel are deterministic: the second pass stores what the first counted.
        assert_eq!(at, rows.len(), "the two passes of the sparse assembly disagree");
    });
    (col_ptr, row_idx, values)
}

/// The values `k(x_i, q)` of the assembly's entries for the neighbours `nbs` (the `x_i`) of query
/// `q`, into `out` (cleared first): for a radial kernel the kernel of the exact squared distances
/// in one vectorized batch ([`Kernel::apply_sq_dist`]: over a Gaussian base its `exp` is within a
/// few ulp of [`Kernel::eval`]'s), else the kernel on the two samples.
fn entry_values<K: Kernel>(
    k: &K,
    radial: bool,
    points: &Samples,
    nbs: &[Neighbor],
    q: SampleRef<'_>,
    out: &mut Vec<f64>,
) {
    out.clear();
    if radial {
        out.extend(nbs.iter().map(|nb| nb.sq_dist));
        k.apply_sq_dist(out);
    } else {
        out.extend(nbs.iter().map(|nb| k.eval_ref(points.sample(nb.index), q)));
    }
}

/// Whether the assembly stores an entry of value `v` (neighbour `nb` of query `j`): non-zero, or on
/// the diagonal of a symmetric matrix.
#[inline]
fn is_stored(v: f64, nb: &Neighbor, j: usize, symmetric: bool) -> bool {
    (v != 0.0) | (symmetric & (nb.index == j))
}

/// Column `j` of `K_C(X, X)` over an index of `X` into `rows`/`vals` (cleared first; `nbs` is
/// scratch): the entries the symmetric assembly stores in that column, same rows, same values, bit
/// for bit (the same search and the same value function), for columns computed on demand.
pub(crate) fn gram_column_into<K: Kernel>(
    k: &K,
    index: &NeighborIndex,
    j: usize,
    nbs: &mut Vec<Neighbor>,
    rows: &mut Vec<usize>,
    vals: &mut Vec<f64>,
) {
    index.point_neighbors_into(j, nbs);
    stored_entries(k, index, j, nbs, rows, vals);
}

/// Neighbours a column needs before [`gram_column_halves_into`] computes its values in two halves.
pub(crate) const HALVES_MIN_NEIGHBOURS: usize = 512;

/// The second half's scratch of [`gram_column_halves_into`].
#[derive(Debug, Default)]
pub(crate) struct HalvesScratch {
    nbs: Vec<Neighbor>,
    runs: Vec<Range<usize>>,
    rows: Vec<usize>,
    vals: Vec<f64>,
}

/// [`gram_column_into`] with its work in two halves on two threads of the pool: the neighbour search
/// over two parts of the grid's candidates, then the values and the stored entries of each half of
/// the neighbours, when the column has at least [`HALVES_MIN_NEIGHBOURS`] of them. The search finds
/// the same neighbours (sorted by index after), and each value depends on its neighbour only, so the
/// column is the same, bit for bit.
pub(crate) fn gram_column_halves_into<K: Kernel>(
    k: &K,
    index: &NeighborIndex,
    j: usize,
    nbs: &mut Vec<Neighbor>,
    (rows, vals): (&mut Vec<usize>, &mut Vec<f64>),
    second: &mut HalvesScratch,
) {
    let HalvesScratch { nbs: nbs2, runs, rows: rows2, vals: vals2 } = second;
    index.point_neighbors_halves_into(j, HALVES_MIN_NEIGHBOURS, nbs, (nbs2, runs));
    if nbs.len() < HALVES_MIN_NEIGHBOURS {
        return stored_entries(k, index, j, nbs, rows, vals);
    }
    let (a, b) = nbs.split_at(crate::kmatrix::caller_share(nbs.len()));
    rayon::join(
        || stored_entries(k, index, j, a, rows, vals),
        || stored_entries(k, index, j, b, rows2, vals2),
    );
    rows.extend_from_slice(rows2);
    vals.extend_from_slice(vals2);
}

/// The entries of column `j` that the symmetric assembly stores among the neighbours `nbs` (sorted by
/// index), into `rows`/`vals` (cleared first).
fn stored_entries<K: Kernel>(
    k: &K,
    index: &NeighborIndex,
    j: usize,
    nbs: &[Neighbor],
    rows: &mut Vec<usize>,
    vals: &mut Vec<f64>,
) {
    let radial = k.profile() == Profile::SqDist;
    let points = index.points();
    entry_values(k, radial, points, nbs, points.sample(j), vals);
    rows.clear();
    rows.extend(nbs.iter().map(|nb| nb.index));
    // The stored entries moved to the front of `rows` and `vals` (`kept ≤ e`: each entry is read
    // before its slot is overwritten), written whether stored or not and kept by advancing `kept`:
    // no branch per entry.
    let mut kept = 0;
    for e in 0..nbs.len() {
        let (v, nb) = (vals[e], &nbs[e]);
        rows[kept] = nb.index;
        vals[kept] = v;
        kept += usize::from(is_stored(v, nb, j, true));
    }
    rows.truncate(kept);
    vals.truncate(kept);
}
