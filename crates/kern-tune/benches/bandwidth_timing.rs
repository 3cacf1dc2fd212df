//! Times the bandwidth heuristics outside criterion (median, min, max of R runs):
//! `cargo bench -p kernml-tune --bench bandwidth_timing -- [R]`.
//! Data as in `benches/tune.rs` and `bench/bandwidth_numpy.py`: the even rows of `mnist_5k.csv.gz` from
//! `KERN_DATA_DIR` (2500 × 784, raw pixels) and a synthetic 2500 × 18 set.

use kern_tune::bandwidth::{BandwidthOptions, Method, max_variance, mean_to_half, select_bandwidth};
use kern_tune::pairs::pairwise_sq_dists;
use std::time::Instant;

#[path = "data/mod.rs"]
mod data;

fn stats(mut t: Vec<f64>) -> String {
    t.sort_by(f64::total_cmp);
    format!("median {:.4} s (min {:.4}, max {:.4})", t[t.len() / 2], t[0], t[t.len() - 1])
}

fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> (String, T) {
    let mut ts = Vec::with_capacity(reps);
    let mut last = None;
    for _ in 0..reps {
        let t0 = Instant::now();
        last = Some(std::hint::black_box(f()));
        ts.push(t0.elapsed().as_secs_f64());
    }
    (stats(ts), last.expect("at least one run"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let reps: usize = std::env::args().filter(|a| a != "--bench").nth(1).map_or(Ok(7), |a| a.parse())?;
    let mnist = data::mnist_even_rows().ok_or("mnist_5k.csv.gz not found: set KERN_DATA_DIR")?;
    let sets = [("d784", mnist), ("d18", data::lcg_data(2500, 18))];
    for (name, x) in &sets {
        let (t, p) = time(reps, || pairwise_sq_dists(x));
        println!("{name}/pairwise_distances: {t}");
        let o = BandwidthOptions::default();
        let (t, r) = time(reps, || mean_to_half(&p, o.solver, o.mean_tol, o.beta_rtol, o.max_iter));
        println!("{name}/solve_only_mean_to_half: {t}, {} passes", r?.iterations);
        let (t, r) = time(reps, || max_variance(&p, o.solver, o.beta_rtol, o.max_iter));
        println!("{name}/solve_only_max_variance: {t}, {} passes", r?.iterations);
        for m in [Method::MeanToHalf, Method::MaxVariance] {
            let (t, r) = time(reps, || select_bandwidth(x, None, m, &BandwidthOptions::default()));
            println!("{name}/{}: {t}, beta {:.6e}", m.name(), r?.beta);
        }
    }
    Ok(())
}
