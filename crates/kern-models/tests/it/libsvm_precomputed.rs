//! LIBSVM 3.37's precomputed-kernel (`-t 4`) models, written by LIBSVM itself
//! (`python3 bench/libsvm_precomputed_fixtures.py`), read and predicted by kern.
//!
//! kern's `LibsvmModel` follows `svm_predict_values` term by term: for a precomputed kernel the kernel
//! value of a support vector with serial `s` is the test row's entry `s` (the same double LIBSVM
//! reads), and the sums run in LIBSVM's order, so the decision values are the same doubles; the
//! assertion uses a 1e-12 tolerance (relative to max(1, |value|)), set before running.

use kern_core::Samples;
use kern_models::libsvm_model::LibsvmModel;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/libsvm/precomputed")
}

/// Kernel rows of a precomputed-format file (`label 0:serial 1:K1 ...`), the `0:` entry dropped.
fn rows(name: &str) -> Samples {
    let text = std::fs::read_to_string(dir().join(name)).unwrap();
    let rows: Vec<Vec<f64>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let toks: Vec<&str> = l.split_whitespace().skip(1).collect();
            assert!(toks[0].starts_with("0:"), "{name}: rows start with 0:SERIAL");
            toks[1..].iter().map(|t| t.split_once(':').unwrap().1.parse().unwrap()).collect()
        })
        .collect();
    Samples::from_rows(&rows).unwrap()
}

/// The `dec` lines of an `.expected` file: LIBSVM's label and decision values per test row.
fn expected_dec(name: &str) -> Vec<(f64, Vec<f64>)> {
    let text = std::fs::read_to_string(dir().join(format!("{name}.expected"))).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("dec "))
        .map(|l| {
            let v: Vec<f64> = l.split_whitespace().map(|t| t.parse().unwrap()).collect();
            (v[0], v[1..].to_vec())
        })
        .collect()
}

#[test]
fn libsvm_written_precomputed_models_predict_identically() {
    for (name, test) in [
        ("csvc", "gr_test.txt"),
        ("nusvc", "gr_test.txt"),
        ("oneclass", "gr_test.txt"),
        ("epsvr", "sinc_test.txt"),
        ("nusvr", "sinc_test.txt"),
    ] {
        let m = LibsvmModel::load(&dir().join(format!("{name}.model"))).unwrap();
        assert!(m.is_precomputed(), "{name}");
        let x = rows(test);
        let (dec, pred) = (m.decision_values(&x).unwrap(), m.predict(&x).unwrap());
        let e = expected_dec(name);
        assert_eq!(e.len(), x.n(), "{name}: one expected line per test row");
        for (t, ((label, d), (kd, kp))) in e.iter().zip(dec.iter().zip(&pred)).enumerate() {
            assert_eq!(label, kp, "{name}: label of test row {t}");
            for (a, b) in d.iter().zip(kd) {
                assert!((a - b).abs() <= 1e-12 * a.abs().max(1.0), "{name} row {t}: LIBSVM {a}, kern {b}");
            }
        }
        // kern writes the model back as LIBSVM wrote it (header and `0:serial` lines), up to the
        // number format: reading kern's text gives the same model.
        assert_eq!(LibsvmModel::parse(&m.to_text(), "m").unwrap(), m, "{name}: round trip");
        // Rows shorter than the largest support-vector serial are refused.
        let short = Samples::from_flat(vec![0.5; 2], 1, 2).unwrap();
        assert!(matches!(m.decision_values(&short), Err(kern_models::ModelsError::KernelMatrix(_))));
    }
}
