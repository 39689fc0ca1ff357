#!/usr/bin/env python3
"""Measure the functions and files of kcube's C sources (src/ by default).

Functions are found by the project's layout (clang-format): a definition's
signature starts at column 0 and its body opens with "{" alone on a line and
closes with "}" alone on a line. A function's length counts its lines from
the first line of its signature to its closing brace.

  scripts/funclen.py                      the table of the issue's measures
  scripts/funclen.py --list 60            every function over 60 lines
  scripts/funclen.py --check 80 1200      exit 1 when a function is over 80
                                          lines or a .c file over 1,200
"""
import argparse
import glob
import os
import sys


def functions(path):
    """[(name, first line, length)] of the function definitions in path."""
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i] == "{" and i > 0:
            start = i - 1
            while start > 0 and lines[start - 1] and not lines[start - 1][0].isspace() \
                    and not lines[start - 1].rstrip().endswith((";", "}", "*/")) \
                    and not lines[start - 1].startswith(("#", "/*", "//")):
                start -= 1
            while start > 0 and lines[start][:1].isspace():
                start -= 1
            end = i + 1
            while end < len(lines) and lines[end] != "}":
                end += 1
            head = " ".join(l.strip() for l in lines[start:i])
            name = head.split("(")[0].split()[-1].lstrip("*") if "(" in head else head[:40]
            if "(" in head and not head.startswith(("typedef", "struct", "enum", "union")) and "=" not in head.split("(")[0]:
                out.append((name, start + 1, end - start + 1))
            i = end
        i += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="*", default=None)
    ap.add_argument("--list", type=int, metavar="N", help="list every function over N lines")
    ap.add_argument("--check", type=int, nargs=2, metavar=("FUNC", "FILE"))
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs = a.dirs or [os.path.join(root, "src")]
    files = sorted(f for d in dirs for f in glob.glob(os.path.join(d, "**", "*.c"), recursive=True))
    fns = [(os.path.relpath(f, root), *fn) for f in files for fn in functions(f)]
    sizes = {os.path.relpath(f, root): sum(1 for _ in open(f, encoding="utf-8", errors="replace")) for f in files}
    if a.list is not None:
        for f, name, line, n in sorted(fns, key=lambda x: -x[3]):
            if n > a.list:
                print(f"{n:5d}  {f}:{line}  {name}")
        return 0
    if a.check:
        bad = [f"{f}:{line}: {name} has {n} lines (at most {a.check[0]})" for f, name, line, n in fns if n > a.check[0]]
        bad += [f"{f}: {n} lines (at most {a.check[1]})" for f, n in sizes.items() if n > a.check[1]]
        for b in bad:
            print("funclen: " + b, file=sys.stderr)
        if not bad:
            print(f"funclen: {len(fns)} functions in {len(files)} files, none over {a.check[0]} lines, "
                  f"no file over {a.check[1]}")
        return 1 if bad else 0
    longest = max(fns, key=lambda x: x[3])
    print(f"files {len(files)}, functions {len(fns)}")
    for lim in (60, 80, 100):
        print(f"functions over {lim} lines: {sum(1 for x in fns if x[3] > lim)}")
    print(f"longest: {longest[1]} ({longest[0]}:{longest[2]}), {longest[3]} lines")
    print(f"files over 1,000 lines: {sum(1 for n in sizes.values() if n > 1000)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
