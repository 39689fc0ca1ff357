/* sim_random.h - random simulator configurations shared by test_sim_trains.c
 * (worm-level loop against the flit loop), test_sim_stream.c (stream loop
 * against the flit loop) and test_sim_threads.c (one run on 1..4 threads):
 * each compares two engines on the same draws; and the fixed uniform
 * n-cube scenario test_sim.c and test_sim_inject.c start from. */
#ifndef KC_TEST_SIM_RANDOM_H
#define KC_TEST_SIM_RANDOM_H
#include <stddef.h>
#include <stdint.h>

#include "kcube/rng.h"
#include "kcube/sim.h"
#include "kcube/simscenario.h"

/* The binary n-cube with uniform traffic, every other choice the spec's
 * default, into sc (free it with kc_simscenario_free). */
void kc_test_sim_uniform_cube(kc_simscenario *sc, int n);

/* A random network and routing the worm-level loop applies to: hypercubes
 * of 3 .. 2 + n_span dimensions (e-cube, P-cube, Duato with independent
 * VCs, Li-Min), small tori (VC rules and tie rules; one ring kind may
 * deadlock), meshes; 1-2 injection and ejection ports, route delay 0-2,
 * watchdog 200. c must hold kc_simconfig_default's values. */
void kc_test_sim_random_net(kc_rng *rng, int n_span, kc_simnet *net, kc_simroute *route, kc_simconfig *c);

/* A random network for the stream loop against the flit loop: binary
 * cubes of 2 .. 1 + n_span dimensions (e-cube with 1-3 VCs, Duato), rings
 * and 2-D tori (VC rules and tie rules; rings without VC rules may
 * deadlock), meshes; buffer depth 1-16, VC links automatic, shared or
 * independent, route and switch delay 0-3, link latency 1-3, watchdog 200.
 * c must hold kc_simconfig_default's values. */
void kc_test_sim_random_deep_net(kc_rng *rng, int n_span, kc_simnet *net, kc_simroute *route, kc_simconfig *c);

/* The windows of a random loaded run: warmup in [warmup, warmup + warmup_span),
 * measure likewise, drain in [0, drain_span). */
typedef struct kc_test_sim_windows {
    int64_t warmup, warmup_span, measure, measure_span, drain_span;
} kc_test_sim_windows;

/* A random loaded run on net with that seed: message length 1-32, load
 * 0.02-0.62, Poisson, Bernoulli or Bernoulli drawn as gaps, windows from w, per-link counts, one-shot
 * runs (1-3 random messages a node), queue caps; and its traffic in tr: the
 * one-shot pairs, a digit pattern on hypercubes, or uniform. */
void kc_test_sim_random_load(kc_rng *rng, const kc_simnet *net, uint64_t seed, const kc_test_sim_windows *w,
                             kc_simconfig *c, kc_simtraffic *tr);

/* A k-node ring with one VC and no VC rule (it deadlocks): one-shot
 * messages of len flits from every node half way round, and from every odd
 * node to its neighbour; watchdog 40, route delay k mod 2. */
void kc_test_sim_deadlock_ring(int k, int len, kc_simnet *net, kc_simroute *route, kc_simtraffic *tr,
                               kc_simconfig *c);

/* That ring with depth-flit buffers, that switch delay and link latency,
 * run by the flit loop and by the loop the engine picks (b_name): fails
 * the test unless both stop at the same cycle with the same blocked cycle
 * of channels and the same figures (cfg numbers it in the message).
 * Returns 1 on a deadlock. */
int kc_test_sim_ring_pair(int k, int len, int depth, int switch_delay, int link_latency, const char *b_name, int cfg);

/* Seeds rng with seed, sets c to kc_simconfig_default's values and draws
 * a random network into net and route: kc_test_sim_random_deep_net when
 * deep, else kc_test_sim_random_net. */
void kc_test_sim_random_setup(kc_rng *rng, uint64_t seed, int deep, int n_span, kc_simnet *net, kc_simroute *route,
                              kc_simconfig *c);

/* One cycle of two driven runs, d[0] the flit loop's and d[1] the loop
 * b_name names, at cycle t of configuration cfg: fails the test unless
 * both deliver the same messages in the same order at the same cycles.
 * Returns the deliveries. */
size_t kc_test_sim_step_pair(kc_simdrive *d[2], int64_t t, const char *b_name, int cfg);

/* A driven run on net twice, the flit loop against the loop the engine
 * picks (b_name): messages of random lengths (up to 1-40 flits) sent at
 * random cycles, 0.002 + rate_span x a uniform draw messages per node and
 * cycle, for 200-600 cycles; fails the test unless every delivery (id,
 * cycle, order), the deadlock and the final result agree. Returns 1 when
 * something was delivered or the run deadlocked. */
int kc_test_sim_drive_pair(kc_rng *rng, const kc_simnet *net, const kc_simroute *route, const kc_simconfig *c,
                           double rate_span, const char *b_name, int cfg);

/* Fails the test unless a and b agree in every figure of the result, the
 * deadlock cycle, the per-link counts (links of them, when either has
 * them) and, when la or lb is given, every delivery in order (na and nb of
 * them). a_name and b_name say which run is which in the message; cfg
 * numbers the configuration. */
void kc_test_sim_expect_same(const kc_simresult *a, const kc_simresult *b, size_t links, const kc_simarrival *la,
                             size_t na, const kc_simarrival *lb, size_t nb, const char *a_name, const char *b_name,
                             int cfg);

#endif
