//! FVS versus random basis points (the Nyström choice) for kernel function approximation: test accuracy
//! against the basis size L on real datasets, mean over 10 seeds.
//!
//! `cargo bench -p kernml-models --bench fvs_vs_random` (data from `KERN_DATA_DIR`, default the
//! workspace's `data/`). Each seed draws a 70/30 split; features are standardised on the training part;
//! the kernel is Gaussian `exp(−‖x − y‖²/σ²)` with `σ² = d` (the dimension). FVS uses the default
//! strategy; the random basis takes independent points of a random order with the same seed.

use kern_core::io::{CsvOptions, LabelColumn, read_data};
use kern_core::learner::{Fit, Model};
use kern_core::{BinaryTargets, Gaussian, Samples};
use kern_models::fvs::FvsParams;
use kern_models::kfa::{BasisChoice, KfaParams};
use std::path::PathBuf;

fn standardise(train: &Samples, test: &Samples) -> (Samples, Samples) {
    let (n, d) = (train.n(), train.d());
    let mean: Vec<f64> = (0..d).map(|j| train.rows().map(|r| r[j]).sum::<f64>() / n as f64).collect();
    let sd: Vec<f64> = (0..d)
        .map(|j| (train.rows().map(|r| (r[j] - mean[j]).powi(2)).sum::<f64>() / n as f64).sqrt().max(1e-12))
        .collect();
    let f = |x: &Samples| {
        let data =
            x.rows().flat_map(|r| (0..d).map(|j| (r[j] - mean[j]) / sd[j]).collect::<Vec<_>>()).collect();
        Samples::from_flat(data, x.n(), d).unwrap()
    };
    (f(train), f(test))
}

/// A data file, its label column, and how labels are binarised.
type DataSet = (&'static str, &'static str, fn(&str) -> String);

fn main() {
    let dir = PathBuf::from(
        std::env::var("KERN_DATA_DIR")
            .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../data").into()),
    );
    let sets: [DataSet; 3] = [
        ("wisconsin.csv", "class", |l| l.to_string()),
        ("statlog_heart.csv", "Class", |l| l.to_string()),
        ("cleveland.csv", "num", |l| {
            if l.trim().parse::<f64>().unwrap_or(0.0) > 0.0 { "1".into() } else { "0".into() }
        }),
    ];
    let sizes = [5usize, 10, 20, 50, 100];
    let seeds = 10u64;
    println!(
        "| dataset | n | L | FVS accuracy % (mean ± sd) | random accuracy % (mean ± sd) | FVS fitness | random fitness |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (file, label, bin) in sets {
        let path = dir.join(file);
        let opts = CsvOptions { label: LabelColumn::Name(label.into()), ..Default::default() };
        let ds = match read_data(&path, &opts) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("skipping {file}: {e}");
                continue;
            }
        };
        let labels: Vec<String> = ds.labels.iter().map(|l| bin(l)).collect();
        let y = BinaryTargets::from_labels(&labels).unwrap();
        let n = ds.samples.n();
        let sigma = (ds.samples.d() as f64).sqrt();
        let k = Gaussian::with_sigma(sigma).unwrap();
        for &l in &sizes {
            let mut acc = [Vec::new(), Vec::new()];
            let mut fit = [Vec::new(), Vec::new()];
            for seed in 0..seeds {
                let perm = kern_models::fvs::random_indices(n, n, 1000 + seed);
                let ntr = n * 7 / 10;
                let (tr, te) = perm.split_at(ntr);
                let (xtr, xte) =
                    standardise(&ds.samples.select(tr).unwrap(), &ds.samples.select(te).unwrap());
                let ytr = y.select(tr).unwrap();
                let yte: Vec<f64> = te.iter().map(|&i| y.y()[i]).collect();
                for (b, basis) in
                    [BasisChoice::Fvs(FvsParams::with_max(l)), BasisChoice::Random { size: l, seed }]
                        .into_iter()
                        .enumerate()
                {
                    let m = KfaParams::new(k).basis(basis).fit(&xtr, &ytr).unwrap();
                    let p = m.predict(&xte).unwrap();
                    acc[b].push(
                        100.0 * p.iter().zip(&yte).filter(|(a, b)| a == b).count() as f64 / yte.len() as f64,
                    );
                    fit[b].push(*m.layers()[0].fitness().last().unwrap());
                }
            }
            let ms = |v: &[f64]| {
                let m = v.iter().sum::<f64>() / v.len() as f64;
                let s = (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt();
                (m, s)
            };
            let (a0, s0) = ms(&acc[0]);
            let (a1, s1) = ms(&acc[1]);
            println!(
                "| {file} | {n} | {l} | {a0:.1} ± {s0:.1} | {a1:.1} ± {s1:.1} | {:.3} | {:.3} |",
                ms(&fit[0]).0,
                ms(&fit[1]).0
            );
        }
    }
}
