#!/usr/bin/env bash
# The headless demo's wall time (issue 40: the demo at 5 repeats within 2x of the
# one-measurement demo). Prints the median of N runs of `youra demo --headless --fast` for
# BIN, and with BASELINE (another build of youra, e.g. one from before the repeats) the
# same for it, interleaved so both see the same machine load, and the ratio.
#
#   scripts/bench-demo.sh [BIN] [BASELINE] [N]
#
# BIN defaults to target/release/youra, else target/debug/youra; N to 3. A timing, not a
# test: nothing here fails on a number.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-}"
if [[ -z "$bin" ]]; then
  if [[ -x target/release/youra ]]; then bin=target/release/youra; else bin=target/debug/youra; fi
fi
base="${2:-}"
n="${3:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Seconds one headless demo takes with `$1`; the run folder goes under $work.
one() {
  local b="$1" dir="$work/run-$RANDOM-$RANDOM" t0 t1
  t0=$(date +%s.%N)
  "$b" demo --headless --fast --dir "$dir" >"$dir.log" 2>&1 || {
    echo "error: $b demo failed; its output: $dir.log" >&2
    tail -5 "$dir.log" >&2
    exit 1
  }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

mine=() theirs=()
for ((i = 0; i < n; i++)); do
  mine+=("$(one "$bin")")
  if [[ -n "$base" ]]; then theirs+=("$(one "$base")"); fi
done
m=$(printf '%s\n' "${mine[@]}" | median)
printf 'demo (%s): median %.2f s of %d runs (%s)\n' "$bin" "$m" "$n" "${mine[*]}"
if [[ -n "$base" ]]; then
  b=$(printf '%s\n' "${theirs[@]}" | median)
  printf 'baseline (%s): median %.2f s of %d runs (%s)\n' "$base" "$b" "$n" "${theirs[*]}"
  awk -v m="$m" -v b="$b" 'BEGIN { printf "ratio: %.2f (target: within 2x)\n", m / b }'
fi
