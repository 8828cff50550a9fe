#!/usr/bin/env bash
# Instructions of whole `treelb clique FILE -p 1` processes (load-independent),
# for one or more builds side by side:
#   docs/benchmarks/2026-11-24-clique2/instructions.sh BIN [BIN ...]
# INSTANCES (default: the easy tier) and DIR (default ../shared/instances/clique
# beside the repository) may be set in the environment. Needs valgrind.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${DIR:-$here/../../../../shared/instances/clique}"
instances="${INSTANCES:-brock200_1 brock200_4 C125.9 p_hat300-1 gen200_p0.9_44 MANN_a27 p_hat700-1 p_hat700-2}"
[ $# -ge 1 ] || { echo "usage: instructions.sh BIN [BIN ...]" >&2; exit 2; }
out="$(mktemp -d)"
printf '| instance |'; for b in "$@"; do printf ' %s |' "$b"; done; printf '\n|---|'
for _ in "$@"; do printf -- '--:|'; done; printf '\n'
for name in $instances; do
    printf '| %s |' "$name"
    for b in "$@"; do
        valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$b" clique "$dir/$name.clq" -p 1 --no-progress \
            >/dev/null 2>&1
        total="$(callgrind_annotate "$out/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ {print $1}')"
        printf ' %s |' "$total"
    done
    printf '\n'
done
rm -rf "$out"
