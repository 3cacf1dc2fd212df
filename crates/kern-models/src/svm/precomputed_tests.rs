//! Precomputed kernels against the built-in kernel they were computed from.
//!
//! **Same path.** Training with a built-in kernel on these problems (dimension 13, the precomputed Gram
//! pinned by [`plan::Tuning::force_precompute`], n small enough for the Gram to fit in half the cache)
//! hands the solver the dense
//! Gram `train::dense_gram(kernel, x_problem)`. Training on the precomputed matrix hands it the user's
//! matrix restricted to the problem's serials. When those two matrices are equal bit for bit (asserted
//! first, as the premise), the solver runs the same arithmetic on the same numbers, so support vectors,
//! dual coefficients, `ρ` and iteration counts must be **bit-identical**.
//!
//! **Decision values** are computed differently: the built-in model expands `K(Z, SV)·A` (blocked
//! products over its own cross Gram), the precomputed one sums `coef_k · row[serial_k]` over the
//! cross Gram `K(Z, X)` given as rows. The bound, derived before running (u = 2⁻⁵³):
//! - kernel entries: each is `exp(−β r²)` with `r²` from `‖z‖² + ‖x‖² − 2⟨z, x⟩` or from differences;
//!   either way `|Δr²| ≤ (2d + 4) u (‖z‖² + ‖x‖²)` (Higham §3.1 for sums of `d` terms), and `exp`
//!   adds ≤ 1 ulp; so two evaluations of one entry differ by `δ_K ≤ 2 (β (2d + 4) u R + u)` with
//!   `R = max (‖z‖² + ‖x‖²)`;
//! - the sums `Σ_k c_k K_k` of `m` terms in two orders: each within `γ_m Σ|c_k| K_max`, `γ_m ≤ 1.01 m u`;
//! - subtracting `ρ`: `u (|ρ| + Σ|c_k|)` each.
//!
//! Total: `|Δf| ≤ Σ|c_k| δ_K + 2 γ_m Σ|c_k| + 2u (|ρ| + Σ|c_k|)` (Gaussian: `K_max = 1`).

use super::{
    KernelMatrix, NuSvcParams, NuSvrParams, OneClassParams, SolverParams, SvcParams, SvrParams, plan, train,
};

/// The solver's default parameters with the built-in kernel's Gram precomputed (in `d = 13` the
/// rule would compute its columns on demand; see "Same path").
fn gram() -> SolverParams {
    SolverParams {
        tuning: plan::Tuning { force_precompute: Some(true), ..Default::default() },
        ..Default::default()
    }
}
use kern_core::learner::Model;
use kern_core::{BinaryTargets, ClassTargets, KernelSpec, RealTargets, Samples, Targets};

const D: usize = 13;
const BETA: f64 = 0.3;
const U: f64 = f64::EPSILON / 2.0;

/// Deterministic points in [0, 1]^D.
fn points(n: usize, salt: f64) -> Samples {
    let v: Vec<f64> = (0..n * D)
        .map(|t| {
            let s = ((t as f64 + salt) * 12.9898).sin() * 43758.5453;
            s - s.floor()
        })
        .collect();
    Samples::from_flat(v, n, D).unwrap()
}

fn kernel() -> KernelSpec {
    format!("gaussian:beta={BETA}").parse().unwrap()
}

/// The user's matrix: the built-in kernel's Gram, and test rows `K(Z, X)`.
fn user(x: &Samples, z: &Samples) -> (KernelMatrix, Samples) {
    let k = kernel();
    let g = train::dense_gram(&k, x).unwrap();
    let km = KernelMatrix::new(g.as_ref().clone()).unwrap();
    assert!(km.as_mat() == g.as_ref().as_ref(), "an exactly symmetric Gram is kept bit for bit");
    let c = train::cross(&k, z, x).unwrap();
    let c = &c;
    let rows = Samples::from_flat(
        (0..z.n()).flat_map(|i| (0..x.n()).map(move |j| c[(i, j)])).collect(),
        z.n(),
        x.n(),
    )
    .unwrap();
    (km, rows)
}

/// The premise: the Gram the built-in path computes for the problem on `x.select(idx)` equals the
/// user's matrix restricted to `idx`, bit for bit.
fn assert_same_gram(x: &Samples, idx: &[usize], km: &KernelMatrix) {
    let g = train::dense_gram(&kernel(), &x.select(idx).unwrap()).unwrap();
    let k = km.as_mat();
    for (a, &i) in idx.iter().enumerate() {
        for (b, &j) in idx.iter().enumerate() {
            assert_eq!(g[(a, b)].to_bits(), k[(i, j)].to_bits(), "premise: Gram entry ({i}, {j})");
        }
    }
}

/// The a-priori bound of the module docs on `|f_builtin − f_precomputed|` for one machine.
fn bound(coef: &[f64], rho: f64, x: &Samples, z: &Samples) -> f64 {
    let sq =
        |s: &Samples| (0..s.n()).map(|i| s.row(i).iter().map(|v| v * v).sum::<f64>()).fold(0.0, f64::max);
    let r = sq(x) + sq(z);
    let delta_k = 2.0 * (BETA * (2.0 * D as f64 + 4.0) * U * r + U);
    let l1: f64 = coef.iter().map(|c| c.abs()).sum();
    let gamma = 1.01 * coef.len() as f64 * U;
    l1 * delta_k + 2.0 * gamma * l1 + 2.0 * U * (rho.abs() + l1)
}

/// Serial numbers of a precomputed model's support vectors as 0-based rows.
fn serial_rows(sv: &Samples) -> Vec<usize> {
    (0..sv.n()).map(|i| sv.row(i)[0] as usize - 1).collect()
}

fn assert_rows_are(sv_builtin: &Samples, serial: &[usize], x: &Samples) {
    assert_eq!(sv_builtin.n(), serial.len());
    for (i, &s) in serial.iter().enumerate() {
        assert_eq!(sv_builtin.row(i), x.row(s), "support vector {i} is training point {}", s + 1);
    }
}

fn assert_bits(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (p, q)) in a.iter().zip(b).enumerate() {
        assert_eq!(p.to_bits(), q.to_bits(), "{what}[{i}]: {p} vs {q}");
    }
}

fn binary_labels(n: usize, x: &Samples) -> BinaryTargets {
    BinaryTargets::from_f64(
        &(0..n).map(|i| if x.row(i)[0] + x.row(i)[1] > 1.0 { 1.0 } else { -1.0 }).collect::<Vec<_>>(),
    )
    .unwrap()
}

#[test]
fn c_svc_and_nu_svc_on_the_gram_of_a_builtin_kernel_match_it() {
    let (x, z) = (points(60, 0.0), points(15, 1000.0));
    let (km, rows) = user(&x, &z);
    let y = binary_labels(60, &x);
    // C-SVC: the binary problem is the samples in order; ν-SVC: the +1 samples, then the −1 ones.
    assert_same_gram(&x, &(0..60).collect::<Vec<_>>(), &km);
    let plus: Vec<usize> =
        (0..60).filter(|&i| y.y()[i] > 0.0).chain((0..60).filter(|&i| y.y()[i] < 0.0)).collect();
    assert_same_gram(&x, &plus, &km);
    let t = Targets::Binary(y.clone());
    let fits = [
        (
            kern_core::learner::Fit::fit(&SvcParams::new(kernel()).solver(gram()).c(3.0), &x, &y).unwrap(),
            SvcParams::new(kernel()).solver(gram()).c(3.0).fit_precomputed(&km, &t).unwrap(),
        ),
        (
            kern_core::learner::Fit::fit(&NuSvcParams::new(kernel()).solver(gram()).nu(0.4), &x, &y).unwrap(),
            NuSvcParams::new(kernel()).solver(gram()).nu(0.4).fit_precomputed(&km, &t).unwrap(),
        ),
    ];
    for (b, p) in &fits {
        assert!(p.is_precomputed() && !b.is_precomputed());
        assert_rows_are(b.support_vectors(), &serial_rows(p.support_vectors()), &x);
        let ((si, ci), (sj, cj)) = (b.machine_coefficients(0), p.machine_coefficients(0));
        assert_eq!(si, sj);
        assert_bits(&ci, &cj, "coefficients");
        assert_bits(&[b.stats()[0].rho], &[p.stats()[0].rho], "rho");
        assert_eq!(b.stats()[0].iterations, p.stats()[0].iterations);
        let (fb, fp) = (b.decision_function(&z).unwrap(), p.decision_function(&rows).unwrap());
        let tol = bound(&ci, b.stats()[0].rho, &x, &z);
        for (u, v) in fb.col(0).iter().zip(fp.col(0).iter()) {
            assert!((u - v).abs() <= tol, "decision {u} vs {v} (bound {tol:e})");
        }
        assert_eq!(b.predict(&z).unwrap(), p.predict(&rows).unwrap());
    }
}

#[test]
fn regression_and_one_class_on_the_gram_of_a_builtin_kernel_match_it() {
    let (x, z) = (points(50, 7.0), points(12, 2000.0));
    let (km, rows) = user(&x, &z);
    assert_same_gram(&x, &(0..50).collect::<Vec<_>>(), &km);
    let y = RealTargets::new((0..50).map(|i| (3.0 * x.row(i)[0]).sin() + x.row(i)[1]).collect()).unwrap();
    let svr = [
        (
            kern_core::learner::Fit::fit(
                &SvrParams::new(kernel()).solver(gram()).c(5.0).epsilon(0.05),
                &x,
                &y,
            )
            .unwrap(),
            SvrParams::new(kernel()).solver(gram()).c(5.0).epsilon(0.05).fit_precomputed(&km, &y).unwrap(),
        ),
        (
            kern_core::learner::Fit::fit(&NuSvrParams::new(kernel()).solver(gram()).c(5.0).nu(0.3), &x, &y)
                .unwrap(),
            NuSvrParams::new(kernel()).solver(gram()).c(5.0).nu(0.3).fit_precomputed(&km, &y).unwrap(),
        ),
    ];
    for (b, p) in &svr {
        assert!(p.is_precomputed());
        assert_rows_are(b.support_vectors(), &serial_rows(p.support_vectors()), &x);
        assert_bits(b.coefficients(), p.coefficients(), "coefficients");
        assert_bits(&[b.bias(), b.epsilon()], &[p.bias(), p.epsilon()], "bias, epsilon");
        assert_eq!(b.stats().iterations, p.stats().iterations);
        let tol = bound(b.coefficients(), b.bias(), &x, &z);
        for (u, v) in b.predict(&z).unwrap().iter().zip(&p.predict(&rows).unwrap()) {
            assert!((u - v).abs() <= tol, "prediction {u} vs {v} (bound {tol:e})");
        }
    }
    let b = OneClassParams::new(kernel()).solver(gram()).nu(0.2).fit(&x).unwrap();
    let p = OneClassParams::new(kernel()).solver(gram()).nu(0.2).fit_precomputed(&km).unwrap();
    assert_rows_are(b.support_vectors(), &serial_rows(p.support_vectors()), &x);
    assert_bits(b.coefficients(), p.coefficients(), "one-class coefficients");
    assert_bits(&[b.rho()], &[p.rho()], "one-class rho");
    let tol = bound(b.coefficients(), b.rho(), &x, &z);
    let (fb, fp) = (b.decision_function(&z).unwrap(), p.decision_function(&rows).unwrap());
    for (u, v) in fb.col(0).iter().zip(fp.col(0).iter()) {
        assert!((u - v).abs() <= tol, "one-class decision {u} vs {v} (bound {tol:e})");
    }
}

#[test]
fn multiclass_probability_and_persistence_of_precomputed_models() {
    let (x, z) = (points(45, 3.0), points(9, 500.0));
    let (km, rows) = user(&x, &z);
    let labels: Vec<&str> = (0..45).map(|i| ["a", "b", "c"][i % 3]).collect();
    let y = Targets::Classes(ClassTargets::from_labels(&labels).unwrap());
    let m =
        SvcParams::new(kernel()).solver(gram()).c(2.0).probability(true, 7).fit_precomputed(&km, &y).unwrap();
    assert_eq!(m.n_machines(), 3);
    let p = m.predict_proba(&rows).unwrap();
    for r in (0..p.nrows()).map(|i| p.row(i)) {
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-9 && r.iter().all(|&v| (0.0..=1.0).contains(&v)));
    }
    // A saved precomputed model loads as one and predicts the same values.
    let bytes = crate::persist::to_bytes(&m).unwrap();
    let back: super::Svc = crate::persist::from_bytes(&bytes, "<bytes>").unwrap();
    assert!(back.is_precomputed());
    assert_eq!(back.decision_function(&rows).unwrap(), m.decision_function(&rows).unwrap());
    // Rows too short for the largest support-vector serial are an error naming the kernel matrix.
    let short = Samples::from_flat(vec![0.5; 9 * 3], 9, 3).unwrap();
    assert!(matches!(m.decision_function(&short), Err(crate::ModelsError::KernelMatrix(_))));
}

#[test]
fn invalid_kernel_matrices_are_named_errors() {
    use crate::ModelsError::KernelMatrix as KM;
    let bad = |r: crate::Result<KernelMatrix>| matches!(r, Err(KM(_)));
    assert!(bad(KernelMatrix::from_rows(&[vec![1.0, 0.0], vec![0.0]])));
    assert!(bad(KernelMatrix::from_rows::<Vec<f64>>(&[])));
    assert!(bad(KernelMatrix::new(faer::Mat::from_fn(2, 3, |_, _| 1.0))));
    assert!(bad(KernelMatrix::from_rows(&[[1.0, f64::NAN], [f64::NAN, 1.0]])));
    assert!(bad(KernelMatrix::from_rows(&[[1.0, 0.5], [0.5 + 1e-6, 1.0]])));
    // Within the tolerance: made exactly symmetric by averaging.
    let k = KernelMatrix::from_rows(&[[1.0, 0.5], [0.5 + 1e-12, 1.0]]).unwrap();
    assert_eq!(k.as_mat()[(0, 1)], k.as_mat()[(1, 0)]);
    let x = Samples::from_rows(&[[1.0, 0.0, 0.0]]).unwrap();
    assert!(bad(KernelMatrix::from_samples(&x)));
    // Targets of another length.
    let km = KernelMatrix::from_rows(&[[1.0, 0.0], [0.0, 1.0]]).unwrap();
    let y = RealTargets::new(vec![1.0, 2.0, 3.0]).unwrap();
    assert!(SvrParams::new(kernel()).solver(gram()).fit_precomputed(&km, &y).is_err());
}

#[test]
fn precomputed_models_round_trip_through_libsvm_model_files() {
    use crate::libsvm_model::LibsvmModel;
    let (x, z) = (points(40, 11.0), points(8, 900.0));
    let (km, rows) = user(&x, &z);
    let y = Targets::Binary(binary_labels(40, &x));
    let svc = SvcParams::new(kernel()).solver(gram()).c(4.0).fit_precomputed(&km, &y).unwrap();
    let text = LibsvmModel::from_svc(&svc).unwrap().to_text();
    assert!(text.contains("kernel_type precomputed\n") && !text.contains("gamma"));
    let back = LibsvmModel::parse(&text, "m").unwrap();
    assert!(back.is_precomputed());
    assert_eq!(back.to_text(), text);
    let (_, coef) = svc.machine_coefficients(0);
    assert_eq!(back.n_features(), serial_rows(svc.support_vectors()).into_iter().max().unwrap() + 1);
    let tol = bound(&coef, svc.stats()[0].rho, &x, &z);
    let (a, b) = (back.decision_values(&rows).unwrap(), svc.decision_function(&rows).unwrap());
    for (u, v) in a.iter().zip(b.col(0).iter()) {
        // Same kernel rows, sums in two orders: only the summation and ρ terms of the bound apply.
        assert!((u[0] - v).abs() <= tol, "{} vs {v}", u[0]);
    }
    let svr = SvrParams::new(kernel())
        .solver(gram())
        .fit_precomputed(&km, &RealTargets::new((0..40).map(|i| x.row(i)[2]).collect()).unwrap())
        .unwrap();
    let back = LibsvmModel::parse(&LibsvmModel::from_svr(&svr).unwrap().to_text(), "m").unwrap();
    let tol = bound(svr.coefficients(), svr.bias(), &x, &z);
    for (u, v) in back.predict(&rows).unwrap().iter().zip(&svr.predict(&rows).unwrap()) {
        assert!((u - v).abs() <= tol);
    }
    let oc = OneClassParams::new(kernel()).solver(gram()).nu(0.3).fit_precomputed(&km).unwrap();
    let back = LibsvmModel::parse(&LibsvmModel::from_one_class(&oc).unwrap().to_text(), "m").unwrap();
    assert_eq!(back.predict(&rows).unwrap(), oc.predict(&rows).unwrap());
}

/// Weights in [0.2, 2.5], every fifth one 0 (that sample is dropped before training).
fn test_weights(n: usize) -> crate::weights::SampleWeights {
    let w =
        (0..n).map(|i| if i % 5 == 3 { 0.0 } else { 0.2 + 2.3 * ((i as f64 * 0.618034).fract()) }).collect();
    crate::weights::SampleWeights::new(w).unwrap()
}

/// Sample weights on a precomputed matrix: the same bounds as sample weights with the built-in kernel
/// the matrix was computed from, so (the premise, asserted first: the kept samples' Gram equals the
/// user's matrix restricted to their serials, bit for bit) support vectors, coefficients, `ρ` and
/// iteration counts are bit-identical, and decision values agree within the module's a-priori bound.
/// The support vectors of the precomputed model are the serials of the training points in the whole
/// matrix (the dropped points included in the numbering), so it predicts from kernel rows of width n.
#[test]
fn weighted_fits_on_the_gram_of_a_builtin_kernel_match_weighted_fits_with_it() {
    use crate::weights::FitWeighted;
    let (x, z) = (points(60, 21.0), points(15, 3000.0));
    let (km, rows) = user(&x, &z);
    let w = test_weights(60);
    let kept: Vec<usize> = (0..60).filter(|&i| w.values()[i] > 0.0).collect();
    assert!(kept.len() < 60, "some samples have weight 0");
    let y = binary_labels(60, &x);
    let t = Targets::Binary(y.clone());
    // The problems: C-SVC the kept samples in order, ν-SVC their +1 samples then their −1 ones.
    assert_same_gram(&x, &kept, &km);
    let plus: Vec<usize> = kept
        .iter()
        .filter(|&&i| y.y()[i] > 0.0)
        .chain(kept.iter().filter(|&&i| y.y()[i] < 0.0))
        .copied()
        .collect();
    assert_same_gram(&x, &plus, &km);
    let (svc, nu_svc) =
        (SvcParams::new(kernel()).solver(gram()).c(3.0), NuSvcParams::new(kernel()).solver(gram()).nu(0.4));
    let fits = [
        (svc.fit_weighted(&x, &t, &w).unwrap(), svc.fit_precomputed_with(&km, &t, Some(&w)).unwrap()),
        (nu_svc.fit_weighted(&x, &t, &w).unwrap(), nu_svc.fit_precomputed_with(&km, &t, Some(&w)).unwrap()),
    ];
    for (b, p) in &fits {
        assert!(p.is_precomputed());
        let serials = serial_rows(p.support_vectors());
        assert!(serials.iter().all(|s| kept.contains(s)), "no support vector of weight 0");
        assert_rows_are(b.support_vectors(), &serials, &x);
        let ((si, ci), (sj, cj)) = (b.machine_coefficients(0), p.machine_coefficients(0));
        assert_eq!(si, sj);
        assert_bits(&ci, &cj, "weighted coefficients");
        assert_bits(&[b.stats()[0].rho], &[p.stats()[0].rho], "weighted rho");
        assert_eq!(b.stats()[0].iterations, p.stats()[0].iterations);
        let (fb, fp) = (b.decision_function(&z).unwrap(), p.decision_function(&rows).unwrap());
        let tol = bound(&ci, b.stats()[0].rho, &x, &z);
        for (u, v) in fb.col(0).iter().zip(fp.col(0).iter()) {
            assert!((u - v).abs() <= tol, "decision {u} vs {v} (bound {tol:e})");
        }
        assert_eq!(b.predict(&z).unwrap(), p.predict(&rows).unwrap());
    }
    // The weights matter: the weighted machine is not the unweighted one.
    assert_ne!(fits[0].1, svc.fit_precomputed(&km, &t).unwrap());

    let r = RealTargets::new((0..60).map(|i| (3.0 * x.row(i)[0]).sin() + x.row(i)[1]).collect()).unwrap();
    let rt = Targets::Real(r.clone());
    let (svr, nu_svr) = (
        SvrParams::new(kernel()).solver(gram()).c(5.0).epsilon(0.05),
        NuSvrParams::new(kernel()).solver(gram()).c(5.0).nu(0.3),
    );
    let fits = [
        (svr.fit_weighted(&x, &rt, &w).unwrap(), svr.fit_precomputed_with(&km, &r, Some(&w)).unwrap()),
        (nu_svr.fit_weighted(&x, &rt, &w).unwrap(), nu_svr.fit_precomputed_with(&km, &r, Some(&w)).unwrap()),
    ];
    for (b, p) in &fits {
        assert!(p.is_precomputed());
        assert_rows_are(b.support_vectors(), &serial_rows(p.support_vectors()), &x);
        assert_bits(b.coefficients(), p.coefficients(), "weighted SVR coefficients");
        assert_bits(&[b.bias(), b.epsilon()], &[p.bias(), p.epsilon()], "weighted SVR bias, epsilon");
        assert_eq!(b.stats().iterations, p.stats().iterations);
        let tol = bound(b.coefficients(), b.bias(), &x, &z);
        for (u, v) in b.predict(&z).unwrap().iter().zip(&p.predict(&rows).unwrap()) {
            assert!((u - v).abs() <= tol, "prediction {u} vs {v} (bound {tol:e})");
        }
    }

    let oc = OneClassParams::new(kernel()).solver(gram()).nu(0.2);
    let (b, p) = (oc.fit_weighted(&x, &w).unwrap(), oc.fit_precomputed_with(&km, Some(&w)).unwrap());
    assert_rows_are(b.support_vectors(), &serial_rows(p.support_vectors()), &x);
    assert_bits(b.coefficients(), p.coefficients(), "weighted one-class coefficients");
    assert_bits(&[b.rho()], &[p.rho()], "weighted one-class rho");
    let tol = bound(b.coefficients(), b.rho(), &x, &z);
    let (fb, fp) = (b.decision_function(&z).unwrap(), p.decision_function(&rows).unwrap());
    for (u, v) in fb.col(0).iter().zip(fp.col(0).iter()) {
        assert!((u - v).abs() <= tol, "one-class decision {u} vs {v} (bound {tol:e})");
    }
}

/// Three classes, one-vs-one, class weights and sample weights on a precomputed matrix: each pair's
/// problem is the kept samples of class a then of class b (premise asserted), so the machines are
/// bit-identical to the built-in kernel's; a saved weighted precomputed model loads and predicts alike.
#[test]
fn weighted_multiclass_on_a_precomputed_matrix_matches_the_builtin_kernel() {
    use crate::weights::FitWeighted;
    let (x, z) = (points(45, 5.0), points(9, 700.0));
    let (km, rows) = user(&x, &z);
    let w = test_weights(45);
    let labels: Vec<&str> = (0..45).map(|i| ["a", "b", "c"][(i * 7 / 3) % 3]).collect();
    let t = Targets::Classes(ClassTargets::from_labels(&labels).unwrap());
    let class = |i: usize| labels[i];
    // With three classes the built-in path assembles each pair's Gram from the classes' Grams and the
    // cross Gram between them (`shared_blocks`): the premise is that each of those equals the user's
    // matrix restricted to the same serials.
    let kept =
        |c: &str| -> Vec<usize> { (0..45).filter(|&i| w.values()[i] > 0.0 && class(i) == c).collect() };
    for a in ["a", "b", "c"] {
        assert_same_gram(&x, &kept(a), &km);
    }
    for (a, b) in [("a", "b"), ("a", "c"), ("b", "c")] {
        let (ia, ib) = (kept(a), kept(b));
        let c = train::cross(&kernel(), &x.select(&ia).unwrap(), &x.select(&ib).unwrap()).unwrap();
        for (r, &i) in ia.iter().enumerate() {
            for (q, &j) in ib.iter().enumerate() {
                assert_eq!(
                    c[(r, q)].to_bits(),
                    km.as_mat()[(i, j)].to_bits(),
                    "premise: cross entry ({i}, {j})"
                );
            }
        }
    }
    let p = SvcParams::new(kernel()).solver(gram()).c(2.0).class_weight("b", 2.0);
    let (bm, pm) = (p.fit_weighted(&x, &t, &w).unwrap(), p.fit_precomputed_with(&km, &t, Some(&w)).unwrap());
    assert_eq!(bm.n_machines(), 3);
    for m in 0..3 {
        let ((si, ci), (sj, cj)) = (bm.machine_coefficients(m), pm.machine_coefficients(m));
        assert_eq!(si, sj);
        assert_bits(&ci, &cj, "machine coefficients");
        assert_bits(&[bm.stats()[m].rho], &[pm.stats()[m].rho], "machine rho");
    }
    assert_rows_are(bm.support_vectors(), &serial_rows(pm.support_vectors()), &x);
    assert_eq!(bm.predict(&z).unwrap(), pm.predict(&rows).unwrap());
    let bytes = crate::persist::to_bytes(&pm).unwrap();
    let back: super::Svc = crate::persist::from_bytes(&bytes, "<bytes>").unwrap();
    assert_eq!(back.decision_function(&rows).unwrap(), pm.decision_function(&rows).unwrap());
    // Weights of another length, and targets of another length, are errors.
    let short = crate::weights::SampleWeights::new(vec![1.0; 44]).unwrap();
    assert!(p.fit_precomputed_with(&km, &t, Some(&short)).is_err());
    assert!(OneClassParams::new(kernel()).solver(gram()).fit_precomputed_with(&km, Some(&short)).is_err());
    let r = RealTargets::new(vec![0.5; 44]).unwrap();
    assert!(SvrParams::new(kernel()).solver(gram()).fit_precomputed_with(&km, &r, Some(&w)).is_err());
}
