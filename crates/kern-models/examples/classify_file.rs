//! Train a classifier on your own data file, evaluate it, save it and load it back.
//!
//! ```sh
//! cargo run --release -p kernml-models --example classify_file -- DATA [MODEL_OUT]
//! cargo run --release -p kernml-models --example classify_file -- data/wisconsin.csv
//! ```
//!
//! `DATA` is a LIBSVM/svmlight file, or a CSV file (name ending in `.csv`; the label is the last
//! column, a header line is detected). A seeded, stratified quarter of it is held out for testing
//! (`kern_tune::split`), and the test accuracy comes from `kern_tune::metrics`.
//! The features are scaled onto [−1, 1] as `svm-scale` does, the Gaussian bandwidth is chosen by the
//! mean-to-half heuristic (no cross-validation), and a C-SVC is trained. The model is saved together
//! with its scaling, so the loaded model takes raw samples.

use kern_models::persist;
use kern_models::scaling::{FeatureScaling, ScaledModel};
use kern_models::svm::{Svc, SvcParams};
use kern_models::{CsvOptions, Fit, KernelSpec, Model, read_data};
use kern_tune::bandwidth::{BandwidthOptions, Method, select_bandwidth};
use kern_tune::cv::Stratify;
use kern_tune::{metrics, split};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(data_path) = args.first() else {
        eprintln!("usage: classify_file DATA [MODEL_OUT]");
        std::process::exit(2);
    };
    let data = read_data(data_path.as_ref(), &CsvOptions::default())?;
    let s = split::train_test_split(&data.samples, &data.classes()?, 0.25, Stratify::Auto, 7)?;

    // svm-scale's scaling, fitted on the training part only.
    let scaling = FeatureScaling::fit(&s.x_train, -1.0, 1.0)?;
    let x = scaling.apply(&s.x_train)?;

    // A Gaussian width from the data alone (Letchford's mean-to-half heuristic).
    let bw = select_bandwidth(&x, None, Method::MeanToHalf, &BandwidthOptions::default())?;
    let kernel: KernelSpec = format!("gaussian:sigma={}", bw.sigma).parse()?;

    let model = SvcParams::new(kernel.clone()).c(1.0).fit(&x, &s.y_train)?;
    println!("trained on {} samples, {} features: {kernel}, {} support vectors", x.n(), x.d(), model.n_sv());

    let x_test = scaling.apply(&s.x_test)?;
    let predicted = model.predict(&x_test)?;
    println!(
        "test accuracy: {:.4} on {} samples",
        metrics::accuracy(&predicted, &s.y_test)?,
        predicted.len()
    );

    // Save with the scaling, load back: the loaded model takes raw samples.
    let out =
        args.get(1).map(PathBuf::from).unwrap_or_else(|| std::env::temp_dir().join("classify_file.kern"));
    persist::save(&out, &ScaledModel::wrap(scaling, s.x_train.d(), &model)?)?;
    let stored: ScaledModel = persist::load(&out)?;
    let loaded: Svc = stored.unwrap_model()?;
    let again = loaded.predict(&stored.scaling().apply(&s.x_test)?)?;
    assert_eq!(again, predicted, "the loaded model predicts as the trained one");
    println!("saved to {} and loaded back: same predictions", out.display());
    Ok(())
}
