//! Tournament trees for the working-set selection on sparse columns (compactly supported kernels).
//!
//! WSS 2 of Fan, Chen & Lin (2005) scans the active set twice per iteration: `i = argmax_{I_up} −y_t G_t`,
//! then `j = argmin_{I_low} −b_t²/a_t` with `b_t = G_max + y_t G_t` and
//! `a_t = Q_ii + Q_tt − 2 y_i y_t Q_it`. With a compact kernel one SMO step changes `G` only at the
//! neighbours of `i` and `j`, so the scan's `O(l)` dominates the iteration (94 % of the time on
//! green-red n = 200,000). This module keeps the two extremes in max-trees instead:
//!
//! - the **up tree** holds `u_t − y_t G_t` (`u_t = 0` on `I_up`, `−∞` otherwise, and `−∞` beyond the
//!   active set), so `i` is its root;
//! - the **low tree** holds `y_t G_t + l_t` (`l_t = 0` on `I_low`), so `max_{I_low} y_t G_t` (the
//!   stopping test's second term) is its root.
//!
//! For `j`, the neighbours of `i` (the nonzeros of its column) are evaluated exactly. Every other `t`
//! has `Q_it = 0`, so `a_t = Q_ii + Q_tt` is one constant `A` when the diagonal is constant (a radial
//! kernel: `Q_tt = k(0)`), and `−b_t²/A` is a non-increasing function of `y_t G_t` (each rounded
//! operation is monotone). The best non-neighbour is therefore found from the low tree with the
//! neighbours masked to `−∞`: its root gives the least value `o*`, and the last position attaining
//! `o*` is the rightmost leaf whose key maps to `o* ` — found in one descent, since the keys that map
//! to `o*` are an upper set and a subtree holds one exactly when its maximum does.
//!
//! The masking is skipped when it cannot change the answer: the same descent on the unmasked tree
//! gives the least value `o_all` over all positions and the last position `t` attaining it. When `t`
//! is not a neighbour of `i`, the non-neighbours attain `o_all` (at `t`), which no position beats, and
//! `t` is the last of them to attain it — the masked tree's answer. Only when `t` is a neighbour are
//! the neighbours masked (about 1 selection in 20 on the tests' medium problem).
//!
//! **Ties** go where the scan sends them: both trees prefer the right child on equal keys (the last
//! index, as the scan's `>=`), and `j` is the last position of least `−b²/a` over neighbours and
//! non-neighbours together (the scan's `<=`). So the selected pair equals the scan's bit for bit, and
//! so do the iterates.
//!
//! The keys a step changes (the neighbours of `i` and `j`; in the cells' order a few runs of
//! consecutive positions) are written by the gradient update's pass, each right after its `G_t`
//! ([`add_pair_keyed`]), and those of `i` and `j` after their statuses; then each written leaf of
//! [`LEAF`] keys is rescanned and the ancestors recomputed level by level, a node passing the change
//! up only when its winner (key and position) changed: keys in one leaf share its scan, and written
//! leaves share their parents' work.
//!
//! **Two threads.** On wide columns (the plan's [`Tuning::tree_split_min_neighbours`](crate::svm::plan::Tuning)) each iteration's work is split across two
//! workers of the pool: the selection's scan of the neighbours of `i` (two parts of the column, joined
//! by the scan's own rule: least gain, then the last position), the gradient pass (two ranges of
//! positions on either side of a leaf boundary, so each side writes its own `G` entries, keys and
//! leaves), the two trees' settling (the up tree's side then computes the next `i`'s column), and each
//! column computed on demand (its neighbour search and values in two parts). Every part computes what
//! the serial pass computes, so the pairs, the iterates and the model are the same bit for bit. The
//! second worker polls for the parts while they come instead of sleeping between them (`serve.rs`):
//! at about a hundred microseconds per iteration, a wake-up per split cost more than the split saved.
//! It blocks when 100 µs pass without a part, so that it does not hold a core the loop's thread has
//! lost to other processes.
//!
//! **Shrinking.** A solver with trees does not shrink (`Solver::solve`). Shrinking pays off where an
//! iteration costs the active length (the scans); here it costs the neighbours of the pair whatever
//! the active length. Its swaps would also scatter the cells' order, so that a column's neighbours no
//! longer share leaves, and each unshrinking reconstructs the gradient. Measured on green-red
//! n = 1,000,000 with `cs-gaussian:sigma=0.6,c=0.1,nu=3`, C = 1 (the same iterations to 0.04 %):
//! 235 s with shrinking, 144 s without.

use super::{Solver, TAU, gain, sparse_col};
use crate::svm::qmatrix::QMatrix;
use kern_sparse::kmatrix::SparseColumn;

#[cfg(test)]
thread_local! {
    /// Selections made by the trees on this thread (tests check that a forced tree run used them).
    pub(crate) static TREE_SELECTIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
thread_local! {
    /// Tree selections on this thread that masked the neighbours of `i` (the others found the best
    /// non-neighbour on the unmasked tree): tests check that both branches ran.
    pub(crate) static TREE_MASKINGS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The up and low trees of a solver, with what they need besides its state.
pub(super) struct Trees {
    up: MaxTree,
    low: MaxTree,
    /// The keys no longer follow the state (shrinking, unshrinking, a face step): rebuild before use.
    dirty: bool,
    /// The `i` whose neighbours are masked in the low tree since the last selection (restored by the
    /// step's gradient pass, or before the next selection).
    masked: Option<usize>,
    /// The constant diagonal `Q_tt`.
    k0: f64,
    /// Split each iteration's work across two threads of the rayon pool (the plan's
    /// [`Threading::Split`](crate::svm::plan::Threading)); the solver then runs its loop on a worker
    /// of the pool, with another worker serving the parts.
    pub(super) par: bool,
}

impl Trees {
    /// Trees for a solver on `q` with diagonal `qd`, split across two threads when `par`: `None`
    /// unless `q` has sparse columns and the diagonal is constant (bitwise), the conditions under
    /// which the trees give the scan's pair (the plan chose them, [`crate::svm::plan::solve`]).
    pub(super) fn for_problem<Q: QMatrix>(q: &Q, qd: &[f64], par: bool) -> Option<Trees> {
        let l = q.l();
        q.sparse_nnz()?;
        let k0 = *qd.first()?;
        if l > u32::MAX as usize || qd.iter().any(|d| d.to_bits() != k0.to_bits()) {
            return None;
        }
        Some(Trees { up: MaxTree::new(l), low: MaxTree::new(l), dirty: true, masked: None, k0, par })
    }
}

/// `G += Q_i Δα_i + Q_j Δα_j` at the neighbours of `i` and `j` ([`SparseColumn::add_pair`], over
/// `g`, the active length) and, when `trees` follow the state, each updated position's keys
/// (`u_t − y_t G_t`, `y_t G_t + l_t`, as [`keys`]) written in the same pass, its `G_t` at hand. These
/// are every key the step changes but those of `i` and `j`, whose statuses (`u`, `l`) change after
/// the update: [`Solver::trees_after_step`] writes them and settles. The masked neighbours of `i` are
/// among the updated positions, so the pass also restores them.
#[allow(clippy::too_many_arguments)] // the solver's fields the pass reads, borrowed apart from the columns
pub(super) fn add_pair_keyed(
    trees: Option<&mut Trees>,
    y: &[f64],
    up_pen: &[f64],
    low_pen: &[f64],
    qi: &SparseColumn<'_>,
    dai: f64,
    qj: &SparseColumn<'_>,
    daj: f64,
    g: &mut [f64],
) {
    let Some(tr) = trees.filter(|tr| !tr.dirty) else {
        return SparseColumn::add_pair(qi, dai, qj, daj, g);
    };
    // One piece of the pass: the positions of `g` (from `base`) and of the two writers.
    let pass = |a: &SparseColumn<'_>,
                b: &SparseColumn<'_>,
                g: &mut [f64],
                base,
                mut up: KeyWriter<'_>,
                mut low: KeyWriter<'_>| {
        SparseColumn::add_pair_then_from(a, dai, b, daj, g, base, |t, gt| {
            let (ku, kl) = keys_of(y, up_pen, low_pen, t, gt);
            up.write(t, ku);
            low.write(t, kl);
        });
    };
    if tr.par
        && let Some(m) = split_position(qi, qj, g.len())
        && let (Some((a0, a1)), Some((b0, b1))) = (qi.split_at_position(m), qj.split_at_position(m))
    {
        // Disjoint positions and leaves on each side of `m`: the same sums and keys as one pass.
        let (g0, g1) = g.split_at_mut(m);
        let (u0, u1) = tr.up.writers(m);
        let (l0, l1) = tr.low.writers(m);
        rayon::join(|| pass(&a0, &b0, g0, 0, u0, l0), || pass(&a1, &b1, g1, m, u1, l1));
    } else {
        pass(qi, qj, g, 0, tr.up.writer(), tr.low.writer());
    }
}

/// Where the gradient pass of a step on the columns `a` and `b` splits across two threads: between
/// the nonzeros where their [`SparseColumn::parts`] split, rounded down to a leaf's first position
/// (so that each side writes its own leaves) and within the active length `len`; `None` when the
/// lower side would be empty.
fn split_position(a: &SparseColumn<'_>, b: &SparseColumn<'_>, len: usize) -> Option<usize> {
    let mid = (a.part_position()? + b.part_position()?) / 2;
    let m = mid.min(len) / LEAF * LEAF;
    (m > 0).then_some(m)
}

/// The keys of position `t` below the active length `n`: `u_t − y_t G_t` (up tree) and
/// `y_t G_t + l_t` (low tree), the operands and operations of the scans; `−∞` at and beyond `n`.
#[inline]
fn keys(y: &[f64], g: &[f64], up: &[f64], low: &[f64], n: usize, t: usize) -> (f64, f64) {
    if t < n { keys_of(y, up, low, t, g[t]) } else { (f64::NEG_INFINITY, f64::NEG_INFINITY) }
}

/// The keys of an active position `t` whose gradient entry is `gt` ([`keys`]).
#[inline]
fn keys_of(y: &[f64], up: &[f64], low: &[f64], t: usize, gt: f64) -> (f64, f64) {
    (up[t] - y[t] * gt, y[t] * gt + low[t])
}

impl<Q: QMatrix> Solver<Q> {
    /// The state changed beyond one step's neighbours: rebuild the trees before the next selection.
    pub(super) fn trees_stale(&mut self) {
        if let Some(tr) = &mut self.trees {
            tr.dirty = true;
        }
    }

    /// After the step on `(i, j)` and its gradient update by [`add_pair_keyed`], which wrote the keys
    /// of the neighbours of `i` and `j` (the masked neighbours of `i` among them): the keys of `i` and
    /// `j` are written again (their statuses changed after the update), and the written leaves
    /// settle. With [`Trees::par`] the two trees settle on two threads (disjoint data: the trees do
    /// not depend on the split), and the up tree's side then computes the column of its new root —
    /// the next selection's `i` — while the low tree settles.
    pub(super) fn trees_after_step(&mut self, i: usize, j: usize) {
        let Some(tr) = &mut self.trees else { return };
        tr.masked = None;
        if tr.dirty {
            return;
        }
        let (y, g, up_pen, low_pen, n) = (&self.y, &self.g, &self.up_pen, &self.low_pen, self.active);
        let q = &self.q;
        let Trees { up, low, par, .. } = tr;
        for t in [i, j] {
            if t < n {
                let (ku, kl) = keys(y, g, up_pen, low_pen, n, t);
                up.write(t, ku);
                low.write(t, kl);
            }
        }
        if *par {
            rayon::join(
                || {
                    up.settle();
                    let (v, next) = up.max();
                    if v > f64::NEG_INFINITY {
                        // Computed (and cached) now; the selection finds it in the cache.
                        drop(sparse_col(q, next));
                    }
                },
                || low.settle(),
            );
        } else {
            up.settle();
            low.settle();
        }
    }

    /// WSS 2 ([`Solver::select_working_set`]) from the trees: the same pair as the scans (see the
    /// module documentation), in `O(nnz_i)` tree updates instead of `O(l)`.
    pub(super) fn select_working_set_tree(&mut self) -> Option<(usize, usize)> {
        #[cfg(test)]
        TREE_SELECTIONS.with(|c| c.set(c.get() + 1));
        let n = self.active;
        let tr = self.trees.as_mut().expect("the tree selection is chosen only with trees");
        let (y, g, up, low, qd) = (&self.y, &self.g, &self.up_pen, &self.low_pen, &self.qd);
        if let Some(m) = tr.masked.take()
            && !tr.dirty
        {
            sparse_col(&self.q, m).for_each(|p, _| {
                if p < n {
                    tr.low.write(p, keys(y, g, up, low, n, p).1);
                }
            });
            tr.low.settle();
        }
        if tr.dirty {
            tr.up.rebuild(n, |t| keys(y, g, up, low, n, t).0);
            tr.low.rebuild(n, |t| keys(y, g, up, low, n, t).1);
            tr.dirty = false;
        }
        let (gmax, i) = tr.up.max();
        if gmax == f64::NEG_INFINITY {
            return None;
        }
        let gmax2 = tr.low.max().0;
        let (yi, qdi) = (y[i], qd[i]);
        // Every position outside the column of `i` has `Q_it = 0`: `a = Q_ii + k(0)` (the scan's
        // `− 2 y_i y_t · 0` leaves the nonzero sum unchanged), and the gain is a non-increasing
        // function of the key.
        let a = qdi + tr.k0;
        let a = if a > 0.0 { a } else { TAU };
        let gain_of = |v: f64| {
            let b = gmax + v;
            if b > 0.0 && v > f64::NEG_INFINITY { -(b * b) / a } else { f64::INFINITY }
        };
        // The best position of the whole low tree, as if no position were a neighbour: when it is
        // not a neighbour of `i`, it is also the best non-neighbour (see the module documentation),
        // and the neighbours need no masking.
        // The least gain over a tree's keys and the last position attaining it (`None`: no position
        // has a finite gain).
        let least = |tree: &MaxTree| {
            let best = gain_of(tree.max().0);
            let t = (best < f64::INFINITY)
                .then(|| tree.last_where(|v| gain_of(v) <= best).expect("the root attains the least gain"));
            (best, t)
        };
        let (best_all, t_all) = least(&tr.low);
        // The neighbours of `i`, exactly as the scan evaluates them.
        let (q, par, k0) = (&self.q, tr.par, tr.k0);
        let col = sparse_col(q, i);
        let t_probe = t_all.unwrap_or(usize::MAX);
        // The least gain over some neighbours and the largest position attaining it (`usize::MAX`:
        // none finite), and whether `t_probe` is among them. The answer does not depend on the order
        // of the neighbours, so two parts of the column give it too, joined by the same rule.
        let scan = |c: &SparseColumn<'_>| {
            let (mut bo, mut bi, mut t_is_neighbour) = (f64::INFINITY, usize::MAX, false);
            c.for_each(|p, v| {
                t_is_neighbour |= p == t_probe;
                if p < n {
                    // `k0` is every `Q_tt`, bit for bit (`Trees::for_problem`): one load fewer.
                    let (_, o) = gain(gmax, qdi, yi, y[p], g[p], k0, low[p], v);
                    if o < f64::INFINITY && (o < bo || (o == bo && p > bi)) {
                        bo = o;
                        bi = p;
                    }
                }
            });
            (bo, bi, t_is_neighbour)
        };
        let (mut bo, mut bi, t_is_neighbour) = if par {
            let (c0, c1) = col.parts();
            let ((o0, p0, t0), (o1, p1, t1)) = rayon::join(|| scan(&c0), || scan(&c1));
            let second = p1 != usize::MAX && (o1 < o0 || (o1 == o0 && (p0 == usize::MAX || p1 > p0)));
            let (o, p) = if second { (o1, p1) } else { (o0, p0) };
            (o, p, t0 || t1)
        } else {
            scan(&col)
        };
        let (best, t) = if t_is_neighbour {
            // The neighbours masked out of the low tree; with [`Trees::par`], the column of the best
            // neighbour (`j` whenever `j` is a neighbour) is computed and cached on the other thread
            // meanwhile.
            let low_tree = &mut tr.low;
            let mut mask = || {
                col.for_each(|p, _| {
                    if p < n {
                        low_tree.write(p, f64::NEG_INFINITY);
                    }
                });
                low_tree.settle();
            };
            if par && bi != usize::MAX {
                rayon::join(mask, || drop(sparse_col(q, bi)));
            } else {
                mask();
            }
            tr.masked = Some(i);
            #[cfg(test)]
            TREE_MASKINGS.with(|c| c.set(c.get() + 1));
            least(&tr.low)
        } else {
            (best_all, t_all)
        };
        if let Some(t) = t
            && (best < bo || (best == bo && (bi == usize::MAX || t > bi)))
        {
            bo = best;
            bi = t;
        }
        debug_assert!(bi == usize::MAX || bo < f64::INFINITY);
        if gmax + gmax2 < self.opts.eps || bi == usize::MAX {
            return None;
        }
        Some((i, bi))
    }
}

/// Keys per leaf of a [`MaxTree`]: the keys of a leaf are scanned, the tree holds one node per leaf.
///
/// A step writes the keys of a few thousand neighbours, which lie in a few runs of consecutive
/// positions (the cells' order). With one key per leaf each written key costs a node update and a
/// walk of dependent loads up the tree; with 32 keys per leaf the written keys of a run share their
/// leaves, and a leaf is brought up to date by one streamed scan of 32 keys (four cache lines)
/// instead of five levels of nodes.
pub(super) const LEAF: usize = 32;

/// A max-tree over `f64` keys with the position of the maximum; equal keys go to the larger position.
///
/// The keys are stored in leaves of [`LEAF`] consecutive positions; each leaf has a node holding its
/// winner (found by a scan), and the nodes form a binary tree whose inner nodes are the winners of
/// their children. Keys change one at a time (`MaxTree::set`, the tests' reference) or in batches:
/// [`MaxTree::write`] the keys, then [`MaxTree::settle`] recomputes the written leaves' nodes and
/// their ancestors level by level. The tree is a function of its keys (every node is the winner of
/// its leaf or its children), so both give the same tree, bit for bit, and the winner of every subtree
/// is the last position among the largest keys (the scan's `>=`) whatever the leaf width.
pub(super) struct MaxTree {
    /// The keys, `leaves · LEAF` of them (padding keys hold `−∞`).
    keys: Vec<f64>,
    /// Leaves: a power of two ≥ the number of keys over [`LEAF`].
    leaves: usize,
    /// The nodes by sibling pairs: node `k` (`1` is the root, the node of leaf `b` is `leaves + b`) is
    /// `pairs[k / 2].0[k % 2]`, so node `k`'s two children are `pairs[k]` — one aligned 32-byte
    /// block, never split across cache lines, read in one load when the winner is recomputed.
    pairs: Vec<Pair>,
    /// Leaves written since the last [`MaxTree::settle`] (repeats allowed), through the tree or the
    /// lower of its [`MaxTree::writers`].
    pending: Vec<u32>,
    /// Leaves written through the upper of the [`MaxTree::writers`].
    pending_hi: Vec<u32>,
    /// The next level's nodes during [`MaxTree::settle`] (kept for its capacity).
    next: Vec<u32>,
}

/// Writes the keys of one range of a [`MaxTree`]'s positions ([`MaxTree::writers`]).
pub(super) struct KeyWriter<'t> {
    /// The keys of positions `base..base + keys.len()`.
    keys: &'t mut [f64],
    base: usize,
    /// Where the written leaves are recorded for [`MaxTree::settle`].
    pending: &'t mut Vec<u32>,
}

impl KeyWriter<'_> {
    /// Sets key `p` (a position of the writer's range) to `v` without updating the nodes:
    /// [`MaxTree::settle`] does, for every key written since the last one, before the tree is read
    /// again.
    #[inline]
    pub(super) fn write(&mut self, p: usize, v: f64) {
        let key = &mut self.keys[p - self.base];
        // Whether the key changes follows the statuses of the positions, which follow no pattern: the
        // store is unconditional, and the one branch (a leaf to record) is taken about once a leaf.
        let changed = key.to_bits() != v.to_bits();
        *key = v;
        // Consecutive keys share leaves: a repeat right behind is dropped here, a repeat further back
        // costs one leaf scan in `settle` (its node is then already up to date).
        let b = (p / LEAF) as u32;
        if changed & (self.pending.last() != Some(&b)) {
            self.pending.push(b);
        }
    }
}

/// A node: the maximum of its subtree and the position attaining it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node {
    v: f64,
    at: u32,
}

impl Node {
    /// The same key bits and position (`−0.0` and `0.0` differ, as the scan's stored values may).
    #[inline]
    fn same(self, o: Node) -> bool {
        self.v.to_bits() == o.v.to_bits() && self.at == o.at
    }
}

/// Two sibling nodes.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct Pair([Node; 2]);

impl MaxTree {
    /// A tree of `l` keys, all `−∞`.
    pub(super) fn new(l: usize) -> Self {
        let leaves = l.max(1).div_ceil(LEAF).next_power_of_two();
        let blank = Node { v: f64::NEG_INFINITY, at: 0 };
        let mut t = MaxTree {
            keys: vec![f64::NEG_INFINITY; leaves * LEAF],
            leaves,
            pairs: vec![Pair([blank; 2]); leaves],
            pending: Vec::new(),
            pending_hi: Vec::new(),
            next: Vec::new(),
        };
        t.pull_all();
        t
    }

    #[inline]
    fn node(&self, k: usize) -> Node {
        self.pairs[k >> 1].0[k & 1]
    }

    #[inline]
    fn node_mut(&mut self, k: usize) -> &mut Node {
        &mut self.pairs[k >> 1].0[k & 1]
    }

    /// The winner of node `k`'s children: the right one on equal keys.
    #[inline]
    fn winner(&self, k: usize) -> Node {
        let [l, r] = self.pairs[k].0;
        if r.v >= l.v { r } else { l }
    }

    /// The winner of leaf `b`'s keys: the last position among the largest (the scan's `>=`). The
    /// maximum is taken in four independent lanes (vectorizable), then the last key `>=` it found from
    /// the end; a leaf of `−∞` keys gives its last position, as a tree of single keys does.
    #[inline]
    fn leaf_winner(&self, b: usize) -> Node {
        let ks = &self.keys[b * LEAF..(b + 1) * LEAF];
        let mut m = [f64::NEG_INFINITY; 4];
        for c in ks.chunks_exact(4) {
            for t in 0..4 {
                m[t] = if c[t] > m[t] { c[t] } else { m[t] };
            }
        }
        let m01 = if m[1] > m[0] { m[1] } else { m[0] };
        let m23 = if m[3] > m[2] { m[3] } else { m[2] };
        let m = if m23 > m01 { m23 } else { m01 };
        let p = ks.iter().rposition(|&v| v >= m).unwrap_or(LEAF - 1);
        Node { v: ks[p], at: (b * LEAF + p) as u32 }
    }

    /// Recomputes every node from the keys.
    fn pull_all(&mut self) {
        for b in 0..self.leaves {
            let w = self.leaf_winner(b);
            *self.node_mut(self.leaves + b) = w;
        }
        for k in (1..self.leaves).rev() {
            *self.node_mut(k) = self.winner(k);
        }
    }

    /// Sets every key from `key(p)` for `p < l` (the others `−∞`) in `O(l)`.
    pub(super) fn rebuild(&mut self, l: usize, key: impl Fn(usize) -> f64) {
        self.pending.clear();
        for (p, k) in self.keys.iter_mut().enumerate() {
            *k = if p < l { key(p) } else { f64::NEG_INFINITY };
        }
        self.pull_all();
    }

    /// Sets key `p` to `v` without updating the nodes: [`MaxTree::settle`] does, for every key
    /// written since the last one, before the tree is read again.
    #[inline]
    pub(super) fn write(&mut self, p: usize, v: f64) {
        self.writer().write(p, v);
    }

    /// A writer of every key ([`KeyWriter::write`] is [`MaxTree::write`]).
    #[inline]
    pub(super) fn writer(&mut self) -> KeyWriter<'_> {
        KeyWriter { keys: &mut self.keys, base: 0, pending: &mut self.pending }
    }

    /// Writers of the keys below position `m` (a multiple of [`LEAF`]) and of those from `m` on: the
    /// two write disjoint keys and leaves, so they can run on two threads; [`MaxTree::settle`] then
    /// brings the nodes of both up to date.
    pub(super) fn writers(&mut self, m: usize) -> (KeyWriter<'_>, KeyWriter<'_>) {
        debug_assert!(m.is_multiple_of(LEAF) && m <= self.keys.len());
        let (lo, hi) = self.keys.split_at_mut(m);
        (
            KeyWriter { keys: lo, base: 0, pending: &mut self.pending },
            KeyWriter { keys: hi, base: m, pending: &mut self.pending_hi },
        )
    }

    /// Brings the nodes of the keys written since the last call up to date: each written leaf's node
    /// from a scan of its keys, then the inner nodes one level at a time — a node is recomputed once
    /// its children are final, and only a node whose winner (key bits and position) changed passes
    /// the change to its parent. These are the nodes a `MaxTree::set` per key would visit, each
    /// shared node visited once, and no walk waiting on the one before it.
    pub(super) fn settle(&mut self) {
        let mut cur = std::mem::take(&mut self.pending);
        cur.extend_from_slice(&self.pending_hi);
        self.pending_hi.clear();
        let mut next = std::mem::take(&mut self.next);
        next.clear();
        for &b in &cur {
            let b = b as usize;
            let w = self.leaf_winner(b);
            self.put(self.leaves + b, w, &mut next);
        }
        std::mem::swap(&mut cur, &mut next);
        while !cur.is_empty() {
            next.clear();
            for &k in &cur {
                let k = k as usize;
                let w = self.winner(k);
                self.put(k, w, &mut next);
            }
            std::mem::swap(&mut cur, &mut next);
        }
        self.pending = cur;
        self.next = next;
    }

    /// Stores `w` as node `k`'s winner; when it changed, queues the parent in `next` (a repeat right
    /// behind is dropped: siblings are queued one after the other).
    #[inline]
    fn put(&mut self, k: usize, w: Node, next: &mut Vec<u32>) {
        let node = self.node_mut(k);
        if w.same(*node) {
            return;
        }
        *node = w;
        let parent = (k >> 1) as u32;
        if k > 1 && next.last() != Some(&parent) {
            next.push(parent);
        }
    }

    /// Sets key `p` to `v`, updating the leaf's node and its ancestors until one's winner is
    /// unchanged (the reference of the batched [`MaxTree::write`] / [`MaxTree::settle`]).
    #[cfg(test)]
    pub(super) fn set(&mut self, p: usize, v: f64) {
        if self.keys[p].to_bits() == v.to_bits() {
            return;
        }
        self.keys[p] = v;
        let mut k = self.leaves + p / LEAF;
        let w = self.leaf_winner(p / LEAF);
        if w.same(self.node(k)) {
            return;
        }
        *self.node_mut(k) = w;
        while k > 1 {
            k >>= 1;
            let w = self.winner(k);
            if w.same(self.node(k)) {
                break;
            }
            *self.node_mut(k) = w;
        }
    }

    /// The key of position `p`.
    #[cfg(test)]
    pub(super) fn get(&self, p: usize) -> f64 {
        self.keys[p]
    }

    /// Every key and node (tests compare whole trees).
    #[cfg(test)]
    fn nodes(&self) -> Vec<(u64, u32)> {
        let keys = self.keys.iter().map(|k| (k.to_bits(), u32::MAX));
        keys.chain((1..2 * self.leaves).map(|k| (self.node(k).v.to_bits(), self.node(k).at))).collect()
    }

    /// The largest key and its position (the last position among equal keys).
    #[inline]
    pub(super) fn max(&self) -> (f64, usize) {
        debug_assert!(self.pending.is_empty() && self.pending_hi.is_empty(), "a written key is not settled");
        let root = self.node(1);
        (root.v, root.at as usize)
    }

    /// The last position whose key satisfies `pred`, for a `pred` that holds on an upper set of keys
    /// (if it holds for `v`, it holds for every `w ≥ v`); `None` when no key does.
    ///
    /// A subtree holds such a key exactly when its maximum satisfies `pred`, so one descent that
    /// prefers the right child finds its leaf in `log(l/LEAF)` steps, and a scan of the leaf from the
    /// end finds the position.
    pub(super) fn last_where(&self, pred: impl Fn(f64) -> bool) -> Option<usize> {
        debug_assert!(self.pending.is_empty() && self.pending_hi.is_empty(), "a written key is not settled");
        if !pred(self.node(1).v) {
            return None;
        }
        let mut k = 1;
        while k < self.leaves {
            k = if pred(self.node(2 * k + 1).v) { 2 * k + 1 } else { 2 * k };
        }
        let b = k - self.leaves;
        let ks = &self.keys[b * LEAF..(b + 1) * LEAF];
        ks.iter().rposition(|&v| pred(v)).map(|p| b * LEAF + p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The scan's answer: the largest key, the last position attaining it.
    fn scan_max(keys: &[f64]) -> (f64, Option<usize>) {
        let (mut bv, mut bi) = (f64::NEG_INFINITY, None);
        for (p, &v) in keys.iter().enumerate() {
            if v >= bv && v > f64::NEG_INFINITY {
                bv = v;
                bi = Some(p);
            }
        }
        (bv, bi)
    }

    proptest! {
        #![proptest_config(kern_testkit::proptest_config(64))]

        /// Batches of writes (runs of consecutive positions, as a column's neighbours in the cells'
        /// order, and single positions; keys from a few values and `−∞`, so ties are common; a
        /// position may be written twice in a batch, or back to its old key) settled at once give the
        /// tree that one `set` per write gives: every node's key bits and position.
        #[test]
        fn batched_writes_give_the_tree_of_single_sets(l in 1usize..300,
                                                       batches in prop::collection::vec(
                                                           prop::collection::vec((0usize..300, 1usize..40, 0u8..6), 0..12), 1..10)) {
            let key = |c: u8| if c == 0 { f64::NEG_INFINITY } else { f64::from(c) - 3.0 };
            let (mut one, mut batched) = (MaxTree::new(l), MaxTree::new(l));
            for batch in &batches {
                for &(start, len, c) in batch {
                    for o in 0..len {
                        let (p, v) = ((start + o) % l, key((c + o as u8 / 3) % 6));
                        one.set(p, v);
                        batched.write(p, v);
                    }
                }
                batched.settle();
                prop_assert_eq!(batched.nodes(), one.nodes());
                prop_assert_eq!(batched.max().0.to_bits(), one.max().0.to_bits());
                prop_assert_eq!(batched.max().1, one.max().1);
            }
        }

        /// Batches written through the two writers of a split at a leaf boundary `m` (each position
        /// through the writer of its side, the two sides interleaved) and settled at once give the
        /// tree of one `set` per write.
        #[test]
        fn writes_through_two_writers_give_the_tree_of_single_sets(l in 1usize..300, m in 0usize..12,
                                                                   batches in prop::collection::vec(
                                                                       prop::collection::vec((0usize..300, 1usize..40, 0u8..6), 0..12), 1..6)) {
            let key = |c: u8| if c == 0 { f64::NEG_INFINITY } else { f64::from(c) - 3.0 };
            let (mut one, mut split) = (MaxTree::new(l), MaxTree::new(l));
            let m = (m * LEAF).min(split.keys.len());
            for batch in &batches {
                {
                    let (mut lo, mut hi) = split.writers(m);
                    for &(start, len, c) in batch {
                        for o in 0..len {
                            let (p, v) = ((start + o) % l, key((c + o as u8 / 3) % 6));
                            one.set(p, v);
                            if p < m { lo.write(p, v) } else { hi.write(p, v) }
                        }
                    }
                }
                split.settle();
                prop_assert_eq!(split.nodes(), one.nodes());
                prop_assert_eq!(split.max().1, one.max().1);
            }
        }

        /// After any sequence of point updates and rebuilds (keys drawn from a few values, so ties are
        /// common, and `−∞`), the root is the scan's maximum at the scan's position, and `last_where`
        /// with a threshold predicate is the last position at or above the threshold.
        #[test]
        fn the_tree_answers_as_the_scan(l in 1usize..150, ops in prop::collection::vec((0usize..150, 0u8..6), 0..200),
                                        rebuild_at in 0usize..200, thr in 0u8..6) {
            let key = |c: u8| if c == 0 { f64::NEG_INFINITY } else { f64::from(c) - 3.0 };
            let mut keys = vec![f64::NEG_INFINITY; l];
            let mut t = MaxTree::new(l);
            for (s, &(p, c)) in ops.iter().enumerate() {
                let p = p % l;
                keys[p] = key(c);
                t.set(p, keys[p]);
                if s == rebuild_at {
                    t.rebuild(l, |q| keys[q]);
                }
                let (sv, si) = scan_max(&keys);
                let (tv, ti) = t.max();
                prop_assert_eq!(tv, sv);
                if let Some(si) = si {
                    prop_assert_eq!(ti, si);
                }
                for (q, &v) in keys.iter().enumerate() {
                    prop_assert_eq!(t.get(q).to_bits(), v.to_bits());
                }
                let th = key(thr);
                let want = keys.iter().rposition(|&v| v >= th && v > f64::NEG_INFINITY);
                prop_assert_eq!(t.last_where(|v| v >= th && v > f64::NEG_INFINITY), want);
            }
        }
    }
}
