/* Huge pages for the simulator's large arrays.
 *
 * The engine reads its channel, worm and path arrays at random: on a
 * million-node network they span hundreds of MiB, so with 4 KiB pages
 * nearly every access also misses the TLB and walks the page tables.
 * Asking the kernel for transparent huge pages on those arrays (2 MiB
 * pages: a few hundred cover them) removes most of that walk. Linux only
 * gives them on request when THP is in "madvise" mode (a common default);
 * elsewhere, or when the request fails, nothing changes but the speed. */
#define _DEFAULT_SOURCE
#include "sim_internal.h"

#include <stdint.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

void kci_sim_huge(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* only arrays that can hold at least one whole huge page are worth it */
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (!p || bytes < 2 * huge)
        return;
    long ps = sysconf(_SC_PAGESIZE);
    uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;
    uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), b = ((uintptr_t)p + bytes) & ~(page - 1);
    if (b > a)
        (void)madvise((void *)a, b - a, MADV_HUGEPAGE); /* advice: a refusal only costs speed */
#else
    (void)p;
    (void)bytes;
#endif
}
