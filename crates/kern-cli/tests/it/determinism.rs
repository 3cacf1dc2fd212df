//! Same answer at any thread count: every model kind saved by `kern` is byte-identical when trained
//! with 1, 2 and 8 worker threads.

use crate::common::{output, scratch};
use std::path::{Path, PathBuf};

/// `n` rows in `d` dimensions; labels two classes or a smooth real function of the features.
fn data(dir: &Path, n: usize, d: usize, real: bool) -> PathBuf {
    let mut s = String::new();
    let mut state = 0x9e3779b97f4a7c15u64;
    for i in 0..n {
        let x: Vec<f64> = (0..d)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (state >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect();
        let y = if real {
            format!("{:.6}", x.iter().map(|v| v.sin()).sum::<f64>())
        } else if x[0] + x[1] + 0.1 * (i % 3) as f64 > 1.0 {
            "1".into()
        } else {
            "-1".into()
        };
        s.push_str(&y);
        for (j, v) in x.iter().enumerate() {
            s.push_str(&format!(" {}:{v:.6}", j + 1));
        }
        s.push('\n');
    }
    let p = dir.join(if real { "real.svm" } else { "class.svm" });
    std::fs::write(&p, s).unwrap();
    p
}

/// The saved model's bytes after `kern <args> --threads T <out_flag> FILE`.
fn saved(dir: &Path, args: &[&str], out_flag: &str, threads: usize) -> Vec<u8> {
    let out = dir.join(format!("m{threads}.kern"));
    let t = threads.to_string();
    let mut all: Vec<&str> = args.to_vec();
    all.extend_from_slice(&["--threads", &t, out_flag, out.to_str().unwrap()]);
    let o = output(&all);
    assert!(o.status.success(), "{all:?}: {}", String::from_utf8_lossy(&o.stderr));
    std::fs::read(&out).unwrap()
}

fn same_at_any_thread_count(name: &str, args: &[&str], out_flag: &str) {
    let dir = scratch(name);
    let real = args.contains(&"krr") || args.contains(&"svr") || args.contains(&"--regression");
    let d = data(&dir, 400, 5, real);
    let mut full: Vec<&str> = args.to_vec();
    full.extend_from_slice(&["--data", d.to_str().unwrap()]);
    let one = saved(&dir, &full, out_flag, 1);
    for t in [2, 8] {
        assert!(
            one == saved(&dir, &full, out_flag, t),
            "{name}: model bytes differ between 1 and {t} threads"
        );
    }
}

#[test]
fn svc_is_byte_identical_at_1_2_and_8_threads() {
    same_at_any_thread_count("svc", &["train", "--model", "svc", "--kernel", "gaussian:sigma=0.5"], "--out");
}

#[test]
fn svr_is_byte_identical_at_1_2_and_8_threads() {
    same_at_any_thread_count("svr", &["train", "--model", "svr", "--kernel", "gaussian:sigma=0.5"], "--out");
}

#[test]
fn lssvm_is_byte_identical_at_1_2_and_8_threads() {
    same_at_any_thread_count(
        "lssvm",
        &["train", "--model", "lssvm", "--kernel", "gaussian:sigma=0.5"],
        "--out",
    );
}

#[test]
fn lssvm_sparse_is_byte_identical_at_1_2_and_8_threads() {
    let args =
        ["train", "--model", "lssvm", "--kernel", "cs-gaussian:sigma=0.5,c=0.6,nu=3", "--path", "sparse"];
    same_at_any_thread_count("lssvm-sparse", &args, "--out");
}

#[test]
fn krr_is_byte_identical_at_1_2_and_8_threads() {
    same_at_any_thread_count("krr", &["train", "--model", "krr", "--kernel", "gaussian:sigma=0.5"], "--out");
}

#[test]
fn kfa_is_byte_identical_at_1_2_and_8_threads() {
    let args = ["train", "--model", "kfa", "--kernel", "gaussian:sigma=0.5", "--max-fv", "40"];
    same_at_any_thread_count("kfa", &args, "--out");
}

#[test]
fn kpca_dense_is_byte_identical_at_1_2_and_8_threads() {
    let args = ["kpca", "--kernel", "gaussian:sigma=0.5", "--components", "5", "--solver", "dense"];
    same_at_any_thread_count("kpca-dense", &args, "--save");
}

#[test]
fn kpca_krylov_is_byte_identical_at_1_2_and_8_threads() {
    let args = ["kpca", "--kernel", "gaussian:sigma=0.5", "--components", "5", "--solver", "krylov"];
    same_at_any_thread_count("kpca-krylov", &args, "--save");
}
