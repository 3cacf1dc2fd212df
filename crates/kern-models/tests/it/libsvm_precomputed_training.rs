//! Training on a precomputed kernel matrix (LIBSVM `-t 4`) against LIBSVM 3.37 itself: the fixtures
//! (`python3 bench/libsvm_precomputed_fixtures.py`, libsvm-official) hold the support vectors (serials
//! and coefficients), `ρ` and the test decision values of LIBSVM's models trained on a Gaussian Gram
//! of green-red (60 points; C-SVC, ν-SVC, one-class) and of sinc (50 points; ε-SVR, ν-SVR) at
//! LIBSVM's default stopping tolerance `-e 1e-3` (with shrinking). kern trains on the same matrix
//! (read from the same file, so both solvers see the same doubles) with the same parameters and
//! tolerance.
//!
//! Nothing is compared at a chosen tolerance: every assertion is a consequence of ε-optimality of
//! both solutions for the same dual (module `nu_bound`, derivation in its docs, fixed before the
//! first run):
//! - objectives within `gap_L + gap_K`, `‖g_L − g_K‖_H` within `√(2 gap_L) + √(2 gap_K)`, `ρ` (and
//!   `r` of ν-SVC) within the offset bound;
//! - **the same support vectors where the problem is non-degenerate**: every variable whose gradient
//!   is farther from its group's window than the bounds allow is at the same bound in both solutions
//!   (so the same point is a support vector, or not, with the same coefficient `±C`), and the
//!   coefficients of the remaining points within `‖g_L − g_K‖_H / √λ_min(K_UU)`;
//! - test decision values within `‖g_L − g_K‖_H √k(z, z) + ρ bound` (+ rounding), with
//!   `k(z, z) = 1` (the fixture's kernel is the Gaussian); labels equal wherever LIBSVM's decision
//!   value is farther from 0 than that bound.
//!
//! LIBSVM keeps `Q` in single precision (`Qfloat`), kern in double; the bounds allow for that.

use crate::nu_bound::{Agreement, Constraint, DOUBLE, Dual, LIBSVM_FLOAT, Reported, Solution, snap};
use kern_core::learner::Model;
use kern_core::{BinaryTargets, RealTargets, Samples, Targets};
use kern_models::svm::{KernelMatrix, NuSvcParams, NuSvrParams, OneClassParams, Svc, SvcParams, SvrParams};
use std::path::PathBuf;

/// LIBSVM's default stopping tolerance (`-e`), the fixtures' and kern's.
const EPS: f64 = 1e-3;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/libsvm/precomputed")
}

/// Labels and kernel rows (the `0:` entry dropped) of a precomputed-format file.
fn load(name: &str) -> (Vec<f64>, Vec<Vec<f64>>) {
    crate::nu_bound::read_rows(&dir().join(name), 1, None)
}

/// LIBSVM's binary model (one machine) from a fixture.
struct Expected {
    labels: Vec<i64>,
    rho: f64,
    /// 0-based training index and coefficient.
    sv: Vec<(usize, f64)>,
    /// LIBSVM's label and decision value per test row.
    dec: Vec<(f64, f64)>,
}

fn expected(name: &str) -> Expected {
    let e = crate::nu_bound::Expected::read(&dir().join(format!("{name}.expected")));
    Expected { rho: e.rho[0], sv: e.sv_column(0), dec: e.dec_column(0), labels: e.labels }
}

/// The training set of a case: the Gram (row-major), its `KernelMatrix`, the targets, the test rows.
struct Case {
    y: Vec<f64>,
    k: Vec<f64>,
    matrix: KernelMatrix,
    test: Samples,
}

fn case(set: &str) -> Case {
    let (y, rows) = load(&format!("{set}_train.txt"));
    let l = y.len();
    assert!(rows.iter().all(|r| r.len() == l), "{set}: an n × n training Gram");
    let matrix = KernelMatrix::from_rows(&rows).unwrap();
    // The fixture's Gram is exactly symmetric (computed so), so kern trains on these very doubles.
    assert!((0..l).all(|i| (0..l).all(|j| matrix.as_mat()[(i, j)] == rows[i][j])), "{set}: kept bit for bit");
    let (_, test) = load(&format!("{set}_test.txt"));
    Case { y, k: rows.concat(), matrix, test: Samples::from_rows(&test).unwrap() }
}

/// Training index of each support vector of a precomputed model (its serial − 1).
fn serial_index(sv: &Samples) -> Vec<usize> {
    (0..sv.n()).map(|r| sv.row(r)[0] as usize - 1).collect()
}

/// `(training index, coefficient)` of a binary `Svc`'s machine.
fn svc_coefficients(m: &Svc) -> Vec<(usize, f64)> {
    let idx = serial_index(m.support_vectors());
    let (rows, coef) = m.machine_coefficients(0);
    rows.iter().zip(coef).map(|(&r, c)| (idx[r], c)).collect()
}

/// The decision-value checks shared by every case: `|dec_L − dec_K| ≤ bound` on every test row, and
/// for a classifier (`kern_labels` given) the same label wherever `|dec_L| > bound`. Returns how many
/// labels that certifies.
fn check_decisions(
    name: &str,
    lib: &[(f64, f64)],
    kern: &[f64],
    kern_labels: Option<&[f64]>,
    bound: f64,
) -> usize {
    assert_eq!(lib.len(), kern.len(), "{name}: one decision value per test row");
    let mut certified = 0;
    for (t, ((label_l, dl), dk)) in lib.iter().zip(kern).enumerate() {
        assert!(
            (dl - dk).abs() <= bound,
            "{name}: test decision value {t}: LIBSVM {dl}, kern {dk}, bound {bound}"
        );
        if let Some(labels) = kern_labels
            && dl.abs() > bound
        {
            assert_eq!(
                *label_l, labels[t],
                "{name}: label of test row {t} (|dec| {dl} beyond the bound {bound})"
            );
            certified += 1;
        }
    }
    certified
}

fn report(name: &str, ag: &Agreement, n_sv: (usize, usize), labels: usize, n_test: usize) {
    ag.print(name, &format!(", SVs {n_sv:?}, {labels}/{n_test} test labels certified"));
}

/// Σ|coef| of both solutions, for the rounding allowance of the decision values (both evaluate
/// `Σ coef K − ρ` in double: DOUBLE relative of Σ|coef| + |ρ| covers it).
fn coef_mass(a: &[(usize, f64)], b: &[(usize, f64)]) -> f64 {
    a.iter().chain(b).map(|p| p.1.abs()).sum()
}

#[test]
fn c_svc_trained_on_a_precomputed_matrix_agrees_with_libsvm() {
    let name = "csvc";
    let c = 2.0;
    let d = case("gr");
    let e = expected(name);
    assert_eq!(e.labels, vec![1, -1], "LIBSVM's label order +1, −1 is kern's decision sign");
    let y = Targets::Binary(BinaryTargets::from_f64(&d.y).unwrap());
    let m = SvcParams::new("linear".parse().unwrap()).c(c).fit_precomputed(&d.matrix, &y).unwrap();
    let l = d.y.len();
    // C-SVC: α_i on point i, sign y_i, p = −1, box C, Σ y α = 0; LIBSVM's sv_coef = y α.
    let alpha = |sv: &[(usize, f64)]| {
        let mut a = vec![0.0; l];
        for &(i, cf) in sv {
            assert_eq!(cf.signum(), d.y[i].signum(), "{name}: coefficient sign is the label's");
            a[i] = snap(cf.abs(), c);
        }
        a
    };
    let kern_sv = svc_coefficients(&m);
    let rho_k = -m.machines()[0].2;
    let lib = Solution { alpha: alpha(&e.sv), eps: EPS, q_rel: LIBSVM_FLOAT, reported: Reported::Rho(e.rho) };
    let kern = Solution { alpha: alpha(&kern_sv), eps: EPS, q_rel: DOUBLE, reported: Reported::Rho(rho_k) };
    let dual = Dual {
        k: &d.k,
        l,
        point: (0..l).collect(),
        y: d.y.clone(),
        p: vec![-1.0; l],
        c,
        constraint: Constraint::Signed(0.0),
    };
    let ag = dual.agreement(name, &lib, &kern);
    let dec_k: Vec<f64> = m.decision_function(&d.test).unwrap().col(0).iter().copied().collect();
    let round = DOUBLE * (coef_mass(&e.sv, &kern_sv) + e.rho.abs() + rho_k.abs());
    let labels = check_decisions(
        name,
        &e.dec,
        &dec_k,
        Some(&m.predict(&d.test).unwrap()),
        ag.w_bound + ag.offset_bound + round,
    );
    report(name, &ag, (e.sv.len(), kern_sv.len()), labels, dec_k.len());
    // The fixture read back: LIBSVM's decision values follow from its coefficients and ρ.
    for (t, (_, dl)) in e.dec.iter().enumerate() {
        let g: f64 = ag.beta.0.iter().zip(d.test.row(t)).map(|(b, k)| b * k).sum();
        assert!((g - e.rho - dl).abs() <= 1e-12 * (1.0 + dl.abs()), "{name}: fixture read back, row {t}");
    }
}

#[test]
fn nu_svc_trained_on_a_precomputed_matrix_agrees_with_libsvm() {
    let name = "nusvc";
    let nu = 0.4;
    let d = case("gr");
    let e = expected(name);
    assert_eq!(e.labels, vec![1, -1]);
    let y = Targets::Binary(BinaryTargets::from_f64(&d.y).unwrap());
    let m = NuSvcParams::new("linear".parse().unwrap()).nu(nu).fit_precomputed(&d.matrix, &y).unwrap();
    let l = d.y.len();
    let nul = nu * l as f64;
    // sv_coef = y α / r with Σα = νl: r = νl / Σ|coef|, α = |coef| r (LIBSVM svm.cpp solve_nu_svc).
    let solution = |sv: &[(usize, f64)], rho_over_r: f64, q_rel: f64| {
        let r = nul / sv.iter().map(|p| p.1.abs()).sum::<f64>();
        let mut alpha = vec![0.0; l];
        for &(i, cf) in sv {
            assert_eq!(cf.signum(), d.y[i].signum(), "{name}: coefficient sign is the label's");
            alpha[i] = snap(cf.abs() * r, 1.0);
        }
        let rho = rho_over_r * r;
        (Solution { alpha, eps: EPS, q_rel, reported: Reported::Both(r + rho, r - rho) }, r, rho)
    };
    let kern_sv = svc_coefficients(&m);
    let (lib, r_l, _) = solution(&e.sv, e.rho, LIBSVM_FLOAT);
    let (kern, r_k, rho_k) = solution(&kern_sv, -m.machines()[0].2, DOUBLE);
    let dual = Dual {
        k: &d.k,
        l,
        point: (0..l).collect(),
        y: d.y.clone(),
        p: vec![0.0; l],
        c: 1.0,
        constraint: Constraint::Masses(nul / 2.0, nul / 2.0),
    };
    let ag = dual.agreement(name, &lib, &kern);
    // dec = (g − ρ)/r: |dec_L − dec_K| ≤ (‖g‖ bound + B)/r_L + |r_K dec_K| B/(r_L r_K) (B = offset
    // bound, |1/r_L − 1/r_K| ≤ B/(r_L r_K)), as in the ν-SVC test with built-in kernels.
    let dec_k: Vec<f64> = m.decision_function(&d.test).unwrap().col(0).iter().copied().collect();
    let b = ag.offset_bound;
    let round = DOUBLE * (coef_mass(&e.sv, &kern_sv) + e.rho.abs() + (rho_k / r_k).abs());
    let worst = dec_k.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let bound = (ag.w_bound + b) / r_l + (r_k * worst) * b / (r_l * r_k) + round;
    let labels = check_decisions(name, &e.dec, &dec_k, Some(&m.predict(&d.test).unwrap()), bound);
    report(name, &ag, (e.sv.len(), kern_sv.len()), labels, dec_k.len());
}

#[test]
fn one_class_trained_on_a_precomputed_matrix_agrees_with_libsvm() {
    let name = "oneclass";
    let nu = 0.3;
    let d = case("gr");
    let e = expected(name);
    let m = OneClassParams::new("linear".parse().unwrap()).nu(nu).fit_precomputed(&d.matrix).unwrap();
    let l = d.y.len();
    // One-class (LIBSVM solve_one_class): y = +1, p = 0, box 1, Σ α = νl; sv_coef = α.
    let alpha = |sv: &[(usize, f64)]| {
        let mut a = vec![0.0; l];
        for &(i, cf) in sv {
            a[i] = snap(cf, 1.0);
        }
        a
    };
    let kern_sv: Vec<(usize, f64)> =
        serial_index(m.support_vectors()).into_iter().zip(m.coefficients().iter().copied()).collect();
    let lib = Solution { alpha: alpha(&e.sv), eps: EPS, q_rel: LIBSVM_FLOAT, reported: Reported::Rho(e.rho) };
    let kern = Solution { alpha: alpha(&kern_sv), eps: EPS, q_rel: DOUBLE, reported: Reported::Rho(m.rho()) };
    let dual = Dual {
        k: &d.k,
        l,
        point: (0..l).collect(),
        y: vec![1.0; l],
        p: vec![0.0; l],
        c: 1.0,
        constraint: Constraint::Signed(nu * l as f64),
    };
    let ag = dual.agreement(name, &lib, &kern);
    let dec_k: Vec<f64> = m.decision_function(&d.test).unwrap().col(0).iter().copied().collect();
    let round = DOUBLE * (coef_mass(&e.sv, &kern_sv) + e.rho.abs() + m.rho().abs());
    let labels = check_decisions(
        name,
        &e.dec,
        &dec_k,
        Some(&m.predict(&d.test).unwrap()),
        ag.w_bound + ag.offset_bound + round,
    );
    report(name, &ag, (e.sv.len(), kern_sv.len()), labels, dec_k.len());
}

/// ε-SVR and ν-SVR: `2l` variables, `α_s` (`y = +1`) and `α_s*` (`y = −1`) on point `s mod l`. A
/// model keeps `β = α − α*`; at an ε-optimal solution no point has both positive (that would need a
/// violation ≥ 2ε for ε-SVR, resp. the found tube's width for ν-SVR), so `α = max(β, 0)`,
/// `α* = max(−β, 0)`; the constraint sums are then asserted as a premise.
fn split(sv: &[(usize, f64)], l: usize, c: f64) -> Vec<f64> {
    let mut alpha = vec![0.0; 2 * l];
    for &(i, b) in sv {
        alpha[i] = snap(b.max(0.0), c);
        alpha[l + i] = snap((-b).max(0.0), c);
    }
    alpha
}

#[test]
fn epsilon_svr_trained_on_a_precomputed_matrix_agrees_with_libsvm() {
    let name = "epsvr";
    let (c, tube) = (5.0, 0.05);
    let d = case("sinc");
    let e = expected(name);
    let y = RealTargets::new(d.y.clone()).unwrap();
    let m =
        SvrParams::new("linear".parse().unwrap()).c(c).epsilon(tube).fit_precomputed(&d.matrix, &y).unwrap();
    let l = d.y.len();
    let kern_sv: Vec<(usize, f64)> =
        serial_index(m.support_vectors()).into_iter().zip(m.coefficients().iter().copied()).collect();
    let rho_k = -m.bias();
    let lib =
        Solution { alpha: split(&e.sv, l, c), eps: EPS, q_rel: LIBSVM_FLOAT, reported: Reported::Rho(e.rho) };
    let kern =
        Solution { alpha: split(&kern_sv, l, c), eps: EPS, q_rel: DOUBLE, reported: Reported::Rho(rho_k) };
    // LIBSVM solve_epsilon_svr: p_s = ε − z_i (α), ε + z_i (α*), Σ y α = 0.
    let dual = Dual {
        k: &d.k,
        l,
        point: (0..2 * l).map(|s| s % l).collect(),
        y: (0..2 * l).map(|s| if s < l { 1.0 } else { -1.0 }).collect(),
        p: (0..2 * l).map(|s| if s < l { tube - d.y[s] } else { tube + d.y[s - l] }).collect(),
        c,
        constraint: Constraint::Signed(0.0),
    };
    let ag = dual.agreement(name, &lib, &kern);
    let dec_k = m.predict(&d.test).unwrap();
    let round = DOUBLE * (coef_mass(&e.sv, &kern_sv) + e.rho.abs() + rho_k.abs());
    // A regressor's "label" is its value: the values are compared, no sign.
    let labels = check_decisions(name, &e.dec, &dec_k, None, ag.w_bound + ag.offset_bound + round);
    report(name, &ag, (e.sv.len(), kern_sv.len()), labels, dec_k.len());
}

#[test]
fn nu_svr_trained_on_a_precomputed_matrix_agrees_with_libsvm() {
    let name = "nusvr";
    let (c, nu) = (5.0, 0.4);
    let d = case("sinc");
    let e = expected(name);
    let y = RealTargets::new(d.y.clone()).unwrap();
    let m = NuSvrParams::new("linear".parse().unwrap()).c(c).nu(nu).fit_precomputed(&d.matrix, &y).unwrap();
    assert!(m.epsilon() > 0.0, "{name}: the tube found has positive width, got {}", m.epsilon());
    let l = d.y.len();
    let kern_sv: Vec<(usize, f64)> =
        serial_index(m.support_vectors()).into_iter().zip(m.coefficients().iter().copied()).collect();
    let (rho_k, r_k) = (-m.bias(), -m.epsilon());
    let lib =
        Solution { alpha: split(&e.sv, l, c), eps: EPS, q_rel: LIBSVM_FLOAT, reported: Reported::Rho(e.rho) };
    let kern = Solution {
        alpha: split(&kern_sv, l, c),
        eps: EPS,
        q_rel: DOUBLE,
        reported: Reported::Both(r_k + rho_k, r_k - rho_k),
    };
    let mass = c * nu * l as f64 / 2.0;
    // LIBSVM solve_nu_svr: p_s = −z_i (α), +z_i (α*), Σ α = Σ α* = Cνl/2.
    let dual = Dual {
        k: &d.k,
        l,
        point: (0..2 * l).map(|s| s % l).collect(),
        y: (0..2 * l).map(|s| if s < l { 1.0 } else { -1.0 }).collect(),
        p: (0..2 * l).map(|s| if s < l { -d.y[s] } else { d.y[s - l] }).collect(),
        c,
        constraint: Constraint::Masses(mass, mass),
    };
    let ag = dual.agreement(name, &lib, &kern);
    let dec_k = m.predict(&d.test).unwrap();
    let round = DOUBLE * (coef_mass(&e.sv, &kern_sv) + e.rho.abs() + rho_k.abs());
    let labels = check_decisions(name, &e.dec, &dec_k, None, ag.w_bound + ag.offset_bound + round);
    report(name, &ag, (e.sv.len(), kern_sv.len()), labels, dec_k.len());
}
