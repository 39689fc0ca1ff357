/* export_cli.h - writing a mapping as a launcher's file on the command line
 * (map --format FORMAT --out FILE, and the export command): the format, the
 * machine description or rule behind it, and the checked output file. */
#ifndef KC_CLI_EXPORT_CLI_H
#define KC_CLI_EXPORT_CLI_H

#include <stdint.h>

#include "kcube/machine.h"
#include "kcube/topology.h"
#include "opt.h"

typedef struct cli_export {
    kc_export_format format;
    const char *out;      /* the file, or NULL: nothing to write */
    int has_machine;
    kc_machine machine;   /* when has_machine */
    kc_topology topo;     /* the network (its allocation borrowed from the caller's, which outlives e) */
} cli_export;

/* Resolve the format (format_opt, nodelist when not given), --out (out,
 * NULL when not given; a format given without it is an error when
 * need_out), and --machine FILE or --hosts PATTERN --slots-per-host R
 * [--fill] [--first-host] for the nodes of t: read or built now, so a bad
 * description fails before any long work. Returns 0 or an exit status after
 * one line; e is always safe to free. */
int cli_export_resolve(const cli_args *a, const cli_opt *format_opt, const kc_topology *t, const char *out,
                       int need_out, cli_export *e);
/* Write to_physical[0..count) to e->out (atomically; '-' standard output):
 * rank v on endpoint to_physical[v] of the network resolved with e. */
int cli_export_write(const cli_args *a, const cli_export *e, const uint32_t *to_physical, uint64_t count);
void cli_export_free(cli_export *e);

#endif
