//! λ of the landmark ridge models by exact leave-one-out on the `m × m` system: the reported
//! leave-one-out errors are those of `n` refits without each point (same centres, a dense solve of
//! the landmark normal equations), training with the chosen λ gives the model that was scored,
//! bad input is refused with errors, and the choice is deterministic.

use faer::Mat;
use faer::linalg::solvers::Solve;
use kern_core::{ClassTargets, KernelSpec, RealTargets, Samples, Targets, cross_gram, gram};
use kern_models::landmark::{Landmarks, NystromRidgeParams};
use kern_models::ridge::Selection;
use kern_testkit::data::{blobs, uniform};

/// Relative agreement of the closed form with the refits, declared before running: both are
/// backward-stable solves of the same well-conditioned systems (λ ≥ 1e-6, 12–20 well-spread centres).
const REL: f64 = 1e-8;

/// Mean squared leave-one-out residual over every output by brute force: for each `i`, the landmark
/// normal equations `(KᵀPK + λ(K_mm + εI)) α = KᵀPy`, `b = mean(y − Kα)` (`P` the centring over
/// the other `n − 1` rows with a bias, `I` without) solved densely without row `i`, then row `i`
/// predicted.
fn brute_loo_mse(
    kernel: &KernelSpec,
    x: &Samples,
    y: &Mat<f64>,
    centres: &[usize],
    jitter: f64,
    lambda: f64,
    bias: bool,
) -> f64 {
    let c = x.select(centres).unwrap();
    let knm = cross_gram(kernel, x, &c).unwrap();
    let kmm = gram(kernel, &c).unwrap();
    let (n, m, r) = (x.n(), c.n(), y.ncols());
    let mut sq = 0.0;
    for i in 0..n {
        let rows: Vec<usize> = (0..n).filter(|&k| k != i).collect();
        let h = rows.len() as f64;
        let kbar: Vec<f64> = (0..m)
            .map(|j| if bias { rows.iter().map(|&k| knm[(k, j)]).sum::<f64>() / h } else { 0.0 })
            .collect();
        let ybar: Vec<f64> = (0..r)
            .map(|t| if bias { rows.iter().map(|&k| y[(k, t)]).sum::<f64>() / h } else { 0.0 })
            .collect();
        let kc = Mat::from_fn(rows.len(), m, |a, j| knm[(rows[a], j)] - kbar[j]);
        let yc = Mat::from_fn(rows.len(), r, |a, t| y[(rows[a], t)] - ybar[t]);
        let mut a = kc.transpose() * &kc;
        for p in 0..m {
            for q in 0..m {
                a[(p, q)] += lambda * (kmm[(p, q)] + if p == q { jitter } else { 0.0 });
            }
        }
        let alpha = a.full_piv_lu().solve(kc.transpose() * &yc);
        for t in 0..r {
            let f: f64 = ybar[t] + (0..m).map(|j| (knm[(i, j)] - kbar[j]) * alpha[(j, t)]).sum::<f64>();
            sq += (y[(i, t)] - f).powi(2);
        }
    }
    sq / (n * r) as f64
}

fn regression(n: usize, seed: u64) -> (Samples, Targets, Mat<f64>) {
    let x = uniform(n, 3, 1.0, seed);
    let v: Vec<f64> = x
        .rows()
        .enumerate()
        .map(|(i, r)| (3.0 * r[0]).sin() + r[1] * r[2] + 0.1 * ((i * 7 % 11) as f64 - 5.0) / 5.0)
        .collect();
    let y = Mat::from_fn(n, 1, |i, _| v[i]);
    (x, Targets::Real(RealTargets::new(v).unwrap()), y)
}

/// Three overlapping classes: the one-vs-rest ±1 columns are the outputs (multi-output LOO).
fn classes(per: usize, seed: u64) -> (Samples, Targets, Mat<f64>) {
    let (x, c) = blobs(per, 3, 2, 1.0, 0.7, seed);
    let names: Vec<String> = c.iter().map(|c| format!("c{c}")).collect();
    let y = Mat::from_fn(c.len(), 3, |i, t| if c[i] == t { 1.0 } else { -1.0 });
    (x, Targets::Classes(ClassTargets::from_labels(&names).unwrap()), y)
}

fn check_against_refits(p: &NystromRidgeParams, x: &Samples, y: &Targets, ycols: &Mat<f64>) {
    let ch = p.choose_lambda(x, y, None).unwrap();
    assert_eq!(ch.selection.grid, p.default_lambda_grid());
    let jitter = p.fit_with_centres(x, y, &ch.centres).unwrap().jitter();
    for (lambda, mse) in ch.curve() {
        let want = brute_loo_mse(&p.kernel, x, ycols, &ch.centres, jitter, lambda, p.bias);
        assert!((mse - want).abs() <= REL * want, "λ {lambda:e}: closed form {mse:e}, refits {want:e}");
    }
    // The choice is the curve's best, the smallest λ among equals, and it fits.
    assert!(ch.skipped.is_empty(), "{:?}", ch.skipped);
    assert_eq!(ch.selection.best, loo_argmin(&ch.selection));
    assert_eq!(ch.lambda, ch.selection.grid[ch.selection.best]);
}

/// The unrestricted leave-one-out argmin: the smallest (error, mean squared residual), the first among
/// equals.
fn loo_argmin(s: &Selection) -> usize {
    let key = |k: usize| (s.error[k], s.mse[k]);
    (0..s.grid.len()).fold(0, |b, k| if key(k) < key(b) { k } else { b })
}

#[test]
fn krr_leave_one_out_equals_refits_at_every_lambda() {
    let (x, y, ycols) = regression(150, 1);
    let p = NystromRidgeParams::krr("gaussian:sigma=0.5".parse().unwrap(), 1.0, Landmarks::Random { m: 15 })
        .seed(4);
    check_against_refits(&p, &x, &y, &ycols);
}

#[test]
fn lssvm_leave_one_out_equals_refits_at_every_lambda() {
    let (x, y, ycols) = regression(150, 2);
    let p = NystromRidgeParams::lssvm(
        "gaussian:sigma=0.5".parse().unwrap(),
        1.0,
        Landmarks::Fvs { m: 12, pool: None },
    )
    .seed(5);
    check_against_refits(&p, &x, &y, &ycols);
    // Multi-output: three one-vs-rest columns, scored by the error rate of the decoded predictions.
    let (x, y, ycols) = classes(40, 3);
    let p = NystromRidgeParams::lssvm("gaussian:sigma=1".parse().unwrap(), 1.0, Landmarks::Random { m: 20 })
        .seed(6);
    check_against_refits(&p, &x, &y, &ycols);
}

#[test]
fn training_with_the_chosen_lambda_is_the_scored_model() {
    let (x, y, _) = regression(200, 7);
    for p in [
        NystromRidgeParams::krr(
            "gaussian:sigma=0.4".parse().unwrap(),
            1.0,
            Landmarks::Fvs { m: 25, pool: None },
        ),
        NystromRidgeParams::lssvm("gaussian:sigma=0.4".parse().unwrap(), 1.0, Landmarks::Random { m: 25 }),
    ] {
        let p = p.seed(11);
        let ch = p.choose_lambda(&x, &y, None).unwrap();
        assert!(ch.skipped.is_empty(), "{:?}", ch.skipped);
        assert_eq!(ch.selection.best, loo_argmin(&ch.selection), "the argmin fits: it is the choice");
        let chosen = NystromRidgeParams { lambda: ch.lambda, ..p.clone() };
        let a = chosen.fit_with_centres(&x, &y, &ch.centres).unwrap();
        let b = chosen.fit_targets(&x, &y).unwrap();
        assert_eq!(a.centre_indices(), &ch.centres[..]);
        assert_eq!(a, b, "the choice's centres are the fit's");
        assert_eq!(a.lambda(), ch.lambda);
        // The choice's own model is that fit, bit for bit: centres selected once, as a separate
        // selection gives them.
        assert_eq!(
            kern_models::persist::to_bytes(&ch.model).unwrap(),
            kern_models::persist::to_bytes(&b).unwrap()
        );
        // Same seed, same bits.
        let mut again = p.choose_lambda(&x, &y, None).unwrap();
        (again.seconds, again.fit_seconds) = (ch.seconds, ch.fit_seconds);
        assert_eq!(again, ch);
        let bits = |c: &kern_models::landmark::LandmarkLambdaChoice| {
            c.selection.mse.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        };
        assert_eq!(bits(&again), bits(&ch));
    }
}

/// A width far above the data's scale (σ = 50 on the unit cube): the best λ by leave-one-out is so
/// small that the fit's normal equations are not numerically positive definite. The choice passes over
/// every λ that ranks above the chosen one and fails, reports them, and returns the best λ whose fit
/// succeeds, with that fit.
#[test]
fn a_lambda_whose_fit_fails_is_passed_over() {
    let x = uniform(3000, 10, 1.0, 21);
    let names: Vec<String> = x
        .rows()
        .enumerate()
        .map(|(i, r)| {
            let v = (3.0 * r[0]).sin() + r[1] * r[2] + 0.3 * ((i * 7919 % 13) as f64 / 6.0 - 1.0);
            if v > 0.8 { "a" } else { "b" }.to_string()
        })
        .collect();
    let y = Targets::Classes(ClassTargets::from_labels(&names).unwrap());
    let p =
        NystromRidgeParams::lssvm("gaussian:sigma=50".parse().unwrap(), 1.0, Landmarks::Random { m: 300 })
            .seed(1);
    let ch = p.choose_lambda(&x, &y, None).unwrap();
    let s = &ch.selection;
    let at = |lambda: f64| NystromRidgeParams { lambda, ..p.clone() };
    assert!(!ch.skipped.is_empty(), "the poor width's argmin fits: no case for the test");
    assert_eq!(ch.skipped[0].lambda, s.grid[loo_argmin(s)], "the argmin is tried first");
    assert!(ch.skipped[0].reason.contains("positive definite"), "{}", ch.skipped[0].reason);
    assert!(at(ch.skipped[0].lambda).fit_targets(&x, &y).is_err(), "the argmin alone fails");
    // Skipped: exactly the λ values ranked above the chosen one (all of which failed).
    let ranks_above = |k: usize| {
        let (a, b) = ((s.error[k], s.mse[k]), (s.error[s.best], s.mse[s.best]));
        a < b || (a == b && k < s.best)
    };
    let mut above: Vec<f64> = (0..s.grid.len()).filter(|&k| ranks_above(k)).map(|k| s.grid[k]).collect();
    let mut skipped: Vec<f64> = ch.skipped.iter().map(|k| k.lambda).collect();
    above.sort_by(f64::total_cmp);
    skipped.sort_by(f64::total_cmp);
    assert_eq!(skipped, above);
    assert_eq!(ch.lambda, s.grid[s.best]);
    assert_eq!(ch.model, at(ch.lambda).fit_targets(&x, &y).unwrap(), "the chosen λ fits, to this model");
}

#[test]
fn bad_input_is_refused() {
    let (x, y, _) = regression(30, 9);
    let p = NystromRidgeParams::krr("gaussian:sigma=0.5".parse().unwrap(), 1.0, Landmarks::Random { m: 5 });
    let one = x.select(&[0]).unwrap();
    let y1 = Targets::Real(RealTargets::new(vec![1.0]).unwrap());
    let e = p.choose_lambda(&one, &y1, None).unwrap_err().to_string();
    assert!(e.contains("at least 2"), "{e}");
    assert!(p.choose_lambda(&x, &y1, None).is_err(), "target count");
    assert!(p.choose_lambda(&x, &y, Some(&[])).is_err(), "empty grid");
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(p.choose_lambda(&x, &y, Some(&[1.0, bad])).is_err(), "lambda {bad}");
    }
    assert!(p.choose_lambda_with_centres(&x, &y, &[], None).is_err(), "no centres");
    assert!(p.choose_lambda_with_centres(&x, &y, &[0, 99], None).is_err(), "centre out of range");
}
