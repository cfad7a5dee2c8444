/* See sort.h: insertion sort of runs of RUN elements, then bottom-up merges
 * between the array and a scratch copy. */
#include "sort.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

enum { RUN = 16 };

static void insertion(char *a, size_t n, size_t size, cli_cmp_fn cmp, const void *ctx, char *tmp)
{
    for (size_t i = 1; i < n; i++) {
        size_t j = i;
        while (j > 0 && cmp(a + (j - 1) * size, a + i * size, ctx) > 0)
            j--;
        if (j == i)
            continue;
        memcpy(tmp, a + i * size, size);
        memmove(a + (j + 1) * size, a + j * size, (i - j) * size);
        memcpy(a + j * size, tmp, size);
    }
}

/* Merges src[lo..mid) and src[mid..hi) into dst[lo..hi): the left one first
 * on ties (stable). */
static void merge(const char *src, char *dst, size_t lo, size_t mid, size_t hi, size_t size,
                  cli_cmp_fn cmp, const void *ctx)
{
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi) {
        if (cmp(src + j * size, src + i * size, ctx) < 0)
            memcpy(dst + k++ * size, src + j++ * size, size);
        else
            memcpy(dst + k++ * size, src + i++ * size, size);
    }
    memcpy(dst + k * size, src + i * size, (mid - i) * size);
    k += mid - i;
    memcpy(dst + k * size, src + j * size, (hi - j) * size);
}

void cli_sort(void *base, size_t n, size_t size, cli_cmp_fn cmp, const void *ctx)
{
    if (n < 2 || size == 0)
        return;
    char *a = base;
    char *scratch = xmalloc_array(n > RUN ? n : 1, size);
    for (size_t lo = 0; lo < n; lo += RUN)
        insertion(a + lo * size, n - lo < RUN ? n - lo : RUN, size, cmp, ctx, scratch);
    char *src = a, *dst = scratch;
    for (size_t width = RUN; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            merge(src, dst, lo, mid, hi, size, cmp, ctx);
        }
        char *t = src;
        src = dst;
        dst = t;
        if (width > ((size_t)-1) / 4)
            break;
    }
    if (src != a)
        memcpy(a, src, n * size);
    free(scratch);
}
