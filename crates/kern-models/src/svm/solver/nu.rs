//! The ν variant of SMO (LIBSVM's `Solver_NU`; Chang & Lin 2001, "Training ν-support vector
//! classifiers: theory and algorithms", Neural Computation 13(9), §4, and Chang & Lin 2002 for ν-SVR).
//!
//! The scaled ν-SVC dual (Chang & Lin 2011, LIBSVM paper §2.2) is
//! `min ½ αᵀQα` s.t. `yᵀα = 0`, `eᵀα = νl`, `0 ≤ α_i ≤ 1`; the ν-SVR dual (§2.5) has the same two
//! equality constraints on its `2l` variables. With two equalities a feasible pair update must keep
//! both `Σ_{y=+1} α` and `Σ_{y=−1} α`, so both variables of a working set share a sign. The KKT
//! conditions then split by sign: with `v_t = y_t G_t`, for each sign `s`,
//! `max_{t ∈ I_up, y_t = s} −v_t ≤ min_{t ∈ I_low, y_t = s} −v_t`, and the two gaps' common value
//! gives two multipliers `r₁ = ρ + r`, `r₂ = r − ρ` (… of `yᵀα = 0` and `eᵀα = νl`), hence
//! `ρ = (r₁ − r₂)/2` and `r = (r₁ + r₂)/2` (§4 of Chang & Lin 2001).
//!
//! Working-set selection is WSS 2 of Fan, Chen & Lin (2005) run within each sign group (the `i` of the
//! group of the chosen `j`), and the solver stops when both groups' violations are below `ε`.

use super::{LOWER, Solver, TAU, UPPER};
use crate::svm::qmatrix::QMatrix;

impl<Q: QMatrix> Solver<Q> {
    #[inline]
    fn is_up(&self, t: usize) -> bool {
        if self.y[t] > 0.0 { self.status[t] != UPPER } else { self.status[t] != LOWER }
    }

    #[inline]
    fn is_low(&self, t: usize) -> bool {
        if self.y[t] > 0.0 { self.status[t] != LOWER } else { self.status[t] != UPPER }
    }

    /// Over the active set: `[max_{I_up, y=+1} −G, max_{I_low, y=+1} G, max_{I_up, y=−1} G,
    /// max_{I_low, y=−1} −G]` (LIBSVM's `Gmax1..Gmax4` of the ν shrinking).
    pub(super) fn group_maxima(&self) -> [f64; 4] {
        let mut m = [f64::NEG_INFINITY; 4];
        for t in 0..self.active {
            let g = self.g[t];
            let k = if self.y[t] > 0.0 { 0 } else { 2 };
            if self.is_up(t) {
                m[k] = m[k].max(-self.y[t] * g);
            }
            if self.is_low(t) {
                m[k + 1] = m[k + 1].max(self.y[t] * g);
            }
        }
        m
    }

    /// WSS 2 within the sign groups; `None` when both groups' violations are below `ε`.
    ///
    /// `i₊ = argmax_{I_up, y=+1} −v_t`, `i₋ = argmax_{I_up, y=−1} −v_t` (ties: the last index); over
    /// `j ∈ I_low` of sign `s`, `b = G_max,s + v_j > 0`, `a = Q_{i_s i_s} + Q_jj − 2 Q_{i_s j}` (τ if
    /// `a ≤ 0`), `j = argmin −b²/a` (ties: the last); the pair is `(i_{s(j)}, j)`.
    pub(super) fn select_working_set_nu(&mut self) -> Option<(usize, usize)> {
        let n = self.active;
        let (mut gmaxp, mut ip) = (f64::NEG_INFINITY, usize::MAX);
        let (mut gmaxn, mut in_) = (f64::NEG_INFINITY, usize::MAX);
        for t in 0..n {
            if !self.is_up(t) {
                continue;
            }
            let v = -self.y[t] * self.g[t];
            if self.y[t] > 0.0 {
                if v >= gmaxp {
                    gmaxp = v;
                    ip = t;
                }
            } else if v >= gmaxn {
                gmaxn = v;
                in_ = t;
            }
        }
        if ip != usize::MAX {
            self.column(ip, n, None);
        }
        if in_ != usize::MAX {
            self.column(in_, n, if ip != usize::MAX { Some(ip) } else { None });
        }
        let (mut gmaxp2, mut gmaxn2) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        let (mut best, mut j_at) = (f64::INFINITY, usize::MAX);
        {
            let qp = (ip != usize::MAX).then(|| self.cache.column(ip, n));
            let qn = (in_ != usize::MAX).then(|| self.cache.column(in_, n));
            for j in 0..n {
                if !self.is_low(j) {
                    continue;
                }
                let v = self.y[j] * self.g[j];
                let (gmax, i, qi) = if self.y[j] > 0.0 {
                    gmaxp2 = gmaxp2.max(v);
                    (gmaxp, ip, &qp)
                } else {
                    gmaxn2 = gmaxn2.max(v);
                    (gmaxn, in_, &qn)
                };
                let b = gmax + v;
                if b > 0.0
                    && let Some(qi) = qi
                {
                    let a = self.qd[i] + self.qd[j] - 2.0 * qi[j];
                    let o = -(b * b) / if a > 0.0 { a } else { TAU };
                    if o <= best {
                        best = o;
                        j_at = j;
                    }
                }
            }
        }
        if (gmaxp + gmaxp2).max(gmaxn + gmaxn2) < self.opts.eps || j_at == usize::MAX {
            return None;
        }
        let i = if self.y[j_at] > 0.0 { ip } else { in_ };
        Some((i, j_at))
    }

    /// LIBSVM's ν `be_shrunk`: a bounded variable leaves the active set when it cannot enter the
    /// working set of its sign group.
    fn be_shrunk_nu(&self, t: usize, m: &[f64; 4]) -> bool {
        let (g, pos) = (self.g[t], self.y[t] > 0.0);
        match self.status[t] {
            UPPER => {
                if pos {
                    -g > m[0]
                } else {
                    -g > m[3]
                }
            }
            LOWER => {
                if pos {
                    g > m[1]
                } else {
                    g > m[2]
                }
            }
            _ => false,
        }
    }

    pub(super) fn do_shrinking_nu(&mut self) {
        let m = self.group_maxima();
        if !self.unshrink && (m[0] + m[1]).max(m[2] + m[3]) <= self.opts.eps * 10.0 {
            self.unshrink = true;
            self.reconstruct_gradient();
            self.active = self.l;
        }
        self.compact(|s, t| s.be_shrunk_nu(t, &m));
    }

    /// `(ρ, r)` from the two sign groups: `r₁` (`y = +1`) and `r₂` (`y = −1`) are the mean gradient
    /// of the group's free variables, or the midpoint of its feasible interval when none is free;
    /// `ρ = (r₁ − r₂)/2`, `r = (r₁ + r₂)/2`.
    pub(super) fn calculate_rho_nu(&self) -> (f64, f64) {
        // [ub, lb, sum_free, nr_free] per group.
        let mut acc = [[f64::INFINITY, f64::NEG_INFINITY, 0.0, 0.0]; 2];
        for t in 0..self.active {
            let a = &mut acc[usize::from(self.y[t] < 0.0)];
            let g = self.g[t];
            match self.status[t] {
                UPPER => a[1] = a[1].max(g),
                LOWER => a[0] = a[0].min(g),
                _ => {
                    a[2] += g;
                    a[3] += 1.0;
                }
            }
        }
        let r = |a: &[f64; 4]| if a[3] > 0.0 { a[2] / a[3] } else { (a[0] + a[1]) / 2.0 };
        let (r1, r2) = (r(&acc[0]), r(&acc[1]));
        ((r1 - r2) / 2.0, (r1 + r2) / 2.0)
    }
}
