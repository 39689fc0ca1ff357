/* Allocation failure through the public API. The test is linked with
 * -Wl,--wrap=malloc,calloc,realloc,free,strdup against the static library
 * (tests/CMakeLists.txt), so every allocation the library makes passes
 * through the counter below, which can fail the k-th one. Each case is a
 * short, valid use of a group of public entry points that allocate (set up,
 * call, free); it first runs with no failure, counting its allocations A,
 * then once for each k = 1..A (a spread sample of k beyond
 * MAX_EXACT_POINTS, which no case reaches now) with the k-th allocation
 * failed. Every such run must return KC_ENOMEM with kc_err saying so, and
 * after the case's own clean-up (the matching free functions, which must
 * accept whatever a failed call left) the number of live allocations must
 * be what it was before: a leak shows here even without AddressSanitizer,
 * and a half-written output shows as a crash or a double free under it.
 * The closing line gives the number of entry points and failure points
 * covered; scripts/alloc_entry_points.py BUILD --check tests/test_alloc_fail.c
 * lists the public functions whose code reaches an allocation that no case
 * names.
 *
 * The counter is process-wide state by necessity (malloc has no context
 * argument); it lives only in this test, never in the library. To find
 * the call behind a broken run, set KC_ALLOC_CASE=NAME (that case only),
 * KC_ALLOC_AT=K (that failure point only) and KC_ALLOC_TRACE=1 (each
 * injected failure prints its stack on stderr, for addr2line -f -e). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <complex.h>
#include <execinfo.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/appsim.h"
#include "kcube/butterfly.h"
#include "kcube/calmant_alltoall.h"
#include "kcube/calmant_embed.h"
#include "kcube/calmant_load.h"
#include "kcube/calmant_sched.h"
#include "kcube/chanload.h"
#include "kcube/comm.h"
#include "kcube/contention.h"
#include "kcube/gmap.h"
#include "kcube/goal.h"
#include "kcube/hl.h"
#include "kcube/hl_class.h"
#include "kcube/hl_mesh.h"
#include "kcube/lcc.h"
#include "kcube/machine.h"
#include "kcube/mapgeneral.h"
#include "kcube/mapset.h"
#include "kcube/netload.h"
#include "kcube/netpreset.h"
#include "kcube/nodemap.h"
#include "kcube/plan.h"
#include "kcube/reorder.h"
#include "kcube/scotchmap.h"
#include "kcube/sim.h"
#include "kcube/simnet.h"
#include "kcube/simref.h"
#include "kcube/simscenario.h"
#include "kcube/simstats.h"
#include "kcube/simsweep.h"
#include "kcube/simtraffic.h"
#include "kcube/stepnet.h"
#include "kcube/torus.h"
#include "kcube/torusmap.h"
#include "kcube/topology.h"
#include "kcube/traffic_gen.h"
#include "kcube/loggops.h"
#include "kcube/reader.h"
#include "kcube/timeline.h"
#include "kcube/traffic.h"
#include "kcube/trace.h"
#include "otf2_gen.h"

/* ---- the counting allocator ----------------------------------------------- */

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);

static atomic_long seen;    /* allocation attempts since the case began */
static atomic_long fail_at; /* the attempt to fail (1-based); 0: none */
static atomic_long failed;  /* failures injected in this run */
static atomic_long live;    /* successful allocations minus frees, ever */

/* One allocation attempt: 0 when it is the one to fail. */
static int attempt(void)
{
    long k = atomic_fetch_add(&seen, 1) + 1;
    if (k == atomic_load(&fail_at)) {
        atomic_fetch_add(&failed, 1);
        if (getenv("KC_ALLOC_TRACE")) {
            void *frames[16];
            backtrace_symbols_fd(frames, backtrace(frames, 16), 2);
        }
        return 0;
    }
    return 1;
}

void *__wrap_malloc(size_t size)
{
    void *p = attempt() ? __real_malloc(size) : NULL;
    if (p)
        atomic_fetch_add(&live, 1);
    return p;
}

void *__wrap_calloc(size_t count, size_t size)
{
    void *p = attempt() ? __real_calloc(count, size) : NULL;
    if (p)
        atomic_fetch_add(&live, 1);
    return p;
}

/* realloc(p, n) with n > 0 is an attempt; a failed one leaves p alone, as
 * the real one does. */
void *__wrap_realloc(void *p, size_t size)
{
    if (size && !attempt())
        return NULL;
    void *q = __real_realloc(p, size);
    if (q && !p)
        atomic_fetch_add(&live, 1);
    else if (!q && p && !size)
        atomic_fetch_sub(&live, 1);
    return q;
}

void __wrap_free(void *p)
{
    if (p)
        atomic_fetch_sub(&live, 1);
    __real_free(p);
}

char *__wrap_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = __wrap_malloc(n);
    return d ? memcpy(d, s, n) : NULL;
}

/* ---- the cases -------------------------------------------------------------- */

/* A case runs one valid use of its entry points and frees everything it
 * made, whatever failed; it returns the first status that was not KC_OK. */
typedef kc_status (*case_fn)(kc_err *err);

typedef struct alloc_case {
    const char *name;
    const char *entries; /* the public entry points it calls, blank-separated */
    case_fn run;
} alloc_case;

#define TRY(call)                                                                                                    \
    do {                                                                                                             \
        if ((st = (call)) != KC_OK)                                                                                  \
            goto out;                                                                                                \
    } while (0)

static const char pingpong[] = "num_ranks 2\n"
                               "rank 0 {\nl1: send 100b to 1 tag 0\nl2: recv 100b from 1 tag 0\nl2 requires l1\n}\n"
                               "rank 1 {\nl1: recv 100b from 0 tag 0\nl2: send 100b to 0 tag 0\nl2 requires l1\n}\n";

/* The ping-pong above as a schedule (the reader's allocations included). */
static kc_status read_pingpong(kc_goal *g, kc_err *err)
{
    return kc_goal_read_mem(g, pingpong, strlen(pingpong), "pingpong", NULL, 0, err);
}

static kc_status case_goal_build(kc_err *err)
{
    kc_status st;
    kc_goal g;
    kc_goal_match m = {0};
    size_t a, b, c, d;
    FILE *sink = fopen("/dev/null", "w");
    if (!sink)
        return kc_fail(err, KC_EIO, "/dev/null");
    if ((st = kc_goal_init(&g, 2, err)) != KC_OK)
        goto out_file;
    TRY(kc_goal_set_phase(&g, "exchange", err));
    TRY(kc_goal_add(&g, KC_GOAL_SEND, 0, 1, 0, 100, "a", 0, &a, err));
    TRY(kc_goal_add(&g, KC_GOAL_RECV, 1, 0, 0, 100, "b", 0, &b, err));
    TRY(kc_goal_add(&g, KC_GOAL_CALC, 1, 0, 0, 500, NULL, 0, &c, err));
    TRY(kc_goal_add(&g, KC_GOAL_CALC, 0, 0, 0, 500, NULL, 0, &d, err));
    TRY(kc_goal_depend(&g, c, b, 0, 0, err));
    TRY(kc_goal_depend(&g, d, a, 1, 0, err));
    TRY(kc_goal_gen_complete_exchange(&g, 1, 64, (kc_goal_cx)0, "cx", 10, err));
    TRY(kc_goal_gen_complete_exchange_pipelined(&g, 1, 64, 2, "cxp", 20, err));
    TRY(kc_goal_validate(&g, 2, &m, err));
    double total;
    TRY(kc_goal_loggp(&g, &m, NULL, &total, NULL, err));
    TRY(kc_goal_write(&g, sink, err));
    const uint32_t swap[2] = {1, 0};
    TRY(kc_goal_remap(&g, swap, err));
out:
    kc_goal_match_free(&m);
    kc_goal_free(&g);
out_file:
    fclose(sink);
    return st;
}

static kc_status case_goal_fft(kc_err *err)
{
    kc_status st;
    kc_goal g;
    if ((st = kc_goal_init(&g, 4, err)) != KC_OK)
        return st;
    kc_goal h;
    if ((st = kc_goal_init(&h, 4, err)) != KC_OK)
        goto out_g;
    TRY(kc_goal_gen_fft(&g, 2, 1, 5120, 4470, err));
    TRY(kc_goal_gen_fft_parts(&h, 2, 1, 5120, 4470, 2, err));
    kc_lcc c;
    TRY(kc_lcc_named(&c, "bit-reverse", 2, err));
    TRY(kc_goal_gen_lcc(&h, &c, 64, "lcc", 5, err));
out:
    kc_goal_free(&h);
out_g:
    kc_goal_free(&g);
    return st;
}

/* A schedule read from text, validated and timed: with the nCUBE 2
 * processor model's timeline and LogGOPS (wild 0), or LogGOPS's own
 * timeline (wild 1: the validation's run-time path and the wildcard
 * queues). */
static kc_status goal_timed(const char *text, const char *name, uint32_t ranks, int wild, kc_err *err)
{
    kc_status st;
    kc_goal g;
    kc_goal_match m = {0};
    kc_timeline tl;
    kc_loggops_result lr;
    const kc_loggops_params p = KC_LOGGOPS_PARAMS_DEFAULT;
    if ((st = kc_goal_read_mem(&g, text, strlen(text), name, NULL, 0, err)) != KC_OK)
        return st;
    if ((st = kc_timeline_init(&tl, ranks, err)) != KC_OK)
        goto out_goal;
    TRY(kc_goal_validate(&g, 0, &m, err));
    if (wild) {
        TRY(kc_timeline_loggops(&g, &p, &tl, &lr, err));
    } else {
        double total;
        const kc_goal_timing t = KC_GOAL_TIMING_DEFAULT;
        TRY(kc_goal_loggp_record(&g, &m, &t, NULL, &total, NULL, &tl, err));
        TRY(kc_loggops_run(&g, &p, NULL, NULL, &lr, err));
    }
    kc_loggops_result_free(&lr);
out:
    kc_timeline_free(&tl);
    kc_goal_match_free(&m);
out_goal:
    kc_goal_free(&g);
    return st;
}

static kc_status case_goal_read(kc_err *err) { return goal_timed(pingpong, "pingpong", 2, 0, err); }

/* A gather into rank 0 by any-source, any-tag receives that the file's
 * order cannot pair (rank 1 sends after rank 0's first receive). */
static const char wild_gather[] = "num_ranks 3\n"
                                  "rank 0 {\nl1: recv 8b from -1 tag -1\nl2: recv 8b from -1 tag -1\n"
                                  "go: send 1b to 1 tag 9\ngo requires l1\n}\n"
                                  "rank 1 {\nw: recv 1b from 0 tag 9\ns: send 8b to 0 tag 5\ns requires w\n}\n"
                                  "rank 2 {\ns: send 8b to 0 tag 5\n}\n";

static kc_status case_goal_wild(kc_err *err) { return goal_timed(wild_gather, "gather", 3, 1, err); }

static kc_status case_timeline(kc_err *err)
{
    kc_status st;
    kc_timeline tl;
    if ((st = kc_timeline_init(&tl, 2, err)) != KC_OK)
        return st;
    size_t from, to;
    kc_tl_slice s = {.dur_us = 1, .amount = 8, .peer = 1, .tag = 0, .rank = 0, .kind = KC_TL_SEND, .op = 0};
    TRY(kc_timeline_add_slice(&tl, &s, &from, err));
    s = (kc_tl_slice){.start_us = 2, .posted_us = 0, .amount = 8, .peer = 0, .tag = 0, .rank = 1, .kind = KC_TL_RECV,
                      .op = 1};
    TRY(kc_timeline_add_slice(&tl, &s, &to, err));
    TRY(kc_timeline_add_flow(&tl, from, to, err));
out:
    kc_timeline_free(&tl);
    return st;
}

static kc_status case_reader(kc_err *err)
{
    static const char text[] = "# nodes\nhost 7\n8, 9\n10\n3 1 2 0\n";
    kc_status st;
    kc_reader *r;
    if ((st = kc_reader_open_mem(&r, text, strlen(text), "nodes", "mapping", NULL, err)) != KC_OK)
        return st;
    uint32_t nodes[4];
    kc_token tok[4];
    int have, got;
    TRY(kc_reader_words(r, tok, 2, &got, err));
    TRY(kc_reader_record_some(r, tok, 1, 3, "a,b,c", &got, err));
    TRY(kc_reader_next(r, tok, &have, err));
    TRY(kc_read_nodelist(r, nodes, 4, 1, err));
out:
    kc_reader_close(r);
    return st;
}

static kc_status case_network(kc_err *err)
{
    static const char text[] = "5\n1 2 1\n0,0,0\n";
    int sides[3] = {4, 3, 2};
    kc_topology t;
    kc_allocation a = {0};
    kc_reader *r = NULL;
    kc_status st = kc_topology_shape(&t, KC_TOPO_TORUS, sides, 3, KC_TIE_PLUS, err);
    if (st)
        return st;
    TRY(kc_reader_open_mem(&r, text, strlen(text), "allocation", "nodes_file", NULL, err));
    TRY(kc_alloc_read(&a, r, &t, err));
    TRY(kc_topology_set_alloc(&t, a.router, a.count, err));
    kc_reader_close(r);
    r = NULL;
    static const char list[] = "21\n0\n";
    uint32_t slot[3];
    uint64_t count;
    TRY(kc_reader_open_mem(&r, list, strlen(list), "mapping", "mapping_file", NULL, err));
    TRY(kc_topology_read_slots(r, &t, 1, 3, slot, &count, err));
out:
    kc_reader_close(r);
    kc_alloc_free(&a);
    return st;
}

static kc_status case_traffic(kc_err *err)
{
    static const char text[] = "0 1 5\n# phase two\n1 2\n2 3 7\n";
    static const char grf[] = "0\n4 6\n0 000\n1 1\n2 0 2\n2 1 3\n1 2\n";
    kc_status st;
    kc_traffic t, u, v;
    kc_reader *r = NULL;
    if ((st = kc_traffic_init(&t, 4, err)) != KC_OK)
        return st;
    if ((st = kc_traffic_init(&u, 4, err)) != KC_OK)
        goto out_t;
    if ((st = kc_traffic_init(&v, 4, err)) != KC_OK)
        goto out_u;
    TRY(kc_traffic_add(&t, 0, 1, 10, err));
    TRY(kc_traffic_begin_group(&t, err));
    TRY(kc_traffic_add(&t, 1, 2, 10, err));
    TRY(kc_traffic_set_phase(&t, "late", err));
    TRY(kc_traffic_add(&t, 2, 3, 10, err));
    TRY(kc_reader_open_mem(&r, text, strlen(text), "traffic", "traffic_file", NULL, err));
    TRY(kc_traffic_read(&u, r, err));
    kc_reader_close(r);
    r = NULL;
    TRY(kc_reader_open_mem(&r, grf, strlen(grf), "graph", "traffic_file", NULL, err));
    TRY(kc_traffic_read_grf(&v, r, err));
out:
    kc_reader_close(r);
    kc_traffic_free(&v);
out_u:
    kc_traffic_free(&u);
out_t:
    kc_traffic_free(&t);
    return st;
}

/* CSV with a header, a matrix and an auto-read list, each through its
 * reader; the allocations of growing token arrays and phases among them. */
static kc_status case_traffic_formats(kc_err *err)
{
    static const char *const texts[] = {"src,\"dst\",bytes\n0,1,5\n# phase b\n\"1\",2,7\n",
                                        "0 1 0 0 2\n0 0 0 0 0\n3 0 0 0 0\n0 0 0 0 0\n0 0 0 0 1\n",
                                        "# phase a\n0 1 5\n1 2 5\n2 0 5\n"};
    static const kc_traffic_format formats[] = {KC_TRAFFIC_CSV, KC_TRAFFIC_MATRIX, KC_TRAFFIC_AUTO};
    kc_status st = KC_OK;
    for (int i = 0; i < 3 && !st; i++) {
        kc_traffic t;
        kc_reader *r = NULL;
        if ((st = kc_traffic_init(&t, (uint64_t)1 << 32, err)) != KC_OK)
            return st;
        st = kc_reader_open_mem(&r, texts[i], strlen(texts[i]), "traffic", "traffic_file", NULL, err);
        kc_traffic_source src;
        if (!st && !(st = kc_traffic_read_as(&t, r, formats[i], &src, err)))
            st = kc_traffic_set_ranks(&t, src.ranks, err);
        kc_reader_close(r);
        kc_traffic_free(&t);
    }
    return st;
}

static kc_status case_traffic_goal(kc_err *err)
{
    kc_status st;
    kc_goal g;
    kc_traffic t;
    if ((st = read_pingpong(&g, err)) != KC_OK)
        return st;
    if ((st = kc_traffic_init(&t, 2, err)) == KC_OK) {
        st = kc_traffic_from_goal(&t, &g, err);
        kc_traffic_free(&t);
    }
    kc_goal_free(&g);
    return st;
}

static kc_status case_plan(kc_err *err)
{
    kc_status st;
    kc_topology t;
    kc_comm c[2];
    kc_analysis an;
    kc_map_result mr;
    memset(&mr, 0, sizeof mr);
    if ((st = kc_topology_hypercube(&t, 6, err)) || (st = kc_comm_named(&c[0], &t, "transpose", err)) ||
        (st = kc_comm_named(&c[1], &t, "bit-reverse", err)))
        return st;
    kc_analyze_opts ao;
    kc_analyze_opts_default(&ao);
    ao.exact = 1;
    TRY(kc_analyze(&t, &c[0], &ao, &an, err));
    kc_map_opts mo;
    kc_map_opts_default(&mo);
    mo.budget = 50;
    TRY(kc_map(&t, c, 2, &mo, &mr, err));
out:
    kc_map_result_free(&mr);
    return st;
}

static kc_status case_plan_torus(kc_err *err)
{
    kc_status st;
    kc_topology t;
    kc_comm c;
    kc_analysis an;
    kc_map_result mr;
    memset(&mr, 0, sizeof mr);
    if ((st = kc_topology_torus(&t, 4, 2, KC_TIE_SPLIT, err)) || (st = kc_comm_named(&c, &t, "transpose", err)))
        return st;
    kc_analyze_opts ao;
    kc_analyze_opts_default(&ao);
    ao.exact = 1;
    TRY(kc_analyze(&t, &c, &ao, &an, err));
    kc_map_opts mo;
    kc_map_opts_default(&mo);
    mo.budget = 50;
    TRY(kc_map(&t, &c, 1, &mo, &mr, err));
out:
    kc_map_result_free(&mr);
    return st;
}

static kc_status case_contention(kc_err *err)
{
    kc_status st;
    kc_lcc c, g;
    kc_contention out;
    kc_reorder_result rr;
    if ((st = kc_lcc_named(&c, "bit-reverse", 6, err)) || (st = kc_lcc_named(&g, "scale-2x", 6, err)))
        return st;
    kc_exact_opts eo;
    kc_exact_opts_default(&eo);
    eo.threads = 2;
    if ((st = kc_contention_exact(&c, &out, NULL, err)) || (st = kc_contention_exact_ex(&c, &eo, &out, NULL, err)) ||
        (st = kc_contention_paths(&c, &out, err)) || (st = kc_reorder_best(&g, &rr, NULL, err)))
        return st;
    return KC_OK;
}

static kc_status case_mapset(kc_err *err)
{
    kc_status st;
    kc_lcc c[2];
    kc_mapset_result r;
    if ((st = kc_lcc_named(&c[0], "transpose", 6, err)) || (st = kc_lcc_named(&c[1], "bit-reverse", 6, err)))
        return st;
    kc_mapset_opts o;
    kc_mapset_opts_default(&o);
    o.threads = 2;
    kc_mapset_search_opts so;
    kc_mapset_search_opts_default(&so);
    so.work = 2000;
    kc_mapset_search_result sr;
    kc_mapset_bound_opts bo;
    kc_mapset_bound_opts_default(&bo);
    kc_mapset_bound_result br;
    if ((st = kc_mapset_optimal(c, 2, KC_OBJ_MAX, &r, NULL, err)) ||
        (st = kc_mapset_optimal_ex(c, 2, KC_OBJ_MAX, &o, &r, NULL, err)) ||
        (st = kc_mapset_naive(c, 2, KC_OBJ_MAX, &r, err)) ||
        (st = kc_mapset_search(c, 2, KC_OBJ_MAX, &so, &sr, NULL, err)) ||
        (st = kc_mapset_bound(c, 2, KC_OBJ_MAX, &bo, &br, err)))
        return st;
    return KC_OK;
}

static kc_status case_traffic_gen(kc_err *err)
{
    kc_status st;
    kc_topology topo;
    kc_comm c;
    kc_traffic t;
    kc_rng rng;
    kc_rng_seed(&rng, 3);
    const int shape[2] = {4, 4};
    if ((st = kc_topology_hypercube(&topo, 4, err)) || (st = kc_comm_named(&c, &topo, "uniform", err)) ||
        (st = kc_traffic_init(&t, 16, err)))
        return st;
    TRY(kc_traffic_gen_halo(&t, shape, 2, 1, 8, err));
    TRY(kc_traffic_gen_stencil(&t, KC_STENCIL_9PT, shape, 2, 0, KC_GRID_AXIS0_SLOWEST, 8, err));
    TRY(kc_traffic_gen_collective(&t, (kc_collective)0, 8, err));
    TRY(kc_traffic_gen_random(&t, 2, 8, 5, err));
    TRY(kc_traffic_gen_all_to_all(&t, 8, err));
    TRY(kc_traffic_gen_patterns(&t, &topo, "transpose+bit-reverse", 8, 1, err));
    TRY(kc_traffic_gen_set(&t, &topo, (kc_traffic_set)0, 8, err));
    TRY(kc_traffic_add_comm(&t, &c, 8, &rng, err));
out:
    kc_traffic_free(&t);
    return st;
}

/* A 4 x 4 periodic halo on the 4-cube, in two groups. */
static kc_status halo_traffic(kc_topology *topo, kc_traffic *t, kc_err *err)
{
    const int shape[2] = {4, 4};
    kc_status st = kc_topology_hypercube(topo, 4, err);
    if (st || (st = kc_traffic_init(t, 16, err)))
        return st;
    if ((st = kc_traffic_gen_halo(t, shape, 2, 1, 8, err)) || (st = kc_traffic_begin_group(t, err)) ||
        (st = kc_traffic_gen_random(t, 1, 8, 5, err)))
        kc_traffic_free(t);
    return st;
}

static kc_status case_chanload(kc_err *err)
{
    kc_status st;
    kc_topology topo;
    kc_traffic t;
    kc_chanload *cl = NULL, *layered = NULL;
    uint32_t id[16];
    for (uint32_t i = 0; i < 16; i++)
        id[i] = i ^ 5;
    if ((st = halo_traffic(&topo, &t, err)))
        return st;
    kc_cost cost;
    uint64_t maxes[2], work = 0;
    const uint32_t xs[2] = {0, 3}, ys[2] = {7, 9};
    TRY(kc_chanload_eval(&topo, &t, id, &cost, err));
    TRY(kc_chanload_new(&cl, &topo, &t, err));
    TRY(kc_chanload_set(cl, id, err));
    kc_chanload_swap(cl, 1, 2);
    TRY(kc_chanload_swaps(cl, xs, ys, 2, &work, err));
    TRY(kc_chanload_group_max(cl, &t, t.group, t.groups, maxes, err));
    TRY(kc_chanload_new_layered(&layered, &topo, &t, t.group, t.groups, err));
out:
    kc_chanload_free(layered);
    kc_chanload_free(cl);
    kc_traffic_free(&t);
    return st;
}

static kc_status case_gmap(kc_err *err)
{
    kc_status st;
    kc_topology topo;
    kc_traffic t;
    uint32_t id[16], scotch[16];
    for (uint32_t i = 0; i < 16; i++)
        id[i] = i;
    if ((st = halo_traffic(&topo, &t, err)))
        return st;
    kc_gmap_start starts[1] = {{"identity", id}};
    kc_gmap_opts o;
    kc_gmap_opts_default(&o);
    o.budget_seconds = 0;
    o.iterations = 300;
    o.group = t.group;
    o.groups = t.groups;
    o.separate = 1;
    kc_gmap_result r;
    memset(&r, 0, sizeof r);
    TRY(kc_gmap_run(&topo, &t, starts, 1, &o, &r, err));
    if (kc_scotch_available()) {
        kc_scotch_info info;
        TRY(kc_scotch_map(&topo, &t, 1, scotch, err));
        TRY(kc_scotch_map_info(&topo, &t, 2, scotch, &info, err));
        TRY(kc_scotch_map_tool(&topo, &t, 3, scotch, &info, err));
    }
out:
    kc_gmap_result_free(&r);
    kc_traffic_free(&t);
    return st;
}

static kc_status case_mapgen(kc_err *err)
{
    kc_status st;
    kc_topology topo;
    kc_traffic t;
    kc_comm c[KC_MAPGEN_MAX_FOUND];
    int found = 0;
    if ((st = kc_topology_hypercube(&topo, 4, err)) || (st = kc_traffic_init(&t, 16, err)))
        return st;
    kc_mapgen_result r;
    memset(&r, 0, sizeof r);
    TRY(kc_traffic_gen_patterns(&t, &topo, "transpose+bit-reverse", 8, 1, err));
    TRY(kc_mapgen_find_lcc(&topo, &t, 0, t.count, c, KC_MAPGEN_MAX_FOUND, &found, err));
    kc_mapgen_opts o;
    kc_mapgen_opts_default(&o);
    o.search.budget_seconds = 0;
    o.search.iterations = 200;
    o.scotch_seeds = 1;
    TRY(kc_mapgen_run(&topo, &t, c, found, &o, &r, err));
out:
    kc_mapgen_result_free(&r);
    kc_traffic_free(&t);
    return st;
}

/* A short, light simulation on a small network. */
static void small_config(kc_simconfig *cfg)
{
    kc_simconfig_default(cfg);
    cfg->load = 0.05;
    cfg->warmup = 50;
    cfg->measure = 200;
    cfg->drain = 5000;
    cfg->msg_flits = 4;
}

/* kc_simscenario_build for spec (n-cube unless k is set), then f on it. */
static kc_status with_scenario(int k, int n, const char *pattern, const char *mapping,
                               kc_status (*f)(const kc_simscenario *sc, const kc_simconfig *cfg, kc_err *err),
                               kc_err *err)
{
    kc_simspec spec;
    kc_simspec_default(&spec);
    spec.k = k;
    spec.n = n;
    spec.pattern = pattern;
    spec.mapping = mapping;
    kc_simconfig cfg;
    small_config(&cfg);
    kc_simscenario sc;
    kc_status st = kc_simspec_resolve(&spec, &cfg, err);
    if (st || (st = kc_simscenario_build(&sc, &spec, err)))
        return st;
    st = f(&sc, &cfg, err);
    kc_simscenario_free(&sc);
    return st;
}

static kc_status sim_run(const kc_simscenario *sc, const kc_simconfig *cfg, kc_err *err)
{
    kc_simresult r;
    long long contention;
    kc_status st = kc_sim_run(&sc->net, &sc->route, &sc->traffic, cfg, &r, err);
    if (st)
        return st;
    kc_simresult_free(&r);
    return kc_simtraffic_contention(&sc->net, &sc->route, &sc->traffic, &contention, err);
}

static kc_status sim_sweep(const kc_simscenario *sc, const kc_simconfig *cfg, kc_err *err)
{
    const double loads[2] = {0.02, 0.05};
    kc_simsweep_opts o;
    kc_simsweep_opts_default(&o);
    o.loads = loads;
    o.count = 2;
    o.threads = 2;
    kc_simsweep sw;
    kc_status st = kc_sim_sweep(&sc->net, &sc->route, &sc->traffic, cfg, &o, &sw, err);
    if (!st)
        kc_simsweep_free(&sw);
    return st;
}

static kc_status sim_drive(const kc_simscenario *sc, const kc_simconfig *cfg, kc_err *err)
{
    kc_simdrive *d;
    kc_status st = kc_simdrive_new(&sc->net, &sc->route, cfg, &d, err);
    if (st)
        return st;
    for (uint32_t x = 0; x < 8 && !st; x++)
        st = kc_simdrive_send(d, x, 7 - x, 6, x, err);
    for (int c = 0; c < 200 && !st && kc_simdrive_busy(d); c++) {
        const kc_simarrival *arr;
        size_t count;
        st = kc_simdrive_step(d, &arr, &count, err);
    }
    kc_simresult r;
    if (!st && !(st = kc_simdrive_finish(d, &r, err)))
        kc_simresult_free(&r);
    kc_simdrive_free(d);
    return st;
}

static kc_status sim_ref(const kc_simscenario *sc, const kc_simconfig *cfg, kc_err *err)
{
    uint32_t src[8], dst[8];
    for (uint32_t x = 0; x < 8; x++)
        src[x] = x, dst[x] = (x * 5 + 3) % 8;
    kc_simref_result r;
    return kc_simref_run(&sc->net, &sc->route, src, dst, 8, cfg, &r, err);
}

static kc_status case_sim(kc_err *err)
{
    return with_scenario(0, 4, "transpose", "optimal", sim_run, err);
}

/* A stream-loop run on two threads with Bernoulli sources: generation on
 * a thread of its own (its ring, scratch and progress marks). */
static kc_status sim_run_fed(const kc_simscenario *sc, const kc_simconfig *cfg, kc_err *err)
{
    kc_simconfig c = *cfg;
    c.threads = 2;
    c.process = KC_INJECT_BERNOULLI;
    c.switch_delay = 1; /* not the worm-level loop */
    c.load = 0.2;
    return sim_run(sc, &c, err);
}

static kc_status case_sim_fed(kc_err *err)
{
    return with_scenario(0, 4, "uniform", NULL, sim_run_fed, err);
}

static kc_status case_sim_torus(kc_err *err)
{
    return with_scenario(4, 2, "uniform", NULL, sim_run, err);
}

static kc_status case_sim_sweep(kc_err *err)
{
    return with_scenario(0, 3, "bit-reverse", NULL, sim_sweep, err);
}

static kc_status case_sim_drive(kc_err *err)
{
    return with_scenario(0, 3, "bit-reverse", NULL, sim_drive, err);
}

static kc_status case_sim_ref(kc_err *err)
{
    return with_scenario(0, 3, "bit-reverse", NULL, sim_ref, err);
}

static kc_status case_simsample(kc_err *err)
{
    kc_simsample s;
    kc_simsample_init(&s);
    kc_status st = KC_OK;
    for (uint32_t v = 0; v < 40 && !st; v++)
        st = kc_simsample_add(&s, v % 3 ? v : KC_SIMSAMPLE_HIST + v);
    kc_simsample_free(&s);
    return st ? kc_fail(err, st, "out of memory for a sample") : KC_OK;
}

static kc_status case_simconf(kc_err *err)
{
    kc_simalgo algo;
    char *mapping = NULL;
    kc_status st = kc_simconf_parse("ecube@none", NULL, "none", &algo, &mapping, err);
    free(mapping);
    return st;
}

static kc_status app_run(const kc_simscenario *sc, const kc_simconfig *cfg, kc_err *err)
{
    kc_goal g;
    kc_goal_match m = {0};
    kc_timeline tl;
    kc_appsim_result r;
    const kc_appsim_opts o = KC_APPSIM_OPTS_DEFAULT;
    const kc_loggops_params lp = KC_LOGGOPS_PARAMS_DEFAULT;
    kc_appsim_opts lo = o;
    lo.loggops = &lp;
    const kc_appsim_place place = {2, NULL, NULL};
    kc_status st = read_pingpong(&g, err);
    if (st)
        return st;
    if ((st = kc_timeline_init(&tl, 2, err)))
        goto out_goal;
    TRY(kc_goal_validate(&g, 8, &m, err));
    TRY(kc_appsim_run(&g, &m, &sc->net, &sc->route, cfg, &o, &r, err));
    kc_appsim_result_free(&r);
    TRY(kc_appsim_run_placed(&g, &m, &sc->net, &sc->route, cfg, &o, &place, &tl, &r, err));
    kc_appsim_result_free(&r);
    TRY(kc_appsim_run_order(&g, &m, &sc->net, &sc->route, cfg, &lo, NULL, NULL, KC_APPSIM_ORDER_LOGGOPS, &r, err));
    kc_appsim_result_free(&r);
out:
    kc_timeline_free(&tl);
    kc_goal_match_free(&m);
out_goal:
    kc_goal_free(&g);
    return st;
}

static kc_status case_appsim(kc_err *err)
{
    return with_scenario(0, 3, "bit-reverse", NULL, app_run, err);
}

static kc_status case_hl(kc_err *err)
{
    enum { N = 4, NP = 1 << N };
    kc_status st;
    uint32_t dst[NP], path[NP * (N + 1)];
    uint8_t len[NP];
    kc_rng r;
    kc_rng_seed(&r, 7);
    kc_hl_result res;
    kc_hl_engine e;
    kc_hl_circuit circ;
    kc_hl_ecube ec;
    kc_hl_verify_report rep;
    int held;
    if ((st = kc_hl_random_dimension_order(N, 0, &r, dst)) || (st = kc_hl_route(N, dst, NULL, &res, err)) ||
        (st = kc_hl_ecube_simulate(N, dst, &ec, err)) || (st = kc_hl_mimd_greedy(N, dst, &res, &held, err)) ||
        (st = kc_hl_verify(2, 0, 20, 3, &rep, NULL, err)))
        return st == KC_ENOMEM && !err->status ? kc_fail(err, st, "out of memory") : st;
    if ((st = kc_hl_engine_init(&e, N, dst, 2, 1, err)))
        return st;
    if (!(st = kc_hl_run(&e, NULL, &res, err)))
        st = kc_hl_circuit_check(&e, &circ, path, len, err);
    kc_hl_engine_free(&e);
    return st;
}

static kc_status case_hl_classes(kc_err *err)
{
    enum { N = 4, NP = 1 << N };
    kc_status st;
    uint32_t dst[NP];
    kc_rng r;
    kc_rng_seed(&r, 9);
    kc_hl_result res;
    kc_hl_mesh_shape shape;
    kc_hl_mesh_result mesh;
    char buf[64];
    uint64_t count;
    if ((st = kc_hl_random_plc(N, &r, dst)))
        return kc_fail(err, st, "out of memory for a random permutation");
    if ((st = kc_hl_msimd_route(KC_HL_MSIMD_SPLIT, N, dst, &res, err)) ||
        (st = kc_hl_msimd_route(KC_HL_MSIMD_CUT, N, dst, &res, err)) || (st = kc_hl_msimd_run(N, dst, &res, err)) ||
        (st = kc_hl_mesh_parse(&shape, "4x4", N, err)) || (st = kc_hl_mesh_route(&shape, dst, NULL, &res, &mesh, err)) ||
        (st = kc_hl_plc_count(5, 0, buf, sizeof buf, err)) || (st = kc_hl_plc_enumerate(2, &count, err)))
        return st;
    return KC_OK;
}

/* The two deciders answer 1 or 0, and -1 when out of memory. */
static kc_status case_hl_deciders(kc_err *err)
{
    enum { N = 4, NP = 1 << N };
    uint32_t dst[NP];
    kc_rng r;
    kc_rng_seed(&r, 11);
    kc_status st = kc_hl_random_plc(N, &r, dst);
    if (!st && (kc_hl_is_plc(N, dst) < 0 || kc_hl_msimd_routable(N, dst) < 0))
        st = KC_ENOMEM;
    return st ? kc_fail(err, st, "out of memory for a decision") : KC_OK;
}

static kc_status case_hl_census(kc_err *err)
{
    kc_hl_census c;
    return kc_hl_census_run(2, &c, NULL, NULL, err);
}

static kc_status case_stepnet(kc_err *err)
{
    kc_stepnet_topo topo;
    kc_stepnet net;
    kc_status st = kc_stepnet_topo_cube(&topo, 3, err);
    if (st || (st = kc_stepnet_init(&net, &topo, KC_STEPNET_ONE_PORT, err)))
        return st;
    st = kc_stepnet_send(&net, 0, 1, 2, err);
    kc_stepnet_end_step(&net);
    kc_stepnet_free(&net);
    return st;
}

static void ignore_motion(void *ctx, const kc_bfly_motion *m, uint64_t N, uint64_t S)
{
    (void)ctx, (void)m, (void)N, (void)S;
}

static kc_status case_butterfly(kc_err *err)
{
    enum { P = 1 << 6 };
    double complex x[P];
    for (int i = 0; i < P; i++)
        x[i] = i % 5 - 2.0 * I;
    kc_status st = KC_OK;
    for (int m = 0; m < 6 && !st; m++) {
        kc_bfly_opts o = {.method = (kc_bfly_method)m, .out = KC_BFLY_OUT_BINARY, .r = 2};
        kc_bfly_result res;
        if (!(st = kc_scheme_init(&o.scheme, KC_ALLOC_CYCLIC, KC_ENC_GRAY, 2, 6, err)) &&
            !(st = kc_bfly_run(&o, x, &res, err)))
            st = kc_bfly_motions(&o, ignore_motion, NULL, err);
    }
    return st;
}

static kc_status case_calmant(kc_err *err)
{
    kc_status st;
    kc_calmant g, line, torus;
    const kc_calmant_task t = {0, 2}, t1 = {0, 1};
    kc_calmant_sched s = {0}, s1 = {0}, s2 = {0};
    kc_calmant_verdict v;
    kc_calmant_load load;
    if ((st = kc_calmant_init(&g, 4, 2, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD, err)) ||
        (st = kc_calmant_init(&line, 3, 1, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD, err)) ||
        (st = kc_calmant_init(&torus, 4, 2, 1, KC_TIE_PLUS, KC_CALMANT_STANDARD, err)))
        return st;
    TRY(kc_calmant_load_exact(&g, t, &load, err));
    TRY(kc_calmant_sched_task(&g, t, &s, err));
    TRY(kc_calmant_verify(&g, t, &s, &v, err));
    const kc_calmant_verify_opts vo = {NULL, NULL, 1};
    TRY(kc_calmant_verify_with(&g, t, &s, &vo, &v, err));
    TRY(kc_calmant_sched_compact(&g, &s, err));
    TRY(kc_calmant_sched_subtask(&g, t, s.steps, &s, err));
    TRY(kc_calmant_sched_line1(&line, 0, 0, &s1, err));
    TRY(kc_calmant_sched_line2(&line, 0, s1.steps, &s1, err));
    TRY(kc_calmant_sched_add(&s1, s1.steps, 0, 1, err));
    TRY(kc_calmant_sched_torus(&torus, t1, &s2, err));
out:
    kc_calmant_sched_free(&s);
    kc_calmant_sched_free(&s1);
    kc_calmant_sched_free(&s2);
    return st;
}

static kc_status case_alltoall(kc_err *err)
{
    uint32_t mem[16 * 16];
    for (uint32_t i = 0; i < 16 * 16; i++)
        mem[i] = i;
    uint64_t illegal;
    const kc_a2a_params p = {1.0, 0.01, 2.0, 64, 0};
    kc_a2a_replay r;
    kc_status st = KC_OK;
    for (int m = 0; m < KC_A2A_NMETHODS && !st; m++)
        st = kc_a2a_replay_method(4, 2, (kc_a2a_method)m, &p, &r, err);
    return st ? st : kc_a2a_exchange_run(4, 2, 2, KC_A2A_ORDER_REVERSE, mem, &illegal, err);
}

static kc_status case_torus(kc_err *err)
{
    enum { NODES = 16 };
    kc_status st;
    kc_torus t;
    kc_tcomm c[2];
    kc_tcontention tc;
    kc_rng r;
    kc_rng_seed(&r, 4);
    uint32_t src[NODES], dst[NODES];
    uint64_t load, value, total;
    kc_link witness;
    if ((st = kc_torus_init(&t, 4, 2, 0, KC_TIE_SPLIT, err)) || (st = kc_tcomm_named(&c[0], 4, 2, "transpose", err)) ||
        (st = kc_tcomm_named(&c[1], 4, 2, "bit-reverse", err)) ||
        (st = kc_tcontention_exact(&t, &c[0], &r, &tc, NULL, err)) ||
        (st = kc_tcontention_exact_dim(&t, &c[0], 1, &load, &witness, err)) ||
        (st = kc_tcontention_paths(&t, &c[1], &r, &tc, err)) || (st = kc_tcomm_endpoints(&c[0], src, dst, &r, err)) ||
        (st = kc_tcontention_pairs(&t, src, dst, NODES, &tc, err)))
        return st;
    kc_tmap lin, reo, srch;
    kc_tsearch_opts so = {1, 30, 0};
    kc_tsearch_stats stats;
    kc_nodemap nm = {0};
    int exact;
    if ((st = kc_tmap_linear(c, 2, 0, &lin, err)) ||
        (st = kc_tmap_evaluate(&t, c, 2, &lin, &value, &total, NULL, err)) ||
        (st = kc_tmap_reorder(&t, c, 2, &reo, &value, &total, &exact, NULL, err)) ||
        (st = kc_tmap_reorder_objective(&t, c, 2, KC_OBJ_SUM, &reo, &value, &total, &exact, NULL, err)) ||
        (st = kc_tmap_search(&t, c, 2, &reo, &so, &srch, &stats, NULL, err)) ||
        (st = kc_tmap_search_objective(&t, c, 2, KC_OBJ_SUM, &reo, &so, &srch, &stats, NULL, err)) ||
        (st = kc_tmap_endpoints(&reo, &c[0], src, dst, &r, err)))
        return st;
    if ((st = kc_tmap_nodemap(&reo, &nm, err)))
        return st;
    kc_nodemap_free(&nm);
    return KC_OK;
}

static uint64_t reversed(const void *ctx, uint64_t v)
{
    return *(const uint64_t *)ctx - 1 - v;
}

static kc_status case_nodemap(kc_err *err)
{
    const uint32_t perm[4] = {2, 0, 3, 1};
    const uint64_t count = 8;
    kc_nodemap a = {0}, b = {0};
    kc_status st = kc_nodemap_from_array(&a, perm, 4, err);
    if (!st)
        st = kc_nodemap_build(&b, count, reversed, &count, err);
    kc_nodemap_free(&a);
    kc_nodemap_free(&b);
    return st;
}

static kc_status case_machine(kc_err *err)
{
    static const char text[] = "# node host slot\n0 alpha 0\n1 alpha 1\n2 beta 0\n3 beta 1\n";
    kc_status st;
    kc_topology topo;
    kc_machine m = {0}, rule = {0};
    kc_reader *r = NULL;
    const uint32_t to[4] = {3, 1, 0, 2};
    FILE *sink = fopen("/dev/null", "w");
    if (!sink)
        return kc_fail(err, KC_EIO, "/dev/null");
    TRY(kc_topology_hypercube(&topo, 2, err));
    TRY(kc_reader_open_mem(&r, text, strlen(text), "machine", "machine", NULL, err));
    TRY(kc_machine_read(&m, r, &topo, err));
    TRY(kc_machine_rule(&rule, &topo, "node%d", 2, 0, KC_FILL_FIRST_AXIS, err));
    for (int f = 0; f <= KC_EXPORT_SCOTCH_MAP; f++)
        TRY(kc_export_write(sink, (kc_export_format)f, to, 4, &m, err));
out:
    kc_reader_close(r);
    kc_machine_free(&m);
    kc_machine_free(&rule);
    fclose(sink);
    return st;
}

/* The readers that open a path: inputs written to a temporary directory
 * once, read in every run. */
static char tmpdir[64];

static kc_status write_file(const char *name, const char *text, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return KC_EIO;
    fputs(text, f);
    return fclose(f) ? KC_EIO : KC_OK;
}

static kc_status case_files(kc_err *err)
{
    char goal[128], traffic[128], pairs[128], machine[128], nodes[128];
    kc_status st;
    if ((st = write_file("p.goal", pingpong, goal, sizeof goal)) ||
        (st = write_file("t.txt", "0 1 5\n2 3\n", traffic, sizeof traffic)) ||
        (st = write_file("pairs.txt", "0 1\n1 2\n3 0\n", pairs, sizeof pairs)) ||
        (st = write_file("m.txt", "0 a 0\n1 a 1\n2 b 0\n3 b 1\n", machine, sizeof machine)) ||
        (st = write_file("n.txt", "3\n0 1\n", nodes, sizeof nodes)))
        return kc_fail(err, st, "cannot write in %s", tmpdir);
    kc_goal g;
    kc_traffic t;
    kc_simtraffic st4 = {0};
    kc_topology topo;
    kc_machine m = {0};
    kc_reader *r;
    if ((st = kc_goal_read_file(&g, goal, NULL, 0, err)))
        return st;
    kc_goal_free(&g);
    if ((st = kc_traffic_init(&t, 4, err)))
        return st;
    st = kc_traffic_read_path(&t, goal, NULL, err);
    kc_traffic_free(&t);
    if (st || (st = kc_traffic_init(&t, 4, err)))
        return st;
    st = kc_traffic_read_path(&t, traffic, NULL, err);
    kc_traffic_free(&t);
    if (st || (st = kc_traffic_init(&t, 4, err)))
        return st;
    kc_traffic_source src;
    st = kc_traffic_read_file(&t, traffic, KC_TRAFFIC_LIST, NULL, &src, err);
    kc_traffic_free(&t);
    if (st || (st = kc_simtraffic_read(&st4, 4, pairs, NULL, err)))
        return st;
    kc_simtraffic_free(&st4);
    if ((st = kc_topology_hypercube(&topo, 2, err)) || (st = kc_machine_read_path(&m, machine, &topo, err)))
        return st;
    kc_machine_free(&m);
    kc_allocation al;
    if ((st = kc_alloc_read_path(&al, nodes, &topo, err)))
        return st;
    kc_alloc_free(&al);
    if ((st = kc_reader_open(&r, traffic, "traffic file", "traffic_file", NULL, err)))
        return st;
    kc_token tok[3];
    int have;
    st = kc_reader_record(r, tok, 3, "src dst bytes", &have, err);
    kc_reader_close(r);
    return st;
}

static kc_status case_simtraffic(kc_err *err)
{
    const uint32_t src[3] = {0, 1, 2}, dst[3] = {3, 2, 1}, table[4] = {1, 2, 3, 0};
    kc_lcc c;
    kc_simtraffic t[5];
    memset(t, 0, sizeof t);
    kc_status st = kc_lcc_named(&c, "bit-reverse", 2, err);
    if (!st && !(st = kc_simtraffic_pairs(&t[0], 4, src, dst, 3, NULL, err)) &&
        !(st = kc_simtraffic_table(&t[1], 4, table, NULL, err)) && !(st = kc_simtraffic_lcc(&t[2], &c, NULL, err)) &&
        !(st = kc_simtraffic_digits(&t[3], 4, 2, "transpose", NULL, err)) &&
        !(st = kc_simtraffic_keep_fixed(&t[3], err)))
        st = kc_simtraffic_uniform(&t[4], 4, NULL, err);
    for (int i = 0; i < 5; i++)
        kc_simtraffic_free(&t[i]);
    return st;
}

/* write_file, failing through err. */
static kc_status write_input(const char *name, const char *text, char *path, size_t size, kc_err *err)
{
    kc_status st = write_file(name, text, path, size);
    return st ? kc_fail(err, st, "cannot write in %s", tmpdir) : KC_OK;
}

/* ---- general networks ------------------------------------------------------ */

/* The 4 x 3 x 2 torus whose axes 0 and 2 wrap (axis 1 a line), with 2
 * endpoints per router and 8 of its 24 routers allocated, out of order:
 * 16 slots, the ranks of the 4-cube. */
static const uint32_t small_alloc[8] = {5, 1, 7, 0, 2, 9, 11, 3};

static kc_status small_general(kc_topology *t, kc_err *err)
{
    const int sides[3] = {4, 3, 2};
    kc_status st = kc_topology_shape(t, KC_TOPO_TORUS, sides, 3, KC_TIE_PLUS, err);
    if (!st)
        st = kc_topology_set_wrap(t, 5, err);
    if (!st)
        st = kc_topology_set_endpoints(t, 2, err);
    if (!st)
        st = kc_topology_set_alloc(t, small_alloc, 8, err);
    return st;
}

static kc_status case_net_analysis(kc_err *err)
{
    kc_topology t, space, cube;
    kc_comm c, d;
    kc_analysis an;
    uint64_t *loads = NULL, per_dim[KC_PLAN_MAX_N];
    size_t count;
    kc_status st = small_general(&t, err);
    if (st || (st = kc_comm_space(&t, &space, err)) || (st = kc_comm_named(&c, &space, "transpose", err)))
        return st;
    TRY(kc_analyze_network(&t, &c, NULL, &an, err));
    if (!an.general) {
        st = kc_fail(err, KC_EINTERNAL, "the small network was not analysed as a general one");
        goto out;
    }
    TRY(kc_analyze_loads(&t, &c, 7, &loads, &count, err));
    /* the 3-cube of routers with 2 endpoints each: the split closed form */
    TRY(kc_topology_hypercube(&cube, 3, err));
    TRY(kc_topology_set_endpoints(&cube, 2, err));
    TRY(kc_comm_space(&cube, &space, err));
    TRY(kc_comm_named(&d, &space, "bit-reverse", err));
    TRY(kc_analyze_split(&cube, &d, per_dim, err));
    TRY(kc_analyze_network(&cube, &d, NULL, &an, err));
    if (!an.has_formula)
        st = kc_fail(err, KC_EINTERNAL, "the cube with endpoints had no closed form");
out:
    free(loads);
    return st;
}

/* The simulator's network and traffic on the small general network: the
 * slots' endpoints reversed as a placement, then every traffic builder. */
static kc_status case_net_traffic(kc_err *err)
{
    char pairs[128];
    kc_status st = write_input("netpairs.txt", "0 15\n3 4\n4 5 64\n7 7\n", pairs, sizeof pairs, err);
    if (st)
        return st;
    static const char text[] = "# phase one\n0 3\n2 1 8\n";
    const uint32_t src[3] = {0, 1, 14}, dst[3] = {1, 9, 2};
    kc_topology t;
    kc_simnet net = {0};
    kc_simtraffic tr[4];
    memset(tr, 0, sizeof tr);
    uint32_t *ep = NULL, place[16];
    kc_reader *r = NULL;
    TRY(small_general(&t, err));
    TRY(kc_simnet_from_topology(&net, &t, 2, 1, 1, 4, err));
    TRY(kc_simnet_rank_endpoints(&net, NULL, &ep, err));
    for (int v = 0; v < 16; v++)
        place[v] = ep[15 - v];
    TRY(kc_simtraffic_uniform_net(&tr[0], &net, place, err));
    TRY(kc_simtraffic_pairs_net(&tr[1], &net, src, dst, 3, NULL, err));
    TRY(kc_simtraffic_read_net(&tr[2], &net, pairs, place, err));
    TRY(kc_reader_open_mem(&r, text, strlen(text), "pairs", "pairs_file", NULL, err));
    TRY(kc_simtraffic_read_from(&tr[3], 4, r, NULL, err));
out:
    kc_reader_close(r);
    for (int i = 0; i < 4; i++)
        kc_simtraffic_free(&tr[i]);
    free(ep);
    kc_simnet_free(&net);
    return st;
}

/* A short simulation of uniform traffic and of a mapped LCC on the small
 * general network (the scenario reads the mapping file of endpoints). */
static kc_status case_net_sim(kc_err *err)
{
    char mapping[128];
    kc_status st = write_input("netmap.txt", "23 22 19 18 15 14 11 10 7 6 5 4 3 2 1 0\n", mapping, sizeof mapping, err);
    if (st)
        return st;
    kc_topology t;
    if ((st = small_general(&t, err)))
        return st;
    for (int p = 0; p < 2 && !st; p++) {
        kc_simspec spec;
        kc_simspec_default(&spec);
        spec.network = &t;
        spec.pattern = p ? "bit-reverse" : "uniform";
        spec.mapping = p ? mapping : NULL;
        kc_simconfig cfg;
        small_config(&cfg);
        kc_simscenario sc;
        if (!(st = kc_simspec_resolve(&spec, &cfg, err)) && !(st = kc_simscenario_build(&sc, &spec, err))) {
            st = sim_run(&sc, &cfg, err);
            kc_simscenario_free(&sc);
        }
    }
    return st;
}

static kc_status case_netpreset(kc_err *err)
{
    static const char text[] = "name small-torus\ntitle A small torus\naxes x y z\nsides 4 3 2\nwrap x z\n"
                               "endpoints 2\ntie split\nsource made for this test\n";
    char path[128];
    kc_status st = write_input("small.net", text, path, sizeof path, err);
    if (st)
        return st;
    kc_netpreset p;
    kc_topology t;
    kc_reader *r;
    if ((st = kc_reader_open_mem(&r, text, strlen(text), "network", "network", NULL, err)))
        return st;
    st = kc_netpreset_read(&p, r, err);
    kc_reader_close(r);
    if (st || (st = kc_netpreset_read_path(&p, path, err)))
        return st;
    return kc_netpreset_topology(&p, &t, err);
}

/* Every export format of a mapping of the 16 ranks on the small general
 * network, hosts from the rule (4 endpoints a host); a failed export must
 * have written nothing. */
static kc_status case_net_export(kc_err *err)
{
    kc_topology t;
    kc_machine m = {0};
    uint32_t to[16];
    kc_status st;
    TRY(small_general(&t, err));
    for (uint64_t v = 0; v < 16; v++)
        to[v] = (uint32_t)kc_topology_slot_endpoint(&t, (v * 5) % 16);
    TRY(kc_machine_rule(&m, &t, "node%02d", 4, 0, KC_FILL_FIRST_AXIS, err));
    for (int f = 0; f <= KC_EXPORT_FUJITSU_RANKMAP && !st; f++) {
        FILE *out = tmpfile();
        if (!out) {
            st = kc_fail(err, KC_EIO, "no temporary file");
            break;
        }
        st = kc_export_write_net(out, (kc_export_format)f, &t, to, 16, &m, err);
        if (st && ftell(out) != 0)
            st = kc_fail(err, KC_EINTERNAL, "a failed export wrote %ld bytes", ftell(out));
        fclose(out);
    }
out:
    kc_machine_free(&m);
    return st;
}

/* A trace built by hand: communicators, regions, events of every kind,
 * then kc_trace_finish (ordering, request linking). */
static kc_status case_trace_built(kc_err *err)
{
    kc_trace t;
    kc_status st = kc_trace_init(&t, 3, "trace 'built'", err);
    if (st)
        return st;
    uint32_t pair[2] = {2, 0}, comm, region;
    TRY(kc_trace_add_comm(&t, 2, pair, NULL, &comm, err));
    TRY(kc_trace_add_region(&t, "solver", &region, err));
    for (uint32_t r = 0; r < 3; r++) {
        kc_trace_event e = {.time = 10 * r, .request = KC_TRACE_NONE, .peer = KC_TRACE_NO_RANK,
                            .kind = KC_TRACE_ENTER, .comm = region};
        TRY(kc_trace_append(&t, r, &e, err));
        e.kind = KC_TRACE_COLL, e.comm = 0, e.end = e.time + 5, e.coll = KC_COLL_ALLREDUCE;
        TRY(kc_trace_append(&t, r, &e, err));
        e.kind = KC_TRACE_LEAVE, e.comm = region, e.time += 6;
        TRY(kc_trace_append(&t, r, &e, err));
    }
    kc_trace_event s = {.time = 40, .request = 7, .peer = 0, .bytes = 8, .comm = comm, .kind = KC_TRACE_ISEND};
    kc_trace_event c = {.time = 41, .request = 7, .peer = KC_TRACE_NO_RANK, .kind = KC_TRACE_COMPLETE};
    kc_trace_event q = {.time = 40, .request = 3, .peer = KC_TRACE_NO_RANK, .kind = KC_TRACE_IRECV};
    kc_trace_event d = {.time = 42, .request = 3, .peer = 2, .bytes = 8, .comm = comm, .kind = KC_TRACE_COMPLETE};
    TRY(kc_trace_append(&t, 2, &s, err));
    TRY(kc_trace_append(&t, 0, &q, err));
    TRY(kc_trace_append(&t, 2, &c, err));
    TRY(kc_trace_append(&t, 0, &d, err));
    TRY(kc_trace_finish(&t, err));
out:
    kc_trace_free(&t);
    return st;
}

/* The OTF2 archive test_every_case writes (3 ranks, sub-communicators,
 * non-blocking messages, collectives, regions): found, sized, read. */
static kc_status case_trace_read(kc_err *err)
{
    char dir[128], *anchor = NULL;
    snprintf(dir, sizeof dir, "%s/otf2", tmpdir);
    if (!kc_trace_is_otf2(dir, &anchor))
        return kc_fail(err, KC_ENOMEM, "kc_trace_is_otf2 said no (out of memory)");
    free(anchor);
    kc_trace_size sz;
    kc_status st = kc_trace_size_otf2(dir, &sz, err);
    if (st)
        return st;
    kc_trace t;
    kc_trace_limits lim = {sz.events, 0};
    if ((st = kc_trace_read_otf2(&t, dir, &lim, err)))
        return st;
    /* Both conversions of what was read. */
    kc_trace_filter f;
    kc_trace_filter_default(&f);
    kc_traffic tr;
    if ((st = kc_traffic_init(&tr, t.ranks, err)) == KC_OK) {
        st = kc_trace_traffic(&t, &f, &tr, NULL, err);
        kc_traffic_free(&tr);
    }
    kc_goal g;
    kc_trace_goal_opts o = {1.0, KC_ALG_AUTO};
    if (st == KC_OK && (st = kc_trace_goal(&t, &o, &g, NULL, err)) == KC_OK)
        kc_goal_free(&g);
    kc_trace_free(&t);
    return st;
}

static const alloc_case cases[] = {
    {"goal built", "kc_goal_init kc_goal_set_phase kc_goal_add kc_goal_depend kc_goal_gen_complete_exchange "
                   "kc_goal_gen_complete_exchange_pipelined kc_goal_validate kc_goal_loggp kc_goal_write kc_goal_remap",
     case_goal_build},
    {"goal generators", "kc_goal_gen_fft kc_goal_gen_fft_parts kc_goal_gen_lcc", case_goal_fft},
    {"goal read", "kc_goal_read_mem kc_timeline_init kc_goal_loggp_record kc_loggops_run", case_goal_read},
    {"goal with wildcards", "kc_timeline_loggops", case_goal_wild},
    {"timeline", "kc_timeline_add_slice kc_timeline_add_flow", case_timeline},
    {"reader", "kc_reader_open_mem kc_read_nodelist kc_reader_words kc_reader_record_some kc_reader_next",
     case_reader},
    {"traffic", "kc_traffic_init kc_traffic_add kc_traffic_begin_group kc_traffic_set_phase kc_traffic_read "
                "kc_traffic_read_grf",
     case_traffic},
    {"traffic formats", "kc_traffic_read_as kc_traffic_read_csv kc_traffic_read_matrix kc_traffic_set_ranks "
                        "kc_reader_fields", case_traffic_formats},
    {"traffic from goal", "kc_traffic_from_goal", case_traffic_goal},
    {"plan", "kc_analyze kc_map", case_plan},
    {"plan torus", "kc_analyze kc_map", case_plan_torus},
    {"contention", "kc_contention_exact kc_contention_exact_ex kc_contention_paths kc_reorder_best",
     case_contention},
    {"mapset", "kc_mapset_optimal kc_mapset_optimal_ex kc_mapset_naive kc_mapset_search kc_mapset_bound",
     case_mapset},
    {"traffic generators", "kc_traffic_gen_halo kc_traffic_gen_stencil kc_traffic_gen_collective "
                           "kc_traffic_gen_random kc_traffic_gen_all_to_all kc_traffic_gen_patterns kc_traffic_gen_set "
                           "kc_traffic_add_comm",
     case_traffic_gen},
    {"channel loads", "kc_chanload_eval kc_chanload_new kc_chanload_set kc_chanload_swap kc_chanload_swaps "
                      "kc_chanload_group_max kc_chanload_new_layered",
     case_chanload},
    {"general mapper", "kc_gmap_run kc_scotch_map kc_scotch_map_info kc_scotch_map_tool", case_gmap},
    {"general starts", "kc_mapgen_find_lcc kc_mapgen_run", case_mapgen},
    {"simulation", "kc_simscenario_build kc_simnet_init kc_simtraffic_lcc kc_sim_run kc_simtraffic_contention",
     case_sim},
    {"simulation, generation thread", "kc_simscenario_build kc_sim_run", case_sim_fed},
    {"simulation torus", "kc_simtraffic_uniform", case_sim_torus},
    {"simulation sweep", "kc_sim_sweep", case_sim_sweep},
    {"simulation driven", "kc_simdrive_new kc_simdrive_send kc_simdrive_step kc_simdrive_finish", case_sim_drive},
    {"reference engine", "kc_simref_run", case_sim_ref},
    {"samples", "kc_simsample_add", case_simsample},
    {"configuration names", "kc_simconf_parse", case_simconf},
    {"schedule replay", "kc_appsim_run kc_appsim_run_placed kc_appsim_run_order", case_appsim},
    {"self-routing", "kc_hl_random_dimension_order kc_hl_route kc_hl_ecube_simulate kc_hl_mimd_greedy kc_hl_verify "
                     "kc_hl_engine_init kc_hl_run kc_hl_circuit_check",
     case_hl},
    {"self-routing classes", "kc_hl_random_plc kc_hl_msimd_route kc_hl_msimd_run kc_hl_mesh_route kc_hl_plc_count "
                             "kc_hl_plc_enumerate",
     case_hl_classes},
    {"self-routing deciders", "kc_hl_is_plc kc_hl_msimd_routable", case_hl_deciders},
    {"self-routing census", "kc_hl_census_run", case_hl_census},
    {"step engine", "kc_stepnet_init", case_stepnet},
    {"butterfly", "kc_bfly_run kc_bfly_motions", case_butterfly},
    {"calmant", "kc_calmant_load_exact kc_calmant_sched_task kc_calmant_verify kc_calmant_verify_with "
                "kc_calmant_sched_compact kc_calmant_sched_subtask kc_calmant_sched_line1 kc_calmant_sched_line2 "
                "kc_calmant_sched_add kc_calmant_sched_torus",
     case_calmant},
    {"complete exchange", "kc_a2a_replay_method kc_a2a_exchange_run", case_alltoall},
    {"torus", "kc_tcontention_exact kc_tcontention_exact_dim kc_tcontention_paths kc_tcomm_endpoints "
              "kc_tcontention_pairs kc_tmap_linear kc_tmap_evaluate kc_tmap_reorder kc_tmap_reorder_objective "
              "kc_tmap_search kc_tmap_search_objective kc_tmap_endpoints kc_tmap_nodemap",
     case_torus},
    {"node maps", "kc_nodemap_from_array kc_nodemap_build", case_nodemap},
    {"networks", "kc_alloc_read kc_topology_set_alloc kc_topology_read_slots", case_network},
    {"machines", "kc_reader_open_mem kc_machine_read kc_machine_rule kc_export_write", case_machine},
    {"files", "kc_goal_read_file kc_traffic_read_path kc_traffic_read_file kc_simtraffic_read kc_machine_read_path kc_alloc_read_path "
              "kc_reader_open "
              "kc_reader_record",
     case_files},
    {"simulator traffic", "kc_simtraffic_pairs kc_simtraffic_table kc_simtraffic_lcc kc_simtraffic_digits "
                          "kc_simtraffic_keep_fixed kc_simtraffic_uniform",
     case_simtraffic},
    {"general analysis", "kc_comm_space kc_analyze_network kc_analyze_loads kc_analyze_split", case_net_analysis},
    {"general traffic", "kc_simnet_from_topology kc_simnet_rank_endpoints kc_simtraffic_uniform_net "
                        "kc_simtraffic_pairs_net kc_simtraffic_read_net kc_simtraffic_read_from",
     case_net_traffic},
    {"general simulation", "kc_simscenario_build kc_sim_run kc_simtraffic_contention", case_net_sim},
    {"network presets", "kc_netpreset_read kc_netpreset_read_path kc_netpreset_topology", case_netpreset},
    {"general export", "kc_machine_rule kc_export_write_net", case_net_export},
    {"trace built", "kc_trace_init kc_trace_add_comm kc_trace_add_region kc_trace_append kc_trace_finish",
     case_trace_built},
    {"trace read", "kc_trace_is_otf2 kc_trace_size_otf2 kc_trace_read_otf2 kc_trace_traffic kc_trace_goal", case_trace_read},
};

/* ---- the driver ------------------------------------------------------------ */

/* Failure points tried exactly; beyond, a spread sample of as many more. */
#define MAX_EXACT_POINTS 2000

typedef struct tally {
    long points;   /* failure points run */
    long cases;
    long problems; /* runs that broke the contract */
} tally;

/* One run of c with the k-th allocation failed (k = 0: none): its status;
 * *made receives the allocation attempts, *injected the failures injected
 * (0 when the run made fewer than k), *leaked the change in live
 * allocations, which must be zero. */
static kc_status run_once(const alloc_case *c, long k, long *made, long *leaked, long *injected, kc_err *err)
{
    memset(err, 0, sizeof *err);
    long before = atomic_load(&live);
    atomic_store(&seen, 0);
    atomic_store(&failed, 0);
    atomic_store(&fail_at, k);
    kc_status s = c->run(err);
    atomic_store(&fail_at, 0);
    *made = atomic_load(&seen);
    *injected = atomic_load(&failed);
    *leaked = atomic_load(&live) - before;
    return s;
}

/* The i-th failure point among A allocations: every one up to
 * MAX_EXACT_POINTS, else the first half of that many and an even spread
 * over the rest. */
static long point_k(long i, long A)
{
    if (A <= MAX_EXACT_POINTS)
        return i + 1;
    long half = MAX_EXACT_POINTS / 2;
    return i < half ? i + 1 : half + 1 + (i - half) * (A - half - 1) / (MAX_EXACT_POINTS - half - 1);
}

/* Report a broken run (the first few of each case) and count it. */
static void problem(tally *t, long *in_case, const char *fmt, ...) KC_PRINTF(3, 4);
static void problem(tally *t, long *in_case, const char *fmt, ...)
{
    if ((*in_case)++ < 5) {
        va_list ap;
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
    }
    t->problems++;
}

/* Run c without a failure, then once per failure point; every run must
 * return KC_OK (nothing failed) or KC_ENOMEM (something did) and leave no
 * allocation behind. */
static void check_case(const alloc_case *c, tally *t)
{
    kc_err err;
    long A, leaked, injected, bad = 0;
    kc_status s = run_once(c, 0, &A, &leaked, &injected, &err);
    if (s != KC_OK || leaked) {
        problem(t, &bad, "%s: with no failure injected: status %d (%s), %ld allocations left", c->name, (int)s,
                err.msg, leaked);
        return;
    }
    long points = A < MAX_EXACT_POINTS ? A : MAX_EXACT_POINTS;
    const char *only = getenv("KC_ALLOC_AT");
    for (long i = 0; i < points; i++) {
        long k = point_k(i, A), made;
        if (only && k != atol(only))
            continue;
        s = run_once(c, k, &made, &leaked, &injected, &err);
        if (injected && (s != KC_ENOMEM || err.status != KC_ENOMEM))
            problem(t, &bad, "%s: allocation %ld of %ld failed: status %d (%s), expected KC_ENOMEM", c->name, k, A,
                    (int)s, err.msg);
        else if (!injected && s != KC_OK)
            problem(t, &bad, "%s: run %ld made %ld allocations, none failed: status %d (%s)", c->name, k, made,
                    (int)s, err.msg);
        if (leaked)
            problem(t, &bad, "%s: allocation %ld of %ld failed: %ld allocations left after clean-up", c->name, k, A,
                    leaked);
    }
    printf("%-24s %6ld allocations, %4ld failure points%s\n", c->name, A, points, bad ? ", BROKEN" : "");
    t->points += points;
    t->cases++;
}

/* The distinct entry points the cases name. */
static int count_entries(void)
{
    const char *seen_names[512];
    int n = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (const char *p = cases[i].entries; *p;) {
            size_t len = strcspn(p, " ");
            int dup = 0;
            for (int j = 0; j < n && !dup; j++)
                dup = strlen(seen_names[j]) >= len && !strncmp(seen_names[j], p, len) &&
                      (seen_names[j][len] == ' ' || !seen_names[j][len]);
            if (!dup && n < 512)
                seen_names[n++] = p;
            p += len;
            p += strspn(p, " ");
        }
    return n;
}

static void test_every_case(void **state)
{
    (void)state;
    tally t = {0};
    snprintf(tmpdir, sizeof tmpdir, "%s", "/tmp/kc_alloc_fail.XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    char otf2[128];
    snprintf(otf2, sizeof otf2, "%s/otf2", tmpdir);
    assert_int_equal(kc_test_otf2_write(otf2, 3, 2), 0);
    const char *only = getenv("KC_ALLOC_CASE");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (!only || !strcmp(only, cases[i].name))
            check_case(&cases[i], &t);
    const char *written[] = {"p.goal",       "t.txt",      "pairs.txt", "m.txt", "n.txt",
                             "netpairs.txt", "netmap.txt", "small.net"};
    for (size_t i = 0; i < sizeof written / sizeof *written; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", tmpdir, written[i]);
        remove(path);
    }
    static const char *const archive[] = {"traces/0.evt", "traces/1.evt", "traces/2.evt", "traces/0.def",
                                          "traces/1.def", "traces/2.def", "traces", "traces.def", "traces.otf2", ""};
    for (size_t i = 0; i < sizeof archive / sizeof *archive; i++) {
        char path[160];
        snprintf(path, sizeof path, "%s/%s", otf2, archive[i]);
        remove(path);
    }
    remove(tmpdir);
    printf("allocation failure: %d entry points in %ld cases, %ld failure points, %ld broken runs\n",
           count_entries(), t.cases, t.points, t.problems);
    assert_int_equal(t.problems, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_case)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
