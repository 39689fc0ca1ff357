/* Shared sweeps and the end of a run over MPI (mpi_share.h). */
#include "mpi_share.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/grow.h"

enum { ROUND_SWEEP = 1, ROUND_DONE = 2 };

/* One process's word in a round (the same layout on every process). */
typedef struct round_rec {
    int32_t state; /* ROUND_SWEEP or ROUND_DONE */
    int32_t rc;    /* done: its exit status */
    int32_t seq;   /* sweeps it has exchanged */
    int32_t count; /* at a sweep: its load points */
    int32_t end;   /* at a sweep: its first point that ends the sweep (count: none) */
    char msg[492]; /* done and failed: its error line without "kcube: " (helpers) */
} round_rec;

/* Broadcasts of at most 1 GiB at a time: MPI counts are ints. */
#define CHUNK (1 << 30)

int cli_mpi_init(cli_mpi *m, MPI_Comm comm, int threads)
{
    memset(m, 0, sizeof *m);
    m->comm = comm;
    MPI_Comm_rank(comm, &m->rank);
    MPI_Comm_size(comm, &m->size);
    m->err_fd = -1;
    m->share = (kc_simsweep_share){m->rank, m->size, cli_mpi_exchange, m};
    m->host = (cli_host){&m->share, m->rank != 0, threads};
    if (m->rank == 0)
        return 0;
    /* A helper's output would repeat rank 0's: standard output goes nowhere,
     * stderr to a file read back only when this helper fails alone. */
    int null = open("/dev/null", O_WRONLY);
    FILE *tmp = tmpfile();
    int ok = null >= 0 && tmp && dup2(null, 1) == 1;
    if (ok) {
        fflush(stderr);
        m->err_fd = dup(fileno(tmp));
        ok = m->err_fd >= 0 && dup2(m->err_fd, 2) == 2;
    }
    if (null >= 0)
        close(null);
    if (tmp)
        fclose(tmp);
    return ok ? 0 : -1;
}

/* A helper's first stderr line, without "kcube: " (rank 0 printed its own). */
static void first_line(const cli_mpi *m, char *msg, size_t size)
{
    msg[0] = '\0';
    if (m->err_fd < 0)
        return;
    fflush(stderr);
    char buf[512];
    ssize_t got = pread(m->err_fd, buf, sizeof buf - 1, 0);
    buf[got > 0 ? got : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    const char *s = strncmp(buf, "kcube: ", 7) ? buf : buf + 7;
    size_t n = strlen(s) < size - 1 ? strlen(s) : size - 1;
    memcpy(msg, s, n);
    msg[n] = '\0';
}

/* A process that is through with its points waits here for the others. MPI's
 * blocking calls wait by polling, which takes a core from the processes
 * still running theirs (on one machine, or a busy one); a test every
 * millisecond does not. */
static void round_all(cli_mpi *m, const round_rec *mine, round_rec *all)
{
    MPI_Request req;
    MPI_Iallgather(mine, sizeof *mine, MPI_BYTE, all, sizeof *mine, MPI_BYTE, m->comm, &req);
    for (int done = 0;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}

/* The lowest process that is done and failed, or -1. */
static int first_failed(const cli_mpi *m, const round_rec *all)
{
    for (int p = 0; p < m->size; p++)
        if (all[p].state == ROUND_DONE && all[p].rc)
            return p;
    return -1;
}

/* ---- points as bytes ----------------------------------------------------- */

typedef struct bytes {
    unsigned char *b;
    size_t len, cap;
    int failed;
} bytes;

static void put(bytes *o, const void *p, size_t n)
{
    if (o->failed || !n)
        return;
    if (KCI_RESERVE(o->b, o->cap, o->len + n, 256)) {
        o->failed = 1;
        return;
    }
    memcpy(o->b + o->len, p, n);
    o->len += n;
}

/* Point i: index, status, then the result (its link counts after it) or
 * the error (its parameter's name as text: a pointer means nothing elsewhere). */
static void pack_point(bytes *o, const kc_simsweep_exchange *x, int i)
{
    int32_t head[2] = {i, (int32_t)x->status[i]};
    put(o, head, sizeof head);
    if (x->status[i] == KC_OK) {
        kc_simresult r = x->points[i];
        uint8_t links = r.link_flits != NULL;
        r.link_flits = NULL;
        put(o, &r, sizeof r);
        put(o, &links, 1);
        if (links)
            put(o, x->points[i].link_flits, x->link_flits * sizeof *r.link_flits);
    } else {
        char param[64] = "";
        if (x->errs[i].param)
            snprintf(param, sizeof param, "%s", x->errs[i].param);
        put(o, param, sizeof param);
        put(o, x->errs[i].msg, sizeof x->errs[i].msg);
    }
}

/* Read n bytes at *at; 0 when the buffer is too short (a bug: same binary). */
static int take(const unsigned char *b, size_t len, size_t *at, void *p, size_t n)
{
    if (n > len - *at)
        return 0;
    memcpy(p, b + *at, n);
    *at += n;
    return 1;
}

/* The points another process broadcast; KC_OK or why not. */
static kc_status unpack(cli_mpi *m, const unsigned char *b, size_t len, kc_simsweep_exchange *x, kc_err *err)
{
    size_t at = 0;
    while (at < len) {
        int32_t head[2];
        if (!take(b, len, &at, head, sizeof head) || head[0] < 0 || head[0] > x->end || head[0] >= x->count)
            return kc_fail(err, KC_EINTERNAL, "a shared sweep received a malformed point");
        int i = head[0];
        kc_simresult r;
        if (head[1] == KC_OK) {
            uint8_t links;
            if (!take(b, len, &at, &r, sizeof r) || !take(b, len, &at, &links, 1))
                return kc_fail(err, KC_EINTERNAL, "a shared sweep received a malformed point");
            if (links) {
                size_t n = x->link_flits * sizeof *r.link_flits;
                r.link_flits = malloc(n ? n : 1);
                if (!r.link_flits)
                    return kc_fail(err, KC_ENOMEM, "out of memory");
                if (!take(b, len, &at, r.link_flits, n)) {
                    free(r.link_flits);
                    return kc_fail(err, KC_EINTERNAL, "a shared sweep received a malformed point");
                }
            }
            x->points[i] = r;
        } else {
            char param[64];
            kc_err e = {(kc_status)head[1], NULL, ""};
            if (!take(b, len, &at, param, sizeof param) || !take(b, len, &at, e.msg, sizeof e.msg))
                return kc_fail(err, KC_EINTERNAL, "a shared sweep received a malformed point");
            param[sizeof param - 1] = e.msg[sizeof e.msg - 1] = '\0';
            if (param[0]) { /* only the point that ends the sweep can have failed: one name to keep */
                memcpy(m->param, param, sizeof param);
                e.param = m->param;
            }
            x->errs[i] = e;
        }
        x->status[i] = (kc_status)head[1];
    }
    return KC_OK;
}

static void bcast_bytes(cli_mpi *m, unsigned char *b, uint64_t len, int root)
{
    for (uint64_t at = 0; at < len; at += CHUNK)
        MPI_Bcast(b + at, len - at < CHUNK ? (int)(len - at) : CHUNK, MPI_BYTE, root, m->comm);
}

/* ---- the exchange ---------------------------------------------------------- */

kc_status cli_mpi_exchange(void *ctx, kc_simsweep_exchange *x, kc_err *err)
{
    cli_mpi *m = ctx;
    round_rec mine = {ROUND_SWEEP, 0, m->seq, x->count, x->end, ""}, *all = calloc((size_t)m->size, sizeof *all);
    if (!all) { /* the others wait for this round: the job stops */
        fprintf(stderr, "kcube: out of memory\n");
        MPI_Abort(m->comm, CLI_EXIT_FAIL);
    }
    round_all(m, &mine, all); /* a failed MPI call ends the job (MPI_ERRORS_ARE_FATAL) */
    m->seq++;
    int failed = first_failed(m, all), end = x->end, odd = 0;
    for (int p = 0; p < m->size; p++) {
        odd |= all[p].state == ROUND_SWEEP && (all[p].seq != mine.seq || all[p].count != x->count);
        odd |= all[p].state == ROUND_DONE && failed < 0;
        end = all[p].state == ROUND_SWEEP && all[p].end < end ? all[p].end : end;
    }
    kc_status st = KC_OK;
    if (failed >= 0) {
        /* Another process stopped: its error is the job's (rank 0 prints it). */
        const round_rec *f = &all[failed];
        kc_status why = f->rc == CLI_EXIT_USAGE ? KC_EINVAL : KC_EIO;
        if (f->msg[0]) /* a helper's line: rank 0 did not see it */
            st = kc_fail(err, why, "%.400s (MPI process %d)", f->msg, failed);
        else
            st = kc_fail(err, why, "MPI process %d stopped (exit status %d)", failed, (int)f->rc);
    } else if (odd) {
        st = kc_fail(err, KC_EINTERNAL, "the MPI processes did not run the same sweeps");
    }
    free(all);
    if (st)
        return st;
    x->end = end;
    /* Each owner broadcasts its points up to the end, in index order. Every
     * process takes part in every broadcast, even after a failure of its own
     * (MPI's default handler ends the job on a failed call). */
    int last = end < x->count ? end : x->count - 1;
    for (int root = 0; root < m->size; root++) {
        bytes o = {0};
        if (root == m->rank)
            for (int i = root; i <= last; i += m->size)
                pack_point(&o, x, i);
        uint64_t len = o.failed ? UINT64_MAX : o.len; /* UINT64_MAX: the owner ran out of memory */
        MPI_Bcast(&len, 1, MPI_UINT64_T, root, m->comm);
        if (len == UINT64_MAX) {
            if (!st)
                st = kc_fail(err, KC_ENOMEM, "out of memory (MPI process %d)", root);
        } else if (len) {
            if (root != m->rank && !(o.b = malloc(len))) { /* a broadcast cannot be left: the job stops */
                fprintf(stderr, "kcube: out of memory\n");
                MPI_Abort(m->comm, CLI_EXIT_FAIL);
            }
            bcast_bytes(m, o.b, len, root);
            if (root != m->rank && !st)
                st = unpack(m, o.b, len, x, err);
        }
        free(o.b);
    }
    return st;
}

/* ---- the end ------------------------------------------------------------------ */

int cli_mpi_finish(cli_mpi *m, int rc)
{
    round_rec mine = {ROUND_DONE, rc, m->seq, 0, 0, ""}, *all = calloc((size_t)m->size, sizeof *all);
    if (rc)
        first_line(m, mine.msg, sizeof mine.msg);
    if (!all) {
        fprintf(stderr, "kcube: out of memory\n");
        MPI_Abort(m->comm, CLI_EXIT_FAIL);
        return CLI_EXIT_FAIL;
    }
    /* Others may still be at a sweep: answer their rounds (they will stop) until all are done. */
    for (;;) {
        round_all(m, &mine, all);
        int done = 1;
        for (int p = 0; p < m->size; p++)
            done &= all[p].state == ROUND_DONE;
        if (done)
            break;
    }
    int failed = all[0].rc ? 0 : first_failed(m, all), job = failed < 0 ? 0 : all[failed].rc;
    if (failed > 0 && m->rank == 0) {
        /* A helper failed alone (rank 0 did not): its line, said to be its. */
        if (all[failed].msg[0])
            fprintf(stderr, "kcube: %s (MPI process %d)\n", all[failed].msg, failed);
        else
            fprintf(stderr, "kcube: MPI process %d failed (exit status %d)\n", failed, job);
    }
    free(all);
    return job;
}
