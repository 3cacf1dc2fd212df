#!/usr/bin/env bash
# Coverage-guided fuzzing of one target with libFuzzer, on stable Rust.
#
#   fuzz/run.sh TARGET [SECONDS] [more libFuzzer flags...]
#
# TARGET: libsvm, csv, kernel_spec, grid_spec, model, libsvm_model, precomputed_rows or scale_params. Builds the instrumented driver (first time:
# several minutes; needs a C++ compiler for libFuzzer), then fuzzes for SECONDS (default 300), starting
# from the committed seeds in corpus/TARGET and keeping what it learns in work/TARGET (not committed).
# A panicking input is saved as crashes/TARGET/crash-*: fix the cause, then copy the file into
# corpus/TARGET so the replay test (kern-cli's fuzz_corpus) keeps it fixed.
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?usage: run.sh TARGET [SECONDS] [libFuzzer flags]}
secs=${2:-300}
shift $(( $# < 2 ? $# : 2 ))
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
# The LIBSVM and CSV targets write each input to a scratch file: in memory (/dev/shm) that costs
# microseconds, on a disk it can cost milliseconds and make the run about 75 times slower.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
# An explicit --target keeps RUSTFLAGS off build scripts and proc macros (they are not linked with
# libFuzzer, so instrumenting them fails to link).
host=$(rustc -vV | sed -n 's/^host: //p')
# LLVM's SanitizerCoverage with the counters, PC table and comparison hooks libFuzzer uses; debug
# assertions and overflow checks on, so arithmetic faults are found as panics.
RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks" \
    cargo build --release --target "$host" --features coverage --bin kern-fuzz-cov
mkdir -p "work/$target" "crashes/$target"
seed_dir=""
[ "$target" = model ] && seed_dir="work/$target"
# The data-file targets' scratch directory: made here, removed when the run ends (also on Ctrl-C).
scratch=$(mktemp -d "${TMPDIR:-/tmp}/kern-fuzz-cov-$target.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
KERN_FUZZ_TARGET=$target KERN_FUZZ_SEED_DIR=$seed_dir KERN_FUZZ_SCRATCH=$scratch \
    "$CARGO_TARGET_DIR/$host/release/kern-fuzz-cov" \
    "work/$target" "corpus/$target" \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="crashes/$target/" "$@"
