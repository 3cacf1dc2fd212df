//! CSV input schemas: test data read against the training schema (columns by name, training
//! categories), missing values as an explicit policy, header detection that keeps numeric names,
//! labels kept as text, non-finite labels refused.

use kern_core::io::{CsvOptions, LabelColumn, MissingPolicy, read_csv, read_csv_as, read_libsvm};
use kern_core::{BinaryTargets, ClassTargets, RealTargets};
use kern_testkit::{scratch, write};
use proptest::prelude::*;

fn one_hot() -> CsvOptions {
    CsvOptions { one_hot: true, ..Default::default() }
}

#[test]
fn permuted_columns_are_reordered_by_name() {
    let dir = scratch("csv-permuted");
    let train = write(&dir, "train.csv", "a,b,c,label\n1,2,3,x\n4,5,6,y\n7,8,9,x\n");
    let test = write(&dir, "test.csv", "label,c,extra,a,b\nx,3,0,1,2\ny,6,0,4,5\nx,9,0,7,8\n");
    let tr = read_csv(&train, &CsvOptions::default()).unwrap();
    let schema = tr.schema.clone().unwrap();
    let te = read_csv_as(&test, &schema, &CsvOptions::default()).unwrap();
    assert_eq!(te.samples, tr.samples);
    assert_eq!(te.labels, tr.labels);
    assert_eq!(te.feature_names, ["a", "b", "c"]);
    assert!(te.has_labels());
}

#[test]
fn a_missing_feature_column_is_an_error_naming_it() {
    let dir = scratch("csv-missing-col");
    let train = write(&dir, "train.csv", "a,b,c,label\n1,2,3,0\n4,5,6,1\n");
    let test = write(&dir, "test.csv", "a,c,label\n1,3,x\n");
    let schema = read_csv(&train, &CsvOptions::default()).unwrap().schema.unwrap();
    let e = read_csv_as(&test, &schema, &CsvOptions::default()).unwrap_err().to_string();
    assert!(e.contains("\"b\"") && e.contains("missing"), "{e}");
    // A forgotten label column in training is a feature column the test data must have.
    let no_label_name = write(&dir, "t2.csv", "a,b,c\n1,2,3\n");
    let by_index = CsvOptions { label: LabelColumn::Index(0), ..Default::default() };
    let s2 = read_csv(&train, &by_index).unwrap().schema.unwrap(); // label "a"; features b, c, label
    let e = read_csv_as(&no_label_name, &s2, &CsvOptions::default()).unwrap_err().to_string();
    assert!(e.contains("\"label\""), "{e}");
}

#[test]
fn an_unseen_category_is_an_error_with_column_value_and_line() {
    let dir = scratch("csv-unseen");
    let train = write(&dir, "train.csv", "colour,x,label\nred,1,a\nblue,2,b\n");
    let schema = read_csv(&train, &one_hot()).unwrap().schema.unwrap();
    let test = write(&dir, "test.csv", "colour,x\nred,1\nblue,2\ngreen,3\n");
    let e = read_csv_as(&test, &schema, &one_hot()).unwrap_err().to_string();
    assert!(e.contains(":4:") && e.contains("\"colour\"") && e.contains("\"green\""), "{e}");
    // A test file with one category only is encoded with the training categories (never re-derived).
    let only_red = write(&dir, "red.csv", "colour,x\nred,1\nred,5\n");
    let ds = read_csv_as(&only_red, &schema, &one_hot()).unwrap();
    assert_eq!(ds.feature_names, ["colour=blue", "colour=red", "x"]);
    assert_eq!(ds.samples.row(1), &[0.0, 1.0, 5.0]);
}

#[test]
fn the_label_column_is_optional_in_test_data() {
    let dir = scratch("csv-no-label");
    let train = write(&dir, "train.csv", "a,b,label\n1,2,x\n3,4,y\n");
    let schema = read_csv(&train, &CsvOptions::default()).unwrap().schema.unwrap();
    let test = write(&dir, "test.csv", "b,a\n2,1\n4,3\n");
    let ds = read_csv_as(&test, &schema, &CsvOptions::default()).unwrap();
    assert_eq!(ds.samples.row(0), &[1.0, 2.0]);
    assert_eq!(ds.labels, ["", ""]);
    assert!(!ds.has_labels());
    // Without a header the file must have the training column count.
    let bare = write(&dir, "bare.csv", "1,2\n3,4\n");
    let e = read_csv_as(&bare, &schema, &CsvOptions { header: Some(false), ..Default::default() })
        .unwrap_err()
        .to_string();
    assert!(e.contains("2 columns") && e.contains("had 3"), "{e}");
}

#[test]
fn missing_values_are_an_error_with_line_and_column_by_default() {
    let dir = scratch("csv-missing");
    let p = write(&dir, "m.csv", "a,b,label\n1,2,x\n3,?,y\n5,6,x\n");
    let e = read_csv(&p, &CsvOptions::default()).unwrap_err().to_string();
    assert!(e.contains(":3:") && e.contains("column \"b\"") && e.contains("drop"), "{e}");
    let empty_label = write(&dir, "e.csv", "a,b,label\n1,2,x\n3,4,\n");
    let e = read_csv(&empty_label, &CsvOptions::default()).unwrap_err().to_string();
    assert!(e.contains(":3:") && e.contains("column \"label\" is empty"), "{e}");
}

#[test]
fn the_drop_policy_records_the_dropped_lines() {
    let dir = scratch("csv-drop");
    let p = write(&dir, "m.csv", "a,b,label\n1,2,x\n3,?,y\n\n5,NA,x\n7,8,y\n");
    let drop = CsvOptions { missing: MissingPolicy::Drop, ..Default::default() };
    let ds = read_csv(&p, &drop).unwrap();
    assert_eq!(ds.samples.n(), 2);
    assert_eq!(ds.dropped_lines, [3, 5]);
    assert_eq!(ds.labels, ["x", "y"]);
    // The same policy against a schema.
    let schema = ds.schema.unwrap();
    let t = read_csv_as(&p, &schema, &drop).unwrap();
    assert_eq!(t.dropped_lines, [3, 5]);
    assert!(read_csv_as(&p, &schema, &CsvOptions::default()).is_err());
}

#[test]
fn numeric_header_names_are_detected() {
    let dir = scratch("csv-numeric-header");
    let p = write(&dir, "n.csv", "400,410,420,label\n0.1,0.2,0.3,1\n0.4,0.5,0.6,2\n");
    let ds = read_csv(&p, &CsvOptions::default()).unwrap();
    assert_eq!(ds.samples.n(), 2);
    assert_eq!(ds.feature_names, ["400", "410", "420"]);
    assert_eq!(ds.labels, ["1", "2"]);
    // A header of numbers only cannot be told from data, unless forced.
    let all = write(&dir, "all.csv", "1,2,3\n4,5,6\n");
    assert_eq!(read_csv(&all, &CsvOptions::default()).unwrap().samples.n(), 2);
    assert_eq!(
        read_csv(&all, &CsvOptions { header: Some(true), ..Default::default() }).unwrap().samples.n(),
        1
    );
    // Test data with the numeric header is matched by name.
    let schema = ds.schema.unwrap();
    let t = write(&dir, "t.csv", "420,400,410\n3,1,2\n");
    assert_eq!(read_csv_as(&t, &schema, &CsvOptions::default()).unwrap().samples.row(0), &[1.0, 2.0, 3.0]);
}

#[test]
fn headerless_one_hot_rows_keep_their_first_row() {
    let dir = scratch("csv-headerless-one-hot");
    let p = write(&dir, "h.csv", "red,1.5,a\nblue,2.5,b\nred,3.5,a\n");
    let ds = read_csv(&p, &one_hot()).unwrap();
    assert_eq!(ds.samples.n(), 3);
    assert_eq!(ds.samples.row(0), &[0.0, 1.0, 1.5]);
    assert_eq!(ds.feature_names, ["f1=blue", "f1=red", "f2"]);
    assert_eq!(ds.schema.unwrap().columns, None);
}

#[test]
fn csv_labels_keep_their_text() {
    let dir = scratch("csv-label-text");
    let p = write(&dir, "z.csv", "x,zip\n1,02134\n2,10001\n3,02134\n");
    let ds = read_csv(&p, &CsvOptions::default()).unwrap();
    assert_eq!(ds.labels, ["02134", "10001", "02134"]);
    assert_eq!(ds.classes().unwrap().names(), ["02134", "10001"]);
    assert_eq!(ds.binary().unwrap().names(), &["02134".to_string(), "10001".to_string()]);
    // LIBSVM labels are numbers: normalized as before.
    let l = write(&dir, "z.svm", "+1 1:1\n1.0 1:2\n-1 1:3\n");
    assert_eq!(read_libsvm(&l, None).unwrap().labels, ["1", "1", "-1"]);
}

#[test]
fn non_finite_labels_are_errors_never_classes() {
    for bad in ["NaN", "nan", "inf", "-Infinity"] {
        let labels = ["1", bad, "2"];
        let e = ClassTargets::from_labels(&labels).unwrap_err().to_string();
        assert!(e.contains("sample 1") && e.contains(bad), "{e}");
        assert!(BinaryTargets::from_labels(&labels).is_err());
        assert!(BinaryTargets::from_labels(&["a", bad]).is_err());
    }
    assert!(RealTargets::new(vec![1.0, f64::NAN]).unwrap_err().to_string().contains("row 1"));
    let dir = scratch("csv-nan-label");
    let p = write(&dir, "n.csv", "a,label\n1,1\n2,NaN\n3,2\n");
    let e = read_csv(&p, &CsvOptions::default()).unwrap_err().to_string();
    assert!(e.contains(":3:") && e.contains("\"NaN\""), "{e}");
    let l = write(&dir, "n.svm", "1 1:1\nnan 1:2\n");
    let e = read_libsvm(&l, None).unwrap_err().to_string();
    assert!(e.contains(":2:") && e.contains("not finite"), "{e}");
    // A Dataset built by hand meets the targets' check.
    let mut ds = read_csv(&write(&dir, "ok.csv", "a,label\n1,1\n2,3\n"), &CsvOptions::default()).unwrap();
    ds.labels[1] = "NaN".into();
    assert!(ds.classes().is_err() && ds.binary().is_err() && ds.real().is_err());
    assert_eq!(ds.label_counts().len(), 2); // counts never panic
}

#[test]
fn the_schema_records_what_was_read() {
    let dir = scratch("csv-schema-fields");
    let p = write(&dir, "s.csv", "c;x;y\nb;1;u\na;2;v\n");
    let s = read_csv(&p, &CsvOptions { label: LabelColumn::Name("x".into()), ..one_hot() })
        .unwrap()
        .schema
        .unwrap();
    assert_eq!((s.n_columns, s.label, s.delimiter), (3, Some(1), ';'));
    assert_eq!(s.features.iter().map(|f| f.column).collect::<Vec<_>>(), [0, 2]);
    assert_eq!(s.features[0].categories.as_deref(), Some(&["a".to_string(), "b".into()][..]));
    assert_eq!(s.missing, MissingPolicy::Reject);
    assert_eq!(s.n_features(), 4);
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(16))]

    /// For any permutation of the columns of a numeric CSV file, reading it against the training
    /// schema gives exactly the training matrix and labels.
    #[test]
    fn any_column_order_reads_as_the_training_matrix(
        rows in proptest::collection::vec(proptest::collection::vec(-1e3..1e3f64, 4), 1..8),
        perm in Just((0..5usize).collect::<Vec<_>>()).prop_shuffle(),
    ) {
        let dir = scratch("csv-perm");
        let names = ["c0", "c1", "c2", "c3", "label"];
        let cell = |r: &[f64], i: usize, j: usize| if j == 4 { format!("l{}", i % 2) } else { format!("{}", r[j]) };
        let mut train = names.join(",") + "\n";
        let mut test = perm.iter().map(|&j| names[j]).collect::<Vec<_>>().join(",") + "\n";
        for (i, r) in rows.iter().enumerate() {
            train += &((0..5).map(|j| cell(r, i, j)).collect::<Vec<_>>().join(",") + "\n");
            test += &(perm.iter().map(|&j| cell(r, i, j)).collect::<Vec<_>>().join(",") + "\n");
        }
        let tr = read_csv(&write(&dir, "train.csv", &train), &CsvOptions::default()).unwrap();
        let te = read_csv_as(&write(&dir, "test.csv", &test), tr.schema.as_ref().unwrap(), &CsvOptions::default()).unwrap();
        prop_assert_eq!(&te.samples, &tr.samples);
        prop_assert_eq!(&te.labels, &tr.labels);
    }
}

/// A numeric header over a text label column: the header's label name never reappears in a column
/// whose values repeat, so the first line is a header; a first row labelled like the others is data.
#[test]
fn a_numeric_header_over_text_labels_is_detected() {
    let dir = scratch("csv-numeric-header-text");
    let rows = "1.2,3.4,5.6,cat\n2.3,4.5,6.7,dog\n3.1,4.1,5.9,cat\n0.5,0.7,0.9,dog\n";
    let p = write(&dir, "h.csv", format!("400,410,420,label\n{rows}"));
    let ds = read_csv(&p, &CsvOptions::default()).unwrap();
    assert_eq!(ds.feature_names, ["400", "410", "420"]);
    assert_eq!(ds.labels, ["cat", "dog", "cat", "dog"]);
    // The same rows without the header: the first row's label reappears, so it is data.
    let bare = read_csv(&write(&dir, "bare.csv", rows), &CsvOptions::default()).unwrap();
    assert_eq!((bare.samples.n(), bare.schema.unwrap().columns), (4, None));
    assert_eq!(bare.labels, ["cat", "dog", "cat", "dog"]);
    // Too few rows to tell: read as data unless forced.
    let short = write(&dir, "short.csv", "400,410,label\n0.1,0.2,a\n0.3,0.4,b\n");
    assert_eq!(read_csv(&short, &CsvOptions::default()).unwrap().samples.n(), 3);
    // Codes of one length under a name of another length.
    let codes = write(&dir, "codes.csv", "1,2,region\n0.1,0.2,N01\n0.3,0.4,S02\n0.5,0.6,E03\n0.7,0.8,W04\n");
    assert_eq!(read_csv(&codes, &CsvOptions::default()).unwrap().labels, ["N01", "S02", "E03", "W04"]);
    // `--header no` stays the override.
    let forced = read_csv(&p, &CsvOptions { header: Some(false), ..Default::default() }).unwrap();
    assert_eq!((forced.samples.n(), forced.labels[0].as_str()), (5, "label"));
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(32))]

    /// Numeric features and text labels from a few classes: with a numeric header (wavelength-like
    /// names) the first line is always taken as the header; without it, a first row whose label
    /// appears again is always data.
    #[test]
    fn numeric_headers_over_text_labels_are_told_from_data(
        rows in proptest::collection::vec((proptest::collection::vec(-1e3..1e3f64, 3), 0..3usize), 2..30),
    ) {
        let dir = scratch("csv-header-prop");
        let classes = ["cat", "dog", "bird"];
        let line = |(x, c): &(Vec<f64>, usize)| format!("{},{},{},{}\n", x[0], x[1], x[2], classes[*c]);
        // Every label appears at least twice: the rows, then the rows again.
        let body: String = rows.iter().chain(&rows).map(line).collect();
        let with = read_csv(&write(&dir, "with.csv", format!("400,410,420,label\n{body}")), &CsvOptions::default()).unwrap();
        prop_assert_eq!(with.samples.n(), 2 * rows.len());
        prop_assert_eq!(&with.feature_names, &["400", "410", "420"]);
        let without = read_csv(&write(&dir, "without.csv", &body), &CsvOptions::default()).unwrap();
        prop_assert_eq!(without.samples.n(), 2 * rows.len());
        prop_assert_eq!(without.labels[0].as_str(), classes[rows[0].1]);
    }
}

/// `read_csv_as` says whether it found the feature columns at other places than in training.
#[test]
fn read_as_reports_reordered_columns() {
    let dir = scratch("csv-reordered-flag");
    let train = write(&dir, "train.csv", "a,b,label\n1,2,x\n3,4,y\n");
    let schema = read_csv(&train, &CsvOptions::default()).unwrap().schema.unwrap();
    let same = write(&dir, "same.csv", "a,b\n1,2\n");
    let extra = write(&dir, "extra.csv", "a,b,label,id\n1,2,x,7\n");
    let swapped = write(&dir, "swapped.csv", "b,a\n2,1\n");
    let bare = write(&dir, "bare.csv", "1,2,x\n");
    let reordered = |p| read_csv_as(p, &schema, &CsvOptions::default()).unwrap().columns_reordered;
    assert!(!reordered(&same) && !reordered(&extra) && !reordered(&bare));
    assert!(reordered(&swapped));
    assert!(!read_csv(&train, &CsvOptions::default()).unwrap().columns_reordered);
}
