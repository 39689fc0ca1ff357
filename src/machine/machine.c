/* Machine descriptions: reading, rules, and the launchers' files
 * (kcube/machine.h). Host names are interned in a hash table while reading,
 * so a description of N nodes costs O(N) whatever the number of hosts. */
#include "kcube/machine.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

#define PARAM "machine"

static const kc_name fill_entries[] = {
    {KC_FILL_FIRST_AXIS, "first-axis", "axis 0 varies fastest: nodes 0..R-1 share the first host"},
    {KC_FILL_LAST_AXIS, "last-axis", "axis n-1 varies fastest (row-major order of the coordinates)"},
    {0, NULL, NULL},
};
const kc_names kc_machine_fill_names = {"fill order", fill_entries};

static const kc_name export_entries[] = {
    {KC_EXPORT_NODELIST, "nodelist", "line v: the physical node of rank v (kcube simulate --mapping FILE)"},
    {KC_EXPORT_OMPI_RANKFILE, "openmpi-rankfile", "rank v=HOST slot=S (mpirun -rf FILE; Open MPI 5: --map-by "
                                                  "rankfile:file=FILE)"},
    {KC_EXPORT_MPICH_RANK_ORDER, "mpich-rank-order", "MPICH_RANK_ORDER for HPE Cray MPICH with "
                                                     "MPICH_RANK_REORDER_METHOD=3"},
    {KC_EXPORT_SLURM_HOSTFILE, "slurm-hostfile", "line v: the host of rank v (SLURM_HOSTFILE, srun "
                                                 "--distribution=arbitrary)"},
    {KC_EXPORT_SCOTCH_MAP, "scotch-map", "Scotch's .map: the count, then 'rank node' lines"},
    {KC_EXPORT_BGQ_MAPFILE, "bgq-mapfile", "line v: rank v's router coordinates, axis 0 first, then its endpoint T "
                                           "(Blue Gene/Q runjob --mapping FILE)"},
    {KC_EXPORT_FUJITSU_RANKMAP, "fujitsu-rankmap", "line v: (x,y,..) rank v's router coordinates (Fujitsu MPI "
                                                   "rank-map file, pjsub --mpi rank-map-hostfile=FILE)"},
    {0, NULL, NULL},
};
const kc_names kc_export_format_names = {"export format", export_entries};

int kc_export_needs_machine(kc_export_format f)
{
    return f == KC_EXPORT_OMPI_RANKFILE || f == KC_EXPORT_MPICH_RANK_ORDER || f == KC_EXPORT_SLURM_HOSTFILE;
}

int kc_export_needs_topology(kc_export_format f)
{
    return f == KC_EXPORT_BGQ_MAPFILE || f == KC_EXPORT_FUJITSU_RANKMAP;
}

static int host_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
           c == '_';
}

/* Labels as in RFC 1123 (plus '_', which cluster host names use): dots
 * only between non-empty labels, no label starting or ending with '-';
 * not all digits, which a launcher would read as a number. */
int kc_host_valid(const char *name, size_t len)
{
    int digits = 1;
    if (len == 0 || len > KC_HOST_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (!host_char((unsigned char)name[i]))
            return 0;
        int first = i == 0 || name[i - 1] == '.', last = i + 1 == len || name[i + 1] == '.';
        if ((name[i] == '.' && (first || last)) || (name[i] == '-' && (first || last)))
            return 0;
        digits &= name[i] >= '0' && name[i] <= '9';
    }
    return !digits;
}

void kc_machine_free(kc_machine *m)
{
    if (!m)
        return;
    free(m->host_name);
    free(m->host);
    free(m->slot);
    free(m->arena);
    memset(m, 0, sizeof *m);
}

/* ---- building: interned host names and per-host slot sets ------------------------ */

typedef struct builder {
    kc_machine *m;
    size_t arena_len, arena_cap;
    size_t *name_off;       /* per host: offset of its name in the arena */
    uint32_t *next_slot;    /* per host: the slot a node without SLOT takes */
    uint8_t **used;         /* per host: slots taken (bit set), grown on demand */
    uint32_t *used_cap;     /* per host: bytes of used[] */
    uint32_t hosts_cap;
    uint32_t *table;        /* hash table of host index + 1 (0: empty) */
    size_t table_size;      /* a power of two */
} builder;

static uint64_t hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static void builder_free(builder *b)
{
    for (uint32_t h = 0; b->used && h < b->m->nhosts; h++)
        free(b->used[h]);
    free(b->used);
    free(b->used_cap);
    free(b->name_off);
    free(b->next_slot);
    free(b->table);
}

static kc_status builder_init(builder *b, kc_machine *m, uint64_t nodes, kc_err *err)
{
    memset(b, 0, sizeof *b);
    memset(m, 0, sizeof *m);
    b->m = m;
    m->nodes = nodes;
    b->table_size = 1024;
    m->host = malloc(nodes * sizeof *m->host);
    m->slot = malloc(nodes * sizeof *m->slot);
    b->table = calloc(b->table_size, sizeof *b->table);
    if (!m->host || !m->slot || !b->table)
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory for a machine of %llu nodes",
                             (unsigned long long)nodes);
    return KC_OK;
}

static const char *name_at(const builder *b, uint32_t h) { return b->m->arena + b->name_off[h]; }

static kc_status grow_table(builder *b, kc_err *err)
{
    size_t size = b->table_size * 2;
    uint32_t *t = calloc(size, sizeof *t);
    if (!t)
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory");
    for (uint32_t h = 0; h < b->m->nhosts; h++) {
        const char *s = name_at(b, h);
        size_t i = hash(s, strlen(s)) & (size - 1);
        while (t[i])
            i = (i + 1) & (size - 1);
        t[i] = h + 1;
    }
    free(b->table);
    b->table = t;
    b->table_size = size;
    return KC_OK;
}

/* The host named name[0..len) (valid), added when new. */
static kc_status intern(builder *b, const char *name, size_t len, uint32_t *out, kc_err *err)
{
    size_t i = hash(name, len) & (b->table_size - 1);
    for (; b->table[i]; i = (i + 1) & (b->table_size - 1)) {
        const char *s = name_at(b, b->table[i] - 1);
        if (strncmp(s, name, len) == 0 && s[len] == '\0') {
            *out = b->table[i] - 1;
            return KC_OK;
        }
    }
    kc_machine *m = b->m;
    if (m->nhosts == b->hosts_cap) {
        uint32_t cap = b->hosts_cap ? 2 * b->hosts_cap : 64;
        if (KCI_RESIZE(b->name_off, cap) || KCI_RESIZE(b->next_slot, cap) || KCI_RESIZE(b->used, cap) ||
            KCI_RESIZE(b->used_cap, cap))
            return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory");
        b->hosts_cap = cap;
    }
    if (KCI_RESERVE(m->arena, b->arena_cap, b->arena_len + len + 1, 4096))
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory");
    uint32_t h = m->nhosts++;
    b->name_off[h] = b->arena_len;
    memcpy(m->arena + b->arena_len, name, len);
    m->arena[b->arena_len + len] = '\0';
    b->arena_len += len + 1;
    b->next_slot[h] = 0;
    b->used[h] = NULL;
    b->used_cap[h] = 0;
    b->table[i] = h + 1;
    *out = h;
    if (2 * (size_t)m->nhosts > b->table_size)
        return grow_table(b, err);
    return KC_OK;
}

/* Take slot s of host h: 1 when it was free, 0 when taken, -1 out of memory. */
static int take_slot(builder *b, uint32_t h, uint32_t s)
{
    uint32_t byte = s / 8;
    if (byte >= b->used_cap[h]) {
        size_t cap = b->used_cap[h]; /* byte < 2^29: the capacity fits its uint32_t */
        if (KCI_RESERVE(b->used[h], cap, (size_t)byte + 1, 8))
            return -1;
        memset(b->used[h] + b->used_cap[h], 0, cap - b->used_cap[h]);
        b->used_cap[h] = (uint32_t)cap;
    }
    if (b->used[h][byte] & (1u << (s % 8)))
        return 0;
    b->used[h][byte] |= (uint8_t)(1u << (s % 8));
    if (s >= b->next_slot[h])
        b->next_slot[h] = s + 1;
    return 1;
}

/* The final name pointers (the arena no longer moves). */
static kc_status builder_finish(builder *b, kc_err *err)
{
    kc_machine *m = b->m;
    m->host_name = malloc((m->nhosts ? m->nhosts : 1) * sizeof *m->host_name);
    if (!m->host_name)
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory");
    for (uint32_t h = 0; h < m->nhosts; h++)
        m->host_name[h] = m->arena + b->name_off[h];
    return KC_OK;
}

/* A description covers every endpoint (every router when C = 1). */
static kc_status check_topology(const kc_topology *t, kc_err *err)
{
    kc_status s = kc_topology_validate(t, err);
    if (s)
        return s;
    char nb[24];
    if (t->nodes > KC_MACHINE_MAX_NODES)
        return kc_fail_param(err, KC_ERANGE, PARAM, "machine descriptions cover up to %llu nodes, the network has %s",
                             (unsigned long long)KC_MACHINE_MAX_NODES, kc_topology_nodes_text(t, nb, sizeof nb));
    if (kc_topology_endpoint_count(t) > KC_MACHINE_MAX_NODES)
        return kc_fail_param(err, KC_ERANGE, PARAM, "machine descriptions cover up to %llu endpoints, the network has "
                             "%llu", (unsigned long long)KC_MACHINE_MAX_NODES,
                             (unsigned long long)kc_topology_endpoint_count(t));
    return KC_OK;
}

/* ---- the file ------------------------------------------------------------------------ */

static kc_status read_lines(builder *b, kc_reader *r, const kc_topology *t, uint32_t *line_of, kc_err *err)
{
    kc_token tok[KC_TOPO_MAX_DIMS + 3];
    uint64_t conc = (uint64_t)kc_topology_conc(t);
    int with_t = conc > 1; /* the coordinate form names the endpoint T of the router too */
    int max = t->n + 2 + with_t > 3 ? t->n + 2 + with_t : 3;
    char topo[96];
    kc_topology_format(t, topo, sizeof topo);
    for (;;) {
        int got;
        kc_status s = kc_reader_words(r, tok, max, &got, err);
        if (s || got == 0)
            return s;
        int by_id = tok[0].len > 0 && tok[0].text[0] >= '0' && tok[0].text[0] <= '9';
        int hi = by_id ? 1 : 0, fields = by_id ? 2 : t->n + 1 + with_t;
        if (got < fields || got > fields + 1) {
            if (by_id)
                return kc_fail_param(err, KC_EINVAL, PARAM, "%s, line %ld: a line starting with a node id is NODE "
                                     "HOST [SLOT] (2 or 3 fields), found %d", kc_reader_name(r), tok[0].line, got);
            return kc_fail_param(err, KC_EINVAL, PARAM, "%s, line %ld: a line starting with a host is HOST and the "
                                 "%d coordinates of a node of the %s%s, then an optional SLOT; found %d field%s",
                                 kc_reader_name(r), tok[0].line, t->n, topo, with_t ? " and its endpoint T" : "", got,
                                 got == 1 ? "" : "s");
        }
        uint64_t x = 0;
        if (by_id) {
            if ((s = kc_reader_word_number(r, &tok[0], kc_topology_endpoint_count(t) - 1,
                                           with_t ? "endpoint of the network" : "node of the network", err)))
                return s;
            x = tok[0].value;
        } else {
            uint64_t stride = 1;
            for (int i = 0; i < t->n; i++) {
                if ((s = kc_reader_word_number(r, &tok[1 + i], (uint64_t)t->side[i] - 1, "coordinate", err)))
                    return s;
                x += tok[1 + i].value * stride;
                stride *= (uint64_t)t->side[i];
            }
            if (with_t && (s = kc_reader_word_number(r, &tok[1 + t->n], conc - 1, "endpoint T", err)))
                return s;
            x = x * conc + (with_t ? tok[1 + t->n].value : 0);
        }
        if (!kc_host_valid(tok[hi].text, tok[hi].len))
            return kc_reader_fail_token(r, &tok[hi], KC_EINVAL, err,
                                        "is not a host name (labels of letters, digits, '-', '_' between dots, "
                                        "no label empty or starting or ending with '-', not all digits, at most "
                                        "%d bytes)", KC_HOST_MAX);
        if (line_of[x])
            return kc_reader_fail_token(r, &tok[by_id ? 0 : 1], KC_EINVAL, err,
                                        "node %llu is listed twice (first on line %lu)", (unsigned long long)x,
                                        (unsigned long)line_of[x]);
        line_of[x] = (uint32_t)(tok[0].line > 0xffffffffL ? 0xffffffffL : tok[0].line);
        uint32_t h;
        if ((s = intern(b, tok[hi].text, tok[hi].len, &h, err)))
            return s;
        uint32_t slot;
        const kc_token *where = &tok[hi];
        if (got == fields + 1) {
            where = &tok[fields];
            if ((s = kc_reader_word_number(r, &tok[fields], KC_SLOT_MAX, "slot", err)))
                return s;
            slot = (uint32_t)tok[fields].value;
        } else {
            slot = b->next_slot[h];
            if (slot > KC_SLOT_MAX)
                return kc_reader_fail_token(r, where, KC_EINVAL, err, "has more than %d slots", KC_SLOT_MAX + 1);
        }
        int fresh = take_slot(b, h, slot);
        if (fresh < 0)
            return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory");
        if (!fresh) {
            char q[KC_ESCAPE_SIZE];
            return kc_reader_fail_token(r, where, KC_EINVAL, err, "gives node %llu slot %u of host '%s', already "
                                        "another node's", (unsigned long long)x, slot,
                                        kc_escape(q, sizeof q, tok[hi].text, tok[hi].len));
        }
        b->m->host[x] = h;
        b->m->slot[x] = slot;
    }
}

kc_status kc_machine_read(kc_machine *m, kc_reader *r, const kc_topology *t, kc_err *err)
{
    memset(m, 0, sizeof *m);
    kc_status s = check_topology(t, err);
    if (s)
        return s;
    builder b;
    uint64_t count = kc_topology_endpoint_count(t);
    uint32_t *line_of = calloc(count, sizeof *line_of);
    if (!line_of)
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory");
    s = builder_init(&b, m, count, err);
    if (!s)
        s = read_lines(&b, r, t, line_of, err);
    for (uint64_t x = 0; !s && x < count; x++)
        if (!line_of[x]) {
            char topo[96];
            s = kc_fail_param(err, KC_EINVAL, PARAM, "%s: node %llu is missing (every node of the %s is listed once: "
                              "%llu nodes)", kc_reader_name(r), (unsigned long long)x,
                              kc_topology_format(t, topo, sizeof topo), (unsigned long long)count);
        }
    if (!s)
        s = builder_finish(&b, err);
    builder_free(&b);
    free(line_of);
    if (s)
        kc_machine_free(m);
    return s;
}

kc_status kc_machine_read_path(kc_machine *m, const char *path, const kc_topology *t, kc_err *err)
{
    memset(m, 0, sizeof *m);
    kc_reader *r;
    kc_status s = kc_reader_open(&r, path, "machine file", PARAM, NULL, err);
    if (s)
        return s;
    s = kc_machine_read(m, r, t, err);
    kc_reader_close(r);
    return s;
}

/* ---- the rule ------------------------------------------------------------------------- */

/* Parse the pattern: the literal text around at most one %d conversion.
 * *conv = 1 when there is one; width and zero its form. */
static kc_status parse_pattern(const char *p, int *conv, int *width, int *zero, kc_err *err)
{
    *conv = *width = *zero = 0;
    char q[KC_ESCAPE_SIZE];
    for (size_t i = 0; p[i]; i++) {
        if (p[i] != '%') {
            if (!host_char((unsigned char)p[i]))
                return kc_fail_param(err, KC_EINVAL, "hosts", "host pattern '%s': character %zu is not in a host name "
                                     "(letters, digits, '.', '-', '_')", kc_escape(q, sizeof q, p, strlen(p)), i + 1);
            continue;
        }
        size_t j = i + 1;
        int z = p[j] == '0', w = 0;
        j += (size_t)z;
        while (p[j] >= '0' && p[j] <= '9' && w < 100)
            w = w * 10 + (p[j++] - '0');
        if (p[j] != 'd' || w > KC_HOST_MAX || (z && w == 0))
            return kc_fail_param(err, KC_EINVAL, "hosts", "host pattern '%s': only %%d, %%Nd and %%0Nd are understood "
                                 "(at character %zu)", kc_escape(q, sizeof q, p, strlen(p)), i + 1);
        if (*conv)
            return kc_fail_param(err, KC_EINVAL, "hosts", "host pattern '%s' has more than one %%d",
                                 kc_escape(q, sizeof q, p, strlen(p)));
        *conv = 1;
        *width = w;
        *zero = z;
        i = j;
    }
    return KC_OK;
}

kc_status kc_host_expand(char *out, size_t size, const char *pattern, uint64_t index, kc_err *err)
{
    int conv, width, zero;
    kc_status s = parse_pattern(pattern, &conv, &width, &zero, err);
    if (s)
        return s;
    char digits[24];
    int nd = 0;
    do
        digits[nd++] = (char)('0' + index % 10);
    while ((index /= 10) > 0);
    size_t o = 0;
    char q[KC_ESCAPE_SIZE], made[KC_ESCAPE_SIZE];
#define PUT(c)                                                                                                       \
    do {                                                                                                             \
        if (o + 1 >= size || o >= KC_HOST_MAX)                                                                       \
            return kc_fail_param(err, KC_EINVAL, "hosts", "host pattern '%s' makes names longer than %d bytes",      \
                                 kc_escape(q, sizeof q, pattern, strlen(pattern)), KC_HOST_MAX);                     \
        out[o++] = (c);                                                                                              \
    } while (0)
    for (size_t i = 0; pattern[i]; i++) {
        if (pattern[i] != '%') {
            PUT(pattern[i]);
            continue;
        }
        while (pattern[i] != 'd')
            i++;
        for (int pad = nd; pad < width; pad++)
            PUT(zero ? '0' : ' ');
        for (int d = nd - 1; d >= 0; d--)
            PUT(digits[d]);
    }
#undef PUT
    out[o] = '\0';
    if (!kc_host_valid(out, o))
        return kc_fail_param(err, KC_EINVAL, "hosts", "host pattern '%s' makes '%s', not a host name (labels of letters, "
                             "digits, '-', '_' between dots, no label empty or starting or ending "
                             "with '-', not all digits)", kc_escape(q, sizeof q, pattern, strlen(pattern)),
                             kc_escape(made, sizeof made, out, o));
    return KC_OK;
}

kc_status kc_machine_rule(kc_machine *m, const kc_topology *t, const char *pattern, uint32_t per_host, uint64_t first,
                          kc_machine_fill fill, kc_err *err)
{
    memset(m, 0, sizeof *m);
    kc_status s = check_topology(t, err);
    if (s)
        return s;
    if (per_host < 1 || per_host > KC_SLOT_MAX + 1)
        return kc_fail_param(err, KC_ERANGE, "ranks_per_node", "%u slots per host: 1..%d", per_host, KC_SLOT_MAX + 1);
    uint64_t count = kc_topology_endpoint_count(t), conc = (uint64_t)kc_topology_conc(t);
    uint64_t hosts = (count + per_host - 1) / per_host;
    int conv, width, zero;
    if ((s = parse_pattern(pattern, &conv, &width, &zero, err)))
        return s;
    char q[KC_ESCAPE_SIZE];
    if (!conv && hosts > 1)
        return kc_fail_param(err, KC_EINVAL, "hosts", "host pattern '%s' names one host, but %llu nodes at %u a host "
                             "need %llu: put %%d where the host number goes", kc_escape(q, sizeof q, pattern,
                             strlen(pattern)), (unsigned long long)count, per_host, (unsigned long long)hosts);
    if (first > UINT64_MAX - hosts)
        return kc_fail_param(err, KC_ERANGE, "first_host", "host numbers would pass 2^64");
    builder b;
    s = builder_init(&b, m, count, err);
    /* Hosts numbered in order (distinct numbers make distinct names). */
    char name[KC_HOST_MAX + 1];
    for (uint64_t h = 0; !s && h < hosts; h++) {
        uint32_t idx;
        if (!(s = kc_host_expand(name, sizeof name, pattern, first + h, err)))
            s = intern(&b, name, strlen(name), &idx, err);
    }
    /* Endpoint x is endpoint x % C of router x / C: a router's endpoints
     * stay consecutive in either order. */
    for (uint64_t x = 0; !s && x < count; x++) {
        uint64_t p = x;
        if (fill == KC_FILL_LAST_AXIS) {
            p = 0;
            for (int i = 0; i < t->n; i++)
                p = p * (uint64_t)t->side[i] + kc_topology_coord(t, x / conc, i);
            p = p * conc + x % conc;
        }
        m->host[x] = (uint32_t)(p / per_host);
        m->slot[x] = (uint32_t)(p % per_host);
    }
    if (!s)
        s = builder_finish(&b, err);
    builder_free(&b);
    if (s)
        kc_machine_free(m);
    return s;
}

/* ---- exporters ---------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The ranks in placement order: hosts in description order, slots ascending
 * (only the endpoints that hold a rank; with every endpoint used this is
 * every node's rank). */
static kc_status mpich(FILE *out, const uint32_t *to_physical, uint64_t count, const kc_machine *m, kc_err *err)
{
    uint64_t *key = malloc(count * sizeof *key);
    if (!key)
        return kc_fail_param(err, KC_ENOMEM, "mapping", "out of memory");
    /* host < 2^24, slot < 2^16, rank < 2^24: one 64-bit key. */
    for (uint64_t v = 0; v < count; v++)
        key[v] = (uint64_t)m->host[to_physical[v]] << 40 | (uint64_t)m->slot[to_physical[v]] << 24 | v;
    qsort(key, count, sizeof *key, cmp_u64);
    fprintf(out, "# MPICH_RANK_ORDER written by kcube (MPICH_RANK_REORDER_METHOD=3): the ranks in placement order,\n"
                 "# one line per host in the order of the job's node list, slots ascending.\n");
    for (uint64_t i = 0; i < count; i++) {
        uint32_t v = (uint32_t)(key[i] & 0xffffff), h = (uint32_t)(key[i] >> 40);
        int last_of_host = i + 1 == count || (uint32_t)(key[i + 1] >> 40) != h;
        fprintf(out, "%u%s", v, last_of_host ? "\n" : ",");
    }
    free(key);
    return KC_OK;
}

/* Rank by rank, its router's coordinates (axis 0 first): the Blue Gene/Q
 * mapfile adds the endpoint index T, the Fujitsu rank map writes them as a
 * parenthesised, comma-separated tuple. */
static void coordinates(FILE *out, kc_export_format f, const kc_topology *t, const uint32_t *to_physical,
                        uint64_t count)
{
    uint64_t conc = (uint64_t)kc_topology_conc(t);
    for (uint64_t v = 0; v < count; v++) {
        uint64_t router = to_physical[v] / conc;
        if (f == KC_EXPORT_FUJITSU_RANKMAP)
            fputc('(', out);
        for (int i = 0; i < t->n; i++)
            fprintf(out, f == KC_EXPORT_FUJITSU_RANKMAP ? (i ? ",%u" : "%u") : (i ? " %u" : "%u"),
                    kc_topology_coord(t, router, i));
        if (f == KC_EXPORT_FUJITSU_RANKMAP)
            fputs(")\n", out);
        else
            fprintf(out, " %llu\n", (unsigned long long)(to_physical[v] % conc));
    }
}

/* The mapping's checks: count ranks on distinct endpoints < total, each on
 * a router of t's allocation when it has one (t may be NULL: total = count,
 * no allocation). */
static kc_status check_mapping(const kc_topology *t, const uint32_t *to_physical, uint64_t count, uint64_t total,
                               kc_err *err)
{
    uint8_t *seen = calloc(total, 1), *allowed = NULL;
    if (!seen)
        return kc_fail_param(err, KC_ENOMEM, "mapping", "out of memory");
    uint64_t conc = t ? (uint64_t)kc_topology_conc(t) : 1;
    if (t && t->alloc && (allowed = calloc(t->nodes, 1)))
        for (uint32_t i = 0; i < t->alloc_count; i++)
            allowed[t->alloc[i]] = 1;
    kc_status s = t && t->alloc && !allowed ? kc_fail_param(err, KC_ENOMEM, "mapping", "out of memory") : KC_OK;
    for (uint64_t v = 0; !s && v < count; v++) {
        if (to_physical[v] >= total || seen[to_physical[v]])
            s = kc_fail_param(err, KC_EINVAL, "mapping", "the mapping is not a permutation (rank %llu -> node %u)",
                              (unsigned long long)v, to_physical[v]);
        else if (allowed && !allowed[to_physical[v] / conc])
            s = kc_fail_param(err, KC_EINVAL, "mapping", "rank %llu is on endpoint %u, whose router %llu is not in "
                              "the allocation", (unsigned long long)v, to_physical[v],
                              (unsigned long long)(to_physical[v] / conc));
        else
            seen[to_physical[v]] = 1;
    }
    free(seen);
    free(allowed);
    return s;
}

static kc_status write_format(FILE *out, kc_export_format f, const kc_topology *t, const uint32_t *to_physical,
                              uint64_t count, const kc_machine *m, kc_err *err)
{
    switch (f) {
    case KC_EXPORT_NODELIST:
        for (uint64_t v = 0; v < count; v++)
            fprintf(out, "%u\n", to_physical[v]);
        return KC_OK;
    case KC_EXPORT_OMPI_RANKFILE:
        for (uint64_t v = 0; v < count; v++)
            fprintf(out, "rank %llu=%s slot=%u\n", (unsigned long long)v, m->host_name[m->host[to_physical[v]]],
                    m->slot[to_physical[v]]);
        return KC_OK;
    case KC_EXPORT_MPICH_RANK_ORDER:
        return mpich(out, to_physical, count, m, err);
    case KC_EXPORT_SLURM_HOSTFILE:
        for (uint64_t v = 0; v < count; v++)
            fprintf(out, "%s\n", m->host_name[m->host[to_physical[v]]]);
        return KC_OK;
    case KC_EXPORT_SCOTCH_MAP:
        fprintf(out, "%llu\n", (unsigned long long)count);
        for (uint64_t v = 0; v < count; v++)
            fprintf(out, "%llu\t%u\n", (unsigned long long)v, to_physical[v]);
        return KC_OK;
    case KC_EXPORT_BGQ_MAPFILE:
    case KC_EXPORT_FUJITSU_RANKMAP:
        coordinates(out, f, t, to_physical, count);
        return KC_OK;
    default:
        return kc_fail_param(err, KC_EINVAL, "export", "unknown export format %d", (int)f);
    }
}

kc_status kc_export_write_net(FILE *out, kc_export_format f, const kc_topology *t, const uint32_t *to_physical,
                              uint64_t count, const kc_machine *m, kc_err *err)
{
    uint64_t total = t ? kc_topology_endpoint_count(t) : count;
    uint64_t most = t ? kc_topology_slots(t) : count;
    if (count == 0 || count > KC_MACHINE_MAX_NODES || count > most)
        return kc_fail_param(err, KC_ERANGE, "mapping", "a mapping of %llu ranks (1..%llu)", (unsigned long long)count,
                             (unsigned long long)(most < KC_MACHINE_MAX_NODES ? most : KC_MACHINE_MAX_NODES));
    if (total > KC_MACHINE_MAX_NODES)
        return kc_fail_param(err, KC_ERANGE, "mapping", "exports cover networks of up to %llu endpoints",
                             (unsigned long long)KC_MACHINE_MAX_NODES);
    if (kc_export_needs_machine(f) && !m)
        return kc_fail_param(err, KC_EINVAL, PARAM, "the %s format names hosts: it needs a machine description",
                             kc_names_name(&kc_export_format_names, f));
    if (kc_export_needs_topology(f) && !t)
        return kc_fail_param(err, KC_EINVAL, "export", "the %s format writes coordinates: it needs the network",
                             kc_names_name(&kc_export_format_names, f));
    if (m && m->nodes != total)
        return kc_fail_param(err, KC_EINVAL, PARAM, "the machine has %llu nodes, the mapping %llu ranks",
                             (unsigned long long)m->nodes, (unsigned long long)total);
    kc_status s = check_mapping(t, to_physical, count, total, err);
    if (!s)
        s = write_format(out, f, t, to_physical, count, m, err);
    if (!s && ferror(out))
        s = kc_fail_param(err, KC_EIO, "out", "writing the %s failed", kc_names_name(&kc_export_format_names, f));
    return s;
}

kc_status kc_export_write(FILE *out, kc_export_format f, const uint32_t *to_physical, uint64_t count,
                          const kc_machine *m, kc_err *err)
{
    return kc_export_write_net(out, f, NULL, to_physical, count, m, err);
}
