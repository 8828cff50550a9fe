#!/usr/bin/env bash
# The walk toward the root's colouring at the root: BASE and NEW treelb at
# P = 1 (user CPU s, best of REPS, and the node count) and P = 2 (wall s,
# best of REPS), beside CliSAT at both orderings (wall s, best of REPS).
#
#   BASE=... NEW=target/release/treelb [CLISAT=/path/to/CliSAT] REPS=3 \
#     docs/benchmarks/2026-11-28-clique-root-walk/run.sh NAME...
#
# NAME: a file of ../shared/instances/clique without `.clq`. CliSAT reads a
# copy without carriage returns and with `p edge` for `p col`.
set -euo pipefail
cells=()
cd "$(dirname "$0")/../../.."
I=../shared/instances/clique
REPS=${REPS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
best() { sort -g | head -1; }
echo "| instance | ω | BASE P=1 CPU s (nodes) | NEW P=1 CPU s (nodes) | BASE P=2 wall s | NEW P=2 wall s | CliSAT o1 wall s | CliSAT o2 wall s |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|"
for name in "$@"; do
    file=$I/$name.clq
    row="| $name"
    omega=
    for bin in "$BASE" "$NEW"; do
        cpu=$(for _ in $(seq "$REPS"); do
            /usr/bin/time -f %U -o "$tmp/t" "$bin" clique "$file" --threads 1 --json >"$tmp/o.json"
            cat "$tmp/t"
        done | best)
        read -r omega nodes < <(python3 -c "import json,sys; a=json.load(open(sys.argv[1]))['answer']; print(a['omega'], a['branched'])" "$tmp/o.json")
        cells+=("$cpu ($nodes)")
    done
    for bin in "$BASE" "$NEW"; do
        cells+=("$(for _ in $(seq "$REPS"); do
            /usr/bin/time -f %e -o "$tmp/t" "$bin" clique "$file" --threads 2 >/dev/null
            cat "$tmp/t"
        done | best)")
    done
    if [ -n "${CLISAT:-}" ]; then
        tr -d '\r' <"$file" | sed 's/^p col/p edge/' >"$tmp/g.clq"
        for ordering in 1 2; do
            cells+=("$(for _ in $(seq "$REPS"); do
                /usr/bin/time -f %e -o "$tmp/t" "$CLISAT" "$tmp/g.clq" 60 "$ordering" >/dev/null
                cat "$tmp/t"
            done | best)")
        done
    else
        cells+=("—" "—")
    fi
    row="$row | $omega"
    for c in "${cells[@]}"; do row="$row | $c"; done
    echo "$row |"
    cells=()
done
