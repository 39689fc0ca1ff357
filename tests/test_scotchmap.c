/* Scotch's mapping as kcube uses it (kcube/scotchmap.h):
 * the terminal numbering against an independent hop count, a permutation
 * every time, the same seed giving the same mapping, silence on Scotch's
 * errors, and on the 8-cube transpose no more hops than the identity. Every
 * test skips when kcube was built without Scotch (and checks the refusal). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcube/comm.h"
#include "kcube/mapgeneral.h"
#include "kcube/rng.h"
#include "kcube/scotchmap.h"
#include "kcube/traffic.h"
#include "gmap/scotch_internal.h"

/* Hops between nodes a and b by coordinates (independent of the library's
 * router): lines |d|, rings min(d, k - d); a side-2 axis is one link. */
static uint64_t hops(const kc_topology *t, uint64_t a, uint64_t b)
{
    uint64_t h = 0;
    for (int i = 0; i < t->n; i++) {
        uint64_t s = (uint64_t)t->side[i];
        uint64_t ca = a % s, cb = b % s, d = ca > cb ? ca - cb : cb - ca;
        a /= s;
        b /= s;
        h += t->kind == KC_TOPO_MESH || d <= s - d ? d : s - d;
    }
    return h;
}

static int skip_without_scotch(void)
{
    if (kc_scotch_available())
        return 0;
    kc_topology t;
    kc_traffic tr;
    kc_err err = {0};
    uint32_t map[8];
    assert_int_equal(kc_topology_hypercube(&t, 3, &err), KC_OK);
    assert_int_equal(kc_traffic_init(&tr, 8, &err), KC_OK);
    assert_int_equal(kc_scotch_map(&t, &tr, 1, map, &err), KC_EINVAL);
    assert_string_equal(err.param, "scotch");
    assert_null(kc_scotch_version());
    kc_traffic_free(&tr);
    return 1;
}

/* Each test starts with this: a test skips without Scotch. */
#define NEED_SCOTCH()                                                                                      \
    do {                                                                                                   \
        (void)state;                                                                                       \
        if (skip_without_scotch())                                                                         \
            skip();                                                                                        \
    } while (0)

#ifdef KC_HAVE_SCOTCH
/* Every pair of terminals: Scotch's distance equals the hop count between
 * the kcube nodes they are converted to; the conversion is a bijection. */
static void check_numbering(const kc_topology *t)
{
    kc_err err = {0};
    SCOTCH_Arch arch;
    kci_scotch_tgt tg;
    assert_int_equal(kci_scotch_target(t, &tg, &err), KC_OK);
    assert_int_equal(kci_scotch_arch(t, &tg, &arch, &err), KC_OK);
    uint64_t P = t->nodes;
    assert_int_equal((uint64_t)SCOTCH_archSize(&arch), P);
    SCOTCH_ArchDom *a = malloc((size_t)SCOTCH_archDomSizeof()), *b = malloc((size_t)SCOTCH_archDomSizeof());
    unsigned char *seen = calloc(P, 1);
    for (uint64_t x = 0; x < P; x++) {
        uint64_t nx = kci_scotch_term_node(t, tg.dims, x);
        assert_true(nx < P && !seen[nx]);
        seen[nx] = 1;
        SCOTCH_archDomTerm(&arch, a, (SCOTCH_Num)x);
        assert_int_equal(SCOTCH_archDomNum(&arch, a), (SCOTCH_Num)x);
        for (uint64_t y = 0; y < P; y++) {
            SCOTCH_archDomTerm(&arch, b, (SCOTCH_Num)y);
            uint64_t d = (uint64_t)SCOTCH_archDomDist(&arch, a, b);
            uint64_t want = hops(t, nx, kci_scotch_term_node(t, tg.dims, y));
            if (d != want)
                fail_msg("terminals %llu, %llu: Scotch distance %llu, kcube hops %llu", (unsigned long long)x,
                         (unsigned long long)y, (unsigned long long)d, (unsigned long long)want);
        }
    }
    free(a);
    free(b);
    free(seen);
    SCOTCH_archExit(&arch);
}
#endif

static void test_numbering(void **state)
{
    NEED_SCOTCH();
#ifdef KC_HAVE_SCOTCH
    kc_topology t;
    kc_err err = {0};
    int shape[3] = {4, 3, 2};
    assert_int_equal(kc_topology_hypercube(&t, 5, &err), KC_OK);
    check_numbering(&t);
    assert_int_equal(kc_topology_torus(&t, 4, 3, KC_TIE_PLUS, &err), KC_OK);
    check_numbering(&t);
    assert_int_equal(kc_topology_torus(&t, 5, 2, KC_TIE_PLUS, &err), KC_OK);
    check_numbering(&t);
    assert_int_equal(kc_topology_mesh(&t, 4, 2, &err), KC_OK);
    check_numbering(&t);
    assert_int_equal(kc_topology_mesh_shape(&t, shape, 3, &err), KC_OK);
    check_numbering(&t);
    assert_int_equal(kc_topology_mesh(&t, 5, 1, &err), KC_OK);
    check_numbering(&t);
    assert_int_equal(kc_topology_torus(&t, 3, 1, KC_TIE_PLUS, &err), KC_OK);
    check_numbering(&t);
    assert_int_equal(kc_topology_mesh(&t, 2, 6, &err), KC_OK);
    check_numbering(&t);
    assert_int_equal(kc_topology_torus(&t, 3, 4, KC_TIE_PLUS, &err), KC_OK);
    check_numbering(&t);
#endif
}

/* The Scotch class of each target is the one scotch_gmap builds from the
 * target line a user writes (torusXD and torus3D are the same network but
 * give different mappings). */
static void test_target_class(void **state)
{
    NEED_SCOTCH();
    kc_topology t;
    kci_scotch_tgt tg;
    kc_err err = {0};
    struct {
        kc_topo_kind kind;
        int k, n;
        const char *name;
    } cases[] = {{KC_TOPO_HYPERCUBE, 2, 6, "hcub"},  {KC_TOPO_TORUS, 8, 2, "torus2D"}, {KC_TOPO_TORUS, 4, 3, "torus3D"},
                 {KC_TOPO_TORUS, 4, 4, "torusXD"}, {KC_TOPO_TORUS, 5, 1, "torusXD"}, {KC_TOPO_MESH, 8, 2, "mesh2D"},
                 {KC_TOPO_MESH, 4, 3, "mesh3D"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(kc_topology_init(&t, cases[i].kind, cases[i].k, cases[i].n, KC_TIE_PLUS, &err), KC_OK);
        assert_int_equal(kci_scotch_target(&t, &tg, &err), KC_OK);
        assert_string_equal(tg.name, cases[i].name);
    }
}

/* A random sparse traffic: each rank sends to 3 random others. */
static void random_traffic(kc_traffic *tr, uint64_t P, uint64_t seed)
{
    kc_err err = {0};
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    assert_int_equal(kc_traffic_init(tr, P, &err), KC_OK);
    for (uint64_t v = 0; v < P; v++)
        for (int j = 0; j < 3; j++)
            assert_int_equal(kc_traffic_add(tr, v, kc_rng_below(&rng, P), 1 + kc_rng_below(&rng, 100), &err),
                             KC_OK);
}

static void assert_permutation(const uint32_t *map, uint64_t P)
{
    unsigned char *seen = calloc(P, 1);
    for (uint64_t v = 0; v < P; v++) {
        assert_true(map[v] < P);
        assert_false(seen[map[v]]);
        seen[map[v]] = 1;
    }
    free(seen);
}

static void test_permutation_and_determinism(void **state)
{
    NEED_SCOTCH();
    kc_topology tops[4];
    kc_err err = {0};
    int shape[3] = {4, 4, 2};
    assert_int_equal(kc_topology_hypercube(&tops[0], 6, &err), KC_OK);
    assert_int_equal(kc_topology_torus(&tops[1], 4, 3, KC_TIE_PLUS, &err), KC_OK);
    assert_int_equal(kc_topology_torus(&tops[2], 3, 3, KC_TIE_PLUS, &err), KC_OK);
    assert_int_equal(kc_topology_mesh_shape(&tops[3], shape, 3, &err), KC_OK);
    for (int i = 0; i < 4; i++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            uint64_t P = tops[i].nodes;
            kc_traffic tr;
            random_traffic(&tr, P, seed);
            uint32_t *a = malloc(P * sizeof *a), *b = malloc(P * sizeof *b);
            assert_int_equal(kc_scotch_map(&tops[i], &tr, seed, a, &err), KC_OK);
            assert_permutation(a, P);
            assert_int_equal(kc_scotch_map(&tops[i], &tr, seed, b, &err), KC_OK);
            assert_memory_equal(a, b, P * sizeof *a);
            /* scotch_gmap's own mode, one thread: a permutation, repeatable. */
            assert_int_equal(kc_scotch_map_tool(&tops[i], &tr, seed, a, NULL, &err), KC_OK);
            assert_permutation(a, P);
            assert_int_equal(kc_scotch_map_tool(&tops[i], &tr, seed, b, NULL, &err), KC_OK);
            assert_memory_equal(a, b, P * sizeof *a);
            kc_traffic_free(&tr);
            free(a);
            free(b);
        }
    }
    /* Traffic over the wrong number of ranks. */
    kc_traffic tr;
    uint32_t map[64];
    assert_int_equal(kc_traffic_init(&tr, 32, &err), KC_OK);
    assert_int_equal(kc_scotch_map(&tops[0], &tr, 1, map, &err), KC_EINVAL);
    assert_string_equal(err.param, "traffic");
    kc_traffic_free(&tr);
}

/* No traffic at all; a torus or a mesh with more axes than Scotch's
 * targets (and Scotch's meshXD, which kcube avoids, wrapping around). */
static void test_edges(void **state)
{
    NEED_SCOTCH();
    kc_topology t;
    kc_traffic tr;
    kc_err err = {0};
    uint32_t map[729];
    assert_int_equal(kc_topology_hypercube(&t, 4, &err), KC_OK);
    assert_int_equal(kc_traffic_init(&tr, 16, &err), KC_OK);
    assert_int_equal(kc_scotch_map(&t, &tr, 5, map, &err), KC_OK);
    assert_permutation(map, 16);
    kc_traffic_free(&tr);
    assert_int_equal(kc_topology_torus(&t, 3, 6, KC_TIE_PLUS, &err), KC_OK);
    assert_int_equal(kc_traffic_init(&tr, 729, &err), KC_OK);
    assert_int_equal(kc_scotch_map(&t, &tr, 5, map, &err), KC_EINVAL);
    assert_string_equal(err.param, "scotch");
    assert_int_equal(kc_topology_mesh(&t, 3, 4, &err), KC_OK);
    assert_int_equal(kc_scotch_map(&t, &tr, 5, map, &err), KC_EINVAL);
    kc_traffic_free(&tr);
#ifdef KC_HAVE_SCOTCH
    SCOTCH_Arch arch;
    SCOTCH_Num side[1] = {5};
    SCOTCH_ArchDom *a = malloc((size_t)SCOTCH_archDomSizeof()), *b = malloc((size_t)SCOTCH_archDomSizeof());
    assert_int_equal(SCOTCH_archInit(&arch), 0);
    assert_int_equal(SCOTCH_archMeshX(&arch, 1, side), 0);
    SCOTCH_archDomTerm(&arch, a, 0);
    SCOTCH_archDomTerm(&arch, b, 4);
    print_message("Scotch meshXD, a line of 5: distance between its ends %d (a line: 4)\n",
                  (int)SCOTCH_archDomDist(&arch, a, b));
    SCOTCH_archExit(&arch);
    free(a);
    free(b);
#endif
}

/* Scotch's errors go to the silent hooks, not to stderr. */
static void test_silent(void **state)
{
    NEED_SCOTCH();
#ifdef KC_HAVE_SCOTCH
    char path[] = "/tmp/kc_scotch_stderrXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    /* An arc 0 -> 1 with no arc back: SCOTCH_graphCheck reports it. */
    SCOTCH_Num vert[3] = {0, 1, 1}, edge[1] = {1};
    SCOTCH_Graph g;
    SCOTCH_graphInit(&g);
    int built = SCOTCH_graphBuild(&g, 0, 2, vert, NULL, NULL, NULL, 1, edge, NULL);
    int bad = built || SCOTCH_graphCheck(&g);
    SCOTCH_graphExit(&g);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    off_t size = lseek(fd, 0, SEEK_END);
    close(fd);
    unlink(path);
    assert_true(bad);
    assert_int_equal(size, 0);
#endif
}

/* The repair: a rank whose terminal is taken (or out of range) goes, in
 * rank order, to the unused terminal nearest in hops to Scotch's choice. */
static void test_repair(void **state)
{
    NEED_SCOTCH();
#ifdef KC_HAVE_SCOTCH
    kc_topology t;
    kc_err err = {0};
    assert_int_equal(kc_topology_hypercube(&t, 3, &err), KC_OK);
    /* Terminals 0, 3, 5 and 6 unused; terminal x is node 7 - x. */
    SCOTCH_Num part[8] = {7, 7, 1, 2, 99, 4, 1, 4};
    uint32_t term_node[8] = {7, 6, 5, 4, 3, 2, 1, 0}, map[8];
    /* Unused terminals 0, 3, 5, 6 are nodes 7, 4, 2, 1. Rank 1 wants node
     * 0 (terminal 7): nodes 4, 2, 1 are 1 hop away, terminal 3 (node 4)
     * comes first; rank 4 is out of range: the first unused, node 7; rank 6
     * wants node 6: node 2 (1 hop) before node 1 (3 hops); rank 7 gets the
     * last, node 1. */
    uint32_t want[8] = {0, 4, 6, 5, 7, 3, 2, 1};
    uint64_t repaired = 0;
    assert_int_equal(kci_scotch_to_nodes(&t, part, term_node, map, &repaired, &err), KC_OK);
    assert_int_equal(repaired, 4);
    assert_memory_equal(map, want, sizeof want);
#endif
}

/* The 8-cube transpose, one byte per message: Scotch's mapping costs no
 * more byte-hops than the identity (1024), counted here by coordinates. */
static void test_transpose_hops(void **state)
{
    NEED_SCOTCH();
    kc_topology t;
    kc_comm c;
    kc_traffic tr;
    kc_err err = {0};
    assert_int_equal(kc_topology_hypercube(&t, 8, &err), KC_OK);
    assert_int_equal(kc_comm_named(&c, &t, "transpose", &err), KC_OK);
    assert_int_equal(kc_traffic_init(&tr, 256, &err), KC_OK);
    assert_int_equal(kc_traffic_add_comm(&tr, &c, 1, NULL, &err), KC_OK);
    uint32_t map[256];
    uint64_t ident = 0, mapped = 0;
    kc_scotch_info info;
    assert_int_equal(kc_scotch_map_info(&t, &tr, 1, map, &info, &err), KC_OK);
    assert_string_equal(info.target, "hcub");
    assert_int_equal(info.repaired, 0);
    assert_permutation(map, 256);
    for (size_t m = 0; m < tr.count; m++) {
        ident += tr.bytes[m] * hops(&t, tr.src[m], tr.dst[m]);
        mapped += tr.bytes[m] * hops(&t, map[tr.src[m]], map[tr.dst[m]]);
    }
    assert_int_equal(ident, 1024);
    print_message("transpose on the 8-cube: identity %llu byte-hops, Scotch %llu\n", (unsigned long long)ident,
                  (unsigned long long)mapped);
    assert_true(mapped <= ident);
    kc_traffic_free(&tr);
}

/* The general mapper's Scotch starts: "scotch" with the search's
 * seed, then "scotch:s3", "scotch:s5", "scotch:s7" (seed + 2 i), each the
 * mapping kc_scotch_map gives with that seed; opts.scotch_seeds = 1 keeps the
 * first alone. */
static void test_mapgen_seeds(void **state)
{
    NEED_SCOTCH();
    kc_topology t;
    kc_err err = {0};
    assert_int_equal(kc_topology_torus(&t, 4, 3, KC_TIE_SPLIT, &err), KC_OK);
    kc_traffic tr;
    random_traffic(&tr, t.nodes, 4);
    const char *want[] = {"scotch", "scotch:s3", "scotch:s5", "scotch:s7"};
    for (int runs = 0; runs <= 1; runs++) {
        kc_mapgen_opts o;
        kc_mapgen_opts_default(&o);
        o.scotch_seeds = runs;
        o.search.budget_seconds = 0;
        o.search.iterations = 10;
        kc_mapgen_result r;
        assert_int_equal(kc_mapgen_run(&t, &tr, NULL, 0, &o, &r, &err), KC_OK);
        assert_true(r.scotch >= 0);
        int found = 0, tool = 0;
        for (int i = 0; i < r.nstarts; i++) {
            if (!strcmp(r.start_name[i], "scotch:def")) { /* plain scotch_gmap's mode, once */
                uint32_t m[64];
                assert_int_equal(kc_scotch_map_tool(&t, &tr, 1, m, NULL, &err), KC_OK);
                assert_memory_equal(m, r.start_map[i], sizeof m);
                tool++;
                continue;
            }
            if (strncmp(r.start_name[i], "scotch", 6))
                continue;
            assert_true(found < (runs ? 1 : 4));
            assert_string_equal(r.start_name[i], want[found]);
            uint32_t m[64];
            assert_int_equal(kc_scotch_map(&t, &tr, 1 + 2 * (uint64_t)found, m, &err), KC_OK);
            assert_memory_equal(m, r.start_map[i], sizeof m);
            found++;
        }
        assert_int_equal(found, runs ? 1 : 4);
        assert_int_equal(tool, 1);
        assert_string_equal(r.start_name[r.scotch], "scotch");
        kc_mapgen_result_free(&r);
    }
    kc_traffic_free(&tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbering),
        cmocka_unit_test(test_target_class),
        cmocka_unit_test(test_mapgen_seeds),
        cmocka_unit_test(test_permutation_and_determinism),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_silent),
        cmocka_unit_test(test_repair),
        cmocka_unit_test(test_transpose_hops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
