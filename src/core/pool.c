/* Threads for the library's parallel loops (core/pool.h): the barrier on
 * C11 atomics with a condition variable to sleep on, the persistent pool
 * the simulator engine runs its phases on, the one-shot run for loops that
 * take work from a shared counter, the split of a range into parts, and a
 * job beside the caller with the progress marks the two wait on. */
#include "core/pool.h"

#include <sched.h>
#include <stdlib.h>

/* ---- barrier -------------------------------------------------------------- */

/* A pause in a spin loop: lets the other hardware thread of the core run
 * and saves power; nothing where the instruction is not known. */
static inline void cpu_relax(void)
{
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    __asm__ __volatile__("pause");
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

int kci_barrier_init(kci_barrier *b, unsigned n)
{
    atomic_init(&b->arrived, 0);
    atomic_init(&b->gen, 0);
    atomic_init(&b->sleepers, 0);
    b->n = n ? n : 1;
    b->spin = KCI_BARRIER_SPIN;
    b->yields = KCI_BARRIER_YIELDS;
    if (pthread_mutex_init(&b->mu, NULL))
        return -1;
    if (pthread_cond_init(&b->cv, NULL)) {
        pthread_mutex_destroy(&b->mu);
        return -1;
    }
    return 0;
}

void kci_barrier_destroy(kci_barrier *b)
{
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
}

/* The last arrival: reset the count for the next generation, then advance
 * the generation (the release that publishes everything written before the
 * barrier). A sleeper registers before it checks the generation and this
 * reads the registrations after advancing it, both sequentially consistent:
 * either the sleeper sees the new generation or this sees the sleeper and
 * wakes it, after taking the mutex once so that the wake-up cannot fall
 * between the sleeper's check and its wait. */
static void barrier_release(kci_barrier *b, unsigned g)
{
    atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
    atomic_store(&b->gen, g + 1);
    if (atomic_load(&b->sleepers)) {
        /* locking orders this after any sleeper's check; waking after the
         * unlock spares the sleepers a wait for the mutex */
        pthread_mutex_lock(&b->mu);
        pthread_mutex_unlock(&b->mu);
        pthread_cond_broadcast(&b->cv);
    }
}

void kci_barrier_wait(kci_barrier *b)
{
    unsigned g = atomic_load_explicit(&b->gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1 == b->n) {
        barrier_release(b, g);
        return;
    }
    for (unsigned s = 0; s < b->spin; s++) {
        if (atomic_load_explicit(&b->gen, memory_order_acquire) != g)
            return;
        cpu_relax();
    }
    for (unsigned s = 0; s < b->yields; s++) {
        if (atomic_load_explicit(&b->gen, memory_order_acquire) != g)
            return;
        sched_yield();
    }
    pthread_mutex_lock(&b->mu);
    atomic_fetch_add(&b->sleepers, 1);
    while (atomic_load(&b->gen) == g)
        pthread_cond_wait(&b->cv, &b->mu);
    atomic_fetch_sub(&b->sleepers, 1);
    pthread_mutex_unlock(&b->mu);
}

/* ---- persistent pool ------------------------------------------------------ */

typedef struct slot {
    kci_pool *pool;
    unsigned w;
} slot;

struct kci_pool {
    unsigned n, started; /* workers; threads created */
    kci_barrier start, done, user;
    pthread_mutex_t mu; /* startup: threads wait for go (or stop) before the first barrier */
    pthread_cond_t cv;
    int go, stop;
    kci_pool_job job;
    void *ctx;
    pthread_t *th;
    slot *slots;
};

/* A worker thread: the startup gate, then one job per run until stopped. */
static void *pool_thread(void *arg)
{
    slot *s = arg;
    kci_pool *p = s->pool;
    pthread_mutex_lock(&p->mu);
    while (!p->go && !p->stop)
        pthread_cond_wait(&p->cv, &p->mu);
    int stop = p->stop;
    pthread_mutex_unlock(&p->mu);
    if (stop)
        return NULL;
    for (;;) {
        kci_barrier_wait(&p->start);
        if (p->stop)
            return NULL;
        p->job(p->ctx, s->w);
        kci_barrier_wait(&p->done);
    }
}

/* Open the startup gate (ok) or tell the threads started to end (not ok). */
static void pool_gate(kci_pool *p, int ok)
{
    pthread_mutex_lock(&p->mu);
    if (ok)
        p->go = 1;
    else
        p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* Free what pool_setup made (threads already joined). */
static void pool_release(kci_pool *p, int sync)
{
    if (sync) {
        kci_barrier_destroy(&p->start);
        kci_barrier_destroy(&p->done);
        kci_barrier_destroy(&p->user);
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
    }
    free(p->th);
    free(p->slots);
    free(p);
}

/* The pool's memory and synchronisation objects; NULL on failure. */
static kci_pool *pool_setup(unsigned n)
{
    kci_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->n = n;
    p->th = calloc(n, sizeof *p->th);
    p->slots = calloc(n, sizeof *p->slots);
    if (!p->th || !p->slots) {
        pool_release(p, 0);
        return NULL;
    }
    int made = 0;
    if (!pthread_mutex_init(&p->mu, NULL) && ++made && !pthread_cond_init(&p->cv, NULL) && ++made &&
        !kci_barrier_init(&p->start, n) && ++made && !kci_barrier_init(&p->done, n) && ++made &&
        !kci_barrier_init(&p->user, n))
        return p;
    if (made > 3)
        kci_barrier_destroy(&p->done);
    if (made > 2)
        kci_barrier_destroy(&p->start);
    if (made > 1)
        pthread_cond_destroy(&p->cv);
    if (made > 0)
        pthread_mutex_destroy(&p->mu);
    pool_release(p, 0);
    return NULL;
}

kci_pool *kci_pool_new(unsigned n)
{
    if (n < 1)
        n = 1;
    kci_pool *p = pool_setup(n);
    if (!p)
        return NULL;
    int ok = 1;
    for (unsigned w = 1; ok && w < n; w++) {
        p->slots[w] = (slot){p, w};
        ok = pthread_create(&p->th[p->started], NULL, pool_thread, &p->slots[w]) == 0;
        p->started += (unsigned)ok;
    }
    pool_gate(p, ok);
    if (!ok) {
        for (unsigned i = 0; i < p->started; i++)
            pthread_join(p->th[i], NULL);
        pool_release(p, 1);
        return NULL;
    }
    return p;
}

unsigned kci_pool_size(const kci_pool *p) { return p->n; }

kci_barrier *kci_pool_barrier(kci_pool *p) { return &p->user; }

void kci_pool_run(kci_pool *p, kci_pool_job job, void *ctx)
{
    if (p->n == 1) {
        job(ctx, 0);
        return;
    }
    p->job = job;
    p->ctx = ctx;
    kci_barrier_wait(&p->start);
    job(ctx, 0);
    kci_barrier_wait(&p->done);
}

void kci_pool_free(kci_pool *p)
{
    if (!p)
        return;
    if (p->n > 1) {
        p->stop = 1;
        kci_barrier_wait(&p->start);
    }
    for (unsigned i = 0; i < p->started; i++)
        pthread_join(p->th[i], NULL);
    pool_release(p, 1);
}

/* ---- one-shot run --------------------------------------------------------- */

typedef struct oneshot {
    kci_pool_job job;
    void *ctx;
    unsigned w;
} oneshot;

static void *oneshot_thread(void *arg)
{
    oneshot *o = arg;
    o->job(o->ctx, o->w);
    return NULL;
}

unsigned kci_run_threads(unsigned n, kci_pool_job job, void *ctx)
{
    pthread_t th[KCI_RUN_THREADS_MAX - 1];
    oneshot o[KCI_RUN_THREADS_MAX - 1];
    if (n > KCI_RUN_THREADS_MAX)
        n = KCI_RUN_THREADS_MAX;
    unsigned k = 1;
    for (; k < n; k++) {
        o[k - 1] = (oneshot){job, ctx, k};
        if (pthread_create(&th[k - 1], NULL, oneshot_thread, &o[k - 1]))
            break;
    }
    job(ctx, 0);
    for (unsigned i = 1; i < k; i++)
        pthread_join(th[i - 1], NULL);
    return k;
}

/* ---- progress marks and background jobs ------------------------------------ */

int kci_mark_init(kci_mark *m)
{
    atomic_init(&m->v, 0);
    atomic_init(&m->sleepers, 0);
    if (pthread_mutex_init(&m->mu, NULL))
        return -1;
    if (pthread_cond_init(&m->cv, NULL)) {
        pthread_mutex_destroy(&m->mu);
        return -1;
    }
    return 0;
}

void kci_mark_destroy(kci_mark *m)
{
    pthread_cond_destroy(&m->cv);
    pthread_mutex_destroy(&m->mu);
}

/* As barrier_release: the store and a sleeper's registration are both
 * sequentially consistent, so either the sleeper sees v or this sees it. */
void kci_mark_set(kci_mark *m, unsigned long long v)
{
    atomic_store(&m->v, v);
    if (atomic_load(&m->sleepers)) {
        pthread_mutex_lock(&m->mu);
        pthread_mutex_unlock(&m->mu);
        pthread_cond_broadcast(&m->cv);
    }
}

unsigned long long kci_mark_get(kci_mark *m) { return atomic_load_explicit(&m->v, memory_order_acquire); }

unsigned long long kci_mark_wait(kci_mark *m, unsigned long long v)
{
    unsigned long long x;
    for (unsigned s = 0; s < KCI_BARRIER_SPIN; s++) {
        if ((x = kci_mark_get(m)) >= v)
            return x;
        cpu_relax();
    }
    for (unsigned s = 0; s < KCI_BARRIER_YIELDS; s++) {
        if ((x = kci_mark_get(m)) >= v)
            return x;
        sched_yield();
    }
    pthread_mutex_lock(&m->mu);
    atomic_fetch_add(&m->sleepers, 1);
    while ((x = atomic_load(&m->v)) < v)
        pthread_cond_wait(&m->cv, &m->mu);
    atomic_fetch_sub(&m->sleepers, 1);
    pthread_mutex_unlock(&m->mu);
    return x;
}

static void *bg_thread(void *arg)
{
    kci_bg *b = arg;
    b->job(b->ctx);
    return NULL;
}

int kci_bg_start(kci_bg *b, void (*job)(void *ctx), void *ctx)
{
    b->job = job;
    b->ctx = ctx;
    return pthread_create(&b->th, NULL, bg_thread, b) ? -1 : 0;
}

void kci_bg_join(kci_bg *b) { pthread_join(b->th, NULL); }

void kci_range_part(size_t total, unsigned n, unsigned w, size_t *lo, size_t *hi)
{
    size_t q = total / n, r = total % n;
    *lo = (size_t)w * q + (w < r ? w : r);
    *hi = *lo + q + (w < r);
}
