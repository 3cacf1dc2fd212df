//! Classical linear methods on the subspace of the selected feature vectors (Baudat & Anouar §6): PCA,
//! a cheap kernel PCA, and linear discriminant analysis, a cheap GDA (kernel Fisher discriminant).
//!
//! Both work on the coordinates `w_i = L⁻¹ K_Si` of the projection of `φ_i` on `span Φ_S` in an orthonormal
//! basis ([`Projection::Coordinates`], `K_SS = L Lᵀ`). These are isometric to the projected feature
//! vectors, so PCA of the `w_i` *is* kernel PCA of the projected data: when `S` is a basis of the data in
//! feature space (FVS stopped with [`crate::fvs::StopReason::BasisFound`]) the eigenvalues are exactly
//! those of kernel PCA on all the data, and otherwise they are those of kernel PCA on the Nyström
//! approximation `K_XS K_SS⁻¹ K_SX`. Memory and prediction cost drop from `n` to `L` kernel evaluations.
//!
//! ```
//! use kern_core::{Polynomial, Samples};
//! use kern_models::{fvs::FvsParams, fvs_subspace::FvsKpca};
//! let x = Samples::from_rows(&[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0], [0.5, 3.0]])?;
//! let m = FvsKpca::fit(Polynomial::new(2, 0.0)?, &x, &FvsParams::default(), 2)?;
//! assert_eq!(m.eigenvalues().len(), 2);
//! assert!(m.eigenvalues()[0] >= m.eigenvalues()[1]);
//! # Ok::<(), kern_models::ModelsError>(())
//! ```

use crate::error::{ModelsError, Result};
use crate::fvs::FvsParams;
use crate::kfa::{BasisChoice, FvsLayer, Projection};
use faer::{Mat, Side};
use kern_core::learner::{Fit, Model};
use kern_core::{ClassTargets, Kernel, Samples};
use serde::{Deserialize, Serialize};

/// Kernel PCA on the span of the selected feature vectors.
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_models::{fvs::FvsParams, fvs_subspace::FvsKpca};
/// let x = Samples::from_rows(&[[0.0], [0.1], [4.0], [4.1], [8.0]])?;
/// let m = FvsKpca::fit(Gaussian::with_sigma(1.0)?, &x, &FvsParams::with_max(3), 2)?;
/// assert_eq!(m.n_fv(), 3);
/// let ev = m.eigenvalues();
/// assert!(ev.len() == 2 && ev[0] >= ev[1]); // in decreasing order
/// let t = m.transform(&x)?;
/// assert_eq!((t.nrows(), t.ncols()), (5, 2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FvsKpca<K> {
    layer: FvsLayer<K>,
    mean: Vec<f64>,
    /// Principal directions in the coordinates, row-major `L × q`.
    components: Vec<f64>,
    eigenvalues: Vec<f64>,
}

fn sym_eigen_desc(c: &Mat<f64>) -> Result<(Vec<f64>, Mat<f64>)> {
    kern_core::memory::check_eigen(
        c.nrows(),
        "an eigendecomposition of the feature-vector scatter",
        "use fewer feature vectors",
    )?;
    let evd = c.self_adjoint_eigen(Side::Lower).map_err(|e| {
        ModelsError::Numerical(format!("eigendecomposition: {}", kern_core::faer_errors::evd(e)))
    })?;
    let l = c.nrows();
    let s = evd.S().column_vector();
    let u = evd.U();
    let vals: Vec<f64> = (0..l).rev().map(|i| s[i]).collect();
    let vecs = Mat::from_fn(l, l, |i, j| u[(i, l - 1 - j)]);
    Ok((vals, vecs))
}

impl<K: Kernel + Clone> FvsKpca<K> {
    /// FVS on `x`, then PCA of the centred coordinates; keeps `q` components (at most `L`).
    pub fn fit(kernel: K, x: &Samples, fvs: &FvsParams, q: usize) -> Result<Self> {
        if q == 0 {
            return Err(ModelsError::Param { name: "components", value: 0.0, reason: "must be at least 1" });
        }
        let layer = FvsLayer::fit(kernel, &BasisChoice::Fvs(fvs.clone()), Projection::Coordinates, x)?;
        let w = layer.transform(x)?;
        let (n, l) = (w.nrows(), w.ncols());
        let mean: Vec<f64> = (0..l).map(|j| (0..n).map(|i| w[(i, j)]).sum::<f64>() / n as f64).collect();
        let c = Mat::from_fn(l, l, |a, b| {
            (0..n).map(|i| (w[(i, a)] - mean[a]) * (w[(i, b)] - mean[b])).sum::<f64>() / n as f64
        });
        let (vals, vecs) = sym_eigen_desc(&c)?;
        let q = q.min(l);
        let components =
            (0..l).flat_map(|a| (0..q).map(move |b| (a, b))).map(|(a, b)| vecs[(a, b)]).collect();
        Ok(FvsKpca { layer, mean, components, eigenvalues: vals[..q].to_vec() })
    }

    /// Eigenvalues of the covariance in feature space (kernel PCA's `λ`, i.e. eigenvalues of the centred
    /// Gram matrix divided by `n`), decreasing.
    pub fn eigenvalues(&self) -> &[f64] {
        &self.eigenvalues
    }

    /// Number of feature vectors.
    pub fn n_fv(&self) -> usize {
        self.layer.n_fv()
    }

    /// The principal component scores of every row of `x` (`n × q`).
    pub fn transform(&self, x: &Samples) -> Result<Mat<f64>> {
        let w = self.layer.transform(x)?;
        let (l, q) = (w.ncols(), self.eigenvalues.len());
        let z = Mat::from_fn(w.nrows(), q, |i, b| {
            (0..l).map(|a| (w[(i, a)] - self.mean[a]) * self.components[a * q + b]).sum()
        });
        crate::finite_output::mat(z.as_ref(), "projections")?;
        Ok(z)
    }
}

/// Parameters of linear discriminant analysis on the FVS subspace (a cheap GDA).
///
/// ```
/// use kern_core::{ClassTargets, Gaussian, Samples, learner::{Fit, Model}};
/// use kern_models::fvs_subspace::FvsLdaParams;
/// let x = Samples::from_rows(&[[0.0], [0.2], [3.0], [3.2], [6.0], [6.2]])?;
/// let y = ClassTargets::from_labels(&["a", "a", "b", "b", "c", "c"])?;
/// let m = FvsLdaParams::new(Gaussian::with_sigma(1.0)?).fit(&x, &y)?;
/// assert_eq!(m.predict(&x)?, vec![0.0, 0.0, 1.0, 1.0, 2.0, 2.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct FvsLdaParams<K> {
    /// The kernel.
    pub kernel: K,
    /// Feature vector selection.
    pub fvs: FvsParams,
    /// Ridge added to the within-class scatter, relative to its mean diagonal (default `1e-8`).
    pub ridge: f64,
}

impl<K> FvsLdaParams<K> {
    /// Default FVS and ridge.
    pub fn new(kernel: K) -> Self {
        FvsLdaParams { kernel, fvs: FvsParams::default(), ridge: 1e-8 }
    }
}

/// A trained FVS + LDA model: discriminant axes in the coordinates and the projected class means; a sample
/// is assigned to the nearest class mean along the axes.
///
/// ```
/// use kern_core::{ClassTargets, Gaussian, Samples, learner::{Fit, Model}};
/// use kern_models::fvs_subspace::FvsLdaParams;
/// let x = Samples::from_rows(&[[0.0], [0.2], [3.0], [3.2], [6.0], [6.2]])?;
/// let y = ClassTargets::from_labels(&["a", "a", "b", "b", "c", "c"])?;
/// let m = FvsLdaParams::new(Gaussian::with_sigma(1.0)?).fit(&x, &y)?;
/// assert_eq!(m.names(), ["a", "b", "c"]);
/// assert_eq!(m.transform(&x)?.ncols(), 2); // N − 1 = 2 discriminant axes
/// assert_eq!(m.predict(&Samples::from_rows(&[[5.9], [0.1]])?)?, vec![2.0, 0.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FvsLda<K> {
    layer: FvsLayer<K>,
    /// Axes, row-major `L × m` (`m = min(N − 1, L)`), normalised so that the within-class variance along
    /// each is 1.
    axes: Vec<f64>,
    m: usize,
    /// Projected class means, row-major `N × m`.
    means: Vec<f64>,
    eigenvalues: Vec<f64>,
    names: Vec<String>,
}

impl<K: Kernel + Clone> Fit<ClassTargets> for FvsLdaParams<K> {
    type Model = FvsLda<K>;
    type Error = ModelsError;

    /// FVS, then the generalized eigenproblem `S_b v = λ S_w v` on the coordinates, solved as
    /// `R⁻¹ S_b R⁻ᵀ u = λ u` with `S_w + ridge = R Rᵀ`.
    fn fit(&self, x: &Samples, y: &ClassTargets) -> Result<FvsLda<K>> {
        if !(self.ridge > 0.0 && self.ridge.is_finite()) {
            return Err(ModelsError::Param {
                name: "ridge",
                value: self.ridge,
                reason: "must be finite and > 0",
            });
        }
        if y.len() != x.n() {
            return Err(ModelsError::Input(format!("{} labels for {} samples", y.len(), x.n())));
        }
        let layer = FvsLayer::fit(
            self.kernel.clone(),
            &BasisChoice::Fvs(self.fvs.clone()),
            Projection::Coordinates,
            x,
        )?;
        let w = layer.transform(x)?;
        let (n, l, nc) = (w.nrows(), w.ncols(), y.n_classes());
        let cls = y.classes();
        let counts = y.counts();
        let mut mu = vec![0.0; nc * l];
        for i in 0..n {
            for a in 0..l {
                mu[cls[i] * l + a] += w[(i, a)];
            }
        }
        for c in 0..nc {
            for a in 0..l {
                mu[c * l + a] /= counts[c].max(1) as f64;
            }
        }
        let total: Vec<f64> = (0..l).map(|a| (0..n).map(|i| w[(i, a)]).sum::<f64>() / n as f64).collect();
        let mut sw = Mat::from_fn(l, l, |a, b| {
            (0..n).map(|i| (w[(i, a)] - mu[cls[i] * l + a]) * (w[(i, b)] - mu[cls[i] * l + b])).sum::<f64>()
        });
        let sb = Mat::from_fn(l, l, |a, b| {
            (0..nc)
                .map(|c| counts[c] as f64 * (mu[c * l + a] - total[a]) * (mu[c * l + b] - total[b]))
                .sum::<f64>()
        });
        let mean_diag = (0..l).map(|a| sw[(a, a)]).sum::<f64>() / l as f64;
        let ridge = self.ridge * mean_diag.max(f64::MIN_POSITIVE);
        for a in 0..l {
            sw[(a, a)] += ridge;
        }
        let llt = sw.llt(Side::Lower).map_err(|e| {
            ModelsError::Numerical(format!("within-class scatter: {}", kern_core::faer_errors::llt(e)))
        })?;
        let r = llt.L();
        // M = R⁻¹ S_b R⁻ᵀ.
        let rinv = {
            let mut inv = Mat::<f64>::identity(l, l);
            for col in 0..l {
                for a in 0..l {
                    let mut s = inv[(a, col)];
                    for b in 0..a {
                        s -= r[(a, b)] * inv[(b, col)];
                    }
                    inv[(a, col)] = s / r[(a, a)];
                }
            }
            inv
        };
        let m_mat = &rinv * &sb * rinv.transpose();
        let m_sym = Mat::from_fn(l, l, |a, b| 0.5 * (m_mat[(a, b)] + m_mat[(b, a)]));
        let (vals, vecs) = sym_eigen_desc(&m_sym)?;
        let m = (nc - 1).min(l).max(1);
        // v = R⁻ᵀ u.
        let v = rinv.transpose() * vecs.get(.., ..m);
        let axes: Vec<f64> =
            (0..l).flat_map(|a| (0..m).map(move |b| (a, b))).map(|(a, b)| v[(a, b)]).collect();
        let means = (0..nc)
            .flat_map(|c| (0..m).map(move |b| (c, b)))
            .map(|(c, b)| (0..l).map(|a| mu[c * l + a] * axes[a * m + b]).sum())
            .collect();
        Ok(FvsLda { layer, axes, m, means, eigenvalues: vals[..m].to_vec(), names: y.names().to_vec() })
    }
}

impl<K: Kernel + Clone> FvsLda<K> {
    /// The discriminant scores of every row of `x` (`n × m`).
    pub fn transform(&self, x: &Samples) -> Result<Mat<f64>> {
        let w = self.layer.transform(x)?;
        let l = w.ncols();
        let z = Mat::from_fn(w.nrows(), self.m, |i, b| {
            (0..l).map(|a| w[(i, a)] * self.axes[a * self.m + b]).sum()
        });
        crate::finite_output::mat(z.as_ref(), "projections")?;
        Ok(z)
    }

    /// The generalized eigenvalues (between- over within-class variance) of the axes, decreasing.
    pub fn eigenvalues(&self) -> &[f64] {
        &self.eigenvalues
    }

    /// Number of feature vectors.
    pub fn n_fv(&self) -> usize {
        self.layer.n_fv()
    }

    /// Class names.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

impl<K: Kernel + Clone> Model for FvsLda<K> {
    type Error = ModelsError;

    /// The class (index) of the nearest projected class mean.
    fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        let t = self.transform(x)?;
        let nc = self.names.len();
        Ok((0..t.nrows())
            .map(|i| {
                let mut best = (f64::INFINITY, 0);
                for c in 0..nc {
                    let d: f64 = (0..self.m).map(|b| (t[(i, b)] - self.means[c * self.m + b]).powi(2)).sum();
                    if d < best.0 {
                        best = (d, c);
                    }
                }
                best.1 as f64
            })
            .collect())
    }
}
