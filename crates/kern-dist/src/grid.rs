//! Grid search with cross-validation, cells spread over ranks: cell `c` of the grid (in grid order) is
//! cross-validated by rank `c mod P` with kern-tune's [`grid_search`] (the other cells are skipped on
//! that rank), and the cells' results are gathered on rank 0, which picks the best cell exactly as the
//! one-process search does and refits it when asked. Every rank holds all the data (a cell trains on
//! it all); the folds are those of the one-process search (same seed, same targets), so the report is
//! identical to [`grid_search`]'s.

use crate::comm::{Comm, agree};
use crate::error::{DistError, Result};
use crate::wire::{Reader, Writer};
use kern_core::Samples;
use kern_core::learner::Fit;
use kern_tune::grid::{
    CellResult, GridSearchConfig, GridSearchReport, ParamAxis, ParamGrid, ParamPoint, grid_search,
};
use kern_tune::{BoxError, TuneError, cv::CvTargets};

/// The marker error of a cell another rank computes.
#[derive(Debug)]
struct OtherRank;

impl std::fmt::Display for OtherRank {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("computed on another rank")
    }
}

impl std::error::Error for OtherRank {}

/// The report's fields that do not depend on the cells.
struct Meta {
    scoring: String,
    validation: String,
    stratified: bool,
    seed: u64,
    n_folds: usize,
}

/// Grid search over ranks (collective). Returns the report of [`grid_search`] on rank 0 (with the
/// refitted model when `cfg.refit`), `None` on the other ranks. Every rank passes the same grid,
/// data and config.
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
    let (rank, size) = (comm.rank(), comm.size());
    let points = grid.points();
    let mine: Vec<usize> = (0..points.len()).filter(|c| c % size == rank).collect();
    let local = agree(comm, local_cells(grid, &points, &mine, &build, x, y, cfg));
    let (meta, cells) = local?;
    let mut w = Writer::default();
    match &meta {
        Some(m) => {
            w.u64(1)
                .str(&m.scoring)
                .str(&m.validation)
                .u64(m.stratified.into())
                .u64(m.seed)
                .u64(m.n_folds as u64);
        }
        None => {
            w.u64(0);
        }
    }
    for (c, cell) in mine.iter().zip(&cells) {
        w.u64(*c as u64).f64s(&cell.fold_scores).f64(cell.mean).f64(cell.std).f64(cell.min).f64(cell.max);
        w.str(cell.error.as_deref().unwrap_or("")).u64(cell.error.is_some().into());
    }
    let Some(parts) = comm.gather_bytes(0, &w.0) else { return Ok(None) };
    let mut meta: Option<Meta> = None;
    let mut all: Vec<Option<CellResult>> = vec![None; points.len()];
    for part in &parts {
        let mut r = Reader(part);
        if r.u64()? == 1 {
            let m = Meta {
                scoring: r.str()?,
                validation: r.str()?,
                stratified: r.u64()? == 1,
                seed: r.u64()?,
                n_folds: r.u64()? as usize,
            };
            meta.get_or_insert(m);
        }
        while !r.is_empty() {
            let c = r.u64()? as usize;
            let p = points.get(c).ok_or_else(|| DistError::Message(format!("cell {c} out of range")))?;
            let fold_scores = r.f64s()?;
            let (mean, std, min, max) = (r.f64()?, r.f64()?, r.f64()?, r.f64()?);
            let (msg, failed) = (r.str()?, r.u64()? == 1);
            let error = failed.then_some(msg);
            all[c] = Some(CellResult { params: p.clone(), fold_scores, mean, std, min, max, error });
        }
    }
    let cells: Vec<CellResult> = all
        .into_iter()
        .enumerate()
        .map(|(c, r)| r.ok_or_else(|| DistError::Message(format!("no rank sent cell {c}"))))
        .collect::<Result<_>>()?;
    let mut best: Option<usize> = None;
    for (i, c) in cells.iter().enumerate() {
        if c.error.is_none() && !c.mean.is_nan() && best.is_none_or(|b| c.mean > cells[b].mean) {
            best = Some(i);
        }
    }
    let (Some(best), Some(meta)) = (best, meta) else {
        let first = cells.iter().find_map(|c| c.error.clone()).unwrap_or_else(|| "all scores are NaN".into());
        return Err(TuneError::AllCellsFailed(first).into());
    };
    let model = if cfg.refit {
        let learner = build(&cells[best].params)
            .map_err(|e| TuneError::Build { point: cells[best].params.to_string(), source: e.into() })?;
        let m = learner.fit(x, y).map_err(|e| TuneError::Learner {
            context: format!("refitting {} on all data", cells[best].params),
            source: Box::new(e),
        })?;
        Some(m)
    } else {
        None
    };
    Ok(Some(GridSearchReport {
        scoring: meta.scoring,
        validation: meta.validation,
        stratified: meta.stratified,
        seed: meta.seed,
        n_folds: meta.n_folds,
        cells,
        best,
        model,
    }))
}

/// This rank's cells (`mine`, in grid order) and the report's other fields (`None` when every cell of
/// this rank failed).
fn local_cells<T, P, E, F>(
    grid: &ParamGrid,
    points: &[ParamPoint],
    mine: &[usize],
    build: &F,
    x: &Samples,
    y: &T,
    cfg: &GridSearchConfig,
) -> Result<(Option<Meta>, Vec<CellResult>)>
where
    T: CvTargets,
    P: Fit<T>,
    E: Into<BoxError>,
    F: Fn(&ParamPoint) -> std::result::Result<P, E> + Sync,
{
    if mine.is_empty() {
        return Ok((None, Vec::new()));
    }
    let cfg = GridSearchConfig { refit: false, ..cfg.clone() };
    let owned =
        |p: &ParamPoint| points.iter().position(|q| q == p).is_some_and(|c| mine.binary_search(&c).is_ok());
    let only_mine = |p: &ParamPoint| -> std::result::Result<P, BoxError> {
        if owned(p) { build(p).map_err(Into::into) } else { Err(Box::new(OtherRank)) }
    };
    match grid_search(grid, only_mine, x, y, &cfg) {
        Ok(r) => {
            let meta = Meta {
                scoring: r.scoring,
                validation: r.validation,
                stratified: r.stratified,
                seed: r.seed,
                n_folds: r.n_folds,
            };
            let cells = r.cells.into_iter().enumerate().filter(|(c, _)| mine.binary_search(c).is_ok());
            Ok((Some(meta), cells.map(|(_, cell)| cell).collect()))
        }
        // Every cell of this rank failed: each cell's error is the one its one-point search reports.
        Err(TuneError::AllCellsFailed(_)) => {
            let cells = mine
                .iter()
                .map(|&c| {
                    let p = &points[c];
                    let axes = p
                        .iter()
                        .map(|(name, v)| ParamAxis::values(name, vec![v]))
                        .collect::<kern_tune::Result<Vec<_>>>()?;
                    let one = ParamGrid::new(axes)?;
                    let error = match grid_search(&one, build, x, y, &cfg) {
                        Err(TuneError::AllCellsFailed(e)) => e,
                        Err(e) => return Err(e.into()),
                        Ok(_) => return Err(DistError::Message(format!("cell {p} failed, then succeeded"))),
                    };
                    let nan = f64::NAN;
                    let params = p.clone();
                    Ok(CellResult {
                        params,
                        fold_scores: Vec::new(),
                        mean: nan,
                        std: nan,
                        min: nan,
                        max: nan,
                        error: Some(error),
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok((None, cells))
        }
        Err(e) => Err(e.into()),
    }
}
