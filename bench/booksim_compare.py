#!/usr/bin/env python3
"""kcube against BookSim2 on the same machine: speed and curves.

BookSim2 (github.com/booksim/booksim2 at 28f43299, built by
bench/build_booksim.sh with its link-traversal counter) and a kcube binary,
both given by path, run the same networks with the configurations
docs/sim.md "Against BookSim2" states; the BookSim2 config text is made here
(booksim_config) and written to a temporary directory per run.

  speed   per workload, BookSim2 and kcube interleaved (b k b k ...), the
          medians of --reps runs: cycles, flit-hops (BookSim2's counter,
          kcube's link_traversals), the wall of each whole process and each
          tool's own run time (BookSim2 "Total run time", kcube wall_s),
          flit-hops per second and their ratio, and the peak resident size.
  curves  latency and accepted throughput at a list of loads for one
          network: BookSim2 against kcube with extra flags given as one
          string (split like a shell would, never run by one); past
          saturation BookSim2's latency run aborts ("unstable") and its
          accepted throughput comes from sim_type=throughput instead.
  parse   the fields read from a stored BookSim2 output or kcube JSON (the
          tests' check of the parsers, without BookSim2).

  bench/booksim_compare.py speed --booksim B --kcube K [--reps 3] [--md F] [--json F]
  bench/booksim_compare.py curves --booksim B --kcube K --net cube8 \
      --loads 0.1,0.2,0.4 --kcube-flags "--booksim" [--md F] [--json F]

A binary that is missing or not executable is refused with one line, exit 2.
Only the standard library; no shell: commands are argument vectors.
"""

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

PROG = "booksim_compare"

# The networks: BookSim2 has no cube topology; the binary n-cube is a
# 2-ary mesh (a 2-ary torus would have two links per neighbour pair).
NETS = {
    "cube8": {"k": 2, "n": 8},
    "cube10": {"k": 2, "n": 10},
    "cube11": {"k": 2, "n": 11},
    "cube12": {"k": 2, "n": 12},
    "cube13": {"k": 2, "n": 13},
    "torus44": {"k": 4, "n": 4},
    "torus82": {"k": 8, "n": 2},
}

# kcube's names for BookSim2's traffic: same definitions on 2^n nodes
# (address halves swapped; address bits reversed), but BookSim2's fixed
# points send to themselves and kcube's send nothing.
PATTERNS = {"uniform": "uniform", "transpose": "transpose", "bit-reverse": "bitrev"}

# The configuration researchers compare (8-flit buffers, two VCs sharing a
# link, 5 cycles a hop) and the closest BookSim2 can come to kcube's
# default (one-flit buffers, no router delays): see docs/sim.md.
KCUBE_FLAGS = {
    "deep": ["--injection", "bernoulli", "--depth", "8", "--vcs", "2", "--vc-link", "shared",
             "--route-delay", "2", "--switch-delay", "2", "--link-latency", "1"],
    "default": [],
}
BOOKSIM_ROUTER = {
    "deep": [("num_vcs", "2"), ("vc_buf_size", "8"), ("routing_delay", "1"),
             ("vc_alloc_delay", "1"), ("sw_alloc_delay", "1"), ("speculative", "0"),
             ("st_prepare_delay", "0"), ("st_final_delay", "1")],
    # 5 flits: the smallest buffer that streams a flit per cycle (BookSim2's
    # credit loop is 5 cycles with these delays); 1 would make every hop wait
    # for a credit (zero-load 117 cycles on the 8-cube, saturated below 0.1).
    "default": [("num_vcs", None), ("vc_buf_size", "5"), ("routing_delay", "0"),
                ("vc_alloc_delay", "1"), ("sw_alloc_delay", "1"), ("speculative", "1"),
                ("st_prepare_delay", "0"), ("st_final_delay", "1")],
}

# The speed table's workloads: (network, pattern, load, reps or None for --reps).
SPEED_WORKLOADS = [
    ("cube8", "uniform", 0.1, None), ("cube8", "uniform", 0.2, None),
    ("cube8", "uniform", 0.4, None), ("cube8", "transpose", 0.05, None),
    ("cube8", "bit-reverse", 0.05, None),
    ("torus44", "uniform", 0.1, None), ("torus44", "uniform", 0.2, None),
    ("torus44", "uniform", 0.4, None),
    ("torus82", "uniform", 0.1, None), ("torus82", "uniform", 0.2, None),
    ("torus82", "uniform", 0.4, None),
    ("cube11", "uniform", 0.2, 1),  # the largest BookSim2 finishes in ten minutes here
    ("cube12", "uniform", 0.2, 1),
]


class Refused(Exception):
    """Bad input or a missing binary: one line, exit 2."""


def booksim_config(net, pattern, load, config, sim_type="latency", seed=1, extra=()):
    """The BookSim2 config text for one run: every key that moves timing
    pinned (BookSim2's defaults except topology, VCs, packet size and rate
    units), and the window of kcube's default 3000 + 10000 cycles: 3 warm-up
    and 10 sample periods of 1000, never stopping early (max_samples 13,
    thresholds 0). extra: (key, value) pairs appended (they win)."""
    k, n = NETS[net]["k"], NETS[net]["n"]
    keys = [("topology", "mesh" if k == 2 else "torus"), ("k", str(k)), ("n", str(n))]
    if k > 2:
        keys.append(("use_noc_latency", "0"))  # else every torus channel has latency 2
    keys.append(("routing_function", "dim_order"))
    for key, value in BOOKSIM_ROUTER[config]:
        if key == "num_vcs" and value is None:
            value = "1" if k == 2 else "2"  # kcube's default VCs per topology
        keys.append((key, value))
    keys += [("wait_for_tail_credit", "0"), ("vc_allocator", "islip"), ("sw_allocator", "islip"),
             ("alloc_iters", "1"), ("credit_delay", "0"), ("input_speedup", "1"),
             ("output_speedup", "1"), ("internal_speedup", "1.0"),
             ("traffic", PATTERNS[pattern]), ("injection_process", "bernoulli"),
             ("packet_size", "20"), ("injection_rate_uses_flits", "1"),
             ("injection_rate", repr(float(load))), ("sim_type", sim_type),
             ("warmup_periods", "3"), ("sample_period", "1000"), ("max_samples", "13"),
             ("stopping_thres", "0.0"), ("acc_stopping_thres", "0.0"), ("seed", str(seed))]
    keys += list(extra)
    return "".join("%s = %s;\n" % kv for kv in keys)


def kcube_argv(kcube, net, pattern, load, flags, seed=1, point_threads=1, injection=None):
    """kcube simulate's argument vector for one load point, JSON out, no time
    limit, on point_threads threads (1: one, as BookSim2 runs); injection,
    when given, replaces the configuration's --injection."""
    k, n = NETS[net]["k"], NETS[net]["n"]
    flags = list(flags)
    if injection:
        if "--injection" in flags:
            i = flags.index("--injection")
            del flags[i:i + 2]
        flags += ["--injection", injection]
    return [kcube, "simulate", "--k", str(k), "--n", str(n), "--pattern", pattern,
            "--rate", repr(float(load)), "--seed", str(seed), "--threads", "1",
            "--point-threads", str(point_threads), "--max-time", "0", "--json"] + list(flags)


def run_timed(argv, out_path, rss=True):
    """Run argv with stdout into out_path (stderr appended); returns
    (exit status, wall seconds of the whole process, peak RSS in KB). The
    peak comes from /usr/bin/time when it is there: a child forked by this
    Python process would carry Python's own resident pages into its peak
    (Linux keeps the high-water mark across exec), about 15 MB too many;
    without it, wait4's figure, an upper bound. rss=False runs argv alone
    (the peak is then None): /usr/bin/time's own start, 5-7 ms on our 2-core
    machines, would be charged to the wall of a run that takes 15 ms."""
    timer = "/usr/bin/time"
    rss_path = out_path + ".rss"
    if rss and os.access(timer, os.X_OK):
        argv = [timer, "-f", "%M", "-o", rss_path] + list(argv)
    with open(out_path, "wb") as out:
        t0 = time.monotonic()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    rss = usage.ru_maxrss if rss else None
    if argv[0] == timer:
        with open(rss_path) as f:
            rss = int(f.read().split()[-1])
    return proc.returncode, wall, rss


def _last_number(text, label):
    """The number after the last 'label' in text, or None."""
    hits = re.findall(re.escape(label) + r"\s*=?\s*(-?[0-9.eE+-]+|nan|inf)", text)
    return float(hits[-1]) if hits else None


def parse_booksim(text):
    """BookSim2's figures from its standard output: the overall statistics
    (the block after 'Overall Traffic Statistics', else the last period's),
    cycles, its own run time and the patched link-traversal counter. Raises
    ValueError when the run did not finish (no 'Total run time')."""
    if "Total run time" not in text:
        raise ValueError("BookSim2 output has no 'Total run time' (the run failed)")
    overall = text.split("Overall Traffic Statistics")[-1]
    res = {
        "latency": _last_number(overall, "Packet latency average"),
        "net_latency": _last_number(overall, "Network latency average"),
        "accepted": _last_number(overall, "Accepted flit rate average"),
        "injected": _last_number(overall, "Injected flit rate average"),
        "hops": _last_number(overall, "Hops average"),
        "cycles": _last_number(text, "Time taken is"),
        "run_s": _last_number(text, "Total run time"),
        "flit_hops": _last_number(text, "Link traversals"),
        "unstable": "Simulation unstable" in text,
    }
    for key in ("cycles", "flit_hops"):
        if res[key] is not None:
            res[key] = int(res[key])
    return res


def parse_kcube(text):
    """kcube simulate --json's first load point: the same fields as
    parse_booksim (latency, net_latency, accepted, cycles, run_s,
    flit_hops, plus sustainable). Raises ValueError on anything else."""
    try:
        point = json.loads(text)["points"][0]
    except (ValueError, KeyError, IndexError, TypeError):
        raise ValueError("kcube output is not simulate --json with a point")
    return {
        "latency": point.get("latency_avg"), "net_latency": point.get("network_latency_avg"),
        "accepted": point.get("throughput"), "cycles": point.get("cycles"),
        "run_s": point.get("wall_seconds"), "flit_hops": point.get("link_traversals"),
        "sustainable": point.get("sustainable"),
    }


def check_binary(path, name):
    """Refuse a missing or non-executable binary (Refused: one line, exit 2)."""
    if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise Refused("%s binary %r is missing or not executable" % (name, path))


def run_booksim(booksim, cfg_text, workdir, tag, rss=True):
    """One BookSim2 run of cfg_text: its parsed figures plus the process's
    wall and peak RSS (rss=False: none, the wall of the process alone).
    Raises ValueError when it did not finish."""
    cfg = os.path.join(workdir, tag + ".cfg")
    with open(cfg, "w") as f:
        f.write(cfg_text)
    out = os.path.join(workdir, tag + ".booksim.out")
    _, wall, rss = run_timed([booksim, cfg], out, rss)  # BookSim2 exits 255 on success
    with open(out, errors="replace") as f:
        res = parse_booksim(f.read())
    res.update(wall=wall, rss_kb=rss)
    return res


def run_kcube(argv, workdir, tag, rss=True):
    """One kcube run: its parsed point plus the process's wall and peak RSS
    (rss=False: none, the wall of the process alone). Raises ValueError
    when it failed."""
    out = os.path.join(workdir, tag + ".kcube.out")
    rc, wall, rss = run_timed(argv, out, rss)
    with open(out, errors="replace") as f:
        text = f.read()
    if rc != 0:
        raise ValueError("kcube exited %d: %s" % (rc, text.strip().splitlines()[-1:]))
    res = parse_kcube(text)
    res.update(wall=wall, rss_kb=rss)
    return res


def median_of(runs):
    """Per numeric field, the median over the runs (None when absent)."""
    out = {}
    for key in runs[0]:
        vals = [r[key] for r in runs if isinstance(r.get(key), (int, float))
                and not isinstance(r.get(key), bool)]
        out[key] = statistics.median(vals) if vals else runs[0][key]
    return out


def speed_workload(args, config, work, workdir):
    """One row of the speed table: BookSim2 and kcube interleaved, reps of each."""
    net, pattern, load, reps = work
    reps = reps or args.reps
    tag = "%s-%s-%s-%g" % (config, net, pattern, load)
    # latency_thres -1: past saturation BookSim2 would stop its latency run
    # early ("unstable") and time a fraction of the run kcube makes.
    cfg = booksim_config(net, pattern, load, config, extra=[("latency_thres", "-1.0")])
    argv = kcube_argv(args.kcube, net, pattern, load, KCUBE_FLAGS[config], point_threads=args.point_threads,
                      injection=args.kcube_injection)
    bs, kc = [], []
    # The timed runs are each process alone; one more run of each under
    # /usr/bin/time gives the peak RSS (run_timed says why apart).
    for r in range(reps):
        bs.append(run_booksim(args.booksim, cfg, workdir, "%s-%d" % (tag, r), rss=False))
        kc.append(run_kcube(argv, workdir, "%s-%d" % (tag, r), rss=False))
        log("  %s rep %d: BookSim2 %.2f s, kcube %.3f s" % (tag, r + 1, bs[-1]["wall"], kc[-1]["wall"]))
    b, k = median_of(bs), median_of(kc)
    b["rss_kb"] = run_booksim(args.booksim, cfg, workdir, tag + "-rss")["rss_kb"]
    k["rss_kb"] = run_kcube(argv, workdir, tag + "-rss")["rss_kb"]
    log("  %s: peak RSS BookSim2 %d KB, kcube %d KB (one more run each)" % (tag, b["rss_kb"], k["rss_kb"]))
    row = {"config": config, "net": net, "pattern": pattern, "load": load, "reps": reps,
           "booksim": b, "kcube": k}
    for key, wall in (("wall", "wall"), ("run", "run_s")):
        fb = b["flit_hops"] / b[wall] if b[wall] and b["flit_hops"] else None
        fk = k["flit_hops"] / k[wall] if k[wall] and k["flit_hops"] else None
        row["fhps_" + key] = [fb, fk]
        row["ratio_" + key] = fk / fb if fb and fk else None
    # Each interleaved pair ran at nearly the same time: the median of the
    # pairs' ratios follows a shared machine's load less than the medians'.
    pairs = [(x["flit_hops"] / x["wall"]) / (y["flit_hops"] / y["wall"])
             for x, y in zip(kc, bs) if x["flit_hops"] and y["flit_hops"] and x["wall"] and y["wall"]]
    row["ratio_wall_pairs"] = statistics.median(pairs) if pairs else None
    row["runs"] = {"booksim": bs, "kcube": kc}
    return row


def log(msg):
    """Progress on standard error (the tables go to files or stdout)."""
    print(msg, file=sys.stderr, flush=True)


def uptime():
    """The load averages now, as `uptime` shows them (the machine is shared)."""
    try:
        with open("/proc/loadavg") as f:
            return "load average " + ", ".join(f.read().split()[:3])
    except OSError:
        return "load average unknown"


def speed_md(rows, meta):
    """The speed table as markdown."""
    lines = ["Measured %s; %s at the start, %s at the end; "
             "medians of %d (11- and 12-cube: 1). "
             "B: BookSim2, k: kcube; ratio: kcube's flit-hops per second over BookSim2's, "
             "from the medians' wall or own run time, or the median of the interleaved pairs' "
             "wall ratios. Wall: each process alone, from its start to its exit; peak RSS: one more "
             "run of each under /usr/bin/time.%s%s"
             % (meta["date"], meta["load_start"], meta["load_end"], meta["reps"],
                " kcube ran each point on %d threads (--point-threads; BookSim2 on one)."
                % meta["point_threads"] if meta.get("point_threads", 1) > 1 else "",
                " kcube's sources: --injection %s (BookSim2 draws a Bernoulli trial per source and cycle)."
                % meta["kcube_injection"] if meta.get("kcube_injection") else ""), "",
             "| config | network | traffic | load | cycles B / k | flit-hops B / k "
             "| wall s B / k | run s B / k | Mflit-hops/s B / k (wall) | ratio wall | ratio run "
             "| ratio wall, pairs | RSS MB B / k |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        b, k = r["booksim"], r["kcube"]
        fb, fk = r["fhps_wall"]
        lines.append("| %s | %s | %s | %g | %s / %s | %s / %s | %.2f / %.3f | %.2f / %.3f "
                     "| %s / %s | %s | %s | %s | %.0f / %.0f |" % (
                         r["config"], r["net"], r["pattern"], r["load"],
                         _i(b["cycles"]), _i(k["cycles"]), _i(b["flit_hops"]), _i(k["flit_hops"]),
                         b["wall"], k["wall"], b["run_s"] or 0, k["run_s"] or 0,
                         _m(fb), _m(fk), _x(r["ratio_wall"]), _x(r["ratio_run"]),
                         _x(r.get("ratio_wall_pairs")),
                         b["rss_kb"] / 1024.0, k["rss_kb"] / 1024.0))
    return "\n".join(lines) + "\n"


def _i(v):
    return "-" if v is None else "%d" % v


def _m(v):
    return "-" if v is None else "%.2f" % (v / 1e6)


def _x(v):
    return "-" if v is None else "%.0fx" % v


def pick_workloads(only):
    """The speed workloads, or those whose name (net-pattern-load, e.g.
    cube8-uniform-0.1) is in the comma-separated list only."""
    if not only:
        return SPEED_WORKLOADS
    names = set(only.split(","))
    picked = [w for w in SPEED_WORKLOADS if "%s-%s-%g" % w[:3] in names]
    extra = names - {"%s-%s-%g" % w[:3] for w in SPEED_WORKLOADS}
    for name in sorted(extra):  # any net-pattern-load, e.g. cube13-uniform-0.2
        m = re.fullmatch(r"(\w+)-(uniform|transpose|bit-reverse)-([0-9.]+)", name)
        if not m or m.group(1) not in NETS:
            raise Refused("unknown workload %r (net-pattern-load, nets %s)" % (name, ",".join(NETS)))
        picked.append((m.group(1), m.group(2), float(m.group(3)), 1))
    return picked


def cmd_speed(args):
    """The speed table: every workload in both configurations."""
    works = pick_workloads(args.only)
    if args.point_threads < 1:
        raise Refused("--point-threads must be at least 1, not %d" % args.point_threads)
    if args.kcube_injection not in (None, "poisson", "bernoulli", "bernoulli-gaps"):
        raise Refused("unknown --kcube-injection %r (poisson, bernoulli, bernoulli-gaps)" % args.kcube_injection)
    configs = args.configs.split(",")
    for c in configs:
        if c not in KCUBE_FLAGS:
            raise Refused("unknown configuration %r (deep, default)" % c)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_start": uptime(),
            "reps": args.reps, "kcube": args.kcube, "booksim": args.booksim,
            "point_threads": args.point_threads, "kcube_injection": args.kcube_injection}
    rows = []
    with tempfile.TemporaryDirectory(prefix="kcube-booksim-") as workdir:
        for config in configs:
            for work in works:
                rows.append(speed_workload(args, config, work, workdir))
                write_outputs(args, rows, meta, speed_md)  # partial tables survive a stop
    meta["load_end"] = uptime()
    write_outputs(args, rows, meta, speed_md, final=True)
    return 0


def write_outputs(args, rows, meta, to_md, final=False):
    """The markdown (--md FILE, or stdout at the end) and JSON (--json FILE)."""
    meta.setdefault("load_end", uptime())
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(to_md(rows, meta))
    elif final:
        sys.stdout.write(to_md(rows, meta))


def curve_point(args, load, workdir):
    """One load of the curves: BookSim2's latency run (past saturation it
    aborts; then sim_type=throughput gives the accepted rate, and with
    --unstable-latency latency_thres=-1 the latency) and kcube's run."""
    tag = "curve-%g" % load
    extra = [tuple(kv.split("=", 1)) for kv in args.booksim_set]
    cfg = booksim_config(args.net, args.pattern, load, args.config, extra=extra, seed=args.seed)
    b = run_booksim(args.booksim, cfg, workdir, tag)
    if b["unstable"]:
        thr = booksim_config(args.net, args.pattern, load, args.config, "throughput",
                             seed=args.seed, extra=extra)
        bt = run_booksim(args.booksim, thr, workdir, tag + "-thr")
        b["accepted"], b["latency"], b["net_latency"] = bt["accepted"], None, None
        if args.unstable_latency:
            lat = booksim_config(args.net, args.pattern, load, args.config, seed=args.seed,
                                 extra=extra + [("latency_thres", "-1.0")])
            bl = run_booksim(args.booksim, lat, workdir, tag + "-lat")
            b["latency"], b["net_latency"] = bl["latency"], bl["net_latency"]
    flags = shlex.split(args.kcube_flags)
    k = run_kcube(kcube_argv(args.kcube, args.net, args.pattern, load, flags, args.seed),
                  workdir, tag)
    log("  load %g: BookSim2 %s / %s, kcube %.2f / %.4f" % (
        load, _f(b["latency"]), _f(b["accepted"], 4), k["latency"], k["accepted"]))
    return {"load": load, "booksim": b, "kcube": k}


def _f(v, digits=2):
    return "-" if v is None else "%.*f" % (digits, v)


def _pct(k, b):
    """kcube's difference from BookSim2 in percent, or '-'."""
    return "-" if k is None or not b else "%+.1f %%" % (100.0 * (k - b) / b)


def curves_md(rows, meta):
    """The curves as markdown: latency, network latency and accepted
    throughput of both tools and kcube's difference in percent."""
    lines = ["%s %s, BookSim2 config %s, kcube flags `%s`; measured %s (%s)." % (
        meta["net"], meta["pattern"], meta["config"], meta["kcube_flags"], meta["date"],
        meta["load_start"]), "",
        "| load | latency B | latency k | diff | net lat B | net lat k | diff "
        "| accepted B | accepted k | diff | B unstable | k sustainable |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for r in rows:
        b, k = r["booksim"], r["kcube"]
        lines.append("| %g | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["load"], _f(b["latency"]), _f(k["latency"]), _pct(k["latency"], b["latency"]),
            _f(b["net_latency"]), _f(k["net_latency"]), _pct(k["net_latency"], b["net_latency"]),
            _f(b["accepted"], 4), _f(k["accepted"], 4), _pct(k["accepted"], b["accepted"]),
            "yes" if b["unstable"] else "no", "yes" if k["sustainable"] else "no"))
    return "\n".join(lines) + "\n"


def cmd_curves(args):
    """Latency and accepted throughput at every load of --loads."""
    if args.net not in NETS:
        raise Refused("unknown network %r (%s)" % (args.net, ", ".join(NETS)))
    try:
        loads = [float(x) for x in args.loads.split(",")]
    except ValueError:
        raise Refused("--loads must be numbers separated by commas: %r" % args.loads)
    if any(not 0 < x <= 1 for x in loads):
        raise Refused("--loads must lie in (0, 1] flits per node per cycle")
    for kv in args.booksim_set:
        if "=" not in kv:
            raise Refused("--booksim-set takes key=value, not %r" % kv)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_start": uptime(),
            "net": args.net, "pattern": args.pattern, "config": args.config,
            "kcube_flags": args.kcube_flags, "booksim_set": args.booksim_set}
    rows = []
    with tempfile.TemporaryDirectory(prefix="kcube-booksim-") as workdir:
        for load in loads:
            rows.append(curve_point(args, load, workdir))
            write_outputs(args, rows, meta, curves_md)
    write_outputs(args, rows, meta, curves_md, final=True)
    return 0


def cmd_parse(args):
    """Print the parsed fields of a stored output as JSON (the tests' check)."""
    with open(args.file, errors="replace") as f:
        text = f.read()
    res = parse_booksim(text) if args.tool == "booksim" else parse_kcube(text)
    json.dump(res, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")
    return 0


def build_parser():
    """The command line: speed, curves and parse."""
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    for name in ("speed", "curves"):
        s = sub.add_parser(name)
        s.add_argument("--booksim", required=True, help="BookSim2 binary (bench/build_booksim.sh)")
        s.add_argument("--kcube", required=True, help="kcube binary")
        s.add_argument("--md", help="write the markdown table here (else stdout)")
        s.add_argument("--json", help="write the rows as JSON here")
    s = sub.choices["speed"]
    s.add_argument("--reps", type=int, default=3, help="runs of each tool per workload (median)")
    s.add_argument("--configs", default="deep,default", help="deep, default or both")
    s.add_argument("--only", help="comma-separated workloads net-pattern-load (e.g. cube8-uniform-0.1)")
    s.add_argument("--point-threads", type=int, default=1, metavar="T",
                   help="kcube's threads within each point (default 1, as BookSim2; 2 puts Bernoulli "
                        "generation on the second core), named in the table")
    s.add_argument("--kcube-injection", metavar="NAME",
                   help="kcube's --injection in every configuration (e.g. bernoulli-gaps: the same "
                        "Bernoulli process, a draw per message), named in the table")
    c = sub.choices["curves"]
    c.add_argument("--net", default="cube8", help="cube8, cube12, torus44, torus82")
    c.add_argument("--pattern", default="uniform", choices=sorted(PATTERNS))
    c.add_argument("--loads", default="0.1,0.2,0.3,0.4,0.5,0.6,0.8")
    c.add_argument("--config", default="deep", choices=sorted(KCUBE_FLAGS),
                   help="BookSim2's router configuration")
    c.add_argument("--kcube-flags", default=" ".join(KCUBE_FLAGS["deep"]),
                   help="kcube's model flags as one string (e.g. \"--booksim\")")
    c.add_argument("--booksim-set", action="append", default=[], metavar="KEY=VALUE",
                   help="extra BookSim2 config key (repeatable; wins over the config)")
    c.add_argument("--unstable-latency", action="store_true",
                   help="past saturation also run BookSim2's latency with latency_thres=-1")
    c.add_argument("--seed", type=int, default=1)
    q = sub.add_parser("parse")
    q.add_argument("tool", choices=("booksim", "kcube"))
    q.add_argument("file")
    return p


def main(argv):
    """Parse, check the binaries, run the mode; Refused and failed runs are one line."""
    args = build_parser().parse_args(argv)
    try:
        if args.mode in ("speed", "curves"):
            check_binary(args.booksim, "BookSim2")
            check_binary(args.kcube, "kcube")
            if args.mode == "speed" and args.reps < 1:
                raise Refused("--reps must be at least 1")
            return cmd_speed(args) if args.mode == "speed" else cmd_curves(args)
        return cmd_parse(args)
    except Refused as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2
    except (ValueError, OSError) as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
