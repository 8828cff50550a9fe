#!/usr/bin/env bash
# The minimum supported Rust version, checked without a second toolchain
# (this machine's rustup cannot fetch one): every crate of the workspace
# inherits the workspace's `rust-version`; no dependency built on Linux
# declares a newer one; and clippy's `incompatible_msrv` lint (part of the
# lints step, -D warnings) refuses standard library items newer than it in
# the workspace's own code.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo metadata --format-version 1 --locked --filter-platform x86_64-unknown-linux-gnu | python3 -c '
import json, sys
m = json.load(sys.stdin)
version = lambda v: tuple(int(x) for x in (v.split(".") + ["0", "0"])[:3])
members = set(m["workspace_members"])
packages = {p["id"]: p for p in m["packages"]}
ours = {packages[i]["rust_version"] for i in members}
if len(ours) != 1 or None in ours:
    sys.exit(f"every workspace crate must declare the workspace rust-version; found {sorted(map(str, ours))}")
msrv = ours.pop()
newer = sorted(
    "%s %s needs %s" % (p["name"], p["version"], p["rust_version"])
    for n in m["resolve"]["nodes"]
    for p in [packages[n["id"]]]
    if n["id"] not in members and p.get("rust_version") and version(p["rust_version"]) > version(msrv)
)
if newer:
    sys.exit(f"rust-version {msrv}, but: " + "; ".join(newer))
print(f"rust-version {msrv}: every crate declares it, no dependency needs more")
'
