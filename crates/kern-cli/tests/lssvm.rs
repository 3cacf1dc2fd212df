//! `kern train/predict --model lssvm|krr` and `kern kpca` on small temporary files.

use std::path::PathBuf;
use std::process::Command;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("kern-cli-lssvm-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Two separated classes ("neg", "pos") plus a smooth real target in column `y`.
fn temp_csv(name: &str, n: usize, regression: bool) -> PathBuf {
    let p = dir().join(name);
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

fn run(args: &[&str]) -> (bool, serde_json::Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kern")).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let last = stdout.lines().last().unwrap_or("null");
    (out.status.success(), serde_json::from_str(last).unwrap_or(serde_json::Value::Null), stderr)
}

#[test]
fn lssvm_train_predict_with_loo_and_fixed_lambda() {
    let f = temp_csv("cls.csv", 200, false);
    let f = f.to_str().unwrap();
    let m = dir().join("m.lssvm");
    let m = m.to_str().unwrap();
    // λ by leave-one-out (no --lambda), sparse path on a compact kernel.
    let (ok, j, err) = run(&[
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
    let (ok, p, err) = run(&["predict", "--data", f, "--model", m]);
    assert!(ok, "{err}");
    assert_eq!(p["model"], "lssvm");
    assert_eq!(p["path"], "sparse");
    assert!(p["accuracy"].as_f64().unwrap() > 0.95, "{p}");
    assert_eq!(p["lambda"], j["lambda"]);
    // Fixed λ, dense Gaussian; predictions written with the label names.
    let out = dir().join("pred.txt");
    let (ok, j, err) = run(&[
        "train",
        "--data",
        f,
        "--model",
        "lssvm",
        "--kernel",
        "gaussian:sigma=0.5",
        "--lambda",
        "10",
        "--out",
        m,
    ]);
    assert!(ok, "{err}");
    assert_eq!((j["path"].as_str(), j["lambda"].as_f64()), (Some("dense"), Some(10.0)));
    assert!(j["selection"].is_null());
    let (ok, _, err) = run(&["predict", "--data", f, "--model", m, "--out", out.to_str().unwrap()]);
    assert!(ok, "{err}");
    let lines = std::fs::read_to_string(&out).unwrap();
    assert_eq!(lines.lines().count(), 200);
    assert!(lines.lines().all(|l| l == "neg" || l == "pos"));
    // Errors: bad λ, sparse path with a global kernel.
    let (ok, _, _) = run(&[
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
    let (ok, _, err) = run(&[
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
    let f = temp_csv("reg.csv", 150, true);
    let f = f.to_str().unwrap();
    let m = dir().join("m.krr");
    let m = m.to_str().unwrap();
    let (ok, j, err) =
        run(&["train", "--data", f, "--model", "krr", "--kernel", "gaussian:sigma=0.5", "--out", m]);
    assert!(ok, "{err}");
    assert_eq!(j["model"], "krr");
    assert_eq!(j["task"]["kind"], "regression");
    assert_eq!(j["selection"]["method"], "eigen");
    let (ok, p, err) = run(&["predict", "--data", f, "--model", m]);
    assert!(ok, "{err}");
    assert!(p["rmse"].as_f64().unwrap() < 0.1, "{p}");
    assert!(p["mae"].as_f64().unwrap() <= p["rmse"].as_f64().unwrap());
}

#[test]
fn kpca_command() {
    let f = temp_csv("kpca.csv", 120, false);
    let f = f.to_str().unwrap();
    let out = dir().join("proj.csv");
    let (ok, j, err) = run(&[
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
    let (ok, j, err) = run(&[
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
    let (ok, _, _) = run(&["kpca", "--data", f, "--kernel", "gaussian:sigma=0.7", "--components", "0"]);
    assert!(!ok);
}
