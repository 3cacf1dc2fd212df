//! Seeded generators of the papers' synthetic data and loaders of the real datasets.
//!
//! Real datasets are read from `KERN_DATA_DIR`, else from the repository's `data/` directory (found from
//! this crate's source location, so any working directory works); a missing file is reported as
//! [`Loaded::Missing`] so the experiment can be skipped loudly.
//!
//! ```
//! use kern_repro::datasets::{standardize_split, GreenRed};
//! // The CS-RBF paper's green-red mixture: the same seeds give the same points, half of each class.
//! let mixture = GreenRed::new(1);
//! let (x, y) = mixture.sample(40, 2);
//! assert_eq!((x.clone(), y.clone()), mixture.sample(40, 2));
//! assert_eq!(y.iter().filter(|&&v| v > 0.0).count(), 20);
//! // Standardized on the training points, each feature has mean zero there.
//! let (z, _) = standardize_split(&x, &x)?;
//! assert!((0..2).all(|j| (0..40).map(|i| z.row(i)[j]).sum::<f64>().abs() < 1e-12));
//! # Ok::<(), kern_repro::ReproError>(())
//! ```

use kern_core::Samples;
use kern_core::io::{CsvOptions, Dataset, LabelColumn, MissingPolicy, read_csv};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use rand_distr::{Distribution, Normal, StandardNormal};
use std::path::PathBuf;

/// A seeded random number generator (Xoshiro256++, stable across rand versions).
///
/// ```
/// use rand::RngExt;
/// let mut a = kern_repro::datasets::rng(7);
/// let mut b = kern_repro::datasets::rng(7);
/// assert_eq!(a.random::<u64>(), b.random::<u64>());
/// ```
pub fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// The "green-red" mixture of Hastie, Tibshirani & Friedman (ESL §2.3), used by the CS-RBF paper:
/// 10 centres per class drawn from N((1,0), I) (class −1, "green") and N((0,1), I) (class +1, "red");
/// each point picks one of its class's centres uniformly and adds N(0, I/5).
#[derive(Clone, Debug)]
pub struct GreenRed {
    /// Centres of class −1.
    pub centres_neg: Vec<[f64; 2]>,
    /// Centres of class +1.
    pub centres_pos: Vec<[f64; 2]>,
}

impl GreenRed {
    /// Draws the 20 centres.
    ///
    /// ```
    /// let m = kern_repro::datasets::GreenRed::new(1);
    /// let (x, y) = m.sample(100, 2);
    /// assert_eq!((x.n(), y.len()), (100, 100));
    /// assert_eq!(y.iter().filter(|&&v| v > 0.0).count(), 50);
    /// ```
    pub fn new(seed: u64) -> Self {
        let mut r = rng(seed);
        let mut draw = |m: [f64; 2]| -> Vec<[f64; 2]> {
            (0..10)
                .map(|_| {
                    let a: f64 = StandardNormal.sample(&mut r);
                    let b: f64 = StandardNormal.sample(&mut r);
                    [m[0] + a, m[1] + b]
                })
                .collect()
        };
        let centres_neg = draw([1.0, 0.0]);
        let centres_pos = draw([0.0, 1.0]);
        GreenRed { centres_neg, centres_pos }
    }

    /// `n` points (half per class, alternating −1, +1) and their ±1 labels.
    pub fn sample(&self, n: usize, seed: u64) -> (Samples, Vec<f64>) {
        use rand::RngExt;
        let mut r = rng(seed);
        let noise = Normal::new(0.0, (0.2f64).sqrt()).expect("valid normal");
        let mut data = Vec::with_capacity(2 * n);
        let mut y = Vec::with_capacity(n);
        for i in 0..n {
            let (c, label) = if i % 2 == 0 { (&self.centres_neg, -1.0) } else { (&self.centres_pos, 1.0) };
            let m = c[r.random_range(0..c.len())];
            data.push(m[0] + noise.sample(&mut r));
            data.push(m[1] + noise.sample(&mut r));
            y.push(label);
        }
        (Samples::from_flat(data, n, 2).expect("finite"), y)
    }

    /// Class density `p(x | class)` of the mixture (for the exact Bayes rule).
    pub fn density(&self, x: [f64; 2], positive: bool) -> f64 {
        let c = if positive { &self.centres_pos } else { &self.centres_neg };
        let var = 0.2;
        c.iter()
            .map(|m| {
                let r2 = (x[0] - m[0]).powi(2) + (x[1] - m[1]).powi(2);
                (-r2 / (2.0 * var)).exp() / (2.0 * std::f64::consts::PI * var)
            })
            .sum::<f64>()
            / c.len() as f64
    }

    /// The Bayes decision at `x` (equal priors): +1 when the class +1 density is larger.
    pub fn bayes(&self, x: [f64; 2]) -> f64 {
        if self.density(x, true) > self.density(x, false) { 1.0 } else { -1.0 }
    }
}

/// Where real datasets are read from: `KERN_DATA_DIR` when set, else the workspace's `data/` directory
/// (located from this crate's manifest directory at build time, so the working directory does not matter),
/// else `data/` relative to the working directory (a relocated binary).
///
/// ```
/// // The workspace ships its datasets: without an override the default finds them.
/// if std::env::var_os("KERN_DATA_DIR").is_none() {
///     assert!(kern_repro::datasets::data_dir().join("wisconsin.csv").exists());
/// }
/// ```
pub fn data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("KERN_DATA_DIR") {
        return PathBuf::from(d);
    }
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    if shipped.is_dir() { shipped } else { PathBuf::from("data") }
}

/// A real dataset, or why it is not there.
///
/// ```
/// use kern_repro::datasets::{load_csv, Loaded};
/// match load_csv("wisconsin.csv", kern_core::io::LabelColumn::Last)? {
///     // The shipped Wisconsin breast cancer set: 683 complete rows, 9 features, classes 2 and 4.
///     Loaded::Data(d) => {
///         assert_eq!((d.samples.n(), d.samples.d()), (683, 9));
///         assert!(d.labels.iter().all(|l| l == "2" || l == "4"));
///     }
///     // KERN_DATA_DIR points elsewhere: the reason names the file.
///     Loaded::Missing(why) => assert!(why.contains("wisconsin.csv")),
/// }
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // one value per data set loaded: its size does not matter
pub enum Loaded {
    /// The data.
    Data(Dataset),
    /// The file is missing: the reason names the path and where to get it.
    Missing(String),
}

/// Loads a CSV from the data directory with a label column, or reports it missing.
///
/// ```
/// use kern_repro::datasets::{load_csv, Loaded};
/// match load_csv("no-such-file.csv", kern_core::io::LabelColumn::Last).unwrap() {
///     Loaded::Missing(why) => assert!(why.contains("no-such-file.csv")),
///     Loaded::Data(_) => unreachable!(),
/// }
/// ```
pub fn load_csv(name: &str, label: LabelColumn) -> crate::Result<Loaded> {
    let p = data_dir().join(name);
    if !p.exists() {
        return Ok(Loaded::Missing(format!(
            "{} not found (the repository's data/ directory ships every dataset; check KERN_DATA_DIR)",
            p.display()
        )));
    }
    // The published results drop rows with missing values (cleveland.csv's six `?` rows).
    let opts = CsvOptions { label, missing: MissingPolicy::Drop, ..Default::default() };
    Ok(Loaded::Data(read_csv(&p, &opts)?))
}

/// Z-scores the features of `train` and `test` with the training part's means and standard deviations
/// (population; features constant on the training part become 0), so no test information enters the
/// selection. On `train` this is exactly `papers::letchford::standardize`.
///
/// ```
/// use kern_core::Samples;
/// let tr = Samples::from_rows(&[[0.0, 5.0], [2.0, 5.0]])?;
/// let te = Samples::from_rows(&[[4.0, 7.0]])?;
/// let (a, b) = kern_repro::datasets::standardize_split(&tr, &te)?;
/// assert_eq!(a.row(0), &[-1.0, 0.0]);
/// assert_eq!(b.row(0), &[3.0, 0.0]);
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn standardize_split(train: &Samples, test: &Samples) -> crate::Result<(Samples, Samples)> {
    train.check_same_dim(test)?;
    let (n, d) = (train.n() as f64, train.d());
    let mut mean = vec![0.0; d];
    for r in train.rows() {
        for (m, v) in mean.iter_mut().zip(r) {
            *m += v / n;
        }
    }
    let mut sd = vec![0.0; d];
    for r in train.rows() {
        for ((s, v), m) in sd.iter_mut().zip(r).zip(&mean) {
            *s += (v - m) * (v - m) / n;
        }
    }
    let apply = |x: &Samples| -> crate::Result<Samples> {
        let mut out = Vec::with_capacity(x.n() * d);
        for r in x.rows() {
            for j in 0..d {
                out.push(if sd[j] > 0.0 { (r[j] - mean[j]) / sd[j].sqrt() } else { 0.0 });
            }
        }
        Ok(Samples::from_flat(out, x.n(), d)?)
    };
    Ok((apply(train)?, apply(test)?))
}
