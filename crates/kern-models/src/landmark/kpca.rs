//! Nyström kernel PCA: PCA of the Nyström feature map on `m` centres, with out-of-sample projection.
//!
//! With `K_mm + εI = LLᵀ` ([`factor_kmm`](super::factor_kmm)) the Nyström features are
//! `φ̂(x) = L⁻¹ k_C(x) ∈ ℝᵐ`, `k_C(x) = (k(c_j, x))_j` (Williams & Seeger 2001, "Using the Nyström
//! method to speed up kernel machines"): their inner products are `K_xC K_mm⁻¹ K_Cy`, the Nyström
//! approximation of the kernel. Kernel PCA (CS-RBF paper §4.3; Cao eqs. 42–49) on these features is a
//! PCA in `ℝᵐ`: with the mean `μ̂ = Σ_i φ̂(x_i)/n` the centred scatter matrix is
//!
//! ```text
//! M = Σ_i (φ̂_i − μ̂)(φ̂_i − μ̂)ᵀ = L⁻¹ (K_nmᵀK_nm) L⁻ᵀ − n μ̂μ̂ᵀ,    μ̂ = L⁻¹ K_nmᵀ1 / n,
//! ```
//!
//! whose eigenpairs `M v_k = μ_k v_k` are those of the centred Nyström Gram matrix `F̃F̃ᵀ` (same nonzero
//! eigenvalues `μ_k`, the dense kernel PCA's eigenvalues when `m = n`). The score of a point is
//! `z_k(x) = (φ̂(x) − μ̂)ᵀ v_k = k_C(x)ᵀ w_k − μ̂ᵀv_k` with `w_k = L⁻ᵀ v_k`: on a training point this is
//! `√μ_k u_k(i)`, the dense model's training score. `K_nmᵀK_nm` and `K_nmᵀ1` come from one streamed pass
//! ([`stream`]): `O(n·m·(m + d))` flops, `O(m²)` memory. Each `v_k` is signed so that its entry of
//! largest magnitude is positive.

use super::stream::{expand, stream};
use super::{Landmarks, factor_kmm, select_landmarks};
use crate::error::{ModelsError, Result};
use crate::fvs::Strategy;
use crate::persist::Persist;
use crate::validate;
use faer::linalg::triangular_solve::{solve_lower_triangular_in_place, solve_upper_triangular_in_place};
use faer::{Mat, MatRef, Side};
use kern_core::{KernelSpec, Samples, memory, parallel::faer_par};
use serde::{Deserialize, Serialize};

/// Parameters of a Nyström kernel PCA.
///
/// ```
/// use kern_core::Samples;
/// use kern_models::landmark::{Landmarks, NystromKpcaParams};
/// let x = Samples::from_flat((0..120).map(|i| (i as f64 * 0.61).sin()).collect(), 60, 2)?;
/// let p = NystromKpcaParams::new("gaussian:sigma=0.7".parse()?, 2, Landmarks::Random { m: 20 });
/// let model = p.fit(&x)?;
/// assert!(model.eigenvalues()[0] >= model.eigenvalues()[1]);
/// assert_eq!(model.transform(&x)?.ncols(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct NystromKpcaParams {
    /// The kernel.
    pub kernel: KernelSpec,
    /// Number of components (`1 ≤ k ≤ m`).
    pub components: usize,
    /// How the centres are chosen.
    pub landmarks: Landmarks,
    /// Seed of the random centres or of the FVS pool.
    pub seed: u64,
    /// FVS candidate scoring.
    pub fvs_strategy: Strategy,
}

impl NystromKpcaParams {
    /// `k` components on the given centres, seed 0.
    pub fn new(kernel: KernelSpec, components: usize, landmarks: Landmarks) -> Self {
        NystromKpcaParams { kernel, components, landmarks, seed: 0, fvs_strategy: Strategy::Auto }
    }

    /// Sets the seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets the FVS strategy.
    pub fn fvs_strategy(mut self, s: Strategy) -> Self {
        self.fvs_strategy = s;
        self
    }

    /// Chooses the centres and fits.
    pub fn fit(&self, x: &Samples) -> Result<NystromKpca> {
        if self.components == 0 {
            return Err(ModelsError::Param { name: "components", value: 0.0, reason: "must be at least 1" });
        }
        let idx = select_landmarks(&self.kernel, x, self.landmarks, self.seed, self.fvs_strategy)?;
        self.fit_with_centres(x, &idx)
    }

    /// Fits on the given centres (indices into `x`).
    pub fn fit_with_centres(&self, x: &Samples, centres: &[usize]) -> Result<NystromKpca> {
        let (n, m, q) = (x.n(), centres.len(), self.components);
        if q == 0 || q > m {
            return Err(ModelsError::Param {
                name: "components",
                value: q as f64,
                reason: "must be between 1 and the number of centres",
            });
        }
        memory::check_array::<f64>(&[4, m, m + 1], "kernel PCA's m × m matrices", "use fewer centres")?;
        let k = &self.kernel;
        let c = x.select(centres)?;
        let (l, jitter) = factor_kmm(k, &c)?;
        let s = stream(k, x, &c, m + 1, |_, kb| {
            Mat::from_fn(kb.nrows(), m + 1, |i, j| if j < m { kb[(i, j)] } else { 1.0 })
        })?;
        // L⁻¹ [K_nmᵀK_nm | K_nmᵀ1], then (L⁻¹ Q) L⁻ᵀ by a second solve on the transpose.
        let mut a = s;
        solve_lower_triangular_in_place(l.as_ref(), a.as_mut(), faer_par());
        let mu: Vec<f64> = (0..m).map(|j| a[(j, m)] / n as f64).collect();
        let mut sc = a.subcols(0, m).transpose().to_owned();
        solve_lower_triangular_in_place(l.as_ref(), sc.as_mut(), faer_par());
        let scatter = Mat::from_fn(m, m, |i, j| 0.5 * (sc[(i, j)] + sc[(j, i)]) - n as f64 * mu[i] * mu[j]);
        drop(sc);
        let total: f64 = (0..m).map(|i| scatter[(i, i)]).sum();
        memory::check_eigen(m, "kernel PCA's eigendecomposition", "use fewer centres")?;
        let evd = scatter.self_adjoint_eigen(Side::Lower).map_err(|e| {
            ModelsError::Numerical(format!("eigendecomposition: {}", kern_core::faer_errors::evd(e)))
        })?;
        let (u, sv) = (evd.U(), evd.S().column_vector());
        // Descending order; each eigenvector signed by its largest entry.
        let mut v = Mat::<f64>::zeros(m, q);
        let mut eigenvalues = Vec::with_capacity(q);
        for t in 0..q {
            let src = m - 1 - t;
            eigenvalues.push(sv[src].max(0.0));
            let mut big = 0usize;
            for j in 0..m {
                if u[(j, src)].abs() > u[(big, src)].abs() {
                    big = j;
                }
            }
            let sign = if u[(big, src)] < 0.0 { -1.0 } else { 1.0 };
            for j in 0..m {
                v[(j, t)] = sign * u[(j, src)];
            }
        }
        let offset: Vec<f64> = (0..q).map(|t| (0..m).map(|j| mu[j] * v[(j, t)]).sum()).collect();
        let mut w = v;
        solve_upper_triangular_in_place(l.transpose(), w.as_mut(), faer_par());
        let w: Vec<f64> = (0..q).flat_map(|t| (0..m).map(move |j| (t, j))).map(|(t, j)| w[(j, t)]).collect();
        validate::trained(NystromKpca {
            kernel: k.clone(),
            centres: c,
            indices: centres.to_vec(),
            landmarks: self.landmarks,
            seed: self.seed,
            eigenvalues,
            w,
            offset,
            total_variance: total,
            n,
            jitter,
        })
    }
}

/// A trained Nyström kernel PCA (module docs): the centres, the projection `W` and offsets.
///
/// ```
/// use kern_core::Samples;
/// use kern_models::kpca::KernelPcaParams;
/// use kern_models::landmark::{Landmarks, NystromKpcaParams};
/// let x = Samples::from_flat((0..40).map(|i| (i as f64 * 0.61).sin()).collect(), 20, 2)?;
/// let k = "gaussian:sigma=0.8".parse()?;
/// // Every sample a centre: the Nyström approximation is the kernel itself (up to a tiny jitter).
/// let ny = NystromKpcaParams::new(k, 3, Landmarks::Random { m: 20 }).fit(&x)?;
/// let exact = KernelPcaParams::new(ny.kernel().clone(), 3).fit(&x)?;
/// for (a, b) in ny.eigenvalues().iter().zip(exact.eigenvalues()) {
///     assert!((a - b).abs() <= 1e-8 * exact.eigenvalues()[0]);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NystromKpca {
    kernel: KernelSpec,
    centres: Samples,
    indices: Vec<usize>,
    landmarks: Landmarks,
    seed: u64,
    eigenvalues: Vec<f64>,
    /// `m × k`, column-major.
    w: Vec<f64>,
    offset: Vec<f64>,
    total_variance: f64,
    n: usize,
    jitter: f64,
}

impl Persist for NystromKpca {
    const KIND: &'static str = "nystrom-kpca";
    fn validate(&self) -> std::result::Result<(), String> {
        validate::kernel(&self.kernel, self.centres.d())?;
        let (m, q) = (self.centres.n(), self.eigenvalues.len());
        if m == 0 || q == 0 {
            return Err("no centres or no components".into());
        }
        validate::len("projection", self.w.len(), m.checked_mul(q).ok_or("projection size overflows")?)?;
        validate::len("offsets", self.offset.len(), q)?;
        validate::len("centre indices", self.indices.len(), m)?;
        validate::finite("eigenvalues", &self.eigenvalues)?;
        validate::finite("projection", &self.w)?;
        validate::finite("offsets", &self.offset)?;
        validate::finite("total variance", &[self.total_variance])?;
        Ok(())
    }
}

/// Test samples with features the centres lack: zeros there, by LIBSVM's rule ([`crate::widen`]).
impl crate::widen::WidenFeatures for NystromKpca {
    fn n_features(&self) -> usize {
        self.centres.d()
    }
    fn widen_features(&mut self, d: usize) -> Result<()> {
        crate::widen::widen_store(&mut self.centres, d)
    }
}

impl NystromKpca {
    /// The kernel.
    pub fn kernel(&self) -> &KernelSpec {
        &self.kernel
    }
    /// The centres.
    pub fn centres(&self) -> &Samples {
        &self.centres
    }
    /// Indices of the centres among the training samples.
    pub fn centre_indices(&self) -> &[usize] {
        &self.indices
    }
    /// How the centres were chosen.
    pub fn landmarks(&self) -> Landmarks {
        self.landmarks
    }
    /// Number of components.
    pub fn components(&self) -> usize {
        self.eigenvalues.len()
    }
    /// Eigenvalues `μ_k` of the centred Nyström Gram matrix, descending.
    pub fn eigenvalues(&self) -> &[f64] {
        &self.eigenvalues
    }
    /// Feature-space variance along each component, `μ_k / n`.
    pub fn explained_variance(&self) -> Vec<f64> {
        self.eigenvalues.iter().map(|v| v / self.n as f64).collect()
    }
    /// `μ_k / tr(M)`: the share of the Nyström features' total variance.
    pub fn explained_variance_ratio(&self) -> Vec<f64> {
        self.eigenvalues
            .iter()
            .map(|v| if self.total_variance > 0.0 { v / self.total_variance } else { 0.0 })
            .collect()
    }
    /// The jitter `ε` added to `K_mm`'s diagonal.
    pub fn jitter(&self) -> f64 {
        self.jitter
    }

    /// Scores of points (`n_y × k`): `K(Y, C) W − 1 offsetᵀ`, `Y` streamed in blocks.
    pub fn transform(&self, y: &Samples) -> Result<Mat<f64>> {
        let (m, q) = (self.centres.n(), self.components());
        let w = MatRef::from_column_major_slice(&self.w, m, q);
        let mut z = expand(&self.kernel, y, &self.centres, w)?;
        for t in 0..q {
            for i in 0..y.n() {
                z[(i, t)] -= self.offset[t];
            }
        }
        crate::finite_output::mat(z.as_ref(), "projections")?;
        Ok(z)
    }
}
