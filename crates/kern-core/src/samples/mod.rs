//! Validated samples: an owned, finite, non-empty `n × d` store, dense row-major or sparse (CSR).
//!
//! [`Samples`] is the one type every learner takes. A dense store keeps one sample as a contiguous
//! `&[f64]` ([`Samples::row`]); a sparse store keeps the nonzeros of each sample (`csr.rs`), so its
//! memory is `O(n + nnz)` whatever `d`. [`Samples::sample`] borrows a sample of either store as a
//! [`SampleRef`], whose squared norm, inner product and squared distance work for every pairing
//! (`sample_ref.rs`).

mod csr;
mod inverted;
mod sample_ref;

pub(crate) use csr::Csr;
pub use inverted::InvertedIndex;
pub use sample_ref::SampleRef;

use crate::error::{CoreError, Result};
use crate::memory;
use faer::MatRef;
#[cfg(feature = "nalgebra")]
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// How a [`Samples`] store holds its values.
///
/// ```
/// use kern_core::{Samples, Storage};
/// assert_eq!(Samples::from_rows(&[[1.0]])?.storage(), Storage::Dense);
/// assert_eq!(Samples::from_triplets(1, 9, &[])?.storage(), Storage::Sparse);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Storage {
    /// Row-major `n × d` values.
    Dense,
    /// Compressed sparse rows: the nonzeros of each sample.
    Sparse,
}

/// `n` samples of dimension `d`, stored either dense row-major (one sample is a contiguous `&[f64]`)
/// or sparse (CSR: the nonzeros of each sample, sorted by column).
///
/// Validation (finite, non-empty, rectangular; for CSR also sorted, duplicate-free, in-range indices)
/// happens once, at construction; all downstream code trusts it. Deserialization validates too.
/// Equality compares stores: a dense and a sparse store of the same values are not `==` (compare
/// [`Samples::to_dense`] copies for that).
///
/// Code that takes either store reads samples through [`Samples::sample`]; the dense accessors
/// ([`Samples::row`] and friends) read a dense store directly and give a sparse store a dense view made
/// once on first use (see [`Samples::row`]); [`Samples::densify`] is the fallible form (an error, not an
/// abort, when the dense copy would be too large).
///
/// ```
/// use kern_core::Samples;
/// let x = Samples::from_rows(&[vec![0.0, 1.0], vec![2.0, 3.0], vec![4.0, 5.0]])?;
/// assert_eq!((x.n(), x.d()), (3, 2));
/// assert_eq!(x.row(1), &[2.0, 3.0]);
/// assert!(Samples::from_rows(&[vec![f64::NAN]]).is_err());
/// let s = x.to_sparse();
/// assert_eq!((s.nnz(), s.sample(2).dot(x.sample(1))), (5, 23.0));
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawSamples", into = "RawSamples")]
pub struct Samples {
    n: usize,
    d: usize,
    store: Store,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Store {
    Dense(Vec<f64>),
    Sparse(Csr),
}

#[derive(Serialize, Deserialize)]
enum RawSamples {
    Dense { n: usize, d: usize, data: Vec<f64> },
    Sparse { n: usize, d: usize, indptr: Vec<usize>, indices: Vec<usize>, values: Vec<f64> },
}

impl TryFrom<RawSamples> for Samples {
    type Error = CoreError;
    fn try_from(r: RawSamples) -> Result<Self> {
        match r {
            RawSamples::Dense { n, d, data } => Samples::from_flat(data, n, d),
            RawSamples::Sparse { n, d, indptr, indices, values } => {
                Samples::from_csr(n, d, indptr, indices, values)
            }
        }
    }
}

impl From<Samples> for RawSamples {
    fn from(s: Samples) -> Self {
        let (n, d) = (s.n, s.d);
        match s.store {
            Store::Dense(data) => RawSamples::Dense { n, d, data },
            Store::Sparse(c) => {
                RawSamples::Sparse { n, d, indptr: c.indptr, indices: c.indices, values: c.values }
            }
        }
    }
}

/// Iterator over the samples of either store, as [`SampleRef`]s (see [`Samples::samples`]).
///
/// ```
/// use kern_core::Samples;
/// let x = Samples::from_rows(&[[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]])?;
/// let dense: Vec<f64> = x.samples().map(|s| s.dot(s)).collect();
/// let sparse: Vec<f64> = x.to_sparse().samples().map(|s| s.dot(s)).collect();
/// assert_eq!(dense, [1.0, 4.0, 25.0]);
/// assert_eq!(sparse, dense);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug)]
pub struct SampleIter<'a> {
    x: &'a Samples,
    next: usize,
}

impl<'a> Iterator for SampleIter<'a> {
    type Item = SampleRef<'a>;
    fn next(&mut self) -> Option<SampleRef<'a>> {
        (self.next < self.x.n).then(|| {
            self.next += 1;
            self.x.sample(self.next - 1)
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let r = self.x.n - self.next;
        (r, Some(r))
    }
}

impl ExactSizeIterator for SampleIter<'_> {}

impl Samples {
    /// The largest dimension a store accepts (`2⁵²`: every index is exact as an `f64`, and `n · d`
    /// products are formed in 128-bit arithmetic). Sparse stores of any dimension up to this take
    /// `O(n + nnz)` memory.
    pub const MAX_DIM: usize = 1 << 52;

    /// The largest `n · d` that [`Samples::to_dense`] materializes (2³¹ values, 16 GiB): beyond it,
    /// an operation that needs dense samples fails with [`CoreError::DenseTooLarge`].
    pub const MAX_DENSE_VALUES: usize = 1 << 31;

    /// Density at or below which [`StoragePolicy::Auto`] keeps samples sparse (10 % nonzero
    /// coordinates: sparse-row arithmetic pays well before that, and data as dense as MNIST's 19 %
    /// keep the dense store and its GEMM paths).
    pub const AUTO_SPARSE_DENSITY: f64 = 0.1;

    /// Builds samples from a row-major buffer of `n * d` values.
    ///
    /// ```
    /// let x = kern_core::Samples::from_flat(vec![1.0, 2.0, 3.0, 4.0], 2, 2)?;
    /// assert_eq!(x.row(1), &[3.0, 4.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn from_flat(data: Vec<f64>, n: usize, d: usize) -> Result<Self> {
        csr::check_shape(n, d)?;
        if n.checked_mul(d) != Some(data.len()) {
            return Err(CoreError::Shape { len: data.len(), rows: n, cols: d });
        }
        if let Some(k) = data.iter().position(|v| !v.is_finite()) {
            return Err(CoreError::NonFinite { row: k / d, col: k % d, value: data[k] });
        }
        Ok(Samples { n, d, store: Store::Dense(data) })
    }

    /// Builds samples from rows; every row must have the length of the first.
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[1.0, 2.0], [3.0, 4.0]])?;
    /// assert_eq!(x.n(), 2);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn from_rows<R: AsRef<[f64]>>(rows: &[R]) -> Result<Self> {
        let first = rows.first().ok_or(CoreError::Empty("no samples"))?;
        let d = first.as_ref().len();
        let mut data = Vec::with_capacity(rows.len() * d);
        for (i, r) in rows.iter().enumerate() {
            let r = r.as_ref();
            if r.len() != d {
                return Err(CoreError::Ragged { row: i, expected: d, found: r.len() });
            }
            data.extend_from_slice(r);
        }
        Self::from_flat(data, rows.len(), d)
    }

    /// Builds samples from a nalgebra matrix whose rows are samples (feature `nalgebra`).
    ///
    /// ```
    /// let m = nalgebra::DMatrix::from_row_slice(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    /// let x = kern_core::Samples::from_dmatrix(&m)?;
    /// assert_eq!(x.row(1), &[4.0, 5.0, 6.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    #[cfg(feature = "nalgebra")]
    pub fn from_dmatrix(m: &DMatrix<f64>) -> Result<Self> {
        let (n, d) = m.shape();
        let mut data = Vec::with_capacity(n * d);
        for i in 0..n {
            data.extend(m.row(i).iter().copied());
        }
        Self::from_flat(data, n, d)
    }

    /// Builds samples from a faer matrix whose rows are samples.
    ///
    /// ```
    /// let m = faer::Mat::from_fn(3, 2, |i, j| (i * 2 + j) as f64);
    /// let x = kern_core::Samples::from_faer(m.as_ref())?;
    /// assert_eq!(x.row(2), &[4.0, 5.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn from_faer(m: MatRef<'_, f64>) -> Result<Self> {
        let (n, d) = (m.nrows(), m.ncols());
        let mut data = Vec::with_capacity(n * d);
        for i in 0..n {
            data.extend((0..d).map(|j| m[(i, j)]));
        }
        Self::from_flat(data, n, d)
    }

    /// Number of samples.
    #[inline]
    pub fn n(&self) -> usize {
        self.n
    }

    /// Dimension of each sample.
    #[inline]
    pub fn d(&self) -> usize {
        self.d
    }

    /// How the values are stored.
    #[inline]
    pub fn storage(&self) -> Storage {
        match self.store {
            Store::Dense(_) => Storage::Dense,
            Store::Sparse(_) => Storage::Sparse,
        }
    }

    /// Whether the store is sparse (CSR).
    #[inline]
    pub fn is_sparse(&self) -> bool {
        matches!(self.store, Store::Sparse(_))
    }

    /// Number of nonzero coordinates: the stored entries of a sparse store, the nonzero values of a
    /// dense one.
    ///
    /// ```
    /// assert_eq!(kern_core::Samples::from_rows(&[[0.0, 2.0], [1.0, 0.0]])?.nnz(), 2);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn nnz(&self) -> usize {
        match &self.store {
            Store::Dense(v) => v.iter().filter(|x| **x != 0.0).count(),
            Store::Sparse(c) => c.nnz(),
        }
    }

    /// Fraction of nonzero coordinates, `nnz / (n · d)`.
    pub fn density(&self) -> f64 {
        self.nnz() as f64 / (self.n as f64 * self.d as f64)
    }

    /// Sample `i` of either store. Panics if `i >= n` (an index bug, not user input).
    ///
    /// ```
    /// use kern_core::{SampleRef, Samples};
    /// let x = Samples::from_triplets(2, 3, &[(1, 2, 4.0)])?;
    /// assert_eq!(x.sample(1), SampleRef::Sparse { indices: &[2], values: &[4.0] });
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    #[inline]
    pub fn sample(&self, i: usize) -> SampleRef<'_> {
        match &self.store {
            Store::Dense(v) => SampleRef::Dense(&v[i * self.d..(i + 1) * self.d]),
            Store::Sparse(c) => {
                assert!(i < self.n, "sample index {i} out of range for {} samples", self.n);
                let (indices, values) = c.row(i);
                SampleRef::Sparse { indices, values }
            }
        }
    }

    /// Iterator over the samples of either store.
    ///
    /// ```
    /// let x = kern_core::Samples::from_triplets(2, 2, &[(0, 1, 3.0)])?;
    /// let norms: Vec<f64> = x.samples().map(|s| s.sq_norm()).collect();
    /// assert_eq!(norms, [9.0, 0.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn samples(&self) -> SampleIter<'_> {
        SampleIter { x: self, next: 0 }
    }

    /// The row-major buffer of a dense store, `None` for a sparse one.
    #[inline]
    pub fn as_dense(&self) -> Option<&[f64]> {
        match &self.store {
            Store::Dense(v) => Some(v),
            Store::Sparse(_) => None,
        }
    }

    /// Sample `i` as a contiguous slice of its `d` coordinates. Panics if `i >= n` (an index bug, not
    /// user input).
    ///
    /// This and the other dense accessors ([`Samples::rows`], [`Samples::as_slice`],
    /// [`Samples::as_faer_t`]) read a dense store directly. On a sparse store the first of them
    /// materializes a row-major copy once (kept with the store, `O(n·d)` memory), so that code written
    /// for dense samples gives the same results on either store; code meant for large sparse data reads
    /// [`Samples::sample`] instead, and [`Samples::densify`] is the fallible way to get the copy.
    ///
    /// ```
    /// let x = kern_core::Samples::from_triplets(2, 3, &[(1, 2, 4.0)])?;
    /// assert_eq!(x.row(1), &[0.0, 0.0, 4.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Panics
    /// Also on a sparse store whose `n · d` exceeds [`Samples::MAX_DENSE_VALUES`] (with the message of
    /// [`CoreError::DenseTooLarge`]).
    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        &self.dense_buffer()[i * self.d..(i + 1) * self.d]
    }

    /// Iterator over the samples as contiguous slices (see [`Samples::row`] for sparse stores).
    pub fn rows(&self) -> std::slice::ChunksExact<'_, f64> {
        self.dense_buffer().chunks_exact(self.d)
    }

    /// The row-major buffer (see [`Samples::row`] for sparse stores; [`Samples::as_dense`] is the
    /// form that never copies).
    #[inline]
    pub fn as_slice(&self) -> &[f64] {
        self.dense_buffer()
    }

    fn dense_buffer(&self) -> &[f64] {
        match &self.store {
            Store::Dense(v) => v,
            Store::Sparse(c) => c.dense.get_or_init(|| {
                if let Err(e) = self.check_dense_size("a dense view of sparse samples") {
                    panic!("{e}");
                }
                c.to_row_major(self.n, self.d)
            }),
        }
    }

    /// Errors with [`CoreError::DenseTooLarge`] when `n · d` exceeds [`Samples::MAX_DENSE_VALUES`].
    fn check_dense_size(&self, what: &'static str) -> Result<()> {
        let (n, d) = (self.n, self.d);
        if (n as u128) * (d as u128) > Self::MAX_DENSE_VALUES as u128 {
            return Err(CoreError::DenseTooLarge { what, n, d, limit: Self::MAX_DENSE_VALUES });
        }
        Ok(())
    }

    /// Consumes the samples, returning the row-major `(data, n, d)` (a sparse store is made dense).
    ///
    /// ```
    /// let x = kern_core::Samples::from_triplets(1, 2, &[(0, 1, 3.0)])?;
    /// assert_eq!(x.into_parts()?, (vec![0.0, 3.0], 1, 2));
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn into_parts(self) -> Result<(Vec<f64>, usize, usize)> {
        let (n, d) = (self.n, self.d);
        match self.store {
            Store::Dense(v) => Ok((v, n, d)),
            Store::Sparse(_) => match self.to_dense()?.store {
                Store::Dense(v) => Ok((v, n, d)),
                Store::Sparse(_) => unreachable!("to_dense returns a dense store"),
            },
        }
    }

    /// The samples as a `d × n` faer view (column `i` is sample `i`), zero copy for a dense store (see
    /// [`Samples::row`] for sparse stores).
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])?;
    /// let xt = x.as_faer_t();
    /// assert_eq!((xt.nrows(), xt.ncols()), (2, 3));
    /// assert_eq!(xt[(1, 2)], 6.0);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn as_faer_t(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(self.dense_buffer(), self.d, self.n)
    }

    /// Copies the samples into a nalgebra matrix (rows are samples; feature `nalgebra`).
    ///
    /// # Errors
    /// [`CoreError::DenseTooLarge`] for a sparse store beyond [`Samples::MAX_DENSE_VALUES`].
    #[cfg(feature = "nalgebra")]
    pub fn to_dmatrix(&self) -> Result<DMatrix<f64>> {
        let x = self.densify("a nalgebra matrix")?;
        Ok(DMatrix::from_row_slice(self.n, self.d, x.as_slice()))
    }

    /// A dense copy of the samples (a clone for a dense store).
    ///
    /// ```
    /// let x = kern_core::Samples::from_triplets(2, 2, &[(1, 0, 7.0)])?;
    /// assert_eq!(x.to_dense()?.as_slice(), &[0.0, 0.0, 7.0, 0.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`CoreError::DenseTooLarge`] when `n · d` exceeds [`Samples::MAX_DENSE_VALUES`].
    pub fn to_dense(&self) -> Result<Samples> {
        Ok(self.densify("a dense copy")?.into_owned())
    }

    /// The samples as a dense store: borrowed when they are dense, a dense copy when sparse. `what`
    /// names the operation that needs dense samples, for the error.
    ///
    /// ```
    /// use std::borrow::Cow;
    /// let x = kern_core::Samples::from_rows(&[[1.0, 0.0]])?;
    /// assert!(matches!(x.densify("test")?, Cow::Borrowed(_)));
    /// assert_eq!(x.to_sparse().densify("test")?.as_slice(), &[1.0, 0.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`CoreError::DenseTooLarge`] when a sparse store's `n · d` exceeds
    /// [`Samples::MAX_DENSE_VALUES`]; [`CoreError::Memory`] when the dense copy does not fit the memory
    /// budget ([`crate::memory`]).
    pub fn densify(&self, what: &'static str) -> Result<Cow<'_, Samples>> {
        let Store::Sparse(c) = &self.store else { return Ok(Cow::Borrowed(self)) };
        self.check_dense_size(what)?;
        crate::memory::check_array::<f64>(
            &[self.n, self.d],
            what,
            "keep the samples sparse (use an operation that works on sparse samples), select fewer features, \
             or raise the memory budget",
        )?;
        let data = match c.dense.get() {
            Some(v) => v.clone(),
            None => c.to_row_major(self.n, self.d),
        };
        Ok(Cow::Owned(Samples { n: self.n, d: self.d, store: Store::Dense(data) }))
    }

    /// A sparse (CSR) copy of the samples: the nonzeros of a dense store (a clone for a sparse one).
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[0.0, 2.0], [0.0, 0.0]])?;
    /// let s = x.to_sparse();
    /// assert!(s.is_sparse());
    /// assert_eq!(s.nnz(), 1);
    /// assert_eq!(s.to_dense()?, x);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn to_sparse(&self) -> Samples {
        let Store::Dense(v) = &self.store else { return self.clone() };
        let mut indptr = Vec::with_capacity(self.n + 1);
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        indptr.push(0);
        for r in v.chunks_exact(self.d) {
            for (k, &x) in r.iter().enumerate().filter(|(_, x)| **x != 0.0) {
                indices.push(k);
                values.push(x);
            }
            indptr.push(indices.len());
        }
        Samples { n: self.n, d: self.d, store: Store::Sparse(Csr::from_checked(indptr, indices, values)) }
    }

    /// The samples in the store `policy` asks for ([`StoragePolicy::Auto`]: sparse when the density
    /// is at most [`Samples::AUTO_SPARSE_DENSITY`], else dense).
    ///
    /// ```
    /// use kern_core::{Samples, Storage, StoragePolicy};
    /// let x = Samples::from_triplets(10, 10, &[(0, 0, 1.0)])?;
    /// assert_eq!(x.clone().with_storage(StoragePolicy::Auto)?.storage(), Storage::Sparse);
    /// assert_eq!(x.with_storage(StoragePolicy::Dense)?.storage(), Storage::Dense);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`CoreError::DenseTooLarge`] when a dense store is asked of too large a sparse one.
    pub fn with_storage(self, policy: StoragePolicy) -> Result<Samples> {
        let want = match policy {
            StoragePolicy::Dense => Storage::Dense,
            StoragePolicy::Sparse => Storage::Sparse,
            StoragePolicy::Auto if self.density() <= Self::AUTO_SPARSE_DENSITY => Storage::Sparse,
            StoragePolicy::Auto => Storage::Dense,
        };
        Ok(match (want, self.storage()) {
            (Storage::Dense, Storage::Sparse) => self.to_dense()?,
            (Storage::Sparse, Storage::Dense) => self.to_sparse(),
            _ => self,
        })
    }

    /// The samples at `indices`, in that order (repetitions allowed), in the same store.
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[1.0], [2.0], [3.0]])?;
    /// assert_eq!(x.select(&[2, 0])?.as_slice(), &[3.0, 1.0]);
    /// assert_eq!(x.to_sparse().select(&[2, 0])?.to_dense()?.as_slice(), &[3.0, 1.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn select(&self, indices: &[usize]) -> Result<Self> {
        if indices.is_empty() {
            return Err(CoreError::Empty("no indices selected"));
        }
        if let Some(&i) = indices.iter().find(|&&i| i >= self.n) {
            return Err(CoreError::Dimension { what: "sample index", expected: self.n, found: i });
        }
        const WHAT: &str = "selected samples";
        const INSTEAD: &str = "select fewer samples";
        let store = match &self.store {
            Store::Dense(_) => {
                let len = indices
                    .len()
                    .checked_mul(self.d)
                    .ok_or_else(|| CoreError::SizeOverflow { what: WHAT.to_string() })?;
                let mut data = memory::try_with_capacity::<f64>(len, WHAT, INSTEAD)?;
                for &i in indices {
                    data.extend_from_slice(self.row(i));
                }
                Store::Dense(data)
            }
            Store::Sparse(c) => {
                let overflow = || CoreError::SizeOverflow { what: WHAT.to_string() };
                let nnz = indices
                    .iter()
                    .try_fold(0usize, |acc, &i| acc.checked_add(c.row(i).0.len()))
                    .ok_or_else(overflow)?;
                let rows = indices.len().checked_add(1).ok_or_else(overflow)?;
                let bytes = [
                    memory::bytes_for::<usize>(&[rows], WHAT)?,
                    memory::bytes_for::<usize>(&[nnz], WHAT)?,
                    memory::bytes_for::<f64>(&[nnz], WHAT)?,
                ]
                .into_iter()
                .try_fold(0u64, u64::checked_add)
                .ok_or_else(overflow)?;
                memory::check_bytes(bytes, WHAT, INSTEAD)?;
                let mut indptr = memory::try_with_capacity::<usize>(rows, WHAT, INSTEAD)?;
                let mut idx = memory::try_with_capacity::<usize>(nnz, WHAT, INSTEAD)?;
                let mut val = memory::try_with_capacity::<f64>(nnz, WHAT, INSTEAD)?;
                indptr.push(0);
                for &i in indices {
                    let (ki, vi) = c.row(i);
                    idx.extend_from_slice(ki);
                    val.extend_from_slice(vi);
                    indptr.push(idx.len());
                }
                Store::Sparse(Csr::from_checked(indptr, idx, val))
            }
        };
        Ok(Samples { n: indices.len(), d: self.d, store })
    }

    /// Squared Euclidean norm of every sample.
    pub fn sq_norms(&self) -> Vec<f64> {
        self.samples().map(|s| s.sq_norm()).collect()
    }

    /// Per-feature `(min, max)` (`O(d)` memory; a feature absent from some sparse sample has 0 in
    /// its range).
    ///
    /// ```
    /// let x = kern_core::Samples::from_triplets(2, 2, &[(0, 0, 3.0), (1, 0, 5.0), (1, 1, -1.0)])?;
    /// assert_eq!(x.feature_ranges(), [(3.0, 5.0), (-1.0, 0.0)]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn feature_ranges(&self) -> Vec<(f64, f64)> {
        let mut out = vec![(f64::INFINITY, f64::NEG_INFINITY); self.d];
        match &self.store {
            Store::Dense(_) => {
                for r in self.rows() {
                    for (o, &v) in out.iter_mut().zip(r) {
                        o.0 = o.0.min(v);
                        o.1 = o.1.max(v);
                    }
                }
            }
            Store::Sparse(c) => {
                let mut count = vec![0usize; self.d];
                for (&k, &v) in c.indices.iter().zip(&c.values) {
                    out[k] = (out[k].0.min(v), out[k].1.max(v));
                    count[k] += 1;
                }
                for (o, &m) in out.iter_mut().zip(&count) {
                    if m < self.n {
                        *o = (o.0.min(0.0), o.1.max(0.0));
                    }
                }
            }
        }
        out
    }

    /// Requires that `other` has the same dimension as `self`.
    pub fn check_same_dim(&self, other: &Samples) -> Result<()> {
        if self.d != other.d {
            return Err(CoreError::Dimension { what: "samples", expected: self.d, found: other.d });
        }
        Ok(())
    }
}

/// Which store a reader or [`Samples::with_storage`] produces.
///
/// ```
/// assert_eq!(kern_core::StoragePolicy::default(), kern_core::StoragePolicy::Auto);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StoragePolicy {
    /// Sparse when at most [`Samples::AUTO_SPARSE_DENSITY`] of the coordinates are nonzero, else dense.
    #[default]
    Auto,
    /// Always dense (an error beyond [`Samples::MAX_DENSE_VALUES`]).
    Dense,
    /// Always sparse.
    Sparse,
}

/// Squared Euclidean distance between two equal-length slices, by direct differences (exact for nearby
/// points), with four independent accumulators: one running sum chains every addition on the last;
/// the fixed grouping vectorizes without reassociation flags and gives the same bits on every run.
///
/// ```
/// assert_eq!(kern_core::sq_dist(&[0.0, 0.0], &[3.0, 4.0]), 25.0);
/// ```
#[inline]
pub fn sq_dist(x: &[f64], y: &[f64]) -> f64 {
    debug_assert_eq!(x.len(), y.len());
    let n = x.len().min(y.len());
    let (a, b) = (&x[..n], &y[..n]);
    let mut acc = [0.0f64; 4];
    let chunks = n / 4;
    for c in 0..chunks {
        for t in 0..4 {
            let v = a[c * 4 + t] - b[c * 4 + t];
            acc[t] += v * v;
        }
    }
    let mut s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
    for t in chunks * 4..n {
        let v = a[t] - b[t];
        s += v * v;
    }
    s
}

/// Dot product of two equal-length slices, with eight independent accumulators (see [`sq_dist`]).
///
/// ```
/// assert_eq!(kern_core::dot(&[1.0, 2.0], &[3.0, 4.0]), 11.0);
/// ```
#[inline]
pub fn dot(x: &[f64], y: &[f64]) -> f64 {
    debug_assert_eq!(x.len(), y.len());
    let n = x.len().min(y.len());
    let (a, b) = (&x[..n], &y[..n]);
    let mut acc = [0.0f64; 8];
    let chunks = n / 8;
    for c in 0..chunks {
        let (x, y) = (&a[c * 8..c * 8 + 8], &b[c * 8..c * 8 + 8]);
        for t in 0..8 {
            acc[t] += x[t] * y[t];
        }
    }
    let mut s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for t in chunks * 8..n {
        s += a[t] * b[t];
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_input() {
        assert!(matches!(Samples::from_rows::<Vec<f64>>(&[]), Err(CoreError::Empty(_))));
        assert!(matches!(Samples::from_rows(&[Vec::<f64>::new()]), Err(CoreError::Empty(_))));
        assert!(matches!(
            Samples::from_flat(vec![1.0, f64::INFINITY], 1, 2),
            Err(CoreError::NonFinite { row: 0, col: 1, .. })
        ));
        assert!(matches!(Samples::from_flat(vec![1.0; 5], 2, 2), Err(CoreError::Shape { .. })));
        let x = Samples::from_rows(&[[1.0]]).unwrap();
        assert!(x.select(&[1]).is_err());
    }

    #[cfg(feature = "nalgebra")]
    #[test]
    fn a_selection_too_large_for_memory_is_an_error_not_an_abort() {
        // 10^7 copies of a 10^5-wide row: 8 TB, more than any budget or allocator grants.
        let wide = Samples::from_flat(vec![0.5; 100_000], 1, 100_000).unwrap();
        let many = vec![0usize; 10_000_000];
        let e = wide.select(&many).unwrap_err();
        assert!(matches!(e, CoreError::Memory { .. }), "{e}");
        assert!(e.to_string().contains("selected samples"), "{e}");
        // The sparse store is sized by its non-zeros: the same selection of a sparse row is small.
        let sparse = Samples::from_triplets(1, 1 << 40, &[(0, 7, 1.0)]).unwrap();
        let s = sparse.select(&many[..1000]).unwrap();
        assert_eq!((s.n(), s.d(), s.nnz()), (1000, 1 << 40, 1000));
    }

    #[test]
    fn nalgebra_and_faer_agree() {
        let m = DMatrix::from_fn(4, 3, |i, j| (i * 10 + j) as f64);
        let a = Samples::from_dmatrix(&m).unwrap();
        let f = faer::Mat::from_fn(4, 3, |i, j| (i * 10 + j) as f64);
        let b = Samples::from_faer(f.as_ref()).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_dmatrix().unwrap(), m);
        assert_eq!(a.to_sparse().to_dmatrix().unwrap(), m);
    }

    #[test]
    fn serde_validates() {
        let raw = RawSamples::Dense { n: 1, d: 2, data: vec![1.0, f64::NAN] };
        assert!(Samples::try_from(raw).is_err());
        let raw =
            RawSamples::Sparse { n: 1, d: 2, indptr: vec![0, 2], indices: vec![1, 0], values: vec![1.0; 2] };
        assert!(matches!(Samples::try_from(raw), Err(CoreError::CsrUnsorted { .. })));
    }
}
