//! The explicit feature map of a railway kernel with one shared linear (or affine) local kernel
//! (González & Muñoz, Proposition 1 and eq. 14: `φ̃(x) = λ(x) φ(x)`), and a C-SVC trained on it — how
//! `--kernel railway:auto` runs through the SVM of [`crate::svm`], whose models hold a `KernelSpec`.
//!
//! With the zone form of the kernel (see [`super`]) and `K(x, y) = xᵀy + c`,
//!
//! ```text
//! K_R(x, y) = Σ_{Z≠∅} μ_Z(x) μ_Z(y) (xᵀy + c) = ⟨φ_R(x), φ_R(y)⟩,   φ_R(x) = (μ_Z(x) · [x, √c])_Z
//! ```
//!
//! so a linear SVM on `φ_R` is the railway SVM. Only the zones whose indicator exceeds `eps` on some
//! training sample are kept: a dropped zone contributes at most `eps` times a kernel value to any training
//! entry, and nothing to the decision function, which lies in the span of the training features.

use super::{Combination, Local, RailwayKernel};
use crate::error::{ModelsError, Result};
use crate::svm::Svc;
use kern_core::learner::Model;
use kern_core::{KernelSpec, Samples};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Most areas that may be partially active at one sample (the zones enumerated are `2^free`).
const MAX_FREE: usize = 12;

/// The explicit feature map `φ_R` over the zones seen in training.
///
/// ```
/// use kern_core::{Indicator, Samples};
/// use kern_models::railway::{RailwayKernel, ZoneMap};
/// let k = RailwayKernel::linear(vec![Indicator::new(vec![0.0], 1.0, 50.0)?, Indicator::new(vec![5.0], 1.0, 50.0)?])?;
/// let m = ZoneMap::fit(k, &Samples::from_rows(&[[0.2], [5.1]])?, 1e-12)?;
/// assert_eq!(m.zones(), &[vec![0], vec![1]]); // two zones seen, one per area
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ZoneMap {
    kernel: RailwayKernel<KernelSpec>,
    zones: Vec<Vec<usize>>,
    offset: f64,
}

impl ZoneMap {
    /// The zones of `kernel` with indicator above `eps` on some row of `x`. The kernel must use
    /// [`Combination::Zones`] and one shared local kernel `linear` or `poly:degree=1` (scale `s`, offset
    /// `c`: `s xᵀy + c`).
    ///
    /// ```
    /// use kern_core::{Indicator, Kernel, Samples};
    /// use kern_models::railway::{RailwayKernel, ZoneMap};
    /// let k = RailwayKernel::linear(vec![Indicator::new(vec![0.0], 1.0, 2.0)?, Indicator::new(vec![1.5], 1.0, 2.0)?])?;
    /// let x = Samples::from_rows(&[[-0.5], [0.7], [2.0]])?;
    /// let m = ZoneMap::fit(k.clone(), &x, 1e-12)?;
    /// let f = m.transform(&x)?;
    /// let dot: f64 = f.row(0).iter().zip(f.row(1)).map(|(a, b)| a * b).sum();
    /// assert!((dot - k.eval(x.row(0), x.row(1))).abs() < 1e-9);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn fit(kernel: RailwayKernel<KernelSpec>, x: &Samples, eps: f64) -> Result<Self> {
        if !(eps > 0.0 && eps < 0.5) {
            return Err(ModelsError::Param { name: "eps", value: eps, reason: "must be in (0, 0.5)" });
        }
        if kernel.combination() != Combination::Zones {
            return Err(ModelsError::Input("the explicit railway map needs Combination::Zones".into()));
        }
        let offset = match kernel.local() {
            Local::Shared(KernelSpec::Linear(_)) => 0.0,
            Local::Shared(KernelSpec::Polynomial(p)) if p.degree() == 1 && p.coef0() >= 0.0 => p.coef0(),
            _ => {
                return Err(ModelsError::Input(
                    "the explicit railway map needs one shared local kernel: linear or poly:degree=1".into(),
                ));
            }
        };
        kern_core::Kernel::check_dim(&kernel, x.d())?;
        let mut zones: BTreeSet<Vec<usize>> = BTreeSet::new();
        for r in x.rows() {
            let lam = kernel.lambdas(r);
            let forced: Vec<usize> = (0..lam.len()).filter(|&j| lam[j] >= 1.0 - eps).collect();
            let free: Vec<usize> = (0..lam.len()).filter(|&j| lam[j] > eps && lam[j] < 1.0 - eps).collect();
            if free.len() > MAX_FREE {
                return Err(ModelsError::Input(format!(
                    "{} areas are partially active at one sample (at most {MAX_FREE}): raise γ",
                    free.len()
                )));
            }
            for mask in 0u32..(1 << free.len()) {
                let mut z = forced.clone();
                z.extend(free.iter().enumerate().filter(|(b, _)| mask >> b & 1 == 1).map(|(_, &j)| j));
                if !z.is_empty() {
                    z.sort_unstable();
                    zones.insert(z);
                }
            }
        }
        Ok(ZoneMap { kernel, zones: zones.into_iter().collect(), offset })
    }

    /// The zones kept (sets of area indices).
    pub fn zones(&self) -> &[Vec<usize>] {
        &self.zones
    }

    /// The railway kernel.
    pub fn kernel(&self) -> &RailwayKernel<KernelSpec> {
        &self.kernel
    }

    fn scale(&self) -> f64 {
        match self.kernel.local() {
            Local::Shared(KernelSpec::Polynomial(p)) => p.scale(),
            _ => 1.0,
        }
    }

    /// `φ_R(x)` of every row: `n × (zones · (d + 1))`.
    pub fn transform(&self, x: &Samples) -> Result<Samples> {
        kern_core::Kernel::check_dim(&self.kernel, x.d())?;
        let d = x.d();
        let (s, c) = (self.scale().sqrt(), self.offset.sqrt());
        let width = self.zones.len() * (d + 1);
        let mut data = Vec::with_capacity(x.n() * width);
        for r in x.rows() {
            let lam = self.kernel.lambdas(r);
            for z in &self.zones {
                let mut mu = 1.0;
                for (j, &l) in lam.iter().enumerate() {
                    mu *= if z.binary_search(&j).is_ok() { l } else { 1.0 - l };
                }
                data.extend(r.iter().map(|v| mu * s * v));
                data.push(mu * c);
            }
        }
        Ok(Samples::from_flat(data, x.n(), width)?)
    }
}

/// A C-SVC with a railway kernel: the zone map and a linear SVC on its features.
///
/// ```
/// use kern_core::{BinaryTargets, Indicator, Samples, learner::Fit};
/// use kern_models::persist::{from_bytes, to_bytes};
/// use kern_models::railway::{RailwayKernel, RailwaySvc, ZoneMap};
/// use kern_models::svm::SvcParams;
/// let areas = vec![Indicator::new(vec![0.0], 1.0, 50.0)?, Indicator::new(vec![10.0], 1.0, 50.0)?];
/// let x = Samples::from_rows(&[[-0.5], [0.5], [9.5], [10.5]])?;
/// let y = BinaryTargets::from_labels(&["west", "west", "east", "east"])?;
/// let map = ZoneMap::fit(RailwayKernel::linear(areas)?, &x, 1e-12)?;
/// let svc = SvcParams::new("linear".parse()?).c(100.0).fit(&map.transform(&x)?, &y)?;
/// let m = RailwaySvc { map, svc };
/// assert_eq!(m.predict_names(&x)?, ["west", "west", "east", "east"]);
/// assert_eq!(m.predict_names(&Samples::from_rows(&[[1.0], [9.0]])?)?, ["west", "east"]);
/// let back: RailwaySvc = from_bytes(&to_bytes(&m)?, "<bytes>")?;
/// assert_eq!(back, m);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RailwaySvc {
    /// The feature map.
    pub map: ZoneMap,
    /// The linear SVC on `φ_R`.
    pub svc: Svc,
}

impl crate::persist::Persist for RailwaySvc {
    const KIND: &'static str = "railway-svc";
    fn validate(&self) -> std::result::Result<(), String> {
        self.map.kernel.validate()?;
        let n_areas = self.map.kernel.areas().len();
        for (i, z) in self.map.zones.iter().enumerate() {
            crate::validate::indices(&format!("zone {i}"), z, n_areas)?;
        }
        crate::validate::finite("offset", &[self.map.offset])?;
        self.svc.validate()
    }
}

impl RailwaySvc {
    /// Predicted class names.
    pub fn predict_names(&self, x: &Samples) -> Result<Vec<String>> {
        self.svc.predict_names(&self.map.transform(x)?)
    }
}

impl Model for RailwaySvc {
    type Error = ModelsError;
    fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        self.svc.predict(&self.map.transform(x)?)
    }
}
