//! The railway kernel (González & Muñoz, "Locally linear approximation for kernel methods: the railway
//! kernel", 2008) and the location of its areas from labelled data ([`areas`]).
//!
//! Each area `A_i` is a ball (centre `c_i`, radius `r_i`) with the smooth indicator `λ_i` of eq. 3
//! ([`kern_core::Indicator`]) and a local kernel `K_i` (linear by default, any kernel allowed). With
//! `H_i(x, y) = λ_i(x) λ_i(y)` the kernel of two disjoint areas is eq. 4,
//! `K_R = H_1 K_1 + H_2 K_2`, and eq. 6 asks that points in an intersection get the average of the
//! local kernels, points in different zones 0.
//!
//! # Zones, and the formula used
//!
//! Eq. 7 writes the two-area case as `H_1ᶜ K_2 + H_2ᶜ K_1 + H_1 H_2 ½(K_1 + K_2)` with
//! `H_iᶜ(x, y) = (1 − λ_i(x))(1 − λ_i(y))`, and §3.5 says that the intersections "can be considered as new
//! independent zones". The generalisation of eq. 7 to `p` areas that we compute
//! ([`Combination::Zones`], the default) gives every non-empty set `Z` of areas the zone indicator
//! `μ_Z(x) = Π_{i∈Z} λ_i(x) Π_{j∉Z} (1 − λ_j(x))` and the average of its local kernels:
//!
//! ```text
//! K_R(x, y) = Σ_{Z ≠ ∅} μ_Z(x) μ_Z(y) · (1/|Z|) Σ_{i∈Z} K_i(x, y)
//! ```
//!
//! - Every term is a product of a rank-one kernel `μ_Z(x)μ_Z(y)` and a PSD kernel, so `K_R` is PSD.
//! - Inside the areas (`λ = 1`) it is exactly eq. 6: `K_i` for two points of `A_i` only, `½(K_1+K_2)` in
//!   `A_1 ∩ A_2`, and the only cross-zone terms are products of indicator tails `λ_j(x)` of points
//!   outside `A_j`, which vanish as `γ` grows (or exactly with [`RailwayKernel::with_cutoff`]).
//! - For two areas and points in `A_1 ∪ A_2` it equals eq. 7 term by term (`μ_{1} = λ_1(1 − λ_2)` and
//!   `λ_1 = 1` or `λ_2 = 1` there); unlike eq. 7 it does not give points far from both areas the kernel
//!   `K_2` (eq. 7's `H_1ᶜ` is 1 there), it gives them 0.
//! - With disjoint areas it is eq. 4 / eq. 8 / eq. 14 (the cross terms vanish).
//!
//! The sum over `Z` is evaluated without enumerating subsets: with `a_j = λ_j(x)λ_j(y)` and
//! `b_j = (1 − λ_j(x))(1 − λ_j(y))`, a dynamic programme over the number of areas in `Z` costs `O(p²)`
//! per pair, and `O(p)` when all areas share one kernel, since then
//! `K_R = K(x, y) (Π_j (a_j + b_j) − Π_j b_j)`.
//!
//! The printed eq. 8, `Σ_i H_i K_i + ½ Σ_{i≠j} H_i H_j (K_i + K_j)`, is available as
//! [`Combination::Eq8`]; it is PSD too, but in an intersection it gives `2(K_1 + K_2)`, not the average
//! of eq. 6 — the reason it is not the default.
//!
//! ```
//! use kern_core::{Indicator, Kernel, KernelSpec};
//! use kern_models::railway::RailwayKernel;
//! let a1 = Indicator::new(vec![0.0, 0.0], 1.0, 50.0)?;
//! let a2 = Indicator::new(vec![1.5, 0.0], 1.0, 50.0)?;
//! let k = RailwayKernel::linear(vec![a1, a2])?;
//! let (x, y) = ([-0.5, 0.1], [-0.2, 0.3]);              // both in A1 only
//! assert!((k.eval(&x, &y) - (-0.5 * -0.2 + 0.1 * 0.3)).abs() < 1e-12);
//! let (u, v) = ([0.75, 0.1], [0.8, -0.1]);               // both in A1 ∩ A2: average of equal kernels
//! assert!((k.eval(&u, &v) - (0.75 * 0.8 - 0.01)).abs() < 1e-12);
//! # Ok::<(), kern_models::ModelsError>(())
//! ```

pub mod areas;
mod chi2;
mod explicit;
mod kmeans;

pub use areas::{AreaLocation, AreaParams, ClusterTest, GammaChoice, KTrial, LocatedArea, locate_areas};
pub use chi2::chi2_sf;
pub use explicit::{RailwaySvc, ZoneMap};
pub use kmeans::{KMeans, kmeans};

use crate::error::{ModelsError, Result};
use faer::Mat;
use kern_core::{Definiteness, Indicator, Kernel, KernelSpec, Linear, Samples};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How area kernels are combined where areas meet (see the module documentation).
///
/// ```
/// use kern_core::{Indicator, Kernel};
/// use kern_models::railway::{Combination, RailwayKernel};
/// let a = Indicator::new(vec![0.0], 1.0, 10.0)?;
/// let k = RailwayKernel::linear(vec![a.clone(), a])?;
/// assert_eq!(k.combination(), Combination::Zones);
/// assert_eq!(k.eval(&[0.5], &[0.5]), 0.25); // the average of the two (equal) local kernels
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Combination {
    /// Intersections are zones of their own with the average of the local kernels (eqs. 6–7).
    #[default]
    Zones,
    /// Eq. 8 as printed: `Σ_i H_i K_i + ½ Σ_{i≠j} H_i H_j (K_i + K_j)`.
    Eq8,
}

/// The local kernels: one shared by every area, or one per area.
///
/// ```
/// use kern_core::{Indicator, Kernel, KernelSpec};
/// use kern_models::railway::{Local, RailwayKernel};
/// let a = Indicator::new(vec![0.0], 1.0, 10.0)?;
/// let b = Indicator::new(vec![100.0], 1.0, 10.0)?;
/// let local = Local::PerArea(vec![KernelSpec::Linear(kern_core::Linear), "gaussian:sigma=1".parse()?]);
/// let k = RailwayKernel::new(vec![a, b], local)?;
/// assert_eq!(k.eval(&[0.5], &[0.5]), 0.25); // the linear kernel in area 0
/// assert_eq!(k.eval(&[100.0], &[100.0]), 1.0); // the Gaussian in area 1
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Local<K> {
    /// The same kernel in every area (the paper's `K_i(x, y) = xᵀy` is the default).
    Shared(K),
    /// `K_i` for area `i`.
    PerArea(Vec<K>),
}

/// The railway kernel over areas with local kernels `K` (see the module documentation).
///
/// ```
/// use kern_core::{Indicator, Samples};
/// use kern_models::railway::RailwayKernel;
/// let k = RailwayKernel::linear(vec![Indicator::new(vec![0.0], 1.0, 2.0)?, Indicator::new(vec![30.0], 1.0, 2.0)?])?;
/// let g = k.gram(&Samples::from_rows(&[[0.0], [0.5], [29.0], [30.5]])?)?;
/// for i in 0..4 {
///     for j in 0..4 {
///         assert_eq!(g[(i, j)], g[(j, i)]); // symmetric
///     }
/// }
/// assert_eq!(g[(1, 1)], 0.25); // ⟨0.5, 0.5⟩ inside area 0
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RailwayKernel<K = KernelSpec> {
    areas: Vec<Indicator>,
    local: Local<K>,
    combination: Combination,
    cutoff: f64,
}

/// Indicator values below this many entries are computed on the stack.
const STACK_AREAS: usize = 32;

impl RailwayKernel<KernelSpec> {
    /// Areas with the paper's linear local kernel.
    ///
    /// ```
    /// use kern_core::{Indicator, Kernel};
    /// let k = kern_models::railway::RailwayKernel::linear(vec![Indicator::new(vec![0.0], 1.0, 10.0)?])?;
    /// assert_eq!(k.eval(&[0.5], &[-0.5]), -0.25);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn linear(areas: Vec<Indicator>) -> Result<Self> {
        Self::new(areas, Local::Shared(KernelSpec::Linear(Linear)))
    }
}

impl<K: Kernel> RailwayKernel<K> {
    /// Areas (at least one, all centres of one dimension) with their local kernel(s).
    ///
    /// ```
    /// use kern_core::{Gaussian, Indicator};
    /// use kern_models::railway::{Local, RailwayKernel};
    /// let a = Indicator::new(vec![0.0, 0.0], 1.0, 4.0)?;
    /// let k = RailwayKernel::new(vec![a.clone(), a], Local::PerArea(vec![Gaussian::with_sigma(1.0)?]));
    /// assert!(k.is_err());   // one local kernel for two areas
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn new(areas: Vec<Indicator>, local: Local<K>) -> Result<Self> {
        let first =
            areas.first().ok_or_else(|| ModelsError::Input("a railway kernel needs an area".into()))?;
        let d = first.center().len();
        for a in &areas {
            a.check_dim(d)?;
        }
        if let Local::PerArea(ks) = &local {
            if ks.len() != areas.len() {
                return Err(ModelsError::Input(format!(
                    "{} local kernels for {} areas",
                    ks.len(),
                    areas.len()
                )));
            }
            for k in ks {
                k.check_dim(d)?;
            }
        }
        if let Local::Shared(k) = &local {
            k.check_dim(d)?;
        }
        Ok(RailwayKernel { areas, local, combination: Combination::Zones, cutoff: 0.0 })
    }

    /// Uses another [`Combination`].
    ///
    /// ```
    /// use kern_core::{Indicator, Kernel};
    /// use kern_models::railway::{Combination, RailwayKernel};
    /// let a = Indicator::new(vec![0.0], 1.0, 10.0)?;
    /// let k = RailwayKernel::linear(vec![a.clone(), a])?.with_combination(Combination::Eq8);
    /// assert_eq!(k.eval(&[0.5], &[0.5]), 4.0 * 0.25);  // 2(K1 + K2) in the intersection
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn with_combination(mut self, c: Combination) -> Self {
        self.combination = c;
        self
    }

    /// Sets indicator values below `cutoff` (in `[0, 1)`) to exactly 0, which makes the Gram matrix
    /// exactly block-diagonal between zones whose tails fall below it. Any function in place of `λ` keeps
    /// the kernel PSD. Default 0 (eq. 3 exactly).
    ///
    /// ```
    /// use kern_core::{Indicator, Kernel};
    /// let a = Indicator::new(vec![0.0], 1.0, 1.0)?;
    /// let k = kern_models::railway::RailwayKernel::linear(vec![a])?;
    /// assert!(k.eval(&[3.0], &[3.0]) > 0.0);
    /// assert_eq!(k.with_cutoff(1e-3)?.eval(&[3.0], &[3.0]), 0.0);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn with_cutoff(mut self, cutoff: f64) -> Result<Self> {
        if !(0.0..1.0).contains(&cutoff) {
            return Err(ModelsError::Param { name: "cutoff", value: cutoff, reason: "must be in [0, 1)" });
        }
        self.cutoff = cutoff;
        Ok(self)
    }

    /// The areas' indicators.
    pub fn areas(&self) -> &[Indicator] {
        &self.areas
    }

    /// The local kernels.
    pub fn local(&self) -> &Local<K> {
        &self.local
    }

    /// The combination rule.
    pub fn combination(&self) -> Combination {
        self.combination
    }

    /// `λ_i(x)` after the cutoff.
    #[inline]
    fn lambda(&self, i: usize, x: &[f64]) -> f64 {
        let l = self.areas[i].lambda(x);
        if l < self.cutoff { 0.0 } else { l }
    }

    /// `λ_i(x)` of every area (eq. 3, after the cutoff).
    ///
    /// ```
    /// use kern_core::Indicator;
    /// let k = kern_models::railway::RailwayKernel::linear(vec![Indicator::new(vec![0.0], 1.0, 1.0)?])?;
    /// assert_eq!(k.lambdas(&[0.5]), vec![1.0]);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn lambdas(&self, x: &[f64]) -> Vec<f64> {
        (0..self.areas.len()).map(|i| self.lambda(i, x)).collect()
    }

    #[inline]
    fn local_kernel(&self, i: usize) -> &K {
        match &self.local {
            Local::Shared(k) => k,
            Local::PerArea(ks) => &ks[i],
        }
    }

    /// The kernel value given the indicator values of both points.
    fn eval_lambdas(&self, x: &[f64], lx: &[f64], y: &[f64], ly: &[f64]) -> f64 {
        let p = self.areas.len();
        match (self.combination, &self.local) {
            (Combination::Zones, Local::Shared(k)) => {
                // w = Π_j (a_j + b_j) − Π_j b_j by the recurrence w_j = w_{j−1}(a_j + b_j) + a_j Π_{i<j} b_i:
                // all terms are non-negative, so no cancellation when every a_j is tiny.
                let (mut w, mut none) = (0.0, 1.0);
                for j in 0..p {
                    let a = lx[j] * ly[j];
                    let b = (1.0 - lx[j]) * (1.0 - ly[j]);
                    w = w * (a + b) + a * none;
                    none *= b;
                }
                if w == 0.0 { 0.0 } else { w * k.eval(x, y) }
            }
            (Combination::Zones, Local::PerArea(_)) => {
                if p <= STACK_AREAS {
                    let mut w = [0.0; STACK_AREAS + 1];
                    let mut s = [0.0; STACK_AREAS + 1];
                    self.zone_dp(x, lx, y, ly, &mut w, &mut s)
                } else {
                    let mut w = vec![0.0; p + 1];
                    let mut s = vec![0.0; p + 1];
                    self.zone_dp(x, lx, y, ly, &mut w, &mut s)
                }
            }
            (Combination::Eq8, _) => {
                let total: f64 = (0..p).map(|j| lx[j] * ly[j]).sum();
                let mut out = 0.0;
                for j in 0..p {
                    let a = lx[j] * ly[j];
                    if a != 0.0 {
                        out += a * (1.0 + total - a) * self.local_kernel(j).eval(x, y);
                    }
                }
                out
            }
        }
    }

    /// `Σ_{Z≠∅} Π_{j∈Z} a_j Π_{j∉Z} b_j · mean_{i∈Z} K_i` by a DP over `m = |Z|`: `w[m]` sums the
    /// weights of the subsets of size `m` of the areas seen so far, `s[m]` their weights times the sums of
    /// their local kernels.
    fn zone_dp(&self, x: &[f64], lx: &[f64], y: &[f64], ly: &[f64], w: &mut [f64], s: &mut [f64]) -> f64 {
        let p = self.areas.len();
        w[0] = 1.0;
        s[0] = 0.0;
        let mut top = 0;
        let mut factor = 1.0;
        for j in 0..p {
            let a = lx[j] * ly[j];
            let b = (1.0 - lx[j]) * (1.0 - ly[j]);
            if a == 0.0 {
                factor *= b;
                if factor == 0.0 {
                    return 0.0;
                }
                continue;
            }
            let kj = self.local_kernel(j).eval(x, y);
            w[top + 1] = 0.0;
            s[top + 1] = 0.0;
            for m in (1..=top + 1).rev() {
                s[m] = s[m] * b + (s[m - 1] + w[m - 1] * kj) * a;
                w[m] = w[m] * b + w[m - 1] * a;
            }
            w[0] *= b;
            s[0] *= b;
            top += 1;
        }
        factor * (1..=top).map(|m| s[m] / m as f64).sum::<f64>()
    }

    /// The Gram matrix `K_R(x_i, x_j)`, with the indicators computed once per sample.
    ///
    /// ```
    /// use kern_core::{Indicator, Kernel, Samples};
    /// let k = kern_models::railway::RailwayKernel::linear(vec![Indicator::new(vec![0.0], 2.0, 1.0)?])?;
    /// let x = Samples::from_rows(&[[1.0], [-1.0]])?;
    /// let g = k.gram(&x)?;
    /// assert_eq!(g[(0, 1)], k.eval(&[1.0], &[-1.0]));
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn gram(&self, x: &Samples) -> Result<Mat<f64>> {
        self.check_dim(x.d())?;
        let n = x.n();
        let lam: Vec<Vec<f64>> = (0..n).into_par_iter().map(|i| self.lambdas(x.row(i))).collect();
        let cols: Vec<Vec<f64>> = (0..n)
            .into_par_iter()
            .map(|j| (0..=j).map(|i| self.eval_lambdas(x.row(i), &lam[i], x.row(j), &lam[j])).collect())
            .collect();
        Ok(Mat::from_fn(n, n, |i, j| if i <= j { cols[j][i] } else { cols[i][j] }))
    }

    /// The areas containing `x` (`λ_i(x) = 1`): the zone of `x`. Empty outside every area.
    ///
    /// ```
    /// use kern_core::Indicator;
    /// let a = Indicator::new(vec![0.0], 1.0, 1.0)?;
    /// let b = Indicator::new(vec![1.5], 1.0, 1.0)?;
    /// let k = kern_models::railway::RailwayKernel::linear(vec![a, b])?;
    /// assert_eq!(k.zone_of(&[1.0]), vec![0, 1]);
    /// assert_eq!(k.zone_of(&[-0.5]), vec![0]);
    /// assert!(k.zone_of(&[9.0]).is_empty());
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn zone_of(&self, x: &[f64]) -> Vec<usize> {
        (0..self.areas.len()).filter(|&i| self.areas[i].lambda(x) >= 1.0).collect()
    }

    /// The block structure of the Gram matrix on `x`: samples grouped by zone (the set of areas that
    /// contain them), zones sorted by their area sets (the empty zone, outside every area, first when
    /// present). Ordering the samples zone by zone makes the Gram matrix block-diagonal up to the
    /// indicator tails (exactly, when the tails fall below the cutoff).
    ///
    /// ```
    /// use kern_core::{Indicator, Samples};
    /// let a = Indicator::new(vec![0.0], 1.0, 50.0)?;
    /// let b = Indicator::new(vec![5.0], 1.0, 50.0)?;
    /// let k = kern_models::railway::RailwayKernel::linear(vec![a, b])?;
    /// let x = Samples::from_rows(&[[0.1], [5.2], [-0.3]])?;
    /// let blocks = k.blocks(&x)?;
    /// assert_eq!(blocks.len(), 2);
    /// assert_eq!((blocks[0].areas.clone(), blocks[0].members.clone()), (vec![0], vec![0, 2]));
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn blocks(&self, x: &Samples) -> Result<Vec<Block>> {
        self.check_dim(x.d())?;
        let mut map: std::collections::BTreeMap<Vec<usize>, Vec<usize>> = Default::default();
        for i in 0..x.n() {
            map.entry(self.zone_of(x.row(i))).or_default().push(i);
        }
        Ok(map.into_iter().map(|(areas, members)| Block { areas, members }).collect())
    }
}

/// One diagonal block of a railway Gram matrix: the samples of one zone.
///
/// ```
/// use kern_core::{Indicator, Samples};
/// use kern_models::railway::{Block, RailwayKernel};
/// let k = RailwayKernel::linear(vec![Indicator::new(vec![0.0], 1.0, 10.0)?])?;
/// let blocks = k.blocks(&Samples::from_rows(&[[9.0], [0.2], [0.4]])?)?;
/// assert_eq!(blocks, vec![Block { areas: vec![], members: vec![0] }, Block { areas: vec![0], members: vec![1, 2] }]);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// The areas that contain every member (empty: outside all areas).
    pub areas: Vec<usize>,
    /// Sample indices, increasing.
    pub members: Vec<usize>,
}

impl<K: Kernel> Kernel for RailwayKernel<K> {
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        let p = self.areas.len();
        if p <= STACK_AREAS {
            let mut lx = [0.0; STACK_AREAS];
            let mut ly = [0.0; STACK_AREAS];
            for i in 0..p {
                lx[i] = self.lambda(i, x);
                ly[i] = self.lambda(i, y);
            }
            self.eval_lambdas(x, &lx[..p], y, &ly[..p])
        } else {
            self.eval_lambdas(x, &self.lambdas(x), y, &self.lambdas(y))
        }
    }

    fn definiteness(&self) -> Definiteness {
        let local_psd = match &self.local {
            Local::Shared(k) => k.definiteness() == Definiteness::PositiveDefinite,
            Local::PerArea(ks) => ks.iter().all(|k| k.definiteness() == Definiteness::PositiveDefinite),
        };
        if local_psd { Definiteness::PositiveDefinite } else { Definiteness::Indefinite }
    }

    fn check_dim(&self, d: usize) -> kern_core::Result<()> {
        for a in &self.areas {
            a.check_dim(d)?;
        }
        match &self.local {
            Local::Shared(k) => k.check_dim(d),
            Local::PerArea(ks) => ks.iter().try_for_each(|k| k.check_dim(d)),
        }
    }
}

/// The stored form of an area.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct RawArea {
    center: Vec<f64>,
    radius: f64,
    gamma: f64,
}

#[derive(Serialize, Deserialize)]
struct RawRailway<K> {
    areas: Vec<RawArea>,
    local: Local<K>,
    combination: Combination,
    cutoff: f64,
}

impl<K: Serialize + Clone> Serialize for RailwayKernel<K> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        RawRailway {
            areas: self
                .areas
                .iter()
                .map(|a| RawArea { center: a.center().to_vec(), radius: a.radius(), gamma: a.gamma() })
                .collect(),
            local: self.local.clone(),
            combination: self.combination,
            cutoff: self.cutoff,
        }
        .serialize(s)
    }
}

impl<'de, K: Deserialize<'de> + Kernel> Deserialize<'de> for RailwayKernel<K> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error;
        let raw = RawRailway::<K>::deserialize(d)?;
        let areas = raw
            .areas
            .into_iter()
            .map(|a| Indicator::new(a.center, a.radius, a.gamma))
            .collect::<kern_core::Result<Vec<_>>>()
            .map_err(D::Error::custom)?;
        RailwayKernel::new(areas, raw.local)
            .and_then(|k| k.with_cutoff(raw.cutoff))
            .map(|k| k.with_combination(raw.combination))
            .map_err(D::Error::custom)
    }
}

impl crate::persist::Persist for RailwayKernel<KernelSpec> {
    const KIND: &'static str = "railway";
    /// Decoding already rebuilds the kernel through [`RailwayKernel::new`] (areas, local kernels,
    /// cutoff checked); this adds the local kernels' dimension check.
    fn validate(&self) -> std::result::Result<(), String> {
        match self.areas.first() {
            Some(a) => self.check_dim(a.center().len()).map_err(|e| e.to_string()),
            None => Err("no area".into()),
        }
    }
}
