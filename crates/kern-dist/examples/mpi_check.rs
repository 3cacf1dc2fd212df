//! The MPI checks (run by the CI under `mpirun -np 1|2|4`): every distributed method on the MPI world
//! equals the one-process result computed on rank 0, and a bad line on one rank stops every rank with
//! the same error. Usage: `mpirun -np P mpi_check DIR` (DIR: a scratch directory, the same for all ranks).

use kern_core::io::{CsvOptions, LibsvmOptions, read_libsvm_with};
use kern_core::learner::Fit;
use kern_core::{BinaryTargets, Samples, Targets};
use kern_dist::rows::{PartOptions, read_part};
use kern_dist::{Comm, DistError, MpiComm};
use kern_models::lssvm::LsSvmParams;
use kern_tune::cv::{CvConfig, Scoring, Stratify, Validation};
use kern_tune::grid::{GridSearchConfig, ParamGrid, ParamPoint, grid_search};
use std::path::{Path, PathBuf};

/// Rows gathered on rank 0 as text (label and dense values), in rank order.
fn gather_rows(comm: &dyn Comm, part: &kern_dist::rows::DistRows) -> Option<Vec<String>> {
    let mut text = String::new();
    if let Some(x) = &part.samples {
        let x = x.to_dense().unwrap();
        for (r, l) in x.rows().zip(&part.labels) {
            let v: Vec<String> = r.iter().map(|v| format!("{v:?}")).collect();
            text.push_str(&format!("{l} {}\n", v.join(" ")));
        }
    }
    comm.gather_bytes(0, text.as_bytes()).map(|parts| {
        parts
            .iter()
            .flat_map(|b| String::from_utf8_lossy(b).lines().map(str::to_string).collect::<Vec<_>>())
            .collect()
    })
}

fn whole_rows(p: &Path, dim: Option<usize>) -> Vec<String> {
    let ds = read_libsvm_with(p, &LibsvmOptions { dim, storage: kern_core::StoragePolicy::Dense }).unwrap();
    ds.samples
        .rows()
        .zip(&ds.labels)
        .map(|(r, l)| format!("{l} {}", r.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(" ")))
        .collect()
}

fn write_on_root(comm: &dyn Comm, p: &Path, content: &[u8]) {
    if comm.rank() == 0 {
        std::fs::write(p, content).unwrap();
    }
    let mut sync = [0u64];
    comm.allreduce_max_u64(&mut sync); // every rank sees the file after this
}

fn main() {
    let world = MpiComm::init().expect("MPI");
    let comm: &dyn Comm = &world;
    let dir = PathBuf::from(std::env::args().nth(1).expect("scratch directory"));
    let (rank, size) = (comm.rank(), comm.size());

    // 1. Line-boundary cases: each row exactly once, in order, with the one-process values.
    let long: String = (1..=300).map(|j| format!(" {j}:{j}.5")).collect();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("crlf.svm", b"1 1:1\r\n-1 2:2\r\n1 3:3\r\n-1 1:4\r\n".to_vec()),
        ("long.svm", format!("1 1:1\n-1{long}\n1 2:1\n").into_bytes()),
        ("trailing.svm", b"1 1:1\n-1 2:2\n1 1:3\n\n".to_vec()),
        ("no-newline.svm", b"1 1:1\n-1 2:2\n1 1:3".to_vec()),
        ("blank.svm", b"\n\n1 1:1\n\n\n\n-1 3:1\n\n".to_vec()),
    ];
    for (name, content) in &cases {
        let p = dir.join(name);
        write_on_root(comm, &p, content);
        let part = read_part(comm, &p, &PartOptions::default()).unwrap();
        if let Some(rows) = gather_rows(comm, &part) {
            assert_eq!(rows, whole_rows(&p, None), "{name} on {size} ranks");
            println!("ok split {name} P={size}");
        }
    }

    // 2. A bad line in the last rank's part: every rank fails with the same named error.
    let mut bad = String::new();
    for i in 0..40 {
        bad.push_str(&format!("{} 1:{i}\n", if i % 2 == 0 { 1 } else { -1 }));
    }
    bad.push_str("1 1:oops\n");
    let p = dir.join("bad.svm");
    write_on_root(comm, &p, bad.as_bytes());
    match read_part(comm, &p, &PartOptions::default()) {
        Err(DistError::RankFailed { rank: r, message }) => {
            assert_eq!(r, size - 1, "the last line is in the last rank's part");
            assert!(message.contains("bad.svm:41:"), "{message}");
            let all = comm.gather_bytes(0, message.as_bytes());
            if let Some(all) = all {
                assert!(all.iter().all(|m| m == message.as_bytes()), "every rank has the same message");
                println!("ok failing rank P={size}: {message}");
            }
        }
        other => panic!("rank {rank}: expected RankFailed, got {other:?}"),
    }

    // 3. Grid search: the cells of the one-process search, bit for bit.
    let n = 80;
    let rows: Vec<[f64; 2]> = (0..n)
        .map(|i| {
            let t = i as f64 * 0.37;
            let s = if i % 2 == 0 { 1.0 } else { -1.0 };
            [s + 0.6 * t.sin(), s * 0.5 + 0.6 * (1.3 * t).cos()]
        })
        .collect();
    let labels: Vec<&str> = (0..n).map(|i| if i % 2 == 0 { "1" } else { "-1" }).collect();
    let x = Samples::from_rows(&rows).unwrap();
    let yb = BinaryTargets::from_labels(&labels).unwrap();
    let y = Targets::Binary(yb.clone());
    let grid: ParamGrid = "lambda=1e-4..1:3,sigma=0.3..3:3".parse().unwrap();
    let build = |p: &ParamPoint| -> Result<LsSvmParams, kern_core::CoreError> {
        Ok(LsSvmParams::new(format!("gaussian:sigma={}", p["sigma"]).parse()?).gam(p["lambda"]))
    };
    let cfg = GridSearchConfig {
        cv: CvConfig {
            validation: Validation::KFold { k: 5, repeats: 1 },
            stratify: Stratify::Auto,
            scoring: Scoring::Auto,
            seed: 11,
        },
        refit: false,
    };
    let dist = kern_dist::grid::grid_search_dist(comm, &grid, build, &x, &y, &cfg).unwrap();
    if let Some(dist) = dist {
        let one = grid_search(&grid, build, &x, &y, &cfg).unwrap();
        assert_eq!(serde_json::to_string(&dist).unwrap(), serde_json::to_string(&one).unwrap());
        println!("ok grid search P={size}: {} cells, best {}", dist.cells.len(), dist.best_params());
    }

    // 4. Batch prediction: the one-process predictions, in input order, byte for byte.
    let data = dir.join("pred.svm");
    let model = dir.join("pred.kern");
    if rank == 0 {
        kern_core::io::write_libsvm(&data, &x, &labels).unwrap();
        let m = LsSvmParams::new("gaussian:sigma=0.7".parse().unwrap()).gam(1e-2).fit(&x, &yb).unwrap();
        kern_models::persist::save(&model, &m).unwrap();
    }
    write_on_root(comm, &dir.join("sync"), b"");
    let out = dir.join(format!("pred-{size}.txt"));
    let s =
        kern_dist::predict::predict_file(comm, &model, &data, &CsvOptions::default(), Some(&out)).unwrap();
    if rank == 0 {
        let loaded = kern_models::AnyModel::load(&model).unwrap();
        let whole = read_libsvm_with(&data, &LibsvmOptions { dim: Some(2), ..Default::default() }).unwrap();
        let want: String =
            loaded.predict_labels(&whole.samples).unwrap().iter().map(|l| format!("{l}\n")).collect();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), want);
        assert_eq!(s.rows_per_rank.iter().sum::<usize>(), n);
        println!("ok predict P={size}: rows per rank {:?}", s.rows_per_rank);
    }

    // 5. The collectives themselves: sums, maxloc, neighbour exchange along the ring.
    let mut v = [rank as f64, 1.0];
    comm.allreduce_sum(&mut v);
    assert_eq!(v, [(size * (size - 1) / 2) as f64, size as f64]);
    let (m, at) = comm.allreduce_maxloc((rank % 2) as f64, rank as u64);
    assert_eq!((m, at), (if size > 1 { 1.0 } else { 0.0 }, if size > 1 { 1 } else { 0 }));
    let got = comm.exchange_bytes((rank + 1) % size, &[rank as u8], (rank + size - 1) % size);
    assert_eq!(got, vec![((rank + size - 1) % size) as u8]);
    if rank == 0 {
        println!("ok collectives P={size}");
    }

    // 6. Nyström / FVS kernel ridge and LS-SVM: the one-process model to 1e-10 relative (the sums over
    //    rows are only regrouped), the same bytes on every rank and on a second run.
    nystrom(comm, &dir);

    // 7. Compact-kernel LS-SVM / kernel ridge by distributed conjugate gradients: the same bytes as the
    //    one-rank fit (which tests/compact.rs checks against the one-process iterative model within
    //    the derived bound), for any P, and the same bytes twice.
    compact(comm, &dir);

    // 8. Greedy FVS with the pool spread over the ranks (one maxloc per step): the one-process
    //    selection on every rank.
    spread_fvs(comm, &dir);
}

fn spread_fvs(comm: &dyn Comm, dir: &Path) {
    use kern_dist::landmark::choose_centres;
    use kern_models::fvs::Strategy;
    use kern_models::landmark::{NystromRidgeParams, select_landmarks};
    // 2,600 rows: a whole-file pool spans three blocks of PART_ROWS (on four ranks one holds none).
    let text: String = (0..2600)
        .map(|i| {
            let t = i as f64;
            format!(
                "{} 1:{:.6} 2:{:.6} 3:{}\n",
                i % 2,
                2.0 * (0.731 * t).sin(),
                (1.37 * t).cos(),
                ((i * i) % 1009) as f64 / 500.0
            )
        })
        .collect();
    let p = dir.join("fvs-spread.svm");
    write_on_root(comm, &p, text.as_bytes());
    let whole = read_libsvm_with(&p, &LibsvmOptions::default()).unwrap();
    let k: kern_core::KernelSpec = "gaussian:sigma=0.7".parse().unwrap();
    for (landmarks, strategy) in [
        ("fvs:25:2600", Strategy::Sampled { candidates: 16, seed: 5 }),
        ("fvs:25:2200", Strategy::MaxResidual),
        ("fvs:20", Strategy::Auto),
    ] {
        let params = NystromRidgeParams::krr(k.clone(), 1e-3, landmarks.parse().unwrap())
            .seed(3)
            .fvs_strategy(strategy);
        let one = select_landmarks(&k, &whole.samples, params.landmarks, 3, strategy).unwrap();
        let part = read_part(comm, &p, &PartOptions::default()).unwrap();
        let counted = kern_dist::comm::Counted::new(comm);
        let (c, idx) = choose_centres(&counted, &part, &params).unwrap();
        assert_eq!(idx, one, "{landmarks} {strategy:?} P={}", comm.size());
        assert_eq!(c, whole.samples.select(&one).unwrap());
        let t = counted.traffic();
        if comm.rank() == 0 {
            println!(
                "ok spread FVS {landmarks} {strategy:?} P={}: the one-process centres; rank 0 sent {} B in {} allreduces, {} B in {} other calls",
                comm.size(),
                t.allreduce_bytes,
                t.allreduce_calls,
                t.other_bytes,
                t.other_calls
            );
        }
    }
}

fn compact(comm: &dyn Comm, dir: &Path) {
    use kern_dist::SingleProcess;
    use kern_dist::compact::{CompactParams, Dual, fit_compact, model_bytes};
    let size = comm.size();
    let lines = |label: &dyn Fn(f64, f64) -> String| -> String {
        (0..500)
            .map(|i| {
                let (x, y) = (((i * 37) % 101) as f64 / 25.0, ((i * 53) % 97) as f64 / 24.0);
                format!("{} 1:{x} 2:{y}\n", label(x, y))
            })
            .collect()
    };
    let files = [
        (
            "cs-binary.svm",
            lines(&|x, y| if (x - 2.0).powi(2) + (y - 2.0).powi(2) < 1.5 { "1".into() } else { "-1".into() }),
        ),
        ("cs-classes.svm", lines(&|x, y| format!("{}", ((x + y) as usize) % 3))),
        ("cs-real.svm", lines(&|x, y| format!("{:.6}", (x * y).sin()))),
    ];
    for (name, content) in &files {
        write_on_root(comm, &dir.join(name), content.as_bytes());
    }
    let kernel: kern_core::KernelSpec = "cs-gaussian:sigma=0.5,c=0.8".parse().unwrap();
    let cases = [
        ("cs-binary.svm", Dual::LsSvm, false),
        ("cs-classes.svm", Dual::LsSvm, false),
        ("cs-real.svm", Dual::LsSvm, true),
        ("cs-real.svm", Dual::Krr, true),
    ];
    for (name, dual, regression) in cases {
        let p = dir.join(name);
        let mut params = CompactParams::new(dual, kernel.clone(), 1.0);
        params.pcg.tol = 1e-10;
        let part = read_part(comm, &p, &PartOptions::default()).unwrap();
        let run = || {
            let fit = fit_compact(comm, &part, &params, regression).unwrap();
            let bytes = model_bytes(comm, &part, &fit, &params).unwrap();
            (fit, bytes)
        };
        let (fit, a) = run();
        let (_, b) = run();
        let counts = comm.gather_bytes(
            0,
            &[(fit.rows.len() as u64).to_le_bytes(), (fit.halo as u64).to_le_bytes()].concat(),
        );
        if let (Some(a), Some(b), Some(counts)) = (a, b, counts) {
            assert_eq!(a, b, "{name} {dual:?}: same bytes twice");
            let whole = read_part(&SingleProcess, &p, &PartOptions::default()).unwrap();
            let one = fit_compact(&SingleProcess, &whole, &params, regression).unwrap();
            let one = model_bytes(&SingleProcess, &whole, &one, &params).unwrap().unwrap();
            assert!(a == one, "{name} {dual:?}: P={size} gives the one-rank bytes");
            let c: Vec<(u64, u64)> = counts
                .iter()
                .map(|m| {
                    (
                        u64::from_le_bytes(m[..8].try_into().unwrap()),
                        u64::from_le_bytes(m[8..].try_into().unwrap()),
                    )
                })
                .collect();
            println!(
                "ok compact {name} {dual:?} P={size} (rows, halo per rank {c:?}): {} iterations, the one-rank bytes",
                fit.report.iterations
            );
        }
    }
}

fn nystrom(comm: &dyn Comm, dir: &Path) {
    use kern_models::landmark::{NystromRidge, NystromRidgeParams};
    let size = comm.size();
    let lines = |label: &dyn Fn(usize) -> String| -> String {
        (0..400)
            .map(|i| {
                let t = i as f64 * 0.61;
                let (a, b, c) = (t.sin(), (1.3 * t).cos(), (0.4 * t).sin());
                format!("{} 1:{a:.6} 2:{b:.6} 3:{c:.6}\n", label(i))
            })
            .collect()
    };
    let text = lines(&|i| format!("{}", i % 3));
    let reals = lines(&|i| format!("{:.6}", (i as f64 * 0.61).sin().powi(2) + 0.3 * (i as f64 * 0.8).cos()));
    let binary = lines(&|i| if (i as f64 * 0.61).sin() > 0.2 { "7".into() } else { "3".into() });
    let files = [("nys-classes.svm", text), ("nys-real.svm", reals), ("nys-binary.svm", binary)];
    for (name, content) in &files {
        write_on_root(comm, &dir.join(name), content.as_bytes());
    }
    // (file, lssvm, landmarks, regression). Every sum over rows is a sum of per-block terms added
    // exactly (ExactSums), the blocks counted from the file's first row: the model must have the same
    // bytes as one process for any P, with random centres (ill-conditioned K_mm) as with FVS. With the
    // default block (65,536 rows here) rank 0 holds all 400 rows after alignment; blocks of 16 rows
    // spread the rows over every rank (P = 4: 112, 96, 96, 96 rows).
    let cases = [
        ("nys-real.svm", false, "random:40", true),
        ("nys-real.svm", false, "fvs:30:200", true),
        ("nys-binary.svm", true, "fvs:30", false),
        ("nys-binary.svm", true, "random:40", false),
        ("nys-classes.svm", true, "random:35", false),
        ("nys-classes.svm", true, "fvs:30", false),
        ("nys-real.svm", true, "fvs:25", true),
    ];
    for (name, lssvm, landmarks, regression) in cases {
        let p = dir.join(name);
        let k = "gaussian:sigma=0.7".parse::<kern_core::KernelSpec>().unwrap();
        let params = if lssvm {
            NystromRidgeParams::lssvm(k, 0.1, landmarks.parse().unwrap())
        } else {
            NystromRidgeParams::krr(k, 1e-4, landmarks.parse().unwrap())
        }
        .seed(3)
        .tol(1e-8, 500);
        let part = read_part(comm, &p, &PartOptions::default()).unwrap();
        for block in [None, Some(16)] {
            let fit = || {
                kern_dist::landmark::fit_nystrom_blocks(comm, &part, &params, regression && lssvm, block)
                    .unwrap()
            };
            let (a, b) = (fit(), fit());
            let bytes = kern_models::persist::to_bytes(&a).unwrap();
            assert_eq!(
                bytes,
                kern_models::persist::to_bytes(&b).unwrap(),
                "{name} {landmarks}: same bytes twice"
            );
            // Rows this rank held while fitting (after alignment to the blocks).
            let aligned = kern_dist::landmark::align_rows(
                comm,
                &part,
                block.unwrap_or_else(|| kern_models::landmark::block_rows(a.centres().n())),
            )
            .unwrap()
            .n_local();
            let held = comm.gather_bytes(0, &(aligned as u64).to_le_bytes());
            let all = comm.gather_bytes(0, &bytes);
            if let (Some(all), Some(held)) = (all, held) {
                assert!(all.iter().all(|m| *m == bytes), "{name} {landmarks}: the same model on every rank");
                let held: Vec<u64> =
                    held.iter().map(|b| u64::from_le_bytes(b.as_slice().try_into().unwrap())).collect();
                let ds = kern_core::io::read_libsvm(&p, None).unwrap();
                let y = if regression || !lssvm {
                    Targets::Real(ds.real().unwrap())
                } else {
                    let c = ds.classes().unwrap();
                    if c.n_classes() == 2 {
                        Targets::Binary(ds.binary().unwrap())
                    } else {
                        Targets::Classes(c)
                    }
                };
                let full: NystromRidge = params.fit_targets(&ds.samples, &y).unwrap();
                let idx = full.centre_indices().to_vec();
                let one = match block {
                    None => full,
                    Some(_) => {
                        let none = |_: &mut [f64]| {};
                        let nomax = |_: &mut [u64]| {};
                        let whole = kern_models::landmark::RowPart {
                            rows: Some((&ds.samples, &y)),
                            n: ds.samples.n(),
                            task: full.task().clone(),
                            block,
                            sum: &none,
                            max: &nomax,
                        };
                        params.fit_part(&whole, ds.samples.select(&idx).unwrap(), &idx).unwrap()
                    }
                };
                assert_eq!(a.centre_indices(), one.centre_indices(), "{name} {landmarks}: the same centres");
                // Stronger than agreement to 1e-10 relative: the same bytes as one process.
                assert!(
                    bytes == kern_models::persist::to_bytes(&one).unwrap(),
                    "{name} {landmarks} block {block:?}: the same bytes as one process"
                );
                println!(
                    "ok nystrom {name} {landmarks} P={size} block {block:?} (rows per rank {held:?}): {} \
                     iterations, the same bytes as one process",
                    a.report().iterations,
                );
            }
        }
    }
}
