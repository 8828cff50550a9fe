#!/usr/bin/env bash
# Parallel alpha-beta on Connect Four across MPI ranks beside the threads
# runtime: the sequential baseline, the threads runtime at P = 1 and P = 2
# and the MPI runtime at np = 2 (one PE per rank, a transposition table per
# rank), each under random polling with and without young brothers wait,
# and (if given) Pascal Pons's solver on the same positions. Speedup and
# efficiency are against the sequential baseline; the search overhead is
# the nodes of a run over the sequential nodes; "aborted" counts the nodes
# searched in subtrees a cutoff aborted. Writes results.txt next to this
# script. Then the same six runs on synthetic game trees (`treelb
# gametree`, solved by null-window searches as Connect Four is).
#
#   docs/benchmarks/2026-11-24-connect4-mpi/run.sh [PATH/TO/c4solver]
#
# c4solver: `make c4solver` in a checkout of github.com/PascalPons/connect4
# (it reads one position per line and prints `POSITION SCORE`; it runs
# without its opening book). Every treelb run solves for the score only
# (--score-only), as c4solver does, with 2^24 table entries. The MPI runs
# need a build with `--features mpi` and Open MPI's mpirun; their time per
# position is measured inside rank 0 around each position's solve (MPI's
# start-up is not in it; every window search is one run of the MPI
# runtime's session, with its start and its termination detection). REPEAT=N
# (default 3) runs every configuration N times, the configurations of one
# set in turn (round robin), so that a change of the machine's load hits all
# of them alike; the fastest run of each counts, with its nodes. Ratios are
# within one run of this script. SETS overrides the sets and how many
# positions of each (default "moves30:1000 moves20:1000 moves12:40"; empty:
# none), TREES the synthetic trees (BRANCHING:DEPTH:ORDERING:SEED each;
# empty: none), OUT the results file (default results.txt here). With
# valgrind installed, callgrind then counts the instructions of the
# sequential baseline and of P = 1 on each tree (independent of the load).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."
pons="${1:-}"
repeat="${REPEAT:-3}"
sets="${SETS-moves30:1000 moves20:1000 moves12:40}"
trees="${TREES-8:11:0.9:1 8:11:0.5:1 4:18:0.9:1}"
target="${CARGO_TARGET_DIR:-target}"
cargo build --release -q -p treelb-cli --features mpi
treelb="$target/release/treelb"
tmp="$(mktemp -d)"
# shellcheck source=../2026-11-24-connect4/common.sh
. "$here/../2026-11-24-connect4/common.sh"
trap 'rm -rf "$tmp"' EXIT
out="${OUT:-$here/results.txt}"
mpirun=(mpirun --oversubscribe -np 2)
if [ "$(id -u)" = 0 ]; then
    mpirun+=(--allow-run-as-root)
fi

# label:PEs:command prefix (threads or mpi):flags
runs=(
    "sequential:1:threads:--sequential"
    "threads P = 1, ybw:1:threads:-p 1"
    "threads P = 2, ybw:2:threads:-p 2"
    "threads P = 2, no waiting:2:threads:-p 2 --no-ybw"
    "mpi np = 2, ybw:2:mpi:"
    "mpi np = 2, no waiting:2:mpi:--no-ybw"
)

{
echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), fastest of $repeat"
echo
echo "## Connect Four: per position, fastest of $repeat runs (ms), its nodes and aborted nodes; TT 2^24 entries (threads: one shared table; MPI: one per rank)"
printf '%-9s %-28s %10s %12s %10s %8s %8s %9s\n' set run "ms/pos" "nodes/pos" aborted speedup effic. overhead
for set in $sets; do
    name="${set%%:*}"
    c4_set "$name" "${set##*:}"
    declare -A best=()
    for _ in $(seq "$repeat"); do
        for run in "${runs[@]}"; do
            IFS=: read -r label _ engine flags <<<"$run"
            args=(connect4 --file "$tmp/$name.txt" --tt-log2 24 --score-only --no-progress)
            # shellcheck disable=SC2206
            args+=($flags)
            if [ "$engine" = mpi ]; then
                report="$("${mpirun[@]}" "$treelb" "${args[@]}" --runtime mpi 2>/dev/null)"
            else
                report="$("$treelb" "${args[@]}")"
            fi
            c4_report "$name" "$label" "$report"
        done
        if [ -n "$pons" ]; then
            c4_pons "$pons" "$name"
        fi
    done
    for run in "${runs[@]}"; do
        IFS=: read -r label p _ _ <<<"$run"
        c4_row 28 "$name" "$label" "$p"
    done
    if [ -n "$pons" ]; then
        c4_pons_row 28 "$name"
    fi
    unset best
done
echo
echo "## Synthetic game trees (treelb gametree --null-windows): per tree, fastest of $repeat runs (ms), its nodes and aborted nodes"
printf '%-22s %-28s %10s %12s %10s %8s %8s %9s\n' tree run "ms" "nodes" aborted speedup effic. overhead
for tree in $trees; do
    IFS=: read -r b d q seed <<<"$tree"
    name="b$b d$d q$q"
    declare -A best=()
    for _ in $(seq "$repeat"); do
        for run in "${runs[@]}"; do
            IFS=: read -r label _ engine flags <<<"$run"
            args=(gametree --branching "$b" --depth "$d" --ordering "$q" --tree "$seed" --null-windows --no-progress)
            # shellcheck disable=SC2206
            args+=($flags)
            if [ "$engine" = mpi ]; then
                report="$("${mpirun[@]}" "$treelb" "${args[@]}" --runtime mpi 2>/dev/null)"
            else
                report="$("$treelb" "${args[@]}")"
            fi
            value="$(sed -n 's/^value: \(.*\)/\1/p' <<<"$report")"
            if [ -z "${want:-}" ]; then want="$value"; fi
            [ "$value" = "$want" ] || { echo "value $value, sequential $want in $name ($label)" >&2; exit 1; }
            ms="$(sed -n 's/^time: \([0-9.]*\) s/\1/p' <<<"$report" | awk '{ printf "%.3f", $1 * 1000 }')"
            nodes="$(sed -n 's/^nodes: \([0-9]*\)/\1/p' <<<"$report")"
            aborted="$(sed -n 's/^aborted nodes: \([0-9]*\)/\1/p' <<<"$report")"
            keep_fastest "$label" "$ms $nodes $aborted"
        done
    done
    unset want
    read -r seq_ms seq_nodes _ <<<"${best[sequential]}"
    for run in "${runs[@]}"; do
        IFS=: read -r label p _ _ <<<"$run"
        read -r ms nodes aborted <<<"${best[$label]}"
        awk -v s="$name" -v l="$label" -v ms="$ms" -v n="$nodes" -v a="$aborted" -v sm="$seq_ms" -v sn="$seq_nodes" -v p="$p" \
            'BEGIN { printf "%-22s %-28s %10.3f %12d %10d %8.2f %8.2f %9.3f\n", s, l, ms, n, a, sm/ms, sm/ms/p, n/sn }'
    done
    unset best
done
if [ -n "$trees" ] && command -v valgrind > /dev/null; then
    echo
    echo "## Synthetic trees: instructions of the sequential baseline and of the threads runtime at P = 1 (valgrind --tool=callgrind; independent of the load)"
    printf '%-22s %16s %16s %8s\n' tree sequential "P = 1" ratio
    instr() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 > /dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
    for tree in $trees; do
        IFS=: read -r b d q seed <<<"$tree"
        args=(gametree --branching "$b" --depth "$d" --ordering "$q" --tree "$seed" --null-windows --no-progress)
        s="$(instr "$treelb" "${args[@]}" --sequential)"
        p="$(instr "$treelb" "${args[@]}" -p 1)"
        awk -v t="b$b d$d q$q" -v s="$s" -v p="$p" 'BEGIN { printf "%-22s %16d %16d %8.3f\n", t, s, p, s / p }'
    done
fi
} | tee "$out"
