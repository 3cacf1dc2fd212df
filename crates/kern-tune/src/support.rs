//! Choosing the support radius `C` of a compactly supported kernel `k_C = φ_C · k` from alignment and
//! sparsity alone (Zhang, Genton & Liu 2004, "CS-RBF", §3).
//!
//! With `r_ij = ‖xᵢ − xⱼ‖`, `K_ij = k(r_ij)` and `(Φ_C)_ij = ((1 − r_ij/C)₊)^ν` (eq. 2), the alignment of
//! `K_C = Φ_C ∘ K` with `K` is (eq. 3, Theorem 1)
//!
//! `A(C) = Σ Φ K² / ( √(Σ K²) · √(Σ Φ² K²) )`,
//!
//! Cristianini's empirical alignment of the two Gram matrices — *not* of `K_C` with the target `yyᵀ`: §3
//! measures the information lost by sparsifying, before any label is used. The sparsity is
//! `S(C) = #{zero entries of K_C} / n²` (eq. 7), counted as the entries outside the support (`r ≥ C`,
//! Lemma 1) — the same unless the base kernel itself underflows to 0. Both only need, for every pair, its
//! distance `r` and `K²`.
//!
//! **Which entries count.** The paper sums over all `i, j` including the diagonal, where `Φ = 1` always;
//! then `S(C) → 1 − 1/n` and `A(C) → √(n k(0)² / Σ K²)` as `C → 0`, not the limits 1 and 0 of Theorems
//! 1–2. Those limits hold for the off-diagonal entries, which is our default ([`Diagonal::Exclude`]:
//! sums over the pairs `i > j`, `S` = fraction of pairs with `r ≥ C`); [`Diagonal::Include`] follows
//! eqs. 3 and 7 literally. Duplicate points (`r = 0`) are never sparsified, so with duplicates
//! `S(C) → 1 − q` (`q` their fraction). Convention `0/0 = 0` (the paper's): `A = 0` when no pair is inside
//! the support.
//!
//! **One pass for a whole grid of C.** For integer ν the curve over `G` values `C₁ < … < C_G` costs one
//! pass over the pairs plus `O(G ν²)`: each pair is binned into the interval `C_{b−1} ≤ r < C_b` and adds
//! the moments `(C_b − r)^m K²`, `m = 0..2ν`, to its bin; a sweep over the bins shifts the running
//! moments from `C_{g−1}` to `C_g` (`(s + δ)^m = Σ binom(m,k) δ^{m−k} s^k`, all terms ≥ 0, so nothing
//! cancels) and reads `Σ Φ K² = M_ν / C^ν`, `Σ Φ² K² = M_{2ν} / C^{2ν}`. The exact search sweeps the
//! sorted distances the same way, every distinct distance being a candidate. Non-integer ν falls back to
//! a direct `O(pairs × G)` evaluation on grids and has no exact search.
//!
//! **Exact search.** `S` only changes at the pair distances and `A` increases in between, so for each
//! procedure the optimum over all `C > 0` is attained at a distinct pair distance (at the right end of the
//! interval where `S` is constant), or in the limit `C → ∞` (`A = 1`, `S = 0`, the kernel `k` itself,
//! reported as `c = ∞`).
//!
//! **Subsample estimate.** With [`PairSampling::RandomPairs`] (`M` pairs drawn uniformly and
//! independently, seeded), every sum is replaced by its unbiased estimate `(P/M) Σ_sample`; `S` is then a
//! binomial proportion with standard error `√(S(1−S)/M)` (≤ `0.5/√M`), and `A` (a ratio of means) has a
//! bias `O(1/M)` and standard error `O(1/√M)`. The curve reports both standard errors estimated by batch
//! means (10 batches). [`PairSampling::Subsample`] uses all pairs of `m` seeded points (a U-statistic:
//! correlated pairs, larger error than `m(m−1)/2` independent pairs) and reports no standard error.
//!
//! ```
//! use kern_core::{Gaussian, Samples};
//! use kern_tune::support::{Procedure, Search, SupportOptions, select_support};
//! let x = Samples::from_flat((0..200).map(|i| ((i * 7919) % 101) as f64 / 25.0).collect(), 100, 2)?;
//! let k = Gaussian::with_sigma(0.6)?;
//! let opts = SupportOptions::default();               // nu = 3, off-diagonal pairs, all pairs
//! let ch = select_support(&k, &x, Procedure::MinAlignment { mu: 0.95 }, &Search::default(), &opts)?;
//! assert!(ch.alignment >= 0.95 && ch.sparsity > 0.0);
//! let ex = select_support(&k, &x, Procedure::MinAlignment { mu: 0.95 }, &Search::Exact, &opts)?;
//! assert!(ex.alignment >= 0.95 && ex.sparsity >= ch.sparsity);   // the exact search is at least as good
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{Result, TuneError};
use crate::pairs::{PairSampling, n_pairs, pair_set};
use kern_core::{Kernel, Profile, Samples};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Whether the diagonal of the Gram matrices counts in `A` and `S`.
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_tune::support::{Diagonal, SupportOptions, SupportProfile};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?;
/// let k = Gaussian::with_sigma(2.0)?;
/// let include = SupportOptions { diagonal: Diagonal::Include, ..Default::default() };
/// // C = 0.5 cuts every pair, but never the diagonal (r = 0): 6 of the 9 entries of K_C are zero.
/// assert_eq!(SupportProfile::new(&k, &x, &SupportOptions::default())?.at(0.5).1, 1.0);
/// assert!((SupportProfile::new(&k, &x, &include)?.at(0.5).1 - 6.0 / 9.0).abs() < 1e-15);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Diagonal {
    /// Off-diagonal entries only (pairs `i ≠ j`): Theorems 1–2 hold exactly (limits 0 and 1).
    #[default]
    Exclude,
    /// All `n²` entries, as eqs. 3 and 7 are written.
    Include,
}

/// Options of the alignment–sparsity computations.
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_tune::{pairs::PairSampling, support::{SupportOptions, SupportProfile}};
/// let x = Samples::from_flat((0..50).map(|i| ((i * 7) % 50) as f64 / 10.0).collect(), 50, 1)?;
/// let k = Gaussian::with_sigma(1.0)?;
/// let exact = SupportProfile::new(&k, &x, &SupportOptions::default())?.curve(&[1.0])?;
/// // 4000 random pairs estimate S(C) within a few of its standard errors.
/// let sampling = PairSampling::RandomPairs { count: 4000, seed: 1 };
/// let opts = SupportOptions { sampling, ..Default::default() };
/// let est = SupportProfile::new(&k, &x, &opts)?.curve(&[1.0])?;
/// let se = est.sparsity_se.as_ref().expect("random pairs report standard errors")[0];
/// assert!((est.sparsity[0] - exact.sparsity[0]).abs() <= 4.0 * se);
/// assert!(exact.sparsity_se.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SupportOptions {
    /// The exponent ν of the taper `((1 − r/C)₊)^ν` (default 3, the paper's).
    pub nu: f64,
    /// Which Gram entries count (default: off-diagonal).
    pub diagonal: Diagonal,
    /// Which pairs are used (default: all, exact).
    pub sampling: PairSampling,
}

impl Default for SupportOptions {
    fn default() -> Self {
        SupportOptions { nu: 3.0, diagonal: Diagonal::Exclude, sampling: PairSampling::All }
    }
}

/// Where the procedures look for `C`.
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_tune::support::{Procedure, Search, SupportOptions, select_support};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?;
/// let (k, opts) = (Gaussian::with_sigma(2.0)?, SupportOptions::default());
/// let tau = Procedure::MinSparsity { tau: 0.3 };
/// // The exact search looks at every distinct pair distance, here 1, 2 and 3.
/// let exact = select_support(&k, &x, tau, &Search::Exact, &opts)?;
/// assert_eq!(exact.curve.c, [1.0, 2.0, 3.0]);
/// assert_eq!(exact.c, 3.0);
/// // A grid finds the best of its own values only.
/// let grid = select_support(&k, &x, tau, &Search::Grid(vec![0.5, 2.5]), &opts)?;
/// assert_eq!(grid.c, 2.5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Search {
    /// These values of `C` (strictly increasing, > 0).
    Grid(Vec<f64>),
    /// Every distinct pair distance (exact optimum; integer ν only).
    Exact,
}

impl Default for Search {
    /// The paper's range `log₂ C ∈ [−5, 5]` ([`default_c_grid`]).
    fn default() -> Self {
        Search::Grid(default_c_grid())
    }
}

/// 101 values `C = 2^e`, `e = −5, −4.9, …, 5` (CS-RBF §4.1: "the optimal C is chosen over the range
/// log₂(C) ∈ [−5, 5]").
///
/// ```
/// let g = kern_tune::support::default_c_grid();
/// assert_eq!((g.len(), g[0], g[100]), (101, 1.0 / 32.0, 32.0));
/// ```
pub fn default_c_grid() -> Vec<f64> {
    (0..=100).map(|i| (-5.0 + i as f64 / 10.0).exp2()).collect()
}

/// A(C) and S(C) over the searched values of C.
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_tune::support::{SupportOptions, SupportProfile};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.5], [7.0]])?;
/// let prof = SupportProfile::new(&Gaussian::with_sigma(2.0)?, &x, &SupportOptions::default())?;
/// let c = prof.curve(&[0.5, 1.0, 2.0, 4.0, 8.0])?;
/// // Theorem 1: a wider support is more aligned with the Gaussian and less sparse.
/// assert!(c.alignment.windows(2).all(|w| w[0] <= w[1]));
/// assert!(c.sparsity.windows(2).all(|w| w[0] >= w[1]));
/// assert_eq!((c.sparsity[0], c.sparsity[4]), (1.0, 0.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SupportCurve {
    /// The values of C.
    pub c: Vec<f64>,
    /// A(C).
    pub alignment: Vec<f64>,
    /// S(C).
    pub sparsity: Vec<f64>,
    /// Batch-means standard error of A(C) (random-pair estimates only).
    pub alignment_se: Option<Vec<f64>>,
    /// Batch-means standard error of S(C) (random-pair estimates only).
    pub sparsity_se: Option<Vec<f64>>,
}

/// One of the three procedures of CS-RBF §3.3.
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_tune::support::{Procedure, Search, SupportOptions, select_support};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?; // pair distances 1, 2, 3
/// let (k, opts) = (Gaussian::with_sigma(2.0)?, SupportOptions::default());
/// // Eq. 10: at least half of the pairs outside the support puts C at the median distance.
/// let half = select_support(&k, &x, Procedure::MinSparsity { tau: 0.5 }, &Search::Exact, &opts)?;
/// assert_eq!(half.c, 2.0);
/// // Eq. 9 with μ = 1: only the Gaussian itself (C = ∞, nothing sparse) is fully aligned.
/// let full = select_support(&k, &x, Procedure::MinAlignment { mu: 1.0 }, &Search::Exact, &opts)?;
/// assert!(full.c.is_infinite() && full.sparsity == 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Procedure {
    /// Maximise `A(C) + γ S(C)`, γ > 0 (eq. 8).
    Combined {
        /// γ.
        gamma: f64,
    },
    /// Maximise `S(C)` subject to `A(C) ≥ μ`, μ ∈ [0, 1] (eq. 9).
    MinAlignment {
        /// μ.
        mu: f64,
    },
    /// Maximise `A(C)` subject to `S(C) ≥ τ`, τ ∈ [0, 1] (eq. 10: C at the (1 − τ) quantile of the
    /// pair distances).
    MinSparsity {
        /// τ.
        tau: f64,
    },
}

/// The chosen `C` with its alignment and sparsity and the curve searched.
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_tune::support::{Procedure, Search, SupportOptions, SupportProfile};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?;
/// let prof = SupportProfile::new(&Gaussian::with_sigma(2.0)?, &x, &SupportOptions::default())?;
/// let ch = prof.select(Procedure::MinSparsity { tau: 0.5 }, &Search::Exact)?;
/// assert_eq!((ch.c, ch.pairs), (2.0, 3));
/// // The choice's A and S are those of a direct pass at its C.
/// let (a, s) = prof.at(ch.c);
/// assert!((ch.alignment - a).abs() < 1e-12 && (ch.sparsity - s).abs() < 1e-15);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SupportChoice {
    /// The support radius (∞ when the limit `C → ∞`, the kernel `k` itself, is best).
    pub c: f64,
    /// A(C).
    pub alignment: f64,
    /// S(C).
    pub sparsity: f64,
    /// The procedure.
    pub procedure: Procedure,
    /// Pairs used.
    pub pairs: usize,
    /// Which pairs: all, a seeded subsample or seeded random pairs.
    pub sampling: String,
    /// The curve searched (every distinct distance for the exact search).
    pub curve: SupportCurve,
}

/// Pair distances and squared base-kernel values of a data set: everything A(C) and S(C) need.
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_tune::support::{SupportOptions, SupportProfile};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.5]])?;
/// let prof = SupportProfile::new(&Gaussian::with_sigma(1.5)?, &x, &SupportOptions::default())?;
/// assert_eq!(prof.pairs(), 6);
/// // The one-pass curve agrees with a direct pass at each C.
/// let curve = prof.curve(&[1.2, 2.5, 4.0])?;
/// for (i, &c) in curve.c.iter().enumerate() {
///     let (a, s) = prof.at(c);
///     assert!((curve.alignment[i] - a).abs() < 1e-12 && (curve.sparsity[i] - s).abs() < 1e-15);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct SupportProfile {
    r: Vec<f64>,
    w: Vec<f64>,
    n: usize,
    k0sq: f64,
    diagonal: Diagonal,
    nu: f64,
    nu_int: Option<usize>,
    /// Population pairs / used pairs (1 when all pairs are used).
    weight: f64,
    random_pairs: bool,
    description: String,
}

/// `(A, S)` along a grid.
type Curve = (Vec<f64>, Vec<f64>);
/// `(N_g, D_g, Z_g, T)`: pair sums along a grid.
type GridSums = (Vec<f64>, Vec<f64>, Vec<f64>, f64);

/// Largest integer ν handled by the moment sweep.
const MAX_INT_NU: usize = 32;

impl SupportProfile {
    /// Computes the pair distances of `x` (per `opts.sampling`) and the squared values of the radial
    /// `base` kernel.
    pub fn new<K: Kernel>(base: &K, x: &Samples, opts: &SupportOptions) -> Result<Self> {
        opts.sampling.check()?;
        if base.profile() != Profile::SqDist {
            return Err(kern_core::CoreError::Spec {
                spec: format!("{base:?}"),
                reason: "alignment over C needs a radial base kernel (gaussian, laplacian, log)".into(),
            }
            .into());
        }
        if base.support_radius().is_some() {
            return Err(kern_core::CoreError::Spec {
                spec: format!("{base:?}"),
                reason: "the base kernel is already compactly supported; give the kernel without cs-".into(),
            }
            .into());
        }
        let nu = crate::error::positive("nu", opts.nu)?;
        if x.n() < 2 {
            return Err(TuneError::Undefined("alignment and sparsity need at least two points".into()));
        }
        crate::pairs::check_pair_set(x, opts.sampling, 3)?;
        let set = pair_set(x, opts.sampling);
        let r: Vec<f64> = set.sq.par_iter().map(|&p| p.sqrt()).collect();
        let w: Vec<f64> = set.sq.par_iter().map(|&p| base.of_sq_dist(p).powi(2)).collect();
        let n = match &set.points {
            Some(idx) => idx.len(),
            None => x.n(),
        };
        let weight = n_pairs(n) as f64 / r.len().max(1) as f64;
        let nu_int = (nu.fract() == 0.0 && nu <= MAX_INT_NU as f64).then_some(nu as usize);
        let k0 = base.of_sq_dist(0.0);
        Ok(SupportProfile {
            r,
            w,
            n,
            k0sq: k0 * k0,
            diagonal: opts.diagonal,
            nu,
            nu_int,
            weight,
            random_pairs: set.ends.is_some(),
            description: set.description,
        })
    }

    /// Pairs used.
    pub fn pairs(&self) -> usize {
        self.r.len()
    }

    /// Which pairs were used.
    pub fn sampling(&self) -> &str {
        &self.description
    }

    /// `(A, S)` from pair sums `N = Σ Φ K²`, `D = Σ Φ² K²`, `T = Σ K²` and the count `Z` of pairs inside
    /// the support, over the pairs used.
    fn finish(&self, nsum: f64, dsum: f64, tsum: f64, z: f64) -> (f64, f64) {
        let (wt, n) = (self.weight, self.n as f64);
        let total_pairs = n_pairs(self.n) as f64;
        let (nt, dt, tt, nonzero, entries) = match self.diagonal {
            Diagonal::Exclude => (wt * nsum, wt * dsum, wt * tsum, wt * z, total_pairs),
            Diagonal::Include => {
                let d = n * self.k0sq;
                (2.0 * wt * nsum + d, 2.0 * wt * dsum + d, 2.0 * wt * tsum + d, 2.0 * wt * z + n, n * n)
            }
        };
        let a = if dt > 0.0 && tt > 0.0 { (nt / (tt.sqrt() * dt.sqrt())).min(1.0) } else { 0.0 };
        (a, ((entries - nonzero) / entries).clamp(0.0, 1.0))
    }

    /// `(A(C), S(C))` at one `C > 0` by a direct pass over the pairs (any ν).
    ///
    /// ```
    /// use kern_core::{Gaussian, Samples};
    /// use kern_tune::support::{SupportOptions, SupportProfile};
    /// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?;
    /// let prof = SupportProfile::new(&Gaussian::with_sigma(2.0)?, &x, &SupportOptions::default())?;
    /// let (a, s) = prof.at(2.5);
    /// assert_eq!(s, 1.0 / 3.0);             // the pair at distance 3 is cut
    /// assert!(a > 0.0 && a < 1.0);
    /// assert_eq!(prof.at(0.5), (0.0, 1.0)); // nothing inside the support: 0/0 = 0
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn at(&self, c: f64) -> (f64, f64) {
        let nu = self.nu;
        let sums: Vec<[f64; 4]> = self
            .r
            .par_chunks(1 << 15)
            .zip(self.w.par_chunks(1 << 15))
            .map(|(r, w)| {
                let mut s = [0.0; 4];
                for (&r, &w) in r.iter().zip(w) {
                    s[2] += w;
                    if r < c {
                        let phi = (1.0 - r / c).powf(nu);
                        s[0] += phi * w;
                        s[1] += phi * phi * w;
                        s[3] += 1.0;
                    }
                }
                s
            })
            .collect();
        let t = sums.iter().fold([0.0; 4], |mut a, s| {
            for k in 0..4 {
                a[k] += s[k];
            }
            a
        });
        self.finish(t[0], t[1], t[2], t[3])
    }

    /// A(C) and S(C) for every `C` of a strictly increasing positive grid, in one pass over the pairs
    /// (integer ν; a direct pass per `C` otherwise).
    pub fn curve(&self, cs: &[f64]) -> Result<SupportCurve> {
        check_grid(cs)?;
        let (a, s) = self.curve_on(&self.r, &self.w, cs);
        let (mut ase, mut sse) = (None, None);
        if self.random_pairs && self.r.len() >= 20 {
            // Batch means: 10 consecutive batches of the (independent) random pairs.
            const B: usize = 10;
            let len = self.r.len() / B;
            let batches: Vec<Curve> = (0..B)
                .map(|b| self.curve_on(&self.r[b * len..(b + 1) * len], &self.w[b * len..(b + 1) * len], cs))
                .collect();
            let se = |pick: &dyn Fn(&Curve) -> &Vec<f64>| -> Vec<f64> {
                (0..cs.len())
                    .map(|g| {
                        let v: Vec<f64> = batches.iter().map(|bt| pick(bt)[g]).collect();
                        let m = v.iter().sum::<f64>() / B as f64;
                        (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / ((B - 1) * B) as f64).sqrt()
                    })
                    .collect()
            };
            ase = Some(se(&|bt| &bt.0));
            sse = Some(se(&|bt| &bt.1));
        }
        Ok(SupportCurve { c: cs.to_vec(), alignment: a, sparsity: s, alignment_se: ase, sparsity_se: sse })
    }

    fn curve_on(&self, r: &[f64], w: &[f64], cs: &[f64]) -> (Vec<f64>, Vec<f64>) {
        // Pair sums are over the given subset; scale them to the full set used.
        let frac = self.r.len() as f64 / r.len().max(1) as f64;
        let (nsum, dsum, z, t) = match self.nu_int {
            Some(nu) => grid_sums_int(r, w, cs, nu),
            None => grid_sums_direct(r, w, cs, self.nu),
        };
        let mut a = Vec::with_capacity(cs.len());
        let mut s = Vec::with_capacity(cs.len());
        for g in 0..cs.len() {
            let (ag, sg) = self.finish(frac * nsum[g], frac * dsum[g], frac * t, frac * z[g]);
            a.push(ag);
            s.push(sg);
        }
        (a, s)
    }

    /// A(C) and S(C) at every distinct positive pair distance (ascending), by one sweep over the sorted
    /// pairs. Integer ν only.
    pub fn exact_curve(&self) -> Result<SupportCurve> {
        let nu = self.nu_int.ok_or_else(|| {
            TuneError::Undefined(format!(
                "the exact search needs an integer nu <= {MAX_INT_NU} (got {}); search a grid instead",
                self.nu
            ))
        })?;
        let mut rw: Vec<(f64, f64)> = self.r.iter().copied().zip(self.w.iter().copied()).collect();
        rw.par_sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        let rmax = rw.last().map_or(1.0, |v| v.0);
        let scale = if rmax > 0.0 { 1.0 / rmax } else { 1.0 };
        let t: f64 = self.w.iter().sum();
        let k = 2 * nu + 1;
        let binom = binomials(k);
        let mut m = vec![0.0; k];
        let mut tmp = vec![0.0; k];
        let (mut cs, mut a, mut s) = (Vec::new(), Vec::new(), Vec::new());
        let mut z = 0.0;
        let mut prev: Option<f64> = None;
        let mut i = 0;
        while i < rw.len() {
            let v = rw[i].0 * scale;
            if let Some(pv) = prev {
                shift(&mut m, &mut tmp, v - pv, &binom);
            }
            if v > 0.0 {
                let (ag, sg) =
                    self.finish(m[nu] / v.powi(nu as i32), m[2 * nu] / v.powi(2 * nu as i32), t, z);
                cs.push(rw[i].0);
                a.push(ag);
                s.push(sg);
            }
            let mut j = i;
            while j < rw.len() && rw[j].0 == rw[i].0 {
                m[0] += rw[j].1;
                j += 1;
            }
            z += (j - i) as f64;
            prev = Some(v);
            i = j;
        }
        Ok(SupportCurve { c: cs, alignment: a, sparsity: s, alignment_se: None, sparsity_se: None })
    }

    /// Applies `procedure` over `search` (see the module docs).
    pub fn select(&self, procedure: Procedure, search: &Search) -> Result<SupportChoice> {
        match procedure {
            Procedure::Combined { gamma } => {
                crate::error::positive("gamma", gamma)?;
            }
            Procedure::MinAlignment { mu } if !(0.0..=1.0).contains(&mu) => {
                return Err(TuneError::Param { name: "mu", value: mu, reason: "must be in [0, 1]" });
            }
            Procedure::MinSparsity { tau } if !(0.0..=1.0).contains(&tau) => {
                return Err(TuneError::Param { name: "tau", value: tau, reason: "must be in [0, 1]" });
            }
            _ => {}
        }
        let exact = matches!(search, Search::Exact);
        let curve = match search {
            Search::Grid(cs) => self.curve(cs)?,
            Search::Exact => self.exact_curve()?,
        };
        let g = curve.c.len();
        let pick = |i: usize| (curve.c[i], curve.alignment[i], curve.sparsity[i]);
        let chosen: (f64, f64, f64) = match procedure {
            Procedure::Combined { gamma } => {
                let mut best: Option<usize> = None;
                for i in 0..g {
                    let v = curve.alignment[i] + gamma * curve.sparsity[i];
                    if best.is_none_or(|b| v > curve.alignment[b] + gamma * curve.sparsity[b]) {
                        best = Some(i);
                    }
                }
                let best =
                    best.ok_or_else(|| TuneError::Undefined("no candidate C (all distances are 0)".into()))?;
                let bv = curve.alignment[best] + gamma * curve.sparsity[best];
                if exact && 1.0 > bv { (f64::INFINITY, 1.0, 0.0) } else { pick(best) }
            }
            Procedure::MinAlignment { mu } => {
                // A is non-decreasing and S non-increasing in C: the first feasible C has the largest S;
                // on equal S prefer the largest A.
                let first = (0..g).find(|&i| curve.alignment[i] >= mu);
                match first {
                    Some(i) => {
                        let mut j = i;
                        while j + 1 < g && curve.sparsity[j + 1] == curve.sparsity[i] {
                            j += 1;
                        }
                        pick(j)
                    }
                    None if exact => (f64::INFINITY, 1.0, 0.0),
                    None => {
                        let amax = curve.alignment.iter().copied().fold(0.0, f64::max);
                        return Err(TuneError::Undefined(format!(
                            "no C of the grid reaches A(C) >= {mu} (the largest A is {amax:.4}); extend the grid"
                        )));
                    }
                }
            }
            Procedure::MinSparsity { tau } => match (0..g).rev().find(|&i| curve.sparsity[i] >= tau) {
                Some(i) => pick(i),
                None => {
                    let smax = curve.sparsity.iter().copied().fold(0.0, f64::max);
                    return Err(TuneError::Undefined(format!(
                        "no C reaches S(C) >= {tau} (the largest S is {smax:.4})"
                    )));
                }
            },
        };
        Ok(SupportChoice {
            c: chosen.0,
            alignment: chosen.1,
            sparsity: chosen.2,
            procedure,
            pairs: self.pairs(),
            sampling: self.description.clone(),
            curve,
        })
    }
}

/// Computes the profile of `x` under `base` and applies `procedure` over `search`.
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_tune::support::{Procedure, Search, SupportOptions, select_support};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.5]])?;
/// let k = Gaussian::with_sigma(1.5)?;
/// let mu = Procedure::MinAlignment { mu: 0.9 };
/// let ch = select_support(&k, &x, mu, &Search::Exact, &SupportOptions::default())?;
/// // The sparsest C whose alignment is at least 0.9.
/// assert!(ch.alignment >= 0.9 && ch.c > 0.0);
/// assert!(ch.curve.c.iter().zip(&ch.curve.alignment).zip(&ch.curve.sparsity)
///     .all(|((_, &a), &s)| a < 0.9 || s <= ch.sparsity));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn select_support<K: Kernel>(
    base: &K,
    x: &Samples,
    procedure: Procedure,
    search: &Search,
    opts: &SupportOptions,
) -> Result<SupportChoice> {
    SupportProfile::new(base, x, opts)?.select(procedure, search)
}

fn check_grid(cs: &[f64]) -> Result<()> {
    if cs.is_empty() {
        return Err(TuneError::Param { name: "C grid", value: f64::NAN, reason: "needs at least one value" });
    }
    if let Some(&c) = cs.iter().find(|c| !(c.is_finite() && **c > 0.0)) {
        return Err(TuneError::Param { name: "C", value: c, reason: "must be finite and > 0" });
    }
    if cs.windows(2).any(|w| w[1] <= w[0]) {
        return Err(TuneError::Param {
            name: "C grid",
            value: f64::NAN,
            reason: "must be strictly increasing",
        });
    }
    Ok(())
}

/// Pascal's triangle up to row `k − 1`, flattened `binom[m * k + j]`.
fn binomials(k: usize) -> Vec<f64> {
    let mut b = vec![0.0; k * k];
    for m in 0..k {
        b[m * k] = 1.0;
        for j in 1..=m {
            b[m * k + j] = b[(m - 1) * k + j - 1] + if j < m { b[(m - 1) * k + j] } else { 0.0 };
        }
    }
    b
}

/// Moves moments `M_m = Σ s^m w` to `Σ (s + δ)^m w` (δ ≥ 0: every term is non-negative).
#[inline]
fn shift(m: &mut [f64], tmp: &mut [f64], delta: f64, binom: &[f64]) {
    let k = m.len();
    if delta == 0.0 {
        return;
    }
    let mut dp = vec![1.0; k];
    for j in 1..k {
        dp[j] = dp[j - 1] * delta;
    }
    for mm in 0..k {
        let mut s = 0.0;
        for j in 0..=mm {
            s += binom[mm * k + j] * dp[mm - j] * m[j];
        }
        tmp[mm] = s;
    }
    m.copy_from_slice(tmp);
}

/// `(N_g, D_g, Z_g, T)` over a grid, integer ν: binned moments about each bin's upper edge, then a
/// sweep (see the module docs). Distances are scaled by `1/C_G` so every power stays ≤ 1.
fn grid_sums_int(r: &[f64], w: &[f64], cs: &[f64], nu: usize) -> GridSums {
    let g = cs.len();
    let k = 2 * nu + 1;
    let scale = 1.0 / cs[g - 1];
    let cn: Vec<f64> = cs.iter().map(|c| c * scale).collect();
    const CH: usize = 1 << 16;
    let parts: Vec<(Vec<f64>, Vec<f64>, f64)> = r
        .par_chunks(CH)
        .zip(w.par_chunks(CH))
        .map(|(r, w)| {
            let mut mom = vec![0.0; g * k];
            let mut cnt = vec![0.0; g];
            let mut t = 0.0;
            for (&r, &w) in r.iter().zip(w) {
                t += w;
                let rn = r * scale;
                let b = cn.partition_point(|&c| c <= rn);
                if b == g {
                    continue;
                }
                let s = cn[b] - rn;
                let row = &mut mom[b * k..(b + 1) * k];
                let mut pw = w;
                for v in row.iter_mut() {
                    *v += pw;
                    pw *= s;
                }
                cnt[b] += 1.0;
            }
            (mom, cnt, t)
        })
        .collect();
    let mut mom = vec![0.0; g * k];
    let mut cnt = vec![0.0; g];
    let mut t = 0.0;
    for (pm, pc, pt) in parts {
        for (a, b) in mom.iter_mut().zip(pm) {
            *a += b;
        }
        for (a, b) in cnt.iter_mut().zip(pc) {
            *a += b;
        }
        t += pt;
    }
    let binom = binomials(k);
    let mut m = vec![0.0; k];
    let mut tmp = vec![0.0; k];
    let (mut ns, mut ds, mut zs) = (Vec::with_capacity(g), Vec::with_capacity(g), Vec::with_capacity(g));
    let mut z = 0.0;
    for b in 0..g {
        if b > 0 {
            shift(&mut m, &mut tmp, cn[b] - cn[b - 1], &binom);
        }
        for (a, v) in m.iter_mut().zip(&mom[b * k..(b + 1) * k]) {
            *a += v;
        }
        z += cnt[b];
        ns.push(m[nu] / cn[b].powi(nu as i32));
        ds.push(m[2 * nu] / cn[b].powi(2 * nu as i32));
        zs.push(z);
    }
    (ns, ds, zs, t)
}

/// `(N_g, D_g, Z_g, T)` by direct evaluation of every (pair, C) with `r < C` (any ν).
fn grid_sums_direct(r: &[f64], w: &[f64], cs: &[f64], nu: f64) -> GridSums {
    let g = cs.len();
    const CH: usize = 1 << 14;
    let parts: Vec<GridSums> = r
        .par_chunks(CH)
        .zip(w.par_chunks(CH))
        .map(|(r, w)| {
            let (mut ns, mut ds, mut zs, mut t) = (vec![0.0; g], vec![0.0; g], vec![0.0; g], 0.0);
            for (&r, &w) in r.iter().zip(w) {
                t += w;
                let b = cs.partition_point(|&c| c <= r);
                for i in b..g {
                    let phi = (1.0 - r / cs[i]).powf(nu);
                    ns[i] += phi * w;
                    ds[i] += phi * phi * w;
                    zs[i] += 1.0;
                }
            }
            (ns, ds, zs, t)
        })
        .collect();
    let (mut ns, mut ds, mut zs, mut t) = (vec![0.0; g], vec![0.0; g], vec![0.0; g], 0.0);
    for (a, b, c, d) in parts {
        for i in 0..g {
            ns[i] += a[i];
            ds[i] += b[i];
            zs[i] += c[i];
        }
        t += d;
    }
    (ns, ds, zs, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials_and_shift() {
        let b = binomials(5);
        assert_eq!(&b[4 * 5..5 * 5], &[1.0, 4.0, 6.0, 4.0, 1.0]);
        // moments of one point s = 0.5, w = 2, shifted by 0.25 → s = 0.75
        let mut m: Vec<f64> = (0..5).map(|j| 2.0 * 0.5f64.powi(j)).collect();
        let mut tmp = vec![0.0; 5];
        shift(&mut m, &mut tmp, 0.25, &b);
        for (j, v) in m.iter().enumerate() {
            assert!((v - 2.0 * 0.75f64.powi(j as i32)).abs() < 1e-15);
        }
    }
}
