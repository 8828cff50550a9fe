#!/usr/bin/env bash
# Runs the README's commands exactly as written, so that they cannot drift:
# `.ci/readme.sh NAME` finds the fenced block that follows the marker line
# `<!-- ci: NAME -->` in README.md and runs its lines one by one in bash
# (stopping at the first failure), echoing each; the output goes to stdout.
# `.ci/readme.sh --print NAME` only prints the lines.
# `.ci/readme.sh --test-profile NAME` runs a block on Cargo.toml's `test`
# profile instead of the release profile (the same code, built once for the
# tests): `cargo run --release` becomes `cargo run --profile test`; a line
# `cargo build --release ARGS` is resolved (`cargo tree ARGS`: the package
# and features exist) instead of compiled, since the tests' build made the
# program already; and `./target/release/` in the other lines is
# `./target/debug/`, where that profile puts its programs.
set -euo pipefail
cd "$(dirname "$0")/.."

print_only=0
test_profile=0
while [ $# -gt 1 ]; do
    case "$1" in
        --print) print_only=1; shift ;;
        --test-profile) test_profile=1; shift ;;
        *) break ;;
    esac
done
name="${1:?usage: .ci/readme.sh [--print | --test-profile] NAME}"

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
    if [ "$test_profile" -eq 1 ]; then
        case "$line" in
            "cargo run --release "*) line="cargo run --locked --profile test ${line#cargo run --release }" ;;
            "cargo build --release "*) line="cargo tree --locked -e normal ${line#cargo build --release } >/dev/null" ;;
            *) line="${line//.\/target\/release\//./target/debug/}" ;;
        esac
    fi
    printf '+ %s\n' "$line" >&2
    # stdin from /dev/null: mpirun (like ssh) reads stdin, which would eat
    # the remaining lines.
    bash -euo pipefail -c "$line" </dev/null
done <<<"$block"
