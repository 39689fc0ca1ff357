/* Sweeps: independent load points on worker threads, in waves. */
#include "kcube/simsweep.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

uint64_t kc_simsweep_seed(uint64_t seed, int i)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

typedef struct job {
    const kc_simnet *net;
    const kc_simroute *route;
    const kc_simtraffic *traffic;
    kc_simconfig cfg;
    kc_simresult *out;
    kc_status st;
    kc_err err;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    j->st = kc_sim_run(j->net, j->route, j->traffic, &j->cfg, j->out, &j->err);
    return NULL;
}

kc_status kc_sim_sweep(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                       const kc_simconfig *cfg, const double *loads, int count, int threads,
                       int stop_at_saturation, kc_simsweep *out, const kc_progress *progress, kc_err *err)
{
    memset(out, 0, sizeof *out);
    if (count < 1)
        return kc_fail(err, KC_EINVAL, "a sweep needs at least one load");
    if (threads < 1)
        threads = 1;
    if (threads > 64)
        threads = 64;
    out->points = calloc((size_t)count, sizeof *out->points);
    job *jobs = calloc((size_t)threads, sizeof *jobs);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    if (!out->points || !jobs || !tid) {
        free(jobs);
        free(tid);
        kc_simsweep_free(out);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    kc_status st = KC_OK;
    int done = 0, stop = 0;
    while (done < count && !stop && st == KC_OK) {
        int wave = count - done < threads ? count - done : threads;
        for (int t = 0; t < wave; t++) {
            job *j = &jobs[t];
            j->net = net;
            j->route = route;
            j->traffic = traffic;
            j->cfg = *cfg;
            j->cfg.load = loads[done + t];
            j->cfg.seed = kc_simsweep_seed(cfg->seed, done + t);
            j->out = &out->points[done + t];
            j->st = KC_OK;
        }
        int created[64] = {0};
        for (int t = 1; t < wave; t++) {
            created[t] = pthread_create(&tid[t], NULL, run_job, &jobs[t]) == 0;
            if (!created[t])
                run_job(&jobs[t]);
        }
        run_job(&jobs[0]);
        for (int t = 1; t < wave; t++)
            if (created[t])
                pthread_join(tid[t], NULL);
        /* Keep points up to the first failure or unsustainable point, in order. */
        for (int t = 0; t < wave; t++) {
            if (stop || st != KC_OK) {
                kc_simresult_free(&out->points[done + t]);
                continue;
            }
            if (jobs[t].st != KC_OK) {
                st = jobs[t].st;
                if (err)
                    *err = jobs[t].err;
                kc_simresult_free(&out->points[done + t]);
                continue;
            }
            out->count = done + t + 1;
            if (!out->points[done + t].sustainable) {
                out->saturated = 1;
                if (stop_at_saturation)
                    stop = 1;
            }
        }
        done += wave;
        kc_progress_report(progress, done, count);
    }
    for (int i = 0; i < out->count; i++)
        if (out->points[i].sustainable && out->points[i].throughput > out->saturation_throughput)
            out->saturation_throughput = out->points[i].throughput;
    free(jobs);
    free(tid);
    if (st != KC_OK) {
        kc_simsweep_free(out);
        return st;
    }
    return KC_OK;
}

void kc_simsweep_free(kc_simsweep *s)
{
    if (s->points)
        for (int i = 0; i < s->count; i++)
            kc_simresult_free(&s->points[i]);
    free(s->points);
    memset(s, 0, sizeof *s);
}
