#!/usr/bin/env bash
# The TSP benchmark with cutting planes at the root, in one command, from
# anywhere in the repository:
#
#   docs/benchmarks/2026-11-24-tsp2/run.sh                  # every instance, P = 1 and 2
#   docs/benchmarks/2026-11-24-tsp2/run.sh eil76 kroA100    # some of them
#   ONLY_P2=1 LIMIT=600 docs/benchmarks/2026-11-24-tsp2/run.sh d198
#
# Builds `treelb` (release), solves each instance of ../shared/instances/tsp/
# with `treelb tsp FILE -p P --json --expect OPTIMUM`, recomputes every tour's
# length from the file, and prints the Markdown tables of the README: the
# root's Held–Karp bound and its bound with combs, then the runs (the raw JSON
# reports go to $OUT, default /tmp/treelb-tsp2-bench). LIMIT (seconds,
# default 1800) bounds each run with --time-limit; ONLY_P2=1 skips P = 1.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."
cargo build --release -p treelb-cli >&2
bin="${CARGO_TARGET_DIR:-target}/release/treelb"
exec python3 "$here/bench.py" "$bin" "$@"
