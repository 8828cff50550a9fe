#!/usr/bin/env bash
# treelb beside Concorde on the TSPLIB files of 76 to 532 cities, in one
# command, from anywhere in the repository:
#
#   CONCORDE=/path/to/concorde docs/benchmarks/2026-11-29-tsp-concorde/run.sh
#   CONCORDE=... LIMIT=300 docs/benchmarks/2026-11-29-tsp-concorde/run.sh pr439 att532
#   CONCORDE=... TREELB=none docs/benchmarks/2026-11-29-tsp-concorde/run.sh   # Concorde only
#
# Builds `treelb` (release) unless TREELB names a binary (or `none`), then,
# for each file, runs `treelb tsp FILE -p P --json --expect OPTIMUM
# --time-limit LIMIT` (P = 2 unless P is set) and Concorde three times: as
# it ships (`concorde -s 99 FILE`, the command of its published benchmark)
# with the same limit, and at its root alone without local cuts (`-B -C 0`)
# and with its fast separators only (`-B -V`). Every tour is checked against
# the file; the table goes to stdout, the logs and JSON reports to $OUT
# (default /tmp/treelb-tsp-concorde). How Concorde is built: README.md.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."
: "${CONCORDE:?set CONCORDE to the concorde binary (README.md says how to build it)}"
if [[ -z "${TREELB:-}" ]]; then
  cargo build --release -p treelb-cli >&2
  TREELB="${CARGO_TARGET_DIR:-target}/release/treelb"
fi
exec python3 "$here/bench.py" "$TREELB" "$CONCORDE" "$@"
