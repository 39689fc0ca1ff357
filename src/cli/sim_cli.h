/* sim_cli.h - what `kcube simulate` and `kcube figures` share: one
 * configuration to simulate (a series: its label, the mapping it applies,
 * the resolved spec, the built scenario and its sweep), memory before work
 * (kcube/simmem.h with --max-memory), and running a series' sweep.
 *
 * Every default comes from the library (kc_simspec_resolve,
 * kc_simconfig_default); nothing here decides one. */
#ifndef KC_CLI_SIM_CLI_H
#define KC_CLI_SIM_CLI_H

#include "cli.h"
#include "kcube/attr.h"
#include "kcube/simscenario.h"
#include "kcube/simsweep.h"

typedef struct sim_series {
    char *label;      /* owned: shown as given, never cut */
    char *mapping;    /* owned: the spec's mapping text, or NULL */
    kc_simspec spec;  /* resolved */
    kc_simscenario sc;
    kc_simsweep sweep;
    int built;
} sim_series;

void sim_series_free(sim_series *s);

/* printf into a new string (NULL when memory runs out). */
char *sim_strdupf(const char *fmt, ...) KC_PRINTF(1, 2);

/* --threads, else kcube-mpi's choice (cli_host.threads), else the
 * machine's cores, at most 8. */
int sim_threads(const cli_args *a, const cli_opt *threads_opt);
/* Processes sharing each sweep (kcube-mpi), 1 in kcube: time estimates
 * are divided by it. */
int sim_processes(const cli_args *a);
/* The injection process as titles and text name it: "Poisson",
 * "Bernoulli", "geometric-gap Bernoulli" (followed by " injection"). */
const char *sim_injection_name(kc_siminject process);

/* Memory before work (docs/sim.md "Memory before work"): estimate every series at the
 * largest load, then the most threads (<= threads) within --max-memory or
 * the memory available. together: all series are alive at once (their
 * shared parts add up), else one at a time. Prints a note when it runs
 * fewer points at once; returns 0 or an exit status after one line. */
int sim_plan_memory(const cli_args *a, const sim_series *s, int count, int together, const kc_simconfig *cfg,
                    const double *loads, int nloads, int threads, int *run_threads);

/* Time before work (the work estimate of src/cli/budget.h): the series' runs at every load
 * (kc_simwork_seconds), run_threads at once, against --max-time; the
 * memory of sim_plan_memory against --max-memory. Returns 0 or 2 after one
 * line naming the estimate and the option that lifts the limit.
 * sim_estimate gives the numbers alone (seconds, bytes, the largest network's
 * nodes) for a command that adds several up (figures). */
void sim_estimate(const sim_series *s, int count, int together, const kc_simconfig *cfg, const double *loads,
                  int nloads, int run_threads, double *seconds, uint64_t *bytes, double *nodes);
int sim_plan_time(const cli_args *a, const sim_series *s, int count, int together, const kc_simconfig *cfg,
                  const double *loads, int nloads, int run_threads);

/* Build the series' scenario (an unreadable data file is bad input: exit
 * 2), then run its sweep. Each returns 0 or an exit status after one line. */
int sim_series_build(const cli_args *a, sim_series *s);
/* Report err about series s (cli_report's exit status): a failing mapping
 * the user did not give as --mapping is named by the series' label under
 * --configs. */
int sim_series_report(const cli_args *a, const sim_series *s, kc_err *err);
int sim_series_sweep(const cli_args *a, sim_series *s, const kc_simconfig *cfg, const kc_simsweep_opts *so);

#endif
