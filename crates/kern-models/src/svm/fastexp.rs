//! The Gaussian kernel's columns `exp(−β r²)` for `r² ≥ 0`, on kern-core's branch-free vectorizable
//! [`kern_core::kernel::exp_fast`] (a few ulp from `f64::exp`; 0 below −708, where LIBSVM's float cache
//! has already flushed to 0).

/// `e^x` for `x ≤ 0`: kern-core's branch-free vectorizable [`kern_core::kernel::exp_fast`] (one
/// implementation for the workspace).
#[inline(always)]
pub(crate) fn exp_nonpos(x: f64) -> f64 {
    kern_core::kernel::exp_fast(x)
}

/// `out[k] = scale[k] · exp(−β out[k])` in place (`out` holds squared distances), compiled for the best
/// available SIMD level.
pub(crate) fn gaussian_in_place(out: &mut [f64], beta: f64, sign: &[f64], sj: f64) {
    pulp::Arch::new().dispatch(
        #[inline(always)]
        || {
            for (o, &s) in out.iter_mut().zip(sign) {
                *o = s * sj * exp_nonpos(-beta * *o);
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_std_exp() {
        let mut worst: f64 = 0.0;
        let mut x = 0.0;
        while x > -700.0 {
            let (a, b) = (exp_nonpos(x), x.exp());
            worst = worst.max(((a - b) / b).abs());
            x -= 0.000_731_3;
        }
        assert!(worst < 5e-16, "relative error {worst:e}");
        assert_eq!(exp_nonpos(0.0), 1.0);
        assert_eq!(exp_nonpos(-1e6), 0.0);
    }
}
