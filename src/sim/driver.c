/* The simulator's front doors: kc_sim_run (a run with generated traffic,
 * a warm-up, a measurement window and a drain, or a one-shot run of a
 * traffic table) and kc_simdrive (a caller injects messages cycle by
 * cycle); what a run reports (figures, per-source judgement, conservation
 * checks, the cycle of a deadlock). */
#include "kcube/sim.h"

#include <stdlib.h>
#include <string.h>

#include "engine.h"

#include "core/clock.h"

/* Follow "waits for a channel held by" from the oldest waiting header. */
static void find_cycle(kci_engine *e, kc_simresult *out)
{
    uint32_t cand[KC_SIMROUTE_MAX];
    out->cycle_len = 0;
    if (e->trains)
        kci_trains_waiting(e);
    else
        kci_flit_waiting(e);
    if (!e->nwaiting)
        return;
    int32_t *step = malloc(e->worm_cap * sizeof *step);
    uint32_t *req = malloc(e->worm_cap * sizeof *req);
    if (!step || !req) {
        free(step);
        free(req);
        return;
    }
    for (uint32_t i = 0; i < e->worm_cap; i++)
        step[i] = -1;
    /* index waiting headers by worm */
    uint32_t *inch = malloc(e->worm_cap * sizeof *inch);
    if (!inch) {
        free(step);
        free(req);
        return;
    }
    for (uint32_t i = 0; i < e->worm_cap; i++)
        inch[i] = KC_SIM_NONE;
    for (uint32_t i = 0; i < e->nwaiting; i++)
        inch[e->waiting[i].w] = (uint32_t)e->waiting[i].key;
    uint32_t wi = e->waiting[0].w;
    for (int s = 0;; s++) {
        if (inch[wi] == KC_SIM_NONE)
            break;
        step[wi] = s;
        uint32_t node = kci_channel_head_node(e->net, inch[wi]);
        int nc = kc_simroute_candidates(e->route, e->net, node, e->worms[wi].dst, inch[wi], cand);
        int32_t next = -1;
        for (int j = 0; j < nc && next < 0; j++)
            if (kci_owner(e, cand[j]) >= 0) {
                next = kci_owner(e, cand[j]);
                req[s] = cand[j];
            }
        if (next < 0)
            break;
        if (step[next] >= 0) {
            for (int t = step[next]; t <= s && out->cycle_len < KC_SIM_CYCLE_MAX; t++)
                out->cycle[out->cycle_len++] = req[t];
            break;
        }
        wi = (uint32_t)next;
    }
    free(step);
    free(req);
    free(inch);
}

/* Conservation and buffer bounds at the end of a run; fills the flit counts
 * of out. KC_EINTERNAL when broken. */
static kc_status check_invariants(kci_engine *e, kc_simresult *out, kc_err *err)
{
    const kc_simnet *net = e->net;
    uint64_t buffered = 0, at_source = e->queued_flits;
    if (e->pipe) {
        kci_pipe_flits(e, &buffered, &at_source);
    } else if (e->trains) {
        kci_trains_flits(e, &buffered, &at_source);
    } else if (e->stream) {
        kci_stream_flits(e, &buffered, &at_source);
    } else {
        for (uint32_t c = 0; c < net->channels; c++) {
            if (e->chans[c].cnt > e->depth || (e->chans[c].owner < 0 && e->chans[c].cnt))
                e->overflow = 1;
            buffered += e->chans[c].cnt;
        }
        for (uint32_t i = 0; i < e->nactive; i++)
            at_source += e->worms[e->active[i]].src_left;
    }
    out->flits_generated = e->flits_generated;
    out->flits_delivered = e->flits_delivered;
    out->flits_queued = at_source;
    out->flits_in_network = buffered;
    if (e->overflow)
        return kc_fail(err, KC_EINTERNAL, "invariant violated: a buffer held more flits than its depth");
    if (e->flits_generated != e->flits_delivered + at_source + buffered)
        return kc_fail(err, KC_EINTERNAL, "invariant violated: %llu flits generated, %llu delivered, %llu queued, %llu in the network",
                       (unsigned long long)e->flits_generated, (unsigned long long)e->flits_delivered,
                       (unsigned long long)at_source, (unsigned long long)buffered);
    return KC_OK;
}

/* Per-source judgement ("Sustained load" in kcube/sim.h): fills the source
 * fields of out; returns how many judged sources fell behind. */
static uint32_t judge_sources(const kci_engine *e, int64_t window, kc_simresult *out)
{
    double slack = KC_SIM_SOURCE_SLACK * (double)e->msg_len;
    uint32_t behind = 0;
    out->source_ratio_min = 1;
    out->source_throughput_min = 0;
    out->source_growth_max = 0;
    out->source_worst = KC_SIM_NONE;
    int first = 1;
    for (uint32_t x = 0; x < e->net->nodes; x++) {
        uint64_t g = e->win_generated[x], a = e->win_delivered[x];
        if (!g)
            continue; /* generated nothing in the window: not judged */
        out->sources_judged++;
        double ratio = (double)a / (double)g, thr = (double)a / (double)window;
        double growth = (double)g - (double)a; /* = growth of x's backlog over the window, in flits */
        /* behind: short of 97 % (beyond the slack) and its queue never once
         * came back to its starting length in the last half of the window */
        if (growth > KC_SIM_SOURCE_SHARE * (double)g + slack && e->queue_len_low[x] > e->queue_len_start[x])
            behind++;
        if (first || ratio < out->source_ratio_min) {
            out->source_ratio_min = ratio;
            out->source_worst = x;
        }
        if (first || thr < out->source_throughput_min)
            out->source_throughput_min = thr;
        if (first || growth > out->source_growth_max)
            out->source_growth_max = growth;
        first = 0;
    }
    out->sources_behind = behind;
    return behind;
}

kc_status kci_sim_run_loop(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                           const kc_simconfig *cfg, int flit_loop, kc_simresult *out, kc_err *err)
{
    return kci_sim_run_par(net, route, traffic, cfg, flit_loop, KC_SIM_PAR_NODES, out, NULL, NULL, err);
}

/* A run of kc_sim_run: the engine, the measurement window and what the
 * cycle loop found. */
typedef struct simrun {
    kci_engine e;
    const kc_simconfig *cfg;
    int64_t wstart, wend, limit; /* the window [wstart, wend), the last cycle + 1 */
    double queue_at_end;         /* messages queued when the window closed, -1 before */
    int gave_up;                 /* the queues passed queue_cap messages per node */
} simrun;

/* Sets up r (its engine on the node ranges kci_sim_parts gives, their
 * threads, the per-link counts, a one-shot run's messages); on failure
 * frees what it set up. */
static kc_status run_start(simrun *r, const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                           const kc_simconfig *cfg, int flit_loop, uint32_t min_nodes, int logging,
                           kc_simresult *out, kc_err *err)
{
    kci_simshape shape = kci_sim_shape(net);
    uint32_t nt = kci_sim_parts(&shape, cfg, !flit_loop && !kc_sim_pipeline(cfg, route), min_nodes);
    kci_engine *e = &r->e;
    kc_status st = kci_engine_init(e, net, route, traffic, cfg, flit_loop, nt, min_nodes < KC_SIM_PAR_NODES, err);
    if (st) {
        kci_engine_free(e);
        return st;
    }
    e->logging = logging;
    if (nt > 1 && kci_simthreads_start(e)) {
        kci_engine_free(e);
        return kc_fail(err, KC_ENOMEM, "cannot start %u threads for the simulation", nt);
    }
    if (kci_sim_feeds(cfg, nt) && kci_feed_start(e, cfg->warmup + cfg->measure + cfg->drain)) {
        kci_engine_free(e);
        return kc_fail(err, KC_ENOMEM, "cannot start the generation thread for the simulation");
    }
    if (cfg->channel_util) {
        out->link_flits = calloc(net->net_channels / (uint32_t)net->vcs + 1, sizeof *out->link_flits);
        if (!out->link_flits) {
            kci_engine_free(e);
            return kc_fail(err, KC_ENOMEM, "out of memory");
        }
        e->link_flits = out->link_flits;
    }
    r->cfg = cfg;
    r->wstart = cfg->oneshot ? 0 : cfg->warmup;
    r->wend = cfg->oneshot ? INT64_MAX : cfg->warmup + cfg->measure;
    r->limit = cfg->oneshot ? 2000000000LL : r->wend + cfg->drain;
    r->queue_at_end = -1;
    r->gave_up = 0;
    if (cfg->oneshot) {
        for (uint32_t x = 0; x < net->nodes; x++)
            if (!traffic->uniform)
                for (uint32_t j = traffic->start[x]; j < traffic->start[x + 1]; j++)
                    if (kci_enqueue(e, x, traffic->dest[j], e->msg_len, kci_gen_id(&e->gen)))
                        e->nomem = 1;
        e->outstanding = e->queued;
    }
    return KC_OK;
}

/* The window's marks at the start of cycle t: queue lengths for the
 * per-source judgement (at the window's start, then the lowest in its
 * last half), the trains' window edges, the queue when it closes. */
static void run_window_marks(simrun *r, int64_t t)
{
    kci_engine *e = &r->e;
    size_t bytes = e->net->nodes * sizeof *e->queue_len;
    if (t == r->wstart) {
        memcpy(e->queue_len_start, e->queue_len, bytes);
        if (e->trains)
            kci_trains_window_edge(e, 0);
        if (e->stream)
            kci_stream_settle(e, 0);
    }
    if (t == r->wstart + r->cfg->measure / 2) {
        memcpy(e->queue_len_low, e->queue_len, bytes);
        e->late_window = 1;
    }
    if (t == r->wend) {
        if (e->trains)
            kci_trains_window_edge(e, 1);
        if (e->stream)
            kci_stream_settle(e, 1);
        r->queue_at_end = (double)e->queued;
        e->late_window = 0;
    }
}

/* The cycles of the run, until the window and the drain are over, every
 * message is delivered, the engine stops (deadlock: out gets the cycle of
 * waiting headers; out of memory) or the queues overflow; returns the
 * cycles simulated. */
static int64_t run_cycles(simrun *r, kc_simresult *out)
{
    kci_engine *e = &r->e;
    const kc_simconfig *cfg = r->cfg;
    double cap = cfg->queue_cap * (double)kc_simnet_slots(e->net); /* per endpoint: nodes on plain networks */
    int64_t idle = 0, t;
    for (t = 0; t < r->limit; t++) {
        e->now = (uint32_t)t;
        e->in_window = t >= r->wstart && t < r->wend;
        if (!cfg->oneshot) {
            run_window_marks(r, t);
            if (t >= r->wend && e->outstanding == 0)
                break;
            kci_generate(e);
        } else if (e->outstanding == 0) {
            break;
        }
        if (kci_engine_cycle(e, &idle)) {
            if (!e->nomem) {
                out->deadlock = 1;
                find_cycle(e, out);
                t++;
            }
            break;
        }
        if (!cfg->oneshot && (double)e->queued > cap) {
            r->gave_up = 1;
            t++;
            break;
        }
    }
    return t;
}

/* The figures of a finished run (out->cycles set) into out. */
static void run_results(simrun *r, kc_simresult *out)
{
    kci_engine *e = &r->e;
    const kc_simconfig *cfg = r->cfg;
    double nodes = (double)kc_simnet_slots(e->net); /* figures per endpoint of the job (nodes on plain networks) */
    /* the part of the window actually simulated (a run that gives up stops early) */
    int64_t window = (out->cycles < r->wend ? out->cycles : r->wend) - r->wstart;
    if (window < 1)
        window = 1;
    out->offered = cfg->oneshot ? 0 : cfg->load;
    out->generated = (double)e->gen_window / (nodes * (double)window);
    out->throughput = (double)e->del_window / (nodes * (double)window);
    out->messages = e->latency.count;
    out->latency_avg = kc_simsample_mean(&e->latency);
    out->network_latency_avg = e->latency.count ? e->net_lat_sum / (double)e->latency.count : 0;
    out->latency_p99 = kc_simsample_quantile(&e->latency, 0.99);
    out->link_traversals = e->link_traversals;
    out->completion = e->last_arrival;
    out->queue_avg = (r->queue_at_end >= 0 ? r->queue_at_end : (double)e->queued) / nodes;
    if (cfg->oneshot) {
        out->sustainable = !out->deadlock && e->outstanding == 0;
    } else {
        uint32_t behind = judge_sources(e, window, out);
        out->sustainable = !r->gave_up && !out->deadlock && e->outstanding == 0 &&
                           out->throughput >= (1 - KC_SIM_SOURCE_SHARE) * out->generated && behind == 0;
    }
}

kc_status kci_sim_run_par(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                          const kc_simconfig *cfg, int flit_loop, uint32_t min_nodes, kc_simresult *out,
                          kc_simarrival **log, size_t *nlog, kc_err *err)
{
    memset(out, 0, sizeof *out);
    kc_status st = kci_sim_check_config(net, route, traffic, cfg, err);
    if (st)
        return st;
    double t0 = kci_seconds();
    simrun r;
    if ((st = run_start(&r, net, route, traffic, cfg, flit_loop, min_nodes, log != NULL, out, err)))
        return st;
    out->cycles = run_cycles(&r, out);
    kci_feed_stop(&r.e);
    if (r.e.nomem) {
        kci_engine_free(&r.e);
        kc_simresult_free(out);
        return kc_fail(err, KC_ENOMEM, "out of memory during the simulation");
    }
    if (r.e.trains)
        kci_trains_settle(&r.e);
    if (r.e.stream)
        kci_stream_settle(&r.e, r.e.in_window);
    if ((st = check_invariants(&r.e, out, err))) {
        kci_engine_free(&r.e);
        kc_simresult_free(out);
        return st;
    }
    run_results(&r, out);
    if (log) { /* handed over: kci_engine_free must not free it */
        *log = r.e.log;
        *nlog = r.e.nlog;
        r.e.log = NULL;
    }
    kci_engine_free(&r.e);
    out->wall_seconds = kci_seconds() - t0;
    return KC_OK;
}

kc_status kc_sim_run(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                     const kc_simconfig *cfg, kc_simresult *out, kc_err *err)
{
    return kci_sim_run_loop(net, route, traffic, cfg, 0, out, err);
}


void kc_simresult_free(kc_simresult *r)
{
    free(r->link_flits);
    r->link_flits = NULL;
}

/* ---- Driven runs: a caller injects messages cycle by cycle ---- */

struct kc_simdrive {
    kci_engine e;
    kc_simconfig cfg;
    int64_t idle;
    int stopped; /* deadlock or out of memory */
    kc_simresult res;
};

kc_status kci_simdrive_new_loop(const kc_simnet *net, const kc_simroute *route, const kc_simconfig *cfg,
                                int flit_loop, kc_simdrive **out, kc_err *err)
{
    *out = NULL;
    kc_status st = kci_sim_check_timing(cfg, err);
    if (st)
        return st;
    if (cfg->watchdog < 1)
        return kc_fail_param(err, KC_ERANGE, "cycles", "the watchdog must be at least one cycle");
    if (kc_sim_pipeline(cfg, route))
        return kc_fail_param(err, KC_EINVAL, "model", "driven runs model the seeds' router only");
    if ((st = kci_sim_check_routes(net, route, err)))
        return st;
    kc_simdrive *d = calloc(1, sizeof *d);
    if (!d)
        return kc_fail(err, KC_ENOMEM, "out of memory for the simulation");
    d->cfg = *cfg;
    d->cfg.oneshot = 1; /* no generation, no measurement window: every message counts */
    d->cfg.msg_flits = 1;
    if ((st = kci_engine_init(&d->e, net, route, NULL, &d->cfg, flit_loop, 1, 0, err))) {
        kci_engine_free(&d->e);
        free(d);
        return st;
    }
    d->e.driven = 1;
    d->e.in_window = 1;
    d->e.in_senders = calloc(net->nodes, sizeof *d->e.in_senders);
    d->res.link_flits = calloc(net->net_channels / (uint32_t)net->vcs + 1, sizeof *d->res.link_flits);
    if (!d->res.link_flits || !d->e.in_senders) {
        kc_simdrive_free(d); /* also the link counts, when only the list failed */
        return kc_fail(err, KC_ENOMEM, "out of memory for the simulation");
    }
    d->e.link_flits = d->res.link_flits;
    *out = d;
    return KC_OK;
}

kc_status kc_simdrive_new(const kc_simnet *net, const kc_simroute *route, const kc_simconfig *cfg,
                          kc_simdrive **out, kc_err *err)
{
    return kci_simdrive_new_loop(net, route, cfg, 0, out, err);
}

void kc_simdrive_free(kc_simdrive *d)
{
    if (!d)
        return;
    kci_engine_free(&d->e);
    kc_simresult_free(&d->res);
    free(d);
}

int64_t kc_simdrive_now(const kc_simdrive *d) { return d->e.now; }

int kc_simdrive_busy(const kc_simdrive *d) { return d->e.nactive > 0 || d->e.queued > 0; }

int kc_simdrive_deadlock(const kc_simdrive *d) { return d->res.deadlock; }

kc_status kc_simdrive_skip(kc_simdrive *d, int64_t cycle, kc_err *err)
{
    if (cycle < d->e.now || cycle > KC_SIMDRIVE_MAX_CYCLE)
        return kc_fail_param(err, KC_ERANGE, "cycle", "cannot move to cycle %lld from cycle %lld (limit %lld)",
                             (long long)cycle, (long long)d->e.now, (long long)KC_SIMDRIVE_MAX_CYCLE);
    if (cycle > d->e.now && kc_simdrive_busy(d))
        return kc_fail(err, KC_EINTERNAL, "cannot skip cycles while messages are in flight");
    d->e.now = (uint32_t)cycle;
    return KC_OK;
}

kc_status kc_simdrive_send(kc_simdrive *d, uint32_t src, uint32_t dst, uint32_t flits, uint32_t id, kc_err *err)
{
    kci_engine *e = &d->e;
    if (src >= e->net->nodes || dst >= e->net->nodes)
        return kc_fail_param(err, KC_ERANGE, "node", "node %u or %u out of range (%u nodes)", src, dst, e->net->nodes);
    if (flits < 1 || flits > KC_SIMDRIVE_MAX_FLITS)
        return kc_fail_param(err, KC_ERANGE, "flits", "a message must be 1..%u flits, got %u",
                             (unsigned)KC_SIMDRIVE_MAX_FLITS, flits);
    if (kci_enqueue(e, src, dst, flits, id))
        return kc_fail(err, KC_ENOMEM, "out of memory for the simulation");
    e->outstanding++;
    return KC_OK;
}

kc_status kc_simdrive_step(kc_simdrive *d, const kc_simarrival **arrivals, size_t *count, kc_err *err)
{
    kci_engine *e = &d->e;
    e->nlog = 0;
    *arrivals = e->log;
    *count = 0;
    if (d->stopped)
        return kc_fail(err, KC_EINTERNAL, "the simulation stopped (deadlock)");
    if (e->now >= KC_SIMDRIVE_MAX_CYCLE)
        return kc_fail_param(err, KC_ERANGE, "cycle", "the run passed %lld cycles", (long long)KC_SIMDRIVE_MAX_CYCLE);
    if (kci_engine_cycle(e, &d->idle)) {
        d->stopped = 1;
        if (e->nomem)
            return kc_fail(err, KC_ENOMEM, "out of memory during the simulation");
        d->res.deadlock = 1;
        find_cycle(e, &d->res);
    }
    e->now++;
    *arrivals = e->log;
    *count = e->nlog;
    return KC_OK;
}

kc_status kc_simdrive_finish(kc_simdrive *d, kc_simresult *out, kc_err *err)
{
    kci_engine *e = &d->e;
    if (e->trains && !e->settled) {
        kci_trains_settle(e);
        e->settled = 1;
    }
    if (e->stream)
        kci_stream_settle(e, 1);
    kc_status st = check_invariants(e, &d->res, err);
    if (st)
        return st;
    d->res.cycles = e->now;
    d->res.completion = e->last_arrival;
    d->res.messages = e->latency.count;
    d->res.latency_avg = kc_simsample_mean(&e->latency);
    d->res.latency_p99 = kc_simsample_quantile(&e->latency, 0.99);
    d->res.network_latency_avg = e->latency.count ? e->net_lat_sum / (double)e->latency.count : 0;
    d->res.link_traversals = e->link_traversals;
    d->res.sustainable = !d->res.deadlock && !kc_simdrive_busy(d);
    *out = d->res;
    d->res.link_flits = NULL; /* now the caller's */
    e->link_flits = NULL;
    return KC_OK;
}
