//! cargo-fuzz target `libsvm_model`: see `targets::libsvm_model` (README.md: how to run it).

#![no_main]

#[path = "../src/targets.rs"]
#[allow(dead_code)]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kern_core::memory::set_limit(Some(2 << 30));
    targets::libsvm_model(data);
});
