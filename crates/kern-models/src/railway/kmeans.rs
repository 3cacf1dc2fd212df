//! Seeded k-means (Lloyd's iterations, k-means++ seeding, best of several restarts).

use crate::error::{ModelsError, Result};
use kern_core::{Samples, sq_dist};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// A k-means partition.
///
/// ```
/// use kern_core::Samples;
/// let x = Samples::from_rows(&[[0.0], [2.0], [10.0], [12.0]])?;
/// let km = kern_models::railway::kmeans(&x, None, 2, 3, 100, 1)?;
/// let mut c = km.centroids.clone();
/// c.sort_by(f64::total_cmp);
/// assert_eq!((km.k, c), (2, vec![1.0, 11.0]));
/// assert_eq!(km.inertia, 4.0); // four points, each 1 from its centroid
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct KMeans {
    /// Centroids, row-major `k × d`.
    pub centroids: Vec<f64>,
    /// Cluster of each point (indices into the points given).
    pub labels: Vec<usize>,
    /// Sum of squared distances of the points to their centroids.
    pub inertia: f64,
    /// Number of clusters.
    pub k: usize,
}

/// k-means of the samples `idx` of `x` (all samples when `idx` is `None`): k-means++ seeding, at most
/// `max_iter` Lloyd iterations, the lowest inertia of `restarts` runs, each seeded from `seed`.
/// Empty clusters are re-seeded with the point farthest from its centroid.
///
/// ```
/// use kern_core::Samples;
/// let x = Samples::from_rows(&[[0.0], [0.1], [10.0], [10.2]])?;
/// let km = kern_models::railway::kmeans(&x, None, 2, 3, 100, 7)?;
/// assert_eq!(km.labels[0], km.labels[1]);
/// assert_ne!(km.labels[0], km.labels[2]);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub fn kmeans(
    x: &Samples,
    idx: Option<&[usize]>,
    k: usize,
    restarts: usize,
    max_iter: usize,
    seed: u64,
) -> Result<KMeans> {
    let all: Vec<usize>;
    let idx = match idx {
        Some(i) => i,
        None => {
            all = (0..x.n()).collect();
            &all
        }
    };
    let n = idx.len();
    if k == 0 || k > n {
        return Err(ModelsError::Param { name: "k", value: k as f64, reason: "must be in 1..=n" });
    }
    check_runs(restarts, max_iter)?;
    let mut master = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut best: Option<KMeans> = None;
    for _ in 0..restarts {
        let s: u64 = master.random();
        let run = lloyd(x, idx, k, max_iter, s);
        if best.as_ref().is_none_or(|b| run.inertia < b.inertia) {
            best = Some(run);
        }
    }
    Ok(best.expect("at least one restart"))
}

fn lloyd(x: &Samples, idx: &[usize], k: usize, max_iter: usize, seed: u64) -> KMeans {
    let d = x.d();
    let n = idx.len();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    // k-means++ seeding.
    let mut cent = Vec::with_capacity(k * d);
    let first = idx[rng.random_range(0..n)];
    cent.extend_from_slice(x.row(first));
    let mut d2: Vec<f64> = idx.iter().map(|&i| sq_dist(x.row(i), x.row(first))).collect();
    for _ in 1..k {
        let total: f64 = d2.iter().sum();
        let pick = if total > 0.0 {
            let mut u = rng.random::<f64>() * total;
            let mut p = n - 1;
            for (t, &v) in d2.iter().enumerate() {
                if u < v {
                    p = t;
                    break;
                }
                u -= v;
            }
            p
        } else {
            rng.random_range(0..n)
        };
        let c = x.row(idx[pick]).to_vec();
        for (t, &i) in idx.iter().enumerate() {
            d2[t] = d2[t].min(sq_dist(x.row(i), &c));
        }
        cent.extend_from_slice(&c);
    }
    let mut labels = vec![usize::MAX; n];
    for _ in 0..max_iter {
        let mut changed = false;
        for (t, &i) in idx.iter().enumerate() {
            let xi = x.row(i);
            let mut bl = 0;
            let mut bd = f64::INFINITY;
            for c in 0..k {
                let dd = sq_dist(xi, &cent[c * d..(c + 1) * d]);
                if dd < bd {
                    bd = dd;
                    bl = c;
                }
            }
            if labels[t] != bl {
                labels[t] = bl;
                changed = true;
            }
        }
        if !changed {
            break;
        }
        let mut sums = vec![0.0; k * d];
        let mut counts = vec![0usize; k];
        for (t, &i) in idx.iter().enumerate() {
            counts[labels[t]] += 1;
            for (s, v) in sums[labels[t] * d..(labels[t] + 1) * d].iter_mut().zip(x.row(i)) {
                *s += v;
            }
        }
        for c in 0..k {
            if counts[c] > 0 {
                for j in 0..d {
                    cent[c * d + j] = sums[c * d + j] / counts[c] as f64;
                }
            }
        }
        for c in 0..k {
            if counts[c] == 0 {
                // Re-seed an empty cluster with the point farthest from its centroid.
                let (far, _) = idx
                    .iter()
                    .enumerate()
                    .map(|(t, &i)| (t, sq_dist(x.row(i), &cent[labels[t] * d..(labels[t] + 1) * d])))
                    .fold((0, -1.0), |a, b| if b.1 > a.1 { b } else { a });
                cent[c * d..(c + 1) * d].copy_from_slice(x.row(idx[far]));
                labels[far] = c;
            }
        }
    }
    let inertia = idx
        .iter()
        .enumerate()
        .map(|(t, &i)| sq_dist(x.row(i), &cent[labels[t] * d..(labels[t] + 1) * d]))
        .sum();
    KMeans { centroids: cent, labels, inertia, k }
}

/// Refuses k-means without a run or an iteration: `restarts` and `max_iter` must be at least 1
/// (zero used to become one silently).
pub(crate) fn check_runs(restarts: usize, max_iter: usize) -> Result<()> {
    if restarts == 0 {
        return Err(ModelsError::Param {
            name: "restarts",
            value: 0.0,
            reason: "must be at least 1 (k-means runs at least once for each number of clusters)",
        });
    }
    if max_iter == 0 {
        return Err(ModelsError::Param {
            name: "max_iter",
            value: 0.0,
            reason: "must be at least 1 (each k-means run takes at least one step)",
        });
    }
    Ok(())
}
