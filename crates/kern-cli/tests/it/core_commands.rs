//! `kern info` and `kern gram` end to end: the one-JSON-line contract. Their error messages and exit
//! codes are case files in `tests/cmd/core_commands/` (run by `cmd.rs`).

use crate::common::{kern, scratch, write};

#[test]
fn info_reports_shape_labels_and_ranges() {
    let d = scratch("info");
    let p = write(&d, "a.svm", "1 1:0.5 2:-1\n-1 2:3\n1 1:2\n");
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
    let d = scratch("gram");
    let p = write(&d, "g.csv", "x,y,label\n0,0,a\n1,0,b\n0,2,a\n3,1,b\n");
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
