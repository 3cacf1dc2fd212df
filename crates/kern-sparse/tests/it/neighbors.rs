//! Radius neighbour search equals brute force exactly.

use kern_core::{Samples, sq_dist};
use kern_sparse::{NeighborIndex, SearchMethod};
use proptest::prelude::*;

fn brute(x: &Samples, q: &[f64], c: f64) -> Vec<(usize, f64)> {
    x.rows().enumerate().map(|(i, p)| (i, sq_dist(q, p))).filter(|&(_, r2)| r2 < c * c).collect()
}

fn check_all_methods(x: &Samples, queries: &Samples, c: f64) {
    for m in [SearchMethod::Auto, SearchMethod::Grid, SearchMethod::Scan, SearchMethod::Brute] {
        let idx = NeighborIndex::with_method(x, c, m).unwrap();
        let many = idx.query_many(queries).unwrap();
        for (qi, q) in queries.rows().enumerate() {
            let want = brute(x, q, c);
            let got: Vec<(usize, f64)> = idx.query(q).unwrap().iter().map(|n| (n.index, n.sq_dist)).collect();
            assert_eq!(got, want, "method {m:?} query {qi}");
            let got_many: Vec<(usize, f64)> = many[qi].iter().map(|n| (n.index, n.sq_dist)).collect();
            assert_eq!(got_many, want, "method {m:?} query_many {qi}");
            let mut count = 0;
            idx.for_each_neighbor(q, |_, _| count += 1).unwrap();
            assert_eq!(count, want.len());
        }
    }
}

/// Points on a coarse lattice (many exact ties at distance C and many duplicates).
fn lattice_points(n: usize, d: usize) -> impl Strategy<Value = Samples> {
    prop::collection::vec(0i32..6, n * d)
        .prop_map(move |v| Samples::from_flat(v.into_iter().map(|k| k as f64 * 0.5).collect(), n, d).unwrap())
}

fn real_points(n: usize, d: usize) -> impl Strategy<Value = Samples> {
    prop::collection::vec(-3.0f64..3.0, n * d).prop_map(move |v| Samples::from_flat(v, n, d).unwrap())
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(48))]

    #[test]
    fn equals_brute_force_real(
        (x, c) in (1usize..60, 1usize..12).prop_flat_map(|(n, d)| (real_points(n, d), 0.05f64..4.0))
    ) {
        check_all_methods(&x, &x, c);
    }

    #[test]
    fn equals_brute_force_lattice_with_ties_and_duplicates(
        (x, c) in (1usize..50, 1usize..6).prop_flat_map(|(n, d)| (lattice_points(n, d), prop::sample::select(vec![0.5, 1.0, 1.5, std::f64::consts::FRAC_1_SQRT_2])))
    ) {
        check_all_methods(&x, &x, c);
    }

    #[test]
    fn new_points_equal_brute_force(
        (x, q, c) in (1usize..40, 1usize..8, 1usize..20).prop_flat_map(|(n, d, m)| (real_points(n, d), real_points(m, d), 0.1f64..3.0))
    ) {
        check_all_methods(&x, &q, c);
    }
}

#[test]
fn radius_below_every_distance_gives_only_self() {
    let x = crate::common::uniform(200, 3, 1.0, 7);
    let min_d2 = (0..200)
        .flat_map(|i| (0..i).map(move |j| (i, j)))
        .map(|(i, j)| sq_dist(x.row(i), x.row(j)))
        .fold(f64::INFINITY, f64::min);
    let c = min_d2.sqrt() * 0.999;
    for m in [SearchMethod::Grid, SearchMethod::Scan, SearchMethod::Brute] {
        let idx = NeighborIndex::with_method(&x, c, m).unwrap();
        for (i, nbs) in idx.query_many(&x).unwrap().iter().enumerate() {
            assert_eq!(nbs.iter().map(|n| n.index).collect::<Vec<_>>(), vec![i]);
        }
    }
}

#[test]
fn radius_above_every_distance_gives_everything() {
    let x = crate::common::uniform(150, 5, 1.0, 8);
    for m in [SearchMethod::Grid, SearchMethod::Scan, SearchMethod::Brute] {
        let idx = NeighborIndex::with_method(&x, 10.0, m).unwrap();
        for nbs in idx.query_many(&x).unwrap() {
            assert_eq!(nbs.len(), 150);
        }
    }
}

#[test]
fn larger_data_all_methods_agree() {
    for (d, c) in [(1, 0.01), (2, 0.05), (3, 0.1), (8, 0.6), (20, 1.2)] {
        let x = crate::common::uniform(2500, d, 1.0, 42 + d as u64);
        let reference =
            NeighborIndex::with_method(&x, c, SearchMethod::Brute).unwrap().query_many(&x).unwrap();
        for m in [SearchMethod::Grid, SearchMethod::Scan] {
            if m == SearchMethod::Grid && d > kern_sparse::neighbors::GRID_HARD_MAX_DIM {
                continue;
            }
            let got = NeighborIndex::with_method(&x, c, m).unwrap().query_many(&x).unwrap();
            assert_eq!(got, reference, "d={d} method {m:?}");
        }
    }
}

#[test]
fn bad_inputs_are_errors() {
    let x = crate::common::uniform(10, 2, 1.0, 1);
    assert!(NeighborIndex::new(&x, 0.0).is_err());
    assert!(NeighborIndex::new(&x, f64::NAN).is_err());
    assert!(NeighborIndex::new(&x, -1.0).is_err());
    let idx = NeighborIndex::new(&x, 0.5).unwrap();
    assert!(idx.query(&[0.0, 0.0, 0.0]).is_err());
    assert!(idx.query_into(&[0.0], &mut Vec::new()).is_err());
    assert!(idx.for_each_neighbor(&[0.0, 0.0, 0.0], |_, _| panic!("called on a bad query")).is_err());
    assert!(idx.weighted_sum(&[0.0, 0.0], &[1.0; 9], |r2| r2).is_err());
    assert!(idx.weighted_sum(&[0.0], &[1.0; 10], |r2| r2).is_err());
    assert!(idx.weighted_sum(&[0.0, 0.0], &[1.0; 10], |r2| r2).is_ok());
    assert!(idx.query_many(&crate::common::uniform(3, 3, 1.0, 2)).is_err());
    let hi = crate::common::uniform(10, 13, 1.0, 3);
    assert!(NeighborIndex::with_method(&hi, 0.5, SearchMethod::Grid).is_err());
    // A radius too small for 64-bit cell coordinates: Auto falls back to the scan, Grid refuses.
    let far = Samples::from_rows(&[[0.0], [1e10]]).unwrap();
    assert_eq!(NeighborIndex::new(&far, 1e-9).unwrap().method(), SearchMethod::Scan);
    assert!(NeighborIndex::with_method(&far, 1e-9, SearchMethod::Grid).is_err());
}
