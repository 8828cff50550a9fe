#!/bin/bash
# Blind forecasts under LogGP, in one sitting on the machine forecast:
#   1. its calibration (microbenchmarks, the MPI ping-pong through shared
#      memory and through TCP on the loopback interface, one-PE runs);
#   2. the forecasts, frozen from that calibration alone before any run
#      with more than one PE, their SHA-256 printed;
#   3. the runs: threads, MPI (shared memory) and MPI over TCP.
# `sim freeze` is a function of the calibration file and this commit's
# code, so anyone can freeze again from calibration.json and compare the
# hashes. Each step has its own time limit, so that a slow step leaves the
# others' results.
#   TREELB=path/to/treelb OUT=folder bash run.sh
# CALIBRATION=file: step 1 done before (the file committed), steps 2 and 3.
# TREELB must be built with --features mpi; TREELB_INSTANCES must hold
# clique/p_hat500-3.clq.
set -u
B=${TREELB:-treelb}
R=${OUT:-/tmp/blind-loggp}
mkdir -p "$R"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
S=$(date +%s)
t() { echo "rc=$1 t=$(( $(date +%s) - S ))"; }
{ nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; head -2 /etc/os-release; free -g | head -2
  mpirun --version | head -1; } > "$R/host.txt" 2>&1
cat "$R/host.txt"
C=$(nproc)
APPS=${APPS:-uts:T1L,uts:T3L,nqueens:16,kclique:51:p_hat500-3.clq}
if [ -n "${CALIBRATION:-}" ]; then
  cp "$CALIBRATION" "$R/calibration.json"
else
  echo "== calibrate $(date -u +%T)"
  timeout 130 "$B" sim calibrate --mpi --mpi-tcp --cores "$C" --apps "$APPS" --repeat 2 \
    --out "$R/calibration.json" > "$R/calibrate.log" 2>&1; t $?
  tail -2 "$R/calibrate.log"
fi
# The three forecast files at once: each simulates one application's cases
# on every core, and one file's cases fill the cores only in part.
echo "== freeze $(date -u +%T)"
F="$B sim freeze --calibration $R/calibration.json"
timeout 240 $F --cases "$C:all" --cases 2,4,8:random-polling --out "$R/forecasts-threads.json" > "$R/freeze-threads.log" 2>&1 &
timeout 240 $F --cases "mpi:$C:all" --out "$R/forecasts-mpi.json" > "$R/freeze-mpi.log" 2>&1 &
timeout 240 $F --cases "mpi-tcp:$C:all" --out "$R/forecasts-tcp.json" > "$R/freeze-tcp.log" 2>&1 &
wait; t 0
(cd "$R" && sha256sum forecasts-*.json | tee forecasts.sha256)
echo "== measure $(date -u +%T)"
M="$B sim measure --baseline $R/calibration.json --repeat ${REPEAT:-1}"
for x in threads:130 mpi:100 tcp:100; do
  n=${x%:*}; lim=${x#*:}
  timeout "$lim" $M "$R/forecasts-$n.json" --out "$R/results-$n.md" > "$R/measure-$n.log" 2>&1; t $?
  tail -4 "$R/measure-$n.log"
done
echo "== end $(date -u +%T)"
