//! Data for the sparse benches: the shared green-red mixture and uniform points (from the test kit),
//! and distance quantiles to pick support radii from.
#![allow(dead_code)]

use kern_core::{Samples, sq_dist};
pub use kern_testkit::data::green_red;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// `n` points uniform in the unit square.
pub fn uniform_square(n: usize, seed: u64) -> Samples {
    kern_testkit::data::uniform(n, 2, 1.0, seed)
}

/// The `q`-quantile of the pairwise distances `‖x_i − x_j‖`, `i ≠ j`: exact over all pairs when
/// `n(n−1)/2 ≤ max_pairs`, else over `max_pairs` random pairs.
pub fn distance_quantile(x: &Samples, q: f64, max_pairs: usize, seed: u64) -> f64 {
    let n = x.n();
    let total = n * (n - 1) / 2;
    let mut d: Vec<f64> = if total <= max_pairs {
        (0..n)
            .flat_map(|i| (0..i).map(move |j| (i, j)))
            .map(|(i, j)| sq_dist(x.row(i), x.row(j)).sqrt())
            .collect()
    } else {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        (0..max_pairs)
            .map(|_| {
                loop {
                    let (i, j) = (rng.random_range(0..n), rng.random_range(0..n));
                    if i != j {
                        break sq_dist(x.row(i), x.row(j)).sqrt();
                    }
                }
            })
            .collect()
    };
    d.sort_unstable_by(f64::total_cmp);
    let k = ((q * d.len() as f64).ceil() as usize).clamp(1, d.len()) - 1;
    d[k]
}
