/* In-place sort of uint32 arrays with a caller's order: see src/graph_internal.h. */
#include "graph_internal.h"

#include <string.h>

#include "gcheap/alloc.h"

static void sift_down(uint32_t *a, size_t root, size_t n, gch__before_fn before, const void *ctx)
{
    /* Max-heap where "bigger" means "comes later". */
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && before(ctx, a[child], a[child + 1]))
            child++;
        if (!before(ctx, a[root], a[child]))
            return;
        uint32_t tmp = a[root];
        a[root] = a[child];
        a[child] = tmp;
        root = child;
    }
}

void gch__sort_u32(uint32_t *a, size_t n, gch__before_fn before, const void *ctx)
{
    if (n < 2)
        return;
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            uint32_t x = a[i];
            size_t j = i;
            while (j > 0 && before(ctx, x, a[j - 1])) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    for (size_t i = n / 2; i-- > 0;)
        sift_down(a, i, n, before, ctx);
    for (size_t end = n - 1; end > 0; end--) {
        uint32_t tmp = a[0];
        a[0] = a[end];
        a[end] = tmp;
        sift_down(a, 0, end, before, ctx);
    }
}

/* ------------------------------------------------ lists sorted by a key */

/* Bits needed to write x (0 for 0). */
static unsigned bit_width(uint64_t x)
{
    unsigned b = 0;
    while (x) {
        b++;
        x >>= 1;
    }
    return b;
}

/* Stable LSD radix sort of a[0..n-1] by bits [lo, hi) (8-bit digits), using
 * tmp[n]. Returns the buffer holding the result (a or tmp). */
static uint64_t *radix_sort_bits(uint64_t *a, uint64_t *tmp, size_t n, unsigned lo, unsigned hi)
{
    enum { MAXP = 8 };
    uint32_t count[MAXP][256];
    unsigned passes = (hi - lo + 7) / 8;
    memset(count, 0, sizeof count[0] * passes);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = a[i] >> lo;
        for (unsigned p = 0; p < passes; p++)
            count[p][(x >> (8 * p)) & 0xff]++;
    }
    uint64_t *src = a, *dst = tmp;
    for (unsigned p = 0; p < passes; p++) {
        uint32_t *c = count[p];
        unsigned shift = lo + 8 * p;
        /* A digit shared by every element changes nothing. */
        if (c[(src[0] >> shift) & 0xff] == n)
            continue;
        uint32_t sum = 0;
        for (unsigned d = 0; d < 256; d++) {
            uint32_t k = c[d];
            c[d] = sum;
            sum += k;
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t x = src[i];
            dst[c[(x >> shift) & 0xff]++] = x;
        }
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    return src;
}

typedef struct key_order {
    const uint64_t *key;
} key_order;

/* Bigger key first, then lower item. */
static int key_desc_before(const void *ctx, uint32_t a, uint32_t b)
{
    const uint64_t *k = ((const key_order *)ctx)->key;
    if (k[a] != k[b])
        return k[a] > k[b];
    return a < b;
}

int gch__sort_lists_by_key_desc(uint32_t *items, const uint32_t *start, size_t lists,
                                const uint64_t *key, uint32_t item_limit)
{
    size_t longest = 0;
    for (size_t k = 0; k < lists; k++)
        if (start[k + 1] - start[k] > longest)
            longest = start[k + 1] - start[k];
    if (longest < 2)
        return 0;
    uint64_t *buf = gch_reallocarray(NULL, longest, 2 * sizeof *buf);
    if (!buf)
        return -1;
    uint64_t *tmp = buf + longest;
    const unsigned ib = bit_width(item_limit ? item_limit - 1 : 0);
    const uint64_t imask = ib == 64 ? UINT64_MAX : ((uint64_t)1 << ib) - 1;
    key_order ord = { key };
    for (size_t k = 0; k < lists; k++) {
        uint32_t *a = items + start[k];
        size_t n = start[k + 1] - start[k];
        if (n < 2)
            continue;
        uint64_t lo = UINT64_MAX, hi = 0;
        for (size_t i = 0; i < n; i++) {
            if (i + 16 < n)
                __builtin_prefetch(&key[a[i + 16]]);
            uint64_t x = key[a[i]];
            buf[i] = x;
            if (x < lo)
                lo = x;
            if (x > hi)
                hi = x;
        }
        if (lo == hi)
            continue; /* equal keys: ascending items already */
        const unsigned kb = bit_width(hi - lo);
        if (kb + ib > 64) {
            /* Cannot pack key and item into 64 bits: compare through key[]. */
            gch__sort_u32(a, n, key_desc_before, &ord);
            continue;
        }
        /* Pack (hi - key, item): ascending order of the packed values is the
         * wanted order. The list is in ascending item order, so a stable sort
         * by the key bits alone is enough. */
        for (size_t i = 0; i < n; i++)
            buf[i] = (hi - buf[i]) << ib | a[i];
        const uint64_t *res = buf;
        if (n <= 48) {
            for (size_t i = 1; i < n; i++) {
                uint64_t x = buf[i];
                size_t j = i;
                while (j > 0 && buf[j - 1] > x) {
                    buf[j] = buf[j - 1];
                    j--;
                }
                buf[j] = x;
            }
        } else {
            res = radix_sort_bits(buf, tmp, n, ib, ib + kb);
        }
        for (size_t i = 0; i < n; i++)
            a[i] = (uint32_t)(res[i] & imask);
    }
    gch_free(buf);
    return 0;
}
