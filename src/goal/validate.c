/* Validation of a GOAL schedule before any simulation (kcube/goal.h):
 * ranges, dependency cycles, MPI-style matching and deadlocks across ranks.
 *
 * Matching is static: the k-th send from s to d that a receive can take is
 * the one earliest in the file, so FIFO per (source, tag) is the file order
 * (MPI's non-overtaking rule for sends issued in program order). A receive
 * from any source takes the earliest unmatched send in the file that fits.
 *
 * With wildcard receives the static matching is not the run's: which send
 * a wildcard takes depends on when messages arrive. Such a schedule is
 * refused only for what no run can do (validate_wild.c); sizes and
 * deadlocks are checked only on the receives whose match is forced (no
 * wildcard of their rank could take their sends), and the file-order
 * matching is kept as a hint (kc_goal_match.run_time, .hint_ok).
 *
 * A deadlock is a cycle in the graph of events "operation i starts" (S_i)
 * and "operation i ends" (E_i): S_i -> E_i; `X requires Y`: E_Y -> S_X;
 * `X irequires Y`: S_Y -> S_X; a matched pair: S_send -> E_recv (sends are
 * eager: they never wait for their receive). A cycle without matching edges
 * lies inside one rank and is reported as a dependency cycle. The processor
 * running one operation at a time only delays operations, so it cannot close
 * a cycle. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/attr.h"
#include "goal_internal.h"

static kc_status bad(kc_err *err, const char *fmt, ...) KC_PRINTF(2, 3);
static kc_status bad(kc_err *err, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kc_fail_param(err, KC_EINVAL, "schedule", "%s", msg);
}

static kc_status nomem(kc_err *err) { return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory"); }

void kc_goal_match_free(kc_goal_match *m)
{
    if (!m)
        return;
    free(m->send_of);
    free(m->recv_of);
    memset(m, 0, sizeof *m);
}

static kc_status check_ranges(const kc_goal *g, uint64_t nodes, kc_err *err)
{
    int64_t p = g->num_ranks;
    if (nodes && (uint64_t)p > nodes)
        return bad(err, "line %ld: num_ranks %lld is larger than the %llu nodes of the network", g->num_ranks_line,
                   (long long)p, (unsigned long long)nodes);
    for (size_t i = 0; i < g->nops; i++) {
        const kc_goal_op *o = &g->op[i];
        if (o->rank >= g->num_ranks)
            return bad(err, "line %ld: rank %u is out of range (num_ranks %lld)", o->line, o->rank, (long long)p);
        if (o->kind == KC_GOAL_CALC)
            continue;
        int recv = o->kind == KC_GOAL_RECV;
        if (o->peer >= p || o->peer < (recv ? KC_GOAL_ANY : 0))
            return bad(err, "line %ld: rank %lld is out of range (num_ranks %lld)", o->line, (long long)o->peer,
                       (long long)p);
        if (o->tag < (recv ? KC_GOAL_ANY : 0))
            return bad(err, "line %ld: tag %lld is not allowed on a %s", o->line, (long long)o->tag,
                       recv ? "recv" : "send");
    }
    return KC_OK;
}

/* ---- Graph of events ---- */

enum { E_OP, E_DEP, E_MATCH };

/* Only the dependency edges are stored (CSR by source node, their target
 * nodes): the edge S_i -> E_i and a send's matching edge follow from i,
 * which keeps the graph to one index per dependency. The out-edges of S_i
 * come in the order op edge, dependency edges in dependency order, match
 * edge; those of E_i are its dependency edges (edge ids as edge_kind tells
 * them apart; a dependency edge's id is found again only for a cycle). */
typedef struct graph {
    const kc_goal *g;
    const kc_goal_match *m; /* NULL: no matching edges */
    size_t nodes;
    size_t *first; /* dependency edges out of node v: dep[first[v]..first[v+1]) */
    size_t *to;    /* dependency edges' targets, to[first[v]..first[v+1]) */
} graph;

static void graph_free(graph *gr)
{
    free(gr->first);
    free(gr->to);
}

/* The node a dependency edge leaves: S_on for irequires, E_on for requires. */
static size_t dep_from(const kc_goal_dep *d) { return 2 * d->on + (d->start ? 0 : 1); }

static int edge_kind(const kc_goal *g, size_t e)
{
    return e < g->nops ? E_OP : e < g->nops + g->ndeps ? E_DEP : E_MATCH;
}

/* Fills gr (g's events, m's matches when m is not NULL). O(nops + ndeps). */
static kc_status graph_build(graph *gr, const kc_goal *g, const kc_goal_match *m, kc_err *err)
{
    memset(gr, 0, sizeof *gr);
    gr->g = g;
    gr->m = m;
    gr->nodes = 2 * g->nops;
    gr->first = calloc(gr->nodes + 2, sizeof *gr->first);
    gr->to = malloc((g->ndeps ? g->ndeps : 1) * sizeof *gr->to);
    if (!gr->first || !gr->to) {
        graph_free(gr);
        return nomem(err);
    }
    for (size_t i = 0; i < g->ndeps; i++)
        gr->first[dep_from(&g->dep[i]) + 2]++;
    for (size_t v = 0; v < gr->nodes; v++)
        gr->first[v + 2] += gr->first[v + 1];
    for (size_t i = 0; i < g->ndeps; i++)
        gr->to[gr->first[dep_from(&g->dep[i]) + 1]++] = 2 * g->dep[i].op;
    return KC_OK;
}

/* The k-th out-edge of node v: its target, and its id in *eid (for a
 * dependency edge its CSR position, which dep_ids turns into an id);
 * KC_GOAL_NONE when v has no k-th edge. O(1). */
static size_t out_edge(const graph *gr, size_t v, size_t k, size_t *eid)
{
    const kc_goal *g = gr->g;
    size_t op = v / 2, own = v % 2 == 0;
    if (k < own) {
        *eid = op;
        return v + 1;
    }
    k -= own;
    size_t nd = gr->first[v + 1] - gr->first[v];
    if (k < nd) {
        *eid = g->nops + gr->first[v] + k;
        return gr->to[gr->first[v] + k];
    }
    if (own && k == nd && gr->m && gr->m->recv_of[op] != KC_GOAL_NONE) {
        *eid = g->nops + g->ndeps + op;
        return 2 * gr->m->recv_of[op] + 1;
    }
    return KC_GOAL_NONE;
}

/* The dependency index at each CSR position of gr (ndeps entries, the
 * caller frees it), NULL when memory runs out. O(nodes + ndeps). */
static size_t *dep_ids(const graph *gr)
{
    const kc_goal *g = gr->g;
    size_t *at = malloc((gr->nodes + 1) * sizeof *at), *id = malloc((g->ndeps ? g->ndeps : 1) * sizeof *id);
    if (!at || !id) {
        free(at), free(id);
        return NULL;
    }
    memcpy(at, gr->first, (gr->nodes + 1) * sizeof *at);
    for (size_t i = 0; i < g->ndeps; i++)
        id[at[dep_from(&g->dep[i])]++] = i;
    free(at);
    return id;
}

/* Copies the cycle closed by a back edge to stack[from]: the edges taken at
 * stack[from..top] into a new *cyc, as edge ids. */
static kc_status cycle_copy(const graph *gr, const size_t *stack, const size_t *pos, size_t from, size_t top,
                            size_t **cyc, size_t *len, kc_err *err)
{
    const kc_goal *g = gr->g;
    size_t *id = dep_ids(gr);
    if (!id || !(*cyc = malloc((top - from + 1) * sizeof **cyc))) {
        free(id);
        return nomem(err);
    }
    for (size_t t = from; t <= top; t++) {
        size_t e;
        out_edge(gr, stack[t], pos[t] - 1, &e);
        if (edge_kind(g, e) == E_DEP)
            e = g->nops + id[e - g->nops];
        (*cyc)[(*len)++] = e;
    }
    free(id);
    return KC_OK;
}

/* Find a cycle by iterative depth-first search. On success *cyc (allocated
 * here only when there is a cycle, the caller frees it) holds its *len edges
 * in order; *len = 0 and *cyc NULL if the graph is acyclic. */
static kc_status find_cycle(const graph *gr, size_t **cyc, size_t *len, kc_err *err)
{
    *len = 0;
    *cyc = NULL;
    unsigned char *color = calloc(gr->nodes ? gr->nodes : 1, 1);
    size_t *stack = malloc((gr->nodes ? gr->nodes : 1) * sizeof *stack);
    size_t *pos = malloc((gr->nodes ? gr->nodes : 1) * sizeof *pos);
    kc_status s = color && stack && pos ? KC_OK : nomem(err);
    for (size_t root = 0; !s && root < gr->nodes && !*len; root++) {
        if (color[root])
            continue;
        size_t top = 0, eid;
        stack[top] = root;
        pos[top] = 0;
        color[root] = 1;
        while (top != (size_t)-1 && !*len && !s) {
            size_t v = stack[top];
            size_t w = out_edge(gr, v, pos[top]++, &eid);
            if (w == KC_GOAL_NONE) {
                color[v] = 2;
                top--;
            } else if (color[w] == 1) { /* a back edge closes a cycle through the stack */
                size_t from = top;
                while (stack[from] != w)
                    from--;
                s = cycle_copy(gr, stack, pos, from, top, cyc, len, err);
            } else if (color[w] == 0) {
                color[w] = 1;
                stack[++top] = w;
                pos[top] = 0;
            }
        }
    }
    free(color), free(stack), free(pos);
    return s;
}

static kc_status check_cycles(const kc_goal *g, const kc_goal_match *m, kc_err *err)
{
    graph gr;
    kc_status s = graph_build(&gr, g, m, err);
    if (s)
        return s;
    size_t *cyc = NULL, len = 0;
    s = find_cycle(&gr, &cyc, &len, err);
    if (!s && len) {
        char chain[160] = "";
        size_t used = 0;
        long line = 0;
        uint32_t rank = 0;
        for (size_t i = 0; i < len; i++) {
            size_t e = cyc[i];
            if (edge_kind(g, e) == E_DEP) {
                const kc_goal_dep *d = &g->dep[e - g->nops];
                if (!line || (d->line && d->line < line))
                    line = d->line, rank = g->op[d->op].rank;
            } else if (edge_kind(g, e) == E_MATCH) {
                size_t r = m->recv_of[e - g->nops - g->ndeps];
                if (used < sizeof chain - 40)
                    used += (size_t)snprintf(chain + used, sizeof chain - used, "%s rank %u line %ld waits for "
                                             "rank %u line %ld;", used ? "" : ":", g->op[r].rank, g->op[r].line,
                                             g->op[e - g->nops - g->ndeps].rank,
                                             g->op[e - g->nops - g->ndeps].line);
            }
        }
        if (!m)
            s = bad(err, "line %ld: dependency cycle in rank %u (requires/irequires lead back to this operation)",
                    line, rank);
        else {
            /* The receive with the smallest line names the deadlock. */
            long rline = 0;
            for (size_t i = 0; i < len; i++)
                if (edge_kind(g, cyc[i]) == E_MATCH) {
                    long l = g->op[m->recv_of[cyc[i] - g->nops - g->ndeps]].line;
                    if (!rline || l < rline)
                        rline = l;
                }
            if (used)
                chain[used - 1] = '\0';
            s = bad(err, "line %ld: deadlock across ranks%s", rline, chain);
        }
    }
    free(cyc);
    graph_free(&gr);
    return s;
}

/* ---- Matching ---- */

typedef struct skey {
    uint32_t dest, src;
    size_t op;
} skey;

typedef struct group {
    uint32_t src;
    size_t begin, end, head; /* sends key[begin..end), head: first maybe unmatched */
} group;

/* The first unmatched send of group q whose tag fits, or KC_GOAL_NONE. */
static size_t group_take(group *q, const skey *key, const kc_goal *g, const kc_goal_match *m, int64_t tag)
{
    while (q->head < q->end && m->recv_of[key[q->head].op] != KC_GOAL_NONE)
        q->head++;
    for (size_t k = q->head; k < q->end; k++) {
        size_t op = key[k].op;
        if (m->recv_of[op] == KC_GOAL_NONE && (tag == KC_GOAL_ANY || g->op[op].tag == tag))
            return op;
    }
    return KC_GOAL_NONE;
}

/* The sends indexed for matching: sorted by (dest, src, op), grouped by
 * (dest, src), and gfirst[d] .. gfirst[d + 1] the groups of dest d. */
typedef struct send_index {
    skey *key;
    group *grp;
    size_t *gfirst; /* num_ranks + 1 entries */
    size_t nsend;
} send_index;

static void send_index_free(send_index *x) { free(x->key), free(x->grp), free(x->gfirst); }

/* key[] = g's sends in (dest, src, op) order: two stable counting passes
 * (by source, then by destination) over the sends in op order, through
 * the scratch array tmp (nsend entries). O(nsend + num_ranks). */
static kc_status send_keys(const kc_goal *g, skey *key, skey *tmp, kc_err *err)
{
    size_t *cnt = malloc(((size_t)g->num_ranks + 1) * sizeof *cnt);
    if (!cnt)
        return nomem(err);
    size_t k = 0;
    for (size_t i = 0; i < g->nops; i++)
        if (g->op[i].kind == KC_GOAL_SEND)
            tmp[k++] = (skey){(uint32_t)g->op[i].peer, g->op[i].rank, i};
    for (int pass = 0; pass < 2; pass++) {
        const skey *from = pass ? key : tmp;
        skey *to = pass ? tmp : key;
        memset(cnt, 0, ((size_t)g->num_ranks + 1) * sizeof *cnt);
        for (size_t i = 0; i < k; i++)
            cnt[(pass ? from[i].dest : from[i].src) + 1]++;
        for (uint32_t r = 0; r < g->num_ranks; r++)
            cnt[r + 1] += cnt[r];
        for (size_t i = 0; i < k; i++)
            to[cnt[pass ? from[i].dest : from[i].src]++] = from[i];
    }
    memcpy(key, tmp, k * sizeof *key);
    free(cnt);
    return KC_OK;
}

/* Allocates and fills x from g's sends. Returns KC_OK or ENOMEM (x freed).
 * O(nsend + num_ranks). */
static kc_status send_index_build(const kc_goal *g, send_index *x, kc_err *err)
{
    size_t nsend = 0;
    for (size_t i = 0; i < g->nops; i++)
        nsend += g->op[i].kind == KC_GOAL_SEND;
    x->nsend = nsend;
    x->key = malloc((nsend ? nsend : 1) * sizeof *x->key);
    x->grp = malloc((nsend ? nsend : 1) * sizeof *x->grp);
    x->gfirst = calloc((size_t)g->num_ranks + 1, sizeof *x->gfirst);
    if (!x->key || !x->grp || !x->gfirst) {
        send_index_free(x);
        return nomem(err);
    }
    /* grp is not filled yet: it lends its bytes to the sort as scratch */
    _Static_assert(sizeof(group) >= sizeof(skey), "the groups' array holds the sort's scratch keys");
    kc_status s = send_keys(g, x->key, (skey *)(void *)x->grp, err);
    if (s) {
        send_index_free(x);
        return s;
    }
    skey *key = x->key;
    size_t ng = 0;
    for (size_t i = 0; i < nsend; i++) {
        if (i == 0 || key[i].dest != key[i - 1].dest || key[i].src != key[i - 1].src) {
            x->grp[ng++] = (group){key[i].src, i, i, i};
            x->gfirst[key[i].dest + 1] = ng;
        }
        x->grp[ng - 1].end = i + 1;
    }
    /* gfirst[d + 1] = groups up to dest d; fill the gaps of silent dests. */
    for (uint32_t d = 0; d < g->num_ranks; d++)
        if (x->gfirst[d + 1] < x->gfirst[d])
            x->gfirst[d + 1] = x->gfirst[d];
    return KC_OK;
}

/* The send the recv o matches: the first unmatched fitting send of its
 * peer's group, or for any peer the earliest over the groups of its rank;
 * KC_GOAL_NONE when there is none. O(log groups + sends scanned). */
static size_t recv_match(const kc_goal *g, const kc_goal_match *m, send_index *x, const kc_goal_op *o)
{
    size_t lo = x->gfirst[o->rank], hi = x->gfirst[o->rank + 1], best = KC_GOAL_NONE;
    if (o->peer != KC_GOAL_ANY) {
        while (lo < hi) { /* the group of (dest, peer) */
            size_t mid = lo + (hi - lo) / 2;
            if (x->grp[mid].src < (uint32_t)o->peer)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < x->gfirst[o->rank + 1] && x->grp[lo].src == (uint32_t)o->peer)
            best = group_take(&x->grp[lo], x->key, g, m, o->tag);
        return best;
    }
    for (size_t q = lo; q < hi; q++) {
        size_t c = group_take(&x->grp[q], x->key, g, m, o->tag);
        if (c < best)
            best = c;
    }
    return best;
}

/* The error of the recv o when best (its match, or KC_GOAL_NONE) does not
 * fit it: no send, or a send of another amount. KC_OK when it fits. */
static kc_status recv_check(const kc_goal *g, const kc_goal_op *o, size_t best, kc_err *err)
{
    if (best == KC_GOAL_NONE) {
        char from[32], tag[32];
        snprintf(from, sizeof from, o->peer == KC_GOAL_ANY ? "any rank" : "rank %lld", (long long)o->peer);
        snprintf(tag, sizeof tag, o->tag == KC_GOAL_ANY ? "any tag" : "tag %lld", (long long)o->tag);
        return bad(err, "line %ld: the recv of rank %u from %s with %s has no matching send", o->line, o->rank, from,
                   tag);
    }
    if (g->op[best].amount != o->amount)
        return bad(err, "line %ld: the recv of %llu bytes in rank %u is matched by a send of %llu bytes "
                   "(rank %u, line %ld)", o->line, (unsigned long long)o->amount, o->rank,
                   (unsigned long long)g->op[best].amount, g->op[best].rank, g->op[best].line);
    return KC_OK;
}

/* Which pass of the wildcard matching takes the recv o: 1 when it names
 * source and tag, 2 with one wildcard, 3 with both. */
static int specificity(const kc_goal_op *o) { return 1 + (o->peer == KC_GOAL_ANY) + (o->tag == KC_GOAL_ANY); }

/* Every unmatched recv that pass `want` takes (0: all of them), in op order,
 * takes the first fitting unmatched send. One that is forced (every recv
 * when forced is NULL) must find a send of its size; the others keep
 * KC_GOAL_NONE when they find none (the run decides). */
static kc_status match_pass(const kc_goal *g, kc_goal_match *m, send_index *x, const unsigned char *forced,
                            int want, kc_err *err)
{
    for (size_t i = 0; i < g->nops; i++) {
        const kc_goal_op *o = &g->op[i];
        if (o->kind != KC_GOAL_RECV || m->send_of[i] != KC_GOAL_NONE || (want && specificity(o) != want))
            continue;
        size_t best = recv_match(g, m, x, o);
        if (!forced || forced[i]) {
            kc_status s = recv_check(g, o, best, err);
            if (s)
                return s;
        }
        if (best == KC_GOAL_NONE)
            continue;
        m->send_of[i] = best;
        m->recv_of[best] = i;
        m->messages++;
    }
    return KC_OK;
}

/* No recv matched; every group's search starts at its first send. */
static void match_reset(const kc_goal *g, kc_goal_match *m, send_index *x)
{
    for (size_t i = 0; i < g->nops; i++)
        m->send_of[i] = m->recv_of[i] = KC_GOAL_NONE;
    for (size_t q = 0; x->nsend && q < x->gfirst[g->num_ranks]; q++)
        x->grp[q].head = x->grp[q].begin;
    m->messages = 0;
}

/* The file-order matching of the wildcard schedule g (forced from
 * kci_goal_wild_check): receives in op order, as without wildcards; when
 * that leaves one unmatched, again with the receives naming source and tag
 * first, then those with one wildcard, then the rest, which completes it
 * unless receives with one wildcard of each kind compete. Sizes are checked
 * on forced receives only. */
static kc_status match_wild(const kc_goal *g, kc_goal_match *m, send_index *x, const unsigned char *forced,
                            kc_err *err)
{
    size_t nrecv = 0, nsend = 0;
    for (size_t i = 0; i < g->nops; i++) {
        nrecv += g->op[i].kind == KC_GOAL_RECV;
        nsend += g->op[i].kind == KC_GOAL_SEND;
        m->run_time += g->op[i].kind == KC_GOAL_RECV && !forced[i];
    }
    kc_status s = match_pass(g, m, x, forced, 0, err);
    if (!s && m->messages < nrecv) {
        match_reset(g, m, x);
        for (int want = 1; want <= 3 && !s; want++)
            s = match_pass(g, m, x, forced, want, err);
    }
    m->hint_ok = m->messages == nrecv;
    m->messages = nsend;
    return s;
}

/* Matches every recv with a send (m's arrays allocated here, freed by the
 * caller). Without wildcards (forced NULL): in op order, an error when a
 * recv has no fitting send or a send is never received. With wildcards:
 * match_wild. */
static kc_status match(const kc_goal *g, kc_goal_match *m, const unsigned char *forced, kc_err *err)
{
    size_t n = g->nops ? g->nops : 1;
    m->send_of = malloc(n * sizeof *m->send_of);
    m->recv_of = malloc(n * sizeof *m->recv_of);
    if (!m->send_of || !m->recv_of)
        return nomem(err);
    send_index x;
    kc_status s = send_index_build(g, &x, err);
    if (s)
        return s;
    match_reset(g, m, &x);
    if (forced) {
        s = match_wild(g, m, &x, forced, err);
        send_index_free(&x);
        return s;
    }
    m->hint_ok = 1;
    s = match_pass(g, m, &x, NULL, 0, err);
    for (size_t i = 0; i < g->nops && !s; i++)
        if (g->op[i].kind == KC_GOAL_SEND && m->recv_of[i] == KC_GOAL_NONE)
            s = bad(err, "line %ld: the send of rank %u to rank %lld with tag %lld is never received",
                    g->op[i].line, g->op[i].rank, (long long)g->op[i].peer, (long long)g->op[i].tag);
    send_index_free(&x);
    return s;
}

/* Deadlocks through the forced matches only (a wildcard's match is the
 * run's to decide); then whether the whole hint is acyclic (hint_ok). */
static kc_status check_cycles_wild(const kc_goal *g, kc_goal_match *m, const unsigned char *forced, kc_err *err)
{
    size_t n = g->nops ? g->nops : 1;
    kc_goal_match f = {0};
    f.recv_of = malloc(n * sizeof *f.recv_of);
    if (!f.recv_of)
        return nomem(err);
    for (size_t i = 0; i < g->nops; i++)
        f.recv_of[i] = m->recv_of[i] != KC_GOAL_NONE && forced[m->recv_of[i]] ? m->recv_of[i] : KC_GOAL_NONE;
    kc_status s = check_cycles(g, &f, err);
    free(f.recv_of);
    if (!s && m->hint_ok) {
        kc_err scratch = {0};
        kc_status c = check_cycles(g, m, &scratch);
        if (c == KC_ENOMEM)
            return nomem(err);
        m->hint_ok = c == KC_OK;
    }
    return s;
}

kc_status kc_goal_validate(const kc_goal *g, uint64_t nodes, kc_goal_match *out, kc_err *err)
{
    kc_goal_match m = {0};
    unsigned char *forced = NULL;
    kc_status s = check_ranges(g, nodes, err);
    if (!s)
        s = check_cycles(g, NULL, err);
    if (!s && kc_goal_has_wildcards(g)) {
        forced = malloc(g->nops ? g->nops : 1);
        s = forced ? kci_goal_wild_check(g, forced, err) : nomem(err);
    }
    if (!s)
        s = match(g, &m, forced, err);
    if (!s)
        s = forced ? check_cycles_wild(g, &m, forced, err) : check_cycles(g, &m, err);
    free(forced);
    if (s || !out)
        kc_goal_match_free(&m);
    else
        *out = m;
    return s;
}
