#!/bin/sh
# The cost of --deterministic: nodes and wall time of each branch-and-bound
# instance with and without the flag, in the same run of this script, as
# ratios. Usage (from the repository root, after `cargo build --release`):
#   sh docs/benchmarks/deterministic-cost.sh [P]
set -eu
T=${TREELB:-./target/release/treelb}
P=${1:-2}
I=${INSTANCES:-../shared/instances}
echo "| instance | nodes | nodes, --deterministic | ratio | wall s | wall s, --deterministic | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|"
run() {
    name=$1
    shift
    plain=$("$T" "$@" -p "$P" --json --no-progress | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["work_units"], d["wall_secs"])')
    det=$("$T" "$@" -p "$P" --json --no-progress --deterministic | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["work_units"], d["wall_secs"])')
    echo "$plain $det" | awk -v n="$name" '{ printf "| %s | %d | %d | %.2f | %.3f | %.3f | %.2f |\n", n, $1, $3, $3 / $1, $2, $4, $4 / $2 }'
}
for g in brock200_2 keller4 hamming8-4 C125.9 brock200_4 p_hat300-1; do
    run "clique $g" clique "$I/clique/$g.clq"
done
run "knapsack strongly-correlated n=60" knapsack -n 60 --class strongly-correlated --range 1000
run "knapsack weakly-correlated n=200" knapsack -n 200 --class weakly-correlated
run "knapsack subset-sum n=20 R=100" knapsack -n 20 --class subset-sum --range 100
run "knapsack subset-sum n=24 R=100" knapsack -n 24 --class subset-sum --range 100
for t in ulysses16 gr17 gr24 bays29 att48; do
    run "tsp $t" tsp "$I/tsp/$t.tsp"
done
