#!/usr/bin/env bash
# Max-resolution by density: the clique search before (BASE) and after (NEW)
# max-resolution became the default at density <= 0.6, at P = 1, REPS runs
# of each interleaved (user CPU seconds, best of the runs; node counts are
# the same from run to run at P = 1), NEW also at P = 2 (wall seconds), and
# CliSAT at its two orderings when CLISAT is given. Then, for the files of
# KFILES (NAME:K), the proof that no clique of K vertices exists with each
# binary and with NEW --no-resolve / --resolve. One Markdown row per run.
#
#   BASE=/tmp/treelb-base NEW=target/release/treelb CLISAT=/tmp/clisat/CliSAT \
#   REPS=2 LIMIT=200 FILES="p_hat700-2 brock200_2" KFILES="p_hat500-3:51" \
#     docs/benchmarks/2026-11-28-clique-resolve/run.sh
#
# FILES and KFILES name files of ../shared/instances/clique. CliSAT (its
# April 2022 Linux release: `git show 587ddf0:bin/CliSAT` in psanse/CliSAT)
# reads a copy of each file without carriage returns and with `p edge` for
# `p col`, never committed.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
inst="$here/../../../../shared/instances/clique"
BASE=${BASE:?the treelb binary before}
NEW=${NEW:-$here/../../../target/release/treelb}
LIMIT=${LIMIT:-200}
REPS=${REPS:-2}
CLISAT=${CLISAT:-}
FILES=${FILES:-}
KFILES=${KFILES:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run BIN ARGS...: "user_seconds nodes answer" of one treelb clique run.
run() {
  local bin=$1; shift
  /usr/bin/time -f "%U" -o "$tmp/user" timeout --signal=KILL "$LIMIT" "$bin" clique --json "$@" >"$tmp/out" 2>/dev/null
  python3 - "$tmp/out" "$tmp/user" <<'PY'
import json, sys
user = open(sys.argv[2]).read().split()[-1]
try:
    d = json.load(open(sys.argv[1]))
    a = d["answer"]
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
echo "| instance | ω | BASE P=1 s (nodes) | NEW P=1 s (nodes) | NEW/BASE | NEW P=2 wall s | CliSAT o1 s (steps) | CliSAT o2 s (steps) |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|"
for name in $FILES; do
  f="$inst/$name.clq"
  bt=(); nt=()
  for _ in $(seq "$REPS"); do
    read -r u bn omega < <(run "$BASE" "$f" --threads 1); bt+=("$u")
    read -r u nn _ < <(run "$NEW" "$f" --threads 1); nt+=("$u")
  done
  b=$(best "${bt[@]}"); n=$(best "${nt[@]}")
  ratio=$(awk -v a="$n" -v b="$b" 'BEGIN { if (b > 0 && a + 0 == a) printf "%.2f", a / b; else print "—" }')
  t0=$(date +%s.%N)
  timeout --signal=KILL "$LIMIT" "$NEW" clique "$f" --threads 2 >/dev/null 2>&1
  w2=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  cs=()
  for o in 1 2; do
    if [ -n "$CLISAT" ]; then
      tr -d '\r' <"$f" | sed 's/^p col /p edge /' >"$tmp/$name.clq"
      t0=$(date +%s.%N)
      timeout --signal=KILL $((LIMIT + 5)) "$CLISAT" "$tmp/$name.clq" "$LIMIT" "$o" >"$tmp/c" 2>&1
      w=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
      steps=$(grep -m1 -oE 'steps:[0-9]+' "$tmp/c" | cut -d: -f2)
      cs+=("$w (${steps:-?})")
    else
      cs+=("—")
    fi
  done
  echo "| $name | $omega | $b ($bn) | $n ($nn) | $ratio | $w2 | ${cs[0]} | ${cs[1]} |"
done
[ -z "$KFILES" ] && exit 0
echo
echo "| instance | K | answer | BASE s (nodes) | NEW s (nodes) | NEW --no-resolve s (nodes) | NEW --resolve s (nodes) |"
echo "|---|--:|---|--:|--:|--:|--:|"
for spec in $KFILES; do
  name=${spec%%:*}; k=${spec##*:}
  f="$inst/$name.clq"
  cells=()
  for variant in "$BASE" "$NEW" "$NEW --no-resolve" "$NEW --resolve"; do
    ts=()
    for _ in $(seq "$REPS"); do
      # shellcheck disable=SC2086 # a binary and its flags
      read -r u nodes ans < <(run $variant "$f" --threads 1 --k "$k"); ts+=("$u")
    done
    cells+=("$(best "${ts[@]}") ($nodes)")
  done
  echo "| $name | $k | $ans | ${cells[0]} | ${cells[1]} | ${cells[2]} | ${cells[3]} |"
done
