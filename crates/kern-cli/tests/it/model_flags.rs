//! One name, one meaning: `--model` names every model (the SVM types too, `--type` their LIBSVM
//! alias), every flag and grid axis a model does not take is refused with the list of those it takes,
//! `kern cv` translates the flags as `kern train` does, and `--lambda` is the ridge penalty of
//! `K + λI` for lssvm as for krr (LS-SVMlab's `γ` is `--gam`).

use crate::common::{kern, output, scratch, write};
use clap::ValueEnum;
use kern_cli::kinds::{ModelKind, words};
use kern_cli::learner_flags::EVERY_FLAG;

/// The args naming model `m` (its kernel included).
fn model_args(m: ModelKind) -> Vec<&'static str> {
    match m {
        ModelKind::LandmarkLssvm | ModelKind::LandmarkKrr => {
            vec!["--model", m.name(), "--landmarks", "random:5", "--kernel", "gaussian:sigma=1"]
        }
        ModelKind::Railway => vec!["--model", m.name(), "--kernel", "railway:auto"],
        m => vec!["--model", m.name(), "--kernel", "gaussian:sigma=1"],
    }
}

fn stderr_of(args: &[&str]) -> String {
    let out = output(args);
    assert!(!out.status.success(), "{args:?} succeeded");
    String::from_utf8(out.stderr).expect("UTF-8")
}

/// `kern train` and `kern cv` refuse, before reading the data file (missing here), every flag a
/// model does not take, naming the flag and listing the flags the model takes.
#[test]
fn every_flag_a_model_does_not_take_is_refused_with_the_list_of_those_it_takes() {
    for &m in ModelKind::value_variants() {
        for flag in EVERY_FLAG {
            // --landmarks is how lssvm and krr become their landmark forms.
            if m.flags().contains(&flag[0])
                || flag[0] == "--landmarks" && matches!(m, ModelKind::Lssvm | ModelKind::Krr)
            {
                continue;
            }
            if flag[0] == "--landmarks" && matches!(m, ModelKind::LandmarkLssvm | ModelKind::LandmarkKrr) {
                continue;
            }
            let want = format!(
                "kern: error: {} does not apply to --model {}; --model {} takes {}\n",
                flag[0],
                m.name(),
                m.name(),
                words(m.flags())
            );
            let mut train = vec!["train", "--data", "missing.svm", "--out", "m.kern"];
            train.extend(model_args(m));
            train.extend(flag);
            assert_eq!(stderr_of(&train), want, "{train:?}");
            if !matches!(m, ModelKind::OneClass | ModelKind::Railway) {
                let mut cv = vec!["cv", "--data", "missing.svm", "--grid", "sigma=[1]"];
                cv.extend(model_args(m));
                cv.extend(flag);
                assert_eq!(stderr_of(&cv), want, "{cv:?}");
            }
        }
    }
}

/// `kern cv` refuses, before reading the data, every model parameter on the grid that the model does
/// not take, listing those it takes.
#[test]
fn every_grid_axis_a_model_does_not_take_is_refused_with_the_list_of_those_it_takes() {
    for &m in ModelKind::value_variants() {
        if matches!(m, ModelKind::OneClass | ModelKind::Railway) {
            continue;
        }
        for axis in ["c", "lambda", "gam", "epsilon", "nu", "max_fv", "min_fitness"] {
            // A non-ν model's nu is the kernel's (the cs- kernels' exponent).
            if m.axes().contains(&axis) || axis == "nu" {
                continue;
            }
            let grid = format!("{axis}=[1]");
            let mut cv = vec!["cv", "--data", "missing.svm", "--grid", &grid];
            cv.extend(model_args(m));
            if matches!(m, ModelKind::LandmarkLssvm | ModelKind::LandmarkKrr) {
                cv.extend(["--lambda", "1"]);
            }
            let want = format!(
                "kern: error: the grid axis {axis:?} is not a parameter of --model {}; --model {} takes {} and \
                 the kernel's parameters\n",
                m.name(),
                m.name(),
                words(m.axes())
            );
            assert_eq!(stderr_of(&cv), want, "{cv:?}");
        }
    }
    // The user's examples: each cell the same model, a "best" value of no effect.
    for (model, grid) in
        [("krr", "c=0.1..10:3"), ("lssvm", "epsilon=[0.1]"), ("lssvm", "max_fv=[3]"), ("kfa", "lambda=[1]")]
    {
        let e = stderr_of(&[
            "cv",
            "--data",
            "missing.svm",
            "--model",
            model,
            "--kernel",
            "gaussian",
            "--grid",
            grid,
        ]);
        assert!(e.contains("is not a parameter of --model") && e.contains(" takes "), "{model} {grid}: {e}");
    }
    let e = stderr_of(&[
        "cv",
        "--data",
        "missing.svm",
        "--model",
        "svc",
        "--kernel",
        "gaussian",
        "--grid",
        "c=[1],lambda=[1]",
    ]);
    assert!(e.contains("set the same parameter"), "{e}");
}

/// Two-class data: the classes overlap, class "1" is rare.
fn unbalanced(d: &std::path::Path) -> String {
    let rows: String = (0..60)
        .map(|i| {
            let t = i as f64 * 0.61;
            let label = if i % 5 == 0 { 1 } else { -1 };
            format!("{label} 1:{:.4} 2:{:.4}\n", t.sin() + 0.3 * f64::from(label), (1.3 * t).cos())
        })
        .collect();
    write(d, "d.svm", rows).display().to_string()
}

/// `kern cv` passes class weights and every other learner flag to its cells as `kern train` does:
/// the weights change the cross-validated score (they used to be dropped), and a cell of one value
/// is the model `kern train` trains with the same flags (the same predictions on every fold's test
/// points, so the same accuracy over leave-one-out).
#[test]
fn cv_passes_class_weights_and_probability_as_train_does() {
    let d = scratch("cv-class-weights");
    let data = unbalanced(&d);
    let base = ["--model", "svc", "--kernel", "gaussian:sigma=0.5", "--data", &data];
    let mut plain = vec!["cv", "--folds", "loo", "--grid", "c=[4]", "--no-warm-start"];
    plain.extend(base);
    let (ok, a, err) = kern(&plain);
    assert!(ok, "{err}");
    let mut weighted = plain.clone();
    weighted.extend(["--class-weight", "1:20", "--probability", "--seed", "3"]);
    let (ok, b, err) = kern(&weighted);
    assert!(ok, "{err}");
    assert_ne!(a["best_score"], b["best_score"], "class weights reach the cells");
    // The same flags through kern train: leave-one-out by hand on a few points gives the cell's
    // predictions.
    let text = std::fs::read_to_string(&data).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut hits = 0;
    for i in 0..lines.len() {
        let train: String =
            lines.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, l)| format!("{l}\n")).collect();
        let tr = write(&d, "tr.svm", train).display().to_string();
        let te = write(&d, "te.svm", format!("{}\n", lines[i])).display().to_string();
        let m = d.join("m.kern").display().to_string();
        let (ok, _, err) = kern(&[
            "train",
            "--model",
            "svc",
            "--kernel",
            "gaussian:sigma=0.5",
            "--data",
            &tr,
            "--out",
            &m,
            "--c",
            "4",
            "--class-weight",
            "1:20",
            "--probability",
            "--seed",
            "3",
        ]);
        assert!(ok, "{err}");
        let (ok, p, err) = kern(&["predict", "--model", &m, "--data", &te]);
        assert!(ok, "{err}");
        hits += usize::from(p["accuracy"].as_f64() == Some(1.0));
    }
    let acc = hits as f64 / lines.len() as f64;
    assert!((b["best_score"].as_f64().unwrap() - acc).abs() < 1e-12, "cv {} vs train {acc}", b["best_score"]);
}

/// Small regression data for the λ checks.
fn tiny(d: &std::path::Path) -> (String, Vec<[f64; 2]>, Vec<f64>) {
    let x: Vec<[f64; 2]> = (0..7).map(|i| [i as f64 * 0.3, ((i * 5) % 7) as f64 * 0.2]).collect();
    let y: Vec<f64> = x.iter().map(|p| p[0] * 1.5 - p[1] + 0.25 * (3.0 * p[0]).sin()).collect();
    let rows: String = x.iter().zip(&y).map(|(p, v)| format!("{v} 1:{} 2:{}\n", p[0], p[1])).collect();
    (write(d, "tiny.svm", rows).display().to_string(), x, y)
}

/// Predictions of `model` on `data`, one value per line of `--out`.
fn predictions(d: &std::path::Path, model: &str, data: &str) -> Vec<f64> {
    let out = d.join("pred.txt").display().to_string();
    let (ok, _, err) = kern(&["predict", "--model", model, "--data", data, "--out", &out]);
    assert!(ok, "{err}");
    std::fs::read_to_string(&out).unwrap().lines().map(|l| l.trim().parse().unwrap()).collect()
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting (the dense reference).
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs())).unwrap();
        a.swap(c, p);
        b.swap(c, p);
        for r in c + 1..n {
            let f = a[r][c] / a[c][c];
            let pivot = a[c].clone();
            for (v, p) in a[r].iter_mut().zip(&pivot).skip(c) {
                *v -= f * p;
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        x[r] = (b[r] - (r + 1..n).map(|k| a[r][k] * x[k]).sum::<f64>()) / a[r][r];
    }
    x
}

/// `--lambda` is the ridge penalty of `K + λI` for lssvm as for krr: on a tiny set the LS-SVM's
/// training predictions are those of the dense solve of `(K + λI)α + b1 = y, 1ᵀα = 0`, kernel ridge's
/// those of `(K + λI)α = y`; and `--gam g` trains the same model file as `--lambda 1/g`.
#[test]
fn lambda_is_the_ridge_penalty_of_lssvm_and_krr_and_gam_its_inverse() {
    let d = scratch("lambda-meaning");
    let (data, x, y) = tiny(&d);
    let n = x.len();
    let k = |a: &[f64; 2], b: &[f64; 2]| a[0] * b[0] + a[1] * b[1];
    for lambda in [0.05, 2.0] {
        // The LS-SVM: bordered system of n + 1 unknowns (b first).
        let mut a = vec![vec![0.0; n + 1]; n + 1];
        for i in 0..n {
            a[0][i + 1] = 1.0;
            a[i + 1][0] = 1.0;
            for j in 0..n {
                a[i + 1][j + 1] = k(&x[i], &x[j]) + if i == j { lambda } else { 0.0 };
            }
        }
        let mut rhs = vec![0.0];
        rhs.extend(&y);
        let sol = solve(a, rhs);
        let want: Vec<f64> =
            (0..n).map(|i| sol[0] + (0..n).map(|j| sol[j + 1] * k(&x[i], &x[j])).sum::<f64>()).collect();
        let m = d.join("lssvm.kern").display().to_string();
        let l = lambda.to_string();
        let (ok, j, err) = kern(&[
            "train",
            "--model",
            "lssvm",
            "--regression",
            "--kernel",
            "linear",
            "--lambda",
            &l,
            "--data",
            &data,
            "--out",
            &m,
        ]);
        assert!(ok, "{err}");
        assert_eq!(j["lambda"].as_f64(), Some(lambda));
        for (p, w) in predictions(&d, &m, &data).iter().zip(&want) {
            assert!((p - w).abs() < 1e-9, "lssvm lambda {lambda}: {p} vs {w}");
        }
        // Kernel ridge at the same λ: (K + λI)α = y.
        let a: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| k(&x[i], &x[j]) + if i == j { lambda } else { 0.0 }).collect())
            .collect();
        let alpha = solve(a, y.clone());
        let want: Vec<f64> = (0..n).map(|i| (0..n).map(|j| alpha[j] * k(&x[i], &x[j])).sum()).collect();
        let m2 = d.join("krr.kern").display().to_string();
        let (ok, _, err) = kern(&[
            "train", "--model", "krr", "--kernel", "linear", "--lambda", &l, "--data", &data, "--out", &m2,
        ]);
        assert!(ok, "{err}");
        for (p, w) in predictions(&d, &m2, &data).iter().zip(&want) {
            assert!((p - w).abs() < 1e-9, "krr lambda {lambda}: {p} vs {w}");
        }
        // --gam 1/λ: the same model file.
        let g = (1.0 / lambda).to_string();
        let m3 = d.join("gam.kern").display().to_string();
        let (ok, j, err) = kern(&[
            "train",
            "--model",
            "lssvm",
            "--regression",
            "--kernel",
            "linear",
            "--gam",
            &g,
            "--data",
            &data,
            "--out",
            &m3,
        ]);
        assert!(ok, "{err}");
        assert_eq!(j["gam"].as_f64(), Some(1.0 / lambda));
        assert_eq!(std::fs::read(&m).unwrap(), std::fs::read(&m3).unwrap(), "--gam {g} = --lambda {l}");
    }
}

/// A λ so large that the model is constant carries a warning in the summary; a normal one does not.
#[test]
fn a_model_regularized_into_a_constant_warns() {
    let d = scratch("constant-model");
    let (data, _, _) = tiny(&d);
    let m = d.join("m.kern").display().to_string();
    for model in ["lssvm", "krr"] {
        for (lambda, constant) in [("1e12", true), ("0.1", false)] {
            let (ok, j, err) = kern(&[
                "train",
                "--model",
                model,
                "--regression",
                "--kernel",
                "gaussian:sigma=1",
                "--lambda",
                lambda,
                "--data",
                &data,
                "--out",
                &m,
            ]);
            assert!(ok, "{err}");
            let w = j["warnings"].as_array().expect("warnings");
            assert_eq!(w.len(), usize::from(constant), "{model} {lambda}: {j}");
            if constant {
                assert!(w[0].as_str().unwrap().contains("the model is constant"), "{w:?}");
                assert!(err.contains("warning: the model is constant"), "{err}");
            }
        }
    }
}

/// `--model nu-svc`, `one-class` and `nu-svr` train the model files of their `--type` names.
#[test]
fn model_names_every_svm_type() {
    let d = scratch("model-names-types");
    let (data, _, _) = tiny(&d);
    let cls = unbalanced(&d);
    for (model, t, data) in
        [("nu-svc", "nu-svc", &cls), ("one-class", "one-class", &cls), ("nu-svr", "nu-svr", &data)]
    {
        let (a, b) = (d.join("a.kern").display().to_string(), d.join("b.kern").display().to_string());
        let common = ["--kernel", "gaussian:sigma=1", "--nu", "0.3", "--data", data];
        let (ok, ja, err) = kern(&[&["train", "--model", model, "--out", &a][..], &common].concat());
        assert!(ok, "{model}: {err}");
        let (ok, jb, err) = kern(&[&["train", "--type", t, "--out", &b][..], &common].concat());
        assert!(ok, "{t}: {err}");
        assert_eq!(ja["type"], jb["type"]);
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap(), "--model {model} = --type {t}");
    }
    // The help lists every model with its description.
    let help = String::from_utf8(output(&["train", "--help"]).stdout).unwrap();
    for &m in ModelKind::value_variants() {
        assert!(help.contains(&format!("- {}: ", m.name())), "{} in the help", m.name());
    }
}
