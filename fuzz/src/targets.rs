//! The fuzz targets: each takes raw bytes and must return without panicking whatever they are. Shared by
//! the random driver (`main.rs`) and the corpus regression test of the `kern` command
//! (`crates/kern-cli/tests/fuzz_corpus.rs`), which replays every input saved under `fuzz/corpus/`.

use kern_core::learner::Model;
use kern_core::{Kernel, KernelSpec, Samples};
use kern_models::persist;
use std::path::Path;

/// Target names, as directory names under `fuzz/corpus/`.
pub const TARGETS: [&str; 8] = [
    "libsvm",
    "csv",
    "kernel_spec",
    "grid_spec",
    "model",
    "libsvm_model",
    "precomputed_rows",
    "scale_params",
];

/// Runs one target on one input; `scratch` is a directory for the data-file targets.
pub fn run(target: &str, input: &[u8], scratch: &Path) {
    match target {
        "libsvm" => libsvm(input, scratch),
        "csv" => csv(input, scratch),
        "kernel_spec" => kernel_spec(input),
        "grid_spec" => grid_spec(input),
        "model" => model(input),
        "libsvm_model" => libsvm_model(input),
        "precomputed_rows" => precomputed_rows(input, scratch),
        "scale_params" => scale_params(input),
        other => panic!("unknown fuzz target {other:?}"),
    }
}

/// The LIBSVM reader on the bytes as a file.
pub fn libsvm(input: &[u8], scratch: &Path) {
    let p = scratch.join("in.svm");
    std::fs::write(&p, input).unwrap();
    if let Ok(ds) = kern_core::io::read_libsvm(&p, None) {
        assert_eq!(ds.labels.len(), ds.samples.n());
        // Walk the store as it is (a sparse file stays sparse: its dense copy may not fit).
        for x in ds.samples.samples() {
            let values = match x {
                kern_core::SampleRef::Dense(v) => v,
                kern_core::SampleRef::Sparse { indices, values } => {
                    assert!(indices.windows(2).all(|w| w[0] < w[1]));
                    assert!(indices.last().is_none_or(|&i| i < ds.samples.d()));
                    values
                }
            };
            assert!(values.iter().all(|v| v.is_finite()));
        }
    }
}

/// The CSV reader (header detection, one-hot on and off) on the bytes as a file.
pub fn csv(input: &[u8], scratch: &Path) {
    let p = scratch.join("in.csv");
    std::fs::write(&p, input).unwrap();
    for one_hot in [false, true] {
        let opts = kern_core::io::CsvOptions { one_hot, ..Default::default() };
        if let Ok(ds) = kern_core::io::read_csv(&p, &opts) {
            assert_eq!(ds.labels.len(), ds.samples.n());
            // The schema check: the training file read against its own schema is the training data.
            let schema = ds.schema.as_ref().expect("read_csv returns the file's schema");
            let again = kern_core::io::CsvOptions { header: Some(schema.columns.is_some()), ..opts };
            let back = kern_core::io::read_csv_as(&p, schema, &again).expect("a file matches its own schema");
            assert_eq!((&back.samples, &back.labels), (&ds.samples, &ds.labels));
        }
    }
}

/// The kernel-spec parser: an accepted spec prints to a spec that parses to the same print, and
/// evaluates without panicking.
pub fn kernel_spec(input: &[u8]) {
    let Ok(s) = std::str::from_utf8(input) else { return };
    let Ok(k) = s.parse::<KernelSpec>() else { return };
    let text = k.to_string();
    let again: KernelSpec =
        text.parse().unwrap_or_else(|e| panic!("{s:?} prints as {text:?}, which fails: {e}"));
    assert_eq!(again.to_string(), text, "{s:?}");
    for d in 1..=3 {
        if k.check_dim(d).is_ok() {
            let x: Vec<f64> = (0..d).map(|i| 0.25 * i as f64).collect();
            let y: Vec<f64> = (0..d).map(|i| 1.0 - 0.5 * i as f64).collect();
            let _ = k.eval(&x, &y);
        }
    }
}

/// The grid-spec parser: an accepted grid has a bounded, consistent number of cells.
pub fn grid_spec(input: &[u8]) {
    let Ok(s) = std::str::from_utf8(input) else { return };
    let Ok(g) = s.parse::<kern_tune::grid::ParamGrid>() else { return };
    assert!(!g.is_empty() && g.len() <= kern_tune::grid::MAX_GRID_CELLS);
    if g.len() <= 256 {
        assert_eq!(g.points().len(), g.len());
    }
    let _ = g.to_string();
}

/// The model decoder: whatever the bytes, decoding is an error or a model that predicts without
/// panicking on samples of its dimension.
pub fn model(input: &[u8]) {
    let Ok(kind) = persist::peek_kind(input, "fuzz") else { return };
    let probe =
        |d: usize| Samples::from_flat((0..2 * d).map(|i| 0.1 * i as f64).collect(), 2, d.max(1)).unwrap();
    match kind.as_str() {
        "svc" => {
            if let Ok(m) = persist::from_bytes::<kern_models::svm::Svc>(input, "fuzz") {
                let x = probe(m.support_vectors().d());
                let _ = m.predict(&x);
                let _ = m.decision_function(&x);
                if m.has_probability() {
                    let _ = m.predict_proba(&x);
                }
            }
        }
        "svr" => {
            if let Ok(m) = persist::from_bytes::<kern_models::svm::Svr>(input, "fuzz") {
                let _ = m.predict(&probe(m.support_vectors().d()));
            }
        }
        "lssvm" => {
            if let Ok(m) = persist::from_bytes::<kern_models::lssvm::LsSvm>(input, "fuzz") {
                let _ = m.predict(&probe(m.training_samples().d()));
            }
        }
        "krr" => {
            if let Ok(m) = persist::from_bytes::<kern_models::krr::KernelRidge>(input, "fuzz") {
                let _ = m.predict(&probe(m.training_samples().d()));
            }
        }
        "kpca" => {
            if let Ok(m) = persist::from_bytes::<kern_models::kpca::KernelPca>(input, "fuzz") {
                let _ = m.transform(&probe(m.training_samples().d()));
            }
        }
        "kfa" => {
            if let Ok(m) = persist::from_bytes::<kern_models::kfa::KfaModel<KernelSpec>>(input, "fuzz") {
                let _ = m.predict(&probe(m.layers()[0].basis().d()));
            }
        }
        "railway-svc" => {
            if let Ok(m) = persist::from_bytes::<kern_models::railway::RailwaySvc>(input, "fuzz") {
                let _ = m.predict(&probe(m.map.kernel().areas()[0].center().len()));
            }
        }
        _ => {}
    }
}

/// The LIBSVM model file reader: an accepted model prints (`to_text`) to a text that parses to the same
/// print, and a small non-precomputed model predicts without panicking.
pub fn libsvm_model(input: &[u8]) {
    use kern_models::libsvm_model::LibsvmModel;
    let Ok(text) = std::str::from_utf8(input) else { return };
    let Ok(m) = LibsvmModel::parse(text, "fuzz") else { return };
    let printed = m.to_text();
    let again = LibsvmModel::parse(&printed, "fuzz")
        .unwrap_or_else(|e| panic!("{text:?} prints as {printed:?}, which fails: {e}"));
    assert_eq!(again.to_text(), printed, "{text:?}");
    let d = m.n_features();
    if !m.is_precomputed() && (1..=64).contains(&d) && m.n_sv() <= 1000 {
        let x = Samples::from_flat((0..2 * d).map(|i| 0.1 * i as f64).collect(), 2, d).unwrap();
        let _ = m.predict(&x);
        let _ = m.decision_values(&x);
        if m.has_probability() {
            let _ = m.predict_probability(&x);
        }
    }
}

/// The LIBSVM line parser the precomputed-kernel reader uses (`LABEL 0:ROW 1:K 2:K ...`), line by line
/// with and without a dimension, then the whole-file reader: an accepted line has ascending indices
/// below the dimension and, printed back, parses to the same label, indices and values.
pub fn precomputed_rows(input: &[u8], scratch: &Path) {
    if let Ok(text) = std::str::from_utf8(input) {
        for line in text.lines() {
            for dim in [None, Some(4)] {
                let (mut idx, mut val) = (Vec::new(), Vec::new());
                let Ok(Some(label)) = kern_core::io::parse_libsvm_line(line, dim, &mut idx, &mut val) else {
                    continue;
                };
                assert_eq!(idx.len(), val.len(), "{line:?}");
                assert!(idx.windows(2).all(|w| w[0] < w[1]), "{line:?}");
                assert!(dim.is_none_or(|d| idx.iter().all(|&i| i < d)), "{line:?}");
                let mut printed = if label.is_empty() { "0".to_string() } else { label.clone() };
                for (i, v) in idx.iter().zip(&val) {
                    printed += &format!(" {}:{v}", i + 1);
                }
                let (mut idx2, mut val2) = (Vec::new(), Vec::new());
                let again = kern_core::io::parse_libsvm_line(&printed, dim, &mut idx2, &mut val2);
                if label.is_empty() {
                    continue; // printed with a stand-in label
                }
                assert_eq!(again, Ok(Some(label)), "{line:?} printed as {printed:?}");
                assert_eq!((idx2, val2), (idx, val), "{line:?} printed as {printed:?}");
            }
        }
    }
    libsvm(input, scratch);
}

/// The svm-scale parameter file reader: an accepted file prints (`to_text`) to a text that parses to
/// the same print.
pub fn scale_params(input: &[u8]) {
    use kern_models::scaling::FeatureScaling;
    let Ok(text) = std::str::from_utf8(input) else { return };
    let Ok(s) = FeatureScaling::parse(text, "fuzz") else { return };
    let printed = s.to_text();
    let again = FeatureScaling::parse(&printed, "fuzz")
        .unwrap_or_else(|e| panic!("{text:?} prints as {printed:?}, which fails: {e}"));
    assert_eq!(again.to_text(), printed, "{text:?}");
}
