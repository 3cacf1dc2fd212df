//! The compressed sparse row (CSR) store of [`Samples`]: row pointers, sorted column indices and values,
//! validated once at construction, plus the constructors that build it (from CSR parts, from
//! (row, column, value) triplets and from nalgebra-sparse's `CsrMatrix`, feature `nalgebra`).

use super::{Samples, Store};
use crate::error::{CoreError, Result};
#[cfg(feature = "nalgebra")]
use nalgebra_sparse::CsrMatrix;

/// The nonzeros of `n` samples: sample `i` holds `indices[indptr[i]..indptr[i + 1]]` (strictly
/// ascending, each `< d`) with the values at the same positions (finite).
///
/// `dense` is the row-major copy made, once, by the first dense accessor called on the store (see
/// [`Samples::row`]); it is not part of the value (equality ignores it).
#[derive(Clone, Debug)]
pub(crate) struct Csr {
    pub(crate) indptr: Vec<usize>,
    pub(crate) indices: Vec<usize>,
    pub(crate) values: Vec<f64>,
    pub(crate) dense: std::sync::OnceLock<Vec<f64>>,
}

impl PartialEq for Csr {
    fn eq(&self, other: &Self) -> bool {
        self.indptr == other.indptr && self.indices == other.indices && self.values == other.values
    }
}

impl Csr {
    /// Validates the parts for an `n × d` store: shape of `indptr`, then every row sorted without
    /// duplicates, every index below `d`, every value finite. Each failure has its own error.
    pub(crate) fn new(
        n: usize,
        d: usize,
        indptr: Vec<usize>,
        indices: Vec<usize>,
        values: Vec<f64>,
    ) -> Result<Self> {
        check_shape(n, d)?;
        if indptr.len() != n + 1 {
            return Err(CoreError::CsrPointers {
                reason: format!("{} row pointers for {n} rows (expected {})", indptr.len(), n + 1),
            });
        }
        if indices.len() != values.len() {
            return Err(CoreError::CsrPointers {
                reason: format!("{} column indices but {} values", indices.len(), values.len()),
            });
        }
        if indptr[0] != 0 || indptr[n] != indices.len() || indptr.windows(2).any(|w| w[0] > w[1]) {
            return Err(CoreError::CsrPointers {
                reason: format!(
                    "row pointers must ascend from 0 to the number of nonzeros ({})",
                    indices.len()
                ),
            });
        }
        for i in 0..n {
            let (lo, hi) = (indptr[i], indptr[i + 1]);
            for t in lo..hi {
                let col = indices[t];
                if col >= d {
                    return Err(CoreError::CsrIndexOutOfRange { row: i, col, d });
                }
                if t > lo {
                    let prev = indices[t - 1];
                    if prev == col {
                        return Err(CoreError::CsrDuplicate { row: i, col });
                    }
                    if prev > col {
                        return Err(CoreError::CsrUnsorted { row: i, col, after: prev });
                    }
                }
                if !values[t].is_finite() {
                    return Err(CoreError::NonFinite { row: i, col, value: values[t] });
                }
            }
        }
        Ok(Csr::from_checked(indptr, indices, values))
    }

    /// A store from parts already known to be valid.
    pub(crate) fn from_checked(indptr: Vec<usize>, indices: Vec<usize>, values: Vec<f64>) -> Self {
        Csr { indptr, indices, values, dense: std::sync::OnceLock::new() }
    }

    /// The row-major `n × d` values (`n · d` already checked against the dense limit).
    pub(crate) fn to_row_major(&self, n: usize, d: usize) -> Vec<f64> {
        let mut data = vec![0.0; n * d];
        for (i, out) in data.chunks_exact_mut(d).enumerate() {
            let (idx, val) = self.row(i);
            for (&k, &v) in idx.iter().zip(val) {
                out[k] = v;
            }
        }
        data
    }

    /// The column indices and values of row `i`.
    #[inline]
    pub(crate) fn row(&self, i: usize) -> (&[usize], &[f64]) {
        let r = self.indptr[i]..self.indptr[i + 1];
        (&self.indices[r.clone()], &self.values[r])
    }

    /// Number of stored entries.
    #[inline]
    pub(crate) fn nnz(&self) -> usize {
        self.indices.len()
    }
}

/// Checks `n ≥ 1`, `1 ≤ d ≤` [`Samples::MAX_DIM`].
pub(crate) fn check_shape(n: usize, d: usize) -> Result<()> {
    if n == 0 {
        return Err(CoreError::Empty("no samples"));
    }
    if d == 0 {
        return Err(CoreError::Empty("samples have no features"));
    }
    if d > Samples::MAX_DIM {
        return Err(CoreError::Dimension {
            what: "feature count (limit)",
            expected: Samples::MAX_DIM,
            found: d,
        });
    }
    Ok(())
}

impl Samples {
    /// Builds a sparse (CSR) store of `n` samples of dimension `d` from its parts: sample `i` holds the
    /// values `values[indptr[i]..indptr[i + 1]]` at the columns `indices[indptr[i]..indptr[i + 1]]`.
    ///
    /// Validated once: `indptr` has `n + 1` ascending entries from 0 to `indices.len()`
    /// ([`CoreError::CsrPointers`]); within a row the indices strictly ascend ([`CoreError::CsrUnsorted`],
    /// [`CoreError::CsrDuplicate`]) and are `< d` ([`CoreError::CsrIndexOutOfRange`]); values are finite
    /// ([`CoreError::NonFinite`]). Explicit zeros are kept (they do no harm). Memory is `O(n + nnz)`,
    /// whatever `d` (up to [`Samples::MAX_DIM`]).
    ///
    /// ```
    /// use kern_core::{CoreError, Samples};
    /// let x = Samples::from_csr(2, 4, vec![0, 2, 3], vec![0, 3, 1], vec![1.0, 2.0, 3.0])?;
    /// assert!(x.is_sparse());
    /// assert_eq!(x.nnz(), 3);
    /// assert_eq!(x.to_dense()?.row(0), &[1.0, 0.0, 0.0, 2.0]);
    /// let err = Samples::from_csr(1, 4, vec![0, 2], vec![3, 1], vec![1.0, 1.0]).unwrap_err();
    /// assert!(matches!(err, CoreError::CsrUnsorted { row: 0, col: 1, after: 3 }));
    /// # Ok::<(), CoreError>(())
    /// ```
    pub fn from_csr(
        n: usize,
        d: usize,
        indptr: Vec<usize>,
        indices: Vec<usize>,
        values: Vec<f64>,
    ) -> Result<Self> {
        let csr = Csr::new(n, d, indptr, indices, values)?;
        Ok(Samples { n, d, store: Store::Sparse(csr) })
    }

    /// Builds a sparse (CSR) store from `(row, column, value)` triplets in any order. A repeated
    /// `(row, column)` pair is an error ([`CoreError::CsrDuplicate`]), not summed; rows without a
    /// triplet are all-zero samples. Other checks as in [`Samples::from_csr`].
    ///
    /// ```
    /// use kern_core::{CoreError, Samples};
    /// let x = Samples::from_triplets(3, 2, &[(2, 1, 5.0), (0, 0, 1.0)])?;
    /// assert_eq!(x.to_dense()?.as_slice(), &[1.0, 0.0, 0.0, 0.0, 0.0, 5.0]);
    /// let dup = Samples::from_triplets(1, 2, &[(0, 1, 1.0), (0, 1, 2.0)]).unwrap_err();
    /// assert!(matches!(dup, CoreError::CsrDuplicate { row: 0, col: 1 }));
    /// assert!(Samples::from_triplets(1, 2, &[(1, 0, 1.0)]).is_err()); // row out of range
    /// # Ok::<(), CoreError>(())
    /// ```
    pub fn from_triplets(n: usize, d: usize, triplets: &[(usize, usize, f64)]) -> Result<Self> {
        check_shape(n, d)?;
        let mut counts = vec![0usize; n + 1];
        for &(r, _, _) in triplets {
            if r >= n {
                return Err(CoreError::Dimension { what: "triplet row", expected: n, found: r });
            }
            counts[r + 1] += 1;
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let indptr = counts.clone();
        let mut next = counts;
        let mut entries = vec![(0usize, 0.0f64); triplets.len()];
        for &(r, c, v) in triplets {
            entries[next[r]] = (c, v);
            next[r] += 1;
        }
        for i in 0..n {
            entries[indptr[i]..indptr[i + 1]].sort_by_key(|e| e.0);
        }
        let (indices, values) = entries.into_iter().unzip();
        Self::from_csr(n, d, indptr, indices, values)
    }

    /// The same samples as a sparse (CSR) store in `d ≥ self.d()` features, the new features zero: how a
    /// model meets test samples with features it never saw (LIBSVM's rule: a feature a support vector
    /// lacks is a zero there). A sparse store is re-dimensioned (`O(nnz)`, whatever `d`); a dense one
    /// becomes its nonzeros in CSR (at most twice its memory, checked against the memory budget), never
    /// a dense `n × d` array.
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[1.0, 0.0], [0.0, 2.0]])?;
    /// let w = x.widen(1 << 40)?;
    /// assert!(w.is_sparse());
    /// assert_eq!((w.n(), w.d(), w.nnz()), (2, 1 << 40, 2));
    /// assert_eq!(w.sample(1).dot(kern_core::SampleRef::Sparse { indices: &[1, 7], values: &[3.0, 5.0] }), 6.0);
    /// assert!(x.widen(1).is_err()); // narrower than the samples
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`CoreError::Dimension`] when `d < self.d()`, the shape errors of [`Samples::from_csr`] beyond
    /// [`Samples::MAX_DIM`], [`CoreError::Memory`] when a dense store's CSR copy does not fit.
    pub fn widen(&self, d: usize) -> Result<Samples> {
        if d < self.d {
            return Err(CoreError::Dimension { what: "widened feature count", expected: self.d, found: d });
        }
        check_shape(self.n, d)?;
        let copy = match &self.store {
            Store::Sparse(c) => Csr::from_checked(c.indptr.clone(), c.indices.clone(), c.values.clone()),
            Store::Dense(v) => {
                let nnz = v.iter().filter(|x| **x != 0.0).count();
                let bytes = crate::memory::bytes_for::<f64>(&[nnz, 2], "sparse copy of the samples")?;
                crate::memory::check_bytes(bytes, "sparse copy of the samples", "use fewer samples")?;
                let Store::Sparse(c) = self.to_sparse().store else {
                    unreachable!("to_sparse returns a sparse store")
                };
                c
            }
        };
        Ok(Samples { n: self.n, d, store: Store::Sparse(copy) })
    }

    /// Builds a sparse (CSR) store from a nalgebra-sparse matrix whose rows are samples (its rows are
    /// sorted and duplicate-free by construction; values are checked for finiteness).
    ///
    /// ```
    /// use nalgebra_sparse::{CooMatrix, CsrMatrix};
    /// let mut coo = CooMatrix::new(2, 3);
    /// coo.push(0, 2, 4.0);
    /// coo.push(1, 0, -1.0);
    /// let x = kern_core::Samples::from_csr_matrix(&CsrMatrix::from(&coo))?;
    /// assert_eq!((x.n(), x.d(), x.nnz()), (2, 3, 2));
    /// assert_eq!(x.to_dense()?.row(0), &[0.0, 0.0, 4.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    #[cfg(feature = "nalgebra")]
    pub fn from_csr_matrix(m: &CsrMatrix<f64>) -> Result<Self> {
        let (indptr, indices, values) = m.csr_data();
        Self::from_csr(m.nrows(), m.ncols(), indptr.to_vec(), indices.to_vec(), values.to_vec())
    }

    /// The samples as a nalgebra-sparse matrix (rows are samples; a dense store keeps its zeros out).
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[0.0, 2.0], [3.0, 0.0]])?;
    /// let m = x.to_csr_matrix()?;
    /// assert_eq!(m.nnz(), 2);
    /// assert_eq!(kern_core::Samples::from_csr_matrix(&m)?.to_dense()?, x);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    #[cfg(feature = "nalgebra")]
    pub fn to_csr_matrix(&self) -> Result<CsrMatrix<f64>> {
        let s = self.to_sparse();
        let Store::Sparse(c) = &s.store else { unreachable!("to_sparse returns a sparse store") };
        CsrMatrix::try_from_csr_data(s.n, s.d, c.indptr.clone(), c.indices.clone(), c.values.clone())
            .map_err(|e| CoreError::CsrPointers { reason: e.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_each_defect_with_its_error() {
        let bad = |indptr: Vec<usize>, idx: Vec<usize>, val: Vec<f64>| {
            Samples::from_csr(2, 5, indptr, idx, val).unwrap_err()
        };
        assert!(matches!(
            bad(vec![0, 2, 3], vec![3, 1, 0], vec![1.0; 3]),
            CoreError::CsrUnsorted { row: 0, col: 1, after: 3 }
        ));
        assert!(matches!(
            bad(vec![0, 1, 3], vec![0, 4, 4], vec![1.0; 3]),
            CoreError::CsrDuplicate { row: 1, col: 4 }
        ));
        assert!(matches!(
            bad(vec![0, 1, 2], vec![0, 5], vec![1.0; 2]),
            CoreError::CsrIndexOutOfRange { row: 1, col: 5, d: 5 }
        ));
        assert!(matches!(
            bad(vec![0, 1, 2], vec![0, 2], vec![1.0, f64::NAN]),
            CoreError::NonFinite { row: 1, col: 2, .. }
        ));
        assert!(matches!(
            bad(vec![0, 1, 2], vec![0, 2], vec![f64::NEG_INFINITY, 1.0]),
            CoreError::NonFinite { row: 0, col: 0, .. }
        ));
        assert!(matches!(bad(vec![0, 2], vec![0, 1], vec![1.0; 2]), CoreError::CsrPointers { .. }));
        assert!(matches!(bad(vec![0, 2, 1], vec![0, 1], vec![1.0; 2]), CoreError::CsrPointers { .. }));
        assert!(matches!(bad(vec![0, 1, 2], vec![0, 1], vec![1.0]), CoreError::CsrPointers { .. }));
        assert!(matches!(bad(vec![1, 1, 2], vec![0, 1], vec![1.0; 2]), CoreError::CsrPointers { .. }));
        assert!(matches!(Samples::from_csr(0, 5, vec![0], vec![], vec![]).unwrap_err(), CoreError::Empty(_)));
        assert!(matches!(
            Samples::from_csr(1, Samples::MAX_DIM + 1, vec![0, 0], vec![], vec![]).unwrap_err(),
            CoreError::Dimension { .. }
        ));
    }

    #[test]
    fn triplets_equal_parts() {
        let a = Samples::from_triplets(3, 4, &[(1, 3, 2.0), (0, 1, 1.0), (1, 0, -1.0)]).unwrap();
        let b = Samples::from_csr(3, 4, vec![0, 1, 3, 3], vec![1, 0, 3], vec![1.0, -1.0, 2.0]).unwrap();
        assert_eq!(a, b);
        assert!(matches!(
            Samples::from_triplets(1, 2, &[(0, 2, 1.0)]).unwrap_err(),
            CoreError::CsrIndexOutOfRange { row: 0, col: 2, d: 2 }
        ));
    }
}
