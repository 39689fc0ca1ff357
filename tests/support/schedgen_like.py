#!/usr/bin/env python3
"""Write GOAL schedules shaped like those Schedgen produces for collectives
(kcube's own generator, written from the algorithms; no Schedgen code), so
that `kcube replay --model loggops` can be compared with LogGOPSim on them
and the makespans kept as expected values in tests/cli_loggops.sh.

  schedgen_like.py KIND P SIZE [CALC]

KIND: bcast (binomial tree), reduce (binomial tree, a calc after each
receive), dissem (dissemination barrier), rdallreduce (recursive doubling,
P a power of two), ring (ring allreduce: 2 (P - 1) steps of SIZE / P
bytes), gather (every rank sends SIZE bytes to rank 0: an incast), scatter
(rank 0 sends SIZE bytes to each rank: a fan-out), alltoall (pairwise
exchange), random (a seeded mix of messages and calcs; SIZE is the seed),
halo (a 3-D periodic halo exchange on a cube of P ranks: per iteration
each rank posts six receives and six sends of SIZE bytes, all at once,
then computes CALC ns once all twelve are done; ITERS iterations, default
60), dag (a random DAG of STEPS steps, default 400000, SIZE is the seed:
each step is a message between two random ranks, 8 to 4096 bytes, or a
calc on one; each rank's operations form a chain, with now and then an
`irequires` instead of a `requires`).

  schedgen_like.py halo P SIZE [CALC [ITERS]]
  schedgen_like.py dag P SEED [CALC [STEPS]]
CALC: nanoseconds of computation after each receive (reduce, rdallreduce,
ring; default 100).

Every operation requires the one before it on its rank unless the pattern
lets them overlap (gather, scatter and alltoall post all at once, the way
Schedgen writes nonblocking collectives), so receives that become ready
together are posted in program order.
"""
import random
import sys


class Rank:
    def __init__(self):
        self.ops, self.deps, self.n = [], [], 0

    def op(self, text, after=None, start=False):
        self.n += 1
        self.ops.append("l%d: %s" % (self.n, text))
        for a in ([after] if isinstance(after, int) else after or []):
            self.deps.append("l%d %s l%d" % (self.n, "irequires" if start else "requires", a))
        return self.n


def write(ranks):
    out = ["num_ranks %d\n" % len(ranks)]
    for r, rk in enumerate(ranks):
        out.append("\nrank %d {\n%s\n}\n" % (r, "\n".join(rk.ops + rk.deps)))
    return "".join(out)


def bcast(p, size, calc):
    ranks = [Rank() for _ in range(p)]
    for r in range(p):
        last, step = None, 1
        if r:
            top = 1 << (r.bit_length() - 1)
            last = ranks[r].op("recv %db from %d tag 1" % (size, r - top))
            step = top << 1
        while r + step < p:
            ranks[r].op("send %db to %d tag 1" % (size, r + step), last)
            step <<= 1
    return ranks


def reduce_(p, size, calc):
    ranks = [Rank() for _ in range(p)]
    for r in range(p):
        last, step = None, 1
        while step < p and not r & step:
            if r + step < p:
                rv = ranks[r].op("recv %db from %d tag 2" % (size, r + step), last)
                last = ranks[r].op("calc %d" % calc, rv)
            step <<= 1
        if r:
            ranks[r].op("send %db to %d tag 2" % (size, r - step), last)
    return ranks


def dissem(p, size, calc):
    ranks = [Rank() for _ in range(p)]
    for r in range(p):
        last, d = None, 1
        while d < p:
            s = ranks[r].op("send %db to %d tag 3" % (size, (r + d) % p), last)
            last = ranks[r].op("recv %db from %d tag 3" % (size, (r - d) % p), last)
            ranks[r].deps.append("l%d requires l%d" % (last, s))
            d <<= 1
    return ranks


def rdallreduce(p, size, calc):
    ranks = [Rank() for _ in range(p)]
    for r in range(p):
        last, d = None, 1
        while d < p:
            s = ranks[r].op("send %db to %d tag 4" % (size, r ^ d), last)
            rv = ranks[r].op("recv %db from %d tag 4" % (size, r ^ d), last)
            last = ranks[r].op("calc %d" % calc, [s, rv])
            d <<= 1
    return ranks


def ring(p, size, calc):
    ranks = [Rank() for _ in range(p)]
    chunk = max(size // p, 1)
    for r in range(p):
        last = None
        for step in range(2 * (p - 1)):
            s = ranks[r].op("send %db to %d tag %d" % (chunk, (r + 1) % p, 10 + step), last)
            rv = ranks[r].op("recv %db from %d tag %d" % (chunk, (r - 1) % p, 10 + step), last)
            last = ranks[r].op("calc %d" % calc, [s, rv]) if step < p - 1 else [s, rv]
    return ranks


def gather(p, size, calc):
    ranks = [Rank() for _ in range(p)]
    for r in range(1, p):
        ranks[0].op("recv %db from %d tag 5" % (size, r))
        ranks[r].op("send %db to 0 tag 5" % size)
    return ranks


def scatter(p, size, calc):
    ranks = [Rank() for _ in range(p)]
    for r in range(1, p):
        ranks[0].op("send %db to %d tag 6" % (size, r))
        ranks[r].op("recv %db from 0 tag 6" % size)
    return ranks


def alltoall(p, size, calc):
    ranks = [Rank() for _ in range(p)]
    for r in range(p):
        for k in range(1, p):
            ranks[r].op("send %db to %d tag 7" % (size, (r + k) % p))
            ranks[r].op("recv %db from %d tag 7" % (size, (r - k) % p))
    return ranks


def random_(p, seed, calc):
    """Rounds of a random permutation's messages, each rank's operations in
    a chain with calcs between; sizes from 0 bytes to 256 KiB."""
    rng = random.Random(seed)
    ranks = [Rank() for _ in range(p)]
    last = [None] * p
    for rnd in range(6):
        perm = list(range(p))
        rng.shuffle(perm)
        size = rng.choice([0, 1, 8, 100, 4096, 70000, 262144])
        for r in range(p):
            if perm[r] == r:
                continue
            s = ranks[r].op("send %db to %d tag %d" % (size, perm[r], rnd), last[r])
            src = perm.index(r)
            rv = ranks[r].op("recv %db from %d tag %d" % (size, src, rnd), last[r],
                             start=rng.random() < 0.3)
            last[r] = ranks[r].op("calc %d" % rng.randrange(0, 5000), [s, rv])
    return ranks


def halo(p, size, calc, iters=60):
    side = round(p ** (1 / 3))
    assert side ** 3 == p, "halo needs a cube number of ranks"
    ranks = [Rank() for _ in range(p)]
    last = [None] * p

    def at(x, y, z):
        return (x % side) + side * ((y % side) + side * (z % side))
    for it in range(iters):
        for r in range(p):
            x, y, z = r % side, (r // side) % side, r // (side * side)
            nb = [at(x + 1, y, z), at(x - 1, y, z), at(x, y + 1, z), at(x, y - 1, z), at(x, y, z + 1),
                  at(x, y, z - 1)]
            ops = [ranks[r].op("recv %db from %d tag %d" % (size, q, k), last[r])
                   for k, q in enumerate(nb)]
            ops += [ranks[r].op("send %db to %d tag %d" % (size, q, k ^ 1), last[r])
                    for k, q in enumerate(nb)]
            last[r] = ranks[r].op("calc %d" % calc, ops)
    return ranks


def dag(p, seed, calc, steps=400000):
    rng = random.Random(seed)
    ranks = [Rank() for _ in range(p)]
    last = [None] * p
    for _ in range(steps):
        a = rng.randrange(p)
        if rng.random() < 0.25:
            last[a] = ranks[a].op("calc %d" % rng.randrange(1, 2 * calc + 2), last[a])
            continue
        b = rng.randrange(p - 1)
        b += b >= a
        size = rng.choice([8, 64, 256, 1024, 4096])
        start = rng.random() < 0.2
        last[a] = ranks[a].op("send %db to %d tag 0" % (size, b), last[a], start=start)
        last[b] = ranks[b].op("recv %db from %d tag 0" % (size, a), last[b], start=start)
    return ranks


KINDS = {"bcast": bcast, "reduce": reduce_, "dissem": dissem, "rdallreduce": rdallreduce, "ring": ring,
         "gather": gather, "scatter": scatter, "alltoall": alltoall, "random": random_,
         "halo": halo, "dag": dag}

if __name__ == "__main__":
    kind, p, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    calc = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    extra = [int(sys.argv[5])] if len(sys.argv) > 5 else []
    sys.stdout.write(write(KINDS[kind](p, size, calc, *extra)))
