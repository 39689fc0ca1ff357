/* kc-mpi-np: 4 8 16 */
/* Where processes run and communicators placed by mappings: kc_mpi_node reads
 * the host and local rank; kc_mpi_comm_remap's rank v is the process on node
 * to_physical[v]; kc_mpi_dist_graph_create_adjacent on a weighted 2-D halo
 * gives each new rank its vertex's edges and a placement with exactly the
 * general mapper's max channel load (and bytes x hops); kc_mpi_cart_create
 * likewise for the periodic grid; the errors (unknown host, a machine the
 * communicator does not fill) are the same on every rank. */
#include "mpi_test.h"

#include "kcube/chanload.h"
#include "kcube/traffic.h"

static void test_node_and_remap(void **state)
{
    (void)state;
    int p = world_size();
    kc_topology t;
    kc_machine hosts;
    kc_mpi_machine m;
    kc_err err = {0};
    assert_int_equal(kc_topology_hypercube(&t, log2_exact(p), &err), KC_OK);
    local_machine(&t, &hosts, &m, NULL);
    uint32_t node = 99;
    assert_int_equal(kc_mpi_node(MPI_COMM_WORLD, &m, &node, &err), KC_OK);
    assert_true(all_ok(node == (uint32_t)world_rank()));
    /* Reversed ranks: rank v on node p-1-v, i.e. world rank p-1-v. */
    uint32_t *tp = malloc((size_t)p * sizeof *tp), *where = malloc((size_t)p * sizeof *where);
    for (int v = 0; v < p; v++)
        tp[v] = (uint32_t)(p - 1 - v);
    MPI_Comm c;
    assert_int_equal(kc_mpi_comm_remap(MPI_COMM_WORLD, &m, tp, &c, &err), KC_OK);
    int me = 0;
    MPI_Comm_rank(c, &me);
    assert_true(all_ok(me == p - 1 - world_rank()));
    assert_int_equal(kc_mpi_placement(c, &m, where, &err), KC_OK);
    assert_true(all_ok(memcmp(where, tp, (size_t)p * sizeof *tp) == 0));
    MPI_Comm_free(&c);
    /* Not a permutation: refused everywhere (rank 0's array is the one read). */
    tp[0] = tp[1];
    assert_int_equal(kc_mpi_comm_remap(MPI_COMM_WORLD, &m, tp, &c, &err), KC_EINVAL);
    assert_string_equal(err.param, "mapping");
    free(tp);
    free(where);
    kc_machine_free(&hosts);
}

static void test_errors(void **state)
{
    (void)state;
    int p = world_size();
    kc_topology t;
    kc_machine hosts;
    kc_err err = {0};
    assert_int_equal(kc_topology_hypercube(&t, log2_exact(p), &err), KC_OK);
    /* A host that is not this one. */
    assert_int_equal(kc_machine_rule(&hosts, &t, "nid%05d", 2, 0, KC_FILL_FIRST_AXIS, &err), KC_OK);
    kc_mpi_machine m = {&t, &hosts, NULL};
    uint32_t node;
    assert_int_equal(kc_mpi_node(MPI_COMM_WORLD, &m, &node, &err), KC_EINVAL);
    assert_string_equal(err.param, "machine");
    assert_non_null(strstr(err.msg, "is not in the machine description"));
    kc_machine_free(&hosts);
    /* Half the nodes: the processes cannot all be placed. */
    kc_topology half;
    assert_int_equal(kc_topology_hypercube(&half, log2_exact(p) - 1, &err), KC_OK);
    kc_mpi_machine mh;
    local_machine(&half, &hosts, &mh, NULL);
    MPI_Comm c;
    assert_int_equal(kc_mpi_comm_remap(MPI_COMM_WORLD, &mh, NULL, &c, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "a mapping needs one process on every node"));
    assert_int_equal(kc_mpi_node(MPI_COMM_WORLD, &mh, &node, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "runs more than"));
    kc_machine_free(&hosts);
}

/* The grid R x C (R rows, C columns, cell = row C + col as MPI orders),
 * periodic; horizontal edges weigh 3, vertical 1. */
typedef struct grid {
    int rows, cols, scrambled;
} grid;

/* Rank v holds grid cell bitrev(v) (p = 2^n ranks): a scrambled numbering,
 * so the identity placement is poor and the mapping has work to do. */
static int bitrev(int v)
{
    int n = log2_exact(world_size()), r = 0;
    for (int i = 0; i < n; i++)
        r |= ((v >> i) & 1) << (n - 1 - i);
    return r;
}

static int neighbours(const grid *g, int v, int *to, int *w)
{
    int cell = g->scrambled ? bitrev(v) : v;
    int r = cell / g->cols, c = cell % g->cols, k = 0;
    const int dr[4] = {-1, 1, 0, 0}, dc[4] = {0, 0, -1, 1}, wt[4] = {1, 1, 3, 3};
    for (int i = 0; i < 4; i++) {
        int rr = (r + dr[i] + g->rows) % g->rows, cc = (c + dc[i] + g->cols) % g->cols, u = rr * g->cols + cc;
        if (u == cell)
            continue;
        to[k] = g->scrambled ? bitrev(u) : u;
        w[k++] = wt[i];
    }
    return k;
}

/* What the library maps, computed here: the traffic of every rank's
 * out-edges, mapped as kcube map --traffic does with the same options. */
static void reference_map(const kc_topology *t, const kc_traffic *tr, const kc_mapgen_opts *o, kc_cost *cost)
{
    kc_err err = {0};
    kc_comm found[KC_MAPGEN_MAX_FOUND];
    int nfound = 0;
    kc_mapgen_result res;
    assert_int_equal(kc_mapgen_find_lcc(t, tr, 0, tr->count, found, KC_MAPGEN_MAX_FOUND, &nfound, &err), KC_OK);
    assert_int_equal(kc_mapgen_run(t, tr, found, nfound, o, &res, &err), KC_OK);
    *cost = res.search.cost;
    kc_mapgen_result_free(&res);
}

/* better: the identity must be beaten (a scrambled numbering). */
static void check_placement(MPI_Comm c, const kc_mpi_machine *m, const kc_traffic *tr, int better)
{
    int p = world_size();
    kc_err err = {0};
    uint32_t *where = malloc((size_t)p * sizeof *where), *id = malloc((size_t)p * sizeof *id);
    assert_int_equal(kc_mpi_placement(c, m, where, &err), KC_OK);
    kc_cost got, want, ident;
    assert_int_equal(kc_chanload_eval(m->topo, tr, where, &got, &err), KC_OK);
    for (int v = 0; v < p; v++)
        id[v] = (uint32_t)v;
    assert_int_equal(kc_chanload_eval(m->topo, tr, id, &ident, &err), KC_OK);
    reference_map(m->topo, tr, m->map, &want);
    if (world_rank() == 0)
        printf("placement: max load %llu, bytes x hops %llu (mapper %llu, %llu; identity %llu, %llu)\n",
               (unsigned long long)got.max, (unsigned long long)got.hops, (unsigned long long)want.max,
               (unsigned long long)want.hops, (unsigned long long)ident.max, (unsigned long long)ident.hops);
    assert_true(all_ok(got.max == want.max && got.hops == want.hops && got.max <= ident.max));
    free(where);
    free(id);
}

/* A ring of p nodes as the machine of this job (local ranks), with the
 * tests' mapping options: a 2-D halo cannot land on a ring without
 * contention, so the placement matters. */
static void ring_machine(int p, kc_topology *t, kc_machine *hosts, kc_mpi_machine *m, kc_mapgen_opts *o)
{
    kc_err err = {0};
    test_map_opts(o);
    assert_int_equal(kc_topology_torus(t, p, 1, KC_TIE_PLUS, &err), KC_OK);
    local_machine(t, hosts, m, o);
}

static void test_dist_graph_halo(void **state)
{
    (void)state;
    int p = world_size(), dims[2] = {0, 0};
    MPI_Dims_create(p, 2, dims);
    grid g = {dims[0], dims[1], 1};
    kc_topology t;
    kc_machine hosts;
    kc_mpi_machine m;
    kc_mapgen_opts o;
    kc_err err = {0};
    ring_machine(p, &t, &hosts, &m, &o);
    int to[4], w[4], v = world_rank();
    int deg = neighbours(&g, v, to, w);
    MPI_Comm c;
    assert_int_equal(kc_mpi_dist_graph_create_adjacent(MPI_COMM_WORLD, deg, to, w, deg, to, w, MPI_INFO_NULL, 1, &m,
                                                       &c, &err),
                     KC_OK);
    /* New rank u has vertex u's edges. */
    int u = 0, in = 0, out = 0, wg = 0, src[4], sw[4], dst[4], dw[4];
    MPI_Comm_rank(c, &u);
    MPI_Dist_graph_neighbors_count(c, &in, &out, &wg);
    int want_to[4], want_w[4], want = neighbours(&g, u, want_to, want_w), ok = in == want && out == want && wg;
    if (ok) {
        MPI_Dist_graph_neighbors(c, 4, src, sw, 4, dst, dw);
        ok = !memcmp(src, want_to, (size_t)want * sizeof *src) && !memcmp(dst, want_to, (size_t)want * sizeof *src) &&
             !memcmp(sw, want_w, (size_t)want * sizeof *sw) && !memcmp(dw, want_w, (size_t)want * sizeof *sw);
    }
    assert_true(all_ok(ok));
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, (uint64_t)p, &err), KC_OK);
    for (int r = 0; r < p; r++) {
        int k = neighbours(&g, r, to, w);
        for (int i = 0; i < k; i++)
            assert_int_equal(kc_traffic_add(&tr, (uint64_t)r, (uint64_t)to[i], (uint64_t)w[i], &err), KC_OK);
    }
    check_placement(c, &m, &tr, 1);
    MPI_Comm_free(&c);
    kc_traffic_free(&tr);
    /* Unweighted, and reorder 0 (MPI's own call, no machine needed). */
    deg = neighbours(&g, v, to, w);
    assert_int_equal(kc_mpi_dist_graph_create_adjacent(MPI_COMM_WORLD, deg, to, MPI_UNWEIGHTED, deg, to,
                                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &m, &c, &err),
                     KC_OK);
    MPI_Comm_rank(c, &u);
    MPI_Dist_graph_neighbors_count(c, &in, &out, &wg);
    assert_true(all_ok(in == neighbours(&g, u, to, w) && !wg));
    MPI_Comm_free(&c);
    assert_int_equal(kc_mpi_dist_graph_create_adjacent(MPI_COMM_WORLD, deg, to, w, deg, to, w, MPI_INFO_NULL, 0,
                                                       NULL, &c, &err),
                     KC_OK);
    MPI_Comm_rank(c, &u);
    assert_true(all_ok(u == v));
    MPI_Comm_free(&c);
    /* A destination out of range on one rank: refused on all. */
    to[0] = v == 0 ? p : to[0];
    assert_int_equal(kc_mpi_dist_graph_create_adjacent(MPI_COMM_WORLD, deg, to, w, deg, to, w, MPI_INFO_NULL, 1, &m,
                                                       &c, &err),
                     KC_EINVAL);
    assert_non_null(strstr(err.msg, "rank 0: source"));
    kc_machine_free(&hosts);
}

static void test_cart(void **state)
{
    (void)state;
    int p = world_size(), dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(p, 2, dims);
    kc_topology t;
    kc_machine hosts;
    kc_mpi_machine m;
    kc_mapgen_opts o;
    kc_err err = {0};
    ring_machine(p, &t, &hosts, &m, &o);
    MPI_Comm c;
    assert_int_equal(kc_mpi_cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &m, &c, &err), KC_OK);
    int topo = 0, u = 0, coords[2];
    MPI_Topo_test(c, &topo);
    MPI_Comm_rank(c, &u);
    MPI_Cart_coords(c, u, 2, coords);
    assert_true(all_ok(topo == MPI_CART && coords[0] == u / dims[1] && coords[1] == u % dims[1]));
    /* The halo as the library builds it: unit messages to the 4 neighbours. */
    grid g = {dims[0], dims[1], 0};
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, (uint64_t)p, &err), KC_OK);
    for (int r = 0; r < p; r++) {
        int to[4], w[4], k = neighbours(&g, r, to, w);
        for (int i = 0; i < k; i++)
            assert_int_equal(kc_traffic_add(&tr, (uint64_t)r, (uint64_t)to[i], 1, &err), KC_OK);
    }
    check_placement(c, &m, &tr, 0);
    MPI_Comm_free(&c);
    kc_traffic_free(&tr);
    /* A grid of the wrong size. */
    int bad[2] = {dims[0], dims[1] + 1};
    assert_int_equal(kc_mpi_cart_create(MPI_COMM_WORLD, 2, bad, periods, 1, &m, &c, &err), KC_EINVAL);
    assert_string_equal(err.param, "dims");
    kc_machine_free(&hosts);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_node_and_remap),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_dist_graph_halo),
    cmocka_unit_test(test_cart),
};

KC_MPI_TEST_MAIN(tests)
