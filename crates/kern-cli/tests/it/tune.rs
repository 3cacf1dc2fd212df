//! `kern tune bandwidth` and `kern tune support` on small temporary files.

use crate::common::{kern, scratch};
use std::path::{Path, PathBuf};

fn temp_csv(dir: &Path, name: &str, n: usize) -> PathBuf {
    let p = dir.join(name);
    let mut s = String::from("x1,x2,label\n");
    for i in 0..n {
        let c = i % 2;
        let a = (i as f64 * 0.618).fract() + 2.0 * c as f64;
        let b = (i as f64 * 0.414).fract();
        s.push_str(&format!("{a},{b},{}\n", if c == 0 { "neg" } else { "pos" }));
    }
    std::fs::write(&p, s).unwrap();
    p
}

#[test]
fn bandwidth_methods() {
    let dir = scratch("bandwidth-methods");
    let f = temp_csv(&dir, "bw.csv", 120);
    let f = f.to_str().unwrap();
    for m in ["mean-to-half", "max-variance", "ahn", "median", "scale"] {
        let (ok, j, err) = kern(&["tune", "bandwidth", "--data", f, "--method", m]);
        assert!(ok, "{m}: {err}");
        let beta = j["beta"].as_f64().unwrap();
        let sigma = j["sigma"].as_f64().unwrap();
        assert!(beta > 0.0 && (sigma * sigma * beta - 1.0).abs() < 1e-12, "{m}: {j}");
        assert!(j["seconds"].as_f64().unwrap() >= 0.0);
        assert_eq!(j["method"], m);
        if m != "scale" {
            assert_eq!(j["pairs"], 120 * 119 / 2);
            assert!(j["sampling"].as_str().unwrap().starts_with("all"));
        }
    }
    let (ok, j, _) = kern(&[
        "tune",
        "bandwidth",
        "--data",
        f,
        "--method",
        "mean-to-half",
        "--max-points",
        "50",
        "--seed",
        "3",
    ]);
    assert!(ok);
    assert!(j["sampling"].as_str().unwrap().contains("subsample of 50 of 120"), "{j}");
    let (ok, j, _) = kern(&[
        "tune",
        "bandwidth",
        "--data",
        f,
        "--method",
        "max-variance",
        "--subsample",
        "40",
        "--repeats",
        "5",
        "--seed",
        "2",
    ]);
    assert!(ok);
    let betas: Vec<f64> = j["betas"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(betas.len(), 5);
    let mean = betas.iter().sum::<f64>() / 5.0;
    assert!((j["beta"].as_f64().unwrap() - mean).abs() < 1e-12 * mean);
    assert!(j["beta_variance"].as_f64().unwrap() > 0.0);
    // same seed, same betas
    let (_, j2, _) = kern(&[
        "tune",
        "bandwidth",
        "--data",
        f,
        "--method",
        "max-variance",
        "--subsample",
        "40",
        "--repeats",
        "5",
        "--seed",
        "2",
    ]);
    assert_eq!(j["betas"], j2["betas"]);
    let (ok, _, err) = kern(&["tune", "bandwidth", "--data", f, "--method", "nope"]);
    assert!(!ok && err.contains("mean-to-half"));
}

#[test]
fn support_procedures() {
    let dir = scratch("support-procedures");
    let f = temp_csv(&dir, "sup.csv", 150);
    let f = f.to_str().unwrap();
    let base = ["tune", "support", "--data", f, "--base", "gaussian:sigma=0.6", "--nu", "3"];
    let with = |extra: &[&str]| {
        let mut v: Vec<&str> = base.to_vec();
        v.extend_from_slice(extra);
        kern(&v)
    };
    let (ok, j, err) = with(&["--min-alignment", "0.95"]);
    assert!(ok, "{err}");
    assert!(j["alignment"].as_f64().unwrap() >= 0.95);
    let c = j["c"].as_f64().unwrap();
    assert!((1.0 / 32.0..=32.0).contains(&c));
    assert!(j["kernel"].as_str().unwrap().starts_with("cs-gaussian"));
    assert!(j["seconds"].as_f64().is_some());
    let (ok, je, _) = with(&["--min-alignment", "0.95", "--exact"]);
    assert!(ok);
    assert!(je["sparsity"].as_f64().unwrap() >= j["sparsity"].as_f64().unwrap());
    let (ok, j, _) = with(&["--min-sparsity", "0.75", "--curve"]);
    assert!(ok);
    assert!(j["sparsity"].as_f64().unwrap() >= 0.75);
    assert_eq!(j["curve"]["c"].as_array().unwrap().len(), 101);
    let (ok, j, _) = with(&["--gamma", "0.5", "--c-grid", "2^-3..2^3:13"]);
    assert!(ok);
    assert_eq!(j["search"], "grid of 13 values");
    let (ok, j, _) = with(&["--gamma", "1", "--random-pairs", "5000", "--seed", "1"]);
    assert!(ok);
    assert!(j["sampling"].as_str().unwrap().contains("random pairs"));
    let (ok, _, _) = with(&[]);
    assert!(!ok, "a procedure is required");
    let (ok, _, _) = with(&["--min-alignment", "2"]);
    assert!(!ok);
    let (ok, _, _) = kern(&["tune", "support", "--data", f, "--base", "linear", "--gamma", "1"]);
    assert!(!ok);
}
