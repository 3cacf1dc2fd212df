//! Sparse solves equal dense solves; LS-SVM (b, a) agree across paths; shifts reuse the analysis and
//! factor bit-identically to a fresh shifted copy (shared plan or not); non-PD matrices are reported.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::perm::PermRef;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, LltRef, SymbolicCholeskyRaw, SymmetricOrdering, factorize_symbolic_cholesky,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Side};
use kern_core::{GramPath, gram_with};
use kern_sparse::{
    Cholesky, CholeskyPlan, GramMatrix, LsSvmSolver, Ordering, Permutation, RawFactor, SparseError,
    lssvm_fit, lssvm_solve, sparse_gram,
};
use nalgebra_sparse::CscMatrix;
use proptest::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

fn rhs(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..n).map(|_| rng.random::<f64>() * 2.0 - 1.0).collect()
}

fn labels(n: usize, seed: u64) -> Vec<f64> {
    rhs(n, seed).into_iter().map(|v| if v > 0.0 { 1.0 } else { -1.0 }).collect()
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(24))]

    #[test]
    fn sparse_solve_equals_dense_solve(
        n in 2usize..250, d in 1usize..4, c in 0.05f64..1.5, shift in 1e-3f64..10.0, seed in any::<u64>()
    ) {
        let x = crate::common::uniform(n, d, 1.0, seed);
        let k = crate::common::cs_gauss(0.6, c, d);
        let dense = CholeskyPlan::dense(gram_with(&k, &x, GramPath::Pairwise).unwrap()).unwrap().factor(shift).unwrap();
        let b = rhs(n, seed ^ 1);
        let want = dense.solve(&b).unwrap();
        let mut fills = Vec::new();
        for o in [Ordering::Amd, Ordering::Rcm, Ordering::Identity, Ordering::NestedDissection, Ordering::Auto] {
            let mut plan = CholeskyPlan::new(GramMatrix::Sparse(sparse_gram(&k, &x).unwrap().into_matrix()), o).unwrap();
            fills.push(plan.factor_nnz());
            let chol = plan.factor(shift).unwrap();
            let got = chol.solve(&b).unwrap();
            prop_assert!(crate::common::rel_err(&got, &want) < 1e-9, "{o:?}: rel err {}", crate::common::rel_err(&got, &want));
            prop_assert!((chol.log_det() - dense.log_det()).abs() < 1e-8 * (1.0 + dense.log_det().abs()));
        }
        // Auto keeps the smaller predicted factor of AMD and RCM (factors this small never reach the
        // nested-dissection threshold).
        prop_assert!(fills[0].min(fills[1]) < kern_sparse::AUTO_ND_MIN_FACTOR_NNZ);
        prop_assert_eq!(fills[4], fills[0].min(fills[1]));
    }

    #[test]
    fn lssvm_dense_and_sparse_paths_agree(
        n in 2usize..200, c in 0.1f64..1.5, lambda in 0.01f64..100.0, seed in any::<u64>()
    ) {
        let x = crate::common::uniform(n, 2, 1.0, seed);
        let k = crate::common::cs_gauss(0.6, c, 2);
        let y = labels(n, seed ^ 2);
        let dense = lssvm_solve(&mut CholeskyPlan::dense(gram_with(&k, &x, GramPath::Pairwise).unwrap()).unwrap(), lambda, &y).unwrap();
        let sparse = lssvm_fit(&k, &x, &y, lambda).unwrap();
        prop_assert!((dense.b - sparse.b).abs() < 1e-9 * (1.0 + dense.b.abs()));
        prop_assert!(crate::common::rel_err(&sparse.alpha, &dense.alpha) < 1e-9);
        // The solution satisfies eq. 14: 1ᵀa = 0 and b 1 + (K + I/λ) a = y.
        let sum: f64 = sparse.alpha.iter().sum();
        prop_assert!(sum.abs() < 1e-9 * (1.0 + sparse.alpha.iter().map(|a| a.abs()).sum::<f64>()));
        let gram = GramMatrix::Sparse(sparse_gram(&k, &x).unwrap().into_matrix());
        let ka = gram.mul_vec(&sparse.alpha).unwrap();
        for i in 0..n {
            let lhs = sparse.b + ka[i] + sparse.alpha[i] / lambda;
            prop_assert!((lhs - y[i]).abs() < 1e-8, "row {i}: {lhs} vs {}", y[i]);
        }
    }
}

#[test]
fn auto_ordering_takes_rcm_where_amd_fills_more() {
    // A wide-support kernel on clustered 2-D data: a Gram matrix about half full, where RCM's band beats
    // AMD (the CS-RBF Table 1 regime at 50-75 % sparsity).
    let x = crate::common::uniform(600, 2, 1.0, 5);
    let k = crate::common::cs_gauss(0.6, 0.6, 2);
    let a = sparse_gram(&k, &x).unwrap().into_matrix();
    let fill = |o| CholeskyPlan::sparse(&a, o).unwrap().factor_nnz();
    let (amd, rcm, auto) = (fill(Ordering::Amd), fill(Ordering::Rcm), fill(Ordering::Auto));
    assert_eq!(auto, amd.min(rcm));
    assert!(rcm < amd, "expected RCM to fill less here: rcm {rcm}, amd {amd}");
    let p = kern_sparse::order(&a, Ordering::Auto).unwrap();
    assert_eq!(&p, CholeskyPlan::sparse(&a, Ordering::Rcm).unwrap().permutation().unwrap());
}

#[test]
fn shifts_reuse_the_symbolic_analysis() {
    let x = crate::common::uniform(1500, 2, 1.0, 21);
    let k = crate::common::cs_gauss(0.6, 0.08, 2);
    let a = sparse_gram(&k, &x).unwrap().into_matrix();
    let mut plan = CholeskyPlan::sparse(&a, Ordering::Amd).unwrap();
    let b = rhs(1500, 5);
    for lambda in [0.01, 0.1, 1.0, 10.0, 100.0] {
        let reused = plan.factor(1.0 / lambda).unwrap().solve(&b).unwrap();
        // A fresh plan on A + I/λ must give the same answer.
        let mut shifted = a.clone();
        for j in 0..1500 {
            if let nalgebra_sparse::SparseEntryMut::NonZero(v) = shifted.get_entry_mut(j, j).unwrap() {
                *v += 1.0 / lambda;
            }
        }
        let fresh =
            CholeskyPlan::sparse(&shifted, Ordering::Amd).unwrap().factor(0.0).unwrap().solve(&b).unwrap();
        assert!(crate::common::rel_err(&reused, &fresh) < 1e-12);
    }
    // Multi-target solver: ν is shared, each y costs one solve, and equals lssvm_solve.
    let solver = LsSvmSolver::new(&mut plan, 3.0).unwrap();
    let y = labels(1500, 9);
    assert_eq!(solver.solve(&y).unwrap(), lssvm_solve(&mut plan, 3.0, &y).unwrap());
}

#[test]
fn gaussian_dense_path() {
    let x = crate::common::uniform(300, 3, 1.0, 2);
    let g = kern_core::Gaussian::with_sigma(0.6).unwrap();
    let y = labels(300, 3);
    let s = lssvm_fit(&g, &x, &y, 10.0).unwrap();
    let plan = CholeskyPlan::new(GramMatrix::build(&g, &x).unwrap(), Ordering::Amd).unwrap();
    assert!(!plan.is_sparse());
    let ka = GramMatrix::build(&g, &x).unwrap().mul_vec(&s.alpha).unwrap();
    for i in 0..300 {
        assert!((s.b + ka[i] + s.alpha[i] / 10.0 - y[i]).abs() < 1e-8);
    }
}

#[test]
fn not_positive_definite_is_reported_with_its_pivot() {
    // Path graph Laplacian-like matrix with a negative diagonal at original index 7.
    let n = 12;
    let mut coo = nalgebra_sparse::CooMatrix::new(n, n);
    for i in 0..n {
        coo.push(i, i, if i == 7 { -1.0 } else { 3.0 });
        if i + 1 < n {
            coo.push(i, i + 1, 1.0);
            coo.push(i + 1, i, 1.0);
        }
    }
    let a = CscMatrix::from(&coo);
    for o in [Ordering::Amd, Ordering::Rcm, Ordering::Identity] {
        let mut plan = CholeskyPlan::sparse(&a, o).unwrap();
        match plan.factor(0.0) {
            Err(SparseError::NotPositiveDefinite { pivot, shift, .. }) => {
                assert_eq!(shift, 0.0);
                assert!(pivot < n);
            }
            other => panic!("expected NotPositiveDefinite, got {other:?}"),
        }
        let msg = plan.factor(0.0).unwrap_err().to_string();
        assert!(msg.contains("not positive definite"), "{msg}");
        // A large enough shift makes it PD (Gershgorin: diagonal - 1 + shift - 2 > 0).
        assert!(plan.factor(5.0).is_ok());
    }
    // With the identity ordering the failing pivot is the negative entry itself.
    match CholeskyPlan::sparse(&a, Ordering::Identity).unwrap().factor(0.0) {
        Err(SparseError::NotPositiveDefinite { pivot, .. }) => assert_eq!(pivot, 7),
        other => panic!("{other:?}"),
    }
    let dense = faer::Mat::from_fn(n, n, |i, j| a.get_entry(i, j).unwrap().into_value());
    match CholeskyPlan::dense(dense).unwrap().factor(0.0) {
        Err(SparseError::NotPositiveDefinite { pivot, .. }) => assert_eq!(pivot, 7),
        other => panic!("{other:?}"),
    }
}

#[test]
fn input_errors() {
    let mut plan = CholeskyPlan::dense(faer::Mat::<f64>::identity(3, 3)).unwrap();
    assert!(plan.factor(f64::NAN).is_err());
    let chol = plan.factor(0.0).unwrap();
    assert!(chol.solve(&[1.0, 2.0]).is_err());
    assert!(lssvm_solve(&mut plan, 0.0, &[1.0, 1.0, -1.0]).is_err());
    assert!(lssvm_solve(&mut plan, -1.0, &[1.0, 1.0, -1.0]).is_err());
    assert!(lssvm_solve(&mut plan, 1.0, &[1.0, f64::NAN, -1.0]).is_err());
    assert!(lssvm_solve(&mut plan, 1.0, &[1.0, 1.0]).is_err());
    assert!(CholeskyPlan::dense(faer::Mat::<f64>::zeros(2, 3)).is_err());
    assert!(CholeskyPlan::sparse(&CscMatrix::<f64>::zeros(2, 3), Ordering::Amd).is_err());
    let id = CscMatrix::<f64>::identity(3);
    assert!(CholeskyPlan::sparse_with_permutation(&id, kern_sparse::Permutation::identity(2)).is_err());
}

/// The numeric factor of `A + shift·I` as the sparse path computed it before plans shifted in place:
/// faer directly, on the lower triangle with `usize` indices and a shifted copy of its values (missing
/// diagonal entries stored as `0 + shift`), ordered by `perm`. Returns the factor's values and the
/// solution of `(A + shift·I) x = b`.
fn reference(a: &CscMatrix<f64>, perm: &Permutation, shift: f64, b: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = a.ncols();
    let (mut cp, mut ri, mut vals) = (vec![0usize], Vec::new(), Vec::new());
    for j in 0..n {
        let col = a.col(j);
        let lower: Vec<(usize, f64)> =
            col.row_indices().iter().zip(col.values()).filter(|e| *e.0 >= j).map(|(&i, &v)| (i, v)).collect();
        if lower.first().map(|e| e.0) != Some(j) {
            ri.push(j);
            vals.push(0.0 + shift);
        }
        for (i, v) in lower {
            ri.push(i);
            vals.push(if i == j { v + shift } else { v });
        }
        cp.push(ri.len());
    }
    let sym = SymbolicSparseColMatRef::new_checked(n, n, &cp, None, &ri);
    let symbolic = factorize_symbolic_cholesky(
        sym,
        Side::Lower,
        SymmetricOrdering::Custom(PermRef::new_checked(perm.perm(), perm.inv(), n)),
        CholeskySymbolicParams::default(),
    )
    .unwrap();
    let par = kern_core::parallel::faer_par();
    let mut l = vec![0.0; symbolic.len_val()];
    let mut mem = MemBuffer::new(symbolic.factorize_numeric_llt_scratch::<f64>(par, Default::default()));
    symbolic
        .factorize_numeric_llt::<f64>(
            &mut l,
            SparseColMatRef::new(sym, &vals),
            Side::Lower,
            Default::default(),
            par,
            MemStack::new(&mut mem),
            Default::default(),
        )
        .unwrap();
    let mut x = b.to_vec();
    let mut mem = MemBuffer::new(symbolic.solve_in_place_scratch::<f64>(1, par));
    LltRef::new(&symbolic, &l).solve_in_place_with_conj(
        Conj::No,
        MatMut::from_column_major_slice_mut(&mut x, n, 1),
        par,
        MemStack::new(&mut mem),
    );
    (l, x)
}

/// The factor's values and the solve of `b`, as bit patterns.
fn bits(chol: &Cholesky, b: &[f64]) -> (Vec<u64>, Vec<u64>) {
    let Cholesky::Sparse(c) = chol else { panic!("expected a sparse factor") };
    let values = match c.raw_factor() {
        RawFactor::U32(_, v) | RawFactor::Usize(_, v) => v,
    };
    let x = chol.solve(b).unwrap();
    (values.iter().map(|v| v.to_bits()).collect(), x.iter().map(|v| v.to_bits()).collect())
}

fn to_bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|v| v.to_bits()).collect()
}

/// A random symmetric matrix, positive definite for any shift ≥ 0: off-diagonal entries of density
/// `density`, diagonal dominant; rows without off-diagonal entries may leave their diagonal out.
fn random_spd(n: usize, density: f64, seed: u64) -> CscMatrix<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut coo = nalgebra_sparse::CooMatrix::new(n, n);
    let mut row_sum = vec![0.0; n];
    for j in 0..n {
        for i in j + 1..n {
            if rng.random::<f64>() < density {
                let v = rng.random::<f64>() - 0.5;
                coo.push(i, j, v);
                coo.push(j, i, v);
                row_sum[i] += v.abs();
                row_sum[j] += v.abs();
            }
        }
    }
    for (i, &s) in row_sum.iter().enumerate() {
        if s > 0.0 || rng.random::<f64>() < 0.5 {
            coo.push(i, i, s + 0.1 + rng.random::<f64>());
        }
    }
    CscMatrix::from(&coo)
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(32))]

    #[test]
    fn shifts_on_one_plan_factor_bit_identically_to_a_fresh_shifted_copy(
        n in 1usize..70, density in 0.0f64..0.5, seed in any::<u64>(),
        shifts in proptest::collection::vec(0.01f64..5.0, 3),
        ordering in proptest::sample::select(vec![Ordering::Amd, Ordering::Rcm, Ordering::Identity, Ordering::Auto]),
    ) {
        let a = random_spd(n, density, seed);
        let b = rhs(n, seed ^ 3);
        let mut plan = CholeskyPlan::sparse(&a, ordering).unwrap();
        let perm = plan.permutation().unwrap().clone();
        let want: Vec<_> = shifts.iter().map(|&s| {
            let (l, x) = reference(&a, &perm, s, &b);
            (to_bits(&l), to_bits(&x))
        }).collect();
        // Uniquely owned: in place, shift after shift, and again in another order.
        for (s, w) in shifts.iter().zip(&want).chain(shifts.iter().zip(&want).rev()) {
            prop_assert_eq!(&bits(&plan.factor(*s).unwrap(), &b), w);
        }
        // Shared: both owners factor (each on a shifted copy), and the same bytes come out.
        let mut other = plan.clone();
        for (s, w) in shifts.iter().zip(&want) {
            prop_assert_eq!(&bits(&other.factor(*s).unwrap(), &b), w);
            prop_assert_eq!(&bits(&plan.factor(*s).unwrap(), &b), w);
        }
        drop(other);
        prop_assert_eq!(&bits(&plan.factor(shifts[0]).unwrap(), &b), &want[0]);
    }
}

#[test]
fn supernodal_factors_of_k_c_are_bit_identical_to_a_fresh_shifted_copy() {
    // K_C of 3,000 points: large enough supernodes for faer's supernodal factorization.
    let a = sparse_gram(&crate::common::cs_gauss(0.3, 0.12, 2), &crate::common::uniform(3000, 2, 1.0, 11))
        .unwrap()
        .into_matrix();
    let b = rhs(3000, 4);
    for o in [Ordering::Amd, Ordering::NestedDissection] {
        let mut plan = CholeskyPlan::sparse(&a, o).unwrap();
        assert_eq!(plan.index_bytes(), Some(4));
        let perm = plan.permutation().unwrap().clone();
        let Cholesky::Sparse(c) = plan.factor(1.0).unwrap() else { panic!("sparse plan") };
        let RawFactor::U32(symbolic, _) = c.raw_factor() else { panic!("32-bit indices") };
        assert!(matches!(symbolic.raw(), SymbolicCholeskyRaw::Supernodal(_)), "{o:?}: simplicial");
        for shift in [1.0, 0.01, 1.0, 100.0] {
            let (l, x) = reference(&a, &perm, shift, &b);
            assert_eq!(bits(&plan.factor(shift).unwrap(), &b), (to_bits(&l), to_bits(&x)), "{o:?} {shift}");
        }
    }
}
