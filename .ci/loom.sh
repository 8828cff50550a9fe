#!/usr/bin/env bash
# Model-checks the concurrency protocols of the threads runtime (the
# mailbox, the termination counter and the PEs' turns on threads) with
# loom: the models in
# crates/threads/src/loom_tests.rs, built with `--cfg loom` so that
# crates/threads/src/sync.rs hands them loom's atomics and mutex.
#
# Usage: .ci/loom.sh [test-binary args...]   e.g. .ci/loom.sh --nocapture
# (--nocapture shows how many executions each model explored.)
#
# LOOM_MAX_PREEMPTIONS bounds the two models with three threads that all
# wait for each other (the other models always run exhaustively). 3 is the
# default: the bugs these models are known to catch (donor counts after
# publishing, relaxed request slot, relaxed termination counter) need at
# most two preemptions; bound 3 explores ~46,000 executions of the two in
# about 4 s, while 4 takes ~35 s and 5 ~4.5 min (all pass). Raise it for a
# deeper run: LOOM_MAX_PREEMPTIONS=5 .ci/loom.sh
#
# Own target dir: `--cfg loom` changes every crate's flags, and sharing
# target/ would rebuild everything for the normal builds each time.
# The release profile's LTO and single codegen unit only slow the build
# down here; the models run as fast without them.
set -euo pipefail
cd "$(dirname "$0")/.."

export LOOM_MAX_PREEMPTIONS="${LOOM_MAX_PREEMPTIONS:-3}"
export RUSTFLAGS="${RUSTFLAGS:-} --cfg loom"
export CARGO_PROFILE_RELEASE_LTO=false
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16

echo "loom: LOOM_MAX_PREEMPTIONS=$LOOM_MAX_PREEMPTIONS"
cargo test -p treelb-threads --release --locked --target-dir target/loom --lib loom_tests:: -- "$@"
