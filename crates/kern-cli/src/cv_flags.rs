//! The flags of the cross-validation command and their translation into a grid search: one
//! definition for `kern cv` and `kern-mpi cv` (kern-dist), which differ only in how the data file is
//! read and where the (cell, fold) fits run.
//!
//! `--grid` names model parameters — `c`, `lambda` and `epsilon` (the SVR tube) for the SVMs, `nu` for
//! the ν types (`--type nu-svc|nu-svr`), `lambda` (the regularization λ) for `lssvm` and `krr`,
//! `max_fv` and `min_fitness` for `kfa` — and every other name is a parameter of the kernel spec,
//! written into it (`--kernel gaussian --grid sigma=0.1..2:5` trains `gaussian:sigma=0.1`, …); a
//! kernel key that collides with a model parameter takes the prefix `k.` (`k.c=1..3:3` is the support
//! radius of a `cs-` kernel, `k.nu` its exponent under a ν type).
//!
//! ```
//! use clap::Parser;
//! use kern_cli::cv_flags::CvFlags;
//! use kern_cli::kinds::{Learner, ModelKind};
//! #[derive(Parser)]
//! struct Cli {
//!     #[command(flatten)]
//!     cv: CvFlags,
//! }
//! let cli = Cli::try_parse_from(["cv", "--model", "krr", "--kernel", "gaussian", "--grid", "lambda=0.1..1:2,sigma=1..2:2"])?;
//! let plan = cli.cv.plan()?;
//! assert_eq!((plan.learner, plan.grid.len()), (Learner::Model(ModelKind::Krr), 4));
//! let cell = cli.cv.cell(&plan, &plan.grid.points()[3])?;
//! let kern_cli::cv_flags::CellLearner::Krr(p) = cell else { panic!("a kernel ridge") };
//! assert_eq!(p.kernel.to_string(), "gaussian:sigma=2");
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! ```

use crate::CliError;
use crate::kinds::{Learner, ModelKind, SvmType, check_classes, targets};
use crate::learner_flags::LearnerFlags;
use kern_core::io::Dataset;
use kern_core::learner::{Fit, Model};
use kern_core::{KernelSpec, Samples, Targets};
use kern_models::ModelsError;
use kern_models::fvs::FvsParams;
use kern_models::kfa::{BasisChoice, KfaModel, KfaParams};
use kern_models::krr::{KernelRidge, KernelRidgeParams};
use kern_models::lssvm::{LsSvm, LsSvmParams};
use kern_models::svm::{NuSvcParams, NuSvrParams, SharedGram, Svc, SvcParams, Svr, SvrParams};
use kern_sparse::pcg::PcgOptions;
use kern_tune::cv::{CvConfig, Scoring, Stratify, Validation};
use kern_tune::grid::{GridSearchConfig, ParamGrid, ParamPoint};
use serde_json::{Value, json};

/// The flags of the cross-validation command (all but the data file's).
///
/// ```
/// use clap::Parser;
/// #[derive(Parser)]
/// struct Cli {
///     #[command(flatten)]
///     cv: kern_cli::cv_flags::CvFlags,
/// }
/// let cli = Cli::try_parse_from(["cv", "--type", "nu-svc", "--kernel", "gaussian", "--grid", "nu=0.1..0.5:3"])?;
/// assert_eq!((cli.cv.folds.as_str(), cli.cv.seed), ("5", 0));
/// # Ok::<(), clap::Error>(())
/// ```
#[derive(clap::Args, Debug, Clone)]
pub struct CvFlags {
    /// The learner's flags, as `kern train`'s (`--model`, `--type`, `--kernel`, `--c`, `--nu`, …).
    #[command(flatten)]
    pub learner: LearnerFlags,
    /// Number of folds (k-fold), a kern-tune validation spec (kfold:K[:REPEATS], loo, holdout:F), or
    /// file:PATH: the folds given, one integer per line for each sample in file order (the fold in
    /// which it is tested; -1: always trains), as scikit-learn's PredefinedSplit.
    #[arg(long, default_value = "5")]
    pub folds: String,
    /// The grid, e.g. c=2^-5..2^15:11,sigma=0.1..2:5 (kern-tune grid syntax).
    #[arg(long)]
    pub grid: String,
    /// Scoring: auto (accuracy / negative MSE), accuracy, neg_mse, neg_mae.
    #[arg(long, default_value = "auto")]
    pub scoring: String,
    /// Seed of the folds (and of the probability CV, unused here).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Refuse grids with more cells than this (every cell trains one model per fold).
    #[arg(long, default_value_t = 10_000)]
    pub max_cells: usize,
    /// Fit every (cell, fold) of a two-class svc grid over c on its own, from zero. By default the
    /// cells that share a kernel are fitted fold by fold in ascending c, each from the previous
    /// solution, reading one kernel matrix of all samples (when it fits in --cache-mb).
    #[arg(long)]
    pub no_warm_start: bool,
}

/// The checked translation of [`CvFlags`]: the grid, the learner, the folds and scoring.
///
/// ```
/// use kern_cli::cv_flags::CvPlan;
/// fn cells(p: &CvPlan) -> usize { p.grid.len() }
/// ```
#[derive(Clone, Debug)]
pub struct CvPlan {
    /// The grid.
    pub grid: ParamGrid,
    /// What each cell fits.
    pub learner: Learner,
    /// Folds (`--folds`, `--seed`, stratified for classes), scoring; no refit.
    pub config: GridSearchConfig,
    /// `--kernel precomputed`: the data file is the kernel matrix.
    pub precomputed: bool,
}

/// Whether `--kernel` asks for a precomputed kernel.
///
/// ```
/// assert!(kern_cli::cv_flags::is_precomputed(" precomputed"));
/// ```
pub fn is_precomputed(kernel: &str) -> bool {
    kernel.trim() == "precomputed"
}

/// Writes `key=value` into a simple kernel spec `name[:k=v,...]`; a Gaussian width replaces the other
/// width parameters.
///
/// ```
/// use kern_cli::cv_flags::set_kernel_param;
/// assert_eq!(set_kernel_param("gaussian:beta=2", "sigma", 0.5)?, "gaussian:sigma=0.5");
/// assert!(set_kernel_param("linear + gaussian:beta=1", "beta", 1.0).is_err());
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub fn set_kernel_param(spec: &str, key: &str, value: f64) -> Result<String, CliError> {
    if spec.contains(['+', '*', '(']) {
        return Err(format!(
            "cannot set {key:?} in the compound kernel spec {spec:?}; grid over a simple kernel"
        )
        .into());
    }
    let (name, params) = spec.split_once(':').unwrap_or((spec, ""));
    let mut kv: Vec<(String, String)> = params
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .filter_map(|s| s.split_once('=').map(|(k, v)| (k.trim().to_string(), v.trim().to_string())))
        .collect();
    // The Gaussian takes exactly one of sigma / beta / gamma / std: a grid over one replaces the others.
    let width = ["sigma", "beta", "gamma", "std"];
    if width.contains(&key) && name.trim().trim_start_matches("cs-").starts_with(['g', 'r']) {
        kv.retain(|(k, _)| !width.contains(&k.as_str()));
    }
    match kv.iter_mut().find(|(k, _)| k == key) {
        Some(e) => e.1 = format!("{value}"),
        None => kv.push((key.to_string(), format!("{value}"))),
    }
    let body: Vec<String> = kv.iter().map(|(k, v)| format!("{k}={v}")).collect();
    Ok(format!("{}:{}", name.trim(), body.join(",")))
}

/// Grid names that are model parameters rather than kernel parameters (`nu` only under a ν type,
/// where a kernel's `nu` is written `k.nu`).
const MODEL_PARAMS: [&str; 5] = ["c", "lambda", "epsilon", "max_fv", "min_fitness"];

/// Whether grid name `name` is a model parameter (`nu_model`: the model is a ν type).
fn is_model_param(name: &str, nu_model: bool) -> bool {
    MODEL_PARAMS.contains(&name) || (nu_model && name == "nu")
}

/// The kernel of a grid point: `spec` with every grid name that is not a model parameter written
/// into it (`nu_model`: the model is a ν type, whose `nu` is a model parameter).
///
/// ```
/// use kern_tune::grid::ParamGrid;
/// let grid: ParamGrid = "c=1..2:2,sigma=[0.5]".parse()?;
/// let k = kern_cli::cv_flags::kernel_at("gaussian", &grid.points()[0], false)?;
/// assert_eq!(k.to_string(), "gaussian:sigma=0.5");
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub fn kernel_at(spec: &str, p: &ParamPoint, nu_model: bool) -> Result<KernelSpec, CliError> {
    let mut s = spec.to_string();
    for (name, v) in p.iter() {
        if is_model_param(name, nu_model) {
            continue;
        }
        s = set_kernel_param(&s, name.strip_prefix("k.").unwrap_or(name), v)?;
    }
    Ok(s.parse::<KernelSpec>()?)
}

/// The model parameters an SVM type takes from the grid; a grid axis naming another model parameter
/// (or, for a precomputed kernel, anything else) is an error.
fn check_axes(grid: &ParamGrid, l: Learner, precomputed: bool) -> Result<(), CliError> {
    let (t, takes): (SvmType, &[&str]) = match l {
        Learner::Svm(t @ SvmType::CSvc) => (t, &["c", "lambda"]),
        Learner::Svm(t @ SvmType::NuSvc) => (t, &["nu"]),
        Learner::Svm(t @ SvmType::EpsilonSvr) => (t, &["c", "lambda", "epsilon"]),
        Learner::Svm(t @ SvmType::NuSvr) => (t, &["c", "lambda", "nu"]),
        Learner::Svm(SvmType::OneClass) | Learner::Model(_) => return Ok(()),
    };
    let nu_model = t.is_nu();
    for name in grid.names() {
        if takes.contains(&name) {
            continue;
        }
        if is_model_param(name, nu_model) {
            return Err(format!(
                "the grid axis {name:?} is not a parameter of --type {} (it takes {})",
                t.name(),
                takes.join(", ")
            )
            .into());
        }
        if precomputed && name == "nu" {
            return Err(format!(
                "the grid axis \"nu\" is a parameter of --type nu-svc and nu-svr, not of --type {}, and a \
                 precomputed kernel has no parameters",
                t.name()
            )
            .into());
        }
        if precomputed {
            return Err(format!(
                "the grid axis {name:?} would be a kernel parameter, but a precomputed kernel has none (its \
                 values are fixed in the file); grid over the model's parameters ({}), or compute one \
                 kernel file per kernel parameter value",
                takes.join(", ")
            )
            .into());
        }
    }
    Ok(())
}

impl CvFlags {
    /// What the cross-validation fits: the learner's flags resolved ([`LearnerFlags::resolve`]), a
    /// one-class SVM refused (it learns no labels to score).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] cv: kern_cli::cv_flags::CvFlags }
    /// use kern_cli::kinds::{Learner, SvmType};
    /// let cli = Cli::try_parse_from(["cv", "--model", "svr", "--kernel", "rbf:gamma=1", "--grid", "c=1..2:2"])?;
    /// assert_eq!(cli.cv.learner()?, Learner::Svm(SvmType::EpsilonSvr));
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn learner(&self) -> Result<Learner, CliError> {
        let l = self.learner.resolve()?;
        if l == Learner::Svm(SvmType::OneClass) {
            return Err(
                "kern cv scores predictions against the labels of held-out points; a one-class SVM is \
                        trained without labels, so it is not cross-validated here (train it with kern train \
                        --type one-class)"
                    .into(),
            );
        }
        Ok(l)
    }

    /// Checks the flags and translates them: the grid (at most `--max-cells` cells), the folds,
    /// the scoring, the learner, the grid's axes against it, and the kernel of the first cell.
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] cv: kern_cli::cv_flags::CvFlags }
    /// let cli = Cli::try_parse_from(["cv", "--type", "nu-svc", "--kernel", "rbf:gamma=1", "--grid", "c=1..2:2"])?;
    /// assert!(cli.cv.plan().unwrap_err().to_string().contains("not a parameter of --type nu-svc"));
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn plan(&self) -> Result<CvPlan, CliError> {
        let grid: ParamGrid = self.grid.parse()?;
        if grid.len() > self.max_cells {
            return Err(format!(
                "the grid has {} cells, more than --max-cells {}; use fewer points per axis or raise --max-cells",
                grid.len(),
                self.max_cells
            )
            .into());
        }
        let validation: Validation = self.folds.parse()?;
        let scoring: Scoring = self.scoring.parse()?;
        let learner = self.learner()?;
        let precomputed = is_precomputed(&self.learner.kernel);
        check_axes(&grid, learner, precomputed)?;
        if let (true, Learner::Model(m)) = (precomputed, learner) {
            return Err(format!(
                "--kernel precomputed cross-validates SVMs (--type c-svc|nu-svc|epsilon-svr|nu-svr, or --model \
                 svc|svr), not --model {}",
                m.name()
            )
            .into());
        }
        // Fail early on a kernel the grid cannot fill in.
        if !precomputed && let Some(p) = grid.points().first() {
            kernel_at(&self.learner.kernel, p, is_nu(learner))?;
        }
        let config = GridSearchConfig {
            cv: CvConfig { validation, stratify: Stratify::Auto, scoring, seed: self.seed },
            refit: false,
        };
        Ok(CvPlan { grid, learner, config, precomputed })
    }

    /// Refuses, for `lssvm` and `krr` on the dense path, the dense kernel matrices of the folds fitted
    /// at once (two per concurrent fit) when they do not fit in memory.
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] cv: kern_cli::cv_flags::CvFlags }
    /// let cli = Cli::try_parse_from(["cv", "--model", "krr", "--kernel", "rbf:gamma=1", "--grid", "lambda=1..2:2"])?;
    /// let x = kern_core::Samples::from_rows(&[[0.0], [1.0], [2.0]])?;
    /// cli.cv.check_memory(&cli.cv.plan()?, &x)?;
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn check_memory(&self, plan: &CvPlan, x: &Samples) -> Result<(), CliError> {
        if let Learner::Model(ModelKind::Lssvm | ModelKind::Krr) = plan.learner {
            let kernel = kernel_at(&self.learner.kernel, &plan.grid.points()[0], false)?;
            let path = kern_models::kmat::PathChoice::Auto;
            if kern_models::kmat::choose_path(&kernel, x, path)? == kern_models::kmat::SolvePath::Dense {
                let concurrent = self.threads.unwrap_or_else(rayon::current_num_threads).max(1);
                let what = "the dense kernel matrices of the folds fitted at once";
                let bytes = kern_core::memory::bytes_for::<f64>(&[x.n(), x.n(), 2 * concurrent], what)?;
                kern_core::memory::check_bytes(
                    bytes,
                    what,
                    "use --threads 1, a compactly supported kernel (cs-gaussian:...), a sample of the data, or raise --max-memory",
                )?;
            }
        }
        Ok(())
    }

    /// The targets the learner is scored on (after the checks of its labels).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] cv: kern_cli::cv_flags::CvFlags }
    /// use kern_core::{io::Dataset, Samples, Targets};
    /// let cli = Cli::try_parse_from(["cv", "--model", "krr", "--kernel", "rbf:gamma=1", "--grid", "lambda=1..2:2"])?;
    /// let labels = vec!["0.5".into(), "1.5".into()];
    /// let ds = Dataset { samples: Samples::from_rows(&[[0.0], [1.0]])?, labels, feature_names: vec![] };
    /// assert!(matches!(cli.cv.targets(cli.cv.learner()?, &ds)?, Targets::Real(_)));
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn targets(&self, l: Learner, ds: &Dataset) -> Result<Targets, CliError> {
        match l {
            Learner::Svm(SvmType::CSvc) => {
                check_classes(ds, self.learner.allow_many_classes)?;
                targets(ds, false)
            }
            // `--multiclass ovr` is refused with nu-svc by `LearnerFlags::resolve`.
            Learner::Svm(SvmType::NuSvc) => {
                check_classes(ds, self.learner.allow_many_classes)?;
                targets(ds, false)
            }
            Learner::Svm(SvmType::EpsilonSvr | SvmType::NuSvr) | Learner::Model(ModelKind::Krr) => {
                Ok(Targets::Real(ds.real()?))
            }
            Learner::Model(ModelKind::Lssvm | ModelKind::Kfa) => targets(ds, self.learner.regression),
            Learner::Svm(SvmType::OneClass) | Learner::Model(ModelKind::Svc | ModelKind::Svr) => {
                Err("a one-class SVM, --model svc and --model svr are resolved into their SVM types first"
                    .into())
            }
        }
    }

    /// The conjugate gradients' settings of lssvm and krr (used where the solver is iterative: on the
    /// sparse path when the direct factor would not fit, as in `kern train --solver auto`): `--tol`
    /// over the model's default.
    fn pcg(&self, d: PcgOptions) -> Result<PcgOptions, CliError> {
        Ok(PcgOptions { tol: self.learner.tol.unwrap_or(d.tol), ..d }.validate()?)
    }

    /// The regularization `C` of grid point `p`: the grid's, else `--c` (else the model's default).
    fn c_at(&self, p: &ParamPoint) -> Option<f64> {
        p.get("c").or(self.learner.c)
    }

    /// The kernel of grid point `p` (for a precomputed kernel a placeholder, never evaluated).
    fn kernel_of(&self, plan: &CvPlan, p: &ParamPoint) -> Result<KernelSpec, CliError> {
        if plan.precomputed {
            Ok(KernelSpec::Linear(kern_core::Linear))
        } else {
            kernel_at(&self.learner.kernel, p, is_nu(plan.learner))
        }
    }

    /// The C-SVC of grid point `p` (its kernel, `c`, `lambda`, the solver and multi-class flags).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] cv: kern_cli::cv_flags::CvFlags }
    /// let cli = Cli::try_parse_from(["cv", "--model", "svc", "--kernel", "linear", "--grid", "c=1..2:2"])?;
    /// let plan = cli.cv.plan()?;
    /// let m = cli.cv.svc_params(&plan, &plan.grid.points()[1])?;
    /// assert_eq!(m, kern_models::svm::SvcParams::new("linear".parse()?).c(2.0));
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn svc_params(&self, plan: &CvPlan, p: &ParamPoint) -> Result<SvcParams, CliError> {
        let mut m = SvcParams::new(self.kernel_of(plan, p)?).solver(self.learner.solver());
        if let Some(c) = self.c_at(p) {
            m = m.c(c);
        }
        if let Some(l) = p.get("lambda") {
            m = m.lambda(l);
        }
        Ok(m.multiclass(self.learner.scheme().into()))
    }

    /// The learner of grid point `p`: what one (cell, fold) fit trains.
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] cv: kern_cli::cv_flags::CvFlags }
    /// use kern_cli::cv_flags::CellLearner;
    /// let cli = Cli::try_parse_from(["cv", "--model", "kfa", "--kernel", "rbf:gamma=1", "--grid", "max_fv=[2.5]"])?;
    /// let plan = cli.cv.plan()?;
    /// assert!(cli.cv.cell(&plan, &plan.grid.points()[0]).unwrap_err().to_string().contains("positive integer"));
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn cell(&self, plan: &CvPlan, p: &ParamPoint) -> Result<CellLearner, CliError> {
        let nu = self.learner.nu_value();
        let solver = self.learner.solver();
        Ok(match plan.learner {
            Learner::Svm(SvmType::CSvc) => CellLearner::Svc(self.svc_params(plan, p)?),
            Learner::Svm(SvmType::NuSvc) => CellLearner::NuSvc(
                NuSvcParams::new(self.kernel_of(plan, p)?).nu(p.get("nu").unwrap_or(nu)).solver(solver),
            ),
            Learner::Svm(SvmType::EpsilonSvr) => {
                let mut m = SvrParams::new(self.kernel_of(plan, p)?)
                    .epsilon(p.get("epsilon").unwrap_or(self.learner.epsilon_value()))
                    .solver(solver);
                if let Some(c) = self.c_at(p) {
                    m = m.c(c);
                }
                if let Some(l) = p.get("lambda") {
                    m = m.lambda(l);
                }
                CellLearner::Svr(m)
            }
            Learner::Svm(SvmType::NuSvr) => {
                let mut m =
                    NuSvrParams::new(self.kernel_of(plan, p)?).nu(p.get("nu").unwrap_or(nu)).solver(solver);
                if let Some(c) = self.c_at(p) {
                    m = m.c(c);
                }
                if let Some(l) = p.get("lambda") {
                    m = m.lambda(l);
                }
                CellLearner::NuSvr(m)
            }
            Learner::Model(ModelKind::Lssvm) => {
                let mut m = LsSvmParams::new(kernel_at(&self.learner.kernel, p, false)?);
                m.solver.pcg = self.pcg(m.solver.pcg)?;
                // Without a λ in the grid each fit chooses its own by leave-one-out (nested).
                CellLearner::LsSvm(match p.get("lambda") {
                    Some(l) => m.lambda(l),
                    None => m,
                })
            }
            Learner::Model(ModelKind::Krr) => {
                let mut m = KernelRidgeParams::new(kernel_at(&self.learner.kernel, p, false)?);
                m.solver.pcg = self.pcg(m.solver.pcg)?;
                CellLearner::Krr(match p.get("lambda") {
                    Some(l) => m.lambda(l),
                    None => m,
                })
            }
            Learner::Model(ModelKind::Kfa) => {
                // Without max_fv in the grid or --max-fv, the selection has no limit, as in `kern train`.
                let max_fv = match p.get("max_fv") {
                    Some(v) if v >= 1.0 && v.fract() == 0.0 => Some(v as usize),
                    Some(v) => return Err(format!("max_fv must be a positive integer, got {v}").into()),
                    None => self.learner.max_fv,
                };
                let fvs = FvsParams { max_fv, min_fitness: p.get("min_fitness"), ..Default::default() };
                CellLearner::Kfa(Box::new(
                    KfaParams::new(kernel_at(&self.learner.kernel, p, false)?).basis(BasisChoice::Fvs(fvs)),
                ))
            }
            Learner::Svm(SvmType::OneClass) | Learner::Model(ModelKind::Svc | ModelKind::Svr) => {
                return Err(
                    "a one-class SVM, --model svc and --model svr are resolved into their SVM types first"
                        .into(),
                );
            }
        })
    }

    /// Whether the search takes the warm-started path over `c` (`kern cv`'s default for a two-class
    /// C-SVC whose grid has `c` and not `lambda`, when the kernel matrix of all `n` samples fits in
    /// `--cache-mb`): the cells that share a kernel are then fitted fold by fold in ascending `c`, each
    /// fit from the previous solution.
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] cv: kern_cli::cv_flags::CvFlags }
    /// use kern_core::{BinaryTargets, Targets};
    /// let y = Targets::Binary(BinaryTargets::from_labels(&["a", "b", "a", "b"])?);
    /// let cli = Cli::try_parse_from(["cv", "--model", "svc", "--kernel", "rbf:gamma=1", "--grid", "c=1..2:2"])?;
    /// assert!(cli.cv.warm_c_path(&cli.cv.plan()?, 4, &y));
    /// let cli = Cli::try_parse_from(["cv", "--model", "svc", "--kernel", "rbf:gamma=1", "--grid", "c=1..2:2", "--no-warm-start"])?;
    /// assert!(!cli.cv.warm_c_path(&cli.cv.plan()?, 4, &y));
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn warm_c_path(&self, plan: &CvPlan, n: usize, y: &Targets) -> bool {
        plan.learner == Learner::Svm(SvmType::CSvc)
            && matches!(y, Targets::Binary(_))
            && !self.no_warm_start
            && plan.grid.names().contains(&"c")
            && !plan.grid.names().contains(&"lambda")
            && SharedGram::fits(n, (self.learner.cache_mb_value() * 1024.0 * 1024.0) as usize)
    }

    /// The command's JSON summary of a grid search report (`report`: the report as JSON; `n`
    /// samples; `seconds` of the search).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] cv: kern_cli::cv_flags::CvFlags }
    /// let cli = Cli::try_parse_from(["cv", "--type", "nu-svr", "--kernel", "rbf:gamma=1", "--grid", "nu=[0.5]"])?;
    /// let report = serde_json::json!({"best": 0, "cells": [{"params": {"nu": 0.5}, "mean": -0.25}]});
    /// let s = cli.cv.summary(cli.cv.learner()?, 10, &report, 1.5);
    /// assert_eq!((s["model"].as_str(), s["type"].as_str(), s["best_score"].as_f64()), (Some("svr"), Some("nu-svr"), Some(-0.25)));
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn summary(&self, l: Learner, n: usize, report: &Value, seconds: f64) -> Value {
        let best = report["best"].as_u64().unwrap_or(0) as usize;
        let cells = report["cells"].clone();
        let best_cell = cells.get(best).cloned().unwrap_or(Value::Null);
        let (model, svm_type) = match l {
            Learner::Svm(t) => (t.model().map_or("one-class", ModelKind::name), Some(t)),
            Learner::Model(m) => (m.name(), None),
        };
        json!({
            "model": model,
            "type": svm_type.map(SvmType::name),
            "n": n,
            "kernel": self.learner.kernel,
            "scoring": report["scoring"],
            "validation": report["validation"],
            "stratified": report["stratified"],
            "seed": self.seed,
            "best_params": best_cell["params"],
            "best_score": best_cell["mean"],
            "cells": cells,
            "seconds": seconds,
        })
    }
}

/// Whether the learner is a ν type (its grid's `nu` is the model's).
fn is_nu(l: Learner) -> bool {
    matches!(l, Learner::Svm(t) if t.is_nu())
}

/// The learner of one grid cell ([`CvFlags::cell`]): one type for every model kind, so that one
/// grid search (local, or spread over MPI ranks) runs any of them.
///
/// ```
/// use kern_core::learner::Fit;
/// use kern_core::{RealTargets, Samples, Targets};
/// use kern_cli::cv_flags::CellLearner;
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
/// let y = Targets::Real(RealTargets::new(vec![0.0, 1.0, 2.0, 3.0])?);
/// let cell = CellLearner::Krr(kern_models::krr::KernelRidgeParams::new("linear".parse()?).lambda(1e-6));
/// let m = cell.fit(&x, &y)?;
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
#[derive(Clone, Debug)]
pub enum CellLearner {
    /// C-SVC.
    Svc(SvcParams),
    /// ν-SVC.
    NuSvc(NuSvcParams),
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
}

/// A model trained by a [`CellLearner`].
///
/// ```
/// use kern_core::learner::{Fit, Model};
/// use kern_core::{RealTargets, Samples, Targets};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0]])?;
/// let y = Targets::Real(RealTargets::new(vec![0.0, 2.0, 4.0])?);
/// let cell = kern_cli::cv_flags::CellLearner::Krr(kern_models::krr::KernelRidgeParams::new("linear".parse()?).lambda(1e-9));
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
        }
    }
}

impl Fit<Targets> for CellLearner {
    type Model = CellModel;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &Targets) -> Result<CellModel, ModelsError> {
        Ok(match self {
            CellLearner::Svc(p) => CellModel::Svc(Box::new(p.fit(x, y)?)),
            CellLearner::NuSvc(p) => CellModel::Svc(Box::new(p.fit(x, y)?)),
            CellLearner::Svr(p) => CellModel::Svr(Box::new(p.fit(x, y)?)),
            CellLearner::NuSvr(p) => CellModel::Svr(Box::new(p.fit(x, y)?)),
            CellLearner::LsSvm(p) => CellModel::LsSvm(Box::new(p.fit(x, y)?)),
            CellLearner::Krr(p) => CellModel::Krr(Box::new(p.fit(x, y)?)),
            CellLearner::Kfa(p) => CellModel::Kfa(Box::new(p.fit(x, y)?)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kern_models::svm::SolverParams;

    #[test]
    fn cv_refuses_one_class_and_resolves_the_rest_as_train_does() {
        let cv = |args: &[&str]| {
            let mut a = vec!["--grid", "c=[1]"];
            a.extend(args);
            cv(&a)
        };
        for args in [&["--type", "one-class"][..], &["--type", "one-class", "--nu", "0.3"]] {
            let e = cv(args).learner().unwrap_err().to_string();
            assert!(e.contains("one-class SVM is trained without labels"), "{args:?}: {e}");
        }
        for args in [
            &["--model", "svc"][..],
            &["--model", "svr", "--type", "nu-svr"],
            &["--type", "nu-svc", "--nu", "0.2"],
            &["--model", "krr"],
            &["--model", "svc", "--nu", "0.2"],
            &["--model", "kfa", "--type", "c-svc"],
            &["--type", "nu-svc", "--c", "2"],
        ] {
            let f = cv(args);
            let (got, want) = (f.learner(), f.learner.resolve());
            assert_eq!(got.map_err(|e| e.to_string()), want.map_err(|e| e.to_string()), "{args:?}");
        }
    }

    fn cv(args: &[&str]) -> CvFlags {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            cv: CvFlags,
        }
        let mut a = vec!["cv", "--kernel", "gaussian:sigma=1"];
        a.extend(args);
        Cli::try_parse_from(a).expect("flags parse").cv
    }

    /// `kern cv` (and `kern-mpi cv`) refuse in `plan`, before reading data, every learner flag that
    /// `kern train` refuses, with the same message; the flags that apply reach the cells.
    #[test]
    fn cv_refuses_the_flags_train_refuses_and_passes_on_the_rest() {
        for args in [
            &["--type", "nu-svr", "--grid", "nu=[0.5]", "--epsilon-tube", "0.2"][..],
            &["--type", "c-svc", "--grid", "c=[1]", "--epsilon-tube", "0.2"],
            &["--model", "krr", "--grid", "lambda=[1]", "--epsilon-tube", "0.2"],
            &["--model", "krr", "--grid", "lambda=[1]", "--c", "2"],
            &["--model", "kfa", "--grid", "max_fv=[3]", "--tol", "1e-4"],
            &["--model", "lssvm", "--grid", "lambda=[1]", "--cache-mb", "8"],
            &["--model", "svr", "--grid", "c=[1]", "--multiclass", "ovo"],
            &["--type", "nu-svc", "--grid", "nu=[0.5]", "--multiclass", "ovr"],
            &["--model", "svc", "--grid", "c=[1]", "--regression"],
            &["--model", "lssvm", "--grid", "lambda=[1]", "--max-fv", "3"],
            &["--model", "krr", "--grid", "lambda=[1]", "--allow-many-classes"],
        ] {
            let f = cv(args);
            let want = f.learner.resolve().expect_err("train refuses").to_string();
            assert!(want.contains(" does not apply to "), "{args:?}: {want}");
            assert_eq!(f.plan().expect_err("cv refuses").to_string(), want, "{args:?}");
        }
        // Given where they apply, the flags reach the cell's learner; absent, the defaults do.
        let f = cv(&["--model", "svr", "--grid", "c=[1]", "--epsilon-tube", "0.25", "--cache-mb", "8"]);
        let plan = f.plan().expect("plan");
        let CellLearner::Svr(m) = f.cell(&plan, &plan.grid.points()[0]).expect("cell") else { panic!("svr") };
        let want = SvrParams::new("gaussian:sigma=1".parse().expect("spec"))
            .c(1.0)
            .epsilon(0.25)
            .solver(SolverParams { cache_mb: 8.0, ..SolverParams::default() });
        assert_eq!(m, want);
        for (tol, want) in [(Some("1e-9"), 1e-9), (None, PcgOptions::default().tol)] {
            let mut a = vec!["--model", "krr", "--grid", "lambda=[1]"];
            a.extend(tol.map(|t| ["--tol", t]).iter().flatten());
            let f = cv(&a);
            let plan = f.plan().expect("plan");
            let CellLearner::Krr(m) = f.cell(&plan, &plan.grid.points()[0]).expect("cell") else {
                panic!("krr")
            };
            assert_eq!(m.solver.pcg.tol, want, "{a:?}");
        }
        let f = cv(&["--model", "lssvm", "--grid", "lambda=[1]", "--tol", "2"]);
        let plan = f.plan().expect("plan");
        assert!(f.cell(&plan, &plan.grid.points()[0]).is_err(), "--tol 2 is out of (0, 1)");
    }

    #[test]
    fn kernel_parameters_are_written_into_the_spec() {
        assert_eq!(set_kernel_param("gaussian", "sigma", 0.5).unwrap(), "gaussian:sigma=0.5");
        assert_eq!(set_kernel_param("gaussian:beta=2", "sigma", 0.5).unwrap(), "gaussian:sigma=0.5");
        assert_eq!(
            set_kernel_param("cs-gaussian:sigma=1,c=2,nu=3", "c", 3.0).unwrap(),
            "cs-gaussian:sigma=1,c=3,nu=3"
        );
        assert!(set_kernel_param("linear + gaussian:beta=1", "beta", 1.0).is_err());
    }
}
