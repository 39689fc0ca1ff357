/* The reference simulator: flits as objects, full scans every cycle; on
 * general networks messages name endpoints, and run between their routers
 * (endpoints of one router: injection straight to ejection). */
#include "kcube/simref.h"

#include <stdlib.h>
#include <string.h>

#include "kcube/simstats.h"

typedef struct rmsg {
    uint32_t dst;
    uint32_t *path;  /* channels taken, injection channel first */
    int np;
    int *loc;        /* per flit: -1 at the source, else index into path; np = delivered */
    int64_t *ready;  /* per flit: cycle from which it may leave its buffer */
    int live, tried;
} rmsg;

static int is_eject(const kc_simnet *net, uint32_t c)
{
    return c >= net->net_channels + net->nodes * (uint32_t)net->inj;
}

/* The whole state of one run. Source queues: the messages of source x
 * still to send are queue[qnext[x] .. qend[x]). */
typedef struct ref_run {
    const kc_simnet *net;
    const kc_simroute *route;
    const kc_simconfig *cfg;
    const uint32_t *dst;
    size_t count, pmax, nq, created, delivered;
    int L, R, S, W;
    uint32_t C;                /* endpoints per router: src and dst are endpoint numbers */
    rmsg *m;
    int32_t *owner;
    int *fill, *locs;
    int64_t *got, *lused, *readys;
    size_t *order, *queue, *qnext, *qend;
    uint32_t *paths;
    kc_simsample lat;
    kc_simref_result *out;
} ref_run;

static void ref_free(ref_run *r)
{
    kc_simsample_free(&r->lat);
    free(r->m);
    free(r->owner);
    free(r->fill);
    free(r->got);
    free(r->lused);
    free(r->order);
    free(r->queue);
    free(r->qnext);
    free(r->qend);
    free(r->paths);
    free(r->locs);
    free(r->readys);
}

static kc_status ref_alloc(ref_run *r, const uint32_t *src, kc_err *err)
{
    const kc_simnet *net = r->net;
    size_t n = r->count ? r->count : 1;
    r->m = calloc(n, sizeof *r->m);
    r->owner = malloc(net->channels * sizeof *r->owner);
    r->fill = calloc(net->channels, sizeof *r->fill);
    r->got = malloc(net->channels * sizeof *r->got);
    r->lused = malloc(net->channels * sizeof *r->lused);
    r->order = malloc(n * sizeof *r->order);
    r->queue = malloc(n * sizeof *r->queue);
    r->qnext = malloc((size_t)net->nodes * sizeof *r->qnext);
    r->qend = malloc((size_t)net->nodes * sizeof *r->qend);
    r->paths = malloc(n * r->pmax * sizeof *r->paths);
    r->locs = malloc(n * (size_t)r->L * sizeof *r->locs);
    r->readys = malloc(n * (size_t)r->L * sizeof *r->readys);
    kc_simsample_init(&r->lat);
    if (!r->m || !r->owner || !r->fill || !r->got || !r->lused || !r->order || !r->queue || !r->qnext || !r->qend ||
        !r->paths || !r->locs || !r->readys)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    for (uint32_t c = 0; c < net->channels; c++) {
        r->owner[c] = -1;
        r->got[c] = r->lused[c] = -1;
    }
    for (uint32_t x = 0; x < net->nodes; x++) {
        r->qnext[x] = r->nq;
        for (size_t i = 0; i < r->count; i++)
            if (src[i] / r->C == x && src[i] != r->dst[i])
                r->queue[r->nq++] = i;
        r->qend[x] = r->nq;
    }
    return KC_OK;
}

/* Injection: nodes in order, their channels in order, queue heads. */
static void ref_inject(ref_run *r)
{
    const kc_simnet *net = r->net;
    for (uint32_t x = 0; x < net->nodes; x++)
        for (int j = 0; j < net->inj; j++) {
            uint32_t c = kc_simnet_injch(net, x, j);
            if (r->owner[c] >= 0 || r->qnext[x] == r->qend[x])
                continue;
            size_t pick = r->queue[r->qnext[x]++];
            rmsg *g = &r->m[pick];
            g->dst = r->dst[pick] / r->C; /* endpoints of one router share its channels */
            g->path = &r->paths[pick * r->pmax];
            g->loc = &r->locs[pick * (size_t)r->L];
            g->ready = &r->readys[pick * (size_t)r->L];
            g->path[0] = c;
            g->np = 1;
            for (int s = 0; s < r->L; s++)
                g->loc[s] = -1;
            g->live = 1;
            r->owner[c] = (int32_t)pick;
            r->order[r->created++] = pick;
        }
}

/* Allocation: ready headers at the end of their path, earliest arrival
 * (then lowest channel) first, each once per cycle. Returns 1 if a channel
 * was taken. */
static int ref_allocate(ref_run *r, int64_t now)
{
    const kc_simnet *net = r->net;
    uint32_t cand[KC_SIMROUTE_MAX];
    int moved = 0;
    for (size_t i = 0; i < r->created; i++)
        r->m[r->order[i]].tried = 0;
    for (;;) {
        size_t best = r->count;
        uint64_t bkey = UINT64_MAX;
        for (size_t i = 0; i < r->created; i++) {
            rmsg *g = &r->m[r->order[i]];
            if (!g->live || g->tried || g->loc[0] != g->np - 1 || is_eject(net, g->path[g->np - 1]))
                continue;
            uint64_t key = (uint64_t)g->ready[0] << 32 | g->path[g->np - 1];
            if (g->ready[0] + r->R <= now && key < bkey) {
                bkey = key;
                best = r->order[i];
            }
        }
        if (best == r->count)
            return moved;
        rmsg *g = &r->m[best];
        g->tried = 1;
        uint32_t in = g->path[g->np - 1];
        uint32_t node = in < net->net_channels ? net->next_node[in / (uint32_t)net->vcs]
                                               : (in - net->net_channels) / (uint32_t)net->inj;
        int nc = kc_simroute_candidates(r->route, net, node, g->dst, in, cand);
        for (int j = 0; j < nc; j++)
            if (r->owner[cand[j]] < 0) {
                r->owner[cand[j]] = (int32_t)best;
                r->fill[cand[j]] = 0;
                g->path[g->np++] = cand[j];
                moved = 1;
                break;
            }
    }
}

/* Flit s of message g leaves for channel c this cycle (checked by the
 * caller); delivery records the latency. */
static kc_status ref_step_flit(ref_run *r, rmsg *g, int s, int64_t now, kc_err *err)
{
    const kc_simnet *net = r->net;
    int p = g->loc[s], next = p + 1;
    uint32_t c = g->path[next];
    int ej = is_eject(net, c);
    r->got[c] = now;
    if (p >= 0) {
        r->fill[g->path[p]]--;
        if (s == r->L - 1)
            r->owner[g->path[p]] = -1;
    }
    if (!ej) {
        g->loc[s] = next;
        r->fill[c]++;
        g->ready[s] = now + (c < net->net_channels ? r->S + r->W : 1);
        return KC_OK;
    }
    g->loc[s] = g->np; /* delivered */
    if (s < r->L - 1)
        return KC_OK;
    int64_t arrival = now + r->S + 1;
    r->owner[c] = -1;
    g->live = 0;
    r->delivered++;
    if (kc_simsample_add(&r->lat, (uint32_t)arrival))
        return kc_fail(err, KC_ENOMEM, "out of memory");
    if (arrival > r->out->completion)
        r->out->completion = arrival;
    return KC_OK;
}

/* Movement: messages oldest first, flits header first. *moved is set when
 * a flit moved. */
static kc_status ref_move(ref_run *r, int64_t now, int *moved, kc_err *err)
{
    const kc_simnet *net = r->net;
    for (size_t i = 0; i < r->created; i++) {
        rmsg *g = &r->m[r->order[i]];
        if (!g->live)
            continue;
        for (int s = 0; s < r->L; s++) {
            int p = g->loc[s], next = p + 1;
            if (p >= g->np || next >= g->np)
                continue; /* delivered, or no channel ahead yet */
            if (p >= 0 && g->ready[s] > now)
                continue;
            if (s > 0 && g->loc[s - 1] == p)
                continue; /* not at the front of its buffer (or of the source) */
            uint32_t c = g->path[next];
            if (r->got[c] == now || (!is_eject(net, c) && r->fill[c] >= net->depth))
                continue;
            if (c < net->net_channels) {
                uint32_t lane = kc_sim_vcs_independent(net, r->cfg) ? c : c / (uint32_t)net->vcs;
                if (r->lused[lane] == now)
                    continue;
                r->lused[lane] = now;
                r->out->link_traversals++;
            }
            *moved = 1;
            kc_status st = ref_step_flit(r, g, s, now, err);
            if (st)
                return st;
        }
    }
    return KC_OK;
}

kc_status kc_simref_run(const kc_simnet *net, const kc_simroute *route, const uint32_t *src, const uint32_t *dst,
                        size_t count, const kc_simconfig *cfg, kc_simref_result *out, kc_err *err)
{
    memset(out, 0, sizeof *out);
    kc_status st = kc_simroute_check(route, net, err);
    if (st)
        return st;
    ref_run r = {.net = net, .route = route, .cfg = cfg, .dst = dst, .count = count, .out = out,
                 .L = cfg->msg_flits, .R = cfg->route_delay, .S = cfg->switch_delay, .W = cfg->link_latency,
                 .pmax = (size_t)net->max_hops + 2, .C = (uint32_t)(net->conc > 1 ? net->conc : 1)};
    if (r.L < 1 || r.L > 65535 || r.R < 0 || r.S < 0 || r.W < 1)
        return kc_fail_param(err, KC_ERANGE, "timing", "bad message length or timing");
    for (size_t i = 0; i < count; i++)
        if (src[i] / r.C >= net->nodes || dst[i] / r.C >= net->nodes)
            return kc_fail_param(err, KC_EINVAL, "pairs", "pair %zu names a node outside the network", i + 1);
    st = ref_alloc(&r, src, err);
    int64_t idle = 0;
    for (int64_t now = 0; !st && r.delivered < r.nq; now++) {
        ref_inject(&r);
        int moved = ref_allocate(&r, now);
        st = ref_move(&r, now, &moved, err);
        idle = moved ? 0 : idle + 1;
        if (!st && idle > cfg->watchdog + r.R + r.S + r.W)
            st = kc_fail(err, KC_EINVAL, "deadlock: no flit moved for %lld cycles", (long long)idle);
    }
    if (!st) {
        out->messages = r.lat.count;
        out->latency_avg = kc_simsample_mean(&r.lat);
        out->latency_p99 = kc_simsample_quantile(&r.lat, 0.99);
    }
    ref_free(&r);
    return st;
}
