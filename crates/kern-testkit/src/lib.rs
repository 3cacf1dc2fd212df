//! Test support shared by the kern crates (a dev-dependency only, never published).
//!
//! - [`mod@tier`] and [`proptest_config`]: the two test tiers and property-test case counts from one place;
//! - [`data`]: seeded data generators (the green-red mixture, uniform points, blobs, two circles);
//! - [`mod@reference`]: brute-force references (dense Gram matrices by the definition);
//! - [`scratch`]: scratch directories that leave nothing behind;
//! - [`data_dir`]: the repository's `data/` folder.
//!
//! ```
//! let config = kern_testkit::proptest_config(16);
//! assert!(config.cases >= 1);
//! ```

pub mod data;
pub mod reference;
mod scratch;
pub mod tier;

pub use scratch::{Scratch, scratch, write};
pub use tier::{Tier, proptest_config, tier};

use std::path::PathBuf;

/// The repository's `data/` folder, where the real data sets the tests read are shipped.
///
/// # Panics
/// When the folder is missing: a test of shipped data fails rather than skips.
///
/// ```
/// assert!(kern_testkit::data_dir().join("wisconsin.csv").is_file());
/// ```
pub fn data_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data");
    assert!(dir.is_dir(), "the repository's data folder is missing: {}", dir.display());
    dir
}
