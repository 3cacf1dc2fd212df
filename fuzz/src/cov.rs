//! The coverage-guided driver: libFuzzer (through `libfuzzer-sys`) over the same targets as the random
//! driver (`targets.rs`). The target is chosen by the environment variable `KERN_FUZZ_TARGET` (one of
//! `targets::TARGETS`), so one instrumented build serves all of them. Build and run it with `run.sh`
//! (stable Rust: the coverage instrumentation is LLVM's `sancov-module` pass, enabled by `RUSTFLAGS`);
//! a panic is a crash, and libFuzzer saves the input under the `-artifact_prefix` directory.
//!
//! For the `model` target a custom mutator keeps the header's payload length and checksum right in
//! nine of ten mutations (as the random driver does), so the decoder and the model validation are
//! reached instead of the checksum test; with `KERN_FUZZ_SEED_DIR` set, start-up writes one valid
//! model of every kind there to start from.

#![no_main]
#![allow(missing_docs)]

mod seeds;
mod targets;

use std::path::PathBuf;
use std::sync::OnceLock;

/// The target name and a scratch directory for the data-file targets, set once at start-up.
static SETUP: OnceLock<(String, PathBuf)> = OnceLock::new();

/// Length of a model file's header; the payload length is at 24..32, its checksum at 32..40.
const HEADER_LEN: usize = 40;

fn setup() -> (String, PathBuf) {
    let target = std::env::var("KERN_FUZZ_TARGET").unwrap_or_default();
    assert!(
        targets::TARGETS.contains(&target.as_str()),
        "set KERN_FUZZ_TARGET to one of {:?}",
        targets::TARGETS
    );
    // The same memory budget as the random driver: a size the data asks for beyond it is refused.
    kern_core::memory::set_limit(Some(2 << 30));
    if target == "model"
        && let Ok(dir) = std::env::var("KERN_FUZZ_SEED_DIR")
    {
        std::fs::create_dir_all(&dir).expect("seed directory");
        for (i, m) in seeds::model_seeds().iter().enumerate() {
            std::fs::write(PathBuf::from(&dir).join(format!("valid-{i}")), m).expect("seed file");
        }
    }
    // libFuzzer ends the process with `exit`, so nothing here can remove a directory at the end:
    // `run.sh` makes it, passes it in `KERN_FUZZ_SCRATCH` and removes it when the run ends.
    let scratch = match std::env::var_os("KERN_FUZZ_SCRATCH") {
        Some(dir) => PathBuf::from(dir).join(std::process::id().to_string()), // one per `-fork` worker
        None => std::env::temp_dir().join(format!("kern-fuzz-cov-{target}")),
    };
    std::fs::create_dir_all(&scratch).expect("scratch directory");
    (target, scratch)
}

libfuzzer_sys::fuzz_target!(init: { SETUP.get_or_init(setup); }, |data: &[u8]| {
    let (target, scratch) = SETUP.get_or_init(setup);
    targets::run(target, data, scratch);
});

libfuzzer_sys::fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    let size = libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    let is_model = SETUP.get().is_some_and(|(t, _)| t == "model");
    if is_model && size >= HEADER_LEN && seed % 10 != 0 {
        let payload = (size - HEADER_LEN) as u64;
        data[24..32].copy_from_slice(&payload.to_le_bytes());
        let sum = seeds::fnv1a64(&data[HEADER_LEN..size]);
        data[32..40].copy_from_slice(&sum.to_le_bytes());
    }
    size
});
