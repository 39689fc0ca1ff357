/* src/mpi/mpi_place.c - where each process runs, and communicators whose
 * ranks are placed by a kcube mapping (kcube/mpi.h, docs/mpi.md):
 * kc_mpi_node, kc_mpi_placement, kc_mpi_comm_remap,
 * kc_mpi_dist_graph_create_adjacent and kc_mpi_cart_create.
 *
 * The mapping is computed once, on rank 0, and broadcast: the mapper is
 * deterministic for a seed and budget, but a wall-clock cap could end two
 * runs differently, and one run is cheaper than P. */
#include "mpi/mpi_internal.h"

#include "kcube/perm.h"
#include "kcube/traffic.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static kc_status check_machine(const kc_mpi_machine *m, kc_err *err)
{
    if (!m || !m->topo || !m->hosts)
        return kc_fail_param(err, KC_EINVAL, "machine", "no machine: the topology and its description are needed");
    if (m->hosts->nodes != m->topo->nodes)
        return kc_fail_param(err, KC_EINVAL, "machine", "the description has %llu nodes, the topology %llu",
                             (unsigned long long)m->hosts->nodes, (unsigned long long)m->topo->nodes);
    if (m->topo->nodes > KC_CHANLOAD_MAX_NODES || m->topo->nodes > INT_MAX)
        return kc_fail_param(err, KC_ERANGE, "machine", "%llu nodes: at most %llu are mapped",
                             (unsigned long long)m->topo->nodes, (unsigned long long)KC_CHANLOAD_MAX_NODES);
    return KC_OK;
}

/* Is a the host name b, or its short form (up to the first '.'), or the
 * other way round? */
static int host_match(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return 1;
    size_t la = strcspn(a, "."), lb = strcspn(b, ".");
    return la == lb && strncmp(a, b, la) == 0 && (a[la] == '\0' || b[lb] == '\0');
}

typedef struct slot_node {
    uint32_t slot, node;
} slot_node;

static int cmp_slot(const void *x, const void *y)
{
    const slot_node *a = x, *b = y;
    return (a->slot > b->slot) - (a->slot < b->slot);
}

/* The calling process's node (no agreement: callers agree). */
static kc_status where(MPI_Comm comm, const kc_mpi_machine *m, uint32_t *node, kc_err *err)
{
    kc_status st = check_machine(m, err);
    if (st)
        return st;
    char name[MPI_MAX_PROCESSOR_NAME + 1];
    int len = 0, rank = 0, local_rank = 0;
    if ((st = kci_mpi_check(MPI_Get_processor_name(name, &len), "MPI_Get_processor_name", err)))
        return st;
    name[len < 0 ? 0 : len > MPI_MAX_PROCESSOR_NAME ? MPI_MAX_PROCESSOR_NAME : len] = '\0';
    MPI_Comm local;
    /* Keys are world ranks, not comm's: a process keeps its local rank in
     * every communicator (comm's own ranks may be a mapping's). */
    if ((st = kci_mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank", err)) ||
        (st = kci_mpi_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local),
                            "MPI_Comm_split_type", err)))
        return st;
    st = kci_mpi_check(MPI_Comm_rank(local, &local_rank), "MPI_Comm_rank", err);
    MPI_Comm_free(&local);
    if (st)
        return st;
    const kc_machine *h = m->hosts;
    uint32_t host = UINT32_MAX;
    for (uint32_t i = 0; i < h->nhosts && host == UINT32_MAX; i++)
        if (host_match(name, h->host_name[i]))
            host = i;
    if (host == UINT32_MAX)
        return kc_fail_param(err, KC_EINVAL, "machine", "host '%.64s' (MPI_Get_processor_name) is not in the machine "
                             "description", name);
    size_t count = 0;
    for (uint64_t x = 0; x < h->nodes; x++)
        count += h->host[x] == host;
    if ((size_t)local_rank >= count)
        return kc_fail_param(err, KC_EINVAL, "machine", "host '%.64s' runs more than the %zu processes the machine "
                             "description gives it", name, count);
    slot_node *s = malloc(count * sizeof *s);
    if (!s)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    count = 0;
    for (uint64_t x = 0; x < h->nodes; x++)
        if (h->host[x] == host)
            s[count++] = (slot_node){h->slot[x], (uint32_t)x};
    qsort(s, count, sizeof *s, cmp_slot);
    *node = s[local_rank].node;
    free(s);
    return KC_OK;
}

kc_status kc_mpi_node(MPI_Comm comm, const kc_mpi_machine *m, uint32_t *node, kc_err *err)
{
    kc_err e = {0};
    kc_status st = kci_mpi_agree(comm, where(comm, m, node, &e), &e);
    return kci_mpi_out(st, &e, err);
}

static kc_status placement(MPI_Comm comm, const kc_mpi_machine *m, uint32_t *node_of_rank, kc_err *err)
{
    uint32_t mine = 0;
    kc_status st = kci_mpi_agree(comm, where(comm, m, &mine, err), err);
    if (st)
        return st;
    int size = 0;
    MPI_Comm_size(comm, &size);
    if ((st = kci_mpi_check(MPI_Allgather(&mine, 1, MPI_UINT32_T, node_of_rank, 1, MPI_UINT32_T, comm),
                            "MPI_Allgather", err)))
        return st;
    /* Every process sees the same list, so every one finds the same clash. */
    uint32_t *owner = malloc(m->topo->nodes * sizeof *owner);
    if (!owner)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    for (uint64_t x = 0; x < m->topo->nodes; x++)
        owner[x] = UINT32_MAX;
    for (int r = 0; r < size && !st; r++) {
        uint32_t x = node_of_rank[r];
        if (owner[x] != UINT32_MAX)
            st = kc_fail_param(err, KC_EINVAL, "machine", "ranks %u and %d both run on node %u (host '%.64s' slot %u)",
                               owner[x], r, x, m->hosts->host_name[m->hosts->host[x]], m->hosts->slot[x]);
        owner[x] = (uint32_t)r;
    }
    free(owner);
    return st;
}

kc_status kc_mpi_placement(MPI_Comm comm, const kc_mpi_machine *m, uint32_t *node_of_rank, kc_err *err)
{
    kc_err e = {0};
    return kci_mpi_out(placement(comm, m, node_of_rank, &e), &e, err);
}

/* The placement, and the check that comm fills the machine. node_of_rank
 * gets comm's size entries (malloc'ed; NULL after an error). Collective;
 * the same status everywhere. */
static kc_status filled(MPI_Comm comm, const kc_mpi_machine *m, uint32_t **node_of_rank, kc_err *err)
{
    *node_of_rank = NULL;
    int size = 0;
    kc_status st = kci_mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size", err);
    if (!st)
        st = check_machine(m, err);
    if (!st && (uint64_t)size != m->topo->nodes)
        st = kc_fail_param(err, KC_EINVAL, "machine", "the communicator has %d processes, the machine %llu nodes: "
                           "a mapping needs one process on every node", size, (unsigned long long)m->topo->nodes);
    if (!st && !(*node_of_rank = malloc((size_t)size * sizeof **node_of_rank)))
        st = kc_fail(err, KC_ENOMEM, "out of memory");
    if ((st = kci_mpi_agree(comm, st, err)) || (st = placement(comm, m, *node_of_rank, err))) {
        free(*node_of_rank);
        *node_of_rank = NULL;
    }
    return st;
}

/* Broadcast rank 0's to_physical (checked there) and split comm so that
 * rank v is the process on node to_physical[v]: key v, one colour. tp is
 * N entries of scratch on every rank (rank 0: holds the mapping).
 * Collective. */
static kc_status split_by(MPI_Comm comm, const kc_mpi_machine *m, const uint32_t *node_of_rank, uint32_t *tp,
                          MPI_Comm *newcomm, kc_err *err)
{
    uint64_t n = m->topo->nodes;
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    kc_status st = KC_OK;
    uint32_t *inv = malloc(n * sizeof *inv);
    if (!inv)
        st = kc_fail(err, KC_ENOMEM, "out of memory");
    if (!st && rank == 0)
        st = kc_perm_invert(tp, inv, n, "mapping", err);
    if ((st = kci_mpi_agree(comm, st, err))) {
        free(inv);
        return st;
    }
    st = kci_mpi_check(MPI_Bcast(tp, (int)n, MPI_UINT32_T, 0, comm), "MPI_Bcast", err);
    if (!st && rank != 0)
        st = kc_perm_invert(tp, inv, n, "mapping", err);
    uint32_t v = st ? 0 : inv[node_of_rank[rank]];
    free(inv);
    if ((st = kci_mpi_agree(comm, st, err)))
        return st;
    return kci_mpi_check(MPI_Comm_split(comm, 0, (int)v, newcomm), "MPI_Comm_split", err);
}

kc_status kc_mpi_comm_remap(MPI_Comm comm, const kc_mpi_machine *m, const uint32_t *to_physical, MPI_Comm *newcomm,
                            kc_err *err)
{
    kc_err e = {0};
    uint32_t *node_of_rank = NULL, *tp = NULL;
    kc_status st = filled(comm, m, &node_of_rank, &e);
    if (st)
        return kci_mpi_out(st, &e, err);
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (!(tp = malloc(m->topo->nodes * sizeof *tp)))
        st = kc_fail(&e, KC_ENOMEM, "out of memory");
    else if (rank == 0 && !to_physical)
        st = kc_fail_param(&e, KC_EINVAL, "mapping", "rank 0 gave no mapping");
    else if (rank == 0)
        memcpy(tp, to_physical, m->topo->nodes * sizeof *tp);
    if (!(st = kci_mpi_agree(comm, st, &e)))
        st = split_by(comm, m, node_of_rank, tp, newcomm, &e);
    free(tp);
    free(node_of_rank);
    return kci_mpi_out(st, &e, err);
}

/* kcube map --traffic's computation (src/cli/map_general.c): the linear
 * communications found in the traffic as algebraic starts, then the
 * general mapper. tp gets the mapping. */
static kc_status map_traffic(const kc_mpi_machine *m, const kc_traffic *tr, uint32_t *tp, kc_err *err)
{
    kc_mapgen_opts o;
    if (m->map)
        o = *m->map;
    else
        kc_mapgen_opts_default(&o);
    kc_comm *found = malloc(KC_MAPGEN_MAX_FOUND * sizeof *found);
    if (!found)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    int nfound = 0;
    kc_mapgen_result res;
    memset(&res, 0, sizeof res);
    kc_status st = kc_mapgen_find_lcc(m->topo, tr, 0, tr->count, found, KC_MAPGEN_MAX_FOUND, &nfound, err);
    if (!st)
        st = kc_mapgen_run(m->topo, tr, found, nfound, &o, &res, err);
    if (!st)
        memcpy(tp, res.search.to_physical, m->topo->nodes * sizeof *tp);
    kc_mapgen_result_free(&res);
    free(found);
    return st;
}

/* On rank 0: map tr (built there; st its status so far) into tp; then
 * everyone agrees and splits. */
static kc_status map_and_split(MPI_Comm comm, const kc_mpi_machine *m, const uint32_t *node_of_rank, kc_traffic *tr,
                               kc_status st, MPI_Comm *newcomm, kc_err *err)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    uint32_t *tp = malloc(m->topo->nodes * sizeof *tp);
    if (!st && !tp)
        st = kc_fail(err, KC_ENOMEM, "out of memory");
    if (!st && rank == 0)
        st = map_traffic(m, tr, tp, err);
    if (!(st = kci_mpi_agree(comm, st, err)))
        st = split_by(comm, m, node_of_rank, tp, newcomm, err);
    free(tp);
    return st;
}

/* One vertex of the graph as ints: indegree, outdegree, sources, their
 * weights (when weighted), destinations, their weights (when weighted). */
static size_t pack_len(int in, int out, int weighted)
{
    return 2 + (size_t)(in + out) * (weighted ? 2 : 1);
}

/* The reordering's view of a distributed graph: every rank's packed lists
 * (pack_len), gathered on rank 0 by old rank and sent back by new rank. */
typedef struct graph_job {
    MPI_Comm comm;
    int size, rank, weighted;
    int len, *mine;             /* this rank's packed lists */
    int *lens, *displs, *all;   /* rank 0: every rank's, by old rank */
    int *sendlens, *senddispls; /* rank 0: the same, by new rank */
} graph_job;

static void graph_job_free(graph_job *g)
{
    free(g->mine);
    free(g->lens);
    free(g->displs);
    free(g->all);
    free(g->sendlens);
    free(g->senddispls);
}

/* This rank's arguments in range (degrees, ranks, weights >= 0); sets the
 * job's size and rank and *unweighted. Local: the caller agrees. */
static kc_status graph_check(graph_job *g, int indegree, const int *sources, const int *sourceweights, int outdegree,
                             const int *destinations, const int *destweights, int *unweighted, kc_err *e)
{
    kc_status st = kci_mpi_check(MPI_Comm_size(g->comm, &g->size), "MPI_Comm_size", e);
    MPI_Comm_rank(g->comm, &g->rank);
    int un = *unweighted = sourceweights == MPI_UNWEIGHTED || destweights == MPI_UNWEIGHTED;
    if (!st && (indegree < 0 || outdegree < 0 || indegree > INT_MAX / 4 - 1 || outdegree > INT_MAX / 4 - indegree))
        st = kc_fail_param(e, KC_EINVAL, "graph", "rank %d: degrees %d in, %d out", g->rank, indegree, outdegree);
    for (int i = 0; i < indegree && !st; i++)
        if (sources[i] < 0 || sources[i] >= g->size || (!un && sourceweights[i] < 0))
            st = kc_fail_param(e, KC_EINVAL, "graph", "rank %d: source %d (weight %d) out of range", g->rank,
                               sources[i], un ? 1 : sourceweights[i]);
    for (int i = 0; i < outdegree && !st; i++)
        if (destinations[i] < 0 || destinations[i] >= g->size || (!un && destweights[i] < 0))
            st = kc_fail_param(e, KC_EINVAL, "graph", "rank %d: destination %d (weight %d) out of range", g->rank,
                               destinations[i], un ? 1 : destweights[i]);
    return st;
}

/* Pack this rank's lists into g->mine, weighted only when every rank gave
 * weights (MPI needs all or none). Collective (one reduction). */
static kc_status graph_pack(graph_job *g, int unweighted, int indegree, const int *sources, const int *sourceweights,
                            int outdegree, const int *destinations, const int *destweights, kc_err *e)
{
    int any_unweighted = unweighted;
    kc_status st = kci_mpi_check(MPI_Allreduce(&unweighted, &any_unweighted, 1, MPI_INT, MPI_MAX, g->comm),
                                 "MPI_Allreduce", e);
    g->weighted = !any_unweighted;
    g->len = (int)pack_len(indegree, outdegree, g->weighted);
    if (!st && !(g->mine = malloc((size_t)g->len * sizeof *g->mine)))
        return kc_fail(e, KC_ENOMEM, "out of memory");
    if (st)
        return st;
    int *p = g->mine;
    *p++ = indegree;
    *p++ = outdegree;
    for (int i = 0; i < indegree; i++)
        *p++ = sources[i];
    for (int i = 0; g->weighted && i < indegree; i++)
        *p++ = sourceweights[i];
    for (int i = 0; i < outdegree; i++)
        *p++ = destinations[i];
    for (int i = 0; g->weighted && i < outdegree; i++)
        *p++ = destweights[i];
    return KC_OK;
}

/* Gather every rank's packed lists on rank 0 (g->lens, displs, all; at
 * most INT_MAX words in all). Collective; st is this rank's status so far. */
static kc_status graph_gather(graph_job *g, kc_status st, kc_err *e)
{
    if (!st && g->rank == 0 && (!(g->lens = malloc((size_t)g->size * sizeof *g->lens)) ||
                                !(g->displs = malloc((size_t)g->size * sizeof *g->displs))))
        st = kc_fail(e, KC_ENOMEM, "out of memory");
    if (!(st = kci_mpi_agree(g->comm, st, e)))
        st = kci_mpi_check(MPI_Gather(&g->len, 1, MPI_INT, g->lens, 1, MPI_INT, 0, g->comm), "MPI_Gather", e);
    long long total = 0;
    if (!st && g->rank == 0) {
        for (int r = 0; r < g->size; r++) {
            g->displs[r] = (int)total;
            total += g->lens[r];
        }
        if (total > INT_MAX)
            st = kc_fail_param(e, KC_ERANGE, "graph", "the graph has more than %d words", INT_MAX);
        else if (!(g->all = malloc((size_t)(total ? total : 1) * sizeof *g->all)))
            st = kc_fail(e, KC_ENOMEM, "out of memory");
    }
    if (!(st = kci_mpi_agree(g->comm, st, e)))
        st = kci_mpi_check(MPI_Gatherv(g->mine, g->len, MPI_INT, g->all, g->lens, g->displs, MPI_INT, 0, g->comm),
                           "MPI_Gatherv", e);
    return st;
}

/* Rank 0: the traffic of the out-edges (vertex r sends its weight in bytes
 * to each destination) into tr, which the caller frees. */
static kc_status graph_traffic(const graph_job *g, kc_traffic *tr, kc_err *e)
{
    kc_status st = kc_traffic_init(tr, (uint64_t)g->size, e);
    for (int r = 0; r < g->size && !st; r++) {
        const int *p = g->all + g->displs[r];
        int in = p[0], out = p[1];
        const int *dst = p + 2 + (g->weighted ? 2 : 1) * in, *w = dst + out;
        for (int i = 0; i < out && !st; i++)
            st = kc_traffic_add(tr, (uint64_t)r, (uint64_t)dst[i], g->weighted ? (uint64_t)w[i] : 1, e);
    }
    return st;
}

/* Vertex v's lists go to the process that is now rank v of split: *got
 * (freed by the caller) receives them. Collective over the old
 * communicator. */
static kc_status graph_scatter(graph_job *g, MPI_Comm split, int **got, kc_err *e)
{
    int v = 0, vlen = 0;
    kc_status st = kci_mpi_check(MPI_Comm_rank(split, &v), "MPI_Comm_rank", e);
    if (!st) {
        /* Every old rank's new rank, on rank 0. */
        int *newrank = g->rank == 0 ? malloc((size_t)g->size * sizeof *newrank) : NULL;
        if (g->rank == 0 && (!newrank || !(g->sendlens = malloc((size_t)g->size * sizeof *g->sendlens)) ||
                             !(g->senddispls = malloc((size_t)g->size * sizeof *g->senddispls))))
            st = kc_fail(e, KC_ENOMEM, "out of memory");
        if (!(st = kci_mpi_agree(g->comm, st, e)))
            st = kci_mpi_check(MPI_Gather(&v, 1, MPI_INT, newrank, 1, MPI_INT, 0, g->comm), "MPI_Gather", e);
        if (!st && g->rank == 0)
            for (int w = 0; w < g->size; w++) {
                g->sendlens[w] = g->lens[newrank[w]];
                g->senddispls[w] = g->displs[newrank[w]];
            }
        free(newrank);
    }
    if (!st)
        st = kci_mpi_check(MPI_Scatter(g->sendlens, 1, MPI_INT, &vlen, 1, MPI_INT, 0, g->comm), "MPI_Scatter", e);
    if (!st && !(*got = malloc((size_t)vlen * sizeof **got)))
        st = kc_fail(e, KC_ENOMEM, "out of memory");
    if (!(st = kci_mpi_agree(g->comm, st, e)))
        st = kci_mpi_check(MPI_Scatterv(g->all, g->sendlens, g->senddispls, MPI_INT, *got, vlen, MPI_INT, 0, g->comm),
                           "MPI_Scatterv", e);
    return st;
}

/* The graph communicator over split from this process's packed lists. */
static kc_status graph_create(MPI_Comm split, const int *got, int weighted, MPI_Info info, MPI_Comm *out, kc_err *e)
{
    int in = got[0], nout = got[1];
    const int *src = got + 2, *sw = src + in, *dst = src + (weighted ? 2 : 1) * in, *dw = dst + nout;
    if (!weighted)
        sw = dw = MPI_UNWEIGHTED;
    else {
        if (!in)
            sw = MPI_WEIGHTS_EMPTY;
        if (!nout)
            dw = MPI_WEIGHTS_EMPTY;
    }
    return kci_mpi_check(MPI_Dist_graph_create_adjacent(split, in, src, sw, nout, dst, dw, info, 0, out),
                         "MPI_Dist_graph_create_adjacent", e);
}

kc_status kc_mpi_dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int *sources,
                                            const int *sourceweights, int outdegree, const int *destinations,
                                            const int *destweights, MPI_Info info, int reorder,
                                            const kc_mpi_machine *m, MPI_Comm *comm_dist_graph, kc_err *err)
{
    kc_err e = {0};
    if (!reorder)
        return kci_mpi_out(kci_mpi_check(MPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights,
                                                                        outdegree, destinations, destweights, info, 0,
                                                                        comm_dist_graph),
                                         "MPI_Dist_graph_create_adjacent", &e),
                           &e, err);
    graph_job g = {.comm = comm_old};
    int unweighted = 0;
    kc_status st = graph_check(&g, indegree, sources, sourceweights, outdegree, destinations, destweights,
                               &unweighted, &e);
    if ((st = kci_mpi_agree(comm_old, st, &e)))
        return kci_mpi_out(st, &e, err);
    uint32_t *node_of_rank = NULL;
    if ((st = filled(comm_old, m, &node_of_rank, &e)))
        return kci_mpi_out(st, &e, err);
    st = graph_pack(&g, unweighted, indegree, sources, sourceweights, outdegree, destinations, destweights, &e);
    st = graph_gather(&g, st, &e);
    kc_traffic tr;
    memset(&tr, 0, sizeof tr);
    if (!st && g.rank == 0)
        st = graph_traffic(&g, &tr, &e);
    MPI_Comm split = MPI_COMM_NULL;
    if (!(st = kci_mpi_agree(comm_old, st, &e)))
        st = map_and_split(comm_old, m, node_of_rank, &tr, st, &split, &e);
    kc_traffic_free(&tr);
    int *got = NULL;
    if (!st)
        st = graph_scatter(&g, split, &got, &e);
    if (!st)
        st = graph_create(split, got, g.weighted, info, comm_dist_graph, &e);
    if (split != MPI_COMM_NULL)
        MPI_Comm_free(&split);
    free(got);
    graph_job_free(&g);
    free(node_of_rank);
    return kci_mpi_out(kci_mpi_agree(comm_old, st, &e), &e, err);
}

kc_status kc_mpi_cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                             const kc_mpi_machine *m, MPI_Comm *comm_cart, kc_err *err)
{
    kc_err e = {0};
    if (!reorder)
        return kci_mpi_out(kci_mpi_check(MPI_Cart_create(comm_old, ndims, dims, periods, 0, comm_cart),
                                         "MPI_Cart_create", &e),
                           &e, err);
    kc_status st = KC_OK;
    uint64_t points = 1;
    if (ndims < 1 || ndims > KC_TOPO_MAX_DIMS)
        st = kc_fail_param(&e, KC_EINVAL, "dims", "%d grid dimensions (1..%d)", ndims, KC_TOPO_MAX_DIMS);
    for (int i = 0; i < ndims && !st; i++) {
        if (dims[i] < 1)
            st = kc_fail_param(&e, KC_EINVAL, "dims", "grid side %d of dimension %d", dims[i], i);
        else if ((points *= (uint64_t)dims[i]) > INT_MAX)
            st = kc_fail_param(&e, KC_ERANGE, "dims", "the grid has more than %d points", INT_MAX);
    }
    if (!st && m && m->topo && points != m->topo->nodes)
        st = kc_fail_param(&e, KC_EINVAL, "dims", "the grid has %llu points, the machine %llu nodes",
                           (unsigned long long)points, (unsigned long long)m->topo->nodes);
    if ((st = kci_mpi_agree(comm_old, st, &e)))
        return kci_mpi_out(st, &e, err);
    uint32_t *node_of_rank = NULL;
    if ((st = filled(comm_old, m, &node_of_rank, &e)))
        return kci_mpi_out(st, &e, err);
    int rank = 0;
    MPI_Comm_rank(comm_old, &rank);
    /* Rank 0: the halo. Point v's coordinates in MPI's row-major order. */
    kc_traffic tr;
    memset(&tr, 0, sizeof tr);
    if (rank == 0 && !(st = kc_traffic_init(&tr, points, &e)))
        for (uint64_t v = 0; v < points && !st; v++) {
            uint64_t stride = 1;
            for (int i = ndims - 1; i >= 0 && !st; i--) {
                uint64_t c = v / stride % (uint64_t)dims[i];
                for (int dir = -1; dir <= 1 && !st; dir += 2) {
                    int64_t to = (int64_t)c + dir;
                    if (to < 0 || to >= dims[i]) {
                        if (!periods[i])
                            continue;
                        to = (to + dims[i]) % dims[i];
                    }
                    if ((uint64_t)to != c)
                        st = kc_traffic_add(&tr, v, v + ((uint64_t)to - c) * stride, 1, &e);
                }
                stride *= (uint64_t)dims[i];
            }
        }
    MPI_Comm split = MPI_COMM_NULL;
    st = map_and_split(comm_old, m, node_of_rank, &tr, st, &split, &e);
    kc_traffic_free(&tr);
    if (!st)
        st = kci_mpi_check(MPI_Cart_create(split, ndims, dims, periods, 0, comm_cart), "MPI_Cart_create", &e);
    if (split != MPI_COMM_NULL)
        MPI_Comm_free(&split);
    free(node_of_rank);
    return kci_mpi_out(kci_mpi_agree(comm_old, st, &e), &e, err);
}
