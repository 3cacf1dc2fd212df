//! Kernel parameters chosen on the training data, without cross-validation: a kernel spec whose width
//! or support radius is a method's name instead of a number (`gaussian:sigma=auto`,
//! `cs-gaussian:sigma=max-variance,c=auto`), resolved into an ordinary [`KernelSpec`].
//!
//! | value | of | chooses |
//! |---|---|---|
//! | `auto`, `mean-to-half` | `sigma`, `beta`, `gamma`, `std` of `gaussian`, `cs-gaussian` | β with mean similarity 1/2 (Letchford, "mean-to-half") |
//! | `max-variance` | same | β maximising the variance of the similarities (Letchford) |
//! | `ahn` | same | Ahn's class separation (needs class labels) |
//! | `median` | same | `β = 1/median(‖xᵢ − xⱼ‖²)` |
//! | `scale` | same | scikit-learn's `gamma='scale'`, `β = 1/(d · Var(X))` |
//! | `auto`, `sparse-TAU` | `c` of `cs-gaussian` | the most aligned support radius with sparsity `S(C) ≥ TAU` (CS-RBF eq. 10; `auto` = `sparse-0.5`) |
//! | `align-MU` | same | the sparsest support radius with alignment `A(C) ≥ MU` (CS-RBF eq. 9) |
//!
//! **Why mean-to-half is `auto`.** It needs no labels (so it serves regression and one-class too), its
//! criterion is monotone in β so its root is unique, and Letchford finds it as accurate as maximum
//! variance over his data sets at a fraction of the cost.
//!
//! **Why `c=auto` is `sparse-0.5`.** Of the three procedures of CS-RBF §3.3, eq. 10 (a sparsity
//! floor τ) is the one that always sparsifies: with τ = 1/2, `C` is the median pair distance and half
//! of the Gram matrix is zero. The paper's Example 2 (Table 3) finds the LS-SVM with τ = 0.5 as
//! accurate as the Gaussian kernel ("even better", 21.5 %) at a fraction of the cost. Eq. 9 (an
//! alignment floor μ) bounds the information lost instead, but with a width chosen from the data it
//! often keeps `C = ∞`, the Gaussian itself: mean-to-half widths are wide relative to the pair
//! distances, and no finite radius keeps 99 % of the alignment (measured on the heart, banana and magic
//! sets; `align-MU` remains available). Eq. 8 needs a weight γ that has no data-free default.
//!
//! **ν.** A `cs-gaussian` with an automatic radius and no `nu` gets the smallest integer
//! `ν ≥ max(3, (d + 1)/2)`: the taper `((1 − r/C)₊)^ν` is positive definite on `R^d` only from
//! `(d + 1)/2` on (CS-RBF §2, eq. 2), and 3 is the paper's value.
//!
//! The width is chosen first, then the radius for that width. Pairs: all pairs up to 5,000 points,
//! beyond that all pairs of a seeded subsample of 5,000 points (the seed is the caller's). Distances
//! are those of the samples as given, so scale the features first if their units differ.
//!
//! ```
//! use kern_core::{Kernel, Samples};
//! use kern_tune::auto::AutoKernel;
//! let x = Samples::from_flat((0..400).map(|i| ((i * 7919) % 101) as f64 / 25.0).collect(), 200, 2)?;
//! let auto = AutoKernel::parse("gaussian:sigma=auto")?.expect("an automatic spec");
//! let r = auto.resolve(&x, None, 0)?;
//! assert!(r.kernel.to_string().starts_with("gaussian:sigma="));
//! assert_eq!(r.choices[0].method, "mean-to-half");
//! assert!(AutoKernel::parse("gaussian:sigma=0.5")?.is_none());    // nothing to choose
//! # Ok::<(), kern_tune::TuneError>(())
//! ```

use crate::bandwidth::{BandwidthOptions, Method, select_bandwidth};
use crate::error::{Result, TuneError};
use crate::pairs::{PairSampling, subsample_points};
use crate::support::{Diagonal, Procedure, Search, SupportOptions, SupportProfile, default_c_grid};
use kern_core::{GaussianParam, KernelSpec, Samples};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Points whose pairs the criteria use; larger data sets use a seeded subsample of this size.
pub(crate) const MAX_POINTS: usize = 5000;

/// The words that name a width method.
const WIDTH_WORDS: [&str; 6] = ["auto", "mean-to-half", "max-variance", "ahn", "median", "scale"];

/// The keys that hold a Gaussian's width.
///
/// ```
/// assert!(kern_tune::auto::WIDTH_KEYS.contains(&"gamma"));
/// ```
pub const WIDTH_KEYS: [&str; 4] = ["sigma", "beta", "gamma", "std"];

/// How the support radius `c` of a compactly supported kernel is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Radius {
    /// The sparsest radius with alignment `A(C) ≥ mu` (CS-RBF eq. 9).
    Align(f64),
    /// The most aligned radius with sparsity `S(C) ≥ tau` (CS-RBF eq. 10).
    Sparse(f64),
}

impl Radius {
    fn procedure(self) -> Procedure {
        match self {
            Radius::Align(mu) => Procedure::MinAlignment { mu },
            Radius::Sparse(tau) => Procedure::MinSparsity { tau },
        }
    }

    fn name(self) -> String {
        match self {
            Radius::Align(mu) => format!("align-{mu}"),
            Radius::Sparse(tau) => format!("sparse-{tau}"),
        }
    }

    fn parse(v: &str) -> Option<Result<Radius>> {
        let level = |s: &str, what: &str| -> Result<f64> {
            match s.parse::<f64>() {
                Ok(l) if (0.0..=1.0).contains(&l) => Ok(l),
                _ => Err(TuneError::Undefined(format!("c={v}: {what} must be a number in [0, 1]"))),
            }
        };
        Some(match v {
            "auto" => Ok(Radius::Sparse(0.5)),
            _ => match (v.strip_prefix("align-"), v.strip_prefix("sparse-")) {
                (Some(mu), _) => level(mu, "the alignment floor").map(Radius::Align),
                (_, Some(tau)) => level(tau, "the sparsity floor").map(Radius::Sparse),
                _ => return None,
            },
        })
    }
}

/// A kernel spec with automatic values, parsed by [`AutoKernel::parse`].
///
/// ```
/// use kern_core::Samples;
/// use kern_tune::auto::AutoKernel;
/// use kern_tune::bandwidth::mean_similarity;
/// // Three points with squared distances 1, 9 and 4: the chosen σ puts their mean similarity
/// // exp(−p/σ²) at 1/2 (mean-to-half).
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?;
/// let auto = AutoKernel::parse("gaussian:sigma=auto")?.expect("an automatic value");
/// let sigma = auto.resolve(&x, None, 0)?.choices[0].value;
/// assert!(sigma > 0.0);
/// assert!((mean_similarity(&[1.0, 9.0, 4.0], 1.0 / (sigma * sigma)) - 0.5).abs() < 1e-12);
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct AutoKernel {
    /// `gaussian` or `cs-gaussian` (as written, lower case).
    name: String,
    /// The other `key=value` pairs, in order, with the width and radius keys marked.
    params: Vec<(String, String)>,
    /// The width key and its method, when automatic.
    width: Option<(String, Method)>,
    /// The radius method, when automatic.
    radius: Option<Radius>,
    /// Whether the width was written `auto` (rather than naming its method).
    width_auto: bool,
}

/// One value chosen by [`AutoKernel::resolve`].
///
/// ```
/// use kern_core::Samples;
/// use kern_tune::auto::AutoKernel;
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.0]])?;
/// let auto = AutoKernel::parse("cs-gaussian:sigma=auto,c=auto")?.expect("automatic values");
/// let r = auto.resolve(&x, None, 1)?;
/// // The width first, then the support radius for that width.
/// let how: Vec<(&str, &str)> = r.choices.iter().map(|c| (c.parameter.as_str(), c.method.as_str())).collect();
/// assert_eq!(how, [("sigma", "mean-to-half"), ("c", "sparse-0.5")]);
/// assert!(r.choices.iter().all(|c| c.value > 0.0 && c.seconds >= 0.0));
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// The spec's key (`sigma`, `gamma`, `c`, …).
    pub parameter: String,
    /// The method (`mean-to-half`, `align-0.99`, …).
    pub method: String,
    /// The value chosen (∞ for a radius when the full Gaussian is best).
    pub value: f64,
    /// What the criterion gave, in words (the pairs used, the criterion's value).
    pub detail: String,
    /// Wall time of the choice.
    pub seconds: f64,
}

/// The resolved kernel and how each of its automatic values was chosen.
///
/// ```
/// use kern_core::{KernelSpec, Samples};
/// use kern_tune::auto::AutoKernel;
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?;
/// let auto = AutoKernel::parse("gaussian:sigma=max-variance")?.expect("an automatic value");
/// let r = auto.resolve(&x, None, 0)?;
/// // The resolved spec is an ordinary kernel spec: it parses back to itself, with nothing left to choose.
/// let text = r.kernel.to_string();
/// assert_eq!(text.parse::<KernelSpec>()?, r.kernel);
/// assert!(AutoKernel::parse(&text)?.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    /// The kernel with every automatic value replaced by the chosen number.
    pub kernel: KernelSpec,
    /// The choices, in the spec's order (width before radius).
    pub choices: Vec<Choice>,
}

impl AutoKernel {
    /// Parses `spec`: `Ok(None)` when it holds no automatic value (parse it as a [`KernelSpec`]), an
    /// error when an automatic value is misplaced (another kernel, a sum or product, an unknown word).
    ///
    /// ```
    /// use kern_tune::auto::AutoKernel;
    /// assert!(AutoKernel::parse("cs-gaussian:sigma=ahn,c=align-0.95,nu=3")?.is_some());
    /// assert!(AutoKernel::parse("laplacian:sigma=auto").is_err());
    /// assert!(AutoKernel::parse("gaussian:sigma=auto + linear").is_err());
    /// assert!(AutoKernel::parse("gaussian:sigma=best")?.is_none()); // the kernel parser refuses it
    /// # Ok::<(), kern_tune::TuneError>(())
    /// ```
    pub fn parse(spec: &str) -> Result<Option<AutoKernel>> {
        let s: String = spec.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
        let (name, rest) = s.split_once(':').unwrap_or((s.as_str(), ""));
        let pairs: Vec<(String, String)> = rest
            .split(',')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (k.to_string(), v.to_string())
            })
            .collect();
        let is_auto_word = |v: &str| WIDTH_WORDS.contains(&v) || Radius::parse(v).is_some();
        let any_auto = s
            .split([',', ':', '+', '*', '(', ')'])
            .any(|t| t.split_once('=').is_some_and(|(_, v)| is_auto_word(v)));
        if !any_auto {
            return Ok(None);
        }
        let name = match name {
            "gaussian" | "rbf" => "gaussian",
            "cs-gaussian" | "cs-rbf" => "cs-gaussian",
            _ if s.contains(['+', '*', '(']) => {
                return Err(TuneError::Undefined(format!(
                    "{spec}: automatic values are for a single gaussian or cs-gaussian kernel, not a sum or product"
                )));
            }
            other => {
                return Err(TuneError::Undefined(format!(
                    "{spec}: automatic values are for gaussian and cs-gaussian kernels, not {other}"
                )));
            }
        };
        if rest.contains(['+', '*', '(', ')']) {
            return Err(TuneError::Undefined(format!(
                "{spec}: automatic values are for a single gaussian or cs-gaussian kernel, not a sum or product"
            )));
        }
        let mut out = AutoKernel {
            name: name.to_string(),
            params: Vec::new(),
            width: None,
            radius: None,
            width_auto: false,
        };
        for (k, v) in pairs {
            if WIDTH_KEYS.contains(&k.as_str()) && WIDTH_WORDS.contains(&v.as_str()) {
                out.width_auto = v == "auto";
                let method = if out.width_auto { Method::MeanToHalf } else { v.parse()? };
                out.width = Some((k.clone(), method));
            } else if k == "c" && name == "cs-gaussian" {
                match Radius::parse(&v) {
                    Some(r) => out.radius = Some(r?),
                    None if v.parse::<f64>().is_ok() => {}
                    None => {
                        return Err(TuneError::Undefined(format!(
                            "{spec}: c={v} is neither a number nor auto, align-MU or sparse-TAU"
                        )));
                    }
                }
            } else if is_auto_word(&v) {
                return Err(TuneError::Undefined(format!(
                    "{spec}: {k}={v}: automatic values are for the width (sigma, beta, gamma, std) of \
                     gaussian and cs-gaussian, and the support radius c of cs-gaussian"
                )));
            }
            out.params.push((k, v));
        }
        Ok(Some(out))
    }

    /// Whether the width is automatic and its method is Ahn's (which needs class labels).
    pub fn needs_labels(&self) -> bool {
        matches!(self.width, Some((_, Method::Ahn)))
    }

    /// Whether the width of a plain Gaussian was written `auto`, leaving its method to kern: a
    /// model that can score widths exactly (the ridge family's leave-one-out) then widens the
    /// mean-to-half width; `sigma=mean-to-half` names that width and keeps it.
    ///
    /// ```
    /// use kern_tune::auto::AutoKernel;
    /// assert!(AutoKernel::parse("gaussian:sigma=auto")?.unwrap().gaussian_width_auto());
    /// assert!(!AutoKernel::parse("gaussian:sigma=mean-to-half")?.unwrap().gaussian_width_auto());
    /// assert!(!AutoKernel::parse("cs-gaussian:sigma=auto,c=2")?.unwrap().gaussian_width_auto());
    /// # Ok::<(), kern_tune::TuneError>(())
    /// ```
    pub fn gaussian_width_auto(&self) -> bool {
        self.width_auto && self.name == "gaussian"
    }

    /// The spec with every automatic value replaced by 1, to check the other keys before the data are
    /// read.
    ///
    /// ```
    /// let a = kern_tune::auto::AutoKernel::parse("cs-gaussian:sigma=auto,c=auto,nu=4")?.unwrap();
    /// assert_eq!(a.placeholder(), "cs-gaussian:sigma=1,c=1,nu=4");
    /// # Ok::<(), kern_tune::TuneError>(())
    /// ```
    pub fn placeholder(&self) -> String {
        self.with(1.0, 1.0)
    }

    /// The spec string with the automatic width set to the precision `beta` (written in the key's own
    /// unit) and an automatic radius set to `c`.
    fn with(&self, beta: f64, c: f64) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(k, v)| match (&self.width, k.as_str()) {
                (Some((wk, _)), _) if wk == k => format!("{k}={}", width_value(k, beta)),
                (_, "c") if self.radius.is_some() => format!("c={c}"),
                _ if v.is_empty() => k.clone(),
                _ => format!("{k}={v}"),
            })
            .collect();
        if params.is_empty() { self.name.clone() } else { format!("{}:{}", self.name, params.join(",")) }
    }

    /// The points of `n` samples whose pairs [`AutoKernel::resolve`] reads with `seed`: `None` for
    /// all of them (at most 5,000), else the seeded subsample's indices. `resolve` on those rows
    /// alone (`x.select`, with their labels) chooses the same values, bit for bit: how rows held in
    /// parts (kern-dist) are resolved by gathering only these.
    ///
    /// ```
    /// use kern_core::Samples;
    /// use kern_tune::auto::AutoKernel;
    /// let x = Samples::from_flat((0..12_000).map(|i| (i as f64 * 0.37).sin()).collect(), 6_000, 2)?;
    /// let a = AutoKernel::parse("gaussian:sigma=auto")?.unwrap();
    /// let idx = AutoKernel::resolution_points(x.n(), 4).unwrap();
    /// assert_eq!(idx.len(), 5_000);
    /// let whole = a.resolve(&x, None, 4)?;
    /// let part = a.resolve(&x.select(&idx)?, None, 4)?;
    /// assert_eq!(whole.kernel, part.kernel);
    /// assert_eq!(AutoKernel::resolution_points(5_000, 4), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resolution_points(n: usize, seed: u64) -> Option<Vec<usize>> {
        subsample_points(n, PairSampling::Auto { max_points: MAX_POINTS, seed })
    }

    /// Chooses every automatic value on `x` (class index per sample in `labels`, required by `ahn`) and
    /// returns the kernel. `seed` draws the subsample of large data sets.
    pub fn resolve(&self, x: &Samples, labels: Option<&[usize]>, seed: u64) -> Result<Resolved> {
        let mut choices = Vec::new();
        let sampling = PairSampling::Auto { max_points: MAX_POINTS, seed };
        let beta = match &self.width {
            Some((key, method)) => {
                if *method == Method::Ahn && labels.is_none() {
                    return Err(TuneError::Undefined(format!(
                        "{key}=ahn needs class labels (Ahn's criterion separates classes): use auto, \
                         max-variance or median for regression and one-class models"
                    )));
                }
                let t = Instant::now();
                let opts = BandwidthOptions { sampling, ..Default::default() };
                let b = select_bandwidth(x, labels, *method, &opts)?;
                choices.push(Choice {
                    parameter: key.clone(),
                    method: method.name().to_string(),
                    value: width_value(key, b.beta),
                    detail: format!("criterion {} over {} pairs ({})", b.criterion, b.pairs, b.sampling),
                    seconds: t.elapsed().as_secs_f64(),
                });
                b.beta
            }
            None => 1.0,
        };
        let Some(radius) = self.radius else {
            return Ok(Resolved { kernel: parse(&self.with(beta, 1.0))?, choices });
        };
        let t = Instant::now();
        let base = parse(&gaussian_part(&self.with(beta, 1.0)))?;
        let mut this = self.clone();
        let nu = match self.params.iter().find(|(k, _)| k == "nu") {
            Some((_, v)) => {
                v.parse::<f64>().map_err(|_| TuneError::Undefined(format!("nu={v} is not a number")))?
            }
            None => {
                let nu = ((x.d() as f64 + 1.0) / 2.0).ceil().max(3.0);
                this.params.push(("nu".into(), format!("{nu}")));
                nu
            }
        };
        let sampling = match sampling {
            PairSampling::Auto { max_points, seed } if x.n() > max_points => {
                PairSampling::Subsample { m: max_points, seed }
            }
            _ => PairSampling::All,
        };
        let opts = SupportOptions { nu, diagonal: Diagonal::Exclude, sampling };
        // Every distinct pair distance for integer ν (the exact optimum); else the paper's grid in
        // units of the width.
        let search = if nu.fract() == 0.0 {
            Search::Exact
        } else {
            let sigma = 1.0 / beta.sqrt();
            Search::Grid(default_c_grid().into_iter().map(|c| c * sigma).collect())
        };
        let ch = SupportProfile::new(&base, x, &opts)?.select(radius.procedure(), &search)?;
        choices.push(Choice {
            parameter: "c".into(),
            method: radius.name(),
            value: ch.c,
            detail: format!(
                "alignment {:.4}, sparsity {:.4} over {} pairs ({})",
                ch.alignment, ch.sparsity, ch.pairs, ch.sampling
            ),
            seconds: t.elapsed().as_secs_f64(),
        });
        let kernel = if ch.c.is_finite() { parse(&this.with(beta, ch.c))? } else { base };
        Ok(Resolved { kernel, choices })
    }
}

/// The value of the width key `key` for the precision β of `exp(−β r²)`.
fn width_value(key: &str, beta: f64) -> f64 {
    GaussianParam::of_beta(key, beta).map_or(beta, |p| p.key_value().1)
}

/// The Gaussian of a `cs-gaussian:…` spec (its width keys only).
fn gaussian_part(spec: &str) -> String {
    let (_, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let keep: Vec<&str> =
        rest.split(',').filter(|p| p.split_once('=').is_some_and(|(k, _)| WIDTH_KEYS.contains(&k))).collect();
    format!("gaussian:{}", keep.join(","))
}

fn parse(spec: &str) -> Result<KernelSpec> {
    Ok(spec.parse::<KernelSpec>()?)
}
