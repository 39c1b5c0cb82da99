#!/usr/bin/env bash
# Fuzzes mosaic-ecs with cargo-fuzz (libFuzzer): the `operations` target decodes bytes into world
# operations and checks them against a model; the `snapshot` target feeds bytes to the snapshot
# decoders, which must only ever return `Err`; the `dynamic` target drives run-time components
# against the model of tests/it/dynamic_model.rs. Installs nightly and cargo-fuzz if missing.
#
#   scripts/fuzz.sh [SECONDS]     default 600 (10 minutes) per target
#
# Crashes are kept under crates/mosaic/fuzz/artifacts/; turn each into a regression test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../crates/mosaic/fuzz"
seconds="${1:-600}"
toolchain="${FUZZ_TOOLCHAIN:-nightly}"
rustup toolchain list | grep -q "^$toolchain" || rustup toolchain install "$toolchain" --profile minimal
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
for target in operations snapshot dynamic; do
    start=$(date +%s)
    if cargo "+$toolchain" fuzz run "$target" -- -max_total_time="$seconds" -rss_limit_mb=4096 >"/tmp/fuzz-$target.log" 2>&1; then
        runs=$(grep -Eo 'Done [0-9]+ runs' "/tmp/fuzz-$target.log" | grep -Eo '[0-9]+' || echo "?")
        echo "fuzz $target: PASS ($runs runs in $(( $(date +%s) - start ))s, no crash)"
    else
        echo "fuzz $target: FAIL (see /tmp/fuzz-$target.log and artifacts/$target/)"
        exit 1
    fi
done
