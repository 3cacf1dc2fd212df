//! `kern train --type` (LIBSVM's `-s` names) and `--nu`: ν-SVC, ν-SVR and one-class models trained,
//! saved in both formats, exported and predicted; flags a type does not use are refused.

use crate::common::{kern, scratch};
use std::path::Path;

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../kern-models/tests/fixtures/libsvm/nu")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn every_svm_type_trains_saves_exports_and_predicts() {
    let d = scratch("every-type");
    let (gr, gr_test, sinc) = (fixture("gr_train.txt"), fixture("gr_test.txt"), fixture("sinc_train.txt"));
    let cases = [
        ("nu-svc", &gr, "gaussian:gamma=2.7777777777777777", "nu_svc"),
        ("one-class", &gr, "gaussian:gamma=2.7777777777777777", "one_class"),
        ("nu-svr", &sinc, "gaussian:gamma=0.5", "nu_svr"),
    ];
    for (t, data, kernel, libsvm_name) in cases {
        let model = d.join(format!("{t}.model")).display().to_string();
        let (ok, j, err) =
            kern(&["train", "--type", t, "--nu", "0.3", "--kernel", kernel, "--data", data, "--out", &model]);
        assert!(ok, "{t}: {err}");
        assert_eq!(j["type"], t, "{t}: {j}");
        assert_eq!(j["nu"], 0.3, "{t}");
        let exported = d.join(format!("{t}.libsvm")).display().to_string();
        let (ok, j, err) = kern(&["export", "--libsvm", &model, &exported]);
        assert!(ok, "{t}: {err}");
        assert_eq!(j["svm_type"], libsvm_name);
        let text = std::fs::read_to_string(&exported).unwrap();
        assert!(text.starts_with(&format!("svm_type {libsvm_name}\n")), "{t}");
        // The kern file and the LIBSVM file predict the same values.
        let test = if t == "nu-svr" { fixture("sinc_test.txt") } else { gr_test.clone() };
        let (a, b) = (d.join(format!("{t}.a")), d.join(format!("{t}.b")));
        for (m, out) in [(&model, &a), (&exported, &b)] {
            let (ok, _, err) =
                kern(&["predict", "--model", m, "--data", &test, "--out", &out.display().to_string()]);
            assert!(ok, "{t}: {err}");
        }
        let (a, b) = (std::fs::read_to_string(&a).unwrap(), std::fs::read_to_string(&b).unwrap());
        let first = |s: &str| -> Vec<f64> {
            s.lines().map(|l| l.split_whitespace().next().unwrap().parse().unwrap()).collect()
        };
        let (fa, fb) = (first(&a), first(&b));
        assert_eq!(fa.len(), fb.len());
        for (x, y) in fa.iter().zip(&fb) {
            assert!((x - y).abs() <= 1e-9 * (1.0 + x.abs()), "{t}: {x} vs {y}");
        }
        if t == "one-class" {
            assert!(fa.iter().all(|&v| v == 1.0 || v == -1.0), "one-class predicts +1/-1");
        }
    }
}

#[test]
fn flags_a_type_does_not_use_are_refused() {
    let gr = fixture("gr_train.txt");
    let d = scratch("refused");
    let out = d.join("m.kern");
    let o = out.display().to_string();
    for (args, msg) in [
        (vec!["--model", "svc", "--nu", "0.2"], "--nu does not apply to --model svc; --model svc takes --c"),
        (vec!["--type", "nu-svc", "--c", "3"], "--c does not apply"),
        (vec!["--type", "one-class", "--probability"], "--probability does not apply"),
        (vec!["--model", "svr", "--type", "nu-svc"], "name different models"),
    ] {
        let mut a = vec!["train", "--kernel", "linear", "--data", &gr, "--out", &o];
        a.extend(args);
        let (ok, _, err) = kern(&a);
        assert!(!ok && err.contains(msg), "{a:?}: {err}");
        assert!(!out.exists(), "nothing written when refused");
    }
}
