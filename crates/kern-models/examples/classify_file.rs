//! Train a classifier on your own data file, evaluate it, save it and load it back.
//!
//! ```sh
//! cargo run --release -p kern-models --example classify_file -- TRAIN [TEST] [MODEL_OUT]
//! cargo run --release -p kern-models --example classify_file -- data/wisconsin.csv
//! ```
//!
//! `TRAIN` and `TEST` are LIBSVM/svmlight files, or CSV files (name ending in `.csv`; the label is the
//! last column, a header line is detected). Without `TEST`, a seeded quarter of `TRAIN` is held out.
//! The features are scaled onto [−1, 1] as `svm-scale` does, the Gaussian bandwidth is chosen by the
//! mean-to-half heuristic (no cross-validation), and a C-SVC is trained. The model is saved together
//! with its scaling, so the loaded model takes raw samples.

use kern_models::persist;
use kern_models::scaling::{FeatureScaling, ScaledModel};
use kern_models::svm::{Svc, SvcParams};
use kern_models::{CsvOptions, Dataset, Fit, KernelSpec, read_data};
use kern_tune::bandwidth::{BandwidthOptions, Method, select_bandwidth};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(train_path) = args.first() else {
        eprintln!("usage: classify_file TRAIN [TEST] [MODEL_OUT]");
        std::process::exit(2);
    };
    let data = read_data(train_path.as_ref(), &CsvOptions::default())?;
    let (train, test) = match args.get(1) {
        Some(p) => (data, read_data(p.as_ref(), &CsvOptions::default())?),
        None => hold_out(&data, 4, 7)?,
    };

    // svm-scale's scaling, fitted on the training data only.
    let scaling = FeatureScaling::fit(&train.samples, -1.0, 1.0)?;
    let x = scaling.apply(&train.samples)?;

    // A Gaussian width from the data alone (Letchford's mean-to-half heuristic).
    let bw = select_bandwidth(&x, None, Method::MeanToHalf, &BandwidthOptions::default())?;
    let kernel: KernelSpec = format!("gaussian:sigma={}", bw.sigma).parse()?;

    let model = SvcParams::new(kernel.clone()).c(1.0).fit(&x, &train.classes()?)?;
    println!("trained on {} samples, {} features: {kernel}, {} support vectors", x.n(), x.d(), model.n_sv());

    let predicted = model.predict_names(&scaling.apply(&test.samples)?)?;
    println!("test accuracy: {:.4} on {} samples", accuracy(&predicted, &test.labels), predicted.len());

    // Save with the scaling, load back: the loaded model takes raw samples.
    let out =
        args.get(2).map(PathBuf::from).unwrap_or_else(|| std::env::temp_dir().join("classify_file.kern"));
    persist::save(&out, &ScaledModel::wrap(scaling, train.samples.d(), &model)?)?;
    let stored: ScaledModel = persist::load(&out)?;
    let loaded: Svc = stored.unwrap_model()?;
    let again = loaded.predict_names(&stored.scaling().apply(&test.samples)?)?;
    assert_eq!(again, predicted, "the loaded model predicts as the trained one");
    println!("saved to {} and loaded back: same predictions", out.display());
    Ok(())
}

/// Every `k`-th sample (from a seeded offset) goes to the test part.
fn hold_out(ds: &Dataset, k: usize, seed: usize) -> Result<(Dataset, Dataset), Box<dyn std::error::Error>> {
    let (test, train): (Vec<usize>, Vec<usize>) =
        (0..ds.samples.n()).partition(|i| (i + seed).is_multiple_of(k));
    let part = |idx: &[usize]| -> Result<Dataset, Box<dyn std::error::Error>> {
        Ok(Dataset::new(
            ds.samples.select(idx)?,
            idx.iter().map(|&i| ds.labels[i].clone()).collect(),
            ds.feature_names.clone(),
        ))
    };
    Ok((part(&train)?, part(&test)?))
}

/// Fraction of predictions equal to the labels (compared as numbers when both are numbers).
fn accuracy(predicted: &[String], labels: &[String]) -> f64 {
    let norm =
        |s: &str| s.trim().parse::<f64>().map(|v| v.to_string()).unwrap_or_else(|_| s.trim().to_string());
    let hits = predicted.iter().zip(labels).filter(|(p, l)| norm(p) == norm(l)).count();
    hits as f64 / predicted.len().max(1) as f64
}
