/* Threads for the library's parallel loops, written once: a barrier, a
 * persistent pool of workers, a one-shot parallel run and the split of a
 * range into parts.
 *
 * kci_barrier does not need pthread_barrier_t (absent on macOS): threads
 * arrive on a C11 atomic counter; the last one advances a generation
 * number. A waiter spins briefly on the generation (threads of a simulated
 * cycle usually arrive within microseconds of each other, and waking a
 * sleeper costs several), yields its core a few times, and then sleeps on a
 * condition variable, so that a thread that waits long does not take a
 * core from the others.
 *
 * kci_pool keeps n - 1 threads for a run of many steps (the simulator
 * engine: two or three phases a cycle); the caller is worker 0.
 * kci_run_threads is the one-shot form for loops that pull their work from
 * a shared atomic counter and so finish with any number of workers.
 * kci_bg runs one job beside the caller (a producer running ahead), and a
 * kci_mark is the count the two wait on. */
#ifndef KCI_CORE_POOL_H
#define KCI_CORE_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

/* A waiter first spins (each spin a CPU pause, 10 to 80 ns), then yields
 * its core a few times (the thread it waits for may be waiting for a core:
 * the machine may run more threads than it has cores), then sleeps. On a
 * shared two-core machine this crossed a barrier as fast as
 * pthread_barrier_t or faster (bench/bench_core.c); long spins lost badly
 * there. */
#define KCI_BARRIER_SPIN 32u
#define KCI_BARRIER_YIELDS 16u

typedef struct kci_barrier {
    atomic_uint arrived;  /* threads at the barrier in this generation */
    atomic_uint gen;      /* generation: advanced by the last arrival */
    atomic_uint sleepers; /* waiters past their spin, on cv */
    unsigned n;           /* threads that meet here */
    unsigned spin;        /* spins before sleeping (KCI_BARRIER_SPIN; 0: sleep at once) */
    unsigned yields;      /* sched_yield calls after the spins (KCI_BARRIER_YIELDS) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} kci_barrier;

/* A barrier for n >= 1 threads. Returns 0, or -1 when the mutex or
 * condition variable cannot be made (nothing to destroy then). */
int kci_barrier_init(kci_barrier *b, unsigned n);

/* Needs no thread waiting. */
void kci_barrier_destroy(kci_barrier *b);

/* Wait until all n threads have called it in this generation. Whatever a
 * thread wrote before its call is visible to every thread after theirs.
 * Reusable at once for the next generation. */
void kci_barrier_wait(kci_barrier *b);

/* A job: the part of the work of worker `worker` (0 .. workers - 1). */
typedef void (*kci_pool_job)(void *ctx, unsigned worker);

typedef struct kci_pool kci_pool;

/* A pool of n workers (n >= 1): n - 1 threads, started and waiting, and
 * the caller as worker 0. Returns NULL when memory, the barrier or one of
 * the threads cannot be had (the threads started are stopped first). */
kci_pool *kci_pool_new(unsigned n);

/* The number of workers, the caller included. */
unsigned kci_pool_size(const kci_pool *p);

/* Run job(ctx, w) on every worker w, worker 0 on the calling thread, and
 * return when all have returned. One caller at a time; whatever the caller
 * wrote before is visible to the job, and whatever the jobs wrote is
 * visible to the caller after. Costs two barrier waits besides the job. */
void kci_pool_run(kci_pool *p, kci_pool_job job, void *ctx);

/* The barrier of all the pool's workers, for jobs whose workers wait for
 * each other within a run (every worker must call it equally often). */
kci_barrier *kci_pool_barrier(kci_pool *p);

/* Stop and join the threads and free the pool (NULL: nothing). Not during a
 * run. */
void kci_pool_free(kci_pool *p);

/* Workers of one kci_run_threads call at most: its bookkeeping lives on the
 * caller's stack, so the call allocates nothing and cannot run out of
 * memory. */
#define KCI_RUN_THREADS_MAX 64u

/* One parallel run without a pool: job(ctx, w) on worker 0 (the caller)
 * and on threads 1 .. k - 1, joined before returning k, the number of
 * workers that ran (1 <= k <= min(n, KCI_RUN_THREADS_MAX)). k is smaller
 * when a thread could not be started: the job must then still finish the
 * work, which it does when its workers take items from a shared counter
 * until none are left. */
unsigned kci_run_threads(unsigned n, kci_pool_job job, void *ctx);

/* A progress mark: a count one thread advances and others wait on (how
 * far a producer has written, or a consumer has read). Waiting spins,
 * yields and sleeps as the barrier does. */
typedef struct kci_mark {
    atomic_ullong v;
    atomic_uint sleepers;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} kci_mark;

/* A mark at 0. Returns 0, or -1 when the mutex or condition variable
 * cannot be made (nothing to destroy then). */
int kci_mark_init(kci_mark *m);

/* Needs no thread waiting. */
void kci_mark_destroy(kci_mark *m);

/* The mark becomes v (never less than it was); whatever the caller wrote
 * before is visible to a thread that then reads v or more. Wakes the
 * sleepers. */
void kci_mark_set(kci_mark *m, unsigned long long v);

/* The mark's value (what was written before it was set is visible). */
unsigned long long kci_mark_get(kci_mark *m);

/* Waits until the mark is at least v; returns its value then. */
unsigned long long kci_mark_wait(kci_mark *m, unsigned long long v);

/* A thread running one job in the background while the caller goes on. */
typedef struct kci_bg {
    pthread_t th;
    void (*job)(void *ctx);
    void *ctx;
    int pinned;                /* started away from the caller's core (Linux) */
    unsigned char cpus[128];   /* then the caller's cores (a cpu_set_t), the thread's once it runs */
} kci_bg;

/* Starts job(ctx) on a new thread (on another of the caller's cores when
 * it has any; it may move later); 0, or -1 when it cannot be started. */
int kci_bg_start(kci_bg *b, void (*job)(void *ctx), void *ctx);

/* Waits for the job to return. */
void kci_bg_join(kci_bg *b);

/* Worker w's part [*lo, *hi) of items 0 .. total - 1 split into n
 * contiguous parts whose sizes differ by at most one (the first total % n
 * parts are the larger). */
void kci_range_part(size_t total, unsigned n, unsigned w, size_t *lo, size_t *hi);

#endif
