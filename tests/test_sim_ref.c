/* The engine against a deliberately plain reference simulator.
 *
 * The reference keeps every flit as an object with its position on its
 * worm's path and scans all messages and flits every cycle; it implements the
 * same rules (docs/sim.md) from scratch: FIFO source queues, injection in node
 * order, first-come allocation, one flit per channel and per physical link
 * per cycle, release when the tail leaves a buffer, the timing knobs. On
 * random small one-shot workloads (several messages per source, random
 * lengths, depths, delays, networks and routings) the completion time,
 * average and p99 latency and link traversals must agree exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/rng.h"
#include "kcube/sim.h"
#include "kcube/simstats.h"

typedef struct rmsg {
    uint32_t src, dst;
    uint32_t path[64];
    int np;
    int loc[64];        /* per flit: -1 at the source, else index into path; np+ = delivered */
    uint32_t ready[64]; /* per flit: cycle from which it may leave its buffer */
    int live, created;
    long long arrival;
} rmsg;

typedef struct ref_result {
    long long completion;
    double lat_avg;
    uint32_t p99;
    uint64_t traversals;
} ref_result;

static int is_eject(const kc_simnet *net, uint32_t c) { return c >= net->net_channels + net->nodes * (uint32_t)net->inj; }

static ref_result reference(const kc_simnet *net, const kc_simroute *route, const uint32_t *src, const uint32_t *dst,
                            int count, int L, int R, int S, int W, int indep)
{
    rmsg *m = calloc((size_t)count, sizeof *m);
    int32_t *owner = malloc(net->channels * sizeof *owner);
    int *fill = calloc(net->channels, sizeof *fill);
    long long *got = malloc(net->channels * sizeof *got);    /* cycle a flit last entered */
    long long *lused = malloc(net->channels * sizeof *lused); /* per link id */
    int *order = malloc((size_t)count * sizeof *order);       /* creation order */
    assert_non_null(m);
    assert_non_null(order);
    for (uint32_t c = 0; c < net->channels; c++) {
        owner[c] = -1;
        got[c] = lused[c] = -1;
    }
    /* sources' queues: messages of a source in the given order, sources by id */
    int *queue_order = malloc((size_t)count * sizeof *queue_order), nq = 0;
    for (uint32_t x = 0; x < net->nodes; x++)
        for (int i = 0; i < count; i++)
            if (src[i] == x && src[i] != dst[i])
                queue_order[nq++] = i;
    int *taken = calloc((size_t)count, sizeof *taken);
    int created = 0, delivered = 0;
    ref_result res = {0, 0, 0, 0};
    kc_simsample lat;
    kc_simsample_init(&lat);
    uint32_t cand[KC_SIMROUTE_MAX];
    for (long long now = 0; delivered < nq; now++) {
        assert_true(now < 1000000);
        /* injection: nodes in order, their channels in order, queue heads */
        for (uint32_t x = 0; x < net->nodes; x++)
            for (int j = 0; j < net->inj; j++) {
                uint32_t c = kc_simnet_injch(net, x, j);
                if (owner[c] >= 0)
                    continue;
                int pick = -1;
                for (int q = 0; q < nq && pick < 0; q++)
                    if (!taken[queue_order[q]] && src[queue_order[q]] == x)
                        pick = queue_order[q];
                if (pick < 0)
                    continue;
                taken[pick] = 1;
                rmsg *r = &m[pick];
                r->src = src[pick];
                r->dst = dst[pick];
                r->path[0] = c;
                r->np = 1;
                for (int s = 0; s < L; s++)
                    r->loc[s] = -1;
                r->live = 1;
                owner[c] = pick;
                order[created++] = pick;
            }
        /* allocation: headers sitting at the end of their path, oldest first */
        for (;;) {
            int best = -1;
            uint64_t bkey = UINT64_MAX;
            for (int i = 0; i < created; i++) {
                rmsg *r = &m[order[i]];
                if (!r->live || r->loc[0] != r->np - 1 || is_eject(net, r->path[r->np - 1]) || r->np < 1)
                    continue;
                if (r->loc[0] < 0)
                    continue;
                uint64_t key = (uint64_t)r->ready[0] << 32 | r->path[r->np - 1];
                if ((long long)r->ready[0] + R <= now && key < bkey && !r->created) {
                    bkey = key;
                    best = order[i];
                }
            }
            if (best < 0)
                break;
            rmsg *r = &m[best];
            r->created = 1; /* tried this cycle */
            uint32_t in = r->path[r->np - 1];
            uint32_t node = in < net->net_channels ? net->next_node[in / (uint32_t)net->vcs]
                                                   : (in - net->net_channels) / (uint32_t)net->inj;
            int nc = kc_simroute_candidates(route, net, node, r->dst, in, cand);
            for (int j = 0; j < nc; j++)
                if (owner[cand[j]] < 0) {
                    owner[cand[j]] = best;
                    fill[cand[j]] = 0;
                    r->path[r->np++] = cand[j];
                    break;
                }
        }
        for (int i = 0; i < created; i++)
            m[order[i]].created = 0;
        /* movement: messages oldest first, flits header first */
        for (int i = 0; i < created; i++) {
            int id = order[i];
            rmsg *r = &m[id];
            if (!r->live)
                continue;
            for (int s = 0; s < L; s++) {
                int p = r->loc[s];
                if (p >= r->np)
                    continue; /* delivered */
                int next = p + 1;
                if (next >= r->np)
                    continue; /* no channel ahead yet */
                if (p >= 0 && (long long)r->ready[s] > now)
                    continue;
                if (s > 0 && r->loc[s - 1] == p)
                    continue; /* not the front of its buffer (or of the source) */
                uint32_t c = r->path[next];
                int ej = is_eject(net, c);
                if (got[c] == now)
                    continue;
                if (!ej && fill[c] >= net->depth)
                    continue;
                if (c < net->net_channels) {
                    uint32_t link = indep ? c : c / (uint32_t)net->vcs;
                    if (lused[link] == now)
                        continue;
                    lused[link] = now;
                    res.traversals++;
                }
                got[c] = now;
                if (p >= 0) {
                    uint32_t u = r->path[p];
                    fill[u]--;
                    if (s == L - 1)
                        owner[u] = -1;
                }
                r->loc[s] = next;
                if (ej) {
                    r->loc[s] = r->np; /* delivered */
                    if (s == L - 1) {
                        owner[c] = -1;
                        r->arrival = now + S + 1;
                        r->live = 0;
                        delivered++;
                        kc_simsample_add(&lat, (uint32_t)r->arrival);
                        if (r->arrival > res.completion)
                            res.completion = r->arrival;
                    }
                } else {
                    fill[c]++;
                    r->ready[s] = (uint32_t)(now + (c < net->net_channels ? S + W : 1));
                }
            }
        }
    }
    res.lat_avg = kc_simsample_mean(&lat);
    res.p99 = kc_simsample_quantile(&lat, 0.99);
    kc_simsample_free(&lat);
    free(m);
    free(owner);
    free(fill);
    free(got);
    free(lused);
    free(order);
    free(queue_order);
    free(taken);
    return res;
}

static void compare_random(kc_rng *rng, kc_simtopo topo, int k, int n, int vcs, kc_simroute route)
{
    kc_err err;
    int depth = 1 + (int)kc_rng_below(rng, 3);
    int inj = 1 + (int)kc_rng_below(rng, 2), ej = 1 + (int)kc_rng_below(rng, 2);
    kc_simnet net;
    assert_int_equal(kc_simnet_init(&net, topo, k, n, vcs, inj, ej, depth, &err), KC_OK);
    int count = (int)net.nodes * (1 + (int)kc_rng_below(rng, 3));
    uint32_t *s = malloc((size_t)count * sizeof *s), *d = malloc((size_t)count * sizeof *d);
    for (int i = 0; i < count; i++) {
        s[i] = (uint32_t)kc_rng_below(rng, net.nodes);
        d[i] = (uint32_t)kc_rng_below(rng, net.nodes);
    }
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.oneshot = 1;
    c.msg_flits = 1 + (int)kc_rng_below(rng, 24);
    c.route_delay = (int)kc_rng_below(rng, 3);
    c.switch_delay = (int)kc_rng_below(rng, 2);
    c.link_latency = 1 + (int)kc_rng_below(rng, 2);
    c.vc_independent = (int)kc_rng_below(rng, 2);
    kc_simtraffic tr;
    assert_int_equal(kc_simtraffic_pairs(&tr, net.nodes, s, d, (size_t)count, NULL, &err), KC_OK);
    kc_simresult res;
    assert_int_equal(kc_sim_run(&net, &route, &tr, &c, &res, &err), KC_OK);
    assert_false(res.deadlock);
    ref_result ref = reference(&net, &route, s, d, count, c.msg_flits, c.route_delay, c.switch_delay, c.link_latency,
                              c.vc_independent);
    assert_int_equal(res.completion, ref.completion);
    assert_true(res.latency_avg == ref.lat_avg);
    assert_int_equal((uint32_t)res.latency_p99, ref.p99);
    assert_int_equal(res.link_traversals, ref.traversals);
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
    free(s);
    free(d);
}

static void test_engine_matches_reference(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 4242);
    kc_simroute ec = {KC_ROUTE_ECUBE, KC_VC_NONE}, pc = {KC_ROUTE_PCUBE, KC_VC_NONE},
                du = {KC_ROUTE_DUATO, KC_VC_NONE}, hl = {KC_ROUTE_DOR, KC_VC_HIGHLOW},
                dl = {KC_ROUTE_DOR, KC_VC_DATELINE}, me = {KC_ROUTE_DOR, KC_VC_NONE};
    for (int t = 0; t < 40; t++) {
        compare_random(&rng, KC_SIM_HYPERCUBE, 2, 3 + t % 4, 1, ec);
        compare_random(&rng, KC_SIM_HYPERCUBE, 2, 3 + t % 3, 1 + t % 2, pc);
        compare_random(&rng, KC_SIM_HYPERCUBE, 2, 3 + t % 3, 2 + t % 2, du);
        compare_random(&rng, KC_SIM_TORUS, 3 + t % 3, 2, 2, hl);
        compare_random(&rng, KC_SIM_TORUS, 4, 2, 2, dl);
        compare_random(&rng, KC_SIM_MESH, 3 + t % 2, 2, 1 + t % 2, me);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_matches_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
