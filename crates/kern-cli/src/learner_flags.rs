//! The flags that name a learner and set its parameters, declared once: `kern train`, `kern cv` and
//! `kern-mpi cv` (crate kern-dist) each flatten [`LearnerFlags`] into their own arguments, so that
//! the help text, the defaults and the parsing of `--model`, `--type`, `--kernel`, `--c`, `--lambda`,
//! … are the same in every command, and [`LearnerFlags::params`] is the one translation of the flags
//! (and of a grid point) into the learner's parameters ([`AnyParams`]). A flag given to a learner
//! that does not take it is refused by [`LearnerFlags::resolve`] (before any data is read), never
//! ignored; the refusal lists the flags the learner takes ([`ModelKind::flags`]).
//!
//! `--lambda` has one meaning: the ridge penalty λ of `K + λI` (scikit-learn's `alpha`: larger,
//! more regularization) for lssvm, krr and their landmark forms, and `C = 1/(2 n λ)` for the SVMs.
//! LS-SVMlab's `γ` of `K + I/γ` is `--gam` (lssvm only): `--gam g` is `--lambda 1/g`.
//!
//! ```
//! use clap::Parser;
//! use kern_cli::learner_flags::LearnerFlags;
//! #[derive(Parser)]
//! struct Cli {
//!     #[command(flatten)]
//!     learner: LearnerFlags,
//! }
//! let cli = Cli::try_parse_from(["train", "--model", "nu-svr", "--kernel", "gaussian:sigma=1", "--nu", "0.3"])?;
//! assert_eq!((cli.learner.nu_value(), cli.learner.c, cli.learner.epsilon_tube), (0.3, None, None));
//! # Ok::<(), clap::Error>(())
//! ```

use crate::CliError;
pub use crate::any_params::AnyParams;
use crate::any_params::RailwayParams;
use crate::grid_kernel::{is_precomputed, kernel_at, with_features};
use crate::kinds::{ModelKind, Scheme, SvmType, resolve, words};
use kern_core::KernelSpec;
use kern_models::fvs::FvsParams;
use kern_models::kfa::{BasisChoice, KfaParams, Projection};
use kern_models::krr::KernelRidgeParams;
use kern_models::landmark::{LandmarkLambdaChoice, NystromPreconditioner, NystromRidgeParams, NystromSolve};
use kern_models::lssvm::LsSvmParams;
use kern_models::svm::{NuSvcParams, NuSvrParams, OneClassParams, SolverParams, SvcParams, SvrParams};
use kern_sparse::SolveOptions;
use kern_tune::grid::ParamPoint;

/// LIBSVM's default ν (`svm-train -n`), of nu-svc, nu-svr and one-class when `--nu` is not given.
///
/// ```
/// # use clap::Parser;
/// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
/// use kern_cli::learner_flags::DEFAULT_NU;
/// let given = Cli::try_parse_from(["train", "--model", "one-class", "--kernel", "linear", "--nu", "0.2"])?;
/// let default = Cli::try_parse_from(["train", "--model", "one-class", "--kernel", "linear"])?;
/// assert_eq!((given.learner.nu_value(), default.learner.nu_value()), (0.2, DEFAULT_NU));
/// assert_eq!(DEFAULT_NU, 0.5); // svm-train's -n default
/// # Ok::<(), clap::Error>(())
/// ```
pub const DEFAULT_NU: f64 = 0.5;

/// LIBSVM's default tube half-width ε (`svm-train -p`), of epsilon-svr when `--epsilon-tube` is not
/// given.
///
/// ```
/// # use clap::Parser;
/// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
/// use kern_cli::learner_flags::DEFAULT_EPSILON_TUBE;
/// let given = Cli::try_parse_from(["train", "--model", "svr", "--kernel", "linear", "--epsilon-tube", "0.3"])?;
/// let default = Cli::try_parse_from(["train", "--model", "svr", "--kernel", "linear"])?;
/// assert_eq!((given.learner.epsilon_value(), default.learner.epsilon_value()), (0.3, DEFAULT_EPSILON_TUBE));
/// assert_eq!(DEFAULT_EPSILON_TUBE, 0.1); // svm-train's -p default
/// # Ok::<(), clap::Error>(())
/// ```
pub const DEFAULT_EPSILON_TUBE: f64 = 0.1;

/// LIBSVM's default kernel cache in megabytes (`svm-train -m`), of the SVMs when `--cache-mb` is not
/// given.
///
/// ```
/// # use clap::Parser;
/// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
/// use kern_cli::learner_flags::DEFAULT_CACHE_MB;
/// let cli = Cli::try_parse_from(["train", "--model", "svc", "--kernel", "linear"])?;
/// assert_eq!((cli.learner.cache_mb_value(), cli.learner.solver().cache_mb), (DEFAULT_CACHE_MB, DEFAULT_CACHE_MB));
/// assert_eq!(DEFAULT_CACHE_MB, 100.0); // svm-train's -m default
/// # Ok::<(), clap::Error>(())
/// ```
pub const DEFAULT_CACHE_MB: f64 = 100.0;

/// The stopping tolerance of the iterative solvers of lssvm and krr (and of the landmark models)
/// when `--tol` is not given.
///
/// ```
/// # use clap::Parser;
/// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
/// use kern_cli::learner_flags::DEFAULT_RIDGE_TOL;
/// let given = Cli::try_parse_from(["train", "--model", "lssvm", "--kernel", "linear", "--tol", "1e-9"])?;
/// let default = Cli::try_parse_from(["train", "--model", "lssvm", "--kernel", "linear"])?;
/// assert_eq!((given.learner.ridge_tol(), default.learner.ridge_tol()), (1e-9, DEFAULT_RIDGE_TOL));
/// # Ok::<(), clap::Error>(())
/// ```
pub const DEFAULT_RIDGE_TOL: f64 = 1e-6;

/// The flags of a learner that `kern train` and `kern cv` share (each command adds its own: `kern
/// train` the output, the weights and the scaling, `kern cv` the grid and the folds).
///
/// ```
/// use clap::Parser;
/// #[derive(Parser)]
/// struct Cli {
///     #[command(flatten)]
///     learner: kern_cli::learner_flags::LearnerFlags,
/// }
/// let cli = Cli::try_parse_from(["cv", "--model", "svc", "--kernel", "linear", "--tol", "1e-4"])?;
/// let s = cli.learner.solver();
/// assert_eq!((s.tol, s.cache_mb), (1e-4, 100.0));
/// # Ok::<(), clap::Error>(())
/// ```
#[derive(clap::Args, Debug, Clone)]
pub struct LearnerFlags {
    /// The model (or --type, LIBSVM's name of an SVM).
    #[arg(long, value_enum, required_unless_present = "svm_type", help_heading = "Model")]
    pub model: Option<ModelKind>,
    /// LIBSVM's name of an SVM model (svm-train -s), an alias of --model.
    ///
    /// c-svc (-s 0, svc), nu-svc (-s 1), one-class (-s 2), epsilon-svr (-s 3, svr), nu-svr (-s 4).
    #[arg(long = "type", value_enum, value_name = "SVM_TYPE", help_heading = "Model")]
    pub svm_type: Option<SvmType>,
    /// Kernel spec, e.g. gaussian:sigma=0.6 or rbf (gamma 1/d); grammar: kern help kernels.
    ///
    /// A Gaussian (gaussian, rbf) given without a width takes LIBSVM's gamma = 1/d (d: the number of
    /// features), as does the value 1/d of any parameter (poly:scale=1/d); the summary says so. kern cv
    /// writes the grid's names other than the model's parameters into it. Or precomputed (SVMs; LIBSVM
    /// -t 4): the data file then holds kernel values, each row LABEL 0:i 1:K(x_i,x_1) 2:K(x_i,x_2) ...
    /// for training point i = 1, 2, ... in order. Or railway:auto[,local=linear|affine][,gamma=C]
    /// [,significance=A][,k_max=K][,sub_cells=S] (--model railway).
    ///
    /// kern train chooses a width or support radius written as a method: gaussian:sigma=auto
    /// (mean-to-half; or max-variance, ahn, median, scale), cs-gaussian:sigma=auto,c=auto (half of
    /// the kernel matrix zero; or c=sparse-TAU, c=align-MU).
    #[arg(long, default_value = "gaussian", help_heading = "Kernel")]
    pub kernel: String,
    /// Choose every hyperparameter on the training data (kern train): the Gaussian's width, a compact
    /// kernel's radius, C or nu by cross-validation, lambda by leave-one-out.
    ///
    /// The same as writing auto for each of them that is not given: --kernel gaussian:sigma=auto
    /// (cs-gaussian:sigma=auto,c=auto), --c auto (svc, svr), --nu auto (nu-svc, nu-svr), --lambda
    /// auto (lssvm, krr). The summary says what was chosen and how long each choice took.
    #[arg(long, help_heading = "Model")]
    pub auto: bool,
    /// nu of nu-svc, nu-svr and one-class, in (0, 1] (LIBSVM -n, default 0.5), or auto (kern train:
    /// 5-fold cross-validation over 0.05..0.8; nu-svc, nu-svr).
    #[arg(long, allow_negative_numbers = true, help_heading = "Model")]
    pub nu: Option<Setting>,
    /// Regularization C (svc, svr, nu-svr, railway; LIBSVM -c, default 1), or auto (kern train, svc
    /// and svr: 5-fold cross-validation over 0.1..1000, warm-started along the C path).
    #[arg(long, allow_negative_numbers = true, help_heading = "Model")]
    pub c: Option<Setting>,
    /// Ridge penalty lambda of K + lambda I (lssvm, krr), or C = 1/(2 n lambda) (the SVMs).
    ///
    /// Larger regularizes more (scikit-learn's alpha). lssvm, krr: absent or auto means chosen by
    /// exact leave-one-out over the default grid; with --kernel gaussian:sigma=auto, auto chooses it
    /// together with the width (on at most 1,000 samples: a seeded subsample beyond). With
    /// --landmarks, auto (kern train) chooses it on the centres' system.
    #[arg(long, conflicts_with_all = ["c", "gam"], allow_negative_numbers = true, help_heading = "Model")]
    pub lambda: Option<Setting>,
    /// LS-SVMlab's gam of K + I/gam (lssvm, landmark-lssvm): --lambda 1/gam.
    #[arg(long, allow_negative_numbers = true, help_heading = "Model", hide_short_help = true)]
    pub gam: Option<f64>,
    /// Half-width of the epsilon-insensitive tube (svr; LIBSVM -p, default 0.1).
    ///
    /// nu-svr finds the width itself from --nu.
    #[arg(long, allow_negative_numbers = true, help_heading = "Model")]
    pub epsilon_tube: Option<f64>,
    /// Class weight LABEL:W, repeatable: class LABEL gets C*W (svc, railway; LIBSVM -wLABEL W).
    #[arg(long = "class-weight", value_name = "LABEL:W", help_heading = "Model", hide_short_help = true)]
    pub class_weight: Vec<String>,
    /// Fit Platt probabilities by internal 5-fold CV (svc, nu-svc, railway; LIBSVM -b 1).
    ///
    /// Seeded by --seed.
    #[arg(long, help_heading = "Model")]
    pub probability: bool,
    /// Multi-class scheme (svc, railway; default ovo; nu-svc is one-vs-one only, as LIBSVM).
    #[arg(long, value_enum, help_heading = "Model", hide_short_help = true)]
    pub multiclass: Option<Scheme>,
    /// Real-valued targets: regression (kfa, lssvm, krr and their landmark forms).
    ///
    /// svr and nu-svr always regress.
    #[arg(long, help_heading = "Model", hide_short_help = true)]
    pub regression: bool,
    /// Train svc, nu-svc or railway on labels that look real-valued or on more than 100 classes.
    #[arg(long, help_heading = "Model", hide_short_help = true)]
    pub allow_many_classes: bool,
    /// Stopping tolerance (LIBSVM -e; default 1e-3 for the SVMs, 1e-6 for the iterative solvers).
    ///
    /// The SVMs stop on the optimality violation; lssvm, krr with --solver iterative and the landmark
    /// models on the relative residual of the iterative solver.
    #[arg(long, allow_negative_numbers = true, help_heading = "Solver")]
    pub tol: Option<f64>,
    /// Kernel cache in megabytes (the SVMs; LIBSVM -m, default 100), per training run.
    ///
    /// kern cv runs several at once.
    #[arg(long, allow_negative_numbers = true, help_heading = "Solver", hide_short_help = true)]
    pub cache_mb: Option<f64>,
    /// Turn the shrinking heuristic off (the SVMs; LIBSVM -h 0).
    ///
    /// Compactly supported kernels with few neighbours per point (large low-dimensional data) are
    /// solved without it either way, as it only costs time there.
    #[arg(long, help_heading = "Solver", hide_short_help = true)]
    pub no_shrinking: bool,
    /// Iteration cap of the solver.
    ///
    /// The SVMs: default max(1e7, 100 n); lssvm, krr iterative: 10000; the landmark models: 1000.
    #[arg(long, help_heading = "Solver", hide_short_help = true)]
    pub max_iter: Option<u64>,
    /// Gram matrix path: auto (by kernel support and density), dense or sparse (lssvm, krr).
    #[arg(long, default_value = "auto", help_heading = "Solver", hide_short_help = true)]
    pub path: String,
    /// Fill-reducing ordering of the sparse factorization (lssvm, krr): auto, amd, rcm, nd or none.
    ///
    /// auto: whichever of amd, rcm and nd (nested dissection) predicts the smallest factor.
    #[arg(long, default_value = "auto", help_heading = "Solver", hide_short_help = true)]
    pub order: String,
    /// Linear solver (lssvm, krr, landmark models): auto, direct or iterative.
    ///
    /// lssvm, krr on the sparse path at a fixed --lambda: auto (the sparse factor unless its
    /// predicted size exceeds the memory budget), direct, or iterative (preconditioned conjugate
    /// gradients, stopped by --tol and --max-iter). The landmark models: auto (the cheaper of the two
    /// by their operation counts), direct (factor the centres' normal equations after one pass over
    /// the data) or iterative.
    #[arg(long, default_value = "auto", help_heading = "Solver", hide_short_help = true)]
    pub solver: String,
    /// Preconditioner of the iterative solver.
    ///
    /// lssvm, krr: none (plain conjugate gradients, the faster on compactly supported kernels with a
    /// positive shift) or block-jacobi[:SIZE] (dense blocks of SIZE points, default 256). The
    /// landmark models: falkon (the default) or none.
    #[arg(long, help_heading = "Solver", hide_short_help = true)]
    pub preconditioner: Option<String>,
    /// Centres of landmark-lssvm and landmark-krr: random:M or fvs:M[:POOL].
    ///
    /// Also --model lssvm|krr --landmarks ...: random:M (uniform, by --seed) or fvs:M[:POOL] (feature
    /// vector selection on a random pool of POOL points, default max(5 M, 10000); candidate scoring
    /// by --fvs-strategy). Needs --lambda (or --gam); kern train takes --lambda auto.
    #[arg(long, value_name = "fvs:M|random:M", help_heading = "Model", hide_short_help = true)]
    pub landmarks: Option<String>,
    /// Stop feature vector selection after this many vectors (kfa; default: no limit).
    #[arg(long, help_heading = "Model", hide_short_help = true)]
    pub max_fv: Option<usize>,
    /// Stop feature vector selection once the fitness reaches this value, in (0, 1] (kfa).
    #[arg(long, allow_negative_numbers = true, help_heading = "Model", hide_short_help = true)]
    pub min_fitness: Option<f64>,
    /// FVS candidate scoring (kfa, fvs centres): auto, exact, max-residual, stochastic, sampled.
    ///
    /// stochastic[:SEED], sampled[:CANDIDATES[:SEED]].
    #[arg(long, default_value = "auto", help_heading = "Solver", hide_short_help = true)]
    pub fvs_strategy: String,
    /// Projection on the feature vectors: dot, orthogonal, coordinates (kfa).
    #[arg(long, default_value = "dot", help_heading = "Model", hide_short_help = true)]
    pub projection: String,
    /// The number of features of the data, once read: the d of a width 1/d (LIBSVM's default gamma)
    /// in `--kernel`. `None` before the data is read (a placeholder width then checks the spec).
    #[arg(skip)]
    pub n_features: Option<usize>,
    /// The choice of `--lambda auto` for a landmark model, with the model it fitted
    /// ([`LearnerFlags::choose_auto`]): training takes that model instead of fitting it again.
    #[arg(skip)]
    pub landmark_choice: Option<Box<LandmarkLambdaChoice>>,
    /// The model the width search of `sigma=auto` with `--lambda auto` trained at the width it chose
    /// ([`LearnerFlags::choose_auto`]): training takes that model instead of fitting it again.
    #[arg(skip)]
    pub ridge_fit: Option<RidgeFit>,
}

/// An LS-SVM or kernel ridge model the width search returned (trained on all the samples), with the
/// seconds its training took.
#[derive(Debug, Clone)]
pub enum RidgeFit {
    /// `--model lssvm`.
    LsSvm(Box<kern_models::lssvm::LsSvm>, f64),
    /// `--model krr`.
    Krr(Box<kern_models::krr::KernelRidge>, f64),
}

/// A numeric flag's value: a number, or `auto` (chosen on the training data by `kern train`).
///
/// ```
/// use kern_cli::learner_flags::Setting;
/// assert_eq!("auto".parse::<Setting>()?, Setting::Auto);
/// assert_eq!("0.5".parse::<Setting>()?.value(), Some(0.5));
/// assert!("half".parse::<Setting>().is_err());
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Setting {
    /// Chosen on the training data.
    Auto,
    /// This value.
    Value(f64),
}

impl Setting {
    /// The number, `None` for `auto`.
    pub fn value(self) -> Option<f64> {
        match self {
            Setting::Auto => None,
            Setting::Value(v) => Some(v),
        }
    }
}

impl std::str::FromStr for Setting {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.trim().eq_ignore_ascii_case("auto") {
            return Ok(Setting::Auto);
        }
        s.trim().parse::<f64>().map(Setting::Value).map_err(|_| format!("{s:?} is neither a number nor auto"))
    }
}

/// Every learner flag of `kern train` and `kern cv` (all but `--model`, `--type` and `--kernel`,
/// which every learner takes), each with a value that differs from its default: the flags
/// [`LearnerFlags::given`] reports and the model kinds' flag lists name. The tests of the refusals walk
/// this list.
///
/// ```
/// use clap::ValueEnum;
/// use kern_cli::{kinds::ModelKind, learner_flags::EVERY_FLAG};
/// for m in ModelKind::value_variants() {
///     assert!(m.flags().iter().all(|f| EVERY_FLAG.iter().any(|e| e[0] == *f)), "{}", m.name());
/// }
/// ```
pub const EVERY_FLAG: [&[&str]; 23] = [
    &["--nu", "0.3"],
    &["--c", "2"],
    &["--lambda", "0.1"],
    &["--gam", "10"],
    &["--epsilon-tube", "0.2"],
    &["--class-weight", "1:2"],
    &["--probability"],
    &["--multiclass", "ovo"],
    &["--regression"],
    &["--allow-many-classes"],
    &["--tol", "1e-4"],
    &["--cache-mb", "8"],
    &["--no-shrinking"],
    &["--max-iter", "10"],
    &["--path", "dense"],
    &["--order", "amd"],
    &["--solver", "iterative"],
    &["--preconditioner", "none"],
    &["--landmarks", "random:5"],
    &["--max-fv", "3"],
    &["--min-fitness", "0.9"],
    &["--fvs-strategy", "exact"],
    &["--projection", "orthogonal"],
];

impl LearnerFlags {
    /// The learner flags given on the command line, by name (`--model`, `--type` and `--kernel`,
    /// which every learner takes, left out; a flag with a default counts as given when it names
    /// another value).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let cli = Cli::try_parse_from(["train", "--model", "krr", "--kernel", "linear", "--lambda", "1", "--path", "auto"])?;
    /// assert_eq!(cli.learner.given(), ["--lambda"]);
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn given(&self) -> Vec<&'static str> {
        [
            ("--nu", self.nu.is_some()),
            ("--c", self.c.is_some()),
            ("--lambda", self.lambda.is_some()),
            ("--gam", self.gam.is_some()),
            ("--epsilon-tube", self.epsilon_tube.is_some()),
            ("--class-weight", !self.class_weight.is_empty()),
            ("--probability", self.probability),
            ("--multiclass", self.multiclass.is_some()),
            ("--regression", self.regression),
            ("--allow-many-classes", self.allow_many_classes),
            ("--tol", self.tol.is_some()),
            ("--cache-mb", self.cache_mb.is_some()),
            ("--no-shrinking", self.no_shrinking),
            ("--max-iter", self.max_iter.is_some()),
            ("--path", self.path != "auto"),
            ("--order", self.order != "auto"),
            ("--solver", self.solver != "auto"),
            ("--preconditioner", self.preconditioner.is_some()),
            ("--landmarks", self.landmarks.is_some()),
            ("--max-fv", self.max_fv.is_some()),
            ("--min-fitness", self.min_fitness.is_some()),
            ("--fvs-strategy", self.fvs_strategy != "auto"),
            ("--projection", self.projection != "dot"),
        ]
        .into_iter()
        .filter_map(|(flag, given)| given.then_some(flag))
        .collect()
    }

    /// The gamma `--kernel` takes by default, `1/d` for the `d` features of the data
    /// ([`LearnerFlags::n_features`]): `Some` when the spec is a Gaussian without a width or has a
    /// parameter `1/d` (LIBSVM's default gamma), `None` when it sets its parameters.
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let mut cli = Cli::try_parse_from(["train", "--model", "svc", "--kernel", "rbf"])?;
    /// cli.learner.n_features = Some(8);
    /// assert_eq!(cli.learner.default_gamma(), Some(0.125));
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn default_gamma(&self) -> Option<f64> {
        if is_precomputed(&self.kernel) {
            return None;
        }
        with_features(&self.kernel, self.n_features).ok().and_then(|(_, g)| g)
    }

    /// The note of a defaulted gamma ([`LearnerFlags::default_gamma`]) for stderr and the summary.
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let mut cli = Cli::try_parse_from(["train", "--model", "svc", "--kernel", "rbf"])?;
    /// cli.learner.n_features = Some(4);
    /// assert_eq!(cli.learner.gamma_note().as_deref(), Some("gamma defaulted to 1/d = 1/4 = 0.25 (LIBSVM's default; d is the number of features)"));
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn gamma_note(&self) -> Option<String> {
        let g = self.default_gamma()?;
        let d = self.n_features?;
        Some(format!("gamma defaulted to 1/d = 1/{d} = {g} (LIBSVM's default; d is the number of features)"))
    }

    /// Whether `--kernel` is a railway kernel (`railway:auto[,...]`).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let cli = Cli::try_parse_from(["train", "--model", "railway", "--kernel", "railway:auto"])?;
    /// assert!(cli.learner.is_railway());
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn is_railway(&self) -> bool {
        self.kernel.trim_start().starts_with("railway")
    }

    /// What the flags fit — `--model`, `--type`, `--landmarks` and a railway `--kernel` resolved by
    /// [`resolve`] — with every flag given to a model that does not take it refused (scikit-learn's
    /// estimators have no such parameter and raise; LIBSVM ignores them silently). The refusal names
    /// the flag, the model as the user named it, and the flags the model takes ([`ModelKind::flags`]).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// use kern_cli::kinds::ModelKind;
    /// let cli = Cli::try_parse_from(["train", "--type", "nu-svc", "--kernel", "linear"])?;
    /// assert_eq!(cli.learner.resolve()?, ModelKind::NuSvc);
    /// let cli = Cli::try_parse_from(["train", "--model", "krr", "--kernel", "linear", "--nu", "0.2"])?;
    /// assert_eq!(
    ///     cli.learner.resolve().unwrap_err().to_string(),
    ///     "--nu does not apply to --model krr; --model krr takes --lambda, --regression, --path, --order, \
    ///      --solver, --preconditioner, --tol and --max-iter"
    /// );
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn resolve(&self) -> Result<ModelKind, CliError> {
        let m = resolve(self.model, self.svm_type, self.landmarks.is_some(), self.is_railway())?;
        if let Some(flag) = self.given().into_iter().find(|f| !m.flags().contains(f)) {
            return Err(self.refusal(m, flag));
        }
        if m == ModelKind::NuSvc && self.multiclass == Some(Scheme::Ovr) {
            return Err(format!(
                "--multiclass ovr does not apply to {}: nu-svc is one-vs-one, as LIBSVM (use --model svc \
                 for one-vs-rest)",
                self.named(m)
            )
            .into());
        }
        Ok(m)
    }

    /// The refusal of `flag` given to model `m`: the flag, the model as the user named it, and the
    /// flags the model takes (the one wording of every such refusal).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// use kern_cli::kinds::ModelKind;
    /// let cli = Cli::try_parse_from(["train", "--model", "kfa", "--kernel", "linear"])?;
    /// let e = cli.learner.refusal(ModelKind::Kfa, "--weights").to_string();
    /// assert!(e.starts_with("--weights does not apply to --model kfa; --model kfa takes --max-fv, "));
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn refusal(&self, m: ModelKind, flag: &str) -> CliError {
        let named = self.named(m);
        format!("{flag} does not apply to {named}; {named} takes {}", words(m.flags())).into()
    }

    /// The model `m` as the user named it: by `--type` when given, else by `--model` (with
    /// `--landmarks` or a railway kernel when those made it another model).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let cli = Cli::try_parse_from(["train", "--model", "krr", "--landmarks", "random:5", "--kernel", "linear"])?;
    /// assert_eq!(cli.learner.named(cli.learner.resolve()?), "--model krr with --landmarks");
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn named(&self, m: ModelKind) -> String {
        match (self.svm_type, self.model) {
            (Some(t), _) => format!("--type {}", t.name()),
            (None, Some(given)) if given != m && m == ModelKind::Railway => {
                format!("--model {} with a railway kernel", given.name())
            }
            (None, Some(given)) if given != m => format!("--model {} with --landmarks", given.name()),
            _ => format!("--model {}", m.name()),
        }
    }

    /// `--nu`, or LIBSVM's default [`DEFAULT_NU`].
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let cli = Cli::try_parse_from(["train", "--type", "nu-svc", "--kernel", "linear"])?;
    /// assert_eq!(cli.learner.nu_value(), kern_cli::learner_flags::DEFAULT_NU);
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn nu_value(&self) -> f64 {
        self.nu.and_then(Setting::value).unwrap_or(DEFAULT_NU)
    }

    /// `--epsilon-tube`, or LIBSVM's default [`DEFAULT_EPSILON_TUBE`].
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let cli = Cli::try_parse_from(["train", "--model", "svr", "--kernel", "linear"])?;
    /// assert_eq!(cli.learner.epsilon_value(), kern_cli::learner_flags::DEFAULT_EPSILON_TUBE);
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn epsilon_value(&self) -> f64 {
        self.epsilon_tube.unwrap_or(DEFAULT_EPSILON_TUBE)
    }

    /// `--cache-mb`, or LIBSVM's default [`DEFAULT_CACHE_MB`].
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let cli = Cli::try_parse_from(["train", "--model", "svc", "--kernel", "linear", "--cache-mb", "8"])?;
    /// assert_eq!(cli.learner.cache_mb_value(), 8.0);
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn cache_mb_value(&self) -> f64 {
        self.cache_mb.unwrap_or(DEFAULT_CACHE_MB)
    }

    /// `--multiclass`, or one-vs-one (LIBSVM's scheme).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let cli = Cli::try_parse_from(["train", "--model", "svc", "--kernel", "linear"])?;
    /// assert_eq!(cli.learner.scheme(), kern_cli::kinds::Scheme::Ovo);
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn scheme(&self) -> Scheme {
        self.multiclass.unwrap_or(Scheme::Ovo)
    }

    /// The SMO solver's parameters of `--tol` (default 1e-3, LIBSVM's), `--cache-mb` (default 100),
    /// `--no-shrinking` and `--max-iter`; the rest are kern-models' defaults.
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let cli = Cli::try_parse_from(["train", "--model", "svr", "--kernel", "linear", "--cache-mb", "8"])?;
    /// let s = cli.learner.solver();
    /// assert_eq!((s.tol, s.cache_mb, s.shrinking), (1e-3, 8.0, true));
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn solver(&self) -> SolverParams {
        let d = SolverParams::default();
        SolverParams {
            tol: self.tol.unwrap_or(d.tol),
            cache_mb: self.cache_mb_value(),
            shrinking: !self.no_shrinking,
            max_iter: self.max_iter,
            ..d
        }
    }

    /// The tolerance of the iterative solvers of lssvm, krr and the landmark models: `--tol`, or
    /// [`DEFAULT_RIDGE_TOL`] (also the tolerance under which a model counts as constant).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let cli = Cli::try_parse_from(["train", "--model", "krr", "--kernel", "linear"])?;
    /// assert_eq!(cli.learner.ridge_tol(), 1e-6);
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn ridge_tol(&self) -> f64 {
        self.tol.unwrap_or(DEFAULT_RIDGE_TOL)
    }

    /// The direct or iterative solve of lssvm and krr: `--solver`, `--preconditioner`, `--tol` and
    /// `--max-iter`, with the memory budget of this process as the direct factor's limit.
    fn solve_options(&self) -> Result<SolveOptions, CliError> {
        // Auto's factor budget: what this process may still allocate (`--max-memory`, the cgroup limit or
        // MemAvailable), or the fixed default when the system does not say.
        let factor_budget =
            kern_core::memory::budget().bytes.unwrap_or(kern_sparse::solver::DEFAULT_FACTOR_BUDGET);
        let mut o = SolveOptions { solver: self.solver.parse()?, factor_budget, ..SolveOptions::default() };
        o.pcg.preconditioner = self.preconditioner.as_deref().unwrap_or("none").parse()?;
        if let Some(t) = self.tol {
            o.pcg.tol = t;
        }
        if let Some(m) = self.max_iter {
            o.pcg.max_iter = usize::try_from(m).map_err(|_| format!("--max-iter {m} is too large"))?;
        }
        o.pcg.validate()?;
        Ok(o)
    }

    /// The one translation of the flags, and of grid point `p` (empty outside `kern cv`), into the
    /// parameters of model `m` (from [`LearnerFlags::resolve`]): `kern train` fits them, `kern cv`
    /// and `kern-mpi cv` fit them on every fold of a cell. A grid value replaces the flag of its
    /// parameter; the kernel is `--kernel` with the grid's other names written into it (a placeholder
    /// for a precomputed kernel, whose values are the data). `seed` seeds the random steps (the
    /// probability CV, the landmarks' centres, the railway areas).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// use kern_cli::learner_flags::AnyParams;
    /// use kern_tune::grid::ParamPoint;
    /// let cli = Cli::try_parse_from(["train", "--model", "lssvm", "--kernel", "linear", "--gam", "4"])?;
    /// let p = cli.learner.params(cli.learner.resolve()?, &ParamPoint::from_pairs(&[]), 0)?;
    /// let AnyParams::LsSvm(p) = p else { panic!("an LS-SVM") };
    /// assert_eq!(p.lambda, kern_models::ridge::Lambda::Fixed(0.25));
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn params(&self, m: ModelKind, p: &ParamPoint, seed: u64) -> Result<AnyParams, CliError> {
        use ModelKind::*;
        let kernel = || -> Result<KernelSpec, CliError> {
            if is_precomputed(&self.kernel) {
                Ok(KernelSpec::Linear(kern_core::Linear))
            } else {
                kernel_at(&with_features(&self.kernel_text()?, self.n_features)?.0, p, m.is_nu())
            }
        };
        let nu = p.get("nu").unwrap_or(self.nu_value());
        // C of the SVMs: the grid's c or lambda, else the flags'.
        let (c, lambda) = match (p.get("c"), p.get("lambda")) {
            (None, None) => (self.c.and_then(Setting::value), self.lambda.and_then(Setting::value)),
            given => given,
        };
        // λ of the ridge models: the grid's lambda or gam, else the flags' (None: leave-one-out).
        let ridge_lambda = match (p.get("lambda"), p.get("gam")) {
            (Some(l), _) => Some(l),
            (None, Some(g)) => Some(1.0 / g),
            (None, None) => self.lambda.and_then(Setting::value).or(self.gam.map(|g| 1.0 / g)),
        };
        let svc = |k: KernelSpec| -> Result<SvcParams, CliError> {
            let mut s = SvcParams::new(k).solver(self.solver());
            if let Some(c) = c {
                s = s.c(c);
            }
            if let Some(l) = lambda {
                s = s.lambda(l);
            }
            for cw in &self.class_weight {
                let (label, w) =
                    cw.rsplit_once(':').ok_or_else(|| format!("--class-weight {cw:?}: expected LABEL:W"))?;
                let w: f64 =
                    w.parse().map_err(|_| format!("--class-weight {cw:?}: {w:?} is not a number"))?;
                s = s.class_weight(label, w);
            }
            Ok(s.multiclass(self.scheme().into()).probability(self.probability, seed))
        };
        Ok(match m {
            Svc => AnyParams::Svc(svc(kernel()?)?),
            NuSvc => AnyParams::NuSvc(
                NuSvcParams::new(kernel()?).nu(nu).probability(self.probability, seed).solver(self.solver()),
            ),
            OneClass => AnyParams::OneClass(OneClassParams::new(kernel()?).nu(nu).solver(self.solver())),
            Svr => {
                let eps = p.get("epsilon").unwrap_or(self.epsilon_value());
                let mut s = SvrParams::new(kernel()?).epsilon(eps).solver(self.solver());
                if let Some(c) = c {
                    s = s.c(c);
                }
                if let Some(l) = lambda {
                    s = s.lambda(l);
                }
                AnyParams::Svr(s)
            }
            NuSvr => {
                let mut s = NuSvrParams::new(kernel()?).nu(nu).solver(self.solver());
                if let Some(c) = c {
                    s = s.c(c);
                }
                if let Some(l) = lambda {
                    s = s.lambda(l);
                }
                AnyParams::NuSvr(s)
            }
            Lssvm => {
                let s = LsSvmParams::new(kernel()?)
                    .path(self.path.parse()?)
                    .ordering(self.order.parse()?)
                    .solver(self.solve_options()?);
                AnyParams::LsSvm(match ridge_lambda {
                    Some(l) => s.lambda(l),
                    None => s,
                })
            }
            Krr => {
                let s = KernelRidgeParams::new(kernel()?)
                    .path(self.path.parse()?)
                    .ordering(self.order.parse()?)
                    .solver(self.solve_options()?);
                AnyParams::Krr(match ridge_lambda {
                    Some(l) => s.lambda(l),
                    None => s,
                })
            }
            Kfa => {
                // Without max_fv in the grid or --max-fv, the selection has no limit.
                let max_fv = match p.get("max_fv") {
                    Some(v) if v >= 1.0 && v.fract() == 0.0 => Some(v as usize),
                    Some(v) => return Err(format!("max_fv must be a positive integer, got {v}").into()),
                    None => self.max_fv,
                };
                let fvs = FvsParams {
                    max_fv,
                    min_fitness: p.get("min_fitness").or(self.min_fitness),
                    strategy: self.fvs_strategy.parse()?,
                    ..Default::default()
                };
                let projection: Projection = self.projection.parse()?;
                AnyParams::Kfa(Box::new(
                    KfaParams::new(kernel()?).basis(BasisChoice::Fvs(fvs)).projection(projection),
                ))
            }
            LandmarkLssvm | LandmarkKrr => {
                // `--lambda auto` (or `--auto`; kern train) is chosen on the data and written into
                // the flags (`LearnerFlags::choose_auto`); until then the model is planned with λ = 1.
                let auto = self.lambda == Some(Setting::Auto) || (self.auto && self.gam.is_none());
                let placeholder = auto.then_some(1.0);
                let lambda = ridge_lambda.or(placeholder).ok_or_else(|| {
                    format!(
                        "--model {} needs --lambda{} (a number, or auto with kern train: exact \
                         leave-one-out on the centres)",
                        m.name(),
                        if m == LandmarkLssvm { " or --gam" } else { "" }
                    )
                })?;
                let landmarks = self.landmarks.as_deref().unwrap_or_default().parse()?;
                let max_iter = match self.max_iter {
                    Some(v) => usize::try_from(v).map_err(|_| format!("--max-iter {v} is too large"))?,
                    None => 1000,
                };
                let preconditioner: NystromPreconditioner =
                    self.preconditioner.as_deref().unwrap_or("falkon").parse()?;
                let solve: NystromSolve = self.solver.parse()?;
                let s = if m == LandmarkLssvm {
                    NystromRidgeParams::lssvm(kernel()?, lambda, landmarks)
                } else {
                    NystromRidgeParams::krr(kernel()?, lambda, landmarks)
                };
                AnyParams::Landmark(
                    s.seed(seed)
                        .tol(self.ridge_tol(), max_iter)
                        .preconditioner(preconditioner)
                        .solve(solve)
                        .fvs_strategy(self.fvs_strategy.parse()?),
                )
            }
            Railway => {
                let (areas, local, local_name) = crate::any_params::railway_spec(&self.kernel, seed)?;
                let svc = svc(KernelSpec::Linear(kern_core::Linear))?;
                AnyParams::Railway(Box::new(RailwayParams { areas, local, local_name, svc }))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Parser, ValueEnum};

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        learner: LearnerFlags,
    }

    fn flags(args: &[&str]) -> LearnerFlags {
        let mut a = vec!["kern"];
        if !args.contains(&"--kernel") {
            a.extend(["--kernel", "linear"]);
        }
        a.extend(args);
        Cli::try_parse_from(a).expect("flags parse").learner
    }

    /// The args naming each model by `--model` (the landmark models with their centres, railway
    /// with its kernel).
    fn model_args(m: ModelKind) -> Vec<&'static str> {
        match m {
            ModelKind::LandmarkLssvm | ModelKind::LandmarkKrr => {
                vec!["--model", m.name(), "--landmarks", "random:5"]
            }
            ModelKind::Railway => vec!["--model", m.name(), "--kernel", "railway:auto"],
            m => vec!["--model", m.name()],
        }
    }

    /// Every learner flag with every model: accepted exactly where the model's flag list has it,
    /// refused elsewhere with a message that names the flag and the model and lists the flags it
    /// takes; and every flag is taken by some model.
    #[test]
    fn every_flag_is_refused_where_it_does_not_apply() {
        let mut taken = std::collections::BTreeSet::new();
        for &m in ModelKind::value_variants() {
            for args in EVERY_FLAG {
                let flag = args[0];
                if flag == "--landmarks" && matches!(m, ModelKind::LandmarkLssvm | ModelKind::LandmarkKrr) {
                    taken.insert(flag);
                    continue;
                }
                let mut a = model_args(m);
                a.extend(args);
                let f = flags(&a);
                assert!(f.given().contains(&flag), "{a:?}");
                let r = f.resolve();
                let takes = m.flags().contains(&flag);
                // --landmarks turns lssvm and krr into their landmark forms.
                let landmark_form = flag == "--landmarks" && matches!(m, ModelKind::Lssvm | ModelKind::Krr);
                assert_eq!(r.is_ok(), takes || landmark_form, "{a:?}: {r:?}");
                if takes {
                    taken.insert(flag);
                }
                if let Err(e) = r {
                    let e = e.to_string();
                    let named = format!("--model {}", m.name());
                    let want =
                        format!("{flag} does not apply to {named}; {named} takes {}", words(m.flags()));
                    assert_eq!(e, want, "{a:?}");
                }
            }
        }
        assert_eq!(taken.len(), EVERY_FLAG.len(), "every flag is taken by some model");
    }

    /// `--type` names the SVMs as `--model` does, and the refusals name the learner as the user did.
    #[test]
    fn type_is_an_alias_of_the_svm_models() {
        for &t in crate::kinds::SvmType::value_variants() {
            assert_eq!(flags(&["--type", &t.name()]).resolve().expect("resolves"), t.model());
            let e = flags(&["--type", &t.name(), "--max-fv", "3"]).resolve().unwrap_err().to_string();
            assert!(e.starts_with(&format!("--max-fv does not apply to --type {};", t.name())), "{e}");
        }
        let e = flags(&["--type", "nu-svc", "--multiclass", "ovr"]).resolve().unwrap_err().to_string();
        assert!(e.contains("nu-svc is one-vs-one"), "{e}");
        assert!(flags(&["--type", "nu-svc", "--multiclass", "ovo"]).resolve().is_ok());
    }

    #[test]
    fn absent_flags_take_libsvm_defaults() {
        let f = flags(&["--type", "nu-svr"]);
        assert_eq!(
            (f.nu_value(), f.c, f.epsilon_value(), f.cache_mb_value()),
            (DEFAULT_NU, None, 0.1, 100.0)
        );
        assert_eq!(f.solver(), SolverParams::default());
        assert_eq!((f.scheme(), f.max_fv, f.regression), (Scheme::Ovo, None, false));
        assert!(f.given().is_empty());
    }

    /// `--gam g` is `--lambda 1/g`, on the exact and the landmark LS-SVM, and on a grid.
    #[test]
    fn gam_is_the_inverse_of_lambda() {
        let none = ParamPoint::from_pairs(&[]);
        for extra in [&[][..], &["--landmarks", "random:5"]] {
            let mut g = vec!["--model", "lssvm", "--gam", "4"];
            g.extend(extra);
            let mut l = vec!["--model", "lssvm", "--lambda", "0.25"];
            l.extend(extra);
            let (g, l) = (flags(&g), flags(&l));
            let pg = g.params(g.resolve().expect("gam"), &none, 0).expect("params");
            let pl = l.params(l.resolve().expect("lambda"), &none, 0).expect("params");
            assert_eq!(format!("{pg:?}"), format!("{pl:?}"));
        }
        let f = flags(&["--model", "lssvm"]);
        let at = |axis: &str, v: f64| {
            let p = f.params(ModelKind::Lssvm, &ParamPoint::from_pairs(&[(axis, v)]), 0).expect("params");
            format!("{p:?}")
        };
        assert_eq!(at("gam", 4.0), at("lambda", 0.25));
    }

    /// The translation passes every flag of svc to its parameters: class weights, probability (with
    /// the seed), the solver's.
    #[test]
    fn svc_params_carry_every_flag() {
        let f = flags(&[
            "--model",
            "svc",
            "--c",
            "2",
            "--class-weight",
            "a:3",
            "--probability",
            "--no-shrinking",
            "--max-iter",
            "50",
        ]);
        let AnyParams::Svc(p) = f.params(ModelKind::Svc, &ParamPoint::from_pairs(&[]), 7).expect("params")
        else {
            panic!("svc")
        };
        let solver = SolverParams { shrinking: false, max_iter: Some(50), ..SolverParams::default() };
        let want = SvcParams::new(KernelSpec::Linear(kern_core::Linear))
            .solver(solver)
            .c(2.0)
            .class_weight("a", 3.0)
            .probability(true, 7);
        assert_eq!(p, want);
    }
}
