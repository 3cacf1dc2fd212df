//! LS-SVM and kernel PCA benchmarks (criterion): LS-SVM at n = 5000 on the green-red mixture, σ = 0.6, dense
//! Gaussian vs compactly supported kernels with C at the (1 − τ) quantile of the pairwise distances
//! (τ = 0.9, 0.8, 0.7, 0.5; sparse path, and the same K_C on the dense path), and kernel PCA with
//! 8 components (Gaussian n = 5000 dense; compact n = 20000 sparse). Peer: bench/kpca_compare.py.

use criterion::{Criterion, criterion_group, criterion_main};
use kern_core::learner::Fit;
use kern_core::{KernelSpec, Samples, sq_dist};
use kern_models::kmat::PathChoice;
use kern_models::kpca::KernelPcaParams;
use kern_models::lssvm::LsSvmParams;
use kern_testkit::data::green_red_binary;
use std::hint::black_box;
use std::time::Duration;

/// The `q` quantile of all pairwise distances (exact).
fn quantile_distance(x: &Samples, q: f64) -> f64 {
    let n = x.n();
    let mut d = Vec::with_capacity(n * (n - 1) / 2);
    for i in 0..n {
        for j in 0..i {
            d.push(sq_dist(x.row(i), x.row(j)).sqrt());
        }
    }
    let k = ((q * d.len() as f64) as usize).min(d.len() - 1);
    *d.select_nth_unstable_by(k, f64::total_cmp).1
}

fn lssvm(c: &mut Criterion) {
    let (x, y) = green_red_binary(5000, 2004);
    let mut g = c.benchmark_group("lssvm_n5000");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(10));
    let gauss: KernelSpec = "gaussian:sigma=0.6".parse().unwrap();
    g.bench_function("gaussian_dense", |b| {
        b.iter(|| {
            black_box(LsSvmParams::new(gauss.clone()).gam(10.0).path(PathChoice::Dense).fit(&x, &y).unwrap())
        })
    });
    for tau in [0.9, 0.8, 0.7, 0.5] {
        let cq = quantile_distance(&x, 1.0 - tau);
        let k: KernelSpec = format!("cs-gaussian:sigma=0.6,c={cq},nu=3").parse().unwrap();
        g.bench_function(format!("cs_sparse_tau{tau}"), |b| {
            b.iter(|| {
                black_box(LsSvmParams::new(k.clone()).gam(10.0).path(PathChoice::Sparse).fit(&x, &y).unwrap())
            })
        });
        g.bench_function(format!("cs_dense_tau{tau}"), |b| {
            b.iter(|| {
                black_box(LsSvmParams::new(k.clone()).gam(10.0).path(PathChoice::Dense).fit(&x, &y).unwrap())
            })
        });
    }
    g.finish();
}

fn kpca(c: &mut Criterion) {
    let mut g = c.benchmark_group("kpca_k8");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(8));
    let (x, _) = green_red_binary(5000, 2004);
    let gauss: KernelSpec = "gaussian:sigma=0.6".parse().unwrap();
    g.bench_function("gaussian_dense_n5000", |b| {
        b.iter(|| black_box(KernelPcaParams::new(gauss.clone(), 8).fit(&x).unwrap()))
    });
    let (x, _) = green_red_binary(20_000, 2005);
    let k: KernelSpec = "cs-gaussian:sigma=0.6,c=0.1,nu=3".parse().unwrap();
    g.bench_function("cs_sparse_n20000", |b| {
        b.iter(|| black_box(KernelPcaParams::new(k.clone(), 8).path(PathChoice::Sparse).fit(&x).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, lssvm, kpca);
criterion_main!(benches);
