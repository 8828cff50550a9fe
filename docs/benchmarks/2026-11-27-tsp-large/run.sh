#!/usr/bin/env bash
# TSP past 200 cities, in one command, from anywhere in the repository:
#
#   docs/benchmarks/2026-11-27-tsp-large/run.sh                 # every file, P = 2
#   LIMIT=3600 docs/benchmarks/2026-11-27-tsp-large/run.sh gil262 lin318
#
# Builds `treelb` (release), solves each file with `treelb tsp FILE -p P
# --json --expect OPTIMUM --time-limit LIMIT` (P = 2 unless P is set),
# recomputes every tour's length from the file, and prints the README's
# table: root bounds and gaps, the initial tour, nodes, node rate, and for a
# run that is not proven the bound it reached. The JSON reports go to $OUT
# (default /tmp/treelb-tsp-large).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."
cargo build --release -p treelb-cli >&2
bin="${CARGO_TARGET_DIR:-target}/release/treelb"
exec python3 "$here/bench.py" "$bin" "$@"
