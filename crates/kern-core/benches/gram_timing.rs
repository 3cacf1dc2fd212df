//! Times a dense Gaussian Gram matrix:
//! `cargo bench -p kernml-core --bench gram_timing -- N D [REPEATS] [auto|gemm|sparse] [FILE]`.
//! Without FILE the data are uniform on [0, 1)^D; with FILE (CSV or LIBSVM, label in the last CSV column)
//! its first N rows are used, divided by 255 when D = 784 (MNIST). Prints the median, min and max seconds
//! and ns per matrix entry (a quick check beside the criterion bench `cargo bench -p kernml-core --bench gram`).

use kern_core::io::{CsvOptions, LabelColumn, read_data};
use kern_core::{Gaussian, GramPath, Samples, gram_with};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let num = |i: usize, default: usize| args.get(i).map_or(Ok(default), |a| a.parse::<usize>());
    let (n, d, reps) = (num(0, 5000)?, num(1, 2)?, num(2, 5)?);
    let path = match args.get(3).map(String::as_str) {
        None | Some("auto") => GramPath::Auto,
        Some("gemm") => GramPath::Gemm,
        Some("sparse") => GramPath::Sparse,
        Some(p) => return Err(format!("unknown path {p}").into()),
    };
    let x = match args.get(4) {
        Some(file) => {
            let ds =
                read_data(file.as_ref(), &CsvOptions { label: LabelColumn::Last, ..Default::default() })?;
            let scale = if ds.samples.d() == 784 { 255.0 } else { 1.0 };
            let rows = n.min(ds.samples.n());
            let v: Vec<f64> =
                ds.samples.as_slice()[..rows * ds.samples.d()].iter().map(|v| v / scale).collect();
            Samples::from_flat(v, rows, ds.samples.d())?
        }
        None => {
            let mut s = 1u64;
            let v: Vec<f64> = (0..n * d)
                .map(|_| {
                    s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (s >> 11) as f64 / (1u64 << 53) as f64
                })
                .collect();
            Samples::from_flat(v, n, d)?
        }
    };
    let (n, d) = (x.n(), x.d());
    let k = Gaussian::with_beta(if d == 784 { 0.02 } else { 0.5 })?;
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let t0 = Instant::now();
            let g = gram_with(&k, &x, path).expect("gram");
            std::hint::black_box(&g);
            t0.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    let med = t[t.len() / 2];
    println!(
        "n={n} d={d} {path:?} (density {:.3}): median {med:.4} s (min {:.4}, max {:.4}), {:.2} ns/entry",
        kern_core::sparse_dots::density(&x),
        t[0],
        t[t.len() - 1],
        med * 1e9 / (n * n) as f64,
    );
    Ok(())
}
