#!/bin/bash
# Regression gate: base (9850e00) vs new, alternating, same machine.
set -u
# BASE and NEW: folders holding `treelb` (built with the MPI feature) and
# `examples/tiny_runs` of each version.
B=${BASE:?folder of the base build}
N=${NEW:?folder of the new build}
O=${OUT:-/tmp/gate}; mkdir -p $O
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ nproc; grep -m1 'model name' /proc/cpuinfo; uptime; } > $O/host.txt
wall() { /usr/bin/time -f "%e" "$@" 2>&1 >/dev/null | tail -1; }
# 1. bench: seq and treelb at P=2 on T1L, T3L (efficiency computed by bench)
for r in 1 2; do
  for v in base new; do d=$B; [ $v = new ] && d=$N
    $d/treelb bench --workloads T1L,T3L -p 2 --engines seq,treelb --repeat 2 --json --out $O/bench-$v-$r > $O/bench-$v-$r.log 2>&1
  done
done
# 2. MPI np=2 T1L, T3L: the run's own wall time (without mpirun's start)
for r in 1 2 3; do for t in T1L T3L; do for v in base new; do d=$B; [ $v = new ] && d=$N
  w=$(timeout 120 mpirun --oversubscribe -np 2 $d/treelb uts --tree $t --runtime mpi --json --no-progress 2>/dev/null |
      python3 -c "import json,sys; print(json.load(sys.stdin)['wall_secs'])")
  echo "$v $t $w" >> $O/mpi-json.txt
done; done; done
# 3. P=1 wall: nqueens 15, T3L
for r in 1 2 3 4 5; do for v in base new; do d=$B; [ $v = new ] && d=$N
  echo "$v nq15 $(wall $d/treelb nqueens 15 -p 1 --no-progress)" >> $O/p1.txt
  echo "$v T3L $(wall $d/treelb uts --tree T3L -p 1 --no-progress)" >> $O/p1.txt
done; done
# 4. tiny runs on the persistent pool
for v in base new; do d=$B; [ $v = new ] && d=$N
  $d/examples/tiny_runs --rounds 5 > $O/tiny-$v.txt 2>&1
done
echo done > $O/done
