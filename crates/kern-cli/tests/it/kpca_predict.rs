//! `kern predict` on kernel PCA models (`kern kpca --save`, kinds `kpca` and `nystrom-kpca`): the
//! projections of the training file equal `kern kpca --out`'s scores, the data file is read as for the
//! other kinds, and wrong inputs are errors.

use crate::common::{kern, scratch, succeeds};
use std::path::Path;

/// Runs a command that must fail cleanly, and returns its standard error.
fn fails(args: &[&str]) -> String {
    let (ok, _, stderr) = kern(args);
    assert!(!ok, "{args:?} succeeded");
    assert!(!stderr.contains("panicked"), "{args:?} panicked:\n{stderr}");
    stderr
}

/// Deterministic points in [0, 1]³ (a scrambled lattice), as `(label, features)`.
fn points(n: usize, shift: f64) -> Vec<(i32, [f64; 3])> {
    (0..n)
        .map(|i| {
            let t = i as f64 + shift;
            let x = [(t * 0.754_877_666).fract(), (t * 0.569_840_291).fract(), (t * 0.323_153_434).fract()];
            (if x[0] + 0.3 * x[1] > 0.6 { 1 } else { -1 }, x)
        })
        .collect()
}

/// LIBSVM text; `extra` appends a feature 4 with that value to every row.
fn libsvm(p: &[(i32, [f64; 3])], extra: Option<f64>) -> String {
    let mut s = String::new();
    for (y, x) in p {
        s.push_str(&format!("{y} 1:{} 2:{} 3:{}", x[0], x[1], x[2]));
        if let Some(v) = extra {
            s.push_str(&format!(" 4:{v}"));
        }
        s.push('\n');
    }
    s
}

/// The scores CSV: checks the `pc1,...,pcK` header, returns the rows.
fn scores(path: &Path, k: usize) -> Vec<Vec<f64>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = (1..=k).map(|j| format!("pc{j}")).collect();
    assert_eq!(lines.next().unwrap(), header.join(","));
    lines.map(|l| l.split(',').map(|v| v.parse::<f64>().unwrap()).collect()).collect()
}

fn max_abs(z: &[Vec<f64>]) -> f64 {
    z.iter().flatten().fold(0.0, |m, v| m.max(v.abs()))
}

#[test]
fn exact_kpca_projects_the_training_file_onto_its_training_scores() {
    let d = scratch("exact");
    let train = d.join("train.svm");
    std::fs::write(&train, libsvm(&points(240, 0.0), None)).unwrap();
    let t = train.to_str().unwrap();
    // A dense Gaussian on the dense path, a compactly supported kernel on the sparse path, both with the
    // full dense eigensolver (asked for: at n = 240 the automatic choice is the iterative one).
    for (kernel, path) in [("gaussian:sigma=0.4", "dense"), ("cs-gaussian:sigma=0.4,c=0.7,nu=3", "sparse")] {
        let (model, out, proj) = (d.join("m.kern"), d.join("scores.csv"), d.join("proj.csv"));
        let (m, o, p) = (model.to_str().unwrap(), out.to_str().unwrap(), proj.to_str().unwrap());
        let fit = succeeds(&[
            "kpca",
            "--data",
            t,
            "--kernel",
            kernel,
            "--components",
            "3",
            "--path",
            path,
            "--solver",
            "dense",
            "--out",
            o,
            "--save",
            m,
        ]);
        assert_eq!(fit["path"], path);
        let v = succeeds(&["predict", "--model", m, "--data", t, "--out", p]);
        assert_eq!(v["model"], "kpca");
        assert_eq!(v["n"], 240);
        assert_eq!(v["components"], 3);
        let (a, b) = (scores(&out, 3), scores(&proj, 3));
        assert_eq!(a.len(), 240);
        assert_eq!(b.len(), 240);
        // Not the same arithmetic: kern kpca writes z_ik = μ_k α_ik, kern predict the expansion
        // Σ_j α_jk k̃(x_i, x_j) with the test-kernel centring; equal for exact eigenpairs, so they agree
        // to rounding of the dense eigensolver and of the expansion.
        let tol = 1e-12 * max_abs(&a);
        for (i, (ra, rb)) in a.iter().zip(&b).enumerate() {
            for (j, (x, y)) in ra.iter().zip(rb).enumerate() {
                assert!((x - y).abs() <= tol, "{kernel}: point {i} component {j}: {x} vs {y}");
            }
        }
    }
}

#[test]
fn nystrom_kpca_projects_the_training_file_bit_for_bit() {
    let d = scratch("nystrom");
    let (train, test) = (d.join("train.svm"), d.join("test.svm"));
    std::fs::write(&train, libsvm(&points(400, 0.0), None)).unwrap();
    std::fs::write(&test, libsvm(&points(50, 9191.5), None)).unwrap();
    let (t, s) = (train.to_str().unwrap(), test.to_str().unwrap());
    for landmarks in ["random:40", "fvs:30"] {
        let (model, out, proj) = (d.join("m.kern"), d.join("scores.csv"), d.join("proj.csv"));
        let (m, o, p) = (model.to_str().unwrap(), out.to_str().unwrap(), proj.to_str().unwrap());
        succeeds(&[
            "kpca",
            "--data",
            t,
            "--kernel",
            "gaussian:sigma=0.3",
            "--components",
            "4",
            "--landmarks",
            landmarks,
            "--out",
            o,
            "--save",
            m,
        ]);
        let v = succeeds(&["predict", "--model", m, "--data", t, "--out", p]);
        assert_eq!(v["model"], "nystrom-kpca");
        assert_eq!(v["landmarks"], landmarks);
        assert_eq!(v["components"], 4);
        // The same function (NystromKpca::transform) on the same samples: the same bytes.
        assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&proj).unwrap(), "{landmarks}");
        // New points: one row each, at any thread count the same bytes.
        let (p1, p2) = (d.join("t1.csv"), d.join("t2.csv"));
        succeeds(&["predict", "--model", m, "--data", s, "--out", p1.to_str().unwrap(), "--threads", "1"]);
        succeeds(&["predict", "--model", m, "--data", s, "--out", p2.to_str().unwrap(), "--threads", "2"]);
        assert_eq!(scores(&p1, 4).len(), 50);
        assert_eq!(std::fs::read(&p1).unwrap(), std::fs::read(&p2).unwrap());
    }
}

#[test]
fn the_data_file_is_read_as_for_the_other_kinds() {
    let d = scratch("read");
    let pts = points(150, 0.0);
    let (train, csv) = (d.join("train.svm"), d.join("train.csv"));
    std::fs::write(&train, libsvm(&pts, None)).unwrap();
    // The same points as CSV with a trailing label column (ignored).
    let mut c = String::from("a,b,c,label\n");
    for (y, x) in &pts {
        c.push_str(&format!("{},{},{},{y}\n", x[0], x[1], x[2]));
    }
    std::fs::write(&csv, c).unwrap();
    let t = train.to_str().unwrap();
    for landmarks in [None, Some("random:30")] {
        let model = d.join("m.kern");
        let m = model.to_str().unwrap();
        // A linear kernel: a feature the training points lack has inner product 0 with all of them.
        let mut fit = vec!["kpca", "--data", t, "--kernel", "linear", "--components", "2", "--save", m];
        fit.extend(landmarks.iter().flat_map(|l| ["--landmarks", *l]));
        succeeds(&fit);
        let project = |data: &Path, name: &str| {
            let out = d.join(name);
            succeeds(&[
                "predict",
                "--model",
                m,
                "--data",
                data.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ]);
            scores(&out, 2)
        };
        let base = project(&train, "base.csv");
        assert_eq!(base.len(), 150);
        // Projections agree to rounding (a dense and a sparse store sum the same products, perhaps in
        // another order).
        let close = |a: &[Vec<f64>], b: &[Vec<f64>], what: &str| {
            assert_eq!(a.len(), b.len());
            let tol = 1e-13 * max_abs(b);
            for (ra, rb) in a.iter().zip(b) {
                for (x, y) in ra.iter().zip(rb) {
                    assert!((x - y).abs() <= tol, "{landmarks:?}: {what}: {x} vs {y}");
                }
            }
        };
        // CSV with its label column: the same samples, the same projections.
        close(&project(&csv, "csv.csv"), &base, "CSV");
        // LIBSVM rows that lack feature 3 project as rows with feature 3 = 0.
        let (no3, zero3) = (d.join("no3.svm"), d.join("zero3.svm"));
        let strip: Vec<(i32, [f64; 3])> = pts.iter().map(|(y, x)| (*y, [x[0], x[1], 0.0])).collect();
        std::fs::write(&zero3, libsvm(&strip, None)).unwrap();
        let mut s = String::new();
        for (y, x) in &pts {
            s.push_str(&format!("{y} 1:{} 2:{}\n", x[0], x[1]));
        }
        std::fs::write(&no3, s).unwrap();
        close(&project(&no3, "no3.csv"), &project(&zero3, "zero3.csv"), "missing feature");
        // LIBSVM, an extra nonzero feature 4 (LIBSVM's rule: zero in the training samples): with the
        // linear kernel it adds nothing.
        let wide = d.join("wide.svm");
        std::fs::write(&wide, libsvm(&pts, Some(2.5))).unwrap();
        close(&project(&wide, "wide.csv"), &base, "extra feature");
        // A CSV with a different column count is an error, as for the other kinds.
        let narrow = d.join("narrow.csv");
        std::fs::write(&narrow, "a,b,label\n0.1,0.2,1\n0.3,0.4,-1\n").unwrap();
        let err = fails(&["predict", "--model", m, "--data", narrow.to_str().unwrap()]);
        assert!(err.contains("feature columns"), "{err}");
        // Decision values and probabilities are not kernel PCA outputs.
        let out = d.join("x.csv");
        let err = fails(&[
            "predict",
            "--model",
            m,
            "--data",
            t,
            "--out",
            out.to_str().unwrap(),
            "--values",
            "decision",
        ]);
        assert!(err.contains("--values"), "{err}");
    }
}
