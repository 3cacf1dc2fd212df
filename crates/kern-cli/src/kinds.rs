//! The model kinds and SVM types the commands name (`--model`, `--type`, `--multiclass`), and how
//! class labels become targets (`kern train`, `kern cv`, `kern-mpi cv`).
//!
//! ```
//! use clap::ValueEnum;
//! use kern_cli::kinds::{ModelKind, SvmType, resolve, targets};
//! use kern_core::{Samples, Targets, io::Dataset};
//! let t = SvmType::from_str("nu-svr", true)?; // `--type nu-svr`
//! assert_eq!(resolve(None, Some(t), false, false)?, ModelKind::NuSvr);
//! assert_eq!(resolve(Some(ModelKind::Krr), None, true, false)?, ModelKind::LandmarkKrr); // `--landmarks`
//! let labels = vec!["b".into(), "a".into(), "c".into()];
//! let ds = Dataset::new(Samples::from_rows(&[[0.0], [1.0], [2.0]])?, labels, vec![]);
//! assert!(matches!(targets(&ds, false)?, Targets::Classes(c) if c.n_classes() == 3));
//! assert!(targets(&ds, true).is_err()); // `--regression` needs numeric labels
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! ```

use crate::CliError;
use kern_core::Targets;
use kern_core::io::Dataset;
use kern_models::libsvm_model::SvmType as LibsvmType;
use kern_models::svm::Multiclass;

/// The models `--model` names: every learner `kern train` fits (and `kern cv` cross-validates, all
/// but one-class and railway). Each has one name; `--type` is the LIBSVM-style alias of the SVMs.
///
/// ```
/// use clap::ValueEnum;
/// use kern_cli::kinds::ModelKind;
/// assert_eq!(ModelKind::from_str("nu-svc", true), Ok(ModelKind::NuSvc));
/// assert_eq!(ModelKind::LandmarkKrr.name(), "landmark-krr");
/// ```
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelKind {
    /// C-support vector classification (LIBSVM -s 0): binary, one-vs-one or one-vs-rest.
    Svc,
    /// nu-support vector classification (LIBSVM -s 1): --nu bounds the fraction of margin errors.
    NuSvc,
    /// One-class SVM (LIBSVM -s 2): the support of the data; predicts +1 inside, -1 outlier.
    OneClass,
    /// Epsilon-support vector regression (LIBSVM -s 3), with an --epsilon-tube.
    Svr,
    /// nu-support vector regression (LIBSVM -s 4): --nu replaces the tube width.
    NuSvr,
    /// Least squares SVM, (K + lambda I) alpha + b = y: classifier, or regressor with --regression.
    Lssvm,
    /// Kernel ridge regression, (K + lambda I) alpha = y (no intercept).
    Krr,
    /// Kernel function approximation on selected feature vectors.
    Kfa,
    /// LS-SVM on M landmark centres of --landmarks, for large data.
    LandmarkLssvm,
    /// Kernel ridge on M landmark centres of --landmarks, for large data.
    LandmarkKrr,
    /// Linear SVC on the railway kernel's feature map, areas located from the labels (--kernel railway:auto).
    Railway,
}

impl ModelKind {
    /// The name `--model` spells.
    ///
    /// ```
    /// assert_eq!(kern_cli::kinds::ModelKind::OneClass.name(), "one-class");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Svc => "svc",
            ModelKind::NuSvc => "nu-svc",
            ModelKind::OneClass => "one-class",
            ModelKind::Svr => "svr",
            ModelKind::NuSvr => "nu-svr",
            ModelKind::Lssvm => "lssvm",
            ModelKind::Krr => "krr",
            ModelKind::Kfa => "kfa",
            ModelKind::LandmarkLssvm => "landmark-lssvm",
            ModelKind::LandmarkKrr => "landmark-krr",
            ModelKind::Railway => "railway",
        }
    }

    /// The SVM type of an SVM model (LIBSVM's `-s`), none for the other models.
    ///
    /// ```
    /// use kern_cli::kinds::{ModelKind, SvmType};
    /// assert_eq!(ModelKind::Svr.svm_type(), Some(SvmType::EpsilonSvr));
    /// assert_eq!(ModelKind::Krr.svm_type(), None);
    /// ```
    pub fn svm_type(self) -> Option<SvmType> {
        match self {
            ModelKind::Svc => Some(SvmType::CSvc),
            ModelKind::NuSvc => Some(SvmType::NuSvc),
            ModelKind::OneClass => Some(SvmType::OneClass),
            ModelKind::Svr => Some(SvmType::EpsilonSvr),
            ModelKind::NuSvr => Some(SvmType::NuSvr),
            _ => None,
        }
    }

    /// Whether the model is one of LIBSVM's SVMs (trained by the SMO solver; precomputed kernels).
    ///
    /// ```
    /// assert!(kern_cli::kinds::ModelKind::NuSvr.is_svm() && !kern_cli::kinds::ModelKind::Railway.is_svm());
    /// ```
    pub fn is_svm(self) -> bool {
        self.svm_type().is_some()
    }

    /// Whether the model is a ν formulation, whose `nu` replaces C (nu-svc) or the tube width ε
    /// (nu-svr): a grid's `nu` is then the model's, not a kernel parameter.
    ///
    /// ```
    /// use kern_cli::kinds::ModelKind;
    /// assert!(ModelKind::NuSvr.is_nu() && !ModelKind::OneClass.is_nu());
    /// ```
    pub fn is_nu(self) -> bool {
        matches!(self, ModelKind::NuSvc | ModelKind::NuSvr)
    }

    /// The learner flags the model takes (besides `--model`, `--type` and `--kernel`): every other
    /// learner flag given with it is refused, and the refusal lists these.
    ///
    /// ```
    /// use kern_cli::kinds::ModelKind;
    /// assert!(ModelKind::Lssvm.flags().contains(&"--gam") && !ModelKind::Krr.flags().contains(&"--gam"));
    /// ```
    pub fn flags(self) -> &'static [&'static str] {
        use ModelKind::*;
        match self {
            Svc | Railway => &[
                "--c",
                "--lambda",
                "--class-weight",
                "--probability",
                "--multiclass",
                "--allow-many-classes",
                "--tol",
                "--cache-mb",
                "--no-shrinking",
                "--max-iter",
            ],
            NuSvc => &[
                "--nu",
                "--probability",
                "--multiclass",
                "--allow-many-classes",
                "--tol",
                "--cache-mb",
                "--no-shrinking",
                "--max-iter",
            ],
            OneClass => &["--nu", "--tol", "--cache-mb", "--no-shrinking", "--max-iter"],
            Svr => &[
                "--c",
                "--lambda",
                "--epsilon-tube",
                "--regression",
                "--tol",
                "--cache-mb",
                "--no-shrinking",
                "--max-iter",
            ],
            NuSvr => &[
                "--nu",
                "--c",
                "--lambda",
                "--regression",
                "--tol",
                "--cache-mb",
                "--no-shrinking",
                "--max-iter",
            ],
            Lssvm => &[
                "--lambda",
                "--gam",
                "--regression",
                "--path",
                "--order",
                "--solver",
                "--preconditioner",
                "--tol",
                "--max-iter",
            ],
            Krr => &[
                "--lambda",
                "--regression",
                "--path",
                "--order",
                "--solver",
                "--preconditioner",
                "--tol",
                "--max-iter",
            ],
            Kfa => &["--max-fv", "--min-fitness", "--fvs-strategy", "--projection", "--regression"],
            LandmarkLssvm => &[
                "--landmarks",
                "--lambda",
                "--gam",
                "--regression",
                "--fvs-strategy",
                "--solver",
                "--preconditioner",
                "--tol",
                "--max-iter",
            ],
            LandmarkKrr => &[
                "--landmarks",
                "--lambda",
                "--regression",
                "--fvs-strategy",
                "--solver",
                "--preconditioner",
                "--tol",
                "--max-iter",
            ],
        }
    }

    /// The model parameters `kern cv --grid` may search for the model (every other grid name is a
    /// kernel parameter, unless it is another model's parameter, which is refused).
    ///
    /// ```
    /// use kern_cli::kinds::ModelKind;
    /// assert_eq!(ModelKind::Krr.axes(), ["lambda"]);
    /// assert_eq!(ModelKind::Svr.axes(), ["c", "lambda", "epsilon"]);
    /// ```
    pub fn axes(self) -> &'static [&'static str] {
        use ModelKind::*;
        match self {
            Svc | Railway => &["c", "lambda"],
            NuSvc | OneClass => &["nu"],
            Svr => &["c", "lambda", "epsilon"],
            NuSvr => &["c", "lambda", "nu"],
            Lssvm | LandmarkLssvm => &["lambda", "gam"],
            Krr | LandmarkKrr => &["lambda"],
            Kfa => &["max_fv", "min_fitness"],
        }
    }
}

/// The words of a list: `a`, `a and b`, `a, b and c`.
///
/// ```
/// assert_eq!(kern_cli::kinds::words(&["--c", "--nu", "--tol"]), "--c, --nu and --tol");
/// ```
pub fn words(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The SVM formulations, named as LIBSVM's `svm-train -s` types: `--type`, the LIBSVM-style alias
/// of the SVM models of `--model`.
///
/// ```
/// use clap::ValueEnum;
/// use kern_cli::kinds::SvmType;
/// assert_eq!(SvmType::from_str("nu-svr", true), Ok(SvmType::NuSvr));
/// ```
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SvmType {
    /// C-support vector classification (LIBSVM -s 0; same as --model svc).
    CSvc,
    /// nu-support vector classification (LIBSVM -s 1; same as --model nu-svc).
    NuSvc,
    /// One-class SVM (LIBSVM -s 2; same as --model one-class).
    OneClass,
    /// Epsilon-support vector regression (LIBSVM -s 3; same as --model svr).
    EpsilonSvr,
    /// nu-support vector regression (LIBSVM -s 4; same as --model nu-svr).
    NuSvr,
}

impl SvmType {
    /// LIBSVM's name of the type as `--type` spells it (the value clap parses).
    ///
    /// ```
    /// assert_eq!(kern_cli::kinds::SvmType::EpsilonSvr.name(), "epsilon-svr");
    /// ```
    pub fn name(self) -> String {
        use clap::ValueEnum;
        self.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
    }

    /// The model of `--model` the type names.
    ///
    /// ```
    /// use kern_cli::kinds::{ModelKind, SvmType};
    /// assert_eq!(SvmType::NuSvc.model(), ModelKind::NuSvc);
    /// assert_eq!(SvmType::EpsilonSvr.model(), ModelKind::Svr);
    /// ```
    pub fn model(self) -> ModelKind {
        match self {
            SvmType::CSvc => ModelKind::Svc,
            SvmType::NuSvc => ModelKind::NuSvc,
            SvmType::OneClass => ModelKind::OneClass,
            SvmType::EpsilonSvr => ModelKind::Svr,
            SvmType::NuSvr => ModelKind::NuSvr,
        }
    }

    /// Whether the type is a ν formulation (nu-svc, nu-svr).
    ///
    /// ```
    /// use kern_cli::kinds::SvmType;
    /// assert!(SvmType::NuSvr.is_nu() && !SvmType::OneClass.is_nu());
    /// ```
    pub fn is_nu(self) -> bool {
        self.model().is_nu()
    }
}

/// The type as LIBSVM's model files name it: the one mapping between the two enums (the command's
/// carries clap's `--type` help text; kern-models does not depend on clap).
///
/// ```
/// use kern_models::libsvm_model::SvmType as LibsvmType;
/// assert_eq!(LibsvmType::from(kern_cli::kinds::SvmType::OneClass).name(), "one_class");
/// ```
impl From<SvmType> for LibsvmType {
    fn from(t: SvmType) -> LibsvmType {
        match t {
            SvmType::CSvc => LibsvmType::CSvc,
            SvmType::NuSvc => LibsvmType::NuSvc,
            SvmType::OneClass => LibsvmType::OneClass,
            SvmType::EpsilonSvr => LibsvmType::EpsilonSvr,
            SvmType::NuSvr => LibsvmType::NuSvr,
        }
    }
}

/// Resolves `--model`, `--type`, whether `--landmarks` is given and whether `--kernel` is a railway
/// kernel into the one model fitted, for every command that takes them:
///
/// - `--type` alone is its SVM; with `--model` both must name the same model (`--model svc --type
///   nu-svc` is nu-svc, as `--model svr --type nu-svr` is nu-svr);
/// - `--model lssvm|krr --landmarks SPEC` is landmark-lssvm|landmark-krr, which need `--landmarks`;
/// - `--model svc --kernel railway:...` is railway, which needs a railway kernel.
///
/// ```
/// use kern_cli::kinds::{ModelKind, SvmType, resolve};
/// assert_eq!(resolve(None, Some(SvmType::EpsilonSvr), false, false)?, ModelKind::Svr);
/// assert_eq!(resolve(Some(ModelKind::Krr), None, true, false)?, ModelKind::LandmarkKrr);
/// assert_eq!(resolve(Some(ModelKind::Svc), None, false, true)?, ModelKind::Railway);
/// assert!(resolve(Some(ModelKind::Svr), Some(SvmType::NuSvc), false, false).is_err());
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub fn resolve(
    model: Option<ModelKind>,
    svm_type: Option<SvmType>,
    landmarks: bool,
    railway: bool,
) -> Result<ModelKind, CliError> {
    use ModelKind::*;
    let m = match (model, svm_type) {
        (Some(m), None) => m,
        (None, Some(t)) => t.model(),
        (Some(m), Some(t)) => {
            let same =
                m == t.model() || (m == Svc && t == SvmType::NuSvc) || (m == Svr && t == SvmType::NuSvr);
            if !same {
                return Err(format!(
                    "--model {} and --type {} name different models; give one of them",
                    m.name(),
                    t.name()
                )
                .into());
            }
            t.model()
        }
        (None, None) => return Err("give --model (or --type for an SVM)".into()),
    };
    Ok(match m {
        Lssvm if landmarks => LandmarkLssvm,
        Krr if landmarks => LandmarkKrr,
        LandmarkLssvm | LandmarkKrr if !landmarks => {
            return Err(format!(
                "--model {} needs --landmarks random:M or fvs:M[:POOL], the centres",
                m.name()
            )
            .into());
        }
        Svc | Railway if railway => Railway,
        Railway => {
            return Err("--model railway needs a railway kernel: --kernel railway:auto[,key=value...]".into());
        }
        m if railway => {
            return Err(format!(
                "--kernel railway:... is the kernel of --model railway (or --model svc), not of --model {}",
                m.name()
            )
            .into());
        }
        m => m,
    })
}

/// Multi-class scheme of `--model svc`.
///
/// ```
/// use clap::ValueEnum;
/// assert_eq!(kern_cli::kinds::Scheme::from_str("ovr", true), Ok(kern_cli::kinds::Scheme::Ovr));
/// ```
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// One machine per pair, voting (LIBSVM).
    Ovo,
    /// One machine per class, largest decision value.
    Ovr,
}

/// The multi-class scheme of the SVC a [`Scheme`] names.
///
/// ```
/// use kern_models::svm::Multiclass;
/// assert_eq!(Multiclass::from(kern_cli::kinds::Scheme::Ovr), Multiclass::OneVsRest);
/// ```
impl From<Scheme> for Multiclass {
    fn from(s: Scheme) -> Multiclass {
        match s {
            Scheme::Ovo => Multiclass::OneVsOne,
            Scheme::Ovr => Multiclass::OneVsRest,
        }
    }
}

/// The targets of a learner that classifies (±1 for two classes, class indices beyond) unless
/// `regression`, when the labels are read as real values.
///
/// ```
/// use kern_core::{io::Dataset, Samples, Targets};
/// let labels = vec!["a".into(), "b".into(), "a".into()];
/// let ds = Dataset::new(Samples::from_rows(&[[0.0], [1.0], [2.0]])?, labels, vec![]);
/// assert!(matches!(kern_cli::kinds::targets(&ds, false)?, Targets::Binary(_)));
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub fn targets(ds: &Dataset, regression: bool) -> Result<Targets, CliError> {
    if regression {
        return Ok(Targets::Real(ds.real()?));
    }
    let classes = ds.classes()?;
    Ok(if classes.n_classes() == 2 { Targets::Binary(ds.binary()?) } else { Targets::Classes(classes) })
}

/// The most classes `svc` trains without `--allow-many-classes`.
///
/// ```
/// use kern_cli::kinds::{check_classes, MAX_CLASSES};
/// use kern_core::{io::Dataset, Samples};
/// let classes = |k: usize| {
///     let x = Samples::from_flat((0..k).map(|i| i as f64).collect(), k, 1).unwrap();
///     Dataset::new(x, (0..k).map(|i| i.to_string()).collect(), vec![])
/// };
/// assert!(check_classes(&classes(MAX_CLASSES), false).is_ok());
/// assert!(check_classes(&classes(MAX_CLASSES + 1), false).is_err());
/// assert!(check_classes(&classes(MAX_CLASSES + 1), true).is_ok()); // --allow-many-classes
/// ```
pub const MAX_CLASSES: usize = 100;

/// Refuses class labels that look like regression targets (non-integer numbers) or too many classes
/// for one-vs-one / one-vs-rest, unless `allow`.
///
/// ```
/// use kern_core::{io::Dataset, Samples};
/// let labels = vec!["0.5".into(), "1.5".into()];
/// let ds = Dataset::new(Samples::from_rows(&[[0.0], [1.0]])?, labels, vec![]);
/// assert!(kern_cli::kinds::check_classes(&ds, false).is_err());
/// assert!(kern_cli::kinds::check_classes(&ds, true).is_ok());
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub fn check_classes(ds: &Dataset, allow: bool) -> Result<(), CliError> {
    if allow {
        return Ok(());
    }
    let classes = ds.classes()?;
    let names = classes.names();
    let fractional = names.iter().find(|n| n.trim().parse::<f64>().is_ok_and(|v| v.fract() != 0.0));
    if let Some(v) = fractional {
        return Err(format!(
            "label {v:?} is not an integer: the labels look like real values ({} distinct); use --model svr \
             for regression, or --allow-many-classes to classify anyway",
            names.len()
        )
        .into());
    }
    if names.len() > MAX_CLASSES {
        return Err(format!(
            "{} classes (more than {MAX_CLASSES}) would train {} one-vs-one machines; use --model svr for \
             regression, or --allow-many-classes to classify anyway",
            names.len(),
            names.len() * (names.len() - 1) / 2
        )
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    /// Every combination of `--model` (or none) and `--type` (or none): what it resolves to, or the
    /// words of its refusal.
    #[test]
    fn every_model_and_type_combination_resolves_or_is_refused() {
        let differ = "name different models";
        for m in ModelKind::value_variants().iter().copied().map(Some).chain([None]) {
            for t in SvmType::value_variants().iter().copied().map(Some).chain([None]) {
                let got = resolve(m, t, false, false);
                let want: Result<ModelKind, &str> = match (m, t) {
                    (None, None) => Err("give --model"),
                    (None, Some(t)) => Ok(t.model()),
                    (Some(ModelKind::LandmarkLssvm | ModelKind::LandmarkKrr), None) => {
                        Err("needs --landmarks")
                    }
                    (Some(ModelKind::Railway), None) => Err("needs a railway kernel"),
                    (Some(m), None) => Ok(m),
                    (Some(ModelKind::Svc), Some(t @ (SvmType::CSvc | SvmType::NuSvc))) => Ok(t.model()),
                    (Some(ModelKind::Svr), Some(t @ (SvmType::EpsilonSvr | SvmType::NuSvr))) => Ok(t.model()),
                    (Some(m), Some(t)) if t.model() == m => Ok(m),
                    (Some(_), Some(_)) => Err(differ),
                };
                match (got, want) {
                    (Ok(got), Ok(want)) => assert_eq!(got, want, "{m:?} {t:?}"),
                    (Err(e), Err(words)) => assert!(e.to_string().contains(words), "{m:?} {t:?}: {e}"),
                    (got, want) => panic!("{m:?} {t:?}: got {got:?}, want {want:?}"),
                }
            }
        }
    }

    /// Every model has one name, parsed back by clap, flags that include none of the names clap
    /// reserves, and grid axes.
    #[test]
    fn every_model_has_a_name_flags_and_axes() {
        for &m in ModelKind::value_variants() {
            assert_eq!(ModelKind::from_str(m.name(), false), Ok(m));
            assert!(!m.axes().is_empty() && !m.flags().is_empty(), "{m:?}");
            assert!(m.flags().iter().all(|f| f.starts_with("--")), "{m:?}");
        }
    }

    #[test]
    fn each_type_maps_to_the_libsvm_type_of_its_name() {
        let mut words = Vec::new();
        for &t in SvmType::value_variants() {
            let l = LibsvmType::from(t);
            // LIBSVM's file word is the `--type` value with `_` for `-`, and that value parses back.
            assert_eq!(l.name(), t.name().replace('-', "_"));
            assert_eq!(SvmType::from_str(&t.name(), false), Ok(t));
            assert_eq!(matches!(t.model(), ModelKind::Svc | ModelKind::NuSvc), l.is_classifier(), "{t:?}");
            words.push(l.name());
        }
        words.sort_unstable();
        words.dedup();
        assert_eq!(words.len(), 5, "five distinct LIBSVM types");
    }
}
