//! The timing data of the bandwidth benchmarks, shared by `benches/tune.rs` and the examples `probe` and
//! `bandwidth_timing` (which include this file with `#[path]`), and reproduced by
//! `bench/bandwidth_numpy.py`.
#![allow(dead_code)] // each includer uses its own subset

use kern_core::Samples;

/// Uniform [0,1)^d plus an offset of 1.5·(i mod 3) on every coordinate, from a fixed LCG (seed 42).
pub fn lcg_data(n: usize, d: usize) -> Samples {
    let mut s: u64 = 42;
    let mut v = Vec::with_capacity(n * d);
    for i in 0..n {
        for _ in 0..d {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            v.push((s >> 11) as f64 / (1u64 << 53) as f64 + 1.5 * (i % 3) as f64);
        }
    }
    Samples::from_flat(v, n, d).expect("finite values")
}

/// The even-numbered rows of `mnist_5k.csv.gz` (2500 × 784, raw pixels, 250 per digit), read from
/// `KERN_DATA_DIR` or else the workspace's `data/`; `None` when it is not there.
pub fn mnist_even_rows() -> Option<Samples> {
    let dir = std::env::var_os("KERN_DATA_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data"));
    let ds = kern_core::io::read_csv(&dir.join("mnist_5k.csv.gz"), &Default::default()).ok()?;
    let idx: Vec<usize> = (0..2500).map(|i| 2 * i).collect();
    ds.samples.select(&idx).ok()
}
