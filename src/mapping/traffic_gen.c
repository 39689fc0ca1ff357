/* traffic_gen.c - the generators of kcube/traffic_gen.h: halo exchanges,
 * random sparse graphs, all-to-all and unions of named patterns. */
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
