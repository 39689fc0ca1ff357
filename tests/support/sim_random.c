/* sim_random.c - see sim_random.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "sim/sim_internal.h"
#include "sim_random.h"

void kc_test_sim_uniform_cube(kc_simscenario *sc, int n)
{
    kc_err err;
    kc_simspec sp;
    kc_simspec_default(&sp);
    sp.n = n;
    sp.pattern = "uniform";
    assert_int_equal(kc_simscenario_build(sc, &sp, &err), KC_OK);
}

void kc_test_sim_random_net(kc_rng *rng, int n_span, kc_simnet *net, kc_simroute *route, kc_simconfig *c)
{
    kc_err err;
    int kind = (int)kc_rng_below(rng, 7), k = 2, n = 3 + (int)kc_rng_below(rng, (uint64_t)n_span), vcs = 1;
    kc_simtopo topo = KC_SIM_HYPERCUBE;
    *route = (kc_simroute){KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    c->vc_independent = -1;
    switch (kind) {
    case 0:
        break;
    case 1:
        route->algo = KC_ROUTE_PCUBE;
        break;
    case 2:
        route->algo = KC_ROUTE_DUATO; /* its VCs must not take turns for the trains */
        vcs = 2 + (int)kc_rng_below(rng, 2);
        c->vc_independent = 1;
        break;
    case 3:
        route->algo = KC_ROUTE_LIMIN;
        break;
    case 4:
        topo = KC_SIM_TORUS, k = 3 + (int)kc_rng_below(rng, 4), n = 2 + (int)kc_rng_below(rng, 2), vcs = 2;
        *route = (kc_simroute){KC_ROUTE_DOR, kc_rng_below(rng, 2) ? KC_VC_HIGHLOW : KC_VC_DATELINE,
                               kc_rng_below(rng, 2) ? KC_TIE_PLUS : KC_TIE_SPLIT};
        break;
    case 5:
        topo = KC_SIM_TORUS, k = 3 + (int)kc_rng_below(rng, 3), n = 2, vcs = 2;
        *route = (kc_simroute){KC_ROUTE_DOR, KC_VC_NONE, KC_TIE_PLUS}; /* may deadlock: both runs must agree */
        break;
    default:
        topo = KC_SIM_MESH, k = 3 + (int)kc_rng_below(rng, 3), n = 2, vcs = 1 + (int)kc_rng_below(rng, 2);
        *route = (kc_simroute){KC_ROUTE_DOR, KC_VC_NONE, KC_TIE_PLUS};
        c->vc_independent = vcs > 1 ? 1 : -1;
        break;
    }
    int inj = 1 + (int)kc_rng_below(rng, 3) / 2, ej = 1 + (int)kc_rng_below(rng, 3) / 2;
    assert_int_equal(kc_simnet_init(net, topo, k, n, vcs, inj, ej, 1, &err), KC_OK);
    c->route_delay = (int)kc_rng_below(rng, 7) / 3;
    c->watchdog = 200;
}

void kc_test_sim_random_load(kc_rng *rng, const kc_simnet *net, uint64_t seed, const kc_test_sim_windows *w,
                             kc_simconfig *c, kc_simtraffic *tr)
{
    kc_err err;
    c->msg_flits = 1 + (int)kc_rng_below(rng, 32);
    c->load = 0.02 + 0.6 * kc_rng_unit(rng);
    static const kc_siminject proc[] = {KC_INJECT_POISSON,   KC_INJECT_POISSON,   KC_INJECT_POISSON,
                                        KC_INJECT_POISSON,   KC_INJECT_BERNOULLI, KC_INJECT_BERNOULLI_GAPS};
    c->process = proc[kc_rng_below(rng, 6)];
    c->seed = seed;
    c->warmup = w->warmup + (int64_t)kc_rng_below(rng, (uint64_t)w->warmup_span);
    c->measure = w->measure + (int64_t)kc_rng_below(rng, (uint64_t)w->measure_span);
    c->drain = (int64_t)kc_rng_below(rng, (uint64_t)w->drain_span);
    c->channel_util = (int)kc_rng_below(rng, 3) > 0;
    c->oneshot = kc_rng_below(rng, 6) == 0;
    c->queue_cap = 4 + (double)kc_rng_below(rng, 60);
    static const char *const pat[] = {"bit-reverse", "complement", "transpose"};
    if (c->oneshot) {
        uint32_t m = net->nodes * (1 + (uint32_t)kc_rng_below(rng, 3));
        uint32_t *s = malloc(m * sizeof *s), *d = malloc(m * sizeof *d);
        assert_non_null(s);
        assert_non_null(d);
        for (uint32_t i = 0; i < m; i++) {
            s[i] = i % net->nodes;
            d[i] = (uint32_t)kc_rng_below(rng, net->nodes);
        }
        assert_int_equal(kc_simtraffic_pairs(tr, net->nodes, s, d, m, NULL, &err), KC_OK);
        free(s);
        free(d);
    } else if (net->topo == KC_SIM_HYPERCUBE && kc_rng_below(rng, 2)) {
        assert_int_equal(kc_simtraffic_digits(tr, 2, net->n, pat[kc_rng_below(rng, net->n % 2 ? 2 : 3)], NULL, &err),
                         KC_OK);
    } else {
        assert_int_equal(kc_simtraffic_uniform(tr, net->nodes, NULL, &err), KC_OK);
    }
}

void kc_test_sim_deadlock_ring(int k, int len, kc_simnet *net, kc_simroute *route, kc_simtraffic *tr,
                               kc_simconfig *c)
{
    kc_err err;
    assert_true(k >= 2 && k <= 9);
    assert_int_equal(kc_simnet_init(net, KC_SIM_TORUS, k, 1, 1, 1, 1, 1, &err), KC_OK);
    *route = (kc_simroute){KC_ROUTE_DOR, KC_VC_NONE, KC_TIE_PLUS};
    uint32_t src[2 * 9], dst[2 * 9], m = 0;
    for (uint32_t x = 0; x < (uint32_t)k; x++) {
        src[m] = x, dst[m++] = (x + (uint32_t)k / 2) % (uint32_t)k;
        if (x % 2)
            src[m] = x, dst[m++] = (x + 1) % (uint32_t)k;
    }
    assert_int_equal(kc_simtraffic_pairs(tr, net->nodes, src, dst, m, NULL, &err), KC_OK);
    kc_simconfig_default(c);
    c->oneshot = 1;
    c->msg_flits = len;
    c->watchdog = 40;
    c->route_delay = k % 2;
}

int kc_test_sim_ring_pair(int k, int len, int depth, int switch_delay, int link_latency, const char *b_name, int cfg)
{
    kc_err err;
    kc_simnet net;
    kc_simroute route;
    kc_simtraffic tr;
    kc_simconfig c;
    kc_test_sim_deadlock_ring(k, len, &net, &route, &tr, &c);
    if (depth != 1) {
        kc_simnet_free(&net);
        assert_int_equal(kc_simnet_init(&net, KC_SIM_TORUS, k, 1, 1, 1, 1, depth, &err), KC_OK);
    }
    c.switch_delay = switch_delay;
    c.link_latency = link_latency;
    kc_simresult r[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(kci_sim_run_loop(&net, &route, &tr, &c, 1 - i, &r[i], &err), KC_OK);
    kc_test_sim_expect_same(&r[0], &r[1], net.net_channels + 1, NULL, 0, NULL, 0, "flit loop", b_name, cfg);
    int deadlock = r[0].deadlock;
    for (int i = 0; i < 2; i++)
        kc_simresult_free(&r[i]);
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
    return deadlock;
}

void kc_test_sim_expect_same(const kc_simresult *a, const kc_simresult *b, size_t links, const kc_simarrival *la,
                             size_t na, const kc_simarrival *lb, size_t nb, const char *a_name, const char *b_name,
                             int cfg)
{
    if (a->messages != b->messages || a->latency_avg != b->latency_avg || a->latency_p99 != b->latency_p99 ||
        a->network_latency_avg != b->network_latency_avg || a->cycles != b->cycles ||
        a->link_traversals != b->link_traversals || a->completion != b->completion ||
        a->flits_generated != b->flits_generated || a->flits_delivered != b->flits_delivered ||
        a->flits_queued != b->flits_queued || a->flits_in_network != b->flits_in_network ||
        a->deadlock != b->deadlock || a->cycle_len != b->cycle_len || a->sustainable != b->sustainable ||
        a->generated != b->generated || a->throughput != b->throughput || a->queue_avg != b->queue_avg ||
        a->offered != b->offered || a->sources_judged != b->sources_judged ||
        a->sources_behind != b->sources_behind || a->source_ratio_min != b->source_ratio_min ||
        a->source_growth_max != b->source_growth_max || a->source_worst != b->source_worst)
        fail_msg("configuration %d: %s %llu messages, latency %.6f, %lld cycles, %llu traversals, "
                 "%llu in network, deadlock %d; %s %llu, %.6f, %lld, %llu, %llu, %d",
                 cfg, a_name, (unsigned long long)a->messages, a->latency_avg, (long long)a->cycles,
                 (unsigned long long)a->link_traversals, (unsigned long long)a->flits_in_network, a->deadlock,
                 b_name, (unsigned long long)b->messages, b->latency_avg, (long long)b->cycles,
                 (unsigned long long)b->link_traversals, (unsigned long long)b->flits_in_network, b->deadlock);
    assert_memory_equal(a->cycle, b->cycle, (size_t)a->cycle_len * sizeof *a->cycle);
    if (a->link_flits || b->link_flits) {
        assert_non_null(a->link_flits);
        assert_non_null(b->link_flits);
        for (size_t l = 0; l < links; l++)
            if (a->link_flits[l] != b->link_flits[l])
                fail_msg("configuration %d: link %zu carried %llu flits (%s), %llu (%s)", cfg, l,
                         (unsigned long long)a->link_flits[l], a_name, (unsigned long long)b->link_flits[l], b_name);
    }
    if (!la && !lb)
        return;
    if (na != nb)
        fail_msg("configuration %d: %zu deliveries (%s), %zu (%s)", cfg, na, a_name, nb, b_name);
    for (size_t j = 0; j < na; j++)
        if (la[j].id != lb[j].id || la[j].cycle != lb[j].cycle)
            fail_msg("configuration %d: delivery %zu: message %u at %lld (%s), %u at %lld (%s)", cfg, j, la[j].id,
                     (long long)la[j].cycle, a_name, lb[j].id, (long long)lb[j].cycle, b_name);
}

void kc_test_sim_random_deep_net(kc_rng *rng, int n_span, kc_simnet *net, kc_simroute *route, kc_simconfig *c)
{
    kc_err err;
    int kind = (int)kc_rng_below(rng, 5), k = 2, n = 2 + (int)kc_rng_below(rng, (uint64_t)n_span);
    int vcs = 1 + (int)kc_rng_below(rng, 3);
    kc_simtopo topo = KC_SIM_HYPERCUBE;
    *route = (kc_simroute){KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    if (kind == 1) {
        route->algo = KC_ROUTE_DUATO;
        vcs = 2 + (int)kc_rng_below(rng, 2);
    } else if (kind == 2) {
        topo = KC_SIM_TORUS, k = 3 + (int)kc_rng_below(rng, 4), n = 1 + (int)kc_rng_below(rng, 2), vcs = 2;
        *route = (kc_simroute){KC_ROUTE_DOR, kc_rng_below(rng, 2) ? KC_VC_HIGHLOW : KC_VC_DATELINE,
                               kc_rng_below(rng, 2) ? KC_TIE_PLUS : KC_TIE_SPLIT};
    } else if (kind == 3) {
        topo = KC_SIM_TORUS, k = 3 + (int)kc_rng_below(rng, 3), n = 1 + (int)kc_rng_below(rng, 2), vcs = 1;
        *route = (kc_simroute){KC_ROUTE_DOR, KC_VC_NONE, KC_TIE_PLUS}; /* may deadlock: both runs must agree */
    } else if (kind == 4) {
        topo = KC_SIM_MESH, k = 3 + (int)kc_rng_below(rng, 3), n = 2;
        *route = (kc_simroute){KC_ROUTE_DOR, KC_VC_NONE, KC_TIE_PLUS};
    }
    int inj = 1 + (int)kc_rng_below(rng, 3) / 2, ej = 1 + (int)kc_rng_below(rng, 3) / 2;
    int depth = 1 + (int)kc_rng_below(rng, 16);
    assert_int_equal(kc_simnet_init(net, topo, k, n, vcs, inj, ej, depth, &err), KC_OK);
    c->vc_independent = (int)kc_rng_below(rng, 3) - 1; /* automatic, shared, independent */
    c->route_delay = (int)kc_rng_below(rng, 4);
    c->switch_delay = (int)kc_rng_below(rng, 4);
    c->link_latency = 1 + (int)kc_rng_below(rng, 3);
    c->watchdog = 200;
}

void kc_test_sim_random_setup(kc_rng *rng, uint64_t seed, int deep, int n_span, kc_simnet *net, kc_simroute *route,
                              kc_simconfig *c)
{
    kc_rng_seed(rng, seed);
    kc_simconfig_default(c);
    if (deep)
        kc_test_sim_random_deep_net(rng, n_span, net, route, c);
    else
        kc_test_sim_random_net(rng, n_span, net, route, c);
}

size_t kc_test_sim_step_pair(kc_simdrive *d[2], int64_t t, const char *b_name, int cfg)
{
    kc_err err;
    const kc_simarrival *a[2];
    size_t na[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(kc_simdrive_step(d[i], &a[i], &na[i], &err), KC_OK);
    if (na[0] != na[1])
        fail_msg("configuration %d, cycle %lld: %zu deliveries (flit loop), %zu (%s)", cfg, (long long)t, na[0], na[1],
                 b_name);
    for (size_t j = 0; j < na[0]; j++)
        if (a[0][j].id != a[1][j].id || a[0][j].cycle != a[1][j].cycle)
            fail_msg("configuration %d: delivery %zu of cycle %lld: message %u at %lld (flit loop), "
                     "%u at %lld (%s)", cfg, j, (long long)t, a[0][j].id, (long long)a[0][j].cycle, a[1][j].id,
                     (long long)a[1][j].cycle, b_name);
    return na[0];
}

int kc_test_sim_drive_pair(kc_rng *rng, const kc_simnet *net, const kc_simroute *route, const kc_simconfig *c,
                           double rate_span, const char *b_name, int cfg)
{
    kc_err err;
    kc_simdrive *d[2];
    assert_int_equal(kci_simdrive_new_loop(net, route, c, 1, &d[0], &err), KC_OK);
    assert_int_equal(kci_simdrive_new_loop(net, route, c, 0, &d[1], &err), KC_OK);
    double rate = 0.002 + rate_span * kc_rng_unit(rng); /* messages per node per cycle */
    uint32_t maxlen = 1 + (uint32_t)kc_rng_below(rng, 40), id = 0, delivered = 0;
    int64_t send_until = 200 + (int64_t)kc_rng_below(rng, 400);
    for (int64_t t = 0; t < 20000; t++) {
        if (t < send_until)
            for (uint32_t x = 0; x < net->nodes; x++)
                if (kc_rng_unit(rng) < rate) {
                    uint32_t dst = (uint32_t)kc_rng_below(rng, net->nodes);
                    uint32_t len = 1 + (uint32_t)kc_rng_below(rng, maxlen);
                    for (int i = 0; i < 2; i++)
                        assert_int_equal(kc_simdrive_send(d[i], x, dst, len, id, &err), KC_OK);
                    id++;
                }
        delivered += (uint32_t)kc_test_sim_step_pair(d, t, b_name, cfg);
        assert_int_equal(kc_simdrive_deadlock(d[0]), kc_simdrive_deadlock(d[1]));
        if (kc_simdrive_deadlock(d[0]) || (t >= send_until && !kc_simdrive_busy(d[0])))
            break;
        assert_int_equal(kc_simdrive_busy(d[0]), kc_simdrive_busy(d[1]));
    }
    int deadlock = kc_simdrive_deadlock(d[0]);
    kc_simresult r[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(kc_simdrive_finish(d[i], &r[i], &err), KC_OK);
    kc_test_sim_expect_same(&r[0], &r[1], net->net_channels / (uint32_t)net->vcs + 1, NULL, 0, NULL, 0, "flit loop",
                            b_name, cfg);
    for (int i = 0; i < 2; i++) {
        kc_simresult_free(&r[i]);
        kc_simdrive_free(d[i]);
    }
    return delivered > 0 || deadlock;
}
