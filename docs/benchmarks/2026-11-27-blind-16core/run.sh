#!/bin/bash
# Blind forecasts checked on a machine with more cores: the cases of
# forecasts.json (frozen and committed before this run) measured here.
#   TREELB=path/to/treelb OUT=results-folder bash run.sh
# Reduced size (CI, any machine): QUICK=1 bash run.sh — its own tiny
# calibration and forecasts, made in the run (not blind; it checks that the
# pipeline runs end to end).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
B=${TREELB:-treelb}
R=${OUT:-/tmp/blind}
mkdir -p "$R"
S=$(date +%s)
{ nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; head -2 /etc/os-release; free -g | head -2
  command -v mpirun || echo "no mpirun"; } > "$R/host.txt" 2>&1
cat "$R/host.txt"
if [ "${QUICK:-0}" = 1 ]; then
  "$B" sim calibrate --apps nqueens:9,uts:T1 --repeat 1 --out "$R/calibration.json" > "$R/calibrate.log" 2>&1 || { cat "$R/calibrate.log"; exit 1; }
  "$B" sim freeze --calibration "$R/calibration.json" --cases 2:random-polling,work-sharing,static-block --cases 1:random-polling --out "$R/forecasts.json" > "$R/freeze.log" 2>&1 || { cat "$R/freeze.log"; exit 1; }
  "$B" sim measure "$R/forecasts.json" --repeat 2 --out "$R/results.md" > "$R/measure.log" 2>&1 || { cat "$R/measure.log"; exit 1; }
  tail -4 "$R/measure.log"
  echo "quick run: $(( $(date +%s) - S )) s"
  exit 0
fi
# The calibration of this machine today (microbenchmarks and one-PE runs of
# the same applications): T₁ of each application for the measurement, and
# the costs of a forecast in hindsight, made afterwards, to separate the
# drift of the machine from the error of the model.
echo "== calibrate"; "$B" sim calibrate --cores "$(nproc)" --apps uts:T1L,uts:T3L,nqueens:15 --repeat 2 --out "$R/calibration-today.json" > "$R/calibrate.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - S ))"
echo "== measure"; "$B" sim measure "$HERE/forecasts.json" --baseline "$R/calibration-today.json" --repeat 2 --out "$R/results.md" > "$R/measure.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - S ))"
tail -5 "$R/measure.log"
# With time left (a device lent for minutes): the new build's random
# polling at P = all cores beside the sequential run.
if [ $(( $(date +%s) - S )) -lt "${BENCH_IF_UNDER:-0}" ]; then
  echo "== bench"; "$B" bench --workloads T1L,T3L --engines seq,treelb -p "$(nproc)" --repeat 1 --timeout 1m --out "$R/scaling" > "$R/bench.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - S ))"
fi
