//! The scores a prediction summary reports against the labels of the data file: accuracy of
//! predicted labels, and rmse and mae of predicted values.

use kern_core::io::Dataset;
use kern_models::ridge::Task;
use serde_json::{Value, json};

/// Labels and predictions compared as numbers when both are numbers, as text otherwise (`None`
/// when the file has no labels).
pub fn accuracy(pred: &[String], labels: &[String]) -> Option<f64> {
    labels.iter().any(|l| !l.is_empty()).then(|| {
        let hits = pred.iter().zip(labels).filter(|(p, l)| norm(p) == norm(l)).count();
        hits as f64 / pred.len() as f64
    })
}

/// A label as compared: the number's canonical name when it is one, else the text.
fn norm(s: &str) -> String {
    s.trim().parse::<f64>().map(kern_core::label_name).unwrap_or_else(|_| s.to_string())
}

/// Root mean square and mean absolute error of `pred` against the file's values, when it has them.
pub fn errors(pred: &[f64], ds: &Dataset) -> (Option<f64>, Option<f64>) {
    match ds.real() {
        Ok(y) => {
            let n = pred.len() as f64;
            let se: f64 = pred.iter().zip(y.values()).map(|(p, v)| (p - v) * (p - v)).sum();
            let ae: f64 = pred.iter().zip(y.values()).map(|(p, v)| (p - v).abs()).sum();
            (Some((se / n).sqrt()), Some(ae / n))
        }
        Err(_) => (None, None),
    }
}

/// Accuracy (classification) or rmse and mae (regression) of a ridge model's predictions against
/// the file's labels (all null for a file without labels).
pub fn scores(task: &Task, pred: &[f64], ds: &Dataset) -> Value {
    let labelled = ds.labels.iter().any(|l| !l.is_empty());
    if !labelled {
        return json!({ "accuracy": null, "rmse": null, "mae": null });
    }
    match task {
        Task::Regression => match errors(pred, ds) {
            (Some(rmse), Some(mae)) => json!({ "rmse": rmse, "mae": mae }),
            _ => json!({ "rmse": null, "mae": null }),
        },
        _ => {
            let names = label_names(task, pred);
            let hits = names.iter().zip(&ds.labels).filter(|(p, l)| norm(p) == norm(l)).count();
            json!({ "accuracy": hits as f64 / names.len() as f64 })
        }
    }
}

/// The label names of a ridge model's predictions (±1, class index or value).
fn label_names(task: &Task, pred: &[f64]) -> Vec<String> {
    match task {
        Task::Binary { names } => {
            pred.iter().map(|&p| if p > 0.0 { names[1].clone() } else { names[0].clone() }).collect()
        }
        Task::Classes { names } => pred.iter().map(|&p| names[p as usize].clone()).collect(),
        Task::Regression => pred.iter().map(|p| format!("{p}")).collect(),
    }
}
