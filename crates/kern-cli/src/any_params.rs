//! The parameters of any learner the commands fit ([`AnyParams`], built from the flags by
//! [`LearnerFlags::params`](crate::learner_flags::LearnerFlags::params), the one translation), and the
//! model a cross-validation cell trains from them ([`CellModel`]).
//!
//! ```
//! use kern_core::learner::{Fit, Model};
//! use kern_core::{RealTargets, Samples, Targets};
//! use kern_cli::any_params::AnyParams;
//! let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
//! let y = Targets::Real(RealTargets::new(vec![0.0, 1.0, 2.0, 3.0])?);
//! let p = AnyParams::Krr(kern_models::krr::KernelRidgeParams::new("linear".parse()?).lambda(1e-9));
//! assert!((p.fit(&x, &y)?.predict(&x)?[3] - 3.0).abs() < 1e-6);
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! ```

use crate::CliError;
use kern_core::learner::{Fit, Model};
use kern_core::{KernelSpec, Linear, Polynomial, Samples, Targets};
use kern_models::ModelsError;
use kern_models::kfa::{KfaModel, KfaParams};
use kern_models::krr::{KernelRidge, KernelRidgeParams};
use kern_models::landmark::{NystromRidge, NystromRidgeParams};
use kern_models::lssvm::{LsSvm, LsSvmParams};
use kern_models::railway::{AreaParams, GammaChoice};
use kern_models::ridge::Spread;
use kern_models::svm::{NuSvcParams, NuSvrParams, OneClassParams, Svc, SvcParams, Svr, SvrParams};

/// The parameters of one learner, as the flags (and a grid point) set them: one variant per model
/// of `--model`.
///
/// ```
/// use kern_cli::any_params::AnyParams;
/// let p = AnyParams::Svc(kern_models::svm::SvcParams::new("linear".parse()?));
/// assert_eq!(p.model().name(), "svc");
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug)]
pub enum AnyParams {
    /// C-SVC.
    Svc(SvcParams),
    /// ν-SVC.
    NuSvc(NuSvcParams),
    /// One-class SVM.
    OneClass(OneClassParams),
    /// ε-SVR.
    Svr(SvrParams),
    /// ν-SVR.
    NuSvr(NuSvrParams),
    /// LS-SVM.
    LsSvm(LsSvmParams),
    /// Kernel ridge regression.
    Krr(KernelRidgeParams),
    /// Kernel function approximation on selected feature vectors.
    Kfa(Box<KfaParams<KernelSpec>>),
    /// A landmark (Nyström) LS-SVM or kernel ridge.
    Landmark(NystromRidgeParams),
    /// The railway SVC.
    Railway(Box<RailwayParams>),
}

impl AnyParams {
    /// The model of `--model` the parameters are of.
    ///
    /// ```
    /// use kern_cli::{any_params::AnyParams, kinds::ModelKind};
    /// let p = AnyParams::Krr(kern_models::krr::KernelRidgeParams::new("linear".parse()?));
    /// assert_eq!(p.model(), ModelKind::Krr);
    /// # Ok::<(), kern_core::CoreError>(())
    /// ```
    pub fn model(&self) -> crate::kinds::ModelKind {
        use crate::kinds::ModelKind;
        match self {
            AnyParams::Svc(_) => ModelKind::Svc,
            AnyParams::NuSvc(_) => ModelKind::NuSvc,
            AnyParams::OneClass(_) => ModelKind::OneClass,
            AnyParams::Svr(_) => ModelKind::Svr,
            AnyParams::NuSvr(_) => ModelKind::NuSvr,
            AnyParams::LsSvm(_) => ModelKind::Lssvm,
            AnyParams::Krr(_) => ModelKind::Krr,
            AnyParams::Kfa(_) => ModelKind::Kfa,
            AnyParams::Landmark(p) if p.bias => ModelKind::LandmarkLssvm,
            AnyParams::Landmark(_) => ModelKind::LandmarkKrr,
            AnyParams::Railway(_) => ModelKind::Railway,
        }
    }
}

/// The railway SVC's parameters: how its areas are located, the local kernel, and the linear C-SVC
/// trained on the railway kernel's feature map.
///
/// ```
/// let (areas, _, name) = kern_cli::any_params::railway_spec("railway:auto,local=affine", 3)?;
/// assert_eq!((areas.seed, name.as_str()), (3, "affine"));
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
#[derive(Clone, Debug)]
pub struct RailwayParams {
    /// How the areas are located from the labels.
    pub areas: AreaParams,
    /// The local kernel: linear (`x·y`) or affine (`x·y + 1`).
    pub local: KernelSpec,
    /// The local kernel's name in the spec (`linear` or `affine`).
    pub local_name: String,
    /// The C-SVC on the feature map (its kernel linear).
    pub svc: SvcParams,
}

/// Parses `railway:auto[,local=linear|affine][,gamma=C][,significance=A][,k_max=K][,sub_cells=S]`
/// into area parameters (seeded by `seed`), the local kernel and its name: `local=affine` is `x·y +
/// 1` (each area gets its own offset), `gamma` the relative indicator sharpness (`γ = C / r²`).
///
/// ```
/// assert!(kern_cli::any_params::railway_spec("railway:auto,k_max=x", 0).is_err());
/// // A count is a whole number: a negative, fractional or NaN value is refused, not truncated.
/// for bad in ["k_max=-1", "k_max=2.5", "k_max=NaN", "sub_cells=-3"] {
///     assert!(kern_cli::any_params::railway_spec(&format!("railway:auto,{bad}"), 0).is_err());
/// }
/// assert!(kern_cli::any_params::railway_spec("railway:auto,k_max=3", 0).is_ok());
/// ```
pub fn railway_spec(spec: &str, seed: u64) -> Result<(AreaParams, KernelSpec, String), CliError> {
    let rest =
        spec.trim().strip_prefix("railway:").ok_or("railway kernels are written railway:auto[,...]")?;
    let mut parts = rest.split(',').map(str::trim);
    if parts.next() != Some("auto") {
        return Err(
            format!("{spec:?}: only railway:auto is supported (areas located from the labels)").into()
        );
    }
    let mut p = AreaParams { seed, ..Default::default() };
    let mut local = KernelSpec::Linear(Linear);
    let mut local_name = "linear".to_string();
    for kv in parts {
        let (k, v) = kv.split_once('=').ok_or_else(|| format!("{spec:?}: expected key=value, got {kv:?}"))?;
        let num = || v.parse::<f64>().map_err(|_| format!("{spec:?}: {k}={v:?} is not a number"));
        let count = || {
            v.parse::<usize>()
                .map_err(|_| format!("{spec:?}: {k}={v:?} is not a whole number (0, 1, 2, ...)"))
        };
        match k {
            "local" => {
                local = match v {
                    "linear" => KernelSpec::Linear(Linear),
                    "affine" => KernelSpec::Polynomial(Polynomial::new(1, 1.0)?),
                    _ => return Err(format!("{spec:?}: local must be linear or affine").into()),
                };
                local_name = v.to_string();
            }
            "gamma" => p.gamma = GammaChoice::Relative(num()?),
            "significance" => p.significance = num()?,
            "k_max" => p.k_max = count()?,
            "sub_cells" => p.sub_cells = count()?,
            _ => {
                return Err(format!(
                    "{spec:?}: unknown key {k:?} (local, gamma, significance, k_max, sub_cells)"
                )
                .into());
            }
        }
    }
    p.check()?;
    Ok((p, local, local_name))
}

/// A model trained by [`AnyParams`] in a cross-validation cell.
///
/// ```
/// use kern_core::learner::{Fit, Model};
/// use kern_core::{RealTargets, Samples, Targets};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0]])?;
/// let y = Targets::Real(RealTargets::new(vec![0.0, 2.0, 4.0])?);
/// let cell = kern_cli::any_params::AnyParams::Krr(kern_models::krr::KernelRidgeParams::new("linear".parse()?).lambda(1e-9));
/// let p = cell.fit(&x, &y)?.predict(&x)?;
/// assert!((p[2] - 4.0).abs() < 1e-6);
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub enum CellModel {
    /// An SVC (C or ν).
    Svc(Box<Svc>),
    /// An SVR (ε or ν).
    Svr(Box<Svr>),
    /// An LS-SVM.
    LsSvm(Box<LsSvm>),
    /// A kernel ridge regression.
    Krr(Box<KernelRidge>),
    /// A KFA model.
    Kfa(Box<KfaModel<KernelSpec>>),
    /// A landmark LS-SVM or kernel ridge.
    Landmark(Box<NystromRidge>),
}

impl Model for CellModel {
    type Error = ModelsError;
    fn predict(&self, x: &Samples) -> Result<Vec<f64>, ModelsError> {
        match self {
            CellModel::Svc(m) => m.predict(x),
            CellModel::Svr(m) => m.predict(x),
            CellModel::LsSvm(m) => m.predict(x),
            CellModel::Krr(m) => m.predict(x),
            CellModel::Kfa(m) => m.predict(x),
            CellModel::Landmark(m) => m.predict(x),
        }
    }
}

/// Fits the learner on labelled samples, as a cross-validation cell does (a one-class SVM, which
/// learns no labels, and the railway SVC are not cross-validated: an error).
impl Fit<Targets> for AnyParams {
    type Model = CellModel;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &Targets) -> Result<CellModel, ModelsError> {
        Ok(match self {
            AnyParams::Svc(p) => CellModel::Svc(Box::new(p.fit(x, y)?)),
            AnyParams::NuSvc(p) => CellModel::Svc(Box::new(p.fit(x, y)?)),
            AnyParams::Svr(p) => CellModel::Svr(Box::new(p.fit(x, y)?)),
            AnyParams::NuSvr(p) => CellModel::Svr(Box::new(p.fit(x, y)?)),
            AnyParams::LsSvm(p) => CellModel::LsSvm(Box::new(p.fit(x, y)?)),
            AnyParams::Krr(p) => CellModel::Krr(Box::new(p.fit(x, y)?)),
            AnyParams::Kfa(p) => CellModel::Kfa(Box::new(p.fit(x, y)?)),
            AnyParams::Landmark(p) => CellModel::Landmark(Box::new(p.fit_targets(x, y)?)),
            AnyParams::OneClass(_) | AnyParams::Railway(_) => {
                return Err(ModelsError::Input(
                    "one-class and railway models are trained by kern train, not cross-validated".into(),
                ));
            }
        })
    }
}

/// The warning of a model whose regularization leaves it constant: every training decision value
/// within `tol` (the solver's tolerance, relative to the targets) of the intercept. `spread` is the
/// model's relative spread on its training targets (`relative_spread` of the ridge models,
/// [`nystrom_spread`] of a landmark model). `kern train`, `kern cv` (per cell) and `kern-mpi train`
/// all warn with it.
///
/// ```
/// use kern_cli::any_params::constant_warning;
/// assert!(constant_warning(1e-9, 1e-6, 1e6).unwrap().contains("use a smaller --lambda"));
/// assert_eq!(constant_warning(0.5, 1e-6, 1.0), None);
/// ```
pub fn constant_warning(spread: f64, tol: f64, lambda: f64) -> Option<String> {
    (spread <= tol).then(|| {
        format!(
            "the model is constant: every training decision value is within {tol:e} (relative) of the \
             intercept, as lambda = {lambda:e} regularizes everything away (lambda is the ridge penalty \
             of K + lambda I: larger, more regularization); use a smaller --lambda"
        )
    })
}

/// How far a landmark model's decision values on `x` stray from its intercepts, against the targets
/// `y` of those rows (kern-models' [`Spread`]; its `ratio()` is the relative spread). `y` is encoded
/// as the model's outputs are: ±1 (binary; two classes), ±1 one-vs-rest (more classes), or the
/// values. One pass over the kernel matrix between the rows and the centres; parts of the training
/// rows (one per process) combine with [`Spread::merge`].
///
/// ```
/// use kern_core::{RealTargets, Samples, Targets};
/// use kern_models::landmark::{Landmarks, NystromRidgeParams};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
/// let y = Targets::Real(RealTargets::new(vec![0.0, 1.0, 2.0, 3.0])?);
/// let m = NystromRidgeParams::krr("linear".parse()?, 1e6, "random:2".parse::<Landmarks>()?).fit_targets(&x, &y)?;
/// assert!(kern_cli::any_params::nystrom_spread(&m, &x, &y)?.ratio() < 1e-3);
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub fn nystrom_spread(m: &NystromRidge, x: &Samples, y: &Targets) -> Result<Spread, CliError> {
    let f = m.decision_function(x)?;
    let r = m.outputs();
    let target = |i: usize, t: usize| -> f64 {
        let sign = |b: bool| if b { 1.0 } else { -1.0 };
        match y {
            Targets::Binary(b) => b.y()[i],
            Targets::Classes(c) if r == 1 => sign(c.classes()[i] == 1),
            Targets::Classes(c) => sign(c.classes()[i] == t),
            Targets::Real(v) => v.values()[i],
        }
    };
    let mut s = Spread::default();
    for t in 0..r {
        let b = m.bias(t);
        for i in 0..x.n() {
            s.add(f[(i, t)] - b, target(i, t) - b);
        }
    }
    Ok(s)
}

/// The constant-model warning of a model a cross-validation cell trained on `x`, `y` (`tol`: the
/// ridge solver's tolerance): lssvm, krr and the landmark models (cells train unweighted); `None`
/// for the others.
fn cell_warning(m: &CellModel, x: &Samples, y: &Targets, tol: f64) -> Result<Option<String>, CliError> {
    Ok(match m {
        CellModel::LsSvm(m) => constant_warning(m.relative_spread(y)?, tol, m.lambda()),
        CellModel::Krr(m) => constant_warning(m.relative_spread(y)?, tol, m.lambda()),
        CellModel::Landmark(m) => constant_warning(nystrom_spread(m, x, y)?.ratio(), tol, m.lambda()),
        _ => None,
    })
}

/// A cross-validation cell's learner that keeps the constant-model warning of its fits
/// ([`constant_warning`]): `warnings[cell]` takes the first fold's warning. `kern cv` adds it to the
/// cell in its JSON.
///
/// ```
/// use std::sync::Mutex;
/// use kern_core::learner::Fit;
/// use kern_core::{RealTargets, Samples, Targets};
/// use kern_cli::any_params::{AnyParams, Watched};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0]])?;
/// let y = Targets::Real(RealTargets::new(vec![0.0, 2.0, 4.0])?);
/// let warnings = vec![Mutex::new(None)];
/// let krr = |l| AnyParams::Krr(kern_models::krr::KernelRidgeParams::new("linear".parse().unwrap()).lambda(l));
/// Watched { params: krr(1e-9), cell: 0, tol: 1e-6, warnings: &warnings }.fit(&x, &y)?;
/// assert!(warnings[0].lock().unwrap().is_none());
/// Watched { params: krr(1e12), cell: 0, tol: 1e-6, warnings: &warnings }.fit(&x, &y)?;
/// assert!(warnings[0].lock().unwrap().as_deref().unwrap().contains("constant"));
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub struct Watched<'a> {
    /// The cell's learner.
    pub params: AnyParams,
    /// The cell's index in the grid.
    pub cell: usize,
    /// The ridge solver's tolerance (the bound of a constant model's spread).
    pub tol: f64,
    /// One slot per cell.
    pub warnings: &'a [std::sync::Mutex<Option<String>>],
}

impl Fit<Targets> for Watched<'_> {
    type Model = CellModel;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &Targets) -> Result<CellModel, ModelsError> {
        let m = self.params.fit(x, y)?;
        let w = cell_warning(&m, x, y, self.tol).map_err(|e| ModelsError::Input(e.to_string()))?;
        if let (Some(w), Some(slot)) = (w, self.warnings.get(self.cell)) {
            slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_or_insert(w);
        }
        Ok(m)
    }
}
