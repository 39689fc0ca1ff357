/* traffic_gen.c - the generators of kcube/traffic_gen.h: halo exchanges,
 * stencils, collectives, random sparse graphs, all-to-all and unions of
 * named patterns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/comm.h"
#include "kcube/traffic_gen.h"

kc_status kc_traffic_gen_halo(kc_traffic *t, const int *shape, int dims, int periodic, uint64_t bytes,
                              kc_err *err)
{
    if (dims < 1 || dims > KC_HALO_MAX_DIMS)
        return kc_fail_param(err, KC_EINVAL, "shape", "a halo grid has 1..%d axes, not %d", KC_HALO_MAX_DIMS, dims);
    uint64_t procs = 1, stride[KC_HALO_MAX_DIMS];
    for (int i = 0; i < dims; i++) {
        if (shape[i] < 1 || (uint64_t)shape[i] > t->ranks / procs)
            return kc_fail_param(err, KC_EINVAL, "shape", "a halo grid side must be >= 1 and the grid at most %llu "
                                 "processes (axis %d: %d)", (unsigned long long)t->ranks, i, shape[i]);
        stride[i] = procs;
        procs *= (uint64_t)shape[i];
    }
    for (uint64_t r = 0; r < procs; r++)
        for (int i = 0; i < dims; i++) {
            uint64_t s = (uint64_t)shape[i], c = r / stride[i] % s;
            if (s == 1)
                continue;
            for (int dir = -1; dir <= 1; dir += 2) {
                uint64_t d;
                if (dir < 0 && c == 0)
                    d = periodic ? s - 1 : s;
                else if (dir > 0 && c + 1 == s)
                    d = periodic ? 0 : s;
                else
                    d = dir < 0 ? c - 1 : c + 1;
                if (d == s)
                    continue; /* an open grid's edge */
                kc_status st = kc_traffic_add(t, r, r - c * stride[i] + d * stride[i], bytes, err);
                if (st)
                    return st;
            }
        }
    return KC_OK;
}

static const kc_name stencil_entries[] = {
    {KC_STENCIL_5PT, "5pt", "2-D, the 4 axis neighbours"},
    {KC_STENCIL_7PT, "7pt", "3-D, the 6 axis neighbours"},
    {KC_STENCIL_9PT, "9pt", "2-D, the 8 neighbours with diagonals"},
    {KC_STENCIL_27PT, "27pt", "3-D, the 26 neighbours with diagonals"},
    {0, NULL, NULL},
};
const kc_names kc_stencil_names = {"stencil", stencil_entries};

static const kc_name order_entries[] = {
    {KC_GRID_AXIS0_FASTEST, "axis0-fastest", "rank = c0 + s0 (c1 + s1 c2): kcube's node order"},
    {KC_GRID_AXIS0_SLOWEST, "axis0-slowest", "rank = c_last + s_last (...): C's order of a[s0][s1]"},
    {0, NULL, NULL},
};
const kc_names kc_grid_order_names = {"grid order", order_entries};

kc_status kc_traffic_gen_stencil(kc_traffic *t, kc_stencil st, const int *shape, int dims, int periodic,
                                 kc_grid_order order, uint64_t bytes, kc_err *err)
{
    int want = st == KC_STENCIL_5PT || st == KC_STENCIL_9PT ? 2 : 3;
    int box = st == KC_STENCIL_9PT || st == KC_STENCIL_27PT;
    if (dims != want)
        return kc_fail_param(err, KC_EINVAL, "stencil", "a %s stencil needs a grid of %d axes, not %d",
                             kc_names_name(&kc_stencil_names, (int)st), want, dims);
    uint64_t procs = 1, stride[3];
    for (int i = 0; i < dims; i++) {
        if (shape[i] < 1 || (uint64_t)shape[i] > t->ranks / procs)
            return kc_fail_param(err, KC_EINVAL, "grid", "a grid side must be >= 1 and the grid at most %llu "
                                 "processes (axis %d: %d)", (unsigned long long)t->ranks, i, shape[i]);
        procs *= (uint64_t)shape[i];
    }
    uint64_t acc = 1;
    for (int k = 0; k < dims; k++) { /* the fastest axis first */
        int i = order == KC_GRID_AXIS0_FASTEST ? k : dims - 1 - k;
        stride[i] = acc;
        acc *= (uint64_t)shape[i];
    }
    /* The offsets: a star axis by axis, - then + (kc_traffic_gen_halo's
     * order); a box in lexicographic order, axis 0 slowest. */
    int off[26][3], noff = 0;
    if (!box)
        for (int i = 0; i < dims; i++)
            for (int dir = -1; dir <= 1; dir += 2, noff++)
                for (int j = 0; j < 3; j++)
                    off[noff][j] = j == i ? dir : 0;
    else
        for (int o = 0; o < (dims == 2 ? 9 : 27); o++) {
            int zero = 1;
            for (int i = dims - 1, q = o; i >= 0; i--, q /= 3)
                zero &= (off[noff][i] = q % 3 - 1) == 0;
            noff += !zero;
        }
    for (uint64_t r = 0; r < procs; r++)
        for (int o = 0; o < noff; o++) {
            int skip = 0;
            uint64_t dst = r;
            for (int i = 0; i < dims && !skip; i++) {
                uint64_t s = (uint64_t)shape[i], c = r / stride[i] % s, d = c;
                int x = off[o][i];
                if (!x)
                    continue;
                if (s == 1 || (!periodic && ((x < 0 && c == 0) || (x > 0 && c + 1 == s))))
                    skip = 1;
                else
                    d = x < 0 ? (c + s - 1) % s : (c + 1) % s;
                dst = dst - c * stride[i] + d * stride[i];
            }
            kc_status e = skip ? KC_OK : kc_traffic_add(t, r, dst, bytes, err);
            if (e)
                return e;
        }
    return KC_OK;
}

static const kc_name coll_entries[] = {
    {KC_COLL_ALLTOALL_PAIRS, "alltoall", "every ordered pair, B bytes each"},
    {KC_COLL_ALLREDUCE_RING, "allreduce-ring", "reduce-scatter + allgather on the ring 0..P-1: 2(P-1) chunks of B/P"},
    {KC_COLL_ALLREDUCE_RECDOUB, "allreduce-recdoub", "log2 P rounds, B bytes to rank XOR 2^i (P a power of two)"},
    {KC_COLL_BCAST_BINOMIAL, "bcast-binomial", "binomial tree from rank 0, B bytes per edge"},
    {0, NULL, NULL},
};
const kc_names kc_collective_names = {"collective", coll_entries};

kc_status kc_traffic_gen_collective(kc_traffic *t, kc_collective c, uint64_t bytes, kc_err *err)
{
    uint64_t P = t->ranks;
    kc_status s = KC_OK;
    if (P == 1)
        return KC_OK;
    switch (c) {
    case KC_COLL_ALLTOALL_PAIRS:
        return kc_traffic_gen_all_to_all(t, bytes, err);
    case KC_COLL_ALLREDUCE_RING: {
        /* Reduce-scatter sends every chunk but (r + 1) mod P from r, the
         * allgather every chunk but (r + 2) mod P. */
        uint64_t q = bytes / P, rem = bytes % P;
        for (uint64_t r = 0; r < P && !s; r++) {
            uint64_t a = (r + 1) % P, b = (r + 2) % P;
            uint64_t sum = bytes - (q + (a < rem)) + bytes - (q + (b < rem));
            s = kc_traffic_add(t, r, (r + 1) % P, sum, err);
        }
        return s;
    }
    case KC_COLL_ALLREDUCE_RECDOUB:
        if (P & (P - 1))
            return kc_fail_param(err, KC_EINVAL, "collective",
                                 "allreduce-recdoub needs a power-of-two number of ranks, not %llu",
                                 (unsigned long long)P);
        for (uint64_t bit = 1; bit < P; bit <<= 1)
            for (uint64_t r = 0; r < P && !s; r++)
                s = kc_traffic_add(t, r, r ^ bit, bytes, err);
        return s;
    case KC_COLL_BCAST_BINOMIAL:
        for (uint64_t bit = 1; bit < P; bit <<= 1)
            for (uint64_t r = 0; r < bit && r + bit < P && !s; r++)
                s = kc_traffic_add(t, r, r + bit, bytes, err);
        return s;
    }
    return kc_fail_param(err, KC_EINVAL, "collective", "unknown collective %d", (int)c);
}

/* deg distinct ranks other than r into out[] (dense case: a partial
 * Fisher-Yates shuffle of all the others in pool[]). */
static void pick_dense(kc_rng *rng, uint64_t P, uint64_t r, uint64_t deg, uint32_t *pool, uint32_t *out)
{
    uint64_t n = 0;
    for (uint64_t x = 0; x < P; x++)
        if (x != r)
            pool[n++] = (uint32_t)x;
    for (uint64_t j = 0; j < deg; j++) {
        uint64_t k = j + kc_rng_below(rng, n - j);
        uint32_t tmp = pool[j];
        pool[j] = pool[k];
        pool[k] = tmp;
        out[j] = pool[j];
    }
}

/* Sparse case: draw and reject repeats (deg <= P / 2, so a draw is new
 * with probability >= 1/2). */
static void pick_sparse(kc_rng *rng, uint64_t P, uint64_t r, uint64_t deg, uint32_t *out)
{
    for (uint64_t j = 0; j < deg;) {
        uint64_t x = kc_rng_below(rng, P - 1);
        x += x >= r; /* skip r itself */
        uint64_t k = 0;
        while (k < j && out[k] != x)
            k++;
        if (k == j)
            out[j++] = (uint32_t)x;
    }
}

kc_status kc_traffic_gen_random(kc_traffic *t, uint64_t deg, uint64_t bytes, uint64_t seed, kc_err *err)
{
    uint64_t P = t->ranks;
    if (deg > P - 1)
        return kc_fail_param(err, KC_EINVAL, "deg", "each rank can talk to at most %llu others, not %llu",
                             (unsigned long long)(P - 1), (unsigned long long)deg);
    int dense = deg > P / 2;
    uint32_t *out = malloc((deg ? deg : 1) * sizeof *out);
    uint32_t *pool = dense ? malloc(P * sizeof *pool) : NULL;
    if (!out || (dense && !pool)) {
        free(out);
        free(pool);
        return kc_fail(err, KC_ENOMEM, "out of memory for %llu destinations", (unsigned long long)deg);
    }
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    kc_status s = KC_OK;
    for (uint64_t r = 0; r < P && !s; r++) {
        if (dense)
            pick_dense(&rng, P, r, deg, pool, out);
        else
            pick_sparse(&rng, P, r, deg, out);
        for (uint64_t j = 0; j < deg && !s; j++)
            s = kc_traffic_add(t, r, out[j], bytes, err);
    }
    free(out);
    free(pool);
    return s;
}

kc_status kc_traffic_gen_all_to_all(kc_traffic *t, uint64_t bytes, kc_err *err)
{
    uint64_t P = t->ranks;
    if (P * (P - 1) > KC_TRAFFIC_MAX_MESSAGES)
        return kc_fail_param(err, KC_ERANGE, "traffic", "all-to-all on %llu ranks: more than %u messages",
                             (unsigned long long)P, KC_TRAFFIC_MAX_MESSAGES);
    for (uint64_t a = 0; a < P; a++)
        for (uint64_t b = 0; b < P; b++) {
            kc_status s = a == b ? KC_OK : kc_traffic_add(t, a, b, bytes, err);
            if (s)
                return s;
        }
    return KC_OK;
}

kc_status kc_traffic_gen_patterns(kc_traffic *t, const kc_topology *topo, const char *list, uint64_t bytes,
                                  uint64_t seed, kc_err *err)
{
    if (t->ranks != topo->nodes)
        return kc_fail_param(err, KC_EINVAL, "traffic", "traffic has %llu ranks, the topology %llu nodes",
                             (unsigned long long)t->ranks, (unsigned long long)topo->nodes);
    size_t len = strlen(list);
    char *copy = malloc(len + 1);
    if (!copy)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    memcpy(copy, list, len + 1);
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    kc_status s = KC_OK;
    char *save = NULL;
    int any = 0;
    for (char *name = strtok_r(copy, "+", &save); name && !s; name = strtok_r(NULL, "+", &save)) {
        kc_comm c;
        any = 1;
        s = kc_comm_named(&c, topo, name, err);
        if (!s)
            s = kc_traffic_add_comm(t, &c, bytes, &rng, err);
    }
    free(copy);
    if (!s && !any)
        s = kc_fail_param(err, KC_EINVAL, "traffic", "no pattern named in '%s'", list);
    return s;
}

static const kc_name set_entries[] = {
    {KC_TSET_TRANSPOSE, "transpose", "the matrix transpose"},
    {KC_TSET_TRANSPOSE_BITREV, "transpose+bit-reverse", "transpose and bit-reverse"},
    {KC_TSET_TRANSPOSE_BITREV_RFLIP, "transpose+bit-reverse+reverse-flip",
     "transpose, bit-reverse and reverse-flip"},
    {KC_TSET_FFT, "fft", "bit-reverse and the n neighbour exchanges butterfly:0..n-1 (parallel FFT)"},
    {0, NULL, NULL},
};
const kc_names kc_traffic_set_names = {"communication set", set_entries};

kc_status kc_traffic_gen_set(kc_traffic *t, const kc_topology *topo, kc_traffic_set set, uint64_t bytes,
                             kc_err *err)
{
    if (set != KC_TSET_FFT)
        return kc_traffic_gen_patterns(t, topo, kc_names_name(&kc_traffic_set_names, (int)set), bytes, 0, err);
    kc_status s = kc_traffic_gen_patterns(t, topo, "bit-reverse", bytes, 0, err);
    for (int i = 0; i < topo->n && !s; i++) {
        char name[32];
        snprintf(name, sizeof name, "butterfly:%d", i);
        s = kc_traffic_gen_patterns(t, topo, name, bytes, 0, err);
    }
    return s;
}
