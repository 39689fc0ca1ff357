/* map_general.h - `kcube map` for any communication graph: --traffic FILE,
 * or the given communications with --kind general (docs/gmap.md). The search
 * is kcube/gmap.h's; this module resolves the starts (identity, kcube's
 * algebraic mappings, Scotch's) and renders the result. cmd_map.c declares
 * the options and hands over when one of them asks for a general mapping. */
#ifndef KC_CLI_MAP_GENERAL_H
#define KC_CLI_MAP_GENERAL_H

#include "opt.h"

/* The general search's work without --work, in millions of channel-load
 * updates (about 0.5 to 3 s). */
#define MAP_GENERAL_WORK 40.0

/* --traffic FILE, --work M, --baseline scotch, --hops-cap (map only). */
extern const cli_opt OPT_TRAFFIC, OPT_WORK, OPT_BASELINE, OPT_HOPS_CAP;
/* --stencil, --grid, --periodic, --grid-order, --collective, --bytes,
 * --phases, --emit-traffic (map only). */
extern const cli_opt OPT_STENCIL, OPT_GRID, OPT_PERIODIC, OPT_GRID_ORDER, OPT_COLLECTIVE, OPT_MSG_BYTES, OPT_PHASES,
    OPT_EMIT_TRAFFIC;

/* 1 when the options ask for a general mapping (--traffic, or --kind
 * general). */
int map_general_wanted(const cli_args *a);
/* Resolve only (check_only) or the whole command; an exit status. */
int map_general_run(const cli_args *a, int check_only);

#endif
