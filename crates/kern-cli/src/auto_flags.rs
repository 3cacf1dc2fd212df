//! Automatic values of the learner flags: `--auto`, `--kernel gaussian:sigma=auto`, `--c auto`,
//! `--nu auto`, `--lambda auto`, chosen on the training data by `kern train` in one place
//! ([`LearnerFlags::choose_auto`]), each reported with its method and time.
//!
//! The kernel's width and radius come first (kern-tune's [`AutoKernel`]: Letchford's bandwidths and
//! the CS-RBF support radius, no labels needed except for `ahn`), then `C` or `ν` at that kernel by
//! 5-fold cross-validation (kern-models' `choose_c` / `choose_nu`), and `λ` of the ridge models by the
//! exact leave-one-out the models already run over their default grid (the landmark models: the same
//! grid and rule on the centres' `m × m` system, `NystromRidgeParams::choose_lambda`). Commands other than
//! `kern train` refuse automatic values: their choice is part of training.

use crate::CliError;
use crate::any_params::AnyParams;
use crate::grid_kernel::is_precomputed;
use crate::kinds::{ModelKind, targets};
use crate::learner_flags::{LearnerFlags, RidgeFit, Setting};
use kern_core::io::Dataset;
use kern_models::landmark::LandmarkLambdaChoice;
use kern_models::ridge::width::{WIDTH_FACTORS, WidthChoice};
use kern_models::svm::{AutoChoice, AutoSearch};
use kern_models::weights::SampleWeights;
use kern_tune::auto::{AutoKernel, WIDTH_KEYS};
use kern_tune::grid::ParamPoint;
use serde_json::{Value, json};

impl LearnerFlags {
    /// The kernel spec with any automatic value replaced by 1, for checking the flags before the data
    /// are read; the spec itself when it has none.
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let cli = Cli::try_parse_from(["train", "--model", "svc", "--kernel", "gaussian:gamma=auto"])?;
    /// assert_eq!(cli.learner.kernel_text().unwrap(), "gaussian:gamma=1");
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn kernel_text(&self) -> Result<String, CliError> {
        if is_precomputed(&self.kernel) || self.is_railway() {
            return Ok(self.kernel.clone());
        }
        let kernel = self.auto_kernel();
        Ok(match AutoKernel::parse(&kernel)? {
            Some(a) => a.placeholder(),
            None => kernel,
        })
    }

    /// Whether any value is automatic (`--auto`, an automatic kernel value, or `auto` as a number).
    ///
    /// ```
    /// # use clap::Parser;
    /// # #[derive(Parser)] struct Cli { #[command(flatten)] learner: kern_cli::learner_flags::LearnerFlags }
    /// let cli = Cli::try_parse_from(["train", "--model", "svc", "--c", "auto"])?;
    /// assert!(cli.learner.has_auto());
    /// # Ok::<(), clap::Error>(())
    /// ```
    pub fn has_auto(&self) -> bool {
        self.auto
            || [self.c, self.nu, self.lambda].contains(&Some(Setting::Auto))
            || (!is_precomputed(&self.kernel)
                && !self.is_railway()
                && !matches!(AutoKernel::parse(&self.kernel), Ok(None)))
    }

    /// The refusal of automatic values by a command that does not train (`kern cv`).
    pub fn refuse_auto(&self, command: &str) -> Result<(), CliError> {
        if self.has_auto() {
            return Err(format!(
                "{command} does not choose automatic values (--auto, auto in --kernel, --c, --nu or \
                 --lambda): kern train chooses them on its training data and reports them; give {command} \
                 numbers, or a grid"
            )
            .into());
        }
        Ok(())
    }

    /// The kernel spec with `--auto` written out: a Gaussian without a width gets `sigma=auto`, a
    /// cs-gaussian without a width or radius `sigma=auto` and `c=auto`; other specs as given.
    fn auto_kernel(&self) -> String {
        if !self.auto {
            return self.kernel.clone();
        }
        let k = self.kernel.trim().to_ascii_lowercase();
        let (name, rest) = k.split_once(':').unwrap_or((k.as_str(), ""));
        let has = |key: &str| rest.split(',').any(|p| p.split('=').next() == Some(key));
        let width = WIDTH_KEYS.iter().any(|w| has(w));
        match name {
            "gaussian" | "rbf" if !width => "gaussian:sigma=auto".into(),
            "cs-gaussian" | "cs-rbf" => {
                let mut keys: Vec<String> =
                    rest.split(',').filter(|p| !p.is_empty()).map(String::from).collect();
                if !width {
                    keys.insert(0, "sigma=auto".into());
                }
                if !has("c") {
                    keys.push("c=auto".into());
                }
                format!("cs-gaussian:{}", keys.join(","))
            }
            _ => self.kernel.clone(),
        }
    }

    /// `--auto` written out for model `m`: `auto` for every value of the model and kernel not given.
    fn expand_auto(&mut self, m: ModelKind) {
        if !self.auto {
            return;
        }
        self.kernel = self.auto_kernel();
        match m {
            ModelKind::Svc | ModelKind::Svr if self.c.is_none() && self.lambda.is_none() => {
                self.c = Some(Setting::Auto)
            }
            ModelKind::NuSvc | ModelKind::NuSvr if self.nu.is_none() => self.nu = Some(Setting::Auto),
            ModelKind::Lssvm | ModelKind::Krr | ModelKind::LandmarkLssvm | ModelKind::LandmarkKrr
                if self.lambda.is_none() && self.gam.is_none() =>
            {
                self.lambda = Some(Setting::Auto)
            }
            _ => {}
        }
    }

    /// Chooses every automatic value of model `m` on the training data `ds` (its samples as the model
    /// will see them, scaled if scaling is asked for) and writes the chosen numbers into the flags, so
    /// that the next translation ([`LearnerFlags::params`]) gives the model to train. Returns the
    /// report: one entry per chosen value, in order (`[]` when nothing is automatic).
    ///
    /// With sample weights `w` (`kern train --weights`), the cross-validated searches train every fold
    /// with its rows' weights and score it unweighted; `--nu auto` also leaves out the values the
    /// weighted fit cannot take (ν above the classes' weight totals' bound).
    pub fn choose_auto(
        &mut self,
        m: ModelKind,
        ds: &Dataset,
        w: Option<&SampleWeights>,
        seed: u64,
    ) -> Result<Vec<Value>, CliError> {
        self.expand_auto(m);
        let mut report = Vec::new();
        let mut widen = false;
        if !is_precomputed(&self.kernel)
            && !self.is_railway()
            && let Some(auto) = AutoKernel::parse(&self.kernel)?
        {
            let classes = matches!(m, ModelKind::Svc | ModelKind::NuSvc | ModelKind::Lssvm | ModelKind::Kfa)
                && !self.regression;
            let labels = if auto.needs_labels() {
                if !classes {
                    return Err(format!(
                        "the ahn width needs class labels (Ahn's criterion separates classes), and --model {} \
                         learns none here: use auto, max-variance or median",
                        m.name()
                    )
                    .into());
                }
                Some(ds.classes()?)
            } else {
                None
            };
            widen = auto.gaussian_width_auto();
            let r = auto.resolve(&ds.samples, labels.as_ref().map(|l| l.classes()), seed)?;
            self.kernel = r.kernel.to_string();
            report.extend(resolved_json(&r));
        }
        let search = AutoSearch { seed, ..Default::default() };
        if self.c == Some(Setting::Auto) {
            if is_precomputed(&self.kernel) {
                return Err("--c auto needs sample coordinates; with a precomputed kernel, search c with \
                            kern cv --grid"
                    .into());
            }
            self.c = None;
            let ch = match self.params(m, &ParamPoint::from_pairs(&[]), seed)? {
                AnyParams::Svc(p) => p.choose_c_weighted(&ds.samples, &ds.classes()?, w, &search)?,
                AnyParams::Svr(p) => p.choose_c_weighted(&ds.samples, &ds.real()?, w, &search)?,
                _ => return Err(format!("--c auto applies to svc and svr, not --model {}", m.name()).into()),
            };
            self.c = Some(Setting::Value(ch.value));
            report.push(cv_json(&ch, &cv_method("5-fold cross-validation along the C path", w)));
        }
        if self.nu == Some(Setting::Auto) {
            self.nu = None;
            let ch = match self.params(m, &ParamPoint::from_pairs(&[]), seed)? {
                AnyParams::NuSvc(p) => p.choose_nu_weighted(&ds.samples, &ds.classes()?, w, &search)?,
                AnyParams::NuSvr(p) => p.choose_nu_weighted(&ds.samples, &ds.real()?, w, &search)?,
                _ => {
                    return Err(format!(
                        "--nu auto applies to nu-svc and nu-svr (cross-validated against their labels), \
                         not --model {}",
                        m.name()
                    )
                    .into());
                }
            };
            self.nu = Some(Setting::Value(ch.value));
            report.push(cv_json(&ch, &cv_method("5-fold cross-validation", w)));
        }
        if self.lambda == Some(Setting::Auto) {
            match m {
                ModelKind::Lssvm | ModelKind::Krr | ModelKind::LandmarkLssvm | ModelKind::LandmarkKrr => {
                    // The exact model of the same kind: its width search, and the targets it fits.
                    let exact = match m {
                        ModelKind::LandmarkLssvm => ModelKind::Lssvm,
                        ModelKind::LandmarkKrr => ModelKind::Krr,
                        m => m,
                    };
                    let y = match exact {
                        ModelKind::Krr => kern_core::Targets::Real(ds.real()?),
                        _ => targets(ds, self.regression)?,
                    };
                    self.lambda = None;
                    // The λ entry of the exact models: selected by leave-one-out on all the samples
                    // (filled in from the trained model's summary), unless a width search on a
                    // subsample chose it with the width.
                    let mut lambda_entry =
                        json!({"parameter": "lambda", "method": "exact leave-one-out over the default grid"});
                    if widen {
                        // The exact models take the search's model at the chosen width: its own fit when
                        // it ran on all the samples, else the fit on all of them at its width and λ.
                        let keep = exact == m;
                        let n = ds.samples.n();
                        let ch = match self.params(exact, &ParamPoint::from_pairs(&[]), seed)? {
                            AnyParams::LsSvm(p) if keep => {
                                let (ch, (m, seconds)) = p.choose_width_with_fit(&ds.samples, &y, seed)?;
                                self.ridge_fit = Some(RidgeFit::LsSvm(Box::new(m), seconds));
                                ch
                            }
                            AnyParams::Krr(p) if keep => {
                                let (ch, (m, seconds)) = p.choose_width_with_fit(&ds.samples, &y, seed)?;
                                self.ridge_fit = Some(RidgeFit::Krr(Box::new(m), seconds));
                                ch
                            }
                            AnyParams::LsSvm(p) => p.choose_width(&ds.samples, &y, seed)?,
                            AnyParams::Krr(p) => p.choose_width(&ds.samples, &y, seed)?,
                            _ => unreachable!("lssvm and krr translate to their own parameters"),
                        };
                        self.kernel = ch.kernel.to_string();
                        let mut r = width_json(&ch);
                        if keep && ch.searched_all(n) {
                            // Reported: the model saved is the search's fit, not trained again.
                            r["model"] = json!("the search's fit at the chosen width, not trained again");
                        } else if keep {
                            r["model"] = json!(format!(
                                "trained on all {n} samples at the chosen width and the search's lambda"
                            ));
                            lambda_entry = json!({
                                "parameter": "lambda",
                                "method": "exact leave-one-out together with the width",
                                "detail": format!("over the default grid, on the width search's {} of the samples", ch.points),
                                "value": ch.lambda(),
                            });
                        }
                        report.push(r);
                    }
                    if exact == m {
                        report.push(lambda_entry);
                    } else {
                        self.lambda = Some(Setting::Auto);
                        let AnyParams::Landmark(p) = self.params(m, &ParamPoint::from_pairs(&[]), seed)?
                        else {
                            unreachable!("the landmark models translate to their own parameters")
                        };
                        let ch = p.choose_lambda(&ds.samples, &y, None)?;
                        self.lambda = Some(Setting::Value(ch.lambda));
                        report.push(landmark_lambda_json(&ch, ds.samples.n()));
                        self.landmark_choice = Some(Box::new(ch));
                    }
                }
                _ => {
                    return Err(format!(
                        "--lambda auto applies to lssvm and krr (exact leave-one-out), not --model {}",
                        m.name()
                    )
                    .into());
                }
            }
        }
        Ok(report)
    }
}

/// The report of a kernel's automatic values ([`kern_tune::auto::AutoKernel::resolve`]), one entry
/// per value, as `kern train`'s summary gives it under `"auto"` (and `kern-mpi train`'s).
///
/// ```
/// use kern_core::Samples;
/// use kern_tune::auto::AutoKernel;
/// let x = Samples::from_flat((0..40).map(|i| (i as f64).sin()).collect(), 20, 2)?;
/// let r = AutoKernel::parse("gaussian:sigma=auto")?.unwrap().resolve(&x, None, 0)?;
/// let report = kern_cli::resolved_json(&r);
/// assert_eq!((report.len(), report[0]["method"].as_str()), (1, Some("mean-to-half")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn resolved_json(r: &kern_tune::auto::Resolved) -> Vec<Value> {
    r.choices
        .iter()
        .map(|c| {
            json!({
                "parameter": c.parameter, "method": c.method,
                "value": if c.value.is_finite() { json!(c.value) } else { json!("inf") },
                "detail": c.detail, "seconds": c.seconds,
            })
        })
        .collect()
}

/// The report of a width chosen with λ by leave-one-out: the width in the spec's own key.
///
/// ```
/// use kern_core::{RealTargets, Samples, Targets};
/// use kern_models::krr::KernelRidgeParams;
/// let x = Samples::from_flat((0..30).map(|i| i as f64 / 10.0).collect(), 30, 1)?;
/// let y = Targets::Real(RealTargets::new((0..30).map(|i| (i as f64 / 10.0).sin()).collect())?);
/// let ch = KernelRidgeParams::new("gaussian:sigma=0.2".parse()?).choose_width(&x, &y, 0)?;
/// let r = kern_cli::width_json(&ch);
/// assert_eq!((r["parameter"].as_str(), r["curve"].as_array().map(Vec::len)), (Some("sigma"), Some(5)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn width_json(ch: &WidthChoice) -> Value {
    let (key, value) = match &ch.kernel {
        kern_core::KernelSpec::Gaussian(g) => g.param().key_value(),
        _ => unreachable!("the width search returns a gaussian"),
    };
    json!({
        "parameter": key, "method": "mean-to-half widened by leave-one-out", "value": value,
        "detail": format!(
            "factor {} of {} (each with its best lambda) over {} of the samples",
            ch.factor,
            WIDTH_FACTORS.map(|f| f.to_string()).join(", "),
            ch.points
        ),
        "curve": ch.curve.iter().map(|c| json!([c.factor, c.lambda, c.error])).collect::<Vec<_>>(),
        "seconds": ch.seconds,
    })
}

/// The search's method as reported: with sample weights, how they enter.
fn cv_method(method: &str, w: Option<&SampleWeights>) -> String {
    match w {
        Some(_) => format!("{method}, each fold trained with its samples' weights and scored unweighted"),
        None => method.to_string(),
    }
}

/// The report of λ chosen for a landmark model by leave-one-out on its centres (`n` samples), as
/// `kern train`'s summary gives it under `"auto"`, and `kern-mpi train --lambda auto`'s; a note on
/// stderr when λ values ranked better could not be fitted.
/// The curve holds `[λ, error, mean squared residual]` (error: the error rate for classes, the mean
/// squared residual for values); `skipped` the better λ values whose fit failed, `[λ, reason]`.
///
/// ```
/// use kern_core::{RealTargets, Samples, Targets};
/// use kern_models::landmark::{Landmarks, NystromRidgeParams};
/// let x = Samples::from_flat((0..40).map(|i| i as f64 / 10.0).collect(), 40, 1)?;
/// let y = Targets::Real(RealTargets::new((0..40).map(|i| (i as f64 / 10.0).sin()).collect())?);
/// let p = NystromRidgeParams::krr("gaussian:sigma=1".parse()?, 1.0, Landmarks::Random { m: 6 });
/// let ch = p.choose_lambda(&x, &y, None)?;
/// let r = kern_cli::landmark_lambda_json(&ch, 40);
/// assert_eq!(r["value"], ch.lambda);
/// assert_eq!(r["curve"].as_array().unwrap().len(), ch.selection.grid.len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn landmark_lambda_json(ch: &LandmarkLambdaChoice, n: usize) -> Value {
    let s = &ch.selection;
    if let Some(first) = ch.skipped.first() {
        let values: Vec<String> = ch.skipped.iter().map(|k| format!("{:e}", k.lambda)).collect();
        eprintln!(
            "kern: note: lambda {} ranked better by leave-one-out but could not be fitted ({}); chose {:e}",
            values.join(", "),
            first.reason,
            ch.lambda
        );
    }
    json!({
        "parameter": "lambda", "method": "exact leave-one-out on the m × m system", "value": ch.lambda,
        "detail": format!(
            "{} values from {:e} to {:e}, {} centres, all {n} samples",
            s.grid.len(),
            s.grid.first().copied().unwrap_or(f64::NAN),
            s.grid.last().copied().unwrap_or(f64::NAN),
            ch.centres.len(),
        ),
        "curve": s.grid.iter().zip(&s.error).zip(&s.mse).map(|((l, e), m)| json!([l, e, m])).collect::<Vec<_>>(),
        "skipped": ch.skipped.iter().map(|k| json!([k.lambda, k.reason])).collect::<Vec<_>>(),
        "seconds": ch.seconds,
    })
}

fn cv_json(ch: &AutoChoice, method: &str) -> Value {
    json!({
        "parameter": ch.parameter, "method": method, "value": ch.value,
        "detail": format!("{} over {} of the samples, {} folds", ch.scoring, ch.points, ch.folds),
        "curve": ch.curve, "failed": ch.failed, "seconds": ch.seconds,
    })
}
