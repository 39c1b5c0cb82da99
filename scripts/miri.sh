#!/usr/bin/env bash
# Runs mosaic-ecs's unit and integration tests under Miri, three ways:
#   default            Stacked Borrows
#   tree-borrows       MIRIFLAGS=-Zmiri-tree-borrows
#   randomize-layout   RUSTFLAGS=-Zrandomize-layout, own target dir (target/miri-randomize)
# Doctests are skipped (`--lib --tests`). Tests too slow for Miri run a smaller variant under
# `cfg!(miri)`; none is skipped for speed.
#
# The integration tests are one crate, `tests/it/` (a module per area), plus the few test crates
# that must stay apart (their own global allocator, trybuild). Modules of `it` that run work on
# rayon's thread pool (found by grepping each module file for the `threaded_pattern` below; add
# names with MIRI_THREADED_TESTS="a b") run separately, by test-name filter, in every mode with `-Zmiri-tree-borrows -Zmiri-ignore-leaks`: rayon's crossbeam-epoch is not
# Stacked-Borrows-compatible (crossbeam-rs/crossbeam#545; crossbeam's own CI uses Tree Borrows),
# and rayon's pool threads outlive `main`, which Miri allows only with -Zmiri-ignore-leaks.
# Everything else runs with Miri's leak checker on.
#
# Proptest's failure persistence reads and writes files, which Miri's isolation forbids; it is
# turned off through PROPTEST_DISABLE_FAILURE_PERSISTENCE, forwarded into the interpreter.
# `--no-fail-fast` runs every test binary even after one fails.
#
# Installs the nightly toolchain with Miri when it is missing. Prints one summary line per mode and
# a final line; exits non-zero if Miri cannot be set up or any mode fails. Full logs go to
# target/miri-logs/<mode>.log.
#
# Usage: scripts/miri.sh [TARGET...]
#   TARGET: `lib` (unit tests), a module of crates/mosaic/tests/it (`spawn`, `query` ...), or
#   another test crate of crates/mosaic/tests (`steady_state_alloc` ...); default: all of them.
#   MIRI_MODES="tree-borrows default" runs only those modes, in that order (default: all three);
#   PROPTEST_CASES=N runs N cases of every selected property test instead of its Miri default
#   (e.g. `PROPTEST_CASES=150 MIRI_MODES=default scripts/miri.sh property`);
#   MIRI_TOOLCHAIN=nightly-YYYY-MM-DD pins a nightly; MIRIFLAGS and RUSTFLAGS from the environment
#   are added to every mode's own.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

toolchain="${MIRI_TOOLCHAIN:-nightly}"
package="mosaic-ecs"
tests_dir="crates/mosaic/tests"
log_dir="target/miri-logs"
# Test files matching this run on rayon's pool: parallel iteration, the parallel executor, and any
# schedule (the default executor is the parallel one, and under Miri's slowness every segment
# passes the threshold that sends it to the pool).
threaded_pattern='rayon|\.par_[a-z_]+\(|ExecutorKind::Parallel|Schedule::new\(\)'

die() {
    echo "miri.sh: error: $*" >&2
    exit 1
}

# --- Install Miri if needed -----------------------------------------------------------------------
if ! cargo "+$toolchain" miri --version >/dev/null 2>&1; then
    command -v rustup >/dev/null 2>&1 ||
        die "cargo +$toolchain miri is unavailable and rustup is not installed; install rustup from https://rustup.rs"
    echo "miri.sh: installing toolchain $toolchain with miri and rust-src..."
    rustup toolchain install "$toolchain" --profile minimal --component miri --component rust-src ||
        die "could not install toolchain $toolchain with miri (offline? or today's nightly lacks miri: set MIRI_TOOLCHAIN=nightly-YYYY-MM-DD)"
    # An already-installed toolchain may not have taken the components above.
    rustup component add --toolchain "$toolchain" miri rust-src ||
        die "could not add the miri and rust-src components to toolchain $toolchain"
fi
cargo "+$toolchain" miri --version >/dev/null 2>&1 ||
    die "cargo +$toolchain miri still does not run after installing it"
echo "miri.sh: $(cargo "+$toolchain" miri --version)"
if ! cargo "+$toolchain" miri setup >/dev/null 2>&1; then
    cargo "+$toolchain" miri setup >&2 || true
    die "cargo +$toolchain miri setup failed (it builds Miri's sysroot and needs the rust-src component)"
fi

# --- Test targets ---------------------------------------------------------------------------------
[[ -d $tests_dir/it ]] || die "no $tests_dir/it directory; run from the mosaic workspace"
# With arguments, only the named targets run: `lib` for the unit tests, else a module of `it` or
# another test crate.
selected=" $* "
wanted() { [[ $selected == "  " || $selected == *" $1 "* ]]; }
main_args=()          # cargo arguments of the unfiltered run: --lib and the other test crates
it_plain=()           # modules of `it` that run in the main run's mode
it_threaded=()        # modules of `it` that run with Tree Borrows and leaks ignored
threaded_tests=()     # the other test crates that run on rayon's pool
if wanted lib; then main_args+=(--lib); fi
for file in "$tests_dir"/*.rs; do
    [[ -e $file ]] || continue
    name=$(basename "$file" .rs)
    wanted "$name" || continue
    if grep -qE "$threaded_pattern" "$file" || [[ " ${MIRI_THREADED_TESTS:-} " == *" $name "* ]]; then
        threaded_tests+=(--test "$name")
    else
        main_args+=(--test "$name")
    fi
done
for file in "$tests_dir"/it/*.rs; do
    name=$(basename "$file" .rs)
    [[ $name == main || $name == common ]] && continue
    wanted "$name" || continue
    if grep -qE "$threaded_pattern" "$file" || [[ " ${MIRI_THREADED_TESTS:-} " == *" $name "* ]]; then
        it_threaded+=("$name")
    else
        it_plain+=("$name")
    fi
done
((${#main_args[@]} + ${#threaded_tests[@]} + ${#it_plain[@]} + ${#it_threaded[@]})) ||
    die "no test target matches: $*"
threaded_names="$(printf '%s ' "${threaded_tests[@]/--test/}" "${it_threaded[@]}" | tr -s ' ')"
# Test-name filters for `it`: a module's tests are named `module::test`.
it_plain_filter=()
if [[ $selected == "  " ]]; then
    for name in "${it_threaded[@]}"; do it_plain_filter+=(--skip "$name::"); done
else
    for name in "${it_plain[@]}"; do it_plain_filter+=("$name::"); done
fi
it_threaded_filter=()
for name in "${it_threaded[@]}"; do it_threaded_filter+=("$name::"); done

mkdir -p "$log_dir"

# --- Run the modes --------------------------------------------------------------------------------
summaries=()
failed=0
start_all=$SECONDS

# run_mode NAME MIRIFLAGS [VAR=VALUE...]: runs every test binary with those flags (threaded ones
# with Tree Borrows and leaks ignored) and records a summary line.
run_mode() {
    local name=$1 miriflags=$2
    shift 2
    local log="$log_dir/$name.log"
    local start=$SECONDS status=PASS
    : >"$log"
    echo "miri.sh: mode '$name': MIRIFLAGS='$miriflags' $*  (log: $log)"
    if ((${#main_args[@]})) && ! env "$@" MIRIFLAGS="$miriflags" \
        cargo "+$toolchain" miri test --no-fail-fast -p "$package" "${main_args[@]}" 2>&1 | tee -a "$log"; then
        status=FAIL
    fi
    if ((${#it_plain[@]})) && ! env "$@" MIRIFLAGS="$miriflags" \
        cargo "+$toolchain" miri test --no-fail-fast -p "$package" --test it -- "${it_plain_filter[@]}" 2>&1 |
        tee -a "$log"; then
        status=FAIL
    fi
    if ((${#threaded_tests[@]} + ${#it_threaded[@]})); then
        echo "miri.sh: mode '$name': threaded tests ($threaded_names) with Tree Borrows, leaks ignored"
        local flags="$miriflags -Zmiri-tree-borrows -Zmiri-ignore-leaks"
        if ((${#threaded_tests[@]})) && ! env "$@" MIRIFLAGS="$flags" \
            cargo "+$toolchain" miri test --no-fail-fast -p "$package" "${threaded_tests[@]}" 2>&1 |
            tee -a "$log"; then
            status=FAIL
        fi
        if ((${#it_threaded[@]})) && ! env "$@" MIRIFLAGS="$flags" \
            cargo "+$toolchain" miri test --no-fail-fast -p "$package" --test it -- "${it_threaded_filter[@]}" 2>&1 |
            tee -a "$log"; then
            status=FAIL
        fi
    fi
    # Sum the harness' "test result:" lines over every test binary.
    local passed failures ignored
    passed=$(sed -n 's/^test result: .* \([0-9][0-9]*\) passed;.*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
    failures=$(sed -n 's/^test result: .* \([0-9][0-9]*\) failed;.*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
    ignored=$(sed -n 's/^test result: .* \([0-9][0-9]*\) ignored;.*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
    if [[ $passed -eq 0 ]]; then
        status=FAIL # nothing ran: a failure, not a vacuous pass
    fi
    [[ $status == PASS ]] || failed=1
    local detail="$passed tests"
    if ((ignored > 0)); then detail+=", $ignored ignored"; fi
    if ((failures > 0)); then detail+=", $failures failed"; fi
    summaries+=("miri $name: $status ($detail, $((SECONDS - start))s)")
}

export PROPTEST_DISABLE_FAILURE_PERSISTENCE=1
extra_miriflags="-Zmiri-env-forward=PROPTEST_DISABLE_FAILURE_PERSISTENCE"
# PROPTEST_CASES, when set, overrides every property test's case count inside the interpreter too.
if [[ -n ${PROPTEST_CASES:-} ]]; then
    extra_miriflags+=" -Zmiri-env-forward=PROPTEST_CASES"
    echo "miri.sh: PROPTEST_CASES=$PROPTEST_CASES forwarded into the interpreter"
fi
extra_miriflags+=" ${MIRIFLAGS:-}"
for mode in ${MIRI_MODES:-default tree-borrows randomize-layout}; do
    case $mode in
        default) run_mode default "$extra_miriflags" ;;
        tree-borrows) run_mode tree-borrows "-Zmiri-tree-borrows $extra_miriflags" ;;
        randomize-layout)
            run_mode randomize-layout "$extra_miriflags" \
                "RUSTFLAGS=-Zrandomize-layout ${RUSTFLAGS:-}" "CARGO_TARGET_DIR=target/miri-randomize"
            ;;
        *) die "unknown mode '$mode' in MIRI_MODES (default, tree-borrows, randomize-layout)" ;;
    esac
done

echo
for line in "${summaries[@]}"; do
    echo "$line"
done
if ((${#threaded_tests[@]} + ${#it_threaded[@]})); then
    echo "(threaded tests:$threaded_names ran with -Zmiri-tree-borrows -Zmiri-ignore-leaks in every mode)"
fi
if ((failed)); then
    echo "miri.sh: FAIL after $((SECONDS - start_all))s; logs in $log_dir/"
    exit 1
fi
echo "miri.sh: PASS, all ${#summaries[@]} modes, $((SECONDS - start_all))s"
