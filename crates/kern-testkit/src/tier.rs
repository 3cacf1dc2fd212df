//! The two test tiers and property-test case counts.
//!
//! `cargo test --workspace --release` is the fast tier. `cargo xtask test --extended` runs the
//! extended tier: the tests marked `#[ignore = "extended tier"]`, with `KERN_TEST_TIER=extended`,
//! which multiplies every property test's case count by [`EXTENDED_FACTOR`].
//!
//! `PROPTEST_CASES` scales the counts too: each test's count is its weight relative to proptest's
//! default of 256 cases, so `PROPTEST_CASES=2560` runs every property test with ten times its count.

use proptest::test_runner::Config;

/// How much the extended tier multiplies each property test's case count.
pub const EXTENDED_FACTOR: u32 = 8;

/// Proptest's own default case count, the unit `PROPTEST_CASES` is read against.
const PROPTEST_DEFAULT_CASES: u32 = 256;

/// Which tier of the test suite is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// `cargo test --workspace --release`: small sizes and case counts.
    Fast,
    /// `cargo xtask test --extended` (`KERN_TEST_TIER=extended`).
    Extended,
}

/// The tier of this run, from `KERN_TEST_TIER` (`fast` when unset).
///
/// ```
/// use kern_testkit::{Tier, tier};
/// // `cargo test` alone runs the fast tier.
/// if std::env::var_os("KERN_TEST_TIER").is_none() {
///     assert_eq!(tier(), Tier::Fast);
/// }
/// ```
///
/// # Panics
/// When `KERN_TEST_TIER` holds anything but `fast` or `extended`: a misspelt tier would otherwise
/// quietly run the fast one.
pub fn tier() -> Tier {
    match std::env::var("KERN_TEST_TIER").as_deref() {
        Err(_) | Ok("fast") | Ok("") => Tier::Fast,
        Ok("extended") => Tier::Extended,
        Ok(other) => panic!("KERN_TEST_TIER is {other:?}; use \"fast\" or \"extended\""),
    }
}

/// The case count a property test of weight `cases` runs in this tier: `cases` in the fast tier,
/// [`EXTENDED_FACTOR`] times that in the extended one, rescaled by `PROPTEST_CASES` when it is set.
///
/// ```
/// if std::env::var_os("KERN_TEST_TIER").is_none() && std::env::var_os("PROPTEST_CASES").is_none() {
///     assert_eq!(kern_testkit::tier::case_count(24), 24);
/// }
/// ```
///
/// # Panics
/// When `PROPTEST_CASES` is set but not a positive whole number.
pub fn case_count(cases: u32) -> u32 {
    let tiered = match tier() {
        Tier::Fast => cases,
        Tier::Extended => cases.saturating_mul(EXTENDED_FACTOR),
    };
    match std::env::var("PROPTEST_CASES") {
        Err(_) => tiered,
        Ok(v) => {
            let total: u64 = v
                .trim()
                .parse()
                .ok()
                .filter(|&t| t > 0)
                .unwrap_or_else(|| panic!("PROPTEST_CASES is {v:?}; use a positive whole number"));
            let scaled = u64::from(tiered) * total / u64::from(PROPTEST_DEFAULT_CASES);
            u32::try_from(scaled.max(1)).unwrap_or(u32::MAX)
        }
    }
}

/// The proptest configuration of a property test of weight `cases` (see [`case_count`]): that many
/// cases, at least eight rejected inputs (`prop_assume!`) allowed per case, and failing cases kept
/// where proptest keeps them by default (the committed `*.proptest-regressions` files).
///
/// Inside `proptest! { #![proptest_config(kern_testkit::proptest_config(8))] ... }`, or directly:
///
/// ```
/// use proptest::test_runner::TestRunner;
///
/// let mut runner = TestRunner::new(kern_testkit::proptest_config(8));
/// runner.run(&(0i32..100, 0i32..100), |(a, b)| {
///     assert_eq!(a + b, b + a);
///     Ok(())
/// })
/// .unwrap();
/// ```
pub fn proptest_config(cases: u32) -> Config {
    let base = Config::default();
    let cases = case_count(cases);
    // Rejections (`prop_assume!`) grow with the case count: eight per case, never fewer than the
    // default allows.
    let max_global_rejects = base.max_global_rejects.max(cases.saturating_mul(8));
    Config { cases, max_global_rejects, ..base }
}
