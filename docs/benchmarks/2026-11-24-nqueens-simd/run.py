#!/usr/bin/env python3
"""The N-Queens counting kernels and the bulk rows, fastest of N rounds.

    python3 docs/benchmarks/2026-11-24-nqueens-simd/run.py [--repeat 5]
        [--boards 15,16] [--bulk-rows 10,11,12,13]

Builds `crates/apps/examples/fine_grain.rs` (release) and, for each board,
runs in every round, alternating: every kernel this processor has
(`kernel-portable`, `kernel-bmi`, `kernel-avx512`: `count_sequential`) and
`seq` (the DFS loop over `expand`) with each `FINE_GRAIN_BULK_ROWS`. Prints
the fastest wall time of the rounds, ns per node of the whole tree, and
`seq` over the fastest kernel.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--boards", default="15,16")
    ap.add_argument("--bulk-rows", default="10,11,12,13")
    args = ap.parse_args()
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "treelb-apps", "--example", "fine_grain"],
                   cwd=ROOT, check=True)
    exe = os.path.join(tempfile.mkdtemp(prefix="nqueens-simd-"), "fine_grain")
    shutil.copy2(target / "release" / "examples" / "fine_grain", exe)
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    for n in args.boards.split(","):
        runs = []
        for kernel in ("portable", "bmi", "avx512"):
            probe = subprocess.run([exe, f"kernel-{kernel}", "nqueens:4"], capture_output=True)
            if probe.returncode == 0:
                runs.append((f"kernel-{kernel}", None))
        runs += [("seq", rows) for rows in args.bulk_rows.split(",")]
        best = {}
        nodes = None
        for _ in range(args.repeat):
            for engine, rows in runs:
                env = dict(os.environ)
                env.pop("FINE_GRAIN_BULK_ROWS", None)
                if rows is not None:
                    env["FINE_GRAIN_BULK_ROWS"] = rows
                out = subprocess.run([exe, engine, f"nqueens:{n}"], capture_output=True, text=True,
                                     env=env, timeout=600)
                if out.returncode != 0:
                    sys.exit(f"run.py: {engine} nqueens:{n} failed: {out.stderr.strip()}")
                _, _, wall, count, _ = out.stdout.split()
                nodes = int(count)
                key = (engine, rows)
                best[key] = min(best.get(key, float("inf")), float(wall))
        fastest = min(t for (e, _), t in best.items() if e.startswith("kernel"))
        print(f"\nn = {n}: {nodes} nodes, fastest of {args.repeat} rounds")
        print("| engine | bulk rows | wall s | ns/node | over the fastest kernel |")
        print("|---|---|---|---|---|")
        for (engine, rows), t in best.items():
            print(f"| {engine} | {rows or '–'} | {t:.3f} | {t * 1e9 / nodes:.2f} | {(t / fastest - 1) * 100:+.1f} % |")
    print(f"\nload average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
