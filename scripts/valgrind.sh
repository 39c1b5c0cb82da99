#!/usr/bin/env bash
# Runs mosaic-ecs's unit and integration test binaries under valgrind memcheck (stable toolchain),
# and the same tests in release with overflow checks on. Prints one summary line per binary and a
# final line; exits non-zero on any memcheck error or test failure.
#
#   scripts/valgrind.sh            all test binaries but compile_fail (it runs rustc) and
#                                  steady_state_alloc (dhat replaces the allocator valgrind watches)
#
# Needs valgrind (`apt-get install valgrind`). Leaks are reported for definite losses only: rayon's
# global pool threads are still alive when a test binary exits, by design.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

command -v valgrind >/dev/null 2>&1 || { echo "valgrind.sh: error: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
log_dir="target/valgrind-logs"
mkdir -p "$log_dir"

echo "valgrind.sh: building test binaries"
mapfile -t binaries < <(cargo test -p mosaic-ecs --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") and m.get("executable"):
        print(m["target"]["name"] + " " + m["executable"])')

failed=0
passed=0
for entry in "${binaries[@]}"; do
    name="${entry%% *}"
    exe="${entry#* }"
    case "$name" in compile_fail|steady_state_alloc) continue ;; esac
    log="$log_dir/$name.log"
    start=$(date +%s)
    if PROPTEST_CASES="${PROPTEST_CASES:-32}" valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
        --errors-for-leak-kinds=definite --show-leak-kinds=definite --quiet "$exe" --test-threads=2 >"$log" 2>&1; then
        echo "valgrind $name: PASS ($(grep -Eo '[0-9]+ passed' "$log" | awk '{s+=$1} END {print s+0}') tests, $(( $(date +%s) - start ))s)"
        passed=$((passed + 1))
    else
        echo "valgrind $name: FAIL (see $log)"
        failed=$((failed + 1))
    fi
done

echo "valgrind.sh: release with overflow checks"
if CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true cargo test -p mosaic-ecs --release >"$log_dir/release-overflow.log" 2>&1; then
    echo "release+overflow-checks: PASS ($(grep -Eo '[0-9]+ passed' "$log_dir/release-overflow.log" | awk '{s+=$1} END {print s+0}') tests)"
else
    echo "release+overflow-checks: FAIL (see $log_dir/release-overflow.log)"
    failed=$((failed + 1))
fi

if [[ $failed -eq 0 ]]; then
    echo "valgrind.sh: all passed ($passed binaries under memcheck with zero errors, release with overflow checks)"
else
    echo "valgrind.sh: $failed failed"
    exit 1
fi
