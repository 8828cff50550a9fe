#!/usr/bin/env bash
# Instruction counts (valgrind --tool=callgrind) of the sequential baseline
# and of treelb at P = 1 on the same workload: the runtime's cost per node,
# independent of the machine's load. Whole processes, so the difference
# includes starting and stopping the runtime's thread.
#
#   bash docs/benchmarks/2026-11-24-fine-grain/callgrind.sh [WORKLOAD ...]
#
# (valgrind does not emulate the SHA extensions: UTS runs its portable SHA-1
# here, so its instructions per node are not those of the timed runs.)
set -euo pipefail
cd "$(dirname "$0")/../../.."
target="${CARGO_TARGET_DIR:-target}"
cargo build --release -q -p treelb-apps --example fine_grain
exe="$(mktemp -d)/fine_grain"
cp "$target/release/examples/fine_grain" "$exe"
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(nqueens:13 T1 clique:brock200_1 knapsack:strongly-correlated:70:1000:4)
printf '| workload | engine | instructions | nodes | instructions/node | over seq |\n|---|---|---|---|---|---|\n'
for w in "${workloads[@]}"; do
    engines=(seq treelb-1)
    case "$w" in nqueens:*) engines=(kernel seq treelb-1 seq-node treelb-node-1) ;; esac
    base=""
    for e in "${engines[@]}"; do
        log="$(mktemp)"
        out="$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$log" "$exe" "$e" "$w")"
        ir="$(grep -o 'refs: *[0-9,]*' "$log" | tr -d ', ' | cut -d: -f2)"
        nodes="$(echo "$out" | cut -d' ' -f4)"
        case "$e" in seq|seq-node) base="$ir" ;; esac
        over="–"
        [ -n "$base" ] && [ "$e" != seq ] && [ "$e" != seq-node ] && [ "$e" != kernel ] &&
            over="$(awk -v a="$ir" -v b="$base" 'BEGIN { printf "%+.2f %%", (a / b - 1) * 100 }')"
        awk -v w="$w" -v e="$e" -v ir="$ir" -v n="$nodes" -v o="$over" \
            'BEGIN { printf "| %s | %s | %.0f | %.0f | %.2f | %s |\n", w, e, ir, n, ir / n, o }'
        rm -f "$log"
    done
done
