/* The simulator's configuration: defaults, the name tables of its options,
 * the checks of a run's arguments, and the decisions a run is shaped by
 * (which loop runs it, on how many node ranges). The engine and the memory
 * and work estimates (memory.c) make those decisions through the same
 * functions, so an estimate cannot drift from the engine it sizes. */
#include "kcube/sim.h"

#include <string.h>

#include "pipeline.h"
#include "sim_internal.h"

void kc_simconfig_default(kc_simconfig *c)
{
    memset(c, 0, sizeof *c);
    c->msg_flits = 20;
    c->load = 0.1;
    c->process = KC_INJECT_POISSON;
    c->seed = 1;
    c->warmup = 3000;
    c->measure = 10000;
    c->drain = 20000;
    c->route_delay = 0;
    c->switch_delay = 0;
    c->link_latency = 1;
    c->watchdog = 1000;
    c->queue_cap = 64;
    c->vc_independent = -1; /* automatic: see kc_sim_vcs_independent */
    c->threads = 1;
}

static const kc_name inject_entries[] = {
    {KC_INJECT_POISSON, "poisson", "exponential gaps between messages"},
    {KC_INJECT_BERNOULLI, "bernoulli", "one trial per cycle"},
    {KC_INJECT_BERNOULLI_GAPS, "bernoulli-gaps", "the Bernoulli process drawn as geometric gaps (a draw per message)"},
    {0, NULL, NULL},
};
const kc_names kc_siminject_names = {"injection process", inject_entries};

static const kc_name vclink_entries[] = {
    {0, "shared", "the VCs of a link take turns: one flit per cycle per link"},
    {1, "independent", "every VC moves a flit per cycle"},
    {0, NULL, NULL},
};
const kc_names kc_simvclink_names = {"VC link sharing", vclink_entries};

static const kc_name vcrelease_entries[] = {
    {KC_VCREL_TAIL_OUT, "tail-out", "a VC is free once its tail has left the downstream buffer (the seeds')"},
    {KC_VCREL_TAIL_IN, "tail-in", "a VC is free once its tail has been sent into it (BookSim2)"},
    {0, NULL, NULL},
};
const kc_names kc_simvcrelease_names = {"VC release", vcrelease_entries};

static const kc_name inport_entries[] = {
    {KC_INPORT_FREE, "free", "every VC of an input link may send a flit per cycle (the seeds')"},
    {KC_INPORT_SHARED, "shared", "one flit per input port per cycle (BookSim2)"},
    {0, NULL, NULL},
};
const kc_names kc_siminport_names = {"input port", inport_entries};

static const kc_name arb_entries[] = {
    {KC_ARB_FCFS, "fcfs", "first come first served, the oldest message first (the seeds')"},
    {KC_ARB_ROUND_ROBIN, "round-robin", "separable input-first allocators with round-robin arbiters"},
    {KC_ARB_ISLIP, "islip", "iSLIP, one iteration (BookSim2's default allocators)"},
    {0, NULL, NULL},
};
const kc_names kc_simarb_names = {"arbitration", arb_entries};

static const kc_name self_entries[] = {
    {0, "drop", "no message to oneself (the seeds')"},
    {1, "send", "uniform draws include the source, permutations keep fixed points (BookSim2)"},
    {0, NULL, NULL},
};
const kc_names kc_simself_names = {"self traffic", self_entries};

void kc_simconfig_booksim(kc_simconfig *c, int vcs)
{
    c->inject_latency = 2;
    c->credit_delay = 2;
    c->vc_release = KC_VCREL_TAIL_IN;
    c->va_delay = 1;
    c->inj_vcs = c->ej_vcs = vcs;
    c->input_port = KC_INPORT_SHARED;
    c->arbitration = KC_ARB_ISLIP;
    c->self_traffic = 1;
}

int kc_simconfig_inject_latency(const kc_simconfig *c) { return c->inject_latency > 1 ? c->inject_latency : 1; }

int kc_sim_pipeline(const kc_simconfig *c, const kc_simroute *route)
{
    return kc_simconfig_inject_latency(c) > 1 || c->credit_delay || c->vc_release || c->va_delay || c->inj_vcs || c->ej_vcs ||
           c->input_port || c->arbitration || c->self_traffic || (route && route->tie == KC_SIM_TIE_RANDOM);
}

int kc_sim_vc_link_default(kc_simtopo topo, int k)
{
    /* Seed 002's tori give every virtual channel its own one-flit buffer whose
     * flit crosses the link in a cycle; its figures (mapped tori near 0.4,
     * uniform above 0.4) need the VCs not to take turns. On the binary cube
     * the seeds have no VCs: extra VCs there (Duato's escape channel) share
     * the link, so adaptive routing gets no extra bandwidth. */
    return topo != KC_SIM_HYPERCUBE && (k > 2 || k == 0); /* k = 0: unequal sides, some above 2 */
}

kci_simshape kci_sim_shape(const kc_simnet *net)
{
    kci_simshape s = {net->nodes, net->n,  net->ports,    net->vcs, net->inj,
                      net->ej,    net->depth, net->max_hops, net->topo, net->k};
    return s;
}

int kci_sim_shape_vcs_independent(const kci_simshape *s, const kc_simconfig *cfg)
{
    return cfg->vc_independent >= 0 ? cfg->vc_independent : kc_sim_vc_link_default(s->topo, s->k);
}

int kc_sim_vcs_independent(const kc_simnet *net, const kc_simconfig *c)
{
    kci_simshape s = kci_sim_shape(net);
    return kci_sim_shape_vcs_independent(&s, c);
}

int kci_sim_shape_trains(const kci_simshape *s, const kc_simconfig *cfg)
{
    return s->depth == 1 && cfg->switch_delay == 0 && cfg->link_latency == 1 &&
           (s->vcs == 1 || kci_sim_shape_vcs_independent(s, cfg));
}

int kci_sim_trains(const kc_simnet *net, const kc_simconfig *cfg)
{
    kci_simshape s = kci_sim_shape(net);
    return kci_sim_shape_trains(&s, cfg);
}

uint32_t kci_sim_parts(const kci_simshape *s, const kc_simconfig *cfg, int splits, uint64_t min_nodes)
{
    /* only the worm-level and stream loops split, only on networks large
     * enough that the barriers cost little against the cycle (the stream
     * loop, whose moves stay serial, on twice as large) */
    uint64_t from = kci_sim_shape_trains(s, cfg) ? min_nodes : 2 * min_nodes;
    if (!splits || cfg->threads <= 1 || s->nodes < from)
        return 1;
    uint64_t nt = cfg->threads < KCI_MAX_THREADS ? (uint64_t)cfg->threads : KCI_MAX_THREADS;
    return (uint32_t)(nt > s->nodes ? s->nodes : nt);
}

int kci_sim_feeds(const kc_simconfig *cfg, uint32_t parts)
{
    return cfg->threads > 1 && parts == 1 && !cfg->oneshot && cfg->load > 0 && cfg->process == KC_INJECT_BERNOULLI;
}

int64_t kc_sim_zero_load(const kc_simconfig *c, int hops)
{
    int64_t r = c->route_delay, s = c->switch_delay, w = c->link_latency;
    return (int64_t)hops * (r + s + w) + r + s + c->msg_flits + kc_simconfig_inject_latency(c);
}

uint64_t kci_sim_pipe_bytes(const kci_simshape *s, const kc_simconfig *cfg)
{
    uint64_t n = s->nodes, iv = cfg->inj_vcs ? (uint64_t)cfg->inj_vcs : (uint64_t)s->inj;
    uint64_t ev = cfg->ej_vcs ? (uint64_t)cfg->ej_vcs : (uint64_t)s->ej;
    uint64_t in = (uint64_t)s->ports * (uint64_t)s->vcs + iv, out = (uint64_t)s->ports * (uint64_t)s->vcs + ev;
    uint64_t ivcs = n * in, ovcs = n * (in + ev);
    uint64_t per_ivc = (uint64_t)s->depth * 3 * sizeof(uint32_t) + sizeof(kci_pivc) + sizeof(uint32_t) +
                       3 * sizeof(uint16_t); /* buffer, record, router table, pointers */
    return ivcs * per_ivc + ovcs * sizeof(kci_povc) + n * (out * 2 * sizeof(uint16_t) + 2 * sizeof(uint32_t)) +
           n * iv * sizeof(kci_psrc);
}

kc_status kci_sim_check_timing(const kc_simconfig *c, kc_err *err)
{
    if (c->route_delay < 0 || c->switch_delay < 0 || c->link_latency < 1 || c->route_delay > KCI_SIM_DELAY_MAX ||
        c->switch_delay > KCI_SIM_DELAY_MAX || c->link_latency > KCI_SIM_DELAY_MAX)
        return kc_fail_param(err, KC_ERANGE, "timing", "router delays must be 0..1000 cycles and link latency 1..1000");
    if (c->inject_latency < 0 || c->inject_latency > 1000 || c->credit_delay < 0 || c->credit_delay > 1000)
        return kc_fail_param(err, KC_ERANGE, "timing", "inject latency and credit delay must be 0..1000 cycles");
    if (c->va_delay < 0 || c->va_delay > c->route_delay)
        return kc_fail_param(err, KC_ERANGE, "va_delay", "the VC allocation delay is part of R: 0..R (%d), got %d",
                             c->route_delay, c->va_delay);
    if (c->inj_vcs < 0 || c->inj_vcs > KC_SIMNET_MAX_VCS || c->ej_vcs < 0 || c->ej_vcs > KC_SIMNET_MAX_VCS)
        return kc_fail_param(err, KC_ERANGE, "vcs", "injection and ejection VCs must be 0..%d", KC_SIMNET_MAX_VCS);
    if ((unsigned)c->vc_release > 1 || (unsigned)c->input_port > 1 || (unsigned)c->arbitration > 2 ||
        (unsigned)c->self_traffic > 1)
        return kc_fail_param(err, KC_EINVAL, "model", "unknown router-model choice");
    return KC_OK;
}

kc_status kci_sim_check_routes(const kc_simnet *net, const kc_simroute *route, kc_err *err)
{
    if (net->max_hops + 2 > 65535) /* a worm's path entries are 16-bit */
        return kc_fail_param(err, KC_ERANGE, "k", "routes too long for the simulator");
    return kc_simroute_check(route, net, err);
}

kc_status kci_sim_check_config(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *tr,
                               const kc_simconfig *c, kc_err *err)
{
    if (tr->nodes != net->nodes)
        return kc_fail_param(err, KC_EINVAL, "traffic", "the traffic is for %u nodes, the network has %u", tr->nodes, net->nodes);
    if (c->msg_flits < 1 || c->msg_flits > 65535)
        return kc_fail_param(err, KC_ERANGE, "msg_flits", "message length must be 1..65535 flits, got %d", c->msg_flits);
    if (!c->oneshot && !(c->load > 0 && c->load <= (double)c->msg_flits))
        return kc_fail_param(err, KC_ERANGE, "load", "offered load must be > 0 and at most one message per cycle (%d flits/node/cycle), got %g", c->msg_flits, c->load);
    if ((unsigned)c->process > KC_INJECT_BERNOULLI_GAPS)
        return kc_fail_param(err, KC_EINVAL, "process", "unknown injection process %d", (int)c->process);
    if (c->process != KC_INJECT_POISSON && !c->oneshot && c->load > (double)c->msg_flits)
        return kc_fail_param(err, KC_ERANGE, "load", "Bernoulli injection needs load <= message length");
    if (c->process != KC_INJECT_POISSON && !c->oneshot && tr->weight_max > 1 &&
        c->load * tr->weight_max > (double)c->msg_flits)
        return kc_fail_param(err, KC_ERANGE, "load",
                             "Bernoulli injection needs load x sending endpoints per router <= message length");
    kc_status st = kci_sim_check_timing(c, err);
    if (st)
        return st;
    if (c->warmup < 0 || c->measure < 1 || c->drain < 0 || c->watchdog < 1 ||
        c->warmup + c->measure + c->drain > 2000000000LL)
        return kc_fail_param(err, KC_ERANGE, "cycles", "bad warm-up / measurement / drain / watchdog cycles");
    return kci_sim_check_routes(net, route, err);
}
