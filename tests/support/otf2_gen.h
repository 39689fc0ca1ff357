/* otf2_gen.h - a synthetic MPI trace written with OTF2's own writer, for
 * the reader's allocation-failure case (tests/test_alloc_fail.c) and the
 * reading benchmark (bench/bench_trace_read.c), which needs archives far
 * larger than the Python writer makes in reasonable time. */
#ifndef KC_TEST_OTF2_GEN_H
#define KC_TEST_OTF2_GEN_H

#include <stdint.h>

/* Write an archive of `ranks` MPI ranks (2 or more) into directory `dir`
 * (anchor dir/traces.otf2): each rank runs `iters` iterations of a region
 * "iteration" holding a ring exchange on MPI_COMM_WORLD (MpiIsend to the
 * right, MpiIrecvRequest and MpiIrecv from the left, MpiIsendComplete), a
 * blocking pair exchange on the communicator of the even ranks or of the odd
 * ranks (in reverse order), and an allreduce; 12 events per iteration and
 * rank, 1 GHz ticks. Two hosts, half the ranks each. Returns 0, or -1 when
 * OTF2 refuses (dir not writable, disk full). */
int kc_test_otf2_write(const char *dir, uint32_t ranks, uint64_t iters);

/* The events kc_test_otf2_write declares per rank and iteration. */
#define KC_TEST_OTF2_EVENTS_PER_ITER 12u

#endif
