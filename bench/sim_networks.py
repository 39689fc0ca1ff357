#!/usr/bin/env python3
"""Simulator speed per flit-hop on a mixed-radix network against equal sides.

Runs `kcube simulate` with uniform traffic at one rate and the same cycles on
Sequoia's 5-D torus (16x12x16x16x2, every axis a ring: 98,304 routers) and
on the 16-ary 4-cube (65,536 routers), and on 16x8x16x16x2 (mixed sides
with a side-2 ring, as many routers as the 4-cube: the cost of mixed
sides apart from the cost of size), three times each, and prints per
network the median of: the engine's wall seconds over its flit hops (link
traversals), and the process's user CPU seconds over the same hops (the
figure that does not depend on what else the machine runs). Use:
    bench/sim_networks.py [build/kcube] [--runs 3] [--rate 0.1]
"""
import argparse
import json
import resource
import statistics
import subprocess
import sys

NETWORKS = [
    ("sequoia 16x12x16x16x2", ["--topology", "torus", "--shape", "16x12x16x16x2"]),
    ("16-ary 4-cube", ["--topology", "torus", "--k", "16", "--n", "4"]),
    ("mixed 16x8x16x16x2", ["--topology", "torus", "--shape", "16x8x16x16x2"]),
]


def one_run(kcube, net, args):
    """One simulation: (flit hops, engine wall seconds, user CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    cmd = [kcube, "simulate", *net, "--pattern", "uniform", "--rate", str(args.rate), "--warmup",
           str(args.warmup), "--measure", str(args.measure), "--drain", str(args.drain), "--seed", "1",
           "--threads", "1", "--json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    point = json.loads(out)["points"][0]
    return point["link_traversals"], point["wall_seconds"], cpu


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("kcube", nargs="?", default="build/kcube")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--rate", type=float, default=0.1)
    p.add_argument("--warmup", type=int, default=1000)
    p.add_argument("--measure", type=int, default=2000)
    p.add_argument("--drain", type=int, default=2000)
    p.add_argument("--only", help="run only the networks whose name contains this")
    args = p.parse_args()
    print(f"uniform traffic, rate {args.rate} flits/endpoint/cycle, cycles {args.warmup}+{args.measure}"
          f"+{args.drain} (drain at most), medians of {args.runs} runs")
    print(f"{'network':24} {'flit hops':>12} {'ns/hop (wall)':>14} {'ns/hop (user CPU)':>18}")
    for name, net in NETWORKS:
        if args.only and args.only not in name:
            continue
        runs = [one_run(args.kcube, net, args) for _ in range(args.runs)]
        hops = runs[0][0]
        wall = statistics.median(r[1] / r[0] * 1e9 for r in runs)
        cpu = statistics.median(r[2] / r[0] * 1e9 for r in runs)
        print(f"{name:24} {hops:12d} {wall:14.2f} {cpu:18.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
