//! Agreement of two ε-optimal solutions of one SVM dual (LIBSVM's and kern's), with bounds derived
//! before comparing.
//!
//! # The dual (LIBSVM's `Solver` and `Solver_NU` forms)
//! Variables `s = 0..m`, each on a training point `i(s)` with a sign `y_s = ±1`, a linear term
//! `p_s`, a box `0 ≤ α_s ≤ C`:
//!
//! `min f(α) = ½ Σ_st y_s y_t K(x_i(s), x_i(t)) α_s α_t + Σ_s p_s α_s`
//!
//! under one of two kinds of equality constraints ([`Constraint`]):
//! - **ν form** ([`Constraint::Masses`]): `Σ_{s: y_s = +1} α_s = mass₊`, `Σ_{s: y_s = −1} α_s = mass₋`
//!   — two groups (by sign), each constraint with coefficients `a_s = +1`.
//!   ν-SVC (scaled, LIBSVM paper §2.2): `m = l`, `C = 1`, `p = 0`, `mass± = νl/2`.
//!   ν-SVR: `m = 2l`, `α_s` (`y = +1`, `p = −target`) and `α_s*` (`y = −1`, `p = +target`),
//!   `mass± = Cνl/2`.
//! - **Signed form** ([`Constraint::Signed`]): `Σ_s y_s α_s = total` — one group, coefficients
//!   `a_s = y_s`. C-SVC: `m = l`, `p = −1`, total 0. ε-SVR: `m = 2l`, `α_s` (`y = +1`,
//!   `p = ε − target`) and `α_s*` (`y = −1`, `p = ε + target`), total 0. One-class: `m = l`, every
//!   `y = +1`, `p = 0`, `C = 1`, total `νl`.
//!
//! With `β_i = Σ_{s: i(s)=i} y_s α_s` the quadratic term is `½ βᵀKβ`, and the function
//! `g(x) = Σ_i β_i k(x_i, x)`; the decision value is `g(x) − ρ`.
//!
//! # What ε-optimality gives (derivation, fixed before comparing)
//! Per group `g`, with `u_s = −a_s G_s` (`G = ∇f`), the sets `up = {a_s = +1, α_s < C} ∪ {a_s = −1,
//! α_s > 0}` and `low = {a_s = +1, α_s > 0} ∪ {a_s = −1, α_s < C}`, `m_g = max_up u_s`,
//! `M_g = min_low u_s` (LIBSVM's `I_up`, `I_low`; for `a = +1` this is `−G` over `α < C` / `α > 0`).
//! A solver stops when `viol = max_g (m_g − M_g) < eps` on **its own** gradient.
//!
//! 1. *Objective gap.* For a feasible `α` and the optimum `α*`, `d = α − α*` has `Σ_{s∈g} a_s d_s = 0`
//!    in each group; let `e_s = a_s d_s`. Where `e_s > 0`: `a_s = +1, α_s > α*_s ≥ 0` or
//!    `a_s = −1, α_s < α*_s ≤ C`, so `s ∈ low` and `u_s ≥ M_g`; where `e_s < 0`, `s ∈ up` and
//!    `u_s ≤ m_g`. Hence `Gᵀd = −Σ u_s e_s ≤ P_g (m_g − M_g)` per group with `P_g = Σ_{e_s>0} e_s =
//!    Σ_{e_s<0} |e_s|`, and each `|e_s|` is bounded by `α_s` or `C − α_s` of the solution itself:
//!    `P_g ≤ min(A_g, B_g)`, `A_g = Σ_{a=+1} α_s + Σ_{a=−1} (C − α_s)`, `B_g = Σ_{a=+1} (C − α_s) +
//!    Σ_{a=−1} α_s` (in the ν form `A_g = mass_g`). By convexity
//!    `f(α) − f* ≤ ∇f(α)ᵀd ≤ Σ_g P_g · max(0, m_g − M_g)`.
//!
//!    1'. *Per variable.* Since `Σ_{s∈g} e_s = 0`, `Gᵀd = −Σ_s (u_s − c_g) e_s` for any `c_g`; each
//!    `e_s` lies in `[−cap⁻_s, cap⁺_s]` with `cap⁺_s = α_s`, `cap⁻_s = C − α_s` for `a_s = +1` (swapped
//!    for `a_s = −1`), so `Gᵀd ≤ Σ_s [(c_g − u_s)⁺ cap⁺_s + (u_s − c_g)⁺ cap⁻_s]` for every `c_g`:
//!    only the variables on the wrong side of `c_g` count, each by its own distance instead of the
//!    group's maximal violation (the duality-gap form; much the smaller when few variables are
//!    near the window). `gap(α)` is, per group, the smaller of the two forms (with the minimising
//!    `c_g`, one of the `u_s`), computed with the true gradient; the rounding of `u` is covered by
//!    `v · Σ_s (cap⁺_s + cap⁻_s)`.
//! 2. *Functions.* `f(α) − f* = ∇f(α*)ᵀd + ½ dᵀQd ≥ ½ ‖g_α − g*‖²_H` (first-order optimality of
//!    `α*`), so `‖g_L − g_K‖_H ≤ √(2 gap_L) + √(2 gap_K)` and, by Cauchy–Schwarz,
//!    `|g_L(x) − g_K(x)| ≤ ‖g_L − g_K‖_H √k(x, x)`.
//! 3. *The group offsets* `r_g` (LIBSVM `calculate_rho`: minus the mean of `u_s` over the free
//!    variables of group `g`; `ρ = r` in the signed form). Let `[m*_g, M*_g]` (`m* ≤ M*`) be the
//!    optimum's window and `Δ = max_s |G_s(α) − G_s(α*)| ≤ ‖g_α − g*‖_H max_i √K_ii`. If the `t`
//!    attaining `m_g` is in `up(α*)`, then `m_g ≤ u*_t + Δ ≤ m*_g + Δ`; otherwise `e_t < 0`, so some
//!    `t₁` of the group has `e_t₁ > 0` (the `e` sum to 0), which puts `t₁` in `low(α)` and in
//!    `up(α*)`, and `m_g ≤ M_g + viol ≤ u_t₁ + viol ≤ m*_g + Δ + viol`. Symmetrically
//!    `M_g ≥ M*_g − Δ − viol`. Free variables lie in both sets, so
//!    `−r_g ∈ [M_g, m_g] ⊂ [M*_g − a, m*_g + a]`, `a = Δ + viol⁺ (+ the solver's own gradient
//!    error)`, and since `m* ≤ M*`, `|r_g,L − r_g,K| ≤ a_L + a_K`. In the ν form `ρ = (r₊ − r₋)/2`
//!    and `r = (r₊ + r₋)/2` differ by at most `½ Σ_g (…)`; in the signed form `ρ` by `a_L + a_K`.
//! 4. *Which variables are at a bound.* From 3, `M_Y ≥ M* − a_Y ≥ m* − a_Y ≥ m_X − a_X − a_Y` and
//!    `m_Y ≤ M_X + a_X + a_Y` for the two solutions `X`, `Y` (either order), and
//!    `|u_X,s − u_Y,s| ≤ Δ_XY ≤ (√(2 gap_X) + √(2 gap_Y)) max_i √K_ii`. With `B = Δ_XY + a_X + a_Y`:
//!    if `u_X,s < m_X − B` then `s ∉ low` in both solutions (`α_s = 0` for `a_s = +1`, `C` for
//!    `a_s = −1`); if `u_X,s > M_X + B` then `s ∉ up` in both (`α_s = C`, resp. `0`). Such
//!    variables are *certified*: both solutions hold them at the same bound. A point all of whose
//!    variables are certified has the same coefficient `β_i` in both, so `d = β_L − β_K` lives on
//!    the set `U` of the other points and `‖d‖₂ ≤ ‖g_L − g_K‖_H / √λ_min(K_UU)`: every coefficient
//!    is within that of the other solver's (when `λ_min(K_UU)`, less its rounding allowance, is
//!    positive; otherwise the coefficients of `U` are not determined by the bounds).
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
//!   alone for kern (whose `Q` is double). (With a precomputed kernel both read the same doubles.)
//! - Coefficients are read back as `α = |coef| r` (ν-SVC) or `max(±β, 0)` (SVR): a value within
//!   2⁻⁴⁰ C of a bound is the bound (it was the bound before the division by `r`).
//! - `λ_min(K_UU)` is computed in double by a symmetric eigensolver, backward stable: its error is
//!   at most a modest multiple of `|U| 2⁻⁵² ‖K_UU‖`; the allowance subtracted is `|U| 2⁻⁴⁰ K_max`.

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
    /// The solver's reported `(r₊, r₋)`, or only `ρ` (`(r₊ − r₋)/2` in the ν form, `r` in the signed
    /// form).
    pub reported: Reported,
}

/// What a solver reports about its offsets.
pub enum Reported {
    /// Both group offsets of the ν form (ν-SVC: `r₊ = r + ρ`, `r₋ = r − ρ`).
    Both(f64, f64),
    /// Only `ρ` (LIBSVM's ν-SVR model file does not keep `r`; the signed form has only `ρ`).
    Rho(f64),
}

/// The equality constraints of the dual (see the module docs).
#[derive(Clone, Copy, Debug)]
pub enum Constraint {
    /// ν form: `Σ_{y_s=+1} α_s = mass₊`, `Σ_{y_s=−1} α_s = mass₋`.
    Masses(f64, f64),
    /// Signed form: `Σ_s y_s α_s = total`.
    #[allow(dead_code)] // the ν tests (libsvm_nu) use only the ν form
    Signed(f64),
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
    /// The equality constraints.
    pub constraint: Constraint,
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
    /// Points with a variable not certified at a bound (step 4 of the module docs).
    pub uncertain: Vec<usize>,
    /// Bound on `|β_L,i − β_K,i|` for the points of `uncertain` (infinite when not determined).
    pub beta_bound: f64,
}

/// Per solution: true gradient-based `u`, objective, per-group `(m_g, M_g)`, the solver's gradient
/// error bound `max v`.
struct Examined {
    u: Vec<f64>,
    f: f64,
    window: Vec<(f64, f64)>,
    v: f64,
}

impl Dual<'_> {
    fn groups(&self) -> usize {
        match self.constraint {
            Constraint::Masses(..) => 2,
            Constraint::Signed(_) => 1,
        }
    }

    /// Group of variable `s` and its coefficient `a_s` in the group's constraint.
    fn group(&self, s: usize) -> (usize, f64) {
        match self.constraint {
            Constraint::Masses(..) => (usize::from(self.y[s] < 0.0), 1.0),
            Constraint::Signed(_) => (0, self.y[s]),
        }
    }

    /// `s ∈ up`, `s ∈ low` at `α_s = a`.
    fn sets(&self, s: usize, a: f64) -> (bool, bool) {
        let (_, sign) = self.group(s);
        let (below, above) = (a > 0.0, a < self.c);
        if sign > 0.0 { (above, below) } else { (below, above) }
    }

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

    fn examine(&self, s: &Solution) -> Examined {
        let beta = self.beta(&s.alpha);
        let kb = self.k_times(&beta, false);
        let g: Vec<f64> = (0..s.alpha.len()).map(|t| self.y[t] * kb[self.point[t]] + self.p[t]).collect();
        let f = 0.5 * beta.iter().zip(&kb).map(|(b, k)| b * k).sum::<f64>()
            + self.p.iter().zip(&s.alpha).map(|(p, a)| p * a).sum::<f64>();
        let mut window = vec![(f64::NEG_INFINITY, f64::INFINITY); self.groups()];
        let u: Vec<f64> = (0..s.alpha.len()).map(|t| -self.group(t).1 * g[t]).collect();
        for (t, &a) in s.alpha.iter().enumerate() {
            let grp = self.group(t).0;
            let (up, low) = self.sets(t, a);
            if up {
                window[grp].0 = window[grp].0.max(u[t]);
            }
            if low {
                window[grp].1 = window[grp].1.min(u[t]);
            }
        }
        let mut a_pt = vec![0.0; self.l];
        for (t, &a) in s.alpha.iter().enumerate() {
            a_pt[self.point[t]] += a;
        }
        let v = s.q_rel * self.k_times(&a_pt, true).into_iter().fold(0.0, f64::max);
        Examined { u, f, window, v }
    }

    /// The premises (feasibility, free variables in every group that has variables) and the derived
    /// bounds.
    pub fn agreement(&self, name: &str, lib: &Solution, kern: &Solution) -> Agreement {
        let ng = self.groups();
        let kappa = (0..self.l).map(|i| self.k[i * self.l + i].sqrt()).fold(0.0, f64::max);
        let mut out = Vec::new();
        for (who, s) in [("LIBSVM", lib), ("kern", kern)] {
            assert_eq!(s.alpha.len(), self.point.len(), "{name}: {who}'s variable count");
            assert!(s.alpha.iter().all(|&a| (0.0..=self.c).contains(&a)), "{name}: {who} leaves the box");
            // Feasibility: the constraint sums up to summation rounding (DOUBLE relative).
            let scale: f64 = s.alpha.iter().sum::<f64>().max(1.0);
            match self.constraint {
                Constraint::Masses(p, m) => {
                    for (grp, want) in [(0usize, p), (1, m)] {
                        let sum: f64 = s
                            .alpha
                            .iter()
                            .enumerate()
                            .filter(|(t, _)| self.group(*t).0 == grp)
                            .map(|p| p.1)
                            .sum();
                        assert!(
                            (sum - want).abs() <= DOUBLE * want,
                            "{name}: {who}'s group {grp} sums to {sum}, not {want}"
                        );
                    }
                }
                Constraint::Signed(total) => {
                    let sum: f64 = s.alpha.iter().zip(&self.y).map(|(a, y)| a * y).sum();
                    assert!(
                        (sum - total).abs() <= DOUBLE * scale,
                        "{name}: {who}'s Σ y α is {sum}, not {total}"
                    );
                }
            }
            for grp in 0..ng {
                let members: Vec<usize> = (0..s.alpha.len()).filter(|&t| self.group(t).0 == grp).collect();
                if members.is_empty() {
                    continue;
                }
                let free = members.iter().filter(|&&t| s.alpha[t] > 0.0 && s.alpha[t] < self.c).count();
                assert!(
                    free > 0,
                    "{name}: {who} has no free variable in group {grp} (premise of the offset bound)"
                );
            }
            let e = self.examine(s);
            let viol: Vec<f64> = e.window.iter().map(|&(m, mm)| m - mm).collect();
            // The solver stopped at eps on a gradient within v of the true one: true violation ≤ eps + 2v.
            for (grp, vi) in viol.iter().enumerate() {
                assert!(
                    *vi <= s.eps + 2.0 * e.v,
                    "{name}: {who}'s true KKT violation in group {grp} is {vi}, above eps + 2v = {}",
                    s.eps + 2.0 * e.v
                );
            }
            // P_g ≤ min(A_g, B_g) (step 1).
            let mut gap = 0.0;
            for (grp, vi) in viol.iter().enumerate() {
                let (mut a_sum, mut b_sum) = (0.0, 0.0);
                for (t, &a) in s.alpha.iter().enumerate().filter(|(t, _)| self.group(*t).0 == grp) {
                    if self.group(t).1 > 0.0 {
                        a_sum += a;
                        b_sum += self.c - a;
                    } else {
                        a_sum += self.c - a;
                        b_sum += a;
                    }
                }
                // The per-variable form (step 1'), minimised over the centre c (a piecewise-linear
                // convex function of c: its minimum is at one of the u_s), plus the rounding of u.
                let members: Vec<usize> = (0..s.alpha.len()).filter(|&t| self.group(t).0 == grp).collect();
                let caps = |t: usize| {
                    let (a, room) = (s.alpha[t], self.c - s.alpha[t]);
                    if self.group(t).1 > 0.0 { (a, room) } else { (room, a) }
                };
                let at = |c: f64| -> f64 {
                    members
                        .iter()
                        .map(|&t| {
                            let (cp, cm) = caps(t);
                            (c - e.u[t]).max(0.0) * cp + (e.u[t] - c).max(0.0) * cm
                        })
                        .sum()
                };
                let per_var = members.iter().map(|&t| at(e.u[t])).fold(f64::INFINITY, f64::min)
                    + e.v * members.iter().map(|&t| caps(t).0 + caps(t).1).sum::<f64>();
                gap += (vi.max(0.0) * a_sum.min(b_sum)).min(per_var);
            }
            // a_g = Δ + viol⁺ + v, Δ ≤ √(2 gap) κ.
            let a: Vec<f64> = viol.iter().map(|vi| (2.0 * gap).sqrt() * kappa + vi.max(0.0) + e.v).collect();
            out.push((e, viol, gap, a));
        }
        let (fl, fk) = (out[0].0.f, out[1].0.f);
        let (gl, gk) = (out[0].2, out[1].2);
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
        let offset_bound = match self.constraint {
            Constraint::Masses(..) => 0.5 * ((out[0].3[0] + out[1].3[0]) + (out[0].3[1] + out[1].3[1])),
            Constraint::Signed(_) => out[0].3[0] + out[1].3[0],
        };
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
                let b = out[0].3[grp] + out[1].3[grp];
                assert!((x - z).abs() <= b, "{name}: r of group {grp}: {x} (LIBSVM), {z} (kern), bound {b}");
            }
        }
        // 4. Variables certified at a bound hold the same value in both solutions.
        let delta = w_bound * kappa;
        let mut certain = vec![false; self.point.len()];
        for (ex, ..) in &out {
            for (s, cert) in certain.iter_mut().enumerate() {
                let grp = self.group(s).0;
                let b = delta + out[0].3[grp] + out[1].3[grp];
                let (m_x, mm_x) = ex.window[grp];
                let (not_low, not_up) = (ex.u[s] < m_x - b, ex.u[s] > mm_x + b);
                if !(not_low || not_up) {
                    continue;
                }
                *cert = true;
                for (who, sol) in [("LIBSVM", lib), ("kern", kern)] {
                    let (up, low) = self.sets(s, sol.alpha[s]);
                    assert!(
                        !(not_low && low || not_up && up),
                        "{name}: variable {s} (point {}) is certified at a bound (u = {}, window [{mm_x}, {m_x}], \
                         margin {b}) but {who} has α = {}",
                        self.point[s],
                        ex.u[s],
                        sol.alpha[s]
                    );
                }
                assert_eq!(lib.alpha[s], kern.alpha[s], "{name}: certified variable {s}");
            }
        }
        let mut uncertain: Vec<usize> =
            (0..self.point.len()).filter(|&s| !certain[s]).map(|s| self.point[s]).collect();
        uncertain.sort();
        uncertain.dedup();
        // Coefficients of the uncertain points: ‖d_U‖₂ ≤ ‖d‖_K / √λ_min(K_UU).
        let beta_bound = if uncertain.is_empty() {
            0.0
        } else {
            let nu = uncertain.len();
            let kuu = faer::Mat::<f64>::from_fn(nu, nu, |a, b| self.k[uncertain[a] * self.l + uncertain[b]]);
            let kmax = self.k.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let lmin = kuu.self_adjoint_eigenvalues(faer::Side::Lower).unwrap()[0]
                - nu as f64 * 9.094947017729282e-13 * kmax; // |U| 2^-40 K_max
            if lmin > 0.0 { (w_bound * w_bound + round).sqrt() / lmin.sqrt() } else { f64::INFINITY }
        };
        for &i in &uncertain {
            assert!(
                (bl[i] - bk[i]).abs() <= beta_bound,
                "{name}: coefficient of point {i}: LIBSVM {}, kern {}, bound {beta_bound}",
                bl[i],
                bk[i]
            );
        }
        for i in (0..self.l).filter(|i| uncertain.binary_search(i).is_err()) {
            assert_eq!(bl[i], bk[i], "{name}: coefficient of certified point {i}");
        }
        Agreement {
            f: (fl, fk),
            viol: (
                out[0].1.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b)),
                out[1].1.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b)),
            ),
            gap: (gl, gk),
            w_diff,
            w_bound,
            offset_bound,
            beta: (bl, bk),
            uncertain,
            beta_bound,
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

impl Agreement {
    /// Prints the bounds and the measured distances on stderr (`--nocapture` shows them), with `extra`
    /// figures of the test.
    pub fn print(&self, name: &str, extra: &str) {
        eprintln!(
            "{name}: objectives {:?}, true violations {:?}, gaps {:?}, ‖g_L − g_K‖_H {:.3e} (bound {:.3e}), \
             ρ bound {:.3e}, {} points not certified at a bound (coefficient bound {:.3e}){extra}",
            self.f,
            self.viol,
            self.gap,
            self.w_diff,
            self.w_bound,
            self.offset_bound,
            self.uncertain.len(),
            self.beta_bound
        );
    }
}

/// A LIBSVM-format data file as its labels and dense rows: index `i` goes to column `i − first`
/// (indices below `first` are dropped: `first = 1` drops a precomputed file's `0:SERIAL`); `width`
/// columns, or the largest index − `first` + 1 of the file when `None`.
pub fn read_rows(path: &std::path::Path, first: usize, width: Option<usize>) -> (Vec<f64>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let (mut y, mut sparse) = (Vec::new(), Vec::new());
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut it = line.split_whitespace();
        y.push(it.next().unwrap().parse::<f64>().unwrap());
        let row: Vec<(usize, f64)> = it
            .map(|tok| tok.split_once(':').unwrap())
            .map(|(i, v)| (i.parse::<usize>().unwrap(), v.parse::<f64>().unwrap()))
            .filter(|&(i, _)| i >= first)
            .map(|(i, v)| (i - first, v))
            .collect();
        sparse.push(row);
    }
    let w = width.unwrap_or_else(|| sparse.iter().flatten().map(|p| p.0 + 1).max().unwrap_or(0));
    let rows = sparse
        .iter()
        .map(|r| {
            let mut row = vec![0.0; w];
            for &(i, v) in r {
                row[i] = v;
            }
            row
        })
        .collect();
    (y, rows)
}

/// LIBSVM's model and test decision values as a fixture's `.expected` file holds them (lines `labels
/// L…`, `rho R…`, `sv SERIAL COEF…`, `dec LABEL VALUE…`, one value per one-vs-one machine).
pub struct Expected {
    /// LIBSVM's label order.
    pub labels: Vec<i64>,
    /// `ρ` per machine.
    pub rho: Vec<f64>,
    /// 0-based training index → `sv_coef` columns.
    pub sv: Vec<(usize, Vec<f64>)>,
    /// LIBSVM's label and decision values per test row.
    pub dec: Vec<(f64, Vec<f64>)>,
}

impl Expected {
    /// Reads an `.expected` file.
    pub fn read(path: &std::path::Path) -> Self {
        let text = std::fs::read_to_string(path).unwrap();
        let mut e = Expected { labels: vec![], rho: vec![], sv: vec![], dec: vec![] };
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let mut it = line.split_whitespace();
            let key = it.next().unwrap();
            let nums: Vec<f64> = it.map(|t| t.parse().unwrap()).collect();
            match key {
                "labels" => e.labels = nums.iter().map(|&v| v as i64).collect(),
                "rho" => e.rho = nums,
                "sv" => e.sv.push((nums[0] as usize - 1, nums[1..].to_vec())),
                "dec" => e.dec.push((nums[0], nums[1..].to_vec())),
                other => panic!("unknown key {other}"),
            }
        }
        e
    }

    /// `(training index, coefficient)` of the support vectors in `sv_coef` column `col`.
    pub fn sv_column(&self, col: usize) -> Vec<(usize, f64)> {
        self.sv.iter().map(|(i, c)| (*i, c[col])).collect()
    }

    /// `(label, decision value)` of each test row for machine `m`.
    pub fn dec_column(&self, m: usize) -> Vec<(f64, f64)> {
        self.dec.iter().map(|(l, d)| (*l, d[m])).collect()
    }
}
