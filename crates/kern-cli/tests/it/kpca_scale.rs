//! `kern kpca --path auto` on a compactly supported kernel takes the sparse K_C and the block Krylov
//! solver when the dense matrix does not fit in memory, and gets the same eigenvalues.

use crate::common::{output, scratch, succeeds};
use std::path::PathBuf;

#[test]
fn auto_path_falls_back_to_the_sparse_krylov_solver_when_dense_does_not_fit() {
    let dir = scratch("auto");
    let data: PathBuf = dir.join("x.csv");
    // 600 points on a scrambled grid in [0, 1]²: with c = 0.35 about a third of the pairs are within
    // the support, above the 20 % density up to which --path auto takes the sparse path by itself.
    let mut s = String::from("x1,x2,label\n");
    for i in 0..600u64 {
        let u = ((i * 7919) % 600) as f64 / 600.0;
        let v = ((i * 104_729) % 577) as f64 / 577.0;
        s.push_str(&format!("{u},{v},{}\n", i % 2));
    }
    std::fs::write(&data, s).unwrap();
    let d = data.to_str().unwrap();
    let args = ["kpca", "--data", d, "--kernel", "cs-gaussian:sigma=0.5,c=0.35,nu=3", "--components", "4"];
    let dense = succeeds(&args);
    assert_eq!(dense["path"], "dense");
    // The dense path needs 2 × 600² doubles = 5.8 MB; 4 MB leaves room for the sparse K_C (≈ 2 MB) only.
    let mut small = vec!["--max-memory", "4M"];
    small.extend_from_slice(&args);
    let sparse = succeeds(&small);
    assert_eq!(sparse["path"], "sparse");
    assert_eq!(sparse["solver"], "krylov");
    // Same matrix, so the same eigenvalues: each run's Ritz values are within its reported residual
    // ‖r‖ ≤ ρ θ_1 of eigenvalues (Bauer–Fike; ρ = 0 for a full dense solve), plus n ε θ_1 of rounding
    // for each of the two runs.
    let rho = sparse["residual"].as_f64().unwrap() + dense["residual"].as_f64().unwrap();
    let (a, b) = (dense["eigenvalues"].as_array().unwrap(), sparse["eigenvalues"].as_array().unwrap());
    let top = a[0].as_f64().unwrap();
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
        assert!((x - y).abs() <= (rho + 2.0 * 600.0 * f64::EPSILON) * top, "{x} vs {y} (residual {rho:e})");
    }
    // --block and --basis reach the solver: a small basis forces restarts, the answer is the same.
    let mut tight = args.to_vec();
    tight.extend_from_slice(&["--path", "sparse", "--solver", "krylov", "--block", "4", "--basis", "16"]);
    let small_basis = succeeds(&tight);
    assert!(small_basis["restarts"].as_u64().unwrap() > 0, "{small_basis}");
    let rho2 = small_basis["residual"].as_f64().unwrap() + dense["residual"].as_f64().unwrap();
    for (x, y) in a.iter().zip(small_basis["eigenvalues"].as_array().unwrap()) {
        let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
        assert!((x - y).abs() <= (rho2 + 2.0 * 600.0 * f64::EPSILON) * top, "{x} vs {y} (residual {rho2:e})");
    }
    // A basis too small for the block is an error, not a panic.
    let mut bad = args.to_vec();
    bad.extend_from_slice(&["--solver", "krylov", "--block", "8", "--basis", "10"]);
    let out = output(&bad);
    assert!(!out.status.success() && !String::from_utf8_lossy(&out.stderr).contains("panicked"));
    // Without a compactly supported kernel there is no sparse path to fall back to: an error.
    let gauss = output(&["--max-memory", "4M", "kpca", "--data", d, "--kernel", "gaussian:sigma=0.5"]);
    assert!(!gauss.status.success());
}
