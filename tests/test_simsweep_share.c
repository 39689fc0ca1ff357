/* kc_simsweep_share without MPI: P threads stand for P
 * processes, each sweeping its share (i % P == part) of the same loads, and
 * an exchange through shared memory and a barrier. Every part must end with
 * the points, saturation figures and end of the one-process sweep: stopping
 * at saturation, every point (no stop), more parts than points. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kcube/simscenario.h"
#include "kcube/simsweep.h"

#define MAXP 8

typedef struct group {
    int parts;
    pthread_barrier_t bar;
    kc_simsweep_exchange *x[MAXP]; /* each part's arrays, seen by the others */
    int calls[MAXP];
} group;

typedef struct member {
    group *g;
    int part;
    kc_simsweep_share share;
    const kc_simscenario *sc;
    const kc_simconfig *cfg;
    kc_simsweep_opts opts;
    kc_simsweep out;
    kc_status st;
} member;

/* Agree on the lowest end; copy every point up to it from its owner. */
static kc_status exchange(void *ctx, kc_simsweep_exchange *x, kc_err *err)
{
    member *m = ctx;
    group *g = m->g;
    (void)err;
    g->x[m->part] = x;
    g->calls[m->part]++;
    pthread_barrier_wait(&g->bar);
    int end = x->end;
    for (int p = 0; p < g->parts; p++)
        end = g->x[p]->end < end ? g->x[p]->end : end;
    for (int i = 0; i <= end && i < x->count; i++) {
        int owner = i % g->parts;
        if (owner == m->part)
            continue;
        const kc_simsweep_exchange *o = g->x[owner];
        x->status[i] = o->status[i];
        x->errs[i] = o->errs[i];
        x->points[i] = o->points[i];
        if (o->points[i].link_flits) {
            x->points[i].link_flits = malloc(x->link_flits * sizeof(uint64_t));
            memcpy(x->points[i].link_flits, o->points[i].link_flits, x->link_flits * sizeof(uint64_t));
        }
    }
    pthread_barrier_wait(&g->bar); /* the owners' arrays stay until everyone has copied */
    x->end = end;
    return KC_OK;
}

static void *run_member(void *arg)
{
    member *m = arg;
    kc_err err;
    m->st = kc_sim_sweep(&m->sc->net, &m->sc->route, &m->sc->traffic, m->cfg, &m->opts, &m->out, &err);
    return NULL;
}

static void same_sweep(const kc_simsweep *a, const kc_simsweep *b, size_t links)
{
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->saturated, b->saturated);
    assert_true(a->saturation_throughput == b->saturation_throughput);
    assert_true(a->saturation_source_min == b->saturation_source_min);
    for (int i = 0; i < a->count; i++) {
        kc_simresult p = a->points[i], q = b->points[i];
        assert_true(p.offered == q.offered && p.throughput == q.throughput && p.latency_avg == q.latency_avg);
        assert_true(p.latency_p99 == q.latency_p99 && p.sustainable == q.sustainable);
        assert_true(p.messages == q.messages && p.link_traversals == q.link_traversals && p.cycles == q.cycles);
        assert_int_equal(p.link_flits != NULL, q.link_flits != NULL);
        if (p.link_flits)
            assert_memory_equal(p.link_flits, q.link_flits, links * sizeof *p.link_flits);
    }
}

/* The sweep on one process, then shared by `parts` threads: the same everywhere. */
static void check_shared(const char *pattern, const double *loads, int count, int stop, int util, int parts)
{
    kc_err err;
    kc_simspec sp;
    kc_simspec_default(&sp);
    sp.n = 5;
    sp.pattern = pattern;
    kc_simscenario sc;
    assert_int_equal(kc_simscenario_build(&sc, &sp, &err), KC_OK);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.warmup = 200;
    c.measure = 800;
    c.seed = 21;
    c.channel_util = util;
    kc_simsweep one;
    kc_simsweep_opts o = {loads, count, 2, stop, NULL, NULL};
    assert_int_equal(kc_sim_sweep(&sc.net, &sc.route, &sc.traffic, &c, &o, &one, &err), KC_OK);
    size_t links = sc.net.net_channels / (uint32_t)sc.net.vcs + 1;
    if (stop && count > 2)
        assert_true(one.saturated && one.count < count); /* the case worth checking */

    group g = {.parts = parts};
    pthread_barrier_init(&g.bar, NULL, (unsigned)parts);
    member m[MAXP];
    pthread_t tid[MAXP];
    for (int p = 0; p < parts; p++) {
        m[p] = (member){&g, p, {p, parts, exchange, &m[p]}, &sc, &c, o, {0}, KC_OK};
        m[p].opts.share = &m[p].share;
        m[p].opts.threads = 1 + p % 2;
        assert_int_equal(pthread_create(&tid[p], NULL, run_member, &m[p]), 0);
    }
    for (int p = 0; p < parts; p++)
        pthread_join(tid[p], NULL);
    for (int p = 0; p < parts; p++) {
        assert_int_equal(m[p].st, KC_OK);
        assert_int_equal(g.calls[p], 1);
        same_sweep(&one, &m[p].out, links);
        kc_simsweep_free(&m[p].out);
    }
    pthread_barrier_destroy(&g.bar);
    kc_simsweep_free(&one);
    kc_simscenario_free(&sc);
}

static void test_stops_at_saturation(void **state)
{
    (void)state;
    double loads[12];
    for (int i = 0; i < 12; i++)
        loads[i] = 0.1 * (i + 1);
    for (int parts = 2; parts <= 4; parts++)
        check_shared("bit-reverse", loads, 12, 1, 0, parts);
}

static void test_every_point(void **state)
{
    (void)state;
    double loads[7] = {0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9};
    check_shared("uniform", loads, 7, 0, 1, 3);
}

static void test_more_parts_than_points(void **state)
{
    (void)state;
    double loads[2] = {0.1, 0.2};
    check_shared("uniform", loads, 2, 1, 0, 5);
}

static void test_bad_share(void **state)
{
    (void)state;
    kc_err err;
    double loads[1] = {0.1};
    kc_simsweep out;
    kc_simsweep_share s = {2, 2, exchange, NULL};
    kc_simsweep_opts o = {loads, 1, 1, 1, NULL, &s};
    assert_int_equal(kc_sim_sweep(NULL, NULL, NULL, NULL, &o, &out, &err), KC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stops_at_saturation),
        cmocka_unit_test(test_every_point),
        cmocka_unit_test(test_more_parts_than_points),
        cmocka_unit_test(test_bad_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
