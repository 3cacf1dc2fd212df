//! Data file round trips and a table of malformed inputs, each mapped to its error.

use kern_core::io::{CsvOptions, LabelColumn, MissingPolicy, read_csv, read_libsvm, write_libsvm};
use kern_core::{CoreError, Samples};
use proptest::prelude::*;
use std::path::PathBuf;

fn tmp(name: &str, content: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kern-core-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(32))]
    #[test]
    fn libsvm_round_trip(rows in prop::collection::vec(prop::collection::vec(
        prop_oneof![Just(0.0), -1e6f64..1e6, -1e-6f64..1e-6], 4), 1..20),
        labels in prop::collection::vec(prop_oneof![Just("1"), Just("-1"), Just("3")], 20)) {
        let x = Samples::from_rows(&rows).unwrap();
        let labels: Vec<&str> = labels[..x.n()].to_vec();
        let p = tmp(&format!("rt-{}.svm", rows.len()), "");
        write_libsvm(&p, &x, &labels).unwrap();
        let back = read_libsvm(&p, Some(4)).unwrap();
        // The reader picks the store by density (an all-zero file comes back sparse): compare values.
        prop_assert_eq!(back.samples.to_dense().unwrap(), x);
        prop_assert_eq!(back.labels, labels);
    }
}

#[test]
fn an_all_zero_file_round_trips_through_the_sparse_store() {
    let x = Samples::from_rows(&[[0.0; 4]]).unwrap();
    let p = tmp("rt-zero.svm", "");
    write_libsvm(&p, &x, &["1"]).unwrap();
    let back = read_libsvm(&p, Some(4)).unwrap();
    assert!(back.samples.is_sparse(), "density 0 reads as a sparse store");
    assert_eq!(back.samples.to_dense().unwrap(), x);
}

#[test]
fn malformed_libsvm_inputs_name_file_and_line() {
    let cases: &[(&str, usize, &str)] = &[
        ("1 1:2\nx 1:3\n", 2, "label"),
        ("1 1:2\n1 1:nan\n", 2, "not finite"),
        ("1 0:2\n", 1, "1-based"),
        ("1 2:1 1:1\n", 1, "ascend"),
        ("1 2:1 2:1\n", 1, "ascend"),
        ("# c\n\n1 1:1 oops\n", 3, "INDEX:VALUE"),
        ("1 a:1\n", 1, "positive integer"),
        ("1 1:1e400\n", 1, "not finite"),
        ("1 1:abc\n", 1, "not a number"),
    ];
    for (i, (content, line, needle)) in cases.iter().enumerate() {
        let p = tmp(&format!("bad{i}.svm"), content);
        match read_libsvm(&p, None) {
            Err(CoreError::Parse { path, line: l, reason }) => {
                assert_eq!(path, p);
                assert_eq!(l, *line, "case {i}: {reason}");
                assert!(reason.contains(needle), "case {i}: {reason}");
            }
            other => panic!("case {i}: expected a parse error, got {other:?}"),
        }
    }
    let empty = tmp("empty.svm", "# nothing\n\n");
    assert!(matches!(read_libsvm(&empty, None), Err(CoreError::Parse { .. })));
    let missing = std::env::temp_dir().join("kern-no-such-file.svm");
    assert!(matches!(read_libsvm(&missing, None), Err(CoreError::Io { .. })));
    let too_wide = tmp("wide.svm", "1 5:1\n");
    assert!(matches!(read_libsvm(&too_wide, Some(4)), Err(CoreError::Parse { line: 1, .. })));
}

#[test]
fn malformed_csv_inputs_name_file_and_line() {
    let o = CsvOptions::default();
    let cases: Vec<(&str, CsvOptions, usize, &str)> = vec![
        ("a,b,y\n1,2,0\n1,2\n", o.clone(), 3, "fields"),
        ("a,b,y\n1,zz,0\n", o.clone(), 2, "not a number"),
        ("a,b,y\n1,inf,0\n", o.clone(), 2, "non-finite"),
        ("a,b,y\n1,?,0\n", CsvOptions { missing: MissingPolicy::Reject, ..o.clone() }, 2, "missing"),
        ("a,b,y\n1,2,0\n", CsvOptions { label: LabelColumn::Name("q".into()), ..o.clone() }, 1, "no column"),
        ("a,b,y\n1,2,0\n", CsvOptions { label: LabelColumn::Index(7), ..o.clone() }, 1, "out of range"),
        ("1,2,0\n", CsvOptions { label: LabelColumn::Name("y".into()), ..o.clone() }, 1, "no header"),
        ("a,b,y\n", o.clone(), 1, "no data rows"),
    ];
    for (i, (content, opts, line, needle)) in cases.iter().enumerate() {
        let p = tmp(&format!("bad{i}.csv"), content);
        match read_csv(&p, opts) {
            Err(CoreError::Parse { line: l, reason, .. }) => {
                assert_eq!(l, *line, "case {i}: {reason}");
                assert!(reason.contains(needle), "case {i}: {reason}");
            }
            other => panic!("case {i}: expected a parse error, got {other:?}"),
        }
    }
}

#[test]
fn csv_features_labels_and_missing() {
    let p = tmp("ok.csv", "age,sex,num\n63.0,1.0,0\n67.0,?,2\n\n41.0,0.0,1\n");
    let by_name = CsvOptions { label: LabelColumn::Name("num".into()), ..Default::default() };
    assert!(read_csv(&p, &by_name).is_err(), "missing values are refused by default");
    let drop = CsvOptions { missing: kern_core::io::MissingPolicy::Drop, ..by_name };
    let ds = read_csv(&p, &drop).unwrap();
    assert_eq!(ds.samples.as_slice(), &[63.0, 1.0, 41.0, 0.0]);
    assert_eq!(ds.labels, vec!["0", "1"]);
    assert_eq!(ds.dropped_lines, vec![3]);
    assert_eq!(ds.feature_names, vec!["age", "sex"]);
    // Headerless, label first, semicolons, quotes.
    let p = tmp("nohdr.csv", "\"b\";1;2\n\"a\";3;4\n");
    let ds = read_csv(&p, &CsvOptions { label: LabelColumn::Index(0), ..Default::default() }).unwrap();
    assert_eq!(ds.samples.as_slice(), &[1.0, 2.0, 3.0, 4.0]);
    assert_eq!(ds.classes().unwrap().names(), &["a", "b"]);
}

#[test]
fn reads_the_real_datasets_shipped_in_data() {
    let dir = kern_testkit::data_dir();
    let ds = read_csv(&dir.join("wisconsin.csv"), &CsvOptions::default()).unwrap();
    assert_eq!((ds.samples.n(), ds.samples.d()), (683, 9));
    assert_eq!(ds.classes().unwrap().counts(), vec![444, 239]);
    let mnist = dir.join("mnist_5k.csv.gz");
    if cfg!(feature = "gzip") {
        let ds = read_csv(&mnist, &CsvOptions::default()).unwrap();
        assert_eq!((ds.samples.n(), ds.samples.d()), (5000, 784));
        assert_eq!(ds.classes().unwrap().counts(), vec![500; 10]);
    } else {
        assert!(read_csv(&mnist, &CsvOptions::default()).is_err(), "gzip is refused without the feature");
    }
    let drop = CsvOptions { missing: kern_core::io::MissingPolicy::Drop, ..Default::default() };
    let ds = read_csv(&dir.join("cleveland.csv"), &drop).unwrap();
    assert_eq!(ds.samples.n(), 297);
}

#[test]
fn a_libsvm_file_that_is_not_utf8_names_the_line() {
    let p = tmp("not-utf8.svm", "");
    std::fs::write(&p, b"1 1:0.5\n-1 1:\xff\xfe\n").unwrap();
    let err = kern_core::io::read_libsvm(&p, None).unwrap_err().to_string();
    assert!(err.contains(":2:") && err.contains("not UTF-8"), "{err}");
}
