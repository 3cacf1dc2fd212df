//! Helpers shared by the integration tests.
#![allow(dead_code)]

use kern_core::{CompactlySupported, Gaussian, Samples};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// `n` points uniform in `[0, scale)^d`.
pub fn uniform(n: usize, d: usize, scale: f64, seed: u64) -> Samples {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let data: Vec<f64> = (0..n * d).map(|_| rng.random::<f64>() * scale).collect();
    Samples::from_flat(data, n, d).unwrap()
}

/// A compactly supported Gaussian with the PD exponent for dimension `d`.
pub fn cs_gauss(sigma: f64, c: f64, d: usize) -> CompactlySupported<Gaussian> {
    CompactlySupported::new(Gaussian::with_sigma(sigma).unwrap(), c, ((d + 1) as f64 / 2.0).ceil().max(1.0))
        .unwrap()
}

/// Max |a - b| / max(1, |b|).
pub fn rel_err(a: &[f64], b: &[f64]) -> f64 {
    let scale = b.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max) / scale
}
