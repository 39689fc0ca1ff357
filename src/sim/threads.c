/* The threads that run the worm-level loop's node ranges: range p > 0 on
 * thread p, range 0 on the caller, two phases a cycle (header arbitration,
 * moves), each between two barriers. */
#include "engine.h"

#include <pthread.h>
#include <stdlib.h>

/* The threads of one run: range p > 0 runs on thread p, range 0 on the
 * caller. Two barriers a cycle (start, done); pthread barriers sleep in
 * the kernel, so a thread that waits does not take the other core. */
struct kci_simpool {
    pthread_barrier_t start, mid, done;
    pthread_t th[KCI_MAX_THREADS];
    pthread_mutex_t mu; /* startup: threads wait for `ready` before the first barrier */
    pthread_cond_t cv;
    uint32_t started; /* threads created */
    int ready, stop;
    int phase; /* 0: header arbitration (kci_trains_part_allocate), 1: moves (kci_trains_part_move) */
    kci_engine *e;
};

typedef struct tworker {
    struct kci_simpool *pool;
    uint32_t p;
} tworker;

static void *part_thread(void *arg)
{
    struct kci_simpool *pl = ((tworker *)arg)->pool;
    uint32_t p = ((tworker *)arg)->p;
    free(arg);
    pthread_mutex_lock(&pl->mu);
    while (!pl->ready && !pl->stop)
        pthread_cond_wait(&pl->cv, &pl->mu);
    int stop = pl->stop;
    pthread_mutex_unlock(&pl->mu);
    if (stop)
        return NULL;
    for (;;) {
        pthread_barrier_wait(&pl->start);
        if (pl->stop)
            return NULL;
        if (pl->phase)
            kci_trains_part_move(pl->e, p);
        else
            kci_trains_part_allocate(pl->e, &pl->e->parts[p]);
        pthread_barrier_wait(&pl->done);
    }
}

/* Between the wake-ups and the tries of an allocation (several threads). */
void kci_pool_mid(kci_engine *e)
{
    if (e->pool)
        pthread_barrier_wait(&e->pool->mid);
}

/* One phase: range 0 here, the others on their threads; returns when all
 * are done. */
void kci_pool_run(kci_engine *e, int phase)
{
    e->pool->phase = phase;
    pthread_barrier_wait(&e->pool->start);
    if (phase)
        kci_trains_part_move(e, 0);
    else
        kci_trains_part_allocate(e, &e->parts[0]);
    pthread_barrier_wait(&e->pool->done);
}

static void pool_free(struct kci_simpool *pl);

void kci_pool_stop(kci_engine *e)
{
    struct kci_simpool *pl = e->pool;
    if (!pl)
        return;
    pl->stop = 1;
    pthread_barrier_wait(&pl->start);
    for (uint32_t i = 0; i < pl->started; i++)
        pthread_join(pl->th[i], NULL);
    pool_free(pl);
    e->pool = NULL;
}

static void pool_free(struct kci_simpool *pl)
{
    pthread_barrier_destroy(&pl->start);
    pthread_barrier_destroy(&pl->mid);
    pthread_barrier_destroy(&pl->done);
    pthread_cond_destroy(&pl->cv);
    pthread_mutex_destroy(&pl->mu);
    free(pl);
}

/* Threads for ranges 1 .. nt-1; -1 when they cannot all be started (the
 * started ones are told to stop before they reach a barrier). */
int kci_pool_start(kci_engine *e)
{
    struct kci_simpool *pl = calloc(1, sizeof *pl);
    if (!pl)
        return -1;
    pl->e = e;
    if (pthread_mutex_init(&pl->mu, NULL)) {
        free(pl);
        return -1;
    }
    if (pthread_cond_init(&pl->cv, NULL)) {
        pthread_mutex_destroy(&pl->mu);
        free(pl);
        return -1;
    }
    int ok = pthread_barrier_init(&pl->start, NULL, e->nparts) == 0;
    if (ok && pthread_barrier_init(&pl->mid, NULL, e->nparts)) {
        pthread_barrier_destroy(&pl->start);
        ok = 0;
    }
    if (ok && pthread_barrier_init(&pl->done, NULL, e->nparts)) {
        pthread_barrier_destroy(&pl->start);
        pthread_barrier_destroy(&pl->mid);
        ok = 0;
    }
    if (!ok) {
        pthread_cond_destroy(&pl->cv);
        pthread_mutex_destroy(&pl->mu);
        free(pl);
        return -1;
    }
    for (uint32_t p = 1; ok && p < e->nparts; p++) {
        tworker *a = malloc(sizeof *a);
        ok = a != NULL;
        if (ok) {
            *a = (tworker){pl, p};
            ok = pthread_create(&pl->th[pl->started], NULL, part_thread, a) == 0;
            if (ok)
                pl->started++;
            else
                free(a);
        }
    }
    pthread_mutex_lock(&pl->mu);
    if (ok)
        pl->ready = 1;
    else
        pl->stop = 1;
    pthread_cond_broadcast(&pl->cv);
    pthread_mutex_unlock(&pl->mu);
    if (!ok) {
        for (uint32_t i = 0; i < pl->started; i++)
            pthread_join(pl->th[i], NULL);
        pool_free(pl);
        return -1;
    }
    e->pool = pl;
    return 0;
}
