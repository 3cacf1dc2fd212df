//! The numeric factorization counts all of its allocations — the factor's values, faer's working space
//! and what the shift needs (the saved diagonal, or a shifted copy of a shared plan's values) — against
//! the memory budget (`--max-memory`), and refuses with a message that names them.
//! Its own test binary: the budget is process-wide.

#[path = "it/common/mod.rs"]
mod common;

use common::{cs_gauss, uniform};
use kern_core::memory;
use kern_sparse::{CholeskyPlan, Ordering, SparseError, sparse_gram};

#[test]
fn the_factor_and_its_working_space_are_checked_together() {
    // K_C of 2,000 points in the unit square (about 60 neighbours each); K_C + I is positive definite.
    let a = sparse_gram(&cs_gauss(0.3, 0.1, 2), &uniform(2000, 2, 1.0, 7)).unwrap().into_matrix();
    let n = a.ncols() as u64;
    // Stored entries of the lower triangle, diagonal included (K_C stores its whole diagonal).
    let lower =
        (0..a.ncols()).map(|j| a.col(j).row_indices().iter().filter(|&&i| i >= j).count()).sum::<usize>();
    for ordering in [Ordering::Amd, Ordering::NestedDissection] {
        let mut plan = CholeskyPlan::sparse(&a, ordering).unwrap();
        let (factor, scratch) = plan.factor_bytes();
        // The factor's bytes are those of its stored entries: at least the predicted non-zeros.
        assert!(factor >= 8 * plan.factor_nnz() as u64, "{factor} < 8 × {}", plan.factor_nnz());
        assert!(scratch > 0);
        // Beside the factor and faer's working space, the shift needs the n saved diagonal entries of
        // the plan's own values; a shared plan needs a shifted copy of its lower triangle's values.
        let in_place = factor + scratch + 8 * n;
        let shared = factor + scratch + 8 * lower as u64;
        let refused = |plan: &mut CholeskyPlan, limit: u64| {
            memory::set_limit(Some(limit));
            let err = plan.factor(1.0).unwrap_err();
            memory::set_limit(None);
            match &err {
                SparseError::Core(kern_core::CoreError::Memory { needed, what, .. }) => {
                    assert!(what.contains("working space"), "{what}");
                    *needed
                }
                e => panic!("expected a memory error, got {e:?}"),
            }
        };

        // A budget one byte short is refused, before allocating, with the exact need.
        assert_eq!(refused(&mut plan, in_place - 1), in_place);
        let mut clone = plan.clone();
        assert_eq!(refused(&mut clone, shared - 1), shared);
        memory::set_limit(Some(shared));
        assert!(clone.factor(1.0).is_ok());
        memory::set_limit(None);
        drop(clone);

        // Exactly enough passes (the plan is uniquely owned again), and the factor solves the system.
        memory::set_limit(Some(in_place));
        let chol = plan.factor(1.0);
        memory::set_limit(None);
        let chol = chol.unwrap();
        let b: Vec<f64> = (0..a.nrows()).map(|i| (i % 7) as f64 - 3.0).collect();
        let x = chol.solve(&b).unwrap();
        let mut r = b.clone();
        for (j, col) in (0..a.ncols()).map(|j| (j, a.col(j))) {
            for (&i, &v) in col.row_indices().iter().zip(col.values()) {
                r[i] -= v * x[j];
            }
            r[j] -= 1.0 * x[j];
        }
        let rn = r.iter().map(|v| v * v).sum::<f64>().sqrt();
        let bn = b.iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!(rn <= 1e-12 * bn, "relative residual {}", rn / bn);
    }
}
