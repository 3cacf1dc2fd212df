//! The grid-search progress observer: told every finished fit, ending at cells × folds. In its own test
//! binary because the observer is process-wide.

use kern_core::learner::{Fit, Model};
use kern_core::{CoreError, RealTargets, Samples};
use kern_tune::cv::{CvConfig, Validation};
use kern_tune::grid::{GridSearchConfig, ParamGrid, ParamPoint, grid_search, observe_progress};
use std::sync::{Arc, Mutex};

/// Predicts `shift` plus the training mean.
struct Shift(f64);
struct ShiftModel(f64);
impl Model for ShiftModel {
    type Error = CoreError;
    fn predict(&self, x: &Samples) -> Result<Vec<f64>, CoreError> {
        Ok(vec![self.0; x.n()])
    }
}
impl Fit<RealTargets> for Shift {
    type Model = ShiftModel;
    type Error = CoreError;
    fn fit(&self, _x: &Samples, y: &RealTargets) -> Result<ShiftModel, CoreError> {
        Ok(ShiftModel(self.0 + y.values().iter().sum::<f64>() / y.len() as f64))
    }
}

#[test]
fn observer_sees_every_fit_once() {
    let x = Samples::from_flat((0..30).map(f64::from).collect(), 30, 1).unwrap();
    let y = RealTargets::new((0..30).map(|i| f64::from(i % 7)).collect()).unwrap();
    let grid: ParamGrid = "shift=-1..1:5".parse().unwrap();
    let cfg = GridSearchConfig {
        cv: CvConfig { validation: Validation::KFold { k: 3, repeats: 2 }, ..CvConfig::default() },
        refit: false,
    };
    let calls: Arc<Mutex<Vec<(usize, usize)>>> = Arc::default();
    let c = calls.clone();
    observe_progress(Some(Arc::new(move |done, total| c.lock().unwrap().push((done, total)))));
    let build = |p: &ParamPoint| -> Result<Shift, CoreError> { Ok(Shift(p.get("shift").unwrap())) };
    grid_search(&grid, build, &x, &y, &cfg).unwrap();
    observe_progress(None);
    let mut seen = calls.lock().unwrap().clone();
    seen.sort();
    let expected: Vec<(usize, usize)> = (1..=30).map(|k| (k, 30)).collect();
    assert_eq!(seen, expected, "5 cells × 3 folds × 2 repeats, each fit reported once");
    // Removed: a second search reports nothing.
    grid_search(&grid, build, &x, &y, &cfg).unwrap();
    assert_eq!(calls.lock().unwrap().len(), 30);
}
