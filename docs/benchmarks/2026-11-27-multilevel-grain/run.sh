#!/bin/bash
# Multilevel with and without granularity control beside random polling,
# simulated: treelb sim run on P = 1024, 4096, 16384 PEs, two workloads.
# Usage: TREELB=./target/release/treelb bash run.sh > results.txt
TREELB=${TREELB:-./target/release/treelb}
for wl in "alpha:0.333" "uts:T1"; do
  for p in 1024 4096 16384; do
    for s in "random-polling" "multilevel --grain 0" "multilevel --grain 4"; do
      r=$($TREELB sim run --workload "$wl" -p "$p" --strategy $s 2>&1 |
        grep -E "^(efficiency|T_par|requests)" | tr -s ' ' | tr '\n' ';')
      echo "$wl | $p | $s | $r"
    done
  done
done
