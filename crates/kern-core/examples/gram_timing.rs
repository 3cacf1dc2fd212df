//! Times a dense Gaussian Gram matrix: `cargo run --release -p kern-core --example gram_timing -- N D [REPEATS]`.
//! Prints the median, min and max seconds and ns per matrix entry (a quick check beside the criterion
//! bench `cargo bench -p kern-core --bench gram`).

use kern_core::{Gaussian, Samples, gram};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse()).collect::<Result<_, _>>()?;
    let (n, d, reps) = (
        args.first().copied().unwrap_or(5000),
        args.get(1).copied().unwrap_or(2),
        args.get(2).copied().unwrap_or(5),
    );
    let mut s = 1u64;
    let v: Vec<f64> = (0..n * d)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect();
    let x = Samples::from_flat(v, n, d)?;
    let k = Gaussian::with_beta(0.5)?;
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let t0 = Instant::now();
            let g = gram(&k, &x).expect("gram");
            std::hint::black_box(&g);
            t0.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    let med = t[t.len() / 2];
    println!(
        "n={n} d={d}: median {med:.4} s (min {:.4}, max {:.4}), {:.2} ns/entry, {:.1} GFLOP/s (2n²d)",
        t[0],
        t[t.len() - 1],
        med * 1e9 / (n * n) as f64,
        2.0 * (n * n * d) as f64 / med / 1e9
    );
    Ok(())
}
