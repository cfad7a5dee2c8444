/* The bounded top-k heap: see include/gcheap/topk.h.
 *
 * A min-heap on rank (a parent ranks after its children), so the root is the
 * worst kept: a candidate that does not rank before it is rejected at once. */
#include "gcheap/topk.h"

/* Places v at slot i of heap[0..n) (whose slot i is free) and sifts it down. */
static void sift_down(uint32_t *heap, size_t n, size_t i, uint32_t v, gch_rank_fn before,
                      const void *ctx)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, w = i;
        uint32_t wv = v;
        if (l < n && before(ctx, wv, heap[l])) {
            w = l;
            wv = heap[l];
        }
        if (r < n && before(ctx, wv, heap[r]))
            w = r;
        if (w == i)
            break;
        heap[i] = heap[w];
        i = w;
    }
    heap[i] = v;
}

size_t gch_top_k(uint32_t n, size_t k, gch_rank_fn before, const void *ctx, uint32_t *best)
{
    size_t kept = 0;
    if (k == 0)
        return 0;
    for (uint32_t c = 0; c < n; c++) {
        if (kept < k) {
            /* Sift up: the parent must rank after the child. */
            size_t i = kept++;
            while (i > 0 && before(ctx, best[(i - 1) / 2], c)) {
                best[i] = best[(i - 1) / 2];
                i = (i - 1) / 2;
            }
            best[i] = c;
        } else if (before(ctx, c, best[0])) {
            sift_down(best, kept, 0, c, before, ctx); /* replaces the worst */
        }
    }
    return kept;
}

size_t gch_top_k_keyed(uint32_t n, size_t k, const uint64_t *key, gch_rank_fn before,
                       const void *ctx, uint32_t *best)
{
    uint32_t first = k < n ? (uint32_t)k : n;
    size_t kept = gch_top_k(first, k, before, ctx, best);
    if (kept == 0 || kept < k)
        return kept;
    /* Most candidates fall below the worst kept: one compare of keys, a
     * branch that is seldom taken, instead of a call. */
    uint64_t worst = key[best[0]];
    for (uint32_t c = first; c < n; c++) {
        if (key[c] < worst || !before(ctx, c, best[0]))
            continue;
        sift_down(best, kept, 0, c, before, ctx);
        worst = key[best[0]];
    }
    return kept;
}

void gch_top_k_sort(uint32_t *best, size_t count, gch_rank_fn before, const void *ctx)
{
    /* Pop worst-first into the back of the array: the best ends up first. */
    for (size_t end = count; end > 1; end--) {
        uint32_t worst = best[0];
        sift_down(best, end - 1, 0, best[end - 1], before, ctx);
        best[end - 1] = worst;
    }
}
