//! cargo-fuzz target `csv`: see `targets::csv` (README.md: how to run it).

#![no_main]

#[path = "../src/targets.rs"]
#[allow(dead_code)]
mod targets;

use std::path::PathBuf;
use std::sync::OnceLock;

/// A scratch directory for the input file, one per process (in memory under `/dev/shm` when it exists).
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = match std::env::var_os("TMPDIR") {
            Some(t) => PathBuf::from(t),
            None if std::path::Path::new("/dev/shm").is_dir() => PathBuf::from("/dev/shm"),
            None => std::env::temp_dir(),
        };
        let dir = base.join(format!("kern-cargo-fuzz-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kern_core::memory::set_limit(Some(2 << 30));
    targets::csv(data, scratch());
});
