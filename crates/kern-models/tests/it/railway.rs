//! The railway kernel (González & Muñoz): PSD, block structure, local behaviour, eq. 7 in intersections,
//! and the area location of §4 on the modified XOR data of §3.3.

use kern_core::learner::{Fit, Model};
use kern_core::{ClassTargets, Gaussian, Indicator, Kernel, KernelSpec, Linear, Samples};
use kern_models::kfa::{BasisChoice, KfaParams};
use kern_models::railway::{AreaParams, Combination, Local, RailwayKernel, locate_areas};
use proptest::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

fn min_eig(k: &faer::Mat<f64>) -> f64 {
    let ev = k.self_adjoint_eigenvalues(faer::Side::Lower).unwrap();
    ev.into_iter().fold(f64::INFINITY, f64::min)
}

fn max_abs(k: &faer::Mat<f64>) -> f64 {
    let mut m: f64 = 0.0;
    for j in 0..k.ncols() {
        for i in 0..k.nrows() {
            m = m.max(k[(i, j)].abs());
        }
    }
    m
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(48))]
    #[test]
    fn gram_matrices_are_psd(
        centers in prop::collection::vec((-3.0f64..3.0, -3.0f64..3.0, 0.2f64..2.5, 0.1f64..20.0), 1..5),
        pts in prop::collection::vec((-4.0f64..4.0, -4.0f64..4.0), 2..25),
        mode in 0usize..4,
    ) {
        let areas: Vec<Indicator> =
            centers.iter().map(|&(a, b, r, g)| Indicator::new(vec![a, b], r, g).unwrap()).collect();
        let p = areas.len();
        let local = match mode % 2 {
            0 => Local::Shared(KernelSpec::Linear(Linear)),
            _ => Local::PerArea(
                (0..p)
                    .map(|i| if i % 2 == 0 {
                        KernelSpec::Linear(Linear)
                    } else {
                        KernelSpec::Gaussian(Gaussian::with_sigma(0.5 + i as f64).unwrap())
                    })
                    .collect(),
            ),
        };
        let comb = if mode < 2 { Combination::Zones } else { Combination::Eq8 };
        let k = RailwayKernel::new(areas, local).unwrap().with_combination(comb);
        let rows: Vec<[f64; 2]> = pts.iter().map(|&(a, b)| [a, b]).collect();
        let x = Samples::from_rows(&rows).unwrap();
        let g = k.gram(&x).unwrap();
        let scale = max_abs(&g).max(1e-300);
        prop_assert!(min_eig(&g) >= -1e-10 * scale, "min eig {} (scale {})", min_eig(&g), scale);
        for i in 0..x.n() {
            for j in 0..x.n() {
                prop_assert_eq!(g[(i, j)], g[(j, i)]);
                prop_assert!((g[(i, j)] - k.eval(x.row(i), x.row(j))).abs() <= 1e-12 * scale.max(1.0));
            }
        }
    }

    #[test]
    fn equals_eq7_for_two_areas_on_their_union(
        pts in prop::collection::vec((-1.0f64..3.5, -1.2f64..1.2), 2..20),
        gamma in 0.5f64..10.0,
    ) {
        let a1 = Indicator::new(vec![0.0, 0.0], 1.2, gamma).unwrap();
        let a2 = Indicator::new(vec![2.0, 0.0], 1.2, gamma).unwrap();
        let k1 = KernelSpec::Linear(Linear);
        let k2 = KernelSpec::Gaussian(Gaussian::with_sigma(1.0).unwrap());
        let k = RailwayKernel::new(vec![a1.clone(), a2.clone()], Local::PerArea(vec![k1.clone(), k2.clone()])).unwrap();
        let inside: Vec<[f64; 2]> = pts
            .iter()
            .map(|&(a, b)| [a, b])
            .filter(|p| a1.lambda(p) == 1.0 || a2.lambda(p) == 1.0)
            .collect();
        for x in &inside {
            for y in &inside {
                let (l1x, l1y, l2x, l2y) = (a1.lambda(x), a1.lambda(y), a2.lambda(x), a2.lambda(y));
                // Eq. 7: H1ᶜ K2 + H2ᶜ K1 + H1 H2 ½(K1 + K2).
                let eq7 = (1.0 - l1x) * (1.0 - l1y) * k2.eval(x, y)
                    + (1.0 - l2x) * (1.0 - l2y) * k1.eval(x, y)
                    + l1x * l1y * l2x * l2y * 0.5 * (k1.eval(x, y) + k2.eval(x, y));
                prop_assert!((k.eval(x, y) - eq7).abs() < 1e-12, "{:?} {:?}: {} vs {}", x, y, k.eval(x, y), eq7);
            }
        }
    }
}

#[test]
fn intersection_gets_the_average_of_the_local_kernels() {
    let a1 = Indicator::new(vec![0.0, 0.0], 1.0, 5.0).unwrap();
    let a2 = Indicator::new(vec![1.0, 0.0], 1.0, 5.0).unwrap();
    let k1 = KernelSpec::Linear(Linear);
    let k2 = KernelSpec::Gaussian(Gaussian::with_sigma(0.7).unwrap());
    let k = RailwayKernel::new(vec![a1, a2], Local::PerArea(vec![k1.clone(), k2.clone()])).unwrap();
    let (x, y) = ([0.5, 0.2], [0.4, -0.3]); // both in A1 ∩ A2
    assert!((k.eval(&x, &y) - 0.5 * (k1.eval(&x, &y) + k2.eval(&x, &y))).abs() < 1e-15);
    // Eq. 8 as printed gives twice the sum instead.
    let k8 = k.clone().with_combination(Combination::Eq8);
    assert!((k8.eval(&x, &y) - 2.0 * (k1.eval(&x, &y) + k2.eval(&x, &y))).abs() < 1e-12);
    // A point of A1 ∩ A2 against a point deep in A1 only: the intersection zone does not see it fully.
    let z = [-0.9, 0.0];
    assert_eq!(k.zone_of(&z), vec![0]);
    assert_eq!(k.zone_of(&x), vec![0, 1]);
    let l2z = (-5.0f64 * (1.9f64 * 1.9 - 1.0)).exp();
    let expect = l2z * 0.5 * (k1.eval(&z, &x) + k2.eval(&z, &x));
    assert!((k.eval(&z, &x) - expect).abs() < 1e-15);
}

#[test]
fn inside_one_area_it_is_the_local_kernel() {
    let g = Gaussian::with_sigma(0.8).unwrap();
    let one = RailwayKernel::new(vec![Indicator::new(vec![1.0, 1.0], 2.0, 3.0).unwrap()], Local::Shared(g))
        .unwrap();
    let far = RailwayKernel::new(
        vec![
            Indicator::new(vec![1.0, 1.0], 2.0, 30.0).unwrap(),
            Indicator::new(vec![20.0, 1.0], 2.0, 30.0).unwrap(),
        ],
        Local::PerArea(vec![g, Gaussian::with_sigma(5.0).unwrap()]),
    )
    .unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    for _ in 0..200 {
        let x = [1.0 + rng.random_range(-1.4..1.4), 1.0 + rng.random_range(-1.4..1.4)];
        let y = [1.0 + rng.random_range(-1.4..1.4), 1.0 + rng.random_range(-1.4..1.4)];
        assert_eq!(one.eval(&x, &y), g.eval(&x, &y));
        assert!((far.eval(&x, &y) - g.eval(&x, &y)).abs() < 1e-15);
    }
}

#[test]
fn disjoint_areas_give_a_block_diagonal_gram_matrix() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    let mut rows = Vec::new();
    for i in 0..60 {
        let c = [[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]][i % 3];
        rows.push([c[0] + rng.random_range(-1.0..1.0), c[1] + rng.random_range(-1.0..1.0)]);
    }
    let x = Samples::from_rows(&rows).unwrap();
    let areas: Vec<Indicator> = [[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]]
        .iter()
        .map(|c| Indicator::new(c.to_vec(), 1.5, 2.0).unwrap())
        .collect();
    let soft = RailwayKernel::linear(areas).unwrap();
    let blocks = soft.blocks(&x).unwrap();
    assert_eq!(blocks.len(), 3);
    for (b, blk) in blocks.iter().enumerate() {
        assert_eq!(blk.areas, vec![b]);
        assert!(blk.members.iter().all(|&i| i % 3 == b));
    }
    let hard = soft.clone().with_cutoff(1e-12).unwrap();
    let (gs, gh) = (soft.gram(&x).unwrap(), hard.gram(&x).unwrap());
    // Every other area is at least 6 − 1.5 − √2 away: its indicator tail is below exp(−2·(3.09² − 1.5²)).
    let tail = (-2.0f64 * (3.08f64.powi(2) - 2.25)).exp();
    for i in 0..x.n() {
        for j in 0..x.n() {
            if i % 3 == j % 3 {
                assert!((gh[(i, j)] - Linear.eval(x.row(i), x.row(j))).abs() < 1e-9);
            } else {
                assert_eq!(gh[(i, j)], 0.0);
                assert!(gs[(i, j)].abs() <= tail * 8.0 * 3.0, "{} > {}", gs[(i, j)], tail);
            }
        }
    }
    assert!(min_eig(&gh) >= -1e-10 * max_abs(&gh));
}

#[test]
fn persistence_round_trip() {
    let k = RailwayKernel::linear(vec![
        Indicator::new(vec![0.0, 1.0], 1.0, 2.0).unwrap(),
        Indicator::new(vec![1.0, 1.0], 0.5, 9.0).unwrap(),
    ])
    .unwrap()
    .with_cutoff(1e-9)
    .unwrap();
    let bytes = kern_models::persist::to_bytes(&k).unwrap();
    let back: RailwayKernel<KernelSpec> = kern_models::persist::from_bytes(&bytes, "<bytes>").unwrap();
    for p in [[0.1, 0.9], [0.9, 1.2], [3.0, 3.0]] {
        assert_eq!(back.eval(&p, &[0.5, 1.0]), k.eval(&p, &[0.5, 1.0]));
    }
}

/// §3.3: four groups N(μ_i, Σ_i) of 50 points, groups 1 and 3 of class +1, 2 and 4 of class −1.
fn modified_xor(seed: u64) -> (Samples, Vec<&'static str>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut normal = || {
        let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    };
    let groups = [
        ([3.0, 5.0], [0.5f64, 1.5], "+1"),
        ([7.0, 5.0], [0.5, 1.5], "-1"),
        ([15.0, 17.0], [1.5, 0.5], "+1"),
        ([15.0, 13.0], [1.5, 0.5], "-1"),
    ];
    let mut rows = Vec::new();
    let mut y = Vec::new();
    for (mu, var, lab) in groups {
        for _ in 0..50 {
            rows.push([mu[0] + var[0].sqrt() * normal(), mu[1] + var[1].sqrt() * normal()]);
            y.push(lab);
        }
    }
    (Samples::from_rows(&rows).unwrap(), y)
}

/// Perceptron with a bias: true when it reaches zero training errors (the points are linearly separable).
fn linearly_separable(x: &Samples, idx: &[usize], y: &[f64]) -> bool {
    let mut w = [0.0; 3];
    for _ in 0..10_000 {
        let mut errors = 0;
        for &i in idx {
            let r = x.row(i);
            let f = w[0] * r[0] + w[1] * r[1] + w[2];
            if y[i] * f <= 0.0 {
                w[0] += y[i] * r[0];
                w[1] += y[i] * r[1];
                w[2] += y[i] * 10.0;
                errors += 1;
            }
        }
        if errors == 0 {
            return true;
        }
    }
    false
}

#[test]
fn area_location_on_the_modified_xor_finds_linearly_separable_areas() {
    for seed in [1, 2, 3] {
        let (x, labels) = modified_xor(seed);
        let t = ClassTargets::from_labels(&labels).unwrap();
        let loc = locate_areas(&x, &t, &AreaParams { seed, ..Default::default() }).unwrap();
        assert!(loc.converged);
        // The trace tries k = 2, 3, ... and only the last passes.
        let ks: Vec<usize> = loc.trace.iter().map(|t| t.k).collect();
        assert_eq!(ks, (2..2 + ks.len()).collect::<Vec<_>>());
        assert!(loc.trace[..ks.len() - 1].iter().all(|t| !t.all_pure()));
        assert!(loc.trace.last().unwrap().all_pure());
        // Every step keeps its partition: one cluster per sample, cluster sizes as tested, and the last
        // step's partition is the final one.
        for t in &loc.trace {
            assert_eq!(t.assignment.len(), x.n());
            for (c, test) in t.tests.iter().enumerate() {
                assert_eq!(t.assignment.iter().filter(|&&a| a == c).count(), test.size);
            }
        }
        let last = &loc.trace.last().unwrap().assignment;
        for (c, members) in loc.clusters.iter().enumerate() {
            assert!(members.iter().all(|&i| last[i] == c));
        }
        // k = 2 puts each pair of groups in one cluster, and the χ² test rejects it.
        assert!(loc.trace[0].tests.iter().any(|c| c.rejected && c.dof == 1 && c.p_value < 0.05));
        let y: Vec<f64> = labels.iter().map(|l| if *l == "+1" { 1.0 } else { -1.0 }).collect();
        assert!(!linearly_separable(&x, &(0..x.n()).collect::<Vec<_>>(), &y));
        assert!(loc.areas.len() >= 2);
        for a in &loc.areas {
            let classes: std::collections::BTreeSet<bool> = a.members.iter().map(|&i| y[i] > 0.0).collect();
            assert_eq!(classes.len(), 2, "each area holds both labels");
            assert!(linearly_separable(&x, &a.members, &y), "area {:?} not separable", a.center);
            // Radius = distance to the farthest member.
            let far =
                a.members.iter().map(|&i| kern_core::sq_dist(x.row(i), &a.center).sqrt()).fold(0.0, f64::max);
            assert!((far - a.radius).abs() < 1e-12);
        }
        // The railway kernel on these areas with affine local kernels (x·y + 1: a hyperplane with its own
        // offset per area) separates the classes.
        let k = loc.kernel(KernelSpec::Polynomial(kern_core::Polynomial::new(1, 1.0).unwrap())).unwrap();
        let m = KfaParams::new(k).basis(BasisChoice::Fvs(Default::default())).fit(&x, &t).unwrap();
        let acc = m.predict(&x).unwrap().iter().zip(t.classes()).filter(|(a, b)| **a as usize == **b).count();
        // Least squares is not a maximum-margin rule: allow 2 of 200 on the margin.
        assert!(acc >= x.n() - 2, "{acc} of {}", x.n());
        assert!(m.n_fv()[0] <= 3 * loc.areas.len(), "an affine kernel per area: {:?}", m.n_fv());
    }
}

#[test]
fn area_location_is_deterministic_and_validates() {
    let (x, labels) = modified_xor(9);
    let t = ClassTargets::from_labels(&labels).unwrap();
    let a = locate_areas(&x, &t, &AreaParams::default()).unwrap();
    let b = locate_areas(&x, &t, &AreaParams::default()).unwrap();
    assert_eq!(a, b);
    assert!(locate_areas(&x, &t, &AreaParams { significance: 0.0, ..Default::default() }).is_err());
    assert!(locate_areas(&x, &t, &AreaParams { sub_cells: 1, ..Default::default() }).is_err());
    let short = ClassTargets::from_labels(&labels[45..55]).unwrap();
    assert!(locate_areas(&x, &short, &AreaParams::default()).is_err());
}

#[test]
fn explicit_zone_map_reproduces_the_kernel() {
    let (x, labels) = modified_xor(4);
    let t = ClassTargets::from_labels(&labels).unwrap();
    let loc = locate_areas(&x, &t, &AreaParams::default()).unwrap();
    for local in
        [KernelSpec::Linear(Linear), KernelSpec::Polynomial(kern_core::Polynomial::new(1, 1.0).unwrap())]
    {
        let k = loc.kernel(local).unwrap();
        let map = kern_models::railway::ZoneMap::fit(k.clone(), &x, 1e-12).unwrap();
        let z = map.transform(&x).unwrap();
        let g = k.gram(&x).unwrap();
        let scale = max_abs(&g);
        for i in (0..x.n()).step_by(7) {
            for j in 0..x.n() {
                let dot: f64 = z.row(i).iter().zip(z.row(j)).map(|(a, b)| a * b).sum();
                assert!((dot - g[(i, j)]).abs() <= 1e-9 * scale, "{dot} vs {}", g[(i, j)]);
            }
        }
    }
    let g = RailwayKernel::new(
        vec![Indicator::new(vec![0.0, 0.0], 1.0, 1.0).unwrap()],
        Local::Shared(KernelSpec::Gaussian(Gaussian::with_sigma(1.0).unwrap())),
    )
    .unwrap();
    assert!(kern_models::railway::ZoneMap::fit(g, &x, 1e-12).is_err());
}
