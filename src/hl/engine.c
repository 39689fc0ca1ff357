/* The step-level tag-routing engine: processors, their tags, one step at a
 * time, and the state / invariant checks of seed 004 Section 2.4. */
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/hl.h"
#include "kcube/perm.h"

static void summarize(kc_hl_engine *e);

kc_status kc_hl_engine_init(kc_hl_engine *e, int n, const uint32_t *dst, int cap, int record, kc_err *err)
{
    memset(e, 0, sizeof *e);
    if (n < 1 || n > KC_HL_MAX_N)
        return kc_fail(err, KC_ERANGE, "n = %d is out of range 1..%d for tag routing", n, KC_HL_MAX_N);
    if (cap < 1 || cap > 64)
        return kc_fail(err, KC_ERANGE, "tag capacity %d is out of range 1..64", cap);
    uint64_t np = 1ULL << n;
    e->n = n;
    e->count_procs = np;
    e->cap = cap;
    e->overflow_at = KC_HL_NONE;
    e->slot = malloc(np * (size_t)cap * sizeof *e->slot);
    e->next_slot = malloc(np * (size_t)cap * sizeof *e->next_slot);
    e->count = malloc(np);
    e->next_count = malloc(np);
    e->host = malloc(np * sizeof *e->host);
    e->start = record ? malloc(np * sizeof *e->start) : NULL;
    if (!e->slot || !e->next_slot || !e->count || !e->next_count || !e->host || (record && !e->start)) {
        kc_hl_engine_free(e);
        return kc_fail(err, KC_ENOMEM, "out of memory for %llu processors", (unsigned long long)np);
    }
    /* the starting tag -> processor map is the inverse of dst */
    kc_status st = kc_perm_invert(dst, e->host, np, "perm", err);
    if (st) {
        kc_hl_engine_free(e);
        return st;
    }
    for (uint64_t x = 0; x < np; x++) {
        e->slot[x * cap] = dst[x];
        e->count[x] = 1;
        if (record)
            e->start[x] = dst[x];
    }
    if (record) {
        e->record = 1;
        e->sent_tag = malloc((size_t)n * np * sizeof *e->sent_tag);
        e->sent_dim = malloc((size_t)n * np);
        if (!e->sent_tag || !e->sent_dim) {
            kc_hl_engine_free(e);
            return kc_fail(err, KC_ENOMEM, "out of memory recording moves of %llu processors",
                           (unsigned long long)np);
        }
        memset(e->sent_tag, 0xff, (size_t)n * np * sizeof *e->sent_tag);
        memset(e->sent_dim, 0xff, (size_t)n * np);
    }
    summarize(e);
    return KC_OK;
}

void kc_hl_engine_free(kc_hl_engine *e)
{
    free(e->slot);
    free(e->next_slot);
    free(e->count);
    free(e->next_count);
    free(e->host);
    free(e->start);
    free(e->sent_tag);
    free(e->sent_dim);
    memset(e, 0, sizeof *e);
}

static void summary_reset(kc_hl_summary *m)
{
    m->ones = m->twos = 0;
    m->lsb_min = m->msb_min = 64;
    m->lsb_max = m->msb_max = -1;
    m->diff_or = 0;
    m->diff_and = ~0u;
}

static inline void summary_add(kc_hl_summary *m, int c, const uint32_t *t)
{
    if (c == 1) {
        m->ones++;
    } else if (c == 2) {
        uint32_t diff = t[0] ^ t[1];
        int lo = kci_ctz32(diff), hi = 31 - kci_clz32(diff);
        m->twos++;
        m->lsb_min = lo < m->lsb_min ? lo : m->lsb_min;
        m->lsb_max = lo > m->lsb_max ? lo : m->lsb_max;
        m->msb_min = hi < m->msb_min ? hi : m->msb_min;
        m->msb_max = hi > m->msb_max ? hi : m->msb_max;
        m->diff_or |= diff;
        m->diff_and &= diff;
    }
}

static void summarize(kc_hl_engine *e)
{
    summary_reset(&e->sum);
    for (uint64_t x = 0; x < e->count_procs; x++)
        summary_add(&e->sum, e->count[x], e->slot + x * (uint64_t)e->cap);
}

static void swap_buffers(kc_hl_engine *e)
{
    uint32_t *s = e->slot;
    e->slot = e->next_slot;
    e->next_slot = s;
    uint8_t *c = e->count;
    e->count = e->next_count;
    e->next_count = c;
}

static void note_send(kc_hl_engine *e, uint64_t x, uint32_t tag, int d)
{
    if (e->record && e->steps_done < e->n) {
        size_t at = (size_t)e->steps_done * e->count_procs + x;
        if (e->sent_tag[at] == KC_HL_NONE) { /* a second send is caught by max_moved */
            e->sent_tag[at] = tag;
            e->sent_dim[at] = (int8_t)d;
        }
    }
}

/* Processors x (bit d clear) and x ^ 2^d exchange what disagrees in bit d.
 * The common case, cap == 2 and at most one tag each way, is kept short. */
kc_status kc_hl_engine_step(kc_hl_engine *e, int d)
{
    const uint64_t np = e->count_procs, bit = 1ULL << d;
    const int cap = e->cap;
    int max_moved = 0;
    uint64_t moved = 0;
    kc_hl_summary sum;
    summary_reset(&sum);
    for (uint64_t base = 0; base < np; base += 2 * bit) {
        for (uint64_t x = base; x < base + bit; x++) {
            uint64_t z = x | bit;
            const uint32_t *sx = e->slot + x * cap, *sz = e->slot + z * cap;
            uint32_t *nx = e->next_slot + x * cap, *nz = e->next_slot + z * cap;
            int cx = e->count[x], cz = e->count[z], kx = 0, kz = 0, outx = 0, outz = 0;
            /* x's tags with bit d set go up; z's tags with bit d clear come down */
            for (int i = 0; i < cx; i++) {
                uint32_t t = sx[i];
                if (t & bit) {
                    if (kz == cap)
                        goto overflow_z;
                    nz[kz++] = t;
                    outx++;
                    note_send(e, x, t, d);
                } else {
                    if (kx == cap)
                        goto overflow_x;
                    nx[kx++] = t;
                }
            }
            for (int i = 0; i < cz; i++) {
                uint32_t t = sz[i];
                if (!(t & bit)) {
                    if (kx == cap)
                        goto overflow_x;
                    nx[kx++] = t;
                    outz++;
                    note_send(e, z, t, d);
                } else {
                    if (kz == cap)
                        goto overflow_z;
                    nz[kz++] = t;
                }
            }
            e->next_count[x] = (uint8_t)kx;
            e->next_count[z] = (uint8_t)kz;
            summary_add(&sum, kx, nx);
            summary_add(&sum, kz, nz);
            moved += (uint64_t)(outx + outz);
            if (outx > max_moved)
                max_moved = outx;
            if (outz > max_moved)
                max_moved = outz;
            continue;
        overflow_x:
            e->overflow_at = x;
            return KC_ERANGE;
        overflow_z:
            e->overflow_at = z;
            return KC_ERANGE;
        }
    }
    swap_buffers(e);
    e->sum = sum;
    if (max_moved > e->max_moved)
        e->max_moved = max_moved;
    e->moved_last = moved;
    e->steps_done++;
    return KC_OK;
}

kc_status kc_hl_engine_step_each(kc_hl_engine *e, const int8_t *dim)
{
    const uint64_t np = e->count_procs;
    const int cap = e->cap;
    int max_moved = 0;
    uint64_t moved = 0;
    /* first what stays, then what arrives */
    for (uint64_t x = 0; x < np; x++) {
        const uint32_t *s = e->slot + x * cap;
        uint32_t *ns = e->next_slot + x * cap;
        int k = 0;
        for (int i = 0; i < e->count[x]; i++)
            if (dim[x] < 0 || !(((s[i] ^ x) >> dim[x]) & 1))
                ns[k++] = s[i];
        e->next_count[x] = (uint8_t)k;
    }
    for (uint64_t x = 0; x < np; x++) {
        if (dim[x] < 0)
            continue;
        const uint32_t *s = e->slot + x * cap;
        uint64_t to = x ^ (1ULL << dim[x]);
        int out = 0;
        for (int i = 0; i < e->count[x]; i++) {
            if (!(((s[i] ^ x) >> dim[x]) & 1))
                continue;
            if (e->next_count[to] == cap) {
                e->overflow_at = to;
                return KC_ERANGE;
            }
            e->next_slot[to * cap + e->next_count[to]++] = s[i];
            note_send(e, x, s[i], dim[x]);
            out++;
        }
        moved += (uint64_t)out;
        if (out > max_moved)
            max_moved = out;
    }
    swap_buffers(e);
    summarize(e);
    if (max_moved > e->max_moved)
        e->max_moved = max_moved;
    e->moved_last = moved;
    e->steps_done++;
    return KC_OK;
}

char kc_hl_state_sub(const kc_hl_engine *e, uint64_t base, uint64_t free)
{
    /* enumerate the subcube's processors: base | (subset of free) */
    uint64_t ones = 0, twos = 0, zeros = 0, size = 0, s = 0;
    do {
        uint64_t x = base | s;
        int c = e->count[x];
        if (c == 1)
            ones++;
        else if (c == 2)
            twos++;
        else if (c == 0)
            zeros++;
        size++;
        s = (s - free) & free;
    } while (s);
    if (ones == size)
        return 'A';
    if (twos * 2 == size && zeros * 2 == size)
        return 'B';
    return 'E';
}

char kc_hl_state(const kc_hl_engine *e)
{
    const uint64_t np = e->count_procs;
    if (e->sum.ones == np)
        return 'A';
    if (e->sum.twos * 2 == np && e->sum.ones == 0)
        return 'B';
    return 'E';
}

int kc_hl_affine(kc_hl_engine *e)
{
    const uint64_t np = e->count_procs;
    uint32_t *host = e->host;
    memset(host, 0xff, np * sizeof *host);
    for (uint64_t x = 0; x < np; x++)
        for (int i = 0; i < e->count[x]; i++)
            host[e->slot[x * e->cap + i]] = (uint32_t)x;
    for (uint64_t y = 0; y < np; y++)
        if (host[y] == KC_HL_NONE)
            return 0;
    /* affine iff host[y] = host[0] ^ XOR of host[e_j] ^ host[0] over bits j
     * of y; each y is checked from y without its lowest bit */
    uint32_t k = host[0];
    for (uint64_t y = 1; y < np; y++) {
        uint64_t low = y & (~y + 1);
        if (y == low)
            continue; /* a basis vector defines column j */
        if ((host[y] ^ k) != ((host[y ^ low] ^ k) ^ (host[low] ^ k)))
            return 0;
    }
    return 1;
}

int kc_hl_routed(const kc_hl_engine *e)
{
    for (uint64_t x = 0; x < e->count_procs; x++)
        if (e->count[x] != 1 || e->slot[x * e->cap] != x)
            return 0;
    return 1;
}
