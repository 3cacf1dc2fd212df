//! `kern sparse` on a small temporary file. Its error messages are case files in `tests/cmd/sparse/`
//! (run by `cmd.rs`).

use crate::common::{kern, scratch};
use std::path::{Path, PathBuf};

fn temp_csv(dir: &Path, name: &str, n: usize) -> PathBuf {
    let p = dir.join(name);
    let mut s = String::from("x1,x2,label\n");
    for i in 0..n {
        // A quasi-random permutation of a 2-D point set, so the natural order has a wide band.
        let a = (i as f64 * 0.618_033_988_7).fract() * 4.0;
        let b = (i as f64 * 0.414_213_562_4).fract() * 4.0;
        s.push_str(&format!("{a},{b},{}\n", if a > b { "red" } else { "green" }));
    }
    std::fs::write(&p, s).unwrap();
    p
}

#[test]
fn reports_sparsity_bandwidth_and_factorization() {
    let dir = scratch("reports-sparsity-bandwidth-and-factorization");
    let f = temp_csv(&dir, "pts.csv", 400);
    let f = f.to_str().unwrap();
    let kernel = "cs-gaussian:sigma=0.6,c=0.4,nu=3";
    let mut nnz = None;
    for order in ["rcm", "amd", "none"] {
        let (ok, j, err) =
            kern(&["sparse", "--data", f, "--kernel", kernel, "--order", order, "--lambda", "2"]);
        assert!(ok, "{order}: {err}");
        let n = j["n"].as_u64().unwrap();
        assert_eq!(n, 400);
        let z = j["nnz"].as_u64().unwrap();
        assert!(z >= n && z < n * n, "{j}");
        if let Some(prev) = nnz {
            assert_eq!(prev, z, "nnz does not depend on the ordering");
        }
        nnz = Some(z);
        let s = j["sparsity"].as_f64().unwrap();
        assert!((s - (1.0 - z as f64 / (n * n) as f64)).abs() < 1e-12);
        assert_eq!(j["bytes_dense"].as_u64().unwrap(), 8 * n * n);
        assert_eq!(j["bytes_paper"].as_u64().unwrap(), 12 * z + 4 * n);
        assert!(j["bytes_sparse"].as_u64().unwrap() < 8 * n * n);
        let (before, after) =
            (j["bandwidth_before"].as_u64().unwrap(), j["bandwidth_after"].as_u64().unwrap());
        assert!(before <= n && after <= n);
        if order == "rcm" {
            assert!(after < before / 2, "rcm should narrow the band: {before} -> {after}");
        }
        if order == "none" {
            assert_eq!(before, after);
        }
        let factor_nnz = j["factor_nnz"].as_u64().unwrap();
        assert!(factor_nnz >= z.div_ceil(2));
        // The factor's bytes hold at least its non-zeros; the working space is reported beside them.
        assert!(j["factor_bytes"].as_u64().unwrap() >= 8 * factor_nnz, "{j}");
        assert!(j["scratch_bytes"].as_u64().is_some(), "{j}");
        for key in ["assemble_seconds", "order_seconds", "factor_seconds", "seconds"] {
            assert!(j[key].as_f64().unwrap() >= 0.0, "{key}");
        }
        assert_eq!(j["order"], if order == "none" { "none" } else { order });
    }
}
