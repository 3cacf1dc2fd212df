//! SMO for the SVM duals (Fan, Chen & Lin 2005, the algorithm of LIBSVM):
//!
//! `min_α ½ αᵀQα + pᵀα` subject to `yᵀα = Δ`, `0 ≤ α_i ≤ C_i`, with `y_i = ±1`.
//!
//! C-SVC is `p = −1`, `Δ = 0`, `Q_ij = y_i y_j k(x_i, x_j)`; ε-SVR has `2n` variables (see
//! [`super::svr`]). Each iteration picks the maximal-violating `i` and the `j` of largest second-order
//! decrease (WSS 2 of the paper, with `a_ij ≤ 0` replaced by `τ = 1e-12` for indefinite kernels),
//! updates the pair analytically and the gradient of the active variables. Shrinking removes variables
//! stuck at a bound every `min(l, 1000)` iterations; the gradient of removed variables is rebuilt from
//! `Ḡ` (the contribution of variables at their upper bound) before the final check, so the stopping
//! rule `max_{I_up} −y∇f − min_{I_low} −y∇f < ε` holds on the full problem at exit.

use super::cache::ColumnCache;
use super::qmatrix::QMatrix;

const TAU: f64 = 1e-12;
const LOWER: u8 = 0;
const UPPER: u8 = 1;
const FREE: u8 = 2;

/// Solver settings (validated by the params types).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolverOptions {
    pub(crate) eps: f64,
    pub(crate) shrinking: bool,
    pub(crate) cache_bytes: usize,
    /// `None`: LIBSVM's `max(10⁷, 100·l)`.
    pub(crate) max_iter: Option<u64>,
}

/// What the solver returns, in the caller's variable order.
#[derive(Clone, Debug)]
pub(crate) struct Solution {
    pub(crate) alpha: Vec<f64>,
    /// `ρ`: the decision function is `Σ α_i y_i k(x_i, x) − ρ`.
    pub(crate) rho: f64,
    /// The dual objective `½ αᵀQα + pᵀα` at exit.
    pub(crate) objective: f64,
    pub(crate) iterations: u64,
    /// The maximal KKT violation `m(α) − M(α)` at exit (on the full, unshrunk problem).
    pub(crate) violation: f64,
    /// True when the iteration cap ended the run before the tolerance was met.
    pub(crate) hit_cap: bool,
}

pub(crate) struct Solver<Q: QMatrix> {
    q: Q,
    cache: ColumnCache,
    l: usize,
    active: usize,
    y: Vec<f64>,
    p: Vec<f64>,
    c: Vec<f64>,
    alpha: Vec<f64>,
    status: Vec<u8>,
    g: Vec<f64>,
    g_bar: Vec<f64>,
    qd: Vec<f64>,
    /// Original index of each position.
    index: Vec<usize>,
    unshrink: bool,
    opts: SolverOptions,
}

impl<Q: QMatrix> Solver<Q> {
    /// Solves the dual from the feasible start `alpha` (all-zero for C-SVC and ε-SVR).
    pub(crate) fn solve(q: Q, p: Vec<f64>, y: Vec<f64>, c: Vec<f64>, alpha: Vec<f64>, opts: SolverOptions) -> Solution {
        let l = q.l();
        debug_assert!(p.len() == l && y.len() == l && c.len() == l && alpha.len() == l);
        let qd = q.diag();
        let cache = ColumnCache::new(l, opts.cache_bytes);
        let mut s = Solver {
            q,
            cache,
            l,
            active: l,
            y,
            p,
            c,
            alpha,
            status: vec![LOWER; l],
            g: Vec::new(),
            g_bar: vec![0.0; l],
            qd,
            index: (0..l).collect(),
            unshrink: false,
            opts,
        };
        for i in 0..l {
            s.update_status(i);
        }
        s.init_gradient();
        s.run()
    }

    #[inline]
    fn update_status(&mut self, i: usize) {
        self.status[i] = if self.alpha[i] >= self.c[i] {
            UPPER
        } else if self.alpha[i] <= 0.0 {
            LOWER
        } else {
            FREE
        };
    }

    /// Ensures column `j` holds `len` entries; `keep` is not evicted.
    fn column(&mut self, j: usize, len: usize, keep: Option<usize>) {
        let (buf, filled) = self.cache.request(j, len, keep);
        if filled < len {
            self.q.fill_column(j, filled, &mut buf[filled..len]);
            self.cache.set_filled(j, len);
        }
    }

    fn init_gradient(&mut self) {
        let l = self.l;
        self.g = self.p.clone();
        for i in 0..l {
            if self.status[i] != LOWER {
                self.column(i, l, None);
                let qi = self.cache.column(i, l);
                let a = self.alpha[i];
                for (g, &qv) in self.g.iter_mut().zip(qi) {
                    *g += a * qv;
                }
                if self.status[i] == UPPER {
                    let ci = self.c[i];
                    for (gb, &qv) in self.g_bar.iter_mut().zip(qi) {
                        *gb += ci * qv;
                    }
                }
            }
        }
    }

    fn max_iter(&self) -> u64 {
        self.opts.max_iter.unwrap_or_else(|| (100 * self.l as u64).max(10_000_000))
    }

    fn run(mut self) -> Solution {
        let max_iter = self.max_iter();
        let mut iter: u64 = 0;
        let mut counter = self.l.min(1000) + 1;
        let mut hit_cap = true;
        while iter < max_iter {
            counter -= 1;
            if counter == 0 {
                counter = self.l.min(1000);
                if self.opts.shrinking {
                    self.do_shrinking();
                }
            }
            let (i, j) = match self.select_working_set() {
                Some(ij) => ij,
                None => {
                    self.reconstruct_gradient();
                    self.active = self.l;
                    match self.select_working_set() {
                        Some(ij) => {
                            counter = 1;
                            ij
                        }
                        None => {
                            hit_cap = false;
                            break;
                        }
                    }
                }
            };
            iter += 1;
            self.take_step(i, j);
        }
        if hit_cap {
            // Make the gradient complete before reporting.
            self.reconstruct_gradient();
            self.active = self.l;
        }
        let violation = self.violation();
        let rho = self.calculate_rho();
        let objective = (0..self.l).map(|i| self.alpha[i] * (self.g[i] + self.p[i])).sum::<f64>() / 2.0;
        let mut alpha = vec![0.0; self.l];
        for (pos, &orig) in self.index.iter().enumerate() {
            alpha[orig] = self.alpha[pos];
        }
        Solution { alpha, rho, objective, iterations: iter, violation, hit_cap }
    }

    /// The update of LIBSVM's `Solver::Solve` for the pair `(i, j)`.
    fn take_step(&mut self, i: usize, j: usize) {
        let len = self.active;
        self.column(i, len, None);
        self.column(j, len, Some(i));
        let (ci, cj) = (self.c[i], self.c[j]);
        let (old_ai, old_aj) = (self.alpha[i], self.alpha[j]);
        let qij = self.cache.column(i, len)[j];
        let (mut ai, mut aj) = (old_ai, old_aj);
        if self.y[i] != self.y[j] {
            let mut quad = self.qd[i] + self.qd[j] + 2.0 * qij;
            if quad <= 0.0 {
                quad = TAU;
            }
            let delta = (-self.g[i] - self.g[j]) / quad;
            let diff = ai - aj;
            ai += delta;
            aj += delta;
            if diff > 0.0 {
                if aj < 0.0 {
                    aj = 0.0;
                    ai = diff;
                }
            } else if ai < 0.0 {
                ai = 0.0;
                aj = -diff;
            }
            if diff > ci - cj {
                if ai > ci {
                    ai = ci;
                    aj = ci - diff;
                }
            } else if aj > cj {
                aj = cj;
                ai = cj + diff;
            }
        } else {
            let mut quad = self.qd[i] + self.qd[j] - 2.0 * qij;
            if quad <= 0.0 {
                quad = TAU;
            }
            let delta = (self.g[i] - self.g[j]) / quad;
            let sum = ai + aj;
            ai -= delta;
            aj += delta;
            if sum > ci {
                if ai > ci {
                    ai = ci;
                    aj = sum - ci;
                }
            } else if aj < 0.0 {
                aj = 0.0;
                ai = sum;
            }
            if sum > cj {
                if aj > cj {
                    aj = cj;
                    ai = sum - cj;
                }
            } else if ai < 0.0 {
                ai = 0.0;
                aj = sum;
            }
        }
        self.alpha[i] = ai;
        self.alpha[j] = aj;
        let (dai, daj) = (ai - old_ai, aj - old_aj);
        {
            let qi = self.cache.column(i, len);
            let qj = self.cache.column(j, len);
            for ((g, &a), &b) in self.g[..len].iter_mut().zip(qi).zip(qj) {
                *g += a * dai + b * daj;
            }
        }
        // Ḡ when a variable enters or leaves its upper bound (needs full columns).
        let (ui, uj) = (self.status[i] == UPPER, self.status[j] == UPPER);
        self.update_status(i);
        self.update_status(j);
        let l = self.l;
        for (k, was_upper) in [(i, ui), (j, uj)] {
            if was_upper != (self.status[k] == UPPER) {
                let keep = if k == i { Some(j) } else { Some(i) };
                self.column(k, l, keep);
                let qk = self.cache.column(k, l);
                let ck = if was_upper { -self.c[k] } else { self.c[k] };
                for (gb, &qv) in self.g_bar.iter_mut().zip(qk) {
                    *gb += ck * qv;
                }
            }
        }
    }

    /// WSS 2 of Fan, Chen & Lin (2005); `None` when the violation is below `ε`.
    fn select_working_set(&mut self) -> Option<(usize, usize)> {
        let n = self.active;
        let mut gmax = f64::NEG_INFINITY;
        let mut gmax_idx = usize::MAX;
        for t in 0..n {
            let (y, st, g) = (self.y[t], self.status[t], self.g[t]);
            if y > 0.0 {
                if st != UPPER && -g >= gmax {
                    gmax = -g;
                    gmax_idx = t;
                }
            } else if st != LOWER && g >= gmax {
                gmax = g;
                gmax_idx = t;
            }
        }
        if gmax_idx == usize::MAX {
            return None;
        }
        let i = gmax_idx;
        self.column(i, n, None);
        let qi = self.cache.column(i, n);
        let yi = self.y[i];
        let qdi = self.qd[i];
        let mut gmax2 = f64::NEG_INFINITY;
        let mut gmin_idx = usize::MAX;
        let mut obj_diff_min = f64::INFINITY;
        for j in 0..n {
            let (y, st, g) = (self.y[j], self.status[j], self.g[j]);
            if y > 0.0 {
                if st != LOWER {
                    let grad_diff = gmax + g;
                    if g >= gmax2 {
                        gmax2 = g;
                    }
                    if grad_diff > 0.0 {
                        let quad = qdi + self.qd[j] - 2.0 * yi * qi[j];
                        let obj = -(grad_diff * grad_diff) / if quad > 0.0 { quad } else { TAU };
                        if obj <= obj_diff_min {
                            gmin_idx = j;
                            obj_diff_min = obj;
                        }
                    }
                }
            } else if st != UPPER {
                let grad_diff = gmax - g;
                if -g >= gmax2 {
                    gmax2 = -g;
                }
                if grad_diff > 0.0 {
                    let quad = qdi + self.qd[j] + 2.0 * yi * qi[j];
                    let obj = -(grad_diff * grad_diff) / if quad > 0.0 { quad } else { TAU };
                    if obj <= obj_diff_min {
                        gmin_idx = j;
                        obj_diff_min = obj;
                    }
                }
            }
        }
        if gmax + gmax2 < self.opts.eps || gmin_idx == usize::MAX {
            return None;
        }
        Some((i, gmin_idx))
    }

    /// `m(α) − M(α)` over the active set (the full set after reconstruction).
    fn violation(&self) -> f64 {
        let (mut up, mut low) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for t in 0..self.active {
            let (y, st, g) = (self.y[t], self.status[t], self.g[t]);
            if y > 0.0 {
                if st != UPPER {
                    up = up.max(-g);
                }
                if st != LOWER {
                    low = low.max(g);
                }
            } else {
                if st != LOWER {
                    up = up.max(g);
                }
                if st != UPPER {
                    low = low.max(-g);
                }
            }
        }
        if up == f64::NEG_INFINITY || low == f64::NEG_INFINITY { 0.0 } else { (up + low).max(0.0) }
    }

    fn be_shrunk(&self, i: usize, gmax1: f64, gmax2: f64) -> bool {
        match self.status[i] {
            UPPER => {
                if self.y[i] > 0.0 {
                    -self.g[i] > gmax1
                } else {
                    -self.g[i] > gmax2
                }
            }
            LOWER => {
                if self.y[i] > 0.0 {
                    self.g[i] > gmax2
                } else {
                    self.g[i] > gmax1
                }
            }
            _ => false,
        }
    }

    fn do_shrinking(&mut self) {
        let (mut gmax1, mut gmax2) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for t in 0..self.active {
            let (y, st, g) = (self.y[t], self.status[t], self.g[t]);
            if y > 0.0 {
                if st != UPPER && -g >= gmax1 {
                    gmax1 = -g;
                }
                if st != LOWER && g >= gmax2 {
                    gmax2 = g;
                }
            } else {
                if st != UPPER && -g >= gmax2 {
                    gmax2 = -g;
                }
                if st != LOWER && g >= gmax1 {
                    gmax1 = g;
                }
            }
        }
        if !self.unshrink && gmax1 + gmax2 <= self.opts.eps * 10.0 {
            self.unshrink = true;
            self.reconstruct_gradient();
            self.active = self.l;
        }
        let mut i = 0;
        while i < self.active {
            if self.be_shrunk(i, gmax1, gmax2) {
                self.active -= 1;
                while self.active > i {
                    if !self.be_shrunk(self.active, gmax1, gmax2) {
                        self.swap_index(i, self.active);
                        break;
                    }
                    self.active -= 1;
                }
            }
            i += 1;
        }
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        self.q.swap_index(i, j);
        self.cache.swap_index(i, j);
        self.y.swap(i, j);
        self.p.swap(i, j);
        self.c.swap(i, j);
        self.alpha.swap(i, j);
        self.status.swap(i, j);
        self.g.swap(i, j);
        self.g_bar.swap(i, j);
        self.qd.swap(i, j);
        self.index.swap(i, j);
    }

    /// Rebuilds `G` of the inactive positions from `Ḡ` and the free variables.
    fn reconstruct_gradient(&mut self) {
        let (l, n) = (self.l, self.active);
        if n == l {
            return;
        }
        for j in n..l {
            self.g[j] = self.g_bar[j] + self.p[j];
        }
        let nr_free = (0..n).filter(|&t| self.status[t] == FREE).count();
        if nr_free * l > 2 * n * (l - n) {
            for i in n..l {
                self.column(i, n, None);
                let qi = self.cache.column(i, n);
                let mut acc = 0.0;
                for j in 0..n {
                    if self.status[j] == FREE {
                        acc += self.alpha[j] * qi[j];
                    }
                }
                self.g[i] += acc;
            }
        } else {
            for i in 0..n {
                if self.status[i] == FREE {
                    self.column(i, l, None);
                    let qi = self.cache.column(i, l);
                    let a = self.alpha[i];
                    for (g, &qv) in self.g[n..l].iter_mut().zip(&qi[n..l]) {
                        *g += a * qv;
                    }
                }
            }
        }
    }

    /// `ρ` from the free variables, or the midpoint of the feasible interval when none is free.
    fn calculate_rho(&self) -> f64 {
        let (mut ub, mut lb) = (f64::INFINITY, f64::NEG_INFINITY);
        let (mut nr_free, mut sum_free) = (0usize, 0.0);
        for i in 0..self.active {
            let yg = self.y[i] * self.g[i];
            match self.status[i] {
                UPPER => {
                    if self.y[i] < 0.0 {
                        ub = ub.min(yg);
                    } else {
                        lb = lb.max(yg);
                    }
                }
                LOWER => {
                    if self.y[i] > 0.0 {
                        ub = ub.min(yg);
                    } else {
                        lb = lb.max(yg);
                    }
                }
                _ => {
                    nr_free += 1;
                    sum_free += yg;
                }
            }
        }
        if nr_free > 0 { sum_free / nr_free as f64 } else { (ub + lb) / 2.0 }
    }
}
