/* src/mpi/mpi_fft.c - seed 000 Section 6.2's Parallel_FFT on real MPI
 * processes (kcube/mpi.h; the schedule kc_goal_gen_fft models is this
 * program's communication).
 *
 * m = 2^L points, L = n + 2d, point i on rank (i >> d) mod 2^n. The
 * radix-2 decimation-in-time FFT: the bit-reverse permutation of the
 * inputs, then stages s = 1..L, stage s combining the points that differ in
 * bit s-1. Reversing L bits maps the rank field (bits d..d+n-1) onto
 * itself reversed and swaps the two local fields, so the permutation is one
 * bit-reverse communication of whole blocks (kc_mpi_lcc) and a local
 * reordering. Stages with bit s-1 below d or above n+d-1 are local; the n
 * others pair rank p with p ^ 2^(s-1-d): both exchange whole blocks and
 * each computes its half of every butterfly (the paper's half butterflies). */
#include "mpi/mpi_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t reverse(uint64_t x, int bits)
{
    uint64_t r = 0;
    for (int i = 0; i < bits; i++)
        r |= ((x >> i) & 1) << (bits - 1 - i);
    return r;
}

#define KC_TWO_PI 6.28318530717958647692

/* w = e^(sign 2 pi i k / 2^(j+1)). */
static void twiddle(int sign, uint64_t k, int j, double *re, double *im)
{
    double a = (double)sign * KC_TWO_PI * (double)k / (double)(UINT64_C(2) << j);
    *re = cos(a);
    *im = sin(a);
}

/* The arguments in range on this rank (2^n processes, d 0..13, sign +-1,
 * data given). Local: the caller agrees. */
static kc_status fft_check(const double *data, int d, int sign, int size, int n, kc_err *e)
{
    if (n < 0)
        return kc_fail_param(e, KC_EINVAL, "comm", "the FFT runs on 2^n processes, not %d", size);
    if (d < 0 || d > 13)
        return kc_fail_param(e, KC_ERANGE, "d", "d must be 0..13 (4^d points a rank), not %d", d);
    if (sign != -1 && sign != 1)
        return kc_fail_param(e, KC_EINVAL, "sign", "sign must be -1 or +1, not %d", sign);
    if (!data)
        return kc_fail_param(e, KC_EINVAL, "d", "no data");
    return KC_OK;
}

/* Bit-reverse the 2^(n+2d) points: whole blocks to rank rev_n(p) (through
 * rev, when n > 0), then new[hi][lo] = received[rev_d(lo)][rev_d(hi)].
 * tmp holds `local` complex points. Collective. */
static kc_status fft_bitreverse(double *data, double *tmp, size_t local, int d, int n, const kc_lcc *rev,
                                MPI_Comm comm, kc_err *e)
{
    uint64_t lomask = (UINT64_C(1) << d) - 1;
    kc_status st = KC_OK;
    if (n > 0)
        st = kc_mpi_lcc(data, tmp, (int)(2 * local), MPI_DOUBLE, rev, comm, e);
    else
        memcpy(tmp, data, 2 * local * sizeof *tmp);
    for (size_t l = 0; !st && l < local; l++) {
        uint64_t hi = l >> d, lo = l & lomask;
        size_t from = (size_t)((reverse(lo, d) << d) | reverse(hi, d));
        data[2 * l] = tmp[2 * from];
        data[2 * l + 1] = tmp[2 * from + 1];
    }
    return st;
}

/* Butterfly stage j on local bit lb (the low field when j < d, else the
 * high field): both ends are on this rank p. */
static void fft_local_stage(double *data, size_t local, int d, int n, uint64_t p, int j, int lb, int sign)
{
    uint64_t half = UINT64_C(1) << j, lomask = (UINT64_C(1) << d) - 1;
    for (size_t l = 0; l < local; l++) {
        if ((l >> lb) & 1)
            continue;
        size_t u = l | ((size_t)1 << lb);
        uint64_t g = ((uint64_t)(l >> d) << (n + d)) | (p << d) | (l & lomask);
        double wr, wi;
        twiddle(sign, g & (half - 1), j, &wr, &wi);
        double br = data[2 * u], bi = data[2 * u + 1];
        double tr = wr * br - wi * bi, ti = wr * bi + wi * br;
        double ar = data[2 * l], ai = data[2 * l + 1];
        data[2 * l] = ar + tr;
        data[2 * l + 1] = ai + ti;
        data[2 * u] = ar - tr;
        data[2 * u + 1] = ai - ti;
    }
}

/* Butterfly stage j through dimension j - d of the cube: exchange the
 * whole block with the neighbour (into tmp), then keep this rank's end. */
static kc_status fft_exchange_stage(double *data, double *tmp, size_t local, int d, uint64_t p, int j, int sign,
                                    MPI_Comm comm, kc_err *e)
{
    uint64_t half = UINT64_C(1) << j, lomask = (UINT64_C(1) << d) - 1;
    int dim = j - d, upper = (int)((p >> dim) & 1);
    int partner = (int)(p ^ (UINT64_C(1) << dim));
    kc_status st = kci_mpi_check(MPI_Sendrecv(data, (int)(2 * local), MPI_DOUBLE, partner, KC_MPI_TAG + 1, tmp,
                                              (int)(2 * local), MPI_DOUBLE, partner, KC_MPI_TAG + 1, comm,
                                              MPI_STATUS_IGNORE),
                                 "MPI_Sendrecv", e);
    for (size_t l = 0; !st && l < local; l++) {
        /* Both ends of the butterfly share g mod 2^j. */
        uint64_t g = (p << d) | (l & lomask);
        double wr, wi;
        twiddle(sign, g & (half - 1), j, &wr, &wi);
        const double *a = upper ? tmp + 2 * l : data + 2 * l, *b = upper ? data + 2 * l : tmp + 2 * l;
        double tr = wr * b[0] - wi * b[1], ti = wr * b[1] + wi * b[0];
        double ar = a[0], ai = a[1];
        data[2 * l] = upper ? ar - tr : ar + tr;
        data[2 * l + 1] = upper ? ai - ti : ai + ti;
    }
    return st;
}

kc_status kc_mpi_fft(double *data, int d, int sign, MPI_Comm comm, kc_err *err)
{
    kc_err e = {0};
    int size, rank, n;
    kc_status st = kci_mpi_comm_cube(comm, &size, &rank, &n, &e);
    if (st)
        return kci_mpi_out(st, &e, err);
    st = fft_check(data, d, sign, size, n, &e);
    size_t local = (size_t)1 << (2 * (d < 0 || d > 13 ? 0 : d));
    double *tmp = st ? NULL : malloc(2 * local * sizeof *tmp);
    if (!st && !tmp)
        st = kc_fail(&e, KC_ENOMEM, "out of memory");
    kc_lcc rev;
    if (!st && n > 0) {
        kc_bitmat a;
        kc_bitmat_zero(&a, n);
        for (int i = 0; i < n; i++)
            kc_bitmat_set(&a, i, n - 1 - i, 1);
        st = kc_lcc_init(&rev, &a, 0, 0, &e);
    }
    if ((st = kci_mpi_agree(comm, st, &e))) {
        free(tmp);
        return kci_mpi_out(st, &e, err);
    }
    uint64_t p = (uint64_t)rank;
    st = fft_bitreverse(data, tmp, local, d, n, &rev, comm, &e);
    int bits = n + 2 * d;
    for (int j = 0; j < bits && !st; j++) {
        if (j < d || j >= n + d)
            fft_local_stage(data, local, d, n, p, j, j < d ? j : j - n, sign);
        else
            st = fft_exchange_stage(data, tmp, local, d, p, j, sign, comm, &e);
    }
    free(tmp);
    return kci_mpi_out(st, &e, err);
}
