//! Sparse columns of a compactly supported kernel against dense columns: the same models bit for bit
//! (the arithmetic is the same, see `Solver::take_step`), and KKT on the dense `Q` with the objective
//! of a dense-Gram solve within the a-priori bound of `block_tests.rs` (`ε/2 · Σ C_t`).

use super::block_tests::kkt;
use super::train::SPARSE_COLUMNS;
use super::*;
use kern_core::learner::Fit;
use kern_core::{BinaryTargets, KernelSpec, RealTargets};
use kern_sparse::kmatrix::{Precomputed, SignedColumns};
use proptest::prelude::*;

fn with_columns<T>(sparse: bool, f: impl FnOnce() -> T) -> T {
    SPARSE_COLUMNS.with(|c| c.set(Some(sparse)));
    let out = f();
    SPARSE_COLUMNS.with(|c| c.set(None));
    out
}

fn bytes<M: serde::Serialize>(m: &M) -> Vec<u8> {
    bincode::serde::encode_to_vec(m, bincode::config::standard()).unwrap()
}

fn compact(sigma: f64, radius: f64) -> KernelSpec {
    format!("cs-gaussian:sigma={sigma},c={radius},nu=3").parse().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// C-SVC, ε-SVR (`2n` variables over `n` samples: two copies of each neighbour) and one-class (a
    /// nonzero start: the initial gradient and `Ḡ` from sparse columns), with shrinking on and a cache
    /// from two columns up: the models trained on sparse and on dense columns serialize to the same
    /// bytes.
    #[test]
    fn sparse_and_dense_columns_give_the_same_models(n in 4usize..90, d in 1usize..4, seed in 0u64..10_000,
                                                    radius in 0.3f64..3.0, sigma in 0.4f64..1.5,
                                                    logc in -1.0f64..3.0, tol_exp in 2i32..7,
                                                    cache_mb in prop::sample::select(vec![0.001, 0.01, 100.0]),
                                                    nu in 0.05f64..0.95) {
        let (x, y) = super::tests::random_problem(n, d, seed);
        let k = compact(sigma, radius);
        let c = 10f64.powf(logc);
        let s = SolverParams { tol: 10f64.powi(-tol_exp), cache_mb, ..SolverParams::default() };
        let svc = |sparse| with_columns(sparse, || {
            let t = BinaryTargets::from_f64(&y).unwrap();
            bytes(&SvcParams::new(k.clone()).c(c).solver(s).fit(&x, &t).unwrap())
        });
        prop_assert_eq!(svc(true), svc(false));
        let t: Vec<f64> = (0..n).map(|i| x.row(i)[0].sin() + 0.3 * x.row(i)[d - 1]).collect();
        let targets = RealTargets::new(t).unwrap();
        let svr = |sparse| with_columns(sparse, || {
            bytes(&SvrParams::new(k.clone()).c(c).epsilon(0.1).solver(s).fit(&x, &targets).unwrap())
        });
        prop_assert_eq!(svr(true), svr(false));
        let oc = |sparse| with_columns(sparse, || {
            bytes(&OneClassParams::new(k.clone()).nu(nu).solver(s).fit(&x).unwrap())
        });
        prop_assert_eq!(oc(true), oc(false));
    }

    /// C-SVC on sparse columns against the dense reference: the box and equality constraints, the KKT
    /// violation on the dense `Q` (every entry evaluated by the kernel) at most the tolerance, and the
    /// objective within `ε/2 · Σ C_t` (+1e-9 relative rounding) of a solve on the dense Gram matrix.
    #[test]
    fn sparse_columns_are_optimal_on_the_dense_q(n in 4usize..90, d in 1usize..4, seed in 0u64..10_000,
                                                radius in 0.3f64..3.0, sigma in 0.4f64..1.5,
                                                logc in -1.0f64..3.0, tol_exp in 2i32..7) {
        let (x, y) = super::tests::random_problem(n, d, seed);
        let k = compact(sigma, radius);
        let c = 10f64.powf(logc);
        let tol = 10f64.powi(-tol_exp);
        let s = SolverParams { tol, ..SolverParams::default() };
        let sparse = with_columns(true, || {
            let pre = train::precompute(&k, &x, s.cache_bytes(), None).unwrap();
            prop_assert!(matches!(pre, Some(Precomputed::Sparse(_))));
            Ok(train::solve_svc(&k, &x, &y, vec![c; n], &s, pre))
        })?;
        let pre = Some(Precomputed::Dense(train::dense_gram(&k, &x).unwrap()));
        let dense = train::solve_svc(&k, &x, &y, vec![c; n], &s, pre);
        prop_assert!(!sparse.stats.hit_cap && !dense.stats.hit_cap);
        for &a in &sparse.alpha {
            prop_assert!((0.0..=c).contains(&a));
        }
        let ya: f64 = sparse.alpha.iter().zip(&y).map(|(a, y)| a * y).sum();
        prop_assert!(ya.abs() <= 1e-9 * c * n as f64);
        let qm = super::tests::dense_q(&k, &x, &(0..n).collect::<Vec<_>>(), &y);
        let v = kkt(&qm, &vec![-1.0; n], &y, &vec![c; n], &sparse.alpha);
        prop_assert!(v <= tol * (1.0 + 1e-6) + 1e-12, "violation {} > tol {}", v, tol);
        let (fs, fd) = (sparse.stats.objective, dense.stats.objective);
        let bound = tol / 2.0 * c * n as f64 + 1e-9 * (1.0 + fd.abs());
        prop_assert!((fs - fd).abs() <= bound, "objectives {} (sparse) and {} (dense Gram)", fs, fd);
    }
}

/// The column choice: a radius that keeps each column within `l/16` neighbours gives sparse columns,
/// one that covers all the data gives dense ones, and a dense source never does.
#[test]
fn sparse_columns_are_chosen_by_density() {
    let n = 400;
    let rows: Vec<[f64; 1]> = (0..n).map(|i| [i as f64 / n as f64]).collect();
    let x = kern_core::Samples::from_rows(&rows).unwrap();
    let sign = vec![1.0; n];
    let choice = |k: KernelSpec| {
        let pre = train::precompute(&k, &x, 1 << 30, None).unwrap();
        struct V<'a>(&'a kern_core::Samples, Vec<f64>, Option<Precomputed>);
        impl kern_core::KernelVisitor for V<'_> {
            type Output = (bool, bool);
            fn visit<K: kern_core::Kernel>(self, k: &K) -> (bool, bool) {
                let n = self.0.n();
                let q = SignedColumns::new(k, self.0, (0..n).collect(), self.1, self.2);
                (super::qmatrix::use_sparse_columns(&q), q.sparse_nnz().is_some())
            }
        }
        k.visit(V(&x, sign.clone(), pre))
    };
    // Radius 0.02: about 2 · 0.02 · 400 = 16 neighbours per column, l/16 = 25.
    assert_eq!(choice(compact(1.0, 0.02)), (true, true));
    // Radius 0.5 covers about half of [0, 1]: 200 neighbours per column.
    assert_eq!(choice(compact(1.0, 0.5)), (false, true));
    // A precomputed dense Gram has no sparse columns.
    assert_eq!(choice("linear".parse().unwrap()), (false, false));
}
