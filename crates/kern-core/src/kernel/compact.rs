//! Compactly supported radial kernels `k_C = φ_C · k` (Zhang, Genton & Liu 2004, eq. 1).

use super::{Definiteness, Kernel, Profile};
use crate::error::{CoreError, Result, positive};
use crate::samples::sq_dist;

/// A compactly supported version of a radial kernel `k`:
///
/// `k_C(x, y) = φ_C(r) · k(r)`, `φ_C(r) = ((1 − r/C)₊)^ν`, `r = ‖x − y‖`
///
/// (CS-RBF paper, eq. 1 and §2). The truncated power `φ_C` is positive definite on `ℝᵈ` when
/// `ν ≥ (d + 1)/2` (Askey), so `k_C` — a product of PD kernels — is PD and its Gram matrix is sparse:
/// `k_C(x, y) = 0` exactly when `r ≥ C`. [`Kernel::check_dim`] enforces `ν ≥ (d + 1)/2` unless the kernel
/// was built with [`CompactlySupported::allow_any_nu`] (the paper itself uses `ν = 3` at `d = 256`).
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Kernel};
/// let k = CompactlySupported::new(Gaussian::with_sigma(0.6)?, 2.0, 3.0)?;
/// assert_eq!(k.support_radius(), Some(2.0));
/// assert_eq!(k.eval(&[0.0], &[2.0]), 0.0);              // zero at and beyond C
/// assert!(k.eval(&[0.0], &[1.0]) > 0.0);
/// assert!(k.check_dim(5).is_ok());                      // nu = 3 >= (5+1)/2
/// assert!(k.check_dim(6).is_err());                     // nu = 3 <  (6+1)/2
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CompactlySupported<K> {
    base: K,
    c: f64,
    nu: f64,
    nu_int: Option<i32>,
    any_nu: bool,
}

impl<K: Kernel> CompactlySupported<K> {
    /// Wraps the radial kernel `base` with support radius `c > 0` and exponent `nu > 0`.
    /// Fails when `base` is not radial ([`Profile::SqDist`]).
    pub fn new(base: K, c: f64, nu: f64) -> Result<Self> {
        let c = positive("c", c)?;
        let nu = positive("nu", nu)?;
        if base.profile() != Profile::SqDist {
            return Err(CoreError::Spec {
                spec: format!("{base:?}"),
                reason: "compact support needs a radial kernel (gaussian, laplacian, log)".into(),
            });
        }
        let nu_int = (nu.fract() == 0.0 && nu <= 64.0).then_some(nu as i32);
        Ok(CompactlySupported { base, c, nu, nu_int, any_nu: false })
    }

    /// Opts out of the `ν ≥ (d + 1)/2` check: the Gram matrix may then fail to be PSD.
    pub fn allow_any_nu(mut self) -> Self {
        self.any_nu = true;
        self
    }

    /// Whether the `ν ≥ (d + 1)/2` check is disabled.
    pub fn any_nu(&self) -> bool {
        self.any_nu
    }

    /// The base kernel `k`.
    pub fn base(&self) -> &K {
        &self.base
    }

    /// The support radius `C`.
    pub fn c(&self) -> f64 {
        self.c
    }

    /// The exponent `ν`.
    pub fn nu(&self) -> f64 {
        self.nu
    }

    /// The taper `φ_C(r) = ((1 − r/C)₊)^ν` (eq. 1).
    #[inline]
    pub fn taper(&self, r: f64) -> f64 {
        let t = 1.0 - r / self.c;
        if t <= 0.0 {
            0.0
        } else {
            match self.nu_int {
                Some(p) => powi(t, p),
                None => t.powf(self.nu),
            }
        }
    }
}

/// Squared distances per block of [`CompactlySupported`]'s batch values (a buffer of tapers on the
/// stack).
const TAPER_BLOCK: usize = 256;

impl<K: Kernel> CompactlySupported<K> {
    /// `phi[e] ← φ_C(√r2[e])`, `0` where `r2[e] ≥ C²`: the taper [`Kernel::of_sq_dist`] multiplies
    /// by, bit for bit.
    fn tapers(&self, r2: &[f64], phi: &mut [f64]) {
        match self.nu_int {
            Some(1) => self.tapers_int::<1>(r2, phi),
            Some(2) => self.tapers_int::<2>(r2, phi),
            Some(3) => self.tapers_int::<3>(r2, phi),
            Some(4) => self.tapers_int::<4>(r2, phi),
            Some(5) => self.tapers_int::<5>(r2, phi),
            Some(6) => self.tapers_int::<6>(r2, phi),
            Some(7) => self.tapers_int::<7>(r2, phi),
            Some(8) => self.tapers_int::<8>(r2, phi),
            _ => {
                let c2 = self.c * self.c;
                for (p, &v) in phi.iter_mut().zip(r2) {
                    *p = if v >= c2 { 0.0 } else { self.taper(v.sqrt()) };
                }
            }
        }
    }

    /// [`Self::tapers`] for `ν = P`, branch-free so that the loop vectorizes: every operand is
    /// computed and the zero selected, the same operations on each element as [`Self::taper`].
    #[inline]
    fn tapers_int<const P: i32>(&self, r2: &[f64], phi: &mut [f64]) {
        let (c, c2) = (self.c, self.c * self.c);
        for (p, &v) in phi.iter_mut().zip(r2) {
            let t = 1.0 - v.sqrt() / c;
            let w = powi(t, P);
            *p = if v >= c2 || t <= 0.0 { 0.0 } else { w };
        }
    }
}

/// `t^p` for an integer `p ≥ 1`, bit for bit `t.powi(p)`: `powi` with an exponent known only at run
/// time is a call into the runtime (`__powidf2`), so the exponents of common tapers (`ν ≤ 8`) are
/// written out here. Both the runtime and LLVM's expansion of a constant `powi` square and multiply
/// from the lowest bit of `p` up (the accumulator, `1` at first, is multiplied by the current square
/// `t^(2^k)` for every set bit `k`), and the products below are theirs in the same order (the
/// multiplication by the initial `1` is exact), so the results are the same bits.
#[inline]
fn powi(t: f64, p: i32) -> f64 {
    match p {
        1 => t,
        2 => t * t,
        3 => t * (t * t),
        4 => {
            let t2 = t * t;
            t2 * t2
        }
        5 => {
            let t2 = t * t;
            t * (t2 * t2)
        }
        6 => {
            let t2 = t * t;
            t2 * (t2 * t2)
        }
        7 => {
            let t2 = t * t;
            (t * t2) * (t2 * t2)
        }
        8 => {
            let t4 = (t * t) * (t * t);
            t4 * t4
        }
        _ => t.powi(p),
    }
}

impl<K: Kernel> Kernel for CompactlySupported<K> {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        self.of_sq_dist(sq_dist(x, y))
    }
    fn profile(&self) -> Profile {
        Profile::SqDist
    }
    #[inline]
    fn of_sq_dist(&self, r2: f64) -> f64 {
        if r2 >= self.c * self.c {
            return 0.0;
        }
        let phi = self.taper(r2.sqrt());
        if phi == 0.0 { 0.0 } else { phi * self.base.of_sq_dist(r2) }
    }
    /// `φ_C(r) · k(r²)` for every element, per block of 256 elements: the block's tapers and the
    /// base kernel's batch values ([`Kernel::apply_sq_dist`]) are each one vectorized pass, then
    /// multiplied where the taper is nonzero. The value is [`Kernel::of_sq_dist`]'s when the base's
    /// batch values are its scalar ones (bit for bit); over the Gaussian, whose batch `exp` is
    /// within a few ulp of the scalar one, it is within a few ulp.
    fn apply_sq_dist(&self, r2: &mut [f64]) {
        let (mut phi, mut kb) = ([0.0; TAPER_BLOCK], [0.0; TAPER_BLOCK]);
        for block in r2.chunks_mut(TAPER_BLOCK) {
            let (phi, kb) = (&mut phi[..block.len()], &mut kb[..block.len()]);
            self.tapers(block, phi);
            kb.copy_from_slice(block);
            self.base.apply_sq_dist(kb);
            for ((v, &p), &b) in block.iter_mut().zip(phi.iter()).zip(kb.iter()) {
                *v = if p == 0.0 { 0.0 } else { p * b };
            }
        }
    }
    fn support_radius(&self) -> Option<f64> {
        Some(self.c)
    }
    fn definiteness(&self) -> Definiteness {
        if self.any_nu { Definiteness::Conditional } else { self.base.definiteness() }
    }
    fn check_dim(&self, d: usize) -> Result<()> {
        self.base.check_dim(d)?;
        if !self.any_nu && self.nu < (d as f64 + 1.0) / 2.0 {
            return Err(CoreError::Param {
                name: "nu",
                value: self.nu,
                reason: "the truncated power ((1 - r/C)+)^nu is positive definite on R^d only for \
                         nu >= (d+1)/2; raise nu or opt out explicitly (nu_check=off)",
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(kern_testkit::proptest_config(64))]

        /// The written-out powers are `powi`'s bits for every exponent (those past 8 go to `powi`
        /// itself), on taper arguments `t ∈ (0, 1]` and on any finite `t`; the exponent is hidden
        /// from the optimizer, so the reference is the runtime's `powi`.
        #[test]
        fn the_written_out_powers_are_powi(t in 1e-300f64..=1.0, u in -1e30f64..1e30, p in 1i32..=12) {
            for v in [t, u] {
                let reference = v.powi(std::hint::black_box(p));
                prop_assert_eq!(powi(v, p).to_bits(), reference.to_bits(), "{}^{}", v, p);
            }
        }

        /// The batch values are the scalar taper times the base's batch value, bit for bit, on every
        /// element: integer exponents (the vectorized tapers; those past 8 and the fractional ones by
        /// the scalar taper), squared distances on both sides of `C²`, exactly `C²`, and lengths
        /// across the blocks. So they are [`Kernel::of_sq_dist`]'s bits over a base whose batch is
        /// its scalar form (the Laplacian), and within 4 ulp over the Gaussian (its batch `exp`).
        #[test]
        fn batch_values_are_the_scalar_values(c in 0.1f64..2.0, nu_int in 1u32..=10, frac in prop::bool::ANY,
                                              r2 in prop::collection::vec(0.0f64..5.0, 0..600)) {
            let nu = if frac { nu_int as f64 + 0.5 } else { nu_int as f64 };
            for (base, exact) in [(crate::KernelSpec::Gaussian(crate::Gaussian::with_sigma(0.7).unwrap()), false),
                                  (crate::KernelSpec::Laplacian(crate::Laplacian::new(0.7).unwrap()), true)] {
                let k = CompactlySupported::new(base.clone(), c, nu).unwrap();
                let mut xs = r2.clone();
                xs.extend([0.0, c * c, (c * c).next_down(), (c * c).next_up()]);
                let (mut batch, mut base_batch) = (xs.clone(), xs.clone());
                k.apply_sq_dist(&mut batch);
                base.apply_sq_dist(&mut base_batch);
                for ((&x, &v), &b) in xs.iter().zip(&batch).zip(&base_batch) {
                    let phi = if x >= c * c { 0.0 } else { k.taper(x.sqrt()) };
                    let want = if phi == 0.0 { 0.0 } else { phi * b };
                    prop_assert_eq!(v.to_bits(), want.to_bits(), "r2 = {}, nu = {}", x, nu);
                    let scalar = k.of_sq_dist(x);
                    if exact {
                        prop_assert_eq!(v.to_bits(), scalar.to_bits(), "r2 = {}, nu = {}", x, nu);
                    } else {
                        prop_assert!((v - scalar).abs() <= 4.0 * f64::EPSILON * scalar, "r2 = {}: {} vs {}", x, v, scalar);
                    }
                }
            }
        }

        /// The taper with an integer `ν` through the written-out power against `((1 − r/C)₊)^ν` by
        /// the runtime's `powi`.
        #[test]
        fn the_taper_is_unchanged(r in 0.0f64..3.0, c in 0.1f64..2.0, nu in 1u32..=10) {
            let k = CompactlySupported::new(crate::Gaussian::with_sigma(1.0).unwrap(), c, nu as f64).unwrap();
            let t = 1.0 - r / c;
            let reference = if t <= 0.0 { 0.0 } else { t.powi(std::hint::black_box(nu as i32)) };
            prop_assert_eq!(k.taper(r).to_bits(), reference.to_bits());
        }
    }
}
