/* CALMANT geometry: embeddings and DOR routes (kcube/calmant_embed.h). */
#include "kcube/calmant_embed.h"
#include "kcube/stepnet.h"

#include "calmant_internal.h"

static const kc_name embedding_entries[] = {
    {KC_CALMANT_STANDARD, "standard", "bit l of axis j is process bit j + l c (the paper's)"},
    {KC_CALMANT_MATIC, "matic", "bit l of axis j is process bit (d/c) j + l (Matic's)"},
    {0, NULL, NULL},
};
const kc_names kc_calmant_embedding_names = {"embedding", embedding_entries};

kc_status kc_calmant_init(kc_calmant *g, int d, int c, int torus, kc_tie tie, kc_calmant_embedding emb,
                          kc_err *err)
{
    if (c < 1 || c > KC_CALMANT_MAX_C)
        return kc_fail_param(err, KC_EINVAL, "c", "the mesh has 1, 2 or 3 axes, not %d", c);
    if (d < 1 || d > KC_CALMANT_MAX_D)
        return kc_fail_param(err, KC_EINVAL, "d", "the CC-cube dimension must be in 1..%d, got %d", KC_CALMANT_MAX_D,
                             d);
    if (d % c != 0)
        return kc_fail_param(err, KC_EINVAL, "d", "d = %d is not a multiple of the mesh dimension c = %d", d, c);
    if (d / c < 2)
        return kc_fail_param(err, KC_EINVAL, "d", "d/c = %d: the side 2^(d/c) must be at least 4 (d/c >= 2)", d / c);
    if (emb != KC_CALMANT_STANDARD && emb != KC_CALMANT_MATIC)
        return kc_fail_param(err, KC_EINVAL, "embedding", "unknown embedding %d", (int)emb);
    *g = (kc_calmant){.d = d, .c = c, .b = d / c, .torus = torus ? 1 : 0, .tie = tie, .emb = emb};
    g->side = 1ULL << g->b;
    g->nodes = 1ULL << d;
    return KC_OK;
}

/* Node bit (axis j, bit l) sits at j*b + l; under the standard embedding
 * it holds process bit j + l c, under Matic's process bit j*b + l (the
 * identity). Every c-th process bit from bit j makes axis j's coordinate:
 * gathered (and scattered back) with mask-and-shift rounds, O(log b). */
static uint64_t gather2(uint64_t x) /* bits 0, 2, 4, ... to 0, 1, 2, ... */
{
    x &= 0x5555555555555555ULL;
    x = (x | (x >> 1)) & 0x3333333333333333ULL;
    x = (x | (x >> 2)) & 0x0f0f0f0f0f0f0f0fULL;
    x = (x | (x >> 4)) & 0x00ff00ff00ff00ffULL;
    x = (x | (x >> 8)) & 0x0000ffff0000ffffULL;
    return (x | (x >> 16)) & 0x00000000ffffffffULL;
}

static uint64_t scatter2(uint64_t x)
{
    x &= 0x00000000ffffffffULL;
    x = (x | (x << 16)) & 0x0000ffff0000ffffULL;
    x = (x | (x << 8)) & 0x00ff00ff00ff00ffULL;
    x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0fULL;
    x = (x | (x << 2)) & 0x3333333333333333ULL;
    return (x | (x << 1)) & 0x5555555555555555ULL;
}

static uint64_t gather3(uint64_t x) /* bits 0, 3, 6, ... to 0, 1, 2, ... */
{
    x &= 0x1249249249249249ULL;
    x = (x | (x >> 2)) & 0x10c30c30c30c30c3ULL;
    x = (x | (x >> 4)) & 0x100f00f00f00f00fULL;
    x = (x | (x >> 8)) & 0x001f0000ff0000ffULL;
    x = (x | (x >> 16)) & 0x001f00000000ffffULL;
    return (x | (x >> 32)) & 0x00000000001fffffULL;
}

static uint64_t scatter3(uint64_t x)
{
    x &= 0x00000000001fffffULL;
    x = (x | (x << 32)) & 0x001f00000000ffffULL;
    x = (x | (x << 16)) & 0x001f0000ff0000ffULL;
    x = (x | (x << 8)) & 0x100f00f00f00f00fULL;
    x = (x | (x << 4)) & 0x10c30c30c30c30c3ULL;
    return (x | (x << 2)) & 0x1249249249249249ULL;
}

static uint64_t move_bits(const kc_calmant *g, uint64_t x, int to_node)
{
    if (g->emb == KC_CALMANT_MATIC || g->c == 1)
        return x;
    uint64_t y = 0, mask = g->side - 1;
    for (int j = 0; j < g->c; j++) {
        if (to_node)
            y |= (g->c == 2 ? gather2(x >> j) : gather3(x >> j)) << (j * g->b);
        else
            y |= (g->c == 2 ? scatter2((x >> (j * g->b)) & mask) : scatter3((x >> (j * g->b)) & mask)) << j;
    }
    return y;
}

uint64_t kc_calmant_to_physical(const kc_calmant *g, uint64_t process)
{
    return move_bits(g, process, 1);
}

uint64_t kc_calmant_to_virtual(const kc_calmant *g, uint64_t node)
{
    return move_bits(g, node, 0);
}

int kc_calmant_axis(const kc_calmant *g, int dim)
{
    return g->emb == KC_CALMANT_MATIC ? dim / g->b : dim % g->c;
}

uint64_t kc_calmant_dilation(const kc_calmant *g, int dim)
{
    return 1ULL << (g->emb == KC_CALMANT_MATIC ? dim % g->b : dim / g->c);
}

int64_t kc_calmant_axis_move(const kc_calmant *g, uint64_t s, uint64_t t)
{
    if (s == t)
        return 0;
    if (!g->torus)
        return (int64_t)t - (int64_t)s;
    uint64_t k = g->side, up = (t + k - s) % k; /* hops going + */
    if (2 * up < k)
        return (int64_t)up;
    if (2 * up > k)
        return (int64_t)up - (int64_t)k;
    switch (g->tie) {
    case KC_TIE_MINUS: return -(int64_t)up;
    case KC_TIE_SPLIT: return (s & 1) ? -(int64_t)up : (int64_t)up;
    default: return (int64_t)up;
    }
}

int kc_calmant_route(const kc_calmant *g, uint64_t src, uint64_t dst, kc_calmant_leg *legs)
{
    int n = 0;
    for (int j = 0; j < g->c; j++) {
        int64_t mv = kc_calmant_axis_move(g, kc_calmant_coord(g, src, j), kc_calmant_coord(g, dst, j));
        if (mv)
            legs[n++] = (kc_calmant_leg){.axis = j, .dir = mv > 0 ? 1 : -1, .hops = (uint64_t)(mv > 0 ? mv : -mv)};
    }
    return n;
}

void kc_calmant_check_dim(const kc_calmant *g, int dim, uint64_t *dilation, int *constant, unsigned *axes)
{
    kc_calmant_leg legs[KC_CALMANT_MAX_C];
    uint64_t first = UINT64_MAX;
    *constant = 1;
    *axes = 0;
    for (uint64_t n = 0; n < g->nodes; n++) {
        uint64_t p = kc_calmant_to_physical(g, n), q = kc_calmant_to_physical(g, n ^ (1ULL << dim));
        int nl = kc_calmant_route(g, p, q, legs);
        uint64_t len = 0;
        for (int j = 0; j < nl; j++) {
            len += legs[j].hops;
            *axes |= 1u << legs[j].axis;
        }
        if (first == UINT64_MAX)
            first = len;
        else if (len != first)
            *constant = 0;
    }
    *dilation = first;
}

static uint64_t stepnet_neighbor(const void *ctx, uint64_t node, int port)
{
    const kc_calmant *g = ctx;
    int a = port / 2, minus = port % 2;
    uint64_t x = kc_calmant_coord(g, node, a), stride = 1ULL << (a * g->b);
    if (!g->torus && ((!minus && x == g->side - 1) || (minus && x == 0)))
        return KC_STEPNET_NO_LINK;
    return node - x * stride + ((x + (minus ? g->side - 1 : 1)) % g->side) * stride;
}

void kc_calmant_stepnet_topo(const kc_calmant *g, kc_stepnet_topo *t)
{
    *t = (kc_stepnet_topo){.nodes = g->nodes, .ports = 2 * g->c, .neighbor = stepnet_neighbor, .ctx = g};
}

int kci_calmant_leg_spans(const kc_calmant *g, uint64_t at, const kc_calmant_leg *leg, kci_calmant_span out[2],
                          uint64_t *next)
{
    int a = leg->axis, n = 0;
    uint64_t stride = 1ULL << (a * g->b), k = g->side, s = kc_calmant_coord(g, at, a), h = leg->hops, e;
    uint64_t base = at - s * stride;
    int port = 2 * a + (leg->dir < 0);
    if (leg->dir > 0) { /* links leave s .. s+h-1 */
        if (s + h <= k)
            out[n++] = (kci_calmant_span){base, s, s + h, port};
        else {
            out[n++] = (kci_calmant_span){base, s, k, port};
            out[n++] = (kci_calmant_span){base, 0, s + h - k, port};
        }
        e = (s + h) % k;
    } else { /* links leave s-h+1 .. s */
        if (h <= s + 1)
            out[n++] = (kci_calmant_span){base, s + 1 - h, s + 1, port};
        else {
            out[n++] = (kci_calmant_span){base, 0, s + 1, port};
            out[n++] = (kci_calmant_span){base, k - (h - s - 1), k, port};
        }
        e = (s + k - h % k) % k;
    }
    *next = base + e * stride;
    return n;
}
