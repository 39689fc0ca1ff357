#!/usr/bin/env python3
"""The public entry points that allocate, and which of them test_alloc_fail names.

tests/test_alloc_fail.c fails the library's allocations one by one through a
table of cases, each naming the kc_ functions it calls. This script finds the
functions such a table must cover: every kc_ function defined in the
library's objects whose code reaches malloc, calloc, realloc, strdup or
pthread_create through direct calls (the disassembly's call targets and
relocations, static helpers included; calls through function pointers are
not followed, so the list is a floor). With --check it also lists those the
test's case table does not name, and exits 1 if there are any.

usage: scripts/alloc_entry_points.py BUILD_DIR [--check tests/test_alloc_fail.c]
(BUILD_DIR is a CMake build of kcube; needs objdump and nm from binutils)
"""
import collections
import glob
import os
import re
import subprocess
import sys

ALLOC = {"malloc", "calloc", "realloc", "strdup", "pthread_create"}
CALL = re.compile(r"(?:call|jmp)\w*\s+[0-9a-f]+ <([\w.]+?)(?:\+0x[0-9a-f]+)?>")
RELOC = re.compile(r"R_X86_64_(?:PLT32|PC32|GOTPCREL\w*|64)\s+([\w.]+)")
FUNC = re.compile(r"^[0-9a-f]+ <([^>]+)>:")


def call_graph(objs):
    """(object, function) -> names it calls or refers to; the global definitions."""
    calls = collections.defaultdict(set)
    exported = set()
    for o in objs:
        out = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", o], capture_output=True, text=True,
                             check=True).stdout
        cur = None
        for line in out.splitlines():
            m = FUNC.match(line)
            if m:
                cur = (o, m.group(1))
                calls[cur]
                continue
            m = RELOC.search(line) or CALL.search(line)
            if m and cur:
                calls[cur].add(m.group(1))
        syms = subprocess.run(["nm", "-g", "--defined-only", o], capture_output=True, text=True, check=True).stdout
        exported.update(p[2] for p in (l.split() for l in syms.splitlines()) if len(p) == 3 and p[1] in "TW")
    return calls, exported


def allocating(calls, exported):
    """The exported kc_ functions from which an allocation is reachable."""
    local = collections.defaultdict(dict)
    for node in calls:
        local[node[0]][node[1]] = node
    glob_node = {f: node for node in calls for f in [node[1]] if f in exported}
    reach = {}

    def visit(node, path):
        if node in reach:
            return reach[node]
        if node in path:
            return False
        path.add(node)
        found = False
        for s in calls[node]:
            nxt = local[node[0]].get(s) or glob_node.get(s)
            if s in ALLOC or (nxt and visit(nxt, path)):
                found = True
                break
        path.discard(node)
        reach[node] = found
        return found

    sys.setrecursionlimit(100000)
    return sorted(f for f, node in glob_node.items() if f.startswith("kc_") and visit(node, set()))


def named_in_test(path):
    """The kc_ names in the strings of the test's case table."""
    text = open(path, encoding="utf-8").read()
    start = text.index("static const alloc_case cases[] = {")
    table = text[start:text.index("};", start)]
    return set(re.findall(r"\bkc_\w+", " ".join(re.findall(r'"([^"]*)"', table))))


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--check"):
        sys.exit(__doc__.strip().splitlines()[-2])
    objs = glob.glob(os.path.join(argv[1], "CMakeFiles", "kcube_obj.dir", "**", "*.o"), recursive=True)
    if not objs:
        sys.exit(f"no library objects under {argv[1]}/CMakeFiles/kcube_obj.dir")
    entries = allocating(*call_graph(objs))
    if len(argv) == 2:
        print("\n".join(entries))
        return 0
    missing = [f for f in entries if f not in named_in_test(argv[3])]
    print(f"{len(entries)} public functions reach an allocation; {len(missing)} not named by {argv[3]}")
    for f in missing:
        print(f"  {f}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
