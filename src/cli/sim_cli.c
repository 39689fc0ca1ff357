/* Shared by simulate and figures (sim_cli.h); kcube-mpi shares their sweeps. */
#include "sim_cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "budget_rates.h"
#include "options.h"
#include "kcube/simmem.h"

void sim_series_free(sim_series *s)
{
    if (s->built)
        kc_simscenario_free(&s->sc);
    kc_simsweep_free(&s->sweep);
    free(s->label);
    free(s->mapping);
    memset(s, 0, sizeof *s);
}

char *sim_strdupf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = need < 0 ? NULL : malloc((size_t)need + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)need + 1, fmt, ap);
    va_end(ap);
    return s;
}

int sim_processes(const cli_args *a)
{
    return a->host && a->host->sweep && a->host->sweep->parts > 1 ? a->host->sweep->parts : 1;
}

const char *sim_injection_name(kc_siminject process)
{
    return process == KC_INJECT_POISSON     ? "Poisson"
           : process == KC_INJECT_BERNOULLI ? "Bernoulli"
                                            : "geometric-gap Bernoulli";
}

int sim_threads(const cli_args *a, const cli_opt *threads_opt)
{
    if (threads_opt && cli_given(a, threads_opt))
        return (int)cli_int(a, threads_opt, 1);
    if (a->host && a->host->threads > 0)
        return a->host->threads;
    long t = sysconf(_SC_NPROCESSORS_ONLN);
    return t < 1 ? 1 : t > 8 ? 8 : (int)t;
}

/* The refusal of a sweep whose memory passes the budget: the estimate of
 * one load point at a time, the budget and a --max-memory value that runs it
 * (CLI_EXIT_OVER_BUDGET). */
static int plan_refuse(const cli_args *a, uint64_t shared, uint64_t per_point, uint64_t budget)
{
    kc_simmem m = {shared, per_point};
    uint64_t need = kc_simmem_total(&m, 1);
    char nb[32], pb[32], bb[32], ob[32];
    cli_error("%s needs about %s (%s per load point), more than the memory budget of %s (%s); --max-memory %s runs "
              "it",
              a->path, kc_simmem_format(need, nb, sizeof nb), kc_simmem_format(per_point, pb, sizeof pb),
              kc_simmem_format(budget, bb, sizeof bb), cli_given(a, &OPT_MAX_MEMORY) ? "--max-memory" : "available",
              cli_budget_bytes_option(need, ob, sizeof ob));
    return CLI_EXIT_OVER_BUDGET;
}

int sim_plan_memory(const cli_args *a, const sim_series *s, int count, int together, const kc_simconfig *cfg,
                    const double *loads, int nloads, int threads, int *run_threads)
{
    kc_simconfig at_max = *cfg;
    at_max.load = loads[0];
    for (int i = 1; i < nloads; i++)
        at_max.load = loads[i] > at_max.load ? loads[i] : at_max.load;
    uint64_t shared = 0, per_point = 0;
    kc_err err;
    for (int i = 0; i < count; i++) {
        kc_simmem m;
        if (kc_simmem_estimate(&s[i].spec, &at_max, &m, &err))
            return cli_report(a, &err);
        shared = together ? shared + m.shared : m.shared > shared ? m.shared : shared;
        per_point = m.per_point > per_point ? m.per_point : per_point;
    }
    threads = threads < nloads ? threads : nloads;
    uint64_t budget = cli_budget_bytes(a);
    if (kc_simmem_plan(shared, per_point, threads, budget, run_threads, &err))
        return err.status == KC_ERANGE ? plan_refuse(a, shared, per_point, budget) : cli_report(a, &err);
    if (*run_threads < threads) {
        char pp[32], b[32];
        fprintf(stderr, "kcube: note: running %d load point%s at once instead of %d to stay within %s (%s each)\n",
                *run_threads, *run_threads == 1 ? "" : "s", threads, kc_simmem_format(budget, b, sizeof b),
                kc_simmem_format(per_point, pp, sizeof pp));
    }
    return 0;
}

void sim_estimate(const sim_series *s, int count, int together, const kc_simconfig *cfg, const double *loads,
                  int nloads, int run_threads, double *seconds, uint64_t *bytes, double *nodes_out)
{
    double sec = 0, nodes = 1;
    uint64_t shared = 0, per_point = 0;
    for (int i = 0; i < count; i++) {
        kc_simconfig c = *cfg;
        double top = 0;
        for (int p = 0; p < nloads; p++) {
            c.load = loads[p];
            top = loads[p] > top ? loads[p] : top;
            sec += kc_simwork_seconds(&s[i].spec, &c);
        }
        c.load = top;
        kc_simmem m;
        kc_err err;
        if (!kc_simmem_estimate(&s[i].spec, &c, &m, &err)) {
            shared = together ? shared + m.shared : m.shared > shared ? m.shared : shared;
            per_point = m.per_point > per_point ? m.per_point : per_point;
        }
        double n = 1;
        for (int d = 0; d < s[i].spec.n; d++)
            n *= s[i].spec.network ? s[i].spec.network->side[d] : s[i].spec.k;
        nodes = n > nodes ? n : nodes;
    }
    int t = run_threads < 1 ? 1 : run_threads < nloads ? run_threads : nloads;
    long cores = sysconf(_SC_NPROCESSORS_ONLN); /* threads beyond the cores share them */
    kc_simmem m = {shared, per_point};
    *seconds = sec / (cores >= 1 && cores < t ? (int)cores : t);
    /* what the runs keep resident: the engines' share of their allocation
     * (sim_plan_memory plans with all of it), the rest, the program */
    *bytes = m.shared + (uint64_t)(CLI_SIM_RESIDENT * (double)kc_simmem_total(&(kc_simmem){0, per_point}, t)) +
             (uint64_t)CLI_BASE_BYTES;
    *nodes_out = nodes;
}

int sim_plan_time(const cli_args *a, const sim_series *s, int count, int together, const kc_simconfig *cfg,
                  const double *loads, int nloads, int run_threads)
{
    double seconds, nodes;
    uint64_t bytes;
    sim_estimate(s, count, together, cfg, loads, nloads, run_threads, &seconds, &bytes, &nodes);
    seconds /= sim_processes(a);
    char what[160], nb[32];
    snprintf(what, sizeof what, "%s of %d run%s on %s nodes", a->path, count * nloads,
             count * nloads == 1 ? "" : "s", cli_budget_count(nodes, nb, sizeof nb));
    return cli_budget_check_time(a, what, seconds, bytes); /* memory: sim_plan_memory's policy */
}

int sim_series_report(const cli_args *a, const sim_series *s, kc_err *err)
{
    /* The mapping is the configuration's (M-S, M-G), not a --mapping typed. */
    if (err->param && !strcmp(err->param, "mapping") && s->label && !cli_given(a, &OPT_MAPPING)) {
        cli_error("--configs: %s: %s", s->label, err->msg);
        return kc_status_is_input(err->status) ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
    }
    return cli_report(a, err);
}

int sim_series_build(const cli_args *a, sim_series *s)
{
    kc_err err;
    if (kc_simscenario_build(&s->sc, &s->spec, &err)) {
        /* A data file that cannot be read is bad input, like a bad name. */
        if (err.status == KC_EIO)
            err.status = KC_EINVAL;
        return sim_series_report(a, s, &err);
    }
    s->built = 1;
    return 0;
}

int sim_series_sweep(const cli_args *a, sim_series *s, const kc_simconfig *cfg, const kc_simsweep_opts *so)
{
    kc_err err;
    kc_simsweep_opts o = *so;
    if (a->host) /* kcube-mpi: this process runs its share */
        o.share = a->host->sweep;
    if (kc_sim_sweep(&s->sc.net, &s->sc.route, &s->sc.traffic, cfg, &o, &s->sweep, &err))
        return cli_report(a, &err);
    return 0;
}
