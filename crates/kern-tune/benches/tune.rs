//! Bandwidth performance: mean-to-half and maximum variance at n = 2500 with d = 784 (MNIST subset: the
//! even-numbered rows of `mnist_5k.csv.gz`, 250 per digit, raw pixels 0–255) and d = 18 (synthetic:
//! uniform [0,1)¹⁸ plus an offset of 1.5·(i mod 3) on every coordinate, from a fixed LCG that
//! `bench/bandwidth_numpy.py` reproduces), against one pass computing all pairwise distances; and
//! A(C), S(C) over 100 values of C at n = 2000 (d = 2, same generator), end to end.
//!
//! MNIST is read from `KERN_DATA_DIR` (default the workspace's `data/`); when it
//! is missing the d = 784 cases use synthetic data of the same shape and say so.

use criterion::{Criterion, criterion_group, criterion_main};
use kern_core::Gaussian;
use kern_tune::bandwidth::{BandwidthOptions, Method, Solver, max_variance, mean_to_half, select_bandwidth};
use kern_tune::pairs::pairwise_sq_dists;
use kern_tune::support::{SupportOptions, SupportProfile};
use std::hint::black_box;
use std::time::Duration;

mod data;
use data::{lcg_data, mnist_even_rows};

fn bench(c: &mut Criterion) {
    let mnist = mnist_even_rows().unwrap_or_else(|| {
        eprintln!("MNIST not found: d = 784 uses synthetic data");
        lcg_data(2500, 784)
    });
    let sets = [("d784", mnist), ("d18", lcg_data(2500, 18))];
    let mut g = c.benchmark_group("bandwidth_n2500");
    g.sample_size(10).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    for (name, x) in &sets {
        g.bench_function(format!("{name}/pairwise_distances"), |b| {
            b.iter(|| black_box(pairwise_sq_dists(x)))
        });
        for (mname, m) in [("mean_to_half", Method::MeanToHalf), ("max_variance", Method::MaxVariance)] {
            for (sname, s) in [("newton", Solver::Newton), ("bisection", Solver::Bisection)] {
                let opts = BandwidthOptions { solver: s, ..Default::default() };
                g.bench_function(format!("{name}/{mname}_{sname}"), |b| {
                    b.iter(|| black_box(select_bandwidth(x, None, m, &opts).unwrap()))
                });
            }
        }
        // The root finders alone, on precomputed distances.
        let p = pairwise_sq_dists(x);
        g.bench_function(format!("{name}/solve_only_mean_to_half_newton"), |b| {
            b.iter(|| black_box(mean_to_half(&p, Solver::Newton, 1e-12, 1e-12, 200).unwrap()))
        });
        g.bench_function(format!("{name}/solve_only_max_variance_newton"), |b| {
            b.iter(|| black_box(max_variance(&p, Solver::Newton, 1e-12, 200).unwrap()))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("alignment_sparsity_n2000");
    g.sample_size(10).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    let x = lcg_data(2000, 2);
    let k = Gaussian::with_sigma(0.6).unwrap();
    let cs: Vec<f64> = (0..100).map(|i| (-5.0 + 10.0 * i as f64 / 99.0).exp2()).collect();
    let opts = SupportOptions::default();
    g.bench_function("curve_100_c_end_to_end", |b| {
        b.iter(|| black_box(SupportProfile::new(&k, &x, &opts).unwrap().curve(&cs).unwrap()))
    });
    let prof = SupportProfile::new(&k, &x, &opts).unwrap();
    g.bench_function("curve_100_c_from_pairs", |b| b.iter(|| black_box(prof.curve(&cs).unwrap())));
    g.bench_function("exact_curve_all_distances", |b| b.iter(|| black_box(prof.exact_curve().unwrap())));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
