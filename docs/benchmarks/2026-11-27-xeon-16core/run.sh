#!/bin/bash
# Device run: scaling matrix and simulator predictions on 16 cores.
set -u
R=${RESULTS:-/tmp/res}; mkdir -p $R
B=${TREELB:-treelb}
pack() { (cd /tmp && tar czf ${OUT:-/tmp}/res.tgz res); }
{ nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; cat /etc/os-release | head -2; free -g | head -2; } > $R/host.txt 2>&1
cat $R/host.txt
S=$(date +%s)
echo "== bench scaling"; $B bench --workloads T1L,T3L,nqueens:16 -p 1,2,4,8,16 --engines seq,treelb,rayon-join,chili-join --repeat 2 --timeout 2m --out $R/scaling > $R/scaling.log 2>&1; echo rc=$? t=$(( $(date +%s)-S )); pack
echo "== bench strategies"; $B bench --workloads T1L,T3L --strategies all -p 16 --engines seq,treelb --repeat 2 --timeout 1m --out $R/strategies > $R/strategies.log 2>&1; echo rc=$? t=$(( $(date +%s)-S )); pack
echo "== calibrate small"; $B sim calibrate --cores 16 --apps uts:T1,uts:T3,nqueens:14,clique:${INSTANCES:-../shared/instances}/clique/brock200_1.clq --out $R/calibration-16.json > $R/cal.log 2>&1; echo rc=$? t=$(( $(date +%s)-S ))
$B sim predict --calibration $R/calibration-16.json --out $R/calibration-16.md --pes 2,4,8,16 --ranks none --repeat 3 >> $R/cal.log 2>&1; echo rc=$? t=$(( $(date +%s)-S )); pack
echo "== calibrate large"; $B sim calibrate --cores 16 --apps uts:T1L,uts:T3L,nqueens:15 --repeat 2 --out $R/calibration-16-large.json > $R/calL.log 2>&1; echo rc=$? t=$(( $(date +%s)-S ))
$B sim predict --calibration $R/calibration-16-large.json --out $R/calibration-16-large.md --pes 16 --ranks none --repeat 1 >> $R/calL.log 2>&1; echo rc=$? t=$(( $(date +%s)-S )); pack
tail -3 $R/*.log
