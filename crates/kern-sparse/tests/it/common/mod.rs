//! Helpers shared by the integration tests.
#![allow(dead_code)]

use kern_core::{CompactlySupported, Gaussian};
pub use kern_testkit::data::uniform;

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
