//! Per-sample weights (scikit-learn's `sample_weight`) for the SVMs and kernel ridge regression.
//!
//! **SVMs** follow scikit-learn's LIBSVM fork (`sklearn/svm/src/libsvm/svm.cpp`): a weight `w_i`
//! multiplies sample `i`'s box constraint after the class weights, `C_i = w_i · C · w_class(y_i)`
//! (C-SVC, ε-SVR, ν-SVR), and is the box constraint itself in the scaled ν-SVC and one-class duals
//! (`0 ≤ α_i ≤ w_i`, with `Σ w` in place of the sample count `l` in `eᵀα = ν l` and in the ν-SVC
//! feasibility test). Samples of weight 0 are dropped before training (the fork's
//! `remove_zero_weight`); an integer weight `m` then trains the same machine as `m` copies of the
//! sample. Unlike the fork, which also drops negative weights silently, a negative weight is an error.
//!
//! **Kernel ridge regression** minimizes `Σ_i w_i (y_i − f(x_i))² + λ‖f‖²`, whose dual solution is
//! `α = S (S K S + λI)⁻¹ S y` with `S = diag(√w)` — scikit-learn's `_solve_cholesky_kernel`
//! (`sklearn/linear_model/_ridge.py`): `K ← S K S`, `y ← S y`, solve, `α ← S α`. Zero weights are kept
//! (their `α_i` is 0).
//!
//! ```
//! use kern_core::{Samples, Targets, RealTargets};
//! use kern_models::svm::SvrParams;
//! use kern_models::weights::{FitWeighted, SampleWeights};
//! let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
//! let y = Targets::Real(RealTargets::new(vec![0.0, 1.0, 2.0, 3.5])?);
//! let w = SampleWeights::new(vec![1.0, 2.0, 0.0, 1.0])?;   // the third sample is left out
//! let m = SvrParams::new("linear".parse()?).c(10.0).fit_weighted(&x, &y, &w)?;
//! assert!(m.support_vectors().n() <= 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{ModelsError, Result};
use kern_core::learner::Fit;
use kern_core::{Samples, Targets};
use kern_tune::cv::WeightedTargets;
use std::borrow::Cow;

/// One weight per training sample: finite, `≥ 0`, at least one positive.
///
/// ```
/// use kern_models::weights::SampleWeights;
/// assert!(SampleWeights::new(vec![1.0, 0.5]).is_ok());
/// assert!(SampleWeights::new(vec![1.0, -0.5]).is_err());
/// assert!(SampleWeights::new(vec![0.0, 0.0]).is_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SampleWeights(Vec<f64>);

impl SampleWeights {
    /// Checks the weights: finite, non-negative, not all zero.
    pub fn new(w: Vec<f64>) -> Result<Self> {
        if let Some((i, v)) = w.iter().enumerate().find(|(_, v)| !(v.is_finite() && **v >= 0.0)) {
            return Err(ModelsError::Input(format!(
                "sample weight {v} (sample {}) must be finite and >= 0",
                i + 1
            )));
        }
        if !w.iter().any(|&v| v > 0.0) {
            return Err(ModelsError::Input("every sample weight is zero: nothing to train on".into()));
        }
        Ok(SampleWeights(w))
    }

    /// The weights.
    ///
    /// ```
    /// let w = kern_models::weights::SampleWeights::new(vec![2.0, 1.0])?;
    /// assert_eq!(w.values(), &[2.0, 1.0]);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn values(&self) -> &[f64] {
        &self.0
    }

    /// Errors unless there is one weight per sample.
    pub(crate) fn check_len(&self, n: usize) -> Result<()> {
        if self.0.len() != n {
            return Err(ModelsError::Input(format!("{} sample weights for {n} samples", self.0.len())));
        }
        Ok(())
    }
}

/// Samples, targets (if any) and weights, borrowed or with some samples dropped.
type Kept<'a> = (Cow<'a, Samples>, Option<Cow<'a, Targets>>, Cow<'a, [f64]>);

/// The samples, targets and weights with the zero-weight samples dropped (borrowed when there are none).
pub(crate) fn positive<'a>(x: &'a Samples, y: Option<&'a Targets>, w: &'a SampleWeights) -> Result<Kept<'a>> {
    w.check_len(x.n())?;
    if let Some(y) = y {
        y.check_len(x.n())?;
    }
    if w.0.iter().all(|&v| v > 0.0) {
        return Ok((Cow::Borrowed(x), y.map(Cow::Borrowed), Cow::Borrowed(&w.0)));
    }
    let keep: Vec<usize> = (0..x.n()).filter(|&i| w.0[i] > 0.0).collect();
    let y = match y {
        Some(y) => Some(Cow::Owned(y.select(&keep)?)),
        None => None,
    };
    Ok((Cow::Owned(x.select(&keep)?), y, Cow::Owned(keep.iter().map(|&i| w.0[i]).collect())))
}

/// Learners that take one weight per training sample (module docs for what a weight means).
///
/// ```
/// use kern_core::{ClassTargets, Samples, Targets, learner::{Fit, Model}};
/// use kern_models::svm::SvcParams;
/// use kern_models::weights::{FitWeighted, SampleWeights};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.6], [3.0], [4.0]])?;
/// let y = Targets::Classes(ClassTargets::from_labels(&["a", "a", "a", "b", "b"])?);
/// let p = SvcParams::new("linear".parse()?).c(10.0);
/// // Weight 0 leaves a sample out: the machine of the other four.
/// let w = p.fit_weighted(&x, &y, &SampleWeights::new(vec![1.0, 1.0, 0.0, 1.0, 1.0])?)?;
/// let keep = [0, 1, 3, 4];
/// let y4 = Targets::Classes(ClassTargets::from_labels(&["a", "a", "b", "b"])?);
/// let four = p.fit(&x.select(&keep)?, &y4)?;
/// let probe = Samples::from_rows(&[[1.5], [1.9], [2.2], [2.8]])?;
/// assert_eq!(w.predict(&probe)?, four.predict(&probe)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait FitWeighted: Fit<Targets, Error = ModelsError> {
    /// Trains on `x` and `y` with sample weights `w` (one per sample).
    ///
    /// ```
    /// use kern_core::{Samples, Targets, ClassTargets, learner::Fit};
    /// use kern_models::svm::SvcParams;
    /// use kern_models::weights::{FitWeighted, SampleWeights};
    /// let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.0]])?;
    /// let y = Targets::Classes(ClassTargets::from_labels(&["a", "a", "b", "b"])?);
    /// let p = SvcParams::new("linear".parse()?);
    /// // Weight 1 everywhere is the unweighted machine.
    /// let ones = SampleWeights::new(vec![1.0; 4])?;
    /// assert_eq!(p.fit_weighted(&x, &y, &ones)?, p.fit(&x, &y)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn fit_weighted(&self, x: &Samples, y: &Targets, w: &SampleWeights) -> Result<Self::Model>;

    /// [`FitWeighted::fit_weighted`] with `Some` weights, [`Fit::fit`] with `None`.
    ///
    /// ```
    /// use kern_core::{Samples, Targets, RealTargets};
    /// use kern_models::krr::KernelRidgeParams;
    /// use kern_models::weights::FitWeighted;
    /// let x = Samples::from_rows(&[[0.0], [1.0], [2.0]])?;
    /// let y = Targets::Real(RealTargets::new(vec![0.0, 1.0, 4.0])?);
    /// let m = KernelRidgeParams::new("linear".parse()?).lambda(0.1).fit_with(&x, &y, None)?;
    /// assert_eq!(m.alpha(0).len(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn fit_with(&self, x: &Samples, y: &Targets, w: Option<&SampleWeights>) -> Result<Self::Model> {
        match w {
            Some(w) => self.fit_weighted(x, y, w),
            None => self.fit(x, y),
        }
    }
}

/// A learner trained with the sample weights that travel with its targets: what cross-validates a
/// weighted fit ([`kern_tune::cv::cross_validate`] with [`WeightedTargets`]), each fold trained with its
/// own rows' weights and scored unweighted.
///
/// ```
/// use kern_core::{Samples, Targets, RealTargets};
/// use kern_models::svm::SvrParams;
/// use kern_models::weights::Weighted;
/// use kern_tune::cv::{cross_validate, CvConfig, WeightedTargets};
/// let x = Samples::from_flat((0..20).map(|i| i as f64 / 4.0).collect(), 20, 1)?;
/// let y = Targets::Real(RealTargets::new((0..20).map(|i| (i as f64 / 4.0).sin()).collect())?);
/// let p = SvrParams::new("gaussian:sigma=1".parse()?);
/// // Weight 1 everywhere cross-validates as the unweighted learner does.
/// let ones = WeightedTargets::new(y.clone(), vec![1.0; 20])?;
/// let cfg = CvConfig::k_fold(4, 3);
/// assert_eq!(cross_validate(&Weighted(p.clone()), &x, &ones, &cfg)?.mean, cross_validate(&p, &x, &y, &cfg)?.mean);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Weighted<P>(pub P);

impl<P: FitWeighted> Fit<WeightedTargets<Targets>> for Weighted<P> {
    type Model = P::Model;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &WeightedTargets<Targets>) -> Result<P::Model> {
        self.0.fit_weighted(x, &y.targets, &SampleWeights::new(y.weights.clone())?)
    }
}
