/* budget.h - the work-and-memory gate every long command passes before it
 * computes or prints anything (docs/cli.md).
 *
 * A command turns its resolved options into an estimate: seconds of wall
 * time on one core (the library's or the command's work count times a
 * per-unit rate measured on the development machine, rounded up) and peak
 * bytes (an upper bound). cli_budget_check refuses, with one line naming
 * the estimate and the option that lifts the limit, a run whose time
 * passes --max-time (default CLI_MAX_TIME_DEFAULT; 0 or inf: none)
 * or whose memory passes --max-memory (default: what the machine and the
 * process's control group allow, as `simulate` does). Cost: O(1) plus two
 * small file reads for the memory available. */
#ifndef KC_CLI_BUDGET_H
#define KC_CLI_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "cli_host.h"
#include "opt.h"

/* The seconds a run may take when --max-time is not given: one constant,
 * read by the gate as if it had been given, and shown by help (options.c,
 * dispatch.c). */
#define CLI_MAX_TIME_DEFAULT "60"

/* The exit status of a run refused for its time or memory: the input is
 * good, the run was not made (1, as a run that fails; 2 stays for bad
 * input, --max-time that does not parse among it). */
#define CLI_EXIT_OVER_BUDGET CLI_EXIT_FAIL

/* --max-time SECONDS (OPT_MAX_TIME) and --max-memory BYTES live in the
 * shared table (options.h); a command that calls the gate lists both. */

/* The wall-time limit in seconds (INFINITY for none: 0, inf or none); -1
 * after printing one error line when --max-time is not a decimal number of
 * seconds as every real option takes it (90, 0.5, 1e3). */
double cli_budget_seconds(const cli_args *a);

/* The memory limit: --max-memory when the command takes it and it was
 * given (0: no limit, UINT64_MAX, the same rule as --max-time), else the
 * memory available (kc_simmem_available). */
uint64_t cli_budget_bytes(const cli_args *a);

/* Refuse (CLI_EXIT_OVER_BUDGET, one line on stderr, nothing on stdout) a run of `what`
 * (e.g. "map --kind general on 2^20 nodes") estimated at `seconds` and
 * `bytes` when either passes its limit; 0 when it fits (or --max-time does
 * not parse: then CLI_EXIT_USAGE after one line). */
int cli_budget_check(const cli_args *a, const char *what, double seconds, uint64_t bytes);

/* The same for time alone, `bytes` only shown: for a command whose memory
 * has its own policy (simulate runs fewer load points at once to fit). */
int cli_budget_check_time(const cli_args *a, const char *what, double seconds, uint64_t bytes);

/* A --max-memory value above `bytes`, for a refusal to name: whole MiB
 * (5 % over, rounded up), or GiB from 1 GiB on. Returns buf. */
const char *cli_budget_bytes_option(uint64_t bytes, char *buf, size_t size);

/* A count for the gate's messages: "2^20" for a power of two from 1024
 * on, else the number. Returns buf. */
const char *cli_budget_count(double v, char *buf, size_t size);

#endif
