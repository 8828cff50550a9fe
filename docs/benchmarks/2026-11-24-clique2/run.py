#!/usr/bin/env python3
"""Maximum clique beside cliquer and the Glasgow Subgraph Solver.

usage: python3 docs/benchmarks/2026-11-24-clique2/run.py --glasgow PATH --cliquer PATH
           [--rounds N] [--bin PATH] [--instances DIR] [--tier easy|hard|both]
           [--cliquer-timeout S] [--hard-limit S] [--hard NAME,...] [--suffix S]

Builds the release binary (cargo build --release -p treelb-cli; the target
directory is $CARGO_TARGET_DIR or target/) unless --bin names one. The DIMACS
files are read from --instances (default: ../shared/instances/clique beside the
repository); the peers get a cleaned copy in a temporary directory (CR removed,
only `p` and `e` lines: the Glasgow solver rejects CRLF and comments, cliquer a
trailing `END`), treelb the file itself.

Easy tier: every instance N rounds (default 3), the engines in an order rotated
each round so that a change in the machine's load hits every engine alike:
treelb at P = 1 and P = 2 (`treelb clique --threads P --json`), the Glasgow
solver (`glasgow_clique_solver --format dimacs`) and cliquer (`cliquer -su -q
-q`, with a timeout; after one timeout it is not run again on that file). The
time is the whole process's wall time, the fastest of the rounds. Hard tier
(brock400_2, keller5): one round, each engine with a time limit (treelb
`--time-limit`, Glasgow `--timeout`), cliquer not run. Every answer is checked
against the published clique number. Writes results.md and results.json next
to this script (results-hard.* for the hard tier); --suffix S writes
resultsS.* and results-hardS.* instead. --hard names the hard instances to run
(default: brock400_2,keller5).

Goals: treelb at P = 1 within 0.5 of the Glasgow solver's time on every
instance, speedup P = 1 / P = 2 at least 1.9, the hard tier solved with proof.
"""
import argparse, json, os, re, resource, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
# Published clique numbers (DIMACS second challenge).
OMEGA = {"brock200_1": 21, "brock200_4": 17, "C125.9": 34, "p_hat300-1": 8, "gen200_p0.9_44": 44,
         "MANN_a27": 126, "p_hat700-1": 11, "p_hat700-2": 44, "brock400_2": 29, "keller5": 27}
EASY = ["brock200_1", "brock200_4", "C125.9", "p_hat300-1", "gen200_p0.9_44", "MANN_a27",
        "p_hat700-1", "p_hat700-2"]
HARD = ["brock400_2", "keller5"]
# The benchmark instances, beside the repository (`--instances` overrides).
INSTANCES = os.path.abspath(os.path.join(ROOT, "..", "shared", "instances", "clique"))
RATIO_GOAL, SPEEDUP_GOAL = 0.5, 1.9
# The output files are results{SUFFIX}.md/.json and results-hard{SUFFIX}.md/.json.
SUFFIX = ""


LAST_CPU = [None]


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, timeout):
    """(wall seconds, stdout) of a process, or (None, None) past the timeout;
    its CPU seconds (user + system) in LAST_CPU[0]: on a loaded machine the
    CPU time is the figure that does not depend on the other work."""
    t, c = time.perf_counter(), children_cpu()
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None
    wall = time.perf_counter() - t
    LAST_CPU[0] = children_cpu() - c
    if p.returncode not in (0, 3):
        sys.exit(f"run.py: `{' '.join(cmd)}` failed with exit code {p.returncode}: {p.stderr.decode()[-400:]}")
    return wall, p.stdout.decode()


def run_treelb(binary, path, p, limit):
    cmd = [binary, "clique", path, "--threads", str(p), "--json", "--no-progress"]
    if limit:
        cmd += ["--time-limit", f"{limit}s"]
    wall, out = timed(cmd, (limit or 3600) + 60)
    if wall is None:
        sys.exit(f"run.py: `{' '.join(cmd)}` did not stop at its time limit")
    d = json.loads(out)
    a = d["answer"]
    return {"secs": wall, "cpu": LAST_CPU[0], "omega": a["omega"], "nodes": a["branched"],
            "proven": a["proven_optimal"], "bound": a.get("bound"), "interrupted": d["interrupted"],
            "nodes_per_sec": d["units_per_sec"], "efficiency_estimate": d.get("efficiency_estimate"),
            "busy": [pe["busy"] for pe in d.get("pes", [])]}


def run_glasgow(binary, path, limit):
    cmd = [binary, "--format", "dimacs", path] + (["--timeout", str(limit)] if limit else [])
    wall, out = timed(cmd, (limit or 3600) + 60)
    if wall is None:
        return {"secs": None}
    kv = dict(re.findall(r"^(\w+) = (.*)$", out, re.M))
    proven = kv.get("status") == "true" and "aborted" not in out
    return {"secs": wall, "cpu": LAST_CPU[0], "omega": int(kv["omega"]) if "omega" in kv else None,
            "nodes": int(kv["nodes"]) if "nodes" in kv else None, "proven": proven}


def run_cliquer(binary, path, timeout):
    wall, out = timed([binary, "-su", "-q", "-q", path], timeout)
    if wall is None:
        return {"secs": None}
    m = re.search(r"size=(\d+)", out)
    return {"secs": wall, "cpu": LAST_CPU[0], "omega": int(m.group(1)) if m else None, "proven": True}


def clean_copy(src, dst):
    with open(src, "rb") as f, open(dst, "wb") as g:
        for line in f.read().replace(b"\r", b"").split(b"\n"):
            if line.startswith(b"p ") or line.startswith(b"e "):
                g.write(line + b"\n")


def fastest(runs):
    times = [r["secs"] for r in runs if r.get("secs") is not None]
    return min(times) if times else None


def fastest_cpu(runs):
    times = [r["cpu"] for r in runs if r.get("secs") is not None and r.get("cpu") is not None]
    return min(times) if times else None


def check(name, engine, r):
    if r.get("secs") is None or not r.get("proven", True):
        return
    if r.get("omega") != OMEGA[name]:
        sys.exit(f"run.py: {engine} says ω = {r.get('omega')} on {name}, published {OMEGA[name]}")


def build_treelb():
    """Builds the release `treelb` and returns its path."""
    subprocess.run(["cargo", "build", "--release", "--locked", "-p", "treelb-cli"], cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
    return os.path.join(target, "release", "treelb")


def fmt(x, digits=3):
    return "—" if x is None else f"{x:.{digits}f}"


def names(value):
    """A comma-separated list of instance names (`--only`, `--hard`)."""
    return value.split(",")


def main():
    global HARD, SUFFIX
    ap = argparse.ArgumentParser(description="Maximum clique beside cliquer and the Glasgow Subgraph Solver.")
    ap.add_argument("--glasgow", required=True, help="the Glasgow solver's glasgow_clique_solver")
    ap.add_argument("--cliquer", required=True, help="cliquer's binary")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the easy tier (default 3)")
    ap.add_argument("--bin", help="a treelb binary (default: build one)")
    ap.add_argument("--instances", default=INSTANCES, help="the folder of the .clq files")
    ap.add_argument("--tier", choices=["easy", "hard", "both"], default="easy")
    ap.add_argument("--cliquer-timeout", type=float, default=60.0, help="seconds (default 60)")
    ap.add_argument("--hard-limit", type=int, default=1800, help="seconds per engine (default 1800)")
    ap.add_argument("--hard", type=names, default=HARD, help="NAME,... (default: brock400_2,keller5)")
    ap.add_argument("--suffix", default=SUFFIX, help="writes resultsS.* and results-hardS.*")
    # A suffix usually starts with a dash (`--suffix -quiet`), which
    # argparse would take for an option: hand it over as `--suffix=VALUE`.
    argv = sys.argv[1:]
    for i in range(len(argv) - 1):
        if argv[i] == "--suffix":
            argv[i:i + 2] = [f"--suffix={argv[i + 1]}"]
            break
    a = ap.parse_args(argv)
    unknown = [n for n in a.hard if n not in OMEGA]
    if unknown:
        ap.error(f"--hard takes instances of {', '.join(OMEGA)}, not {', '.join(unknown)}")
    HARD, SUFFIX = a.hard, a.suffix
    rounds, binary, glasgow, cliquer, tier = a.rounds, a.bin, a.glasgow, a.cliquer, a.tier
    instances, cliquer_timeout, hard_limit = a.instances, a.cliquer_timeout, a.hard_limit
    if binary is None:
        binary = build_treelb()
    tmp = tempfile.mkdtemp(prefix="clique-bench-")
    meta = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "load_before": os.getloadavg(),
            "rounds": rounds, "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                                       capture_output=True, text=True).stdout.strip()}
    if tier in ("easy", "both"):
        easy(binary, glasgow, cliquer, instances, tmp, rounds, cliquer_timeout, meta)
    if tier in ("hard", "both"):
        hard(binary, glasgow, instances, tmp, hard_limit, meta)


def easy(binary, glasgow, cliquer, instances, tmp, rounds, cliquer_timeout, meta):
    engines = ["treelb P=1", "treelb P=2", "glasgow", "cliquer"]
    meta["cliquer_timeout"] = cliquer_timeout
    res = {n: {e: [] for e in engines} for n in EASY}
    for r in range(rounds):
        for name in EASY:
            src = os.path.join(instances, name + ".clq")
            clean = os.path.join(tmp, name + ".clq")
            if r == 0:
                clean_copy(src, clean)
            order = engines[r % 4:] + engines[:r % 4]
            for e in order:
                if e == "treelb P=1":
                    x = run_treelb(binary, src, 1, None)
                elif e == "treelb P=2":
                    x = run_treelb(binary, src, 2, None)
                elif e == "glasgow":
                    x = run_glasgow(glasgow, clean, None)
                else:
                    if any(y["secs"] is None for y in res[name][e]):
                        continue
                    x = run_cliquer(cliquer, clean, cliquer_timeout)
                check(name, e, x)
                res[name][e].append(x)
                print(f"round {r + 1} {name} {e}: {fmt(x['secs'])} s", file=sys.stderr)
    meta["load_after"] = os.getloadavg()
    rows, verdict = [], True
    for name in EASY:
        t = {e: fastest(res[name][e]) for e in engines}
        nodes = {e: (res[name][e][0].get("nodes") if res[name][e] else None) for e in engines}
        cpu = {e: fastest_cpu(res[name][e]) for e in engines}
        ratio = t["treelb P=1"] / t["glasgow"]
        cpu_ratio = cpu["treelb P=1"] / cpu["glasgow"]
        speedup = t["treelb P=1"] / t["treelb P=2"]
        eff = max((x.get("efficiency_estimate") or 0) for x in res[name]["treelb P=2"])
        ok = ratio <= RATIO_GOAL and speedup >= SPEEDUP_GOAL
        verdict &= ok
        rows.append({"instance": name, "omega": OMEGA[name], "secs": t, "cpu": cpu, "nodes": nodes,
                     "p1_over_glasgow": ratio, "p1_over_glasgow_cpu": cpu_ratio, "speedup_p2": speedup,
                     "efficiency_estimate_p2": eff, "meets_goals": ok})
    meta["all_goals_met"] = verdict
    with open(os.path.join(HERE, f"results{SUFFIX}.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows, "runs": res}, f, indent=1)
    lines = [f"Run at {meta['started']} on commit {meta['commit']}, {meta['rounds']} rounds, fastest shown; "
             f"load average before {meta['load_before'][0]:.1f}, after {meta['load_after'][0]:.1f}.", "",
             "| instance | ω | treelb P=1 s | nodes | treelb P=2 s | Glasgow s | Glasgow nodes | cliquer s "
             "| P=1 / Glasgow (≤ 0.5) | same, CPU time | speedup P=2 (≥ 1.9) | P=2 efficiency estimate | goals |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for row in rows:
        t, n = row["secs"], row["nodes"]
        cl = fmt(t["cliquer"], 2) if t["cliquer"] is not None else f"> {meta['cliquer_timeout']:g}"
        lines.append(f"| {row['instance']} | {row['omega']} | {fmt(t['treelb P=1'])} | {n['treelb P=1']} | "
                     f"{fmt(t['treelb P=2'])} | {fmt(t['glasgow'])} | {n['glasgow']} | {cl} | "
                     f"{row['p1_over_glasgow']:.2f} | {row['p1_over_glasgow_cpu']:.2f} | {row['speedup_p2']:.2f} | "
                     f"{row['efficiency_estimate_p2']:.2f} | "
                     f"{'met' if row['meets_goals'] else 'NOT met'} |")
    lines += ["", f"All goals met: {'yes' if verdict else 'no'}."]
    with open(os.path.join(HERE, f"results{SUFFIX}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def hard(binary, glasgow, instances, tmp, limit, meta):
    rows = []
    for name in HARD:
        src = os.path.join(instances, name + ".clq")
        clean = os.path.join(tmp, name + ".clq")
        clean_copy(src, clean)
        row = {"instance": name, "omega": OMEGA[name], "limit_secs": limit}
        for e in ["treelb P=1", "treelb P=2", "glasgow"]:
            x = run_glasgow(glasgow, clean, limit) if e == "glasgow" else \
                run_treelb(binary, src, int(e[-1]), limit)
            check(name, e, x)
            row[e] = x
            print(f"{name} {e}: {x}", file=sys.stderr)
        rows.append(row)
    meta["load_after_hard"] = os.getloadavg()
    with open(os.path.join(HERE, f"results-hard{SUFFIX}.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    lines = [f"Run at {meta['started']} on commit {meta['commit']}, one round, time limit {limit} s; load "
             f"average before {meta['load_before'][0]:.1f}, after {meta['load_after_hard'][0]:.1f}.", "",
             "| instance | ω | engine | s | CPU s | nodes | result |", "|---|---:|---|---:|---:|---:|---|"]
    for row in rows:
        for e in ["treelb P=1", "treelb P=2", "glasgow"]:
            x = row[e]
            if x.get("proven"):
                result = f"ω = {x['omega']}, proven"
            elif e.startswith("treelb"):
                result = f"stopped: best {x['omega']}, bound ≤ {x['bound']}, {x['nodes_per_sec']:.0f} nodes/s"
            else:
                result = "stopped at the time limit"
            lines.append(f"| {row['instance']} | {row['omega']} | {e} | {fmt(x.get('secs'), 1)} | {fmt(x.get('cpu'), 1)} | "
                         f"{x.get('nodes', '—')} | {result} |")
    with open(os.path.join(HERE, f"results-hard{SUFFIX}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
