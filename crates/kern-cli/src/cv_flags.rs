//! The flags of the cross-validation command and their translation into a grid search: one
//! definition for `kern cv` and `kern-mpi cv` (kern-dist), which differ only in how the data file is
//! read and where the (cell, fold) fits run.
//!
//! `--grid` names model parameters — those of [`ModelKind::axes`]: `c` or `lambda` (`C = 1/(2 n λ)`)
//! and `epsilon` (the tube) for the SVMs, `nu` for nu-svc and nu-svr, `lambda` (the ridge penalty,
//! `K + λI`) for lssvm and krr and `gam` (`K + I/γ`, `γ = 1/λ`) for lssvm, `max_fv` and `min_fitness`
//! for kfa — and every other name is a parameter of the kernel spec, written into it (`--kernel
//! gaussian --grid sigma=0.1..2:5` trains `gaussian:sigma=0.1`, …). A model parameter the learner does
//! not take is refused, never ignored, as are two axes that set one parameter and an axis that
//! replaces a flag given with it; a kernel key that collides with a model parameter takes the prefix
//! `k.` (`k.c=1..3:3` is the support radius of a `cs-` kernel, `k.nu` its exponent under a ν type).
//! Each cell's learner is [`LearnerFlags::params`], the translation `kern train` uses.
//!
//! ```
//! use clap::Parser;
//! use kern_cli::cv_flags::CvFlags;
//! use kern_cli::kinds::ModelKind;
//! #[derive(Parser)]
//! struct Cli {
//!     #[command(flatten)]
//!     cv: CvFlags,
//! }
//! let cli = Cli::try_parse_from(["cv", "--model", "krr", "--kernel", "gaussian", "--grid", "lambda=0.1..1:2,sigma=1..2:2"])?;
//! let plan = cli.cv.plan()?;
//! assert_eq!((plan.learner, plan.grid.len()), (ModelKind::Krr, 4));
//! let cell = cli.cv.cell(&plan, &plan.grid.points()[3])?;
//! let kern_cli::any_params::AnyParams::Krr(p) = cell else { panic!("a kernel ridge") };
//! assert_eq!(p.kernel.to_string(), "gaussian:sigma=2");
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! ```

use crate::CliError;
pub use crate::any_params::{AnyParams, CellModel};
use crate::grid_kernel::is_model_param;
pub use crate::grid_kernel::{is_precomputed, kernel_at, set_kernel_param, with_features};
use crate::kinds::{ModelKind, check_classes, targets, words};
use crate::learner_flags::LearnerFlags;
use kern_core::io::Dataset;
use kern_core::{Samples, Targets};
use kern_models::svm::{SharedGram, SvcParams};
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
    /// Number of folds (k-fold), kfold:K[:REPEATS], loo, holdout:F or file:PATH.
    ///
    /// file:PATH: the folds given, one integer per line for each sample in file order (the fold in
    /// which it is tested; -1: always trains), as scikit-learn's PredefinedSplit.
    #[arg(long, default_value = "5", help_heading = "Grid search")]
    pub folds: String,
    /// The grid: NAME=RANGE,... e.g. c=2^-5..2^15:11,g=2^-15..2^3:10 (grid.py's search).
    ///
    /// RANGE: 2^A..2^B:N (N powers of two, exponents evenly spaced from A to B), 10^A..10^B:N (powers
    /// of ten), LO..HI:N (N evenly spaced values, both ends included), [V1,V2,...] (these values) or
    /// V (one value). The last axis varies fastest. NAME: a parameter of the model (c or C, lambda,
    /// gam, epsilon, nu, max_fv, min_fitness: the refusal of another lists the model's) or of the
    /// kernel, written into --kernel (gamma or g, sigma, beta, std, degree, coef0, ...; k.NAME for a
    /// kernel key that is also a model's, as k.c for the radius of a cs- kernel). The last line on
    /// stderr is the best cell, as grid.py prints it: best: c=..., gamma=..., accuracy=...%.
    #[arg(long, help_heading = "Grid search", allow_hyphen_values = true)]
    pub grid: String,
    /// Scoring: auto (accuracy / negative MSE), accuracy, neg_mse, neg_mae.
    #[arg(long, default_value = "auto", help_heading = "Grid search")]
    pub scoring: String,
    /// Seed of every random step: the folds, the probability CV (--probability), the landmarks.
    #[arg(long, default_value_t = 0, help_heading = "Grid search", hide_short_help = true)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long, help_heading = "Solver")]
    pub threads: Option<usize>,
    /// Refuse grids with more cells than this (every cell trains one model per fold).
    #[arg(long, default_value_t = 10_000, help_heading = "Grid search", hide_short_help = true)]
    pub max_cells: usize,
    /// Fit every (cell, fold) of a two-class svc grid over c on its own, from zero.
    ///
    /// By default the cells that share a kernel are fitted fold by fold in ascending c, each from the
    /// previous solution, reading one kernel matrix of all samples (when it fits in --cache-mb).
    #[arg(long, help_heading = "Solver", hide_short_help = true)]
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
    pub learner: ModelKind,
    /// Folds (`--folds`, `--seed`, stratified for classes), scoring; no refit.
    pub config: GridSearchConfig,
    /// `--kernel precomputed`: the data file is the kernel matrix.
    pub precomputed: bool,
}

/// The grid with grid.py's names as kern's: names are case-insensitive (`C` is `c`) and `g` is the
/// Gaussian's `gamma`.
///
/// ```
/// assert_eq!(kern_cli::cv_flags::canonical_grid("C=[1,10],g=2^-3..2^1:3"), "c=[1,10],gamma=2^-3..2^1:3");
/// ```
pub fn canonical_grid(grid: &str) -> String {
    let mut out = String::with_capacity(grid.len());
    let (mut depth, mut at_name, mut name) = (0usize, true, String::new());
    for ch in grid.chars() {
        if at_name {
            if ch == '=' {
                let n = name.trim().to_ascii_lowercase();
                out.push_str(if n == "g" { "gamma" } else { &n });
                out.push('=');
                name.clear();
                at_name = false;
            } else {
                name.push(ch);
            }
            continue;
        }
        match ch {
            '[' | '(' => depth += 1,
            ']' | ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => at_name = true,
            _ => {}
        }
        out.push(ch);
    }
    out.push_str(&name);
    out
}

/// The parameters of the kernels by name, for the refusal of a grid name neither the model nor the
/// kernel takes.
fn kernel_keys(spec: &str) -> &'static str {
    let name = spec.split(':').next().unwrap_or_default().trim();
    match name.trim_start_matches("cs-") {
        "gaussian" | "rbf" => "sigma, beta, gamma (g) or std",
        "laplacian" => "sigma",
        "poly" => "degree, coef0 and scale",
        "sigmoid" => "a and b",
        "log" => "beta",
        "indicator" => "radius and gamma",
        _ => "none",
    }
}

/// The flags a grid axis replaces in every cell (it sets their parameter).
fn replaced_flags(axis: &str) -> &'static [&'static str] {
    match axis {
        "c" => &["--c", "--lambda"],
        "lambda" => &["--c", "--lambda", "--gam"],
        "gam" => &["--lambda", "--gam"],
        "nu" => &["--nu"],
        "epsilon" => &["--epsilon-tube"],
        "max_fv" => &["--max-fv"],
        "min_fitness" => &["--min-fitness"],
        _ => &[],
    }
}

/// Checks the grid's axes against model `m` (`named` as the user named it, `given` the learner flags
/// given): a model parameter `m` does not take, two axes of one parameter (`c` and `lambda`, `lambda`
/// and `gam`), an axis with a flag it replaces, and (for a precomputed kernel) any kernel parameter
/// are refused, listing the axes `m` takes.
fn check_axes(
    grid: &ParamGrid,
    m: ModelKind,
    named: &str,
    given: &[&str],
    kernel: &str,
) -> Result<(), CliError> {
    let precomputed = is_precomputed(kernel);
    let takes = m.axes();
    let kernel_too = if precomputed {
        " (a precomputed kernel has no parameters)"
    } else {
        " and the kernel's parameters"
    };
    let names = grid.names();
    for name in &names {
        let name = *name;
        if takes.contains(&name) {
            if let Some(flag) = given.iter().find(|f| replaced_flags(name).contains(f)) {
                return Err(format!(
                    "the grid axis {name:?} sets in every cell what {flag} sets; give one of them"
                )
                .into());
            }
            continue;
        }
        if is_model_param(name, false) {
            return Err(format!(
                "the grid axis {name:?} is not a parameter of {named}; {named} takes {}{kernel_too}",
                words(takes)
            )
            .into());
        }
        if precomputed {
            return Err(format!(
                "the grid axis {name:?} would be a kernel parameter, but a precomputed kernel has none (its \
                 values are fixed in the file); grid over the model's parameters ({}), or compute one \
                 kernel file per kernel parameter value",
                words(takes)
            )
            .into());
        }
        // A kernel parameter: the kernel must take it.
        let spec = crate::grid_kernel::with_features(kernel, None)?.0;
        let key = name.strip_prefix("k.").unwrap_or(name);
        let takes_key =
            set_kernel_param(&spec, key, 1.0).is_ok_and(|s| s.parse::<kern_core::KernelSpec>().is_ok());
        if !takes_key && !spec.contains(['+', '*', '(']) {
            return Err(format!(
                "the grid axis {name:?} is not a parameter of {named} nor of the kernel {kernel:?}; {named} \
                 takes {}, the kernel {} (kern help kernels)",
                words(takes),
                kernel_keys(kernel)
            )
            .into());
        }
    }
    for (a, b, what) in [("c", "lambda", "C = 1/(2 n lambda)"), ("lambda", "gam", "gam = 1/lambda")] {
        if names.contains(&a) && names.contains(&b) {
            return Err(format!(
                "the grid axes {a:?} and {b:?} set the same parameter ({what}); grid over one of them"
            )
            .into());
        }
    }
    Ok(())
}

impl CvFlags {
    /// What the cross-validation fits: the learner's flags resolved ([`LearnerFlags::resolve`]), a
    /// one-class SVM and the railway SVC refused (the first learns no labels to score, the second
    /// locates its areas from all the labels).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] cv: kern_cli::cv_flags::CvFlags }
    /// use kern_cli::kinds::ModelKind;
    /// let cli = Cli::try_parse_from(["cv", "--model", "svr", "--kernel", "rbf:gamma=1", "--grid", "c=1..2:2"])?;
    /// assert_eq!(cli.cv.learner()?, ModelKind::Svr);
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn learner(&self) -> Result<ModelKind, CliError> {
        let l = self.learner.resolve()?;
        match l {
            ModelKind::OneClass => {
                Err("kern cv scores predictions against the labels of held-out points; a one-class SVM is \
                 trained without labels, so it is not cross-validated here (train it with kern train \
                 --model one-class)"
                    .into())
            }
            ModelKind::Railway => Err("kern cv does not cross-validate --model railway (its areas are \
                                       located from the labels of all the samples); train it with kern train"
                .into()),
            l => Ok(l),
        }
    }

    /// Checks the flags and translates them: the grid (at most `--max-cells` cells), the folds,
    /// the scoring, the learner, the grid's axes against it, and the learner of the first cell.
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] cv: kern_cli::cv_flags::CvFlags }
    /// let cli = Cli::try_parse_from(["cv", "--model", "krr", "--kernel", "rbf:gamma=1", "--grid", "c=1..2:2"])?;
    /// assert_eq!(
    ///     cli.cv.plan().unwrap_err().to_string(),
    ///     "the grid axis \"c\" is not a parameter of --model krr; --model krr takes lambda and the kernel's parameters"
    /// );
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn plan(&self) -> Result<CvPlan, CliError> {
        let grid: ParamGrid = canonical_grid(&self.grid).parse()?;
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
        self.learner.refuse_auto("kern cv")?;
        let precomputed = is_precomputed(&self.learner.kernel);
        if precomputed && !learner.is_svm() {
            return Err(format!(
                "--kernel precomputed cross-validates the SVMs (--model svc, nu-svc, svr or nu-svr), not \
                 --model {}",
                learner.name()
            )
            .into());
        }
        let named = self.learner.named(learner);
        check_axes(&grid, learner, &named, &self.learner.given(), &self.learner.kernel)?;
        // Fail early on a kernel the grid cannot fill in, or parameters the model refuses.
        if let Some(p) = grid.points().first() {
            self.learner.params(learner, p, self.seed)?;
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
        let path = match self.cell(plan, &plan.grid.points()[0])? {
            AnyParams::LsSvm(p) => Some((p.kernel, p.path)),
            AnyParams::Krr(p) => Some((p.kernel, p.path)),
            _ => None,
        };
        if let Some((kernel, path)) = path
            && kern_models::kmat::choose_path(&kernel, x, path)? == kern_models::kmat::SolvePath::Dense
        {
            let concurrent = self.threads.unwrap_or_else(rayon::current_num_threads).max(1);
            let what = "the dense kernel matrices of the folds fitted at once";
            let bytes = kern_core::memory::bytes_for::<f64>(&[x.n(), x.n(), 2 * concurrent], what)?;
            kern_core::memory::check_bytes(
                bytes,
                what,
                "use --threads 1, a compactly supported kernel (cs-gaussian:...), a sample of the data, or raise --max-memory",
            )?;
        }
        Ok(())
    }

    /// The targets the learner is scored on (after the checks of its labels), as `kern train` reads
    /// them.
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] cv: kern_cli::cv_flags::CvFlags }
    /// use kern_core::{io::Dataset, Samples, Targets};
    /// let cli = Cli::try_parse_from(["cv", "--model", "krr", "--kernel", "rbf:gamma=1", "--grid", "lambda=1..2:2"])?;
    /// let labels = vec!["0.5".into(), "1.5".into()];
    /// let ds = Dataset::new(Samples::from_rows(&[[0.0], [1.0]])?, labels, vec![]);
    /// assert!(matches!(cli.cv.targets(cli.cv.learner()?, &ds)?, Targets::Real(_)));
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn targets(&self, l: ModelKind, ds: &Dataset) -> Result<Targets, CliError> {
        use ModelKind::*;
        match l {
            Svc | NuSvc | Railway => {
                check_classes(ds, self.learner.allow_many_classes)?;
                targets(ds, false)
            }
            Svr | NuSvr | Krr | LandmarkKrr => Ok(Targets::Real(ds.real()?)),
            Lssvm | Kfa | LandmarkLssvm => targets(ds, self.learner.regression),
            OneClass => Err("a one-class SVM learns no labels".into()),
        }
    }

    /// The C-SVC of grid point `p` ([`CvFlags::cell`], which must be a C-SVC: the warm-started path
    /// over c).
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
        match self.cell(plan, p)? {
            AnyParams::Svc(s) => Ok(s),
            other => Err(format!("--model {} is not a C-SVC", other.model().name()).into()),
        }
    }

    /// The learner of grid point `p`: what one (cell, fold) fit trains, by the one translation of the
    /// flags ([`LearnerFlags::params`], seeded by `--seed`).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] cv: kern_cli::cv_flags::CvFlags }
    /// let cli = Cli::try_parse_from(["cv", "--model", "kfa", "--kernel", "rbf:gamma=1", "--grid", "max_fv=[2.5]"])?;
    /// assert!(cli.cv.plan().unwrap_err().to_string().contains("positive integer"));
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn cell(&self, plan: &CvPlan, p: &ParamPoint) -> Result<AnyParams, CliError> {
        self.learner.params(plan.learner, p, self.seed)
    }

    /// Whether the search takes the warm-started path over `c` (`kern cv`'s default for a two-class
    /// C-SVC whose grid has `c`, without probabilities, when the kernel matrix of all `n` samples fits
    /// in `--cache-mb`): the cells that share a kernel are then fitted fold by fold in ascending `c`,
    /// each fit from the previous solution.
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
        plan.learner == ModelKind::Svc
            && matches!(y, Targets::Binary(_))
            && !self.no_warm_start
            && !self.learner.probability
            && plan.grid.names().contains(&"c")
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
    pub fn summary(&self, l: ModelKind, n: usize, report: &Value, seconds: f64) -> Value {
        let best = report["best"].as_u64().unwrap_or(0) as usize;
        let cells = report["cells"].clone();
        let best_cell = cells.get(best).cloned().unwrap_or(Value::Null);
        // The SVMs by their model files' kind (svc, svr), their formulation in "type", as kern train.
        let model = match l {
            ModelKind::NuSvc => "svc",
            ModelKind::NuSvr => "svr",
            l => l.name(),
        };
        json!({
            "model": model,
            "type": l.svm_type().map(crate::kinds::SvmType::name),
            "n": n,
            "kernel": crate::grid_kernel::with_features(&self.learner.kernel, self.learner.n_features)
                .map_or_else(|_| self.learner.kernel.clone(), |k| k.0),
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

#[cfg(test)]
mod tests {
    use super::*;
    use kern_models::svm::{SolverParams, SvrParams};
    use kern_sparse::pcg::PcgOptions;

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

    #[test]
    fn cv_refuses_one_class_and_railway_and_resolves_the_rest_as_train_does() {
        let e = cv(&["--grid", "nu=[0.5]", "--model", "one-class"]).learner().unwrap_err().to_string();
        assert!(e.contains("one-class SVM is trained without labels"), "{e}");
        for args in [
            &["--model", "svc"][..],
            &["--model", "svr", "--type", "nu-svr"],
            &["--type", "nu-svc", "--nu", "0.2"],
            &["--model", "krr"],
            &["--model", "svc", "--nu", "0.2"],
            &["--model", "kfa", "--type", "c-svc"],
            &["--type", "nu-svc", "--c", "2"],
        ] {
            let mut a = vec!["--grid", "sigma=[1]"];
            a.extend(args);
            let f = cv(&a);
            let (got, want) = (f.learner(), f.learner.resolve());
            assert_eq!(got.map_err(|e| e.to_string()), want.map_err(|e| e.to_string()), "{args:?}");
        }
    }

    /// Every model parameter on the grid of every model that does not take it is refused, listing
    /// the axes the model takes; every axis a model takes is accepted.
    #[test]
    fn every_grid_axis_a_model_does_not_take_is_refused() {
        use clap::ValueEnum;
        for &m in ModelKind::value_variants() {
            if matches!(m, ModelKind::OneClass | ModelKind::Railway) {
                continue;
            }
            let landmarks: &[&str] = if matches!(m, ModelKind::LandmarkLssvm | ModelKind::LandmarkKrr) {
                &["--landmarks", "random:3", "--lambda", "1"]
            } else {
                &[]
            };
            for axis in ["c", "lambda", "gam", "epsilon", "nu", "max_fv", "min_fitness"] {
                // The landmark models' --lambda is replaced by their lambda and gam axes.
                let extra: &[&str] = if ["lambda", "gam"].contains(&axis) && !landmarks.is_empty() {
                    &landmarks[..2]
                } else {
                    landmarks
                };
                let grid = format!("{axis}=[1]");
                let mut a = vec!["--model", m.name(), "--grid", &grid];
                a.extend(extra);
                let r = cv(&a).plan();
                let named = format!("--model {}", m.name());
                // A non-ν model's nu is the kernel's (the Gaussian has none: refused as neither's).
                if axis == "nu" && !m.axes().contains(&"nu") {
                    assert!(r.is_err_and(|e| e.to_string().contains("nor of the kernel")), "{a:?}");
                    continue;
                }
                assert_eq!(
                    r.is_ok(),
                    m.axes().contains(&axis),
                    "{a:?}: {:?}",
                    r.as_ref().err().map(|e| e.to_string())
                );
                if let Err(e) = r {
                    let want = format!(
                        "the grid axis {axis:?} is not a parameter of {named}; {named} takes {} and the kernel's parameters",
                        words(m.axes())
                    );
                    assert_eq!(e.to_string(), want, "{a:?}");
                }
            }
        }
    }

    /// Two axes of one parameter, and an axis with the flag it replaces, are refused.
    #[test]
    fn axes_that_set_one_parameter_twice_are_refused() {
        for (args, words) in [
            (&["--model", "svc", "--grid", "c=[1],lambda=[1]"][..], "set the same parameter"),
            (&["--model", "lssvm", "--grid", "lambda=[1],gam=[1]"], "set the same parameter"),
            (&["--model", "svc", "--grid", "c=[1]", "--c", "2"], "what --c sets"),
            (&["--model", "svc", "--grid", "lambda=[1]", "--c", "2"], "what --c sets"),
            (&["--model", "lssvm", "--grid", "lambda=[1]", "--gam", "2"], "what --gam sets"),
            (&["--model", "svr", "--grid", "epsilon=[1]", "--epsilon-tube", "2"], "what --epsilon-tube sets"),
        ] {
            let e = cv(args).plan().expect_err("refused").to_string();
            assert!(e.contains(words), "{args:?}: {e}");
        }
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
            &["--model", "svc", "--grid", "c=[1]", "--regression"],
            &["--model", "lssvm", "--grid", "lambda=[1]", "--max-fv", "3"],
            &["--model", "krr", "--grid", "lambda=[1]", "--allow-many-classes"],
            &["--model", "krr", "--grid", "lambda=[1]", "--probability"],
            &["--model", "svr", "--grid", "c=[1]", "--class-weight", "1:2"],
        ] {
            let f = cv(args);
            let want = f.learner.resolve().expect_err("train refuses").to_string();
            assert!(want.contains(" does not apply to "), "{args:?}: {want}");
            assert_eq!(f.plan().expect_err("cv refuses").to_string(), want, "{args:?}");
        }
        // Given where they apply, the flags reach the cell's learner; absent, the defaults do.
        let f = cv(&["--model", "svr", "--grid", "c=[1]", "--epsilon-tube", "0.25", "--cache-mb", "8"]);
        let plan = f.plan().expect("plan");
        let AnyParams::Svr(m) = f.cell(&plan, &plan.grid.points()[0]).expect("cell") else { panic!("svr") };
        let want = SvrParams::new("gaussian:sigma=1".parse().expect("spec"))
            .epsilon(0.25)
            .solver(SolverParams { cache_mb: 8.0, ..SolverParams::default() })
            .c(1.0);
        assert_eq!(m, want);
        for (tol, want) in [(Some("1e-9"), 1e-9), (None, PcgOptions::default().tol)] {
            let mut a = vec!["--model", "krr", "--grid", "lambda=[1]"];
            a.extend(tol.map(|t| ["--tol", t]).iter().flatten());
            let f = cv(&a);
            let plan = f.plan().expect("plan");
            let AnyParams::Krr(m) = f.cell(&plan, &plan.grid.points()[0]).expect("cell") else {
                panic!("krr")
            };
            assert_eq!(m.solver.pcg.tol, want, "{a:?}");
        }
        assert!(
            cv(&["--model", "lssvm", "--grid", "lambda=[1]", "--tol", "2"]).plan().is_err(),
            "--tol 2 is out of (0, 1)"
        );
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
