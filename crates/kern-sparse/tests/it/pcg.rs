//! Conjugate gradients: agreement with the direct solve, honest residuals, the CG iteration bound on a
//! well-conditioned system, the same bytes at any thread count, LS-SVM iterative = direct; several
//! right-hand sides in lockstep = each alone (bytes); the lower-triangle storage: the same entries,
//! products equal to rounding and the same bytes at any thread count.

use kern_sparse::{
    CholeskyPlan, GramMatrix, LsSvmIterative, LsSvmSolver, Ordering, Pcg, PcgOptions, Preconditioner, Solver,
    permute_symmetric, sparse_gram, sparse_gram_lower,
};
use nalgebra_sparse::CscMatrix;
use proptest::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

fn rhs(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..n).map(|_| rng.random::<f64>() * 2.0 - 1.0).collect()
}

/// `‖b − (A + sI)x‖ / ‖b‖`, plainly summed.
fn rel_residual(a: &CscMatrix<f64>, s: f64, x: &[f64], b: &[f64]) -> f64 {
    let ax = GramMatrix::Sparse(a.clone()).mul_vec(x).unwrap();
    let r: f64 = (0..b.len()).map(|i| (b[i] - ax[i] - s * x[i]).powi(2)).sum::<f64>().sqrt();
    r / b.iter().map(|v| v * v).sum::<f64>().sqrt()
}

fn opts(tol: f64, preconditioner: Preconditioner) -> PcgOptions {
    PcgOptions { tol, max_iter: 10_000, preconditioner }
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(24))]

    /// At tol 1e-10, PCG (plain, Jacobi, block Jacobi) agrees with the sparse Cholesky solve to 1e-8.
    #[test]
    fn pcg_agrees_with_the_direct_solve(
        n in 2usize..300, d in 1usize..4, c in 0.05f64..1.0, shift in 0.05f64..10.0,
        block in 1usize..80, seed in any::<u64>()
    ) {
        let x = crate::common::uniform(n, d, 1.0, seed);
        let a = sparse_gram(&crate::common::cs_gauss(0.6, c, d), &x).unwrap().into_matrix();
        let b = rhs(n, seed ^ 3);
        let want = CholeskyPlan::sparse(&a, Ordering::Amd).unwrap().factor(shift).unwrap().solve(&b).unwrap();
        for pre in [Preconditioner::None, Preconditioner::BlockJacobi { block: 1 }, Preconditioner::BlockJacobi { block }] {
            let (got, report) = Pcg::new(a.clone(), shift, &opts(1e-10, pre)).unwrap().solve(&b).unwrap();
            prop_assert!(report.converged, "{pre:?}: {report:?}");
            prop_assert!(report.residual <= 1e-10);
            prop_assert!(crate::common::rel_err(&got, &want) < 1e-8, "{pre:?}: rel err {}", crate::common::rel_err(&got, &want));
        }
        // The lower-triangle storage (plain CG): the same tolerance argument.
        let lower = sparse_gram_lower(&crate::common::cs_gauss(0.6, c, d), &x).unwrap();
        let (got, report) = Pcg::from_lower(lower, shift, &opts(1e-10, Preconditioner::None)).unwrap().solve(&b).unwrap();
        prop_assert!(report.converged && report.residual <= 1e-10, "lower: {report:?}");
        prop_assert!(crate::common::rel_err(&got, &want) < 1e-8, "lower: rel err {}", crate::common::rel_err(&got, &want));
    }

    /// `solve_many` is `solve` on each column, bit for bit and report for report: full storage (plain
    /// and block Jacobi) and lower storage, `k = 1..4` columns of different scales (converging at
    /// different iterations), a zero column now and then, tolerances down to 1e-13 (where the
    /// residual replacement restarts recurrences) and iteration caps that stop some columns early.
    #[test]
    fn lockstep_solves_are_the_solo_solves(
        n in 2usize..250, d in 1usize..4, c in 0.1f64..1.0, shift in 0.01f64..3.0, k in 1usize..5,
        tol_exp in 6i32..14, cap in 2usize..60, block in 1usize..40, zero in 0usize..6, seed in any::<u64>()
    ) {
        let x = crate::common::uniform(n, d, 1.0, seed);
        let kern = crate::common::cs_gauss(0.6, c, d);
        let a = sparse_gram(&kern, &x).unwrap().into_matrix();
        let mut b = Vec::new();
        for t in 0..k {
            let scale = 10f64.powi(t as i32 * 2 - 2);
            b.extend(rhs(n, seed ^ (t as u64 + 1)).iter().map(|v| if zero == t { 0.0 } else { v * scale }));
        }
        let o = PcgOptions { tol: 10f64.powi(-tol_exp), max_iter: if tol_exp % 3 == 0 { cap } else { 10_000 }, preconditioner: Preconditioner::None };
        let solvers = [
            Pcg::new(a.clone(), shift, &o).unwrap(),
            Pcg::new(a.clone(), shift, &PcgOptions { preconditioner: Preconditioner::BlockJacobi { block }, ..o }).unwrap(),
            Pcg::from_lower(sparse_gram_lower(&kern, &x).unwrap(), shift, &o).unwrap(),
        ];
        for (si, pcg) in solvers.iter().enumerate() {
            let (all, reports) = pcg.solve_many(&b).unwrap();
            prop_assert_eq!(reports.len(), k);
            for t in 0..k {
                let (alone, report) = pcg.solve(&b[t * n..(t + 1) * n]).unwrap();
                prop_assert_eq!(report, reports[t], "solver {} column {}", si, t);
                prop_assert!(
                    all[t * n..(t + 1) * n].iter().zip(&alone).all(|(u, v)| u.to_bits() == v.to_bits()),
                    "solver {} column {}: lockstep differs from alone", si, t
                );
            }
        }
    }

    /// The lower-triangle storage holds exactly the entries of the full storage in its cell order,
    /// and its product `(L + Lᵀ − D + sI)v` agrees with the full storage's column sums to the rounding
    /// of two sums of the same terms in different orders: `|Δ_i| ≤ 2 γ_{m_i + 1} Σ_j |a_ij v_j| + s|v_i|`
    /// (Higham, *Accuracy and Stability*, eq. 3.5; `m_i` stored entries in row `i`).
    #[test]
    fn lower_storage_is_the_full_matrix(
        n in 1usize..400, d in 1usize..4, c in 0.05f64..1.0, shift in 0.0f64..2.0, seed in any::<u64>()
    ) {
        let x = crate::common::uniform(n, d, 1.0, seed);
        let kern = crate::common::cs_gauss(0.6, c, d);
        let full = sparse_gram(&kern, &x).unwrap().into_matrix();
        let lower = sparse_gram_lower(&kern, &x).unwrap();
        prop_assert_eq!(lower.nnz(), (full.nnz() + n) / 2);
        prop_assert_eq!(&lower.to_full(), &permute_symmetric(&full, lower.permutation()).unwrap());
        let v = rhs(n, seed ^ 9);
        let got = lower.mul_shifted(shift, &v).unwrap();
        for (j, gj) in got.iter().enumerate() {
            let col = full.col(j);
            let want: f64 = shift * v[j] + col.row_indices().iter().zip(col.values()).map(|(&i, &a)| a * v[i]).sum::<f64>();
            let abs: f64 = shift * v[j].abs() + col.row_indices().iter().zip(col.values()).map(|(&i, &a)| (a * v[i]).abs()).sum::<f64>();
            let m = col.nnz() as f64 + 1.0;
            let gamma = m * f64::EPSILON / (1.0 - m * f64::EPSILON);
            prop_assert!((gj - want).abs() <= 2.0 * gamma * abs, "row {}: {} vs {}", j, gj, want);
        }
    }
}

#[test]
fn the_reported_residual_is_the_true_one() {
    let x = crate::common::uniform(2000, 2, 1.0, 4);
    let a = sparse_gram(&crate::common::cs_gauss(0.6, 0.08, 2), &x).unwrap().into_matrix();
    let b = rhs(2000, 8);
    for pre in [Preconditioner::None, Preconditioner::BlockJacobi { block: 256 }] {
        // Converged.
        let pcg = Pcg::new(a.clone(), 0.01, &opts(1e-9, pre)).unwrap();
        let (xs, r) = pcg.solve(&b).unwrap();
        let truth = rel_residual(&a, 0.01, &xs, &b);
        assert!(r.converged && r.residual <= 1e-9);
        assert!((r.residual - truth).abs() <= 1e-3 * truth + 1e-15, "{pre:?}: {} vs {truth}", r.residual);
        // Stopped by the iteration cap: not converged, the residual is the true (large) one.
        let capped = Pcg::new(a.clone(), 0.01, &PcgOptions { max_iter: 3, ..opts(1e-12, pre) }).unwrap();
        let (xc, rc) = capped.solve(&b).unwrap();
        let truth = rel_residual(&a, 0.01, &xc, &b);
        assert_eq!(rc.iterations, 3);
        assert!(!rc.converged && rc.residual > 1e-12);
        assert!((rc.residual - truth).abs() <= 1e-9 * truth, "{pre:?}: {} vs {truth}", rc.residual);
    }
    // b = 0: x = 0 at once.
    let (z, r) = Pcg::new(a, 1.0, &PcgOptions::default()).unwrap().solve(&[0.0; 2000]).unwrap();
    assert!(z.iter().all(|&v| v == 0.0) && r.iterations == 0 && r.converged);
}

#[test]
fn iterations_obey_the_cg_bound_on_a_well_conditioned_system() {
    // K_C is PSD, so the spectrum of K_C + sI lies in [s, s + max_i Σ_j |K_ij|] (Gershgorin): κ is
    // bounded, and CG's residual satisfies ‖r_k‖/‖r_0‖ ≤ 2√κ ((√κ − 1)/(√κ + 1))^k (Saad, eq. 6.128,
    // with ‖r‖ ≤ √κ ‖e‖_A scaling).
    let x = crate::common::uniform(3000, 2, 1.0, 6);
    let a = sparse_gram(&crate::common::cs_gauss(0.6, 0.04, 2), &x).unwrap().into_matrix();
    let s = 2.0;
    let gersh =
        (0..a.ncols()).map(|j| a.col(j).values().iter().map(|v| v.abs()).sum::<f64>()).fold(0.0, f64::max);
    let kappa: f64 = (s + gersh) / s;
    let tol = 1e-10;
    let q = kappa.sqrt();
    let bound = ((2.0 * q / tol).ln() / ((q + 1.0) / (q - 1.0)).ln()).ceil() as usize;
    let b = rhs(3000, 1);
    let (_, r) = Pcg::new(a.clone(), s, &opts(tol, Preconditioner::None)).unwrap().solve(&b).unwrap();
    assert!(r.converged && r.iterations <= bound, "{} iterations, bound {bound} (κ ≤ {kappa})", r.iterations);
    // The exact preconditioner (one block holding the whole matrix) converges in one step.
    let (_, r1) =
        Pcg::new(a, s, &opts(1e-8, Preconditioner::BlockJacobi { block: 3000 })).unwrap().solve(&b).unwrap();
    assert_eq!(r1.iterations, 1);
}

#[test]
fn same_bytes_at_any_thread_count() {
    let x = crate::common::uniform(9000, 2, 1.0, 12);
    let a = sparse_gram(&crate::common::cs_gauss(0.6, 0.03, 2), &x).unwrap().into_matrix();
    let b = rhs(9000, 2);
    let run = |threads: usize, pre: Preconditioner| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let (x, r) = Pcg::new(a.clone(), 0.5, &opts(1e-10, pre)).unwrap().solve(&b).unwrap();
            (x.iter().map(|v| v.to_bits()).collect::<Vec<u64>>(), r)
        })
    };
    for pre in [Preconditioner::None, Preconditioner::BlockJacobi { block: 256 }] {
        let (one, r1) = run(1, pre);
        let (two, r2) = run(2, pre);
        assert_eq!(one, two, "{pre:?}");
        assert_eq!(r1, r2);
    }
}

#[test]
fn lssvm_iterative_equals_direct() {
    let x = crate::common::uniform(1500, 2, 1.0, 31);
    let y: Vec<f64> = (0..1500)
        .map(|i| if x.row(i)[1] > 0.5 + 0.2 * (6.0 * x.row(i)[0]).sin() { 1.0 } else { -1.0 })
        .collect();
    let a = sparse_gram(&crate::common::cs_gauss(0.6, 0.1, 2), &x).unwrap().into_matrix();
    for lambda in [0.1, 1.0, 100.0] {
        let direct = LsSvmSolver::new(&mut CholeskyPlan::sparse(&a, Ordering::Auto).unwrap(), lambda)
            .unwrap()
            .solve(&y)
            .unwrap();
        let it =
            LsSvmIterative::new(a.clone(), lambda, &opts(1e-11, Preconditioner::BlockJacobi { block: 256 }))
                .unwrap();
        let (s, r) = it.solve(&y).unwrap();
        assert!(r.converged && it.nu_report().converged, "{lambda}: {r:?}");
        assert!(
            (s.b - direct.b).abs() < 1e-8 * (1.0 + direct.b.abs()),
            "{lambda}: b {} vs {}",
            s.b,
            direct.b
        );
        assert!(
            crate::common::rel_err(&s.alpha, &direct.alpha) < 1e-8,
            "{lambda}: {}",
            crate::common::rel_err(&s.alpha, &direct.alpha)
        );
        // The decision values on the training points agree in sign (same predictions).
        let g = GramMatrix::Sparse(a.clone());
        let (fi, fd) = (g.mul_vec(&s.alpha).unwrap(), g.mul_vec(&direct.alpha).unwrap());
        for i in 0..1500 {
            assert_eq!((fi[i] + s.b > 0.0), (fd[i] + direct.b > 0.0), "{lambda}: point {i}");
        }
    }
}

#[test]
fn input_errors() {
    let a = CscMatrix::<f64>::identity(4);
    let bad_tol = [0.0, 1.0, -1e-3, f64::NAN];
    for tol in bad_tol {
        assert!(Pcg::new(a.clone(), 1.0, &PcgOptions { tol, ..PcgOptions::default() }).is_err(), "{tol}");
    }
    assert!(Pcg::new(a.clone(), 1.0, &PcgOptions { max_iter: 0, ..PcgOptions::default() }).is_err());
    assert!(Pcg::new(a.clone(), -1.0, &PcgOptions::default()).is_err());
    assert!(Pcg::new(a.clone(), 1.0, &opts(1e-6, Preconditioner::BlockJacobi { block: 0 })).is_err());
    let pcg = Pcg::new(a.clone(), 1.0, &PcgOptions::default()).unwrap();
    assert!(pcg.solve(&[1.0; 3]).is_err());
    assert!(pcg.solve(&[1.0, f64::NAN, 0.0, 0.0]).is_err());
    assert!(LsSvmIterative::new(a.clone(), 0.0, &PcgOptions::default()).is_err());
    // An indefinite matrix breaks CG down: an error, not a wrong answer.
    let m = nalgebra::DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]);
    let ind = CscMatrix::from(&m);
    assert!(Pcg::new(ind, 0.0, &opts(1e-10, Preconditioner::None)).unwrap().solve(&[1.0, -1.0]).is_err());
    assert!("block-jacobi:0".parse::<Preconditioner>().is_err());
    assert!("gauss-seidel".parse::<Preconditioner>().is_err());
    assert!("fast".parse::<Solver>().is_err());
}

/// `cg_columns_until`: with a test that never fires it is `cg_columns` (the same bytes and reports);
/// a test that fires at iteration `k` ends the solve there, after exactly `k` products with the
/// operator, with the iterate of `cg_columns` capped at `k` (the first `k` iterations are the same
/// arithmetic) and unconverged reports.
#[test]
fn giving_up_ends_the_solve_where_asked_and_never_giving_up_changes_nothing() {
    use kern_sparse::pcg::{cg_columns, cg_columns_until};
    let x = crate::common::uniform(1500, 2, 1.0, 21);
    let a = sparse_gram(&crate::common::cs_gauss(0.6, 0.06, 2), &x).unwrap().into_matrix();
    let n = a.ncols();
    let s = 0.05;
    let mut b = rhs(n, 5);
    b.extend(rhs(n, 6));
    let products = std::cell::Cell::new(0usize);
    let apply = |v: &[f64], out: &mut [f64]| -> Result<(), kern_sparse::SparseError> {
        products.set(products.get() + 1);
        for (vc, oc) in v.chunks(n).zip(out.chunks_mut(n)) {
            let av = GramMatrix::Sparse(a.clone()).mul_vec(vc).unwrap();
            for i in 0..n {
                oc[i] = av[i] + s * vc[i];
            }
        }
        Ok(())
    };
    let identity = |r: &[f64], z: &mut [f64]| z.copy_from_slice(r);
    let o = opts(1e-10, Preconditioner::None);
    let (want, want_r) = cg_columns(&b, n, &o, apply, identity).unwrap();
    let (got, got_r) = cg_columns_until(&b, n, &o, apply, identity, |_, _| false).unwrap();
    assert!(want_r.iter().all(|r| r.converged && r.iterations > 10), "{want_r:?}");
    assert_eq!(
        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        got.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    assert_eq!(want_r, got_r);
    // Give up at iteration 7: 7 products (a 7-iteration cap spends an 8th on the true residual), the
    // iterate of that cap, reports unconverged at 7 iterations.
    let k = 7;
    let mut asked = Vec::new();
    products.set(0);
    let (early, early_r) = cg_columns_until(&b, n, &o, apply, identity, |it, reps| {
        asked.push((it, reps.len()));
        it >= k
    })
    .unwrap();
    assert_eq!(products.get(), k);
    assert_eq!(asked, (1..=k).map(|it| (it, 2)).collect::<Vec<_>>());
    assert!(
        early_r.iter().all(|r| r.iterations == k && !r.converged && r.residual > 1e-10 && r.residual < 1.0)
    );
    let (capped, capped_r) = cg_columns(&b, n, &PcgOptions { max_iter: k, ..o }, apply, identity).unwrap();
    assert_eq!(
        early.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        capped.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    assert!(capped_r.iter().all(|r| r.iterations == k && !r.converged));
}

/// The lower-triangle product and the lockstep solve on it are the same bytes at 1, 2 and 3 threads
/// (several chunks of columns, so several bands summed per row).
#[test]
fn lower_storage_same_bytes_at_any_thread_count() {
    let x = crate::common::uniform(9000, 2, 1.0, 13);
    let lower = sparse_gram_lower(&crate::common::cs_gauss(0.6, 0.03, 2), &x).unwrap();
    assert!(lower.n() > 3 * kern_sparse::sym_lower::SYM_CHUNK);
    let mut b = rhs(9000, 3);
    b.extend(rhs(9000, 4).iter().map(|v| 100.0 * v));
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let y = lower.mul_shifted(0.5, &b[..9000]).unwrap();
            let pcg = Pcg::from_lower(lower.clone(), 0.5, &opts(1e-10, Preconditioner::None)).unwrap();
            let (x, r) = pcg.solve_many(&b).unwrap();
            (y.iter().chain(&x).map(|v| v.to_bits()).collect::<Vec<u64>>(), r)
        })
    };
    let (one, r1) = run(1);
    for threads in [2, 3] {
        let (many, r) = run(threads);
        assert!(one == many, "{threads} threads");
        assert_eq!(r1, r);
    }
    assert!(r1.iter().all(|r| r.converged));
}

/// The LS-SVM's `ν` and targets in lockstep are the solo solves, and agree with the direct solve on
/// the lower-triangle storage.
#[test]
fn lssvm_lockstep_on_the_lower_storage() {
    let x = crate::common::uniform(1500, 2, 1.0, 31);
    let kern = crate::common::cs_gauss(0.6, 0.1, 2);
    let ys: Vec<f64> = (0..3)
        .flat_map(|t| {
            let x = &x;
            (0..1500).map(move |i| if x.row(i)[1] > 0.3 + 0.2 * t as f64 { 1.0 } else { -1.0 })
        })
        .collect();
    let a = sparse_gram(&kern, &x).unwrap().into_matrix();
    let o = opts(1e-11, Preconditioner::None);
    let lambda = 10.0;
    let (it, sols) = LsSvmIterative::with_targets(
        Pcg::from_lower(sparse_gram_lower(&kern, &x).unwrap(), 0.1, &o).unwrap(),
        &ys,
    )
    .unwrap();
    let direct = LsSvmSolver::new(&mut CholeskyPlan::sparse(&a, Ordering::Auto).unwrap(), lambda).unwrap();
    assert!(it.nu_report().converged);
    for (t, (s, r)) in sols.iter().enumerate() {
        let y = &ys[t * 1500..(t + 1) * 1500];
        assert_eq!((s, r), (&it.solve(y).unwrap().0, &it.solve(y).unwrap().1), "target {t}");
        let d = direct.solve(y).unwrap();
        assert!(r.converged && (s.b - d.b).abs() < 1e-8 * (1.0 + d.b.abs()), "{t}: {} vs {}", s.b, d.b);
        assert!(
            crate::common::rel_err(&s.alpha, &d.alpha) < 1e-8,
            "{t}: {}",
            crate::common::rel_err(&s.alpha, &d.alpha)
        );
    }
    assert!(LsSvmIterative::with_targets(Pcg::new(a.clone(), 0.1, &o).unwrap(), &[1.0; 7]).is_err());
    assert!(
        Pcg::from_lower(
            sparse_gram_lower(&kern, &x).unwrap(),
            0.1,
            &opts(1e-6, Preconditioner::BlockJacobi { block: 8 })
        )
        .is_err()
    );
    assert!(Pcg::new(a, 0.1, &o).unwrap().solve_many(&[1.0; 1501]).is_err());
}
