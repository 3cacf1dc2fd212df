//! `kern train/predict --model lssvm|krr` (direct and iterative solvers), `kern sparse --order nd` and
//! `kern kpca` on small temporary files.

use crate::common::{kern, scratch};
use std::path::{Path, PathBuf};

/// Two separated classes ("neg", "pos") plus a smooth real target in column `y`.
fn temp_csv(dir: &Path, name: &str, n: usize, regression: bool) -> PathBuf {
    let p = dir.join(name);
    let mut s = String::from("x1,x2,label\n");
    for i in 0..n {
        let c = i % 2;
        let a = (i as f64 * 0.618).fract() + 1.5 * c as f64;
        let b = (i as f64 * 0.414).fract();
        if regression {
            s.push_str(&format!("{a},{b},{}\n", (2.0 * a).sin() + b));
        } else {
            s.push_str(&format!("{a},{b},{}\n", if c == 0 { "neg" } else { "pos" }));
        }
    }
    std::fs::write(&p, s).unwrap();
    p
}

#[test]
fn lssvm_train_predict_with_loo_and_fixed_lambda() {
    let dir = scratch("lssvm-train-predict-with-loo-and-fixed-lambda");
    let f = temp_csv(&dir, "cls.csv", 200, false);
    let f = f.to_str().unwrap();
    let m = dir.join("m.lssvm");
    let m = m.to_str().unwrap();
    // λ by leave-one-out (no --lambda), sparse path on a compact kernel.
    let (ok, j, err) = kern(&[
        "train",
        "--data",
        f,
        "--model",
        "lssvm",
        "--kernel",
        "cs-gaussian:sigma=0.5,c=0.25,nu=3",
        "--out",
        m,
    ]);
    assert!(ok, "{err}");
    assert_eq!(j["model"], "lssvm");
    assert_eq!(j["path"], "sparse");
    assert_eq!(j["selection"]["criterion"], "loo");
    assert_eq!(j["selection"]["grid"].as_array().unwrap().len(), 17);
    assert!(j["lambda"].as_f64().unwrap() > 0.0 && j["factor_seconds"].as_f64().unwrap() >= 0.0);
    assert!(j["seconds"].as_f64().unwrap() >= 0.0);
    let (ok, p, err) = kern(&["predict", "--data", f, "--model", m]);
    assert!(ok, "{err}");
    assert_eq!(p["model"], "lssvm");
    assert_eq!(p["path"], "sparse");
    assert!(p["accuracy"].as_f64().unwrap() > 0.95, "{p}");
    assert_eq!(p["lambda"], j["lambda"]);
    // Fixed λ, dense Gaussian; predictions written with the label names.
    let out = dir.join("pred.txt");
    let (ok, j, err) = kern(&[
        "train",
        "--data",
        f,
        "--model",
        "lssvm",
        "--kernel",
        "gaussian:sigma=0.5",
        "--gam",
        "10",
        "--out",
        m,
    ]);
    assert!(ok, "{err}");
    assert_eq!((j["path"].as_str(), j["lambda"].as_f64()), (Some("dense"), Some(0.1)));
    assert_eq!(j["gam"].as_f64(), Some(10.0));
    assert!(j["selection"].is_null());
    let (ok, _, err) = kern(&["predict", "--data", f, "--model", m, "--out", out.to_str().unwrap()]);
    assert!(ok, "{err}");
    let lines = std::fs::read_to_string(&out).unwrap();
    assert_eq!(lines.lines().count(), 200);
    assert!(lines.lines().all(|l| l == "neg" || l == "pos"));
    // Errors: bad λ, sparse path with a global kernel.
    let (ok, _, _) = kern(&[
        "train",
        "--data",
        f,
        "--model",
        "lssvm",
        "--kernel",
        "gaussian:sigma=0.5",
        "--lambda",
        "-1",
        "--out",
        m,
    ]);
    assert!(!ok);
    let (ok, _, err) = kern(&[
        "train",
        "--data",
        f,
        "--model",
        "lssvm",
        "--kernel",
        "gaussian:sigma=0.5",
        "--path",
        "sparse",
        "--out",
        m,
    ]);
    assert!(!ok && err.contains("compactly supported"), "{err}");
}

#[test]
fn krr_regression() {
    let dir = scratch("krr-regression");
    let f = temp_csv(&dir, "reg.csv", 150, true);
    let f = f.to_str().unwrap();
    let m = dir.join("m.krr");
    let m = m.to_str().unwrap();
    let (ok, j, err) =
        kern(&["train", "--data", f, "--model", "krr", "--kernel", "gaussian:sigma=0.5", "--out", m]);
    assert!(ok, "{err}");
    assert_eq!(j["model"], "krr");
    assert_eq!(j["task"]["kind"], "regression");
    assert_eq!(j["selection"]["method"], "eigen");
    let (ok, p, err) = kern(&["predict", "--data", f, "--model", m]);
    assert!(ok, "{err}");
    assert!(p["rmse"].as_f64().unwrap() < 0.1, "{p}");
    assert!(p["mae"].as_f64().unwrap() <= p["rmse"].as_f64().unwrap());
}

#[test]
fn kpca_command() {
    let dir = scratch("kpca-command");
    let f = temp_csv(&dir, "kpca.csv", 120, false);
    let f = f.to_str().unwrap();
    let out = dir.join("proj.csv");
    let (ok, j, err) = kern(&[
        "kpca",
        "--data",
        f,
        "--kernel",
        "gaussian:sigma=0.7",
        "--components",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let ev: Vec<f64> = j["eigenvalues"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(ev.len(), 3);
    assert!(ev[0] >= ev[1] && ev[1] >= ev[2] && ev[2] > 0.0);
    let ratio: Vec<f64> =
        j["explained_variance_ratio"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(ratio.iter().sum::<f64>() <= 1.0 + 1e-12 && ratio[0] > 0.0);
    assert_eq!(j["path"], "dense");
    assert!(j["seconds"].as_f64().unwrap() >= 0.0);
    let csv = std::fs::read_to_string(&out).unwrap();
    assert_eq!(csv.lines().next(), Some("pc1,pc2,pc3"));
    assert_eq!(csv.lines().count(), 121);
    // Scores are centred: every column sums to ~0.
    let mut sums = [0.0f64; 3];
    for l in csv.lines().skip(1) {
        for (s, v) in sums.iter_mut().zip(l.split(',')) {
            *s += v.parse::<f64>().unwrap();
        }
    }
    assert!(sums.iter().all(|s| s.abs() < 1e-8), "{sums:?}");
    // Sparse path, Krylov solver.
    let (ok, j, err) = kern(&[
        "kpca",
        "--data",
        f,
        "--kernel",
        "cs-gaussian:sigma=0.7,c=0.5,nu=3",
        "--components",
        "2",
        "--path",
        "sparse",
        "--solver",
        "krylov",
    ]);
    assert!(ok, "{err}");
    assert_eq!((j["path"].as_str(), j["solver"].as_str()), (Some("sparse"), Some("krylov")));
    let (ok, _, _) = kern(&["kpca", "--data", f, "--kernel", "gaussian:sigma=0.7", "--components", "0"]);
    assert!(!ok);
}

// `--solver auto|direct|iterative` (conjugate gradients) and `kern sparse --order nd`.

const SOLVER_KERNEL: &str = "cs-gaussian:sigma=0.6,c=0.3,nu=3";

fn train_with_solver(
    dir: &Path,
    data: &str,
    model: &str,
    solver: &str,
    extra: &[&str],
) -> (bool, serde_json::Value, String) {
    let out = dir.join(format!("{model}-{solver}.model"));
    let mut args = vec![
        "train",
        "--data",
        data,
        "--model",
        model,
        "--kernel",
        SOLVER_KERNEL,
        "--lambda",
        "2",
        "--path",
        "sparse",
        "--solver",
        solver,
        "--out",
    ];
    let out = out.to_str().unwrap().to_string();
    args.push(&out);
    args.extend_from_slice(extra);
    kern(&args)
}

#[test]
fn iterative_and_direct_solvers_predict_alike() {
    let dir = scratch("iterative-and-direct-solvers-predict-alike");
    let f = temp_csv(&dir, "solver-cls.csv", 600, false);
    let f = f.to_str().unwrap();
    for model in ["lssvm", "krr"] {
        let f = if model == "krr" { temp_csv(&dir, "solver-reg.csv", 600, true) } else { PathBuf::from(f) };
        let f = f.to_str().unwrap();
        let (ok, d, err) = train_with_solver(&dir, f, model, "direct", &[]);
        assert!(ok, "{err}");
        assert_eq!(d["solver"], "direct");
        assert!(d["iterations"].is_null() && d["residual"].is_null());
        let (ok, it, err) =
            train_with_solver(&dir, f, model, "iterative", &["--tol", "1e-10", "--max-iter", "5000"]);
        assert!(ok, "{err}");
        assert_eq!(it["solver"], "iterative");
        assert!(it["iterations"].as_u64().unwrap() > 0);
        assert!(it["residual"].as_f64().unwrap() <= 1e-10);
        assert_eq!(it["converged"], true);
        // Predictions of both model files agree.
        let pred = |solver: &str| {
            let m = dir.join(format!("{model}-{solver}.model"));
            let (ok, j, err) = kern(&["predict", "--data", f, "--model", m.to_str().unwrap()]);
            assert!(ok, "{err}");
            j
        };
        let (pd, pi) = (pred("direct"), pred("iterative"));
        if model == "lssvm" {
            assert_eq!(pd["accuracy"], pi["accuracy"]);
        } else {
            assert!((pd["rmse"].as_f64().unwrap() - pi["rmse"].as_f64().unwrap()).abs() < 1e-7);
        }
    }
    // The iteration cap is reported, with a warning, not hidden.
    let (ok, j, err) = train_with_solver(
        &dir,
        f,
        "lssvm",
        "iterative",
        &["--tol", "1e-12", "--max-iter", "2", "--preconditioner", "none"],
    );
    assert!(ok, "{err}");
    assert_eq!(j["iterations"], 2);
    assert_eq!(j["converged"], false);
    assert!(j["residual"].as_f64().unwrap() > 1e-12);
    assert!(err.contains("conjugate gradients stopped"), "{err}");
    // Bad settings are errors.
    for bad in [&["--tol", "0"][..], &["--max-iter", "0"], &["--preconditioner", "ilu"]] {
        let (ok, _, _) = train_with_solver(&dir, f, "lssvm", "iterative", bad);
        assert!(!ok, "{bad:?}");
    }
    let (ok, _, _) = train_with_solver(&dir, f, "lssvm", "fastest", &[]);
    assert!(!ok);
}

#[test]
fn sparse_reports_nested_dissection() {
    let dir = scratch("sparse-reports-nested-dissection");
    let f = temp_csv(&dir, "solver-nd.csv", 800, false);
    let f = f.to_str().unwrap();
    let mut fills = Vec::new();
    for order in ["amd", "rcm", "nd", "auto"] {
        let (ok, j, err) = kern(&["sparse", "--data", f, "--kernel", SOLVER_KERNEL, "--order", order]);
        assert!(ok, "{err}");
        assert_eq!(j["order"], order);
        assert!(j["symbolic_seconds"].as_f64().is_some() && j["numeric_seconds"].as_f64().is_some());
        fills.push(j["factor_nnz"].as_u64().unwrap());
    }
    // Auto: the smaller of AMD and RCM (a factor this small stays below the nested-dissection threshold).
    assert_eq!(fills[3], fills[0].min(fills[1]));
}
