//! The `Q` matrix of the SVM duals as the solver sees it: `Q_pq = s_p s_q k(x_p, x_q)` where `s` is the
//! label (C-SVC) or the sign of the half (ε-SVR, whose `2n` variables refer to `n` samples).
//!
//! The columns themselves come from the kernel-matrix layer ([`kern_sparse::kmatrix::SignedColumns`]:
//! evaluation on either sample store, gathers from a shared dense Gram, scatters from a sparse `K_C`);
//! this module only adapts them to the solver's interface.

use kern_core::Kernel;
use kern_sparse::kmatrix::{SignedColumns, SparseColumn};

/// Access to the columns of `Q` in solver order (`Send`: a solver may run its loop on a worker of the
/// rayon pool, see `wss_tree::use_two_threads`).
pub(crate) trait QMatrix: Sync + Send {
    /// Number of variables.
    fn l(&self) -> usize;
    /// The diagonal `Q_pp` in solver order.
    fn diag(&self) -> Vec<f64>;
    /// Computes `out[k] = Q[from + k][j]`.
    fn fill_column(&self, j: usize, from: usize, out: &mut [f64]);
    /// Computes `out[k] = Q[from + k][j]` on the calling thread (the same values as
    /// [`QMatrix::fill_column`]), for a solver that splits a column's positions across threads.
    fn fill_column_seq(&self, j: usize, from: usize, out: &mut [f64]) {
        self.fill_column(j, from, out)
    }
    /// True when any range of a column costs in proportion to its length, so that ranges of one column
    /// may be computed on different threads at no extra cost ([`QMatrix::fill_column_seq`]).
    fn splits_evenly(&self) -> bool {
        false
    }
    /// Swaps positions `i` and `j`.
    fn swap_index(&mut self, i: usize, j: usize);
    /// True when a column entry is cheaper to recompute than to keep: the solver then caps its cache
    /// (see [`CHEAP_CACHE_BYTES`]).
    fn cheap_columns(&self) -> bool {
        false
    }
    /// Column `j` as its nonzeros, when the columns come from a sparse `K_C` (compact support).
    fn sparse_column(&self, _j: usize) -> Option<SparseColumn<'_>> {
        None
    }
    /// Structural nonzeros of `Q` when the columns come from a sparse `K_C`.
    fn sparse_nnz(&self) -> Option<usize> {
        None
    }
    /// Sparse columns computed on demand split their values across two threads of the pool (`on`),
    /// for a solver whose loop keeps another worker ready; the same columns either way.
    fn split_columns(&self, _on: bool) {}
    /// Computes full columns at once: each `(j, out)` receives column `j` (length `l`). The blocked pass
    /// of the blocked solver: one rayon task per column (a long column also splits itself).
    fn fill_columns(&self, jobs: Vec<(usize, &mut [f64])>) {
        use rayon::prelude::*;
        if jobs.len() == 1 || rayon::current_num_threads() < 2 {
            for (j, col) in jobs {
                self.fill_column(j, 0, col);
            }
        } else {
            jobs.into_par_iter().for_each(|(j, col)| self.fill_column(j, 0, col));
        }
    }
}

/// Cache cap for cheap columns (Gaussian kernel in dimension ≤ 8 through the vectorized exp): there a
/// column entry costs about 1.5 ns to recompute, while first-touching fresh cache memory costs about
/// 4 ns per entry in page faults, so a cache larger than the working set of recent columns only
/// loses time (measured on green-red n = 5000: CPU time 0.07 s at 16 MB against 0.09–0.11 s at 100 MB,
/// same iterations). The user's budget stays the upper bound.
pub(crate) const CHEAP_CACHE_BYTES: usize = 16 << 20;

impl<K: Kernel> QMatrix for SignedColumns<'_, K> {
    fn l(&self) -> usize {
        SignedColumns::l(self)
    }
    fn diag(&self) -> Vec<f64> {
        SignedColumns::diag(self)
    }
    fn fill_column(&self, j: usize, from: usize, out: &mut [f64]) {
        SignedColumns::fill_column(self, j, from, out)
    }
    fn fill_column_seq(&self, j: usize, from: usize, out: &mut [f64]) {
        SignedColumns::fill_column_seq(self, j, from, out)
    }
    fn splits_evenly(&self) -> bool {
        SignedColumns::splits_evenly(self)
    }
    fn swap_index(&mut self, i: usize, j: usize) {
        SignedColumns::swap_index(self, i, j)
    }
    fn cheap_columns(&self) -> bool {
        SignedColumns::cheap_columns(self)
    }
    fn sparse_column(&self, j: usize) -> Option<SparseColumn<'_>> {
        SignedColumns::sparse_column(self, j)
    }
    fn sparse_nnz(&self) -> Option<usize> {
        SignedColumns::sparse_nnz(self)
    }
    fn split_columns(&self, on: bool) {
        SignedColumns::split_columns(self, on)
    }
}

/// Whether the pair solver works on sparse columns ([`SparseColumn`]: no column cache, gradient
/// updates over the neighbours only) rather than on dense cached columns scattered from `K_C`.
///
/// The rule: the columns come from a sparse `K_C` (a compactly supported kernel), and `Q` has at most
/// `l²/`[`SPARSE_MAX_INV_DENSITY`] nonzeros (a column has at most `l/16` neighbours on average). A
/// sparse entry costs an index load, a position lookup and a scattered update, several times a
/// dense entry's streamed multiply-add, and the dense path also pays an `O(l)` scatter per column
/// computed; so below that density the sparse pass is the cheaper one, and its memory is `O(nnz)`
/// instead of `O(l)` per column. Denser `K_C` (a support radius that covers much of the data) keep
/// the dense columns. The ν variant always uses dense columns. The iterates are the same either way
/// (see `Solver::take_step`).
pub(crate) fn use_sparse_columns<Q: QMatrix>(q: &Q) -> bool {
    let l = q.l() as u128;
    q.sparse_nnz().is_some_and(|nnz| (nnz as u128) * SPARSE_MAX_INV_DENSITY <= l * l)
}

/// See [`use_sparse_columns`].
pub(crate) const SPARSE_MAX_INV_DENSITY: u128 = 16;
