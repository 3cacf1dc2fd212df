//! Hostile but realistic inputs to `kern`: every case must end with a clean error (exit code 1, a
//! `kern: error:` line naming the problem, no panic, no abort) and must change no file other than the
//! intended output. Cases whose fix lives in the data layer are marked `#[ignore]` with the reason.

use crate::common::{output, s, scratch, succeeds, write};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every file under `dir` (name → bytes), symlinks as their target text.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        let ft = std::fs::symlink_metadata(&p).unwrap().file_type();
        if ft.is_symlink() {
            m.insert(name, format!("-> {}", std::fs::read_link(&p).unwrap().display()).into_bytes());
        } else if ft.is_file() {
            m.insert(name, std::fs::read(&p).unwrap());
        } else {
            m.insert(name, b"<special>".to_vec());
        }
    }
    m
}

/// Runs `kern args` in `dir` expecting a clean error whose message contains `needle` (case
/// insensitive), and no change to any file in `dir`.
fn fails(dir: &Path, args: &[&str], needle: &str) -> String {
    let before = snapshot(dir);
    let out = output(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "exit status {:?} for {args:?}; stderr:\n{stderr}", out.status);
    assert!(!stderr.contains("panicked"), "panic for {args:?}:\n{stderr}");
    assert!(stderr.contains("kern: error:"), "no error line for {args:?}:\n{stderr}");
    assert!(
        stderr.to_lowercase().contains(&needle.to_lowercase()),
        "error for {args:?} does not mention {needle:?}:\n{stderr}"
    );
    assert_eq!(snapshot(dir), before, "files changed by the failing {args:?}");
    stderr
}

/// `n` rows of a two-class problem in `d` dimensions, deterministic.
fn two_class(n: usize, d: usize) -> String {
    let mut s = String::new();
    let mut state = 12345u64;
    for i in 0..n {
        let label = if i % 2 == 0 { "1" } else { "-1" };
        s.push_str(label);
        for j in 0..d {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let v = ((state >> 11) as f64 / (1u64 << 53) as f64) + if i % 2 == 0 { 0.5 } else { 0.0 };
            s.push_str(&format!(" {}:{v:.6}", j + 1));
        }
        s.push('\n');
    }
    s
}

/// `n` rows with real-valued labels.
fn regression(n: usize, d: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        let x: Vec<f64> = (0..d).map(|j| ((i * 7 + j * 3) % 11) as f64 / 11.0).collect();
        let y: f64 = x.iter().sum::<f64>() + 0.01 * i as f64;
        s.push_str(&format!("{y:.4}"));
        for (j, v) in x.iter().enumerate() {
            s.push_str(&format!(" {}:{v:.4}", j + 1));
        }
        s.push('\n');
    }
    s
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// Replaces the payload of a model file and fixes its length and checksum (a crafted, "valid" file).
fn with_payload(model: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut out = model[..40].to_vec();
    out[24..32].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    out[32..40].copy_from_slice(&fnv1a64(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The single position of `pat` in `hay`.
fn find_once(hay: &[u8], pat: &[u8]) -> usize {
    let hits: Vec<usize> =
        (0..hay.len().saturating_sub(pat.len() - 1)).filter(|&i| hay[i..].starts_with(pat)).collect();
    assert_eq!(hits.len(), 1, "pattern {pat:?} found {} times", hits.len());
    hits[0]
}

/// Trains a model in `dir` and returns its path.
fn train(dir: &Path, data: &Path, extra: &[&str]) -> PathBuf {
    let m = dir.join("m.kern");
    let mut args = vec!["train", "--data", s(data), "--out", s(&m), "--threads", "1"];
    args.extend_from_slice(extra);
    succeeds(&args);
    m
}

// ---------------------------------------------------------------- memory

#[test]
fn gram_dense_over_max_memory_is_refused() {
    let d = scratch("gram-oom");
    let data = write(&d, "x.svm", two_class(600, 3));
    fails(
        &d,
        &["--max-memory", "1M", "gram", "--data", s(&data), "--kernel", "gaussian:sigma=1"],
        "out of memory",
    );
}

#[test]
fn gram_dense_that_exceeds_the_machine_is_refused() {
    // 300,000 points: a dense Gram of 720 GB.
    let d = scratch("gram-huge");
    let mut text = String::with_capacity(300_000 * 8);
    for i in 0..300_000 {
        text.push_str(if i % 2 == 0 { "1 1:1\n" } else { "-1 1:2\n" });
    }
    let data = write(&d, "x.svm", text);
    let err = fails(&d, &["gram", "--data", s(&data), "--kernel", "gaussian:sigma=1"], "out of memory");
    assert!(err.contains("720.0 GB"), "{err}");
    assert!(err.contains("kern sparse"), "{err}");
}

#[test]
fn kpca_dense_over_max_memory_is_refused() {
    let d = scratch("kpca-oom");
    let data = write(&d, "x.svm", two_class(600, 3));
    fails(
        &d,
        &["--max-memory", "2M", "kpca", "--data", s(&data), "--kernel", "gaussian:sigma=1"],
        "out of memory",
    );
}

#[test]
fn kpca_krylov_over_max_memory_is_refused() {
    let d = scratch("kpca-krylov-oom");
    let data = write(&d, "x.svm", two_class(600, 3));
    let args = [
        "--max-memory",
        "2M",
        "kpca",
        "--data",
        s(&data),
        "--kernel",
        "gaussian:sigma=1",
        "--solver",
        "krylov",
    ];
    fails(&d, &args, "out of memory");
}

#[test]
fn train_krr_over_max_memory_is_refused() {
    let d = scratch("krr-oom");
    let data = write(&d, "x.svm", regression(600, 3));
    let out = d.join("m.kern");
    let args = [
        "--max-memory",
        "4M",
        "train",
        "--model",
        "krr",
        "--data",
        s(&data),
        "--kernel",
        "gaussian:sigma=1",
        "--out",
        s(&out),
    ];
    fails(&d, &args, "out of memory");
}

#[test]
fn train_lssvm_over_max_memory_is_refused() {
    let d = scratch("lssvm-oom");
    let data = write(&d, "x.svm", two_class(600, 3));
    let out = d.join("m.kern");
    let args = [
        "--max-memory",
        "4M",
        "train",
        "--model",
        "lssvm",
        "--data",
        s(&data),
        "--kernel",
        "gaussian:sigma=1",
        "--out",
        s(&out),
    ];
    fails(&d, &args, "out of memory");
}

#[test]
fn cv_krr_over_max_memory_is_an_error_not_an_abort() {
    let d = scratch("cv-krr-oom");
    let data = write(&d, "x.svm", regression(600, 3));
    let args = [
        "--max-memory",
        "4M",
        "cv",
        "--model",
        "krr",
        "--data",
        s(&data),
        "--kernel",
        "gaussian:sigma=1",
        "--grid",
        "lambda=[0.1,1]",
    ];
    fails(&d, &args, "out of memory");
}

#[test]
fn sparse_with_a_wide_support_over_max_memory_is_refused() {
    let d = scratch("sparse-wide");
    let data = write(&d, "x.svm", two_class(600, 2));
    let args =
        ["--max-memory", "1M", "sparse", "--data", s(&data), "--kernel", "cs-gaussian:sigma=1,c=100,nu=3"];
    fails(&d, &args, "sparse Gram");
}

#[test]
fn max_memory_that_is_not_a_size_is_refused() {
    let d = scratch("max-memory-bad");
    let data = write(&d, "x.svm", two_class(10, 2));
    fails(&d, &["--max-memory", "lots", "info", "--data", s(&data)], "max-memory");
}

#[test]
fn max_memory_zero_is_refused() {
    let d = scratch("max-memory-zero");
    let data = write(&d, "x.svm", two_class(10, 2));
    fails(&d, &["--max-memory", "0", "info", "--data", s(&data)], "max-memory");
}

#[test]
fn one_hot_of_an_id_column_over_max_memory_is_refused() {
    let d = scratch("one-hot");
    let mut text = String::from("id,x,label\n");
    for i in 0..20_000 {
        text.push_str(&format!("id{i},{},{}\n", i % 7, i % 2));
    }
    let data = write(&d, "x.csv", &text);
    let err = fails(&d, &["--max-memory", "100M", "info", "--data", s(&data), "--one-hot"], "out of memory");
    // What it needs (20,000 rows × 20,001 features × 8 bytes) and which column is to blame.
    assert!(err.contains("one-hot encoded features needs 3.2 GB"), "{err}");
    assert!(err.contains("column \"id\" has 20000 distinct values"), "{err}");
    // Without the ID column the same data fits.
    let small = write(
        &d,
        "y.csv",
        text.lines().map(|l| l.split_once(',').unwrap().1.to_string() + "\n").collect::<String>(),
    );
    succeeds(&["--max-memory", "100M", "info", "--data", s(&small), "--one-hot"]);
}

// ---------------------------------------------------------------- LIBSVM / CSV (data layer)

#[test]
fn libsvm_index_u64_max_is_an_error() {
    let d = scratch("idx-max");
    let data = write(&d, "x.svm", "1 18446744073709551615:1\n-1 1:1\n");
    fails(&d, &["info", "--data", s(&data)], "index");
}

#[test]
fn libsvm_index_2_pow_40_is_read_sparse() {
    // Sparse storage takes any index that fits: O(nnz) memory, never a 2^40-wide dense row.
    let d = scratch("idx-2-40");
    let data = write(&d, "x.svm", "1 5:2 7:3 1099511627776:1\n-1 1:1\n");
    let j = succeeds(&["--max-memory", "1G", "info", "--data", s(&data)]);
    assert_eq!(j["d"], 1_099_511_627_776u64);
    assert_eq!(j["storage"], "sparse");
    assert_eq!(j["nnz"], 4);
}

#[test]
fn libsvm_index_1e8_in_a_tiny_file_reads_sparse_and_refuses_a_dense_copy_over_max_memory() {
    let d = scratch("idx-1e8");
    let data = write(&d, "x.svm", "1 100000000:1\n-1 1:1\n");
    let j = succeeds(&["--max-memory", "1G", "info", "--data", s(&data)]);
    assert_eq!(j["storage"], "sparse");
    // An SVM computes on the sparse store: it trains within a 1 GB budget.
    let out = d.join("m");
    let j = succeeds(&[
        "--max-memory",
        "1G",
        "train",
        "--data",
        s(&data),
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--out",
        s(&out),
    ]);
    assert_eq!(j["storage"], "sparse");
    // Kernel Fisher analysis computes on the sparse store too: it trains within the 1 GB budget (a
    // dense copy would take 2 x 1e8 values = 1.6 GB).
    let out = d.join("kfa");
    let j = succeeds(&[
        "--max-memory",
        "1G",
        "train",
        "--data",
        s(&data),
        "--model",
        "kfa",
        "--kernel",
        "linear",
        "--out",
        s(&out),
    ]);
    assert_eq!(j["storage"], "sparse");
}

#[test]
fn csv_bom_is_stripped() {
    let d = scratch("bom");
    let data = write(&d, "x.csv", "\u{feff}label,x\na,1\nb,2\n");
    let j = succeeds(&["info", "--data", s(&data), "--label-col", "label"]);
    assert_eq!(j["n"], 2);
}

#[test]
fn predict_csv_with_fewer_columns_is_an_error() {
    let d = scratch("csv-fewer");
    let train_data = write(&d, "t.csv", "x,y,label\n0,0,a\n1,1,b\n0,1,a\n1,0,b\n");
    let m = train(&d, &train_data, &["--model", "svc", "--kernel", "linear"]);
    let test = write(&d, "p.csv", "x,label\n0,a\n1,b\n");
    fails(&d, &["predict", "--model", s(&m), "--data", s(&test)], "feature");
}

#[test]
fn libsvm_zero_index_is_an_error() {
    let d = scratch("idx-zero");
    let data = write(&d, "x.svm", "1 0:1\n");
    fails(&d, &["info", "--data", s(&data)], "x.svm:1");
}

#[test]
fn libsvm_nan_value_is_an_error() {
    let d = scratch("nan");
    let data = write(&d, "x.svm", "1 1:nan\n-1 1:1\n");
    fails(&d, &["info", "--data", s(&data)], "nan");
}

#[test]
fn libsvm_garbage_is_an_error() {
    let d = scratch("garbage");
    let data = write(&d, "x.svm", [0u8, 159, 146, 150, 10, 255, 1, 2]);
    fails(&d, &["info", "--data", s(&data)], "x.svm");
}

#[test]
fn empty_data_file_is_an_error() {
    let d = scratch("empty");
    let data = write(&d, "x.svm", "");
    fails(&d, &["info", "--data", s(&data)], "empty");
}

#[test]
fn missing_data_file_is_an_error() {
    let d = scratch("missing");
    fails(&d, &["info", "--data", s(&d.join("nope.svm"))], "nope.svm");
}

#[test]
fn ragged_csv_is_an_error() {
    let d = scratch("ragged");
    let data = write(&d, "x.csv", "x,y,label\n1,2,a\n3,b\n");
    fails(&d, &["info", "--data", s(&data)], "x.csv");
}

// ---------------------------------------------------------------- kernel specs

#[test]
fn kernel_spec_with_10000_parentheses_is_an_error() {
    let d = scratch("deep-spec");
    let data = write(&d, "x.svm", two_class(20, 2));
    let spec = format!("{}linear{}", "(".repeat(10_000), ")".repeat(10_000));
    let out = d.join("m.kern");
    fails(
        &d,
        &["train", "--model", "svc", "--data", s(&data), "--kernel", &spec, "--out", s(&out)],
        "nested deeper than 64",
    );
}

#[test]
fn kernel_spec_65_levels_is_an_error_64_is_fine() {
    let d = scratch("spec-65");
    let data = write(&d, "x.svm", two_class(20, 2));
    let spec = format!("{}linear{}", "(".repeat(65), ")".repeat(65));
    fails(&d, &["gram", "--data", s(&data), "--kernel", &spec], "64");
    let ok = format!("{}linear{}", "(".repeat(64), ")".repeat(64));
    succeeds(&["gram", "--data", s(&data), "--kernel", &ok]);
}

#[test]
fn kernel_spec_with_a_100_term_sum_is_an_error() {
    let d = scratch("spec-sum");
    let data = write(&d, "x.svm", two_class(20, 2));
    let spec = vec!["linear"; 100].join("+");
    fails(&d, &["gram", "--data", s(&data), "--kernel", &spec], "more than 64 kernels");
}

#[test]
fn unknown_kernel_name_is_an_error() {
    let d = scratch("spec-unknown");
    let data = write(&d, "x.svm", two_class(20, 2));
    fails(&d, &["gram", "--data", s(&data), "--kernel", "gausian:sigma=1"], "kernel");
}

#[test]
fn negative_bandwidth_is_an_error() {
    let d = scratch("spec-neg");
    let data = write(&d, "x.svm", two_class(20, 2));
    fails(&d, &["gram", "--data", s(&data), "--kernel", "gaussian:sigma=-1"], "sigma");
}

#[test]
fn a_number_alone_is_not_a_kernel() {
    let d = scratch("spec-number");
    let data = write(&d, "x.svm", two_class(20, 2));
    fails(&d, &["gram", "--data", s(&data), "--kernel", "3"], "number alone");
}

#[test]
fn model_file_with_a_deeply_nested_spec_is_an_error() {
    let d = scratch("model-deep-spec");
    let data = write(&d, "x.svm", regression(20, 2));
    let m = train(&d, &data, &["--model", "svr", "--kernel", "linear"]);
    let bytes = std::fs::read(&m).unwrap();
    let payload = &bytes[40..];
    // The spec is the first field: a one-byte length (6) then "linear".
    assert_eq!(&payload[..7], b"\x06linear");
    let deep = format!("{}linear{}", "(".repeat(10_000), ")".repeat(10_000));
    let mut p = vec![251u8];
    p.extend_from_slice(&(deep.len() as u16).to_le_bytes());
    p.extend_from_slice(deep.as_bytes());
    p.extend_from_slice(&payload[7..]);
    std::fs::write(&m, with_payload(&bytes, &p)).unwrap();
    fails(&d, &["predict", "--model", s(&m), "--data", s(&data)], "nested deeper than 64");
}

// ---------------------------------------------------------------- model files

#[test]
fn svc_model_with_an_out_of_range_support_vector_index_is_an_error() {
    let d = scratch("model-sv-index");
    // Two points, both support vectors: machine indices [0, 1] then two coefficients.
    let data = write(&d, "x.svm", "1 1:1\n-1 1:-1\n");
    let m = train(&d, &data, &["--model", "svc", "--kernel", "linear"]);
    let bytes = std::fs::read(&m).unwrap();
    let mut p = bytes[40..].to_vec();
    let at = find_once(&p, &[2, 0, 1, 2]);
    p[at + 2] = 100; // support vector 100 of 2
    std::fs::write(&m, with_payload(&bytes, &p)).unwrap();
    fails(&d, &["predict", "--model", s(&m), "--data", s(&data)], "out of range");
}

#[test]
fn svc_model_with_a_class_index_out_of_range_is_an_error() {
    let d = scratch("model-class-index");
    let data = write(&d, "x.svm", "1 1:1\n-1 1:-1\n");
    let m = train(&d, &data, &["--model", "svc", "--kernel", "linear"]);
    let bytes = std::fs::read(&m).unwrap();
    let mut p = bytes[40..].to_vec();
    // Machine: pos = 1, neg = Some(0), then the index list [0, 1].
    let at = find_once(&p, &[1, 1, 0, 2, 0, 1, 2]);
    p[at] = 7;
    std::fs::write(&m, with_payload(&bytes, &p)).unwrap();
    fails(&d, &["predict", "--model", s(&m), "--data", s(&data)], "out of range");
}

#[test]
fn svr_model_with_a_nan_parameter_is_an_error() {
    let d = scratch("model-nan");
    let data = write(&d, "x.svm", regression(20, 2));
    let m = train(&d, &data, &["--model", "svr", "--kernel", "linear", "--epsilon-tube", "0.123456789"]);
    let bytes = std::fs::read(&m).unwrap();
    let mut p = bytes[40..].to_vec();
    let at = find_once(&p, &0.123456789f64.to_le_bytes());
    p[at..at + 8].copy_from_slice(&f64::NAN.to_le_bytes());
    std::fs::write(&m, with_payload(&bytes, &p)).unwrap();
    fails(&d, &["predict", "--model", s(&m), "--data", s(&data)], "not finite");
}

#[test]
fn krr_model_with_a_nan_lambda_is_an_error() {
    let d = scratch("model-krr-nan");
    let data = write(&d, "x.svm", regression(20, 2));
    let m = train(&d, &data, &["--model", "krr", "--kernel", "gaussian:sigma=1", "--lambda", "0.123456789"]);
    let bytes = std::fs::read(&m).unwrap();
    let mut p = bytes[40..].to_vec();
    let at = find_once(&p, &0.123456789f64.to_le_bytes());
    p[at..at + 8].copy_from_slice(&f64::INFINITY.to_le_bytes());
    std::fs::write(&m, with_payload(&bytes, &p)).unwrap();
    fails(&d, &["predict", "--model", s(&m), "--data", s(&data)], "lambda");
}

#[test]
fn lssvm_model_relabelled_as_krr_is_an_error() {
    let d = scratch("model-relabel");
    let data = write(&d, "x.svm", regression(30, 2));
    let m = train(
        &d,
        &data,
        &["--model", "lssvm", "--regression", "--kernel", "gaussian:sigma=1", "--lambda", "10"],
    );
    let mut bytes = std::fs::read(&m).unwrap();
    bytes[12..24].copy_from_slice(b"krr\0\0\0\0\0\0\0\0\0");
    std::fs::write(&m, &bytes).unwrap();
    fails(&d, &["predict", "--model", s(&m), "--data", s(&data)], "intercept");
}

#[test]
fn lssvm_classifier_relabelled_as_krr_is_an_error() {
    let d = scratch("model-relabel-class");
    let data = write(&d, "x.svm", two_class(30, 2));
    let m = train(&d, &data, &["--model", "lssvm", "--kernel", "gaussian:sigma=1", "--lambda", "10"]);
    let mut bytes = std::fs::read(&m).unwrap();
    bytes[12..24].copy_from_slice(b"krr\0\0\0\0\0\0\0\0\0");
    std::fs::write(&m, &bytes).unwrap();
    fails(&d, &["predict", "--model", s(&m), "--data", s(&data)], "classifies");
}

#[test]
fn svc_model_relabelled_as_svr_is_an_error() {
    let d = scratch("model-relabel-svr");
    let data = write(&d, "x.svm", two_class(30, 2));
    let m = train(&d, &data, &["--model", "svc", "--kernel", "linear"]);
    let mut bytes = std::fs::read(&m).unwrap();
    bytes[12..24].copy_from_slice(b"svr\0\0\0\0\0\0\0\0\0");
    std::fs::write(&m, &bytes).unwrap();
    fails(&d, &["predict", "--model", s(&m), "--data", s(&data)], "not a valid kern model");
}

#[test]
fn truncated_model_is_an_error() {
    let d = scratch("model-truncated");
    let data = write(&d, "x.svm", two_class(30, 2));
    let m = train(&d, &data, &["--model", "svc", "--kernel", "linear"]);
    let bytes = std::fs::read(&m).unwrap();
    std::fs::write(&m, &bytes[..bytes.len() - 3]).unwrap();
    fails(&d, &["predict", "--model", s(&m), "--data", s(&data)], "truncated");
}

#[test]
fn bit_flipped_model_is_an_error() {
    let d = scratch("model-flip");
    let data = write(&d, "x.svm", two_class(30, 2));
    let m = train(&d, &data, &["--model", "svc", "--kernel", "linear"]);
    let mut bytes = std::fs::read(&m).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x10;
    std::fs::write(&m, &bytes).unwrap();
    fails(&d, &["predict", "--model", s(&m), "--data", s(&data)], "checksum");
}

#[test]
fn data_file_passed_as_model_is_an_error() {
    let d = scratch("model-magic");
    let data = write(&d, "x.svm", two_class(30, 2));
    fails(&d, &["predict", "--model", s(&data), "--data", s(&data)], "magic");
}

#[test]
fn empty_model_file_is_an_error() {
    let d = scratch("model-empty");
    let data = write(&d, "x.svm", two_class(30, 2));
    let m = write(&d, "m.kern", "");
    fails(&d, &["predict", "--model", s(&m), "--data", s(&data)], "header");
}

#[test]
fn model_path_that_is_a_directory_is_an_error() {
    let d = scratch("model-dir");
    let data = write(&d, "x.svm", two_class(30, 2));
    fails(&d, &["predict", "--model", s(&d), "--data", s(&data)], "kern: error");
}

#[test]
fn predict_on_data_with_extra_nonzero_features_follows_libsvm() {
    // LIBSVM's rule: the support vectors are zero in the unseen feature (tested against LIBSVM's
    // formula in predict_unseen.rs); here: no error, and the model file is left unchanged.
    let d = scratch("predict-dim");
    let data = write(&d, "x.svm", two_class(30, 2));
    let m = train(&d, &data, &["--model", "svc", "--kernel", "linear"]);
    let before = std::fs::read(&m).unwrap();
    let wide = write(&d, "w.svm", "1 1:1 2:1 3:5\n");
    let j = succeeds(&["predict", "--model", s(&m), "--data", s(&wide)]);
    assert_eq!(j["n"], 1);
    assert_eq!(std::fs::read(&m).unwrap(), before);
}

// ---------------------------------------------------------------- grids

fn cv_fails(name: &str, grid: &str, needle: &str) {
    let d = scratch(name);
    let data = write(&d, "x.svm", two_class(20, 2));
    let args = ["cv", "--model", "svc", "--data", s(&data), "--kernel", "gaussian:sigma=1", "--grid", grid];
    fails(&d, &args, needle);
}

#[test]
fn grid_point_count_of_u64_max_is_an_error() {
    cv_fails("grid-u64", "c=1..2:18446744073709551615", "maximum");
}

#[test]
fn grid_point_count_beyond_u64_is_an_error() {
    cv_fails("grid-u64-plus", "c=1..2:18446744073709551616", "point count");
}

#[test]
fn grid_of_1e6_by_1e6_cells_is_an_error() {
    // An axis of a million points is refused on its own; two of 10^4 make 10^8 cells, also refused.
    cv_fails("grid-1e12", "c=1..2:1000000,sigma=1..2:1000000", "per axis");
    cv_fails("grid-1e8", "c=1..2:10000,sigma=1..2:10000", "cells");
}

#[test]
fn grid_whose_cell_count_overflows_is_an_error() {
    // 10^20 cells: more than a 64-bit count holds.
    let axes = "c=1..2:10000,sigma=1..2:10000,lambda=1..2:10000,epsilon=1..2:10000,nu=1..2:10000";
    cv_fails("grid-wrap", axes, "overflow");
}

#[test]
fn grid_of_1e6_cells_needs_max_cells() {
    cv_fails("grid-1e6", "c=1..2:1000,sigma=1..2:1000", "--max-cells");
}

#[test]
fn grid_point_count_zero_is_an_error() {
    cv_fails("grid-zero", "c=1..2:0", "at least 1");
}

#[test]
fn grid_negative_point_count_is_an_error() {
    cv_fails("grid-negative", "c=1..2:-3", "point count");
}

#[test]
fn empty_grid_is_an_error() {
    cv_fails("grid-empty", "", "empty grid");
}

#[test]
fn grid_with_an_axis_twice_is_an_error() {
    cv_fails("grid-twice", "c=1,c=2", "twice");
}

#[test]
fn grid_with_a_nan_value_is_an_error() {
    cv_fails("grid-nan", "c=[1,nan]", "non-finite");
}

#[test]
fn cv_with_zero_folds_is_an_error() {
    let d = scratch("cv-folds-0");
    let data = write(&d, "x.svm", two_class(20, 2));
    let args =
        ["cv", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--grid", "c=1", "--folds", "0"];
    fails(&d, &args, "fold");
}

#[test]
fn cv_with_more_folds_than_samples_is_an_error() {
    let d = scratch("cv-folds-many");
    let data = write(&d, "x.svm", two_class(20, 2));
    let args =
        ["cv", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--grid", "c=1", "--folds", "50"];
    fails(&d, &args, "fold");
}

// ---------------------------------------------------------------- tune

#[test]
fn tune_support_with_zero_random_pairs_is_an_error() {
    let d = scratch("tune-pairs-0");
    let data = write(&d, "x.svm", two_class(40, 2));
    let args = [
        "tune",
        "support",
        "--data",
        s(&data),
        "--base",
        "gaussian:sigma=1",
        "--gamma",
        "0.5",
        "--random-pairs",
        "0",
    ];
    fails(&d, &args, "random-pairs");
}

#[test]
fn tune_support_with_a_subsample_of_one_is_an_error() {
    let d = scratch("tune-subsample-1");
    let data = write(&d, "x.svm", two_class(40, 2));
    let args = [
        "tune",
        "support",
        "--data",
        s(&data),
        "--base",
        "gaussian:sigma=1",
        "--gamma",
        "0.5",
        "--subsample",
        "1",
    ];
    fails(&d, &args, "subsample");
}

#[test]
fn tune_bandwidth_with_zero_max_points_is_an_error() {
    let d = scratch("tune-max-points-0");
    let data = write(&d, "x.svm", two_class(40, 2));
    fails(
        &d,
        &["tune", "bandwidth", "--data", s(&data), "--method", "mean-to-half", "--max-points", "0"],
        "max-points",
    );
}

#[test]
fn tune_bandwidth_with_one_max_point_is_an_error() {
    let d = scratch("tune-max-points-1");
    let data = write(&d, "x.svm", two_class(40, 2));
    fails(
        &d,
        &["tune", "bandwidth", "--data", s(&data), "--method", "mean-to-half", "--max-points", "1"],
        "max-points",
    );
}

// ---------------------------------------------------------------- numerical faults and labels

const OVERFLOW: &str = "poly:degree=64,scale=1e10";

#[test]
fn train_svc_with_overflowing_kernel_values_is_an_error() {
    let d = scratch("num-svc");
    let data = write(&d, "x.svm", two_class(20, 2));
    let out = d.join("m.kern");
    fails(
        &d,
        &["train", "--model", "svc", "--data", s(&data), "--kernel", OVERFLOW, "--out", s(&out)],
        "not finite",
    );
}

#[test]
fn train_svr_with_overflowing_kernel_values_is_an_error() {
    let d = scratch("num-svr");
    let data = write(&d, "x.svm", regression(20, 2));
    let out = d.join("m.kern");
    fails(
        &d,
        &["train", "--model", "svr", "--data", s(&data), "--kernel", OVERFLOW, "--out", s(&out)],
        "not finite",
    );
}

#[test]
fn cv_with_overflowing_kernel_values_is_an_error() {
    let d = scratch("num-cv");
    let data = write(&d, "x.svm", two_class(20, 2));
    let args = ["cv", "--model", "svc", "--data", s(&data), "--kernel", OVERFLOW, "--grid", "c=[1,10]"];
    fails(&d, &args, "not finite");
}

#[test]
fn gram_with_overflowing_kernel_values_is_an_error() {
    let d = scratch("num-gram");
    let data = write(&d, "x.svm", two_class(20, 2));
    fails(&d, &["gram", "--data", s(&data), "--kernel", OVERFLOW], "not finite");
}

#[test]
fn train_krr_with_overflowing_kernel_values_is_an_error() {
    let d = scratch("num-krr");
    let data = write(&d, "x.svm", regression(20, 2));
    let out = d.join("m.kern");
    fails(
        &d,
        &[
            "train",
            "--model",
            "krr",
            "--data",
            s(&data),
            "--kernel",
            OVERFLOW,
            "--lambda",
            "1",
            "--out",
            s(&out),
        ],
        "kern: error",
    );
}

#[test]
fn svc_on_real_valued_labels_is_refused_with_a_hint() {
    let d = scratch("svc-real");
    let data = write(&d, "x.svm", regression(40, 2));
    let out = d.join("m.kern");
    fails(
        &d,
        &["train", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--out", s(&out)],
        "--model svr",
    );
}

/// 101 integer classes, two points each.
fn many_classes() -> String {
    (0..202).map(|i| format!("{} 1:{}\n", i / 2, i)).collect()
}

#[test]
fn svc_with_too_many_classes_is_refused_with_a_hint() {
    let d = scratch("svc-many");
    let data = write(&d, "x.svm", many_classes());
    let out = d.join("m.kern");
    fails(
        &d,
        &["train", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--out", s(&out)],
        "--allow-many-classes",
    );
}

#[test]
fn cv_svc_on_real_valued_labels_is_refused() {
    let d = scratch("cv-svc-real");
    let data = write(&d, "x.svm", regression(40, 2));
    let args = ["cv", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--grid", "c=1"];
    fails(&d, &args, "--model svr");
}

#[test]
fn svc_with_many_classes_allowed_trains() {
    let d = scratch("svc-many-allowed");
    let data = write(&d, "x.svm", many_classes());
    let out = d.join("m.kern");
    let args = [
        "train",
        "--model",
        "svc",
        "--multiclass",
        "ovr",
        "--data",
        s(&data),
        "--kernel",
        "linear",
        "--out",
        s(&out),
        "--allow-many-classes",
    ];
    let j = succeeds(&args);
    assert_eq!(j["classes"].as_array().unwrap().len(), 101);
}

#[test]
fn labels_zero_and_negative_zero_are_one_class_named_zero() {
    let d = scratch("neg-zero");
    let data = write(&d, "x.svm", "0 1:0\n-0 1:0.1\n1 1:5\n1 1:5.1\n");
    let out = d.join("m.kern");
    let j =
        succeeds(&["train", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--out", s(&out)]);
    assert_eq!(j["classes"], serde_json::json!(["0", "1"]));
}

#[test]
fn threads_zero_is_an_error() {
    let d = scratch("threads-0");
    let data = write(&d, "x.svm", two_class(20, 2));
    fails(&d, &["gram", "--data", s(&data), "--kernel", "linear", "--threads", "0"], "threads");
}

#[test]
fn negative_krr_lambda_is_an_error() {
    let d = scratch("krr-lambda");
    let data = write(&d, "x.svm", regression(20, 2));
    let out = d.join("m.kern");
    fails(
        &d,
        &[
            "train",
            "--model",
            "krr",
            "--data",
            s(&data),
            "--kernel",
            "linear",
            "--lambda=-1",
            "--out",
            s(&out),
        ],
        "lambda",
    );
}

#[test]
fn nan_svc_c_is_an_error() {
    let d = scratch("svc-c");
    let data = write(&d, "x.svm", two_class(20, 2));
    let out = d.join("m.kern");
    fails(
        &d,
        &[
            "train",
            "--model",
            "svc",
            "--data",
            s(&data),
            "--kernel",
            "linear",
            "--c",
            "NaN",
            "--out",
            s(&out),
        ],
        "c",
    );
}

#[test]
fn negative_svr_tube_is_an_error() {
    let d = scratch("svr-eps");
    let data = write(&d, "x.svm", regression(20, 2));
    let out = d.join("m.kern");
    fails(
        &d,
        &[
            "train",
            "--model",
            "svr",
            "--data",
            s(&data),
            "--kernel",
            "linear",
            "--epsilon-tube=-1",
            "--out",
            s(&out),
        ],
        "epsilon",
    );
}

// ---------------------------------------------------------------- files

#[test]
fn train_out_equal_to_data_is_refused() {
    let d = scratch("out-data");
    let data = write(&d, "x.svm", two_class(20, 2));
    fails(
        &d,
        &["train", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--out", s(&data)],
        "refusing",
    );
}

#[test]
fn train_out_equal_to_data_through_another_spelling_is_refused() {
    let d = scratch("out-data-spelling");
    let data = write(&d, "x.svm", two_class(20, 2));
    let other = d.join(".").join("x.svm");
    fails(
        &d,
        &["train", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--out", s(&other)],
        "refusing",
    );
}

#[cfg(unix)]
#[test]
fn train_out_equal_to_data_through_a_symlink_is_refused() {
    let d = scratch("out-data-link");
    let data = write(&d, "x.svm", two_class(20, 2));
    let link = d.join("link.kern");
    std::os::unix::fs::symlink("x.svm", &link).unwrap();
    fails(
        &d,
        &["train", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--out", s(&link)],
        "refusing",
    );
}

#[test]
fn predict_out_equal_to_data_is_refused() {
    let d = scratch("predict-out-data");
    let data = write(&d, "x.svm", two_class(20, 2));
    let m = train(&d, &data, &["--model", "svc", "--kernel", "linear"]);
    fails(&d, &["predict", "--model", s(&m), "--data", s(&data), "--out", s(&data)], "refusing");
}

#[test]
fn predict_out_equal_to_model_is_refused() {
    let d = scratch("predict-out-model");
    let data = write(&d, "x.svm", two_class(20, 2));
    let m = train(&d, &data, &["--model", "svc", "--kernel", "linear"]);
    fails(&d, &["predict", "--model", s(&m), "--data", s(&data), "--out", s(&m)], "refusing");
}

#[test]
fn kpca_save_equal_to_data_is_refused() {
    let d = scratch("kpca-save-data");
    let data = write(&d, "x.svm", two_class(20, 2));
    fails(&d, &["kpca", "--data", s(&data), "--kernel", "gaussian:sigma=1", "--save", s(&data)], "refusing");
}

#[test]
fn train_out_into_a_missing_directory_leaves_nothing() {
    let d = scratch("out-missing-dir");
    let data = write(&d, "x.svm", two_class(20, 2));
    let out = d.join("no/such/dir/m.kern");
    fails(
        &d,
        &["train", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--out", s(&out)],
        "m.kern",
    );
}

#[test]
fn train_out_that_is_a_directory_leaves_nothing() {
    let d = scratch("out-is-dir");
    let data = write(&d, "x.svm", two_class(20, 2));
    let sub = d.join("sub");
    std::fs::create_dir(&sub).unwrap();
    fails(
        &d,
        &["train", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--out", s(&sub)],
        "directory",
    );
    assert_eq!(std::fs::read_dir(&sub).unwrap().count(), 0);
}

#[cfg(unix)]
#[test]
fn train_out_to_dev_full_is_an_error_and_the_device_stays() {
    use std::os::unix::fs::FileTypeExt;
    let full = Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    let d = scratch("out-dev-full");
    let data = write(&d, "x.svm", two_class(20, 2));
    fails(
        &d,
        &["train", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--out", "/dev/full"],
        "/dev/full",
    );
    assert!(std::fs::metadata(full).unwrap().file_type().is_char_device());
}

#[cfg(unix)]
#[test]
fn train_out_to_dev_null_writes_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let d = scratch("out-dev-null");
    let data = write(&d, "x.svm", two_class(20, 2));
    let before = snapshot(&d);
    succeeds(&["train", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--out", "/dev/null"]);
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    assert_eq!(snapshot(&d), before);
}

#[cfg(unix)]
#[test]
fn predict_out_to_dev_stdout_writes_to_stdout() {
    let d = scratch("out-dev-stdout");
    let data = write(&d, "x.svm", two_class(20, 2));
    let m = train(&d, &data, &["--model", "svc", "--kernel", "linear"]);
    let out = output(&["predict", "--model", s(&m), "--data", s(&data), "--out", "/dev/stdout"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    // 20 prediction lines, then the JSON summary.
    assert_eq!(stdout.lines().count(), 21, "{stdout}");
}

#[cfg(unix)]
#[test]
fn train_out_to_a_fifo_writes_in_place() {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    let d = scratch("out-fifo");
    let data = write(&d, "x.svm", two_class(20, 2));
    let fifo = d.join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return; // no mkfifo here
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut v = Vec::new();
            std::fs::File::open(&fifo).unwrap().read_to_end(&mut v).unwrap();
            v
        })
    };
    succeeds(&["train", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--out", s(&fifo)]);
    let got = reader.join().unwrap();
    assert_eq!(&got[..8], b"KERNMODL");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

#[cfg(unix)]
#[test]
fn train_out_through_a_symlink_replaces_the_target_and_keeps_the_link() {
    let d = scratch("out-symlink");
    let data = write(&d, "x.svm", two_class(20, 2));
    let target = write(&d, "real.kern", "old");
    let link = d.join("link.kern");
    std::os::unix::fs::symlink("real.kern", &link).unwrap();
    succeeds(&["train", "--model", "svc", "--data", s(&data), "--kernel", "linear", "--out", s(&link)]);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(&std::fs::read(&target).unwrap()[..8], b"KERNMODL");
    let names: Vec<String> = snapshot(&d).into_keys().collect();
    assert_eq!(names, vec!["link.kern", "real.kern", "x.svm"]);
}

#[test]
fn stale_temporary_files_of_dead_processes_are_removed() {
    let d = scratch("stale-temp");
    let data = write(&d, "x.svm", two_class(20, 2));
    // 4194304 is above Linux's largest pid: that process is certainly gone.
    write(&d, ".m.kern.tmp4194304", "half a model");
    let m = train(&d, &data, &["--model", "svc", "--kernel", "linear"]);
    let names: Vec<String> = snapshot(&d).into_keys().collect();
    if Path::new("/proc/self").exists() {
        assert_eq!(names, vec!["m.kern", "x.svm"]);
    }
    assert!(m.exists());
}
