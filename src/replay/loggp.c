/* The contention-free LogGP-style time of a GOAL schedule (kcube/goal.h,
 * docs/goal.md): the processor model of proc.c with every message taking
 * its size times the byte time, and none within a node. */
#include <string.h>

#include "kcube/loggp.h"
#include "kcube/timeline.h"
#include "replay_internal.h"

kc_status kc_goal_loggp(const kc_goal *g, const kc_goal_match *m, const kc_goal_timing *t, double *total_us,
                        double *finish_us, kc_err *err)
{
    return kc_goal_loggp_record(g, m, t, NULL, total_us, finish_us, NULL, err);
}

kc_status kc_goal_loggp_record(const kc_goal *g, const kc_goal_match *m, const kc_goal_timing *t,
                               const uint32_t *node_of, double *total_us, double *finish_us, kc_timeline *tl,
                               kc_err *err)
{
    kc_goal_timing def = KC_GOAL_TIMING_DEFAULT;
    if (!t)
        t = &def;
    if (!(t->byte_time_us >= 0))
        return kc_fail_param(err, KC_EINVAL, "timing", "start-up and byte time must be non-negative numbers");
    kci_proc p;
    /* the validation's matching when it pairs every message without a cycle
     * (with wildcards: its file-order reading); else matched at run time */
    const kc_goal_match *fixed = m && m->hint_ok ? m : NULL;
    kc_status st = kci_proc_init(&p, g, fixed, t->startup_us, NULL, t->byte_time_us, err);
    if (st)
        return st;
    while (kci_proc_pending(&p)) {
        double now = kci_proc_time(&p);
        size_t send = kci_proc_step(&p);
        if (send == KC_GOAL_NONE)
            continue;
        /* The data leaves when the start-up ends; within a node it is there. */
        const kc_goal_op *o = &g->op[send];
        int local = kci_proc_local(g, node_of, send);
        double at = now + (local ? 0 : (double)o->amount * t->byte_time_us);
        kci_proc_arrive(&p, send, at, at);
    }
    if (!(st = kci_proc_check(&p, err)) && (!tl || !(st = kci_proc_record(&p, tl, err)))) {
        *total_us = p.total;
        if (finish_us)
            memcpy(finish_us, p.finish, g->num_ranks * sizeof *finish_us);
    }
    kci_proc_free(&p);
    return st;
}
