//! Criterion benchmarks of the SVM solver: C-SVC on the green-red mixture with a Gaussian
//! and a compactly supported Gaussian kernel, ε-SVR on noisy sinc, and prediction. Peer comparisons
//! (LIBSVM, scikit-learn) are in bench/svm_compare.py.

use criterion::{Criterion, criterion_group, criterion_main};
use kern_core::learner::{Fit, Model};
use kern_core::{RealTargets, Samples};
use kern_models::svm::{SvcParams, SvrParams};
use kern_testkit::data::green_red_binary;
use kern_testkit::data::normal;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("svm");
    g.sample_size(10);
    let (x, y) = green_red_binary(3000, 1);
    for spec in ["gaussian:sigma=0.6", "cs-gaussian:sigma=0.6,c=1.5,nu=3"] {
        let p = SvcParams::new(spec.parse().unwrap());
        g.bench_function(format!("svc green-red n=3000 {spec}"), |b| b.iter(|| p.fit(&x, &y).unwrap()));
    }
    let m = SvcParams::new("gaussian:sigma=0.6".parse().unwrap()).fit(&x, &y).unwrap();
    let (xt, _) = green_red_binary(10_000, 2);
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
