/* Fuzz cli_build_lcc, the command line's way from --pattern, or --matrix
 * with an optional --vector and --scatter, to an LCC. Byte 0: n (-3..67);
 * byte 1: bit 0 chooses matrix (1) or pattern (0), bit 1 --scatter, bit 2
 * whether a vector is given. The rest: the pattern name, or the matrix and
 * the vector on separate lines. */
#include "cli.h"
#include "fuzz_input.h"

static void kcf_run(kcf_input *in)
{
    int n = kcf_int(in, -3, 67);
    unsigned mode = kcf_byte(in);
    int scatter = (mode >> 1) & 1;
    char *first = kcf_line(in);
    char *vector = (mode & 4) ? kcf_line(in) : NULL;
    cli_comm_spec spec = {0};
    if (mode & 1) {
        spec.matrix = first;
        spec.vector = vector;
    } else {
        spec.pattern = first;
    }
    kc_lcc c;
    kc_err err = {0};
    kc_status s = cli_build_lcc(&spec, n, scatter, &c, &err);
    if (s == KC_OK) {
        KCF_CHECK(c.a.n == n && c.rank == kc_bitmat_rank(&c.a) && !(c.b & ~kc_mask(n)));
        KCF_CHECK(!scatter || c.kind == KC_LCC_SCATTER);
    } else {
        kcf_check_failure(s, &err);
    }
    free(first);
    free(vector);
}
