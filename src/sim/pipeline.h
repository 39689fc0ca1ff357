/* Private to src/sim: the router-pipeline loop's state, shared by its two
 * files (pipeline.c: state, flits in flight, sources; pipeline_router.c:
 * each router's VC and switch allocation, and the helpers both use). It
 * keeps its own worm slots, so it calls nothing of engine.c (which calls
 * it) but kci_engine_finish (deliver.c, below both).
 *
 * The loop models an input-queued virtual-channel router as BookSim2's
 * IQRouter does, with each of its differences from the seeds' model an
 * option of kc_simconfig (docs/sim.md, "The BookSim2 model"). Names:
 *   ivc  an input VC: a buffer of `depth` flits at a router. Network ivcs
 *        have the id of the network channel that feeds them; injection
 *        ivcs follow (ports of nivp VCs each, ninjp ports per router).
 *   ovc  an output VC as the upstream side sees it: the same id as the ivc
 *        it feeds (its owner, when a VC allocator may give it again, and
 *        its credits: free slots downstream), then the ejection VCs.
 * A cycle: flits and credits due arrive, every router with buffered
 * flits allocates VCs to its waiting heads and its switch to one flit per
 * input port (or VC) and per output port (or VC, when the VCs of a link
 * are independent), then sources write a flit per injection port.
 * Routers are visited in id order, so with credit delay 0 a slot freed
 * downstream is reused upstream in the same cycle only when the
 * downstream router comes first (the seeds' flit loop: always). */
#ifndef KCI_SIM_PIPELINE_H
#define KCI_SIM_PIPELINE_H

#include "engine.h"

/* A flit on its way to ivc at cycle t (a link or the injection channel),
 * or a credit for ovc at cycle t (w, idx unused). */
typedef struct kci_pflight {
    uint32_t t, ivc, w, idx;
} kci_pflight;

/* A FIFO of them; entries are due in order, since every entry of one FIFO
 * has the same delay. */
typedef struct kci_pfifo {
    kci_pflight *a;
    size_t head, end, cap;
} kci_pfifo;

typedef struct kci_pivc {
    uint16_t head, cnt; /* ring of the buffer */
    int32_t out;        /* ovc of the packet at the front, -1 before VC allocation */
    uint32_t ready;     /* the front head's first cycle in this router (routing starts) */
    uint32_t sa_from;   /* its first cycle of switch allocation, once it has an ovc */
} kci_pivc;

typedef struct kci_povc {
    int32_t owner;    /* the worm it is allocated to, -1 when free */
    uint32_t avail;   /* first cycle a VC allocation may take it */
    uint32_t credits; /* free slots in the buffer it feeds */
} kci_povc;

/* An injection port of a source: the worm it is writing. */
typedef struct kci_psrc {
    int32_t w;
    uint32_t written, ivc, last; /* flits written; its ivc; the VC last taken (round robin) */
} kci_psrc;

/* A request of an allocator: input and output units (router-local), the
 * ivc (global) and its age (worm seq, or header readiness for VCs). */
typedef struct kci_preq {
    uint32_t in, out, ivc, ovc;
    uint64_t age;
} kci_preq;

typedef struct kci_pipe {
    uint32_t ports, vcs, nivp, ninjp, nevp, nejp; /* network ports, VCs; injection/ejection VCs per port, ports */
    uint32_t nin, nout;                           /* ivcs and ovcs of one router */
    uint32_t nivc, novc, inj0, ej0;               /* global counts; first injection ivc, first ejection ovc */
    uint32_t depth, net_delay, ej_delay, inj_delay, credit_delay, route_delay, va_delay;
    int tail_in, shared_in, independent, arb;
    uint32_t *rivc;      /* [nodes * nin]: the global ivc of a router's local one, KC_SIM_NONE when absent */
    uint32_t *bw, *bi, *ba; /* [nivc * depth]: buffered flits: worm, flit index, arrival cycle */
    kci_pivc *ivc;
    kci_povc *ovc;
    kci_psrc *src;       /* [nodes * ninjp] */
    uint32_t *rbuf;      /* [nodes]: flits buffered at a router */
    uint32_t *rva;       /* [nodes]: its ivcs whose front is a head without an ovc (VC allocation skipped at 0) */
    uint64_t *occ;       /* [nodes]: bit l set when local ivc l holds flits (all ones when nin > 64: no skipping) */
    uint16_t *in_ptr, *out_ptr, *va_in_ptr, *va_out_ptr; /* [nodes * nin or nout]: round-robin pointers */
    uint16_t *rr_off;    /* [nodes * nin]: an input port's VC pre-arbitration pointer (by its first ivc) */
    /* its own worm slots (records as the engine's, for kci_engine_finish),
     * their random tie bits and the free ones */
    kci_worm *worms;
    uint32_t *ties, *free_w, nfree, wcap;
    kci_pfifo link, inj, credit;
    kci_preq *req, *req_tmp; /* scratch of one router: nin * (nout + KC_SIMROUTE_MAX) requests, and the sort's */
    uint32_t *win;       /* scratch: the winners among them */
    int32_t *gsel, *asel; /* scratch: per output / input unit, the chosen request */
} kci_pipe;

/* pipeline_router.c (below pipeline.c: the files call one way) */
/* Appends to a FIFO; -1 when out of memory. */
int kci_pfifo_push(kci_pfifo *f, uint32_t t, uint32_t ivc, uint32_t w, uint32_t idx);
/* Router of ivc g; its local index there. */
uint32_t kci_pipe_ivc_node(const kci_engine *e, uint32_t g);
uint32_t kci_pipe_ivc_local(const kci_engine *e, uint32_t g);
/* ovc o (network) becomes free for VC allocation from the next cycle. */
static inline void kci_pipe_release(kci_pipe *p, uint32_t o, uint32_t now)
{
    p->ovc[o].owner = -1;
    p->ovc[o].avail = now + 1;
}
/* VC allocation, then switch allocation and traversal, at router v. */
void kci_pipe_router(kci_engine *e, uint32_t v);

#endif
