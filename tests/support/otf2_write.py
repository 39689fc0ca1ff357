#!/usr/bin/python3
"""Write OTF2 archives for the trace reader's tests, and what reading them must give.

usage: /usr/bin/python3 otf2_write.py OUTDIR

Writes, with python3-otf2's writer (otf2.writer: only /usr/bin/python3 has
it), one archive per scenario into OUTDIR/NAME/ (anchor OUTDIR/NAME/traces.otf2)
and beside it OUTDIR/NAME.json: what kc_trace_read_otf2 must make of it,
computed here from the scenario alone (not by reading the archive back):

  ranks, nodes, ranks_per_node, node_of, regions, skipped,
  events: per rank the events in the trace's order, each
          [kind, time_ns, end_ns, peer, tag, bytes, received, request, op, coll, comm members or region name]
  traffic: bytes per (sender, receiver) of the point-to-point sends kept
  error: for the broken archives, a piece of the one-line message (and status) reading must give

A scenario is a small description: ranks, the host of each rank, the
communicators (name -> world ranks in communicator order), the regions, and
per rank the events with times in ticks of the scenario's timer. Event
tuples (peers and roots are communicator ranks, as MPI calls name them):
  ("send"|"recv", t, comm, peer, tag, bytes)
  ("isend", t, comm, peer, tag, bytes, req)   ("isend_complete", t, req)
  ("irecv_request", t, req)   ("irecv", t, comm, peer, tag, bytes, req)
  ("test", t, req)   ("cancel", t, req)   ("other", t)   (a buffer flush: skipped)
  ("coll", t_begin, t_end, op, comm, root or None, sent, received)
  ("enter"|"leave", t, region)
Thread events (scenario "threads": rank -> events) go to a second location
of the rank's process; "foreign" events to a location outside MPI.
The random scenario is seeded (random.Random(SEED)): the same archive and
expectations on every run.
"""
import json
import os
import random
import shutil
import sys

import otf2
from otf2.enums import CollectiveOp, GroupType, LocationType, Paradigm

UNDEF32 = 2**32 - 1
KINDS = ["send", "isend", "recv", "irecv", "complete", "collective", "enter", "leave"]
SEED = 20261128


# ---- writing ---------------------------------------------------------------

def define(tr, sc):
    """The definitions: hosts, processes, locations, groups, communicators, regions."""
    d = tr.definitions
    machine = d.system_tree_node("cluster", class_name="machine")
    klass = sc.get("node_class", "node")
    hosts = {}
    for h in sorted(set(sc["nodes"])):
        hosts[h] = d.system_tree_node("host%d" % h, class_name=klass, parent=machine)
    procs = [d.location_group("MPI Rank %d" % r, system_tree_parent=hosts[sc["nodes"][r]])
             for r in range(sc["ranks"])]
    # Explicit location ids: a rank's location id need not be its rank.
    order = sc.get("location_ids", list(range(sc["ranks"])))
    locs = {}
    for r in sorted(range(sc["ranks"]), key=lambda r: order[r]):
        loc = otf2.definitions.Location(d._locations, order[r], "Master thread %d" % r,
                                        LocationType.CPU_THREAD, 0, procs[r])
        d._locations._register(loc)
        locs[r] = loc
    members = [locs[r] for r in range(sc["ranks"])]
    # "no_world_group": the same groups, of another paradigm (no MPI ranks then).
    para = Paradigm.SHMEM if sc.get("no_world_group") else Paradigm.MPI
    d.group("MPI locations", group_type=GroupType.COMM_LOCATIONS, paradigm=para, members=members)
    comms = {}
    for name, ranks in sc["comms"].items():
        if name == "MPI_COMM_SELF":
            g = d.group("self", group_type=GroupType.COMM_SELF, paradigm=para, members=[])
        else:
            g = d.group("group " + name, group_type=GroupType.COMM_GROUP, paradigm=para, members=ranks)
        comms[name] = d.comm(name, group=g)
    regions = {name: d.region(name) for name in sc["regions"]}
    return d, procs, locs, comms, regions


def write_event(w, ev, comms, regions):
    k = ev[0]
    if k == "send":
        w.mpi_send(ev[1], ev[3], comms[ev[2]], ev[4], ev[5])
    elif k == "recv":
        w.mpi_recv(ev[1], ev[3], comms[ev[2]], ev[4], ev[5])
    elif k == "isend":
        w.mpi_isend(ev[1], ev[3], comms[ev[2]], ev[4], ev[5], ev[6])
    elif k == "isend_complete":
        w.mpi_isend_complete(ev[1], ev[2])
    elif k == "irecv_request":
        w.mpi_irecv_request(ev[1], ev[2])
    elif k == "irecv":
        w.mpi_irecv(ev[1], ev[3], comms[ev[2]], ev[4], ev[5], ev[6])
    elif k == "test":
        w.mpi_request_test(ev[1], ev[2])
    elif k == "cancel":
        w.mpi_request_cancelled(ev[1], ev[2])
    elif k == "other":
        w.buffer_flush(ev[1], ev[1])
    elif k == "coll":
        root = UNDEF32 if ev[5] is None else ev[5]
        w.mpi_collective_begin(ev[1])
        w.mpi_collective_end(ev[2], CollectiveOp(ev[3]), comms[ev[4]], root, ev[6], ev[7])
    elif k in ("enter", "leave"):
        getattr(w, k)(ev[1], regions[ev[2]])
    elif k == "raw_send":  # a send on a communicator reference never defined
        raw(w, ev[1], lambda: w._mpi_send(None, ev[1], ev[3], ev[2], ev[4], ev[5]))
    elif k == "raw_coll":  # a collective on a communicator reference never defined
        w.mpi_collective_begin(ev[1])
        raw(w, ev[2], lambda: w._mpi_collective_end(None, ev[2], ev[3], ev[4], UNDEF32, ev[6], ev[7]))
    else:
        raise ValueError(k)


def raw(w, t, call):
    """An event written below the high-level writer (it refuses what is broken)."""
    w._archive._update_timestamps(t)
    w._location._number_of_events_written += 1
    call()


def write_archive(path, sc):
    with otf2.writer.open(path, timer_resolution=sc["resolution"]) as tr:
        d, procs, locs, comms, regions = define(tr, sc)
        for r in range(sc["ranks"]):
            w = tr.event_writer_from_location(locs[r])
            for ev in sc["events"].get(r, []):
                write_event(w, ev, comms, regions)
        for r, evs in sc.get("threads", {}).items():
            loc = d.location("Pthread %d" % r, type=LocationType.CPU_THREAD, group=procs[r])
            w = tr.event_writer_from_location(loc)
            for ev in evs:
                write_event(w, ev, comms, regions)
        if sc.get("foreign"):
            host = d.system_tree_node("service host", class_name="node")
            grp = d.location_group("daemon", system_tree_parent=host)
            w = tr.event_writer_from_location(d.location("daemon thread", group=grp))
            for ev in sc["foreign"]:
                write_event(w, ev, comms, regions)


# ---- what reading must give ------------------------------------------------

def ticks(ev):
    return [ev[1]] + ([ev[2]] if ev[0] in ("coll", "raw_coll") else [])


def otf2_count(ev):
    return 2 if ev[0] in ("coll", "raw_coll") else 1


def world(sc, comm, peer, rank):
    if peer is None:
        return UNDEF32
    if comm == "MPI_COMM_SELF":
        return rank
    return sc["comms"][comm][peer]


def members(sc, comm, rank):
    return [rank] if comm == "MPI_COMM_SELF" else sc["comms"][comm]


def convert(sc, rank, ev, ns):
    """One scenario event as the trace's event (None: skipped), and the OTF2 events it uses."""
    k = ev[0]
    none = UNDEF32
    if k in ("send", "recv", "isend", "irecv"):
        kind = {"send": "send", "recv": "recv", "isend": "isend", "irecv": "complete"}[k]
        req = ev[6] if k in ("isend", "irecv") else -1
        return [kind, ns(ev[1]), ns(ev[1]), world(sc, ev[2], ev[3], rank), ev[4], ev[5], 0, req, -1, 0,
                members(sc, ev[2], rank)]
    if k in ("isend_complete", "irecv_request"):
        kind = "complete" if k == "isend_complete" else "irecv"
        return [kind, ns(ev[1]), ns(ev[1]), none, 0, 0, 0, ev[2], -1, 0, None]
    if k == "coll":
        if ev[3] > 16:
            return None
        return ["collective", ns(ev[1]), ns(ev[2]), world(sc, ev[4], ev[5], rank), 0, ev[6], ev[7], -1, -1,
                ev[3], members(sc, ev[4], rank)]
    if k in ("enter", "leave"):
        return [k, ns(ev[1]), ns(ev[1]), none, 0, 0, 0, -1, -1, 0, ev[2]]
    return None


def rank_events(sc, rank, ns):
    """The rank's events in the trace's order, and how many OTF2 events were used."""
    out, used = [], 0
    threads = sc.get("threads", {}).get(rank, [])
    for main, evs in ((True, sc["events"].get(rank, [])), (False, threads)):
        for ev in evs:
            if not main and ev[0] in ("enter", "leave"):
                continue
            if ev[0] == "cancel":  # the request's start is dropped
                for i in range(len(out) - 1, -1, -1):
                    if out[i][7] == ev[2] and out[i][0] in ("isend", "irecv"):
                        del out[i]
                        used -= 1
                        break
                continue
            e = convert(sc, rank, ev, ns)
            if e is not None:
                out.append(e)
                used += otf2_count(ev)
    if any(convert(sc, rank, ev, ns) for ev in threads if ev[0] not in ("enter", "leave")):
        out.sort(key=lambda e: e[1])  # stable: each location's order stays
    link_requests(out)
    return out, used


def link_requests(out):
    """A completion's op is its start's index; an IRECV takes its completion's fields."""
    live = {}
    for i, e in enumerate(out):
        if e[0] in ("isend", "irecv"):
            live[e[7]] = i
        elif e[0] == "complete" and e[7] in live:
            start = live.pop(e[7])
            e[8] = start
            if out[start][0] == "irecv":
                s = out[start]
                s[3], s[4], s[5], s[10] = e[3], e[4], e[5], e[10]


def expect(sc):
    every = [t for evs in list(sc["events"].values()) + list(sc.get("threads", {}).values())
             + [sc.get("foreign", [])] for ev in evs for t in ticks(ev)]
    origin = min(every)
    res = sc["resolution"]

    def ns(t):
        return (t - origin) * 10**9 // res

    events, used = [], 0
    traffic = [[0] * sc["ranks"] for _ in range(sc["ranks"])]
    for r in range(sc["ranks"]):
        evs, u = rank_events(sc, r, ns)
        events.append(evs)
        used += u
        for e in evs:
            if e[0] in ("send", "isend"):
                traffic[r][e[3]] += e[5]
    total = sum(otf2_count(ev) for evs in list(sc["events"].values()) + list(sc.get("threads", {}).values())
                + [sc.get("foreign", [])] for ev in evs)
    hosts, node_of = [], []
    for r in range(sc["ranks"]):
        h = sc["nodes"][r]
        if h not in hosts:
            hosts.append(h)
        node_of.append(hosts.index(h))
    return {"ranks": sc["ranks"], "nodes": len(hosts), "node_of": node_of,
            "ranks_per_node": max(node_of.count(n) for n in range(len(hosts))),
            "regions": sc["regions"], "skipped": total - used, "events": events, "traffic": traffic,
            "declared": sum(otf2_count(ev) for evs in list(sc["events"].values())
                            + list(sc.get("threads", {}).values()) for ev in evs)}


# ---- the scenarios ---------------------------------------------------------

def basic():
    """Four ranks on two hosts: blocking and non-blocking messages on the world,
    two sub-communicators in their own rank orders and MPI_COMM_SELF, a failed
    test, a cancelled receive, collectives with and without a root, a
    communicator creation (skipped), nested regions, a thread's send, a
    daemon outside MPI, microsecond ticks."""
    ALLREDUCE, BCAST, CREATE = 11, 1, 17
    ev = {
        0: [("enter", 1000, "main"), ("send", 1005, "MPI_COMM_WORLD", 1, 1, 100),
            ("isend", 1010, "pair", 0, 2, 200, 7), ("irecv_request", 1011, 8), ("test", 1012, 8),
            ("irecv", 1020, "pair", 0, 3, 300, 8), ("isend_complete", 1021, 7), ("enter", 1030, "solver"),
            ("coll", 1040, 1050, ALLREDUCE, "MPI_COMM_WORLD", None, 8, 8), ("irecv_request", 1055, 9),
            ("cancel", 1056, 9), ("leave", 1060, "solver"), ("send", 1061, "MPI_COMM_SELF", 0, 4, 50),
            ("recv", 1062, "MPI_COMM_SELF", 0, 4, 50), ("other", 1063),
            ("coll", 1064, 1065, CREATE, "MPI_COMM_WORLD", None, 0, 0), ("leave", 1070, "main")],
        1: [("enter", 1000, "main"), ("recv", 1006, "MPI_COMM_WORLD", 0, 1, 100),
            ("send", 1015, "odd", 0, 5, 400), ("coll", 1040, 1052, ALLREDUCE, "MPI_COMM_WORLD", None, 8, 8),
            ("coll", 1053, 1058, BCAST, "odd", 1, 64, 0), ("leave", 1070, "main")],
        2: [("enter", 1000, "main"), ("irecv_request", 1008, 1), ("send", 1012, "pair", 1, 3, 300),
            ("irecv", 1013, "pair", 1, 2, 200, 1), ("recv", 1030, "MPI_COMM_WORLD", 1, 9, 1000),
            ("coll", 1040, 1051, ALLREDUCE, "MPI_COMM_WORLD", None, 8, 8), ("leave", 1070, "main")],
        3: [("enter", 1000, "main"), ("recv", 1016, "odd", 1, 5, 400),
            ("coll", 1040, 1049, ALLREDUCE, "MPI_COMM_WORLD", None, 8, 8),
            ("coll", 1053, 1059, BCAST, "odd", 1, 0, 64), ("leave", 1070, "main")],
    }
    return {"ranks": 4, "resolution": 10**6, "nodes": [0, 0, 1, 1], "location_ids": [10, 3, 7, 1],
            "comms": {"MPI_COMM_WORLD": [0, 1, 2, 3], "odd": [3, 1], "pair": [2, 0], "MPI_COMM_SELF": []},
            "regions": ["main", "solver", "unused"], "events": ev,
            "threads": {1: [("enter", 1001, "main"), ("send", 1020, "MPI_COMM_WORLD", 2, 9, 1000),
                            ("leave", 1022, "main")]},
            "foreign": [("other", 999), ("other", 1100)]}


def random_scenario(seed):
    """Seeded rounds of random messages (blocking or not on either side) on
    random communicators, a collective per round, each round a region;
    2.5 GHz ticks from a large offset."""
    rng = random.Random(seed)
    n = 7
    comms = {"MPI_COMM_WORLD": list(range(n))}
    for i in range(3):
        sub = rng.sample(range(n), rng.randint(2, n))
        comms["sub%d" % i] = sub
    ev = {r: [] for r in range(n)}
    clock = [10**12 + rng.randint(0, 100) for _ in range(n)]
    req = [100] * n

    def at(r):
        clock[r] += rng.randint(1, 5000)
        return clock[r]

    for rnd in range(12):
        for r in range(n):
            ev[r].append(("enter", at(r), "iteration"))
        pending = {r: [] for r in range(n)}
        for _ in range(rng.randint(3, 9)):
            name = rng.choice(sorted(comms))
            members = comms[name]
            s, d = rng.sample(range(len(members)), 2)
            tag, size = rng.randint(0, 99), rng.choice([0, 8, 1024, rng.randint(1, 10**6)])
            if rng.random() < 0.5:
                ev[members[s]].append(("send", at(members[s]), name, d, tag, size))
            else:
                req[members[s]] += 1
                ev[members[s]].append(("isend", at(members[s]), name, d, tag, size, req[members[s]]))
                pending[members[s]].append(("isend_complete", req[members[s]]))
            rr = members[d]
            if rng.random() < 0.5:
                ev[rr].append(("recv", at(rr), name, s, tag, size))
            else:
                req[rr] += 1
                ev[rr].append(("irecv_request", at(rr), req[rr]))
                pending[rr].append(("irecv", name, s, tag, size, req[rr]))
        for r in range(n):
            for p in pending[r]:
                if p[0] == "isend_complete":
                    ev[r].append(("isend_complete", at(r), p[1]))
                elif rng.random() < 0.1:
                    ev[r].append(("cancel", at(r), p[5]))
                else:
                    ev[r].append(("irecv", at(r)) + p[1:])
        name = rng.choice(sorted(comms))
        op = rng.randint(0, 16)
        root = rng.randrange(len(comms[name]))
        for r in comms[name]:
            b = at(r)
            ev[r].append(("coll", b, at(r), op, name, root if op in (1, 2, 3, 4, 5, 12) else None,
                          rng.randint(0, 4096), rng.randint(0, 4096)))
        for r in range(n):
            ev[r].append(("leave", at(r), "iteration"))
    return {"ranks": n, "resolution": 2500000000, "nodes": [rng.randrange(3) for _ in range(n)],
            "location_ids": rng.sample(range(100, 10000), n), "comms": comms,
            "regions": ["iteration"], "events": ev}


def small(**extra):
    sc = {"ranks": 2, "resolution": 10**9, "nodes": [0, 1], "comms": {"MPI_COMM_WORLD": [0, 1]},
          "regions": ["main"],
          "events": {0: [("enter", 10, "main"), ("send", 20, "MPI_COMM_WORLD", 1, 0, 8), ("leave", 30, "main")],
                     1: [("enter", 10, "main"), ("recv", 25, "MPI_COMM_WORLD", 0, 0, 8), ("leave", 30, "main")]}}
    sc.update(extra)
    return sc


def hostless():
    """Hosts of no class "node": each rank's direct parent is its host."""
    sc = small(nodes=[5, 5], node_class="")
    return sc


def bad(out, name, error, status="EINVAL", build=None, sc=None):
    path = os.path.join(out, name)
    if sc is not None:
        write_archive(path, sc)
    if build:
        build(path)
    with open(path + ".json", "w") as f:
        json.dump({"error": error, "status": status}, f)


def cut_events(path):
    evt = os.path.join(path, "traces", "0.evt")
    with open(evt, "rb") as f:
        data = f.read()
    with open(evt, "wb") as f:
        f.write(data[:len(data) // 2])


def cut_definitions(path):
    defs = os.path.join(path, "traces.def")
    with open(defs, "rb") as f:
        data = f.read()
    with open(defs, "wb") as f:
        f.write(data[:len(data) // 2])


def write_bad(out):
    bad(out, "bad_cut", "location 0", sc=small(), build=cut_events)
    bad(out, "bad_cutdef", "the global definitions cannot be read", sc=basic(), build=cut_definitions)
    bad(out, "bad_nodef", "definitions", sc=small(), build=lambda p: os.remove(os.path.join(p, "traces.def")))
    bad(out, "bad_undefloc", "events for location 77, which has no definition", sc=small(),
        build=lambda p: shutil.copy(os.path.join(p, "traces", "0.evt"), os.path.join(p, "traces", "77.evt")))
    broken = small()
    broken["events"][0][1] = ("raw_send", 20, 77, 1, 0, 8)
    bad(out, "bad_comm", "communicator 77, which has no definition", sc=broken)
    broken = small()
    broken["events"][1][1] = ("raw_coll", 20, 26, 11, 77, None, 8, 8)
    bad(out, "bad_collcomm", "a collective on communicator 77, which has no definition", sc=broken)
    bad(out, "bad_noworld", "no MPI ranks", sc=small(no_world_group=True))

    def garbage(p):
        os.makedirs(p)
        with open(os.path.join(p, "traces.otf2"), "w") as f:
            f.write("not an archive\n")
    bad(out, "bad_garbage", "cannot be opened as an OTF2 archive", build=garbage)

    def anchor_only(p):
        write_archive(p + ".tmp", small())
        os.makedirs(p)
        shutil.copy(os.path.join(p + ".tmp", "traces.otf2"), p)
        shutil.rmtree(p + ".tmp")
    bad(out, "bad_anchor_only", "definitions", build=anchor_only)

    def no_anchor(p):
        os.makedirs(p)
        with open(os.path.join(p, "notes.txt"), "w") as f:
            f.write("x\n")
    bad(out, "bad_no_anchor", "is not an OTF2 archive", build=no_anchor)

    def two_anchors(p):
        write_archive(p, small())
        shutil.copy(os.path.join(p, "traces.otf2"), os.path.join(p, "second.otf2"))
    bad(out, "bad_two_anchors", "is not an OTF2 archive", build=two_anchors)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, sc in (("basic", basic()), ("random", random_scenario(SEED)), ("small", small()),
                     ("hostless", hostless())):
        write_archive(os.path.join(out, name), sc)
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(expect(sc), f)
    write_bad(out)


if __name__ == "__main__":
    main()
