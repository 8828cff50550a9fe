#!/bin/bash
# brock400_2 --k 30 (fixed proof tree, 10,350,544 nodes): P=1 alone, P=1 beside a copy, P=1 beside `yes`, P=2 pinned
# Run from the repository root; the binary was commit 29fd28f's `cargo build --release`.
B=${B:-target/release/treelb}; I=../shared/instances/clique/brock400_2.clq
run() { "$@" --json --no-progress | python3 -c "import json,sys;d=json.load(sys.stdin);print(d['answer']['branched'],round(d['wall_secs'],3),[round(p['busy'],3) for p in d['pes']])"; }
uptime
for r in 1 2 3; do
  echo "round $r"
  echo -n "alone    "; run taskset -c 0 $B clique $I --k 30 -p 1
  echo -n "copy     "; taskset -c 1 $B clique $I --k 30 -p 1 --json --no-progress > /tmp/copy.json & C=$!
  run taskset -c 0 $B clique $I --k 30 -p 1; wait $C
  echo -n "  (copy) "; python3 -c "import json;d=json.load(open('/tmp/copy.json'));print(round(d['wall_secs'],3))"
  echo -n "yes      "; taskset -c 1 yes > /dev/null & Y=$!; run taskset -c 0 $B clique $I --k 30 -p 1; kill $Y
  echo -n "p2 pin   "; run $B clique $I --k 30 -p 2 --pin
  echo -n "p2       "; run $B clique $I --k 30 -p 2
done
