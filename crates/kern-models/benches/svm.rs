//! Criterion benchmarks of the SVM solver: C-SVC on the green-red mixture with a Gaussian
//! and a compactly supported Gaussian kernel, ε-SVR on noisy sinc, and prediction. Peer comparisons
//! (LIBSVM, scikit-learn) are in bench/svm_compare.py.

use criterion::{Criterion, criterion_group, criterion_main};
use kern_core::learner::{Fit, Model};
use kern_core::{BinaryTargets, RealTargets, Samples};
use kern_models::svm::{SvcParams, SvrParams};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

fn normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u: f64 = rng.random::<f64>().max(1e-300);
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * rng.random::<f64>()).cos()
}

/// Green-red mixture (CS-RBF paper, Example 1): 10 centres per class, points = centre + N(0, I/5).
fn green_red(n: usize, seed: u64) -> (Samples, BinaryTargets) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let centres: Vec<[f64; 2]> = (0..20)
        .map(|k| {
            if k < 10 {
                [1.0 + normal(&mut rng), normal(&mut rng)]
            } else {
                [normal(&mut rng), 1.0 + normal(&mut rng)]
            }
        })
        .collect();
    let s = 0.2f64.sqrt();
    let mut rows = Vec::new();
    let mut y = Vec::new();
    for i in 0..n {
        let c = centres[(i % 2) * 10 + rng.random_range(0..10)];
        rows.push([c[0] + s * normal(&mut rng), c[1] + s * normal(&mut rng)]);
        y.push(if i % 2 == 0 { 1.0 } else { -1.0 });
    }
    (Samples::from_rows(&rows).unwrap(), BinaryTargets::from_f64(&y).unwrap())
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("svm");
    g.sample_size(10);
    let (x, y) = green_red(3000, 1);
    for spec in ["gaussian:sigma=0.6", "cs-gaussian:sigma=0.6,c=1.5,nu=3"] {
        let p = SvcParams::new(spec.parse().unwrap());
        g.bench_function(format!("svc green-red n=3000 {spec}"), |b| b.iter(|| p.fit(&x, &y).unwrap()));
    }
    let m = SvcParams::new("gaussian:sigma=0.6".parse().unwrap()).fit(&x, &y).unwrap();
    let (xt, _) = green_red(10_000, 2);
    g.bench_function("svc predict 10000", |b| b.iter(|| m.predict(&xt).unwrap()));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let xs: Vec<[f64; 1]> = (0..2000).map(|_| [rng.random::<f64>() * 20.0 - 10.0]).collect();
    let z: Vec<f64> = xs
        .iter()
        .map(|v| if v[0] == 0.0 { 1.0 } else { v[0].sin() / v[0] } + 0.1 * normal(&mut rng))
        .collect();
    let (xs, z) = (Samples::from_rows(&xs).unwrap(), RealTargets::new(z).unwrap());
    let p = SvrParams::new("gaussian:gamma=0.5".parse().unwrap()).c(10.0).epsilon(0.1);
    g.bench_function("svr sinc n=2000", |b| b.iter(|| p.fit(&xs, &z).unwrap()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
