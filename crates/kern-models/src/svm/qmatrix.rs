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
    /// (see [`Tuning::cheap_cache_bytes`](super::plan::Tuning::cheap_cache_bytes)).
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
}

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
