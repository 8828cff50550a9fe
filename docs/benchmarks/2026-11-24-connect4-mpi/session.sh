#!/usr/bin/env bash
# The fixed cost of a window search across ranks: Connect Four positions
# after 20 and after 30 moves (`treelb connect4 --file … --score-only
# --tt-log2 24 --runtime mpi`, mpirun -np 2), solved by a build of commit
# OLD (default bd475ee: every window search one run of the MPI runtime,
# which sets up its communicators and measures the probe cost each time)
# and by this checkout (every window search of the command a run of one
# session, rank 0 broadcasting the windows). The two run alternately,
# REPEAT rounds (default 5); the fastest mean time per position of each
# counts. Every score is checked against Pons's. Writes session.txt here.
#
#   docs/benchmarks/2026-11-24-connect4-mpi/session.sh [OLD_TREELB]
#
# OLD_TREELB: a treelb binary of commit OLD built with --features mpi;
# without it the script builds one in a temporary git worktree (its own
# target directory: a full build). N (default 300) positions of each set.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."
repeat="${REPEAT:-5}"
n="${N:-300}"
old_commit="${OLD:-bd475ee}"
target="${CARGO_TARGET_DIR:-target}"
cargo build --release -q -p treelb-cli --features mpi
new="$target/release/treelb"
tmp="$(mktemp -d)"
trap 'git worktree remove --force "$tmp/old" 2>/dev/null || true; rm -rf "$tmp"' EXIT
old="${1:-}"
if [ -z "$old" ]; then
    git worktree add -q --detach "$tmp/old" "$old_commit"
    (cd "$tmp/old" && CARGO_TARGET_DIR="$tmp/target" cargo build --release -q -p treelb-cli --features mpi)
    old="$tmp/target/release/treelb"
fi
mpirun=(mpirun --oversubscribe -np 2)
if [ "$(id -u)" = 0 ]; then
    mpirun+=(--allow-run-as-root)
fi
# shellcheck source=../2026-11-24-connect4/common.sh
. "$here/../2026-11-24-connect4/common.sh"
{
echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) against $old_commit, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), fastest of $repeat"
echo
printf '%-9s %-34s %10s %12s %10s\n' set run "ms/pos" "nodes/pos" "windows"
for name in moves30 moves20; do
    c4_set "$name" "$n"
    declare -A best=() windows=()
    for _ in $(seq "$repeat"); do
        for which in "one run per window ($old_commit)" "one session per command"; do
            bin="$new"; case "$which" in "one run"*) bin="$old";; esac
            "${mpirun[@]}" "$bin" connect4 --file "$tmp/$name.txt" --tt-log2 24 --score-only --no-progress \
                --runtime mpi > "$tmp/out" 2> "$tmp/err"
            c4_report "$name" "$which" "$(cat "$tmp/out")"
            windows[$which]="$(sed -n 's/.*; \([0-9]*\) window searches.*/\1/p' "$tmp/err")"
        done
    done
    for which in "one run per window ($old_commit)" "one session per command"; do
        read -r ms nodes _ <<<"${best[$which]}"
        printf '%-9s %-34s %10.3f %12.1f %10d\n' "$name" "$which" "$ms" "$nodes" "${windows[$which]}"
    done
    unset best windows
done
} | tee "$here/session.txt"
