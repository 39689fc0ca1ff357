/* li-min, the reconstruction of Li's minimal routing restriction
 * (docs/sim.md): the library's hop lists against a brute force over every
 * dimension order, an acyclic channel dependency graph on the 4-, 6- and
 * 8-cube (with e-cube and P-cube as acyclic and Duato's adaptive channels as
 * cyclic controls), seed 000's forced-path property (bit-reverse on the
 * 8-cube: exactly 8 pairs have every allowed path through channel 8 -> 0;
 * transpose and reverse-flip also force 8 pairs onto one channel),
 * minimal delivered routes, no deadlock far past saturation, and the name
 * table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/rng.h"
#include "kcube/sim.h"
#include "kcube/simscenario.h"

static const kc_simroute LIMIN = {KC_ROUTE_LIMIN, KC_VC_NONE, KC_TIE_PLUS};

static void cube(kc_simnet *net, int n, int vcs)
{
    kc_err err;
    assert_int_equal(kc_simnet_init(net, KC_SIM_HYPERCUBE, 2, n, vcs, 1, 1, 1, &err), KC_OK);
}

/* ---- the rule written out directly, with no lookahead ---- */

/* Is the order of dimensions `dims` (a path from s) allowed by the rule as
 * the issue states it: every 1 -> 0 hop is the first hop or follows a hop in a
 * lower dimension (0 -> 1 hops are free)? */
static int rule_allows(uint32_t s, const int *dims, int len)
{
    uint32_t x = s;
    for (int p = 0; p < len; p++) {
        int down = (int)(x >> dims[p] & 1);
        if (down && p > 0 && dims[p - 1] > dims[p])
            return 0;
        x ^= 1u << dims[p];
    }
    return 1;
}

/* Number of orders of the dimensions in `left` (appended to prefix[0..len))
 * that rule_allows accepts: all |diff|! orders are tried. */
static uint64_t brute_count(uint32_t s, uint32_t left, int *prefix, int len)
{
    if (!left)
        return (uint64_t)rule_allows(s, prefix, len);
    uint64_t c = 0;
    for (int d = 0; d < 32; d++)
        if (left >> d & 1) {
            prefix[len] = d;
            c += brute_count(s, left & ~(1u << d), prefix, len + 1);
        }
    return c;
}

/* ---- the library's routing, every choice followed ---- */

/* Dimensions the library lists at `node` arriving through `in`; checks that
 * each is a VC-0 network channel of `node` in a dimension still to correct
 * (minimal), and that there is at least one (no dead end). */
static int lib_dims(const kc_simnet *net, const kc_simroute *r, uint32_t node, uint32_t dst, uint32_t in, int *dims)
{
    uint32_t cand[KC_SIMROUTE_MAX];
    int nc = kc_simroute_candidates(r, net, node, dst, in, cand), m = 0;
    assert_true(nc > 0);
    for (int i = 0; i < nc; i++) {
        kc_simchan ch;
        kc_simnet_channel(net, cand[i], &ch);
        assert_int_equal(ch.kind, KC_CH_NETWORK);
        assert_int_equal(ch.node, node);
        assert_true((node ^ dst) >> ch.port & 1);
        if (ch.vc == 0)
            dims[m++] = ch.port;
    }
    return m;
}

typedef struct walk {
    const kc_simnet *net;
    uint32_t src, dst, via; /* via: a channel to look for, or KC_SIM_NONE */
    uint64_t paths, through;
    uint64_t *per_channel; /* NULL, or paths through each network channel */
    int dims[32];
    uint32_t chans[32];
} walk;

/* Every path the routing allows from `node` (entered through `in`), as a
 * depth-first search: counts them, the ones through w->via, and checks each
 * against the rule as stated. */
static void all_paths(walk *w, uint32_t node, uint32_t in, int len, int seen_via)
{
    if (node == w->dst) {
        assert_true(rule_allows(w->src, w->dims, len));
        w->paths++;
        w->through += (uint64_t)seen_via;
        for (int i = 0; w->per_channel && i < len; i++)
            w->per_channel[w->chans[i]]++;
        return;
    }
    int dims[32];
    int m = lib_dims(w->net, &LIMIN, node, w->dst, in, dims);
    for (int i = 0; i < m; i++) {
        uint32_t c = kc_simnet_netch(w->net, node, dims[i], 0);
        w->dims[len] = dims[i];
        w->chans[len] = c;
        all_paths(w, node ^ (1u << dims[i]), c, len + 1, seen_via || c == w->via);
    }
}

static walk walk_all(const kc_simnet *net, uint32_t s, uint32_t d, uint32_t via, uint64_t *per_channel)
{
    walk w = {.net = net, .src = s, .dst = d, .via = via, .per_channel = per_channel};
    all_paths(&w, s, kc_simnet_injch(net, s, 0), 0, 0);
    return w;
}

/* The library's paths are exactly the orders the rule allows: each one
 * followed is allowed (checked in all_paths), none ends in a dead end, and
 * there are as many as the brute force counts. */
static void check_pair(const kc_simnet *net, uint32_t s, uint32_t d)
{
    int prefix[32];
    walk w = walk_all(net, s, d, KC_SIM_NONE, NULL);
    assert_true(w.paths >= 1);
    assert_int_equal(w.paths, brute_count(s, s ^ d, prefix, 0));
}

static void test_rule_matches_brute_force(void **state)
{
    (void)state;
    kc_simnet net;
    for (int n = 2; n <= 6; n += 2) {
        cube(&net, n, 1);
        for (uint32_t s = 0; s < net.nodes; s++)
            for (uint32_t d = 0; d < net.nodes; d++)
                if (s != d)
                    check_pair(&net, s, d);
        kc_simnet_free(&net);
    }
    /* 8-cube: seeded random pairs at every distance */
    cube(&net, 8, 1);
    kc_rng rng;
    kc_rng_seed(&rng, 2024);
    for (int i = 0; i < 60; i++) {
        uint32_t s = (uint32_t)kc_rng_below(&rng, 256), d = (uint32_t)kc_rng_below(&rng, 256);
        if (s != d)
            check_pair(&net, s, d);
    }
    check_pair(&net, 0xff, 0x00); /* all 1 -> 0: only increasing order */
    check_pair(&net, 0x00, 0xff); /* all 0 -> 1: all 8! orders */
    kc_simnet_free(&net);
}

/* ---- channel dependency graph ---- */

typedef struct cdg {
    uint32_t v;      /* network channels */
    uint8_t *adj;    /* v x v bits: c1 -> c2 */
    uint64_t edges;
} cdg;

/* c1 -> c2 when some packet may hold c1 and ask for c2: every (input channel,
 * destination) state reachable from some source's injection channel through
 * the routing's hop lists is visited, and each network-to-network step
 * recorded. */
static cdg build_cdg(const kc_simnet *net, const kc_simroute *r)
{
    cdg g = {.v = net->net_channels};
    g.adj = calloc((size_t)g.v * g.v / 8 + 1, 1);
    uint32_t nin = net->net_channels + net->nodes * (uint32_t)net->inj;
    uint8_t *seen = calloc((size_t)nin * net->nodes, 1);
    uint32_t *stack = malloc((size_t)nin * sizeof *stack); /* per destination each state is pushed once */
    assert_non_null(g.adj);
    assert_non_null(seen);
    assert_non_null(stack);
    uint32_t cand[KC_SIMROUTE_MAX];
    for (uint32_t dst = 0; dst < net->nodes; dst++) {
        size_t top = 0;
        for (uint32_t s = 0; s < net->nodes; s++)
            if (s != dst)
                stack[top++] = kc_simnet_injch(net, s, 0);
        while (top) {
            uint32_t in = stack[--top];
            uint32_t node = in < net->net_channels ? net->next_node[in / (uint32_t)net->vcs]
                                                   : (in - net->net_channels) / (uint32_t)net->inj;
            if (node == dst)
                continue;
            int nc = kc_simroute_candidates(r, net, node, dst, in, cand);
            for (int i = 0; i < nc; i++) {
                uint32_t c = cand[i];
                if (in < net->net_channels) {
                    size_t bit = (size_t)in * g.v + c;
                    if (!(g.adj[bit / 8] >> (bit % 8) & 1)) {
                        g.adj[bit / 8] |= (uint8_t)(1u << (bit % 8));
                        g.edges++;
                    }
                }
                if (!seen[(size_t)c * net->nodes + dst]) {
                    seen[(size_t)c * net->nodes + dst] = 1;
                    stack[top++] = c;
                }
            }
        }
    }
    free(seen);
    free(stack);
    return g;
}

static int has_edge(const cdg *g, uint32_t a, uint32_t b)
{
    size_t bit = (size_t)a * g->v + b;
    return g->adj[bit / 8] >> (bit % 8) & 1;
}

/* Kahn's algorithm: acyclic iff every vertex can be removed. */
static int acyclic(const cdg *g)
{
    uint32_t *indeg = calloc(g->v, sizeof *indeg), *queue = malloc(g->v * sizeof *queue);
    assert_non_null(indeg);
    assert_non_null(queue);
    for (uint32_t a = 0; a < g->v; a++)
        for (uint32_t b = 0; b < g->v; b++)
            indeg[b] += (uint32_t)has_edge(g, a, b);
    uint32_t head = 0, tail = 0;
    for (uint32_t a = 0; a < g->v; a++)
        if (!indeg[a])
            queue[tail++] = a;
    while (head < tail) {
        uint32_t a = queue[head++];
        for (uint32_t b = 0; b < g->v; b++)
            if (has_edge(g, a, b) && --indeg[b] == 0)
                queue[tail++] = b;
    }
    free(indeg);
    free(queue);
    return tail == g->v;
}

/* Dependencies a turn rule written from scratch allows: from the channel
 * entering node x in dimension i to the channel leaving x in dimension j
 * (j != i) when the hop in j is 0 -> 1, or is 1 -> 0 with i < j. Every edge
 * of the graph built from the routing must be one of these. */
static int turn_allowed(const kc_simnet *net, uint32_t c1, uint32_t c2)
{
    kc_simchan a, b;
    kc_simnet_channel(net, c1, &a);
    kc_simnet_channel(net, c2, &b);
    uint32_t x = a.node ^ (1u << a.port);
    if (b.node != x || b.port == a.port)
        return 0;
    return !(x >> b.port & 1) || a.port < b.port;
}

static void test_dependency_graph_acyclic(void **state)
{
    (void)state;
    kc_simroute ec = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS}, pc = {KC_ROUTE_PCUBE, KC_VC_NONE, KC_TIE_PLUS},
                du = {KC_ROUTE_DUATO, KC_VC_NONE, KC_TIE_PLUS};
    for (int n = 4; n <= 8; n += 2) {
        kc_simnet net;
        cube(&net, n, 1);
        cdg g = build_cdg(&net, &LIMIN), ge = build_cdg(&net, &ec), gp = build_cdg(&net, &pc);
        assert_true(acyclic(&g));
        assert_true(acyclic(&ge));
        assert_true(acyclic(&gp));
        /* li-min relaxes e-cube: every e-cube dependency is one of li-min's */
        uint64_t turns = 0;
        for (uint32_t a = 0; a < g.v; a++)
            for (uint32_t b = 0; b < g.v; b++) {
                if (has_edge(&ge, a, b))
                    assert_true(has_edge(&g, a, b));
                if (has_edge(&g, a, b))
                    assert_true(turn_allowed(&net, a, b));
                turns += (uint64_t)turn_allowed(&net, a, b);
            }
        /* every turn the rule allows occurs on some allowed path: 3/4 of the
         * 2^n n (n - 1) turns, as many as P-cube keeps; e-cube keeps half */
        assert_int_equal(g.edges, turns);
        assert_int_equal(g.edges, 3 * ((uint64_t)1 << (n - 2)) * (uint64_t)(n * (n - 1)));
        assert_int_equal(ge.edges, ((uint64_t)1 << (n - 1)) * (uint64_t)(n * (n - 1)));
        assert_int_equal(gp.edges, g.edges);
        printf("%d-cube: li-min dependency graph %u channels, %llu dependencies (e-cube %llu, P-cube %llu, "
               "turns the rule allows %llu), acyclic\n",
               n, g.v, (unsigned long long)g.edges, (unsigned long long)ge.edges, (unsigned long long)gp.edges,
               (unsigned long long)turns);
        free(g.adj);
        free(ge.adj);
        free(gp.adj);
        kc_simnet_free(&net);
    }
    /* control: the checker does see cycles (Duato's adaptive channels) */
    kc_simnet net;
    cube(&net, 4, 2);
    cdg g = build_cdg(&net, &du);
    assert_false(acyclic(&g));
    free(g.adj);
    kc_simnet_free(&net);
}

/* ---- seed 000: bit-reverse on the 8-cube, channel 8 -> 0 ---- */

static uint32_t bitrev8(uint32_t x)
{
    uint32_t y = 0;
    for (int i = 0; i < 8; i++)
        y |= (x >> i & 1) << (7 - i);
    return y;
}

static void test_forced_paths_bit_reverse(void **state)
{
    (void)state;
    kc_simnet net;
    cube(&net, 8, 1);
    /* seed 000's (00010000, 00000000), x0 first: node 8 to node 0, dimension 3 */
    uint32_t via = kc_simnet_netch(&net, 8, 3, 0);
    assert_int_equal(net.next_node[via], 0);
    int forced = 0, touching = 0, adaptive = 0;
    for (uint32_t s = 0; s < 256; s++) {
        uint32_t d = bitrev8(s);
        if (s == d)
            continue;
        walk w = walk_all(&net, s, d, via, NULL);
        adaptive += w.paths > 1;
        touching += w.through > 0;
        if (w.through == w.paths) {
            /* the 8 pairs: x3 = 1, x4..x7 = 0; they must first clear x0..x2 in
             * increasing order, then x3, which passes through node 8 then 0 */
            assert_int_equal(s & ~7u, 8);
            printf("forced through 8 -> 0: %3u -> %3u (%llu allowed path%s)\n", s, d,
                   (unsigned long long)w.paths, w.paths > 1 ? "s" : "");
            forced++;
        }
    }
    assert_int_equal(forced, 8);
    assert_int_equal(touching, 8); /* no other pair can use the channel at all */
    assert_true(adaptive > 100);   /* yet most pairs have a choice */
    kc_simnet_free(&net);
}

static uint32_t transpose8(uint32_t x) { return (x & 15) << 4 | x >> 4; }
static uint32_t reverse_flip8(uint32_t x) { return bitrev8(x) ^ 255; }

/* "Similar conditions also happen" for transpose and reverse-flip (seed 000
 * Section 2): for each pattern the largest number of pairs forced onto one
 * channel (every allowed path through it) is 8; for transpose it is the same
 * channel 8 -> 0, for reverse-flip the channels 248 -> 240 and 240 -> 224. */
static void test_forced_contention_patterns(void **state)
{
    (void)state;
    kc_simnet net;
    cube(&net, 8, 1);
    uint32_t (*f[3])(uint32_t) = {bitrev8, transpose8, reverse_flip8};
    uint32_t at[3][2] = {{kc_simnet_netch(&net, 8, 3, 0), KC_SIM_NONE},
                         {kc_simnet_netch(&net, 8, 3, 0), KC_SIM_NONE},
                         {kc_simnet_netch(&net, 248, 3, 0), kc_simnet_netch(&net, 240, 4, 0)}};
    uint64_t *cnt = malloc(net.net_channels * sizeof *cnt);
    uint32_t *forced = calloc(net.net_channels, sizeof *forced);
    assert_non_null(cnt);
    assert_non_null(forced);
    for (int p = 0; p < 3; p++) {
        memset(forced, 0, net.net_channels * sizeof *forced);
        for (uint32_t s = 0; s < 256; s++) {
            if (f[p](s) == s)
                continue;
            memset(cnt, 0, net.net_channels * sizeof *cnt);
            walk w = walk_all(&net, s, f[p](s), KC_SIM_NONE, cnt);
            for (uint32_t c = 0; c < net.net_channels; c++)
                forced[c] += cnt[c] == w.paths;
        }
        uint32_t most = 0, nmost = 0;
        for (uint32_t c = 0; c < net.net_channels; c++)
            most = forced[c] > most ? forced[c] : most;
        for (uint32_t c = 0; c < net.net_channels; c++)
            nmost += forced[c] == most;
        assert_int_equal(most, 8);
        for (int i = 0; i < 2; i++)
            if (at[p][i] != KC_SIM_NONE)
                assert_int_equal(forced[at[p][i]], 8);
        assert_int_equal(nmost, at[p][1] == KC_SIM_NONE ? 1 : 2);
    }
    free(cnt);
    free(forced);
    kc_simnet_free(&net);
}

/* At zero load the first listed hop is e-cube's (lowest dimension to correct):
 * why the chosen path alone says nothing about forcing. */
static void test_first_choice_is_ecube(void **state)
{
    (void)state;
    kc_simnet net;
    cube(&net, 6, 1);
    for (uint32_t s = 0; s < net.nodes; s++)
        for (uint32_t d = 0; d < net.nodes; d++) {
            uint32_t node = s, in = kc_simnet_injch(&net, s, 0);
            while (node != d) {
                int dims[32];
                lib_dims(&net, &LIMIN, node, d, in, dims);
                assert_int_equal(dims[0], kci_ctz32(node ^ d));
                in = kc_simnet_netch(&net, node, dims[0], 0);
                node ^= 1u << dims[0];
            }
        }
    kc_simnet_free(&net);
}

/* ---- routes minimal and delivered ---- */

/* Random choices among the listed hops always arrive in distance hops. */
static void test_random_walks_minimal(void **state)
{
    (void)state;
    kc_simnet net;
    cube(&net, 8, 2);
    kc_rng rng;
    kc_rng_seed(&rng, 7);
    uint32_t cand[KC_SIMROUTE_MAX];
    for (int t = 0; t < 20000; t++) {
        uint32_t s = (uint32_t)kc_rng_below(&rng, 256), d = (uint32_t)kc_rng_below(&rng, 256);
        uint32_t node = s, in = kc_simnet_injch(&net, s, 0);
        int hops = 0;
        while (node != d) {
            int nc = kc_simroute_candidates(&LIMIN, &net, node, d, in, cand);
            assert_true(nc > 0);
            in = cand[kc_rng_below(&rng, (uint64_t)nc)];
            node = net.next_node[in / (uint32_t)net.vcs];
            assert_true(++hops <= 8);
        }
        assert_int_equal(hops, kci_popcount32(s ^ d));
    }
    kc_simnet_free(&net);
}

/* One-shot runs under heavy contention (adaptive choices are taken): every
 * message arrives and each flit crosses exactly distance channels. */
static void test_oneshot_delivered_minimal(void **state)
{
    (void)state;
    kc_err err;
    kc_simnet net;
    cube(&net, 8, 1);
    kc_rng rng;
    kc_rng_seed(&rng, 11);
    enum { PER = 6 };
    uint32_t src[256 * PER], dst[256 * PER], m = 0;
    for (uint32_t s = 0; s < 256; s++) {
        uint32_t d = bitrev8(s);
        if (d != s) {
            src[m] = s;
            dst[m++] = d;
        }
        for (int i = 1; i < PER; i++) {
            src[m] = s;
            dst[m++] = (uint32_t)kc_rng_below(&rng, 256);
        }
    }
    kc_simtraffic tr;
    assert_int_equal(kc_simtraffic_pairs(&tr, 256, src, dst, m, NULL, &err), KC_OK);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.oneshot = 1;
    kc_simresult res;
    assert_int_equal(kc_sim_run(&net, &LIMIN, &tr, &c, &res, &err), KC_OK);
    assert_false(res.deadlock);
    uint64_t msgs = 0, hops = 0;
    for (uint32_t i = 0; i < m; i++)
        if (src[i] != dst[i]) {
            msgs++;
            hops += (uint64_t)kci_popcount32(src[i] ^ dst[i]);
        }
    assert_int_equal(res.messages, msgs);
    assert_int_equal(res.flits_delivered, msgs * (uint64_t)c.msg_flits);
    assert_int_equal(res.link_traversals, hops * (uint64_t)c.msg_flits);
    kc_simresult_free(&res);
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
}

/* ---- no deadlock far past saturation ---- */

static void overload(int n, int vcs, const char *pattern, kc_siminject process, double load, int past_saturation)
{
    kc_err err;
    kc_simspec sp;
    kc_simspec_default(&sp);
    sp.n = n;
    sp.vcs = vcs;
    sp.route = LIMIN;
    sp.pattern = pattern;
    kc_simscenario sc;
    assert_int_equal(kc_simscenario_build(&sc, &sp, &err), KC_OK);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.warmup = 500;
    c.measure = 3000;
    c.drain = 1000;
    c.load = load;
    c.process = process;
    c.watchdog = 300;
    c.queue_cap = 1e6; /* never give up early: keep the network full to the end */
    kc_simresult res;
    assert_int_equal(kc_sim_run(&sc.net, &sc.route, &sc.traffic, &c, &res, &err), KC_OK);
    assert_false(res.deadlock);
    if (past_saturation)
        assert_false(res.sustainable);
    assert_true(res.cycles >= c.warmup + c.measure);
    assert_true(res.flits_delivered > 0);
    assert_int_equal(res.flits_generated, res.flits_delivered + res.flits_queued + res.flits_in_network);
    kc_simresult_free(&res);
    kc_simscenario_free(&sc);
}

static void test_overload_no_deadlock(void **state)
{
    (void)state;
    /* bit-reverse and transpose saturate near 0.1-0.2 (contention 8); uniform
     * at 1.0 is at the injection channel's limit */
    overload(8, 1, "bit-reverse", KC_INJECT_POISSON, 1.0, 1);
    overload(8, 1, "transpose", KC_INJECT_POISSON, 0.8, 1);
    overload(8, 1, "uniform", KC_INJECT_BERNOULLI, 1.0, 0);
    overload(6, 2, "uniform", KC_INJECT_POISSON, 1.0, 0);
}

/* ---- names ---- */

static void test_names(void **state)
{
    (void)state;
    kc_err err;
    kc_simalgo a;
    int listed = 0;
    for (const kc_name *e = kc_simalgo_names.entries; e->name; e++)
        if (!strcmp(e->name, "li-min")) {
            listed = 1;
            assert_int_equal(e->value, KC_ROUTE_LIMIN);
            assert_non_null(e->help);
            assert_non_null(strstr(e->help, "reconstructed"));
        }
    assert_true(listed);
    assert_int_equal(kc_simalgo_parse("li-min", &a, &err), KC_OK);
    assert_int_equal(a, KC_ROUTE_LIMIN);
    assert_string_equal(kc_simalgo_name(a), "li-min");
    /* the seed's name is not an alias for a reconstruction, but leads to it */
    assert_int_equal(kc_simalgo_parse("min", &a, &err), KC_EINVAL);
    assert_string_equal(err.param, "routing");
    assert_non_null(strstr(err.msg, "li-min"));
    const char *missing[] = {"chiu", "mixab3", "mixbb3"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(kc_simalgo_parse(missing[i], &a, &err), KC_EINVAL);
        assert_non_null(strstr(err.msg, "not implemented"));
        assert_null(strstr(err.msg, "li-min"));
    }
    assert_int_equal(kc_simalgo_parse("lmin", &a, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "li-min"));
    /* binary cube only; one VC by default */
    kc_simnet net;
    assert_int_equal(kc_simnet_init(&net, KC_SIM_TORUS, 4, 2, 1, 1, 1, 1, &err), KC_OK);
    assert_int_equal(kc_simroute_check(&LIMIN, &net, &err), KC_EINVAL);
    assert_string_equal(err.param, "routing");
    kc_simnet_free(&net);
    kc_simspec sp;
    kc_simspec_default(&sp);
    sp.n = 8;
    sp.route.algo = KC_ROUTE_LIMIN;
    assert_int_equal(kc_simspec_resolve(&sp, NULL, &err), KC_OK);
    assert_int_equal(sp.topo, KC_SIM_HYPERCUBE);
    assert_int_equal(sp.vcs, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_matches_brute_force),
        cmocka_unit_test(test_dependency_graph_acyclic),
        cmocka_unit_test(test_forced_paths_bit_reverse),
        cmocka_unit_test(test_forced_contention_patterns),
        cmocka_unit_test(test_first_choice_is_ecube),
        cmocka_unit_test(test_random_walks_minimal),
        cmocka_unit_test(test_oneshot_delivered_minimal),
        cmocka_unit_test(test_overload_no_deadlock),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
