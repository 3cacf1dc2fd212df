//! Scale runs of LS-SVM and kernel PCA, measured with `/usr/bin/time -v` (peak memory) on the seeded green-red
//! mixture of the CS-RBF paper (10 centres per class from N((1,0), I) / N((0,1), I); each point a random
//! centre of its class plus N(0, I/5)).
//!
//! ```text
//! cargo bench -p kernml-models --bench lssvm_kpca_scale -- lssvm 50000 0.995 [lambda]
//! cargo bench -p kernml-models --bench lssvm_kpca_scale -- kpca 100000 0.999 8
//! ```
//!
//! The support radius C is the `(1 − τ)` quantile of the pairwise distances, estimated from 2,000,000
//! seeded random pairs (the paper's third tuning procedure, eq. 10); the sparsity actually reached is
//! reported from the assembled `K_C`. One JSON line with the phase timings is printed.

#[allow(unused_imports)]
use kern_core::Kernel;
use kern_core::learner::Fit;
use kern_core::{KernelSpec, Samples, sq_dist};
use kern_models::kmat::{PathChoice, SolvePath, build_gram};
use kern_models::kpca::KernelPcaParams;
use kern_models::lssvm::LsSvmParams;
use kern_testkit::data::green_red_binary;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::time::Instant;

fn quantile_distance(x: &Samples, q: f64, pairs: usize, seed: u64) -> f64 {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let n = x.n();
    let mut d: Vec<f64> = (0..pairs)
        .map(|_| {
            let i = rng.random_range(0..n);
            let mut j = rng.random_range(0..n - 1);
            if j >= i {
                j += 1;
            }
            sq_dist(x.row(i), x.row(j)).sqrt()
        })
        .collect();
    let k = ((q * pairs as f64) as usize).min(pairs - 1);
    *d.select_nth_unstable_by(k, f64::total_cmp).1
}

fn main() {
    let args: Vec<String> = std::env::args().filter(|a| a != "--bench").collect();
    let what = args.get(1).map(String::as_str).unwrap_or("lssvm");
    let n: usize = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(50_000);
    let tau: f64 = args.get(3).and_then(|v| v.parse().ok()).unwrap_or(0.995);
    // Training and test points share the mixture's centres: one draw, split.
    let (all, all_y) = green_red_binary(n + 10_000, 2004);
    let x = all.select(&(0..n).collect::<Vec<_>>()).unwrap();
    let y = all_y.select(&(0..n).collect::<Vec<_>>()).unwrap();
    let xt = all.select(&(n..n + 10_000).collect::<Vec<_>>()).unwrap();
    let yt = all_y.select(&(n..n + 10_000).collect::<Vec<_>>()).unwrap();
    let c = quantile_distance(&x, 1.0 - tau, 2_000_000, 7);
    let kernel: KernelSpec = format!("cs-gaussian:sigma=0.6,c={c},nu=3").parse().unwrap();
    let t0 = Instant::now();
    let gram = build_gram(&kernel, &x, SolvePath::Sparse).unwrap();
    let gram_seconds = t0.elapsed().as_secs_f64();
    let kern_sparse::GramMatrix::Sparse(m) = &gram else { unreachable!() };
    let sparsity = 1.0 - m.nnz() as f64 / (n as f64 * n as f64);
    if what == "kpca" {
        drop(gram);
        let k: usize = args.get(4).and_then(|v| v.parse().ok()).unwrap_or(8);
        let mut params = KernelPcaParams::new(kernel.clone(), k).path(PathChoice::Sparse);
        if let Some(m) = args.get(5).and_then(|v| v.parse().ok()) {
            params = params.basis(m);
        }
        let t = Instant::now();
        let model = params.fit(&x).unwrap();
        let fit_seconds = t.elapsed().as_secs_f64();
        let info = model.solver_info();
        println!(
            "{{\"what\":\"kpca\",\"n\":{n},\"tau\":{tau},\"c\":{c},\"sparsity\":{sparsity},\"gram_seconds_alone\":{gram_seconds},\
             \"fit_seconds\":{fit_seconds},\"matvecs\":{},\"restarts\":{},\"residual\":{},\"eigenvalues\":{:?}}}",
            info.matvecs,
            info.restarts,
            info.residual,
            model.eigenvalues()
        );
        return;
    }
    // Phases of the sparse Cholesky (kern-sparse): ordering + symbolic analysis, then numeric.
    let t = Instant::now();
    let mut plan = kern_sparse::CholeskyPlan::new(gram, kern_sparse::Ordering::Amd).unwrap();
    let plan_seconds = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let chol = plan.factor(0.1).unwrap();
    let numeric_seconds = t.elapsed().as_secs_f64();
    let factor_nnz = chol.factor_nnz();
    drop((chol, plan));
    eprintln!(
        "plan (AMD + symbolic) {plan_seconds:.3} s, numeric {numeric_seconds:.3} s, nnz(L) {factor_nnz}"
    );
    match what {
        "lssvm" => {
            let lambda: f64 = args.get(4).and_then(|v| v.parse().ok()).unwrap_or(10.0);
            let t = Instant::now();
            let model =
                LsSvmParams::new(kernel.clone()).gam(lambda).path(PathChoice::Sparse).fit(&x, &y).unwrap();
            let fit_seconds = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let pred = model.predict(&xt).unwrap();
            let predict_seconds = t.elapsed().as_secs_f64();
            let err = pred.iter().zip(yt.y()).filter(|(a, b)| a != b).count() as f64 / 10_000.0;
            println!(
                "{{\"what\":\"lssvm\",\"n\":{n},\"tau\":{tau},\"c\":{c},\"sparsity\":{sparsity},\"gram_seconds_alone\":{gram_seconds},\
                 \"fit_seconds\":{fit_seconds},\"factor_seconds\":{},\"plan_seconds\":{plan_seconds},\"numeric_seconds\":{numeric_seconds},\"factor_nnz\":{factor_nnz},\
                 \"predict_10k_seconds\":{predict_seconds},\"test_error\":{err}}}",
                model.factor_seconds()
            );
        }
        other => panic!("unknown run {other:?}; use lssvm or kpca"),
    }
}
