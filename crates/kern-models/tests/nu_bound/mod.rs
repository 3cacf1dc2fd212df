//! Agreement of two ε-optimal solutions of one ν dual, with bounds derived before comparing.
//!
//! # The dual (LIBSVM's `Solver_NU` form)
//! Variables `s = 0..m`, each on a training point `i(s)` with a sign `y_s = ±1`, a linear term
//! `p_s`, a box `0 ≤ α_s ≤ C`:
//!
//! `min f(α) = ½ Σ_st y_s y_t K(x_i(s), x_i(t)) α_s α_t + Σ_s p_s α_s`,
//! `Σ_{s: y_s = +1} α_s = mass₊`, `Σ_{s: y_s = −1} α_s = mass₋`.
//!
//! ν-SVC (scaled, LIBSVM paper §2.2): `m = l`, `C = 1`, `p = 0`, `mass± = νl/2`.
//! ν-SVR: `m = 2l`, `α_s` (`y = +1`, `p = −target`) and `α_s*` (`y = −1`, `p = +target`),
//! `mass± = Cνl/2`. With `β_i = Σ_{s: i(s)=i} y_s α_s` the quadratic term is `½ βᵀKβ`, and the
//! function `g(x) = Σ_i β_i k(x_i, x)`.
//!
//! # What ε-optimality gives (derivation, fixed before comparing)
//! Per group, with `u_s = −G_s` (`G = ∇f`), `m_g = max_{α_s < C} u_s`, `M_g = min_{α_s > 0} u_s`; a
//! solver stops when `viol = max_g (m_g − M_g) < eps` on **its own** gradient.
//!
//! 1. *Objective gap.* For a feasible `α` and the optimum `α*`, `d = α − α*` sums to 0 in each group;
//!    where `d_s > 0`, `α_s > 0` so `u_s ≥ M_g`; where `d_s < 0`, `α_s < C` so `u_s ≤ m_g`. Hence
//!    `Gᵀd ≤ P_g (m_g − M_g)` per group with `P_g = Σ_{d_s>0} d_s ≤ mass_g`, and by convexity
//!    `f(α) − f* ≤ ∇f(α)ᵀd ≤ Σ_g mass_g · max(0, m_g − M_g)` =: `gap(α)` (with the true gradient).
//! 2. *Functions.* `f(α) − f* = ∇f(α*)ᵀd + ½ dᵀQd ≥ ½ ‖g_α − g*‖²_H` (first-order optimality of
//!    `α*`), so `‖g_L − g_K‖_H ≤ √(2 gap_L) + √(2 gap_K)` and, by Cauchy–Schwarz,
//!    `|g_L(x) − g_K(x)| ≤ ‖g_L − g_K‖_H √k(x, x)`.
//! 3. *The group offsets* `r_g` (LIBSVM `calculate_rho`: the mean of `G_s` over the free variables
//!    of group `g`). Let `[m*_g, M*_g]` (`m* ≤ M*`) be the optimum's window and
//!    `Δ = max_s |G_s(α) − G_s(α*)| ≤ ‖g_α − g*‖_H max_i √K_ii`. If `α*_t < C` for the `t` attaining
//!    `m_g`, then `m_g ≤ u*_t + Δ ≤ m*_g + Δ`; otherwise some `t₁` of the group has
//!    `α*_t₁ < α_t₁` (equal sums), so `t₁` is in `α`'s lower set and `α*`'s upper set and
//!    `m_g ≤ M_g + viol ≤ u_t₁ + viol ≤ m*_g + Δ + viol`. Symmetrically `M_g ≥ M*_g − Δ − viol`.
//!    Free variables lie in both sets, so `−r_g ∈ [M_g, m_g] ⊂ [M*_g − a, m*_g + a]`,
//!    `a = Δ + viol⁺ (+ the solver's own gradient error)`, and since `m* ≤ M*`,
//!    `|r_g,L − r_g,K| ≤ a_L + a_K`. Then `ρ = (r₊ − r₋)/2` and `r = (r₊ + r₋)/2` differ by at most
//!    `½ Σ_g (a_L,g + a_K,g)`.
//!
//! # Rounding, bounded a priori
//! - LIBSVM keeps `Q` in single precision (`Qfloat`): each entry is the double kernel value
//!   rounded to `float`, relative error ≤ 2⁻²⁴. Its gradient therefore differs from the true one by
//!   at most `v_s = 2⁻²⁴ (|K| a)_i(s)` (`a_i = Σ_{s: i(s)=i} α_s`); its stopping test on that gradient
//!   means its **true** violation is at most `eps + 2 max_s v_s` (asserted).
//! - Both solvers evaluate kernels in double and update the gradient incrementally: the kernel
//!   values carry ≤ ~1e-13 relative error on these data (norm-formula cancellation times `γ‖x‖²`),
//!   and ≤ 1e5 incremental updates add ≤ 1e5 · 2⁻⁵² ≈ 2e-11 relative; both are covered by an
//!   allowance of 2⁻³⁰ ≈ 9e-10 relative per entry ([`DOUBLE`]), added to LIBSVM's 2⁻²⁴ and used
//!   alone for kern (whose `Q` is double).
//! - Coefficients are read back as `α = |coef| r` (ν-SVC) or `max(±β, 0)` (ν-SVR): a value within
//!   2⁻⁴⁰ C of a bound is the bound (it was the bound before the division by `r`).

/// Relative error allowance of a double-precision kernel entry and gradient (see the module docs).
pub const DOUBLE: f64 = 9.313225746154785e-10; // 2^-30
/// LIBSVM's single-precision `Q` (see the module docs): 2⁻²⁴ plus the double allowance.
pub const LIBSVM_FLOAT: f64 = 5.960464477539063e-8 + DOUBLE;

/// One solution of the dual: `alpha[s]` for every variable.
pub struct Solution {
    /// `α_s`, snapped to the bounds within 2⁻⁴⁰ C.
    pub alpha: Vec<f64>,
    /// The solver's stopping tolerance.
    pub eps: f64,
    /// Relative error of the solver's `Q` entries ([`LIBSVM_FLOAT`] or [`DOUBLE`]).
    pub q_rel: f64,
    /// The solver's reported `(r₊, r₋)`, or only `ρ = (r₊ − r₋)/2` when `r` was not reported.
    pub reported: Reported,
}

/// What a solver reports about its offsets.
pub enum Reported {
    /// Both group offsets (ν-SVC: `r₊ = r + ρ`, `r₋ = r − ρ`).
    Both(f64, f64),
    /// Only `ρ` (LIBSVM's ν-SVR model file does not keep `r`).
    Rho(f64),
}

/// The dual problem.
pub struct Dual<'a> {
    /// Dense Gram `K` of the `l` training points, row-major.
    pub k: &'a [f64],
    /// Number of training points.
    pub l: usize,
    /// Point of each variable.
    pub point: Vec<usize>,
    /// Sign of each variable.
    pub y: Vec<f64>,
    /// Linear term of each variable.
    pub p: Vec<f64>,
    /// Box.
    pub c: f64,
    /// `(mass₊, mass₋)`.
    pub mass: (f64, f64),
}

/// What the derived bounds say, and what was measured, for one pair of solutions.
#[derive(Debug)]
pub struct Agreement {
    /// `f(α_L)`, `f(α_K)`.
    pub f: (f64, f64),
    /// True violations.
    pub viol: (f64, f64),
    /// Gap bounds `gap_L`, `gap_K`.
    pub gap: (f64, f64),
    /// `‖g_L − g_K‖_H` measured, and its bound `√(2 gap_L) + √(2 gap_K)`.
    pub w_diff: f64,
    /// Bound on `‖g_L − g_K‖_H`.
    pub w_bound: f64,
    /// Bound on `|ρ_L − ρ_K|` (and on `|r_L − r_K|`).
    pub offset_bound: f64,
    /// `β_L`, `β_K` per point.
    pub beta: (Vec<f64>, Vec<f64>),
}

impl Dual<'_> {
    fn beta(&self, alpha: &[f64]) -> Vec<f64> {
        let mut b = vec![0.0; self.l];
        for (s, &a) in alpha.iter().enumerate() {
            b[self.point[s]] += self.y[s] * a;
        }
        b
    }

    fn k_times(&self, v: &[f64], abs: bool) -> Vec<f64> {
        (0..self.l)
            .map(|i| {
                let row = &self.k[i * self.l..(i + 1) * self.l];
                row.iter().zip(v).map(|(k, x)| if abs { k.abs() * x } else { k * x }).sum()
            })
            .collect()
    }

    /// True gradient, objective, per-group violation, the solver's gradient error bound `max v`.
    fn examine(&self, s: &Solution) -> (Vec<f64>, f64, [f64; 2], f64) {
        let beta = self.beta(&s.alpha);
        let kb = self.k_times(&beta, false);
        let g: Vec<f64> = (0..s.alpha.len()).map(|t| self.y[t] * kb[self.point[t]] + self.p[t]).collect();
        let f = 0.5 * beta.iter().zip(&kb).map(|(b, k)| b * k).sum::<f64>()
            + self.p.iter().zip(&s.alpha).map(|(p, a)| p * a).sum::<f64>();
        let mut up = [f64::NEG_INFINITY; 2];
        let mut low = [f64::INFINITY; 2];
        for (t, &a) in s.alpha.iter().enumerate() {
            let grp = usize::from(self.y[t] < 0.0);
            let u = -g[t];
            if a < self.c {
                up[grp] = up[grp].max(u);
            }
            if a > 0.0 {
                low[grp] = low[grp].min(u);
            }
        }
        let viol = [up[0] - low[0], up[1] - low[1]];
        let mut a_pt = vec![0.0; self.l];
        for (t, &a) in s.alpha.iter().enumerate() {
            a_pt[self.point[t]] += a;
        }
        let v = s.q_rel * self.k_times(&a_pt, true).into_iter().fold(0.0, f64::max);
        (g, f, viol, v)
    }

    /// The premises (feasibility, free variables in both groups) and the derived bounds.
    pub fn agreement(&self, name: &str, lib: &Solution, kern: &Solution) -> Agreement {
        let mut out = Vec::new();
        for (who, s) in [("LIBSVM", lib), ("kern", kern)] {
            // Feasibility: the group sums are the masses up to summation rounding (DOUBLE relative).
            for (grp, want) in [(0usize, self.mass.0), (1, self.mass.1)] {
                let sum: f64 = s
                    .alpha
                    .iter()
                    .enumerate()
                    .filter(|(t, _)| usize::from(self.y[*t] < 0.0) == grp)
                    .map(|p| p.1)
                    .sum();
                assert!(
                    (sum - want).abs() <= DOUBLE * want,
                    "{name}: {who}'s group {grp} sums to {sum}, not {want}"
                );
                let free = s
                    .alpha
                    .iter()
                    .enumerate()
                    .filter(|&(t, &a)| usize::from(self.y[t] < 0.0) == grp && a > 0.0 && a < self.c)
                    .count();
                assert!(
                    free > 0,
                    "{name}: {who} has no free variable in group {grp} (premise of the offset bound)"
                );
            }
            assert!(s.alpha.iter().all(|&a| (0.0..=self.c).contains(&a)), "{name}: {who} leaves the box");
            let (g, f, viol, v) = self.examine(s);
            // LIBSVM stopped at eps on a gradient within v of the true one: true violation ≤ eps + 2v.
            for (grp, vi) in viol.iter().enumerate() {
                assert!(
                    *vi <= s.eps + 2.0 * v,
                    "{name}: {who}'s true KKT violation in group {grp} is {vi}, above eps + 2v = {}",
                    s.eps + 2.0 * v
                );
            }
            let gap = viol[0].max(0.0) * self.mass.0 + viol[1].max(0.0) * self.mass.1;
            let kappa = (0..self.l).map(|i| self.k[i * self.l + i].sqrt()).fold(0.0, f64::max);
            // a_g = Δ + viol⁺ + v, Δ ≤ √(2 gap) κ.
            let a: Vec<f64> = viol.iter().map(|vi| (2.0 * gap).sqrt() * kappa + vi.max(0.0) + v).collect();
            out.push((g, f, viol, gap, a));
        }
        let (fl, fk) = (out[0].1, out[1].1);
        let (gl, gk) = (out[0].3, out[1].3);
        // 1. Both objectives lie in [f*, f* + gap].
        assert!(
            (fl - fk).abs() <= gl + gk + DOUBLE * fl.abs().max(fk.abs()),
            "{name}: objectives {fl} (LIBSVM) and {fk} (kern) differ by more than gap_L + gap_K = {}",
            gl + gk
        );
        // 2. ‖g_L − g_K‖_H ≤ √(2 gap_L) + √(2 gap_K) (plus the rounding of the quadratic form).
        let (bl, bk) = (self.beta(&lib.alpha), self.beta(&kern.alpha));
        let d: Vec<f64> = bl.iter().zip(&bk).map(|(a, b)| a - b).collect();
        let dkd: f64 = d.iter().zip(self.k_times(&d, false)).map(|(a, b)| a * b).sum();
        let dabs: Vec<f64> = d.iter().map(|x| x.abs()).collect();
        let round: f64 = DOUBLE * dabs.iter().zip(self.k_times(&dabs, true)).map(|(a, b)| a * b).sum::<f64>();
        let w_bound = (2.0 * gl).sqrt() + (2.0 * gk).sqrt();
        let w_diff = dkd.max(0.0).sqrt();
        assert!(
            dkd <= w_bound * w_bound + round,
            "{name}: ‖g_L − g_K‖_H = {w_diff} above the bound {w_bound} from the two gaps"
        );
        // 3. Offsets.
        let offset_bound = 0.5 * ((out[0].4[0] + out[1].4[0]) + (out[0].4[1] + out[1].4[1]));
        let rho = |r: &Reported| match *r {
            Reported::Both(p, m) => 0.5 * (p - m),
            Reported::Rho(rho) => rho,
        };
        let (rl, rk) = (rho(&lib.reported), rho(&kern.reported));
        assert!(
            (rl - rk).abs() <= offset_bound,
            "{name}: ρ {rl} (LIBSVM) and {rk} (kern) differ by more than the bound {offset_bound}"
        );
        if let (Reported::Both(pl, ml), Reported::Both(pk, mk)) = (&lib.reported, &kern.reported) {
            for (grp, (x, z)) in [(pl, pk), (ml, mk)].into_iter().enumerate() {
                let b = out[0].4[grp] + out[1].4[grp];
                assert!((x - z).abs() <= b, "{name}: r of group {grp}: {x} (LIBSVM), {z} (kern), bound {b}");
            }
        }
        Agreement {
            f: (fl, fk),
            viol: (out[0].2[0].max(out[0].2[1]), out[1].2[0].max(out[1].2[1])),
            gap: (gl, gk),
            w_diff,
            w_bound,
            offset_bound,
            beta: (bl, bk),
        }
    }
}

/// `α` from a coefficient read back by a division (see the module docs): within 2⁻⁴⁰ C of a bound
/// is the bound.
pub fn snap(a: f64, c: f64) -> f64 {
    let tol = c * 9.094947017729282e-13; // 2^-40
    if a.abs() <= tol {
        0.0
    } else if (a - c).abs() <= tol {
        c
    } else {
        a
    }
}
