//! Per-pass cost of the vectorised criterion sums (minimum of 20 runs, one thread and all threads).
use std::time::Instant;

#[path = "data/mod.rs"]
mod data;
fn best(f: &(dyn Fn() -> f64 + Sync)) -> (f64, f64) {
    let mut b = f64::INFINITY;
    let mut v = 0.0;
    for _ in 0..20 {
        let t = Instant::now();
        v = f();
        b = b.min(t.elapsed().as_secs_f64());
    }
    (b * 1e3, v)
}
fn main() {
    let n: usize = 3_123_750;
    let p: Vec<f64> = (0..n).map(|i| ((i * 7919) % 10007) as f64 * 0.01).collect();
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    for (name, f) in [
        (
            "mean_similarity",
            &(|| kern_tune::bandwidth::mean_similarity(&p, 0.3)) as &(dyn Fn() -> f64 + Sync),
        ),
        ("variance_derivative", &|| kern_tune::bandwidth::variance_derivative(&p, 0.3)),
        ("std exp serial", &|| p.iter().map(|v| (-0.3 * v).exp()).sum::<f64>()),
    ] {
        let (t1, v) = one.install(|| best(f));
        let (t2, _) = best(f);
        println!(
            "{name}: 1 thread {t1:.2} ms, all threads {t2:.2} ms, {:.2} ns/pair/thread ({v})",
            t1 * 1e6 / n as f64
        );
    }
    use kern_tune::bandwidth::{Solver, max_variance, mean_to_half};
    let x = data::lcg_data(2500, 18);
    let p = kern_tune::pairs::pairwise_sq_dists(&x);
    for s in [Solver::Newton, Solver::Bisection] {
        let t = Instant::now();
        let r = mean_to_half(&p, s, 1e-12, 1e-12, 200).unwrap();
        println!(
            "mean_to_half {s:?}: {:.1} ms, {} passes, beta {:.12e}",
            t.elapsed().as_secs_f64() * 1e3,
            r.iterations,
            r.beta
        );
        let t = Instant::now();
        let r = max_variance(&p, s, 1e-12, 200).unwrap();
        println!(
            "max_variance {s:?}: {:.1} ms, {} passes, beta {:.12e}",
            t.elapsed().as_secs_f64() * 1e3,
            r.iterations,
            r.beta
        );
    }
}
