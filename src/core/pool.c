/* Threads for the library's parallel loops (core/pool.h): the barrier on
 * C11 atomics with a condition variable to sleep on, the persistent pool
 * the simulator engine runs its phases on, the one-shot run for loops that
 * take work from a shared counter, the split of a range into parts, and a
 * job beside the caller with the progress marks the two wait on. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1 /* sched_getcpu and the affinity calls (kci_bg_start) */
#endif
#include "core/pool.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

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

/* The mutex and condition variable waiters sleep on (a barrier's, a
 * mark's): 0, or -1 with neither left made. */
static int sleep_init(pthread_mutex_t *mu, pthread_cond_t *cv)
{
    if (pthread_mutex_init(mu, NULL))
        return -1;
    if (pthread_cond_init(cv, NULL)) {
        pthread_mutex_destroy(mu);
        return -1;
    }
    return 0;
}

/* After a sequentially consistent store that the sleepers wait for: wakes
 * them, if any. A sleeper registers before it checks the value, so
 * either it sees the store or this sees it; locking once orders this
 * after its check, so the wake-up cannot fall between its check and its
 * wait, and waking after the unlock spares them a wait for the mutex. */
static void sleep_wake(atomic_uint *sleepers, pthread_mutex_t *mu, pthread_cond_t *cv)
{
    if (atomic_load(sleepers)) {
        pthread_mutex_lock(mu);
        pthread_mutex_unlock(mu);
        pthread_cond_broadcast(cv);
    }
}

/* What a waiter waits for: ready(ctx) turns true, and stays true, once
 * another thread has stored something and called sleep_wake. */
typedef int (*wait_ready)(const void *ctx);

/* Waits until ready(ctx): spin times a CPU pause, then yields times, then
 * asleep on cv, registered as a sleeper before the last check (the other
 * side of sleep_wake). */
static inline void sleep_until(atomic_uint *sleepers, pthread_mutex_t *mu, pthread_cond_t *cv, unsigned spin,
                               unsigned yields, wait_ready ready, const void *ctx)
{
    for (unsigned s = 0; s < spin; s++) {
        if (ready(ctx))
            return;
        cpu_relax();
    }
    for (unsigned s = 0; s < yields; s++) {
        if (ready(ctx))
            return;
        sched_yield();
    }
    pthread_mutex_lock(mu);
    atomic_fetch_add(sleepers, 1);
    while (!ready(ctx))
        pthread_cond_wait(cv, mu);
    atomic_fetch_sub(sleepers, 1);
    pthread_mutex_unlock(mu);
}

int kci_barrier_init(kci_barrier *b, unsigned n)
{
    atomic_init(&b->arrived, 0);
    atomic_init(&b->gen, 0);
    atomic_init(&b->sleepers, 0);
    b->n = n ? n : 1;
    b->spin = KCI_BARRIER_SPIN;
    b->yields = KCI_BARRIER_YIELDS;
    return sleep_init(&b->mu, &b->cv);
}

void kci_barrier_destroy(kci_barrier *b)
{
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
}

/* The last arrival: reset the count for the next generation, then advance
 * the generation (the release that publishes everything written before the
 * barrier) and wake the sleepers (sleep_wake). */
static void barrier_release(kci_barrier *b, unsigned g)
{
    atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
    atomic_store(&b->gen, g + 1);
    sleep_wake(&b->sleepers, &b->mu, &b->cv);
}

/* A barrier waiter's generation g has passed. */
typedef struct gen_wait {
    kci_barrier *b;
    unsigned g;
} gen_wait;

static int gen_passed(const void *ctx)
{
    const gen_wait *w = ctx;
    return atomic_load(&w->b->gen) != w->g;
}

void kci_barrier_wait(kci_barrier *b)
{
    unsigned g = atomic_load_explicit(&b->gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1 == b->n) {
        barrier_release(b, g);
        return;
    }
    gen_wait w = {b, g};
    sleep_until(&b->sleepers, &b->mu, &b->cv, b->spin, b->yields, gen_passed, &w);
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
    return sleep_init(&m->mu, &m->cv);
}

void kci_mark_destroy(kci_mark *m)
{
    pthread_cond_destroy(&m->cv);
    pthread_mutex_destroy(&m->mu);
}

void kci_mark_set(kci_mark *m, unsigned long long v)
{
    atomic_store(&m->v, v);
    sleep_wake(&m->sleepers, &m->mu, &m->cv);
}

unsigned long long kci_mark_get(kci_mark *m) { return atomic_load_explicit(&m->v, memory_order_acquire); }

/* A mark waiter's value v has been reached. */
typedef struct mark_wait {
    kci_mark *m;
    unsigned long long v;
} mark_wait;

static int mark_reached(const void *ctx)
{
    const mark_wait *w = ctx;
    return atomic_load(&w->m->v) >= w->v;
}

unsigned long long kci_mark_wait(kci_mark *m, unsigned long long v)
{
    unsigned long long x = kci_mark_get(m);
    if (x >= v)
        return x;
    mark_wait w = {m, v};
    sleep_until(&m->sleepers, &m->mu, &m->cv, KCI_BARRIER_SPIN, KCI_BARRIER_YIELDS, mark_reached, &w);
    return kci_mark_get(m); /* the mark never goes back: still >= v */
}

static void *bg_thread(void *arg)
{
    kci_bg *b = arg;
#ifdef __linux__
    if (b->pinned) { /* started on another core: free to move from now on */
        cpu_set_t all;
        memcpy(&all, b->cpus, sizeof all);
        pthread_setaffinity_np(pthread_self(), sizeof all, &all);
    }
#endif
    b->job(b->ctx);
    return NULL;
}

/* Linux tends to start a new thread on its creator's core and to move it
 * only a millisecond or more later (seen on the 2-core machine: a
 * producer and its waiting consumer took turns on one core for 1.1 ms of
 * a 15 ms run), so the thread starts on the caller's other cores when it
 * has any. 1 when attr was set up so (destroy it). */
static int bg_elsewhere(kci_bg *b, pthread_attr_t *attr)
{
    b->pinned = 0;
#ifdef __linux__
    _Static_assert(sizeof(cpu_set_t) <= sizeof b->cpus, "kci_bg.cpus holds a cpu_set_t");
    cpu_set_t all;
    int cpu = sched_getcpu();
    if (cpu < 0 || sched_getaffinity(0, sizeof all, &all) || CPU_COUNT(&all) < 2 || !CPU_ISSET(cpu, &all) ||
        pthread_attr_init(attr))
        return 0;
    memcpy(b->cpus, &all, sizeof all);
    CPU_CLR(cpu, &all);
    b->pinned = !pthread_attr_setaffinity_np(attr, sizeof all, &all);
    return 1;
#else
    (void)attr;
    return 0;
#endif
}

int kci_bg_start(kci_bg *b, void (*job)(void *ctx), void *ctx)
{
    b->job = job;
    b->ctx = ctx;
    pthread_attr_t attr;
    int with_attr = bg_elsewhere(b, &attr);
    int rc = pthread_create(&b->th, with_attr ? &attr : NULL, bg_thread, b);
    if (with_attr)
        pthread_attr_destroy(&attr);
    return rc ? -1 : 0;
}

void kci_bg_join(kci_bg *b) { pthread_join(b->th, NULL); }

void kci_range_part(size_t total, unsigned n, unsigned w, size_t *lo, size_t *hi)
{
    size_t q = total / n, r = total % n;
    *lo = (size_t)w * q + (w < r ? w : r);
    *hi = *lo + q + (w < r);
}
