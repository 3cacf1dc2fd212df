//! Gaussian bandwidth heuristics that need no training: mean-to-half and maximum variance (Letchford
//! 2015), Ahn's class-separation criterion (Ahn 2010, as stated by Letchford), and two named baselines,
//! the median heuristic and scikit-learn's `gamma='scale'`.
//!
//! All are stated for the Gaussian kernel `k(x, y) = exp(−β‖x − y‖²)` (Letchford eq. 1); `σ² = 1/β` in
//! kern's `gaussian:sigma=S` parametrisation `exp(−r²/σ²)`. The pair criteria are means over the pairs
//! `i > j` of the squared distances `p = ‖xᵢ − xⱼ‖²` (Letchford, "Maximum variance"). Beyond
//! [`PairSampling::Auto`]'s `max_points` (default 5000) points the pairs of a seeded subsample are used
//! instead — never an `n × n × d` tensor — and every result says which pairs it used
//! ([`Bandwidth::sampling`]).
//!
//! **Evaluation.** With [`Solver::Newton`] and at least 65,536 pairs, [`select_bandwidth`] bins the
//! distances as they are computed ([`crate::pairs::binned_pairwise`], [`crate::binned`]): each Newton step
//! then costs a sum over a few thousand bins with a proven error bound, and the root is accepted only if
//! that bound proves the tolerance (`|μ − ½| ≤ mean_tol`, or β to `beta_rtol`); otherwise the distances
//! are computed into a flat array ([`crate::pairs`]) and exact Newton steps finish from the binned root.
//! The result is the same root either way; the common case costs one distance pass. Otherwise (and for
//! [`Solver::Bisection`], the paper's method) every evaluation is one vectorised, parallel pass over the
//! flat array ([`mean_similarity`], [`similarity_variance`], …).
//!
//! - **Mean-to-half**: β with mean similarity `μ(β) = (1/N) Σ e^{−βp} = 1/2`. `μ` is decreasing and
//!   convex in β, and `μ(ln 2 / p̄) ≥ 1/2` by Jensen (`p̄` the mean of p), so Newton's method started at
//!   `ln 2 / p̄` increases monotonically to the root (safeguarded by the bracket); [`Solver::Bisection`]
//!   bisects `log β` instead, as in the paper. Undefined (an error) with fewer than two points or when at
//!   least half the pairs are duplicates (`μ ≥ 1/2` for every β).
//! - **Maximum variance**: β maximising `s²(β) = (1/N) Σ (e^{−βp} − μ)²`, at the zero of the paper's
//!   derivative `ds²/dβ = −(2/N) Σ p e^{−2βp} + (2/N²) Σ e^{−βp} Σ p e^{−βp}`. A sign change `+ → −` is
//!   bracketed by expanding from `ln 2 / p̄` by factors of 4, then found by Newton steps in `log β` (second
//!   derivative from the same pass) safeguarded by bisection ("rtsafe"). Undefined when all distances
//!   are equal (`s² ≡ 0`) or when the variance keeps increasing (duplicates: `s² → q(1−q)` as β → ∞ with
//!   a fraction `q` of zero distances).
//! - **Ahn**: the β of a grid maximising `J(β) = κ̄₁₁ + κ̄₂₂ − 2κ̄₁₂`, the mean within-class similarities
//!   minus twice the mean between-class similarity (Letchford's statement of Ahn's criterion: within
//!   distances `2 − 2κ̄_cc` small, between distance `2 − 2κ̄₁₂` large). With `k > 2` classes we use
//!   `J = 2(mean_c κ̄_cc − κ̄_between)`, which is the same for two classes. `J` is not unimodal, so it is
//!   evaluated on the whole grid (default: 81 values with `β p̄` log-spaced over `[10⁻³, 10³]`; the
//!   paper's 80 values over `[10⁻³, 10³]` assume standardised data).
//! - **Median**: `β = 1/median(p)`, i.e. σ = the median pairwise distance in `exp(−r²/σ²)` (the form
//!   `exp(−r²/(2σ²))` with σ = median distance, as in Gretton et al., is half this β).
//! - **Scale**: scikit-learn's `gamma='scale'`, `β = 1/(d · Var(X))` with the variance of all entries of
//!   X (population). It uses every point and no pairs.
//!
//! ```
//! use kern_core::Samples;
//! use kern_tune::bandwidth::{select_bandwidth, mean_similarity, BandwidthOptions, Method};
//! let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.5], [7.0]])?;
//! let b = select_bandwidth(&x, None, Method::MeanToHalf, &BandwidthOptions::default())?;
//! let p = kern_tune::pairs::pairwise_sq_dists(&x);
//! assert!((mean_similarity(&p, b.beta) - 0.5).abs() < 1e-12);
//! assert!((b.sigma * b.sigma * b.beta - 1.0).abs() < 1e-12);
//! assert_eq!(b.pairs, 10);
//! # Ok::<(), kern_tune::TuneError>(())
//! ```

use crate::binned::{BinnedPairs, PairStats};
use crate::error::{Result, TuneError};
use crate::fastexp::{CHUNK, GridSums, MeanSums, VarSums, par_sums};
use crate::pairs::{PairSampling, binned_pair_set, packed_ends, pair_set};
use crate::rng;
use kern_core::Samples;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// A bandwidth heuristic.
///
/// ```
/// use kern_tune::bandwidth::Method;
/// // Every method's name parses back to it (the names of `gaussian:sigma=METHOD`).
/// for m in Method::ALL {
///     assert_eq!(m.name().parse::<Method>()?, m);
///     assert_eq!(m.to_string(), m.name());
/// }
/// assert!("widest".parse::<Method>().is_err());
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Mean similarity over pairs equal to 1/2 (Letchford).
    MeanToHalf,
    /// Maximum variance of the similarities over pairs (Tang et al., as in Letchford).
    MaxVariance,
    /// Ahn's class separation over a β grid (labels required).
    Ahn,
    /// `β = 1/median(‖xᵢ − xⱼ‖²)`.
    Median,
    /// scikit-learn's `gamma='scale'`: `β = 1/(d · Var(X))`.
    Scale,
}

impl Method {
    /// Every method, in documentation order.
    pub const ALL: [Method; 5] =
        [Method::MeanToHalf, Method::MaxVariance, Method::Ahn, Method::Median, Method::Scale];

    /// The command-line name (`mean-to-half`, `max-variance`, `ahn`, `median`, `scale`).
    pub fn name(self) -> &'static str {
        match self {
            Method::MeanToHalf => "mean-to-half",
            Method::MaxVariance => "max-variance",
            Method::Ahn => "ahn",
            Method::Median => "median",
            Method::Scale => "scale",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Method {
    type Err = TuneError;
    /// ```
    /// assert_eq!("max-variance".parse::<kern_tune::bandwidth::Method>()?, kern_tune::bandwidth::Method::MaxVariance);
    /// # Ok::<(), kern_tune::TuneError>(())
    /// ```
    fn from_str(s: &str) -> Result<Self> {
        let k = s.trim().to_ascii_lowercase().replace('_', "-");
        Method::ALL.into_iter().find(|m| m.name() == k).ok_or_else(|| {
            TuneError::Undefined(format!(
                "unknown bandwidth method {s:?}; valid: mean-to-half, max-variance, ahn, median, scale"
            ))
        })
    }
}

/// Root finder of mean-to-half and maximum variance.
///
/// ```
/// use kern_tune::bandwidth::{Solver, mean_to_half};
/// // Newton and the paper's bisection find the same mean-to-half root, Newton in fewer passes.
/// let p = [1.0, 4.0, 9.0];
/// let newton = mean_to_half(&p, Solver::Newton, 1e-13, 1e-13, 200)?;
/// let bisection = mean_to_half(&p, Solver::Bisection, 1e-13, 1e-13, 200)?;
/// assert!((newton.beta - bisection.beta).abs() < 1e-10 * newton.beta);
/// assert!(newton.iterations < bisection.iterations);
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Solver {
    /// Newton steps (in β for mean-to-half, in log β for maximum variance) kept inside a bracket,
    /// bisecting when a step leaves it. Typically 4–8 passes.
    #[default]
    Newton,
    /// Bisection of log β inside the bracket, as in the paper (about 40–50 passes at the default
    /// tolerances).
    Bisection,
}

/// Options of [`select_bandwidth`] and [`subsample_study`].
///
/// ```
/// use kern_core::Samples;
/// use kern_tune::bandwidth::{BandwidthOptions, Method, Solver, mean_similarity, select_bandwidth};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?; // squared distances 1, 9, 4
/// let opts = BandwidthOptions { solver: Solver::Bisection, mean_tol: 1e-10, ..Default::default() };
/// let b = select_bandwidth(&x, None, Method::MeanToHalf, &opts)?;
/// assert!((mean_similarity(&[1.0, 9.0, 4.0], b.beta) - 0.5).abs() <= 1e-10);
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BandwidthOptions {
    /// Which pairs the criteria use (default: all pairs up to 5000 points, a seeded subsample beyond).
    pub sampling: PairSampling,
    /// Root finder.
    pub solver: Solver,
    /// Mean-to-half stops when `|μ(β) − 1/2| ≤ mean_tol` (default 1e-12).
    pub mean_tol: f64,
    /// Either root finder stops when the bracket or the step is within `beta_rtol · β` (default 1e-12).
    pub beta_rtol: f64,
    /// Passes over the pairs allowed (default 200).
    pub max_iter: usize,
    /// Ahn's β grid (absolute values); `None` for the default grid relative to the mean squared distance.
    pub ahn_betas: Option<Vec<f64>>,
}

impl Default for BandwidthOptions {
    fn default() -> Self {
        BandwidthOptions {
            sampling: PairSampling::default(),
            solver: Solver::Newton,
            mean_tol: 1e-12,
            beta_rtol: 1e-12,
            max_iter: 200,
            ahn_betas: None,
        }
    }
}

/// A selected bandwidth.
///
/// ```
/// use kern_core::Samples;
/// use kern_tune::bandwidth::{BandwidthOptions, Method, select_bandwidth};
/// // The median heuristic on three points: squared distances 1, 9, 4, so β = 1/4 and σ = 2.
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?;
/// let b = select_bandwidth(&x, None, Method::Median, &BandwidthOptions::default())?;
/// assert_eq!((b.method, b.beta, b.sigma, b.pairs), (Method::Median, 0.25, 2.0, 3));
/// assert!(b.curve.is_empty()); // Ahn's alone has a curve
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bandwidth {
    /// The method.
    pub method: Method,
    /// The precision β of `exp(−β r²)`.
    pub beta: f64,
    /// `σ = 1/√β`, the parameter of `exp(−r²/σ²)` (`gaussian:sigma=σ`).
    pub sigma: f64,
    /// The criterion at β: mean similarity (mean-to-half), similarity variance (max-variance), `J(β)`
    /// (Ahn), the median squared distance (median), or `Var(X)` (scale).
    pub criterion: f64,
    /// The criterion's derivative in β at β, where the method has one (`dμ/dβ`, `ds²/dβ`).
    pub derivative: Option<f64>,
    /// Passes over the pairs (criterion evaluations).
    pub iterations: usize,
    /// Pairs used (0 for scale).
    pub pairs: usize,
    /// Which pairs were used: all, a seeded subsample, or seeded random pairs.
    pub sampling: String,
    /// Ahn's `(β, J(β))` curve (empty for the other methods).
    pub curve: Vec<(f64, f64)>,
}

/// A root of a criterion found on a flat array of squared distances.
///
/// ```
/// use kern_tune::bandwidth::{Solver, mean_similarity, mean_to_half};
/// let p = [1.0, 4.0, 9.0];
/// let r = mean_to_half(&p, Solver::Newton, 1e-12, 1e-12, 100)?;
/// assert!((r.value - 0.5).abs() <= 1e-12);
/// assert!((r.value - mean_similarity(&p, r.beta)).abs() < 1e-15);
/// assert!(r.derivative < 0.0); // the mean similarity falls as β grows
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Root {
    /// β.
    pub beta: f64,
    /// The criterion at β (mean similarity or similarity variance).
    pub value: f64,
    /// Its derivative in β at β.
    pub derivative: f64,
    /// Passes over the array.
    pub iterations: usize,
}

/// The mean similarity `μ(β) = (1/N) Σ e^{−βp}` over squared distances `p` (Letchford, "Mean-to-half").
///
/// ```
/// assert!((kern_tune::bandwidth::mean_similarity(&[0.0, 2.0], 0.5) - (1.0 + (-1f64).exp()) / 2.0).abs() < 1e-15);
/// ```
pub fn mean_similarity(p: &[f64], beta: f64) -> f64 {
    par_sums(p, &MeanSums(beta))[0] / p.len() as f64
}

/// The similarity variance `s²(β) = (1/N) Σ e^{−2βp} − μ(β)²` (Letchford, "Maximum variance").
///
/// ```
/// let v = kern_tune::bandwidth::similarity_variance(&[0.0, 1.0], 1.0);
/// let e = (-1f64).exp();
/// assert!((v - (1.0 - e) * (1.0 - e) / 4.0).abs() < 1e-15);
/// ```
pub fn similarity_variance(p: &[f64], beta: f64) -> f64 {
    let n = p.len() as f64;
    let s0 = par_sums(p, &MeanSums(beta))[0] / n;
    let s00 = par_sums(p, &MeanSums(2.0 * beta))[0] / n;
    s00 - s0 * s0
}

/// The paper's derivative `ds²/dβ = −(2/N) Σ p e^{−2βp} + (2/N²) Σ e^{−βp} Σ p e^{−βp}`.
///
/// ```
/// use kern_tune::bandwidth::{similarity_variance, variance_derivative};
/// let p = [0.5, 1.0, 4.0, 9.0];
/// let h = 1e-6;
/// let fd = (similarity_variance(&p, 0.3 + h) - similarity_variance(&p, 0.3 - h)) / (2.0 * h);
/// assert!((variance_derivative(&p, 0.3) - fd).abs() < 1e-8);
/// ```
pub fn variance_derivative(p: &[f64], beta: f64) -> f64 {
    var_eval(p, beta).0
}

/// Checks the pairs' statistics for mean-to-half and returns `ln 2 / p̄`, where it starts.
fn check_mean_to_half(st: &PairStats) -> Result<f64> {
    check_stats(st)?;
    if 2 * st.zeros >= st.len {
        return Err(TuneError::Undefined(format!(
            "{} of {} pairs are duplicate points, so the mean similarity is at least 1/2 for every beta",
            st.zeros, st.len
        )));
    }
    Ok(std::f64::consts::LN_2 / st.mean())
}

/// `(ds²/dβ, d²s²/dβ²)` in one pass.
fn var_eval(p: &[f64], beta: f64) -> (f64, f64) {
    let n = p.len() as f64;
    let [s0, s1, s2, t1, t2] = par_sums(p, &VarSums(beta)).map(|v| v / n);
    (-2.0 * t1 + 2.0 * s0 * s1, 4.0 * t2 - 2.0 * s1 * s1 - 2.0 * s0 * s2)
}

/// Arrays at least this long are solved on their bins ([`BinnedPairs`]: one pass over the pairs, then
/// every Newton step over the bins), then certified against the tolerances or polished on the exact
/// array. Shorter arrays take exact passes throughout (each costs well under a millisecond).
const BINNED_MIN: usize = 1 << 16;

/// What the root finders evaluate: the exact array of squared distances, or its bins (values with a
/// bound on their error).
trait Criteria {
    /// `(μ(β) − ½, dμ/dβ, bound on the error of the first)`.
    fn mean(&self, beta: f64) -> (f64, f64, f64);
    /// `(ds²/dβ, d²s²/dβ², bound on the error of the first)`.
    fn var(&self, beta: f64) -> (f64, f64, f64);
    /// `s²(β)`.
    fn variance(&self, beta: f64) -> f64;
}

/// The exact sums over the array (one parallel pass per evaluation).
struct Exact<'a>(&'a [f64]);

impl Criteria for Exact<'_> {
    fn mean(&self, beta: f64) -> (f64, f64, f64) {
        let n = self.0.len() as f64;
        let [s0, s1] = par_sums(self.0, &MeanSums(beta));
        (s0 / n - 0.5, -s1 / n, 0.0)
    }
    fn var(&self, beta: f64) -> (f64, f64, f64) {
        let (g, gp) = var_eval(self.0, beta);
        (g, gp, 0.0)
    }
    fn variance(&self, beta: f64) -> f64 {
        similarity_variance(self.0, beta)
    }
}

impl Criteria for BinnedPairs {
    fn mean(&self, beta: f64) -> (f64, f64, f64) {
        let n = self.len() as f64;
        let s = self.sums(beta);
        (s.value[0] / n - 0.5, -s.value[1] / n, s.error[0] / n)
    }
    fn var(&self, beta: f64) -> (f64, f64, f64) {
        let n = self.len() as f64;
        let (a, b) = (self.sums(beta), self.sums(2.0 * beta));
        let [s0, s1, s2] = a.value.map(|v| v / n);
        let [e0, e1, _] = a.error.map(|v| v / n);
        let (t1, t2, et1) = (b.value[1] / n, b.value[2] / n, b.error[1] / n);
        let g = -2.0 * t1 + 2.0 * s0 * s1;
        let err = 2.0 * et1 + 2.0 * (s0.abs() * e1 + s1.abs() * e0 + e0 * e1);
        (g, 4.0 * t2 - 2.0 * s1 * s1 - 2.0 * s0 * s2, err)
    }
    fn variance(&self, beta: f64) -> f64 {
        let n = self.len() as f64;
        let s0 = self.sums(beta).value[0] / n;
        self.sums(2.0 * beta).value[0] / n - s0 * s0
    }
}

fn mean_of(p: &[f64]) -> f64 {
    p.par_chunks(CHUNK).map(|c| c.iter().sum::<f64>()).collect::<Vec<f64>>().iter().sum::<f64>()
        / p.len() as f64
}

fn check_stats(st: &PairStats) -> Result<()> {
    if st.len == 0 {
        return Err(TuneError::Undefined("a pair criterion needs at least two points".into()));
    }
    if let Some(v) = st.invalid {
        return Err(TuneError::Undefined(format!("squared distance {v} is not finite and >= 0")));
    }
    Ok(())
}

fn check_pairs(p: &[f64]) -> Result<PairStats> {
    let st = PairStats::of(p);
    check_stats(&st)?;
    Ok(st)
}

/// The pairs' statistics and, for [`Solver::Newton`] on long arrays, their bins (from the same pass).
fn stats_and_bins(p: &[f64], solver: Solver) -> (PairStats, Option<BinnedPairs>) {
    if solver == Solver::Newton && p.len() >= BINNED_MIN {
        let b = BinnedPairs::new(p);
        (b.stats(), Some(b))
    } else {
        (PairStats::of(p), None)
    }
}

/// Mean-to-half on squared distances `p`: the β with `μ(β) = 1/2`, to `|μ − 1/2| ≤ mean_tol`.
///
/// With [`Solver::Newton`] and at least 65,536 values the Newton steps run on the binned distances
/// ([`crate::binned`]) after one binning pass; the root is accepted when the bins' error bound proves
/// `|μ − 1/2| ≤ mean_tol` (or proves β to `beta_rtol`), and is otherwise finished by exact Newton steps
/// on `p`. [`Root::iterations`] counts passes over `p` (the binning pass included).
///
/// ```
/// use kern_tune::bandwidth::{mean_to_half, Solver};
/// // one distance value: μ = e^{−βp} = 1/2 exactly at β = ln 2 / p
/// let r = mean_to_half(&[2.0, 2.0, 2.0], Solver::Newton, 1e-14, 1e-14, 100)?;
/// assert!((r.beta - std::f64::consts::LN_2 / 2.0).abs() < 1e-14);
/// assert!(mean_to_half(&[0.0, 0.0, 1.0], Solver::Newton, 1e-12, 1e-12, 100).is_err()); // 2/3 duplicates
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
pub fn mean_to_half(
    p: &[f64],
    solver: Solver,
    mean_tol: f64,
    beta_rtol: f64,
    max_iter: usize,
) -> Result<Root> {
    let (st, bins) = stats_and_bins(p, solver);
    mean_to_half_with(&st, bins.as_ref(), &|| Cow::Borrowed(p), solver, mean_tol, beta_rtol, max_iter)
}

/// Mean-to-half from the pairs' statistics, their bins if there are any, and the exact pairs on demand
/// (only when the binned root cannot be certified).
fn mean_to_half_with<'a>(
    st: &PairStats,
    bins: Option<&BinnedPairs>,
    exact: &dyn Fn() -> Cow<'a, [f64]>,
    solver: Solver,
    mean_tol: f64,
    beta_rtol: f64,
    max_iter: usize,
) -> Result<Root> {
    let lower = check_mean_to_half(st)?;
    let (mut start, mut passes) = (lower, 0);
    if let Some(b) = bins {
        let (r, certified) = mean_to_half_from(b, lower, lower, solver, mean_tol, beta_rtol, max_iter);
        if certified {
            return Ok(Root { iterations: 1, ..r });
        }
        if r.beta.is_finite() && r.beta > lower {
            start = r.beta;
        }
        passes = 1;
    }
    let p = exact();
    let (mut r, _) = mean_to_half_from(&Exact(&p), lower, start, solver, mean_tol, beta_rtol, max_iter);
    r.iterations += passes;
    Ok(r)
}

/// Mean-to-half from `start`, with `lower` a β where `μ ≥ 1/2` (ln 2 / p̄). Also says whether the
/// result is certified despite the evaluation error: `|μ − 1/2| + error ≤ mean_tol`, or β pinned to
/// `beta_rtol` (always, for exact sums).
fn mean_to_half_from<C: Criteria>(
    c: &C,
    lower: f64,
    start: f64,
    solver: Solver,
    mean_tol: f64,
    beta_rtol: f64,
    max_iter: usize,
) -> (Root, bool) {
    let (mut lo, mut hi) = (lower, f64::INFINITY);
    let mut beta = start;
    // best: (|f|, β, f, f', error)
    let mut best = (f64::INFINITY, start, f64::NAN, 0.0, f64::INFINITY);
    let mut it = 0;
    let mut certified = false;
    if solver == Solver::Bisection {
        // Bracket: μ(lower) ≥ 1/2 (Jensen); double until μ < 1/2.
        hi = lower;
        loop {
            hi *= 2.0;
            let (f, fp, err) = c.mean(hi);
            it += 1;
            if f.abs() < best.0 {
                best = (f.abs(), hi, f, fp, err);
            }
            if f <= 0.0 || it >= max_iter {
                break;
            }
            lo = hi;
        }
    }
    while it < max_iter {
        let (f, fp, err) = c.mean(beta);
        it += 1;
        if f.abs() < best.0 {
            best = (f.abs(), beta, f, fp, err);
        }
        if f.abs() + err <= mean_tol {
            certified = true;
            break;
        }
        if f > 0.0 {
            lo = lo.max(beta);
        } else {
            hi = hi.min(beta);
        }
        let next = match solver {
            Solver::Newton => {
                let nb = beta - f / fp;
                if nb.is_finite() && nb > lo && nb < hi {
                    nb
                } else if hi.is_finite() {
                    (lo * hi).sqrt()
                } else {
                    2.0 * lo
                }
            }
            Solver::Bisection => (lo * hi).sqrt(),
        };
        if (hi - lo) <= beta_rtol * beta || (next - beta).abs() <= beta_rtol * beta {
            beta = next;
            let (f, fp, err) = c.mean(beta);
            it += 1;
            if f.abs() < best.0 {
                best = (f.abs(), beta, f, fp, err);
            }
            // β is pinned to the tolerance if the evaluation error moves the root by less than half of it.
            certified = best.4 <= 0.5 * beta_rtol * best.1 * best.3.abs();
            break;
        }
        beta = next;
    }
    let (_, beta, f, fp, err) = best;
    certified |= err == 0.0 || f.abs() + err <= mean_tol;
    (Root { beta, value: f + 0.5, derivative: fp, iterations: it }, certified)
}

/// Maximum variance on squared distances `p`: the β where the paper's derivative `ds²/dβ` changes sign
/// from `+` to `−` (see the module docs for the bracketing and the safeguarded Newton step).
///
/// With [`Solver::Newton`] and at least 65,536 values the steps run on the binned distances
/// ([`crate::binned`]) after one binning pass; the root is accepted when the bins' error bound moves it
/// by less than half of `beta_rtol · β`, and is otherwise finished by exact Newton steps on `p`.
/// [`Root::iterations`] counts passes over `p` (the binning pass included).
///
/// ```
/// use kern_tune::bandwidth::{max_variance, variance_derivative, Solver};
/// let p: Vec<f64> = (1..200).map(|i| (i as f64 * 0.37).sin().abs() * 5.0 + 0.1).collect();
/// let r = max_variance(&p, Solver::Newton, 1e-12, 100)?;
/// assert!(variance_derivative(&p, r.beta * (1.0 - 1e-6)) > 0.0);
/// assert!(variance_derivative(&p, r.beta * (1.0 + 1e-6)) < 0.0);
/// assert!(max_variance(&[3.0; 10], Solver::Newton, 1e-12, 100).is_err()); // one distance: s² ≡ 0
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
pub fn max_variance(p: &[f64], solver: Solver, beta_rtol: f64, max_iter: usize) -> Result<Root> {
    let (st, bins) = stats_and_bins(p, solver);
    max_variance_with(&st, bins.as_ref(), &|| Cow::Borrowed(p), solver, beta_rtol, max_iter)
}

/// Maximum variance from the pairs' statistics, their bins if there are any, and the exact pairs on
/// demand (only when the binned root cannot be certified).
fn max_variance_with<'a>(
    st: &PairStats,
    bins: Option<&BinnedPairs>,
    exact: &dyn Fn() -> Cow<'a, [f64]>,
    solver: Solver,
    beta_rtol: f64,
    max_iter: usize,
) -> Result<Root> {
    check_stats(st)?;
    let min = if st.zeros > 0 { 0.0 } else { st.min_positive };
    if min == st.max {
        return Err(TuneError::Undefined(format!(
            "all {} pairwise distances are equal, so the similarity variance is 0 for every beta",
            st.len
        )));
    }
    let start = std::f64::consts::LN_2 / st.mean();
    let zeros = st.zeros as f64 / st.len as f64;
    let binned = bins.and_then(|b| max_variance_from(b, start, 4.0, solver, beta_rtol, max_iter, zeros).ok());
    if let Some((r, true)) = binned {
        return Ok(Root { iterations: 1, ..r });
    }
    // The exact pairs, built at most once: polish the binned root, or solve from the start.
    let p = exact();
    if let Some((r, _)) = binned
        && let Ok((mut full, _)) =
            max_variance_from(&Exact(&p), r.beta, 1.05, solver, beta_rtol, max_iter, zeros)
    {
        full.iterations += 1;
        return Ok(full);
    }
    Ok(max_variance_from(&Exact(&p), start, 4.0, solver, beta_rtol, max_iter, zeros)?.0)
}

/// Maximum variance from `start`, bracketing by factors of `factor`; `zeros` is the fraction of zero
/// distances (for the error message). Also says whether the result is certified despite the evaluation
/// error (always, for exact sums).
fn max_variance_from<C: Criteria>(
    c: &C,
    start: f64,
    factor: f64,
    solver: Solver,
    beta_rtol: f64,
    max_iter: usize,
    zeros: f64,
) -> Result<(Root, bool)> {
    let it = std::cell::Cell::new(0usize);
    let eval = |b: f64| {
        it.set(it.get() + 1);
        c.var(b)
    };
    // Bracket a + → − sign change of g = ds²/dβ.
    let (g0, gp0, e0) = eval(start);
    let (mut lo, mut hi);
    let last;
    if g0 == 0.0 {
        let root = Root { beta: start, value: c.variance(start), derivative: 0.0, iterations: 1 };
        return Ok((root, e0 <= 0.5 * beta_rtol * start * gp0.abs()));
    } else if g0 > 0.0 {
        lo = start;
        hi = start;
        let mut prev = (start, g0, gp0, e0);
        loop {
            hi *= factor;
            let (g, gp, e) = eval(hi);
            if g < 0.0 {
                // start Newton from the end closer to the root (smaller |g|)
                last = if g.abs() < prev.1.abs() { (hi, g, gp, e) } else { prev };
                break;
            }
            lo = hi;
            prev = (hi, g, gp, e);
            if hi > start * 1e40 {
                return Err(TuneError::Undefined(format!(
                    "the similarity variance keeps increasing with beta (duplicate pairs: {:.1}%), it has no maximum",
                    100.0 * zeros
                )));
            }
        }
    } else {
        hi = start;
        lo = start;
        let mut prev = (start, g0, gp0, e0);
        loop {
            lo /= factor;
            let (g, gp, e) = eval(lo);
            if g > 0.0 {
                last = if g.abs() < prev.1.abs() { (lo, g, gp, e) } else { prev };
                break;
            }
            hi = lo;
            prev = (lo, g, gp, e);
            if lo < start * 1e-40 {
                return Err(TuneError::Undefined(
                    "no beta with increasing similarity variance was found".into(),
                ));
            }
        }
    }
    // Safeguarded Newton in u = ln β (rtsafe).
    let (mut beta, mut g, mut gp, mut err) = last;
    while it.get() < max_iter {
        let next = match solver {
            Solver::Newton => {
                // dg/du = β g'
                let nb = beta * (-(g / (beta * gp))).exp();
                if gp < 0.0 && nb.is_finite() && nb > lo && nb < hi { nb } else { (lo * hi).sqrt() }
            }
            Solver::Bisection => (lo * hi).sqrt(),
        };
        let step = (next - beta).abs();
        beta = next;
        (g, gp, err) = eval(beta);
        if g > 0.0 {
            lo = beta;
        } else if g < 0.0 {
            hi = beta;
        } else {
            break;
        }
        if step <= beta_rtol * beta || hi - lo <= beta_rtol * beta {
            break;
        }
    }
    // The evaluation error moves the root by about err / |g'|: certified if that is under half the
    // tolerance (and the last step or bracket met it).
    let certified = err == 0.0 || err <= 0.5 * beta_rtol * beta * gp.abs();
    let root = Root { beta, value: c.variance(beta), derivative: g, iterations: it.get() };
    Ok((root, certified))
}

/// Ahn's criterion `J(β)` on every β of `betas`, from squared distances grouped by class pair:
/// `within[c]` holds the pairs inside class `c`, `between` the pairs across classes. Groups of at least
/// 65,536 pairs are binned once ([`crate::binned`]) and the whole grid is evaluated over the bins (within
/// about 1e-14 relative of the exact means); smaller groups take one exact pass per β.
///
/// ```
/// // two tight classes far apart: J is large for moderate β
/// let within = vec![vec![0.01, 0.02], vec![0.01]];
/// let between = vec![25.0, 26.0, 24.0];
/// let j = kern_tune::bandwidth::ahn_criterion(&within, &between, &[1e-3, 1.0, 1e3])?;
/// assert!(j[1] > j[0] && j[1] > j[2]);
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
pub fn ahn_criterion(within: &[Vec<f64>], between: &[f64], betas: &[f64]) -> Result<Vec<f64>> {
    let within: Vec<&Vec<f64>> = within.iter().filter(|w| !w.is_empty()).collect();
    if within.is_empty() || between.is_empty() {
        return Err(TuneError::Undefined(
            "Ahn's criterion needs a class with at least two points and two classes".into(),
        ));
    }
    let grid_means = |p: &[f64]| -> Vec<f64> {
        if p.len() >= BINNED_MIN && betas.len() > 2 {
            // One binning pass, then every β of the grid over the bins (to about 1e-14 relative).
            let b = BinnedPairs::new(p);
            return betas.iter().map(|&beta| b.sums(beta).value[0] / p.len() as f64).collect();
        }
        let parts: Vec<Vec<f64>> = p
            .par_chunks(CHUNK)
            .map(|c| {
                let mut o = vec![0.0; betas.len()];
                pulp::Arch::new().dispatch(GridSums(c, betas, &mut o));
                o
            })
            .collect();
        let mut s = vec![0.0; betas.len()];
        for part in parts {
            for (a, v) in s.iter_mut().zip(part) {
                *a += v;
            }
        }
        s.iter().map(|v| v / p.len() as f64).collect()
    };
    let b = grid_means(between);
    let mut w = vec![0.0; betas.len()];
    for c in &within {
        for (a, v) in w.iter_mut().zip(grid_means(c)) {
            *a += v / within.len() as f64;
        }
    }
    Ok(w.iter().zip(&b).map(|(w, b)| 2.0 * (w - b)).collect())
}

/// The default Ahn grid: 81 values with `β p̄` log-spaced over `[10⁻³, 10³]`.
fn default_ahn_grid(mean_p: f64) -> Vec<f64> {
    (0..81).map(|i| 10f64.powf(-3.0 + 6.0 * i as f64 / 80.0) / mean_p).collect()
}

/// Selects β by `method` on `x`. `labels` (class index per sample) are required for [`Method::Ahn`] and
/// ignored otherwise.
///
/// ```
/// use kern_core::Samples;
/// use kern_tune::bandwidth::{BandwidthOptions, Method, select_bandwidth};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?;
/// let opts = BandwidthOptions::default();
/// // scikit-learn's gamma='scale': 1 / (d · Var(X)) with Var({0, 1, 3}) = 14/9.
/// let s = select_bandwidth(&x, None, Method::Scale, &opts)?;
/// assert!(s.beta > 0.0 && (s.beta - 9.0 / 14.0).abs() < 1e-15);
/// // Ahn's criterion separates classes: without labels it is an error.
/// assert!(select_bandwidth(&x, None, Method::Ahn, &opts).is_err());
/// let a = select_bandwidth(&x, Some(&[0, 0, 1]), Method::Ahn, &opts)?;
/// assert!(a.beta > 0.0 && a.curve.iter().any(|&(b, _)| b == a.beta));
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
pub fn select_bandwidth(
    x: &Samples,
    labels: Option<&[usize]>,
    method: Method,
    opts: &BandwidthOptions,
) -> Result<Bandwidth> {
    opts.sampling.check()?;
    if let Some(l) = labels
        && l.len() != x.n()
    {
        return Err(kern_core::CoreError::Targets(format!("{} labels for {} samples", l.len(), x.n())).into());
    }
    let finish =
        |beta: f64, criterion: f64, derivative: Option<f64>, iterations, pairs, sampling: String, curve| {
            if !(beta.is_finite() && beta > 0.0) {
                return Err(TuneError::Undefined(format!("{method} gave beta = {beta}")));
            }
            Ok(Bandwidth {
                method,
                beta,
                sigma: 1.0 / beta.sqrt(),
                criterion,
                derivative,
                iterations,
                pairs,
                sampling,
                curve,
            })
        };
    if method == Method::Scale {
        let var = feature_value_variance(x);
        if var <= 0.0 {
            return Err(TuneError::Undefined("every feature value is equal: Var(X) = 0".into()));
        }
        let beta = 1.0 / (x.d() as f64 * var);
        return finish(beta, var, None, 1, 0, format!("all {} points (no pairs)", x.n()), Vec::new());
    }
    if method == Method::Ahn && labels.is_none() {
        return Err(TuneError::Undefined("Ahn's criterion needs class labels".into()));
    }
    if x.n() < 2 {
        return Err(TuneError::Undefined("a pair criterion needs at least two points".into()));
    }
    if matches!(method, Method::MeanToHalf | Method::MaxVariance)
        && opts.solver == Solver::Newton
        && let Some((b, description)) = binned_pair_set(x, opts.sampling, BINNED_MIN)
    {
        // Newton on many pairs: the pairs are binned as they are computed, and the array of distances
        // is built only if the binned root cannot be certified.
        let exact = || Cow::Owned(pair_set(x, opts.sampling).sq);
        let (st, np) = (b.stats(), b.len());
        let r = if method == Method::MeanToHalf {
            mean_to_half_with(
                &st,
                Some(&b),
                &exact,
                opts.solver,
                opts.mean_tol,
                opts.beta_rtol,
                opts.max_iter,
            )?
        } else {
            max_variance_with(&st, Some(&b), &exact, opts.solver, opts.beta_rtol, opts.max_iter)?
        };
        return finish(r.beta, r.value, Some(r.derivative), r.iterations, np, description, Vec::new());
    }
    crate::pairs::check_pair_set(x, opts.sampling, 1)?;
    let set = pair_set(x, opts.sampling);
    let p = &set.sq;
    let np = p.len();
    match method {
        Method::MeanToHalf => {
            let r = mean_to_half(p, opts.solver, opts.mean_tol, opts.beta_rtol, opts.max_iter)?;
            finish(r.beta, r.value, Some(r.derivative), r.iterations, np, set.description, Vec::new())
        }
        Method::MaxVariance => {
            let r = max_variance(p, opts.solver, opts.beta_rtol, opts.max_iter)?;
            finish(r.beta, r.value, Some(r.derivative), r.iterations, np, set.description, Vec::new())
        }
        Method::Median => {
            check_pairs(p)?;
            let mut v = p.clone();
            let mid = np / 2;
            let (_, &mut upper, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
            let med = if np % 2 == 1 {
                upper
            } else {
                let lower = v[..mid].iter().copied().fold(f64::NEG_INFINITY, f64::max);
                0.5 * (lower + upper)
            };
            if med <= 0.0 {
                return Err(TuneError::Undefined(
                    "the median pairwise distance is 0 (more than half the pairs are duplicates)".into(),
                ));
            }
            finish(1.0 / med, med, None, 1, np, set.description, Vec::new())
        }
        Method::Ahn => {
            let labels = labels.expect("checked above");
            let k = labels.iter().copied().max().map_or(0, |m| m + 1);
            let label_of = |i: usize| match &set.points {
                Some(idx) => labels[idx[i]],
                None => labels[i],
            };
            let mut within: Vec<Vec<f64>> = vec![Vec::new(); k];
            let mut between = Vec::new();
            let mut push = |a: usize, b: usize, v: f64| {
                if a == b { within[a].push(v) } else { between.push(v) }
            };
            match &set.ends {
                Some(ends) => {
                    for (&(i, j), &v) in ends.iter().zip(p) {
                        push(labels[i as usize], labels[j as usize], v);
                    }
                }
                None => {
                    let m = set.points.as_ref().map_or(x.n(), Vec::len);
                    for ((i, j), &v) in packed_ends(m).zip(p) {
                        push(label_of(i), label_of(j), v);
                    }
                }
            }
            let betas = match &opts.ahn_betas {
                Some(b) => {
                    if b.is_empty() || b.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
                        return Err(TuneError::Param {
                            name: "ahn beta grid",
                            value: f64::NAN,
                            reason: "needs finite values > 0",
                        });
                    }
                    b.clone()
                }
                None => {
                    let m = mean_of(p);
                    if m <= 0.0 {
                        return Err(TuneError::Undefined("all points are equal".into()));
                    }
                    default_ahn_grid(m)
                }
            };
            let j = ahn_criterion(&within, &between, &betas)?;
            let mut best = 0;
            for (i, v) in j.iter().enumerate() {
                if *v > j[best] {
                    best = i;
                }
            }
            let curve = betas.iter().copied().zip(j.iter().copied()).collect();
            finish(betas[best], j[best], None, betas.len(), np, set.description, curve)
        }
        Method::Scale => unreachable!("handled above"),
    }
}

/// The paper's robustness study (Letchford, Figs. 5–6): β selected on `repeats` seeded subsamples of `m`
/// points.
///
/// ```
/// use kern_core::Samples;
/// use kern_tune::bandwidth::{BandwidthOptions, Method, subsample_study};
/// // Subsamples of all three points are the data set itself: the same β every time, no spread.
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?;
/// let s = subsample_study(&x, None, Method::Median, 3, 4, 7, &BandwidthOptions::default())?;
/// assert_eq!(s.betas, [0.25; 4]);
/// assert_eq!((s.mean, s.variance, s.rel_std), (0.25, 0.0, 0.0));
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubsampleStudy {
    /// The method.
    pub method: Method,
    /// Points per subsample.
    pub m: usize,
    /// Seed of the draws (repeat `r` uses stream `(seed, r)`).
    pub seed: u64,
    /// β of every repeat, in repeat order.
    pub betas: Vec<f64>,
    /// Mean of the βs.
    pub mean: f64,
    /// Sample variance of the βs (ddof = 1; 0 for one repeat).
    pub variance: f64,
    /// Coefficient of variation `√variance / mean`.
    pub rel_std: f64,
}

/// Runs `method` on `repeats` subsamples of `m` points drawn without replacement (seeded), all pairs of
/// each subsample.
///
/// ```
/// use kern_core::Samples;
/// use kern_tune::bandwidth::{subsample_study, BandwidthOptions, Method};
/// let x = Samples::from_flat((0..400).map(|i| ((i * 37) % 101) as f64).collect(), 200, 2)?;
/// let s = subsample_study(&x, None, Method::MeanToHalf, 50, 5, 1, &BandwidthOptions::default())?;
/// assert_eq!(s.betas.len(), 5);
/// assert!(s.rel_std < 0.5);
/// assert_eq!(s, subsample_study(&x, None, Method::MeanToHalf, 50, 5, 1, &BandwidthOptions::default())?);
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
pub fn subsample_study(
    x: &Samples,
    labels: Option<&[usize]>,
    method: Method,
    m: usize,
    repeats: usize,
    seed: u64,
    opts: &BandwidthOptions,
) -> Result<SubsampleStudy> {
    if m < 2 || m > x.n() {
        return Err(TuneError::Param { name: "subsample size", value: m as f64, reason: "must be in 2..=n" });
    }
    if repeats == 0 {
        return Err(TuneError::Param { name: "repeats", value: 0.0, reason: "must be >= 1" });
    }
    let sub_opts = BandwidthOptions { sampling: PairSampling::All, ..opts.clone() };
    let mut betas = kern_core::memory::try_with_capacity::<f64>(
        repeats,
        "the bandwidths of the subsamples",
        "use fewer repeats",
    )?;
    for r in 0..repeats {
        let idx = rng::sample_indices(&mut rng::stream(seed, r as u64), x.n(), m);
        let xs = x.select(&idx)?;
        let ls: Option<Vec<usize>> = labels.map(|l| idx.iter().map(|&i| l[i]).collect());
        betas.push(select_bandwidth(&xs, ls.as_deref(), method, &sub_opts)?.beta);
    }
    let (mean, variance, rel_std) = beta_spread(&betas);
    Ok(SubsampleStudy { method, m, seed, betas, mean, variance, rel_std })
}

/// `(mean, sample variance (ddof = 1; 0 for one value), √variance / mean)` of βs — the spread
/// [`subsample_study`] reports, for βs chosen by other means (e.g. a grid search on the same subsamples).
///
/// ```
/// let (mean, var, rel) = kern_tune::bandwidth::beta_spread(&[1.0, 3.0]);
/// assert_eq!((mean, var), (2.0, 2.0));
/// assert!((rel - 2f64.sqrt() / 2.0).abs() < 1e-15);
/// ```
pub fn beta_spread(betas: &[f64]) -> (f64, f64, f64) {
    let k = betas.len();
    let mean = betas.iter().sum::<f64>() / k as f64;
    let variance =
        if k > 1 { betas.iter().map(|b| (b - mean) * (b - mean)).sum::<f64>() / (k - 1) as f64 } else { 0.0 };
    (mean, variance, variance.sqrt() / mean)
}

/// `Var(X)` over all `n · d` feature values (scikit-learn's `X.var()` of `gamma = 'scale'`), two-pass; a
/// sparse store counts its absent coordinates as zeros without making them (`O(nnz)`).
fn feature_value_variance(x: &Samples) -> f64 {
    let count = x.n() as f64 * x.d() as f64;
    match x.as_dense() {
        Some(all) => {
            let m = all.iter().sum::<f64>() / count;
            all.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / count
        }
        None => {
            let stored = |f: &dyn Fn(f64) -> f64| -> f64 {
                x.samples()
                    .map(|s| match s {
                        kern_core::SampleRef::Sparse { values, .. } => values.iter().map(|&v| f(v)).sum(),
                        kern_core::SampleRef::Dense(r) => r.iter().map(|&v| f(v)).sum::<f64>(),
                    })
                    .sum()
            };
            let m = stored(&|v| v) / count;
            let zeros = count - x.nnz() as f64;
            (stored(&|v| (v - m) * (v - m)) + zeros * m * m) / count
        }
    }
}
