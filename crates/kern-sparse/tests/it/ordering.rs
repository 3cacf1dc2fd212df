//! Orderings: RCM/AMD return permutations, RCM narrows random geometric graphs, disconnected graphs,
//! symmetric permutation and bandwidth metrics.

use kern_sparse::{
    Ordering, Permutation, bandwidth, bandwidth_permuted, order, pattern_density, pattern_entries,
    permute_symmetric, rcm, sparse_gram,
};
use nalgebra_sparse::{CooMatrix, CscMatrix};
use proptest::prelude::*;

fn is_permutation(p: &Permutation, n: usize) -> bool {
    let mut seen = vec![false; n];
    p.len() == n
        && p.perm().iter().all(|&i| i < n && !std::mem::replace(&mut seen[i], true))
        && (0..n).all(|i| p.inv()[p.perm()[i]] == i)
}

/// Symmetric matrix with unit diagonal from an edge list.
fn graph(n: usize, edges: &[(usize, usize)]) -> CscMatrix<f64> {
    let mut coo = CooMatrix::new(n, n);
    for i in 0..n {
        coo.push(i, i, 4.0);
    }
    for &(i, j) in edges {
        if i != j {
            coo.push(i, j, -1.0);
            coo.push(j, i, -1.0);
        }
    }
    CscMatrix::from(&coo)
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(40))]

    /// Random geometric graphs (points in random order): RCM's bandwidth never exceeds the identity's.
    #[test]
    fn rcm_on_random_geometric_graphs(n in 30usize..300, d in 1usize..4, c in 0.05f64..0.5, seed in any::<u64>()) {
        let x = crate::common::uniform(n, d, 1.0, seed);
        let g = sparse_gram(&crate::common::cs_gauss(1.0, c, d), &x).unwrap();
        let a = g.matrix();
        let p = rcm(a).unwrap();
        prop_assert!(is_permutation(&p, n));
        let before = bandwidth(a);
        let after = bandwidth_permuted(a, &p).unwrap();
        prop_assert!(after.max_row <= before.max_row, "rcm {} > identity {}", after.max_row, before.max_row);
        prop_assert_eq!(after, bandwidth(&permute_symmetric(a, &p).unwrap()));
        let amd = order(a, Ordering::Amd).unwrap();
        prop_assert!(is_permutation(&amd, n));
    }

    /// Any graph, connected or not: every ordering is a permutation and P A Pᵀ holds A's entries.
    #[test]
    fn orderings_permute_any_graph(n in 1usize..40, edges in prop::collection::vec((0usize..40, 0usize..40), 0..80)) {
        let edges: Vec<(usize, usize)> = edges.into_iter().filter(|&(i, j)| i < n && j < n).collect();
        let a = graph(n, &edges);
        for o in [Ordering::Identity, Ordering::Rcm, Ordering::Amd, Ordering::NestedDissection] {
            let p = order(&a, o).unwrap();
            prop_assert!(is_permutation(&p, n));
            let b = permute_symmetric(&a, &p).unwrap();
            prop_assert_eq!(b.nnz(), a.nnz());
            for (i, j) in pattern_entries(&b) {
                let want = a.get_entry(p.perm()[i], p.perm()[j]).unwrap().into_value();
                prop_assert_eq!(b.get_entry(i, j).unwrap().into_value(), want);
            }
        }
    }
}

#[test]
fn disconnected_components_are_each_banded() {
    // Three paths of length 50, interleaved (node k belongs to path k % 3), plus isolated nodes.
    let n = 160;
    let mut edges = Vec::new();
    for k in 0..147 {
        edges.push((k, k + 3));
    }
    let a = graph(n, &edges);
    assert!(bandwidth(&a).max_row == 3);
    let p = rcm(&a).unwrap();
    assert!(is_permutation(&p, n));
    // Each path becomes contiguous with bandwidth 1.
    assert_eq!(bandwidth_permuted(&a, &p).unwrap().max_row, 1);
}

#[test]
fn rcm_finds_the_band_of_a_shuffled_grid() {
    // A 20 x 20 grid graph (bandwidth 20 in natural order), shuffled: RCM brings it back to ≤ 20 + slack.
    let m = 20;
    let n = m * m;
    let shuffle: Vec<usize> = (0..n).map(|k| (k * 7919) % n).collect();
    let mut edges = Vec::new();
    for r in 0..m {
        for c in 0..m {
            let v = shuffle[r * m + c];
            if c + 1 < m {
                edges.push((v, shuffle[r * m + c + 1]));
            }
            if r + 1 < m {
                edges.push((v, shuffle[(r + 1) * m + c]));
            }
        }
    }
    let a = graph(n, &edges);
    assert!(bandwidth(&a).max_row > 300);
    let after = bandwidth_permuted(&a, &rcm(&a).unwrap()).unwrap();
    assert!(after.max_row <= 21, "rcm bandwidth {}", after.max_row);
}

#[test]
fn bandwidth_conventions() {
    let dense = CscMatrix::from(&nalgebra::DMatrix::<f64>::from_element(2000, 2000, 1.0));
    let b = bandwidth(&dense);
    assert_eq!(b.one_sided, 2000); // Table 1's dense case
    assert_eq!(b.bw, 3999); // 2 max b_i + 1
    let eye = CscMatrix::<f64>::identity(10);
    let b = bandwidth(&eye);
    assert_eq!((b.max_row, b.bw, b.one_sided, b.profile), (0, 1, 1, 0));
}

#[test]
fn density_grid_counts_every_entry() {
    let x = crate::common::uniform(300, 2, 1.0, 4);
    let g = sparse_gram(&crate::common::cs_gauss(1.0, 0.2, 2), &x).unwrap();
    let cells = 7;
    let dens = pattern_density(g.matrix(), cells);
    // Weighted by cell areas the densities add back to nnz.
    let span = |k: usize| ((k + 1) * 300).div_ceil(cells) - (k * 300).div_ceil(cells);
    let total: f64 =
        (0..cells * cells).map(|rc| dens[rc] * (span(rc / cells) * span(rc % cells)) as f64).sum();
    assert!((total - g.nnz() as f64).abs() < 1e-6);
    assert!(dens.iter().all(|&v| (0.0..=1.0).contains(&v)));
}

#[test]
fn errors() {
    let rect = CscMatrix::<f64>::zeros(2, 3);
    assert!(rcm(&rect).is_err());
    assert!(order(&rect, Ordering::Amd).is_err());
    let a = CscMatrix::<f64>::identity(3);
    assert!(permute_symmetric(&a, &Permutation::identity(2)).is_err());
    assert!("bogus".parse::<Ordering>().is_err());
}
