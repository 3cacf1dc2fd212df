//! Exact radius neighbour search: all points within distance `C` of a query (the paper's
//! `δ_C(x)`, §2.1, taken open: `‖x − x'‖ < C`, the pairs where a compactly supported kernel can be
//! non-zero).
//!
//! Three methods, all exact — every candidate is confirmed with the same direct squared distance
//! ([`kern_core::sq_dist`]) that the kernels evaluate, so the neighbour sets agree bit for bit with a
//! brute-force scan:
//! - [`SearchMethod::Grid`]: a cell grid of edge slightly above `C/m` (`m` = [`cells_per_radius`]:
//!   2 in `d ≤ 2`, else 1); a query visits, row by row along the last coordinate, the cells that
//!   can hold a point within `C` of it — the rows within `m` cells of its own, in each only the
//!   cells the ball reaches — each row's cells one run of the sorted list of occupied cells, found
//!   by one binary search. Best in low dimension.
//! - [`SearchMethod::Scan`]: a blocked scan in which distances come from one GEMM per block
//!   (`‖q‖² + ‖p‖² − 2⟨q, p⟩`, faer); candidates within `C²` plus a rounding slack are then confirmed
//!   exactly. Best in high dimension.
//! - [`SearchMethod::Brute`]: direct distances to every point (the reference).
//!
//! [`SearchMethod::Auto`] picks the grid for `d ≤ GRID_MAX_DIM` and the scan otherwise.
//!
//! ```
//! use kern_core::Samples;
//! use kern_sparse::{NeighborIndex, SearchMethod};
//! let x = Samples::from_rows(&[[0.0, 0.0], [0.6, 0.0], [1.0, 0.0], [3.0, 3.0]])?;
//! let idx = NeighborIndex::new(&x, 1.0)?; // the points with ‖x − q‖ < 1
//! assert_eq!(idx.method(), SearchMethod::Grid);
//! let hits = idx.query(&[0.0, 0.0])?;
//! let found: Vec<usize> = hits.iter().map(|nb| nb.index).collect();
//! assert_eq!(found, [0, 1]); // x₂ at distance exactly 1 is outside
//! let brute = NeighborIndex::with_method(&x, 1.0, SearchMethod::Brute)?;
//! assert_eq!(brute.query(&[0.0, 0.0])?, hits); // the same neighbours and distances
//! # Ok::<(), kern_sparse::SparseError>(())
//! ```

use crate::error::{Result, SparseError, positive};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par};
use kern_core::{Samples, sq_dist};
use rayon::prelude::*;
use std::cmp::Ordering as CmpOrdering;
use std::ops::Range;

/// Dimension up to which [`SearchMethod::Auto`] uses the cell grid.
///
/// ```
/// use kern_core::Samples;
/// use kern_sparse::{NeighborIndex, SearchMethod, neighbors::GRID_MAX_DIM};
/// let points = |d: usize| Samples::from_flat((0..4 * d).map(|v| v as f64).collect(), 4, d);
/// assert_eq!(NeighborIndex::new(&points(GRID_MAX_DIM)?, 1.0)?.method(), SearchMethod::Grid);
/// assert_eq!(NeighborIndex::new(&points(GRID_MAX_DIM + 1)?, 1.0)?.method(), SearchMethod::Scan);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const GRID_MAX_DIM: usize = 4;

/// Largest dimension the grid accepts when forced (it visits up to `3^d` cells per query).
///
/// ```
/// use kern_core::Samples;
/// use kern_sparse::{NeighborIndex, SearchMethod, neighbors::GRID_HARD_MAX_DIM};
/// let points = |d: usize| Samples::from_flat(vec![0.0; 2 * d], 2, d);
/// assert!(NeighborIndex::with_method(&points(GRID_HARD_MAX_DIM)?, 1.0, SearchMethod::Grid).is_ok());
/// assert!(NeighborIndex::with_method(&points(GRID_HARD_MAX_DIM + 1)?, 1.0, SearchMethod::Grid).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const GRID_HARD_MAX_DIM: usize = 12;

/// Queries per block of the GEMM scan.
const SCAN_QUERY_BLOCK: usize = 256;
/// Points per block of the GEMM scan.
const SCAN_POINT_BLOCK: usize = 1024;
/// Queries per parallel task for the grid and brute-force paths.
const TASK_BLOCK: usize = 512;
/// Relative enlargement of the grid cell edge over `C/m`, so that floating-point rounding of the cell
/// coordinates can never put two points closer than `C` more than `m` cells apart.
const CELL_SLACK: f64 = 1e-9;
/// Largest cell coordinate the grid accepts (extent / cell edge); beyond, `Auto` falls back to the scan.
const MAX_CELL_COORD: f64 = (1u64 << 50) as f64;

/// How neighbours are searched; see the [module docs](self).
///
/// ```
/// use kern_sparse::{NeighborIndex, SearchMethod};
/// let x = kern_core::Samples::from_rows(&[[0.0, 0.0], [0.5, 0.0], [3.0, 0.0]])?;
/// for m in [SearchMethod::Grid, SearchMethod::Scan, SearchMethod::Brute] {
///     let idx = NeighborIndex::with_method(&x, 1.0, m)?;
///     let hits: Vec<usize> = idx.query(&[0.1, 0.0])?.iter().map(|nb| nb.index).collect();
///     assert_eq!(hits, vec![0, 1]);
/// }
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SearchMethod {
    /// Grid when `d ≤ GRID_MAX_DIM` (and the data's extent allows it), GEMM scan otherwise.
    #[default]
    Auto,
    /// Cell grid (low dimension).
    Grid,
    /// Blocked GEMM-distance scan (high dimension).
    Scan,
    /// Direct distance to every point.
    Brute,
}

impl std::str::FromStr for SearchMethod {
    type Err = SparseError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Self::Auto),
            "grid" => Ok(Self::Grid),
            "scan" => Ok(Self::Scan),
            "brute" => Ok(Self::Brute),
            _ => Err(SparseError::Matrix(format!(
                "unknown search method {s:?}; valid: auto, grid, scan, brute"
            ))),
        }
    }
}

/// One neighbour of a query: its index in the indexed points and the exact squared distance.
///
/// ```
/// let x = kern_core::Samples::from_rows(&[[0.0], [3.0]])?;
/// let idx = kern_sparse::NeighborIndex::new(&x, 2.0)?;
/// let nb = idx.query(&[2.0])?;
/// assert_eq!((nb[0].index, nb[0].sq_dist), (1, 1.0));
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbor {
    /// Index of the neighbour among the indexed points.
    pub index: usize,
    /// `‖query − point‖²`, computed directly (exactly as the kernels compute it).
    pub sq_dist: f64,
}

/// An index over `n` points answering "which points lie within distance `C` of `x`?" exactly
/// (strictly closer than `C`; results sorted by index).
///
/// It owns a copy of the points, so it can live inside a model and answer queries for new points:
/// predictions then visit only the neighbours (the `δ_C(x)` of §2.1).
///
/// ```
/// use kern_core::Samples;
/// use kern_sparse::NeighborIndex;
/// let x = Samples::from_rows(&[[0.0, 0.0], [1.0, 1.0], [0.2, 0.1], [5.0, 5.0]])?;
/// let idx = NeighborIndex::new(&x, 0.5)?;
/// let nb: Vec<usize> = idx.query(&[0.1, 0.0])?.iter().map(|n| n.index).collect();
/// assert_eq!(nb, vec![0, 2]);
/// assert!(idx.query(&[10.0, 10.0])?.is_empty());
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
#[derive(Clone, Debug)]
pub struct NeighborIndex {
    points: Samples,
    c: f64,
    c2: f64,
    method: SearchMethod,
    norms: Vec<f64>,
    grid: Option<Grid>,
}

/// Occupied cells of edge `h`, sorted lexicographically by their integer coordinates.
#[derive(Clone, Debug)]
struct Grid {
    h: f64,
    /// Cells per support radius ([`cells_per_radius`]): points within `C` lie fewer than `m` cell
    /// edges apart along every axis.
    m: usize,
    origin: Vec<f64>,
    /// Cell coordinates, `d` per occupied cell.
    keys: Vec<i64>,
    /// Cell `c` holds sorted positions `starts[c]..starts[c + 1]`.
    starts: Vec<usize>,
    /// Original index of the point at each sorted position.
    order: Vec<usize>,
    /// The points in sorted order (row-major), for locality.
    pts: Vec<f64>,
}

impl NeighborIndex {
    /// Indexes `points` for radius `c > 0` with [`SearchMethod::Auto`].
    pub fn new(points: &Samples, c: f64) -> Result<Self> {
        Self::with_method(points, c, SearchMethod::Auto)
    }

    /// Indexes `points` for radius `c > 0` with an explicit method. Forcing [`SearchMethod::Grid`]
    /// fails for `d > GRID_HARD_MAX_DIM` or when the data's extent is over `2^50` cell edges.
    pub fn with_method(points: &Samples, c: f64, method: SearchMethod) -> Result<Self> {
        let c = positive("c", c)?;
        let d = points.d();
        let mut resolved = match method {
            SearchMethod::Auto if d <= GRID_MAX_DIM && !points.is_sparse() => SearchMethod::Grid,
            SearchMethod::Auto => SearchMethod::Scan,
            m => m,
        };
        let mut grid = None;
        if resolved == SearchMethod::Grid {
            if d > GRID_HARD_MAX_DIM {
                return Err(SparseError::Dimension {
                    what: "grid search dimension (at most GRID_HARD_MAX_DIM)",
                    expected: GRID_HARD_MAX_DIM,
                    found: d,
                });
            }
            grid = Grid::build(points, c);
            if grid.is_none() {
                if method == SearchMethod::Grid {
                    return Err(SparseError::Param {
                        name: "c",
                        value: c,
                        reason: "too small for a cell grid over this data's extent (over 2^50 cells per axis)",
                    });
                }
                resolved = SearchMethod::Scan;
            }
        }
        let norms = if resolved == SearchMethod::Scan { points.sq_norms() } else { Vec::new() };
        Ok(NeighborIndex { points: points.clone(), c, c2: c * c, method: resolved, norms, grid })
    }

    /// The support radius `C`.
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[0.0]])?;
    /// assert_eq!(kern_sparse::NeighborIndex::new(&x, 2.5)?.radius(), 2.5);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn radius(&self) -> f64 {
        self.c
    }

    /// The method in use after resolving [`SearchMethod::Auto`].
    ///
    /// ```
    /// use kern_sparse::{NeighborIndex, SearchMethod};
    /// let x = kern_core::Samples::from_rows(&[[0.0, 1.0]])?;
    /// assert_eq!(NeighborIndex::new(&x, 1.0)?.method(), SearchMethod::Grid);
    /// let y = kern_core::Samples::from_rows(&[[0.0; 10]])?;
    /// assert_eq!(NeighborIndex::new(&y, 1.0)?.method(), SearchMethod::Scan);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn method(&self) -> SearchMethod {
        self.method
    }

    /// The indexed points.
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[0.0], [1.0]])?;
    /// assert_eq!(kern_sparse::NeighborIndex::new(&x, 1.0)?.points().n(), 2);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn points(&self) -> &Samples {
        &self.points
    }

    /// Number of indexed points.
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[0.0], [1.0]])?;
    /// assert_eq!(kern_sparse::NeighborIndex::new(&x, 1.0)?.len(), 2);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn len(&self) -> usize {
        self.points.n()
    }

    /// Always false: [`Samples`] are never empty.
    pub fn is_empty(&self) -> bool {
        self.points.n() == 0
    }

    /// The indexed points within distance `C` of `x` (strictly), sorted by index; a query of another
    /// dimension than the points is [`SparseError::Dimension`].
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[0.0, 0.0]])?;
    /// let idx = kern_sparse::NeighborIndex::new(&x, 1.0)?;
    /// assert!(idx.query(&[0.0]).is_err());
    /// assert_eq!(idx.query(&[0.5, 0.0])?.len(), 1);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn query(&self, x: &[f64]) -> Result<Vec<Neighbor>> {
        let mut out = Vec::new();
        self.query_into(x, &mut out)?;
        Ok(out)
    }

    /// [`Self::query`] into a reused buffer (cleared first).
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[0.0], [0.5]])?;
    /// let idx = kern_sparse::NeighborIndex::new(&x, 1.0)?;
    /// let mut buf = Vec::new();
    /// idx.query_into(&[0.0], &mut buf)?;
    /// assert_eq!(buf.len(), 2);
    /// assert!(idx.query_into(&[0.0, 1.0], &mut buf).is_err());
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn query_into(&self, x: &[f64], out: &mut Vec<Neighbor>) -> Result<()> {
        self.check_query(x)?;
        self.neighbors_into(x, out);
        Ok(())
    }

    /// A query point must have the points' dimension.
    fn check_query(&self, x: &[f64]) -> Result<()> {
        if x.len() != self.points.d() {
            return Err(SparseError::Dimension {
                what: "query point",
                expected: self.points.d(),
                found: x.len(),
            });
        }
        Ok(())
    }

    /// [`Self::query_into`] without the dimension check (callers have checked it).
    fn neighbors_into(&self, x: &[f64], out: &mut Vec<Neighbor>) {
        out.clear();
        match &self.grid {
            Some(g) => {
                g.query(x, self.c2, out);
                out.sort_unstable_by_key(|nb| nb.index);
            }
            None => {
                for (i, p) in self.points.rows().enumerate() {
                    let r2 = sq_dist(x, p);
                    if r2 < self.c2 {
                        out.push(Neighbor { index: i, sq_dist: r2 });
                    }
                }
            }
        }
    }

    /// `Σ_i w_i · f(‖x − x_i‖²)` over the neighbours of `x` only — a prediction
    /// `Σ a_i k_C(x, x_i)` visits `δ_C(x)` instead of all points (pass `|r2| kernel.of_sq_dist(r2)`).
    /// A query of another dimension, or a weight count other than the number of indexed points, is
    /// [`SparseError::Dimension`].
    ///
    /// ```
    /// use kern_core::{CompactlySupported, Gaussian, Kernel, Samples};
    /// let x = Samples::from_rows(&[[0.0], [1.0], [9.0]])?;
    /// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 2.0, 1.0)?;
    /// let idx = kern_sparse::NeighborIndex::new(&x, 2.0)?;
    /// let f = idx.weighted_sum(&[0.5], &[1.0, 2.0, 3.0], |r2| k.of_sq_dist(r2))?;
    /// let full: f64 = [1.0, 2.0, 3.0].iter().zip(x.rows()).map(|(w, xi)| w * k.eval(&[0.5], xi)).sum();
    /// assert!((f - full).abs() < 1e-15);
    /// assert!(idx.weighted_sum(&[0.5], &[1.0, 2.0], |r2| r2).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn weighted_sum(&self, x: &[f64], weights: &[f64], f: impl Fn(f64) -> f64) -> Result<f64> {
        if weights.len() != self.len() {
            return Err(SparseError::Dimension {
                what: "weights (one per indexed point)",
                expected: self.len(),
                found: weights.len(),
            });
        }
        let mut sum = 0.0;
        self.for_each_neighbor(x, |i, r2| sum += weights[i] * f(r2))?;
        Ok(sum)
    }

    /// Calls `f(index, sq_dist)` for every neighbour of `x` (in no particular order; no allocation).
    /// A query of another dimension is [`SparseError::Dimension`] (and `f` is not called).
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[0.0], [0.5], [4.0]])?;
    /// let idx = kern_sparse::NeighborIndex::new(&x, 1.0)?;
    /// let mut count = 0;
    /// idx.for_each_neighbor(&[0.2], |_, _| count += 1)?;
    /// assert_eq!(count, 2);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn for_each_neighbor(&self, x: &[f64], mut f: impl FnMut(usize, f64)) -> Result<()> {
        self.check_query(x)?;
        match &self.grid {
            Some(g) => g.visit(x, self.c2, &mut f),
            None => {
                for (i, p) in self.points.rows().enumerate() {
                    let r2 = sq_dist(x, p);
                    if r2 < self.c2 {
                        f(i, r2);
                    }
                }
            }
        }
        Ok(())
    }

    /// The neighbours of every row of `queries`, in parallel (one sorted list per query).
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[0.0], [0.5], [4.0]])?;
    /// let idx = kern_sparse::NeighborIndex::new(&x, 1.0)?;
    /// let all = idx.query_many(&x)?;
    /// assert_eq!(all[0].len(), 2);
    /// assert_eq!(all[2].len(), 1);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn query_many(&self, queries: &Samples) -> Result<Vec<Vec<Neighbor>>> {
        self.points.check_same_dim(queries)?;
        let blocks: Vec<Vec<Vec<Neighbor>>> = self
            .task_ranges(queries.n())
            .into_par_iter()
            .map(|r| {
                let mut out = Vec::with_capacity(r.len());
                self.block_neighbors(queries, r, &mut |_, nbs| out.push(nbs.to_vec()));
                out
            })
            .collect();
        Ok(blocks.into_iter().flatten().collect())
    }

    /// [`NeighborIndex::point_neighbors_into`] with the grid's runs in two parts scanned on two
    /// threads of the pool when they hold at least `min` candidates ([`Grid::query_halves`]; `scratch`:
    /// the second part's points and the runs). The same neighbours, sorted by index.
    pub(crate) fn point_neighbors_halves_into(
        &self,
        q: usize,
        min: usize,
        out: &mut Vec<Neighbor>,
        scratch: (&mut Vec<Neighbor>, &mut Vec<Range<usize>>),
    ) {
        match &self.grid {
            Some(g) if self.method != SearchMethod::Scan => {
                out.clear();
                g.query_halves(self.points.row(q), self.c2, min, out, scratch);
                out.sort_unstable_by_key(|nb| nb.index);
            }
            _ => self.point_neighbors_into(q, out),
        }
    }

    /// The neighbours of indexed point `q` into `out` (cleared first, sorted by index): the list
    /// [`Self::block_neighbors`] gives for it as a query, by the same search, without a buffer of its
    /// own (a column of `K_C` computed on demand).
    pub(crate) fn point_neighbors_into(&self, q: usize, out: &mut Vec<Neighbor>) {
        if self.method == SearchMethod::Scan {
            out.clear();
            self.scan_block(&self.points, q..q + 1, &mut |_, nbs| out.extend_from_slice(nbs));
        } else {
            self.neighbors_into(self.points.row(q), out);
        }
    }

    /// Bytes held by the index: the copy of the points, their norms and the cell grid.
    ///
    /// ```
    /// let x = kern_core::Samples::from_rows(&[[0.0, 1.0], [2.0, 3.0]])?;
    /// assert!(kern_sparse::NeighborIndex::new(&x, 1.0)?.bytes() >= 2 * 2 * 8);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn bytes(&self) -> usize {
        let points = if self.points.is_sparse() {
            16 * self.points.nnz()
        } else {
            8 * self.points.n() * self.points.d()
        };
        let grid = self.grid.as_ref().map_or(0, |g| {
            8 * (g.origin.capacity()
                + g.keys.capacity()
                + g.starts.capacity()
                + g.order.capacity()
                + g.pts.capacity())
        });
        points + 8 * self.norms.capacity() + grid
    }

    /// Splits `0..nq` into the ranges handled by one parallel task.
    pub(crate) fn task_ranges(&self, nq: usize) -> Vec<Range<usize>> {
        let b = if self.method == SearchMethod::Scan { SCAN_QUERY_BLOCK } else { TASK_BLOCK };
        (0..nq.div_ceil(b)).map(|k| k * b..((k + 1) * b).min(nq)).collect()
    }

    /// Calls `emit(q, neighbours_of_q)` for every query `q` in `range`, in increasing `q`, each list
    /// sorted by index. Dimensions must already be checked.
    pub(crate) fn block_neighbors(
        &self,
        queries: &Samples,
        range: Range<usize>,
        emit: &mut dyn FnMut(usize, &[Neighbor]),
    ) {
        if self.method == SearchMethod::Scan {
            self.scan_block(queries, range, emit);
            return;
        }
        let mut buf = Vec::new();
        for q in range {
            self.neighbors_into(queries.row(q), &mut buf);
            emit(q, &buf);
        }
    }

    /// The GEMM scan for one block of queries; when either side is stored sparse, the blocked scan of
    /// exact sparse distances ([`NeighborIndex::sparse_scan_block`]).
    fn scan_block(&self, queries: &Samples, range: Range<usize>, emit: &mut dyn FnMut(usize, &[Neighbor])) {
        if self.points.is_sparse() || queries.is_sparse() {
            self.sparse_scan_block(queries, range, emit);
            return;
        }
        let d = self.points.d();
        let n = self.points.n();
        let bq = range.len();
        let qt = queries.as_faer_t().subcols(range.start, bq);
        let pt = self.points.as_faer_t();
        let qn: Vec<f64> = range.clone().map(|q| queries.row(q).iter().map(|v| v * v).sum()).collect();
        // |fl(‖q‖² + ‖p‖² − 2⟨q,p⟩) − ‖q − p‖²| ≤ ~(d + 2) u (‖q‖² + ‖p‖²) · 2; take a generous multiple.
        let tol = 8.0 * (d as f64 + 4.0) * f64::EPSILON;
        let mut lists: Vec<Vec<Neighbor>> = vec![Vec::new(); bq];
        let mut g = Mat::<f64>::zeros(bq, SCAN_POINT_BLOCK.min(n));
        let mut p0 = 0;
        while p0 < n {
            let bp = SCAN_POINT_BLOCK.min(n - p0);
            let mut gb = g.as_mut().subcols_mut(0, bp);
            matmul(gb.as_mut(), Accum::Replace, qt.transpose(), pt.subcols(p0, bp), 1.0, Par::Seq);
            for jj in 0..bp {
                let j = p0 + jj;
                let pn = self.norms[j];
                let col = gb.as_ref().col(jj);
                for (ii, list) in lists.iter_mut().enumerate() {
                    let approx = qn[ii] + pn - 2.0 * col[ii];
                    if approx < self.c2 + tol * (qn[ii] + pn) {
                        let r2 = sq_dist(queries.row(range.start + ii), self.points.row(j));
                        if r2 < self.c2 {
                            list.push(Neighbor { index: j, sq_dist: r2 });
                        }
                    }
                }
            }
            p0 += bp;
        }
        for (ii, list) in lists.iter().enumerate() {
            emit(range.start + ii, list);
        }
    }
}

impl NeighborIndex {
    /// The scan for sparse samples: every (query, point) pair's exact squared distance by merging the
    /// two nonzero lists, `O(nnz_q + nnz_p)` per pair. Sparse high-dimensional data (bag-of-words
    /// files) defeat both a cell grid (the grid is over all `d` axes) and the GEMM scan (it needs dense
    /// `d × n` copies); the merge keeps memory at `O(nnz)` at the price of visiting every pair — an
    /// inverted index or a norms-bound filter would prune pairs and is left for later.
    fn sparse_scan_block(
        &self,
        queries: &Samples,
        range: Range<usize>,
        emit: &mut dyn FnMut(usize, &[Neighbor]),
    ) {
        let mut list = Vec::new();
        for q in range {
            let xq = queries.sample(q);
            list.clear();
            for (j, p) in self.points.samples().enumerate() {
                let r2 = xq.sq_dist(p);
                if r2 < self.c2 {
                    list.push(Neighbor { index: j, sq_dist: r2 });
                }
            }
            emit(q, &list);
        }
    }
}

/// The points in the order of the cells of the grid that [`NeighborIndex::new`] builds for radius
/// `c` (cells by their integer coordinates, lexicographically; within a cell by index), as indices
/// of `points`; `None` when that index would not use a grid (a sparse store, `d > GRID_MAX_DIM`, an
/// extent over `2^50` cell edges).
///
/// Points within `c` of each other lie fewer than `m` cells apart along every axis (`m` =
/// [`cells_per_radius`]), so in this order the neighbours of a point form at most `(2m + 1)^(d−1)`
/// runs of consecutive positions (one per row of cells along the last coordinate: 5 in 2-D), and an
/// index built on the reordered points visits them in increasing order. Solvers whose
/// per-variable arrays are visited at a point's neighbours (compact kernels) then touch a few
/// contiguous stretches of memory instead of `O(neighbours)` scattered places.
///
/// ```
/// use kern_sparse::neighbors::cell_order;
/// let x = kern_core::Samples::from_rows(&[[5.0, 0.0], [0.0, 0.0], [5.1, 0.1], [0.2, 0.0]])?;
/// assert_eq!(cell_order(&x, 1.0), Some(vec![1, 3, 0, 2]));
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
pub fn cell_order(points: &Samples, c: f64) -> Option<Vec<usize>> {
    if points.is_sparse() || points.d() > GRID_MAX_DIM || c.is_nan() || c <= 0.0 {
        return None;
    }
    Grid::cells(points, cell_edge(c, points.d())).map(|(_, _, order)| order)
}

/// Cells per support radius of the grid in dimension `d`: the cell edge is `C/m` (slightly above).
///
/// **The rule.** A query visits the cells its ball of radius `C` reaches: about `(2m + 1)^(d−1)`
/// rows of cells (one binary search each) and in them a volume of candidates that shrinks towards
/// the ball's as `m` grows — in 2-D about `9 C²` with `m = 1` (every row three cells of `C`) and
/// about `5.3 C²` with `m = 2` (five rows, each trimmed to the cells the ball reaches), against
/// `π C² ≈ 3.1 C²` of neighbours. Each candidate costs a distance; each row a search. In `d ≤ 2`
/// the rows are few (5) and `m = 2` removes about 40 % of the candidates; in `d ≥ 3` the rows grow
/// as `5^(d−1)` and `m = 1` is kept.
///
/// ```
/// use kern_sparse::neighbors::cells_per_radius;
/// assert_eq!((cells_per_radius(1), cells_per_radius(2), cells_per_radius(3)), (2, 2, 1));
/// ```
pub fn cells_per_radius(d: usize) -> usize {
    if d <= 2 { 2 } else { 1 }
}

/// The grid's cell edge for radius `c` in dimension `d`: `c/m` enlarged by [`CELL_SLACK`].
fn cell_edge(c: f64, d: usize) -> f64 {
    c * (1.0 + CELL_SLACK) / cells_per_radius(d) as f64
}

impl Grid {
    /// Builds the grid, or `None` when the extent is too large for 64-bit cell coordinates.
    fn build(points: &Samples, c: f64) -> Option<Grid> {
        let (n, d) = (points.n(), points.d());
        let h = cell_edge(c, d);
        let (origin, coords, order) = Self::cells(points, h)?;
        let mut keys = Vec::new();
        let mut starts = Vec::new();
        let mut pts = Vec::with_capacity(n * d);
        for (pos, &i) in order.iter().enumerate() {
            let key = &coords[i * d..(i + 1) * d];
            if pos == 0 || keys[keys.len() - d..] != *key {
                keys.extend_from_slice(key);
                starts.push(pos);
            }
            pts.extend_from_slice(points.row(i));
        }
        starts.push(n);
        Some(Grid { h, m: cells_per_radius(d), origin, keys, starts, order, pts })
    }

    /// The origin, the cell coordinates (`d` per point) and the points' order by cell
    /// (lexicographic, then index) of the grid of edge `h` over a dense store; `None` when the
    /// extent is too large for 64-bit cell coordinates.
    #[allow(clippy::type_complexity)] // the three parts of the grid, used once each
    fn cells(points: &Samples, h: f64) -> Option<(Vec<f64>, Vec<i64>, Vec<usize>)> {
        let (n, d) = (points.n(), points.d());
        let ranges = points.feature_ranges();
        let origin: Vec<f64> = ranges.iter().map(|r| r.0).collect();
        if ranges.iter().any(|r| ((r.1 - r.0) / h).partial_cmp(&MAX_CELL_COORD) != Some(CmpOrdering::Less)) {
            return None;
        }
        let mut coords = vec![0i64; n * d];
        coords.par_chunks_mut(d).zip(points.as_slice().par_chunks(d)).for_each(|(cc, x)| {
            for k in 0..d {
                cc[k] = ((x[k] - origin[k]) / h).floor() as i64;
            }
        });
        let mut order: Vec<usize> = (0..n).collect();
        order.par_sort_unstable_by(|&a, &b| {
            coords[a * d..(a + 1) * d].cmp(&coords[b * d..(b + 1) * d]).then(a.cmp(&b))
        });
        Some((origin, coords, order))
    }

    fn ncells(&self) -> usize {
        self.starts.len() - 1
    }

    fn key(&self, c: usize) -> &[i64] {
        let d = self.origin.len();
        &self.keys[c * d..(c + 1) * d]
    }

    /// Appends the points with `r2 < c2` to `out`, in the order of [`Grid::visit`] ([`Grid::scan_run`]
    /// over the runs of [`Grid::runs`]).
    fn query(&self, x: &[f64], c2: f64, out: &mut Vec<Neighbor>) {
        self.runs(x, |run| self.scan_run(x, c2, run, out));
    }

    /// [`Grid::query`] with the runs in two parts of about equal length, each scanned on its own
    /// thread of the pool: the first part's points go to `out`, the second's to `out2`, then after
    /// them in `out` (the same points as [`Grid::query`]; `runs` is scratch). Runs shorter than
    /// `min` candidates in all are scanned on the calling thread.
    fn query_halves(
        &self,
        x: &[f64],
        c2: f64,
        min: usize,
        out: &mut Vec<Neighbor>,
        (out2, runs): (&mut Vec<Neighbor>, &mut Vec<Range<usize>>),
    ) {
        runs.clear();
        self.runs(x, |run| runs.push(run));
        let total: usize = runs.iter().map(|r| r.len()).sum();
        let mut acc = 0;
        let k = if total < min {
            runs.len()
        } else {
            runs.iter()
                .take_while(|r| {
                    acc += r.len();
                    acc <= crate::kmatrix::caller_share(total)
                })
                .count()
        };
        let (first, second) = runs.split_at(k);
        out2.clear();
        let scan = |rs: &[Range<usize>], out: &mut Vec<Neighbor>| {
            for r in rs {
                self.scan_run(x, c2, r.clone(), out);
            }
        };
        if second.is_empty() || first.is_empty() {
            return scan(runs, out);
        }
        rayon::join(|| scan(first, out), || scan(second, out2));
        out.extend_from_slice(out2);
    }

    /// Appends the points of `run` with `r2 < c2` to `out`. Each candidate is written and kept by
    /// advancing the length on the comparison, without a branch on it: about two candidates in three
    /// are rejected in no predictable pattern.
    ///
    /// The common dimensions take a copy of the loop with the dimension fixed, so that the distance
    /// (the same [`sq_dist`], the same operations) is unrolled instead of looping over `d` per
    /// candidate.
    #[inline]
    fn scan_run(&self, x: &[f64], c2: f64, run: Range<usize>, out: &mut Vec<Neighbor>) {
        match self.origin.len() {
            1 => self.scan_run_dim::<1>(x, c2, run, out),
            2 => self.scan_run_dim::<2>(x, c2, run, out),
            3 => self.scan_run_dim::<3>(x, c2, run, out),
            4 => self.scan_run_dim::<4>(x, c2, run, out),
            _ => self.scan_run_any(x, c2, run, out),
        }
    }

    /// [`Grid::scan_run`] in dimension `D` (`x` has `D` coordinates).
    #[inline]
    fn scan_run_dim<const D: usize>(&self, x: &[f64], c2: f64, run: Range<usize>, out: &mut Vec<Neighbor>) {
        let xd: &[f64; D] = x.try_into().expect("the query has the grid's dimension");
        let k0 = out.len();
        out.resize(k0 + run.len(), Neighbor { index: 0, sq_dist: 0.0 });
        let mut k = k0;
        let pts = self.pts[run.start * D..run.end * D].chunks_exact(D);
        for (p, &index) in pts.zip(&self.order[run]) {
            let p: &[f64; D] = p.try_into().expect("chunks of D coordinates");
            let r2 = sq_dist(xd, p);
            out[k] = Neighbor { index, sq_dist: r2 };
            k += usize::from(r2 < c2);
        }
        out.truncate(k);
    }

    /// [`Grid::scan_run`] in any dimension.
    fn scan_run_any(&self, x: &[f64], c2: f64, run: Range<usize>, out: &mut Vec<Neighbor>) {
        let d = self.origin.len();
        let mut k = out.len();
        out.resize(k + run.len(), Neighbor { index: 0, sq_dist: 0.0 });
        for pos in run {
            let r2 = sq_dist(x, &self.pts[pos * d..(pos + 1) * d]);
            out[k] = Neighbor { index: self.order[pos], sq_dist: r2 };
            k += usize::from(r2 < c2);
        }
        out.truncate(k);
    }

    /// Calls `f(original index, r2)` for every point with `r2 < c2`.
    fn visit(&self, x: &[f64], c2: f64, mut f: impl FnMut(usize, f64)) {
        let d = self.origin.len();
        self.runs(x, |run| {
            for pos in run {
                let r2 = sq_dist(x, &self.pts[pos * d..(pos + 1) * d]);
                if r2 < c2 {
                    f(self.order[pos], r2);
                }
            }
        });
    }

    /// Calls `f` with the sorted positions of the candidates of `x`, one run of consecutive positions
    /// per row of cells along the last coordinate, rows in increasing order (so positions increase).
    ///
    /// In cell units (`u = (x − origin)/h`, the cell of a point being `⌊u⌋`), two points within `C`
    /// are less than `m` apart (`C/h = m/(1 + CELL_SLACK)`). So the rows are the prefixes `j` with
    /// `⌊u_k − m⌋ ≤ j_k ≤ ⌈u_k + m⌉ − 1` (the cells `j_k` with `j_k + 1 > u_k − m` and `j_k < u_k + m`);
    /// a point of row `j` is at least `g_k` from `u` along axis `k`
    /// (`g_k` the gap between `u_k` and `[j_k, j_k + 1]`), so the row holds none when
    /// `Σ g_k² ≥ m²`, and otherwise only in the cells `⌊u_last − w⌋ ..= ⌈u_last + w⌉ − 1` of its last
    /// coordinate, `w = √(m² − Σ g_k²)`. The slack of the cell edge covers the rounding of `u`,
    /// `g` and `w` (far below `1e-9` cells for coordinates under `2^20` cells).
    fn runs(&self, x: &[f64], mut f: impl FnMut(Range<usize>)) {
        let d = self.origin.len();
        let last = d - 1;
        let m = self.m as f64;
        let mut u = [0.0f64; GRID_HARD_MAX_DIM];
        let mut lo = [0i64; GRID_HARD_MAX_DIM];
        let mut hi = [0i64; GRID_HARD_MAX_DIM];
        for k in 0..d {
            // Clamp far-away queries: real cells lie in [0, 2^50], so a range around a clamped
            // coordinate never matches a cell the query could reach.
            u[k] = ((x[k] - self.origin[k]) / self.h).clamp(-(2f64.powi(52)), 2f64.powi(52));
            lo[k] = (u[k] - m).floor() as i64;
            hi[k] = (u[k] + m).ceil() as i64 - 1;
        }
        let mut key = lo;
        // Rows come in increasing order, so each search starts where the previous row ended.
        let mut from = 0;
        loop {
            let mut g2 = 0.0;
            for k in 0..last {
                let j = key[k] as f64;
                let g = (j - u[k]).max(u[k] - (j + 1.0)).max(0.0);
                g2 += g * g;
            }
            if g2 < m * m {
                let w = (m * m - g2).sqrt();
                key[last] = (u[last] - w).floor() as i64;
                let hi_last = (u[last] + w).ceil() as i64 - 1;
                let first = self.lower_bound(from, &key[..d]);
                let mut cell = first;
                while cell < self.ncells() {
                    let kc = self.key(cell);
                    if kc[..last] != key[..last] || kc[last] > hi_last {
                        break;
                    }
                    cell += 1;
                }
                if cell > first {
                    f(self.starts[first]..self.starts[cell]);
                }
                from = cell;
            }
            // Odometer over the prefix ranges, the last prefix coordinate fastest (increasing rows).
            let mut k = last;
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                if key[k] < hi[k] {
                    key[k] += 1;
                    break;
                }
                key[k] = lo[k];
            }
        }
    }

    /// First occupied cell at or after `from` whose key is `>= target` (lexicographic); the cells
    /// before `from` must be below `target`.
    fn lower_bound(&self, from: usize, target: &[i64]) -> usize {
        let (mut lo, mut hi) = (from, self.ncells());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.key(mid).cmp(target) == CmpOrdering::Less {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(x: &Samples, q: &[f64], c: f64) -> Vec<usize> {
        x.rows().enumerate().filter(|(_, p)| sq_dist(q, p) < c * c).map(|(i, _)| i).collect()
    }

    #[test]
    fn grid_handles_far_queries_and_duplicates() {
        let x = Samples::from_rows(&[[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [1e6, 1e6]]).unwrap();
        let idx = NeighborIndex::with_method(&x, 1.0, SearchMethod::Grid).unwrap();
        let ids: Vec<usize> = idx.query(&[0.0, 0.0]).unwrap().iter().map(|n| n.index).collect();
        assert_eq!(ids, brute(&x, &[0.0, 0.0], 1.0));
        assert!(idx.query(&[-1e300, 1e300]).unwrap().is_empty());
        assert_eq!(idx.query(&[1e6, 1e6 + 0.5]).unwrap().len(), 1);
    }

    proptest::proptest! {
        #![proptest_config(kern_testkit::proptest_config(48))]

        /// `cell_order` is a permutation along which the points' cells are non-decreasing
        /// (lexicographically, within a cell by index); the index of the reordered points finds, for
        /// each point, its neighbours (by brute force) mapped through the order, and its grid visits
        /// them in increasing position (one sorted run per row of cells, rows in order).
        #[test]
        fn cell_order_sorts_by_cell(n in 1usize..150, d in 1usize..5, seed in 0u64..10_000, c in 0.05f64..3.0) {
            let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let mut next = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s >> 11) as f64 / (1u64 << 53) as f64 * 6.0 - 3.0 };
            let rows: Vec<Vec<f64>> = (0..n).map(|_| (0..d).map(|_| next()).collect()).collect();
            let x = Samples::from_rows(&rows).unwrap();
            let order = cell_order(&x, c).expect("a dense store in the grid's dimensions");
            let mut seen = order.clone();
            seen.sort_unstable();
            proptest::prop_assert_eq!(&seen, &(0..n).collect::<Vec<_>>());
            let h = cell_edge(c, d);
            let origin: Vec<f64> = x.feature_ranges().iter().map(|r| r.0).collect();
            let cell = |i: usize| -> Vec<i64> { (0..d).map(|k| ((x.row(i)[k] - origin[k]) / h).floor() as i64).collect() };
            for w in order.windows(2) {
                proptest::prop_assert!((cell(w[0]), w[0]) < (cell(w[1]), w[1]));
            }
            let xo = x.select(&order).unwrap();
            let idx = NeighborIndex::new(&xo, c).unwrap();
            for p in 0..n {
                let mut got: Vec<usize> = idx.query(xo.row(p)).unwrap().iter().map(|nb| order[nb.index]).collect();
                got.sort_unstable();
                proptest::prop_assert_eq!(got, brute(&x, x.row(order[p]), c));
                let mut raw = Vec::new();
                idx.grid.as_ref().unwrap().query(xo.row(p), c * c, &mut raw);
                proptest::prop_assert!(raw.windows(2).all(|w| w[0].index < w[1].index));
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(kern_testkit::proptest_config(32))]

        /// The grid visits only cells its query's ball reaches: the cell of every candidate lies, in
        /// cell units, less than `m` (the cells per radius) from the query; and its candidates are
        /// the brute-force neighbours plus points of those cells only.
        #[test]
        fn the_grid_visits_only_cells_the_ball_reaches(n in 1usize..200, d in 1usize..5, seed in 0u64..10_000,
                                                       c in 0.05f64..2.0) {
            let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let mut next = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s >> 11) as f64 / (1u64 << 53) as f64 * 6.0 - 3.0 };
            let rows: Vec<Vec<f64>> = (0..n).map(|_| (0..d).map(|_| next()).collect()).collect();
            let x = Samples::from_rows(&rows).unwrap();
            let g = Grid::build(&x, c).unwrap();
            let m = cells_per_radius(d) as f64;
            for q in 0..n.min(40) {
                let u: Vec<f64> = (0..d).map(|k| (x.row(q)[k] - g.origin[k]) / g.h).collect();
                let mut found = Vec::new();
                g.runs(x.row(q), |run| {
                    for pos in run {
                        let gap2: f64 = (0..d).map(|k| {
                            let j = ((g.pts[pos * d + k] - g.origin[k]) / g.h).floor();
                            let gap = (j - u[k]).max(u[k] - (j + 1.0)).max(0.0);
                            gap * gap
                        }).sum();
                        assert!(gap2 < m * m, "a candidate's cell is {} cells away", gap2.sqrt());
                        found.push(g.order[pos]);
                    }
                });
                found.sort_unstable();
                let want = brute(&x, x.row(q), c);
                proptest::prop_assert!(want.iter().all(|i| found.binary_search(i).is_ok()));
            }
        }
    }

    #[test]
    fn scan_equals_brute_on_offset_data() {
        // Large offsets make the GEMM formulation lose digits; the slack + exact check must still be exact.
        let rows: Vec<Vec<f64>> =
            (0..300).map(|i| (0..12).map(|k| 1e4 + ((i * 7 + k * 13) % 17) as f64 * 0.1).collect()).collect();
        let x = Samples::from_rows(&rows).unwrap();
        let idx = NeighborIndex::with_method(&x, 0.35, SearchMethod::Scan).unwrap();
        let all = idx.query_many(&x).unwrap();
        for (q, nbs) in all.iter().enumerate() {
            let got: Vec<usize> = nbs.iter().map(|n| n.index).collect();
            assert_eq!(got, brute(&x, x.row(q), 0.35));
        }
    }
}
