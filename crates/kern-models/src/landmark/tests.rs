use super::*;
use crate::kmat::PathChoice;
use crate::kpca::{EigenSolver, KernelPcaParams};
use crate::krr::KernelRidgeParams;
use crate::lssvm::LsSvmParams;
use crate::persist;
use faer::linalg::matmul::matmul;
use faer::{Accum, MatRef, Par};
use kern_core::{BinaryTargets, RealTargets, Targets, cross_gram};
use kern_sparse::PcgReport;
use proptest::prelude::*;

/// `n` points in the unit square from a fixed low-discrepancy sequence, and a smooth target.
fn data(n: usize, shift: f64) -> (Samples, Vec<f64>) {
    let pts: Vec<f64> = (0..n)
        .flat_map(|i| {
            let t = i as f64 + shift;
            [(t * 0.754_877_666).fract(), (t * 0.569_840_291).fract()]
        })
        .collect();
    let x = Samples::from_flat(pts, n, 2).unwrap();
    let y = x.rows().map(|r| (3.0 * r[0]).sin() + r[1] * r[1] - 0.4).collect();
    (x, y)
}

fn real(y: &[f64]) -> Targets {
    Targets::Real(RealTargets::new(y.to_vec()).unwrap())
}

fn binary(y: &[f64]) -> Targets {
    Targets::Binary(
        BinaryTargets::from_f64(&y.iter().map(|&v| if v > 0.0 { 1.0 } else { -1.0 }).collect::<Vec<_>>())
            .unwrap(),
    )
}

fn max_abs_diff(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> f64 {
    let mut d: f64 = 0.0;
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            d = d.max((a[(i, j)] - b[(i, j)]).abs());
        }
    }
    d
}

fn kernel() -> KernelSpec {
    "gaussian:sigma=0.3".parse().unwrap()
}

#[test]
fn all_points_as_centres_reproduce_exact_kernel_ridge_and_lssvm() {
    let (x, y) = data(90, 0.0);
    let (xt, _) = data(40, 1000.5);
    let all: Vec<usize> = (0..x.n()).collect();
    let k = kernel();
    let lambda = 1e-2;
    // Kernel ridge, regression.
    let exact = KernelRidgeParams::new(k.clone())
        .lambda(lambda)
        .path(PathChoice::Dense)
        .fit_targets(&x, &real(&y))
        .unwrap();
    for pre in [NystromPreconditioner::Falkon, NystromPreconditioner::None] {
        let nys = NystromRidgeParams::krr(k.clone(), lambda, Landmarks::Random { m: 90 })
            .tol(1e-12, 5000)
            .preconditioner(pre)
            .fit_with_centres(&x, &real(&y), &all)
            .unwrap();
        let (a, b) = (exact.decision_function(&xt).unwrap(), nys.decision_function(&xt).unwrap());
        assert!(
            max_abs_diff(a.as_ref(), b.as_ref()) < 1e-6,
            "krr {pre:?}: {}",
            max_abs_diff(a.as_ref(), b.as_ref())
        );
    }
    // LS-SVM, binary classification: decision values and intercept.
    let exact =
        LsSvmParams::new(k.clone()).gam(10.0).path(PathChoice::Dense).fit_targets(&x, &binary(&y)).unwrap();
    let nys = NystromRidgeParams::lssvm(k, 0.1, Landmarks::Random { m: 90 })
        .tol(1e-12, 5000)
        .fit_with_centres(&x, &binary(&y), &all)
        .unwrap();
    let (a, b) = (exact.decision_function(&xt).unwrap(), nys.decision_function(&xt).unwrap());
    assert!(max_abs_diff(a.as_ref(), b.as_ref()) < 1e-6, "lssvm: {}", max_abs_diff(a.as_ref(), b.as_ref()));
    assert!((exact.bias(0) - nys.bias(0)).abs() < 1e-6);
    // The LS-SVM's Σα = 0 holds for the Nyström solution at m = n.
    let s: f64 = nys.coef(0).iter().sum();
    assert!(s.abs() < 1e-6, "{s}");
    assert_eq!(exact.predict(&xt).unwrap(), nys.predict(&xt).unwrap());
}

/// `‖K_nmᵀy − Hα‖ / ‖K_nmᵀy‖` computed densely, `H = K_nmᵀK_nm + λ(K_mm + εI)`, and the regularised
/// training objective `‖y − K_nm α‖² + λ αᵀ(K_mm + εI)α`.
fn dense_residual(x: &Samples, y: &[f64], model: &NystromRidge, lambda: f64) -> (f64, f64) {
    let c = model.centres();
    let knm = cross_gram(model.kernel(), x, c).unwrap();
    let kmm = cross_gram(model.kernel(), c, c).unwrap();
    let m = c.n();
    let a = Mat::from_fn(m, 1, |j, _| model.coef(0)[j]);
    let yv = Mat::from_fn(x.n(), 1, |i, _| y[i]);
    let mut rhs = Mat::<f64>::zeros(m, 1);
    matmul(rhs.as_mut(), Accum::Replace, knm.transpose(), yv.as_ref(), 1.0, Par::Seq);
    let mut ka = Mat::<f64>::zeros(x.n(), 1);
    matmul(ka.as_mut(), Accum::Replace, knm.as_ref(), a.as_ref(), 1.0, Par::Seq);
    let mut ha = Mat::<f64>::zeros(m, 1);
    matmul(ha.as_mut(), Accum::Replace, knm.transpose(), ka.as_ref(), 1.0, Par::Seq);
    matmul(ha.as_mut(), Accum::Add, kmm.as_ref(), a.as_ref(), lambda, Par::Seq);
    let (mut num, mut den) = (0.0, 0.0);
    for j in 0..m {
        let r = rhs[(j, 0)] - ha[(j, 0)] - lambda * model.jitter() * a[(j, 0)];
        num += r * r;
        den += rhs[(j, 0)] * rhs[(j, 0)];
    }
    let loss: f64 = (0..x.n()).map(|i| (y[i] - ka[(i, 0)]).powi(2)).sum();
    let mut kma = Mat::<f64>::zeros(m, 1);
    matmul(kma.as_mut(), Accum::Replace, kmm.as_ref(), a.as_ref(), 1.0, Par::Seq);
    let pen: f64 = (0..m).map(|j| a[(j, 0)] * (kma[(j, 0)] + model.jitter() * a[(j, 0)])).sum();
    ((num / den).sqrt(), loss + lambda * pen)
}

/// Conjugate gradients minimise the quadratic `½αᵀHα − αᵀK_nmᵀy` over growing Krylov spaces, so the
/// regularised training objective (that quadratic times 2 plus `‖y‖²`) never increases with the
/// iterations (the residual's norm may); the reported residual is the true one (plain CG, whose
/// system is `H α = K_nmᵀy`).
#[test]
fn the_objective_decreases_and_the_residual_is_the_true_one() {
    let (x, y) = data(400, 0.0);
    let lambda = 1e-3;
    let mut objectives = Vec::new();
    let mut residuals = Vec::new();
    for it in [1, 2, 4, 8, 16, 32, 64] {
        let m = NystromRidgeParams::krr(kernel(), lambda, Landmarks::Random { m: 40 })
            .preconditioner(NystromPreconditioner::None)
            .tol(1e-10, it)
            .fit_targets(&x, &real(&y))
            .unwrap();
        let r = m.report();
        let (dense, objective) = dense_residual(&x, &y, &m, lambda);
        assert!((r.residual - dense).abs() <= 1e-6 * dense, "{} vs {dense}", r.residual);
        residuals.push(r.residual);
        objectives.push(objective);
    }
    let yy: f64 = y.iter().map(|v| v * v).sum();
    assert!(objectives[0] < yy, "{objectives:?}");
    for w in objectives.windows(2) {
        assert!(w[1] <= w[0] * (1.0 + 1e-12), "{objectives:?}");
    }
    // The residual's norm falls by orders of magnitude, though not monotonically.
    let best = residuals.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(best < 0.01 * residuals[0], "{residuals:?}");
}

/// A narrow Gaussian and a moderate λ: plain CG on `H` (whose condition number is `K_mm`'s squared)
/// crawls, FALKON's preconditioned system converges in tens of iterations. Measured by the training
/// predictions' distance to the converged solution.
#[test]
fn falkon_needs_far_fewer_iterations_than_plain_cg() {
    let (x, y) = data(2000, 0.0);
    let k: KernelSpec = "gaussian:sigma=0.2".parse().unwrap();
    let fit = |pre, it| {
        NystromRidgeParams::krr(k.clone(), 1e-2, Landmarks::Random { m: 100 })
            .preconditioner(pre)
            .solve(NystromSolve::Iterative)
            .tol(1e-14, it)
            .seed(5)
            .fit_targets(&x, &real(&y))
            .unwrap()
            .predict(&x)
            .unwrap()
    };
    let reference = fit(NystromPreconditioner::Falkon, 2000);
    let norm: f64 = reference.iter().map(|v| v * v).sum::<f64>().sqrt();
    let err =
        |p: Vec<f64>| p.iter().zip(&reference).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt() / norm;
    let falkon = err(fit(NystromPreconditioner::Falkon, 100));
    let plain = err(fit(NystromPreconditioner::None, 1000));
    assert!(falkon < 1e-4, "falkon after 100 iterations: {falkon:e}");
    assert!(plain > 1e-4, "plain CG after 1000 iterations: {plain:e}");
}

#[test]
fn same_seed_same_bytes_at_any_thread_count() {
    let (x, y) = data(700, 0.0);
    for choice in [Landmarks::Random { m: 30 }, Landmarks::Fvs { m: 30, pool: Some(300) }] {
        let p = NystromRidgeParams::lssvm(kernel(), 0.2, choice).seed(11);
        let fit = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| persist::to_bytes(&p.fit_targets(&x, &binary(&y)).unwrap()).unwrap())
        };
        let one = fit(1);
        assert_eq!(one, fit(2), "{choice}");
        assert_eq!(one, fit(2), "{choice}");
        let other = p.clone().seed(12).fit_targets(&x, &binary(&y)).unwrap();
        let first =
            NystromRidgeParams::lssvm(kernel(), 0.2, choice).seed(11).fit_targets(&x, &binary(&y)).unwrap();
        assert_ne!(other.centre_indices(), first.centre_indices(), "{choice}");
    }
}

#[test]
fn saved_models_load_and_predict_alike() {
    let (x, y) = data(300, 0.0);
    let m = NystromRidgeParams::krr(kernel(), 1e-3, Landmarks::Fvs { m: 25, pool: None })
        .fit_targets(&x, &real(&y))
        .unwrap();
    let back: NystromRidge = persist::from_bytes(&persist::to_bytes(&m).unwrap(), "<bytes>").unwrap();
    assert_eq!(back.predict(&x).unwrap(), m.predict(&x).unwrap());
    let kp = NystromKpcaParams::new(kernel(), 3, Landmarks::Random { m: 25 }).fit(&x).unwrap();
    let back: NystromKpca = persist::from_bytes(&persist::to_bytes(&kp).unwrap(), "<bytes>").unwrap();
    assert_eq!(back.transform(&x).unwrap(), kp.transform(&x).unwrap());
}

#[test]
fn bad_parameters_are_errors() {
    let (x, y) = data(50, 0.0);
    let p = NystromRidgeParams::krr(kernel(), 0.0, Landmarks::Random { m: 5 });
    assert!(p.fit_targets(&x, &real(&y)).is_err());
    let p = NystromRidgeParams::krr(kernel(), 1.0, Landmarks::Random { m: 5 });
    assert!(p.fit_targets(&x, &real(&y[..10])).is_err());
    assert!(p.clone().tol(0.0, 10).fit_targets(&x, &real(&y)).is_err());
    assert!(p.fit_with_centres(&x, &real(&y), &[]).is_err());
    assert!(NystromKpcaParams::new(kernel(), 6, Landmarks::Random { m: 5 }).fit(&x).is_err());
    assert!(NystromKpcaParams::new(kernel(), 0, Landmarks::Random { m: 5 }).fit(&x).is_err());
}

#[test]
fn all_points_as_centres_reproduce_dense_kernel_pca() {
    let (x, _) = data(70, 0.0);
    let (xt, _) = data(25, 500.25);
    let all: Vec<usize> = (0..x.n()).collect();
    let k = kernel();
    let dense = KernelPcaParams::new(k.clone(), 4)
        .path(PathChoice::Dense)
        .solver(EigenSolver::Dense)
        .fit(&x)
        .unwrap();
    let nys = NystromKpcaParams::new(k, 4, Landmarks::Random { m: 70 }).fit_with_centres(&x, &all).unwrap();
    for (a, b) in dense.eigenvalues().iter().zip(nys.eigenvalues()) {
        assert!((a - b).abs() <= 1e-8 * a.abs(), "{a} vs {b}");
    }
    let (sd, sn) = (dense.training_scores(), nys.transform(&x).unwrap());
    let (td, tn) = (dense.transform(&xt).unwrap(), nys.transform(&xt).unwrap());
    for c in 0..4 {
        // Components are defined up to sign.
        let sign = if (0..x.n()).map(|i| sd[(i, c)] * sn[(i, c)]).sum::<f64>() < 0.0 { -1.0 } else { 1.0 };
        for i in 0..x.n() {
            assert!((sd[(i, c)] - sign * sn[(i, c)]).abs() < 1e-6, "train {i} {c}");
        }
        for i in 0..xt.n() {
            assert!((td[(i, c)] - sign * tn[(i, c)]).abs() < 1e-6, "test {i} {c}");
        }
    }
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(24))]

    /// Whatever the centres: the training scores are centred, their squared norms are the eigenvalues,
    /// and different components are uncorrelated (PCA of the Nyström features).
    #[test]
    fn nystrom_scores_are_centred_uncorrelated_with_eigenvalue_norms(
        n in 20usize..80, m in 3usize..15, seed in 0u64..1000, shift in 0.0f64..100.0,
    ) {
        let (x, _) = data(n, shift);
        let q = 3.min(m);
        let model = NystromKpcaParams::new(kernel(), q, Landmarks::Random { m }).seed(seed).fit(&x).unwrap();
        let z = model.transform(&x).unwrap();
        let scale = model.eigenvalues()[0].max(1e-12);
        for a in 0..q {
            let mean: f64 = (0..n).map(|i| z[(i, a)]).sum::<f64>() / n as f64;
            prop_assert!(mean.abs() <= 1e-7 * scale.sqrt().max(1.0));
            for b in 0..q {
                let g: f64 = (0..n).map(|i| z[(i, a)] * z[(i, b)]).sum();
                let want = if a == b { model.eigenvalues()[a] } else { 0.0 };
                prop_assert!((g - want).abs() <= 1e-7 * scale, "{} {} {} {}", a, b, g, want);
            }
        }
    }

    #[test]
    fn landmarks_print_and_parse_back(m in 1usize..100_000, p in 0usize..3) {
        let l = match p {
            0 => Landmarks::Random { m },
            1 => Landmarks::Fvs { m, pool: None },
            _ => Landmarks::Fvs { m, pool: Some(m + p) },
        };
        prop_assert_eq!(l.to_string().parse::<Landmarks>().unwrap(), l);
    }
}

/// Symmetric eigenvalues (ascending) of a small dense matrix.
fn eigenvalues(a: &Mat<f64>) -> Vec<f64> {
    let mut e = a.self_adjoint_eigenvalues(faer::Side::Lower).unwrap();
    e.sort_by(f64::total_cmp);
    e
}

/// The direct solve's features `Z_b = K_b R⁻ᵀ`, computed as products with the kept inverse
/// (`Falkon::features`), agree with the triangular solve per row that computed them before (kept here
/// as the reference) within the first-order rounding bounds of both (ridge.rs, `Falkon::feature_gram`):
/// the solve `γ_{m+2}|R⁻¹||R||z|`, the product `2γ_{m+2}|W||R||z|`, so together, with `W` for `R⁻¹` and
/// `|ẑ_inv| + |ẑ_sub|` for `|z|` (both to first order), `3γ_{m+2}·|W||R|(|ẑ_inv| + |ẑ_sub|)` per
/// entry. On a well-conditioned set (σ = 0.05, distinct centres) and on an ill-conditioned one (σ = 0.2
/// in the unit square — the set on which forming `K_nmᵀK_nm` first failed — plus centres repeated at
/// 1e-7), each with a small and a large shift.
#[test]
fn inverse_features_agree_with_substitution_within_the_rounding_bound() {
    let (x, _) = data(400, 0.25);
    let n = x.n();
    for (sigma, dups) in [(0.05, 0), (0.2, 12)] {
        let (c0, _) = data(250, 0.0);
        let mut pts: Vec<f64> = c0.as_slice().to_vec();
        for i in 0..dups {
            let j = i * 7;
            pts.extend(c0.as_slice()[2 * j..2 * j + 2].iter().map(|v| v + 1e-7));
        }
        let m = pts.len() / 2;
        let c = Samples::from_flat(pts, m, 2).unwrap();
        let k: KernelSpec = format!("gaussian:sigma={sigma}").parse().unwrap();
        let (l, _) = factor_kmm(&k, &c).unwrap();
        let kb = cross_gram(&k, &x, &c).unwrap();
        for s in [1e-8, 1.0] {
            let f = Falkon::new(&l, s, n).unwrap();
            let z = f.features(kb.as_ref());
            let (r, rinv_t) = f.r_and_inverse();
            let mut zt = kb.transpose().to_owned();
            faer::linalg::triangular_solve::solve_lower_triangular_in_place(
                r.as_ref(),
                zt.as_mut(),
                Par::Seq,
            );
            // C = |W||R| with W = (R⁻ᵀ)ᵀ.
            let wabs = Mat::from_fn(m, m, |i, j| rinv_t[(j, i)].abs());
            let rabs = Mat::from_fn(m, m, |i, j| r[(i, j)].abs());
            let mut cm = Mat::<f64>::zeros(m, m);
            matmul(cm.as_mut(), Accum::Replace, wabs.as_ref(), rabs.as_ref(), 1.0, Par::Seq);
            let u = f64::EPSILON / 2.0;
            let gamma = (m + 2) as f64 * u / (1.0 - (m + 2) as f64 * u);
            let zabs = Mat::from_fn(m, n, |a, i| z[(i, a)].abs() + zt[(a, i)].abs());
            let mut bound = Mat::<f64>::zeros(m, n);
            matmul(bound.as_mut(), Accum::Replace, cm.as_ref(), zabs.as_ref(), 3.0 * gamma, Par::Seq);
            for i in 0..n {
                for a in 0..m {
                    let d = (z[(i, a)] - zt[(a, i)]).abs();
                    assert!(
                        d <= bound[(a, i)],
                        "σ {sigma}, s {s}: z[{i},{a}] differs by {d:e} > {:e}",
                        bound[(a, i)]
                    );
                }
            }
            // The kept R⁻ᵀ is upper triangular (its zeros make the panels' products exact there).
            assert!((0..m).all(|j| (j + 1..m).all(|i| rinv_t[(i, j)] == 0.0)));
        }
    }
}

/// The direct and the iterative solve of the same system agree within the bound derived in the
/// module docs of `ridge.rs` ("Agreement"): `‖α_cg − α_d‖_Ĥ ≤ (ρ_cg + ρ_d)‖K_nmᵀPy‖_{Ĥ⁻¹} / μ_min`,
/// with `Ĥ = (n/m)K̃² + sK̃`, `H = K_nmᵀPK_nm + sK̃` and `μ_min` the smallest eigenvalue of the pencil
/// `(H, Ĥ)`, all computed densely here from the kernel. Rounding adds the forward error of a
/// backward-stable `m × m` solve, `m·u·κ(M)·‖α‖_Ĥ` (`κ(M) = μ_max/μ_min`), and of applying the
/// preconditioner `B` (condition number `√κ(Ĥ)`), `m·u·√κ(Ĥ)·‖α‖_Ĥ`.
#[test]
fn direct_and_iterative_solves_agree_within_the_cg_bound() {
    let (x, y) = data(600, 0.0);
    let k = kernel();
    let idx: Vec<usize> = (0..40).map(|i| i * 15).collect();
    let (n, m) = (x.n(), idx.len());
    for bias in [false, true] {
        let p = if bias {
            NystromRidgeParams::lssvm(k.clone(), 0.1, Landmarks::Random { m })
        } else {
            NystromRidgeParams::krr(k.clone(), 1e-3, Landmarks::Random { m })
        }
        .tol(1e-8, 2000);
        let s = if bias { 1.0 / 10.0 } else { 1e-3 };
        let cg = p.clone().solve(NystromSolve::Iterative).fit_with_centres(&x, &real(&y), &idx).unwrap();
        let di = p.clone().solve(NystromSolve::Direct).fit_with_centres(&x, &real(&y), &idx).unwrap();
        assert_eq!((cg.solved(), di.solved()), (Some(NystromSolve::Iterative), Some(NystromSolve::Direct)));
        let (rc, rd) = (cg.report(), di.report());
        assert!(rc.converged && rd.converged && rc.iterations > 0 && rd.iterations == 0, "{rc:?} {rd:?}");
        assert_eq!(cg.jitter(), di.jitter());
        // Dense H, Ĥ and the right-hand side.
        let c = cg.centres();
        let mut knm = cross_gram(&k, &x, c).unwrap();
        if bias {
            for j in 0..m {
                let mean = (0..n).map(|i| knm[(i, j)]).sum::<f64>() / n as f64;
                for i in 0..n {
                    knm[(i, j)] -= mean;
                }
            }
        }
        let mut kt = cross_gram(&k, c, c).unwrap();
        for j in 0..m {
            kt[(j, j)] += cg.jitter();
        }
        let mut h = Mat::<f64>::zeros(m, m);
        matmul(h.as_mut(), Accum::Replace, knm.transpose(), knm.as_ref(), 1.0, Par::Seq);
        h += &kt * s;
        let mut hh = Mat::<f64>::zeros(m, m);
        matmul(hh.as_mut(), Accum::Replace, kt.as_ref(), kt.as_ref(), n as f64 / m as f64, Par::Seq);
        hh += &kt * s;
        let yv = Mat::from_fn(n, 1, |i, _| y[i]);
        let mut rhs = Mat::<f64>::zeros(m, 1);
        matmul(rhs.as_mut(), Accum::Replace, knm.transpose(), yv.as_ref(), 1.0, Par::Seq);
        // Whitening by Ĥ's Cholesky factor: S = L̂⁻¹HL̂⁻ᵀ has the pencil's eigenvalues.
        let lh = hh.llt(faer::Side::Lower).unwrap().L().to_owned();
        let inv = |mut v: Mat<f64>| {
            faer::linalg::triangular_solve::solve_lower_triangular_in_place(
                lh.as_ref(),
                v.as_mut(),
                Par::Seq,
            );
            v
        };
        let w = inv(h.clone());
        let sm = inv(w.transpose().to_owned());
        let mu = eigenvalues(&sm);
        let (mu_min, mu_max) = (mu[0], mu[m - 1]);
        let kh = eigenvalues(&hh);
        let kappa_hh = kh[m - 1] / kh[0];
        let b_norm = inv(rhs).norm_l2();
        let hnorm = |a: &[f64]| {
            let v = Mat::from_fn(m, 1, |j, _| a[j]);
            let mut u = Mat::<f64>::zeros(m, 1);
            matmul(u.as_mut(), Accum::Replace, lh.transpose(), v.as_ref(), 1.0, Par::Seq);
            u.norm_l2()
        };
        let diff: Vec<f64> = cg.coef(0).iter().zip(di.coef(0)).map(|(a, b)| a - b).collect();
        let alpha = hnorm(di.coef(0));
        let u = f64::EPSILON / 2.0;
        let bound = (rc.residual + rd.residual) * b_norm / mu_min
            + m as f64 * u * (mu_max / mu_min + kappa_hh.sqrt()) * alpha;
        let got = hnorm(&diff);
        assert!(got <= bound, "bias {bias}: ‖Δα‖_Ĥ = {got:e} > bound {bound:e} (μ {mu_min:e}..{mu_max:e})");
        // The intercept follows from α: b = (1ᵀy − sᵀα)/n, so |Δb| ≤ ‖s‖_{Ĥ⁻¹}‖Δα‖_Ĥ / n.
        if bias {
            let kn = cross_gram(&k, &x, c).unwrap();
            let svec = Mat::from_fn(m, 1, |j, _| (0..n).map(|i| kn[(i, j)]).sum::<f64>());
            let db = (cg.bias(0) - di.bias(0)).abs();
            assert!(db <= inv(svec).norm_l2() * bound / n as f64 * (1.0 + 1e-9) + 1e-15, "Δb {db:e}");
        }
    }
}

/// Keeping the blocks of `K_nm` and recomputing them give the same bytes (16 blocks of 64 rows: four
/// groups), with either solve.
#[test]
fn kept_and_recomputed_blocks_give_the_same_model() {
    let (x, y) = data(1000, 0.0);
    let idx: Vec<usize> = (0..20).map(|i| i * 50).collect();
    let t = binary(&y);
    let part = RowPart {
        rows: Some((&x, &t)),
        n: x.n(),
        task: crate::ridge::Encoded::any(&t).task,
        block: Some(64),
        sum: &|_| {},
        max: &|_| {},
    };
    for solve in [NystromSolve::Iterative, NystromSolve::Direct] {
        let p = NystromRidgeParams::lssvm(kernel(), 0.2, Landmarks::Random { m: 20 }).solve(solve);
        let fit = |keep| p.fit_part_with(&part, x.select(&idx).unwrap(), &idx, keep).unwrap();
        let (kept, recomputed) = (fit(true), fit(false));
        assert_eq!(persist::to_bytes(&kept).unwrap(), persist::to_bytes(&recomputed).unwrap(), "{solve:?}");
        assert!(!recomputed.kept_kernel_matrix());
        // Kept when the budget is known (it is on Linux); never for the direct solve (one pass).
        let known = kern_core::memory::budget().bytes.is_some();
        assert_eq!(kept.kept_kernel_matrix(), known && solve == NystromSolve::Iterative, "{solve:?}");
    }
}

/// `Auto` by its documented rule: the direct solve at once when the break-even count of CG iterations
/// `k* = ⌈direct / iteration⌉` (from [`solve_flops`]) is at most [`EXPECTED_ITERATIONS`]; otherwise
/// CG, given up (and finished directly) when its rate predicts more than `k*` iterations or when it
/// reaches `k*` unconverged.
#[test]
fn auto_follows_the_documented_cost_rule() {
    let (x, y) = data(2000, 0.0);
    let k: KernelSpec = "gaussian:sigma=0.2".parse().unwrap();
    let fit = |m: usize, tol: f64| {
        NystromRidgeParams::krr(k.clone(), 1e-2, Landmarks::Random { m })
            .tol(tol, 1000)
            .seed(2)
            .fit_targets(&x, &real(&y))
            .unwrap()
    };
    let kstar = |m: usize| {
        // The fit keeps its blocks when they fit (one part: it agrees with itself).
        let kept = KnmBlocks::fit_in_memory(x.n(), m, m + 2);
        let (it, direct) = solve_flops(x.n(), m, 2, 1, kept);
        (direct / it).ceil() as usize
    };
    // Small m: the direct solve is cheaper than the expected iterations.
    assert!(kstar(30) <= EXPECTED_ITERATIONS);
    let small = fit(30, 1e-6);
    assert_eq!((small.solved(), small.report().iterations), (Some(NystromSolve::Direct), 0));
    assert!(small.report().converged);
    // Large m (the fewest centres with k* above the expected iterations): CG first. A reachable
    // tolerance stops it early; an unreachable one is given up at the first judged iteration (its rate
    // predicts `8·ln(1e-300)/ln(ρ_8)` iterations, at most k* only if ρ_8 ≤ 1e-300^(8/k*), far below
    // the 1e-16 of double precision — asserted) and the direct solve finishes.
    let m = (30..x.n()).find(|&m| kstar(m) > EXPECTED_ITERATIONS).expect("k* grows with m");
    let ks = kstar(m);
    assert!(1e-300f64.powf(RATE_WARMUP as f64 / ks as f64) < 1e-16, "{ks}");
    let quick = fit(m, 1e-4);
    assert_eq!(quick.solved(), Some(NystromSolve::Iterative));
    assert!(quick.report().converged && quick.report().iterations < ks, "{:?}", quick.report());
    let hard = fit(m, 1e-300);
    assert_eq!((hard.solved(), hard.report().iterations), (Some(NystromSolve::Direct), RATE_WARMUP));
}

/// The rate rule of `Auto` ([`RATE_WARMUP`]): the prediction `k·ln(tol)/ln(ρ_k)` is the iteration at
/// which the average rate reaches `tol` — for residuals falling at one rate `q` it is `ln(tol)/ln(q)`
/// whatever `k` — and CG is given up exactly when some unconverged column predicts more than `k*`,
/// never before `RATE_WARMUP` iterations.
#[test]
fn auto_gives_up_when_the_rate_predicts_more_than_k_star() {
    let rep = |residual: f64, converged: bool| PcgReport { iterations: 0, residual, converged };
    let tol = 1e-6;
    // q = 0.8: ln(1e-6)/ln(0.8) = 61.9 iterations.
    let at = |k: usize| predicted_iterations(k, 0.8f64.powi(k as i32), tol);
    for k in [RATE_WARMUP, 20, 50] {
        assert!((at(k) - tol.ln() / 0.8f64.ln()).abs() < 1e-9, "{k}: {}", at(k));
        assert!(!rate_predicts_more_than(62, tol, k, &[rep(0.8f64.powi(k as i32), false)]));
        assert!(rate_predicts_more_than(61, tol, k, &[rep(0.8f64.powi(k as i32), false)]));
    }
    // Before the warm-up nothing is judged, not even a residual above 1.
    assert!(!rate_predicts_more_than(10, tol, RATE_WARMUP - 1, &[rep(5.0, false)]));
    // No convergence in sight: a residual at or above 1, or not a number.
    for r in [1.0, 3.0, f64::NAN] {
        assert_eq!(predicted_iterations(RATE_WARMUP, r, tol), f64::INFINITY);
        assert!(rate_predicts_more_than(1000, tol, RATE_WARMUP, &[rep(r, false)]));
    }
    // Converged columns do not count; one slow unconverged column is enough.
    assert!(!rate_predicts_more_than(10, tol, RATE_WARMUP, &[rep(2.0, true), rep(1e-9, true)]));
    assert!(rate_predicts_more_than(100, tol, 40, &[rep(1e-7, true), rep(0.5, false)]));
    // Reached: the prediction is the iterations done.
    assert_eq!(predicted_iterations(30, 1e-7, tol), 30.0);
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(64))]

    /// For residuals `ρ_k = q^k` the prediction is `ln(tol)/ln(q)` at every `k` (the only rounding is
    /// that of `q^k` and two logarithms: relative error a few units of `1e-16/|ln q|` ≤ 1e-14 for
    /// `q ≤ 0.99`, so 1e-9 cannot be reached by rounding).
    #[test]
    fn the_rate_prediction_of_a_geometric_residual_is_its_iteration_count(
        q in 0.01f64..0.99, k in 1usize..200, e in 2.0f64..12.0
    ) {
        let tol = 10f64.powf(-e);
        let rho = q.powi(k as i32);
        prop_assume!(rho > tol);
        let want = tol.ln() / q.ln();
        let got = predicted_iterations(k, rho, tol);
        prop_assert!((got - want).abs() <= 1e-9 * want, "{} vs {}", got, want);
    }
}

/// An in-process allreduce over `p` threads (the `sum` and `max` of [`RowPart`] for parts fitted
/// concurrently): every caller adds (or maxes) its vector into a shared one, waits for the others,
/// and takes the total.
struct Allreduce {
    f: std::sync::Mutex<Vec<f64>>,
    u: std::sync::Mutex<Vec<u64>>,
    barrier: std::sync::Barrier,
}

impl Allreduce {
    fn new(p: usize) -> Self {
        Allreduce { f: Default::default(), u: Default::default(), barrier: std::sync::Barrier::new(p) }
    }

    fn reduce<T: Copy>(&self, shared: &std::sync::Mutex<Vec<T>>, v: &mut [T], zero: T, op: fn(T, T) -> T) {
        {
            let mut a = shared.lock().unwrap();
            if a.is_empty() {
                a.resize(v.len(), zero);
            }
            for (x, &y) in a.iter_mut().zip(v.iter()) {
                *x = op(*x, y);
            }
        }
        self.barrier.wait();
        v.copy_from_slice(&shared.lock().unwrap());
        if self.barrier.wait().is_leader() {
            shared.lock().unwrap().clear();
        }
        self.barrier.wait();
    }

    fn sum(&self, v: &mut [f64]) {
        self.reduce(&self.f, v, 0.0, |a, b| a + b);
    }

    fn max(&self, v: &mut [u64]) {
        self.reduce(&self.u, v, 0, u64::max);
    }
}

/// The rule of every sum over rows (module docs of `ridge.rs`, "Sums over rows"): the rows split into
/// parts at block boundaries and fitted concurrently (an in-process allreduce; one part without rows;
/// kept and recomputed blocks mixed) give every part the bytes of the one-part fit — with the direct
/// solve (its feature Gram `Σ Z_bᵀZ_b`), conjugate gradients and Auto, for kernel ridge and the LS-SVM.
#[test]
fn parts_give_the_one_part_bytes_with_every_solve() {
    let (x, y) = data(700, 0.0);
    let idx: Vec<usize> = (0..30).map(|i| i * 23).collect();
    let block = 64;
    let targets = |a: usize, b: usize, bias: bool| if bias { binary(&y[a..b]) } else { real(&y[a..b]) };
    for bias in [false, true] {
        let task = crate::ridge::Encoded::any(&targets(0, x.n(), bias)).task;
        for solve in [NystromSolve::Direct, NystromSolve::Iterative, NystromSolve::Auto] {
            let p = if bias {
                NystromRidgeParams::lssvm(kernel(), 0.2, Landmarks::Random { m: 30 })
            } else {
                NystromRidgeParams::krr(kernel(), 1e-3, Landmarks::Random { m: 30 })
            }
            .solve(solve)
            .tol(1e-10, 500);
            let t = targets(0, x.n(), bias);
            let one = RowPart {
                rows: Some((&x, &t)),
                n: x.n(),
                task: task.clone(),
                block: Some(block),
                sum: &|_| {},
                max: &|_| {},
            };
            let whole =
                persist::to_bytes(&p.fit_part_with(&one, x.select(&idx).unwrap(), &idx, true).unwrap())
                    .unwrap();
            for cuts in [vec![0, 192, 700], vec![0, 64, 448, 700], vec![0, 0, 320, 700]] {
                let ar = Allreduce::new(cuts.len() - 1);
                let fits: Vec<Vec<u8>> = std::thread::scope(|s| {
                    let handles: Vec<_> = cuts
                        .windows(2)
                        .enumerate()
                        .map(|(q, w)| {
                            let (ar, p, task, idx, x) = (&ar, &p, task.clone(), &idx, &x);
                            s.spawn(move || {
                                let rows: Vec<usize> = (w[0]..w[1]).collect();
                                let own = (w[1] > w[0])
                                    .then(|| (x.select(&rows).unwrap(), targets(w[0], w[1], bias)));
                                let part = RowPart {
                                    rows: own.as_ref().map(|(xp, tp)| (xp, tp)),
                                    n: x.n(),
                                    task,
                                    block: Some(block),
                                    sum: &|v| ar.sum(v),
                                    max: &|v| ar.max(v),
                                };
                                let m =
                                    p.fit_part_with(&part, x.select(idx).unwrap(), idx, q % 2 == 0).unwrap();
                                persist::to_bytes(&m).unwrap()
                            })
                        })
                        .collect();
                    handles.into_iter().map(|h| h.join().unwrap()).collect()
                });
                for (q, f) in fits.iter().enumerate() {
                    assert!(f == &whole, "bias {bias}, {solve:?}, cuts {cuts:?}: part {q} differs");
                }
            }
        }
    }
}

/// The pricing rule of `Auto` (module docs of `ridge.rs`, "Solve") in both cases: an iteration that
/// reads kept blocks costs `n·m·(4r + KEPT_READ_FLOPS)`, one that recomputes them `n·m·(2d + PROFILE_FLOPS + 4r)`;
/// the direct solve costs the same either way, and the plan follows `k* = ⌈direct / iteration⌉`.
#[test]
fn auto_prices_kept_and_recomputed_blocks() {
    let (n, d, r) = (1000usize, 28usize, 1usize);
    let m = between_break_evens(n, d);
    let (rec, direct) = solve_flops(n, m, d, r, false);
    let (kept, direct_kept) = solve_flops(n, m, d, r, true);
    let nm = (n * m) as f64;
    assert_eq!(rec, nm * (2.0 * d as f64 + PROFILE_FLOPS + 4.0 * r as f64));
    assert_eq!(kept, nm * (4.0 * r as f64 + KEPT_READ_FLOPS));
    assert_eq!(direct, direct_kept);
    let mf = m as f64;
    assert_eq!(direct, nm * (2.0 * mf + 1.0) + 13.0 / 3.0 * mf * mf * mf);
    // More outputs cost both kinds of iteration alike; more features only the recomputed one.
    assert_eq!(solve_flops(n, m, d, 3, true).0 - kept, solve_flops(n, m, d, 3, false).0 - rec);
    assert_eq!(solve_flops(n, m, 2 * d, r, true).0, kept);
    // These sizes sit between the two break-even counts: direct at once when every iteration
    // recomputes K_nm, CG capped at the kept break-even count when the blocks are kept.
    let (k_rec, k_kept) = ((direct / rec).ceil() as usize, (direct / kept).ceil() as usize);
    assert!(k_rec <= EXPECTED_ITERATIONS && k_kept > EXPECTED_ITERATIONS, "{k_rec} {k_kept}");
    let plan = |solve, kept| SolvePlan::choose(solve, NystromPreconditioner::Falkon, n, m, d, r, 1000, kept);
    assert_eq!(plan(NystromSolve::Auto, false), SolvePlan::Direct);
    assert_eq!(plan(NystromSolve::Auto, true), SolvePlan::Cg { cap: k_kept, then_direct: true });
    // An iteration cap below k*: CG only. Explicit choices ignore the pricing.
    let capped = SolvePlan::choose(NystromSolve::Auto, NystromPreconditioner::Falkon, n, m, d, r, 10, true);
    assert_eq!(capped, SolvePlan::Cg { cap: 10, then_direct: false });
    for kept in [false, true] {
        assert_eq!(plan(NystromSolve::Direct, kept), SolvePlan::Direct);
        assert_eq!(plan(NystromSolve::Iterative, kept), SolvePlan::Cg { cap: 1000, then_direct: false });
        let none = SolvePlan::choose(NystromSolve::Auto, NystromPreconditioner::None, n, m, d, r, 1000, kept);
        assert_eq!(none, SolvePlan::Cg { cap: 1000, then_direct: false });
    }
}

/// The fewest centres for `n` rows of `d` features whose direct solve costs at most
/// [`EXPECTED_ITERATIONS`] recomputing iterations but more than that many kept ones.
fn between_break_evens(n: usize, d: usize) -> usize {
    (10..n)
        .find(|&m| {
            let k = |kept| {
                let (it, direct) = solve_flops(n, m, d, 1, kept);
                (direct / it).ceil() as usize
            };
            k(false) <= EXPECTED_ITERATIONS && k(true) > EXPECTED_ITERATIONS
        })
        .expect("the kept iteration is the cheaper at 28 features")
}

/// The parts agree on "kept everywhere" before choosing: with the sizes of
/// `auto_prices_kept_and_recomputed_blocks` (28 features), a fit whose parts all keep their blocks runs
/// CG (an unreachable tolerance, so its rate gives it up after [`RATE_WARMUP`] iterations, on every
/// part alike, and the direct solve finishes); one part that cannot keep its blocks makes every part
/// solve directly at once. Either way every part has the bytes of the one-part fit with the same
/// keeping.
#[test]
fn parts_agree_on_kept_blocks_before_choosing() {
    let (n, d) = (1000usize, 28usize);
    let m = between_break_evens(n, d);
    let x =
        Samples::from_flat((0..n * d).map(|i| (i as f64 * 0.618_033_988_7).fract()).collect(), n, d).unwrap();
    let y: Vec<f64> = x.rows().map(|r| (r[0] + r[1] * r[2]).sin()).collect();
    let t = real(&y);
    let idx: Vec<usize> = (0..m).map(|i| i * n / m).collect();
    let p = NystromRidgeParams::krr("gaussian:sigma=2".parse().unwrap(), 1e-3, Landmarks::Random { m })
        .tol(1e-300, 1000);
    let block = 64;
    let known = kern_core::memory::budget().bytes.is_some() && KnmBlocks::fit_in_memory(n, m, m + 2);
    let (it, direct) = solve_flops(n, m, d, 1, true);
    let k_kept = (direct / it).ceil() as usize;
    let one = |keep: bool| {
        let part = RowPart {
            rows: Some((&x, &t)),
            n,
            task: crate::ridge::Task::Regression,
            block: Some(block),
            sum: &|_| {},
            max: &|_| {},
        };
        p.fit_part_with(&part, x.select(&idx).unwrap(), &idx, keep).unwrap()
    };
    let (kept, recomputed) = (one(true), one(false));
    assert_eq!(recomputed.solved(), Some(NystromSolve::Direct));
    assert_eq!(recomputed.report().iterations, 0);
    if known {
        assert!(k_kept > RATE_WARMUP);
        assert_eq!((kept.solved(), kept.report().iterations), (Some(NystromSolve::Direct), RATE_WARMUP));
    }
    for keeps in [[true, true], [true, false], [false, true]] {
        let ar = Allreduce::new(2);
        let cut = 512;
        let fits: Vec<NystromRidge> = std::thread::scope(|s| {
            let handles: Vec<_> = [(0, cut), (cut, n)]
                .into_iter()
                .zip(keeps)
                .map(|((a, b), keep)| {
                    let (ar, p, idx, x, y) = (&ar, &p, &idx, &x, &y);
                    s.spawn(move || {
                        let rows: Vec<usize> = (a..b).collect();
                        let (xp, tp) = (x.select(&rows).unwrap(), real(&y[a..b]));
                        let part = RowPart {
                            rows: Some((&xp, &tp)),
                            n,
                            task: crate::ridge::Task::Regression,
                            block: Some(block),
                            sum: &|v| ar.sum(v),
                            max: &|v| ar.max(v),
                        };
                        p.fit_part_with(&part, x.select(idx).unwrap(), idx, keep).unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let all_keep = keeps == [true, true];
        let want = if all_keep { &kept } else { &recomputed };
        for f in &fits {
            assert_eq!(f.report().iterations, want.report().iterations, "{keeps:?}");
            assert_eq!(persist::to_bytes(f).unwrap(), persist::to_bytes(want).unwrap(), "{keeps:?}");
        }
    }
}
