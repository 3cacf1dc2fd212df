//! The model kinds and SVM types the commands name (`--model`, `--type`, `--multiclass`), and how
//! class labels become targets (`kern train`, `kern cv`, `kern-mpi cv`).

use crate::CliError;
use kern_core::Targets;
use kern_core::io::Dataset;
use kern_models::libsvm_model::SvmType as LibsvmType;
use kern_models::svm::Multiclass;

/// The model kinds `kern train` can fit.
///
/// ```
/// use clap::ValueEnum;
/// use kern_cli::kinds::ModelKind;
/// assert_eq!(ModelKind::from_str("lssvm", true), Ok(ModelKind::Lssvm));
/// ```
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    /// C-support vector classification (binary, one-vs-one or one-vs-rest).
    Svc,
    /// Epsilon-support vector regression.
    Svr,
    /// Kernel function approximation on selected feature vectors (Baudat & Anouar).
    Kfa,
    /// Least squares SVM, (K + I/lambda) alpha + b = y: classifier, or regressor with --regression.
    Lssvm,
    /// Kernel ridge regression, (K + lambda I) alpha = y.
    Krr,
}

impl ModelKind {
    /// The name `--model` spells.
    ///
    /// ```
    /// assert_eq!(kern_cli::kinds::ModelKind::Krr.name(), "krr");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Svc => "svc",
            ModelKind::Svr => "svr",
            ModelKind::Kfa => "kfa",
            ModelKind::Lssvm => "lssvm",
            ModelKind::Krr => "krr",
        }
    }
}

/// The SVM formulations, named as LIBSVM's `svm-train -s` types.
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
    /// nu-support vector classification (LIBSVM -s 1): --nu bounds the fraction of margin errors
    /// from above and of support vectors from below; one-vs-one for more classes.
    NuSvc,
    /// One-class SVM (LIBSVM -s 2): estimates the support of the data; labels are ignored in training,
    /// predictions are +1 (inside) or -1 (outlier).
    OneClass,
    /// Epsilon-support vector regression (LIBSVM -s 3; same as --model svr).
    EpsilonSvr,
    /// nu-support vector regression (LIBSVM -s 4): --nu replaces --epsilon-tube, whose width the
    /// solver finds.
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

    /// The `--model` the type is a formulation of: `svc` for c-svc and nu-svc, `svr` for epsilon-svr
    /// and nu-svr, none for one-class.
    ///
    /// ```
    /// use kern_cli::kinds::{ModelKind, SvmType};
    /// assert_eq!(SvmType::NuSvc.model(), Some(ModelKind::Svc));
    /// assert_eq!(SvmType::OneClass.model(), None);
    /// ```
    pub fn model(self) -> Option<ModelKind> {
        match LibsvmType::from(self) {
            t if t.is_classifier() => Some(ModelKind::Svc),
            LibsvmType::OneClass => None,
            _ => Some(ModelKind::Svr),
        }
    }

    /// Whether the type is a ν formulation, whose `--nu` replaces C (nu-svc) or the tube width ε
    /// (nu-svr).
    ///
    /// ```
    /// use kern_cli::kinds::SvmType;
    /// assert!(SvmType::NuSvr.is_nu() && !SvmType::OneClass.is_nu());
    /// ```
    pub fn is_nu(self) -> bool {
        matches!(self, SvmType::NuSvc | SvmType::NuSvr)
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

/// What a command fits: an SVM of a LIBSVM type, or another model kind ([`resolve`]).
///
/// ```
/// use kern_cli::kinds::{Learner, SvmType};
/// assert_ne!(Learner::Svm(SvmType::CSvc), Learner::Svm(SvmType::NuSvc));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Learner {
    /// An SVM (`--type`, or `--model svc|svr`).
    Svm(SvmType),
    /// Another model kind (`--model kfa|lssvm|krr`).
    Model(ModelKind),
}

/// Resolves `--model` and `--type` into what is fitted, for every command that takes them:
/// `--model svc` alone is c-svc and `--model svr` alone epsilon-svr (LIBSVM's default types, `-s 0`
/// and `-s 3`), `--type` alone is that SVM, both must name the same model (`--model svc --type nu-svc`
/// is nu-svc), and one of them is needed.
///
/// ```
/// use kern_cli::kinds::{Learner, ModelKind, SvmType, resolve};
/// assert_eq!(resolve(Some(ModelKind::Svr), None)?, Learner::Svm(SvmType::EpsilonSvr));
/// assert_eq!(resolve(Some(ModelKind::Krr), None)?, Learner::Model(ModelKind::Krr));
/// assert!(resolve(Some(ModelKind::Svr), Some(SvmType::NuSvc)).is_err());
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub fn resolve(model: Option<ModelKind>, svm_type: Option<SvmType>) -> Result<Learner, CliError> {
    match (model, svm_type) {
        (Some(ModelKind::Svc), None) => Ok(Learner::Svm(SvmType::CSvc)),
        (Some(ModelKind::Svr), None) => Ok(Learner::Svm(SvmType::EpsilonSvr)),
        (Some(m), None) => Ok(Learner::Model(m)),
        (Some(m), Some(t)) if t.model() != Some(m) => Err(format!(
            "--model {} and --type {} name different models; give one of them",
            m.name(),
            t.name()
        )
        .into()),
        (_, Some(t)) => Ok(Learner::Svm(t)),
        (None, None) => Err("give --model or --type".into()),
    }
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
/// let ds = Dataset { samples: Samples::from_rows(&[[0.0], [1.0], [2.0]])?, labels, feature_names: vec![] };
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
pub const MAX_CLASSES: usize = 100;

/// Refuses class labels that look like regression targets (non-integer numbers) or too many classes
/// for one-vs-one / one-vs-rest, unless `allow`.
///
/// ```
/// use kern_core::{io::Dataset, Samples};
/// let labels = vec!["0.5".into(), "1.5".into()];
/// let ds = Dataset { samples: Samples::from_rows(&[[0.0], [1.0]])?, labels, feature_names: vec![] };
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
        use Learner::{Model, Svm};
        use ModelKind::{Kfa, Krr, Lssvm, Svc, Svr};
        use SvmType::{CSvc, EpsilonSvr, NuSvc, NuSvr, OneClass};
        let differ = "name different models";
        // Columns: no --type, c-svc, nu-svc, one-class, epsilon-svr, nu-svr.
        let types = [None, Some(CSvc), Some(NuSvc), Some(OneClass), Some(EpsilonSvr), Some(NuSvr)];
        // Per --model: the outcome of each column.
        type Row = [Result<Learner, &'static str>; 6];
        let table: [(Option<ModelKind>, Row); 6] = [
            (
                None,
                [
                    Err("give --model or --type"),
                    Ok(Svm(CSvc)),
                    Ok(Svm(NuSvc)),
                    Ok(Svm(OneClass)),
                    Ok(Svm(EpsilonSvr)),
                    Ok(Svm(NuSvr)),
                ],
            ),
            (
                Some(Svc),
                [Ok(Svm(CSvc)), Ok(Svm(CSvc)), Ok(Svm(NuSvc)), Err(differ), Err(differ), Err(differ)],
            ),
            (
                Some(Svr),
                [
                    Ok(Svm(EpsilonSvr)),
                    Err(differ),
                    Err(differ),
                    Err(differ),
                    Ok(Svm(EpsilonSvr)),
                    Ok(Svm(NuSvr)),
                ],
            ),
            (Some(Kfa), [Ok(Model(Kfa)), Err(differ), Err(differ), Err(differ), Err(differ), Err(differ)]),
            (
                Some(Lssvm),
                [Ok(Model(Lssvm)), Err(differ), Err(differ), Err(differ), Err(differ), Err(differ)],
            ),
            (Some(Krr), [Ok(Model(Krr)), Err(differ), Err(differ), Err(differ), Err(differ), Err(differ)]),
        ];
        // The table covers every value clap can parse.
        assert_eq!(table.len(), ModelKind::value_variants().len() + 1);
        assert_eq!(types.len(), SvmType::value_variants().len() + 1);
        for (model, row) in table {
            for (t, want) in types.into_iter().zip(row) {
                match (resolve(model, t), want) {
                    (Ok(got), Ok(want)) => assert_eq!(got, want, "{model:?} {t:?}"),
                    (Err(e), Err(words)) => assert!(e.to_string().contains(words), "{model:?} {t:?}: {e}"),
                    (got, want) => panic!("{model:?} {t:?}: got {got:?}, want {want:?}"),
                }
            }
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
            assert_eq!(t.model() == Some(ModelKind::Svc), l.is_classifier(), "{t:?}");
            words.push(l.name());
        }
        words.sort_unstable();
        words.dedup();
        assert_eq!(words.len(), 5, "five distinct LIBSVM types");
    }
}
