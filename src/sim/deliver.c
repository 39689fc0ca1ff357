/* The record of a delivered message, shared by the flit loop (flit.c) and
 * the worm-level loop (trains.c): its latency into the sample, the last
 * arrival, and the delivery log of driven and logging runs. It sits below
 * both loops and the cycle (engine.c), so the engine's files call each
 * other in one direction only. */
#include "engine.h"

#include "core/grow.h"

void kci_engine_finish(kci_engine *e, kci_worm *w, uint32_t arrival)
{
    if (w->measured) {
        if (kc_simsample_add(&e->latency, arrival - w->gen))
            e->nomem = 1;
        e->net_lat_sum += (double)(arrival - w->inj);
        e->outstanding--;
    }
    if ((int64_t)arrival > e->last_arrival)
        e->last_arrival = arrival;
    if (e->driven || e->logging) {
        if (KCI_RESERVE(e->log, e->log_cap, e->nlog + 1, 64)) {
            e->nomem = 1;
            return;
        }
        e->log[e->nlog++] = (kc_simarrival){e->driven ? w->id : (uint32_t)w->seq, arrival};
    }
}
