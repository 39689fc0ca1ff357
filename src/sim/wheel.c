/* Chunked timing wheels (wheel.h): set-up, clearing and the pool's
 * growth; the hot operations are inline in the header. */
#include "wheel.h"

#include <stdlib.h>

#include "core/grow.h"

int kci_wheel_init(kci_wheel *w, uint32_t buckets, size_t chunks, int grows)
{
    *w = (kci_wheel){NULL, NULL, chunks, buckets - 1, 0, -1, grows};
    w->head = malloc(buckets * sizeof *w->head);
    w->chunks = malloc((chunks ? chunks : 1) * sizeof *w->chunks);
    if (!w->head || !w->chunks)
        return -1;
    kci_wheel_clear(w);
    return 0;
}

void kci_wheel_free(kci_wheel *w)
{
    free(w->head);
    free(w->chunks);
    w->head = NULL;
    w->chunks = NULL;
}

void kci_wheel_clear(kci_wheel *w)
{
    for (uint32_t i = 0; i <= w->mask; i++)
        w->head[i] = -1;
    w->free = -1;
    w->used = 0;
}

int32_t kci_wheel_chunk(kci_wheel *w)
{
    int32_t f = w->free;
    if (f >= 0) {
        w->free = w->chunks[f].next;
        return f;
    }
    if (w->used == w->cap &&
        (!w->grows || w->used >= INT32_MAX || KCI_RESERVE(w->chunks, w->cap, (size_t)w->used + 1, 64)))
        return -1;
    return (int32_t)w->used++;
}
