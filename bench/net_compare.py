#!/usr/bin/env python3
"""kcube's mapping against the mappings the users of Blue Gene/Q and Cray
XE6/XK7 (Titan) made: the default order (ABCDET), LLNL Rubik's tile, tilt
and zigzag, Cray grid_order's rule and plain scotch_gmap, on 3-D and 4-D
stencils (axis neighbours and full boxes) whose rank count equals the
partition's slots. Every mapping is a kcube node list (line r: the
endpoint of rank r), counted by kcube's exact counter (kcube map --mapping
FILE --work 0) and recounted independently by dimension order in
tests/support/refmaps.py up to --recount-limit messages, and simulated as
one halo exchange (kcube simulate --pairs --oneshot: every message sent at
cycle 0, the cycles until the last arrives) where the simulator takes the
network. Writes a markdown table and a CSV (docs/compare.md explains).

    python3 bench/net_compare.py --kcube build/kcube              # full, minutes
    python3 bench/net_compare.py --kcube build/kcube --quick      # one case, seconds

Exit 77 when scotch_gmap is missing, 1 when a check fails (a reference
mapping that is not a permutation, kcube worse than the default order, or a
recount that differs from kcube's count).
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "support"))
import refmaps as R  # noqa: E402

# Partitions: (name, sides axis 0 first, endpoints C per router, 3-D grid, 4-D grid).
# C is the ranks a router carries: BG/Q runs 16 ranks a node (c16 mode, one a
# core) or 8 (c8) on 1 node a router, or 1 (c1, threads inside) on Sequoia;
# Titan's Gemini carries 2 nodes, one rank a node (one a GPU).
FULL = [
    ("BG/Q midplane c8", [4, 4, 4, 4, 2], 8, [16, 16, 16], [8, 8, 8, 8]),
    ("BG/Q midplane c16", [4, 4, 4, 4, 2], 16, [32, 16, 16], [16, 8, 8, 8]),
    ("BG/Q rack c16", [4, 4, 4, 8, 2], 16, [32, 32, 16], [16, 16, 8, 8]),
    ("Titan 2/router", [25, 16, 24], 2, [30, 32, 20], [20, 12, 10, 8]),
    ("Sequoia c1", [16, 12, 16, 16, 2], 1, [64, 48, 32], None),
]
QUICK = [("BG/Q midplane c8", [4, 4, 4, 4, 2], 8, [16, 16, 16], None)]
STENCILS = {3: [("7pt", 1), ("27pt", 3)], 4: [("9pt", 1), ("81pt", 4)]}


def stencil_traffic(grid, reach):
    """Periodic halo exchange on the grid (rank numbered axis 0 fastest), one
    message of 1 byte to each neighbour: reach 1 = the 2d axis neighbours,
    reach d = every one of the 3^d - 1 neighbours (diagonals too)."""
    d = len(grid)
    offs = []
    for k in range(3 ** d):
        o = [(k // 3 ** a) % 3 - 1 for a in range(d)]
        nz = sum(1 for x in o if x)
        if 0 < nz <= reach and (reach > 1 or nz == 1):
            offs.append(o)
    stride = [R.prod(grid[:a]) for a in range(d)]
    out = []
    for r in range(R.prod(grid)):
        c = [(r // stride[a]) % grid[a] for a in range(d)]
        for o in offs:
            out.append((r, sum(((c[a] + o[a]) % grid[a]) * stride[a] for a in range(d)), 1))
    return out


def write_lines(path, rows):
    """One line per row, fields space-separated."""
    with open(path, "w") as f:
        for row in rows:
            f.write(" ".join(map(str, row)) + "\n")


def net_args(sides, conc):
    """kcube's network options for a torus of these sides and endpoints."""
    return ["--topology", "torus", "--shape", "x".join(map(str, sides)), "--endpoints", str(conc)]


def run_json(cmd, timeout=None):
    """Run a kcube command; its JSON, or None when it fails or runs past
    timeout seconds."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "did not finish in %d s" % timeout
    if p.returncode != 0:
        return None, p.stderr.strip()
    return json.loads(p.stdout), ""


def kcube_count(args, sides, conc, traffic_path, map_path, nodes, traffic):
    """kcube's exact count of a node list: the start made of --mapping FILE
    or, where kcube map has no --mapping, its identity start on the traffic
    renamed through the node list (the same loads); (max channel load,
    bytes x hops), or None when kcube cannot count it. Not tried beyond
    --big slots: every count computes all of map's starts, Scotch's too,
    which takes many minutes on 98,304 routers; the recount counts there."""
    if R.prod(sides) * conc > args.big:
        return None
    cmd = [args.kcube, "map"] + net_args(sides, conc) + [
        "--kind", "general", "--work", "0", "--max-time", "0", "--json"]
    out, _ = run_json(cmd + ["--traffic", traffic_path, "--mapping", map_path])
    want = "file"
    if out is None:
        renamed = traffic_path + ".renamed"
        write_lines(renamed, [(nodes[s], nodes[d], b) for s, d, b in traffic])
        out, _ = run_json(cmd + ["--traffic", renamed])
        want = "identity"
    if out is None:
        return None
    for s in out.get("starts", []):
        if s.get("mapping") == want:
            return s["max_load"], s["hops"]
    return None


def kcube_mapping(args, sides, conc, traffic_path, start_path, out_path):
    """kcube's general mapper from all its starts (the default order among
    them when kcube takes --mapping): (node list, max load, hops, seconds)."""
    base = [args.kcube, "map"] + net_args(sides, conc) + [
        "--traffic", traffic_path, "--kind", "general", "--work", str(args.work),
        "--max-time", "0", "--out", out_path, "--json"]
    t0 = time.time()
    out, err = run_json(base + ["--mapping", start_path], args.timeout)
    if out is None:
        return None, err
    with open(out_path) as f:
        nodes = [int(x) for x in f.read().split()]
    starts = [x["mapping"] for x in out.get("starts", [])]
    note = "from the start %s (of %d)" % (out.get("won_from"), len(starts))
    return (nodes, out["final"]["max_load"], out["final"]["hops"], time.time() - t0, note), ""


def simulate(args, sides, conc, pairs_path, map_path):
    """Cycles of one halo exchange (every message at cycle 0, --msg-flits
    flits) under the node list; None when the simulator refuses."""
    if not args.sim or os.path.getsize(pairs_path) > args.sim_limit * 8:
        return None
    cmd = [args.kcube, "simulate"] + net_args(sides, conc) + [
        "--pairs", pairs_path, "--mapping", map_path, "--oneshot",
        "--msg-flits", str(args.msg_flits), "--max-time", "0", "--json"]
    out, _ = run_json(cmd)
    if out is None:
        return None
    return out["points"][0].get("completion")


def reference_mappings(sides, conc, grid, traffic, tool, timeout):
    """The users' mappings as (name, node list or None, note)."""
    n = R.prod(sides) * conc
    try:
        sc, moved = R.scotch_gmap_mapping(sides, conc, n, traffic, tool, timeout)
        note = "%d ranks moved to even routers" % moved if moved else ""
    except subprocess.TimeoutExpired:
        sc, note = None, "did not finish in %d s" % timeout
    return [
        ("default (ABCDET)", R.default_order(sides, conc), ""),
        ("Rubik tile", R.rubik_mapping(sides, conc, grid, "tile"), ""),
        ("Rubik tile+tilt", R.rubik_mapping(sides, conc, grid, "tilt"), ""),
        ("Rubik tile+zigzag", R.rubik_mapping(sides, conc, grid, "zigzag"), ""),
        ("grid_order", R.grid_order_mapping(sides, conc, grid), ""),
        ("scotch_gmap", sc, note),
    ]


def one_case(args, tmp, machine, sides, conc, grid, stencil, reach, failures):
    """Every mapping of one stencil on one partition: table rows."""
    traffic = stencil_traffic(grid, reach)
    n = R.prod(sides) * conc
    tag = "%s-%s-%s" % (machine.split()[0].replace("/", ""), "x".join(map(str, grid)), stencil)
    tpath = os.path.join(tmp, tag + ".txt")
    write_lines(tpath, traffic)
    maps = reference_mappings(sides, conc, grid, traffic, args.scotch_gmap, args.timeout)
    dpath = os.path.join(tmp, tag + ".default")
    write_lines(dpath, [[x] for x in maps[0][1]])
    km, err = kcube_mapping(args, sides, conc, tpath, dpath, os.path.join(tmp, tag + ".kcube"))
    rows = []
    for i, (name, nodes, note) in enumerate(maps + [("kcube", km[0] if km else None, km[4] if km else err)]):
        row = {"machine": machine, "network": "x".join(map(str, sides)), "C": conc,
               "grid": "x".join(map(str, grid)), "stencil": stencil, "ranks": n,
               "messages": len(traffic), "mapping": name, "note": note}
        rows.append(row)
        if nodes is None:
            continue
        if not R.is_permutation(nodes, n):
            failures.append("%s %s: not a permutation of the %d slots" % (tag, name, n))
            continue
        mpath = os.path.join(tmp, "%s.map%d" % (tag, i))
        write_lines(mpath, [[x] for x in nodes])
        counted = kcube_count(args, sides, conc, tpath, mpath, nodes, traffic)
        if len(traffic) <= args.recount_limit or counted is None:
            rec = R.recount(sides, conc, nodes, traffic)
            if counted is not None and rec != tuple(counted):
                failures.append("%s %s: kcube counts %s, the recount %s" % (tag, name, counted, rec))
            row["recount"] = "yes"
            if counted is None:
                counted, row["note"] = rec, "; ".join(x for x in (row["note"], "counted by the recount only") if x)
        row["max_load"], row["hops"] = counted
        row["sim_cycles"] = simulate(args, sides, conc, tpath, mpath)
    if args.from_best:
        rows.append(kcube_from_best(args, tmp, tag, sides, conc, tpath, rows, failures))
    if km:
        rows[-1 - bool(args.from_best)]["seconds"] = round(km[3], 1)
        kr = rows[-1 - bool(args.from_best)]
        if kr.get("max_load") is not None and (kr["max_load"], kr["hops"]) != (km[1], km[2]):
            failures.append("%s: kcube map says %s, its node list counts %s" % (
                tag, (km[1], km[2]), (kr["max_load"], kr["hops"])))
        if (km[1], km[2]) > (rows[0]["max_load"], rows[0]["hops"]):
            failures.append("%s: kcube %s worse than the default order %s" % (
                tag, (km[1], km[2]), (rows[0]["max_load"], rows[0]["hops"])))
    return rows


def kcube_from_best(args, tmp, tag, sides, conc, tpath, rows, failures):
    """kcube's general mapper started from the best of the users' mappings
    (by max load, then bytes x hops): its row, checked never worse."""
    refs = [(r["max_load"], r["hops"], i) for i, r in enumerate(rows[:-1]) if r.get("max_load") is not None]
    ml, hops, i = min(refs)
    start = os.path.join(tmp, "%s.map%d" % (tag, i))
    row = dict(rows[-1], mapping="kcube from %s" % rows[i]["mapping"], note="")
    for key in ("max_load", "hops", "sim_cycles", "recount"):
        row.pop(key, None)
    km, err = kcube_mapping(args, sides, conc, tpath, start, os.path.join(tmp, tag + ".kbest"))
    if km is None:
        row["note"] = err
        return row
    row["max_load"], row["hops"], row["seconds"], row["note"] = km[1], km[2], round(km[3], 1), km[4]
    row["sim_cycles"] = simulate(args, sides, conc, tpath, os.path.join(tmp, tag + ".kbest"))
    if (km[1], km[2]) > (ml, hops):
        failures.append("%s: kcube from %s worse than its start" % (tag, rows[i]["mapping"]))
    return row


COLUMNS = ["machine", "network", "C", "grid", "stencil", "ranks", "messages", "mapping",
           "max_load", "hops", "sim_cycles", "recount", "seconds", "note"]


def markdown(rows):
    """The table: one line per mapping, the best max load of a case in bold."""
    head = ["machine", "network x C", "grid", "stencil", "mapping", "max load", "bytes x hops",
            "sim cycles", "note"]
    out = ["| " + " | ".join(head) + " |", "| " + " | ".join(["---"] * 5 + ["---:"] * 3 + ["---"]) + " |"]
    best = {}
    for r in rows:
        key = (r["machine"], r["grid"], r["stencil"])
        if "max_load" in r:
            best[key] = min(best.get(key, r["max_load"]), r["max_load"])
    for r in rows:
        key = (r["machine"], r["grid"], r["stencil"])
        ml = r.get("max_load", "-")
        if ml != "-" and ml == best[key]:
            ml = "**%d**" % ml
        sim = r.get("sim_cycles")
        out.append("| %s | %s x %d | %s | %s | %s | %s | %s | %s | %s |" % (
            r["machine"], r["network"], r["C"], r["grid"], r["stencil"], r["mapping"], ml,
            r.get("hops", "-"), "-" if sim is None else sim, r["note"]))
    return "\n".join(out) + "\n"


def summary(rows):
    """One line per case: the default order, the best of the users' other
    mappings (by max load, then bytes x hops) and kcube, each as max load /
    simulated cycles."""
    cases = {}
    for r in rows:
        if r.get("max_load") not in (None, ""):
            cases.setdefault((r["machine"], r["grid"], r["stencil"]), []).append(r)
    out = ["| machine | grid | stencil | default | best other reference | kcube | kcube / best user mapping "
           "| kcube from the best user mapping |",
           "| --- | --- | --- | ---: | --- | ---: | ---: | ---: |"]
    fig = lambda r: "%s / %s" % (r["max_load"], "-" if r.get("sim_cycles") in (None, "") else r["sim_cycles"])
    for (machine, grid, stencil), rs in cases.items():
        by = {r["mapping"]: r for r in rs}
        refs = [r for r in rs if not r["mapping"].startswith("kcube")]
        best = min(refs, key=lambda r: (int(r["max_load"]), int(r["hops"])))
        other = min([r for r in refs if not r["mapping"].startswith("default")] or refs,
                    key=lambda r: (int(r["max_load"]), int(r["hops"])))
        k = by.get("kcube")
        ratio = "%.2f" % (int(k["max_load"]) / int(best["max_load"])) if k else "-"
        kb = [r for r in rs if r["mapping"].startswith("kcube from")]
        out.append("| %s | %s | %s | %s | %s: %s | %s | %s | %s |" % (
            machine, grid, stencil, fig(by["default (ABCDET)"]), other["mapping"], fig(other),
            fig(k) if k else "-", ratio, fig(kb[0]) if kb else "-"))
    return "\n".join(out) + "\n"


def write_tables(args, rows, final=True):
    """The markdown table (on standard output too when final) and the CSV,
    rewritten after every case so a long run leaves what it finished."""
    table = ("Max load (messages on the busiest channel) / simulated cycles of one exchange:\n\n"
             + summary(rows) + "\nEvery mapping:\n\n" + markdown(rows))
    if final:
        sys.stdout.write(table)
    if args.md:
        with open(args.md, "w") as f:
            f.write(table)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)


def parse():
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kcube", default="build/kcube")
    p.add_argument("--scotch-gmap", default=shutil.which("scotch_gmap"))
    p.add_argument("--quick", action="store_true", help="one small case (the cli test)")
    p.add_argument("--work", type=float, default=4, help="kcube map --work (millions)")
    p.add_argument("--no-sim", dest="sim", action="store_false")
    p.add_argument("--msg-flits", type=int, default=4)
    p.add_argument("--sim-limit", type=int, default=3000000,
                   help="simulate traffics of about at most this many messages")
    p.add_argument("--recount-limit", type=int, default=300000,
                   help="recount traffics of at most this many messages")
    p.add_argument("--big", type=int, default=50000,
                   help="beyond this many slots the recount alone counts the mappings")
    p.add_argument("--timeout", type=int, default=1800,
                   help="seconds kcube map and scotch_gmap may take for one case")
    p.add_argument("--from-best", action="store_true",
                   help="also run kcube from the best of the users' mappings")
    p.add_argument("--only", default="", help="run the partitions whose name contains this")
    p.add_argument("--skip", default="", help="leave out the partitions whose name contains this")
    p.add_argument("--from-csv", nargs="*", default=[], help="render the tables of these CSVs, run nothing")
    p.add_argument("--md", default="", help="write the markdown table here")
    p.add_argument("--csv", default="", help="write the CSV here")
    return p.parse_args()


def main():
    args = parse()
    if args.from_csv:
        cases = {}
        for path in args.from_csv:  # a later file's case replaces an earlier file's in place
            with open(path, newline="") as f:
                new = {}
                for r in csv.DictReader(f):
                    new.setdefault((r["machine"], r["grid"], r["stencil"]), []).append(r)
            cases.update(new)
        rows = [r for rs in cases.values() for r in rs]
        for r in rows:
            for key in ("C", "max_load", "hops", "sim_cycles"):
                r[key] = int(r[key]) if r.get(key) not in (None, "") else None
        write_tables(args, rows)
        return 0
    if not args.scotch_gmap:
        print("scotch_gmap not installed (Debian package scotch)")
        return 77
    failures, rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for machine, sides, conc, g3, g4 in (QUICK if args.quick else FULL):
            if args.only not in machine or (args.skip and args.skip in machine):
                continue
            for grid in [g for g in (g3, g4) if g]:
                for stencil, reach in STENCILS[len(grid)][: 1 if args.quick else 2]:
                    t0 = time.time()
                    rows += one_case(args, tmp, machine, sides, conc, grid, stencil, reach, failures)
                    write_tables(args, rows, final=False)
                    print("%s %s %s: %.0f s" % (machine, "x".join(map(str, grid)), stencil,
                                                time.time() - t0), file=sys.stderr)
    write_tables(args, rows)
    for msg in failures:
        print("FAIL: " + msg, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
