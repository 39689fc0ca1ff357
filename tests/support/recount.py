#!/usr/bin/env python3
"""Independent recount of kcube's per-channel loads.

Written apart from the library (it shares no code with src/): it reads the
network as the command line describes it (--shape, --wrap, --tie,
--endpoints, --nodes), a traffic file ("src dst [bytes]" per line, '#'
comments), a mapping (a node list: line r is the endpoint number of rank r
in the whole network; without one, rank r sits on slot r of the
allocation), routes every message by dimension order on the routers, and
compares every directed channel with kcube's --loads output
("from_router to_router axis dir load"). Exit 0 when every channel agrees,
1 with the differences listed, 2 on bad input.

Routing, as the network is described: routers are numbered axis 0 first
(x = x_0 + s_0 (x_1 + s_1 (...))); endpoint e sits on router e // C, and a
message between endpoints of one router never enters the network. Axes are
corrected in order 0, 1, ...: on a line the move is d - s; on a ring the
shorter way round, a move of exactly s/2 by the tie rule (plus: +, minus: -,
split: + from an even coordinate, - from an odd one), and a ring of side 2
always takes its + channel.
"""
import argparse
import json
import sys


def parse_wrap(text, n):
    if text == "all":
        return set(range(n))
    if text in (None, "none"):
        return set()
    axes = {int(a) for a in text.split(",")}
    if any(a < 0 or a >= n for a in axes):
        raise ValueError("wrap list names an absent axis")
    return axes


def numbers(path):
    """Non-comment lines of a file, split into integers."""
    rows = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].replace(",", " ").split()
            if line:
                rows.append([int(v) for v in line])
    return rows


class Network:
    def __init__(self, sides, wraps, tie, conc, alloc):
        self.sides, self.wraps, self.tie, self.conc = sides, wraps, tie, conc
        self.routers = 1
        for s in sides:
            self.routers *= s
        self.alloc = alloc if alloc is not None else list(range(self.routers))

    def coords(self, x):
        c = []
        for s in self.sides:
            c.append(x % s)
            x //= s
        return c

    def number(self, c):
        x, st = 0, 1
        for v, s in zip(c, self.sides):
            x += v * st
            st *= s
        return x

    def move(self, axis, s, d):
        side = self.sides[axis]
        if s == d:
            return 0
        if axis not in self.wraps:
            return d - s
        if side == 2:
            return 1
        up = (d - s) % side
        if 2 * up < side:
            return up
        if 2 * up > side:
            return up - side
        if self.tie == "minus" or (self.tie == "split" and s % 2 == 1):
            return -up
        return up

    def route(self, a, b, load, loads):
        """Add load to every channel of the route from router a to b."""
        at = self.coords(a)
        dst = self.coords(b)
        for axis, side in enumerate(self.sides):
            mv = self.move(axis, at[axis], dst[axis])
            step = 1 if mv > 0 else -1
            for _ in range(abs(mv)):
                key = (self.number(at), axis, step)
                loads[key] = loads.get(key, 0) + load
                at[axis] = (at[axis] + step) % side

    def neighbour(self, router, axis, step):
        c = self.coords(router)
        c[axis] = (c[axis] + step) % self.sides[axis]
        return self.number(c)


def read_alloc(path, net_sides):
    probe = Network(net_sides, set(), "plus", 1, None)
    out = []
    for row in numbers(path):
        out.append(row[0] if len(row) == 1 else probe.number(row))
    return out


def gf_mul(a, b, k, poly):
    """a * b in GF(k), k = 2^m, reduced by the polynomial (its bits)."""
    r = 0
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a <<= 1
        if a & k:
            a ^= poly
    return r


def lcc_traffic(doc):
    """The messages of `kcube analyze --json`'s linear communication over
    GF(field) on rank digits (digit 0 least significant): x -> Ax + b, or
    for a scatter Ay + b -> y; one byte each."""
    k = doc.get("field", doc["k"])  # a plain network: the network's own field
    poly = doc.get("field_polynomial", doc.get("polynomial"))
    a, b = doc["matrix"], doc["vector"]
    n = len(b)
    out = []
    for x in range(k ** n):
        dig = [(x // k ** i) % k for i in range(n)]
        y = 0
        for i in range(n):
            v = b[i]
            for j in range(n):
                v ^= gf_mul(a[i][j], dig[j], k, poly)
            y += v * k ** i
        out.append([y, x, 1] if doc["kind"] == "scatter" else [x, y, 1])
    return out


def count(net, traffic, mapping):
    """Loads per channel (router, axis, dir)."""
    loads = {}
    for row in traffic:
        src, dst = row[0], row[1]
        size = row[2] if len(row) > 2 else 1
        a, b = mapping[src] // net.conc, mapping[dst] // net.conc
        if a != b:
            net.route(a, b, size, loads)
    return loads


def check_cost(path, name, loads, bad):
    """The start `name` of kcube map --json costs what the recount says."""
    with open(path) as f:
        doc = json.load(f)
    got = [s for s in doc["starts"] if s["mapping"] == name]
    if not got:
        bad.append("kcube map --json has no start named %s" % name)
        return
    want = {"max_load": max(loads.values(), default=0), "hops": sum(loads.values()),
            "sumsq": sum(v * v for v in loads.values())}
    for key, v in want.items():
        if int(got[0][key]) != v:
            bad.append("start %s: %s %s in kcube, %d recounted" % (name, key, got[0][key], v))


def read_kcube(path, net):
    loads, bad = {}, []
    for row in numbers(path):
        frm, to, axis, step, load = row
        if net.neighbour(frm, axis, step) != to:
            bad.append("kcube's line %s: router %d's %+d neighbour on axis %d is %d" %
                       (row, frm, step, axis, net.neighbour(frm, axis, step)))
        if (frm, axis, step) in loads:
            bad.append("kcube lists channel %d axis %d %+d twice" % (frm, axis, step))
        loads[(frm, axis, step)] = load
    return loads, bad


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--shape", required=True)
    p.add_argument("--wrap", help="axes that are rings: all, none (the default, as --shape alone) or a list")
    p.add_argument("--tie", default="plus", choices=["plus", "minus", "split"])
    p.add_argument("--endpoints", type=int, default=1)
    p.add_argument("--nodes", help="allocation file: a router per line, number or coordinates")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--traffic", help="traffic file: src dst [bytes] per line")
    src.add_argument("--lcc-json", help="kcube analyze --json of a linear communication on this network")
    p.add_argument("--mapping", help="node list: endpoint of rank r on line r")
    p.add_argument("--loads", help="kcube's --loads output")
    p.add_argument("--cost-json", help="kcube map --json: compare the start named by --start")
    p.add_argument("--start", default="file")
    args = p.parse_args()
    try:
        sides = [int(s) for s in args.shape.split("x")]
        net = Network(sides, parse_wrap(args.wrap, len(sides)), args.tie, args.endpoints,
                      read_alloc(args.nodes, sides) if args.nodes else None)
        if args.traffic:
            traffic = numbers(args.traffic)
        else:
            with open(args.lcc_json) as f:
                traffic = lcc_traffic(json.load(f))
        if args.mapping:
            mapping = [row[0] for row in numbers(args.mapping)]
        else:
            mapping = [net.alloc[s // net.conc] * net.conc + s % net.conc
                       for s in range(len(net.alloc) * net.conc)]
        mine = count(net, traffic, mapping)
        theirs, bad = read_kcube(args.loads, net) if args.loads else (mine, [])
        if args.cost_json:
            check_cost(args.cost_json, args.start, mine, bad)
    except (OSError, ValueError, IndexError, KeyError) as e:
        print("recount: %s" % e, file=sys.stderr)
        return 2
    for key in sorted(set(mine) | set(theirs)):
        if mine.get(key, 0) != theirs.get(key, 0):
            bad.append("channel from %d axis %d %+d: recount %d, kcube %d" %
                       (key[0], key[1], key[2], mine.get(key, 0), theirs.get(key, 0)))
    if bad:
        print("\n".join(bad[:20]))
        return 1
    print("recount: %d channels agree, max load %d" % (len(mine), max(mine.values(), default=0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
