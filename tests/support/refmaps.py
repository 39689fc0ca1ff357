"""Reference mappings of a Cartesian process grid onto a torus with several
endpoints per router, as the users of Blue Gene/Q and Cray XE6/XK7 made
them, written as kcube node lists (line r: the endpoint of rank r in the
whole network, endpoint e on router e // C, router number with axis 0
fastest), plus an independent dimension-order recount of a traffic under a
mapping. bench/net_compare.py compares them with kcube's own mapping.

Every mapping here is reimplemented from its public definition (nothing of
the tools' code is copied):
- default order: Blue Gene/Q's ABCDET (the rightmost letter varies fastest:
  T, the slot on the node, then E, D, C, B, A); the same rule (node slot
  fastest, then the last torus axis) stands for a launcher filling nodes in
  torus order on the Cray;
- rubik: LLNL Rubik's partition-tree operations (box, tile, map, tilt,
  zigzag) on row-major boxes, as its user guide and sources define them;
- grid_order: HPE/Cray grid_order's rule (cells of the grid listed one after
  the other, the ranks of a cell consecutively), whose listed ranks fill
  the slots in the default order (MPICH_RANK_REORDER_METHOD=3);
- scotch: the scotch_gmap command on a torusXD target of the routers, its
  slight imbalance evened out to C ranks a router (scotch_gmap_mapping).

Grid ranks are numbered axis 0 fastest (kcube map --grid-order's default).
Pure Python 3, no third-party modules.
"""
import os
import subprocess
import tempfile


def prod(xs):
    """The product of a list of integers (1 for an empty list)."""
    p = 1
    for x in xs:
        p *= x
    return p


def unravel(i, shape):
    """Row-major coordinates of flat index i in shape (last axis fastest)."""
    c = [0] * len(shape)
    for a in range(len(shape) - 1, -1, -1):
        c[a] = i % shape[a]
        i //= shape[a]
    return c


def ravel(c, shape):
    """Row-major flat index of coordinates c in shape (last axis fastest)."""
    i = 0
    for a, s in enumerate(shape):
        i = i * s + c[a]
    return i


def endpoint_of(coord, sides, conc):
    """kcube's endpoint number of router coordinates (axis 0 first) and slot T."""
    r = 0
    for a in range(len(sides) - 1, -1, -1):
        r = r * sides[a] + coord[a]
    return r * conc + coord[len(sides)]


# ---------------------------------------------------------------- default order

def default_order(sides, conc):
    """ABCDET: rank r on the r-th slot when slots are listed row-major over
    (axis 0, .., axis n-1, T), T fastest. Returns the node list (rank ->
    endpoint). Cost O(slots x axes)."""
    shape = list(sides) + [conc]
    return [endpoint_of(unravel(r, shape), sides, conc) for r in range(prod(shape))]


# ---------------------------------------------------------------- Rubik

class Box:
    """A Rubik box: a row-major array of elements (ranks) of a given shape
    with a partition into leaves (lists of flat indices, each in row-major
    order of its sub-box, leaves in row-major order of the tile grid)."""

    def __init__(self, shape):
        self.shape = list(shape)
        self.cells = list(range(prod(shape)))
        self.leaves = [list(range(len(self.cells)))]

    def tile(self, tile_dims):
        """Rubik's tile: cut into sub-boxes of tile_dims (each must divide its
        side; Rubik's div would give the remainder to the last slice)."""
        if any(s % t for s, t in zip(self.shape, tile_dims)):
            raise ValueError("tile %s does not divide %s" % (tile_dims, self.shape))
        grid = [s // t for s, t in zip(self.shape, tile_dims)]
        self.leaves = []
        for g in range(prod(grid)):
            corner = [x * t for x, t in zip(unravel(g, grid), tile_dims)]
            leaf = []
            for k in range(prod(tile_dims)):
                c = [o + x for o, x in zip(corner, unravel(k, tile_dims))]
                leaf.append(ravel(c, self.shape))
            self.leaves.append(leaf)

    def map(self, app):
        """Rubik's map: the leaves paired in order, each app leaf's elements
        copied in order into the matching leaf of this box."""
        if [len(x) for x in self.leaves] != [len(x) for x in app.leaves]:
            raise ValueError("incompatible partition trees")
        for mine, theirs in zip(self.leaves, app.leaves):
            for i, j in zip(mine, theirs):
                self.cells[i] = app.cells[j]

    def _roll_planes(self, axis, direction, shift_of):
        """Roll every hyperplane with coordinate i on `direction` by
        shift_of(i) along `axis` (numpy.roll: element j goes to j + shift)."""
        if axis == direction:
            raise ValueError("axis and direction must differ")
        old = self.cells[:]
        n = self.shape[axis]
        for f in range(len(old)):
            c = unravel(f, self.shape)
            i = c[direction]
            if i == 0:
                continue
            c[axis] = (c[axis] + shift_of(i)) % n
            self.cells[ravel(c, self.shape)] = old[f]

    def tilt(self, axis, direction, slope=1):
        """Rubik's tilt: the hyperplane at i on `direction` rolled by
        i x slope along `axis`."""
        self._roll_planes(axis, direction, lambda i: i * slope)

    def zigzag(self, axis, direction, depth=1, stride=1):
        """Rubik's zigzag: hyperplanes rolled along `axis` by a shift that
        rises to `depth` and back over `stride` planes on `direction`."""
        def shift(i):
            base = (i // (stride * 2)) * (stride * 2) + stride
            return depth - (abs(i - base) * depth) // stride
        self._roll_planes(axis, direction, shift)

    def node_list(self, sides, conc, app_shape):
        """The mapping as a node list: this box is (axis 0 .. n-1, T), the
        app box holds ranks row-major over the reversed grid (so its flat
        index is the grid rank numbered axis 0 fastest)."""
        out = [0] * len(self.cells)
        for f, rank in enumerate(self.cells):
            out[rank] = endpoint_of(unravel(f, self.shape), sides, conc)
        return out


def smallest_factor(s):
    """The smallest prime factor of s >= 2."""
    f = 2
    while s % f:
        f += 1
    return f


def cubic_tile(grid, size):
    """A tile of `size` ranks dividing the grid, as cubic as possible (the
    least largest side, then the least sum of sides); None if none exists."""
    best = None

    def rec(a, rest, acc):
        nonlocal best
        if a == len(grid):
            if rest == 1:
                key = (max(acc), sum(acc))
                if best is None or key < best[0]:
                    best = (key, list(acc))
            return
        for t in range(1, grid[a] + 1):
            if grid[a] % t == 0 and rest % t == 0:
                rec(a + 1, rest // t, acc + [t])
    rec(0, size, [])
    return None if best is None else best[1]


def rubik_mapping(sides, conc, grid, op):
    """Rubik's tiled map of the grid onto the partition, then `op` on the
    whole partition: 'tile' (nothing more), 'tilt' (tilt(0,1,1), tilt(1,2,1)
    as in Rubik's user guide) or 'zigzag' (zigzag(0,1,1,1), zigzag(1,2,1,1)).
    Network tile: the smallest prime factor of each router side, all of T;
    app tile: as cubic as possible with as many ranks. Returns the node
    list, or None when no app tile fits."""
    ntile = [smallest_factor(s) for s in sides] + [conc]
    atile = cubic_tile(grid, prod(ntile))
    if atile is None:
        return None
    app = Box(list(reversed(grid)))
    app.tile(list(reversed(atile)))
    net = Box(list(sides) + [conc])
    net.tile(ntile)
    net.map(app)
    if op == "tilt":
        net.tilt(0, 1, 1)
        net.tilt(1, 2, 1)
    elif op == "zigzag":
        net.zigzag(0, 1, 1, 1)
        net.zigzag(1, 2, 1, 1)
    return net.node_list(sides, conc, grid)


# ---------------------------------------------------------------- grid_order

def grid_order_list(grid, cell):
    """grid_order -C -Z -g GRID -c CELL: the ranks (numbered column-major,
    axis 0 fastest) listed cell by cell, cells in column-major order, the
    ranks inside a cell column-major too. Cells must divide the grid."""
    if any(g % c for g, c in zip(grid, cell)):
        raise ValueError("cell %s does not divide grid %s" % (cell, grid))
    cgrid = [g // c for g, c in zip(grid, cell)]
    rev = lambda v: list(reversed(v))
    out = []
    for k in range(prod(cgrid)):
        cc = rev(unravel(k, rev(cgrid)))          # axis 0 fastest
        for j in range(prod(cell)):
            w = rev(unravel(j, rev(cell)))
            x = [a * c + b for a, c, b in zip(cc, cell, w)]
            out.append(ravel(rev(x), rev(grid)))  # column-major rank
    return out


def grid_order_mapping(sides, conc, grid):
    """MPICH_RANK_ORDER from grid_order with a cell of the C ranks of one
    router (as cubic as possible), the listed ranks filling the slots in
    the default order. Returns the node list, or None without a cell."""
    cell = cubic_tile(grid, conc)
    if cell is None:
        return None
    order = grid_order_list(grid, cell)
    slots = default_order(sides, conc)
    out = [0] * len(order)
    for pos, rank in enumerate(order):
        out[rank] = slots[pos]
    return out


# ---------------------------------------------------------------- Scotch

def write_grf(path, nranks, traffic):
    """Scotch source graph: one edge per unordered pair, weight the bytes of
    both directions; vertices without edges allowed."""
    adj = [dict() for _ in range(nranks)]
    for s, d, b in traffic:
        if s != d:
            adj[s][d] = adj[s].get(d, 0) + b
            adj[d][s] = adj[d].get(s, 0) + b
    arcs = sum(len(a) for a in adj)
    with open(path, "w") as f:
        f.write("0\n%d %d\n0 010\n" % (nranks, arcs))
        for a in adj:
            f.write(" ".join([str(len(a))] + ["%d %d" % (w, v) for v, w in sorted(a.items())]) + "\n")


def even_out(router_of, nrouters, conc, sides):
    """Move ranks from routers holding more than `conc` to the nearest
    routers (torus distance, then number) holding fewer; ranks move highest
    first. Returns a list of router per rank with exactly conc each."""
    held = [[] for _ in range(nrouters)]
    for r, x in enumerate(router_of):
        held[x].append(r)
    coords = [unravel_axis0(x, sides) for x in range(nrouters)]
    under = [x for x in range(nrouters) if len(held[x]) < conc]

    def dist(a, b):
        return sum(min(abs(p - q), s - abs(p - q)) for p, q, s in zip(coords[a], coords[b], sides))
    for x in range(nrouters):
        while len(held[x]) > conc:
            rank = held[x].pop()
            y = min((u for u in under if len(held[u]) < conc), key=lambda u: (dist(x, u), u))
            held[y].append(rank)
    out = [0] * len(router_of)
    for x in range(nrouters):
        for rank in held[x]:
            out[rank] = x
    return out


def unravel_axis0(x, sides):
    """Coordinates of router x, axis 0 fastest (kcube's numbering)."""
    c = []
    for s in sides:
        c.append(x % s)
        x //= s
    return c


def scotch_gmap_mapping(sides, conc, nranks, traffic, tool="scotch_gmap", timeout=None):
    """Plain scotch_gmap (deterministic context, default strategy) of the
    traffic graph onto 'torusXD' of the routers (Scotch numbers terminals
    axis 0 fastest, as kcube numbers routers), each router's share evened
    out to C ranks, a router's ranks on its slots in rank order. Returns
    (node list, ranks moved by the evening out); subprocess.TimeoutExpired
    past timeout seconds."""
    nrouters = prod(sides)
    with tempfile.TemporaryDirectory() as tmp:
        grf, tgt, mp = (os.path.join(tmp, n) for n in ("g.grf", "t.tgt", "m.map"))
        write_grf(grf, nranks, traffic)
        with open(tgt, "w") as f:
            f.write("torusXD\n%d %s\n" % (len(sides), " ".join(map(str, sides))))
        subprocess.run([tool, "-Cd", grf, tgt, mp], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
        router_of = [0] * nranks
        with open(mp) as f:
            f.readline()
            for line in f:
                v, t = line.split()
                router_of[int(v)] = int(t)
    fixed = even_out(router_of, nrouters, conc, sides)
    moved = sum(1 for a, b in zip(router_of, fixed) if a != b)
    slot = [0] * nrouters
    out = [0] * nranks
    for rank in range(nranks):
        x = fixed[rank]
        out[rank] = x * conc + slot[x]
        slot[x] += 1
    return out, moved


# ---------------------------------------------------------------- checks, count

def is_permutation(nodes, nslots):
    """True when the node list puts every rank on its own slot of 0..nslots-1
    and fills them all."""
    return len(nodes) == nslots and sorted(nodes) == list(range(nslots))


def recount(sides, conc, nodes, traffic):
    """Independent dimension-order count: every message from the router of
    nodes[src] to the router of nodes[dst], axis 0 first, the shorter way
    round each ring (a move of exactly half goes +; a side-2 axis has one
    channel), messages inside one router skipped. Returns (max channel
    load, total bytes x hops). Cost O(messages x hops)."""
    n = len(sides)
    stride = [prod(sides[:a]) for a in range(n)]
    loads = {}
    hops = 0
    for s, d, b in traffic:
        x, y = nodes[s] // conc, nodes[d] // conc
        if x == y:
            continue
        for a in range(n):
            k = sides[a]
            cs, cd = (x // stride[a]) % k, (y // stride[a]) % k
            m = (cd - cs) % k
            if m == 0:
                continue
            plus = 2 * m <= k
            steps = m if plus else k - m
            for _ in range(steps):
                ch = (x * n + a) * 2 + (0 if plus else 1)
                loads[ch] = loads.get(ch, 0) + b
                c = (x // stride[a]) % k
                nc = (c + 1) % k if plus else (c - 1) % k
                x += (nc - c) * stride[a]
            hops += steps * b
    return (max(loads.values()) if loads else 0), hops


# ---------------------------------------------------------------- self-test

def selftest():
    """The operations on the small examples their documents give (Rubik's
    shear/tilt docstring in 2-D, grid_order's cell listing, ABCDET on a
    2x2 torus with 2 slots) and a hand count; raises AssertionError."""
    b = Box([3, 3])
    b.tilt(1, 0, 1)            # Rubik: shear(0, 1, 1) = tilt(1, 0, 1)
    assert b.cells == [0, 1, 2, 5, 3, 4, 7, 8, 6], b.cells
    b = Box([3, 3])
    b.tilt(0, 1, 2)            # Rubik: shear(1, 0, 2) = tilt(0, 1, 2)
    assert b.cells == [0, 4, 8, 3, 7, 2, 6, 1, 5], b.cells
    b = Box([4, 2])
    b.zigzag(1, 0, 1, 1)       # planes 1 and 3 rolled by one, plane 2 not
    assert b.cells == [0, 1, 3, 2, 4, 5, 7, 6], b.cells
    assert grid_order_list([4, 4], [2, 2]) == [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15]
    assert default_order([2, 2], 2) == [0, 1, 4, 5, 2, 3, 6, 7]
    # ring of 4 routers, 2 slots each: 0 -> 7 is router 0 -> 3, one - hop;
    # 1 -> 4 is router 0 -> 2, a tie: two + hops; 2 -> 3 stays on router 1
    assert recount([4], 2, list(range(8)), [(0, 7, 5), (1, 4, 1), (2, 3, 9)]) == (5, 7)
    return True


if __name__ == "__main__":
    selftest()
    print("refmaps self-test passed")
