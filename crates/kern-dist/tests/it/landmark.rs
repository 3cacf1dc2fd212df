//! The distributed landmark (Nyström / FVS) fit on one rank is kern-models' one-process fit on the
//! whole file, bit for bit (the MPI runs on 2 and 4 ranks are in the `mpi_check` example).

use crate::common::{one_process_targets, scratch, write};

use kern_core::io::read_libsvm;
use kern_dist::SingleProcess;
use kern_dist::landmark::{fit_nystrom, gather_rows};
use kern_dist::rows::read_part;
use kern_models::landmark::NystromRidgeParams;
use kern_models::persist;

/// `n` rows: dense 3-D points, or sparse rows (2 of 40 features), labels from `label(i, x0)`.
fn data(n: usize, sparse: bool, label: impl Fn(usize, f64) -> String) -> String {
    (0..n)
        .map(|i| {
            let t = i as f64 * 0.61;
            let x0 = t.sin();
            let feats = if sparse {
                format!(" {}:{x0:.6} {}:{:.6}", 1 + i % 17, 20 + i % 19, (1.7 * t).cos())
            } else {
                format!(" 1:{x0:.6} 2:{:.6} 3:{:.6}", (1.3 * t).cos(), (0.4 * t).sin())
            };
            format!("{}{feats}\n", label(i, x0))
        })
        .collect()
}

#[test]
fn one_rank_fits_the_one_process_model_bit_for_bit() {
    let dir = scratch("one_rank_fits_the_one_process_model_bit_for_bit");
    let binary = |_: usize, x0: f64| if x0 > 0.1 { "7".to_string() } else { "3".to_string() };
    let three = |i: usize, _: f64| format!("{}", i % 3 + 1);
    let real = |i: usize, x0: f64| format!("{:.6}", x0 * x0 + 0.01 * i as f64);
    let cases: Vec<(&str, String, bool, &str, bool)> = vec![
        ("krr-random", data(300, false, real), false, "random:25", true),
        ("krr-fvs", data(300, false, real), false, "fvs:20:120", true),
        ("lssvm-binary-fvs", data(300, false, binary), true, "fvs:20", false),
        ("lssvm-classes-random", data(300, false, three), true, "random:30", false),
        ("lssvm-sparse-random", data(300, true, binary), true, "random:25", false),
        ("lssvm-regression-fvs", data(300, true, real), true, "fvs:15", true),
    ];
    for (name, text, lssvm, landmarks, regression) in cases {
        let p = write(&dir, &format!("{name}.svm"), &text);
        let k = "gaussian:sigma=0.8".parse().unwrap();
        let params = if lssvm {
            NystromRidgeParams::lssvm(k, 0.1, landmarks.parse().unwrap())
        } else {
            NystromRidgeParams::krr(k, 1e-3, landmarks.parse().unwrap())
        }
        .seed(9)
        .tol(1e-9, 200);
        let part = read_part(&SingleProcess, &p, &Default::default()).unwrap();
        let dist = fit_nystrom(&SingleProcess, &part, &params, regression && lssvm).unwrap();
        let ds = read_libsvm(&p, None).unwrap();
        assert_eq!(Some(&ds.samples), part.samples.as_ref(), "{name}: same store as the whole-file reader");
        let one = params.fit_targets(&ds.samples, &one_process_targets(&ds.labels, regression)).unwrap();
        assert_eq!(persist::to_bytes(&dist).unwrap(), persist::to_bytes(&one).unwrap(), "{name}");
    }
}

#[test]
fn gathered_rows_are_the_selected_rows_and_bad_indices_are_errors() {
    let dir = scratch("gathered_rows_are_the_selected_rows_and_bad_indices_are_errors");
    for sparse in [false, true] {
        let p = write(&dir, &format!("gather-{sparse}.svm"), data(50, sparse, |i, _| format!("{}", i % 2)));
        let part = read_part(&SingleProcess, &p, &Default::default()).unwrap();
        let x = part.samples.clone().unwrap();
        assert_eq!(x.is_sparse(), sparse);
        let idx = [49, 0, 17, 3];
        assert_eq!(gather_rows(&SingleProcess, &part, &idx).unwrap(), x.select(&idx).unwrap());
        assert!(gather_rows(&SingleProcess, &part, &[3, 50]).is_err());
    }
}

#[test]
fn bad_targets_and_parameters_are_errors() {
    let dir = scratch("bad_targets_and_parameters_are_errors");
    let p = write(&dir, "one-class.svm", data(40, false, |_, _| "4".to_string()));
    let part = read_part(&SingleProcess, &p, &Default::default()).unwrap();
    let params =
        NystromRidgeParams::lssvm("gaussian:sigma=1".parse().unwrap(), 1.0, "random:5".parse().unwrap());
    assert!(fit_nystrom(&SingleProcess, &part, &params, false).is_err(), "one class");
    let p = write(&dir, "reals.svm", data(40, false, |i, _| format!("{i}.5")));
    let part = read_part(&SingleProcess, &p, &Default::default()).unwrap();
    let bad = NystromRidgeParams::krr("gaussian:sigma=1".parse().unwrap(), -1.0, "random:5".parse().unwrap());
    assert!(fit_nystrom(&SingleProcess, &part, &bad, true).is_err(), "negative lambda");
    let ok = NystromRidgeParams::krr("gaussian:sigma=1".parse().unwrap(), 1.0, "random:500".parse().unwrap());
    assert_eq!(fit_nystrom(&SingleProcess, &part, &ok, true).unwrap().centres().n(), 40, "m capped at n");
}
