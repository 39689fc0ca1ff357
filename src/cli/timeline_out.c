/* A replay's timeline as Chrome trace events or a Gantt chart
 * (timeline_out.h). The JSON is built one event at a time with cJSON (its
 * escaping and number printing) and streamed to the atomic writer, so a
 * schedule of millions of operations needs no tree of millions of nodes. */
#include "timeline_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "plot.h"
#include "kcube/reader.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

int cli_timeline_drawn(const char *path) { return ends_with(path, ".svg") || ends_with(path, ".png"); }

int cli_timeline_check(const char *path, uint32_t num_ranks)
{
    if (!cli_timeline_drawn(path))
        return cli_check_output(path);
    if (num_ranks > CLI_TIMELINE_MAX_DRAWN)
        return cli_error("--timeline: a drawing shows at most %d ranks, the schedule has %u (write FILE.json "
                         "and open it in Perfetto)", CLI_TIMELINE_MAX_DRAWN, num_ranks);
    return cli_plot_check(path);
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

typedef struct sink {
    FILE *f;
    int first, failed;
} sink;

static void emit(sink *k, cJSON *ev)
{
    char *s = ev ? cJSON_PrintUnformatted(ev) : NULL;
    cJSON_Delete(ev);
    if (!s) {
        k->failed = 1;
        return;
    }
    fputs(k->first ? "\n" : ",\n", k->f);
    fputs(s, k->f);
    cJSON_free(s);
    k->first = 0;
}

static cJSON *event(const char *name, const char *ph, uint32_t pid, uint32_t tid)
{
    cJSON *ev = cJSON_CreateObject();
    cJSON_AddStringToObject(ev, "name", name);
    cJSON_AddStringToObject(ev, "ph", ph);
    cJSON_AddNumberToObject(ev, "pid", pid);
    cJSON_AddNumberToObject(ev, "tid", tid);
    return ev;
}

static void metadata(sink *k, const kc_timeline *tl)
{
    char name[48];
    for (uint32_t r = 0; r < tl->num_ranks && !k->failed; r++) {
        uint32_t v = tl->node_of[r];
        int first_of_node = 1;
        for (uint32_t q = 0; q < r && first_of_node; q++)
            first_of_node = tl->node_of[q] != v;
        if (first_of_node) {
            cJSON *ev = event("process_name", "M", v, r);
            snprintf(name, sizeof name, "node %u", v);
            cJSON_AddStringToObject(cJSON_AddObjectToObject(ev, "args"), "name", name);
            emit(k, ev);
            ev = event("process_sort_index", "M", v, r);
            cJSON_AddNumberToObject(cJSON_AddObjectToObject(ev, "args"), "sort_index", v);
            emit(k, ev);
        }
        cJSON *ev = event("thread_name", "M", v, r);
        snprintf(name, sizeof name, "rank %u", r);
        cJSON_AddStringToObject(cJSON_AddObjectToObject(ev, "args"), "name", name);
        emit(k, ev);
        ev = event("thread_sort_index", "M", v, r);
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(ev, "args"), "sort_index", r);
        emit(k, ev);
    }
}

static void slice_event(sink *k, const kc_timeline *tl, const kc_tl_slice *s)
{
    cJSON *ev = event(kc_names_name(&kc_tl_kind_names, s->kind), "X", tl->node_of[s->rank], s->rank);
    cJSON_AddStringToObject(ev, "cat", kc_names_name(&kc_tl_kind_names, s->kind));
    cJSON_AddNumberToObject(ev, "ts", s->start_us);
    cJSON_AddNumberToObject(ev, "dur", s->dur_us);
    cJSON *args = cJSON_AddObjectToObject(ev, "args");
    if (s->kind == KC_TL_CALC) {
        cJSON_AddItemToObject(args, "ns", cli_json_u64(s->amount));
    } else {
        cJSON_AddNumberToObject(args, "peer", (double)s->peer);
        cJSON_AddItemToObject(args, "bytes", cli_json_u64(s->amount));
        cJSON_AddNumberToObject(args, "tag", (double)s->tag);
    }
    if (s->kind == KC_TL_RECV) {
        cJSON_AddNumberToObject(args, "posted_us", s->posted_us);
        cJSON_AddNumberToObject(args, "wait_us", s->start_us - s->posted_us);
    }
    if (s->op != SIZE_MAX)
        cJSON_AddItemToObject(args, "op", cli_json_u64(s->op));
    emit(k, ev);
}

/* A flow: "s" on the send's slice, "f" bound to the receive's enclosing
 * slice ("bp": "e"), each at its slice's start, which lies in it. */
static void flow_events(sink *k, const kc_timeline *tl, size_t id, const kc_tl_flow *fl)
{
    for (int end = 0; end < 2; end++) {
        const kc_tl_slice *s = &tl->slice[end ? fl->to : fl->from];
        cJSON *ev = event("message", end ? "f" : "s", tl->node_of[s->rank], s->rank);
        cJSON_AddStringToObject(ev, "cat", "message");
        cJSON_AddItemToObject(ev, "id", cli_json_u64(id));
        cJSON_AddNumberToObject(ev, "ts", s->start_us);
        if (end)
            cJSON_AddStringToObject(ev, "bp", "e");
        emit(k, ev);
    }
}

static int write_json(const char *path, const kc_timeline *tl, const char *schedule, const char *model)
{
    cli_atomic a;
    int rc = cli_atomic_open(&a, path);
    if (rc)
        return rc;
    sink k = {a.f, 1, 0};
    cJSON *other = cJSON_CreateObject();
    cJSON_AddStringToObject(other, "source", "kcube replay");
    cJSON_AddItemToObject(other, "schedule", text_item(schedule));
    cJSON_AddStringToObject(other, "model", model);
    cJSON_AddStringToObject(other, "time_unit", "microseconds");
    char *head = cJSON_PrintUnformatted(other);
    cJSON_Delete(other);
    if (head)
        fprintf(a.f, "{\"otherData\":%s,\"traceEvents\":[", head);
    k.failed = !head;
    cJSON_free(head);
    metadata(&k, tl);
    for (size_t i = 0; i < tl->nslices && !k.failed; i++)
        slice_event(&k, tl, &tl->slice[i]);
    for (size_t i = 0; i < tl->nflows && !k.failed; i++)
        flow_events(&k, tl, i, &tl->flow[i]);
    fputs("\n]}\n", a.f);
    if (k.failed) {
        cli_atomic_abort(&a);
        fprintf(stderr, "kcube: cannot write the timeline: out of memory\n");
        return CLI_EXIT_FAIL;
    }
    return cli_atomic_commit(&a);
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
    fputs(" noenhanced\nset xlabel 'time (us)'\nset ylabel 'rank'\n", f);
    fprintf(f, "set xrange [0:%.17g]\nset yrange [%.17g:-0.6]\n", end > 0 ? end * 1.02 : 1, tl->num_ranks - 0.4);
    fprintf(f, "set ytics %d\nset grid xtics\nset key below horizontal noenhanced\n",
            tl->num_ranks > 32 ? 4 : 1);
    fputs("set style fill solid 0.85 border lc rgb '#333333'\n", f);
    block(f, "calc", tl, KC_TL_CALC, 0);
    block(f, "send", tl, KC_TL_SEND, 0);
    block(f, "recv", tl, KC_TL_RECV, 0);
    block(f, "mark", tl, KC_TL_RECV, 1); /* receives that cost no processor time: a mark, not a box */
    fputs("$msg << EOD\n", f);
    for (size_t i = 0; i < tl->nflows; i++) {
        const kc_tl_slice *s = &tl->slice[tl->flow[i].from], *r = &tl->slice[tl->flow[i].to];
        double x0 = s->start_us + s->dur_us;
        fprintf(f, "%.17g %u %.17g %.17g\n", x0, s->rank, r->start_us - x0, (double)r->rank - (double)s->rank);
    }
    fputs(tl->nflows ? "EOD\n" : "NaN NaN NaN NaN\nEOD\n", f);
    fputs("plot $msg using 1:2:3:4 with vectors head filled size screen 0.006,20 lc rgb '#888888' lw 1 "
          "title 'message', "
          "$calc using 1:2:3:4 with boxxyerror lc rgb '#2ca02c' title 'calc', "
          "$send using 1:2:3:4 with boxxyerror lc rgb '#1f5fbf' title 'send', "
          "$recv using 1:2:3:4 with boxxyerror lc rgb '#d62728' title 'recv', "
          "$mark using 1:2 with points pt 7 ps 0.6 lc rgb '#d62728' title 'recv (no processor time)'",
          f);
}

int cli_timeline_write(const char *path, const kc_timeline *tl, const char *schedule, const char *model)
{
    if (!cli_timeline_drawn(path))
        return write_json(path, tl, schedule, model);
    if (tl->num_ranks > CLI_TIMELINE_MAX_DRAWN)
        return cli_error("--timeline: a drawing shows at most %d ranks", CLI_TIMELINE_MAX_DRAWN);
    gantt gt = {tl, schedule, model};
    int h = 160 + 18 * (int)tl->num_ranks;
    return cli_plot_custom(path, 1200, h < 420 ? 420 : h, gantt_body, &gt);
}
