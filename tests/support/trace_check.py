#!/usr/bin/env python3
"""Check a `kcube replay --timeline FILE.json` trace (issue 21, item 4).

usage: trace_check.py TRACE SCHEDULE STARTUP_US REPORT_JSON [NODE_OF]

TRACE is Chrome trace-event JSON; SCHEDULE the GOAL file replayed;
REPORT_JSON the replay's --json report of the same run (finish_us, messages);
NODE_OF, optional, a comma list of each rank's node (default: rank r on
node r). Checked: every event has ph, name, pid, tid; every "X" has ts and
dur, numbers >= 0; every flow start "s" has exactly one finish "f" (bp "e")
with its id, each at a moment inside a send's and a recv's slice of its
track; one flow per message; a rank's slices of positive length never
overlap; each rank's slice durations add up to its busy
time counted from the schedule alone (start-up per send plus calc time), and
its last slice ends at its finish time in the report. Exit 0 when all hold,
else 1 with the first failure on stderr."""
import json
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


def main():
    if len(sys.argv) not in (5, 6):
        fail(__doc__)
    trace = json.load(open(sys.argv[1]))
    startup = float(sys.argv[3])
    report = json.load(open(sys.argv[4]))
    events = trace.get("traceEvents")
    if not isinstance(events, list):
        fail("no traceEvents list")
    finish = report["finish_us"]
    ranks = len(finish)
    node_of = [int(x) for x in sys.argv[5].split(",")] if len(sys.argv) == 6 else list(range(ranks))
    slices, starts, ends = {}, {}, {}
    for e in events:
        for key in ("ph", "name", "pid", "tid"):
            if key not in e:
                fail("an event without %s: %s" % (key, e))
        if e["ph"] == "M":
            continue
        if not 0 <= e["tid"] < ranks or e["pid"] != node_of[e["tid"]]:
            fail("track pid %s tid %s: not rank and node" % (e["pid"], e["tid"]))
        if e["ph"] == "X":
            if not all(isinstance(e.get(k), (int, float)) and e[k] >= 0 for k in ("ts", "dur")):
                fail("X without ts/dur >= 0: %s" % e)
            if e["name"] not in ("calc", "send", "recv"):
                fail("slice named %s" % e["name"])
            slices.setdefault(e["tid"], []).append(e)
        elif e["ph"] in ("s", "f"):
            table = starts if e["ph"] == "s" else ends
            if e["id"] in table:
                fail("flow id %s twice" % e["id"])
            if e["ph"] == "f" and e.get("bp") != "e":
                fail("flow finish without bp e")
            table[e["id"]] = e
        else:
            fail("unexpected phase %s" % e["ph"])
    if set(starts) != set(ends):
        fail("flow starts and finishes differ: %d starts, %d finishes" % (len(starts), len(ends)))
    if len(starts) != report["messages"]:
        fail("%d flows, %d messages" % (len(starts), report["messages"]))

    def inside(ev, kind):
        return any(s["name"] == kind and s["ts"] <= ev["ts"] <= s["ts"] + s["dur"] for s in slices.get(ev["tid"], []))

    for i in starts:
        if not inside(starts[i], "send") or not inside(ends[i], "recv"):
            fail("flow %s not on a send's and a recv's slice" % i)
    for r, sl in slices.items():  # one processor: busy slices of a rank never overlap
        busy = sorted((s["ts"], s["ts"] + s["dur"]) for s in sl if s["dur"] > 0)
        for (a0, a1), (b0, b1) in zip(busy, busy[1:]):
            if b0 < a1 - 1e-9:
                fail("rank %d: slices [%g, %g] and [%g, %g] overlap" % (r, a0, a1, b0, b1))
    want = busy_from_schedule(sys.argv[2], startup)
    for r in range(ranks):
        got = sum(s["dur"] for s in slices.get(r, []))
        if abs(got - want.get(r, 0.0)) > 1e-6 * (1 + got):
            fail("rank %d: slices add up to %.9g us, busy time %.9g us" % (r, got, want.get(r, 0.0)))
        last = max((s["ts"] + s["dur"] for s in slices.get(r, [])), default=0.0)
        if abs(last - finish[r]) > 1e-6 * (1 + last):
            fail("rank %d: last slice ends at %.9g us, finish %.9g us" % (r, last, finish[r]))
    print("ok: %d slices, %d flows" % (sum(len(v) for v in slices.values()), len(starts)))


main()
