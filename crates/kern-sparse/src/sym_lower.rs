//! The symmetric sparse Gram matrix `K_C` stored by its lower triangle only — the operator of the
//! conjugate-gradient solve ([`Pcg::from_lower`](crate::Pcg::from_lower)) when no factor is needed.
//!
//! **Storage.** Compressed columns of `L`, the entries `K_ij` with `i ≥ j` (diagonal included), with
//! `u32` row indices: `12` bytes per stored entry instead of the full storage's `16` bytes for both
//! triangles, so `(nnz + n)/2 · 12` bytes against `16 · nnz` — 0.95 GB against 2.54 GB at the
//! 200,000-point green-red problem of 800 neighbours per point. `n ≥ 2³²` is refused (the full
//! storage of [`sparse_gram`](crate::sparse_gram) has no such limit). It is assembled directly from
//! the neighbour search ([`crate::gram`]'s assembly in its lower mode), so the full matrix never
//! exists.
//!
//! **Numbering.** The points are first put in the cell order of the neighbour grid
//! ([`cell_order`]; the data's own order when the grid does not index them), and the matrix is
//! `P K_C Pᵀ` in that order ([`SymLower::permutation`]): neighbours are then close in the order,
//! which keeps the product's scatter (below) to a narrow band of rows.
//!
//! **The product** `y = (L + Lᵀ − D) x + s·x`, the same bytes at any thread count. The columns are
//! cut into fixed chunks of [`SYM_CHUNK`] columns (independent of the thread count). One task per
//! chunk, in its columns' order: for column `j`, `acc = s·x_j + Σ_{i ≥ j} L_ij x_i` (the gather of
//! row `j` of `Lᵀ`, in stored order), and for every `i > j`, `L_ij x_j` is added to the chunk's own
//! buffer at row `i` (the scatter of `L x`); `acc` is then added to the buffer at row `j`. The buffer
//! covers rows `[first column, 1 + largest row stored in the chunk)`, a band in the cell order. Then
//! one task per chunk of output rows sums, for each row, the buffers that cover it in chunk order,
//! starting from zero. Every output entry is thus one fixed sequence of floating-point operations,
//! decided by the matrix alone; the tasks only change who runs them. The order differs from the full
//! storage's column dot products, so the two agree to rounding, not to the bit.
//!
//! ```
//! use kern_core::{CompactlySupported, Gaussian, Samples};
//! use kern_sparse::{GramMatrix, permute_symmetric, sparse_gram, sparse_gram_lower};
//! let x = Samples::from_rows(&[[0.0], [0.5], [5.0], [0.9]])?;
//! let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
//! let l = sparse_gram_lower(&k, &x)?; // the lower triangle, in cell order
//! let full = sparse_gram(&k, &x)?.into_matrix();
//! assert_eq!(l.nnz(), (full.nnz() + 4) / 2); // one triangle and the diagonal
//! assert_eq!(l.to_full(), permute_symmetric(&full, l.permutation())?); // P K_C Pᵀ
//! let v = [1.0, -2.0, 0.5, 3.0];
//! let y = l.mul_shifted(0.5, &v)?; // (K_C + 0.5 I) v, in the data's numbering
//! let kv = GramMatrix::Sparse(full).mul_vec(&v)?;
//! assert!((0..4).all(|i| (y[i] - kv[i] - 0.5 * v[i]).abs() < 1e-14));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::csc_ops::RowIndex;
use crate::error::{Result, SparseError};
use crate::gram::{assemble_parts, support_radius};
use crate::neighbors::{NeighborIndex, cell_order};
use crate::ordering::Permutation;
use kern_core::{Kernel, Samples};
use nalgebra_sparse::CscMatrix;
use rayon::prelude::*;

/// Columns per chunk of the symmetric product (module docs); a constant, so that the sums do not
/// depend on the thread count.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// use kern_sparse::{sparse_gram_lower, sym_lower::SYM_CHUNK};
/// // SYM_CHUNK + 1 points too far apart to be neighbours: two chunks of columns, K_C = I.
/// let n = SYM_CHUNK + 1;
/// let x = Samples::from_flat((0..n).map(|i| 3.0 * i as f64).collect(), n, 1)?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
/// let l = sparse_gram_lower(&k, &x)?;
/// assert_eq!(l.scratch_len(1), 2 * SYM_CHUNK); // one band of the widest chunk per chunk
/// let v: Vec<f64> = (0..n).map(|i| i as f64).collect();
/// assert_eq!(l.mul_shifted(0.5, &v)?, v.iter().map(|x| 1.5 * x).collect::<Vec<_>>());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const SYM_CHUNK: usize = 2048;

/// A symmetric sparse `K_C` by its lower triangle (module docs), in the cell order of its points.
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// use kern_sparse::{sparse_gram, sparse_gram_lower};
/// let x = Samples::from_rows(&[[0.0], [0.5], [5.0], [0.9]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
/// let l = sparse_gram_lower(&k, &x)?;
/// let full = sparse_gram(&k, &x)?;
/// assert_eq!(l.nnz(), (full.nnz() + 4) / 2);        // one triangle and the diagonal
/// let v = [1.0, -2.0, 0.5, 3.0];
/// let y = l.mul_shifted(0.5, &v)?;                   // (K_C + 0.5 I) v, in the data's numbering
/// let want = kern_sparse::GramMatrix::Sparse(full.into_matrix()).mul_vec(&v)?;
/// for i in 0..4 { assert!((y[i] - want[i] - 0.5 * v[i]).abs() < 1e-14); }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SymLower {
    n: usize,
    col_ptr: Vec<usize>,
    rows: Vec<u32>,
    vals: Vec<f64>,
    perm: Permutation,
    radius: f64,
    /// Per chunk of columns: one past the largest row stored in it.
    hi: Vec<usize>,
    /// The widest chunk buffer: `max (hi[c] − c·SYM_CHUNK)`.
    width: usize,
}

/// The lower triangle of `K_C(X, X)` of a compactly supported kernel in the cell order of `x`
/// ([`SymLower`]; errors as [`sparse_gram`](crate::sparse_gram), and for `n ≥ 2³²`).
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// let x = Samples::from_rows(&[[0.0, 0.0], [0.3, 0.0], [4.0, 4.0]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 2.0)?;
/// let l = kern_sparse::sparse_gram_lower(&k, &x)?;
/// assert_eq!((l.n(), l.nnz()), (3, 4));   // 3 diagonal entries and the pair (0, 1)
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sparse_gram_lower<K: Kernel>(k: &K, x: &Samples) -> Result<SymLower> {
    let c = support_radius(k)?;
    k.check_dim(x.d())?;
    let n = x.n();
    if n > u32::MAX as usize {
        return Err(SparseError::Matrix(format!(
            "the lower-triangle storage holds at most {} points (32-bit indices), got {n}; use the full \
             storage",
            u32::MAX
        )));
    }
    let order = cell_order(x, c).unwrap_or_else(|| (0..n).collect());
    let xs = x.select(&order)?;
    let perm = Permutation::from_vec(order)?;
    let index = NeighborIndex::new(&xs, c)?;
    let (col_ptr, rows, vals) = assemble_parts::<K, u32>(k, &index, &xs, true, true);
    drop(index);
    let hi: Vec<usize> = (0..n.div_ceil(SYM_CHUNK))
        .map(|ch| {
            let (j0, j1) = (ch * SYM_CHUNK, ((ch + 1) * SYM_CHUNK).min(n));
            // The diagonal is stored, so every column's last row is ≥ the column.
            (j0..j1).map(|j| rows[col_ptr[j + 1] - 1].at() + 1).max().unwrap_or(j1)
        })
        .collect();
    let width = hi.iter().enumerate().map(|(ch, &h)| h - ch * SYM_CHUNK).max().unwrap_or(0);
    Ok(SymLower { n, col_ptr, rows, vals, perm, radius: c, hi, width })
}

impl SymLower {
    /// Matrix size `n`.
    ///
    /// ```
    /// # use kern_core::{CompactlySupported, Gaussian, Samples};
    /// # let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
    /// let l = kern_sparse::sparse_gram_lower(&k, &Samples::from_rows(&[[0.0], [2.0]])?)?;
    /// assert_eq!(l.n(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn n(&self) -> usize {
        self.n
    }

    /// Stored entries: the lower triangle and the diagonal.
    ///
    /// ```
    /// # use kern_core::{CompactlySupported, Gaussian, Samples};
    /// # let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
    /// let l = kern_sparse::sparse_gram_lower(&k, &Samples::from_rows(&[[0.0], [0.5]])?)?;
    /// assert_eq!(l.nnz(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn nnz(&self) -> usize {
        self.vals.len()
    }

    /// Bytes of the storage: `12·nnz` (values and `u32` row indices) plus `8(n + 1)` column offsets.
    ///
    /// ```
    /// # use kern_core::{CompactlySupported, Gaussian, Samples};
    /// # let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
    /// let l = kern_sparse::sparse_gram_lower(&k, &Samples::from_rows(&[[0.0], [0.5]])?)?;
    /// assert_eq!(l.bytes(), 12 * 3 + 8 * 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bytes(&self) -> usize {
        self.nnz() * (size_of::<f64>() + size_of::<u32>()) + self.col_ptr.len() * size_of::<usize>()
    }

    /// The cell order of the matrix: `perm()[p]` is the data index of the point at position `p`.
    ///
    /// ```
    /// # use kern_core::{CompactlySupported, Gaussian, Samples};
    /// # let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
    /// let l = kern_sparse::sparse_gram_lower(&k, &Samples::from_rows(&[[5.0], [0.0]])?)?;
    /// assert_eq!(l.permutation().perm(), &[1, 0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn permutation(&self) -> &Permutation {
        &self.perm
    }

    /// The support radius `C` used.
    ///
    /// ```
    /// # use kern_core::{CompactlySupported, Gaussian, Samples};
    /// # let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 0.7, 1.0)?;
    /// let l = kern_sparse::sparse_gram_lower(&k, &Samples::from_rows(&[[0.0]])?)?;
    /// assert_eq!(l.radius(), 0.7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// Scratch entries the product needs for `k` vectors at once: one buffer of the widest chunk's
    /// band per chunk of columns (module docs). Compare with [`SymLower::nnz`] before relying on it
    /// for points the grid does not order.
    ///
    /// ```
    /// # use kern_core::{CompactlySupported, Gaussian, Samples};
    /// # let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
    /// let l = kern_sparse::sparse_gram_lower(&k, &Samples::from_rows(&[[0.0], [0.5], [9.0]])?)?;
    /// assert_eq!(l.scratch_len(2), 2 * 3);   // one chunk, rows 0..3
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn scratch_len(&self, k: usize) -> usize {
        self.hi.len() * self.width * k
    }

    /// The full symmetric storage of the same matrix, in the cell order (`P K_C Pᵀ`, with
    /// [`SymLower::permutation`]): the entries bit for bit.
    ///
    /// ```
    /// # use kern_core::{CompactlySupported, Gaussian, Samples};
    /// # let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
    /// let l = kern_sparse::sparse_gram_lower(&k, &Samples::from_rows(&[[0.0], [0.5]])?)?;
    /// let f = l.to_full();
    /// assert_eq!(f.get_entry(0, 1).unwrap().into_value(), f.get_entry(1, 0).unwrap().into_value());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_full(&self) -> CscMatrix<f64> {
        let mut counts = vec![0usize; self.n];
        for j in 0..self.n {
            for e in self.col_ptr[j]..self.col_ptr[j + 1] {
                counts[j] += 1;
                let i = self.rows[e].at();
                if i != j {
                    counts[i] += 1;
                }
            }
        }
        let mut col_ptr = vec![0usize; self.n + 1];
        for j in 0..self.n {
            col_ptr[j + 1] = col_ptr[j] + counts[j];
        }
        let mut next = col_ptr[..self.n].to_vec();
        let mut rows = vec![0usize; col_ptr[self.n]];
        let mut vals = vec![0.0; col_ptr[self.n]];
        // Column i's upper entries (rows j < i) come from the columns j < i, visited in order, before
        // its own lower entries: the rows stay sorted.
        for j in 0..self.n {
            for e in self.col_ptr[j]..self.col_ptr[j + 1] {
                let i = self.rows[e].at();
                if i != j {
                    rows[next[i]] = j;
                    vals[next[i]] = self.vals[e];
                    next[i] += 1;
                }
            }
            for e in self.col_ptr[j]..self.col_ptr[j + 1] {
                rows[next[j]] = self.rows[e].at();
                vals[next[j]] = self.vals[e];
                next[j] += 1;
            }
        }
        CscMatrix::try_from_csc_data(self.n, self.n, col_ptr, rows, vals)
            .expect("the mirrored lower triangle is valid CSC data")
    }

    /// `(K_C + s·I) v` for one vector in the data's numbering (allocates its scratch; the solver
    /// uses the in-place product of the cell order). Errors when `v` is not of length `n`.
    ///
    /// ```
    /// # use kern_core::{CompactlySupported, Gaussian, Samples};
    /// # let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
    /// let l = kern_sparse::sparse_gram_lower(&k, &Samples::from_rows(&[[0.0], [9.0]])?)?;
    /// assert_eq!(l.mul_shifted(1.0, &[2.0, 3.0])?, vec![4.0, 6.0]);   // K_C = I here
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mul_shifted(&self, shift: f64, v: &[f64]) -> Result<Vec<f64>> {
        if v.len() != self.n {
            return Err(SparseError::Dimension { what: "vector", expected: self.n, found: v.len() });
        }
        let vp: Vec<f64> = self.perm.perm().iter().map(|&old| v[old]).collect();
        let mut yp = vec![0.0; self.n];
        let mut scratch = vec![0.0; self.scratch_len(1)];
        self.shifted_product(shift, &vp, &mut yp, 1, &[true], &mut scratch);
        let inv = self.perm.inv();
        Ok((0..self.n).map(|old| yp[inv[old]]).collect())
    }

    /// `out = (L + Lᵀ − D + s·I) v` for `k` interleaved vectors in the cell order (`v[i·k + t]`),
    /// skipping the vectors with `active[t] = false` (their output is `0`); `scratch` holds at least
    /// [`SymLower::scratch_len`]`(k)` entries. Vector `t`'s result does not depend on `k`, on the other
    /// vectors, or on the thread count (module docs). Sizes are the caller's to check.
    pub(crate) fn shifted_product(
        &self,
        shift: f64,
        v: &[f64],
        out: &mut [f64],
        k: usize,
        active: &[bool],
        scratch: &mut [f64],
    ) {
        let (n, stride) = (self.n, self.width * k);
        if n == 0 {
            return;
        }
        let (cp, rows, vals) = (&self.col_ptr, &self.rows, &self.vals);
        let scratch = &mut scratch[..self.hi.len() * stride];
        // Phase 1: each chunk of columns gathers its rows of Lᵀv and scatters Lv into its band (a
        // column's entries are read from memory once; the passes for further vectors find them in
        // cache).
        scratch.par_chunks_mut(stride).enumerate().for_each(|(ch, buf)| {
            buf.fill(0.0);
            let lo = ch * SYM_CHUNK;
            for j in lo..(lo + SYM_CHUNK).min(n) {
                let (ri, va) = (&rows[cp[j]..cp[j + 1]], &vals[cp[j]..cp[j + 1]]);
                for t in (0..k).filter(|&t| active[t]) {
                    let vj = v[j * k + t];
                    let mut acc = shift * vj;
                    for (&i, &a) in ri.iter().zip(va) {
                        let i = i.at();
                        acc += a * v[i * k + t];
                        if i != j {
                            buf[(i - lo) * k + t] += a * vj;
                        }
                    }
                    buf[(j - lo) * k + t] += acc;
                }
            }
        });
        // Phase 2: each output row sums the bands covering it, in chunk order.
        let scratch = &*scratch;
        out.par_chunks_mut(SYM_CHUNK * k).enumerate().for_each(|(rb, o)| {
            o.fill(0.0);
            let r0 = rb * SYM_CHUNK;
            let r1 = r0 + o.len() / k;
            for ch in 0..=rb {
                let (lo, hi) = (ch * SYM_CHUNK, self.hi[ch]);
                let (a, b) = (lo.max(r0), hi.min(r1));
                if a >= b {
                    continue;
                }
                let buf = &scratch[ch * stride + (a - lo) * k..ch * stride + (b - lo) * k];
                for (dst, &src) in o[(a - r0) * k..(b - r0) * k].iter_mut().zip(buf) {
                    *dst += src;
                }
            }
        });
    }
}
