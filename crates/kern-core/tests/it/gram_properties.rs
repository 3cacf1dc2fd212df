//! Property tests of kernels and Gram matrices: symmetry and positive semi-definiteness,
//! CS-RBF Lemma 1 and the support radius, GEMM path against the pairwise path.

use faer::{Mat, Side};
use kern_core::*;
use proptest::prelude::*;

fn samples_strategy(max_n: usize, max_d: usize) -> impl Strategy<Value = Samples> {
    (1..=max_n, 1..=max_d).prop_flat_map(|(n, d)| {
        (prop::collection::vec(-3.0f64..3.0, n * d), prop::collection::vec(0..n, 0..=n / 2)).prop_map(
            move |(v, dups)| {
                let mut v = v;
                // Duplicate some rows exactly: duplicates are where the GEMM formulation cancels.
                for (k, &src) in dups.iter().enumerate() {
                    let dst = (src + k + 1) % n;
                    let row: Vec<f64> = v[src * d..(src + 1) * d].to_vec();
                    v[dst * d..(dst + 1) * d].copy_from_slice(&row);
                }
                Samples::from_flat(v, n, d).unwrap()
            },
        )
    })
}

fn assert_symmetric_psd(g: &Mat<f64>) -> Result<(), TestCaseError> {
    let n = g.nrows();
    let mut max_abs: f64 = 0.0;
    for j in 0..n {
        for i in 0..n {
            prop_assert_eq!(g[(i, j)], g[(j, i)], "not exactly symmetric at ({}, {})", i, j);
            max_abs = max_abs.max(g[(i, j)].abs());
        }
    }
    let eig = g.self_adjoint_eigenvalues(Side::Lower).expect("eigenvalues converge");
    let min = eig.iter().copied().fold(f64::INFINITY, f64::min);
    prop_assert!(min >= -1e-9 * n as f64 * max_abs.max(1e-300), "smallest eigenvalue {min}");
    Ok(())
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(48))]

    #[test]
    fn psd_kernels_give_symmetric_psd_gram(x in samples_strategy(40, 5), beta in 0.05f64..5.0,
                                           c in 0.3f64..6.0, coef0 in 0.0f64..2.0, deg in 1u32..4) {
        let d = x.d();
        let nu = (d as f64 + 1.0) / 2.0 + (beta * 7.0).fract() * 2.0;
        let center: Vec<f64> = x.row(0).to_vec();
        let kernels: Vec<KernelSpec> = vec![
            Gaussian::with_beta(beta).unwrap().into(),
            Laplacian::new(1.0 / beta).unwrap().into(),
            Linear.into(),
            Polynomial::new(deg, coef0).unwrap().into(),
            CompactlySupported::new(KernelSpec::from(Gaussian::with_beta(beta).unwrap()), c, nu).unwrap().into(),
            Product::<KernelSpec, KernelSpec>::new(
                Indicator::new(center.clone(), c / 2.0, beta).unwrap().into(), Linear.into()).into(),
            Product::<KernelSpec, KernelSpec>::new(
                Indicator::new(center, c / 2.0, beta).unwrap().into(),
                Gaussian::with_beta(beta).unwrap().into()).into(),
        ];
        for k in &kernels {
            let g = gram(k, &x).unwrap();
            assert_symmetric_psd(&g)?;
        }
    }

    #[test]
    fn gemm_and_sparse_paths_match_pairwise(x in samples_strategy(300, 40), beta in 0.01f64..2.0) {
        // d above DIRECT_MAX_DIM exercises the GEMM with the norms formulation; below it, direct loops.
        let kernels: Vec<KernelSpec> = vec![
            Gaussian::with_beta(beta).unwrap().into(),
            Laplacian::new(1.0 / beta).unwrap().into(),
            Polynomial::new(3, 1.0).unwrap().into(),
            CompactlySupported::new(KernelSpec::from(Gaussian::with_beta(beta).unwrap()), 4.0, 30.0).unwrap().into(),
        ];
        for k in &kernels {
            let b = gram_with(k, &x, GramPath::Pairwise).unwrap();
            let scale = b.norm_max().max(1.0);
            // The sparse-rows path is exact on dense data too (it is only slower there).
            for path in [GramPath::Gemm, GramPath::Sparse] {
                let a = gram_with(k, &x, path).unwrap();
                for j in 0..x.n() {
                    for i in 0..x.n() {
                        let e = (a[(i, j)] - b[(i, j)]).abs();
                        prop_assert!(e <= 1e-12 * scale, "{} {:?} ({},{}): {} vs {}", k, path, i, j, a[(i, j)], b[(i, j)]);
                    }
                }
            }
        }
    }

    #[test]
    fn compact_support_is_exact(r in 0.0f64..10.0, c in 0.01f64..5.0, nu in 1.0f64..8.0, beta in 0.01f64..3.0) {
        let k = CompactlySupported::new(Gaussian::with_beta(beta).unwrap(), c, nu).unwrap().allow_any_nu();
        let v = k.eval(&[0.0], &[r]);
        if r >= c {
            prop_assert_eq!(v, 0.0);
        } else {
            prop_assert!(v > 0.0 || (1.0 - r / c).powf(nu) < 1e-300);
            prop_assert!(v <= Gaussian::with_beta(beta).unwrap().eval(&[0.0], &[r]) + 1e-15);
        }
    }

    #[test]
    fn lemma_1_limits(r in 0.01f64..5.0, nu in 1.0f64..6.0, beta in 0.05f64..3.0) {
        // CS-RBF Lemma 1: k_C → 0 as C → 0 (for r > 0) and k_C → k as C → ∞.
        let base = Gaussian::with_beta(beta).unwrap();
        let k_small = CompactlySupported::new(base, r * 1e-6, nu).unwrap();
        prop_assert_eq!(k_small.eval(&[0.0], &[r]), 0.0);
        let k_big = CompactlySupported::new(base, r * 1e9, nu).unwrap();
        let e = (k_big.eval(&[0.0], &[r]) - base.eval(&[0.0], &[r])).abs();
        prop_assert!(e <= 1e-7 * base.eval(&[0.0], &[r]).max(1e-300) * nu, "{e}");
    }
}

#[test]
fn compact_kernel_monotone_in_c() {
    // Larger support never decreases k_C at a fixed distance (φ_C is increasing in C).
    let base = Gaussian::with_sigma(0.6).unwrap();
    let mut last = 0.0;
    for i in 1..100 {
        let c = i as f64 * 0.05;
        let v = CompactlySupported::new(base, c, 3.0).unwrap().eval(&[0.0, 0.0], &[0.5, 0.5]);
        assert!(v >= last);
        last = v;
    }
}

#[test]
fn sigmoid_is_indefinite_somewhere() {
    // The documented caveat: tanh kernels give Gram matrices with negative eigenvalues.
    let x = Samples::from_rows(&[[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0], [2.0, 2.0]]).unwrap();
    let g = gram(&Sigmoid::new(1.0, -2.0).unwrap(), &x).unwrap();
    let eig = g.self_adjoint_eigenvalues(Side::Lower).unwrap();
    assert!(eig[0] < -1e-6, "{eig:?}");
}

/// The serial cross Gram of small predictions ([`gram::cross_gram_serial`]) and the automatic blocked
/// one both equal the pairwise reference to rounding, for kernels of every profile.
#[test]
fn serial_and_blocked_cross_grams_match_pairwise() {
    let (d, ny) = (20, 60);
    for nx in [40, 1200] {
        let x = kern_testkit::data::uniform(nx, d, 1.0, 5);
        let y = kern_testkit::data::uniform(ny, d, 1.0, 6);
        let kernels: Vec<KernelSpec> = vec![
            Gaussian::with_beta(0.3).unwrap().into(),
            Polynomial::new(2, 1.0).unwrap().into(),
            Laplacian::new(2.0).unwrap().into(),
        ];
        for k in &kernels {
            let b = cross_gram_with(k, &x, &y, GramPath::Pairwise).unwrap();
            let scale = b.norm_max().max(1.0);
            for a in [cross_gram(k, &x, &y).unwrap(), gram::cross_gram_serial(k, &x, &y).unwrap()] {
                for j in 0..ny {
                    for i in 0..nx {
                        assert!((a[(i, j)] - b[(i, j)]).abs() <= 1e-12 * scale, "{k} n_x = {nx} ({i}, {j})");
                    }
                }
            }
        }
    }
}
