#!/usr/bin/env bash
# The clique kernel's root split by parts (`treelb clique --root-parts`),
# beside the root split by colour classes (`--no-root-parts`) and CliSAT:
# per instance, treelb at P = 1 by default and with --no-root-parts, treelb
# at P = 2 by default, and CliSAT with each ordering in ORDERINGS (default
# "1"), one run at a time, whole-process wall time and user CPU, each run
# stopped after LIMIT seconds. Prints one Markdown row per instance.
# CLASSES=0 leaves out the run with --no-root-parts (its column shows —).
#
#   TREELB=target/release/treelb CLISAT=/path/to/CliSAT LIMIT=400 \
#     docs/benchmarks/2026-11-29-clique-root-parts/run.sh FILE.clq ...
#
# CliSAT (its April 2022 Linux release: `git show 587ddf0:bin/CliSAT` in
# psanse/CliSAT) reads a copy of each file without carriage returns and
# with `p edge` for `p col`, never committed; it is skipped when not given.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
TREELB=${TREELB:-$here/../../../target/release/treelb}
LIMIT=${LIMIT:-400}
CLISAT=${CLISAT:-}
ORDERINGS=${ORDERINGS:-1}
CLASSES=${CLASSES:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# timed OUT CMD...: runs CMD with a wall-clock limit of LIMIT, its stdout to
# OUT and its stderr to OUT.err; prints "wall user" in seconds (wall "TO"
# past the limit).
timed() {
  local out=$1; shift
  local t0 t1 rc wall
  t0=$(date +%s.%N)
  /usr/bin/time -f "%U" -o "$tmp/user" timeout --signal=KILL $((LIMIT + 5)) "$@" >"$out" 2>"$out.err"
  rc=$?
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  if [ "$rc" -eq 137 ] || awk -v w="$wall" -v l="$LIMIT" 'BEGIN { exit !(w > l) }'; then wall="TO"; fi
  printf '%s %s' "$wall" "$(tail -1 "$tmp/user" 2>/dev/null || echo -)"
}

# answer FILE KEY: a field of treelb's JSON answer, "?" when absent.
answer() {
  python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["answer"]; print(a.get(sys.argv[2]) if a.get(sys.argv[2]) is not None else "?")' "$1" "$2" 2>/dev/null || echo "?"
}

echo "LIMIT=${LIMIT}s; load average $(cut -d' ' -f1 /proc/loadavg); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo
printf '| instance | ω | P=1 parts s (nodes) | P=1 classes s (nodes) | P=2 parts s |'
for o in $ORDERINGS; do printf ' CliSAT o%s s (steps) |' "$o"; done
echo
printf '|---|--:|--:|--:|--:|'
for _ in $ORDERINGS; do printf -- '--:|'; done
echo
for f in "$@"; do
  name=$(basename "$f" .clq)
  read -r w1 _ < <(timed "$tmp/a" "$TREELB" clique "$f" --threads 1 --json --no-progress --time-limit "${LIMIT}s")
  w0="—"
  if [ "$CLASSES" != 0 ]; then
    read -r w0 _ < <(timed "$tmp/b" "$TREELB" clique "$f" --threads 1 --json --no-progress --time-limit "${LIMIT}s" --no-root-parts)
  else
    echo '{}' >"$tmp/b"
  fi
  read -r w2 _ < <(timed "$tmp/c" "$TREELB" clique "$f" --threads 2 --json --no-progress --time-limit "${LIMIT}s")
  row="| $name | $(answer "$tmp/a" omega) | $w1 ($(answer "$tmp/a" branched)) | $w0$( [ "$CLASSES" != 0 ] && echo " ($(answer "$tmp/b" branched))") | $w2 |"
  for o in $ORDERINGS; do
    if [ -n "$CLISAT" ]; then
      tr -d '\r' <"$f" | sed 's/^p col /p edge /' >"$tmp/$name.clq"
      read -r w _ < <(timed "$tmp/s" "$CLISAT" "$tmp/$name.clq" "$LIMIT" "$o")
      steps=$(cat "$tmp/s" "$tmp/s.err" | grep -m1 -oE 'steps:[0-9]+' | cut -d: -f2)
      row+=" $w (${steps:-?}) |"
    else
      row+=" — |"
    fi
  done
  echo "$row"
done
