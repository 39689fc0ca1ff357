/* The in-memory GOAL schedule (kcube/goal.h): building, remapping and
 * writing. Names live in one growable text pool so that operations stay
 * small (a million-message schedule is a few tens of MB). */
#include "core/grow.h"
#include "goal_internal.h"

#include <stdlib.h>
#include <string.h>

static const kc_name kind_entries[] = {
    {KC_GOAL_SEND, "send", "send SIZEb to R tag T"},
    {KC_GOAL_RECV, "recv", "recv SIZEb from R tag T"},
    {KC_GOAL_CALC, "calc", "calc T (nanoseconds)"},
    {0, NULL, NULL},
};
const kc_names kc_goal_kind_names = {"operation", kind_entries};

static kc_status nomem(kc_err *err) { return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory"); }

/* Copy a name into the pool; *off receives its offset. */
static kc_status pool_add(kc_goal *g, const char *s, size_t len, size_t *off, kc_err *err)
{
    if (KCI_RESERVE(g->text, g->text_cap, g->text_len + len + 1, 16))
        return nomem(err);
    memcpy(g->text + g->text_len, s, len);
    g->text[g->text_len + len] = '\0';
    *off = g->text_len;
    g->text_len += len + 1;
    return KC_OK;
}

kc_status kc_goal_init(kc_goal *g, uint32_t num_ranks, kc_err *err)
{
    memset(g, 0, sizeof *g);
    g->num_ranks = num_ranks;
    if (KCI_RESERVE(g->phase, g->cap_phases, 1, 16))
        return nomem(err);
    g->nphases = 1;
    kc_status s = pool_add(g, "", 0, &g->phase[0], err);
    if (s) /* a failed init leaves nothing to free */
        kc_goal_free(g);
    return s;
}

void kc_goal_free(kc_goal *g)
{
    if (!g)
        return;
    free(g->op);
    free(g->dep);
    free(g->phase);
    free(g->text);
    memset(g, 0, sizeof *g);
}

kc_status kc_goal_add(kc_goal *g, kc_goal_kind kind, uint32_t rank, int64_t peer, int64_t tag, uint64_t amount,
                      const char *label, long line, size_t *index, kc_err *err)
{
    if (KCI_RESERVE(g->op, g->cap_ops, g->nops + 1, 16))
        return nomem(err);
    kc_goal_op *o = &g->op[g->nops];
    o->amount = amount;
    o->peer = peer;
    o->tag = tag;
    o->rank = rank;
    o->phase = g->cur_phase;
    o->label = KC_GOAL_NONE;
    o->line = line;
    o->kind = (uint8_t)kind;
    o->cpu = o->nic = 0;
    if (label) {
        kc_status s = pool_add(g, label, strlen(label), &o->label, err);
        if (s)
            return s;
    }
    if (index)
        *index = g->nops;
    g->nops++;
    return KC_OK;
}

kc_status kc_goal_depend(kc_goal *g, size_t op, size_t on, int start, long line, kc_err *err)
{
    if (op >= g->nops || on >= g->nops || g->op[op].rank != g->op[on].rank)
        return kc_fail_param(err, KC_EINTERNAL, "schedule", "dependency between operations %zu and %zu of "
                             "different ranks or out of range", op, on);
    if (KCI_RESERVE(g->dep, g->cap_deps, g->ndeps + 1, 16))
        return nomem(err);
    g->dep[g->ndeps++] = (kc_goal_dep){op, on, start ? 1 : 0, line};
    return KC_OK;
}

kc_status kc_goal_set_phase(kc_goal *g, const char *name, kc_err *err)
{
    for (size_t i = 0; i < g->nphases; i++)
        if (strcmp(kc_goal_phase_name(g, (uint32_t)i), name) == 0) {
            g->cur_phase = (uint32_t)i;
            return KC_OK;
        }
    if (g->nphases >= UINT32_MAX || KCI_RESERVE(g->phase, g->cap_phases, g->nphases + 1, 16))
        return nomem(err);
    size_t off = 0;
    kc_status s = pool_add(g, name, strlen(name), &off, err);
    if (s)
        return s;
    g->phase[g->nphases] = off;
    g->cur_phase = (uint32_t)g->nphases++;
    return KC_OK;
}

kc_status kc_goal_remap(kc_goal *g, const uint32_t *to_rank, kc_err *err)
{
    uint32_t p = g->num_ranks;
    unsigned char *seen = calloc(p ? p : 1, 1);
    if (!seen)
        return nomem(err);
    for (uint32_t r = 0; r < p; r++) {
        if (to_rank[r] >= p || seen[to_rank[r]]) {
            free(seen);
            return kc_fail_param(err, KC_EINVAL, "mapping", "the mapping is not a permutation of 0..%u "
                                 "(entry %u is %u)", p - 1, r, to_rank[r]);
        }
        seen[to_rank[r]] = 1;
    }
    free(seen);
    for (size_t i = 0; i < g->nops; i++) {
        kc_goal_op *o = &g->op[i];
        if (o->rank < p)
            o->rank = to_rank[o->rank];
        if (o->kind != KC_GOAL_CALC && o->peer >= 0 && o->peer < (int64_t)p)
            o->peer = to_rank[o->peer];
    }
    return KC_OK;
}

/* ---- Writer ---- */

/* The operations of each rank in index order: first[r]..first[r+1] in ord. */
kc_status kci_goal_by_rank(const kc_goal *g, size_t **first, size_t **ord, kc_err *err)
{
    uint32_t p = g->num_ranks;
    size_t *f = calloc((size_t)p + 2, sizeof *f), *o = malloc((g->nops ? g->nops : 1) * sizeof *o);
    if (!f || !o) {
        free(f);
        free(o);
        return nomem(err);
    }
    for (size_t i = 0; i < g->nops; i++)
        if (g->op[i].rank < p)
            f[g->op[i].rank + 2]++;
    for (uint32_t r = 0; r < p; r++)
        f[r + 2] += f[r + 1];
    for (size_t i = 0; i < g->nops; i++)
        if (g->op[i].rank < p)
            o[f[g->op[i].rank + 1]++] = i;
    *first = f;
    *ord = o;
    return KC_OK;
}

/* What kc_goal_write needs besides the goal: the operations and the
 * dependencies of each rank in index order, and the label numbers. */
typedef struct goal_writer {
    const kc_goal *g;
    FILE *out;
    size_t *first, *ord;   /* operations of rank r: ord[first[r]..first[r+1]) */
    size_t *num;           /* per operation: its position in its rank, from 1 */
    unsigned char *gen;    /* per rank: an unlabelled operation, so labels l<num> */
    size_t *dfirst, *dord; /* dependencies of rank r (of its op): dord[dfirst[r]..dfirst[r+1]) */
} goal_writer;

/* Frees writer_setup's tables (those not allocated are NULL). */
static void writer_free(goal_writer *w)
{
    free(w->first), free(w->ord), free(w->num), free(w->gen), free(w->dfirst), free(w->dord);
}

/* Fills w's tables from g: O(nops + ndeps + num_ranks). Returns KC_OK or
 * ENOMEM (w freed). */
static kc_status writer_setup(goal_writer *w, const kc_goal *g, FILE *out, kc_err *err)
{
    memset(w, 0, sizeof *w);
    w->g = g;
    w->out = out;
    kc_status s = kci_goal_by_rank(g, &w->first, &w->ord, err);
    if (s)
        return s;
    /* Label numbers for ranks with an unlabelled operation: l<position>. */
    w->num = malloc((g->nops ? g->nops : 1) * sizeof *w->num);
    w->gen = calloc((size_t)g->num_ranks + 1, 1);
    /* Dependencies are written after the operations of their rank. */
    w->dfirst = calloc((size_t)g->num_ranks + 2, sizeof *w->dfirst);
    w->dord = malloc((g->ndeps ? g->ndeps : 1) * sizeof *w->dord);
    if (!w->num || !w->gen || !w->dfirst || !w->dord) {
        writer_free(w);
        return nomem(err);
    }
    for (uint32_t r = 0; r < g->num_ranks; r++)
        for (size_t k = w->first[r]; k < w->first[r + 1]; k++) {
            w->num[w->ord[k]] = k - w->first[r] + 1;
            if (g->op[w->ord[k]].label == KC_GOAL_NONE)
                w->gen[r] = 1;
        }
    for (size_t i = 0; i < g->ndeps; i++)
        if (g->op[g->dep[i].op].rank < g->num_ranks)
            w->dfirst[g->op[g->dep[i].op].rank + 2]++;
    for (uint32_t r = 0; r < g->num_ranks; r++)
        w->dfirst[r + 2] += w->dfirst[r + 1];
    for (size_t i = 0; i < g->ndeps; i++)
        if (g->op[g->dep[i].op].rank < g->num_ranks)
            w->dord[w->dfirst[g->op[g->dep[i].op].rank + 1]++] = i;
    return KC_OK;
}

/* One operation line of rank r: its label, kind, amount, peer, tag and
 * placement. */
static void write_op(const goal_writer *w, uint32_t r, size_t i)
{
    const kc_goal *g = w->g;
    FILE *out = w->out;
    const kc_goal_op *o = &g->op[i];
    if (w->gen[r])
        fprintf(out, "l%zu: ", w->num[i]);
    else
        fprintf(out, "%s: ", g->text + o->label);
    if (o->kind == KC_GOAL_CALC)
        fprintf(out, "calc %llu", (unsigned long long)o->amount);
    else
        fprintf(out, "%s %llub %s %lld tag %lld", kc_names_name(&kc_goal_kind_names, o->kind),
                (unsigned long long)o->amount, o->kind == KC_GOAL_SEND ? "to" : "from", (long long)o->peer,
                (long long)o->tag);
    if (o->cpu)
        fprintf(out, " cpu %u", (unsigned)o->cpu);
    if (o->nic && o->kind != KC_GOAL_CALC)
        fprintf(out, " nic %u", (unsigned)o->nic);
    fputc('\n', out);
}

/* The block of rank r: its operations (with a phase comment where the
 * phase changes), then its dependencies. */
static void write_rank(const goal_writer *w, uint32_t r)
{
    const kc_goal *g = w->g;
    FILE *out = w->out;
    fprintf(out, "\nrank %u {\n", r);
    uint32_t phase = 0;
    for (size_t k = w->first[r]; k < w->first[r + 1]; k++) {
        const kc_goal_op *o = &g->op[w->ord[k]];
        if (o->phase != phase) {
            phase = o->phase;
            fprintf(out, "// kcube-phase %s\n", kc_goal_phase_name(g, phase));
        }
        write_op(w, r, w->ord[k]);
    }
    for (size_t k = w->dfirst[r]; k < w->dfirst[r + 1]; k++) {
        const kc_goal_dep *d = &g->dep[w->dord[k]];
        const char *kw = d->start ? "irequires" : "requires";
        if (w->gen[r])
            fprintf(out, "l%zu %s l%zu\n", w->num[d->op], kw, w->num[d->on]);
        else
            fprintf(out, "%s %s %s\n", g->text + g->op[d->op].label, kw, g->text + g->op[d->on].label);
    }
    fprintf(out, "}\n");
}

kc_status kc_goal_write(const kc_goal *g, FILE *out, kc_err *err)
{
    goal_writer w;
    kc_status s = writer_setup(&w, g, out, err);
    if (s)
        return s;
    fprintf(out, "num_ranks %u\n", g->num_ranks);
    for (uint32_t r = 0; r < g->num_ranks; r++)
        write_rank(&w, r);
    writer_free(&w);
    if (fflush(out) != 0 || ferror(out))
        return kc_fail_param(err, KC_EIO, "schedule", "cannot write the schedule");
    return KC_OK;
}
