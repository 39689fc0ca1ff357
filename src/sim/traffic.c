/* Traffic tables: destinations per physical source, through a mapping. */
#include "kcube/simtraffic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "kcube/reader.h"
#include "kcube/simnet.h"
#include "sim_internal.h"

void kc_simtraffic_free(kc_simtraffic *t)
{
    free(t->start);
    free(t->dest);
    free(t->to_phys);
    free(t->to_virt);
    free(t->weight);
    memset(t, 0, sizeof *t);
}

static kc_status check_map(uint32_t nodes, const kc_nodemap *map, kc_err *err)
{
    if (map && map->count != nodes)
        return kc_fail_param(err, KC_EINVAL, "mapping", "the mapping has %llu nodes, the network %u",
                       (unsigned long long)map->count, nodes);
    return KC_OK;
}

kc_status kc_simtraffic_uniform(kc_simtraffic *t, uint32_t nodes, const kc_nodemap *map, kc_err *err)
{
    memset(t, 0, sizeof *t);
    if (nodes < 2)
        return kc_fail_param(err, KC_EINVAL, "n", "uniform traffic needs at least 2 nodes");
    if (check_map(nodes, map, err))
        return err ? err->status : KC_EINVAL;
    t->nodes = nodes;
    t->uniform = 1;
    if (map) {
        t->to_phys = malloc(nodes * sizeof *t->to_phys);
        t->to_virt = malloc(nodes * sizeof *t->to_virt);
        if (!t->to_phys || !t->to_virt) {
            kc_simtraffic_free(t);
            return kc_fail(err, KC_ENOMEM, "out of memory");
        }
        memcpy(t->to_phys, map->to_physical, nodes * sizeof *t->to_phys);
        memcpy(t->to_virt, map->to_virtual, nodes * sizeof *t->to_virt);
    }
    return KC_OK;
}

kc_status kci_simtraffic_build(kc_simtraffic *t, uint32_t nodes, const uint32_t *src, const uint32_t *dst,
                               size_t count, const kc_nodemap *map, int keep_self, kc_err *err)
{
    memset(t, 0, sizeof *t);
    if (check_map(nodes, map, err))
        return err ? err->status : KC_EINVAL;
    for (size_t i = 0; i < count; i++)
        if (src[i] >= nodes || dst[i] >= nodes)
            return kc_fail(err, KC_EINVAL, "pair %zu (%u, %u) names a node outside 0..%u", i + 1, src[i], dst[i],
                           nodes - 1);
    t->nodes = nodes;
    t->start = calloc((size_t)nodes + 1, sizeof *t->start);
    t->dest = malloc((count ? count : 1) * sizeof *t->dest);
    if (!t->start || !t->dest) {
        kc_simtraffic_free(t);
        return kc_fail(err, KC_ENOMEM, "out of memory for the traffic table");
    }
    /* Counting sort by physical source keeps the pairs' order per source. */
    for (size_t i = 0; i < count; i++) {
        uint32_t ps = map ? map->to_physical[src[i]] : src[i];
        uint32_t pd = map ? map->to_physical[dst[i]] : dst[i];
        if (ps != pd || keep_self)
            t->start[ps + 1]++;
    }
    for (uint32_t s = 0; s < nodes; s++)
        t->start[s + 1] += t->start[s];
    uint32_t *fill = malloc((size_t)nodes * sizeof *fill);
    if (!fill) {
        kc_simtraffic_free(t);
        return kc_fail(err, KC_ENOMEM, "out of memory for the traffic table");
    }
    memcpy(fill, t->start, (size_t)nodes * sizeof *fill);
    for (size_t i = 0; i < count; i++) {
        uint32_t ps = map ? map->to_physical[src[i]] : src[i];
        uint32_t pd = map ? map->to_physical[dst[i]] : dst[i];
        if (ps != pd || keep_self)
            t->dest[fill[ps]++] = pd;
    }
    free(fill);
    return KC_OK;
}

kc_status kc_simtraffic_pairs(kc_simtraffic *t, uint32_t nodes, const uint32_t *src, const uint32_t *dst,
                              size_t count, const kc_nodemap *map, kc_err *err)
{
    return kci_simtraffic_build(t, nodes, src, dst, count, map, 0, err);
}

kc_status kc_simtraffic_table(kc_simtraffic *t, uint32_t nodes, const uint32_t *dst, const kc_nodemap *map,
                              kc_err *err)
{
    uint32_t *src = malloc((size_t)nodes * sizeof *src), *d = malloc((size_t)nodes * sizeof *d);
    if (!src || !d) {
        free(src);
        free(d);
        memset(t, 0, sizeof *t);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    size_t m = 0;
    for (uint32_t x = 0; x < nodes; x++)
        if (dst[x] != KC_SIM_NONE) {
            src[m] = x;
            d[m++] = dst[x];
        }
    kc_status st = kc_simtraffic_pairs(t, nodes, src, d, m, map, err);
    free(src);
    free(d);
    return st;
}

kc_status kc_simtraffic_lcc(kc_simtraffic *t, const kc_lcc *c, const kc_nodemap *map, kc_err *err)
{
    int n = c->a.n;
    memset(t, 0, sizeof *t);
    if (n > KC_SIMNET_MAX_N)
        return kc_fail_param(err, KC_ERANGE, "n", "at most %d dimensions", KC_SIMNET_MAX_N);
    uint32_t nodes = 1u << n;
    uint32_t *src = malloc((size_t)nodes * sizeof *src), *d = malloc((size_t)nodes * sizeof *d);
    if (!src || !d) {
        free(src);
        free(d);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    for (uint32_t m = 0; m < nodes; m++) {
        uint64_t s, y;
        kc_lcc_message(c, m, &s, &y);
        src[m] = (uint32_t)s;
        d[m] = (uint32_t)y;
    }
    kc_status st = kc_simtraffic_pairs(t, nodes, src, d, nodes, map, err);
    free(src);
    free(d);
    return st;
}

/* 1 when t is a permutation with its fixed points dropped (see
 * kc_simtraffic_keep_fixed); seen: nodes scratch entries. */
static int is_partial_permutation(const kc_simtraffic *t, uint8_t *seen)
{
    for (uint32_t x = 0; x < t->nodes; x++) {
        uint32_t m = t->start[x + 1] - t->start[x];
        if (m > 1)
            return 0;
        if (m && seen[t->dest[t->start[x]]]++)
            return 0;
    }
    for (uint32_t x = 0; x < t->nodes; x++)
        if (t->start[x + 1] == t->start[x] && seen[x])
            return 0;
    return 1;
}

kc_status kc_simtraffic_keep_fixed(kc_simtraffic *t, kc_err *err)
{
    if (t->uniform || !t->start || t->weight) /* general networks' endpoints: left alone */
        return KC_OK;
    uint8_t *seen = calloc(t->nodes ? t->nodes : 1, 1);
    if (!seen)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    int perm = is_partial_permutation(t, seen);
    free(seen);
    if (!perm || t->start[t->nodes] == t->nodes)
        return KC_OK;
    uint32_t *dest = malloc((size_t)t->nodes * sizeof *dest);
    if (!dest)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    for (uint32_t x = 0; x < t->nodes; x++)
        dest[x] = t->start[x + 1] > t->start[x] ? t->dest[t->start[x]] : x;
    for (uint32_t x = 0; x <= t->nodes; x++)
        t->start[x] = x;
    free(t->dest);
    t->dest = dest;
    return KC_OK;
}

enum { DIGITS_TRANSPOSE, DIGITS_REVERSE, DIGITS_COMPLEMENT };
static const kc_name digit_entries[] = {
    {DIGITS_TRANSPOSE, "transpose", "digit i <-> digit i + n/2"},
    {DIGITS_REVERSE, "digit-reverse", "d_i -> d_{n-1-i}"},
    {DIGITS_COMPLEMENT, "digit-complement", "d_i -> k-1-d_i"},
    {DIGITS_REVERSE, "bit-reverse", NULL}, /* the k = 2 names */
    {DIGITS_COMPLEMENT, "complement", NULL},
    {0, NULL, NULL},
};
const kc_names kc_simdigits_names = {"digit pattern", digit_entries};

kc_status kc_simtraffic_digits(kc_simtraffic *t, int k, int n, const char *name, const kc_nodemap *map,
                               kc_err *err)
{
    memset(t, 0, sizeof *t);
    int kind;
    if (kc_names_parse(&kc_simdigits_names, name, &kind))
        return kc_fail_param(err, KC_EINVAL, "pattern",
                             "unknown digit pattern '%s' (transpose, digit-reverse, digit-complement)", name);
    if (kind == DIGITS_TRANSPOSE && n % 2)
        return kc_fail_param(err, KC_EINVAL, "pattern", "transpose needs an even number of dimensions (n = %d)", n);
    if (k < 2 || n < 1 || n > KC_SIMNET_MAX_N)
        return kc_fail_param(err, KC_ERANGE, "n", "bad k-ary n-cube %d-ary %d-cube", k, n);
    uint64_t nodes64 = 1;
    for (int i = 0; i < n; i++)
        if ((nodes64 *= (uint64_t)k) > KC_SIMNET_MAX_NODES)
            return kc_fail_param(err, KC_ERANGE, "n", "network too large");
    uint32_t nodes = (uint32_t)nodes64;
    uint32_t *dst = malloc((size_t)nodes * sizeof *dst);
    if (!dst)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    int dig[KC_SIMNET_MAX_N], out[KC_SIMNET_MAX_N];
    for (uint32_t x = 0; x < nodes; x++) {
        uint32_t r = x;
        for (int i = 0; i < n; i++) {
            dig[i] = (int)(r % (uint32_t)k);
            r /= (uint32_t)k;
        }
        for (int i = 0; i < n; i++)
            out[i] = kind == DIGITS_TRANSPOSE ? dig[(i + n / 2) % n] : kind == DIGITS_REVERSE ? dig[n - 1 - i] : k - 1 - dig[i];
        uint32_t y = 0;
        for (int i = n - 1; i >= 0; i--)
            y = y * (uint32_t)k + (uint32_t)out[i];
        dst[x] = y;
    }
    kc_status st = kc_simtraffic_table(t, nodes, dst, map, err);
    free(dst);
    return st;
}

kc_status kci_simtraffic_read_pairs(kc_reader *r, uint32_t nodes, uint32_t **src_out, uint32_t **dst_out, size_t *count_out,
                            kc_err *err)
{
    kc_status st;
    size_t count = 0, cap = 0;
    uint32_t *src = NULL, *dst = NULL;
    kc_token tok[3];
    int have;
    /* The traffic-file format (kcube/traffic.h), phase lines included, so a
     * file one command takes the other takes too: a byte count may follow;
     * the simulator's messages have one size (msg_flits), so it is checked
     * and not used; the messages of every phase are simulated together. */
    kc_reader_directive(r, "phase");
    while (!(st = kc_reader_record_some(r, tok, 2, 3, "source destination [bytes]", &have, err)) && have) {
        if (have == KC_READER_DIRECTIVE)
            continue;
        if ((st = kc_reader_check(r, &tok[0], nodes - 1, "node", err)) ||
            (st = kc_reader_check(r, &tok[1], nodes - 1, "node", err)) ||
            (have == 3 && (st = kc_reader_check(r, &tok[2], UINT64_MAX, "byte count", err))))
            break;
        if (count == cap) {
            cap = cap ? 2 * cap : 1024;
            if (KCI_RESIZE(src, cap) || KCI_RESIZE(dst, cap)) {
                st = kc_fail_param(err, KC_ENOMEM, "pairs_file", "out of memory reading the pairs file");
                break;
            }
        }
        src[count] = (uint32_t)tok[0].value;
        dst[count++] = (uint32_t)tok[1].value;
    }
    if (st == KC_OK && count == 0)
        st = kc_fail_param(err, KC_EINVAL, "pairs_file", "%s has no pairs", kc_reader_name(r));
    *src_out = src;
    *dst_out = dst;
    *count_out = count;
    return st;
}

kc_status kc_simtraffic_read_from(kc_simtraffic *t, uint32_t nodes, kc_reader *r, const kc_nodemap *map,
                                  kc_err *err)
{
    memset(t, 0, sizeof *t);
    uint32_t *src, *dst;
    size_t count;
    kc_status st = kci_simtraffic_read_pairs(r, nodes, &src, &dst, &count, err);
    if (st == KC_OK)
        st = kc_simtraffic_pairs(t, nodes, src, dst, count, map, err);
    free(src);
    free(dst);
    return st;
}

kc_status kc_simtraffic_read(kc_simtraffic *t, uint32_t nodes, const char *path, const kc_nodemap *map,
                             kc_err *err)
{
    memset(t, 0, sizeof *t);
    kc_reader *r;
    kc_status st = kc_reader_open(&r, path, "pairs file", "pairs_file", NULL, err);
    if (st)
        return st;
    st = kc_simtraffic_read_from(t, nodes, r, map, err);
    kc_reader_close(r);
    return st;
}

uint32_t kc_simtraffic_senders(const kc_simtraffic *t)
{
    uint32_t s = 0;
    if (t->uniform && t->weight) {
        for (uint32_t x = 0; x < t->nodes; x++)
            s += t->weight[x] > 0;
        return s;
    }
    if (t->uniform)
        return t->nodes;
    for (uint32_t x = 0; x < t->nodes; x++)
        s += t->start[x + 1] > t->start[x];
    return s;
}
