//! Seeded, version-stable randomness: Xoshiro256++ (fixed algorithm, unlike `StdRng`) with our own
//! unbiased bounded integers and Fisher–Yates shuffle, so fold assignments and subsamples for a seed
//! never change with a `rand` upgrade or with the number of threads.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};

/// The generator for stream `stream` of seed `seed` (streams are independent tasks: repeats, folds).
pub(crate) fn stream(seed: u64, stream: u64) -> Xoshiro256PlusPlus {
    // SplitMix64 finaliser of (seed, stream) so nearby seeds and streams give unrelated states.
    let mut z = seed ^ stream.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    Xoshiro256PlusPlus::seed_from_u64(z)
}

/// Uniform integer in `0..bound` (`bound > 0`), unbiased (Lemire's multiply-and-reject).
pub(crate) fn below<R: Rng>(rng: &mut R, bound: u64) -> u64 {
    debug_assert!(bound > 0);
    let threshold = bound.wrapping_neg() % bound;
    loop {
        let m = (rng.next_u64() as u128) * (bound as u128);
        if (m as u64) >= threshold {
            return (m >> 64) as u64;
        }
    }
}

/// Fisher–Yates shuffle.
pub(crate) fn shuffle<T, R: Rng>(rng: &mut R, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        let j = below(rng, i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

/// `m` distinct indices of `0..n`, sorted (`m ≤ n`), by a partial Fisher–Yates shuffle.
pub(crate) fn sample_indices<R: Rng>(rng: &mut R, n: usize, m: usize) -> Vec<usize> {
    debug_assert!(m <= n);
    let mut idx: Vec<usize> = (0..n).collect();
    for i in 0..m {
        let j = i + below(rng, (n - i) as u64) as usize;
        idx.swap(i, j);
    }
    idx.truncate(m);
    idx.sort_unstable();
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_in_range_and_deterministic() {
        let mut a = stream(7, 0);
        let mut b = stream(7, 0);
        for bound in 1..200u64 {
            let x = below(&mut a, bound);
            assert!(x < bound);
            assert_eq!(x, below(&mut b, bound));
        }
        assert_ne!(stream(7, 0).next_u64(), stream(7, 1).next_u64());
    }

    #[test]
    fn sample_indices_distinct() {
        let mut r = stream(1, 2);
        let s = sample_indices(&mut r, 100, 30);
        assert_eq!(s.len(), 30);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
    }
}
