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
                Some(p) => t.powi(p),
                None => t.powf(self.nu),
            }
        }
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
