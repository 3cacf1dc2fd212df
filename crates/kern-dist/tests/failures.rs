//! A rank that fails between two collectives — here: its block of the kernel matrix is refused by
//! the memory check while the other ranks' smaller blocks pass — makes every rank return the same
//! error (naming the failed rank and its reason), not a hang.
//!
//! The memory budget is process-wide, so these cases run one after the other in this one test (its
//! own process), and each run of the ranks is guarded by a timeout: a hang fails the test.

use kern_core::Samples;
use kern_dist::threads::run_threads;
use kern_dist::{Comm, rows::DistRows};
use kern_models::fvs::{FvsParams, PART_ROWS, Strategy};
use kern_models::landmark::NystromRidgeParams;
use std::sync::Arc;
use std::time::Duration;

/// Runs `f` on `p` in-process ranks; panics (instead of waiting forever) when they do not finish.
fn ranks_within<T: Send + 'static>(
    p: usize,
    secs: u64,
    f: impl Fn(&dyn Comm) -> T + Send + Sync + 'static,
) -> Vec<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run_threads(p, f));
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("{p} ranks did not finish in {secs} s: a rank waits for a failed one"))
}

/// `n` points in 3-D with real targets, row `i` a deterministic function of `i`.
fn points(n: usize) -> (Samples, Vec<String>) {
    let v: Vec<f64> = (0..3 * n).map(|i| (i as f64 * 0.731).sin() + 0.1 * (i % 7) as f64).collect();
    let labels = (0..n).map(|i| format!("{}", (i as f64 * 0.3).cos())).collect();
    (Samples::from_flat(v, n, 3).unwrap(), labels)
}

/// The rows `lo..hi` of `x` as one rank's part of `n` rows.
fn part(x: &Samples, labels: &[String], lo: usize, hi: usize) -> DistRows {
    let idx: Vec<usize> = (lo..hi).collect();
    DistRows {
        samples: (hi > lo).then(|| x.select(&idx).unwrap()),
        labels: labels[lo..hi].to_vec(),
        row_offset: lo,
        n_total: x.n(),
        d: 3,
        dropped_lines: Vec::new(),
    }
}

/// Every rank's error text: all equal, naming `rank` as the one that failed, with a memory reason.
fn assert_agreed(errs: &[String], rank: usize) {
    assert!(errs.iter().all(|e| e == &errs[0]), "ranks disagree: {errs:?}");
    assert!(errs[0].starts_with(&format!("rank {rank} failed: ")), "{errs:?}");
    assert!(!errs[0].contains("another part"), "the cause is reported, not a follower's error: {errs:?}");
    assert!(errs[0].contains("memory") || errs[0].contains("budget"), "{errs:?}");
}

#[test]
fn a_rank_that_fails_between_collectives_stops_every_rank_with_its_error() {
    // 1. Spread FVS: a pool of 5 blocks of PART_ROWS rows. The parts (blocks ⌊5p/P⌋..⌊5(p+1)/P⌋)
    //    hold 2, 3 blocks (P = 2) and 1, 1, 1, 2 blocks (P = 4); each step's candidate kernel
    //    columns (rows × 65 values) fit the budget on the smaller parts only, so the largest part
    //    fails in the first step, between the candidates' gathering and the gains' allgather.
    let n = 5 * PART_ROWS;
    let (x, labels) = points(n);
    let data = Arc::new((x, labels));
    let fvs = FvsParams { strategy: Strategy::Sampled { candidates: 64, seed: 1 }, ..Default::default() };
    for (p, big_rank, budget) in [(2usize, 1usize, 2.5 * 65.0), (4, 3, 1.5 * 65.0)] {
        let (d, fvs) = (Arc::clone(&data), fvs.clone());
        kern_core::memory::set_limit(Some((budget * (PART_ROWS * 8) as f64) as u64));
        let errs = ranks_within(p, 120, move |c| {
            // Rows read in equal parts (the pool's parts are set by the pool, not by the reading).
            let per = n.div_ceil(c.size());
            let (lo, hi) = ((c.rank() * per).min(n), ((c.rank() + 1) * per).min(n));
            let rows = part(&d.0, &d.1, lo, hi);
            let pool: Vec<usize> = (0..n).collect();
            let k = "gaussian:sigma=0.7".parse().unwrap();
            kern_dist::fvs::select_on_pool(c, &rows, &pool, &k, 8, &fvs).unwrap_err().to_string()
        });
        kern_core::memory::set_limit(None);
        assert_agreed(&errs, big_rank);
    }

    // 2. Nyström fit: rank 0 holds 8 blocks of 1,024 rows (four blocks of K_nm at once), the others
    //    a few rows each; the budget admits the small parts' blocks only, so rank 0 fails setting up
    //    its blocks, before the first sum over rows (an exact sum every rank takes part in).
    let (x, labels) = points(8 * 1024 + 300);
    let data = Arc::new((x, labels));
    for p in [2usize, 4] {
        let d = Arc::clone(&data);
        kern_core::memory::set_limit(Some(200_000));
        let errs = ranks_within(p, 120, move |c| {
            let n = d.0.n();
            let rest = (n - 8 * 1024).div_ceil(c.size() - 1);
            let (lo, hi) = match c.rank() {
                0 => (0, 8 * 1024),
                r => ((8 * 1024 + (r - 1) * rest).min(n), (8 * 1024 + r * rest).min(n)),
            };
            let rows = part(&d.0, &d.1, lo, hi);
            let params = NystromRidgeParams::krr(
                "gaussian:sigma=0.7".parse().unwrap(),
                1e-3,
                "random:10".parse().unwrap(),
            );
            kern_dist::landmark::fit_nystrom_blocks(c, &rows, &params, true, Some(1024))
                .unwrap_err()
                .to_string()
        });
        kern_core::memory::set_limit(None);
        assert_agreed(&errs, 0);
    }

    // 3. Without the budget the same runs succeed on every rank (the failures above are the budget's).
    let d = Arc::clone(&data);
    let ok = ranks_within(2, 300, move |c| {
        let n = d.0.n();
        let (lo, hi) = if c.rank() == 0 { (0, 8 * 1024) } else { (8 * 1024, n) };
        let params = NystromRidgeParams::krr(
            "gaussian:sigma=0.7".parse().unwrap(),
            1e-3,
            "random:10".parse().unwrap(),
        );
        kern_dist::landmark::fit_nystrom_blocks(c, &part(&d.0, &d.1, lo, hi), &params, true, Some(1024))
            .is_ok()
    });
    assert_eq!(ok, vec![true, true]);
}
