//! Baudat & Anouar, "Kernel-based Methods and Function Approximation": feature vector selection (FVS,
//! eqs. 3–8) and kernel function approximation (KFA, eqs. 9–10), §5.1–5.5, plus the FVS-versus-random
//! basis comparison.
//!
//! Conventions. The paper's Gaussian kernel is `exp(−‖x − y‖²/σ²)` (§5.2), i.e. kern's
//! `gaussian:sigma=σ` ([`Gaussian::with_sigma`]). KFA is used as the library ships it: FVS with the exact
//! greedy step, the dot-product projection of eq. 9 and least squares with a bias (eq. 10); binary
//! targets are `±1` and the decision is the sign, several classes are one-hot and the decision is the
//! argmax (§3).

use crate::Result;
use crate::datasets::{Loaded, load_csv, rng};
use crate::figures::{Grid, Group, Series, field, line_chart, scatter_plot};
use crate::items::{Item, mean_sd};
use crate::papers::versus_random::VersusRandom;
use crate::registry::{Claim, Ctx, Kind, Outcome, Row, Status};
use crate::tuning::{DECADE, search_extending};
use faer::Mat;
use kern_core::io::LabelColumn;
use kern_core::learner::{Fit, Model};
use kern_core::{
    BinaryTargets, ClassTargets, Gaussian, Kernel, LinearSpline, Polynomial, RealTargets, Samples,
};
use kern_models::fvs::{self, FvsParams, Strategy};
use kern_models::kfa::{BasisChoice, KfaParams, basis_path};
use kern_models::svm::{SvcParams, SvrParams};
use kern_tune::cv::{CvConfig, Validation, make_folds};
use kern_tune::grid::{GridSearchConfig, ParamGrid, grid_search};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use serde_json::json;

// ---------------------------------------------------------------------------------------------------
// Generators and exact quantities.
// ---------------------------------------------------------------------------------------------------

/// `Φ(x)`, the standard normal distribution function, to about 1e-14 (series of erf for `|z| < 3`, the
/// continued fraction of erfc beyond).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

fn erfc(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    if z < -3.0 {
        return 2.0 - erfc(-z);
    }
    if z < 3.0 {
        // erf(z) = 2/√π Σ (−1)ⁿ z^{2n+1} / (n! (2n+1)).
        let (mut term, mut sum, z2) = (z, z, z * z);
        for n in 1..200 {
            term *= -z2 / n as f64;
            let t = term / (2 * n + 1) as f64;
            sum += t;
            if t.abs() < 1e-17 * sum.abs().max(1e-300) {
                break;
            }
        }
        return 1.0 - sum * 2.0 / std::f64::consts::PI.sqrt();
    }
    // erfc(z) = e^{−z²}/√π · 1/(z + (1/2)/(z + 1/(z + (3/2)/(z + …)))), evaluated backwards.
    let mut t = z;
    for k in (1..=80).rev() {
        t = z + (k as f64 / 2.0) / t;
    }
    (-z * z).exp() / std::f64::consts::PI.sqrt() / t
}

/// Composite Simpson rule of `f` over `[a, b]` with `m` (even) intervals.
fn simpson(f: impl Fn(f64) -> f64, a: f64, b: f64, m: usize) -> f64 {
    let h = (b - a) / m as f64;
    let mut s = f(a) + f(b);
    for i in 1..m {
        s += f(a + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    s * h / 3.0
}

/// The two Gaussian classes of §5.2: class −1 from `N((−1, 0), I)`, class +1 from
/// `N((1, 0), diag(1, 0.1))`, equal priors.
#[derive(Clone, Copy, Debug)]
pub struct TwoGaussians;

impl TwoGaussians {
    /// Variance of the second coordinate of class +1.
    pub const VAR_POS_X2: f64 = 0.1;

    /// `n_per` points per class (alternating −1, +1) and their labels.
    pub fn sample(&self, n_per: usize, seed: u64) -> (Samples, Vec<f64>) {
        let mut r = rng(seed);
        let mut data = Vec::with_capacity(4 * n_per);
        let mut y = Vec::with_capacity(2 * n_per);
        let s2 = Self::VAR_POS_X2.sqrt();
        for i in 0..2 * n_per {
            let (a, b): (f64, f64) = (StandardNormal.sample(&mut r), StandardNormal.sample(&mut r));
            if i % 2 == 0 {
                data.extend([a - 1.0, b]);
                y.push(-1.0);
            } else {
                data.extend([a + 1.0, s2 * b]);
                y.push(1.0);
            }
        }
        (Samples::from_flat(data, 2 * n_per, 2).expect("finite"), y)
    }

    /// `log p(x | +1) − log p(x | −1)`. Worked out, it is `2x₁ − 4.5x₂² − ½ ln 0.1`: the Bayes boundary
    /// is the parabola `x₁ = 2.25 x₂² + ¼ ln 0.1`.
    pub fn log_ratio(&self, x: [f64; 2]) -> f64 {
        let v = Self::VAR_POS_X2;
        let lp = -0.5 * (x[0] - 1.0).powi(2) - 0.5 * x[1] * x[1] / v - 0.5 * v.ln();
        let ln = -0.5 * (x[0] + 1.0).powi(2) - 0.5 * x[1] * x[1];
        lp - ln
    }

    /// The exact Bayes accuracy. Class −1 is predicted where `x₁ < t(x₂) = 2.25 x₂² + ¼ ln 0.1`, so with
    /// the coordinates independent within each class,
    /// `acc = ½ ∫ φ(u) Φ(t(u) + 1) du + ½ ∫ φ(u/√0.1)/√0.1 · Φ(1 − t(u)) du`,
    /// two one-dimensional integrals of smooth functions (Simpson, 20 000 intervals over ±12 sd).
    pub fn bayes_accuracy(&self) -> f64 {
        let v = Self::VAR_POS_X2;
        let t = |u: f64| 2.25 * u * u + 0.25 * v.ln();
        let phi = |u: f64| (-0.5 * u * u).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let neg = simpson(|u| phi(u) * normal_cdf(t(u) + 1.0), -12.0, 12.0, 20_000);
        let sd = v.sqrt();
        let pos = simpson(|u| phi(u / sd) / sd * normal_cdf(1.0 - t(u)), -12.0 * sd, 12.0 * sd, 20_000);
        0.5 * (neg + pos)
    }
}

/// Two concentric circles of radius 1 (label +1) and 0.5 (label −1), `n_per` points each at seeded
/// uniform angles (§5.1).
fn two_circles(n_per: usize, seed: u64) -> (Samples, Vec<f64>) {
    let mut r = rng(seed);
    let mut rows = Vec::with_capacity(2 * n_per);
    let mut y = Vec::with_capacity(2 * n_per);
    for i in 0..2 * n_per {
        let a = r.random::<f64>() * std::f64::consts::TAU;
        let (rad, label) = if i % 2 == 0 { (1.0, 1.0) } else { (0.5, -1.0) };
        rows.push([rad * a.cos(), rad * a.sin()]);
        y.push(label);
    }
    (Samples::from_rows(&rows).expect("finite"), y)
}

/// Three nested, non-linearly separable clusters (§5.3 gives no shapes; this is our assumption): class 0
/// a blob `N(0, 0.2² I)`, class 1 a ring of radius 1 and class 2 a ring of radius 2, both with radial
/// noise `N(0, 0.08²)` at uniform angles. `n_per` points per class, interleaved 0, 1, 2, 0, ….
fn three_clusters(n_per: usize, seed: u64) -> (Samples, Vec<usize>) {
    let mut r = rng(seed);
    let mut rows = Vec::with_capacity(3 * n_per);
    let mut y = Vec::with_capacity(3 * n_per);
    for i in 0..3 * n_per {
        let c = i % 3;
        let (a, b): (f64, f64) = (StandardNormal.sample(&mut r), StandardNormal.sample(&mut r));
        let p = if c == 0 {
            [0.2 * a, 0.2 * b]
        } else {
            let t = r.random::<f64>() * std::f64::consts::TAU;
            let rad = c as f64 + 0.08 * a;
            [rad * t.cos(), rad * t.sin()]
        };
        rows.push(p);
        y.push(c);
    }
    (Samples::from_rows(&rows).expect("finite"), y)
}

/// The two readings of §5.5's sinc (READINGS.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SincForm {
    /// `sin(πx) / (πx)`, as the paper prints it (the main reading).
    Printed,
    /// `sin x / x`, the function of the paper's reference \[15\] (a labelled variant).
    Reference,
}

impl SincForm {
    /// The function (1 at 0).
    fn eval(self, x: f64) -> f64 {
        let u = match self {
            SincForm::Printed => std::f64::consts::PI * x,
            SincForm::Reference => x,
        };
        if u.abs() < 1e-12 { 1.0 } else { u.sin() / u }
    }

    fn name(self) -> &'static str {
        match self {
            SincForm::Printed => "sin πx / πx",
            SincForm::Reference => "sin x / x",
        }
    }
}

/// `n` points `x ~ U[−10, 10]`, `y = sinc x + N(0, noise²)` (the interval of the paper's reference
/// \[15\]; the paper prints none). The draws of `x` and of the noise do not depend on `form`.
fn noisy_sinc(form: SincForm, n: usize, noise: f64, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut r = rng(seed);
    let x: Vec<f64> = (0..n).map(|_| -10.0 + 20.0 * r.random::<f64>()).collect();
    let y = x
        .iter()
        .map(|&v| {
            let e: f64 = StandardNormal.sample(&mut r);
            form.eval(v) + noise * e
        })
        .collect();
    (x, y)
}

/// Fraction of signs that agree.
pub(crate) fn sign_accuracy(pred: &[f64], truth: &[f64]) -> f64 {
    pred.iter().zip(truth).filter(|(p, t)| (**p > 0.0) == (**t > 0.0)).count() as f64 / truth.len() as f64
}

/// The outputs on `xte` of KFA fitted on the first `l` vectors of the selection `sel`, for every `l` in
/// `sizes` ([`basis_path`]: one selection gives the whole curve, since a greedy selection is nested);
/// sizes beyond the selection (FVS stopped early with a basis) are clamped to its length.
fn kfa_path<K: Kernel>(
    k: &K,
    xtr: &Samples,
    ytr: &Mat<f64>,
    xte: &Samples,
    sel: &fvs::Fvs,
    sizes: &[usize],
) -> Result<Vec<Mat<f64>>> {
    let s: Vec<usize> = sizes.iter().map(|&l| l.min(sel.selected.len())).collect();
    Ok(basis_path(k, xtr, ytr.as_ref(), sel, &s, xte)?)
}

fn column(y: &[f64]) -> Mat<f64> {
    Mat::from_fn(y.len(), 1, |i, _| y[i])
}

fn col0(m: &Mat<f64>) -> Vec<f64> {
    (0..m.nrows()).map(|i| m[(i, 0)]).collect()
}

fn exact(max: usize) -> FvsParams {
    FvsParams { max_fv: Some(max), strategy: Strategy::Exact, ..Default::default() }
}

fn points_of(x: &Samples, idx: impl Iterator<Item = usize>) -> Vec<(f64, f64)> {
    idx.map(|i| (x.row(i)[0], x.row(i)[1])).collect()
}

fn grid_samples(x: (f64, f64), y: (f64, f64), cells: usize) -> Result<Samples> {
    let c = Grid::centres(x, y, cells);
    Ok(Samples::from_flat(c.iter().flat_map(|p| [p.0, p.1]).collect(), c.len(), 2)?)
}

pub(crate) fn pct(a: f64) -> String {
    format!("{:.1} %", 100.0 * a)
}

// ---------------------------------------------------------------------------------------------------
// §5.1: two circles.
// ---------------------------------------------------------------------------------------------------

/// §5.1: two circles (radius 1 and 0.5, 50 points each at random angles), the homogeneous degree-2
/// polynomial kernel `(x·y)²` whose feature space is 3-dimensional. FVS (exact greedy) runs until no
/// sample is left outside the span; KFA separates the circles.
/// `results`: `{n_fv, stop, fitness: [J after 1, 2, … FVs], selected, train_accuracy, test_accuracy,
/// boundary_radius: {min, max}}` (test: 1000 fresh points; the radius of the KFA zero level along 72
/// directions).
pub fn circles(ctx: &Ctx) -> Result<Status> {
    let n_per = 50;
    let (x, y) = two_circles(n_per, ctx.seed);
    let (xt, yt) = two_circles(500, ctx.seed + 1);
    let k = Polynomial::new(2, 0.0)?;
    let sel = fvs::select(&k, &x, &FvsParams { strategy: Strategy::Exact, ..Default::default() })?;
    let model = KfaParams::new(k).fit(&x, &BinaryTargets::from_f64(&y)?)?;
    let train_acc = sign_accuracy(&model.predict(&x)?, &y);
    let test_acc = sign_accuracy(&model.predict(&xt)?, &yt);
    // The output is f(x) = q(x) + β with q a quadratic form (φ(0) = 0 ⇒ f(0) = β), so along direction θ
    // the zero level sits at r* = √(−β / q(θ)).
    let dirs: Vec<[f64; 2]> = (0..72)
        .map(|j| {
            let t = j as f64 * std::f64::consts::TAU / 72.0;
            [t.cos(), t.sin()]
        })
        .chain(std::iter::once([0.0, 0.0]))
        .collect();
    let out = col0(&model.outputs(&Samples::from_rows(&dirs)?)?);
    let beta = out[72];
    let radii: Vec<f64> = out[..72].iter().map(|f| (-beta / (f - beta)).sqrt()).collect();
    let (rmin, rmax) =
        radii.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &r| (a.min(r), b.max(r)));
    let cells = 100;
    let (gx, gy) = ((-1.3, 1.3), (-1.3, 1.3));
    let g = Grid { x: gx, y: gy, cells, values: col0(&model.outputs(&grid_samples(gx, gy, cells)?)?) };
    let fig = "fvs-circles-boundary.svg";
    field(
        &ctx.dir.join(fig),
        "§5.1: two circles, (x·y)² kernel: KFA boundary and the 3 FVs",
        &g,
        true,
        &[&g],
        &[
            Group::points("radius 1 (+1)", points_of(&x, (0..x.n()).filter(|&i| y[i] > 0.0))),
            Group::points("radius 0.5 (−1)", points_of(&x, (0..x.n()).filter(|&i| y[i] < 0.0))),
            Group {
                name: "feature vectors".into(),
                points: points_of(&x, sel.selected.iter().copied()),
                sizes: vec![1.0; sel.selected.len()],
            },
        ],
    )?;
    let fig2 = "fvs-circles-fitness.svg";
    line_chart(
        &ctx.dir.join(fig2),
        "§5.1: fitness J_S (eq. 7) against the number of FVs",
        "feature vectors",
        "J_S",
        &[Series {
            name: "J_S".into(),
            points: sel.fitness.iter().enumerate().map(|(i, &f)| ((i + 1) as f64, f)).collect(),
        }],
    )?;
    let l = sel.selected.len();
    let claims = vec![
        Claim {
            kind: Kind::Paper,
            source: "§5.1".into(),
            claim: "the data need only three samples to be expressed in F (FVS finds 3 FVs, J_S = 1)".into(),
            holds: l == 3
                && (sel.final_fitness() - 1.0).abs() < 1e-9
                && sel.fitness[..l - 1].iter().all(|&f| f < 1.0 - 1e-6),
            evidence: format!(
                "{l} FVs, stop = {}, J_S after each FV = {:?}",
                sel.stop.name(),
                sel.fitness.iter().map(|f| format!("{f:.6}")).collect::<Vec<_>>()
            ),
        },
        Claim {
            kind: Kind::Paper,
            source: "§5.1, Fig. 2".into(),
            claim:
                "the KFA separation is a circle in X whose image is a plane separating the two circles in F"
                    .into(),
            holds: train_acc == 1.0
                && test_acc == 1.0
                && rmin > 0.5
                && rmax < 1.0
                && (rmax - rmin) < 0.05 * rmin,
            evidence: format!(
                "train accuracy {train_acc:.3}, test accuracy {test_acc:.3} (1000 fresh points); boundary radius {rmin:.4}–{rmax:.4} over 72 directions"
            ),
        },
    ];
    let table = vec![
        Row {
            quantity: "feature vectors".into(),
            paper: "3".into(),
            ours: format!("{l}"),
            note: format!("stop: {}; dim F = 3 for (x·y)² in R²", sel.stop.name()),
        },
        Row {
            quantity: "fitness J_S at the last FV".into(),
            paper: "1 (maximum of eq. 7)".into(),
            ours: format!("{:.12}", sel.final_fitness()),
            note: "".into(),
        },
        Row {
            quantity: "KFA training / test accuracy".into(),
            paper: "separates (Fig. 2)".into(),
            ours: format!("{} / {}", pct(train_acc), pct(test_acc)),
            note: format!("{n_per} points per circle at random angles; 1000 test points"),
        },
        Row {
            quantity: "KFA boundary radius".into(),
            paper: "a circle (Fig. 2a)".into(),
            ours: format!("{rmin:.4}–{rmax:.4}"),
            note: "zero level of eq. 10 along 72 directions; Fig. 2b (3-D image in F) not drawn".into(),
        },
    ];
    Ok(Status::Done(Outcome {
        results: json!({"n_fv": l, "stop": sel.stop.name(), "fitness": sel.fitness, "selected": sel.selected,
                        "train_accuracy": train_acc, "test_accuracy": test_acc,
                        "boundary_radius": {"min": rmin, "max": rmax}}),
        sizes: json!({"train_per_circle": n_per, "test": 1000, "kernel": "poly:degree=2,coef0=0"}),
        seeds: vec![ctx.seed, ctx.seed + 1],
        table,
        claims,
        figures: vec![fig.into(), fig2.into()],
        items: vec![Item::derived(Kind::Paper, "§5.1, feature vectors found", 3.0, l as f64)],
        captions: Vec::new(),
    }))
}

// ---------------------------------------------------------------------------------------------------
// §5.2 / Table 1: two Gaussians.
// ---------------------------------------------------------------------------------------------------

/// Table 1 / Fig. 3: two Gaussian classes (100 per class), Gaussian kernel σ = 1 (`exp(−r²/σ²)`), test on
/// 100 000 points (20 000 in quick mode). Bayes accuracy exact (1-D quadrature of the closed-form
/// boundary, [`TwoGaussians::bayes_accuracy`]); SVM with C by 10-fold CV (the paper gives no C); KFA
/// with the paper's 23 FVs, and with L chosen by 10-fold CV; the test accuracy along L = 1..60.
/// `results`: `{bayes_accuracy, bayes_rule_test_accuracy, svm: {c, accuracy, n_sv}, kfa: {n_fv, accuracy,
/// fitness}, kfa_cv: {n_fv, accuracy}, draws: [{svm_accuracy, svm_n_sv, kfa_accuracy}], path: [{l,
/// accuracy}]}` (`draws`: 10 other training sets, 2 in quick mode, on the same test set).
pub fn gaussians(ctx: &Ctx) -> Result<Status> {
    let gm = TwoGaussians;
    let n_test = if ctx.quick { 20_000 } else { 100_000 };
    let (x, y) = gm.sample(100, ctx.seed);
    let (xt, yt) = gm.sample(n_test / 2, ctx.seed + 1);
    let yb = BinaryTargets::from_f64(&y)?;
    let bayes = gm.bayes_accuracy();
    let bayes_rule = (0..xt.n())
        .filter(|&i| (gm.log_ratio([xt.row(i)[0], xt.row(i)[1]]) > 0.0) == (yt[i] > 0.0))
        .count() as f64
        / xt.n() as f64;
    let k = Gaussian::with_sigma(1.0)?;
    // SVM: C by 10-fold CV (5-fold, coarser grid in quick mode).
    let (folds, cgrid) = if ctx.quick { (5, "c=2^-5..2^15:11") } else { (10, "c=2^-5..2^15:21") };
    let cfg = GridSearchConfig { cv: CvConfig::k_fold(folds, ctx.seed + 2), refit: true };
    // C on a log₂ grid, extended by about a decade (2³) per step while the choice is on its edge.
    let svc_search = |x: &Samples, y: &BinaryTargets, spec: &str, cfg: &GridSearchConfig| {
        search_extending(&spec.parse::<ParamGrid>()?, &["c"], DECADE, |g| {
            Ok(grid_search(
                g,
                |p| Ok::<_, kern_models::ModelsError>(SvcParams::new("gaussian:sigma=1".parse()?).c(p["c"])),
                x,
                y,
                cfg,
            )?)
        })
    };
    let ext = svc_search(&x, &yb, cgrid, &cfg)?;
    let cgrid_used = ext.describe();
    let rep = ext.report;
    let svm = crate::tuning::refitted(&rep.model)?;
    let svm_c = rep.best_params()["c"];
    let svm_acc = sign_accuracy(&svm.predict(&xt)?, &yt);
    let n_sv = svm.n_sv();
    // KFA with the paper's 23 FVs.
    let kfa = KfaParams::new(k).basis(BasisChoice::Fvs(exact(23))).fit(&x, &yb)?;
    let kfa_acc = sign_accuracy(&kfa.predict(&xt)?, &yt);
    let fit23 = kfa.layers()[0].fitness().last().copied().unwrap_or(0.0);
    // KFA with L by CV.
    let lspec = if ctx.quick { "l=[5,10,15,23,30,40]" } else { "l=2..60:30" };
    let lgrid: ParamGrid = lspec.parse()?;
    let lrep = grid_search(
        &lgrid,
        |p| {
            Ok::<_, kern_models::ModelsError>(
                KfaParams::new(k).basis(BasisChoice::Fvs(exact(p["l"] as usize))),
            )
        },
        &x,
        &yb,
        &cfg,
    )?;
    let lcv = lrep.best_params()["l"] as usize;
    let kfa_cv = crate::tuning::refitted(&lrep.model)?;
    let kfa_cv_acc = sign_accuracy(&kfa_cv.predict(&xt)?, &yt);
    // Path: test accuracy against L.
    let lmax = 60;
    let sel = fvs::select(&k, &x, &exact(lmax))?;
    let sizes: Vec<usize> = (1..=sel.selected.len()).collect();
    let outs = kfa_path(&k, &x, &column(&y), &xt, &sel, &sizes)?;
    let path: Vec<(usize, f64)> =
        sizes.iter().zip(&outs).map(|(&l, o)| (l, sign_accuracy(&col0(o), &yt))).collect();
    let (best_l, best_acc) = path.iter().copied().fold((0, 0.0), |b, p| if p.1 > b.1 { p } else { b });
    // Other training draws (the paper reports one): SVM with C by 5-fold CV, KFA with 23 FVs.
    let draws = if ctx.quick { 2 } else { 10 };
    let rcfg = |r: u64| GridSearchConfig { cv: CvConfig::k_fold(5, ctx.seed + 20 + r), refit: true };
    let reps: Vec<(f64, usize, f64)> = (0..draws as u64)
        .map(|r| -> Result<(f64, usize, f64)> {
            let (xr, yr) = gm.sample(100, ctx.seed + 10 + r);
            let ybr = BinaryTargets::from_f64(&yr)?;
            let rep = svc_search(&xr, &ybr, "c=2^-5..2^15:11", &rcfg(r))?.report;
            let m = crate::tuning::refitted(&rep.model)?;
            let kf = KfaParams::new(k).basis(BasisChoice::Fvs(exact(23))).fit(&xr, &ybr)?;
            Ok((sign_accuracy(&m.predict(&xt)?, &yt), m.n_sv(), sign_accuracy(&kf.predict(&xt)?, &yt)))
        })
        .collect::<Result<_>>()?;
    let mean = |f: &dyn Fn(&(f64, usize, f64)) -> f64| reps.iter().map(f).sum::<f64>() / reps.len() as f64;
    let (rsvm, rsv, rkfa) = (mean(&|r| r.0), mean(&|r| r.1 as f64), mean(&|r| r.2));
    let kfa_wins = reps.iter().filter(|r| r.2 >= r.0).count();
    // Figures.
    let (gx, gy, cells) = ((-4.5, 4.5), (-3.5, 3.5), 100);
    let gs = grid_samples(gx, gy, cells)?;
    let bayes_g = Grid::sample(gx, gy, cells, |a, b| gm.log_ratio([a, b]));
    let kfa_g = Grid { x: gx, y: gy, cells, values: col0(&kfa.outputs(&gs)?) };
    let svm_g =
        Grid { x: gx, y: gy, cells, values: svm.decision_function(&gs)?.col(0).iter().copied().collect() };
    let classes = |extra: Group| {
        vec![
            Group::points("class −1: N((−1,0), I)", points_of(&x, (0..x.n()).filter(|&i| y[i] < 0.0))),
            Group::points(
                "class +1: N((1,0), diag(1, 0.1))",
                points_of(&x, (0..x.n()).filter(|&i| y[i] > 0.0)),
            ),
            extra,
        ]
    };
    let fv_pts = points_of(&x, kfa.layers()[0].selected().iter().copied());
    let sv = svm.support_vectors();
    let sv_pts = points_of(sv, 0..sv.n());
    field(
        &ctx.dir.join("fvs-gaussians-kfa.svg"),
        "Fig. 3: KFA (23 FVs) and Bayes boundaries",
        &kfa_g,
        true,
        &[&kfa_g, &bayes_g],
        &classes(Group { name: "feature vectors".into(), sizes: vec![1.0; fv_pts.len()], points: fv_pts }),
    )?;
    field(
        &ctx.dir.join("fvs-gaussians-svm.svg"),
        "SVM and Bayes boundaries",
        &svm_g,
        true,
        &[&svm_g, &bayes_g],
        &classes(Group { name: "support vectors".into(), sizes: vec![1.0; sv_pts.len()], points: sv_pts }),
    )?;
    line_chart(
        &ctx.dir.join("fvs-gaussians-path.svg"),
        "Test accuracy against the number of FVs",
        "feature vectors L",
        "test accuracy",
        &[
            Series { name: "KFA".into(), points: path.iter().map(|&(l, a)| (l as f64, a)).collect() },
            Series { name: "Bayes (exact)".into(), points: vec![(1.0, bayes), (sizes.len() as f64, bayes)] },
            Series { name: "SVM".into(), points: vec![(1.0, svm_acc), (sizes.len() as f64, svm_acc)] },
        ],
    )?;
    let sd = (bayes * (1.0 - bayes) / n_test as f64).sqrt();
    let claims = vec![
        Claim {
            kind: Kind::Paper,
            source: "§5.2, Table 1".into(),
            claim: "KFA (23 FV) classifies slightly better than the SVM (paper 88.6 % vs 88.2 %; checked on our draw and on the mean of 10 others)".into(),
            holds: kfa_acc >= svm_acc && rkfa >= rsvm,
            evidence: format!(
                "KFA {} vs SVM {} on {n_test} test points (sd of each ≈ {:.2} %); over {draws} other training draws KFA {} vs SVM {} (KFA ≥ SVM in {kfa_wins})",
                pct(kfa_acc),
                pct(svm_acc),
                100.0 * sd,
                pct(rkfa),
                pct(rsvm)
            ),
        },
        Claim {
            kind: Kind::Paper,
            source: "§5.2, Table 1".into(),
            claim: "KFA needs fewer feature vectors than the SVM needs support vectors (23 FV vs 54 SV)"
                .into(),
            holds: 23 < n_sv,
            evidence: format!("23 FV vs {n_sv} SV (C = {svm_c} by CV)"),
        },
        Claim {
            kind: Kind::Paper,
            source: "§5.2, Table 1".into(),
            claim: "KFA reaches the optimum (Bayes) to within 0.5 % with 23 FVs (paper 88.6 vs 88.8 %)"
                .into(),
            holds: bayes - kfa_acc <= 0.005,
            evidence: format!(
                "Bayes {} (exact), KFA {}; best along the path {} at L = {best_l}; KFA mean over {draws} other draws {}",
                pct(bayes),
                pct(kfa_acc),
                pct(best_acc),
                pct(rkfa)
            ),
        },
        Claim {
            kind: Kind::Identity,
            source: "".into(),
            claim: "no classifier beats the Bayes rule".into(),
            holds: best_acc.max(svm_acc).max(kfa_cv_acc) <= bayes + 3.0 * sd,
            evidence: format!(
                "best test accuracy {} vs Bayes {} (+3 sd = {})",
                pct(best_acc.max(svm_acc).max(kfa_cv_acc)),
                pct(bayes),
                pct(bayes + 3.0 * sd)
            ),
        },
    ];
    // Items (accuracies in %): the tolerance of our draw's SVM / KFA numbers is the sd over the other
    // training draws (each scored on the same test set).
    let sd_of = |f: &dyn Fn(&(f64, usize, f64)) -> f64| mean_sd(&reps.iter().map(f).collect::<Vec<_>>()).1;
    let draw = "our training draw (the paper's is not published)";
    let items = vec![
        Item::derived(Kind::Paper, "Table 1, Bayes accuracy (%)", 88.8, 100.0 * bayes),
        Item::sampled(
            Kind::Paper,
            "Table 1, SVM accuracy (%)",
            88.2,
            100.0 * svm_acc,
            100.0 * sd_of(&|r| r.0),
        )
        .because(draw),
        Item::sampled(
            Kind::Paper,
            "Table 1, KFA accuracy, 23 FV (%)",
            88.6,
            100.0 * kfa_acc,
            100.0 * sd_of(&|r| r.2),
        )
        .because(draw),
        Item::sampled(Kind::Paper, "Table 1, SVM support vectors", 54.0, n_sv as f64, sd_of(&|r| r.1 as f64))
            .because(format!(
                "the SVM's C = {svm_c} is chosen by {folds}-fold CV over {cgrid_used} (the paper's C is not given)"
            )),
        Item::derived(Kind::Identity, "Table 1, KFA feature vectors", 23.0, 23.0)
            .because("L is fixed at the paper's 23"),
    ];
    let table = vec![
        Row {
            quantity: "Bayes accuracy".into(),
            paper: "88.8 %".into(),
            ours: format!("{:.2} %", 100.0 * bayes),
            note: format!("exact (quadrature); the Bayes rule scores {} on our test set", pct(bayes_rule)),
        },
        Row {
            quantity: "SVM accuracy".into(),
            paper: "88.2 %".into(),
            ours: pct(svm_acc),
            note: format!("C = {svm_c} by {folds}-fold CV over {cgrid_used} (paper: OSU SVM, C not given)"),
        },
        Row {
            quantity: "SVM support vectors".into(),
            paper: "54".into(),
            ours: format!("{n_sv}"),
            note: "".into(),
        },
        Row {
            quantity: "KFA accuracy, 23 FV".into(),
            paper: "88.6 %".into(),
            ours: pct(kfa_acc),
            note: format!("L fixed at the paper's 23; fitness J_S = {fit23:.4}"),
        },
        Row {
            quantity: format!("mean over {draws} other training draws: SVM / KFA (23 FV)"),
            paper: "88.2 % / 88.6 %".into(),
            ours: format!("{} ({rsv:.1} SV) / {}", pct(rsvm), pct(rkfa)),
            note: format!(
                "SVM C by 5-fold CV over c=2^-5..2^15:11, extended while the choice is on an edge; KFA ≥ SVM in {kfa_wins}/{draws} draws"
            ),
        },
        Row {
            quantity: "KFA with L by CV".into(),
            paper: "—".into(),
            ours: format!("{} with {lcv} FV", pct(kfa_cv_acc)),
            note: format!("{folds}-fold CV over {lspec}"),
        },
    ];
    Ok(Status::Done(Outcome {
        results: json!({"bayes_accuracy": bayes, "bayes_rule_test_accuracy": bayes_rule,
                        "svm": {"c": svm_c, "c_grid": cgrid_used, "accuracy": svm_acc, "n_sv": n_sv},
                        "kfa": {"n_fv": 23, "accuracy": kfa_acc, "fitness": fit23},
                        "kfa_cv": {"n_fv": lcv, "accuracy": kfa_cv_acc},
                        "draws": reps.iter().map(|r| json!({"svm_accuracy": r.0, "svm_n_sv": r.1, "kfa_accuracy": r.2})).collect::<Vec<_>>(),
                        "path": path.iter().map(|&(l, a)| json!({"l": l, "accuracy": a})).collect::<Vec<_>>()}),
        sizes: json!({"train_per_class": 100, "test": n_test, "sigma": 1.0, "cv_folds": folds, "other_draws": draws}),
        seeds: [ctx.seed, ctx.seed + 1, ctx.seed + 2]
            .into_iter()
            .chain((0..draws as u64).flat_map(|r| [ctx.seed + 10 + r, ctx.seed + 20 + r]))
            .collect(),
        table,
        claims,
        figures: vec![
            "fvs-gaussians-kfa.svg".into(),
            "fvs-gaussians-svm.svg".into(),
            "fvs-gaussians-path.svg".into(),
        ],
        items,
        captions: vec![
            (
                "fvs-gaussians-kfa.svg".into(),
                format!(
                    "KFA with 23 FVs: test accuracy {} on {n_test} points (Bayes {}), fitness J_S = {fit23:.4}.",
                    pct(kfa_acc),
                    pct(bayes)
                ),
            ),
            (
                "fvs-gaussians-svm.svg".into(),
                format!(
                    "SVM with C = {svm_c} by {folds}-fold CV over {cgrid_used}: {n_sv} SVs, test accuracy {}.",
                    pct(svm_acc)
                ),
            ),
            (
                "fvs-gaussians-path.svg".into(),
                format!(
                    "Best KFA {} at L = {best_l}; SVM {} with {n_sv} SVs; Bayes {}.",
                    pct(best_acc),
                    pct(svm_acc),
                    pct(bayes)
                ),
            ),
        ],
    }))
}

// ---------------------------------------------------------------------------------------------------
// §5.3: three clusters.
// ---------------------------------------------------------------------------------------------------

/// §5.3 / Fig. 4: three non-linearly separable clusters of 128 samples (64 per cluster to learn, 64 to
/// test, as the paper's figure shows 64 per cluster), Gaussian kernel σ = 1 (the paper does not give
/// it; the clusters are our assumption, see `three_clusters`), KFA with 23 FVs and one-hot outputs
/// (argmax decision), beside a one-vs-one SVM (C by 5-fold CV) and a large fresh test set.
/// `results`: `{kfa: {n_fv, fitness, test_accuracy, large_test_accuracy}, svm: {c, n_sv, test_accuracy,
/// large_test_accuracy}}`.
pub fn clusters(ctx: &Ctx) -> Result<Status> {
    let (x, y) = three_clusters(64, ctx.seed);
    let (xt, yt) = three_clusters(64, ctx.seed + 1);
    let n_big = if ctx.quick { 2000 } else { 10_000 };
    let (xb, yb) = three_clusters(n_big, ctx.seed + 2);
    let yc = ClassTargets::from_labels(&y.iter().map(|c| c.to_string()).collect::<Vec<_>>())?;
    let sigma = 1.0;
    let k = Gaussian::with_sigma(sigma)?;
    let kfa = KfaParams::new(k).basis(BasisChoice::Fvs(exact(23))).fit(&x, &yc)?;
    let acc = |p: &[f64], t: &[usize]| {
        p.iter().zip(t).filter(|(p, t)| **p as usize == **t).count() as f64 / t.len() as f64
    };
    let kfa_test = acc(&kfa.predict(&xt)?, &yt);
    let kfa_big = acc(&kfa.predict(&xb)?, &yb);
    let fit = kfa.layers()[0].fitness().last().copied().unwrap_or(0.0);
    let cfg = GridSearchConfig { cv: CvConfig::k_fold(5, ctx.seed + 3), refit: true };
    let ext = search_extending(&"c=2^-5..2^15:11".parse::<ParamGrid>()?, &["c"], DECADE, |g| {
        Ok(grid_search(
            g,
            |p| {
                Ok::<_, kern_models::ModelsError>(
                    SvcParams::new(format!("gaussian:sigma={sigma}").parse()?).c(p["c"]),
                )
            },
            &x,
            &yc,
            &cfg,
        )?)
    })?;
    let cgrid_used = ext.describe();
    let rep = ext.report;
    let svm = crate::tuning::refitted(&rep.model)?;
    let svm_c = rep.best_params()["c"];
    let to_f = |v: Vec<usize>| v.into_iter().map(|c| c as f64).collect::<Vec<_>>();
    let svm_test = acc(&to_f(svm.predict_class(&xt)?), &yt);
    let svm_big = acc(&to_f(svm.predict_class(&xb)?), &yb);
    // Fig. 4b: the outputs ŷ_c cut at 0.5.
    let (gx, gy, cells) = ((-2.6, 2.6), (-2.6, 2.6), 100);
    let out = kfa.outputs(&grid_samples(gx, gy, cells)?)?;
    let g = |c: usize| Grid {
        x: gx,
        y: gy,
        cells,
        values: (0..out.nrows()).map(|i| out[(i, c)] - 0.5).collect(),
    };
    let (g0, g1, g2) = (g(0), g(1), g(2));
    let fig = "fvs-clusters-boundary.svg";
    let sel = kfa.layers()[0].selected();
    field(
        &ctx.dir.join(fig),
        "Fig. 4: three clusters, 23 FVs; ŷ_c = 0.5 for each class (shading: ŷ_1 − 0.5)",
        &g1,
        true,
        &[&g0, &g1, &g2],
        &[
            Group::points("cluster 0", points_of(&x, (0..x.n()).filter(|&i| y[i] == 0))),
            Group::points("cluster 1", points_of(&x, (0..x.n()).filter(|&i| y[i] == 1))),
            Group::points("cluster 2", points_of(&x, (0..x.n()).filter(|&i| y[i] == 2))),
            Group {
                name: "feature vectors".into(),
                points: points_of(&x, sel.iter().copied()),
                sizes: vec![1.0; sel.len()],
            },
        ],
    )?;
    let claims = vec![
        Claim {
            kind: Kind::PaperStandIn,
            source: "§5.3, Fig. 4".into(),
            claim: "KFA with 23 FVs separates the three (separable) clusters".into(),
            holds: kfa_test >= 0.98 && kfa_big >= 0.98,
            evidence: format!(
                "test accuracy {} (192 points), {} ({} fresh points); J_S = {fit:.4}",
                pct(kfa_test),
                pct(kfa_big),
                3 * n_big
            ),
        },
        Claim {
            kind: Kind::PaperStandIn,
            source: "§5.3".into(),
            claim: "one multi-output KFA does as well as the pairwise (one-vs-one) SVM on several classes"
                .into(),
            holds: kfa_big >= svm_big - 0.01,
            evidence: format!(
                "KFA {} vs SVM {} (C = {svm_c}, {} SVs) on {} fresh points",
                pct(kfa_big),
                pct(svm_big),
                svm.n_sv(),
                3 * n_big
            ),
        },
    ];
    let table = vec![
        Row {
            quantity: "feature vectors".into(),
            paper: "23".into(),
            ours: "23".into(),
            note: format!("fixed at the paper's count; fitness J_S = {fit:.4}"),
        },
        Row {
            quantity: "KFA test accuracy".into(),
            paper: "— (separates, Fig. 4b)".into(),
            ours: format!("{} / {}", pct(kfa_test), pct(kfa_big)),
            note: format!(
                "64 + 64 per cluster / {n_big} fresh per cluster; clusters assumed: blob N(0, 0.2²I), rings r = 1, 2 (sd 0.08); σ = {sigma} assumed"
            ),
        },
        Row {
            quantity: "one-vs-one SVM test accuracy".into(),
            paper: "—".into(),
            ours: format!("{} / {}", pct(svm_test), pct(svm_big)),
            note: format!("C = {svm_c} by 5-fold CV over {cgrid_used}, {} SVs", svm.n_sv()),
        },
    ];
    Ok(Status::Done(Outcome {
        results: json!({"kfa": {"n_fv": 23, "fitness": fit, "test_accuracy": kfa_test, "large_test_accuracy": kfa_big},
                        "svm": {"c": svm_c, "c_grid": cgrid_used, "n_sv": svm.n_sv(), "test_accuracy": svm_test, "large_test_accuracy": svm_big}}),
        sizes: json!({"train_per_cluster": 64, "test_per_cluster": 64, "large_test_per_cluster": n_big, "sigma": sigma}),
        seeds: vec![ctx.seed, ctx.seed + 1, ctx.seed + 2, ctx.seed + 3],
        table,
        claims,
        figures: vec![fig.into()],
        items: Vec::new(),
        captions: Vec::new(),
    }))
}

// ---------------------------------------------------------------------------------------------------
// §5.4 / Table 2: Cleveland heart disease.
// ---------------------------------------------------------------------------------------------------

/// How the Cleveland features are scaled before the σ = 10 Gaussian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scaling {
    Raw,
    ZScore,
    MinMax,
}

impl Scaling {
    fn name(self) -> &'static str {
        match self {
            Scaling::Raw => "raw",
            Scaling::ZScore => "z-score",
            Scaling::MinMax => "min-max [0, 1]",
        }
    }

    /// Scales with statistics of the whole data set (the paper's preprocessing, if any, was global).
    fn apply(self, x: &Samples) -> Result<Samples> {
        match self {
            Scaling::Raw => Ok(x.clone()),
            Scaling::ZScore => super::letchford::standardize(x),
            Scaling::MinMax => {
                let r = x.feature_ranges();
                let data = x
                    .rows()
                    .flat_map(|row| {
                        row.iter()
                            .zip(&r)
                            .map(|(v, (lo, hi))| if hi > lo { (v - lo) / (hi - lo) } else { 0.0 })
                    })
                    .collect();
                Ok(Samples::from_flat(data, x.n(), x.d())?)
            }
        }
    }
}

/// Cross-validated accuracies of one scaling: SVM, KFA along L, the RBF-network stand-in.
struct HeartRun {
    svm: f64,
    mean_sv: f64,
    kfa: Vec<f64>,
    rbf: f64,
}

/// `(train indices, test indices)` of every fold.
type Split = (Vec<usize>, Vec<usize>);

fn heart_run(x: &Samples, y: &[f64], folds: &[Split], lmax: usize, seed: u64) -> Result<HeartRun> {
    let k = Gaussian::with_sigma(10.0)?;
    let sizes: Vec<usize> = (1..=lmax).collect();
    type FoldOut = (usize, usize, Vec<usize>, usize);
    let per: Vec<Result<FoldOut>> = folds
        .par_iter()
        .enumerate()
        .map(|(f, (tr, te))| -> Result<FoldOut> {
            let (xtr, xte) = (x.select(tr)?, x.select(te)?);
            let ytr: Vec<f64> = tr.iter().map(|&i| y[i]).collect();
            let yte: Vec<f64> = te.iter().map(|&i| y[i]).collect();
            let yb = BinaryTargets::from_f64(&ytr)?;
            let right = |p: &[f64]| p.iter().zip(&yte).filter(|(p, t)| (**p > 0.0) == (**t > 0.0)).count();
            let svm = SvcParams::new("gaussian:sigma=10".parse()?).c(1000.0).fit(&xtr, &yb)?;
            let svm_ok = right(&svm.predict(&xte)?);
            let sel = fvs::select(&k, &xtr, &exact(lmax))?;
            let outs = kfa_path(&k, &xtr, &column(&ytr), &xte, &sel, &sizes)?;
            let kfa_ok = outs.iter().map(|o| right(&col0(o))).collect();
            let rbf = KfaParams::new(k)
                .basis(BasisChoice::Random { size: 70, seed: seed + f as u64 })
                .fit(&xtr, &yb)?;
            Ok((svm_ok, svm.n_sv(), kfa_ok, right(&rbf.predict(&xte)?)))
        })
        .collect();
    let per = per.into_iter().collect::<Result<Vec<_>>>()?;
    let n: usize = folds.iter().map(|f| f.1.len()).sum();
    let frac = |c: usize| c as f64 / n as f64;
    Ok(HeartRun {
        svm: frac(per.iter().map(|p| p.0).sum()),
        mean_sv: per.iter().map(|p| p.1 as f64).sum::<f64>() / per.len() as f64,
        kfa: (0..lmax).map(|l| frac(per.iter().map(|p| p.2[l]).sum())).collect(),
        rbf: frac(per.iter().map(|p| p.3).sum()),
    })
}

/// Table 2: Cleveland heart disease (the 297 complete rows of `cleveland.csv`, disease = `num > 0`),
/// Gaussian σ = 10, SVM C = 1000, KFA with the paper's 14 FVs (and along L = 1..40), and a stand-in for
/// the paper's Matlab RBF network: 70 random centres with the same least-squares output layer (the
/// paper's network had 70 nodes). Leave-one-out (10-fold, stratified, in quick mode) under three
/// feature scalings — raw, z-score, min-max — since the paper does not say which one σ = 10 refers to.
/// `results`: `{validation, scalings: {NAME: {svm_accuracy, svm_mean_sv, kfa14_accuracy, rbf70_accuracy,
/// kfa_path: [accuracy for L = 1..40], best_l, best_accuracy}}, main}`.
pub fn heart(ctx: &Ctx) -> Result<Status> {
    let ds = match load_csv("cleveland.csv", LabelColumn::Last)? {
        Loaded::Missing(why) => return Ok(Status::Skipped(why)),
        Loaded::Data(ds) => ds,
    };
    let y: Vec<f64> = ds
        .labels
        .iter()
        .map(|l| {
            l.parse::<f64>()
                .map(|v| if v > 0.0 { 1.0 } else { -1.0 })
                .map_err(|_| crate::ReproError::Other(format!("cleveland.csv: label {l:?} is not a number")))
        })
        .collect::<Result<_>>()?;
    let n = y.len();
    let strata: Vec<usize> = y.iter().map(|&v| usize::from(v > 0.0)).collect();
    let validation =
        if ctx.quick { Validation::KFold { k: 10, repeats: 1 } } else { Validation::LeaveOneOut };
    let folds: Vec<Split> = make_folds(n, ctx.quick.then_some(&strata[..]), &validation, ctx.seed)?
        .into_iter()
        .map(|f| (f.train, f.test))
        .collect();
    let vname = if ctx.quick { "10-fold (stratified)" } else { "leave-one-out" };
    let lmax = 40;
    let main = Scaling::ZScore;
    let mut runs = Vec::new();
    for s in [Scaling::Raw, Scaling::ZScore, Scaling::MinMax] {
        let xs = s.apply(&ds.samples)?;
        runs.push((s, heart_run(&xs, &y, &folds, lmax, ctx.seed + 1)?));
    }
    let mut res = serde_json::Map::new();
    let mut table = Vec::new();
    for (s, r) in &runs {
        let (best_l, best) =
            r.kfa.iter().enumerate().fold((0, 0.0), |b, (l, &a)| if a > b.1 { (l + 1, a) } else { b });
        res.insert(
            s.name().into(),
            json!({"svm_accuracy": r.svm, "svm_mean_sv": r.mean_sv, "kfa14_accuracy": r.kfa[13], "rbf70_accuracy": r.rbf,
                   "kfa_path": r.kfa, "best_l": best_l, "best_accuracy": best}),
        );
        let tag = if *s == main { "" } else { " (other scaling)" };
        let note = format!("{} features, {vname}, n = {n}", s.name());
        table.push(Row {
            quantity: format!("RBF network{tag}"),
            paper: "78.4 % (70 nodes)".into(),
            ours: pct(r.rbf),
            note: format!("{note}; stand-in: 70 random centres + least squares"),
        });
        table.push(Row {
            quantity: format!("SVM{tag}"),
            paper: "79.7 % (77 SV)".into(),
            ours: format!("{} ({:.1} SV)", pct(r.svm), r.mean_sv),
            note: format!("{note}; C = 1000; mean SV count over folds"),
        });
        table.push(Row {
            quantity: format!("KFA{tag}"),
            paper: "83.2 % (14 FV)".into(),
            ours: format!("{} (14 FV)", pct(r.kfa[13])),
            note: format!("{note}; best along L = 1..{lmax}: {} at L = {best_l}", pct(best)),
        });
    }
    // Items (accuracies in %, binomial sd on the paper's 303 and our n rows).
    let mut items = Vec::new();
    for (s, r) in &runs {
        let acc = |p: f64, ours: f64| {
            let sd = 100.0 * crate::items::binomial_sd(p / 100.0, 303, n);
            (p, 100.0 * ours, sd)
        };
        let rows = [
            ("Table 2, SVM accuracy (%)", acc(79.7, r.svm)),
            ("Table 2, KFA accuracy, 14 FV (%)", acc(83.2, r.kfa[13])),
        ];
        for (cell, (p, o, sd)) in rows {
            let i = Item::sampled(Kind::Paper, cell, p, o, sd);
            items.push(if *s == main {
                i.because("σ = 10 on z-scored features (the paper's scaling is not stated)")
            } else {
                i.variant(&format!("{} features", s.name()))
            });
        }
        let sv = Item::derived(Kind::Paper, "Table 2, SVM support vectors", 77.0, r.mean_sv);
        items.push(if *s == main {
            sv.because("mean over the folds of our validation")
        } else {
            sv.variant(s.name())
        });
        let rbf = Item::sampled(
            Kind::PaperStandIn,
            "Table 2, RBF network accuracy (%)",
            78.4,
            100.0 * r.rbf,
            100.0 * crate::items::binomial_sd(0.784, 303, n),
        );
        items.push(if *s == main {
            rbf.because("70 random centres + least squares stand in for Matlab's RBF network")
        } else {
            rbf.variant(s.name())
        });
    }
    let m = &runs.iter().find(|r| r.0 == main).expect("main scaling ran").1;
    let raw = &runs[0].1;
    table.insert(
        0,
        Row {
            quantity: "feature scaling behind σ = 10".into(),
            paper: "not stated".into(),
            ours: format!("{} (rows without a tag)", main.name()),
            note: format!(
                "raw: squared distances are in the thousands (chol, trestbps, thalach), so k ≈ identity, the SVM keeps {:.0} of {} points as SVs and scores {}; z-scored features (r² ≈ 2·13 ≈ σ²/4) are the sensible reading; min-max shown too",
                raw.mean_sv,
                folds[0].0.len(),
                pct(raw.svm)
            ),
        },
    );
    let figs = "fvs-heart-path.svg";
    let lines: Vec<Series> = runs
        .iter()
        .map(|(s, r)| Series {
            name: format!("KFA, {}", s.name()),
            points: r.kfa.iter().enumerate().map(|(l, &a)| ((l + 1) as f64, a)).collect(),
        })
        .chain([
            Series {
                name: format!("SVM C = 1000, {}", main.name()),
                points: vec![(1.0, m.svm), (lmax as f64, m.svm)],
            },
            Series { name: "paper KFA 83.2 %".into(), points: vec![(1.0, 0.832), (lmax as f64, 0.832)] },
        ])
        .collect();
    line_chart(
        &ctx.dir.join(figs),
        &format!("Cleveland, σ = 10, {vname}: accuracy against FVs"),
        "feature vectors L",
        "accuracy",
        &lines,
    )?;
    let fig5 = "fvs-heart-fig5-discriminant.svg";
    let axis = discriminant_densities(&ds.samples, &y, &ctx.dir.join(fig5))?;
    table.push(Row {
        quantity: "Fig. 5: the classes along the linear discriminant axis".into(),
        paper: "\"highly overlapped\" (figure only)".into(),
        ours: format!("overlap ∫min(f₀, f₁) = {:.2}", axis.overlap),
        note: format!(
            "Fisher axis on all {n} rows; class means {:.2} within-class sd apart; Gaussian kernel densities \
             (Silverman bandwidths {:.2} / {:.2}); the midpoint rule on this axis errs on {} of the rows",
            axis.separation,
            axis.bandwidths[0],
            axis.bandwidths[1],
            pct(axis.resubstitution_error)
        ),
    });
    let claims = vec![
        Claim {
            kind: Kind::Paper,
            source: "§5.4, Table 2".into(),
            claim: "KFA (14 FV) is better than the SVM (C = 1000) on the heart data (83.2 % vs 79.7 %)"
                .into(),
            holds: m.kfa[13] > m.svm,
            evidence: runs
                .iter()
                .map(|(s, r)| format!("{}: KFA {} vs SVM {}", s.name(), pct(r.kfa[13]), pct(r.svm)))
                .collect::<Vec<_>>()
                .join("; "),
        },
        Claim {
            kind: Kind::Paper,
            source: "§5.4, Table 2".into(),
            claim: "KFA needs many fewer feature vectors than the SVM's support vectors (14 FV vs 77 SV)"
                .into(),
            holds: (14.0) < m.mean_sv / 2.0,
            evidence: format!("14 FV vs {:.1} SV on average ({} features)", m.mean_sv, main.name()),
        },
        Claim {
            kind: Kind::Paper,
            source: "§5.4, Table 2".into(),
            claim: "KFA beats the RBF network (83.2 % vs 78.4 %)".into(),
            holds: m.kfa[13] > m.rbf,
            evidence: format!(
                "KFA {} vs 70 random centres {} ({} features)",
                pct(m.kfa[13]),
                pct(m.rbf),
                main.name()
            ),
        },
    ];
    Ok(Status::Done(Outcome {
        results: json!({"validation": vname, "scalings": res, "main": main.name(),
                        "discriminant_axis": {"overlap": axis.overlap, "separation": axis.separation,
                                              "bandwidths": axis.bandwidths,
                                              "resubstitution_error": axis.resubstitution_error}}),
        sizes: json!({"n": n, "d": ds.samples.d(), "folds": folds.len(), "sigma": 10.0, "svm_c": 1000.0, "l_max": lmax}),
        seeds: vec![ctx.seed, ctx.seed + 1],
        table,
        claims,
        figures: vec![figs.into(), fig5.into()],
        items,
        captions: Vec::new(),
    }))
}

/// The two classes projected on Fisher's linear discriminant axis (Fig. 5).
struct DiscriminantAxis {
    /// `∫ min(f₀, f₁)`: 1 for identical class densities, 0 for disjoint ones.
    overlap: f64,
    /// Distance of the projected class means in units of the pooled within-class standard deviation.
    separation: f64,
    /// Kernel-density bandwidths of the two classes (same units).
    bandwidths: [f64; 2],
    /// Error of the rule "the nearer projected class mean" on the rows themselves.
    resubstitution_error: f64,
}

/// Fig. 5: Fisher's discriminant `w = S_W⁻¹ (m₁ − m₀)` (pooled within-class scatter `S_W`), the rows
/// projected on it in units of the pooled within-class standard deviation, and each class's density
/// along the axis by a Gaussian kernel density estimate with Silverman's bandwidth `1.06 σ̂ n^(−1/5)`.
/// The paper draws the same two densities without saying how they were estimated; the axis does not
/// depend on the feature scaling (the discriminant is affine invariant).
fn discriminant_densities(x: &Samples, y: &[f64], path: &std::path::Path) -> Result<DiscriminantAxis> {
    let d = x.d();
    let class = |v: f64| usize::from(v > 0.0);
    let mut count = [0usize; 2];
    let mut mean = [vec![0.0; d], vec![0.0; d]];
    for (r, &v) in x.rows().zip(y) {
        count[class(v)] += 1;
        for (m, a) in mean[class(v)].iter_mut().zip(r) {
            *m += a;
        }
    }
    if count.contains(&0) {
        return Err(crate::ReproError::Other("Fig. 5 needs rows of both classes".into()));
    }
    for (m, &k) in mean.iter_mut().zip(&count) {
        m.iter_mut().for_each(|v| *v /= k as f64);
    }
    let mut sw = vec![0.0; d * d];
    for (r, &v) in x.rows().zip(y) {
        let m = &mean[class(v)];
        for i in 0..d {
            for j in 0..d {
                sw[i * d + j] += (r[i] - m[i]) * (r[j] - m[j]);
            }
        }
    }
    let diff: Vec<f64> = mean[1].iter().zip(&mean[0]).map(|(a, b)| a - b).collect();
    let w = solve_spd(sw, d, diff)
        .ok_or_else(|| crate::ReproError::Other("Fig. 5: singular within-class scatter".into()))?;
    let raw: Vec<f64> = x.rows().map(|r| r.iter().zip(&w).map(|(a, b)| a * b).sum()).collect();
    // Pooled within-class variance of the projection (n − 2 degrees of freedom), then standardise.
    let proj_mean = |c: usize| {
        raw.iter().zip(y).filter(|(_, v)| class(**v) == c).map(|(z, _)| z).sum::<f64>() / count[c] as f64
    };
    let pm = [proj_mean(0), proj_mean(1)];
    let ss: f64 = raw.iter().zip(y).map(|(z, &v)| (z - pm[class(v)]).powi(2)).sum();
    let sd = (ss / (raw.len() - 2) as f64).sqrt();
    let z: Vec<f64> = raw.iter().map(|v| (v - pm[0]) / sd).collect();
    let separation = (pm[1] - pm[0]) / sd;
    let mid = separation / 2.0;
    let wrong = z.iter().zip(y).filter(|(z, v)| (**z > mid) != (class(**v) == 1)).count();
    let zs: [Vec<f64>; 2] =
        [0, 1].map(|c| z.iter().zip(y).filter(|(_, v)| class(**v) == c).map(|(z, _)| *z).collect());
    let bandwidths = [0, 1].map(|c| {
        let n = zs[c].len() as f64;
        let m = zs[c].iter().sum::<f64>() / n;
        let s = (zs[c].iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        1.06 * s * n.powf(-0.2)
    });
    let (lo, hi) = z.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    let (lo, hi) = (lo - 3.0 * bandwidths[0].max(bandwidths[1]), hi + 3.0 * bandwidths[0].max(bandwidths[1]));
    let steps = 600;
    let grid: Vec<f64> = (0..=steps).map(|i| lo + (hi - lo) * i as f64 / steps as f64).collect();
    let kde = |c: usize, t: f64| {
        let h = bandwidths[c];
        zs[c].iter().map(|v| (-0.5 * ((t - v) / h).powi(2)).exp()).sum::<f64>()
            / (zs[c].len() as f64 * h * (2.0 * std::f64::consts::PI).sqrt())
    };
    let dens: [Vec<f64>; 2] = [0, 1].map(|c| grid.iter().map(|&t| kde(c, t)).collect());
    let step = (hi - lo) / steps as f64;
    let overlap = (0..=steps)
        .map(|i| dens[0][i].min(dens[1][i]) * if i == 0 || i == steps { 0.5 } else { 1.0 })
        .sum::<f64>()
        * step;
    let names = ["no disease (num = 0)", "disease (num > 0)"];
    let series: Vec<Series> = (0..2)
        .map(|c| Series {
            name: format!("{}, n = {}", names[c], count[c]),
            points: grid.iter().zip(&dens[c]).map(|(&t, &f)| (t, f)).collect(),
        })
        .collect();
    line_chart(
        path,
        "Fig. 5: Cleveland classes along the linear discriminant axis",
        "discriminant score (within-class sd from the no-disease mean)",
        "probability density",
        &series,
    )?;
    Ok(DiscriminantAxis {
        overlap,
        separation,
        bandwidths,
        resubstitution_error: wrong as f64 / z.len() as f64,
    })
}

/// Solves `A x = b` for a symmetric positive definite `d × d` matrix `A` (row-major) by Cholesky;
/// `None` if `A` is not positive definite.
fn solve_spd(mut a: Vec<f64>, d: usize, mut b: Vec<f64>) -> Option<Vec<f64>> {
    for j in 0..d {
        let s = a[j * d + j] - (0..j).map(|k| a[j * d + k].powi(2)).sum::<f64>();
        if s <= 0.0 || !s.is_finite() {
            return None;
        }
        let l = s.sqrt();
        a[j * d + j] = l;
        for i in j + 1..d {
            a[i * d + j] = (a[i * d + j] - (0..j).map(|k| a[i * d + k] * a[j * d + k]).sum::<f64>()) / l;
        }
    }
    for i in 0..d {
        b[i] = (b[i] - (0..i).map(|k| a[i * d + k] * b[k]).sum::<f64>()) / a[i * d + i];
    }
    for i in (0..d).rev() {
        b[i] = (b[i] - (i + 1..d).map(|k| a[k * d + i] * b[k]).sum::<f64>()) / a[i * d + i];
    }
    Some(b)
}

// ---------------------------------------------------------------------------------------------------
// §5.5 / Fig. 6: sinc regression with the linear-spline kernel.
// ---------------------------------------------------------------------------------------------------

/// One reading of the sinc experiment (formula and input mapping), fitted on the main draw and on the
/// other draws.
struct SincRun {
    form: SincForm,
    /// The input mapping's name (`[0,1]` or `[0,20]`).
    name: &'static str,
    /// The main reading (printed formula, inputs on [0, 1]); the others are labelled variants.
    main: bool,
    truth: Vec<f64>,
    ys: Vec<f64>,
    kfa_pred: Vec<f64>,
    kfa_rmse: f64,
    fitness: f64,
    fv: Vec<usize>,
    path: Vec<(usize, f64)>,
    svr_pred: Vec<f64>,
    svr_rmse: f64,
    svr_c: f64,
    svr_eps: f64,
    /// The SVR grid searched on the main draw (after edge extensions).
    svr_grid: String,
    n_sv: usize,
    noise_rmse: f64,
    /// Other draws: (KFA 6-FV RMSE, SVR RMSE, SVR SV count).
    draws: Vec<(f64, f64, usize)>,
}

impl SincRun {
    fn mean(&self, f: impl Fn(&(f64, f64, usize)) -> f64) -> f64 {
        self.draws.iter().map(f).sum::<f64>() / self.draws.len() as f64
    }
    fn kfa_wins(&self) -> usize {
        self.draws.iter().filter(|r| r.0 < r.1).count()
    }
    fn label(&self) -> String {
        format!("{}, inputs on {}", self.form.name(), self.name)
    }
    fn kind(&self) -> Kind {
        if self.main { Kind::Paper } else { Kind::OtherReading }
    }
    /// An item of this run: as it is for the main reading, a labelled variant otherwise.
    fn item(&self, i: Item) -> Item {
        if self.main { i } else { i.variant(&self.label()) }
    }
}

/// Fig. 6: regression of the sinc from 100 noisy samples (noise sd 0.5, as the paper) on `[−10, 10]`,
/// Vapnik's linear-spline kernel. Main reading (READINGS.md): the formula as printed, `sin(πx)/(πx)`;
/// the paper takes the experiment from its reference \[15\] (Vapnik, Golowich & Smola 1997), whose sinc
/// is `sin x / x` on `[−10, 10]`: that function runs as a labelled variant, and `[−10, 10]` (the paper
/// prints no interval) is \[15\]'s for both. The kernel is positive definite on `[0, ∞)` only and is
/// **not scale invariant** (the `1 + xy` part against the cubic part), and the paper does not say how `x`
/// was mapped: `[0, 1]` (`(x + 10)/20`, the usual domain of Vapnik's splines) is the main reading,
/// `[0, 20]` (`x + 10`, a shift only) a variant. Per reading: KFA with the paper's 6 FVs and along
/// L = 2..20; ε-SVR with C and ε by 5-fold CV (the C axis extended while the choice is on its edge);
/// 10 further draws (2 in quick mode). Errors are RMSE against the true function on 1001 grid points.
/// `results`: `{runs: {"<formula>, inputs on <mapping>": {formula, mapping, main, noise_rmse, kfa: {n_fv,
/// rmse, fitness, fv_x}, svr: {c, epsilon, n_sv, rmse, grid}, kfa_path: [{l, rmse}], draws: [{kfa_rmse,
/// svr_rmse, svr_n_sv}]}}}` (`noise_rmse`: RMSE of the noisy targets against the truth).
pub fn sinc(ctx: &Ctx) -> Result<Status> {
    let (n, noise) = (100, 0.5);
    let grid: Vec<f64> = (0..=1000).map(|i| -10.0 + 0.02 * i as f64).collect();
    let k = LinearSpline;
    let folds = 5;
    let draws = if ctx.quick { 2 } else { 10 };
    // The C grid follows the kernel's magnitude (k(x, x) ≤ 2.3 on [0, 1], ≈ 3000 on [0, 20]).
    let gspec = |name: &str| match (ctx.quick, name) {
        (true, "[0,1]") => "c=10^0..10^4:5,epsilon=[0.25,0.5,0.75]",
        (true, _) => "c=10^-3..10^1:5,epsilon=[0.25,0.5,0.75]",
        (false, "[0,1]") => "c=10^-1..10^4:11,epsilon=[0.1,0.25,0.5,0.75,1.0]",
        (false, _) => "c=10^-4..10^1:11,epsilon=[0.1,0.25,0.5,0.75,1.0]",
    };
    type SvrFit = (kern_models::svm::Svr, f64, f64, String);
    let fit_svr = |x: &Samples, y: &RealTargets, seed: u64, spec: &str| -> Result<SvrFit> {
        let cfg = GridSearchConfig { cv: CvConfig::k_fold(folds, seed), refit: true };
        let ext = search_extending(&spec.parse::<ParamGrid>()?, &["c"], DECADE, |g| {
            Ok(grid_search(
                g,
                |p| {
                    Ok::<_, kern_models::ModelsError>(
                        SvrParams::new("spline".parse()?).c(p["c"]).epsilon(p["epsilon"]),
                    )
                },
                x,
                y,
                &cfg,
            )?)
        })?;
        let grid = ext.describe();
        let rep = ext.report;
        let (c, e) = (rep.best_params()["c"], rep.best_params()["epsilon"]);
        let m = rep.model.ok_or_else(|| crate::ReproError::Other("grid search did not refit".into()))?;
        Ok((m, c, e, grid))
    };
    let mut runs = Vec::new();
    let readings = [
        (SincForm::Printed, "[0,1]", 0.05, true),
        (SincForm::Printed, "[0,20]", 1.0, false),
        (SincForm::Reference, "[0,1]", 0.05, false),
    ];
    for (form, name, scale, main) in readings {
        let (xs, ys) = noisy_sinc(form, n, noise, ctx.seed);
        let truth: Vec<f64> = grid.iter().map(|&v| form.eval(v)).collect();
        let rmse = |p: &[f64]| {
            (p.iter().zip(&truth).map(|(a, b)| (a - b).powi(2)).sum::<f64>() / truth.len() as f64).sqrt()
        };
        let map = |v: &[f64]| Samples::from_flat(v.iter().map(|a| (a + 10.0) * scale).collect(), v.len(), 1);
        let (x, xg) = (map(&xs)?, map(&grid)?);
        let yr = RealTargets::new(ys.clone())?;
        let kfa = KfaParams::new(k).basis(BasisChoice::Fvs(exact(6))).fit(&x, &yr)?;
        let kfa_pred = kfa.predict(&xg)?;
        let sel = fvs::select(&k, &x, &exact(20))?;
        let sizes: Vec<usize> = (2..=sel.selected.len()).collect();
        let path = sizes
            .iter()
            .zip(kfa_path(&k, &x, &column(&ys), &xg, &sel, &sizes)?)
            .map(|(&l, o)| (l, rmse(&col0(&o))))
            .collect();
        let (svr, svr_c, svr_eps, svr_grid) = fit_svr(&x, &yr, ctx.seed + 1, gspec(name))?;
        let svr_pred = svr.predict(&xg)?;
        let reps = (0..draws as u64)
            .map(|r| -> Result<(f64, f64, usize)> {
                let (xs2, ys2) = noisy_sinc(form, n, noise, ctx.seed + 10 + r);
                let (x2, y2) = (map(&xs2)?, RealTargets::new(ys2)?);
                let kf = KfaParams::new(k).basis(BasisChoice::Fvs(exact(6))).fit(&x2, &y2)?;
                let (sv, _, _, _) = fit_svr(&x2, &y2, ctx.seed + 20 + r, gspec(name))?;
                Ok((rmse(&kf.predict(&xg)?), rmse(&sv.predict(&xg)?), sv.support_vectors().n()))
            })
            .collect::<Result<_>>()?;
        let noise_rmse =
            (xs.iter().zip(&ys).map(|(a, b)| (form.eval(*a) - b).powi(2)).sum::<f64>() / n as f64).sqrt();
        runs.push(SincRun {
            form,
            name,
            main,
            kfa_rmse: rmse(&kfa_pred),
            kfa_pred,
            fitness: kfa.layers()[0].fitness().last().copied().unwrap_or(0.0),
            fv: kfa.layers()[0].selected().to_vec(),
            path,
            svr_rmse: rmse(&svr_pred),
            svr_pred,
            svr_c,
            svr_eps,
            svr_grid,
            n_sv: svr.support_vectors().n(),
            noise_rmse,
            draws: reps,
            truth,
            ys,
        });
    }
    // The x draws are the same for every reading (only y depends on the formula).
    let (xs, _) = noisy_sinc(SincForm::Printed, n, noise, ctx.seed);
    let curve = |name: &str, p: &[f64]| Series {
        name: name.into(),
        points: grid.iter().copied().zip(p.iter().copied()).collect(),
    };
    let mut figures = Vec::new();
    let mut captions = Vec::new();
    for r in &runs {
        let fig = match (r.form, r.name) {
            (SincForm::Printed, "[0,1]") => "fvs-sinc-fit.svg",
            (SincForm::Printed, _) => "fvs-sinc-fit-0-20.svg",
            _ => "fvs-sinc-fit-sinx-x.svg",
        };
        let fvx: Vec<(f64, f64)> = r.fv.iter().map(|&i| (xs[i], r.ys[i])).collect();
        scatter_plot(
            &ctx.dir.join(fig),
            &format!("{}Sinc fits, {}", if r.main { "Fig. 6: " } else { "Variant of Fig. 6: " }, r.label()),
            ("x", "y"),
            &[
                Group::points("noisy data", xs.iter().copied().zip(r.ys.iter().copied()).collect()),
                Group { name: "feature vectors".into(), sizes: vec![1.0; fvx.len()], points: fvx },
            ],
            &[curve(r.form.name(), &r.truth), curve("KFA (6 FV)", &r.kfa_pred), curve("SVR", &r.svr_pred)],
            false,
        )?;
        figures.push(fig.to_string());
        captions.push((
            fig.to_string(),
            format!(
                "{}: RMSE against the true function KFA (6 FV) {:.4}, SVR {:.4} with {} SVs (C = {:.3e}, ε = {}); noise RMSE {:.3}.",
                r.label(),
                r.kfa_rmse,
                r.svr_rmse,
                r.n_sv,
                r.svr_c,
                r.svr_eps,
                r.noise_rmse
            ),
        ));
    }
    let fig2 = "fvs-sinc-path.svg";
    let mut lines = Vec::new();
    for r in &runs {
        lines.push(Series {
            name: format!("KFA, {}", r.label()),
            points: r.path.iter().map(|&(l, e)| (l as f64, e)).collect(),
        });
        lines.push(Series {
            name: format!("SVR, {}", r.label()),
            points: vec![(2.0, r.svr_rmse), (20.0, r.svr_rmse)],
        });
    }
    line_chart(
        &ctx.dir.join(fig2),
        "RMSE against the true sinc, by number of FVs",
        "feature vectors L",
        "RMSE",
        &lines,
    )?;
    figures.push(fig2.into());
    captions.push((
        fig2.to_string(),
        runs.iter().map(|r| format!("{}: SVR with {} SVs", r.label(), r.n_sv)).collect::<Vec<_>>().join("; ")
            + " (horizontal lines).",
    ));
    let mut claims = Vec::new();
    let mut table = Vec::new();
    let mut items = Vec::new();
    for r in &runs {
        let tag = r.label();
        claims.push(Claim {
            kind: r.kind(),
            source: "§5.5, Fig. 6".into(),
            claim: format!("KFA needs only 6 feature vectors where the SVR needs 27 support vectors ({tag})"),
            holds: 6 < r.n_sv,
            evidence: format!("6 FV vs {} SV (C = {:.3e}, ε = {})", r.n_sv, r.svr_c, r.svr_eps),
        });
        claims.push(Claim {
            kind: r.kind(),
            source: "§5.5, Fig. 6".into(),
            claim: format!("the 6-FV KFA approximates sinc better than the SVR ({tag})"),
            holds: r.kfa_rmse < r.svr_rmse && 2 * r.kfa_wins() > r.draws.len(),
            evidence: format!(
                "RMSE against the true function: KFA {:.4}, SVR {:.4} (noise RMSE {:.3}); over {draws} other draws KFA {:.4} vs SVR {:.4}, KFA better in {}; knots at x = {:?}",
                r.kfa_rmse,
                r.svr_rmse,
                r.noise_rmse,
                r.mean(|d| d.0),
                r.mean(|d| d.1),
                r.kfa_wins(),
                r.fv.iter().map(|&i| (xs[i] * 10.0).round() / 10.0).collect::<Vec<_>>()
            ),
        });
        let sv_sd = mean_sd(&r.draws.iter().map(|d| d.2 as f64).collect::<Vec<_>>()).1;
        items.push(
            r.item(
                Item::sampled(
                    Kind::Paper,
                    "§5.5, SVR support vectors (ref. [15])",
                    27.0,
                    r.n_sv as f64,
                    sv_sd,
                )
                .because(format!(
                    "[15]'s C and ε are not given; ours by {folds}-fold CV over {}",
                    r.svr_grid
                )),
            ),
        );
        table.push(Row {
            quantity: format!("KFA basis ({tag})"),
            paper: "6 FV".into(),
            ours: "6 FV".into(),
            note: format!("fixed at the paper's count; J_S = {:.5}", r.fitness),
        });
        table.push(Row {
            quantity: format!("SVR basis ({tag})"),
            paper: "27 SV".into(),
            ours: format!("{} SV", r.n_sv),
            note: format!(
                "ε-SVR, C = {:.3e}, ε = {} by {folds}-fold CV over {} (ref. [15]'s C, ε unknown)",
                r.svr_c, r.svr_eps, r.svr_grid
            ),
        });
        table.push(Row {
            quantity: format!("RMSE vs true function, KFA / SVR ({tag})"),
            paper: "KFA better (Fig. 6)".into(),
            ours: format!("{:.4} / {:.4}", r.kfa_rmse, r.svr_rmse),
            note: format!(
                "{n} samples x ~ U[−10, 10], noise sd {noise}; best KFA along L: {:.4}",
                r.path.iter().map(|p| p.1).fold(f64::INFINITY, f64::min)
            ),
        });
        table.push(Row {
            quantity: format!("mean over {draws} other draws: RMSE KFA / SVR ({tag})"),
            paper: "KFA better".into(),
            ours: format!(
                "{:.4} / {:.4} ({:.1} SV)",
                r.mean(|d| d.0),
                r.mean(|d| d.1),
                r.mean(|d| d.2 as f64)
            ),
            note: format!("KFA better in {}/{draws} draws", r.kfa_wins()),
        });
    }
    let mut res = serde_json::Map::new();
    for r in &runs {
        res.insert(
            r.label(),
            json!({"formula": r.form.name(), "mapping": r.name, "main": r.main, "noise_rmse": r.noise_rmse,
                   "kfa": {"n_fv": 6, "rmse": r.kfa_rmse, "fitness": r.fitness, "fv_x": r.fv.iter().map(|&i| xs[i]).collect::<Vec<_>>()},
                   "svr": {"c": r.svr_c, "epsilon": r.svr_eps, "n_sv": r.n_sv, "rmse": r.svr_rmse, "grid": r.svr_grid},
                   "kfa_path": r.path.iter().map(|&(l, e)| json!({"l": l, "rmse": e})).collect::<Vec<_>>(),
                   "draws": r.draws.iter().map(|d| json!({"kfa_rmse": d.0, "svr_rmse": d.1, "svr_n_sv": d.2})).collect::<Vec<_>>()}),
        );
    }
    Ok(Status::Done(Outcome {
        results: json!({"runs": res}),
        sizes: json!({"n": n, "noise_sd": noise, "grid": grid.len(), "cv_folds": folds, "other_draws": draws}),
        seeds: [ctx.seed, ctx.seed + 1]
            .into_iter()
            .chain((0..draws as u64).flat_map(|r| [ctx.seed + 10 + r, ctx.seed + 20 + r]))
            .collect(),
        table,
        claims,
        figures,
        items,
        captions,
    }))
}

// ---------------------------------------------------------------------------------------------------
// FVS against a random basis.
// ---------------------------------------------------------------------------------------------------

/// One dataset's curves.
struct VsRandom {
    name: &'static str,
    n_train: usize,
    n_test: usize,
    beta: f64,
    fvs: Vec<f64>,
    random: Vec<Vec<f64>>,
}

/// FVS versus random basis points (the Nyström choice) under the same KFA least squares: test accuracy
/// against the basis size on the real classification sets available (Wisconsin, Cleveland with
/// `num > 0`, Statlog heart: seeded 50/50 splits; MAGIC: 2000 train / 2000 test drawn from the 19 020
/// rows, 1000/1000 in quick mode), features z-scored with the training statistics, Gaussian β by
/// mean-to-half on the training set (kern-tune). Random bases: 10 seeds (5 in quick mode), mean and
/// min–max. `results`: per dataset `{n_train, n_test, beta, sizes, fvs: [accuracy], random_mean,
/// random_min, random_max, random: [[accuracy] per seed], target, l_fvs, l_random}`.
pub fn vs_random(ctx: &Ctx) -> Result<Status> {
    use kern_tune::bandwidth::{BandwidthOptions, Method, select_bandwidth};
    let sizes: Vec<usize> =
        if ctx.quick { vec![2, 5, 10, 20, 40] } else { (1..=30).map(|i| 2 * i).collect() };
    let lmax = *sizes.last().expect("sizes");
    let n_seeds = if ctx.quick { 5 } else { 10 };
    let magic_n = if ctx.quick { 1000 } else { 2000 };
    let sets: [(&'static str, &str); 4] = [
        ("wisconsin", "wisconsin.csv"),
        ("cleveland", "cleveland.csv"),
        ("statlog-heart", "statlog_heart.csv"),
        ("magic", "magic.csv.gz"),
    ];
    let mut missing = Vec::new();
    let mut done = Vec::new();
    let mut seeds = vec![ctx.seed];
    for (d, (name, file)) in sets.iter().enumerate() {
        let ds = match load_csv(file, LabelColumn::Last)? {
            Loaded::Missing(why) => {
                missing.push(why);
                continue;
            }
            Loaded::Data(ds) => ds,
        };
        let y: Vec<f64> = if *name == "cleveland" {
            ds.labels.iter().map(|l| if l.trim() == "0" { -1.0 } else { 1.0 }).collect()
        } else {
            ds.binary()?.y().to_vec()
        };
        let n = y.len();
        let split_seed = ctx.seed + 100 + d as u64;
        seeds.push(split_seed);
        let perm = fvs::random_indices(n, n, split_seed);
        let (ntr, nte) = if *name == "magic" { (magic_n, magic_n) } else { (n / 2, n - n / 2) };
        let (tr, te) = (&perm[..ntr], &perm[ntr..ntr + nte]);
        let (xtr, xte) =
            crate::datasets::standardize_split(&ds.samples.select(tr)?, &ds.samples.select(te)?)?;
        let ytr: Vec<f64> = tr.iter().map(|&i| y[i]).collect();
        let yte: Vec<f64> = te.iter().map(|&i| y[i]).collect();
        let beta = select_bandwidth(&xtr, None, Method::MeanToHalf, &BandwidthOptions::default())?.beta;
        let k = Gaussian::with_beta(beta)?;
        let ycol = column(&ytr);
        let curve = |sel: &fvs::Fvs| -> Result<Vec<f64>> {
            Ok(kfa_path(&k, &xtr, &ycol, &xte, sel, &sizes)?
                .iter()
                .map(|o| sign_accuracy(&col0(o), &yte))
                .collect())
        };
        let sel = fvs::select(&k, &xtr, &exact(lmax))?;
        let fvs_acc = curve(&sel)?;
        let rseeds: Vec<u64> = (0..n_seeds).map(|s| ctx.seed + 1000 * (d as u64 + 1) + s as u64).collect();
        seeds.extend(&rseeds);
        let random = rseeds
            .par_iter()
            .map(|&s| {
                let order = fvs::random_indices(ntr, ntr, s);
                let b = fvs::from_order(&k, &xtr, &order, lmax, FvsParams::default().singular_tol)?;
                curve(&b)
            })
            .collect::<Vec<Result<Vec<f64>>>>()
            .into_iter()
            .collect::<Result<Vec<_>>>()?;
        done.push(VsRandom { name, n_train: ntr, n_test: nte, beta, fvs: fvs_acc, random });
    }
    if done.is_empty() {
        return Ok(Status::Skipped(format!("no dataset available: {}", missing.join("; "))));
    }
    let mut res = serde_json::Map::new();
    let mut table = Vec::new();
    let mut figures = Vec::new();
    let mut verdicts = Vec::new();
    let mut size_verdicts = Vec::new();
    for v in &done {
        let m = sizes.len();
        let vr = VersusRandom::new(&sizes, &v.fvs, &v.random);
        let (mean, lo, hi, best, target) = (&vr.mean, &vr.lo, &vr.hi, vr.best, vr.target);
        let (lf, lr) = (vr.reach_fvs, vr.reach_random);
        let show = |l: Option<usize>| vr.show(l);
        let wins = vr.wins;
        let area = |a: &[f64]| a.iter().sum::<f64>() / a.len() as f64;
        let (af, ar) = (area(&v.fvs), area(mean));
        size_verdicts.push((
            2 * wins > m,
            format!(
                "{}: FVS ≥ random mean at {wins}/{m} sizes; mean accuracy over sizes {} vs {}",
                v.name,
                pct(af),
                pct(ar)
            ),
        ));
        verdicts.push((
            vr.reaches_first(),
            format!(
                "{}: within 1 point of the best ({:.1} %) at L = {} (FVS) vs {} (random mean)",
                v.name,
                100.0 * best,
                show(lf),
                show(lr)
            ),
        ));
        let at = |l: usize| sizes.iter().position(|&s| s == l);
        for l in [10usize, 20, 40] {
            if let Some(i) = at(l) {
                table.push(Row {
                    quantity: format!("{}: accuracy with L = {l}", v.name),
                    paper: "—".into(),
                    ours: format!(
                        "FVS {} vs random {} ({}–{})",
                        pct(v.fvs[i]),
                        pct(mean[i]),
                        pct(lo[i]),
                        pct(hi[i])
                    ),
                    note: format!(
                        "{}/{} train/test (test-set sd ≈ {:.1} points), β = {:.4} (mean-to-half), {} random seeds",
                        v.n_train,
                        v.n_test,
                        100.0 * (mean[i] * (1.0 - mean[i]) / v.n_test as f64).sqrt(),
                        v.beta,
                        v.random.len()
                    ),
                });
            }
        }
        table.push(Row {
            quantity: format!("{}: L to reach {:.1} %", v.name, 100.0 * target),
            paper: "—".into(),
            ours: format!("FVS {} vs random {}", show(lf), show(lr)),
            note: "target: best accuracy of either curve minus 1 point".into(),
        });
        let fig = format!("fvs-vs-random-{}.svg", v.name);
        vr.chart(
            &ctx.dir.join(&fig),
            &format!("{}: test accuracy against basis size (KFA least squares)", v.name),
            "basis size L",
            "FVS",
            &format!("random (mean of {})", v.random.len()),
        )?;
        figures.push(fig);
        res.insert(
            v.name.into(),
            json!({"n_train": v.n_train, "n_test": v.n_test, "beta": v.beta, "sizes": sizes, "fvs": v.fvs,
                   "random_mean": mean, "random_min": lo, "random_max": hi, "random": v.random,
                   "target": target, "l_fvs": lf, "l_random": lr}),
        );
    }
    if !missing.is_empty() {
        table.push(Row {
            quantity: "skipped datasets".into(),
            paper: "—".into(),
            ours: missing.join("; "),
            note: "".into(),
        });
    }
    let claims = vec![
        Claim {
            kind: Kind::Ours,
            source: "".into(),
            claim: "FVS reaches a given accuracy (1 point below the best of either curve) with fewer basis points than random points".into(),
            holds: verdicts.iter().all(|v| v.0),
            evidence: verdicts.iter().map(|v| v.1.clone()).collect::<Vec<_>>().join("; "),
        },
        Claim {
            kind: Kind::Ours,
            source: "".into(),
            claim: "at equal basis size, FVS is at least as accurate as random points (at most sizes)".into(),
            holds: size_verdicts.iter().all(|v| v.0),
            evidence: size_verdicts.iter().map(|v| v.1.clone()).collect::<Vec<_>>().join("; "),
        },
    ];
    Ok(Status::Done(Outcome {
        results: serde_json::Value::Object(res),
        sizes: json!({"basis_sizes": sizes, "random_seeds": n_seeds, "magic_train": magic_n, "magic_test": magic_n}),
        seeds,
        table,
        claims,
        figures,
        items: Vec::new(),
        captions: Vec::new(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn spd_solve_matches_the_system() {
        let a = vec![4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0];
        let b = vec![1.0, -2.0, 0.5];
        let x = solve_spd(a.clone(), 3, b.clone()).unwrap();
        for i in 0..3 {
            let ax: f64 = (0..3).map(|j| a[i * 3 + j] * x[j]).sum();
            assert!((ax - b[i]).abs() < 1e-12, "{ax} vs {}", b[i]);
        }
        assert!(solve_spd(vec![1.0, 2.0, 2.0, 1.0], 2, vec![1.0, 1.0]).is_none());
    }

    #[test]
    fn discriminant_axis_separates_far_classes_and_overlaps_equal_ones() {
        let dir = std::env::temp_dir().join(format!("kern-fvs-fig5-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Two features, uniform within a class; the classes differ along (1, 1) only.
        let mut rows = Vec::new();
        let mut y = Vec::new();
        for i in 0..200 {
            let (a, b) = ((i as f64 * 0.618).fract() - 0.5, (i as f64 * 0.377).fract() - 0.5);
            let c = if i % 2 == 0 { 1.0 } else { -1.0 };
            let shift = c; // means (±1, ±1): 2√2 apart, within-class sd 1/√12 on any axis, so ≈ 9.8 sd
            rows.push([a + shift, b + shift]);
            y.push(c);
        }
        let x = Samples::from_rows(&rows).unwrap();
        let far = discriminant_densities(&x, &y, &dir.join("far.svg")).unwrap();
        assert!(far.overlap < 0.01 && far.resubstitution_error == 0.0, "{}", far.overlap);
        assert!(far.separation > 6.0, "{}", far.separation);
        // The same rows with labels unrelated to them: the densities nearly coincide.
        let mixed: Vec<f64> = (0..200).map(|i| if (i / 2) % 2 == 0 { 1.0 } else { -1.0 }).collect();
        let same = discriminant_densities(&x, &mixed, &dir.join("same.svg")).unwrap();
        assert!(same.overlap > 0.6, "{}", same.overlap);
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn tmp_ctx(name: &str) -> Ctx {
        let dir = std::env::temp_dir().join(format!("kern-fvs-test-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Ctx { quick: true, full: false, dir, seed: 7 }
    }

    #[test]
    fn normal_cdf_matches_reference_values() {
        // Φ at 0, ±1, −2, 3.5, −6 (reference values to 16 digits).
        for (x, want) in [
            (0.0, 0.5),
            (1.0, 0.841_344_746_068_542_9),
            (-1.0, 0.158_655_253_931_457_05),
            (-2.0, 0.022_750_131_948_179_195),
            (3.5, 0.999_767_370_920_964_5),
            (-6.0, 9.865_876_450_376_946e-10),
        ] {
            let got = normal_cdf(x);
            assert!((got - want).abs() <= 1e-13 * want.max(1e-3), "Φ({x}) = {got}, want {want}");
        }
        // The series and the continued fraction meet at |z| = 3.
        let z = 3.0 * std::f64::consts::SQRT_2;
        assert!((normal_cdf(-z + 1e-9) - normal_cdf(-z - 1e-9)).abs() < 1e-11);
    }

    proptest! {
        #![proptest_config(kern_testkit::proptest_config(64))]

        #[test]
        fn normal_cdf_is_symmetric_and_monotone(x in -8.0f64..8.0, h in 1e-3f64..1.0) {
            prop_assert!((normal_cdf(x) + normal_cdf(-x) - 1.0).abs() < 1e-14);
            prop_assert!(normal_cdf(x + h) >= normal_cdf(x));
        }

        #[test]
        fn bayes_boundary_is_the_parabola(x2 in -3.0f64..3.0) {
            // log p(x|+1) − log p(x|−1) vanishes on x1 = 2.25 x2² + ¼ ln 0.1 and is positive to its right.
            let x1 = 2.25 * x2 * x2 + 0.25 * 0.1f64.ln();
            prop_assert!(TwoGaussians.log_ratio([x1, x2]).abs() < 1e-10);
            prop_assert!(TwoGaussians.log_ratio([x1 + 0.1, x2]) > 0.0);
            prop_assert!(TwoGaussians.log_ratio([x1 - 0.1, x2]) < 0.0);
        }
    }

    #[test]
    fn bayes_accuracy_agrees_with_brute_force_integration_and_monte_carlo() {
        let exact = TwoGaussians.bayes_accuracy();
        // 2-D midpoint rule of ½ max(p₊, p₋) on [−9, 9]².
        let (m, lo, hi) = (1200, -9.0, 9.0);
        let h = (hi - lo) / m as f64;
        let v = TwoGaussians::VAR_POS_X2;
        let two_pi = 2.0 * std::f64::consts::PI;
        let mut s = 0.0;
        for i in 0..m {
            for j in 0..m {
                let (a, b) = (lo + (i as f64 + 0.5) * h, lo + (j as f64 + 0.5) * h);
                let pn = (-0.5 * ((a + 1.0).powi(2) + b * b)).exp() / two_pi;
                let pp = (-0.5 * ((a - 1.0).powi(2) + b * b / v)).exp() / (two_pi * v.sqrt());
                s += 0.5 * pn.max(pp);
            }
        }
        let grid = s * h * h;
        assert!((exact - grid).abs() < 2e-4, "quadrature {exact} vs 2-D grid {grid}");
        // Monte Carlo: the Bayes rule on 400 000 draws (sd ≈ 5e-4).
        let (x, y) = TwoGaussians.sample(200_000, 11);
        let mc = (0..x.n())
            .filter(|&i| (TwoGaussians.log_ratio([x.row(i)[0], x.row(i)[1]]) > 0.0) == (y[i] > 0.0))
            .count() as f64
            / x.n() as f64;
        assert!((exact - mc).abs() < 2.5e-3, "quadrature {exact} vs Monte Carlo {mc}");
        assert!((exact - 0.888).abs() < 1e-3, "the paper's 88.8 %: {exact}");
    }

    #[test]
    fn two_gaussians_sample_has_the_stated_moments() {
        let (x, y) = TwoGaussians.sample(20_000, 3);
        for (label, m1, v2) in [(-1.0, -1.0, 1.0), (1.0, 1.0, TwoGaussians::VAR_POS_X2)] {
            let rows: Vec<&[f64]> = (0..x.n()).filter(|&i| y[i] == label).map(|i| x.row(i)).collect();
            assert_eq!(rows.len(), 20_000);
            let n = rows.len() as f64;
            let mean1 = rows.iter().map(|r| r[0]).sum::<f64>() / n;
            let mean2 = rows.iter().map(|r| r[1]).sum::<f64>() / n;
            let var1 = rows.iter().map(|r| (r[0] - mean1).powi(2)).sum::<f64>() / n;
            let var2 = rows.iter().map(|r| (r[1] - mean2).powi(2)).sum::<f64>() / n;
            assert!((mean1 - m1).abs() < 0.03 && mean2.abs() < 0.03, "{label}: means {mean1}, {mean2}");
            assert!(
                (var1 - 1.0).abs() < 0.05 && (var2 - v2).abs() < 0.05 * v2,
                "{label}: vars {var1}, {var2}"
            );
        }
        assert_eq!(TwoGaussians.sample(5, 9).0, TwoGaussians.sample(5, 9).0);
    }

    #[test]
    fn circles_and_clusters_generators() {
        let (x, y) = two_circles(30, 1);
        for (row, label) in x.rows().zip(&y) {
            let r = (row[0].powi(2) + row[1].powi(2)).sqrt();
            assert!((r - if *label > 0.0 { 1.0 } else { 0.5 }).abs() < 1e-12);
        }
        assert_eq!(y.iter().filter(|&&v| v > 0.0).count(), 30);
        let (x, y) = three_clusters(2000, 2);
        for c in 0..3 {
            let r: Vec<f64> = (0..x.n())
                .filter(|&i| y[i] == c)
                .map(|i| (x.row(i)[0].powi(2) + x.row(i)[1].powi(2)).sqrt())
                .collect();
            assert_eq!(r.len(), 2000);
            let mean = r.iter().sum::<f64>() / r.len() as f64;
            // Blob: E‖z‖ = 0.2·√(π/2) ≈ 0.251; rings: radius c.
            let want = if c == 0 { 0.2 * (std::f64::consts::PI / 2.0).sqrt() } else { c as f64 };
            assert!((mean - want).abs() < 0.02, "class {c}: mean radius {mean}");
        }
    }

    #[test]
    fn noisy_sinc_has_the_stated_noise() {
        for form in [SincForm::Printed, SincForm::Reference] {
            let (x, y) = noisy_sinc(form, 20_000, 0.5, 4);
            assert!(x.iter().all(|v| (-10.0..=10.0).contains(v)));
            let r: Vec<f64> = x.iter().zip(&y).map(|(a, b)| b - form.eval(*a)).collect();
            let mean = r.iter().sum::<f64>() / r.len() as f64;
            let sd = (r.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / r.len() as f64).sqrt();
            assert!(mean.abs() < 0.015 && (sd - 0.5).abs() < 0.01, "noise mean {mean}, sd {sd}");
            assert_eq!(form.eval(0.0), 1.0);
        }
        // The same x and noise for both forms: the targets differ by the functions alone.
        let (xp, yp) = noisy_sinc(SincForm::Printed, 50, 0.5, 9);
        let (xr, yr) = noisy_sinc(SincForm::Reference, 50, 0.5, 9);
        assert_eq!(xp, xr);
        for ((x, a), b) in xp.iter().zip(&yp).zip(&yr) {
            let d = SincForm::Printed.eval(*x) - SincForm::Reference.eval(*x);
            assert!((a - b - d).abs() < 1e-12);
        }
        // Zeros: sin πx / πx at the non-zero integers, sin x / x at the multiples of π.
        for k in 1..=10 {
            assert!(SincForm::Printed.eval(k as f64).abs() < 1e-15);
            assert!(SincForm::Reference.eval(k as f64 * std::f64::consts::PI).abs() < 1e-15);
        }
    }

    #[test]
    fn kfa_path_equals_refitting_kfa_and_clamps_sizes() {
        let (x, y) = TwoGaussians.sample(40, 5);
        let (xt, _) = TwoGaussians.sample(50, 6);
        let k = Gaussian::with_sigma(1.0).unwrap();
        let sel = fvs::select(&k, &x, &exact(15)).unwrap();
        let out = kfa_path(&k, &x, &column(&y), &xt, &sel, &[8, 15, 40]).unwrap();
        let yb = BinaryTargets::from_f64(&y).unwrap();
        for (t, l) in [(0, 8), (1, 15), (2, 15)] {
            let m = KfaParams::new(k).basis(BasisChoice::Fvs(exact(l))).fit(&x, &yb).unwrap();
            let want = col0(&m.outputs(&xt).unwrap());
            for (i, w) in want.iter().enumerate() {
                assert!((out[t][(i, 0)] - w).abs() < 1e-7, "L = {l}, sample {i}");
            }
        }
    }

    #[test]
    fn helpers() {
        assert_eq!(sign_accuracy(&[1.0, -2.0, 0.5], &[1.0, 1.0, 1.0]), 2.0 / 3.0);
        let tr = Samples::from_rows(&[[1.0, 5.0], [3.0, 5.0], [5.0, 5.0]]).unwrap();
        let te = Samples::from_rows(&[[3.0, 7.0]]).unwrap();
        let (a, b) = crate::datasets::standardize_split(&tr, &te).unwrap();
        let sd = (8.0f64 / 3.0).sqrt();
        assert!((a.row(0)[0] + 2.0 / sd).abs() < 1e-12 && a.row(1)[0].abs() < 1e-12);
        assert_eq!(a.row(0)[1], 0.0); // constant feature
        assert_eq!(b.row(0), &[0.0, 0.0]);
        let mm = Scaling::MinMax.apply(&tr).unwrap();
        assert_eq!(mm.row(0), &[0.0, 0.0]);
        assert_eq!(mm.row(2), &[1.0, 0.0]);
    }

    #[test]
    fn synthetic_experiments_run_in_quick_mode() {
        for (name, run, claims) in [
            ("circles", circles as fn(&Ctx) -> Result<Status>, 2),
            ("clusters", clusters, 2),
            ("sinc", sinc, 6),
            ("gaussians", gaussians, 4),
        ] {
            let ctx = tmp_ctx(name);
            let first = match run(&ctx).unwrap() {
                Status::Done(o) => {
                    assert_eq!(o.claims.len(), claims, "{name}");
                    assert!(!o.table.is_empty());
                    for f in &o.figures {
                        let svg = std::fs::read_to_string(ctx.dir.join(f)).unwrap();
                        assert!(svg.contains("<svg"), "{name}: {f}");
                    }
                    o.results
                }
                Status::Skipped(why) => panic!("{name} skipped: {why}"),
            };
            // Deterministic given the seed, on one thread as on many.
            let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            match pool.install(|| run(&ctx)).unwrap() {
                Status::Done(o) => assert_eq!(o.results, first, "{name}"),
                Status::Skipped(_) => unreachable!(),
            }
            std::fs::remove_dir_all(&ctx.dir).ok();
        }
    }

    #[test]
    fn circles_claims_hold() {
        let ctx = tmp_ctx("circles-claims");
        let Status::Done(o) = circles(&ctx).unwrap() else { panic!("skipped") };
        assert_eq!(o.results["n_fv"], 3);
        assert!(o.claims.iter().all(|c| c.holds), "{:?}", o.claims);
        std::fs::remove_dir_all(&ctx.dir).ok();
    }

    #[test]
    fn normal_cdf_as_documented() {
        use crate::papers::fvs::normal_cdf;
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-15);
        assert!((normal_cdf(1.0) - 0.841_344_746_068_542_9).abs() < 1e-13);
    }

    #[test]
    fn twogaussians_as_documented() {
        use crate::papers::fvs::TwoGaussians;
        let (x, y) = TwoGaussians.sample(50, 3);
        assert_eq!((x.n(), y.iter().filter(|&&v| v > 0.0).count()), (100, 50));
        assert!((TwoGaussians.bayes_accuracy() - 0.8877).abs() < 1e-3);
    }
}
