//! kern with ndarray arrays (feature `ndarray`): samples from an `Array2`, targets from an `Array1`,
//! predictions back as `Array1` and decision values as `Array2`.
//!
//! ```sh
//! cargo run --release -p kernml-models --features ndarray --example ndarray_interop
//! ```

use kern_models::array::{FitArray, IntoArray2, PredictArray};
use kern_models::svm::SvcParams;
use kern_models::{BinaryTargets, Samples};
use ndarray::{Array1, Array2};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Two noisy rings: class +1 inside, −1 outside.
    let n = 200;
    let x = Array2::from_shape_fn((n, 2), |(i, j)| {
        let r = if i % 2 == 0 { 1.0 } else { 3.0 } + 0.3 * ((i * 7919 % 101) as f64 / 101.0 - 0.5);
        let t = i as f64 * 0.61;
        if j == 0 { r * t.cos() } else { r * t.sin() }
    });
    let y: Array1<f64> = (0..n).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect();

    let targets = BinaryTargets::from_array(y.view())?;
    let model = SvcParams::new("gaussian:sigma=1".parse()?).c(10.0).fit_array(x.view(), &targets)?;

    let predicted: Array1<f64> = model.predict_array(x.view())?;
    let accuracy = predicted.iter().zip(&y).filter(|(p, t)| p == t).count() as f64 / n as f64;
    println!("training accuracy {accuracy:.3} with {} support vectors", model.n_sv());

    // Decision values (one column per machine) as an Array2.
    let dec: Array2<f64> = model.decision_function(&Samples::from_array(x.view())?)?.into_array2();
    println!("decision values: {:?}", dec.dim());
    assert!(accuracy > 0.9);
    Ok(())
}
