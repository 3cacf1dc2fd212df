//! Decision values `f_m(x) = Σ_k coef_{m,k} k(sv_k, x) − ρ_m` for a block of new samples.
//!
//! Dense kernels go through one cross Gram matrix per block of test rows (kern-core's GEMM path);
//! compactly supported kernels go through kern-sparse's neighbour index, so a test point only meets the
//! support vectors within the support radius (CS-RBF paper §2.1: `f(x) = b + Σ_{x_i ∈ δ_C(x)} …`).

use crate::error::Result;
use kern_core::{Kernel, KernelSpec, KernelVisitor, Samples};

/// Test rows per kernel block.
const BLOCK: usize = 2048;

/// Decision values of `machines` (`coef` dense over the support vectors, `rho`): one row per sample of
/// `x`, one column per machine.
pub(crate) fn decision_values(
    kernel: &KernelSpec,
    sv: &Samples,
    coef: &[Vec<f64>],
    rho: &[f64],
    x: &Samples,
) -> Result<Vec<Vec<f64>>> {
    sv.check_same_dim(x)?;
    let n = x.n();
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    while start < n {
        let end = (start + BLOCK).min(n);
        let xb =
            if start == 0 && end == n { x.clone() } else { x.select(&(start..end).collect::<Vec<_>>())? };
        if kernel.support_radius().is_some() {
            let (offsets, rows, vals) = sparse_cross(kernel, sv, &xb)?;
            for r in 0..xb.n() {
                let (a, b) = (offsets[r], offsets[r + 1]);
                out.push(
                    coef.iter()
                        .zip(rho)
                        .map(|(c, &rh)| {
                            let mut s = 0.0;
                            for t in a..b {
                                s += c[rows[t]] * vals[t];
                            }
                            s - rh
                        })
                        .collect(),
                );
            }
        } else {
            let g = super::train::cross(kernel, sv, &xb)?;
            for r in 0..xb.n() {
                let col = g.col(r).try_as_col_major().expect("unit row stride").as_slice();
                out.push(coef.iter().zip(rho).map(|(c, &rh)| super::qmatrix::dot(c, col) - rh).collect());
            }
        }
        start = end;
    }
    Ok(out)
}

/// CSC parts `(column offsets, row indices, values)` of the sparse `K(X, Y)`.
pub(crate) type CscParts = (Vec<usize>, Vec<usize>, Vec<f64>);

/// `K_C(sv, x)` through kern-sparse's neighbour index, as CSC parts (column `r` = neighbours of `x_r`).
pub(crate) fn sparse_cross(kernel: &KernelSpec, sv: &Samples, x: &Samples) -> Result<CscParts> {
    struct V<'a>(&'a Samples, &'a Samples);
    impl KernelVisitor for V<'_> {
        type Output = kern_sparse::Result<CscParts>;
        fn visit<K: Kernel>(self, k: &K) -> Self::Output {
            Ok(kern_sparse::sparse_cross_gram(k, self.0, self.1)?.disassemble())
        }
    }
    kernel
        .visit(V(sv, x))
        .map_err(|e| crate::ModelsError::Numerical(format!("sparse kernel evaluation: {e}")))
}
