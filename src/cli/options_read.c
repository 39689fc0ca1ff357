/* What several commands read from their parsed options the same way: the
 * output format (--json, --csv) and the list of communications (--pattern,
 * --matrix, ...). Apart from the definitions (options.c), which the parser
 * itself looks names up in, so the option layer never calls back up. */
#include "options.h"

#include <stdio.h>
#include <string.h>

int cli_format(const cli_args *a, cli_fmt *fmt)
{
    int json = cli_given(a, &OPT_JSON), csv = cli_given(a, &OPT_CSV);
    if (json && csv) {
        fprintf(stderr, "kcube: give --json or --csv, not both\n");
        return 2;
    }
    *fmt = json ? CLI_FMT_JSON : csv ? CLI_FMT_CSV : CLI_FMT_TEXT;
    return 0;
}

int cli_comm_list(const cli_args *a, cli_comms *l)
{
    for (size_t i = 0; i < a->nuser; i++) {
        const cli_value *v = &a->vals[i];
        cli_comm_spec *last = l->count ? &l->spec[l->count - 1] : NULL;
        if (v->opt == &OPT_PATTERN || v->opt == &OPT_MATRIX) {
            if (l->single && l->count == 1) {
                fprintf(stderr, "kcube: %s takes one communication: give --pattern or --matrix once\n", a->path);
                return 2;
            }
            if (l->count == CLI_MAX_COMMS) {
                fprintf(stderr, "kcube: at most %d communications\n", CLI_MAX_COMMS);
                return 2;
            }
            int pat = v->opt == &OPT_PATTERN;
            l->spec[l->count] = (cli_comm_spec){pat ? v->text : NULL, pat ? NULL : v->text, NULL};
            l->scatter[l->count] = 0;
            l->count++;
        } else if (v->opt == &OPT_VECTOR) {
            if (!last || !last->matrix || last->vector) {
                fprintf(stderr, "kcube: --vector must follow a --matrix\n");
                return 2;
            }
            last->vector = v->text;
        } else if (v->opt == &OPT_SCATTER) {
            if (!l->allow_scatter) {
                fprintf(stderr, "kcube: --scatter does not apply to %s\n", a->path);
                return 2;
            }
            /* One communication takes --scatter anywhere on the line. */
            if (l->single && l->count <= 1) {
                l->scatter[0] = 1;
                l->single_scatter = 1;
            } else if (!last || !last->matrix) {
                fprintf(stderr, "kcube: --scatter must follow a --matrix\n");
                return 2;
            } else
                l->scatter[l->count - 1] = 1;
        }
    }
    if (l->single && l->single_scatter && l->count == 1)
        l->scatter[0] = 1;
    return 0;
}
