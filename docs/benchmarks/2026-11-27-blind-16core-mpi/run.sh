#!/bin/bash
# Step 3 on the machine forecast: the cases of forecasts.json (frozen and
# committed after step 1, before this run) measured under mpirun. T₁ is
# measured here first (one-PE runs of the threads runtime): a machine lent
# again may be another host than the one calibrated.
#   TREELB=path/to/treelb OUT=folder bash run.sh
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
B=${TREELB:-treelb}
R=${OUT:-/tmp/blind-mpi}
mkdir -p "$R"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
S=$(date +%s)
{ nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; head -2 /etc/os-release; mpirun --version | head -1; } > "$R/host.txt" 2>&1
"$B" sim measure "$HERE/forecasts.json" --repeat 2 \
  --out "$R/results.md" > "$R/measure.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - S ))"
tail -6 "$R/measure.log"
