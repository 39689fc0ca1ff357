/* The reference simulator: flits as objects, full scans every cycle. */
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

kc_status kc_simref_run(const kc_simnet *net, const kc_simroute *route, const uint32_t *src, const uint32_t *dst,
                        size_t count, const kc_simconfig *cfg, kc_simref_result *out, kc_err *err)
{
    memset(out, 0, sizeof *out);
    kc_status st = kc_simroute_check(route, net, err);
    if (st)
        return st;
    int L = cfg->msg_flits, R = cfg->route_delay, S = cfg->switch_delay, W = cfg->link_latency;
    if (L < 1 || L > 65535 || R < 0 || S < 0 || W < 1)
        return kc_fail_param(err, KC_ERANGE, "timing", "bad message length or timing");
    for (size_t i = 0; i < count; i++)
        if (src[i] >= net->nodes || dst[i] >= net->nodes)
            return kc_fail_param(err, KC_EINVAL, "pairs", "pair %zu names a node outside the network", i + 1);
    size_t pmax = (size_t)net->max_hops + 2;
    rmsg *m = calloc(count ? count : 1, sizeof *m);
    int32_t *owner = malloc(net->channels * sizeof *owner);
    int *fill = calloc(net->channels, sizeof *fill);
    int64_t *got = malloc(net->channels * sizeof *got);
    int64_t *lused = malloc(net->channels * sizeof *lused);
    size_t *order = malloc((count ? count : 1) * sizeof *order);
    size_t *queue = malloc((count ? count : 1) * sizeof *queue);
    size_t *qnext = malloc((size_t)net->nodes * sizeof *qnext), *qend = malloc((size_t)net->nodes * sizeof *qend);
    uint32_t *paths = malloc((count ? count : 1) * pmax * sizeof *paths);
    int *locs = malloc((count ? count : 1) * (size_t)L * sizeof *locs);
    int64_t *readys = malloc((count ? count : 1) * (size_t)L * sizeof *readys);
    kc_simsample lat;
    kc_simsample_init(&lat);
    if (!m || !owner || !fill || !got || !lused || !order || !queue || !qnext || !qend || !paths || !locs || !readys) {
        st = kc_fail(err, KC_ENOMEM, "out of memory");
        goto done;
    }
    for (uint32_t c = 0; c < net->channels; c++) {
        owner[c] = -1;
        got[c] = lused[c] = -1;
    }
    size_t nq = 0, created = 0, delivered = 0;
    /* source queues: the messages of source x still to send are queue[qnext[x] .. qend[x]) */
    for (uint32_t x = 0; x < net->nodes; x++) {
        qnext[x] = nq;
        for (size_t i = 0; i < count; i++)
            if (src[i] == x && src[i] != dst[i])
                queue[nq++] = i;
        qend[x] = nq;
    }
    uint32_t cand[KC_SIMROUTE_MAX];
    int64_t idle = 0;
    for (int64_t now = 0; delivered < nq; now++) {
        int moved = 0;
        /* injection: nodes in order, their channels in order, queue heads */
        for (uint32_t x = 0; x < net->nodes; x++)
            for (int j = 0; j < net->inj; j++) {
                uint32_t c = kc_simnet_injch(net, x, j);
                if (owner[c] >= 0)
                    continue;
                if (qnext[x] == qend[x])
                    continue;
                size_t pick = queue[qnext[x]++];
                rmsg *r = &m[pick];
                r->dst = dst[pick];
                r->path = &paths[pick * pmax];
                r->loc = &locs[pick * (size_t)L];
                r->ready = &readys[pick * (size_t)L];
                r->path[0] = c;
                r->np = 1;
                for (int s = 0; s < L; s++)
                    r->loc[s] = -1;
                r->live = 1;
                owner[c] = (int32_t)pick;
                order[created++] = pick;
            }
        /* allocation: ready headers at the end of their path, earliest arrival
         * (then lowest channel) first, each once per cycle */
        for (size_t i = 0; i < created; i++)
            m[order[i]].tried = 0;
        for (;;) {
            size_t best = count;
            uint64_t bkey = UINT64_MAX;
            for (size_t i = 0; i < created; i++) {
                rmsg *r = &m[order[i]];
                if (!r->live || r->tried || r->loc[0] != r->np - 1 || is_eject(net, r->path[r->np - 1]))
                    continue;
                uint64_t key = (uint64_t)r->ready[0] << 32 | r->path[r->np - 1];
                if (r->ready[0] + R <= now && key < bkey) {
                    bkey = key;
                    best = order[i];
                }
            }
            if (best == count)
                break;
            rmsg *r = &m[best];
            r->tried = 1;
            uint32_t in = r->path[r->np - 1];
            uint32_t node = in < net->net_channels ? net->next_node[in / (uint32_t)net->vcs]
                                                   : (in - net->net_channels) / (uint32_t)net->inj;
            int nc = kc_simroute_candidates(route, net, node, r->dst, in, cand);
            for (int j = 0; j < nc; j++)
                if (owner[cand[j]] < 0) {
                    owner[cand[j]] = (int32_t)best;
                    fill[cand[j]] = 0;
                    r->path[r->np++] = cand[j];
                    moved = 1;
                    break;
                }
        }
        /* movement: messages oldest first, flits header first */
        for (size_t i = 0; i < created; i++) {
            rmsg *r = &m[order[i]];
            if (!r->live)
                continue;
            for (int s = 0; s < L; s++) {
                int p = r->loc[s];
                int next = p + 1;
                if (p >= r->np || next >= r->np)
                    continue; /* delivered, or no channel ahead yet */
                if (p >= 0 && r->ready[s] > now)
                    continue;
                if (s > 0 && r->loc[s - 1] == p)
                    continue; /* not at the front of its buffer (or of the source) */
                uint32_t c = r->path[next];
                int ej = is_eject(net, c);
                if (got[c] == now || (!ej && fill[c] >= net->depth))
                    continue;
                if (c < net->net_channels) {
                    uint32_t lane = kc_sim_vcs_independent(net, cfg) ? c : c / (uint32_t)net->vcs;
                    if (lused[lane] == now)
                        continue;
                    lused[lane] = now;
                    out->link_traversals++;
                }
                got[c] = now;
                moved = 1;
                if (p >= 0) {
                    fill[r->path[p]]--;
                    if (s == L - 1)
                        owner[r->path[p]] = -1;
                }
                if (!ej) {
                    r->loc[s] = next;
                    fill[c]++;
                    r->ready[s] = now + (c < net->net_channels ? S + W : 1);
                    continue;
                }
                r->loc[s] = r->np; /* delivered */
                if (s == L - 1) {
                    int64_t arrival = now + S + 1;
                    owner[c] = -1;
                    r->live = 0;
                    delivered++;
                    if (kc_simsample_add(&lat, (uint32_t)arrival)) {
                        st = kc_fail(err, KC_ENOMEM, "out of memory");
                        goto done;
                    }
                    if (arrival > out->completion)
                        out->completion = arrival;
                }
            }
        }
        idle = moved ? 0 : idle + 1;
        if (idle > cfg->watchdog + R + S + W) {
            st = kc_fail(err, KC_EINVAL, "deadlock: no flit moved for %lld cycles", (long long)idle);
            goto done;
        }
    }
    out->messages = lat.count;
    out->latency_avg = kc_simsample_mean(&lat);
    out->latency_p99 = kc_simsample_quantile(&lat, 0.99);
done:
    kc_simsample_free(&lat);
    free(m);
    free(owner);
    free(fill);
    free(got);
    free(lused);
    free(order);
    free(queue);
    free(qnext);
    free(qend);
    free(paths);
    free(locs);
    free(readys);
    return st;
}
