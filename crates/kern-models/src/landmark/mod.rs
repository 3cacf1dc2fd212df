//! Landmark (Nyström) models at scale: kernel ridge, LS-SVM and kernel PCA on `m ≪ n` centres chosen by
//! feature vector selection or uniformly at random — FALKON's method (Rudi, Carratino & Rosasco,
//! "FALKON: An Optimal Large Scale Kernel Method", NeurIPS 2017; Meanti et al., "Kernel methods through
//! the roof", NeurIPS 2020).
//!
//! **Centres** ([`Landmarks`]): `random:M` draws `M` distinct training points with a seeded generator;
//! `fvs:M` runs feature vector selection ([`crate::fvs::select`], Baudat & Anouar eqs. 3–8) on a seeded
//! random pool of the training points (default `max(5·M, 10 000)`, all of them when `n` is smaller), so
//! its cost and memory (`pool × M` doubles for the incomplete Cholesky factor) do not grow with `n`.
//! The pool is 5 per centre because each greedy step reads the whole `pool × L` factor once (the
//! residual update, `4·pool·M²` bytes over a selection: memory-bound), so the pool sets the
//! selection's cost; `fvs:M:POOL` takes a larger pool for a slower, finer selection.
//!
//! **Never `n × m` in memory.** Every product with `K_nm = K(X, C)` streams the rows of `X` in blocks
//! ([`stream`]): each block of `K_nm` is computed by kern-core's cross Gram ([`kern_core::cross_gram`]),
//! used and dropped. Memory is `O(n·d + m² + blocks·rows·m)`; the sizes are checked against
//! [`kern_core::memory`] before anything is allocated. Blocks are computed in fixed groups and their
//! partial sums added in block order, so results are the same bytes at any thread count.
//!
//! The models: [`NystromRidge`] (kernel ridge or LS-SVM, by preconditioned conjugate gradients; λ by
//! exact leave-one-out on the `m × m` system with [`NystromRidgeParams::choose_lambda`]) and
//! [`NystromKpca`] (kernel PCA on the Nyström feature map).
//!
//! ```
//! use kern_core::{RealTargets, Samples, Targets};
//! use kern_models::landmark::{Landmarks, NystromRidgeParams};
//! let x = Samples::from_flat((0..200).map(|i| (i as f64 * 0.37).sin()).collect(), 100, 2)?;
//! let y: Vec<f64> = x.rows().map(|r| r[0] - r[1]).collect();
//! let model = NystromRidgeParams::krr("gaussian:sigma=1".parse()?, 1e-3, "fvs:20".parse()?)
//!     .fit_targets(&x, &Targets::Real(RealTargets::new(y.clone())?))?;
//! assert_eq!(model.centres().n(), 20);
//! let f = model.predict(&x)?;
//! let err: f64 = f.iter().zip(&y).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
//! assert!(err < 0.05, "{err}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod kpca;
mod loo;
mod ridge;
mod stream;

pub use kpca::{NystromKpca, NystromKpcaParams};
pub use loo::{LandmarkLambdaChoice, SkippedLambda};
pub use ridge::{
    EXPECTED_ITERATIONS, KEPT_READ_FLOPS, NystromPreconditioner, NystromRidge, NystromRidgeParams,
    NystromSolve, RATE_WARMUP, RowPart, solve_flops,
};
#[cfg(test)]
use ridge::{Falkon, PROFILE_FLOPS, SolvePlan, predicted_iterations, rate_predicts_more_than};
#[cfg(test)]
use stream::KnmBlocks;
pub use stream::{block_rows, stream, stream_blocks};

use crate::error::{ModelsError, Result};
use crate::fvs::{self, FvsParams, Strategy};
use faer::{Mat, Side};
use kern_core::{KernelSpec, Samples, gram, memory};
use serde::{Deserialize, Serialize};

/// The smallest default FVS pool.
///
/// ```
/// use kern_models::landmark::{landmark_candidates, Landmarks, MIN_POOL};
/// // Five centres of many samples: the default pool is MIN_POOL samples, not 5 · 5.
/// let pool = landmark_candidates(3 * MIN_POOL, Landmarks::Fvs { m: 5, pool: None }, 0)?;
/// assert_eq!(pool.len(), MIN_POOL);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub const MIN_POOL: usize = 10_000;
/// The default FVS pool is this many times the number of centres (at least [`MIN_POOL`]).
///
/// ```
/// use kern_models::landmark::{landmark_candidates, Landmarks, MIN_POOL, POOL_PER_CENTRE};
/// let m = MIN_POOL / POOL_PER_CENTRE + 1; // enough centres for the pool to grow past MIN_POOL
/// let pool = landmark_candidates(10 * MIN_POOL, Landmarks::Fvs { m, pool: None }, 0)?;
/// assert_eq!(pool.len(), POOL_PER_CENTRE * m);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub const POOL_PER_CENTRE: usize = 5;

/// How the `m` centres are chosen.
///
/// ```
/// use kern_models::landmark::Landmarks;
/// assert_eq!("random:500".parse::<Landmarks>()?, Landmarks::Random { m: 500 });
/// assert_eq!("fvs:100".parse::<Landmarks>()?, Landmarks::Fvs { m: 100, pool: None });
/// assert_eq!("fvs:100:5000".parse::<Landmarks>()?, Landmarks::Fvs { m: 100, pool: Some(5000) });
/// assert!("fvs:0".parse::<Landmarks>().is_err() && "kmeans:10".parse::<Landmarks>().is_err());
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Landmarks {
    /// `m` distinct training points drawn uniformly with the seed.
    Random {
        /// Number of centres.
        m: usize,
    },
    /// `m` centres by feature vector selection on a seeded random pool of training points.
    Fvs {
        /// Number of centres (fewer when the pool's span has a smaller dimension).
        m: usize,
        /// Pool size (`None`: `max(POOL_PER_CENTRE·m, MIN_POOL)`, capped at `n`).
        pool: Option<usize>,
    },
}

impl Landmarks {
    /// The number of centres asked for.
    ///
    /// ```
    /// assert_eq!(kern_models::landmark::Landmarks::Random { m: 7 }.m(), 7);
    /// ```
    pub fn m(&self) -> usize {
        match *self {
            Landmarks::Random { m } | Landmarks::Fvs { m, .. } => m,
        }
    }

    /// `random` or `fvs`.
    ///
    /// ```
    /// assert_eq!(kern_models::landmark::Landmarks::Fvs { m: 7, pool: None }.name(), "fvs");
    /// ```
    pub fn name(&self) -> &'static str {
        match self {
            Landmarks::Random { .. } => "random",
            Landmarks::Fvs { .. } => "fvs",
        }
    }
}

impl std::fmt::Display for Landmarks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Landmarks::Random { m } => write!(f, "random:{m}"),
            Landmarks::Fvs { m, pool: None } => write!(f, "fvs:{m}"),
            Landmarks::Fvs { m, pool: Some(p) } => write!(f, "fvs:{m}:{p}"),
        }
    }
}

impl std::str::FromStr for Landmarks {
    type Err = ModelsError;
    fn from_str(s: &str) -> Result<Self> {
        let bad = || {
            ModelsError::Input(format!(
                "bad landmarks {s:?}; valid: random:M or fvs:M[:POOL] with M ≥ 1 centres (POOL ≥ M)"
            ))
        };
        let parts: Vec<&str> = s.trim().split(':').collect();
        let num = |t: &str| t.parse::<usize>().ok().filter(|&v| v >= 1).ok_or_else(bad);
        match parts.as_slice() {
            ["random", m] => Ok(Landmarks::Random { m: num(m)? }),
            ["fvs", m] => Ok(Landmarks::Fvs { m: num(m)?, pool: None }),
            ["fvs", m, p] => {
                let (m, p) = (num(m)?, num(p)?);
                if p < m {
                    return Err(bad());
                }
                Ok(Landmarks::Fvs { m, pool: Some(p) })
            }
            _ => Err(bad()),
        }
    }
}

/// Indices of the centres in `x` (module docs). `strategy` is the FVS candidate scoring
/// ([`crate::fvs::Strategy`]; ignored for random centres). Errors when `x` is empty or the FVS pool's
/// factor does not fit in memory.
///
/// ```
/// use kern_core::{Gaussian, Samples};
/// use kern_models::landmark::{select_landmarks, Landmarks};
/// let x = Samples::from_flat((0..60).map(|i| (i as f64 * 0.7).cos()).collect(), 30, 2)?;
/// let k = "gaussian:sigma=0.5".parse()?;
/// let a = select_landmarks(&k, &x, Landmarks::Random { m: 5 }, 3, Default::default())?;
/// assert_eq!(a, select_landmarks(&k, &x, Landmarks::Random { m: 5 }, 3, Default::default())?);
/// let f = select_landmarks(&k, &x, Landmarks::Fvs { m: 5, pool: None }, 3, Default::default())?;
/// assert_eq!(f.len(), 5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn select_landmarks(
    k: &KernelSpec,
    x: &Samples,
    choice: Landmarks,
    seed: u64,
    strategy: Strategy,
) -> Result<Vec<usize>> {
    let idx = landmark_candidates(x.n(), choice, seed)?;
    match choice {
        Landmarks::Random { .. } => Ok(idx),
        Landmarks::Fvs { m, .. } => fvs_on_pool(k, &x.select(&idx)?, &idx, m, strategy),
    }
}

/// The indices among `n` samples that the centre choice draws from the seed alone: the centres
/// themselves for `random:M`, the sorted FVS pool for `fvs:M[:POOL]` (checked against the memory of its
/// incomplete Cholesky factor). Data spread over processes draws them identically on every process
/// (global indices), then runs [`fvs_on_pool`] on the pool's samples. Errors when `n` is 0.
///
/// ```
/// use kern_models::landmark::{landmark_candidates, Landmarks};
/// assert_eq!(landmark_candidates(50, Landmarks::Random { m: 5 }, 3)?.len(), 5);
/// assert_eq!(landmark_candidates(50, Landmarks::Fvs { m: 5, pool: None }, 3)?, (0..50).collect::<Vec<_>>());
/// let pool = landmark_candidates(50, Landmarks::Fvs { m: 5, pool: Some(20) }, 3)?;
/// assert!(pool.len() == 20 && pool.windows(2).all(|w| w[0] < w[1]));
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub fn landmark_candidates(n: usize, choice: Landmarks, seed: u64) -> Result<Vec<usize>> {
    if n == 0 {
        return Err(ModelsError::Input("no training samples to choose centres from".into()));
    }
    match choice {
        Landmarks::Random { m } => Ok(fvs::random_indices(n, m, seed)),
        Landmarks::Fvs { m, pool } => {
            let p = pool.unwrap_or_else(|| m.saturating_mul(POOL_PER_CENTRE).max(MIN_POOL)).min(n);
            let m = m.min(p);
            let factor = memory::bytes_for::<f64>(&[p, m], "the FVS pool's incomplete Cholesky factor")?;
            memory::check_bytes(
                factor,
                "the FVS pool's incomplete Cholesky factor",
                "use a smaller pool (fvs:M:POOL) or random:M",
            )?;
            let mut pool_idx = if p == n { (0..n).collect() } else { fvs::random_indices(n, p, seed) };
            pool_idx.sort_unstable();
            Ok(pool_idx)
        }
    }
}

/// Feature vector selection of at most `m` centres among the pool's samples `xp` (whose indices among
/// the training samples are `pool_idx`, as [`landmark_candidates`] returns them); returns the chosen
/// training indices in selection order.
///
/// ```
/// use kern_core::Samples;
/// use kern_models::landmark::fvs_on_pool;
/// let x = Samples::from_flat((0..40).map(|i| (i as f64 * 0.7).cos()).collect(), 20, 2)?;
/// let idx: Vec<usize> = (100..120).collect();
/// let c = fvs_on_pool(&"gaussian:sigma=0.5".parse()?, &x, &idx, 4, Default::default())?;
/// assert!(c.len() == 4 && c.iter().all(|i| idx.contains(i)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn fvs_on_pool(
    k: &KernelSpec,
    xp: &Samples,
    pool_idx: &[usize],
    m: usize,
    strategy: Strategy,
) -> Result<Vec<usize>> {
    if xp.n() != pool_idx.len() {
        return Err(ModelsError::Input(format!(
            "{} pool samples but {} pool indices",
            xp.n(),
            pool_idx.len()
        )));
    }
    let params = FvsParams { max_fv: Some(m.min(xp.n())), strategy, ..FvsParams::default() };
    let sel = fvs::select(k, xp, &params)?;
    Ok(sel.selected.iter().map(|&i| pool_idx[i]).collect())
}

/// The lower Cholesky factor `L` of `K_mm + εI`, with FALKON's jitter `ε = m·u·max_i k(c_i, c_i)`
/// (`u` the unit roundoff; Meanti et al. 2020's implementation adds `m·u` to the diagonal), multiplied
/// by 100 up to four times while the factorization meets a non-positive pivot (duplicate or nearly
/// dependent centres). Returns `L` and `ε`.
pub(crate) fn factor_kmm(k: &KernelSpec, centres: &Samples) -> Result<(Mat<f64>, f64)> {
    let m = centres.n();
    memory::check_array::<f64>(
        &[3, m, m],
        "the centres' kernel matrix and its factors",
        "use fewer centres",
    )?;
    let kmm = gram(k, centres)?;
    let dmax = (0..m).map(|i| kmm[(i, i)]).fold(0.0, f64::max);
    if !(dmax.is_finite() && dmax > 0.0) {
        return Err(ModelsError::Numerical(format!(
            "the centres' kernel matrix has diagonal maximum {dmax}: the kernel is zero or not finite on them"
        )));
    }
    let mut eps = m as f64 * f64::EPSILON * dmax;
    for _ in 0..5 {
        let mut a = kmm.clone();
        for i in 0..m {
            a[(i, i)] += eps;
        }
        if let Ok(llt) = a.llt(Side::Lower) {
            return Ok((llt.L().to_owned(), eps));
        }
        eps *= 100.0;
    }
    Err(ModelsError::Numerical(
        "the centres' kernel matrix is not positive definite even with jitter: the kernel is not positive \
         definite"
            .into(),
    ))
}

#[cfg(test)]
mod tests;
