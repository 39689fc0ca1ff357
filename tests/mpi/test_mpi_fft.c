/* kc-mpi-np: 4 8 16 */
/* kc_mpi_fft: seed 000 Section 6.2's parallel FFT
 * (bit-reverse communication, n neighbour exchanges) on real processes
 * agrees with FFTW to 1e-9 relative, forward and inverse, for 1 to 4^3
 * points a rank, on MPI_COMM_WORLD and on the communicator placed by the
 * general mapper's mapping of the FFT's own traffic (kc_goal_gen_fft). */
#include "mpi_test.h"

#include <fftw3.h>
#include <math.h>

#include "kcube/chanload.h"
#include "kcube/goal.h"
#include "kcube/rng.h"
#include "kcube/traffic.h"

/* Run the FFT of 2^(n+2d) random points on comm and compare this rank's
 * part with FFTW's transform of the whole; returns 1 when within 1e-9 of
 * the largest output. */
static int fft_matches(MPI_Comm comm, int d, int sign, uint64_t seed)
{
    int p = 0, me = 0;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    int n = log2_exact(p);
    size_t m = (size_t)p << (2 * d), local = (size_t)1 << (2 * d);
    fftw_complex *x = fftw_malloc(m * sizeof *x), *y = fftw_malloc(m * sizeof *y);
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    for (size_t i = 0; i < m; i++) {
        x[i][0] = 2 * kc_rng_unit(&rng) - 1;
        x[i][1] = 2 * kc_rng_unit(&rng) - 1;
    }
    fftw_plan plan = fftw_plan_dft_1d((int)m, x, y, sign < 0 ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
    double *mine = malloc(2 * local * sizeof *mine);
    /* Point i = hi 2^(n+d) + rank 2^d + lo is element hi 2^d + lo here. */
    for (size_t l = 0; l < local; l++) {
        size_t hi = l >> d, lo = l & (((size_t)1 << d) - 1);
        size_t i = (hi << (n + d)) | ((size_t)me << d) | lo;
        mine[2 * l] = x[i][0];
        mine[2 * l + 1] = x[i][1];
    }
    fftw_execute(plan);
    kc_err err = {0};
    kc_status s = kc_mpi_fft(mine, d, sign, comm, &err);
    if (s)
        fprintf(stderr, "kc_mpi_fft: %s\n", err.msg);
    double top = 0, diff = 0;
    for (size_t i = 0; i < m; i++)
        top = fmax(top, hypot(y[i][0], y[i][1]));
    for (size_t l = 0; !s && l < local; l++) {
        size_t hi = l >> d, lo = l & (((size_t)1 << d) - 1);
        size_t i = (hi << (n + d)) | ((size_t)me << d) | lo;
        diff = fmax(diff, hypot(mine[2 * l] - y[i][0], mine[2 * l + 1] - y[i][1]));
    }
    fftw_destroy_plan(plan);
    fftw_free(x);
    fftw_free(y);
    free(mine);
    return !s && diff <= 1e-9 * top;
}

static void test_fft_world(void **state)
{
    (void)state;
    for (int d = 0; d <= 3; d++) {
        assert_true(all_ok(fft_matches(MPI_COMM_WORLD, d, -1, 100 + (uint64_t)d)));
        assert_true(all_ok(fft_matches(MPI_COMM_WORLD, d, 1, 200 + (uint64_t)d)));
    }
}

static void test_fft_mapped(void **state)
{
    (void)state;
    int p = world_size(), n = log2_exact(p);
    kc_topology t;
    kc_machine hosts;
    kc_mpi_machine m;
    kc_mapgen_opts o;
    kc_err err = {0};
    test_map_opts(&o);
    assert_int_equal(kc_topology_hypercube(&t, n, &err), KC_OK);
    local_machine(&t, &hosts, &m, &o);
    /* The FFT's traffic (the schedule kcube replays), mapped on rank 0. */
    uint32_t *tp = malloc((size_t)p * sizeof *tp);
    kc_goal g;
    kc_traffic tr;
    assert_int_equal(kc_goal_init(&g, (uint32_t)p, &err), KC_OK);
    assert_int_equal(kc_goal_gen_fft(&g, n, 2, 5120, 4470, &err), KC_OK);
    assert_int_equal(kc_traffic_init(&tr, (uint64_t)p, &err), KC_OK);
    assert_int_equal(kc_traffic_from_goal(&tr, &g, &err), KC_OK);
    kc_traffic_ungroup(&tr);
    kc_mapgen_result res;
    assert_int_equal(kc_mapgen_run(&t, &tr, NULL, 0, &o, &res, &err), KC_OK);
    memcpy(tp, res.search.to_physical, (size_t)p * sizeof *tp);
    if (world_rank() == 0)
        printf("FFT traffic on the %d-cube: max load %llu mapped, %llu identity\n", n,
               (unsigned long long)res.search.cost.max, (unsigned long long)res.search.start_cost[0].max);
    kc_mapgen_result_free(&res);
    kc_traffic_free(&tr);
    kc_goal_free(&g);
    MPI_Comm c;
    assert_int_equal(kc_mpi_comm_remap(MPI_COMM_WORLD, &m, tp, &c, &err), KC_OK);
    for (int d = 0; d <= 3; d++)
        assert_true(all_ok(fft_matches(c, d, -1, 300 + (uint64_t)d)));
    MPI_Comm_free(&c);
    free(tp);
    kc_machine_free(&hosts);
}

static void test_fft_errors(void **state)
{
    (void)state;
    double x[2] = {0, 0};
    kc_err err = {0};
    assert_int_equal(kc_mpi_fft(x, -1, -1, MPI_COMM_WORLD, &err), KC_ERANGE);
    assert_string_equal(err.param, "d");
    assert_int_equal(kc_mpi_fft(x, 0, 2, MPI_COMM_WORLD, &err), KC_EINVAL);
    assert_string_equal(err.param, "sign");
    /* Three processes are no cube. */
    MPI_Comm three;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank() < 3, world_rank(), &three);
    if (world_rank() < 3) {
        assert_int_equal(kc_mpi_fft(x, 0, -1, three, &err), KC_EINVAL);
        assert_string_equal(err.param, "comm");
    }
    MPI_Comm_free(&three);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fft_world),
    cmocka_unit_test(test_fft_mapped),
    cmocka_unit_test(test_fft_errors),
};

KC_MPI_TEST_MAIN(tests)
