//! LIBSVM compatibility of the command line: `kern train --format libsvm`, `kern export --libsvm`,
//! `kern predict` on LIBSVM model files and with `--values`, and `-` for standard input and output.

use crate::common::{kern, kern_io, s, scratch};
use std::path::Path;

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../kern-models/tests/fixtures/libsvm")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn predicts_with_a_model_written_by_libsvm() {
    let (model, test) = (fixture("csvc_rbf_3class_prob.model"), fixture("test.txt"));
    let predict = |values: &str| {
        kern_io(&["predict", "--model", &model, "--data", &test, "--out", "-", "--values", values], None)
    };
    let (ok, _, stdout, err) = predict("decision");
    assert!(ok, "{err}");
    let j: serde_json::Value = serde_json::from_str(err.lines().last().unwrap()).unwrap();
    assert_eq!(j["model"], "libsvm");
    assert_eq!(j["schema"], 1);
    let lines: Vec<&str> = stdout.lines().collect();
    let expected: Vec<String> = std::fs::read_to_string(fixture("csvc_rbf_3class_prob.expected"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), expected.len(), "one line per sample, the JSON on stderr");
    for (ours, want) in lines.iter().zip(&expected) {
        let want: Vec<f64> =
            want.split('|').next().unwrap().split_whitespace().skip(1).map(|t| t.parse().unwrap()).collect();
        let ours: Vec<f64> = ours.split_whitespace().map(|t| t.parse().unwrap()).collect();
        assert_eq!(ours.len(), 3);
        for (a, b) in ours.iter().zip(&want) {
            assert!((a - b).abs() <= 1e-12, "{a} vs {b}");
        }
    }
    let (ok, _, stdout, err) = predict("probability");
    assert!(ok, "{err}");
    assert!(stdout.starts_with("labels 3 1 2\n"), "{stdout}");
}

#[test]
fn train_format_libsvm_and_export_give_the_same_file() {
    let d = scratch("export");
    let (kmodel, lmodel, exported) = (d.join("m.kern"), d.join("m.libsvm"), d.join("e.libsvm"));
    let train = fixture("train.txt");
    let base = ["train", "--model", "svc", "--kernel", "gaussian:beta=0.7", "--c", "4", "--data", &train];
    let (ok, _, err) = kern(&[&base[..], &["--out", s(&kmodel)]].concat());
    assert!(ok, "{err}");
    let (ok, _, err) = kern(&[&base[..], &["--out", s(&lmodel), "--format", "libsvm"]].concat());
    assert!(ok, "{err}");
    let (ok, j, err) = kern(&["export", "--libsvm", s(&kmodel), s(&exported)]);
    assert!(ok, "{err}");
    assert_eq!(j["svm_type"], "c_svc");
    let text = std::fs::read_to_string(&lmodel).unwrap();
    assert_eq!(text, std::fs::read_to_string(&exported).unwrap());
    assert!(
        text.starts_with("svm_type c_svc\nkernel_type rbf\ngamma 0.69999999999999996\nnr_class 3\n"),
        "{text}"
    );
    // kern predicts the same from its own file and from the LIBSVM file.
    let test = fixture("test.txt");
    let (o1, o2) = (d.join("p1.txt"), d.join("p2.txt"));
    let (ok, j1, err) =
        kern(&["predict", "--model", s(&kmodel), "--data", &test, "--out", s(&o1), "--values", "decision"]);
    assert!(ok, "{err}");
    let (ok, j2, err) =
        kern(&["predict", "--model", s(&lmodel), "--data", &test, "--out", s(&o2), "--values", "decision"]);
    assert!(ok, "{err}");
    assert_eq!(j1["accuracy"], j2["accuracy"]);
    let read = |p: &Path| -> Vec<f64> {
        std::fs::read_to_string(p).unwrap().split_whitespace().map(|t| t.parse().unwrap()).collect()
    };
    let (a, b) = (read(&o1), read(&o2));
    assert_eq!(a.len(), b.len());
    assert!(a.iter().zip(&b).all(|(u, v)| (u - v).abs() <= 1e-12));
}

#[test]
fn libsvm_format_refuses_what_libsvm_cannot_hold_before_training() {
    let d = scratch("refuse");
    let train = fixture("train.txt");
    let out = d.join("m");
    for (args, why) in [
        (vec!["--model", "svc", "--kernel", "cs-gaussian:sigma=1,c=2"], "compactly supported"),
        (vec!["--model", "krr", "--kernel", "linear"], "LIBSVM holds support vector machines"),
        (vec!["--model", "svc", "--kernel", "linear", "--multiclass", "ovr"], "one-vs-one"),
    ] {
        let (ok, _, err) =
            kern(&[&["train", "--data", &train, "--out", s(&out), "--format", "libsvm"][..], &args].concat());
        assert!(!ok && err.contains(why), "{args:?}: {err}");
        assert!(!out.exists());
    }
}

#[test]
fn dash_means_standard_input_and_output() {
    let train = std::fs::read(fixture("bin_train.txt")).unwrap();
    let d = scratch("dash");
    let model = d.join("m.kern");
    let (ok, _, _, err) = kern_io(
        &["train", "--model", "svc", "--kernel", "linear", "--data", "-", "--out", s(&model)],
        Some(&train),
    );
    assert!(ok, "{err}");
    let test = std::fs::read(fixture("bin_test.txt")).unwrap();
    let (ok, _, stdout, err) =
        kern_io(&["predict", "--model", s(&model), "--data", "-", "--out", "-"], Some(&test));
    assert!(ok, "{err}");
    let n = test.iter().filter(|&&b| b == b'\n').count();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), n, "{stdout}");
    assert!(lines.iter().all(|l| *l == "1" || *l == "-1"), "{stdout}");
    let j: serde_json::Value = serde_json::from_str(err.lines().last().unwrap()).unwrap();
    assert_eq!(j["n"], n);
    assert!(!d.join("-").exists(), "no file named '-'");
    // A LIBSVM model straight to standard output.
    let (ok, _, stdout, err) = kern_io(
        &["train", "--model", "svc", "--kernel", "linear", "--data", "-", "--out", "-", "--format", "libsvm"],
        Some(&train),
    );
    assert!(ok, "{err}");
    assert!(stdout.starts_with("svm_type c_svc\nkernel_type linear\nnr_class 2\n"), "{stdout}");
}

#[test]
fn every_summary_has_a_schema_version() {
    let (ok, j, err) = kern(&["info", "--data", &fixture("train.txt")]);
    assert!(ok, "{err}");
    assert_eq!(j["schema"], 1);
}

#[test]
fn scale_saves_and_restores_svm_scale_parameters() {
    let d = scratch("scale");
    let data = d.join("a.svm");
    std::fs::write(&data, "1 1:0 2:10 3:5\n-1 1:4 2:10 3:7\n1 1:2 2:10\n").unwrap();
    let (range, out1, out2) = (d.join("a.range"), d.join("a.scaled"), d.join("b.scaled"));
    let (ok, j, err) =
        kern(&["scale", "-l", "0", "-u", "1", "-s", s(&range), "--data", s(&data), "--out", s(&out1)]);
    assert!(ok, "{err}");
    assert_eq!(j["nonzeros_before"], 7);
    // Feature 2 is constant (dropped); feature 3's range includes the implicit zero of row 3.
    assert_eq!(std::fs::read_to_string(&range).unwrap(), "x\n0 1\n1 0 4\n3 0 7\n");
    let scaled = std::fs::read_to_string(&out1).unwrap();
    assert_eq!(scaled, format!("1 3:{}\n-1 1:1 3:1\n1 1:0.5\n", 5.0 / 7.0));
    let (ok, _, err) = kern(&["scale", "-r", s(&range), "--data", s(&data), "--out", s(&out2)]);
    assert!(ok, "{err}");
    assert_eq!(std::fs::read_to_string(&out2).unwrap(), scaled);
    // A parameter file in svm-scale's format with a target section.
    std::fs::write(&range, "y\n0 1\n-1 1\nx\n-1 1\n1 0 4\n").unwrap();
    let (ok, _, stdout, err) = kern_io(&["scale", "-r", s(&range), "--data", s(&data), "--out", "-"], None);
    assert!(ok, "{err}");
    assert!(stdout.starts_with("1 1:-1\n0 1:1\n1\n"), "{stdout}");
    let (ok, _, err) = kern(&["scale", "-l", "1", "-u", "0", "--data", s(&data), "--out", s(&out2)]);
    assert!(!ok && err.contains("lower"), "{err}");
}

/// A text-collection-like file with a million features: `-l 0` keeps it sparse (the output holds the
/// input's non-zeros, scaled); `-l -1` makes the zeros of the varying features non-zero, and only
/// those: the output stays sparse in the million features.
#[test]
fn scale_keeps_a_wide_sparse_file_sparse() {
    let d = scratch("scale-wide");
    let data = d.join("wide.svm");
    let mut text = String::new();
    for i in 0..200 {
        text += &format!(
            "{} {}:{} 999999:2 1000000:{}\n",
            if i % 2 == 0 { 1 } else { -1 },
            1 + i * 17,
            1 + i % 5,
            i % 3
        );
    }
    std::fs::write(&data, &text).unwrap();
    let out = d.join("wide.scaled");
    let (ok, j, err) = kern(&["scale", "-l", "0", "-u", "1", "--data", s(&data), "--out", s(&out)]);
    assert!(ok, "{err}");
    assert_eq!(j["d"], 1_000_000);
    // Feature 999999 is constant (dropped); 1000000 is 0, 1 or 2 (the zeros are not written).
    let nz_in = 200 + (0..200).filter(|i| i % 3 != 0).count();
    assert_eq!(j["nonzeros_before"], 200 + nz_in);
    assert_eq!(j["nonzeros_after"], nz_in);
    let first = std::fs::read_to_string(&out).unwrap().lines().nth(1).unwrap().to_string();
    assert_eq!(first, "-1 18:1 1000000:0.5");
    // Onto [-1, 1] zeros become -1, but only in the 201 varying features: 200 × 200 values for the
    // features of one row each, and 133 for feature 1000000 (its 1 maps to 0): sparse, within 100 MB.
    let (ok, j, err) = kern(&["scale", "--max-memory", "100M", "--data", s(&data), "--out", s(&out)]);
    assert!(ok, "{err}");
    assert_eq!(j["nonzeros_after"], 200 * 200 + (0..200).filter(|i| i % 3 != 1).count(), "{j}");
}

#[test]
fn csv_with_another_column_count_at_predict_time_is_an_error() {
    let d = scratch("csvdim");
    let (train, test, model) = (d.join("tr.csv"), d.join("te.csv"), d.join("m.kern"));
    std::fs::write(&train, "a,b,y\n0,0,1\n1,0.5,1\n3,3,-1\n4,3.5,-1\n").unwrap();
    std::fs::write(&test, "0,0,1,1\n").unwrap();
    let (ok, _, err) =
        kern(&["train", "--model", "svc", "--kernel", "linear", "--data", s(&train), "--out", s(&model)]);
    assert!(ok, "{err}");
    // Without a header the columns are taken by position: another count is an error.
    let (ok, _, err) = kern(&["predict", "--model", s(&model), "--data", s(&test)]);
    assert!(!ok && err.contains("4 columns, the training data had 3"), "{err}");
}
