//! The flags that name a learner and set its parameters, declared once: `kern train`, `kern cv` and
//! `kern-mpi cv` (crate kern-dist) each flatten [`LearnerFlags`] into their own arguments, so that
//! the help text, the defaults and the parsing of `--model`, `--type`, `--kernel`, `--c`, `--nu`, … are
//! the same in every command. A flag given to a learner it does not apply to is refused by
//! [`LearnerFlags::resolve`] (before any data is read), never ignored.
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
//! assert_eq!((cli.learner.nu_value(), cli.learner.c, cli.learner.epsilon_tube), (0.3, None, None));
//! # Ok::<(), clap::Error>(())
//! ```

use crate::CliError;
use crate::kinds::{Learner, ModelKind, Scheme, SvmType, resolve};
use kern_models::svm::SolverParams;

/// LIBSVM's default ν (`svm-train -n`), of nu-svc, nu-svr and one-class when `--nu` is not given.
pub const DEFAULT_NU: f64 = 0.5;

/// LIBSVM's default tube half-width ε (`svm-train -p`), of epsilon-svr when `--epsilon-tube` is not
/// given.
pub const DEFAULT_EPSILON_TUBE: f64 = 0.1;

/// LIBSVM's default kernel cache in megabytes (`svm-train -m`), of the SVMs when `--cache-mb` is not
/// given.
pub const DEFAULT_CACHE_MB: f64 = 100.0;

/// One flag's check by [`LearnerFlags::refuse_unused`]: its name (as the user wrote it), whether it
/// was given, whether it applies to the learner, and the learners it applies to (for the message).
///
/// ```
/// let check: kern_cli::learner_flags::FlagCheck = ("--max-fv", true, false, "--model kfa");
/// assert_eq!(check.0, "--max-fv");
/// ```
pub type FlagCheck<'a> = (&'a str, bool, bool, &'a str);

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
    /// Half-width of the epsilon-insensitive tube (epsilon-svr; LIBSVM -p, default 0.1; kern cv: where
    /// the grid does not set epsilon). nu-svr finds the width itself from --nu.
    #[arg(long)]
    pub epsilon_tube: Option<f64>,
    /// Stopping tolerance: on the KKT violation (svc, svr; LIBSVM -e; default 1e-3), on the relative
    /// residual of the iterative solver (lssvm, krr: kern train --solver iterative or --landmarks;
    /// default 1e-6).
    #[arg(long)]
    pub tol: Option<f64>,
    /// Kernel cache in megabytes (svc, svr; LIBSVM -m, default 100), for each training run: kern cv runs
    /// several at once.
    #[arg(long)]
    pub cache_mb: Option<f64>,
    /// Multi-class scheme (c-svc; default ovo; nu-svc is one-vs-one only, as LIBSVM).
    #[arg(long, value_enum)]
    pub multiclass: Option<Scheme>,
    /// Real-valued targets: least-squares regression instead of classification (kfa, lssvm; krr and
    /// svr always regress; refused with the classifying SVMs).
    #[arg(long)]
    pub regression: bool,
    /// Stop feature vector selection after this many vectors (kfa; default: no limit; kern cv: where
    /// the grid does not set max_fv).
    #[arg(long)]
    pub max_fv: Option<usize>,
    /// Train svc (c-svc, nu-svc) even on labels that look real-valued or on more than 100 classes.
    #[arg(long)]
    pub allow_many_classes: bool,
}

impl LearnerFlags {
    /// What the flags fit: `--model` and `--type` resolved by [`resolve`] (the one resolution), and
    /// every flag given to a learner it does not apply to refused, naming the flag and the learner
    /// (scikit-learn's estimators have no such parameter and raise; LIBSVM ignores them silently):
    ///
    /// | flag | applies to |
    /// | --- | --- |
    /// | `--nu` | nu-svc, nu-svr, one-class |
    /// | `--c` | c-svc, epsilon-svr, nu-svr |
    /// | `--epsilon-tube` | epsilon-svr |
    /// | `--tol` | the SVMs, lssvm, krr (not kfa) |
    /// | `--cache-mb` | the SVMs |
    /// | `--multiclass` | c-svc; `ovo` also nu-svc |
    /// | `--regression` | kfa, lssvm, krr, epsilon-svr, nu-svr |
    /// | `--max-fv` | kfa |
    /// | `--allow-many-classes` | c-svc, nu-svc |
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// use kern_cli::kinds::{Learner, SvmType};
    /// let cli = Cli::try_parse_from(["train", "--model", "svc", "--kernel", "linear"])?;
    /// assert_eq!(cli.learner.resolve()?, Learner::Svm(SvmType::CSvc));
    /// let cli = Cli::try_parse_from(["train", "--model", "svc", "--kernel", "linear", "--nu", "0.2"])?;
    /// assert!(cli.learner.resolve().unwrap_err().to_string().contains("--nu applies"));
    /// let cli = Cli::try_parse_from(["train", "--type", "nu-svr", "--kernel", "linear", "--epsilon-tube", "0.2"])?;
    /// assert!(cli.learner.resolve().unwrap_err().to_string().starts_with("--epsilon-tube does not apply to --type nu-svr"));
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn resolve(&self) -> Result<Learner, CliError> {
        use Learner::{Model, Svm};
        use SvmType::{CSvc, EpsilonSvr, NuSvc, NuSvr, OneClass};
        let l = resolve(self.model, self.svm_type)?;
        let svm = matches!(l, Svm(_));
        let multiclass = match self.multiclass {
            Some(Scheme::Ovo) => "--multiclass ovo",
            Some(Scheme::Ovr) => "--multiclass ovr",
            None => "--multiclass",
        };
        // (flag, given, applies to the learner, what it applies to). ν replaces C in nu-svc and
        // one-class and ε in nu-svr, whose tube width the solver finds.
        let checks = [
            (
                "--nu",
                self.nu.is_some(),
                matches!(l, Svm(NuSvc | NuSvr | OneClass)),
                "--type nu-svc, nu-svr and one-class",
            ),
            (
                "--c",
                self.c.is_some(),
                matches!(l, Svm(CSvc | EpsilonSvr | NuSvr)),
                "--type c-svc, epsilon-svr and nu-svr (--model svc, svr)",
            ),
            (
                "--epsilon-tube",
                self.epsilon_tube.is_some(),
                l == Svm(EpsilonSvr),
                "--type epsilon-svr (--model svr)",
            ),
            ("--tol", self.tol.is_some(), l != Model(ModelKind::Kfa), "the SVMs, lssvm and krr"),
            ("--cache-mb", self.cache_mb.is_some(), svm, "the SVMs (--model svc, svr, or --type)"),
            (
                multiclass,
                self.multiclass.is_some(),
                l == Svm(CSvc) || (l == Svm(NuSvc) && self.multiclass == Some(Scheme::Ovo)),
                "--type c-svc (--model svc); nu-svc is one-vs-one, as LIBSVM",
            ),
            (
                "--regression",
                self.regression,
                !matches!(l, Svm(CSvc | NuSvc | OneClass)),
                "kfa and lssvm (krr and svr always regress)",
            ),
            ("--max-fv", self.max_fv.is_some(), l == Model(ModelKind::Kfa), "--model kfa"),
            (
                "--allow-many-classes",
                self.allow_many_classes,
                matches!(l, Svm(CSvc | NuSvc)),
                "--type c-svc and nu-svc (--model svc)",
            ),
        ];
        self.refuse_unused(l, &checks)?;
        Ok(l)
    }

    /// Refuses the first flag of `checks` given to learner `l` that it does not apply to, naming the
    /// flag, the learner as the user named it, and where the flag applies: the one wording of every
    /// such refusal (`resolve` for the shared flags, `kern train` for its own).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let cli = Cli::try_parse_from(["train", "--model", "krr", "--kernel", "linear"])?;
    /// let l = cli.learner.resolve()?;
    /// let e = cli.learner.refuse_unused(l, &[("--probability", true, false, "--type c-svc and nu-svc")]);
    /// assert_eq!(
    ///     e.unwrap_err().to_string(),
    ///     "--probability does not apply to --model krr; --probability applies to --type c-svc and nu-svc"
    /// );
    /// assert!(cli.learner.refuse_unused(l, &[("--probability", false, false, "svc")]).is_ok());
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn refuse_unused(&self, l: Learner, checks: &[FlagCheck<'_>]) -> Result<(), CliError> {
        match checks.iter().find(|(_, given, applies, _)| *given && !*applies) {
            Some((flag, _, _, to)) => {
                Err(format!("{flag} does not apply to {}; {flag} applies to {to}", self.named(l)).into())
            }
            None => Ok(()),
        }
    }

    /// The learner `l` as the user named it: by `--type` when given, else by `--model` (the words of
    /// the refusals).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let cli = Cli::try_parse_from(["train", "--model", "svr", "--kernel", "linear"])?;
    /// assert_eq!(cli.learner.named(cli.learner.resolve()?), "--model svr");
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn named(&self, l: Learner) -> String {
        match (self.svm_type, l) {
            (Some(t), _) => format!("--type {}", t.name()),
            (None, Learner::Svm(t)) => match t.model() {
                Some(m) => format!("--model {}", m.name()),
                None => format!("--type {}", t.name()),
            },
            (None, Learner::Model(m)) => format!("--model {}", m.name()),
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
        self.nu.unwrap_or(DEFAULT_NU)
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

    /// The SMO solver's parameters of `--tol` (default 1e-3, LIBSVM's), `--cache-mb` (default 100);
    /// the rest are kern-models' defaults.
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
        SolverParams { tol: self.tol.unwrap_or(d.tol), cache_mb: self.cache_mb_value(), ..d }
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
                assert!(e.to_string().starts_with(&format!("--c does not apply to --type {t};")), "{e}");
            }
        }
    }

    /// The learners, as a user names them: the args, and the name the refusals give.
    const LEARNERS: [(&[&str], &str); 10] = [
        (&["--type", "c-svc"], "--type c-svc"),
        (&["--model", "svc"], "--model svc"),
        (&["--type", "nu-svc"], "--type nu-svc"),
        (&["--type", "one-class"], "--type one-class"),
        (&["--type", "epsilon-svr"], "--type epsilon-svr"),
        (&["--model", "svr"], "--model svr"),
        (&["--type", "nu-svr"], "--type nu-svr"),
        (&["--model", "kfa"], "--model kfa"),
        (&["--model", "lssvm"], "--model lssvm"),
        (&["--model", "krr"], "--model krr"),
    ];

    /// Every learner flag with every learner: accepted exactly where the flag applies (the table of
    /// `resolve`'s documentation, written out here by learner), refused elsewhere with a message that
    /// names the flag and the learner as the user named it.
    #[test]
    fn every_flag_is_refused_where_it_does_not_apply() {
        // Per flag: its args, and the learners (by the name of LEARNERS) that take it.
        let svms = "--type c-svc --model svc --type nu-svc --type one-class --type epsilon-svr --model svr --type nu-svr";
        let table: [(&[&str], &str, String); 11] = [
            (&["--nu", "0.3"], "--nu", "--type nu-svc --type one-class --type nu-svr".into()),
            (
                &["--c", "2"],
                "--c",
                "--type c-svc --model svc --type epsilon-svr --model svr --type nu-svr".into(),
            ),
            (&["--epsilon-tube", "0.2"], "--epsilon-tube", "--type epsilon-svr --model svr".into()),
            (&["--tol", "1e-4"], "--tol", format!("{svms} --model lssvm --model krr")),
            (&["--cache-mb", "8"], "--cache-mb", svms.into()),
            (&["--multiclass", "ovo"], "--multiclass ovo", "--type c-svc --model svc --type nu-svc".into()),
            (&["--multiclass", "ovr"], "--multiclass ovr", "--type c-svc --model svc".into()),
            (
                &["--regression"],
                "--regression",
                "--type epsilon-svr --model svr --type nu-svr --model kfa --model lssvm --model krr".into(),
            ),
            (&["--max-fv", "3"], "--max-fv", "--model kfa".into()),
            (
                &["--allow-many-classes"],
                "--allow-many-classes",
                "--type c-svc --model svc --type nu-svc".into(),
            ),
            // The default of every flag: nothing given, everything accepted.
            (&[], "", format!("{svms} --model kfa --model lssvm --model krr")),
        ];
        for (args, flag, takers) in &table {
            // The names in the table are pairs of words ("--type c-svc").
            let words: Vec<&str> = takers.split(' ').collect();
            let takers: Vec<String> = words.chunks(2).map(|w| w.join(" ")).collect();
            for (learner, name) in LEARNERS {
                let mut a = learner.to_vec();
                a.extend(args.iter());
                let r = flags(&a).resolve();
                let takes = takers.iter().any(|t| t == name);
                assert_eq!(r.is_ok(), takes, "{a:?}: {r:?}");
                if let Err(e) = r {
                    let want = format!("{flag} does not apply to {name}; {flag} applies to ");
                    assert!(e.to_string().starts_with(&want), "{a:?}: {e}");
                }
            }
        }
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
        assert_eq!((f.epsilon_tube, f.cache_mb, f.multiclass), (None, None, None));
    }

    #[test]
    fn given_flags_reach_the_solver() {
        let f = flags(&["--model", "svr", "--epsilon-tube", "0.25", "--cache-mb", "8"]);
        let s = f.solver();
        assert_eq!((f.epsilon_value(), s.cache_mb), (0.25, 8.0));
        assert_eq!(flags(&["--model", "svc", "--multiclass", "ovr"]).scheme(), Scheme::Ovr);
    }
}
