//! The plan rules ([`super::plan`]) at their thresholds, and the plans fits report: every machine
//! of a fit carries the path it took, and the pins of [`plan::Tuning`] reach the machines trained on
//! the pool's workers.

use super::plan::{Columns, Order, Placement, Plan, Selection, SolveProblem, Start, Threading, Tuning};
use super::*;
use kern_core::learner::Fit;
use kern_core::{BinaryTargets, ClassTargets, Kernel, KernelSpec, Samples};
use proptest::prelude::*;

fn solve_plan(l: usize, nnz: Option<usize>, threads: usize, machines: usize, t: &Tuning) -> Plan {
    let p = SolveProblem {
        l,
        sparse_nnz: nnz,
        cheap: false,
        nu: false,
        threads,
        cache_bytes: 100 << 20,
        shrinking: true,
    };
    let source = Plan { threading: plan::machine_threading(machines), ..Plan::default() };
    plan::solve(source, &p, t).0
}

/// Sparse columns up to `l²/16` nonzeros; trees up to `l²/32` (then no shrinking); the ν variant
/// neither.
#[test]
fn sparse_columns_and_trees_are_chosen_by_density() {
    let t = Tuning::default();
    let l = 3200;
    let p = solve_plan(l, Some(l * l / 16), 1, 1, &t);
    assert!(p.sparse_columns && p.selection == Selection::Scan && p.shrinking);
    assert!(!solve_plan(l, Some(l * l / 16 + 1), 1, 1, &t).sparse_columns);
    let p = solve_plan(l, Some(l * 100), 1, 1, &t);
    assert!(p.sparse_columns && p.selection == Selection::Trees && !p.shrinking);
    assert_eq!(solve_plan(l, Some(l * 101), 1, 1, &t).selection, Selection::Scan);
    let resident = (l * l * 8) as f64 / (1024.0 * 1024.0);
    assert_eq!(
        solve_plan(l, None, 1, 1, &t),
        Plan { cache_mb: resident, shrinking: true, ..Plan::default() }
    );
    let nu = SolveProblem {
        l,
        sparse_nnz: Some(l),
        cheap: false,
        nu: true,
        threads: 2,
        cache_bytes: 1,
        shrinking: true,
    };
    assert!(!plan::solve(Plan::default(), &nu, &t).0.sparse_columns);
}

/// One machine splits its dense passes from `split_min` variables with two threads, its tree updates
/// from `tree_split_min_neighbours` per column; one of several machines never splits.
#[test]
fn split_passes_are_chosen_by_size_threads_and_machines() {
    let t = Tuning::default();
    assert_eq!(solve_plan(t.split_min - 1, None, 2, 1, &t).threading, Threading::Serial);
    assert_eq!(solve_plan(t.split_min, None, 2, 1, &t).threading, Threading::Split);
    assert_eq!(solve_plan(t.split_min, None, 1, 1, &t).threading, Threading::Serial);
    assert_eq!(solve_plan(t.split_min, None, 2, 45, &t).threading, Threading::Machines);
    let w = t.tree_split_min_neighbours as usize;
    let l = 1_000_000;
    assert_eq!(solve_plan(l, Some(l * w), 2, 1, &t).threading, Threading::Split);
    assert_eq!(solve_plan(l, Some(l * w - 1), 2, 1, &t).threading, Threading::Serial);
    assert_eq!(solve_plan(l, Some(l * w), 1, 1, &t).threading, Threading::Serial);
    let pinned = Tuning { force_split: Some(true), ..t };
    assert_eq!(solve_plan(10, None, 1, 1, &pinned).threading, Threading::Split);
}

/// The cache is resident (exactly the `l²` values) when every column fits at full length in the
/// budget left to it (after the cap for cheap columns) and take at least `resident_min_bytes`, never
/// for sparse columns; the pin decides where it fits.
#[test]
fn the_cache_is_resident_when_every_column_fits() {
    let t = Tuning::default();
    let mb = |b: usize| b as f64 / (1024.0 * 1024.0);
    let problem = |l: usize, cheap: bool, sparse_nnz: Option<usize>| SolveProblem {
        l,
        sparse_nnz,
        cheap,
        nu: false,
        threads: 1,
        cache_bytes: 100 << 20,
        shrinking: true,
    };
    let fits = 3620; // 3620² · 8 ≤ 100 MiB < 3621² · 8
    let (p, bytes, resident) = plan::solve(Plan::default(), &problem(fits, false, None), &t);
    assert!(resident && bytes == fits * fits * 8 && p.cache_mb == mb(bytes));
    let (p, bytes, resident) = plan::solve(Plan::default(), &problem(fits + 1, false, None), &t);
    assert!(!resident && bytes == 100 << 20 && p.cache_mb == 100.0);
    let cheap = 1448; // 1448² · 8 ≤ 16 MiB, the cap for cheap columns
    assert!(plan::solve(Plan::default(), &problem(cheap, true, None), &t).2);
    assert!(!plan::solve(Plan::default(), &problem(cheap + 1, true, None), &t).2);
    assert!(!plan::solve(Plan::default(), &problem(1000, false, Some(1000)), &t).2);
    let small = 128; // 128² · 8 = 128 KiB, the smallest resident cache
    assert!(plan::solve(Plan::default(), &problem(small, false, None), &t).2);
    assert!(!plan::solve(Plan::default(), &problem(small - 1, false, None), &t).2);
    let on = Tuning { force_resident_cache: Some(true), ..t };
    assert!(plan::solve(Plan::default(), &problem(small - 1, false, None), &on).2);
    let off = Tuning { force_resident_cache: Some(false), ..t };
    let (p, bytes, resident) = plan::solve(Plan::default(), &problem(100, false, None), &off);
    assert!(!resident && bytes == 100 << 20 && p.cache_mb == 100.0);
    assert!(plan::resident_cache(fits, 100 << 20) && !plan::resident_cache(fits + 1, 100 << 20));
}

fn rows(n: usize, d: usize) -> Samples {
    Samples::from_rows(
        &(0..n).map(|i| (0..d).map(|k| ((i * 7 + k * 13) % 101) as f64).collect()).collect::<Vec<Vec<f64>>>(),
    )
    .unwrap()
}

/// A radial kernel's machine precomputes its Gram only from `precompute_min_dim` features and
/// `precompute_min_n` samples, when it fits half the cache; kernels without the fast profile and
/// sparse stores precompute whenever it fits; compact kernels and user matrices have their own sources.
#[test]
fn column_sources_are_chosen_by_dimension_size_and_budget() {
    let t = Tuning::default();
    let g: KernelSpec = "gaussian:sigma=1".parse().unwrap();
    let budget = 100 << 20;
    let (d, n) = (t.precompute_min_dim, t.precompute_min_n);
    assert_eq!(plan::columns(&g, &rows(2, d), n, budget, false, &t), Columns::Precomputed);
    assert_eq!(plan::columns(&g, &rows(2, d - 1), n, budget, false, &t), Columns::OnDemand);
    assert_eq!(plan::columns(&g, &rows(2, d), n - 1, budget, false, &t), Columns::OnDemand);
    assert_eq!(plan::columns(&g, &rows(2, d), 3000, 3000 * 3000 * 16 - 1, false, &t), Columns::OnDemand);
    let poly: KernelSpec = "poly:degree=2".parse().unwrap();
    assert_eq!(plan::columns(&poly, &rows(2, 2), 10, budget, false, &t), Columns::Precomputed);
    let sparse = Samples::from_triplets(2, 4, &[(0, 0, 1.0), (1, 3, 2.0)]).unwrap();
    assert_eq!(plan::columns(&g, &sparse, 10, budget, false, &t), Columns::Precomputed);
    let cs: KernelSpec = "cs-gaussian:sigma=1,c=1".parse().unwrap();
    assert_eq!(plan::columns(&cs, &rows(2, 2), 10, budget, false, &t), Columns::SparseKc);
    assert_eq!(plan::columns(&g, &rows(2, 2), 10, budget, true, &t), Columns::UserMatrix);
    let on = Tuning { force_precompute: Some(true), ..t };
    assert_eq!(plan::columns(&g, &rows(2, 2), 10, budget, false, &on), Columns::Precomputed);
}

/// The cells' order from `spatial_min_n` samples of a compact kernel in the grid's dimensions; never
/// for other kernels, smaller problems or higher dimension.
#[test]
fn the_cells_order_is_chosen_by_size() {
    let t = Tuning::default();
    let k: KernelSpec = "cs-gaussian:sigma=0.6,c=0.2".parse().unwrap();
    let big = rows(t.spatial_min_n, 2);
    let order = train::spatial_order(&k, &big, &t).expect("a compact kernel at the threshold");
    assert_eq!(order, kern_sparse::neighbors::cell_order(&big, k.support_radius().unwrap()).unwrap());
    assert!(train::spatial_order(&k, &rows(t.spatial_min_n - 1, 2), &t).is_none());
    assert!(train::spatial_order(&"gaussian:sigma=1".parse().unwrap(), &big, &t).is_none());
    let high = rows(t.spatial_min_n, kern_sparse::neighbors::GRID_MAX_DIM + 1);
    assert!(train::spatial_order(&k, &high, &t).is_none());
}

/// The seeded start: a C-SVC with shrinking from `seed_min_n` samples on cheap columns only.
#[test]
fn the_seed_is_chosen_by_size_and_column_cost() {
    let t = Tuning::default();
    let g: KernelSpec = "gaussian:sigma=1".parse().unwrap();
    let x = rows(2, 2);
    assert!(plan::seeds(&g, &x, t.seed_min_n, true, &t));
    assert!(!plan::seeds(&g, &x, t.seed_min_n - 1, true, &t));
    assert!(!plan::seeds(&g, &x, t.seed_min_n, false, &t));
    assert!(!plan::seeds(&g, &rows(2, plan::NORMS_MIN_DIM + 1), t.seed_min_n, true, &t));
}

/// The calling thread takes a fit only when it is one machine below `split_min` variables whose
/// columns come on demand and stay serial; several machines, a precomputed Gram, a compact kernel,
/// a sparse store or columns long enough to split go to the pool.
#[test]
fn the_calling_thread_takes_one_small_machine_on_serial_columns() {
    use kern_sparse::kmatrix::COLUMN_SPLIT_WORK;
    let t = Tuning::default();
    let g: KernelSpec = "gaussian:sigma=1".parse().unwrap();
    let x = rows(2, 13);
    assert_eq!(plan::placement(&g, &x, 1, 100, &t), Placement::Caller);
    assert_eq!(plan::placement(&g, &x, 2, 100, &t), Placement::Pool);
    // A column of l entries in 13 dimensions counts l · (13 + 8) work.
    let edge = (COLUMN_SPLIT_WORK - 1) / 21;
    assert_eq!(plan::placement(&g, &x, 1, edge, &t), Placement::Caller);
    assert_eq!(plan::placement(&g, &x, 1, edge + 1, &t), Placement::Pool);
    // In one dimension the columns stay serial beyond `split_min`: the split passes decide.
    let x1 = rows(2, 1);
    assert!(kern_sparse::kmatrix::columns_stay_serial(&x1, t.split_min));
    assert_eq!(plan::placement(&g, &x1, 1, t.split_min - 1, &t), Placement::Caller);
    assert_eq!(plan::placement(&g, &x1, 1, t.split_min, &t), Placement::Pool);
    let poly: KernelSpec = "poly:degree=2".parse().unwrap();
    assert_eq!(plan::placement(&poly, &x, 1, 100, &t), Placement::Pool);
    let cs: KernelSpec = "cs-gaussian:sigma=1,c=1".parse().unwrap();
    assert_eq!(plan::placement(&cs, &x, 1, 100, &t), Placement::Pool);
    let sparse = Samples::from_triplets(2, 4, &[(0, 0, 1.0), (1, 3, 2.0)]).unwrap();
    assert_eq!(plan::placement(&g, &sparse, 1, 100, &t), Placement::Pool);
    // The parameters count the machines and variables: a binary classifier one machine of n, a
    // regressor one of 2n.
    let p = SvcParams::new(g.clone());
    assert_eq!(p.placement(&x, 2), Placement::Caller);
    assert_eq!(p.placement(&x, 3), Placement::Pool);
    let half = rows(edge / 2 + 1, 13);
    assert_eq!(OneClassParams::new(g.clone()).placement(&half), Placement::Caller);
    assert_eq!(SvrParams::new(g).placement(&half), Placement::Pool);
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(16))]

    /// A fit the rule places on the calling thread is the fit the pool makes, bit for bit, and its
    /// plan agrees with the placement at two threads: one serial machine on columns on demand.
    #[test]
    fn a_fit_on_the_calling_thread_is_the_pools(n in 4usize..160, d in 1usize..40, c in 0.1f64..100.0,
                                                 seed in 0u64..1000) {
        let x = kern_testkit::data::uniform(n, d, 1.0, seed);
        let labels: Vec<f64> = (0..n).map(|i| if (i * 7 + seed as usize).is_multiple_of(3) { 1.0 } else { -1.0 }).collect();
        prop_assume!(labels.contains(&1.0) && labels.contains(&-1.0));
        let y = BinaryTargets::from_f64(&labels).unwrap();
        let p = SvcParams::new("gaussian:sigma=1.5".parse().unwrap()).c(c);
        prop_assert_eq!(p.placement(&x, 2), Placement::Caller);
        let here = std::thread::scope(|s| s.spawn(|| p.fit(&x, &y).unwrap()).join().unwrap());
        let pool = kern_core::parallel::install(Some(2), || p.fit(&x, &y).unwrap()).unwrap();
        prop_assert_eq!(here.stats(), pool.stats());
        prop_assert_eq!(pool.stats()[0].plan.threading, Threading::Serial);
        prop_assert_eq!(pool.stats()[0].plan.columns, Columns::OnDemand);
        prop_assert_eq!(here.decision_function(&x).unwrap(), pool.decision_function(&x).unwrap());
    }

    /// Every machine of a one-vs-one fit reports the plan the rules give its problem: the machines
    /// share the threads, start from zero in the data's order, and take the column source of
    /// [`plan::columns`] (class blocks where every pair precomputes); a pin in the parameters reaches
    /// every machine, whichever worker trains it.
    #[test]
    fn fits_report_the_plans_the_rules_give(k in 3usize..6, per in 3usize..30, d in 1usize..80,
                                            pin: Option<bool>, seed in 0u64..1000) {
        let n = k * per;
        let x = kern_testkit::data::uniform(n, d, 1.0, seed);
        let labels: Vec<String> = (0..n).map(|i| format!("c{}", i % k)).collect();
        let y = ClassTargets::from_labels(&labels).unwrap();
        let kernel: KernelSpec = "gaussian:sigma=2".parse().unwrap();
        let s = SolverParams { tuning: Tuning { force_precompute: pin, ..Tuning::default() }, ..SolverParams::default() };
        let m = SvcParams::new(kernel.clone()).solver(s).fit(&x, &y).unwrap();
        let sizes = vec![2 * per; k * (k - 1) / 2];
        let blocks = plan::class_blocks(&kernel, &x, k, sizes, s.cache_bytes(), &s.tuning);
        let want = if blocks { Columns::ClassBlocks } else { plan::columns(&kernel, &x, 2 * per, s.cache_bytes(), false, &s.tuning) };
        prop_assert_eq!(blocks, pin == Some(true) || (d >= 64 && 2 * per >= 512));
        for st in m.stats() {
            prop_assert_eq!(st.plan.columns, want);
            prop_assert_eq!(st.plan.threading, Threading::Machines);
            prop_assert_eq!((st.plan.order, st.plan.start), (Order::Data, Start::Zero));
        }
        let b = BinaryTargets::from_f64(&(0..n).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect::<Vec<_>>()).unwrap();
        let one = SvcParams::new(kernel).solver(s).fit(&x, &b).unwrap();
        prop_assert_eq!(one.stats()[0].plan.threading, Threading::Serial);
    }
}
