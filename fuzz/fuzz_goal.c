/* Fuzz the GOAL reader and validator (kcube/goal.h) from memory, as the
 * replay command will drive them. Byte 0: the rank bound (1..64) given to
 * the reader. Small limits (line 128 bytes, input 4 KiB) so the limit paths
 * are reached. A schedule that validates must also survive the writer: read
 * back, it validates with as many operations and messages, and its
 * contention-free time is the same; the LogGOPS model runs on it too. */
#include <stdio.h>

#include "fuzz_input.h"
#include "kcube/goal.h"
#include "kcube/loggp.h"
#include "kcube/loggops.h"

static void kcf_run(kcf_input *in)
{
    uint32_t max_ranks = (uint32_t)kcf_int(in, 1, 64);
    kc_reader_limits lim = {128, 4096};
    kc_goal g;
    kc_goal_match m;
    kc_err err = {0};
    kc_status s = kc_goal_read_mem(&g, in->data, in->size, "input", &lim, max_ranks, &err);
    if (s != KC_OK) {
        kcf_check_failure(s, &err);
        return;
    }
    KCF_CHECK(g.num_ranks >= 1 && g.num_ranks <= max_ranks);
    s = kc_goal_validate(&g, 64, &m, &err);
    if (s != KC_OK) {
        kcf_check_failure(s, &err);
        kc_goal_free(&g);
        return;
    }
    double total = 0, again = 0;
    /* With receives matched at run time (m.run_time: wildcards) validation
     * leaves to the run what only a run decides, and a run may deadlock:
     * then the failure contract holds instead. */
    s = kc_goal_loggp(&g, &m, NULL, &total, NULL, &err);
    if (s != KC_OK) {
        KCF_CHECK(m.run_time > 0);
        kcf_check_failure(s, &err);
    } else {
        KCF_CHECK(total >= 0);
    }
    /* The LogGOPS model (kcube/loggops.h), eager and with rendezvous above
     * 8 bytes: a result whose makespan is the largest finish, or the
     * failure contract (a rendezvous deadlock, wildcards matched otherwise). */
    kc_loggops_params lp[2] = {KC_LOGGOPS_PARAMS_DEFAULT, {100, 10, 20, 2, 1, 8}};
    for (int k = 0; k < 2; k++) {
        kc_loggops_result lr;
        s = kc_loggops_run(&g, &lp[k], NULL, NULL, &lr, &err);
        if (s != KC_OK) {
            kcf_check_failure(s, &err);
            continue;
        }
        uint64_t top = 0;
        for (uint32_t v = 0; v < g.num_ranks; v++)
            top = lr.finish_ns[v] > top ? lr.finish_ns[v] : top;
        KCF_CHECK(top == lr.makespan_ns && lr.messages == m.messages);
        kc_loggops_result_free(&lr);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    KCF_CHECK(f != NULL);
    KCF_CHECK(kc_goal_write(&g, f, &err) == KC_OK);
    fclose(f);
    kc_goal back;
    kc_goal_match mb;
    kc_reader_limits big = {0, 0};
    KCF_CHECK(kc_goal_read_mem(&back, buf, len, "written", &big, max_ranks, &err) == KC_OK);
    KCF_CHECK(back.nops == g.nops && back.ndeps == g.ndeps && back.num_ranks == g.num_ranks);
    /* Wildcard receives are matched in file order, which the writer's
     * grouping by rank may change; then only the failure contract holds. */
    s = kc_goal_validate(&back, 64, &mb, &err);
    if (s == KC_OK) {
        kc_status sb = kc_goal_loggp(&back, &mb, NULL, &again, NULL, &err);
        KCF_CHECK(sb == KC_OK || mb.run_time > 0);
        KCF_CHECK(kc_goal_has_wildcards(&g) || (mb.messages == m.messages && again == total));
        kc_goal_match_free(&mb);
    } else {
        kcf_check_failure(s, &err);
    }
    free(buf);
    kc_goal_free(&back);
    kc_goal_match_free(&m);
    kc_goal_free(&g);
}
