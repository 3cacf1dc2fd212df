//! The diagonal of `A⁻¹` from a sparse Cholesky factor `P A Pᵀ = L Lᵀ` by selected inversion
//! (Takahashi, Fagan & Chin 1973; the supernodal form of Lin et al.'s SelInv), for the exact
//! leave-one-out residuals of [`crate::ridge`] on the sparse path.
//!
//! With `Z = (LLᵀ)⁻¹` and a supernode `J` (a block of consecutive columns of `L` sharing the row
//! pattern `S` below the block), `L_JJ` its diagonal block and `L_SJ` the rows of `S`:
//!
//! ```text
//! L̂_SJ = L_SJ L_JJ⁻¹,   Z_SJ = −Z_SS L̂_SJ,   Z_JJ = (L_JJ L_JJᵀ)⁻¹ − L̂_SJᵀ Z_SJ
//! ```
//!
//! Processing supernodes from the last to the first, `Z_SS` only involves entries of `Z` on the
//! pattern of `L` of later supernodes (the rows of `S` form a clique of the filled graph), which are
//! already computed. The result fills the pattern of `L` only, so it costs about one more
//! factorization in time and the size of `L` in memory — not the `n` solves of `A⁻¹eᵢ`.
//! A simplicial factor is handled as supernodes of width one.

use crate::error::{ModelsError, Result};
use faer::linalg::matmul::matmul;
use faer::linalg::triangular_inverse::invert_lower_triangular;
use faer::linalg::triangular_solve::solve_upper_triangular_in_place;
use faer::sparse::linalg::cholesky::{SymbolicCholesky, SymbolicCholeskyRaw};
use faer::{Accum, Index, Mat, MatRef, Par};
use kern_sparse::{Cholesky, RawFactor};

/// The diagonal of `A⁻¹` for a factorization `A + sI = LLᵀ` from kern-sparse.
pub(crate) fn inverse_diagonal(chol: &Cholesky) -> Result<Vec<f64>> {
    match chol {
        Cholesky::Sparse(c) => match c.raw_factor() {
            RawFactor::U32(symbolic, values) => selected_inverse_diagonal(symbolic, values),
            RawFactor::Usize(symbolic, values) => selected_inverse_diagonal(symbolic, values),
        },
        Cholesky::Dense(_) => Err(ModelsError::Input("selected inversion needs a sparse factor".into())),
    }
}

/// One block column of the factor, in faer's value layout: `(width + pattern.len()) × width`
/// column-major values at `offset` (diagonal block first, then the pattern rows).
#[derive(Clone, Copy)]
struct Block<'a, I> {
    start: usize,
    width: usize,
    pattern: &'a [I],
    offset: usize,
}

/// The diagonal of `A⁻¹` in the caller's numbering, from faer's symbolic Cholesky of `P A Pᵀ` and the
/// numeric values of `L`.
pub fn selected_inverse_diagonal<I: Index>(
    symbolic: &SymbolicCholesky<I>,
    values: &[f64],
) -> Result<Vec<f64>> {
    let n = symbolic.nrows();
    let blocks: Vec<Block<'_, I>> = match symbolic.raw() {
        SymbolicCholeskyRaw::Simplicial(s) => {
            let cp = s.col_ptr();
            let ri = s.row_idx();
            (0..n)
                .map(|j| {
                    let (c0, c1) = (cp[j].zx(), cp[j + 1].zx());
                    debug_assert_eq!(ri[c0].zx(), j, "simplicial columns start with the diagonal");
                    Block { start: j, width: 1, pattern: &ri[c0 + 1..c1], offset: c0 }
                })
                .collect()
        }
        SymbolicCholeskyRaw::Supernodal(s) => {
            let begin = s.supernode_begin();
            let end = s.supernode_end();
            let vptr = s.col_ptr_for_val();
            (0..s.n_supernodes())
                .map(|k| Block {
                    start: begin[k].zx(),
                    width: end[k].zx() - begin[k].zx(),
                    pattern: s.supernode(k).pattern(),
                    offset: vptr[k].zx(),
                })
                .collect()
        }
    };
    if values.len() < blocks.last().map_or(0, |b| b.offset + (b.width + b.pattern.len()) * b.width) {
        return Err(ModelsError::Input("factor values do not match the symbolic structure".into()));
    }
    let mut col_block = vec![0usize; n];
    for (k, b) in blocks.iter().enumerate() {
        col_block[b.start..b.start + b.width].fill(k);
    }
    let mut z = vec![0.0; values.len()];
    let mut zdiag = vec![0.0; n];
    for b in blocks.iter().rev() {
        let (w, p) = (b.width, b.pattern.len());
        let rows = w + p;
        let l = MatRef::from_column_major_slice(&values[b.offset..b.offset + rows * w], rows, w);
        let ljj = l.submatrix(0, 0, w, w);
        // L̂ᵀ = L_JJ⁻ᵀ L_SJᵀ (w × p).
        let mut lhat_t = l.submatrix(w, 0, p, w).transpose().to_owned();
        solve_upper_triangular_in_place(ljj.transpose(), lhat_t.as_mut(), Par::Seq);
        // (L_JJ L_JJᵀ)⁻¹ = L_JJ⁻ᵀ L_JJ⁻¹.
        let mut linv = Mat::<f64>::zeros(w, w);
        invert_lower_triangular(linv.as_mut(), ljj, Par::Seq);
        let mut zjj = Mat::<f64>::zeros(w, w);
        matmul(zjj.as_mut(), Accum::Replace, linv.transpose(), linv.as_ref(), 1.0, Par::Seq);
        let mut zsj = Mat::<f64>::zeros(p, w);
        if p > 0 {
            let zss = gather(&blocks, &col_block, &z, b.pattern);
            // Z_SJ = −Z_SS L̂_SJ.
            matmul(zsj.as_mut(), Accum::Replace, zss.as_ref(), lhat_t.transpose(), -1.0, Par::Seq);
            // Z_JJ −= L̂ᵀ Z_SJ.
            matmul(zjj.as_mut(), Accum::Add, lhat_t.as_ref(), zsj.as_ref(), -1.0, Par::Seq);
        }
        let zb = &mut z[b.offset..b.offset + rows * w];
        for c in 0..w {
            for r in 0..w {
                zb[c * rows + r] = zjj[(r, c)];
            }
            for r in 0..p {
                zb[c * rows + w + r] = zsj[(r, c)];
            }
            zdiag[b.start + c] = zjj[(c, c)];
        }
    }
    // zdiag is in the factor's (permuted) numbering: P A Pᵀ has row i = row perm_fwd[i] of A.
    let mut diag = vec![0.0; n];
    match symbolic.perm() {
        Some(perm) => {
            let (fwd, _) = perm.arrays();
            for i in 0..n {
                diag[fwd[i].zx()] = zdiag[i];
            }
        }
        None => diag.copy_from_slice(&zdiag),
    }
    if let Some(i) = diag.iter().position(|v| !(v.is_finite() && *v > 0.0)) {
        return Err(ModelsError::Numerical(format!(
            "selected inverse has a non-positive diagonal entry at {i}: {:e}",
            diag[i]
        )));
    }
    Ok(diag)
}

/// `Z_SS` (`p × p`, both triangles) for the sorted row set `s`, read from the computed blocks.
fn gather<I: Index>(blocks: &[Block<'_, I>], col_block: &[usize], z: &[f64], s: &[I]) -> Mat<f64> {
    let p = s.len();
    let mut out = Mat::<f64>::zeros(p, p);
    for c in 0..p {
        let kcol = s[c].zx();
        let b = &blocks[col_block[kcol]];
        let rows = b.width + b.pattern.len();
        let lc = kcol - b.start;
        let col = &z[b.offset + lc * rows..b.offset + (lc + 1) * rows];
        let end = b.start + b.width;
        let mut from = 0usize; // search position in the pattern
        for r in c..p {
            let i = s[r].zx();
            let v = if i < end {
                col[i - b.start]
            } else {
                let rest = &b.pattern[from..];
                let pos = from + rest.partition_point(|&x| x.zx() < i);
                debug_assert!(
                    b.pattern.get(pos).map(|v| v.zx()) == Some(i),
                    "row {i} missing from the pattern of column {kcol}"
                );
                from = pos + 1;
                col[b.width + pos]
            };
            out[(r, c)] = v;
            out[(c, r)] = v;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Side;
    use faer::dyn_stack::{MemBuffer, MemStack};
    use faer::linalg::solvers::DenseSolveCore;
    use faer::sparse::linalg::cholesky::{
        CholeskySymbolicParams, SymmetricOrdering, factorize_symbolic_cholesky,
    };
    use faer::sparse::{SparseColMat, Triplet};
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    /// Factors with faer directly (test-only) and compares the selected inverse with a dense inverse.
    fn check(n: usize, density: f64, seed: u64) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut dense = Mat::<f64>::zeros(n, n);
        for j in 0..n {
            for i in j + 1..n {
                if rng.random::<f64>() < density {
                    let v = rng.random::<f64>() - 0.5;
                    dense[(i, j)] = v;
                    dense[(j, i)] = v;
                }
            }
        }
        for i in 0..n {
            let s: f64 = (0..n).map(|j| dense[(i, j)].abs()).sum();
            dense[(i, i)] = s + 0.5 + rng.random::<f64>();
        }
        let trip: Vec<Triplet<usize, usize, f64>> = (0..n)
            .flat_map(|j| (j..n).map(move |i| (i, j)))
            .filter(|&(i, j)| dense[(i, j)] != 0.0)
            .map(|(i, j)| Triplet::new(i, j, dense[(i, j)]))
            .collect();
        let a = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &trip).unwrap();
        for supernodal in [false, true] {
            let mut params = CholeskySymbolicParams::default();
            if supernodal {
                params.supernodal_flop_ratio_threshold =
                    faer::sparse::linalg::SupernodalThreshold::FORCE_SUPERNODAL;
            } else {
                params.supernodal_flop_ratio_threshold =
                    faer::sparse::linalg::SupernodalThreshold::FORCE_SIMPLICIAL;
            }
            let symb = factorize_symbolic_cholesky(a.symbolic(), Side::Lower, SymmetricOrdering::Amd, params)
                .unwrap();
            let mut vals = vec![0.0; symb.len_val()];
            let req = symb.factorize_numeric_llt_scratch::<f64>(Par::Seq, Default::default());
            let mut mem = MemBuffer::new(req);
            symb.factorize_numeric_llt::<f64>(
                &mut vals,
                a.as_ref(),
                Side::Lower,
                Default::default(),
                Par::Seq,
                MemStack::new(&mut mem),
                Default::default(),
            )
            .unwrap();
            let d = selected_inverse_diagonal(&symb, &vals).unwrap();
            let inv = dense.llt(Side::Lower).unwrap().inverse();
            for i in 0..n {
                assert!(
                    (d[i] - inv[(i, i)]).abs() < 1e-12 * inv[(i, i)].abs().max(1.0),
                    "supernodal={supernodal} {i}"
                );
            }
        }
    }

    #[test]
    fn matches_dense_inverse() {
        check(1, 0.0, 1);
        check(30, 0.1, 2);
        check(200, 0.03, 3);
        check(150, 0.3, 4);
    }
}
