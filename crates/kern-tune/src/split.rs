//! A seeded train/test split, stratified by class as scikit-learn's `train_test_split(stratify=y)`.
//!
//! ```
//! use kern_core::{ClassTargets, Samples};
//! use kern_tune::split::train_test_split;
//! use kern_tune::cv::Stratify;
//!
//! let x = Samples::from_rows(&(0..20).map(|i| [i as f64]).collect::<Vec<_>>())?;
//! let y = ClassTargets::from_labels(&(0..20).map(|i| if i < 10 { "a" } else { "b" }).collect::<Vec<_>>())?;
//! let s = train_test_split(&x, &y, 0.25, Stratify::Auto, 7)?;
//! assert_eq!((s.x_train.n(), s.x_test.n()), (15, 5));
//! // The same seed gives the same split.
//! assert_eq!(s.test, train_test_split(&x, &y, 0.25, Stratify::Auto, 7)?.test);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::cv::{CvTargets, Stratify, class_members, strata_of};
use crate::error::{Result, TuneError};
use crate::rng;
use kern_core::Samples;

/// The two parts of a split: samples, targets, and the indices of each part into the input (ascending).
///
/// ```
/// use kern_core::{RealTargets, Samples};
/// use kern_tune::{cv::Stratify, split::train_test_split};
/// let x = Samples::from_rows(&[[0.0], [10.0], [20.0], [30.0], [40.0]])?;
/// let y = RealTargets::new(vec![0.0, 1.0, 2.0, 3.0, 4.0])?;
/// let s = train_test_split(&x, &y, 0.4, Stratify::Auto, 3)?;
/// assert_eq!((s.x_train.n(), s.x_test.n()), (3, 2));
/// // The parts are the rows `train` and `test` name, which partition the input.
/// let test_y: Vec<f64> = s.test.iter().map(|&i| i as f64).collect();
/// assert_eq!(s.y_test.values(), &test_y[..]);
/// let mut all = [s.train.clone(), s.test.clone()].concat();
/// all.sort();
/// assert_eq!(all, [0, 1, 2, 3, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Split<T> {
    /// Training samples (rows `train` of the input, in that order).
    pub x_train: Samples,
    /// Test samples (rows `test` of the input).
    pub x_test: Samples,
    /// Training targets.
    pub y_train: T,
    /// Test targets.
    pub y_test: T,
    /// Indices of the training rows, ascending.
    pub train: Vec<usize>,
    /// Indices of the test rows, ascending.
    pub test: Vec<usize>,
}

/// Splits `x`, `y` into a training and a test part with `test_fraction` of the rows in the test part
/// (rounded up, as scikit-learn does, and at least one row in each part).
///
/// With [`Stratify::Auto`] class targets are split class by class, so each part keeps the class
/// proportions (each class's share of the test part is its proportional share, rounded to whole rows
/// by largest remainder); real targets are split by a plain shuffle. The draw is seeded
/// (Xoshiro256++), the same for a seed on any machine and thread count.
///
/// ```
/// use kern_core::{RealTargets, Samples};
/// use kern_tune::{cv::Stratify, split::train_test_split};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
/// let y = RealTargets::new(vec![0.0, 1.0, 2.0, 3.0])?;
/// let s = train_test_split(&x, &y, 0.5, Stratify::Auto, 1)?;
/// assert_eq!((s.train.len(), s.test.len()), (2, 2));
/// assert!(train_test_split(&x, &y, 1.0, Stratify::Auto, 1).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn train_test_split<T: CvTargets>(
    x: &Samples,
    y: &T,
    test_fraction: f64,
    stratify: Stratify,
    seed: u64,
) -> Result<Split<T>> {
    let n = x.n();
    if y.n_targets() != n {
        return Err(TuneError::Validation(format!("{n} samples but {} targets", y.n_targets())));
    }
    if !(test_fraction > 0.0 && test_fraction < 1.0) {
        return Err(TuneError::Param {
            name: "test fraction",
            value: test_fraction,
            reason: "must lie strictly between 0 and 1",
        });
    }
    let n_test = ((test_fraction * n as f64).ceil() as usize).max(1);
    if n < 2 || n_test >= n {
        return Err(TuneError::Validation(format!(
            "{n} samples cannot be split with {test_fraction} of them in the test part and at least one in each"
        )));
    }
    let strata = strata_of(y, stratify)?;
    let mut g = rng::stream(seed, 0);
    let mut test = match strata.as_deref() {
        None => {
            let mut order: Vec<usize> = (0..n).collect();
            rng::shuffle(&mut g, &mut order);
            order.truncate(n_test);
            order
        }
        Some(s) => stratified_test(&mut g, s, n_test),
    };
    test.sort_unstable();
    let mut in_test = vec![false; n];
    for &i in &test {
        in_test[i] = true;
    }
    let train: Vec<usize> = (0..n).filter(|&i| !in_test[i]).collect();
    Ok(Split {
        x_train: x.select(&train)?,
        x_test: x.select(&test)?,
        y_train: y.subset(&train)?,
        y_test: y.subset(&test)?,
        train,
        test,
    })
}

/// `n_test` indices drawn class by class: each class gets its proportional share of `n_test`, the
/// rows left over by rounding down go to the classes with the largest remainders (ties: lower class).
fn stratified_test<R: rand::Rng>(g: &mut R, strata: &[usize], n_test: usize) -> Vec<usize> {
    let n = strata.len();
    // Empty classes would take no row and draw nothing: leaving them out changes no split.
    let mut members = class_members(strata);
    let k = members.len();
    let exact: Vec<f64> = members.iter().map(|m| m.len() as f64 * n_test as f64 / n as f64).collect();
    let mut take: Vec<usize> = exact.iter().map(|e| e.floor() as usize).collect();
    let mut left = n_test - take.iter().sum::<usize>();
    let mut by_remainder: Vec<usize> = (0..k).collect();
    by_remainder.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())));
    for &c in &by_remainder {
        if left == 0 {
            break;
        }
        if take[c] < members[c].len() {
            take[c] += 1;
            left -= 1;
        }
    }
    let mut test = Vec::with_capacity(n_test);
    for (m, &t) in members.iter_mut().zip(&take) {
        rng::shuffle(g, m);
        test.extend_from_slice(&m[..t]);
    }
    test
}

#[cfg(test)]
mod tests {
    use super::*;
    use kern_core::{ClassTargets, RealTargets};

    fn rows(n: usize) -> Samples {
        Samples::from_rows(&(0..n).map(|i| [i as f64, (i * i) as f64]).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn parts_partition_the_rows_and_carry_their_targets() {
        let x = rows(23);
        let y = RealTargets::new((0..23).map(|i| i as f64 * 0.5).collect()).unwrap();
        for seed in 0..20 {
            let s = train_test_split(&x, &y, 0.3, Stratify::Auto, seed).unwrap();
            assert_eq!(s.test.len(), 7); // ceil(0.3 · 23)
            let mut all: Vec<usize> = s.train.iter().chain(&s.test).copied().collect();
            all.sort_unstable();
            assert_eq!(all, (0..23).collect::<Vec<_>>());
            for (part, idx, xs) in [(&s.y_train, &s.train, &s.x_train), (&s.y_test, &s.test, &s.x_test)] {
                for (r, &i) in idx.iter().enumerate() {
                    assert_eq!(part.values()[r], i as f64 * 0.5);
                    assert_eq!(xs.row(r)[0], i as f64);
                }
            }
        }
    }

    #[test]
    fn stratified_parts_keep_the_class_proportions() {
        // 30 / 12 / 6 rows of three classes, a quarter (12 rows) to the test part: exact shares 7.5,
        // 3 and 1.5; the one row left by rounding down goes to class a or c (equal remainders).
        let labels: Vec<&str> = (0..48)
            .map(|i| {
                if i < 30 {
                    "a"
                } else if i < 42 {
                    "b"
                } else {
                    "c"
                }
            })
            .collect();
        let y = ClassTargets::from_labels(&labels).unwrap();
        let x = rows(48);
        for seed in 0..20 {
            let s = train_test_split(&x, &y, 0.25, Stratify::Auto, seed).unwrap();
            let count = |c: usize| s.test.iter().filter(|&&i| y.classes()[i] == c).count();
            let (a, b, c) = (count(0), count(1), count(2));
            assert_eq!(a + b + c, 12);
            assert_eq!(b, 3);
            assert!((7..=8).contains(&a) && (1..=2).contains(&c), "{a} {b} {c}");
        }
    }

    #[test]
    fn bad_fractions_and_sizes_are_errors() {
        let x = rows(4);
        let y = RealTargets::new(vec![0.0; 4]).unwrap();
        for f in [0.0, 1.0, -0.1, f64::NAN, 0.99] {
            assert!(train_test_split(&x, &y, f, Stratify::Auto, 0).is_err(), "{f}");
        }
        assert!(train_test_split(&x, &y, 0.5, Stratify::Always, 0).is_err());
        let short = RealTargets::new(vec![0.0; 3]).unwrap();
        assert!(train_test_split(&x, &short, 0.5, Stratify::Auto, 0).is_err());
    }
}
