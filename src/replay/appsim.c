/* A GOAL schedule replayed on the flit-level engine (kcube/appsim.h).
 *
 * The processors are the list schedule of src/replay/proc.c (kci_proc, the same
 * rules as kc_goal_loggp); the network is a driven engine (kc_simdrive).
 * Before the engine simulates cycle E, every processor event at or before
 * E x cycle_us has been taken, so every message whose start-up ends by then
 * is in its source queue; a tail that arrives at cycle a becomes known
 * while cycle a - 1 (or earlier) is simulated, before any event after
 * (a - 1) x cycle_us is taken. While the network is empty the engine skips
 * to the next injection. Ranks sit on nodes (kc_appsim_place); a message
 * between two ranks of one node never reaches the engine: its receive
 * learns of it when the start-up ends. With a topology in the placement
 * the nodes are its endpoints and the engine's nodes its routers (a
 * message between two endpoints of one router goes injection -> ejection),
 * and every hop count is kc_topology_route's. */
#include "kcube/loggp.h"
#include "kcube/appsim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/loggops.h"
#include "kcube/timeline.h"
#include "kcube/topology.h"
#include "appsim_internal.h"

void kc_appsim_result_free(kc_appsim_result *r)
{
    free(r->finish_us);
    free(r->phase_us);
    free(r->phase_compute_us);
    kc_simresult_free(&r->sim);
    memset(r, 0, sizeof *r);
}

static kc_status check_opts(const kc_goal *g, const kc_simnet *net, const kc_appsim_opts *o, kc_err *err)
{
    if (!(o->startup_us >= 0) || !isfinite(o->startup_us))
        return kc_fail_param(err, KC_EINVAL, "startup", "the start-up must be a non-negative number of µs");
    if (!(o->byte_time_us > 0) || !isfinite(o->byte_time_us))
        return kc_fail_param(err, KC_EINVAL, "byte_time", "the byte time must be a positive number of µs");
    if (o->bytes_per_flit < 1 || o->bytes_per_flit > 65536)
        return kc_fail_param(err, KC_ERANGE, "bytes_per_flit", "bytes per flit must be 1..65536, got %d",
                             o->bytes_per_flit);
    const kc_loggops_params *lp = o->loggops;
    if (lp && (lp->o > KC_LOGGOPS_PARAM_MAX || lp->g > KC_LOGGOPS_PARAM_MAX || lp->O > KC_LOGGOPS_PARAM_MAX ||
               (lp->S > KC_LOGGOPS_PARAM_MAX && lp->S != KC_LOGGOPS_S_INF)))
        return kc_fail_param(err, KC_EINVAL, "loggops", "a parameter is above %llu",
                             (unsigned long long)KC_LOGGOPS_PARAM_MAX);
    return KC_OK;
}

/* The nodes ranks may sit on (kc_appsim_place): the network's routers, or
 * the endpoints of place->topo, which must describe net's routers. */
static kc_status node_range(const kc_simnet *net, const kc_appsim_place *o, uint64_t *nodes, kc_err *err)
{
    *nodes = net->nodes;
    if (!o || !o->topo)
        return KC_OK;
    if (o->topo->nodes != net->nodes)
        return kc_fail_param(err, KC_EINVAL, "mapping", "the placement's network has %llu routers, the simulated %u",
                             (unsigned long long)o->topo->nodes, net->nodes);
    *nodes = kc_topology_endpoint_count(o->topo);
    return KC_OK;
}

/* Each rank's node and router (kc_appsim_place: ranks_per_node, node_of,
 * topo), checked. The whole-nodes rule holds where ranks fill nodes in
 * order (no topo or no node_of). */
static kc_status place(const kc_goal *g, const kc_simnet *net, const kc_appsim_place *o, uint32_t **node,
                       uint32_t **router, kc_err *err)
{
    uint64_t R = o && o->ranks_per_node ? o->ranks_per_node : 1, nodes = 0;
    uint64_t C = o && o->topo ? (uint64_t)kc_topology_conc(o->topo) : 1;
    kc_status st = node_range(net, o, &nodes, err);
    if (st)
        return st;
    if (g->num_ranks % R && !(o && o->topo && o->node_of))
        return kc_fail_param(err, KC_EINVAL, "ranks_per_node", "%u ranks are not a multiple of %llu ranks per node",
                             g->num_ranks, (unsigned long long)R);
    if (g->num_ranks > nodes * R)
        return kc_fail_param(err, KC_EINVAL, "schedule", "%u ranks do not fit on %llu nodes of %llu ranks",
                             g->num_ranks, (unsigned long long)nodes, (unsigned long long)R);
    uint32_t *count = calloc((size_t)nodes + 1, sizeof *count);
    *node = malloc(((size_t)g->num_ranks + 1) * sizeof **node);
    *router = malloc(((size_t)g->num_ranks + 1) * sizeof **router);
    if (!count || !*node || !*router) {
        free(count);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    for (uint32_t r = 0; r < g->num_ranks && !st; r++) {
        uint32_t v = o && o->node_of ? o->node_of[r] : (uint32_t)(r / R);
        (*node)[r] = v;
        (*router)[r] = (uint32_t)(v / C);
        if (v >= nodes)
            st = kc_fail_param(err, KC_EINVAL, "mapping", "rank %u on node %u of %llu", r, v,
                               (unsigned long long)nodes);
        else if (++count[v] > R)
            st = kc_fail_param(err, KC_EINVAL, "mapping", "node %u holds more than %llu ranks", v,
                               (unsigned long long)R);
    }
    free(count);
    return st;
}

/* Each send's message id (its index among sends) and flits: every send
 * has a message (its receive is found at run time). */
static kc_status number_messages(const kc_goal *g, int bpf, const uint32_t *node, uint32_t **id_of,
                                 size_t **send_of_id, uint64_t *count, uint64_t *flits, kc_err *err)
{
    size_t n = g->nops, k = 0, sends = 0;
    for (size_t i = 0; i < n; i++)
        sends += g->op[i].kind == KC_GOAL_SEND;
    *id_of = malloc((n ? n : 1) * sizeof **id_of);
    *send_of_id = malloc((sends ? sends : 1) * sizeof **send_of_id);
    if (!*id_of || !*send_of_id)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    *flits = 0;
    for (size_t i = 0; i < n; i++) {
        if (g->op[i].kind != KC_GOAL_SEND)
            continue;
        uint64_t f = g->op[i].amount / (uint64_t)bpf + (g->op[i].amount % (uint64_t)bpf != 0);
        if (f > KC_SIMDRIVE_MAX_FLITS)
            return kc_fail_param(err, KC_ERANGE, "schedule", "line %ld: a message of %llu bytes is more than %llu flits",
                                 g->op[i].line, (unsigned long long)g->op[i].amount,
                                 (unsigned long long)KC_SIMDRIVE_MAX_FLITS);
        if (k >= UINT32_MAX)
            return kc_fail_param(err, KC_ERANGE, "schedule", "too many messages");
        if (!kci_proc_local(g, node, i))
            *flits += f ? f : 1; /* within a node no flit moves */
        (*id_of)[i] = (uint32_t)k;
        (*send_of_id)[k++] = i;
    }
    *count = k;
    return KC_OK;
}

typedef struct item {
    double t;
    uint32_t busy; /* 0: a recv ends at t; 1: a send or calc starts at t */
    uint32_t op;   /* fewer than 2^32 ops (attribute checks) */
} item; /* 16 bytes, one an ended op, grouped by rank (rank_items) */

static int item_cmp(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->busy != y->busy)
        return x->busy < y->busy ? -1 : 1;
    return (x->op > y->op) - (x->op < y->op);
}

/* The ended ops as items, rank by rank (it[first[r]..first[r + 1])), each
 * rank's sorted by time: a counting sort by rank, then a sort per rank, so
 * that the sort's scratch is one rank's, not the whole schedule's. first
 * has num_ranks + 2 entries. O(ops log ops). */
static void rank_items(const kc_goal *g, const kci_proc *p, item *it, size_t *first)
{
    size_t n = g->nops, R = g->num_ranks;
    memset(first, 0, (R + 2) * sizeof *first);
    for (size_t i = 0; i < n; i++)
        first[g->op[i].rank + 2] += p->st[i].ended != 0;
    for (size_t r = 0; r < R; r++)
        first[r + 2] += first[r + 1];
    for (size_t i = 0; i < n; i++) {
        if (!p->st[i].ended)
            continue;
        int busy = g->op[i].kind != KC_GOAL_RECV;
        it[first[g->op[i].rank + 1]++] = (item){busy ? p->st[i].start : p->st[i].end, (uint32_t)busy, (uint32_t)i};
    }
    for (size_t r = 0; r < R; r++)
        qsort(it + first[r], first[r + 1] - first[r], sizeof *it, item_cmp);
}

/* Every µs of a rank up to its finish goes to computing (calc time, and a
 * wait that ends with a calc starting) or to a message phase: a send's
 * start-up and a wait that ends with a send starting go to the send's
 * phase, a wait that ends with a receive completing to the receive's. The
 * computing time is also counted by the calcs' phases (phase_compute_us). */
static kc_status attribute(const kc_goal *g, const kci_proc *p, kc_appsim_result *out, kc_err *err)
{
    size_t n = g->nops;
    uint32_t np = (uint32_t)g->nphases, COMPUTE = np;
    if (n >= UINT32_MAX)
        return kc_fail_param(err, KC_ERANGE, "schedule", "%zu operations: too many to attribute (32-bit numbers)", n);
    item *it = malloc((n ? n : 1) * sizeof *it);
    size_t *first = malloc(((size_t)g->num_ranks + 2) * sizeof *first);
    double *bucket = calloc(2 * ((size_t)np + 1), sizeof *bucket), *calc = bucket + np + 1;
    uint32_t *touched = malloc(2 * ((size_t)np + 1) * sizeof *touched), *ctouched = touched + np + 1;
    if (!it || !first || !bucket || !touched) {
        free(it), free(first), free(bucket), free(touched);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    rank_items(g, p, it, first);
    kc_status st = KC_OK;
    for (uint32_t r = 0; r < g->num_ranks && !st; r++) {
        uint32_t nt = 0, nc = 0;
        double mark = 0;
        if (first[r] == first[r + 1])
            continue;
        for (size_t a = first[r]; a < first[r + 1]; a++) {
            const kc_goal_op *o = &g->op[it[a].op];
            uint32_t b = o->kind == KC_GOAL_CALC ? COMPUTE : o->phase;
            double upto = it[a].busy ? p->st[it[a].op].end : it[a].t;
            if (upto <= mark)
                continue; /* a receive completing while the processor is busy */
            if (bucket[b] == 0)
                touched[nt++] = b;
            bucket[b] += upto - mark; /* the wait before, then the op itself */
            if (o->kind == KC_GOAL_CALC && calc[o->phase] == 0)
                ctouched[nc++] = o->phase;
            if (o->kind == KC_GOAL_CALC)
                calc[o->phase] += upto - mark; /* the same computing time, by its phase */
            mark = upto;
        }
        double sum = 0;
        for (uint32_t j = 0; j < nt; j++) {
            uint32_t b = touched[j];
            sum += bucket[b];
            double *best = b == COMPUTE ? &out->compute_us : &out->phase_us[b];
            if (bucket[b] > *best)
                *best = bucket[b];
            bucket[b] = 0;
        }
        for (uint32_t j = 0; j < nc; j++) {
            uint32_t b = ctouched[j];
            if (calc[b] > out->phase_compute_us[b])
                out->phase_compute_us[b] = calc[b];
            calc[b] = 0;
        }
        if (fabs(sum - p->finish[r]) > 1e-6 * (1 + p->finish[r]))
            st = kc_fail(err, KC_EINTERNAL, "time of rank %u not accounted: %.9g µs attributed, finish %.9g µs", r,
                         sum, p->finish[r]);
    }
    free(it), free(first), free(bucket), free(touched);
    return st;
}

static void link_utilisation(const kc_simnet *net, kc_appsim_result *out)
{
    double cycles = out->total_us / out->cycle_us, sum = 0, max = 0;
    uint32_t links = net->net_channels / (uint32_t)net->vcs, existing = 0;
    if (cycles <= 0 || !out->sim.link_flits)
        return;
    for (uint32_t l = 0; l < links; l++) {
        if (net->next_node[l] == KC_SIM_NONE)
            continue;
        double u = (double)out->sim.link_flits[l] / cycles;
        existing++;
        sum += u;
        if (u > max)
            max = u;
    }
    out->link_util_mean = existing ? sum / existing : 0;
    out->link_util_max = max;
}

typedef struct replay {
    const kc_goal *g;
    const kc_goal_match *m;
    kci_proc p;
    kc_simdrive *d;
    double cyc;
    int bpf;
    uint32_t *id_of;
    size_t *send_of_id;
    const uint32_t *node;   /* [num_ranks]: the rank's node (endpoint with a topology) */
    const uint32_t *router; /* [num_ranks]: its router, the engine's node */
    const kc_topology *topo; /* the placement's network, or NULL: hops from net */
    unsigned char *delivered;
    uint64_t arrived;
    /* the gap split (kc_appsim_result): per message when it left its CPU and
     * joined its source queue; per injection port when it frees */
    const kc_simnet *net;
    const kc_simconfig *cfg;
    double *leave;
    int64_t *joined, *port_free;
    int64_t min_head; /* smallest zero-load first-byte latency (cycles), or -1 */
    double wchan, wport, pipe, bound;
    kci_fixed *fx; /* the CPUs and NICs in LogGOPS's order, or NULL: x.p's list schedule */
    int64_t *pw, *cw; /* [messages] cycles waited for the port, for channels (account) */
    int64_t *hl;      /* [messages] head_latency of each message, worked out once (smallest_head) */
    int64_t ref_head; /* the first-byte latency the LogGOPS L holds (cycles; 0 with messages within a node) */
    const kci_loggops_order *ord; /* the LogGOPS figure's run, when it ran */
    kc_goal_match lgm;            /* LogGOPS's matching (the fixed order), over ord->matched */
} replay;

/* Cycles from joining the source queue to the first byte's arrival, alone
 * in the network (kcube/appsim.h: the tail arrives f - 1 cycles later). */
static int64_t head_latency(const replay *x, uint32_t src, uint32_t dst)
{
    int64_t h = x->topo ? kc_topology_route(x->topo, src, dst, NULL, NULL) : kc_simnet_distance(x->net, src, dst);
    int64_t rs = x->cfg->route_delay + x->cfg->switch_delay;
    return h * (rs + x->cfg->link_latency) + rs + 2;
}

/* The first cycle boundary at or after t (a rounding error below a
 * billionth of a cycle is no delay). */
static int64_t cycle_of(const replay *x, double t) { return (int64_t)ceil(t / x->cyc - 1e-9); }

/* Take the next processor event; a send whose message leaves (start-up and
 * o ended) goes into the network at the first cycle boundary at or after
 * that time. */
static kc_status take_event(replay *x, kc_err *err)
{
    double t = x->fx ? kci_fixed_time(x->fx) : kci_proc_time(&x->p);
    size_t send = x->fx ? kci_fixed_step(x->fx) : kci_proc_step(&x->p);
    if (send == KC_GOAL_NONE)
        return KC_OK;
    const kc_goal_op *o = &x->g->op[send];
    if (kci_proc_local(x->g, x->node, send)) { /* two ranks of one node: the data is there now */
        x->delivered[x->id_of[send]] = 1;
        x->arrived++;
        if (x->fx) {
            kci_fixed_head(x->fx, send, t);
            kci_fixed_tail(x->fx, send, t);
            return KC_OK;
        }
        if (x->p.nic)
            kci_proc_head(&x->p, send, t);
        kci_proc_arrive(&x->p, send, t, t);
        return KC_OK;
    }
    int64_t now = kc_simdrive_now(x->d), c = cycle_of(x, t);
    kc_status st;
    if (c > now && (st = kc_simdrive_skip(x->d, c, err)))
        return st;
    uint64_t f = o->amount / (uint64_t)x->bpf + (o->amount % (uint64_t)x->bpf != 0);
    uint32_t id = x->id_of[send];
    x->leave[id] = t;
    x->joined[id] = kc_simdrive_now(x->d);
    int64_t hl = x->hl[id];
    kc_status st2 = kc_simdrive_send(x->d, x->router[o->rank], x->router[o->peer], f ? (uint32_t)f : 1, id, err);
    if (st2)
        return st2;
    if (x->fx) { /* its first byte alone in the network (the tail is reported when it comes) */
        kci_fixed_head(x->fx, send, (double)(x->joined[id] + hl) * x->cyc);
        return KC_OK;
    }
    /* the NIC model starts the receiver on the first byte; the engine tells
     * tails only, so that is its arrival alone in the network (no later
     * than the real one; the receiver then waits for the tail) */
    if (x->p.nic)
        kci_proc_head(&x->p, send, (double)(x->joined[id] + hl) * x->cyc);
    return KC_OK;
}

/* Split a delivered message's time in the network beyond its zero-load
 * first-byte latency and f flit-cycles: the injection port is taken as
 * serving the node's messages in order, one flit a cycle (the wait that
 * alone causes), the rest of the wait is the channels'. */
static void account(replay *x, uint32_t id, const kc_goal_op *o, uint64_t f, int64_t arrived)
{
    uint32_t v = x->router[o->rank];
    int inj = x->net->inj > 0 ? x->net->inj : 1;
    int64_t *port = &x->port_free[(size_t)v * (size_t)inj], *best = port;
    for (int k = 1; k < inj; k++)
        if (port[k] < *best)
            best = &port[k];
    int64_t c0 = x->joined[id], begin = *best > c0 ? *best : c0;
    *best = begin + (int64_t)f;
    int64_t hl = x->hl[id];
    int64_t wait = arrived - c0 - hl - ((int64_t)f - 1), pw = begin - c0;
    if (wait < 0)
        wait = 0;
    if (pw > wait)
        pw = wait;
    x->pw[id] = pw;
    x->cw[id] = wait - pw;
    x->wport += (double)pw * x->cyc;
    x->wchan += (double)(wait - pw) * x->cyc;
    x->pipe += (double)hl * x->cyc;
    x->bound += (double)c0 * x->cyc - x->leave[id];
}

static kc_status step_network(replay *x, kc_err *err)
{
    const kc_simarrival *a;
    size_t na;
    kc_status st = kc_simdrive_step(x->d, &a, &na, err);
    for (size_t i = 0; i < na && !st; i++) {
        if (x->delivered[a[i].id]++)
            return kc_fail(err, KC_EINTERNAL, "message %u delivered twice", a[i].id);
        x->arrived++;
        size_t send = x->send_of_id[a[i].id];
        const kc_goal_op *o = &x->g->op[send];
        uint64_t b = o->amount, f = b / (uint64_t)x->bpf + (b % (uint64_t)x->bpf != 0);
        account(x, a[i].id, o, f ? f : 1, a[i].cycle);
        /* the first byte: one flit-cycle per flit ahead of the tail */
        double t = (double)a[i].cycle * x->cyc, first = t - (double)(f ? f - 1 : 0) * x->cyc;
        if (x->fx) {
            kci_fixed_tail(x->fx, send, t);
            continue;
        }
        kci_proc_arrive(&x->p, send, t, first);
    }
    return st;
}

/* The engine steps a cycle at a time while messages are in flight; the
 * next processor event's cycle is worked out again only when that event
 * changes (a division a cycle was a tenth of a long message's time). */
static kc_status run_loop(replay *x, kc_err *err)
{
    kc_status st = KC_OK;
    double known = NAN;
    int64_t next_cycle = 0;
    while (!st && !kc_simdrive_deadlock(x->d)) {
        int have = x->fx ? kci_fixed_pending(x->fx) : kci_proc_pending(&x->p);
        double next = !have ? 0 : x->fx ? kci_fixed_time(x->fx) : kci_proc_time(&x->p);
        if (have && next != known)
            known = next, next_cycle = cycle_of(x, next);
        if (have && next_cycle <= kc_simdrive_now(x->d))
            st = take_event(x, err);
        else if (kc_simdrive_busy(x->d))
            st = step_network(x, err);
        else if (have)
            st = take_event(x, err);
        else
            break;
    }
    return st;
}

/* µs to whole ns, rounded down but for a binary rounding error (0.57 µs is
 * 570 ns), capped at the LogGOPS bound. */
static uint64_t whole_ns(double us)
{
    double v = us * 1000, r = nearbyint(v);
    v = fabs(v - r) <= 1e-9 * (1 + v) ? r : floor(v);
    return v >= (double)KC_LOGGOPS_PARAM_MAX ? KC_LOGGOPS_PARAM_MAX : (uint64_t)v;
}

static uint64_t local_messages(const kc_goal *g, const uint32_t *node)
{
    uint64_t k = 0;
    for (size_t i = 0; i < g->nops; i++)
        k += g->op[i].kind == KC_GOAL_SEND && kci_proc_local(g, node, i);
    return k;
}

/* The smallest zero-load first-byte latency over the messages that enter
 * the network (cycles), or -1; each one's into x->hl (routes are asked for
 * once a message: on a general network that is a route walk). */
static int64_t smallest_head(const replay *x)
{
    int64_t best = -1;
    for (size_t i = 0; i < x->g->nops; i++) {
        const kc_goal_op *o = &x->g->op[i];
        if (o->kind != KC_GOAL_SEND || kci_proc_local(x->g, x->node, i))
            continue;
        int64_t hl = head_latency(x, x->router[o->rank], x->router[(uint32_t)o->peer]);
        x->hl[x->id_of[i]] = hl;
        if (best < 0 || hl < best)
            best = hl;
    }
    return best;
}

/* Does a parameter set differ from o = g = O = 0, S infinite (the nCUBE 2 run)? */
static int loggops_on(const kc_loggops_params *p)
{
    return p && (p->o || p->g || p->O || p->S != KC_LOGGOPS_S_INF);
}

/* "it deadlocks (WHAT, is never matched, nor N other NOUNs)" into why. */
static void stuck_why(char *why, size_t size, const char *what, size_t more, const char *noun)
{
    char tail[80] = "";
    if (more)
        snprintf(tail, sizeof tail, ", nor %zu other %s%s", more, noun, more > 1 ? "s" : "");
    snprintf(why, size, "it deadlocks (%s, is never matched%s)", what, tail);
}

/* A stopped LogGOPS run with no rendezvous stuck: the first receive it
 * never matched, named, and how many more; else msg. */
static void recv_stuck(const kc_goal *g, const kci_loggops_order *ord, const char *msg, char *why, size_t size)
{
    size_t first = KC_GOAL_NONE, more = 0;
    for (size_t i = 0; ord->matched && i < g->nops; i++) {
        if (g->op[i].kind != KC_GOAL_RECV || ord->matched[i] != KC_GOAL_NONE)
            continue;
        more += first != KC_GOAL_NONE;
        if (first == KC_GOAL_NONE)
            first = i;
    }
    if (first == KC_GOAL_NONE) {
        snprintf(why, size, "%s", msg);
        return;
    }
    char what[160];
    kci_recv_text(g, first, what, sizeof what);
    stuck_why(why, size, what, more, "receive");
}

/* Why a LogGOPS run that stopped (its message msg) stopped, into why: the
 * first rendezvous send it took whose receive never matched, named, and how
 * many more; else msg. O(ops + charges). */
static void loggops_stuck(const kc_goal *g, const kci_loggops_order *ord, uint64_t S, const char *msg, char *why,
                          size_t size)
{
    size_t n = g->nops, first = KC_GOAL_NONE, more = 0;
    unsigned char *got = ord->c && ord->matched ? calloc(n ? n : 1, 1) : NULL;
    for (size_t i = 0; got && i < n; i++)
        if (g->op[i].kind == KC_GOAL_RECV && ord->matched[i] != KC_GOAL_NONE)
            got[ord->matched[i]] = 1;
    for (size_t c = 0; got && c < ord->n; c++) {
        size_t op = ord->c[c].op;
        if (ord->c[c].type != KCI_LG_SEND || g->op[op].amount <= S || got[op])
            continue;
        more += first != KC_GOAL_NONE;
        if (first == KC_GOAL_NONE)
            first = op;
    }
    free(got);
    if (first == KC_GOAL_NONE) {
        recv_stuck(g, ord, msg, why, size);
        return;
    }
    char what[160];
    kci_rndv_text(g, first, what, sizeof what);
    stuck_why(why, size, what, more, "rendezvous send");
}

/* The LogGOPS makespan with the network's zero-load numbers (kc_appsim_result).
 * The run's order and matching are recorded in ord and *use set when the
 * network replay can follow them (and the critical path be compared):
 * LogGOPS ran; else out->loggops_why says why not. Only running out of
 * memory is an error. */
static kc_status loggops_reference(const kc_goal *g, const kc_appsim_opts *o, const replay *x, int any_local,
                                   kci_loggops_order *ord, int *use, kc_appsim_result *out, kc_err *err)
{
    kc_loggops_params p = {0, 0, 0, 0, 0, KC_LOGGOPS_S_INF};
    if (o->loggops)
        p = *o->loggops;
    double lat = o->startup_us + (!any_local && x->min_head > 0 ? (double)x->min_head * x->cyc : 0);
    p.L = whole_ns(lat);
    p.G = whole_ns(o->byte_time_us);
    uint64_t v[6] = {p.L, p.o, p.g, p.G, p.O, p.S};
    memcpy(out->loggops_ref, v, sizeof v);
    kc_loggops_result r;
    kc_err e2 = {0};
    kc_status st = kci_loggops_run_order(g, &p, ord, &r, &e2);
    if (st == KC_ENOMEM)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    out->loggops_us = st ? -1 : (double)r.makespan_ns / 1000.0;
    if (!st)
        kc_loggops_result_free(&r);
    *use = !st;
    if (st)
        loggops_stuck(g, ord, p.S, e2.msg, out->loggops_why, sizeof out->loggops_why);
    return KC_OK;
}

/* LogGOPS's matching as x->lgm: ord->matched gets each matched send's
 * receive too (a send's entry is unused until then), so one array serves
 * both directions rather than a copy of it. */
static void loggops_matching(replay *x, kci_loggops_order *ord)
{
    size_t n = x->g->nops, k = 0;
    for (size_t i = 0; i < n; i++)
        if (x->g->op[i].kind == KC_GOAL_RECV && ord->matched[i] != KC_GOAL_NONE)
            ord->matched[ord->matched[i]] = i, k++;
    x->lgm = (kc_goal_match){ord->matched, ord->matched, k, 0, 1};
}

/* Did the greedy run match every receive as LogGOPS did (so their times
 * compare along a path)? */
static int matched_alike(const replay *x)
{
    for (size_t i = 0; i < x->g->nops; i++)
        if (x->g->op[i].kind == KC_GOAL_RECV && x->ord->matched[i] != x->p.mate[i])
            return 0;
    return 1;
}

/* ---- the gap along the critical path (kc_appsim_result.path) ---------------- */

enum { N_NONE, N_CSTART, N_CCPU, N_CNIC, N_POST, N_MATCH, N_HEAD, N_TAIL };
typedef struct pnode {
    int type;
    size_t id; /* a charge (CSTART, CCPU, CNIC) or an op */
} pnode;

static double net_time(const replay *x, pnode v)
{
    const kci_fixed *f = x->fx;
    switch (v.type) {
    case N_CSTART: return f->cstart[v.id];
    case N_CCPU: return f->ccpu[v.id];
    case N_CNIC: return f->cnic[v.id];
    case N_POST: return x->p.st[v.id].start;
    case N_MATCH: return f->match[v.id];
    case N_HEAD: return f->p->st[v.id].head;
    default: return f->p->st[v.id].tail;
    }
}

/* LogGOPS's time of the same event (µs); a tail: the first byte plus (s-1) G. */
static double lg_time(const replay *x, pnode v, double G)
{
    const kci_loggops_order *ord = x->ord;
    switch (v.type) {
    case N_CSTART: return (double)ord->c[v.id].t / 1000.0;
    case N_CCPU: return (double)ord->c[v.id].cpu_end / 1000.0;
    case N_CNIC: return (double)ord->c[v.id].nic_end / 1000.0;
    case N_POST:
    case N_HEAD: return (double)ord->post[v.id] / 1000.0;
    case N_MATCH: return (double)ord->match[v.id] / 1000.0;
    default: {
        uint64_t b = x->g->op[v.id].amount;
        return (double)ord->post[v.id] / 1000.0 + (double)(b ? b - 1 : 0) * G;
    }
    }
}

/* The event that decided an op's start or end. */
static pnode op_node(const replay *x, size_t op, int start)
{
    const kci_fixed *f = x->fx;
    const kc_goal_op *o = &x->g->op[op];
    const kci_proc_op *s = &x->p.st[op];
    if (o->kind == KC_GOAL_RECV) {
        size_t mc = f->msg_of[x->m->send_of[op]];
        return !start && s->end == f->ccpu[mc] ? (pnode){N_CCPU, mc} : (pnode){N_POST, op};
    }
    size_t c = f->task_of[op];
    if (start)
        return (pnode){N_CSTART, c};
    if (o->kind == KC_GOAL_SEND && !f->ord->eager[op] && s->end != f->ccpu[c])
        return (pnode){N_MATCH, op};
    return (pnode){N_CCPU, c};
}

/* The dependency of op that made it ready at t (dfirst/dlist: deps by op), or N_NONE. */
static pnode ready_node(const replay *x, const size_t *dfirst, const size_t *dlist, size_t op, double t)
{
    for (size_t k = dfirst[op]; k < dfirst[op + 1]; k++) {
        const kc_goal_dep *d = &x->g->dep[dlist[k]];
        pnode u = op_node(x, d->on, d->start);
        if (net_time(x, u) == t)
            return u;
    }
    return (pnode){N_NONE, 0};
}

/* The step into v: its predecessor on the path, and v's own kind of time
 * (0: none, the time came unchanged from u). */
enum { K_WAIT, K_START_UP, K_CPU, K_NIC, K_HEAD, K_TAIL };
static pnode step_back(const replay *x, const size_t *dfirst, const size_t *dlist, pnode v, int *kind)
{
    const kci_fixed *f = x->fx;
    *kind = K_WAIT;
    if (v.type == N_HEAD || v.type == N_TAIL) {
        *kind = v.type == N_HEAD ? K_HEAD : K_TAIL;
        return (pnode){N_CSTART, f->task_of[v.id]};
    }
    if (v.type == N_MATCH) {
        size_t mc = f->msg_of[v.id], r = x->m->recv_of[v.id];
        return f->cstart[mc] == f->match[v.id] ? (pnode){N_CSTART, mc} : (pnode){N_POST, r};
    }
    if (v.type == N_POST) {
        double t = x->p.st[v.id].start;
        size_t k = f->ord->post_after[v.id];
        pnode u = ready_node(x, dfirst, dlist, v.id, t);
        if (u.type == N_NONE && k != KCI_LG_NONE && f->ccpu[k] == t)
            u = (pnode){N_CCPU, k};
        return u;
    }
    size_t c = v.id;
    const kci_lg_charge *ch = &f->ord->c[c];
    double t = net_time(x, v);
    if (v.type == N_CCPU || v.type == N_CNIC) {
        uint32_t prev = v.type == N_CCPU ? f->cprev_cpu[c] : f->cprev_nic[c];
        if (ch->type == KCI_LG_HOLD) {
            if (f->match[ch->op] == t)
                return (pnode){N_MATCH, ch->op};
            return prev == KCI_FX_NONE ? (pnode){N_NONE, 0} : (pnode){v.type, prev};
        }
        if (v.type == N_CNIC) {
            *kind = K_NIC;
            return (pnode){N_CSTART, c};
        }
        if (ch->type == KCI_LG_MSG) {
            const kc_goal_op *o = &x->g->op[ch->op];
            double b = (double)(o->amount ? o->amount - 1 : 0);
            double own = f->cstart[c] + f->o + (b * f->O > b * f->bt ? b * f->O : b * f->bt);
            if (own != t && f->p->st[ch->op].tail == t)
                return (pnode){N_TAIL, ch->op};
        }
        *kind = ch->type == KCI_LG_SEND ? K_START_UP : K_CPU;
        return (pnode){N_CSTART, c};
    }
    /* a charge's start: its input first, then its CPU's and NIC's previous charges */
    pnode in = {N_NONE, 0};
    if (ch->type == KCI_LG_MSG)
        in = (pnode){N_HEAD, ch->op};
    else if (ch->type == KCI_LG_HOLD)
        in = (pnode){N_MATCH, ch->op};
    if (in.type != N_NONE && net_time(x, in) == t)
        return in;
    if (ch->type == KCI_LG_CALC || ch->type == KCI_LG_SEND) {
        pnode u = ready_node(x, dfirst, dlist, ch->op, t);
        if (u.type != N_NONE)
            return u;
    }
    if (f->cprev_cpu[c] != KCI_FX_NONE && f->ccpu[f->cprev_cpu[c]] == t)
        return (pnode){N_CCPU, f->cprev_cpu[c]};
    if (ch->type != KCI_LG_HOLD && f->cprev_nic[c] != KCI_FX_NONE && f->cnic[f->cprev_nic[c]] == t)
        return (pnode){N_CNIC, f->cprev_nic[c]};
    return (pnode){N_NONE, 0};
}

/* A duration that rounding left a hair below zero (or at -0.0) is the
 * zero it stands for. */
static double duration(double v, double whole)
{
    return v <= 0 && v > -1e-9 * (1 + whole) ? 0 : v;
}

/* A message's step (from its send's start to its first byte, or to its
 * tail), which grew the network's time by grow and that less LogGOPS's by
 * ex: its own waits, its pipeline beyond L's, the rest. */
static void path_message(const replay *x, kc_appsim_result *out, size_t send, int tail, double ex, double grow)
{
    out->path.messages++;
    if (kci_proc_local(x->g, x->node, send)) {
        out->path.other += ex;
        out->path.span.transfer += grow;
        return;
    }
    uint32_t id = x->id_of[send];
    double bnd = (double)x->joined[id] * x->cyc - x->leave[id];
    double pipe = (double)(x->hl[id] - x->ref_head) * x->cyc;
    double port = tail ? (double)x->pw[id] * x->cyc : 0;
    double chan = tail ? (double)x->cw[id] * x->cyc : 0;
    out->path.cycle_boundary += bnd;
    out->path.pipeline += pipe;
    out->path.injection_wait += port;
    out->path.channel_wait += chan;
    out->path.other += ex - bnd - pipe - port - chan;
    out->path.span.cycle_boundary += duration(bnd, grow);
    out->path.span.pipeline += pipe;
    out->path.span.injection_wait += port;
    out->path.span.channel_wait += chan;
    out->path.span.transfer += duration(grow - bnd - pipe - port - chan, grow);
}

/* A step of kind k that grew the network's time by grow (not a message). */
static void path_span(kc_appsim_result *out, int k, double grow)
{
    double *to = k == K_START_UP ? &out->path.span.start_up
                 : k == K_CPU    ? &out->path.span.cpu
                 : k == K_NIC    ? &out->path.span.nic
                                 : &out->path.span.waiting;
    *to += grow;
}

/* The nCUBE 2 run (no --loggops: x->p's greedy list schedule, one CPU a
 * rank that does start-ups and calcs, receives costing none): the same
 * walk over ops' starts and ends and messages' tails. */
enum { G_START = 16, G_END };

static double gnet_time(const replay *x, pnode v)
{
    if (v.type == G_START)
        return x->p.st[v.id].start;
    if (v.type == G_END)
        return x->p.st[v.id].end;
    return x->p.st[x->m->recv_of[v.id]].arrival; /* N_TAIL: the tail (or the start-up's end within a node) */
}

static double glg_time(const replay *x, const size_t *task_of, pnode v, double G)
{
    const kci_loggops_order *ord = x->ord;
    if (v.type == N_TAIL)
        return lg_time(x, v, G);
    if (x->g->op[v.id].kind == KC_GOAL_RECV) /* posted; matched (the message taken) */
        return (double)(v.type == G_START ? ord->post[v.id] : ord->match[x->m->send_of[v.id]]) / 1000.0;
    const kci_lg_charge *c = &ord->c[task_of[v.id]];
    return (double)(v.type == G_START ? c->t : c->cpu_end) / 1000.0;
}

/* prev: each calc's or send's predecessor on its rank's CPU (by start). */
static pnode gstep_back(const replay *x, const size_t *dfirst, const size_t *dlist, const size_t *prev, pnode v,
                        int *kind)
{
    const kc_goal_op *o = &x->g->op[v.id];
    const kci_proc_op *s = &x->p.st[v.id];
    *kind = K_WAIT;
    if (v.type == N_TAIL) {
        *kind = K_TAIL;
        return (pnode){G_START, v.id};
    }
    if (v.type == G_END) {
        if (o->kind == KC_GOAL_RECV)
            return s->end == s->arrival ? (pnode){N_TAIL, x->m->send_of[v.id]} : (pnode){G_START, v.id};
        *kind = o->kind == KC_GOAL_SEND ? K_START_UP : K_CPU;
        return (pnode){G_START, v.id};
    }
    for (size_t k = dfirst[v.id]; k < dfirst[v.id + 1]; k++) {
        const kc_goal_dep *d = &x->g->dep[dlist[k]];
        pnode u = {d->start ? G_START : G_END, d->on};
        if (gnet_time(x, u) == s->start)
            return u;
    }
    if (o->kind != KC_GOAL_RECV && prev[v.id] != KC_GOAL_NONE && x->p.st[prev[v.id]].end == s->start)
        return (pnode){G_END, prev[v.id]};
    return (pnode){N_NONE, 0};
}

typedef struct busy_op {
    double start, end;
    uint64_t op; /* a send or calc */
} busy_op;       /* grouped by rank (prev_busy) */

static int busy_cmp(const void *a, const void *b)
{
    const busy_op *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return (x->op > y->op) - (x->op < y->op);
}

/* prev[op]: the send or calc its rank's processor ran before op (by start,
 * end, op), else KC_GOAL_NONE; b has room for every op, first for
 * num_ranks + 2 entries. Grouped by rank with a counting sort and sorted
 * rank by rank, so that the sort's scratch is one rank's. */
static void prev_busy(const replay *x, busy_op *b, size_t *first, size_t *prev)
{
    const kc_goal *g = x->g;
    size_t n = g->nops, R = g->num_ranks;
    memset(first, 0, (R + 2) * sizeof *first);
    for (size_t i = 0; i < n; i++)
        first[g->op[i].rank + 2] += g->op[i].kind != KC_GOAL_RECV;
    for (size_t r = 0; r < R; r++)
        first[r + 2] += first[r + 1];
    for (size_t i = 0; i < n; i++) {
        prev[i] = KC_GOAL_NONE;
        if (g->op[i].kind != KC_GOAL_RECV)
            b[first[g->op[i].rank + 1]++] = (busy_op){x->p.st[i].start, x->p.st[i].end, i};
    }
    for (size_t r = 0; r < R; r++) {
        qsort(b + first[r], first[r + 1] - first[r], sizeof *b, busy_cmp);
        for (size_t k = first[r] + 1; k < first[r + 1]; k++)
            prev[b[k].op] = b[k - 1].op;
    }
}

/* critical_path for the nCUBE 2 run; *reached: the walk got back to time 0. */
static kc_status greedy_path(replay *x, const size_t *dfirst, const size_t *dlist, kc_appsim_result *out,
                             int *reached, kc_err *err)
{
    const kc_goal *g = x->g;
    size_t n = g->nops;
    size_t *prev = malloc(n * sizeof *prev), *task_of = malloc(n * sizeof *task_of);
    size_t *first = malloc(((size_t)g->num_ranks + 2) * sizeof *first);
    busy_op *b = malloc(n * sizeof *b);
    if (!prev || !task_of || !b || !first) {
        free(prev), free(task_of), free(b), free(first);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    for (size_t c = 0; c < x->ord->n; c++)
        if (x->ord->c[c].type == KCI_LG_CALC || x->ord->c[c].type == KCI_LG_SEND)
            task_of[x->ord->c[c].op] = c;
    prev_busy(x, b, first, prev);
    free(b), free(first); /* before the walk: only prev is needed */
    double G = (double)out->loggops_ref[3] / 1000.0;
    size_t last = 0;
    for (size_t i = 0; i < n; i++)
        if (x->p.st[i].end > x->p.st[last].end)
            last = i;
    pnode v = {G_END, last};
    double lg_end = glg_time(x, task_of, v, G);
    for (uint64_t guard = 3 * (uint64_t)n + 8; guard; guard--) {
        int kind;
        pnode u = gstep_back(x, dfirst, dlist, prev, v, &kind);
        if (u.type == N_NONE)
            break;
        double grow = gnet_time(x, v) - gnet_time(x, u);
        double ex = grow - (glg_time(x, task_of, v, G) - glg_time(x, task_of, u, G));
        out->path.steps++;
        if (kind != K_TAIL)
            path_span(out, kind, grow);
        if (kind == K_TAIL)
            path_message(x, out, v.id, 1, ex, grow);
        else if (kind == K_START_UP)
            out->path.start_up += ex;
        else if (kind == K_CPU)
            out->path.cpu += ex;
        else
            out->path.elsewhere += ex;
        v = u;
    }
    *reached = gnet_time(x, v) == 0;
    out->path.elsewhere += (gnet_time(x, v) - glg_time(x, task_of, v, G)) - (out->loggops_us - lg_end);
    free(prev), free(task_of);
    return KC_OK;
}

/* Walk the critical path back from the last end (kc_appsim_result.path).
 * O(path + deps). */
static kc_status critical_path(replay *x, const kc_appsim_opts *o, kc_appsim_result *out, kc_err *err)
{
    const kc_goal *g = x->g;
    size_t n = g->nops;
    /* the nCUBE 2 run, or LogGOPS's order; not a greedy run with parameters */
    if (!x->ord || out->loggops_us < 0 ||
        (!x->fx && (x->p.nic || x->p.cpu_recv || x->p.S != KC_LOGGOPS_S_INF || !matched_alike(x))))
        return KC_OK;
    if (!n) {
        out->path.ok = 1;
        return KC_OK;
    }
    size_t *dfirst = calloc(n + 2, sizeof *dfirst), *dlist = malloc((g->ndeps ? g->ndeps : 1) * sizeof *dlist);
    if (!dfirst || !dlist) {
        free(dfirst), free(dlist);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < g->ndeps; i++)
        dfirst[g->dep[i].op + 2]++;
    for (size_t i = 0; i < n; i++)
        dfirst[i + 2] += dfirst[i + 1];
    for (size_t i = 0; i < g->ndeps; i++)
        dlist[dfirst[g->dep[i].op + 1]++] = i;
    if (!x->fx) {
        int reached = 0;
        kc_status st = greedy_path(x, dfirst, dlist, out, &reached, err);
        free(dfirst), free(dlist);
        if (!st && !reached) /* a walk that lost its way: no split rather than a wrong one */
            memset(&out->path, 0, sizeof out->path);
        out->path.ok = !st && reached;
        return st;
    }
    double G = (double)out->loggops_ref[3] / 1000.0;
    size_t last = 0;
    for (size_t i = 0; i < n; i++)
        if (x->p.st[i].end > x->p.st[last].end)
            last = i;
    pnode v = op_node(x, last, 0);
    double lg_end = lg_time(x, v, G);
    uint64_t guard = 4 * (uint64_t)(n + x->ord->n) + 8;
    for (;;) {
        int kind;
        pnode u = step_back(x, dfirst, dlist, v, &kind);
        if (u.type == N_NONE || !guard--)
            break;
        double grow = net_time(x, v) - net_time(x, u), lg = lg_time(x, v, G) - lg_time(x, u, G), ex = grow - lg;
        out->path.steps++;
        if (kind != K_HEAD && kind != K_TAIL)
            path_span(out, kind, grow);
        switch (kind) {
        case K_START_UP: out->path.start_up += ex; break;
        case K_CPU: out->path.cpu += ex; break;
        case K_NIC: out->path.nic += ex; break;
        case K_HEAD:
        case K_TAIL: path_message(x, out, v.id, kind == K_TAIL, ex, grow); break;
        default: out->path.elsewhere += ex; break;
        }
        v = u;
    }
    if (net_time(x, v) != 0) {
        free(dfirst), free(dlist);
        return kc_fail(err, KC_EINTERNAL, "the critical path stops at %.9g us (event %d of %zu), not at 0",
                       net_time(x, v), v.type, v.id);
    }
    /* the path's first event against LogGOPS's, and LogGOPS's end after the path's */
    out->path.elsewhere += (net_time(x, v) - lg_time(x, v, G)) - (out->loggops_us - lg_end);
    out->path.ok = 1;
    (void)o;
    free(dfirst), free(dlist);
    return KC_OK;
}

kc_status kc_appsim_run(const kc_goal *g, const kc_goal_match *m, const kc_simnet *net, const kc_simroute *route,
                        const kc_simconfig *cfg, const kc_appsim_opts *o, kc_appsim_result *out, kc_err *err)
{
    return kc_appsim_run_placed(g, m, net, route, cfg, o, NULL, NULL, out, err);
}

kc_status kc_appsim_run_placed(const kc_goal *g, const kc_goal_match *m, const kc_simnet *net,
                               const kc_simroute *route, const kc_simconfig *cfg, const kc_appsim_opts *o,
                               const kc_appsim_place *pl, kc_timeline *tl, kc_appsim_result *out, kc_err *err)
{
    return kc_appsim_run_order(g, m, net, route, cfg, o, pl, tl, KC_APPSIM_ORDER_LOGGOPS, out, err);
}

/* The result's per-rank and per-phase arrays; KC_ENOMEM frees the result. */
static kc_status result_alloc(const kc_goal *g, kc_appsim_result *out, kc_err *err)
{
    out->nphases = (uint32_t)g->nphases;
    out->finish_us = calloc((size_t)g->num_ranks + 1, sizeof *out->finish_us);
    out->phase_us = calloc(g->nphases + 1, sizeof *out->phase_us);
    out->phase_compute_us = calloc(g->nphases + 1, sizeof *out->phase_compute_us);
    if (!out->finish_us || !out->phase_us || !out->phase_compute_us) {
        kc_appsim_result_free(out);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    return KC_OK;
}

/* The contention-free figure, the messages numbered, the per-message and
 * per-port arrays, and the smallest first-byte latency; *nlocal: the
 * messages within a node. Left for replay_free on error. */
static kc_status replay_setup(replay *x, const kc_appsim_opts *o, kc_appsim_result *out, uint64_t *nlocal,
                              kc_err *err)
{
    const kc_goal *g = x->g;
    kc_goal_timing tm = {o->startup_us, o->byte_time_us};
    kc_status st;
    if ((st = kc_goal_loggp_record(g, x->m, &tm, x->node, &out->loggp_us, NULL, NULL, err)) ||
        (st = number_messages(g, o->bytes_per_flit, x->node, &x->id_of, &x->send_of_id, &out->messages,
                              &out->flits, err)))
        return st;
    x->delivered = calloc(out->messages + 1, 1);
    x->leave = calloc(out->messages + 1, sizeof *x->leave);
    x->pw = calloc(out->messages + 1, sizeof *x->pw);
    x->cw = calloc(out->messages + 1, sizeof *x->cw);
    x->hl = calloc(out->messages + 1, sizeof *x->hl);
    x->joined = calloc(out->messages + 1, sizeof *x->joined);
    x->port_free = calloc((size_t)x->net->nodes * (size_t)(x->net->inj > 0 ? x->net->inj : 1) + 1,
                          sizeof *x->port_free);
    if (!x->delivered || !x->leave || !x->joined || !x->port_free || !x->pw || !x->cw || !x->hl)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    *nlocal = local_messages(g, x->node);
    x->min_head = smallest_head(x);
    x->ref_head = !*nlocal && x->min_head > 0 ? x->min_head : 0;
    return KC_OK;
}

/* The LogGOPS reference run into *ord and the processor model; with
 * LogGOPS's order asked for and usable, the CPUs and NICs in that order
 * (fx, then x->fx). Left for replay_free on error. */
static kc_status choose_processors(replay *x, const kc_appsim_opts *o, kc_appsim_order order, int local,
                                   kci_loggops_order *ord, kci_fixed *fx, kc_appsim_result *out, kc_err *err)
{
    int use = 0;
    kc_status st = loggops_reference(x->g, o, x, local, ord, &use, out, err);
    if (st)
        return st;
    if (use)
        x->ord = ord;
    out->order_reason = !loggops_on(o->loggops)          ? KC_APPSIM_REASON_NCUBE2
                        : order == KC_APPSIM_ORDER_GREEDY ? KC_APPSIM_REASON_ASKED
                        : !use                            ? KC_APPSIM_REASON_NO_LOGGOPS
                                                          : KC_APPSIM_REASON_LOGGOPS;
    if ((st = kci_proc_init(&x->p, x->g, NULL, o->startup_us, o->loggops, o->byte_time_us, err)))
        return st;
    if (out->order_reason == KC_APPSIM_REASON_LOGGOPS) {
        loggops_matching(x, ord);
        if ((st = kci_fixed_init(fx, &x->p, x->g, &x->lgm, ord, o->startup_us, o->loggops, o->byte_time_us, err)))
            return st;
        kci_proc_shed(&x->p);
        x->p.m = &x->lgm; /* the timeline's flows */
        x->fx = fx;
        out->fixed_order = 1;
    }
    return KC_OK;
}

/* The replay on the engine, then the checks that every operation ran and
 * every message arrived (unless the network deadlocked). */
static kc_status replay_run(replay *x, const kc_simroute *route, kc_appsim_result *out, kc_err *err)
{
    kc_status st;
    if ((st = kc_simdrive_new(x->net, route, x->cfg, &x->d, err)) || (st = run_loop(x, err)) ||
        (st = kc_simdrive_finish(x->d, &out->sim, err)))
        return st;
    kc_simdrive_free(x->d); /* the engine's memory back before the report's arrays */
    x->d = NULL;
    if (x->fx && x->fx->oom)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    if (!out->sim.deadlock) {
        if ((st = x->fx ? kci_fixed_check(x->fx, err) : kci_proc_check(&x->p, err)))
            return st;
        if (x->arrived != out->messages)
            return kc_fail(err, KC_EINTERNAL, "%llu of %llu messages delivered", (unsigned long long)x->arrived,
                           (unsigned long long)out->messages);
    }
    if (x->fx)
        kci_fixed_shed(x->fx); /* before the report's arrays */
    return KC_OK;
}

/* The figures of a finished replay: times, the gap split, finishes, the
 * attribution, the links, the critical path and the timeline (tl may be
 * NULL). */
static kc_status replay_report(replay *x, const kc_appsim_opts *o, uint64_t nlocal, kc_timeline *tl,
                               kc_appsim_result *out, kc_err *err)
{
    const kc_goal *g = x->g;
    kc_status st;
    out->messages = x->arrived;
    out->total_us = x->p.total;
    /* the pipeline beyond the smallest latency, which the LogGOPS L holds
     * (never below it: a hair under zero is the sums' rounding) */
    double zero_load = !nlocal && x->min_head > 0 ? (double)x->min_head * x->cyc * (double)out->messages : 0;
    out->pipeline_us = duration(x->pipe - zero_load, x->pipe);
    out->wait_channel_us = x->wchan;
    out->wait_port_us = x->wport;
    out->boundary_us = x->bound;
    memcpy(out->finish_us, x->p.finish, g->num_ranks * sizeof *out->finish_us);
    x->m = x->p.m; /* the run's matching (LogGOPS's in its order), for the critical path */
    if ((st = attribute(g, &x->p, out, err)))
        return st;
    link_utilisation(x->net, out);
    if (!out->sim.deadlock && (st = critical_path(x, o, out, err)))
        return st;
    if (tl) {
        memcpy(tl->node_of, x->node, g->num_ranks * sizeof *x->node);
        st = kci_proc_record(&x->p, tl, err);
    }
    return st;
}

/* Tear down what replay_setup and choose_processors made (not x->node). */
static void replay_free(replay *x, kci_loggops_order *ord)
{
    if (x->fx)
        kci_fixed_free(x->fx);
    kci_loggops_order_free(ord);
    kci_proc_free(&x->p);
    kc_simdrive_free(x->d);
    free(x->id_of), free(x->send_of_id), free(x->delivered);
    free(x->leave), free(x->joined), free(x->port_free), free(x->pw), free(x->cw), free(x->hl);
}

kc_status kc_appsim_run_order(const kc_goal *g, const kc_goal_match *m, const kc_simnet *net,
                              const kc_simroute *route, const kc_simconfig *cfg, const kc_appsim_opts *o,
                              const kc_appsim_place *pl, kc_timeline *tl, kc_appsim_order order,
                              kc_appsim_result *out, kc_err *err)
{
    kc_appsim_opts def = KC_APPSIM_OPTS_DEFAULT;
    if (!o)
        o = &def;
    kc_simconfig defcfg;
    if (!cfg) {
        kc_simconfig_default(&defcfg);
        cfg = &defcfg;
    }
    memset(out, 0, sizeof *out);
    uint32_t *node = NULL, *router = NULL;
    kc_status st = check_opts(g, net, o, err);
    if (st || (st = place(g, net, pl, &node, &router, err))) {
        free(node), free(router);
        return st;
    }
    if (tl && tl->num_ranks != g->num_ranks) {
        free(node), free(router);
        return kc_fail_param(err, KC_EINVAL, "timeline", "the timeline has %u ranks, the schedule %u",
                             tl->num_ranks, g->num_ranks);
    }
    kci_loggops_order ord = {0};
    kci_fixed fx = {0};
    replay x = {.g = g, .m = m, .cyc = o->byte_time_us * o->bytes_per_flit, .bpf = o->bytes_per_flit, .node = node,
                .router = router, .topo = pl ? pl->topo : NULL, .net = net, .cfg = cfg, .min_head = -1};
    out->cycle_us = x.cyc;
    if ((st = result_alloc(g, out, err))) {
        free(node), free(router);
        return st;
    }
    uint64_t nlocal = 0;
    if (!(st = replay_setup(&x, o, out, &nlocal, err)) &&
        !(st = choose_processors(&x, o, order, nlocal > 0, &ord, &fx, out, err)) &&
        !(st = replay_run(&x, route, out, err)))
        st = replay_report(&x, o, nlocal, tl, out, err);
    replay_free(&x, &ord);
    free(node), free(router);
    if (st)
        kc_appsim_result_free(out);
    return st;
}
