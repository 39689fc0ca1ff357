/* The threads that run the worm-level loop's node ranges: range p > 0 on
 * worker p of a core/pool.h pool, range 0 on the caller, two phases a
 * cycle (header arbitration, then the moves), each a pool run; within the
 * arbitration the ranges meet once more, on the pool's barrier, between
 * the wake-ups and the tries. */
#include "engine.h"

#include "core/pool.h"

/* Worker p's range of the phase the caller gave (e->part_job). */
static void phase_job(void *ctx, unsigned p)
{
    kci_engine *e = ctx;
    e->part_job(e, p);
}

int kci_simthreads_start(kci_engine *e)
{
    e->pool = kci_pool_new(e->nparts);
    return e->pool ? 0 : -1;
}

void kci_simthreads_stop(kci_engine *e)
{
    kci_pool_free(e->pool);
    e->pool = NULL;
}

void kci_simthreads_run(kci_engine *e, void (*job)(kci_engine *e, uint32_t part))
{
    e->part_job = job;
    kci_pool_run(e->pool, phase_job, e);
}

void kci_simthreads_mid(kci_engine *e)
{
    if (e->pool)
        kci_barrier_wait(kci_pool_barrier(e->pool));
}
