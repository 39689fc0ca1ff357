/* replay_timeline.h - `kcube replay --timeline FILE` (both models): a
 * replay's timeline (kcube/timeline.h) as a file, Chrome trace events
 * (JSON) or a Gantt chart drawn by gnuplot.
 *
 * The file name decides: ending in .png, .svg, .pdf or .eps, a drawing
 * (through plot.h's safe path, --size as for charts), for at most
 * CLI_TIMELINE_MAX_DRAWN ranks; ending in .json, or "-" (standard output),
 * a device or FIFO without a chart's extension, the trace-event JSON; any
 * other name is refused (exit 2). Both are written by the checked, atomic
 * writer (out.h). */
#ifndef KC_CLI_REPLAY_TIMELINE_H
#define KC_CLI_REPLAY_TIMELINE_H

#include <stdint.h>

#include "kcube/timeline.h"

#define CLI_TIMELINE_MAX_DRAWN 64
/* Message arrows are drawn up to this many ranks. */
#define CLI_TIMELINE_MAX_ARROWS 16

/* Is the timeline file a drawing (.png, .svg, .pdf, .eps)? */
int cli_timeline_drawn(const char *path);

/* Before the run: the name says JSON or a drawing and can be written, a
 * drawing has at most CLI_TIMELINE_MAX_DRAWN ranks, and size (--size, or
 * NULL) suits it. 0, or an exit status after one line. */
int cli_timeline_check(const char *path, const char *size, uint32_t num_ranks);

/* Write tl; schedule and model (e.g. "network", "loggp") name the run in
 * the trace's metadata and the chart's title. JSON: {"traceEvents": [...],
 * "otherData": {...}}: a process per node and a
 * thread per rank (pid = node, tid = rank, named by "M" events), one "X"
 * event per slice (ts, dur in microseconds; args peer, bytes, tag, op, and
 * for a recv posted_us and wait_us), and per message an "s" event on the
 * send's slice and an "f" event (bp "e") on the receive's, with one id.
 * O(slices + flows); the JSON is streamed, one event at a time. 0, or an
 * exit status after one line. */
int cli_timeline_write(const char *path, const char *size, const kc_timeline *tl, const char *schedule,
                       const char *model);

#endif
