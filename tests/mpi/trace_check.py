"""Check the OTF2 archive libkcube-trace.so wrote for tests/mpi/trace_prog.c.

Usage: /usr/bin/python3 trace_check.py ANCHOR P [more]
Reads the archive with python3-otf2's reader (an OTF2 reader independent of
kcube's), puts every rank's MPI events in program order with peers and
roots as world ranks (through each communicator's group) and requests
numbered by first appearance, and compares them with the list this script
derives from trace_prog.c's fixed pattern for P ranks: exactly the
program's messages (peer, tag, bytes, communicator members, the MPI
function around each), its collectives (operation, root, bytes sent and
received by Score-P's convention), its MPI_Pcontrol regions, the ranks'
locations, event counts and clock. Prints the first differences and exits 1
on any, 0 when everything matches.
"""
import sys

import otf2


def world_of(defs):
    """Location -> world rank, from the MPI COMM_LOCATIONS group."""
    groups = [g for g in defs.groups if g.group_type == otf2.GroupType.COMM_LOCATIONS]
    if len(groups) != 1:
        raise SystemExit(f"expected one COMM_LOCATIONS group, found {len(groups)}")
    return {loc: i for i, loc in enumerate(groups[0].members)}


def read(anchor):
    """Per world rank: the normalised event list, and the archive's facts."""
    per, facts = {}, {}
    with otf2.reader.open(anchor) as tr:
        defs = tr.definitions
        world = world_of(defs)
        members = {c: tuple(world[m] for m in c.group.members) for c in defs.comms}
        facts["ranks"] = len(world)
        facts["nodes"] = sorted({lg.system_tree_parent.name for lg in defs.location_groups})
        facts["declared"] = {world[loc]: loc.number_of_events for loc in world}
        clock = defs.clock_properties
        facts["clock"] = (clock.timer_resolution, clock.global_offset, clock.trace_length)
        counted, stack, reqs, times = {}, {}, {}, []
        for loc, ev in tr.events:
            r = world[loc]
            counted[r] = counted.get(r, 0) + 1
            times.append(ev.time)
            st = stack.setdefault(r, [])
            out = per.setdefault(r, [])
            one(ev, r, st, out, members, reqs.setdefault(r, {}))
        facts["counted"] = counted
        facts["times"] = (min(times), max(times)) if times else (0, 0)
    return per, facts


def one(ev, r, st, out, members, reqs):
    """Append event ev of rank r to out (None: not compared), keeping the region stack st."""
    name = type(ev).__name__
    where = st[-1] if st else None
    if name == "Enter":
        st.append(ev.region.name)
        if not ev.region.name.startswith("MPI_"):
            out.append(("enter", ev.region.name))
        return
    if name == "Leave":
        top = st.pop() if st else None
        if top != ev.region.name:
            out.append(("bad-nesting", top, ev.region.name))
        elif not top.startswith("MPI_"):
            out.append(("leave", top))
        return
    rq = lambda i: reqs.setdefault(i, len(reqs))  # requests numbered by first appearance
    kinds = {"MpiSend": "send", "MpiIsend": "isend", "MpiRecv": "recv", "MpiIrecv": "irecv"}
    if name in kinds:
        m = members[ev.communicator]
        peer = ev.receiver if "send" in kinds[name] else ev.sender
        item = [kinds[name], where, m[peer], ev.msg_tag, ev.msg_length, m]
        if name in ("MpiIsend", "MpiIrecv"):
            item.append(rq(ev.request_id))
        out.append(tuple(item))
    elif name == "MpiIrecvRequest":
        out.append(("irecv-request", where, rq(ev.request_id)))
    elif name == "MpiIsendComplete":
        out.append(("isend-complete", where, rq(ev.request_id)))
    elif name == "MpiCollectiveBegin":
        out.append(("coll-begin", where))
    elif name == "MpiCollectiveEnd":
        m = members[ev.communicator]
        root = None if ev.root == 0xFFFFFFFF else m[ev.root]  # OTF2_UNDEFINED_UINT32: no root
        out.append(("coll-end", where, str(ev.collective_op).split(".")[-1], root, ev.size_sent, ev.size_received, m))
    else:
        out.append(("other", name))


def coll(region, op, root, sent, recvd, m):
    return [("coll-begin", region), ("coll-end", region, op, root, sent, recvd, m)]


def expected(r, p):
    """Rank r's events as trace_prog.c makes them (its comment lists the steps)."""
    w = tuple(range(p))
    e = []
    # 1. blocking ring
    prev, nxt = (r + p - 1) % p, (r + 1) % p
    send = ("send", "MPI_Send", nxt, 10, (r + 1) * 8, w)
    recv = ("recv", "MPI_Recv", prev, 10, (prev + 1) * 8, w)
    e += [send, recv] if r == 0 else [recv, send]
    # 2. Irecv from r-2, Isend to r+2, Waitall (completions in array order)
    e += [("irecv-request", "MPI_Irecv", 0), ("isend", "MPI_Isend", (r + 2) % p, 20, 64, w, 1),
          ("irecv", "MPI_Waitall", (r + p - 2) % p, 20, 64, w, 0), ("isend-complete", "MPI_Waitall", 1)]
    # 3. wildcard gather at rank 0 (arrival order varies: compared sorted)
    if r == 0:
        e.append(("wildcard", sorted(("recv", "MPI_Recv", s, 30 + s, 4 * s, w) for s in range(1, p))))
    else:
        e.append(("send", "MPI_Send", 0, 30 + r, 4 * r, w))
    # 4. split by parity, order reversed; message from its rank 0 to its rank 1; bcast of 2 ints
    sub = tuple(sorted((q for q in range(p) if q % 2 == r % 2), reverse=True))
    me = sub.index(r)
    if me == 0 and len(sub) > 1:
        e.append(("send", "MPI_Send", sub[1], 40, 40, sub))
    elif me == 1:
        e.append(("recv", "MPI_Recv", sub[0], 40, 40, sub))
    e += coll("MPI_Bcast", "BCAST", sub[0], len(sub) * 8 if me == 0 else 0, 8, sub)
    # 5. regions, the Sendrecv ring, bcast of 3 doubles from 1, allreduce of 2 doubles, alltoall of 1 int
    e += [("enter", "solver"), ("enter", "halo"), ("send", "MPI_Sendrecv", nxt, 50, 8, w),
          ("recv", "MPI_Sendrecv", prev, 50, 8, w), ("leave", "halo")]
    e += coll("MPI_Bcast", "BCAST", 1, p * 24 if r == 1 else 0, 24, w)
    e += coll("MPI_Allreduce", "ALLREDUCE", None, p * 16, p * 16, w)
    e += coll("MPI_Alltoall", "ALLTOALL", None, p * 4, p * 4, w)
    e.append(("leave", "solver"))
    # 6. barrier; 7. reduce of one long to 0
    e += coll("MPI_Barrier", "BARRIER", None, 0, 0, w)
    e += coll("MPI_Reduce", "REDUCE", 0, 8, p * 8 if r == 0 else 0, w)
    return e


def expected_more(r, p):
    """The events of trace_prog.c's more() (the argument "more"), after expected()'s."""
    w = tuple(range(p))
    prev, nxt = (r + p - 1) % p, (r + 1) % p
    e = []
    # completions: requests 2.. (expected() used 0 and 1); each pair: receive, then send
    for k, (tag, size, start, recv_by, send_by) in enumerate(
            [(60, 8, "MPI_Issend", "MPI_Waitany", "MPI_Waitsome"), (61, 16, "MPI_Isend", "MPI_Test", "MPI_Testall"),
             (62, 24, "MPI_Isend", "MPI_Testany", "MPI_Testsome")]):
        q = 2 + 2 * k
        e += [("irecv-request", "MPI_Irecv", q), ("isend", start, nxt, tag, size, w, q + 1),
              ("irecv", recv_by, prev, tag, size, w, q), ("isend-complete", send_by, q + 1)]
    # blocking: Sendrecv_replace; the MPI_PROC_NULL send records nothing; a freed Isend (never completed)
    e += [("send", "MPI_Sendrecv_replace", nxt, 63, 8, w), ("recv", "MPI_Sendrecv_replace", prev, 63, 8, w),
          ("isend", "MPI_Isend", nxt, 64, 4, w, 8), ("recv", "MPI_Recv", prev, 64, 4, w)]
    ssend, recv = ("send", "MPI_Ssend", nxt, 65, 1, w), ("recv", "MPI_Recv", prev, 65, 1, w)
    e += [ssend, recv] if r == 0 else [recv, ssend]
    e += coll("MPI_Barrier", "BARRIER", None, 0, 0, w)
    # collectives: counts i + 1 in the v-variants (their sum n), 4-byte ints, 8-byte doubles
    n4 = 4 * p * (p + 1) // 2
    e += coll("MPI_Gather", "GATHER", 0, 8, p * 8 if r == 0 else 0, w)
    e += coll("MPI_Gatherv", "GATHERV", p - 1, 4 * (r + 1), n4 if r == p - 1 else 0, w)
    e += coll("MPI_Scatter", "SCATTER", 1, p * 4 if r == 1 else 0, 4, w)
    e += coll("MPI_Scatterv", "SCATTERV", 0, n4 if r == 0 else 0, 4 * (r + 1), w)
    e += coll("MPI_Allgather", "ALLGATHER", None, p * 4, p * 4, w)
    e += coll("MPI_Allgatherv", "ALLGATHERV", None, p * 4 * (r + 1), n4, w)
    e += coll("MPI_Alltoallv", "ALLTOALLV", None, p * 4, p * 4, w)
    e += coll("MPI_Alltoallw", "ALLTOALLW", None, p * 4, p * 4, w)
    e += coll("MPI_Reduce_scatter_block", "REDUCE_SCATTER_BLOCK", None, p * 4, p * 4, w)
    e += coll("MPI_Reduce_scatter", "REDUCE_SCATTER", None, n4, p * 4 * (r + 1), w)
    e += coll("MPI_Scan", "SCAN", None, (p - r) * 8, (r + 1) * 8, w)
    e += coll("MPI_Exscan", "EXSCAN", None, (p - r - 1) * 8, r * 8, w)
    e += coll("MPI_Allreduce", "ALLREDUCE", None, (p - 1) * 8, (p - 1) * 8, w)  # MPI_IN_PLACE
    # communicators: a ring on a duplicate of the world, a bcast on a Cart_sub line
    send, recv = ("send", "MPI_Send", nxt, 70, 12, w), ("recv", "MPI_Recv", prev, 70, 12, w)
    e += [send, recv] if r == 0 else [recv, send]
    e += coll("MPI_Bcast", "BCAST", 0, p * 4 if r == 0 else 0, 4, w)
    return e + [("enter", "open"), ("leave", "open")]


def fold_wildcard(got, p):
    """Rank 0's p-1 wildcard receives (after the non-blocking step) as one sorted item."""
    at = 6  # ring (2) + non-blocking (4)
    block = got[at:at + p - 1]
    return got[:at] + [("wildcard", sorted(block))] + got[at + p - 1:]


def main():
    anchor, p = sys.argv[1], int(sys.argv[2])
    extra = len(sys.argv) > 3 and sys.argv[3] == "more"
    per, facts = read(anchor)
    bad = []
    if facts["ranks"] != p:
        bad.append(f"{facts['ranks']} ranks in the archive, expected {p}")
    if facts["declared"] != facts["counted"]:
        bad.append(f"declared event counts {facts['declared']} differ from those read {facts['counted']}")
    res, off, length = facts["clock"]
    lo, hi = facts["times"]
    if res != 10**9 or lo < off or hi > off + length:
        bad.append(f"clock {facts['clock']} does not cover the events' times {facts['times']}")
    if len(facts["nodes"]) != 1:
        bad.append(f"one host expected in the system tree, found {facts['nodes']}")
    for r in range(p):
        got = per.get(r, [])
        if r == 0:
            got = fold_wildcard(got, p)
        want = expected(r, p) + (expected_more(r, p) if extra else [])
        if got != want:
            for i, (g, w) in enumerate(zip(got + [None] * len(want), want + [None] * len(got))):
                if g != w:
                    bad.append(f"rank {r} event {i}: got {g}, expected {w}")
                    break
    for line in bad[:10]:
        print("trace_check: " + line)
    if not bad:
        print(f"trace_check: {p} ranks, {sum(facts['counted'].values())} events, every message and collective as expected")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
