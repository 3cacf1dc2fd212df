//! Platt scaling with internal cross-validation (LIBSVM `-b 1`): Platt (2000) with the Newton method
//! and backtracking of Lin, Lin & Weng (2007), and pairwise coupling (Wu, Lin & Weng 2004, method 2).

use super::params::SolverParams;
use super::train::{self, Rows};
use crate::error::Result;
use kern_core::{KernelSpec, Samples};
use kern_sparse::kmatrix::Precomputed;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

/// `P(y = +1 | f) = 1 / (1 + exp(A f + B))`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Sigmoid {
    pub(crate) a: f64,
    pub(crate) b: f64,
}

impl Sigmoid {
    /// The probability of the +1 class, computed without overflow.
    pub(crate) fn prob(&self, f: f64) -> f64 {
        let t = self.a * f + self.b;
        if t >= 0.0 { (-t).exp() / (1.0 + (-t).exp()) } else { 1.0 / (1.0 + t.exp()) }
    }

    /// The sigmoid of the turned machine (its classes in each other's roles, `f ↦ −f`): the new +1
    /// class has probability `1 − P(+1 | f) = 1/(1 + exp(A·(−f) − B))`, so `(A, −B)`.
    pub(crate) fn turned(self) -> Sigmoid {
        Sigmoid { a: self.a, b: -self.b }
    }
}

/// Folds of the internal cross-validation (LIBSVM's 5).
const FOLDS: usize = 5;

/// Fits the sigmoid of one binary problem on decision values of 5-fold cross-validation models
/// (folds from a seeded shuffle). A fold whose training part holds a single class gives every
/// held-out sample the decision value ±1 of that class, as LIBSVM does. With a `precomputed` kernel
/// `pre` is the problem's part of the user's matrix, from which the held-out decision values are read.
#[allow(clippy::too_many_arguments)] // the binary problem's data, bounds, ν and solver settings
pub(crate) fn cross_validated_sigmoid(
    kernel: &KernelSpec,
    x: &Samples,
    y: &[f64],
    c: &[f64],
    solver: &SolverParams,
    seed: u64,
    pre: Option<&Precomputed>,
    nu: Option<f64>,
    precomputed: bool,
) -> Result<Sigmoid> {
    let n = x.n();
    let mut perm: Vec<usize> = (0..n).collect();
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(seed);
    perm.shuffle(&mut rng);
    let mut dec = vec![0.0; n];
    for f in 0..FOLDS {
        let (begin, end) = (f * n / FOLDS, (f + 1) * n / FOLDS);
        if begin == end {
            continue;
        }
        let test: Vec<usize> = perm[begin..end].to_vec();
        let tr: Vec<usize> = perm[..begin].iter().chain(&perm[end..]).copied().collect();
        let (pos, neg) =
            tr.iter().fold((0, 0), |(p, q), &i| if y[i] > 0.0 { (p + 1, q) } else { (p, q + 1) });
        if pos == 0 || neg == 0 {
            let v = if pos > 0 { 1.0 } else { -1.0 };
            test.iter().for_each(|&i| dec[i] = v);
            continue;
        }
        let xt = x.select(&tr)?;
        let yt: Vec<f64> = tr.iter().map(|&i| y[i]).collect();
        let ct: Vec<f64> = tr.iter().map(|&i| c[i]).collect();
        // A dense Gram is restricted to the fold; otherwise the fold's own policy applies.
        let sub = match pre {
            Some(Precomputed::Dense(g)) => {
                let m = tr.len();
                Some(Precomputed::Dense(std::sync::Arc::new(faer::Mat::from_fn(m, m, |ii, jj| {
                    g[(tr[ii], tr[jj])]
                }))))
            }
            _ => train::precompute(kernel, &xt, solver.cache_bytes(), None, &solver.tuning)?,
        };
        let source = train::source_plan(sub.as_ref(), false, precomputed, super::plan::Order::Data, 1);
        let fit = super::nu::solve_binary(kernel, Rows::all(&xt), &yt, ct, nu, solver, sub, source)?;
        let coef: Vec<f64> = fit.alpha.iter().zip(&yt).map(|(a, y)| a * y).collect();
        if let (true, Some(Precomputed::Dense(g))) = (precomputed, pre) {
            // A precomputed kernel: the held-out rows are in the problem's matrix.
            for &i in &test {
                dec[i] = tr.iter().zip(&coef).map(|(&j, &a)| a * g[(i, j)]).sum::<f64>() - fit.stats.rho;
            }
            continue;
        }
        let xs = x.select(&test)?;
        let d = super::predict::decision_values(
            kernel,
            &xt,
            super::predict::column(&coef),
            &[fit.stats.rho],
            &xs,
        )?;
        for (k, &i) in test.iter().enumerate() {
            dec[i] = d[(k, 0)];
        }
    }
    Ok(fit_sigmoid(&dec, y))
}

/// Platt's sigmoid fit by Newton's method with backtracking on the regularized targets
/// `(N₊ + 1)/(N₊ + 2)` and `1/(N₋ + 2)`.
pub(crate) fn fit_sigmoid(dec: &[f64], y: &[f64]) -> Sigmoid {
    let prior1 = y.iter().filter(|&&v| v > 0.0).count() as f64;
    let prior0 = y.len() as f64 - prior1;
    let (hi, lo) = ((prior1 + 1.0) / (prior1 + 2.0), 1.0 / (prior0 + 2.0));
    let t: Vec<f64> = y.iter().map(|&v| if v > 0.0 { hi } else { lo }).collect();
    let objective = |a: f64, b: f64| -> f64 {
        dec.iter()
            .zip(&t)
            .map(|(&f, &ti)| {
                let z = f * a + b;
                if z >= 0.0 { ti * z + (-z).exp().ln_1p() } else { (ti - 1.0) * z + z.exp().ln_1p() }
            })
            .sum()
    };
    let (mut a, mut b) = (0.0, ((prior0 + 1.0) / (prior1 + 1.0)).ln());
    let mut fval = objective(a, b);
    const SIGMA: f64 = 1e-12;
    const EPS: f64 = 1e-5;
    for _ in 0..100 {
        let (mut h11, mut h22, mut h21, mut g1, mut g2) = (SIGMA, SIGMA, 0.0, 0.0, 0.0);
        for (&f, &ti) in dec.iter().zip(&t) {
            let z = f * a + b;
            let (p, q) = if z >= 0.0 {
                let e = (-z).exp();
                (e / (1.0 + e), 1.0 / (1.0 + e))
            } else {
                let e = z.exp();
                (1.0 / (1.0 + e), e / (1.0 + e))
            };
            let d2 = p * q;
            h11 += f * f * d2;
            h22 += d2;
            h21 += f * d2;
            let d1 = ti - p;
            g1 += f * d1;
            g2 += d1;
        }
        if g1.abs() < EPS && g2.abs() < EPS {
            break;
        }
        let det = h11 * h22 - h21 * h21;
        let da = -(h22 * g1 - h21 * g2) / det;
        let db = -(-h21 * g1 + h11 * g2) / det;
        let gd = g1 * da + g2 * db;
        let mut step = 1.0;
        let mut moved = false;
        while step >= 1e-10 {
            let (na, nb) = (a + step * da, b + step * db);
            let nf = objective(na, nb);
            if nf < fval + 1e-4 * step * gd {
                a = na;
                b = nb;
                fval = nf;
                moved = true;
                break;
            }
            step /= 2.0;
        }
        if !moved {
            break;
        }
    }
    Sigmoid { a, b }
}

/// Class probabilities from pairwise `r[i][j] = P(i | i or j)` (Wu, Lin & Weng 2004, method 2):
/// minimizes `Σ_i Σ_{j≠i} (r_ji p_i − r_ij p_j)²` on the simplex by the fixed-point iteration of the paper.
pub(crate) fn couple(r: &[Vec<f64>]) -> Vec<f64> {
    let k = r.len();
    let mut q = vec![vec![0.0; k]; k];
    for t in 0..k {
        for j in 0..k {
            if j != t {
                q[t][t] += r[j][t] * r[j][t];
                q[t][j] = -r[j][t] * r[t][j];
            }
        }
    }
    let mut p = vec![1.0 / k as f64; k];
    let mut qp = vec![0.0; k];
    let eps = 0.005 / k as f64;
    for _ in 0..k.max(100) {
        let mut pqp = 0.0;
        for t in 0..k {
            qp[t] = (0..k).map(|j| q[t][j] * p[j]).sum();
            pqp += p[t] * qp[t];
        }
        if qp.iter().map(|&v| (v - pqp).abs()).fold(0.0, f64::max) < eps {
            break;
        }
        for t in 0..k {
            let diff = (-qp[t] + pqp) / q[t][t];
            p[t] += diff;
            pqp = (pqp + diff * (diff * q[t][t] + 2.0 * qp[t])) / (1.0 + diff) / (1.0 + diff);
            for j in 0..k {
                qp[j] = (qp[j] + diff * q[t][j]) / (1.0 + diff);
                p[j] /= 1.0 + diff;
            }
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigmoid_fits_separable_scores_monotonically() {
        let dec: Vec<f64> = (0..40).map(|i| i as f64 / 10.0 - 2.0).collect();
        let y: Vec<f64> = dec.iter().map(|&d| if d > 0.0 { 1.0 } else { -1.0 }).collect();
        let s = fit_sigmoid(&dec, &y);
        assert!(s.a < 0.0, "probability increases with the decision value");
        assert!(s.prob(2.0) > 0.9 && s.prob(-2.0) < 0.1);
    }

    #[test]
    fn coupling_recovers_consistent_pairwise_probabilities() {
        let p = [0.5, 0.3, 0.2];
        let r: Vec<Vec<f64>> = (0..3)
            .map(|i| (0..3).map(|j| if i == j { 0.0 } else { p[i] / (p[i] + p[j]) }).collect())
            .collect();
        let q = couple(&r);
        for i in 0..3 {
            assert!((q[i] - p[i]).abs() < 1e-3, "{q:?}");
        }
    }
}
