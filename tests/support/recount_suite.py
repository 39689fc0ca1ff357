#!/usr/bin/env python3
"""Seeded random general networks for the independent recount
(tests/cli_net_recount.sh): mixed-radix tori and meshes, mixed wraps, C
endpoints per router and allocations. On each, kcube's per-channel loads
(--loads) are recounted by recount.py, written apart from the library:
  - analyze, rank r on slot r, of a built-in pattern or a random matrix
    (the messages rebuilt from analyze --json);
  - map of a random traffic file: the caller's identity node list counted
    as the start "file" (--mapping, --work 0), and every mapping map
    returns (--out, --loads), whose final is never above any start.
Usage: recount_suite.py KCUBE [SEED [TRIALS]]. Exit 0 when all agree."""
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RECOUNT = os.path.join(HERE, "recount.py")
PATTERNS = ["transpose", "bit-reverse", "shuffle", "digit-reverse", "butterfly:0", "matrix", "matrix", "scatter"]


def network(rng, tmp):
    """Random network: (kcube args, recount args, slots)."""
    n = rng.randint(1, 3)
    pow2 = rng.random() < 0.6  # power-of-two slots half the time and more: linear communications fit
    sides = [rng.choice([2, 4, 8] if pow2 else [2, 3, 4, 5, 6]) for _ in range(n)]
    routers = 1
    for s in sides:
        routers *= s
    wrap = rng.choice(["all", "none", ",".join(str(i) for i in range(n) if rng.random() < 0.5) or "none"])
    tie = rng.choice(["plus", "minus", "split"])
    conc = rng.choice([1, 2, 4] if pow2 else [1, 2, 3])
    shape = "x".join(map(str, sides))
    args = ["--shape", shape, "--wrap", wrap, "--endpoints", str(conc)]
    if wrap != "none":
        args += ["--tie", tie]
    used = routers
    if rng.random() < 0.4 and routers > 2:
        used = 1 << rng.randint(1, routers.bit_length() - 1) if pow2 else rng.randint(2, routers)
        chosen = rng.sample(range(routers), used)
        path = os.path.join(tmp, "nodes.txt")
        with open(path, "w") as f:
            for r in chosen:  # by number or by coordinates, axis 0 first
                if rng.random() < 0.5:
                    f.write("%d\n" % r)
                else:
                    f.write(" ".join(str(r // p % s) for s, p in zip(sides, strides(sides))) + "\n")
        args += ["--nodes", path]
    return args, used * conc


def strides(sides):
    out, st = [], 1
    for s in sides:
        out.append(st)
        st *= s
    return out


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)


def recount(net, *more):
    r = run([sys.executable, RECOUNT] + net + list(more))
    return r.returncode == 0, (r.stdout + r.stderr).strip()


def random_matrix(rng, slots):
    """A random GF(2) matrix when the slots are 2^m (the field is then
    GF(2) unless the common side's power: analyze refuses those sizes)."""
    m = slots.bit_length() - 1
    return ";".join("".join(rng.choice("01") for _ in range(m)) for _ in range(m))


def analyze_case(kc, rng, net, slots, tmp, log):
    pat = rng.choice(PATTERNS)
    comm = ["--pattern", pat]
    if pat in ("matrix", "scatter"):
        if slots & (slots - 1):
            comm = ["--pattern", "transpose"]
        else:
            comm = ["--matrix", random_matrix(rng, slots)] + (["--scatter"] if pat == "scatter" else [])
    loads, js = os.path.join(tmp, "a.loads"), os.path.join(tmp, "a.json")
    r = run([kc, "analyze"] + net + comm + ["--json", "--loads", loads])
    if r.returncode == 2:  # a pattern the slots do not allow: one line, said why
        ok = len(r.stderr.strip().splitlines()) == 1 and not r.stdout
        log.append(("refused", ok, " ".join(net + comm) + ": " + r.stderr.strip()))
        return ok
    if r.returncode != 0:
        log.append(("analyze", False, " ".join(net + comm) + ": " + r.stderr.strip()))
        return False
    with open(js, "w") as f:
        f.write(r.stdout)
    doc = json.loads(r.stdout)
    if doc["kind"] == "uniform":
        return True
    ok, text = recount(net, "--lcc-json", js, "--loads", loads)
    log.append(("analyze", ok, " ".join(net + comm) + ": " + text))
    return ok


def traffic_file(rng, slots, tmp):
    ranks = rng.randint(2, slots)
    path = os.path.join(tmp, "t.txt")
    with open(path, "w") as f:
        f.write("%d 0 1\n" % (ranks - 1))  # the last rank appears: the file has `ranks` ranks
        for _ in range(rng.randint(1, 3 * ranks)):
            f.write("%d %d %d\n" % (rng.randrange(ranks), rng.randrange(ranks), rng.randint(1, 9)))
    return path, ranks


def identity_file(net_args, ranks, tmp):
    """Rank r on slot r as endpoint numbers of the whole network."""
    conc = int(net_args[net_args.index("--endpoints") + 1])
    sides = [int(s) for s in net_args[net_args.index("--shape") + 1].split("x")]
    routers = 1
    for s in sides:
        routers *= s
    alloc = list(range(routers))
    if "--nodes" in net_args:
        alloc = []
        with open(net_args[net_args.index("--nodes") + 1]) as f:
            for line in f:
                v = [int(x) for x in line.split()]
                alloc.append(v[0] if len(v) == 1 else sum(c * p for c, p in zip(v, strides(sides))))
    path = os.path.join(tmp, "id.txt")
    with open(path, "w") as f:
        for s in range(ranks):
            f.write("%d\n" % (alloc[s // conc] * conc + s % conc))
    return path


def cost(s):
    return (int(s["max_load"]), int(s["hops"]), int(s["sumsq"]))


def map_case(kc, rng, net, slots, tmp, log):
    tr, ranks = traffic_file(rng, slots, tmp)
    axes = len(net[1].split("x"))
    wraps = net[3] in ("all", "none") or len(net[3].split(",")) == axes  # every axis or none: plain
    plain = net[net.index("--endpoints") + 1] == "1" and "--nodes" not in net and wraps
    ident = identity_file(net, slots if plain else ranks, tmp)  # plain networks: a traffic over every node
    out, loads, js = (os.path.join(tmp, x) for x in ("o.txt", "m.loads", "m.json"))
    good = True
    r = run([kc, "map"] + net + ["--traffic", tr, "--mapping", ident, "--work", "0", "--json"])
    with open(js, "w") as f:
        f.write(r.stdout)
    ok = r.returncode == 0
    if ok:
        ok, text = recount(net, "--traffic", tr, "--mapping", ident, "--cost-json", js, "--start", "file")
    else:
        text = r.stderr.strip()
    log.append(("identity", ok, " ".join(net) + ": " + text))
    good &= ok
    seed = str(rng.randint(1, 10 ** 6))
    r = run([kc, "map"] + net + ["--traffic", tr, "--work", "0.05", "--seed", seed, "--out", out, "--loads", loads,
                                 "--json"])
    ok = r.returncode == 0
    text = r.stderr.strip()
    if ok:
        doc = json.loads(r.stdout)
        final = cost(doc["final"])
        above = [s["mapping"] for s in doc["starts"] if cost(s) < final]
        ok, text = recount(net, "--traffic", tr, "--mapping", out, "--loads", loads)
        if above:
            ok, text = False, "final %s above start(s) %s" % (final, above)
    log.append(("map", ok, " ".join(net) + ": " + text))
    return good and ok


def main():
    kc = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    trials = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    rng = random.Random(seed)
    log, fails = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(trials):
            net, slots = network(rng, tmp)
            fails += not analyze_case(kc, rng, net, slots, tmp, log)
            fails += not map_case(kc, rng, net, slots, tmp, log)
    kinds = {}
    for kind, ok, text in log:
        kinds[kind] = kinds.get(kind, 0) + 1
        if not ok or os.environ.get("RECOUNT_VERBOSE"):
            print("%s %s: %s" % ("ok" if ok else "FAIL", kind, text))
    print("recount suite, seed %d: %s; %d failed" % (seed, ", ".join("%d %s" % (v, k) for k, v in sorted(kinds.items())),
                                                    fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
