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
//! **Storage: four slots per entry** (identical results in `34` bytes per entry instead of `560`).
//! The rule above only ever reads an entry's slots `lo … top − 1` with `lo = max(top − 4, 0)` (three
//! below the top one). So an entry keeps just those four slots, as exact signed integer sums of the
//! pieces that fell in them, and its running top `t` (1 + the highest slot reached so far):
//! - a term whose highest piece is at slot `h ≥ t` first slides the window up to the new top `h + 1`
//!   (the slots that fall below `h + 1 − 4` are dropped), then adds its pieces;
//! - a piece at a slot below the window (`< t − 4`) is dropped.
//!
//! *Proof that the kept slots are those of the full accumulator.* The top only grows, so the final
//! top `T` of an entry is at least every running top `t`, and its final window starts at
//! `lo = max(T − 4, 0) ≥ max(t − 4, 0)`: every piece dropped (on arrival or by a slide) sits at a
//! slot below the final window, which the full accumulator drops too. Every piece at a slot `≥ lo`
//! was added, exactly (integers; `|slot| < count·2³² ≤ 2⁶²`, no overflow), to the slot it belongs to —
//! in any order of the terms, since integer addition is associative. A window slot above the final
//! top is zero in both. Hence the digits sent by [`ExactSums::finish`], and the result, are the same
//! bytes as with all 68 slots, for any order, any split over threads or processes (the tests compare
//! both implementations). The non-finite terms are kept as three flags (`+∞`, `−∞`, NaN seen): their
//! sum as doubles is `NaN` if NaN or both infinities were seen, else the infinity seen — the same value
//! whatever the order.
//!
//! **Cost.** Memory: four `i64` slots, the top and the flags, 34 bytes per entry. Adding a vector
//! ([`ExactSums::add_at`], [`ExactSums::add_slice`]) runs in parallel over the entries (each entry
//! is one sequential computation, so the thread count does not matter). Combining parts: one
//! elementwise maximum of one integer per entry and one sum of six doubles per entry (five digits and
//! the non-finite part), i.e. seven numbers per entry where a plain sum sends one.
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
use rayon::prelude::*;

/// Slots kept below an entry's top slot.
const WINDOW: usize = 3;
/// Slots stored per entry: the top one and the window below it.
const KEEP: usize = WINDOW + 1;
/// Digits sent per entry: the window and one signed carry digit.
const DIGITS: usize = WINDOW + 2;
/// Terms per entry such that no slot (`|slot| < count·2³²`) and no carry overflows an `i64`.
const MAX_TERMS: u64 = 1 << 30;
/// Entries per parallel task of [`ExactSums::add_at`] (fixed: each entry's result is independent of
/// the tasks anyway).
const ENTRY_CHUNK: usize = 4096;
/// Flags of the non-finite terms seen by an entry.
const POS_INF: u8 = 1;
const NEG_INF: u8 = 2;
const NAN: u8 = 4;

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
    /// Per entry, [`KEEP`] slots: `win[i]` is slot `top − KEEP + i` (module docs, "Storage").
    win: Vec<i64>,
    /// Per entry: 1 + the highest slot a term reached (0: none).
    top: Vec<u8>,
    /// Per entry: the non-finite terms seen ([`POS_INF`], [`NEG_INF`], [`NAN`]).
    special: Vec<u8>,
    count: u64,
    /// This part could not compute its terms ([`ExactSums::failed`]).
    failed: bool,
}

/// A run of entries' windows, tops and flags, with the terms to add to them.
type Entries<'a> = (((&'a mut [i64], &'a mut [u8]), &'a mut [u8]), &'a [f64]);

/// Adds the term `x` to one entry's window, top and flags (module docs); returns whether it counts
/// (finite and non-zero).
fn add_one(win: &mut [i64], top: &mut u8, special: &mut u8, x: f64) -> bool {
    if !x.is_finite() {
        *special |= if x.is_nan() {
            NAN
        } else if x > 0.0 {
            POS_INF
        } else {
            NEG_INF
        };
        return false;
    }
    if x == 0.0 {
        return false;
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as usize;
    let frac = bits & ((1 << 52) - 1);
    // x = ±mant · 2^(s − 1074).
    let (mant, s) = if exp == 0 { (frac, 0) } else { (frac | (1 << 52), exp - 1) };
    let v = (mant as u128) << (s % 32);
    let k = s / 32;
    let pieces = [(v & 0xffff_ffff) as i64, ((v >> 32) & 0xffff_ffff) as i64, (v >> 64) as i64];
    let hi = if pieces[2] != 0 {
        k + 2
    } else if pieces[1] != 0 {
        k + 1
    } else {
        k
    };
    let old = *top as usize;
    if hi + 1 > old {
        // Slide the window up: slot `hi + 1 − KEEP + i` was at position `i + shift`.
        let shift = hi + 1 - old;
        for i in 0..KEEP {
            win[i] = if i + shift < KEEP { win[i + shift] } else { 0 };
        }
        *top = (hi + 1) as u8;
    }
    let t = *top as usize;
    let neg = x < 0.0;
    for (i, &p) in pieces.iter().enumerate() {
        let slot = k + i;
        // Pieces at or above the top are zero; those below the window are dropped.
        if slot < t && slot + KEEP >= t {
            win[slot + KEEP - t] += if neg { -p } else { p };
        }
    }
    true
}

impl ExactSums {
    /// `len` sums, all zero.
    pub fn new(len: usize) -> Self {
        ExactSums {
            win: vec![0; len * KEEP],
            top: vec![0; len],
            special: vec![0; len],
            count: 0,
            failed: false,
        }
    }

    /// The `len` sums of a part that could not compute its terms (e.g. its block of the kernel matrix
    /// was refused by the memory check): its [`ExactSums::finish`] makes the same collective calls as
    /// every other part's, and then every part's `finish` fails — with
    /// [`ModelsError::OtherPart`] (the failing part reports its own error instead) — so that no part
    /// is left waiting in a collective. Holds only the `len` tops (no accumulators): add no terms to it.
    ///
    /// ```
    /// use kern_models::{exact_sum::ExactSums, ModelsError};
    /// let e = ExactSums::failed(3).finish(&|_| {}, &|_| {}).unwrap_err();
    /// assert!(matches!(e, ModelsError::OtherPart(_)));
    /// ```
    pub fn failed(len: usize) -> Self {
        ExactSums { win: Vec::new(), top: vec![0; len], special: Vec::new(), count: 0, failed: true }
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
        len.checked_mul(KEEP * size_of::<i64>() + 2 * size_of::<u8>())
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
        if add_one(&mut self.win[j * KEEP..(j + 1) * KEEP], &mut self.top[j], &mut self.special[j], x) {
            self.count += 1;
        }
    }

    /// Adds `v[j]` to entry `j` for every `j` (`v.len()` = [`ExactSums::len`]); counts as one term
    /// per entry.
    pub fn add_slice(&mut self, v: &[f64]) {
        assert_eq!(v.len(), self.len(), "one value per entry");
        self.add_at(0, v);
    }

    /// Adds `v[j]` to entry `offset + j`, in parallel over the entries; counts as one term per entry.
    ///
    /// ```
    /// let mut s = kern_models::exact_sum::ExactSums::new(3);
    /// s.add_at(1, &[1.0, 2.0]);
    /// assert_eq!(s.finish(&|_| {}, &|_| {})?, vec![0.0, 1.0, 2.0]);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn add_at(&mut self, offset: usize, v: &[f64]) {
        let end = offset + v.len();
        let win = &mut self.win[offset * KEEP..end * KEEP];
        let (top, special) = (&mut self.top[offset..end], &mut self.special[offset..end]);
        let chunk = |(((w, t), s), v): Entries<'_>| {
            for (j, &x) in v.iter().enumerate() {
                add_one(&mut w[j * KEEP..(j + 1) * KEEP], &mut t[j], &mut s[j], x);
            }
        };
        if v.len() > ENTRY_CHUNK {
            win.par_chunks_mut(ENTRY_CHUNK * KEEP)
                .zip(top.par_chunks_mut(ENTRY_CHUNK))
                .zip(special.par_chunks_mut(ENTRY_CHUNK))
                .zip(v.par_chunks(ENTRY_CHUNK))
                .for_each(chunk);
        } else {
            chunk((((win, top), special), v));
        }
        self.count += 1;
    }

    /// Combines the parts of all processes and rounds each entry once to the nearest double.
    /// `max` (called once, with `len + 1` numbers) must leave the elementwise maximum over all parts of
    /// its argument on every part, and `sum` (called once, with `6·len` numbers) the elementwise sum
    /// (an allreduce-max and an allreduce-sum; nothing to do for one part). Every part must call it
    /// with the same number of entries; every part gets the same result.
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
        // The tops and, last, whether a part overflowed (1) or failed (2): one maximum.
        let mut top: Vec<u64> = self.top.iter().map(|&t| u64::from(t)).collect();
        top.push(if self.failed { 2 } else { u64::from(self.count > MAX_TERMS) });
        max(&mut top);
        match top.pop() {
            Some(0) => {}
            Some(1) => {
                return Err(ModelsError::Input(format!(
                    "more than {MAX_TERMS} terms in one exact sum: use larger blocks of rows"
                )));
            }
            _ => return Err(ModelsError::OtherPart("an exact sum over the rows".into())),
        }
        let mut msg = vec![0.0; len * (DIGITS + 1)];
        msg.par_chunks_mut(DIGITS + 1).enumerate().for_each(|(j, out)| {
            out[DIGITS] = match self.special[j] {
                0 => 0.0,
                f if f & NAN != 0 || f & (POS_INF | NEG_INF) == POS_INF | NEG_INF => f64::NAN,
                POS_INF => f64::INFINITY,
                _ => f64::NEG_INFINITY,
            };
            if top[j] == 0 {
                return;
            }
            // Slot `lo + i` of this part's entry from its window (zero at or above its own top).
            let (lo, t) = (window_low(top[j]), self.top[j] as usize);
            let mut d = [0i64; DIGITS];
            for (i, di) in d.iter_mut().enumerate().take(WINDOW + 1) {
                let slot = lo + i;
                if slot < t && slot + KEEP >= t {
                    *di = self.win[j * KEEP + slot + KEEP - t];
                }
            }
            carry(&mut d);
            for (o, &di) in out.iter_mut().zip(&d) {
                *o = di as f64;
            }
        });
        drop(self);
        sum(&mut msg);
        Ok((0..len)
            .into_par_iter()
            .map(|j| entry_of_message(&msg[j * (DIGITS + 1)..(j + 1) * (DIGITS + 1)], top[j]))
            .collect())
    }
}

/// One entry of the summed message (its `DIGITS` digit sums, then the sum of the parts' special
/// values) whose largest top over the parts is `top`: the special value when a part had one, else the
/// carried digits rounded from the window below `top`.
fn entry_of_message(m: &[f64], top: u64) -> f64 {
    if m[DIGITS] != 0.0 || m[DIGITS].is_nan() {
        return m[DIGITS];
    }
    if top == 0 {
        return 0.0;
    }
    let mut d = [0i64; DIGITS];
    for (di, &x) in d.iter_mut().zip(m) {
        *di = x as i64;
    }
    carry(&mut d);
    round(&d, window_low(top))
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

    /// The full accumulator this module had before its entries kept four slots: 68 slots per entry,
    /// every piece added, the window read at the end — the reference the four-slot storage must
    /// match bit for bit (module docs, "Storage").
    #[derive(Clone)]
    struct Full {
        slots: Vec<i64>,
        top: Vec<u64>,
        special: Vec<f64>,
        count: u64,
    }

    /// Slots per entry of [`Full`]: the pieces of any finite double (`k + 2 ≤ 65`) and carry room.
    const SLOTS: usize = 68;

    impl Full {
        fn new(len: usize) -> Self {
            Full { slots: vec![0; len * SLOTS], top: vec![0; len], special: vec![0.0; len], count: 0 }
        }

        fn add(&mut self, j: usize, x: f64) {
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

        fn add_at(&mut self, offset: usize, v: &[f64]) {
            let count = self.count;
            for (j, &x) in v.iter().enumerate() {
                self.add(offset + j, x);
            }
            self.count = count + 1;
        }

        fn finish(self, max: &dyn Fn(&mut [u64]), sum: &dyn Fn(&mut [f64])) -> Result<Vec<f64>> {
            let len = self.top.len();
            let mut top = self.top.clone();
            top.push(u64::from(self.count > MAX_TERMS));
            max(&mut top);
            if top.pop() != Some(0) {
                return Err(ModelsError::Input("overflow".into()));
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
                .map(|j| entry_of_message(&msg[j * (DIGITS + 1)..(j + 1) * (DIGITS + 1)], top[j]))
                .collect())
        }
    }

    /// `finish` of either accumulator.
    type Finish<A> = fn(A, &dyn Fn(&mut [u64]), &dyn Fn(&mut [f64])) -> Result<Vec<f64>>;

    /// Parts combined as the processes of a distributed sum combine them — the elementwise maximum of
    /// what each part passes to `max`, then the elementwise sum of what it passes to `sum` — run one
    /// phase at a time; returns the first part's result (every part's is the same).
    fn combine<A: Clone>(parts: &[A], finish: Finish<A>) -> Vec<f64> {
        let tops: Vec<Vec<u64>> = parts
            .iter()
            .map(|p| {
                let got = std::cell::RefCell::new(Vec::new());
                let _ = finish(p.clone(), &|v| *got.borrow_mut() = v.to_vec(), &|_| {});
                got.into_inner()
            })
            .collect();
        let top: Vec<u64> = (0..tops[0].len()).map(|i| tops.iter().map(|t| t[i]).max().unwrap()).collect();
        let digits: Vec<Vec<f64>> = parts
            .iter()
            .map(|p| {
                let got = std::cell::RefCell::new(Vec::new());
                let _ = finish(p.clone(), &|v| v.copy_from_slice(&top), &|v| *got.borrow_mut() = v.to_vec());
                got.into_inner()
            })
            .collect();
        let total: Vec<f64> = (0..digits[0].len()).map(|i| digits.iter().map(|d| d[i]).sum()).collect();
        finish(parts[0].clone(), &|v| v.copy_from_slice(&top), &|v| v.copy_from_slice(&total)).unwrap()
    }

    /// Bits of a result, every NaN alike (the full accumulator's NaN comes from adding infinities,
    /// whose sign bit is the hardware's choice).
    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| if x.is_nan() { u64::MAX } else { x.to_bits() }).collect()
    }

    /// A term from a draw: wide exponents (subnormals to near overflow), exact cancellations, zeros
    /// and, rarely, infinities and NaN.
    fn term() -> impl Strategy<Value = f64> {
        prop_oneof![
            8 => (-1.0f64..1.0, -1074i64..1024).prop_map(|(m, e)| m * pow2(e)),
            4 => (-1.0f64..1.0, -60i32..60).prop_map(|(m, e)| m * 2f64.powi(e)),
            2 => (-(1i64 << 40)..(1i64 << 40)).prop_map(|i| i as f64 * 2f64.powi(-30)),
            1 => Just(0.0),
            1 => prop_oneof![Just(f64::INFINITY), Just(f64::NEG_INFINITY), Just(f64::NAN), Just(5e-324), Just(-f64::MAX)],
        ]
    }

    fn one(terms: &[f64]) -> f64 {
        let mut s = ExactSums::new(1);
        terms.iter().for_each(|&t| s.add(0, t));
        s.finish(&|_| {}, &|_| {}).unwrap()[0]
    }

    /// Several parts, one entry each, combined as the processes of a distributed sum combine them.
    fn parts(parts: &[Vec<f64>]) -> f64 {
        let sums: Vec<ExactSums> = parts
            .iter()
            .map(|p| {
                let mut s = ExactSums::new(1);
                p.iter().for_each(|&t| s.add(0, t));
                s
            })
            .collect();
        combine(&sums, ExactSums::finish)[0]
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
        #![proptest_config(kern_testkit::proptest_config(64))]

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

        /// The four-slot storage against the full accumulator (module docs, "Storage"): a few entries,
        /// terms of any size added one at a time — the full one in the drawn order as one part, the
        /// four-slot one reversed and split into parts at drawn cuts — give the same bits.
        #[test]
        fn four_slots_give_the_full_accumulators_bits(
            len in 1usize..5,
            terms in prop::collection::vec((0usize..5, term()), 0..60),
            cuts in prop::collection::vec(0usize..60, 0..3),
        ) {
            let mut full = Full::new(len);
            terms.iter().for_each(|&(j, t)| full.add(j % len, t));
            let want = combine(&[full], Full::finish);
            let mut rev = terms.clone();
            rev.reverse();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (rev.len() + 1)).collect();
            cuts.sort_unstable();
            let mut parts = Vec::new();
            let mut start = 0;
            for c in cuts.into_iter().chain([rev.len()]) {
                let mut s = ExactSums::new(len);
                rev[start..c].iter().for_each(|&(j, t)| s.add(j % len, t));
                parts.push(s);
                start = c;
            }
            prop_assert_eq!(bits(&combine(&parts, ExactSums::finish)), bits(&want));
        }

        /// Whole vectors ([`ExactSums::add_at`], parallel over the entries when there are more than
        /// [`ENTRY_CHUNK`]): the same bits as the full accumulator, for any split of the vectors over
        /// two parts and in reverse order.
        #[test]
        fn vectors_in_parallel_give_the_full_accumulators_bits(
            seed in 0u64..1000,
            count in 1usize..5,
            cut in 0usize..5,
            offset in 0usize..3,
        ) {
            use rand::{RngExt, SeedableRng};
            let len = 2 * ENTRY_CHUNK + 37;
            let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(seed);
            let vectors: Vec<Vec<f64>> = (0..count)
                .map(|_| {
                    (0..len - offset)
                        .map(|_| {
                            let m: f64 = rng.random_range(-1.0..1.0);
                            // Mostly Gram-like values (|x| ≤ 1e3), some tiny, some huge.
                            let e: i64 = match rng.random_range(0..8) {
                                0 => rng.random_range(-1074..-900),
                                1 => rng.random_range(900..1023),
                                _ => rng.random_range(-40..10),
                            };
                            m * pow2(e)
                        })
                        .collect()
                })
                .collect();
            let mut full = Full::new(len);
            vectors.iter().for_each(|v| full.add_at(offset, v));
            let want = combine(&[full], Full::finish);
            let cut = cut % (count + 1);
            let (mut a, mut b) = (ExactSums::new(len), ExactSums::new(len));
            vectors[..cut].iter().rev().for_each(|v| a.add_at(offset, v));
            vectors[cut..].iter().rev().for_each(|v| b.add_at(offset, v));
            prop_assert_eq!(bits(&combine(&[b, a], ExactSums::finish)), bits(&want));
        }
    }
}
