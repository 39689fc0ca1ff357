/* sim_random.c - see sim_random.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "sim_random.h"

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
    c->process = kc_rng_below(rng, 3) ? KC_INJECT_POISSON : KC_INJECT_BERNOULLI;
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
