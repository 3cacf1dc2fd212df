//! C's `printf("%.*g")` for `f64`, byte for byte as glibc prints it in the C locale: LIBSVM writes every
//! real number of a model file with `%.17g`, which always round-trips a double.
//!
//! `%.Pg` takes the exponent `X` of the value rounded to `P` significant digits (round half to even on
//! the exact binary value, as glibc does); it prints `%.{P-1-X}f` when `P > X ≥ −4` and `%.{P-1}e`
//! otherwise, then removes trailing zeros of the fraction and a trailing point. Rust's `{:.*e}` gives
//! the correctly rounded significant digits and `X`; this module only lays them out.

/// `format!("%.17g", v)` as C prints it (the format of LIBSVM's coefficients, `rho`, `gamma`, …).
///
/// ```
/// use kern_models::libsvm_model::fmt_g17;
/// assert_eq!(fmt_g17(0.1), "0.10000000000000001");
/// assert_eq!(fmt_g17(-2.0), "-2");
/// assert_eq!(fmt_g17(1e-5), "1.0000000000000001e-05");
/// assert_eq!(fmt_g17(1e17), "1e+17");
/// ```
pub fn fmt_g17(v: f64) -> String {
    fmt_g(v, 17)
}

/// `format!("%.{precision}g", v)` as C prints it (`precision` 0 means 1, as in C).
///
/// ```
/// use kern_models::libsvm_model::fmt_g;
/// assert_eq!(fmt_g(0.5, 8), "0.5");
/// assert_eq!(fmt_g(123456789.0, 8), "1.2345679e+08");
/// assert_eq!(fmt_g(f64::INFINITY, 8), "inf");
/// ```
pub fn fmt_g(v: f64, precision: usize) -> String {
    let p = precision.max(1);
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    let sign = if v.is_sign_negative() { "-" } else { "" };
    if v == 0.0 {
        return format!("{sign}0");
    }
    // `d.ddd…e±X` with exactly `p` correctly rounded significant digits.
    let sci = format!("{:.*e}", p - 1, v.abs());
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` output has an exponent");
    let x: i64 = exp.parse().expect("`{:e}` exponent is an integer");
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    debug_assert_eq!(digits.len(), p);
    let text = |d: &[u8]| String::from_utf8(d.to_vec()).expect("ASCII digits");
    if x < -4 || x >= p as i64 {
        let frac = strip_zeros(&digits[1..]);
        let point = if frac.is_empty() { String::new() } else { format!(".{}", text(frac)) };
        let esign = if x < 0 { '-' } else { '+' };
        format!("{sign}{}{point}e{esign}{:02}", digits[0] as char, x.unsigned_abs())
    } else if x >= 0 {
        let split = x as usize + 1;
        let frac = strip_zeros(&digits[split..]);
        let point = if frac.is_empty() { String::new() } else { format!(".{}", text(frac)) };
        format!("{sign}{}{point}", text(&digits[..split]))
    } else {
        let lead = "0".repeat((-x - 1) as usize);
        format!("{sign}0.{lead}{}", text(strip_zeros(&digits)))
    }
}

fn strip_zeros(d: &[u8]) -> &[u8] {
    let end = d.iter().rposition(|&c| c != b'0').map_or(0, |i| i + 1);
    &d[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Bit patterns and glibc's `%.17g` / `%.8g` of them, printed by a C program (see the fixture's
    /// first line for how it was made).
    const FIXTURE: &str = include_str!("../../tests/fixtures/libsvm/printf_g.txt");

    #[test]
    fn matches_glibc_printf_on_the_fixture() {
        let mut n = 0;
        for line in FIXTURE.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let v = f64::from_bits(u64::from_str_radix(f[0], 16).unwrap());
            assert_eq!(fmt_g17(v), f[1], "%.17g of {:016x}", v.to_bits());
            assert_eq!(fmt_g(v, 8), f[2], "%.8g of {:016x}", v.to_bits());
            n += 1;
        }
        assert!(n > 1000, "fixture has {n} values");
    }

    proptest! {
        #![proptest_config(kern_testkit::proptest_config(64))]
        /// 17 significant digits identify every finite double.
        #[test]
        fn g17_round_trips(bits in any::<u64>()) {
            let v = f64::from_bits(bits);
            prop_assume!(v.is_finite());
            let back: f64 = fmt_g17(v).parse().unwrap();
            prop_assert_eq!(back.to_bits(), v.to_bits());
        }
    }
}
