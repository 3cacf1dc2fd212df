//! The distributed compact-kernel PCG fit against kern-models' one-process iterative fit (P = 1 here;
//! P = 2 and 4 under mpirun in the `mpi_check` example).

use crate::common::{lattice, scratch, write};

use kern_core::io::{CsvOptions, read_data};
use kern_core::{KernelSpec, Samples, Targets};
use kern_dist::SingleProcess;
use kern_dist::compact::{CompactParams, Dual, fit_compact, model_bytes};
use kern_dist::rows::read_part;
use kern_models::kern_sparse::{Pcg, PcgOptions, SolveOptions, Solver, sparse_gram};
use kern_models::kmat::PathChoice;
use kern_models::krr::{KernelRidge, KernelRidgeParams};
use kern_models::lssvm::{LsSvm, LsSvmParams};
use kern_models::persist;

const TOL: f64 = 1e-12;

fn opts() -> PcgOptions {
    PcgOptions { tol: TOL, ..PcgOptions::default() }
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

fn diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt()
}

/// `κ = (s + ρ) / s` of `K_C + sI`, with `ρ` the largest column sum of `|K_C|` (a bound on `‖K_C‖₂`
/// for a symmetric matrix).
fn kappa(kernel: &KernelSpec, x: &Samples, shift: f64) -> f64 {
    let k = sparse_gram(kernel, x).unwrap().into_matrix();
    let rho =
        (0..k.ncols()).map(|j| k.col(j).values().iter().map(|v| v.abs()).sum::<f64>()).fold(0.0, f64::max);
    (shift + rho) / shift
}

/// The error bound of one conjugate-gradient solve `Hx = b` stopped at the true relative residual
/// `tol` (asserted converged): `‖x̂ − x*‖ ≤ ‖H⁻¹‖·tol·‖b‖ ≤ κ·tol·‖x*‖` since `‖b‖ ≤ ‖H‖‖x*‖`; two
/// such solves differ by at most `2κ·tol·‖x*‖ ≤ 2κ·tol·‖x̂‖/(1 − κ·tol)`.
fn solve_gap(kappa: f64, xnorm: f64) -> f64 {
    2.0 * kappa * TOL * xnorm / (1.0 - kappa * TOL)
}

#[test]
fn one_rank_equals_the_one_process_iterative_kernel_ridge() {
    let dir = scratch("one_rank_equals_the_one_process_iterative_kernel_ridge");
    let path =
        write(&dir, "krr.svm", lattice(300, |i, x, y| format!("{:.6}", (x * y).sin() + 0.01 * i as f64)));
    let kernel: KernelSpec = "cs-gaussian:sigma=0.5,c=0.8".parse().unwrap();
    let lambda = 1.0;
    let ds = read_data(&path, &CsvOptions::default()).unwrap();
    let solver = SolveOptions { solver: Solver::Iterative, pcg: opts(), ..SolveOptions::default() };
    let one = KernelRidgeParams::new(kernel.clone())
        .lambda(lambda)
        .path(PathChoice::Sparse)
        .solver(solver)
        .fit_targets(&ds.samples, &Targets::Real(ds.real().unwrap()))
        .unwrap();
    let part = read_part(&SingleProcess, &path, &Default::default()).unwrap();
    let params = CompactParams { pcg: opts(), ..CompactParams::new(Dual::Krr, kernel.clone(), lambda) };
    let fit = fit_compact(&SingleProcess, &part, &params, true).unwrap();
    assert!(fit.report.converged && one.pcg_report().unwrap().converged);
    let bytes = model_bytes(&SingleProcess, &part, &fit, &params).unwrap().unwrap();
    let again = model_bytes(
        &SingleProcess,
        &part,
        &fit_compact(&SingleProcess, &part, &params, true).unwrap(),
        &params,
    );
    assert_eq!(again.unwrap().unwrap(), bytes, "the same run twice gives the same bytes");
    let dist: KernelRidge = persist::from_bytes(&bytes, "<dist>").unwrap();
    assert_eq!(dist.training_samples(), &ds.samples);
    let k = kappa(&kernel, &ds.samples, lambda);
    // α solves (K_C + λI)α = y directly: the bound of two solves.
    let bound = solve_gap(k, norm(one.alpha(0)));
    assert!(bound <= 1e-10 * norm(one.alpha(0)), "the setting must make the bound meaningful (κ = {k})");
    let d = diff(dist.alpha(0), one.alpha(0));
    assert!(d <= bound, "‖Δα‖ = {d:e} > {bound:e}");
    assert_eq!(dist.predict(&ds.samples).unwrap().len(), 300);
}

/// LS-SVM (binary and three classes): `ν = H⁻¹1` and `η_t = H⁻¹y_t` are each within the bound of two
/// solves; `b_t = 1ᵀη_t / 1ᵀν` and `α_t = η_t − b_t ν` then differ by at most (Cauchy–Schwarz,
/// `|1ᵀe| ≤ √n‖e‖`) `|Δb| ≤ √n(e_η + |b| e_ν) / (1ᵀν − √n e_ν)` and
/// `‖Δα‖ ≤ e_η + |Δb|‖ν‖ + |b| e_ν`, plus the rounding of the one-process plain sums
/// (`n·ε·Σ|terms|`), all computed from the one-process solution.
#[test]
fn one_rank_equals_the_one_process_iterative_lssvm() {
    let dir = scratch("one_rank_equals_the_one_process_iterative_lssvm");
    let binary = |_: usize, x: f64, y: f64| {
        if (x - 2.0).powi(2) + (y - 2.0).powi(2) < 1.5 { "1" } else { "-1" }.to_string()
    };
    let three = |_: usize, x: f64, y: f64| format!("{}", ((x + y) as usize) % 3);
    for (name, text) in [("binary", lattice(300, binary)), ("three", lattice(300, three))] {
        let path = write(&dir, &format!("lssvm-{name}.svm"), &text);
        let kernel: KernelSpec = "cs-gaussian:sigma=0.5,c=0.8".parse().unwrap();
        let lambda = 1.0;
        let ds = read_data(&path, &CsvOptions::default()).unwrap();
        let classes = ds.classes().unwrap();
        let y = if classes.n_classes() == 2 {
            Targets::Binary(ds.binary().unwrap())
        } else {
            Targets::Classes(classes)
        };
        let solver = SolveOptions { solver: Solver::Iterative, pcg: opts(), ..SolveOptions::default() };
        let one = LsSvmParams::new(kernel.clone())
            .lambda(lambda)
            .path(PathChoice::Sparse)
            .solver(solver)
            .fit_targets(&ds.samples, &y)
            .unwrap();
        let part = read_part(&SingleProcess, &path, &Default::default()).unwrap();
        let params = CompactParams { pcg: opts(), ..CompactParams::new(Dual::LsSvm, kernel.clone(), lambda) };
        let fit = fit_compact(&SingleProcess, &part, &params, false).unwrap();
        assert!(fit.report.converged && one.pcg_report().unwrap().converged, "{name}");
        let bytes = model_bytes(&SingleProcess, &part, &fit, &params).unwrap().unwrap();
        let dist: LsSvm = persist::from_bytes(&bytes, "<dist>").unwrap();
        assert_eq!(dist.task(), one.task(), "{name}");
        assert_eq!(dist.outputs(), if name == "binary" { 1 } else { 3 });
        // ν of the one-process solve (what LsSvmIterative computes).
        let shift = lambda;
        let k = kappa(&kernel, &ds.samples, shift);
        let gram = sparse_gram(&kernel, &ds.samples).unwrap().into_matrix();
        let (nu, _) = Pcg::new(gram, shift, &opts()).unwrap().solve(&vec![1.0; 300]).unwrap();
        let sn = (300f64).sqrt();
        let eps = f64::EPSILON;
        let s_nu: f64 = nu.iter().sum();
        let e_nu = solve_gap(k, norm(&nu));
        for t in 0..dist.outputs() {
            let (a, b) = (one.alpha(t), one.bias(t));
            let eta: Vec<f64> = a.iter().zip(&nu).map(|(ai, vi)| ai + b * vi).collect();
            let e_eta = solve_gap(k, norm(&eta));
            let sums = 300.0
                * eps
                * (eta.iter().map(|v| v.abs()).sum::<f64>()
                    + b.abs() * nu.iter().map(|v| v.abs()).sum::<f64>());
            let db = (sn * (e_eta + b.abs() * e_nu) + sums) / (s_nu - sn * e_nu);
            let da = e_eta + db * norm(&nu) + b.abs() * e_nu + 300.0 * eps * norm(&eta);
            assert!(da <= 1e-10 * norm(a) && db <= 1e-10 * b.abs().max(1.0), "{name}: bounds {da:e} {db:e}");
            let (ga, gb) = (diff(dist.alpha(t), a), (dist.bias(t) - b).abs());
            assert!(
                ga <= da && gb <= db,
                "{name} output {t}: ‖Δα‖ = {ga:e} (≤ {da:e}), |Δb| = {gb:e} (≤ {db:e})"
            );
        }
        assert_eq!(dist.predict(&ds.samples).unwrap(), one.predict(&ds.samples).unwrap(), "{name}");
    }
}

#[test]
fn wrong_kernels_preconditioners_and_lambdas_are_errors() {
    let dir = scratch("wrong_kernels_preconditioners_and_lambdas_are_errors");
    let path = write(&dir, "err.svm", lattice(40, |i, _, _| format!("{}", i % 2)));
    let part = read_part(&SingleProcess, &path, &Default::default()).unwrap();
    let gauss = CompactParams::new(Dual::LsSvm, "gaussian:sigma=1".parse().unwrap(), 1.0);
    let e = fit_compact(&SingleProcess, &part, &gauss, false).unwrap_err().to_string();
    assert!(e.contains("compactly supported"), "{e}");
    let mut bj = CompactParams::new(Dual::LsSvm, "cs-gaussian:sigma=1,c=2".parse().unwrap(), 1.0);
    bj.pcg.preconditioner = "block-jacobi".parse().unwrap();
    assert!(
        fit_compact(&SingleProcess, &part, &bj, false).unwrap_err().to_string().contains("preconditioner")
    );
    for bad in [0.0, -1.0, f64::NAN] {
        let p = CompactParams::new(Dual::Krr, "cs-gaussian:sigma=1,c=2".parse().unwrap(), bad);
        assert!(fit_compact(&SingleProcess, &part, &p, true).unwrap_err().to_string().contains("lambda"));
    }
}
