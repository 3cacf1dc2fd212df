//! CSV reading follows RFC 4180: quoted fields may hold the delimiter and quotes; a UTF-8 byte order
//! mark does not become part of the first column name.

use kern_core::io::{CsvOptions, LabelColumn, read_csv};

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kern-csv-rfc-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn quoted_delimiter_is_one_field() {
    let p = write("q.csv", "name,x,\"label, with comma\"\n\"Smith, J\",1.5,a\n\"O\"\"Brien\",2,b\n");
    let opts = CsvOptions { one_hot: true, ..Default::default() };
    let ds = read_csv(&p, &opts).unwrap();
    assert_eq!(ds.samples.d(), 3, "name one-hot (2 values) + x");
    assert_eq!(ds.feature_names, vec!["name=O\"Brien", "name=Smith, J", "x"]);
    assert_eq!(ds.labels, vec!["a", "b"]);
    let by_name = CsvOptions {
        label: LabelColumn::Name("label, with comma".into()),
        one_hot: true,
        ..Default::default()
    };
    assert_eq!(read_csv(&p, &by_name).unwrap().labels, vec!["a", "b"]);
}

#[test]
fn byte_order_mark_is_stripped() {
    let p = write("bom.csv", "\u{feff}y,a,b\n1,2,3\n0,4,5\n");
    let opts = CsvOptions { label: LabelColumn::Name("y".into()), ..Default::default() };
    let ds = read_csv(&p, &opts).unwrap();
    assert_eq!(ds.feature_names, vec!["a", "b"]);
    assert_eq!(ds.labels, vec!["1", "0"]);
}

#[test]
fn ragged_rows_are_errors_with_the_line() {
    let p = write("r.csv", "a,b,y\n1,2,0\n\n1,2\n");
    let e = read_csv(&p, &CsvOptions::default()).unwrap_err().to_string();
    assert!(e.contains(":4:"), "{e}");
}
