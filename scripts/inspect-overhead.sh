#!/usr/bin/env bash
# Idle-inspector overhead on the arena: runs the release arena plain and with `--inspect` (no
# client connected) in several variants, interleaved round by round, and prints each run's frame
# median and, per variant, the median of the run medians and its ratio to the plain runs.
#
# Variants: plain; inspected unpaced without saved frames (the inspector alone); inspected paced
# to 60 fps without saved frames (what the first measurement compared); inspected unpaced with
# 120 saved frames kept (time travel on, no client: nothing saved); the same with a client
# polling `/api/frames/saved` twice a second (watched: every frame saved if the ring fits the
# inspector's record budget, 128 MiB, else none); "recording": the same client after asking to
# record (`POST /api/frames/record`, the page's Record button: every frame saved); and "page": what the
# open page asks every second (world, a page of entities, one entity, hierarchy, schedule, events,
# frame times, saved frames, the map coloured by team), with no frames kept. Inspected frame
# times include `publish`; peak memory (`/usr/bin/time`, when present) per variant too.
#   scripts/inspect-overhead.sh [ROUNDS] [FRAMES]    # defaults 5 and 300
#   ENTITIES=200000 scripts/inspect-overhead.sh 3 150  # a scaled scene (--entities)
#   VARIANTS="inspect-page" scripts/inspect-overhead.sh  # plain and only the variants named
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
FRAMES=${2:-300}
cargo build --release -p arena >/dev/null 2>&1
ARENA=target/release/arena
OUT=$(mktemp -d target/inspect-overhead.XXXXXX) # removed at the end; kept if a run fails
SCENE=()
[ -n "${ENTITIES:-}" ] && SCENE=(--entities "$ENTITIES")
TIMER=()
[ -x /usr/bin/time ] && TIMER=(/usr/bin/time -f "peak_kb %M")

# run NAME ARGS...: one run; the inspected arena keeps serving after its last frame, so it is
# stopped once its report is out.
run() {
    local name=$1
    shift
    RUNS=$((RUNS + 1))
    local log="$OUT/run-$RUNS-$name.log" # one log per run: nothing carries over from the last
    "${TIMER[@]}" "$ARENA" --frames "$FRAMES" "${SCENE[@]}" "$@" >"$log" 2>&1 &
    local pid=$!
    local poller=
    if [ -n "${POLL:-}" ]; then
        (
            if [ -n "${RECORD:-}" ]; then
                # Ask to record, with the token the arena printed, as the page's Record button does.
                local token=
                for _ in $(seq 100); do
                    token=$(grep -o 'token=[0-9a-f]*' "$log" 2>/dev/null | head -1 | cut -d= -f2 || true)
                    [ -n "$token" ] && break
                    sleep 0.05
                done
                curl -s -X POST -H "Content-Type: application/json" -H "X-Mosaic-Token: $token" \
                    "http://$POLL/api/frames/record?on=true" >/dev/null || true
            fi
            while sleep 0.5; do curl -s "http://$POLL/api/frames/saved" >/dev/null || true; done
        ) &
        poller=$!
    fi
    if [ -n "${PAGE:-}" ]; then
        (
            while true; do
                for path in /api/world "/api/entities?page=0&page_size=40" /api/entities/0v1 /api/hierarchy \
                    /api/schedule /api/events /api/frames /api/frames/saved "/api/map?component=position&color=team"; do
                    curl -s "http://$PAGE$path" >/dev/null || true
                done
                sleep 1
            done
        ) &
        poller=$!
    fi
    for _ in $(seq 1200); do
        grep -q "^(last" "$log" 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    # Under the timer, stop its child (the arena) and let the timer report; else the arena.
    if [ ${#TIMER[@]} -gt 0 ]; then
        pkill -P "$pid" 2>/dev/null || true
    else
        kill "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
    if [ -n "$poller" ]; then kill "$poller" 2>/dev/null || true; wait "$poller" 2>/dev/null || true; fi
    local median
    median=$(awk '/^frame time median/ {print $4}' "$log")
    [ -n "$median" ] || { echo "no report from $name: $(cat "$log")" >&2; exit 1; }
    echo "$median" >>"$OUT/$name"
    local peak
    peak=$(awk '/^peak_kb/ {print $2}' "$log")
    [ -n "$peak" ] && echo "$peak" >>"$OUT/$name.peak"
    printf '%-16s %s ms%s\n' "$name" "$median" "${peak:+, peak $peak kB}"
}

RUNS=0
INSPECT=(--inspect 127.0.0.1:0)
VARIANTS=${VARIANTS:-inspect-unpaced inspect-paced inspect-ring inspect-watched inspect-recording inspect-page}
variant() {
    case $1 in
    inspect-unpaced) run inspect-unpaced "${INSPECT[@]}" --inspect-fps 0 --inspect-frames 0 ;;
    inspect-paced) run inspect-paced "${INSPECT[@]}" --inspect-frames 0 ;;
    inspect-ring) run inspect-ring "${INSPECT[@]}" --inspect-fps 0 --inspect-frames 120 ;;
    inspect-watched)
        POLL=127.0.0.1:7993 run inspect-watched --inspect 127.0.0.1:7993 --inspect-fps 0 --inspect-frames 120
        ;;
    inspect-recording)
        RECORD=1 POLL=127.0.0.1:7995 run inspect-recording --inspect 127.0.0.1:7995 --inspect-fps 0 \
            --inspect-frames 120
        ;;
    inspect-page) PAGE=127.0.0.1:7994 run inspect-page --inspect 127.0.0.1:7994 --inspect-fps 0 --inspect-frames 0 ;;
    *) echo "unknown variant $1" >&2; exit 1 ;;
    esac
}
for round in $(seq "$ROUNDS"); do
    echo "round $round"
    for name in $VARIANTS; do
        run plain
        variant "$name"
    done
done

median() { sort -g "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
base=$(median "$OUT/plain")
echo
peak_base=$([ -s "$OUT/plain.peak" ] && median "$OUT/plain.peak" || echo 0)
echo "variant          median of run medians (ms)   ratio to plain   peak memory (median, kB)   ratio"
for name in plain $VARIANTS; do
    m=$(median "$OUT/$name")
    p=$([ -s "$OUT/$name.peak" ] && median "$OUT/$name.peak" || echo 0)
    printf '%-16s %10s                    %s            %10s                %s\n' "$name" "$m" \
        "$(awk -v m="$m" -v b="$base" 'BEGIN {printf "%.3f", m / b}')" "$p" \
        "$(awk -v m="$p" -v b="$peak_base" 'BEGIN {if (b > 0) printf "%.2f", m / b; else print "-"}')"
done
rm -rf "$OUT"
