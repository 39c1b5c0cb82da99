#!/usr/bin/env bash
# Browser test of the inspector, as a person would use it: runs the arena with `--inspect`, opens
# the page in headless Chromium (Debian's `chromium`, installed with apt-get if missing), checks
# that the page shows the entity count and a component value, that cross-site and tokenless
# writes are refused, steps one frame and checks the page
# shows the next frame, checks the time-travel panel (the entity as of a saved frame under the
# scrubber, the diff of two frames), and saves a screenshot to docs/inspector.png. Then, on the
# bundled scene (100,500 entities), checks the map view with playwright-core (npm): every point
# drawn, at least 10 redraws a second, a click selects an entity, the scrubber moves the map
# (docs/inspector-map.png).
#
# Not part of `cargo test`: it needs a browser. Loopback only.
#   scripts/browser-test.sh              # release build of the arena
#   PROFILE=dev scripts/browser-test.sh  # debug build (faster to build)
set -euo pipefail
cd "$(dirname "$0")/.."

PROFILE=${PROFILE:-release}
PORT=${PORT:-7891}
BASE="http://127.0.0.1:$PORT"
WORK=$(mktemp -d)

if ! command -v chromium >/dev/null; then
    echo "browser-test: installing chromium (Debian package)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core
fi

cargo build --profile "$PROFILE" -p arena
dir=$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")
"target/$dir/arena" --inspect "127.0.0.1:$PORT" --inspect-writes --frames 0 --entities 2000 >"$WORK/arena.log" 2>&1 &
ARENA=$!
trap 'kill $ARENA 2>/dev/null || true; rm -rf "$WORK"' EXIT

json() { # json PATH EXPR: evaluates the Python expression EXPR on the JSON at BASE/PATH as `j`
    curl -sf "$BASE$1" | python3 -c "import json, sys; j = json.load(sys.stdin); print($2)"
}
# Writes carry the token the arena printed in its URL, as JSON, as the page sends them.
post() { curl -sf -X POST -H "Content-Type: application/json" -H "X-Mosaic-Token: $TOKEN" "$BASE$1" >/dev/null; }
browser() { # browser URL ARGS...: headless Chromium on URL, scripts given 8 s of virtual time
    local url=$1
    shift
    timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
        --user-data-dir="$WORK/profile" --virtual-time-budget=8000 --window-size=1500,1000 "$@" "$url" 2>>"$WORK/chromium.log"
}
fail() { echo "browser-test: FAIL: $*" >&2; exit 1; }

for _ in $(seq 100); do curl -sf "$BASE/api/world" >/dev/null && break; sleep 0.2; done
curl -sf "$BASE/api/world" >/dev/null || fail "the arena's inspector did not answer; $(cat "$WORK/arena.log")"
TOKEN=$(grep -o 'token=[0-9a-f]*' "$WORK/arena.log" | head -1 | cut -d= -f2)
[ ${#TOKEN} = 32 ] || fail "the arena printed no write token; $(cat "$WORK/arena.log")"
# A cross-site write (another page's form post) and a write without the token are refused.
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Content-Type: text/plain" -H "Origin: http://evil.example" "$BASE/api/pause")
[ "$code" = 415 ] || fail "a cross-site text/plain write got $code, not 415"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Content-Type: application/json" "$BASE/api/pause")
[ "$code" = 403 ] || fail "a write without the token got $code, not 403"

# Let it run a little (for the frame-time chart), then hold it still so the page and the API agree.
sleep 3
post /api/pause
for _ in $(seq 50); do [ "$(json /api/world "j['paused']")" = True ] && break; sleep 0.1; done
count=$(json /api/world "j['entities']")
frame=$(json /api/world "j['frame']")
id=$(json "/api/entities?with=position,health&page_size=1" "j['entities'][0]['id']")
health=$(json "/api/entities/$id" "j['entity']['components']['health']")
echo "browser-test: $count entities at frame $frame; entity $id has health $health"

browser "$BASE/?token=$TOKEN&select=$id" --dump-dom >"$WORK/page.html"
grep -q "id=\"entity-count\">$count<" "$WORK/page.html" || fail "the page does not show $count entities"
grep -q "id=\"frame\">$frame<" "$WORK/page.html" || fail "the page does not show frame $frame"
grep -q "data-component=\"health\"" "$WORK/page.html" || fail "the page does not show $id's health"
python3 - "$WORK/page.html" "$health" <<'PY' || fail "the page does not show health $health"
import html, re, sys
page, want = open(sys.argv[1]).read(), sys.argv[2]
block = re.search(r'data-component="health".*?</(textarea|pre)>', page, re.S).group(0)
assert want in html.unescape(block), block
PY
echo "browser-test: the page shows the entity count, the frame and $id's health"

post /api/step
for _ in $(seq 50); do [ "$(json /api/world "j['frame']")" != "$frame" ] && break; sleep 0.1; done
next=$(json /api/world "j['frame']")
[ "$next" = $((frame + 1)) ] || fail "one step ran frames $frame -> $next"
browser "$BASE/?token=$TOKEN&select=$id" --dump-dom >"$WORK/page.html"
grep -q "id=\"frame\">$next<" "$WORK/page.html" || fail "the page does not show frame $next after a step"
echo "browser-test: stepped one frame, the page shows frame $next"

# Time travel: the entity as of a saved frame under the scrubber, and the diff of two frames.
old=$((next - 10))
json /api/frames/saved "$old in j['frames'] or sys.exit(1)" >/dev/null || fail "frame $old is not held"
# An entity alive both then and now (the one above may have been spawned since).
tid=
for candidate in $(json "/api/frames/$old/entities?with=position&page_size=100" "' '.join(e['id'] for e in j['entities'])"); do
    curl -sf "$BASE/api/entities/$candidate" >/dev/null && tid=$candidate && break
done
[ -n "$tid" ] || fail "no entity alive at both frames $old and $next"
id=$tid
old_position=$(json "/api/frames/$old/entities/$id" "json.dumps(j['entity']['components']['position'])")
now_position=$(json "/api/entities/$id" "json.dumps(j['entity']['components']['position'])")
[ "$old_position" != "$now_position" ] || fail "$id did not move from frame $old to $next"
changed=$(json "/api/diff?a=$old&b=$next" "[c['changed'] for c in j['components'] if c['name'] == 'position'][0]")
browser "$BASE/?token=$TOKEN&select=$id&frame=$old&diff=$old,$next" --dump-dom >"$WORK/page.html"
grep -q "id=\"scrub-frame\">$old<" "$WORK/page.html" || fail "the scrubber is not on frame $old"
python3 - "$WORK/page.html" "$old_position" "$changed" <<'PY' || fail "the page does not show frame $old's position or the diff"
import html, json, re, sys
page, position, changed = open(sys.argv[1]).read(), json.loads(sys.argv[2]), sys.argv[3]
scrubbed = re.search(r'id="scrub-entity">.*?data-component="position".*?</pre>', page, re.S).group(0)
shown = json.loads(html.unescape(re.sub(r"<[^>]+>", "", scrubbed.split('class="value">')[-1])))
assert shown == position, (shown, position)
table = re.search(r'id="diff-table".*?</table>', page, re.S).group(0)
assert re.search(r"<td>position</td><td[^>]*>\d+</td><td[^>]*>\d+</td><td[^>]*>" + changed + "<", table), table
PY
echo "browser-test: the scrubber shows $id at frame $old, the diff of $old..$next shows $changed positions changed"

mkdir -p docs
browser "$BASE/?token=$TOKEN&select=$id&frame=$old&diff=$old,$next" --screenshot="$PWD/docs/inspector.png" >/dev/null
[ -s docs/inspector.png ] || fail "no screenshot"
echo "browser-test: screenshot in docs/inspector.png"

# The map at the bundled scene (100,500 entities), driven by playwright-core (npm, installed into
# target/web-test as scripts/web-test.sh does): every point drawn, at least 10 full redraws a
# second, a click selects the point's entity, nothing is saved until Record is pressed (the ring
# is over the record budget), the scrubber moves the map.
kill $ARENA 2>/dev/null || true
if [ ! -d target/web-test/node_modules/playwright-core ]; then
    echo "browser-test: installing playwright-core (npm)"
    mkdir -p target/web-test
    npm install --silent --no-audit --no-fund --prefix target/web-test playwright-core@1.64
fi
# The default 120 frames: over the record budget at this size, so the test presses Record.
"target/$dir/arena" --inspect "127.0.0.1:$PORT" --inspect-writes --frames 0 >"$WORK/arena.log" 2>&1 &
ARENA=$!
for _ in $(seq 300); do curl -sf "$BASE/api/world" >/dev/null && break; sleep 0.2; done
TOKEN=$(grep -o 'token=[0-9a-f]*' "$WORK/arena.log" | head -1 | cut -d= -f2)
[ ${#TOKEN} = 32 ] || fail "the arena printed no write token; $(cat "$WORK/arena.log")"
cp crates/mosaic-inspect/tests/browser/map.mjs target/web-test/
URL="$BASE/?token=$TOKEN" SHOT="$PWD/docs/inspector-map.png" node target/web-test/map.mjs || fail "the map test failed"
echo "browser-test: PASS; screenshots in docs/inspector.png and docs/inspector-map.png"
