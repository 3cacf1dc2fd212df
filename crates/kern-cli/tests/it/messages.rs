//! Every user-facing error is plain words: a battery of mistakes a user makes with each command
//! (bad kernel specs, wrong files, models applied to the wrong data, impossible parameters), each
//! ending with a clean error whose text shows no Rust `Debug` formatting and no Rust paths.

use crate::common::{assert_plain_words, output, s, scratch, succeeds, write};

/// Runs `kern args` and checks that it fails cleanly with a plain-words message.
fn refused(args: &[&str]) {
    let out = output(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{args:?} ended with {:?}:\n{stderr}", out.status);
    assert!(stderr.contains("kern: error:"), "{args:?}: no error line:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{args:?} panicked:\n{stderr}");
    assert_plain_words(&stderr, &format!("{args:?}"));
}

#[test]
fn mistakes_with_every_command_are_told_in_plain_words() {
    let dir = scratch("messages");
    let mut two = String::new();
    let mut reg = String::new();
    for i in 0..40 {
        let (a, b) = ((i as f64 * 0.37).sin(), (i as f64 * 0.91).cos());
        two.push_str(&format!("{} 1:{a} 2:{b}\n", if a + b > 0.0 { 1 } else { -1 }));
        reg.push_str(&format!("{} 1:{a} 2:{b}\n", a * 2.0 + b));
    }
    let data = write(&dir, "two.svm", &two);
    let regression = write(&dir, "reg.svm", &reg);
    let csv = write(&dir, "x.csv", "a,b,label\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n");
    let text = write(&dir, "text.svm", "this is not a data file\n");
    let empty = write(&dir, "empty.svm", "");
    let not_a_model = write(&dir, "junk.kern", "junk");
    let svc = dir.join("svc.kern");
    let svr = dir.join("svr.kern");
    let kpca = dir.join("kpca.kern");
    let (d, r, m, mr, mk) = (s(&data), s(&regression), s(&svc), s(&svr), s(&kpca));
    succeeds(&["train", "--model", "svc", "--data", d, "--kernel", "gaussian:sigma=1", "--out", m]);
    succeeds(&["train", "--model", "svr", "--data", r, "--kernel", "gaussian:sigma=1", "--out", mr]);
    succeeds(&["kpca", "--data", d, "--kernel", "gaussian:sigma=1", "--components", "2", "--save", mk]);
    let (missing, no_model) = (dir.join("missing.svm"), dir.join("none.kern"));
    let out = dir.join("out.txt");
    let o = s(&out);
    let cases: Vec<Vec<&str>> = vec![
        // kernel specs
        vec!["train", "--model", "svc", "--data", d, "--kernel", "gaussian:sigma=-1", "--out", o],
        vec!["train", "--model", "svc", "--data", d, "--kernel", "gaussian:sigma=abc", "--out", o],
        vec!["train", "--model", "svc", "--data", d, "--kernel", "nosuchkernel", "--out", o],
        vec!["train", "--model", "svc", "--data", d, "--kernel", "gaussian:sigma=1,nu=2", "--out", o],
        vec!["train", "--model", "svc", "--data", d, "--kernel", "poly:degree=-3", "--out", o],
        vec!["train", "--model", "svc", "--data", d, "--kernel", "cs-gaussian:sigma=1", "--out", o],
        vec![
            "train",
            "--model",
            "lssvm",
            "--data",
            d,
            "--kernel",
            "gaussian:sigma=1",
            "--path",
            "sparse",
            "--out",
            o,
        ],
        vec!["sparse", "--data", d, "--kernel", "gaussian:sigma=1"],
        vec!["gram", "--data", d, "--kernel", "(gaussian:sigma=1"],
        // parameters
        vec!["train", "--model", "svc", "--data", d, "--kernel", "linear", "--c=-1", "--out", o],
        vec!["train", "--model", "svc", "--data", d, "--kernel", "linear", "--c", "nan", "--out", o],
        vec!["train", "--model", "nu-svc", "--data", d, "--kernel", "linear", "--nu", "1.5", "--out", o],
        vec!["train", "--model", "krr", "--data", r, "--kernel", "linear", "--lambda=-1", "--out", o],
        vec!["train", "--model", "svc", "--data", d, "--kernel", "linear", "--threads", "0", "--out", o],
        vec!["cv", "--model", "svc", "--data", d, "--kernel", "linear", "--grid", "c=1..0:3"],
        vec!["cv", "--model", "svc", "--data", d, "--kernel", "linear", "--grid", "c"],
        vec!["cv", "--model", "svc", "--data", d, "--kernel", "linear", "--grid", "c=1", "--folds", "1"],
        vec!["--max-memory", "lots", "info", "--data", d],
        // data files
        vec!["info", "--data", s(&missing)],
        vec!["info", "--data", s(&text)],
        vec!["info", "--data", s(&empty)],
        vec!["info", "--data", s(&dir)],
        vec![
            "train",
            "--model",
            "svc",
            "--data",
            s(&csv),
            "--label-col",
            "nosuch",
            "--kernel",
            "linear",
            "--out",
            o,
        ],
        vec![
            "train",
            "--model",
            "svc",
            "--data",
            s(&csv),
            "--label-col",
            "7",
            "--kernel",
            "linear",
            "--out",
            o,
        ],
        vec!["train", "--model", "svr", "--data", s(&csv), "--kernel", "linear", "--out", o],
        vec!["train", "--model", "svc", "--data", r, "--kernel", "linear", "--out", o],
        // models
        vec!["predict", "--model", s(&not_a_model), "--data", d],
        vec!["predict", "--model", s(&no_model), "--data", d],
        vec!["predict", "--model", mr, "--data", d, "--out", o, "--values", "probability"],
        vec!["predict", "--model", mk, "--data", d, "--out", o, "--values", "decision"],
        vec!["export", "--libsvm", mk, o],
        vec!["export", "--libsvm", s(&not_a_model), o],
        // outputs that are inputs
        vec!["train", "--model", "svc", "--data", d, "--kernel", "linear", "--out", d],
        vec!["predict", "--model", m, "--data", d, "--out", m],
        vec!["train", "--model", "svc", "--data", d, "--kernel", "linear", "--out", s(&dir)],
        // tuning
        vec!["tune", "bandwidth", "--method", "ahn", "--data", s(&empty)],
        vec!["tune", "bandwidth", "--method", "nosuch", "--data", d],
        vec!["tune", "support", "--data", d, "--base", "gaussian:sigma=1", "--nu=-2"],
        vec!["fvs", "--data", d, "--kernel", "gaussian:sigma=1", "--max-fv", "0"],
        vec!["kpca", "--data", d, "--kernel", "gaussian:sigma=1", "--components", "0"],
    ];
    for args in &cases {
        refused(args);
    }
}
