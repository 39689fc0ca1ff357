/* The seed papers' key (seeds.h): one table, read by help, the man page and
 * the charts' subtitles. */
#include "seeds.h"

#include <string.h>

static const char *const papers[CLI_NSEEDS] = {
    "processor reordering for linear-complement communication on wormhole-routed hypercubes",
    "Johnsson and Ho, Boolean cube emulation of butterfly networks encoded by Gray code",
    "Wang, Hou and Ku, optimal processor mapping for linear-constant communication on k-ary n-cubes",
    "Díaz de Cerio et al., CALMANT: hypercube (CC-cube) algorithms on mesh-connected multicomputers",
    "Boppana and Raghavendra, optimal self-routing of linear-complement permutations in hypercubes",
};

/* The same, short enough for a chart's subtitle line. */
static const char *const short_name[CLI_NSEEDS] = {
    "processor reordering on wormhole-routed hypercubes",
    "Johnsson and Ho, butterfly networks on Boolean cubes",
    "Wang, Hou and Ku, processor mapping on k-ary n-cubes",
    "Díaz de Cerio et al., CALMANT on meshes",
    "Boppana and Raghavendra, self-routing of linear-complement permutations",
};

const char *cli_seed_paper(int s) { return s >= 0 && s < CLI_NSEEDS ? papers[s] : NULL; }

char *cli_seed_cite(char *buf, size_t size, int s, const char *where)
{
    snprintf(buf, size, "seed %03d%s%s (%s)", s, *where ? " " : "", where,
             s >= 0 && s < CLI_NSEEDS ? short_name[s] : "?");
    return buf;
}

/* The key's lines for the papers marked in cited[]. */
static void key(FILE *out, const int *cited)
{
    fputs("\nthe papers cited by number:\n", out);
    for (int s = 0; s < CLI_NSEEDS; s++)
        if (cited[s])
            fprintf(out, "  seed %03d  %s\n", s, papers[s]);
}

void cli_seed_key(FILE *out, const char *text)
{
    int cited[CLI_NSEEDS] = {0}, any = 0;
    for (const char *t = strstr(text, "seed 00"); t; t = strstr(t + 1, "seed 00")) {
        int s = t[7] - '0';
        if (s >= 0 && s < CLI_NSEEDS)
            any = cited[s] = 1;
    }
    if (any)
        key(out, cited);
}

void cli_seed_key_all(FILE *out)
{
    static const int all[CLI_NSEEDS] = {1, 1, 1, 1, 1};
    key(out, all);
}
