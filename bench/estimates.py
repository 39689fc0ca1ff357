#!/usr/bin/env python3
"""The gate's estimates against real runs (bench/estimates.tsv).

Every command whose work can grow (map, replay, calmant, butterfly,
fft-study, simulate) estimates its time and peak memory before it runs
(src/cli/budget.h, docs/cli.md "Time and memory before work"). This script
keeps those estimates honest on a fixed table of sizes, at least 20 a
command:

  measure  runs every row for real (median of --reps runs: the child's CPU
           time, user + system, which is its wall time on an idle core, and
           its peak resident size from wait4's ru_maxrss) and writes the
           table: command, size, estimate and run for time and memory, and
           both ratios.
  estimate recomputes only the estimates of the stored table (the runs
           stay: they do not depend on the estimator) and rewrites it.
  markdown prints the table and the summary as Markdown (bench/README.md,
           docs/cli.md).
  check    recomputes only the estimates (each row under --max-time 1e-9,
           which refuses at once and names them) and fails when one differs
           from the stored estimate (the estimator changed without a new
           measurement) or is more than 3x from the stored run either way.
           --remeasure N also reruns the N cheapest rows (3x tolerance).

Inputs the rows read (GOAL schedules, traffic files) are made in a scratch
folder from fixed seeds, by kcube itself or by a seeded generator here, so
the table regenerates the same way.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

RATIO = 3.0       # the agreement asked of every estimate, both directions
SAME = 0.02       # a recomputed estimate equal to the stored one up to rounding
GRAIN = 0.02      # seconds: below, a time is start-up and the clock's grain; ratios count it as this

# ---- the table's rows: (command, size label, arguments after "kcube") ------------
# {tmp} is the scratch folder; inputs are made by make_inputs.


def rows_map():
    r = []
    for n, msgs, work in [(8, 10000, 0.4), (8, 100000, 0.4), (10, 10000, 0.4), (10, 30000, 0.4), (10, 100000, 0.4),
                          (10, 300000, 0.4), (10, 100000, 40), (12, 10000, 0.4), (12, 30000, 0.4),
                          (12, 100000, 0.4), (12, 300000, 0.4), (12, 1000000, 0.4), (12, 100000, 40),
                          (12, 1000000, 40), (14, 30000, 0.4), (14, 100000, 0.4), (14, 300000, 4)]:
        r.append(("map", f"--traffic {msgs} random on the {n}-cube, work {work:g}",
                  ["map", "--n", str(n), "--traffic", f"{{tmp}}/rand_{n}_{msgs}.txt", "--work", str(work)]))
    # A ring of 2^n ranks: sparse, so Scotch's time in the square of the
    # target's nodes shows alone.
    for n in (12, 14, 15, 16):
        r.append(("map", f"--traffic ring of 2^{n} ranks on the {n}-cube, work 0.4",
                  ["map", "--n", str(n), "--traffic", f"{{tmp}}/ring_{n}.txt", "--work", "0.4"]))
    for k, n, pat, work in [(2, 12, "transpose", 0.4), (2, 12, "bit-reverse", 4), (2, 14, "transpose", 0.4),
                            (2, 16, "transpose", 0.4), (2, 12, "transpose", 40), (8, 4, "transpose", 0.4),
                            (16, 4, "transpose", 0.4)]:
        net = f"{n}-cube" if k == 2 else f"{k}-ary {n}-cube"
        r.append(("map", f"--kind general {pat} on the {net}, work {work:g}",
                  ["map", "--k", str(k), "--n", str(n), "--pattern", pat, "--kind", "general", "--work", str(work)]))
    return r


FFT_GOALS = [(8, 12), (8, 14), (8, 16), (10, 12), (10, 14), (10, 16), (12, 14), (12, 16)]
A2A_GOALS = [(4, 2), (6, 2), (6, 3), (8, 2)]


def rows_replay():
    r = []
    for n, logm in FFT_GOALS:
        r.append(("replay", f"FFT of 2^{n} ranks, 2^{logm} points, on the {n}-cube",
                  ["replay", f"{{tmp}}/fft_{n}_{logm}.goal", "--n", str(n)]))
    for d, c in A2A_GOALS:
        r.append(("replay", f"mesh all-to-all of 2^{d} ranks ({c} axes), on the {d}-cube",
                  ["replay", f"{{tmp}}/a2a_{d}_{c}.goal", "--n", str(d)]))
    for n, big in [(8, 16), (8, 18), (8, 20)]:
        r.append(("replay", f"FFT of 2^{n} ranks, 2^14 points, on 2^{big} nodes",
                  ["replay", f"{{tmp}}/fft_{n}_14.goal", "--n", str(big)]))
    for n, logm in [(10, 16), (12, 16)]:
        r.append(("replay", f"FFT of 2^{n} ranks, 2^{logm} points, --model loggops",
                  ["replay", f"{{tmp}}/fft_{n}_{logm}.goal", "--model", "loggops"]))
    for d, c in [(6, 2), (6, 3), (8, 2)]:
        r.append(("replay", f"mesh all-to-all of 2^{d} ranks ({c} axes), --model loggops",
                  ["replay", f"{{tmp}}/a2a_{d}_{c}.goal", "--model", "loggops"]))
    return r


def rows_calmant():
    r = []
    for d in [16, 18, 20, 22]:
        r.append(("calmant", f"load d = {d}, c = 2", ["calmant", "load", "--d", str(d), "--c", "2", "--task",
                                                       f"0,{d}"]))
    for d in [14, 16, 18]:
        r.append(("calmant", f"schedule d = {d}, c = 2, verified",
                  ["calmant", "schedule", "--d", str(d), "--c", "2", "--task", f"0,{d}", "--verify"]))
    for d in [12, 14, 16]:
        r.append(("calmant", f"schedule d = {d} on a torus",
                  ["calmant", "schedule", "--d", str(d), "--c", "2", "--task", f"0,{d}", "--topology", "torus"]))
    for d, c in [(6, 2), (6, 3), (8, 2), (9, 3), (10, 2), (12, 2), (12, 3)]:
        r.append(("calmant", f"alltoall d = {d}, c = {c}",
                  ["calmant", "alltoall", "--d", str(d), "--c", str(c), "--block", "4K"]))
    for d, c in [(4, 2), (6, 2), (6, 3), (8, 2)]:
        r.append(("calmant", f"alltoall d = {d}, c = {c} --emit-goal",
                  ["calmant", "alltoall", "--d", str(d), "--c", str(c), "--block", "4K", "--no-replay", "--methods",
                   "calmant", "--emit-goal", "{tmp}/emit.goal"]))
    return r


def rows_butterfly():
    r = []
    for n, p, method in [(4, 16, "direct"), (4, 18, "direct"), (4, 20, "direct"), (4, 22, "direct"),
                         (8, 16, "multisect"), (8, 18, "multisect"), (8, 20, "multisect"), (8, 22, "multisect"),
                         (10, 18, "bisect-local"), (10, 20, "bisect-local"), (10, 22, "bisect-local"),
                         (2, 20, "direct"), (12, 20, "multisect"), (12, 22, "multisect")]:
        r.append(("butterfly", f"--n {n} --p {p} {method}",
                  ["butterfly", "--n", str(n), "--p", str(p), "--method", method]))
    for n, p in [(1, 16), (1, 18), (1, 20), (4, 20), (8, 20)]:
        r.append(("butterfly", f"--n {n} --p {p} direct --fft",
                  ["butterfly", "--n", str(n), "--p", str(p), "--method", "direct", "--fft"]))
    for n, p in [(4, 14), (6, 16), (8, 18)]:
        r.append(("butterfly", f"--n {n} --p {p} direct --plot",
                  ["butterfly", "--n", str(n), "--p", str(p), "--method", "direct", "--plot", "{tmp}/b.svg"]))
    return r


def rows_fft():
    r = []
    for n, top, conf in [(2, 16, "ecube"), (2, 18, "ecube"), (4, 16, "ecube"), (4, 18, "ecube"), (6, 16, "ecube"),
                         (6, 18, "ecube"), (8, 16, "ecube"), (8, 18, "ecube"), (10, 16, "ecube"), (10, 18, "ecube"),
                         (12, 16, "ecube"), (12, 18, "ecube"), (4, 16, "all"), (6, 16, "all"), (8, 16, "all"),
                         (10, 16, "all")]:
        r.append(("fft-study", f"--n {n} up to 2^{top} points, {conf}",
                  ["fft-study", "--n", str(n), "--points", f"2^{top}"] +
                  ([] if conf == "all" else ["--configs", conf])))
    for n in [3, 5, 7, 9, 11]:
        r.append(("fft-study", f"--n {n} 2^13, 2^15, 2^17 points, ecube",
                  ["fft-study", "--n", str(n), "--points", "2^13,2^15,2^17", "--configs", "ecube"]))
    return r


def rows_simulate():
    r = []
    for n, pat, rate, cyc in [(8, "uniform", 0.1, 100000), (8, "uniform", 0.3, 50000), (10, "uniform", 0.1, 20000),
                              (10, "transpose", 0.1, 20000), (10, "uniform", 0.4, 5000), (12, "uniform", 0.1, 2000),
                              (12, "uniform", 0.3, 2000), (12, "transpose", 0.2, 2000), (14, "uniform", 0.1, 1000),
                              (14, "transpose", 0.1, 1000), (14, "transpose", 0.05, 2000), (16, "uniform", 0.1, 500),
                              (16, "uniform", 0.05, 1000), (16, "transpose", 0.02, 500)]:
        r.append(("simulate", f"{n}-cube {pat} {rate:g}, {cyc} cycles",
                  ["simulate", "--n", str(n)] + (["--uniform"] if pat == "uniform" else ["--pattern", pat]) +
                  ["--rate", str(rate), "--measure", str(cyc), "--drain", str(cyc), "--threads", "1"]))
    for k, n, rate, cyc in [(8, 2, 0.2, 50000), (16, 2, 0.2, 20000), (8, 3, 0.1, 20000), (16, 3, 0.05, 5000)]:
        r.append(("simulate", f"{k}-ary {n}-cube uniform {rate:g}, {cyc} cycles",
                  ["simulate", "--k", str(k), "--n", str(n), "--uniform", "--rate", str(rate), "--measure", str(cyc),
                   "--drain", str(cyc), "--threads", "1"]))
    for n in [14, 16, 18]:
        r.append(("simulate", f"{n}-cube transpose one-shot",
                  ["simulate", "--n", str(n), "--pattern", "transpose", "--oneshot", "--threads", "1"]))
    return r


def all_rows():
    return rows_map() + rows_replay() + rows_calmant() + rows_butterfly() + rows_fft() + rows_simulate()


# ---- inputs ---------------------------------------------------------------------------

def make_inputs(kcube, tmp, rows):
    """The files the rows read, from fixed seeds; only those the rows name."""
    need = {a for _, _, argv in rows for a in argv if "{tmp}/" in a}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "check": True}
    for name in sorted(need):
        base = os.path.basename(name)
        path = name.replace("{tmp}", tmp)
        kind, *num = os.path.splitext(base)[0].split("_")
        if kind == "rand":
            n, msgs = int(num[0]), int(num[1])
            rng = random.Random(n * 1000003 + msgs)
            with open(path, "w") as f:
                f.write("".join(f"{rng.randrange(1 << n)} {rng.randrange(1 << n)} 1\n" for _ in range(msgs)))
        elif kind == "ring":
            n = int(num[0])
            with open(path, "w") as f:
                f.write("".join(f"{v} {(v + 1) % (1 << n)} 1\n" for v in range(1 << n)))
        elif kind == "fft":
            subprocess.run([kcube, "fft-study", "--n", num[0], "--points", f"2^{num[1]}", "--configs", "ecube",
                            "--emit-goal", path, "--max-time", "0"], **quiet)
        elif kind == "a2a":
            subprocess.run([kcube, "calmant", "alltoall", "--d", num[0], "--c", num[1], "--block", "4K",
                            "--no-replay", "--methods", "calmant", "--emit-goal", path, "--max-time", "0"], **quiet)


# ---- estimates and runs ------------------------------------------------------------------

UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4}
LINE = re.compile(r"needs about ([0-9.e+-]+) s and ([0-9.]+) (B|KiB|MiB|GiB|TiB)")


def estimate(kcube, argv):
    """(seconds, bytes) the gate names when refusing under --max-time 1e-9."""
    p = subprocess.run([kcube] + argv + ["--max-time", "1e-9"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    m = LINE.search(p.stderr)
    if not m:
        raise SystemExit(f"no estimate from: kcube {' '.join(argv)}\n{p.stderr}")
    return float(m.group(1)), float(m.group(2)) * UNITS[m.group(3)]


def run_once(kcube, argv, timeout, tmp):
    """(cpu seconds, wall seconds, peak bytes) of one real run, measured by
    /usr/bin/time (a child of this script would count the script's own
    memory, copied before the exec, in its peak)."""
    rep = os.path.join(tmp, "time.txt")
    cmd = ["/usr/bin/time", "-o", rep, "-f", "%U %S %e %M", kcube] + argv + ["--max-time", "0"]
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"timed out: kcube {' '.join(argv)}")
    if p.returncode != 0:
        raise SystemExit(f"failed ({p.returncode}): kcube {' '.join(argv)}")
    with open(rep) as f:
        user, system, wall, kib = f.read().split()[-4:]
    return float(user) + float(system), float(wall), int(kib) * 1024


def median(v):
    s = sorted(v)
    return s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2


def measure(kcube, argv, reps, timeout, tmp):
    runs = [run_once(kcube, argv, timeout, tmp) for _ in range(reps)]
    return median([r[0] for r in runs]), median([r[1] for r in runs]), median([r[2] for r in runs])


def subst(argv, tmp):
    return [a.replace("{tmp}", tmp) for a in argv]


# ---- the table ------------------------------------------------------------------------------

HEADER = ["command", "size", "est_s", "run_s", "time_ratio", "est_bytes", "peak_bytes", "mem_ratio", "wall_s"]


def write_table(path, rows):
    with open(path, "w") as f:
        f.write("\t".join(HEADER) + "\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")


def read_table(path):
    with open(path) as f:
        lines = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    return [dict(zip(lines[0], l)) for l in lines[1:]]


def ratios(table):
    """(command, its time ratios, its memory ratios) in the table's order."""
    for cmd in dict.fromkeys(r["command"] for r in table):
        yield (cmd, [float(r["time_ratio"]) for r in table if r["command"] == cmd],
               [float(r["mem_ratio"]) for r in table if r["command"] == cmd])


def summary(table):
    """min / median / max of both ratios per command."""
    return "\n".join(f"{cmd:10} {len(t):3} rows  time {min(t):.2f} {median(t):.2f} {max(t):.2f}"
                     f"  memory {min(m):.2f} {median(m):.2f} {max(m):.2f}" for cmd, t, m in ratios(table))


def do_measure(args, tmp):
    out = []
    for cmd, size, argv in all_rows():
        if (args.only and cmd not in args.only) or (args.row and not any(x in size for x in args.row)):
            continue
        av = subst(argv, tmp)
        es, eb = estimate(args.kcube, av)
        cpu, wall, peak = measure(args.kcube, av, args.reps, args.timeout, tmp)
        row = [cmd, size, f"{es:g}", f"{cpu:.3f}", f"{time_ratio(es, cpu):.2f}", f"{eb:.0f}", f"{peak:.0f}",
               f"{eb / peak:.2f}", f"{wall:.3f}"]
        print("\t".join(row), flush=True)
        out.append(row)
    if (args.only or args.row) and os.path.exists(args.table):  # keep the other commands' stored rows, in the script's order
        new = {(r[0], r[1]): r for r in out}
        old = {(r["command"], r["size"]): [r[h] for h in HEADER] for r in read_table(args.table)}
        out = [new.get((c, s)) or old.get((c, s)) for c, s, _ in all_rows() if (c, s) in new or (c, s) in old]
    write_table(args.table, out)
    print(summary(read_table(args.table)))
    return 0


def time_ratio(est, run):
    return max(est, GRAIN) / max(run, GRAIN)


def mib(b):
    return f"{float(b) / 1024 ** 2:.1f}"


def markdown(table):
    out = ["| command | size | estimate s | run s | ratio | estimate MiB | peak MiB | ratio |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in table:
        out.append(f"| {r['command']} | {r['size']} | {r['est_s']} | {r['run_s']} | {r['time_ratio']} | "
                   f"{mib(r['est_bytes'])} | {mib(r['peak_bytes'])} | {r['mem_ratio']} |")
    out += ["", "| command | rows | time ratio min / median / max | memory ratio min / median / max |",
            "| --- | ---: | --- | --- |"]
    for cmd, t, m in ratios(table):
        out.append(f"| {cmd} | {len(t)} | {min(t):.2f} / {median(t):.2f} / {max(t):.2f} | "
                   f"{min(m):.2f} / {median(m):.2f} / {max(m):.2f} |")
    return "\n".join(out)


def do_estimate(args, tmp):
    rows = {(c, s): a for c, s, a in all_rows()}
    out = []
    for r in read_table(args.table):
        es, eb = estimate(args.kcube, subst(rows[(r["command"], r["size"])], tmp))
        run, peak = float(r["run_s"]), float(r["peak_bytes"])
        out.append([r["command"], r["size"], f"{es:g}", r["run_s"], f"{time_ratio(es, run):.2f}", f"{eb:.0f}",
                    r["peak_bytes"], f"{eb / peak:.2f}", r["wall_s"]])
    write_table(args.table, out)
    print(summary(read_table(args.table)))
    return 0


def off(ratio):
    return not (1 / RATIO <= ratio <= RATIO)


def do_check(args, tmp):
    table = read_table(args.table)
    rows = {(c, s): a for c, s, a in all_rows()}
    bad = 0
    for r in table:
        key = (r["command"], r["size"])
        if key not in rows:
            print(f"FAIL {key}: a stored row the script no longer has")
            bad += 1
            continue
        es, eb = estimate(args.kcube, subst(rows[key], tmp))
        for what, now, stored, run in [("time", es, float(r["est_s"]), float(r["run_s"])),
                                       ("memory", eb, float(r["est_bytes"]), float(r["peak_bytes"]))]:
            if abs(now - stored) > SAME * stored + (0.0011 if what == "time" else 0.11 * 1024 ** 2):
                print(f"FAIL {key}: {what} estimate {now:g} is not the stored {stored:g} (re-measure the table)")
                bad += 1
            ratio = time_ratio(now, run) if what == "time" else now / run
            if off(ratio):
                print(f"FAIL {key}: {what} estimate {now:g} is {ratio:.2f}x the measured {run:g}")
                bad += 1
    if len(table) != len(rows):
        print(f"FAIL the table has {len(table)} rows, the script {len(rows)}")
        bad += 1
    cheap = sorted(table, key=lambda r: float(r["run_s"]))[:args.remeasure]
    for r in cheap:
        key = (r["command"], r["size"])
        if key not in rows:
            continue
        av = subst(rows[key], tmp)
        es, eb = estimate(args.kcube, av)
        cpu, wall, peak = measure(args.kcube, av, 3, args.timeout, tmp)
        if off(time_ratio(es, cpu)) or off(eb / peak):
            print(f"FAIL {key} re-measured: {cpu:.3f} s and {peak:.0f} B against the estimates {es:g} s, {eb:.0f} B")
            bad += 1
    print(f"{len(table)} rows, {bad} failures")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["measure", "estimate", "check", "summary", "markdown"])
    ap.add_argument("--kcube", default="build/kcube")
    ap.add_argument("--table", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "estimates.tsv"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--only", action="append", help="measure only this command (repeatable)")
    ap.add_argument("--row", action="append", help="measure only the rows whose size contains this (repeatable)")
    ap.add_argument("--remeasure", type=int, default=0, help="check: also rerun this many of the cheapest rows")
    args = ap.parse_args()
    if args.mode in ("summary", "markdown"):
        print((summary if args.mode == "summary" else markdown)(read_table(args.table)))
        return 0
    tmp = tempfile.mkdtemp(prefix="kcube-estimates-")
    try:
        rows = [r for r in all_rows() if (not args.only or r[0] in args.only) and
                (not args.row or any(x in r[1] for x in args.row))]
        make_inputs(args.kcube, tmp, rows)
        if args.mode == "estimate":
            return do_estimate(args, tmp)
        return do_measure(args, tmp) if args.mode == "measure" else do_check(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
