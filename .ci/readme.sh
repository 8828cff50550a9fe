#!/usr/bin/env bash
# Runs the README's commands exactly as written, so that they cannot drift:
# `.ci/readme.sh NAME` finds the fenced block that follows the marker line
# `<!-- ci: NAME -->` in README.md and runs its lines one by one in bash
# (stopping at the first failure), echoing each; the output goes to stdout.
# `.ci/readme.sh --print NAME` only prints the lines.
set -euo pipefail
cd "$(dirname "$0")/.."

print_only=0
if [ "${1:-}" = "--print" ]; then
    print_only=1
    shift
fi
name="${1:?usage: .ci/readme.sh [--print] NAME}"

# The lines of the first fenced block after the marker.
block=$(awk -v marker="<!-- ci: ${name} -->" '
    $0 == marker { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    found && inside { print }
' README.md)
if [ -z "$block" ]; then
    echo "README.md has no block marked <!-- ci: ${name} -->" >&2
    exit 1
fi

if [ "$print_only" -eq 1 ]; then
    printf '%s\n' "$block"
    exit 0
fi
while IFS= read -r line; do
    [ -n "$line" ] || continue
    printf '+ %s\n' "$line" >&2
    # stdin from /dev/null: mpirun (like ssh) reads stdin, which would eat
    # the remaining lines.
    bash -euo pipefail -c "$line" </dev/null
done <<<"$block"
