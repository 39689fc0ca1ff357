/* traffic_read.c - the readers of kcube/traffic.h: traffic files, Scotch
 * source graphs, GOAL schedules and linear communications (docs/traffic.md).
 * Files go through the strict bounded reader (kcube/reader.h), so every bad
 * token is reported with its line and column. */
#include <stdlib.h>
#include <string.h>

#include "kcube/comm.h"
#include "kcube/goal.h"
#include "kcube/torus.h"
#include "kcube/traffic.h"
#include "traffic_internal.h"

#define PARAM "traffic_file"

/* A section (the lines between phase lines) ends: is it still square? */
static void section_end(kci_list_shape *sh, size_t *lines)
{
    sh->square &= *lines == 0 || *lines == (size_t)sh->fields;
    *lines = 0;
}

kc_status kci_traffic_read_list(kc_traffic *t, kc_reader *r, kci_list_shape *shape, kc_err *err)
{
    kc_token tok[3];
    int have;
    size_t before = t->count, section = 0;
    kc_status s;
    kci_list_shape sh = {0, 0, 1};
    kc_reader_directive(r, "phase");
    while (!(s = kc_reader_record_some(r, tok, 2, 3, "source destination [bytes]", &have, err)) && have) {
        if (have == KC_READER_DIRECTIVE) {
            section_end(&sh, &section);
            if ((s = kc_traffic_set_phase(t, kc_reader_directive_arg(r), err)))
                return s;
            continue;
        }
        sh.square &= sh.lines == 0 || have == sh.fields;
        sh.fields = have;
        sh.lines++;
        section++;
        if ((s = kc_reader_check(r, &tok[0], t->ranks - 1, "rank", err)) ||
            (s = kc_reader_check(r, &tok[1], t->ranks - 1, "rank", err)) ||
            (have == 3 && (s = kc_reader_check(r, &tok[2], UINT64_MAX, "byte count", err))))
            return s;
        /* Without a byte count, one message of weight 1: loads count messages. */
        if ((s = kc_traffic_add(t, tok[0].value, tok[1].value, have == 3 ? tok[2].value : 1, err)))
            return s;
    }
    section_end(&sh, &section);
    if (s == KC_OK && t->count == before)
        s = kc_fail_param(err, KC_EINVAL, PARAM, "%s has no messages", kc_reader_name(r));
    if (shape)
        *shape = sh;
    return s;
}

kc_status kc_traffic_read(kc_traffic *t, kc_reader *r, kc_err *err)
{
    return kci_traffic_read_list(t, r, NULL, err);
}

/* ---- Scotch source graphs ---- */

typedef struct grf {
    kc_reader *r;
    kc_err *err;
    uint64_t base, vertnbr;
    int labels, edge_weights, vertex_weights;
} grf;

/* The next token, which must exist and lie in 0..max. */
static kc_status grf_next(grf *g, kc_token *tok, uint64_t max, const char *what)
{
    int have;
    kc_status s = kc_reader_next(g->r, tok, &have, g->err);
    if (s)
        return s;
    if (!have)
        return kc_fail_param(g->err, KC_EINVAL, PARAM, "%s ends early: expected a %s", kc_reader_name(g->r), what);
    return kc_reader_check(g->r, tok, max, what, g->err);
}

/* A vertex id (label or position) written as base..base+vertnbr-1: its rank. */
static kc_status grf_vertex(grf *g, kc_token *tok, const char *what, uint64_t *rank)
{
    kc_status s = grf_next(g, tok, g->base + g->vertnbr - 1, what);
    if (s)
        return s;
    if (tok->value < g->base)
        return kc_reader_fail_token(g->r, tok, KC_EINVAL, g->err, "is not a %s (%llu..%llu)", what,
                                    (unsigned long long)g->base, (unsigned long long)(g->base + g->vertnbr - 1));
    *rank = tok->value - g->base;
    return KC_OK;
}

/* "0", "vertnbr edgenbr", "baseval flags". */
static kc_status grf_header(grf *g, uint64_t ranks, uint64_t *edgenbr)
{
    kc_token tok;
    kc_status s;
    if ((s = grf_next(g, &tok, 0, "graph file version")) ||
        (s = grf_next(g, &tok, ranks, "vertex count")))
        return s;
    g->vertnbr = tok.value;
    if (g->vertnbr == 0)
        return kc_reader_fail_token(g->r, &tok, KC_EINVAL, g->err, "vertices: the graph is empty");
    if ((s = grf_next(g, &tok, KC_TRAFFIC_MAX_MESSAGES, "arc count")))
        return s;
    *edgenbr = tok.value;
    if ((s = grf_next(g, &tok, 1, "base")))
        return s;
    g->base = tok.value;
    if ((s = grf_next(g, &tok, 111, "flag field")))
        return s;
    unsigned f = (unsigned)tok.value;
    if (f % 10 > 1 || f / 10 % 10 > 1)
        return kc_reader_fail_token(g->r, &tok, KC_EINVAL, g->err, "is not a flag field (three digits 0 or 1)");
    g->labels = f / 100 == 1;
    g->edge_weights = f / 10 % 10 == 1;
    g->vertex_weights = f % 10 == 1;
    return KC_OK;
}

/* One vertex line: [label] [weight] degree, then [edge weight] neighbour. */
static kc_status grf_vertex_line(grf *g, kc_traffic *t, uint64_t pos, unsigned char *seen, uint64_t *arcs)
{
    kc_token tok;
    kc_status s;
    uint64_t rank = pos, other = 0;
    if (g->labels) {
        if ((s = grf_vertex(g, &tok, "vertex label", &rank)))
            return s;
        if (seen[rank]++)
            return kc_reader_fail_token(g->r, &tok, KC_EINVAL, g->err,
                                        "labels a second vertex (labels must be a permutation)");
    }
    if (g->vertex_weights && (s = grf_next(g, &tok, UINT64_MAX, "vertex weight")))
        return s;
    if ((s = grf_next(g, &tok, KC_TRAFFIC_MAX_MESSAGES, "degree")))
        return s;
    uint64_t degree = tok.value;
    *arcs += degree;
    for (uint64_t j = 0; j < degree; j++) {
        uint64_t bytes = 1;
        if (g->edge_weights) {
            if ((s = grf_next(g, &tok, UINT64_MAX, "weight of an edge")))
                return s;
            bytes = tok.value;
        }
        if ((s = grf_vertex(g, &tok, g->labels ? "neighbour label" : "neighbour", &other)) ||
            (s = kc_traffic_add(t, rank, other, bytes, g->err)))
            return s;
    }
    return KC_OK;
}

kc_status kc_traffic_read_grf(kc_traffic *t, kc_reader *r, kc_err *err)
{
    uint64_t vertices;
    return kci_traffic_read_grf(t, r, &vertices, err);
}

kc_status kci_traffic_read_grf(kc_traffic *t, kc_reader *r, uint64_t *vertices, kc_err *err)
{
    grf g = {.r = r, .err = err};
    uint64_t edgenbr = 0, arcs = 0;
    kc_status s = grf_header(&g, t->ranks, &edgenbr);
    if (s)
        return s;
    *vertices = g.vertnbr;
    unsigned char *seen = g.labels ? calloc(g.vertnbr, 1) : NULL;
    if (g.labels && !seen)
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory for %llu vertices",
                             (unsigned long long)g.vertnbr);
    for (uint64_t v = 0; v < g.vertnbr && s == KC_OK; v++)
        s = grf_vertex_line(&g, t, v, seen, &arcs);
    free(seen);
    kc_token tok;
    int have;
    if (s == KC_OK && arcs != edgenbr)
        s = kc_fail_param(err, KC_EINVAL, PARAM, "%s: the degrees add up to %llu arcs, the header says %llu",
                          kc_reader_name(r), (unsigned long long)arcs, (unsigned long long)edgenbr);
    if (s == KC_OK && (s = kc_reader_next(r, &tok, &have, err)) == KC_OK && have)
        s = kc_reader_fail_token(r, &tok, KC_EINVAL, err, "follows the last vertex");
    return s;
}

/* ---- GOAL schedules ---- */

/* The unnamed phase of a schedule with phases, as a group name. */
#define GOAL_NO_PHASE "-"

kc_status kc_traffic_from_goal(kc_traffic *t, const kc_goal *g, kc_err *err)
{
    uint32_t last = UINT32_MAX; /* phase of the previous send */
    if (g->nphases > 1) {
        /* Groups in the schedule's phase order (the first send of rank 0
         * may come in a later phase than another rank's). */
        unsigned char *sends = calloc(g->nphases, 1);
        if (!sends)
            return kc_fail(err, KC_ENOMEM, "out of memory for %zu phases", g->nphases);
        for (size_t i = 0; i < g->nops; i++)
            if (g->op[i].kind == KC_GOAL_SEND)
                sends[g->op[i].phase] = 1;
        kc_status s = KC_OK;
        for (size_t p = 0; p < g->nphases && !s; p++)
            if (sends[p])
                s = kc_traffic_set_phase(t, p ? kc_goal_phase_name(g, (uint32_t)p) : GOAL_NO_PHASE, err);
        free(sends);
        if (s)
            return s;
    }
    for (size_t i = 0; i < g->nops; i++) {
        const kc_goal_op *op = &g->op[i];
        if (op->kind != KC_GOAL_SEND)
            continue;
        if (op->peer < 0 || (uint64_t)op->peer >= t->ranks || op->rank >= t->ranks)
            return kc_fail_param(err, KC_EINVAL, "schedule", "line %ld: send from rank %u to %lld, outside 0..%llu",
                                 op->line, op->rank, (long long)op->peer, (unsigned long long)(t->ranks - 1));
        kc_status s;
        /* Phases change rarely along the operations: look up only then. */
        if (g->nphases > 1 && op->phase != last) {
            const char *name = op->phase ? kc_goal_phase_name(g, op->phase) : GOAL_NO_PHASE;
            if ((s = kc_traffic_set_phase(t, name, err)))
                return s;
            last = op->phase;
        }
        if ((s = kc_traffic_add(t, op->rank, (uint64_t)op->peer, op->amount, err)))
            return s;
    }
    return KC_OK;
}

kc_status kci_traffic_read_goal_path(kc_traffic *t, const char *path, const kc_reader_limits *limits,
                                     uint64_t *num_ranks, kc_err *err)
{
    kc_goal g;
    uint32_t max = t->ranks < KC_GOAL_MAX_RANKS ? (uint32_t)t->ranks : KC_GOAL_MAX_RANKS;
    kc_status s = kc_goal_read_file(&g, path, limits, max, err);
    if (s)
        return s;
    *num_ranks = g.num_ranks;
    if ((s = kc_goal_validate(&g, t->ranks, NULL, err)) == KC_OK)
        s = kc_traffic_from_goal(t, &g, err);
    kc_goal_free(&g);
    return s;
}

/* ---- Linear communications ---- */

kc_status kc_traffic_add_comm(kc_traffic *t, const kc_comm *c, uint64_t bytes, kc_rng *rng, kc_err *err)
{
    int bits = c->t.a.n * c->t.f.m;
    if (bits > 32 || ((uint64_t)1 << bits) != t->ranks)
        return kc_fail_param(err, KC_EINVAL, "traffic", "communication '%s' has %d-bit addresses, traffic has %llu ranks",
                             c->name, bits, (unsigned long long)t->ranks);
    size_t count = (size_t)t->ranks;
    uint32_t *src = malloc(count * sizeof *src), *dst = malloc(count * sizeof *dst);
    kc_status s = !src || !dst ? kc_fail(err, KC_ENOMEM, "out of memory for %zu messages", count)
                               : kc_tcomm_endpoints(&c->t, src, dst, rng, err);
    if (s == KC_OK)
        s = kc_traffic_begin_group(t, err);
    for (size_t m = 0; m < count && s == KC_OK; m++)
        s = kc_traffic_add(t, src[m], dst[m], bytes, err);
    free(src);
    free(dst);
    return s;
}
