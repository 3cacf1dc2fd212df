//! `--solver-block`: `kern train` with blocked working sets reaches the one-pair solver's objective
//! (within `tol/2 · Σ C`, the bound of two ε-optimal points of the same dual, derived in kern-models'
//! blocked-solver tests), `kern cv` accepts it, and a bad value is an error.

use crate::common::{kern, scratch};

#[test]
fn blocked_and_pair_training_agree() {
    let dir = scratch("agree");
    let data = dir.join("d.svm");
    let mut text = String::new();
    let n = 200;
    for i in 0..n {
        let (a, b) = (((i * 37) % 101) as f64 / 50.0 - 1.0, ((i * 53) % 97) as f64 / 48.0 - 1.0);
        let y = if a * a + b * b < 0.5 { 1 } else { -1 };
        text.push_str(&format!("{y} 1:{a} 2:{b}\n"));
    }
    std::fs::write(&data, text).unwrap();
    let data = data.to_str().unwrap();
    let model = dir.join("m.kmodel");
    let model = model.to_str().unwrap();
    let tol = 1e-4;
    let obj = |block: &str| {
        let (ok, j, err) = kern(&[
            "--quiet",
            "train",
            "--data",
            data,
            "--model",
            "svc",
            "--kernel",
            "gaussian:sigma=0.5",
            "--c",
            "2",
            "--tol",
            "1e-4",
            "--solver-block",
            block,
            "--out",
            model,
        ]);
        assert!(ok, "{err}");
        j["machines"][0]["objective"].as_f64().unwrap()
    };
    let (pair, blocked) = (obj("pair"), obj("8"));
    assert!((pair - blocked).abs() <= tol / 2.0 * 2.0 * n as f64 + 1e-9 * pair.abs(), "{pair} vs {blocked}");
    let (ok, j, err) = kern(&[
        "--quiet",
        "cv",
        "--data",
        data,
        "--model",
        "svc",
        "--kernel",
        "gaussian:sigma=0.5",
        "--grid",
        "c=1..4:2",
        "--solver-block",
        "16",
    ]);
    assert!(ok && j["best_params"].is_object(), "{err}");
    let (ok, _, err) = kern(&[
        "train",
        "--data",
        data,
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--solver-block",
        "1",
        "--out",
        model,
    ]);
    assert!(!ok && err.contains("solver block"), "{err}");
}
