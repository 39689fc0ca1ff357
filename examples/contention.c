/* examples/contention.c - count the link contention of a communication.
 * The matrix transpose on the 8-cube under e-cube routing: seed 000's
 * closed form and the exact count agree, dimension by dimension.
 * Build: cc contention.c $(pkg-config --cflags --libs kcube) */
#include <stdio.h>

#include <kcube/contention.h>
#include <kcube/lcc.h>

int main(void)
{
    kc_lcc c;
    kc_contention formula, exact;
    kc_err err = {0};
    if (kc_lcc_named(&c, "transpose", 8, &err) || kc_contention_exact(&c, &exact, NULL, &err)) {
        fprintf(stderr, "contention: %s\n", err.msg);
        return 1;
    }
    kc_contention_formula(&c, &formula);
    printf("transpose on the 8-cube (%s): contention %llu\n", kc_lcc_kind_name(c.kind),
           (unsigned long long)exact.max);
    for (int i = 0; i < c.a.n; i++)
        printf("  dimension %d: T_i = %llu (formula %llu)\n", i, (unsigned long long)exact.per_dim[i],
               (unsigned long long)formula.per_dim[i]);
    return exact.max == formula.max ? 0 : 1;
}
