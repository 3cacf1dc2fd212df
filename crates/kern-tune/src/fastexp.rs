//! The parallel deterministic sums over flat distance arrays, built on kern-core's branch-free
//! vectorizable `exp` ([`kern_core::kernel::exp_fast`]: a few ulp from `f64::exp`, 0 below −708).
//!
//! The hot loops run inside `pulp::Arch::dispatch`, which compiles them with AVX2 + FMA when the CPU
//! has them (runtime detection, no `unsafe` here), and keep 8 independent accumulators so the sums
//! vectorise. Sums over a flat array are split in fixed chunks of [`CHUNK`] values, computed in parallel
//! and added in chunk order: the result does not depend on the number of threads.

use rayon::prelude::*;

/// Values per parallel task.
pub(crate) const CHUNK: usize = 1 << 14;
const LANES: usize = 8;

/// `e^x` for `x ≤ 0`: kern-core's branch-free vectorizable [`kern_core::kernel::exp_fast`] (one
/// implementation for the workspace).
#[inline(always)]
pub(crate) fn exp_neg(x: f64) -> f64 {
    kern_core::kernel::exp_fast(x)
}

/// A per-chunk sum kernel; `run` must be `#[inline(always)]` so that it is compiled inside
/// `pulp::Arch::dispatch`'s AVX2 + FMA context.
pub(crate) trait ChunkKernel<const M: usize>: Sync {
    /// The sums over one chunk.
    fn run(&self, chunk: &[f64]) -> [f64; M];
}

struct Run<'a, K, const M: usize>(&'a K, &'a [f64]);
impl<K: ChunkKernel<M>, const M: usize> pulp::WithSimd for Run<'_, K, M> {
    type Output = [f64; M];
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) -> [f64; M] {
        self.0.run(self.1)
    }
}

/// Per-chunk sums in fixed chunks, run in parallel and added in chunk order.
pub(crate) fn par_sums<const M: usize, K: ChunkKernel<M>>(p: &[f64], k: &K) -> [f64; M] {
    let parts: Vec<[f64; M]> = p.par_chunks(CHUNK).map(|c| pulp::Arch::new().dispatch(Run(k, c))).collect();
    let mut out = [0.0; M];
    for part in parts {
        for (o, v) in out.iter_mut().zip(part) {
            *o += v;
        }
    }
    out
}

/// Mean-to-half sums at β ([`chunk_mean_sums`]).
pub(crate) struct MeanSums(pub f64);
impl ChunkKernel<2> for MeanSums {
    #[inline(always)]
    fn run(&self, c: &[f64]) -> [f64; 2] {
        chunk_mean_sums(c, self.0)
    }
}

/// Maximum-variance sums at β ([`chunk_var_sums`]).
pub(crate) struct VarSums(pub f64);
impl ChunkKernel<5> for VarSums {
    #[inline(always)]
    fn run(&self, c: &[f64]) -> [f64; 5] {
        chunk_var_sums(c, self.0)
    }
}

/// Kernel of [`chunk_grid_sums`].
pub(crate) struct GridSums<'a>(pub &'a [f64], pub &'a [f64], pub &'a mut [f64]);
impl pulp::WithSimd for GridSums<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        chunk_grid_sums(self.0, self.1, self.2)
    }
}

/// `[Σ e^{−βp}, Σ p e^{−βp}]` over a chunk (mean-to-half and its derivative).
#[inline(always)]
pub(crate) fn chunk_mean_sums(p: &[f64], beta: f64) -> [f64; 2] {
    let mut s0 = [0.0; LANES];
    let mut s1 = [0.0; LANES];
    let mut it = p.chunks_exact(LANES);
    for c in &mut it {
        let c: &[f64; LANES] = c.try_into().expect("exact chunk");
        for l in 0..LANES {
            let e = exp_neg(-beta * c[l]);
            s0[l] += e;
            s1[l] += c[l] * e;
        }
    }
    for &v in it.remainder() {
        let e = exp_neg(-beta * v);
        s0[0] += e;
        s1[0] += v * e;
    }
    [s0.iter().sum(), s1.iter().sum()]
}

/// `[Σ e, Σ p e, Σ p² e, Σ p e², Σ p² e²]` with `e = e^{−βp}` over a chunk (maximum variance, its
/// derivative and second derivative; `e² = e^{−2βp}` costs no second exponential).
#[inline(always)]
pub(crate) fn chunk_var_sums(p: &[f64], beta: f64) -> [f64; 5] {
    let mut a = [[0.0; LANES]; 5];
    let mut it = p.chunks_exact(LANES);
    for c in &mut it {
        let c: &[f64; LANES] = c.try_into().expect("exact chunk");
        for l in 0..LANES {
            let v = c[l];
            let e = exp_neg(-beta * v);
            let (pe, e2) = (v * e, e * e);
            a[0][l] += e;
            a[1][l] += pe;
            a[2][l] += v * pe;
            a[3][l] += v * e2;
            a[4][l] += v * v * e2;
        }
    }
    for &v in it.remainder() {
        let e = exp_neg(-beta * v);
        a[0][0] += e;
        a[1][0] += v * e;
        a[2][0] += v * v * e;
        a[3][0] += v * e * e;
        a[4][0] += v * v * e * e;
    }
    a.map(|l| l.iter().sum())
}

/// `Σ e^{−β_g p}` for every `β_g` of `betas` over a chunk.
#[inline(always)]
pub(crate) fn chunk_grid_sums(p: &[f64], betas: &[f64], out: &mut [f64]) {
    for (o, &b) in out.iter_mut().zip(betas) {
        let mut s = [0.0; LANES];
        let mut it = p.chunks_exact(LANES);
        for c in &mut it {
            let c: &[f64; LANES] = c.try_into().expect("exact chunk");
            for l in 0..LANES {
                s[l] += exp_neg(-b * c[l]);
            }
        }
        for &v in it.remainder() {
            s[0] += exp_neg(-b * v);
        }
        *o += s.iter().sum::<f64>();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_std_exp() {
        let mut worst: f64 = 0.0;
        for i in 0..=200_000 {
            let x = -700.0 * i as f64 / 200_000.0;
            let (a, b) = (exp_neg(x), x.exp());
            worst = worst.max(((a - b) / b).abs());
        }
        assert!(worst < 4e-16, "worst relative error {worst:e}");
        assert_eq!(exp_neg(0.0), 1.0);
        assert!(exp_neg(-1e6) < 1e-300);
        assert!(exp_neg(-1e6) >= 0.0);
    }

    #[test]
    fn sums_do_not_depend_on_chunking() {
        let p: Vec<f64> = (0..100_003).map(|i| (i % 977) as f64 * 0.013).collect();
        let a = par_sums(&p, &MeanSums(0.7));
        let direct: f64 = p.iter().map(|v| (-0.7 * v).exp()).sum();
        assert!((a[0] - direct).abs() < 1e-9 * direct);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let b = pool.install(|| par_sums(&p, &MeanSums(0.7)));
        assert_eq!(a, b);
    }
}
