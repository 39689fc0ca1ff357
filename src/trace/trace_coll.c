/* trace_coll.c - collectives as point-to-point messages. A trace says only
 * that a rank took part in, say, an allreduce of 8 KiB; mapping and replay
 * need who sent what to whom. Each (operation, algorithm) pair below lists
 * the messages of one rank, in the order the algorithm sends them, each
 * with its step: a rank receives what step s brings before it sends at
 * step s + 1, and messages of one step are concurrent. Every rank lists
 * only its own messages, so a call costs O(the rank's messages) per rank.
 *
 * Byte convention (Score-P's per-rank totals, docs/traces.md): the block of
 * a call is read back from a rank's sent and received totals
 * (kci_trace_coll_block). kc_trace_coll_auto is Open MPI 4.1's tuned
 * module's fixed decision, reduced to the four algorithms kcube expands. */
#include <string.h>

#include "core/bits.h"
#include "trace_conv.h"

/* ---- The byte convention ---- */

static uint64_t div0(uint64_t a, uint64_t b) { return b ? a / b : 0; }

uint64_t kci_trace_coll_block(kc_trace_coll op, uint32_t size, uint32_t root, uint32_t me, uint64_t sent,
                              uint64_t received)
{
    uint64_t p = size;
    switch (op) {
    case KC_COLL_BCAST:
        return me != root ? received : received ? received : div0(sent, p);
    case KC_COLL_SCATTER:
    case KC_COLL_SCATTERV: /* the root sends p blocks (p - 1 in place, then it receives none) */
        return me != root ? received : received ? div0(sent, p) : div0(sent, p - 1);
    case KC_COLL_GATHER:
    case KC_COLL_GATHERV:
    case KC_COLL_REDUCE: /* the root receives p blocks (p - 1 in place, then it sends none) */
        return me != root ? sent : sent ? div0(received, p) : div0(received, p - 1);
    case KC_COLL_ALLGATHER:
    case KC_COLL_ALLGATHERV:
    case KC_COLL_ALLREDUCE:
        return div0(received, p);
    case KC_COLL_ALLTOALL:
    case KC_COLL_ALLTOALLV:
    case KC_COLL_ALLTOALLW:
        return div0(sent, p);
    case KC_COLL_REDUCE_SCATTER:
    case KC_COLL_REDUCE_SCATTER_BLOCK:
        return sent; /* the whole vector */
    case KC_COLL_SCAN:
        return div0(received, (uint64_t)me + 1);
    case KC_COLL_EXSCAN:
        return me ? div0(received, me) : div0(sent, p - 1);
    default:
        return 0;
    }
}

/* Block j of a vector of v bytes split into p: remainders to the first. */
static uint64_t piece(uint64_t v, uint32_t p, uint32_t j) { return v / p + (j < v % p); }

void kci_trace_coll_totals(kc_trace_coll op, uint32_t size, uint32_t root, uint32_t me, uint64_t block,
                           uint64_t *sent, uint64_t *received)
{
    uint64_t p = size, b = block;
    uint64_t s = 0, r = 0;
    switch (op) {
    case KC_COLL_BCAST:
    case KC_COLL_SCATTER:
    case KC_COLL_SCATTERV:
        s = me == root ? p * b : 0;
        r = b;
        break;
    case KC_COLL_GATHER:
    case KC_COLL_GATHERV:
    case KC_COLL_REDUCE:
        s = b;
        r = me == root ? p * b : 0;
        break;
    case KC_COLL_ALLGATHER:
    case KC_COLL_ALLGATHERV:
    case KC_COLL_ALLTOALL:
    case KC_COLL_ALLTOALLV:
    case KC_COLL_ALLTOALLW:
    case KC_COLL_ALLREDUCE:
        s = r = p * b;
        break;
    case KC_COLL_REDUCE_SCATTER:
    case KC_COLL_REDUCE_SCATTER_BLOCK:
        s = b;
        r = p * piece(b, size, me);
        break;
    case KC_COLL_SCAN:
        s = (p - me) * b;
        r = ((uint64_t)me + 1) * b;
        break;
    case KC_COLL_EXSCAN:
        s = (p - me - 1) * b;
        r = (uint64_t)me * b;
        break;
    default:
        break;
    }
    *sent = s;
    *received = r;
}

uint64_t kci_trace_coll_decision_bytes(kc_trace_coll op, uint32_t size, uint64_t block)
{
    return op == KC_COLL_REDUCE_SCATTER_BLOCK ? block / size : block;
}

/* ---- Open MPI 4.1's choice ----
 * Each table is a list of (bytes below which, algorithm) rows for one band
 * of communicator sizes; the band's last row has bound UINT64_MAX. Rows are
 * Open MPI's, with neighbouring rows that map to the same kcube algorithm
 * merged (docs/traces.md lists the mapping). Commutative operations. */
typedef struct rule {
    uint32_t below_size; /* the band: communicator sizes below this (UINT32_MAX: the rest) */
    uint64_t below_bytes;
    uint8_t alg;
} rule;

#define B KC_ALG_BINOMIAL
#define R KC_ALG_RING
#define L KC_ALG_LINEAR
#define D KC_ALG_RECURSIVE_DOUBLING
#define ALL UINT64_MAX
#define REST UINT32_MAX

static const rule allreduce_rules[] = {
    {4, 8, R},      {4, 4096, D},     {4, 8192, R},     {4, 16384, D},   {4, 262144, R}, {4, ALL, D},
    {8, 16, R},     {8, ALL, D},      {16, ALL, D},     {32, 64, R},     {32, ALL, D},   {64, 128, R},
    {64, ALL, D},   {128, ALL, D},    {256, 131072, B}, {256, ALL, D},   {512, 4096, B}, {512, ALL, D},
    {2048, 2048, B}, {2048, ALL, D},  {4096, 2048, B},  {4096, 4096, R}, {4096, ALL, D}, {REST, 2048, B},
    {REST, 16384, R}, {REST, ALL, D},
};
static const rule alltoall_rules[] = {
    {3, ALL, L},      {8, 524288, L},   {8, 1048576, R}, {8, ALL, L},      {16, ALL, L},   {32, 4, L},
    {32, 512, D},     {32, ALL, L},     {64, 512, D},    {64, ALL, L},     {128, 1024, D}, {128, 262144, L},
    {128, ALL, R},    {256, 1024, D},   {256, 262144, L}, {256, ALL, R},   {512, 1024, D}, {512, 32768, L},
    {512, ALL, R},    {1024, 512, D},   {1024, 262144, L}, {1024, ALL, R}, {2048, 512, D}, {2048, ALL, L},
    {4096, 1024, D},  {4096, ALL, L},   {REST, 2048, D}, {REST, ALL, L},
};
static const rule alltoallv_rules[] = {
    {4, ALL, R}, {64, ALL, L}, {128, ALL, R}, {256, ALL, L}, {1024, ALL, R}, {REST, ALL, L},
};
static const rule barrier_rules[] = {
    {4, ALL, D}, {8, ALL, L}, {256, ALL, D}, {512, ALL, B}, {1024, ALL, D}, {4096, ALL, B}, {REST, ALL, D},
};
static const rule bcast_rules[] = {
    {4, 32, R},        {4, 256, B},       {4, 512, R},      {4, 1024, B},     {4, 32768, L},   {4, 131072, B},
    {4, 262144, R},    {4, 524288, L},    {4, ALL, B},      {8, 8192, B},     {8, 1048576, L}, {8, ALL, R},
    {16, 32768, B},    {16, ALL, L},      {32, 1048576, B}, {32, ALL, D},     {128, ALL, B},   {256, 16384, B},
    {256, 32768, L},
    {256, ALL, B},     {1024, ALL, B},    {2048, 524288, B}, {2048, ALL, D},  {REST, 262144, B}, {REST, ALL, D},
};
static const rule reduce_rules[] = {
    {4, 16, B},     {4, 32, R},      {4, 262144, L}, {4, ALL, R},  {8, 4096, B}, {8, 65536, R},
    {8, 262144, B}, {8, 524288, L},  {8, 1048576, B}, {8, ALL, L}, {REST, ALL, B},
};
static const rule reduce_scatter_rules[] = {
    {4, 65536, R},  {4, 131072, D},  {4, ALL, R},      {8, 8, B},     {8, 262144, D}, {8, ALL, R},
    {32, 262144, D}, {32, ALL, R},   {64, 64, B},      {64, 524288, D}, {64, ALL, R}, {128, 256, B},
    {128, ALL, D},  {256, 256, B},   {256, ALL, D},    {512, 256, B}, {512, ALL, D},  {4096, 512, B},
    {4096, ALL, D}, {REST, 1024, B}, {REST, ALL, D},
};
static const rule reduce_scatter_block_rules[] = {
    {4, 131072, D},  {4, ALL, L},      {8, 1048576, D}, {8, ALL, L},     {16, 4, L},      {16, 524288, D},
    {16, 4194304, L}, {16, ALL, D},    {32, 32, L},     {32, 524288, D}, {32, 2097152, L}, {32, ALL, D},
    {REST, 4, D},    {REST, 16, L},    {REST, 65536, D}, {REST, 262144, L}, {REST, ALL, D},
};
static const rule allgather_rules[] = {
    {3, ALL, L},   {32, ALL, D},   {64, 1024, D},  {64, ALL, R},  {128, 512, D},  {128, ALL, R},
    {256, 512, D}, {256, ALL, R},  {512, 1024, D}, {512, ALL, R}, {1024, 2048, D}, {1024, ALL, R},
    {REST, 4096, D}, {REST, ALL, R},
};
static const rule allgatherv_rules[] = {
    {3, ALL, L},      {8, 256, B},      {8, 16384, R},  {8, 262144, D},  {8, ALL, R},     {16, 1024, B},
    {16, ALL, D},     {32, 128, B},     {32, 262144, D}, {32, ALL, R},   {64, 256, B},    {64, 8192, D},
    {64, ALL, R},     {128, 256, B},    {128, 4096, D}, {128, ALL, R},   {512, 1024, D},  {512, ALL, R},
    {1024, 512, D},   {1024, 1024, B},  {1024, 4096, D}, {1024, ALL, R}, {REST, 4096, D}, {REST, ALL, R},
};
static const rule gather_rules[] = {
    {4, 4, L},       {4, 32768, B},    {4, 65536, L}, {4, 131072, B}, {4, ALL, L}, {8, 1024, B},
    {8, 8192, L},    {8, 32768, B},    {8, ALL, L},   {256, ALL, B},  {512, 2048, B}, {512, 8192, L},
    {REST, ALL, B},
};
static const rule scatter_rules[] = {
    {4, ALL, L},    {8, 2048, B},    {8, 4096, L},  {8, 8192, B},   {8, ALL, L},    {32, 16384, B},
    {32, ALL, L},   {64, 512, B},    {64, 8192, L}, {64, 16384, B}, {64, ALL, L},   {REST, 512, B},
    {REST, ALL, L},
};

#undef B
#undef R
#undef L
#undef D

static kc_trace_alg lookup(const rule *r, size_t n, uint32_t size, uint64_t bytes)
{
    for (size_t i = 0; i < n; i++)
        if (size < r[i].below_size && bytes < r[i].below_bytes)
            return (kc_trace_alg)r[i].alg;
    return (kc_trace_alg)r[n - 1].alg;
}
#define LOOKUP(table) lookup(table, sizeof table / sizeof table[0], size, bytes)

kc_trace_alg kc_trace_coll_auto(kc_trace_coll op, uint32_t size, uint64_t bytes)
{
    switch (op) {
    case KC_COLL_BARRIER: return LOOKUP(barrier_rules);
    case KC_COLL_BCAST: return LOOKUP(bcast_rules);
    case KC_COLL_GATHER: return LOOKUP(gather_rules);
    case KC_COLL_SCATTER: return LOOKUP(scatter_rules);
    case KC_COLL_ALLGATHER: return LOOKUP(allgather_rules);
    case KC_COLL_ALLGATHERV: return LOOKUP(allgatherv_rules);
    case KC_COLL_ALLTOALL: return LOOKUP(alltoall_rules);
    case KC_COLL_ALLTOALLV: return LOOKUP(alltoallv_rules);
    case KC_COLL_ALLREDUCE: return LOOKUP(allreduce_rules);
    case KC_COLL_REDUCE: return LOOKUP(reduce_rules);
    case KC_COLL_REDUCE_SCATTER: return LOOKUP(reduce_scatter_rules);
    case KC_COLL_REDUCE_SCATTER_BLOCK: return LOOKUP(reduce_scatter_block_rules);
    default: return KC_ALG_LINEAR; /* gatherv, scatterv, alltoallw, scan, exscan: Open MPI's basic module */
    }
}
#undef LOOKUP
#undef ALL
#undef REST

/* ---- The messages of one rank ----
 * Ranks inside the generators are relative to the root (rootless
 * operations use root 0): relative v is communicator rank (v + root) mod p. */
typedef struct gen {
    uint32_t p, root, me; /* me: relative */
    uint64_t m;           /* the block (kci_trace_coll_block) */
    kc_trace_emit_fn out, in;
    void *ctx;
    int rc;               /* the first non-zero callback return */
} gen;

static void snd(gen *g, uint32_t step, uint32_t to, uint64_t bytes)
{
    if (!g->rc && g->out)
        g->rc = g->out(g->ctx, step, (uint32_t)(((uint64_t)to + g->root) % g->p), bytes);
}

static void rcv(gen *g, uint32_t step, uint32_t from, uint64_t bytes)
{
    if (!g->rc && g->in)
        g->rc = g->in(g->ctx, step, (uint32_t)(((uint64_t)from + g->root) % g->p), bytes);
}

static uint32_t ceil_log2(uint32_t p) { return p <= 1 ? 0 : (uint32_t)kci_log2_64(p - 1) + 1; }
static uint32_t floor_log2(uint32_t x) { return (uint32_t)kci_log2_64(x); }

/* Pieces [a, b) of a vector of v bytes split into p: O(1). */
static uint64_t pieces(uint64_t v, uint32_t p, uint64_t a, uint64_t b)
{
    uint64_t rem = v % p, lo = a < rem ? a : rem, hi = b < rem ? b : rem;
    return (b - a) * (v / p) + (hi - lo);
}

/* ---- Binomial trees (relative ranks): in round r every v < 2^r that
 * has the data sends it to v + 2^r. Node w > 0 hangs under w - 2^b,
 * b = floor(log2 w); its subtree is {u < p : u = w mod 2^(b+1)}. */
enum { SZ_BLOCK, SZ_SUBTREE, SZ_PIECES };

static uint64_t subtree_count(uint32_t p, uint32_t w)
{
    if (w == 0)
        return p;
    uint64_t stride = (uint64_t)2 << floor_log2(w);
    return (p - 1 - (uint64_t)w) / stride + 1;
}

/* The bytes on the edge into (or out of) w's subtree. */
static uint64_t edge_bytes(const gen *g, int mode, uint64_t amount, uint32_t w)
{
    if (mode == SZ_BLOCK)
        return amount;
    if (mode == SZ_SUBTREE)
        return subtree_count(g->p, w) * amount;
    if (w == 0)
        return amount;
    uint64_t stride = (uint64_t)2 << floor_log2(w), sum = 0; /* SZ_PIECES: the subtree's pieces */
    for (uint64_t u = w; u < g->p; u += stride)
        sum += pieces(amount, g->p, u, u + 1);
    return sum;
}

/* Root to leaves: steps step0 .. step0 + ceil(log2 p) - 1. */
static void bin_down(gen *g, uint32_t step0, int mode, uint64_t amount)
{
    uint32_t v = g->me, r = 0;
    if (v > 0) {
        uint32_t b = floor_log2(v);
        rcv(g, step0 + b, v - (1u << b), edge_bytes(g, mode, amount, v));
        r = b + 1;
    }
    for (; r < 32 && ((uint64_t)1 << r) < g->p; r++) {
        uint64_t c = (uint64_t)v + ((uint64_t)1 << r);
        if (c >= g->p)
            break;
        snd(g, step0 + r, (uint32_t)c, edge_bytes(g, mode, amount, (uint32_t)c));
    }
}

/* Leaves to root, the same tree: the edge out of w at step
 * step0 + ceil(log2 p) - 1 - floor(log2 w), so children come first. */
static void bin_up(gen *g, uint32_t step0, int mode, uint64_t amount)
{
    uint32_t v = g->me, rounds = ceil_log2(g->p), r0 = v ? floor_log2(v) + 1 : 0;
    for (uint32_t r = rounds; r-- > r0;) {
        uint64_t c = (uint64_t)v + ((uint64_t)1 << r);
        if (c < g->p)
            rcv(g, step0 + rounds - 1 - r, (uint32_t)c, edge_bytes(g, mode, amount, (uint32_t)c));
    }
    if (v > 0) {
        uint32_t b = floor_log2(v);
        snd(g, step0 + rounds - 1 - b, v - (1u << b), edge_bytes(g, mode, amount, v));
    }
}

/* ---- Linear: everyone to and from relative rank 0 in one step ---- */
static void to_root(gen *g, uint32_t step, uint64_t bytes)
{
    if (g->me)
        snd(g, step, 0, bytes);
    for (uint32_t v = 1; g->me == 0 && v < g->p; v++)
        rcv(g, step, v, bytes);
}

static void from_root(gen *g, uint32_t step, uint64_t bytes)
{
    if (g->me)
        rcv(g, step, 0, bytes);
    for (uint32_t v = 1; g->me == 0 && v < g->p; v++)
        snd(g, step, v, bytes);
}

/* Every rank to every other, one step: to me+1, me+2, ... (piece j of a
 * split vector goes to rank j when split, else `bytes` each). */
static void everyone(gen *g, uint64_t bytes, int split)
{
    for (uint32_t d = 1; d < g->p; d++) {
        uint32_t j = (uint32_t)(((uint64_t)g->me + d) % g->p);
        snd(g, 0, j, split ? pieces(bytes, g->p, j, j + 1) : bytes);
    }
    for (uint32_t d = 1; d < g->p; d++)
        rcv(g, 0, (uint32_t)(((uint64_t)g->me + g->p - d) % g->p),
            split ? pieces(bytes, g->p, g->me, g->me + 1) : bytes);
}

/* ---- Chains (relative ranks), the ring without its closing edge ----
 * Down: v -> v + 1 at step v; up: w -> w - 1 at step p - 1 - w. With
 * `tail` the edge at w carries the blocks of w .. p - 1 (scatter, gather). */
static void chain_down(gen *g, uint64_t m, int tail)
{
    uint32_t v = g->me, p = g->p;
    if (v > 0)
        rcv(g, v - 1, v - 1, tail ? (uint64_t)(p - v) * m : m);
    if (v + 1 < p)
        snd(g, v, v + 1, tail ? (uint64_t)(p - v - 1) * m : m);
}

static void chain_up(gen *g, uint64_t m, int tail)
{
    uint32_t v = g->me, p = g->p;
    if (v + 1 < p)
        rcv(g, p - 2 - v, v + 1, tail ? (uint64_t)(p - v - 1) * m : m);
    if (v > 0)
        snd(g, p - 1 - v, v - 1, tail ? (uint64_t)(p - v) * m : m);
}

/* ---- Rings: p - 1 steps, each rank to me + 1 and from me - 1 ----
 * At step s rank r sends block (r - s - off) and receives block
 * (r - s - off - 1): off 1 is a reduce-scatter (r ends with block r, fully
 * reduced), off 0 an allgather of the blocks each rank holds. Blocks are
 * the pieces of a split vector, or `v` bytes each when not split. */
static void ring_blocks(gen *g, uint32_t step0, uint64_t v, int split, uint32_t off)
{
    uint64_t p = g->p;
    for (uint32_t s = 0; s + 1 < g->p; s++) {
        uint32_t out = (uint32_t)((g->me + 2 * p - s - off) % p), in = (uint32_t)((g->me + 2 * p - s - off - 1) % p);
        snd(g, step0 + s, (uint32_t)((g->me + 1) % p), split ? pieces(v, g->p, out, out + 1) : v);
        rcv(g, step0 + s, (uint32_t)((g->me + p - 1) % p), split ? pieces(v, g->p, in, in + 1) : v);
    }
}

/* The double ring barrier: a token around twice (0 -> 1 -> ... -> p-1 -> 0,
 * then 0 -> ... -> p-1), steps 0 .. 2p - 2. */
static void double_ring(gen *g)
{
    uint32_t v = g->me, p = g->p;
    if (p < 2)
        return;
    if (v == 0) {
        snd(g, 0, 1, 0);
        rcv(g, p - 1, p - 1, 0);
        snd(g, p, 1, 0);
        return;
    }
    rcv(g, v - 1, v - 1, 0);
    snd(g, v, (v + 1) % p, 0);
    rcv(g, p + v - 1, v - 1, 0);
    if (v + 1 < p)
        snd(g, p + v, v + 1, 0);
}

/* ---- Recursive doubling on p' = 2^floor(log2 p) ranks; the p - p'
 * extra ranks fold: extra r hands its data to r - p' at step step0 and
 * gets the result back at step step0 + L + 1; exchanges at step0 + 1 + k
 * with v ^ 2^k. Virtual rank u stands for blocks u and u + p' (when extra). */
typedef struct rd_shape {
    uint32_t pp, L, e;
} rd_shape;

static rd_shape shape_of(uint32_t p)
{
    rd_shape s;
    s.L = floor_log2(p);
    s.pp = 1u << s.L;
    s.e = p - s.pp;
    return s;
}

/* The pieces of virtual ranks [lo, lo + cnt): blocks of `v` bytes each, or
 * the pieces of a vector v split into p when split. */
static uint64_t vgroup(const gen *g, rd_shape s, uint64_t v, int split, uint32_t lo, uint32_t cnt)
{
    uint32_t hi = lo + cnt, ehi = hi < s.e ? hi : s.e;
    uint64_t n = cnt + (lo < ehi ? ehi - lo : 0);
    if (!split)
        return n * v;
    uint64_t sum = pieces(v, g->p, lo, hi);
    return lo < ehi ? sum + pieces(v, g->p, (uint64_t)s.pp + lo, (uint64_t)s.pp + ehi) : sum;
}

/* Allreduce (whole vector v each step) or allgather (the virtual groups
 * gathered so far) by recursive doubling. */
static void rd_exchange(gen *g, uint32_t step0, uint64_t v, int gather, int split)
{
    rd_shape s = shape_of(g->p);
    uint32_t me = g->me;
    uint64_t all = gather ? (split ? v : (uint64_t)g->p * v) : v;
    uint64_t own = gather ? (split ? pieces(v, g->p, me, me + 1) : v) : v;
    if (me >= s.pp) {
        snd(g, step0, me - s.pp, own);
        rcv(g, step0 + s.L + 1, me - s.pp, gather ? all - own : v);
        return;
    }
    uint64_t extra = me < s.e ? (gather ? (split ? pieces(v, g->p, me + s.pp, me + s.pp + 1) : v) : v) : 0;
    if (me < s.e)
        rcv(g, step0, me + s.pp, extra);
    for (uint32_t k = 0; k < s.L; k++) {
        uint32_t partner = me ^ (1u << k), mask = ~((1u << k) - 1);
        snd(g, step0 + 1 + k, partner, gather ? vgroup(g, s, v, split, me & mask, 1u << k) : v);
        rcv(g, step0 + 1 + k, partner, gather ? vgroup(g, s, v, split, partner & mask, 1u << k) : v);
    }
    if (me < s.e)
        snd(g, step0 + s.L + 1, me + s.pp, gather ? all - extra : v);
}

/* Reduce-scatter by recursive halving: in round k = L-1 .. 0 virtual rank
 * v sends its partner the half of its range the partner keeps. */
static void rd_halving(gen *g, uint64_t v)
{
    rd_shape s = shape_of(g->p);
    uint32_t me = g->me;
    if (me >= s.pp) {
        snd(g, 0, me - s.pp, v);
        rcv(g, s.L + 1, me - s.pp, pieces(v, g->p, me, me + 1));
        return;
    }
    if (me < s.e)
        rcv(g, 0, me + s.pp, v);
    for (uint32_t i = 0; i < s.L; i++) {
        uint32_t k = s.L - 1 - i, partner = me ^ (1u << k), mask = ~((1u << k) - 1);
        snd(g, 1 + i, partner, vgroup(g, s, v, 1, partner & mask, 1u << k));
        rcv(g, 1 + i, partner, vgroup(g, s, v, 1, me & mask, 1u << k));
    }
    if (me < s.e)
        snd(g, s.L + 1, me + s.pp, pieces(v, g->p, me + s.pp, me + s.pp + 1));
}

/* Bruck's all-to-all: in round k every rank sends to me + 2^k the blocks
 * whose distance has bit k set (as many as j in 0..p-1 with that bit). */
static void bruck(gen *g, uint64_t m)
{
    uint64_t p = g->p;
    for (uint32_t k = 0; k < 32 && ((uint64_t)1 << k) < p; k++) {
        uint64_t d = (uint64_t)1 << k, low = p & (2 * d - 1);
        uint64_t cnt = (p >> (k + 1)) * d + (low > d ? low - d : 0);
        snd(g, k, (uint32_t)((g->me + d) % p), cnt * m);
        rcv(g, k, (uint32_t)((g->me + p - d) % p), cnt * m);
    }
}

/* Scans by doubling distances (Hillis and Steele): at step k rank r sends
 * its partial result to r + 2^k and receives from r - 2^k. */
static void scan_doubling(gen *g, uint64_t m)
{
    for (uint32_t k = 0; k < 32 && ((uint64_t)1 << k) < g->p; k++) {
        uint64_t d = (uint64_t)1 << k;
        if (g->me + d < g->p)
            snd(g, k, (uint32_t)(g->me + d), m);
        if (g->me >= d)
            rcv(g, k, (uint32_t)(g->me - d), m);
    }
}

/* ---- Operations ---- */
static void rooted(kc_trace_coll op, kc_trace_alg alg, gen *g)
{
    uint64_t m = g->m;
    int gathering = op == KC_COLL_GATHER || op == KC_COLL_GATHERV;
    if (op == KC_COLL_BCAST) {
        if (alg == KC_ALG_LINEAR)
            from_root(g, 0, m);
        else if (alg == KC_ALG_RING)
            chain_down(g, m, 0);
        else if (alg == KC_ALG_RECURSIVE_DOUBLING) { /* scatter, then allgather (van de Geijn) */
            bin_down(g, 0, SZ_PIECES, m);
            rd_exchange(g, ceil_log2(g->p), m, 1, 1);
        } else
            bin_down(g, 0, SZ_BLOCK, m);
    } else if (op == KC_COLL_SCATTER || op == KC_COLL_SCATTERV) {
        if (alg == KC_ALG_LINEAR)
            from_root(g, 0, m);
        else if (alg == KC_ALG_RING)
            chain_down(g, m, 1);
        else
            bin_down(g, 0, SZ_SUBTREE, m);
    } else { /* gather, gatherv, reduce */
        if (alg == KC_ALG_LINEAR)
            to_root(g, 0, m);
        else if (alg == KC_ALG_RING)
            chain_up(g, m, gathering);
        else
            bin_up(g, 0, gathering ? SZ_SUBTREE : SZ_BLOCK, m);
    }
}

static void all_reduce(kc_trace_alg alg, gen *g)
{
    uint64_t v = g->m;
    if (alg == KC_ALG_LINEAR) {
        to_root(g, 0, v);
        from_root(g, 1, v);
    } else if (alg == KC_ALG_RING) {
        ring_blocks(g, 0, v, 1, 1);
        ring_blocks(g, g->p - 1, v, 1, 0);
    } else if (alg == KC_ALG_RECURSIVE_DOUBLING)
        rd_exchange(g, 0, v, 0, 0);
    else {
        bin_up(g, 0, SZ_BLOCK, v);
        bin_down(g, ceil_log2(g->p), SZ_BLOCK, v);
    }
}

static void rootless(kc_trace_coll op, kc_trace_alg alg, gen *g)
{
    uint64_t m = g->m;
    switch (op) {
    case KC_COLL_BARRIER:
        g->m = 0;
        if (alg == KC_ALG_RING)
            double_ring(g);
        else
            all_reduce(alg, g);
        return;
    case KC_COLL_ALLGATHER:
    case KC_COLL_ALLGATHERV:
        if (alg == KC_ALG_LINEAR)
            everyone(g, m, 0);
        else if (alg == KC_ALG_RING)
            ring_blocks(g, 0, m, 0, 0);
        else if (alg == KC_ALG_RECURSIVE_DOUBLING)
            rd_exchange(g, 0, m, 1, 0);
        else {
            bin_up(g, 0, SZ_SUBTREE, m);
            bin_down(g, ceil_log2(g->p), SZ_BLOCK, (uint64_t)g->p * m);
        }
        return;
    case KC_COLL_ALLTOALL:
    case KC_COLL_ALLTOALLV:
    case KC_COLL_ALLTOALLW:
        if (alg == KC_ALG_LINEAR)
            everyone(g, m, 0);
        else if (alg == KC_ALG_RING)
            for (uint32_t d = 1; d < g->p; d++) { /* pairwise: to me + d, from me - d */
                snd(g, d - 1, (uint32_t)((g->me + (uint64_t)d) % g->p), m);
                rcv(g, d - 1, (uint32_t)((g->me + (uint64_t)g->p - d) % g->p), m);
            }
        else
            bruck(g, m);
        return;
    case KC_COLL_ALLREDUCE:
        all_reduce(alg, g);
        return;
    case KC_COLL_REDUCE_SCATTER:
    case KC_COLL_REDUCE_SCATTER_BLOCK:
        if (alg == KC_ALG_LINEAR)
            everyone(g, m, 1);
        else if (alg == KC_ALG_RING)
            ring_blocks(g, 0, m, 1, 1);
        else if (alg == KC_ALG_RECURSIVE_DOUBLING)
            rd_halving(g, m);
        else {
            bin_up(g, 0, SZ_BLOCK, m);
            bin_down(g, ceil_log2(g->p), SZ_PIECES, m);
        }
        return;
    default: /* scan, exscan */
        if (alg == KC_ALG_LINEAR || alg == KC_ALG_RING)
            chain_down(g, m, 0);
        else
            scan_doubling(g, m);
        return;
    }
}

static int is_rooted(kc_trace_coll op)
{
    return op == KC_COLL_BCAST || op == KC_COLL_GATHER || op == KC_COLL_GATHERV || op == KC_COLL_SCATTER ||
           op == KC_COLL_SCATTERV || op == KC_COLL_REDUCE;
}

static int run(kc_trace_coll op, kc_trace_alg alg, gen *g)
{
    if (is_rooted(op))
        rooted(op, alg, g);
    else
        rootless(op, alg, g);
    return g->rc;
}

int kc_trace_coll_messages(kc_trace_coll op, kc_trace_alg alg, uint32_t size, uint32_t root, uint32_t me,
                           uint64_t bytes, uint64_t received, kc_trace_emit_fn emit, kc_trace_emit_fn recv,
                           void *ctx)
{
    if (op >= KC_COLL_COUNT || alg >= KC_ALG_COUNT || size == 0 || me >= size)
        return 0;
    int has_root = is_rooted(op);
    if (!has_root || root >= size)
        root = 0; /* a rooted call without a valid root is read as rooted at 0 */
    uint64_t block = kci_trace_coll_block(op, size, root, me, bytes, received);
    if (alg == KC_ALG_AUTO)
        alg = kc_trace_coll_auto(op, size, kci_trace_coll_decision_bytes(op, size, block));
    gen g = {size, root, (uint32_t)(((uint64_t)me + size - root) % size), block, emit, recv, ctx, 0};
    int alltoall = op == KC_COLL_ALLTOALL || op == KC_COLL_ALLTOALLV || op == KC_COLL_ALLTOALLW;
    if (!alltoall || received / size == block)
        return run(op, alg, &g);
    /* An all-to-all(v) whose totals differ: its sends split what it sent,
     * its receives what it received. */
    g.in = NULL;
    if (run(op, alg, &g))
        return g.rc;
    gen r = {size, root, g.me, received / size, NULL, recv, ctx, 0};
    return run(op, alg, &r);
}
