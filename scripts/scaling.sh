#!/usr/bin/env bash
# Threads x entities frame medians of the arena, and speed-ups over one thread.
#
# Usage: scripts/scaling.sh [ROUNDS]
#   THREADS="1 2 4 8 16"   thread counts (RAYON_NUM_THREADS), default: 1 2 and every power of two up to nproc
#   ENTITIES="100000 1000000 10000000"   scene sizes (--entities; 100000 means the bundled scene as is)
#   FRAMES=300             frames per run
#   ROUNDS (argument, default 3): each round runs every thread count once, in turn, so drift in the
#   machine (other load, clocks) spreads over all counts instead of landing on one; the table
#   reports, per cell, the median over rounds of each run's frame median, and prints the raw runs.
#   ARENA_BIN=path        an arena binary built elsewhere (a machine without a crate registry);
#                         default: build it here, release
# Builds only the arena binary, in release. Every run's checksum must be the same per size.
# Each raw line also gives the run's frame mean and, when /usr/bin/time exists, its peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
frames=${FRAMES:-300}
entities=${ENTITIES:-"100000 1000000 10000000"}
if [[ -z "${THREADS:-}" ]]; then
  THREADS=1; n=2; while (( n <= $(nproc) )); do THREADS+=" $n"; n=$((n * 2)); done
  (( $(nproc) > 1 )) && [[ " $THREADS " != *" $(nproc) "* ]] && THREADS+=" $(nproc)"
fi
if [[ -n "${ARENA_BIN:-}" ]]; then
  bin=$ARENA_BIN
else
  cargo build --release -q -p arena
  bin=target/release/arena
fi
timer=(); [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f "peak_kb %M")
echo "machine: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), $(nproc) CPUs; frames $frames, rounds $rounds"
declare -A runs checksum
for size in $entities; do
  args=(--frames "$frames")
  [[ $size != 100000 ]] && args+=(--entities "$size")
  for ((r = 1; r <= rounds; r++)); do
    for t in $THREADS; do
      out=$(RAYON_NUM_THREADS=$t "${timer[@]}" "$bin" "${args[@]}" 2>&1)
      median=$(awk '/^frame time median/ {print $4; exit}' <<<"$out")
      mean=$(awk '/^frame time mean/ {print $4; exit}' <<<"$out")
      peak=$(awk '/^peak_kb/ {print $2; exit}' <<<"$out")
      sum=$(awk '/^checksum/ {print $2; exit}' <<<"$out")
      echo "raw: entities $size threads $t round $r median_ms $median mean_ms $mean checksum $sum${peak:+ peak_kb $peak}"
      runs[$size,$t]+="$median "
      if [[ -n "${checksum[$size]:-}" && ${checksum[$size]} != "$sum" ]]; then
        echo "checksum differs at $size entities, $t threads: $sum vs ${checksum[$size]}" >&2; exit 1
      fi
      checksum[$size]=$sum
    done
  done
done
med() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf '\n| entities |'; for t in $THREADS; do printf ' %s thr (ms) |' "$t"; done; printf ' speed-up at max threads |\n|---|'
for t in $THREADS; do printf -- '---:|'; done; printf -- '---:|\n'
for size in $entities; do
  printf '| %s |' "$size"; one=""; last=""
  for t in $THREADS; do
    m=$(med <<<"${runs[$size,$t]}"); printf ' %s |' "$m"; [[ -z $one ]] && one=$m; last=$m
  done
  awk -v a="$one" -v b="$last" 'BEGIN {printf " %.2fx |\n", a / b}'
done
