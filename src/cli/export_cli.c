/* Exporting mappings from the command line: map --format and export (export_cli.h). */
#include "export_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"
#include "out.h"

/* Is host this machine: "localhost", or the name gethostname gives (whole,
 * or up to its first dot)? Launchers start such a host's ranks here. */
static int is_this_host(const char *host)
{
    if (strcmp(host, "localhost") == 0)
        return 1;
    char me[256];
    if (gethostname(me, sizeof me) != 0)
        return 0;
    me[sizeof me - 1] = '\0';
    size_t len = strcspn(me, ".");
    return strcmp(host, me) == 0 || (strlen(host) == len && strncmp(host, me, len) == 0);
}

/* One warning line on stderr (the export still goes ahead, exit 0) when a
 * host that is this machine needs more cores than it has online: an Open MPI
 * rankfile's slot S binds to core S and its mpirun exits 1 without a word
 * when S or the rank count is beyond the cores; other launchers would run
 * the ranks oversubscribed. Needs e->machine; O(nodes + hosts). */
static void warn_local_slots(const cli_export *e, const char *fname)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const kc_machine *m = &e->machine;
    if (cores < 1 || m->nhosts == 0)
        return;
    uint64_t *need = calloc(m->nhosts, sizeof *need); /* per host: max(highest slot + 1, ranks) */
    uint64_t *ranks = calloc(m->nhosts, sizeof *ranks);
    if (need && ranks) {
        for (uint64_t x = 0; x < m->nodes; x++) {
            uint32_t h = m->host[x];
            ranks[h]++;
            if ((uint64_t)m->slot[x] + 1 > need[h])
                need[h] = (uint64_t)m->slot[x] + 1;
        }
        for (uint32_t h = 0; h < m->nhosts; h++) {
            uint64_t want = need[h] > ranks[h] ? need[h] : ranks[h];
            if (want > (uint64_t)cores && is_this_host(m->host_name[h])) {
                fprintf(stderr, "kcube: warning: host '%s' (this machine) has %ld processors online, the %s gives it "
                        "%llu slots: %s\n", m->host_name[h], cores, fname, (unsigned long long)want,
                        e->format == KC_EXPORT_OMPI_RANKFILE ? "mpirun --rankfile exits 1 on it"
                                                             : "its ranks would share cores");
                break;
            }
        }
    }
    free(need);
    free(ranks);
}

int cli_export_resolve(const cli_args *a, const cli_opt *format_opt, const kc_topology *t, const char *out,
                       int need_out, cli_export *e)
{
    memset(e, 0, sizeof *e);
    e->topo = *t;
    e->format = (kc_export_format)cli_choice(a, format_opt, KC_EXPORT_NODELIST);
    const char *fname = kc_names_name(&kc_export_format_names, e->format);
    int r;
    /* A format without --out is written on standard output, as export does. */
    if (need_out && !out && cli_given(a, format_opt))
        out = "-";
    if (cli_is_stdout(out) && (r = cli_stdout_take(a, OPT_OUT.name)))
        return r;
    e->out = out;
    const char *hosts = cli_text(a, &OPT_HOSTS, NULL), *file = cli_text(a, &OPT_MACHINE, NULL);
    if (!hosts && ((r = cli_reject(a, &OPT_SLOTS_PER_HOST, "without --hosts")) ||
                   (r = cli_reject(a, &OPT_FILL, "without --hosts")) ||
                   (r = cli_reject(a, &OPT_FIRST_HOST, "without --hosts"))))
        return r;
    if (hosts && file)
        return cli_error("give --machine FILE or --hosts PATTERN, not both");
    if (hosts && !cli_given(a, &OPT_SLOTS_PER_HOST))
        return cli_error("--hosts needs --slots-per-host R (how many nodes share a host)");
    if (!kc_export_needs_machine(e->format)) {
        char why[96];
        snprintf(why, sizeof why, "to --%s %s (it names no host)", format_opt->name, fname);
        if ((r = cli_reject(a, &OPT_MACHINE, why)) || (r = cli_reject(a, &OPT_HOSTS, why)))
            return r;
        return 0;
    }
    if (!hosts && !file)
        return cli_error("--%s %s names hosts: give --machine FILE, or --hosts PATTERN --slots-per-host R",
                         format_opt->name, fname);
    char nb[24];
    if (t->nodes > KC_MACHINE_MAX_NODES)
        return cli_error("--%s %s covers up to %llu nodes, the network has %s", format_opt->name, fname,
                         (unsigned long long)KC_MACHINE_MAX_NODES, kc_topology_nodes_text(t, nb, sizeof nb));
    kc_err err = {0};
    kc_status s = file ? kc_machine_read_path(&e->machine, file, t, &err)
                       : kc_machine_rule(&e->machine, t, hosts, (uint32_t)cli_int(a, &OPT_SLOTS_PER_HOST, 1),
                                         cli_u64(a, &OPT_FIRST_HOST, 0),
                                         (kc_machine_fill)cli_choice(a, &OPT_FILL, KC_FILL_FIRST_AXIS), &err);
    if (s)
        return cli_report(a, &err);
    e->has_machine = 1;
    warn_local_slots(e, fname);
    return 0;
}

int cli_export_write(const cli_args *a, const cli_export *e, const uint32_t *to_physical, uint64_t count)
{
    cli_atomic at;
    int rc = cli_atomic_open(&at, e->out);
    if (rc)
        return rc;
    kc_err err = {0};
    kc_status s = kc_export_write_net(at.f, e->format, &e->topo, to_physical, count,
                                      e->has_machine ? &e->machine : NULL, &err);
    if (s && s != KC_EIO) {
        cli_atomic_abort(&at);
        return cli_report(a, &err);
    }
    /* A write error is the commit's to report: it names the file and removes
     * the temporary, or says nothing when standard output's reader left. */
    return cli_atomic_commit(&at);
}

void cli_export_free(cli_export *e)
{
    if (e->has_machine)
        kc_machine_free(&e->machine);
    e->has_machine = 0;
}
