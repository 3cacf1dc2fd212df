//! Models stored with the CSV schema of their training file ([`kern_models::schema`]), and model
//! files written before the schema existed.

use kern_core::io::{CsvOptions, read_csv, read_csv_as};
use kern_models::lssvm::LsSvmParams;
use kern_models::scaling::FeatureScaling;
use kern_models::schema::{ModelEnvelope, model_bytes};
use kern_models::svm::SvcParams;
use kern_models::{AnyModel, Fit, Kind, Samples};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kern_v3").join(name)
}

fn raw() -> Samples {
    Samples::from_rows(&[[0.0, 100.0], [1.0, 300.0], [4.0, 100.0], [5.0, 500.0]]).unwrap()
}

/// Files written by kern before model envelopes existed (a scaled SVC and a bare LS-SVM, format
/// version 3) still load and predict as they did.
#[test]
fn model_files_written_before_schemas_still_load() {
    let svc = AnyModel::load(&fixture("scaled_svc.kern")).unwrap();
    assert_eq!((svc.kind(), svc.scaled().map(|s| s.dim()), svc.schema()), (Kind::Svc, Some(2), None));
    assert_eq!(svc.predict_labels(&raw()).unwrap(), ["a", "a", "b", "b"]);
    let ls = AnyModel::load(&fixture("lssvm.kern")).unwrap();
    assert_eq!((ls.kind(), ls.schema()), (Kind::LsSvm, None));
    assert_eq!(ls.predict_labels(&raw()).unwrap(), LSSVM_LABELS);
    // Written again, they are the same bytes.
    assert_eq!(svc.to_bytes().unwrap(), std::fs::read(fixture("scaled_svc.kern")).unwrap());
    assert_eq!(ls.to_bytes().unwrap(), std::fs::read(fixture("lssvm.kern")).unwrap());
}

/// What the LS-SVM fixture predicted on `raw()` when it was written.
const LSSVM_LABELS: [&str; 4] = ["a", "a", "b", "b"];

#[test]
fn the_schema_round_trips_through_a_saved_model() {
    let dir = kern_testkit::scratch("models-schema");
    let train =
        kern_testkit::write(&dir, "train.csv", "colour,x,label\nred,0,a\nblue,1,b\nred,0.2,a\nblue,0.9,b\n");
    let opts = CsvOptions { one_hot: true, ..Default::default() };
    let ds = read_csv(&train, &opts).unwrap();
    let schema = ds.schema.clone().unwrap();
    let y = ds.binary().unwrap();

    // Bare model with its schema.
    let m = LsSvmParams::new("linear".parse().unwrap()).lambda(0.1).fit(&ds.samples, &y).unwrap();
    let p = dir.join("m.kern");
    std::fs::write(&p, model_bytes(&m, ds.samples.d(), None, Some(schema.clone())).unwrap()).unwrap();
    let back = AnyModel::load(&p).unwrap();
    assert_eq!(back.schema(), Some(&schema));
    assert_eq!((back.kind(), back.n_features(), back.scaled().is_none()), (Kind::LsSvm, 3, true));
    assert_eq!(back.to_bytes().unwrap(), std::fs::read(&p).unwrap());
    let test = kern_testkit::write(&dir, "test.csv", "x,colour\n0.1,red\n1,blue\n");
    let t = read_csv_as(&test, back.schema().unwrap(), &opts).unwrap();
    assert_eq!(back.predict_labels(&t.samples).unwrap(), ["a", "b"]);

    // Scaled model with its schema: both come back.
    let scaling = FeatureScaling::fit(&ds.samples, -1.0, 1.0).unwrap();
    let svc =
        SvcParams::new("linear".parse().unwrap()).fit(&scaling.apply(&ds.samples).unwrap(), &y).unwrap();
    let bytes = model_bytes(&svc, 3, Some(scaling.clone()), Some(schema.clone())).unwrap();
    let back = AnyModel::from_bytes(&bytes, "m").unwrap();
    assert_eq!(back.schema(), Some(&schema));
    assert_eq!(back.scaled().map(|s| s.scaling()), Some(&scaling));
    assert_eq!(back.kind(), Kind::Svc);
    assert_eq!(back.to_bytes().unwrap(), bytes);
    assert_eq!(back.predict_labels(&t.samples).unwrap(), ["a", "b"]);
    let env: ModelEnvelope = kern_models::persist::from_bytes(&bytes, "m").unwrap();
    assert_eq!((env.inner_kind(), env.dim(), env.schema()), ("svc", 3, Some(&schema)));

    // Attached to a loaded model.
    let plain = AnyModel::from(m).with_schema(schema.clone()).unwrap();
    assert_eq!(AnyModel::from_bytes(&plain.to_bytes().unwrap(), "m").unwrap().schema(), Some(&schema));

    // A schema of another width is refused.
    let mut narrow = schema.clone();
    narrow.features.pop();
    assert!(model_bytes(&svc, 3, None, Some(narrow)).is_err());
}

/// The stored form of an envelope, written by hand to store inconsistent values.
#[derive(serde::Serialize, serde::Deserialize)]
struct Crafted {
    scaling: Option<FeatureScaling>,
    schema: Option<kern_core::io::CsvSchema>,
    d: usize,
    kind: String,
    model: Vec<u8>,
}

impl kern_models::persist::Persist for Crafted {
    const KIND: &'static str = "envelope";
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}

#[test]
fn an_inconsistent_envelope_is_refused_when_loaded() {
    let dir = kern_testkit::scratch("models-schema-bad");
    let train = kern_testkit::write(&dir, "t.csv", "a,b,label\n0,1,x\n1,0,y\n0.1,0.8,x\n");
    let ds = read_csv(&train, &CsvOptions::default()).unwrap();
    let m = LsSvmParams::new("linear".parse().unwrap())
        .lambda(0.1)
        .fit(&ds.samples, &ds.binary().unwrap())
        .unwrap();
    let inner = kern_models::persist::to_bytes(&m).unwrap();
    let good = Crafted {
        scaling: None,
        schema: ds.schema.clone(),
        d: 2,
        kind: "lssvm".into(),
        model: inner.clone(),
    };
    let ok = AnyModel::from_bytes(&kern_models::persist::to_bytes(&good).unwrap(), "m").unwrap();
    assert_eq!(ok.schema(), ds.schema.as_ref());
    let wide = Crafted { d: 3, ..good };
    let e =
        AnyModel::from_bytes(&kern_models::persist::to_bytes(&wide).unwrap(), "m").unwrap_err().to_string();
    assert!(e.contains("2 features") && e.contains("trained on 3"), "{e}");
    let mut schema = ds.schema.clone().unwrap();
    schema.label = Some(0); // the label is also a feature
    let bad = Crafted { schema: Some(schema), ..wide };
    let bad = Crafted { d: 2, ..bad };
    assert!(AnyModel::from_bytes(&kern_models::persist::to_bytes(&bad).unwrap(), "m").is_err());
    let liar = Crafted { kind: "svc".into(), schema: ds.schema.clone(), ..bad };
    assert!(AnyModel::from_bytes(&kern_models::persist::to_bytes(&liar).unwrap(), "m").is_err());
}
