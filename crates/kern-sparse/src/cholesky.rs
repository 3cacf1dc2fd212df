//! Cholesky factorizations `A + s·I = L Lᵀ` behind one interface, dense (faer `Mat`, for globally
//! supported kernels) and sparse (faer's supernodal/simplicial sparse LLᵀ, for `K_C`).
//!
//! A [`CholeskyPlan`] owns the matrix and, on the sparse path, its ordering and symbolic analysis,
//! done once per pattern; [`CholeskyPlan::factor`] then factors `A + s·I` for any shift `s` (for
//! LS-SVM `s = 1/λ`, eq. 14), reusing the analysis. A non-positive pivot is reported as
//! [`SparseError::NotPositiveDefinite`] with its position in the caller's numbering.

use crate::error::{Result, SparseError};
use crate::kmatrix::GramMatrix;
use crate::ordering::{Ordering, Permutation, check_square, order};
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt;
use faer::perm::PermRef;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, LltRef, SymbolicCholesky, SymbolicCholeskyRaw, SymmetricOrdering,
    factorize_symbolic_cholesky, supernodal::SupernodalLltRef,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, Mat, MatMut, Side};
use nalgebra_sparse::CscMatrix;
use std::sync::Arc;

/// [`Ordering::Auto`] tries nested dissection only when the better of AMD and RCM predicts at least this
/// many non-zeros in `L`: METIS's ordering costs seconds on large patterns, so it pays only when the
/// factorization itself is long. Measured on green-red data, `cs-gaussian:sigma=0.6,c=0.12,nu=3`
/// (loaded machine): n = 20,000 (80 neighbours per row), AMD 0.5 s to order and 1.1 s to factor its
/// 7.4 M-entry `L`, nested dissection 5 s to order for 6.4 M entries; n = 50,000 (200 per row), AMD
/// 3.9 s + 23.6 s for 52 M entries, nested dissection 22 s + 11.7 s for 48 M: about even.
pub const AUTO_ND_MIN_FACTOR_NNZ: usize = 100_000_000;

/// The reusable part of a Cholesky factorization of `A + s·I`: the matrix, and on the sparse path the
/// fill-reducing ordering and faer's symbolic analysis (computed once, shared by every shift).
///
/// ```
/// use kern_core::{CompactlySupported, Gaussian, Samples};
/// use kern_sparse::{CholeskyPlan, GramMatrix, Ordering};
/// let x = Samples::from_rows(&[[0.0], [0.4], [0.9], [3.0]])?;
/// let k = CompactlySupported::new(Gaussian::with_sigma(1.0)?, 1.0, 1.0)?;
/// let plan = CholeskyPlan::new(GramMatrix::build(&k, &x)?, Ordering::Amd)?;
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
    Sparse(Arc<SparsePlan>),
}

#[derive(Debug)]
struct SparsePlan {
    n: usize,
    perm: Permutation,
    /// Lower triangle of A (diagonal always present), CSC.
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
    /// Position of the diagonal entry of each column in `values`.
    diag_pos: Vec<usize>,
    symbolic: Arc<SymbolicCholesky<usize>>,
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
        Self::sparse_ordered_with(a, perm, AUTO_ND_MIN_FACTOR_NNZ)
    }

    /// [`CholeskyPlan::sparse_ordered`] with the nested-dissection threshold of `Auto` as a parameter.
    fn sparse_ordered_with(
        a: &CscMatrix<f64>,
        perm: Option<Permutation>,
        nd_min_factor_nnz: usize,
    ) -> Result<Self> {
        let n = check_square(a)?;
        // Lower triangle with an explicit diagonal.
        let mut col_ptr = Vec::with_capacity(n + 1);
        let mut row_idx = Vec::with_capacity(a.nnz() / 2 + n);
        let mut values = Vec::with_capacity(a.nnz() / 2 + n);
        let mut diag_pos = Vec::with_capacity(n);
        col_ptr.push(0);
        for j in 0..n {
            let col = a.col(j);
            let (ri, vals) = (col.row_indices(), col.values());
            let start = ri.partition_point(|&i| i < j);
            diag_pos.push(row_idx.len());
            if ri.get(start) != Some(&j) {
                row_idx.push(j);
                values.push(0.0);
            }
            row_idx.extend_from_slice(&ri[start..]);
            values.extend_from_slice(&vals[start..]);
            col_ptr.push(row_idx.len());
        }
        let sym = SymbolicSparseColMatRef::new_checked(n, n, &col_ptr, None, &row_idx);
        let analyse = |perm: &Permutation| {
            factorize_symbolic_cholesky(
                sym,
                Side::Lower,
                SymmetricOrdering::Custom(PermRef::new_checked(perm.perm(), perm.inv(), n)),
                CholeskySymbolicParams::default(),
            )
            .map_err(|e| SparseError::Faer(format!("symbolic Cholesky: {e:?}")))
        };
        let (perm, symbolic) = match perm {
            Some(p) => {
                let s = analyse(&p)?;
                (p, s)
            }
            // Ordering::Auto: the ordering with the smallest predicted factor (ties: the earlier one);
            // nested dissection only when the factor is large enough to repay METIS's ordering time.
            None => {
                let mut best: Option<(Permutation, SymbolicCholesky<usize>)> = None;
                for o in [Ordering::Amd, Ordering::Rcm, Ordering::NestedDissection] {
                    if o == Ordering::NestedDissection
                        && best.as_ref().is_some_and(|(_, b)| symbolic_nnz(b) < nd_min_factor_nnz)
                    {
                        continue;
                    }
                    let p = order(a, o)?;
                    let s = analyse(&p)?;
                    if best.as_ref().is_none_or(|(_, b)| symbolic_nnz(&s) < symbolic_nnz(b)) {
                        best = Some((p, s));
                    }
                }
                best.expect("AMD and RCM are always analysed")
            }
        };
        Ok(CholeskyPlan {
            kind: PlanKind::Sparse(Arc::new(SparsePlan {
                n,
                perm,
                col_ptr,
                row_idx,
                values,
                diag_pos,
                symbolic: Arc::new(symbolic),
            })),
        })
    }

    /// Matrix size `n`.
    pub fn n(&self) -> usize {
        match &self.kind {
            PlanKind::Dense(m) => m.ncols(),
            PlanKind::Sparse(p) => p.n,
        }
    }

    /// Whether this is the sparse path.
    pub fn is_sparse(&self) -> bool {
        matches!(self.kind, PlanKind::Sparse(_))
    }

    /// The fill-reducing permutation of the sparse path (`None` for dense).
    pub fn permutation(&self) -> Option<&Permutation> {
        match &self.kind {
            PlanKind::Dense(_) => None,
            PlanKind::Sparse(p) => Some(&p.perm),
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
            PlanKind::Sparse(p) => symbolic_nnz(&p.symbolic),
        }
    }

    /// Bytes the numeric factorization allocates: `(factor, scratch)` — the values of `L` (8 bytes per
    /// stored entry; `8·n²` dense) and faer's working space (the update matrices of the supernodes
    /// on the sparse path, the blocked workspace on the dense one). Both are checked against the
    /// memory budget before [`CholeskyPlan::factor`] allocates them; a caller can read them first to
    /// report what a factorization will need.
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
            PlanKind::Sparse(p) => {
                let req = p.symbolic.factorize_numeric_llt_scratch::<f64>(par, Default::default());
                (8 * p.symbolic.len_val() as u64, req.size_bytes() as u64)
            }
        }
    }

    /// Factors `A + shift·I` (e.g. `shift = 1/λ` for LS-SVM, eq. 14).
    ///
    /// ```
    /// use kern_sparse::{CholeskyPlan, SparseError};
    /// let a = faer::Mat::from_fn(2, 2, |i, j| if i == j { 1.0 } else { 2.0 });   // eigenvalues 3, -1
    /// let plan = CholeskyPlan::dense(a)?;
    /// assert!(matches!(plan.factor(0.0), Err(SparseError::NotPositiveDefinite { pivot: 1, .. })));
    /// assert!(plan.factor(1.5).is_ok());
    /// # Ok::<(), SparseError>(())
    /// ```
    pub fn factor(&self, shift: f64) -> Result<Cholesky> {
        if !shift.is_finite() {
            return Err(SparseError::Param { name: "shift", value: shift, reason: "must be finite" });
        }
        match &self.kind {
            PlanKind::Dense(a) => factor_dense(a, shift).map(Cholesky::Dense),
            PlanKind::Sparse(p) => factor_sparse(p, shift).map(Cholesky::Sparse),
        }
    }
}

/// What to do when a dense matrix does not fit in memory.
pub(crate) const DENSE_INSTEAD: &str = "use a compactly supported kernel (cs-gaussian, ...) with the sparse path, or fewer samples, or raise --max-memory";

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

fn factor_sparse(p: &Arc<SparsePlan>, shift: f64) -> Result<SparseCholesky> {
    let n = p.n;
    let mut vals = p.values.clone();
    for &d in &p.diag_pos {
        vals[d] += shift;
    }
    let a =
        SparseColMatRef::new(SymbolicSparseColMatRef::new_checked(n, n, &p.col_ptr, None, &p.row_idx), &vals);
    let par = kern_core::parallel::faer_par();
    let symb = &p.symbolic;
    const INSTEAD: &str =
        "try another --order (amd usually fills least), a smaller support radius, or raise --max-memory";
    let req = symb.factorize_numeric_llt_scratch::<f64>(par, Default::default());
    // The factor and faer's working space are alive together: both count against the budget.
    let need = 8 * symb.len_val() as u64 + req.size_bytes() as u64;
    kern_core::memory::check_bytes(need, "sparse Cholesky factor and its working space", INSTEAD)?;
    let mut l_values = kern_core::memory::try_filled(symb.len_val(), 0.0, "sparse Cholesky factor", INSTEAD)?;
    let mut mem = MemBuffer::try_new(req).map_err(|_| SparseError::Faer("out of memory".into()))?;
    symb.factorize_numeric_llt::<f64>(
        &mut l_values,
        a,
        Side::Lower,
        Default::default(),
        par,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .map_err(|e| {
        let llt::factor::LltError::NonPositivePivot { index } = e;
        // faer 0.24 reports the simplicial step 1-based and the supernodal one 0-based.
        let step = match symb.raw() {
            SymbolicCholeskyRaw::Simplicial(_) => index.saturating_sub(1),
            SymbolicCholeskyRaw::Supernodal(_) => index,
        };
        SparseError::NotPositiveDefinite {
            pivot: p.perm.perm().get(step).copied().unwrap_or(step),
            step,
            shift,
            pivot_value: None,
        }
    })?;
    Ok(SparseCholesky { plan: Arc::clone(p), values: l_values, shift })
}

/// A dense factor `A + s·I = L Lᵀ`.
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
#[derive(Clone, Debug)]
pub struct SparseCholesky {
    plan: Arc<SparsePlan>,
    values: Vec<f64>,
    shift: f64,
}

impl SparseCholesky {
    /// faer's symbolic factorization (it carries the fill-reducing permutation: `L Lᵀ = P (A + s·I) Pᵀ`)
    /// and the numeric values of `L` in faer's layout, for algorithms on the factor itself (e.g. the
    /// selected inversion behind kern-models' exact leave-one-out residuals).
    pub fn raw_factor(&self) -> (&SymbolicCholesky<usize>, &[f64]) {
        (&self.plan.symbolic, &self.values)
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
            Cholesky::Sparse(c) => c.plan.n,
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
            Cholesky::Sparse(c) => CholeskyPlan { kind: PlanKind::Sparse(Arc::clone(&c.plan)) }.factor_nnz(),
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
            }
            Cholesky::Sparse(c) => {
                let symb = &c.plan.symbolic;
                let req: StackReq = symb.solve_in_place_scratch::<f64>(k, par);
                let mut mem =
                    MemBuffer::try_new(req).map_err(|_| SparseError::Faer("out of memory".into()))?;
                LltRef::new(symb, &c.values).solve_in_place_with_conj(
                    Conj::No,
                    b.as_mut(),
                    par,
                    MemStack::new(&mut mem),
                );
            }
        }
        Ok(())
    }

    /// `log det(A + s·I) = 2 Σ log L_jj`.
    pub fn log_det(&self) -> f64 {
        match self {
            Cholesky::Dense(c) => 2.0 * (0..c.l.ncols()).map(|j| c.l[(j, j)].ln()).sum::<f64>(),
            Cholesky::Sparse(c) => {
                let symb = &c.plan.symbolic;
                match symb.raw() {
                    SymbolicCholeskyRaw::Simplicial(s) => {
                        let cp = s.col_ptr();
                        2.0 * (0..c.plan.n).map(|j| c.values[cp[j]].ln()).sum::<f64>()
                    }
                    SymbolicCholeskyRaw::Supernodal(s) => {
                        let lref = SupernodalLltRef::new(s, &c.values);
                        let mut sum = 0.0;
                        for k in 0..s.n_supernodes() {
                            let val = lref.supernode(k).val();
                            for j in 0..val.ncols() {
                                sum += val[(j, j)].ln();
                            }
                        }
                        2.0 * sum
                    }
                }
            }
        }
    }
}

/// Structural nonzeros of `L` predicted by a symbolic analysis (supernodes counted as dense trapezoids).
fn symbolic_nnz(s: &SymbolicCholesky<usize>) -> usize {
    match s.raw() {
        SymbolicCholeskyRaw::Simplicial(s) => s.len_val(),
        SymbolicCholeskyRaw::Supernodal(s) => (0..s.n_supernodes())
            .map(|k| {
                let w = s.supernode_end()[k] - s.supernode_begin()[k];
                w * (w + 1) / 2 + s.supernode(k).pattern().len() * w
            })
            .sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_weighs_nested_dissection_above_the_threshold() {
        // A 40 × 40 five-point grid: with the threshold at 0, Auto keeps the least fill of all three.
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
        let a = CscMatrix::from(&coo);
        let fill = |o| CholeskyPlan::sparse(&a, o).unwrap().factor_nnz();
        let (amd, rcm, nd) = (fill(Ordering::Amd), fill(Ordering::Rcm), fill(Ordering::NestedDissection));
        let all = CholeskyPlan::sparse_ordered_with(&a, None, 0).unwrap().factor_nnz();
        assert_eq!(all, amd.min(rcm).min(nd));
        let cheap = CholeskyPlan::sparse_ordered_with(&a, None, usize::MAX).unwrap().factor_nnz();
        assert_eq!(cheap, amd.min(rcm));
        assert_eq!(fill(Ordering::Auto), if amd.min(rcm) >= AUTO_ND_MIN_FACTOR_NNZ { all } else { cheap });
    }
}
