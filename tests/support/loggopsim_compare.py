#!/usr/bin/env python3
"""`kcube replay --model loggops` against LogGOPSim on the seeded random
schedules of goal_random.py, under six parameter sets; every rank's finish
and the makespan, to the nanosecond.

  loggopsim_compare.py record [--first S] [--seeds N] [--out FILE] [--kcube K]
      Runs LogGOPSim ($LOGGOPSIM_DIR, default build/peers/loggopsim of
      this repository, made by bench/build_loggopsim.sh: its txt2bin and
      LogGOPSim, never committed) on seeds
      S .. S+N-1 (default 1, 48) under each set and writes its figures to
      FILE (default tests/data/loggopsim_conformance.txt). With --kcube,
      also runs kcube and prints how many runs agree. Exit 77 when
      LogGOPSim is absent.
  loggopsim_compare.py check --kcube K [--data FILE]
      Regenerates the schedules of FILE's seeds and checks kcube's figures
      against the stored ones (tests/cli_loggopsim_conformance.sh; no
      LogGOPSim needed). Prints each difference; exit 1 if any.

The data file: "# set NAME L,o,g,G,O,S" lines, then one line per run:
"SEED NAME MAKESPAN F0 F1 ..." (F = each rank's finish; LogGOPSim prints
them without -b on up to 16 ranks, which goal_random.py never exceeds), or
"SEED NAME fail" when LogGOPSim printed no times. The schedules are not
stored: goal_random.py rebuilds each from its seed.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import goal_random  # noqa: E402

# LogGOPSim's S is a uint32: its 4294967295 is kcube's S=inf for these sizes.
SETS = [
    ("defaults", (2500, 1500, 1000, 6, 0, 65535)),
    ("g0-O2", (2500, 1500, 0, 6, 2, 65535)),
    ("o0-Sinf", (2500, 0, 1000, 6, 0, 4294967295)),
    ("L250000-S0", (250000, 1500, 1000, 6, 0, 0)),
    ("S100-G40", (2500, 1500, 1000, 40, 0, 100)),
    ("o0-g0-ties", (1000, 0, 0, 0, 0, 65535)),
]
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.join(HERE, "..", "data", "loggopsim_conformance.txt")


def loggopsim(lgs_dir, goal, params):
    """LogGOPSim's per-rank finishes for the GOAL file goal, or None."""
    binf = goal + ".bin"
    subprocess.run([os.path.join(lgs_dir, "txt2bin"), "-i", goal, "-o", binf], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    args = [os.path.join(lgs_dir, "LogGOPSim"), "-f", binf]
    for flag, v in zip("LogGOS", params):
        args += ["-" + flag, str(v)]
    out = subprocess.run(args, check=False, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         universal_newlines=True).stdout
    fin = {}
    for line in out.splitlines():
        if line.startswith("Host ") and ":" in line:
            h, t = line[5:].split(":")
            fin[int(h)] = int(t)
    return [fin[r] for r in range(len(fin))] if fin else None


def kcube(k, goal, params):
    """kcube's per-rank finishes, or None when it refuses or fails."""
    spec = ",".join("%s=%d" % kv for kv in zip("LogGOS", params))
    p = subprocess.run([k, "replay", goal, "--model", "loggops", "--loggops", spec, "--csv"], check=False,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode:
        return None
    fin = {}
    for line in p.stdout.splitlines():
        if line.startswith("finish:"):
            r, t = line[7:].split(",")
            fin[int(r)] = int(t)
    return [fin[r] for r in range(len(fin))]


def row(seed, name, fin):
    if fin is None:
        return "%d %s fail" % (seed, name)
    return "%d %s %d %s" % (seed, name, max(fin), " ".join(map(str, fin)))


def write_goal(tmp, seed):
    path = os.path.join(tmp, "s%d.goal" % seed)
    with open(path, "w") as f:
        f.write(goal_random.schedule(seed))
    return path


def options(argv, known):
    """--NAME VALUE pairs of argv over the defaults in known (a dict)."""
    opts = dict(known)
    while argv:
        if len(argv) < 2 or not argv[0].startswith("--") or argv[0][2:] not in known:
            sys.exit("unknown option or missing value: " + argv[0])
        opts[argv[0][2:]], argv = argv[1], argv[2:]
    return opts


def record(argv):
    o = options(argv, {"first": "1", "seeds": "48", "out": DEFAULT_DATA, "kcube": None})
    first, n, out, k = int(o["first"]), int(o["seeds"]), o["out"], o["kcube"]
    lgs = os.environ.get("LOGGOPSIM_DIR") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "peers", "loggopsim")
    if not os.access(os.path.join(lgs, "LogGOPSim"), os.X_OK):
        print("LogGOPSim not found in %s (set LOGGOPSIM_DIR)" % lgs)
        return 77
    lines, agree, runs = [], 0, 0
    for name, p in SETS:
        lines.append("# set %s %s" % (name, ",".join(map(str, p))))
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(first, first + n):
            goal = write_goal(tmp, seed)
            for name, p in SETS:
                want = loggopsim(lgs, goal, p)
                lines.append(row(seed, name, want))
                if k:
                    got = kcube(k, goal, p)
                    runs += 1
                    agree += got == want
                    if got != want:
                        print("differs: seed %d %s: LogGOPSim %s, kcube %s" % (seed, name, want, got))
    with open(out, "w") as f:
        f.write("# LogGOPSim's figures on goal_random.py's schedules (loggopsim_compare.py record)\n")
        f.write("".join(l + "\n" for l in lines))
    if k:
        print("%d of %d runs agree (makespan and every rank's finish)" % (agree, runs))
    return 0


def check(argv):
    o = options(argv, {"kcube": None, "data": DEFAULT_DATA})
    k, data = o["kcube"], o["data"]
    if not k:
        sys.exit("check needs --kcube K")
    sets, runs = {}, []
    for line in open(data):
        f = line.split()
        if line.startswith("# set "):
            sets[f[2]] = tuple(int(v) for v in f[3].split(","))
        elif f and not line.startswith("#"):
            runs.append((int(f[0]), f[1], None if f[2] == "fail" else [int(v) for v in f[3:]]))
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        goals = {}
        for seed, name, want in runs:
            if seed not in goals:
                goals[seed] = write_goal(tmp, seed)
            got = kcube(k, goals[seed], sets[name])
            if got != want:
                bad += 1
                print("seed %d %s: kcube %s, LogGOPSim %s" % (seed, name, got, want))
    print("%d of %d runs agree with LogGOPSim (makespan and every rank's finish)" % (len(runs) - bad, len(runs)))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("record", "check"):
        sys.exit(__doc__)
    sys.exit((record if sys.argv[1] == "record" else check)(sys.argv[2:]))
