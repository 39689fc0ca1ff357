#!/usr/bin/env python3
"""Check a `kcube replay --timeline FILE.json` trace.

usage: trace_check.py TRACE SCHEDULE STARTUP_US REPORT_JSON [NODE_OF]

TRACE is Chrome trace-event JSON; SCHEDULE the GOAL file replayed;
REPORT_JSON the replay's --json report of the same run (finish_us, messages,
and for a run with --loggops its order and loggops_params); NODE_OF,
optional, a comma list of each rank's node (default: rank r on node r).

What a trace-event importer (Perfetto's, chrome://tracing) needs, checked:
a JSON object with a traceEvents list (displayTimeUnit, if present, "ms" or
"ns"); every event an object with a known ph (X, s, f, M), a string name,
integer pid and tid >= 0; every event but M a string cat and a finite ts >=
0; every X a finite dur >= 0; M events only process_name / thread_name
(args.name a string) and process_sort_index / thread_sort_index (args.
sort_index an integer); every track (pid, tid) with a slice named by a
thread_name and every pid by a process_name; on each track the slices
nested or disjoint (a viewer drops or misdraws partial overlaps) and, on a
CPU's track, those of positive length disjoint (one thing at a time); every flow
start "s" has exactly one finish "f" with its id, the same cat and name,
"bp": "e" (bound to its enclosing slice) and a ts not before the start's,
each inside a send's and a recv's slice of its track; one flow per message.

And what the run says: a track's tid is rank + ranks x cpu (a wait's
rank + ranks x (256 + lane)), its pid the rank's node; slices are named
calc, send, recv, hold (a rendezvous send's CPU held) or wait (a posted
receive, on a lane of its rank's); each rank's last slice ends at its
finish time in the report (to 1e-6 relative); a wait's posted_us is its
ts and its wait_us its dur, and a recv's wait_us is its wait slice's dur
(0 without one); without a LogGOPS CPU each rank's slice durations but
waits add up to its busy time counted from the schedule alone (start-up
per send plus calc time); with --loggops (order "loggops") or --model
loggops (the report's loggops object: finish_ns, params; STARTUP_US 0)
each send lasts start-up + o + (s-1) O, each calc its time, each receive
at least o + (s-1) max(O, byte time or G).
Exit 0 when all hold, else 1 with the first failure on stderr."""
import json
import math
import re
import sys


def fail(msg):
    sys.stderr.write("trace_check: %s\n" % msg)
    sys.exit(1)


def busy_from_schedule(path, startup):
    """Start-ups and calc times per rank, read from the GOAL text."""
    busy, rank = {}, None
    for line in open(path):
        line = line.split("//")[0].strip()
        m = re.match(r"rank\s+(\d+)\s*\{", line)
        if m:
            rank = int(m.group(1))
            busy.setdefault(rank, 0.0)
            continue
        m = re.match(r"(?:[\w.]+\s*:\s*)?(send|calc)\s+(\d+)", line)
        if m and rank is not None:
            busy[rank] += startup if m.group(1) == "send" else int(m.group(2)) / 1000.0
    return busy


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def is_time(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= 0


def check_event(e):
    if not isinstance(e, dict):
        fail("an event that is not an object: %r" % (e,))
    if e.get("ph") not in ("X", "s", "f", "M"):
        fail("an event with ph %r: %s" % (e.get("ph"), e))
    if not isinstance(e.get("name"), str):
        fail("an event without a string name: %s" % e)
    if not is_int(e.get("pid")) or not is_int(e.get("tid")) or e["pid"] < 0 or e["tid"] < 0:
        fail("pid and tid must be integers >= 0: %s" % e)
    if e["ph"] == "M":
        args = e.get("args")
        if e["name"] in ("process_name", "thread_name"):
            if not isinstance(args, dict) or not isinstance(args.get("name"), str):
                fail("%s without args.name: %s" % (e["name"], e))
        elif e["name"] in ("process_sort_index", "thread_sort_index"):
            if not isinstance(args, dict) or not is_int(args.get("sort_index")):
                fail("%s without an integer args.sort_index: %s" % (e["name"], e))
        else:
            fail("metadata event %s" % e["name"])
        return
    if not isinstance(e.get("cat"), str):
        fail("an event without a string cat: %s" % e)
    if not is_time(e.get("ts")):
        fail("an event without a finite ts >= 0: %s" % e)
    if e["ph"] == "X" and not is_time(e.get("dur")):
        fail("X without a finite dur >= 0: %s" % e)
    if e["ph"] in ("s", "f") and not is_int(e.get("id")):
        fail("a flow event without an integer id: %s" % e)


def main():
    if len(sys.argv) not in (5, 6):
        fail(__doc__)
    trace = json.load(open(sys.argv[1]))
    startup = float(sys.argv[3])
    report = json.load(open(sys.argv[4]))
    if not isinstance(trace, dict):
        fail("the trace is not a JSON object")
    events = trace.get("traceEvents")
    if not isinstance(events, list):
        fail("no traceEvents list")
    if "displayTimeUnit" in trace and trace["displayTimeUnit"] not in ("ms", "ns"):
        fail("displayTimeUnit %r" % trace["displayTimeUnit"])
    pure = report.get("model") == "loggops"  # --model loggops: ns in its loggops object
    finish = [x / 1000.0 for x in report["loggops"]["finish_ns"]] if pure else report["finish_us"]
    if pure:
        report["messages"] = report["loggops"]["messages"]
    ranks = len(finish)
    node_of = [int(x) for x in sys.argv[5].split(",")] if len(sys.argv) == 6 else list(range(ranks))
    tracks, starts, ends = {}, {}, {}
    proc_named, thread_named = set(), set()
    for e in events:
        check_event(e)
        if e["ph"] == "M":
            if e["name"] == "process_name":
                proc_named.add(e["pid"])
            elif e["name"] == "thread_name":
                thread_named.add((e["pid"], e["tid"]))
            continue
        rank = e["tid"] % ranks if ranks else -1
        if not 0 <= rank < ranks or e["pid"] != node_of[rank]:
            fail("track pid %s tid %s: not a rank's on its node" % (e["pid"], e["tid"]))
        if e["ph"] == "X":
            if e["name"] not in ("calc", "send", "recv", "hold", "wait"):
                fail("slice named %s" % e["name"])
            if (e["name"] == "wait") != (e["tid"] >= 256 * ranks):
                fail("a %s slice on track tid %s" % (e["name"], e["tid"]))
            tracks.setdefault((e["pid"], e["tid"]), []).append(e)
        else:
            table = starts if e["ph"] == "s" else ends
            if e["id"] in table:
                fail("flow id %s twice" % e["id"])
            if e["ph"] == "f" and e.get("bp") != "e":
                fail("flow finish without bp e")
            table[e["id"]] = e
    for key in tracks:
        if key not in thread_named:
            fail("track pid %s tid %s has no thread_name" % key)
        if key[0] not in proc_named:
            fail("pid %s has no process_name" % key[0])
    if set(starts) != set(ends):
        fail("flow starts and finishes differ: %d starts, %d finishes" % (len(starts), len(ends)))
    if len(starts) != report["messages"]:
        fail("%d flows, %d messages" % (len(starts), report["messages"]))

    def inside(ev, kind):
        return any(s["name"] == kind and s["ts"] <= ev["ts"] <= s["ts"] + s["dur"]
                   for s in tracks.get((ev["pid"], ev["tid"]), []))

    for i in starts:
        s, f = starts[i], ends[i]
        if (s["cat"], s["name"]) != (f["cat"], f["name"]):
            fail("flow %s: start and finish differ in cat or name" % i)
        if f["ts"] < s["ts"] - 1e-9:
            fail("flow %s ends before it starts" % i)
        if not inside(s, "send") or not inside(f, "recv"):
            fail("flow %s not on a send's and a recv's slice" % i)
    for key, sl in tracks.items():
        spans = sorted(((s["ts"], s["ts"] + s["dur"]) for s in sl), key=lambda x: (x[0], -x[1]))
        open_ends = []  # nested or disjoint: a stack of enclosing ends
        for a0, a1 in spans:
            while open_ends and open_ends[-1] <= a0 + 1e-9:
                open_ends.pop()
            if open_ends and a1 > open_ends[-1] + 1e-9:
                fail("track %s: a slice [%g, %g] overlaps another partly" % (key, a0, a1))
            open_ends.append(a1)
        busy = sorted(x for x in spans if x[1] > x[0]) if key[1] < 256 * ranks else []  # waits may nest
        for (a0, a1), (b0, b1) in zip(busy, busy[1:]):
            if b0 < a1 - 1e-9:
                fail("track %s: slices [%g, %g] and [%g, %g] overlap" % (key, a0, a1, b0, b1))
    by_rank = {}
    for (pid, tid), sl in tracks.items():
        by_rank.setdefault(tid % ranks, []).extend(sl)
    waits = {}
    for sl in by_rank.values():
        for s in sl:
            if s["name"] == "wait":
                if s["args"]["op"] in waits or abs(s["args"]["posted_us"] - s["ts"]) > 1e-9 or \
                        abs(s["args"]["wait_us"] - s["dur"]) > 1e-9 or s["dur"] <= 0:
                    fail("wait slice %s: not one per receive, or posted_us and wait_us not its ts and dur" % s)
                waits[s["args"]["op"]] = s["dur"]
    for sl in by_rank.values():
        for s in sl:
            if s["name"] == "recv" and abs(s["args"]["wait_us"] - waits.get(s["args"]["op"], 0.0)) > 1e-6:
                fail("recv %s: wait_us is not its wait slice's length" % s)
    if report.get("order") == "loggops" or pure:
        p = report["loggops"]["params"] if pure else report["loggops_params"]
        o, O = p["o"] / 1000.0, p["O"] / 1000.0
        bt = p["G"] / 1000.0 if pure else report["byte_time_us"]
        for sl in by_rank.values():
            for s in sl:
                s1 = max(s["args"].get("bytes", 0) - 1, 0)
                want = {"calc": s["args"].get("ns", 0) / 1000.0, "send": startup + o + s1 * O}.get(s["name"])
                if want is not None and abs(s["dur"] - want) > 1e-6 * (1 + want):
                    fail("%s slice of %g us, want %g" % (s["name"], s["dur"], want))
                if s["name"] == "recv" and s["dur"] < o + s1 * max(O, bt) - 1e-6:
                    fail("recv slice of %g us, below o + (s-1) max(O, byte time)" % s["dur"])
    else:
        want = busy_from_schedule(sys.argv[2], startup)
        for r in range(ranks):
            got = sum(s["dur"] for s in by_rank.get(r, []) if s["name"] != "wait")
            if abs(got - want.get(r, 0.0)) > 1e-6 * (1 + got):
                fail("rank %d: slices add up to %.9g us, busy time %.9g us" % (r, got, want.get(r, 0.0)))
    for r in range(ranks):
        # holds and waits drawn, the last slice ends at the finish
        last = max((s["ts"] + s["dur"] for s in by_rank.get(r, [])), default=0.0)
        if abs(last - finish[r]) > 1e-6 * (1 + last):
            fail("rank %d: last slice ends at %.9g us, finish %.9g us" % (r, last, finish[r]))
    print("ok: %d slices, %d flows" % (sum(len(v) for v in tracks.values()), len(starts)))


main()
