/* `kcube analyze` and `kcube map` on k-ary n-cubes and meshes (--k K, --mesh).
 *
 * cmd_analyze.c and cmd_map.c hand their whole argv here when
 * kc_torus_cli_wanted() says so; otherwise they strip a harmless `--k 2`
 * with kc_torus_cli_strip_k2() and go on as for hypercubes. */
#ifndef KC_TORUS_CLI_H
#define KC_TORUS_CLI_H

/* 1 if the arguments ask for the torus/mesh code: --k with a value other
 * than 2, --mesh, or an option only the torus code knows (--tie, --mapping,
 * --search, --fallback). */
int kc_torus_cli_wanted(int argc, char **argv);

/* Remove "--k 2" / "--k=2" from argv in place; returns the new argc. */
int kc_torus_cli_strip_k2(int argc, char **argv);

int kc_torus_cli_analyze(int argc, char **argv);
int kc_torus_cli_map(int argc, char **argv);

#endif
