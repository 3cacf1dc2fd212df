//! Criterion benchmarks of the SMO column source on a sparse store (bag of words): full columns of
//! `SignedColumns` (inverted index) against the per-pair merged sparse products they replace, for a
//! linear and a Gaussian kernel. `cargo bench -p kernml-sparse --bench columns`.
//!
//! The data imitate `bench/bow_gen.py`: 5,000 documents over d = 1,000,000 words, Zipf word ranks
//! (exponent 1.1) scattered over the index range, log-normal lengths around 60 distinct words,
//! positive weights, rows L2-normalised.

use criterion::{Criterion, criterion_group, criterion_main};
use kern_core::{Gaussian, Linear, Samples};
use kern_sparse::kmatrix::SignedColumns;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, LogNormal, Zipf};
use std::hint::black_box;

const D: u64 = 1_000_000;

fn bag_of_words(n: usize, seed: u64) -> Samples {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let zipf = Zipf::new(D as f64, 1.1).unwrap();
    let len = LogNormal::new(4.1, 0.5).unwrap();
    let mut t = Vec::new();
    for i in 0..n {
        let m = (len.sample(&mut rng) as usize).clamp(1, 2000);
        // Rank r (1-based) sits at index (r · 2654435761) mod d: a bijection (the multiplier is prime
        // to 10⁶), so frequent words are spread over the range as in a hashed vocabulary.
        let mut words: Vec<u64> =
            (0..m).map(|_| (zipf.sample(&mut rng) as u64 * 2_654_435_761) % D).collect();
        words.sort_unstable();
        words.dedup();
        let vals: Vec<f64> = words.iter().map(|_| rng.random_range(0.1..1.0)).collect();
        let norm = vals.iter().map(|v| v * v).sum::<f64>().sqrt();
        t.extend(words.iter().zip(&vals).map(|(&w, &v)| (i, w as usize, v / norm)));
    }
    Samples::from_triplets(n, D as usize, &t).unwrap()
}

fn columns(cr: &mut Criterion) {
    let n = 5000;
    let x = bag_of_words(n, 1);
    let sign: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect();
    let pivots = [0usize, 17, 1234, 4999];
    let mut g = cr.benchmark_group("sparse_columns_bow_n5000");
    g.sample_size(20);
    let lin = Linear;
    let q = SignedColumns::new(&lin, &x, (0..n).collect(), sign.clone(), None);
    let mut out = vec![0.0; n];
    g.bench_function("linear_inverted_4_columns", |b| {
        b.iter(|| {
            for &j in &pivots {
                q.fill_column(j, 0, &mut out);
            }
            black_box(&out);
        })
    });
    g.bench_function("linear_merged_4_columns", |b| {
        b.iter(|| {
            for &j in &pivots {
                let xj = x.sample(j);
                for (p, o) in out.iter_mut().enumerate() {
                    *o = sign[p] * sign[j] * x.sample(p).dot(xj);
                }
            }
            black_box(&out);
        })
    });
    let gauss = Gaussian::with_beta(1.0).unwrap();
    let q = SignedColumns::new(&gauss, &x, (0..n).collect(), sign.clone(), None);
    g.bench_function("gaussian_inverted_4_columns", |b| {
        b.iter(|| {
            for &j in &pivots {
                q.fill_column(j, 0, &mut out);
            }
            black_box(&out);
        })
    });
    g.finish();
}

/// Dense Gaussian columns by norms (d = 20, twonorm-like): one thread, a column that stays in L2
/// (10,000 positions, 1.6 MB of samples) against one that streams from memory (100,000 positions).
fn dense_columns(cr: &mut Criterion) {
    let d = 20;
    let mut g = cr.benchmark_group("dense_columns_d20");
    g.sample_size(20);
    for n in [10_000usize, 100_000] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let rows: Vec<Vec<f64>> =
            (0..n).map(|_| (0..d).map(|_| rng.random_range(-2.0..2.0)).collect()).collect();
        let x = Samples::from_rows(&rows).unwrap();
        let sign: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect();
        let gauss = Gaussian::with_beta(0.05).unwrap();
        let q = SignedColumns::new(&gauss, &x, (0..n).collect(), sign, None);
        let mut out = vec![0.0; n];
        g.throughput(criterion::Throughput::Elements(n as u64));
        g.bench_function(format!("gaussian_seq_n{n}"), |b| {
            let mut j = 0;
            b.iter(|| {
                j = (j + 7919) % n;
                q.fill_column_seq(j, 0, &mut out);
                black_box(&out);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, columns, dense_columns);
criterion_main!(benches);
