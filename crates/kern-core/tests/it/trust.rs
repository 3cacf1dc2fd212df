//! Everyday-path limits: the product-form spline kernel on sparse samples of huge dimension visits
//! only the nonzero coordinates (and agrees with its dense value), and thread requests are capped.

use kern_core::parallel::{HARD_MAX_THREADS, install, max_threads, thread_count};
use kern_core::{Kernel, LinearSpline, SampleRef, Samples};
use proptest::prelude::*;

#[test]
fn spline_gram_on_sparse_samples_of_dimension_1e9_is_immediate() {
    let d = 1_000_000_000;
    let x = Samples::from_csr(
        3,
        d,
        vec![0, 2, 3, 5],
        vec![5, d - 1, 5, 7, d - 1],
        vec![1.0, 0.5, 2.0, 0.25, 1.5],
    )
    .unwrap();
    let t = std::time::Instant::now();
    let g = kern_core::gram(&LinearSpline, &x).unwrap();
    assert!(t.elapsed().as_secs() < 5, "took {:?}", t.elapsed());
    let s = LinearSpline::scalar;
    // Row 0 × row 2: coordinate 5 (1 vs 0), 7 (0 vs 0.25), d−1 (0.5 vs 1.5).
    let want = s(1.0, 0.0) * s(0.0, 0.25) * s(0.5, 1.5);
    assert_eq!(g[(0, 2)], want);
    assert_eq!(g[(2, 0)], want);
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(32))]
    /// Sparse × sparse and sparse × dense equal the dense product bit for bit.
    #[test]
    fn spline_on_sparse_samples_equals_the_dense_value(
        a in prop::collection::vec(prop_oneof![Just(0.0), 0.0f64..3.0], 1..12),
        b in prop::collection::vec(prop_oneof![Just(0.0), 0.0f64..3.0], 1..12),
    ) {
        let d = a.len().max(b.len());
        let pad = |v: &[f64]| { let mut w = v.to_vec(); w.resize(d, 0.0); w };
        let (da, db) = (pad(&a), pad(&b));
        let want = LinearSpline.eval(&da, &db);
        let nz = |v: &[f64]| -> (Vec<usize>, Vec<f64>) {
            v.iter().enumerate().filter(|(_, x)| **x != 0.0).map(|(i, &x)| (i, x)).unzip()
        };
        let ((ia, va), (ib, vb)) = (nz(&a), nz(&b));
        let sa = SampleRef::Sparse { indices: &ia, values: &va };
        let sb = SampleRef::Sparse { indices: &ib, values: &vb };
        prop_assert_eq!(LinearSpline.eval_ref(sa, sb).to_bits(), want.to_bits());
        prop_assert_eq!(LinearSpline.eval_ref(SampleRef::Dense(&da), sb).to_bits(), want.to_bits());
        prop_assert_eq!(LinearSpline.eval_ref(sa, SampleRef::Dense(&db)).to_bits(), want.to_bits());
    }
}

#[test]
fn thread_requests_above_the_maximum_are_capped_and_reported() {
    let max = max_threads();
    assert!((4..=HARD_MAX_THREADS).contains(&max));
    let t = thread_count(Some(10_000)).unwrap();
    assert_eq!((t.threads, t.requested, t.capped), (max, 10_000, true));
    assert!(t.warning().unwrap().contains(&format!("using {max}")));
    let ok = thread_count(Some(2)).unwrap();
    assert_eq!((ok.threads, ok.capped, ok.warning()), (2, false, None));
    // install runs on the capped pool, quickly.
    let start = std::time::Instant::now();
    let n = install(Some(10_000), rayon::current_num_threads).unwrap();
    assert_eq!(n, max);
    assert!(start.elapsed().as_secs() < 10);
}
