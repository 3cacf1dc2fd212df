//! Validated samples: an owned, finite, non-empty, rectangular row-major `n × d` store.

use crate::error::{CoreError, Result};
use faer::MatRef;
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// `n` samples of dimension `d`, stored row-major so that one sample is a contiguous `&[f64]`.
///
/// Validation (finite, non-empty, rectangular) happens once, at construction; all downstream code
/// trusts it. Deserialization validates too.
///
/// ```
/// use kern_core::Samples;
/// let x = Samples::from_rows(&[vec![0.0, 1.0], vec![2.0, 3.0], vec![4.0, 5.0]])?;
/// assert_eq!((x.n(), x.d()), (3, 2));
/// assert_eq!(x.row(1), &[2.0, 3.0]);
/// assert!(Samples::from_rows(&[vec![f64::NAN]]).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawSamples", into = "RawSamples")]
pub struct Samples {
    data: Vec<f64>,
    n: usize,
    d: usize,
}

#[derive(Serialize, Deserialize)]
struct RawSamples {
    n: usize,
    d: usize,
    data: Vec<f64>,
}

impl TryFrom<RawSamples> for Samples {
    type Error = CoreError;
    fn try_from(r: RawSamples) -> Result<Self> {
        Samples::from_flat(r.data, r.n, r.d)
    }
}

impl From<Samples> for RawSamples {
    fn from(s: Samples) -> Self {
        RawSamples { n: s.n, d: s.d, data: s.data }
    }
}

impl Samples {
    /// Builds samples from a row-major buffer of `n * d` values.
    ///
    /// ```
    /// let x = kern_core::Samples::from_flat(vec![1.0, 2.0, 3.0, 4.0], 2, 2)?;
    /// assert_eq!(x.row(1), &[3.0, 4.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn from_flat(data: Vec<f64>, n: usize, d: usize) -> Result<Self> {
        if n == 0 {
            return Err(CoreError::Empty("no samples"));
        }
        if d == 0 {
            return Err(CoreError::Empty("samples have no features"));
        }
        if n.checked_mul(d) != Some(data.len()) {
            return Err(CoreError::Shape { len: data.len(), rows: n, cols: d });
        }
        if let Some(k) = data.iter().position(|v| !v.is_finite()) {
            return Err(CoreError::NonFinite { row: k / d, col: k % d, value: data[k] });
        }
        Ok(Samples { data, n, d })
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

    /// Builds samples from a nalgebra matrix whose rows are samples.
    ///
    /// ```
    /// let m = nalgebra::DMatrix::from_row_slice(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    /// let x = kern_core::Samples::from_dmatrix(&m)?;
    /// assert_eq!(x.row(1), &[4.0, 5.0, 6.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
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

    /// Sample `i` as a contiguous slice. Panics if `i >= n` (an index bug, not user input).
    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.d..(i + 1) * self.d]
    }

    /// Iterator over samples.
    pub fn rows(&self) -> std::slice::ChunksExact<'_, f64> {
        self.data.chunks_exact(self.d)
    }

    /// The row-major buffer.
    #[inline]
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }

    /// Consumes the samples, returning `(data, n, d)`.
    pub fn into_parts(self) -> (Vec<f64>, usize, usize) {
        (self.data, self.n, self.d)
    }

    /// The samples as a `d × n` faer view (column `i` is sample `i`), zero copy.
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])?;
    /// let xt = x.as_faer_t();
    /// assert_eq!((xt.nrows(), xt.ncols()), (2, 3));
    /// assert_eq!(xt[(1, 2)], 6.0);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn as_faer_t(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.data, self.d, self.n)
    }

    /// Copies the samples into a nalgebra matrix (rows are samples).
    pub fn to_dmatrix(&self) -> DMatrix<f64> {
        DMatrix::from_row_slice(self.n, self.d, &self.data)
    }

    /// The samples at `indices`, in that order (repetitions allowed).
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[1.0], [2.0], [3.0]])?;
    /// assert_eq!(x.select(&[2, 0])?.as_slice(), &[3.0, 1.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn select(&self, indices: &[usize]) -> Result<Self> {
        if indices.is_empty() {
            return Err(CoreError::Empty("no indices selected"));
        }
        let mut data = Vec::with_capacity(indices.len() * self.d);
        for &i in indices {
            if i >= self.n {
                return Err(CoreError::Dimension { what: "sample index", expected: self.n, found: i });
            }
            data.extend_from_slice(self.row(i));
        }
        Ok(Samples { data, n: indices.len(), d: self.d })
    }

    /// Squared Euclidean norm of every sample.
    pub fn sq_norms(&self) -> Vec<f64> {
        self.rows().map(|r| r.iter().map(|v| v * v).sum()).collect()
    }

    /// Per-feature `(min, max)`.
    pub fn feature_ranges(&self) -> Vec<(f64, f64)> {
        let mut out = vec![(f64::INFINITY, f64::NEG_INFINITY); self.d];
        for r in self.rows() {
            for (o, &v) in out.iter_mut().zip(r) {
                o.0 = o.0.min(v);
                o.1 = o.1.max(v);
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

/// Squared Euclidean distance between two equal-length slices.
///
/// ```
/// assert_eq!(kern_core::sq_dist(&[0.0, 0.0], &[3.0, 4.0]), 25.0);
/// ```
#[inline]
pub fn sq_dist(x: &[f64], y: &[f64]) -> f64 {
    debug_assert_eq!(x.len(), y.len());
    x.iter().zip(y).map(|(a, b)| (a - b) * (a - b)).sum()
}

/// Dot product of two equal-length slices.
///
/// ```
/// assert_eq!(kern_core::dot(&[1.0, 2.0], &[3.0, 4.0]), 11.0);
/// ```
#[inline]
pub fn dot(x: &[f64], y: &[f64]) -> f64 {
    debug_assert_eq!(x.len(), y.len());
    x.iter().zip(y).map(|(a, b)| a * b).sum()
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

    #[test]
    fn nalgebra_and_faer_agree() {
        let m = DMatrix::from_fn(4, 3, |i, j| (i * 10 + j) as f64);
        let a = Samples::from_dmatrix(&m).unwrap();
        let f = faer::Mat::from_fn(4, 3, |i, j| (i * 10 + j) as f64);
        let b = Samples::from_faer(f.as_ref()).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_dmatrix(), m);
    }

    #[test]
    fn serde_validates() {
        let raw = RawSamples { n: 1, d: 2, data: vec![1.0, f64::NAN] };
        assert!(Samples::try_from(raw).is_err());
    }
}
