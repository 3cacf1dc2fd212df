//! Replays every fuzz input saved under `fuzz/corpus/TARGET/` (crashes the fuzz driver found, once
//! fixed, and hand-written hostile seeds) through the same target code the driver runs: none may panic.

#[path = "../../../../fuzz/src/targets.rs"]
mod targets;

use crate::common::scratch;
use std::path::Path;

#[test]
fn every_saved_fuzz_input_runs_without_panicking() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    let tmp = scratch("corpus");
    let mut count = 0;
    for target in targets::TARGETS {
        let dir = corpus.join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            let input = std::fs::read(&f).unwrap();
            let r = std::panic::catch_unwind(|| targets::run(target, &input, &tmp));
            assert!(r.is_ok(), "fuzz input {} of {target} panics", f.display());
            count += 1;
        }
    }
    assert!(count >= 10, "only {count} corpus inputs found under {}", corpus.display());
}
