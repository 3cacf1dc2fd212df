//! Feature vector selection on Gaussian-kernel data: n = 5000 selecting 100, n = 50,000 selecting 200
//! (targets: < 1 s and < 30 s, without forming the n × n matrix in the second case).

use criterion::{Criterion, criterion_group, criterion_main};
use kern_core::{Gaussian, Samples};
use kern_models::fvs::{FvsParams, Strategy, select};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::hint::black_box;

fn points(n: usize, d: usize, seed: u64) -> Samples {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    Samples::from_flat((0..n * d).map(|_| rng.random::<f64>() * 2.0 - 1.0).collect(), n, d).unwrap()
}

fn bench(c: &mut Criterion) {
    let k = Gaussian::with_sigma(0.5).unwrap();
    let mut g = c.benchmark_group("fvs");
    g.sample_size(10);
    let x = points(5000, 4, 1);
    for (name, s) in [
        ("n5000_L100_sampled64", Strategy::Sampled { candidates: 64, seed: 0 }),
        ("n5000_L100_max_residual", Strategy::MaxResidual),
        ("n5000_L100_exact", Strategy::Exact),
    ] {
        let p = FvsParams { max_fv: Some(100), strategy: s, ..Default::default() };
        g.bench_function(name, |b| b.iter(|| black_box(select(&k, &x, &p).unwrap())));
    }
    let x = points(50_000, 4, 2);
    for (name, s) in [
        ("n50000_L200_sampled64", Strategy::Sampled { candidates: 64, seed: 0 }),
        ("n50000_L200_max_residual", Strategy::MaxResidual),
    ] {
        let p = FvsParams { max_fv: Some(200), strategy: s, ..Default::default() };
        g.bench_function(name, |b| b.iter(|| black_box(select(&k, &x, &p).unwrap())));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
