#!/usr/bin/env bash
# Maximum clique side by side: treelb at P = 1 and P = 2, CliSAT with each of
# its two vertex orderings, the Glasgow Subgraph Solver and cliquer, one run
# at a time, whole-process wall time (and user CPU), each run of treelb and
# CliSAT stopped after LIMIT seconds and each of Glasgow and cliquer after
# PEER_LIMIT seconds (LIMIT unless given). Prints one Markdown row per
# instance.
#
#   TREELB=target/release/treelb CLISAT=/path/to/CliSAT \
#   GLASGOW=/path/to/glasgow_clique_solver LIMIT=60 [PEER_LIMIT=30] \
#     docs/benchmarks/2026-11-27-clique-side-by-side/run.sh [FILE.clq ...]
#
# TREELB=none or CLIQUER=none leaves that program out (its columns show
# "—"), e.g. to add the Glasgow column to an earlier table.
#
# Without arguments: every file of ../shared/instances/clique. CliSAT (its
# April 2022 Linux release: `git show 587ddf0:bin/CliSAT` in psanse/CliSAT),
# the Glasgow solver (built as ../shared/ECOSYSTEM.md says) and cliquer
# (Debian's `cliquer`) are skipped when not given or not installed; they read
# copies of each file without carriage returns and with `p edge` for `p col`
# (and, for Glasgow and cliquer, with only its `p` and `e` lines), never
# committed.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
TREELB=${TREELB:-$here/../../../target/release/treelb}
LIMIT=${LIMIT:-60}
PEER_LIMIT=${PEER_LIMIT:-$LIMIT}
CLISAT=${CLISAT:-}
GLASGOW=${GLASGOW:-}
CLIQUER=${CLIQUER:-$(command -v cliquer || true)}
if [ "$CLIQUER" = none ]; then CLIQUER=; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $# -eq 0 ]; then set -- "$here"/../../../../shared/instances/clique/*.clq; fi

# timed SECONDS OUT CMD...: runs CMD with a wall-clock limit of SECONDS, its
# stdout to OUT and its stderr to OUT.err (so that treelb's JSON parses even
# when it was stopped and said so); prints "wall user" in seconds (wall "TO"
# past the limit).
timed() {
  local limit=$1 out=$2; shift 2
  local t0 t1 rc
  t0=$(date +%s.%N)
  /usr/bin/time -f "%U" -o "$tmp/user" timeout --signal=KILL $((limit + 5)) "$@" >"$out" 2>"$out.err"
  rc=$?
  t1=$(date +%s.%N)
  local wall
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  if [ "$rc" -eq 137 ] || awk -v w="$wall" -v l="$limit" 'BEGIN { exit !(w > l) }'; then wall="TO"; fi
  printf '%s %s' "$wall" "$(tail -1 "$tmp/user" 2>/dev/null || echo -)"
}

echo "LIMIT=${LIMIT}s; PEER_LIMIT=${PEER_LIMIT}s; load average $(cut -d' ' -f1 /proc/loadavg); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo
echo "| instance | ω | treelb P=1 s (nodes) | treelb P=2 s | CliSAT o1 s (steps) | CliSAT o2 s (steps) | Glasgow s (nodes) | cliquer s |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|"
for f in "$@"; do
  name=$(basename "$f" .clq)
  # CliSAT reads "p edge" only (C125.9 and C250.9 say "p col").
  tr -d '\r' <"$f" | sed 's/^p col /p edge /' >"$tmp/$name.clq"
  grep -E '^(p|e) ' "$tmp/$name.clq" >"$tmp/$name.pe.clq"
  w1="—" nodes="—" w2="—" omega="?"
  if [ "$TREELB" != none ]; then
    read -r w1 u1 < <(timed "$LIMIT" "$tmp/t1" "$TREELB" clique "$f" --threads 1 --json --time-limit "${LIMIT}s")
    omega=$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["answer"]; print(a.get("omega", a.get("size", "?")))' "$tmp/t1" 2>/dev/null || echo "?")
    nodes=$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["answer"]; print(a["branched"])' "$tmp/t1" 2>/dev/null || echo "?")
    read -r w2 u2 < <(timed "$LIMIT" "$tmp/t2" "$TREELB" clique "$f" --threads 2 --json --time-limit "${LIMIT}s")
  fi
  cs=()
  for o in 1 2; do
    if [ -n "$CLISAT" ]; then
      read -r w u < <(timed "$LIMIT" "$tmp/c$o" "$CLISAT" "$tmp/$name.clq" "$LIMIT" "$o")
      steps=$(cat "$tmp/c$o" "$tmp/c$o.err" | grep -m1 -oE 'steps:[0-9]+' | cut -d: -f2)
      co=$(cat "$tmp/c$o" "$tmp/c$o.err" | grep -m1 -oE 'omega:[0-9]+' | cut -d: -f2)
      cs+=("$w (${steps:-?}; ω ${co:-?})")
    else
      cs+=("—")
    fi
  done
  g="—"
  if [ -n "$GLASGOW" ]; then
    read -r w u < <(timed "$PEER_LIMIT" "$tmp/g" "$GLASGOW" --format dimacs --timeout "$PEER_LIMIT" "$tmp/$name.pe.clq")
    gn=$(cat "$tmp/g" "$tmp/g.err" | grep -m1 -oE '^nodes = [0-9]+' | grep -oE '[0-9]+')
    cat "$tmp/g" "$tmp/g.err" | grep -q '^aborted = true' && w=TO
    g="$w (${gn:-?})"
  fi
  q="—"
  if [ -n "$CLIQUER" ]; then
    read -r w u < <(timed "$PEER_LIMIT" "$tmp/q" "$CLIQUER" -su -q -q "$tmp/$name.pe.clq")
    q="$w"
  fi
  echo "| $name | $omega | $w1 ($nodes) | $w2 | ${cs[0]} | ${cs[1]} | $g | $q |"
done
