//! Grid search with cross-validation, the (cell, fold) fits spread over ranks: kern-tune's own
//! [`grid_search_with`] runs on every rank with a runner that fits task `t` (the `t`-th (cell, fold)
//! pair, cells in grid order, folds within a cell) on rank `t mod P`, in parallel on the rank's rayon
//! pool, and exchanges every score (one allgather of 8–16 bytes per fit, error texts aside). Every
//! rank thus assembles the same cells, and rank 0 returns the report (refitting the best cell when
//! asked). Every rank holds all the data (a fit trains on all but one fold); the folds are those of
//! the one-process search (same seed, same targets), so the report is identical to [`grid_search`]'s.
//!
//! [`grid_search`]: kern_tune::grid::grid_search
//!
//! ```
//! use kern_core::{CoreError, RealTargets, Samples};
//! use kern_dist::{grid::grid_search_dist, threads::run_threads};
//! use kern_models::krr::KernelRidgeParams;
//! use kern_tune::grid::{grid_search, GridSearchConfig, ParamGrid, ParamPoint};
//! let x = Samples::from_flat((0..24).map(|i| f64::from(i) * 0.25).collect(), 24, 1)?;
//! let y = RealTargets::new((0..24).map(|i| (f64::from(i) * 0.25).sin()).collect())?;
//! let (grid, cfg): (ParamGrid, _) = ("lambda=[0.001,0.1,10]".parse()?, GridSearchConfig::default());
//! let build = |p: &ParamPoint| Ok::<_, CoreError>(KernelRidgeParams::new("gaussian:sigma=1".parse()?).lambda(p["lambda"]));
//! // Two ranks fit the (cell, fold) pairs in turn; rank 0 returns the one-process report.
//! let r = run_threads(2, |c| grid_search_dist(c, &grid, build, &x, &y, &cfg).unwrap());
//! assert_eq!(r[0].as_ref().unwrap().cells, grid_search(&grid, build, &x, &y, &cfg)?.cells);
//! assert!(r[1].is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::comm::{Comm, agree};
use crate::error::Result;
use crate::wire::{Reader, Writer};
use kern_core::Samples;
use kern_core::learner::Fit;
use kern_tune::grid::{
    FitRunner, GridSearchConfig, GridSearchReport, ParamGrid, ParamPoint, grid_search_with,
};
use kern_tune::{BoxError, cv::CvTargets};
use rayon::prelude::*;

/// The fits of task `t` on rank `t mod P`; the results exchanged by one allgather.
struct Spread<'a>(&'a dyn Comm);

impl FitRunner for Spread<'_> {
    fn run(
        &self,
        n: usize,
        fit: &(dyn Fn(usize) -> std::result::Result<f64, String> + Sync),
    ) -> Vec<std::result::Result<f64, String>> {
        let (rank, size) = (self.0.rank(), self.0.size());
        let mine: Vec<usize> = (rank..n).step_by(size.max(1)).collect();
        let local: Vec<std::result::Result<f64, String>> = mine.par_iter().map(|&t| fit(t)).collect();
        let mut w = Writer::default();
        for (&t, r) in mine.iter().zip(&local) {
            w.u64(t as u64);
            match r {
                Ok(s) => w.u64(0).f64(*s),
                Err(e) => w.u64(1).str(e),
            };
        }
        let all = self.0.allgather_bytes(&w.0);
        let missing = || Err("no rank sent this fit's score (malformed message between ranks)".to_string());
        let mut out: Vec<std::result::Result<f64, String>> = (0..n).map(|_| missing()).collect();
        for msg in &all {
            let mut r = Reader(msg);
            while !r.is_empty() {
                let decoded = (|| -> Result<(usize, std::result::Result<f64, String>)> {
                    let t = r.u64()? as usize;
                    Ok((t, if r.u64()? == 0 { Ok(r.f64()?) } else { Err(r.str()?) }))
                })();
                match decoded {
                    Ok((t, v)) if t < n => out[t] = v,
                    _ => break,
                }
            }
        }
        out
    }
}

/// Grid search over ranks (collective). Returns the report of [`kern_tune::grid::grid_search`] on
/// rank 0 (with the refitted model when `cfg.refit`), `None` on the other ranks. Every rank passes
/// the same grid, data and config.
///
/// ```
/// use kern_core::{learner::{Fit, Model}, CoreError, RealTargets, Samples};
/// use kern_tune::grid::{grid_search, GridSearchConfig, ParamPoint};
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
/// let build = |p: &ParamPoint| Ok::<_, CoreError>(Constant(p["c"]));
/// let cfg = GridSearchConfig::default();
/// let r = kern_dist::grid::grid_search_dist(&kern_dist::SingleProcess, &grid, build, &x, &y, &cfg)?.unwrap();
/// assert_eq!(r.cells, grid_search(&grid, build, &x, &y, &cfg)?.cells);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn grid_search_dist<T, P, E, F>(
    comm: &dyn Comm,
    grid: &ParamGrid,
    build: F,
    x: &Samples,
    y: &T,
    cfg: &GridSearchConfig,
) -> Result<Option<GridSearchReport<P::Model>>>
where
    T: CvTargets,
    P: Fit<T>,
    E: Into<BoxError>,
    F: Fn(&ParamPoint) -> std::result::Result<P, E> + Sync,
{
    let root = comm.rank() == 0;
    let cfg = GridSearchConfig { refit: cfg.refit && root, ..cfg.clone() };
    let report = grid_search_with(grid, build, x, y, &cfg, &Spread(comm)).map_err(Into::into);
    // Errors before the fits are the same on every rank; a refit fails on rank 0 only.
    let report = agree(comm, report)?;
    Ok(root.then_some(report))
}
