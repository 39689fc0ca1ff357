#!/usr/bin/env python3
"""Generated blocks of docs/*.md and README.md: kcube output and the tables made from it.

Every block that shows what kcube prints sits between two markers,

    <!-- gen:NAME -->
    ...
    <!-- /gen:NAME -->

and this script holds, for every NAME, the commands that make it and how their output is
laid out. Nothing between the markers is written by hand: change the command here, not
the text there.

    scripts/gen_docs.py --write            run every block's commands, rewrite the blocks
    scripts/gen_docs.py --check            run them, exit 1 naming every stale block (with a diff)
    scripts/gen_docs.py --check --quick    only the blocks that take a few seconds (the test
                                           tests/cli_docs.sh runs this)
    scripts/gen_docs.py --list             every block: file, quick or slow

Options: --kcube PATH (default $KCUBE, else build/kcube), --only NAME (repeatable), --root DIR
(another checkout's README.md and docs/; the test uses it on a copy).
Timings and other machine-dependent numbers are not generated: pages keep them as prose
("measured on ..."); where one sits inside kcube's output a block filters it to "...".
A block that shows less than the command prints says so: "...  (N lines in all)" after the
lines it keeps (head, or a filter that drops lines).

Every code block of the pages that shows a kcube command is either generated (between gen
markers: its commands are run, so a block cannot drift from the program) or marked, on the
line just before it, as not generated and why:

    <!-- not-generated: a synopsis, not a command line -->

(a synopsis, or commands this script cannot run here: mpirun across hosts). An unmarked one
is an error (exit 2) whatever the mode. Every kcube command a block runs must also use no
option its --help lists under "old spellings".
Commands run through bash in a temporary directory with kcube first on PATH, so a block
can make the files it needs (shown in the block, so a reader can do the same)."""

import argparse
import concurrent.futures
import difflib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = []  # README.md and docs/*.md under ROOT (set in main: --root)
BLOCKS = {}  # name -> (quick, function(runner) -> list of lines)


def block(name, quick=True):
    def register(fn):
        BLOCKS[name] = (quick, fn)
        return fn
    return register


class Failure(Exception):
    pass


class Runner:
    """Runs shell commands with kcube on PATH in a scratch directory."""

    def __init__(self, kcube, work):
        self.work = work
        bindir = os.path.join(work, ".bin")
        os.makedirs(bindir, exist_ok=True)
        link = os.path.join(bindir, "kcube")
        if not os.path.exists(link):
            os.symlink(os.path.abspath(kcube), link)
        self.env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), LC_ALL="C")
        self.helps = {}

    def help_of(self, words):
        """kcube WORDS --help (cached); None when that is not a command."""
        key = tuple(words)
        if key not in self.helps:
            p = subprocess.run(["kcube"] + words + ["--help"], cwd=self.work, env=self.env,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            self.helps[key] = p.stdout if p.returncode == 0 else None
        return self.helps[key]

    def options(self, path):
        """(current, old): the options kcube PATH --help lists, and those under "old spellings"."""
        text = self.help_of(path) or ""
        head, _, rest = text.partition("old spellings (still accepted):\n")
        old_part, _, tail = rest.partition("\n\n")
        flag = re.compile(r"^  (--[a-z0-9-]+)", re.M)
        return set(flag.findall(head + "\n" + tail)), set(flag.findall(old_part))

    def spelling(self, cmd):
        """Refuse a kcube command in cmd that uses an option its --help lists as an old spelling."""
        try:
            words = shlex.split(cmd)
        except ValueError:
            return
        for i, w in enumerate(words):
            if w != "kcube" or i + 1 >= len(words):
                continue
            path, j = [words[i + 1]], i + 2
            if j < len(words) and re.match(r"^[a-z][a-z-]*$", words[j]) and self.help_of(path + [words[j]]):
                path, j = path + [words[j]], j + 1
            old = self.options(path)[1]
            for w2 in words[j:]:
                if w2 in ("|", "&&", ";", "||") or w2.startswith(">"):
                    break
                if w2.split("=", 1)[0] in old:
                    raise Failure("`%s` uses %s, an old spelling (kcube %s --help)" % (cmd, w2, " ".join(path)))

    def sh(self, cmd, status=0):
        """stdout and stderr of cmd (stderr after stdout); its exit status must be status."""
        self.spelling(cmd)
        p = subprocess.run(["bash", "-c", cmd], cwd=self.work, env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode != status:
            raise Failure("`%s` exited %d, expected %d: %s" % (cmd, p.returncode, status, p.stderr.strip()[:300]))
        return p.stdout + p.stderr

    def transcript(self, steps):
        """Indented "$ command" lines, each followed by its output. A step is a command string or
        a dict: cmd, note (a "# ..." comment shown after the command), status (expected exit
        status), head (keep that many output lines, then say how many were left out), show
        (False: run it, show only the command), filter (function on the output text), cont
        (the command as shown, when it differs: a line continuation)."""
        out = []
        for st in steps:
            st = {"cmd": st} if isinstance(st, str) else st
            shown = st.get("cont", st["cmd"])
            lines = shown.split("\n")
            lines[-1] += "  # " + st["note"] if st.get("note") else ""
            out.append("    $ " + lines[0])
            out += ["          " + l for l in lines[1:]]
            text = self.sh(st["cmd"], st.get("status", 0))
            whole = len(text.rstrip("\n").split("\n")) if text.strip() else 0
            if st.get("filter"):
                text = st["filter"](text)
            if st.get("show", True):
                got = text.rstrip("\n").split("\n") if text.strip() else []
                head = st.get("head")
                if head is not None and len(got) > head:
                    got = got[:head]
                if len(got) < whole:  # a cut is always shown
                    got.append("...  (%d lines in all)" % whole)
                out += [("    " + l).rstrip() for l in got]
        return out

    def commands(self, steps, width=56):
        """A list of command lines without their output (a page's quick start). A step is a
        command string, a (command, note) pair, or a dict: cmd, note, status (expected exit
        status). Each is run (its output dropped: that is what the page's other blocks show) and
        shown as "command  # note", the notes lined up at column width where the command is
        shorter."""
        out = []
        for st in steps:
            st = {"cmd": st[0], "note": st[1]} if isinstance(st, tuple) else {"cmd": st} if isinstance(st, str) else st
            self.sh(st["cmd"] + " > /dev/null", st.get("status", 0))
            line = "    " + st["cmd"]
            if st.get("note"):
                line = (line.ljust(width + 4) if len(line) < width + 4 else line + " ") + " # " + st["note"]
            out.append(line)
        return out


def table(header, rows):
    """A Markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def csv_rows(text):
    lines = [l for l in text.strip().split("\n") if l]
    head = lines[0].split(",")
    return [dict(zip(head, l.split(","))) for l in lines[1:]]


# ---- README ----------------------------------------------------------------------------

@block("readme-analyze")
def _(r):
    return r.transcript(["kcube analyze --n 8 --pattern transpose"])


@block("plan-origin")
def _(r):
    """docs/plan.md: seed 000's Origin 2000, an LCC on two endpoints per router, counted and by the closed form."""
    return r.transcript(["kcube analyze --n 5 --endpoints 2 --pattern transpose"])


@block("export-walkthrough")
def _(r):
    """docs/export.md: a mapping on 64 nodes exported for Open MPI, Cray MPICH and Slurm."""
    return r.transcript([
        {"cmd": "kcube map --n 6 --pattern transpose --out nodes.txt > /dev/null", "note": "rank v -> line v"},
        {"cmd": "head -n 6 nodes.txt | paste -sd ' '"},
        {"cmd": "kcube export --n 6 --mapping nodes.txt --format openmpi-rankfile --hosts nid%05d --slots-per-host 8",
         "head": 6},
        {"cmd": "kcube export --n 6 --mapping nodes.txt --format mpich-rank-order --hosts nid%05d --slots-per-host 8",
         "head": 5},
        {"cmd": "kcube export --n 6 --mapping nodes.txt --format slurm-hostfile --hosts nid%05d --slots-per-host 8 "
                "| uniq -c | head -n 4"},
        {"cmd": "printf '0 alpha\\n1 alpha\\n2 beta 1\\nbeta 1 1 0\\n' > machine.txt", "show": False,
         "cont": "printf '0 alpha\\n1 alpha\\n2 beta 1\\nbeta 1 1 0\\n' > machine.txt   # node 3 = (1, 1): beta, slot 0"},
        {"cmd": "printf '3\\n2\\n1\\n0\\n' > rev.txt && kcube export --n 2 --mapping rev.txt --machine machine.txt "
                "--format openmpi-rankfile"},
        {"cmd": "printf '0 alpha\\n1 alpha\\n2 beta 1\\n2 beta 0\\n' > bad.txt && kcube export --n 2 --mapping rev.txt "
                "--machine bad.txt --format slurm-hostfile", "status": 2},
    ])


# ---- docs/networks.md -----------------------------------------------------------------

def preset_files():
    """Every data/networks/*.net of ROOT as a dict: keyword -> list of its lines' words after it
    (the preset format of kcube/netpreset.h; '#' comments dropped)."""
    d = os.path.join(ROOT, "data", "networks")
    out = []
    for f in sorted(os.listdir(d)):
        if not f.endswith(".net"):
            continue
        p = {}
        for line in open(os.path.join(d, f), encoding="ascii"):
            line = line.split("#", 1)[0].strip()
            if line:
                key, _, rest = line.partition(" ")
                p.setdefault(key, []).append(rest.strip())
        out.append(p)
    return out


@block("networks-presets")
def _(r):
    """docs/networks.md: the presets table, made from the data files themselves."""
    rows = []
    for p in preset_files():
        axes, sides = p["axes"][0].split(), p["sides"][0].replace(",", " ").split()
        wrap = p.get("wrap", ["all"])[0].split()
        rings = axes if wrap == ["all"] else [] if wrap == ["none"] else \
            [axes[int(w)] if w.isdigit() else w for w in wrap]
        routers = 1
        for s in sides:
            routers *= int(s)
        c = int(p.get("endpoints", ["1"])[0])
        rows.append(["`%s`" % p["name"][0], p.get("title", [""])[0],
                     " ".join("%s=%s" % (a, s) for a, s in zip(axes, sides)),
                     " ".join(rings) if rings else "none", c, "{:,}".format(routers), "{:,}".format(routers * c),
                     "; ".join(p.get("source", []))])
    return table(["--network", "machine", "axes (axis 0 first)", "rings", "C", "routers", "endpoints",
                  "sources"], rows)


@block("networks-list")
def _(r):
    return r.transcript(["kcube --list-networks"])


@block("networks-launch")
def _(r):
    """docs/networks.md: a small general network with endpoints and an allocation, exported."""
    net = "--shape 3x2 --wrap 0 --endpoints 2 --nodes alloc.txt --mapping ranks.txt"
    return r.transcript([
        {"cmd": "printf '1\\n4\\n5\\n' > alloc.txt", "note": "the job's routers"},
        {"cmd": "printf '3\\n8\\n11\\n9\\n' > ranks.txt", "note": "rank v on endpoint line v"},
        "kcube export %s --format bgq-mapfile" % net,
        "kcube export %s --format fujitsu-rankmap" % net,
        "kcube export %s --format openmpi-rankfile --hosts nid%%02d --slots-per-host 2" % net,
        {"cmd": "kcube map --network bgq-midplane --stencil 7pt --grid 8x8x8 --kind general --out halo.map "
                "--format bgq-mapfile > /dev/null", "note": "a 7-point halo placed on a midplane"},
        {"cmd": "head -n 3 halo.map", "note": "A B C D E T of ranks 0, 1, 2"},
        {"cmd": "seq 0 98303 > all.txt && kcube export --network sequoia --mapping all.txt --format bgq-mapfile "
                "| sed -n '1p;2p;$p'", "note": "first, second and last of 98,304 lines"},
    ])


@block("networks-origin2000", quick=False)
def _(r):
    """docs/networks.md: seed 000's Origin 2000 remark, counted: the 8-bit LCC on 256 nodes of
    the 8-cube, and on 128 routers of two nodes each (the 7-cube, --endpoints 2)."""
    return r.transcript([
        "kcube analyze --n 8 --pattern transpose",
        "kcube analyze --n 7 --endpoints 2 --pattern transpose",
        "kcube map --n 7 --endpoints 2 --pattern transpose",
    ])


# ---- docs/mpi.md ----------------------------------------------------------------------

def map_summary(text):
    """kcube map's report cut to its first line and its verdict against the identity."""
    return "".join(l + "\n" for l in text.split("\n") if l.startswith(("general mapping", "against identity")))


MPI_HALO = "kcube map --stencil 5pt --grid 8x8 --periodic --n 6 --kind general --hosts nid%05d --slots-per-host 8"


@block("mpi-openmpi")
def _(r):
    """docs/mpi.md: a periodic 8 x 8 halo mapped on the 6-cube (8 hosts of 8 cores) as an Open MPI rankfile."""
    return r.transcript([
        {"cmd": MPI_HALO + " --format openmpi-rankfile --out halo.rankfile", "filter": map_summary,
         "cont": "kcube map --stencil 5pt --grid 8x8 --periodic --n 6 --kind general \\\n"
                 "--hosts nid%05d --slots-per-host 8 --format openmpi-rankfile --out halo.rankfile",
         "note": "1: the mapping, as a rankfile"},
        {"cmd": "head -n 4 halo.rankfile", "note": "2: rank v's host and core"},
    ])


@block("mpi-slurm")
def _(r):
    """docs/mpi.md: the same mapping as a Slurm host file."""
    return r.transcript([
        {"cmd": MPI_HALO + " --format slurm-hostfile --out halo.hosts", "filter": map_summary,
         "cont": "kcube map --stencil 5pt --grid 8x8 --periodic --n 6 --kind general \\\n"
                 "--hosts nid%05d --slots-per-host 8 --format slurm-hostfile --out halo.hosts",
         "note": "1: the mapping, as a host file"},
        {"cmd": "head -n 4 halo.hosts", "note": "2: line v: rank v's host"},
        {"cmd": "sort halo.hosts | uniq -c | head -n 3", "note": "3: 8 ranks a host"},
    ])


@block("readme-map-reorder")
def _(r):
    return r.transcript(["kcube map --n 8 --pattern transpose --kind reorder"])


@block("readme-map-set")
def _(r):
    return r.transcript(["kcube map --n 8 --pattern transpose --pattern bit-reverse --pattern reverse-flip "
                         "--kind reorder"])


@block("readme-map-auto")
def _(r):
    return r.transcript(["kcube map --n 8 --pattern transpose --pattern bit-reverse"])


# ---- docs/calmant.md -------------------------------------------------------------------

@block("calmant-runs")
def _(r):
    return r.transcript([
        "kcube calmant load --n 4 --c 1 --task 1,2",
        "kcube calmant load --n 4 --c 1 --task 3,1 --topology torus --tie split",
        {"cmd": "kcube calmant schedule --n 4 --c 1 --task 1,2 --verify", "note": "Fig. 4"},
        {"cmd": "kcube calmant schedule --n 8 --c 2 --task 3,4 --verify --json", "note": "Figs. 6-7"},
        {"cmd": "kcube calmant schedule --n 10 --c 2 --task 0,10 --verify", "note": "Lemma 2's gap"},
        {"cmd": "kcube calmant schedule --n 4 --c 1 --task 2,2 --topology torus --mesh-schedule --verify --verbose",
         "note": "exit 1", "status": 1, "head": 5},
        {"cmd": "kcube calmant schedule --n 4 --c 1 --task 2,2 --topology torus --verify",
         "note": "kcube's torus schedule"},
        "kcube calmant schedule --n 4 --c 1 --task 2,2 --topology torus --tie split --verify",
        {"cmd": "kcube calmant schedule --n 9 --c 3 --task 0,4 --verify", "note": "<i,4>_3 at LB"},
        "kcube calmant cost --n 8 --c 2 --bytes 4096 --startup 100 --byte-time 1 --degree 4",
        "kcube calmant cost --n 16 --c 2 --bytes 64K --startup 164 --byte-time 0.57 --barrier 50",
        {"cmd": "kcube calmant load --n 5 --c 2 --task 0,1", "note": "exit 2", "status": 2},
        {"cmd": "kcube calmant cost --n 8 --c 2 --bytes 4096 --startup 100 --byte-time 1 --degree 0",
         "note": "exit 2", "status": 2},
    ])


@block("calmant-worked-example")
def _(r):
    return r.transcript(["kcube calmant alltoall --n 4 --c 2 --block 64 --startup 100 --byte-time 1"])


@block("calmant-goal-replay")
def _(r):
    return r.transcript([
        {"cmd": "kcube calmant alltoall --n 4 --c 2 --block 64 --degree 4 --startup 100 --byte-time 1 "
                "--methods calmant --emit-goal cx.goal",
         "cont": "kcube calmant alltoall --n 4 --c 2 --block 64 --degree 4 --startup 100 --byte-time 1 \\\n"
                 "--methods calmant --emit-goal cx.goal",
         "note": "the model's table; the schedule into cx.goal"},
        "kcube replay cx.goal --topology mesh --k 4 --n 2 --startup 100 --byte-time 1",
    ])


CALMANT_MESHES = [(8, 2, "16×16"), (10, 2, "32×32"), (12, 2, "64×64"), (9, 3, "8×8×8"), (12, 3, "16×16×16")]


@block("calmant-speedup", quick=False)
def _(r):
    rows = []
    for d, c, name in CALMANT_MESHES:
        for ratio in (100, 500, 1000, 5000):
            cells = [name, ratio]
            for b in (16, 1024, 65536):
                got = {x["method"]: x for x in csv_rows(r.sh(
                    "kcube calmant alltoall --n %d --c %d --block %d --startup %d --byte-time 1 --no-replay "
                    "--methods calmant,pairwise --csv" % (d, c, b, ratio)))}
                cells.append("%.2f (Q %s) / %.2f" % (float(got["calmant"]["speedup"]), got["calmant"]["degree"],
                                                     float(got["pairwise"]["speedup"])))
            rows.append(cells)
    return table(["mesh", "β/τ", "B = 16", "B = 1 KiB", "B = 64 KiB"], rows)


@block("calmant-barrier-share")
def _(r):
    rows = []
    for d, c, name in CALMANT_MESHES:
        cells = [name]
        for b in (16, 32):
            x = csv_rows(r.sh("kcube calmant alltoall --n %d --c %d --block %d --startup 500 --byte-time 1 "
                              "--barrier 100 --methods calmant --no-replay --csv" % (d, c, b)))[0]
            cells.append("%.2f %% (Q %s)" % (100 * float(x["barrier_time"]) / float(x["time"]), x["degree"]))
        rows.append(cells)
    return table(["mesh", "B = 16", "B = 32"], rows)


# ---- docs/sim.md -----------------------------------------------------------------------

@block("sim-deadlock")
def _(r):
    return r.transcript([
        {"cmd": "printf '0 2\\n1 3\\n2 0\\n3 1\\n' > ring.txt", "note": "source destination: two hops ahead",
         "show": False},
        {"cmd": "kcube simulate --k 4 --n 1 --vcs 1 --vc-rule none --pairs ring.txt --oneshot --watchdog 50",
         "status": 1, "note": "exit 1"},
    ])


@block("sim-estimates")
def _(r):
    """docs/sim.md's "Memory before work": the estimates by network size (refused at once)."""
    steps = []
    for net in ("--n 8", "--n 12", "--n 16", "--n 18", "--n 20", "--n 4 --k 32"):
        steps.append({"cmd": "kcube simulate %s --pattern uniform --rate 0.2 --max-time 1e-9 --max-memory 1T" % net,
                      "status": 1})
    return r.transcript(steps)


@block("sim-routings", quick=False)
def _(r):
    """docs/sim.md's "What it does": four routings on four patterns, 8-cube."""
    names = [("ecube", "e-cube"), ("pcube", "P-cube"), ("li-min", "li-min"), ("duato", "Duato (2 VCs)")]
    rows = []
    for pat, at in (("bit-reverse", 0.08), ("transpose", 0.08), ("reverse-flip", 0.08), ("uniform", 0.4)):
        d = json.loads(r.sh("kcube simulate --n 8 --pattern %s --compare --configs %s --sweep 0.02:1:0.02 --json"
                            % (pat, ",".join(n for n, _ in names))))
        by = {s["label"]: s for s in d["series"]}
        sat, lat = [pat + ": saturation"], [pat + ": latency at %g" % at]
        for n, _ in names:
            se = by[n]
            sat.append("%.3f" % se["saturation_throughput"])
            pt = [p for p in se["points"] if abs(p["offered"] - at) < 1e-9 and p["sustainable"]]
            lat.append("%.1f" % pt[0]["latency_avg"] if pt else "-")
        rows += [sat, lat]
    return table(["pattern"] + [t for _, t in names], rows)


SEED_SAYS = {
    ("fig5_transpose", "e-cube"): "< 0.125", ("fig5_transpose", "M-S"): "near 1 in theory",
    ("fig5_transpose", "M-G"): "about 0.3 (0.5 in theory)", ("fig5_transpose", "P-cube"): "poor on transpose",
    ("fig5_transpose", "Duato (2 VCs)"): "(not in the seed)",
    ("fig5_transpose", "li-min"): "Min: better than e-cube",
    ("fig6_bit-reverse", "e-cube"): "< 0.125", ("fig6_bit-reverse", "P-cube"): "worst on bit-reverse",
    ("fig6_bit-reverse", "li-min"): "Min: < 1/8 (8 paths forced onto 8 -> 0)",
    ("fig7_reverse-flip", "e-cube"): "< 0.125", ("fig7_reverse-flip", "P-cube"): "good on reverse-flip",
    ("seed002_fig2_transpose", "DOR"): "< 1/8", ("seed002_fig2_transpose", "Map-S"): "about 0.4",
    ("seed002_fig2_transpose", "Map-G"): "about 0.4",
    ("seed002_fig3_digit-reverse", "DOR"): "< 1/8", ("seed002_fig3_digit-reverse", "Map-S"): "about 0.4",
    ("seed002_fig3_digit-reverse", "Map-G"): "about 0.4",
    ("seed002_fig4_transpose", "DOR"): "< 1/8",
    ("seed002_fig4_transpose", "Map-S = Map-G"): "contention stays 8; lower latency",
    ("seed002_fig4_transpose", "kcube map"): "(not in the seed)",
    ("seed002_fig5_digit-reverse", "DOR"): "< 1/4",
    ("seed002_fig5_digit-reverse", "Map-S = Map-G"): "contention stays 4; lower latency",
    ("seed002_fig5_digit-reverse", "kcube map"): "(not in the seed)",
    ("seed002_fig6_uniform", "DOR"): "about the same, > 0.4", ("seed002_fig6_uniform", "Map-G"): "about the same, > 0.4",
}
FIGURE_NAMES = {
    "fig5_transpose": "000 Fig. 5 transpose, 8-cube", "fig6_bit-reverse": "000 Fig. 6 bit-reverse",
    "fig7_reverse-flip": "000 Fig. 7 reverse-flip", "seed002_fig2_transpose": "002 Fig. 2 transpose, 4-ary 4-cube",
    "seed002_fig3_digit-reverse": "002 Fig. 3 digit-reverse", "seed002_fig4_transpose": "002 Fig. 4 transpose, 16-ary 2-cube",
    "seed002_fig5_digit-reverse": "002 Fig. 5 digit-reverse, 8-ary 3-cube", "seed002_fig6_uniform": "002 Fig. 6 uniform",
}


@block("sim-figures", quick=False)
def _(r):
    r.sh("kcube figures --torus --out figs > /dev/null")
    rows, last = [], None
    with open(os.path.join(r.work, "figs", "summary.txt")) as f:
        for line in f:
            m = re.match(r"^(\S+)\s+(.+?)\s+(\S+)\s+(\S+)\s+(\S+)$", line.rstrip("\n"))
            if not m or m.group(1) not in FIGURE_NAMES:
                continue
            fig, conf, cont, sat = m.group(1), m.group(2), m.group(3), m.group(4)
            rows.append([FIGURE_NAMES[fig] if fig != last else "", conf, cont, sat, SEED_SAYS.get((fig, conf), "")])
            last = fig
    return table(["figure", "config", "contention", "saturation", "seed says"], rows)


# ---- docs/appsim.md --------------------------------------------------------------------

@block("appsim-files")
def _(r):
    return r.transcript([
        {"cmd": "kcube fft-study --n 8 --points 2^10 --configs ecube --emit-goal fft.goal > /dev/null",
         "note": "the FFT's schedule", "show": False},
        {"cmd": "kcube map --n 8 --pattern bit-reverse --kind general --work 0 --out order.map > /dev/null",
         "note": "a node list", "show": False},
        {"cmd": "kcube calmant alltoall --n 6 --c 3 --block 64 --methods calmant --emit-goal sched.goal > /dev/null",
         "note": "4x4x4 mesh", "show": False},
        {"cmd": "kcube replay fft.goal --n 8 --json > /dev/null", "show": False},
        {"cmd": "kcube replay fft.goal --n 8 --mapping order.map --routing pcube", "head": 3},
        {"cmd": "kcube replay sched.goal --k 4 --n 3 --topology mesh --startup 10 --byte-time 0.1 --bytes-per-flit 8",
         "head": 3},
    ])


@block("appsim-placement")
def _(r):
    return r.transcript([
        {"cmd": "kcube fft-study --n 4 --points 2^8 --configs ecube --emit-goal fft16.goal > /dev/null",
         "note": "16 ranks", "show": False},
        {"cmd": "kcube replay fft16.goal --n 4", "head": 4, "note": "one rank a node"},
        {"cmd": "kcube replay fft16.goal --n 3 --ranks-per-node 2", "head": 5},
        {"cmd": "kcube replay fft16.goal --n 3 --ranks-per-node 2 --timeline fft16.json > /dev/null",
         "note": "open it in Perfetto"},
        {"cmd": "grep -o '\"ph\":\"[A-Za-z]\"' fft16.json | sort | uniq -c", "note": "the events by kind"},
        {"cmd": "kcube replay fft16.goal --n 3 --ranks-per-node 2 --timeline fft16.svg > /dev/null",
         "note": "the Gantt chart"},
    ])


@block("appsim-fft-study")
def _(r):
    return r.transcript(["kcube fft-study --n 8"])


# ---- docs/plan.md ----------------------------------------------------------------------

def search_counts(text):
    """The local search's counts depend on the machine's speed within the budget, and a slow machine
    (a sanitizer build) may hit the wall-clock cap, which the line then says."""
    text = re.sub(r"(searched from \S+:) \d+ candidate swaps, \d+ kept", r"\1 ... candidate swaps, ... kept", text)
    return text.replace(" (cut short by the wall-clock cap: not reproducible)", "")


@block("plan-general")
def _(r):
    return r.transcript([{"cmd": "kcube map --n 8 --pattern transpose --kind general --work 20",
                          "filter": search_counts}])


# ---- docs/traffic.md -------------------------------------------------------------------

@block("traffic-sized")
def _(r):
    return r.transcript([
        "printf 'Source,\"Destination\",Bytes\\r\\n0,1,4096\\r\\n1,0,4096\\r\\n3,12,65536\\r\\n12,3,65536\\r\\n"
        "\"5\",\"6\",\"8\"\\r\\n' > solver.csv",
        {"cmd": "kcube map --traffic solver.csv --work 2", "filter": search_counts}])


# ---- docs/torus.md ---------------------------------------------------------------------

TORUS_CASES = [  # label, k, n, patterns, what the best found is (prose: how it is known)
    ("transpose, 4-ary 4-cube (Map-S)", 4, 4, ["transpose"], "(optimal: T ≥ 1)"),
    ("digit-reverse, 4-ary 4-cube (Map-S)", 4, 4, ["digit-reverse"], "(optimal)"),
    ("transpose, 16-ary 2-cube", 16, 2, ["transpose"], "(optimal: all 61 200 nonsingular Q tried)"),
    ("digit-reverse, 8-ary 3-cube", 8, 3, ["digit-reverse"], "(local search, ~20 000 evaluations; optimal, see below)"),
    ("transpose + digit-reverse, 4-ary 4-cube (Map-G)", 4, 4, ["transpose", "digit-reverse"], "(optimal)"),
]


@block("torus-section4")
def _(r):
    rows = []
    for label, k, n, pats, how in TORUS_CASES:
        base = "kcube map --k %d --n %d %s --json " % (k, n, " ".join("--pattern " + p for p in pats))
        got = {}
        for kind in ("linear", "reorder", "linear --search"):
            got[kind] = json.loads(r.sh(base + "--kind " + kind))["patterns"]
        cell = lambda kind, key: ", ".join(str(p[key]) for p in got[kind])
        rows.append([label, cell("linear", "contention_before"), cell("linear", "contention_after"),
                     cell("reorder", "contention_after"),
                     "**%s** %s" % (cell("linear --search", "contention_after"), how)])
    return table(["case", "before", "paper after (= ours, Theorem 3/4)", "best reordering",
                  "best found (`--search`)"], rows)


# ---- docs/hypercube.md -----------------------------------------------------------------

@block("hypercube-set-bound", quick=False)
def _(r):
    """Binary sets at scale: seed 000's four patterns beyond the DP, as kcube map reports them (times are prose)."""
    rows = []
    for n in (28, 32, 40, 48, 64):
        d = json.loads(r.sh("kcube map --n %d --pattern transpose --pattern bit-reverse --pattern reverse-flip "
                            "--pattern shuffle --kind reorder --json" % n))
        rows.append([n, d["method"], d["value"], d["total"], d["lower_bound"], d["lower_bound_from"],
                     "yes" if d["exact"] else "no", d["exact_by"]])
    return table(["n", "method", "value", "total", "lower bound", "lower_bound_from", "exact", "exact_by"], rows)


# ---- docs/hl.md ------------------------------------------------------------------------

@block("hl-figure2")
def _(r):
    return r.transcript(['kcube hl --n 3 --matrix "010;101;110" --vector 110 --trace'])


@block("hl-census")
def _(r):
    return r.transcript(["kcube hl --census 3"])


# ---- docs/traces.md --------------------------------------------------------------------

@block("traces-report", quick=False)
def _(r):
    """docs/traces.md: the report on an archive python3-otf2 writes (tests/support/otf2_write.py's
    scenario basic; /usr/bin/python3 with otf2 needed, so not among the quick blocks)."""
    r.sh("/usr/bin/python3 %s a > /dev/null" % shlex.quote(os.path.join(ROOT, "tests", "support", "otf2_write.py")))
    return r.transcript([
        {"cmd": "kcube map --traffic a/basic", "head": 6},
        {"cmd": "kcube map --traffic a/basic --collectives ring --region main --csv | tail -n 15"},
        "kcube replay a/basic --model loggops --compute-scale 0",
    ])


# ---- docs/butterfly.md -----------------------------------------------------------------

def trace_section(r, header):
    """The placement printed under header by the worked example's --trace (the page names the command)."""
    lines = r.sh("kcube butterfly --n 2 --p 4 --method bisect-local --trace").split("\n")
    i = lines.index(header)
    out = []
    for l in lines[i + 1:]:
        if not l.startswith("  m"):
            break
        out.append("    " + l.strip())
    return out


@block("butterfly-initial")
def _(r):
    return trace_section(r, "initial placement (rows: memory slot, columns: processor 0..3):")


@block("butterfly-step2")
def _(r):
    return trace_section(r, "after step 2:")


# ---- quick starts and other command lists: each command is run, its output dropped -------

@block('readme-more-torus')
def _(r):
    return r.commands([
        ('kcube analyze --k 4 --n 4 --pattern transpose', 'T = 2 8 8 2 (Theorem 1 and exact count)'),
        ('kcube map --k 4 --n 4 --pattern transpose --pattern digit-reverse --kind linear', 'Theorem 4: 8, 8 -> 2, 2'),
        ('kcube map --k 4 --n 4 --pattern transpose --pattern digit-reverse', 'beyond the paper: 1, 1'),
    ])


@block('readme-more-networks')
def _(r):
    return r.commands([
        ('kcube --list-networks', 'Blue Gene/Q, Titan, K computer, Fugaku, ... with sources'),
        ('kcube analyze --n 7 --endpoints 2 --pattern transpose', "seed 000's Origin 2000: two LCCs on the 7-cube"),
        ('kcube map --network bgq-midplane --endpoints 16 --stencil 7pt --grid 32x16x16 --format bgq-mapfile --out -',
         'a mapfile'),
        ('kcube map --topology torus --shape 4x3x4x2x3x2 --wrap 0,1,2,4 --stencil 7pt --grid 12x8x6 --work 2',
         'a small Tofu'),
        ('kcube simulate --network titan --pattern uniform --rate 0.05', '2 nodes a router share its injection channel'),
    ])


@block('readme-more-sim')
def _(r):
    return r.commands([
        'kcube simulate --n 8 --pattern transpose --sweep 0.01:0.3:0.01',
        'kcube simulate --n 8 --pattern bit-reverse --compare --sweep 0.02:1:0.02 --plot fig6.png',
        'kcube simulate --k 4 --n 4 --pattern transpose --mapping set:transpose,digit-reverse --sweep 0.025:0.6:0.025',
    ])


@block('readme-more-hl')
def _(r):
    return r.commands([
        ('kcube hl --n 3 --matrix "010;101;110" --vector 110 --trace', 'Figure 2: states A, B, A'),
        ('kcube hl --n 8 --pattern transpose --shape 16x16', '2 (16 - 1) = 30 mesh steps'),
        ('kcube hl --census 3', 'all 8! permutations: SIMD, M-SIMD, MIMD'),
    ])


@block('butterfly-quick-start')
def _(r):
    return r.commands([
        ('kcube gray --n 4', 'Figure 1'),
        ('kcube gray --n 4 --convert gray-to-binary-msb', 'Figure 2, step by step'),
        ('kcube butterfly --n 2 --p 4 --method bisect-local --trace --fft', 'worked example below'),
        ('kcube butterfly --n 4 --p 10 --method bisect-interproc --fft --json', 'Theorem 2, met exactly'),
        ('kcube butterfly --n 10 --p 10 --method one-per-proc', 'Theorem 5: 10 transfers'),
        ('kcube butterfly --n 3 --p 5 --encoding gray --method bisect-local --output-encoding binary --motions', 'Table 2, block by block'),
        ('kcube butterfly --n 8 --p 14 --alloc consecutive --method bisect-local --json', 'Theorem 3, met'),
        ('kcube butterfly --n 4 --p 10 --method multisect --r 4 --fft --json', 'N-sectioning: M/2 = 32, the lower bound'),
        ('kcube butterfly --n 4 --p 14 --method bisect-local --plot bfly.png', "every method and the paper's counts, p = 4..14"),
    ])


@block('hl-quick-start')
def _(r):
    return r.commands([
        ('kcube hl --n 3 --matrix "010;101;110" --vector 110 --trace', 'seed 004, Figure 2: states A, B, A'),
        ('kcube hl --n 20 --pattern bit-reverse --json', '1 M tags, 20 steps, Lemma 4 checked'),
        ('kcube hl --n 8 --pattern transpose --topology mesh --shape 16x16', 'on a 16 x 16 mesh: 2 (16 - 1) = 30 mesh steps'),
        ('kcube hl --census 3', 'all 8! permutations: SIMD, M-SIMD, MIMD'),
        ('kcube hl --plc-count 4', '|PLC_4| by recurrence (3) and by enumeration'),
    ])


@block('hypercube-quick-start')
def _(r):
    return r.commands([
        ('kcube analyze --n 8 --pattern transpose', 'T_i per dimension: formula and exact count'),
        ('kcube map --n 8 --pattern transpose --kind reorder --json', 'the optimal reordering and both node arrays'),
        'kcube map --n 8 --pattern transpose --pattern bit-reverse --pattern reverse-flip --objective max --kind reorder',
        ('kcube map --n 8 --pattern transpose --pattern bit-reverse', 'the best of reorder and linear: linear, 1 and 1'),
    ])


@block('sim-quick-start', quick=False)
def _(r):
    return r.commands([
        ('kcube simulate --n 8 --pattern transpose --sweep 0.01:0.3:0.01', 'e-cube, 8-cube'),
        'kcube simulate --n 8 --pattern transpose --mapping optimal --rate 0.5 --json',
        'kcube simulate --n 8 --pattern bit-reverse --compare --sweep 0.02:1:0.02 --plot fig6.png',
        'kcube simulate --k 4 --n 4 --pattern transpose --mapping set:transpose,digit-reverse --sweep 0.025:0.6:0.025',
        ('kcube figures --out kcube-figures', 'seed 000 Figures 5-7 (about half a minute on 2 cores)'),
        ('kcube figures --torus --out kcube-figures', 'and seed 002 Figures 2-6 (under a minute)'),
    ])


@block('sim-li-min')
def _(r):
    return r.commands([
        'kcube simulate --n 8 --pattern bit-reverse --routing li-min --sweep 0.02:0.3:0.02',
        'kcube simulate --n 8 --pattern bit-reverse --compare --configs ecube,pcube,li-min,duato --sweep 0.02:0.9:0.02',
    ])


@block('torus-quick-start')
def _(r):
    return r.commands([
        ('kcube analyze --k 4 --n 4 --pattern transpose', 'Theorem 1 per dimension + exact count: T = 2 8 8 2'),
        ('kcube analyze --k 4 --n 4 --pattern transpose --topology mesh', 'the same on a mesh (exact: 3 12 12 3)'),
        ('kcube map --k 4 --n 4 --pattern transpose --kind linear', 'Theorem 3: Q of seed 002 Example 4, 8 -> 2'),
        ('kcube map --k 4 --n 4 --pattern transpose --pattern digit-reverse --kind linear', 'Theorem 4 (Map-G): 8, 8 -> 2, 2'),
        ('kcube map --k 4 --n 4 --pattern transpose --pattern digit-reverse', 'auto: beyond the paper, -> 1, 1'),
        ('kcube map --k 16 --n 2 --pattern transpose --search --evals 100000 --json', "every Q tried: 8 -> 4 (the paper's mapping keeps 8)"),
    ])


# ---- the driver ------------------------------------------------------------------------

MARK = re.compile(r"^<!-- (/?)gen:([A-Za-z0-9_.-]+) -->\s*$")


def find_blocks():
    """name -> (page, start line index of the content, end line index) over every page."""
    where = {}
    for page in PAGES:
        lines = open(os.path.join(ROOT, page), encoding="utf-8").read().split("\n")
        open_name = None
        for i, l in enumerate(lines):
            m = MARK.match(l)
            if not m:
                continue
            if not m.group(1):
                if open_name:
                    raise Failure("%s:%d: gen:%s opens inside gen:%s" % (page, i + 1, m.group(2), open_name[0]))
                open_name = (m.group(2), i + 1)
            else:
                if not open_name or open_name[0] != m.group(2):
                    raise Failure("%s:%d: /gen:%s closes nothing" % (page, i + 1, m.group(2)))
                if open_name[0] in where:
                    raise Failure("%s:%d: gen:%s appears twice" % (page, i + 1, m.group(2)))
                where[open_name[0]] = (page, open_name[1], i)
                open_name = None
        if open_name:
            raise Failure("%s: gen:%s is never closed" % (page, open_name[0]))
    return where


NOT_GENERATED = re.compile(r"^<!-- not-generated: \S.*-->\s*$")
COMMAND = re.compile(r"^\s*(\$\s+)?(\w+=\S*\s+)*(mpirun\s.*?)?(\S*/)?kcube(-mpi)?\s+\S")


def code_blocks(lines):
    """(first line index, lines) of every fenced block and every indented block (4 spaces,
    after a blank line) of a page."""
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            yield i + 1, lines[i + 1:j]
            i = j + 1
        elif lines[i].startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            yield i, lines[i:j]
            i = j
        else:
            i += 1


def unmarked_blocks():
    """"page:line" of every code block outside the gen markers that shows a kcube command and is
    not marked not-generated on the nearest non-blank line before it."""
    bad = []
    for page in PAGES:
        lines = open(os.path.join(ROOT, page), encoding="utf-8").read().split("\n")
        inside = [False] * len(lines)
        on = False
        for i, l in enumerate(lines):
            m = MARK.match(l)
            if m:
                on = not m.group(1)
            inside[i] = on
        for start, body in code_blocks(lines):
            if inside[start] or not any(COMMAND.match(l) for l in body):
                continue
            k = start - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            if k < 0 or not NOT_GENERATED.match(lines[k]):
                bad.append("%s:%d" % (page, start + 1))
    return bad


def synopsis_problems(r):
    """Every option a synopsis block (marked not-generated: a synopsis) names must be one that
    kcube CMD --help lists now, not an old spelling: "page:line: ..." for each that is not."""
    out = []
    for page in PAGES:
        lines = open(os.path.join(ROOT, page), encoding="utf-8").read().split("\n")
        for start, body in code_blocks(lines):
            k = start - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            if k < 0 or not (NOT_GENERATED.match(lines[k]) and "synopsis" in lines[k]):
                continue
            path = None
            for i, l in enumerate(body):
                m = re.match(r"^\s*kcube\s+([a-z][a-z-]*)", l)
                if m:
                    path = [m.group(1)]
                if not path:
                    continue
                current, old = r.options(path)
                for opt in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", l):
                    if opt in old or opt not in current:
                        out.append("%s:%d: kcube %s %s %s" % (page, start + i + 1, path[0], opt,
                                   "is an old spelling" if opt in old else "is not in its --help"))
    return out


def main():
    global ROOT
    ap = argparse.ArgumentParser(description="regenerate or check the generated blocks of the docs")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help="rewrite the blocks")
    g.add_argument("--check", action="store_true", help="exit 1 when a block differs from its commands' output")
    g.add_argument("--list", action="store_true", help="list the blocks")
    ap.add_argument("--quick", action="store_true", help="only the blocks that take a few seconds")
    ap.add_argument("--only", action="append", default=[], help="this block only (repeatable)")
    ap.add_argument("--kcube", default=os.environ.get("KCUBE", os.path.join(ROOT, "build", "kcube")))
    ap.add_argument("--root", default=ROOT, help="the tree whose README.md and docs/ are read (default: this one)")
    a = ap.parse_args()
    ROOT = a.root
    PAGES[:] = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    try:
        where = find_blocks()
    except Failure as e:
        print("gen_docs: " + str(e), file=sys.stderr)
        return 2
    bad = unmarked_blocks()
    for b in bad:
        print("gen_docs: %s: a block showing a kcube command is neither generated (gen:NAME) nor marked "
              "<!-- not-generated: why -->" % b, file=sys.stderr)
    if bad:
        return 2
    unknown = sorted(set(where) - set(BLOCKS))
    missing = sorted(set(BLOCKS) - set(where))
    if unknown or missing:
        for n in unknown:
            print("gen_docs: %s: marker gen:%s has no generator" % (where[n][0], n), file=sys.stderr)
        for n in missing:
            print("gen_docs: block %s is in no page" % n, file=sys.stderr)
        return 2
    if a.list:
        for n in sorted(BLOCKS, key=lambda n: (where[n][0], where[n][1])):
            print("%-24s %-20s %s" % (n, where[n][0], "quick" if BLOCKS[n][0] else "slow"))
        return 0
    for n in a.only:
        if n not in BLOCKS:
            print("gen_docs: no block %s" % n, file=sys.stderr)
            return 2
    if not os.access(a.kcube, os.X_OK):
        print("gen_docs: no kcube at %s (build it, or give --kcube)" % a.kcube, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="gen_docs.") as tmp:
        bad = synopsis_problems(Runner(a.kcube, tmp))
    for b in bad:
        print("gen_docs: %s (a synopsis that differs from the program)" % b, file=sys.stderr)
    if bad:
        return 1
    names = [n for n in sorted(BLOCKS, key=lambda n: (where[n][0], where[n][1]))
             if (not a.only or n in a.only) and (not a.quick or BLOCKS[n][0])]
    new = {}
    failed = []

    def make(n):
        work = os.path.join(tmp, n)
        os.makedirs(work)
        try:
            return n, BLOCKS[n][1](Runner(a.kcube, work)), None
        except Failure as e:
            return n, None, e

    # Blocks are independent (a directory each): run them side by side.
    with tempfile.TemporaryDirectory(prefix="gen_docs.") as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        for n, lines, e in pool.map(make, names):
            if e:
                print("gen_docs: %s: %s" % (n, e), file=sys.stderr)
                failed.append(n)
            else:
                new[n] = lines
    if failed:
        return 1
    stale = []
    for page in PAGES:
        path = os.path.join(ROOT, page)
        lines = open(path, encoding="utf-8").read().split("\n")
        mine = sorted((where[n][1], where[n][2], n) for n in new if where[n][0] == page)
        for start, end, n in reversed(mine):  # from the bottom: earlier indices stay valid
            if lines[start:end] != new[n]:
                stale.append(n)
                if a.check:
                    sys.stdout.writelines(difflib.unified_diff(
                        [l + "\n" for l in lines[start:end]], [l + "\n" for l in new[n]],
                        "%s (gen:%s, in the page)" % (page, n), "%s (gen:%s, kcube now)" % (page, n)))
                lines[start:end] = new[n]
        if a.write and any(where[n][0] == page for n in stale):
            tmp_path = path + ".tmp"
            with open(tmp_path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            os.replace(tmp_path, path)
    if a.check:
        if stale:
            print("gen_docs: stale: %s (scripts/gen_docs.py --write regenerates them)" % ", ".join(sorted(stale)),
                  file=sys.stderr)
            return 1
        print("gen_docs: %d blocks up to date" % len(names))
        return 0
    print("gen_docs: %d blocks, %d rewritten%s" % (len(names), len(stale), (": " + ", ".join(sorted(stale))) if stale else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
