//! `kern fvs`, and `kern train --model kfa` / `kern predict` on a kfa model.

use crate::common::{kern, scratch};
use std::path::{Path, PathBuf};

/// Two circles of radius 1 and 0.5 (Baudat & Anouar §5.1) as a CSV file with a label column.
fn circles_csv(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    let mut s = String::from("x1,x2,label\n");
    for t in 0..40 {
        let a = t as f64 * std::f64::consts::TAU / 40.0;
        for (r, lab) in [(1.0, "outer"), (0.5, "inner")] {
            s.push_str(&format!("{},{},{lab}\n", r * a.cos(), r * a.sin()));
        }
    }
    std::fs::write(&p, s).unwrap();
    p
}

#[test]
fn fvs_finds_the_three_vector_basis_of_a_degree_two_kernel() {
    let dir = scratch("basis");
    let data = circles_csv(&dir, "c1.csv");
    let d = data.to_str().unwrap();
    let (ok, j, err) = kern(&["fvs", "--data", d, "--kernel", "poly:degree=2"]);
    assert!(ok, "{err}");
    assert_eq!(j["n"], 80);
    assert_eq!(j["n_fv"], 3);
    assert_eq!(j["stop"], "basis-found");
    assert_eq!(j["selected"].as_array().unwrap().len(), 3);
    let f: Vec<f64> = j["fitness"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(f.windows(2).all(|w| w[1] >= w[0]));
    assert!((f[2] - 1.0).abs() < 1e-9);
    assert!(j["seconds"].as_f64().unwrap() >= 0.0);

    let (ok, j, _) = kern(&["fvs", "--data", d, "--kernel", "gaussian:sigma=0.3", "--max-fv", "5"]);
    assert!(ok);
    assert_eq!(j["n_fv"], 5);
    assert_eq!(j["stop"], "max-fv");
    let (ok, j, _) = kern(&["fvs", "--data", d, "--kernel", "gaussian:sigma=0.3", "--min-fitness", "0.9"]);
    assert!(ok);
    assert_eq!(j["stop"], "min-fitness");
    assert!(j["final_fitness"].as_f64().unwrap() >= 0.9);

    let (ok, _, err) = kern(&["fvs", "--data", d, "--kernel", "poly:degree=2", "--min-fitness", "2"]);
    assert!(!ok && err.contains("min_fitness"), "{err}");
    let (ok, _, _) = kern(&["fvs", "--data", d, "--kernel", "nonsense"]);
    assert!(!ok);
}

#[test]
fn kfa_trains_saves_and_predicts() {
    let dir = scratch("kfa");
    let data = circles_csv(&dir, "c2.csv");
    let d = data.to_str().unwrap();
    let model = data.with_extension("kern");
    let m = model.to_str().unwrap();
    let (ok, j, err) =
        kern(&["train", "--model", "kfa", "--data", d, "--kernel", "poly:degree=2", "--out", m]);
    assert!(ok, "{err}");
    assert_eq!(j["model"], "kfa");
    assert_eq!(j["n_fv"], 3);
    assert_eq!(j["task"], "binary");
    let preds = data.with_extension("pred");
    let (ok, j, err) = kern(&["predict", "--data", d, "--model", m, "--out", preds.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert_eq!(j["accuracy"], 1.0);
    let lines = std::fs::read_to_string(&preds).unwrap();
    assert_eq!(lines.lines().next(), Some("outer"));
    let (ok, j, err) = kern(&[
        "train",
        "--model",
        "kfa",
        "--data",
        d,
        "--kernel",
        "gaussian:sigma=0.5",
        "--max-fv",
        "7",
        "--out",
        m,
    ]);
    assert!(ok, "{err}");
    assert_eq!(j["n_fv"], 7);
}

#[test]
fn svc_with_railway_auto_trains_and_predicts() {
    // The modified XOR of the railway paper's §3.3 (deterministic jitter instead of normal draws).
    let dir = scratch("railway");
    let data = dir.join("xor.csv");
    let mut s = String::from("x1,x2,y\n");
    let groups = [
        ([3.0, 5.0], [0.7, 1.2], "1"),
        ([7.0, 5.0], [0.7, 1.2], "-1"),
        ([15.0, 17.0], [1.2, 0.7], "1"),
        ([15.0, 13.0], [1.2, 0.7], "-1"),
    ];
    for (mu, sd, lab) in groups {
        for t in 0..50 {
            let (u, v) = (((t * 37) % 50) as f64 / 50.0 - 0.5, ((t * 11) % 50) as f64 / 50.0 - 0.5);
            s.push_str(&format!("{},{},{lab}\n", mu[0] + 2.0 * sd[0] * u, mu[1] + 2.0 * sd[1] * v));
        }
    }
    std::fs::write(&data, s).unwrap();
    let d = data.to_str().unwrap();
    let model = dir.join("rail.kern");
    let m = model.to_str().unwrap();
    let (ok, j, err) = kern(&[
        "train",
        "--model",
        "svc",
        "--data",
        d,
        "--kernel",
        "railway:auto,local=affine",
        "--c",
        "10",
        "--out",
        m,
    ]);
    assert!(ok, "{err}");
    assert_eq!(j["converged"], true);
    assert!(j["areas"].as_array().unwrap().len() >= 2);
    assert!(j["n_sv"].as_u64().unwrap() < 100, "{j}");
    let (ok, j, err) = kern(&["predict", "--data", d, "--model", m]);
    assert!(ok, "{err}");
    assert!(j["accuracy"].as_f64().unwrap() >= 0.99, "{j}");
    let (ok, _, err) =
        kern(&["train", "--model", "svr", "--data", d, "--kernel", "railway:auto", "--out", m]);
    assert!(!ok && err.contains("--model svc"), "{err}");
    let (ok, _, _) =
        kern(&["train", "--model", "svc", "--data", d, "--kernel", "railway:manual", "--out", m]);
    assert!(!ok);
}
