//! Every distributed method on 2 and 4 in-process ranks (threads, no MPI) against the one-process
//! result: the same rows, the same error on every rank, the same model and report bytes.

use crate::common::{build_lssvm, grid_config, lattice, lssvm_grid, scratch, two_blobs, write};

use kern_core::io::{CsvOptions, LibsvmOptions, read_libsvm_with};
use kern_core::{Samples, Targets};
use kern_dist::compact::{CompactParams, Dual, fit_compact, model_bytes};
use kern_dist::landmark::{choose_lambda_nystrom, fit_nystrom_blocks, gather_rows};
use kern_dist::rows::{PartOptions, read_part};
use kern_dist::threads::run_threads;
use kern_dist::{Comm, DistError, SingleProcess};
use kern_models::landmark::{NystromRidgeParams, NystromSolve};
use kern_models::lssvm::LsSvmParams;
use kern_models::persist;

const RANKS: [usize; 2] = [2, 4];

#[test]
fn parts_on_every_rank_are_the_whole_file() {
    let dir = scratch("parts_on_every_rank_are_the_whole_file");
    let long: String = (1..=200).map(|j| format!(" {j}:{j}.5")).collect();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("crlf.svm", b"1 1:1\r\n-1 2:2\r\n1 3:3\r\n-1 1:4\r\n".to_vec()),
        ("long.svm", format!("1 1:1\n-1{long}\n1 2:1\n").into_bytes()),
        ("blank.svm", b"1 1:1\n\n\n-1 2:2\n\n1 1:3\n".to_vec()),
        ("lattice.svm", lattice(97, |i, _, _| format!("{}", i % 3)).into_bytes()),
    ];
    for (name, content) in cases {
        let p = write(&dir, name, &content);
        let whole = read_libsvm_with(&p, &LibsvmOptions::default()).unwrap();
        for size in RANKS {
            let got = run_threads(size, |c| {
                let part = read_part(c, &p, &PartOptions::default()).unwrap();
                let all: Vec<usize> = (0..part.n_total).collect();
                let labels: Vec<String> = c
                    .allgather_bytes(part.labels.join("\n").as_bytes())
                    .iter()
                    .filter(|b| !b.is_empty())
                    .flat_map(|b| {
                        String::from_utf8_lossy(b).split('\n').map(str::to_string).collect::<Vec<_>>()
                    })
                    .collect();
                (gather_rows(c, &part, &all).unwrap(), labels, part.n_local())
            });
            for (rank, (x, labels, _)) in got.iter().enumerate() {
                assert_eq!(x, &whole.samples, "{name} P={size} rank {rank}");
                assert_eq!(labels, &whole.labels, "{name} P={size} rank {rank}");
            }
            assert_eq!(got.iter().map(|g| g.2).sum::<usize>(), whole.samples.n(), "{name}: each row once");
        }
    }
}

#[test]
fn a_bad_line_fails_every_rank_with_the_same_error() {
    let dir = scratch("a_bad_line_fails_every_rank_with_the_same_error");
    let mut text = lattice(60, |i, _, _| format!("{}", i % 2));
    text.push_str("1 1:oops\n");
    let p = write(&dir, "bad.svm", text.as_bytes());
    for size in RANKS {
        let errs = run_threads(size, |c| match read_part(c, &p, &PartOptions::default()) {
            Err(DistError::RankFailed { rank, message }) => (rank, message),
            other => panic!("expected a rank failure, got {other:?}"),
        });
        assert!(errs.iter().all(|e| *e == errs[0]), "P={size}: {errs:?}");
        assert_eq!(errs[0].0, size - 1);
        assert!(errs[0].1.contains("bad.svm:61:"), "{}", errs[0].1);
    }
}

#[test]
fn landmark_models_have_the_one_rank_bytes_on_any_number_of_ranks() {
    let dir = scratch("landmark_models_have_the_one_rank_bytes_on_any_number_of_ranks");
    let reals = lattice(300, |_, x, y| format!("{:.6}", (x * y).sin()));
    let three = lattice(300, |i, _, _| format!("{}", i % 3 + 1));
    // Auto takes the direct solve at these sizes; the iterative rows run the conjugate gradients,
    // one allreduce of the m·r products per iteration.
    for (name, text, lssvm, landmarks, regression, solve) in [
        ("nys-real.svm", &reals, false, "random:30", true, NystromSolve::Auto),
        ("nys-fvs.svm", &reals, true, "fvs:20", true, NystromSolve::Auto),
        ("nys-three.svm", &three, true, "random:25", false, NystromSolve::Auto),
        ("nys-real-cg.svm", &reals, false, "random:30", true, NystromSolve::Iterative),
        ("nys-three-cg.svm", &three, true, "fvs:25", false, NystromSolve::Iterative),
    ] {
        let p = write(&dir, name, text.as_bytes());
        let k = "gaussian:sigma=0.8".parse().unwrap();
        let params = if lssvm {
            NystromRidgeParams::lssvm(k, 0.1, landmarks.parse().unwrap())
        } else {
            NystromRidgeParams::krr(k, 1e-3, landmarks.parse().unwrap())
        }
        .seed(5)
        .tol(1e-9, 200);
        let params = NystromRidgeParams { solve, ..params };
        let fit = |c: &dyn Comm| {
            let part = read_part(c, &p, &PartOptions::default()).unwrap();
            let m = fit_nystrom_blocks(c, &part, &params, regression && lssvm, Some(16)).unwrap();
            persist::to_bytes(&m).unwrap()
        };
        let one = fit(&SingleProcess);
        for size in RANKS {
            for (rank, b) in run_threads(size, fit).iter().enumerate() {
                assert!(*b == one, "{name} P={size} rank {rank}: the one-rank bytes");
            }
        }
    }
}

#[test]
fn landmark_lambda_by_leave_one_out_is_the_one_process_choice_on_any_number_of_ranks() {
    let dir = scratch("landmark_lambda_by_leave_one_out_is_the_one_process_choice_on_any_number_of_ranks");
    let reals = lattice(300, |_, x, y| format!("{:.6}", (x * y).sin()));
    let two = lattice(300, |_, x, y| if x + 0.3 * y > 0.2 { "5".into() } else { "-5".into() });
    let three = lattice(300, |i, _, _| format!("{}", i % 3 + 1));
    for (name, text, lssvm, landmarks, regression) in [
        ("lam-krr.svm", &reals, false, "random:30", true),
        ("lam-lssvr.svm", &reals, true, "fvs:20", true),
        ("lam-two.svm", &two, true, "random:25", false),
        ("lam-three.svm", &three, true, "fvs:25", false),
    ] {
        let p = write(&dir, name, text.as_bytes());
        let k = "gaussian:sigma=0.8".parse().unwrap();
        let params = if lssvm {
            NystromRidgeParams::lssvm(k, 1.0, landmarks.parse().unwrap())
        } else {
            NystromRidgeParams::krr(k, 1.0, landmarks.parse().unwrap())
        }
        .seed(5)
        .tol(1e-9, 200);
        // The default block (kern train's) and blocks of 16 rows, so that 4 ranks hold several.
        for block in [None, Some(16)] {
            let choose = |c: &dyn Comm| {
                let part = read_part(c, &p, &PartOptions::default()).unwrap();
                let ch = choose_lambda_nystrom(c, &part, &params, regression && lssvm, block, None).unwrap();
                (
                    ch.lambda,
                    ch.selection.error.clone(),
                    ch.selection.mse.clone(),
                    persist::to_bytes(&ch.model).unwrap(),
                )
            };
            let one = choose(&SingleProcess);
            if block.is_none() {
                // One process: the library's own choice on the whole file (kern train's).
                let ds = read_libsvm_with(&p, &LibsvmOptions::default()).unwrap();
                let y = crate::common::one_process_targets(&ds.labels, regression || !lssvm);
                let lib = params.choose_lambda(&ds.samples, &y, None).unwrap();
                assert_eq!(
                    (lib.lambda, &lib.selection.error),
                    (one.0, &one.1),
                    "{name}: the library's choice"
                );
                assert!(persist::to_bytes(&lib.model).unwrap() == one.3, "{name}: the library's model");
                // The choice is the best of the curve (ties to the smaller lambda, by mse).
                let best = lib.selection.best;
                assert!(lib.selection.error.iter().all(|&e| e >= lib.selection.error[best]), "{name}");
            }
            for size in RANKS {
                for (rank, got) in run_threads(size, choose).iter().enumerate() {
                    assert!(
                        *got == one,
                        "{name} block {block:?} P={size} rank {rank}: the one-rank choice and bytes"
                    );
                }
            }
        }
    }
}

#[test]
fn automatic_kernel_values_are_the_one_process_choice_on_any_number_of_ranks() {
    use kern_dist::auto::{resolve_kernel, width_search};
    use kern_dist::landmark::targets_part;
    use kern_models::krr::KernelRidgeParams;
    use kern_tune::auto::AutoKernel;
    let dir = scratch("automatic_kernel_values_are_the_one_process_choice_on_any_number_of_ranks");
    let reals = lattice(300, |_, x, y| format!("{:.6}", (x * y).sin()));
    let three = lattice(300, |i, x, _| format!("{}", (i + (x > 2.0) as usize) % 3 + 1));
    // More rows than the 5,000 points whose pairs are read: a seeded subsample is gathered.
    let many = lattice(5_300, |_, x, y| format!("{:.6}", x - y));
    for (name, text, classes, specs) in [
        (
            "auto-reals.svm",
            &reals,
            false,
            &["gaussian:sigma=auto", "gaussian:sigma=max-variance", "cs-gaussian:sigma=auto,c=auto"][..],
        ),
        ("auto-three.svm", &three, true, &["gaussian:sigma=ahn", "gaussian:sigma=median"][..]),
        ("auto-many.svm", &many, false, &["gaussian:sigma=auto"][..]),
    ] {
        let p = write(&dir, name, text.as_bytes());
        let ds = read_libsvm_with(&p, &LibsvmOptions::default()).unwrap();
        for spec in specs {
            let auto = AutoKernel::parse(spec).unwrap().unwrap();
            let labels = classes.then(|| ds.classes().unwrap().classes().to_vec());
            let one = auto.resolve(&ds.samples, labels.as_deref(), 7).unwrap().kernel;
            let ranks = if text.len() > 100_000 { vec![1, 2] } else { vec![1, 2, 4] };
            for size in ranks {
                let got = run_threads(size, |c| {
                    let part = read_part(c, &p, &PartOptions::default()).unwrap();
                    resolve_kernel(c, &part, &auto, classes, 7).unwrap().kernel
                });
                assert!(got.iter().all(|k| *k == one), "{name} {spec} P={size}: {got:?} against {one}");
            }
        }
    }
    // The width search (all 300 samples here, and a seeded 1,000 of 1,100): the one-process choice.
    let wide = lattice(1_100, |_, x, y| format!("{:.6}", (0.5 * x + y).cos()));
    for (name, text, lssvm, ranks) in [
        ("width-reals.svm", &reals, false, &[1, 2, 4][..]),
        ("width-three.svm", &three, true, &[1, 2, 4][..]),
        ("width-wide.svm", &wide, false, &[2][..]),
    ] {
        let p = write(&dir, name, text.as_bytes());
        let ds = read_libsvm_with(&p, &LibsvmOptions::default()).unwrap();
        let y = crate::common::one_process_targets(&ds.labels, !lssvm);
        let k: kern_core::KernelSpec = "gaussian:sigma=0.3".parse().unwrap();
        let one = if lssvm {
            LsSvmParams::new(k.clone()).choose_width(&ds.samples, &y, 3).unwrap()
        } else {
            KernelRidgeParams::new(k.clone()).choose_width(&ds.samples, &y, 3).unwrap()
        };
        for &size in ranks {
            let got = run_threads(size, |c| {
                let part = read_part(c, &p, &PartOptions::default()).unwrap();
                let (_, task) = targets_part(c, &part, !lssvm).unwrap();
                let ch = width_search(c, &part, &k, lssvm, &task, 3).unwrap();
                (ch.kernel, ch.factor, ch.curve, ch.points)
            });
            for g in got {
                assert_eq!(
                    g,
                    (one.kernel.clone(), one.factor, one.curve.clone(), one.points),
                    "{name} P={size}"
                );
            }
        }
    }
}

#[test]
fn compact_models_have_the_one_rank_bytes_on_any_number_of_ranks() {
    let dir = scratch("compact_models_have_the_one_rank_bytes_on_any_number_of_ranks");
    let binary =
        lattice(300, |_, x, y| if (x - 2.0).powi(2) + (y - 2.0).powi(2) < 1.5 { "1" } else { "-1" }.into());
    let three = lattice(300, |_, x, y| format!("{}", ((x + y) as usize) % 3));
    let reals = lattice(300, |_, x, y| format!("{:.6}", (x * y).sin()));
    let kernel: kern_core::KernelSpec = "cs-gaussian:sigma=0.5,c=0.8".parse().unwrap();
    for (name, text, dual, regression) in [
        ("cs-binary.svm", &binary, Dual::LsSvm, false),
        ("cs-three.svm", &three, Dual::LsSvm, false),
        ("cs-real.svm", &reals, Dual::Krr, true),
    ] {
        let p = write(&dir, name, text.as_bytes());
        let mut params = CompactParams::new(dual, kernel.clone(), 1.0);
        params.pcg.tol = 1e-10;
        let fit = |c: &dyn Comm| {
            let part = read_part(c, &p, &PartOptions::default()).unwrap();
            let f = fit_compact(c, &part, &params, regression).unwrap();
            (model_bytes(c, &part, &f, &params).unwrap(), f.rows.len(), f.halo)
        };
        let one = fit(&SingleProcess).0.unwrap();
        for size in RANKS {
            let got = run_threads(size, fit);
            assert!(got[0].0.as_ref() == Some(&one), "{name} P={size}: the one-rank bytes");
            assert!(got.iter().skip(1).all(|g| g.0.is_none()), "only rank 0 assembles the file");
            // The spatial split spreads the rows: every rank solves for some, and needs a halo.
            assert!(
                got.iter().all(|g| g.1 > 0 && g.2 > 0),
                "{name} P={size}: {:?}",
                got.iter().map(|g| (g.1, g.2)).collect::<Vec<_>>()
            );
            assert_eq!(got.iter().map(|g| g.1).sum::<usize>(), 300);
        }
    }
}

#[test]
fn grid_search_and_prediction_equal_one_process_on_any_number_of_ranks() {
    let dir = scratch("grid_search_and_prediction_equal_one_process_on_any_number_of_ranks");
    let (x, y) = two_blobs(60);
    let labels: Vec<&str> = y.y().iter().map(|&v| if v > 0.0 { "2" } else { "1" }).collect();
    let y = Targets::Binary(y);
    let (grid, cfg) = (lssvm_grid(), grid_config(false));
    let one = serde_json::to_string(&kern_tune::grid::grid_search(&grid, build_lssvm, &x, &y, &cfg).unwrap())
        .unwrap();
    let data = write(&dir, "pred.svm", b"");
    kern_core::io::write_libsvm(&data, &x, &labels).unwrap();
    let m = kern_core::learner::Fit::fit(
        &LsSvmParams::new("gaussian:sigma=0.7".parse().unwrap()).gam(1e-2),
        &x,
        &y,
    )
    .unwrap();
    let model = write(&dir, "pred.kern", b"");
    persist::save(&model, &m).unwrap();
    let want = write(&dir, "pred-one.out", b"");
    kern_dist::predict::predict_file(&SingleProcess, &model, &data, &CsvOptions::default(), Some(&want))
        .unwrap();
    for size in RANKS {
        let out = write(&dir, &format!("pred-{size}.out"), b"");
        let got = run_threads(size, |c| {
            let r = kern_dist::grid::grid_search_dist(c, &grid, build_lssvm, &x, &y, &cfg).unwrap();
            let s = kern_dist::predict::predict_file(c, &model, &data, &CsvOptions::default(), Some(&out))
                .unwrap();
            (r.map(|r| serde_json::to_string(&r).unwrap()), s.rows_per_rank)
        });
        assert_eq!(got[0].0.as_deref(), Some(one.as_str()), "P={size}: the grid search report");
        assert!(got.iter().skip(1).all(|g| g.0.is_none()));
        assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&want).unwrap(), "P={size}: predictions");
        assert_eq!(got[0].1.len(), size);
    }
}

/// `n` rows in 3-D without lattice structure, labels alternating.
fn scattered(n: usize) -> String {
    (0..n)
        .map(|i| {
            let t = i as f64;
            let z = ((i * i) % 1009) as f64 / 500.0;
            format!("{} 1:{:.6} 2:{:.6} 3:{z}\n", i % 2, 2.0 * (0.731 * t).sin(), (1.37 * t).cos())
        })
        .collect()
}

#[test]
fn spread_fvs_selects_the_one_process_centres_on_any_number_of_ranks() {
    let dir = scratch("spread_fvs_selects_the_one_process_centres_on_any_number_of_ranks");
    use kern_core::StoragePolicy;
    use kern_dist::landmark::choose_centres;
    use kern_models::fvs::Strategy;
    use kern_models::landmark::select_landmarks;
    // 2,600 rows: a whole-file pool spans three blocks of kern_models::fvs::PART_ROWS, so on four
    // ranks one rank holds no pool row; a random pool of 2,200 rows spreads over every rank.
    let p = write(&dir, "fvs-spread.svm", scattered(2600).as_bytes());
    let k: kern_core::KernelSpec = "gaussian:sigma=0.7".parse().unwrap();
    let cases = [
        ("fvs:25:2600", Strategy::Sampled { candidates: 16, seed: 5 }),
        ("fvs:25:2200", Strategy::MaxResidual),
        ("fvs:20", Strategy::Auto),
    ];
    for storage in [StoragePolicy::Dense, StoragePolicy::Sparse] {
        let whole = read_libsvm_with(&p, &LibsvmOptions { dim: None, storage }).unwrap();
        for (landmarks, strategy) in cases {
            assert_ne!(strategy.resolve(2200), Strategy::Exact, "the spread path, not the gathered one");
            let params = NystromRidgeParams::krr(k.clone(), 1e-3, landmarks.parse().unwrap())
                .seed(3)
                .fvs_strategy(strategy);
            let one = select_landmarks(&k, &whole.samples, params.landmarks, 3, strategy).unwrap();
            let centres = whole.samples.select(&one).unwrap();
            let opts = PartOptions { storage, ..Default::default() };
            for size in [1, 2, 4] {
                for (rank, (c, idx)) in run_threads(size, |comm| {
                    let part = read_part(comm, &p, &opts).unwrap();
                    choose_centres(comm, &part, &params).unwrap()
                })
                .into_iter()
                .enumerate()
                {
                    assert_eq!(idx, one, "{landmarks} {strategy:?} {storage:?} P={size} rank {rank}");
                    assert_eq!(c, centres, "{landmarks} {strategy:?} {storage:?} P={size} rank {rank}");
                }
            }
        }
    }
    // The whole model: the one-rank bytes on every rank count.
    let params = NystromRidgeParams::krr(k, 1e-3, "fvs:20:2600".parse().unwrap())
        .seed(3)
        .fvs_strategy(Strategy::Sampled { candidates: 8, seed: 1 })
        .tol(1e-9, 200);
    let fit = |c: &dyn Comm| {
        let part = read_part(c, &p, &PartOptions::default()).unwrap();
        persist::to_bytes(&fit_nystrom_blocks(c, &part, &params, true, None).unwrap()).unwrap()
    };
    let one = fit(&SingleProcess);
    for size in RANKS {
        assert!(run_threads(size, fit).iter().all(|b| *b == one), "P={size}: the one-rank bytes");
    }
}

#[test]
fn a_spread_selection_that_cannot_start_fails_on_every_rank() {
    use kern_dist::fvs::CommParts;
    use kern_models::fvs::{FvsParams, PART_ROWS, Strategy, select_part};
    let p = FvsParams { max_fv: Some(5), strategy: Strategy::MaxResidual, ..Default::default() };
    let rows = |n: usize, scale: f64| {
        Samples::from_flat((0..2 * n).map(|i| scale * (1.0 + (i as f64 * 0.3).sin())).collect(), n, 2)
            .unwrap()
    };
    // Rank 1's kernel values overflow ((x·x)⁴ with x ~ 1e100): it cannot start; rank 0 can.
    let k: kern_core::KernelSpec = "poly:degree=4".parse().unwrap();
    let errs = run_threads(2, |c| {
        let x = rows(PART_ROWS, if c.rank() == 0 { 1.0 } else { 1e100 });
        select_part(&k, Some(&x), c.rank() * PART_ROWS, 2 * PART_ROWS, &p, &CommParts { comm: c, d: 2 })
            .unwrap_err()
            .to_string()
    });
    assert!(errs[0].contains("part 1"), "{errs:?}");
    assert!(errs[1].contains("positive semi-definite"), "{errs:?}");
    // Parts that do not start at a multiple of PART_ROWS, or do not cover the rows: the same error
    // on every rank.
    let k: kern_core::KernelSpec = "gaussian:sigma=1".parse().unwrap();
    for (n0, total) in [(10, 20), (PART_ROWS, 3 * PART_ROWS)] {
        let errs = run_threads(2, |c| {
            let n = if c.rank() == 0 { n0 } else { 10 };
            let x = rows(n, 1.0);
            select_part(&k, Some(&x), c.rank() * n0, total, &p, &CommParts { comm: c, d: 2 })
                .unwrap_err()
                .to_string()
        });
        assert_eq!(errs[0], errs[1]);
    }
}
