/* Linear-constant communications over GF(k) (y = Ax + b, gathers, scatters,
 * the named patterns of seed 002) as values: building, naming, mapping. */
#include "kcube/torus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/near.h"

/* ---- communications ------------------------------------------------------ */

static const kc_name tcomm_kind_entries[] = {
    {KC_TCOMM_PERMUTATION, "permutation", "A nonsingular over GF(k)"},
    {KC_TCOMM_GATHER, "gather", "A singular: y = Ax + b"},
    {KC_TCOMM_SCATTER, "scatter", "A singular: y receives from Ay + b"},
    {KC_TCOMM_UNIFORM, "uniform", "uniform random traffic (not linear)"},
    {0, NULL, NULL},
};
const kc_names kc_tcomm_kind_names = {"communication kind", tcomm_kind_entries};

const char *kc_tcomm_kind_name(kc_tcomm_kind kind) { return kc_names_name(&kc_tcomm_kind_names, (int)kind); }

kc_status kc_tcomm_init(kc_tcomm *c, const kc_gf *f, const kc_gfmat *a, const uint8_t *b, int scatter, kc_err *err)
{
    int n = a->n;
    if (n < 1 || n > KC_GFMAT_MAX)
        return kc_fail(err, KC_ERANGE, "n = %d is out of range 1..%d", n, KC_GFMAT_MAX);
    for (int i = 0; i < n; i++) {
        if (b && b[i] >= f->k)
            return kc_fail(err, KC_EINVAL, "vector entry %d is %u, not an element of GF(%d)", i, b[i], f->k);
        for (int j = 0; j < n; j++)
            if (a->e[i][j] >= f->k)
                return kc_fail(err, KC_EINVAL, "matrix entry (%d,%d) is %u, not an element of GF(%d)", i, j,
                               a->e[i][j], f->k);
    }
    int rank = kc_gfmat_rank(f, a);
    if (scatter && rank == n)
        return kc_fail_param(err, KC_EINVAL, "scatter",
                             "a scatter needs a singular matrix (rank < n), but this one has rank %d = n: it is a "
                             "permutation",
                             rank);
    /* Copy first: the inputs may live inside *c. */
    kc_gf fc = *f;
    kc_gfmat ac = *a;
    uint8_t bc[KC_GFMAT_MAX] = {0};
    if (b)
        memcpy(bc, b, (size_t)n);
    memset(c, 0, sizeof *c);
    c->f = fc;
    c->a = ac;
    memcpy(c->b, bc, sizeof bc);
    c->rank = rank;
    c->kind = rank == n ? KC_TCOMM_PERMUTATION : scatter ? KC_TCOMM_SCATTER : KC_TCOMM_GATHER;
    snprintf(c->name, sizeof c->name, "matrix");
    return KC_OK;
}

typedef struct tbuilder {
    kc_tpattern_info info;
    const char *alias; /* the hypercube module's name, or NULL */
    int needs_even;
    int arg;           /* 0: none; 1: ":i" with 0 <= i < n; 2: 1 <= i < n */
    int uniform;
} tbuilder;

static const tbuilder tbuilders[] = {
    {{"transpose", "n even: y = x with its two halves of digits swapped (matrix transpose)"}, NULL, 1, 0, 0},
    {{"digit-reverse", "y_i = x_{n-1-i} (radix-k FFT reordering)"}, "bit-reverse", 0, 0, 0},
    {{"digit-complement", "y_i = (k-1) - x_i, i.e. y = x + (k-1,...,k-1)"}, "complement", 0, 0, 0},
    {{"butterfly:i", "y = x + e_i: the partner across dimension i"}, NULL, 0, 1, 0},
    {{"digit-swap:i", "y = x with digits 0 and i exchanged (1 <= i < n)"}, "bit-swap", 0, 2, 0},
    {{"uniform", "each node sends to a uniformly random node (not linear)"}, NULL, 0, 0, 1},
};
#define NTB (sizeof tbuilders / sizeof tbuilders[0])

const kc_tpattern_info *kc_tcomm_pattern(size_t i) { return i < NTB ? &tbuilders[i].info : NULL; }

/* KC_EINVAL for a name no builder has, with the name it nearly is. */
static kc_status unknown_tpattern(const char *name, size_t base, kc_err *err)
{
    kci_near near;
    kci_near_init(&near, name, base);
    for (size_t p = 0; p < NTB; p++) {
        kci_near_offer(&near, tbuilders[p].info.name, strcspn(tbuilders[p].info.name, ":"));
        if (tbuilders[p].alias)
            kci_near_offer(&near, tbuilders[p].alias, strlen(tbuilders[p].alias));
    }
    size_t blen;
    const char *best = kci_near_best(&near, &blen);
    if (best)
        return kc_fail_param(err, KC_EINVAL, "pattern", "unknown pattern '%s' for the k-ary n-cube; did you mean '%.*s'?",
                             name, (int)blen, best);
    return kc_fail_param(err, KC_EINVAL, "pattern", "unknown pattern '%s' for the k-ary n-cube", name);
}

kc_status kc_tcomm_named(kc_tcomm *c, int k, int n, const char *name, kc_err *err)
{
    kc_gf f;
    kc_status s = kc_gf_init(&f, k, err);
    if (s)
        return s;
    if (n < 1 || n > KC_GFMAT_MAX)
        return kc_fail(err, KC_ERANGE, "n = %d is out of range 1..%d", n, KC_GFMAT_MAX);
    const char *colon = strchr(name, ':');
    size_t base = colon ? (size_t)(colon - name) : strlen(name);
    for (size_t p = 0; p < NTB; p++) {
        const tbuilder *bd = &tbuilders[p];
        size_t len = strcspn(bd->info.name, ":");
        int match = len == base && strncmp(bd->info.name, name, len) == 0;
        if (!match && bd->alias)
            match = strlen(bd->alias) == base && strncmp(bd->alias, name, base) == 0;
        if (!match)
            continue;
        long arg = 0;
        if (bd->arg) {
            char *end = NULL;
            /* digits, '-' allowed (then out of range): no '+' or spaces */
            int digits = colon && ((colon[1] >= '0' && colon[1] <= '9') || colon[1] == '-');
            arg = digits ? strtol(colon + 1, &end, 10) : -1;
            if (!digits || end == colon + 1 || *end != '\0')
                return kc_fail(err, KC_EINVAL, "pattern %.*s needs a dimension, e.g. %.*s:1", (int)base, name,
                               (int)base, name);
            long lo = bd->arg == 2 ? 1 : 0;
            if (arg < lo || arg >= n)
                return kc_fail(err, KC_EINVAL, "pattern %s: dimension %ld is out of range %ld..%d", name, arg, lo,
                               n - 1);
        } else if (colon) {
            return kc_fail(err, KC_EINVAL, "pattern %.*s takes no argument", (int)base, name);
        }
        if (bd->needs_even && n % 2)
            return kc_fail(err, KC_EINVAL, "pattern %s needs an even n, got n = %d", name, n);
        kc_gfmat a;
        uint8_t b[KC_GFMAT_MAX] = {0};
        kc_gfmat_zero(&a, n);
        const char *id = bd->info.name;
        if (strncmp(id, "transpose", 9) == 0) {
            for (int i = 0; i < n; i++)
                a.e[i][(i + n / 2) % n] = 1;
        } else if (strncmp(id, "digit-reverse", 13) == 0) {
            for (int i = 0; i < n; i++)
                a.e[i][n - 1 - i] = 1;
        } else if (strncmp(id, "digit-complement", 16) == 0) {
            kc_gfmat_identity(&a, n);
            memset(b, k - 1, (size_t)n);
        } else if (strncmp(id, "butterfly", 9) == 0) {
            kc_gfmat_identity(&a, n);
            b[arg] = 1;
        } else if (strncmp(id, "digit-swap", 10) == 0) {
            kc_gfmat_identity(&a, n);
            a.e[0][0] = a.e[arg][arg] = 0;
            a.e[0][arg] = a.e[arg][0] = 1;
        } else { /* uniform */
            kc_gfmat_zero(&a, n);
        }
        s = kc_tcomm_init(c, &f, &a, b, 0, err);
        if (s)
            return s;
        if (bd->uniform) {
            c->kind = KC_TCOMM_UNIFORM;
            c->rank = 0;
        }
        snprintf(c->name, sizeof c->name, "%s", name);
        return KC_OK;
    }
    return unknown_tpattern(name, base, err);
}

void kc_tcomm_message(const kc_tcomm *c, uint64_t msg, uint64_t *src, uint64_t *dst)
{
    uint8_t x[KC_GFMAT_MAX] = {0}, y[KC_GFMAT_MAX] = {0};
    int n = c->a.n, m = c->f.m;
    kc_gfvec_unpack(msg, x, n, m);
    kc_gfmat_mul_vec(&c->f, &c->a, x, y);
    for (int i = 0; i < n; i++)
        y[i] ^= c->b[i];
    uint64_t other = kc_gfvec_pack(y, n, m);
    if (c->kind == KC_TCOMM_SCATTER) {
        *src = other;
        *dst = msg;
    } else {
        *src = msg;
        *dst = other;
    }
}

uint64_t kc_tcomm_idle_dims(const kc_tcomm *c)
{
    if (c->kind == KC_TCOMM_UNIFORM)
        return 0;
    uint64_t idle = 0;
    for (int i = 0; i < c->a.n; i++) {
        int unit = c->b[i] == 0;
        for (int j = 0; j < c->a.n && unit; j++)
            unit = c->a.e[i][j] == (i == j);
        if (unit)
            idle |= 1ULL << i;
    }
    return idle;
}

kc_status kc_tcomm_map(kc_tcomm *out, const kc_tcomm *c, const kc_gfmat *q, kc_err *err)
{
    kc_tcomm r = *c;
    if (c->kind == KC_TCOMM_UNIFORM) {
        *out = r;
        return KC_OK;
    }
    kc_status s = kc_gfmat_conjugate(&c->f, &r.a, q, &c->a, err);
    if (s)
        return s;
    kc_gfmat_mul_vec(&c->f, q, c->b, r.b);
    *out = r;
    return KC_OK;
}
