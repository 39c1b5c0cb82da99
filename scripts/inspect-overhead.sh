#!/usr/bin/env bash
# Idle-inspector overhead on the arena: runs the release arena plain and with `--inspect` (no
# client connected) in several variants, interleaved round by round, and prints each run's frame
# median and, per variant, the median of the run medians and its ratio to the plain runs.
#
# Variants: plain; inspected unpaced without saved frames (the inspector alone); inspected paced
# to 60 fps without saved frames (what the first measurement compared); inspected unpaced with
# 120 saved frames kept (time travel on, no client: nothing saved); the same with a client
# polling `/api/frames/saved` twice a second (watched: every frame saved). Inspected frame times
# include `publish`.
#   scripts/inspect-overhead.sh [ROUNDS] [FRAMES]    # defaults 5 and 300
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
FRAMES=${2:-300}
cargo build --release -p arena >/dev/null 2>&1
ARENA=target/release/arena
OUT=$(mktemp -d target/inspect-overhead.XXXXXX) # removed at the end; kept if a run fails

# run NAME ARGS...: one run; the inspected arena keeps serving after its last frame, so it is
# stopped once its report is out.
run() {
    local name=$1
    shift
    RUNS=$((RUNS + 1))
    local log="$OUT/run-$RUNS-$name.log" # one log per run: nothing carries over from the last
    "$ARENA" --frames "$FRAMES" "$@" >"$log" 2>&1 &
    local pid=$!
    local poller=
    if [ -n "${POLL:-}" ]; then
        (while sleep 0.5; do curl -s "http://$POLL/api/frames/saved" >/dev/null || true; done) &
        poller=$!
    fi
    for _ in $(seq 600); do
        grep -q "^(last" "$log" 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    if [ -n "$poller" ]; then kill "$poller" 2>/dev/null || true; wait "$poller" 2>/dev/null || true; fi
    local median
    median=$(awk '/^frame time median/ {print $4}' "$log")
    [ -n "$median" ] || { echo "no report from $name: $(cat "$log")" >&2; exit 1; }
    echo "$median" >>"$OUT/$name"
    printf '%-16s %s ms\n' "$name" "$median"
}

RUNS=0
INSPECT=(--inspect 127.0.0.1:0)
for round in $(seq "$ROUNDS"); do
    echo "round $round"
    run plain
    run inspect-unpaced "${INSPECT[@]}" --inspect-fps 0 --inspect-frames 0
    run plain
    run inspect-paced "${INSPECT[@]}" --inspect-frames 0
    run plain
    run inspect-ring "${INSPECT[@]}" --inspect-fps 0 --inspect-frames 120
    run plain
    POLL=127.0.0.1:7993 run inspect-watched --inspect 127.0.0.1:7993 --inspect-fps 0 --inspect-frames 120
done

median() { sort -g "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
base=$(median "$OUT/plain")
echo
echo "variant          median of run medians (ms)   ratio to plain"
for name in plain inspect-unpaced inspect-paced inspect-ring inspect-watched; do
    m=$(median "$OUT/$name")
    printf '%-16s %10s                    %s\n' "$name" "$m" "$(awk -v m="$m" -v b="$base" 'BEGIN {printf "%.3f", m / b}')"
done
rm -rf "$OUT"
