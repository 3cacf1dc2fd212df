//! What the test files of kern-dist share: scratch directories that leave nothing behind, data and
//! the grid search of the grid-search tests.
//!
//! The test binary's `main.rs` declares it; each topic module uses `crate::common`.

pub use kern_testkit::{scratch, write};

use kern_core::{BinaryTargets, ClassTargets, RealTargets, Samples, Targets};
use kern_models::lssvm::LsSvmParams;
use kern_tune::cv::{CvConfig, Scoring, Stratify, Validation};
use kern_tune::grid::{GridSearchConfig, ParamGrid, ParamPoint};

/// `n` points of two interleaved blobs in 2-D with labels "1" and "2" (even rows are class 1).
pub fn two_blobs(n: usize) -> (Samples, BinaryTargets) {
    let mut rows = Vec::new();
    let mut labels = Vec::new();
    for i in 0..n {
        let t = i as f64 * 0.37;
        let s = if i % 2 == 0 { 1.0 } else { -1.0 };
        rows.push([s + 0.6 * t.sin(), s * 0.5 + 0.6 * (1.3 * t).cos()]);
        labels.push(if s > 0.0 { "1" } else { "2" });
    }
    (Samples::from_rows(&rows).unwrap(), BinaryTargets::from_labels(&labels).unwrap())
}

/// `n` scrambled lattice points in `[0, 4]²`, labels from `label(i, x, y)`.
pub fn lattice(n: usize, label: impl Fn(usize, f64, f64) -> String) -> String {
    (0..n)
        .map(|i| {
            let (x, y) = (((i * 37) % 101) as f64 / 25.0, ((i * 53) % 97) as f64 / 24.0);
            format!("{} 1:{x} 2:{y}\n", label(i, x, y))
        })
        .collect()
}

/// The grid of the grid-search tests: three `lambda`s by two `sigma`s.
pub fn lssvm_grid() -> ParamGrid {
    "lambda=1e-4..1:3,sigma=0.3..3:2".parse().unwrap()
}

/// The LS-SVM of a grid point. Every `sigma` is built; a `lambda` above 0.5 becomes -1, which cannot
/// be: those cells fail in every search alike.
pub fn build_lssvm(p: &ParamPoint) -> Result<LsSvmParams, kern_core::CoreError> {
    let k = format!("gaussian:sigma={}", p["sigma"]).parse()?;
    Ok(LsSvmParams::new(k).lambda(if p["lambda"] > 0.5 { -1.0 } else { p["lambda"] }))
}

/// Seeded, stratified 4-fold cross-validation; the best cell refitted if `refit`.
pub fn grid_config(refit: bool) -> GridSearchConfig {
    GridSearchConfig {
        cv: CvConfig {
            validation: Validation::KFold { k: 4, repeats: 1 },
            stratify: Stratify::Auto,
            scoring: Scoring::Auto,
            seed: 3,
        },
        refit,
    }
}

/// The targets `kern train` builds from a whole file.
pub fn one_process_targets(labels: &[String], regression: bool) -> Targets {
    if regression {
        return Targets::Real(RealTargets::new(labels.iter().map(|l| l.parse().unwrap()).collect()).unwrap());
    }
    let c = ClassTargets::from_labels(labels).unwrap();
    if c.n_classes() == 2 {
        Targets::Binary(BinaryTargets::from_labels(labels).unwrap())
    } else {
        Targets::Classes(c)
    }
}
