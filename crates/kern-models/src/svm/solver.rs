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
use super::plan::{self, Plan, Selection, Threading, Tuning};
use super::progress::Ticker;
use super::qmatrix::QMatrix;
use kern_sparse::kmatrix::SparseColumn;

mod face;
mod nu;
mod serve;
pub(super) mod wss_tree;

pub(super) const TAU: f64 = 1e-12;

/// Solves that took the split passes (tests check that a forced split was taken).
#[cfg(test)]
pub(crate) static SPLIT_SOLVES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

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
    /// The ν variant (LIBSVM's `Solver_NU`): the duals of ν-SVC and ν-SVR carry a second equality
    /// constraint `eᵀα = const` besides `yᵀα = Δ`, so both variables of a pair share a sign; working
    /// sets are chosen within each sign group and `ρ`, `r` come from both groups (see
    /// [`Solver::select_working_set_nu`], [`Solver::calculate_rho_nu`]).
    pub(crate) nu: bool,
    /// Report progress to the installed observer.
    pub(crate) report: bool,
    /// The plan so far (order, start, columns, machine threading: [`plan::source`]'s part); the
    /// solver completes it ([`plan::solve`]) and follows it.
    pub(crate) plan: Plan,
    /// The rules' constants and pins.
    pub(crate) tuning: Tuning,
}

/// The positions of the lanes of a scan's first vector (any SIMD width up to 16 lanes). The scans keep
/// their candidates' positions as `f64` (exact below 2⁵³), so that keeping a lane's candidate or
/// taking the current position is one vector blend, as for the values.
const IOTA: [f64; 16] =
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0];

/// Per-lane candidates of a scan: each lane's best key so far and its position (the last among ties).
/// A lane's key starts at `none` (`±∞`), which no candidate equals; a lane's position counts only once
/// its key has moved off `none`.
struct Lanes<S: pulp::Simd> {
    best: S::f64s,
    at: S::f64s,
    base: S::f64s,
    step: S::f64s,
}

impl<S: pulp::Simd> Lanes<S> {
    #[inline(always)]
    fn new(simd: S, none: f64) -> Self {
        Lanes {
            best: simd.splat_f64s(none),
            at: simd.splat_f64s(0.0),
            base: simd.partial_load_f64s(&IOTA[..S::F64_LANES]),
            step: simd.splat_f64s(S::F64_LANES as f64),
        }
    }

    /// Takes `key` where `better` (the comparison of `key` with [`Lanes::best`]) and moves to the next
    /// vector of positions.
    #[inline(always)]
    fn take(&mut self, simd: S, better: S::m64s, key: S::f64s) {
        self.best = simd.select_f64s(better, key, self.best);
        self.at = simd.select_f64s(better, self.base, self.at);
        self.base = simd.add_f64s(self.base, self.step);
    }

    /// Joins the lanes into the scalar candidate `(key, index)` of the tail (`usize::MAX`: none), the
    /// later position winning a tie; `beats(a, b)`: key `a` is strictly better than `b`.
    #[inline(always)]
    fn join(self, simd: S, none: f64, tail: (f64, usize), beats: impl Fn(f64, f64) -> bool) -> (f64, usize) {
        let (mut best, mut at) = ([0.0f64; 16], [0.0f64; 16]);
        simd.partial_store_f64s(&mut best[..S::F64_LANES], self.best);
        simd.partial_store_f64s(&mut at[..S::F64_LANES], self.at);
        let (mut bv, mut bi) = tail;
        for (&v, &a) in best.iter().zip(&at).take(S::F64_LANES) {
            let a = a as usize;
            if v != none && (beats(v, bv) || (v == bv && (bi == usize::MAX || a > bi))) {
                bv = v;
                bi = a;
            }
        }
        (bv, bi)
    }
}

/// The second pass of WSS 2 in one sweep: `max_{I_low} v_t` and `argmin_t −b_t²/a_t` (ties: the last
/// index, as LIBSVM), in vector lanes of minima with their positions ([`Lanes`]), compiled for the
/// best SIMD level by `pulp`; every lane computes [`gain`]'s operations in its order.
pub(super) struct Gains<'a> {
    pub(super) y: &'a [f64],
    pub(super) g: &'a [f64],
    pub(super) qd: &'a [f64],
    pub(super) low: &'a [f64],
    pub(super) qi: &'a [f64],
    pub(super) gmax: f64,
    pub(super) qdi: f64,
    pub(super) yi: f64,
}

impl Gains<'_> {
    #[inline(always)]
    fn lane(&self, y: f64, g: f64, qd: f64, low: f64, qi: f64) -> (f64, f64) {
        gain(self.gmax, self.qdi, self.yi, y, g, qd, low, qi)
    }
}

/// One position of WSS 2's second pass: `(v + low, −b²/a)` with `v = y G`, `b = G_max + v`,
/// `a = Q_ii + Q_tt − 2 y_i y Q_it` (τ if `a ≤ 0`); the gain is `+∞` outside `I_low` or when `b ≤ 0`.
/// The one formula of the scan's tail ([`Gains`], whose vector lanes repeat its operations) and of
/// the tree selection ([`wss_tree`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the operands of one lane, passed as scalars
pub(super) fn gain(gmax: f64, qdi: f64, yi: f64, y: f64, g: f64, qd: f64, low: f64, qi: f64) -> (f64, f64) {
    let v = y * g;
    let vl = v + low;
    let b = gmax + v;
    let a = qdi + qd - 2.0 * yi * y * qi;
    let a = if a > 0.0 { a } else { TAU };
    // Computed whatever the conditions and then selected (no branch on whether `t` qualifies).
    let o = -(b * b) / a;
    (vl, if (b > 0.0) & (vl > f64::NEG_INFINITY) { o } else { f64::INFINITY })
}

impl pulp::WithSimd for Gains<'_> {
    /// `(max_{I_low} v_t, min −b²/a, its index)` (`usize::MAX` when no position qualifies).
    type Output = (f64, f64, usize);

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, simd: S) -> (f64, f64, usize) {
        let n = self.y.len();
        let (yc, yr) = S::as_simd_f64s(self.y);
        let (gc, gr) = S::as_simd_f64s(self.g);
        let (dc, dr) = S::as_simd_f64s(self.qd);
        let (lc, lr) = S::as_simd_f64s(self.low);
        let (qc, qr) = S::as_simd_f64s(self.qi);
        let splat = |v: f64| simd.splat_f64s(v);
        let (zero, inf, ninf, tau) = (splat(0.0), splat(f64::INFINITY), splat(f64::NEG_INFINITY), splat(TAU));
        let (gmax, qdi, two_yi) = (splat(self.gmax), splat(self.qdi), splat(2.0 * self.yi));
        let mut m = ninf;
        let mut lanes = Lanes::new(simd, f64::INFINITY);
        for ((((&y, &g), &d), &l), &q) in yc.iter().zip(gc).zip(dc).zip(lc).zip(qc) {
            // `gain`, operation for operation.
            let v = simd.mul_f64s(y, g);
            let vl = simd.add_f64s(v, l);
            let b = simd.add_f64s(gmax, v);
            let a = simd.sub_f64s(simd.add_f64s(qdi, d), simd.mul_f64s(simd.mul_f64s(two_yi, y), q));
            let a = simd.select_f64s(simd.greater_than_f64s(a, zero), a, tau);
            let o = simd.div_f64s(simd.neg_f64s(simd.mul_f64s(b, b)), a);
            let o = simd.select_f64s(simd.greater_than_f64s(b, zero), o, inf);
            let o = simd.select_f64s(simd.greater_than_f64s(vl, ninf), o, inf);
            m = simd.select_f64s(simd.greater_than_f64s(vl, m), vl, m);
            lanes.take(simd, simd.less_than_or_equal_f64s(o, lanes.best), o);
        }
        let mut ms = [0.0f64; 16];
        simd.partial_store_f64s(&mut ms[..S::F64_LANES], m);
        let mut mm = ms[..S::F64_LANES].iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let (mut bo, mut bi) = (f64::INFINITY, usize::MAX);
        for k in 0..yr.len() {
            let (vl, o) = self.lane(yr[k], gr[k], dr[k], lr[k], qr[k]);
            mm = if vl > mm { vl } else { mm };
            if o <= bo && o < f64::INFINITY {
                bo = o;
                bi = n - yr.len() + k;
            }
        }
        let (bo, bi) = lanes.join(simd, f64::INFINITY, (bo, bi), |a, b| a < b);
        (mm, bo, bi)
    }
}

/// The first pass of WSS 2: `argmax_{I_up} −y_t G_t` (ties: the last index), in vector lanes
/// ([`Lanes`]).
pub(super) struct MaxUp<'a> {
    pub(super) y: &'a [f64],
    pub(super) g: &'a [f64],
    pub(super) up: &'a [f64],
}

impl pulp::WithSimd for MaxUp<'_> {
    type Output = (f64, usize);

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, simd: S) -> (f64, usize) {
        let n = self.y.len();
        let (yc, yr) = S::as_simd_f64s(self.y);
        let (gc, gr) = S::as_simd_f64s(self.g);
        let (uc, ur) = S::as_simd_f64s(self.up);
        let mut lanes = Lanes::new(simd, f64::NEG_INFINITY);
        for ((&y, &g), &u) in yc.iter().zip(gc).zip(uc) {
            let v = simd.sub_f64s(u, simd.mul_f64s(y, g));
            lanes.take(simd, simd.greater_than_or_equal_f64s(v, lanes.best), v);
        }
        let (mut bv, mut bi) = (f64::NEG_INFINITY, usize::MAX);
        for k in 0..yr.len() {
            let v = ur[k] - yr[k] * gr[k];
            if v >= bv && v > f64::NEG_INFINITY {
                bv = v;
                bi = n - yr.len() + k;
            }
        }
        lanes.join(simd, f64::NEG_INFINITY, (bv, bi), |a, b| a > b)
    }
}

/// The result of a scan over `a..b` (`index` relative to `a`, `usize::MAX` for none) in `0..n` terms.
#[inline]
fn shifted(index: usize, a: usize) -> usize {
    if index == usize::MAX { index } else { a + index }
}

/// Joins the results of a scan's two halves as one scan over the whole range would have found them:
/// the later half's candidate wins when it is at least as good (`takes(later, earlier)`), which keeps
/// the last index among ties. `None` stands for "no candidate" (index `usize::MAX`).
#[inline]
fn later_if<T: Copy>(lo: (T, usize), hi: (T, usize), takes: impl Fn(T, T) -> bool) -> (T, usize) {
    if hi.1 != usize::MAX && (lo.1 == usize::MAX || takes(hi.0, lo.0)) { hi } else { lo }
}

/// Where a pass over `0..n` splits across two threads (half of the range).
#[inline]
fn half(n: usize) -> usize {
    n / 2
}

/// `b += c·q` elementwise (the update of `Ḡ`; one implementation for the serial and split passes).
#[inline]
fn add_scaled(b: &mut [f64], q: &[f64], c: f64) {
    for (b, &v) in b.iter_mut().zip(q) {
        *b += c * v;
    }
}

/// `Σ_{t free} α_t q_t` in position order over the positions of `status` (the gradient reconstruction's
/// sum over an inactive column; one implementation for the serial and split passes).
#[inline]
fn free_sum(status: &[u8], alpha: &[f64], q: &[f64]) -> f64 {
    let mut acc = 0.0;
    for (t, &st) in status.iter().enumerate() {
        if st == FREE {
            acc += alpha[t] * q[t];
        }
    }
    acc
}

/// Positions per block of the split passes: the block's slices of every array the pass reads stay in
/// L1 between the column fill, the update and the scan.
const PASS_BLOCK: usize = 512;

/// The gradient update of a pair step, `G_t += Q_ti Δα_i + Q_tj Δα_j` (one implementation for the
/// serial and the split passes, so that both give the same bits).
#[inline]
fn add_pair_terms(arch: pulp::Arch, g: &mut [f64], qi: &[f64], qj: &[f64], dai: f64, daj: f64) {
    arch.dispatch(
        #[inline(always)]
        || {
            for ((g, &a), &b) in g.iter_mut().zip(qi).zip(qj) {
                *g += a * dai + b * daj;
            }
        },
    )
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
    /// The ν variant's second multiplier `r` (Chang & Lin 2001, §4: the margin of ν-SVC is `ρ/r`
    /// and its scaled solution `α/r` solves a C-SVC with `C = 1/r`; for ν-SVR `ε = −r`). Zero for the
    /// standard variant.
    pub(crate) r: f64,
    /// The plan the solve followed.
    pub(crate) plan: Plan,
}

/// From this many nonzero `α` at the start, [`Solver::init_gradient`] computes `G` and `Ḡ` by blocks of
/// positions ([`add_columns`]) instead of column by column through the cache.
const PRODUCT_MIN_COLUMNS: usize = 64;

/// Positions per block of [`add_columns`]: a block's column piece, `G` and `Ḡ` stay in L2.
const PRODUCT_BLOCK: usize = 4096;

/// Adds `Σ_j a_j Q_{:,j}` to `g` and `Σ_j b_j Q_{:,j}` to `g_bar` over `cols = (j, a_j, b_j)` (no
/// `b_j`: no term in `g_bar`). The positions are cut into blocks of [`PRODUCT_BLOCK`] shared by the
/// pool; a block computes its piece of every column in turn and adds it at once. Every entry sums its
/// terms in the order of `cols`, as a loop over whole columns does, so the result is the same bit for
/// bit at any thread count. Needs columns whose ranges cost in proportion to their length
/// ([`QMatrix::splits_evenly`]).
pub(crate) fn add_columns<Q: QMatrix>(
    q: &Q,
    cols: &[(usize, f64, Option<f64>)],
    g: &mut [f64],
    g_bar: &mut [f64],
) {
    use rayon::prelude::*;
    g.par_chunks_mut(PRODUCT_BLOCK).zip(g_bar.par_chunks_mut(PRODUCT_BLOCK)).enumerate().for_each_init(
        || vec![0.0; PRODUCT_BLOCK],
        |buf, (b, (g, gb))| {
            let piece = &mut buf[..g.len()];
            for &(j, a, bar) in cols {
                q.fill_column_seq(j, b * PRODUCT_BLOCK, piece);
                match bar {
                    Some(cj) => {
                        for ((gt, bt), &qv) in g.iter_mut().zip(gb.iter_mut()).zip(piece.iter()) {
                            *gt += a * qv;
                            *bt += cj * qv;
                        }
                    }
                    None => add_scaled(g, piece, a),
                }
            }
        },
    );
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
    /// `Ḡ_t = Σ_{α_j = C_j} C_j Q_tj`, read only to rebuild `G` after shrinking
    /// ([`Solver::reconstruct_gradient`]). Solvers on sparse columns keep it only when they shrink
    /// (never with the trees: one column pass saved per bound crossed).
    g_bar: Vec<f64>,
    qd: Vec<f64>,
    /// Original index of each position.
    index: Vec<usize>,
    unshrink: bool,
    opts: SolverOptions,
    /// `0` for positions in `I_up` (may move up: `y = +1` below `C`, `y = −1` above 0), `−∞` otherwise.
    up_pen: Vec<f64>,
    /// `0` for positions in `I_low`, `−∞` otherwise.
    low_pen: Vec<f64>,
    /// Swaps made by the current shrinking pass, applied to the cache at its end in one batch.
    pending: Vec<(usize, usize)>,
    /// Every column is computed at its full length `l` (see [`Solver::column`]).
    whole: bool,
    /// Columns are read as their nonzeros from a sparse `K_C` ([`SparseColumn`]); the column cache is
    /// then empty and unused.
    sparse: bool,
    /// A zero vector of length `l` (sparse columns): the selection scatters the column of `i` into
    /// it for the vectorized WSS pass and zeroes those entries again.
    scratch: Vec<f64>,
    /// The working-set selection by tournament trees instead of scans (sparse columns with a
    /// constant diagonal; see [`wss_tree`] and [`wss_tree::use_trees`]).
    trees: Option<wss_tree::Trees>,
    /// The dense loop's `O(active)` passes are split across two threads of the pool while the active
    /// set has at least [`Tuning::split_min`] positions (standard duals on dense columns, the plan's [`Threading::Split`]);
    /// the halves' results are joined exactly as one pass finds them, so the iterates do not depend
    /// on it.
    par: bool,
    /// [`Tuning::split_min`] (1 when the split is pinned).
    split_min: usize,
    /// The first pass of the next selection, `(active length, max_{I_up} −y_t G_t, index)`, when the
    /// split update computed it; dropped by anything that changes the active set or `G` besides a step.
    next_up: Option<(usize, f64, usize)>,
    arch: pulp::Arch,
}

impl<Q: QMatrix> Solver<Q> {
    /// Solves the dual from the feasible start `alpha` (all-zero for C-SVC and ε-SVR).
    pub(crate) fn solve(
        q: Q,
        p: Vec<f64>,
        y: Vec<f64>,
        c: Vec<f64>,
        alpha: Vec<f64>,
        opts: SolverOptions,
    ) -> Solution {
        let l = q.l();
        debug_assert!(p.len() == l && y.len() == l && c.len() == l && alpha.len() == l);
        let qd = q.diag();
        let problem = plan::SolveProblem {
            l,
            sparse_nnz: q.sparse_nnz(),
            cheap: q.cheap_columns(),
            nu: opts.nu,
            threads: rayon::current_num_threads(),
            cache_bytes: opts.cache_bytes,
            shrinking: opts.shrinking,
        };
        let (mut plan, bytes, resident) = plan::solve(opts.plan, &problem, &opts.tuning);
        let sparse = plan.sparse_columns;
        let cache = if sparse { ColumnCache::new(0, 0, false) } else { ColumnCache::new(l, bytes, resident) };
        let split = plan.threading == Threading::Split;
        let trees = (plan.selection == Selection::Trees)
            .then(|| wss_tree::Trees::for_problem(&q, &qd, split))
            .flatten();
        if trees.is_none() && plan.selection == Selection::Trees {
            // The trees need a constant diagonal; the scans give the same pair.
            plan.selection = Selection::Scan;
            plan.shrinking = opts.shrinking;
            if split {
                plan.threading = Threading::Serial;
            }
        }
        // With the trees an iteration costs the neighbours of the pair, not the active length, so
        // shrinking saves nothing; its swaps would scatter the cells' order (whose runs of consecutive
        // neighbours the trees' leaves share) and its reconstructions cost `O(nnz)` each (see
        // `wss_tree`, "Shrinking").
        let opts = SolverOptions { shrinking: plan.shrinking, cache_bytes: bytes, plan, ..opts };
        // The cache holds all of `Q` and its columns are not cheap to recompute.
        let whole = !q.cheap_columns() && (l as u128) * (l as u128) * 8 <= bytes as u128;
        let dense_split = split && trees.is_none();
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
            up_pen: vec![0.0; l],
            low_pen: vec![0.0; l],
            pending: Vec::new(),
            whole,
            sparse,
            scratch: if sparse && trees.is_none() { vec![0.0; l] } else { Vec::new() },
            trees,
            par: dense_split,
            // A pinned split runs at any length.
            split_min: if opts.tuning.force_split == Some(true) { 1 } else { opts.tuning.split_min },
            next_up: None,
            arch: pulp::Arch::new(),
        };
        #[cfg(test)]
        if s.par {
            SPLIT_SOLVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        for i in 0..l {
            s.update_status(i);
        }
        s.init_gradient();
        s.run()
    }

    #[inline]
    fn update_status(&mut self, i: usize) {
        let st = if self.alpha[i] >= self.c[i] {
            UPPER
        } else if self.alpha[i] <= 0.0 {
            LOWER
        } else {
            FREE
        };
        self.status[i] = st;
        let pos = self.y[i] > 0.0;
        let up = if pos { st != UPPER } else { st != LOWER };
        let low = if pos { st != LOWER } else { st != UPPER };
        self.up_pen[i] = if up { 0.0 } else { f64::NEG_INFINITY };
        self.low_pen[i] = if low { 0.0 } else { f64::NEG_INFINITY };
    }

    /// Ensures column `j` holds `len` entries; `keep` is not evicted.
    ///
    /// When the cache can hold every column at full length (`whole`), a column is computed at its full
    /// length the first time: it is then never evicted, never extended after unshrinking and never
    /// dropped by a swap of the shrinking pass, so no entry of `Q` is computed twice (with columns
    /// computed over the active set only, a small problem with many iterations recomputes columns
    /// again and again). The entries are the same values whatever the length, so the iterates are too.
    fn column(&mut self, j: usize, len: usize, keep: Option<usize>) {
        let len = if self.whole { self.l } else { len };
        let (buf, filled) = self.cache.request(j, len, keep);
        if filled < len {
            self.q.fill_column(j, filled, &mut buf[filled..len]);
            self.cache.set_filled(j, len);
        }
    }

    fn init_gradient(&mut self) {
        let l = self.l;
        self.g = self.p.clone();
        if self.sparse {
            for i in 0..l {
                if self.status[i] != LOWER {
                    let col = sparse_col(&self.q, i);
                    let a = self.alpha[i];
                    col.for_each(|p, v| self.g[p] += a * v);
                    if self.opts.shrinking && self.status[i] == UPPER {
                        let ci = self.c[i];
                        col.for_each(|p, v| self.g_bar[p] += ci * v);
                    }
                }
            }
            return;
        }
        // Many full columns that the cache would not keep: computed block by block of positions
        // across the pool instead ([`add_columns`]), with the same sums.
        let cols: Vec<(usize, f64, Option<f64>)> = (0..l)
            .filter(|&i| self.status[i] != LOWER)
            .map(|i| (i, self.alpha[i], (self.status[i] == UPPER).then_some(self.c[i])))
            .collect();
        if !self.whole && cols.len() >= PRODUCT_MIN_COLUMNS && self.q.splits_evenly() {
            return add_columns(&self.q, &cols, &mut self.g, &mut self.g_bar);
        }
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

    /// Whether a pass over `0..n` is split ([`Solver::par`]).
    #[inline]
    fn splits(&self, n: usize) -> bool {
        self.par && n >= self.split_min
    }

    /// WSS 2's first pass over `0..n` ([`MaxUp`]), in two halves when [`Solver::splits`].
    fn max_up(&self, n: usize) -> (f64, usize) {
        let scan = |a: usize, b: usize| {
            let (v, t) =
                self.arch.dispatch(MaxUp { y: &self.y[a..b], g: &self.g[a..b], up: &self.up_pen[a..b] });
            (v, shifted(t, a))
        };
        if !self.splits(n) {
            return scan(0, n);
        }
        let h = half(n);
        let (lo, hi) = rayon::join(|| scan(0, h), || scan(h, n));
        later_if(lo, hi, |later, earlier| later >= earlier)
    }

    /// WSS 2's second pass over `0..n` against `i` ([`Gains`]; `qi` is `Q`'s column of `i` over
    /// `0..n`): `(max_{I_low} v_t, argmin −b²/a)`.
    fn gains(&self, n: usize, qi: &[f64], i: usize, gmax: f64) -> (f64, usize) {
        let (y, g, qd, low) = (&self.y[..n], &self.g[..n], &self.qd[..n], &self.low_pen[..n]);
        let (m, _, t) =
            self.arch.dispatch(Gains { y, g, qd, low, qi: &qi[..n], gmax, qdi: self.qd[i], yi: self.y[i] });
        (m, t)
    }

    /// Requests column `j` to `len` entries (all `l` when the cache keeps whole columns; never evicting
    /// `keep`) and returns how many of them are valid: the rest, within the active set, is computed by
    /// the caller's split pass
    /// ([`QMatrix::fill_column_seq`]). Entries a split pass would not reach (beyond the active set when
    /// the whole column is kept) and columns whose ranges do not split evenly are computed here.
    fn request_for_pass(&mut self, j: usize, len: usize, keep: Option<usize>) -> usize {
        let need = if self.whole { self.l } else { len };
        let (buf, filled) = self.cache.request(j, need, keep);
        let filled = if filled < need && (self.whole || !self.q.splits_evenly()) {
            self.q.fill_column(j, filled, &mut buf[filled..need]);
            need
        } else {
            filled
        };
        self.cache.set_filled(j, need);
        filled
    }

    /// The split form of WSS 2's second pass ([`Solver::par`]): each thread computes its half of the
    /// column of `i` (the part not cached) block by block and scans the block while it is in cache.
    fn gains_filling(&mut self, i: usize, gmax: f64, n: usize) -> (f64, usize) {
        let filled = self.request_for_pass(i, n, None);
        let (yi, qdi) = (self.y[i], self.qd[i]);
        let (q, y, g, qd, low, arch) = (&self.q, &self.y, &self.g, &self.qd, &self.low_pen, self.arch);
        let pass = |a: usize, col: &mut [f64]| {
            let mut m = f64::NEG_INFINITY;
            let mut best = (f64::INFINITY, usize::MAX);
            for (b, qi) in col.chunks_mut(PASS_BLOCK).enumerate() {
                let lo = a + b * PASS_BLOCK;
                let hi = lo + qi.len();
                if hi > filled {
                    let from = lo.max(filled);
                    q.fill_column_seq(i, from, &mut qi[from - lo..]);
                }
                let (y, g, qd, low) = (&y[lo..hi], &g[lo..hi], &qd[lo..hi], &low[lo..hi]);
                let (mb, o, t) = arch.dispatch(Gains { y, g, qd, low, qi, gmax, qdi, yi });
                m = if mb > m { mb } else { m };
                best = later_if(best, (o, shifted(t, lo)), |later, earlier| later <= earlier);
            }
            (m, best)
        };
        let col = self.cache.column_mut(i, n);
        let h = half(n);
        let (c0, c1) = col.split_at_mut(h);
        let ((m0, lo), (m1, hi)) = rayon::join(|| pass(0, c0), || pass(h, c1));
        let (_, t) = later_if(lo, hi, |later, earlier| later <= earlier);
        (if m1 > m0 { m1 } else { m0 }, t)
    }

    /// The split form of the gradient update ([`Solver::par`]): each thread computes its half of the
    /// column of `j` (the part not cached) block by block, adds both columns' terms to `G` and runs
    /// WSS 2's first pass of the next iteration on the block while it is in cache. The statuses of `i`
    /// and `j` must already be updated. Returns that pass's `(max_{I_up} −y_t G_t, index)`.
    ///
    /// `bar` ([`Solver::bar_changes`], only on the unshrunk problem): the changes of `Ḡ` for `i` and
    /// `j`, added in the same pass, `i`'s before `j`'s as the serial loop adds them.
    fn update_filling(
        &mut self,
        i: usize,
        j: usize,
        dai: f64,
        daj: f64,
        len: usize,
        bar: [Option<f64>; 2],
    ) -> (f64, usize) {
        let filled = self.request_for_pass(j, len, Some(i));
        let (q, y, up, arch) = (&self.q, &self.y, &self.up_pen, self.arch);
        let (qi, qj) = self.cache.pair_mut(i, j, len);
        let pass = |a: usize, g: &mut [f64], gb: &mut [f64], qi: &[f64], qj: &mut [f64]| {
            let mut best = (f64::NEG_INFINITY, usize::MAX);
            let blocks = g
                .chunks_mut(PASS_BLOCK)
                .zip(gb.chunks_mut(PASS_BLOCK))
                .zip(qi.chunks(PASS_BLOCK))
                .zip(qj.chunks_mut(PASS_BLOCK));
            for (b, (((g, gb), qi), qj)) in blocks.enumerate() {
                let lo = a + b * PASS_BLOCK;
                let hi = lo + g.len();
                if hi > filled {
                    let from = lo.max(filled);
                    q.fill_column_seq(j, from, &mut qj[from - lo..]);
                }
                add_pair_terms(arch, g, qi, qj, dai, daj);
                for (ck, qk) in [(bar[0], qi), (bar[1], &*qj)] {
                    if let Some(ck) = ck {
                        add_scaled(gb, qk, ck);
                    }
                }
                let (v, t) = arch.dispatch(MaxUp { y: &y[lo..hi], g, up: &up[lo..hi] });
                best = later_if(best, (v, shifted(t, lo)), |later, earlier| later >= earlier);
            }
            best
        };
        let h = half(len);
        let (g0, g1) = self.g[..len].split_at_mut(h);
        let (gb0, gb1) = self.g_bar[..len].split_at_mut(h);
        let ((qi0, qi1), (qj0, qj1)) = (qi.split_at(h), qj.split_at_mut(h));
        let (lo, hi) = rayon::join(|| pass(0, g0, gb0, qi0, qj0), || pass(h, g1, gb1, qi1, qj1));
        later_if(lo, hi, |later, earlier| later >= earlier)
    }

    fn max_iter(&self) -> u64 {
        self.opts.max_iter.unwrap_or_else(|| (100 * self.l as u64).max(10_000_000))
    }

    fn run(self) -> Solution {
        if self.trees.as_ref().is_some_and(|t| t.par) {
            // The tree steps split three times per iteration of about a hundred microseconds, and
            // wide columns computed on demand split their search and values: a worker that went to
            // sleep between the splits would have to be woken each time. Another worker polls for
            // the parts while they come instead, and blocks when they stop (`serve`).
            self.q.split_columns(true);
            let server = serve::Server::new();
            return rayon::scope(|s| {
                server.loop_on_this_thread();
                let _stop = server.stop_on_drop();
                self.run_loop(|| server.ensure(s))
            });
        }
        if self.par {
            // The tree updates or the dense passes are split across two threads (`wss_tree`,
            // `Solver::par`): the loop runs on a worker of the pool, so that each split hands half to
            // the other worker instead of waking this thread twice per iteration. (On a worker
            // already, the loop stays there.)
            return rayon::scope(move |_| self.run_loop(nothing));
        }
        self.run_loop(nothing)
    }

    /// The SMO iterations; `each_iteration` runs before every one (the compact steps' [`serve`]).
    fn run_loop(mut self, mut each_iteration: impl FnMut()) -> Solution {
        let max_iter = self.max_iter();
        let mut iter: u64 = 0;
        let mut counter = self.l.min(1000) + 1;
        let mut hit_cap = true;
        let mut ticker = Ticker::new(self.opts.report, self.l);
        while iter < max_iter {
            each_iteration();
            if iter > 0 && iter.is_multiple_of(face::FACE_EVERY) && self.face_step() {
                counter = 1;
            }
            if iter.is_multiple_of(1024) && ticker.active() {
                ticker.tick(iter, || self.violation());
            }
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
        let (rho, r) = if self.opts.nu { self.calculate_rho_nu() } else { (self.calculate_rho(), 0.0) };
        let objective = (0..self.l).map(|i| self.alpha[i] * (self.g[i] + self.p[i])).sum::<f64>() / 2.0;
        let mut alpha = vec![0.0; self.l];
        for (pos, &orig) in self.index.iter().enumerate() {
            alpha[orig] = self.alpha[pos];
        }
        Solution { alpha, rho, objective, iterations: iter, violation, hit_cap, r, plan: self.opts.plan }
    }

    /// A Newton step on the face of the free variables ([`face`]), on the full (unshrunk) problem;
    /// the statuses and `Ḡ` follow the variables that reached their upper bound. Whether the step is
    /// affordable is decided first, from `α` alone, so that a problem on which it is not (too many
    /// free variables for its cost or memory) keeps its shrunk problem and pays no gradient
    /// reconstruction. Returns whether the problem was unshrunk.
    fn face_step(&mut self) -> bool {
        self.next_up = None;
        if !face::affordable(&self.alpha, &self.c, self.opts.cache_bytes) {
            return false;
        }
        self.trees_stale();
        self.reconstruct_gradient();
        self.active = self.l;
        let Some(moved) = face::face_steps(
            &self.q,
            &self.y,
            &self.c,
            &mut self.alpha,
            &mut self.g,
            self.opts.nu,
            self.opts.cache_bytes,
        ) else {
            return true;
        };
        let mut col = Vec::new();
        for t in moved {
            // Every variable of the face was free before the step.
            self.update_status(t);
            if self.status[t] == UPPER {
                col.resize(self.l, 0.0);
                self.q.fill_column(t, 0, &mut col);
                add_scaled(&mut self.g_bar, &col, self.c[t]);
            }
        }
        true
    }

    /// The update of LIBSVM's `Solver::Solve` for the pair `(i, j)`.
    ///
    /// With sparse columns, `Q_ij` is read from the column of `i`, and the gradient update visits
    /// only the neighbours of `i` and `j` ([`SparseColumn::add_pair`]), each with the same sum as the
    /// dense update; entries outside both supports would add `0·Δα_i + 0·Δα_j`, which leaves them
    /// unchanged. So the iterates equal the dense columns' bit for bit.
    fn take_step(&mut self, i: usize, j: usize) {
        let len = self.active;
        let qij = if self.sparse {
            sparse_col(&self.q, i).at(j)
        } else {
            self.column(i, len, None);
            // Split passes compute the column of `j` inside the update below.
            if !self.splits(len) {
                self.column(j, len, Some(i));
            }
            self.cache.column(i, len)[j]
        };
        let (ci, cj) = (self.c[i], self.c[j]);
        let (old_ai, old_aj) = (self.alpha[i], self.alpha[j]);
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
        if self.sparse {
            let (qi, qj) = (sparse_col(&self.q, i), sparse_col(&self.q, j));
            wss_tree::add_pair_keyed(
                self.trees.as_mut(),
                &self.y,
                &self.up_pen,
                &self.low_pen,
                &qi,
                dai,
                &qj,
                daj,
                &mut self.g[..len],
            );
            let (ui, uj) = (self.status[i] == UPPER, self.status[j] == UPPER);
            self.update_status(i);
            self.update_status(j);
            for (k, was_upper) in [(i, ui), (j, uj)] {
                if self.opts.shrinking && was_upper != (self.status[k] == UPPER) {
                    let ck = if was_upper { -self.c[k] } else { self.c[k] };
                    sparse_col(&self.q, k).for_each(|p, v| self.g_bar[p] += ck * v);
                }
            }
            self.trees_after_step(i, j);
            return;
        }
        let (ui, uj) = (self.status[i] == UPPER, self.status[j] == UPPER);
        if self.splits(len) {
            self.update_status(i);
            self.update_status(j);
            // On the unshrunk problem the step's columns are whole, and the pass adds the changes of
            // `Ḡ` too; otherwise they are added below from full columns.
            let bar = self.bar_changes(i, j, [ui, uj]);
            let fused = len == self.l && bar.iter().any(Option::is_some);
            let (v, t) = self.update_filling(i, j, dai, daj, len, if fused { bar } else { [None, None] });
            self.next_up = Some((len, v, t));
            if fused {
                return;
            }
        } else {
            let (qi, qj) = (self.cache.column(i, len), self.cache.column(j, len));
            add_pair_terms(self.arch, &mut self.g[..len], qi, qj, dai, daj);
            self.update_status(i);
            self.update_status(j);
        }
        // Ḡ when a variable enters or leaves its upper bound (needs full columns).
        let l = self.l;
        for (k, was_upper) in [(i, ui), (j, uj)] {
            if was_upper != (self.status[k] == UPPER) {
                let keep = if k == i { Some(j) } else { Some(i) };
                self.column(k, l, keep);
                let qk = self.cache.column(k, l);
                let ck = if was_upper { -self.c[k] } else { self.c[k] };
                if self.splits(l) {
                    let h = half(l);
                    let (b0, b1) = self.g_bar.split_at_mut(h);
                    rayon::join(|| add_scaled(b0, &qk[..h], ck), || add_scaled(b1, &qk[h..], ck));
                } else {
                    add_scaled(&mut self.g_bar, qk, ck);
                }
            }
        }
    }

    /// The change of `Ḡ` a step makes for `i` and `j` (`±C_k` where `k` entered or left its upper
    /// bound, `None` otherwise); `was_upper` are their statuses before the step, the current ones after.
    fn bar_changes(&self, i: usize, j: usize, was_upper: [bool; 2]) -> [Option<f64>; 2] {
        let change = |k: usize, was: bool| {
            (was != (self.status[k] == UPPER)).then(|| if was { -self.c[k] } else { self.c[k] })
        };
        [change(i, was_upper[0]), change(j, was_upper[1])]
    }

    /// WSS 2 of Fan, Chen & Lin (2005); `None` when the violation is below `ε`.
    ///
    /// With `v_t = y_t G_t`: `i = argmax_{I_up} −v_t`; over `j ∈ I_low` with `b = G_max + v_j > 0` and
    /// `a = Q_ii + Q_jj − 2 y_i y_j Q_ij` (τ if `a ≤ 0`), `j = argmin −b²/a`; stop when
    /// `G_max + max_{I_low} v_j < ε`. Ties go to the last index, as in LIBSVM.
    ///
    /// On sparse columns with a constant diagonal, tournament trees give the same pair without the
    /// two `O(l)` scans ([`wss_tree`]).
    #[allow(clippy::needless_range_loop)] // lanes and positions index several arrays at once
    fn select_working_set(&mut self) -> Option<(usize, usize)> {
        if self.opts.nu {
            return self.select_working_set_nu();
        }
        if self.trees.is_some() {
            return self.select_working_set_tree();
        }
        let n = self.active;
        let (gmax, gmax_idx) = match self.next_up.take() {
            Some((at, v, t)) if at == n => (v, t),
            _ => self.max_up(n),
        };
        if gmax_idx == usize::MAX || gmax == f64::NEG_INFINITY {
            return None;
        }
        let i = gmax_idx;
        if self.sparse {
            // The column of `i` over the active set, dense for the vectorized pass (zeros elsewhere,
            // as a dense column has them).
            let col = sparse_col(&self.q, i);
            col.for_each(|p, v| {
                if p < n {
                    self.scratch[p] = v;
                }
            });
        } else if self.splits(n) {
            let (gmax2, gmin_idx) = self.gains_filling(i, gmax, n);
            if gmax + gmax2 < self.opts.eps || gmin_idx == usize::MAX {
                return None;
            }
            return Some((i, gmin_idx));
        } else {
            self.column(i, n, None);
        }
        let qi = if self.sparse { &self.scratch[..n] } else { self.cache.column(i, n) };
        let (gmax2, gmin_idx) = self.gains(n, qi, i, gmax);
        if self.sparse {
            sparse_col(&self.q, i).for_each(|p, _| {
                if p < n {
                    self.scratch[p] = 0.0;
                }
            });
        }
        if gmax + gmax2 < self.opts.eps || gmin_idx == usize::MAX {
            return None;
        }
        Some((i, gmin_idx))
    }

    /// `m(α) − M(α)` over the active set (the full set after reconstruction); for the ν variant the
    /// larger of the two sign groups' `m − M`.
    fn violation(&self) -> f64 {
        if self.opts.nu {
            let [g1, g2, g3, g4] = self.group_maxima();
            let gap =
                |a: f64, b: f64| if a == f64::NEG_INFINITY || b == f64::NEG_INFINITY { 0.0 } else { a + b };
            return gap(g1, g2).max(gap(g3, g4)).max(0.0);
        }
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
        self.next_up = None;
        if self.opts.nu {
            return self.do_shrinking_nu();
        }
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
        self.compact(|s, i| s.be_shrunk(i, gmax1, gmax2));
    }

    /// Moves the active positions for which `shrunk` holds behind the active set (LIBSVM's loop), and
    /// applies the swaps to the cache in one batch.
    fn compact(&mut self, shrunk: impl Fn(&Self, usize) -> bool) {
        let before = self.active;
        let mut i = 0;
        while i < self.active {
            if shrunk(self, i) {
                self.active -= 1;
                while self.active > i {
                    if !shrunk(self, self.active) {
                        self.swap_index(i, self.active);
                        break;
                    }
                    self.active -= 1;
                }
            }
            i += 1;
        }
        if self.active != before {
            self.trees_stale();
        }
        let pending = std::mem::take(&mut self.pending);
        self.cache.apply_swaps(&pending);
        self.pending = pending;
        self.pending.clear();
    }

    /// Swaps positions `i` and `j`; the cache follows in one batch at the end of the shrinking pass.
    fn swap_index(&mut self, i: usize, j: usize) {
        self.next_up = None;
        self.q.swap_index(i, j);
        if !self.sparse {
            self.pending.push((i, j));
        }
        self.up_pen.swap(i, j);
        self.low_pen.swap(i, j);
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
    #[allow(clippy::needless_range_loop)]
    fn reconstruct_gradient(&mut self) {
        self.next_up = None;
        let (l, n) = (self.l, self.active);
        if n == l {
            return;
        }
        self.trees_stale();
        for j in n..l {
            self.g[j] = self.g_bar[j] + self.p[j];
        }
        let nr_free = (0..n).filter(|&t| self.status[t] == FREE).count();
        if self.sparse {
            return self.reconstruct_sparse(nr_free * l > 2 * n * (l - n));
        }
        let by_inactive = nr_free * l > 2 * n * (l - n);
        // Over the free columns each half would compute whole columns where ranges do not split evenly.
        if self.splits(l - n) && (by_inactive || self.q.splits_evenly()) {
            return self.reconstruct_split(by_inactive);
        }
        if by_inactive {
            for i in n..l {
                self.column(i, n, None);
                self.g[i] += free_sum(&self.status[..n], &self.alpha, self.cache.column(i, n));
            }
        } else {
            for i in 0..n {
                if self.status[i] == FREE {
                    self.column(i, l, None);
                    add_scaled(&mut self.g[n..l], &self.cache.column(i, l)[n..l], self.alpha[i]);
                }
            }
        }
    }

    /// [`Solver::reconstruct_gradient`] with the inactive positions split across two threads
    /// ([`Solver::par`]), by the same branch and with the same sums as the serial loops: each `G_i` of
    /// an inactive `i` is the serial sum over the free columns in position order. Columns the cache
    /// holds are read from it; the others are computed on the thread that needs them (only the range
    /// it owns, for the free columns) and not cached.
    fn reconstruct_split(&mut self, by_inactive: bool) {
        let (l, n) = (self.l, self.active);
        let (q, cache, status, alpha) = (&self.q, &self.cache, &self.status, &self.alpha);
        let h = half(l - n);
        let (g0, g1) = self.g[n..l].split_at_mut(h);
        if by_inactive {
            let sums = |from: usize, g: &mut [f64]| {
                let mut scratch = Vec::new();
                for (k, gi) in g.iter_mut().enumerate() {
                    let i = from + k;
                    let qi = match cache.cached(i, n) {
                        Some(col) => col,
                        None => {
                            scratch.resize(n, 0.0);
                            q.fill_column_seq(i, 0, &mut scratch);
                            &scratch[..]
                        }
                    };
                    *gi += free_sum(&status[..n], alpha, qi);
                }
            };
            rayon::join(|| sums(n, g0), || sums(n + h, g1));
        } else {
            let adds = |from: usize, g: &mut [f64]| {
                let mut scratch = vec![0.0; g.len()];
                for i in (0..n).filter(|&i| status[i] == FREE) {
                    let qi = match cache.cached(i, from + g.len()) {
                        Some(col) => &col[from..],
                        None => {
                            q.fill_column_seq(i, from, &mut scratch);
                            &scratch[..]
                        }
                    };
                    add_scaled(g, qi, alpha[i]);
                }
            };
            rayon::join(|| adds(n, g0), || adds(n + h, g1));
        }
    }

    /// [`Solver::reconstruct_gradient`] on sparse columns, by the same branch as the dense one
    /// (`by_inactive`) and with the same sums: over the inactive columns, the free neighbours are
    /// added in position order (the order of the dense loop, whose other terms are zero); over the
    /// free columns, each inactive neighbour gets one product, the free columns in position order.
    fn reconstruct_sparse(&mut self, by_inactive: bool) {
        let (l, n) = (self.l, self.active);
        if by_inactive {
            let mut terms: Vec<(usize, f64)> = Vec::new();
            for i in n..l {
                terms.clear();
                sparse_col(&self.q, i).for_each(|p, v| {
                    if p < n && self.status[p] == FREE {
                        terms.push((p, v));
                    }
                });
                terms.sort_unstable_by_key(|t| t.0);
                let mut acc = 0.0;
                for &(p, v) in &terms {
                    acc += self.alpha[p] * v;
                }
                self.g[i] += acc;
            }
        } else {
            for i in 0..n {
                if self.status[i] == FREE {
                    let a = self.alpha[i];
                    sparse_col(&self.q, i).for_each(|p, v| {
                        if p >= n {
                            self.g[p] += a * v;
                        }
                    });
                }
            }
        }
    }

    /// `ρ` of the active variables ([`rho_of`]).
    fn calculate_rho(&self) -> f64 {
        let n = self.active;
        rho_of(&self.y[..n], &self.g[..n], &self.alpha[..n], &self.c[..n])
    }
}

/// The per-iteration hook of a loop without a serving worker (one function, so that the loop is
/// compiled once for both of its callers).
fn nothing() {}

/// Column `j` of a sparse `Q` (the solver's `sparse` mode is only set when the source has them).
#[inline]
fn sparse_col<Q: QMatrix>(q: &Q, j: usize) -> SparseColumn<'_> {
    q.sparse_column(j).expect("sparse mode is chosen only for a sparse column source")
}

/// `ρ` from the free variables (`0 < α_t < C_t`), or the midpoint of the feasible interval when none is
/// free (LIBSVM's `calculate_rho`).
fn rho_of(y: &[f64], g: &[f64], alpha: &[f64], c: &[f64]) -> f64 {
    let (mut ub, mut lb) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut nr_free, mut sum_free) = (0usize, 0.0);
    for t in 0..y.len() {
        let yg = y[t] * g[t];
        if alpha[t] >= c[t] {
            if y[t] < 0.0 {
                ub = ub.min(yg);
            } else {
                lb = lb.max(yg);
            }
        } else if alpha[t] <= 0.0 {
            if y[t] > 0.0 {
                ub = ub.min(yg);
            } else {
                lb = lb.max(yg);
            }
        } else {
            nr_free += 1;
            sum_free += yg;
        }
    }
    if nr_free > 0 { sum_free / nr_free as f64 } else { (ub + lb) / 2.0 }
}
