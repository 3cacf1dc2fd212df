//! `kern info` and `kern gram` end to end: exit codes, the one-JSON-line contract, error messages.

use std::path::PathBuf;
use std::process::Command;

fn kern(args: &[&str]) -> (bool, serde_json::Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kern")).args(args).output().expect("run kern");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let json =
        stdout.lines().last().and_then(|l| serde_json::from_str(l).ok()).unwrap_or(serde_json::Value::Null);
    (out.status.success(), json, stderr)
}

fn file(name: &str, content: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kern-cli-core-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

#[test]
fn info_reports_shape_labels_and_ranges() {
    let p = file("a.svm", "1 1:0.5 2:-1\n-1 2:3\n1 1:2\n");
    let (ok, j, err) = kern(&["info", "--data", p.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert_eq!(j["n"], 3);
    assert_eq!(j["d"], 2);
    assert_eq!(j["labels"]["1"], 2);
    assert_eq!(j["labels"]["-1"], 1);
    assert_eq!(j["feature_ranges"][1], serde_json::json!([-1.0, 3.0]));
    assert!(j["seconds"].is_number());
}

#[test]
fn gram_runs_every_kernel_family() {
    let p = file("g.csv", "x,y,label\n0,0,a\n1,0,b\n0,2,a\n3,1,b\n");
    for spec in [
        "gaussian:sigma=0.6",
        "laplacian:sigma=1",
        "poly:degree=2,coef0=1",
        "spline",
        "cs-gaussian:sigma=1,c=2,nu=3",
        "linear + 0.5*gaussian:beta=1",
    ] {
        let (ok, j, err) = kern(&["gram", "--data", p.to_str().unwrap(), "--kernel", spec, "--threads", "1"]);
        assert!(ok, "{spec}: {err}");
        assert_eq!(j["n"], 4);
        assert!(j["seconds"].as_f64().unwrap() >= 0.0);
    }
    let (_, j, _) = kern(&["gram", "--data", p.to_str().unwrap(), "--kernel", "gaussian:beta=1"]);
    assert_eq!(j["trace"], 4.0);
}

#[test]
fn errors_go_to_stderr_with_nonzero_exit() {
    let p = file("bad.svm", "1 1:0.5\n1 0:1\n");
    let (ok, j, err) = kern(&["info", "--data", p.to_str().unwrap()]);
    assert!(!ok);
    assert!(j.is_null());
    assert!(err.contains("bad.svm:2:"), "{err}");
    let good = file("good.svm", "1 1:0.5\n");
    let (ok, _, err) = kern(&["gram", "--data", good.to_str().unwrap(), "--kernel", "gausian:sigma=1"]);
    assert!(!ok);
    assert!(err.contains("unknown kernel") && err.contains("gaussian"), "{err}");
    let (ok, _, err) = kern(&["gram", "--data", good.to_str().unwrap(), "--kernel", "gaussian:sigma=-1"]);
    assert!(!ok && err.contains("sigma"), "{err}");
    let (ok, _, _) = kern(&["info", "--data", "/nonexistent/file.svm"]);
    assert!(!ok);
}
