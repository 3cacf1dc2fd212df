//! Kernel function approximation (Baudat & Anouar, eqs. 9–10): samples projected on the feature vectors
//! selected by [`crate::fvs`], then linear least squares with a bias.
//!
//! - **Projection** ([`Projection`]): the dot-product projection of eq. 9, `z_i = Φ_Sᵀ φ_i = K_Si`; the
//!   orthogonal projection the paper mentions next to it, `z_i = (Φ_SᵀΦ_S)⁻¹ Φ_Sᵀ φ_i = K_SS⁻¹ K_Si`;
//!   and the coordinates of `φ_i`'s projection in an orthonormal basis of `span Φ_S`,
//!   `z_i = L⁻¹ K_Si` with `K_SS = L Lᵀ` (the best conditioned of the three, an isometry of the
//!   projected data, used by the subspace methods of [`crate::fvs_subspace`]). The three are invertible
//!   linear maps of one another, so with the bias column they give the same least-squares fit in exact
//!   arithmetic; they differ in conditioning.
//! - **Least squares** (eq. 10, `A = (Z_TᵀZ_T)⁻¹ Z_Tᵀ Y_T`, the paper's pseudo-inverse): `[Z, 1]` with
//!   columns scaled to unit norm is factored by column-pivoted QR; columns whose pivot falls below
//!   `rank_tol · |R_00|` are dropped (coefficient 0: the basic solution of a rank-deficient problem),
//!   and the rest solved by Householder QR — never the normal equations.
//! - **Targets**: one output `±1` for two classes (the decision is its sign), one-hot outputs for `N`
//!   classes (the decision is the argmax, §3), the value for regression.
//! - **Layers**: [`KfaParams::then`] repeats the FVS step on the outputs of the previous layer, the
//!   paper's multi-layer network with more than one hidden layer (§4).
//! - **Basis**: [`BasisChoice::Fvs`], or [`BasisChoice::Random`] — the Nyström choice of random points
//!   (kept in a random order, skipping points already in the span), for the FVS-versus-random comparison.
//!
//! ```
//! use kern_core::{learner::{Fit, Model}, Polynomial, Samples, BinaryTargets, Targets};
//! use kern_models::kfa::KfaParams;
//! // Two circles of radius 1 and 0.5 (§5.1), separated by a plane in the feature space of (x·y)².
//! let mut rows = Vec::new();
//! let mut labels = Vec::new();
//! for t in 0..40 {
//!     let a = t as f64 * 0.157;
//!     let r = if t % 2 == 0 { 1.0 } else { 0.5 };
//!     rows.push([r * a.cos(), r * a.sin()]);
//!     labels.push(if t % 2 == 0 { 1.0 } else { -1.0 });
//! }
//! let x = Samples::from_rows(&rows)?;
//! let y = Targets::Binary(BinaryTargets::from_f64(&labels)?);
//! let m = KfaParams::new(Polynomial::new(2, 0.0)?).fit(&x, &y)?;
//! assert_eq!(m.n_fv(), vec![3]);
//! assert_eq!(m.predict(&x)?, labels);
//! # Ok::<(), kern_models::ModelsError>(())
//! ```

use crate::error::{ModelsError, Result};
use crate::fvs::{self, FvsParams};
use faer::linalg::solvers::SolveLstsq;
use faer::{Mat, MatRef};
use kern_core::learner::{Fit, Model};
use kern_core::{BinaryTargets, ClassTargets, Kernel, KernelSpec, RealTargets, Samples, Targets};
use kern_sparse::kmatrix::cross_gram;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How a sample is mapped on the selected vectors.
///
/// ```
/// use kern_models::kfa::Projection;
/// assert_eq!("orthogonal".parse::<Projection>()?, Projection::Orthogonal);
/// assert_eq!(Projection::default(), Projection::Dot);
/// assert!("sideways".parse::<Projection>().is_err());
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Projection {
    /// `z = K_S,x` (eq. 9).
    #[default]
    Dot,
    /// `z = K_SS⁻¹ K_S,x` (the orthogonal projection's coefficients, §3).
    Orthogonal,
    /// `z = L⁻¹ K_S,x` with `K_SS = L Lᵀ`: coordinates in an orthonormal basis of `span Φ_S`.
    Coordinates,
}

impl std::str::FromStr for Projection {
    type Err = ModelsError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "dot" => Ok(Projection::Dot),
            "orthogonal" => Ok(Projection::Orthogonal),
            "coordinates" => Ok(Projection::Coordinates),
            _ => Err(ModelsError::Input(format!(
                "unknown projection {s:?}; valid: dot, orthogonal, coordinates"
            ))),
        }
    }
}

/// How the basis of a layer is chosen.
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_models::kfa::{BasisChoice, FvsLayer, Projection};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0], [4.0]])?;
/// let random = BasisChoice::Random { size: 3, seed: 7 };
/// let layer = FvsLayer::fit(Gaussian::with_sigma(1.0)?, &random, Projection::Dot, &x)?;
/// assert_eq!(layer.n_fv(), 3);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum BasisChoice {
    /// Feature vector selection.
    Fvs(FvsParams),
    /// `size` random samples (independent in feature space), drawn with `seed`.
    Random {
        /// Number of basis points.
        size: usize,
        /// Seed of the draw.
        seed: u64,
    },
}

/// One hidden layer: kernel, basis choice, projection.
///
/// ```
/// use kern_core::Gaussian;
/// use kern_models::{fvs::FvsParams, kfa::{BasisChoice, KfaParams, Projection}};
/// let p = KfaParams::new(Gaussian::with_sigma(1.0)?)
///     .then(Gaussian::with_sigma(2.0)?, BasisChoice::Fvs(FvsParams::with_max(5)));
/// assert_eq!(p.layers.len(), 2);
/// assert_eq!(p.layers[1].basis, BasisChoice::Fvs(FvsParams::with_max(5)));
/// assert_eq!(p.layers[1].projection, Projection::Dot);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct LayerParams<K> {
    /// The kernel of the layer.
    pub kernel: K,
    /// How its basis is chosen.
    pub basis: BasisChoice,
    /// How samples are projected.
    pub projection: Projection,
}

/// Parameters of kernel function approximation (see the module documentation).
///
/// ```
/// use kern_core::Gaussian;
/// use kern_models::{fvs::FvsParams, kfa::{BasisChoice, KfaParams, Projection}};
/// let p = KfaParams::new(Gaussian::with_sigma(1.0)?)
///     .basis(BasisChoice::Fvs(FvsParams::with_max(20)))
///     .projection(Projection::Orthogonal);
/// assert_eq!(p.layers.len(), 1);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct KfaParams<K> {
    /// The hidden layers, input first (at least one).
    pub layers: Vec<LayerParams<K>>,
    /// Relative pivot threshold of the rank check of the least-squares solve (default `1e-10`).
    pub rank_tol: f64,
}

impl<K: Kernel + Clone> KfaParams<K> {
    /// One layer with `kernel`, FVS with default parameters and the dot-product projection.
    pub fn new(kernel: K) -> Self {
        KfaParams {
            layers: vec![LayerParams {
                kernel,
                basis: BasisChoice::Fvs(FvsParams::default()),
                projection: Projection::Dot,
            }],
            rank_tol: 1e-10,
        }
    }

    /// Sets the basis choice of the last layer.
    pub fn basis(mut self, b: BasisChoice) -> Self {
        self.layers.last_mut().expect("at least one layer").basis = b;
        self
    }

    /// Sets the projection of the last layer.
    pub fn projection(mut self, p: Projection) -> Self {
        self.layers.last_mut().expect("at least one layer").projection = p;
        self
    }

    /// Adds a hidden layer: FVS with `basis` on the previous layer's outputs, with `kernel`
    /// (the chained FVS of §4).
    ///
    /// ```
    /// use kern_core::Gaussian;
    /// use kern_models::{fvs::FvsParams, kfa::{BasisChoice, KfaParams}};
    /// let p = KfaParams::new(Gaussian::with_sigma(1.0)?)
    ///     .then(Gaussian::with_sigma(2.0)?, BasisChoice::Fvs(FvsParams::with_max(5)));
    /// assert_eq!(p.layers.len(), 2);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn then(mut self, kernel: K, basis: BasisChoice) -> Self {
        self.layers.push(LayerParams { kernel, basis, projection: Projection::Dot });
        self
    }

    fn check(&self) -> Result<()> {
        if self.layers.is_empty() {
            return Err(ModelsError::Input("kernel function approximation needs a layer".into()));
        }
        if !(self.rank_tol > 0.0 && self.rank_tol < 1.0) {
            return Err(ModelsError::Param {
                name: "rank_tol",
                value: self.rank_tol,
                reason: "must be in (0, 1)",
            });
        }
        for l in &self.layers {
            match &l.basis {
                BasisChoice::Fvs(p) => p.check()?,
                BasisChoice::Random { size: 0, .. } => {
                    return Err(ModelsError::Param {
                        name: "size",
                        value: 0.0,
                        reason: "must be at least 1",
                    });
                }
                BasisChoice::Random { .. } => {}
            }
        }
        Ok(())
    }
}

/// A trained hidden layer: the selected vectors, the Cholesky factor of their Gram matrix and the
/// projection.
///
/// ```
/// use kern_core::{Gaussian, Kernel, Samples};
/// use kern_models::{fvs::FvsParams, kfa::{BasisChoice, FvsLayer, Projection}};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
/// let k = Gaussian::with_sigma(1.0)?;
/// let layer = FvsLayer::fit(k.clone(), &BasisChoice::Fvs(FvsParams::with_max(2)), Projection::Dot, &x)?;
/// assert_eq!((layer.n_fv(), layer.selected().len(), layer.fitness().len()), (2, 2, 2));
/// let z = layer.transform(&x)?; // z = K_S,x
/// let s = layer.selected()[0];
/// assert!((z[(3, 0)] - k.eval(x.row(3), x.row(s))).abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FvsLayer<K> {
    kernel: K,
    basis: Samples,
    projection: Projection,
    /// Lower Cholesky factor of `K_SS`, row-major `L × L`.
    cholesky: Vec<f64>,
    selected: Vec<usize>,
    fitness: Vec<f64>,
}

/// A feature vector selection feature map stored on its own (the Python package's `FVS` transformer):
/// kind `fvs`.
impl crate::persist::Persist for FvsLayer<KernelSpec> {
    const KIND: &'static str = "fvs";
    fn validate(&self) -> std::result::Result<(), String> {
        self.consistency("feature map ")
    }
}

impl<K: Kernel> FvsLayer<K> {
    /// Lengths consistent, kernel fit for the basis dimension, numbers finite; `what` prefixes the
    /// messages (`"layer 2 "`).
    fn consistency(&self, what: &str) -> std::result::Result<(), String> {
        use crate::validate as v;
        let big_l = self.selected.len();
        if big_l == 0 {
            return Err(format!("{what}has no feature vector"));
        }
        v::len(&format!("{what}basis"), self.basis.n(), big_l)?;
        self.kernel.check_dim(self.basis.d()).map_err(|e| format!("{what}kernel: {e}"))?;
        v::len(&format!("{what}cholesky"), self.cholesky.len(), big_l.checked_mul(big_l).ok_or("overflow")?)?;
        v::finite(&format!("{what}cholesky"), &self.cholesky)?;
        v::finite(&format!("{what}fitness"), &self.fitness)
    }
}

impl<K: Kernel + Clone> FvsLayer<K> {
    /// Selects the basis on `x` and keeps what the projection needs.
    ///
    /// ```
    /// use kern_core::{Gaussian, Samples};
    /// use kern_models::{fvs::FvsParams, kfa::{BasisChoice, FvsLayer, Projection}};
    /// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
    /// let l = FvsLayer::fit(Gaussian::with_sigma(1.0)?, &BasisChoice::Fvs(FvsParams::with_max(2)), Projection::Dot, &x)?;
    /// assert_eq!(l.transform(&x)?.ncols(), 2);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn fit(kernel: K, basis: &BasisChoice, projection: Projection, x: &Samples) -> Result<Self> {
        let sel = match basis {
            BasisChoice::Fvs(p) => fvs::select(&kernel, x, p)?,
            BasisChoice::Random { size, seed } => {
                let order = fvs::random_indices(x.n(), x.n(), *seed);
                fvs::from_order(&kernel, x, &order, *size, FvsParams::default().singular_tol)?
            }
        };
        if sel.selected.is_empty() {
            return Err(ModelsError::Numerical(
                "no feature vector could be selected (k(x, x) = 0 everywhere)".into(),
            ));
        }
        Ok(FvsLayer {
            basis: x.select(&sel.selected)?,
            kernel,
            projection,
            cholesky: sel.cholesky,
            selected: sel.selected,
            fitness: sel.fitness,
        })
    }

    /// Number of selected vectors `L`.
    pub fn n_fv(&self) -> usize {
        self.selected.len()
    }

    /// Indices of the selected vectors among the layer's training inputs.
    pub fn selected(&self) -> &[usize] {
        &self.selected
    }

    /// The fitness (eq. 7) after each selection step.
    pub fn fitness(&self) -> &[f64] {
        &self.fitness
    }

    /// The layer's kernel.
    pub fn kernel(&self) -> &K {
        &self.kernel
    }

    /// The selected vectors.
    pub fn basis(&self) -> &Samples {
        &self.basis
    }

    /// The projections `z` of every row of `x` (`n × L`).
    pub fn transform(&self, x: &Samples) -> Result<Mat<f64>> {
        let mut z = cross_gram(&self.kernel, x, &self.basis)?;
        let l = self.n_fv();
        let c = &self.cholesky;
        let proj = self.projection;
        if proj == Projection::Dot {
            crate::finite_output::mat(z.as_ref(), "projections")?;
            return Ok(z);
        }
        let n = x.n();
        let rows: Vec<Vec<f64>> = (0..n)
            .into_par_iter()
            .map(|i| {
                let mut v: Vec<f64> = (0..l).map(|j| z[(i, j)]).collect();
                // Forward substitution: L w = k.
                for a in 0..l {
                    let mut s = v[a];
                    for b in 0..a {
                        s -= c[a * l + b] * v[b];
                    }
                    v[a] = s / c[a * l + a];
                }
                if proj == Projection::Orthogonal {
                    // Back substitution: Lᵀ u = w.
                    for a in (0..l).rev() {
                        let mut s = v[a];
                        for b in a + 1..l {
                            s -= c[b * l + a] * v[b];
                        }
                        v[a] = s / c[a * l + a];
                    }
                }
                v
            })
            .collect();
        for (i, r) in rows.iter().enumerate() {
            for (j, &v) in r.iter().enumerate() {
                z[(i, j)] = v;
            }
        }
        crate::finite_output::mat(z.as_ref(), "projections")?;
        Ok(z)
    }
}

/// A least-squares linear map with a bias, `ŷ = zᵀA + β` (eq. 10).
///
/// ```
/// use faer::Mat;
/// use kern_models::kfa::LinearReadout;
/// let z = Mat::from_fn(5, 1, |i, _| i as f64);
/// let y = Mat::from_fn(5, 2, |i, t| if t == 0 { 2.0 * i as f64 - 1.0 } else { 4.0 }); // two outputs
/// let r = LinearReadout::fit(z.as_ref(), y.as_ref(), 1e-10)?;
/// assert_eq!(r.outputs(), 2);
/// let out = r.apply(&[10.0]);
/// assert!((out[0] - 19.0).abs() < 1e-10 && (out[1] - 4.0).abs() < 1e-10); // exact line, constant
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinearReadout {
    /// Coefficients, row-major `(p + 1) × q`; the last row is the bias `β`.
    coef: Vec<f64>,
    p: usize,
    q: usize,
    rank: usize,
}

impl LinearReadout {
    /// Least squares of `y` (`n × q`) on `[z, 1]` with a rank check (see the module documentation).
    ///
    /// ```
    /// use faer::Mat;
    /// let z = Mat::from_fn(4, 2, |i, j| (i * (j + 1)) as f64);   // column 1 = 2 × column 0
    /// let y = Mat::from_fn(4, 1, |i, _| 3.0 * i as f64 + 1.0);
    /// let r = kern_models::kfa::LinearReadout::fit(z.as_ref(), y.as_ref(), 1e-10)?;
    /// assert_eq!(r.rank(), 2);
    /// assert!((r.apply(&[2.0, 4.0])[0] - 7.0).abs() < 1e-10);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn fit(z: MatRef<'_, f64>, y: MatRef<'_, f64>, rank_tol: f64) -> Result<Self> {
        let (n, p, q) = (z.nrows(), z.ncols(), y.ncols());
        if y.nrows() != n {
            return Err(ModelsError::Input(format!("{} targets for {n} samples", y.nrows())));
        }
        let a = Mat::from_fn(n, p + 1, |i, j| if j < p { z[(i, j)] } else { 1.0 });
        let norms: Vec<f64> =
            (0..=p).map(|j| (0..n).map(|i| a[(i, j)] * a[(i, j)]).sum::<f64>().sqrt()).collect();
        let scaled = Mat::from_fn(n, p + 1, |i, j| if norms[j] > 0.0 { a[(i, j)] / norms[j] } else { 0.0 });
        let qr = scaled.col_piv_qr();
        let r = qr.R();
        let m = n.min(p + 1);
        let r0 = r[(0, 0)].abs();
        let rank = (0..m).take_while(|&k| r[(k, k)].abs() > rank_tol * r0 && r0 > 0.0).count();
        if rank == 0 {
            return Err(ModelsError::Numerical("the projected data have rank 0".into()));
        }
        let perm = qr.P();
        let fwd = perm.arrays().0;
        let cols: Vec<usize> = fwd[..rank].to_vec();
        let ar = Mat::from_fn(n, rank, |i, j| scaled[(i, cols[j])]);
        let sol = ar.qr().solve_lstsq(y);
        let mut coef = vec![0.0; (p + 1) * q];
        for (t, &j) in cols.iter().enumerate() {
            for o in 0..q {
                coef[j * q + o] = sol[(t, o)] / norms[j];
            }
        }
        if coef.iter().any(|v| !v.is_finite()) {
            return Err(ModelsError::Numerical("least-squares solution is not finite".into()));
        }
        Ok(LinearReadout { coef, p, q, rank })
    }

    /// The numerical rank of `[Z, 1]` kept by the solve.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Number of outputs.
    pub fn outputs(&self) -> usize {
        self.q
    }

    /// `zᵀA + β` for one projected sample.
    pub fn apply(&self, z: &[f64]) -> Vec<f64> {
        let q = self.q;
        let mut out = self.coef[self.p * q..].to_vec();
        for (j, &zj) in z.iter().enumerate().take(self.p) {
            for (o, v) in out.iter_mut().enumerate() {
                *v += zj * self.coef[j * q + o];
            }
        }
        out
    }
}

/// Kernel function approximation along nested bases: for every `l` in `sizes`, the outputs on `x_eval`
/// of the one-layer model fitted (eq. 10, least squares with a bias) on the first `l` vectors of `sel`.
///
/// A greedy selection ([`fvs::select`], or [`fvs::from_order`] for random points) is nested — its first
/// `l` vectors are what a run with `max_fv = l` selects — and so are the coordinates `z = L⁻¹ K_S,x`
/// ([`Projection::Coordinates`]): their leading `l` entries depend on the first `l` vectors only (the
/// leading block of a Cholesky factor is the factor of the leading block). One selection and one
/// projection therefore give the whole accuracy-against-basis-size curve, each point costing one
/// least-squares solve instead of a new selection. The three projections give the same fit in exact
/// arithmetic, so each point equals [`KfaParams`] with `FvsParams { max_fv: Some(l), .. }` and the
/// same selection strategy (up to rounding). `y` holds one column per output (`±1` for two classes,
/// one-hot for several, values for regression); the readout's rank tolerance is the default `1e-10`.
///
/// ```
/// use faer::Mat;
/// use kern_core::{Gaussian, Samples};
/// use kern_models::{fvs::{self, FvsParams}, kfa::basis_path};
/// let x = Samples::from_flat((0..30).map(|i| i as f64 / 10.0).collect(), 30, 1)?;
/// let y = Mat::from_fn(30, 1, |i, _| (i as f64 / 10.0).sin());
/// let k = Gaussian::with_sigma(1.0)?;
/// let sel = fvs::select(&k, &x, &FvsParams::with_max(8))?;
/// let out = basis_path(&k, &x, y.as_ref(), &sel, &[2, 4, 8], &x)?;
/// let mse = |o: &Mat<f64>| (0..30).map(|i| (o[(i, 0)] - y[(i, 0)]).powi(2)).sum::<f64>() / 30.0;
/// assert!(mse(&out[2]) <= mse(&out[0]));   // nested least squares: more vectors, smaller training error
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub fn basis_path<K: Kernel>(
    kernel: &K,
    x: &Samples,
    y: MatRef<'_, f64>,
    sel: &fvs::Fvs,
    sizes: &[usize],
    x_eval: &Samples,
) -> Result<Vec<Mat<f64>>> {
    let lb = sel.selected.len();
    if y.nrows() != x.n() {
        return Err(ModelsError::Input(format!("{} targets for {} samples", y.nrows(), x.n())));
    }
    if sel.cholesky.len() != lb * lb || sel.selected.iter().any(|&i| i >= x.n()) {
        return Err(ModelsError::Input("the selection does not belong to these samples".into()));
    }
    if let Some(&l) = sizes.iter().find(|&&l| l == 0 || l > lb) {
        return Err(ModelsError::Param {
            name: "size",
            value: l as f64,
            reason: "must be between 1 and the number of selected vectors",
        });
    }
    let basis = x.select(&sel.selected)?;
    let c = &sel.cholesky;
    let coords = |s: &Samples| -> Result<Mat<f64>> {
        let k = cross_gram(kernel, s, &basis)?;
        let rows: Vec<Vec<f64>> = (0..s.n())
            .into_par_iter()
            .map(|i| {
                // Forward substitution: L w = k.
                let mut w: Vec<f64> = (0..lb).map(|j| k[(i, j)]).collect();
                for a in 0..lb {
                    let mut t = w[a];
                    for b in 0..a {
                        t -= c[a * lb + b] * w[b];
                    }
                    w[a] = t / c[a * lb + a];
                }
                w
            })
            .collect();
        Ok(Mat::from_fn(s.n(), lb, |i, j| rows[i][j]))
    };
    let (z, ze) = (coords(x)?, coords(x_eval)?);
    sizes
        .iter()
        .map(|&l| {
            let zl = Mat::from_fn(z.nrows(), l, |i, j| z[(i, j)]);
            let ro = LinearReadout::fit(zl.as_ref(), y, 1e-10)?;
            let rows: Vec<Vec<f64>> = (0..ze.nrows())
                .into_par_iter()
                .map(|i| ro.apply(&(0..l).map(|j| ze[(i, j)]).collect::<Vec<_>>()))
                .collect();
            Ok(Mat::from_fn(ze.nrows(), y.ncols(), |i, o| rows[i][o]))
        })
        .collect()
}

/// What a model predicts.
///
/// ```
/// use kern_core::{BinaryTargets, Gaussian, Samples, learner::Fit};
/// use kern_models::kfa::{KfaParams, Task};
/// let x = Samples::from_rows(&[[0.0], [0.5], [3.0], [3.5]])?;
/// let y = BinaryTargets::from_labels(&["a", "a", "b", "b"])?;
/// let m = KfaParams::new(Gaussian::with_sigma(1.0)?).fit(&x, &y)?;
/// assert_eq!(m.task(), &Task::Binary { names: ["a".to_string(), "b".to_string()] });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Task {
    /// Two classes, one `±1` output; `names[0]` is −1.
    Binary {
        /// Class names.
        names: [String; 2],
    },
    /// `N` classes, one-hot outputs, argmax decision.
    Classes {
        /// Class names.
        names: Vec<String>,
    },
    /// Regression.
    Real,
}

/// A trained kernel-function-approximation model.
///
/// ```
/// use kern_core::{Gaussian, RealTargets, Samples, learner::{Fit, Model}};
/// use kern_models::{fvs::FvsParams, kfa::{BasisChoice, KfaParams}};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])?;
/// let y = RealTargets::new(vec![0.0, 1.0, 4.0, 9.0, 16.0, 25.0])?;
/// let p = KfaParams::new(Gaussian::with_sigma(1.0)?).basis(BasisChoice::Fvs(FvsParams::with_max(6)));
/// let m = p.fit(&x, &y)?;
/// assert_eq!(m.n_fv(), vec![6]);
/// for (p, t) in m.predict(&x)?.iter().zip([0.0, 1.0, 4.0, 9.0, 16.0, 25.0]) {
///     assert!((p - t).abs() < 1e-3); // a full basis interpolates the training targets
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KfaModel<K> {
    layers: Vec<FvsLayer<K>>,
    readout: LinearReadout,
    task: Task,
}

impl crate::persist::Persist for KfaModel<KernelSpec> {
    const KIND: &'static str = "kfa";
    fn validate(&self) -> std::result::Result<(), String> {
        self.consistency()
    }
}

impl<K: Kernel + Clone> KfaModel<K> {
    /// Lengths consistent, dimensions chained, numbers finite (checked after training and decoding).
    fn consistency(&self) -> std::result::Result<(), String> {
        use crate::validate as v;
        let mut dim = None;
        if self.layers.is_empty() {
            return Err("no layer".into());
        }
        for (i, l) in self.layers.iter().enumerate() {
            if let Some(d) = dim {
                v::len(&format!("layer {i} basis dimension"), l.basis.d(), d)?;
            }
            l.consistency(&format!("layer {i} "))?;
            dim = Some(l.selected.len());
        }
        let r = &self.readout;
        v::len("readout inputs", r.p, dim.unwrap_or(0))?;
        let q = match &self.task {
            Task::Binary { names } => {
                v::names(names)?;
                1
            }
            Task::Classes { names } => {
                v::names(names)?;
                names.len()
            }
            Task::Real => 1,
        };
        v::len("readout outputs", r.q, q)?;
        let size = r.p.checked_add(1).and_then(|p1| p1.checked_mul(r.q)).ok_or("readout size overflows")?;
        v::len("readout coef", r.coef.len(), size)?;
        v::finite("readout coef", &r.coef)
    }

    /// Feature vectors per layer.
    pub fn n_fv(&self) -> Vec<usize> {
        self.layers.iter().map(|l| l.n_fv()).collect()
    }

    /// The hidden layers.
    pub fn layers(&self) -> &[FvsLayer<K>] {
        &self.layers
    }

    /// The least-squares output layer.
    pub fn readout(&self) -> &LinearReadout {
        &self.readout
    }

    /// The task.
    pub fn task(&self) -> &Task {
        &self.task
    }

    fn hidden(&self, x: &Samples) -> Result<Mat<f64>> {
        let mut cur = self.layers[0].transform(x)?;
        for l in &self.layers[1..] {
            let s = Samples::from_faer(cur.as_ref())?;
            cur = l.transform(&s)?;
        }
        Ok(cur)
    }

    /// The outputs `ŷ` (eq. 10) for every row of `x`: `n × q` (one column for binary and regression,
    /// one per class otherwise).
    pub fn outputs(&self, x: &Samples) -> Result<Mat<f64>> {
        let z = self.hidden(x)?;
        let q = self.readout.outputs();
        let rows: Vec<Vec<f64>> = (0..z.nrows())
            .into_par_iter()
            .map(|i| self.readout.apply(&(0..z.ncols()).map(|j| z[(i, j)]).collect::<Vec<_>>()))
            .collect();
        crate::finite_output::rows(&rows, "outputs")?;
        Ok(Mat::from_fn(z.nrows(), q, |i, o| rows[i][o]))
    }
}

impl<K: Kernel + Clone> Model for KfaModel<K> {
    type Error = ModelsError;

    fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        let out = self.outputs(x)?;
        Ok((0..out.nrows())
            .map(|i| match &self.task {
                Task::Binary { .. } => {
                    if out[(i, 0)] > 0.0 {
                        1.0
                    } else {
                        -1.0
                    }
                }
                Task::Classes { .. } => {
                    let mut best = 0;
                    for c in 1..out.ncols() {
                        if out[(i, c)] > out[(i, best)] {
                            best = c;
                        }
                    }
                    best as f64
                }
                Task::Real => out[(i, 0)],
            })
            .collect())
    }
}

impl<K: Kernel + Clone> KfaParams<K> {
    fn fit_matrix(&self, x: &Samples, y: Mat<f64>, task: Task) -> Result<KfaModel<K>> {
        self.check()?;
        if y.nrows() != x.n() {
            return Err(ModelsError::Input(format!("{} targets for {} samples", y.nrows(), x.n())));
        }
        let mut layers = Vec::with_capacity(self.layers.len());
        let mut cur: Option<Samples> = None;
        let mut z = Mat::<f64>::zeros(0, 0);
        for lp in &self.layers {
            let input = cur.as_ref().unwrap_or(x);
            let layer = FvsLayer::fit(lp.kernel.clone(), &lp.basis, lp.projection, input)?;
            z = layer.transform(input)?;
            layers.push(layer);
            cur = Some(Samples::from_faer(z.as_ref())?);
        }
        let readout = LinearReadout::fit(z.as_ref(), y.as_ref(), self.rank_tol)?;
        let m = KfaModel { layers, readout, task };
        crate::validate::numerical("kfa", m.consistency())?;
        Ok(m)
    }
}

impl<K: Kernel + Clone> Fit<BinaryTargets> for KfaParams<K> {
    type Model = KfaModel<K>;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &BinaryTargets) -> Result<KfaModel<K>> {
        let yy = y.y();
        self.fit_matrix(x, Mat::from_fn(yy.len(), 1, |i, _| yy[i]), Task::Binary { names: y.names().clone() })
    }
}

impl<K: Kernel + Clone> Fit<ClassTargets> for KfaParams<K> {
    type Model = KfaModel<K>;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &ClassTargets) -> Result<KfaModel<K>> {
        let c = y.classes();
        let y1 = Mat::from_fn(c.len(), y.n_classes(), |i, k| if c[i] == k { 1.0 } else { 0.0 });
        self.fit_matrix(x, y1, Task::Classes { names: y.names().to_vec() })
    }
}

impl<K: Kernel + Clone> Fit<RealTargets> for KfaParams<K> {
    type Model = KfaModel<K>;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &RealTargets) -> Result<KfaModel<K>> {
        let v = y.values();
        self.fit_matrix(x, Mat::from_fn(v.len(), 1, |i, _| v[i]), Task::Real)
    }
}

impl<K: Kernel + Clone> Fit<Targets> for KfaParams<K> {
    type Model = KfaModel<K>;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &Targets) -> Result<KfaModel<K>> {
        match y {
            Targets::Binary(t) => self.fit(x, t),
            Targets::Classes(t) => self.fit(x, t),
            Targets::Real(t) => self.fit(x, t),
        }
    }
}
