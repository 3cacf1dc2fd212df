//! A Newton step on the face of the free variables, taken when SMO has run long without converging.
//!
//! **Why.** SMO (pair or blocked) converges only linearly, at a rate set by the conditioning of `Q`
//! restricted to the free variables `F = {t : 0 < α_t < C_t}`. When `Q_FF` is (nearly) singular, as
//! with a polynomial kernel whose feature space has fewer dimensions than there are free multipliers
//! (`poly:degree=2` in `d = 3`: rank ≤ 10), or a smooth Gaussian on one-dimensional data, the pair
//! steps become tiny and zig-zag: the objective falls by ~1e-12 per step and the violation stalls above
//! a tight `ε` for millions of iterations (LIBSVM 3.37 reaches its 10⁷ cap on the ν-SVR case of
//! `nu_tests`, as kern did). Every step still decreases the dual, so this is slowness, not a cycle.
//!
//! **The step.** With the bounded variables fixed, the dual restricted to `F` is the equality-
//! constrained quadratic `min_d G_Fᵀd + ½ dᵀQ_FF d` s.t. `A d = 0`, where `A` has one row `y_F`
//! (standard duals: `yᵀα` fixed) or one row per sign group (the ν duals, whose second equality makes
//! `Σ_{y_t = s} α_t` fixed for each sign `s`). Its KKT system is solved with `H = Q_FF + δI`
//! (`δ = 10⁻⁹ max Q_tt`, so that `H` is positive definite even when `Q_FF` is singular) through the
//! Schur complement of the one or two constraint rows: `u = H⁻¹G_F`, `W = H⁻¹Aᵀ`,
//! `(A W) λ = −A u`, `d = −(u + W λ)` (Nocedal & Wright 2006, §16.2, eq. 16.4–16.5). Then
//! `G_Fᵀd = −(G_F + Aᵀλ)ᵀ H⁻¹ (G_F + Aᵀλ) ≤ 0`: `d` is a descent direction, and after an exact
//! re-projection onto `A d = 0` (rounding in an ill-conditioned `H` would otherwise break the
//! equalities) the descent is checked on the true `G` before the step is used. The step length is the
//! exact minimizer `t* = −G_Fᵀd / dᵀQ_FF d` of the quadratic along `d` (computed with the true `Q_FF`),
//! cut at the first bound `t_max`; the variable that reaches it is put exactly on its bound. Along `d`
//! the objective changes by `t G_Fᵀd + ½ t² dᵀQd ≤ ½ t G_Fᵀd < 0` for `0 < t ≤ t*`, so the step
//! never increases the dual and keeps every constraint: the solver's convergence argument (monotone
//! descent plus WSS 2 steps, Fan, Chen & Lin 2005) is unchanged, and its stopping rule decides the
//! exit. When the step is cut, one free variable becomes bounded and a further step is taken on the
//! smaller face (an active-set method, Nocedal & Wright §16.5), a few times at most.
//!
//! **When.** Every [`FACE_EVERY`] SMO iterations (problems that converge sooner are untouched, bit
//! for bit), and only when the step costs less than those iterations did: `|F|³/3` flops for the
//! factorization against at least `2|F|` per SMO iteration, i.e. `|F|² ≤ 6 · FACE_EVERY`, and when the
//! `|F|` full columns fit in the cache budget.

use crate::svm::qmatrix::QMatrix;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt;
use faer::{Conj, Mat, Par};

/// SMO iterations between two face steps.
pub(super) const FACE_EVERY: u64 = 100_000;

/// At most this many face steps in a row (each one cut by a bound shrinks the face by one variable).
const FACE_REPEAT: usize = 4;

/// What a face step touched: the positions of the free variables (before the step) and their full
/// columns of `Q` (column-major, `l` entries each).
pub(super) struct FaceUpdate {
    pub(super) free: Vec<usize>,
    pub(super) cols: Vec<f64>,
}

/// The free variables of `alpha` if a face step is affordable (see the module doc): at least two, and
/// `|F|² ≤ 6 · FACE_EVERY`, `|F| · l · 8 ≤ bytes`.
fn affordable_free(alpha: &[f64], c: &[f64], bytes: usize) -> Option<Vec<usize>> {
    let free: Vec<usize> = (0..alpha.len()).filter(|&t| alpha[t] > 0.0 && alpha[t] < c[t]).collect();
    let nf = free.len();
    let fits = (nf as u128) * (alpha.len() as u128) * 8 <= bytes as u128;
    (nf >= 2 && (nf as u64) * (nf as u64) <= 6 * FACE_EVERY && fits).then_some(free)
}

/// Group of free position `k` in the constraint rows: one group (standard duals) or one per sign (ν).
#[inline]
fn group(y: f64, nu: bool) -> usize {
    usize::from(nu && y < 0.0)
}

/// The descent direction of the module doc on `F` (`qff`: `Q_FF` column-major, `nf × nf`), or `None`
/// when none is found (not positive definite, not a descent direction, not finite).
fn direction(qff: &[f64], nf: usize, g: &[f64], y: &[f64], nu: bool) -> Option<Vec<f64>> {
    let groups = if nu { 2 } else { 1 };
    let mut size = [0usize; 2];
    for &yt in y {
        size[group(yt, nu)] += 1;
    }
    // Constraint rows with at least one free variable.
    let rows: Vec<usize> = (0..groups).filter(|&k| size[k] > 0).collect();
    let max_diag = (0..nf).map(|k| qff[k * nf + k]).fold(0.0f64, f64::max);
    if max_diag <= 0.0 || !max_diag.is_finite() {
        return None;
    }
    let delta = 1e-9 * max_diag;
    let mut h = Mat::from_fn(nf, nf, |a, b| qff[b * nf + a] + if a == b { delta } else { 0.0 });
    let req = llt::factor::cholesky_in_place_scratch::<f64>(nf, Par::Seq, Default::default());
    let mut mem = MemBuffer::try_new(req).ok()?;
    llt::factor::cholesky_in_place(
        h.as_mut(),
        Default::default(),
        Par::Seq,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .ok()?;
    // Right-hand sides: G_F, then one column a_k per constraint row (a_k,t = y_t on group k).
    let mut b = Mat::from_fn(nf, 1 + rows.len(), |t, col| {
        if col == 0 {
            g[t]
        } else if group(y[t], nu) == rows[col - 1] {
            y[t]
        } else {
            0.0
        }
    });
    let req = llt::solve::solve_in_place_scratch::<f64>(nf, 1 + rows.len(), Par::Seq);
    let mut mem = MemBuffer::try_new(req).ok()?;
    llt::solve::solve_in_place_with_conj(h.as_ref(), Conj::No, b.as_mut(), Par::Seq, MemStack::new(&mut mem));
    // S = A W and r = −A u over the constraint rows (1 × 1 or 2 × 2).
    let a = |k: usize, t: usize| if group(y[t], nu) == rows[k] { y[t] } else { 0.0 };
    let m = rows.len();
    let mut s = [[0.0f64; 2]; 2];
    let mut r = [0.0f64; 2];
    for k in 0..m {
        for t in 0..nf {
            r[k] -= a(k, t) * b[(t, 0)];
            for (kk, sk) in s[k].iter_mut().enumerate().take(m) {
                *sk += a(k, t) * b[(t, 1 + kk)];
            }
        }
    }
    let lambda = if m == 1 {
        [r[0] / s[0][0], 0.0]
    } else {
        let det = s[0][0] * s[1][1] - s[0][1] * s[1][0];
        [(r[0] * s[1][1] - s[0][1] * r[1]) / det, (s[0][0] * r[1] - s[1][0] * r[0]) / det]
    };
    let mut d: Vec<f64> =
        (0..nf).map(|t| -(b[(t, 0)] + (0..m).map(|k| b[(t, 1 + k)] * lambda[k]).sum::<f64>())).collect();
    // Exact projection onto A d = 0 (y_t² = 1): subtract each group's mean of y_t d_t.
    let mut mean = [0.0f64; 2];
    for t in 0..nf {
        mean[group(y[t], nu)] += y[t] * d[t];
    }
    for t in 0..nf {
        let k = group(y[t], nu);
        d[t] -= y[t] * mean[k] / size[k] as f64;
    }
    let slope: f64 = (0..nf).map(|t| g[t] * d[t]).sum();
    (slope < 0.0 && d.iter().all(|v| v.is_finite())).then_some(d)
}

/// The step length along `d`: the exact minimizer of the quadratic, cut at the first bound; with the
/// position (in `F`) of the variable that reaches its bound when the cut is active.
fn step_length(
    qff: &[f64],
    nf: usize,
    g: &[f64],
    d: &[f64],
    a: &[f64],
    c: &[f64],
) -> Option<(f64, Option<usize>)> {
    let slope: f64 = (0..nf).map(|t| g[t] * d[t]).sum();
    let curv: f64 = (0..nf).map(|b| d[b] * (0..nf).map(|t| qff[b * nf + t] * d[t]).sum::<f64>()).sum();
    let t_star = if curv > 0.0 { -slope / curv } else { f64::INFINITY };
    let (mut t_max, mut at) = (f64::INFINITY, None);
    for k in 0..nf {
        let room = if d[k] > 0.0 {
            (c[k] - a[k]) / d[k]
        } else if d[k] < 0.0 {
            a[k] / -d[k]
        } else {
            continue;
        };
        if room < t_max {
            t_max = room;
            at = Some(k);
        }
    }
    let (t, cut) = if t_max <= t_star { (t_max, at) } else { (t_star, None) };
    (t.is_finite() && t > 0.0).then_some((t, cut))
}

/// Up to [`FACE_REPEAT`] face steps from `alpha`: updates `alpha` and `g` (all `l` entries, `G += Q Δα`)
/// and returns what changed, or `None` when no step was taken. `q`'s positions are the caller's.
pub(super) fn face_steps<Q: QMatrix>(
    q: &Q,
    y: &[f64],
    c: &[f64],
    alpha: &mut [f64],
    g: &mut [f64],
    nu: bool,
    bytes: usize,
) -> Option<FaceUpdate> {
    let l = alpha.len();
    let free = affordable_free(alpha, c, bytes)?;
    let nf = free.len();
    let mut cols = vec![0.0; nf * l];
    for (k, col) in cols.chunks_mut(l).enumerate() {
        q.fill_column(free[k], 0, col);
    }
    // `live`: positions (in F) still free on the current face.
    let mut live: Vec<usize> = (0..nf).collect();
    let mut moved = false;
    for _ in 0..FACE_REPEAT {
        let m = live.len();
        if m < 2 {
            break;
        }
        let qff: Vec<f64> = (0..m * m).map(|e| cols[live[e / m] * l + free[live[e % m]]]).collect();
        let gf: Vec<f64> = live.iter().map(|&k| g[free[k]]).collect();
        let yf: Vec<f64> = live.iter().map(|&k| y[free[k]]).collect();
        let af: Vec<f64> = live.iter().map(|&k| alpha[free[k]]).collect();
        let cf: Vec<f64> = live.iter().map(|&k| c[free[k]]).collect();
        let Some(d) = direction(&qff, m, &gf, &yf, nu) else { break };
        let Some((t, cut)) = step_length(&qff, m, &gf, &d, &af, &cf) else { break };
        let mut steps = Vec::with_capacity(m);
        for e in 0..m {
            let k = live[e];
            let p = free[k];
            let new = if cut == Some(e) {
                if d[e] > 0.0 { c[p] } else { 0.0 }
            } else {
                (alpha[p] + t * d[e]).clamp(0.0, c[p])
            };
            if new != alpha[p] {
                steps.push((k, new - alpha[p]));
                alpha[p] = new;
            }
        }
        if steps.is_empty() {
            break;
        }
        moved = true;
        for (gi, row) in g.iter_mut().zip(0..l) {
            *gi += steps.iter().map(|&(k, dk)| dk * cols[k * l + row]).sum::<f64>();
        }
        live.retain(|&k| alpha[free[k]] > 0.0 && alpha[free[k]] < c[free[k]]);
        if cut.is_none() {
            break;
        }
    }
    moved.then_some(FaceUpdate { free, cols })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    /// A dense `Q` (column-major) for the face step, whose positions never move.
    struct Dense {
        l: usize,
        q: Vec<f64>,
    }

    impl QMatrix for Dense {
        fn l(&self) -> usize {
            self.l
        }
        fn diag(&self) -> Vec<f64> {
            (0..self.l).map(|t| self.q[t * self.l + t]).collect()
        }
        fn fill_column(&self, j: usize, from: usize, out: &mut [f64]) {
            out.copy_from_slice(&self.q[j * self.l + from..j * self.l + from + out.len()]);
        }
        fn swap_index(&mut self, _: usize, _: usize) {
            unreachable!("face steps do not permute")
        }
    }

    fn objective(q: &[f64], p: &[f64], a: &[f64]) -> f64 {
        let l = a.len();
        (0..l).map(|t| a[t] * (p[t] + 0.5 * (0..l).map(|s| q[s * l + t] * a[s]).sum::<f64>())).sum()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// From a random feasible point of a random dual with a singular `Q = diag(y) ZᵀZ diag(y)`
        /// (rank ≤ r < l in most draws): the face steps keep the box and the equality constraints
        /// (one row `yᵀα`, or one per sign for ν), never increase the objective, and leave `G = p + Qα`.
        #[test]
        fn face_steps_descend_and_stay_feasible(l in 3usize..25, r in 1usize..6, seed in 0u64..10_000,
                                                 nu in any::<bool>(), c in 0.1f64..100.0) {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let z: Vec<f64> = (0..l * r).map(|_| rng.random::<f64>() * 2.0 - 1.0).collect();
            let y: Vec<f64> = (0..l).map(|t| if t % 2 == 0 || rng.random::<bool>() { 1.0 } else { -1.0 }).collect();
            let q: Vec<f64> = (0..l * l)
                .map(|e| {
                    let (s, t) = (e / l, e % l);
                    y[s] * y[t] * (0..r).map(|k| z[s * r + k] * z[t * r + k]).sum::<f64>()
                })
                .collect();
            let p: Vec<f64> = (0..l).map(|_| rng.random::<f64>() * 4.0 - 2.0).collect();
            let cv = vec![c; l];
            let mut a: Vec<f64> = (0..l).map(|_| c * rng.random::<f64>()).collect();
            let mut g: Vec<f64> = (0..l).map(|t| p[t] + (0..l).map(|s| q[s * l + t] * a[s]).sum::<f64>()).collect();
            let sums = |a: &[f64]| {
                let mut s = [0.0f64; 3];
                for t in 0..l {
                    s[0] += y[t] * a[t];
                    s[if y[t] > 0.0 { 1 } else { 2 }] += a[t];
                }
                s
            };
            let (f0, s0) = (objective(&q, &p, &a), sums(&a));
            face_steps(&Dense { l, q: q.clone() }, &y, &cv, &mut a, &mut g, nu, usize::MAX);
            let (f1, s1) = (objective(&q, &p, &a), sums(&a));
            let scale = c * l as f64;
            prop_assert!(a.iter().all(|&v| (0.0..=c).contains(&v)));
            prop_assert!((s1[0] - s0[0]).abs() <= 1e-9 * scale, "y'a {} -> {}", s0[0], s1[0]);
            if nu {
                prop_assert!((s1[1] - s0[1]).abs() <= 1e-9 * scale && (s1[2] - s0[2]).abs() <= 1e-9 * scale);
            }
            // Rounding of the two objective evaluations: |f| terms of size ≤ (|p| + |Q| c l) c l.
            prop_assert!(f1 <= f0 + 1e-12 * (1.0 + (2.0 + r as f64 * scale) * scale), "f {f0} -> {f1}");
            for t in 0..l {
                let gt = p[t] + (0..l).map(|s| q[s * l + t] * a[s]).sum::<f64>();
                prop_assert!((g[t] - gt).abs() <= 1e-9 * (1.0 + r as f64 * scale), "G[{t}] {} vs {gt}", g[t]);
            }
        }
    }
}
