#!/usr/bin/env bash
# Partite mode and the matching reading of max-resolution: the clique
# search before (BASE) and after (NEW), NEW also with --no-partite and
# --partite, at P = 1, REPS runs of each interleaved (user CPU seconds,
# best of the runs; node counts are the same from run to run at P = 1).
# FILES are NAME (maximum clique) or NAME:K (the decision for K vertices,
# the proof that there is none when K = ω + 1). One Markdown row per file.
#
#   BASE=/tmp/treelb-base NEW=target/release/treelb REPS=1 LIMIT=600 \
#   FILES="keller5:28 p_hat500-3:51 brock200_1" \
#     docs/benchmarks/2026-11-28-clique-partite/run.sh
#
# FILES name files of ../shared/instances/clique.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
inst="$here/../../../../shared/instances/clique"
BASE=${BASE:?the treelb binary before}
NEW=${NEW:-$here/../../../target/release/treelb}
LIMIT=${LIMIT:-600}
REPS=${REPS:-1}
FILES=${FILES:?the instances}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run BIN ARGS...: "user_seconds nodes answer" of one treelb clique run.
run() {
  local bin=$1; shift
  /usr/bin/time -f "%U" -o "$tmp/user" timeout --signal=KILL "$LIMIT" "$bin" clique --json --no-progress "$@" >"$tmp/out" 2>/dev/null
  python3 - "$tmp/out" "$tmp/user" <<'PY'
import json, sys
user = open(sys.argv[2]).read().split()[-1]
try:
    a = json.load(open(sys.argv[1]))["answer"]
    ans = a["omega"] if a.get("omega") is not None else a.get("exists")
    print(user, a["branched"], ans)
except Exception:
    print("TO", "-", "-")
PY
}

# best LIST: the smallest of the numbers (TO when one timed out).
best() { printf '%s\n' "$@" | sort -g | head -1; }

echo "LIMIT=${LIMIT}s, REPS=$REPS; load average $(cut -d' ' -f1 /proc/loadavg); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo
echo "| instance | K | answer | BASE s (nodes) | NEW --no-partite s (nodes) | NEW s (nodes) | NEW --partite s (nodes) | NEW/BASE |"
echo "|---|--:|---|--:|--:|--:|--:|--:|"
for spec in $FILES; do
  name=${spec%%:*}; k=""; [ "$spec" != "$name" ] && k=${spec##*:}
  args=("$inst/$name.clq" --threads 1); [ -n "$k" ] && args+=(--k "$k")
  variants=("$BASE" "$NEW --no-partite" "$NEW" "$NEW --partite")
  declare -A times=() nodes=()
  for _ in $(seq "$REPS"); do
    for i in "${!variants[@]}"; do
      # shellcheck disable=SC2086 # a binary and its flags
      read -r u n ans < <(run ${variants[$i]} "${args[@]}")
      times[$i]="${times[$i]:-} $u"; nodes[$i]=$n
    done
  done
  cells=(); bests=()
  for i in "${!variants[@]}"; do
    # shellcheck disable=SC2086 # a list of numbers
    b=$(best ${times[$i]}); bests+=("$b"); cells+=("$b (${nodes[$i]})")
  done
  ratio=$(awk -v a="${bests[2]}" -v b="${bests[0]}" 'BEGIN { if (b > 0 && a + 0 == a) printf "%.2f", a / b; else print "—" }')
  echo "| $name | ${k:-—} | $ans | ${cells[0]} | ${cells[1]} | ${cells[2]} | ${cells[3]} | $ratio |"
  unset times nodes
done
