/* kc-mpi-np: 4 8 16 */
/* kc_mpi_lcc: random linear-complement permutations,
 * gathers and scatters (seed 000: y = Ax + b over GF(2)) among real
 * processes deliver every element to the right rank in the right slot, on
 * MPI_COMM_WORLD and on communicators remapped by kc_mpi_comm_remap; a
 * communication for the wrong cube, and an MPI error, are refused on every
 * rank alike. */
#include "mpi_test.h"

#include "kcube/rng.h"

#define COUNT 7 /* ints per message */

/* The value element k of the message from src to dst carries. */
static int payload(uint64_t src, uint64_t dst, int k)
{
    return (int)((src * 4099 + dst) * COUNT + (uint64_t)k);
}

/* Run c on comm and check what this rank got; returns 1 when right. */
static int run_lcc(const kc_lcc *c, MPI_Comm comm)
{
    int me = 0, size = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    int slots = c->kind == KC_LCC_PERMUTATION ? 1 : 1 << (c->a.n - c->rank);
    /* One spare slot: nothing may be written past the layout. */
    int *send = malloc((size_t)(slots + 1) * COUNT * sizeof *send);
    int *recv = malloc((size_t)(slots + 1) * COUNT * sizeof *recv);
    int *want = malloc((size_t)(slots + 1) * COUNT * sizeof *want);
    for (int i = 0; i < (slots + 1) * COUNT; i++)
        send[i] = recv[i] = want[i] = -1;
    int nsend = 0, nrecv = 0;
    for (uint64_t m = 0; m < (uint64_t)size; m++) {
        uint64_t src, dst;
        kc_lcc_message(c, m, &src, &dst);
        if (src == (uint64_t)me) {
            for (int k = 0; k < COUNT; k++)
                send[nsend * COUNT + k] = payload(src, dst, k);
            nsend++;
        }
        if (dst == (uint64_t)me) {
            for (int k = 0; k < COUNT; k++)
                want[nrecv * COUNT + k] = payload(src, dst, k);
            nrecv++;
        }
    }
    kc_err err = {0};
    kc_status s = kc_mpi_lcc(send, recv, COUNT, MPI_INT, c, comm, &err);
    if (s)
        fprintf(stderr, "kc_mpi_lcc: %s\n", err.msg);
    int ok = s == KC_OK && memcmp(recv, want, (size_t)(slots + 1) * COUNT * sizeof *recv) == 0;
    free(send);
    free(recv);
    free(want);
    return ok;
}

/* A random communication of the given kind on the n-cube (same on every
 * rank: the same seed). */
static void random_lcc(kc_lcc *c, int n, kc_lcc_kind kind, kc_rng *rng)
{
    kc_bitmat a;
    if (kind == KC_LCC_PERMUTATION)
        kc_bitmat_random_nonsingular(&a, n, rng);
    else
        kc_bitmat_random_rank(&a, n, (int)kc_rng_below(rng, (uint64_t)n), rng);
    uint64_t b = kc_rng_below(rng, (uint64_t)1 << n);
    kc_err err = {0};
    assert_int_equal(kc_lcc_init(c, &a, b, kind == KC_LCC_SCATTER, &err), KC_OK);
}

static void test_random_world(void **state)
{
    (void)state;
    int n = log2_exact(world_size());
    kc_rng rng;
    kc_rng_seed(&rng, 22);
    for (int trial = 0; trial < 12; trial++) {
        kc_lcc c;
        random_lcc(&c, n, (kc_lcc_kind)(trial % 3), &rng);
        assert_true(all_ok(run_lcc(&c, MPI_COMM_WORLD)));
    }
    /* The named ones too: the transpose (n even) and the bit-reverse. */
    kc_lcc c;
    kc_err err = {0};
    assert_int_equal(kc_lcc_named(&c, "bit-reverse", n, &err), KC_OK);
    assert_true(all_ok(run_lcc(&c, MPI_COMM_WORLD)));
    if (n % 2 == 0) {
        assert_int_equal(kc_lcc_named(&c, "transpose", n, &err), KC_OK);
        assert_true(all_ok(run_lcc(&c, MPI_COMM_WORLD)));
    }
}

static void test_random_mapped(void **state)
{
    (void)state;
    int p = world_size(), n = log2_exact(p);
    kc_topology t;
    kc_machine hosts;
    kc_mpi_machine m;
    kc_err err = {0};
    assert_int_equal(kc_topology_hypercube(&t, n, &err), KC_OK);
    local_machine(&t, &hosts, &m, NULL);
    kc_rng rng;
    kc_rng_seed(&rng, 2022);
    uint32_t *tp = malloc((size_t)p * sizeof *tp);
    int *world = malloc((size_t)p * sizeof *world);
    for (int trial = 0; trial < 6; trial++) {
        /* A random placement (Fisher-Yates; rank 0's is the one used). */
        for (int i = 0; i < p; i++)
            tp[i] = (uint32_t)i;
        for (int i = p - 1; i > 0; i--) {
            uint32_t j = (uint32_t)kc_rng_below(&rng, (uint64_t)i + 1), x = tp[i];
            tp[i] = tp[j];
            tp[j] = x;
        }
        MPI_Comm mapped;
        assert_int_equal(kc_mpi_comm_remap(MPI_COMM_WORLD, &m, world_rank() == 0 ? tp : NULL, &mapped, &err), KC_OK);
        /* Node r is world rank r here: rank v of mapped is world rank tp[v]. */
        world_ranks_of(mapped, world);
        int ok = 1;
        for (int v = 0; v < p; v++)
            ok &= world[v] == (int)tp[v];
        assert_true(all_ok(ok));
        for (int kind = 0; kind < 3; kind++) {
            kc_lcc c;
            random_lcc(&c, n, (kc_lcc_kind)kind, &rng);
            assert_true(all_ok(run_lcc(&c, mapped)));
        }
        MPI_Comm_free(&mapped);
    }
    free(tp);
    free(world);
    kc_machine_free(&hosts);
}

static void test_wrong_cube(void **state)
{
    (void)state;
    int n = log2_exact(world_size());
    kc_lcc c;
    kc_err err = {0};
    assert_int_equal(kc_lcc_named(&c, "bit-reverse", n + 1, &err), KC_OK);
    int x = 0, y = 0;
    assert_int_equal(kc_mpi_lcc(&x, &y, 1, MPI_INT, &c, MPI_COMM_WORLD, &err), KC_EINVAL);
    assert_string_equal(err.param, "lcc");
    assert_non_null(strstr(err.msg, "needs 2^"));
    assert_int_equal(kc_mpi_lcc(&x, &y, -1, MPI_INT, &c, MPI_COMM_WORLD, NULL), KC_EINVAL);
    /* An MPI error (MPI_ERRORS_RETURN, set by KC_MPI_TEST_MAIN) becomes a
     * kc_status naming the call, on every rank. */
    assert_int_equal(kc_lcc_named(&c, "bit-reverse", n, &err), KC_OK);
    assert_int_equal(kc_mpi_lcc(&x, &y, 1, MPI_DATATYPE_NULL, &c, MPI_COMM_WORLD, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "MPI_Type_get_extent failed: "));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_random_world),
    cmocka_unit_test(test_random_mapped),
    cmocka_unit_test(test_wrong_cube),
};

KC_MPI_TEST_MAIN(tests)
