/* Collectives as messages (kc_trace_coll_messages, kc_trace_coll_auto):
 * for every operation, algorithm, communicator size 1..17 and several
 * roots, the messages every rank says it sends are exactly those the
 * others say they receive (same step and bytes), and the data can get
 * where the operation must put it: on the graph of (rank, step) states
 * with one edge per message (its bytes) and free edges from a step to the
 * next, the maximum flow from each source rank to each rank that needs its
 * data is at least what it needs (one block from the root for bcast, from
 * every rank for allgather and alltoall, the whole vector for allreduce,
 * ...). Rank totals follow Score-P's convention (tests/support/trace_totals.c, apart from
 * the library's). Open MPI's decisions are checked on spot values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/trace.h"
#include "trace_totals.h"

typedef struct msg {
    uint32_t from, to, step;
    uint64_t bytes;
} msg;

typedef struct list {
    msg *m;
    size_t n, cap;
    uint32_t me;
    int order_bad; /* steps went down within one rank's list */
    uint32_t last_step;
} list;

static void push(list *l, uint32_t from, uint32_t to, uint32_t step, uint64_t bytes)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->m = realloc(l->m, l->cap * sizeof *l->m);
        assert_non_null(l->m);
    }
    l->m[l->n++] = (msg){from, to, step, bytes};
}

typedef struct both {
    list sent, got;
    uint32_t last_out, last_in;
    int order_bad;
} both;

static int on_emit(void *ctx, uint32_t step, uint32_t peer, uint64_t bytes)
{
    both *b = ctx;
    b->order_bad |= b->sent.n && step < b->last_out;
    b->last_out = step;
    push(&b->sent, b->sent.me, peer, step, bytes);
    return 0;
}

static int on_recv(void *ctx, uint32_t step, uint32_t peer, uint64_t bytes)
{
    both *b = ctx;
    b->order_bad |= b->got.n && step < b->last_in;
    b->last_in = step;
    push(&b->got, peer, b->got.me, step, bytes);
    return 0;
}

static int cmp_msg(const void *a, const void *b)
{
    const msg *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* ---- Max flow on the time-expanded graph (Edmonds-Karp, stops at need) ---- */
typedef struct graph {
    uint32_t nodes;
    uint32_t *head, *next, *to;
    uint64_t *cap, *cap0;
    size_t nedges, capacity;
    uint32_t *queue, *via;
} graph;

static void add_edge1(graph *g, uint32_t a, uint32_t b, uint64_t c)
{
    if (g->nedges == g->capacity) {
        g->capacity = g->capacity ? 2 * g->capacity : 1024;
        g->next = realloc(g->next, g->capacity * sizeof *g->next);
        g->to = realloc(g->to, g->capacity * sizeof *g->to);
        g->cap = realloc(g->cap, g->capacity * sizeof *g->cap);
        g->cap0 = realloc(g->cap0, g->capacity * sizeof *g->cap0);
        assert_true(g->next && g->to && g->cap && g->cap0);
    }
    g->to[g->nedges] = b;
    g->cap0[g->nedges] = c;
    g->next[g->nedges] = g->head[a];
    g->head[a] = (uint32_t)g->nedges++;
}

static void add_edge(graph *g, uint32_t a, uint32_t b, uint64_t c)
{
    add_edge1(g, a, b, c);
    add_edge1(g, b, a, 0); /* residual: edge e ^ 1 */
}

/* Flow from s to t, stopping once it reaches need (min_cap: an edge is
 * usable when its residual is at least this, 1 for bytes). */
static uint64_t flow(graph *g, uint32_t s, uint32_t t, uint64_t need)
{
    memcpy(g->cap, g->cap0, g->nedges * sizeof *g->cap);
    uint64_t total = 0;
    while (total < need) {
        for (uint32_t i = 0; i < g->nodes; i++)
            g->via[i] = UINT32_MAX;
        size_t qh = 0, qt = 0;
        g->queue[qt++] = s;
        g->via[s] = UINT32_MAX - 1;
        while (qh < qt && g->via[t] == UINT32_MAX) {
            uint32_t u = g->queue[qh++];
            for (uint32_t e = g->head[u]; e != UINT32_MAX; e = g->next[e])
                if (g->cap[e] && g->via[g->to[e]] == UINT32_MAX) {
                    g->via[g->to[e]] = e;
                    g->queue[qt++] = g->to[e];
                }
        }
        if (g->via[t] == UINT32_MAX)
            break;
        uint64_t add = UINT64_MAX;
        for (uint32_t v = t; v != s; v = g->to[g->via[v] ^ 1])
            add = g->cap[g->via[v]] < add ? g->cap[g->via[v]] : add;
        for (uint32_t v = t; v != s; v = g->to[g->via[v] ^ 1]) {
            g->cap[g->via[v]] -= add;
            g->cap[g->via[v] ^ 1] += add;
        }
        total += add;
    }
    return total;
}

/* Nodes (rank, step) for steps 0..S; a message of step s goes from
 * (from, s) to (to, s + 1) with capacity bytes + 1 when `reach` (so 0-byte
 * messages still connect), else bytes. */
static void build(graph *g, uint32_t p, uint32_t S, const list *all, int reach)
{
    g->nodes = p * (S + 1);
    g->head = malloc(g->nodes * sizeof *g->head);
    g->queue = malloc(g->nodes * sizeof *g->queue);
    g->via = malloc(g->nodes * sizeof *g->via);
    assert_true(g->head && g->queue && g->via);
    for (uint32_t i = 0; i < g->nodes; i++)
        g->head[i] = UINT32_MAX;
    for (uint32_t r = 0; r < p; r++)
        for (uint32_t s = 0; s < S; s++)
            add_edge(g, r * (S + 1) + s, r * (S + 1) + s + 1, UINT64_MAX / 4);
    for (size_t i = 0; i < all->n; i++) {
        const msg *m = &all->m[i];
        add_edge(g, m->from * (S + 1) + m->step, m->to * (S + 1) + m->step + 1, m->bytes + (reach ? 1 : 0));
    }
}

static void graph_free(graph *g)
{
    free(g->head);
    free(g->next);
    free(g->to);
    free(g->cap);
    free(g->cap0);
    free(g->queue);
    free(g->via);
    memset(g, 0, sizeof *g);
}

/* What rank j needs from rank i (UINT64_MAX: nothing). */
static uint64_t need(kc_trace_coll op, uint32_t p, uint32_t root, uint32_t i, uint32_t j, uint64_t m)
{
    if (i == j)
        return UINT64_MAX;
    switch (op) {
    case KC_COLL_BCAST:
    case KC_COLL_SCATTER:
    case KC_COLL_SCATTERV:
        return i == root ? m : UINT64_MAX;
    case KC_COLL_GATHER:
    case KC_COLL_GATHERV:
    case KC_COLL_REDUCE:
        return j == root ? m : UINT64_MAX;
    case KC_COLL_REDUCE_SCATTER:
    case KC_COLL_REDUCE_SCATTER_BLOCK:
        return m / p + (j < m % p);
    case KC_COLL_SCAN:
    case KC_COLL_EXSCAN:
        return i < j ? m : UINT64_MAX;
    case KC_COLL_BARRIER:
        return 0;
    default:
        return m;
    }
}

typedef struct outcome {
    size_t messages;
    uint64_t bytes;
} outcome;

/* Every rank's messages for one call; checks matching, order and flows. */
static outcome one_call(kc_trace_coll op, kc_trace_alg alg, uint32_t p, uint32_t root, uint64_t m)
{
    list sent = {0}, got = {0};
    uint32_t S = 0;
    for (uint32_t me = 0; me < p; me++) {
        uint64_t s, r;
        kc_test_scorep_totals(op, p, root, me, m, &s, &r);
        both b = {{0}, {0}, 0, 0, 0};
        b.sent.me = b.got.me = me;
        assert_int_equal(kc_trace_coll_messages(op, alg, p, root, me, s, r, on_emit, on_recv, &b), 0);
        if (b.order_bad)
            fail_msg("%s/%s p=%u root=%u rank %u: steps not in order", kc_names_name(&kc_trace_coll_names, op),
                     kc_names_name(&kc_trace_alg_names, alg), p, root, me);
        for (size_t i = 0; i < b.sent.n; i++) {
            assert_true(b.sent.m[i].to < p && b.sent.m[i].to != me);
            push(&sent, me, b.sent.m[i].to, b.sent.m[i].step, b.sent.m[i].bytes);
            S = b.sent.m[i].step + 1 > S ? b.sent.m[i].step + 1 : S;
        }
        for (size_t i = 0; i < b.got.n; i++)
            push(&got, b.got.m[i].from, me, b.got.m[i].step, b.got.m[i].bytes);
        free(b.sent.m);
        free(b.got.m);
    }
    if (sent.n)
        qsort(sent.m, sent.n, sizeof *sent.m, cmp_msg);
    if (got.n)
        qsort(got.m, got.n, sizeof *got.m, cmp_msg);
    int differ = sent.n != got.n;
    for (size_t i = 0; !differ && i < sent.n; i++)
        differ = cmp_msg(&sent.m[i], &got.m[i]) != 0;
    if (differ)
        fail_msg("%s/%s p=%u root=%u m=%llu: %zu sent, %zu received, lists differ",
                 kc_names_name(&kc_trace_coll_names, op), kc_names_name(&kc_trace_alg_names, alg), p, root,
                 (unsigned long long)m, sent.n, got.n);
    graph g = {0};
    build(&g, p, S, &sent, m == 0 || op == KC_COLL_BARRIER);
    for (uint32_t i = 0; i < p; i++)
        for (uint32_t j = 0; j < p; j++) {
            uint64_t n = need(op, p, root, i, j, m);
            if (n == UINT64_MAX)
                continue;
            uint64_t want = n ? n : 1;
            uint64_t f = flow(&g, i * (S + 1), j * (S + 1) + S, want);
            if (f < want)
                fail_msg("%s/%s p=%u root=%u m=%llu: rank %u gets %llu of the %llu bytes it needs from rank %u",
                         kc_names_name(&kc_trace_coll_names, op), kc_names_name(&kc_trace_alg_names, alg), p, root,
                         (unsigned long long)m, j, (unsigned long long)f, (unsigned long long)want, i);
        }
    graph_free(&g);
    outcome o = {sent.n, 0};
    for (size_t i = 0; i < sent.n; i++)
        o.bytes += sent.m[i].bytes;
    free(sent.m);
    free(got.m);
    return o;
}

static void test_every_call(void **state)
{
    (void)state;
    const uint64_t blocks[] = {0, 1003};
    size_t calls = 0;
    for (int op = 0; op < KC_COLL_COUNT; op++)
        for (int alg = KC_ALG_BINOMIAL; alg < KC_ALG_COUNT; alg++)
            for (uint32_t p = 1; p <= 17; p++)
                for (size_t bi = 0; bi < 2; bi++) {
                    uint32_t roots[3] = {0, p - 1, p / 2};
                    int rooted = op == KC_COLL_BCAST || op == KC_COLL_SCATTER || op == KC_COLL_SCATTERV ||
                                 op == KC_COLL_GATHER || op == KC_COLL_GATHERV || op == KC_COLL_REDUCE;
                    for (int ri = 0; ri < (rooted ? 3 : 1); ri++, calls++)
                        one_call((kc_trace_coll)op, (kc_trace_alg)alg, p, roots[ri], blocks[bi]);
                }
    assert_true(calls > 3000);
}

/* Hand counts: a binomial bcast of 8 ranks is 7 messages of m; a ring
 * allreduce of p ranks sends 2(p-1) blocks of v/p per rank; linear
 * alltoall p(p-1) blocks; recursive doubling allreduce on 6 ranks: 2 folds
 * in, 4 x 2 exchanges, 2 folds out. */
static void test_hand_counts(void **state)
{
    (void)state;
    outcome o = one_call(KC_COLL_BCAST, KC_ALG_BINOMIAL, 8, 3, 100);
    assert_int_equal(o.messages, 7);
    assert_int_equal(o.bytes, 700);
    o = one_call(KC_COLL_ALLREDUCE, KC_ALG_RING, 5, 0, 1000);
    assert_int_equal(o.messages, 2 * 4 * 5);
    assert_int_equal(o.bytes, 2 * 4 * 1000);
    o = one_call(KC_COLL_ALLTOALL, KC_ALG_LINEAR, 6, 0, 10);
    assert_int_equal(o.messages, 30);
    assert_int_equal(o.bytes, 300);
    o = one_call(KC_COLL_ALLREDUCE, KC_ALG_RECURSIVE_DOUBLING, 6, 0, 10);
    assert_int_equal(o.messages, 2 + 4 * 2 + 2);
    o = one_call(KC_COLL_GATHER, KC_ALG_BINOMIAL, 8, 0, 10); /* subtrees 4 + 2 + 2 + 1 + 1 + 1 + 1 */
    assert_int_equal(o.messages, 7);
    assert_int_equal(o.bytes, 120);
    o = one_call(KC_COLL_BARRIER, KC_ALG_RING, 4, 0, 0);
    assert_int_equal(o.messages, 7);
}

/* Open MPI 4.1's fixed decisions (commutative operations), spot values
 * read off coll_tuned_decision_fixed.c and mapped as docs/traces.md says. */
static void test_auto(void **state)
{
    (void)state;
    assert_int_equal(kc_trace_coll_auto(KC_COLL_ALLREDUCE, 12, 8), KC_ALG_RECURSIVE_DOUBLING);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_ALLREDUCE, 16, 8), KC_ALG_RING);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_ALLREDUCE, 2, 4), KC_ALG_RING);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_ALLREDUCE, 200, 1000), KC_ALG_BINOMIAL);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_ALLTOALL, 64, 256), KC_ALG_RECURSIVE_DOUBLING);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_ALLTOALL, 4, 100), KC_ALG_LINEAR);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_ALLTOALL, 100, 1 << 20), KC_ALG_RING);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_BCAST, 6, 4 << 20), KC_ALG_RING);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_BCAST, 64, 100), KC_ALG_BINOMIAL);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_BCAST, 20, 2 << 20), KC_ALG_RECURSIVE_DOUBLING);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_BCAST, 100, 2 << 20), KC_ALG_BINOMIAL);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_BARRIER, 5, 0), KC_ALG_LINEAR);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_BARRIER, 300, 0), KC_ALG_BINOMIAL);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_REDUCE, 3, 1000), KC_ALG_LINEAR);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_REDUCE, 64, 1000), KC_ALG_BINOMIAL);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_GATHER, 300, 4096), KC_ALG_LINEAR);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_SCATTER, 100, 100), KC_ALG_BINOMIAL);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_ALLGATHER, 16, 1 << 20), KC_ALG_RECURSIVE_DOUBLING);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_ALLGATHER, 100, 1 << 20), KC_ALG_RING);
    assert_int_equal(kc_trace_coll_auto(KC_COLL_SCAN, 100, 1 << 20), KC_ALG_LINEAR);
    for (int op = 0; op < KC_COLL_COUNT; op++)
        for (uint32_t p = 1; p < 10000; p = p * 3 + 1)
            for (uint64_t b = 1; b < ((uint64_t)1 << 32); b *= 7) {
                kc_trace_alg a = kc_trace_coll_auto((kc_trace_coll)op, p, b);
                assert_true(a > KC_ALG_AUTO && a < KC_ALG_COUNT);
            }
}

/* A callback's non-zero return stops the listing and is returned. */
static int stop_at_two(void *ctx, uint32_t step, uint32_t peer, uint64_t bytes)
{
    (void)step, (void)peer, (void)bytes;
    return ++*(int *)ctx == 2 ? 7 : 0;
}

static void test_stop(void **state)
{
    (void)state;
    int n = 0;
    assert_int_equal(kc_trace_coll_messages(KC_COLL_BCAST, KC_ALG_LINEAR, 8, 0, 0, 800, 100, stop_at_two, NULL, &n),
                     7);
    assert_int_equal(n, 2);
    assert_int_equal(kc_trace_coll_messages(KC_COLL_BCAST, KC_ALG_LINEAR, 0, 0, 0, 800, 100, stop_at_two, NULL, &n),
                     0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_call),
        cmocka_unit_test(test_hand_counts),
        cmocka_unit_test(test_auto),
        cmocka_unit_test(test_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
