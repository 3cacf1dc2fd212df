use super::*;
use crate::persist::{from_bytes, to_bytes};
use kern_testkit::data::normal;
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

/// Example 3 of the CS-RBF paper: three clusters of 30 points, centres (−0.5, −0.2), (0, 0.6),
/// (0.5, 0), covariance 0.01 I. Returns the samples and the cluster of every point.
fn three_clusters(seed: u64) -> (Samples, Vec<usize>) {
    let centres = [[-0.5, -0.2], [0.0, 0.6], [0.5, 0.0]];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut rows = Vec::new();
    let mut labels = Vec::new();
    for (c, m) in centres.iter().enumerate() {
        for _ in 0..30 {
            rows.push(vec![m[0] + 0.1 * normal(&mut rng), m[1] + 0.1 * normal(&mut rng)]);
            labels.push(c);
        }
    }
    (Samples::from_rows(&rows).unwrap(), labels)
}

/// `n` points uniform in `[0, 3)^d`.
fn uniform(n: usize, d: usize, seed: u64) -> Samples {
    kern_testkit::data::uniform(n, d, 3.0, seed)
}

fn dense_gram(k: &KernelSpec, x: &Samples) -> Mat<f64> {
    kern_core::gram(k, x).unwrap()
}

fn centre(k: &Mat<f64>) -> Mat<f64> {
    let n = k.nrows();
    let h = Mat::from_fn(n, n, |i, j| if i == j { 1.0 } else { 0.0 } - 1.0 / n as f64);
    &h * k * &h
}

fn full_eigenvalues_desc(k: &Mat<f64>) -> Vec<f64> {
    let mut v = centre(k).self_adjoint_eigenvalues(Side::Lower).unwrap();
    v.reverse();
    v
}

#[test]
fn eigenvalues_match_full_dense_eig_on_every_path_and_solver() {
    let x = uniform(700, 2, 1);
    for spec in ["gaussian:sigma=0.7", "cs-gaussian:sigma=0.7,c=0.8,nu=3"] {
        let kernel: KernelSpec = spec.parse().unwrap();
        let want = full_eigenvalues_desc(&dense_gram(&kernel, &x));
        let paths: &[PathChoice] = if kernel.support_radius().is_some() {
            &[PathChoice::Dense, PathChoice::Sparse]
        } else {
            &[PathChoice::Dense]
        };
        for &path in paths {
            for solver in [EigenSolver::Dense, EigenSolver::Krylov] {
                let m = KernelPcaParams::new(kernel.clone(), 8).path(path).solver(solver).fit(&x).unwrap();
                for j in 0..8 {
                    let err = (m.eigenvalues()[j] - want[j]).abs() / want[0];
                    assert!(
                        err < 1e-8,
                        "{spec} {path:?} {solver:?} eigenvalue {j}: {} vs {}",
                        m.eigenvalues()[j],
                        want[j]
                    );
                }
                // Explained variance ratio against the full spectrum.
                let total: f64 = want.iter().sum();
                assert!((m.explained_variance_ratio()[0] - want[0] / total).abs() < 1e-8);
            }
        }
    }
}

#[test]
fn components_are_orthonormal_in_feature_space() {
    let x = uniform(600, 3, 2);
    for (spec, solver) in [
        ("gaussian:sigma=1.5", EigenSolver::Krylov),
        ("cs-laplacian:sigma=1,c=1.2,nu=3", EigenSolver::Krylov),
        ("gaussian:sigma=1.5", EigenSolver::Dense),
    ] {
        let kernel: KernelSpec = spec.parse().unwrap();
        let m = KernelPcaParams::new(kernel.clone(), 6).solver(solver).fit(&x).unwrap();
        let kc = centre(&dense_gram(&kernel, &x));
        let a = m.alphas();
        // ⟨V_k, V_l⟩ = α_kᵀ K̃ α_l = δ_kl (eq. 48 and orthogonality).
        let g = a.transpose() * &kc * &a;
        for i in 0..6 {
            for j in 0..6 {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((g[(i, j)] - want).abs() < 1e-8, "{spec} ⟨V_{i}, V_{j}⟩ = {}", g[(i, j)]);
            }
            // μ_k α_k·α_k = 1.
            let aa: f64 = (0..600).map(|r| a[(r, i)] * a[(r, i)]).sum();
            assert!((m.eigenvalues()[i] * aa - 1.0).abs() < 1e-8);
        }
    }
}

#[test]
fn projecting_training_points_reproduces_scores() {
    let x = uniform(800, 2, 3);
    for (spec, path) in [
        ("gaussian:sigma=0.5", PathChoice::Dense),
        ("cs-gaussian:sigma=0.5,c=0.6,nu=3", PathChoice::Sparse),
        ("cs-gaussian:sigma=0.5,c=0.6,nu=3", PathChoice::Dense),
    ] {
        let m = KernelPcaParams::new(spec.parse().unwrap(), 5).path(path).fit(&x).unwrap();
        let z = m.transform(&x).unwrap();
        let s = m.training_scores();
        let scale = m.eigenvalues()[0].sqrt();
        for i in 0..800 {
            for j in 0..5 {
                assert!(
                    (z[(i, j)] - s[(i, j)]).abs() < 1e-8 * scale,
                    "{spec} {path:?} ({i},{j}): {} vs {}",
                    z[(i, j)],
                    s[(i, j)]
                );
            }
        }
    }
}

#[test]
fn centred_test_projections_match_explicit_computation() {
    let x = uniform(300, 2, 4);
    let t = uniform(50, 2, 5);
    // (a) General kernel: K̃_t = (K_t − 1_m 1ᵀK/n)(I − 11ᵀ/n), projections K̃_t α.
    for spec in ["gaussian:sigma=0.8", "cs-gaussian:sigma=0.8,c=1.0,nu=3"] {
        let kernel: KernelSpec = spec.parse().unwrap();
        let m = KernelPcaParams::new(kernel.clone(), 4).solver(EigenSolver::Krylov).fit(&x).unwrap();
        let k = dense_gram(&kernel, &x);
        let kt = kern_core::cross_gram(&kernel, &t, &x).unwrap(); // 50 × 300
        let (n, mm) = (300, 50);
        let ones_mn = Mat::from_fn(mm, n, |_, _| 1.0 / n as f64);
        let h = Mat::from_fn(n, n, |i, j| if i == j { 1.0 } else { 0.0 } - 1.0 / n as f64);
        let ktc = (&kt - &ones_mn * &k) * &h;
        let want = &ktc * m.alphas();
        let got = m.transform(&t).unwrap();
        for i in 0..mm {
            for j in 0..4 {
                assert!((got[(i, j)] - want[(i, j)]).abs() < 1e-10, "{spec} ({i},{j})");
            }
        }
    }
    // (b) Linear kernel: Φ is the identity, so kernel PCA is PCA on input-space centred data:
    // z_k(x) = (x − x̄)·v_k with v_k = Σ_i α_ik (x_i − x̄).
    let x = uniform(200, 3, 6);
    let m = KernelPcaParams::new("linear".parse().unwrap(), 3).fit(&x).unwrap();
    let mean: Vec<f64> = (0..3).map(|c| x.rows().map(|r| r[c]).sum::<f64>() / 200.0).collect();
    let a = m.alphas();
    let v: Vec<Vec<f64>> = (0..3)
        .map(|k| (0..3).map(|c| (0..200).map(|i| a[(i, k)] * (x.row(i)[c] - mean[c])).sum()).collect())
        .collect();
    let t3 = uniform(40, 3, 7);
    let got3 = m.transform(&t3).unwrap();
    for r in 0..40 {
        for k in 0..3 {
            let want: f64 = (0..3).map(|c| (t3.row(r)[c] - mean[c]) * v[k][c]).sum();
            assert!((got3[(r, k)] - want).abs() < 1e-10, "linear ({r},{k}): {} vs {want}", got3[(r, k)]);
        }
    }
    // The axes have unit norm: ‖v_k‖ = 1.
    for vk in &v {
        assert!((vk.iter().map(|c| c * c).sum::<f64>() - 1.0).abs() < 1e-10);
    }
}

#[test]
fn example_3_three_clusters_separate_in_the_first_two_components() {
    let (x, labels) = three_clusters(3);
    // The paper's Ĉ = 0.758 (ν = 3) on the Gaussian of Schölkopf & Smola's example, exp(−r²/0.1).
    let kernel: KernelSpec = format!("cs-gaussian:sigma={},c=0.758,nu=3", 0.1f64.sqrt()).parse().unwrap();
    let m = KernelPcaParams::new(kernel, 8).fit(&x).unwrap();
    let ev = m.eigenvalues();
    assert!(ev[1] > 2.0 * ev[2], "the first two eigenvalues dominate: {ev:?}");
    let z = m.training_scores();
    // Cluster centroids in (z1, z2) and the largest distance of a point to its own centroid.
    let mut cent = [[0.0f64; 2]; 3];
    for (i, &c) in labels.iter().enumerate() {
        cent[c][0] += z[(i, 0)] / 30.0;
        cent[c][1] += z[(i, 1)] / 30.0;
    }
    let dist = |a: [f64; 2], b: [f64; 2]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
    let mut max_within = 0.0f64;
    for (i, &c) in labels.iter().enumerate() {
        let p = [z[(i, 0)], z[(i, 1)]];
        max_within = max_within.max(dist(p, cent[c]));
        // Nearest centroid is the point's own cluster.
        let nearest = (0..3).min_by(|&a, &b| dist(p, cent[a]).total_cmp(&dist(p, cent[b]))).unwrap();
        assert_eq!(nearest, c, "point {i}");
    }
    let min_between = (0..3)
        .flat_map(|a| (0..a).map(move |b| (a, b)))
        .map(|(a, b)| dist(cent[a], cent[b]))
        .fold(f64::INFINITY, f64::min);
    assert!(min_between > 2.0 * max_within, "between {min_between} vs within {max_within}");
}

#[test]
fn persistence_round_trip_gives_identical_projections() {
    let x = uniform(120, 2, 8);
    let m = KernelPcaParams::new("cs-gaussian:sigma=0.5,c=0.9,nu=3".parse().unwrap(), 3).fit(&x).unwrap();
    let bytes = to_bytes(&m).unwrap();
    let back: KernelPca = from_bytes(&bytes, "<bytes>").unwrap();
    assert_eq!(back, m);
    let t = uniform(10, 2, 9);
    assert_eq!(m.transform(&t).unwrap(), back.transform(&t).unwrap());
}

#[test]
fn rejects_bad_params() {
    let x = uniform(10, 2, 10);
    assert!(KernelPcaParams::new("linear".parse().unwrap(), 0).fit(&x).is_err());
    assert!(KernelPcaParams::new("linear".parse().unwrap(), 11).fit(&x).is_err());
    assert!(
        KernelPcaParams::new("gaussian:sigma=1".parse().unwrap(), 2)
            .path(PathChoice::Sparse)
            .fit(&x)
            .is_err()
    );
}

/// The sparse path's block Krylov solver against an independent full dense eigendecomposition of the
/// explicitly centred Gram matrix, with tolerances that follow from the residual the solver reports
/// (not from the observed errors). For a symmetric `K̃`, a unit Ritz vector `v` with value `θ` and
/// residual `r = K̃v − θv`:
/// - some eigenvalue lies within `‖r‖` of `θ` (Bauer–Fike for normal matrices); with the eigenvalues
///   separated by more than `2‖r‖` that eigenvalue is the matching one, so `|θ_j − λ_j| ≤ ‖r_j‖`;
/// - Davis–Kahan's sin θ theorem: `sin∠(v, u) ≤ ‖r‖ / δ` with `δ = min_{i≠j} |θ_j − λ_i|`, so with the
///   sign aligned `‖v − u‖ ≤ √2 ‖r‖ / δ`;
/// - the training scores are `√θ v` and `√λ u`, so `‖√θ v − √λ u‖ ≤ √θ ‖v − u‖ + |θ − λ| / (√θ + √λ)`.
///
/// The solver guarantees `‖r_j‖ ≤ ρ θ_1` with `ρ` its reported residual (`≤ tol`). Rounding of both
/// computations adds at most `n·ε·θ_1` to each eigenvalue (backward stability of the dense solver and
/// of the Rayleigh–Ritz step) — that is the only slack added.
#[test]
fn sparse_krylov_matches_dense_kpca_within_its_residual_bound() {
    let x = uniform(900, 2, 11);
    let kernel: KernelSpec = "cs-gaussian:sigma=0.6,c=0.7,nu=3".parse().unwrap();
    let k = 8;
    // A loose tolerance, so that the bound (not rounding) is what is tested.
    let tol = 1e-7;
    let m = KernelPcaParams::new(kernel.clone(), k)
        .path(PathChoice::Sparse)
        .solver(EigenSolver::Krylov)
        .tol(tol)
        .fit(&x)
        .unwrap();
    assert_eq!(m.path(), SolvePath::Sparse);
    assert_eq!(m.solver_info().solver, "krylov");
    let rho = m.solver_info().residual;
    assert!(rho <= tol, "reported residual {rho:e} above tol {tol:e}");
    let n = x.n();
    let evd = centre(&dense_gram(&kernel, &x)).self_adjoint_eigen(Side::Lower).unwrap();
    let lam: Vec<f64> = (0..n).map(|j| evd.S().column_vector()[n - 1 - j]).collect();
    let u = Mat::from_fn(n, k, |i, j| evd.U()[(i, n - 1 - j)]);
    let theta = m.eigenvalues();
    let r = rho * theta[0];
    let rounding = n as f64 * f64::EPSILON * theta[0];
    let z = m.training_scores();
    for j in 0..k {
        // Separation needed for the matching (a property of the problem, checked, not assumed).
        let gap = (0..n).filter(|&i| i != j).map(|i| (lam[j] - lam[i]).abs()).fold(f64::INFINITY, f64::min);
        assert!(gap > 2.0 * (r + rounding), "component {j}: eigenvalues too close for the test ({gap:e})");
        let dl = (theta[j] - lam[j]).abs();
        assert!(
            dl <= r + rounding,
            "eigenvalue {j}: |{} − {}| = {dl:e} > {:e}",
            theta[j],
            lam[j],
            r + rounding
        );
        // Davis–Kahan with δ ≥ gap − ‖r‖ − rounding (θ_j is that close to λ_j).
        let delta = gap - r - rounding;
        let dv = 2f64.sqrt() * (r + rounding) / delta;
        let bound = theta[j].sqrt() * dv + (dl + rounding) / (theta[j].sqrt() + lam[j].sqrt());
        let sign = if (0..n).map(|i| z[(i, j)] * u[(i, j)]).sum::<f64>() < 0.0 { -1.0 } else { 1.0 };
        let err = (0..n).map(|i| (sign * z[(i, j)] - lam[j].sqrt() * u[(i, j)]).powi(2)).sum::<f64>().sqrt();
        assert!(err <= bound, "scores of component {j}: ‖Δz‖ = {err:e} > bound {bound:e}");
    }
}

/// The Krylov solver with a basis as large as the problem (`max_dim = n`, small `n`): a full basis
/// spans ℝⁿ, and the restart comes before the next block is orthonormalised (it used to panic,
/// "could not extend an orthonormal basis"). Same eigenvalues as the dense solver.
#[test]
fn krylov_with_a_basis_of_every_dimension_matches_dense() {
    for (n, k) in [(50, 2), (60, 10), (30, 1)] {
        let x = uniform(n, 3, n as u64);
        let kernel: KernelSpec = "gaussian:sigma=1".parse().unwrap();
        let kr = KernelPcaParams::new(kernel.clone(), k).solver(EigenSolver::Krylov).fit(&x).unwrap();
        let de = KernelPcaParams::new(kernel, k).solver(EigenSolver::Dense).fit(&x).unwrap();
        assert_eq!(kr.solver_info().solver, "krylov");
        let top = de.eigenvalues()[0];
        for (a, b) in kr.eigenvalues().iter().zip(de.eigenvalues()) {
            assert!((a - b).abs() <= 1e-9 * top, "n = {n}, k = {k}: {a} vs {b}");
        }
    }
}

/// `EigenSolver::Auto` takes the Krylov method for a few components of a few hundred points (the
/// full eigendecomposition cost several times more at n = 442), and the dense one for many
/// components or small `n`.
#[test]
fn auto_plans_krylov_for_few_components_of_many_points() {
    let kernel: KernelSpec = "gaussian:sigma=1".parse().unwrap();
    let plan = |n: usize, k: usize| {
        let x = uniform(n, 3, 7);
        KernelPcaParams::new(kernel.clone(), k).fit(&x).unwrap().solver_info().solver.clone()
    };
    assert_eq!(plan(442, 2), "krylov");
    assert_eq!(plan(442, 27), "krylov");
    assert_eq!(plan(442, 28), "dense");
    assert_eq!(plan(DENSE_AUTO_MAX_N, 2), "dense");
}
