#!/usr/bin/env bash
# Parallel alpha-beta on Connect Four and on synthetic game trees: the
# sequential baseline, the threads runtime at P = 1 and P = 2 under random
# polling with and without young brothers wait, and (if given) Pascal Pons's
# solver on the same positions. Writes results.txt next to this script.
#
#   docs/benchmarks/2026-11-24-connect4/run.sh [PATH/TO/c4solver]
#
# c4solver: `make c4solver` in a checkout of github.com/PascalPons/connect4
# (it reads one position per line and prints `POSITION SCORE`; it runs
# without its opening book). REPEAT=N repeats every run N times (default 1).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."
pons="${1:-}"
repeat="${REPEAT:-1}"
target="${CARGO_TARGET_DIR:-target}"
cargo build --release -q -p treelb-cli
cargo build --release -q -p treelb-apps --example gametree_bench
treelb="$target/release/treelb"
bench="$target/release/examples/gametree_bench"
data=crates/apps/tests/data/connect4
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="$here/results.txt"

{
echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "## Connect Four: mean per position (ms), nodes, aborted nodes; TT 2^23 entries"
printf '%-9s %-30s %10s %12s %10s %8s %8s %9s\n' set run "ms/pos" "nodes/pos" aborted speedup effic. overhead
for set in moves30:1000 moves20:1000 moves12:40; do
    name="${set%%:*}"; count="${set##*:}"
    grep -v '^#' "$data/$name.txt" | head -n "$count" > "$tmp/$name.txt"
    seq_ms=""; seq_nodes=""
    for run in "sequential:--sequential" "P = 1, ybw:-p 1" "P = 2, ybw:-p 2" "P = 2, no waiting:-p 2 --no-ybw"; do
        label="${run%%:*}"; flags="${run#*:}"
        for _ in $(seq "$repeat"); do
            # shellcheck disable=SC2086
            report="$("$treelb" connect4 --file "$tmp/$name.txt" --tt-log2 23 $flags)"
            ms="$(sed -n 's/^mean time: \([0-9.]*\) ms/\1/p' <<<"$report")"
            nodes="$(sed -n 's/^mean nodes: \([0-9.]*\)/\1/p' <<<"$report")"
            aborted="$(sed -n 's/^aborted nodes: \([0-9]*\) .*/\1/p' <<<"$report")"
            grep -q 'mismatches: 0$' <<<"$report" || { echo "mismatch in $name ($label)" >&2; exit 1; }
            if [ -z "$seq_ms" ]; then seq_ms="$ms"; seq_nodes="$nodes"; fi
            p=1; case "$label" in "P = 2"*) p=2;; esac
            awk -v s="$name" -v l="$label" -v ms="$ms" -v n="$nodes" -v a="$aborted" -v sm="$seq_ms" -v sn="$seq_nodes" -v p="$p" \
                'BEGIN { printf "%-9s %-30s %10.3f %12.1f %10d %8.2f %8.2f %9.2f\n", s, l, ms, n, a, sm/ms, sm/ms/p, n/sn }'
        done
    done
    if [ -n "$pons" ]; then
        cut -d' ' -f1 "$tmp/$name.txt" > "$tmp/$name.pos"
        for _ in $(seq "$repeat"); do
            start=$(date +%s.%N)
            "$pons" < "$tmp/$name.pos" 2>/dev/null > "$tmp/$name.pons"
            end=$(date +%s.%N)
            awk -v s="$name" -v t0="$start" -v t1="$end" -v c="$count" -v sm="$seq_ms" \
                'BEGIN { ms = (t1 - t0) * 1000 / c; printf "%-9s %-30s %10.3f %12s %10s %8.2f\n", s, "Pons c4solver (sequential)", ms, "-", "-", sm/ms }'
        done
        # Pons's scores are the committed ones.
        diff <(cut -d' ' -f2 "$tmp/$name.txt") <(cut -d' ' -f2 "$tmp/$name.pons") > /dev/null || { echo "Pons disagrees on $name" >&2; exit 1; }
    fi
done
echo
echo "## Synthetic trees (gametree_bench BRANCHING DEPTH ORDERING SEEDS)"
for tree in "8 11 0.9 3" "8 11 0.5 3" "4 18 0.9 3"; do
    for _ in $(seq "$repeat"); do
        # shellcheck disable=SC2086
        "$bench" $tree
        echo
    done
done
} | tee "$out"
