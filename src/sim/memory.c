/* Memory of a simulation before it runs; the memory available; the sweep's
 * thread policy (kcube/simmem.h). */
#include "kcube/simmem.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/simstats.h"
#include "sim_internal.h"

static uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t mul_sat(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

/* The capacity a doubling array reaches to hold `need` entries. */
static uint64_t grown(uint64_t need, uint64_t first)
{
    uint64_t cap = first;
    while (cap < need && cap < (UINT64_MAX >> 1))
        cap *= 2;
    return cap;
}

/* The shape of the network a resolved spec builds (kc_simnet_init's sizes;
 * nodes saturate past KC_SIMNET_MAX_NODES, which the caller rejects). */
static kci_simshape spec_shape(const kc_simspec *s)
{
    kci_simshape sh = {1, s->n, s->topo == KC_SIM_HYPERCUBE ? s->n : 2 * s->n, s->vcs, s->inj, s->ej, s->depth, 0,
                       s->topo, s->k};
    if (s->network) { /* a general network: its sides and wraps */
        sh.nodes = s->network->nodes > KC_SIMNET_MAX_NODES ? (uint64_t)KC_SIMNET_MAX_NODES + 1 : s->network->nodes;
        sh.max_hops = s->topo == KC_SIM_HYPERCUBE ? s->n : kc_topology_diameter(s->network);
        return sh;
    }
    for (int i = 0; i < s->n && sh.nodes <= KC_SIMNET_MAX_NODES; i++)
        sh.nodes *= (uint64_t)s->k;
    sh.max_hops = s->topo == KC_SIM_HYPERCUBE ? s->n : s->topo == KC_SIM_TORUS ? s->n * (s->k / 2) : s->n * (s->k - 1);
    return sh;
}

/* The load per router over the load per endpoint: the job's endpoints per
 * router (1 on plain networks; an allocation sends from its routers only). */
static double spec_load_factor(const kc_simspec *s, uint64_t nodes)
{
    return s->network && nodes ? (double)kc_topology_slots(s->network) / (double)nodes : 1;
}

size_t kc_sim_memory(const kc_simnet *net, const kc_simconfig *cfg)
{
    kci_simshape s = kci_sim_shape(net);
    uint64_t network = (uint64_t)net->nodes * ((uint64_t)net->ports * sizeof(uint32_t) + (uint64_t)net->n);
    int trains = kci_sim_shape_trains(&s, cfg);
    int parts = (int)kci_sim_parts(&s, cfg, !kc_sim_pipeline(cfg, NULL), KC_SIM_PAR_NODES);
    return (size_t)(kci_sim_fixed_bytes(&s, kci_sim_shape_vcs_independent(&s, cfg), trains, parts) + network +
                    (kc_sim_pipeline(cfg, NULL) ? kci_sim_pipe_bytes(&s, cfg) : 0) +
                    (kci_sim_feeds(cfg, (uint32_t)parts) ? kci_feed_bytes(s.nodes) : 0));
}

kc_status kc_simmem_estimate(const kc_simspec *s, const kc_simconfig *cfg, kc_simmem *out, kc_err *err)
{
    memset(out, 0, sizeof *out);
    if ((int)s->topo < 0 || (s->k < 2 && !(s->network && s->k == 0)) || s->n < 1 || s->n > KC_SIMNET_MAX_N || s->vcs < 1 || (int)s->route.algo < 0)
        return kc_fail_param(err, KC_EINVAL, "spec", "the memory estimate needs a resolved spec (kc_simspec_resolve)");
    kci_simshape sh = spec_shape(s);
    if (sh.nodes > KC_SIMNET_MAX_NODES)
        return kc_fail_param(err, KC_ERANGE, "n", "network too large: at most %u nodes", KC_SIMNET_MAX_NODES);
    uint64_t N = sh.nodes;
    uint64_t net_channels = N * (uint64_t)sh.ports * (uint64_t)sh.vcs;
    uint64_t channels = net_channels + N * (uint64_t)(sh.inj + sh.ej);
    int uniform = s->pattern && !strcmp(s->pattern, "uniform");
    int mapped = s->mapping && strcmp(s->mapping, "none");

    /* Shared: neighbour table and digits, the traffic table (about one
     * destination per node), the lists it is built from, the mapping and its
     * inverse, and the contention count over every channel. */
    uint64_t shared = N * ((uint64_t)sh.ports * 4 + (uint64_t)sh.n);
    shared += (N + 1) * 4 + N * 4 + N * 16;
    if (mapped)
        shared += N * 16;
    if (!uniform)
        shared += channels * 4;

    /* the engine's own decisions: its loop, its node ranges */
    int indep = kci_sim_shape_vcs_independent(&sh, cfg);
    int trains = kci_sim_shape_trains(&sh, cfg);
    int parts = (int)kci_sim_parts(&sh, cfg, !kc_sim_pipeline(cfg, &s->route), KC_SIM_PAR_NODES);
    uint64_t point = kci_sim_fixed_bytes(&sh, indep, trains, parts);
    if (kc_sim_pipeline(cfg, &s->route)) /* the router-pipeline loop's arrays on top */
        point = add_sat(point, kci_sim_pipe_bytes(&sh, cfg));
    if (kci_sim_feeds(cfg, (uint32_t)parts)) /* generation on a thread of its own: its ring */
        point = add_sat(point, kci_feed_bytes(sh.nodes));
    int adaptive = s->route.algo != KC_ROUTE_ECUBE && s->route.algo != KC_ROUTE_DOR;
    if (cfg->channel_util)
        point += (net_channels / (uint64_t)sh.vcs + 1) * sizeof(uint64_t);
    double L = cfg->msg_flits > 0 ? cfg->msg_flits : 1;
    double per_node_run, per_node_window;
    if (cfg->oneshot) {
        per_node_run = per_node_window = 1; /* one message per table entry */
    } else {
        double rate = cfg->load > 0 ? cfg->load * spec_load_factor(s, N) / L : 0;
        per_node_run = rate * (double)(cfg->warmup + cfg->measure + cfg->drain) + 1;
        per_node_window = rate * (double)cfg->measure + 1;
        /* a run gives up once the queues pass queue_cap messages per node */
        if (per_node_run > cfg->queue_cap + 1)
            per_node_run = cfg->queue_cap + 1;
    }
    uint64_t queued = (uint64_t)(per_node_run * (double)N) + 1;
    uint64_t measured = (uint64_t)(per_node_window * (double)N) + 1;
    /* Live worms, a bound rather than a guess: a worm still being injected
     * owns an injection channel, one being delivered owns an ejection
     * channel, and any other has all its flits in network buffers, so it
     * holds at least msg_flits / depth channels of its own. */
    uint64_t worms = N * (uint64_t)(sh.inj + sh.ej) + net_channels * (uint64_t)sh.depth / (uint64_t)L;
    uint64_t msgs = cfg->oneshot ? N : queued + N * (uint64_t)sh.inj;
    if (worms > msgs)
        worms = msgs;
    point = add_sat(point, mul_sat(grown(worms, 1024), kci_sim_worm_bytes(&sh, trains, adaptive, parts)));
    point = add_sat(point, mul_sat(grown(queued, 4096), kci_sim_queue_entry_bytes()));
    /* the latency sample: a histogram as long as the longest latency (at
     * most the run's cycles; a one-shot run may take up to 2^31) */
    uint64_t span = cfg->oneshot ? UINT64_C(1) << 31 : (uint64_t)(cfg->warmup + cfg->measure + cfg->drain) + 1;
    point = add_sat(point, kc_simsample_bytes(measured, span));
    out->shared = shared;
    out->per_point = point;
    return KC_OK;
}

double kc_simwork_seconds(const kc_simspec *s, const kc_simconfig *cfg)
{
    kc_simmem m;
    kc_err err;
    if (kc_simmem_estimate(s, cfg, &m, &err))
        return 0;
    kci_simshape sh = spec_shape(s); /* within KC_SIMNET_MAX_NODES: the estimate above passed */
    double N = (double)sh.nodes;
    double diam = sh.max_hops, ports = sh.ports, net_channels = N * ports * s->vcs;
    double load = cfg->load > 0 ? cfg->load * spec_load_factor(s, sh.nodes) : 0; /* per router */
    double L = cfg->msg_flits > 0 ? cfg->msg_flits : 1;
    /* live worms: at most those of the memory bound (kcube/simmem.h) */
    double bound = N * (s->inj + s->ej) + net_channels * s->depth / L, cycles, worms;
    if (cfg->oneshot) { /* every message at once; a transpose's contention, sqrt(N) messages a channel */
        cycles = L * sqrt(N) + diam;
        worms = N;
    } else {
        cycles = (double)cfg->warmup + (double)cfg->measure + (double)cfg->drain / 2;
        worms = N * load / L * 8 * (diam + L);
    }
    worms = worms < bound ? worms : bound;
    if (kci_sim_shape_trains(&sh, cfg)) {
        /* The worm-level loop: work per message (a visit per header hop,
         * per channel its tail releases, and its generation, injection and
         * delivery), about diam / 2 + 4 events; per cycle, a Bernoulli
         * draw per source. The cost of an event grows as the hot state
         * (8 bytes a channel, about 80 a node) leaves the caches: about
         * half what bench_sim measured on one thread of the idle 2-core
         * machine (70 ns an event up to 2^14 nodes, 140 at 2^16, 215 at
         * 2^18, 240 at 2^20), as the drain term above (half the limit)
         * counts twice what a load the network sustains takes: the runs of
         * bench/estimates.tsv. A one-shot run's messages all contend: the
         * full cost. */
        double hot = N * ((double)sh.ports * s->vcs + s->inj + s->ej) * 8 + N * 80;
        double ev = (hot <= (1u << 20)    ? 45e-9
                     : hot <= (4u << 20)  ? 50e-9
                     : hot <= (16u << 20) ? 85e-9
                     : hot <= (64u << 20) ? 130e-9
                                          : 150e-9) *
                    (cfg->oneshot ? 2 : 1);
        double msgs = cfg->oneshot ? N : cycles * N * load / L;
        double draws = cfg->oneshot || cfg->process != KC_INJECT_BERNOULLI ? 0 : cycles * N * 5e-9;
        return msgs * (diam / 2 + 4) * ev + draws + cycles * 1e-7;
    }
    if (kc_sim_pipeline(cfg, &s->route)) /* the pipeline loop: every router's VCs a cycle, ~15 ns each */
        return cycles * N * (ports * s->vcs + s->inj + s->ej + 2) * 15e-9;
    /* the stream loop: a visit per worm at each of its events and per
     * cycle for a worm that does not stream, a Bernoulli draw per source;
     * the engine's state against the caches, small networks run far
     * faster a unit. Set at about twice what the deep configuration
     * (depth 8, 2 shared VCs, R = S = 2, uniform 0.2) took with the
     * machine's second core busy: 0.07 s on the 8-cube, 1.8 s on the
     * 12-cube, 13 s on the 16-cube (1300 cycles) */
    double rate = m.per_point < (2u << 20) ? 2.5e-9 : m.per_point < (32u << 20) ? 5e-9 : 11e-9;
    return cycles * (N / 2 + worms) * rate;
}

uint64_t kc_simmem_total(const kc_simmem *m, int threads)
{
    return add_sat(m->shared, mul_sat(m->per_point, (uint64_t)(threads < 1 ? 1 : threads)));
}

char *kc_simmem_format(uint64_t bytes, char *buf, size_t size)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, size, "%" PRIu64 " B", bytes);
    else
        snprintf(buf, size, "%.*f %s", v < 10 ? 1 : 0, v, unit[u]);
    return buf;
}

kc_status kc_simmem_plan(uint64_t shared, uint64_t per_point, int threads, uint64_t budget, int *threads_out,
                         kc_err *err)
{
    kc_simmem m = {shared, per_point};
    if (threads < 1)
        threads = 1;
    for (int t = threads; t >= 1; t--)
        if (kc_simmem_total(&m, t) <= budget) {
            *threads_out = t;
            return KC_OK;
        }
    *threads_out = 0;
    char need[32], have[32], pp[32];
    return kc_fail_param(err, KC_ERANGE, "max_memory",
                         "the simulation needs about %s (%s per load point), more than the memory budget of %s",
                         kc_simmem_format(kc_simmem_total(&m, 1), need, sizeof need),
                         kc_simmem_format(per_point, pp, sizeof pp), kc_simmem_format(budget, have, sizeof have));
}

/* First line of a small file, or 0 when it cannot be read. */
static int first_line(const char *path, char *buf, size_t size)
{
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return 0;
    int ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    return ok;
}

uint64_t kc_simmem_available_from(const char *meminfo_path, const char *memory_max_path)
{
    uint64_t best = UINT64_MAX;
    FILE *f = meminfo_path ? fopen(meminfo_path, "r") : NULL;
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                best = mul_sat(kb, 1024);
                break;
            }
        fclose(f);
    }
    char line[64];
    if (first_line(memory_max_path, line, sizeof line) && strncmp(line, "max", 3) != 0) {
        char *end;
        unsigned long long v = strtoull(line, &end, 10);
        if (end != line && v < best)
            best = v;
    }
    return best;
}

uint64_t kc_simmem_available(void)
{
    /* The process's own cgroup v2 group ("0::/path" in /proc/self/cgroup);
     * the root file when that cannot be found. */
    char line[512], path[600];
    const char *max_path = "/sys/fs/cgroup/memory.max";
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "0::", 3)) {
                line[strcspn(line, "\n")] = 0;
                int len = snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", line + 3);
                FILE *g = len > 0 && (size_t)len < sizeof path ? fopen(path, "r") : NULL;
                if (g) {
                    fclose(g);
                    max_path = path;
                }
                break;
            }
        fclose(f);
    }
    return kc_simmem_available_from("/proc/meminfo", max_path);
}
