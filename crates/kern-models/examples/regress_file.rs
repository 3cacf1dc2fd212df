//! Fit a regression model to your own data file: kernel ridge regression with λ chosen by exact
//! leave-one-out, and an ε-SVR, compared on held-out data.
//!
//! ```sh
//! cargo run --release -p kernml-models --example regress_file -- TRAIN [TEST]
//! cargo run --release -p kernml-models --example regress_file -- data/student-mat.csv
//! ```
//!
//! The target is the label column (the last column of a CSV file, the first field of a LIBSVM line)
//! and must be numeric. Without `TEST`, a seeded fifth of `TRAIN` is held out.

use kern_models::krr::KernelRidgeParams;
use kern_models::scaling::FeatureScaling;
use kern_models::svm::SvrParams;
use kern_models::{CsvOptions, Fit, KernelSpec, Model, read_data};
use kern_tune::bandwidth::{BandwidthOptions, Method, select_bandwidth};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(train_path) = args.first() else {
        eprintln!("usage: regress_file TRAIN [TEST]");
        std::process::exit(2);
    };
    let all = read_data(train_path.as_ref(), &CsvOptions::default())?;
    let (train_x, train_y, test_x, test_y) = match args.get(1) {
        Some(p) => {
            let test = read_data(p.as_ref(), &CsvOptions::default())?;
            (all.samples.clone(), all.real()?, test.samples.clone(), test.real()?)
        }
        None => {
            let (te, tr): (Vec<usize>, Vec<usize>) = (0..all.samples.n()).partition(|i| i % 5 == 3);
            let y = all.real()?;
            (all.samples.select(&tr)?, y.select(&tr)?, all.samples.select(&te)?, y.select(&te)?)
        }
    };

    let scaling = FeatureScaling::fit(&train_x, -1.0, 1.0)?;
    let (x, xt) = (scaling.apply(&train_x)?, scaling.apply(&test_x)?);
    let bw = select_bandwidth(&x, None, Method::MeanToHalf, &BandwidthOptions::default())?;
    let kernel: KernelSpec = format!("gaussian:sigma={}", bw.sigma).parse()?;
    println!("{} training samples, {} features, kernel {kernel}", x.n(), x.d());

    let rmse = |pred: &[f64]| kern_tune::metrics::mean_squared_error(pred, test_y.values()).map(f64::sqrt);

    // λ absent: chosen by exact leave-one-out over the default grid.
    let krr = KernelRidgeParams::new(kernel.clone()).fit(&x, &train_y)?;
    println!("kernel ridge (λ = {:e}): test RMSE {:.4}", krr.lambda(), rmse(&krr.predict(&xt)?)?);

    let svr = SvrParams::new(kernel).c(10.0).epsilon(0.1).fit(&x, &train_y)?;
    println!("ε-SVR (C = 10, ε = 0.1):   test RMSE {:.4}", rmse(&svr.predict(&xt)?)?);
    Ok(())
}
