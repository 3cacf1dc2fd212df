//! Sparse columns of a compactly supported kernel against dense columns: the same models bit for bit
//! (the arithmetic is the same, see `Solver::take_step`), and KKT on the dense `Q` with the objective
//! of a dense-Gram solve within the a-priori bound of `tests.rs` (`kkt`) (`ε/2 · Σ C_t`).

use super::solver::wss_tree::{TREE_MASKINGS, TREE_SELECTIONS};
use super::tests::WithoutPlans;
use super::tests::kkt;
use super::*;
use kern_core::learner::Fit;
use kern_core::{BinaryTargets, Kernel, KernelSpec, RealTargets, Samples};
use kern_sparse::kmatrix::Precomputed;
use proptest::prelude::*;

/// `s` with `pin` applied to its plan tuning.
pub(super) fn pinned(s: SolverParams, pin: impl FnOnce(&mut plan::Tuning)) -> SolverParams {
    let mut s = s;
    pin(&mut s.tuning);
    s
}

/// Runs `f` with `s` pinned to sparse (`true`) or dense columns. Sparse columns select by the scans:
/// a solver with the trees does not shrink, so only the scans take the dense columns' iterates.
fn with_columns<T>(sparse: bool, s: SolverParams, f: impl FnOnce(SolverParams) -> T) -> T {
    f(pinned(s, |t| {
        t.force_sparse_columns = Some(sparse);
        t.force_trees = Some(false);
    }))
}

/// Runs `f` with `s` pinned to sparse columns and the selection to the trees (`true`) or the scans,
/// and returns its result with the number of tree selections made on this thread.
fn with_selection<T>(tree: bool, s: SolverParams, f: impl FnOnce(SolverParams) -> T) -> (T, u64) {
    TREE_SELECTIONS.with(|c| c.set(0));
    let out = f(pinned(s, |t| {
        t.force_sparse_columns = Some(true);
        t.force_trees = Some(tree);
    }));
    (out, TREE_SELECTIONS.with(|c| c.get()))
}

/// Runs `f` with `s` pinning a compact kernel's columns on demand (`true`) or the precomputed `K_C`.
pub(super) fn with_source<T>(on_demand: bool, s: SolverParams, f: impl FnOnce(SolverParams) -> T) -> T {
    f(pinned(s, |t| t.force_kc_on_demand = Some(on_demand)))
}

/// The serialized model without its plans (fits pinned to different paths compare equal).
pub(super) fn bytes<M: serde::Serialize + WithoutPlans>(m: &M) -> Vec<u8> {
    bincode::serde::encode_to_vec(m.without_plans(), bincode::config::standard()).unwrap()
}

pub(super) fn compact(sigma: f64, radius: f64) -> KernelSpec {
    format!("cs-gaussian:sigma={sigma},c={radius},nu=3").parse().unwrap()
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(32))]

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
        let svc = |sparse| with_columns(sparse, s, |s| {
            let t = BinaryTargets::from_f64(&y).unwrap();
            bytes(&SvcParams::new(k.clone()).c(c).solver(s).fit(&x, &t).unwrap())
        });
        prop_assert_eq!(svc(true), svc(false));
        let t: Vec<f64> = (0..n).map(|i| x.row(i)[0].sin() + 0.3 * x.row(i)[d - 1]).collect();
        let targets = RealTargets::new(t).unwrap();
        let svr = |sparse| with_columns(sparse, s, |s| {
            bytes(&SvrParams::new(k.clone()).c(c).epsilon(0.1).solver(s).fit(&x, &targets).unwrap())
        });
        prop_assert_eq!(svr(true), svr(false));
        let oc = |sparse| with_columns(sparse, s, |s| {
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
        let sparse = with_columns(true, s, |s| {
            let pre = train::precompute(&k, &x, s.cache_bytes(), None, &s.tuning).unwrap();
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

proptest! {
    #![proptest_config(kern_testkit::proptest_config(32))]

    /// The working-set selection by tournament trees against the scans, both on sparse columns: C-SVC,
    /// ε-SVR (two copies of each sample) and one-class (a nonzero start), with labels from a few
    /// clusters (ties in `y G` are common at the start: many gradients are exactly `−1`): the models
    /// serialize to the same bytes, and the tree runs did select by the trees. A solver with the trees
    /// never shrinks, so the trees with shrinking asked on or off give the scans' model without it.
    #[test]
    fn tree_and_scan_selections_give_the_same_models(n in 4usize..160, d in 1usize..3, seed in 0u64..10_000,
                                                     radius in 0.2f64..2.0, sigma in 0.3f64..1.5,
                                                     logc in -1.0f64..3.0, tol_exp in 2i32..6,
                                                     shrinking: bool, nu in 0.05f64..0.95) {
        let (x, y) = super::tests::random_problem(n, d, seed);
        let k = compact(sigma, radius);
        let c = 10f64.powf(logc);
        let s = SolverParams { tol: 10f64.powi(-tol_exp), shrinking, ..SolverParams::default() };
        // The scans' solver settings: the same without shrinking.
        let s_of = |tree: bool| if tree { s } else { SolverParams { shrinking: false, ..s } };
        let svc = |tree| with_selection(tree, s_of(tree), |s| {
            let t = BinaryTargets::from_f64(&y).unwrap();
            bytes(&SvcParams::new(k.clone()).c(c).solver(s).fit(&x, &t).unwrap())
        });
        let ((a, used), (b, unused)) = (svc(true), svc(false));
        prop_assert_eq!(a, b);
        prop_assert!(used > 0 && unused == 0);
        let t: Vec<f64> = (0..n).map(|i| x.row(i)[0].sin() + 0.3 * x.row(i)[d - 1]).collect();
        let targets = RealTargets::new(t).unwrap();
        let svr = |tree| with_selection(tree, s_of(tree), |s| {
            bytes(&SvrParams::new(k.clone()).c(c).epsilon(0.1).solver(s).fit(&x, &targets).unwrap())
        });
        let ((a, used), (b, _)) = (svr(true), svr(false));
        prop_assert_eq!(a, b);
        prop_assert!(used > 0);
        let oc = |tree| with_selection(tree, s_of(tree), |s| {
            bytes(&OneClassParams::new(k.clone()).nu(nu).solver(s).fit(&x).unwrap())
        });
        let ((a, _), (b, _)) = (oc(true), oc(false));
        prop_assert_eq!(a, b);
    }
}

/// A medium compact problem (4,000 points in the square `[−2, 2]²`, about 30 neighbours per point,
/// thousands of iterations): trees (shrinking asked, and not done) and scans without shrinking give
/// the same model bytes (multipliers, `ρ`, iterations, objective), at a small and a large `C`, and
/// every iteration's pair came from the trees — some with the neighbours of `i` masked in the low
/// tree, some found on the unmasked tree.
#[test]
#[ignore = "extended tier: a medium fit"]
fn tree_and_scan_selections_agree_on_a_medium_problem() {
    let n = 4000;
    let (x, y) = super::tests::random_problem(n, 2, 7);
    let t = BinaryTargets::from_f64(&y).unwrap();
    let k = compact(0.6, 0.2);
    for c in [1.0, 100.0] {
        let s = |tree: bool| SolverParams { tol: 1e-3, shrinking: tree, ..SolverParams::default() };
        let fit = |tree| {
            with_selection(tree, s(tree), |s| SvcParams::new(k.clone()).c(c).solver(s).fit(&x, &t).unwrap())
        };
        TREE_MASKINGS.with(|c| c.set(0));
        let ((a, used), (b, unused)) = (fit(true), fit(false));
        let masked = TREE_MASKINGS.with(|c| c.get());
        assert!(0 < masked && masked < used, "{masked} of {used} selections masked");
        let st = &a.stats()[0];
        assert!(!st.hit_cap);
        assert!(
            used >= st.iterations && unused == 0,
            "tree selections {used}, {unused}; {} iterations",
            st.iterations
        );
        assert_eq!(st.objective.to_bits(), b.stats()[0].objective.to_bits());
        assert_eq!(bytes(&a), bytes(&b));
    }
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(32))]

    /// Columns of `K_C` computed on demand against the precomputed `K_C`: C-SVC on sparse and on dense
    /// columns (the dense scatter of an on-demand column), ε-SVR (two copies of each sample) and
    /// one-class (a nonzero start), with shrinking on or off and column caches from nothing (every
    /// column computed again) through a few columns (evictions) to everything: the models serialize
    /// to the same bytes.
    #[test]
    fn on_demand_and_precomputed_columns_give_the_same_models(n in 4usize..120, d in 1usize..4,
                                                              seed in 0u64..10_000, radius in 0.2f64..2.0,
                                                              sigma in 0.3f64..1.5, logc in -1.0f64..3.0,
                                                              tol_exp in 2i32..6, shrinking: bool,
                                                              cache_mb in prop::sample::select(vec![0.0001, 0.01, 0.05, 100.0]),
                                                              nu in 0.05f64..0.95) {
        let (x, y) = super::tests::random_problem(n, d, seed);
        let k = compact(sigma, radius);
        let c = 10f64.powf(logc);
        let s = SolverParams { tol: 10f64.powi(-tol_exp), shrinking, cache_mb, ..SolverParams::default() };
        for sparse in [true, false] {
            let svc = |od| with_source(od, s, |s| with_columns(sparse, s, |s| {
                let t = BinaryTargets::from_f64(&y).unwrap();
                bytes(&SvcParams::new(k.clone()).c(c).solver(s).fit(&x, &t).unwrap())
            }));
            prop_assert_eq!(svc(true), svc(false));
        }
        let t: Vec<f64> = (0..n).map(|i| x.row(i)[0].sin() + 0.3 * x.row(i)[d - 1]).collect();
        let targets = RealTargets::new(t).unwrap();
        let svr = |od| with_source(od, s, |s| {
            bytes(&SvrParams::new(k.clone()).c(c).epsilon(0.1).solver(s).fit(&x, &targets).unwrap())
        });
        prop_assert_eq!(svr(true), svr(false));
        let oc = |od| with_source(od, s, |s| {
            bytes(&OneClassParams::new(k.clone()).nu(nu).solver(s).fit(&x).unwrap())
        });
        prop_assert_eq!(oc(true), oc(false));
    }
}

/// The medium problem of the selection test (4,000 points, about 30 neighbours per point), with a
/// 0.5 MB budget (the cache holds a fraction of the columns, so columns are evicted and computed
/// again): on-demand and precomputed columns give the same model bytes and objective bits, at a
/// small and a large `C`, with the trees selecting.
#[test]
#[ignore = "extended tier: a medium fit"]
fn on_demand_and_precomputed_columns_agree_on_a_medium_problem() {
    let n = 4000;
    let (x, y) = super::tests::random_problem(n, 2, 7);
    let t = BinaryTargets::from_f64(&y).unwrap();
    let k = compact(0.6, 0.2);
    for c in [1.0, 100.0] {
        let s = SolverParams { tol: 1e-3, cache_mb: 0.5, ..SolverParams::default() };
        let fit = |od| with_source(od, s, |s| SvcParams::new(k.clone()).c(c).solver(s).fit(&x, &t).unwrap());
        let (a, b) = (fit(true), fit(false));
        assert!(!a.stats()[0].hit_cap);
        assert_eq!(a.stats()[0].objective.to_bits(), b.stats()[0].objective.to_bits());
        assert_eq!(bytes(&a), bytes(&b));
    }
}

/// The source rule: the precomputed `K_C` while its predicted bytes take at most half the memory
/// budget (always when the budget is unknown); on demand beyond; and the refusal when even on-demand
/// columns do not fit, with what they need and how many samples would.
#[test]
fn compact_sources_are_chosen_by_memory() {
    use super::train::{ON_DEMAND_BYTES_PER_SAMPLE, check_on_demand};
    use kern_core::memory::Budget;
    let t = plan::Tuning::default();
    assert!(!plan::kc_on_demand(500, Some(1000), &t));
    assert!(plan::kc_on_demand(501, Some(1000), &t));
    assert!(!plan::kc_on_demand(u64::MAX, None, &t));
    let per = kern_sparse::kmatrix::LRU_BYTES_PER_SAMPLE as u64 + ON_DEMAND_BYTES_PER_SAMPLE;
    let budget = |bytes| Budget { bytes: Some(bytes), source: kern_core::memory::LIMIT_SOURCE };
    assert!(check_on_demand(1000, 1 << 40, budget(1000 * per)).is_ok());
    assert!(check_on_demand(1000, 1 << 40, Budget { bytes: None, source: "unknown" }).is_ok());
    let e = check_on_demand(1001, 1 << 40, budget(1000 * per)).unwrap_err().to_string();
    assert!(e.contains("computed on demand") && e.contains("at most 1000 samples"), "{e}");
}

/// Runs `f` with `s` pinning a compact kernel's problem to the cells' order (`true`) or the data's.
pub(super) fn with_spatial<T>(spatial: bool, s: SolverParams, f: impl FnOnce(SolverParams) -> T) -> T {
    f(pinned(s, |t| t.force_cells = Some(spatial)))
}

/// Data indices of the rows of `sv` among the rows of `x` (random continuous points: distinct).
pub(super) fn rows_in(sv: &Samples, x: &Samples) -> Vec<usize> {
    (0..sv.n())
        .map(|r| (0..x.n()).find(|&t| x.row(t) == sv.row(r)).expect("a support vector is a training row"))
        .collect()
}

/// `α` in data order from a binary C-SVC model: each support vector's row found among the data's
/// (random continuous points, so distinct), `α_t = y_t · coef`; also whether the support vectors
/// are listed in increasing data order (the order convention of a fit in the data's order).
fn alpha_of(m: &Svc, x: &Samples, y: &[f64]) -> (Vec<f64>, bool) {
    let (rows, coef) = m.machine_coefficients(0);
    let mut listed = rows_in(m.support_vectors(), x);
    let mut alpha = vec![0.0; x.n()];
    let mut at = Vec::new();
    for (&r, &cf) in rows.iter().zip(&coef) {
        let t = listed[r];
        alpha[t] = y[t] * cf;
        at.push(t);
    }
    let sorted = listed.windows(2).all(|w| w[0] < w[1]);
    listed.sort_unstable();
    at.sort_unstable();
    (alpha, sorted && listed == at)
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(32))]

    /// The cells' order against the data's. On data already in the cells' order (the permutation is
    /// the identity), C-SVC models (precomputed or on-demand columns) are the same bytes either way: the reordering and the
    /// mapping back change nothing else. On data in random order the two solves are the same dual in
    /// two orders: the model from the cells' order, mapped back, lists its support vectors in data
    /// order, satisfies KKT on the dense `Q` of the data's order at the tolerance, and its objective
    /// is within `ε/2 · Σ C_t` (+1e-9 relative rounding) of the data-order solve (the a-priori bound
    /// of `sparse_columns_are_optimal_on_the_dense_q`, each solve stopping at violation `ε`).
    #[test]
    fn the_cells_order_solves_the_same_dual(n in 4usize..120, d in 1usize..4, seed in 0u64..10_000,
                                            radius in 0.2f64..2.0, sigma in 0.3f64..1.5,
                                            logc in -1.0f64..3.0, tol_exp in 2i32..6, shrinking: bool,
                                            on_demand: bool) {
        let (x, y) = super::tests::random_problem(n, d, seed);
        let k = compact(sigma, radius);
        let c = 10f64.powf(logc);
        let tol = 10f64.powi(-tol_exp);
        let s = SolverParams { tol, shrinking, ..SolverParams::default() };
        let order = kern_sparse::neighbors::cell_order(&x, k.support_radius().unwrap()).unwrap();
        let (xo, yo) = (x.select(&order).unwrap(), order.iter().map(|&t| y[t]).collect::<Vec<f64>>());
        let svc = |spatial, x: &Samples, y: &[f64]| with_source(on_demand, s, |s| with_spatial(spatial, s, |s| {
            SvcParams::new(k.clone()).c(c).solver(s).fit(x, &BinaryTargets::from_f64(y).unwrap()).unwrap()
        }));
        prop_assert_eq!(bytes(&svc(true, &xo, &yo)), bytes(&svc(false, &xo, &yo)));

        let (a, b) = (svc(true, &x, &y), svc(false, &x, &y));
        let listed = same_optimum(&a, &b, &k, &x, &y, c, tol)?;
        prop_assert!(listed, "support vectors not listed in data order");
    }
}

/// Two binary C-SVC models of `x`, `y` with bound `c` solve the same dual at tolerance `tol`: neither
/// hit the iteration cap, `a` satisfies KKT on the dense `Q` at the tolerance, and the objectives are
/// within `ε/2 · Σ C_t` (+1e-9 relative rounding; the a-priori bound of `tests.rs` (`kkt`), each solve
/// stopping at violation `ε`). Returns whether `a` lists its support vectors in data order.
pub(super) fn same_optimum(
    a: &Svc,
    b: &Svc,
    k: &KernelSpec,
    x: &Samples,
    y: &[f64],
    c: f64,
    tol: f64,
) -> Result<bool, TestCaseError> {
    let n = x.n();
    prop_assert!(!a.stats()[0].hit_cap && !b.stats()[0].hit_cap);
    let (alpha, listed) = alpha_of(a, x, y);
    let qm = super::tests::dense_q(k, x, &(0..n).collect::<Vec<_>>(), y);
    let v = kkt(&qm, &vec![-1.0; n], y, &vec![c; n], &alpha);
    prop_assert!(v <= tol * (1.0 + 1e-6) + 1e-12, "violation {} > tol {}", v, tol);
    let (fa, fb) = (a.stats()[0].objective, b.stats()[0].objective);
    let bound = tol / 2.0 * c * n as f64 + 1e-9 * (1.0 + fb.abs());
    prop_assert!((fa - fb).abs() <= bound, "objectives {} and {} (reference)", fa, fb);
    Ok(listed)
}

/// A medium problem (4,000 points in random order, about 30 neighbours each) at tolerance `1e-6`,
/// where both orders reach the (unique: `K_C` is positive definite on distinct points) optimum
/// closely: objectives within `1e-3` relative (LIBSVM's agreement target), support-vector counts
/// within 2 %, decision values on the training points within `1e-3`, and the cells' order's model,
/// mapped back, lists its support vectors in data order.
#[test]
#[ignore = "extended tier: a medium fit"]
fn the_cells_order_agrees_on_a_medium_problem() {
    let n = 4000;
    let (x, y) = super::tests::random_problem(n, 2, 11);
    let t = BinaryTargets::from_f64(&y).unwrap();
    let k = compact(0.6, 0.2);
    for c in [1.0, 100.0] {
        let s = SolverParams { tol: 1e-6, ..SolverParams::default() };
        let fit = |spatial| {
            with_spatial(spatial, s, |s| SvcParams::new(k.clone()).c(c).solver(s).fit(&x, &t).unwrap())
        };
        let (a, b) = (fit(true), fit(false));
        let (sa, sb) = (&a.stats()[0], &b.stats()[0]);
        assert!(!sa.hit_cap && !sb.hit_cap);
        assert!(
            (sa.objective - sb.objective).abs() <= 1e-3 * sb.objective.abs(),
            "{} {}",
            sa.objective,
            sb.objective
        );
        assert!(sa.n_sv.abs_diff(sb.n_sv) as f64 <= 0.02 * sb.n_sv as f64, "{} {}", sa.n_sv, sb.n_sv);
        let (da, db) = (a.decision_function(&x).unwrap(), b.decision_function(&x).unwrap());
        let worst = da.col(0).iter().zip(db.col(0).iter()).map(|(u, v)| (u - v).abs()).fold(0.0, f64::max);
        assert!(worst <= 1e-3, "decision values differ by {worst}");
        assert!(alpha_of(&a, &x, &y).1);
    }
}

/// Runs `f` on a rayon pool of `threads` threads with the tree selection forced, its updates split
/// across two threads (`par`) or not, and a compact kernel's columns on demand (`od`) or precomputed;
/// returns `f`'s result and the tree selections made (the solver loop runs on the pool's thread that
/// calls `f`).
fn on_pool<T: Send>(
    threads: usize,
    par: bool,
    od: bool,
    s: SolverParams,
    f: impl FnOnce(SolverParams) -> T + Send,
) -> (T, u64) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let s = pinned(s, |t| t.force_split = Some(par));
    pool.install(|| with_source(od, s, |s| with_selection(true, s, f)))
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(24))]

    /// The tree updates split across two threads against the serial updates, on pools of one and two
    /// threads: C-SVC with the columns precomputed or on demand (the up tree's side then computes the
    /// next `i`'s column ahead, through caches from nothing to everything), ε-SVR (two copies of each
    /// sample) and one-class (a nonzero start), shrinking on or off: the models serialize to the same
    /// bytes, and every run selected by the trees.
    #[test]
    fn split_tree_updates_give_the_same_models(n in 4usize..160, d in 1usize..3, seed in 0u64..10_000,
                                               radius in 0.2f64..2.0, sigma in 0.3f64..1.5,
                                               logc in -1.0f64..3.0, tol_exp in 2i32..6, shrinking: bool,
                                               cache_mb in prop::sample::select(vec![0.0001, 0.01, 100.0]),
                                               nu in 0.05f64..0.95) {
        let (x, y) = super::tests::random_problem(n, d, seed);
        let k = compact(sigma, radius);
        let c = 10f64.powf(logc);
        let s = SolverParams { tol: 10f64.powi(-tol_exp), shrinking, cache_mb, ..SolverParams::default() };
        let t: Vec<f64> = (0..n).map(|i| x.row(i)[0].sin() + 0.3 * x.row(i)[d - 1]).collect();
        let targets = RealTargets::new(t).unwrap();
        let fits = |threads, par, od| {
            let (svc, a) = on_pool(threads, par, od, s, |s| {
                let t = BinaryTargets::from_f64(&y).unwrap();
                bytes(&SvcParams::new(k.clone()).c(c).solver(s).fit(&x, &t).unwrap())
            });
            let (svr, b) = on_pool(threads, par, od, s, |s| {
                bytes(&SvrParams::new(k.clone()).c(c).epsilon(0.1).solver(s).fit(&x, &targets).unwrap())
            });
            let (oc, _) = on_pool(threads, par, od, s, |s| {
                bytes(&OneClassParams::new(k.clone()).nu(nu).solver(s).fit(&x).unwrap())
            });
            ((svc, svr, oc), a > 0 && b > 0)
        };
        for od in [false, true] {
            let (serial, used) = fits(1, false, od);
            prop_assert!(used);
            for threads in [1, 2] {
                let (split, used) = fits(threads, true, od);
                prop_assert!(used);
                prop_assert!(split == serial, "{} threads, on demand {}: the models differ", threads, od);
            }
        }
    }
}

/// A medium compact problem with wide columns (4,000 points in `[−2, 2]²`, radius 0.5: about 190
/// neighbours per point; thousands of iterations with shrinking and unshrinking), columns on demand
/// through a 0.5 MB cache (columns evicted and computed again, some ahead of their selection): the
/// split tree updates on two threads give the serial run's model bytes and objective bits, at a small
/// and a large `C`, every pair selected by the trees.
#[test]
#[ignore = "extended tier: a medium fit"]
fn split_tree_updates_agree_on_a_medium_problem() {
    let n = 4000;
    let (x, y) = super::tests::random_problem(n, 2, 11);
    let t = BinaryTargets::from_f64(&y).unwrap();
    let k = compact(0.6, 0.5);
    for c in [1.0, 100.0] {
        let s = SolverParams { tol: 1e-3, cache_mb: 0.5, ..SolverParams::default() };
        let fit = |threads, par| {
            on_pool(threads, par, true, s, |s| SvcParams::new(k.clone()).c(c).solver(s).fit(&x, &t).unwrap())
        };
        let ((a, used), (b, _)) = (fit(2, true), fit(1, false));
        let st = &a.stats()[0];
        assert!(!st.hit_cap);
        assert!(used >= st.iterations, "tree selections {used}; {} iterations", st.iterations);
        assert_eq!(st.objective.to_bits(), b.stats()[0].objective.to_bits());
        assert_eq!(bytes(&a), bytes(&b));
    }
}
