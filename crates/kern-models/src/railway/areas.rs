//! Area location for the railway kernel (González & Muñoz §4): k-means with an increasing number of
//! centroids until a χ² test no longer rejects the purity of any cluster, then each area joined with the
//! nearest area of another label.
//!
//! ```
//! use kern_core::{ClassTargets, Samples};
//! use kern_models::railway::{AreaParams, locate_areas};
//! let (mut rows, mut labels) = (Vec::new(), Vec::new()); // two groups, each two classes side by side
//! for (cx, label) in [(0.0, "a"), (2.0, "b"), (20.0, "a"), (22.0, "b")] {
//!     for t in 0..10 { rows.push(vec![cx + 0.05 * t as f64, (t % 3) as f64 * 0.1]); labels.push(label); }
//! }
//! let (x, y) = (Samples::from_rows(&rows)?, ClassTargets::from_labels(&labels)?);
//! let loc = locate_areas(&x, &y, &AreaParams::default())?;
//! assert!(loc.converged);
//! assert_eq!(loc.areas.len(), 2); // in each group, the "a" cluster joined with the "b" cluster
//! for a in &loc.areas {
//!     assert_eq!(a.members.len(), 20);
//!     assert!(a.members.iter().all(|&i| (x.row(i)[0] - a.center[0]).abs() <= a.radius));
//! }
//! # Ok::<(), kern_models::ModelsError>(())
//! ```
//!
//! # The purity test
//!
//! §4 asks for a χ² test whose null hypothesis is that "a small number of data of one class are randomly
//! distributed among the data of the other". We test that the labels inside a cluster do not depend on
//! where the points lie in it:
//!
//! - the cluster is split into `s` sub-cells ([`AreaParams::sub_cells`], default 2) by a seeded k-means of
//!   its own points;
//! - on the `s × C` table of counts (`C` the classes present in the cluster) Pearson's statistic
//!   `X² = Σ (O − E)² / E`, `E = (row total)(column total)/n_A`, has `(s − 1)(C − 1)` degrees of freedom
//!   under H0;
//! - purity is rejected when `P(χ²_dof ≥ X²) <` [`AreaParams::significance`] (default 0.05).
//!
//! A cluster with one class (or fewer points than sub-cells) has `X² = 0` and `dof = 0` and is pure. A
//! cluster made of two groups of different labels side by side is split by the sub-cells along them and
//! rejected; a few minority points scattered at random are not.
//!
//! # Joining and the areas
//!
//! Each cluster gets its majority label. Each cluster is then joined with the cluster of a different
//! label at the smallest minimum inter-point distance; pairs found twice (`i ↔ j`) give one area. An area's
//! centre is the centroid of its points and its radius the distance to the farthest one; its indicator
//! sharpness `γ` is [`GammaChoice::Fixed`] or relative to the radius (`γ = c / r²`, the default `c = 4`,
//! so that `λ = e⁻⁴` at `√2 r`).

use super::{RailwayKernel, kmeans};
use crate::error::{ModelsError, Result};
use kern_core::{ClassTargets, Indicator, KernelSpec, Samples, sq_dist};
use serde::{Deserialize, Serialize};

/// How the sharpness `γ` of the indicators (eq. 3) is chosen.
///
/// ```
/// use kern_models::railway::{locate_areas, AreaParams, GammaChoice};
/// # use kern_core::{ClassTargets, Samples};
/// # let (mut rows, mut labels) = (Vec::new(), Vec::new());
/// # for (cx, lab) in [(0.0, "a"), (2.0, "b"), (20.0, "a"), (22.0, "b")] {
/// #     for t in 0..10 {
/// #         rows.push(vec![cx + 0.05 * t as f64, (t % 3) as f64 * 0.1]);
/// #         labels.push(lab);
/// #     }
/// # }
/// # let (x, y) = (Samples::from_rows(&rows)?, ClassTargets::from_labels(&labels)?);
/// // x: two groups far apart (around 1 and 21), each two classes side by side.
/// let p = AreaParams { gamma: GammaChoice::Fixed(3.0), ..AreaParams::default() };
/// assert!(locate_areas(&x, &y, &p)?.areas.iter().all(|a| a.gamma == 3.0));
/// let rel = locate_areas(&x, &y, &AreaParams { gamma: GammaChoice::Relative(4.0), ..p })?;
/// assert!(rel.areas.iter().all(|a| (a.gamma - 4.0 / (a.radius * a.radius)).abs() <= 1e-12 * a.gamma));
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum GammaChoice {
    /// The same `γ` for every area.
    Fixed(f64),
    /// `γ_i = c / r_i²` for area `i` of radius `r_i`.
    Relative(f64),
}

/// Parameters of [`locate_areas`].
///
/// ```
/// use kern_models::railway::AreaParams;
/// let p = AreaParams::default();
/// assert_eq!(p.significance, 0.05);
/// assert!(p.check().is_ok());
/// // No k-means run, or no step in one, is an error (never silently one).
/// let e = AreaParams { restarts: 0, ..p.clone() }.check().unwrap_err().to_string();
/// assert!(e.contains("restarts") && e.contains("at least 1"), "{e}");
/// assert!(AreaParams { max_iter: 0, ..p }.check().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AreaParams {
    /// First `k` tried (`None`: the number of classes).
    pub k_start: Option<usize>,
    /// Largest `k` tried; when reached the partition at `k_max` is used (and reported as not converged).
    pub k_max: usize,
    /// k-means restarts per `k` (the lowest inertia is kept).
    pub restarts: usize,
    /// Lloyd iterations per run.
    pub max_iter: usize,
    /// Seed of every random step.
    pub seed: u64,
    /// Significance level `α` of the purity test.
    pub significance: f64,
    /// Sub-cells per cluster in the purity test (rows of the contingency table).
    pub sub_cells: usize,
    /// Sharpness of the indicators.
    pub gamma: GammaChoice,
}

impl Default for AreaParams {
    fn default() -> Self {
        AreaParams {
            k_start: None,
            k_max: 40,
            restarts: 5,
            max_iter: 100,
            seed: 0,
            significance: 0.05,
            sub_cells: 2,
            gamma: GammaChoice::Relative(4.0),
        }
    }
}

impl AreaParams {
    /// Validates the parameters.
    pub fn check(&self) -> Result<()> {
        let p = |name, value: f64, reason| Err(ModelsError::Param { name, value, reason });
        if self.k_max == 0 {
            return p("k_max", 0.0, "must be at least 1");
        }
        if let Some(k) = self.k_start
            && (k == 0 || k > self.k_max)
        {
            return p("k_start", k as f64, "must be in 1..=k_max");
        }
        if !(self.significance > 0.0 && self.significance < 1.0) {
            return p("significance", self.significance, "must be in (0, 1)");
        }
        if self.sub_cells < 2 {
            return p("sub_cells", self.sub_cells as f64, "must be at least 2");
        }
        super::kmeans::check_runs(self.restarts, self.max_iter)?;
        match self.gamma {
            GammaChoice::Fixed(g) | GammaChoice::Relative(g) if !(g > 0.0 && g.is_finite()) => {
                p("gamma", g, "must be finite and > 0")
            }
            _ => Ok(()),
        }
    }
}

/// The purity test of one cluster.
///
/// ```
/// use kern_models::railway::{chi2_sf, locate_areas, AreaParams};
/// # use kern_core::{ClassTargets, Samples};
/// # let (mut rows, mut labels) = (Vec::new(), Vec::new());
/// # for (cx, lab) in [(0.0, "a"), (2.0, "b"), (20.0, "a"), (22.0, "b")] {
/// #     for t in 0..10 {
/// #         rows.push(vec![cx + 0.05 * t as f64, (t % 3) as f64 * 0.1]);
/// #         labels.push(lab);
/// #     }
/// # }
/// # let (x, y) = (Samples::from_rows(&rows)?, ClassTargets::from_labels(&labels)?);
/// // x: two groups far apart (around 1 and 21), each two classes side by side.
/// let loc = locate_areas(&x, &y, &AreaParams::default())?;
/// for t in loc.trace.iter().flat_map(|k| &k.tests) {
///     assert_eq!(t.counts.iter().sum::<usize>(), t.size);
///     assert_eq!(t.p_value, chi2_sf(t.statistic, t.dof)); // the p-value of its statistic
/// }
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterTest {
    /// Points in the cluster.
    pub size: usize,
    /// Points per class.
    pub counts: Vec<usize>,
    /// The majority class.
    pub majority: usize,
    /// Pearson's `X²` on the sub-cell × class table.
    pub statistic: f64,
    /// Its degrees of freedom `(s − 1)(C − 1)`.
    pub dof: usize,
    /// `P(χ²_dof ≥ X²)`.
    pub p_value: f64,
    /// Whether purity is rejected at the significance level.
    pub rejected: bool,
}

/// One `k` tried.
///
/// ```
/// use kern_models::railway::{locate_areas, AreaParams};
/// # use kern_core::{ClassTargets, Samples};
/// # let (mut rows, mut labels) = (Vec::new(), Vec::new());
/// # for (cx, lab) in [(0.0, "a"), (2.0, "b"), (20.0, "a"), (22.0, "b")] {
/// #     for t in 0..10 {
/// #         rows.push(vec![cx + 0.05 * t as f64, (t % 3) as f64 * 0.1]);
/// #         labels.push(lab);
/// #     }
/// # }
/// # let (x, y) = (Samples::from_rows(&rows)?, ClassTargets::from_labels(&labels)?);
/// // x: two groups far apart (around 1 and 21), each two classes side by side.
/// let loc = locate_areas(&x, &y, &AreaParams::default())?;
/// let last = loc.trace.last().unwrap();
/// assert!(last.all_pure()); // the search converged at the last k
/// assert_eq!((last.assignment.len(), last.tests.len()), (40, loc.clusters.len()));
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KTrial {
    /// Number of clusters.
    pub k: usize,
    /// k-means inertia.
    pub inertia: f64,
    /// The purity test of each cluster.
    pub tests: Vec<ClusterTest>,
    /// The cluster of each sample at this `k` (indices into `tests`; empty clusters are dropped and the
    /// others renumbered in order), so every step of the search can be drawn.
    pub assignment: Vec<usize>,
}

impl KTrial {
    /// True when no cluster rejects purity.
    pub fn all_pure(&self) -> bool {
        self.tests.iter().all(|t| !t.rejected)
    }
}

/// One located area.
///
/// ```
/// use kern_models::railway::{locate_areas, AreaParams};
/// # use kern_core::{ClassTargets, Samples};
/// # let (mut rows, mut labels) = (Vec::new(), Vec::new());
/// # for (cx, lab) in [(0.0, "a"), (2.0, "b"), (20.0, "a"), (22.0, "b")] {
/// #     for t in 0..10 {
/// #         rows.push(vec![cx + 0.05 * t as f64, (t % 3) as f64 * 0.1]);
/// #         labels.push(lab);
/// #     }
/// # }
/// # let (x, y) = (Samples::from_rows(&rows)?, ClassTargets::from_labels(&labels)?);
/// // x: two groups far apart (around 1 and 21), each two classes side by side.
/// let loc = locate_areas(&x, &y, &AreaParams::default())?;
/// let mut centres: Vec<f64> = loc.areas.iter().map(|a| a.center[0]).collect();
/// centres.sort_by(f64::total_cmp);
/// assert!(centres[0] < 3.0 && centres[1] > 19.0); // one area per group
/// assert_eq!(loc.areas.iter().map(|a| a.members.len()).sum::<usize>(), 40);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocatedArea {
    /// Centroid of the members.
    pub center: Vec<f64>,
    /// Distance from the centre to the farthest member.
    pub radius: f64,
    /// Indicator sharpness `γ`.
    pub gamma: f64,
    /// Sample indices, increasing.
    pub members: Vec<usize>,
    /// The clusters joined (indices into [`AreaLocation::clusters`]).
    pub clusters: Vec<usize>,
}

/// The result of [`locate_areas`].
///
/// ```
/// use kern_core::Kernel;
/// use kern_models::railway::{locate_areas, AreaParams};
/// # use kern_core::{ClassTargets, Samples};
/// # let (mut rows, mut labels) = (Vec::new(), Vec::new());
/// # for (cx, lab) in [(0.0, "a"), (2.0, "b"), (20.0, "a"), (22.0, "b")] {
/// #     for t in 0..10 {
/// #         rows.push(vec![cx + 0.05 * t as f64, (t % 3) as f64 * 0.1]);
/// #         labels.push(lab);
/// #     }
/// # }
/// # let (x, y) = (Samples::from_rows(&rows)?, ClassTargets::from_labels(&labels)?);
/// // x: two groups far apart (around 1 and 21), each two classes side by side.
/// let loc = locate_areas(&x, &y, &AreaParams::default())?;
/// assert!(loc.converged);
/// let k = loc.linear_kernel()?;
/// assert_eq!(k.areas().len(), loc.areas.len());
/// assert!(k.eval(x.row(5), x.row(5)) > 0.0); // xᵀx inside an area
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AreaLocation {
    /// The final areas.
    pub areas: Vec<LocatedArea>,
    /// Every `k` tried, in order.
    pub trace: Vec<KTrial>,
    /// Members of each cluster of the final partition.
    pub clusters: Vec<Vec<usize>>,
    /// Majority label of each cluster.
    pub cluster_labels: Vec<usize>,
    /// True when the last `k` tried passed the purity test (false when `k_max` stopped the search).
    pub converged: bool,
}

impl AreaLocation {
    /// The indicators of the areas (eq. 3).
    pub fn indicators(&self) -> Result<Vec<Indicator>> {
        self.areas
            .iter()
            .map(|a| Indicator::new(a.center.clone(), a.radius, a.gamma).map_err(ModelsError::from))
            .collect()
    }

    /// The railway kernel with the paper's linear local kernels on these areas.
    ///
    /// The linear kernel `xᵀy` gives each area a hyperplane through the origin plus the model's global
    /// offset; [`AreaLocation::kernel`] with the affine `poly:degree=1,coef0=1` gives each area its own
    /// offset.
    pub fn linear_kernel(&self) -> Result<RailwayKernel<KernelSpec>> {
        RailwayKernel::linear(self.indicators()?)
    }

    /// The railway kernel with one local kernel shared by all areas.
    pub fn kernel<K: kern_core::Kernel>(&self, local: K) -> Result<RailwayKernel<K>> {
        RailwayKernel::new(self.indicators()?, super::Local::Shared(local))
    }
}

fn purity_test(
    x: &Samples,
    y: &[usize],
    n_classes: usize,
    members: &[usize],
    p: &AreaParams,
    seed: u64,
) -> Result<ClusterTest> {
    let mut counts = vec![0usize; n_classes];
    for &i in members {
        counts[y[i]] += 1;
    }
    let majority = (0..n_classes).max_by_key(|&c| (counts[c], std::cmp::Reverse(c))).unwrap_or(0);
    let present: Vec<usize> = (0..n_classes).filter(|&c| counts[c] > 0).collect();
    let pure = ClusterTest {
        size: members.len(),
        counts: counts.clone(),
        majority,
        statistic: 0.0,
        dof: 0,
        p_value: 1.0,
        rejected: false,
    };
    if present.len() < 2 || members.len() < p.sub_cells {
        return Ok(pure);
    }
    let sub = kmeans(x, Some(members), p.sub_cells, p.restarts, p.max_iter, seed)?;
    let s = p.sub_cells;
    let mut table = vec![0.0; s * present.len()];
    for (t, &i) in members.iter().enumerate() {
        let col = present.iter().position(|&c| c == y[i]).expect("present class");
        table[sub.labels[t] * present.len() + col] += 1.0;
    }
    let n = members.len() as f64;
    let rows: Vec<f64> =
        (0..s).map(|r| table[r * present.len()..(r + 1) * present.len()].iter().sum()).collect();
    let cols: Vec<f64> =
        (0..present.len()).map(|c| (0..s).map(|r| table[r * present.len() + c]).sum()).collect();
    let mut stat = 0.0;
    for r in 0..s {
        for c in 0..present.len() {
            let e = rows[r] * cols[c] / n;
            if e > 0.0 {
                stat += (table[r * present.len() + c] - e).powi(2) / e;
            }
        }
    }
    let nonempty_rows = rows.iter().filter(|&&v| v > 0.0).count();
    let dof = nonempty_rows.saturating_sub(1) * (present.len() - 1);
    let p_value = super::chi2_sf(stat, dof);
    Ok(ClusterTest { statistic: stat, dof, p_value, rejected: dof > 0 && p_value < p.significance, ..pure })
}

/// Locates the areas of a railway kernel from labelled samples (§4; see the module documentation).
///
/// ```
/// use kern_core::{ClassTargets, Samples};
/// use kern_models::railway::{locate_areas, AreaParams};
/// // Two separated groups, each made of two classes side by side.
/// let mut rows = Vec::new();
/// let mut labels = Vec::new();
/// for g in 0..4 {
///     let (cx, lab) = [(0.0, "a"), (2.0, "b"), (20.0, "a"), (22.0, "b")][g];
///     for t in 0..10 {
///         rows.push(vec![cx + 0.05 * t as f64, (t % 3) as f64 * 0.1]);
///         labels.push(lab);
///     }
/// }
/// let x = Samples::from_rows(&rows)?;
/// let y = ClassTargets::from_labels(&labels)?;
/// let loc = locate_areas(&x, &y, &AreaParams::default())?;
/// assert!(loc.converged);
/// assert_eq!(loc.areas.len(), 2);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub fn locate_areas(x: &Samples, y: &ClassTargets, params: &AreaParams) -> Result<AreaLocation> {
    params.check()?;
    let n = x.n();
    if y.len() != n {
        return Err(ModelsError::Input(format!("{} labels for {n} samples", y.len())));
    }
    let labels = y.classes();
    let nc = y.n_classes();
    let k0 = params.k_start.unwrap_or(nc).clamp(1, n);
    let k_max = params.k_max.min(n);
    let mut trace = Vec::new();
    let mut last = None;
    let mut converged = false;
    for k in k0..=k_max.max(k0) {
        let seed = params.seed.wrapping_add(k as u64);
        let km = kmeans(x, None, k, params.restarts, params.max_iter, seed)?;
        let mut clusters = vec![Vec::new(); k];
        for (i, &c) in km.labels.iter().enumerate() {
            clusters[c].push(i);
        }
        clusters.retain(|c| !c.is_empty());
        let mut assignment = vec![0; n];
        for (c, m) in clusters.iter().enumerate() {
            for &i in m {
                assignment[i] = c;
            }
        }
        let tests = clusters
            .iter()
            .enumerate()
            .map(|(c, m)| purity_test(x, labels, nc, m, params, seed.wrapping_mul(31).wrapping_add(c as u64)))
            .collect::<Result<Vec<_>>>()?;
        let trial = KTrial { k, inertia: km.inertia, tests, assignment };
        let pure = trial.all_pure();
        trace.push(trial);
        last = Some(clusters);
        if pure {
            converged = true;
            break;
        }
    }
    let clusters = last.expect("at least one k tried");
    let tests = &trace.last().expect("trace").tests;
    let cluster_labels: Vec<usize> = tests.iter().map(|t| t.majority).collect();
    // Join each cluster with the nearest cluster of another label (minimum inter-point distance).
    let m = clusters.len();
    let mut pairs: Vec<Vec<usize>> = Vec::new();
    for i in 0..m {
        let mut best: Option<(f64, usize)> = None;
        for j in 0..m {
            if cluster_labels[j] == cluster_labels[i] {
                continue;
            }
            let mut dmin = f64::INFINITY;
            for &a in &clusters[i] {
                for &b in &clusters[j] {
                    dmin = dmin.min(sq_dist(x.row(a), x.row(b)));
                }
            }
            if best.is_none_or(|(bd, _)| dmin < bd) {
                best = Some((dmin, j));
            }
        }
        let mut group = match best {
            Some((_, j)) => vec![i, j],
            None => vec![i],
        };
        group.sort_unstable();
        if !pairs.contains(&group) {
            pairs.push(group);
        }
    }
    let d = x.d();
    let areas = pairs
        .into_iter()
        .map(|group| {
            let mut members: Vec<usize> = group.iter().flat_map(|&c| clusters[c].iter().copied()).collect();
            members.sort_unstable();
            let mut center = vec![0.0; d];
            for &i in &members {
                for (c, v) in center.iter_mut().zip(x.row(i)) {
                    *c += v;
                }
            }
            center.iter_mut().for_each(|c| *c /= members.len() as f64);
            let r2 = members.iter().map(|&i| sq_dist(x.row(i), &center)).fold(0.0, f64::max);
            let scale = 1.0 + center.iter().map(|v| v * v).sum::<f64>().sqrt();
            let radius = r2.sqrt().max(1e-9 * scale);
            let gamma = match params.gamma {
                GammaChoice::Fixed(g) => g,
                GammaChoice::Relative(c) => c / (radius * radius),
            };
            LocatedArea { center, radius, gamma, members, clusters: group }
        })
        .collect();
    Ok(AreaLocation { areas, trace, clusters, cluster_labels, converged })
}
