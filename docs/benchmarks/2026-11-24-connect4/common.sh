# Shared by run.sh here and ../2026-11-24-connect4-mpi/run.sh (sourced, not
# run): the position sets, Pons's solver timed beside them, and the
# fastest-of-N bookkeeping. Expects `tmp` (a scratch directory) and the
# associative array `best` (label -> "ms nodes aborted") of the caller.

data=crates/apps/tests/data/connect4

# c4_set NAME COUNT: the first COUNT positions of set NAME with their
# scores in $tmp/NAME.txt, the positions alone in $tmp/NAME.pos; sets
# `count` to the positions there are.
c4_set() {
    # (awk, not `grep | head`: head's early exit would fail the pipeline.)
    awk -v n="$2" '!/^#/ && c < n { print; c++ }' "$data/$1.txt" > "$tmp/$1.txt"
    cut -d' ' -f1 "$tmp/$1.txt" > "$tmp/$1.pos"
    count="$(wc -l < "$tmp/$1.txt")"
}

# keep_fastest LABEL "MS [NODES ABORTED]": remembers the run if it is the
# fastest of LABEL so far.
keep_fastest() {
    if [ -z "${best[$1]:-}" ] || awk -v a="${2%% *}" -v b="${best[$1]%% *}" 'BEGIN { exit !(a < b) }'; then
        best[$1]="$2"
    fi
}

# c4_report SET LABEL REPORT: checks a `treelb connect4 --file` report (no
# mismatch) and keeps its mean time, mean nodes and aborted nodes.
c4_report() {
    grep -q 'mismatches: 0$' <<<"$3" || { echo "mismatch in $1 ($2)" >&2; exit 1; }
    local ms nodes aborted
    ms="$(sed -n 's/^mean time: \([0-9.]*\) ms/\1/p' <<<"$3")"
    nodes="$(sed -n 's/^mean nodes: \([0-9.]*\)/\1/p' <<<"$3")"
    aborted="$(sed -n 's/^aborted nodes: \([0-9]*\) .*/\1/p' <<<"$3")"
    keep_fastest "$2" "$ms $nodes $aborted"
}

# c4_pons PONS NAME: times Pons's solver on set NAME (ms per position, kept
# as best[pons]) and checks that its scores are the committed ones.
c4_pons() {
    local start end
    start=$(date +%s.%N)
    "$1" < "$tmp/$2.pos" 2>/dev/null > "$tmp/$2.pons"
    end=$(date +%s.%N)
    keep_fastest pons "$(awk -v t0="$start" -v t1="$end" -v c="$count" 'BEGIN { printf "%.4f", (t1 - t0) * 1000 / c }')"
    diff <(cut -d' ' -f2 "$tmp/$2.txt") <(cut -d' ' -f2 "$tmp/$2.pons") > /dev/null \
        || { echo "Pons disagrees on $2" >&2; exit 1; }
}

# c4_row WIDTH SET LABEL P: the row of LABEL against best[sequential].
c4_row() {
    local seq_ms seq_nodes ms nodes aborted
    read -r seq_ms seq_nodes _ <<<"${best[sequential]}"
    read -r ms nodes aborted <<<"${best[$3]}"
    awk -v w="$1" -v s="$2" -v l="$3" -v ms="$ms" -v n="$nodes" -v a="$aborted" -v sm="$seq_ms" -v sn="$seq_nodes" -v p="$4" \
        'BEGIN { printf "%-9s %-*s %10.3f %12.1f %10d %8.2f %8.2f %9.3f\n", s, w, l, ms, n, a, sm/ms, sm/ms/p, n/sn }'
}

# c4_pons_row WIDTH SET: Pons's row against best[sequential].
c4_pons_row() {
    awk -v w="$1" -v s="$2" -v ms="${best[pons]}" -v sm="${best[sequential]%% *}" \
        'BEGIN { printf "%-9s %-*s %10.3f %12s %10s %8.2f\n", s, w, "Pons c4solver (sequential)", ms, "-", "-", sm/ms }'
}
