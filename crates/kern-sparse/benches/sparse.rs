//! Criterion benchmarks of kern-sparse: sparse Gram assembly at scale, RCM on green-red (Table 1), and
//! the LS-SVM solve of eq. 14 at n = 5000, sparse vs dense. `cargo bench -p kernml-sparse --bench sparse`.
//! (Side-by-side tables come from the `sparse_bench` target; see docs/benchmarks.md.)

mod green_red;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use green_red::{distance_quantile, green_red, uniform_square};
use kern_core::{CompactlySupported, Gaussian};
use kern_sparse::{CholeskyPlan, GramMatrix, LsSvmSolver, Ordering, order, sparse_gram};
use std::hint::black_box;
use std::time::Duration;

fn cs(c: f64) -> CompactlySupported<Gaussian> {
    CompactlySupported::new(Gaussian::with_sigma(0.6).unwrap(), c, 3.0).unwrap()
}

fn assembly(cr: &mut Criterion) {
    let mut g = cr.benchmark_group("assemble");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    let x = uniform_square(100_000, 100);
    let c = distance_quantile(&x, 0.001, 4_000_000, 3);
    let k = cs(c);
    g.bench_function("n100000_2d_sparsity99.9", |b| b.iter(|| black_box(sparse_gram(&k, &x).unwrap())));
    g.finish();
}

fn rcm_table1(cr: &mut Criterion) {
    let mut g = cr.benchmark_group("rcm_green_red_n2000");
    let (x, _) = green_red(2000, 2024);
    for s in [0.95, 0.75, 0.5] {
        let c = distance_quantile(&x, 1.0 - s, usize::MAX, 0);
        let m = sparse_gram(&cs(c), &x).unwrap().into_matrix();
        g.bench_with_input(BenchmarkId::from_parameter(s), &m, |b, m| {
            b.iter(|| order(m, Ordering::Rcm).unwrap())
        });
    }
    g.finish();
}

fn lssvm(cr: &mut Criterion) {
    let mut g = cr.benchmark_group("lssvm_n5000");
    g.sample_size(10).measurement_time(Duration::from_secs(15));
    let (x, y) = green_red(5000, 5000);
    for tau in [0.9, 0.8, 0.7, 0.5] {
        let c = distance_quantile(&x, 1.0 - tau, 2_000_000, 7);
        let gram = GramMatrix::Sparse(sparse_gram(&cs(c), &x).unwrap().into_matrix());
        g.bench_with_input(BenchmarkId::new("sparse_analyze_factor_solve", tau), &gram, |b, gram| {
            b.iter(|| {
                let mut plan = CholeskyPlan::new(gram.clone(), Ordering::Amd).unwrap();
                LsSvmSolver::new(&mut plan, 1.0).unwrap().solve(&y).unwrap()
            })
        });
        let mut plan = CholeskyPlan::new(gram, Ordering::Amd).unwrap();
        g.bench_function(BenchmarkId::new("sparse_factor_solve_reused_analysis", tau), |b| {
            b.iter(|| LsSvmSolver::new(&mut plan, 1.0).unwrap().solve(&y).unwrap())
        });
    }
    let mut dense =
        CholeskyPlan::dense(kern_core::gram(&Gaussian::with_sigma(0.6).unwrap(), &x).unwrap()).unwrap();
    g.bench_function("dense_gaussian_factor_solve", |b| {
        b.iter(|| LsSvmSolver::new(&mut dense, 1.0).unwrap().solve(&y).unwrap())
    });
    g.finish();
}

criterion_group!(benches, assembly, rcm_table1, lssvm);
criterion_main!(benches);
