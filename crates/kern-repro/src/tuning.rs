//! Grid searches whose optimum may not rest on the grid's edge: while the chosen value of a scale
//! parameter (C, a width, γ) is the smallest or largest of its axis, the axis is extended on that side
//! and the search runs again ([`search_extending`]). The grid actually searched is reported beside every
//! result ([`Extended::describe`]).
//!
//! ```
//! use kern_repro::tuning::search_extending;
//! use kern_tune::grid::{CellResult, GridSearchReport, ParamGrid};
//! // A score peaking at c = 100, beyond the declared grid's largest value 1: the axis grows a decade
//! // at a time until the best c lies inside it.
//! let search = |g: &ParamGrid| -> kern_repro::Result<GridSearchReport<()>> {
//!     let cells: Vec<CellResult> = g.points().into_iter().map(|p| CellResult { mean: -(p["c"].log10() - 2.0).abs(),
//!         params: p, fold_scores: vec![], std: 0.0, min: 0.0, max: 0.0, error: None }).collect();
//!     let best = (0..cells.len()).fold(0, |b, i| if cells[i].mean > cells[b].mean { i } else { b });
//!     Ok(GridSearchReport { scoring: "s".into(), validation: "v".into(), stratified: false, seed: 0,
//!                           n_folds: 1, cells, best, model: None })
//! };
//! let e = search_extending(&"c=[0.1,1]".parse().unwrap(), &["c"], 10.0, search)?;
//! assert_eq!(e.report.best_params()["c"], 100.0);
//! assert_eq!(e.grid.axes()[0].values, vec![0.1, 1.0, 10.0, 100.0, 1000.0]);
//! # Ok::<(), kern_repro::ReproError>(())
//! ```

use crate::{ReproError, Result};
use kern_tune::grid::{GridSearchReport, ParamAxis, ParamGrid, Spacing};

/// The most extensions on each side of an axis.
const MAX_STEPS: usize = 3;

/// The factor one extension step adds to an axis (one decade).
pub(crate) const DECADE: f64 = 10.0;

/// A grid search after its edge extensions.
#[derive(Debug)]
pub struct Extended<M> {
    /// The report of the last search (on [`Extended::grid`]).
    pub report: GridSearchReport<M>,
    /// The grid as first declared.
    pub first: ParamGrid,
    /// The grid actually searched.
    pub grid: ParamGrid,
    /// The axes whose chosen value is still on an edge after three extensions on that side.
    pub on_edge: Vec<String>,
}

impl<M> Extended<M> {
    /// The grid searched, with its first declaration when it was extended and a warning when the
    /// optimum is still on an edge.
    ///
    /// ```
    /// use kern_repro::tuning::{Extended, search_extending};
    /// use kern_tune::grid::{GridSearchReport, ParamGrid};
    /// // A search whose score grows with c: the optimum sits on the upper edge every time.
    /// let fake = |g: &ParamGrid| -> kern_repro::Result<GridSearchReport<()>> {
    ///     let cells: Vec<_> = g.points().into_iter().map(|p| kern_tune::grid::CellResult {
    ///         mean: p["c"], params: p, fold_scores: vec![], std: 0.0, min: 0.0, max: 0.0, error: None,
    ///     }).collect();
    ///     let best = cells.len() - 1;
    ///     Ok(GridSearchReport { scoring: "s".into(), validation: "v".into(), stratified: false, seed: 0,
    ///                           n_folds: 1, cells, best, model: None })
    /// };
    /// let e = search_extending(&"c=[1,10]".parse().unwrap(), &["c"], 10.0, fake).unwrap();
    /// assert_eq!(e.report.best_params()["c"], 1e4);
    /// assert!(e.describe().contains("still on the upper edge of c"));
    /// ```
    pub fn describe(&self) -> String {
        let mut s = self.grid.to_string();
        if self.grid != self.first {
            s.push_str(&format!(" (extended from {})", self.first));
        }
        for a in &self.on_edge {
            s.push_str(&format!("; the optimum is still on the {a} after {MAX_STEPS} extensions"));
        }
        s
    }
}

/// `axis` extended by `factor` beyond its lowest (`lower`) or highest value, continuing its geometric
/// spacing there: `k = max(1, round(ln factor / ln r))` values, `r` the ratio of the two values at that
/// end. Log-spaced axes stay log-spaced (their exponents keep the step).
///
/// ```
/// use kern_tune::grid::ParamAxis;
/// let a = ParamAxis::log2("c", -5.0, 15.0, 21).unwrap();
/// let lo = kern_repro::tuning::extend_axis(&a, true, 10.0).unwrap();
/// assert_eq!((lo.values.len(), lo.values[0]), (24, 2f64.powi(-8)));
/// let b = ParamAxis::values("c", vec![2.0, 8.0, 32.0]).unwrap();
/// assert_eq!(kern_repro::tuning::extend_axis(&b, false, 10.0).unwrap().values, vec![2.0, 8.0, 32.0, 128.0, 512.0]);
/// ```
pub fn extend_axis(axis: &ParamAxis, lower: bool, factor: f64) -> Result<ParamAxis> {
    let v = &axis.values;
    let n = v.len();
    if n < 2 || v.iter().any(|&x| x <= 0.0) || factor <= 1.0 {
        return Err(ReproError::Other(format!(
            "axis {} cannot be extended geometrically (it needs two or more positive values)",
            axis.name
        )));
    }
    let ratio = if lower { v[1] / v[0] } else { v[n - 1] / v[n - 2] };
    if ratio <= 1.0 || !ratio.is_finite() {
        return Err(ReproError::Other(format!("axis {} is not in ascending order", axis.name)));
    }
    let k = ((factor.ln() / ratio.ln()).round() as usize).max(1);
    let log = |base: f64, x: f64| x.ln() / base.ln();
    let spaced = |base: f64| -> Result<ParamAxis> {
        let (lo, hi) = (log(base, v[0]), log(base, v[n - 1]));
        let step = (hi - lo) / (n - 1) as f64;
        let (lo, hi) = if lower { (lo - k as f64 * step, hi) } else { (lo, hi + k as f64 * step) };
        let (lo, hi, name) = (lo.round_if_close(), hi.round_if_close(), axis.name.clone());
        Ok(if base == 2.0 {
            ParamAxis::log2(name, lo, hi, n + k)?
        } else {
            ParamAxis::log10(name, lo, hi, n + k)?
        })
    };
    match axis.spacing {
        Spacing::Log2 => spaced(2.0),
        Spacing::Log10 => spaced(10.0),
        _ => {
            let mut values = v.clone();
            if lower {
                let extra: Vec<f64> = (1..=k).rev().map(|j| v[0] / ratio.powi(j as i32)).collect();
                values.splice(0..0, extra);
            } else {
                values.extend((1..=k).map(|j| v[n - 1] * ratio.powi(j as i32)));
            }
            Ok(ParamAxis::values(axis.name.clone(), values)?)
        }
    }
}

/// Exponents of log grids are whole numbers or simple fractions; rounding off the last bits of
/// `log₂(2^e)` keeps the extended axis' values identical to the declared ones.
trait RoundIfClose {
    fn round_if_close(self) -> f64;
}

impl RoundIfClose for f64 {
    fn round_if_close(self) -> f64 {
        let r = (self * 1e9).round() / 1e9;
        if (self - r).abs() < 1e-9 { r } else { self }
    }
}

/// Runs `search` on `grid`, then, while the chosen value of one of `axes` is the lowest or highest of
/// its axis, extends that axis by `factor` on that side ([`extend_axis`]; at most three times a side)
/// and runs `search` again on the whole extended grid, so the final choice is the one a single search
/// of the extended grid makes.
///
/// ```
/// use kern_repro::tuning::search_extending;
/// use kern_tune::grid::{CellResult, GridSearchReport, ParamGrid};
/// // A cross-validation score that peaks at c = 1000, beyond the declared grid's largest value 10.
/// let mut searches = 0;
/// let search = |g: &ParamGrid| -> kern_repro::Result<GridSearchReport<()>> {
///     searches += 1;
///     let cells: Vec<CellResult> = g.points().into_iter().map(|p| CellResult {
///         mean: -(p["c"].log10() - 3.0).powi(2), params: p,
///         fold_scores: vec![], std: 0.0, min: 0.0, max: 0.0, error: None,
///     }).collect();
///     let best = (0..cells.len()).fold(0, |b, i| if cells[i].mean > cells[b].mean { i } else { b });
///     Ok(GridSearchReport { scoring: "s".into(), validation: "v".into(), stratified: false, seed: 0,
///                           n_folds: 1, cells, best, model: None })
/// };
/// let grid: ParamGrid = "c=[0.1,1,10]".parse().unwrap();
/// let e = search_extending(&grid, &["c"], 10.0, search).unwrap();
/// // A decade added above at each search while the best c is the largest: 100, 1000, then 10000,
/// // where the peak 1000 is inside the grid. Four searches in all.
/// assert_eq!(e.report.best_params()["c"], 1000.0);
/// assert_eq!(e.grid.axes()[0].values, vec![0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0]);
/// assert!(e.on_edge.is_empty() && e.first == grid);
/// assert_eq!(searches, 4);
/// ```
pub fn search_extending<M>(
    grid: &ParamGrid,
    axes: &[&str],
    factor: f64,
    mut search: impl FnMut(&ParamGrid) -> Result<GridSearchReport<M>>,
) -> Result<Extended<M>> {
    let mut current = grid.clone();
    let mut steps = vec![[0usize; 2]; axes.len()];
    loop {
        let report = search(&current)?;
        let best = report.best_params().clone();
        let mut next: Vec<ParamAxis> = current.axes().to_vec();
        let mut on_edge = Vec::new();
        let mut extended = false;
        for (j, name) in axes.iter().enumerate() {
            let Some(a) = next.iter_mut().find(|a| a.name == *name) else {
                return Err(ReproError::Other(format!("the grid has no axis {name}")));
            };
            if a.values.len() < 2 {
                continue;
            }
            let chosen = best[*name];
            let lo = a.values.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = a.values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            for (side, at_edge, label) in [(0, chosen <= lo, "lower"), (1, chosen >= hi, "upper")] {
                if !at_edge {
                    continue;
                }
                if steps[j][side] < MAX_STEPS {
                    *a = extend_axis(a, side == 0, factor)?;
                    steps[j][side] += 1;
                    extended = true;
                } else {
                    on_edge.push(format!("{label} edge of {name}"));
                }
            }
        }
        if !extended {
            return Ok(Extended { report, first: grid.clone(), grid: current, on_edge });
        }
        current = ParamGrid::new(next)?;
    }
}

/// The model a grid search refitted on all its data (every search here asks for the refit).
///
/// ```
/// let none: Option<u8> = None;
/// assert!(kern_repro::tuning::refitted(&none).is_err());
/// assert_eq!(kern_repro::tuning::refitted(&Some(3u8)).ok(), Some(&3));
/// ```
pub fn refitted<M>(model: &Option<M>) -> Result<&M> {
    model.as_ref().ok_or_else(|| ReproError::Other("grid search did not refit".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kern_tune::grid::CellResult;

    /// A search whose CV score peaks at `c = peak` (a parabola in log c).
    fn peaked(peak: f64) -> impl FnMut(&ParamGrid) -> Result<GridSearchReport<()>> {
        move |g: &ParamGrid| {
            let cells: Vec<CellResult> = g
                .points()
                .into_iter()
                .map(|p| CellResult {
                    mean: -(p["c"].ln() - peak.ln()).powi(2),
                    params: p,
                    fold_scores: vec![],
                    std: 0.0,
                    min: 0.0,
                    max: 0.0,
                    error: None,
                })
                .collect();
            let best = (0..cells.len()).fold(0, |b, i| if cells[i].mean > cells[b].mean { i } else { b });
            Ok(GridSearchReport {
                scoring: "s".into(),
                validation: "v".into(),
                stratified: false,
                seed: 0,
                n_folds: 1,
                cells,
                best,
                model: None,
            })
        }
    }

    #[test]
    fn an_interior_optimum_leaves_the_grid_alone() {
        let g: ParamGrid = "c=2^-5..2^15:21".parse().unwrap();
        let e = search_extending(&g, &["c"], DECADE, peaked(8.0)).unwrap();
        assert_eq!(e.grid, g);
        assert_eq!(e.report.best_params()["c"], 8.0);
        assert_eq!(e.describe(), g.to_string());
    }

    #[test]
    fn an_edge_optimum_extends_until_it_is_inside() {
        let g: ParamGrid = "c=2^-5..2^15:21".parse().unwrap();
        // The peak at 2^-9: one step adds 2^-8..2^-6, the next 2^-11..2^-9, where the peak is inside.
        let e = search_extending(&g, &["c"], DECADE, peaked(2f64.powi(-9))).unwrap();
        assert_eq!(e.report.best_params()["c"], 2f64.powi(-9));
        assert_eq!(e.grid.to_string(), "c=2^-11..2^15:27");
        assert!(e.on_edge.is_empty());
        // The original values are still grid points (exactly).
        let vals = &e.grid.axes()[0].values;
        for i in -5..=15 {
            assert!(vals.contains(&2f64.powi(i)), "2^{i}");
        }
        // Far outside: three steps, then reported as still on the edge.
        let e = search_extending(&g, &["c"], DECADE, peaked(1e9)).unwrap();
        assert_eq!(e.grid.to_string(), "c=2^-5..2^24:30");
        assert_eq!(e.on_edge, vec!["upper edge of c".to_string()]);
    }

    #[test]
    fn other_axes_are_not_extended() {
        let g: ParamGrid = "c=[1,10,100],epsilon=[0.1,0.5]".parse().unwrap();
        let e = search_extending(&g, &["c"], DECADE, peaked(1.0)).unwrap();
        assert_eq!(e.grid.axes()[1].values, vec![0.1, 0.5]);
        assert_eq!(e.grid.axes()[0].values, vec![0.1, 1.0, 10.0, 100.0]);
        assert!(search_extending(&g, &["gamma"], DECADE, peaked(1.0)).is_err());
    }
}
