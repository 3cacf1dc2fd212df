//! ndarray interop (feature `ndarray`): samples from an [`ArrayView2`] (rows are samples), targets from
//! an [`ArrayView1`], and predictions, decision values and transforms back as [`Array1`] / [`Array2`].
//!
//! kern's own matrix types stay the two it computes with — faer's [`faer::Mat`] for dense matrices
//! (every Gram matrix, decision-value block and transform) and [`Samples`]' CSR store for sparse
//! data — and this module converts at the boundary, copying once.
//!
//! ```
//! use kern_core::array::{FitArray, IntoArray2, PredictArray};
//! use kern_core::{Samples, learner::{Fit, Model}};
//! use ndarray::array;
//!
//! // A toy learner: predicts the mean target (any kern model works the same way).
//! struct MeanParams;
//! struct Mean(f64);
//! impl Model for Mean {
//!     type Error = kern_core::CoreError;
//!     fn predict(&self, x: &Samples) -> Result<Vec<f64>, Self::Error> { Ok(vec![self.0; x.n()]) }
//! }
//! impl Fit<kern_core::RealTargets> for MeanParams {
//!     type Model = Mean;
//!     type Error = kern_core::CoreError;
//!     fn fit(&self, _x: &Samples, y: &kern_core::RealTargets) -> Result<Mean, Self::Error> {
//!         Ok(Mean(y.values().iter().sum::<f64>() / y.len() as f64))
//!     }
//! }
//!
//! let x = array![[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]];
//! let y = kern_core::RealTargets::from_array(array![1.0, 2.0, 6.0].view())?;
//! let model = MeanParams.fit_array(x.view(), &y)?;
//! assert_eq!(model.predict_array(x.view())?, array![3.0, 3.0, 3.0]);
//! // faer results (Gram matrices, decision values) become ndarray arrays:
//! let g = kern_core::gram(&kern_core::Linear, &Samples::from_array(x.view())?)?.into_array2();
//! assert_eq!(g[[1, 2]], 2.0 * 4.0 + 3.0 * 5.0);
//! # Ok::<(), kern_core::CoreError>(())
//! ```

use faer::{Mat, MatRef};
use ndarray::{Array1, Array2, ArrayView1, ArrayView2};

use crate::error::{CoreError, Result};
use crate::learner::{Fit, Model};
use crate::samples::Samples;
use crate::targets::{BinaryTargets, ClassTargets, RealTargets};

impl Samples {
    /// Dense samples from an ndarray view whose rows are samples (any memory layout; values are copied
    /// once and validated like [`Samples::from_flat`]).
    ///
    /// ```
    /// let a = ndarray::array![[1.0, 2.0], [3.0, 4.0]];
    /// let x = kern_core::Samples::from_array(a.view())?;
    /// assert_eq!(x.row(1), &[3.0, 4.0]);
    /// // A transposed (column-major) view works too.
    /// let t = kern_core::Samples::from_array(a.t())?;
    /// assert_eq!(t.row(0), &[1.0, 3.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`CoreError::Empty`] for no rows or no columns, [`CoreError::NonFinite`] for NaN or ±∞.
    pub fn from_array(x: ArrayView2<'_, f64>) -> Result<Self> {
        let (n, d) = x.dim();
        let data: Vec<f64> = x.rows().into_iter().flat_map(|r| r.into_iter().copied()).collect();
        Self::from_flat(data, n, d)
    }

    /// The samples as a dense ndarray matrix (rows are samples; a sparse store is densified).
    ///
    /// ```
    /// let x = kern_core::Samples::from_triplets(2, 3, &[(0, 2, 4.0)])?;
    /// assert_eq!(x.to_array()?, ndarray::array![[0.0, 0.0, 4.0], [0.0, 0.0, 0.0]]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`CoreError::DenseTooLarge`] for a sparse store beyond [`Samples::MAX_DENSE_VALUES`].
    pub fn to_array(&self) -> Result<Array2<f64>> {
        let x = self.densify("an ndarray matrix")?;
        let flat: Vec<f64> = x.rows().flat_map(|r| r.iter().copied()).collect();
        Ok(Array2::from_shape_vec((self.n(), self.d()), flat).expect("a dense copy holds n · d values"))
    }
}

impl<'a> TryFrom<ArrayView2<'a, f64>> for Samples {
    type Error = CoreError;

    /// See [`Samples::from_array`].
    fn try_from(x: ArrayView2<'a, f64>) -> Result<Self> {
        Self::from_array(x)
    }
}

impl RealTargets {
    /// Regression targets from an ndarray vector.
    ///
    /// ```
    /// let y = kern_core::RealTargets::from_array(ndarray::array![0.5, -1.0].view())?;
    /// assert_eq!(y.values(), &[0.5, -1.0]);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Errors
    /// As [`RealTargets::new`].
    pub fn from_array(y: ArrayView1<'_, f64>) -> Result<Self> {
        Self::new(y.to_vec())
    }
}

impl BinaryTargets {
    /// Binary targets from an ndarray vector of two distinct numeric labels.
    ///
    /// ```
    /// let y = kern_core::BinaryTargets::from_array(ndarray::array![1.0, -1.0, 1.0].view())?;
    /// assert_eq!(y.len(), 3);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Errors
    /// As [`BinaryTargets::from_f64`].
    pub fn from_array(y: ArrayView1<'_, f64>) -> Result<Self> {
        Self::from_f64(&y.to_vec())
    }
}

impl ClassTargets {
    /// Class targets from an ndarray vector of numeric labels.
    ///
    /// ```
    /// let y = kern_core::ClassTargets::from_array(ndarray::array![0.0, 2.0, 1.0, 2.0].view())?;
    /// assert_eq!(y.n_classes(), 3);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    ///
    /// # Errors
    /// As [`ClassTargets::from_f64`].
    pub fn from_array(y: ArrayView1<'_, f64>) -> Result<Self> {
        Self::from_f64(&y.to_vec())
    }
}

/// Dense results as an ndarray matrix: faer matrices (Gram matrices, decision values, transforms) and
/// row lists (`Vec<Vec<f64>>`, e.g. per-sample decision values or probabilities).
///
/// ```
/// use kern_core::array::IntoArray2;
/// let m = faer::Mat::from_fn(2, 3, |i, j| (10 * i + j) as f64);
/// assert_eq!(m.as_ref().into_array2(), ndarray::array![[0.0, 1.0, 2.0], [10.0, 11.0, 12.0]]);
/// let rows = vec![vec![1.0, 2.0], vec![3.0, 4.0]];
/// assert_eq!(rows.into_array2(), ndarray::array![[1.0, 2.0], [3.0, 4.0]]);
/// ```
pub trait IntoArray2 {
    /// The matrix as an ndarray `Array2` (row `i`, column `j` kept).
    ///
    /// # Panics
    /// For a row list whose rows differ in length (kern's results never do).
    fn into_array2(self) -> Array2<f64>;
}

impl IntoArray2 for MatRef<'_, f64> {
    fn into_array2(self) -> Array2<f64> {
        Array2::from_shape_fn((self.nrows(), self.ncols()), |(i, j)| self[(i, j)])
    }
}

impl IntoArray2 for Mat<f64> {
    fn into_array2(self) -> Array2<f64> {
        self.as_ref().into_array2()
    }
}

impl IntoArray2 for &Mat<f64> {
    fn into_array2(self) -> Array2<f64> {
        self.as_ref().into_array2()
    }
}

impl IntoArray2 for Vec<Vec<f64>> {
    fn into_array2(self) -> Array2<f64> {
        let n = self.len();
        let d = self.first().map_or(0, Vec::len);
        assert!(self.iter().all(|r| r.len() == d), "rows of different lengths");
        let flat: Vec<f64> = self.into_iter().flatten().collect();
        Array2::from_shape_vec((n, d), flat).expect("n rows of d values")
    }
}

/// A faer matrix from an ndarray view (the other direction of [`IntoArray2`]), for the faer-taking
/// parts of the API.
///
/// ```
/// let a = ndarray::array![[1.0, 2.0], [3.0, 4.0]];
/// let m = kern_core::array::to_faer(a.view());
/// assert_eq!(m[(1, 0)], 3.0);
/// ```
pub fn to_faer(a: ArrayView2<'_, f64>) -> Mat<f64> {
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[[i, j]])
}

/// Prediction on an ndarray matrix, for every [`Model`] whose error type takes kern-core's errors.
///
/// ```
/// use kern_core::{Samples, learner::Model, array::PredictArray};
/// struct Zero;
/// impl Model for Zero {
///     type Error = kern_core::CoreError;
///     fn predict(&self, x: &Samples) -> Result<Vec<f64>, Self::Error> { Ok(vec![0.0; x.n()]) }
/// }
/// assert_eq!(Zero.predict_array(ndarray::array![[1.0], [2.0]].view())?, ndarray::array![0.0, 0.0]);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub trait PredictArray: Model {
    /// [`Model::predict`] on the rows of `x`, as an `Array1`.
    ///
    /// # Errors
    /// Those of [`Samples::from_array`] and of the model's `predict`.
    fn predict_array(&self, x: ArrayView2<'_, f64>) -> std::result::Result<Array1<f64>, Self::Error>;
}

impl<M: Model> PredictArray for M
where
    M::Error: From<CoreError>,
{
    fn predict_array(&self, x: ArrayView2<'_, f64>) -> std::result::Result<Array1<f64>, Self::Error> {
        let s = Samples::from_array(x)?;
        Ok(Array1::from(self.predict(&s)?))
    }
}

/// Training on an ndarray matrix, for every learner (`Fit`) whose error type takes kern-core's errors.
///
/// ```
/// use kern_core::{Samples, RealTargets, learner::{Fit, Model}, array::FitArray};
/// struct Zero;
/// struct ZeroModel;
/// impl Model for ZeroModel {
///     type Error = kern_core::CoreError;
///     fn predict(&self, x: &Samples) -> Result<Vec<f64>, Self::Error> { Ok(vec![0.0; x.n()]) }
/// }
/// impl Fit<RealTargets> for Zero {
///     type Model = ZeroModel;
///     type Error = kern_core::CoreError;
///     fn fit(&self, x: &Samples, y: &RealTargets) -> Result<ZeroModel, Self::Error> { Ok(ZeroModel) }
/// }
/// let y = RealTargets::from_array(ndarray::array![1.0, 2.0].view())?;
/// let m = Zero.fit_array(ndarray::array![[1.0], [2.0]].view(), &y)?;
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub trait FitArray<T>: Fit<T> {
    /// [`Fit::fit`] on the rows of `x`.
    ///
    /// # Errors
    /// Those of [`Samples::from_array`] and of the learner's `fit`.
    fn fit_array(&self, x: ArrayView2<'_, f64>, y: &T) -> std::result::Result<Self::Model, Self::Error>;
}

impl<T, F: Fit<T>> FitArray<T> for F
where
    F::Error: From<CoreError>,
{
    fn fit_array(&self, x: ArrayView2<'_, f64>, y: &T) -> std::result::Result<Self::Model, Self::Error> {
        let s = Samples::from_array(x)?;
        self.fit(&s, y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, ShapeBuilder};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(kern_testkit::proptest_config(64))]
        /// Round trip: ndarray → Samples → ndarray is the identity for both memory layouts, and row i of
        /// the samples is row i of the array.
        #[test]
        fn array_round_trip(n in 1usize..6, d in 1usize..5, seed in any::<u64>(), fortran in any::<bool>()) {
            // Integers, so that every product and sum below is exact.
            let f = |i: usize, j: usize| {
                (seed.wrapping_mul(31).wrapping_add((i * 7 + j) as u64) % 1000) as f64 - 500.0
            };
            let a: Array2<f64> = if fortran {
                Array2::from_shape_fn((n, d).f(), |(i, j)| f(i, j))
            } else {
                Array2::from_shape_fn((n, d), |(i, j)| f(i, j))
            };
            let x = Samples::from_array(a.view()).unwrap();
            for i in 0..n {
                prop_assert_eq!(x.row(i).to_vec(), a.row(i).to_vec());
            }
            prop_assert_eq!(x.to_array().unwrap(), a.clone());
            prop_assert_eq!(x.to_sparse().to_array().unwrap(), a.clone());
            let g = crate::gram(&crate::Linear, &x).unwrap().into_array2();
            prop_assert_eq!(&g, &a.dot(&a.t()));
            prop_assert_eq!(to_faer(g.view()).as_ref().into_array2(), g);
        }
    }

    #[test]
    fn refuses_what_from_flat_refuses() {
        let a = ndarray::array![[1.0, f64::NAN]];
        assert!(matches!(Samples::from_array(a.view()), Err(CoreError::NonFinite { row: 0, col: 1, .. })));
        let e = Array2::<f64>::zeros((0, 3));
        assert!(matches!(Samples::from_array(e.view()), Err(CoreError::Empty(_))));
        assert!(RealTargets::from_array(ndarray::array![f64::INFINITY].view()).is_err());
        assert!(BinaryTargets::from_array(ndarray::array![1.0, 2.0, 3.0].view()).is_err());
    }
}
