#!/usr/bin/env python3
"""No collapse at extreme P: UTS T3 on P = 2, 1024 and 4096 threads under
every strategy, with computed verdicts.

usage: python3 docs/benchmarks/2026-11-24-extreme-p/run.py [--rounds N] [--bin PATH] [--out DIR]

Builds the release binary (cargo build --release -p treelb-cli; the target
directory is $CARGO_TARGET_DIR or target/) unless --bin names one, then runs
`treelb uts --tree T3 --threads P --strategy S --json --no-progress` for every
strategy S and P, N rounds (default 5), the order of the Ps rotated each round
so that a change in the machine's load hits every P alike. The time of a run
is the process's wall time (spawning, the run, joining, the report), the
fastest of the N rounds. The goal: P = 1024 within 1.5x and P = 4096 within
3x of P = 2's time. Every run must count T3's 4112897 nodes. Writes
results.md and results.json next to this script, or into DIR (created if
missing) with --out."""
import json, os, resource, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from others import LOADED_SHARE, OthersMeter  # noqa: E402  (docs/benchmarks/others.py)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
STRATEGIES = ["random-polling", "global-round-robin", "async-round-robin", "work-sharing",
              "extreme-work-sharing", "two-choice", "always-go-left", "max-load", "multilevel",
              "master-worker", "static-block", "static-cyclic", "static-random"]
PS = [2, 1024, 4096]
GOAL = {1024: 1.5, 4096: 3.0}
NODES = 4112897
TIMEOUT = 120


def main():
    args = sys.argv[1:]
    rounds, binary, out_dir = 5, None, HERE
    while args:
        a = args.pop(0)
        if a == "--rounds":
            rounds = int(args.pop(0))
        elif a == "--bin":
            binary = args.pop(0)
        elif a == "--out":
            out_dir = os.path.abspath(args.pop(0))
        else:
            sys.exit(f"run.py: unknown argument `{a}` (usage: run.py [--rounds N] [--bin PATH] [--out DIR])")
    if binary is None:
        subprocess.run(["cargo", "build", "--release", "--locked", "-p", "treelb-cli"], cwd=ROOT, check=True)
        target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
        binary = os.path.join(target, "release", "treelb")
    load_before = os.getloadavg()
    meter = OthersMeter()
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    res = {s: {p: {"process": [], "run": [], "cpu": []} for p in PS} for s in STRATEGIES}
    for r in range(rounds):
        order = PS[r % len(PS):] + PS[:r % len(PS)]
        for s in STRATEGIES:
            for p in order:
                cmd = [binary, "uts", "--tree", "T3", "--threads", str(p), "--strategy", s,
                       "--json", "--no-progress"]
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                try:
                    out = subprocess.run(cmd, check=True, capture_output=True, timeout=TIMEOUT).stdout
                except subprocess.TimeoutExpired:
                    sys.exit(f"run.py: `{' '.join(cmd)}` took more than {TIMEOUT} s")
                proc = time.perf_counter() - t
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                report = json.loads(out)
                nodes = report["answer"]["nodes"]
                if nodes != NODES:
                    sys.exit(f"run.py: `{' '.join(cmd)}` counted {nodes} nodes, not {NODES}")
                cell = res[s][p]
                cell["process"].append(proc)
                cell["run"].append(report["wall_secs"])
                cell["cpu"].append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
        print(f"round {r + 1}/{rounds} done", file=sys.stderr)
    load_after = os.getloadavg()
    # The share of the machine that other processes took during the runs.
    others_share = meter.share()
    write(res, rounds, binary, started, load_before, load_after, others_share, out_dir)


def write(res, rounds, binary, started, load_before, load_after, others_share, out_dir):
    quiet = others_share < LOADED_SHARE if others_share is not None else load_before[0] <= 0.5 * (os.cpu_count() or 1)
    lines = [
        "# No collapse at extreme P: UTS T3 on 2, 1024 and 4096 threads",
        "",
        f"Measured {started} with `python3 docs/benchmarks/2026-11-24-extreme-p/run.py --rounds {rounds}"
        + ("" if out_dir == HERE else f" --out {os.path.relpath(out_dir, ROOT)}") + "`",
        f"on a machine with {os.cpu_count()} cores (load average {load_before[0]:.1f} before,"
        f" {load_after[0]:.1f} after, which counts the runs' own threads"
        + ("" if others_share is None else
           f"; other processes took {100 * others_share:.1f} % of the cores while the runs ran")
        + "): "
        + ("the machine was otherwise idle." if quiet else
           "other work ran at the same time, so the times are noisy; re-run the command on"
           " a quiet machine to replace them."),
        "",
        "Time: the process's wall time, fastest of the rounds (the Ps alternate within"
        " each round). CPU: user + system time of that process, the lowest of the rounds."
        " Goal: P = 1024 within 1.5× and P = 4096 within 3× of P = 2. Every run counted"
        f" {NODES} nodes.",
        "",
        "| strategy | P = 2 | P = 1024 | ratio | verdict | P = 4096 | ratio | verdict | CPU 2 / 1024 / 4096 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    met = 0
    for s in STRATEGIES:
        best = {p: min(res[s][p]["process"]) for p in PS}
        cpu = {p: min(res[s][p]["cpu"]) for p in PS}
        row = [s, f"{best[2]:.3f} s"]
        all_met = True
        for p in (1024, 4096):
            ratio = best[p] / best[2]
            ok = ratio <= GOAL[p]
            all_met &= ok
            row += [f"{best[p]:.3f} s", f"{ratio:.2f}", "met" if ok else f"not met (> {GOAL[p]}×)"]
        row.append(" / ".join(f"{cpu[p]:.2f}" for p in PS) + " s")
        met += all_met
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", f"Both goals met by {met} of {len(STRATEGIES)} strategies.", ""]
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "results.md"), "w") as f:
        f.write("\n".join(lines))
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump({"started": started, "rounds": rounds, "load_before": load_before, "others_share": others_share,
                   "load_after": load_after, "binary": binary, "runs": res}, f, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
