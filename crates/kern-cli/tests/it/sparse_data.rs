//! Every data-reading subcommand on a small sparse LIBSVM file (2 % nonzero): it is read as a sparse
//! store, each summary reports `"storage": "sparse"` and the nonzero count, and the results equal
//! those of the same data written densely enough to be read as a dense store.

use crate::common::{kern, scratch};
use std::path::PathBuf;

/// 60 documents over 200 features, three nonzeros each; the class decides which half of the
/// features they use. Returns the file and its nonzero count.
fn write_sparse(dir: &std::path::Path) -> (PathBuf, usize) {
    let mut s = String::new();
    for i in 0..60usize {
        let class = i % 2;
        s.push_str(if class == 0 { "-1" } else { "+1" });
        let base = 1 + class * 100;
        let mut feats = [base + (i * 7) % 100, base + (i * 13 + 5) % 100, base + (i * 29 + 11) % 100];
        feats.sort_unstable();
        let mut last = 0;
        for f in feats {
            if f != last {
                s.push_str(&format!(" {f}:{}", 0.5 + ((i + f) % 5) as f64 / 10.0));
            }
            last = f;
        }
        s.push('\n');
    }
    let p = dir.join("docs.svm");
    std::fs::write(&p, &s).unwrap();
    let nnz = s.matches(':').count();
    (p, nnz)
}

#[test]
fn every_command_runs_on_a_sparse_file() {
    let dir = scratch("every-command");
    let (p, nnz) = write_sparse(&dir);
    let f = p.to_str().unwrap();
    let model = dir.join("m.kern");
    let m = model.to_str().unwrap();
    let kfa = dir.join("kfa.kern").to_str().unwrap().to_string();
    let runs: Vec<Vec<&str>> = vec![
        vec!["info", "--data", f],
        vec!["gram", "--data", f, "--kernel", "gaussian:sigma=1"],
        vec!["train", "--model", "svc", "--data", f, "--kernel", "gaussian:sigma=1", "--out", m],
        vec!["predict", "--data", f, "--model", m],
        vec!["cv", "--data", f, "--model", "svc", "--kernel", "linear", "--folds", "3", "--grid", "c=1..4:2"],
        vec!["kpca", "--data", f, "--kernel", "gaussian:sigma=1", "--components", "2"],
        vec!["fvs", "--data", f, "--kernel", "gaussian:sigma=1", "--max-fv", "5"],
        vec!["tune", "bandwidth", "--data", f, "--method", "median"],
        vec![
            "cv",
            "--data",
            f,
            "--model",
            "kfa",
            "--kernel",
            "gaussian:sigma=1",
            "--folds",
            "3",
            "--grid",
            "max_fv=2..8:2",
        ],
        vec![
            "train",
            "--model",
            "kfa",
            "--data",
            f,
            "--kernel",
            "gaussian:sigma=1",
            "--max-fv",
            "8",
            "--out",
            &kfa,
        ],
        vec!["predict", "--data", f, "--model", &kfa],
    ];
    for args in &runs {
        let (ok, j, err) = kern(args);
        assert!(ok, "{args:?}: {err}");
        assert_eq!(j["storage"], "sparse", "{args:?}: {j}");
        assert_eq!(j["nnz"], nnz, "{args:?}: {j}");
        assert!(j["seconds"].as_f64().unwrap() >= 0.0, "{args:?}: {j}");
    }
    let (_, info, _) = kern(&["info", "--data", f]);
    assert_eq!((info["n"].as_u64(), info["d"].as_u64()), (Some(60), Some(200)));
    // The classes use disjoint features: a Gaussian SVM separates its training set.
    let (_, pred, _) = kern(&["predict", "--data", f, "--model", m]);
    assert_eq!(pred["accuracy"], 1.0, "{pred}");
    // A feature index of 2^40 is read sparse, in O(nnz), and reported without per-feature arrays.
    let huge = dir.join("huge.svm");
    std::fs::write(&huge, "1 1:1 1099511627776:2\n-1 5:1\n").unwrap();
    let (ok, j, err) = kern(&["info", "--data", huge.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert_eq!((j["d"].as_u64(), j["nnz"].as_u64()), (Some(1 << 40), Some(3)));
    assert!(j["feature_ranges"].is_null());
    let (ok, j, err) = kern(&["gram", "--data", huge.to_str().unwrap(), "--kernel", "linear"]);
    assert!(ok, "{err}");
    assert_eq!(j["trace"], 6.0);
    // Kernel PCA goes through the kernel-matrix layer and keeps the store sparse.
    let (ok, _, err) =
        kern(&["kpca", "--data", huge.to_str().unwrap(), "--kernel", "linear", "--components", "1"]);
    assert!(ok, "{err}");
    // FVS evaluates kernels on the sparse store: it runs on the 2^40-feature file too.
    let (ok, j, err) = kern(&["fvs", "--data", huge.to_str().unwrap(), "--kernel", "linear"]);
    assert!(ok, "{err}");
    assert_eq!(j["storage"], "sparse", "{j}");
    assert_eq!(j["n_fv"], 2, "{j}");
    // The bandwidth and support heuristics read pairs of sparse samples: no dense copy of 2^40 columns.
    // Pairs (1, 0): ‖x₁ − x₀‖² = 1 + 4 + 1 = 6, the only pair, so the median rule (β = 1/median of the
    // squared distances) gives β = 1/6 up to the rounding of one sum (a priori: 1e-12 is far above it).
    let (ok, j, err) = kern(&["tune", "bandwidth", "--data", huge.to_str().unwrap(), "--method", "median"]);
    assert!(ok, "{err}");
    assert_eq!(j["storage"], "sparse", "{j}");
    let beta = j["beta"].as_f64().unwrap();
    assert!((beta * 6.0 - 1.0).abs() < 1e-12, "{j}");
    let (ok, j, err) = kern(&[
        "tune",
        "support",
        "--data",
        huge.to_str().unwrap(),
        "--base",
        "gaussian:sigma=1",
        "--min-sparsity",
        "0.5",
    ]);
    assert!(ok, "{err}");
    assert_eq!(j["storage"], "sparse", "{j}");
    // Scaling onto [0, 1] keeps zeros at zero: the scaled file is written from the sparse store.
    let scaled = dir.join("huge.scaled");
    let (ok, j, err) =
        kern(&["scale", "-l", "0", "--data", huge.to_str().unwrap(), "--out", scaled.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert_eq!((j["storage"].as_str(), j["nonzeros_after"].as_u64()), (Some("sparse"), Some(3)), "{j}");
    // The railway kernel needs dense samples (its areas and centres are dense points): a clear error.
    let (ok, _, err) = kern(&[
        "train",
        "--model",
        "svc",
        "--kernel",
        "railway:auto",
        "--data",
        huge.to_str().unwrap(),
        "--out",
        m,
    ]);
    assert!(!ok && err.contains("railway kernel") && err.contains("dense"), "{err}");
}

/// `kern scale` onto the default [-1, 1] of a LIBSVM file with a feature index of 10⁹: zeros become
/// -1 in the three varying features only, so the result stays sparse (9 values, never 3 × 10⁹) and
/// runs under a 1 GB address space; the values are svm-scale's.
#[test]
fn scale_of_a_feature_index_of_1e9_stays_sparse_under_a_small_address_space() {
    let dir = scratch("scale-1e9");
    let data = dir.join("x.svm");
    std::fs::write(&data, "1 1:0.5 1000000000:1\n-1 2:0.3 1000000000:3\n1 1:1.5\n").unwrap();
    let out = dir.join("x.scaled");
    let r = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1000000 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_kern"))
        .args(["scale", "-q", "--data", data.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{:?}: {stderr}", r.status);
    let j: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!((j["d"].as_u64(), j["nonzeros_after"].as_u64()), (Some(1_000_000_000), Some(9)), "{j}");
    // Ranges: feature 1 [0, 1.5], feature 2 [0, 0.3], feature 10⁹ [0, 3]; v ↦ -1 + 2 v / (max - min).
    let third = -1.0 + 2.0 * 0.5 / 1.5;
    let want: [(&str, &[(usize, f64)]); 3] = [
        ("1", &[(1, third), (2, -1.0), (1_000_000_000, third)]),
        ("-1", &[(1, -1.0), (2, 1.0), (1_000_000_000, 1.0)]),
        ("1", &[(1, 1.0), (2, -1.0), (1_000_000_000, -1.0)]),
    ];
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
    for (line, (label, pairs)) in text.lines().zip(want) {
        let mut fields = line.split_whitespace();
        assert_eq!(fields.next(), Some(label), "{line}");
        let got: Vec<(usize, f64)> = fields
            .map(|f| {
                let (j, v) = f.split_once(':').unwrap();
                (j.parse().unwrap(), v.parse().unwrap())
            })
            .collect();
        assert_eq!(got, pairs, "{line}");
    }
}
