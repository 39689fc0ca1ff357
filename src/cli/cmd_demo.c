/* kcube demo: the foundation's story on the 8-cube, on built-in defaults. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kcube/contention.h"
#include "kcube/mapset.h"
#include "kcube/reorder.h"

static void dims(const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        printf("%3llu", (unsigned long long)v[i]);
}

static void order_line(const char *label, const kc_order *o)
{
    printf("  %-34s", label);
    for (int t = 0; t < o->n; t++)
        printf("%s%d", t ? " " : "", o->dim[t]);
    putchar('\n');
}

static int run(int argc, char **argv)
{
    int n = 8;
    for (int i = 1; i < argc; i++) {
        if (kc_cli_is_help(argv[i])) {
            puts("usage: kcube demo\n\nShows, for the 8-cube, transpose, bit-reverse and reverse-flip: contention per\n"
                 "dimension under e-cube routing (Theorem 1 and exact count), the optimal\n"
                 "reordering of each, and the best single reordering for all three.");
            return KC_EXIT_OK;
        }
        return kc_cli_error("unknown option '%s' for demo", argv[i]);
    }
    const char *names[] = {"transpose", "bit-reverse", "reverse-flip"};
    enum { M = 3 };
    kc_lcc comms[M];
    kc_err err = {0};
    for (int r = 0; r < M; r++)
        if (kc_lcc_named(&comms[r], names[r], n, &err))
            return kc_cli_report(&err);

    printf("kcube demo: linear-complement communication on the %d-cube (%d nodes), e-cube routing\n\n", n, 1 << n);
    printf("1. Contention per dimension, T_i = largest number of messages on one channel\n");
    printf("   %-14s %-8s", "pattern", "source");
    for (int i = 0; i < n; i++)
        printf("%3d", i);
    printf("   max\n");
    for (int r = 0; r < M; r++) {
        kc_contention f, x;
        kc_contention_formula(&comms[r], &f);
        if (kc_contention_exact(&comms[r], &x, NULL, &err))
            return kc_cli_report(&err);
        printf("   %-14s %-8s", names[r], "formula");
        dims(f.per_dim, n);
        printf("   %3llu\n", (unsigned long long)f.max);
        printf("   %-14s %-8s", "", "exact");
        dims(x.per_dim, n);
        printf("   %3llu  worst channel %llu -> %llu\n", (unsigned long long)x.max,
               (unsigned long long)x.witness[x.max_dim],
               (unsigned long long)(x.witness[x.max_dim] ^ (1ULL << x.max_dim)));
    }

    printf("\n2. Optimal reordering for each (seed 000 Fig. 3), new dimension t = old R[t]\n");
    for (int r = 0; r < M; r++) {
        kc_order o;
        if (kc_reorder_optimal(&comms[r], &o, &err))
            return kc_cli_report(&err);
        char label[64];
        kc_order id;
        kc_order_identity(&id, n);
        snprintf(label, sizeof label, "%-13s %llu -> %llu   R =", names[r],
                 (unsigned long long)kc_reorder_value(&comms[r], &id), (unsigned long long)kc_reorder_value(&comms[r], &o));
        order_line(label, &o);
    }

    printf("\n3. One reordering for all three (dynamic programming, objective max)\n");
    kc_mapset_result res;
    if (kc_mapset_optimal(comms, M, KC_OBJ_MAX, &res, NULL, &err))
        return kc_cli_report(&err);
    order_line("R =", &res.order);
    printf("   %-14s %6s %6s   T_i after\n", "pattern", "before", "after");
    for (int r = 0; r < M; r++) {
        kc_lcc after;
        kc_contention b, a;
        kc_lcc_reorder(&after, &comms[r], res.order.dim);
        kc_contention_formula(&comms[r], &b);
        kc_contention_formula(&after, &a);
        printf("   %-14s %6llu %6llu  ", names[r], (unsigned long long)b.max, (unsigned long long)a.max);
        dims(a.per_dim, n);
        putchar('\n');
    }
    printf("\nTry: kcube analyze --n 8 --pattern transpose\n"
           "     kcube map --n 8 --pattern transpose --pattern bit-reverse --objective simultaneous --json\n");
    return KC_EXIT_OK;
}

const cli_command kc_command_demo = {.name = "demo", .summary = "a guided tour on built-in defaults (the README's first command)", .order = 0, .run_argv = run};
