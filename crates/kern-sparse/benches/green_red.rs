//! A small seeded "green-red" generator for the benches and examples (the ESL mixture used by the
//! CS-RBF paper, §4 Example 1): 10 centres per class drawn from N((1,0), I) (green, +1) and
//! N((0,1), I) (red, −1); each point picks its class (alternating), a random centre of that class,
//! and adds N(0, I/5). kern-repro owns the canonical generator; this one only feeds benchmarks.
#![allow(dead_code)]

use kern_core::{Samples, sq_dist};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};

/// `n` green-red points (2-D) and their ±1 labels.
pub fn green_red(n: usize, seed: u64) -> (Samples, Vec<f64>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let normal = |rng: &mut Xoshiro256PlusPlus| -> f64 { StandardNormal.sample(rng) };
    let green: Vec<[f64; 2]> = (0..10).map(|_| [1.0 + normal(&mut rng), normal(&mut rng)]).collect();
    let red: Vec<[f64; 2]> = (0..10).map(|_| [normal(&mut rng), 1.0 + normal(&mut rng)]).collect();
    let s = (0.2f64).sqrt();
    let mut data = Vec::with_capacity(2 * n);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let (centres, label) = if i % 2 == 0 { (&green, 1.0) } else { (&red, -1.0) };
        let c = centres[rng.random_range(0..10usize)];
        data.push(c[0] + s * normal(&mut rng));
        data.push(c[1] + s * normal(&mut rng));
        y.push(label);
    }
    (Samples::from_flat(data, n, 2).unwrap(), y)
}

/// `n` points uniform in the unit square.
pub fn uniform_square(n: usize, seed: u64) -> Samples {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let data: Vec<f64> = (0..2 * n).map(|_| rng.random::<f64>()).collect();
    Samples::from_flat(data, n, 2).unwrap()
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
