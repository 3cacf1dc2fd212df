//! Squared distances binned by their leading bits, with the first moments of each value's position
//! inside its bin. Every sum the bandwidth criteria need, `Sₖ(γ) = Σ pᵏ e^{−γp}` for `k ≤ 2`, is then
//! evaluated from the bins in `O(bins)` instead of `O(pairs)`, with a proven bound on the truncation error
//! plus an allowance for rounding (16 ε of the terms' magnitude, with compensated summation) — so
//! after one binning pass a Newton solve costs microseconds per step instead of a pass over millions
//! of pairs, and the result is certified against the solver's tolerance (or polished on the exact
//! array when it cannot be: see [`crate::bandwidth`]).
//!
//! **Bins.** A positive value `p` falls in the bin of its exponent and leading [`KBITS`] mantissa bits:
//! `[a, a + w)` with `w = 2^{⌊log₂ a⌋ − 8}`, so `w ≤ a/256` (256 bins per octave, allocated per octave
//! only where values occur). With `v = (p − a)/w − ½ ∈ [−½, ½)`, read exactly from the low mantissa
//! bits, each bin keeps `Mⱼ = Σ vʲ`, `j = 0..=T+2`. The loop has no branch: the bit pattern's top 12
//! bits pick the octave, so zeros (of either sign, with the subnormals below `2^{−1030}`) land in the
//! first bin of their octave and are then counted as zeros (`e^{−γ·0} = 1` exactly), and NaN, infinite
//! or negative values land in octaves of their own, which makes the pass the input check too. It also
//! finds the extremes.
//!
//! **Evaluation.** With the bin centre `m = a + w/2`, `p = m + w v` and
//! `e^{−γp} = e^{−γm} Σ_{j ≤ T} (−γw v)ʲ / j! + R`, `|R| ≤ e^{−γm} (γw/2)^{T+1} e^{γw/2} / (T+1)!`
//! (Taylor with Lagrange remainder, `|γ w v| ≤ γw/2`). Multiplying by `pᵏ = (m + w v)ᵏ` expresses
//! `Sₖ` over a bin through the moments. The series is used while `γw ≤ 1`; a bin beyond that (far in
//! the tail, where `e^{−γa}` is below `e^{−256}`) contributes the midpoint of its
//! interval bound `[c aᵏ e^{−γ(a+w)}, c (a+w)ᵏ e^{−γa}]` with half its width as the error. At `T = 5`
//! and `γp ≤ 10` (where the criteria live) the truncation bound is below `10⁻¹⁵` relative per pair; the
//! eight moments of a bin fill one cache line.
//!
//! Binning runs in parallel over fixed chunks whose histograms are added in chunk order, so the bins
//! (and every result) do not depend on the number of threads.
//!
//! ```
//! use kern_tune::binned::BinnedPairs;
//! let p: Vec<f64> = (0..10_000).map(|i| 0.01 + (i as f64 * 0.7).sin().abs() * 4.0).collect();
//! let b = BinnedPairs::new(&p);
//! let s = b.sums(0.8);
//! let exact: f64 = p.iter().map(|v| (-0.8 * v).exp()).sum();
//! assert!((s.value[0] - exact).abs() <= s.error[0] + 1e-12 * exact);
//! assert!(s.error[0] < 1e-11 * exact);
//! ```

use rayon::prelude::*;

/// Leading mantissa bits that select a regular bin (256 bins per octave).
///
/// ```
/// use kern_tune::binned::{BinnedPairs, KBITS};
/// // Bins are 2^-KBITS of their octave wide: 1 and 1 + 2^-9 share a bin, 1 + 2^-8 starts the next.
/// let w = 2f64.powi(-(KBITS as i32));
/// assert_eq!(BinnedPairs::new(&[1.0, 1.0 + w / 2.0]).bins(), 1);
/// assert_eq!(BinnedPairs::new(&[1.0, 1.0 + w]).bins(), 2);
/// ```
pub const KBITS: u32 = 8;
const SHIFT: u32 = 52 - KBITS;
const MASK: u64 = (1 << SHIFT) - 1;
/// The bits of 1.0: `1.0 + u` for the position `u ∈ [0, 1)` of a value in its bin is the low mantissa
/// bits shifted up by [`KBITS`] under these (exact, and no integer-to-float conversion).
const ONE_BITS: u64 = 0x3FF0_0000_0000_0000;
/// Degree of the Taylor series of `e^{−γ w v}` within a bin.
const T: usize = 5;
const _: () = assert!(T == 5, "the remainder bound in `sums` computes (h/2)^6 by hand");
/// `1/(j+1)` for the series coefficients `(−h)ʲ/j!`.
const RECIP: [f64; T + 1] = [1.0, 1.0 / 2.0, 1.0 / 3.0, 1.0 / 4.0, 1.0 / 5.0, 1.0 / 6.0];
/// Moments kept per bin: `Σ vʲ`, `j = 0..=T+2` (the `+2` for `p² = (m + w v)²`).
const M: usize = T + 3;
/// Values per binning task (fixed, so the histograms are added in the same order at any thread count).
const CHUNK: usize = 1 << 18;
/// Bins per octave.
const PER_OCTAVE: usize = 1 << KBITS;
/// Octave slots: one per value of the top 12 bits (sign and exponent).
const OCTAVES: usize = 1 << 12;
/// The octave of NaN and ±∞ (all exponent bits set); every slot from it up is invalid.
const INF_OCTAVE: usize = 2047;
/// The first octave of negative values (sign bit set), whose first bin holds −0.0.
const SIGN_OCTAVE: usize = 2048;
/// One bin's moments, aligned to a cache line: an unaligned bin would straddle two lines, and its
/// split loads and stores measured three times slower.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Bin([f64; M]);
/// One octave's bins.
type Octave = [Bin; PER_OCTAVE];

/// One pass of statistics over an array of squared distances.
///
/// ```
/// use kern_tune::binned::{BinnedPairs, PairStats};
/// let p = [0.0, 0.5, 2.0, 3.5];
/// let exact = PairStats::of(&p);
/// assert_eq!((exact.len, exact.zeros, exact.min_positive, exact.max), (4, 1, 0.5, 3.5));
/// assert_eq!(exact.mean(), 1.5);
/// // The binning pass finds the same count, zeros and extremes.
/// let binned = BinnedPairs::new(&p).stats();
/// assert_eq!((binned.len, binned.zeros, binned.min_positive, binned.max), (4, 1, 0.5, 3.5));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairStats {
    /// Number of values.
    pub len: usize,
    /// Their sum (added in fixed chunks, in order).
    pub sum: f64,
    /// Values equal to 0.
    pub zeros: usize,
    /// Smallest positive value (`+∞` if none).
    pub min_positive: f64,
    /// Largest value (`−∞` if none).
    pub max: f64,
    /// The first value that is not finite and `≥ 0`, if any ([`BinnedPairs::stats`]: one such value, to
    /// its leading bits).
    pub invalid: Option<f64>,
}

impl PairStats {
    /// The statistics of `p`, in parallel over fixed chunks.
    ///
    /// ```
    /// let s = kern_tune::binned::PairStats::of(&[0.0, 2.0, 0.5, 3.5]);
    /// assert_eq!((s.len, s.sum, s.zeros, s.min_positive, s.max, s.invalid), (4, 6.0, 1, 0.5, 3.5, None));
    /// ```
    pub fn of(p: &[f64]) -> Self {
        let parts: Vec<PairStats> = p
            .par_chunks(CHUNK)
            .map(|c| {
                let mut s = PairStats::empty();
                s.len = c.len();
                for &v in c {
                    s.sum += v;
                    if v == 0.0 {
                        s.zeros += 1;
                    } else if v > 0.0 && v < s.min_positive {
                        s.min_positive = v;
                    }
                    if v > s.max {
                        s.max = v;
                    }
                    if s.invalid.is_none() && !(v.is_finite() && v >= 0.0) {
                        s.invalid = Some(v);
                    }
                }
                s
            })
            .collect();
        parts.into_iter().fold(PairStats::empty(), |a, b| PairStats {
            len: a.len + b.len,
            sum: a.sum + b.sum,
            zeros: a.zeros + b.zeros,
            min_positive: a.min_positive.min(b.min_positive),
            max: a.max.max(b.max),
            invalid: a.invalid.or(b.invalid),
        })
    }

    fn empty() -> Self {
        PairStats {
            len: 0,
            sum: 0.0,
            zeros: 0,
            min_positive: f64::INFINITY,
            max: f64::NEG_INFINITY,
            invalid: None,
        }
    }

    /// The mean value (NaN for an empty array).
    ///
    /// ```
    /// assert_eq!(kern_tune::binned::PairStats::of(&[1.0, 3.0]).mean(), 2.0);
    /// ```
    pub fn mean(&self) -> f64 {
        self.sum / self.len as f64
    }
}

/// The sums `Sₖ(γ) = Σ pᵏ e^{−γp}`, `k = 0, 1, 2`, with bounds on their absolute errors.
///
/// ```
/// use kern_tune::binned::BinnedPairs;
/// let p = [0.25, 1.0, 2.5];
/// let s = BinnedPairs::new(&p).sums(0.7);
/// for k in 0..3 {
///     let exact: f64 = p.iter().map(|v| v.powi(k as i32) * (-0.7 * v).exp()).sum();
///     assert!((s.value[k] - exact).abs() <= s.error[k] + 1e-14 * exact, "S{k}");
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoundedSums {
    /// `[S₀, S₁, S₂]`.
    pub value: [f64; 3],
    /// `|Sₖ − value[k]| ≤ error[k]`.
    pub error: [f64; 3],
}

/// Squared distances (finite, `≥ 0`) binned for fast evaluation of the bandwidth criteria (see the
/// module docs).
///
/// ```
/// use kern_tune::{bandwidth::mean_similarity, binned::BinnedPairs};
/// // The mean similarity from the bins agrees with the exact pass within the bins' error bound.
/// let p: Vec<f64> = (1..=50).map(|i| i as f64 / 10.0).collect();
/// let b = BinnedPairs::new(&p);
/// let s = b.sums(0.3);
/// assert_eq!(b.len(), 50);
/// assert!((s.value[0] / 50.0 - mean_similarity(&p, 0.3)).abs() <= s.error[0] / 50.0 + 1e-14);
/// ```
#[derive(Clone, Debug)]
pub struct BinnedPairs {
    stats: PairStats,
    /// Lower edge `a` of each non-empty bin.
    lower: Vec<f64>,
    /// Width `w` of each non-empty bin.
    width: Vec<f64>,
    /// `Σ vʲ` of each non-empty bin.
    moments: Vec<[f64; M]>,
}

/// A histogram under construction (one per chunk or per block of pairs): octaves by biased exponent,
/// allocated when first hit.
pub(crate) struct Part {
    octaves: Vec<Option<Box<Octave>>>,
    len: usize,
    /// Smallest and largest bit patterns seen (excluding +0.0 from the smallest).
    lo_bits: u64,
    hi_bits: u64,
}

impl Part {
    /// An empty histogram.
    pub(crate) fn new() -> Self {
        Part { octaves: (0..OCTAVES).map(|_| None).collect(), len: 0, lo_bits: u64::MAX, hi_bits: 0 }
    }

    /// Bins the values of `c` (compiled for the best SIMD level available at run time).
    pub(crate) fn add(&mut self, c: &[f64]) {
        pulp::Arch::new().dispatch(BinChunk(self, c))
    }
}

impl BinnedPairs {
    /// Bins `p` in one parallel pass. Values that are not finite and `≥ 0` are not binned; one of them
    /// (to its leading bits) is reported by [`PairStats::invalid`] of [`BinnedPairs::stats`].
    ///
    /// ```
    /// let b = kern_tune::binned::BinnedPairs::new(&[0.0, 1.0, 1.001, 4.0]);
    /// assert_eq!(b.len(), 4);
    /// assert_eq!(b.bins(), 2); // 1.0 and 1.001 share a bin; the zero is counted apart
    /// assert_eq!(b.stats().zeros, 1);
    /// assert!(kern_tune::binned::BinnedPairs::new(&[1.0, -2.0]).stats().invalid.is_some());
    /// ```
    pub fn new(p: &[f64]) -> Self {
        let parts: Vec<Part> = p
            .par_chunks(CHUNK)
            .map(|c| {
                let mut part = Part::new();
                part.add(c);
                part
            })
            .collect();
        Self::from_parts(parts)
    }

    /// The bins of histograms built apart, added in the order given (so a fixed order of parts gives
    /// the same bins at any thread count).
    pub(crate) fn from_parts(parts: Vec<Part>) -> Self {
        let mut stats = PairStats::empty();
        let mut total: Vec<Option<Box<Octave>>> = (0..OCTAVES).map(|_| None).collect();
        let (mut lo_bits, mut hi_bits) = (u64::MAX, 0u64);
        for part in parts {
            stats.len += part.len;
            lo_bits = lo_bits.min(part.lo_bits);
            hi_bits = hi_bits.max(part.hi_bits);
            for (t, o) in total.iter_mut().zip(part.octaves) {
                let Some(o) = o else { continue };
                match t {
                    None => *t = Some(o),
                    Some(t) => {
                        for (tb, ob) in t.iter_mut().zip(o.iter()) {
                            for (a, b) in tb.0.iter_mut().zip(&ob.0) {
                                *a += b;
                            }
                        }
                    }
                }
            }
        }
        let mut out = BinnedPairs { stats, lower: Vec::new(), width: Vec::new(), moments: Vec::new() };
        let mut sum = 0.0;
        for (e, o) in total.into_iter().enumerate() {
            let Some(o) = o else { continue };
            for (i, Bin(m)) in o.iter().enumerate() {
                if m[0] == 0.0 {
                    continue;
                }
                let key = ((e << KBITS) | i) as u64;
                if i == 0 && (e == 0 || e == SIGN_OCTAVE) {
                    // |v| < 2^-1030: zeros (either sign) and the smallest subnormals, zero for every sum.
                    out.stats.zeros += m[0] as usize;
                    continue;
                }
                if e >= INF_OCTAVE {
                    // NaN, ±∞ or negative: reported by the bin's leading bits.
                    out.stats.invalid = out.stats.invalid.or(Some(f64::from_bits(key << SHIFT)));
                    continue;
                }
                let a = f64::from_bits(key << SHIFT);
                let w = (f64::from_bits((key + 1) << SHIFT) - a).min(f64::MAX - a);
                sum += m[0] * (a + 0.5 * w) + w * m[1];
                out.lower.push(a);
                out.width.push(w);
                out.moments.push(*m);
            }
        }
        if out.stats.len > out.stats.zeros && out.stats.invalid.is_none() {
            out.stats.min_positive = f64::from_bits(lo_bits + (1 << SHIFT));
            out.stats.max = f64::from_bits(hi_bits);
        }
        if out.stats.zeros > 0 {
            out.stats.max = out.stats.max.max(0.0);
        }
        out.stats.sum = sum;
        out
    }

    /// Count, zeros, extremes and an invalid value, as [`PairStats::of`] would give, except that the sum
    /// is assembled from the bins (within a few ulp of the exact sum), values of magnitude below
    /// `2^{−1030}` count as zeros, and the invalid value is known to its leading bits only.
    ///
    /// ```
    /// let s = kern_tune::binned::BinnedPairs::new(&[0.0, 2.0, 0.5, 3.5]).stats();
    /// assert_eq!((s.len, s.zeros, s.min_positive, s.max), (4, 1, 0.5, 3.5));
    /// assert!((s.sum - 6.0).abs() < 1e-14);
    /// ```
    pub fn stats(&self) -> PairStats {
        self.stats
    }

    /// Number of values binned (zeros included).
    pub fn len(&self) -> usize {
        self.stats.len
    }

    /// Whether no values were binned.
    ///
    /// ```
    /// assert!(kern_tune::binned::BinnedPairs::new(&[]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.stats.len == 0
    }

    /// Number of non-empty bins (zeros are not in a bin).
    pub fn bins(&self) -> usize {
        self.lower.len()
    }

    /// `Sₖ(γ) = Σ pᵏ e^{−γp}` for `k = 0, 1, 2` over all values, with error bounds (module docs), for
    /// `γ ≥ 0`.
    ///
    /// ```
    /// let b = kern_tune::binned::BinnedPairs::new(&[0.0, 1.0, 2.0]);
    /// let s = b.sums(0.0);
    /// assert!((s.value[0] - 3.0).abs() <= s.error[0] + 1e-15);
    /// assert!((s.value[2] - 5.0).abs() <= s.error[2] + 1e-14);
    /// ```
    pub fn sums(&self, gamma: f64) -> BoundedSums {
        pulp::Arch::new().dispatch(Sums(self, gamma))
    }

    /// [`BinnedPairs::sums`]; inlined into a SIMD context with FMA, where `exp_fast`'s fused
    /// multiply-adds are single instructions rather than library calls.
    #[inline(always)]
    fn sums_body(&self, gamma: f64) -> BoundedSums {
        let mut acc = [Neumaier::default(); 3];
        acc[0].add(self.stats.zeros as f64);
        let mut error = [0.0; 3];
        let mut magnitude = [self.stats.zeros as f64, 0.0, 0.0];
        // The remainder bound (h/2)^{T+1} e^{h/2} / (T+1)!, with e^{h/2} ≤ e^{1/2} for h ≤ 1.
        let rem = std::f64::consts::E.sqrt() / (1..=T + 1).map(|i| i as f64).product::<f64>();
        for ((&a, &w), mo) in self.lower.iter().zip(&self.width).zip(&self.moments) {
            let c = mo[0];
            let h = gamma * w;
            let m = a + 0.5 * w;
            let e = kern_core::kernel::exp_fast(-gamma * m);
            if h <= 1.0 && e > 0.0 {
                // Σ_j (−h)^j / j! · M_{j+s} for s = 0, 1, 2.
                let mut coef = 1.0;
                let (mut s0, mut s1, mut s2) = (0.0, 0.0, 0.0);
                for j in 0..=T {
                    s0 += coef * mo[j];
                    s1 += coef * mo[j + 1];
                    s2 += coef * mo[j + 2];
                    coef *= -h * RECIP[j];
                }
                let k0 = e * s0;
                let k1 = e * (m * s0 + w * s1);
                let k2 = e * (m * m * s0 + 2.0 * m * w * s1 + w * w * s2);
                acc[0].add(k0);
                acc[1].add(k1);
                acc[2].add(k2);
                let hh = 0.5 * h;
                let hh3 = hh * hh * hh;
                let rho = e * c * hh3 * hh3 * rem;
                let hi = a + w;
                error[0] += rho;
                error[1] += rho * hi;
                error[2] += rho * hi * hi;
                magnitude[0] += k0.abs();
                magnitude[1] += k1.abs();
                magnitude[2] += k2.abs();
            } else {
                let hi = a + w;
                let (el, eh) = ((-gamma * a).exp(), (-gamma * hi).exp());
                for k in 0..3 {
                    let lo_v = c * a.powi(k as i32) * eh;
                    let hi_v = c * hi.powi(k as i32) * el;
                    acc[k].add(0.5 * (lo_v + hi_v));
                    error[k] += 0.5 * (hi_v - lo_v);
                    magnitude[k] += hi_v;
                }
            }
        }
        // Rounding: each bin's term carries a few ε of relative error (the exponential, the series, the
        // products), the terms are added with Neumaier's compensated summation, and the moments' own
        // rounding enters multiplied by powers of γw ≪ 1; 16 ε of the sum of magnitudes covers them.
        let value = acc.map(|a| a.total());
        for k in 0..3 {
            error[k] += 16.0 * f64::EPSILON * magnitude[k];
        }
        BoundedSums { value, error }
    }
}

/// [`BinnedPairs::sums`] compiled for the best SIMD level available at run time.
struct Sums<'a>(&'a BinnedPairs, f64);
impl pulp::WithSimd for Sums<'_> {
    type Output = BoundedSums;
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) -> BoundedSums {
        self.0.sums_body(self.1)
    }
}

/// [`Part::add`] compiled for the best SIMD level available at run time.
struct BinChunk<'a>(&'a mut Part, &'a [f64]);
impl pulp::WithSimd for BinChunk<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        bin_values(self.0, self.1)
    }
}

/// The hot loop of the binning: a handful of integer operations, five multiplications and two 4-wide
/// additions into one cache line per value.
#[inline(always)]
fn bin_values(part: &mut Part, c: &[f64]) {
    part.len += c.len();
    let (mut lo_bits, mut hi_bits) = (part.lo_bits, part.hi_bits);
    // Branch-free: zeros land in the first bin of octave 0 (−0.0 in that of the sign octave), NaN, ±∞
    // and negative values in octaves ≥ 2047; `from_parts` sorts them out.
    for &v in c {
        let bits = v.to_bits();
        // Bit patterns of |v| order as the values; the zero bin (|v| < 2^-1030, counted as zeros) wraps
        // to the top of the minimum. Invalid values may spoil both, but then there are no statistics.
        let abs = bits & !(1 << 63);
        lo_bits = lo_bits.min(abs.wrapping_sub(1 << SHIFT));
        hi_bits = hi_bits.max(abs);
        let octave =
            part.octaves[(bits >> 52) as usize].get_or_insert_with(|| Box::new([Bin([0.0; M]); PER_OCTAVE]));
        let m = &mut octave[((bits >> SHIFT) as usize) & (PER_OCTAVE - 1)].0;
        let x = f64::from_bits(ONE_BITS | ((bits & MASK) << KBITS)) - 1.5;
        let x2 = x * x;
        let low = [1.0, x, x2, x2 * x];
        let x4 = x2 * x2;
        // Two 4-wide adds: [1, x, x², x³] and x⁴ · [1, x, x², x³].
        for k in 0..4 {
            m[k] += low[k];
            m[k + 4] += x4 * low[k];
        }
    }
    part.lo_bits = lo_bits;
    part.hi_bits = hi_bits;
}

/// Neumaier's compensated sum.
#[derive(Clone, Copy, Default)]
struct Neumaier {
    sum: f64,
    comp: f64,
}

impl Neumaier {
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        self.comp += if self.sum.abs() >= x.abs() { (self.sum - t) + x } else { (x - t) + self.sum };
        self.sum = t;
    }

    fn total(self) -> f64 {
        self.sum + self.comp
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The sums with Neumaier's compensated summation (a naive loop over 50k values near 1 is itself off
    /// by ~1e-8).
    fn exact(p: &[f64], gamma: f64) -> [f64; 3] {
        let mut s = [Neumaier::default(); 3];
        for &v in p {
            let e = (-gamma * v).exp();
            for (a, t) in s.iter_mut().zip([e, v * e, v * v * e]) {
                a.add(t);
            }
        }
        s.map(Neumaier::total)
    }

    fn check(p: &[f64], gammas: &[f64]) {
        let b = BinnedPairs::new(p);
        for &g in gammas {
            let s = b.sums(g);
            let x = exact(p, g);
            for (k, xk) in x.iter().enumerate() {
                // The bound must hold (up to the exact loop's own rounding).
                let slack = 1e-13 * xk.abs() + 1e-300;
                assert!(
                    (s.value[k] - xk).abs() <= s.error[k] + slack,
                    "gamma {g} k {k}: {} vs {xk} (bound {})",
                    s.value[k],
                    s.error[k]
                );
            }
        }
    }

    #[test]
    fn bounds_hold_on_spread_data_with_zeros_tiny_and_huge_values() {
        let mut p: Vec<f64> = (0..50_000).map(|i| ((i * 7919) % 10007) as f64 * 0.013).collect();
        p.extend([0.0, 0.0, 1e-30, 3e-25, 1e12, 5e13, f64::MIN_POSITIVE / 4.0]);
        check(&p, &[0.0, 1e-14, 1e-3, 0.02, 0.3, 1.0, 7.0, 1e3, 1e9]);
    }

    #[test]
    fn typical_bounds_are_tight() {
        let p: Vec<f64> = (0..200_000).map(|i| 0.05 + ((i as f64) * 0.618).fract() * 30.0).collect();
        let b = BinnedPairs::new(&p);
        let mean = p.iter().sum::<f64>() / p.len() as f64;
        for g in [0.1 / mean, 1.0 / mean, 5.0 / mean] {
            let s = b.sums(g);
            for k in 0..3 {
                assert!(
                    s.error[k] <= 1e-13 * s.value[k],
                    "gamma {g} k {k}: bound {:e} of {:e}",
                    s.error[k],
                    s.value[k]
                );
            }
        }
    }

    #[test]
    fn binning_does_not_depend_on_thread_count() {
        let p: Vec<f64> = (0..700_001).map(|i| ((i * 31) % 977) as f64 * 0.01 + 0.001).collect();
        let a = BinnedPairs::new(&p).sums(0.4);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let b = pool.install(|| BinnedPairs::new(&p).sums(0.4));
        assert_eq!(a, b);
    }

    #[test]
    fn all_zero_and_empty_arrays() {
        let b = BinnedPairs::new(&[0.0; 5]);
        assert_eq!((b.len(), b.bins()), (5, 0));
        assert_eq!(b.sums(3.0).value, [5.0, 0.0, 0.0]);
        assert_eq!(BinnedPairs::new(&[]).sums(1.0).value, [0.0; 3]);
    }

    #[test]
    fn invalid_values_and_signed_zeros() {
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1e-3, -7.0] {
            let st = BinnedPairs::new(&[1.0, 0.0, bad, 2.0]).stats();
            assert!(st.invalid.is_some(), "{bad} not reported");
            let v = st.invalid.unwrap();
            assert!(!(v.is_finite() && v >= 0.0), "{bad} reported as {v}");
        }
        let st = BinnedPairs::new(&[-0.0, 0.0, 3.0, 5e-320]).stats();
        assert_eq!((st.invalid, st.zeros, st.min_positive, st.max), (None, 3, 3.0, 3.0));
    }

    proptest! {
        #![proptest_config(kern_testkit::proptest_config(48))]
        #[test]
        fn stats_match_a_direct_scan(
            v in prop::collection::vec(prop_oneof![Just(0.0), Just(-0.0), 1e-300f64..1e-200, 0.01f64..1e12], 1..300),
        ) {
            let (a, b) = (BinnedPairs::new(&v).stats(), PairStats::of(&v));
            prop_assert_eq!((a.len, a.zeros, a.invalid), (b.len, b.zeros, b.invalid));
            if a.zeros < a.len {
                prop_assert_eq!((a.min_positive, a.max), (b.min_positive, b.max));
            }
            prop_assert!((a.sum - b.sum).abs() <= 1e-12 * b.sum);
        }

        #[test]
        fn bounds_hold_for_random_arrays(
            v in prop::collection::vec(prop_oneof![Just(0.0), 1e-6f64..1e-3, 0.01f64..100.0, 1e3f64..1e6], 1..400),
            g in prop_oneof![1e-8f64..1e-4, 1e-4f64..10.0, 10.0f64..1e4],
        ) {
            check(&v, &[g, 2.0 * g]);
        }
    }
}
