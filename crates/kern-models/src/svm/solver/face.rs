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
//! `Σ_{y_t = s} α_t` fixed for each sign `s`). It is solved by the null-space method (Nocedal & Wright
//! 2006, §16.2, eq. 16.19–16.20): the basis `z = y_t e_t − y_r e_r` of `{A d = 0}` (`r` the last free
//! position of `t`'s group), the reduced Hessian `ZᵀQZ = U Λ Uᵀ` (faer's symmetric eigensolver, run
//! sequentially) and `d = Z w`, `w = −Σ_i (u_iᵀZᵀG / max(λ_i, 10⁻¹⁰ λ_max)) u_i`: the Newton step on
//! the directions the quadratic bends along, and on flat directions (a singular `Q_FF`, where the dual
//! is linear on the face and its minimum lies on a bound) a long step down the slope that the line
//! search cuts at the first bound. Dropping the flat directions instead left the blocked-solver case
//! of `block_tests` at the cap. Then `G_Fᵀd = −Σ (u_iᵀZᵀG)²/max(λ_i, ·) < 0` unless the free gradient is already
//! consistent; the descent is checked on the computed `d` before the step is used. The step length is
//! the exact minimizer `t* = −G_Fᵀd / dᵀQ_FF d` of the quadratic along `d`, cut at the first bound
//! `t_max`; the variable that reaches it is put exactly on its bound. Along `d` the objective changes
//! by `t G_Fᵀd + ½ t² dᵀQd ≤ ½ t G_Fᵀd < 0` for `0 < t ≤ t*`, so the step never increases the dual
//! and keeps every constraint. When the step is cut, that variable leaves the face and a further step
//! is taken on the smaller face (the active-set method of Nocedal & Wright §16.5, with SMO's steps as
//! the way back into the face), until a step is not cut or the budget below is spent.
//!
//! **Convergence.** The SMO steps and their stopping rule are unchanged; a face step only lowers the
//! dual and keeps feasibility. The decrease guarantee of each WSS 2 step (Fan, Chen & Lin 2005, §3;
//! Chen, Fan & Lin 2006, "A study on SMO-type decomposition methods for support vector machines",
//! IEEE TNN 17(4), Theorem 3 for the limit points) is a property of the step from the current point, so
//! it holds after a face step as before; the face steps, one batch per [`FACE_EVERY`] SMO iterations, add
//! descent without taking any away.
//!
//! **When.** Every [`FACE_EVERY`] SMO iterations (problems that converge sooner are untouched, bit
//! for bit), and only when the steps cost at most what those iterations did (`9|F|³ + 4|F|l` flops a
//! step against `l` per SMO iteration, [`budget`]) and their memory (`Q_FF` and its eigenvectors, about
//! `4|F|²` numbers, plus one column) fits in the cache budget or 64 MiB, whichever is larger. The cache
//! budget bounds the kernel cache, not this: with a cache of a few bytes (columns computed on demand),
//! SMO alone zig-zagged to its 10⁷ cap on a 41-point `poly:degree=2` problem that one face step ends.

use crate::svm::qmatrix::QMatrix;
use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self, ComputeEigenvectors};
use faer::{Mat, Par};

/// SMO iterations between two face steps.
pub(super) const FACE_EVERY: u64 = 100_000;

/// Eigenvalues of the reduced Hessian below `FLAT · λ_max` count as zero (flat directions).
const FLAT: f64 = 1e-10;

/// Flops of a face step on `m` free variables of `l`: the eigendecomposition with vectors (~9m³), and
/// the `m` full columns computed for `Q_FF` and again for the gradient update (`l` each, as an SMO
/// iteration is counted in [`budget`]) with the update itself (2ml).
fn face_cost(m: usize, l: usize) -> f64 {
    9.0 * (m as f64).powi(3) + 4.0 * (m * l) as f64
}

/// Working memory a face step may use whatever the cache budget (64 MiB): the step is what lets SMO
/// finish on a singular `Q_FF`, so a user's tiny kernel cache must not switch it off.
const MEMORY_FLOOR: usize = 64 << 20;

/// Bytes a face step on `m` free variables of `l` holds at once: `Q_FF`, the reduced Hessian, its
/// eigenvectors and the eigensolver's scratch (about `m²` each), and one full column.
fn face_memory(m: usize, l: usize) -> u128 {
    (4 * (m as u128) * (m as u128) + l as u128) * 8
}

/// The free variables of `alpha` if a face step is affordable (see the module doc): at least two, a
/// step costs at most [`budget`], and its memory ([`face_memory`]) fits in `bytes` or the
/// [`MEMORY_FLOOR`].
fn affordable_free(alpha: &[f64], c: &[f64], bytes: usize) -> Option<Vec<usize>> {
    let l = alpha.len();
    let free: Vec<usize> = (0..l).filter(|&t| alpha[t] > 0.0 && alpha[t] < c[t]).collect();
    let nf = free.len();
    let fits = face_memory(nf, l) <= bytes.max(MEMORY_FLOOR) as u128;
    (nf >= 2 && face_cost(nf, l) <= budget(l) && fits).then_some(free)
}

/// Whether a face step is affordable at `alpha` (see [`affordable_free`]); decided before the solver
/// pays for anything the step needs.
pub(super) fn affordable(alpha: &[f64], c: &[f64], bytes: usize) -> bool {
    affordable_free(alpha, c, bytes).is_some()
}

/// Flops allowed to the face steps taken at one time: those of the [`FACE_EVERY`] SMO iterations before
/// them (each at least `2l` over the active set, counted as `l`).
fn budget(l: usize) -> f64 {
    FACE_EVERY as f64 * l as f64
}

/// Group of free position `k` in the constraint rows: one group (standard duals) or one per sign (ν).
#[inline]
fn group(y: f64, nu: bool) -> usize {
    usize::from(nu && y < 0.0)
}

/// The descent direction of the module doc on `F` (`qff`: `Q_FF` column-major, `nf × nf`), or `None`
/// when there is none (no free direction, not a descent direction, not finite).
fn direction(qff: &[f64], nf: usize, g: &[f64], y: &[f64], nu: bool) -> Option<Vec<f64>> {
    // The last free position of each group is its reference `r`; every other position `t` gives the
    // basis vector `z = y_t e_t − y_r e_r` of `{A d = 0}`.
    let mut reference = [usize::MAX; 2];
    for t in 0..nf {
        reference[group(y[t], nu)] = t;
    }
    let basis: Vec<(usize, usize)> = (0..nf)
        .filter(|&t| reference[group(y[t], nu)] != t)
        .map(|t| (t, reference[group(y[t], nu)]))
        .collect();
    let m = basis.len();
    if m == 0 {
        return None;
    }
    // Zᵀ Q Z and Zᵀ G.
    let q = |s: usize, t: usize| y[s] * y[t] * qff[t * nf + s];
    let h = Mat::from_fn(m, m, |a, b| {
        let ((s, rs), (t, rt)) = (basis[a], basis[b]);
        q(s, t) - q(s, rt) - q(rs, t) + q(rs, rt)
    });
    let gr: Vec<f64> = basis.iter().map(|&(t, r)| y[t] * g[t] - y[r] * g[r]).collect();
    let req = evd::self_adjoint_evd_scratch::<f64>(m, ComputeEigenvectors::Yes, Par::Seq, Default::default());
    let mut mem = MemBuffer::try_new(req).ok()?;
    let mut lambda = Diag::<f64>::zeros(m);
    let mut u = Mat::<f64>::zeros(m, m);
    evd::self_adjoint_evd(
        h.as_ref(),
        lambda.as_mut(),
        Some(u.as_mut()),
        Par::Seq,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .ok()?;
    let lambda = lambda.column_vector();
    let top = (0..m).map(|i| lambda[i]).fold(0.0f64, f64::max);
    if top <= 0.0 || !top.is_finite() {
        return None;
    }
    // w = −Σ_i (u_iᵀ g_r / max(λ_i, FLAT·λ_max)) u_i: the Newton step on the directions the quadratic
    // bends along; on flat directions (where the dual is linear on the face and its minimum lies on a
    // bound) a long step down the slope, which the line search cuts at the first bound.
    let floor = FLAT * top;
    let mut w = vec![0.0; m];
    for i in 0..m {
        let coef = (0..m).map(|a| u[(a, i)] * gr[a]).sum::<f64>() / lambda[i].max(floor);
        for (a, wa) in w.iter_mut().enumerate() {
            *wa -= coef * u[(a, i)];
        }
    }
    // d = Z w.
    let mut d = vec![0.0; nf];
    for (a, &(t, r)) in basis.iter().enumerate() {
        d[t] += y[t] * w[a];
        d[r] -= y[r] * w[a];
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

/// Face steps from `alpha` (until one is not cut by a bound, within [`budget`]): updates `alpha` and `g`
/// (all `l` entries, `G += Q Δα`) and returns the positions whose `α` changed (all free before the
/// steps), or `None` when no step was taken. `q`'s positions are the caller's.
///
/// Only `Q_FF` is kept: the steps on the face need the gradient on `F` alone, which `Q_FF` updates;
/// the full gradient is updated once at the end, one column at a time, from each variable's total
/// change.
pub(super) fn face_steps<Q: QMatrix>(
    q: &Q,
    y: &[f64],
    c: &[f64],
    alpha: &mut [f64],
    g: &mut [f64],
    nu: bool,
    bytes: usize,
) -> Option<Vec<usize>> {
    let l = alpha.len();
    let free = affordable_free(alpha, c, bytes)?;
    let nf = free.len();
    // Q_FF column-major: qf[k·nf + e] = Q[free[e]][free[k]].
    let mut col = vec![0.0; l];
    let mut qf = vec![0.0; nf * nf];
    for (k, &p) in free.iter().enumerate() {
        q.fill_column(p, 0, &mut col);
        for (e, &r) in free.iter().enumerate() {
            qf[k * nf + e] = col[r];
        }
    }
    let mut gf: Vec<f64> = free.iter().map(|&p| g[p]).collect();
    let start: Vec<f64> = free.iter().map(|&p| alpha[p]).collect();
    // `live`: positions (in F) still free on the current face.
    let mut live: Vec<usize> = (0..nf).collect();
    let mut spent = 0.0;
    loop {
        let m = live.len();
        spent += face_cost(m, l);
        if m < 2 || spent > budget(l) {
            break;
        }
        let qff: Vec<f64> = (0..m * m).map(|e| qf[live[e / m] * nf + live[e % m]]).collect();
        let g_live: Vec<f64> = live.iter().map(|&k| gf[k]).collect();
        let yf: Vec<f64> = live.iter().map(|&k| y[free[k]]).collect();
        let af: Vec<f64> = live.iter().map(|&k| alpha[free[k]]).collect();
        let cf: Vec<f64> = live.iter().map(|&k| c[free[k]]).collect();
        let Some(d) = direction(&qff, m, &g_live, &yf, nu) else { break };
        let Some((t, cut)) = step_length(&qff, m, &g_live, &d, &af, &cf) else { break };
        let mut stepped = false;
        for e in 0..m {
            let k = live[e];
            let p = free[k];
            let new = if cut == Some(e) {
                if d[e] > 0.0 { c[p] } else { 0.0 }
            } else {
                (alpha[p] + t * d[e]).clamp(0.0, c[p])
            };
            if new != alpha[p] {
                let dk = new - alpha[p];
                alpha[p] = new;
                stepped = true;
                for (gv, &qv) in gf.iter_mut().zip(&qf[k * nf..(k + 1) * nf]) {
                    *gv += dk * qv;
                }
            }
        }
        if !stepped {
            break;
        }
        live.retain(|&k| alpha[free[k]] > 0.0 && alpha[free[k]] < c[free[k]]);
        if cut.is_none() {
            break;
        }
    }
    let mut moved = Vec::new();
    for (&p, &a0) in free.iter().zip(&start) {
        if alpha[p] != a0 {
            q.fill_column(p, 0, &mut col);
            super::add_scaled(g, &col, alpha[p] - a0);
            moved.push(p);
        }
    }
    (!moved.is_empty()).then_some(moved)
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
        #![proptest_config(kern_testkit::proptest_config(64))]

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
            let before = a.clone();
            // A zero cache budget: the step's own memory floor still admits it.
            let moved = face_steps(&Dense { l, q: q.clone() }, &y, &cv, &mut a, &mut g, nu, 0).unwrap_or_default();
            let changed: Vec<usize> = (0..l).filter(|&t| a[t] != before[t]).collect();
            prop_assert_eq!(moved, changed);
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
