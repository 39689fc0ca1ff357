#!/usr/bin/env python3
"""Check that kcube's rooms (the folders of src/) form layers that only point down.

The documented order is the table between the `layers:table` markers of
docs/architecture.md: every room of src/ and every public header of
include/kcube/ is listed once, with the layer it sits in. This script derives
the real graph from two sources and fails on any arrow that does not point to
a lower layer (an arrow between two rooms of one layer fails too, and so does
any cycle, which always contains such an arrow):

- includes: a file of src/ROOM including "kcube/X.h" uses X.h's room;
  "OTHER/Y.h" uses room OTHER, and must be one of the private headers the
  `layers:surfaces` list of docs/architecture.md opens to other rooms;
  "Y.h" must be a header of its own folder; a public header including another
  gives its room an arrow too;
- link-level symbols (nm of the built objects under --build): a file whose
  object needs a symbol defined in another room's object uses that room;
- ownership: every kc_ function a public header declares must be defined in
  the room the table gives that header;
- inside a room, files must not call each other in a circle (link level).

The drawing between the `layers:drawing` markers of docs/architecture.md is
the derived graph; --check fails when it is stale, --write rewrites it.
Exit 0: all good; 1: a violation (each printed on stderr); 2: bad usage.
"""
import argparse
import collections
import fnmatch
import glob
import os
import re
import subprocess
import sys

TABLE_BEGIN, TABLE_END = "<!-- layers:table:begin -->", "<!-- layers:table:end -->"
DRAW_BEGIN, DRAW_END = "<!-- layers:drawing:begin -->", "<!-- layers:drawing:end -->"
SURF_BEGIN, SURF_END = "<!-- layers:surfaces:begin -->", "<!-- layers:surfaces:end -->"
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
DECL_RE = re.compile(r"^(?!static)[A-Za-z_][\w \t\*]*?\b(kc_\w+)\s*\(", re.M)


def fail_usage(msg):
    print("layers.py: " + msg, file=sys.stderr)
    sys.exit(2)


def read_table(doc):
    """{room: layer}, {header: room}, [(layer, name)] from the documented table."""
    text = open(doc, encoding="utf-8").read()
    if TABLE_BEGIN not in text or TABLE_END not in text:
        fail_usage(f"{doc}: no {TABLE_BEGIN} ... {TABLE_END} table")
    body = text.split(TABLE_BEGIN, 1)[1].split(TABLE_END, 1)[0]
    rooms, headers, names = {}, {}, {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].isdigit():
            continue
        layer, name, room = int(cells[0]), cells[1], cells[2].strip("`/")
        if room in rooms:
            fail_usage(f"{doc}: room {room} listed twice")
        rooms[room] = layer
        names[layer] = name
        for h in cells[3].replace("`", "").split():
            if h in headers:
                fail_usage(f"{doc}: header {h} listed twice")
            headers[h] = room
    return rooms, headers, names


def read_surfaces(doc):
    """The private headers other rooms may include ("room/name.h" patterns)."""
    text = open(doc, encoding="utf-8").read()
    if SURF_BEGIN not in text or SURF_END not in text:
        fail_usage(f"{doc}: no {SURF_BEGIN} ... {SURF_END} list")
    body = text.split(SURF_BEGIN, 1)[1].split(SURF_END, 1)[0]
    return re.findall(r"^- `([^`]+)`", body, re.M)


def room_of_path(root, path):
    rel = os.path.relpath(path, os.path.join(root, "src"))
    return rel.split(os.sep)[0]


def include_edges(root, headers, surfaces, problems):
    """Arrows (from_room, to_room) -> first evidence, from the #include lines."""
    edges = {}
    files = glob.glob(os.path.join(root, "src", "*", "*.[ch]"))
    for path in sorted(files):
        room = room_of_path(root, path)
        text = open(path, encoding="utf-8", errors="replace").read()
        for m in INCLUDE_RE.finditer(text):
            inc = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            where = f"{os.path.relpath(path, root)}:{line}: #include \"{inc}\""
            to = include_target(root, path, inc, headers, where, problems)
            if to and to != room and "/" in inc and not inc.startswith("kcube/") \
                    and not any(fnmatch.fnmatch(inc, pat) for pat in surfaces):
                problems.append(f"{where}: {inc} is private to src/{to} (not in the layers:surfaces list)")
            if to and to != room:
                edges.setdefault((room, to), where)
    for path in sorted(glob.glob(os.path.join(root, "include", "kcube", "*.h"))):
        h = os.path.basename(path)
        if h not in headers:
            continue
        text = open(path, encoding="utf-8").read()
        for m in INCLUDE_RE.finditer(text):
            inc = m.group(1)
            if inc.startswith("kcube/") and inc[6:] in headers and headers[inc[6:]] != headers[h]:
                line = text.count("\n", 0, m.start()) + 1
                edges.setdefault((headers[h], headers[inc[6:]]),
                                 f"include/kcube/{h}:{line}: #include \"{inc}\"")
    return edges


def include_target(root, path, inc, headers, where, problems):
    """The room an include line points at (None: a system or generated header)."""
    if inc.startswith("kcube/"):
        if inc[6:] not in headers:
            problems.append(f"{where}: kcube/{inc[6:]} is not in the layers table")
            return None
        return headers[inc[6:]]
    if ".." in inc.split("/"):
        problems.append(f"{where}: reach another room as \"room/header.h\", not through ..")
        return None
    if "/" in inc:
        other = inc.split("/")[0]
        if not os.path.exists(os.path.join(root, "src", inc)):
            return None  # generated (e.g. kc_commands.inc) or external
        return other
    if os.path.exists(os.path.join(os.path.dirname(path), inc)):
        return room_of_path(root, path)
    return None  # a header from the build tree or an external package


def object_files(root, build):
    """{object path: room} for the built objects of files that exist under src/
    (paths are read relative to the build folder, so where the tree lives does
    not matter)."""
    out = {}
    for obj in glob.glob(os.path.join(build, "**", "*.o"), recursive=True):
        rel = os.path.relpath(obj, build).replace(os.sep, "/")
        m = re.search(r"^(?:.*/)?CMakeFiles/[^/]+\.dir/src/([^/]+)/([^/]+)\.c\.o$", rel)
        if not m or rel.startswith(("tests/", "bench/", "fuzz/")):
            continue
        if os.path.exists(os.path.join(root, "src", m.group(1), m.group(2) + ".c")):
            out[obj] = m.group(1)
    return out


def symbols(objs):
    """{symbol: object defining it}, {object: set of undefined symbols}."""
    defs, undefs = {}, {}
    for obj in sorted(objs):
        res = subprocess.run(["nm", "-g", obj], capture_output=True, text=True)
        if res.returncode != 0:
            fail_usage(f"nm failed on {obj}: {res.stderr.strip()}")
        need = set()
        for line in res.stdout.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDRBCVW":
                # The tracer's MPI_* wrappers (src/mpitrace) stand in for MPI's
                # own functions: calling MPI_Send uses MPI, not the tracer.
                if not p[2].startswith("MPI_"):
                    defs.setdefault(p[2], obj)
            elif len(p) == 2 and p[0] == "U":
                need.add(p[1])
        undefs[obj] = need
    return defs, undefs


def file_cycles(objs, defs, undefs):
    """Cycles among the files of one room (link level): each a list of objects."""
    graph = collections.defaultdict(set)
    for obj, need in undefs.items():
        for sym in need:
            to = defs.get(sym)
            if to and to != obj and objs[to] == objs[obj]:
                graph[obj].add(to)
    return [sorted(c) for c in strong_components(graph) if len(c) > 1]


def strong_components(graph):
    """Tarjan's strongly connected components of {node: set of nodes}."""
    index, low, stack, on, out, count = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = count[0]
        count[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def link_edges(objs, defs, undefs):
    edges = {}
    for obj, need in undefs.items():
        room = objs[obj]
        for sym in sorted(need):
            to = defs.get(sym)
            if to and to != room:
                edges.setdefault((room, to), f"{os.path.basename(obj)} ({room}) needs {sym}")
    return edges


# include/kcube/kcube.h includes every public header for users and belongs to
# no room: it must declare nothing, and no file of src/ may include it.
UMBRELLA = "kcube.h"


def ownership(root, headers, defs, problems):
    for path in sorted(glob.glob(os.path.join(root, "include", "kcube", "*.h"))):
        h = os.path.basename(path)
        if h == UMBRELLA:
            for m in DECL_RE.finditer(open(path, encoding="utf-8").read()):
                problems.append(f"include/kcube/{h} declares {m.group(1)}: it only includes the others")
            continue
        if h not in headers:
            problems.append(f"include/kcube/{h}: not in the layers table of docs/architecture.md")
            continue
        text = open(path, encoding="utf-8").read()
        for m in DECL_RE.finditer(text):
            sym = m.group(1)
            if sym in defs and defs[sym] != headers[h]:
                problems.append(f"include/kcube/{h} declares {sym}, defined in src/{defs[sym]}, "
                                f"but the table puts {h} in src/{headers[h]}")


def drawing(rooms, names, edges):
    """The derived graph, top layer first: one line a room."""
    uses = collections.defaultdict(set)
    for a, b in edges:
        uses[a].add(b)
    lines = []
    for layer in sorted(set(rooms.values()), reverse=True):
        lines.append(f"{layer} {names[layer]}")
        for room in sorted(r for r in rooms if rooms[r] == layer):
            below = sorted(uses[room], key=lambda r: (-rooms.get(r, -1), r))
            lines.append(f"    {room:<11} -> {', '.join(below) if below else '(nothing)'}")
    return "\n".join(lines)


def check_drawing(doc, text_now, write):
    text = open(doc, encoding="utf-8").read()
    if DRAW_BEGIN not in text or DRAW_END not in text:
        return [f"{doc}: no {DRAW_BEGIN} ... {DRAW_END} block"]
    head, rest = text.split(DRAW_BEGIN, 1)
    old, tail = rest.split(DRAW_END, 1)
    new = "\n```\n" + text_now + "\n```\n"
    if old == new:
        return []
    if write:
        with open(doc, "w", encoding="utf-8") as f:
            f.write(head + DRAW_BEGIN + new + DRAW_END + tail)
        return []
    return [f"{doc}: the layers drawing is stale (run scripts/layers.py --write)"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--build", required=True, help="a CMake build directory of this tree (for nm)")
    ap.add_argument("--doc", help="the architecture page (default ROOT/docs/architecture.md)")
    ap.add_argument("--write", action="store_true", help="rewrite the drawing instead of checking it")
    ap.add_argument("--no-drawing", action="store_true", help="do not compare the drawing")
    a = ap.parse_args()
    doc = a.doc or os.path.join(a.root, "docs", "architecture.md")
    rooms, headers, names = read_table(doc)
    problems = []
    for d in sorted(glob.glob(os.path.join(a.root, "src", "*", ""))):
        r = os.path.basename(os.path.dirname(d))
        if r not in rooms:
            problems.append(f"src/{r}/: not in the layers table of {os.path.relpath(doc, a.root)}")
    objs = object_files(a.root, a.build)
    if not objs:
        fail_usage(f"no built objects under {a.build}: build first")
    defs_obj, undefs = symbols(objs)
    defs = {sym: objs[obj] for sym, obj in defs_obj.items()}
    edges = include_edges(a.root, headers, read_surfaces(doc), problems)
    for key, why in link_edges(objs, defs, undefs).items():
        edges.setdefault(key, why)
    ownership(a.root, headers, defs, problems)
    for cyc in file_cycles(objs, defs_obj, undefs):
        names = ", ".join(os.path.basename(o)[:-4] for o in cyc)
        problems.append(f"files of src/{objs[cyc[0]]} call each other in a circle: {names}")
    for (src, dst), why in sorted(edges.items()):
        if src in rooms and dst in rooms and rooms[dst] >= rooms[src]:
            problems.append(f"arrow {src} (layer {rooms[src]}) -> {dst} (layer {rooms[dst]}) does not point "
                            f"down: {why}")
    if not a.no_drawing:
        problems += check_drawing(doc, drawing(rooms, names, edges), a.write)
    for p in problems:
        print("layers: " + p, file=sys.stderr)
    if problems:
        return 1
    print(f"layers: {len(rooms)} rooms, {len(edges)} arrows, all pointing down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
