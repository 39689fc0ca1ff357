/* kcube export: a saved mapping (a node list, as kcube map --out writes it)
 * as the file an MPI launcher or Scotch reads, placed by a machine
 * description (kcube/machine.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export_cli.h"
#include "options.h"
#include "out.h"
#include "network_cli.h"
#include "plan_cli.h"
#include "kcube/machine.h"
#include "kcube/reader.h"

static const cli_use export_opts[] = {
    {&OPT_N, NULL, NULL},
    {&OPT_K, NULL, NULL},
    {&OPT_TOPOLOGY, NULL, NULL},
    {&OPT_SHAPE, NULL, NULL},
    {&OPT_TIE, NULL, NULL},
    {&OPT_NETWORK, NULL, NULL},
    {&OPT_WRAP, NULL, NULL},
    {&OPT_ENDPOINTS, NULL, NULL},
    {&OPT_NODES, NULL, NULL},
    {&OPT_MAPPING, "the node list to export (kcube map --out FILE writes one: line v is the physical node of "
                   "rank v)", CLI_REQUIRED},
    {&OPT_FORMAT, NULL, CLI_REQUIRED},
    {&OPT_MACHINE, NULL, NULL},
    {&OPT_HOSTS, NULL, NULL},
    {&OPT_SLOTS_PER_HOST, NULL, NULL},
    {&OPT_FILL, NULL, NULL},
    {&OPT_FIRST_HOST, NULL, NULL},
    {&OPT_OUT, "where to write the file ('-': standard output)", "-"},
    {NULL, NULL, NULL},
};

static const cli_alias export_aliases[] = {
    {"ranks-per-node", &OPT_SLOTS_PER_HOST, NULL, NULL, "old spelling of --slots-per-host"},
    {NULL, NULL, NULL, NULL, NULL},
};

static const cli_narrow export_narrow[] = {{&OPT_MAPPING, NULL, "FILE"}, {&OPT_TIE, "plus|minus|split", NULL}, {NULL, NULL, NULL}};

typedef struct export_job {
    plan_input in;
    cli_export exp;
    const char *mapping;
} export_job;

static int resolve(const cli_args *a, export_job *j)
{
    memset(j, 0, sizeof *j);
    int r = plan_resolve(a, PLAN_COMMS_OPTIONAL, &j->in);
    if (r)
        return r;
    /* --mapping and --format are required (the parser saw them given). */
    j->mapping = cli_text(a, &OPT_MAPPING, "none");
    if (strcmp(j->mapping, "none") == 0)
        return cli_error("%s needs --mapping FILE (a node list, as kcube map --out writes it)", a->path);
    char nb[24];
    if (j->in.topo.nodes > KC_MACHINE_MAX_NODES)
        return cli_error("%s covers up to %llu nodes, the network has %s", a->path,
                         (unsigned long long)KC_MACHINE_MAX_NODES, kc_topology_nodes_text(&j->in.topo, nb, sizeof nb));
    if (kc_topology_endpoint_count(&j->in.topo) > KC_MACHINE_MAX_NODES)
        return cli_error("%s covers up to %llu endpoints, the network has %llu", a->path,
                         (unsigned long long)KC_MACHINE_MAX_NODES,
                         (unsigned long long)kc_topology_endpoint_count(&j->in.topo));
    const char *out = cli_text(a, &OPT_OUT, "-");
    if ((r = cli_export_resolve(a, &OPT_FORMAT, &j->in.topo, out, 1, &j->exp)))
        return r;
    return cli_check_output(out);
}

static void job_free(export_job *j)
{
    cli_export_free(&j->exp);
    plan_input_free(&j->in);
}

static int check(const cli_args *a)
{
    export_job j;
    int r = resolve(a, &j);
    job_free(&j);
    return r;
}

/* The mapping file on a general network: one endpoint per line, as many
 * lines as ranks (up to the slots); the export checks them further. */
static kc_status read_endpoints(kc_reader *rd, const kc_topology *t, uint32_t *nodes, uint32_t *count, kc_err *err)
{
    uint64_t total = kc_topology_endpoint_count(t), most = kc_topology_slots(t);
    *count = 0;
    for (;;) {
        kc_token tok;
        int have = 0;
        kc_status s = kc_reader_record(rd, &tok, 1, "endpoint", &have, err);
        if (s || !have)
            return s;
        if ((s = kc_reader_check(rd, &tok, total - 1, "network endpoint", err)))
            return s;
        if (*count == most)
            return kc_reader_fail_token(rd, &tok, KC_EINVAL, err, "is one rank too many: the network has %llu slots",
                                        (unsigned long long)most);
        nodes[(*count)++] = (uint32_t)tok.value;
    }
}

static int run(const cli_args *a)
{
    export_job j;
    int r = resolve(a, &j);
    uint32_t *nodes = NULL;
    if (!r) {
        kc_err err = {0};
        kc_reader *rd = NULL;
        int plain = kc_topology_is_plain(&j.in.topo);
        uint32_t count = (uint32_t)(plain ? j.in.topo.nodes : kc_topology_slots(&j.in.topo));
        nodes = malloc(count * sizeof *nodes);
        if (!nodes) {
            fprintf(stderr, "kcube: out of memory for %u nodes\n", count);
            r = CLI_EXIT_FAIL;
        } else if (kc_reader_open(&rd, j.mapping, "mapping file", "mapping", NULL, &err) ||
                   (plain ? kc_read_nodelist(rd, nodes, count, 1, &err) : read_endpoints(rd, &j.in.topo, nodes, &count,
                                                                                          &err)))
            r = cli_report(a, &err);
        else if (!count)
            r = cli_error("mapping file '%s' names no rank", j.mapping);
        else
            r = cli_export_write(a, &j.exp, nodes, count);
        kc_reader_close(rd);
    }
    free(nodes);
    job_free(&j);
    return r;
}

const cli_command kc_command_export = {
    .name = "export",
    .summary = "a saved mapping as an Open MPI rankfile, MPICH rank order, Slurm host file, Scotch map, "
               "Blue Gene/Q mapfile or Fujitsu rank map",
    .order = 22,
    .description =
        "Reads a node list (kcube map --out FILE: line v is the physical node rank v runs on) and writes it\n"
        "in the format a launcher reads. The host and slot of each node come from a machine description\n"
        "(--machine FILE) or a rule (--hosts nid%05d --slots-per-host R: nodes fill slots 0..R-1 of one host,\n"
        "then the next, axis 0 varying fastest unless --fill last-axis). The formats nodelist and scotch-map\n"
        "name no host and need neither. kcube map --format FORMAT --out FILE writes the same files directly.\n"
        "With --endpoints C or --nodes FILE (or a --network preset with endpoints) the mapping's lines are\n"
        "endpoint numbers of the whole network, one per rank; bgq-mapfile and fujitsu-rankmap write each\n"
        "rank's router coordinates instead of hosts (docs/networks.md says where each format comes from).\n"
        "A host that is this machine (localhost or its host name) given more slots than it has processors\n"
        "online gets a warning on stderr (Open MPI's mpirun --rankfile refuses such a file); the file is\n"
        "written all the same.",
    .opts = export_opts,
    .aliases = export_aliases,
    .narrow = export_narrow,
    .check = check,
    .run = run,
    .epilog = "examples:\n"
              "  kcube map --n 10 --stencil 5pt --grid 32x32 --periodic --out halo.txt\n"
              "  kcube export --n 10 --mapping halo.txt --format openmpi-rankfile --hosts node%02d --slots-per-host 32 "
              "--out rankfile\n"
              "  mpirun -np 1024 -rf rankfile ./app        (Open MPI 5: --map-by rankfile:file=rankfile)\n"
              "  kcube export --n 10 --mapping halo.txt --format slurm-hostfile --machine machine.txt --out hosts\n"
              "  SLURM_HOSTFILE=hosts srun -n 1024 --distribution=arbitrary ./app",
};
