#!/usr/bin/env python3
"""Exact feasibility of a butterfly emulation in T steps, small cases only.

Question asked (docs/butterfly.md, "Theorem 1 or Table 4?"): can the
butterfly on P = 2^p rows, allocated cyclically to an n-cube with the
processor field Gray coded (Binary||Gray), finish in T steps?

Model: elements are rows and keep their identity; in a step an element
stays or crosses one dimension, and every directed link carries at most
one element per step (all-port); no copies; a processor holds at most P/N
elements at every time; the stages of row bits >= n are local at time 0;
a stage-s butterfly is computed where both rows of the pair are at the
same time, both with stage s+1 done, and both outputs stay there.
The question is written as CNF and handed to a SAT solver: cadical
(Debian `cadical`, the default when installed) or picosat (`picosat`).

Usage: bfly_sat.py n p T [--show] [--solver cadical|picosat]
                   [--timeout SECONDS] [--plain]
prints SATISFIABLE, UNSATISFIABLE, or UNKNOWN when --timeout ran out
(cadical gets `-t SECONDS`, picosat is killed).  Every SATISFIABLE answer
is decoded into a schedule (where each row is at each time, when each
butterfly is computed) and replayed against the rules above by plain
Python that does not look at the CNF (check() keeps its own Gray code on
purpose): "check: ok", or exit status 1 with the broken rule.  --show
also prints the schedule, rows as p-bit strings, /s = lowest stage done,
*s = computed now.  Unless --plain, implied clauses and lex-leader
symmetry breaking are added (add_extras says why each is sound); they
never change the answer, only the time.

Measured (2 cores, cadical 1.5.3, picosat 965; wall clock):
  n p T  answer  cadical    cadical --plain  picosat   picosat --plain
  2 4 1  UNSAT   < 1 s      < 1 s            < 1 s     < 1 s
  2 4 2  SAT     < 1 s      < 1 s            < 1 s     < 1 s
  3 4 2  UNSAT   < 1 s      < 1 s            < 1 s     < 1 s
  3 4 3  SAT     < 1 s      < 1 s            < 1 s     < 1 s
  3 5 2  UNSAT   < 1 s      < 1 s            < 1 s     < 1 s
  3 5 3  SAT     < 1 s      < 1 s            < 1 s     < 1 s
  2 5 3  UNSAT   < 1 s      2 s              < 1 s     6 s
  2 5 4  SAT     < 1 s      < 1 s            < 1 s     < 1 s
  2 6 7  UNSAT   < 1 s      > 600 s          < 1 s     > 120 s
  2 6 8  SAT     1 s        > 120 s          7 s       > 120 s
  4 6 3  UNSAT   < 1 s      < 1 s            < 1 s     < 1 s
  4 6 4  SAT     82 s       58 s
  4 6 5  SAT     7 min      9 min
(> x s: UNKNOWN at that timeout; blank: not run.)  The hop budget refutes
2 6 7 at once (every layer needs 4 hops, 16 layers, 8 links); the cones
refute T < n, so 4 6 3.  A schedule for T stays one for T + 1 (idle last
step), so 4 6 5 follows from 4 6 4; bigger T only makes the CNF bigger.
The extras settle 2 6 7 and 2 6 8 in seconds but did not speed up the
4 6 4 schedule (one run each; CDCL times on SAT instances scatter).
"""
import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile


def gray(a):
    """The binary-reflected Gray code G(a)."""
    return a ^ (a >> 1)


class Cnf:
    def __init__(self):
        self.nv = 0
        self.clauses = []

    def var(self):
        self.nv += 1
        return self.nv

    def at_most(self, lits, k):
        """Sequential counter: at most k of lits are true."""
        if len(lits) <= k:
            return
        prev = None
        for i, x in enumerate(lits):
            cur = [self.var() for _ in range(k)]
            self.clauses.append([-x, cur[0]])
            if prev:
                for j in range(k):
                    self.clauses.append([-prev[j], cur[j]])
                for j in range(1, k):
                    self.clauses.append([-x, -prev[j - 1], cur[j]])
                self.clauses.append([-x, -prev[k - 1]])
            prev = cur


def build(n, p, T):
    N, P = 1 << n, 1 << p
    f = Cnf()
    at = {(e, t, x): f.var() for e in range(P) for t in range(T + 1) for x in range(N)}
    stages = range(n)
    done = {(e, s, t): f.var() for e in range(P) for s in stages for t in range(T + 1)}
    comp = {(e, s, t): f.var() for e in range(P) for s in stages for t in range(T + 1)}
    for e in range(P):
        start = gray(e % N)  # processor G(i mod N)
        f.clauses.append([at[e, 0, start]])
        for t in range(T + 1):
            where = [at[e, t, x] for x in range(N)]
            f.clauses.append(where)
            f.at_most(where, 1)
        for t in range(T):
            for y in range(N):  # one hop at most per step
                f.clauses.append([-at[e, t + 1, y], at[e, t, y]] + [at[e, t, y ^ (1 << d)] for d in range(n)])
    for t in range(T):  # one element per directed link and step
        for x in range(N):
            for d in range(n):
                moves = []
                for e in range(P):
                    m = f.var()
                    f.clauses.append([-at[e, t, x], -at[e, t + 1, x ^ (1 << d)], m])
                    moves.append(m)
                f.at_most(moves, 1)
    for t in range(T + 1):  # memory of P/N elements
        for x in range(N):
            f.at_most([at[e, t, x] for e in range(P)], P // N)
    for e in range(P):
        for s in stages:
            g = e ^ (1 << s)
            for t in range(T + 1):
                f.clauses.append([-done[e, s, t]] + ([done[e, s, t - 1]] if t else []) + [comp[e, s, t]])
                if t:
                    f.clauses.append([-done[e, s, t - 1], done[e, s, t]])
                c = comp[e, s, t]
                if s + 1 < n:  # both inputs past stage s+1
                    f.clauses.append([-c, done[e, s + 1, t]])
                    f.clauses.append([-c, done[g, s + 1, t]])
                for x in range(N):  # both rows in one processor
                    f.clauses.append([-c, -at[e, t, x], at[g, t, x]])
                f.clauses.append([-done[e, s, t], done[g, s, t]])  # one butterfly, both outputs
                f.clauses.append([-c, comp[g, s, t]])
        f.clauses.append([done[e, 0, T]])
    return f, at, done, comp


def lex_leq(f, A, B):
    """Clauses for A <=lex B (false < true): with q_i = "A and B agree
    before position i", q_i forces A_i <= B_i, and agreement at i forces q_{i+1}."""
    q = f.var()
    f.clauses.append([q])
    for i, (a, b) in enumerate(zip(A, B)):
        f.clauses.append([-q, -a, b])
        if i + 1 < len(A):
            r = f.var()
            f.clauses.append([-q, -a, -b, r])
            f.clauses.append([-q, a, b, r])
            q = r


def merge(f, A, B, cap):
    """Totalizer node: A[i] / B[i] stand for "at least i+1 of the leaves below
    are true"; returns C the same for the union, capped at cap outputs (the
    last output then means "at least cap").  Clauses only push counts up, so
    setting every output to its true meaning extends any assignment."""
    C = [f.var() for _ in range(min(len(A) + len(B), cap))]
    for X in (A, B):
        for i, x in enumerate(X):
            f.clauses.append([-x, C[min(i, len(C) - 1)]])
    for i, a in enumerate(A):
        for j, b in enumerate(B):
            f.clauses.append([-a, -b, C[min(i + j + 1, len(C) - 1)]])
    return C


def count(f, leaves, cap):
    if len(leaves) == 1:
        return [leaves[0]]
    return merge(f, count(f, leaves[: len(leaves) // 2], cap), count(f, leaves[len(leaves) // 2:], cap), cap)


def add_extras(f, n, p, T, at, done, comp):
    """Redundant clauses and symmetry breaking; neither changes the answer.

    Implied clauses (hold in every model of build()'s clauses):
    * reach: row e is at most t hops from its start at time t (one hop a step).
    * cone: the group of stage s of row e is every row e ^ m, m a multiple of
      2^s below N (the rows whose data row e holds once stage s is done).  If
      row e is at x at time t with stage s done, or computes stage s there
      then, every start processor of its group is within t hops of x.  By
      induction from s = n-1 down: stage s is computed at some t' <= t in a
      processor y holding e and e ^ 2^s, each with stage s+1 done (or s = n-1,
      group = the row itself), so each start of either half of the group is
      within t' hops of y, and y within t - t' hops of x.  Where no processor
      qualifies, stage s cannot be done (or computed) at time t at all; for
      s = 0 the group is every processor, so T < n is refuted at once.
    * order: stage s done at time t implies stage s+1 done at time t (it was
      computed at some t' <= t, which needed stage s+1 done at t', and done
      stays done); so every stage is done at time T.
    * hop budget: moved[e, t] is forced true when row e leaves its processor
      in step t; a hop takes one directed link for one step, and a link
      carries one element a step, so at most n*N*T of them are true.  The
      rows of a stage-(n-1) pair start 2 hops apart (1 if n = 1) and must
      meet, so between them they hop at least that often.  A totalizer over
      the moved variables, built up pair by pair, states both; its outputs
      are only pushed up, so their true meaning ("at least k below") extends
      every model, and the pairs' minimum meets the budget by propagation.

    Symmetry breaking (lex-leader).  Two groups of maps send schedules to
    schedules of the same model.  Layers: rows h*N + a (a < N) form layer h;
    every layer starts in the same N processors and a butterfly pair never
    leaves its layer, so permuting the P/N layers (row h*N + a -> pi(h)*N + a,
    same processors, same times) keeps every rule.  Translations: for c < N,
    row e -> e ^ c and processor x -> x ^ G(c) keeps every rule, because G is
    linear (G(a ^ c) = G(a) ^ G(c)), so starts map to starts, pairs e, e ^ 2^s
    to pairs of the same stage, hops to hops of the same dimension (links to
    links), and loads are permuted.  Order the variables as V = W_0 W_1 ...
    then the rest, W_h = at[h*N + a, t, x] for t = 1..T, a, x.  Some schedule
    S* in each orbit is lex-least (false < true) in V, so V(S*) <= V(g S*) for
    every map g, and every clause below is such an inequality or implied by
    one: swapping layers h, h+1 gives exactly W_h <= W_{h+1}; a translation c
    gives W_0(S) <= W_0(c S) on the prefix W_0 of V, where W_0(c S) lists
    at[a ^ c, t, x ^ G(c)].  All these hold together for S*, so a model
    survives whenever one exists (the counters' and link variables of S*
    exist because only the counts they bound matter)."""
    N, P = 1 << n, 1 << p

    def hops(x, y):
        return bin(x ^ y).count("1")

    for e in range(P):
        a = e % N
        for t in range(T + 1):
            for x in range(N):
                if hops(gray(a), x) > t:
                    f.clauses.append([-at[e, t, x]])
        for s in range(n):
            starts = [gray(a ^ (m << s)) for m in range(1 << (n - s))]
            for t in range(T + 1):
                far = [x for x in range(N) if max(hops(y, x) for y in starts) > t]
                if len(far) == N:
                    f.clauses.append([-done[e, s, t]])
                    f.clauses.append([-comp[e, s, t]])
                    continue
                for x in far:
                    f.clauses.append([-done[e, s, t], -at[e, t, x]])
                    f.clauses.append([-comp[e, s, t], -at[e, t, x]])
                if s + 1 < n:
                    f.clauses.append([-done[e, s, t], done[e, s + 1, t]])
            f.clauses.append([done[e, s, T]])
    if T < 1:
        return
    K = n * N * T  # hop budget: every hop takes one directed link for one step
    if P > n * N:  # else P*T hop variables can never exceed K
        s = n - 1
        d = hops(0, gray(1 << s))  # start distance of a stage-s pair
        moved = {}
        for e in range(P):
            for t in range(T):
                moved[e, t] = f.var()
                for x in range(N):
                    f.clauses.append([-at[e, t, x], at[e, t + 1, x], moved[e, t]])
        nodes = []
        for e in range(P):
            if e & (1 << s) == 0:
                node = count(f, [moved[g, t] for g in (e, e | 1 << s) for t in range(T)], K + 1)
                f.clauses.extend([node[i]] for i in range(d))
                nodes.append(node)
        while len(nodes) > 1:
            nodes = [merge(f, nodes[i], nodes[i + 1], K + 1) if i + 1 < len(nodes) else nodes[i]
                     for i in range(0, len(nodes), 2)]
        if len(nodes[0]) > K:
            f.clauses.append([-nodes[0][K]])
    W = [[at[h * N + a, t, x] for t in range(1, T + 1) for a in range(N) for x in range(N)] for h in range(P // N)]
    for h in range(P // N - 1):
        lex_leq(f, W[h], W[h + 1])
    for c in range(1, N):
        lex_leq(f, W[0], [at[a ^ c, t, x ^ gray(c)] for t in range(1, T + 1) for a in range(N) for x in range(N)])


def decode(n, p, T, at, done, true):
    """The schedule in a model: pos[e][t] = processor of row e at time t
    (None unless exactly one at-variable holds), when[e][s] = the first time
    row e has stage s done (None if never)."""
    N, P = 1 << n, 1 << p
    pos = [[None] * (T + 1) for _ in range(P)]
    for e in range(P):
        for t in range(T + 1):
            xs = [x for x in range(N) if at[e, t, x] in true]
            if len(xs) == 1:
                pos[e][t] = xs[0]
    when = [[next((t for t in range(T + 1) if done[e, s, t] in true), None) for s in range(n)] for e in range(P)]
    return pos, when


def check(n, p, T, pos, when):
    """Replay a schedule with the model's rules, independently of the CNF.
    Returns None if it obeys every rule, else the first broken rule."""
    N, P = 1 << n, 1 << p
    for e in range(P):
        for t in range(T + 1):
            if pos[e][t] is None or not 0 <= pos[e][t] < N:
                return "row %d is not in exactly one processor at time %d" % (e, t)
        a = e % N
        if pos[e][0] != a ^ (a >> 1):
            return "row %d does not start at processor G(%d mod N)" % (e, e)
        for t in range(T):
            if bin(pos[e][t] ^ pos[e][t + 1]).count("1") > 1:
                return "row %d makes more than one hop in step %d" % (e, t + 1)
    for t in range(T):
        used = {}
        for e in range(P):
            if pos[e][t] != pos[e][t + 1]:
                link = (pos[e][t], pos[e][t + 1])
                if link in used:
                    return "rows %d and %d both cross link %s in step %d" % (used[link], e, link, t + 1)
                used[link] = e
    for t in range(T + 1):
        load = [0] * N
        for e in range(P):
            load[pos[e][t]] += 1
        if max(load) > P // N:
            return "processor %d holds %d > P/N elements at time %d" % (load.index(max(load)), max(load), t)
    for e in range(P):
        for s in range(n):
            if when[e][s] is None or not 0 <= when[e][s] <= T:
                return "row %d does not have stage %d done by time %d" % (e, s, T)
    for e in range(P):
        for s in range(n):
            g, c = e ^ (1 << s), when[e][s]
            if when[g][s] != c:
                return "stage %d of rows %d, %d done at different times %s, %s" % (s, e, g, c, when[g][s])
            if pos[e][c] != pos[g][c]:
                return "stage %d of rows %d, %d computed at time %d in two processors" % (s, e, g, c)
            if s + 1 < n and not (when[e][s + 1] <= c and when[g][s + 1] <= c):
                return "stage %d of rows %d, %d computed at time %d before stage %d" % (s, e, g, c, s + 1)
    return None


def solve(f, solver, timeout):
    """Write f as DIMACS, run solver (argument list, no shell); returns
    ("SATISFIABLE" | "UNSATISFIABLE" | "UNKNOWN", set of true variables)."""
    with tempfile.NamedTemporaryFile("w", suffix=".cnf", delete=False) as fo:
        fo.write("p cnf %d %d\n" % (f.nv, len(f.clauses)))
        for c in f.clauses:
            fo.write(" ".join(map(str, c)) + " 0\n")
        name = fo.name
    try:
        if solver == "cadical":
            # -q: no statistics, but the "s" line and the "v" witness lines stay.
            # Exit code 10 = SAT, 20 = UNSAT, 0 = unknown (the -t limit hit).
            cmd = ["cadical", "-q"] + (["-t", str(max(1, math.ceil(timeout)))] if timeout else []) + [name]
            limit = timeout + 30 if timeout else None  # backstop only, -t stops it first
        else:
            cmd = ["picosat", name]
            limit = timeout
        try:
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
        except subprocess.TimeoutExpired:  # run() has killed the solver
            return "UNKNOWN", set()
    finally:
        os.unlink(name)
    answer = {10: "SATISFIABLE", 20: "UNSATISFIABLE"}.get(run.returncode, "UNKNOWN")
    status = [line[2:].strip() for line in run.stdout.splitlines() if line.startswith("s ")]
    if answer != "UNKNOWN" and status != [answer]:
        sys.exit("bfly_sat.py: %s exit code %d but status %r" % (solver, run.returncode, status))
    true = {int(v) for line in run.stdout.splitlines() if line.startswith("v ")
            for v in line.split()[1:] if int(v) > 0}
    return answer, true


def main():
    have = [s for s in ("cadical", "picosat") if shutil.which(s)]
    ap = argparse.ArgumentParser(description="Can the Binary||Gray butterfly emulation finish in T steps?")
    ap.add_argument("n", type=int, help="cube dimension, N = 2^n processors")
    ap.add_argument("p", type=int, help="P = 2^p rows")
    ap.add_argument("T", type=int, help="steps")
    ap.add_argument("--show", action="store_true", help="print the schedule when satisfiable")
    ap.add_argument("--solver", choices=("cadical", "picosat"), default=have[0] if have else "cadical",
                    help="default: cadical when installed, else picosat")
    ap.add_argument("--plain", action="store_true", help="the model's clauses only, no implied clauses or symmetry breaking")
    ap.add_argument("--timeout", type=float, metavar="SECONDS", help="give up (print UNKNOWN) after this long")
    a = ap.parse_args()
    if shutil.which(a.solver) is None:
        sys.exit("bfly_sat.py: %s is not installed (scripts/deps.sh installs it)" % a.solver)
    n, p, T = a.n, a.p, a.T
    if not 1 <= n <= p or T < 0:
        ap.error("needs 1 <= n <= p and T >= 0 (P/N >= 1 rows a processor)")
    f, at, done, comp = build(n, p, T)
    if not a.plain:
        add_extras(f, n, p, T, at, done, comp)
    answer, true = solve(f, a.solver, a.timeout)
    print(answer)
    if answer != "SATISFIABLE":
        return
    pos, when = decode(n, p, T, at, done, true)
    broken = check(n, p, T, pos, when)
    if broken:
        print("check: FAILED:", broken)
        sys.exit(1)
    print("check: ok")
    if not a.show:
        return
    N, P = 1 << n, 1 << p
    for t in range(T + 1):
        print("time", t)
        for x in range(N):
            rows = []
            for e in range(P):
                if at[e, t, x] in true:
                    low = min([s for s in range(n) if done[e, s, t] in true] + [n])
                    new = [s for s in range(n) if comp[e, s, t] in true and not (t and done[e, s, t - 1] in true)]
                    rows.append("%s/%d%s" % (format(e, "0%db" % p), low, "*%d" % new[0] if new else ""))
            print("  processor %s: %s" % (format(x, "0%db" % n), " ".join(rows)))


if __name__ == "__main__":
    main()
