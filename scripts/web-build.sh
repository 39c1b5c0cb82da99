#!/usr/bin/env bash
# Builds the arena's web page (demos/web): installs the wasm32-unknown-unknown target (rustup) and
# the wasm-bindgen-cli whose version matches the wasm-bindgen crate in Cargo.lock (cargo install
# from crates.io into target/tools; nothing downloaded prebuilt), builds demos/web for the web in
# release, and writes the module and its JavaScript glue to demos/web/www/pkg/.
#
#   scripts/web-build.sh                 # then serve demos/web/www/ and open index.html:
#   python3 -m http.server --bind 127.0.0.1 8000 --directory demos/web/www
set -euo pipefail
cd "$(dirname "$0")/.."

rustup target add wasm32-unknown-unknown >/dev/null
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$version" ] || { echo "web-build: no wasm-bindgen in Cargo.lock" >&2; exit 1; }
tools=target/tools
if [ "$("$tools/bin/wasm-bindgen" --version 2>/dev/null | awk '{ print $2 }')" != "$version" ]; then
    echo "web-build: installing wasm-bindgen-cli $version (once; a few minutes)"
    # Its lock file first; if the registry lacks a version it pins, cargo's own resolution. The
    # first attempt's errors are shown only if the second fails too (they are expected otherwise).
    first=$(mktemp)
    if ! cargo install --quiet --locked --root "$tools" wasm-bindgen-cli --version "=$version" 2>"$first"; then
        echo "web-build: its lock file pins a crate the registry lacks; resolving without it"
        if ! cargo install --quiet --root "$tools" wasm-bindgen-cli --version "=$version"; then
            echo "web-build: the --locked attempt said:" >&2
            cat "$first" >&2
            rm -f "$first"
            exit 1
        fi
    fi
    rm -f "$first"
fi

# Whole-program optimisation for the shipped module (the native release profile leaves it off for
# build time): smaller and faster wasm. Its own target folder keeps the native builds' cache.
CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 CARGO_PROFILE_RELEASE_DEBUG=false \
    cargo build --release -p mosaic-web --target wasm32-unknown-unknown --target-dir target/web
"$tools/bin/wasm-bindgen" --target web --no-typescript --out-dir demos/web/www/pkg \
    target/web/wasm32-unknown-unknown/release/mosaic_web.wasm
size=$(stat -c %s demos/web/www/pkg/mosaic_web_bg.wasm)
echo "web-build: demos/web/www/pkg/mosaic_web_bg.wasm, $size bytes"
