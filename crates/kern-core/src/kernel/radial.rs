//! Radial kernels: Gaussian (three parametrizations), Laplacian, and the log kernel.

use super::{Definiteness, Kernel, Profile};
use crate::error::{Result, positive};
use crate::samples::sq_dist;

/// Which of the papers' Gaussian parametrizations a [`Gaussian`] was built with (kept for display).
///
/// ```
/// use kern_core::{Gaussian, GaussianParam};
/// let (a, b) = (Gaussian::with_sigma(2.0)?, Gaussian::with_beta(0.25)?);
/// assert_eq!(a.param(), GaussianParam::Sigma(2.0));
/// assert_eq!(b.param(), GaussianParam::Beta(0.25));
/// assert_eq!(a.beta(), b.beta()); // the same kernel, exp(−r²/4)
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GaussianParam {
    /// `exp(−r²/σ²)`, the CS-RBF paper (Zhang, Genton & Liu 2004, §1) and Baudat–Anouar (§5.2).
    Sigma(f64),
    /// `exp(−β r²)`, Letchford (2015) and LIBSVM's `gamma`.
    Beta(f64),
    /// `exp(−r²/(2σ²))`, the statistical convention (Cao 2016, slides' Gaussian kernel).
    StdDev(f64),
}

impl GaussianParam {
    /// The kernel spec's key and value of this parametrization: `("sigma", σ)`, `("beta", β)` or
    /// `("std", σ)`.
    ///
    /// ```
    /// use kern_core::GaussianParam;
    /// assert_eq!(GaussianParam::StdDev(0.5).key_value(), ("std", 0.5));
    /// let spec: kern_core::KernelSpec = "gaussian:sigma=2".parse()?;
    /// assert_eq!(spec.to_string(), "gaussian:sigma=2");
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn key_value(self) -> (&'static str, f64) {
        match self {
            GaussianParam::Sigma(s) => ("sigma", s),
            GaussianParam::Beta(b) => ("beta", b),
            GaussianParam::StdDev(s) => ("std", s),
        }
    }

    /// The parametrization a spec key names (`sigma`, `std`, and `beta` or its alias `gamma`),
    /// holding the value that gives precision `beta` (`exp(−β r²)`); `None` for another key.
    ///
    /// ```
    /// use kern_core::{Gaussian, GaussianParam};
    /// assert_eq!(GaussianParam::of_beta("sigma", 0.25), Some(GaussianParam::Sigma(2.0)));
    /// assert_eq!(GaussianParam::of_beta("gamma", 0.25), Some(GaussianParam::Beta(0.25)));
    /// assert_eq!(GaussianParam::of_beta("c", 0.25), None);
    /// // Round trip: the Gaussian built from the value has that precision.
    /// let Some(GaussianParam::StdDev(s)) = GaussianParam::of_beta("std", 0.125) else { panic!() };
    /// assert!((Gaussian::with_std_dev(s)?.beta() - 0.125).abs() < 1e-15);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn of_beta(key: &str, beta: f64) -> Option<GaussianParam> {
        match key {
            "sigma" => Some(GaussianParam::Sigma(1.0 / beta.sqrt())),
            "std" => Some(GaussianParam::StdDev(1.0 / (2.0 * beta).sqrt())),
            "beta" | "gamma" => Some(GaussianParam::Beta(beta)),
            _ => None,
        }
    }
}

/// The Gaussian kernel `k(x, y) = exp(−β ‖x − y‖²)`, built from any of the three parametrizations used
/// in the papers; all three give the same type and the same values.
///
/// ```
/// use kern_core::{Gaussian, Kernel};
/// let a = Gaussian::with_sigma(2.0)?;      // exp(−r²/σ²)
/// let b = Gaussian::with_beta(0.25)?;      // exp(−β r²)
/// let c = Gaussian::with_std_dev(2f64.sqrt())?; // exp(−r²/(2σ²))
/// let (x, y) = ([0.0, 1.0], [1.5, -0.5]);
/// assert!((a.eval(&x, &y) - b.eval(&x, &y)).abs() < 1e-15);
/// assert!((a.eval(&x, &y) - c.eval(&x, &y)).abs() < 1e-15);
/// assert!(Gaussian::with_sigma(0.0).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gaussian {
    beta: f64,
    param: GaussianParam,
}

impl Gaussian {
    /// `exp(−‖x − y‖²/σ²)` (CS-RBF paper §1). `σ` finite and > 0.
    pub fn with_sigma(sigma: f64) -> Result<Self> {
        let s = positive("sigma", sigma)?;
        Self::checked(1.0 / (s * s), GaussianParam::Sigma(s))
    }

    /// `exp(−β‖x − y‖²)` (Letchford 2015, eq. 1). `β` finite and > 0.
    pub fn with_beta(beta: f64) -> Result<Self> {
        let b = positive("beta", beta)?;
        Self::checked(b, GaussianParam::Beta(b))
    }

    /// `exp(−‖x − y‖²/(2σ²))`. `σ` finite and > 0.
    pub fn with_std_dev(sigma: f64) -> Result<Self> {
        let s = positive("std", sigma)?;
        Self::checked(1.0 / (2.0 * s * s), GaussianParam::StdDev(s))
    }

    fn checked(beta: f64, param: GaussianParam) -> Result<Self> {
        positive("beta", beta)?;
        Ok(Gaussian { beta, param })
    }

    /// The precision `β` of `exp(−β r²)`.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// The parametrization the kernel was built with.
    pub fn param(&self) -> GaussianParam {
        self.param
    }

    /// The same Gaussian `factor` times wider (every length scale times `factor`, `β` divided by
    /// `factor²`), in the parametrization it was built with. `factor` finite and > 0.
    ///
    /// ```
    /// use kern_core::Gaussian;
    /// assert_eq!(Gaussian::with_beta(0.5)?.widened(2.0)?, Gaussian::with_beta(0.125)?);
    /// assert_eq!(Gaussian::with_sigma(1.5)?.widened(2.0)?, Gaussian::with_sigma(3.0)?);
    /// assert_eq!(Gaussian::with_std_dev(1.0)?.widened(4.0)?, Gaussian::with_std_dev(4.0)?);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn widened(&self, factor: f64) -> Result<Self> {
        let f = positive("width factor", factor)?;
        match self.param {
            GaussianParam::Sigma(s) => Self::with_sigma(s * f),
            GaussianParam::Beta(b) => Self::with_beta(b / (f * f)),
            GaussianParam::StdDev(s) => Self::with_std_dev(s * f),
        }
    }
}

impl Kernel for Gaussian {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        self.of_sq_dist(sq_dist(x, y))
    }
    fn profile(&self) -> Profile {
        Profile::SqDist
    }
    #[inline]
    fn of_sq_dist(&self, r2: f64) -> f64 {
        (-self.beta * r2).exp()
    }
    fn apply_sq_dist(&self, r2: &mut [f64]) {
        super::exp_scaled(r2, -self.beta)
    }
    fn fast_sq_dist(&self) -> bool {
        true
    }
}

/// The Laplacian kernel `k(x, y) = exp(−‖x − y‖/σ)`, positive definite on any `ℝᵈ`.
///
/// ```
/// use kern_core::{Laplacian, Kernel};
/// let k = Laplacian::new(2.0)?;
/// assert!((k.eval(&[0.0, 0.0], &[3.0, 4.0]) - (-2.5f64).exp()).abs() < 1e-15);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Laplacian {
    sigma: f64,
}

impl Laplacian {
    /// `σ` finite and > 0.
    pub fn new(sigma: f64) -> Result<Self> {
        Ok(Laplacian { sigma: positive("sigma", sigma)? })
    }

    /// The scale `σ`.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }
}

impl Kernel for Laplacian {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        self.of_sq_dist(sq_dist(x, y))
    }
    fn profile(&self) -> Profile {
        Profile::SqDist
    }
    #[inline]
    fn of_sq_dist(&self, r2: f64) -> f64 {
        (-r2.sqrt() / self.sigma).exp()
    }
}

/// The log kernel `k(x, y) = −log(‖x − y‖^β + 1)` (Cao 2016, slides' SVM kernels).
///
/// It is only *conditionally* positive definite (for `0 < β ≤ 2`): its Gram matrices are PSD on the
/// subspace `Σ cᵢ = 0`, which is what an SVM with a bias term needs, but not in general. `β` must lie in
/// `(0, 2]`.
///
/// ```
/// use kern_core::{LogKernel, Kernel, Definiteness};
/// let k = LogKernel::new(2.0)?;
/// assert!((k.eval(&[0.0], &[1.0]) + 2f64.ln()).abs() < 1e-15);
/// assert_eq!(k.definiteness(), Definiteness::Conditional);
/// assert!(LogKernel::new(3.0).is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogKernel {
    beta: f64,
}

impl LogKernel {
    /// `β ∈ (0, 2]`.
    pub fn new(beta: f64) -> Result<Self> {
        let b = positive("beta", beta)?;
        if b > 2.0 {
            return Err(crate::CoreError::Param {
                name: "beta",
                value: b,
                reason: "the log kernel is conditionally positive definite only for 0 < beta <= 2",
            });
        }
        Ok(LogKernel { beta: b })
    }

    /// The exponent `β`.
    pub fn beta(&self) -> f64 {
        self.beta
    }
}

impl Kernel for LogKernel {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        self.of_sq_dist(sq_dist(x, y))
    }
    fn profile(&self) -> Profile {
        Profile::SqDist
    }
    #[inline]
    fn of_sq_dist(&self, r2: f64) -> f64 {
        -(r2.powf(0.5 * self.beta)).ln_1p()
    }
    fn definiteness(&self) -> Definiteness {
        Definiteness::Conditional
    }
}
