/* kcube replay --timeline: a replay's timeline as Chrome trace events or a
 * Gantt chart (replay_timeline.h). The JSON is streamed to the atomic
 * writer one event at a time, so a schedule of millions of operations needs no tree of
 * millions of nodes: the header, which holds the user's file name, is built
 * by cJSON (its escaping); the events hold only numbers and fixed names and
 * are printed directly, with cJSON's rule for numbers (a cJSON tree per
 * event took 20 us an event, five times the replay). */
#include "replay_timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "plot.h"
#include "text.h"
#include "kcube/reader.h"

int cli_timeline_drawn(const char *path) { return cli_plot_supported(path); }

/* Trace-event JSON: a name ending in .json, or standard output, a device
 * or FIFO without a chart's extension. */
static int is_json(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash) && !strcmp(dot, ".json"))
        return 1;
    return !cli_timeline_drawn(path) && cli_plot_is_stream(path);
}

int cli_timeline_check(const char *path, const char *size, uint32_t num_ranks)
{
    cli_quoted q;
    if (!cli_timeline_drawn(path) && !is_json(path))
        return cli_error("--timeline '%s': the name must end in .json (Chrome trace events) or .png, .svg, .pdf "
                         "or .eps (a chart)", cli_quote(&q, path));
    if (!cli_timeline_drawn(path))
        return size ? cli_error("--size: a .json timeline has no size (it applies to a drawn one)")
                    : cli_check_output(path);
    if (num_ranks > CLI_TIMELINE_MAX_DRAWN)
        return cli_error("--timeline: a drawing shows at most %d ranks, the schedule has %u (write FILE.json "
                         "and open it in Perfetto)", CLI_TIMELINE_MAX_DRAWN, num_ranks);
    return cli_plot_check_sized(path, size);
}

/* ---- trace-event JSON ---------------------------------------------------------- */

/* Text for JSON: cJSON copies bytes as they are, so invalid UTF-8 (a file
 * name) is escaped first, as in messages. */
static cJSON *text_item(const char *s)
{
    size_t len = strlen(s), size = 4 * len + 8;
    char *esc = malloc(size);
    cJSON *item = cJSON_CreateString(esc ? kc_escape(esc, size, s, len) : "?");
    free(esc);
    return item;
}

/* A number as JSON, exact and short: an integer as one, else the shortest
 * of 15 or 17 significant digits that reads back the same (cJSON's rule). */
static void put_num(FILE *f, double x)
{
    if (x == floor(x) && fabs(x) < 1e15) {
        fprintf(f, "%lld", (long long)x);
        return;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%.15g", x);
    if (strtod(buf, NULL) != x)
        snprintf(buf, sizeof buf, "%.17g", x);
    fputs(buf, f);
}

/* The start of one event, up to its tid; the caller adds the rest and "}". */
static void event(FILE *f, int *first, const char *name, const char *ph, uint32_t pid, uint64_t tid)
{
    fprintf(f, "%s{\"name\":\"%s\",\"ph\":\"%s\",\"pid\":%u,\"tid\":%llu", *first ? "\n" : ",\n", name,
            ph, pid, (unsigned long long)tid);
    *first = 0;
}

/* A rank's track: its tid is the rank for CPU 0 and ranks x cpu + rank for
 * another CPU (GOAL's `cpu N`), so slices of CPUs that run at once never
 * overlap on a track (a trace viewer nests or drops overlapping ones). */
static uint64_t track(const kc_timeline *tl, uint32_t rank, unsigned cpu)
{
    return (uint64_t)tl->num_ranks * cpu + rank;
}

/* Names for the tracks: each node once, each rank. -1 when memory ran out. */
static int metadata(FILE *f, int *first, const kc_timeline *tl)
{
    uint32_t nodes = 0;
    for (uint32_t r = 0; r < tl->num_ranks; r++)
        nodes = tl->node_of[r] >= nodes ? tl->node_of[r] + 1 : nodes;
    unsigned char *named = calloc((size_t)nodes + 1, 1);
    if (!named)
        return -1;
    for (uint32_t r = 0; r < tl->num_ranks; r++) {
        uint32_t v = tl->node_of[r];
        if (!named[v]) {
            named[v] = 1;
            event(f, first, "process_name", "M", v, r);
            fprintf(f, ",\"args\":{\"name\":\"node %u\"}}", v);
            event(f, first, "process_sort_index", "M", v, r);
            fprintf(f, ",\"args\":{\"sort_index\":%u}}", v);
        }
        event(f, first, "thread_name", "M", v, r);
        fprintf(f, ",\"args\":{\"name\":\"rank %u\"}}", r);
        event(f, first, "thread_sort_index", "M", v, r);
        fprintf(f, ",\"args\":{\"sort_index\":%u}}", r);
    }
    free(named);
    /* the tracks of further CPUs, each once, after their rank's */
    unsigned char *seen = calloc((size_t)tl->num_ranks * 32 + 1, 1); /* a bit per (rank, cpu) */
    if (!seen)
        return -1;
    for (size_t i = 0; i < tl->nslices; i++) {
        const kc_tl_slice *s = &tl->slice[i];
        size_t bit = (size_t)s->rank * 256 + s->cpu;
        if (!s->cpu || (seen[bit / 8] >> (bit % 8) & 1))
            continue;
        seen[bit / 8] |= (unsigned char)(1u << (bit % 8));
        uint32_t v = tl->node_of[s->rank];
        event(f, first, "thread_name", "M", v, track(tl, s->rank, s->cpu));
        fprintf(f, ",\"args\":{\"name\":\"rank %u cpu %u\"}}", s->rank, (unsigned)s->cpu);
        event(f, first, "thread_sort_index", "M", v, track(tl, s->rank, s->cpu));
        fprintf(f, ",\"args\":{\"sort_index\":%u}}", s->rank);
    }
    free(seen);
    return 0;
}

static void slice_event(FILE *f, int *first, const kc_timeline *tl, const kc_tl_slice *s)
{
    const char *kind = kc_names_name(&kc_tl_kind_names, s->kind);
    event(f, first, kind, "X", tl->node_of[s->rank], track(tl, s->rank, s->cpu));
    fprintf(f, ",\"cat\":\"%s\",\"ts\":", kind);
    put_num(f, s->start_us);
    fputs(",\"dur\":", f);
    put_num(f, s->dur_us);
    if (s->kind == KC_TL_CALC)
        fprintf(f, ",\"args\":{\"ns\":%llu", (unsigned long long)s->amount);
    else
        fprintf(f, ",\"args\":{\"peer\":%lld,\"bytes\":%llu,\"tag\":%lld", (long long)s->peer,
                (unsigned long long)s->amount, (long long)s->tag);
    if (s->kind == KC_TL_RECV) {
        fputs(",\"posted_us\":", f);
        put_num(f, s->posted_us);
        fputs(",\"wait_us\":", f);
        put_num(f, s->start_us - s->posted_us);
    }
    if (s->op != SIZE_MAX)
        fprintf(f, ",\"op\":%zu", s->op);
    fputs("}}", f);
}

/* One end of flow id: "s" on the send's slice, or "f" bound to the
 * receive's enclosing slice ("bp": "e"), at its slice's start, which lies
 * in it. Written right after its slice: a viewer that keeps the file's
 * order among events of one time (Perfetto) then binds it to that slice,
 * even one of length 0 or one that another slice follows at once. */
static void flow_event(FILE *f, int *first, const kc_timeline *tl, size_t id, const kc_tl_slice *s, int end)
{
    event(f, first, "message", end ? "f" : "s", tl->node_of[s->rank], track(tl, s->rank, s->cpu));
    fprintf(f, ",\"cat\":\"message\",\"id\":%zu,\"ts\":", id);
    put_num(f, s->start_us);
    fputs(end ? ",\"bp\":\"e\"}" : "}", f);
}

static int write_json(const char *path, const kc_timeline *tl, const char *schedule, const char *model)
{
    cJSON *other = cJSON_CreateObject();
    cJSON_AddStringToObject(other, "source", "kcube replay");
    cJSON_AddItemToObject(other, "schedule", text_item(schedule));
    cJSON_AddStringToObject(other, "model", model);
    cJSON_AddStringToObject(other, "time_unit", "microseconds");
    char *head = cJSON_PrintUnformatted(other);
    cJSON_Delete(other);
    if (!head) {
        fprintf(stderr, "kcube: cannot write the timeline: out of memory\n");
        return CLI_EXIT_FAIL;
    }
    cli_atomic a;
    int rc = cli_atomic_open(&a, path);
    if (rc) {
        cJSON_free(head);
        return rc;
    }
    int first = 1;
    fprintf(a.f, "{\"otherData\":%s,\"traceEvents\":[", head);
    cJSON_free(head);
    /* The flow of each send's and receive's slice (one each at most). */
    size_t *flow_at = malloc((tl->nslices + 1) * sizeof *flow_at);
    if (flow_at) {
        for (size_t i = 0; i < tl->nslices; i++)
            flow_at[i] = SIZE_MAX;
        for (size_t k = 0; k < tl->nflows; k++)
            flow_at[tl->flow[k].from] = flow_at[tl->flow[k].to] = k;
    }
    if (!flow_at || metadata(a.f, &first, tl)) {
        free(flow_at);
        cli_atomic_abort(&a);
        fprintf(stderr, "kcube: cannot write the timeline: out of memory\n");
        return CLI_EXIT_FAIL;
    }
    for (size_t i = 0; i < tl->nslices; i++) {
        slice_event(a.f, &first, tl, &tl->slice[i]);
        if (flow_at[i] != SIZE_MAX)
            flow_event(a.f, &first, tl, flow_at[i], &tl->slice[i], tl->slice[i].kind == KC_TL_RECV);
    }
    free(flow_at);
    fputs("\n]}\n", a.f);
    return cli_atomic_commit(&a); /* write errors surface in its checked flush */
}

/* ---- Gantt chart ---------------------------------------------------------------- */

typedef struct gantt {
    const kc_timeline *tl;
    const char *schedule, *model;
} gantt;

static void block(FILE *f, const char *name, const kc_timeline *tl, int kind, int points)
{
    fprintf(f, "$%s << EOD\n", name);
    int any = 0;
    for (size_t i = 0; i < tl->nslices; i++) {
        const kc_tl_slice *s = &tl->slice[i];
        if (s->kind != kind || (points ? s->dur_us > 0 : s->dur_us <= 0))
            continue;
        any = 1;
        /* boxxyerror: centre, rank, half width, half height */
        fprintf(f, "%.17g %u %.17g 0.32\n", s->start_us + s->dur_us / 2, s->rank, s->dur_us / 2);
    }
    fputs(any ? "EOD\n" : "NaN NaN NaN NaN\nEOD\n", f);
}

/* Message arrows, from the end of a send's slice to the start of its
 * receive's; none above CLI_TIMELINE_MAX_ARROWS ranks, where they would
 * cover the slices (the title then says how many there are). */
static void arrows(FILE *f, const kc_timeline *tl)
{
    fputs("$msg << EOD\n", f);
    int drawn = tl->num_ranks <= CLI_TIMELINE_MAX_ARROWS;
    for (size_t i = 0; drawn && i < tl->nflows; i++) {
        const kc_tl_slice *s = &tl->slice[tl->flow[i].from], *r = &tl->slice[tl->flow[i].to];
        double x0 = s->start_us + s->dur_us;
        fprintf(f, "%.17g %u %.17g %.17g\n", x0, s->rank, r->start_us - x0, (double)r->rank - (double)s->rank);
    }
    fputs(drawn && tl->nflows ? "EOD\n" : "NaN NaN NaN NaN\nEOD\n", f);
}

static void gantt_body(FILE *f, const void *ctx)
{
    const gantt *gt = ctx;
    const kc_timeline *tl = gt->tl;
    double end = kc_timeline_end(tl);
    fputs("set title ", f);
    cli_plot_quote(f, "timeline of ");
    fputs(".", f);
    cli_plot_quote(f, gt->schedule);
    fputs(".", f);
    cli_plot_quote(f, " (model ");
    fputs(".", f);
    cli_plot_quote(f, gt->model);
    fputs(".')'", f);
    if (tl->num_ranks > CLI_TIMELINE_MAX_ARROWS)
        fprintf(f, ".\"\\n%zu messages, not drawn above %d ranks (the .json trace has them)\"", tl->nflows,
                CLI_TIMELINE_MAX_ARROWS);
    fputs(" noenhanced\nset xlabel 'time (µs)'\nset ylabel 'rank'\n", f);
    fprintf(f, "set xrange [0:%.17g]\nset yrange [%.17g:-0.6]\n", end > 0 ? end * 1.02 : 1, tl->num_ranks - 0.4);
    fprintf(f, "set ytics %d\nset grid xtics\nset key below horizontal noenhanced\n",
            tl->num_ranks > 32 ? 4 : 1);
    fputs("set style fill solid 0.85 border lc rgb '#333333'\n", f);
    block(f, "calc", tl, KC_TL_CALC, 0);
    block(f, "send", tl, KC_TL_SEND, 0);
    block(f, "recv", tl, KC_TL_RECV, 0);
    block(f, "mark", tl, KC_TL_RECV, 1); /* receives that cost no processor time: a mark, not a box */
    arrows(f, tl);
    fputs("plot $msg using 1:2:3:4 with vectors head filled size screen 0.006,20 lc rgb '#888888' lw 1 ", f);
    fputs(tl->num_ranks <= CLI_TIMELINE_MAX_ARROWS ? "title 'message', " : "notitle, ", f);
    fputs("$calc using 1:2:3:4 with boxxyerror lc rgb '#2ca02c' title 'calc', "
          "$send using 1:2:3:4 with boxxyerror lc rgb '#1f5fbf' title 'send', "
          "$recv using 1:2:3:4 with boxxyerror lc rgb '#d62728' title 'recv', "
          "$mark using 1:2 with points pt 7 ps 0.6 lc rgb '#d62728' title 'recv (no processor time)'",
          f);
}

int cli_timeline_write(const char *path, const char *size, const kc_timeline *tl, const char *schedule,
                       const char *model)
{
    if (!cli_timeline_drawn(path))
        return write_json(path, tl, schedule, model);
    if (tl->num_ranks > CLI_TIMELINE_MAX_DRAWN)
        return cli_error("--timeline: a drawing shows at most %d ranks", CLI_TIMELINE_MAX_DRAWN);
    gantt gt = {tl, schedule, model};
    int h = 160 + 18 * (int)tl->num_ranks;
    return cli_plot_custom(path, size, 1200, h < 420 ? 420 : h, gantt_body, &gt);
}
