#!/usr/bin/env bash
# Parallel alpha-beta on Connect Four and on synthetic game trees: the
# sequential baseline, the threads runtime at P = 1 and P = 2 under random
# polling with and without young brothers wait, with one transposition
# table shared by the PEs and with one per PE, and (if given) Pascal Pons's
# solver on the same positions; then the simulator's model of young
# brothers wait beside the threads runtime on synthetic trees
# (`treelb sim ybwc`). Writes results.txt next to this script.
#
#   docs/benchmarks/2026-11-24-connect4/run.sh [PATH/TO/c4solver]
#
# c4solver: `make c4solver` in a checkout of github.com/PascalPons/connect4
# (it reads one position per line and prints `POSITION SCORE`; it runs
# without its opening book). Every treelb run solves for the score only
# (--score-only), as c4solver does. REPEAT=N (default 3) runs every configuration
# N times, the configurations of one set in turn (round robin), so that a
# change of the machine's load hits all of them alike; the fastest run of
# each counts, with its nodes. Ratios (speedup, efficiency, overhead) are
# within one run of this script.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."
pons="${1:-}"
repeat="${REPEAT:-3}"
target="${CARGO_TARGET_DIR:-target}"
cargo build --release -q -p treelb-cli
treelb="$target/release/treelb"
tmp="$(mktemp -d)"
# shellcheck source=common.sh
. "$here/common.sh"
trap 'rm -rf "$tmp"' EXIT
out="$here/results.txt"

runs=(
    "sequential:--sequential"
    "P = 1, ybw:-p 1"
    "P = 2, ybw, shared table:-p 2"
    "P = 2, ybw, table per PE:-p 2 --tt-per-pe"
    "P = 2, no waiting, shared table:-p 2 --no-ybw"
    "P = 2, no waiting, table per PE:-p 2 --no-ybw --tt-per-pe"
)

{
echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), fastest of $repeat"
echo
echo "## Connect Four: per position, fastest of $repeat runs (ms), its nodes and aborted nodes; TT 2^24 entries, as c4solver (per PE with a table per PE)"
printf '%-9s %-34s %10s %12s %10s %8s %8s %9s\n' set run "ms/pos" "nodes/pos" aborted speedup effic. overhead
for set in moves30:1000 moves20:1000 moves12:40; do
    name="${set%%:*}"
    c4_set "$name" "${set##*:}"
    declare -A best=()
    for _ in $(seq "$repeat"); do
        for run in "${runs[@]}"; do
            label="${run%%:*}"; flags="${run#*:}"
            # shellcheck disable=SC2086
            c4_report "$name" "$label" "$("$treelb" connect4 --file "$tmp/$name.txt" --tt-log2 24 --score-only $flags)"
        done
        if [ -n "$pons" ]; then
            c4_pons "$pons" "$name"
        fi
    done
    for run in "${runs[@]}"; do
        label="${run%%:*}"
        p=1; case "$label" in "P = 2"*) p=2;; esac
        c4_row 34 "$name" "$label" "$p"
    done
    if [ -n "$pons" ]; then
        c4_pons_row 34 "$name"
    fi
    unset best
done
if [ -n "$pons" ] && command -v valgrind > /dev/null; then
    echo
    echo "## Instructions per position, sequential (valgrind --tool=callgrind; independent of the load)"
    echo "## (the instructions of the first N2 positions minus those of the first N1, over N2 - N1: start-up and table allocation cancel)"
    printf '%-9s %6s %6s %16s %16s %8s\n' set N1 N2 "treelb seq" "Pons c4solver" ratio
    instr() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 > /dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
    for set in moves20:100:300 moves12:4:10; do
        IFS=: read -r name n1 n2 <<<"$set"
        for n in "$n1" "$n2"; do
            grep -v '^#' "$data/$name.txt" | head -n "$n" > "$tmp/i$n.txt"
            cut -d' ' -f1 "$tmp/i$n.txt" > "$tmp/i$n.pos"
        done
        ours=$(( $(instr "$treelb" connect4 --file "$tmp/i$n2.txt" --sequential --score-only --tt-log2 24) - $(instr "$treelb" connect4 --file "$tmp/i$n1.txt" --sequential --score-only --tt-log2 24) ))
        theirs=$(( $(instr "$pons" < "$tmp/i$n2.pos") - $(instr "$pons" < "$tmp/i$n1.pos") ))
        awk -v s="$name" -v a="$n1" -v b="$n2" -v o="$ours" -v t="$theirs" \
            'BEGIN { printf "%-9s %6d %6d %16.0f %16.0f %8.2f\n", s, a, b, o / (b - a), t / (b - a), o / t }'
    done
fi
echo
echo "## Synthetic trees: the simulator's model of young brothers wait beside the threads runtime (treelb sim ybwc)"
for tree in "--branching 8 --depth 11 --ordering 0.9" "--branching 8 --depth 11 --ordering 0.5" "--branching 4 --depth 18 --ordering 0.9"; do
    # shellcheck disable=SC2086
    "$treelb" sim ybwc $tree --seeds 3 -p 2,4,8,16,64,256 --threads 2,4,8 --repeat "$repeat"
    echo
done
} | tee "$out"
