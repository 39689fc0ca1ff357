#!/usr/bin/env python3
"""Write the example schedules of LogGOPSim (spcl/LogGOPSim) in its own layout,
generated from the algorithms they describe, so that tests run "LogGOPSim's
own example schedules" without keeping another project's files here.

  loggopsim_examples.py tree P       binary_tree_P.goal: binomial-tree broadcast of 1 byte
  loggopsim_examples.py dissem P     dissemination_P.goal: dissemination barrier, 1 byte
  loggopsim_examples.py schedgen2 P  Schedgen2's schedule.goal: binomial broadcast of 8 bytes,
                                     labels numbered across ranks, tag 42001

For P = 16 (tree, dissem) and P = 8 (schedgen2) the output was compared
byte for byte with the upstream files on 2026-11-23 and is identical.
"""
import sys


def tree(p):
    ranks = []
    for r in range(p):
        ops = []
        label = 1
        if r:
            top = 1 << (r.bit_length() - 1)
            ops.append("l1: recv 1b from %d tag 0" % (r - top))
            label, step = 2, top << 1
        else:
            step = 1
        while r + step < p:
            ops.append("l%d: send 1b to %d tag 0" % (label, r + step))
            if r:
                ops.append("l%d requires l1" % label)
            label, step = label + 1, step << 1
        ranks.append("rank %d {\n%s\n}\n" % (r, "\n".join(ops)))
    return "\n".join(["num_ranks %d\n" % p] + ranks)


def dissem(p):
    ranks = []
    for r in range(p):
        ops, label, dist = [], 1, 1
        while dist < p:
            ops.append("l%d: send 1b to %d tag 0" % (label, (r + dist) % p))
            if label > 1:
                ops.append("l%d requires l%d" % (label, label - 1))
            ops.append("l%d: recv 1b from %d tag 0" % (label + 1, (r - dist) % p))
            label, dist = label + 2, dist << 1
        ranks.append("rank %d {\n%s\n}\n" % (r, "\n".join(ops)))
    return "\n".join(["num_ranks %d\n" % p] + ranks)


def schedgen2(p):
    out, label = ["num_ranks %d\n\n" % p], 1
    for r in range(p):
        ops, deps = [], []
        recv = None
        if r:
            top = 1 << (r.bit_length() - 1)
            recv = label
            ops.append("l%d: recv 8b from %d tag 42001" % (label, r - top))
            label, step = label + 1, top << 1
        else:
            step = 1
        while r + step < p:
            ops.append("l%d: send 8b to %d tag 42001" % (label, r + step))
            if recv is not None:
                deps.append("l%d requires l%d" % (label, recv))
            label, step = label + 1, step << 1
        out.append("rank %d {\n%s\n}\n\n" % (r, "\n".join(ops + deps)))
    return "".join(out)


if __name__ == "__main__":
    kind, p = sys.argv[1], int(sys.argv[2])
    sys.stdout.write({"tree": tree, "dissem": dissem, "schedgen2": schedgen2}[kind](p))
