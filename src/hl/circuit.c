/* Circuit switching (seed 004 Section 3.2): each message's path is the
 * sequence of moves of its tag; Lemma 5 says two neighbours talk in at most
 * one step and every directed link carries at most one path. */
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/hl.h"

kc_status kc_hl_circuit_check(const kc_hl_engine *e, kc_hl_circuit *out, uint32_t *path, uint8_t *len,
                              kc_err *err)
{
    if (!e->record)
        return kc_fail(err, KC_EINVAL, "circuit paths need an engine that recorded its moves");
    const int n = e->n, steps = e->steps_done;
    const uint64_t np = e->count_procs;
    memset(out, 0, sizeof *out);
    uint8_t *per_link = calloc(np * (size_t)n, 1);  /* paths on directed link x -> x^2^d */
    int8_t *step_of = malloc(np * (size_t)n);       /* step of undirected link {x, x^2^d} */
    if (!per_link || !step_of) {
        free(per_link);
        free(step_of);
        return kc_fail(err, KC_ENOMEM, "out of memory checking circuits");
    }
    memset(step_of, 0xff, np * (size_t)n);
    out->paths = np;
    out->all_minimal = 1;
    out->max_steps_per_pair = 0;
    for (uint64_t src = 0; src < np; src++) {
        uint32_t tag = e->start[src];
        uint64_t cur = src;
        int hops = 0;
        if (path)
            path[src * (n + 1)] = (uint32_t)src;
        for (int t = 0; t < steps; t++) {
            size_t at = (size_t)t * np + cur;
            if (e->sent_tag[at] != tag)
                continue;
            int d = e->sent_dim[at];
            size_t link = cur * (size_t)n + (size_t)d;
            if (per_link[link] < 255)
                per_link[link]++;
            if (per_link[link] > out->max_paths_per_link)
                out->max_paths_per_link = per_link[link];
            size_t pair = (cur & ~(1ULL << d)) * (size_t)n + (size_t)d;
            if (step_of[pair] < 0) {
                step_of[pair] = (int8_t)t;
                if (out->max_steps_per_pair < 1)
                    out->max_steps_per_pair = 1;
            } else if (step_of[pair] != t) {
                out->max_steps_per_pair = 2; /* "at least two"; Lemma 5 fails */
            }
            cur ^= 1ULL << d;
            hops++;
            if (path && hops <= n)
                path[src * (n + 1) + (uint64_t)hops] = (uint32_t)cur;
        }
        if (path)
            for (int h = hops + 1; h <= n; h++)
                path[src * (n + 1) + (uint64_t)h] = (uint32_t)cur;
        if (len)
            len[src] = (uint8_t)hops;
        out->hops += (uint64_t)hops;
        if (cur != tag || hops != kci_popcount64(src ^ tag))
            out->all_minimal = 0;
    }
    for (size_t l = 0; l < np * (size_t)n; l++)
        out->links_used += per_link[l] != 0;
    free(per_link);
    free(step_of);
    return KC_OK;
}
