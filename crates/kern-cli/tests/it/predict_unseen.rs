//! `kern predict` on a LIBSVM test file with features the training file never had: LIBSVM's rule (the
//! support vectors are zero there). Each decision value is checked against a brute-force evaluation of
//! LIBSVM's formula `Σ coef_i k(sv_i, x) − ρ` over the model written in LIBSVM's format, for linear and
//! Gaussian kernels and for models trained on a dense and on a sparse store. A CSV file with a
//! different column count stays an error.

use crate::common::{kern, s, scratch};
use std::collections::BTreeMap;
use std::path::Path;

type Row = BTreeMap<usize, f64>;

/// Deterministic rows: `n` samples, `per_row` nonzeros among features `1..=d`, labels by a linear rule.
fn rows(n: usize, d: usize, per_row: usize, salt: usize) -> Vec<(f64, Row)> {
    (0..n)
        .map(|i| {
            let mut r = Row::new();
            for t in 0..per_row {
                let f = 1 + (i * 7 + t * 13 + salt * 3 + t * t * 5) % d;
                let v = ((i * 31 + t * 17 + salt) % 19) as f64 / 9.5 - 1.0;
                if v != 0.0 {
                    r.insert(f, v);
                }
            }
            let score: f64 = r.iter().map(|(f, v)| if f % 2 == 0 { *v } else { -0.7 * v }).sum();
            (if score > 0.0 { 1.0 } else { -1.0 }, r)
        })
        .collect()
}

fn write(path: &Path, rows: &[(f64, Row)]) {
    let mut t = String::new();
    for (y, r) in rows {
        t.push_str(&format!("{y}"));
        for (f, v) in r {
            t.push_str(&format!(" {f}:{v}"));
        }
        t.push('\n');
    }
    std::fs::write(path, t).unwrap();
}

/// LIBSVM's decision value of a two-class model file on sample `x` (brute force over the SV lines).
fn libsvm_decision(model: &str, x: &Row) -> f64 {
    let mut lines = model.lines();
    let (mut rho, mut gamma, mut linear) = (0.0, 0.0, false);
    for l in lines.by_ref() {
        let mut w = l.split_whitespace();
        match w.next() {
            Some("rho") => rho = w.next().unwrap().parse().unwrap(),
            Some("gamma") => gamma = w.next().unwrap().parse().unwrap(),
            Some("kernel_type") => linear = w.next() == Some("linear"),
            Some("SV") => break,
            _ => {}
        }
    }
    let mut f = -rho;
    for l in lines {
        let mut w = l.split_whitespace();
        let coef: f64 = w.next().unwrap().parse().unwrap();
        let sv: Row = w
            .map(|p| {
                let (i, v) = p.split_once(':').unwrap();
                (i.parse().unwrap(), v.parse().unwrap())
            })
            .collect();
        let dot: f64 = x.iter().map(|(i, v)| v * sv.get(i).copied().unwrap_or(0.0)).sum();
        let k = if linear {
            dot
        } else {
            let n2 = |r: &Row| r.values().map(|v| v * v).sum::<f64>();
            (-gamma * (n2(x) + n2(&sv) - 2.0 * dot)).exp()
        };
        f += coef * k;
    }
    f
}

#[test]
fn predict_keeps_unseen_features_as_libsvm_does() {
    let dir = scratch("unseen");
    // A dense training file (4 features, most present) and a sparse one (200 features, 3 per row);
    // the test files reach 40 and 260 features.
    for (name, d_train, per_row, d_test) in [("dense", 4, 4, 40), ("sparse", 200, 3, 260)] {
        let train = rows(50, d_train, per_row, 1);
        let mut test = rows(15, d_train, per_row, 2);
        for (i, (_, r)) in test.iter_mut().enumerate() {
            r.insert(d_train + 1 + (i * 11) % (d_test - d_train), 0.25 + 0.05 * i as f64);
        }
        let (ftrain, ftest) = (dir.join(format!("{name}.train")), dir.join(format!("{name}.test")));
        write(&ftrain, &train);
        write(&ftest, &test);
        for kernel in ["linear", "gaussian:gamma=0.3"] {
            let (km, lm, out) = (dir.join("m.kern"), dir.join("m.libsvm"), dir.join("dec.txt"));
            let base = ["train", "--model", "svc", "--kernel", kernel, "--c", "2", "--data", s(&ftrain)];
            let (ok, j, err) = kern(&[&base[..], &["--out", s(&km)]].concat());
            assert!(ok, "{err}");
            assert_eq!(j["storage"], name, "{j}");
            let (ok, _, err) = kern(&[&base[..], &["--out", s(&lm), "--format", "libsvm"]].concat());
            assert!(ok, "{err}");
            let model = std::fs::read_to_string(&lm).unwrap();
            for m in [&km, &lm] {
                let (ok, j, err) = kern(&[
                    "predict",
                    "--model",
                    s(m),
                    "--data",
                    s(&ftest),
                    "--out",
                    s(&out),
                    "--values",
                    "decision",
                ]);
                assert!(ok, "{name} {kernel}: {err}");
                assert!(j["accuracy"].is_number(), "{j}");
                let got: Vec<f64> = std::fs::read_to_string(&out)
                    .unwrap()
                    .split_whitespace()
                    .map(|t| t.parse().unwrap())
                    .collect();
                assert_eq!(got.len(), test.len());
                for ((_, x), g) in test.iter().zip(&got) {
                    let want = libsvm_decision(&model, x);
                    // A priori: the LIBSVM file prints coefficients and ρ with 17 significant digits
                    // (round trip exact), and kernel values on ≤ 5 nonzeros in [−1, 1.3] are computed
                    // to a few ulp; the sum over ≤ 50 support vectors with |coef| ≤ C = 2 differs by
                    // ≤ 50·2·(few ulp) ≈ 1e-13 in another summation order. 1e-10 is ample.
                    assert!((g - want).abs() <= 1e-10, "{name} {kernel} {}: {g} vs {want}", s(m));
                }
            }
        }
    }
    // CSV has every column: a different column count is an error, not a widening (here a file
    // without header, whose columns are taken by position; a named extra column is ignored).
    let csv_train = dir.join("t.csv");
    std::fs::write(&csv_train, "a,b,y\n1,0,1\n0,1,-1\n1,1,1\n0,0,-1\n").unwrap();
    let csv_test = dir.join("u.csv");
    std::fs::write(&csv_test, "1,0,2,1\n0,1,0,-1\n").unwrap();
    let km = dir.join("csv.kern");
    let (ok, _, err) =
        kern(&["train", "--model", "svc", "--kernel", "linear", "--data", s(&csv_train), "--out", s(&km)]);
    assert!(ok, "{err}");
    let (ok, _, err) = kern(&["predict", "--model", s(&km), "--data", s(&csv_test)]);
    assert!(!ok);
    assert!(err.contains("4 columns, the training data had 3"), "{err}");
}
