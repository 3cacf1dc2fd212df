//! Kernel specs at the points of a grid: the kernel parameters a grid writes into `--kernel`, and
//! the names a grid keeps for the model's parameters. Shared by the learner's flags (their one
//! translation into parameters) and the cross-validation flags (their grid's checks); public
//! through [`crate::cv_flags`].

use crate::CliError;
use kern_core::KernelSpec;
use kern_tune::grid::ParamPoint;

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
    let width = WIDTHS;
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

/// The width parameters of a Gaussian spec (exactly one is given).
pub(crate) const WIDTHS: [&str; 4] = ["sigma", "beta", "gamma", "std"];

/// `spec` with LIBSVM's default width filled in for `d` features: a Gaussian (`gaussian`, `rbf`)
/// without a width gets `gamma=1/d`, and every parameter whose value is written `1/d` gets `1/d`
/// (`poly:scale=1/d`); with the value `1/d` in the second place when the spec asked for it. `d`
/// unknown (`None`, before the data is read): a placeholder 1, to check the rest of the spec.
///
/// ```
/// use kern_cli::cv_flags::with_features;
/// assert_eq!(with_features("rbf", Some(4))?, ("rbf:gamma=0.25".to_string(), Some(0.25)));
/// assert_eq!(with_features("poly:degree=2,scale=1/d", Some(2))?.0, "poly:degree=2,scale=0.5");
/// assert_eq!(with_features("gaussian:sigma=2", Some(4))?, ("gaussian:sigma=2".to_string(), None));
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub fn with_features(spec: &str, d: Option<usize>) -> Result<(String, Option<f64>), CliError> {
    let gamma = 1.0 / d.unwrap_or(1).max(1) as f64;
    let compound = spec.contains(['+', '*', '(']);
    let (name, params) = spec.split_once(':').unwrap_or((spec, ""));
    let keys: Vec<&str> =
        params.split(',').filter_map(|kv| kv.split_once('=').map(|(k, _)| k.trim())).collect();
    let gaussian = ["gaussian", "rbf"].contains(&name.trim());
    let mut s = spec.to_string();
    let mut defaulted = false;
    if !compound && gaussian && !keys.iter().any(|k| WIDTHS.contains(k)) {
        s = set_kernel_param(&s, "gamma", gamma)?;
        defaulted = true;
    }
    if s.contains("=1/d") {
        s = s.replace("=1/d", &format!("={gamma}"));
        defaulted = true;
    }
    Ok((s, defaulted.then_some(gamma)))
}

/// Grid names that are model parameters rather than kernel parameters (`nu` only under a ν type,
/// where a kernel's `nu` is written `k.nu`).
const MODEL_PARAMS: [&str; 6] = ["c", "lambda", "gam", "epsilon", "max_fv", "min_fitness"];

/// Whether grid name `name` is a model parameter (`nu_model`: the model is a ν type).
pub(crate) fn is_model_param(name: &str, nu_model: bool) -> bool {
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
