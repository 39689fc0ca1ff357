#!/usr/bin/env python3
"""Seeded random GOAL schedules for comparing `kcube replay --model loggops`
with LogGOPSim (tests/support/loggopsim_compare.py, tests/data/
loggopsim_conformance.txt): DAGs with `requires` and `irequires`, dependency
lines shuffled within each rank block, several CPUs and NICs, and wildcard
receives (any source, any tag, both), deadlock-free by construction.

  goal_random.py SEED            the schedule of SEED on stdout

Construction. A global sequence of steps; each step is a calc on one rank
or a message between two ranks (its send and its receive). An operation
depends only on operations of its rank from earlier steps, so in the
global order every operation can run once those before it have: no
deadlock through ordinary receives. Those name their source and a tag of
their own (1000 + step), so their match is the file's.

Wildcard receives come in groups, whose candidate sends are theirs alone:
at a rank in "tag" mode, a group is every message to it with one group tag
(receives from any source with that tag); in "source" mode, every message
from one source (receives from that source with any tag); in "any" mode,
every message to the rank (any source, any tag). A group's receives depend
only on the group's previous receive (requires or irequires), nothing else,
so they are posted in order and each takes the next message of the group
to arrive: whichever send that is, every receive is matched once its
group's earlier sends have been issued, and the global order again rules
out a deadlock (a rendezvous send is done once any group receive takes it).
Other operations may depend on group receives. A group's messages share a
size class (1-100, 101-65535, above 65535 bytes) so that eager or
rendezvous is the same decision whether the send's size or the receive's
decides it, under each of the comparison's S (65535, inf, 0, 100): where
LogGOPSim decides on the receive's size (docs/loggops.md) it then agrees.
No 0-byte messages (LogGOPSim's s - 1 wraps around: a documented
departure). Labels are defined before the dependency lines that use them
(LogGOPSim's txt2bin needs that).

The generator is its own (splitmix64), so a seed gives the same schedule
under every Python version.
"""
import sys

MASK = (1 << 64) - 1


class Rng:
    """splitmix64: the schedules must not depend on Python's random."""

    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n

    def chance(self, p):
        return self.below(1 << 20) < p * (1 << 20)

    def pick(self, seq):
        return seq[self.below(len(seq))]


SIZE_CLASSES = ((1, 100), (101, 65535), (65536, 200000))


class Rank:
    def __init__(self):
        self.ops = []   # (label, text)
        self.deps = []  # (label, kind, on)
        self.plain = []  # labels other operations may depend on


def suffix(rng, ncpu, nnic, comm):
    s = ""
    if ncpu > 1 and rng.chance(0.5):
        s += " cpu %d" % rng.below(ncpu)
    if comm and nnic > 1 and rng.chance(0.5):
        s += " nic %d" % rng.below(nnic)
    return s


def add_deps(rng, rank, label):
    """Up to three of the rank's last six operations, requires or irequires."""
    cand = rank.plain[-6:]
    for on in cand:
        if rng.chance(0.35):
            rank.deps.append((label, "irequires" if rng.chance(0.3) else "requires", on))
    if cand and not any(d[0] == label for d in rank.deps) and rng.chance(0.7):
        rank.deps.append((label, "requires", cand[-1]))


class Sched:
    def __init__(self, seed):
        self.rng = rng = Rng(seed)
        self.p = 2 + rng.below(15)
        self.ncpu = 1 + rng.below(3)
        self.nnic = 1 + rng.below(2)
        self.ties = rng.chance(0.3)  # calcs from a few values: many equal times
        self.ranks = [Rank() for _ in range(self.p)]
        self.mode = [rng.pick(("plain", "plain", "tag", "source", "any")) for _ in range(self.p)]
        self.groups = {}  # (dest,) + key -> [size class, last receive label]
        self.by_source = {}  # (dest, source) -> whether a "source" group takes them
        self.n = 0

    def label(self, r):
        self.n += 1
        return "l%d" % self.n

    def calc(self, r):
        rng, rank = self.rng, self.ranks[r]
        t = rng.pick((100, 200, 500)) if self.ties else 1 + rng.below(5000)
        lab = self.label(r)
        rank.ops.append((lab, "calc %d%s" % (t, suffix(rng, self.ncpu, 1, False))))
        add_deps(rng, rank, lab)
        rank.plain.append(lab)

    def group_of(self, s, d):
        """The group key of a message s -> d, or None for an ordinary one."""
        rng, mode = self.rng, self.mode[d]
        if mode == "tag":
            return ("tag", 1 + rng.below(2)) if rng.chance(0.6) else None
        if mode == "source":  # all messages from s, or none, in the group
            if (d, s) not in self.by_source:
                self.by_source[(d, s)] = rng.chance(0.6)
            return ("source", s) if self.by_source[(d, s)] else None
        if mode == "any":
            return ("any",)
        return None

    def message(self, s, d, step):
        rng = self.rng
        key = self.group_of(s, d)
        g = None
        if key is not None:
            g = self.groups.get((d,) + key)
            if g is None:
                g = self.groups[(d,) + key] = [rng.pick(SIZE_CLASSES), None]
            lo, hi = g[0]
        else:
            lo, hi = rng.pick(SIZE_CLASSES)
        size = lo + rng.below(hi - lo + 1)
        if key is None:
            stag, rsrc, rtag = 1000 + step, s, 1000 + step
        elif key[0] == "tag":
            stag, rsrc, rtag = key[1], -1, key[1]
        elif key[0] == "source":
            stag, rsrc, rtag = 1000 + step, s, -1
        else:
            stag, rsrc, rtag = 1000 + step, -1, -1
        sender, receiver = self.ranks[s], self.ranks[d]
        ls = self.label(s)
        sender.ops.append((ls, "send %db to %d tag %d%s" % (size, d, stag, suffix(rng, self.ncpu, self.nnic, True))))
        add_deps(rng, sender, ls)
        sender.plain.append(ls)
        lr = self.label(d)
        receiver.ops.append((lr, "recv %db from %d tag %d%s" % (size, rsrc, rtag,
                                                                  suffix(rng, self.ncpu, self.nnic, True))))
        if g is None:
            add_deps(rng, receiver, lr)
        elif g[1] is not None:
            receiver.deps.append((lr, "irequires" if rng.chance(0.5) else "requires", g[1]))
        if g is not None:
            g[1] = lr
        receiver.plain.append(lr)  # others may wait for it

    def build(self):
        rng = self.rng
        steps = 10 + rng.below(120)
        for step in range(steps):
            if rng.chance(0.35):
                self.calc(rng.below(self.p))
            else:
                s = rng.below(self.p)
                d = (s + 1 + rng.below(self.p - 1)) % self.p
                self.message(s, d, step)
        return self

    def block(self, r):
        """The rank's lines: operations in order, each dependency line at a
        random place after both its labels (so the lines are shuffled)."""
        rng, rank = self.rng, self.ranks[r]
        pos = {lab: i for i, (lab, _) in enumerate(rank.ops)}
        slots = [[] for _ in range(len(rank.ops))]
        for lab, kind, on in rank.deps:
            first = max(pos[lab], pos[on])
            slots[first + rng.below(len(rank.ops) - first)].append("%s %s %s" % (lab, kind, on))
        lines = []
        for i, (lab, text) in enumerate(rank.ops):
            lines.append("%s: %s" % (lab, text))
            extra = slots[i]
            for k in range(len(extra) - 1, 0, -1):  # shuffle within the slot
                j = rng.below(k + 1)
                extra[k], extra[j] = extra[j], extra[k]
            lines.extend(extra)
        return lines

    def text(self):
        out = ["num_ranks %d\n" % self.p]
        for r in range(self.p):
            out.append("\nrank %d {\n%s}\n" % (r, "".join(l + "\n" for l in self.block(r))))
        return "".join(out)


def schedule(seed):
    """The GOAL text of seed."""
    return Sched(seed).build().text()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: goal_random.py SEED")
    sys.stdout.write(schedule(int(sys.argv[1])))
