//! Symmetric orderings of sparse matrices: reverse Cuthill–McKee (implemented here, George–Liu
//! pseudo-peripheral start, every connected component), approximate minimum degree (faer's AMD),
//! nested dissection (METIS, [`nd_order`]), identity; and the symmetric permutation `B = P A Pᵀ`.
//!
//! A [`Permutation`] maps new positions to old ones: `perm[new] = old`, so
//! `B[new_i, new_j] = A[perm[new_i], perm[new_j]]` (CS-RBF paper §2.2, Fig. 2).
//!
//! ```
//! use kern_sparse::{Ordering, bandwidth, order, permute_symmetric};
//! let mut coo = nalgebra_sparse::CooMatrix::new(4, 4); // the path 0–2–3–1, badly numbered
//! for i in 0..4 { coo.push(i, i, 2.0); }
//! for (i, j) in [(0, 2), (2, 3), (3, 1)] { coo.push(i, j, -1.0); coo.push(j, i, -1.0); }
//! let a = nalgebra_sparse::CscMatrix::from(&coo);
//! let p = order(&a, Ordering::Rcm)?;
//! let b = permute_symmetric(&a, &p)?; // B[i, j] = A[perm[i], perm[j]]
//! assert_eq!((bandwidth(&a).max_row, bandwidth(&b).max_row), (2, 1)); // tridiagonal now
//! let (i, j) = (p.perm()[0], p.perm()[1]);
//! assert_eq!(b.get_entry(0, 1).unwrap().into_value(), a.get_entry(i, j).unwrap().into_value());
//! # Ok::<(), kern_sparse::SparseError>(())
//! ```

use crate::error::{Result, SparseError};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::SymbolicSparseColMatRef;
use faer::sparse::linalg::amd;
use nalgebra_sparse::CscMatrix;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Which symmetric ordering to compute.
///
/// ```
/// use kern_sparse::Ordering;
/// assert_eq!("rcm".parse::<Ordering>()?, Ordering::Rcm);
/// assert_eq!(Ordering::default(), Ordering::Auto);   // the default before factorization
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Ordering {
    /// Keep the given order.
    Identity,
    /// Reverse Cuthill–McKee: small bandwidth (Table 1), banded/envelope storage.
    Rcm,
    /// Approximate minimum degree (faer's AMD): least fill on very sparse matrices.
    Amd,
    /// Nested dissection (METIS's multilevel vertex separators, [`nd_order`]): the least fill on the
    /// large graphs of low-dimensional data, where a separator of a `d`-dimensional neighbourhood graph
    /// has `O(n^(1−1/d))` vertices (George 1973; Lipton, Rose & Tarjan 1979).
    NestedDissection,
    /// Before a Cholesky factorization: AMD, RCM and — when their factor has at least
    /// [`AUTO_ND_MIN_FACTOR_NNZ`](crate::AUTO_ND_MIN_FACTOR_NNZ) entries — nested dissection, keeping the
    /// one whose symbolic analysis predicts the fewest nonzeros in `L` (the analysis costs `O(nnz(L))`, far below the
    /// numeric factorization). AMD wins at high sparsity, on compactly supported Gram matrices of
    /// moderate sparsity (50–75 %) RCM's band fills markedly less (green-red n = 2000: 0.94 M vs 1.56 M
    /// entries at 75 %), and on large low-dimensional data nested dissection fills least, so none is a
    /// safe fixed default.
    #[default]
    Auto,
}

impl Ordering {
    /// The command-line name: `none`, `rcm`, `amd`, `nd` or `auto`.
    ///
    /// ```
    /// assert_eq!(kern_sparse::Ordering::Identity.name(), "none");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Ordering::Identity => "none",
            Ordering::Rcm => "rcm",
            Ordering::Amd => "amd",
            Ordering::NestedDissection => "nd",
            Ordering::Auto => "auto",
        }
    }
}

impl std::str::FromStr for Ordering {
    type Err = SparseError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "none" | "identity" => Ok(Ordering::Identity),
            "rcm" => Ok(Ordering::Rcm),
            "amd" | "md" | "mindeg" => Ok(Ordering::Amd),
            "nd" | "metis" | "nested-dissection" => Ok(Ordering::NestedDissection),
            "auto" => Ok(Ordering::Auto),
            _ => Err(SparseError::Matrix(format!("unknown ordering {s:?}; valid: auto, rcm, amd, nd, none"))),
        }
    }
}

/// A permutation of `0..n`, stored both ways: `perm[new] = old`, `inv[old] = new`.
///
/// ```
/// let p = kern_sparse::Permutation::from_vec(vec![2, 0, 1])?;
/// assert_eq!(p.perm(), &[2, 0, 1]);
/// assert_eq!(p.inv(), &[1, 2, 0]);
/// assert!(kern_sparse::Permutation::from_vec(vec![0, 0]).is_err());
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Permutation {
    perm: Vec<usize>,
    inv: Vec<usize>,
}

impl Permutation {
    /// The identity on `0..n`.
    ///
    /// ```
    /// assert_eq!(kern_sparse::Permutation::identity(3).perm(), &[0, 1, 2]);
    /// ```
    pub fn identity(n: usize) -> Self {
        Permutation { perm: (0..n).collect(), inv: (0..n).collect() }
    }

    /// Validates `perm` (`perm[new] = old`) as a permutation.
    pub fn from_vec(perm: Vec<usize>) -> Result<Self> {
        let n = perm.len();
        let mut inv = vec![usize::MAX; n];
        for (new, &old) in perm.iter().enumerate() {
            if old >= n || inv[old] != usize::MAX {
                return Err(SparseError::Matrix(format!(
                    "not a permutation of 0..{n}: entry {old} at {new}"
                )));
            }
            inv[old] = new;
        }
        Ok(Permutation { perm, inv })
    }

    /// `perm[new] = old`.
    pub fn perm(&self) -> &[usize] {
        &self.perm
    }

    /// `inv[old] = new`.
    pub fn inv(&self) -> &[usize] {
        &self.inv
    }

    /// Size `n`.
    pub fn len(&self) -> usize {
        self.perm.len()
    }

    /// Whether `n == 0`.
    pub fn is_empty(&self) -> bool {
        self.perm.is_empty()
    }
}

/// Checks that `a` is square; returns `n`.
pub(crate) fn check_square(a: &CscMatrix<f64>) -> Result<usize> {
    if a.nrows() != a.ncols() {
        return Err(SparseError::Matrix(format!("matrix is {} x {}, expected square", a.nrows(), a.ncols())));
    }
    Ok(a.ncols())
}

/// Computes the ordering `ord` of the structurally symmetric matrix `a` (full storage; only its
/// pattern is read).
///
/// ```
/// use kern_sparse::{order, Ordering};
/// let a = nalgebra_sparse::CscMatrix::<f64>::identity(5);
/// for o in [Ordering::Identity, Ordering::Rcm, Ordering::Amd, Ordering::NestedDissection] {
///     assert_eq!(order(&a, o)?.len(), 5);
/// }
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
pub fn order(a: &CscMatrix<f64>, ord: Ordering) -> Result<Permutation> {
    let n = check_square(a)?;
    match ord {
        Ordering::Identity => Ok(Permutation::identity(n)),
        Ordering::Rcm => rcm(a),
        Ordering::Amd => amd_order(a),
        Ordering::NestedDissection => nd_order(a),
        Ordering::Auto => crate::cholesky::CholeskyPlan::sparse(a, Ordering::Auto)?
            .permutation()
            .cloned()
            .ok_or_else(|| SparseError::Matrix("sparse plan without a permutation".into())),
    }
}

/// Reverse Cuthill–McKee ordering of the structurally symmetric matrix `a` (George & Liu 1981):
/// every connected component is ordered from a pseudo-peripheral node found by the George–Liu
/// procedure, breadth first with neighbours taken in increasing degree (ties by index), and the whole
/// sequence is reversed. Deterministic.
///
/// ```
/// use kern_sparse::{bandwidth, permute_symmetric, rcm};
/// // A path 0-2-4-1-3 numbered badly: RCM finds bandwidth 1.
/// let t = [(0, 2), (2, 4), (4, 1), (1, 3)];
/// let mut coo = nalgebra_sparse::CooMatrix::new(5, 5);
/// for i in 0..5 { coo.push(i, i, 2.0); }
/// for &(i, j) in &t { coo.push(i, j, -1.0); coo.push(j, i, -1.0); }
/// let a = nalgebra_sparse::CscMatrix::from(&coo);
/// let p = rcm(&a)?;
/// assert_eq!(bandwidth(&permute_symmetric(&a, &p)?).max_row, 1);
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
pub fn rcm(a: &CscMatrix<f64>) -> Result<Permutation> {
    let n = check_square(a)?;
    let cp = a.col_offsets();
    let ri = a.row_indices();
    let adj = |j: usize| ri[cp[j]..cp[j + 1]].iter().copied().filter(move |&i| i != j);
    let degree: Vec<usize> = (0..n).map(|j| adj(j).count()).collect();
    let mut order = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    // Scratch for level structures (BFS from a root within one component).
    let mut level = vec![usize::MAX; n];
    let mut touched: Vec<usize> = Vec::new();
    let mut nbuf: Vec<usize> = Vec::new();
    for start in 0..n {
        if visited[start] {
            continue;
        }
        // George–Liu pseudo-peripheral node: BFS from r; pick a minimum-degree node x in the last
        // level; if the eccentricity grows, r = x and repeat.
        let mut r = start;
        let mut ecc = bfs_levels(r, &adj, &mut level, &mut touched);
        loop {
            let last: Vec<usize> = touched.iter().copied().filter(|&v| level[v] == ecc).collect();
            let x = *last.iter().min_by_key(|&&v| (degree[v], v)).expect("last level is non-empty");
            let ecc_x = bfs_levels(x, &adj, &mut level, &mut touched);
            if ecc_x > ecc {
                r = x;
                ecc = ecc_x;
            } else {
                break;
            }
        }
        for &v in &touched {
            level[v] = usize::MAX;
        }
        // Cuthill–McKee from r.
        let mut queue = VecDeque::new();
        visited[r] = true;
        queue.push_back(r);
        while let Some(v) = queue.pop_front() {
            order.push(v);
            nbuf.clear();
            nbuf.extend(adj(v).filter(|&u| !visited[u]));
            nbuf.sort_unstable_by_key(|&u| (degree[u], u));
            for &u in &nbuf {
                visited[u] = true;
                queue.push_back(u);
            }
        }
    }
    order.reverse();
    Permutation::from_vec(order)
}

/// Breadth-first level structure from `root`: sets `level[v]` for the component (listing the visited
/// nodes in `touched`, after resetting the previous ones) and returns the eccentricity of `root`.
fn bfs_levels<I: Iterator<Item = usize>>(
    root: usize,
    adj: &impl Fn(usize) -> I,
    level: &mut [usize],
    touched: &mut Vec<usize>,
) -> usize {
    for &v in touched.iter() {
        level[v] = usize::MAX;
    }
    touched.clear();
    level[root] = 0;
    touched.push(root);
    let mut head = 0;
    let mut ecc = 0;
    while head < touched.len() {
        let v = touched[head];
        head += 1;
        let lv = level[v];
        ecc = ecc.max(lv);
        for u in adj(v) {
            if level[u] == usize::MAX {
                level[u] = lv + 1;
                touched.push(u);
            }
        }
    }
    ecc
}

/// Approximate minimum degree ordering of the pattern of `a + aᵀ` (faer's AMD).
///
/// ```
/// let a = nalgebra_sparse::CscMatrix::<f64>::identity(3);
/// assert_eq!(kern_sparse::amd_order(&a)?.len(), 3);
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
pub fn amd_order(a: &CscMatrix<f64>) -> Result<Permutation> {
    let n = check_square(a)?;
    if n == 0 {
        return Ok(Permutation::identity(0));
    }
    // AMD reads the pattern of A + Aᵀ; give it the upper triangle (sorted, no duplicates).
    let (cp, ri) = triangle_pattern(a, false);
    let sym = SymbolicSparseColMatRef::new_checked(n, n, &cp, None, &ri);
    let mut perm = vec![0usize; n];
    let mut inv = vec![0usize; n];
    let mut mem = MemBuffer::try_new(amd::order_scratch::<usize>(n, ri.len()))
        .map_err(|_| SparseError::Faer("out of memory for the AMD workspace".into()))?;
    amd::order(&mut perm, &mut inv, sym, amd::Control::default(), MemStack::new(&mut mem)).map_err(|e| {
        SparseError::Faer(format!("minimum-degree ordering: {}", kern_core::faer_errors::sparse(e)))
    })?;
    Permutation::from_vec(perm)
}

/// Nested dissection ordering of the pattern of `a + aᵀ` by METIS (`METIS_NodeND`, Karypis & Kumar
/// 1998: multilevel vertex separators, the parts ordered first and the separator last, recursively,
/// with minimum degree on the small leaves). METIS runs with its default options, whose random seed is
/// fixed, one call at a time (its generator is global), so the ordering is deterministic. METIS indexes with 32-bit integers: a pattern with more
/// than `i32::MAX` off-diagonal entries is an error.
///
/// ```
/// use kern_sparse::{nd_order, CholeskyPlan, Ordering};
/// // A 20 × 20 grid graph (5-point stencil).
/// let m = 20;
/// let mut coo = nalgebra_sparse::CooMatrix::new(m * m, m * m);
/// for i in 0..m { for j in 0..m {
///     let v = i * m + j;
///     coo.push(v, v, 4.0);
///     if i + 1 < m { coo.push(v, v + m, -1.0); coo.push(v + m, v, -1.0); }
///     if j + 1 < m { coo.push(v, v + 1, -1.0); coo.push(v + 1, v, -1.0); }
/// } }
/// let a = nalgebra_sparse::CscMatrix::from(&coo);
/// let p = nd_order(&a)?;
/// assert_eq!(p.len(), m * m);
/// let nd = CholeskyPlan::sparse_with_permutation(&a, p)?.factor_nnz();
/// let none = CholeskyPlan::sparse(&a, Ordering::Identity)?.factor_nnz();
/// assert!(nd < none);
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
#[cfg(feature = "metis")]
pub fn nd_order(a: &CscMatrix<f64>) -> Result<Permutation> {
    let n = check_square(a)?;
    let (mut xadj, mut adjncy) = metis_graph(a)?;
    if adjncy.is_empty() {
        // No edges: every order is fill-free.
        return Ok(Permutation::identity(n));
    }
    let mut nvtxs = i32::try_from(n).map_err(|_| too_large(n))?;
    let mut perm = vec![0i32; n];
    let mut iperm = vec![0i32; n];
    // METIS keeps its random generator in global state (reseeded at every call): calls from two threads
    // would race on it (undefined behaviour in C, and a seed-dependent ordering). One call at a time.
    let _guard = METIS_LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    // SAFETY: `METIS_NodeND` reads `nvtxs`, `xadj[0..=nvtxs]` and `adjncy[0..xadj[nvtxs]]` and writes
    // `perm[0..nvtxs]` and `iperm[0..nvtxs]`. All five buffers are live, exclusively borrowed, and
    // sized as required: `xadj.len() == n + 1`, `adjncy.len() == xadj[n]`, `perm.len() == iperm.len()
    // == n == nvtxs`; `metis_graph` built a valid METIS graph (offsets non-decreasing from 0, every
    // neighbour in `0..n`, no self loops, symmetric). The null `vwgt` and `options` select unit vertex
    // weights and METIS's default options, both documented as allowed. METIS keeps no pointer after it
    // returns. `METIS_LOCK` is held, so no other thread is inside METIS.
    #[allow(unsafe_code)]
    let status = unsafe {
        metis_sys::METIS_NodeND(
            &mut nvtxs,
            xadj.as_mut_ptr(),
            adjncy.as_mut_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            perm.as_mut_ptr(),
            iperm.as_mut_ptr(),
        )
    };
    if status != metis_sys::rstatus_et_METIS_OK {
        return Err(SparseError::Matrix(format!("METIS nested dissection failed (status {status})")));
    }
    // METIS: row i of the permuted matrix is row perm[i] of the original (perm[new] = old).
    Permutation::from_vec(perm.into_iter().map(|v| v as usize).collect())
}

/// Nested dissection without METIS: this build left out kern-sparse's `metis` feature (on by default),
/// so the ordering is an error; [`Ordering::Auto`] and the other orderings work as usual.
#[cfg(not(feature = "metis"))]
pub fn nd_order(a: &CscMatrix<f64>) -> Result<Permutation> {
    check_square(a)?;
    Err(SparseError::Matrix(
        "nested dissection needs METIS, which this build of kern-sparse left out (its `metis` feature); use AMD or RCM"
            .into(),
    ))
}

/// Whether nested dissection is available: kern-sparse was built with its `metis` feature (the default).
///
/// ```
/// assert_eq!(kern_sparse::ordering::HAS_NESTED_DISSECTION, cfg!(feature = "metis"));
/// ```
pub const HAS_NESTED_DISSECTION: bool = cfg!(feature = "metis");

#[cfg(feature = "metis")]
/// Serializes calls into METIS (see [`nd_order`]).
static METIS_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(feature = "metis")]
fn too_large(n: usize) -> SparseError {
    SparseError::Matrix(format!("pattern too large for METIS's 32-bit indices ({n} entries)"))
}

/// The adjacency graph of the pattern of `U + Uᵀ` without the diagonal, `U` the upper triangle of
/// `a` (as AMD reads it), in METIS's CSR form (`xadj`, `adjncy`, 32-bit). Columns are visited in
/// increasing order, so every neighbour list comes out sorted and free of duplicates.
#[cfg(feature = "metis")]
fn metis_graph(a: &CscMatrix<f64>) -> Result<(Vec<i32>, Vec<i32>)> {
    let n = a.ncols();
    i32::try_from(n).map_err(|_| too_large(n))?;
    let (cp, ri) = (a.col_offsets(), a.row_indices());
    let upper = |j: usize| ri[cp[j]..cp[j + 1]].iter().copied().filter(move |&i| i < j);
    let mut count = vec![0usize; n];
    for j in 0..n {
        for i in upper(j) {
            count[i] += 1;
            count[j] += 1;
        }
    }
    let mut xadj = Vec::with_capacity(n + 1);
    let mut total = 0usize;
    xadj.push(0i32);
    for &c in &count {
        total += c;
        xadj.push(i32::try_from(total).map_err(|_| too_large(total))?);
    }
    let mut fill: Vec<usize> = xadj[..n].iter().map(|&v| v as usize).collect();
    let mut adjncy = vec![0i32; total];
    for j in 0..n {
        for i in upper(j) {
            // Both fit in i32: i < j < n.
            adjncy[fill[i]] = j as i32;
            fill[i] += 1;
            adjncy[fill[j]] = i as i32;
            fill[j] += 1;
        }
    }
    Ok((xadj, adjncy))
}

/// The pattern of the lower (`lower = true`, rows `≥` column) or upper triangle of `a`, with the
/// diagonal, as `(col_ptr, row_idx)`.
pub(crate) fn triangle_pattern(a: &CscMatrix<f64>, lower: bool) -> (Vec<usize>, Vec<usize>) {
    let n = a.ncols();
    let mut cp = Vec::with_capacity(n + 1);
    let mut ri = Vec::with_capacity(a.nnz() / 2 + n);
    cp.push(0);
    for j in 0..n {
        let col = a.col(j);
        ri.extend(col.row_indices().iter().copied().filter(|&i| if lower { i >= j } else { i <= j }));
        cp.push(ri.len());
    }
    (cp, ri)
}

/// The symmetric permutation `B = P A Pᵀ`, `B[new_i, new_j] = A[perm[new_i], perm[new_j]]`,
/// in parallel, with sorted row indices.
///
/// ```
/// use kern_sparse::{permute_symmetric, Permutation};
/// let a = nalgebra_sparse::CscMatrix::from(&nalgebra::DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 3.0]));
/// let b = permute_symmetric(&a, &Permutation::from_vec(vec![1, 0])?)?;
/// assert_eq!(b.get_entry(0, 0).unwrap().into_value(), 3.0);
/// assert_eq!(b.get_entry(1, 0).unwrap().into_value(), 2.0);
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
pub fn permute_symmetric(a: &CscMatrix<f64>, p: &Permutation) -> Result<CscMatrix<f64>> {
    let n = check_square(a)?;
    if p.len() != n {
        return Err(SparseError::Dimension { what: "permutation", expected: n, found: p.len() });
    }
    let cols: Vec<Vec<(usize, f64)>> = (0..n)
        .into_par_iter()
        .map(|jn| {
            let col = a.col(p.perm[jn]);
            let mut v: Vec<(usize, f64)> =
                col.row_indices().iter().zip(col.values()).map(|(&i, &x)| (p.inv[i], x)).collect();
            v.sort_unstable_by_key(|e| e.0);
            v
        })
        .collect();
    let mut cp = Vec::with_capacity(n + 1);
    let mut ri = Vec::with_capacity(a.nnz());
    let mut vals = Vec::with_capacity(a.nnz());
    cp.push(0);
    for c in cols {
        for (i, x) in c {
            ri.push(i);
            vals.push(x);
        }
        cp.push(ri.len());
    }
    CscMatrix::try_from_csc_data(n, n, cp, ri, vals).map_err(|e| SparseError::Matrix(e.to_string()))
}
