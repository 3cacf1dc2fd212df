//! The flags that name a learner and set its parameters, declared once: `kern train`, `kern cv` and
//! `kern-mpi cv` (crate kern-dist) each flatten [`LearnerFlags`] into their own arguments, so that
//! the help text, the defaults and the parsing of `--model`, `--type`, `--kernel`, `--c`, `--nu`, … are
//! the same in every command.
//!
//! ```
//! use clap::Parser;
//! use kern_cli::learner_flags::LearnerFlags;
//! #[derive(Parser)]
//! struct Cli {
//!     #[command(flatten)]
//!     learner: LearnerFlags,
//! }
//! let cli = Cli::try_parse_from(["train", "--type", "nu-svr", "--kernel", "gaussian:sigma=1", "--nu", "0.3"])?;
//! assert_eq!((cli.learner.nu_value(), cli.learner.c, cli.learner.epsilon_tube), (0.3, None, 0.1));
//! # Ok::<(), clap::Error>(())
//! ```

use crate::CliError;
use crate::kinds::{Learner, ModelKind, Scheme, SvmType, resolve};
use kern_models::svm::{SolverBlock, SolverParams};

/// LIBSVM's default ν (`svm-train -n`), of nu-svc, nu-svr and one-class when `--nu` is not given.
pub const DEFAULT_NU: f64 = 0.5;

/// The flags of a learner that `kern train` and `kern cv` share (each command adds its own: `kern
/// train` the output and the solvers of the other model kinds, `kern cv` the grid and the folds).
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
    /// Model kind (or give --type for an SVM).
    #[arg(long, value_enum, required_unless_present = "svm_type")]
    pub model: Option<ModelKind>,
    /// SVM type, LIBSVM's svm-train -s: c-svc (-s 0), nu-svc (-s 1), one-class (-s 2; not in kern cv,
    /// which scores predictions against labels a one-class SVM does not learn), epsilon-svr (-s 3),
    /// nu-svr (-s 4). Replaces --model (svc = c-svc, svr = epsilon-svr).
    #[arg(long = "type", value_enum, value_name = "SVM_TYPE")]
    pub svm_type: Option<SvmType>,
    /// nu of nu-svc, nu-svr and one-class, in (0, 1] (LIBSVM -n, default 0.5; kern cv: where the grid
    /// does not set nu).
    #[arg(long)]
    pub nu: Option<f64>,
    /// Kernel spec, e.g. gaussian:sigma=0.6 (grammar: kern help kernels); kern cv sets the grid's names
    /// other than the model's parameters in it. Or precomputed (SVMs; LIBSVM -t 4): the data file then
    /// holds kernel values, each row LABEL 0:i 1:K(x_i,x_1) 2:K(x_i,x_2) ... for training point i = 1,
    /// 2, ... in order; kern cv trains every fold on the rows and columns of its training points and
    /// predicts its test points from their rows, and its grid may only hold the model's parameters
    /// (c, lambda, epsilon, nu).
    #[arg(long)]
    pub kernel: String,
    /// Regularization C (c-svc, epsilon-svr, nu-svr; LIBSVM -c, default 1; kern cv: where the grid does
    /// not set c or lambda).
    #[arg(long)]
    pub c: Option<f64>,
    /// Half-width of the epsilon-insensitive tube (epsilon-svr; LIBSVM -p; kern cv: where the grid does
    /// not set epsilon).
    #[arg(long, default_value_t = 0.1)]
    pub epsilon_tube: f64,
    /// Stopping tolerance: on the KKT violation (svc, svr; LIBSVM -e; default 1e-3), on the relative
    /// residual of the iterative solver (lssvm, krr: kern train --solver iterative or --landmarks;
    /// default 1e-6).
    #[arg(long)]
    pub tol: Option<f64>,
    /// Kernel cache in megabytes (svc, svr; LIBSVM -m), for each training run: kern cv runs several at
    /// once.
    #[arg(long, default_value_t = 100.0)]
    pub cache_mb: f64,
    /// SMO working sets (svc, svr): auto (chosen by the problem; today one pair), pair (one pair of
    /// variables per iteration, as LIBSVM) or a working-set size Q (blocked, Q variables per block).
    #[arg(long, default_value = "auto", value_name = "auto|pair|Q")]
    pub solver_block: SolverBlock,
    /// Multi-class scheme (svc).
    #[arg(long, value_enum, default_value = "ovo")]
    pub multiclass: Scheme,
    /// Real-valued targets: least-squares regression instead of classification (kfa, lssvm; krr and
    /// svr always regress).
    #[arg(long)]
    pub regression: bool,
    /// Stop feature vector selection after this many vectors (kfa; default: no limit; kern cv: where
    /// the grid does not set max_fv).
    #[arg(long)]
    pub max_fv: Option<usize>,
    /// Train svc even on labels that look real-valued or on more than 100 classes.
    #[arg(long)]
    pub allow_many_classes: bool,
}

impl LearnerFlags {
    /// What the flags fit: `--model` and `--type` resolved by [`resolve`] (the one resolution),
    /// `--nu` refused unless the SVM type takes a ν, `--c` refused where ν replaces it.
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// use kern_cli::kinds::{Learner, SvmType};
    /// let cli = Cli::try_parse_from(["train", "--model", "svc", "--kernel", "linear"])?;
    /// assert_eq!(cli.learner.resolve()?, Learner::Svm(SvmType::CSvc));
    /// let cli = Cli::try_parse_from(["train", "--model", "svc", "--kernel", "linear", "--nu", "0.2"])?;
    /// assert!(cli.learner.resolve().unwrap_err().to_string().contains("--nu applies"));
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn resolve(&self) -> Result<Learner, CliError> {
        let l = resolve(self.model, self.svm_type)?;
        let takes_nu = matches!(l, Learner::Svm(t) if t.is_nu() || t == SvmType::OneClass);
        if self.nu.is_some() && !takes_nu {
            return Err("--nu applies to --type nu-svc, nu-svr and one-class".into());
        }
        // ν replaces C in nu-svc and one-class (LIBSVM ignores -c there; scikit-learn's NuSVC and
        // OneClassSVM have no C): refused rather than ignored, in every command.
        if let (Some(_), Learner::Svm(t @ (SvmType::NuSvc | SvmType::OneClass))) = (self.c, l) {
            return Err(format!("--c does not apply to --type {}", t.name()).into());
        }
        Ok(l)
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
        self.nu.unwrap_or(DEFAULT_NU)
    }

    /// The SMO solver's parameters of `--tol` (default 1e-3, LIBSVM's), `--cache-mb` and
    /// `--solver-block`; the rest are kern-models' defaults.
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
            cache_mb: self.cache_mb,
            block: self.solver_block,
            ..d
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        learner: LearnerFlags,
    }

    fn flags(args: &[&str]) -> LearnerFlags {
        let mut a = vec!["kern", "--kernel", "linear"];
        a.extend(args);
        Cli::try_parse_from(a).expect("flags parse").learner
    }

    #[test]
    fn nu_is_taken_by_the_nu_types_and_one_class_only() {
        for (args, takes) in [
            (&["--type", "nu-svc"][..], true),
            (&["--type", "nu-svr"], true),
            (&["--type", "one-class"], true),
            (&["--model", "svc", "--type", "nu-svc"], true),
            (&["--type", "c-svc"], false),
            (&["--type", "epsilon-svr"], false),
            (&["--model", "svc"], false),
            (&["--model", "svr"], false),
            (&["--model", "kfa"], false),
            (&["--model", "lssvm"], false),
            (&["--model", "krr"], false),
        ] {
            let f = flags(args);
            let (got, want) = (f.resolve(), resolve(f.model, f.svm_type));
            assert_eq!(
                got.map_err(|e| e.to_string()),
                want.map_err(|e| e.to_string()),
                "{args:?} without --nu"
            );
            let mut with_nu = args.to_vec();
            with_nu.extend(["--nu", "0.2"]);
            let r = flags(&with_nu).resolve();
            assert_eq!(r.is_ok(), takes, "{with_nu:?}");
            if let Err(e) = r {
                assert!(e.to_string().contains("--nu applies"), "{e}");
            }
        }
    }

    #[test]
    fn c_is_refused_where_nu_replaces_it() {
        for (t, takes) in [
            ("c-svc", true),
            ("nu-svc", false),
            ("one-class", false),
            ("epsilon-svr", true),
            ("nu-svr", true),
        ] {
            let r = flags(&["--type", t, "--c", "2"]).resolve();
            assert_eq!(r.is_ok(), takes, "--type {t} --c 2");
            if let Err(e) = r {
                assert_eq!(e.to_string(), format!("--c does not apply to --type {t}"));
            }
        }
    }

    #[test]
    fn absent_flags_take_libsvm_defaults() {
        let f = flags(&["--type", "nu-svr"]);
        assert_eq!((f.nu_value(), f.c, f.epsilon_tube, f.cache_mb), (DEFAULT_NU, None, 0.1, 100.0));
        assert_eq!(f.solver(), SolverParams::default());
        assert_eq!((f.multiclass, f.max_fv, f.regression), (Scheme::Ovo, None, false));
    }
}
