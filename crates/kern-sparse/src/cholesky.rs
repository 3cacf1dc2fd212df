//! Cholesky factorizations `A + s·I = L Lᵀ` behind one interface, dense (faer `Mat`, for globally
//! supported kernels) and sparse (faer's supernodal/simplicial sparse LLᵀ, for `K_C`).
//!
//! A [`CholeskyPlan`] owns the matrix and, on the sparse path, its ordering and symbolic analysis,
//! done once per pattern; [`CholeskyPlan::factor`] then factors `A + s·I` for any shift `s` (for
//! LS-SVM `s = 1/λ`, eq. 14), reusing the analysis. A non-positive pivot is reported as
//! [`SparseError::NotPositiveDefinite`] with its position in the caller's numbering.
//!
//! **Memory of the sparse path.** Beside the factor, the numeric step needs only one copy of a triangle
//! of `A`: the plan stores it already permuted, in the layout faer's numeric step reads (`P A Pᵀ`,
//! lower for a supernodal factor, upper for a simplicial one), so faer's working space holds no second,
//! permuted copy; the shift is added to the plan's own diagonal for the duration of the step and the
//! saved diagonal written back afterwards (no shifted copy of the values, unless the plan is shared);
//! and the indices are 32-bit whenever every count fits (see [`CholeskyPlan::index_bytes`]).
//!
//! ```
//! use kern_core::{CompactlySupported, Gaussian, Samples};
//! use kern_sparse::{CholeskyPlan, GramMatrix, Ordering};
//! let x = Samples::from_rows(&[[0.0], [0.4], [0.9], [3.0]])?;
//! let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
//! let g = GramMatrix::build(&k, &x)?; // sparse K_C
//! let mut plan = CholeskyPlan::new(g.clone(), Ordering::Amd)?;
//! let b = [1.0, 2.0, 0.0, -1.0];
//! for s in [0.1, 1.0] {
//!     let sol = plan.factor(s)?.solve(&b)?; // (K_C + s·I) x = b, one symbolic analysis
//!     let kx = g.mul_vec(&sol)?;
//!     assert!((0..4).all(|i| (kx[i] + s * sol[i] - b[i]).abs() < 1e-12));
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod triangle;

use crate::error::{Result, SparseError};
use crate::kmatrix::GramMatrix;
use crate::ordering::{Ordering, Permutation, check_square, order};
use faer::Index;
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt;
use faer::sparse::linalg::cholesky::{
    LltRef, SymbolicCholesky, SymbolicCholeskyRaw, supernodal::SupernodalLltRef,
};
use faer::{Conj, Mat, MatMut, Par};
use nalgebra_sparse::CscMatrix;
use std::sync::Arc;
use triangle::{Analysis, Csc, ShiftedDiagonal, Triangle, numeric, numeric_scratch};

/// [`Ordering::Auto`] tries nested dissection only when the better of AMD and RCM predicts at least this
/// many non-zeros in `L`: METIS's ordering costs seconds on large patterns, so it pays only when the
/// factorization itself is long. Measured on green-red data, `cs-gaussian:sigma=0.6,c=0.12,nu=3`
/// (loaded machine): n = 20,000 (80 neighbours per row), AMD 0.5 s to order and 1.1 s to factor its
/// 7.4 M-entry `L`, nested dissection 5 s to order for 6.4 M entries; n = 50,000 (200 per row), AMD
/// 3.9 s + 23.6 s for 52 M entries, nested dissection 22 s + 11.7 s for 48 M: about even.
///
/// ```
/// use kern_sparse::{AUTO_ND_MIN_FACTOR_NNZ, CholeskyPlan, Ordering};
/// // An arrow matrix: a dense first row and column, and the diagonal.
/// let n = 6;
/// let a = nalgebra::DMatrix::<f64>::from_fn(n, n, |i, j| match (i, j) {
///     _ if i == j => n as f64,
///     (0, _) | (_, 0) => 1.0,
///     _ => 0.0,
/// });
/// let a = nalgebra_sparse::CscMatrix::from(&a);
/// let fill = |o| Ok::<_, kern_sparse::SparseError>(CholeskyPlan::sparse(&a, o)?.factor_nnz());
/// let (amd, rcm) = (fill(Ordering::Amd)?, fill(Ordering::Rcm)?);
/// // Far below the threshold, `Auto` keeps the better of AMD and RCM without nested dissection.
/// assert!(amd.min(rcm) < AUTO_ND_MIN_FACTOR_NNZ);
/// assert_eq!(fill(Ordering::Auto)?, amd.min(rcm));
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
pub const AUTO_ND_MIN_FACTOR_NNZ: usize = 100_000_000;

/// The largest count — the order `n`, the stored entries of the lower triangle, the stored values of
/// the factor — for which the sparse path indexes with `u32`: faer's 32-bit index arithmetic goes
/// through `i32`, and its symbolic analysis refuses a factor of more values.
const NARROW_INDEX_MAX: usize = i32::MAX as usize;

/// The reusable part of a Cholesky factorization of `A + s·I`: the matrix, and on the sparse path the
/// fill-reducing ordering and faer's symbolic analysis (computed once, shared by every shift).
///
/// Factoring takes the plan mutably: on the sparse path the shift is added to the plan's own diagonal
/// for the duration of the numeric step, and the saved diagonal entries are written back afterwards (bit
/// for bit, also when the step fails), so every factorization of one plan sees exactly `A + s·I`. A plan
/// that is *shared* — cloned, with the clone still alive — is not modified: its factorizations work on a
/// shifted copy of the values (the same bytes, one more copy of the values in memory).
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// use kern_sparse::{CholeskyPlan, GramMatrix, Ordering};
/// let x = Samples::from_rows(&[[0.0], [0.4], [0.9], [3.0]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
/// let mut plan = CholeskyPlan::new(GramMatrix::build(&k, &x)?, Ordering::Amd)?;
/// for lambda in [0.1, 1.0, 10.0] {
///     let chol = plan.factor(1.0 / lambda)?;          // K + I/λ, symbolic analysis reused
///     let x = chol.solve(&[1.0, 0.0, 0.0, 0.0])?;
///     assert_eq!(x.len(), 4);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct CholeskyPlan {
    kind: PlanKind,
}

#[derive(Clone, Debug)]
enum PlanKind {
    Dense(Mat<f64>),
    /// Sparse, 32-bit indices (every count fits [`NARROW_INDEX_MAX`]).
    Narrow(Arc<SparsePlan<u32>>),
    /// Sparse, `usize` indices.
    Wide(Arc<SparsePlan<usize>>),
}

#[derive(Debug)]
struct SparsePlan<I: Index> {
    n: usize,
    perm: Permutation,
    /// The triangle of `P A Pᵀ` that faer's numeric step reads (see [`Csc::permute`]).
    input: Csc<I>,
    symbolic: Arc<SymbolicCholesky<I>>,
}

impl<I: Index> SparsePlan<I> {
    fn new(perm: Permutation, lower: Csc<I>, symbolic: SymbolicCholesky<I>) -> Result<Arc<Self>> {
        let n = lower.n();
        let input = lower.permute(&symbolic)?;
        Ok(Arc::new(SparsePlan { n, perm, input, symbolic: Arc::new(symbolic) }))
    }

    /// `(factor, scratch)` bytes of the numeric step (see [`CholeskyPlan::factor_bytes`]).
    fn factor_bytes(&self, par: Par) -> (u64, u64) {
        (8 * self.symbolic.len_val() as u64, numeric_scratch(&self.symbolic, par).size_bytes() as u64)
    }
}

impl CholeskyPlan {
    /// A plan for a dense or sparse Gram matrix; `ordering` applies to the sparse path
    /// ([`Ordering::Auto`], the default, keeps whichever of AMD, RCM and — for large factors, see
    /// [`AUTO_ND_MIN_FACTOR_NNZ`] — nested dissection fills least).
    pub fn new(gram: GramMatrix, ordering: Ordering) -> Result<Self> {
        match gram {
            GramMatrix::Dense(m) => Self::dense(m),
            GramMatrix::Sparse(m) => Self::sparse(&m, ordering),
        }
    }

    /// A plan for a dense symmetric matrix (only the lower triangle is read).
    ///
    /// ```
    /// let a = faer::Mat::from_fn(3, 3, |i, j| if i == j { 2.0 } else { 0.5 });
    /// let chol = kern_sparse::CholeskyPlan::dense(a)?.factor(0.0)?;
    /// assert!(!chol.is_sparse());
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn dense(a: Mat<f64>) -> Result<Self> {
        if a.nrows() != a.ncols() {
            return Err(SparseError::Matrix(format!(
                "matrix is {} x {}, expected square",
                a.nrows(),
                a.ncols()
            )));
        }
        Ok(CholeskyPlan { kind: PlanKind::Dense(a) })
    }

    /// A plan for a structurally symmetric sparse matrix (full symmetric storage; only the lower
    /// triangle's values are read, missing diagonal entries count as zeros): orders it and runs faer's
    /// symbolic Cholesky analysis.
    ///
    /// ```
    /// use kern_sparse::{CholeskyPlan, Ordering};
    /// let a = nalgebra_sparse::CscMatrix::<f64>::identity(3);
    /// let plan = CholeskyPlan::sparse(&a, Ordering::Rcm)?;
    /// assert_eq!(plan.permutation().unwrap().len(), 3);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn sparse(a: &CscMatrix<f64>, ordering: Ordering) -> Result<Self> {
        let perm = if ordering == Ordering::Auto { None } else { Some(order(a, ordering)?) };
        Self::sparse_ordered(a, perm)
    }

    /// A sparse plan with a fill-reducing permutation computed beforehand (e.g. by [`order`], whose
    /// result a caller has already inspected), so the ordering is not computed twice.
    ///
    /// ```
    /// use kern_sparse::{CholeskyPlan, Ordering, order};
    /// let a = nalgebra_sparse::CscMatrix::<f64>::identity(3);
    /// let p = order(&a, Ordering::Rcm)?;
    /// let plan = CholeskyPlan::sparse_with_permutation(&a, p.clone())?;
    /// assert_eq!(plan.permutation(), Some(&p));
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn sparse_with_permutation(a: &CscMatrix<f64>, perm: Permutation) -> Result<Self> {
        if perm.len() != a.ncols() {
            return Err(SparseError::Dimension {
                what: "permutation",
                expected: a.ncols(),
                found: perm.len(),
            });
        }
        Self::sparse_ordered(a, Some(perm))
    }

    /// The sparse plan for a given permutation, or for the least-fill of AMD, RCM and nested
    /// dissection (`None`, `Auto`; see [`AUTO_ND_MIN_FACTOR_NNZ`]).
    fn sparse_ordered(a: &CscMatrix<f64>, perm: Option<Permutation>) -> Result<Self> {
        Self::sparse_ordered_with(a, perm, AUTO_ND_MIN_FACTOR_NNZ, NARROW_INDEX_MAX)
    }

    /// [`CholeskyPlan::sparse_ordered`] with the nested-dissection threshold of `Auto` and the largest
    /// count indexed with `u32` as parameters.
    fn sparse_ordered_with(
        a: &CscMatrix<f64>,
        perm: Option<Permutation>,
        nd_min_factor_nnz: usize,
        narrow_max: usize,
    ) -> Result<Self> {
        check_square(a)?;
        let mut lower = Triangle::new(a, narrow_max);
        let (perm, analysis) = match perm {
            Some(p) => {
                let s = lower.analyse(&p, narrow_max)?;
                (p, s)
            }
            // Ordering::Auto: the ordering with the smallest predicted factor (ties: the earlier one);
            // nested dissection only when the factor is large enough to repay METIS's ordering time.
            None => {
                let mut best: Option<(Permutation, Analysis)> = None;
                for o in [Ordering::Amd, Ordering::Rcm, Ordering::NestedDissection] {
                    if o == Ordering::NestedDissection
                        && (!crate::ordering::HAS_NESTED_DISSECTION
                            || best.as_ref().is_some_and(|(_, b)| b.nnz() < nd_min_factor_nnz))
                    {
                        continue;
                    }
                    let p = order(a, o)?;
                    let s = lower.analyse(&p, narrow_max)?;
                    if best.as_ref().is_none_or(|(_, b)| s.nnz() < b.nnz()) {
                        best = Some((p, s));
                    }
                }
                best.expect("AMD and RCM are always analysed")
            }
        };
        // Auto may have widened the triangle after analysing its best ordering with 32-bit indices.
        let analysis = if matches!((&lower, &analysis), (Triangle::Wide(_), Analysis::Narrow(_))) {
            lower.analyse(&perm, narrow_max)?
        } else {
            analysis
        };
        let kind = match (lower, analysis) {
            (Triangle::Narrow(l), Analysis::Narrow(s)) => PlanKind::Narrow(SparsePlan::new(perm, l, s)?),
            (Triangle::Wide(l), Analysis::Wide(s)) => PlanKind::Wide(SparsePlan::new(perm, l, s)?),
            // Not reached: a triangle is only ever widened, and a narrow analysis of a widened one was
            // redone above.
            _ => return Err(SparseError::Faer("symbolic analysis and matrix differ in index type".into())),
        };
        Ok(CholeskyPlan { kind })
    }

    /// Matrix size `n`.
    pub fn n(&self) -> usize {
        match &self.kind {
            PlanKind::Dense(m) => m.ncols(),
            PlanKind::Narrow(p) => p.n,
            PlanKind::Wide(p) => p.n,
        }
    }

    /// Whether this is the sparse path.
    pub fn is_sparse(&self) -> bool {
        !matches!(self.kind, PlanKind::Dense(_))
    }

    /// Bytes of one index of the sparse path's matrix and symbolic factorization (`None` dense): 4 when
    /// the order, the stored entries of the lower triangle and the stored values of the factor are all at
    /// most `i32::MAX` (faer's 32-bit index limit), 8 otherwise. Chosen when the plan is built, before
    /// anything of the numeric factorization is allocated.
    ///
    /// ```
    /// use kern_sparse::{CholeskyPlan, Ordering};
    /// let a = nalgebra_sparse::CscMatrix::<f64>::identity(4);
    /// assert_eq!(CholeskyPlan::sparse(&a, Ordering::Amd)?.index_bytes(), Some(4));
    /// assert_eq!(CholeskyPlan::dense(faer::Mat::<f64>::identity(4, 4))?.index_bytes(), None);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn index_bytes(&self) -> Option<usize> {
        match &self.kind {
            PlanKind::Dense(_) => None,
            PlanKind::Narrow(_) => Some(size_of::<u32>()),
            PlanKind::Wide(_) => Some(size_of::<usize>()),
        }
    }

    /// The fill-reducing permutation of the sparse path (`None` for dense).
    pub fn permutation(&self) -> Option<&Permutation> {
        match &self.kind {
            PlanKind::Dense(_) => None,
            PlanKind::Narrow(p) => Some(&p.perm),
            PlanKind::Wide(p) => Some(&p.perm),
        }
    }

    /// Structural non-zeros of the factor `L` (diagonal included): `n(n+1)/2` dense. faer's
    /// supernodal storage holds a little more (the upper part of each diagonal block).
    ///
    /// ```
    /// use kern_sparse::{CholeskyPlan, Ordering};
    /// let a = nalgebra_sparse::CscMatrix::<f64>::identity(4);
    /// assert_eq!(CholeskyPlan::sparse(&a, Ordering::Amd)?.factor_nnz(), 4);
    /// assert_eq!(CholeskyPlan::dense(faer::Mat::<f64>::identity(4, 4))?.factor_nnz(), 10);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn factor_nnz(&self) -> usize {
        match &self.kind {
            PlanKind::Dense(m) => m.ncols() * (m.ncols() + 1) / 2,
            PlanKind::Narrow(p) => symbolic_nnz(&p.symbolic),
            PlanKind::Wide(p) => symbolic_nnz(&p.symbolic),
        }
    }

    /// Bytes the numeric factorization allocates: `(factor, scratch)` — the values of `L` (8 bytes per
    /// stored entry; `8·n²` dense) and faer's working space (on the sparse path the update matrices of
    /// the supernodes, on the dense one the blocked workspace). Both are checked against the memory budget before [`CholeskyPlan::factor`] allocates
    /// them, together with what the shift needs on the sparse path (the `n` saved diagonal entries, or
    /// a shifted copy of the values when the plan is shared); a caller can read them first to report
    /// what a factorization will need.
    ///
    /// ```
    /// use kern_sparse::{CholeskyPlan, Ordering};
    /// let a = nalgebra_sparse::CscMatrix::<f64>::identity(4);
    /// let (factor, _scratch) = CholeskyPlan::sparse(&a, Ordering::Amd)?.factor_bytes();
    /// assert_eq!(factor, 8 * 4);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn factor_bytes(&self) -> (u64, u64) {
        let par = kern_core::parallel::faer_par();
        match &self.kind {
            PlanKind::Dense(m) => {
                let n = m.ncols();
                let req = llt::factor::cholesky_in_place_scratch::<f64>(n, par, Default::default());
                (8 * (n as u64) * (n as u64), req.size_bytes() as u64)
            }
            PlanKind::Narrow(p) => p.factor_bytes(par),
            PlanKind::Wide(p) => p.factor_bytes(par),
        }
    }

    /// Factors `A + shift·I` (e.g. `shift = 1/λ` for LS-SVM, eq. 14). The plan is unchanged afterwards
    /// (see [`CholeskyPlan`] for how the shift is applied), so one plan serves any number of shifts.
    ///
    /// ```
    /// use kern_sparse::{CholeskyPlan, SparseError};
    /// let a = faer::Mat::from_fn(2, 2, |i, j| if i == j { 1.0 } else { 2.0 });   // eigenvalues 3, -1
    /// let mut plan = CholeskyPlan::dense(a)?;
    /// assert!(matches!(plan.factor(0.0), Err(SparseError::NotPositiveDefinite { pivot: 1, .. })));
    /// assert!(plan.factor(1.5).is_ok());
    /// # Ok::<(), SparseError>(())
    /// ```
    pub fn factor(&mut self, shift: f64) -> Result<Cholesky> {
        if !shift.is_finite() {
            return Err(SparseError::Param { name: "shift", value: shift, reason: "must be finite" });
        }
        let sparse = |n, factor| Cholesky::Sparse(SparseCholesky { n, factor, shift });
        match &mut self.kind {
            PlanKind::Dense(a) => factor_dense(a, shift).map(Cholesky::Dense),
            PlanKind::Narrow(p) => factor_sparse(p, shift).map(|f| sparse(p.n, SparseFactor::Narrow(f))),
            PlanKind::Wide(p) => factor_sparse(p, shift).map(|f| sparse(p.n, SparseFactor::Wide(f))),
        }
    }
}

/// What to do when a dense matrix does not fit in memory.
pub(crate) const DENSE_INSTEAD: &str = "use a compactly supported kernel (cs-gaussian, ...) with the sparse path, or fewer samples, or raise the memory limit (set_limit)";

fn factor_dense(a: &Mat<f64>, shift: f64) -> Result<DenseCholesky> {
    let n = a.ncols();
    kern_core::memory::check_array::<f64>(&[n, n], "dense Cholesky factor", DENSE_INSTEAD)?;
    let mut l = a.clone();
    for i in 0..n {
        l[(i, i)] += shift;
    }
    let par = kern_core::parallel::faer_par();
    let req = llt::factor::cholesky_in_place_scratch::<f64>(n, par, Default::default());
    let mut mem = MemBuffer::try_new(req).map_err(|_| SparseError::Faer("out of memory".into()))?;
    llt::factor::cholesky_in_place(
        l.as_mut(),
        Default::default(),
        par,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .map_err(|e| match e {
        llt::factor::LltError::NonPositivePivot { index } => {
            SparseError::NotPositiveDefinite { pivot: index, step: index, shift, pivot_value: None }
        }
    })?;
    // Zero the strict upper triangle so that `l` is exactly L.
    for j in 1..n {
        for i in 0..j {
            l[(i, j)] = 0.0;
        }
    }
    Ok(DenseCholesky { l, shift })
}

/// Factors `A + shift·I` over the plan's symbolic analysis: in place on the plan's values when the plan
/// is uniquely owned, on a shifted copy when it is shared (see [`CholeskyPlan`]).
fn factor_sparse<I: Index>(plan: &mut Arc<SparsePlan<I>>, shift: f64) -> Result<Factor<I>> {
    let symbolic = Arc::clone(&plan.symbolic);
    let par = kern_core::parallel::faer_par();
    const INSTEAD: &str = "try another fill-reducing ordering (amd usually fills least), a smaller support radius, or raise the memory limit (set_limit)";
    let req = numeric_scratch(&symbolic, par);
    let shared = Arc::get_mut(plan).is_none();
    // Alive together through the numeric step, beside the plan: the factor, faer's working space and
    // what the shift needs — the n saved diagonal entries, or a shifted copy of the values of a shared
    // plan. All of it counts against the budget.
    let shift_values = if shared { plan.input.values.len() } else { plan.n };
    let need = 8 * (symbolic.len_val() as u64 + shift_values as u64) + req.size_bytes() as u64;
    kern_core::memory::check_bytes(need, "sparse Cholesky factor and its working space", INSTEAD)?;
    let mut l_values =
        kern_core::memory::try_filled(symbolic.len_val(), 0.0, "sparse Cholesky factor", INSTEAD)?;
    let mut mem = MemBuffer::try_new(req).map_err(|_| SparseError::Faer("out of memory".into()))?;
    let outcome = match Arc::get_mut(plan) {
        Some(p) => {
            let Csc { col_ptr, row_idx, values, diag_pos } = &mut p.input;
            let shifted = ShiftedDiagonal::new(values, diag_pos, shift);
            numeric(
                &symbolic,
                (&col_ptr[..], &row_idx[..], &shifted.values[..]),
                &mut l_values,
                &mut mem,
                par,
            )
        }
        None => {
            let l = &plan.input;
            let mut copy =
                kern_core::memory::try_with_capacity(l.values.len(), "shifted copy of the matrix", INSTEAD)?;
            copy.extend_from_slice(&l.values);
            for &d in &l.diag_pos {
                copy[d] += shift;
            }
            numeric(&symbolic, (&l.col_ptr, &l.row_idx, &copy), &mut l_values, &mut mem, par)
        }
    };
    outcome.map_err(|e| {
        let llt::factor::LltError::NonPositivePivot { index } = e;
        // faer 0.24 reports the simplicial step 1-based and the supernodal one 0-based.
        let step = match symbolic.raw() {
            SymbolicCholeskyRaw::Simplicial(_) => index.saturating_sub(1),
            SymbolicCholeskyRaw::Supernodal(_) => index,
        };
        SparseError::NotPositiveDefinite {
            pivot: plan.perm.perm().get(step).copied().unwrap_or(step),
            step,
            shift,
            pivot_value: None,
        }
    })?;
    Ok(Factor { symbolic, values: l_values })
}

/// A dense factor `A + s·I = L Lᵀ`.
///
/// ```
/// use kern_sparse::{Cholesky, CholeskyPlan};
/// let a = faer::mat![[4.0, 2.0], [2.0, 3.0]];
/// let Cholesky::Dense(c) = CholeskyPlan::dense(a)?.factor(0.0)? else { unreachable!() };
/// let l = c.l();
/// assert_eq!((l[(0, 0)], l[(1, 0)], l[(0, 1)]), (2.0, 1.0, 0.0)); // lower triangular
/// assert!((l[(1, 1)] - 2f64.sqrt()).abs() < 1e-15);                // 1 + 2 = 3
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
#[derive(Clone, Debug)]
pub struct DenseCholesky {
    l: Mat<f64>,
    shift: f64,
}

impl DenseCholesky {
    /// The lower-triangular factor `L`.
    pub fn l(&self) -> &Mat<f64> {
        &self.l
    }
}

/// A sparse factor `P (A + s·I) Pᵀ = L Lᵀ` (faer's numeric values over the plan's symbolic analysis).
///
/// ```
/// use kern_sparse::{Cholesky, CholeskyPlan, Ordering};
/// let dense = nalgebra::DMatrix::from_row_slice(3, 3, &[2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0, 1.0, 2.0]);
/// let chol = CholeskyPlan::sparse(&nalgebra_sparse::CscMatrix::from(&dense), Ordering::Amd)?.factor(1.0)?;
/// assert!(matches!(chol, Cholesky::Sparse(_)));
/// // (A + I) x = b, checked against the matrix.
/// let b = [1.0, 2.0, 3.0];
/// let x = nalgebra::DVector::from_vec(chol.solve(&b)?);
/// let r = (dense + nalgebra::DMatrix::identity(3, 3)) * x;
/// assert!((0..3).all(|i| (r[i] - b[i]).abs() < 1e-14));
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
#[derive(Clone, Debug)]
pub struct SparseCholesky {
    n: usize,
    factor: SparseFactor,
    shift: f64,
}

/// The numeric factor over a symbolic analysis with 32-bit or `usize` indices.
#[derive(Clone, Debug)]
enum SparseFactor {
    Narrow(Factor<u32>),
    Wide(Factor<usize>),
}

/// faer's symbolic factorization and the numeric values of `L` in its layout.
#[derive(Clone, Debug)]
struct Factor<I: Index> {
    symbolic: Arc<SymbolicCholesky<I>>,
    values: Vec<f64>,
}

/// The factor of a [`SparseCholesky`] as faer stores it: the symbolic factorization (it carries the
/// fill-reducing permutation, `L Lᵀ = P (A + s·I) Pᵀ`) and the numeric values of `L` in faer's layout,
/// with the index type the plan chose ([`CholeskyPlan::index_bytes`]).
///
/// ```
/// use kern_sparse::{CholeskyPlan, Cholesky, Ordering, RawFactor};
/// let a = nalgebra_sparse::CscMatrix::<f64>::identity(3);
/// let Cholesky::Sparse(c) = CholeskyPlan::sparse(&a, Ordering::Amd)?.factor(3.0)? else { unreachable!() };
/// match c.raw_factor() {
///     RawFactor::U32(symbolic, values) => assert_eq!((symbolic.nrows(), values.len()), (3, 3)),
///     RawFactor::Usize(..) => unreachable!("three entries fit 32-bit indices"),
/// }
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub enum RawFactor<'a> {
    /// 32-bit indices.
    U32(&'a SymbolicCholesky<u32>, &'a [f64]),
    /// `usize` indices.
    Usize(&'a SymbolicCholesky<usize>, &'a [f64]),
}

impl SparseCholesky {
    /// faer's symbolic factorization and the numeric values of `L`, for algorithms on the factor itself
    /// (e.g. the selected inversion behind kern-models' exact leave-one-out residuals); see
    /// [`RawFactor`].
    pub fn raw_factor(&self) -> RawFactor<'_> {
        match &self.factor {
            SparseFactor::Narrow(f) => RawFactor::U32(&f.symbolic, &f.values),
            SparseFactor::Wide(f) => RawFactor::Usize(&f.symbolic, &f.values),
        }
    }
}

impl<I: Index> Factor<I> {
    fn solve_in_place(&self, b: MatMut<'_, f64>, par: Par) -> Result<()> {
        let req: StackReq = self.symbolic.solve_in_place_scratch::<f64>(b.ncols(), par);
        let mut mem = MemBuffer::try_new(req).map_err(|_| SparseError::Faer("out of memory".into()))?;
        LltRef::new(&self.symbolic, &self.values).solve_in_place_with_conj(
            Conj::No,
            b,
            par,
            MemStack::new(&mut mem),
        );
        Ok(())
    }

    /// `Σ log L_jj`.
    fn log_diag_sum(&self) -> f64 {
        match self.symbolic.raw() {
            SymbolicCholeskyRaw::Simplicial(s) => {
                let cp = s.col_ptr();
                (0..s.nrows()).map(|j| self.values[cp[j].zx()].ln()).sum::<f64>()
            }
            SymbolicCholeskyRaw::Supernodal(s) => {
                let lref = SupernodalLltRef::new(s, &self.values);
                let mut sum = 0.0;
                for k in 0..s.n_supernodes() {
                    let val = lref.supernode(k).val();
                    for j in 0..val.ncols() {
                        sum += val[(j, j)].ln();
                    }
                }
                sum
            }
        }
    }
}

/// A numeric Cholesky factorization of `A + s·I`, dense or sparse, with one interface.
///
/// ```
/// use kern_sparse::{CholeskyPlan, Ordering};
/// let a = nalgebra_sparse::CscMatrix::from(&nalgebra::DMatrix::from_row_slice(2, 2, &[4.0, 1.0, 1.0, 3.0]));
/// let sparse = CholeskyPlan::sparse(&a, Ordering::Amd)?.factor(0.0)?;
/// let dense = CholeskyPlan::dense(faer::Mat::from_fn(2, 2, |i, j| [[4.0, 1.0], [1.0, 3.0]][i][j]))?.factor(0.0)?;
/// let (xs, xd) = (sparse.solve(&[1.0, 2.0])?, dense.solve(&[1.0, 2.0])?);
/// assert!((xs[0] - 1.0 / 11.0).abs() < 1e-15 && (xd[1] - 7.0 / 11.0).abs() < 1e-15);
/// assert!((sparse.log_det() - 11f64.ln()).abs() < 1e-14);
/// # Ok::<(), kern_sparse::SparseError>(())
/// ```
#[derive(Clone, Debug)]
pub enum Cholesky {
    /// Dense factor.
    Dense(DenseCholesky),
    /// Sparse factor.
    Sparse(SparseCholesky),
}

impl Cholesky {
    /// Matrix size `n`.
    pub fn n(&self) -> usize {
        match self {
            Cholesky::Dense(c) => c.l.ncols(),
            Cholesky::Sparse(c) => c.n,
        }
    }

    /// Whether this is a sparse factor.
    pub fn is_sparse(&self) -> bool {
        matches!(self, Cholesky::Sparse(_))
    }

    /// The shift `s` that was added to the diagonal.
    pub fn shift(&self) -> f64 {
        match self {
            Cholesky::Dense(c) => c.shift,
            Cholesky::Sparse(c) => c.shift,
        }
    }

    /// Structural non-zeros of `L` (see [`CholeskyPlan::factor_nnz`]).
    pub fn factor_nnz(&self) -> usize {
        match self {
            Cholesky::Dense(c) => c.l.ncols() * (c.l.ncols() + 1) / 2,
            Cholesky::Sparse(c) => match &c.factor {
                SparseFactor::Narrow(f) => symbolic_nnz(&f.symbolic),
                SparseFactor::Wide(f) => symbolic_nnz(&f.symbolic),
            },
        }
    }

    /// Solves `(A + s·I) x = b`.
    pub fn solve(&self, b: &[f64]) -> Result<Vec<f64>> {
        let mut x = b.to_vec();
        self.solve_in_place(&mut x)?;
        Ok(x)
    }

    /// Solves `(A + s·I) x = b` in place (`b` becomes `x`).
    pub fn solve_in_place(&self, b: &mut [f64]) -> Result<()> {
        let n = self.n();
        if b.len() != n {
            return Err(SparseError::Dimension { what: "right-hand side", expected: n, found: b.len() });
        }
        self.solve_mat_in_place(MatMut::from_column_major_slice_mut(b, n, 1))
    }

    /// Solves `(A + s·I) X = B` for several right-hand sides in place (`B` is `n × k`).
    ///
    /// ```
    /// let chol = kern_sparse::CholeskyPlan::dense(faer::Mat::<f64>::identity(3, 3))?.factor(1.0)?;
    /// let mut b = faer::Mat::from_fn(3, 2, |i, j| (i + j) as f64);
    /// chol.solve_mat_in_place(b.as_mut())?;
    /// assert!((b[(2, 1)] - 1.5).abs() < 1e-15);
    /// # Ok::<(), kern_sparse::SparseError>(())
    /// ```
    pub fn solve_mat_in_place(&self, mut b: MatMut<'_, f64>) -> Result<()> {
        let n = self.n();
        if b.nrows() != n {
            return Err(SparseError::Dimension {
                what: "right-hand side rows",
                expected: n,
                found: b.nrows(),
            });
        }
        let k = b.ncols();
        let par = kern_core::parallel::faer_par();
        match self {
            Cholesky::Dense(c) => {
                let req = llt::solve::solve_in_place_scratch::<f64>(n, k, par);
                let mut mem =
                    MemBuffer::try_new(req).map_err(|_| SparseError::Faer("out of memory".into()))?;
                llt::solve::solve_in_place_with_conj(
                    c.l.as_ref(),
                    Conj::No,
                    b.as_mut(),
                    par,
                    MemStack::new(&mut mem),
                );
                Ok(())
            }
            Cholesky::Sparse(c) => match &c.factor {
                SparseFactor::Narrow(f) => f.solve_in_place(b, par),
                SparseFactor::Wide(f) => f.solve_in_place(b, par),
            },
        }
    }

    /// `log det(A + s·I) = 2 Σ log L_jj`.
    pub fn log_det(&self) -> f64 {
        match self {
            Cholesky::Dense(c) => 2.0 * (0..c.l.ncols()).map(|j| c.l[(j, j)].ln()).sum::<f64>(),
            Cholesky::Sparse(c) => match &c.factor {
                SparseFactor::Narrow(f) => 2.0 * f.log_diag_sum(),
                SparseFactor::Wide(f) => 2.0 * f.log_diag_sum(),
            },
        }
    }
}

/// Structural nonzeros of `L` predicted by a symbolic analysis (supernodes counted as dense trapezoids).
fn symbolic_nnz<I: Index>(s: &SymbolicCholesky<I>) -> usize {
    match s.raw() {
        SymbolicCholeskyRaw::Simplicial(s) => s.len_val(),
        SymbolicCholeskyRaw::Supernodal(s) => (0..s.n_supernodes())
            .map(|k| {
                let w = s.supernode_end()[k].zx() - s.supernode_begin()[k].zx();
                w * (w + 1) / 2 + s.supernode(k).pattern().len() * w
            })
            .sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::triangle::lower_nnz;
    use super::*;

    /// A 40 × 40 five-point grid (SPD).
    fn grid() -> CscMatrix<f64> {
        let m = 40;
        let mut coo = nalgebra_sparse::CooMatrix::new(m * m, m * m);
        for v in 0..m * m {
            coo.push(v, v, 4.0);
            if v % m + 1 < m {
                coo.push(v, v + 1, -1.0);
                coo.push(v + 1, v, -1.0);
            }
            if v + m < m * m {
                coo.push(v, v + m, -1.0);
                coo.push(v + m, v, -1.0);
            }
        }
        CscMatrix::from(&coo)
    }

    /// The factor's values, bit patterns.
    fn factor_bits(plan: &mut CholeskyPlan, shift: f64) -> Vec<u64> {
        let Cholesky::Sparse(c) = plan.factor(shift).unwrap() else { panic!("sparse plan, dense factor") };
        let values = match c.raw_factor() {
            RawFactor::U32(_, v) | RawFactor::Usize(_, v) => v,
        };
        values.iter().map(|v| v.to_bits()).collect()
    }

    #[test]
    fn auto_weighs_nested_dissection_above_the_threshold() {
        // With the threshold at 0, Auto keeps the least fill of all three.
        let a = grid();
        let fill = |o| CholeskyPlan::sparse(&a, o).unwrap().factor_nnz();
        let (amd, rcm, nd) = (fill(Ordering::Amd), fill(Ordering::Rcm), fill(Ordering::NestedDissection));
        let auto = |nd_min| CholeskyPlan::sparse_ordered_with(&a, None, nd_min, NARROW_INDEX_MAX).unwrap();
        assert_eq!(auto(0).factor_nnz(), amd.min(rcm).min(nd));
        let cheap = auto(usize::MAX).factor_nnz();
        assert_eq!(cheap, amd.min(rcm));
        assert_eq!(
            fill(Ordering::Auto),
            if amd.min(rcm) >= AUTO_ND_MIN_FACTOR_NNZ { auto(0).factor_nnz() } else { cheap }
        );
    }

    #[test]
    fn index_width_is_chosen_at_each_count_boundary() {
        // The largest count is the factor's stored values, then the triangle's entries, then n.
        let a = grid();
        let p = order(&a, Ordering::Amd).unwrap();
        let plan = |max| CholeskyPlan::sparse_ordered_with(&a, Some(p.clone()), 0, max).unwrap();
        let (n, nnz) = (a.ncols(), lower_nnz(&a));
        let len_val = (plan(NARROW_INDEX_MAX).factor_bytes().0 / 8) as usize;
        assert!(n < nnz && nnz < len_val, "{n} {nnz} {len_val}");
        assert_eq!(nnz, n + (a.nnz() - n) / 2);
        // The factor's values decide, after the analysis, before anything numeric is allocated.
        assert_eq!(plan(len_val).index_bytes(), Some(4));
        assert_eq!(plan(len_val - 1).index_bytes(), Some(8));
        // The triangle's entries and n decide before the analysis.
        assert_eq!(plan(nnz - 1).index_bytes(), Some(8));
        assert_eq!(plan(n - 1).index_bytes(), Some(8));
        // Auto (all three orderings) widens when an ordering's factor does not fit — also after its best
        // ordering was analysed with 32-bit indices (AMD here, RCM fills more) — and keeps the same one.
        let auto = |max| CholeskyPlan::sparse_ordered_with(&a, None, 0, max).unwrap();
        let rcm =
            CholeskyPlan::sparse_ordered_with(&a, Some(order(&a, Ordering::Rcm).unwrap()), 0, usize::MAX);
        assert!((rcm.unwrap().factor_bytes().0 / 8) as usize > len_val);
        let narrow = auto(NARROW_INDEX_MAX);
        assert_eq!(narrow.index_bytes(), Some(4));
        for max in [len_val, len_val - 1] {
            let wide = auto(max);
            assert_eq!(wide.index_bytes(), Some(8));
            assert_eq!(wide.permutation(), narrow.permutation());
            assert_eq!(wide.factor_bytes().0, narrow.factor_bytes().0);
        }
    }

    #[test]
    fn narrow_and_wide_indices_factor_bit_identically() {
        let a = grid();
        for o in [Ordering::Amd, Ordering::Rcm, Ordering::Identity] {
            let p = order(&a, o).unwrap();
            let mut narrow =
                CholeskyPlan::sparse_ordered_with(&a, Some(p.clone()), 0, NARROW_INDEX_MAX).unwrap();
            let mut wide = CholeskyPlan::sparse_ordered_with(&a, Some(p), 0, 0).unwrap();
            assert_eq!((narrow.index_bytes(), wide.index_bytes()), (Some(4), Some(8)));
            assert_eq!(narrow.factor_nnz(), wide.factor_nnz());
            for shift in [0.0, 0.5, 1e-3] {
                assert_eq!(factor_bits(&mut narrow, shift), factor_bits(&mut wide, shift), "{o:?} {shift}");
            }
        }
    }

    #[test]
    fn the_diagonal_is_restored_bit_for_bit_also_after_a_failed_factorization() {
        let a = grid();
        let mut plan = CholeskyPlan::sparse(&a, Ordering::Amd).unwrap();
        let before = |plan: &CholeskyPlan| match &plan.kind {
            PlanKind::Narrow(p) => p.input.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            _ => panic!("a small sparse plan is narrow"),
        };
        let original = before(&plan);
        // The diagonal is 4: a restore by subtracting the shift would not give it back.
        assert_ne!((4.0f64 + 0.1) - 0.1, 4.0);
        plan.factor(0.1).unwrap();
        assert_eq!(before(&plan), original);
        assert!(matches!(plan.factor(-10.0), Err(SparseError::NotPositiveDefinite { .. })));
        assert_eq!(before(&plan), original);
        // A shared plan is left alone, and factors the same bytes.
        let shared = plan.clone();
        let mut other = plan.clone();
        let (a_bits, b_bits) = (factor_bits(&mut plan, 0.3), factor_bits(&mut other, 0.3));
        assert_eq!(a_bits, b_bits);
        drop((shared, other));
        assert_eq!(factor_bits(&mut plan, 0.3), a_bits);
        assert_eq!(before(&plan), original);
    }
}
