/* Sweeps: independent load points on worker threads, in waves. */
#include "kcube/simsweep.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/pool.h"

uint64_t kc_simsweep_seed(uint64_t seed, int i)
{
    return kc_seed_derive(seed, (uint64_t)(i + 1));
}

kc_status kc_simsweep_points(double from, double to, double step, double *loads, int *count, kc_err *err)
{
    *count = 0;
    if (!isfinite(from) || !isfinite(to) || !isfinite(step) || !(from > 0) || !(step > 0) || to < from)
        return kc_fail_param(err, KC_EINVAL, "sweep",
                             "a sweep needs finite numbers with 0 < FROM <= TO and STEP > 0, got %g:%g:%g", from, to,
                             step);
    /* Count in double first: the quotient may be far beyond any integer type. */
    double span = (to - from) / step;
    if (!isfinite(span) || span + 1e-9 >= (double)KC_SIMSWEEP_MAX_POINTS)
        return kc_fail_param(err, KC_ERANGE, "sweep", "the sweep %g:%g:%g asks for %.4g load points; at most %d",
                             from, to, step, isfinite(span) ? floor(span + 1e-9) + 1 : span, KC_SIMSWEEP_MAX_POINTS);
    int64_t n = (int64_t)floor(span + 1e-9) + 1; /* span is in [0, max]: the conversion is exact */
    if (loads)
        for (int64_t i = 0; i < n; i++)
            loads[i] = from + step * (double)i;
    *count = (int)n;
    return KC_OK;
}

void kc_simsweep_opts_default(kc_simsweep_opts *o)
{
    memset(o, 0, sizeof *o);
    o->threads = 1;
    o->stop_at_saturation = 1;
}

typedef struct shared {
    const kc_simnet *net;
    const kc_simroute *route;
    const kc_simtraffic *traffic;
    const kc_simconfig *cfg;
    const double *loads;
    int count, stop_at_saturation;
    int part, parts; /* this process runs the points part, part + parts, ... */
    kc_simresult *points;
    kc_status *status;
    kc_err *errs;
    pthread_mutex_t lock;
    int next;      /* next of this process's points to start (0, 1, ...) */
    int first_end; /* lowest index that ends the sweep (failure or saturation) */
    int done, mine;
    const kc_progress *progress;
} shared;

/* Workers take the next load point as soon as they are free. A point past
 * the first one that ends the sweep is never kept, so the result does not
 * depend on the number of threads or their timing. */
static void worker(void *arg, unsigned w)
{
    (void)w;
    shared *sh = arg;
    for (;;) {
        pthread_mutex_lock(&sh->lock);
        int i = sh->part + sh->next * sh->parts;
        if (i < sh->count && i <= sh->first_end)
            sh->next++;
        else
            i = -1;
        pthread_mutex_unlock(&sh->lock);
        if (i < 0)
            return;
        kc_simconfig c = *sh->cfg;
        c.load = sh->loads[i];
        c.seed = kc_simsweep_seed(sh->cfg->seed, i);
        sh->status[i] = kc_sim_run(sh->net, sh->route, sh->traffic, &c, &sh->points[i], &sh->errs[i]);
        pthread_mutex_lock(&sh->lock);
        if ((sh->status[i] != KC_OK || (sh->stop_at_saturation && !sh->points[i].sustainable)) && i < sh->first_end)
            sh->first_end = i;
        sh->done++;
        kc_progress_report(sh->progress, sh->done, sh->mine);
        pthread_mutex_unlock(&sh->lock);
    }
}

kc_status kc_sim_sweep(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                       const kc_simconfig *cfg, const kc_simsweep_opts *opts, kc_simsweep *out, kc_err *err)
{
    memset(out, 0, sizeof *out);
    const double *loads = opts->loads;
    int count = opts->count, threads = opts->threads, stop_at_saturation = opts->stop_at_saturation;
    const kc_progress *progress = opts->progress;
    const kc_simsweep_share *share = opts->share;
    if (count < 1 || !loads)
        return kc_fail_param(err, KC_EINVAL, "sweep", "a sweep needs at least one load");
    if (share && (share->parts < 1 || share->part < 0 || share->part >= share->parts || !share->exchange))
        return kc_fail(err, KC_EINVAL, "a shared sweep needs 0 <= part < parts and an exchange");
    int part = share ? share->part : 0, parts = share ? share->parts : 1;
    int mine = count > part ? (count - part + parts - 1) / parts : 0;
    if (threads < 1)
        threads = 1;
    if (threads > 64)
        threads = 64;
    if (threads > mine)
        threads = mine > 0 ? mine : 1;
    shared sh = {net, route, traffic, cfg, loads, count, stop_at_saturation, part, parts, NULL, NULL, NULL,
                 PTHREAD_MUTEX_INITIALIZER, 0, count, 0, mine, progress};
    sh.points = calloc((size_t)count, sizeof *sh.points);
    sh.status = calloc((size_t)count, sizeof *sh.status);
    sh.errs = calloc((size_t)count, sizeof *sh.errs);
    if (!sh.points || !sh.status || !sh.errs) {
        free(sh.points);
        free(sh.status);
        free(sh.errs);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    /* points never started stay "not run" */
    for (int i = 0; i < count; i++)
        sh.status[i] = KC_EINVAL;
    kci_run_threads((unsigned)threads, worker, &sh);
    pthread_mutex_destroy(&sh.lock);
    kc_status st = KC_OK;
    if (share) {
        /* every process learns the first end overall and the points up to it */
        kc_simsweep_exchange x = {count, sh.first_end, sh.points, sh.status, sh.errs,
                                  cfg->channel_util ? net->net_channels / (uint32_t)net->vcs + 1 : 0};
        st = share->exchange(share->ctx, &x, err);
        sh.first_end = x.end;
    }
    int keep = sh.first_end < count ? sh.first_end + 1 : count;
    if (st != KC_OK)
        keep = 0;
    else if (sh.first_end < count && sh.status[sh.first_end] != KC_OK) {
        st = sh.status[sh.first_end];
        if (err)
            *err = sh.errs[sh.first_end];
        keep = 0;
    }
    for (int i = keep; i < count; i++)
        if (sh.status[i] == KC_OK)
            kc_simresult_free(&sh.points[i]);
    out->points = sh.points;
    out->count = keep;
    for (int i = 0; i < keep; i++) {
        if (!out->points[i].sustainable)
            out->saturated = 1;
        else if (out->points[i].throughput > out->saturation_throughput) {
            out->saturation_throughput = out->points[i].throughput;
            out->saturation_source_min = out->points[i].source_throughput_min;
        }
    }
    free(sh.status);
    free(sh.errs);
    if (st != KC_OK)
        kc_simsweep_free(out);
    return st;
}

void kc_simsweep_free(kc_simsweep *s)
{
    if (s->points)
        for (int i = 0; i < s->count; i++)
            kc_simresult_free(&s->points[i]);
    free(s->points);
    memset(s, 0, sizeof *s);
}
