//! The triangle of `A` that a sparse [`CholeskyPlan`](super::CholeskyPlan) keeps, from the caller's
//! matrix to faer's numeric step: the lower triangle with an explicit diagonal, 32-bit indexed while
//! every count fits ([`Triangle`]); faer's symbolic analysis of it for an ordering
//! ([`Triangle::analyse`]); the same triangle permuted once into the layout the numeric step reads
//! ([`Csc::permute`]); the shift added to its diagonal for one factorization and taken back bit for bit
//! ([`ShiftedDiagonal`]); and faer's numeric step on it ([`numeric`]).

use super::symbolic_nnz;
use crate::error::{Result, SparseError};
use crate::ordering::Permutation;
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt;
use faer::perm::PermRef;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, SymbolicCholesky, SymbolicCholeskyRaw, SymmetricOrdering,
    factorize_symbolic_cholesky, simplicial, supernodal,
};
use faer::sparse::utils::{permute_self_adjoint_scratch, permute_self_adjoint_to_unsorted};
use faer::sparse::{FaerError, SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Index, Par, Side};
use nalgebra_sparse::CscMatrix;

/// A triangle of a symmetric matrix with an explicit diagonal, CSC, indexed by `I`.
#[derive(Debug, Default)]
pub(super) struct Csc<I> {
    pub(super) col_ptr: Vec<I>,
    pub(super) row_idx: Vec<I>,
    pub(super) values: Vec<f64>,
    /// Position of the diagonal entry of each column in `values`.
    pub(super) diag_pos: Vec<usize>,
}

/// Stored entries of the lower triangle of `a` with every diagonal entry present (as [`Csc::lower`]
/// stores it).
pub(super) fn lower_nnz(a: &CscMatrix<f64>) -> usize {
    (0..a.ncols())
        .map(|j| {
            let col = a.col(j);
            let ri = col.row_indices();
            let start = ri.partition_point(|&i| i < j);
            ri.len() - start + usize::from(ri.get(start) != Some(&j))
        })
        .sum()
}

impl<I: Index> Csc<I> {
    /// The lower triangle of `a` (`nnz` = [`lower_nnz`]); the caller has checked that `n` and `nnz`
    /// fit `I`.
    fn lower(a: &CscMatrix<f64>, nnz: usize) -> Self {
        let n = a.ncols();
        let mut col_ptr = Vec::with_capacity(n + 1);
        let mut row_idx = Vec::with_capacity(nnz);
        let mut values = Vec::with_capacity(nnz);
        let mut diag_pos = Vec::with_capacity(n);
        col_ptr.push(I::truncate(0));
        for j in 0..n {
            let col = a.col(j);
            let (ri, vals) = (col.row_indices(), col.values());
            let start = ri.partition_point(|&i| i < j);
            diag_pos.push(row_idx.len());
            if ri.get(start) != Some(&j) {
                row_idx.push(I::truncate(j));
                values.push(0.0);
            }
            row_idx.extend(ri[start..].iter().map(|&i| I::truncate(i)));
            values.extend_from_slice(&vals[start..]);
            col_ptr.push(I::truncate(row_idx.len()));
        }
        Csc { col_ptr, row_idx, values, diag_pos }
    }

    pub(super) fn n(&self) -> usize {
        self.diag_pos.len()
    }

    /// The same triangle with `usize` indices.
    fn widen(self) -> Csc<usize> {
        Csc {
            col_ptr: self.col_ptr.iter().map(|v| v.zx()).collect(),
            row_idx: self.row_idx.iter().map(|v| v.zx()).collect(),
            values: self.values,
            diag_pos: self.diag_pos,
        }
    }

    /// faer's symbolic Cholesky analysis of `P A Pᵀ`, or `None` when the factor has more than `max`
    /// stored values or faer reports that its counts overflow `I`.
    fn analyse(&self, perm: &Permutation, max: usize) -> Result<Option<SymbolicCholesky<I>>> {
        let n = self.n();
        let sym = SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx);
        let fwd: Vec<I> = perm.perm().iter().map(|&v| I::truncate(v)).collect();
        let inv: Vec<I> = perm.inv().iter().map(|&v| I::truncate(v)).collect();
        match factorize_symbolic_cholesky(
            sym,
            Side::Lower,
            SymmetricOrdering::Custom(PermRef::new_checked(&fwd, &inv, n)),
            CholeskySymbolicParams::default(),
        ) {
            Ok(s) if s.len_val() <= max => Ok(Some(s)),
            Ok(_) | Err(FaerError::IndexOverflow) => Ok(None),
            Err(e) => {
                Err(SparseError::Faer(format!("symbolic Cholesky: {}", kern_core::faer_errors::sparse(e))))
            }
        }
    }

    /// This lower triangle of `A`, permuted by faer itself into the triangle of `P A Pᵀ` that its
    /// numeric factorization reads — lower for a supernodal factor, upper for a simplicial one, rows
    /// unsorted — exactly as faer's `factorize_numeric_llt` would permute it into its working space at
    /// every factorization.
    pub(super) fn permute(self, symbolic: &SymbolicCholesky<I>) -> Result<Csc<I>> {
        let n = self.n();
        let out_side = match symbolic.raw() {
            SymbolicCholeskyRaw::Simplicial(_) => Side::Upper,
            SymbolicCholeskyRaw::Supernodal(_) => Side::Lower,
        };
        let perm = symbolic
            .perm()
            .ok_or_else(|| SparseError::Faer("symbolic Cholesky without its permutation".into()))?;
        const INSTEAD: &str = "use a smaller support radius, or raise the memory limit (set_limit)";
        let nnz = self.values.len();
        let mut values = kern_core::memory::try_filled(nnz, 0.0, "permuted sparse matrix", INSTEAD)?;
        let mut row_idx =
            kern_core::memory::try_filled(nnz, I::truncate(0), "permuted sparse matrix", INSTEAD)?;
        let mut col_ptr = vec![I::truncate(0); n + 1];
        let mut mem = MemBuffer::try_new(permute_self_adjoint_scratch::<I>(n))
            .map_err(|_| SparseError::Faer("out of memory".into()))?;
        permute_self_adjoint_to_unsorted(
            &mut values,
            &mut col_ptr,
            &mut row_idx,
            SparseColMatRef::new(
                SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx),
                &self.values[..],
            ),
            perm,
            Side::Lower,
            out_side,
            MemStack::new(&mut mem),
        );
        drop(self);
        let mut diag_pos = Vec::with_capacity(n);
        for j in 0..n {
            let (c0, c1) = (col_ptr[j].zx(), col_ptr[j + 1].zx());
            let d = row_idx[c0..c1].iter().position(|i| i.zx() == j).ok_or_else(|| {
                SparseError::Faer(format!("permuted matrix lost the diagonal entry of column {j}"))
            })?;
            diag_pos.push(c0 + d);
        }
        Ok(Csc { col_ptr, row_idx, values, diag_pos })
    }
}

/// The lower triangle of the plan being built, 32-bit while every count fits.
pub(super) enum Triangle {
    Narrow(Csc<u32>),
    Wide(Csc<usize>),
}

/// A symbolic analysis over a [`Triangle`] of the same index type.
pub(super) enum Analysis {
    Narrow(SymbolicCholesky<u32>),
    Wide(SymbolicCholesky<usize>),
}

impl Analysis {
    pub(super) fn nnz(&self) -> usize {
        match self {
            Analysis::Narrow(s) => symbolic_nnz(s),
            Analysis::Wide(s) => symbolic_nnz(s),
        }
    }
}

impl Triangle {
    /// The triangle of `a`, 32-bit when `n` and its stored entries are at most `narrow_max`.
    pub(super) fn new(a: &CscMatrix<f64>, narrow_max: usize) -> Self {
        let nnz = lower_nnz(a);
        if a.ncols() <= narrow_max && nnz <= narrow_max {
            Triangle::Narrow(Csc::lower(a, nnz))
        } else {
            Triangle::Wide(Csc::lower(a, nnz))
        }
    }

    /// The symbolic analysis for `perm`. A 32-bit triangle whose factor would hold more than
    /// `narrow_max` values is widened to `usize` first (before any numeric allocation), and stays wide.
    pub(super) fn analyse(&mut self, perm: &Permutation, narrow_max: usize) -> Result<Analysis> {
        if let Triangle::Narrow(l) = self {
            match l.analyse(perm, narrow_max)? {
                Some(s) => return Ok(Analysis::Narrow(s)),
                None => *self = Triangle::Wide(std::mem::take(l).widen()),
            }
        }
        let wide = match self {
            Triangle::Wide(l) => l.analyse(perm, usize::MAX)?,
            Triangle::Narrow(_) => None,
        };
        wide.map(Analysis::Wide).ok_or_else(|| {
            SparseError::Matrix("the Cholesky factor has more entries than can be indexed".into())
        })
    }
}

/// The plan's lower-triangle values with `shift` added to the diagonal, for the duration of one numeric
/// factorization: dropping it — also on unwinding — writes the saved diagonal entries back, so the
/// values are restored bit for bit (never by subtracting the shift, which need not round back).
pub(super) struct ShiftedDiagonal<'a> {
    pub(super) values: &'a mut [f64],
    diag_pos: &'a [usize],
    saved: Vec<f64>,
}

impl<'a> ShiftedDiagonal<'a> {
    pub(super) fn new(values: &'a mut [f64], diag_pos: &'a [usize], shift: f64) -> Self {
        let saved: Vec<f64> = diag_pos.iter().map(|&d| values[d]).collect();
        for &d in diag_pos {
            values[d] += shift;
        }
        ShiftedDiagonal { values, diag_pos, saved }
    }
}

impl Drop for ShiftedDiagonal<'_> {
    fn drop(&mut self) {
        for (&d, &v) in self.diag_pos.iter().zip(&self.saved) {
            self.values[d] = v;
        }
    }
}

/// The working space of [`numeric`].
pub(super) fn numeric_scratch<I: Index>(symbolic: &SymbolicCholesky<I>, par: Par) -> StackReq {
    match symbolic.raw() {
        SymbolicCholeskyRaw::Simplicial(_) => {
            simplicial::factorize_simplicial_numeric_llt_scratch::<I, f64>(symbolic.nrows())
        }
        SymbolicCholeskyRaw::Supernodal(s) => {
            supernodal::factorize_supernodal_numeric_llt_scratch::<I, f64>(s, par, Default::default())
        }
    }
}

/// faer's numeric factorization of the plan's permuted triangle `(col_ptr, row_idx, values)` (see
/// [`Csc::permute`]) into `l_values`: the step faer's `factorize_numeric_llt` takes after permuting `A`
/// into its working space, with the same arguments.
pub(super) fn numeric<I: Index>(
    symbolic: &SymbolicCholesky<I>,
    (col_ptr, row_idx, values): (&[I], &[I], &[f64]),
    l_values: &mut [f64],
    mem: &mut MemBuffer,
    par: Par,
) -> std::result::Result<(), llt::factor::LltError> {
    let n = symbolic.nrows();
    let a = SparseColMatRef::new(
        SymbolicSparseColMatRef::new_unsorted_checked(n, n, col_ptr, None, row_idx),
        values,
    );
    let stack = MemStack::new(mem);
    match symbolic.raw() {
        SymbolicCholeskyRaw::Simplicial(s) => {
            simplicial::factorize_simplicial_numeric_llt(l_values, a, Default::default(), s, stack)
                .map(|_| ())
        }
        SymbolicCholeskyRaw::Supernodal(s) => supernodal::factorize_supernodal_numeric_llt(
            l_values,
            a,
            Default::default(),
            s,
            par,
            stack,
            Default::default(),
        )
        .map(|_| ()),
    }
}
