/* gcheap/topk.h - the k best of n candidates, with a bounded heap.
 *
 * The one top-k selection of gcheap (the dominator summary, `top`): O(n log k)
 * time, k slots of memory, and most candidates rejected by one comparison
 * with the worst kept. Candidates are the numbers 0..n-1; the caller ranks
 * them.
 */
#ifndef GCHEAP_TOPK_H
#define GCHEAP_TOPK_H

#include <stddef.h>
#include <stdint.h>

/* Whether candidate a ranks before (is better than) candidate b. A strict
 * total order: for a != b exactly one of before(a, b), before(b, a). */
typedef int (*gch_rank_fn)(const void *ctx, uint32_t a, uint32_t b);

/* Selects the best min(k, n) of the candidates 0..n-1 into best[] (room for
 * min(k, n) entries), in heap order: best[0] is the worst kept. Returns how
 * many were kept. */
size_t gch_top_k(uint32_t n, size_t k, gch_rank_fn before, const void *ctx, uint32_t *best);

/* Sorts best[0..count), as gch_top_k left it, best first, in place. */
void gch_top_k_sort(uint32_t *best, size_t count, gch_rank_fn before, const void *ctx);

#endif
