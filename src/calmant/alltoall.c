/* Complete exchange: method names, cost formulas and the pipelined CC-cube
 * run on real blocks (kcube/calmant_alltoall.h). The replays are in
 * alltoall_replay.c. */
#include <stdlib.h>
#include <string.h>

#include "alltoall_priv.h"
#include "core/bits.h"
#include "kcube/calmant_alltoall.h"
#include "kcube/calmant_cost.h"
#include "kcube/calmant_embed.h"
#include "kcube/calmant_sched.h"
#include "kcube/calmant_task.h"

static const kc_name method_entries[] = {
    {KC_A2A_CALMANT, "calmant", "pipelined CC-cube of Section 5 (best degree unless one is given)"},
    {KC_A2A_CCCUBE, "cc-cube", "the unpipelined CC-cube, the paper's baseline"},
    {KC_A2A_RECURSIVE, "recursive", "recursive (binary) exchange, row-major numbering, top bit first"},
    {KC_A2A_PAIRWISE, "pairwise", "direct pairwise exchange x <-> x xor k in contention-free sub-steps"},
    {0, NULL, NULL},
};
const kc_names kc_a2a_method_names = {"all-to-all method", method_entries};

kc_status kc_a2a_methods_parse(const char *text, unsigned *mask, kc_err *err)
{
    *mask = 0; /* also on failure: the set is only filled once the whole list parsed */
    if (!text || !*text)
        return kc_fail_param(err, KC_EINVAL, "methods", "the method list is empty");
    if (!strcmp(text, "all")) {
        *mask = (1u << KC_A2A_NMETHODS) - 1;
        return KC_OK;
    }
    unsigned set = 0;
    char name[32];
    for (const char *p = text;;) {
        size_t len = strcspn(p, ",");
        int v;
        if (len == 0 || len >= sizeof name)
            return kc_fail_param(err, KC_EINVAL, "methods", "bad method list '%s': an empty or overlong name", text);
        memcpy(name, p, len);
        name[len] = '\0';
        kc_status s = kc_names_lookup(&kc_a2a_method_names, name, &v, "methods", err);
        if (s)
            return s;
        if (set & (1u << v))
            return kc_fail_param(err, KC_EINVAL, "methods", "method '%s' is listed twice", name);
        set |= 1u << v;
        if (!p[len]) {
            *mask = set;
            return KC_OK;
        }
        p += len + 1;
    }
}

/* ---- formulas ------------------------------------------------------------ */

kc_status kci_a2a_check(int d, int c, kc_a2a_method method, const kc_a2a_params *p, kc_err *err)
{
    kc_calmant g;
    kc_status s = kc_calmant_init(&g, d, c, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD, err);
    if (s)
        return s;
    if ((int)method < 0 || method >= KC_A2A_NMETHODS)
        return kc_fail_param(err, KC_EINVAL, "methods", "unknown all-to-all method %d", (int)method);
    if (p->block == 0)
        return kc_fail_param(err, KC_EINVAL, "block", "a block holds at least one byte");
    if (p->block > (UINT64_MAX >> d))
        return kc_fail_param(err, KC_ERANGE, "block", "2^%d blocks of %llu bytes overflow", d,
                             (unsigned long long)p->block);
    if (p->degree < 0)
        return kc_fail_param(err, KC_EINVAL, "degree", "the pipelining degree must be at least 1, got %d", p->degree);
    /* beta, tau and b: the cost model's own checks, for every method */
    kc_calmant_time t;
    return kci_a2a_calmant_time(d, c, 1, p, &t, err);
}

/* The pipelined CC-cube's time with N = 2^(d-1) B (Q as the caller says,
 * 0: the best one). */
kc_status kci_a2a_calmant_time(int d, int c, int q, const kc_a2a_params *p, kc_calmant_time *t, kc_err *err)
{
    kc_calmant_cost_params cp = {.beta = p->beta, .tau = p->tau, .barrier = p->barrier, .bytes = p->block << (d - 1)};
    if (q)
        return kc_calmant_time_of(d, c, q, &cp, t, err);
    int qmax = cp.bytes < KC_A2A_BEST_DEGREE_MAX ? (int)cp.bytes : KC_A2A_BEST_DEGREE_MAX;
    return kc_calmant_best_degree(d, c, &cp, qmax, t, err);
}

/* Steps of the pairwise exchange: sum over k != 0 of max_j w(k_j). With
 * h = the largest level, (2h)^c - h^c values of k have max w = h. */
uint64_t kci_a2a_pairwise_steps(int d, int c)
{
    int b = d / c;
    uint64_t sum = 0;
    for (int l = 0; l < b; l++) {
        uint64_t h = 1ULL << l, below = 1, upto = 1;
        for (int j = 0; j < c; j++) {
            below *= h;
            upto *= 2 * h;
        }
        sum += h * (upto - below);
    }
    return sum;
}

kc_status kc_a2a_cost_of(int d, int c, kc_a2a_method method, const kc_a2a_params *p, kc_a2a_cost *out, kc_err *err)
{
    memset(out, 0, sizeof *out);
    kc_status s = kci_a2a_check(d, c, method, p, err);
    if (s)
        return s;
    out->method = method;
    uint64_t side = 1ULL << (d / c), n_bytes = p->block << (d - 1);
    double cut = (double)p->block * p->tau / 4.0;
    for (int j = 0; j <= c; j++)
        cut *= (double)side;
    out->bisection = cut;
    if (method == KC_A2A_CALMANT || method == KC_A2A_CCCUBE) {
        kc_calmant_time t;
        s = kci_a2a_calmant_time(d, c, method == KC_A2A_CCCUBE ? 1 : p->degree, p, &t, err);
        if (s)
            return s;
        out->degree = t.degree;
        out->steps = t.steps;
        out->message = t.packet;
        out->iterations = t.iterations;
        out->barrier_time = (double)t.iterations * p->barrier;
        out->time = t.time;
        return KC_OK;
    }
    if (method == KC_A2A_RECURSIVE) {
        out->steps = (uint64_t)c * (side - 1);
        out->message = n_bytes;
    } else {
        out->steps = kci_a2a_pairwise_steps(d, c);
        out->message = p->block;
    }
    out->time = (double)out->steps * (p->beta + (double)out->message * p->tau);
    return KC_OK;
}

/* ---- the run on real blocks ------------------------------------------------ */

/* Slot of rank r among the 2^(d-1) slots whose bit i is set, in the order
 * a message lists them. */
static uint32_t slot_of(int d, int i, uint32_t r, kc_a2a_order order)
{
    uint32_t x = order == KC_A2A_ORDER_REVERSE ? (1u << (d - 1)) - 1 - r : r;
    uint32_t low = x & ((1u << i) - 1);
    return ((x >> i) << (i + 1)) | (1u << i) | low;
}

typedef struct run_state {
    int d, q;
    kc_a2a_order order;
    uint32_t per;       /* blocks per packet */
    uint32_t *mem;
    uint32_t *done;     /* per slot: dimensions taken so far (bit mask) */
    uint32_t *arrived;  /* per slot: iteration + 1 of the last arrival (0: initial) */
    uint64_t illegal;
} run_state;

/* May slot j of process n leave through dimension k in iteration t? Its
 * lower set bits must be done, in an earlier iteration. */
static int legal(const run_state *r, uint64_t n, uint32_t j, int k, int t)
{
    uint64_t at = (n << r->d) | j;
    uint32_t need = j & ((1u << k) - 1);
    return (r->done[at] & need) == need && !(r->done[at] >> k & 1) && r->arrived[at] <= (uint32_t)t;
}

/* Processes a and b = a xor 2^k swap packet p of dimension k. */
static void swap_packet(run_state *r, uint64_t a, int k, int t)
{
    uint64_t b = a ^ (1ULL << k);
    uint32_t half = 1u << (r->d - 1), p = (uint32_t)(t - k);
    for (uint32_t rank = p * r->per; rank < half && rank < (p + 1) * r->per; rank++) {
        uint32_t j = slot_of(r->d, k, rank, r->order);
        uint64_t x = (a << r->d) | j, y = (b << r->d) | j;
        r->illegal += !legal(r, a, j, k, t) + !legal(r, b, j, k, t);
        uint32_t tmp = r->mem[x];
        r->mem[x] = r->mem[y];
        r->mem[y] = tmp;
        r->done[x] |= 1u << k;
        r->done[y] |= 1u << k;
        r->arrived[x] = r->arrived[y] = (uint32_t)t + 1;
    }
}

/* Slot n xor j <-> slot j for every process: the initial and the final
 * permutation (an involution). */
static void permute(uint32_t *mem, int d)
{
    uint64_t nodes = 1ULL << d;
    for (uint64_t n = 0; n < nodes; n++)
        for (uint64_t j = 0; j < nodes; j++)
            if (j < (n ^ j)) {
                uint32_t tmp = mem[(n << d) | j];
                mem[(n << d) | j] = mem[(n << d) | (n ^ j)];
                mem[(n << d) | (n ^ j)] = tmp;
            }
}

/* One pipelined iteration t through its generated schedule: each scheduled
 * pair moves its packet (the message src -> dst with src < dst swaps both
 * ways; the schedule holds the reverse message too). */
static kc_status run_iteration(run_state *r, const kc_calmant *g, kc_calmant_task task, int t, kc_err *err)
{
    kc_calmant_sched s = {0};
    kc_status st = kc_calmant_sched_task(g, task, &s, err);
    for (size_t m = 0; !st && m < s.count; m++) {
        uint32_t src = s.msg[m].src, dst = s.msg[m].dst;
        if (src < dst)
            swap_packet(r, src, kci_ctz32(src ^ dst), t);
    }
    kc_calmant_sched_free(&s);
    return st;
}

kc_status kc_a2a_exchange_run(int d, int c, int q, kc_a2a_order order, uint32_t *mem, uint64_t *illegal, kc_err *err)
{
    *illegal = 0;
    kc_calmant g;
    kc_status st = kc_calmant_init(&g, d, c, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD, err);
    if (st)
        return st;
    if (d > KC_A2A_RUN_MAX_D)
        return kc_fail_param(err, KC_ERANGE, "d", "the block run holds 2^(2d) blocks: d <= %d, got %d",
                             KC_A2A_RUN_MAX_D, d);
    if (q < 1 || q > (1 << (d - 1)))
        return kc_fail_param(err, KC_EINVAL, "degree", "packets of whole blocks need 1 <= Q <= %d, got %d",
                             1 << (d - 1), q);
    size_t iters = (size_t)(d + q - 1), count;
    uint64_t slots = 1ULL << (2 * d);
    run_state r = {.d = d, .q = q, .order = order, .mem = mem, .per = ((1u << (d - 1)) + (uint32_t)q - 1) / (uint32_t)q};
    r.done = calloc(slots, sizeof *r.done);
    r.arrived = calloc(slots, sizeof *r.arrived);
    kc_calmant_iter *it = malloc(iters * sizeof *it);
    if (!r.done || !r.arrived || !it)
        st = kc_fail(err, KC_ENOMEM, "out of memory (complete exchange of 2^%d blocks)", 2 * d);
    if (!st)
        st = kc_calmant_iterations(d, q, it, iters, &count, err);
    if (!st) {
        permute(mem, d);
        for (size_t t = 0; !st && t < count; t++)
            st = run_iteration(&r, &g, it[t].task, (int)t, err);
        permute(mem, d);
    }
    *illegal = r.illegal;
    free(r.done);
    free(r.arrived);
    free(it);
    return st;
}
