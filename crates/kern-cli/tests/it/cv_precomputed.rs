//! `kern cv --kernel precomputed` (LIBSVM `-t 4` files: the kernel matrix of the training points) and
//! the refusals of `kern cv` / `kern tune` around precomputed kernels.
//!
//! The agreement test runs `kern cv` twice with the same seed: on a data file with a Gaussian kernel,
//! and on the file of that kernel's matrix. Premise, asserted first: the matrix written is the Gram
//! kern computes for the samples (kern-core's `gram`, the function every SVM fit goes through), and a
//! training fold's own Gram is the full one restricted to the fold, bit for bit (the points are 2-D,
//! where kern-core computes every entry directly from the pair; the file holds each double's shortest
//! round-trip decimal, so it reads back exactly). Both runs then solve the same duals on the same
//! doubles — the warm-started C path reads the shared matrix, the other folds their submatrix — so
//! the fold accuracies are asserted equal. Predictions differ at most in the summation order of
//! `Σ coef_j K(x, x_j)` (kernel rows gathered from the matrix vs the cross-Gram product): a label could
//! flip only for a decision value within that rounding of 0, and regression scores (negative MSE) are
//! compared within 1e-9 relative, far above `n_sv · 2⁻⁵²` relative rounding of each prediction.

use crate::common::{kern, scratch};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// `n` 2-D points in three overlapping clusters (deterministic), their class (0, 1, 2) and a
/// real-valued target.
fn points(n: usize) -> (Vec<[f64; 2]>, Vec<usize>, Vec<f64>) {
    let mut x = Vec::new();
    let (mut class, mut t) = (Vec::new(), Vec::new());
    for i in 0..n {
        let c = i % 3;
        let a = i as f64 * 0.618_033_988_749_895;
        let (u, v) = ((a * 7.3).sin(), (a * 3.1).cos());
        let p = [c as f64 * 1.1 + 0.9 * u, (c as f64 - 1.0).abs() * 0.8 + 0.9 * v];
        t.push((p[0] * 1.7).sin() + 0.3 * p[1]);
        x.push(p);
        class.push(c);
    }
    (x, class, t)
}

/// Writes the samples file and the precomputed file (rows `label 0:i 1:K(x_i,x_1) …`) of `labels`.
fn write_pair(
    dir: &Path,
    name: &str,
    x: &[[f64; 2]],
    labels: &[String],
    k: &faer::Mat<f64>,
) -> (String, String) {
    let (mut data, mut pre) = (String::new(), String::new());
    for (i, p) in x.iter().enumerate() {
        writeln!(data, "{} 1:{} 2:{}", labels[i], p[0], p[1]).unwrap();
        write!(pre, "{} 0:{}", labels[i], i + 1).unwrap();
        for j in 0..x.len() {
            write!(pre, " {}:{}", j + 1, k[(i, j)]).unwrap();
        }
        pre.push('\n');
    }
    let (a, b) = (dir.join(format!("{name}.txt")), dir.join(format!("{name}.pre.txt")));
    std::fs::write(&a, data).unwrap();
    std::fs::write(&b, pre).unwrap();
    (a.display().to_string(), b.display().to_string())
}

fn fold_scores(j: &Value) -> Vec<Vec<f64>> {
    j["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .map(|c| c["fold_scores"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect())
        .collect()
}

#[test]
fn cv_on_the_matrix_of_a_kernel_gives_the_folds_of_that_kernel() {
    let dir = scratch("folds-of-kernel");
    let n = 90;
    let (x, class, target) = points(n);
    let beta = 0.7;
    let samples = kern_core::Samples::from_rows(&x).unwrap();
    let gauss = kern_core::Gaussian::with_beta(beta).unwrap();
    let k = kern_core::gram(&gauss, &samples).unwrap();
    // Premise: a fold's Gram is the full Gram restricted to it, bit for bit.
    let fold: Vec<usize> = (0..n).filter(|i| i % 4 != 1).collect();
    let kf = kern_core::gram(&gauss, &samples.select(&fold).unwrap()).unwrap();
    for (a, &i) in fold.iter().enumerate() {
        for (b, &j) in fold.iter().enumerate() {
            assert_eq!(kf[(a, b)].to_bits(), k[(i, j)].to_bits(), "premise: fold Gram entry ({i}, {j})");
        }
    }
    let binary: Vec<String> = class.iter().map(|&c| if c == 1 { "1" } else { "-1" }.to_string()).collect();
    let three: Vec<String> = class.iter().map(|c| c.to_string()).collect();
    let real: Vec<String> = target.iter().map(|t| t.to_string()).collect();
    let (bin_x, bin_k) = write_pair(&dir, "binary", &x, &binary, &k);
    let (three_x, three_k) = write_pair(&dir, "three", &x, &three, &k);
    let (real_x, real_k) = write_pair(&dir, "real", &x, &real, &k);
    let kernel = format!("gaussian:beta={beta}");
    let cases: Vec<(&str, &str, &str, Vec<&str>)> = vec![
        // Two-class C-SVC along c: the warm-started path, and each cell on its own.
        ("c-svc warm", &bin_x, &bin_k, vec!["--type", "c-svc", "--grid", "c=2^-3..2^5:5"]),
        ("c-svc cold", &bin_x, &bin_k, vec!["--model", "svc", "--grid", "c=2^-3..2^5:5", "--no-warm-start"]),
        ("c-svc 3 classes", &three_x, &three_k, vec!["--model", "svc", "--grid", "c=[0.5,8]"]),
        ("nu-svc", &three_x, &three_k, vec!["--type", "nu-svc", "--grid", "nu=[0.2,0.5]"]),
        (
            "epsilon-svr",
            &real_x,
            &real_k,
            vec!["--type", "epsilon-svr", "--grid", "c=[1,10],epsilon=[0.05,0.2]"],
        ),
        ("nu-svr", &real_x, &real_k, vec!["--type", "nu-svr", "--grid", "nu=[0.3,0.6]", "--c", "4"]),
    ];
    for (name, data, pre, extra) in cases {
        let run = |file: &str, kernel: &str| {
            let mut args =
                vec!["cv", "--data", file, "--kernel", kernel, "--folds", "4", "--seed", "11", "-q"];
            args.extend(&extra);
            let (ok, j, err) = kern(&args);
            assert!(ok, "{name} ({kernel}): {err}");
            j
        };
        let (a, b) = (run(data, &kernel), run(pre, "precomputed"));
        assert_eq!(b["kernel"], "precomputed", "{name}");
        assert_eq!(a["validation"], b["validation"], "{name}");
        assert_eq!(a["n"], b["n"], "{name}");
        let (sa, sb) = (fold_scores(&a), fold_scores(&b));
        assert_eq!(sa.len(), sb.len(), "{name}: cells");
        let regression = a["scoring"] != "accuracy";
        for (c, (fa, fb)) in sa.iter().zip(&sb).enumerate() {
            assert_eq!(fa.len(), 4, "{name}: four folds");
            for (f, (u, v)) in fa.iter().zip(fb).enumerate() {
                if regression {
                    assert!(
                        (u - v).abs() <= 1e-9 * u.abs().max(1e-300),
                        "{name} cell {c} fold {f}: {u} vs {v}"
                    );
                } else {
                    assert_eq!(u, v, "{name} cell {c} fold {f}");
                }
            }
        }
        if !regression {
            assert_eq!(a["best_params"], b["best_params"], "{name}");
        }
    }
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../kern-models/tests/fixtures/libsvm/precomputed")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn precomputed_cv_and_tune_refuse_what_a_kernel_matrix_cannot_give() {
    let gr = fixture("gr_train.txt");
    let sinc = fixture("sinc_train.txt");
    for (args, want) in [
        (vec!["--model", "svc", "--grid", "c=[1,2],sigma=[0.5,1]"], "a precomputed kernel has none"),
        (vec!["--model", "svc", "--grid", "max_fv=[3]"], "is not a parameter of --model svc"),
        (vec!["--type", "c-svc", "--grid", "nu=[0.2]"], "a precomputed kernel has none"),
        (vec!["--type", "nu-svc", "--grid", "c=[1]"], "is not a parameter of --type nu-svc"),
        (vec!["--model", "krr", "--grid", "lambda=[1]"], "cross-validates the SVMs"),
        (vec!["--type", "one-class", "--grid", "nu=[0.2]"], "one-class"),
    ] {
        let mut all = vec!["cv", "--data", &gr, "--kernel", "precomputed", "-q"];
        all.extend(&args);
        let (ok, _, err) = kern(&all);
        assert!(!ok && err.contains(want), "{args:?}: {err}");
    }
    // A precomputed-kernel file has no sample coordinates to choose a bandwidth or a radius from.
    for args in [
        vec!["tune", "bandwidth", "--data", &gr, "--method", "median"],
        vec!["tune", "support", "--data", &sinc, "--base", "gaussian:sigma=1", "--gamma", "1"],
    ] {
        let (ok, _, err) = kern(&args);
        assert!(
            !ok && err.contains("precomputed kernel matrix") && err.contains("distances"),
            "{args:?}: {err}"
        );
    }
    let (ok, _, err) = kern(&["tune", "support", "--data", &sinc, "--base", "precomputed", "--gamma", "1"]);
    assert!(!ok && err.contains("--base precomputed"), "{err}");
    // The same files' samples are still tuned when they are samples (the refusal reads the format).
    let d = scratch("refuse");
    let plain = d.join("plain.txt");
    std::fs::write(&plain, "1 1:0.5 2:1\n-1 1:1.5 2:0\n1 1:2 2:2\n-1 1:0 2:3\n").unwrap();
    let (ok, j, err) = kern(&["tune", "bandwidth", "--data", plain.to_str().unwrap(), "--method", "median"]);
    assert!(ok && j["beta"].as_f64().unwrap() > 0.0, "{err}");
}

#[test]
fn malformed_precomputed_files_are_named_errors_in_cv() {
    let d = scratch("malformed");
    for (name, text, want) in [
        ("no_serial.txt", "1 1:1 2:0.5\n-1 1:0.5 2:1\n", "0:SERIAL"),
        ("order.txt", "1 0:2 1:1 2:0.5\n-1 0:1 1:0.5 2:1\n", "in order"),
        ("short.txt", "1 0:1 1:1\n-1 0:2 1:0.5\n1 0:3 1:0.2\n", "columns 1 to 3"),
        ("asym.txt", "1 0:1 1:1 2:0.5\n-1 0:2 1:0.4 2:1\n", "not symmetric"),
        ("nan.txt", "1 0:1 1:1 2:nan\n-1 0:2 1:0.5 2:1\n", "not a finite number"),
    ] {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        let (ok, _, err) = kern(&[
            "cv",
            "--data",
            p.to_str().unwrap(),
            "--kernel",
            "precomputed",
            "--model",
            "svc",
            "--grid",
            "c=[1]",
            "--folds",
            "2",
            "-q",
        ]);
        assert!(!ok && err.contains(want), "{name}: {err}");
    }
}

/// Under a ν type `nu` is the model's; a compactly supported kernel's exponent is then `k.nu` (and its
/// support radius `k.c`): a cell of `--grid nu=..,k.nu=..,k.c=..` is the run with those values written
/// into the kernel spec (the base spec's own values, very different, are overridden).
#[test]
fn kernel_keys_colliding_with_model_parameters_take_the_k_prefix() {
    let d = scratch("k-prefix");
    let (x, class, _) = points(36);
    let text: String = x
        .iter()
        .zip(&class)
        .map(|(p, &c)| format!("{} 1:{} 2:{}\n", if c == 1 { 1 } else { -1 }, p[0], p[1]))
        .collect();
    let f = d.join("prefix.txt");
    std::fs::write(&f, text).unwrap();
    let run = |kernel: &str, grid: &str| {
        let (ok, j, err) = kern(&[
            "cv",
            "--data",
            f.to_str().unwrap(),
            "--type",
            "nu-svc",
            "--kernel",
            kernel,
            "--grid",
            grid,
            "--folds",
            "3",
            "--seed",
            "5",
            "-q",
        ]);
        assert!(ok, "{err}");
        fold_scores(&j)
    };
    let prefixed = run("cs-gaussian:sigma=1,c=0.2,nu=2", "nu=[0.3],k.nu=[3],k.c=[4]");
    let written = run("cs-gaussian:sigma=1,c=4,nu=3", "nu=[0.3]");
    assert_eq!(prefixed, written);
}
