//! The CSV input schema end to end through the `kern` binary: a model trained on a CSV file stores
//! the file's columns, and `kern predict` reads CSV test data against them (columns by name, label
//! column optional, extra columns ignored, a missing column or an unseen category an error naming
//! it); missing values are an error by default, `--missing drop` reports the lines it leaves out;
//! the header rule, label text kept, `--label-col` refused for LIBSVM data, and a railway model
//! predicting on a LIBSVM file narrower than its training file.

use crate::common::{kern, s, scratch, succeeds, write};
use serde_json::{Value, json};
use std::path::Path;

/// Clusters of two classes in `x1, x2` (the railway paper's modified XOR) with a noise column `x3`:
/// `(x1, x2, x3, label)` rows.
fn rows() -> Vec<(f64, f64, f64, &'static str)> {
    let groups = [
        ([3.0, 5.0], [0.7, 1.2], "pos"),
        ([7.0, 5.0], [0.7, 1.2], "neg"),
        ([15.0, 17.0], [1.2, 0.7], "pos"),
        ([15.0, 13.0], [1.2, 0.7], "neg"),
    ];
    let mut out = Vec::new();
    for (mu, sd, lab) in groups {
        for t in 0..25 {
            let (u, v) = (((t * 37) % 25) as f64 / 25.0 - 0.5, ((t * 11) % 25) as f64 / 25.0 - 0.5);
            let noise = ((t * 7) % 5) as f64 / 10.0;
            out.push((mu[0] + 2.0 * sd[0] * u, mu[1] + 2.0 * sd[1] * v, noise, lab));
        }
    }
    out
}

/// The rows as CSV with the columns `cols` (any of `x1`, `x2`, `x3`, `y`, and `id`, `extra` for
/// columns the training file did not have), with a header.
fn csv(cols: &[&str]) -> String {
    let mut t = cols.join(",");
    t.push('\n');
    for (i, (a, b, c, l)) in rows().into_iter().enumerate() {
        let f: Vec<String> = cols
            .iter()
            .map(|&k| match k {
                "x1" => a.to_string(),
                "x2" => b.to_string(),
                "x3" => c.to_string(),
                "y" => l.to_string(),
                "id" => i.to_string(),
                _ => "7".to_string(),
            })
            .collect();
        t.push_str(&f.join(","));
        t.push('\n');
    }
    t
}

/// Runs `kern predict` of `model` on `data` with `--out`, returning the summary and the lines written.
fn predict(dir: &Path, model: &Path, data: &Path) -> (Value, String) {
    let out = dir.join("pred.txt");
    let j = succeeds(&["predict", "--model", s(model), "--data", s(data), "--out", s(&out)]);
    (j, std::fs::read_to_string(&out).expect("predictions written"))
}

/// The learners of every family kern trains on CSV data, by their flags.
const FAMILIES: &[&[&str]] = &[
    &["--model", "svc", "--kernel", "gaussian:sigma=2", "--c", "10"],
    &["--model", "svc", "--kernel", "gaussian:sigma=1", "--c", "10", "--scale"],
    &["--model", "lssvm", "--kernel", "gaussian:sigma=2"],
    &["--model", "krr", "--kernel", "linear", "--lambda", "0.1"],
    &["--model", "lssvm", "--kernel", "gaussian:sigma=2", "--lambda", "0.01", "--landmarks", "random:20"],
    &["--model", "kfa", "--kernel", "gaussian:sigma=2"],
    &["--model", "svc", "--kernel", "railway:auto,local=affine", "--c", "10"],
];

/// Permuted test columns give the predictions of the training order, for every model family (a
/// scaled model too); so do a test file without the label column and one with extra columns. The
/// summaries say the model has a schema and whether the columns were reordered.
#[test]
fn every_family_reads_test_columns_by_name() {
    let dir = scratch("csv-schema-families");
    let train = write(&dir, "train.csv", csv(&["x1", "x2", "x3", "y"]));
    let permuted = write(&dir, "permuted.csv", csv(&["y", "x3", "x1", "x2"]));
    let unlabelled = write(&dir, "unlabelled.csv", csv(&["x2", "x1", "x3"]));
    let extra = write(&dir, "extra.csv", csv(&["id", "x1", "x2", "x3", "y", "extra"]));
    let model = dir.join("m.kern");
    for flags in FAMILIES {
        let mut args = vec!["train", "--data", s(&train), "--out", s(&model)];
        args.extend_from_slice(flags);
        // The regressor takes the labels as numbers: train it on a numeric label column instead.
        let regression = flags.contains(&"krr");
        let train_file;
        if regression {
            train_file = write(
                &dir,
                "train-num.csv",
                csv(&["x1", "x2", "y"]).replace("pos", "1").replace("neg", "-1"),
            );
            args[2] = s(&train_file);
        }
        let j = succeeds(&args);
        let features = if regression { 2 } else { 3 };
        assert_eq!(
            j["csv_schema"],
            json!({"columns": features + 1, "label": "y", "features": features}),
            "{flags:?}: {j}"
        );
        assert_eq!((j["missing"].clone(), j["rows_dropped"].clone()), (json!("error"), json!(0)), "{j}");
        let (j0, p0) = predict(&dir, &model, &train);
        assert_eq!(
            (j0["csv_schema"].clone(), j0["columns_reordered"].clone()),
            (json!(true), json!(false)),
            "{j0}"
        );
        if !regression {
            assert!(j0["accuracy"].as_f64().unwrap() > 0.9, "{flags:?}: {j0}");
        }
        assert_eq!(p0.lines().count(), rows().len());
        for (test, reordered) in [(&permuted, true), (&unlabelled, true), (&extra, true)] {
            let (j, p) = predict(&dir, &model, test);
            assert_eq!(p, p0, "{flags:?} on {}", test.display());
            assert_eq!(j["csv_schema"], true, "{j}");
            assert_eq!(j["columns_reordered"], reordered, "{flags:?} on {}: {j}", test.display());
            if test == &unlabelled {
                assert!(j["accuracy"].is_null() && j["rmse"].is_null(), "{j}");
            } else if !regression {
                assert_eq!(j["accuracy"], j0["accuracy"], "{flags:?}: {j}");
            }
        }
    }
}

/// Kernel PCA saved by `kern kpca --save` from a CSV file projects permuted test columns as it
/// projects the training order.
#[test]
fn kpca_reads_test_columns_by_name() {
    let dir = scratch("csv-schema-kpca");
    let train = write(&dir, "train.csv", csv(&["x1", "x2", "x3", "y"]));
    let permuted = write(&dir, "permuted.csv", csv(&["x3", "x2", "x1"]));
    let model = dir.join("kpca.kern");
    let args = [
        "kpca",
        "--data",
        s(&train),
        "--kernel",
        "gaussian:sigma=3",
        "--components",
        "2",
        "--save",
        s(&model),
    ];
    let j = succeeds(&args);
    assert_eq!(j["csv_schema"]["features"], 3, "{j}");
    let (_, p0) = predict(&dir, &model, &train);
    let (j, p) = predict(&dir, &model, &permuted);
    assert_eq!(p, p0);
    assert_eq!(j["csv_schema"], true, "{j}");
}

/// A missing feature column is an error naming it; an unseen category is an error naming the column
/// and the value.
#[test]
fn a_missing_column_or_an_unseen_category_is_named() {
    let dir = scratch("csv-schema-errors");
    let train = write(&dir, "train.csv", csv(&["x1", "x2", "x3", "y"]));
    let model = dir.join("m.kern");
    succeeds(&["train", "--data", s(&train), "--model", "svc", "--kernel", "linear", "--out", s(&model)]);
    let lacking = write(&dir, "lacking.csv", csv(&["x1", "x3", "y"]));
    let (ok, _, err) = kern(&["predict", "--model", s(&model), "--data", s(&lacking)]);
    assert!(!ok && err.contains("x2"), "{err}");

    let cat_train = write(&dir, "cat.csv", "size,colour,label\n1,red,a\n2,blue,b\n1.5,red,a\n2.5,blue,b\n");
    let cat_model = dir.join("cat.kern");
    let j = succeeds(&[
        "train",
        "--data",
        s(&cat_train),
        "--one-hot",
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--out",
        s(&cat_model),
    ]);
    assert_eq!(j["csv_schema"], json!({"columns": 3, "label": "label", "features": 3}), "{j}");
    let seen = write(&dir, "seen.csv", "colour,size\nblue,2\nred,1\n");
    let out = dir.join("seen.txt");
    succeeds(&["predict", "--model", s(&cat_model), "--data", s(&seen), "--out", s(&out)]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "b\na\n");
    let unseen = write(&dir, "unseen.csv", "size,colour\n1,red\n2,green\n");
    let (ok, _, err) = kern(&["predict", "--model", s(&cat_model), "--data", s(&unseen)]);
    assert!(!ok && err.contains("\"green\"") && err.contains("colour") && err.contains(":3:"), "{err}");
}

/// A missing value is an error naming its line and column by default; `--missing drop` leaves the
/// row out and the summary lists its line; `--out` with `--missing drop` is refused (a dropped row
/// would have no line, and the lines would no longer match the rows).
#[test]
fn missing_values_are_an_error_unless_dropped() {
    let dir = scratch("csv-schema-missing");
    let train = write(&dir, "train.csv", csv(&["x1", "x2", "x3", "y"]));
    let model = dir.join("m.kern");
    succeeds(&["train", "--data", s(&train), "--model", "svc", "--kernel", "linear", "--out", s(&model)]);
    let mut text: Vec<String> = csv(&["x1", "x2", "x3", "y"]).lines().map(str::to_string).collect();
    // Line 3 of the file (the second data row): x2 missing.
    let mut f: Vec<String> = text[2].split(',').map(str::to_string).collect();
    f[1] = "?".into();
    text[2] = f.join(",");
    let holes = write(&dir, "holes.csv", text.join("\n") + "\n");
    let (ok, _, err) = kern(&["predict", "--model", s(&model), "--data", s(&holes)]);
    assert!(!ok && err.contains(":3:") && err.contains("\"x2\"") && err.contains("--missing drop"), "{err}");

    let j = succeeds(&["predict", "--model", s(&model), "--data", s(&holes), "--missing", "drop"]);
    assert_eq!(j["missing"], "drop", "{j}");
    assert_eq!(j["rows_dropped"], 1, "{j}");
    assert_eq!(j["dropped_lines"], json!([3]), "{j}");
    assert_eq!(j["n"], rows().len() - 1, "{j}");

    let out = dir.join("p.txt");
    let args = ["predict", "--model", s(&model), "--data", s(&holes), "--missing", "drop", "--out", s(&out)];
    let (ok, _, err) = kern(&args);
    assert!(!ok && err.contains("--missing drop") && err.contains("--out"), "{err}");
    assert!(!out.exists());

    // Training: the same default, and the dropped line in the summary.
    let (ok, _, err) =
        kern(&["train", "--data", s(&holes), "--model", "svc", "--kernel", "linear", "--out", s(&model)]);
    assert!(!ok && err.contains(":3:"), "{err}");
    let j = succeeds(&[
        "train",
        "--data",
        s(&holes),
        "--missing",
        "drop",
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--out",
        s(&model),
    ]);
    assert_eq!((j["rows_dropped"].clone(), j["dropped_lines"].clone()), (json!(1), json!([3])), "{j}");
    assert_eq!(j["n"], rows().len() - 1, "{j}");
}

/// `400,410,420,label` over numeric rows is a header (wavelength-like column names); `--header no`
/// reads it as data. Over two rows of distinct text labels the first line cannot be told from
/// data (nothing repeats to compare its label with): `--header yes` says it.
#[test]
fn numeric_column_names_are_a_header() {
    let dir = scratch("csv-schema-header");
    let data = write(
        &dir,
        "spectra.csv",
        "400,410,420,label\n0.1,0.2,0.3,0\n0.3,0.2,0.1,1\n0.2,0.2,0.3,0\n0.4,0.1,0.1,1\n",
    );
    let text = write(&dir, "text.csv", "400,410,420,label\n0.1,0.2,0.3,a\n0.3,0.2,0.1,b\n");
    let j = succeeds(&["info", "--data", s(&text), "--header", "yes"]);
    assert_eq!((j["feature_names"].clone(), j["n"].clone()), (json!(["400", "410", "420"]), json!(2)), "{j}");
    let j = succeeds(&["info", "--data", s(&data)]);
    assert_eq!(j["feature_names"], json!(["400", "410", "420"]), "{j}");
    assert_eq!(j["n"], 4, "{j}");
    let j = succeeds(&["info", "--data", s(&data), "--header", "yes"]);
    assert_eq!(j["n"], 4, "{j}");
    // Read as data, the first line is one more sample, of class "label".
    let j = succeeds(&["info", "--data", s(&data), "--header", "no"]);
    assert_eq!((j["n"].clone(), j["labels"]["label"].clone()), (json!(5), json!(1)), "{j}");
    let model = dir.join("m.kern");
    let j =
        succeeds(&["train", "--data", s(&data), "--model", "svc", "--kernel", "linear", "--out", s(&model)]);
    assert_eq!(j["csv_schema"]["label"], "label", "{j}");
}

/// Class labels that look like numbers keep their text: `02134` comes back as `02134`.
#[test]
fn label_text_is_kept() {
    let dir = scratch("csv-schema-labels");
    let data = write(&dir, "zip.csv", "x,zip\n0,02134\n0.2,02134\n1,10001\n1.2,10001\n");
    let model = dir.join("m.kern");
    let j = succeeds(&[
        "train",
        "--data",
        s(&data),
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--c",
        "10",
        "--out",
        s(&model),
    ]);
    assert_eq!(j["classes"], json!(["02134", "10001"]), "{j}");
    let out = dir.join("p.txt");
    let j = succeeds(&["predict", "--model", s(&model), "--data", s(&data), "--out", s(&out)]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "02134\n02134\n10001\n10001\n");
    assert_eq!(j["accuracy"], 1.0, "{j}");
}

/// `--label-col` with data read as LIBSVM is refused (it would be ignored), naming the file.
#[test]
fn label_col_is_refused_for_libsvm_data() {
    let dir = scratch("csv-schema-label-col");
    let data = write(&dir, "a.svm", "1 1:0.5\n-1 1:-0.5\n");
    let out = dir.join("m.kern");
    for cmd in ["info", "train"] {
        let mut args = vec![cmd, "--data", s(&data), "--label-col", "0"];
        if cmd == "train" {
            args.extend(["--model", "svc", "--kernel", "linear", "--out", s(&out)]);
        }
        let (ok, _, err) = kern(&args);
        assert!(!ok && err.contains("--label-col 0 applies to CSV data") && err.contains("a.svm"), "{err}");
    }
    succeeds(&["info", "--data", s(&data)]);
}

/// A model trained on LIBSVM data has no schema: CSV test data is read as before (by position).
/// A model saved in LIBSVM's format from CSV data has no place for the schema: the summary warns.
#[test]
fn models_without_a_schema_read_csv_by_position() {
    let dir = scratch("csv-schema-none");
    let svm = write(&dir, "a.svm", "1 1:1 2:0.5\n-1 1:-1 2:0.2\n1 1:0.8 2:-0.3\n-1 1:-0.9 2:0.1\n");
    let model = dir.join("m.kern");
    let j =
        succeeds(&["train", "--data", s(&svm), "--model", "svc", "--kernel", "linear", "--out", s(&model)]);
    assert!(j.get("csv_schema").is_none() && j.get("missing").is_none(), "{j}");
    let test = write(&dir, "t.csv", "a,b,label\n1,0.5,1\n-1,0.2,-1\n");
    let j = succeeds(&["predict", "--model", s(&model), "--data", s(&test)]);
    assert_eq!((j["csv_schema"].clone(), j["accuracy"].clone()), (json!(false), json!(1.0)), "{j}");

    // LIBSVM model files hold integer class labels.
    let train =
        write(&dir, "train.csv", csv(&["x1", "x2", "x3", "y"]).replace("pos", "1").replace("neg", "-1"));
    let lib = dir.join("m.libsvm");
    let j = succeeds(&[
        "train",
        "--data",
        s(&train),
        "--model",
        "svc",
        "--kernel",
        "linear",
        "--format",
        "libsvm",
        "--out",
        s(&lib),
    ]);
    let warnings =
        j["warnings"].as_array().expect("warnings").iter().filter_map(Value::as_str).collect::<Vec<_>>();
    assert!(warnings.iter().any(|w| w.contains("will not check")), "{j}");
    assert!(j.get("csv_schema").is_none(), "{j}");
    assert!(std::fs::read_to_string(&lib).unwrap().starts_with("svm_type"));
}

/// A railway model predicts on a LIBSVM test file whose last feature never appears (the file's
/// dimension is smaller than the training file's): the samples are brought to the model's dimension.
#[test]
fn railway_predicts_on_a_narrower_libsvm_file() {
    let dir = scratch("csv-schema-railway");
    let mut t = String::new();
    for (a, b, _, l) in rows() {
        t.push_str(&format!("{} 1:{a} 2:{b}\n", if l == "pos" { 1 } else { -1 }));
    }
    let train = write(&dir, "train.svm", t);
    let narrow = write(&dir, "narrow.svm", "1 1:3\n-1 1:7\n1 1:15\n");
    let model = dir.join("rail.kern");
    succeeds(&[
        "train",
        "--data",
        s(&train),
        "--model",
        "svc",
        "--kernel",
        "railway:auto,local=affine",
        "--c",
        "10",
        "--out",
        s(&model),
    ]);
    let out = dir.join("p.txt");
    let j = succeeds(&["predict", "--model", s(&model), "--data", s(&narrow), "--out", s(&out)]);
    assert_eq!(j["n"], 3, "{j}");
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 3);
    // The same points with the zero feature written out predict the same.
    let wide = write(&dir, "wide.svm", "1 1:3 2:0\n-1 1:7 2:0\n1 1:15 2:0\n");
    let out2 = dir.join("p2.txt");
    succeeds(&["predict", "--model", s(&model), "--data", s(&wide), "--out", s(&out2)]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), std::fs::read_to_string(&out2).unwrap());
}
