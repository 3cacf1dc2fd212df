//! Sparse columns of `Q` in parts: wide columns computed on demand in two halves on two threads equal
//! the columns computed on one, bit for bit; the halves and the parts split at a position hold every
//! nonzero once; a gradient update over the parts of two columns, on two pieces of `g`, is the
//! update over the whole columns; and the sparse update of two columns is the dense one, bit for bit,
//! with copies of the samples and swapped positions.

use kern_core::{CompactlySupported, Gaussian, Samples};
use kern_sparse::kmatrix::{Precomputed, SignedColumns, SparseColumn, SparseOnDemand};
use proptest::prelude::*;
use std::sync::Arc;

/// `n` points uniform in `[0, 1)^d`.
fn points(n: usize, d: usize, seed: u64) -> Samples {
    kern_testkit::data::uniform(n, d, 1.0, seed)
}

/// Every nonzero of a column: position and value bits, in the column's order.
fn entries(c: &SparseColumn<'_>) -> Vec<(usize, u64)> {
    let mut out = Vec::new();
    c.for_each(|p, v| out.push((p, v.to_bits())));
    out
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(12))]

    /// Columns computed on demand with their values in two halves (on a pool of two threads) against
    /// the same columns computed on one thread: the same positions and value bits, for columns below
    /// and above the width at which they split (at least one column of each in every case).
    #[test]
    fn split_columns_are_the_same_columns(n in 700usize..1400, d in 1usize..3, seed in 0u64..1000,
                                          radius in 0.3f64..0.9, sigma in 0.2f64..1.0) {
        let x = points(n, d, seed);
        let k = CompactlySupported::new(Gaussian::with_sigma(sigma).unwrap(), radius, 3.0).unwrap();
        let od = Arc::new(SparseOnDemand::new(&k, &x).unwrap());
        let pre = || Some(Precomputed::OnDemand { kc: od.clone(), cache_bytes: 1 << 20 });
        let signs: Vec<f64> = (0..n).map(|t| if t % 3 == 0 { -1.0 } else { 1.0 }).collect();
        let one = SignedColumns::new(&k, &x, (0..n).collect(), signs.clone(), pre());
        let two = SignedColumns::new(&k, &x, (0..n).collect(), signs, pre());
        two.split_columns(true);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let (mut narrow, mut wide) = (0, 0);
        for j in 0..n {
            let want = entries(&one.sparse_column(j).unwrap());
            let got = pool.install(|| entries(&two.sparse_column(j).unwrap()));
            prop_assert_eq!(&got, &want, "column {}", j);
            if want.len() >= 512 { wide += 1 } else { narrow += 1 }
        }
        prop_assume!(wide > 0 && narrow > 0);
    }

    /// The two parts of a column, and its parts below and from a position `m`, hold every nonzero of the
    /// column once, in its order; the parts split at `m`. A gradient update by the parts of two
    /// columns on the pieces `g[..m]` and `g[m..]` gives the whole update's `g` bit for bit and
    /// reports the same positions and entries.
    #[test]
    fn parts_hold_every_nonzero_once(n in 2usize..200, d in 1usize..3, seed in 0u64..1000,
                                     radius in 0.05f64..0.8, i in 0usize..200, j in 0usize..200,
                                     m in 0usize..220, da in -2.0f64..2.0, db in -2.0f64..2.0,
                                     on_demand: bool) {
        let x = points(n, d, seed);
        let (i, j, m) = (i % n, j % n, m.min(n));
        let k = CompactlySupported::new(Gaussian::with_sigma(0.5).unwrap(), radius, 3.0).unwrap();
        let pre = if on_demand {
            Precomputed::OnDemand { kc: Arc::new(SparseOnDemand::new(&k, &x).unwrap()), cache_bytes: 0 }
        } else {
            Precomputed::Sparse(Arc::new(kern_sparse::sparse_gram(&k, &x).unwrap().into_matrix()))
        };
        let signs: Vec<f64> = (0..n).map(|t| if t % 2 == 0 { -1.0 } else { 1.0 }).collect();
        let q = SignedColumns::new(&k, &x, (0..n).collect(), signs, Some(pre));
        let (a, b) = (q.sparse_column(i).unwrap(), q.sparse_column(j).unwrap());
        let whole = entries(&a);
        let (h0, h1) = a.parts();
        prop_assert_eq!([entries(&h0), entries(&h1)].concat(), whole.clone());
        prop_assert_eq!(h0.nnz(), a.nnz() * kern_sparse::kmatrix::CALLER_SIXTEENTHS / 16);
        prop_assert_eq!(a.part_position(), entries(&h1).first().map(|e| e.0));
        let (a0, a1) = a.split_at_position(m).expect("positions follow rows");
        prop_assert!(entries(&a0).iter().all(|e| e.0 < m) && entries(&a1).iter().all(|e| e.0 >= m));
        prop_assert_eq!([entries(&a0), entries(&a1)].concat(), whole);
        let (b0, b1) = b.split_at_position(m).unwrap();
        let g0: Vec<f64> = (0..n).map(|t| (t as f64).cos()).collect();
        let (mut g, mut h) = (g0.clone(), g0);
        let (mut seen_g, mut seen_h) = (Vec::new(), Vec::new());
        SparseColumn::add_pair_then(&a, da, &b, db, &mut g, |p, v| seen_g.push((p, v.to_bits())));
        let (lo, hi) = h.split_at_mut(m);
        SparseColumn::add_pair_then_from(&a0, da, &b0, db, lo, 0, |p, v| seen_h.push((p, v.to_bits())));
        SparseColumn::add_pair_then_from(&a1, da, &b1, db, hi, m, |p, v| seen_h.push((p, v.to_bits())));
        prop_assert_eq!(g.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), h.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
        prop_assert_eq!(seen_g, seen_h);
    }
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(24))]

    /// The sparse update of two columns is the dense update `g += a·da + b·db` bit for bit at every
    /// position (the positions of neither column unchanged), with one or two copies of each sample
    /// (as ε-SVR's variables), with positions swapped or not, and reports each updated position once
    /// with its new entry.
    #[test]
    fn pair_update_is_the_dense_update(n in 2usize..120, d in 1usize..3, seed in 0u64..1000,
                                       radius in 0.05f64..0.8, i in 0usize..240, j in 0usize..240,
                                       da in -2.0f64..2.0, db in -2.0f64..2.0, two_copies: bool,
                                       swaps in proptest::collection::vec((0usize..240, 0usize..240), 0..6),
                                       on_demand: bool) {
        let x = points(n, d, seed);
        let k = CompactlySupported::new(Gaussian::with_sigma(0.5).unwrap(), radius, 3.0).unwrap();
        let pre = if on_demand {
            Precomputed::OnDemand { kc: Arc::new(SparseOnDemand::new(&k, &x).unwrap()), cache_bytes: 0 }
        } else {
            Precomputed::Sparse(Arc::new(kern_sparse::sparse_gram(&k, &x).unwrap().into_matrix()))
        };
        let l = if two_copies { 2 * n } else { n };
        let sample: Vec<usize> = (0..l).map(|v| v % n).collect();
        let signs: Vec<f64> = (0..l).map(|t| if (t * 7) % 3 == 0 { -1.0 } else { 1.0 }).collect();
        let mut q = SignedColumns::new(&k, &x, sample, signs, Some(pre));
        for &(s, t) in &swaps {
            q.swap_index(s % l, t % l);
        }
        let (i, j) = (i % l, j % l);
        let (mut qa, mut qb) = (vec![0.0; l], vec![0.0; l]);
        q.fill_column(i, 0, &mut qa);
        q.fill_column(j, 0, &mut qb);
        let g0: Vec<f64> = (0..l).map(|t| (t as f64 + 0.5).cos()).collect();
        let want: Vec<u64> = (0..l).map(|p| (g0[p] + (qa[p] * da + qb[p] * db)).to_bits()).collect();
        let mut g = g0.clone();
        let mut seen = Vec::new();
        let (a, b) = (q.sparse_column(i).unwrap(), q.sparse_column(j).unwrap());
        SparseColumn::add_pair_then(&a, da, &b, db, &mut g, |p, v| seen.push((p, v.to_bits())));
        prop_assert_eq!(g.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want);
        let mut positions: Vec<usize> = seen.iter().map(|e| e.0).collect();
        prop_assert!(seen.iter().all(|&(p, v)| v == g[p].to_bits()));
        let mut expected: Vec<usize> = Vec::new();
        a.for_each(|p, _| expected.push(p));
        b.for_each(|p, _| expected.push(p));
        positions.sort_unstable();
        expected.sort_unstable();
        expected.dedup();
        prop_assert_eq!(positions, expected, "every position of either column, once");
    }
}

/// Positions that were swapped no longer follow the rows: the columns refuse to split at a position.
#[test]
fn swapped_positions_do_not_split() {
    let x = points(50, 1, 7);
    let k = CompactlySupported::new(Gaussian::with_sigma(0.5).unwrap(), 0.5, 3.0).unwrap();
    let kc = Arc::new(kern_sparse::sparse_gram(&k, &x).unwrap().into_matrix());
    let mut q = SignedColumns::new(&k, &x, (0..50).collect(), vec![1.0; 50], Some(Precomputed::Sparse(kc)));
    assert!(q.sparse_column(3).unwrap().split_at_position(10).is_some());
    q.swap_index(2, 40);
    assert!(q.sparse_column(3).unwrap().split_at_position(10).is_none());
}
