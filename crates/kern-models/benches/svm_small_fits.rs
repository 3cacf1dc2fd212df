//! Per-fit time of small C-SVC problems in one process: the cost a grid search pays once per
//! (cell, fold). Fits the same problem `REPS` times in a loop and prints one JSON line with the
//! median, minimum and maximum per-fit time and the first fit's objective, `ρ` and support vectors
//! (written with all digits, so that two builds can be compared bit for bit).
//!
//! ```text
//! cargo bench -p kernml-models --bench svm_small_fits -- FILE GAMMA C [REPS] [CACHE_MB]
//! ```
//!
//! `FILE` is a LIBSVM file with two labels (`bench/svm_scale.py --only keel-inproc` writes the KEEL
//! ones); the kernel is `exp(−γ‖x − y‖²)`.

use kern_core::io::read_libsvm;
use kern_core::learner::Fit;
use kern_models::svm::{SolverParams, SvcParams};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    if args.len() < 3 {
        return Err("usage: svm_small_fits FILE GAMMA C [REPS] [CACHE_MB]".into());
    }
    let ds = read_libsvm(std::path::Path::new(&args[0]), None)?;
    let y = ds.binary()?;
    let gamma: f64 = args[1].parse()?;
    let c: f64 = args[2].parse()?;
    let reps: usize = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(200);
    let cache_mb: f64 = args.get(4).map(|s| s.parse()).transpose()?.unwrap_or(100.0);
    let solver = SolverParams { cache_mb, ..SolverParams::default() };
    let params = SvcParams::new(format!("gaussian:gamma={gamma}").parse()?).c(c).solver(solver);
    // One fit outside the loop (the thread pool and the allocator's first pages): a fresh process's
    // first fit, as `kern train` runs it.
    let t = Instant::now();
    let first = params.fit(&ds.samples, &y)?;
    let first_us = t.elapsed().as_secs_f64() * 1e6;
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        let m = params.fit(&ds.samples, &y)?;
        times.push(t.elapsed().as_secs_f64());
        std::hint::black_box(m);
    }
    times.sort_by(f64::total_cmp);
    let s = &first.stats()[0];
    println!(
        "{{\"file\":{:?},\"n\":{},\"d\":{},\"reps\":{reps},\"first_us\":{first_us:.1},\"median_us\":{:.1},\"min_us\":{:.1},\"max_us\":{:.1},\
         \"objective\":\"{:?}\",\"rho\":\"{:?}\",\"n_sv\":{},\"iterations\":{},\"plan\":{:?}}}",
        args[0],
        ds.samples.n(),
        ds.samples.d(),
        times[reps / 2] * 1e6,
        times[0] * 1e6,
        times[reps - 1] * 1e6,
        s.objective,
        s.rho,
        s.n_sv,
        s.iterations,
        s.plan.summary()
    );
    Ok(())
}
