/* tests/mpi/mpi_test.h - what the tests of libkcube-mpi (tests/mpi/test_*.c,
 * run under tests/support/mpirun.sh) share: the one-host machine in which
 * slot s of this host is node s, so world rank r runs on node r; an
 * agreement on test outcomes (a check that fails on one rank must fail on
 * all, or the others would wait in the next collective); and the main
 * function around cmocka. Header-only: each test is one program. */
#ifndef KC_TEST_MPI_TEST_H
#define KC_TEST_MPI_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/mpi.h"

static inline int world_rank(void)
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static inline int world_size(void)
{
    int s = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

static inline int log2_exact(int p)
{
    int n = 0;
    while ((1 << n) < p)
        n++;
    return n;
}

/* 1 when ok holds on every rank of MPI_COMM_WORLD. */
static inline int all_ok(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

/* The machine of topology t (t->nodes == world size) on this host: slot s
 * is node s (kc_machine_rule with this host's name and nodes slots). */
static inline void local_machine(const kc_topology *t, kc_machine *hosts, kc_mpi_machine *m,
                                 const kc_mapgen_opts *opts)
{
    char name[MPI_MAX_PROCESSOR_NAME + 1];
    int len = 0;
    MPI_Get_processor_name(name, &len);
    name[len] = '\0';
    kc_err err = {0};
    kc_status s = kc_machine_rule(hosts, t, name, (uint32_t)t->nodes, 0, KC_FILL_FIRST_AXIS, &err);
    if (s)
        fprintf(stderr, "machine for host '%s': %s\n", name, err.msg);
    assert_int_equal(s, KC_OK);
    m->topo = t;
    m->hosts = hosts;
    m->map = opts;
}

/* Mapper options for tests: a small fixed budget (deterministic work units)
 * so each mapping takes a few milliseconds on a few nodes. */
static inline void test_map_opts(kc_mapgen_opts *o)
{
    kc_mapgen_opts_default(o);
    o->search.budget_seconds = 0.02;
}

/* The world rank of each rank of comm (size entries). */
static inline void world_ranks_of(MPI_Comm comm, int *out)
{
    int me = world_rank();
    MPI_Allgather(&me, 1, MPI_INT, out, 1, MPI_INT, comm);
}

#define KC_MPI_TEST_MAIN(tests)                                                                                    \
    int main(int argc, char **argv)                                                                                \
    {                                                                                                              \
        MPI_Init(&argc, &argv);                                                                                    \
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);                                                \
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);                                                 \
        int failed = cmocka_run_group_tests(tests, NULL, NULL);                                                    \
        MPI_Finalize();                                                                                            \
        return failed ? 1 : 0;                                                                                     \
    }

#endif
