//! Dense Gaussian Gram matrices at n = 5000, d ∈ {2, 18, 784}, beside faer's own GEMM on the
//! same shapes. Throughput is reported in flops (2·n²·d, the count `kern gram` uses), so criterion's
//! "elem/s" reads as FLOP/s. d = 784 uses the MNIST subset when `KERN_DATA_DIR` holds it (pixels / 255),
//! otherwise uniform [0, 1) data of the same shape (dense, so the GEMM path).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par};
use kern_core::{Gaussian, GramPath, Samples, gram, gram_with};
use std::hint::black_box;

/// `n` points uniform in `[0, 1)^d` (the shared test generator).
fn uniform(n: usize, d: usize, seed: u64) -> Samples {
    kern_testkit::data::uniform(n, d, 1.0, seed)
}

fn mnist(n: usize) -> Option<Samples> {
    let dir = std::path::PathBuf::from(std::env::var_os("KERN_DATA_DIR")?);
    let ds = kern_core::io::read_csv(&dir.join("mnist_5k.csv.gz"), &Default::default()).ok()?;
    let (v, _, d) = ds.samples.into_parts().expect("dense");
    Samples::from_flat(v.into_iter().take(n * d).map(|p| p / 255.0).collect(), n, d).ok()
}

fn bench(c: &mut Criterion) {
    let n = 5000;
    let mut g = c.benchmark_group("gram_gaussian_n5000");
    g.sample_size(10);
    for d in [2usize, 18, 784] {
        let x = match (d, mnist(n)) {
            (784, Some(x)) => x,
            (784, None) => {
                eprintln!("KERN_DATA_DIR has no mnist_5k.csv.gz: d = 784 runs on uniform (dense) data");
                uniform(n, d, 7)
            }
            _ => uniform(n, d, d as u64),
        };
        eprintln!("d = {d}: {} nonzeros", kern_core::sparse_dots::density(&x));
        let k = Gaussian::with_beta(if d == 784 { 0.02 } else { 0.5 }).unwrap();
        g.throughput(Throughput::Elements((2 * n * n * d) as u64));
        g.bench_function(format!("kern_d{d}"), |b| b.iter(|| black_box(gram(&k, &x).unwrap())));
        if d == 784 {
            // MNIST is 19 % nonzero, so `gram` takes the sparse-rows path; the dense GEMM path beside it.
            g.bench_function("kern_dense_gemm_path_d784", |b| {
                b.iter(|| black_box(gram_with(&k, &x, GramPath::Gemm).unwrap()))
            });
        }
        let xt = x.as_faer_t();
        let mut out = Mat::<f64>::zeros(n, n);
        g.bench_function(format!("faer_gemm_xxt_d{d}"), |b| {
            b.iter(|| {
                matmul(out.as_mut(), Accum::Replace, xt.transpose(), xt, 1.0, Par::rayon(0));
                black_box(&out);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
