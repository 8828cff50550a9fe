#!/bin/bash
# Blind forecasts under LogGP on the machine forecast:
#   1. its calibration (microbenchmarks, the MPI ping-pong through shared
#      memory and through TCP on the loopback interface, one-PE runs);
#   2. the forecasts, frozen from that calibration alone, their SHA-256
#      printed (three files: threads, MPI, MPI over TCP);
#   3. the runs of every forecast case, and the error figures.
# `sim freeze` is a function of the calibration file and the code, so anyone
# can freeze again from calibration.json and compare the hashes.
#   TREELB=path/to/treelb OUT=folder bash run.sh
# TREELB must be built with --features mpi; TREELB_INSTANCES must hold
# clique/p_hat500-3.clq.
#   CALIBRATION=file  step 1 done before (the committed calibration.json)
#   FORECASTS=folder  steps 1 and 2 done before: the committed
#                     forecasts-*.json are measured (the blind protocol)
#   STEPS="threads mpi tcp"  which forecast files step 3 measures
#   PACK=file.tgz     after every step, everything written so far packed
#                     into this one archive (a machine that returns few files)
# Each step has its own time limit, so that a slow one leaves the others'
# results.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
B=${TREELB:-treelb}
R=${OUT:-/tmp/blind-loggp}
mkdir -p "$R"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
S=$(date +%s)
pack() { if [ -n "${PACK:-}" ]; then tar czf "$PACK" -C "$R" .; fi; }
t() { echo "rc=$1 t=$(( $(date +%s) - S ))"; pack; }
{ nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; head -2 /etc/os-release; free -g | head -2
  mpirun --version | head -1; } > "$R/host.txt" 2>&1
cat "$R/host.txt"
C=$(nproc)
APPS=${APPS:-uts:T1L,uts:T3L,nqueens:16,kclique:51:p_hat500-3.clq}
if [ -n "${FORECASTS:-}" ]; then
  cp "$FORECASTS"/forecasts-*.json "$FORECASTS/calibration.json" "$R/"
elif [ -n "${CALIBRATION:-}" ]; then
  cp "$CALIBRATION" "$R/calibration.json"
else
  echo "== calibrate $(date -u +%T)"
  timeout 130 "$B" sim calibrate --mpi --mpi-tcp --cores "$C" --apps "$APPS" --repeat 2 \
    --out "$R/calibration.json" > "$R/calibrate.log" 2>&1; t $?
  tail -2 "$R/calibrate.log"
fi
if [ -z "${FORECASTS:-}" ]; then
  # The three files at once: each simulates one application's cases on
  # every core, and one file's cases fill the cores only in part.
  echo "== freeze $(date -u +%T)"
  F="$B sim freeze --calibration $R/calibration.json"
  timeout 240 $F --cases "$C:all" --cases 2,4,8:random-polling --out "$R/forecasts-threads.json" > "$R/freeze-threads.log" 2>&1 &
  timeout 240 $F --cases "mpi:$C:all" --out "$R/forecasts-mpi.json" > "$R/freeze-mpi.log" 2>&1 &
  timeout 240 $F --cases "mpi-tcp:$C:all" --out "$R/forecasts-tcp.json" > "$R/freeze-tcp.log" 2>&1 &
  wait; t 0
fi
(cd "$R" && sha256sum forecasts-*.json | tee forecasts.sha256)
echo "== measure $(date -u +%T)"
M="$B sim measure --baseline $R/calibration.json --repeat ${REPEAT:-1}"
# Time limits from the 16-core sitting: threads 115 s, MPI ~140 s, MPI
# over TCP ~250 s for the four applications.
for n in ${STEPS:-threads mpi tcp}; do
  case $n in threads) lim=170 ;; mpi) lim=200 ;; *) lim=320 ;; esac
  timeout "$lim" $M "$R/forecasts-$n.json" --out "$R/results-$n.md" > "$R/measure-$n.log" 2>&1; t $?
  tail -4 "$R/measure-$n.log"
done
echo "== end $(date -u +%T)"
