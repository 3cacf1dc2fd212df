//! `kern train`: trains a model on a data file and saves it (header + bincode, atomic write).
//!
//! The learner's flags are kern-cli's `LearnerFlags`, resolved once into the model
//! ([`ModelKind`]) and translated once into its parameters (`AnyParams`, the translation `kern cv`
//! uses), both in [`plan`]; the data is read (and scaled) once, and one match arm per model hands
//! the parameters, the data and a [`Train`] context to the model's family, which trains, saves and
//! describes the model. What `kern train` adds is its own: the output, the sample weights, the
//! feature scaling. The model file's kind tag is what `kern predict` dispatches on.

use crate::data::{DataArgs, Stored, parse_kernel};
use crate::families::svm::{self, ModelFormat, precomputed};
use crate::families::{Train, kfa, landmark, railway, ridge};
use crate::output::{CliError, CliResult, ModelScaling, add_scaling, add_storage, check_out};
use kern_cli::any_params::AnyParams;
use kern_cli::kinds::{ModelKind, Scheme};
use kern_cli::learner_flags::{LearnerFlags, RidgeFit};
use kern_core::io::{CsvSchema, Dataset};
use kern_models::scaling::FeatureScaling;
use kern_models::svm::KernelMatrix;
use kern_tune::grid::ParamPoint;
use std::path::PathBuf;

/// Arguments of `kern train`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub data: DataArgs,
    /// The learner's flags, as `kern cv`'s (`--model`, `--type`, `--kernel`, `--c`, `--nu`, …).
    #[command(flatten)]
    pub learner: LearnerFlags,
    /// Seed of every random step: the probability CV, the landmarks' centres, the railway areas.
    #[arg(long, default_value_t = 0, help_heading = "Model", hide_short_help = true)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long, help_heading = "Solver")]
    pub threads: Option<usize>,
    /// Where to write the model (`-`: standard output); default DATA.model for a positional DATA.
    #[arg(long, help_heading = "Output")]
    pub out: PathBuf,
    /// Model file format: kern, or libsvm (svm-predict reads it).
    ///
    /// libsvm: svc and svr with linear, poly, gaussian or sigmoid kernels.
    #[arg(long, value_enum, default_value = "kern", help_heading = "Output")]
    pub format: ModelFormat,
    /// Scale every feature onto [-1, 1] by its training range (as svm-scale) and store it in the model.
    ///
    /// The range is [--scale-lower, --scale-upper]; `kern predict` then scales raw data the same way.
    #[arg(long, conflicts_with = "scale_file", help_heading = "Data")]
    pub scale: bool,
    /// Lower end of --scale's range.
    #[arg(long, default_value_t = -1.0, requires = "scale", allow_negative_numbers = true, help_heading = "Data", hide_short_help = true)]
    pub scale_lower: f64,
    /// Upper end of --scale's range.
    #[arg(
        long,
        default_value_t = 1.0,
        requires = "scale",
        allow_negative_numbers = true,
        help_heading = "Data",
        hide_short_help = true
    )]
    pub scale_upper: f64,
    /// Scale the features with the parameters of this file (`svm-scale -s` or `kern scale -s`
    /// output) and store them in the model, as --scale does.
    #[arg(long, value_name = "FILE", help_heading = "Data", hide_short_help = true)]
    pub scale_file: Option<PathBuf>,
    /// Per-sample weights: a file with one number per training row (svc, svr, nu-svc, nu-svr, one-class, krr).
    ///
    /// In the data file's order. A weight multiplies that sample's C (for nu-svc and one-class it is
    /// the sample's bound, as in scikit-learn's sample_weight); an integer weight m counts the sample
    /// m times; weight 0 leaves it out. krr minimizes the weighted squared error and needs --lambda.
    #[arg(long, value_name = "FILE", help_heading = "Data", hide_short_help = true)]
    pub weights: Option<PathBuf>,
}

impl Args {
    /// Whether `--scale` or `--scale-file` is given.
    fn scaled(&self) -> bool {
        self.scale || self.scale_file.is_some()
    }

    /// The context the families train in: the flags they read, and the scaling of the training data.
    fn context(&self, scaling: Option<ModelScaling>, schema: Option<CsvSchema>) -> Train {
        Train {
            out: self.out.clone(),
            format: self.format,
            threads: self.threads,
            weights: self.weights.clone(),
            allow_many_classes: self.learner.allow_many_classes,
            regression: self.learner.regression,
            ridge_tol: self.learner.ridge_tol(),
            kernel: self.learner.kernel.clone(),
            scaling,
            schema,
        }
    }
}

/// The feature scaling `--scale` / `--scale-file` ask for, fitted on (or read for) the training data.
fn scaling_of(a: &Args, ds: &Dataset) -> Result<Option<FeatureScaling>, CliError> {
    let s = match (&a.scale_file, a.scale) {
        (Some(p), _) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            FeatureScaling::parse(&text, &p.display().to_string())?
        }
        (None, true) => FeatureScaling::fit(&ds.samples, a.scale_lower, a.scale_upper)?,
        (None, false) => return Ok(None),
    };
    if s.target().is_some() {
        return Err("--scale-file: the file has a target section (svm-scale -y); a model stores feature \
                    scaling only"
            .into());
    }
    Ok(Some(s))
}

/// Loads the training data and applies `--scale` / `--scale-file`, returning the scaling to store
/// with the saved model. Every model computes on either sample store, so a sparse file stays sparse
/// unless it is scaled (scaling moves zeros, so scaled samples are dense).
fn load_scaled(a: &Args) -> Result<(Dataset, Stored, Option<ModelScaling>), CliError> {
    let (mut ds, stored) = if a.scaled() { a.data.load()? } else { a.data.load_sparse()? };
    let scaling = match scaling_of(a, &ds)? {
        Some(s) => {
            ds.samples = s.apply(&ds.samples)?;
            Some(ModelScaling { scaling: s, dim: ds.samples.d() })
        }
        None => None,
    };
    Ok((ds, stored, scaling))
}

/// The model and its parameters: the flags resolved once and translated once, before any data is
/// read (a flag given to a model that does not take it is refused on every path: precomputed and
/// railway kernels too), with what `kern train` adds refused where it does not apply.
fn plan(a: &Args) -> Result<(ModelKind, AnyParams), CliError> {
    let model = a.learner.resolve()?;
    let weighted = model.is_svm() || model == ModelKind::Krr;
    if a.weights.is_some() && !weighted {
        return Err(
            "--weights applies to svc, svr, nu-svc, nu-svr, one-class and krr (without --landmarks)".into()
        );
    }
    check_libsvm_format(a, model)?;
    let params = a.learner.params(model, &ParamPoint::from_pairs(&[]), a.seed)?;
    Ok((model, params))
}

/// Runs `kern train`: the model and its parameters planned once, then the data read and the model
/// trained by its family. A kernel width that defaults to `1/d` (LIBSVM's gamma) is planned again
/// once the data's `d` is known (the first plan checked the spec with a placeholder width).
pub fn run(mut a: Args) -> CliResult {
    check_out(&a.out, &[Some(a.data.data.as_path()), a.weights.as_deref(), a.scale_file.as_deref()])?;
    // The worker threads come up, as rayon's global pool, before the data is read: a small SVM fit
    // runs on this thread, and asks rayon for the pool's size there.
    kern_core::parallel::warm_up_global(a.threads);
    let (model, params) = plan(&a)?;
    // The SVM solvers draw their own progress; the other models get the command's spinner.
    let _spinner = (!model.is_svm()).then(|| crate::progress::Spinner::start("training"));
    if precomputed::is_precomputed(&a.learner.kernel) {
        let libsvm = a.format == ModelFormat::Libsvm;
        precomputed::check_training(model, a.scaled(), libsvm, a.learner.scheme())?;
        if a.learner.has_auto() {
            return Err("automatic values are chosen from sample coordinates, which a precomputed kernel \
                        file does not hold: give --c or --nu as numbers, or search them with kern cv --grid"
                .into());
        }
        let ds = precomputed::read(&a.data, true)?;
        let k = precomputed::kernel_matrix(&ds)?;
        // A precomputed kernel's summary has no storage: the file holds kernel values, not samples.
        return fit(&a.context(None, None), params, ds, Some(&k));
    }
    let (ds, stored, scaling) = load_scaled(&a)?;
    a.learner.n_features = Some(ds.samples.d());
    // Automatic values are chosen on the training data and written into the flags as numbers.
    let t_auto = std::time::Instant::now();
    let weights = if a.learner.has_auto() {
        crate::data::sample_weights(a.weights.as_deref(), ds.samples.n())?
    } else {
        None
    };
    let mut auto = a.learner.choose_auto(model, &ds, weights.as_ref(), a.seed)?;
    let auto_seconds = t_auto.elapsed().as_secs_f64();
    let note = a.learner.gamma_note();
    let params = if note.is_some() || !auto.is_empty() { plan(&a)?.1 } else { params };
    if let Some(n) = &note {
        eprintln!("kern: note: {n}");
    }
    let mut rows = serde_json::json!({});
    a.data.add_rows(&mut rows, &ds);
    // A LIBSVM model file has no place for the CSV schema: the model is saved without it.
    let libsvm = a.format == ModelFormat::Libsvm;
    let schema = if libsvm { None } else { ds.schema.clone() };
    let unchecked = libsvm && ds.schema.is_some();
    let t = a.context(scaling, schema);
    let mut v = match (params, a.learner.landmark_choice.take(), a.learner.ridge_fit.take()) {
        // `--lambda auto` fitted the landmark model with the λ it chose: trained once.
        (AnyParams::Landmark(p), Some(ch), _) => landmark::train(&t, p, &ds, Some(*ch))?,
        // The width search trained the exact model at the width it chose: trained once.
        (AnyParams::LsSvm(p), _, Some(RidgeFit::LsSvm(m, s))) => {
            ridge::train_lssvm(&t, p, &ds, Some((*m, s)))?
        }
        (AnyParams::Krr(p), _, Some(RidgeFit::Krr(m, s))) => ridge::train_krr(&t, p, &ds, Some((*m, s)))?,
        (params, _, _) => fit(&t, params, ds, None)?,
    };
    if !auto.is_empty() {
        for c in auto.iter_mut().filter(|c| c["parameter"] == "lambda") {
            c["value"] = v["lambda"].clone();
        }
        v["auto"] = serde_json::json!({"kernel": a.learner.kernel, "choices": auto, "seconds": auto_seconds});
    }
    add_storage(&mut v, Some(stored));
    add_scaling(&mut v, t.scaling.as_ref());
    if let (Some(n), Some(g)) = (note, a.learner.default_gamma()) {
        v["gamma_default"] = serde_json::json!({"gamma": g, "d": a.learner.n_features, "note": n});
    }
    if let (Some(obj), Some(r)) = (v.as_object_mut(), rows.as_object()) {
        obj.extend(r.clone());
    }
    if let Some(schema) = &t.schema {
        v["csv_schema"] = crate::data::schema_json(schema);
    }
    if unchecked {
        let w = "--format libsvm: a LIBSVM model file has no place for the CSV columns, so the model is \
                 saved without them and kern predict will not check the test data's columns: give it \
                 the training file's feature columns, in the same order, with the same categories";
        eprintln!("kern: warning: {w}");
        match v.get_mut("warnings").and_then(|w| w.as_array_mut()) {
            Some(ws) => ws.push(serde_json::json!(w)),
            None => v["warnings"] = serde_json::json!([w]),
        }
    }
    Ok(v)
}

/// Trains and saves the model of `params` on the data, or (the SVMs) on the precomputed kernel
/// matrix `gram` (then `ds` holds its rows): one arm per model, each its family's.
fn fit(t: &Train, params: AnyParams, ds: Dataset, gram: Option<&KernelMatrix>) -> CliResult {
    match params {
        AnyParams::Svc(p) => svm::train_svc(t, p, &ds, gram),
        AnyParams::Svr(p) => svm::train_svr(t, p, &ds, gram),
        AnyParams::NuSvc(p) => svm::train_svc(t, p, &ds, gram),
        AnyParams::NuSvr(p) => svm::train_svr(t, p, &ds, gram),
        AnyParams::OneClass(p) => svm::train_one_class(t, p, &ds, gram),
        AnyParams::LsSvm(p) => ridge::train_lssvm(t, p, &ds, None),
        AnyParams::Krr(p) => ridge::train_krr(t, p, &ds, None),
        AnyParams::Kfa(p) => kfa::train(t, *p, &ds),
        AnyParams::Landmark(p) => landmark::train(t, p, &ds, None),
        AnyParams::Railway(p) => railway::train(t, &p, ds),
    }
}

/// Refuses before training what a LIBSVM model file cannot hold.
fn check_libsvm_format(a: &Args, model: ModelKind) -> Result<(), CliError> {
    if a.format != ModelFormat::Libsvm {
        return Ok(());
    }
    let kind = match model {
        ModelKind::Svc | ModelKind::NuSvc => "svc",
        ModelKind::Svr | ModelKind::NuSvr => "svr",
        m => m.name(),
    };
    if model == ModelKind::Railway {
        return Err("--format libsvm: railway kernels are located from the training labels and have no \
                    LIBSVM counterpart"
            .into());
    }
    svm::check_format(a.format, kind)?;
    if a.learner.scheme() == Scheme::Ovr {
        return Err("--format libsvm needs --multiclass ovo: LIBSVM models are one-vs-one".into());
    }
    if a.scaled() {
        return Err("--format libsvm cannot store a scaling (LIBSVM model files have no place for it): \
                    scale with `kern scale -s PARAMS`, train on the scaled file, and scale test data \
                    with `kern scale -r PARAMS`"
            .into());
    }
    if !precomputed::is_precomputed(&a.learner.kernel) {
        kern_models::libsvm_model::LibsvmKernel::from_spec(&parse_kernel(&a.learner.kernel_text()?)?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use std::path::Path;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        train: Args,
    }

    fn args(flags: &[&str]) -> Args {
        let argv = ["train", "--data", "d.svm", "--out", "m.kern"].iter().chain(flags);
        Cli::try_parse_from(argv).expect("flags parse").train
    }

    /// The Rust sources under `src/<dir>` without their tests, by path.
    fn sources(dir: &str) -> Vec<(String, String)> {
        fn walk(p: &Path, out: &mut Vec<(String, String)>) {
            for e in std::fs::read_dir(p).expect("source directory") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let s = std::fs::read_to_string(&p).expect("source");
                    let code = s.split("#[cfg(test)]").next().unwrap_or_default().to_string();
                    out.push((p.display().to_string(), code));
                }
            }
        }
        let mut out = Vec::new();
        walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir), &mut out);
        out
    }

    /// Each step of `kern train` runs once: `LearnerFlags::resolve` and the flags' translation into
    /// parameters (`LearnerFlags::params`) are called at one place of the commands and families,
    /// `plan`, which `run` calls once; the families get a `Train` context, never the flags, and
    /// import no command.
    #[test]
    fn the_flags_are_resolved_and_translated_at_one_place() {
        let (commands, families) = (sources("commands"), sources("families"));
        let count = |files: &[(String, String)], what: &str| -> Vec<(String, usize)> {
            files.iter().map(|(p, s)| (p.clone(), s.matches(what).count())).filter(|(_, n)| *n > 0).collect()
        };
        for what in [".resolve()", ".params("] {
            let at: Vec<(String, usize)> =
                count(&commands, what).into_iter().chain(count(&families, what)).collect();
            assert_eq!(at.len(), 1, "{what} at {at:?}");
            assert!(at[0].0.ends_with("train.rs") && at[0].1 == 1, "{what} at {at:?}");
        }
        let train = &commands.iter().find(|(p, _)| p.ends_with("train.rs")).expect("train.rs").1;
        let plan = &train[train.find("fn plan(").expect("fn plan")..];
        let plan = &plan[..plan.find("\n}\n").expect("end of plan")];
        assert!(plan.contains(".resolve()") && plan.contains(".params("), "{plan}");
        // Once before the data is read, once more when the kernel's width defaults to 1/d.
        assert_eq!(train.matches("plan(&a)").count(), 2);
        for (p, s) in &families {
            assert!(!s.contains("LearnerFlags") && !s.contains("crate::commands"), "{p}");
        }
    }

    /// `plan` gives the model and its parameters of the flags, and refuses what `kern train` adds
    /// where it does not apply, before any data is read.
    #[test]
    fn the_plan_is_the_model_and_its_parameters() {
        let (m, p) = plan(&args(&["--model", "lssvm", "--kernel", "linear", "--gam", "4"])).expect("plan");
        assert_eq!(m, ModelKind::Lssvm);
        let AnyParams::LsSvm(p) = p else { panic!("an LS-SVM") };
        assert_eq!(p.lambda, kern_models::ridge::Lambda::Fixed(0.25));
        let e = plan(&args(&["--model", "kfa", "--kernel", "linear", "--weights", "w.txt"])).unwrap_err();
        assert!(e.to_string().starts_with("--weights applies to svc"), "{e}");
        let e = plan(&args(&["--model", "krr", "--kernel", "linear", "--format", "libsvm"])).unwrap_err();
        assert!(e.to_string().contains("cannot be written as a LIBSVM model file"), "{e}");
    }
}
