//! ν-SVC, ν-SVR and one-class SVM training against LIBSVM 3.37 itself: fixtures written by
//! `bench/libsvm_nu_fixtures.py` (libsvm-official) hold the support vectors (training indices and
//! coefficients), `ρ` and the decision values of LIBSVM's trained model on a test file; kern trains
//! on the same file with the same parameters.
//!
//! Two regimes:
//! - **Same path** (MNIST digits at LIBSVM's default `-e 1e-3`; green-red without shrinking and
//!   one-class green-red at `-e 1e-9`): kern's solver takes LIBSVM's path (same start, working-set
//!   rule, ties and shrinking), so the same support vectors are found and `ρ`, coefficients and
//!   decision values agree within [`SAME_PATH`] = 1e-5 relative (of `1 + |value|`; set before the
//!   first run). A support vector found by one side only must have a coefficient within it of 0.
//! - **Any path** (ν-SVC green-red with shrinking, ν-SVR sinc; and green-red without shrinking as a
//!   second check): both solutions are ε-optimal for the same dual, LIBSVM's with its `Q` in single
//!   precision. The objectives, the functions, the offsets and the test decision values are compared
//!   through bounds derived from the stopping tolerance and the cache precision alone (module
//!   `nu_bound`, derivation in its docs), plus the agreement criteria: objective within 1e-3
//!   relative, number of support vectors within 2 %, test accuracy within 0.5 points.

use crate::nu_bound::{Constraint, DOUBLE, Dual, Expected, LIBSVM_FLOAT, Reported, Solution, snap};
use kern_core::learner::{Fit, Model};
use kern_core::{BinaryTargets, ClassTargets, RealTargets, Samples};
use kern_models::svm::{NuSvcParams, NuSvrParams, OneClassParams, Svc};
use std::collections::HashMap;
use std::path::PathBuf;

/// Tolerance when both solvers take the same path (see the module docs).
const SAME_PATH: f64 = 1e-5;
/// The criteria for solutions that took different paths: objective (relative), number of
/// support vectors (relative), test accuracy (points).
const OBJECTIVE: f64 = 1e-3;
const N_SV: f64 = 0.02;
const ACCURACY_POINTS: f64 = 0.5;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/libsvm/nu").join(name)
}

/// A LIBSVM data file as dense rows of `d` features, and its labels.
fn load(name: &str, d: usize) -> (Samples, Vec<f64>) {
    let (y, rows) = crate::nu_bound::read_rows(&fixture(name), 1, Some(d));
    (Samples::from_flat(rows.concat(), rows.len(), d).unwrap(), y)
}

fn expected(name: &str) -> Expected {
    Expected::read(&fixture(&format!("{name}.expected")))
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
    let (x, y) = load("gr_train.txt", 2);
    let (xt, _) = load("gr_test.txt", 2);
    let e = expected(name);
    assert_eq!(e.labels, vec![1, -1]);
    let mut p = NuSvcParams::new(kernel.parse().unwrap()).nu(nu);
    p.solver.shrinking = shrinking;
    p.solver.tol = eps;
    let m = p.fit(&x, &BinaryTargets::from_f64(&y).unwrap()).unwrap();
    assert_eq!(m.nu(), Some(nu));
    let want: Vec<(usize, f64)> = e.sv_column(0);
    let mut want = want;
    want.sort_by_key(|p| p.0);
    assert_same_svs(name, &machine_svs(&m, &x, 0), &want, tol);
    assert!(close(-m.machines()[0].2, e.rho[0], tol), "{name}: rho {} vs {}", -m.machines()[0].2, e.rho[0]);
    let dec: Vec<f64> = m.decision_function(&xt).unwrap().col(0).iter().copied().collect();
    assert_decisions(name, &dec, &e.dec_column(0).iter().map(|d| d.1).collect::<Vec<_>>(), tol);
    let pred = m.predict(&xt).unwrap();
    assert_eq!(pred, e.dec.iter().map(|d| d.0).collect::<Vec<_>>(), "{name}: labels");
}

#[test]
fn nu_svc_green_red_matches_libsvm() {
    check_nu_svc_bounds("nusvc_gr", 0.3, true, 1e-9);
}

#[test]
fn nu_svc_green_red_without_shrinking_matches_libsvm() {
    check_nu_svc_binary("nusvc_gr_noshrink", "gaussian:beta=2.7777777777777777", 0.6, false, 1e-9, SAME_PATH);
    check_nu_svc_bounds("nusvc_gr_noshrink", 0.6, false, 1e-9);
}

#[test]
fn nu_svc_mnist_three_digits_matches_libsvm() {
    let (x, y) = load("mnist_train.txt", 784);
    let (xt, _) = load("mnist_test.txt", 784);
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
        assert_decisions(
            &format!("test sample {r}"),
            &dec.row(r).iter().copied().collect::<Vec<_>>(),
            d,
            SAME_PATH,
        );
        assert_eq!(m.predict(&xt).unwrap()[r], *label, "label of test sample {r}");
    }
}

#[allow(clippy::too_many_arguments)]
fn check_one_class(name: &str, train: &str, test: &str, d: usize, kernel: &str, nu: f64, eps: f64, tol: f64) {
    let (x, _) = load(train, d);
    let (xt, _) = load(test, d);
    let e = expected(name);
    let mut p = OneClassParams::new(kernel.parse().unwrap()).nu(nu);
    p.solver.tol = eps;
    let m = p.fit(&x).unwrap();
    let idx = training_index(&x, m.support_vectors());
    let mut got: Vec<(usize, f64)> = idx.into_iter().zip(m.coefficients().iter().copied()).collect();
    got.sort_by_key(|p| p.0);
    let mut want: Vec<(usize, f64)> = e.sv_column(0);
    want.sort_by_key(|p| p.0);
    assert_same_svs(name, &got, &want, tol);
    assert!(close(m.rho(), e.rho[0], tol), "{name}: rho {} vs {}", m.rho(), e.rho[0]);
    assert_decisions(
        name,
        &m.decision_function(&xt).unwrap().col(0).iter().copied().collect::<Vec<_>>(),
        &e.dec_column(0).iter().map(|d| d.1).collect::<Vec<_>>(),
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

/// Dense Gaussian Gram `exp(−β‖x_i − x_j‖²)` of the training rows, computed here from the formula
/// (independent of both solvers).
fn gaussian_gram(x: &Samples, beta: f64) -> Vec<f64> {
    let n = x.n();
    let mut k = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let d2: f64 = x.row(i).iter().zip(x.row(j)).map(|(a, b)| (a - b) * (a - b)).sum();
            k[i * n + j] = (-beta * d2).exp();
        }
    }
    k
}

fn gaussian_row(x: &Samples, z: &[f64], beta: f64) -> Vec<f64> {
    (0..x.n())
        .map(|i| (-beta * x.row(i).iter().zip(z).map(|(a, b)| (a - b) * (a - b)).sum::<f64>()).exp())
        .collect()
}

fn assert_sv_count(name: &str, kern: usize, libsvm: usize) {
    let (a, b) = (kern as f64, libsvm as f64);
    assert!(
        (a - b).abs() <= N_SV * b,
        "{name}: {kern} support vectors (kern) vs {libsvm} (LIBSVM): more than 2 % apart"
    );
}

const GR_BETA: f64 = 2.7777777777777777;

/// Binary ν-SVC on green-red, compared through the bounds of `nu_bound` (whatever path each solver
/// took): objectives, `‖g_L − g_K‖_H`, `r₊`, `r₋`, ρ, then every test decision value within
/// `(‖g_L − g_K‖ bound + B)/r_L + |r_K dec_K| B/(r_L r_K)` (`B` = the offset bound; `dec = (g − ρ)/r`
/// and `|1/r_L − 1/r_K| ≤ B/(r_L r_K)`), labels equal wherever LIBSVM's decision value is farther
/// from 0 than that bound, and the agreement criteria.
fn check_nu_svc_bounds(name: &str, nu: f64, shrinking: bool, eps: f64) {
    let (x, y) = load("gr_train.txt", 2);
    let (xt, yt) = load("gr_test.txt", 2);
    let e = expected(name);
    assert_eq!(e.labels, vec![1, -1], "LIBSVM's label order +1, −1 is kern's decision sign");
    let mut p = NuSvcParams::new(format!("gaussian:beta={GR_BETA}").parse().unwrap()).nu(nu);
    p.solver.shrinking = shrinking;
    p.solver.tol = eps;
    let m = p.fit(&x, &BinaryTargets::from_f64(&y).unwrap()).unwrap();
    let l = x.n();
    let nul = nu * l as f64;
    let k = gaussian_gram(&x, GR_BETA);
    // sv_coef = y α / r with Σα = νl: r = νl / Σ|coef|, α = |coef| r (LIBSVM svm.cpp solve_nu_svc).
    let solution = |svs: &[(usize, f64)], rho_over_r: f64, eps: f64, q_rel: f64| {
        let r = nul / svs.iter().map(|p| p.1.abs()).sum::<f64>();
        let mut alpha = vec![0.0; l];
        for &(i, c) in svs {
            assert_eq!(c.signum(), y[i].signum(), "{name}: coefficient sign is the label's");
            alpha[i] = snap(c.abs() * r, 1.0);
        }
        let rho = rho_over_r * r;
        (Solution { alpha, eps, q_rel, reported: Reported::Both(r + rho, r - rho) }, r, rho)
    };
    let lib_sv: Vec<(usize, f64)> = e.sv_column(0);
    let (lib, r_l, _) = solution(&lib_sv, e.rho[0], eps, LIBSVM_FLOAT);
    let kern_sv = machine_svs(&m, &x, 0);
    let (kern, r_k, rho_k) = solution(&kern_sv, -m.machines()[0].2, eps, DOUBLE);
    let dual = Dual {
        k: &k,
        l,
        point: (0..l).collect(),
        y: y.clone(),
        p: vec![0.0; l],
        c: 1.0,
        constraint: Constraint::Masses(nul / 2.0, nul / 2.0),
    };
    let ag = dual.agreement(name, &lib, &kern);
    ag.print(name, "");
    // The criterion on the objective (it follows from the gaps when they are small).
    assert!(
        (ag.f.0 - ag.f.1).abs() <= OBJECTIVE * ag.f.0.abs(),
        "{name}: objectives {:?} not within 1e-3",
        ag.f
    );
    assert_sv_count(name, kern_sv.len(), lib_sv.len());
    // Decision values.
    let dec_k: Vec<f64> = m.decision_function(&xt).unwrap().col(0).iter().copied().collect();
    let b = ag.offset_bound;
    let sum_coef: f64 = lib_sv.iter().chain(&kern_sv).map(|p| p.1.abs()).sum();
    let (mut agree_l, mut agree_k) = (0usize, 0usize);
    for (t, ((label_l, dl), dk)) in e.dec.iter().zip(&dec_k).enumerate() {
        let dl = dl[0];
        // Both sides evaluate Σ coef k − ρ/r in double: DOUBLE relative of Σ|coef| + |ρ/r| covers it.
        let round = DOUBLE * (sum_coef + e.rho[0].abs() + (rho_k / r_k).abs());
        let bound = (ag.w_bound + b) / r_l + (r_k * dk).abs() * b / (r_l * r_k) + round;
        assert!(
            (dl - dk).abs() <= bound,
            "{name}: test decision value {t}: LIBSVM {dl}, kern {dk}, bound {bound}"
        );
        let label_k = if *dk > 0.0 { 1.0 } else { -1.0 };
        if dl.abs() > bound {
            assert_eq!(
                *label_l, label_k,
                "{name}: label of test sample {t} (|dec| {dl} beyond the bound {bound})"
            );
        }
        agree_l += usize::from(*label_l == yt[t]);
        agree_k += usize::from(label_k == yt[t]);
    }
    let n = yt.len() as f64;
    let (acc_l, acc_k) = (100.0 * agree_l as f64 / n, 100.0 * agree_k as f64 / n);
    assert!(
        (acc_l - acc_k).abs() <= ACCURACY_POINTS,
        "{name}: accuracy {acc_k} % (kern) vs {acc_l} % (LIBSVM)"
    );
    // Sanity of the recovered LIBSVM solution: its decision values follow from its coefficients.
    for (t, (_, dl)) in e.dec.iter().enumerate().take(5) {
        let kx = gaussian_row(&x, xt.row(t), GR_BETA);
        let g: f64 = ag.beta.0.iter().zip(&kx).map(|(b, k)| b * k).sum();
        let (r, rho) = match lib.reported {
            Reported::Both(p, q) => (0.5 * (p + q), 0.5 * (p - q)),
            Reported::Rho(_) => unreachable!(),
        };
        assert!(((g - rho) / r - dl[0]).abs() <= 1e-9 * (1.0 + dl[0].abs()), "{name}: fixture read back");
    }
}

/// ν-SVR on sinc, compared through the bounds of `nu_bound`. The Gaussian Gram of 300 points on a
/// line is numerically singular, so single coefficients `α − α*` are not determined by the optimum
/// (only the function is) and are not compared; the objective, `‖g_L − g_K‖_H`, ρ and every test
/// decision value (`g − ρ`, within `‖g_L − g_K‖ bound + ρ bound`) are.
#[test]
fn nu_svr_sinc_matches_libsvm() {
    let name = "nusvr_sinc";
    let (c, nu, eps, beta) = (10.0, 0.3, 1e-9, 0.5);
    let (x, y) = load("sinc_train.txt", 1);
    let (xt, _) = load("sinc_test.txt", 1);
    let e = expected(name);
    let mut p = NuSvrParams::new(format!("gaussian:beta={beta}").parse().unwrap()).c(c).nu(nu);
    p.solver.tol = eps;
    let m = p.fit(&x, &RealTargets::new(y.clone()).unwrap()).unwrap();
    assert_eq!(m.nu(), Some(nu));
    assert!(m.epsilon() > 0.0, "{name}: the tube found has positive width, got {}", m.epsilon());
    let l = x.n();
    let k = gaussian_gram(&x, beta);
    // Variables s < l: α_s (y = +1, p = −target); s ≥ l: α*_s (y = −1, p = +target) (svm.cpp
    // solve_nu_svr). β = α − α* is what a model keeps; an ε-optimal solution with a tube wider than
    // eps has no point with both α and α* positive, so α = max(β, 0), α* = max(−β, 0) — the group
    // sums Cνl/2 are then asserted as a premise.
    let split = |beta_pt: &[(usize, f64)]| {
        let mut alpha = vec![0.0; 2 * l];
        for &(i, b) in beta_pt {
            alpha[i] = snap(b.max(0.0), c);
            alpha[l + i] = snap((-b).max(0.0), c);
        }
        alpha
    };
    let lib_sv: Vec<(usize, f64)> = e.sv_column(0);
    let idx = training_index(&x, m.support_vectors());
    let kern_sv: Vec<(usize, f64)> = idx.into_iter().zip(m.coefficients().iter().copied()).collect();
    let (rho_k, r_k) = (-m.bias(), -m.epsilon());
    let lib = Solution { alpha: split(&lib_sv), eps, q_rel: LIBSVM_FLOAT, reported: Reported::Rho(e.rho[0]) };
    let kern = Solution {
        alpha: split(&kern_sv),
        eps,
        q_rel: DOUBLE,
        reported: Reported::Both(r_k + rho_k, r_k - rho_k),
    };
    let mass = c * nu * l as f64 / 2.0;
    let dual = Dual {
        k: &k,
        l,
        point: (0..2 * l).map(|s| s % l).collect(),
        y: (0..2 * l).map(|s| if s < l { 1.0 } else { -1.0 }).collect(),
        p: (0..2 * l).map(|s| if s < l { -y[s] } else { y[s - l] }).collect(),
        c,
        constraint: Constraint::Masses(mass, mass),
    };
    let ag = dual.agreement(name, &lib, &kern);
    ag.print(name, "");
    assert!(
        (ag.f.0 - ag.f.1).abs() <= OBJECTIVE * ag.f.0.abs(),
        "{name}: objectives {:?} not within 1e-3",
        ag.f
    );
    assert_sv_count(name, kern_sv.len(), lib_sv.len());
    let dec_k = m.predict(&xt).unwrap();
    let sum_coef: f64 = lib_sv.iter().chain(&kern_sv).map(|p| p.1.abs()).sum();
    for (t, ((_, dl), dk)) in e.dec.iter().zip(&dec_k).enumerate() {
        // √k(x, x) = 1 for the Gaussian; evaluation rounding as in the ν-SVC check.
        let bound = ag.w_bound + ag.offset_bound + DOUBLE * (sum_coef + e.rho[0].abs() + rho_k.abs());
        assert!(
            (dl[0] - dk).abs() <= bound,
            "{name}: test decision value {t}: LIBSVM {}, kern {dk}, bound {bound}",
            dl[0]
        );
    }
}
