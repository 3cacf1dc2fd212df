//! FVS against random selections: the accuracy curves two experiments draw (KFA basis points in the
//! FVS paper's reproduction, Nyström centres in the landmark experiment), summarised the same way —
//! the random curves' mean and range, the accuracy each curve first reaches, and the chart.

use crate::Result;
use crate::figures::{Series, line_chart};
use std::path::Path;

/// The summary of one dataset's curves: FVS accuracy at each size against the accuracies of several
/// random selections at the same sizes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VersusRandom {
    /// The sizes (basis points or centres).
    pub sizes: Vec<usize>,
    /// FVS accuracy at each size (possibly fewer than `sizes`).
    pub fvs: Vec<f64>,
    /// Mean of the random selections' accuracy at each size.
    pub mean: Vec<f64>,
    /// Lowest random accuracy at each size.
    pub lo: Vec<f64>,
    /// Highest random accuracy at each size.
    pub hi: Vec<f64>,
    /// Best accuracy of either curve (FVS or the random mean).
    pub best: f64,
    /// The accuracy to reach: `best` minus one point.
    pub target: f64,
    /// The first size at which FVS reaches `target`.
    pub reach_fvs: Option<usize>,
    /// The first size at which the random mean reaches `target`.
    pub reach_random: Option<usize>,
    /// Sizes (among those FVS has) at which FVS is at least the random mean.
    pub wins: usize,
}

impl VersusRandom {
    /// Summarises the curves. `fvs` may be shorter than `sizes` (FVS stops when the pool's span is
    /// exhausted); every `random` curve has one accuracy per size.
    pub fn new(sizes: &[usize], fvs: &[f64], random: &[Vec<f64>]) -> Self {
        let column = |i: usize| random.iter().map(move |r| r[i]);
        let per_size = |f: &dyn Fn(usize) -> f64| (0..sizes.len()).map(f).collect::<Vec<f64>>();
        let mean = per_size(&|i| column(i).sum::<f64>() / random.len() as f64);
        let lo = per_size(&|i| column(i).fold(f64::INFINITY, f64::min));
        let hi = per_size(&|i| column(i).fold(f64::NEG_INFINITY, f64::max));
        let best = fvs.iter().chain(&mean).copied().fold(0.0, f64::max);
        let target = best - 0.01;
        let wins = fvs.iter().zip(&mean).filter(|(f, m)| f >= m).count();
        VersusRandom {
            sizes: sizes.to_vec(),
            fvs: fvs.to_vec(),
            reach_fvs: first_reaching(sizes, fvs, target),
            reach_random: first_reaching(sizes, &mean, target),
            mean,
            lo,
            hi,
            best,
            target,
            wins,
        }
    }

    /// Whether FVS reaches the target with no more points than the random mean (also when only FVS
    /// reaches it).
    pub fn reaches_first(&self) -> bool {
        match (self.reach_fvs, self.reach_random) {
            (Some(a), Some(b)) => a <= b,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    /// A reached size for a table, or `> largest` when the curve never reaches the target.
    pub fn show(&self, reach: Option<usize>) -> String {
        reach.map_or(format!("> {}", self.sizes.last().copied().unwrap_or(0)), |s| s.to_string())
    }

    /// Draws the chart: FVS, the random mean, min and max against the size.
    pub fn chart(
        &self,
        path: &Path,
        title: &str,
        x_label: &str,
        fvs_label: &str,
        random_label: &str,
    ) -> Result<()> {
        let pts = |a: &[f64]| self.sizes.iter().map(|&s| s as f64).zip(a.iter().copied()).collect::<Vec<_>>();
        line_chart(
            path,
            title,
            x_label,
            "test accuracy",
            &[
                Series { name: fvs_label.into(), points: pts(&self.fvs) },
                Series { name: random_label.into(), points: pts(&self.mean) },
                Series { name: "random min".into(), points: pts(&self.lo) },
                Series { name: "random max".into(), points: pts(&self.hi) },
            ],
        )
    }
}

/// The first size whose accuracy reaches `target`.
pub(crate) fn first_reaching(sizes: &[usize], acc: &[f64], target: f64) -> Option<usize> {
    sizes.iter().zip(acc).find(|(_, a)| **a >= target).map(|(&l, _)| l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_reaching_finds_the_first_size_at_or_above_the_target() {
        assert_eq!(first_reaching(&[2, 4, 6], &[0.5, 0.8, 0.9], 0.8), Some(4));
        assert_eq!(first_reaching(&[2, 4, 6], &[0.5, 0.8, 0.9], 0.95), None);
    }

    #[test]
    fn summary_of_two_random_curves_and_a_shorter_fvs_curve() {
        let sizes = [10, 20, 30];
        // Dyadic accuracies, so that the means are exact.
        let random = vec![vec![0.5, 0.625, 0.875], vec![0.75, 0.875, 0.875]];
        let v = VersusRandom::new(&sizes, &[0.6875, 0.87], &random);
        assert_eq!(v.mean, vec![0.625, 0.75, 0.875]);
        assert_eq!(v.lo, vec![0.5, 0.625, 0.875]);
        assert_eq!(v.hi, vec![0.75, 0.875, 0.875]);
        assert_eq!(v.best, 0.875);
        // Target 0.865: FVS reaches it at 20, the random mean only at 30.
        assert_eq!((v.reach_fvs, v.reach_random), (Some(20), Some(30)));
        assert!(v.reaches_first());
        assert_eq!(v.wins, 2);
        assert_eq!(v.show(None), "> 30");
        let never = VersusRandom::new(&sizes, &[0.1], &random);
        assert!(!never.reaches_first());
    }
}
