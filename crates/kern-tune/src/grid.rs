//! Grid search with cross-validation over named parameters, generic over any learner.
//!
//! A [`ParamGrid`] is a list of named axes ([`ParamAxis`]: linear, log2, log10 or explicit values); its
//! cartesian product gives the [`ParamPoint`]s. [`grid_search`] builds a learner from every point with a
//! user closure, cross-validates it on the same folds (in parallel over grid cells × folds on the current
//! rayon pool), and reports every cell's mean and spread, the best point, and optionally a model refitted
//! on all the data. Results are collected in grid order, so they are identical for a seed whatever the
//! number of threads (given a deterministic learner).
//!
//! # Grid syntax (`ParamGrid::from_str`, the `--grid` option of the command line)
//!
//! Comma-separated axes `NAME=RANGE`; the product is taken in the order given, the last axis varying
//! fastest. `NAME` is any identifier (`c`, `sigma`, `gamma`, `epsilon`, `lambda`, `beta`, `nu`, ...).
//!
//! | `RANGE` | values |
//! |---|---|
//! | `2^A..2^B:N` | `N` powers of two with exponents evenly spaced from `A` to `B` (log2 spacing) |
//! | `10^A..10^B:N` | `N` powers of ten, exponents evenly spaced from `A` to `B` (log10 spacing) |
//! | `LO..HI:N` | `N` evenly spaced values from `LO` to `HI` inclusive (linear spacing) |
//! | `[V1,V2,...]` | exactly these values |
//! | `V` | the single value `V` (also `2^A`, `10^A`) |
//!
//! `N = 1` gives the lower end. Example: `c=2^-5..2^15:11,sigma=0.1..10:5` is the 11 values
//! `2^-5, 2^-3, ..., 2^15` of `c` times 5 linearly spaced `sigma` values `0.1, 2.575, ..., 10` (55 cells);
//! `gamma=10^-3..10^3:7` is `0.001, 0.01, ..., 1000`.
//!
//! ```
//! use kern_tune::grid::{ParamGrid, Spacing};
//! let g: ParamGrid = "c=2^-5..2^15:11,sigma=0.1..10:5".parse()?;
//! assert_eq!(g.len(), 55);
//! assert_eq!(g.axes()[0].spacing, Spacing::Log2);
//! let p = &g.points()[1];
//! assert_eq!((p["c"], p["sigma"]), (2f64.powi(-5), 2.575));
//! assert_eq!(p.to_string(), "c=0.03125,sigma=2.575");
//! # Ok::<(), kern_tune::TuneError>(())
//! ```

use crate::cv::{CvConfig, CvTargets, fit_and_score, strata_for, summarize};
use crate::error::{BoxError, Result, TuneError};
use kern_core::Samples;
use kern_core::learner::Fit;
use rayon::prelude::*;
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;
use std::sync::Arc;

/// How an axis' values are spaced.
///
/// ```
/// use kern_tune::grid::{ParamAxis, ParamGrid, Spacing};
/// let g: ParamGrid = "c=2^-1..2^1:3,sigma=[0.5,2]".parse()?;
/// assert_eq!((g.axes()[0].spacing, g.axes()[0].values.clone()), (Spacing::Log2, vec![0.5, 1.0, 2.0]));
/// assert_eq!(g.axes()[1].spacing, Spacing::Values);
/// assert_eq!(ParamAxis::linear("eps", 0.0, 1.0, 3)?.values, [0.0, 0.5, 1.0]);
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Spacing {
    /// Evenly spaced values.
    Linear,
    /// Powers of two with evenly spaced exponents.
    Log2,
    /// Powers of ten with evenly spaced exponents.
    Log10,
    /// An explicit list.
    Values,
}

/// One named parameter and its values.
///
/// ```
/// use kern_tune::grid::ParamAxis;
/// let a = ParamAxis::log10("gamma", -2.0, 0.0, 3)?;
/// assert_eq!(a.values.len(), 3);
/// assert!((a.values[1] - 0.1).abs() < 1e-16 && a.values[2] == 1.0);
/// assert!(ParamAxis::values("c", vec![]).is_err()); // an axis needs a value
/// assert!(ParamAxis::values("2c", vec![1.0]).is_err()); // names start with a letter
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamAxis {
    /// Parameter name.
    pub name: String,
    /// The values, in grid order.
    pub values: Vec<f64>,
    /// How they were generated.
    pub spacing: Spacing,
}

/// The most points one axis may have: far more than a grid search evaluates (every point is a fit
/// per cell of the other axes), small enough that a mistyped count cannot make a parse allocate much.
///
/// ```
/// assert!(kern_tune::grid::ParamAxis::linear("c", 0.0, 1.0, kern_tune::grid::MAX_AXIS_POINTS + 1).is_err());
/// ```
pub const MAX_AXIS_POINTS: usize = 10_000;

/// The most cells a [`ParamGrid`] may have (every cell is materialized by [`ParamGrid::points`]); the
/// `kern` command's `--max-cells` guard is far lower by default.
///
/// ```
/// let g: Result<kern_tune::grid::ParamGrid, _> = "a=0..1:10000,b=0..1:10000".parse();
/// assert!(g.is_err()); // 10^8 cells
/// ```
pub const MAX_GRID_CELLS: usize = 10_000_000;

fn even(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    match n {
        0 => Vec::new(),
        1 => vec![lo],
        _ => {
            (0..n).map(|i| if i == n - 1 { hi } else { lo + (hi - lo) * i as f64 / (n - 1) as f64 }).collect()
        }
    }
}

impl ParamAxis {
    /// `n ≥ 1` evenly spaced values from `lo` to `hi` inclusive.
    pub fn linear(name: impl Into<String>, lo: f64, hi: f64, n: usize) -> Result<Self> {
        let name = name.into();
        check_count(&name, n)?;
        Self::checked(name, even(lo, hi, n), Spacing::Linear)
    }

    /// `2^e` for `n ≥ 1` exponents `e` evenly spaced from `lo_exp` to `hi_exp` inclusive.
    ///
    /// ```
    /// let a = kern_tune::grid::ParamAxis::log2("c", -1.0, 3.0, 3)?;
    /// assert_eq!(a.values, vec![0.5, 2.0, 8.0]);
    /// # Ok::<(), kern_tune::TuneError>(())
    /// ```
    pub fn log2(name: impl Into<String>, lo_exp: f64, hi_exp: f64, n: usize) -> Result<Self> {
        let name = name.into();
        check_count(&name, n)?;
        let v = even(lo_exp, hi_exp, n).into_iter().map(f64::exp2).collect();
        Self::checked(name, v, Spacing::Log2)
    }

    /// `10^e` for `n ≥ 1` exponents `e` evenly spaced from `lo_exp` to `hi_exp` inclusive.
    pub fn log10(name: impl Into<String>, lo_exp: f64, hi_exp: f64, n: usize) -> Result<Self> {
        let name = name.into();
        check_count(&name, n)?;
        let v = even(lo_exp, hi_exp, n).into_iter().map(|e| 10f64.powf(e)).collect();
        Self::checked(name, v, Spacing::Log10)
    }

    /// Exactly these values (at least one).
    pub fn values(name: impl Into<String>, values: Vec<f64>) -> Result<Self> {
        Self::checked(name.into(), values, Spacing::Values)
    }

    fn checked(name: String, values: Vec<f64>, spacing: Spacing) -> Result<Self> {
        let bad = |reason: String| TuneError::GridSpec { spec: name.clone(), reason };
        if !valid_name(&name) {
            return Err(bad(
                "a parameter name is a letter or '_' followed by letters, digits, '_', '-' or '.'".into(),
            ));
        }
        if values.is_empty() {
            return Err(bad("an axis needs at least one value".into()));
        }
        if values.len() > MAX_AXIS_POINTS {
            return Err(bad(format!("{} values; an axis has at most {MAX_AXIS_POINTS}", values.len())));
        }
        if let Some(v) = values.iter().find(|v| !v.is_finite()) {
            return Err(bad(format!("non-finite value {v}")));
        }
        Ok(ParamAxis { name, values, spacing })
    }
}

fn check_count(name: &str, n: usize) -> Result<()> {
    if n > MAX_AXIS_POINTS {
        return Err(TuneError::GridSpec {
            spec: name.to_string(),
            reason: format!("point count {n} exceeds the maximum of {MAX_AXIS_POINTS} per axis"),
        });
    }
    Ok(())
}

fn valid_name(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-' | '.'))
}

/// A grid of named parameters: the cartesian product of its axes.
///
/// ```
/// use kern_tune::grid::ParamGrid;
/// let g: ParamGrid = "c=[1,10],sigma=[0.5,2]".parse()?;
/// assert_eq!(g.len(), 4);
/// // The last axis varies fastest.
/// let points: Vec<String> = g.points().iter().map(|p| p.to_string()).collect();
/// assert_eq!(points, ["c=1,sigma=0.5", "c=1,sigma=2", "c=10,sigma=0.5", "c=10,sigma=2"]);
/// assert!("c=[1,2],c=[3]".parse::<ParamGrid>().is_err()); // a name twice
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamGrid {
    axes: Vec<ParamAxis>,
}

impl ParamGrid {
    /// A grid from axes with distinct names (at least one axis).
    ///
    /// ```
    /// use kern_tune::grid::{ParamAxis, ParamGrid};
    /// let g = ParamGrid::new(vec![ParamAxis::log10("c", -3.0, 3.0, 7)?, ParamAxis::values("gamma", vec![0.5, 1.0])?])?;
    /// assert_eq!(g.len(), 14);
    /// assert_eq!(g.points()[13]["c"], 1000.0);
    /// # Ok::<(), kern_tune::TuneError>(())
    /// ```
    pub fn new(axes: Vec<ParamAxis>) -> Result<Self> {
        if axes.is_empty() {
            return Err(TuneError::GridSpec {
                spec: String::new(),
                reason: "a grid needs at least one axis".into(),
            });
        }
        for (i, a) in axes.iter().enumerate() {
            if axes[..i].iter().any(|b| b.name == a.name) {
                return Err(TuneError::GridSpec {
                    spec: a.name.clone(),
                    reason: "parameter given twice".into(),
                });
            }
        }
        let cells = axes.iter().try_fold(1usize, |acc, a| acc.checked_mul(a.values.len()));
        match cells {
            Some(c) if c <= MAX_GRID_CELLS => Ok(ParamGrid { axes }),
            _ => Err(TuneError::GridSpec {
                spec: axes
                    .iter()
                    .map(|a| format!("{}:{}", a.name, a.values.len()))
                    .collect::<Vec<_>>()
                    .join(","),
                reason: format!(
                    "the grid has {} cells, more than the maximum of {MAX_GRID_CELLS}; use fewer points per axis",
                    cells.map_or_else(|| "too many (overflow)".to_string(), |c| c.to_string())
                ),
            }),
        }
    }

    /// The axes, in order.
    pub fn axes(&self) -> &[ParamAxis] {
        &self.axes
    }

    /// Number of grid points (product of the axis lengths, at most [`MAX_GRID_CELLS`]).
    pub fn len(&self) -> usize {
        self.axes.iter().map(|a| a.values.len()).product()
    }

    /// Always false: a grid has at least one point.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Parameter names, in axis order.
    pub fn names(&self) -> Vec<&str> {
        self.axes.iter().map(|a| a.name.as_str()).collect()
    }

    /// Every grid point; the last axis varies fastest.
    pub fn points(&self) -> Vec<ParamPoint> {
        let names: Arc<[String]> = self.axes.iter().map(|a| a.name.clone()).collect();
        let total = self.len();
        (0..total)
            .map(|mut flat| {
                let mut values = vec![0.0; self.axes.len()];
                for (k, a) in self.axes.iter().enumerate().rev() {
                    values[k] = a.values[flat % a.values.len()];
                    flat /= a.values.len();
                }
                ParamPoint { names: names.clone(), values }
            })
            .collect()
    }
}

impl std::str::FromStr for ParamGrid {
    type Err = TuneError;
    fn from_str(spec: &str) -> Result<Self> {
        let err = |reason: String| TuneError::GridSpec { spec: spec.to_string(), reason };
        let mut axes = Vec::new();
        for item in split_top_level(spec) {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let (name, range) =
                item.split_once('=').ok_or_else(|| err(format!("{item:?} is not NAME=RANGE")))?;
            let axis =
                parse_axis(name.trim(), range.trim()).map_err(|reason| err(format!("{item:?}: {reason}")))?;
            axes.push(axis);
        }
        if axes.is_empty() {
            return Err(err("empty grid; expected e.g. c=2^-5..2^15:11,sigma=0.1..10:5".into()));
        }
        ParamGrid::new(axes).map_err(|e| match e {
            TuneError::GridSpec { reason, .. } => err(reason),
            other => other,
        })
    }
}

impl fmt::Display for ParamGrid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, a) in self.axes.iter().enumerate() {
            if i > 0 {
                write!(f, ",")?;
            }
            write!(f, "{}=", a.name)?;
            let (lo, hi, n) = (a.values[0], a.values[a.values.len() - 1], a.values.len());
            match a.spacing {
                Spacing::Log2 if n > 1 => write!(f, "2^{}..2^{}:{n}", lo.log2(), hi.log2())?,
                Spacing::Log10 if n > 1 => write!(f, "10^{}..10^{}:{n}", lo.log10(), hi.log10())?,
                Spacing::Linear if n > 1 => write!(f, "{lo}..{hi}:{n}")?,
                _ if n == 1 => write!(f, "{lo}")?,
                _ => {
                    let v: Vec<String> = a.values.iter().map(|v| v.to_string()).collect();
                    write!(f, "[{}]", v.join(","))?
                }
            }
        }
        Ok(())
    }
}

/// Splits on commas outside square brackets.
fn split_top_level(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// A number, `2^E` or `10^E`: `(value-or-exponent, base)` where base is 0 for a plain number.
fn parse_term(t: &str) -> std::result::Result<(f64, u32), String> {
    let t = t.trim();
    let num = |s: &str| s.trim().parse::<f64>().map_err(|_| format!("{s:?} is not a number"));
    if let Some(e) = t.strip_prefix("2^") {
        Ok((num(e)?, 2))
    } else if let Some(e) = t.strip_prefix("10^") {
        Ok((num(e)?, 10))
    } else {
        Ok((num(t)?, 0))
    }
}

fn value_of((v, base): (f64, u32)) -> f64 {
    match base {
        2 => v.exp2(),
        10 => 10f64.powf(v),
        _ => v,
    }
}

fn parse_axis(name: &str, range: &str) -> std::result::Result<ParamAxis, String> {
    let msg = |e: TuneError| match e {
        TuneError::GridSpec { reason, .. } => reason,
        other => other.to_string(),
    };
    if let Some(list) = range.strip_prefix('[') {
        let list = list.strip_suffix(']').ok_or("unclosed '['")?;
        let vals = list
            .split(',')
            .map(|t| parse_term(t).map(value_of))
            .collect::<std::result::Result<Vec<f64>, String>>()?;
        return ParamAxis::values(name, vals).map_err(msg);
    }
    let Some((ends, count)) = range.rsplit_once(':') else {
        if range.contains("..") {
            return Err("a range needs a point count, e.g. 0.1..10:5".into());
        }
        return ParamAxis::values(name, vec![value_of(parse_term(range)?)]).map_err(msg);
    };
    let n: usize = count
        .trim()
        .parse()
        .map_err(|_| format!("point count {count:?} is not an integer from 1 to {MAX_AXIS_POINTS}"))?;
    if n == 0 {
        return Err("point count must be at least 1".into());
    }
    if n > MAX_AXIS_POINTS {
        return Err(format!("point count {n} exceeds the maximum of {MAX_AXIS_POINTS} per axis"));
    }
    let (lo, hi) = ends.split_once("..").ok_or("expected LO..HI:N")?;
    let (lo, hi) = (parse_term(lo)?, parse_term(hi)?);
    match (lo.1, hi.1) {
        (2, 2) => ParamAxis::log2(name, lo.0, hi.0, n).map_err(msg),
        (10, 10) => ParamAxis::log10(name, lo.0, hi.0, n).map_err(msg),
        (0, 0) => ParamAxis::linear(name, lo.0, hi.0, n).map_err(msg),
        _ => Err("both ends must use the same form: 2^A..2^B, 10^A..10^B or LO..HI".into()),
    }
}

/// One grid point: a value for every named parameter. Index it by name (`p["c"]`, panics when absent)
/// or use [`ParamPoint::get`] / [`ParamPoint::require`].
///
/// ```
/// use kern_tune::grid::ParamGrid;
/// let g: ParamGrid = "c=[1,10],sigma=[0.5,2]".parse()?;
/// let p = &g.points()[2];
/// assert_eq!((p["c"], p["sigma"]), (10.0, 0.5));
/// assert_eq!(p.iter().collect::<Vec<_>>(), [("c", 10.0), ("sigma", 0.5)]);
/// assert!(p.require("nu").is_err());
/// # Ok::<(), kern_tune::TuneError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ParamPoint {
    names: Arc<[String]>,
    values: Vec<f64>,
}

impl ParamPoint {
    /// A point from `(name, value)` pairs.
    ///
    /// ```
    /// let p = kern_tune::grid::ParamPoint::from_pairs(&[("c", 1.0), ("gamma", 0.5)]);
    /// assert_eq!(p.get("gamma"), Some(0.5));
    /// assert_eq!(p.get("nu"), None);
    /// ```
    pub fn from_pairs(pairs: &[(&str, f64)]) -> Self {
        ParamPoint {
            names: pairs.iter().map(|p| p.0.to_string()).collect(),
            values: pairs.iter().map(|p| p.1).collect(),
        }
    }

    /// The value of `name`, if the grid has it.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.names.iter().position(|n| n == name).map(|i| self.values[i])
    }

    /// The value of `name`, or an error naming the missing parameter (for use in builder closures).
    pub fn require(&self, name: &str) -> Result<f64> {
        self.get(name).ok_or_else(|| TuneError::GridSpec {
            spec: self.to_string(),
            reason: format!("the learner needs parameter {name:?}, the grid does not have it"),
        })
    }

    /// `(name, value)` pairs in axis order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> {
        self.names.iter().map(String::as_str).zip(self.values.iter().copied())
    }

    /// Parameter names in axis order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Values in axis order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }
}

impl std::ops::Index<&str> for ParamPoint {
    type Output = f64;
    fn index(&self, name: &str) -> &f64 {
        match self.names.iter().position(|n| n == name) {
            Some(i) => &self.values[i],
            None => panic!("grid point {self} has no parameter {name:?}"),
        }
    }
}

impl fmt::Display for ParamPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (n, v)) in self.iter().enumerate() {
            if i > 0 {
                write!(f, ",")?;
            }
            write!(f, "{n}={v}")?;
        }
        Ok(())
    }
}

impl Serialize for ParamPoint {
    /// A JSON object `{name: value, ...}` in axis order.
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.values.len()))?;
        for (n, v) in self.iter() {
            m.serialize_entry(n, &v)?;
        }
        m.end()
    }
}

static PROGRESS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Turns the progress line of [`grid_search`] on or off (off by default). When on and stderr is a
/// terminal, the search rewrites one line `grid search: K/N fits` on stderr at most twice a second.
///
/// ```
/// kern_tune::grid::report_progress(false);
/// ```
pub fn report_progress(on: bool) {
    PROGRESS.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// A function told `(finished fits, total fits)` after every fit of a [`grid_search`].
///
/// (The example runs in its own process: the observer is process-wide.)
///
/// ```standalone_crate
/// use kern_core::{RealTargets, Samples};
/// use kern_tune::cv::Fold;
/// use kern_tune::grid::{GridSearchConfig, ParamPoint, PathPredictions, ProgressObserver};
/// use kern_tune::grid::{grid_search_along, observe_progress};
/// use std::sync::{Arc, Mutex};
/// let x = Samples::from_flat((0..10).map(f64::from).collect(), 10, 1)?;
/// let y = RealTargets::new(vec![1.0; 10])?;
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let s = seen.clone();
/// let observer: ProgressObserver = Arc::new(move |done, total| s.lock().unwrap().push((done, total)));
/// observe_progress(Some(observer));
/// // 3 grid cells × 5 folds = 15 fits.
/// let fit = |_: &(), pts: &[ParamPoint], f: &Fold| -> PathPredictions {
///     Ok(pts.iter().map(|p| vec![p["c"]; f.test.len()]).collect())
/// };
/// let prepare = |_: &[ParamPoint]| Ok(());
/// let r = grid_search_along(&"c=[0,1,2]".parse()?, "c", &x, &y, &GridSearchConfig::default(), prepare, fit);
/// observe_progress(None);
/// assert_eq!(r?.best_params()["c"], 1.0);
/// assert!(seen.lock().unwrap().contains(&(15, 15)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type ProgressObserver = std::sync::Arc<dyn Fn(usize, usize) + Send + Sync>;

static OBSERVER: std::sync::RwLock<Option<ProgressObserver>> = std::sync::RwLock::new(None);

/// Installs (or with `None` removes) a function called with `(finished, total)` after each fit of every
/// later [`grid_search`], from the worker threads, so that a program can draw its own progress bar
/// (the `kern` command draws one with indicatif). It is called whether or not [`report_progress`] is on.
///
/// ```
/// use std::sync::{Arc, atomic::{AtomicUsize, Ordering}};
/// let seen = Arc::new(AtomicUsize::new(0));
/// let s = seen.clone();
/// kern_tune::grid::observe_progress(Some(Arc::new(move |done, _total| {
///     s.fetch_max(done, Ordering::Relaxed);
/// })));
/// kern_tune::grid::observe_progress(None);
/// ```
pub fn observe_progress(f: Option<ProgressObserver>) {
    *OBSERVER.write().unwrap_or_else(|e| e.into_inner()) = f;
}

/// Counts finished fits and redraws the progress line (when enabled and stderr is a terminal).
struct Progress {
    observer: Option<ProgressObserver>,
    on: bool,
    total: usize,
    done: std::sync::atomic::AtomicUsize,
    start: std::time::Instant,
    last_ms: std::sync::atomic::AtomicU64,
}

impl Progress {
    fn new(total: usize) -> Self {
        use std::io::IsTerminal;
        let on = PROGRESS.load(std::sync::atomic::Ordering::Relaxed) && std::io::stderr().is_terminal();
        let observer = OBSERVER.read().unwrap_or_else(|e| e.into_inner()).clone();
        Progress {
            observer,
            on,
            total,
            done: Default::default(),
            start: std::time::Instant::now(),
            last_ms: Default::default(),
        }
    }

    fn tick(&self) {
        use std::sync::atomic::Ordering::Relaxed;
        if !self.on && self.observer.is_none() {
            return;
        }
        let k = self.done.fetch_add(1, Relaxed) + 1;
        if let Some(f) = &self.observer {
            f(k, self.total);
        }
        if !self.on {
            return;
        }
        let ms = self.start.elapsed().as_millis() as u64;
        let last = self.last_ms.load(Relaxed);
        if (ms >= last + 500 || k == self.total)
            && self.last_ms.compare_exchange(last, ms, Relaxed, Relaxed).is_ok()
        {
            let eta = if k > 0 { ms as f64 / k as f64 * (self.total - k) as f64 / 1000.0 } else { 0.0 };
            eprint!(
                "\rgrid search: {k}/{} fits, {:.0} s elapsed, ~{eta:.0} s left   ",
                self.total,
                ms as f64 / 1000.0
            );
            if k == self.total {
                eprintln!();
            }
        }
    }
}

/// Options of [`grid_search`].
///
/// ```
/// # use kern_core::{CoreError, RealTargets, Samples, learner::{Fit, Model}};
/// # /// Predicts the constant `c`.
/// # struct Constant(f64);
/// # struct ConstantModel(f64);
/// # impl Model for ConstantModel {
/// #     type Error = CoreError;
/// #     fn predict(&self, x: &Samples) -> Result<Vec<f64>, CoreError> { Ok(vec![self.0; x.n()]) }
/// # }
/// # impl Fit<RealTargets> for Constant {
/// #     type Model = ConstantModel;
/// #     type Error = CoreError;
/// #     fn fit(&self, _: &Samples, _: &RealTargets) -> Result<ConstantModel, CoreError> { Ok(ConstantModel(self.0)) }
/// # }
/// use kern_tune::cv::CvConfig;
/// use kern_tune::grid::{GridSearchConfig, ParamPoint, grid_search};
/// let x = Samples::from_flat((0..12).map(f64::from).collect(), 12, 1)?;
/// let y = RealTargets::new(vec![1.0; 12])?;
/// let cfg = GridSearchConfig { cv: CvConfig::k_fold(3, 0), refit: false };
/// let build = |p: &ParamPoint| Ok::<_, CoreError>(Constant(p["c"]));
/// let r = grid_search(&"c=[0,1,3]".parse()?, build, &x, &y, &cfg)?;
/// assert_eq!((r.n_folds, r.best_params()["c"]), (3, 1.0));
/// assert!(r.model.is_none()); // no refit asked for
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct GridSearchConfig {
    /// The cross-validation run in every cell (the same folds for every cell).
    pub cv: CvConfig,
    /// Refit the best cell's learner on all the data and return the model.
    pub refit: bool,
}

impl Default for GridSearchConfig {
    fn default() -> Self {
        GridSearchConfig { cv: CvConfig::default(), refit: true }
    }
}

/// The result of one grid cell.
///
/// ```
/// # use kern_core::{CoreError, RealTargets, Samples, learner::{Fit, Model}};
/// # /// Predicts the constant `c`.
/// # struct Constant(f64);
/// # struct ConstantModel(f64);
/// # impl Model for ConstantModel {
/// #     type Error = CoreError;
/// #     fn predict(&self, x: &Samples) -> Result<Vec<f64>, CoreError> { Ok(vec![self.0; x.n()]) }
/// # }
/// # impl Fit<RealTargets> for Constant {
/// #     type Model = ConstantModel;
/// #     type Error = CoreError;
/// #     fn fit(&self, _: &Samples, _: &RealTargets) -> Result<ConstantModel, CoreError> { Ok(ConstantModel(self.0)) }
/// # }
/// use kern_tune::grid::{GridSearchConfig, ParamPoint, grid_search};
/// let x = Samples::from_flat((0..10).map(f64::from).collect(), 10, 1)?;
/// let y = RealTargets::new(vec![2.0; 10])?;
/// // A builder that refuses negative c: that cell fails, the others are scored.
/// let build = |p: &ParamPoint| if p["c"] < 0.0 { Err("c must be >= 0") } else { Ok(Constant(p["c"])) };
/// let r = grid_search(&"c=[-1,2]".parse()?, build, &x, &y, &GridSearchConfig::default())?;
/// assert!(r.cells[0].error.is_some() && r.cells[0].mean.is_nan());
/// assert_eq!(r.cells[1].fold_scores, [0.0; 5]); // exact predictions: negative MSE 0 on every fold
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellResult {
    /// The grid point.
    pub params: ParamPoint,
    /// Score of every fold, in fold order (empty when the cell failed).
    pub fold_scores: Vec<f64>,
    /// Mean fold score (NaN when the cell failed).
    pub mean: f64,
    /// Standard deviation of the fold scores (ddof = 0).
    pub std: f64,
    /// Lowest fold score.
    pub min: f64,
    /// Highest fold score.
    pub max: f64,
    /// Why the cell failed (learner could not be built or trained), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Every cell's scores, the best point and (with `refit`) the model trained on all the data with it.
///
/// ```
/// # use kern_core::{CoreError, RealTargets, Samples, learner::{Fit, Model}};
/// # /// Predicts the constant `c`.
/// # struct Constant(f64);
/// # struct ConstantModel(f64);
/// # impl Model for ConstantModel {
/// #     type Error = CoreError;
/// #     fn predict(&self, x: &Samples) -> Result<Vec<f64>, CoreError> { Ok(vec![self.0; x.n()]) }
/// # }
/// # impl Fit<RealTargets> for Constant {
/// #     type Model = ConstantModel;
/// #     type Error = CoreError;
/// #     fn fit(&self, _: &Samples, _: &RealTargets) -> Result<ConstantModel, CoreError> { Ok(ConstantModel(self.0)) }
/// # }
/// use kern_tune::grid::{GridSearchConfig, ParamPoint, grid_search};
/// let x = Samples::from_flat((0..10).map(f64::from).collect(), 10, 1)?;
/// let y = RealTargets::new(vec![1.0; 10])?;
/// let build = |p: &ParamPoint| Ok::<_, CoreError>(Constant(p["c"]));
/// let r = grid_search(&"c=0..2:5".parse()?, build, &x, &y, &GridSearchConfig::default())?;
/// assert_eq!(r.cells.len(), 5);
/// let top = r.cells.iter().map(|c| c.mean).fold(f64::NEG_INFINITY, f64::max);
/// assert_eq!((r.best_score(), r.best_cell().params["c"]), (top, 1.0));
/// assert_eq!(r.model.map(|m| m.0), Some(1.0)); // refitted with the best c
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Serialize)]
pub struct GridSearchReport<M> {
    /// The scoring rule's name.
    pub scoring: String,
    /// The validation scheme, e.g. `kfold:5`.
    pub validation: String,
    /// Whether the folds were stratified.
    pub stratified: bool,
    /// Seed of the folds.
    pub seed: u64,
    /// Number of folds per cell.
    pub n_folds: usize,
    /// Every cell, in grid order.
    pub cells: Vec<CellResult>,
    /// Index of the best cell: highest mean score, the first in grid order on ties.
    pub best: usize,
    /// The best cell's learner refitted on all the data (when requested).
    #[serde(skip)]
    pub model: Option<M>,
}

impl<M> GridSearchReport<M> {
    /// The best cell.
    pub fn best_cell(&self) -> &CellResult {
        &self.cells[self.best]
    }
    /// The best grid point.
    pub fn best_params(&self) -> &ParamPoint {
        &self.cells[self.best].params
    }
    /// The best mean score.
    pub fn best_score(&self) -> f64 {
        self.cells[self.best].mean
    }
}

/// Grid search with cross-validation.
///
/// For every point of `grid`, `build` makes a learner `P: Fit<T>` (its error, e.g. an invalid
/// parameter, marks the cell failed); the learner is cross-validated on folds shared by all cells, in
/// parallel over (cell, fold) pairs. A cell whose learner fails on any fold is reported with its error
/// and never chosen; if every cell fails the search fails. With `cfg.refit` the best learner is refitted
/// on all of `x`, `y`.
///
/// The closure's error type is any error (`E: Into<BoxError>`); when it only ever returns `Ok`, name the
/// type, e.g. `Ok::<_, kern_tune::TuneError>(params)`.
///
/// ```
/// use kern_core::{learner::{Fit, Model}, CoreError, RealTargets, Samples};
/// use kern_tune::grid::{grid_search, GridSearchConfig, ParamPoint};
/// /// Predicts a constant `c` (the grid parameter).
/// struct Constant(f64);
/// struct ConstantModel(f64);
/// impl Model for ConstantModel {
///     type Error = CoreError;
///     fn predict(&self, x: &Samples) -> Result<Vec<f64>, CoreError> { Ok(vec![self.0; x.n()]) }
/// }
/// impl Fit<RealTargets> for Constant {
///     type Model = ConstantModel;
///     type Error = CoreError;
///     fn fit(&self, _: &Samples, _: &RealTargets) -> Result<ConstantModel, CoreError> { Ok(ConstantModel(self.0)) }
/// }
/// let x = Samples::from_flat((0..30).map(f64::from).collect(), 30, 1)?;
/// let y = RealTargets::new(vec![2.0; 30])?;
/// let grid = "c=0..4:9".parse()?;
/// let r = grid_search(&grid, |p: &ParamPoint| Ok::<_, CoreError>(Constant(p["c"])), &x, &y,
///                     &GridSearchConfig::default())?;
/// assert_eq!(r.best_params()["c"], 2.0);
/// assert_eq!(r.best_score(), 0.0);           // negative MSE
/// assert_eq!(r.model.unwrap().0, 2.0);       // refitted
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn grid_search<T, P, E, F>(
    grid: &ParamGrid,
    build: F,
    x: &Samples,
    y: &T,
    cfg: &GridSearchConfig,
) -> Result<GridSearchReport<P::Model>>
where
    T: CvTargets,
    P: Fit<T>,
    E: Into<BoxError>,
    F: Fn(&ParamPoint) -> std::result::Result<P, E> + Sync,
{
    grid_search_with(grid, build, x, y, cfg, &LocalFits)
}

/// Runs the fits of a grid search: task `t` of `n` is one (cell, fold) pair, and `fit(t)` fits and
/// scores it (its error as text). Every implementation returns the `n` results in task order, so the
/// report does not depend on where the fits ran. [`LocalFits`] runs them on the current rayon pool; a
/// distributed runner (kern-dist) runs a share on each process and exchanges the results.
///
/// ```
/// use kern_tune::grid::{FitRunner, LocalFits};
/// let r = LocalFits.run(3, &|t| if t == 1 { Err("bad".into()) } else { Ok(t as f64) });
/// assert_eq!(r, vec![Ok(0.0), Err("bad".to_string()), Ok(2.0)]);
/// ```
pub trait FitRunner {
    /// The results of `fit(0..n)`, in task order.
    fn run(
        &self,
        n: usize,
        fit: &(dyn Fn(usize) -> std::result::Result<f64, String> + Sync),
    ) -> Vec<std::result::Result<f64, String>>;
}

/// Every fit in this process, in parallel on the current rayon pool.
///
/// ```
/// use kern_tune::grid::{FitRunner, LocalFits};
/// assert_eq!(LocalFits.run(2, &|t| Ok(t as f64 * 2.0)), vec![Ok(0.0), Ok(2.0)]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalFits;

impl FitRunner for LocalFits {
    fn run(
        &self,
        n: usize,
        fit: &(dyn Fn(usize) -> std::result::Result<f64, String> + Sync),
    ) -> Vec<std::result::Result<f64, String>> {
        (0..n).into_par_iter().map(fit).collect()
    }
}

/// [`grid_search`] with its (cell, fold) fits run by `runner` (task `t` is the `t`-th pair, cells in
/// grid order and folds in fold order within a cell; cells whose learner cannot be built have no
/// tasks). The report is the same whatever runner returns the same scores.
///
/// ```
/// use kern_core::{learner::{Fit, Model}, CoreError, RealTargets, Samples};
/// use kern_tune::grid::{grid_search, grid_search_with, GridSearchConfig, LocalFits, ParamPoint};
/// struct Constant(f64);
/// struct ConstantModel(f64);
/// impl Model for ConstantModel {
///     type Error = CoreError;
///     fn predict(&self, x: &Samples) -> Result<Vec<f64>, CoreError> { Ok(vec![self.0; x.n()]) }
/// }
/// impl Fit<RealTargets> for Constant {
///     type Model = ConstantModel;
///     type Error = CoreError;
///     fn fit(&self, _: &Samples, _: &RealTargets) -> Result<ConstantModel, CoreError> { Ok(ConstantModel(self.0)) }
/// }
/// let x = Samples::from_flat((0..30).map(f64::from).collect(), 30, 1)?;
/// let y = RealTargets::new(vec![2.0; 30])?;
/// let (grid, cfg) = ("c=0..4:9".parse()?, GridSearchConfig::default());
/// let build = |p: &ParamPoint| Ok::<_, CoreError>(Constant(p["c"]));
/// let a = grid_search_with(&grid, build, &x, &y, &cfg, &LocalFits)?;
/// assert_eq!(a.cells, grid_search(&grid, build, &x, &y, &cfg)?.cells);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn grid_search_with<T, P, E, F>(
    grid: &ParamGrid,
    build: F,
    x: &Samples,
    y: &T,
    cfg: &GridSearchConfig,
    runner: &dyn FitRunner,
) -> Result<GridSearchReport<P::Model>>
where
    T: CvTargets,
    P: Fit<T>,
    E: Into<BoxError>,
    F: Fn(&ParamPoint) -> std::result::Result<P, E> + Sync,
{
    crate::cv::check_len(x, y)?;
    let kind = y.kind();
    let scoring = cfg.cv.scoring.resolve(kind)?;
    let strata = strata_for(y, cfg.cv.stratify, &cfg.cv.validation)?;
    let folds = crate::cv::make_folds(y.n_targets(), strata.as_deref(), &cfg.cv.validation, cfg.cv.seed)?;
    let points = grid.points();
    // Build every learner first (cheap; the closure may fail for some points).
    let learners: Vec<std::result::Result<P, String>> = points
        .iter()
        .map(|p| {
            build(p).map_err(|e| TuneError::Build { point: p.to_string(), source: e.into() }.to_string())
        })
        .collect();
    let nf = folds.len();
    let tasks: Vec<(usize, usize)> = (0..points.len())
        .filter(|&c| learners[c].is_ok())
        .flat_map(|c| (0..nf).map(move |f| (c, f)))
        .collect();
    let progress = Progress::new(tasks.len());
    let scores = runner.run(tasks.len(), &|t| {
        let (c, f) = tasks[t];
        let learner = learners[c].as_ref().expect("filtered");
        let fold = &folds[f];
        let s = fit_and_score(learner, x, y, fold, &scoring, kind, || {
            format!("grid point {} repeat {} fold {}", points[c], fold.repeat, fold.index)
        });
        progress.tick();
        s.map_err(|e| e.to_string())
    });
    let mut per_cell: Vec<std::result::Result<Vec<f64>, String>> =
        learners.iter().map(|l| l.as_ref().map(|_| Vec::with_capacity(nf)).map_err(Clone::clone)).collect();
    for (&(c, _), s) in tasks.iter().zip(scores) {
        if let Ok(v) = &mut per_cell[c] {
            match s {
                Ok(s) => v.push(s),
                Err(e) => per_cell[c] = Err(e),
            }
        }
    }
    let (cells, best) = summarize_cells(points, per_cell)?;
    let model = if cfg.refit {
        let learner = learners[best].as_ref().expect("best cell was built");
        let m = learner.fit(x, y).map_err(|e| TuneError::Learner {
            context: format!("refitting {} on all data", cells[best].params),
            source: Box::new(e),
        })?;
        Some(m)
    } else {
        None
    };
    Ok(GridSearchReport {
        scoring: scoring.name_for(Some(kind)),
        validation: cfg.cv.validation.to_string(),
        stratified: strata.is_some(),
        seed: cfg.cv.seed,
        n_folds: nf,
        cells,
        best,
        model,
    })
}

/// Every cell's summary and the best cell (highest mean, first in grid order on ties); an error when
/// every cell failed.
fn summarize_cells(
    points: Vec<ParamPoint>,
    per_cell: Vec<std::result::Result<Vec<f64>, String>>,
) -> Result<(Vec<CellResult>, usize)> {
    let cells: Vec<CellResult> = points
        .into_iter()
        .zip(per_cell)
        .map(|(params, r)| match r {
            Ok(fold_scores) => {
                let (mean, std, min, max) = summarize(&fold_scores);
                CellResult { params, fold_scores, mean, std, min, max, error: None }
            }
            Err(e) => CellResult {
                params,
                fold_scores: Vec::new(),
                mean: f64::NAN,
                std: f64::NAN,
                min: f64::NAN,
                max: f64::NAN,
                error: Some(e),
            },
        })
        .collect();
    let mut best: Option<usize> = None;
    for (i, c) in cells.iter().enumerate() {
        if c.error.is_none() && !c.mean.is_nan() && best.is_none_or(|b| c.mean > cells[b].mean) {
            best = Some(i);
        }
    }
    let Some(best) = best else {
        let first = cells.iter().find_map(|c| c.error.clone()).unwrap_or_else(|| "all scores are NaN".into());
        return Err(TuneError::AllCellsFailed(first));
    };
    Ok((cells, best))
}

/// The cells of `grid` grouped into paths along `axis`: cells that agree on every other axis form one
/// path, ordered by ascending value of `axis` (grid order on ties); paths in grid order of their first
/// cell.
fn paths_along(grid: &ParamGrid, axis: &str) -> Result<Vec<Vec<usize>>> {
    let k = grid.axes().iter().position(|a| a.name == axis).ok_or_else(|| TuneError::GridSpec {
        spec: grid.to_string(),
        reason: format!("the grid has no axis {axis:?} to fit along"),
    })?;
    let points = grid.points();
    let mut paths: Vec<Vec<usize>> = Vec::new();
    let mut key_of: Vec<Vec<f64>> = Vec::new();
    for (c, p) in points.iter().enumerate() {
        let key: Vec<f64> = p.values().iter().enumerate().filter(|&(i, _)| i != k).map(|(_, &v)| v).collect();
        match key_of.iter().position(|q| q.iter().zip(&key).all(|(a, b)| a.to_bits() == b.to_bits())) {
            Some(i) => paths[i].push(c),
            None => {
                key_of.push(key);
                paths.push(vec![c]);
            }
        }
    }
    for path in &mut paths {
        path.sort_by(|&a, &b| points[a].values()[k].total_cmp(&points[b].values()[k]));
    }
    Ok(paths)
}

/// What [`grid_search_along`] asks of a learner for one path and one fold: the predictions on
/// `fold.test` of the learner of every point of the path (in the order of `points`) trained on
/// `fold.train`.
///
/// ```
/// use kern_core::{RealTargets, Samples};
/// use kern_tune::cv::Fold;
/// use kern_tune::grid::{GridSearchConfig, ParamPoint, PathPredictions, grid_search_along};
/// let x = Samples::from_flat((0..10).map(f64::from).collect(), 10, 1)?;
/// let y = RealTargets::new(vec![2.0; 10])?;
/// // Predict the constant c; the path with shift = 1 fails as a whole.
/// let fit = |_: &(), pts: &[ParamPoint], f: &Fold| -> PathPredictions {
///     if pts[0]["shift"] > 0.0 {
///         return Err("diverged".into());
///     }
///     Ok(pts.iter().map(|p| vec![p["c"]; f.test.len()]).collect())
/// };
/// let grid = "c=[1,2],shift=[0,1]".parse()?;
/// let prepare = |_: &[ParamPoint]| Ok(());
/// let r = grid_search_along(&grid, "c", &x, &y, &GridSearchConfig::default(), prepare, fit)?;
/// assert!(r.cells.iter().filter(|c| c.params["shift"] == 1.0).all(|c| c.error.is_some()));
/// assert_eq!(r.best_params()["c"], 2.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type PathPredictions = std::result::Result<Vec<Vec<f64>>, BoxError>;

/// Grid search with cross-validation where the cells that differ only in `axis` (a *path*, e.g. the
/// values of `C` for one kernel) are fitted together: `prepare(points)` makes state shared by every fold
/// of the path (e.g. the kernel matrix of all samples, whose training-fold matrices are submatrices),
/// and `fit(state, points, fold)` fits the path's points in ascending order of `axis` on the fold's
/// training part (e.g. each warm-started from the previous solution) and returns their predictions on
/// the test part. Folds, scoring and the report are those of [`grid_search`] (the same folds for the
/// same seed); `model` is always `None` (no refit). Paths run in parallel, and the folds of a path
/// too; results are collected in grid order, so they do not depend on the thread count. A failure of
/// `prepare` or `fit` marks every cell of the path failed.
///
/// ```
/// use kern_core::{RealTargets, Samples};
/// use kern_tune::cv::Fold;
/// use kern_tune::grid::{grid_search_along, GridSearchConfig, ParamPoint, PathPredictions};
/// let x = Samples::from_flat((0..30).map(f64::from).collect(), 30, 1)?;
/// let y = RealTargets::new(vec![2.0; 30])?;
/// let grid = "c=0..4:9,shift=[0,0.25]".parse()?; // c = 0, 0.5, …, 4: only c = 2, shift 0 predicts 2
/// // A "learner" predicting the constant c + shift; the shared state is the shift.
/// let prepare = |pts: &[ParamPoint]| Ok::<f64, kern_tune::BoxError>(pts[0]["shift"]);
/// let fit = |shift: &f64, pts: &[ParamPoint], f: &Fold| -> PathPredictions {
///     Ok(pts.iter().map(|p| vec![p["c"] + shift; f.test.len()]).collect())
/// };
/// let r = grid_search_along(&grid, "c", &x, &y, &GridSearchConfig::default(), prepare, fit)?;
/// assert_eq!(r.best_params()["c"], 2.0);
/// assert_eq!(r.best_params()["shift"], 0.0);
/// assert!(r.model.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn grid_search_along<T, S, P, F>(
    grid: &ParamGrid,
    axis: &str,
    x: &Samples,
    y: &T,
    cfg: &GridSearchConfig,
    prepare: P,
    fit: F,
) -> Result<GridSearchReport<()>>
where
    T: CvTargets,
    S: Send + Sync,
    P: Fn(&[ParamPoint]) -> std::result::Result<S, BoxError> + Sync,
    F: Fn(&S, &[ParamPoint], &crate::cv::Fold) -> PathPredictions + Sync,
{
    crate::cv::check_len(x, y)?;
    let kind = y.kind();
    let scoring = cfg.cv.scoring.resolve(kind)?;
    let strata = strata_for(y, cfg.cv.stratify, &cfg.cv.validation)?;
    let folds = crate::cv::make_folds(y.n_targets(), strata.as_deref(), &cfg.cv.validation, cfg.cv.seed)?;
    let points = grid.points();
    let paths = paths_along(grid, axis)?;
    let nf = folds.len();
    let progress = Progress::new(points.len() * nf);
    // Per path: per fold, the scores of the path's points (or the error of that fold).
    let results: Vec<std::result::Result<Vec<Vec<f64>>, String>> = paths
        .par_iter()
        .map(|path| {
            let pts: Vec<ParamPoint> = path.iter().map(|&c| points[c].clone()).collect();
            let state = prepare(&pts)
                .map_err(|e| TuneError::Build { point: pts[0].to_string(), source: e }.to_string())?;
            folds
                .par_iter()
                .map(|fold| {
                    let context =
                        || format!("grid point {} repeat {} fold {}", pts[0], fold.repeat, fold.index);
                    let learner_err = |e: BoxError| TuneError::Learner { context: context(), source: e };
                    let preds = fit(&state, &pts, fold).map_err(|e| learner_err(e).to_string())?;
                    if preds.len() != pts.len() {
                        return Err(learner_err(
                            format!("{} prediction vectors for {} grid points", preds.len(), pts.len())
                                .into(),
                        )
                        .to_string());
                    }
                    let truth = y.subset(&fold.test).map_err(|e| e.to_string())?;
                    let scores = preds
                        .iter()
                        .map(|p| scoring.score(p, &truth.truth(), kind).map_err(|e| e.to_string()))
                        .collect::<std::result::Result<Vec<f64>, String>>();
                    for _ in 0..pts.len() {
                        progress.tick();
                    }
                    scores
                })
                .collect::<std::result::Result<Vec<Vec<f64>>, String>>()
        })
        .collect();
    let mut per_cell: Vec<std::result::Result<Vec<f64>, String>> = vec![Ok(Vec::new()); points.len()];
    for (path, r) in paths.iter().zip(results) {
        for (k, &c) in path.iter().enumerate() {
            per_cell[c] = match &r {
                Ok(by_fold) => Ok(by_fold.iter().map(|s| s[k]).collect()),
                Err(e) => Err(e.clone()),
            };
        }
    }
    let (cells, best) = summarize_cells(points, per_cell)?;
    Ok(GridSearchReport {
        scoring: scoring.name_for(Some(kind)),
        validation: cfg.cv.validation.to_string(),
        stratified: strata.is_some(),
        seed: cfg.cv.seed,
        n_folds: nf,
        cells,
        best,
        model: None,
    })
}
