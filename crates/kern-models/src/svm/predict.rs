//! Decision values `f_m(x) = Σ_k coef_{m,k} k(sv_k, x) − ρ_m` for new samples: one kernel expansion
//! `K(X, SV) · A` of the kernel-matrix layer ([`kern_sparse::kmatrix::expand`]) with one column of `A`
//! per machine. Globally supported kernels go through blocks of the dense cross Gram; compactly
//! supported kernels through kern-sparse's neighbour index, so a test point only meets the support
//! vectors within the support radius (CS-RBF paper §2.1: `f(x) = b + Σ_{x_i ∈ δ_C(x)} …`). Either
//! sample store works on either side, without densifying a sparse one.

use crate::error::Result;
use kern_core::{Kernel, KernelSpec, KernelVisitor, Samples};
use kern_sparse::kmatrix::ExpandPlan;

/// One machine's coefficients as the one-column matrix [`decision_values`] takes (no copy).
pub(crate) fn column(coef: &[f64]) -> faer::MatRef<'_, f64> {
    faer::MatRef::from_column_major_slice(coef, coef.len(), 1)
}

#[cfg(test)]
thread_local! {
    /// Kernel values `k(x, sv)` the expansions started on this thread asked for (tests count them:
    /// one prediction of labels, decision values and probabilities is one expansion).
    pub(crate) static KERNEL_EVALUATIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How [`decision_values`] expands `K(x, sv)`: [`kern_sparse::kmatrix::expand_plan`] with the sparse
/// neighbour path for kernels with a support radius.
pub(crate) fn expansion_plan(kernel: &KernelSpec, sv: &Samples, x: &Samples) -> ExpandPlan {
    struct V<'a>(&'a Samples, &'a Samples);
    impl KernelVisitor for V<'_> {
        type Output = ExpandPlan;
        fn visit<K: Kernel>(self, k: &K) -> ExpandPlan {
            kern_sparse::kmatrix::expand_plan(k, self.0, self.1, k.support_radius().is_some())
        }
    }
    kernel.visit(V(sv, x))
}

/// Decision values of the machines whose coefficients are the columns of `coef` (dense over the
/// support vectors, `sv.n() × machines`) and whose offsets are `rho`: one row per sample of `x`, one
/// column per machine.
pub(crate) fn decision_values(
    kernel: &KernelSpec,
    sv: &Samples,
    coef: faer::MatRef<'_, f64>,
    rho: &[f64],
    x: &Samples,
) -> Result<faer::Mat<f64>> {
    sv.check_same_dim(x)?;
    #[cfg(test)]
    KERNEL_EVALUATIONS.with(|c| c.set(c.get() + (sv.n() * x.n()) as u64));
    struct V<'a>(&'a Samples, faer::MatRef<'a, f64>, &'a Samples);
    impl KernelVisitor for V<'_> {
        type Output = kern_sparse::Result<faer::Mat<f64>>;
        fn visit<K: Kernel>(self, k: &K) -> Self::Output {
            let sparse = k.support_radius().is_some();
            kern_sparse::kmatrix::expand(k, self.0, self.1, self.2, sparse)
        }
    }
    let e = kernel
        .visit(V(sv, coef, x))
        .map_err(|e| crate::ModelsError::Numerical(format!("kernel expansion: {e}")))?;
    Ok(faer::Mat::from_fn(x.n(), rho.len(), |r, m| e[(r, m)] - rho[m]))
}
