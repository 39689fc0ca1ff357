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
#include "core/sort.h"
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

int cli_timeline_check(const char *path, const char *size)
{
    cli_quoted q;
    if (!cli_timeline_drawn(path) && !is_json(path))
        return cli_error("--timeline '%s': the name must end in .json (Chrome trace events) or .png, .svg, .pdf "
                         "or .eps (a chart)", cli_quote(&q, path));
    if (!cli_timeline_drawn(path))
        return size ? cli_error("--size: a .json timeline has no size (it applies to a drawn one)")
                    : cli_check_output(path);
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

/* The track of a wait (no processor time, so waits may overlap each other
 * and the busy slices): lane k of its rank, tid ranks x (256 + k) + rank,
 * past every CPU's; the waits of one lane are nested or disjoint, as a
 * viewer needs on one track. */
static uint64_t wait_track(const kc_timeline *tl, uint32_t rank, uint32_t lane)
{
    return (uint64_t)tl->num_ranks * (256 + (uint64_t)lane) + rank;
}

static uint64_t slice_track(const kc_timeline *tl, const kc_tl_slice *s, const uint32_t *lane_of, size_t i)
{
    return s->kind == KC_TL_WAIT ? wait_track(tl, s->rank, lane_of[i]) : track(tl, s->rank, s->cpu);
}

/* Waits by rank, then start, then the longer first (so that an enclosing
 * wait comes before what it encloses), then index. */
static int wait_cmp(const void *ctx, const size_t *a, const size_t *b)
{
    const kc_tl_slice *x = &((const kc_tl_slice *)ctx)[*a], *y = &((const kc_tl_slice *)ctx)[*b];
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->start_us != y->start_us)
        return x->start_us < y->start_us ? -1 : 1;
    double ex = x->start_us + x->dur_us, ey = y->start_us + y->dur_us;
    return ex > ey ? -1 : ex < ey;
}

KCI_MERGE_SORT_DEFINE(sort_waits, size_t, wait_cmp)

/* lane_of[i] for each wait slice i: the first lane of its rank where it
 * nests in or follows what is open (each lane a stack of open waits,
 * linked through up[]). -1 when memory
 * ran out. O(waits x lanes of a rank) at worst, O(waits log waits) when
 * waits of one rank nest (receives posted together). */
static int wait_lanes(const kc_timeline *tl, uint32_t *lane_of)
{
    size_t nw = 0, n1 = tl->nslices + 1;
    size_t *w = malloc(n1 * sizeof *w), *tmp = malloc(n1 * sizeof *tmp), *up = malloc(n1 * sizeof *up);
    size_t *top = malloc(n1 * sizeof *top);
    if (!w || !tmp || !up || !top) {
        free(w), free(tmp), free(up), free(top);
        return -1;
    }
    for (size_t i = 0; i < tl->nslices; i++)
        if (tl->slice[i].kind == KC_TL_WAIT)
            w[nw++] = i;
    sort_waits(w, nw, tmp, tl->slice);
    uint32_t used = 0; /* lanes of the current rank */
    for (size_t k = 0; k < nw; k++) {
        const kc_tl_slice *s = &tl->slice[w[k]];
        double a = s->start_us, b = s->start_us + s->dur_us;
        if (k && tl->slice[w[k - 1]].rank != s->rank)
            used = 0;
        uint32_t lane = 0;
        for (; lane < used; lane++) {
            while (top[lane] != SIZE_MAX && tl->slice[top[lane]].start_us + tl->slice[top[lane]].dur_us <= a)
                top[lane] = up[top[lane]];
            if (top[lane] == SIZE_MAX || tl->slice[top[lane]].start_us + tl->slice[top[lane]].dur_us >= b)
                break;
        }
        if (lane == used)
            top[used++] = SIZE_MAX;
        up[w[k]] = top[lane];
        top[lane] = w[k];
        lane_of[w[k]] = lane;
    }
    free(w), free(tmp), free(up), free(top);
    return 0;
}

/* Names for the wait lanes of each rank, each once: "rank R waits" and
 * "rank R waits N" for lane N > 0. -1 when memory ran out. */
static int wait_metadata(FILE *f, int *first, const kc_timeline *tl, const uint32_t *lane_of)
{
    uint32_t *named = calloc((size_t)tl->num_ranks + 1, sizeof *named); /* lanes named per rank */
    if (!named)
        return -1;
    for (size_t i = 0; i < tl->nslices; i++) {
        const kc_tl_slice *s = &tl->slice[i];
        if (s->kind != KC_TL_WAIT)
            continue;
        for (uint32_t lane = named[s->rank]; lane <= lane_of[i]; lane++) {
            uint32_t v = tl->node_of[s->rank];
            event(f, first, "thread_name", "M", v, wait_track(tl, s->rank, lane));
            fprintf(f, lane ? ",\"args\":{\"name\":\"rank %u waits %u\"}}" : ",\"args\":{\"name\":\"rank %u waits\"}}",
                    s->rank, lane);
            event(f, first, "thread_sort_index", "M", v, wait_track(tl, s->rank, lane));
            fprintf(f, ",\"args\":{\"sort_index\":%u}}", s->rank);
        }
        if (lane_of[i] >= named[s->rank])
            named[s->rank] = lane_of[i] + 1;
    }
    free(named);
    return 0;
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
        if (!s->cpu || s->kind == KC_TL_WAIT || (seen[bit / 8] >> (bit % 8) & 1))
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

static void slice_event(FILE *f, int *first, const kc_timeline *tl, const kc_tl_slice *s, uint64_t tid)
{
    const char *kind = kc_names_name(&kc_tl_kind_names, s->kind);
    event(f, first, kind, "X", tl->node_of[s->rank], tid);
    fprintf(f, ",\"cat\":\"%s\",\"ts\":", kind);
    put_num(f, s->start_us);
    fputs(",\"dur\":", f);
    put_num(f, s->dur_us);
    if (s->kind == KC_TL_CALC)
        fprintf(f, ",\"args\":{\"ns\":%llu", (unsigned long long)s->amount);
    else
        fprintf(f, ",\"args\":{\"peer\":%lld,\"bytes\":%llu,\"tag\":%lld", (long long)s->peer,
                (unsigned long long)s->amount, (long long)s->tag);
    if (s->kind == KC_TL_RECV || s->kind == KC_TL_WAIT) {
        /* a receive's wait: from its posting to its match (a message
         * taken before the posting is matched at once) */
        double wait = s->kind == KC_TL_WAIT ? s->dur_us : s->start_us - s->posted_us;
        fputs(",\"posted_us\":", f);
        put_num(f, s->posted_us);
        fputs(",\"wait_us\":", f);
        put_num(f, wait > 0 ? wait : 0);
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
    event(f, first, "message", end ? "f" : "s", tl->node_of[s->rank], track(tl, s->rank, s->cpu)); /* never a wait */
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
    /* The flow of each send's and receive's slice (one each at most); the lane of each wait. */
    size_t *flow_at = malloc((tl->nslices + 1) * sizeof *flow_at);
    uint32_t *lane_of = malloc((tl->nslices + 1) * sizeof *lane_of);
    if (flow_at) {
        for (size_t i = 0; i < tl->nslices; i++)
            flow_at[i] = SIZE_MAX;
        for (size_t k = 0; k < tl->nflows; k++)
            flow_at[tl->flow[k].from] = flow_at[tl->flow[k].to] = k;
    }
    if (!flow_at || !lane_of || wait_lanes(tl, lane_of) || metadata(a.f, &first, tl) ||
        wait_metadata(a.f, &first, tl, lane_of)) {
        free(flow_at), free(lane_of);
        cli_atomic_abort(&a);
        fprintf(stderr, "kcube: cannot write the timeline: out of memory\n");
        return CLI_EXIT_FAIL;
    }
    for (size_t i = 0; i < tl->nslices; i++) {
        slice_event(a.f, &first, tl, &tl->slice[i], slice_track(tl, &tl->slice[i], lane_of, i));
        if (flow_at[i] != SIZE_MAX)
            flow_event(a.f, &first, tl, flow_at[i], &tl->slice[i], tl->slice[i].kind == KC_TL_RECV);
    }
    free(lane_of);
    free(flow_at);
    fputs("\n]}\n", a.f);
    return cli_atomic_commit(&a); /* write errors surface in its checked flush */
}

/* ---- Gantt chart ---------------------------------------------------------------- */

/* The busy kinds' colours (calc, send, recv, hold: the kc_tl_kind order). */
static const unsigned kind_rgb[4] = {0x2ca02c, 0x1f5fbf, 0xd62728, 0xff7f0e};
enum { BUSY_KINDS = 4 };

typedef struct gantt {
    const kc_timeline *tl;
    const char *schedule, *model;
    uint32_t per_row, rows; /* ranks a row (1 up to CLI_TIMELINE_MAX_ROWS ranks), rows drawn */
    int arrows;             /* messages drawn as arrows */
} gantt;

/* The slices of one kind, a box each (boxxyerror: centre, rank, half width,
 * half height hh), or (points) those of length 0, a mark each. */
static void block(FILE *f, const char *name, const kc_timeline *tl, int kind, int points, double hh)
{
    fprintf(f, "$%s << EOD\n", name);
    int any = 0;
    for (size_t i = 0; i < tl->nslices; i++) {
        const kc_tl_slice *s = &tl->slice[i];
        if (s->kind != kind || (points ? s->dur_us > 0 : s->dur_us <= 0))
            continue;
        any = 1;
        fprintf(f, "%.17g %u %.17g %g\n", s->start_us + s->dur_us / 2, s->rank, s->dur_us / 2, hh);
    }
    fputs(any ? "EOD\n" : "NaN NaN NaN NaN\nEOD\n", f);
}

/* Message arrows, from the end of a send's slice to the start of its
 * receive's, when drawn (gt->arrows). */
static void arrows(FILE *f, const gantt *gt)
{
    const kc_timeline *tl = gt->tl;
    fputs("$msg << EOD\n", f);
    for (size_t i = 0; gt->arrows && i < tl->nflows; i++) {
        const kc_tl_slice *s = &tl->slice[tl->flow[i].from], *r = &tl->slice[tl->flow[i].to];
        double x0 = s->start_us + s->dur_us;
        fprintf(f, "%.17g %u %.17g %.17g\n", x0, s->rank, r->start_us - x0, (double)r->rank - (double)s->rank);
    }
    fputs(gt->arrows && tl->nflows ? "EOD\n" : "NaN NaN NaN NaN\nEOD\n", f);
}

/* Slice s's busy time spread over the bins of width w of its row's
 * acc[bin * BUSY_KINDS + kind]. O(bins it spans). */
static void spread(double *acc, const kc_tl_slice *s, double w, size_t bins)
{
    double a = s->start_us, b = s->start_us + s->dur_us;
    size_t i0 = (size_t)(a / w), i1 = (size_t)(b / w);
    i1 = i1 >= bins ? bins - 1 : i1;
    for (size_t i = i0 < bins ? i0 : bins - 1; i <= i1; i++) {
        double lo = (double)i * w, hi = lo + w;
        double part = (b < hi ? b : hi) - (a > lo ? a : lo);
        if (part > 0)
            acc[i * BUSY_KINDS + s->kind] += part;
    }
}

/* One row's cell (the bins [x0, x1) µs of width w, alike; ranks first..
 * first + n - 1) as boxes of the busy kinds stacked from its top, each as
 * tall as its share of the cell's rank time (c[kind]: µs a bin; several
 * CPUs of a rank may add up to more than the cell, then the shares are
 * scaled to fit). */
static void cell(FILE *f, const double *c, double x0, double x1, double w, uint32_t first, uint32_t n)
{
    double busy = 0, top = first - 0.5;
    for (int k = 0; k < BUSY_KINDS; k++)
        busy += c[k];
    double scale = busy > (double)n * w ? busy : (double)n * w; /* µs a bin per row height n */
    for (int k = 0; k < BUSY_KINDS; k++) {
        if (c[k] <= 0)
            continue;
        double h = c[k] / scale * n;
        /* half a pixel more each way (a bin is about 2.5 pixels wide, a row
         * 18 high), so that neighbours overlap instead of leaving a seam */
        fprintf(f, "%.17g %.17g %.17g %.17g %d\n", (x0 + x1) / 2, top + h / 2, (x1 - x0) / 2 + w * 0.2,
                h / 2 + n / 36.0, k);
        top += h;
    }
}

/* Do two bins hold the same busy time per kind (to 1e-9 of the bin)? */
static int alike(const double *a, const double *b, double w)
{
    for (int k = 0; k < BUSY_KINDS; k++)
        if (fabs(a[k] - b[k]) > 1e-9 * w)
            return 0;
    return 1;
}

/* Ranks aggregated into rows of gt->per_row: per row and time bin, the
 * busy kinds' shares of the row's rank time stacked (cell), a run of alike
 * bins as one cell; the rest, white, is idle or waiting. -1 when memory ran out. O(slices + the bins they
 * span + rows x bins). */
static int aggregate(FILE *f, const gantt *gt, double end)
{
    const kc_timeline *tl = gt->tl;
    size_t bins = CLI_TIMELINE_BINS, cells = (size_t)gt->rows * bins * BUSY_KINDS;
    double *acc = calloc(cells, sizeof *acc), w = end / (double)bins;
    if (!acc)
        return -1;
    for (size_t i = 0; i < tl->nslices && w > 0; i++)
        if (tl->slice[i].kind != KC_TL_WAIT && tl->slice[i].dur_us > 0)
            spread(acc + (size_t)(tl->slice[i].rank / gt->per_row) * bins * BUSY_KINDS, &tl->slice[i], w, bins);
    fputs("$agg << EOD\n", f);
    for (uint32_t row = 0; row < gt->rows && w > 0; row++) {
        uint32_t first = row * gt->per_row;
        uint32_t n = tl->num_ranks - first < gt->per_row ? tl->num_ranks - first : gt->per_row;
        const double *c = acc + (size_t)row * bins * BUSY_KINDS;
        for (size_t i = 0, j; i < bins; i = j) { /* a run of alike bins is one cell: fewer boxes, no seams */
            for (j = i + 1; j < bins && alike(c + j * BUSY_KINDS, c + i * BUSY_KINDS, w); j++)
                ;
            cell(f, c + i * BUSY_KINDS, (double)i * w, (double)j * w, w, first, n);
        }
    }
    fputs("NaN NaN NaN NaN 0\nEOD\n", f);
    free(acc);
    return 0;
}

/* The title: the schedule and model, how rows and arrows are drawn. */
static void title(FILE *f, const gantt *gt)
{
    const kc_timeline *tl = gt->tl;
    fputs("set title ", f);
    cli_plot_quote(f, "timeline of ");
    fputs(".", f);
    cli_plot_quote(f, gt->schedule);
    fputs(".", f);
    cli_plot_quote(f, " (model ");
    fputs(".", f);
    cli_plot_quote(f, gt->model);
    fputs(".')'", f);
    if (gt->per_row > 1)
        fprintf(f, ".\"\\n%u ranks in %u rows of %u: in each of %d time bins a row's share of rank time per "
                   "kind, stacked (white: idle or waiting)\"",
                tl->num_ranks, gt->rows, gt->per_row, CLI_TIMELINE_BINS);
    if (!gt->arrows)
        fprintf(f, ".\"\\n%zu messages, not drawn above %d or with rows of several ranks (the .json trace has "
                   "them)\"", tl->nflows, CLI_TIMELINE_MAX_ARROWS);
    fputs(" noenhanced\n", f);
}

static void gantt_body(FILE *f, const void *ctx)
{
    const gantt *gt = ctx;
    const kc_timeline *tl = gt->tl;
    double end = kc_timeline_end(tl);
    title(f, gt);
    fputs("set xlabel 'time (µs)'\nset ylabel 'rank'\n", f);
    fprintf(f, "set xrange [0:%.17g]\nset yrange [%.17g:-0.6]\n", end > 0 ? end * 1.02 : 1, tl->num_ranks - 0.4);
    if (gt->per_row == 1)
        fprintf(f, "set ytics %d\n", tl->num_ranks > 32 ? 4 : 1);
    fputs("set grid xtics front\nset key outside top center horizontal noenhanced\n", f);
    fputs("set style fill solid 0.85 border lc rgb '#333333'\n", f);
    static const char *const names[] = {"calc", "send", "recv", "hold"};
    if (gt->per_row > 1) {
        fputs("array kind_rgb[4] = [", f);
        for (int k = 0; k < BUSY_KINDS; k++)
            fprintf(f, "%s%u", k ? ", " : "", kind_rgb[k]);
        fputs("]\n", f);
        if (aggregate(f, gt, end))
            fputs("$agg << EOD\nNaN NaN NaN NaN 0\nEOD\n", f); /* out of memory: the axes alone */
        fputs("plot $agg using 1:2:3:4:(kind_rgb[int($5) + 1]) with boxxyerror fc rgb variable fs solid 1 noborder "
              "notitle", f);
        for (int k = 0; k < BUSY_KINDS; k++)
            fprintf(f, ", NaN with boxes fc rgb '#%06x' fs solid 1 noborder title '%s'", kind_rgb[k], names[k]);
        fputs("\n", f);
        return;
    }
    for (int k = 0; k < BUSY_KINDS; k++)
        block(f, names[k], tl, k, 0, 0.32);
    block(f, "wait", tl, KC_TL_WAIT, 0, 0.12);
    block(f, "mark", tl, KC_TL_RECV, 1, 0); /* receives that cost no processor time: a mark, not a box */
    arrows(f, gt);
    /* first drawn, lowest: the arrows thin and light, then the waits, then the slices */
    fputs("plot $msg using 1:2:3:4 with vectors head filled size screen 0.004,15 lc rgb '#b8b8b8' lw 0.5 ", f);
    fputs(gt->arrows ? "title 'message', " : "notitle, ", f);
    fputs("$wait using 1:2:3:4 with boxxyerror fc rgb '#cfcfcf' fs solid 1 noborder title 'wait (posted receive)'", f);
    for (int k = 0; k < BUSY_KINDS; k++)
        fprintf(f, ", $%s using 1:2:3:4 with boxxyerror lc rgb '#%06x' title '%s'", names[k], kind_rgb[k],
                names[k]);
    fputs(", $mark using 1:2 with points pt 7 ps 0.6 lc rgb '#d62728' title 'recv (no processor time)'\n", f);
}

int cli_timeline_write(const char *path, const char *size, const kc_timeline *tl, const char *schedule,
                       const char *model)
{
    if (!cli_timeline_drawn(path))
        return write_json(path, tl, schedule, model);
    gantt gt = {tl, schedule, model, 1, tl->num_ranks, 0};
    if (tl->num_ranks > CLI_TIMELINE_MAX_ROWS) {
        gt.per_row = (tl->num_ranks + CLI_TIMELINE_MAX_ROWS - 1) / CLI_TIMELINE_MAX_ROWS;
        gt.rows = (tl->num_ranks + gt.per_row - 1) / gt.per_row;
    }
    gt.arrows = gt.per_row == 1 && tl->nflows <= CLI_TIMELINE_MAX_ARROWS;
    int h = 160 + 18 * (int)gt.rows;
    return cli_plot_custom(path, size, 1200, h < 420 ? 420 : h, gantt_body, &gt);
}
