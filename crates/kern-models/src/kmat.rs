//! Kernel matrices for the dual learners (LS-SVM, kernel ridge regression, kernel PCA): the choice
//! between the dense and the sparse path, building `K` on that path, and kernel expansions
//! `f(x) = Σ_i c_i k(x, x_i)` evaluated for many new points at once.
//!
//! **Path rule** ([`PathChoice::Auto`]): a kernel without compact support (`support_radius() == None`)
//! always takes the dense path. A compactly supported kernel takes the sparse path when the estimated
//! density of `K_C` (from [`DENSITY_PAIRS`] seeded random pairs) is at most
//! [`AUTO_SPARSE_MAX_DENSITY`], or whenever `n > AUTO_DENSE_MAX_N` (a dense `n × n` matrix would not
//! fit); otherwise the dense path, where one GEMM-shaped dense Cholesky is faster than a sparse one on a
//! nearly full pattern. The threshold comes from LS-SVM measurements on green-red at n = 5000
//! (`cargo bench -p kernml-models --bench lssvm_kpca`). Both paths compute the same mathematical matrix
//! (a dense `K_C` holds the zeros explicitly), so the choice changes only speed and memory.
//!
//! ```
//! use kern_core::{Kernel, KernelSpec, Samples};
//! use kern_models::kmat::{PathChoice, SolvePath, build_gram, choose_path, expand};
//! let x = Samples::from_rows(&[[0.0], [1.0], [10.0], [20.0], [30.0], [40.0], [50.0]])?;
//! let k: KernelSpec = "cs-gaussian:sigma=1,c=1.5,nu=1".parse()?;
//! let path = choose_path(&k, &x, PathChoice::Auto)?;
//! assert_eq!(path, SolvePath::Sparse); // K_C holds 9 of 49 entries
//! assert!(build_gram(&k, &x, path)?.is_sparse());
//! let c = faer::Mat::from_fn(7, 1, |i, _| i as f64 + 1.0);
//! let f = expand(&k, &x, c.as_ref(), &Samples::from_rows(&[[0.5]])?, path)?; // Σ cᵢ k(0.5, xᵢ)
//! assert!((f[(0, 0)] - (k.eval(&[0.5], &[0.0]) + 2.0 * k.eval(&[0.5], &[1.0]))).abs() < 1e-15);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{ModelsError, Result};
use faer::{Mat, MatRef};
use kern_core::{Kernel, KernelSpec, KernelVisitor, Samples};
use kern_sparse::GramMatrix;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

/// Estimated density of `K_C` up to which [`PathChoice::Auto`] takes the sparse path.
///
/// ```
/// use kern_models::kmat::{choose_path, estimate_density, PathChoice, SolvePath, AUTO_SPARSE_MAX_DENSITY};
/// let cs: kern_core::KernelSpec = "cs-gaussian:sigma=1,c=0.5,nu=1".parse()?;
/// let far = kern_core::Samples::from_rows(&[[0.0], [10.0], [20.0], [30.0], [40.0], [50.0]])?;
/// let near = kern_core::Samples::from_rows(&[[0.0], [0.1], [0.2], [0.3], [0.4], [0.5]])?;
/// assert!(estimate_density(&far, 0.5, 100, 1) <= AUTO_SPARSE_MAX_DENSITY); // only the diagonal
/// assert_eq!(choose_path(&cs, &far, PathChoice::Auto)?, SolvePath::Sparse);
/// assert!(estimate_density(&near, 0.5, 100, 1) > AUTO_SPARSE_MAX_DENSITY);
/// assert_eq!(choose_path(&cs, &near, PathChoice::Auto)?, SolvePath::Dense);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const AUTO_SPARSE_MAX_DENSITY: f64 = 0.2;
/// Sizes above which [`PathChoice::Auto`] never builds a dense `n × n` matrix (8n² bytes = 3.2 GB here).
///
/// ```
/// use kern_models::kmat::{choose_path, PathChoice, SolvePath, AUTO_DENSE_MAX_N};
/// let cs: kern_core::KernelSpec = "cs-gaussian:sigma=1,c=0.5,nu=1".parse()?;
/// // Every point at 0: the Gram matrix is full, yet above the size it is not built dense.
/// let x = kern_core::Samples::from_flat(vec![0.0; AUTO_DENSE_MAX_N + 1], AUTO_DENSE_MAX_N + 1, 1)?;
/// assert_eq!(choose_path(&cs, &x, PathChoice::Auto)?, SolvePath::Sparse);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const AUTO_DENSE_MAX_N: usize = 20_000;
/// Random pairs used to estimate the density of `K_C`.
///
/// ```
/// use kern_models::kmat::{estimate_density, DENSITY_PAIRS};
/// // 100 points have 4,950 pairs, fewer than DENSITY_PAIRS: the estimate is exact.
/// let x = kern_core::Samples::from_flat((0..100).map(|i| i as f64).collect(), 100, 1)?;
/// let d = estimate_density(&x, 1.5, DENSITY_PAIRS, 3); // each point is near its two neighbours
/// assert!((d - (100.0 + 2.0 * 99.0) / 10_000.0).abs() < 1e-12);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub const DENSITY_PAIRS: usize = 20_000;

/// Which path to take: chosen automatically (module docs) or forced.
///
/// ```
/// use kern_models::kmat::PathChoice;
/// assert_eq!("sparse".parse::<PathChoice>()?, PathChoice::Sparse);
/// assert!("diagonal".parse::<PathChoice>().is_err());
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PathChoice {
    /// By kernel support and estimated density.
    #[default]
    Auto,
    /// Always a dense `K` (also for a compactly supported kernel: `K_C` stored densely).
    Dense,
    /// Always a sparse `K_C` (an error for a kernel without compact support).
    Sparse,
}

impl std::str::FromStr for PathChoice {
    type Err = ModelsError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(PathChoice::Auto),
            "dense" => Ok(PathChoice::Dense),
            "sparse" => Ok(PathChoice::Sparse),
            other => Err(ModelsError::Input(format!("unknown path {other:?}; valid: auto, dense, sparse"))),
        }
    }
}

/// The path a model was trained on.
///
/// ```
/// use kern_models::krr::KernelRidgeParams;
/// use kern_models::kmat::{PathChoice, SolvePath};
/// use kern_models::{Fit, RealTargets, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
/// let y = RealTargets::new(vec![0.0, 1.0, 0.0, 1.0])?;
/// let p = KernelRidgeParams::new("cs-gaussian:sigma=1,c=1.5,nu=1".parse()?).lambda(0.1);
/// let m = p.path(PathChoice::Sparse).fit(&x, &y)?;
/// assert_eq!((m.path(), m.path().name()), (SolvePath::Sparse, "sparse"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SolvePath {
    /// Dense `K` (faer dense Cholesky / eigendecomposition / GEMM products).
    Dense,
    /// Sparse `K_C` (sparse Cholesky with reused symbolic analysis / sparse products).
    Sparse,
}

impl SolvePath {
    /// `"dense"` or `"sparse"`.
    pub fn name(self) -> &'static str {
        match self {
            SolvePath::Dense => "dense",
            SolvePath::Sparse => "sparse",
        }
    }
}

impl std::fmt::Display for SolvePath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Estimated fraction of non-zero entries of `K_C` for support radius `c`: the diagonal plus the
/// fraction of `pairs` seeded random off-diagonal pairs closer than `c` (exact when `n` is small
/// enough that all pairs fit in `pairs`).
///
/// ```
/// let x = kern_core::Samples::from_rows(&[[0.0], [0.1], [10.0], [10.1]])?;
/// let d = kern_models::kmat::estimate_density(&x, 1.0, 1000, 1);
/// assert!((d - 8.0 / 16.0).abs() < 1e-12);   // 4 diagonal + 2 pairs in both triangles
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn estimate_density(x: &Samples, c: f64, pairs: usize, seed: u64) -> f64 {
    let n = x.n();
    if n <= 1 {
        return 1.0;
    }
    let c2 = c * c;
    let all = n * (n - 1) / 2;
    let (hits, tried) = if all <= pairs {
        let mut h = 0usize;
        for i in 0..n {
            for j in 0..i {
                h += usize::from(x.sample(i).sq_dist(x.sample(j)) < c2);
            }
        }
        (h, all)
    } else {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut h = 0usize;
        for _ in 0..pairs {
            let i = rng.random_range(0..n);
            let mut j = rng.random_range(0..n - 1);
            if j >= i {
                j += 1;
            }
            h += usize::from(x.sample(i).sq_dist(x.sample(j)) < c2);
        }
        (h, pairs)
    };
    let nf = n as f64;
    (nf + (nf * nf - nf) * hits as f64 / tried as f64) / (nf * nf)
}

/// Resolves a [`PathChoice`] for kernel `k` on `x` (module docs).
///
/// ```
/// use kern_models::kmat::{choose_path, PathChoice, SolvePath};
/// let x = kern_core::Samples::from_rows(&[[0.0], [1.0], [2.0], [30.0], [40.0], [50.0]])?;
/// let g: kern_core::KernelSpec = "gaussian:sigma=1".parse()?;
/// let cs: kern_core::KernelSpec = "cs-gaussian:sigma=1,c=0.5,nu=1".parse()?;
/// assert_eq!(choose_path(&g, &x, PathChoice::Auto)?, SolvePath::Dense);
/// assert_eq!(choose_path(&cs, &x, PathChoice::Auto)?, SolvePath::Sparse);
/// assert!(choose_path(&g, &x, PathChoice::Sparse).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn choose_path<K: Kernel>(k: &K, x: &Samples, choice: PathChoice) -> Result<SolvePath> {
    match (choice, k.support_radius()) {
        (PathChoice::Dense, _) => Ok(SolvePath::Dense),
        (PathChoice::Sparse, Some(_)) => Ok(SolvePath::Sparse),
        (PathChoice::Sparse, None) => Err(ModelsError::Input(
            "the sparse path needs a compactly supported kernel (cs- before a radial kernel, e.g. \
             cs-gaussian:sigma=0.6,c=2,nu=3); this kernel has no compact support"
                .into(),
        )),
        (PathChoice::Auto, None) => Ok(SolvePath::Dense),
        (PathChoice::Auto, Some(c)) => {
            if x.n() > AUTO_DENSE_MAX_N
                || estimate_density(x, c, DENSITY_PAIRS, 0x6b65726e) <= AUTO_SPARSE_MAX_DENSITY
            {
                Ok(SolvePath::Sparse)
            } else {
                Ok(SolvePath::Dense)
            }
        }
    }
}

struct BuildGram<'a>(&'a Samples, SolvePath);
impl KernelVisitor for BuildGram<'_> {
    type Output = kern_sparse::Result<GramMatrix>;
    fn visit<K: Kernel>(self, k: &K) -> Self::Output {
        match self.1 {
            SolvePath::Dense => GramMatrix::dense(k, self.0),
            SolvePath::Sparse => GramMatrix::sparse(k, self.0),
        }
    }
}

/// `K(X, X)` on the given path, from the kernel-matrix layer ([`kern_sparse::kmatrix`]),
/// monomorphized for the concrete kernel.
///
/// ```
/// use kern_models::kmat::{build_gram, SolvePath};
/// use kern_sparse::GramMatrix;
/// let x = kern_core::Samples::from_rows(&[[0.0], [1.0], [5.0]])?;
/// let GramMatrix::Dense(k) = build_gram(&"gaussian:sigma=1".parse()?, &x, SolvePath::Dense)? else {
///     unreachable!()
/// };
/// assert_eq!((k[(0, 0)], k[(0, 1)]), (1.0, k[(1, 0)])); // unit diagonal, symmetric
/// let sparse = build_gram(&"cs-gaussian:sigma=1,c=2,nu=1".parse()?, &x, SolvePath::Sparse)?;
/// assert!(matches!(sparse, GramMatrix::Sparse(_)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn build_gram(k: &KernelSpec, x: &Samples, path: SolvePath) -> Result<GramMatrix> {
    k.check_samples(x)?;
    Ok(k.visit(BuildGram(x, path))?)
}

/// The kernel expansion `E = K(Y, X) C` for new points `Y` (`m` samples), training points `X` (`n`
/// samples) and coefficients `C` (`n × r`): `E[j, t] = Σ_i C[i, t] k(y_j, x_i)`, an `m × r` matrix,
/// on the given path ([`kern_sparse::kmatrix::expand`]: blocks of the dense cross Gram, or the sparse
/// cross Gram `K_C` through a neighbour index so a prediction visits only `δ_C(y)`, paper §2.1).
/// Either sample store works on either side without densifying.
///
/// ```
/// use kern_models::kmat::{expand, SolvePath};
/// let x = kern_core::Samples::from_rows(&[[1.0], [2.0]])?;
/// let y = kern_core::Samples::from_rows(&[[3.0]])?;
/// let c = faer::Mat::from_fn(2, 1, |i, _| [0.5, -1.0][i]);
/// let e = expand(&"linear".parse()?, &x, c.as_ref(), &y, SolvePath::Dense)?;
/// assert_eq!(e[(0, 0)], 0.5 * 3.0 - 1.0 * 6.0); // Σ_i c_i ⟨y, x_i⟩
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn expand(
    k: &KernelSpec,
    x: &Samples,
    coef: MatRef<'_, f64>,
    y: &Samples,
    path: SolvePath,
) -> Result<Mat<f64>> {
    if coef.nrows() != x.n() {
        return Err(ModelsError::Input(format!(
            "{} coefficients for {} training points",
            coef.nrows(),
            x.n()
        )));
    }
    x.check_same_dim(y)?;
    k.visit(Expand { x, coef, y, path })
}

struct Expand<'a> {
    x: &'a Samples,
    coef: MatRef<'a, f64>,
    y: &'a Samples,
    path: SolvePath,
}

impl KernelVisitor for Expand<'_> {
    type Output = Result<Mat<f64>>;
    fn visit<K: Kernel>(self, k: &K) -> Result<Mat<f64>> {
        Ok(kern_sparse::kmatrix::expand(k, self.x, self.coef, self.y, self.path == SolvePath::Sparse)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_and_dense_expansions_agree() {
        let x =
            Samples::from_flat((0..120).map(|v| ((v * 37) % 101) as f64 / 50.0).collect(), 60, 2).unwrap();
        let y = Samples::from_flat((0..40).map(|v| ((v * 53) % 97) as f64 / 45.0).collect(), 20, 2).unwrap();
        let k: KernelSpec = "cs-gaussian:sigma=0.8,c=0.9,nu=3".parse().unwrap();
        let c = Mat::from_fn(60, 3, |i, j| ((i * 7 + j * 3) % 11) as f64 - 5.0);
        let a = expand(&k, &x, c.as_ref(), &y, SolvePath::Dense).unwrap();
        let b = expand(&k, &x, c.as_ref(), &y, SolvePath::Sparse).unwrap();
        for j in 0..20 {
            for t in 0..3 {
                let brute: f64 = (0..60).map(|i| c[(i, t)] * k.eval(y.row(j), x.row(i))).sum();
                assert!((a[(j, t)] - brute).abs() < 1e-12, "dense {j} {t}");
                assert!((b[(j, t)] - brute).abs() < 1e-12, "sparse {j} {t}");
            }
        }
    }

    #[test]
    fn density_estimate_is_close() {
        let x = Samples::from_flat((0..4000).map(|v| ((v * 7919) % 1009) as f64 / 1009.0).collect(), 2000, 2)
            .unwrap();
        let exact = estimate_density(&x, 0.2, usize::MAX, 0);
        let est = estimate_density(&x, 0.2, 20_000, 3);
        assert!((exact - est).abs() < 0.01, "{exact} vs {est}");
    }
}
