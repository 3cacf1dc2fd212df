//! The blocked SMO for large problems (the decomposition of ThunderSVM and other multi-core / GPU SVM
//! solvers, on LIBSVM's dual and stopping rule).
//!
//! Each outer iteration:
//!
//! 1. **Working set.** With `v_t = −y_t G_t`, `m = max_{I_up} v`, `M = min_{I_low} v`: stop when
//!    `m − M < ε` (LIBSVM's rule, on the full problem: the blocked solver does not shrink). Otherwise
//!    `i = argmax_{I_up} v` and the first-order partner `j₁ = argmin_{I_low} v` enter the set; the
//!    variables of `I_low` are ranked by the second-order gain of WSS 2 with `i` (Fan, Chen & Lin 2005,
//!    eq. 19: `b²/a`, `b = m − v_t > 0`, `a = Q_ii + Q_tt − 2 y_i y_t Q_it`, `τ` if `a ≤ 0`), and the
//!    variables of `I_up` by the same gain with the best `j` of that ranking; the set takes the best of
//!    both rankings in turn until it holds `q` variables.
//! 2. **Rows.** The `q` columns of `Q` not already held are computed in one parallel pass through the
//!    kernel-matrix layer (the columns are symmetric, so they are the rows); columns of recent working
//!    sets are kept in a fixed pool of slots (least recently used goes first).
//! 3. **Sub-problem.** `min ½ α_Bᵀ Q_BB α_B + (G_B − Q_BB α_B^old)ᵀ α_B` on the box with `y_Bᵀ α_B`
//!    fixed, solved by the pair SMO ([`Solver`]) to the tolerance `max(ε, (m − M)/10)` (see
//!    [`inner_tolerance`]).
//! 4. **Gradient.** `G += Q_{:,B} Δα_B` in one blocked, parallel product over the held columns.
//!
//! 5. **Face steps.** After every 10⁵ inner iterations, Newton steps on the face of the free variables
//!    ([`super::face`]): SMO's linear rate stalls on singular `Q_FF` (a polynomial kernel whose feature
//!    space is smaller than the set of free multipliers), and these steps finish the face exactly.
//!
//! **Progress per outer iteration.** The set holds `i` (the maximal violator) and `jb`, WSS 2's best
//! partner for `i` over all of `I_low`. Inside the block `i` is still the maximal violator and the
//! block's WSS 2 partner has a gain `b²/a` at least `jb`'s, so the sub-problem's first pair step
//! decreases `f` at least as much as WSS 2's unclipped gain of `(i, jb)` allows, i.e. as the pair
//! solver's step from the same point, and the further inner steps only decrease `f`. So each outer
//! iteration gives at least the sufficient decrease of a WSS 2 step, which is what the convergence
//! proofs of SMO-type decomposition use (Fan, Chen & Lin 2005, §3, Theorem 3; Chen, Fan & Lin 2006,
//! IEEE TNN 17(4), for working sets containing a maximal-violating-type pair; Lin 2001, IEEE TNN
//! 12(6), for larger working sets solved exactly). The rate is not improved by this argument; that is
//! what step 5 is for.
//!
//! The dual, the start, the stopping rule and `ρ` are those of the pair solver, so both reach an
//! ε-optimal point of the same problem (their objectives differ by at most `ε/2 · Σ C_t`, see the
//! tests).

use super::face::{self, FACE_EVERY};
use super::{Solution, Solver, SolverOptions, TAU, rho_of};
use crate::svm::progress::Ticker;
use crate::svm::qmatrix::QMatrix;
use rayon::prelude::*;

const NONE: usize = usize::MAX;

/// Gradient entries per parallel task of the blocked update.
const CHUNK: usize = 4096;

/// The pool of held columns: `slots` full columns of `Q` (length `l`), least recently used evicted.
struct Rows {
    l: usize,
    data: Vec<f64>,
    /// Variable held by each slot (`NONE`: empty).
    var: Vec<usize>,
    /// Outer iteration in which each slot was last used.
    stamp: Vec<u64>,
    /// Slot of each variable (`NONE`: not held).
    slot_of: Vec<usize>,
}

impl Rows {
    fn new(l: usize, slots: usize) -> Self {
        Rows {
            l,
            data: vec![0.0; l * slots],
            var: vec![NONE; slots],
            stamp: vec![0; slots],
            slot_of: vec![NONE; l],
        }
    }

    #[inline]
    fn col(&self, j: usize) -> &[f64] {
        let s = self.slot_of[j];
        &self.data[s * self.l..(s + 1) * self.l]
    }

    /// Makes every variable of `js` held, marking them used at `now`; the missing columns are computed
    /// in one parallel pass. Columns used at `now` are never evicted (the caller keeps at most `slots`
    /// of them).
    fn ensure<Q: QMatrix>(&mut self, q: &Q, js: &[usize], now: u64) {
        let mut missing = Vec::new();
        for &j in js {
            match self.slot_of[j] {
                NONE => {
                    if !missing.contains(&j) {
                        missing.push(j)
                    }
                }
                s => self.stamp[s] = now,
            }
        }
        if missing.is_empty() {
            return;
        }
        let mut free: Vec<usize> = (0..self.var.len()).filter(|&s| self.stamp[s] < now).collect();
        free.sort_by_key(|&s| (self.stamp[s], s));
        assert!(free.len() >= missing.len(), "the working set exceeds the column slots");
        let mut job = vec![NONE; self.var.len()];
        for (&j, &s) in missing.iter().zip(&free) {
            if self.var[s] != NONE {
                self.slot_of[self.var[s]] = NONE;
            }
            self.var[s] = j;
            self.slot_of[j] = s;
            self.stamp[s] = now;
            job[s] = j;
        }
        let l = self.l;
        let jobs: Vec<(usize, &mut [f64])> = self
            .data
            .chunks_mut(l)
            .enumerate()
            .filter(|(s, _)| job[*s] != NONE)
            .map(|(s, c)| (job[s], c))
            .collect();
        q.fill_columns(jobs);
    }
}

/// `G += Σ_k δ_k Q[:, j_k]` over the held columns of `steps = [(j_k, δ_k)]`, in parallel chunks of `G`
/// (each chunk stays in cache while every column streams through it).
fn add_columns(g: &mut [f64], rows: &Rows, steps: &[(usize, f64)]) {
    if steps.is_empty() {
        return;
    }
    let cols: Vec<(&[f64], f64)> = steps.iter().map(|&(j, d)| (rows.col(j), d)).collect();
    g.par_chunks_mut(CHUNK).enumerate().for_each(|(c, gc)| {
        let (from, len) = (c * CHUNK, gc.len());
        for &(col, d) in &cols {
            for (g, &v) in gc.iter_mut().zip(&col[from..from + len]) {
                *g += d * v;
            }
        }
    });
}

/// The sub-problem's tolerance: a tenth of the current violation, never below `ε` (a looser inner
/// solve only costs outer iterations; the outer rule decides convergence).
fn inner_tolerance(eps: f64, gap: f64) -> f64 {
    eps.max(0.1 * gap)
}

/// `Q_BB` of a working set, column-major, adapted to the pair solver.
struct Block {
    nb: usize,
    q: Vec<f64>,
    /// Original index (in the block) of each position of the inner solver.
    perm: Vec<usize>,
}

impl QMatrix for Block {
    fn l(&self) -> usize {
        self.nb
    }
    fn diag(&self) -> Vec<f64> {
        self.perm.iter().map(|&a| self.q[a * self.nb + a]).collect()
    }
    fn fill_column(&self, j: usize, from: usize, out: &mut [f64]) {
        let col = &self.q[self.perm[j] * self.nb..(self.perm[j] + 1) * self.nb];
        for (k, o) in out.iter_mut().enumerate() {
            *o = col[self.perm[from + k]];
        }
    }
    fn swap_index(&mut self, i: usize, j: usize) {
        self.perm.swap(i, j);
    }
}

/// Membership of `t` in `I_up` / `I_low`.
#[inline]
fn in_up(y: f64, a: f64, c: f64) -> bool {
    if y > 0.0 { a < c } else { a > 0.0 }
}

#[inline]
fn in_low(y: f64, a: f64, c: f64) -> bool {
    if y > 0.0 { a > 0.0 } else { a < c }
}

/// `(m, argmax_{I_up} v, M, argmin_{I_low} v)` with `v = −yG` (ties: the last index).
fn extremes(y: &[f64], g: &[f64], alpha: &[f64], c: &[f64]) -> (f64, usize, f64, usize) {
    let (mut m, mut i, mut mm, mut j) = (f64::NEG_INFINITY, NONE, f64::INFINITY, NONE);
    for t in 0..y.len() {
        let v = -y[t] * g[t];
        if in_up(y[t], alpha[t], c[t]) && v >= m {
            m = v;
            i = t;
        }
        if in_low(y[t], alpha[t], c[t]) && v <= mm {
            mm = v;
            j = t;
        }
    }
    (m, i, mm, j)
}

/// The `k` best `(gain, t)` by gain (descending; ties: lower index first), sorted.
fn best(mut cand: Vec<(f64, usize)>, k: usize) -> Vec<(f64, usize)> {
    let cmp = |a: &(f64, usize), b: &(f64, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    if cand.len() > k {
        cand.select_nth_unstable_by(k, cmp);
        cand.truncate(k);
    }
    cand.sort_unstable_by(cmp);
    cand
}

/// Solves the dual from the feasible start `alpha` with working sets of `q ≥ 2` variables and
/// `slots ≥ q` held columns (`opts.block = Some((q, slots))`).
pub(crate) fn solve<Q: QMatrix>(
    qm: Q,
    p: Vec<f64>,
    y: Vec<f64>,
    c: Vec<f64>,
    mut alpha: Vec<f64>,
    opts: SolverOptions,
) -> Solution {
    let (q, slots) = opts.block.unwrap_or((2, 2));
    let l = qm.l();
    let q = q.clamp(2, l.max(2));
    let mut rows = Rows::new(l, slots.max(q).min(l.max(1)));
    let qd = qm.diag();
    let max_iter = opts.max_iter.unwrap_or_else(|| (100 * l as u64).max(10_000_000));
    let mut ticker = Ticker::new(opts.report, l);
    // G = p + Q α from the nonzero start, one block of held columns at a time.
    let mut g = p.clone();
    let mut now = 1u64;
    let nonzero: Vec<usize> = (0..l).filter(|&t| alpha[t] != 0.0).collect();
    for chunk in nonzero.chunks(rows.var.len()) {
        rows.ensure(&qm, chunk, now);
        let steps: Vec<(usize, f64)> = chunk.iter().map(|&t| (t, alpha[t])).collect();
        add_columns(&mut g, &rows, &steps);
        now += 1;
    }
    let mut iterations = 0u64;
    let mut hit_cap = false;
    let mut chosen = vec![false; l];
    let mut previous: Vec<usize> = Vec::new();
    let mut next_face = FACE_EVERY;
    loop {
        let (m, i, mm, j1) = extremes(&y, &g, &alpha, &c);
        if i == NONE || j1 == NONE || m - mm < opts.eps {
            break;
        }
        if iterations >= max_iter {
            hit_cap = true;
            break;
        }
        let gap = m - mm;
        if ticker.active() {
            ticker.tick(iterations, || gap);
        }
        now += 1;
        rows.ensure(&qm, &[i, j1], now);
        // Second-order ranking of I_low against i, then of I_up against the best j.
        let qi = rows.col(i);
        let low: Vec<(f64, usize)> = (0..l)
            .filter(|&t| in_low(y[t], alpha[t], c[t]))
            .filter_map(|t| {
                let b = m + y[t] * g[t];
                (b > 0.0).then(|| {
                    let a = qd[i] + qd[t] - 2.0 * y[i] * y[t] * qi[t];
                    (b * b / if a > 0.0 { a } else { TAU }, t)
                })
            })
            .collect();
        let low = best(low, q / 2 + 1);
        let jb = low.first().map_or(j1, |&(_, t)| t);
        rows.ensure(&qm, &[jb], now);
        let (qj, vj) = (rows.col(jb), -y[jb] * g[jb]);
        let up: Vec<(f64, usize)> = (0..l)
            .filter(|&t| in_up(y[t], alpha[t], c[t]))
            .filter_map(|t| {
                let b = -y[t] * g[t] - vj;
                (b > 0.0).then(|| {
                    let a = qd[jb] + qd[t] - 2.0 * y[jb] * y[t] * qj[t];
                    (b * b / if a > 0.0 { a } else { TAU }, t)
                })
            })
            .collect();
        let up = best(up, q / 2 + 1);
        let mut set: Vec<usize> = Vec::with_capacity(q);
        let mut take = |t: usize, set: &mut Vec<usize>| {
            if set.len() < q && !chosen[t] {
                chosen[t] = true;
                set.push(t);
            }
        };
        for t in [i, j1, jb] {
            take(t, &mut set);
        }
        // Half of the set is new (the best of both rankings in turn); the other half keeps the
        // previous set's free variables, whose columns are held (ThunderSVM's reuse).
        let fresh = (q / 2).max(3);
        for k in 0..up.len().max(low.len()) {
            if set.len() >= fresh {
                break;
            }
            if let Some(&(_, t)) = up.get(k) {
                take(t, &mut set);
            }
            if let Some(&(_, t)) = low.get(k) {
                take(t, &mut set);
            }
        }
        for &t in &previous {
            if alpha[t] > 0.0 && alpha[t] < c[t] {
                take(t, &mut set);
            }
        }
        for k in 0..up.len().max(low.len()) {
            if let Some(&(_, t)) = up.get(k) {
                take(t, &mut set);
            }
            if let Some(&(_, t)) = low.get(k) {
                take(t, &mut set);
            }
        }
        for &t in &set {
            chosen[t] = false;
        }
        previous.clone_from(&set);
        rows.ensure(&qm, &set, now);
        // The sub-problem on the set.
        let nb = set.len();
        let mut qbb = vec![0.0; nb * nb];
        for (b, &tb) in set.iter().enumerate() {
            let col = rows.col(tb);
            for (a, &ta) in set.iter().enumerate() {
                qbb[b * nb + a] = col[ta];
            }
        }
        let ab: Vec<f64> = set.iter().map(|&t| alpha[t]).collect();
        let pb: Vec<f64> =
            (0..nb).map(|a| g[set[a]] - (0..nb).map(|b| qbb[b * nb + a] * ab[b]).sum::<f64>()).collect();
        let inner = SolverOptions {
            eps: inner_tolerance(opts.eps, gap),
            shrinking: false,
            cache_bytes: 2 * nb * nb * 8,
            max_iter: Some((100 * nb as u64).min(max_iter - iterations).max(1)),
            nu: false,
            block: None,
            report: false,
            sparse: None,
        };
        let yb: Vec<f64> = set.iter().map(|&t| y[t]).collect();
        let cb: Vec<f64> = set.iter().map(|&t| c[t]).collect();
        let sub = Solver::solve(Block { nb, q: qbb, perm: (0..nb).collect() }, pb, yb, cb, ab.clone(), inner);
        iterations += sub.iterations.max(1);
        let steps: Vec<(usize, f64)> = set
            .iter()
            .zip(sub.alpha.iter().zip(&ab))
            .filter(|&(_, (new, old))| new != old)
            .map(|(&t, (new, old))| (t, new - old))
            .collect();
        if steps.is_empty() {
            // No step is possible at this precision: stop and report the violation reached.
            hit_cap = true;
            break;
        }
        add_columns(&mut g, &rows, &steps);
        for (&t, &a) in set.iter().zip(&sub.alpha) {
            alpha[t] = a;
        }
        if iterations >= next_face {
            // SMO is slow on this problem: a Newton step on the face of the free variables.
            next_face = iterations + FACE_EVERY;
            face::face_steps(&qm, &y, &c, &mut alpha, &mut g, false, opts.cache_bytes);
        }
    }
    let (m, _, mm, _) = extremes(&y, &g, &alpha, &c);
    let violation = if m == f64::NEG_INFINITY || mm == f64::INFINITY { 0.0 } else { (m - mm).max(0.0) };
    let rho = rho_of(&y, &g, &alpha, &c);
    let objective = (0..l).map(|t| alpha[t] * (g[t] + p[t])).sum::<f64>() / 2.0;
    Solution { alpha, rho, objective, iterations, violation, hit_cap, r: 0.0 }
}
