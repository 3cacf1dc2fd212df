//! Kernel principal component analysis (CS-RBF paper §4.3 and Example 3; Cao's slides eqs. 42–49),
//! dense or sparse.
//!
//! **Training.** With `K` the Gram matrix and `H = I − 11ᵀ/n`, the data are centred in feature space
//! by `K̃ = HKH` (so that `Σ Φ(x_i) = 0`, the assumption of eq. 43). The eigenpairs `K̃ u_k = μ_k u_k`
//! (eq. 47 with `μ_k = nλ_k`: `λ_k` are the eigenvalues of the feature-space covariance `Σ = K̃/n`)
//! give the coefficients `α_k = u_k / √μ_k`, which is the normalisation of eq. 48:
//! `μ_k α_k·α_k = 1`, i.e. each feature-space axis `V_k = Σ_i α_ik Φ̃(x_i)` has unit norm.
//!
//! **Projections** (eq. 49 on centred features). For a new point `x` with `k_x = (k(x_i, x))_i`, the
//! centred kernel vector is `k̃_x = k_x − 1(1ᵀk_x)/n − K1/n + 1(1ᵀK1)/n²` (the test-kernel centring
//! formula) and the `k`-th component is `z_k(x) = α_k·k̃_x`. On a training point this reduces to
//! `K̃α_k = μ_k α_k = √μ_k u_k`, the training scores.
//!
//! **Solvers.** A full dense eigendecomposition (faer `self_adjoint_eigen` of the explicitly centred
//! matrix) for small `n` or when many components are asked for; otherwise a block Krylov method with
//! full reorthogonalisation ([`eigen`]) on dense or sparse matrix products, with the centring applied
//! inside the product (`K̃x = HKHx` without forming `K̃`) so that the sparse path never densifies. On the sparse path the
//! points are first put in a spatial order (cells of width `c` of the first coordinate, then the
//! second): the sparse products then read neighbouring rows from cache. Memory of the sparse path:
//! `K_C` (`16·nnz` bytes) plus the Krylov basis and its image (`2·n·basis` doubles, basis
//! `max(6(k + block), 96)`, shrunk to fit three quarters of the memory left, never below `k + 2·block`;
//! the solver's restarts work in place), i.e. `O(nnz + n·k)`.
//!
//! **Explained variance.** `tr(K̃) = tr(K) − 1ᵀK1/n` is the total feature-space variance times `n`,
//! so the ratio of component `k` is `μ_k / tr(K̃)`, computed without the other eigenvalues.
//!
//! ```
//! use kern_core::Samples;
//! use kern_models::kpca::KernelPcaParams;
//! let x = Samples::from_rows(&[[0.0, 0.0], [0.1, 0.0], [1.0, 1.0], [1.1, 1.0], [2.0, 0.0], [2.0, 0.1]])?;
//! let model = KernelPcaParams::new("gaussian:sigma=1".parse()?, 2).fit(&x)?;
//! assert_eq!(model.eigenvalues().len(), 2);
//! assert!(model.eigenvalues()[0] >= model.eigenvalues()[1]);
//! let z = model.transform(&x)?;                 // projections of the training points…
//! let s = model.training_scores();              // …equal the training scores
//! assert!((z[(3, 1)] - s[(3, 1)]).abs() < 1e-10);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod eigen;
pub(crate) mod op;

use crate::error::{ModelsError, Result};
use crate::kmat::{PathChoice, SolvePath, build_gram, choose_path, expand};
use crate::persist::Persist;
use crate::svm::KernelMatrix;
use eigen::{KrylovOptions, top_eigenpairs};
use faer::{Mat, Side};
use kern_core::{Kernel, KernelSpec, Linear, Samples};
use kern_sparse::GramMatrix;
use op::{Centred, GramOp};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Which eigensolver [`KernelPcaParams::fit`] uses.
///
/// ```
/// use kern_models::kpca::{EigenSolver, KernelPcaParams};
/// let x = kern_models::Samples::from_rows(&[[0.0], [1.0], [2.0], [4.0], [7.0], [11.0], [16.0], [22.0]])?;
/// let p = KernelPcaParams::new("gaussian:sigma=3".parse()?, 2).block(2);
/// let dense = p.clone().solver(EigenSolver::Dense).fit(&x)?;
/// let krylov = p.solver(EigenSolver::Krylov).fit(&x)?;
/// assert_eq!(krylov.solver_info().solver, "krylov");
/// for (a, b) in dense.eigenvalues().iter().zip(krylov.eigenvalues()) {
///     assert!((a - b).abs() <= 1e-8 * dense.eigenvalues()[0]); // same spectrum
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum EigenSolver {
    /// Dense when `n ≤ DENSE_AUTO_MAX_N` or `k ≥ n / DENSE_AUTO_SHARE` (or the Krylov basis would
    /// not fit), Krylov otherwise: a few components of a few hundred points already cost the full
    /// eigendecomposition several times what the Krylov method costs.
    #[default]
    Auto,
    /// Full dense eigendecomposition (needs the `n × n` matrix; refused above 20,000 points).
    Dense,
    /// Block Krylov on matrix products ([`eigen`]).
    Krylov,
}

/// Sizes up to which [`EigenSolver::Auto`] uses the full dense eigendecomposition (scikit-learn's
/// `KernelPCA` threshold too).
///
/// ```
/// use kern_models::kpca::{KernelPcaParams, DENSE_AUTO_MAX_N};
/// let n = DENSE_AUTO_MAX_N;
/// let x = kern_models::Samples::from_flat((0..n).map(|i| (i as f64).sqrt()).collect(), n, 1)?;
/// let m = KernelPcaParams::new("gaussian:sigma=2".parse()?, 1).fit(&x)?;
/// assert_eq!(m.solver_info().solver, "dense"); // one component, yet n is small enough
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const DENSE_AUTO_MAX_N: usize = 200;
/// [`EigenSolver::Auto`] uses the full dense eigendecomposition from `k ≥ n / DENSE_AUTO_SHARE`
/// components on: the crossover measured at n = 442 to 2,000 (one in 16 to one in 30).
///
/// ```
/// use kern_models::kpca::{KernelPcaParams, DENSE_AUTO_MAX_N, DENSE_AUTO_SHARE};
/// let n = DENSE_AUTO_MAX_N + 1;
/// let x = kern_models::Samples::from_flat((0..n).map(|i| (i as f64).sqrt()).collect(), n, 1)?;
/// let fit = |k| KernelPcaParams::new("gaussian:sigma=2".parse().unwrap(), k).fit(&x);
/// assert_eq!(fit(2)?.solver_info().solver, "krylov");
/// assert_eq!(fit(n.div_ceil(DENSE_AUTO_SHARE))?.solver_info().solver, "dense");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const DENSE_AUTO_SHARE: usize = 16;
/// Largest `n` for which a full dense eigendecomposition is attempted.
pub(crate) const DENSE_MAX_N: usize = 20_000;

/// Kernel PCA settings.
///
/// ```
/// use kern_models::kpca::{EigenSolver, KernelPcaParams};
/// use kern_models::Samples;
/// let x = Samples::from_rows(&[[0.0, 0.0], [1.0, 0.1], [2.0, -0.1], [3.0, 0.0], [4.0, 0.1]])?;
/// let p = KernelPcaParams::new("linear".parse()?, 1).solver(EigenSolver::Dense);
/// let m = p.fit(&x)?;
/// assert_eq!(m.solver_info().solver, "dense");
/// assert!(m.explained_variance_ratio()[0] > 0.99); // the points lie almost on a line
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct KernelPcaParams {
    /// The kernel.
    pub kernel: KernelSpec,
    /// Number of components `k` (`1 ≤ k < n`; `k = n` is allowed with the dense solver).
    pub components: usize,
    /// Dense or sparse Gram matrix ([`PathChoice::Auto`]: sparse for compact kernels of low density).
    pub path: PathChoice,
    /// Eigensolver.
    pub solver: EigenSolver,
    /// Krylov relative residual tolerance (default 1e-10).
    pub tol: f64,
    /// Krylov block size (default: `max(k, 8)`, at most 32).
    pub block: Option<usize>,
    /// Krylov basis size before a thick restart (default: `max(6(k + block), 96)`, at most `n`).
    pub basis: Option<usize>,
    /// Seed of the Krylov start block.
    pub seed: u64,
}

impl KernelPcaParams {
    /// `k` components with kernel `kernel` and default settings.
    pub fn new(kernel: KernelSpec, components: usize) -> Self {
        KernelPcaParams {
            kernel,
            components,
            path: PathChoice::Auto,
            solver: EigenSolver::Auto,
            tol: 1e-10,
            block: None,
            basis: None,
            seed: 0x4b50_4341,
        }
    }

    /// Sets the path.
    pub fn path(mut self, path: PathChoice) -> Self {
        self.path = path;
        self
    }

    /// Sets the eigensolver.
    pub fn solver(mut self, solver: EigenSolver) -> Self {
        self.solver = solver;
        self
    }

    /// Sets the Krylov tolerance.
    pub fn tol(mut self, tol: f64) -> Self {
        self.tol = tol;
        self
    }

    /// Sets the Krylov block size.
    pub fn block(mut self, block: usize) -> Self {
        self.block = Some(block);
        self
    }

    /// Sets the Krylov basis size.
    pub fn basis(mut self, basis: usize) -> Self {
        self.basis = Some(basis);
        self
    }

    /// Sets the seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Computes the Gram matrix on the chosen path, its top `k` centred eigenpairs, and the model.
    pub fn fit(&self, x: &Samples) -> Result<KernelPca> {
        self.check(x.n())?;
        self.kernel.check_samples(x)?;
        let path = choose_path(&self.kernel, x, self.path)?;
        if let (SolvePath::Sparse, Some(c), false) = (path, self.kernel.support_radius(), x.is_sparse()) {
            // Points near in space made near in index: the sparse products then read the block's rows
            // from cache instead of one cache miss per stored entry (half the time at n = 200,000).
            let perm = locality_order(x, c);
            let xp = x.select(&perm)?;
            let gram = build_gram(&self.kernel, &xp, path)?;
            let mut model = self.fit_gram(&xp, gram, path)?;
            drop(xp);
            model.unpermute(&perm, x);
            return Ok(model);
        }
        let gram = build_gram(&self.kernel, x, path)?;
        self.fit_gram(x, gram, path)
    }

    /// Kernel PCA of a kernel matrix the caller computed (scikit-learn's `kernel="precomputed"`): the
    /// same centring, eigensolvers and model as [`fit`](Self::fit); the parameters' kernel is not used.
    ///
    /// The model's training points are the unit vectors `e_1, …, e_n` under the linear kernel, so that
    /// [`KernelPca::transform`] reads kernel rows: row `r` of its input holds `k(z_r, x_j)` in column
    /// `j − 1` (the `m × n` matrix `K(Z, X)`), and `⟨row, e_j⟩` is that entry exactly.
    ///
    /// ```
    /// use kern_models::kpca::KernelPcaParams;
    /// use kern_models::svm::KernelMatrix;
    /// use kern_models::Samples;
    /// let x = Samples::from_rows(&[[0.0, 0.0], [1.0, 0.2], [2.0, -0.1], [3.5, 0.4], [4.0, 0.0]])?;
    /// let p = KernelPcaParams::new("gaussian:sigma=2".parse()?, 2);
    /// let k = KernelMatrix::new(kern_core::gram::gram(&p.kernel, &x)?)?;
    /// let pre = p.fit_precomputed(&k)?;
    /// let named = p.fit(&x)?;
    /// let (a, b) = (pre.transform(&Samples::from_faer(k.as_mat())?)?, named.transform(&x)?);
    /// for c in 0..2 {
    ///     assert!((pre.eigenvalues()[c] - named.eigenvalues()[c]).abs() <= 1e-12 * named.eigenvalues()[0]);
    ///     for i in 0..5 {
    ///         assert!((a[(i, c)] - b[(i, c)]).abs() <= 1e-10); // same projections, same signs
    ///     }
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_precomputed(&self, k: &KernelMatrix) -> Result<KernelPca> {
        let n = k.n();
        self.check(n)?;
        let units: Vec<(usize, usize, f64)> = (0..n).map(|i| (i, i, 1.0)).collect();
        let units = Samples::from_triplets(n, n, &units)?;
        let linear = KernelPcaParams { kernel: KernelSpec::Linear(Linear), ..self.clone() };
        linear.fit_gram(&units, GramMatrix::Dense(k.as_mat().to_owned()), SolvePath::Dense)
    }

    /// Checks the component count against `n` samples and the tolerance.
    fn check(&self, n: usize) -> Result<()> {
        let k = self.components;
        if k == 0 || k > n {
            return Err(ModelsError::Param {
                name: "components",
                value: k as f64,
                reason: "must be between 1 and the number of samples",
            });
        }
        if !(self.tol.is_finite() && self.tol > 0.0) {
            return Err(ModelsError::Param {
                name: "tol",
                value: self.tol,
                reason: "must be finite and > 0",
            });
        }
        Ok(())
    }

    /// [`fit`](Self::fit) on a Gram matrix already computed for `x` with this kernel.
    pub fn fit_gram(&self, x: &Samples, gram: GramMatrix, path: SolvePath) -> Result<KernelPca> {
        let n = x.n();
        let k = self.components;
        if gram.n() != n {
            return Err(ModelsError::Input(format!("Gram matrix is {0} x {0} for {n} samples", gram.n())));
        }
        let mut kopts = KrylovOptions::for_k(n, k);
        kopts.tol = self.tol;
        kopts.seed = self.seed;
        if let Some(b) = self.block {
            kopts.block = b.max(1).min(n);
            kopts.max_dim = (6 * (k + kopts.block)).max(96).min(n);
        }
        if let Some(m) = self.basis {
            kopts.max_dim = m.min(n);
        } else {
            kopts.max_dim = basis_that_fits(kopts.max_dim, n, k + 2 * kopts.block, &gram);
        }
        let dense = match self.solver {
            EigenSolver::Dense => true,
            EigenSolver::Krylov => false,
            EigenSolver::Auto => {
                n <= DENSE_AUTO_MAX_N || DENSE_AUTO_SHARE * k >= n || k + 2 * kopts.block > kopts.max_dim
            }
        };
        let trace_k = match &gram {
            GramMatrix::Dense(m) => (0..n).map(|i| m[(i, i)]).sum::<f64>(),
            GramMatrix::Sparse(m) => {
                // The diagonal entry of each column by binary search (rows are sorted), summed in
                // column order.
                let (cp, ri, vals) = m.csc_data();
                let diag: Vec<f64> = (0..n)
                    .into_par_iter()
                    .map(|j| ri[cp[j]..cp[j + 1]].binary_search(&j).map_or(0.0, |p| vals[cp[j] + p]))
                    .collect();
                diag.iter().sum()
            }
        };
        let centred = Centred::new(GramOp(&gram));
        let nf = n as f64;
        let k_mean: Vec<f64> = centred.k1().iter().map(|v| v / nf).collect();
        let grand_mean = centred.grand_sum() / (nf * nf);
        let total_variance = trace_k - centred.grand_sum() / nf;
        // Identical points (or a kernel constant on the data) have no variance in feature space:
        // `tr(K̃)` is then rounding, of the order of `n ε tr(K)` (the grand sum adds n² terms). It is
        // reported as 0, and so are the eigenvalues, the ratios and the projections — every point
        // sits at the mean — instead of 0/0 ratios and components fitted to rounding.
        let flat = total_variance.is_nan() || total_variance <= trace_k.abs() * nf * f64::EPSILON;
        let total_variance = if flat { 0.0 } else { total_variance };
        let (values, vectors, info) = if dense {
            if n > DENSE_MAX_N {
                return Err(ModelsError::Input(format!(
                    "a full dense eigendecomposition of {n} x {n} is refused above n = {DENSE_MAX_N}; use the Krylov solver"
                )));
            }
            let mut kc = match &gram {
                GramMatrix::Dense(m) => m.clone(),
                GramMatrix::Sparse(m) => {
                    let mut d = Mat::<f64>::zeros(n, n);
                    for (i, j, v) in m.triplet_iter() {
                        d[(i, j)] = *v;
                    }
                    d
                }
            };
            for j in 0..n {
                for i in 0..n {
                    kc[(i, j)] += grand_mean - k_mean[i] - k_mean[j];
                }
            }
            drop(gram);
            kern_core::memory::check_eigen(
                n,
                "the dense eigendecomposition of kernel PCA",
                "use the Krylov solver, fewer rows or landmark kernel PCA",
            )?;
            let evd = kc.self_adjoint_eigen(Side::Lower).map_err(|e| {
                ModelsError::Numerical(format!(
                    "dense eigendecomposition: {}",
                    kern_core::faer_errors::evd(e)
                ))
            })?;
            let s = evd.S().column_vector();
            let u = evd.U();
            let values: Vec<f64> = (0..k).map(|j| s[n - 1 - j]).collect();
            let vectors = Mat::from_fn(n, k, |i, j| u[(i, n - 1 - j)]);
            (values, vectors, SolverInfo { solver: "dense".into(), matvecs: 0, restarts: 0, residual: 0.0 })
        } else {
            let r = top_eigenpairs(&centred, k, &kopts)?;
            let info = SolverInfo {
                solver: "krylov".into(),
                matvecs: r.matvecs,
                restarts: r.restarts,
                residual: r.residual,
            };
            (r.values, r.vectors, info)
        };
        let values = if flat { vec![0.0; values.len()] } else { values };
        // α_k = u_k / √μ_k (eq. 48); components with μ_k ≤ n ε μ_1 get α_k = 0.
        let floor = values.first().copied().unwrap_or(0.0).max(0.0) * nf * f64::EPSILON;
        let mut alphas = vec![0.0; n * k];
        let mut zero_components = 0;
        for j in 0..k {
            if values[j] > floor && values[j] > 0.0 {
                let f = values[j].sqrt().recip();
                for i in 0..n {
                    alphas[j * n + i] = vectors[(i, j)] * f;
                }
            } else {
                zero_components += 1;
            }
        }
        let alpha_sum: Vec<f64> = (0..k).map(|j| alphas[j * n..(j + 1) * n].iter().sum()).collect();
        let alpha_kmean: Vec<f64> = (0..k)
            .map(|j| alphas[j * n..(j + 1) * n].iter().zip(&k_mean).map(|(a, m)| a * m).sum())
            .collect();
        crate::validate::trained(KernelPca {
            kernel: self.kernel.clone(),
            train: x.clone(),
            alphas,
            eigenvalues: values,
            total_variance,
            k_mean,
            grand_mean,
            alpha_sum,
            alpha_kmean,
            path,
            zero_components,
            info,
        })
    }
}

/// The default Krylov basis size, shrunk (never below `floor = k + 2·block`, the solver's minimum)
/// so that the basis and its image, `16·n·basis` bytes, take at most three quarters of the memory
/// left beside the Gram matrix: the memory budget ([`kern_core::memory::budget`]; a `--max-memory`
/// limit is a total, so the Gram matrix's bytes are subtracted from it). More restarts, same answer.
fn basis_that_fits(max_dim: usize, n: usize, floor: usize, gram: &GramMatrix) -> usize {
    let b = kern_core::memory::budget();
    let Some(bytes) = b.bytes else { return max_dim };
    let gram_bytes = match gram {
        GramMatrix::Dense(_) => 8 * (n as u64) * (n as u64),
        GramMatrix::Sparse(m) => 16 * m.nnz() as u64,
    };
    let room =
        if b.source == kern_core::memory::LIMIT_SOURCE { bytes.saturating_sub(gram_bytes) } else { bytes };
    let fits = (room / 4 * 3 / (16 * n.max(1) as u64)) as usize;
    max_dim.min(fits).max(floor.min(n))
}

/// An order of the (dense) samples in which points near in space are near in index: sorted by the
/// cell of width `c` of their first coordinate, then by their second coordinate (then by index).
/// Neighbours within `c` of a point then lie in its own or the adjacent cell columns, a window of
/// about `3 n c / extent` indices, instead of anywhere in `0..n`.
fn locality_order(x: &Samples, c: f64) -> Vec<usize> {
    let key = |i: usize| {
        let r = x.row(i);
        ((r[0] / c).floor(), r.get(1).copied().unwrap_or(0.0))
    };
    let mut keys: Vec<(f64, f64, usize)> = (0..x.n())
        .map(|i| {
            let (a, b) = key(i);
            (a, b, i)
        })
        .collect();
    keys.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
    keys.into_iter().map(|k| k.2).collect()
}

/// How the eigenpairs were computed.
///
/// ```
/// use kern_models::kpca::{EigenSolver, KernelPcaParams};
/// let x = kern_models::Samples::from_rows(&[[0.0], [1.0], [3.0], [6.0]])?;
/// let m = KernelPcaParams::new("gaussian:sigma=2".parse()?, 2).solver(EigenSolver::Dense).fit(&x)?;
/// let info = m.solver_info();
/// assert_eq!((info.solver.as_str(), info.restarts, info.residual), ("dense", 0, 0.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SolverInfo {
    /// `"dense"` or `"krylov"`.
    pub solver: String,
    /// Operator applications (vectors) of the Krylov solver.
    pub matvecs: usize,
    /// Thick restarts of the Krylov solver.
    pub restarts: usize,
    /// Largest relative residual `‖K̃v − μv‖ / μ_1` at exit (0 for the dense solver).
    pub residual: f64,
}

/// A trained kernel PCA: coefficients, eigenvalues and what is needed to centre new points.
///
/// ```
/// use kern_models::kpca::{KernelPca, KernelPcaParams};
/// use kern_models::persist::{from_bytes, to_bytes};
/// use kern_models::Samples;
/// let x = Samples::from_rows(&[[0.0, 0.0], [1.0, 1.0], [2.0, 0.0], [3.0, 1.0], [4.0, 0.0]])?;
/// let m = KernelPcaParams::new("gaussian:sigma=2".parse()?, 2).fit(&x)?;
/// let t = m.transform(&x)?;
/// assert_eq!((t.nrows(), t.ncols()), (5, 2));
/// assert!((t[(0, 0)] - m.training_scores()[(0, 0)]).abs() < 1e-9); // training points map to their scores
/// let back: KernelPca = from_bytes(&to_bytes(&m)?, "<bytes>")?;
/// assert_eq!(back, m);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelPca {
    kernel: KernelSpec,
    train: Samples,
    /// `α` (`n × k`, column-major).
    alphas: Vec<f64>,
    eigenvalues: Vec<f64>,
    total_variance: f64,
    /// `K1/n`.
    k_mean: Vec<f64>,
    /// `1ᵀK1/n²`.
    grand_mean: f64,
    /// `1ᵀα_k`.
    alpha_sum: Vec<f64>,
    /// `α_kᵀ(K1/n)`.
    alpha_kmean: Vec<f64>,
    path: SolvePath,
    zero_components: usize,
    info: SolverInfo,
}

impl Persist for KernelPca {
    const KIND: &'static str = "kpca";
    fn validate(&self) -> std::result::Result<(), String> {
        use crate::validate as v;
        let (n, k) = (self.train.n(), self.eigenvalues.len());
        v::kernel(&self.kernel, self.train.d())?;
        v::len("alphas", self.alphas.len(), n.checked_mul(k).ok_or("alphas size overflows")?)?;
        v::len("k_mean", self.k_mean.len(), n)?;
        v::len("alpha_sum", self.alpha_sum.len(), k)?;
        v::len("alpha_kmean", self.alpha_kmean.len(), k)?;
        for (what, x) in [
            ("alphas", &self.alphas),
            ("eigenvalues", &self.eigenvalues),
            ("k_mean", &self.k_mean),
            ("alpha_sum", &self.alpha_sum),
            ("alpha_kmean", &self.alpha_kmean),
        ] {
            v::finite(what, x)?;
        }
        v::finite("total variance, grand mean", &[self.total_variance, self.grand_mean])?;
        if self.zero_components > k {
            return Err(format!("{} zero components of {k}", self.zero_components));
        }
        Ok(())
    }
}

/// Test samples with features the training samples lack: zeros there, by LIBSVM's rule
/// ([`crate::widen`]); the centring statistics are sums over the training points, unchanged.
impl crate::widen::WidenFeatures for KernelPca {
    fn n_features(&self) -> usize {
        self.train.d()
    }
    fn widen_features(&mut self, d: usize) -> Result<()> {
        crate::widen::widen_store(&mut self.train, d)
    }
}

impl KernelPca {
    /// The model fitted on `x.select(perm)`, expressed on `x`: per-point vectors go back to the order
    /// of `x` (sums over the points are unchanged).
    fn unpermute(&mut self, perm: &[usize], x: &Samples) {
        let n = perm.len();
        let mut alphas = vec![0.0; self.alphas.len()];
        let mut k_mean = vec![0.0; n];
        for (i, &p) in perm.iter().enumerate() {
            k_mean[p] = self.k_mean[i];
            for j in 0..self.eigenvalues.len() {
                alphas[j * n + p] = self.alphas[j * n + i];
            }
        }
        self.alphas = alphas;
        self.k_mean = k_mean;
        self.train = x.clone();
    }

    /// Number of components `k`.
    pub fn components(&self) -> usize {
        self.eigenvalues.len()
    }

    /// The kernel.
    pub fn kernel(&self) -> &KernelSpec {
        &self.kernel
    }

    /// The training samples.
    pub fn training_samples(&self) -> &Samples {
        &self.train
    }

    /// Eigenvalues `μ_k` of the centred Gram matrix `K̃`, descending (eq. 47: `μ_k = nλ_k`).
    pub fn eigenvalues(&self) -> &[f64] {
        &self.eigenvalues
    }

    /// Variances along the components, `λ_k = μ_k / n` (eigenvalues of the feature-space covariance).
    pub fn explained_variance(&self) -> Vec<f64> {
        let n = self.train.n() as f64;
        self.eigenvalues.iter().map(|m| m / n).collect()
    }

    /// Fractions of the total feature-space variance, `μ_k / tr(K̃)`; all 0 when the data has no
    /// variance in feature space ([`KernelPca::total_variance`] 0: identical points, or a kernel
    /// constant on them), never `0/0`.
    ///
    /// ```
    /// use kern_models::{Samples, kpca::KernelPcaParams};
    /// let x = Samples::from_rows(&[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]])?;
    /// let m = KernelPcaParams::new("gaussian:sigma=1".parse()?, 2).fit(&x)?;
    /// assert_eq!((m.total_variance(), m.explained_variance_ratio()), (0.0, vec![0.0, 0.0]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn explained_variance_ratio(&self) -> Vec<f64> {
        let t = self.total_variance;
        self.eigenvalues.iter().map(|m| if t > 0.0 { m / t } else { 0.0 }).collect()
    }

    /// `tr(K̃)`, the total variance times `n` (0 when the data has no variance in feature space).
    pub fn total_variance(&self) -> f64 {
        self.total_variance
    }

    /// The coefficients `α` (`n × k`): column `k` gives `V_k = Σ_i α_ik Φ̃(x_i)`, with `μ_k α_k·α_k = 1`.
    pub fn alphas(&self) -> Mat<f64> {
        let n = self.train.n();
        Mat::from_fn(n, self.components(), |i, j| self.alphas[j * n + i])
    }

    /// The path the Gram matrix took.
    pub fn path(&self) -> SolvePath {
        self.path
    }

    /// Components whose eigenvalue was numerically zero (their `α` is 0, their projections 0).
    pub fn zero_components(&self) -> usize {
        self.zero_components
    }

    /// How the eigenpairs were computed.
    pub fn solver_info(&self) -> &SolverInfo {
        &self.info
    }

    /// Scores of the training points, `z_ik = μ_k α_ik` (`n × k`).
    pub fn training_scores(&self) -> Mat<f64> {
        let n = self.train.n();
        Mat::from_fn(n, self.components(), |i, j| self.eigenvalues[j] * self.alphas[j * n + i])
    }

    /// Projections of new points onto the components (`m × k`), with the test-kernel centring (module
    /// docs). Dense path: blocked cross Gram × coefficients; sparse path: only neighbours are visited.
    pub fn transform(&self, y: &Samples) -> Result<Mat<f64>> {
        let (n, k) = (self.train.n(), self.components());
        // Coefficients [α | 1/n]: one expansion gives α·k_x and mean(k_x).
        let coef = Mat::from_fn(n, k + 1, |i, j| if j < k { self.alphas[j * n + i] } else { 1.0 / n as f64 });
        let e = expand(&self.kernel, &self.train, coef.as_ref(), y, self.path)?;
        let z = Mat::from_fn(y.n(), k, |r, j| {
            e[(r, j)] - e[(r, k)] * self.alpha_sum[j] - self.alpha_kmean[j]
                + self.grand_mean * self.alpha_sum[j]
        });
        crate::finite_output::mat(z.as_ref(), "projections")?;
        Ok(z)
    }
}

#[cfg(test)]
mod tests;
