//! The Gaussian width of kernel ridge regression and the LS-SVM chosen together with λ by exact
//! leave-one-out ([`crate::krr::KernelRidgeParams::choose_width`],
//! [`crate::lssvm::LsSvmParams::choose_width`]).
//!
//! **Candidates.** The widths `f σ₀` for `f ∈ {1, 2, 4, 8, 16}` ([`WIDTH_FACTORS`]), where `σ₀` is the
//! width of the given Gaussian, typically Letchford's mean-to-half (the kernel matrix's mean entry
//! is ½, Letchford 2015 §3): a local scale, and smooth targets want wider kernels. For each width
//! the model's own λ selection runs (every λ of its leave-one-out grid from one eigendecomposition,
//! [`crate::ridge`]), and the width whose best λ has the smallest leave-one-out error wins (ties: the
//! smaller mean squared residual, then the narrower width).
//!
//! **Size.** The search runs on at most [`WIDTH_POINTS`] samples (a seeded subsample beyond), and
//! chooses the width and λ together, as the SVMs' C is chosen on at most 3,000 samples. On all the
//! samples the model is then trained once, at that width and that λ: one Cholesky factorization
//! instead of the eigendecomposition a leave-one-out selection of λ on all of them would take (8 to
//! 15 times the whole search's cost at 4,000 samples). In the Gaussian-process reading of kernel
//! ridge regression, λ is the ratio of the noise variance to the kernel's, which does not grow or
//! shrink with the number of samples, so the subsample estimates the same quantity.
//!
//! **Why no wider.** Beyond 16 σ₀ the kernel matrix's small eigenvalues fall below the λ grid's
//! floor, and leave-one-out then drifts towards an almost polynomial model that predicts worse
//! (measured on the student grade sets: the RMSE 0.6 % below the grid search's at 16 σ₀, 2.4 % above
//! it when the factors are extended to 64).
//!
//! ```
//! use kern_core::{RealTargets, Samples, Targets};
//! use kern_models::krr::KernelRidgeParams;
//! let x = Samples::from_flat((0..60).map(|i| i as f64 / 20.0).collect(), 60, 1)?;
//! let y = Targets::Real(RealTargets::new((0..60).map(|i| (i as f64 / 20.0).sin()).collect())?);
//! let ch = KernelRidgeParams::new("gaussian:sigma=0.1".parse()?).choose_width(&x, &y, 0)?;
//! assert_eq!(ch.curve.len(), 5);
//! assert!(ch.factor > 1.0); // a smooth target: a wider kernel than 0.1
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{Lambda, Selection};
use crate::error::{ModelsError, Result};
use kern_core::{KernelSpec, Samples, Targets};
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;

/// The width factors tried (module notes).
///
/// ```
/// use kern_models::ridge::width::WIDTH_FACTORS;
/// use kern_core::{RealTargets, Samples, Targets};
/// use kern_models::krr::KernelRidgeParams;
/// let x = Samples::from_flat((0..30).map(|i| i as f64 / 10.0).collect(), 30, 1)?;
/// let y = Targets::Real(RealTargets::new((0..30).map(|i| (i as f64 / 10.0).sin()).collect())?);
/// let ch = KernelRidgeParams::new("gaussian:sigma=0.1".parse()?).choose_width(&x, &y, 0)?;
/// let tried: Vec<f64> = ch.curve.iter().map(|s| s.factor).collect();
/// assert_eq!(tried, WIDTH_FACTORS);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const WIDTH_FACTORS: [f64; 5] = [1.0, 2.0, 4.0, 8.0, 16.0];

/// The search's sample size: beyond it, a seeded subsample of this size.
///
/// ```
/// use kern_models::ridge::width::WIDTH_POINTS;
/// use kern_core::{RealTargets, Samples, Targets};
/// use kern_models::krr::KernelRidgeParams;
/// let x = Samples::from_flat((0..30).map(|i| i as f64 / 10.0).collect(), 30, 1)?;
/// let y = Targets::Real(RealTargets::new((0..30).map(|i| (i as f64 / 10.0).sin()).collect())?);
/// let ch = KernelRidgeParams::new("gaussian:sigma=0.1".parse()?).choose_width(&x, &y, 0)?;
/// assert_eq!(ch.points, x.n().min(WIDTH_POINTS)); // 30 samples: all of them
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const WIDTH_POINTS: usize = 1000;

/// One candidate width and its leave-one-out result.
///
/// ```
/// use kern_core::{RealTargets, Samples, Targets};
/// use kern_models::krr::KernelRidgeParams;
/// let x = Samples::from_flat((0..30).map(|i| i as f64 / 10.0).collect(), 30, 1)?;
/// let y = Targets::Real(RealTargets::new((0..30).map(|i| (i as f64 / 10.0).sin()).collect())?);
/// let ch = KernelRidgeParams::new("gaussian:sigma=0.1".parse()?).choose_width(&x, &y, 0)?;
/// let chosen = ch.curve.iter().find(|s| s.factor == ch.factor).unwrap();
/// assert!(ch.curve.iter().all(|s| s.error >= chosen.error)); // the smallest error wins
/// assert!(ch.curve.iter().all(|s| s.error == s.mse)); // values: the error is the squared residual
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WidthScore {
    /// The factor `f` of the width `f σ₀`.
    pub factor: f64,
    /// The best λ at this width.
    pub lambda: f64,
    /// Its leave-one-out error (error rate for classes, mean squared residual for values).
    pub error: f64,
    /// Its mean squared leave-one-out residual.
    pub mse: f64,
}

/// A width (and its λ) chosen by [`crate::krr::KernelRidgeParams::choose_width`] or
/// [`crate::lssvm::LsSvmParams::choose_width`].
///
/// ```
/// use kern_core::{RealTargets, Samples, Targets};
/// use kern_models::krr::KernelRidgeParams;
/// let x = Samples::from_flat((0..30).map(|i| i as f64 / 10.0).collect(), 30, 1)?;
/// let y = Targets::Real(RealTargets::new((0..30).map(|i| (i as f64 / 10.0).sin()).collect())?);
/// let ch = KernelRidgeParams::new("gaussian:sigma=0.1".parse()?).choose_width(&x, &y, 0)?;
/// // The chosen kernel is the given Gaussian, `factor` times wider.
/// assert_eq!(ch.kernel.to_string(), format!("gaussian:sigma={}", 0.1 * ch.factor));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WidthChoice {
    /// The chosen kernel (the given Gaussian, `factor` times wider, in its own parametrization).
    #[serde(serialize_with = "as_text")]
    pub kernel: KernelSpec,
    /// The chosen factor.
    pub factor: f64,
    /// Every factor tried, in ascending order.
    pub curve: Vec<WidthScore>,
    /// Samples the search ran on.
    pub points: usize,
    /// Wall time of the search.
    pub seconds: f64,
}

impl WidthChoice {
    /// The best λ at the chosen width, on the searched samples: the λ the model is trained with when
    /// the search ran on a subsample (module notes).
    ///
    /// ```
    /// use kern_core::{RealTargets, Samples, Targets};
    /// use kern_models::krr::KernelRidgeParams;
    /// let x = Samples::from_flat((0..30).map(|i| i as f64 / 10.0).collect(), 30, 1)?;
    /// let y = Targets::Real(RealTargets::new((0..30).map(|i| (i as f64 / 10.0).sin()).collect())?);
    /// let (ch, (m, _)) = KernelRidgeParams::new("gaussian:sigma=0.1".parse()?).choose_width_with_fit(&x, &y, 0)?;
    /// assert_eq!(ch.lambda(), m.lambda());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn lambda(&self) -> f64 {
        self.curve.iter().find(|s| s.factor == self.factor).map_or(f64::NAN, |s| s.lambda)
    }

    /// Whether the search ran on all the samples, so that the model it returns is its own fit at the
    /// chosen width (λ selected by leave-one-out); else that model was trained on all `n` samples at
    /// the search's width and [`WidthChoice::lambda`].
    ///
    /// ```
    /// use kern_models::ridge::width::{WIDTH_POINTS, WidthChoice};
    /// # let ch = WidthChoice { kernel: "gaussian:sigma=1".parse()?, factor: 1.0, curve: vec![], points: 30, seconds: 0.0 };
    /// assert!(ch.searched_all(30) && !ch.searched_all(2 * WIDTH_POINTS));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn searched_all(&self, n: usize) -> bool {
        self.points == n
    }
}

fn as_text<S: serde::Serializer>(k: &KernelSpec, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&k.to_string())
}

/// The samples of `n` the search runs on with `seed`: `None` for all of them (at most
/// [`WIDTH_POINTS`]), else the seeded subsample's indices, in the order the search uses them. The
/// search on those rows alone (`x.select`, `y.select`) makes the same choice: how rows held in parts
/// (kern-dist) are searched by gathering only these.
///
/// ```
/// use kern_models::ridge::width::{WIDTH_POINTS, search_points};
/// assert_eq!(search_points(WIDTH_POINTS, 3)?, None);
/// let idx = search_points(5 * WIDTH_POINTS, 3)?.unwrap();
/// assert_eq!(idx.len(), WIDTH_POINTS);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub fn search_points(n: usize, seed: u64) -> Result<Option<Vec<usize>>> {
    if n <= WIDTH_POINTS {
        return Ok(None);
    }
    Ok(Some(kern_tune::cv::subsample(n, WIDTH_POINTS, seed, 0)?))
}

/// Runs the search for a model with kernel `kernel` and λ rule `lambda` on `(x, y)`; `select` trains
/// the model with another kernel on the search's samples and returns its λ selection and the model;
/// `refit` trains it on all of `(x, y)` with a kernel and a fixed λ. With the choice comes the model
/// at the chosen width and the seconds its training took: the search's own fit when the search ran
/// on all of `x` (at most [`WIDTH_POINTS`] samples), else `refit` at the chosen width and its λ
/// (module notes).
pub(crate) fn choose<M: Send>(
    kernel: &KernelSpec,
    lambda: &Lambda,
    x: &Samples,
    y: &Targets,
    seed: u64,
    select: impl Fn(KernelSpec, &Samples, &Targets) -> Result<(Selection, M)> + Sync,
    refit: impl FnOnce(KernelSpec, f64) -> Result<M>,
) -> Result<(WidthChoice, (M, f64))> {
    let t = Instant::now();
    let KernelSpec::Gaussian(g) = kernel else {
        return Err(ModelsError::Input(format!("the width search is for the gaussian kernel, not {kernel}")));
    };
    if !matches!(lambda, Lambda::Loo(_)) {
        return Err(ModelsError::Input(
            "the width search chooses the width together with lambda by leave-one-out: give no lambda".into(),
        ));
    }
    y.check_len(x.n())?;
    let rows = search_points(x.n(), seed)?;
    let subsample = rows.is_some();
    let (xs, ys) = match &rows {
        Some(rows) => (x.select(rows)?, y.select(rows)?),
        None => (x.clone(), y.clone()),
    };
    // The widths in parallel (each eigendecomposition is small enough to leave cores idle).
    let (curve, mut models): (Vec<WidthScore>, Vec<(M, f64)>) = WIDTH_FACTORS
        .par_iter()
        .map(|&f| {
            let t = Instant::now();
            let (s, m) = select(KernelSpec::Gaussian(g.widened(f)?), &xs, &ys)?;
            let seconds = t.elapsed().as_secs_f64();
            let score =
                WidthScore { factor: f, lambda: s.grid[s.best], error: s.error[s.best], mse: s.mse[s.best] };
            Ok((score, (m, seconds)))
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    let mut best = 0;
    for (i, c) in curve.iter().enumerate() {
        if (c.error, c.mse) < (curve[best].error, curve[best].mse) {
            best = i;
        }
    }
    let factor = curve[best].factor;
    let choice = WidthChoice {
        kernel: KernelSpec::Gaussian(g.widened(factor)?),
        factor,
        curve,
        points: xs.n(),
        seconds: t.elapsed().as_secs_f64(),
    };
    let model = if subsample {
        let t = Instant::now();
        let m = refit(choice.kernel.clone(), choice.lambda())?;
        (m, t.elapsed().as_secs_f64())
    } else {
        models.swap_remove(best)
    };
    Ok((choice, model))
}
