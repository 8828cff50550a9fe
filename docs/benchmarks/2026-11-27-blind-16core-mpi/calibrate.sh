#!/bin/bash
# Step 1 on the machine to forecast: its calibration (microbenchmarks, the
# MPI ping-pong, one-PE runs), nothing else. TREELB must be built with
# --features mpi.   TREELB=path/to/treelb OUT=folder bash calibrate.sh
set -u
B=${TREELB:-treelb}
R=${OUT:-/tmp/blind-mpi}
mkdir -p "$R"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; head -2 /etc/os-release; mpirun --version | head -1
  ldd "$B" | grep -i mpi; } > "$R/host.txt" 2>&1
cat "$R/host.txt"
"$B" sim calibrate --mpi --cores "$(nproc)" --apps uts:T1L,uts:T3L,nqueens:15 --repeat 2 \
  --out "$R/calibration.json" 2>&1 | tee "$R/calibrate.log"
