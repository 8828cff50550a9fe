#!/usr/bin/env bash
# The clique kernel at P = 1 before (BASE) and after (NEW) the root's
# iterated greedy colouring and the first burst's walk toward it, one run at
# a time, user CPU seconds (the machine is shared) and node counts
# (deterministic at P = 1). CliSAT (its April 2022 Linux release, from
# psanse/CliSAT's history: `git show 587ddf0:bin/CliSAT`, never committed)
# on `tr -d '\r'` copies of the same files, where CLISAT is set.
#
#   BASE=/tmp/treelb-base NEW=target/release/treelb CLISAT=/tmp/clisat/CliSAT \
#     docs/benchmarks/2026-11-27-clique-ordering/run.sh
set -u
DIR=${INSTANCES:-/work/shared/instances/clique}
BASE=${BASE:?the treelb binary before the change}
NEW=${NEW:-target/release/treelb}
LIMIT=${LIMIT:-120s}
run() { # label binary file [args]
  local label=$1 bin=$2 f=$3; shift 3
  local out
  out=$( { /usr/bin/time -f "user %U" "$bin" clique "$DIR/$f.clq" --threads 1 --time-limit "$LIMIT" "$@"; } 2>&1 )
  printf '%s\t%s\t%s\t%s\t%s\n' "$f" "$label" \
    "$(grep -m1 -oE 'ω +[^(]*' <<<"$out" | tr -s ' ')" \
    "$(grep -m1 -oE 'branched +[0-9]+' <<<"$out" | tr -s ' ')" \
    "$(grep -m1 -oE 'user [0-9.]+' <<<"$out")"
}
for f in ${FILES:-gen400_p0.9_55 gen200_p0.9_44 brock200_1 brock200_4 C125.9 MANN_a27 keller4 hamming8-4 p_hat500-3 brock400_2 keller5}; do
  run base "$BASE" "$f"
  run new "$NEW" "$f"
  if [ -n "${CLISAT:-}" ]; then
    tr -d '\r' <"$DIR/$f.clq" >"/tmp/clisat-$f.clq"
    for o in 1 2; do
      out=$( { /usr/bin/time -f "user %U" "$CLISAT" "/tmp/clisat-$f.clq" "${LIMIT%s}" "$o"; } 2>&1 )
      printf '%s\tCliSAT-%s\t%s\t%s\t%s\n' "$f" "$o" "$(grep -m1 -oE 'omega:[0-9]+' <<<"$out")" \
        "$(grep -m1 -oE 'steps:[0-9]+' <<<"$out")" "$(grep -m1 -oE 'user [0-9.]+' <<<"$out")"
    done
  fi
done
