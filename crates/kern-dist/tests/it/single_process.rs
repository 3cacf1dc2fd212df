//! The distributed methods on the single-process communicator, against kern's one-process functions,
//! and the line-boundary laws of reading a file in parts (checked for every part count and split).

use crate::common::{build_lssvm, grid_config, lssvm_grid, scratch, two_blobs, write};

use kern_core::Targets;
use kern_core::io::{CsvOptions, LibsvmOptions, MissingPolicy, read_csv, read_libsvm_with};
use kern_core::learner::Fit;
use kern_dist::rows::{PartOptions, read_part};
use kern_dist::split::{byte_range, for_each_line};
use kern_dist::{DistError, SingleProcess};
use kern_models::lssvm::LsSvmParams;
use kern_tune::grid::grid_search;
use proptest::prelude::*;

/// The lines a one-process reader sees (`BufRead::lines`: `\n` and `\r\n` endings removed).
fn all_lines(content: &[u8]) -> Vec<String> {
    use std::io::BufRead;
    content.lines().map(|l| l.unwrap()).collect()
}

/// Lines of every part when the file is cut at `cuts` (ascending byte positions).
fn lines_in_parts(p: &std::path::Path, len: u64, cuts: &[u64]) -> Vec<String> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(len);
    let mut out = Vec::new();
    for w in bounds.windows(2) {
        for_each_line(p, w[0], w[1], |_, _, l| {
            out.push(l.to_string());
            Ok(())
        })
        .unwrap();
    }
    out
}

#[test]
fn every_two_part_split_yields_each_line_once() {
    let dir = scratch("every_two_part_split_yields_each_line_once");
    // CRLF, a row longer than any part, blank lines, an empty trailing line, no final newline.
    let cases: [&[u8]; 5] = [
        b"1 1:1\r\n-1 2:2\r\n1 3:3\r\n",
        b"1 1:1\n-1 1:0.5 2:0.25 3:0.125 4:0.0625 5:0.03125 6:0.015625 7:1 8:2 9:3\n1 2:1\n",
        b"1 1:1\n\n\n-1 2:2\n\n",
        b"1 1:1\n-1 2:2",
        b"\n\r\n1 1:1\r\n",
    ];
    for (k, c) in cases.iter().enumerate() {
        let p = write(&dir, &format!("two-part-{k}.svm"), c);
        let len = c.len() as u64;
        for cut in 0..=len {
            assert_eq!(lines_in_parts(&p, len, &[cut]), all_lines(c), "case {k}, cut at {cut}");
        }
    }
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(48))]
    #[test]
    fn parts_partition_the_lines(
        rows in prop::collection::vec(("[a-z0-9: ]{0,30}", any::<bool>()), 0..12),
        last_newline in any::<bool>(),
        parts in 1usize..9,
    ) {
        let dir = scratch("parts_partition_the_lines");
        let mut content = Vec::new();
        for (i, (r, crlf)) in rows.iter().enumerate() {
            content.extend_from_slice(r.as_bytes());
            if i + 1 < rows.len() || last_newline {
                content.extend_from_slice(if *crlf { b"\r\n" } else { b"\n" });
            }
        }
        let p = write(&dir, &format!("prop-{parts}.txt"), &content);
        let len = content.len() as u64;
        let cuts: Vec<u64> = (1..parts).map(|q| byte_range(len, q, parts).0).collect();
        prop_assert_eq!(lines_in_parts(&p, len, &cuts), all_lines(&content));
    }
}

#[test]
fn libsvm_part_of_one_equals_the_whole_file_reader() {
    let dir = scratch("libsvm_part_of_one_equals_the_whole_file_reader");
    let content = b"# comment\n2 1:0.5 4:-1\r\n\n1 2:3 qid:4\n3 1:1 3:2 # note\n";
    let p = write(&dir, "whole.svm", content);
    for storage in
        [kern_core::StoragePolicy::Auto, kern_core::StoragePolicy::Dense, kern_core::StoragePolicy::Sparse]
    {
        let part = read_part(&SingleProcess, &p, &PartOptions { storage, ..Default::default() }).unwrap();
        let whole = read_libsvm_with(&p, &LibsvmOptions { dim: None, storage }).unwrap();
        assert_eq!(part.samples.as_ref(), Some(&whole.samples));
        assert_eq!(part.labels, whole.labels);
        assert_eq!((part.n_total, part.d, part.row_offset), (3, 4, 0));
    }
}

#[test]
fn csv_part_of_one_equals_the_whole_file_reader() {
    let dir = scratch("csv_part_of_one_equals_the_whole_file_reader");
    let content = b"a;b;y\r\n1;\"2.5\";x\n?;1;y\n\n0;-3;\"1.0\"\n";
    let p = write(&dir, "whole.csv", content);
    let opts = CsvOptions { missing: MissingPolicy::Drop, ..Default::default() };
    let part =
        read_part(&SingleProcess, &p, &PartOptions { csv: opts.clone(), ..Default::default() }).unwrap();
    let whole = read_csv(&p, &opts).unwrap();
    assert_eq!(part.samples.as_ref(), Some(&whole.samples));
    assert_eq!(part.labels, whole.labels);
    // The row with "?" (line 3) is dropped and said so, as the one-process reader says it.
    assert_eq!(part.dropped_lines, whole.dropped_lines);
    assert_eq!(part.dropped_lines, [3]);
    // Labels keep the text of the file, as the one-process reader keeps it.
    assert_eq!(part.global_labels(&SingleProcess).unwrap(), vec!["1.0", "x"]);
}

/// A missing value is an error by default, in parts as in one piece, naming the line.
#[test]
fn csv_part_refuses_missing_values_by_default() {
    let dir = scratch("csv_part_refuses_missing_values_by_default");
    let p = write(&dir, "holes.csv", b"a,b,y\n1,2,x\n?,1,y\n");
    assert!(read_csv(&p, &CsvOptions::default()).is_err());
    match read_part(&SingleProcess, &p, &PartOptions::default()) {
        Err(DistError::RankFailed { rank: 0, message }) => {
            assert!(message.contains("holes.csv:3:") && message.contains("\"a\""), "{message}")
        }
        other => panic!("expected a rank failure, got {other:?}"),
    }
}

/// The header rule of the one-process reader: `400,410,420,label` over numeric rows is a header;
/// labels that look like numbers keep their text (`02134`).
#[test]
fn csv_part_detects_the_header_and_keeps_label_text_as_read_csv() {
    let dir = scratch("csv_part_detects_the_header_as_read_csv");
    for content in [
        &b"400,410,420,label\n0.1,0.2,0.3,02134\n0.3,0.2,0.1,10001\n"[..],
        b"0.1,0.2,0.3,02134\n0.3,0.2,0.1,10001\n",
        b"a,b,c,d\n1,2,3,4\n",
        b"?,b,c,y\n1,2,3,x\n",
        // A numeric header over text labels, and the same rows without it (kern-core's rule, shared).
        b"400,410,420,label\n1,2,3,cat\n2,1,3,dog\n3,2,1,cat\n1,3,2,dog\n",
        b"0,1,2,cat\n1,2,3,cat\n2,1,3,dog\n3,2,1,cat\n1,3,2,dog\n",
    ] {
        let p = write(&dir, "h.csv", content);
        let part = read_part(&SingleProcess, &p, &PartOptions::default()).unwrap();
        let whole = read_csv(&p, &CsvOptions::default());
        match whole {
            Ok(whole) => {
                assert_eq!(
                    part.samples.as_ref(),
                    Some(&whole.samples),
                    "{}",
                    String::from_utf8_lossy(content)
                );
                assert_eq!(part.labels, whole.labels);
            }
            Err(e) => panic!("{}: {e}", String::from_utf8_lossy(content)),
        }
    }
    let p = write(&dir, "h.csv", b"400,410,420,label\n0.1,0.2,0.3,02134\n0.3,0.2,0.1,10001\n");
    let part = read_part(&SingleProcess, &p, &PartOptions::default()).unwrap();
    assert_eq!(part.labels, ["02134", "10001"]);
    let p = write(&dir, "h.csv", b"400,410,420,label\n1,2,3,cat\n2,1,3,dog\n3,2,1,cat\n1,3,2,dog\n");
    assert_eq!(read_part(&SingleProcess, &p, &PartOptions::default()).unwrap().labels.len(), 4);
    let p = write(&dir, "h.csv", b"0,1,2,cat\n1,2,3,cat\n2,1,3,dog\n3,2,1,cat\n1,3,2,dog\n");
    assert_eq!(read_part(&SingleProcess, &p, &PartOptions::default()).unwrap().labels.len(), 5);
}

#[test]
fn a_bad_line_is_a_named_error_with_the_file_line() {
    let dir = scratch("a_bad_line_is_a_named_error_with_the_file_line");
    let p = write(&dir, "bad.svm", b"1 1:1\n-1 2:2\n1 3:x\n");
    match read_part(&SingleProcess, &p, &PartOptions::default()) {
        Err(DistError::RankFailed { rank: 0, message }) => {
            assert!(message.contains("bad.svm:3:") && message.contains("\"x\""), "{message}")
        }
        other => panic!("expected a rank failure, got {other:?}"),
    }
    let gz = write(&dir, "data.svm.gz", b"");
    assert!(matches!(
        read_part(&SingleProcess, &gz, &PartOptions::default()),
        Err(DistError::RankFailed { .. })
    ));
}

#[test]
fn grid_search_over_one_rank_equals_grid_search() {
    let (x, y) = two_blobs(60);
    let y = Targets::Binary(y);
    let grid = lssvm_grid();
    for refit in [false, true] {
        let cfg = grid_config(refit);
        let one = grid_search(&grid, build_lssvm, &x, &y, &cfg).unwrap();
        let dist = kern_dist::grid::grid_search_dist(&SingleProcess, &grid, build_lssvm, &x, &y, &cfg)
            .unwrap()
            .unwrap();
        assert_eq!(serde_json::to_string(&dist).unwrap(), serde_json::to_string(&one).unwrap());
        assert!(dist.cells.iter().any(|c| c.error.is_some()));
        assert_eq!(dist.model.is_some(), refit);
    }
}

#[test]
fn batch_prediction_equals_the_model_on_the_whole_file() {
    let dir = scratch("batch_prediction_equals_the_model_on_the_whole_file");
    let (x, y) = two_blobs(40);
    let labels: Vec<&str> = y.y().iter().map(|&v| if v > 0.0 { "2" } else { "1" }).collect();
    let data = write(&dir, "pred.svm", b"");
    kern_core::io::write_libsvm(&data, &x, &labels).unwrap();
    let m = LsSvmParams::new("gaussian:sigma=0.7".parse().unwrap()).gam(1e-2).fit(&x, &y).unwrap();
    let model = write(&dir, "pred.kern", b"");
    kern_models::persist::save(&model, &m).unwrap();
    let out = write(&dir, "pred.out", b"");
    let s =
        kern_dist::predict::predict_file(&SingleProcess, &model, &data, &CsvOptions::default(), Some(&out))
            .unwrap();
    let loaded = kern_models::AnyModel::load(&model).unwrap();
    let whole = read_libsvm_with(&data, &LibsvmOptions { dim: Some(2), ..Default::default() }).unwrap();
    let want: String =
        loaded.predict_labels(&whole.samples).unwrap().iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), want);
    assert_eq!((s.n, s.rows_per_rank.clone()), (40, vec![40]));
    // Writing over an input is refused.
    assert!(
        kern_dist::predict::predict_file(&SingleProcess, &model, &data, &CsvOptions::default(), Some(&data))
            .is_err()
    );
}

/// `kern-mpi predict`, `kern predict` (when the workspace built it beside kern-mpi) and the library's
/// model registry write the same lines for one model file.
#[test]
fn kern_mpi_predict_kern_predict_and_the_registry_agree() {
    use kern_models::svm::SvcParams;
    let dir = scratch("kern_mpi_predict_kern_predict_and_the_registry_agree");
    let (x, y) = two_blobs(40);
    let labels: Vec<&str> = y.y().iter().map(|&v| if v > 0.0 { "2" } else { "1" }).collect();
    let data = write(&dir, "d.svm", b"");
    kern_core::io::write_libsvm(&data, &x, &labels).unwrap();
    let yl = kern_core::BinaryTargets::from_labels(&labels).unwrap();
    let m = SvcParams::new("gaussian:sigma=0.7".parse().unwrap())
        .c(3.0)
        .probability(true, 2)
        .fit(&x, &yl)
        .unwrap();
    let model = write(&dir, "m.kern", b"");
    kern_models::persist::save(&model, &m).unwrap();
    let mpi_bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_kern-mpi"));
    let out = dir.join("mpi.txt");
    let run = std::process::Command::new(&mpi_bin)
        .args(["predict", "--model", model.to_str().unwrap(), "--data", data.to_str().unwrap()])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let mpi = std::fs::read_to_string(&out).unwrap();
    let whole = read_libsvm_with(&data, &LibsvmOptions { dim: Some(2), ..Default::default() }).unwrap();
    let lib = kern_models::AnyModel::load(&model).unwrap().predict_labels(&whole.samples).unwrap();
    assert_eq!(mpi, lib.iter().map(|l| format!("{l}\n")).collect::<String>());
    let kern_bin = mpi_bin.with_file_name("kern");
    if kern_bin.exists() {
        let out = dir.join("kern.txt");
        let run = std::process::Command::new(&kern_bin)
            .args(["predict", "--model", model.to_str().unwrap(), "--data", data.to_str().unwrap()])
            .args(["--out", out.to_str().unwrap(), "--values", "label"])
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        assert_eq!(std::fs::read_to_string(&out).unwrap(), mpi);
    }
}

/// `kern-mpi train` warns of a model regularized into a constant, as `kern train` does: in the
/// summary's `warnings` and on stderr, for a landmark model and a compact-kernel model; a model that
/// follows its targets has none.
#[test]
fn kern_mpi_train_warns_of_a_constant_model() {
    let dir = scratch("kern_mpi_train_warns_of_a_constant_model");
    let text: String =
        (0..60).map(|i| format!("{} 1:{}\n", (i as f64 * 0.2).sin(), i as f64 * 0.1)).collect();
    let data = write(&dir, "d.svm", text.as_bytes());
    let mpi_bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_kern-mpi"));
    let train = |lambda: &str, how: &[&str]| -> (Vec<serde_json::Value>, String) {
        let out = dir.join("m.kern");
        let run = std::process::Command::new(&mpi_bin)
            .args(["train", "--model", "krr", "--regression", "--data", data.to_str().unwrap()])
            .args(["--lambda", lambda, "--out", out.to_str().unwrap()])
            .args(how)
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let stdout = String::from_utf8(run.stdout).unwrap();
        let v: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
        (v["warnings"].as_array().expect("a warnings list").clone(), String::from_utf8(run.stderr).unwrap())
    };
    let ways: [&[&str]; 2] = [
        &["--kernel", "gaussian:sigma=0.5", "--landmarks", "random:8"],
        &["--kernel", "cs-gaussian:sigma=0.3,c=0.9", "--solver", "iterative"],
    ];
    for how in ways {
        let (w, stderr) = train("1e12", how);
        assert_eq!(w.len(), 1, "{how:?}: {w:?}");
        assert!(w[0].as_str().unwrap().starts_with("the model is constant"), "{how:?}: {w:?}");
        assert!(stderr.contains("warning: the model is constant"), "{how:?}: {stderr}");
        let (w, _) = train("1e-3", how);
        assert!(w.is_empty(), "{how:?}: {w:?}");
    }
}

/// `kern-mpi train` on the compact conjugate-gradient path and `kern-mpi cv` refuse automatic values,
/// with the way to get the numbers; a landmark model takes them and trains the model `kern train`
/// trains.
#[test]
fn kern_mpi_refuses_automatic_values_except_for_landmark_models() {
    let dir = scratch("kern_mpi_refuses_automatic_values");
    let text: String = (0..40).map(|i| format!("{} 1:{}\n", if i % 2 == 0 { 1 } else { -1 }, i)).collect();
    let data = write(&dir, "d.svm", text.as_bytes());
    let mpi_bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_kern-mpi"));
    let out = dir.join("m.kern");
    for args in [
        vec![
            "train",
            "--model",
            "krr",
            "--kernel",
            "cs-gaussian:sigma=auto,c=auto",
            "--lambda",
            "1",
            "--solver",
            "iterative",
        ],
        vec!["cv", "--model", "svc", "--kernel", "rbf", "--c", "auto", "--grid", "gamma=1..2:2"],
    ] {
        let run = std::process::Command::new(&mpi_bin)
            .args(&args)
            .args(["--data", data.to_str().unwrap(), "--out", out.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success() && stderr.contains("auto"), "{args:?}: {stderr}");
        assert!(!out.exists());
    }
    // A landmark model: the width kern train chooses (mean-to-half, widened with λ by the exact kernel
    // ridge's leave-one-out), in the summary and in the model.
    let run = std::process::Command::new(&mpi_bin)
        .args(["train", "--model", "krr", "--kernel", "gaussian:sigma=auto", "--lambda", "auto"])
        .args(["--landmarks", "random:8", "--data", data.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let ds = kern_core::io::read_libsvm(&data, None).unwrap();
    let auto = kern_tune::auto::AutoKernel::parse("gaussian:sigma=auto").unwrap().unwrap();
    let half = auto.resolve(&ds.samples, None, 0).unwrap().kernel;
    let y = crate::common::one_process_targets(&ds.labels, true);
    let widened =
        kern_models::krr::KernelRidgeParams::new(half).choose_width(&ds.samples, &y, 0).unwrap().kernel;
    assert_eq!(summary["auto"]["kernel"], widened.to_string());
    assert_eq!(summary["kernel"], widened.to_string());
    let methods: Vec<&str> = summary["auto"]["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        ["mean-to-half", "mean-to-half widened by leave-one-out", "exact leave-one-out on the m × m system"]
    );
    // A landmark model trains after the width search: no search fit is kept.
    assert!(summary["auto"]["choices"][1].get("model").is_none(), "{summary}");
    let m: kern_models::landmark::NystromRidge = kern_models::persist::load(&out).unwrap();
    assert_eq!(m.kernel().to_string(), widened.to_string());
}
