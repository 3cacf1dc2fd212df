//! `kern train` with automatic values: what it chooses is what `kern tune` and explicit values give,
//! the model trained is the one the chosen numbers train, and commands that do not train refuse them.

use crate::common::{kern, s, scratch, succeeds};
use std::path::{Path, PathBuf};

/// Three overlapping classes in the plane (and a real target for regression).
fn data(dir: &Path, n: usize) -> (PathBuf, PathBuf) {
    let (mut cls, mut reg) = (String::from("x1,x2,label\n"), String::from("x1,x2,y\n"));
    for i in 0..n {
        let c = i % 3;
        let a = (i as f64 * 0.618).fract() * 2.0 + c as f64;
        let b = (i as f64 * 0.414).fract() * 2.0 - 0.5 * c as f64;
        cls.push_str(&format!("{a},{b},k{c}\n"));
        reg.push_str(&format!("{a},{b},{}\n", (a * 1.3).sin() + 0.1 * b + 0.05 * ((i * 7) % 5) as f64));
    }
    let (fc, fr) = (dir.join("c.csv"), dir.join("r.csv"));
    std::fs::write(&fc, cls).unwrap();
    std::fs::write(&fr, reg).unwrap();
    (fc, fr)
}

/// The width chosen in `kern train` is `kern tune bandwidth`'s, in the spec's unit, and the saved
/// model is byte for byte the one trained with the chosen numbers written out.
#[test]
fn chosen_values_train_the_model_they_name() {
    let dir = scratch("auto-values");
    let (fc, _) = data(&dir, 150);
    let tuned = succeeds(&["tune", "bandwidth", "--data", s(&fc), "--method", "max-variance"]);
    let auto = dir.join("auto.model");
    let j = succeeds(&[
        "train",
        "--data",
        s(&fc),
        "--model",
        "svc",
        "--kernel",
        "gaussian:gamma=max-variance",
        "--c",
        "auto",
        "--out",
        s(&auto),
    ]);
    let ch = j["auto"]["choices"].as_array().unwrap();
    assert_eq!(
        (ch[0]["parameter"].as_str(), ch[0]["method"].as_str()),
        (Some("gamma"), Some("max-variance"))
    );
    assert_eq!(ch[0]["value"], tuned["beta"], "{j}");
    assert_eq!(ch[1]["parameter"], "c");
    let c = ch[1]["value"].as_f64().unwrap();
    let curve = ch[1]["curve"].as_array().unwrap();
    let best = curve.iter().map(|p| p[1].as_f64().unwrap()).fold(f64::MIN, f64::max);
    assert_eq!(curve.iter().find(|p| p[1].as_f64().unwrap() == best).unwrap()[0].as_f64(), Some(c));
    let kernel = j["auto"]["kernel"].as_str().unwrap();
    assert_eq!(j["kernel"].as_str(), Some(kernel));
    let explicit = dir.join("explicit.model");
    succeeds(&[
        "train",
        "--data",
        s(&fc),
        "--model",
        "svc",
        "--kernel",
        kernel,
        "--c",
        &format!("{c:?}"),
        "--out",
        s(&explicit),
    ]);
    assert_eq!(std::fs::read(&auto).unwrap(), std::fs::read(&explicit).unwrap());
    // Same seed, same bytes.
    let again = dir.join("again.model");
    succeeds(&[
        "train",
        "--data",
        s(&fc),
        "--model",
        "svc",
        "--kernel",
        "gaussian:gamma=max-variance",
        "--c",
        "auto",
        "--out",
        s(&again),
    ]);
    assert_eq!(std::fs::read(&auto).unwrap(), std::fs::read(&again).unwrap());
}

/// `--auto` writes `auto` for every value of the model and kernel that is not given.
#[test]
fn auto_chooses_every_value_of_each_model() {
    let dir = scratch("auto-every");
    let (fc, fr) = data(&dir, 120);
    let out = dir.join("m.model");
    let params = |j: &serde_json::Value| -> Vec<String> {
        j["auto"]["choices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["parameter"].as_str().unwrap().to_string())
            .collect()
    };
    for (model, file, kernel, want) in [
        ("svc", &fc, "gaussian", vec!["sigma", "c"]),
        ("svr", &fr, "rbf", vec!["sigma", "c"]),
        ("nu-svc", &fc, "gaussian", vec!["sigma", "nu"]),
        ("nu-svr", &fr, "gaussian", vec!["sigma", "nu"]),
        ("krr", &fr, "gaussian", vec!["sigma", "sigma", "lambda"]),
        ("lssvm", &fc, "cs-gaussian:nu=3", vec!["sigma", "c", "lambda"]),
        ("svc", &fc, "gaussian:gamma=0.5", vec!["c"]),
    ] {
        let j = succeeds(&[
            "train",
            "--data",
            s(file),
            "--model",
            model,
            "--kernel",
            kernel,
            "--auto",
            "--out",
            s(&out),
        ]);
        assert_eq!(params(&j), want, "{model} {kernel}: {j}");
        for c in j["auto"]["choices"].as_array().unwrap() {
            assert!(c["value"].as_f64().is_some_and(|v| v > 0.0), "{model}: {c}");
        }
        if model == "krr" || model == "lssvm" {
            assert_eq!(j["auto"]["choices"][want.len() - 1]["value"], j["lambda"]);
        }
        assert!(!j["auto"]["kernel"].as_str().unwrap().contains("auto"));
    }
    // Without --kernel, --auto is a Gaussian with its width chosen.
    let j = succeeds(&["train", "--data", s(&fc), "--model", "svc", "--auto", "--out", s(&out)]);
    assert_eq!(params(&j), ["sigma", "c"]);
}

/// `kern train --model krr` on `data` with `kernel` and `--lambda lambda`, saved to `out`: the summary.
fn train_krr(data: &Path, kernel: &str, lambda: &str, out: &Path) -> serde_json::Value {
    succeeds(&[
        "train",
        "--data",
        s(data),
        "--model",
        "krr",
        "--kernel",
        kernel,
        "--lambda",
        lambda,
        "--out",
        s(out),
    ])
}

/// `sigma=auto` on kernel ridge widens the mean-to-half width by leave-one-out, and the model is the
/// one the reported width and λ train; `sigma=mean-to-half` names that width and keeps it.
#[test]
fn ridge_widens_an_automatic_width_by_leave_one_out() {
    let dir = scratch("auto-ridge-width");
    let (_, fr) = data(&dir, 120);
    let tuned = succeeds(&["tune", "bandwidth", "--data", s(&fr), "--method", "mean-to-half"]);
    let train = |kernel: &str, lambda: &str, out: &Path| train_krr(&fr, kernel, lambda, out);
    let auto = dir.join("auto.model");
    let j = train("gaussian:sigma=auto", "auto", &auto);
    let ch = j["auto"]["choices"].as_array().unwrap();
    assert_eq!(ch.len(), 3, "{j}");
    assert_eq!((ch[0]["method"].as_str(), &ch[0]["value"]), (Some("mean-to-half"), &tuned["sigma"]));
    let factor = ch[1]["curve"]
        .as_array()
        .unwrap()
        .iter()
        .min_by(|a, b| a[2].as_f64().unwrap().total_cmp(&b[2].as_f64().unwrap()))
        .unwrap()[0]
        .as_f64()
        .unwrap();
    let sigma = ch[1]["value"].as_f64().unwrap();
    assert_eq!(sigma, tuned["sigma"].as_f64().unwrap() * factor, "{j}");
    // The search ran on all 120 samples: its fit at the chosen width is the model saved, and says so.
    assert_eq!(ch[1]["model"], "the search's fit at the chosen width, not trained again", "{j}");
    // The same model as the reported width with λ by leave-one-out (the model keeps its λ selection).
    let explicit = dir.join("explicit.model");
    let e = train(&format!("gaussian:sigma={sigma:?}"), "auto", &explicit);
    assert_eq!(e["lambda"], j["lambda"]);
    assert_eq!(std::fs::read(&auto).unwrap(), std::fs::read(&explicit).unwrap());
    let named = train("gaussian:sigma=mean-to-half", "auto", &dir.join("named.model"));
    let ch = named["auto"]["choices"].as_array().unwrap();
    assert_eq!((ch.len(), &ch[0]["value"]), (2, &tuned["sigma"]), "{named}");
}

/// Beyond 1,000 samples the width search runs on a subsample and chooses λ with the width: the model
/// saved is, byte for byte, the one the reported width and λ train on all the samples, and the summary
/// says where λ came from.
#[test]
fn a_subsampled_ridge_width_search_trains_at_its_lambda() {
    let dir = scratch("auto-ridge-subsample");
    let (_, fr) = data(&dir, 1030);
    let auto = dir.join("auto.model");
    let j = succeeds(&["train", "--data", s(&fr), "--model", "krr", "--auto", "--out", s(&auto)]);
    let ch = j["auto"]["choices"].as_array().unwrap();
    assert_eq!(ch.len(), 3, "{j}");
    assert_eq!(
        ch[1]["model"], "trained on all 1030 samples at the chosen width and the search's lambda",
        "{j}"
    );
    let factor = ch[1]["detail"].as_str().unwrap().split(' ').nth(1).unwrap().parse::<f64>().unwrap();
    let best =
        ch[1]["curve"].as_array().unwrap().iter().find(|c| c[0].as_f64() == Some(factor)).unwrap().clone();
    assert_eq!(ch[2]["method"], "exact leave-one-out together with the width", "{j}");
    assert_eq!((&ch[2]["value"], &j["lambda"]), (&best[1], &best[1]), "{j}");
    let sigma = ch[1]["value"].as_f64().unwrap();
    let explicit = dir.join("explicit.model");
    let lambda = best[1].as_f64().unwrap();
    train_krr(&fr, &format!("gaussian:sigma={sigma:?}"), &format!("{lambda:?}"), &explicit);
    assert_eq!(std::fs::read(&auto).unwrap(), std::fs::read(&explicit).unwrap());
}

/// With sample weights, `--nu auto` leaves out the ν the weighted fit cannot take, and the model trains.
#[test]
fn nu_auto_respects_the_weighted_bound() {
    let dir = scratch("auto-nu-weights");
    let (fc, _) = data(&dir, 120);
    // Class k0 weighs 3: its pairs allow ν < 2 · 40 / (3 · 40 + 40) = 0.5; the search keeps 10 % below.
    let w = dir.join("w.txt");
    std::fs::write(&w, (0..120).map(|i| if i % 3 == 0 { "3\n" } else { "1\n" }).collect::<String>()).unwrap();
    let out = dir.join("m.model");
    let j = succeeds(&[
        "train",
        "--data",
        s(&fc),
        "--model",
        "nu-svc",
        "--nu",
        "auto",
        "--weights",
        s(&w),
        "--out",
        s(&out),
    ]);
    let ch = &j["auto"]["choices"][0];
    assert_eq!(ch["parameter"], "nu");
    let curve = ch["curve"].as_array().unwrap();
    assert!(!curve.is_empty() && curve.iter().all(|p| p[0].as_f64().unwrap() <= 0.45), "{j}");
}

#[test]
fn commands_and_models_that_cannot_choose_refuse() {
    let dir = scratch("auto-refused");
    let (fc, fr) = data(&dir, 60);
    let out = dir.join("m.model");
    for (args, says) in [
        (
            vec![
                "cv",
                "--data",
                s(&fc),
                "--model",
                "svc",
                "--kernel",
                "gaussian:sigma=auto",
                "--grid",
                "c=1..2:2",
            ],
            "kern train chooses them",
        ),
        (
            vec![
                "cv",
                "--data",
                s(&fc),
                "--model",
                "svc",
                "--kernel",
                "rbf",
                "--c",
                "auto",
                "--grid",
                "gamma=1..2:2",
            ],
            "kern train chooses them",
        ),
        (
            vec![
                "train",
                "--data",
                s(&fr),
                "--model",
                "svr",
                "--kernel",
                "gaussian:sigma=ahn",
                "--out",
                s(&out),
            ],
            "class labels",
        ),
        (
            vec![
                "train",
                "--data",
                s(&fc),
                "--model",
                "one-class",
                "--kernel",
                "rbf",
                "--nu",
                "auto",
                "--out",
                s(&out),
            ],
            "--nu auto applies to nu-svc and nu-svr",
        ),
        (
            vec![
                "train",
                "--data",
                s(&fc),
                "--model",
                "svc",
                "--kernel",
                "laplacian:sigma=auto",
                "--out",
                s(&out),
            ],
            "gaussian and cs-gaussian",
        ),
        (
            vec![
                "train",
                "--data",
                s(&fc),
                "--model",
                "svc",
                "--kernel",
                "rbf",
                "--c",
                "most",
                "--out",
                s(&out),
            ],
            "neither a number nor auto",
        ),
    ] {
        let (ok, _, err) = kern(&args);
        assert!(!ok && err.contains(says), "{args:?}: {err}");
        assert!(!out.exists());
    }
}

/// `--c auto` with `--weights` searches with weighted fits: the curve reported is the library's
/// weighted search, which differs from the unweighted one, and the summary says how the weights enter.
#[test]
fn c_auto_searches_with_the_sample_weights() {
    let dir = scratch("auto-c-weights");
    let (fc, _) = data(&dir, 90);
    let w = dir.join("w.txt");
    std::fs::write(&w, (0..90).map(|i| ["0\n", "1\n", "4\n", "2\n"][i % 4]).collect::<String>()).unwrap();
    let train = |extra: &[&str]| {
        let out = dir.join("m.model");
        let mut args = vec!["train", "--data", s(&fc), "--model", "svc", "--kernel", "gaussian:sigma=1"];
        args.extend_from_slice(&["--c", "auto", "--out", s(&out)]);
        args.extend_from_slice(extra);
        succeeds(&args)["auto"]["choices"][0].clone()
    };
    let weighted = train(&["--weights", s(&w)]);
    let plain = train(&[]);
    assert!(weighted["method"].as_str().unwrap().contains("weights"), "{weighted}");
    assert_ne!(weighted["curve"], plain["curve"]);
    // The library's weighted search on the data as kern reads it gives the same curve.
    let ds = kern_core::io::read_csv(&fc, &Default::default()).unwrap();
    let (x, y) = (ds.samples.clone(), ds.classes().unwrap());
    let sw = kern_models::weights::SampleWeights::new((0..90).map(|i| [0.0, 1.0, 4.0, 2.0][i % 4]).collect())
        .unwrap();
    let ch = kern_models::svm::SvcParams::new("gaussian:sigma=1".parse().unwrap())
        .choose_c_weighted(&x, &y, Some(&sw), &kern_models::svm::AutoSearch::default())
        .unwrap();
    let curve: Vec<(f64, f64)> = weighted["curve"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
        .collect();
    assert_eq!(curve, ch.curve);
}

/// `--lambda auto` with landmarks chooses λ on the centres' system, reports it and trains with it: the
/// saved model (its centres selected once, by the choice) is byte for byte the one trained with the
/// reported λ written out (centres selected by that fit).
#[test]
fn landmark_lambda_auto_trains_with_the_reported_lambda() {
    let dir = scratch("auto-landmark-lambda");
    let (fc, _) = data(&dir, 150);
    let train = |lambda: &str, out: &Path| {
        let args = ["train", "--data", s(&fc), "--model", "lssvm", "--landmarks", "fvs:20", "--kernel"];
        let rest = ["gaussian:sigma=1", "--lambda", lambda, "--out", s(out)];
        succeeds(&args.iter().chain(&rest).copied().collect::<Vec<_>>())
    };
    let auto = dir.join("auto.model");
    let j = train("auto", &auto);
    let ch = &j["auto"]["choices"][0];
    assert_eq!(ch["method"], "exact leave-one-out on the m × m system", "{j}");
    assert_eq!(ch["value"], j["lambda"]);
    assert_eq!(ch["curve"].as_array().unwrap().len(), 17, "{j}");
    assert_eq!(ch["skipped"].as_array().map(Vec::len), Some(0), "the best λ fits: {j}");
    let explicit = dir.join("explicit.model");
    let lambda = format!("{:?}", j["lambda"].as_f64().unwrap());
    train(&lambda, &explicit);
    assert_eq!(std::fs::read(&auto).unwrap(), std::fs::read(&explicit).unwrap());
}
