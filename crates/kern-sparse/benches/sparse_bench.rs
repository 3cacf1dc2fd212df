//! Sparse Gram, ordering and LS-SVM measurements (current figures in docs/benchmarks.md). Run in release:
//!
//! ```text
//! cargo bench -p kernml-sparse --bench sparse_bench -- table1
//! cargo bench -p kernml-sparse --bench sparse_bench -- lssvm5000 [EXPORT_DIR]
//! cargo bench -p kernml-sparse --bench sparse_bench -- assemble100k
//! /usr/bin/time -v target/release/examples/sparse_bench lssvm50k
//! ```
//! Each prints one JSON object per line; timings are the median and min/max over repeats.

#[path = "green_red.rs"]
mod green_red;

use green_red::{distance_quantile, green_red, uniform_square};
use kern_core::{CompactlySupported, Gaussian, Samples};
use kern_sparse::{
    CholeskyPlan, GramMatrix, LsSvmSolver, Ordering, bandwidth, bandwidth_permuted, order, sparse_gram,
};
use serde_json::json;
use std::io::Write;
use std::time::Instant;

fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let v = f();
    (v, t.elapsed().as_secs_f64())
}

/// (median, min, max).
fn summary(mut v: Vec<f64>) -> serde_json::Value {
    v.sort_by(f64::total_cmp);
    json!({ "median": v[v.len() / 2], "min": v[0], "max": v[v.len() - 1], "reps": v.len() })
}

fn cs(sigma: f64, c: f64) -> CompactlySupported<Gaussian> {
    CompactlySupported::new(Gaussian::with_sigma(sigma).unwrap(), c, 3.0).unwrap()
}

/// Table 1: bandwidth after RCM on green-red n = 2000, σ = 0.6, at sparsity 95 / 75 / 50 / 0 %.
fn table1() {
    let (x, _) = green_red(2000, 2024);
    for s in [0.95, 0.75, 0.50, 0.0] {
        let c = if s == 0.0 {
            distance_quantile(&x, 1.0, usize::MAX, 0) * (1.0 + 1e-9) + 1e-12
        } else {
            distance_quantile(&x, 1.0 - s, usize::MAX, 0)
        };
        let g = sparse_gram(&cs(0.6, c), &x).unwrap();
        let before = bandwidth(g.matrix());
        let mut rcm_times = Vec::new();
        let mut p = None;
        for _ in 0..5 {
            let (perm, t) = time(|| order(g.matrix(), Ordering::Rcm).unwrap());
            rcm_times.push(t);
            p = Some(perm);
        }
        let after = bandwidth_permuted(g.matrix(), p.as_ref().unwrap()).unwrap();
        let amd = order(g.matrix(), Ordering::Amd).unwrap();
        let amd_bw = bandwidth_permuted(g.matrix(), &amd).unwrap();
        let fill = |o| CholeskyPlan::sparse(g.matrix(), o).unwrap().factor_nnz();
        println!(
            "{}",
            json!({
                "experiment": "table1", "n": 2000, "target_sparsity": s, "c": c,
                "sparsity": g.sparsity(), "nnz": g.nnz(),
                "bandwidth_before_one_sided": before.one_sided, "bandwidth_after_one_sided": after.one_sided,
                "bw_before": before.bw, "bw_after": after.bw,
                "profile_before": before.profile, "profile_after": after.profile,
                "amd_one_sided_bandwidth": amd_bw.one_sided,
                "factor_nnz_rcm": fill(Ordering::Rcm), "factor_nnz_amd": fill(Ordering::Amd),
                "rcm_seconds": summary(rcm_times),
            })
        );
    }
}

/// Writes the lower triangle of `K + shift I` as a symmetric Matrix Market file.
fn export(path: &std::path::Path, a: &nalgebra_sparse::CscMatrix<f64>, shift: f64) {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let n = a.ncols();
    let lower: usize = (0..n).map(|j| a.col(j).row_indices().iter().filter(|&&i| i >= j).count()).sum();
    writeln!(w, "%%MatrixMarket matrix coordinate real symmetric\n{n} {n} {lower}").unwrap();
    for j in 0..n {
        let col = a.col(j);
        for (&i, &v) in col.row_indices().iter().zip(col.values()) {
            if i >= j {
                let v = if i == j { v + shift } else { v };
                writeln!(w, "{} {} {:e}", i + 1, j + 1, v).unwrap();
            }
        }
    }
}

/// LS-SVM (eq. 14) at n = 5000, τ = 0.9, 0.8, 0.7, 0.5: sparse vs dense.
fn lssvm5000(export_dir: Option<String>) {
    let n = 5000;
    let (x, y) = green_red(n, 5000);
    let lambda = 1.0;
    let reps = 5;
    for tau in [0.9, 0.8, 0.7, 0.5] {
        let c = distance_quantile(&x, 1.0 - tau, 2_000_000, 7);
        let k = cs(0.6, c);
        let (mut asm, mut plan_t, mut fac, mut sol) = (vec![], vec![], vec![], vec![]);
        let mut last = None;
        for _ in 0..reps {
            let (g, t) = time(|| sparse_gram(&k, &x).unwrap());
            asm.push(t);
            let (mut plan, t) =
                time(|| CholeskyPlan::new(GramMatrix::Sparse(g.matrix().clone()), Ordering::Amd).unwrap());
            plan_t.push(t);
            let (chol, t) = time(|| plan.factor(1.0 / lambda).unwrap());
            fac.push(t);
            let (s, t) = time(|| LsSvmSolver::from_cholesky(chol).unwrap().solve(&y).unwrap());
            sol.push(t);
            last = Some((g, plan, s));
        }
        let (g, plan, s) = last.unwrap();
        if let Some(dir) = &export_dir {
            std::fs::create_dir_all(dir).unwrap();
            export(
                &std::path::Path::new(dir).join(format!("lssvm5000_tau{tau}.mtx")),
                g.matrix(),
                1.0 / lambda,
            );
        }
        let total: Vec<f64> = (0..reps).map(|i| asm[i] + plan_t[i] + fac[i] + sol[i]).collect();
        let fac_only: Vec<f64> = (0..reps).map(|i| plan_t[i] + fac[i]).collect();
        println!(
            "{}",
            json!({
                "experiment": "lssvm5000_sparse", "tau": tau, "c": c, "sparsity": g.sparsity(), "nnz": g.nnz(),
                "factor_nnz": plan.factor_nnz(), "b": s.b,
                "assemble_seconds": summary(asm), "analyze_seconds": summary(plan_t),
                "numeric_factor_seconds": summary(fac), "solve_seconds": summary(sol),
                "analyze_plus_factor_seconds": summary(fac_only), "total_seconds": summary(total),
            })
        );
    }
    // Dense Gaussian path.
    let k = Gaussian::with_sigma(0.6).unwrap();
    let (mut gram_t, mut fac, mut sol) = (vec![], vec![], vec![]);
    let mut b = 0.0;
    for _ in 0..3 {
        let (g, t) = time(|| kern_core::gram(&k, &x).unwrap());
        gram_t.push(t);
        let mut plan = CholeskyPlan::dense(g).unwrap();
        let (chol, t) = time(|| plan.factor(1.0 / lambda).unwrap());
        fac.push(t);
        let (s, t) = time(|| LsSvmSolver::from_cholesky(chol).unwrap().solve(&y).unwrap());
        sol.push(t);
        b = s.b;
    }
    let total: Vec<f64> = (0..3).map(|i| gram_t[i] + fac[i] + sol[i]).collect();
    println!(
        "{}",
        json!({
            "experiment": "lssvm5000_dense_gaussian", "b": b,
            "gram_seconds": summary(gram_t), "factor_seconds": summary(fac), "solve_seconds": summary(sol),
            "total_seconds": summary(total),
        })
    );
}

/// n = 100,000 uniform 2-D points at 99.9 % sparsity: assembly time.
fn assemble100k() {
    let n = 100_000;
    let x = uniform_square(n, 100);
    let c = distance_quantile(&x, 0.001, 4_000_000, 3);
    let k = cs(0.6, c);
    let mut ts = Vec::new();
    let mut last = None;
    for _ in 0..7 {
        let (g, t) = time(|| sparse_gram(&k, &x).unwrap());
        ts.push(t);
        last = Some(g);
    }
    let g = last.unwrap();
    let s = g.stats();
    println!(
        "{}",
        json!({
            "experiment": "assemble100k", "n": n, "c": c, "sparsity": s.sparsity, "nnz": s.nnz,
            "bytes_csc": s.bytes_csc, "bytes_dense": s.bytes_dense, "threads": rayon::current_num_threads(),
            "assemble_seconds": summary(ts),
        })
    );
}

/// LS-SVM at n = 50,000 green-red, sparsity ≥ 99.5 %: the whole pipeline, once (run under
/// `/usr/bin/time -v` for the peak memory).
fn lssvm50k() {
    let n = 50_000;
    let (x, y): (Samples, Vec<f64>) = green_red(n, 50_000);
    let c = distance_quantile(&x, 0.004, 4_000_000, 5);
    let k = cs(0.6, c);
    let t0 = Instant::now();
    let (g, t_asm) = time(|| sparse_gram(&k, &x).unwrap());
    let sparsity = g.sparsity();
    let nnz = g.nnz();
    let (mut plan, t_plan) =
        time(|| CholeskyPlan::new(GramMatrix::Sparse(g.into_matrix()), Ordering::Amd).unwrap());
    let (chol, t_fac) = time(|| plan.factor(1.0).unwrap());
    let (s, t_sol) = time(|| LsSvmSolver::from_cholesky(chol).unwrap().solve(&y).unwrap());
    let total = t0.elapsed().as_secs_f64();
    println!(
        "{}",
        json!({
            "experiment": "lssvm50k", "n": n, "c": c, "sparsity": sparsity, "nnz": nnz,
            "factor_nnz": plan.factor_nnz(), "b": s.b,
            "assemble_seconds": t_asm, "analyze_seconds": t_plan, "numeric_factor_seconds": t_fac,
            "solve_seconds": t_sol, "total_seconds": total,
        })
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    match args.first().map(String::as_str) {
        Some("table1") => table1(),
        Some("lssvm5000") => lssvm5000(args.get(1).cloned()),
        Some("assemble100k") => assemble100k(),
        Some("lssvm50k") => lssvm50k(),
        _ => {
            eprintln!("usage: sparse_bench table1 | lssvm5000 [EXPORT_DIR] | assemble100k | lssvm50k");
            std::process::exit(2);
        }
    }
}
