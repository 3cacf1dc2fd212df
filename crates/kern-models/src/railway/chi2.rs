//! The χ² distribution's survival function, for the purity test of the area location.

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, 9 terms; relative error below 1e-14).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1−x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, &c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularised upper incomplete gamma function `Q(a, x) = Γ(a, x) / Γ(a)`: series for `x < a + 1`,
/// Lentz's continued fraction otherwise.
fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let ln_pre = -x + a * x.ln() - ln_gamma(a);
    if x < a + 1.0 {
        let (mut ap, mut sum, mut del) = (a, 1.0 / a, 1.0 / a);
        for _ in 0..10_000 {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        (1.0 - sum * ln_pre.exp()).clamp(0.0, 1.0)
    } else {
        const TINY: f64 = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (ln_pre.exp() * h).clamp(0.0, 1.0)
    }
}

/// `P(χ²_dof ≥ x)`, the p-value of a χ² statistic `x` with `dof ≥ 1` degrees of freedom.
///
/// ```
/// use kern_models::railway::chi2_sf;
/// assert!((chi2_sf(3.841458820694124, 1) - 0.05).abs() < 1e-9);
/// assert!((chi2_sf(5.991464547107979, 2) - 0.05).abs() < 1e-9);
/// assert_eq!(chi2_sf(0.0, 3), 1.0);
/// ```
pub fn chi2_sf(x: f64, dof: usize) -> f64 {
    if dof == 0 {
        return if x > 0.0 { 0.0 } else { 1.0 };
    }
    gamma_q(dof as f64 / 2.0, x / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_quantiles() {
        // (statistic, dof, upper tail) from standard χ² tables.
        for &(x, k, p) in &[
            (2.705543454095404, 1, 0.10),
            (6.634896601021214, 1, 0.01),
            (9.487729036781154, 4, 0.05),
            (18.307038053275146, 10, 0.05),
            (0.10153104426762156, 1, 0.75),
            (124.34211340400407, 100, 0.05),
        ] {
            assert!((chi2_sf(x, k) - p).abs() < 1e-8, "{x} {k}: {} vs {p}", chi2_sf(x, k));
        }
        // dof 2: exactly exp(−x/2).
        for x in [0.1, 1.0, 7.5, 40.0] {
            assert!((chi2_sf(x, 2) - (-x / 2.0f64).exp()).abs() < 1e-13);
        }
    }
}
