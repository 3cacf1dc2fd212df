//! A vectorizable `exp` for whole slices, used by the Gaussian kernel's batch profile.
//!
//! `exp(x) = 2^k · e^r` with `k = round(x / ln 2)` and `|r| ≤ ln 2 / 2`, `e^r` by its Taylor polynomial of
//! degree 13 (truncation error below 4e-18 relative) evaluated in Estrin's form with fused multiply-adds,
//! and `2^k` built from the exponent bits. Every step is branch-free, so the loop vectorizes: 4 lanes with
//! AVX2 + FMA, 8 with AVX-512 (selected at run time). Every hot caller compiles it with FMA enabled (`pulp` dispatch or
//! `target_feature`); elsewhere `mul_add` is a correctly rounded library call — same values, slower.
//! Accuracy is within a few ulp of `f64::exp` (tested); results below `exp(−708)` flush to 0 (an absolute
//! error under 4e-308).

const LOG2E: f64 = std::f64::consts::LOG2_E;
// Cody–Waite split of ln 2 (fdlibm): k·LN2_HI is exact for |k| < 2^11.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
// 1.5 · 2^52: adding it rounds to an integer and leaves that integer in the low mantissa bits.
const SHIFTER: f64 = 6_755_399_441_055_744.0;
const SHIFTER_BITS: i64 = 0x4338_0000_0000_0000;

/// `exp(x)` by the branch-free scheme of this module (a few ulp from `f64::exp`; 0 below −708). Inline it
/// into loops that the compiler can vectorize; [`exp_scaled`] does that for whole slices.
///
/// ```
/// let y = kern_core::kernel::exp_fast(-1.5);
/// assert!((y - (-1.5f64).exp()).abs() <= 4.0 * f64::EPSILON * y);
/// ```
#[inline(always)]
pub fn exp_fast(x: f64) -> f64 {
    let xc = x.clamp(-708.0, 709.0);
    let t = xc.mul_add(LOG2E, SHIFTER);
    let k = t - SHIFTER;
    let ki = (t.to_bits() as i64).wrapping_sub(SHIFTER_BITS);
    let r = (-k).mul_add(LN2_LO, (-k).mul_add(LN2_HI, xc));
    // Σ_{j ≤ 13} r^j / j! in Estrin's form, with FMAs: dependency depth 4 instead of Horner's 13, so the
    // loops that inline this (all compiled with FMA enabled) run at FMA throughput rather than latency.
    let r2 = r * r;
    let r4 = r2 * r2;
    let r8 = r4 * r4;
    let q1 = r.mul_add(1.0 / 6.0, 0.5);
    let q2 = r.mul_add(1.0 / 120.0, 1.0 / 24.0);
    let q3 = r.mul_add(1.0 / 5_040.0, 1.0 / 720.0);
    let q4 = r.mul_add(1.0 / 362_880.0, 1.0 / 40_320.0);
    let q5 = r.mul_add(1.0 / 39_916_800.0, 1.0 / 3_628_800.0);
    let q6 = r.mul_add(1.0 / 6_227_020_800.0, 1.0 / 479_001_600.0);
    let s0 = r2 * q1;
    let s1 = r2.mul_add(q3, q2);
    let s2 = r2.mul_add(q5, q4);
    let t0 = r4.mul_add(s1, s0);
    let t1 = r4.mul_add(q6, s2);
    // 1 + r is added last, to the small tail: half an ulp of rounding instead of one per level.
    let p = 1.0 + (r + r8.mul_add(t1, t0));
    let scale = f64::from_bits((ki.wrapping_add(1023) << 52) as u64);
    let y = p * scale;
    if x < -708.0 { 0.0 } else { y }
}

#[inline(always)]
fn exp_scaled_generic(v: &mut [f64], scale: f64) {
    for x in v.iter_mut() {
        *x = exp_fast(scale * *x);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn exp_scaled_avx2(v: &mut [f64], scale: f64) {
    exp_scaled_generic(v, scale)
}

// The same loop on 8 lanes. Every lane computes the same FMA sequence as on 4 lanes or on one, so the
// values are bit for bit those of the AVX2 and scalar forms.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
fn exp_scaled_avx512(v: &mut [f64], scale: f64) {
    exp_scaled_generic(v, scale)
}

/// `v[i] ← exp(scale · v[i])` for every element, for `scale · v[i] ≤ 709`.
///
/// ```
/// let mut v = vec![0.0, 1.0, 2.5];
/// kern_core::kernel::exp_scaled(&mut v, -1.0);
/// assert!((v[2] - (-2.5f64).exp()).abs() < 1e-16);
/// ```
pub fn exp_scaled(v: &mut [f64], scale: f64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
    {
        // SAFETY: the CPU supports AVX-512F, AVX2 and FMA (checked at run time just above), the only
        // requirements of the `target_feature` function.
        #[allow(unsafe_code)]
        unsafe {
            exp_scaled_avx512(v, scale)
        };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU supports AVX2 (checked at run time just above), which is the only
        // requirement of the `target_feature` function.
        #[allow(unsafe_code)]
        unsafe {
            exp_scaled_avx2(v, scale)
        };
        return;
    }
    exp_scaled_generic(v, scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_std_exp_within_a_few_ulp() {
        let mut worst: f64 = 0.0;
        let xs: Vec<f64> = (0..200_001).map(|i| -700.0 + i as f64 * 0.0035123).collect();
        let mut v = xs.clone();
        exp_scaled(&mut v, 1.0);
        for (x, y) in xs.iter().zip(&v) {
            let e = x.exp();
            worst = worst.max(((y - e) / e).abs());
        }
        assert!(worst < 1e-15, "worst relative error {worst}");
        // Whatever width the run-time dispatch picked, every element is the scalar function's.
        for (x, y) in xs.iter().zip(&v) {
            assert_eq!(y.to_bits(), exp_fast(*x).to_bits(), "exp({x})");
        }
        let mut z = vec![-708.5, -1e6, 0.0];
        exp_scaled(&mut z, 1.0);
        assert_eq!(z, vec![0.0, 0.0, 1.0]);
    }
}
