/* The generated command table as a whole: one meaning per option
 * name, one default per option, narrowed choices that help and parser
 * agree on, help listing exactly the table, and every option a help text
 * lists accepted by its command in a basic use (resolved with the commands'
 * check functions: nothing is computed or written). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dispatch.h"
#include "options.h"
#include "otf2_gen.h"

/* ---- walking the table ------------------------------------------------------ */

typedef struct entry {
    const cli_command *cmd;
    char path[64]; /* "calmant load" */
} entry;

static entry entries[64];
static int nentries;

static void collect(const cli_command *cmd, const char *prefix)
{
    entry *e = &entries[nentries++];
    assert_true(nentries < 64);
    e->cmd = cmd;
    snprintf(e->path, sizeof e->path, "%s%s%s", prefix, *prefix ? " " : "", cmd->name);
    for (size_t i = 0; cmd->subs && cmd->subs[i]; i++)
        collect(cmd->subs[i], e->path);
}

static int setup(void **state)
{
    (void)state;
    nentries = 0;
    for (const cli_command *const *c = cli_commands(); *c; c++)
        collect(*c, "");
    return 0;
}

/* A name listed with why it is allowed an exception. */
typedef struct named_why {
    const char *name, *why;
} named_why;

static int listed_in(const named_why *list, const char *name)
{
    for (int i = 0; list[i].name; i++)
        if (strcmp(list[i].name, name) == 0)
            return 1;
    return 0;
}

/* Two option objects may share a name only where the name means the same
 * kind of thing in two unrelated commands; each pair is listed with why. */
static const named_why distinct_ok[] = {
    {"method", "map: the old hypercube reordering methods; butterfly: the emulation method"},
    {"verify", "hl: check Theorem 1 and Lemma 4; calmant schedule: replay the schedule"},
    {"trace", "hl and butterfly each trace their own algorithm, step by step"},
    {"bytes", "calmant cost: bytes per CC-cube iteration; map: bytes per stencil message or collective rank"},
    {NULL, NULL},
};

static const cli_opt *shared_named(const char *name)
{
    for (size_t i = 0; cli_shared_options[i]; i++)
        if (strcmp(cli_shared_options[i]->name, name) == 0)
            return cli_shared_options[i];
    return NULL;
}

static void test_one_meaning_per_name(void **state)
{
    (void)state;
    for (int a = 0; a < nentries; a++)
        for (const cli_use *u = entries[a].cmd->opts; u && u->opt; u++) {
            const cli_opt *o = u->opt;
            assert_non_null(o->help);
            /* A shared name is the shared option. */
            const cli_opt *s = shared_named(o->name);
            if (s && s != o)
                fail_msg("%s defines its own --%s beside the shared one", entries[a].path, o->name);
            for (int b = 0; b < nentries; b++)
                for (const cli_use *v = entries[b].cmd->opts; v && v->opt; v++) {
                    if (a == b && v != u && v->opt == o)
                        fail_msg("%s lists --%s twice", entries[a].path, o->name);
                    if (v->opt == o || strcmp(v->opt->name, o->name) != 0)
                        continue;
                    if (v->opt->type != o->type)
                        fail_msg("--%s has two types (%s, %s)", o->name, entries[a].path, entries[b].path);
                    if (!listed_in(distinct_ok, o->name))
                        fail_msg("--%s is defined twice (%s, %s): share one definition or rename one", o->name,
                                 entries[a].path, entries[b].path);
                }
        }
}

/* One default per option: a command gives its own only where the option has
 * none, and says why in its own help line. */
static void test_one_default(void **state)
{
    (void)state;
    for (int a = 0; a < nentries; a++)
        for (const cli_use *u = entries[a].cmd->opts; u && u->opt; u++) {
            if (!u->def || CLI_IS_REQUIRED(u))
                continue;
            if (u->opt->def)
                fail_msg("%s changes the default of --%s (%s -> %s): one default per option", entries[a].path,
                         u->opt->name, u->opt->def, u->def);
            if (!u->help)
                fail_msg("%s gives --%s a default of its own without saying why", entries[a].path, u->opt->name);
            cli_value v;
            assert_int_equal(cli_parse_value(u->opt, u->def, &v), 0);
            if (u->opt->type == CLI_CHOICE)
                assert_true(cli_allows(entries[a].cmd, u->opt, u->def));
        }
}

/* Old spellings kept although another command's option now has the name:
 * an option that had two meanings was split, one meaning kept the name and
 * the other command still accepts it, marked old, for the new one. */
static const named_why renamed_ok[] = {
    {"ranks-per-node", "replay: ranks per simulated node; map, export: slots per host, now --slots-per-host"},
    {"from", "map, simulate: a trace's time window; gray: the table window's first integer, now --first"},
    {NULL, NULL},
};

/* Every default help shows is rendered from what the code uses (def, parsed
 * by the parser; shown_def, from the constant or library default the code
 * applies): a help line that types a number as its default, or says
 * "(default" beside a rendered one, would drift from the code. */
static void test_defaults_rendered(void **state)
{
    (void)state;
    int failures = 0;
    for (int a = 0; a < nentries; a++)
        for (const cli_use *u = entries[a].cmd->opts; u && u->opt; u++) {
            const char *h = u->help ? u->help : u->opt->help;
            char shown[64];
            int rendered = cli_shown_default(u, shown, sizeof shown) != NULL || CLI_IS_REQUIRED(u);
            if (rendered && strstr(h, "(default")) {
                fprintf(stderr, "%s --%s: two defaults, one in its help line: %s\n", entries[a].path, u->opt->name, h);
                failures++;
            }
            for (const char *d = strstr(h, "default"); d; d = strstr(d + 1, "default")) {
                const char *v = d + strlen("default");
                v += strspn(v, " :");
                if (*v >= '0' && *v <= '9') {
                    fprintf(stderr, "%s --%s: a default typed in its help line (give .def or .shown_def): %s\n",
                            entries[a].path, u->opt->name, h);
                    failures++;
                }
            }
        }
    assert_int_equal(failures, 0);
}

/* Narrowed choices name real choices of options the command takes; an alias
 * never reuses a shared option's name for something else. */
static void test_narrow_and_aliases(void **state)
{
    (void)state;
    for (int a = 0; a < nentries; a++) {
        const cli_command *cmd = entries[a].cmd;
        for (const cli_narrow *nw = cmd->narrow; nw && nw->opt; nw++) {
            int used = 0;
            for (const cli_use *u = cmd->opts; u && u->opt; u++)
                used |= u->opt == nw->opt;
            assert_true(used);
            if (nw->only) {
                assert_int_equal(nw->opt->type, CLI_CHOICE);
                char buf[256];
                snprintf(buf, sizeof buf, "%s", nw->only);
                for (char *t = strtok(buf, "|"); t; t = strtok(NULL, "|")) {
                    int v;
                    if (kc_names_parse(nw->opt->choices, t, &v))
                        fail_msg("%s narrows --%s to '%s', not one of its choices", entries[a].path, nw->opt->name, t);
                }
            }
        }
        for (const cli_alias *al = cmd->aliases; al && al->name; al++) {
            /* nor the name of any command's option, unless it is that option */
            for (int b = 0; b < nentries; b++)
                for (const cli_use *v = entries[b].cmd->opts; v && v->opt; v++)
                    if (strcmp(v->opt->name, al->name) == 0 && v->opt != al->target && !listed_in(renamed_ok, al->name))
                        fail_msg("%s: the old spelling --%s is %s's --%s", entries[a].path, al->name,
                                 entries[b].path, v->opt->name);
            const cli_opt *s = shared_named(al->name);
            assert_non_null(al->note);
            if (s && s != al->target)
                fail_msg("%s: the old spelling --%s takes the name of the shared --%s", entries[a].path, al->name,
                         s->name);
            for (const cli_use *u = cmd->opts; u && u->opt; u++)
                if (strcmp(u->opt->name, al->name) == 0)
                    fail_msg("%s: --%s is both an option and an old spelling", entries[a].path, al->name);
        }
    }
}

/* ---- help against the table ---------------------------------------------------- */

static char *help_of(const entry *e)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_non_null(mem);
    cli_help(e->cmd, e->path, mem);
    fclose(mem);
    return text;
}

/* The option names help lists ("  --name ..." lines), in order. */
static int listed(const char *help, char names[][40], int max)
{
    int n = 0;
    for (const char *l = help; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, "  --", 4) == 0 && n < max) {
            size_t w = strcspn(l + 4, " \n");
            snprintf(names[n++], 40, "%.*s", (int)w, l + 4);
        }
    return n;
}

static void test_help_matches_table(void **state)
{
    (void)state;
    for (int a = 0; a < nentries; a++) {
        const cli_command *cmd = entries[a].cmd;
        char *help = help_of(&entries[a]);
        char names[128][40];
        int n = listed(help, names, 128);
        int expect = 0;
        for (const cli_use *u = cmd->opts; u && u->opt; u++, expect++)
            assert_string_equal(names[expect], u->opt->name);
        assert_string_equal(names[expect++], "help");
        assert_string_equal(names[expect++], "version");
        for (const cli_alias *al = cmd->aliases; al && al->name; al++)
            assert_string_equal(names[expect++], al->name);
        assert_int_equal(n, expect);
        /* A narrowed choice lists only what the command takes. */
        for (const cli_use *u = cmd->opts; u && u->opt; u++)
            if (u->opt->type == CLI_CHOICE)
                for (const kc_name *e = u->opt->choices->entries; e->name; e++) {
                    char line[128];
                    snprintf(line, sizeof line, "   %-12s %s\n", e->name, e->help ? e->help : "");
                    if (e->help && !cli_allows(cmd, u->opt, e->name) && strstr(help, line))
                        fail_msg("%s --help lists --%s %s, which it refuses", entries[a].path, u->opt->name,
                                 e->name);
                }
        free(help);
    }
}

/* ---- every listed option accepted in a basic use ------------------------------ */

static char goal_path[96], out_dir[64];

/* A command line that resolves, per command; NULL: no check function
 * (demo takes no options). */
static const struct {
    const char *path, *base;
} bases[] = {
    {"analyze", "--n 4 --pattern transpose"},
    {"butterfly", "--n 2 --p 4 --method direct"},
    {"calmant load", "--n 4 --c 1 --task 1,2"},
    {"calmant schedule", "--n 4 --c 1 --task 1,2"},
    {"calmant cost", "--n 8 --c 2 --bytes 4096"},
    {"calmant alltoall", "--n 4 --c 2 --block 64"},
    {"fft-study", "--n 4"},
    {"figures", "--quick"},
    {"gray", "--n 4"},
    {"hl", "--n 4 --pattern transpose"},
    {"map", "--n 4 --pattern transpose"},
    {"export", "--n 4 --mapping MAPPING --format nodelist"},
    {"replay", "GOAL --n 3"},
    {"simulate", "--n 4 --pattern transpose --oneshot"},
    {NULL, NULL},
};

/* What to add to the base line to use an option: "%s" is each choice a
 * command accepts. Keyed by "path --name", then "--name" for every command.
 * A value needing a partner option gives both. */
static const struct {
    const char *key, *args;
} samples[] = {
    {"--queue-cap", "--queue-cap 100"},
    {"--k", "--k 2"},
    {"--topology", "--topology %s"},
    {"map --topology", "--topology %s --k 4"},
    {"analyze --topology", "--topology %s --k 4"},
    {"simulate --topology", "--topology %s --k 4"},
    {"hl --topology", "--topology %s --shape 4x4"},
    {"replay --topology", "--topology %s --k 2"},
    {"--shape", "--shape 4x4"},
    {"--wrap", "--wrap all"},
    {"--nodes", "--nodes OUT/NODES.txt"},
    {"--network", "!--n --network OUT/net16.net"},
    {"--loads", "--loads OUT/loads.txt"},
    {"map --loads", "--kind general --loads OUT/loads.txt"},
    {"hl --shape", "--shape 2x8"},
    {"simulate --shape", "--shape 2x2x2x2"},
    {"--pattern", "--pattern transpose"},
    {"--matrix", "--matrix 0010;0001;1000;0100"},
    {"--vector", "--matrix 0010;0001;1000;0100 --vector 1000"},
    {"--scatter", "--matrix 0000;0000;1000;0100 --scatter"},
    {"--seed", "--seed 7"},
    {"--threads", "--threads 2"},
    {"--max-memory", "--max-memory 1G"},
    {"--max-time", "--max-time 100"},
    {"--sweep", "--sweep 0.1:0.2:0.1"},
    {"--plot", "--plot OUT/p.svg"},
    {"--plot-barrier", "--plot-barrier OUT/b.svg --barrier 10"},
    {"--size", "--plot OUT/p.svg --size 800x500"},
    {"figures --size", "--size 800x500"},
    {"replay --size", "--timeline OUT/t.svg --size 800x500"},
    {"--emit-goal", "--emit-goal OUT/g.goal"},
    {"replay --emit-goal", "!GOAL TRACE --emit-goal OUT/g.goal"},
    {"replay --collectives", "!GOAL TRACE --collectives %s"},
    {"replay --compute-scale", "!GOAL TRACE --compute-scale 0.5"},
    {"map --collectives", "--traffic TRACE --collectives %s"},
    {"map --from", "--traffic TRACE --from 0"},
    {"map --to", "--traffic TRACE --to 1"},
    {"map --region", "--traffic TRACE --region iteration"},
    {"simulate --collectives", "!--pattern --pairs TRACE --collectives %s"},
    {"simulate --from", "!--pattern --pairs TRACE --from 0"},
    {"simulate --to", "!--pattern --pairs TRACE --to 1"},
    {"simulate --region", "!--pattern --pairs TRACE --region iteration"},
    {"--out", "--out OUT/o.txt"},
    {"figures --out", "--out OUT/fig"},
    {"--mapping", "--mapping none"},
    {"--routing", "--routing ecube"},
    {"--configs", "--configs ecube"},
    {"simulate --configs", "--compare --configs ecube"},
    {"--startup", "--startup 100"},
    {"--byte-time", "--byte-time 1"},
    {"--kind", "--kind %s"},
    {"--objective", "--objective %s"},
    {"map --objective", "--objective %s --pattern bit-reverse"},
    {"map --evals", "--evals 10"},
    {"map --q", "--q 0010;0001;1000;0100"},
    {"map --method", "--method %s"},
    {"map --traffic", "--traffic GOAL"},
    {"map --work", "--kind general --work 1"},
    {"map --baseline", "--kind general --baseline %s"},
    {"map --hops-cap", "--kind general --hops-cap %s"},
    {"map --grid", "--stencil 5pt --grid 4x4"},
    {"map --periodic", "--stencil 5pt --grid 4x4 --periodic"},
    {"map --grid-order", "--stencil 5pt --grid 4x4 --grid-order %s"},
    {"map --collective", "--collective %s"},
    {"map --bytes", "--collective alltoall --bytes 1K"},
    {"map --phases", "--traffic GOAL --phases %s"},
    {"map --emit-traffic", "--collective alltoall --emit-traffic OUT/t.txt"},
    {"map --mapping", "--kind general --mapping MAPPING"},
    {"map --search", "--search"},
    {"map --exact", "--exact"},
    {"map --emit-c", "--emit-c"},
    {"hl --mode", "--mode %s"},
    {"hl --msb-first", "--msb-first"},
    {"hl --trace", "--trace"},
    {"hl --verify", "--verify"},
    {"hl --samples", "--verify --samples 3"},
    {"hl --census", "--census 2"},
    {"hl --plc-count", "--plc-count 4"},
    {"hl --csv", "--census 2 --csv"},
    {"calmant load --tie", "--topology torus --tie %s"},
    {"calmant schedule --tie", "--topology torus --tie %s"},
    {"calmant schedule --mesh-schedule", "--topology torus --mesh-schedule"},
    {"calmant schedule --verbose", "--verify --verbose"},
    {"calmant load --embedding", "--embedding %s"},
    {"calmant cost --degree", "--degree 4"},
    {"calmant alltoall --degree", "--degree 4"},
    {"calmant alltoall --methods", "--methods calmant"},
    {"--barrier", "--barrier 10"},
    {"simulate --vc-rule", "--vc-rule %s --k 4"},
    {"simulate --vcs", "--vcs 2"},
    {"simulate --rate", "!--oneshot --rate 0.1"},
    {"simulate --sweep", "!--oneshot --sweep 0.1:0.2:0.1"},
    {"simulate --no-stop", "!--oneshot --sweep 0.1:0.2:0.1 --no-stop"},
    {"simulate --tie", "--k 4 --tie %s"},
    {"simulate --injection", "--injection %s"},
    {"simulate --compare", "--compare"},
    {"simulate --set", "--compare --set transpose"},
    {"simulate --channel-util", "--channel-util"},
    {"butterfly --r", "--method multisect --r 2"},
    {"butterfly --trace", "--trace"},
    {"butterfly --motions", "--motions"},
    {"butterfly --plot", "--plot OUT/p.svg"},
    {"fft-study --points", "--points 1024"},
    {"gray --first", "--first 3"},
    {"gray --count", "--count 4"},
    {"figures --torus", "--torus"},
    {"replay --bytes-per-flit", "--bytes-per-flit 2"},
    {"replay --timeline", "--timeline OUT/t.json"},
    {"replay --loggops", "--model loggops --loggops L=1"},
    {"analyze --csv", "--csv"},
    {"analyze --shape", "!--n --shape 4x4"},
    {"map --shape", "!--n --shape 4x4"},
    {"replay --shape", "!--n --shape 4x4"},
    {"fft-study --shape", "!--n --shape 4x4"},
    {"replay --nodes", "!--n --n 4 --nodes OUT/NODES.txt"},
    {"analyze --tie", "--k 4 --tie %s"},
    {"map --tie", "--k 4 --tie %s"},
    {"analyze --matrix", "!--pattern --matrix 0010;0001;1000;0100"},
    {"analyze --vector", "!--pattern --matrix 0010;0001;1000;0100 --vector 1000"},
    {"analyze --scatter", "!--pattern --matrix 0000;0000;1000;0100 --scatter"},
    {"analyze --seed", "--pattern uniform --seed 7"},
    {"hl --matrix", "!--pattern --matrix 0010;0001;1000;0100"},
    {"hl --vector", "!--pattern --matrix 0010;0001;1000;0100 --vector 1000"},
    {"hl --perm", "!--pattern --perm 1,0,3,2,5,4,7,6,9,8,11,10,13,12,15,14"},
    {"simulate --matrix", "!--pattern --matrix 0010;0001;1000;0100"},
    {"simulate --vector", "!--pattern --matrix 0010;0001;1000;0100 --vector 1000"},
    {"simulate --scatter", "!--pattern --matrix 0000;0000;1000;0100 --scatter"},
    {"simulate --pairs", "!--pattern --pairs PAIRS"},
    {"map --machine", "--format slurm-hostfile --out OUT/h.txt --machine MACHINE"},
    {"map --hosts", "--format slurm-hostfile --out OUT/h.txt --hosts h%%d --slots-per-host 4"},
    {"map --slots-per-host", "--format slurm-hostfile --out OUT/h.txt --hosts h%%d --slots-per-host 4"},
    {"map --fill", "--format slurm-hostfile --out OUT/h.txt --hosts h%%d --slots-per-host 4 --fill %s"},
    {"map --first-host", "--format slurm-hostfile --out OUT/h.txt --hosts h%%d --slots-per-host 4 --first-host 1"},
    {"map --format", "--format %s --out OUT/e.txt --machine MACHINE"},
    {"export --format", "--format %s --machine MACHINE"},
    {"export --shape", "!--n --shape 4x4"},
    {"export --tie", "--k 4 --n 2 --tie %s"},
    {"export --machine", "--format slurm-hostfile --machine MACHINE"},
    {"export --hosts", "--format slurm-hostfile --hosts h%%d --slots-per-host 4"},
    {"export --slots-per-host", "--format slurm-hostfile --hosts h%%d --slots-per-host 4"},
    {"export --fill", "--format slurm-hostfile --hosts h%%d --slots-per-host 4 --fill %s"},
    {"export --first-host", "--format slurm-hostfile --hosts h%%d --slots-per-host 4 --first-host 1"},
    {NULL, NULL},
};

/* Choices a command takes only together with another option. */
static const struct {
    const char *key, *args;
} choice_samples[] = {
    {"map --kind general", "--kind general"},
    {"map --stencil 5pt", "--stencil 5pt --grid 4x4"},
    {"map --stencil 9pt", "--stencil 9pt --grid 4x4"},
    {"map --stencil 7pt", "--stencil 7pt --grid 4x2x2"},
    {"map --stencil 27pt", "--stencil 27pt --grid 4x2x2"},
    {"map --method optimizer", "--method optimizer --kind reorder"},
    {"map --method exhaustive", "--method exhaustive --kind reorder"},
    {"simulate --vc-rule dateline", "--vc-rule dateline --k 4 --vcs 2"},
    {"simulate --vc-rule highlow", "--vc-rule highlow --k 4 --vcs 2"},
    {"simulate --topology hypercube", "--topology hypercube"},
    {"map --topology hypercube", "--topology hypercube"},
    {"analyze --topology hypercube", "--topology hypercube"},
    {"map --topology mesh", "!--n --topology mesh --shape 4x4"},
    {"analyze --topology mesh", "!--n --topology mesh --shape 4x4"},
    {"simulate --topology mesh", "--topology mesh --k 4"},
    {"replay --topology torus", "--topology torus --k 4 --n 1"},
    {"replay --topology mesh", "--topology mesh --k 8 --n 1"},
    {"hl --topology hypercube", "--topology hypercube"},
    {"butterfly --method multisect", "--method multisect --r 2"},
    {"map --format nodelist", "--format nodelist --out OUT/e.txt"},
    {"map --format scotch-map", "--format scotch-map --out OUT/e.txt"},
    {"export --format nodelist", "--format nodelist"},
    {"export --format scotch-map", "--format scotch-map"},
    {"map --format bgq-mapfile", "--format bgq-mapfile --out OUT/e.txt"},
    {"map --format fujitsu-rankmap", "--format fujitsu-rankmap --out OUT/e.txt"},
    {"export --format bgq-mapfile", "--format bgq-mapfile"},
    {"export --format fujitsu-rankmap", "--format fujitsu-rankmap"},
    {NULL, NULL},
};

static const char *lookup(const char *path, const char *name, const char *choice)
{
    char key[128];
    if (choice) {
        snprintf(key, sizeof key, "%s --%s %s", path, name, choice);
        for (int i = 0; choice_samples[i].key; i++)
            if (strcmp(choice_samples[i].key, key) == 0)
                return choice_samples[i].args;
    }
    snprintf(key, sizeof key, "%s --%s", path, name);
    for (int i = 0; samples[i].key; i++)
        if (strcmp(samples[i].key, key) == 0)
            return samples[i].args;
    snprintf(key, sizeof key, "--%s", name);
    for (int i = 0; samples[i].key; i++)
        if (strcmp(samples[i].key, key) == 0)
            return samples[i].args;
    return NULL;
}

/* Run the check of `path base extra` (extra's words replace earlier words
 * of the same option: --n 1 in extra overrides --n 3). Returns the exit
 * status; stderr's text in err. */
static int check_line(const char *path, const char *base, const char *extra, char *err, size_t errsize)
{
    char words[1024];
    snprintf(words, sizeof words, "%s %s", base, extra);
    char *argv[64];
    int argc = 0;
    char pathbuf[64];
    snprintf(pathbuf, sizeof pathbuf, "%s", path);
    for (char *t = strtok(pathbuf, " "); t; t = strtok(NULL, " "))
        argv[argc++] = t;
    char *rest[64];
    int nrest = 0;
    for (char *t = strtok(words, " "); t; t = strtok(NULL, " "))
        rest[nrest++] = t;
    /* "!--name" in extra drops --name (and its value) from the base line. */
    for (int i = 0; i < nrest; i++)
        if (rest[i] && rest[i][0] == '!') {
            for (int k = 0; k < i; k++)
                if (rest[k] && strcmp(rest[k], rest[i] + 1) == 0) {
                    rest[k] = NULL;
                    if (k + 1 < i && rest[k + 1] && rest[k + 1][0] != '-')
                        rest[k + 1] = NULL;
                }
            rest[i] = NULL;
        }
    /* Keep the last occurrence of an option given twice (base, then extra). */
    for (int i = 0; i < nrest; i++) {
        if (!rest[i])
            continue;
        int dropped = 0;
        if (rest[i][0] == '-')
            for (int k = i + 1; k < nrest; k++)
                if (rest[k] && strcmp(rest[k], rest[i]) == 0) {
                    rest[i] = NULL;
                    if (i + 1 < nrest && rest[i + 1] && rest[i + 1][0] != '-')
                        rest[i + 1] = NULL;
                    dropped = 1;
                    break;
                }
        if (dropped)
            continue;
        argv[argc++] = rest[i];
    }
    /* Placeholders: the schedule, the pairs file and files in the scratch directory. */
    static char buf[64][160];
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "GOAL") == 0)
            argv[i] = goal_path;
        else if (strcmp(argv[i], "TRACE") == 0) {
            snprintf(buf[i], sizeof buf[i], "%s/trace/traces.otf2", out_dir);
            argv[i] = buf[i];
        }
        else if (strcmp(argv[i], "MACHINE") == 0 || strcmp(argv[i], "MAPPING") == 0) {
            snprintf(buf[i], sizeof buf[i], "%s/%s.txt", out_dir, argv[i]);
            argv[i] = buf[i];
        } else if (strcmp(argv[i], "PAIRS") == 0 || strncmp(argv[i], "OUT/", 4) == 0) {
            snprintf(buf[i], sizeof buf[i], "%s%s", out_dir, strcmp(argv[i], "PAIRS") == 0 ? "/pairs.txt" : argv[i] + 3);
            argv[i] = buf[i];
        }
    }
    const cli_command *cmd = cli_find_command(argv[0]);
    assert_non_null(cmd);
    FILE *saved = stderr, *cap = tmpfile();
    assert_non_null(cap);
    stderr = cap;
    int r = cli_run_command(cmd, argc, argv, 1);
    fflush(cap);
    stderr = saved;
    rewind(cap);
    size_t got = fread(err, 1, errsize - 1, cap);
    err[got] = '\0';
    fclose(cap);
    return r;
}

/* The files the basic uses and samples name: a schedule (GOAL), a pairs
 * file, and a machine description and a node list for the 16 nodes of
 * --n 4, in a fresh scratch directory (out_dir). */
static void write_fixtures(void)
{
    snprintf(out_dir, sizeof out_dir, "/tmp/kc_opt_table.XXXXXX");
    assert_non_null(mkdtemp(out_dir));
    snprintf(goal_path, sizeof goal_path, "%s/t.goal", out_dir);
    FILE *g = fopen(goal_path, "w");
    assert_non_null(g);
    fputs("num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n", g);
    fclose(g);
    char path[128];
    snprintf(path, sizeof path, "%s/pairs.txt", out_dir);
    assert_non_null(g = fopen(path, "w"));
    fputs("0 1\n1 0\n", g);
    fclose(g);
    snprintf(path, sizeof path, "%s/MACHINE.txt", out_dir);
    assert_non_null(g = fopen(path, "w"));
    for (int x = 0; x < 16; x++)
        fprintf(g, "%d host%d %d\n", x, x / 4, x % 4);
    fclose(g);
    snprintf(path, sizeof path, "%s/NODES.txt", out_dir); /* an allocation: every router, last first */
    assert_non_null(g = fopen(path, "w"));
    for (int x = 0; x < 16; x++)
        fprintf(g, "%d\n", 15 - x);
    fclose(g);
    snprintf(path, sizeof path, "%s/net16.net", out_dir); /* a preset file: the 16 nodes of --n 4 */
    assert_non_null(g = fopen(path, "w"));
    fputs("name net16\naxes A B C D\nsides 2 2 2 2\n", g);
    fclose(g);
    snprintf(path, sizeof path, "%s/trace", out_dir); /* an OTF2 trace of two ranks */
    assert_int_equal(kc_test_otf2_write(path, 2, 1), 0);
    snprintf(path, sizeof path, "%s/MAPPING.txt", out_dir);
    assert_non_null(g = fopen(path, "w"));
    for (int x = 0; x < 16; x++)
        fprintf(g, "%d\n", 15 - x);
    fclose(g);
}

/* A text value whose placeholder lists words (none|optimal|set:P1,..|FILE):
 * every word the help offers is tried on top of the basic use. Returns the
 * failures (each printed). */
static int try_offered_words(const entry *e, const cli_opt *o, const char *base)
{
    const cli_narrow *nw = cli_narrowed(e->cmd, o);
    const char *meta = nw && nw->meta ? nw->meta : o->meta;
    if (o->type != CLI_TEXT || !meta || !strchr(meta, '|'))
        return 0;
    int failures = 0;
    char words[128], err[2048];
    snprintf(words, sizeof words, "%s", meta);
    for (char *save = NULL, *t = strtok_r(words, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
        if (!(t[0] >= 'a' && t[0] <= 'z'))
            continue; /* a placeholder such as FILE */
        char extra[160];
        char *colon = strchr(t, ':');
        if (colon)
            snprintf(extra, sizeof extra, "--%s %.*s:transpose", o->name, (int)(colon - t), t);
        else
            snprintf(extra, sizeof extra, "--%s %s", o->name, t);
        if (check_line(e->path, base, extra, err, sizeof err)) {
            fprintf(stderr, "%s --help offers %s, refused: %s", e->path, extra, err);
            failures++;
        }
    }
    return failures;
}

/* The option as this command uses it, once per choice it accepts (once for
 * other types), with a sample value (samples[], else the default, else the
 * smallest sensible count) on top of the basic use. Returns the failures. */
static int try_values(const entry *e, const cli_use *u, const char *base)
{
    const cli_opt *o = u->opt;
    int nchoices = o->type == CLI_CHOICE ? (int)kc_names_count(o->choices) : 1, failures = 0;
    const kc_name *choice = o->type == CLI_CHOICE ? o->choices->entries : NULL;
    const char *def = u->def && !CLI_IS_REQUIRED(u) ? u->def : o->def;
    for (int c = 0; c < nchoices; c++) {
        const char *cname = choice ? choice[c].name : NULL;
        if (cname && !cli_allows(e->cmd, o, cname))
            continue;
        const char *tmpl = lookup(e->path, o->name, cname);
        char extra[256], err[2048];
        if (tmpl)
            snprintf(extra, sizeof extra, tmpl, cname ? cname : "");
        else if (o->type == CLI_FLAG)
            snprintf(extra, sizeof extra, "--%s", o->name);
        else if (o->type == CLI_CHOICE)
            snprintf(extra, sizeof extra, "--%s %s", o->name, cname);
        else if (def)
            snprintf(extra, sizeof extra, "--%s %s", o->name, def);
        else if (o->type == CLI_INT) /* the smallest sensible count */
            snprintf(extra, sizeof extra, "--%s %lld", o->name, o->lo > 1 ? o->lo : o->hi >= 1 ? 1 : o->lo);
        else {
            fprintf(stderr, "no sample value for %s --%s\n", e->path, o->name);
            failures++;
            continue;
        }
        int r = check_line(e->path, base, extra, err, sizeof err);
        if (r) {
            fprintf(stderr, "%s %s + %s: exit %d: %s", e->path, base, extra, r, err);
            failures++;
        }
    }
    return failures;
}

static void test_listed_options_accepted(void **state)
{
    (void)state;
    write_fixtures();
    int failures = 0;
    for (int a = 0; a < nentries; a++) {
        const cli_command *cmd = entries[a].cmd;
        const char *base = NULL;
        for (int b = 0; bases[b].path; b++)
            if (strcmp(bases[b].path, entries[a].path) == 0)
                base = bases[b].base;
        if (!cmd->check) {
            assert_true(!cmd->opts || !cmd->opts[0].opt || cmd->subs); /* every command with options is checked */
            continue;
        }
        if (!base)
            fail_msg("no basic use for %s: add a row to bases[] (docs/cli.md, Adding a subcommand)", entries[a].path);
        char err[2048];
        if (check_line(entries[a].path, base, "", err, sizeof err))
            fail_msg("the basic use '%s %s' fails: %s", entries[a].path, base, err);
        for (const cli_use *u = cmd->opts; u && u->opt; u++) {
            char given[64];
            snprintf(given, sizeof given, "--%s ", u->opt->name);
            if (strstr(base, given) != NULL && u->opt->type != CLI_CHOICE)
                continue; /* the basic use gives it already */
            failures += try_offered_words(&entries[a], u->opt, base);
            failures += try_values(&entries[a], u, base);
        }
    }
    char cmdline[128];
    snprintf(cmdline, sizeof cmdline, "rm -rf '%s'", out_dir);
    assert_int_equal(system(cmdline), 0);
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_meaning_per_name), cmocka_unit_test(test_one_default),
        cmocka_unit_test(test_narrow_and_aliases),   cmocka_unit_test(test_help_matches_table),
        cmocka_unit_test(test_defaults_rendered),
        cmocka_unit_test(test_listed_options_accepted),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
