//! Prediction on samples with features the model never saw follows LIBSVM: the stored samples are
//! zero in the unseen features. Checked against a brute-force evaluation of LIBSVM's decision value
//! `Σ_i coef_i k(sv_i, x) + b` on explicit zero-padded vectors, for linear and Gaussian kernels, models
//! trained on a dense and on a sparse store, test samples of either store.

use kern_models::svm::SvcParams;
use kern_models::widen::WidenFeatures;
use kern_models::{BinaryTargets, Fit, KernelSpec, Samples};

/// A small deterministic generator (xorshift64*), so the data need no extra dependency.
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Rows of `d` values in [−1, 1], about half of them zero.
    fn rows(&mut self, n: usize, d: usize) -> Vec<Vec<f64>> {
        (0..n)
            .map(|_| (0..d).map(|_| if self.next() < 0.5 { 0.0 } else { 2.0 * self.next() - 1.0 }).collect())
            .collect()
    }
}

fn brute(kernel: &str, gamma: f64, sv: &[f64], x: &[f64]) -> f64 {
    // `sv` is zero beyond its length: LIBSVM's rule.
    let s = |j: usize| sv.get(j).copied().unwrap_or(0.0);
    match kernel {
        "linear" => x.iter().enumerate().map(|(j, v)| s(j) * v).sum(),
        _ => (-gamma * x.iter().enumerate().map(|(j, v)| (s(j) - v) * (s(j) - v)).sum::<f64>()).exp(),
    }
}

#[test]
fn unseen_features_follow_libsvm() {
    let (d_train, d_test, gamma) = (5, 9, 0.5);
    for seed in [1u64, 2, 3] {
        let mut g = Gen(0x9E37_79B9_7F4A_7C15 ^ seed);
        let train = g.rows(40, d_train);
        let labels: Vec<f64> = train
            .iter()
            .map(|r| if r[0] + r[1] - 0.5 * r[2] + 0.2 * (g.next() - 0.5) > 0.0 { 1.0 } else { -1.0 })
            .collect();
        let y = BinaryTargets::from_f64(&labels).unwrap();
        let test = g.rows(12, d_test);
        // Every test sample has a nonzero unseen feature, so the rule matters for every one.
        let test: Vec<Vec<f64>> = test
            .into_iter()
            .enumerate()
            .map(|(i, mut r)| {
                r[d_train + i % (d_test - d_train)] = 0.3 + 0.05 * i as f64;
                r
            })
            .collect();
        let dense_train = Samples::from_rows(&train).unwrap();
        let dense_test = Samples::from_rows(&test).unwrap();
        for kernel in ["linear", "gaussian"] {
            let spec: KernelSpec = if kernel == "linear" {
                "linear".parse().unwrap()
            } else {
                format!("gaussian:gamma={gamma}").parse().unwrap()
            };
            for sparse_model in [false, true] {
                let x = if sparse_model { dense_train.to_sparse() } else { dense_train.clone() };
                let mut m = SvcParams::new(spec.clone()).c(2.0).fit(&x, &y).unwrap();
                assert!(m.decision_function(&dense_test).is_err(), "dimension mismatch before widening");
                m.widen_features(d_test).unwrap();
                assert_eq!(m.n_features(), d_test);
                assert!(m.support_vectors().is_sparse(), "widened as a sparse store, never densified");
                let (idx, coef) = m.machine_coefficients(0);
                let b = m.machines()[0].2;
                let sv = m.support_vectors().to_dense().unwrap();
                for t in [dense_test.clone(), dense_test.to_sparse()] {
                    let f = m.decision_function(&t).unwrap();
                    for (r, row) in test.iter().enumerate() {
                        let terms: Vec<f64> = idx
                            .iter()
                            .zip(&coef)
                            .map(|(&i, c)| c * brute(kernel, gamma, &sv.row(i)[..d_train], row))
                            .collect();
                        let want = terms.iter().sum::<f64>() + b;
                        // A priori bound: each kernel value is computed to a few ulp of its terms
                        // (dots and distances of ≤ 9 coordinates in [−1, 1]: absolute error ≤ 9·2·ε·9;
                        // the Gaussian's exp adds a few ulp and multiplies the distance error by
                        // γ = 0.5), i.e. well under 1e-13 absolute per kernel value; summing ≤ 40 terms
                        // in another order adds ≤ 40·ε·Σ|coef·k|. 1e-12·(1 + Σ|coef_i|·max(1, |k|))
                        // covers both with margin.
                        let scale: f64 = 1.0
                            + terms.iter().map(|v| v.abs()).sum::<f64>()
                            + coef.iter().map(|c| c.abs()).sum::<f64>()
                                * if kernel == "linear" { 9.0 } else { 1.0 };
                        assert!(
                            (f[(r, 0)] - want).abs() <= 1e-12 * scale,
                            "{kernel} sparse_model={sparse_model} seed={seed} row {r}: {} vs {want}",
                            f[(r, 0)]
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn widening_keeps_predictions_on_the_old_features() {
    let mut g = Gen(7);
    let train = g.rows(30, 4);
    let labels: Vec<f64> = train.iter().map(|r| if r[0] > 0.0 { 1.0 } else { -1.0 }).collect();
    let y = BinaryTargets::from_f64(&labels).unwrap();
    let x = Samples::from_rows(&train).unwrap();
    let test = Samples::from_rows(&g.rows(10, 4)).unwrap();
    let spec: KernelSpec = "gaussian:gamma=1".parse().unwrap();
    let mut m = SvcParams::new(spec).fit(&x, &y).unwrap();
    let before = m.decision_function(&test).unwrap();
    m.widen_features(1 << 40).unwrap();
    let wide = test.widen(1 << 40).unwrap();
    let after = m.decision_function(&wide).unwrap();
    for (a, b) in before.col(0).iter().zip(after.col(0).iter()) {
        // Same kernel values up to the dense vs sparse evaluation order (a few ulp per value).
        assert!((a - b).abs() <= 1e-12 * (1.0 + a.abs()), "{a} vs {b}");
    }
    assert!(m.widen_features(3).is_err(), "narrowing is refused");
}
