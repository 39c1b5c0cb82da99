#!/usr/bin/env bash
# Browser test of the arena's web page (demos/web): builds it (scripts/web-build.sh), runs the
# native arena for FRAMES frames on one thread for the expected checksum and step time, serves
# the page on loopback, loads it in headless Chromium (Debian's chromium, installed with apt-get if
# missing, driven by playwright-core from npm, installed into target/web-test), waits for frame
# FRAMES, checks that the page shows the native checksum, reports the page's frame rate and the
# wasm step time against the native one, and saves a screenshot to target/web-test/web.png
# (SHOT=docs/web.png to refresh the tracked one on purpose).
#
# Not part of `cargo test`: it needs a browser. Exits 1 if a checksum differs or a target is
# missed (.wasm at most 1.5 MB, wasm step at most 2x native, at least 20 frames a second).
#   scripts/web-test.sh                      # bundled scene (100,500 entities), 300 frames
#   FRAMES=600 ENTITIES=20000 ROUNDS=5 scripts/web-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

FRAMES=${FRAMES:-300}
ENTITIES=${ENTITIES:-0}
SEED=${SEED:-24301}
ROUNDS=${ROUNDS:-3}
SHOT_PATH=${SHOT:-target/web-test/web.png}
PORT=${PORT:-7893}
WORK=$(mktemp -d)
trap 'kill ${SERVER:-} 2>/dev/null || true; rm -rf "$WORK"' EXIT

if ! command -v chromium >/dev/null; then
    echo "web-test: installing chromium (Debian package)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core
fi
if [ ! -d target/web-test/node_modules/playwright-core ]; then
    echo "web-test: installing playwright-core (npm)"
    mkdir -p target/web-test
    npm install --silent --no-audit --no-fund --prefix target/web-test playwright-core@1.64
fi

scripts/web-build.sh
wasm_bytes=$(stat -c %s demos/web/www/pkg/mosaic_web_bg.wasm)

cargo build --release -p arena
entities_flag=()
[ "$ENTITIES" != 0 ] && entities_flag=(--entities "$ENTITIES")

python3 -m http.server --bind 127.0.0.1 "$PORT" --directory demos/web/www >"$WORK/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/" >/dev/null && break; sleep 0.1; done
# Run from beside its node_modules: ES module imports resolve from the script's folder.
cp demos/web/test/web-test.mjs target/web-test/

# Interleaved rounds: the native run of FRAMES frames on one thread (the expected checksum and
# the median frame time), then the page up to the same frame (checksum, median step of the same
# frames, frame rate over the next 5 s); the screenshot in the last round.
: >"$WORK/rounds.txt"
for round in $(seq "$ROUNDS"); do
    target/release/arena --frames "$FRAMES" --seed "$SEED" --executor single "${entities_flag[@]}" >"$WORK/native.txt"
    expected=$(awk '$1 == "checksum" { print $2 }' "$WORK/native.txt")
    native_ms=$(awk '$1 == "frame" && $2 == "time" && $3 == "median" { print $4 }' "$WORK/native.txt")
    shot=
    [ "$round" = "$ROUNDS" ] && shot="$SHOT_PATH"
    URL="http://127.0.0.1:$PORT/?frames=$FRAMES&entities=$ENTITIES&seed=$SEED" FRAMES="$FRAMES" \
        EXPECTED="$expected" SHOT="$shot" node target/web-test/web-test.mjs | tee "$WORK/page.txt"
    step_ms=$(sed -n 's/.*"stepMsToTarget":\([0-9.]*\).*/\1/p' "$WORK/page.txt")
    fps=$(sed -n 's/.*"fps":\([0-9]*\).*/\1/p' "$WORK/page.txt")
    echo "$native_ms $step_ms $fps" >>"$WORK/rounds.txt"
    echo "web-test: round $round: native $native_ms ms, wasm $step_ms ms, page $fps frames a second"
done
python3 - "$wasm_bytes" "$WORK/rounds.txt" "$SHOT_PATH" <<'PY'
import statistics, sys
size = int(sys.argv[1])
shot = sys.argv[3]
rounds = [tuple(float(x) for x in line.split()) for line in open(sys.argv[2])]
native = statistics.median(r[0] for r in rounds)
step = statistics.median(r[1] for r in rounds)
ratio = statistics.median(r[1] / r[0] for r in rounds)
fps = statistics.median(r[2] for r in rounds)
print(f"web-test: .wasm {size / 1e6:.2f} MB (target <= 1.5 MB); medians of {len(rounds)} rounds: wasm step "
      f"{step:.2f} ms, native one thread {native:.2f} ms, ratio {ratio:.2f}x (target <= 2x); page {fps:.0f} "
      f"frames a second (target >= 20); checksums equal; screenshot {shot}")
missed = [name for name, ok in [(".wasm size", size <= 1.5e6), ("step ratio", ratio <= 2.0), ("frame rate", fps >= 20)] if not ok]
if missed:
    print(f"web-test: FAIL: {', '.join(missed)} past the target", file=sys.stderr)
    sys.exit(1)
PY
