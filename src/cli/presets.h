/* Machine presets on the command line: --network NAME|FILE and
 * kcube --list-networks (docs/networks.md). A NAME is looked up as
 * NAME.net in the data directory: the installed one (found relative to
 * the running binary, so a moved install tree still finds it), else the
 * source tree's data/networks (an uninstalled build). A value containing
 * '/' or ending in ".net" is a file. */
#ifndef KCUBE_CLI_PRESETS_H
#define KCUBE_CLI_PRESETS_H

#include <stdio.h>

#include "kcube/netpreset.h"
#include "opt.h"

/* Read the preset `arg` names into p. Returns 0, or an exit status after
 * one line on stderr (an unknown name, a bad file). */
int cli_preset_load(const cli_args *a, const char *arg, kc_netpreset *p);
/* kcube --list-networks: one line per preset of the data directory, sorted
 * by name. Returns an exit status (2 when there is no data directory or a
 * preset in it is bad, after one line). */
int cli_preset_list(FILE *out);

#endif
