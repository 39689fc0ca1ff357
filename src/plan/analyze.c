/* kc_analyze: contention of one communication on any topology (kcube/plan.h). */
#include <string.h>

#include "kcube/contention.h"
#include "kcube/plan.h"
#include "plan_internal.h"

void kc_analyze_opts_default(kc_analyze_opts *o)
{
    memset(o, 0, sizeof *o);
    o->exact = KC_EXACT_AUTO;
    o->seed = 1;
}

void kc_analysis_start(kc_analysis *a, const kc_topology *t, const kc_comm *c)
{
    memset(a, 0, sizeof *a);
    a->topo = *t;
    a->n = t->n;
    a->linear = c->linear;
}

void kc_analysis_finish(kc_analysis *a)
{
    const uint64_t *v = a->exact ? a->exact_per_dim : a->formula;
    a->value = 0;
    a->value_formula = 0;
    a->value_dim = -1;
    a->agree = 1;
    for (int i = 0; i < a->n; i++) {
        if (v[i] > a->value) {
            a->value = v[i];
            a->value_dim = i;
        }
        if (a->formula[i] > a->value_formula)
            a->value_formula = a->formula[i];
        if (a->exact && a->has_formula && a->formula[i] != a->exact_per_dim[i])
            a->agree = 0;
    }
}

static kc_status analyze_binary(const kc_comm *c, int exact, const kc_analyze_opts *o, kc_analysis *a, kc_err *err)
{
    kc_contention f, x;
    kc_contention_formula(&c->lcc, &f);
    memcpy(a->formula, f.per_dim, sizeof a->formula);
    const kc_contention *w = &f;
    if (exact) {
        kc_status s = kc_contention_exact(&c->lcc, &x, o->progress, err);
        if (s)
            return s;
        memcpy(a->exact_per_dim, x.per_dim, sizeof a->exact_per_dim);
        w = &x;
    }
    for (int i = 0; i < a->n; i++)
        a->worst[i] = (kc_link){w->witness[i], i, 1};
    a->has_worst = 1;
    return KC_OK;
}

static kc_status analyze_gfk(const kc_topology *t, const kc_comm *c, int exact, const kc_analyze_opts *o,
                             kc_analysis *a, kc_err *err)
{
    kc_torus tor;
    kc_status s = kc_topology_to_torus(t, &tor, "the contention analysis", err);
    if (s)
        return s;
    if (c->linear) {
        kc_tcontention f;
        kc_tcontention_formula(&tor, &c->t, &f);
        memcpy(a->formula, f.per_dim, sizeof a->formula);
        memcpy(a->tcase, f.tcase, sizeof a->tcase);
        memcpy(a->exponent, f.exponent, sizeof a->exponent);
        a->has_cases = 1;
    }
    if (exact) {
        kc_tcontention x;
        kc_rng rng;
        kc_rng_seed(&rng, o->seed);
        if ((s = kc_tcontention_exact(&tor, &c->t, &rng, &x, o->progress, err)))
            return s;
        memcpy(a->exact_per_dim, x.per_dim, sizeof a->exact_per_dim);
        memcpy(a->worst, x.witness, sizeof a->worst);
        a->has_worst = 1;
    }
    return KC_OK;
}

kc_status kc_analyze(const kc_topology *t, const kc_comm *c, const kc_analyze_opts *opts, kc_analysis *out,
                     kc_err *err)
{
    kc_analyze_opts o;
    if (opts)
        o = *opts;
    else
        kc_analyze_opts_default(&o);
    kc_analysis_start(out, t, c);
    out->has_formula = c->linear;
    kc_status s = kci_plan_check(t, c, 1, "the contention analysis", err);
    if (s)
        return s;
    out->binary = kc_topology_is_binary(t) && c->has_lcc;
    int bits = kci_plan_bits(t);
    int limit = out->binary ? KC_EXACT_MAX_N : KC_PLAN_EXACT_MAX_BITS;
    int exact = o.exact == KC_EXACT_AUTO ? bits <= KC_PLAN_EXACT_AUTO_BITS : o.exact != 0;
    if (exact && bits > limit)
        return kc_fail_param(err, KC_ERANGE, "exact", "exact counting supports N <= 2^%d nodes, this network has 2^%d",
                             limit, bits);
    if (!c->linear && !exact)
        return kc_fail_param(err, KC_EINVAL, "exact",
                             "uniform traffic has no formula: it needs the exact count (N <= 2^%d nodes)", limit);
    out->exact = exact;
    s = out->binary ? analyze_binary(c, exact, &o, out, err) : analyze_gfk(t, c, exact, &o, out, err);
    if (s)
        return s;
    kc_analysis_finish(out);
    if (!out->agree)
        return kc_fail(err, KC_EINTERNAL, "the closed form and the exact count of %s differ", c->name);
    return KC_OK;
}
