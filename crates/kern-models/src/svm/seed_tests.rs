//! The seeded start of large C-SVC problems (`train::seed`, alpha seeding) and the blocked product
//! that computes its gradient (`solver::add_columns`): the product is the column-by-column sums bit
//! for bit at any thread count; the seed is feasible; a seeded solve reaches the same dual's optimum
//! to the tolerance (KKT on the dense `Q`, the objective within the a-priori bound `ε/2 · Σ C_t` of
//! `tests.rs` (`kkt`)) and agrees with the unseeded solve on a medium problem as LIBSVM's agreement
//! targets ask.

use super::sparse_tests::pinned;
use super::sparse_tests::same_optimum;
use super::train::{self, Rows};
use super::*;
use kern_core::learner::Fit;
use kern_core::{BinaryTargets, Kernel, KernelSpec, KernelVisitor, Samples};
use kern_sparse::kmatrix::SignedColumns;
use proptest::prelude::*;

/// Runs `f` with `s` pinning the seeded start (`true`: at any size) or the start from zero.
fn with_seed<T>(seed: bool, s: SolverParams, f: impl FnOnce(SolverParams) -> T) -> T {
    f(pinned(s, |t| t.force_seed = Some(seed)))
}

/// `add_columns` on `Q` of `x` (signs `y`) and the same sums over whole columns, computed one
/// column after the other in the order of `cols` (the solver's loop before the blocked product).
struct BothSums<'a> {
    x: &'a Samples,
    y: &'a [f64],
    cols: &'a [(usize, f64, Option<f64>)],
}

type Sums = (Vec<f64>, Vec<f64>);

impl KernelVisitor for BothSums<'_> {
    type Output = (Sums, Sums);
    fn visit<K: Kernel>(self, k: &K) -> (Sums, Sums) {
        let n = self.y.len();
        let q = SignedColumns::new(k, self.x, (0..n).collect(), self.y.to_vec(), None);
        let (mut g, mut gb) = (vec![0.5; n], vec![0.0; n]);
        super::solver::add_columns(&q, self.cols, &mut g, &mut gb);
        let (mut rg, mut rgb) = (vec![0.5; n], vec![0.0; n]);
        let mut col = vec![0.0; n];
        for &(j, a, bar) in self.cols {
            q.fill_column(j, 0, &mut col);
            for (t, &v) in col.iter().enumerate() {
                rg[t] += a * v;
            }
            if let Some(cj) = bar {
                for (t, &v) in col.iter().enumerate() {
                    rgb[t] += cj * v;
                }
            }
        }
        ((g, gb), (rg, rgb))
    }
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Labels of a smooth boundary with noise (two overlapping classes, as green-red), so that a
/// problem has bounded, free and zero variables.
fn smooth_problem(n: usize, seed: u64) -> (Samples, Vec<f64>) {
    let (x, noise) = super::tests::random_problem(n, 2, seed);
    let y = (0..n)
        .map(|t| {
            let r = x.row(t);
            if (2.0 * r[0]).sin() + r[1] + 0.8 * noise[t] * (t % 3) as f64 / 2.0 > 0.0 { 1.0 } else { -1.0 }
        })
        .collect();
    (x, y)
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(24))]

    /// The blocked product against whole columns: the same bits in `G` and `Ḡ` (every entry sums its
    /// terms in the order of the columns), on pools of one and two threads, across the blocks'
    /// boundaries (up to three blocks of positions), for the direct differences (`d ≤ 8`), the
    /// inner products by norms (`d > 8`) and a kernel without a vectorized profile.
    #[test]
    fn the_blocked_product_is_the_column_sums(n in 1usize..9000, d in 1usize..12, seed in 0u64..10_000,
                                              kernel in prop::sample::select(vec!["gaussian", "laplacian"]),
                                              picks in prop::collection::vec((0usize..1_000_000, -2.0f64..2.0,
                                                                               prop::option::of(0.1f64..3.0)), 0..40)) {
        let (x, y) = super::tests::random_problem(n.max(2), d, seed);
        let n = x.n();
        let k: KernelSpec = match kernel {
            "gaussian" => format!("gaussian:gamma={}", 1.0 / d as f64).parse().unwrap(),
            _ => "laplacian:sigma=1.5".parse().unwrap(),
        };
        let cols: Vec<(usize, f64, Option<f64>)> = picks.iter().map(|&(j, a, b)| (j % n, a, b)).collect();
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let ((g, gb), (rg, rgb)) = pool.install(|| k.visit(BothSums { x: &x, y: &y, cols: &cols }));
            prop_assert_eq!(bits(&g), bits(&rg));
            prop_assert_eq!(bits(&gb), bits(&rgb));
        }
    }

    /// The seed is a feasible start: every `α_t` in `[0, C_t]` and `Σ y_t α_t = 0` (up to the rounding
    /// of the sums when the bounds differ); with equal bounds `C = 1` the sum is exactly zero.
    #[test]
    fn the_seed_is_feasible(n in 16usize..400, seed in 0u64..10_000, sigma in 0.3f64..1.5,
                            logc in -1.0f64..2.0, weighted: bool) {
        let (x, y) = smooth_problem(n, seed);
        let k: KernelSpec = format!("gaussian:sigma={sigma}").parse().unwrap();
        let c: Vec<f64> = (0..n)
            .map(|t| if weighted { 10f64.powf(logc) * (1.0 + (t % 5) as f64 / 4.0) } else { 1.0 })
            .collect();
        let s = SolverParams::default();
        let start = with_seed(true, s, |s| train::seed(&k, &Rows::all(&x), &y, &c, &s));
        if let Some((alpha, _)) = start {
            prop_assert!(alpha.iter().zip(&c).all(|(&a, &ct)| (0.0..=ct).contains(&a)));
            let sum: f64 = alpha.iter().zip(&y).map(|(a, y)| a * y).sum();
            let total: f64 = c.iter().sum();
            if weighted {
                prop_assert!(sum.abs() <= 1e-12 * total, "sum y alpha = {}", sum);
            } else {
                prop_assert_eq!(sum, 0.0);
            }
        }
    }

    /// Seeded and unseeded C-SVC solve the same dual: the seeded model meets KKT on the dense `Q` at
    /// the tolerance and its objective is within `ε/2 · Σ C_t` (+1e-9 relative rounding) of the
    /// unseeded one's (each solve stops at violation `ε`).
    #[test]
    fn a_seeded_solve_reaches_the_same_optimum(n in 16usize..300, seed in 0u64..10_000, sigma in 0.3f64..1.5,
                                               logc in -1.0f64..3.0, tol_exp in 2i32..6, shrinking: bool) {
        let (x, y) = smooth_problem(n, seed);
        let k: KernelSpec = format!("gaussian:sigma={sigma}").parse().unwrap();
        let c = 10f64.powf(logc);
        let tol = 10f64.powi(-tol_exp);
        let s = SolverParams { tol, shrinking, ..SolverParams::default() };
        let t = BinaryTargets::from_f64(&y).unwrap();
        let fit = |seeded| with_seed(seeded, s, |s| SvcParams::new(k.clone()).c(c).solver(s).fit(&x, &t).unwrap());
        same_optimum(&fit(true), &fit(false), &k, &x, &y, c, tol)?;
    }
}

/// A medium problem (8,000 points, two overlapping classes) at tolerance `1e-6`, seeded against from
/// zero: objectives within `1e-3` relative and support-vector counts within 2 % (LIBSVM's agreement
/// targets), decision values on the training points within `1e-3`; the seed is taken only when
/// forced (the problem is below the rule's size).
#[test]
#[ignore = "extended tier: a medium fit"]
fn a_seeded_solve_agrees_on_a_medium_problem() {
    let (x, y) = smooth_problem(8000, 5);
    let t = BinaryTargets::from_f64(&y).unwrap();
    let k: KernelSpec = "gaussian:sigma=0.6".parse().unwrap();
    for c in [1.0, 100.0] {
        let s = SolverParams { tol: 1e-6, ..SolverParams::default() };
        assert!(train::seed(&k, &Rows::all(&x), &y, &vec![c; x.n()], &s).is_none(), "below the rule's size");
        assert!(with_seed(true, s, |s| train::seed(&k, &Rows::all(&x), &y, &vec![c; x.n()], &s)).is_some());
        let fit =
            |seeded| with_seed(seeded, s, |s| SvcParams::new(k.clone()).c(c).solver(s).fit(&x, &t).unwrap());
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
    }
}
