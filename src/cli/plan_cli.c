/* Shared resolve and render pieces of analyze, map and export (plan_cli.h). */
#include "plan_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "budget_rates.h"
#include "core/size.h"
#include "network_cli.h"
#include "options.h"
#include "text.h"
#include "kcube/contention.h"
#include "kcube/plan.h"

/* One communication on the ranks' space t (kc_comm_space); `general` when
 * that space is not the network itself (its `slots`). */
static int build_comm(const cli_args *a, const kc_topology *t, int general, uint64_t slots, const cli_comm_spec *sp,
                      int scatter, kc_comm *c)
{
    kc_err err = {0};
    if (sp->pattern && scatter) {
        cli_quoted q;
        fprintf(stderr, "kcube: --scatter does not apply to pattern %s (it reads a --matrix as a scatter)\n",
                cli_quote(&q, sp->pattern));
        return CLI_EXIT_USAGE;
    }
    kc_status s = sp->pattern ? kc_comm_named(c, t, sp->pattern, &err)
                              : kc_comm_parse(c, t, sp->matrix, sp->vector, scatter, &err);
    if (s && general) { /* say where the digit count comes from: the ranks, not --n */
        size_t len = strlen(err.msg);
        snprintf(err.msg + len, sizeof err.msg - len, " (rank r on slot r: %llu slots are %d digits over GF(%d))",
                 (unsigned long long)slots, t->n, t->k);
    }
    return s ? cli_report(a, &err) : 0;
}

int plan_gate(const cli_args *a, const plan_input *in, int exact, double seconds, double bytes)
{
    double N = (double)in->topo.nodes, m = in->count > 0 ? in->count : 1;
    /* past the exact counters' range the library refuses, saying why */
    int binary = in->topo.k == 2 && in->topo.kind != KC_TOPO_MESH;
    if (in->topo.nodes > (1ULL << (binary ? KC_EXACT_MAX_N : KC_PLAN_EXACT_MAX_BITS)))
        exact = 0;
    if (exact && binary) {
        /* the windowed counter (kc_contention_exact_estimate), one
         * communication after another */
        uint64_t b, most = 0;
        double s;
        for (int r = 0; r < in->count; r++) {
            if (!in->comms[r].has_lcc) { /* uniform traffic: the general counter */
                seconds += CLI_RATE_EXACT_COUNT * N * in->topo.n;
                most = 20 * N > most ? (uint64_t)(20 * N) : most;
                continue;
            }
            kc_contention_exact_estimate(in->topo.n, (int)in->comms[r].lcc.kind, 2, &b, &s);
            seconds += s;
            most = b > most ? b : most;
        }
        bytes += (double)most;
    } else if (exact) {
        seconds += CLI_RATE_EXACT_COUNT * N * in->topo.n * m;
        bytes += 20 * N;
    }
    bytes += CLI_BASE_BYTES;
    char what[128], nb[32];
    snprintf(what, sizeof what, "%s%s on %s nodes (%d communication%s)", a->path, exact ? " with the exact count" : "",
             cli_budget_count(N, nb, sizeof nb), in->count, in->count == 1 ? "" : "s");
    return cli_budget_check(a, what, seconds, kci_clamp_u64(bytes));
}

int plan_resolve(const cli_args *a, plan_comms want, plan_input *in) { return plan_resolve_n(a, want, 0, in); }

int plan_resolve_n(const cli_args *a, plan_comms want, int inferred_n, plan_input *in)
{
    int single = want == PLAN_COMMS_ONE;
    memset(in, 0, sizeof *in);
    int r = cli_format(a, &in->fmt);
    cli_network net;
    if (!r && !(r = cli_network_resolve_n(a, inferred_n, &net))) {
        in->topo = net.topo;
        in->alloc = net.alloc;
    }
    if (r)
        return r;
    cli_comms *l = calloc(1, sizeof *l);
    if (!l)
        return cli_error("out of memory");
    cli_comms_init(l, a->path, single, 1);
    r = cli_comm_list(a, l);
    if (!r && !l->count && want != PLAN_COMMS_OPTIONAL)
        r = cli_error("%s needs %s", a->path, single ? "--pattern NAME or --matrix M"
                                                        : "at least one --pattern or --matrix");
    if (!r && l->count && !(in->comms = calloc((size_t)l->count, sizeof *in->comms)))
        r = cli_error("out of memory");
    kc_topology space; /* a communication lives on the ranks: slot r holds rank r (kc_comm_space) */
    kc_err err = {0};
    if (!r && l->count && kc_comm_space(&in->topo, &space, &err))
        r = cli_report(a, &err);
    for (int i = 0; !r && i < l->count; i++, in->count++)
        r = build_comm(a, &space, kc_topology_need_gf(&in->topo, "", NULL) != KC_OK,
                       kc_topology_slots(&in->topo), &l->spec[i], l->scatter[i], &in->comms[i]);
    free(l);
    return r;
}

void plan_input_free(plan_input *in)
{
    kc_alloc_free(&in->alloc);
    in->topo.alloc = NULL;
    in->topo.alloc_count = 0;
    free(in->comms);
    in->comms = NULL;
    in->count = 0;
}

void plan_json_topology(cJSON *o, const kc_topology *t)
{
    cli_json_add_int(o, "k", t->k);
    cli_json_add_int(o, "n", t->n);
    if (t->nodes == UINT64_MAX) /* 2^64: the 64-cube (kc_topology saturates it) */
        cJSON_AddRawToObject(o, "nodes", "18446744073709551616"); /* exact, one past uint64_t */
    else
        cJSON_AddItemToObject(o, "nodes", cli_json_u64(t->nodes));
    cJSON_AddStringToObject(o, "topology", kc_names_name(&kc_topo_kind_names, t->kind));
    if (t->kind == KC_TOPO_TORUS)
        cJSON_AddStringToObject(o, "tie", kc_tie_name(t->tie));
    if (t->k)
        cli_json_add_int(o, "polynomial", kc_gf_polynomial(t->k));
    /* the networks beyond the papers' say what they are (the papers' keep
     * their fields as they were) */
    if (!kc_topology_is_plain(t) || (t->kind == KC_TOPO_TORUS && !t->k))
        cli_network_json(o, t);
}

cJSON *plan_json_matrix(const kc_gfmat *a)
{
    cJSON *rows = cJSON_CreateArray();
    for (int i = 0; i < a->n; i++) {
        cJSON *row = cJSON_CreateArray();
        for (int j = 0; j < a->n; j++)
            cJSON_AddItemToArray(row, cli_json_i64(a->e[i][j]));
        cJSON_AddItemToArray(rows, row);
    }
    return rows;
}

cJSON *plan_json_vector(const uint8_t *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cli_json_u64(v[i]));
    return a;
}

cJSON *plan_json_link(const kc_topology *t, kc_link l, int dir)
{
    cJSON *c = cJSON_CreateObject();
    cli_json_add_int(c, "dim", l.dim);
    if (dir)
        cli_json_add_int(c, "dir", l.dir);
    cJSON_AddItemToObject(c, "from", cli_json_u64(l.from));
    cJSON_AddItemToObject(c, "to", cli_json_u64(kc_topology_link_to(t, l)));
    return c;
}

const char *plan_gfmat_text(const kc_gfmat *a, int k, char *buf, size_t size)
{
    if (k != 2 || size < (size_t)a->n * (size_t)(a->n + 1) + 1)
        return kc_gfmat_format(a, buf, size);
    char *p = buf; /* bit rows, as --matrix takes them on the hypercube */
    for (int i = 0; i < a->n; i++) {
        if (i)
            *p++ = ';';
        for (int j = 0; j < a->n; j++)
            *p++ = (char)('0' + a->e[i][j]);
    }
    *p = '\0';
    return buf;
}

const char *plan_matrix_text(const kc_comm *c, char *buf, size_t size)
{
    return c->has_lcc ? kc_bitmat_format(&c->lcc.a, buf, size) : kc_gfmat_format(&c->t.a, buf, size);
}

const char *plan_vector_text(const kc_comm *c, char *buf, size_t size)
{
    return c->has_lcc ? kc_vec_format(c->lcc.b, c->n, buf, size) : kc_gfvec_format(c->t.b, c->n, buf, size);
}

void plan_print_dims(const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        printf("%s%llu", i ? " " : "", (unsigned long long)v[i]);
}
