/* Store-and-forward e-cube routing of a permutation, for comparison with HL:
 * a message corrects its lowest wrong bit at every hop; a directed link moves
 * one message per step and the others wait in a FIFO queue at its tail. */
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/hl.h"

#define ECUBE_MAX_N 18

kc_status kc_hl_ecube_simulate(int n, const uint32_t *dst, kc_hl_ecube *out, kc_err *err)
{
    if (n < 1 || n > ECUBE_MAX_N)
        return kc_fail(err, KC_ERANGE, "e-cube simulation supports n = 1..%d, got %d", ECUBE_MAX_N, n);
    const uint64_t np = 1ULL << n;
    const size_t links = np * (size_t)n;
    memset(out, 0, sizeof *out);
    uint32_t *head = malloc(links * sizeof *head), *tail = malloc(links * sizeof *tail);
    uint32_t *qlen = calloc(links, sizeof *qlen), *next = malloc(np * sizeof *next);
    uint32_t *at = malloc(np * sizeof *at), *active = malloc(links * sizeof *active);
    uint32_t *moved = malloc(np * sizeof *moved);
    uint8_t *listed = calloc(links, 1);
    if (!head || !tail || !qlen || !next || !at || !active || !moved || !listed) {
        free(head), free(tail), free(qlen), free(next), free(at), free(active), free(moved), free(listed);
        return kc_fail(err, KC_ENOMEM, "out of memory for the e-cube simulation");
    }
    size_t nactive = 0;
    uint64_t delivered = 0;
#define PUSH(m)                                                                                              \
    do {                                                                                                     \
        uint32_t m_ = (m);                                                                                   \
        uint32_t pos_ = at[m_];                                                                              \
        size_t l_ = (size_t)pos_ * (size_t)n + (size_t)kci_ctz32(pos_ ^ dst[m_]);                         \
        next[m_] = KC_HL_NONE;                                                                               \
        if (qlen[l_]++ == 0)                                                                                 \
            head[l_] = m_;                                                                                   \
        else                                                                                                 \
            next[tail[l_]] = m_;                                                                             \
        tail[l_] = m_;                                                                                       \
        if ((int)qlen[l_] > out->max_queue)                                                                  \
            out->max_queue = (int)qlen[l_];                                                                  \
        if (!listed[l_]) {                                                                                   \
            listed[l_] = 1;                                                                                  \
            active[nactive++] = (uint32_t)l_;                                                                \
        }                                                                                                    \
    } while (0)
    for (uint64_t m = 0; m < np; m++) {
        if (dst[m] >= np) {
            free(head), free(tail), free(qlen), free(next), free(at), free(active), free(moved), free(listed);
            return kc_fail(err, KC_EINVAL, "destination %lu is not a node", (unsigned long)dst[m]);
        }
        at[m] = (uint32_t)m;
        if (dst[m] == m)
            delivered++;
        else
            PUSH((uint32_t)m);
    }
    while (delivered < np) {
        size_t nmoved = 0, keep = 0;
        for (size_t i = 0; i < nactive; i++) {
            uint32_t l = active[i];
            uint32_t m = head[l];
            head[l] = next[m];
            qlen[l]--;
            at[m] ^= 1u << (l % (uint32_t)n);
            moved[nmoved++] = m;
            if (qlen[l])
                active[keep++] = l;
            else
                listed[l] = 0;
        }
        nactive = keep;
        out->steps++;
        out->hops += nmoved;
        if (nmoved > out->max_links_busy) /* one message per busy link */
            out->max_links_busy = nmoved;
        for (size_t i = 0; i < nmoved; i++) {
            uint32_t m = moved[i];
            if (at[m] == dst[m])
                delivered++;
            else
                PUSH(m);
        }
    }
#undef PUSH
    free(head), free(tail), free(qlen), free(next), free(at), free(active), free(moved), free(listed);
    return KC_OK;
}
