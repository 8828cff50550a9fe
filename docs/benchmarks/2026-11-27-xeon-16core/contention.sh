#!/bin/bash
# Control: does a node cost more when all 16 CPUs work? 16 independent P = 1 runs at once against one alone.
B=${TREELB:-treelb}
lscpu | grep -E 'Thread|Core|Socket|NUMA node\(|Model name|MHz|L2|L3'
cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list /sys/devices/system/cpu/cpu1/topology/thread_siblings_list
t() { local s=$(date +%s%N); "$@" >/dev/null 2>&1; echo "$(( ($(date +%s%N)-s)/1000000 ))ms"; }
for w in "nqueens 16 -p 1" "uts --tree T1L -p 1"; do
  echo "== $w alone: $(t $B $w) $(t $B $w)"
  for n in 8 16; do
    for i in $(seq $n); do ( t $B $w > /tmp/c.$n.$i ) & done; wait
    echo "== $w x$n at once: $(cat /tmp/c.$n.* | sort -n | tr '\n' ' ')"; rm -f /tmp/c.$n.*
  done
done
