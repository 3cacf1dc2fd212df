//! Sums whose result does not depend on the order or the grouping of the terms: the same bytes
//! for any split of the terms over threads or processes.
//!
//! A floating-point sum depends on the order of its additions. The distributed fits (kern-dist)
//! add the same terms as one process, but grouped per process; to give the same bytes for any
//! number of processes, their sums over rows go through [`ExactSums`] instead of `+`.
//!
//! **Method** (a fixed-point accumulator in the manner of Kulisch's long accumulator, truncated as in
//! Demmel & Nguyen's reproducible summation, "Parallel reproducible summation", IEEE Trans. Comput.
//! 64(7), 2015). Every finite double is an integer multiple of `2⁻¹⁰⁷⁴`; a term `x = ±v·2^(32k − 1074)`
//! with `v < 2⁸⁵` is split exactly into three 32-bit pieces added (signed, carries deferred) to slots
//! `k, k+1, k+2` of its entry. Slot sums are exact integers, so the slots are the same for any order
//! of the terms and the slots of several parts add up to the slots of their union. The *top* of an
//! entry is the highest slot any term reached (a maximum: independent of the grouping). At the end
//! the slots below `top − 3` are dropped — each term truncated at `2^(32(top−3) − 1074)`, an error of
//! at most `2⁻⁹⁶·max|term|` per term — and the remaining window (the same on every part) is carried
//! into five 32-bit digits. Parts are combined by an elementwise maximum of the tops (integers) and a
//! sum of the digits as doubles, which is exact (each digit is below `2³²`, so up to `2²⁰` parts add
//! exactly). The result is the window rounded once to the nearest double.
//!
//! So the result is a function of the multiset of terms only, and its error is at most
//! `count·2⁻⁹⁶·max|term|` plus half an ulp — below a plain sum's `count·2⁻⁵³·Σ|term|`.
//! Non-finite terms are added as doubles beside the slots (their sum is `±inf` or NaN whatever the order).
//!
//! **Cost.** Memory: 68 slots (`i64`) per entry. Combining parts: one elementwise maximum of one
//! integer per entry and one sum of six doubles per entry (five digits and the non-finite part),
//! i.e. seven numbers per entry where a plain sum sends one.
//!
//! ```
//! use kern_models::exact_sum::ExactSums;
//! let terms = [1e20, 1.0, -1e20, 0.5, 3e-300];
//! let mut a = ExactSums::new(1);
//! terms.iter().for_each(|&t| a.add(0, t));
//! let mut b = ExactSums::new(1);
//! terms.iter().rev().for_each(|&t| b.add(0, t));
//! let (sa, sb) = (a.finish(&|_| {}, &|_| {})?, b.finish(&|_| {}, &|_| {})?);
//! assert_eq!(sa, vec![1.5]); // a plain left-to-right sum gives 0.5
//! assert_eq!(sa, sb);
//! # Ok::<(), kern_models::ModelsError>(())
//! ```

use crate::error::{ModelsError, Result};

/// Slots per entry: the pieces of any finite double (`k + 2 ≤ 65`) and carry room.
const SLOTS: usize = 68;
/// Slots kept below an entry's top slot.
const WINDOW: usize = 3;
/// Digits sent per entry: the window and one signed carry digit.
const DIGITS: usize = WINDOW + 2;
/// Terms per entry such that no slot (`|slot| < count·2³²`) and no carry overflows an `i64`.
const MAX_TERMS: u64 = 1 << 30;

/// Order-independent sums of `len` entries (module docs): add terms with [`ExactSums::add`], combine
/// the parts of all processes and round with [`ExactSums::finish`].
///
/// ```
/// use kern_models::exact_sum::ExactSums;
/// let mut s = ExactSums::new(2);
/// s.add_slice(&[0.1, 2.0]);
/// s.add_slice(&[0.2, -1.0]);
/// assert_eq!(s.finish(&|_| {}, &|_| {})?, vec![0.30000000000000004, 1.0]);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ExactSums {
    slots: Vec<i64>,
    /// Per entry: 1 + the highest slot a term reached (0: none).
    top: Vec<u64>,
    /// Per entry: the sum of the non-finite terms (0 without).
    special: Vec<f64>,
    count: u64,
}

impl ExactSums {
    /// `len` sums, all zero.
    pub fn new(len: usize) -> Self {
        ExactSums { slots: vec![0; len * SLOTS], top: vec![0; len], special: vec![0.0; len], count: 0 }
    }

    /// Bytes of the accumulators of `len` sums (`None` on overflow), to check against a memory
    /// budget before [`ExactSums::new`].
    ///
    /// ```
    /// use kern_models::exact_sum::ExactSums;
    /// assert_eq!(ExactSums::bytes(2), Some(2 * ExactSums::bytes(1).unwrap()));
    /// assert!(ExactSums::bytes(usize::MAX).is_none());
    /// ```
    pub fn bytes(len: usize) -> Option<usize> {
        len.checked_mul(SLOTS * size_of::<i64>() + size_of::<u64>() + size_of::<f64>())
    }

    /// The number of entries.
    ///
    /// ```
    /// assert_eq!(kern_models::exact_sum::ExactSums::new(3).len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        self.top.len()
    }

    /// Whether there are no entries.
    ///
    /// ```
    /// assert!(kern_models::exact_sum::ExactSums::new(0).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.top.is_empty()
    }

    /// Adds `x` to entry `j` (exactly; module docs).
    ///
    /// ```
    /// let mut s = kern_models::exact_sum::ExactSums::new(1);
    /// s.add(0, 2.5);
    /// assert_eq!(s.finish(&|_| {}, &|_| {})?, vec![2.5]);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn add(&mut self, j: usize, x: f64) {
        if !x.is_finite() {
            self.special[j] += x;
            return;
        }
        if x == 0.0 {
            return;
        }
        let bits = x.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as usize;
        let frac = bits & ((1 << 52) - 1);
        // x = ±mant · 2^(s − 1074).
        let (mant, s) = if exp == 0 { (frac, 0) } else { (frac | (1 << 52), exp - 1) };
        let v = (mant as u128) << (s % 32);
        let k = s / 32;
        let pieces = [(v & 0xffff_ffff) as i64, ((v >> 32) & 0xffff_ffff) as i64, (v >> 64) as i64];
        let base = j * SLOTS + k;
        let neg = x < 0.0;
        for (i, &p) in pieces.iter().enumerate() {
            self.slots[base + i] += if neg { -p } else { p };
        }
        let hi = if pieces[2] != 0 {
            k + 2
        } else if pieces[1] != 0 {
            k + 1
        } else {
            k
        };
        self.top[j] = self.top[j].max(hi as u64 + 1);
        self.count += 1;
    }

    /// Adds `v[j]` to entry `j` for every `j` (`v.len()` = [`ExactSums::len`]); counts as one term
    /// per entry.
    pub fn add_slice(&mut self, v: &[f64]) {
        assert_eq!(v.len(), self.len(), "one value per entry");
        let count = self.count;
        for (j, &x) in v.iter().enumerate() {
            self.add(j, x);
        }
        self.count = count + 1;
    }

    /// Adds `v[j]` to entry `offset + j`; counts as one term per entry.
    pub fn add_at(&mut self, offset: usize, v: &[f64]) {
        let count = self.count;
        for (j, &x) in v.iter().enumerate() {
            self.add(offset + j, x);
        }
        self.count = count + 1;
    }

    /// Combines the parts of all processes and rounds each entry once to the nearest double.
    /// `max` (called once, with `len + 1` numbers) must leave the elementwise maximum over all parts of its argument on every part, and
    /// `sum` the elementwise sum (an allreduce-max and an allreduce-sum; nothing to do for one part).
    /// Every part must call it with the same number of entries; every part gets the same result.
    ///
    /// Errors when one part added more than 2³⁰ terms to an entry (the slots could overflow).
    ///
    /// ```
    /// let mut s = kern_models::exact_sum::ExactSums::new(1);
    /// [1.0, f64::INFINITY, 2.0].iter().for_each(|&t| s.add(0, t));
    /// assert_eq!(s.finish(&|_| {}, &|_| {})?, vec![f64::INFINITY]);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn finish(self, max: &dyn Fn(&mut [u64]), sum: &dyn Fn(&mut [f64])) -> Result<Vec<f64>> {
        let len = self.len();
        // The tops and, last, whether a part overflowed: one maximum.
        let mut top = self.top.clone();
        top.push(u64::from(self.count > MAX_TERMS));
        max(&mut top);
        if top.pop() != Some(0) {
            return Err(ModelsError::Input(format!(
                "more than {MAX_TERMS} terms in one exact sum: use larger blocks of rows"
            )));
        }
        let mut msg = vec![0.0; len * (DIGITS + 1)];
        for j in 0..len {
            let out = &mut msg[j * (DIGITS + 1)..(j + 1) * (DIGITS + 1)];
            out[DIGITS] = self.special[j];
            if top[j] == 0 {
                continue;
            }
            let lo = window_low(top[j]);
            let mut d = [0i64; DIGITS];
            for (i, di) in d.iter_mut().enumerate().take(WINDOW + 1) {
                if let Some(&s) = self.slots.get(j * SLOTS + lo + i).filter(|_| lo + i < SLOTS) {
                    *di = s;
                }
            }
            carry(&mut d);
            for (o, &di) in out.iter_mut().zip(&d) {
                *o = di as f64;
            }
        }
        sum(&mut msg);
        Ok((0..len)
            .map(|j| {
                let m = &msg[j * (DIGITS + 1)..(j + 1) * (DIGITS + 1)];
                if m[DIGITS] != 0.0 || m[DIGITS].is_nan() {
                    return m[DIGITS];
                }
                if top[j] == 0 {
                    return 0.0;
                }
                let mut d = [0i64; DIGITS];
                for (di, &x) in d.iter_mut().zip(m) {
                    *di = x as i64;
                }
                carry(&mut d);
                round(&d, window_low(top[j]))
            })
            .collect())
    }
}

/// The lowest slot kept for an entry whose top (1 + highest slot) is `top ≥ 1`.
fn window_low(top: u64) -> usize {
    (top as usize - 1).saturating_sub(WINDOW)
}

/// Carries digits into base 2³² (`0 ≤ d[i] < 2³²` below the last, which keeps the sign).
fn carry(d: &mut [i64; DIGITS]) {
    for i in 0..DIGITS - 1 {
        let c = d[i] >> 32;
        d[i] -= c << 32;
        d[i + 1] += c;
    }
}

/// `Σ d[i]·2^(32(lo+i) − 1074)` rounded to the nearest double (ties to even), for carried digits.
fn round(d: &[i64; DIGITS], lo: usize) -> f64 {
    let neg = d[DIGITS - 1] < 0;
    let mut m = *d;
    if neg {
        m.iter_mut().for_each(|x| *x = -*x);
        carry(&mut m);
    }
    let Some(h) = (0..DIGITS).rev().find(|&i| m[i] != 0) else { return 0.0 };
    // The three digits from h down (those below position 0 of the window are zero), and a sticky bit
    // for anything lower: 96 ≥ 53 + 2 bits, so one rounding of `u` is the rounding of the sum.
    let mut u: u128 = 0;
    for i in 0..3 {
        let v = if h >= i { m[h - i] as u128 } else { 0 };
        u = (u << 32) | v;
    }
    let sticky = h >= 3 && m[..h - 2].iter().any(|&x| x != 0);
    if sticky {
        u |= 1;
    }
    // Exponent of u's last bit.
    let e = 32 * (lo as i64 + h as i64 - 2) - 1074;
    let r = if e < -1074 {
        // Only when the window starts at slot 0: u holds the exact sum (no sticky) in units of
        // 2^-1074 shifted up; shift back exactly.
        let sh = (-1074 - e) as u32;
        ((u >> sh) as f64) * pow2(-1074)
    } else {
        // u's rounding is exact when scaled (the result is normal unless u < 2⁵³, when it is exact).
        scale(u as f64, e)
    };
    if neg { -r } else { r }
}

/// `x·2^e`, exactly when the result is representable.
fn scale(mut x: f64, mut e: i64) -> f64 {
    while e > 1023 {
        x *= pow2(1023);
        e -= 1023;
    }
    x * pow2(e.max(-1074))
}

/// `2^e` for `−1074 ≤ e ≤ 1023`.
fn pow2(e: i64) -> f64 {
    if e >= -1022 { f64::from_bits(((e + 1023) as u64) << 52) } else { f64::from_bits(1u64 << (e + 1074)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn one(terms: &[f64]) -> f64 {
        let mut s = ExactSums::new(1);
        terms.iter().for_each(|&t| s.add(0, t));
        s.finish(&|_| {}, &|_| {}).unwrap()[0]
    }

    /// Several parts combined as the processes of a distributed sum combine them (the maximum of the
    /// tops, then the sum of the digits), run one phase at a time.
    fn parts(parts: &[Vec<f64>]) -> f64 {
        let sums: Vec<ExactSums> = parts
            .iter()
            .map(|p| {
                let mut s = ExactSums::new(1);
                p.iter().for_each(|&t| s.add(0, t));
                s
            })
            .collect();
        let top = sums.iter().map(|s| s.top[0]).max().unwrap();
        let digits: Vec<Vec<f64>> = sums
            .iter()
            .map(|s| {
                let got = std::cell::RefCell::new(Vec::new());
                let _ = s.clone().finish(&|v| v[0] = v[0].max(top), &|v| *got.borrow_mut() = v.to_vec());
                got.into_inner()
            })
            .collect();
        let total: Vec<f64> = (0..digits[0].len()).map(|i| digits.iter().map(|d| d[i]).sum()).collect();
        sums[0].clone().finish(&|v| v[0] = v[0].max(top), &|v| v.copy_from_slice(&total)).unwrap()[0]
    }

    #[test]
    fn exact_cases() {
        assert_eq!(one(&[]), 0.0);
        assert_eq!(one(&[1e300, 1e300, -1e300]), 1e300);
        assert_eq!(one(&[f64::MAX, f64::MAX]), f64::INFINITY);
        assert_eq!(one(&[f64::MIN_POSITIVE / 4.0, f64::MIN_POSITIVE / 4.0]), f64::MIN_POSITIVE / 2.0);
        assert_eq!(one(&[5e-324, 5e-324, 5e-324]), 1.5e-323);
        assert_eq!(one(&[-3.0, 1.0]), -2.0);
        assert_eq!(one(&[1.0, 2f64.powi(-53)]), 1.0); // a tie, to even
        assert_eq!(one(&[1.0, 2f64.powi(-53), 2f64.powi(-80)]), 1.0 + f64::EPSILON);
        assert!(one(&[f64::INFINITY, f64::NEG_INFINITY]).is_nan());
        assert_eq!(one(&[0.1; 10]), 1.0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Terms that are multiples of 2⁻⁴⁰ below 2⁴⁰ span 80 bits (no truncation): the result is
        /// the exact sum (an i128) rounded once — and the same for any order and any split.
        #[test]
        fn correctly_rounded_and_independent_of_order_and_split(
            ints in prop::collection::vec(-(1i128 << 80)..(1i128 << 80), 1..40),
            cuts in prop::collection::vec(0usize..40, 0..4),
            rot in 0usize..40,
        ) {
            let terms: Vec<f64> = ints.iter().map(|&i| (i as f64) * 2f64.powi(-40)).collect();
            let exact: i128 = terms.iter().map(|&t| (t * 2f64.powi(40)) as i128).sum();
            let want = (exact as f64) * 2f64.powi(-40);
            let s = one(&terms);
            prop_assert_eq!(s.to_bits(), want.to_bits());
            let mut t = terms.clone();
            let len = t.len();
            t.rotate_left(rot % len);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (t.len() + 1)).collect();
            cuts.sort_unstable();
            let mut split = Vec::new();
            let mut start = 0;
            for c in cuts.into_iter().chain([t.len()]) {
                split.push(t[start..c].to_vec());
                start = c;
            }
            prop_assert_eq!(parts(&split).to_bits(), s.to_bits());
        }

        /// Any finite terms (wide exponents): the same bytes for any order and split, and within the
        /// documented bound of a compensated reference.
        #[test]
        fn any_terms_any_split(
            terms in prop::collection::vec(
                (-1.0f64..1.0, -300i32..300).prop_map(|(m, e)| m * 2f64.powi(e)), 1..30),
            cut in 0usize..30,
        ) {
            let s = one(&terms);
            let c = cut % (terms.len() + 1);
            let mut rev = terms.clone();
            rev.reverse();
            prop_assert_eq!(parts(&[terms[..c].to_vec(), terms[c..].to_vec()]).to_bits(), s.to_bits());
            prop_assert_eq!(one(&rev).to_bits(), s.to_bits());
            let max = terms.iter().fold(0.0f64, |a, &b| a.max(b.abs()));
            // Neumaier's compensated sum: error ≤ 2u|s| + O(n u²) Σ|t|.
            let (mut sum, mut comp) = (0.0f64, 0.0f64);
            for &t in &terms {
                let x = sum + t;
                comp += if sum.abs() >= t.abs() { (sum - x) + t } else { (t - x) + sum };
                sum = x;
            }
            let reference = sum + comp;
            let abs: f64 = terms.iter().map(|t| t.abs()).sum();
            let bound = terms.len() as f64 * 2f64.powi(-96) * max
                + 2.0 * f64::EPSILON * reference.abs()
                + (terms.len() as f64).powi(2) * f64::EPSILON * f64::EPSILON * abs;
            prop_assert!((s - reference).abs() <= bound, "{} vs {}", s, reference);
        }
    }
}
