//! The vectorized WSS 2 scans (`MaxUp`, `Gains`: vector lanes of candidates with their positions,
//! joined at the end) against the plain scalar scans they replace, on every SIMD level this CPU has
//! and on the scalar one: the same maximum, the same minimal gain and the same position — the last
//! one among ties, as LIBSVM — on keys drawn from a few values (many ties), with `±∞` penalties and
//! lengths that leave any tail.

use super::solver::{Gains, MaxUp, TAU, gain};
use proptest::prelude::*;

/// `argmax_t up_t − y_t g_t` over the finite keys, the last among ties (`usize::MAX`: none).
fn max_up_reference(y: &[f64], g: &[f64], up: &[f64]) -> (f64, usize) {
    let (mut bv, mut bi) = (f64::NEG_INFINITY, usize::MAX);
    for t in 0..y.len() {
        let v = up[t] - y[t] * g[t];
        if v >= bv && v > f64::NEG_INFINITY {
            (bv, bi) = (v, t);
        }
    }
    (bv, bi)
}

/// `(max_t v_t + low_t, min_t gain_t, its last position)` through [`gain`], position by position.
fn gains_reference(s: &Gains<'_>) -> (f64, f64, usize) {
    let (mut m, mut bo, mut bi) = (f64::NEG_INFINITY, f64::INFINITY, usize::MAX);
    for t in 0..s.y.len() {
        let (vl, o) = gain(s.gmax, s.qdi, s.yi, s.y[t], s.g[t], s.qd[t], s.low[t], s.qi[t]);
        m = if vl > m { vl } else { m };
        if o <= bo && o < f64::INFINITY {
            (bo, bi) = (o, t);
        }
    }
    (m, bo, bi)
}

/// `(y, G, I_up penalties, I_low penalties, Q's column of i, Q's diagonal)` over `n` positions.
type Problem = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>);

fn problem(n: usize) -> impl Strategy<Value = Problem> {
    let sign = prop::sample::select(vec![-1.0, 1.0]);
    // Few distinct keys so that ties are common; the column values include ±1 (a = 0 → τ).
    let key = prop::sample::select(vec![-2.0, -0.5, 0.0, 0.25, 1.0, 3.0]);
    let pen = prop::sample::select(vec![0.0, f64::NEG_INFINITY]);
    let q = prop::sample::select(vec![-1.0, -0.3, 0.0, 0.5, 1.0]);
    let qd = prop::sample::select(vec![1.0, 0.5, 2.0]);
    (
        prop::collection::vec(sign, n),
        prop::collection::vec(key, n),
        prop::collection::vec(pen.clone(), n),
        prop::collection::vec(pen, n),
        prop::collection::vec(q, n),
        prop::collection::vec(qd, n),
    )
}

/// The SIMD levels to check: this CPU's best and the scalar one.
fn arches() -> [pulp::Arch; 2] {
    [pulp::Arch::new(), pulp::Arch::Scalar]
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(256))]

    #[test]
    fn vector_scans_find_what_the_scalar_scans_find(
        (y, g, up, low, qi, qd) in (0usize..70).prop_flat_map(problem),
        gmax in prop::sample::select(vec![-1.0, 0.0, 0.5, 2.0]),
        i in 0usize..70, qdi in prop::sample::select(vec![1.0, 0.5]),
    ) {
        let yi = if i % 2 == 0 { 1.0 } else { -1.0 };
        for arch in arches() {
            prop_assert_eq!(
                arch.dispatch(MaxUp { y: &y, g: &g, up: &up }),
                max_up_reference(&y, &g, &up)
            );
            let scan = || Gains { y: &y, g: &g, qd: &qd, low: &low, qi: &qi, gmax, qdi, yi };
            let (m, bo, bi) = arch.dispatch(scan());
            let (rm, rbo, rbi) = gains_reference(&scan());
            prop_assert_eq!(m.to_bits(), rm.to_bits());
            prop_assert_eq!((bo.to_bits(), bi), (rbo.to_bits(), rbi));
        }
    }
}

#[test]
fn tau_replaces_a_nonpositive_curvature() {
    // Q_ii + Q_tt − 2 y_i y_t Q_it = 1 + 1 − 2 = 0 → a = τ: the gain is −b²/τ.
    let (vl, o) = gain(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0);
    assert_eq!(vl, 1.0);
    assert_eq!(o, -(2.0f64 * 2.0) / TAU);
}
